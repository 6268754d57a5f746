//! PFC golden model vs its exported Verilog under Verilator: every output, every cycle.
//!
//! * long seeded runs of the block's random workload (`tiny`, `fpga`, and two other shapes);
//! * proptest: short random event sequences, shrunk to a minimal failing one, regressions kept
//!   in `proptest-regressions/`; the seed comes from `SWITCHCRAFT_SEED` (default below) and is in
//!   every failure message;
//! * directed: both buses on one (port, priority) every cycle; every hazard distance of the
//!   occupancy pipeline on every pair of buses; the documented waveform.

mod common;

use common::{check, preset_workload, proptest_equivalence, random_workload, seed, verilated};
use proptest::prelude::*;
use switchcraft::blocks::pfc::PfcBlock;
use switchcraft::BlockConfig;
use switchcraft_core::rng::SplitMix64;
use switchcraft_core::PortValues;
use switchcraft_model::pfc::{reg, PfcConfig, PfcIn, REQUEST_LATENCY};

fn preset(name: &str) -> BlockConfig {
    BlockConfig::preset("pfc", name).unwrap()
}

fn pfc_workload(name: &str, cycles: u64) {
    preset_workload("pfc", name, cycles);
}

#[test]
fn pfc_tiny_random_workload_model_equals_verilator() {
    pfc_workload("tiny", 300_000);
}

#[test]
fn pfc_fpga_random_workload_model_equals_verilator() {
    pfc_workload("fpga", 300_000);
}

/// Shapes other than the presets' (priority fields of 1 and 3 bits): keys are `{port, priority}`
/// with the bus's priority width, so each width packs keys and class groups differently.
fn pfc_shape(ports: u32, priorities: u32, cycles: u64) {
    let tiny = PfcConfig::preset("tiny").unwrap();
    let cfg = BlockConfig::new(
        PfcBlock,
        PfcConfig {
            ports,
            priorities,
            ..tiny
        },
    );
    let name = format!("shape{ports}x{priorities}");
    random_workload(&cfg, &name, seed(), cycles);
}

#[test]
fn pfc_1_port_1_priority_random_workload_model_equals_verilator() {
    pfc_shape(1, 1, 100_000);
}

#[test]
fn pfc_5_ports_5_priorities_random_workload_model_equals_verilator() {
    pfc_shape(5, 5, 100_000);
}

/// 128 keys: from 64 words the occupancy memory reads its live-value and written bits in two
/// halves, the first on the edge before the read (`Ram2W2R::with_early_select`).
#[test]
fn pfc_12_ports_8_priorities_random_workload_model_equals_verilator() {
    pfc_shape(12, 8, 100_000);
}

/// Thresholds at the top of a narrow counter (MAX = the counter's mask, XOFF just below it):
/// the RTL masks its results to the counter width, tests a drop as `b > MAX - len`, and adds
/// a same-key pair's `e_len - d_len` modulo the width, so sums near the mask are where it can
/// go wrong.
#[test]
fn pfc_thresholds_at_the_counter_mask_random_workload_model_equals_verilator() {
    let tiny = PfcConfig::preset("tiny").unwrap();
    let cfg = BlockConfig::new(
        PfcBlock,
        PfcConfig {
            occupancy_bits: 10,
            length_bits: 8,
            max: 1023,
            xoff: 1000,
            xon: 600,
            ..tiny
        },
    );
    random_workload(&cfg, "mask_edge", seed(), 200_000);
}

/// REFRESH reset to 1 (a tick every cycle from the first; the config allows it with one port):
/// the frame generator decides each tick a cycle ahead, the first one after reset from
/// REFRESH's reset value.
#[test]
fn pfc_refresh_of_1_at_reset_random_workload_model_equals_verilator() {
    let cfg = BlockConfig::new(
        PfcBlock,
        PfcConfig {
            ports: 1,
            refresh: 1,
            ..PfcConfig::preset("tiny").unwrap()
        },
    );
    random_workload(&cfg, "refresh_1", seed(), 20_000);
}

