//! CaPFC golden model vs its exported Verilog under Verilator: every output, every cycle.
//!
//! * long seeded runs of the block's random workload (it switches between PFC only, Stop-Max
//!   and Stop-Calibrate and rewrites CUT and thresholds as it goes) on `tiny` (6-bit counters
//!   that halve), `fpga`, Stop-Max with saturating 3-bit counters, and a 3-port config whose
//!   buses can name a missing port;
//! * proptest: short random event sequences on two egress queues with skewed inputs, shrunk to a
//!   minimal failing one, regressions in `proptest-regressions/`; seed from `SWITCHCRAFT_SEED`,
//!   printed on failure;
//! * directed: one egress queue enqueued and dequeued every cycle across WARN, XOFF and XON
//!   while a second one keeps requesting calibrations, so requests wait, are served on idle
//!   cycles and are cancelled by XON; every case of the threshold tests on the occupancy
//!   arithmetic's operands (apart, same key, same key after an underflow) at each bound.

mod common;

use common::{check, preset_workload, proptest_equivalence, random_workload, seed, verilated};
use proptest::prelude::*;
use switchcraft::blocks::capfc::CapfcBlock;
use switchcraft::BlockConfig;
use switchcraft_core::{CycleModel, PortValues};
use switchcraft_model::capfc::{
    reg, CapfcConfig, CapfcIn, Policy, Saturation, SharedMemory, POLICY_SATURATE,
};

fn preset(name: &str) -> BlockConfig {
    BlockConfig::preset("capfc", name).unwrap()
}

fn tiny() -> CapfcConfig {
    CapfcConfig::preset("tiny").unwrap()
}

#[test]
fn capfc_tiny_random_workload_model_equals_verilator() {
    preset_workload("capfc", "tiny", 400_000);
}

#[test]
fn capfc_fpga_random_workload_model_equals_verilator() {
    preset_workload("capfc", "fpga", 300_000);
}

#[test]
fn capfc_stop_max_saturating_random_workload_model_equals_verilator() {
    let cfg = BlockConfig::new(
        CapfcBlock,
        CapfcConfig {
            policy: Policy::StopMax,
            saturation: Saturation::Saturate,
            counter_bits: 3,
            ..tiny()
        },
    );
    random_workload(&cfg, "maxsat", seed(), 200_000);
}

#[test]
fn capfc_3_ports_random_workload_model_equals_verilator() {
    let cfg = BlockConfig::new(
        CapfcBlock,
        CapfcConfig {
            ports: 3,
            priorities: 3,
            ..tiny()
        },
    );
    random_workload(&cfg, "odd3x3", seed(), 200_000);
}

/// The shared-memory variant (spec §2.7) on 3 ports x 3 priorities: 1 000 B dedicated per queue,
/// 1 500 B of pool per port, a 2 500 B pool, so the port and pool caps drop egress enqueues and
/// a full pool drops ingress ones; a departure on the edge of an enqueue on its port.
#[test]
fn capfc_shared_memory_random_workload_model_equals_verilator() {
    let cfg = BlockConfig::new(
        CapfcBlock,
        CapfcConfig {
            ports: 3,
            priorities: 3,
            shared: Some(SharedMemory {
                dedicated: 1000,
                port_cap: 1500,
                pool_cap: 2500,
            }),
            ..tiny()
        },
    );
    random_workload(&cfg, "shared", seed(), 200_000);
}

/// The smallest shape: 2 ports x 1 priority, 4 keys of 2 bits (fewer keys than the 8 bits of a
/// frame's class vector).
#[test]
fn capfc_2_ports_1_priority_random_workload_model_equals_verilator() {
    let cfg = BlockConfig::new(
        CapfcBlock,
        CapfcConfig {
            ports: 2,
            priorities: 1,
            ..tiny()
        },
    );
    random_workload(&cfg, "min2x1", seed(), 100_000);
}

/// 5 ports x 5 priorities: three priority bits per key with three unused priority codes.
#[test]
fn capfc_5_ports_5_priorities_random_workload_model_equals_verilator() {
    let cfg = BlockConfig::new(
        CapfcBlock,
        CapfcConfig {
            ports: 5,
            priorities: 5,
            ..tiny()
        },
    );
    random_workload(&cfg, "odd5x5", seed(), 100_000);
}

