//! BFC golden model vs its exported Verilog under Verilator: every output, every cycle.
//!
//! * long seeded runs of the block's closed-loop random workload (colliding flow ids, more flows
//!   than queues, one key every cycle, received frames, CSR traffic, damaged metadata) on `tiny`,
//!   `fpga` and odd shapes;
//! * proptest: short sequences of abstract actions (enqueue flow f, dequeue the head of some
//!   non-empty queue, both, a received frame, a Th write), turned into bus values by a driver
//!   that follows the block as a traffic manager would, so shrinking keeps every dequeue
//!   consistent with what was enqueued; regressions in `proptest-regressions/`; seed from
//!   `SWITCHCRAFT_SEED`, printed on failure.

mod common;

use common::{check, preset_workload, proptest_equivalence, random_workload, seed, verilated};
use proptest::prelude::*;
use std::collections::VecDeque;
use switchcraft::blocks::bfc::BfcBlock;
use switchcraft::BlockConfig;
use switchcraft_core::{CycleModel, PortValues};
use switchcraft_model::bfc::{err, reg, Bfc, BfcConfig, BfcIn, EVENT_LATENCY, RX_BITMAP};

fn tiny() -> BfcConfig {
    BfcConfig::preset("tiny").unwrap()
}

/// `tiny` on 3 ports with 2 classes and 6 upstream queues: buses that can name ports and
/// queues that do not exist.
fn odd_shape() -> BfcConfig {
    BfcConfig {
        ports: 3,
        classes: 2,
        upstream_queues: 6,
        ..tiny()
    }
}

#[test]
fn bfc_tiny_random_workload_model_equals_verilator() {
    preset_workload("bfc", "tiny", 200_000);
}

#[test]
fn bfc_fpga_random_workload_model_equals_verilator() {
    preset_workload("bfc", "fpga", 200_000);
}

/// 3 ports, 2 classes, 6 upstream queues, sticky 0, 3 speed classes (a Th row each, §3.4):
/// buses that can name missing ports and queues, class ranges, and the base design's
/// reassignment.
#[test]
fn bfc_odd_shape_random_workload_model_equals_verilator() {
    let t = odd_shape();
    let th = [1, 4, 2]
        .iter()
        .flat_map(|k| t.th.iter().map(move |b| b * k / 2))
        .collect();
    let cfg = BlockConfig::new(
        BfcBlock,
        BfcConfig {
            sticky: 0,
            speeds: 3,
            port_speed: vec![2, 0, 1],
            th,
            ..t
        },
    );
    random_workload(&cfg, "odd", seed(), 200_000);
}

/// 11 ports: counter-row RAMs and port buses past a power of two (buses that can name missing
/// ports), deep enough that synthesis puts the counter rows in block RAM; 4 speed classes.
#[test]
fn bfc_many_ports_random_workload_model_equals_verilator() {
    let t = tiny();
    let th = (1..=4)
        .flat_map(|k| t.th.iter().map(move |b| b * k))
        .collect();
    let cfg = BlockConfig::new(
        BfcBlock,
        BfcConfig {
            ports: 11,
            speeds: 4,
            port_speed: (0..11).map(|o| o % 4).collect(),
            th,
            ..t
        },
    );
    random_workload(&cfg, "ports", seed(), 150_000);
}

/// 40 queues and 40 upstream queues: two 32-queue chunks in received and sent bitmaps; 64-bit
/// flow ids hashed into 32-bit keys; timestamps in units of 8 cycles; the flow table split
/// across 2 ingress pipelines (spec §3.5), one port each.
#[test]
fn bfc_wide_chunks_random_workload_model_equals_verilator() {
    let cfg = BlockConfig::new(
        BfcBlock,
        BfcConfig {
            ports: 2,
            queues: 40,
            upstream_queues: 40,
            ft_multiple: 2,
            fid_bits: 64,
            hash_bits: 32,
            ts_shift: 3,
            sticky: 5,
            classes: 3,
            t_bm: 200,
            th: vec![2000; 40],
            pipelines: 2,
            ..tiny()
        },
    );
    random_workload(&cfg, "wide", seed(), 150_000);
}