/// One cycle of events, biased to a few keys and to lengths that land on the thresholds.
fn cycle_strategy(c: &PfcConfig) -> impl Strategy<Value = PfcIn> {
    let keys = u64::from(c.ports * c.priorities);
    let hot = keys.min(3);
    let n = u64::from(c.priorities);
    let max_len = (1u64 << c.length_bits) - 1;
    let gap = (c.xoff - c.xon).max(2);
    let len = prop_oneof![
        4 => 1..=max_len.min(gap),
        1 => Just(gap.min(max_len)),
        1 => Just((c.xoff / 4).clamp(1, max_len)),
        1 => Just(1u64),
        1 => Just(max_len),
    ];
    let key = prop_oneof![4 => 0..hot, 1 => 0..keys];
    let event = (any::<bool>(), key, len);
    let csr = prop_oneof![
        20 => Just(None),
        1 => (0u64..10, any::<u32>()).prop_map(|(a, d)| Some((a, u64::from(d)))),
        1 => (Just(u64::from(reg::XOFF)), c.xon + 1..=c.max).prop_map(|(a, d)| Some((a, d))),
        1 => (Just(u64::from(reg::REFRESH)), 0u64..40).prop_map(|(a, d)| Some((a, d))),
    ];
    (event.clone(), event, csr, 0u64..10).prop_map(
        move |((ev, ek, el), (dv, dk, dl), csr, raddr)| {
            let mut i = PfcIn {
                enq_valid: ev as u64,
                enq_port: ek / n,
                enq_prio: ek % n,
                enq_len: el,
                deq_valid: dv as u64,
                deq_port: dk / n,
                deq_prio: dk % n,
                deq_len: dl,
                csr_addr: raddr,
                ..Default::default()
            };
            if let Some((a, d)) = csr {
                (i.csr_we, i.csr_addr, i.csr_wdata) = (1, a, d);
            }
            i
        },
    )
}

fn pfc_proptest(name: &str, test: &str) {
    let cfg = preset(name);
    let pc = cfg.get::<PfcConfig>().expect("a PFC config").clone();
    let rows = prop::collection::vec(cycle_strategy(&pc), 1..600).prop_map(|cycles| {
        cycles
            .iter()
            .map(|i| {
                let mut v = vec![0; PfcIn::NAMES.len()];
                i.to_values(&mut v);
                v
            })
            .collect()
    });
    let regressions = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/proptest-regressions/pfc_equivalence.txt"
    );
    proptest_equivalence(&cfg, name, test, regressions, rows);
}

#[test]
fn pfc_tiny_proptest_model_equals_verilator() {
    pfc_proptest("tiny", "pfc_tiny_proptest_model_equals_verilator");
}

#[test]
fn pfc_fpga_proptest_model_equals_verilator() {
    pfc_proptest("fpga", "pfc_fpga_proptest_model_equals_verilator");
}

#[test]
fn pfc_back_to_back_events_on_one_key_every_cycle_model_equals_verilator() {
    let cfg = preset("tiny");
    let mut rtl = verilated(&cfg, "tiny");
    // Both buses on (port 2, priority 1) every cycle: enqueues outpace dequeues, then the
    // reverse, so the key crosses XOFF and XON with a read-modify-write hazard on every edge.
    let rows = (0..20_000u64)
        .map(|k| {
            let fill = (k / 500) % 2 == 0;
            let i = PfcIn {
                enq_valid: 1,
                enq_port: 2,
                enq_prio: 1,
                enq_len: if fill { 300 } else { 100 } + k % 7,
                deq_valid: 1,
                deq_port: 2,
                deq_prio: 1,
                deq_len: if fill { 100 } else { 300 } + k % 5,
                ..Default::default()
            };
            let mut v = vec![0; 11];
            i.to_values(&mut v);
            v
        })
        .collect();
    let replay = "cargo test --test pfc_equivalence back_to_back";
    check(&cfg, &mut rtl, rows, replay).unwrap_or_else(|e| panic!("{e}"));
}

/// Every read-modify-write hazard distance of the occupancy pipeline, for every pair of buses,
/// on one key: distance 0 is both buses in one edge, 1 the look-ahead (the predecessor's
/// operations applied with the event's), 2 the bypass into the operand registers, 3 and 4 the
/// operand lookup of the writes the RAM read did not see, 5 and more the RAMs. Lengths cross
/// XOFF, XON, MAX and zero; the edges in between carry events on other keys or none, so each
/// distance is also seen with the stages between busy.
#[test]
fn pfc_every_hazard_distance_on_every_bus_pair_model_equals_verilator() {
    hazard_distances(&preset("tiny"), "tiny", &[(1, 1)], 150);
}

/// The same at 128 keys (12 ports, 8 priorities), where the occupancy memory reads its
/// live-value and written bits in two halves: the hot key moves over all 96 keys, one run per
/// distance from reset, so each key's first write is read back at every distance.
#[test]
fn pfc_every_hazard_distance_at_128_keys_model_equals_verilator() {
    let cfg = BlockConfig::new(
        PfcBlock,
        PfcConfig {
            ports: 12,
            priorities: 8,
            ..PfcConfig::preset("tiny").unwrap()
        },
    );
    let keys: Vec<(u64, u64)> = (0..12).flat_map(|p| (0..8).map(move |q| (p, q))).collect();
    hazard_distances(&cfg, "shape12x8", &keys, 40);
}

