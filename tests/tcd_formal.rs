//! The formal flow on TCD `tiny`: every property holds (BMC from reset and k-induction), and the
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
fn tcd_tiny_properties_are_proved() {
    let cfg = BlockConfig::preset("tcd", "tiny").unwrap();
    let report = run("tcd", &cfg, "tiny", &options("formal-tiny", false)).unwrap();
    eprintln!("{report}");
    assert!(report.bmc.passed, "{report}");
    assert!(report.induction.passed, "{report}");
    for name in [
        "a_last_state_written_valid",
        "a_ce_stays_ce",
        "a_not_ect_never_marked",
        "a_paused_follows_frames",
        "a_resume_same_cycle_ue",
        "a_ue_only_within_max_ton",
        "a_resume_then_ue",
        "a_time_counts",
        "a_csr_write_max_ton",
        "a_csr_read_now",
    ] {
        assert!(
            report.assertions.iter().any(|a| a == name),
            "{name} missing"
        );
    }
}

#[test]
fn tcd_tiny_mutant_fails_with_a_counterexample() {
    let cfg = BlockConfig::preset("tcd", "tiny").unwrap();
    let report = run("tcd", &cfg, "tiny", &options("formal-tiny-mutant", true)).unwrap();
    eprintln!("{report}");
    assert!(!report.bmc.passed, "the mutant must fail BMC: {report}");
    assert_eq!(
        report.bmc.failed_assertion.as_deref(),
        Some("a_resume_same_cycle_ue")
    );
    let vcd = report
        .bmc
        .counterexample
        .as_ref()
        .expect("a counterexample VCD");
    let text = std::fs::read_to_string(vcd).unwrap();
    assert!(text.contains("deq_ecn"), "the VCD shows the ports");
}