/// Sampling and incast_label (spec §3.6, App. A.7 and A.8) on 3 ports and 2 classes: sampled
/// and unsampled packets (the workload writes sample_rate, 0 and >= 256 too), departures that
/// skip the flow table, arrival stamps keeping entries sticky, and each (port, class)'s incast
/// queue chosen, kept while it holds packets and chosen again when it drains, also on the edge
/// a departure drains it.
#[test]
fn bfc_sampling_and_incast_random_workload_model_equals_verilator() {
    let cfg = BlockConfig::new(
        BfcBlock,
        BfcConfig {
            sampling: true,
            incast_label: true,
            ..odd_shape()
        },
    );
    random_workload(&cfg, "modes", seed(), 200_000);
}

/// One enqueue: flow (index into the driver's few flow ids), egress, ingress, upstream queue,
/// length.
type EnqAction = (usize, u64, u64, u64, u64);

#[derive(Clone, Debug)]
enum Action {
    Idle,
    Enq(EnqAction),
    /// Dequeue the head of the k-th non-empty queue (mod their number).
    Deq(usize),
    Both(EnqAction, usize),
    /// A received frame: port, kind, queue, bitmap.
    Rx(u64, u64, u64, u64),
    /// Th[n] := value (two CSR writes: index, data).
    Th(u64, u64),
}

fn action_strategy(c: &BfcConfig) -> impl Strategy<Value = Action> {
    let ports = u64::from(c.ports);
    let enq = (
        0..5usize,
        0..ports,
        0..ports,
        0..u64::from(c.upstream_queues.min(3)),
        1..1500u64,
    );
    prop_oneof![
        1 => Just(Action::Idle),
        4 => enq.clone().prop_map(Action::Enq),
        3 => any::<usize>().prop_map(Action::Deq),
        3 => (enq, any::<usize>()).prop_map(|(e, k)| Action::Both(e, k)),
        1 => (0..ports, 0..=RX_BITMAP, 0..u64::from(c.queues), any::<u64>())
            .prop_map(|(p, k, q, b)| Action::Rx(p, k, q, b)),
        1 => (0..u64::from(c.queues), 500..4000u64).prop_map(|(n, v)| Action::Th(n, v)),
    ]
}

/// A packet in the driver's queues: what its dequeue will carry.
#[derive(Clone, Copy)]
struct Queued {
    eg: u64,
    q: u64,
    key: u64,
    counted: u64,
    inp: u64,
    upq: u64,
    len: u64,
    ft_skip: u64,
}