/// The Stop-Calibrate episode of docs/blocks/capfc.md ("Waveform"): the model's trace has the
/// documented E messages and frames on the documented steps, and the Verilog agrees.
#[test]
fn capfc_documented_calibration_episode_model_and_verilator() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reproductions/capfc_calibrate");
    let cfg = BlockConfig::from_file("capfc", &dir.join("config.toml")).unwrap();
    let schema = cfg.schema();
    let rows =
        switchcraft_core::stimulus::read_stimulus(&dir.join("stimulus.jsonl"), &schema).unwrap();
    let names: Vec<&str> = schema.outputs().map(|p| p.name.as_str()).collect();
    let mut model = cfg.model();
    model.reset();
    let mut out = vec![0u64; names.len()];
    // (step, output name, value) of the non-zero event outputs.
    let mut seen = Vec::new();
    for (step, row) in rows.iter().enumerate() {
        model.step_values(row, &mut out);
        for (name, v) in names.iter().zip(&out) {
            let shown = [
                "eset_valid",
                "eset_mask",
                "eclr_valid",
                "eclr_mask",
                "frame_valid",
                "frame_port",
                "frame_pause",
            ];
            if *v != 0 && shown.contains(name) {
                seen.push((step, *name, *v));
            }
        }
    }
    let expected = vec![
        // Calibration of {C1 = 4, C2 = 1, C3 = 1}: 5 * (4 + 1) >= 4 * 6 flags inputs 1 and 2.
        (15, "eset_valid", 1),
        (15, "eset_mask", 0b0110),
        (18, "frame_valid", 1),
        (18, "frame_port", 1),
        (18, "frame_pause", 1),
        (19, "frame_valid", 1),
        (19, "frame_port", 2),
        (19, "frame_pause", 1),
        // The waiting request, {4, 1, 2}: 5 * (4 + 2) >= 4 * 7 flags inputs 1 and 3; 3 is new.
        (20, "eset_valid", 1),
        (20, "eset_mask", 0b1000),
        // The dequeue to XON clears every E bit; RESUME frames follow, one per edge.
        (23, "eclr_valid", 1),
        (23, "eclr_mask", 0b1110),
        (23, "frame_valid", 1),
        (23, "frame_port", 3),
        (23, "frame_pause", 1),
        (26, "frame_valid", 1),
        (26, "frame_port", 1),
        (27, "frame_valid", 1),
        (27, "frame_port", 2),
        (28, "frame_valid", 1),
        (28, "frame_port", 3),
    ];
    assert_eq!(seen, expected);
    let mut rtl = verilated(&cfg, "episode");
    check(&cfg, &mut rtl, rows, "the documented episode").unwrap();
}

/// One cycle of events on two egress queues (inputs skewed to a heavy one) and two ingress
/// keys, lengths that cross the thresholds within a few packets, and CSR writes of the
/// policy, CUT and inspection index.
fn cycle_strategy(c: &CapfcConfig) -> impl Strategy<Value = CapfcIn> {
    let n = u64::from(c.priorities);
    let p = u64::from(c.ports);
    let keys = p * n;
    let key = prop_oneof![6 => 0..keys.min(2), 1 => 0..keys];
    let input = prop_oneof![4 => Just(p - 1), 3 => 0..p, 1 => 0..(1u64 << c.port_bits())];
    let len = prop_oneof![3 => 1u64..=600, 1 => 600u64..=1500];
    let eg_enq = (prop::bool::weighted(0.6), key.clone(), input, len.clone());
    let eg_deq = (prop::bool::weighted(0.45), key.clone(), len.clone());
    let in_enq = (prop::bool::weighted(0.3), key.clone(), len.clone());
    let in_deq = (prop::bool::weighted(0.25), key, len);
    let csr = prop_oneof![
        40 => Just(None),
        2 => (0u64..8).prop_map(|d| Some((reg::POLICY, d))),
        2 => (1u64..=10, 1u64..=10).prop_map(|(a, b)| Some((reg::CUT, a.min(b) | a.max(b) << 8))),
        2 => (0u64..8, 0u64..4, 0u64..8).prop_map(|(o, q, i)| Some((reg::INSPECT, o | q << 8 | i << 16))),
        1 => (0u64..22, any::<u32>()).prop_map(|(a, d)| Some((a as u32, u64::from(d)))),
    ];
    (eg_enq, eg_deq, in_enq, in_deq, csr, 0u64..22).prop_map(
        move |((ev, ek, ei, el), (dv, dk, dl), (iv, ik, il), (jv, jk, jl), csr, raddr)| {
            let mut i = CapfcIn {
                eg_enq_valid: ev as u64,
                eg_enq_port: ek / n,
                eg_enq_prio: ek % n,
                eg_enq_input: ei,
                eg_enq_len: el,
                eg_deq_valid: dv as u64,
                eg_deq_port: dk / n,
                eg_deq_prio: dk % n,
                eg_deq_len: dl,
                in_enq_valid: iv as u64,
                in_enq_port: ik / n,
                in_enq_prio: ik % n,
                in_enq_len: il,
                in_deq_valid: jv as u64,
                in_deq_port: jk / n,
                in_deq_prio: jk % n,
                in_deq_len: jl,
                csr_addr: raddr,
                ..Default::default()
            };
            if let Some((a, d)) = csr {
                (i.csr_we, i.csr_addr, i.csr_wdata) = (1, u64::from(a), d);
            }
            i
        },
    )
}

