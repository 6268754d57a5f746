//! The formal flow on PFC `tiny`: every property holds (BMC from reset and k-induction), and the
//! mutant assertion makes the flow fail with a counterexample, so the flow can fail at all.

mod common;

use common::formal::{assert_mutant_fails, assert_proved};

#[test]
fn pfc_tiny_properties_are_proved() {
    assert_proved(
        "pfc",
        &[
            "a_events_are_state_changes",
            "a_xoff_only_after_threshold",
            "a_no_underflow",
            "a_no_overflow",
            "a_csr_write_xoff",
            "a_csr_read_xoff",
            "a_err_rw1c",
            "a_refresh_bound",
            "a_occupancy_is_sequential_e",
            "a_occupancy_is_sequential_d",
            "a_drop_is_sequential",
        ],
    );
}

#[test]
fn pfc_tiny_mutant_fails_with_a_counterexample() {
    // From reset, the first XOFF request takes REQUEST_LATENCY (4) edges after an enqueue that
    // crosses XOFF: the depth (10) reaches it.
    assert_mutant_fails("pfc", "a_events_are_state_changes", "xoff_valid");
}
