//! The formal flow on PFC `tiny`: every property holds (BMC from reset and k-induction), and the
//! mutant assertion makes the flow fail with a counterexample, so the flow can fail at all.

use std::path::PathBuf;
use switchcraft::formal::{run, FormalOptions};
use switchcraft::tool::Tools;
use switchcraft::BlockConfig;

fn options(name: &str, mutant: bool) -> FormalOptions {
    FormalOptions {
        bmc_depth: 6,
        k: 4,
        mutant,
        out_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name),
        tools: Tools::from_env(),
    }
}

#[test]
fn pfc_tiny_properties_are_proved() {
    let cfg = BlockConfig::preset("pfc", "tiny").unwrap();
    let report = run("pfc", &cfg, "tiny", &options("formal-tiny", false)).unwrap();
    eprintln!("{report}");
    assert!(report.bmc.passed, "{report}");
    assert!(report.induction.passed, "{report}");
    for name in [
        "a_events_are_state_changes",
        "a_xoff_only_after_threshold",
        "a_no_underflow",
        "a_no_overflow",
        "a_csr_write_xoff",
        "a_csr_read_xoff",
        "a_err_rw1c",
        "a_refresh_bound",
    ] {
        assert!(
            report.assertions.iter().any(|a| a == name),
            "{name} missing"
        );
    }
}

#[test]
fn pfc_tiny_mutant_fails_with_a_counterexample() {
    let cfg = BlockConfig::preset("pfc", "tiny").unwrap();
    let report = run("pfc", &cfg, "tiny", &options("formal-tiny-mutant", true)).unwrap();
    eprintln!("{report}");
    assert!(!report.bmc.passed, "the mutant must fail BMC: {report}");
    assert_eq!(
        report.bmc.failed_assertion.as_deref(),
        Some("a_events_are_state_changes")
    );
    let vcd = report
        .bmc
        .counterexample
        .as_ref()
        .expect("a counterexample VCD");
    let text = std::fs::read_to_string(vcd).unwrap();
    assert!(text.contains("xoff_valid"), "the VCD shows the ports");
}