/// Turns actions into bus rows after the reset sweep, running a private model to learn each
/// enqueue's queue, key and counter bit.
fn drive(c: &BfcConfig, actions: &[Action]) -> Vec<Vec<u64>> {
    let mut model = Bfc::new(c).unwrap();
    // Four flow ids and a fifth with the first one's key.
    let fid_mask = switchcraft_core::mask(c.fid_bits);
    let mut flows: Vec<u64> = [0x1234_5678u64, 0x9abc_def0, 0x0f0f_0f0f, 0x5555_aaaa]
        .iter()
        .map(|f| f & fid_mask)
        .collect();
    let twin = (1..=fid_mask)
        .map(|d| flows[0].wrapping_add(d) & fid_mask)
        .find(|&g| model.ft_key(g) == model.ft_key(flows[0]))
        .expect("some flow id shares the first one's key");
    flows.push(twin);

    let mut rows = Vec::new();
    let mut queued: Vec<VecDeque<Queued>> = vec![VecDeque::new(); (c.ports * c.queues) as usize];
    let mut pending: VecDeque<Option<Queued>> = VecDeque::new();
    let mut step = |i: BfcIn, enq: Option<Queued>, queued: &mut Vec<VecDeque<Queued>>| {
        let out = model.step(&i);
        let mut v = vec![0; BfcIn::NAMES.len()];
        i.to_values(&mut v);
        rows.push(v);
        pending.push_back(enq);
        if pending.len() > EVENT_LATENCY as usize {
            if let (Some(mut p), 1, 0) =
                (pending.pop_front().unwrap(), out.asg_valid, out.asg_refused)
            {
                (p.q, p.key, p.counted) = (out.asg_queue, out.asg_ft_key, out.asg_counter_incr);
                p.ft_skip = out.asg_ft_skip;
                queued[(p.eg * u64::from(c.queues) + p.q) as usize].push_back(p);
            }
        }
    };
    for _ in 0..c.init_cycles() {
        step(BfcIn::default(), None, &mut queued);
    }
    let enqueue = |i: &mut BfcIn, (f, eg, inp, upq, len): EnqAction| {
        (i.enq_valid, i.enq_fid, i.enq_eg_port, i.enq_in_port) = (1, flows[f], eg, inp);
        (i.enq_upstream_q, i.enq_len) = (upq, len & switchcraft_core::mask(c.length_bits));
        // The third flow is labelled incast (ignored without incast_label).
        i.enq_incast = u64::from(f == 2);
        Queued {
            eg,
            q: 0,
            key: 0,
            counted: 0,
            inp,
            upq,
            len: i.enq_len,
            ft_skip: 0,
        }
    };
    let dequeue = |i: &mut BfcIn, k: usize, queued: &mut Vec<VecDeque<Queued>>| {
        let busy: Vec<usize> = (0..queued.len())
            .filter(|&q| !queued[q].is_empty())
            .collect();
        if let Some(&q) = busy.get(k % busy.len().max(1)) {
            let p = queued[q].pop_front().unwrap();
            (i.deq_valid, i.deq_eg_port, i.deq_queue, i.deq_ft_key) = (1, p.eg, p.q, p.key);
            (i.deq_counter_incr, i.deq_in_port) = (p.counted, p.inp);
            (i.deq_upstream_q, i.deq_len, i.deq_ft_skip) = (p.upq, p.len, p.ft_skip);
        }
    };
    for a in actions {
        let mut i = BfcIn::default();
        let mut enq = None;
        match *a {
            Action::Idle => {}
            Action::Enq(e) => enq = Some(enqueue(&mut i, e)),
            Action::Deq(k) => dequeue(&mut i, k, &mut queued),
            Action::Both(e, k) => {
                dequeue(&mut i, k, &mut queued);
                enq = Some(enqueue(&mut i, e));
            }
            Action::Rx(port, kind, q, bitmap) => {
                (i.rx_valid, i.rx_port, i.rx_kind, i.rx_queue) = (1, port, kind, q);
                i.rx_bitmap = bitmap & switchcraft_core::mask(c.rx_bitmap_bits());
            }
            Action::Th(n, value) => {
                let index = BfcIn {
                    csr_we: 1,
                    csr_addr: reg::TH_INDEX.into(),
                    csr_wdata: n,
                    ..i
                };
                step(index, None, &mut queued);
                (i.csr_we, i.csr_addr, i.csr_wdata) = (1, reg::TH_DATA.into(), value);
            }
        }
        step(i, enq, &mut queued);
    }
    rows
}

fn bfc_proptest(cfg: BfcConfig, name: &str, test: &str) {
    let c2 = cfg.clone();
    let strategy = prop::collection::vec(action_strategy(&cfg), 1..400)
        .prop_map(move |actions| drive(&c2, &actions));
    let regressions = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/proptest-regressions/bfc_equivalence.txt"
    );
    proptest_equivalence(
        &BlockConfig::new(BfcBlock, cfg),
        name,
        test,
        regressions,
        strategy,
    );
}

#[test]
fn bfc_tiny_proptest_model_equals_verilator() {
    // The random run's instance: one Verilator build for both (a second asker waits for it).
    bfc_proptest(tiny(), "tiny", "bfc_tiny_proptest_model_equals_verilator");
}

/// App. A's switch options: sampled and unsampled packets, a labelled flow in the incast queue;
/// and the flow table split across 2 pipelines (§3.5), so one flow holds an entry per pipeline.
#[test]
fn bfc_sampling_and_incast_proptest_model_equals_verilator() {
    bfc_proptest(
        BfcConfig {
            sampling: true,
            incast_label: true,
            pipelines: 2,
            ..tiny()
        },
        "modes_pt",
        "bfc_sampling_and_incast_proptest_model_equals_verilator",
    );
}