fn rows(cycles: &[CapfcIn]) -> Vec<Vec<u64>> {
    cycles
        .iter()
        .map(|i| {
            let mut v = vec![0; CapfcIn::NAMES.len()];
            i.to_values(&mut v);
            v
        })
        .collect()
}

fn capfc_proptest(cfg: BlockConfig, name: &str, test: &str) {
    let cc = cfg.get::<CapfcConfig>().expect("a CaPFC config").clone();
    let strategy = prop::collection::vec(cycle_strategy(&cc), 1..600).prop_map(|c| rows(&c));
    let regressions = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/proptest-regressions/capfc_equivalence.txt"
    );
    proptest_equivalence(&cfg, name, test, regressions, strategy);
}

#[test]
fn capfc_tiny_proptest_model_equals_verilator() {
    capfc_proptest(
        preset("tiny"),
        "tiny",
        "capfc_tiny_proptest_model_equals_verilator",
    );
}

#[test]
fn capfc_fpga_proptest_model_equals_verilator() {
    // Egress thresholds low enough for a 600-cycle sequence to cross them.
    let cfg = BlockConfig::new(
        CapfcBlock,
        CapfcConfig {
            eg_xoff: 3000,
            eg_xon: 2000,
            eg_warn: 2500,
            eg_max: 6000,
            ..CapfcConfig::preset("fpga").unwrap()
        },
    );
    capfc_proptest(
        cfg,
        "fpga_low",
        "capfc_fpga_proptest_model_equals_verilator",
    );
}

