//! TCD golden model vs its exported Verilog under Verilator: every output, every cycle.
//!
//! * long seeded runs of the block's random workload (`tiny` with its 12-bit time wrapping every
//!   4096 cycles, `fpga`, and a 3 x 3 config whose buses can name missing entries);
//! * proptest: short random event sequences with short periods, shrunk to a minimal failing
//!   one, regressions in `proptest-regressions/`; seed from `SWITCHCRAFT_SEED`, printed on
//!   failure;
//! * directed: one entry dequeued every cycle while PAUSE/RESUME toggle it, including a RESUME
//!   and a dequeue of that entry in the same cycle; a same-cycle RESUME with max(Ton) = T = 0;
//!   a T boundary right after a carried queue; a T boundary on a half-wrap edge.

mod common;

use common::{check, preset_workload, proptest_equivalence, random_workload, seed, verilated};
use proptest::prelude::*;
use switchcraft::blocks::tcd::TcdBlock;
use switchcraft::BlockConfig;
use switchcraft_core::{CycleModel, PortValues};
use switchcraft_model::tcd::{reg, TcdConfig, TcdIn, TcdSpeed, ECT0, MARK_LATENCY};

/// Edges from a dequeue to its `mark_*` outputs, as an index offset.
const LATENCY: usize = MARK_LATENCY as usize;

fn preset(name: &str) -> BlockConfig {
    BlockConfig::preset("tcd", name).unwrap()
}

/// The `tiny` preset, its TCD config (for the directed tests' thresholds and model runs) and
/// its Verilated RTL.
fn tiny_directed() -> (BlockConfig, TcdConfig, switchcraft_sim::VerilatedModel) {
    let tc = TcdConfig::preset("tiny").unwrap();
    let cfg = BlockConfig::new(TcdBlock, tc.clone());
    let rtl = verilated(&cfg, "tiny");
    (cfg, tc, rtl)
}

/// 3 ports x 3 priorities (indices that name no entry), 10-bit time, and 3 speed classes
/// (spec §1.4: max(Ton), T, K and K_low per port-speed class, per VL share §1.8) spread over
/// the entries.
fn odd() -> BlockConfig {
    let t = TcdConfig::preset("tiny").unwrap();
    BlockConfig::new(
        TcdBlock,
        TcdConfig {
            ports: 3,
            priorities: 3,
            time_bits: 10,
            entry_speed: (0..9).map(|k| [0, 1, 2, 1][k % 4]).collect(),
            more_speeds: vec![
                TcdSpeed {
                    max_ton: 120,
                    t_period: 200,
                    k: t.k / 2,
                    k_low: t.k / 4,
                },
                TcdSpeed {
                    max_ton: 450,
                    t_period: 450,
                    k: t.k * 3 / 2,
                    k_low: t.k,
                },
            ],
            ..t
        },
    )
}

#[test]
fn tcd_tiny_random_workload_model_equals_verilator() {
    preset_workload("tcd", "tiny", 400_000);
}

#[test]
fn tcd_fpga_random_workload_model_equals_verilator() {
    preset_workload("tcd", "fpga", 300_000);
}

#[test]
fn tcd_3x3_random_workload_with_missing_entries_model_equals_verilator() {
    random_workload(&odd(), "odd3x3", seed(), 200_000);
}