/// `windows` windows per distance and bus pair, the hot key taken in turn from `hot`; with
/// more than one hot key, each distance is its own run from reset.
fn hazard_distances(cfg: &BlockConfig, name: &str, hot: &[(u64, u64)], windows: usize) {
    let mut rtl = verilated(cfg, name);
    let mut rng = SplitMix64::new(seed());
    let lens = [1u64, 499, 1000, 1999, 2047];
    let others = [(2u64, 0u64), (0, 1), (3, 1)];
    let depth = REQUEST_LATENCY as usize + 2;
    let replay = format!("cargo test --test pfc_equivalence every_hazard_distance ({name})");
    let mut rows = Vec::new();
    for distance in 0..=depth {
        let mut turn = 0;
        for (first_enq, second_enq) in [(true, true), (true, false), (false, true), (false, false)]
        {
            if distance == 0 && first_enq == second_enq {
                continue; // one event per bus and edge
            }
            for _ in 0..windows {
                let key = hot[turn % hot.len()];
                turn += 1;
                let mut window = vec![PfcIn::default(); distance + 1];
                for slot in window.iter_mut().take(distance).skip(1) {
                    if rng.chance(50) {
                        let (port, prio) = others[rng.below(others.len() as u64) as usize];
                        if (port, prio) != key {
                            let len = lens[rng.below(lens.len() as u64) as usize];
                            put(slot, rng.chance(50), port, prio, len);
                        }
                    }
                }
                for (slot, enq) in [(0, first_enq), (distance, second_enq)] {
                    let len = lens[rng.below(lens.len() as u64) as usize];
                    put(&mut window[slot], enq, key.0, key.1, len);
                }
                rows.extend(window.iter().map(|i| {
                    let mut v = vec![0; PfcIn::NAMES.len()];
                    i.to_values(&mut v);
                    v
                }));
            }
        }
        if hot.len() > 1 {
            check(cfg, &mut rtl, std::mem::take(&mut rows), &replay)
                .unwrap_or_else(|e| panic!("distance {distance}: {e}"));
        }
    }
    if !rows.is_empty() {
        check(cfg, &mut rtl, rows, &replay).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Puts an enqueue or a dequeue of `len` bytes on (port, prio) into `i`.
fn put(i: &mut PfcIn, enq: bool, port: u64, prio: u64, len: u64) {
    if enq {
        (i.enq_valid, i.enq_port, i.enq_prio, i.enq_len) = (1, port, prio, len);
    } else {
        (i.deq_valid, i.deq_port, i.deq_prio, i.deq_len) = (1, port, prio, len);
    }
}

/// The waveform of docs/blocks/pfc.md ("Waveform"): the model's trace has the documented
/// requests and frames on the documented steps, and the Verilog agrees.
#[test]
fn pfc_documented_waveform_model_and_verilator() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reproductions/pfc_pause");
    let cfg = BlockConfig::from_file("pfc", &dir.join("config.toml")).unwrap();
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
            if *v != 0 && *name != "csr_rdata" {
                seen.push((step, *name, *v));
            }
        }
    }
    let frame = |step: usize, pause: u64| {
        let mut f = vec![
            (step, "frame_valid", 1),
            (step, "frame_port", 2),
            (step, "frame_class_enable", 0b11),
        ];
        if pause != 0 {
            f.push((step, "frame_pause", pause));
        }
        f.push((step, "frame_quanta", 4660));
        f
    };
    let mut expected = vec![
        (7, "xoff_valid", 1),
        (7, "xoff_port", 2),
        (7, "xoff_prio", 1),
    ];
    expected.extend(frame(10, 0b10)); // the XOFF's own PAUSE
    expected.extend(frame(11, 0b10)); // refresh, tick at step 9
    expected.extend(frame(16, 0b10)); // refresh, tick at step 14
    expected.extend([
        (20, "xon_valid", 1),
        (20, "xon_port", 2),
        (20, "xon_prio", 1),
    ]);
    expected.extend(frame(21, 0)); // the tick of step 19's frame, built after the XON
    expected.extend(frame(23, 0)); // the XON's own RESUME
    assert_eq!(seen, expected);
    let mut rtl = verilated(&cfg, "waveform");
    check(&cfg, &mut rtl, rows, "the documented waveform").unwrap();
}
