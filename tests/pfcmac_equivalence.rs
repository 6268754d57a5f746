//! pfcmac golden model vs its exported Verilog under Verilator: every output, every cycle.
//!
//! * long seeded runs of the block's random workload on every preset and on an 8-bit stream
//!   without the FCS: descriptors under bursty back-pressure, received frames good, malformed
//!   in each way and not PFC at all, with idle cycles inside them, CSR writes of the step
//!   (above one quantum per cycle and 0), the source address and the flags;
//! * a TX-to-RX loopback of each preset's RTL against the same loopback of the model: the
//!   block's own frames, taken under random back-pressure, received by itself;
//! * proptest: short random sequences of descriptors, beats and CSR accesses on `fpga-fcs`,
//!   shrunk to a minimal failing one; seed from `SWITCHCRAFT_SEED`, printed on failure.

mod common;

use common::lockstep::Lockstep;
use common::{preset_workload, proptest_equivalence, random_workload, seed};
use proptest::prelude::*;
use switchcraft::blocks::pfcmac::PfcMacBlock;
use switchcraft::BlockConfig;
use switchcraft_core::rng::SplitMix64;
use switchcraft_core::PortValues;
use switchcraft_model::pfcmac::{PfcMacConfig, PfcMacIn, PfcMacOut};

#[test]
fn pfcmac_tiny_random_workload_model_equals_verilator() {
    preset_workload("pfcmac", "tiny", 400_000);
}

#[test]
fn pfcmac_fpga_random_workload_model_equals_verilator() {
    preset_workload("pfcmac", "fpga", 400_000);
}

#[test]
fn pfcmac_fpga_fcs_random_workload_model_equals_verilator() {
    preset_workload("pfcmac", "fpga-fcs", 400_000);
}

#[test]
fn pfcmac_8_bit_without_fcs_random_workload_model_equals_verilator() {
    let cfg = PfcMacConfig {
        fcs: false,
        ..PfcMacConfig::preset("tiny").unwrap()
    };
    random_workload(
        &BlockConfig::new(PfcMacBlock, cfg),
        "nofcs8",
        seed(),
        300_000,
    );
}

/// TX looped back to RX on one instance: each cycle's RX beat is the TX beat the last cycle
/// showed, if `tx_tready` took it. Model and RTL run the same inputs, built from the model's
/// outputs; every output is compared every cycle.
fn loopback(preset: &str) {
    let seed = seed();
    let mut run = Lockstep::new(&common::preset("pfcmac", preset), preset, "loopback");
    let mut rng = SplitMix64::new(seed);
    let (mut last, mut received) = (PfcMacOut::default(), 0u64);
    for cycle in 0..100_000u64 {
        let ready = rng.chance(60);
        let mut i = PfcMacIn {
            tx_tready: u64::from(ready),
            rx_tvalid: u64::from(last.tx_tvalid == 1 && ready),
            rx_tdata: last.tx_tdata,
            rx_tkeep: last.tx_tkeep,
            rx_tlast: last.tx_tlast,
            ..Default::default()
        };
        // The step is slow: pauses last longer than the run unless resumed.
        if cycle == 0 {
            i.csr_we = 1;
            i.csr_addr = u64::from(switchcraft_model::pfcmac::reg::QUANTA_STEP);
            i.csr_wdata = 1;
        }
        if rng.chance(4) {
            i.frame_valid = 1;
            i.frame_class_enable = rng.below(256);
            i.frame_pause = rng.below(256);
            i.frame_quanta = rng.range(1, 1 << 16);
        }
        last = run.step(&i);
        received += last.rx_pfc_valid;
        assert_eq!(
            last.bad_frame, 0,
            "{preset}: its own frame judged bad, cycle {cycle}"
        );
    }
    assert!(received > 1000, "{preset}: only {received} events received");
}

#[test]
fn pfcmac_tiny_loopback_model_equals_verilator() {
    loopback("tiny");
}

#[test]
fn pfcmac_fpga_loopback_model_equals_verilator() {
    loopback("fpga");
}

#[test]
fn pfcmac_fpga_fcs_loopback_model_equals_verilator() {
    loopback("fpga-fcs");
}

/// One cycle of random inputs: descriptors, back-pressure, received beats (mostly whole
/// 8-byte lanes with a PFC header's bytes, so short sequences reach the parser's checks) and
/// CSR accesses.
fn row() -> impl Strategy<Value = Vec<u64>> {
    (
        any::<bool>(),
        any::<u8>(),
        any::<u8>(),
        0u64..64,
        any::<bool>(),
        any::<bool>(),
        prop_oneof![
            Just(0x0100_00C2_8001u64),
            Just(0x0101_0888_0000_0000u64),
            any::<u64>()
        ],
        prop_oneof![Just(0xffu64), 0u64..256],
        any::<bool>(),
        prop::bool::weighted(0.05),
        (prop::bool::weighted(0.05), 0u64..12, any::<u32>()),
    )
        .prop_map(
            |(fv, en, pause, quanta, ready, rv, data, keep, last, user, (we, addr, wdata))| {
                let i = PfcMacIn {
                    frame_valid: u64::from(fv),
                    frame_class_enable: en.into(),
                    frame_pause: pause.into(),
                    frame_quanta: quanta,
                    tx_tready: u64::from(ready),
                    rx_tvalid: u64::from(rv),
                    rx_tdata: data,
                    rx_tkeep: keep,
                    rx_tlast: u64::from(last),
                    rx_tuser: u64::from(user),
                    csr_we: u64::from(we),
                    csr_addr: addr,
                    csr_wdata: wdata.into(),
                };
                let mut v = vec![0u64; PfcMacIn::NAMES.len()];
                i.to_values(&mut v);
                v
            },
        )
}

#[test]
fn pfcmac_proptest_model_equals_verilator() {
    let cfg = common::preset("pfcmac", "fpga-fcs");
    proptest_equivalence(
        &cfg,
        "fpga_fcs",
        "pfcmac_proptest_model_equals_verilator",
        "proptest-regressions/pfcmac_equivalence.txt",
        prop::collection::vec(row(), 1..200),
    );
}