/// One cycle of events, biased to a few entries, to queue lengths on the thresholds, and to
/// CSR writes of short periods so ON periods end and T boundaries pass within a sequence.
fn cycle_strategy(c: &TcdConfig) -> impl Strategy<Value = TcdIn> {
    let n = u64::from(c.priorities);
    let keys = u64::from(c.ports) * n;
    let qmax = (1u64 << c.queue_bits) - 1;
    let key = prop_oneof![4 => 0..keys.min(2), 1 => 0..keys];
    let qlen = prop_oneof![
        3 => 0..=qmax.min(2 * c.k),
        1 => Just(c.k),
        1 => Just(c.k + 1),
        1 => Just(c.k_low.saturating_sub(1)),
        1 => Just(0u64),
    ];
    let rx = (
        prop::bool::weighted(0.2),
        key.clone(),
        any::<bool>(),
        qlen.clone(),
    );
    let credit = (
        prop::bool::weighted(0.05),
        key.clone(),
        any::<bool>(),
        qlen.clone(),
    );
    let deq = (prop::bool::weighted(0.6), key, qlen, 0u64..4);
    let half = c.max_time();
    let csr = prop_oneof![
        30 => Just(None),
        2 => (0u64..=40).prop_map(|d| Some((reg::MAX_TON, d))),
        2 => (0u64..=40).prop_map(|d| Some((reg::T_PERIOD, d))),
        1 => (0u64..4).prop_map(|d| Some((reg::OPTIONS, d))),
        1 => (0u64..2).prop_map(|d| Some((reg::MODE, d))),
        1 => (0..=qmax.min(2 * c.k)).prop_map(|d| Some((reg::K, d))),
        1 => (0..=qmax.min(2 * c.k)).prop_map(|d| Some((reg::K_LOW, d))),
        1 => (0u64..256).prop_map(|d| Some((reg::PRIO_ENABLE, d))),
        2 => (0u64..64).prop_map(|d| Some((reg::ENTRY_INDEX, d))),
        1 => (0u64..18, any::<u32>()).prop_map(|(a, d)| Some((a as u32, u64::from(d)))),
        1 => (half / 2..=half).prop_map(|d| Some((reg::MAX_TON, d))),
    ];
    (rx, credit, deq, csr, 0u64..18).prop_map(
        move |((rv, rk, rstop, rq), (cv, ck, cok, cq), (dv, dk, dq, ecn), csr, raddr)| {
            let mut i = TcdIn {
                rx_pfc_valid: rv as u64,
                rx_pfc_port: rk / n,
                rx_pfc_prio: rk % n,
                rx_pfc_quanta: if rstop { 0xFFFF } else { 0 },
                rx_pfc_qlen: rq,
                rx_credit_valid: cv as u64,
                rx_credit_port: ck / n,
                rx_credit_vl: ck % n,
                rx_credit_ok: cok as u64,
                rx_credit_qlen: cq,
                deq_valid: dv as u64,
                deq_port: dk / n,
                deq_prio: dk % n,
                deq_qlen: dq,
                deq_ecn: ecn,
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

fn rows(cycles: &[TcdIn]) -> Vec<Vec<u64>> {
    cycles
        .iter()
        .map(|i| {
            let mut v = vec![0; TcdIn::NAMES.len()];
            i.to_values(&mut v);
            v
        })
        .collect()
}

fn tcd_proptest(cfg: BlockConfig, name: &str, test: &str) {
    let tc = cfg.get::<TcdConfig>().expect("a TCD config").clone();
    let strategy = prop::collection::vec(cycle_strategy(&tc), 1..600).prop_map(|c| rows(&c));
    let regressions = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/proptest-regressions/tcd_equivalence.txt"
    );
    proptest_equivalence(&cfg, name, test, regressions, strategy);
}

#[test]
fn tcd_tiny_proptest_model_equals_verilator() {
    tcd_proptest(
        preset("tiny"),
        "tiny",
        "tcd_tiny_proptest_model_equals_verilator",
    );
}

#[test]
fn tcd_fpga_proptest_model_equals_verilator() {
    tcd_proptest(
        preset("fpga"),
        "fpga",
        "tcd_fpga_proptest_model_equals_verilator",
    );
}

#[test]
fn tcd_one_entry_every_cycle_model_equals_verilator() {
    let cfg = preset("tiny");
    let mut rtl = verilated(&cfg, "tiny");
    // (port 3, priority 1) dequeued every cycle; PAUSE/RESUME toggle it with periods around
    // max(Ton) = 300 and T = 300, so ON-OFF, release, T boundaries and transitions follow each
    // other back to back, and every few hundred cycles a RESUME lands on a dequeue's cycle.
    let mut cycles = Vec::new();
    let mut q = 3000u64;
    for k in 0..30_000u64 {
        let mut i = TcdIn {
            deq_valid: u64::from(k % 997 != 0),
            deq_port: 3,
            deq_prio: 1,
            deq_qlen: q,
            deq_ecn: [ECT0, 1, 3, 0][(k % 7 % 4) as usize],
            ..Default::default()
        };
        let period = [40, 290, 310, 700][(k / 5000 % 4) as usize];
        if k % period == 0 {
            (i.rx_pfc_valid, i.rx_pfc_port, i.rx_pfc_prio) = (1, 3, 1);
            i.rx_pfc_quanta = if (k / period) % 2 == 0 { 0xFFFF } else { 0 };
            i.rx_pfc_qlen = q;
        }
        if k % 1500 == 7 {
            (i.csr_we, i.csr_addr, i.csr_wdata) = (1, u64::from(reg::ENTRY_INDEX), 3 << 3 | 1);
        }
        i.csr_addr = if i.csr_we == 1 {
            i.csr_addr
        } else {
            13 + k % 4
        };
        // The queue drifts up and down across K = 3000.
        q = if (k / 900) % 2 == 0 {
            q + 7
        } else {
            q.saturating_sub(5)
        }
        .min(6000);
        cycles.push(i);
    }
    let replay = "cargo test --test tcd_equivalence one_entry_every_cycle";
    check(&cfg, &mut rtl, rows(&cycles), replay).unwrap_or_else(|e| panic!("{e}"));
}

/// max(Ton) = 0 and T = 0 written over the CSR bus (the config requires both >= 1; the bus does
/// not): a RESUME and a dequeue of an undetermined entry in one cycle give Ton = 0, not short,
/// and an elapsed T of 0 >= T, a boundary, so the congested packet turns the entry CONG.
#[test]
fn tcd_zero_max_ton_and_t_on_a_same_cycle_resume_model_equals_verilator() {
    let (cfg, tc, mut rtl) = tiny_directed();
    let q = tc.k + 100;
    let mut cycles = vec![TcdIn::default(); 40];
    let pfc = |i: &mut TcdIn, quanta: u64| {
        (i.rx_pfc_valid, i.rx_pfc_quanta, i.rx_pfc_qlen) = (1, quanta, q);
    };
    let csr = |i: &mut TcdIn, addr: u32, data: u64| {
        (i.csr_we, i.csr_addr, i.csr_wdata) = (1, u64::from(addr), data);
    };
    // Entry (0, 0): PAUSE, RESUME, a dequeue 1 cycle later (Ton = 1 < 300): UND.
    pfc(&mut cycles[0], 0xFFFF);
    pfc(&mut cycles[5], 0);
    (cycles[6].deq_valid, cycles[6].deq_qlen) = (1, q);
    csr(&mut cycles[10], reg::MAX_TON, 0);
    csr(&mut cycles[11], reg::T_PERIOD, 0);
    // PAUSE again, then a RESUME and a dequeue in one cycle.
    pfc(&mut cycles[20], 0xFFFF);
    pfc(&mut cycles[30], 0);
    (cycles[30].deq_valid, cycles[30].deq_qlen) = (1, q);

    // The spec's outcome, from the model: UND for the dequeue of edge 6, CONG for edge 30.
    let mut model = switchcraft_model::tcd::Tcd::new(&tc).unwrap();
    let states: Vec<(u64, u64)> = cycles
        .iter()
        .map(|i| {
            let o = model.step(i);
            (o.mark_valid, o.mark_state)
        })
        .collect();
    assert_eq!(states[6 + LATENCY], (1, switchcraft_model::tcd::UND));
    assert_eq!(states[30 + LATENCY], (1, switchcraft_model::tcd::CONG));

    let replay = "cargo test --test tcd_equivalence zero_max_ton_and_t";
    check(&cfg, &mut rtl, rows(&cycles), replay).unwrap_or_else(|e| panic!("{e}"));
}

/// max(Ton) = 0 and T = 0 again, with the same-cycle dequeue below the RESUME's queue: the spec
/// applies the RESUME first (Q_rec = its queue), then the dequeue's T boundary, which leaves the
/// entry UND and records the dequeue's own queue. A later dequeue above that queue (and K) turns
/// the entry CONG; against the RESUME's larger queue it would stay UND. Found by the formal
/// property `a_decision_is_sequential` (formal/tcd/tcd_props.sv).
#[test]
fn tcd_same_cycle_resume_and_boundary_record_the_dequeue_queue_model_equals_verilator() {
    let (cfg, tc, mut rtl) = tiny_directed();
    let (q_resume, q_first, q_later) = (tc.k + 2000, tc.k + 500, tc.k + 1000);
    let mut cycles = vec![TcdIn::default(); 40];
    let pfc = |i: &mut TcdIn, quanta: u64, qlen: u64| {
        (i.rx_pfc_valid, i.rx_pfc_quanta, i.rx_pfc_qlen) = (1, quanta, qlen);
    };
    let csr = |i: &mut TcdIn, addr: u32, data: u64| {
        (i.csr_we, i.csr_addr, i.csr_wdata) = (1, u64::from(addr), data);
    };
    // Entry (0, 0) undetermined: PAUSE, RESUME, a dequeue within max(Ton).
    pfc(&mut cycles[0], 0xFFFF, 0);
    pfc(&mut cycles[5], 0, q_resume);
    (cycles[6].deq_valid, cycles[6].deq_qlen) = (1, q_resume);
    csr(&mut cycles[10], reg::MAX_TON, 0);
    csr(&mut cycles[11], reg::T_PERIOD, 0);
    // PAUSE; a RESUME and a dequeue in one cycle; a dequeue later.
    pfc(&mut cycles[20], 0xFFFF, 0);
    pfc(&mut cycles[25], 0, q_resume);
    (cycles[25].deq_valid, cycles[25].deq_qlen) = (1, q_first);
    (cycles[28].deq_valid, cycles[28].deq_qlen) = (1, q_later);

    let mut model = switchcraft_model::tcd::Tcd::new(&tc).unwrap();
    let states: Vec<u64> = cycles.iter().map(|i| model.step(i).mark_state).collect();
    let (und, cong) = (switchcraft_model::tcd::UND, switchcraft_model::tcd::CONG);
    assert_eq!(states[6 + LATENCY], und);
    assert_eq!(states[25 + LATENCY], und);
    assert_eq!(states[28 + LATENCY], cong);

    let replay = "cargo test --test tcd_equivalence same_cycle_resume_and_boundary";
    check(&cfg, &mut rtl, rows(&cycles), replay).unwrap_or_else(|e| panic!("{e}"));
}

/// Two dequeues of one entry on consecutive cycles, across the end of max(Ton) = T: the first
/// (Ton still short: UND) carries the pending RESUME's queue into bank D, the second (T expired)
/// compares against it. Bank D's RAM word is still an older, larger `Q_rec`, so only the
/// forwarded word gives the spec's outcome (CONG); the RAM word would leave the entry UND.
#[test]
fn tcd_boundary_right_after_a_carried_queue_model_equals_verilator() {
    let (cfg, tc, mut rtl) = tiny_directed();
    let (q_old, q_resume, q_deq) = (tc.k + 2000, tc.k + 500, tc.k + 1000);
    let build = |first: usize| {
        let mut cycles = vec![TcdIn::default(); first + 10];
        let pfc = |i: &mut TcdIn, quanta: u64, qlen: u64| {
            (i.rx_pfc_valid, i.rx_pfc_quanta, i.rx_pfc_qlen) = (1, quanta, qlen);
        };
        // Entry (0, 0): an ON period that leaves Q_rec = q_old in bank D.
        pfc(&mut cycles[0], 0xFFFF, 0);
        pfc(&mut cycles[2], 0, q_old);
        (cycles[3].deq_valid, cycles[3].deq_qlen) = (1, q_old);
        // A second one: RESUME with q_resume, then the two dequeues.
        pfc(&mut cycles[10], 0xFFFF, 0);
        pfc(&mut cycles[12], 0, q_resume);
        for c in [first, first + 1] {
            (cycles[c].deq_valid, cycles[c].deq_qlen) = (1, q_deq);
        }
        cycles
    };
    // The dequeue pair that straddles the end of max(Ton), found with the model (outputs
    // `LATENCY` edges after their dequeue).
    let states = |cycles: &[TcdIn]| -> Vec<u64> {
        let mut model = switchcraft_model::tcd::Tcd::new(&tc).unwrap();
        cycles.iter().map(|i| model.step(i).mark_state).collect()
    };
    let (und, cong) = (switchcraft_model::tcd::UND, switchcraft_model::tcd::CONG);
    let first = (13..13 + 2 * tc.max_ton as usize)
        .find(|&f| states(&build(f))[f + LATENCY..=f + LATENCY + 1] == [und, cong])
        .expect("one dequeue pair straddles the end of max(Ton)");
    let cycles = build(first);

    let replay = "cargo test --test tcd_equivalence boundary_right_after";
    check(&cfg, &mut rtl, rows(&cycles), replay).unwrap_or_else(|e| panic!("{e}"));
}

/// A T boundary written on the very edge where the time counter's top bit flips: its timestamp
/// belongs to the half that edge leaves, so its age starts at 1, not 0 (`entry_state` [7:6]).
/// Then a RESUME on the next edge writes t_T again (age 0). The random workloads never put a
/// boundary on that edge: an RTL mutant that starts such a T age at 0 passed all of them.
#[test]
fn tcd_boundary_on_a_half_wrap_edge_ages_its_timestamp_model_equals_verilator() {
    let (cfg, tc, mut rtl) = tiny_directed();
    let half = 1usize << (tc.time_bits - 1);
    let q = tc.k + 100;
    let build = |at: usize, resume_after: bool| {
        let mut cycles = vec![TcdIn::default(); at + 20];
        let pfc = |i: &mut TcdIn, quanta: u64| (i.rx_pfc_valid, i.rx_pfc_quanta) = (1, quanta);
        // Entry (0, 0): PAUSE, RESUME, a dequeue within max(Ton) (UND), then one at `at`, long
        // after T: a boundary, which sets t_T. Optionally PAUSE before it and RESUME after it.
        pfc(&mut cycles[0], 0xFFFF);
        pfc(&mut cycles[2], 0);
        for c in [3, at] {
            (cycles[c].deq_valid, cycles[c].deq_qlen) = (1, q);
        }
        if resume_after {
            pfc(&mut cycles[at - 5], 0xFFFF);
            pfc(&mut cycles[at + 1], 0);
        }
        // Snapshot (0, 0), then read t_T, then the state (the last read of each is settled).
        (cycles[at + 3].csr_we, cycles[at + 3].csr_addr) = (1, u64::from(reg::ENTRY_INDEX));
        for (c, i) in cycles.iter_mut().enumerate().skip(at + 6) {
            i.csr_addr = u64::from(if c <= at + 12 {
                reg::ENTRY_T_T
            } else {
                reg::ENTRY_STATE
            });
        }
        cycles
    };
    // (t_T, age of t_T) as the model's snapshot reports them.
    let snapshot = |at: usize, resume_after: bool| {
        let mut model = switchcraft_model::tcd::Tcd::new(&tc).unwrap();
        let rdata: Vec<u64> = build(at, resume_after)
            .iter()
            .map(|i| model.step(i).csr_rdata)
            .collect();
        (rdata[at + 12], (rdata[at + 19] >> 6) & 3)
    };
    let last = half as u64 - 1;
    let at = (half - 10..half + 10)
        .find(|&at| snapshot(at, false).0 == last)
        .expect("a dequeue whose boundary timestamp is the last cycle of the first half");
    assert_eq!(
        snapshot(at, false),
        (last, 1),
        "t_T written at the half-wrap"
    );
    assert_eq!(
        snapshot(at + 1, false),
        (last + 1, 0),
        "t_T written just after it"
    );
    assert_eq!(
        snapshot(at, true),
        (last + 1, 0),
        "t_T rewritten by the next RESUME"
    );

    let replay = "cargo test --test tcd_equivalence boundary_on_a_half_wrap";
    for resume_after in [false, true] {
        check(&cfg, &mut rtl, rows(&build(at, resume_after)), replay)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Bank D's first write, read on the very next cycle (the T age then comes from `age_on`, as
/// the RTL keeps no "D written" flag of its own), and snapshots of entries D never held or
/// whose `t_on` was never set:
/// * (0, 0): two dequeues straddle the end of max(Ton) with T > max(Ton), the first of them
///   the entry's first: the second must find T not expired (UND), not take a boundary (CONG);
/// * (1, 0): RESUME, then its first dequeue with a snapshot on the next cycle: T age 0;
/// * (2, 0): RESUME, no dequeue, snapshot: T age 0 (`t_T` is `t_on`);
/// * (3, 0): dequeued, never resumed, snapshots on the next cycle and later: T age 3;
/// * (1, 1): PAUSE, then a RESUME and its first dequeue in one cycle, snapshots on the next
///   cycle and later: T age 0 (the RESUME's).
///
/// The random workloads rarely line these up: an RTL mutant that skips the load on that next
/// cycle passed all of them.
#[test]
fn tcd_first_dequeue_of_an_entry_read_on_the_next_cycle_model_equals_verilator() {
    let (cfg, tc, mut rtl) = tiny_directed();
    let (q_resume, q_deq) = (tc.k + 500, tc.k + 1000);
    let entry_reads = |cycles: &mut [TcdIn], write: usize, index: u64| {
        (cycles[write].csr_we, cycles[write].csr_addr) = (1, u64::from(reg::ENTRY_INDEX));
        cycles[write].csr_wdata = index;
        for i in &mut cycles[write + 3..write + 6] {
            i.csr_addr = u64::from(reg::ENTRY_T_T);
        }
        for i in &mut cycles[write + 6..write + 9] {
            i.csr_addr = u64::from(reg::ENTRY_STATE);
        }
    };
    let build = |first: usize, t_period: u64| {
        let mut cycles = vec![TcdIn::default(); first + 10];
        (cycles[0].csr_we, cycles[0].csr_addr) = (1, u64::from(reg::T_PERIOD));
        cycles[0].csr_wdata = t_period;
        let pfc = |i: &mut TcdIn, port: u64, prio: u64, quanta: u64, qlen: u64| {
            (i.rx_pfc_valid, i.rx_pfc_port, i.rx_pfc_prio) = (1, port, prio);
            (i.rx_pfc_quanta, i.rx_pfc_qlen) = (quanta, qlen);
        };
        let deq = |i: &mut TcdIn, port: u64, prio: u64| {
            (i.deq_valid, i.deq_port, i.deq_prio, i.deq_qlen) = (1, port, prio, q_deq);
        };
        pfc(&mut cycles[1], 0, 0, 0xFFFF, 0);
        pfc(&mut cycles[3], 0, 0, 0, q_resume);
        pfc(&mut cycles[10], 1, 0, 0xFFFF, 0);
        pfc(&mut cycles[12], 1, 0, 0, q_resume);
        deq(&mut cycles[20], 1, 0);
        entry_reads(&mut cycles, 20, 1 << 3);
        pfc(&mut cycles[30], 2, 0, 0xFFFF, 0);
        pfc(&mut cycles[32], 2, 0, 0, q_resume);
        entry_reads(&mut cycles, 34, 2 << 3);
        deq(&mut cycles[44], 3, 0);
        entry_reads(&mut cycles, 44, 3 << 3);
        entry_reads(&mut cycles, 60, 3 << 3);
        pfc(&mut cycles[70], 1, 1, 0xFFFF, 0);
        pfc(&mut cycles[72], 1, 1, 0, q_resume);
        deq(&mut cycles[72], 1, 1);
        entry_reads(&mut cycles, 72, 1 << 3 | 1);
        entry_reads(&mut cycles, 82, 1 << 3 | 1);
        for c in [first, first + 1] {
            deq(&mut cycles[c], 0, 0);
        }
        cycles
    };
    let run = |cycles: &[TcdIn]| -> Vec<(u64, u64)> {
        let mut model = switchcraft_model::tcd::Tcd::new(&tc).unwrap();
        cycles
            .iter()
            .map(|i| model.step(i))
            .map(|o| (o.mark_state, o.csr_rdata))
            .collect()
    };
    let (und, cong) = (switchcraft_model::tcd::UND, switchcraft_model::tcd::CONG);
    let states = |out: &[(u64, u64)], f: usize| [out[f + LATENCY].0, out[f + LATENCY + 1].0];
    // The pair straddling the end of max(Ton): with T = max(Ton) its second dequeue takes the
    // boundary (CONG); with a longer T it must not.
    let first = (100..100 + 2 * tc.max_ton as usize)
        .find(|&f| states(&run(&build(f, tc.max_ton)), f) == [und, cong])
        .expect("one dequeue pair straddles the end of max(Ton)");
    let cycles = build(first, tc.max_ton + 100);
    let out = run(&cycles);
    assert_eq!(states(&out, first), [und, und], "T not expired yet");
    // The settled snapshot reads: (t_T, age of t_T).
    let snap = |write: usize| (out[write + 5].1, out[write + 8].1 >> 6 & 3);
    assert_eq!(snap(20).1, 0, "(1, 0) after its first dequeue");
    assert_ne!(snap(20).0, 0, "(1, 0) t_T is the RESUME's time");
    assert_eq!(snap(34).1, 0, "(2, 0) resumed, never dequeued");
    assert_eq!(snap(44), (0, 3), "(3, 0) never resumed, just dequeued");
    assert_eq!(snap(60), (0, 3), "(3, 0) never resumed");
    assert_eq!(snap(72).1, 0, "(1, 1) resumed and dequeued in one cycle");
    assert_eq!(snap(82).1, 0, "(1, 1) later");

    let replay = "cargo test --test tcd_equivalence first_dequeue_of_an_entry";
    check(&cfg, &mut rtl, rows(&cycles), replay).unwrap_or_else(|e| panic!("{e}"));
}

/// Every hazard distance of bank D's read-modify-write (the dequeue path looks an entry up in
/// one cycle, tests in the next and decides in the one after, so a dequeue one edge older is
/// still deciding, two edges older has its words in registers, three older is being written
/// into the RAM, four or more is in the RAM): seeded runs on two entries with dequeues 0 to 4
/// cycles apart and frequent PAUSE/RESUME, under windows so short (max(Ton)
/// 0-5, T 0-2 cycles, written over the bus) that T boundaries follow each other on consecutive
/// cycles, and queue lengths around K so that `Q >= Q_rec` goes both ways. The random workloads
/// use T = 300 cycles and never put two boundaries one cycle apart: an RTL mutant that compared
/// a dequeue with its older neighbour's operand instead of that neighbour's recorded queue
/// passed all of them. A directed start covers the one case the seeded part rarely reaches: a
/// dequeue with a RESUME of its entry in its own cycle, right after a neighbour's boundary,
/// under max(Ton) = 0 (only then does it read the LAST_STATE the neighbour just wrote; a mutant
/// that took the lookup's passed the seeded part).
#[test]
fn tcd_every_hazard_distance_on_short_windows_model_equals_verilator() {
    use switchcraft_core::rng::SplitMix64;
    use switchcraft_model::tcd::Branch;
    let (cfg, tc, mut rtl) = tiny_directed();
    let seed = seed();
    let mut rng = SplitMix64::new(seed);
    let csr = |addr: u32, data: u64| TcdIn {
        csr_we: 1,
        csr_addr: u64::from(addr),
        csr_wdata: data,
        ..TcdIn::default()
    };
    let pfc = |quanta: u64| TcdIn {
        rx_pfc_valid: 1,
        rx_pfc_quanta: quanta,
        rx_pfc_qlen: tc.k + 100,
        ..TcdIn::default()
    };
    let deq = |i: &mut TcdIn| (i.deq_valid, i.deq_qlen, i.deq_ecn) = (1, tc.k + 200, ECT0);
    // First, directed, on entry (0, 0): a dequeue within max(Ton) leaves it undetermined; then,
    // with max(Ton) = 0 and T = 1, a dequeue takes a boundary into CONG, and the next cycle's
    // dequeue comes with a RESUME of the entry: it must see the CONG its neighbour just wrote
    // (D6: CONG), not the UND the lookup read (that would stay UND within T).
    let mut cycles = vec![csr(reg::MAX_TON, 5), pfc(0xFFFF), TcdIn::default(), pfc(0)];
    cycles.push(TcdIn::default());
    deq(cycles.last_mut().unwrap());
    cycles.extend([csr(reg::MAX_TON, 0), csr(reg::T_PERIOD, 1), pfc(0xFFFF)]);
    cycles.push(TcdIn::default());
    deq(cycles.last_mut().unwrap());
    let resumed = cycles.len();
    cycles.push(pfc(0));
    deq(&mut cycles[resumed]);
    cycles.resize(cycles.len() + 4, TcdIn::default());
    {
        let mut model = switchcraft_model::tcd::Tcd::new(&tc).unwrap();
        let states: Vec<u64> = cycles.iter().map(|i| model.step(i).mark_state).collect();
        let cong = switchcraft_model::tcd::CONG;
        assert_eq!(
            states[resumed - 1 + LATENCY..=resumed + LATENCY],
            [cong, cong]
        );
    }
    for phase in 0..24u64 {
        let (max_ton, t_period) = ([0, 2, 3, 5][phase as usize % 4], phase % 3);
        cycles.push(csr(reg::MAX_TON, max_ton));
        cycles.push(csr(reg::T_PERIOD, t_period));
        let mut gap = 0;
        for _ in 0..1000 {
            let mut i = TcdIn::default();
            if rng.below(3) == 0 {
                (i.rx_pfc_valid, i.rx_pfc_port, i.rx_pfc_prio) = (1, 0, rng.below(2));
                i.rx_pfc_quanta = if rng.below(2) == 0 { 0 } else { 0xFFFF };
                i.rx_pfc_qlen = tc.k - 100 + rng.below(600);
            }
            if gap == 0 {
                (i.deq_valid, i.deq_port, i.deq_prio) = (1, 0, rng.below(2));
                i.deq_qlen = tc.k - 100 + rng.below(600);
                i.deq_ecn = ECT0;
                gap = rng.below(5);
            } else {
                gap -= 1;
            }
            cycles.push(i);
        }
    }
    // The workload reaches the paths it is for: boundaries that turn an entry congested and
    // boundaries that leave it undetermined.
    let mut model = switchcraft_model::tcd::Tcd::new(&tc).unwrap();
    for i in &cycles {
        model.step(i);
    }
    let count = |b: Branch| {
        model
            .branch_counts()
            .iter()
            .find(|c| c.0 == b)
            .map_or(0, |c| c.1)
    };
    assert!(
        count(Branch::Transition) > 100,
        "seed {seed}: few transitions"
    );
    assert!(
        count(Branch::StillUndetermined) > 100,
        "seed {seed}: few undetermined boundaries: {:?}",
        model.branch_counts()
    );

    let replay =
        format!("SWITCHCRAFT_SEED={seed} cargo test --test tcd_equivalence every_hazard_distance");
    check(&cfg, &mut rtl, rows(&cycles), &replay).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
}
