//! The formal flow on a block's `tiny` preset (or a given config), shared by the
//! `<block>_formal` tests.

use std::path::PathBuf;
use switchcraft::formal::{run, FormalOptions, FormalReport};
use switchcraft::tool::Tools;
use switchcraft::BlockConfig;

/// What to prove: a config, its instance name, the BMC depth and the induction length.
pub struct Proof {
    pub cfg: BlockConfig,
    pub name: &'static str,
    pub bmc_depth: u32,
    pub k: u32,
}

impl Proof {
    /// The block's `tiny` preset at BMC depth 6 (the small blocks), with the block's own
    /// induction length (its pipeline depth sets it).
    pub fn tiny(block: &str) -> Proof {
        Proof {
            cfg: BlockConfig::preset(block, "tiny").unwrap(),
            name: "tiny",
            bmc_depth: 6,
            k: switchcraft::blocks::find(block).unwrap().formal().k,
        }
    }
}

fn prove(block: &str, proof: &Proof, mutant: bool) -> FormalReport {
    let name = proof.name;
    let dir = format!(
        "formal-{block}-{name}{}",
        if mutant { "-mutant" } else { "" }
    );
    let opts = FormalOptions {
        bmc_depth: proof.bmc_depth,
        k: proof.k,
        mutant,
        out_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir),
        tools: Tools::from_env(),
    };
    let report = run(block, &proof.cfg, name, &opts).unwrap();
    eprintln!("{report}");
    report
}

/// BMC from reset and k-induction both pass on `tiny`, and the props file states every one of
/// `names`.
pub fn assert_proved(block: &str, names: &[&str]) {
    assert_proved_on(block, &Proof::tiny(block), names);
}

/// As [`assert_proved`], on `proof`.
pub fn assert_proved_on(block: &str, proof: &Proof, names: &[&str]) {
    let report = prove(block, proof, false);
    assert!(report.bmc.passed, "{report}");
    assert!(report.passed(), "{report}");
    for name in names {
        assert!(
            report.assertions.iter().any(|a| a == name),
            "{name} missing"
        );
    }
}

/// With `SC_MUTANT` on `tiny`, BMC fails on `assertion` and writes a counterexample VCD showing
/// `port`.
pub fn assert_mutant_fails(block: &str, assertion: &str, port: &str) {
    assert_mutant_fails_on(block, &Proof::tiny(block), assertion, port);
}

/// As [`assert_mutant_fails`], on `proof`.
pub fn assert_mutant_fails_on(block: &str, proof: &Proof, assertion: &str, port: &str) {
    let report = prove(block, proof, true);
    assert!(!report.bmc.passed, "the mutant must fail BMC: {report}");
    assert!(
        report.induction.is_none(),
        "no induction after a failed BMC"
    );
    assert_eq!(report.bmc.failed_assertion.as_deref(), Some(assertion));
    let vcd = report
        .bmc
        .counterexample
        .as_ref()
        .expect("a counterexample VCD");
    let text = std::fs::read_to_string(vcd).unwrap();
    assert!(text.contains(port), "the VCD shows the ports");
}
