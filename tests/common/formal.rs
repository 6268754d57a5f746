//! The formal flow on a block's `tiny` preset (or a given config), shared by the
//! `<block>_formal` tests.

use std::path::PathBuf;
use switchcraft::formal::{run, FormalOptions, FormalReport, Solver};
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
    /// The block's `tiny` preset at the block's own BMC depth and induction length, as
    /// `make formal` proves it.
    pub fn tiny(block: &str) -> Proof {
        let settings = switchcraft::blocks::find(block).unwrap().formal();
        Proof {
            cfg: BlockConfig::preset(block, "tiny").unwrap(),
            name: "tiny",
            bmc_depth: settings.depth,
            k: settings.k,
        }
    }
}

fn prove(block: &str, proof: &Proof, mutant: bool, solver: Solver) -> FormalReport {
    let name = proof.name;
    let dir = format!(
        "formal-{block}-{name}{}{}",
        if mutant { "-mutant" } else { "" },
        if solver == Solver::default() {
            String::new()
        } else {
            format!("-{}", solver.name())
        }
    );
    let opts = FormalOptions {
        bmc_depth: proof.bmc_depth,
        k: proof.k,
        mutant,
        out_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir),
        tools: Tools::from_env(),
        solver,
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
    assert_proved_with(block, proof, Solver::default(), names);
}

/// As [`assert_proved_on`], with `solver`.
pub fn assert_proved_with(block: &str, proof: &Proof, solver: Solver, names: &[&str]) {
    let report = prove(block, proof, false, solver);
    assert_eq!(report.solver, solver);
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
    let report = prove(block, proof, true, Solver::default());
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