#[test]
fn bfc_fpga_proptest_model_equals_verilator() {
    bfc_proptest(
        BfcConfig::preset("fpga").unwrap(),
        "fpga",
        "bfc_fpga_proptest_model_equals_verilator",
    );
}

/// The pipeline's hazards at every distance. An arrival's occupancy and pause counter are
/// written in the accounting stage, one edge after its lookup, while the next edge's departure
/// already reads the queue to decide whether it empties it: the departure at distance 1 from an
/// arrival on its queue adds the arrival's bytes itself (`departure.rs`), at distance 2 the RAM
/// leaf forwards the write, from 3 on the RAM holds it. One egress with three data queues,
/// occupancies as narrow as the lengths (a queue saturates, and one departure can drain a
/// saturated queue), 2-bit pause counters, an event of each kind on almost every edge, and
/// departure lengths around the queue's exact occupancy (emptied, one byte short, underflow):
/// each distance 0..=3 from an arrival to a departure on its queue, and to a marked departure
/// on its counter, must occur often, and both sides agree on every cycle.
#[test]
fn bfc_every_hazard_distance_on_few_queues_model_equals_verilator() {
    let cfg = BfcConfig {
        ports: 2,
        queues: 4,
        occupancy_bits: 11,
        length_bits: 11,
        upstream_queues: 2,
        pc_bits: 2,
        size_bits: 3,
        sticky: 0,
        th: vec![900, 600, 300, 200],
        ..tiny()
    };
    let mut rng = switchcraft_core::rng::SplitMix64::new(seed());
    let mut model = Bfc::new(&cfg).unwrap();
    let fids: Vec<u64> = {
        let mut keys = std::collections::HashSet::new();
        (1..)
            .filter(|&f| keys.insert(model.ft_key(f)))
            .take(4)
            .collect()
    };
    let mut rows = Vec::new();
    // Per edge, the arrival's queue and upstream queue once its result is out; per departure,
    // its edge, queue, upstream queue, mark and whether it drains its queue.
    let mut arrivals: Vec<Option<(u64, u64)>> = Vec::new();
    let mut departures: Vec<(usize, u64, u64, bool, bool)> = Vec::new();
    let steps = cfg.init_cycles() + 40_000;
    // `err` as read on each edge.
    let mut err_reads = Vec::new();
    for n in 0..steps {
        // `err` is read on every edge and cleared on every eighth, so each flag's edge shows.
        let mut i = BfcIn {
            csr_addr: reg::ERR.into(),
            ..BfcIn::default()
        };
        if n % 8 == 7 {
            (i.csr_we, i.csr_wdata) = (1, 0xFF);
        }
        let live = n >= cfg.init_cycles();
        if live && rng.chance(85) {
            let upq = rng.below(2);
            (i.enq_valid, i.enq_eg_port, i.enq_in_port, i.enq_upstream_q) = (1, 0, 0, upq);
            i.enq_fid = fids[rng.below(4) as usize];
            i.enq_len = [1, rng.range(1, 300), rng.range(1, 2047)][rng.below(3) as usize];
        }
        if live && rng.chance(85) {
            let q = rng.range(1, 3);
            let qlen = model.qlen(0, q as usize);
            (i.deq_valid, i.deq_eg_port, i.deq_queue) = (1, 0, q);
            i.deq_ft_key = model.ft_key(fids[rng.below(4) as usize]) as u64;
            (i.deq_counter_incr, i.deq_in_port, i.deq_upstream_q) = (rng.below(2), 0, rng.below(2));
            // The exact occupancy (emptied), one byte less or more, or anything.
            let around = [qlen, qlen.saturating_sub(1), qlen + 1, rng.range(1, 2047)];
            i.deq_len = around[rng.below(4) as usize].clamp(1, 2047);
            let drains = i.deq_len >= qlen;
            departures.push((
                n as usize,
                q,
                i.deq_upstream_q,
                i.deq_counter_incr == 1,
                drains,
            ));
        }
        let out = model.step(&i);
        err_reads.push(out.csr_rdata);
        let mut v = vec![0; BfcIn::NAMES.len()];
        i.to_values(&mut v);
        rows.push(v);
        arrivals.push(None);
        if n >= u64::from(EVENT_LATENCY) && out.asg_valid == 1 && out.asg_refused == 0 {
            let at = (n - u64::from(EVENT_LATENCY)) as usize;
            let upq = rows[at][BfcIn::NAMES
                .iter()
                .position(|&p| p == "enq_upstream_q")
                .unwrap()];
            arrivals[at] = Some((out.asg_queue, upq));
        }
    }
    // Per distance d: departures d edges after an arrival on their queue, those of them that
    // drained it, and marked departures d edges after an arrival on their counter.
    let (mut on_queue, mut drained, mut on_counter) = ([0u64; 4], [0u64; 4], [0u64; 4]);
    for &(n, q, upq, marked, drains) in &departures {
        for d in 0..4usize {
            let Some(Some((aq, aupq))) = n.checked_sub(d).map(|a| arrivals[a]) else {
                continue;
            };
            if aq == q {
                on_queue[d] += 1;
                drained[d] += u64::from(drains);
            }
            if marked && aupq == upq {
                on_counter[d] += 1;
            }
        }
    }
    for d in 0..4 {
        assert!(
            on_queue[d] > 2000 && drained[d] > 1000 && on_counter[d] > 2000,
            "seed {}, distance {d}: {} departures on an arrival's queue ({} drained it), {} \
             marked departures on its counter",
            seed(),
            on_queue[d],
            drained[d],
            on_counter[d]
        );
    }
    for flag in [
        err::SIZE_SATURATED,
        err::SIZE_UNDERFLOW,
        err::QLEN_SATURATED,
        err::QLEN_UNDERFLOW,
        err::PC_SATURATED,
        err::PC_UNDERFLOW,
    ] {
        let edges = err_reads.iter().filter(|&&e| e & flag != 0).count();
        assert!(
            edges > 100,
            "seed {}: err flag {flag:#x} read on only {edges} edges",
            seed()
        );
    }
    let mut rtl = verilated(&BlockConfig::new(BfcBlock, cfg), "hazard");
    check(
        &BlockConfig::new(BfcBlock, model.config().clone()),
        &mut rtl,
        rows,
        "cargo test --test bfc_equivalence bfc_every_hazard_distance",
    )
    .unwrap();
}

