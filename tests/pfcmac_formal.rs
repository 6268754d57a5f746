//! The formal flow on pfcmac's formal config (`formal/pfcmac/pfcmac_formal.toml`: a 64-bit
//! stream with the FCS, one quantum per cycle), whose 8-beat frames fit the BMC depth: every
//! property holds (BMC from reset to depth 12 and 4-induction), and the mutant assertion makes
//! the flow fail with a counterexample, so the flow can fail at all. On `tiny` (8-bit beats,
//! 64 per frame) the same properties are proved by BMC and 4-induction.

mod common;

use common::formal::{assert_mutant_fails_on, assert_proved_on, Proof};
use std::path::Path;
use switchcraft::BlockConfig;

const PROPERTIES: &[&str] = &[
    "a_tx_stream_stable",
    "a_tx_framing",
    "a_tx_framing_idle",
    "a_tx_constant_bytes",
    "a_pause_rises_only_by_good_frame",
    "a_bad_frame_pauses_nothing",
    "a_pause_falls_by_resume_or_expiry",
    "a_tx_frames_saturate",
    "a_rx_frames_saturate",
    "a_rx_bad_saturates",
    "a_csr_read_id",
];

fn proof() -> Proof {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("formal/pfcmac/pfcmac_formal.toml");
    Proof {
        cfg: BlockConfig::from_file("pfcmac", &path).unwrap(),
        name: "formal",
        bmc_depth: 12,
        k: 4,
    }
}

#[test]
fn pfcmac_formal_properties_are_proved() {
    assert_proved_on("pfcmac", &proof(), PROPERTIES);
}

#[test]
fn pfcmac_tiny_properties_are_proved() {
    assert_proved_on("pfcmac", &Proof::tiny("pfcmac"), PROPERTIES);
}

#[test]
fn pfcmac_mutant_fails_with_a_counterexample() {
    // A descriptor on the first edge after reset shows its first beat right after it.
    assert_mutant_fails_on("pfcmac", &proof(), "a_tx_stream_stable", "tx_tvalid");
}
