//! The formal flow on CaPFC `tiny`: every property holds (BMC from reset and k-induction), and
//! the mutant assertion makes the flow fail with a counterexample, so the flow can fail at all.

mod common;

use common::formal::{assert_mutant_fails, assert_proved};

#[test]
fn capfc_tiny_properties_are_proved() {
    assert_proved(
        "capfc",
        &[
            "a_e_count_is_column",
            "a_e_row_keys_track",
            "a_d_is_i_or_e",
            "a_frame_pause_is_d",
            "a_e_only_after_xoff",
            "a_pending_only_after_xoff",
            "a_calibration_only_after_xoff",
            "a_engine_flags_ranked",
            "a_engine_result",
            "a_stop_max_flags_a_maximum",
            "a_stop_max_sets_only_the_maximum",
            "a_no_e_for_zero_counter",
            "a_no_e_for_zero_counter_cal",
            "a_calibration_is_algorithm_1",
            "a_calibration_latency",
            "a_csr_write_cut",
            "a_csr_read_id",
        ],
    );
}

#[test]
fn capfc_tiny_mutant_fails_with_a_counterexample() {
    assert_mutant_fails("capfc", "a_d_is_i_or_e", "eg_enq_valid");
}