/// The pause/resume episode of docs/blocks/bfc.md ("Waveform"): the model's trace has the
/// documented assignments, PAUSE, bitmap and RESUME on the documented steps, and the Verilog
/// agrees.
#[test]
fn bfc_documented_pause_resume_episode_model_and_verilator() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/reproductions/bfc_pause_resume");
    let cfg = BlockConfig::from_file("bfc", &dir.join("config.toml")).unwrap();
    let schema = cfg.schema();
    let rows =
        switchcraft_core::stimulus::read_stimulus(&dir.join("stimulus.jsonl"), &schema).unwrap();
    let names: Vec<&str> = schema.outputs().map(|p| p.name.as_str()).collect();
    let mut model = cfg.model();
    model.reset();
    let mut out = vec![0u64; names.len()];
    // (step, output name, value) of the non-zero event outputs from step 8 (`ready`).
    let mut seen = Vec::new();
    for (step, row) in rows.iter().enumerate() {
        model.step_values(row, &mut out);
        for (name, v) in names.iter().zip(&out) {
            if step >= 8 && *v != 0 && !["ready", "csr_rdata"].contains(name) {
                seen.push((step, *name, *v));
            }
        }
    }
    let expected = vec![
        // Flow A (ingress 0, upstream queue 0) to egress 1: the first empty queue, then kept.
        (10, "asg_valid", 1),
        (10, "asg_queue", 1),
        (10, "asg_new", 1),
        (11, "asg_valid", 1),
        (11, "asg_queue", 1),
        (12, "asg_valid", 1),
        (12, "asg_queue", 1),
        // The fourth packet finds 4 500 B > Th(1) = 3 000 B: counted, its counter leaves 0.
        (13, "asg_valid", 1),
        (13, "asg_queue", 1),
        (13, "asg_counter_incr", 1),
        (13, "pause_valid", 1),
        // The fifth is counted too (counter 2): no second PAUSE.
        (14, "asg_valid", 1),
        (14, "asg_queue", 1),
        (14, "asg_counter_incr", 1),
        // Flow B (ingress 1) gets the next empty queue, from the rotating start.
        (15, "asg_valid", 1),
        (15, "asg_queue", 2),
        (15, "asg_ft_key", 1),
        (15, "asg_new", 1),
        // The periodic bitmaps (T_BM = 14): ingress 0 has a non-zero counter at bit 0.
        (16, "bm_valid", 1),
        (16, "bm_bits", 1),
        (17, "bm_valid", 1),
        (17, "bm_port", 1),
        // The second marked departure brings the counter back to 0.
        (19, "resume_valid", 1),
    ];
    assert_eq!(seen, expected);
    let mut rtl = verilated(&cfg, "episode");
    check(&cfg, &mut rtl, rows, "the documented episode").unwrap();
}

