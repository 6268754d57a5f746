//! The formal flow on QCN's formal config (`formal/qcn/qcn_formal.toml`: 2 ports, 1 priority,
//! a 4-edge reset sweep, the testbed's step P_fb, two flow entries, 1-cycle timestamps, T_fb 6):
//! every property of the CP holds to BMC depth 20 (the first FBP can come at step 14, and one
//! of the same flow five edges later, refused through the rate-limit RAM rather than a
//! forward, at step 19) and by 2-induction, and the mutant
//! assertion makes the flow fail with a counterexample, so the flow can fail at all. The
//! ingress side is the PFC core: PFC's own properties (hysteresis among them) are proved on
//! this config's embedded PFC, XOFF = Q_PFC + 1 and XON = Q_PFC - H_pfc (with 4-bit lengths).

mod common;

use common::formal::{assert_mutant_fails_on, assert_proved_on, Proof};
use std::path::Path;
use switchcraft::BlockConfig;

fn proof() -> Proof {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("formal/qcn/qcn_formal.toml");
    Proof {
        cfg: BlockConfig::from_file("qcn", &path).unwrap(),
        name: "formal",
        bmc_depth: 20,
        k: 2,
    }
}

#[test]
fn qcn_formal_properties_are_proved() {
    assert_proved_on(
        "qcn",
        &proof(),
        &[
            "a_fbp_fields_zero_when_idle",
            "a_fbp_only_above_q_min",
            "a_fbp_names_its_arrival",
            "a_fbp_fb_is_the_spec_fb",
            "a_one_fbp_per_flow_per_t_fb",
            "a_csr_read_id",
        ],
    );
}

#[test]
fn qcn_formal_mutant_fails_with_a_counterexample() {
    assert_mutant_fails_on("qcn", &proof(), "a_fbp_only_above_q_min", "fbp_valid");
}

#[test]
fn qcn_embedded_pfc_hysteresis_is_proved_at_q_pfc() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("formal/qcn/qcn_formal.toml");
    let qcn = BlockConfig::from_file("qcn", &path).unwrap();
    let mut pfc = qcn
        .get::<switchcraft::model::qcn::QcnConfig>()
        .unwrap()
        .pfc_config();
    assert_eq!((pfc.xoff, pfc.xon), (101, 60), "Q_PFC = 100, H_pfc = 40");
    // Lengths of 4 bits, as PFC's own formal config: the thresholds are what this proof is
    // about, and the look-ahead's arithmetic makes the solver's time grow fast with the
    // lengths (12 s at 4 bits, 90 s at 6, 190 s at the config's 8).
    pfc.length_bits = 4;
    assert_proved_on(
        "pfc",
        &Proof {
            cfg: BlockConfig::new(switchcraft::blocks::pfc::PfcBlock, pfc),
            name: "qcn_ingress",
            bmc_depth: 8,
            k: 8,
        },
        &[
            "a_events_are_state_changes",
            "a_xoff_only_after_threshold",
            "a_occupancy_is_sequential_e",
            "a_drop_is_sequential",
        ],
    );
}
