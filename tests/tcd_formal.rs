//! The formal flow on TCD `tiny`: every property holds (BMC from reset and k-induction), with
//! the default solver (Bitwuzla) and with z3, and the mutant assertion makes the flow fail with
//! a counterexample, so the flow can fail at all.

mod common;

use common::formal::{assert_mutant_fails, assert_proved, assert_proved_with, Proof};
use switchcraft::formal::Solver;

const ASSERTIONS: [&str; 11] = [
    "a_decision_is_sequential",
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
];

#[test]
fn tcd_tiny_properties_are_proved() {
    assert_proved("tcd", &ASSERTIONS);
}

/// `--solver z3` stays a working alternative: the same proof with Debian's z3, to depth 6
/// (depth 12 takes z3 about a minute, Bitwuzla 4 s).
#[test]
fn tcd_tiny_properties_are_proved_with_z3() {
    let proof = Proof {
        bmc_depth: 6,
        ..Proof::tiny("tcd")
    };
    assert_proved_with("tcd", &proof, Solver::Z3, &ASSERTIONS);
}

#[test]
fn tcd_tiny_mutant_fails_with_a_counterexample() {
    assert_mutant_fails("tcd", "a_resume_same_cycle_ue", "deq_ecn");
}