/// The CSR contract of docs/blocks/bfc.md, asserted on the model and then checked cycle for
/// cycle against the Verilog: a write at edge n is seen by the events of edge n and read back
/// at edge n + 1; a read at edge n returns the register as before edge n; an `err` flag raised
/// on the edge of a clearing write stays set (the write clears first, the edge's events then
/// raise their flags).
#[test]
fn bfc_csr_writes_reads_and_error_clears_model_and_verilator() {
    let cfg = tiny();
    let mut model = Bfc::new(&cfg).unwrap();
    let mut rows = Vec::new();
    let mut step = |i: BfcIn| {
        let out = model.step(&i);
        let mut v = vec![0; BfcIn::NAMES.len()];
        i.to_values(&mut v);
        rows.push(v);
        out
    };
    let write = |addr: u32, data: u64| BfcIn {
        csr_we: 1,
        csr_addr: addr.into(),
        csr_wdata: data,
        ..BfcIn::default()
    };
    let read = |addr: u32| BfcIn {
        csr_addr: addr.into(),
        ..BfcIn::default()
    };
    // A received frame of an unknown kind (3) is a bad event.
    let bad_frame = BfcIn {
        rx_valid: 1,
        rx_kind: 3,
        ..BfcIn::default()
    };
    while step(BfcIn::default()).ready == 0 {}
    // A write at edge n: a read addressed at edge n still returns the old value ...
    let sticky = cfg.sticky;
    let out = step(BfcIn {
        csr_addr: reg::STICKY.into(),
        ..write(reg::STICKY, sticky + 3)
    });
    assert_eq!(
        out.csr_rdata, sticky,
        "a read returns the register as before its edge"
    );
    // ... and one at edge n + 1 the new one.
    assert_eq!(step(read(reg::STICKY)).csr_rdata, sticky + 3);
    // A bad event raises err.BAD_EVENT, readable at the next edge.
    step(bad_frame);
    assert_eq!(step(read(reg::ERR)).csr_rdata, err::BAD_EVENT);
    // A clear on the edge of another bad event: the flag stays.
    step(BfcIn {
        csr_we: 1,
        csr_addr: reg::ERR.into(),
        csr_wdata: 0xFF,
        ..bad_frame
    });
    assert_eq!(
        step(read(reg::ERR)).csr_rdata,
        err::BAD_EVENT,
        "set wins over clear"
    );
    // A clear alone clears it.
    step(write(reg::ERR, 0xFF));
    assert_eq!(step(read(reg::ERR)).csr_rdata, 0, "write 1 to clear");
    // The Th window reads the entry the index names after the index's write.
    step(write(reg::TH_INDEX, 1));
    step(write(reg::TH_DATA, 1234));
    assert_eq!(step(read(reg::TH_DATA)).csr_rdata, 1234);
    for _ in 0..4 {
        step(BfcIn::default());
    }
    let block = BlockConfig::new(BfcBlock, cfg);
    let mut rtl = verilated(&block, "csr_contract");
    check(&block, &mut rtl, rows, "the CSR contract").unwrap();
}
