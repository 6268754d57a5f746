//! The formal flow on PFC's formal config (`formal/pfc/pfc_formal.toml`: 2 ports, 2 priorities,
//! 8-bit occupancy, 4-bit lengths): every property holds by BMC from reset to depth 8 (events
//! of steps 1 to 4 reach the occupancy's select stage by step 7, so the sequential-spec ones
//! see every hazard distance up to 3) and the inductive ones by 8-induction; and the mutant
//! assertion makes the flow fail with a counterexample, so the flow can fail at all.
//! `make formal BLOCK=pfc` runs the BMC-only ones to depth 9 (hazard distance 4); the directed
//! Verilator tests cover every distance on `tiny` and `fpga`. `tiny` itself (16-bit occupancy,
//! 11-bit lengths) takes about 7 minutes to depth 8.

mod common;

use common::formal::{assert_mutant_fails_on, assert_proved_on, Proof};
use std::path::Path;
use switchcraft::BlockConfig;

fn proof() -> Proof {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("formal/pfc/pfc_formal.toml");
    Proof {
        cfg: BlockConfig::from_file("pfc", &path).unwrap(),
        name: "formal",
        bmc_depth: 8,
        k: 8,
    }
}

const ASSERTIONS: &[&str] = &[
    "a_events_are_state_changes",
    "a_xoff_only_after_threshold",
    "a_no_underflow",
    "a_no_overflow",
    "a_drop_only_when_valid",
    "a_csr_write_xoff",
    "a_csr_read_xoff",
    "a_err_rw1c",
    "a_refresh_bound",
    "a_occupancy_is_sequential_e",
    "a_occupancy_is_sequential_d",
    "a_drop_is_sequential",
    "a_operand_is_sequential_e",
    "a_decision_lookup_is_state_e",
    "a_decision_bypass_flags",
    "a_same_is_keys_r",
];

#[test]
fn pfc_formal_properties_are_proved() {
    assert_proved_on("pfc", &proof(), ASSERTIONS);
}

#[test]
fn pfc_formal_mutant_fails_with_a_counterexample() {
    // From reset, a drop shows DROP_LATENCY (4) edges after an enqueue above MAX (one packet
    // of the formal config's lengths can exceed its MAX): the depth (8) reaches it.
    assert_mutant_fails_on("pfc", &proof(), "a_drop_reported", "enq_drop");
}
