//! Golden-model tests of CaPFC: each asserts a rule of the spec (../shared/spec/mechanisms.md
//! §0.3, §2.1-§2.10, vectors §7.2 C7-C10) or of the cycle semantics in the module doc of
//! crates/model/src/capfc.rs, with the expected values worked out here.
//!
//! Timing used throughout: an egress event given to `step` at edge n runs through the model's
//! stages (its module doc): `eg_drop` shows at edge n + `EG_DROP_LATENCY`, the counters and the
//! engine move at edge n + `COUNT_LATENCY`, the E bits and their messages at n + `E_LATENCY`,
//! the E counts and D at n + `D_LATENCY`. `Bench::apply` steps an event through all of them.
//! Ingress events show `in_drop` at `IN_DROP_LATENCY` and I at `I_LATENCY`.

mod common;

use common::pause_link::check_lossy_link;
use std::collections::VecDeque;
use switchcraft_core::CycleModel;
use switchcraft_model::capfc::SharedMemory;
use switchcraft_model::capfc::{
    reg, Capfc, CapfcConfig, CapfcIn, CapfcOut, CapfcWorkload, Policy, Saturation, COUNT_LATENCY,
    D_LATENCY, EG_DROP_LATENCY, ERR_INDEX, ERR_SATURATION, E_LATENCY, E_WAIT, ID_WORD,
    IN_DROP_LATENCY, I_LATENCY, POLICY_SATURATE, PRESETS,
};

/// Edges from an egress event to its counter stage (a capture by the engine), to its E bits
/// (Stop-Max, XON) and to D.
const C: usize = COUNT_LATENCY as usize;
const E: usize = E_LATENCY as usize;
const D: usize = D_LATENCY as usize;
/// A calibration with m flags sets E at edge n + CAL + max(m, 1) for the enqueue of edge n:
/// captured at n + C, summed at n + C + 1, scaled at n + C + 2, one flag per edge, then the
/// requests' wait (`W`) and the E stage.
const CAL: usize = C + 3 + W;
/// Edges the counter stage's E requests wait before the E stage.
const W: usize = E_WAIT as usize;

// ---------------------------------------------------------------------------------------------
// Configurations and stimulus helpers.

/// The tiny preset (4 ports, 2 priorities, egress XOFF 3000 / XON = WARN 2000 / MAX 5000,
/// ingress XOFF 4000 / XON 2500 / MAX 6000), with `policy` and no refresh frames in the way.
fn cfg(policy: Policy) -> CapfcConfig {
    let mut c = CapfcConfig::preset("tiny").unwrap();
    c.policy = policy;
    c.refresh = 0xFFFF;
    c
}

/// §7.2 C10: egress XOFF 25 KB, XON = WARN 20 KB, MAX 60 KB, 1 KB packets, Stop-Max.
fn c10_cfg() -> CapfcConfig {
    let mut c = cfg(Policy::StopMax);
    c.occupancy_bits = 16;
    c.length_bits = 11;
    c.counter_bits = 16;
    c.eg_xoff = 25_000;
    c.eg_xon = 20_000;
    c.eg_warn = 20_000;
    c.eg_max = 60_000;
    c
}

/// An arrival at egress (port, prio) from ingress `input`.
fn enq(port: u64, prio: u64, input: u64, len: u64) -> CapfcIn {
    CapfcIn {
        eg_enq_valid: 1,
        eg_enq_port: port,
        eg_enq_prio: prio,
        eg_enq_input: input,
        eg_enq_len: len,
        ..Default::default()
    }
}

/// A departure from egress (port, prio).
fn deq(port: u64, prio: u64, len: u64) -> CapfcIn {
    CapfcIn {
        eg_deq_valid: 1,
        eg_deq_port: port,
        eg_deq_prio: prio,
        eg_deq_len: len,
        ..Default::default()
    }
}

fn in_enq(port: u64, prio: u64, len: u64) -> CapfcIn {
    CapfcIn {
        in_enq_valid: 1,
        in_enq_port: port,
        in_enq_prio: prio,
        in_enq_len: len,
        ..Default::default()
    }
}

fn in_deq(port: u64, prio: u64, len: u64) -> CapfcIn {
    CapfcIn {
        in_deq_valid: 1,
        in_deq_port: port,
        in_deq_prio: prio,
        in_deq_len: len,
        ..Default::default()
    }
}

/// `e` with the egress dequeue bus of `d`.
fn with_deq(e: CapfcIn, d: CapfcIn) -> CapfcIn {
    CapfcIn {
        eg_deq_valid: d.eg_deq_valid,
        eg_deq_port: d.eg_deq_port,
        eg_deq_prio: d.eg_deq_prio,
        eg_deq_len: d.eg_deq_len,
        ..e
    }
}

/// `i` with a CSR write on the same edge.
fn with_write(i: CapfcIn, addr: u32, data: u64) -> CapfcIn {
    CapfcIn {
        csr_we: 1,
        csr_addr: addr.into(),
        csr_wdata: data,
        ..i
    }
}

fn idle() -> CapfcIn {
    CapfcIn::default()
}

/// INSPECT register value: port [5:0], priority [10:8], input [21:16].
fn inspect(port: u64, prio: u64, input: u64) -> u64 {
    port | prio << 8 | input << 16
}

/// A model with a log of every edge's outputs (index = edge number).
struct Bench {
    m: Capfc,
    log: Vec<CapfcOut>,
}

impl Bench {
    fn new(c: &CapfcConfig) -> Bench {
        Bench {
            m: Capfc::new(c).unwrap(),
            log: Vec::new(),
        }
    }

    /// The number of the next edge.
    fn edge(&self) -> usize {
        self.log.len()
    }

    fn step(&mut self, i: CapfcIn) -> CapfcOut {
        let o = self.m.step(&i);
        self.log.push(o);
        o
    }

    /// Steps `i` then idle edges until D has followed it; returns the results of `i`: each
    /// output of the edge of its latency (`eg_drop`, `in_drop`; the E messages).
    fn apply(&mut self, i: CapfcIn) -> CapfcOut {
        let n = self.edge();
        self.step(i);
        self.idle(D);
        for k in n..n + E {
            assert_eq!(
                (self.log[k].eset_valid, self.log[k].eclr_valid),
                (0, 0),
                "no E message before the E stage (edge n + {})",
                k - n
            );
        }
        CapfcOut {
            eg_drop: self.log[n + EG_DROP_LATENCY as usize].eg_drop,
            in_drop: self.log[n + IN_DROP_LATENCY as usize].in_drop,
            ..self.log[n + E]
        }
    }

    /// Steps an ingress event `i` then idle edges up to the I latency; returns the
    /// outputs of the last, the edge its I bit is decided on.
    fn apply_in(&mut self, i: CapfcIn) -> CapfcOut {
        let mut out = self.step(i);
        for _ in 0..I_LATENCY {
            out = self.step(idle());
        }
        out
    }

    /// Steps an ingress event `i` then idle edges up to the in_drop latency; returns its
    /// `in_drop` (nothing earlier shows one).
    fn in_drop(&mut self, i: CapfcIn) -> u64 {
        let mut out = self.step(i);
        for _ in 0..IN_DROP_LATENCY {
            assert_eq!(out.in_drop, 0, "no in_drop before the drop latency");
            out = self.step(idle());
        }
        out.in_drop
    }

    fn idle(&mut self, edges: usize) {
        for _ in 0..edges {
            self.step(idle());
        }
    }

    fn write(&mut self, addr: u32, data: u64) {
        self.step(with_write(idle(), addr, data));
    }

    /// Reads register `addr` over the bus (its value before this edge).
    fn read(&mut self, addr: u32) -> u64 {
        self.step(CapfcIn {
            csr_addr: addr.into(),
            ..Default::default()
        })
        .csr_rdata
    }

    /// Brings egress (o, p) from empty to exactly WARN with arrivals from input o (the
    /// diagonal: never counted), then adds `k` one-byte arrivals from each `(input, k)` of
    /// `counts` (counted: the queue is at or above WARN). Ends with every event applied.
    fn prefill(&mut self, o: u64, p: u64, counts: &[(u64, u64)]) {
        assert_eq!(self.m.egress_occupancy(o as usize, p as usize), 0);
        let mut left = self.m.csr(reg::EG_WARN);
        while left > 0 {
            let l = left.min(2000);
            self.step(enq(o, p, o, l));
            left -= l;
        }
        for &(input, k) in counts {
            for _ in 0..k {
                self.step(enq(o, p, input, 1));
            }
        }
        self.idle(D);
        for &(input, k) in counts {
            assert_eq!(self.m.counter(o as usize, p as usize, input as usize), k);
        }
        assert_eq!(self.m.counter(o as usize, p as usize, o as usize), 0);
        assert!(
            self.m.egress_occupancy(o as usize, p as usize) < self.m.csr(reg::EG_XOFF),
            "prefill stays below XOFF"
        );
    }

    /// The arrival from `input` that brings egress (o, p) exactly to XOFF.
    fn to_xoff(&self, o: u64, p: u64, input: u64) -> CapfcIn {
        let b = self.m.egress_occupancy(o as usize, p as usize);
        enq(o, p, input, self.m.csr(reg::EG_XOFF) - b)
    }

    /// Frames sent from edge `from` on: (port, class_enable, pause).
    fn frames(&self, from: usize) -> Vec<(u64, u64, u64)> {
        self.log[from..]
            .iter()
            .filter(|o| o.frame_valid == 1)
            .map(|o| (o.frame_port, o.frame_class_enable, o.frame_pause))
            .collect()
    }

