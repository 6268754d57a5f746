//! The formal flow on RCM's formal config (`formal/rcm/rcm_formal.toml`: 2 ports, 2-entry
//! CAMs, 8-bit flow IDs, a 4-edge reset sweep, one-cycle 8-bit timestamps, timers of a few
//! edges): every property holds to the block's BMC depth and by induction, and the mutant
//! assertion makes the flow fail with a counterexample, so the flow can fail at all.

mod common;

use common::formal::{assert_mutant_fails_on, assert_proved_on, Proof};
use std::path::Path;
use switchcraft::BlockConfig;

fn proof() -> Proof {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("formal/rcm/rcm_formal.toml");
    let settings = switchcraft::blocks::find("rcm").unwrap().formal();
    Proof {
        cfg: BlockConfig::from_file("rcm", &path).unwrap(),
        name: "formal",
        bmc_depth: settings.depth,
        k: settings.k,
    }
}

#[test]
fn rcm_formal_properties_are_proved() {
    assert_proved_on(
        "rcm",
        &proof(),
        &[
            "a_cam_hit_iff_valid_entry",
            "a_held_only_if_harmful",
            "a_sar_never_detours_harmful",
            "a_no_detour_without_query",
            "a_wc_never_below_wc_min",
            "a_one_reduction_per_trigger",
            "a_cn_fields_zero_when_idle",
            "a_id_fields_zero_when_idle",
            "a_dec_fields_zero_when_idle",
            "a_csr_read_id",
            "a_visit_keep_is_the_ports",
            "a_visit_operands_are_the_ports",
            "a_visit_timers_are_the_ports",
        ],
    );
}

#[test]
fn rcm_formal_mutant_fails_with_a_counterexample() {
    assert_mutant_fails_on(
        "rcm",
        &proof(),
        "a_sar_never_detours_harmful",
        "route_detour",
    );
}
