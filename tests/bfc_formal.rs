//! The formal flow on BFC's formal config (`formal/bfc/bfc_formal.toml`: 2 ports x 4 queues,
//! 8 flow-table entries, so events are accepted from edge 8): every property holds to BMC
//! depth 14 (events on edges 8 to 11, with their results two edges later) and by 3-induction
//! (the pipeline is three registers deep from an input to its result), and the mutant
//! assertion makes the flow fail with a counterexample.

mod common;

use common::formal::{assert_mutant_fails_on, assert_proved_on, Proof};
use std::path::Path;
use switchcraft::BlockConfig;

fn proof() -> Proof {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("formal/bfc/bfc_formal.toml");
    Proof {
        cfg: BlockConfig::from_file("bfc", &path).unwrap(),
        name: "formal",
        bmc_depth: 14,
        k: 3,
    }
}

#[test]
fn bfc_formal_properties_are_proved() {
    assert_proved_on(
        "bfc",
        &proof(),
        &[
            "a_asg_per_enqueue",
            "a_refused_is_empty",
            "a_resume_needs_marked_departure",
            "a_pause_needs_enqueue",
            "a_csr_read_id",
            "a_ready_after_sweep",
            "a_refused_while_sweeping",
            "a_data_queue_assigned",
            "a_pause_resume_alternate",
            "a_resume_after_pause",
            "a_pause_is_counted",
            "a_no_pause_resume_pair",
            "a_pause_iff_counter_leaves_zero",
            "a_resume_iff_counter_returns_to_zero",
            "a_paused_iff_marked_packet_queued",
            "a_entry_with_packets_keeps_its_queue",
            "a_new_queue_is_empty_when_one_is",
        ],
    );
}

#[test]
fn bfc_formal_mutant_fails_with_a_counterexample() {
    assert_mutant_fails_on("bfc", &proof(), "a_ready_after_sweep", "enq_valid");
}
