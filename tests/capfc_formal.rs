//! The formal flow on CaPFC's formal config (`formal/capfc/capfc_formal.toml`: 4 ports, 1
//! priority, 8-bit occupancy, 3-bit counters): every property holds to BMC depth 4 (the base
//! case), the BMC-only ones to depth 12 (an event of step 1 has its E bits by step 8 and its D
//! by step 9; a calibration's E bits come three edges after its last flag, the sixth edge
//! after the capture for one flag, so calibrations with up to three flags finish within the
//! depth),
//! the others by
//! 4-induction, and the mutant assertion makes the flow
//! fail with a counterexample, so the flow can fail at all. On `tiny` itself, the inductive
//! assertions (the reaction bound among them) are proved by BMC to depth 4 and 4-induction.

mod common;

use common::formal::{assert_mutant_fails_on, assert_proved_on, Proof};
use std::path::Path;
use switchcraft::BlockConfig;

fn proof() -> Proof {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("formal/capfc/capfc_formal.toml");
    Proof {
        cfg: BlockConfig::from_file("capfc", &path).unwrap(),
        name: "formal",
        bmc_depth: 12,
        k: 4,
    }
}

#[test]
fn capfc_formal_properties_are_proved() {
    assert_proved_on(
        "capfc",
        &proof(),
        &[
            "a_e_count_is_column",
            "a_e_count_fits",
            "a_e_diagonal_clear",
            "a_e_row_keys_track",
            "a_d_is_i_or_e",
            "a_frame_pause_is_d",
            "a_e_only_after_xoff",
            "a_pending_only_after_xoff",
            "a_calibration_only_after_xoff",
            "a_set_only_after_xoff",
            "a_set_only_after_xoff_w1",
            "a_set_only_after_xoff_w2",
            "a_max_only_after_xoff_m1",
            "a_max_only_after_xoff_m2",
            "a_xoff_test_after_xoff",
            "a_xon_in_flight",
            "a_engine_flags_ranked",
            "a_engine_result",
            "a_stop_max_flags_a_maximum",
            "a_stop_max_sets_only_the_maximum",
            "a_no_e_for_zero_counter",
            "a_no_e_for_zero_counter_cal",
            "a_calibration_is_algorithm_1",
            "a_calibration_latency",
            "a_engine_serves_waiting_requests",
            "a_engine_busy_starved",
            "a_engine_row_padding_clear",
            "a_forwarded_row_padding_clear",
            "a_no_key_started_twice_while_waiting",
            "a_started_keys_behind_pointer",
            "a_rr_before_is_pointer",
            "a_tests_are_the_spec",
            "a_csr_write_cut",
            "a_csr_read_id",
            "a_egress_occupancy_is_sequential_d",
            "a_egress_occupancy_is_sequential_e",
        ],
    );
}

/// Issue 31 item 4 on `tiny` itself (4 ports, 2 priorities, 16-bit occupancy): BMC to depth 4
/// (the base case) and 4-induction prove every inductive assertion, among them both halves of
/// the reaction bound, for every reachable cycle (about 30 s; the BMC-only assertions need
/// the formal config's depth 9, which `tiny` does not reach in reasonable time).
#[test]
fn capfc_reaction_bound_is_proved_on_tiny() {
    let proof = Proof {
        cfg: BlockConfig::preset("capfc", "tiny").unwrap(),
        name: "tiny",
        bmc_depth: 4,
        k: 4,
    };
    assert_proved_on(
        "capfc",
        &proof,
        &[
            "a_engine_serves_waiting_requests",
            "a_no_key_started_twice_while_waiting",
        ],
    );
}

#[test]
fn capfc_formal_mutant_fails_with_a_counterexample() {
    assert_mutant_fails_on("capfc", &proof(), "a_d_is_i_or_e", "eg_enq_valid");
}