    /// Edges from `from` on whose output has eset_valid.
    fn esets(&self, from: usize) -> Vec<(usize, u64, u64, u64)> {
        (from..self.log.len())
            .filter(|&k| self.log[k].eset_valid == 1)
            .map(|k| {
                let o = self.log[k];
                (k, o.eset_port, o.eset_prio, o.eset_mask)
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// 1. Configuration.

#[test]
fn capfc_config_rules_name_field_and_rule() {
    type Break = Box<dyn Fn(&mut CapfcConfig)>;
    let cases: Vec<(Break, &str, &str)> = vec![
        // WARN < XON (§2.9 item 6).
        (
            Box::new(|c| c.eg_warn = 1500),
            "eg_warn",
            "eg_warn = 1500: must be >= eg_xon (2000)",
        ),
        // XON >= XOFF, egress and ingress.
        (
            Box::new(|c| c.eg_xon = 3000),
            "eg_xon",
            "eg_xon = 3000: must be < eg_xoff (3000)",
        ),
        (
            Box::new(|c| c.in_xon = 4000),
            "in_xon",
            "in_xon = 4000: must be < in_xoff (4000)",
        ),
        // WARN >= XOFF.
        (
            Box::new(|c| c.eg_warn = 3000),
            "eg_warn",
            "eg_warn = 3000: must be < eg_xoff (3000)",
        ),
        // XOFF > MAX, egress and ingress.
        (
            Box::new(|c| c.eg_xoff = 5001),
            "eg_xoff",
            "eg_xoff = 5001: must be <= eg_max (5000)",
        ),
        (
            Box::new(|c| c.in_xoff = 6001),
            "in_xoff",
            "in_xoff = 6001: must be <= in_max (6000)",
        ),
        // CUT outside (0, 1].
        (
            Box::new(|c| c.cut_num = 0),
            "cut_num",
            "cut_num = 0: CUT = cut_num / cut_den = 0/5 must be in (0, 1]",
        ),
        (
            Box::new(|c| c.cut_num = 6),
            "cut_num",
            "cut_num = 6: CUT = cut_num / cut_den = 6/5 must be in (0, 1]",
        ),
        (
            Box::new(|c| c.cut_den = 0),
            "cut_den",
            "cut_den = 0: must not be 0",
        ),
        (
            Box::new(|c| c.cut_den = 256),
            "cut_den",
            "cut_den = 256: must be in 1..=255",
        ),
        // Ports.
        (
            Box::new(|c| c.ports = 1),
            "ports",
            "ports = 1: must be at least 2",
        ),
        (
            Box::new(|c| c.ports = 0),
            "ports",
            "ports = 0: must be at least 2",
        ),
        (
            Box::new(|c| c.ports = 65),
            "ports",
            "ports = 65: must be in 2..=64",
        ),
        // Counter width.
        (
            Box::new(|c| c.counter_bits = 1),
            "counter_bits",
            "counter_bits = 1: must be in 2..=16",
        ),
        (
            Box::new(|c| c.counter_bits = 17),
            "counter_bits",
            "counter_bits = 17: must be in 2..=16",
        ),
        // The rest of the rules.
        (
            Box::new(|c| c.priorities = 9),
            "priorities",
            "priorities = 9: must be in 1..=8",
        ),
        (
            Box::new(|c| c.length_bits = 17),
            "length_bits",
            "length_bits = 17: must be in 1..=16",
        ),
        (
            Box::new(|c| c.eg_max = 70_000),
            "eg_max",
            "eg_max = 70000: does not fit occupancy_bits = 16",
        ),
        (
            Box::new(|c| c.quanta = 0),
            "quanta",
            "quanta = 0: must be in 1..=65535",
        ),
        (
            Box::new(|c| c.refresh = 3),
            "refresh",
            "refresh = 3: must be in 4..=65535",
        ),
    ];
    for (break_it, field, want) in cases {
        let mut c = CapfcConfig::preset("tiny").unwrap();
        break_it(&mut c);
        let e = c.validate().unwrap_err();
        assert_eq!(e.field, field, "{e}");
        let text = e.to_string();
        assert!(text.contains(want), "{text:?} lacks {want:?}");
        assert!(Capfc::new(&c).is_err());
    }
    // Boundaries that are legal: WARN = XON, XOFF = MAX, CUT = 1, 2 ports, 2- and 16-bit
    // counters.
    let mut c = CapfcConfig::preset("tiny").unwrap();
    c.eg_xoff = c.eg_max;
    c.in_xoff = c.in_max;
    (c.cut_num, c.cut_den) = (255, 255);
    c.ports = 2;
    c.counter_bits = 2;
    c.validate().unwrap();
    c.counter_bits = 16;
    c.validate().unwrap();
}

#[test]
fn capfc_presets_validate_and_paper_counter_storage_is_36096_bytes() {
    for p in PRESETS {
        let c = CapfcConfig::preset(p).unwrap();
        c.validate().unwrap();
        Capfc::new(&c).unwrap();
    }
    assert!(CapfcConfig::preset("nope").is_none());
    let paper = CapfcConfig::preset("paper").unwrap();
    // §2.2 / §7.2 C3: 48 x 47 x 8 counters without the diagonal, 16 bits each.
    assert_eq!(paper.counter_storage_bits(), 48 * 47 * 8 * 16);
    assert_eq!(paper.counter_storage_bits() / 8, 36_096);
    // Table II thresholds (§2.8 / C5).
    assert_eq!(
        (paper.eg_max, paper.eg_xoff, paper.eg_xon, paper.eg_warn),
        (60_000, 25_000, 20_000, 20_000)
    );
    assert_eq!(
        (paper.in_max, paper.in_xoff, paper.in_xon),
        (60_000, 50_000, 40_000)
    );
    assert_eq!((paper.cut_num, paper.cut_den), (4, 5));
}

#[test]
fn capfc_toml_round_trips_and_rejects_unknown_keys() {
    let c = CapfcConfig::preset("fpga").unwrap();
    let text = toml::to_string(&c).unwrap();
    assert_eq!(CapfcConfig::from_toml(&text, "c.toml").unwrap(), c);
    let bad = format!("{text}eg_warm = 3\n");
    let e = CapfcConfig::from_toml(&bad, "c.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("c.toml") && e.contains("eg_warm"), "{e}");
    let broken = text.replace("cut_den = 5", "cut_den = 0");
    let e = CapfcConfig::from_toml(&broken, "c.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("c.toml") && e.contains("cut_den"), "{e}");
}

#[test]
fn capfc_id_params_and_reset_values_of_registers() {
    let mut c = cfg(Policy::StopMax);
    c.saturation = Saturation::Saturate;
    let mut b = Bench::new(&c);
    assert_eq!(b.read(reg::ID), ID_WORD);
    assert_eq!(
        b.read(reg::PARAMS),
        4 | 2 << 8 | 16 << 16 | 11 << 22 | 6 << 27,
        "ports, priorities, occupancy_bits, length_bits, counter_bits"
    );
    assert_eq!(b.read(reg::POLICY), 1 | POLICY_SATURATE);
    assert_eq!(b.read(reg::CUT), 4 | 5 << 8);
    assert_eq!(b.read(reg::EG_XOFF), 3000);
    assert_eq!(b.read(reg::EG_XON), 2000);
    assert_eq!(b.read(reg::EG_WARN), 2000);
    assert_eq!(b.read(reg::EG_MAX), 5000);
    assert_eq!(b.read(reg::IN_XOFF), 4000);
    assert_eq!(b.read(reg::IN_XON), 2500);
    assert_eq!(b.read(reg::IN_MAX), 6000);
    assert_eq!(b.read(reg::ERR), 0);
    assert_eq!(b.read(reg::STATUS), 0);
}

// ---------------------------------------------------------------------------------------------
// 2-3. Algorithm 1 (Stop-Max).

#[test]
fn capfc_c10_stop_max_trace() {
    const P: u64 = 1;
    let mut b = Bench::new(&c10_cfg());
    let (o, p) = (0usize, P as usize);
    // B 0 -> 19 KB from input 3: below WARN, nothing counted.
    for _ in 0..19 {
        b.apply(enq(0, P, 3, 1000));
    }
    assert_eq!(b.m.egress_occupancy(o, p), 19_000);
    assert_eq!(
        b.m.counter(o, p, 3),
        0,
        "arrivals below WARN are not counted"
    );
    // B 19 -> 20 KB, arrival from i = 1: C[1] = 1 (>= WARN).
    b.apply(enq(0, P, 1, 1000));
    assert_eq!(b.m.egress_occupancy(o, p), 20_000);
    assert_eq!(b.m.counter(o, p, 1), 1);
    // To 25 KB with C = {1: 4, 2: 2}; only the arrival reaching XOFF sets an E bit.
    for (k, input) in [2, 1, 2, 1, 1].into_iter().enumerate() {
        let n = b.edge();
        let out = b.apply(enq(0, P, input, 1000));
        if k < 4 {
            assert_eq!(out.eset_valid, 0, "below XOFF nothing is flagged");
            assert_eq!(b.m.e_bits(o, p), 0);
        } else {
            assert_eq!(b.m.egress_occupancy(o, p), 25_000);
            assert_eq!(
                (b.m.counter(o, p, 1), b.m.counter(o, p, 2)),
                (4, 2),
                "C = {{1: 4, 2: 2}}"
            );
            assert_eq!(
                b.esets(n),
                vec![(n + E, 0, P, 0b010)],
                "E[1] set, shown at the E latency after the arrival"
            );
            assert_eq!(b.m.e_bits(o, p), 0b010);
        }
    }
    assert!(b.m.is_d(1, p), "D of ingress (1, p) rises with E[1]");
    assert!(!b.m.is_d(2, p));
    // Arrivals only from 2: C[2] = 3 and 4 (a tie goes to 1) change nothing, 5 > 4 sets E[2].
    for c2 in 3..=5 {
        let n = b.edge();
        b.apply(enq(0, P, 2, 1000));
        assert_eq!(b.m.counter(o, p, 2), c2);
        if c2 < 5 {
            assert_eq!(b.esets(n), vec![], "C[2] = {c2} <= C[1] = 4");
            assert_eq!(b.m.e_bits(o, p), 0b010);
        } else {
            assert_eq!(b.esets(n), vec![(n + E, 0, P, 0b100)], "C[2] = 5 > 4");
            assert_eq!(b.m.e_bits(o, p), 0b110);
        }
    }
    assert_eq!(b.m.egress_occupancy(o, p), 28_000);
    assert!(b.m.is_d(1, p) && b.m.is_d(2, p));
    assert!(!b.m.is_d(0, p) && !b.m.is_d(3, p) && !b.m.is_d(1, 1 - p));
    // Dequeue down to 21 KB: C and E hold.
    for _ in 0..7 {
        let out = b.apply(deq(0, P, 1000));
        assert_eq!(out.eclr_valid, 0);
    }
    assert_eq!(b.m.egress_occupancy(o, p), 21_000);
    assert_eq!((b.m.counter(o, p, 1), b.m.counter(o, p, 2)), (4, 5));
    assert_eq!(b.m.e_bits(o, p), 0b110);
    // To 20 KB: C = 0, E = 0, one eclr with mask {1, 2}, D of (1, p) and (2, p) falls.
    let n = b.edge();
    let out = b.apply(deq(0, P, 1000));
    assert_eq!(
        (out.eclr_valid, out.eclr_port, out.eclr_prio, out.eclr_mask),
        (1, 0, P, 0b110)
    );
    assert_eq!(out.eset_valid, 0);
    assert_eq!(b.m.egress_occupancy(o, p), 20_000);
    for i in 0..4 {
        assert_eq!(b.m.counter(o, p, i), 0);
    }
    assert_eq!(b.m.e_bits(o, p), 0);
    assert!(!b.m.is_d(1, p) && !b.m.is_d(2, p));
    // XON (RESUME) is sent once D falls, on ports 1 and 2, one frame per edge.
    b.idle(4);
    // Every frame states every class of its port.
    let (pbit, all) = (1 << P, (1 << c10_cfg().priorities) - 1);
    assert_eq!(b.frames(n), vec![(1, all, 0), (2, all, 0)]);
    // The whole trace: one PAUSE for each of ports 1 and 2, then their RESUMEs.
    assert_eq!(
        b.frames(0),
        vec![(1, all, pbit), (2, all, pbit), (1, all, 0), (2, all, 0)]
    );
}

#[test]
fn capfc_stop_max_tie_goes_to_lowest_index_and_diagonal_is_not_counted() {
    let mut b = Bench::new(&cfg(Policy::StopMax));
    // Egress (2, 0): 1900 B from input 2 (= the egress port), then C[3] = 1 and C[1] = 1.
    b.apply(enq(2, 0, 2, 1900));
    b.apply(enq(2, 0, 3, 100));
    b.apply(enq(2, 0, 1, 100));
    assert_eq!(b.m.egress_occupancy(2, 0), 2100);
    assert_eq!((b.m.counter(2, 0, 1), b.m.counter(2, 0, 3)), (1, 1));
    assert_eq!(b.m.e_bits(2, 0), 0, "below XOFF");
    // The arrival reaching XOFF comes from input 2 itself: not counted, and the argmax of the
    // tie {1: 1, 3: 1} is the lowest index, 1. Input 0 (zero) is never flagged.
    let n = b.edge();
    b.apply(enq(2, 0, 2, 900));
    assert_eq!(b.m.egress_occupancy(2, 0), 3000);
    assert_eq!(
        b.m.counter(2, 0, 2),
        0,
        "input = egress port is not counted"
    );
    assert_eq!(b.esets(n), vec![(n + E, 2, 0, 0b0010)]);
    assert_eq!(b.m.e_bits(2, 0), 0b0010);
    // A tie that the lower index wins while the higher one is not yet flagged: C[0] = 1 joins
    // {1: 1, 3: 1}; the argmax is 0.
    let n = b.edge();
    b.apply(enq(2, 0, 0, 10));
    assert_eq!(b.esets(n), vec![(n + E, 2, 0, 0b0001)]);
    assert_eq!(b.m.e_bits(2, 0), 0b0011);
    assert!(!b.m.is_d(2, 0), "E[o][p][o] never exists");
    assert!(!b.m.is_d(3, 0));
}

#[test]
fn capfc_stop_max_never_flags_zero_counters() {
    let mut b = Bench::new(&cfg(Policy::StopMax));
    // Egress (1, 0) filled past XOFF by its own ingress only: every counter is 0.
    let n = b.edge();
    b.apply(enq(1, 0, 1, 2000));
    b.apply(enq(1, 0, 1, 1000));
    b.apply(enq(1, 0, 1, 500));
    assert_eq!(b.m.egress_occupancy(1, 0), 3500);
    for i in 0..4 {
        assert_eq!(b.m.counter(1, 0, i), 0);
    }
    assert_eq!(b.esets(n), vec![], "all counters zero: nobody flagged");
    assert_eq!(b.m.e_bits(1, 0), 0);
    // One arrival from 3: C[3] = 1 is the only nonzero counter, and is flagged.
    let n = b.edge();
    b.apply(enq(1, 0, 3, 10));
    assert_eq!(b.esets(n), vec![(n + E, 1, 0, 0b1000)]);
    assert_eq!(b.m.e_bits(1, 0), 0b1000);
}

#[test]
fn capfc_pfc_only_policy_counts_but_never_flags() {
    let mut b = Bench::new(&cfg(Policy::PfcOnly));
    b.prefill(0, 0, &[(1, 3), (2, 1)]);
    let t = b.to_xoff(0, 0, 1);
    b.apply(t);
    b.apply(enq(0, 0, 1, 10));
    b.idle(10);
    assert_eq!(b.m.counter(0, 0, 1), 5, "counters are kept for inspection");
    assert_eq!(b.esets(0), vec![]);
    assert_eq!(b.m.e_bits(0, 0), 0);
    assert!(!b.m.calibrating());
    // POLICY = 3 acts as 0.
    let mut b = Bench::new(&cfg(Policy::StopMax));
    b.write(reg::POLICY, 3);
    b.prefill(0, 0, &[(1, 3)]);
    let t = b.to_xoff(0, 0, 1);
    b.apply(t);
    b.idle(10);
    assert_eq!(b.esets(0), vec![]);
    assert!(!b.m.calibrating());
}

// ---------------------------------------------------------------------------------------------
// 4-5. Algorithm 2 (Stop-Calibrate).

/// C8's counters at egress (0, 0) of a 5-port Stop-Calibrate block with `cut`, A..D = inputs
/// 1..4, one arrival short: {A: 49, B: 30, C: 15, D: 5}, B above WARN and below XOFF.
fn c8_bench(cut: (u64, u64)) -> Bench {
    let mut c = cfg(Policy::StopCalibrate);
    c.ports = 5;
    c.counter_bits = 8;
    (c.cut_num, c.cut_den) = cut;
    let mut b = Bench::new(&c);
    b.prefill(0, 0, &[(1, 49), (2, 30), (3, 15), (4, 5)]);
    assert!(!b.m.calibrating(), "below XOFF nothing is requested");
    b
}

/// C8 with `cut`: the 50th arrival from A is the one reaching XOFF, sampled at the returned
/// edge n; steps 12 edges past n.
fn c8_run(cut: (u64, u64)) -> (Bench, usize) {
    let mut b = c8_bench(cut);
    let n = b.edge();
    let t = b.to_xoff(0, 0, 1);
    b.step(t);
    b.idle(12);
    assert_eq!(b.m.egress_occupancy(0, 0), 3000);
    assert_eq!(
        (1..5).map(|i| b.m.counter(0, 0, i)).collect::<Vec<_>>(),
        vec![50, 30, 15, 5]
    );
    (b, n)
}

/// Checks that E of (0, 0) becomes `mask` at edge n + CAL + max(m, 1), m = flagged counters,
/// with the engine busy from the capture at edge n + C until its last flag, `W` + 1 edges before.
fn check_calibration(cut: (u64, u64), mask: u64) {
    let m = mask.count_ones() as usize;
    let mut b = c8_bench(cut);
    let n = b.edge();
    let t = b.to_xoff(0, 0, 1);
    b.step(t);
    let done = n + CAL + m.max(1);
    for k in n + 1..done + D + 2 {
        b.step(idle());
        let busy = (n + C..done - 1 - W).contains(&k);
        assert_eq!(b.m.calibrating(), busy, "CUT {cut:?}: edge n + {}", k - n);
        assert_eq!(
            b.m.csr(reg::STATUS) >> 1 & 1,
            u64::from(busy),
            "STATUS bit 1 at edge n + {}",
            k - n
        );
        let e = if k < done { 0 } else { mask };
        assert_eq!(b.m.e_bits(0, 0), e, "CUT {cut:?}: E at edge n + {}", k - n);
        for i in 1..5usize {
            let d = k > done && mask >> i & 1 == 1;
            assert_eq!(b.m.is_d(i, 0), d, "D of ingress {i} at edge n + {}", k - n);
        }
    }
    assert_eq!(
        b.esets(n),
        vec![(done, 0, 0, mask)],
        "CUT {cut:?}: one eset, at edge n + CAL + {m}"
    );
}

#[test]
fn capfc_c8_stop_calibrate_boundary_flags_exactly_a_and_b() {
    // cum = 50 + 30 = 80 = 0.8 x 100: ">=" stops at {A, B} (">" would add C).
    let (b, n) = c8_run((4, 5));
    assert_eq!(b.esets(n), vec![(n + CAL + 2, 0, 0, 0b00110)]);
    assert_eq!(b.m.e_bits(0, 0), 0b00110);
    check_calibration((4, 5), 0b00110);
}

#[test]
fn capfc_stop_calibrate_latency_follows_the_number_of_flags() {
    // CUT 1/2: A alone (50 >= 50), m = 1.
    check_calibration((1, 2), 0b00010);
    // CUT 3/4: 80 >= 75 after B, m = 2.
    check_calibration((3, 4), 0b00110);
    // CUT 81/100: 80 < 81, 95 >= 81: {A, B, C}, m = 3.
    check_calibration((81, 100), 0b01110);
    // CUT 1: all four nonzero counters, m = 4.
    check_calibration((5, 5), 0b11110);
}

#[test]
fn capfc_stop_calibrate_with_all_counters_zero_runs_one_empty_edge() {
    let mut b = Bench::new(&cfg(Policy::StopCalibrate));
    // Egress (2, 1) filled to XOFF by its own ingress: S = 0.
    b.apply(enq(2, 1, 2, 2000));
    let n = b.edge();
    b.step(enq(2, 1, 2, 1000));
    // Capture at n + C, sum at n + C + 1, scale at n + C + 2, one empty edge at n + C + 3 =
    // n + CAL - 1 + max(0, 1).
    let mut busy = Vec::new();
    for _ in 0..C + 4 {
        b.step(idle());
        busy.push(b.m.calibrating());
    }
    let mut expected = vec![false; C - 1];
    expected.extend([true, true, true, false, false]);
    assert_eq!(busy, expected);
    assert_eq!(b.esets(n), vec![]);
    assert_eq!(b.m.e_bits(2, 1), 0);
}

#[test]
fn capfc_c9_cut_one_flags_every_nonzero_contributor() {
    let mut c = cfg(Policy::StopCalibrate);
    c.ports = 5;
    let mut b = Bench::new(&c);
    // CUT = 200/200 = 1, written at run time.
    b.write(reg::CUT, 200 | 200 << 8);
    assert_eq!(b.m.csr(reg::CUT), 200 | 200 << 8);
    // Egress (0, 1): {1: 3, 2: 1, 3: 0, 4: 7} after the trigger from 4.
    b.prefill(0, 1, &[(1, 3), (2, 1), (4, 6)]);
    let n = b.edge();
    let t = b.to_xoff(0, 1, 4);
    b.step(t);
    b.idle(10 + W);
    assert_eq!(b.m.counter(0, 1, 4), 7);
    assert_eq!(b.m.counter(0, 1, 3), 0);
    // Three selections (4, then 1, then 2): E at n + CAL + 3.
    assert_eq!(b.esets(n), vec![(n + CAL + 3, 0, 1, 0b10110)]);
    assert_eq!(
        b.m.e_bits(0, 1),
        0b10110,
        "input 3 (zero) and 0 (diagonal) not flagged"
    );
    assert!(!b.m.is_d(3, 1) && !b.m.is_d(0, 1));
    assert!(b.m.is_d(1, 1) && b.m.is_d(2, 1) && b.m.is_d(4, 1));
}

#[test]
fn capfc_stop_calibrate_ties_go_to_lowest_index() {
    let mut c = cfg(Policy::StopCalibrate);
    c.ports = 5;
    (c.cut_num, c.cut_den) = (1, 3);
    let mut b = Bench::new(&c);
    // {2: 5, 3: 5, 4: 5} on egress (1, 0), the last arrival (from 4) reaching XOFF.
    b.prefill(1, 0, &[(4, 4), (3, 5), (2, 5)]);
    let n = b.edge();
    let t = b.to_xoff(1, 0, 4);
    b.step(t);
    b.idle(8);
    // S = 15, CUT 1/3: the first selection (5) reaches 5 >= 15/3; the tie goes to input 2.
    assert_eq!(b.esets(n), vec![(n + CAL + 1, 1, 0, 0b00100)]);
}

#[test]
fn capfc_stop_calibrate_result_is_monotone_until_xon() {
    // A second request of the same (o, p) adds flags; none is removed before XON.
    let mut c = cfg(Policy::StopCalibrate);
    (c.cut_num, c.cut_den) = (1, 2);
    let mut b = Bench::new(&c);
    b.prefill(0, 0, &[(1, 4), (2, 3)]);
    let t = b.to_xoff(0, 0, 1); // C = {1: 5, 2: 3}: 5 >= 8/2 -> {1}
    b.apply(t);
    b.idle(5 + W);
    assert_eq!(b.m.e_bits(0, 0), 0b010);
    // Input 1 is paused upstream; input 2 keeps arriving: {1: 5, 2: 6} -> {2}.
    for _ in 0..3 {
        b.step(enq(0, 0, 2, 1));
        b.idle(6 + W);
    }
    assert_eq!(b.m.counter(0, 0, 2), 6);
    assert_eq!(b.m.e_bits(0, 0), 0b110, "E[1] stays set, E[2] added");
}

// ---------------------------------------------------------------------------------------------
// 6-8. Thresholds, same-cycle events, MAX.

#[test]
fn capfc_warn_equal_xon_dequeue_to_warn_resets_counters_and_clears_e_on_one_edge() {
    let mut b = Bench::new(&cfg(Policy::StopMax));
    b.prefill(0, 0, &[(1, 1)]);
    let t = b.to_xoff(0, 0, 2); // C = {1: 1, 2: 1}: tie -> E[1]
    b.apply(t);
    assert_eq!(b.m.e_bits(0, 0), 0b010);
    let out = b.apply(deq(0, 0, 999));
    assert_eq!(b.m.egress_occupancy(0, 0), 2001);
    assert_eq!(out.eclr_valid, 0, "2001 > XON");
    assert_eq!((b.m.counter(0, 0, 1), b.m.counter(0, 0, 2)), (1, 1));
    assert_eq!(b.m.e_bits(0, 0), 0b010);
    // Exactly WARN = XON: both on the same edge.
    let n = b.edge();
    let out = b.apply(deq(0, 0, 1));
    assert_eq!(b.m.egress_occupancy(0, 0), 2000);
    assert_eq!(
        (out.eclr_valid, out.eclr_port, out.eclr_prio, out.eclr_mask),
        (1, 0, 0, 0b010)
    );
    assert_eq!(
        (b.log[n + E - 1].eclr_valid, b.log[n + E].eclr_valid),
        (0, 1),
        "eclr shown at the E latency after the dequeue"
    );
    assert_eq!((b.m.counter(0, 0, 1), b.m.counter(0, 0, 2)), (0, 0));
    assert_eq!(b.m.e_bits(0, 0), 0);
    assert!(!b.m.is_d(1, 0));
}

#[test]
fn capfc_warn_above_xon_resets_counters_first_and_clears_e_later() {
    let mut c = cfg(Policy::StopMax);
    c.eg_warn = 2500;
    let mut b = Bench::new(&c);
    b.prefill(0, 0, &[(1, 1)]);
    let t = b.to_xoff(0, 0, 2);
    b.apply(t);
    assert_eq!(b.m.e_bits(0, 0), 0b010);
    b.apply(deq(0, 0, 499)); // 2501
    assert_eq!((b.m.counter(0, 0, 1), b.m.counter(0, 0, 2)), (1, 1));
    let out = b.apply(deq(0, 0, 1)); // 2500 = WARN
    assert_eq!((b.m.counter(0, 0, 1), b.m.counter(0, 0, 2)), (0, 0));
    assert_eq!(out.eclr_valid, 0, "above XON: E holds");
    assert_eq!(b.m.e_bits(0, 0), 0b010);
    // Back above WARN, arrivals count again; E clears only at XON.
    b.apply(enq(0, 0, 3, 1)); // 2501
    assert_eq!(b.m.counter(0, 0, 3), 1);
    b.apply(deq(0, 0, 1)); // 2500: reset again
    assert_eq!(b.m.counter(0, 0, 3), 0);
    let out = b.apply(deq(0, 0, 500)); // 2000 = XON
    assert_eq!((out.eclr_valid, out.eclr_mask), (1, 0b010));
    assert_eq!(b.m.e_bits(0, 0), 0);
    // Between XON and WARN arrivals are not counted.
    b.apply(enq(0, 0, 3, 499)); // 2499 < WARN
    assert_eq!(b.m.counter(0, 0, 3), 0);
}

#[test]
fn capfc_same_cycle_dequeue_then_enqueue_at_warn_equal_xon() {
    let mut b = Bench::new(&c10_cfg());
    for _ in 0..19 {
        b.step(enq(0, 0, 3, 1000));
    }
    b.apply(enq(0, 0, 2, 1000));
    assert_eq!(b.m.egress_occupancy(0, 0), 20_000);
    assert_eq!(b.m.counter(0, 0, 2), 1);
    // §2.10: dequeue first (19 KB <= WARN resets C), then the enqueue (20 KB >= WARN) counts.
    b.apply(with_deq(enq(0, 0, 1, 1000), deq(0, 0, 1000)));
    assert_eq!(b.m.egress_occupancy(0, 0), 20_000);
    assert_eq!(b.m.counter(0, 0, 1), 1, "C[i] = 1");
    assert_eq!(b.m.counter(0, 0, 2), 0, "reset by the dequeue");
    // The same with E bits: at 21 KB with E = {1}, dequeue + enqueue from 2 in one edge.
    for _ in 0..5 {
        b.apply(enq(0, 0, 1, 1000));
    }
    assert_eq!(b.m.egress_occupancy(0, 0), 25_000);
    assert_eq!(b.m.e_bits(0, 0), 0b010);
    for _ in 0..4 {
        b.apply(deq(0, 0, 1000));
    }
    assert_eq!(b.m.egress_occupancy(0, 0), 21_000);
    assert_eq!(b.m.counter(0, 0, 1), 6);
    let out = b.apply(with_deq(enq(0, 0, 2, 1000), deq(0, 0, 1000)));
    assert_eq!(b.m.egress_occupancy(0, 0), 21_000);
    assert_eq!(
        (out.eclr_valid, out.eclr_mask, out.eset_valid),
        (1, 0b010, 0),
        "E cleared at 20 KB; 21 KB < XOFF sets nothing"
    );
    assert_eq!((b.m.counter(0, 0, 1), b.m.counter(0, 0, 2)), (0, 1));
    assert_eq!(b.m.e_bits(0, 0), 0);
}

#[test]
fn capfc_same_cycle_dequeue_and_enqueue_report_net_e_change() {
    // XOFF - XON = 1000: a dequeue to XON and an arrival back to XOFF in one edge clear E[1]
    // and (Stop-Max, C reset, then C[2] = 1) set E[2]: both messages, for the net change.
    let mut b = Bench::new(&cfg(Policy::StopMax));
    b.prefill(0, 0, &[(1, 1)]);
    let t = b.to_xoff(0, 0, 1);
    b.apply(t);
    assert_eq!(b.m.e_bits(0, 0), 0b010);
    let out = b.apply(with_deq(enq(0, 0, 2, 1000), deq(0, 0, 1000)));
    assert_eq!(b.m.egress_occupancy(0, 0), 3000);
    assert_eq!((out.eclr_valid, out.eclr_mask), (1, 0b010));
    assert_eq!((out.eset_valid, out.eset_mask), (1, 0b100));
    assert_eq!(b.m.e_bits(0, 0), 0b100);
    // Cleared and set again on one edge: no message for E[2].
    let out = b.apply(with_deq(enq(0, 0, 2, 1000), deq(0, 0, 1000)));
    assert_eq!((out.eclr_valid, out.eset_valid), (0, 0), "net: no change");
    assert_eq!(b.m.e_bits(0, 0), 0b100);
    // E = {1, 2} (C = {1: 2, 2: 1}); cleared and {2} set again on one edge: eclr names only 1.
    b.apply(enq(0, 0, 1, 1));
    b.apply(enq(0, 0, 1, 1));
    assert_eq!(b.m.e_bits(0, 0), 0b110);
    let out = b.apply(with_deq(enq(0, 0, 2, 1000), deq(0, 0, 1002)));
    assert_eq!(b.m.egress_occupancy(0, 0), 3000);
    assert_eq!(
        (out.eclr_valid, out.eclr_mask),
        (1, 0b010),
        "net clear: input 1 only"
    );
    assert_eq!(out.eset_valid, 0, "E[2] was set before and after");
    assert_eq!(b.m.e_bits(0, 0), 0b100);
}

#[test]
fn capfc_max_drops_leave_occupancy_and_counters() {
    let mut b = Bench::new(&cfg(Policy::StopMax));
    // Egress (0, 0): 2999 B from input 0 (diagonal), then C = {1: 2, 2: 2}, E = {1}, B = 4500.
    b.apply(enq(0, 0, 0, 2000));
    b.apply(enq(0, 0, 0, 999));
    for (input, len) in [(1, 500), (2, 500), (1, 500), (2, 1)] {
        b.apply(enq(0, 0, input, len));
    }
    assert_eq!(b.m.egress_occupancy(0, 0), 4500);
    assert_eq!((b.m.counter(0, 0, 1), b.m.counter(0, 0, 2)), (2, 2));
    assert_eq!(b.m.e_bits(0, 0), 0b010);
    // 4500 + 501 > MAX = 5000: dropped, not counted (C[2] = 3 > 2 would have flagged 2).
    let out = b.apply(enq(0, 0, 2, 501));
    assert_eq!(out.eg_drop, 1);
    assert_eq!(out.eset_valid, 0);
    assert_eq!(b.m.egress_occupancy(0, 0), 4500);
    assert_eq!((b.m.counter(0, 0, 1), b.m.counter(0, 0, 2)), (2, 2));
    assert_eq!(b.m.e_bits(0, 0), 0b010);
    assert_eq!(b.log[b.log.len() - 2].eg_drop, 0, "eg_drop has latency one");
    // Exactly MAX is accepted and counted.
    let out = b.apply(enq(0, 0, 2, 500));
    assert_eq!(out.eg_drop, 0);
    assert_eq!(b.m.egress_occupancy(0, 0), 5000);
    assert_eq!(b.m.counter(0, 0, 2), 3);
    assert_eq!((out.eset_valid, out.eset_mask), (1, 0b100));
    // Ingress MAX (6000): in_drop, occupancy and I unchanged.
    b.apply(in_enq(1, 0, 2000));
    b.apply(in_enq(1, 0, 2000));
    b.apply(in_enq(1, 0, 1800));
    assert!(b.m.is_i(1, 0));
    assert_eq!(b.in_drop(in_enq(1, 0, 201)), 1);
    assert_eq!(b.m.ingress_occupancy(1, 0), 5800);
    assert!(b.m.is_i(1, 0));
    assert_eq!(b.in_drop(in_enq(1, 0, 200)), 0);
    assert_eq!(b.m.ingress_occupancy(1, 0), 6000);
}

#[test]
fn capfc_ingress_xoff_xon_hysteresis_sets_and_clears_i() {
    let mut b = Bench::new(&cfg(Policy::StopMax));
    b.apply_in(in_enq(2, 1, 3999));
    assert!(!b.m.is_i(2, 1));
    b.apply_in(in_enq(2, 1, 1));
    assert!(b.m.is_i(2, 1), "4000 >= IN_XOFF");
    b.apply_in(in_deq(2, 1, 1499));
    assert!(b.m.is_i(2, 1), "2501 > IN_XON");
    b.apply_in(in_deq(2, 1, 1));
    assert!(!b.m.is_i(2, 1), "2500 <= IN_XON");
    assert_eq!(b.m.ingress_occupancy(2, 1), 2500);
}

// ---------------------------------------------------------------------------------------------
// 9. Counter saturation.

#[test]
fn capfc_counter_at_max_halves_the_row_then_increments() {
    let mut c = cfg(Policy::PfcOnly);
    c.counter_bits = 3;
    let mut b = Bench::new(&c);
    b.prefill(0, 0, &[(1, 7), (2, 5), (3, 2)]);
    assert_eq!(b.m.csr(reg::ERR), 0);
    // An arrival on a counter below its maximum does not halve, even with C[1] = 7.
    b.apply(enq(0, 0, 2, 1));
    assert_eq!(b.m.counter(0, 0, 2), 6);
    assert_eq!(b.m.csr(reg::ERR), 0);
    // C[1] = 7 = max: {7, 6, 2} -> {3, 3, 1}, then C[1] + 1.
    b.apply(enq(0, 0, 1, 1));
    assert_eq!(
        (1..4).map(|i| b.m.counter(0, 0, i)).collect::<Vec<_>>(),
        vec![4, 3, 1]
    );
    assert_eq!(b.m.csr(reg::ERR), ERR_SATURATION);
    assert_eq!(b.m.counter(0, 0, 0), 0);
}

#[test]
fn capfc_counter_saturates_when_policy_says_so() {
    // Through the POLICY register's bit 2.
    let mut c = cfg(Policy::PfcOnly);
    c.counter_bits = 3;
    let mut b = Bench::new(&c);
    b.write(reg::POLICY, POLICY_SATURATE);
    b.prefill(0, 0, &[(1, 7), (2, 5)]);
    assert_eq!(b.m.csr(reg::ERR), 0);
    b.apply(enq(0, 0, 1, 1));
    assert_eq!((b.m.counter(0, 0, 1), b.m.counter(0, 0, 2)), (7, 5));
    assert_eq!(b.m.csr(reg::ERR), ERR_SATURATION);
    // ERR is write-1-to-clear; the next saturating arrival flags it again.
    b.write(reg::ERR, ERR_SATURATION);
    assert_eq!(b.m.csr(reg::ERR), 0);
    b.apply(enq(0, 0, 1, 1));
    assert_eq!(b.m.counter(0, 0, 1), 7);
    assert_eq!(b.m.csr(reg::ERR), ERR_SATURATION);

    // Through the config (the POLICY reset value), with Stop-Max: the argmax stays valid.
    let mut c = cfg(Policy::StopMax);
    c.counter_bits = 3;
    c.saturation = Saturation::Saturate;
    let mut b = Bench::new(&c);
    assert_eq!(b.m.csr(reg::POLICY), 1 | POLICY_SATURATE);
    b.prefill(1, 0, &[(2, 7), (3, 6)]);
    b.apply(enq(1, 0, 2, 1));
    assert_eq!((b.m.counter(1, 0, 2), b.m.counter(1, 0, 3)), (7, 6));
    assert_eq!(b.m.csr(reg::ERR), ERR_SATURATION);
    let t = b.to_xoff(1, 0, 3); // C[3] = 7 ties C[2] = 7: lowest index 2
    b.apply(t);
    assert_eq!(b.m.e_bits(1, 0), 0b0100);
}

// ---------------------------------------------------------------------------------------------
// 10. D and the frames (§7.2 C7).

#[test]
fn capfc_c7_d_is_i_or_any_e_and_drives_frames() {
    const P: u64 = 3;
    let mut c = cfg(Policy::StopMax);
    c.ports = 5;
    c.priorities = 4;
    c.quanta = 0x1234;
    let mut b = Bench::new(&c);
    // Every frame states all 4 classes of its port: P paused (QUANTA) or resumed (0).
    let (pbit, all) = (1 << P, 0b1111);
    let pause = |port| (port, all, pbit);
    let resume = |port| (port, all, 0);
    // I alone raises D (at its latency); the round robin grants the port on the next edge and
    // the PAUSE frame follows on the edge after.
    let n = b.edge();
    b.step(in_enq(0, P, 4000));
    for _ in 1..I_LATENCY {
        b.step(idle());
        assert!(!b.m.is_i(0, P as usize), "I is decided at its latency");
    }
    b.step(idle());
    assert!(b.m.is_i(0, P as usize) && b.m.is_d(0, P as usize));
    assert_eq!(b.step(idle()).frame_valid, 0, "the grant's edge");
    let f = b.step(idle());
    assert_eq!(
        (
            f.frame_valid,
            f.frame_port,
            f.frame_class_enable,
            f.frame_pause
        ),
        (1, 0, all, pbit)
    );
    assert_eq!(f.frame_quanta, 0x1234);
    assert_eq!(b.frames(n), vec![pause(0)]);
    let n = b.edge();
    b.apply_in(in_deq(0, P, 1500));
    assert!(!b.m.is_d(0, P as usize));
    b.idle(3);
    assert_eq!(b.frames(n), vec![resume(0)], "RESUME when D falls");

    // E of input 0 at egresses 1, 2 and 4 (priority P): D_P^0 rises once.
    let n = b.edge();
    for o in [1, 2, 4] {
        b.prefill(o, P, &[(0, 1)]);
        let t = b.to_xoff(o, P, 0);
        b.apply(t);
        assert_eq!(b.m.e_bits(o as usize, P as usize), 0b00001);
        assert!(b.m.is_d(0, P as usize));
    }
    b.idle(3);
    assert_eq!(b.frames(n), vec![pause(0)], "one PAUSE for the first E");
    for i in 1..5 {
        assert!(!b.m.is_d(i, P as usize));
    }
    // Clearing egress 1 and 2 (XON) keeps D high: no frame.
    let n = b.edge();
    for o in [1, 2] {
        let out = b.apply(deq(o, P, 1000));
        assert_eq!((out.eclr_valid, out.eclr_port, out.eclr_mask), (1, o, 1));
        assert!(b.m.is_d(0, P as usize), "E of egress 4 still set");
    }
    // I rises too (2500 -> 4000), then egress 4 clears: D held by I.
    b.apply_in(in_enq(0, P, 1500));
    b.apply(deq(4, P, 1000));
    assert_eq!(b.m.e_bits(4, P as usize), 0);
    assert!(b.m.is_d(0, P as usize), "I alone holds D");
    b.idle(3);
    assert_eq!(b.frames(n), vec![], "D never fell");
    // I falls: D falls, RESUME.
    let n = b.edge();
    b.apply_in(in_deq(0, P, 1500));
    assert!(!b.m.is_d(0, P as usize));
    b.idle(3);
    assert_eq!(b.frames(n), vec![resume(0)]);
}

#[test]
fn capfc_d_refresh_resends_pause_while_d_holds() {
    let mut c = cfg(Policy::StopMax);
    c.refresh = 16;
    let mut b = Bench::new(&c);
    b.prefill(1, 0, &[(2, 1)]);
    let t = b.to_xoff(1, 0, 2);
    b.apply(t);
    assert!(b.m.is_d(2, 0));
    let n = b.edge();
    b.idle(64);
    let f = b.frames(n);
    assert!(f.len() >= 3, "{f:?}");
    // Every class of the port (tiny has 2), class 0 paused.
    assert!(f.iter().all(|&x| x == (2, 0b11, 1)), "{f:?}");
    // D falls: one RESUME, then no more refreshes.
    let n = b.edge();
    b.apply(deq(1, 0, 1000));
    assert!(!b.m.is_d(2, 0));
    b.idle(64);
    let f = b.frames(n);
    let resume = f.iter().position(|&x| x == (2, 0b11, 0)).expect("a RESUME");
    assert!(f[..resume].iter().all(|&x| x == (2, 0b11, 1)), "{f:?}");
    assert_eq!(resume, f.len() - 1, "nothing after the RESUME: {f:?}");
}

// ---------------------------------------------------------------------------------------------
// 11. Calibration requests while the engine is busy.

/// Stop-Calibrate, 5 ports, CUT = 1: egress (1, 0) with {0: 3, 3: 1} and egress (2, 0) with
/// {4: 2}, both one arrival short of XOFF.
fn two_queues(warn: u64) -> Bench {
    let mut c = cfg(Policy::StopCalibrate);
    c.ports = 5;
    (c.cut_num, c.cut_den) = (1, 1);
    c.eg_warn = warn;
    let mut b = Bench::new(&c);
    b.prefill(1, 0, &[(0, 3), (3, 1)]);
    b.prefill(2, 0, &[(4, 2)]);
    b
}

/// Issue 31 item 4: the engine reads a waiting request's row on a port of its own, so a
/// request is served right after the running calibration even when the egress enqueue bus is
/// busy on every edge (it used to wait for an idle edge, forever under full load).
#[test]
fn capfc_request_during_calibration_is_served_next_under_a_busy_enqueue_bus() {
    let mut b = two_queues(2000);
    let n = b.edge();
    let ta = b.to_xoff(1, 0, 0); // {0: 4, 3: 1}: m = 2, E at n + CAL + 2
    b.step(ta);
    let tb = b.to_xoff(2, 0, 4); // {4: 3}, requests at n + 1 + C while the engine is busy
    b.step(tb);
    // Keep the egress enqueue bus busy (queue (3, 1), below WARN) through n + 16.
    for _ in n + 2..=n + 16 {
        b.step(enq(3, 1, 0, 1));
    }
    // The same edges as with an idle bus (the next test): the engine's last flag is at
    // done - 1, the waiting row's read then starts it at done: sum, scale, one flag, the E
    // stage.
    let done = n + CAL + 2;
    assert_eq!(
        b.esets(n),
        vec![(done, 1, 0, 0b01001), (done + 4, 2, 0, 0b10000)]
    );
    assert_eq!(b.m.e_bits(2, 0), 0b10000);
    assert!(!b.m.calibrating());
}

/// Waiting requests are served round robin by key, and a request that finds another one
/// waiting queues even when the engine is idle, so a queue whose enqueues keep requesting
/// cannot take the engine twice from one that waits.
#[test]
fn capfc_waiting_requests_are_served_round_robin_under_repeated_requests() {
    let mut b = two_queues(2000);
    let n = b.edge();
    let ta = b.to_xoff(1, 0, 0); // m = 2
    b.step(ta);
    let tb = b.to_xoff(2, 0, 4); // waits
    b.step(tb);
    // (1, 0) stays above XOFF: each of its enqueues requests again.
    for _ in n + 2..=n + 24 {
        b.step(enq(1, 0, 0, 1));
    }
    let done = n + CAL + 2;
    let es = b.esets(n);
    assert_eq!(es[0], (done, 1, 0, 0b01001));
    // From the pointer at key 0, (1, 0)'s own waiting request (key 1) comes before (2, 0)'s
    // (key 2): captured at done, sum, scale, two flags (CUT = 1), idle after done + 4; then
    // (2, 0), although (1, 0) requests again on every edge: capture at done + 5, sum, scale,
    // one flag, the E stage at done + 9.
    assert_eq!(es[1], (done + 9, 2, 0, 0b10000), "{es:?}");
}

/// Issue 31 item 4: the reaction is bounded under 100 % egress enqueue load. Every egress queue
/// of `tiny` (K = 8 of them, P = 4 ports) crosses XOFF on consecutive edges while an egress
/// enqueue arrives on every edge, so the requests pile up behind one engine. The first E set of
/// each queue comes at most C + W + (K + 1)(P + 2) edges after the enqueue that crossed XOFF
/// (docs/blocks/capfc.md: the request waits for the running calibration and one calibration of
/// every other waiting queue, each at most P + 2 edges, then takes at most P + 2 itself, and
/// its E set waits W edges more).
#[test]
fn capfc_reaction_is_bounded_under_full_egress_enqueue_load() {
    let seed = common::seed();
    let mut rng = switchcraft_core::rng::SplitMix64::new(seed);
    let cfg = CapfcConfig::preset("tiny").unwrap();
    let (ports, prios) = (u64::from(cfg.ports), u64::from(cfg.priorities));
    let (p, k) = (ports as usize, (ports * prios) as usize);
    let bound = C + W + (k + 1) * (p + 2);
    let mut b = Bench::new(&cfg);
    let other = |rng: &mut switchcraft_core::rng::SplitMix64, o: u64| {
        (o + 1 + rng.below(ports - 1)) % ports
    };
    let mut keys = Vec::new();
    for o in 0..ports {
        for pr in 0..prios {
            let counts: Vec<(u64, u64)> = (0..ports)
                .filter(|&i| i != o)
                .map(|i| (i, rng.below(4)))
                .collect();
            b.prefill(o, pr, &counts);
            keys.push((o, pr));
        }
    }
    // Cross XOFF, one queue per edge, in a seeded order; then random 1-byte arrivals at every
    // queue, one on every edge (each stays between XOFF and MAX).
    for j in (1..keys.len()).rev() {
        keys.swap(j, rng.below(j as u64 + 1) as usize);
    }
    let start = b.edge();
    let mut crossed = Vec::new();
    for &(o, pr) in &keys {
        let len = b.m.csr(reg::EG_XOFF) - b.m.egress_occupancy(o as usize, pr as usize);
        crossed.push((b.edge(), o, pr));
        let input = other(&mut rng, o);
        b.step(enq(o, pr, input, len));
    }
    for _ in 0..bound + 8 {
        let (o, pr) = keys[rng.below(keys.len() as u64) as usize];
        let input = other(&mut rng, o);
        b.step(enq(o, pr, input, 1));
    }
    let esets = b.esets(start);
    let mut worst = 0;
    for (n, o, pr) in crossed {
        let first = esets.iter().find(|e| (e.1, e.2) == (o, pr));
        let Some(&(at, ..)) = first else {
            panic!("seed {seed}: ({o}, {pr}) crossed XOFF at edge {n} and got no E: {esets:?}");
        };
        let latency = at - n;
        assert!(
            latency <= bound,
            "seed {seed}: ({o}, {pr}) waited {latency} edges, bound {bound}: {esets:?}"
        );
        worst = worst.max(latency);
    }
    // The requests did queue: the last queue waited for most of the others.
    assert!(
        worst >= (k - 2) * 3,
        "seed {seed}: worst latency {worst} shows no queueing"
    );
}

#[test]
fn capfc_pending_request_is_served_once_the_engine_is_idle() {
    // With the bus idle, the pending request starts right after the running one ends.
    let mut b = two_queues(2000);
    let n = b.edge();
    let ta = b.to_xoff(1, 0, 0);
    b.step(ta);
    let tb = b.to_xoff(2, 0, 4);
    b.step(tb);
    b.idle(14);
    let es = b.esets(n);
    assert_eq!(es.len(), 2, "{es:?}");
    let done = n + CAL + 2;
    assert_eq!(es[0], (done, 1, 0, 0b01001));
    // The engine's last flag is at done - 1; the pending read issued then starts it at done:
    // sum at done + 1, scale at done + 2, one flag at done + 3, E at done + 4.
    assert_eq!(
        es[1],
        (done + 4, 2, 0, 0b10000),
        "served after the engine finished"
    );
    assert_eq!(b.m.e_bits(2, 0), 0b10000);
}

#[test]
fn capfc_xon_of_running_calibration_cancels_its_result() {
    let mut b = two_queues(2000);
    let n = b.edge();
    let ta = b.to_xoff(1, 0, 0);
    b.step(ta); // capture at n + C
    b.step(deq(1, 0, 1000)); // 2000 <= XON at n + 1 + C, before the result at n + CAL + 2
    b.idle(12);
    assert_eq!(b.esets(n), vec![], "result dropped");
    assert_eq!(b.m.e_bits(1, 0), 0);
    assert!(!b.m.calibrating());
    assert!(!b.m.is_d(0, 0) && !b.m.is_d(3, 0));
    // Control: a dequeue that stays above XON does not cancel.
    let mut b = two_queues(2000);
    let n = b.edge();
    let ta = b.to_xoff(1, 0, 0);
    b.step(ta);
    b.step(deq(1, 0, 1));
    b.idle(12);
    assert_eq!(b.esets(n), vec![(n + CAL + 2, 1, 0, 0b01001)]);
}

#[test]
fn capfc_warn_reset_of_running_calibration_cancels_its_result() {
    // WARN 2500 > XON 2000: a dequeue to WARN resets the counters the engine captured; the
    // result is dropped although E is not cleared (it stays as it was: empty).
    let mut b = two_queues(2500);
    let n = b.edge();
    let ta = b.to_xoff(1, 0, 0);
    b.step(ta); // capture at n + C
    let to_warn = b.m.csr(reg::EG_XOFF) - 2500; // ta acts at the next edge
    b.step(deq(1, 0, to_warn)); // B = 2500 = WARN at n + 1 + C, before the result at n + CAL + 2
    b.idle(12);
    assert_eq!(b.esets(n), vec![], "result dropped");
    assert_eq!(b.m.e_bits(1, 0), 0);
    assert!(!b.m.calibrating());
    assert_eq!(b.m.counter(1, 0, 0), 0, "counters reset");
}

#[test]
fn capfc_xon_above_warn_by_csr_still_drops_a_pending_request() {
    // Software writes XON 2600 above WARN 2500 (the config check forbids it, the CSRs do not):
    // a dequeue to 2550 (XON, not WARN) clears E and drops the pending request of (2, 0).
    let mut b = two_queues(2500);
    b.write(reg::EG_XON, 2600);
    let n = b.edge();
    let ta = b.to_xoff(1, 0, 0);
    b.step(ta);
    let tb = b.to_xoff(2, 0, 4);
    b.step(tb);
    let to_xon = b.m.csr(reg::EG_XOFF) - 2550; // tb acts at the next edge
    b.step(deq(2, 0, to_xon));
    b.idle(20);
    assert_eq!(
        b.esets(n),
        vec![(n + CAL + 2, 1, 0, 0b01001)],
        "no second calibration"
    );
    assert_eq!(b.m.e_bits(2, 0), 0);
    assert_eq!(b.m.counter(2, 0, 4), 3, "above WARN: counters kept");
}

#[test]
fn capfc_warn_reset_drops_a_pending_request() {
    // WARN 2500 > XON 2000: the dequeue to WARN resets (2, 0)'s counters, leaves its E alone,
    // and drops its pending request.
    let mut b = two_queues(2500);
    let n = b.edge();
    let ta = b.to_xoff(1, 0, 0);
    b.step(ta);
    let tb = b.to_xoff(2, 0, 4);
    b.step(tb);
    // (2, 0) back to 2500 = WARN in the counter stage at n + 2 + C, after its request went
    // pending and while the engine is still on (1, 0).
    b.step(deq(2, 0, 500));
    // New arrivals above WARN are counted again (C[3] = 3): a request that survived the reset
    // would flag input 3 once served.
    for _ in 0..3 {
        b.step(enq(2, 0, 3, 1));
    }
    for _ in 0..20 {
        b.step(idle());
        assert!(!b.m.calibrating(), "no second calibration starts");
    }
    assert_eq!(
        b.esets(n),
        vec![(n + CAL + 2, 1, 0, 0b01001)],
        "no second calibration"
    );
    assert_eq!((b.m.counter(2, 0, 4), b.m.counter(2, 0, 3)), (0, 3));
    assert_eq!(b.m.egress_occupancy(2, 0), 2503);
    assert_eq!(b.m.e_bits(2, 0), 0);
    // Control: without the dequeue the request is served.
    let mut b = two_queues(2500);
    let n = b.edge();
    let ta = b.to_xoff(1, 0, 0);
    b.step(ta);
    let tb = b.to_xoff(2, 0, 4);
    b.step(tb);
    b.idle(20);
    assert_eq!(b.esets(n).len(), 2);
    assert_eq!(b.m.e_bits(2, 0), 0b10000);
}

#[test]
fn capfc_cut_written_during_a_calibration_applies_to_the_next_one() {
    // CUT = 1 flags both of {0: 4, 3: 1}; lowering CUT to 1/2 while the engine runs must not
    // stop it after the first counter: CUT is latched at the capture.
    let mut b = two_queues(2000);
    let n = b.edge();
    let ta = b.to_xoff(1, 0, 0);
    b.step(ta);
    b.idle(C - 1);
    assert!(!b.m.calibrating());
    b.write(reg::CUT, 1 | 2 << 8); // capture at n + C, with the CUT before this write
    assert!(b.m.calibrating());
    b.idle(10);
    assert_eq!(b.esets(n), vec![(n + CAL + 2, 1, 0, 0b01001)]);
    // The next calibration uses 1/2: after draining (1, 0), the same counts flag input 0
    // alone.
    b.step(deq(1, 0, b.m.egress_occupancy(1, 0)));
    b.idle(1);
    b.prefill(1, 0, &[(0, 3), (3, 1)]);
    let n = b.edge();
    let ta = b.to_xoff(1, 0, 0);
    b.step(ta);
    b.idle(10);
    assert_eq!(b.esets(n), vec![(n + CAL + 1, 1, 0, 0b00001)]);
}

#[test]
fn capfc_calibration_result_stands_only_under_stop_calibrate() {
    let mut b = two_queues(2000);
    let n = b.edge();
    let ta = b.to_xoff(1, 0, 0);
    b.step(ta);
    b.idle(C - 1);
    // Switch to PFC-only on the capture's edge: the engine runs under the old policy.
    b.write(reg::POLICY, 0);
    assert!(b.m.calibrating());
    b.idle(10);
    assert_eq!(b.esets(n), vec![]);
    assert_eq!(b.m.e_bits(1, 0), 0);
}

// ---------------------------------------------------------------------------------------------
// 12. Inspection.

#[test]
fn capfc_inspect_counter_snapshot_waits_for_an_edge_without_egress_enqueue() {
    let mut b = Bench::new(&cfg(Policy::StopMax));
    b.prefill(1, 1, &[(0, 3), (2, 2)]);
    assert_eq!(b.m.csr(reg::STATUS), 0);
    // Write INSPECT (egress 1, priority 1, input 0) along with an arrival from 0.
    b.step(with_write(enq(1, 1, 0, 10), reg::INSPECT, inspect(1, 1, 0)));
    assert_eq!(b.m.csr(reg::INSPECT), inspect(1, 1, 0));
    assert_eq!(b.m.csr(reg::STATUS) & 1, 1, "snapshot pending");
    b.step(enq(1, 1, 0, 10));
    assert_eq!(b.m.csr(reg::STATUS) & 1, 1);
    b.step(enq(1, 1, 2, 10));
    assert_eq!(b.m.csr(reg::STATUS) & 1, 1, "the bus is still busy");
    assert_eq!(b.read(reg::STATUS) & 1, 1, "and software sees it busy");
    // That read was an edge without an egress enqueue: the occupancy stage holds none on the
    // next edge, whose read port takes the snapshot; it shows one edge later.
    b.step(idle());
    assert_eq!(b.m.csr(reg::STATUS) & 1, 1, "reading");
    b.step(idle());
    assert_eq!(b.m.csr(reg::STATUS) & 1, 0, "done");
    assert_eq!(
        b.m.csr(reg::INSPECT_COUNTER),
        5,
        "3 + the two arrivals from 0"
    );
    assert_eq!(b.m.counter(1, 1, 0), 5);
    assert_eq!(b.read(reg::INSPECT_COUNTER), 5);
    // A snapshot: later arrivals do not change it.
    b.apply(enq(1, 1, 0, 10));
    assert_eq!(b.m.counter(1, 1, 0), 6);
    assert_eq!(b.read(reg::INSPECT_COUNTER), 5);
    // A new write takes a new snapshot: input 2, then the diagonal (always 0).
    b.write(reg::INSPECT, inspect(1, 1, 2));
    b.idle(2);
    assert_eq!(b.read(reg::INSPECT_COUNTER), 3);
    b.write(reg::INSPECT, inspect(1, 1, 1));
    b.idle(2);
    assert_eq!(b.read(reg::INSPECT_COUNTER), 0);
    assert_eq!(b.read(reg::STATUS), 0);
}

#[test]
fn capfc_inspect_counter_exact_timing_with_an_idle_bus() {
    let mut b = Bench::new(&cfg(Policy::PfcOnly));
    b.prefill(3, 0, &[(1, 9)]);
    b.write(reg::INSPECT, inspect(3, 0, 1)); // edge k
    assert_eq!(b.m.csr(reg::STATUS) & 1, 1);
    b.step(idle()); // k + 1: the read
    assert_eq!(b.m.csr(reg::STATUS) & 1, 1);
    assert_eq!(b.m.csr(reg::INSPECT_COUNTER), 0);
    b.step(idle()); // k + 2: the data
    assert_eq!(b.m.csr(reg::STATUS) & 1, 0);
    assert_eq!(b.m.csr(reg::INSPECT_COUNTER), 9);
}

#[test]
fn capfc_inspect_e_and_state_read_directly() {
    let mut b = Bench::new(&cfg(Policy::StopMax));
    // Input 0 the culprit at egresses (1, 1) and (2, 1).
    for o in [1, 2] {
        b.prefill(o, 1, &[(0, 2), (3, 1)]);
        let t = b.to_xoff(o, 1, 0);
        b.apply(t);
        assert_eq!(b.m.e_bits(o as usize, 1), 0b0001);
    }
    // E of egress (1, 1).
    b.write(reg::INSPECT, inspect(1, 1, 0));
    assert_eq!(b.m.csr(reg::INSPECT_E_LO), 0b0001);
    assert_eq!(b.read(reg::INSPECT_E_LO), 0b0001, "no snapshot wait for E");
    assert_eq!(b.read(reg::INSPECT_E_HI), 0);
    // State of ingress (0, 1): I = 0, D = 1, two egresses with its E bit.
    b.write(reg::INSPECT, inspect(0, 1, 0));
    assert_eq!(b.read(reg::INSPECT_STATE), 0b10 | 2 << 8);
    assert_eq!(b.read(reg::INSPECT_E_LO), 0, "egress (0, 1) has no E bits");
    // I rises: bit 0.
    b.apply_in(in_enq(0, 1, 4000));
    assert_eq!(b.read(reg::INSPECT_STATE), 0b11 | 2 << 8);
    // Egress (1, 1) clears at XON: one egress left; the register follows without a write.
    b.apply(deq(1, 1, 1000));
    assert_eq!(b.read(reg::INSPECT_STATE), 0b11 | 1 << 8);
    b.apply(deq(2, 1, 1000));
    assert_eq!(b.read(reg::INSPECT_STATE), 0b11);
    b.apply_in(in_deq(0, 1, 1500));
    assert_eq!(b.read(reg::INSPECT_STATE), 0);
    // An ingress that is not blamed.
    b.write(reg::INSPECT, inspect(3, 1, 0));
    assert_eq!(b.read(reg::INSPECT_STATE), 0);
}

// ---------------------------------------------------------------------------------------------
// Index errors.

#[test]
fn capfc_out_of_range_indices_are_ignored_and_flagged() {
    let mut c = cfg(Policy::StopMax);
    c.ports = 5; // 3-bit port buses: 5..7 are out of range
    let mut b = Bench::new(&c);
    let out = b.apply(enq(0, 0, 5, 100));
    assert_eq!(out.eg_drop, 0);
    assert_eq!(b.m.egress_occupancy(0, 0), 0, "bad input: arrival ignored");
    assert_eq!(b.m.csr(reg::ERR), ERR_INDEX);
    b.write(reg::ERR, ERR_INDEX);
    b.apply(enq(6, 0, 1, 100));
    assert_eq!(b.m.csr(reg::ERR), ERR_INDEX);
    b.write(reg::ERR, ERR_INDEX);
    b.apply(in_enq(7, 0, 100));
    assert_eq!(b.m.csr(reg::ERR), ERR_INDEX);
    b.write(reg::ERR, ERR_INDEX);
    b.apply(deq(0, 2, 100));
    assert_eq!(b.m.csr(reg::ERR), ERR_INDEX);
}

// ---------------------------------------------------------------------------------------------
// 13. Determinism and the random workload.

#[test]
fn capfc_workload_is_deterministic_per_seed() {
    let c = CapfcConfig::preset("tiny").unwrap();
    let (mut w1, mut w2, mut w3) = (
        CapfcWorkload::new(&c, 7),
        CapfcWorkload::new(&c, 7),
        CapfcWorkload::new(&c, 8),
    );
    let (mut m1, mut m2) = (Capfc::new(&c).unwrap(), Capfc::new(&c).unwrap());
    let mut differs = false;
    for k in 0..20_000 {
        let (i1, i2, i3) = (w1.next_input(), w2.next_input(), w3.next_input());
        assert_eq!(i1, i2, "same seed, same stream (cycle {k})");
        differs |= i1 != i3;
        assert_eq!(
            m1.step(&i1),
            m2.step(&i2),
            "same stream, same outputs (cycle {k})"
        );
    }
    assert!(differs, "another seed gives another stream");
    // Reset brings a used model back to a fresh one.
    m1.reset();
    let mut fresh = Capfc::new(&c).unwrap();
    let mut w = CapfcWorkload::new(&c, 9);
    for k in 0..5_000 {
        let i = w.next_input();
        assert_eq!(m1.step(&i), fresh.step(&i), "after reset (cycle {k})");
    }
}

fn long_run(preset: &str, seed: u64, cycles: usize) {
    let c = CapfcConfig::preset(preset).unwrap();
    let mut m = Capfc::new(&c).unwrap();
    let mut w = CapfcWorkload::new(&c, seed);
    let (mut eset, mut eclr, mut frames, mut eg_drop, mut in_drop, mut busy) = (0, 0, 0, 0, 0, 0);
    for _ in 0..cycles {
        let o = m.step(&w.next_input());
        eset += o.eset_valid;
        eclr += o.eclr_valid;
        frames += o.frame_valid;
        eg_drop += o.eg_drop;
        in_drop += o.in_drop;
        busy += u64::from(m.calibrating());
    }
    eprintln!(
        "{preset}: eset {eset} eclr {eclr} frames {frames} eg_drop {eg_drop} in_drop {in_drop} \
         calibrating {busy}"
    );
    assert!(eset > 0, "{preset}: no eset");
    assert!(eclr > 0, "{preset}: no eclr");
    assert!(frames > 0, "{preset}: no frame");
    assert!(eg_drop > 0, "{preset}: no egress drop");
    assert!(in_drop > 0, "{preset}: no ingress drop");
    assert!(busy > 0, "{preset}: the calibration engine never ran");
}

#[test]
fn capfc_long_random_run_tiny_exercises_the_block() {
    long_run("tiny", 1, 200_000);
}

#[test]
fn capfc_long_random_run_fpga_exercises_the_block() {
    long_run("fpga", 2, 200_000);
}

// ---------------------------------------------------------------------------------------------
// Random runs against a reference written from the spec (fixed thresholds: CSR writes off).

/// Algorithm 1 and the ingress block re-implemented from §2.3-§2.4 and §2.10 (dequeue before
/// enqueue, counters halve or saturate), with the model's edge timing: the events given to
/// `step` at edge n are applied here at edge n + 1; their `in_drop` and ingress underflow show
/// at edge n + `IN_DROP_LATENCY`, their I bits at edge n + `I_LATENCY`, a counter saturation
/// at n + `COUNT_LATENCY`. The counters and E bits are compared with the model's at their
/// stages' latencies (`reference_run`). E bits are modelled only under Stop-Max.
struct Reference {
    c: CapfcConfig,
    in_b: Vec<u64>,
    /// I as the model shows it: `i_decided` as it was `I_LATENCY - 1` applications ago.
    i_bit: Vec<bool>,
    /// I after the events applied so far.
    i_decided: Vec<bool>,
    i_history: VecDeque<Vec<bool>>,
    /// Each application's (in_drop, ingress underflow), until `IN_DROP_LATENCY - 1` later.
    in_pending: VecDeque<(u64, bool)>,
    eg_b: Vec<u64>,
    cnt: Vec<Vec<u64>>,
    e: Vec<u64>,
    err: u64,
    /// Each application's saturation flag, until `COUNT_LATENCY - 1` later.
    sat_pending: VecDeque<u64>,
}

impl Reference {
    fn new(c: &CapfcConfig) -> Reference {
        let keys = (c.ports * c.priorities) as usize;
        Reference {
            c: c.clone(),
            in_b: vec![0; keys],
            i_bit: vec![false; keys],
            i_decided: vec![false; keys],
            i_history: vec![vec![false; keys]; I_LATENCY as usize - 2].into(),
            in_pending: vec![(0, false); IN_DROP_LATENCY as usize - 1].into(),
            eg_b: vec![0; keys],
            cnt: vec![vec![0; c.ports as usize]; keys],
            e: vec![0; keys],
            err: 0,
            sat_pending: vec![0; C - 1].into(),
        }
    }

    fn key(&self, port: u64, prio: u64) -> Option<usize> {
        (port < u64::from(self.c.ports) && prio < u64::from(self.c.priorities))
            .then(|| (port * u64::from(self.c.priorities) + prio) as usize)
    }

    /// Applies the events of `x`; returns (in_drop, eg_drop) as the model shows them now (the
    /// in_drop of an earlier application, see `in_pending`).
    fn apply(&mut self, x: &CapfcIn) -> (u64, u64) {
        let c = self.c.clone();
        let (mut in_drop, mut eg_drop, mut in_underflow, mut sat) = (0, 0, false, 0);
        self.i_history.push_back(self.i_decided.clone());
        self.i_bit = self.i_history.pop_front().expect("one pushed");
        // Ingress: dequeue, then enqueue.
        if x.in_deq_valid == 1 {
            match self.key(x.in_deq_port, x.in_deq_prio) {
                None => self.err |= ERR_INDEX,
                Some(k) => {
                    in_underflow = x.in_deq_len > self.in_b[k];
                    self.in_b[k] = self.in_b[k].saturating_sub(x.in_deq_len);
                    if self.in_b[k] <= c.in_xon {
                        self.i_decided[k] = false;
                    }
                }
            }
        }
        if x.in_enq_valid == 1 {
            match self.key(x.in_enq_port, x.in_enq_prio) {
                None => self.err |= ERR_INDEX,
                Some(k) => {
                    if self.in_b[k] + x.in_enq_len > c.in_max {
                        in_drop = 1;
                    } else {
                        self.in_b[k] += x.in_enq_len;
                    }
                    if self.in_b[k] >= c.in_xoff {
                        self.i_decided[k] = true;
                    }
                }
            }
        }
        // Egress: dequeue (lines 14-20), then enqueue (lines 1-13).
        if x.eg_deq_valid == 1 {
            match self.key(x.eg_deq_port, x.eg_deq_prio) {
                None => self.err |= ERR_INDEX,
                Some(k) => {
                    if x.eg_deq_len > self.eg_b[k] {
                        self.err |= 2;
                    }
                    self.eg_b[k] = self.eg_b[k].saturating_sub(x.eg_deq_len);
                    if self.eg_b[k] <= c.eg_warn {
                        self.cnt[k].fill(0);
                    }
                    if self.eg_b[k] <= c.eg_xon {
                        self.e[k] = 0;
                    }
                }
            }
        }
        if x.eg_enq_valid == 1 {
            let k = self.key(x.eg_enq_port, x.eg_enq_prio);
            match k.filter(|_| x.eg_enq_input < u64::from(c.ports)) {
                None => self.err |= ERR_INDEX,
                Some(k) => {
                    let (o, i) = (x.eg_enq_port as usize, x.eg_enq_input as usize);
                    if self.eg_b[k] + x.eg_enq_len > c.eg_max {
                        eg_drop = 1;
                    } else {
                        self.eg_b[k] += x.eg_enq_len;
                        if self.eg_b[k] >= c.eg_warn && i != o {
                            let top = (1u64 << c.counter_bits) - 1;
                            let row = &mut self.cnt[k];
                            if row[i] == top {
                                sat = ERR_SATURATION;
                                if c.saturation == Saturation::Halve {
                                    row.iter_mut().for_each(|v| *v /= 2);
                                    row[i] += 1;
                                }
                            } else {
                                row[i] += 1;
                            }
                        }
                        if self.eg_b[k] >= c.eg_xoff && c.policy == Policy::StopMax {
                            let row = &self.cnt[k];
                            let best = (0..row.len()).filter(|&j| row[j] > 0).fold(
                                None,
                                |b: Option<usize>, j| match b {
                                    Some(b) if row[b] >= row[j] => Some(b),
                                    _ => Some(j),
                                },
                            );
                            if let Some(j) = best {
                                self.e[k] |= 1 << j;
                            }
                        }
                    }
                }
            }
        }
        self.in_pending.push_back((in_drop, in_underflow));
        let (in_drop, in_underflow) = self.in_pending.pop_front().expect("one pushed");
        self.err |= u64::from(in_underflow);
        self.sat_pending.push_back(sat);
        self.err |= self.sat_pending.pop_front().expect("one pushed");
        (in_drop, eg_drop)
    }
}

/// Runs `cycles` of the workload (CSR writes removed) and checks the model against
/// [`Reference`] and the invariants of §2.6 every edge.
fn reference_run(c: &CapfcConfig, seed: u64, cycles: usize) {
    let mut m = Capfc::new(c).unwrap();
    let mut r = Reference::new(c);
    let mut w = CapfcWorkload::new(c, seed);
    let (ports, prios) = (c.ports as usize, c.priorities as usize);
    let stop_max = c.policy == Policy::StopMax;
    let mut prev = idle();
    let mut shadow_e = vec![0u64; ports * prios];
    let mut d_prev = vec![false; ports * prios];
    // Per ingress port: classes whose D changed and not yet sent, and since when.
    let mut owed = vec![0u64; ports];
    let mut owed_since = vec![0usize; ports];
    let (mut esets, mut eclrs, mut frames, mut e_seen) = (0, 0, 0, 0);
    // The reference's (counters, E, egress occupancy) after each application, newest last: the
    // model's counters are the reference's C - 1 applications ago, its E bits E - 1 ago.
    type Snapshot = (Vec<Vec<u64>>, Vec<u64>, Vec<u64>);
    let mut history: VecDeque<Snapshot> = VecDeque::new();
    for n in 0..cycles {
        let mut x = w.next_input();
        x.csr_we = 0;
        let e_before: Vec<u64> = (0..ports * prios)
            .map(|k| m.e_bits(k / prios, k % prios))
            .collect();
        let out = m.step(&x);
        let (in_drop, eg_drop) = r.apply(&prev);
        prev = x;
        history.push_back((r.cnt.clone(), r.e.clone(), r.eg_b.clone()));
        if history.len() > E {
            history.pop_front();
        }
        let ago = |k: usize| &history[history.len().saturating_sub(k + 1)];
        let (r_cnt, _, _) = ago(C - 1);
        let (r_cnt_e, r_e, r_eg_b_e) = ago(E - 1);
        let ctx = format!("seed {seed} edge {n}");
        assert_eq!(
            (out.in_drop, out.eg_drop),
            (in_drop, eg_drop),
            "{ctx}: drops"
        );
        assert_eq!(m.csr(reg::ERR), r.err, "{ctx}: ERR");
        // Frames: from D before the edge, covering every class whose D changed.
        if out.frame_valid == 1 {
            frames += 1;
            let p = out.frame_port as usize;
            let paused: u64 = (0..prios)
                .filter(|&q| d_prev[p * prios + q])
                .map(|q| 1 << q)
                .sum();
            assert_eq!(out.frame_pause, paused, "{ctx}: frame pause bits");
            assert_eq!(out.frame_class_enable & paused, paused, "{ctx}");
            assert_eq!(
                out.frame_class_enable & owed[p],
                owed[p],
                "{ctx}: frame misses a changed class"
            );
            assert_eq!(out.frame_quanta, c.quanta);
            owed[p] = 0;
        }
        // E messages: the net change of at most one set and one cleared row.
        for (valid, port, prio, mask, set) in [
            (
                out.eset_valid,
                out.eset_port,
                out.eset_prio,
                out.eset_mask,
                true,
            ),
            (
                out.eclr_valid,
                out.eclr_port,
                out.eclr_prio,
                out.eclr_mask,
                false,
            ),
        ] {
            if valid == 1 {
                let k = port as usize * prios + prio as usize;
                assert_ne!(mask, 0, "{ctx}");
                if set {
                    esets += 1;
                    assert_eq!(shadow_e[k] & mask, 0, "{ctx}: eset of set bits");
                    shadow_e[k] |= mask;
                } else {
                    eclrs += 1;
                    assert_eq!(shadow_e[k] & mask, mask, "{ctx}: eclr of clear bits");
                    shadow_e[k] &= !mask;
                }
            } else {
                assert_eq!((port, prio, mask), (0, 0, 0), "{ctx}: idle message fields");
            }
        }
        let changed_rows = (0..ports * prios)
            .filter(|&j| e_before[j] != m.e_bits(j / prios, j % prios))
            .count();
        assert!(
            changed_rows <= 2,
            "{ctx}: one set and one cleared row per edge at most"
        );
        for o in 0..ports {
            for q in 0..prios {
                let k = o * prios + q;
                let e = m.e_bits(o, q);
                assert_eq!(shadow_e[k], e, "{ctx}: E({o}, {q}) vs its messages");
                assert_eq!(m.egress_occupancy(o, q), r.eg_b[k], "{ctx}: B_eg({o}, {q})");
                assert_eq!(
                    m.ingress_occupancy(o, q),
                    r.in_b[k],
                    "{ctx}: B_in({o}, {q})"
                );
                assert_eq!(m.is_i(o, q), r.i_bit[k], "{ctx}: I({o}, {q})");
                for (i, &count) in r_cnt[k].iter().enumerate() {
                    assert_eq!(m.counter(o, q, i), count, "{ctx}: C[{o}][{q}][{i}]");
                }
                if stop_max {
                    assert_eq!(e, r_e[k], "{ctx}: E({o}, {q})");
                }
                // E: never on the diagonal, only above XON, only on counted inputs
                // (no halving at 16 bits), each as of the events the E stage has seen.
                assert_eq!(e >> o & 1, 0, "{ctx}: diagonal E");
                if r_eg_b_e[k] <= c.eg_xon {
                    assert_eq!(e, 0, "{ctx}: E at or below XON");
                }
                if c.counter_bits == 16 {
                    for (i, &count) in r_cnt_e[k].iter().enumerate() {
                        if e >> i & 1 == 1 {
                            assert!(count > 0, "{ctx}: E({o}, {q}) bit {i}, C = 0");
                        }
                    }
                }
                e_seen += u64::from(e != 0);
            }
        }
        // D = I or any E (over o != i), with the E bits as they were before this edge (the D
        // stage follows the E stage by one edge), and the frames it owes.
        for i in 0..ports {
            for q in 0..prios {
                let k = i * prios + q;
                let any_e = (0..ports).any(|o| o != i && e_before[o * prios + q] >> i & 1 == 1);
                let d = r.i_bit[k] || any_e;
                assert_eq!(m.is_d(i, q), d, "{ctx}: D({i}, {q})");
                if d != d_prev[k] {
                    if owed[i] == 0 {
                        owed_since[i] = n;
                    }
                    owed[i] |= 1 << q;
                }
                d_prev[k] = d;
            }
            assert!(
                owed[i] == 0 || n - owed_since[i] <= ports + 1,
                "{ctx}: port {i} waits too long for its frame"
            );
        }
    }
    eprintln!("{seed}: eset {esets} eclr {eclrs} frames {frames} E-rows {e_seen}");
    assert!(esets > 0 && eclrs > 0 && frames > 0);
}

#[test]
fn capfc_random_run_stop_max_matches_reference() {
    let mut c = CapfcConfig::preset("tiny").unwrap();
    c.policy = Policy::StopMax;
    reference_run(&c, 11, 100_000); // 6-bit counters: halving
    c.saturation = Saturation::Saturate;
    reference_run(&c, 12, 100_000);
    let mut c = CapfcConfig::preset("fpga").unwrap();
    c.policy = Policy::StopMax;
    reference_run(&c, 13, 100_000);
}

#[test]
fn capfc_random_run_stop_calibrate_keeps_invariants() {
    let mut c = CapfcConfig::preset("tiny").unwrap();
    c.counter_bits = 16;
    reference_run(&c, 21, 100_000);
    let c = CapfcConfig::preset("fpga").unwrap();
    reference_run(&c, 22, 100_000);
}

/// Issue 30's promise for CaPFC's frames under a lossy link (a fifth lost, PAUSE and RESUME
/// alike), on the random workload without its CSR writes: while D holds for an ingress
/// (port, priority) a PAUSE is resent at least every REFRESH + P - 1 cycles, so a lost PAUSE
/// is repaired within one refresh period; and once D is clear (I clear: the ingress occupancy
/// went to XON or below, and no E bit) no PAUSE follows, so upstream holds the class paused
/// at most one pause time (QUANTA, one cycle per quantum here) longer, even when the RESUME is
/// lost. D's frames come 3 edges after an ingress event and 7 after an egress one.
#[test]
fn capfc_lost_frames_are_repaired_by_refresh_and_no_class_stays_paused_once_d_clears() {
    let seed = common::seed();
    let cfg = CapfcConfig {
        quanta: 300,
        refresh: 64,
        ..CapfcConfig::preset("tiny").unwrap()
    };
    let mut m = Capfc::new(&cfg).unwrap();
    let mut work = CapfcWorkload::new(&cfg, seed);
    let (ports, prios) = (cfg.ports as usize, cfg.priorities as usize);
    let slack = 5 + ports as u64;
    let refresh_bound = cfg.refresh + ports as u64 - 1;
    check_lossy_link(
        ports,
        prios,
        refresh_bound,
        cfg.quanta,
        slack,
        seed,
        300_000,
        |keys| {
            let mut i = work.next_input();
            i.csr_we = 0;
            let o = m.step(&i);
            for (k, key) in keys.iter_mut().enumerate() {
                let d = m.is_d(k / prios, k % prios);
                (key.pausing, key.released) = (d, !d);
            }
            let frame = (
                o.frame_port,
                o.frame_class_enable,
                o.frame_pause,
                o.frame_quanta,
            );
            (o.frame_valid == 1).then_some((frame.0 as usize, frame.1, frame.2, frame.3))
        },
    );
}

/// `tiny` as a shared-memory switch (spec §2.7): 1 000 B dedicated per queue, 1 500 B of pool
/// per port, a 2 500 B pool.
fn shared_tiny() -> CapfcConfig {
    CapfcConfig {
        shared: Some(SharedMemory {
            dedicated: 1000,
            port_cap: 1500,
            pool_cap: 2500,
        }),
        ..CapfcConfig::preset("tiny").unwrap()
    }
}

#[test]
fn capfc_shared_memory_admits_by_queue_port_and_pool() {
    let mut b = Bench::new(&shared_tiny());
    let pool = |b: &mut Bench| b.read(reg::SH_POOL_USED);
    // Within its dedicated bytes a queue draws nothing from the pool.
    assert_eq!(b.apply(enq(1, 0, 0, 800)).eg_drop, 0);
    assert_eq!(pool(&mut b), 0);
    // 1 600 B: 600 from the pool; a second queue of the port 500 more.
    assert_eq!(b.apply(enq(1, 0, 0, 800)).eg_drop, 0);
    assert_eq!(b.apply(enq(1, 1, 0, 1500)).eg_drop, 0);
    assert_eq!((pool(&mut b), b.m.pool_port(1)), (1100, 1100));
    // 500 more would pass the port's 1 500: dropped, though the queue is far below eg_max.
    assert_eq!(b.apply(enq(1, 1, 0, 500)).eg_drop, 1);
    assert_eq!(b.m.egress_occupancy(1, 1), 1500);
    // Port 2: 900 dedicated, then 1 400 from the pool, exactly what is left of it.
    assert_eq!(b.apply(enq(2, 0, 0, 900)).eg_drop, 0);
    assert_eq!(b.apply(enq(2, 0, 0, 1500)).eg_drop, 0);
    assert_eq!(pool(&mut b), 2500);
    // The pool is full: no ingress enqueue is admitted, an egress queue's dedicated bytes
    // still are, its first pool byte is not.
    assert_eq!(b.in_drop(in_enq(0, 0, 100)), 1);
    assert_eq!(b.apply(enq(3, 0, 0, 1000)).eg_drop, 0);
    assert_eq!(b.apply(enq(3, 0, 0, 1)).eg_drop, 1);
    // A departure returns its pool bytes: 2 400 -> 1 400 frees 1 000.
    b.apply(deq(2, 0, 1000));
    assert_eq!((pool(&mut b), b.m.pool_port(2)), (1500, 400));
    assert_eq!(b.in_drop(in_enq(0, 0, 100)), 0);
    // Same edge: a departure's pool bytes are free from the next edge on. Port 1 has 400 of
    // room; 500 more on (1, 1) while (1, 0) frees 600 is dropped, then admitted.
    assert_eq!(
        b.apply(with_deq(enq(1, 1, 0, 500), deq(1, 0, 600))).eg_drop,
        1
    );
    assert_eq!(b.m.pool_port(1), 500);
    assert_eq!(b.apply(enq(1, 1, 0, 500)).eg_drop, 0);
    assert_eq!(b.m.pool_port(1), 1000);
}

#[test]
fn capfc_shared_memory_pool_counters_follow_the_queues_under_random_traffic() {
    let cfg = shared_tiny();
    let mut m = Capfc::new(&cfg).unwrap();
    let mut w = CapfcWorkload::new(&cfg, common::seed());
    let ded = 1000;
    let (mut drops, mut full) = (0, 0);
    for t in 0..200_000 {
        let o = m.step(&w.next_input());
        drops += o.eg_drop;
        let mut total = 0;
        for port in 0..cfg.ports as usize {
            let held: u64 = (0..cfg.priorities as usize)
                .map(|p| m.egress_occupancy(port, p).saturating_sub(ded))
                .sum();
            assert_eq!(m.pool_port(port), held, "edge {t}, port {port}");
            total += held;
        }
        assert_eq!(m.csr(reg::SH_POOL_USED), total, "edge {t}");
        full += u64::from(total >= m.csr(reg::SH_POOL_CAP));
    }
    assert!(
        drops > 100 && full > 100,
        "{drops} drops, {full} edges with the pool full"
    );
}

#[test]
fn capfc_shared_memory_rules() {
    let e = |sh: SharedMemory| {
        CapfcConfig {
            shared: Some(sh),
            ..CapfcConfig::preset("tiny").unwrap()
        }
        .validate()
        .unwrap_err()
        .to_string()
    };
    let ok = SharedMemory {
        dedicated: 1000,
        port_cap: 1500,
        pool_cap: 2500,
    };
    assert!(e(SharedMemory {
        dedicated: 6000,
        ..ok
    })
    .contains("shared.dedicated = 6000: must be <= eg_max (5000)"));
    assert!(e(SharedMemory {
        port_cap: 3000,
        ..ok
    })
    .contains("shared.port_cap = 3000: must be in 1..=pool_cap (2500)"));
    // The paper's shared-memory scenario (§2.8) loads from TOML.
    let text = switchcraft::BlockConfig::preset("capfc", "paper")
        .unwrap()
        .to_toml()
        + "\n[shared]\ndedicated = 8192\nport_cap = 102400\npool_cap = 358400\n";
    let paper = CapfcConfig::from_toml(&text, "shared.toml");
    assert!(paper.is_ok(), "{paper:?}");
}

/// The frame bus's declared latency (`I_LATENCY + 1`) is the earliest effect of an ingress
/// event: a frame already granted for the port (here for a class whose I rose a little
/// earlier) is built from D as it is then, so it states the change one edge after I; the
/// change's own frame follows one edge later, after the round robin grants its port.
#[test]
fn capfc_frame_already_granted_states_a_change_at_the_frame_latency() {
    let mut b = Bench::new(&cfg(Policy::StopMax));
    let frame = I_LATENCY as usize + 1;
    let n = b.edge();
    b.step(in_enq(0, 0, 4000));
    b.step(in_enq(0, 1, 4000)); // one edge later
    b.idle(frame + 3);
    let frames: Vec<(usize, u64, u64)> = (n..b.edge())
        .filter(|&k| b.log[k].frame_valid == 1)
        .map(|k| (k - n, b.log[k].frame_port, b.log[k].frame_pause))
        .collect();
    assert_eq!(
        frames,
        vec![(frame + 1, 0, 0b11), (frame + 2, 0, 0b11)],
        "class 0's frame, one edge after its I change's latency, states class 1 paused at the \
         second event's frame latency; class 1's own frame follows"
    );
}
