//! The formal flow on a block's `tiny` preset, shared by the `<block>_formal` tests.

use std::path::PathBuf;
use switchcraft::formal::{run, FormalOptions, FormalReport};
use switchcraft::tool::Tools;
use switchcraft::BlockConfig;

fn prove(block: &str, mutant: bool) -> FormalReport {
    let cfg = BlockConfig::preset(block, "tiny").unwrap();
    let dir = format!("formal-{block}-tiny{}", if mutant { "-mutant" } else { "" });
    let opts = FormalOptions {
        bmc_depth: 6,
        k: 4,
        mutant,
        out_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir),
        tools: Tools::from_env(),
    };
    let report = run(block, &cfg, "tiny", &opts).unwrap();
    eprintln!("{report}");
    report
}

/// BMC from reset and k-induction both pass, and the props file states every one of `names`.
pub fn assert_proved(block: &str, names: &[&str]) {
    let report = prove(block, false);
    assert!(report.bmc.passed, "{report}");
    assert!(report.induction.passed, "{report}");
    for name in names {
        assert!(
            report.assertions.iter().any(|a| a == name),
            "{name} missing"
        );
    }
}

/// With `SC_MUTANT`, BMC fails on `assertion` and writes a counterexample VCD showing `port`.
pub fn assert_mutant_fails(block: &str, assertion: &str, port: &str) {
    let report = prove(block, true);
    assert!(!report.bmc.passed, "the mutant must fail BMC: {report}");
    assert_eq!(report.bmc.failed_assertion.as_deref(), Some(assertion));
    let vcd = report
        .bmc
        .counterexample
        .as_ref()
        .expect("a counterexample VCD");
    let text = std::fs::read_to_string(vcd).unwrap();
    assert!(text.contains(port), "the VCD shows the ports");
}