/// Issue 31 item 4 on the RTL: an egress enqueue on every cycle (no idle cycle for read port
/// A), spread over all 8 egress queues of `tiny`, which the dequeues keep between XON and MAX,
/// so calibration requests of many queues wait at once and are served by read port B, some
/// withdrawn by a dequeue to WARN or XON. The model must see every queue's E set (the requests
/// were served) and the Verilog must match it on every cycle.
#[test]
fn capfc_full_enqueue_load_serves_waiting_requests_model_equals_verilator() {
    let cfg = preset("tiny");
    let mut rtl = verilated(&cfg, "tiny");
    let mut rng = switchcraft_core::rng::SplitMix64::new(seed());
    let (ports, prios) = (4u64, 2u64);
    let mut b = [0u64; 8];
    let mut cycles = Vec::new();
    for k in 0..30_000u64 {
        let mut i = CapfcIn::default();
        // Skewed: queue 0 takes half of the arrivals.
        let q = if rng.below(2) == 0 { 0 } else { rng.below(8) };
        let (o, p) = (q / prios, q % prios);
        let input = (o + 1 + rng.below(ports - 1)) % ports;
        let len = 40 + rng.below(200);
        (i.eg_enq_valid, i.eg_enq_port, i.eg_enq_prio) = (1, o, p);
        (i.eg_enq_input, i.eg_enq_len) = (input, len);
        b[q as usize] = (b[q as usize] + len).min(5000);
        // Drain the fullest queue, in bursts, now and then to XON and below.
        let full = (0..8).max_by_key(|&j| b[j]).unwrap_or(0);
        if b[full] > 4200 || rng.below(3) == 0 {
            let len = if (k / 500) % 4 == 3 { 400 } else { 150 };
            let (o, p) = (full as u64 / prios, full as u64 % prios);
            (i.eg_deq_valid, i.eg_deq_port, i.eg_deq_prio, i.eg_deq_len) = (1, o, p, len);
            b[full] = b[full].saturating_sub(len);
        }
        i.csr_addr = [reg::STATUS, reg::INSPECT_E_LO, reg::ERR][(k % 3) as usize].into();
        cycles.push(i);
    }
    // The model alone first: every queue reaches XOFF, and every one gets E bits set.
    let mut m =
        switchcraft_model::capfc::Capfc::new(&CapfcConfig::preset("tiny").unwrap()).unwrap();
    let mut set = [false; 8];
    for i in &cycles {
        let o = m.step(i);
        if o.eset_valid == 1 {
            set[(o.eset_port * prios + o.eset_prio) as usize] = true;
        }
    }
    assert!(
        set.iter().all(|&s| s),
        "seed {}: E set per queue {set:?}",
        seed()
    );
    let replay = "cargo test --test capfc_equivalence full_enqueue_load";
    check(&cfg, &mut rtl, rows(&cycles), replay).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn capfc_calibration_requests_wait_and_are_served_model_equals_verilator() {
    let cfg = preset("tiny");
    let mut rtl = verilated(&cfg, "tiny");
    // Egress (1, 0) takes an enqueue almost every cycle from inputs 0, 2, 3 (input 3 heavy)
    // and drains in bursts, crossing WARN 2000, XOFF 3000 and XON 2000; egress (2, 1) keeps
    // requesting calibrations on the cycles the first one leaves free.
    let mut cycles = Vec::new();
    let mut b = [0u64; 2];
    for k in 0..40_000u64 {
        let mut i = CapfcIn::default();
        let draining = (k / 300) % 3 == 2;
        if k % 5 != 4 {
            let input = [3, 3, 0, 3, 2, 3, 3][(k % 7) as usize];
            (i.eg_enq_valid, i.eg_enq_port, i.eg_enq_prio) = (1, 1, 0);
            (i.eg_enq_input, i.eg_enq_len) = (input, 100 + k % 150);
            b[0] += i.eg_enq_len;
        } else {
            (i.eg_enq_valid, i.eg_enq_port, i.eg_enq_prio) = (1, 2, 1);
            (i.eg_enq_input, i.eg_enq_len) = (k % 4, 60);
            b[1] += 60;
        }
        if k % 9 == 3 || (k % 5 == 4 && k % 2 == 0) {
            // Leave the enqueue bus idle now and then, so waiting requests get the read port.
            i.eg_enq_valid = 0;
        }
        if draining || b[0] > 4500 {
            (i.eg_deq_valid, i.eg_deq_port, i.eg_deq_prio, i.eg_deq_len) = (1, 1, 0, 250);
            b[0] = b[0].saturating_sub(250);
        } else if b[1] > 3800 || k % 11 == 0 {
            (i.eg_deq_valid, i.eg_deq_port, i.eg_deq_prio, i.eg_deq_len) = (1, 2, 1, 180);
            b[1] = b[1].saturating_sub(180);
        }
        if k % 2000 == 1000 {
            let policy = [2, 1, 2 | POLICY_SATURATE, 2][(k / 2000 % 4) as usize];
            (i.csr_we, i.csr_addr, i.csr_wdata) = (1, u64::from(reg::POLICY), policy);
        } else if k % 700 == 11 {
            (i.csr_we, i.csr_addr, i.csr_wdata) = (1, u64::from(reg::INSPECT), 1 | 3 << 16);
        } else {
            i.csr_addr = [
                reg::STATUS,
                reg::INSPECT_COUNTER,
                reg::INSPECT_E_LO,
                reg::ERR,
            ][(k % 4) as usize]
                .into();
        }
        cycles.push(i);
    }
    let replay = "cargo test --test capfc_equivalence calibration_requests";
    check(&cfg, &mut rtl, rows(&cycles), replay).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn capfc_threshold_tests_on_every_operand_case_model_equals_verilator() {
    // The egress stage's WARN / XOFF / XON tests are taken on the occupancy arithmetic's
    // operands (crates/rtl/src/capfc/thresholds.rs), with one rewrite per case: an enqueue
    // apart from the dequeue, on the dequeue's key, and on it after an underflow. Each case
    // here is set up from an emptied queue at occupancies, lengths and thresholds one byte
    // either side of every bound (XOFF 3000, WARN 2000, XON 1500 after the first write),
    // with lengths of at most 2047 bytes (`tiny`'s 11-bit length field).
    let cfg = preset("tiny");
    let mut rtl = verilated(&cfg, "tiny");
    let mut cycles = Vec::new();
    let write = |a: u32, d: u64| CapfcIn {
        csr_we: 1,
        csr_addr: u64::from(a),
        csr_wdata: d,
        ..CapfcIn::default()
    };
    let read = |a: u32| CapfcIn {
        csr_addr: u64::from(a),
        ..CapfcIn::default()
    };
    cycles.push(write(reg::EG_XON, 1500));
    // Stop-Max: an XOFF test sets the row's maximum's E bit (eset), so it is seen on the bus.
    cycles.push(write(reg::POLICY, 1));
    // The counter of egress (1, 0) for input 2, the case's enqueue: the WARN tests are seen in
    // it (counted at or above WARN, the row reset at or below on a dequeue).
    let inspect = |cycles: &mut Vec<CapfcIn>| {
        cycles.push(write(reg::INSPECT, 1 | 2 << 16));
        for k in 0..3 {
            cycles.push(read(
                [reg::INSPECT_COUNTER, reg::STATUS, reg::INSPECT_COUNTER][k],
            ));
        }
    };
    let (port, prio) = (1u64, 0u64);
    let max_len = 2047u64;
    for b0 in [
        0u64, 400, 999, 1000, 1499, 1500, 1999, 2000, 2999, 3000, 3500,
    ] {
        for d_len in [1u64, 399, 400, 401, 1000, 1501, max_len] {
            for e_len in [1u64, 999, 1000, 1001, 1500, 2000, max_len] {
                for same in [true, false] {
                    // Empty the queue (underflows once it is empty), then fill it.
                    for _ in 0..4 {
                        let mut i = CapfcIn::default();
                        (i.eg_deq_valid, i.eg_deq_port, i.eg_deq_prio) = (1, port, prio);
                        i.eg_deq_len = max_len;
                        cycles.push(i);
                    }
                    for part in [b0.min(max_len), b0.saturating_sub(max_len)] {
                        if part > 0 {
                            let mut i = CapfcIn::default();
                            (i.eg_enq_valid, i.eg_enq_port, i.eg_enq_prio) = (1, port, prio);
                            (i.eg_enq_input, i.eg_enq_len) = (0, part);
                            cycles.push(i);
                        }
                    }
                    // The case: both buses in one cycle, the dequeue on this queue or another.
                    let mut i = CapfcIn::default();
                    (i.eg_enq_valid, i.eg_enq_port, i.eg_enq_prio) = (1, port, prio);
                    (i.eg_enq_input, i.eg_enq_len) = (2, e_len);
                    (i.eg_deq_valid, i.eg_deq_prio, i.eg_deq_len) = (1, prio, d_len);
                    i.eg_deq_port = if same { port } else { 3 };
                    cycles.push(i);
                    // Its E set (or not) leaves the pipeline; then its count.
                    for k in 0..6 {
                        cycles.push(read([reg::STATUS, reg::INSPECT_E_LO, reg::ERR][k % 3]));
                    }
                    inspect(&mut cycles);
                    // The dequeue alone, on this queue: its XON clear and its row reset.
                    let mut i = CapfcIn::default();
                    (i.eg_deq_valid, i.eg_deq_port, i.eg_deq_prio) = (1, port, prio);
                    i.eg_deq_len = d_len;
                    cycles.push(i);
                    for k in 0..6 {
                        cycles.push(read([reg::STATUS, reg::INSPECT_E_LO, reg::ERR][k % 3]));
                    }
                    inspect(&mut cycles);
                }
            }
        }
    }
    let replay = "cargo test --test capfc_equivalence threshold_tests";
    check(&cfg, &mut rtl, rows(&cycles), replay).unwrap_or_else(|e| panic!("{e}"));
}
