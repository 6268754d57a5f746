//! BFC golden model: the config rules, the presets' sizing against the paper's numbers
//! (spec §3.2) and the pause-threshold table (spec §3.4).

mod common;

use switchcraft_model::bfc::{th_table, Assign, BfcConfig, PRESETS};

fn tiny() -> BfcConfig {
    BfcConfig::preset("tiny").unwrap()
}

#[test]
fn bfc_config_rules_name_field_and_rule() {
    type Break = Box<dyn Fn(&mut BfcConfig)>;
    let cases: Vec<(Break, &str, &str)> = vec![
        (
            Box::new(|c| c.ft_multiple = 0),
            "ft_multiple",
            "ft_multiple = 0: must be at least 1",
        ),
        (
            Box::new(|c| c.ft_multiple = 1001),
            "ft_multiple",
            "ft_multiple = 1001: must be in 1..=1000",
        ),
        // Queues not enough for the classes: 4 queues leave 3 data queues.
        (
            Box::new(|c| {
                c.queues = 4;
                c.th.truncate(4);
                c.classes = 4
            }),
            "classes",
            "classes = 4: needs at least one data queue per class; queues = 4 leaves 3 data queues",
        ),
        (
            Box::new(|c| c.classes = 0),
            "classes",
            "classes = 0: must be in 1..=8",
        ),
        // Sticky beyond the wrap-safe half of the timestamp range (8-bit timestamps: 128).
        (
            Box::new(|c| c.sticky = 128),
            "sticky",
            "sticky = 128: must be below 2^(ts_bits - 1) = 128",
        ),
        (
            Box::new(|c| c.t_bm = 0),
            "t_bm",
            "t_bm = 0: must be in 4..=16777215 cycles",
        ),
        (
            Box::new(|c| c.t_bm = 3),
            "t_bm",
            "t_bm = 3: must be in 4..=16777215 cycles",
        ),
        // One past the 24-bit T_BM register.
        (
            Box::new(|c| c.t_bm = 1 << 24),
            "t_bm",
            "t_bm = 16777216: must be in 4..=16777215 cycles",
        ),
        // More flow-table entries than the RTL's 20-bit address reaches: 64 x 128 x 200.
        (
            Box::new(|c| {
                c.ports = 64;
                c.queues = 128;
                c.th = vec![100; 128];
                c.ft_multiple = 200;
                c.fid_bits = 32;
                c.hash_bits = 20;
                c.t_bm = 1 << 12
            }),
            "ft_multiple",
            "ft_multiple = 200: the flow table would have 1638400 entries (ports x queues x \
             ft_multiple); the RTL addresses at most 2^20 = 1048576",
        ),
        // A hash wider than the key.
        (
            Box::new(|c| c.hash_bits = 17),
            "hash_bits",
            "hash_bits = 17: must be <= fid_bits (16)",
        ),
        // Fewer hash values than entries: 2^8 < 128 x 8 = 1024 per port.
        (
            Box::new(|c| {
                c.hash_bits = 8;
                c.ft_multiple = 128
            }),
            "hash_bits",
            "hash_bits = 8: 2^hash_bits must be at least the 1024 entries per port",
        ),
        // The Th table shorter than the queue count.
        (
            Box::new(|c| c.th.truncate(7)),
            "th",
            "th = 7: the Th table needs an entry for every speed class and N_active = 1..=8 \
             (speeds x queues = 8), it has 7 entries",
        ),
        (
            Box::new(|c| c.th[5] = 0),
            "th[5]",
            "th[5] = 0: must be at least 1 byte",
        ),
        (
            Box::new(|c| c.th[2] = 65536),
            "th[2]",
            "th[2] = 65536: does not fit occupancy_bits = 16 (at most 65535)",
        ),
        (
            Box::new(|c| c.ports = 1),
            "ports",
            "ports = 1: must be in 2..=64",
        ),
        (
            Box::new(|c| c.queues = 129),
            "queues",
            "queues = 129: must be in 2..=128",
        ),
        (
            Box::new(|c| c.length_bits = 17),
            "length_bits",
            "length_bits = 17: must be in 1..=16",
        ),
        (
            Box::new(|c| {
                c.occupancy_bits = 8;
                c.th = vec![100; 8]
            }),
            "length_bits",
            "length_bits = 11: must be <= occupancy_bits (8)",
        ),
        (
            Box::new(|c| c.size_bits = 0),
            "size_bits",
            "size_bits = 0: must be in 1..=24",
        ),
        (
            Box::new(|c| c.pc_bits = 25),
            "pc_bits",
            "pc_bits = 25: must be in 1..=24",
        ),
        (
            Box::new(|c| c.upstream_queues = 1),
            "upstream_queues",
            "upstream_queues = 1: must be in 2..=128",
        ),
        (
            Box::new(|c| c.speeds = 5),
            "speeds",
            "speeds = 5: must be in 1..=4",
        ),
        // Two speed classes need two Th rows (2 x 8 entries).
        (
            Box::new(|c| c.speeds = 2),
            "th",
            "th = 8: the Th table needs an entry for every speed class and N_active = 1..=8 \
             (speeds x queues = 16), it has 8 entries",
        ),
        (
            Box::new(|c| c.port_speed = vec![0, 0]),
            "port_speed",
            "port_speed = 2: needs one speed class per egress port (4 ports), or none",
        ),
        (
            Box::new(|c| c.port_speed = vec![0, 0, 1, 0]),
            "port_speed[2]",
            "port_speed[2] = 1: must be a speed class below speeds = 1",
        ),
    ];
    for (k, (break_it, field, want)) in cases.iter().enumerate() {
        let mut c = tiny();
        break_it(&mut c);
        let e = c
            .validate()
            .expect_err(&format!("case {k} ({field}) must be refused"));
        assert_eq!(e.field, *field, "case {k}");
        let text = e.to_string();
        assert!(text.contains(want), "case {k}: {text:?} lacks {want:?}");
    }
}

#[test]
fn bfc_presets_validate_and_match_the_papers_sizes() {
    for p in PRESETS {
        let c = BfcConfig::preset(p).unwrap();
        c.validate().unwrap_or_else(|e| panic!("preset {p}: {e}"));
        assert_eq!(
            c.assign,
            Assign::Dynamic,
            "{p}: the paper's design is the default"
        );
    }
    let ns3 = BfcConfig::preset("ns3-tor").unwrap();
    assert_eq!((ns3.ports, ns3.queues, ns3.entries()), (24, 32, 76_800));
    let t2 = BfcConfig::preset("tofino2").unwrap();
    assert_eq!(u64::from(t2.ports * t2.queues), 4096);
    assert_eq!(t2.entries(), 409_600);
    assert_eq!(t2.pause_counters(), 4096);
    // 128 queues per port are Tofino2's 400G ports: Th = 400 Gb/s x 2 us / N.
    assert_eq!((t2.th[0], t2.th[1], t2.th[127]), (100_000, 50_000, 781));
    // Time constants from each preset's clock: STICKY = 2 HRTT = 4 us, T_BM = 5 HRTT = 10 us.
    // fpga at 100 MHz: 400 cycles = 25 units of 16; 1 000 cycles. The paper's scales at an
    // assumed 1 GHz: 4 000 cycles = 62.5 -> 63 units of 64 (rounded up, never shorter);
    // 10 000 cycles.
    let fpga = BfcConfig::preset("fpga").unwrap();
    assert_eq!((fpga.sticky, fpga.t_bm), (25, 1_000));
    for p in ["tofino-loopback", "ns3-tor", "tofino2"] {
        let c = BfcConfig::preset(p).unwrap();
        assert_eq!((c.sticky, c.ts_shift, c.t_bm), (63, 6, 10_000), "{p}");
    }
    // 16 per port in loopback mode, on 100G ports; the ns-3 ToR's links are 100G.
    assert_eq!(BfcConfig::preset("tofino-loopback").unwrap().th[0], 25_000);
    assert_eq!(ns3.th[0], 25_000);
    assert_eq!(BfcConfig::preset("tofino-loopback").unwrap().queues, 16);
    assert_eq!(BfcConfig::preset("tiny").unwrap().queues, 8);
    // At most 5 bytes per flow-table entry at the paper's scales (the ns-3 configuration
    // implies about 5.3).
    for p in ["tofino-loopback", "ns3-tor", "tofino2"] {
        let c = BfcConfig::preset(p).unwrap();
        assert!(
            c.entry_bits() <= 40,
            "{p}: {} bits per entry",
            c.entry_bits()
        );
    }
    assert!(BfcConfig::preset("paper").is_none());
}

#[test]
fn bfc_toml_round_trips_and_rejects_unknown_keys() {
    let c = BfcConfig::preset("ns3-tor").unwrap();
    let back = BfcConfig::from_toml(&c.to_toml(), "x.toml").unwrap();
    assert_eq!(back, c);
    let e = BfcConfig::from_toml(&(c.to_toml() + "bogus = 1\n"), "x.toml").unwrap_err();
    assert!(e.0.contains("bogus"), "{}", e.0);
    let mut bad = c.clone();
    bad.ft_multiple = 0;
    let e = BfcConfig::from_toml(&bad.to_toml(), "x.toml").unwrap_err();
    assert!(
        e.0.contains("x.toml: invalid config: ft_multiple = 0"),
        "{}",
        e.0
    );
}

/// The paper's ns-3 thresholds (100 Gb/s, HRTT 2 us): 25 000 / 12 500 / 6 250 / 3 125 /
/// 1 562.5 / 781.25 B at N_active = 1 / 2 / 4 / 8 / 16 / 32; the CSR table rounds down.
#[test]
fn bfc_th_table_has_the_papers_values() {
    let t = th_table(100e9, 2000.0, 32);
    let want = [
        (1, 25_000.0, 25_000),
        (2, 12_500.0, 12_500),
        (4, 6_250.0, 6_250),
        (8, 3_125.0, 3_125),
        (16, 1_562.5, 1_562),
        (32, 781.25, 781),
    ];
    for (n, exact, bytes) in want {
        let row = t[n - 1];
        assert_eq!(row.n_active as usize, n);
        assert!((row.exact - exact).abs() < 1e-9, "Th({n}) = {}", row.exact);
        assert_eq!(row.bytes, bytes, "Th({n}) in the table");
    }
    // Th scales with the rate and the HRTT.
    assert_eq!(th_table(400e9, 2000.0, 1)[0].bytes, 100_000);
    assert_eq!(th_table(100e9, 1000.0, 1)[0].bytes, 12_500);
    // The ns3-tor preset carries this table.
    let ns3 = BfcConfig::preset("ns3-tor").unwrap();
    assert_eq!(ns3.th, t.iter().map(|r| r.bytes).collect::<Vec<_>>());
}

// ------------------------------------------------------------------------------------------
// The cycle model (spec §3.3): one test per rule, against a small driver.

use switchcraft_core::hash::{hash32, reduce_top};
use switchcraft_core::lfsr::Lfsr32;
use switchcraft_core::CycleModel;
use switchcraft_model::bfc::{
    class_word, err, reg, Bfc, BfcIn, BfcOut, Branch, EVENT_LATENCY, MODE_SINGLE, MODE_STOCHASTIC,
    PICK_BITS, RX_BITMAP, RX_PAUSE, RX_RESUME, SNAP_FLOW_TABLE, SNAP_PAUSE_COUNTER,
    SNAP_TABLE_SHIFT, STATUS_READY, STATUS_SNAP_BUSY,
};

const IDLE: BfcIn = BfcIn {
    enq_valid: 0,
    enq_in_port: 0,
    enq_eg_port: 0,
    enq_fid: 0,
    enq_len: 0,
    enq_upstream_q: 0,
    enq_class: 0,
    enq_incast: 0,
    deq_valid: 0,
    deq_eg_port: 0,
    deq_queue: 0,
    deq_ft_key: 0,
    deq_counter_incr: 0,
    deq_in_port: 0,
    deq_upstream_q: 0,
    deq_len: 0,
    deq_ft_skip: 0,
    rx_valid: 0,
    rx_port: 0,
    rx_kind: 0,
    rx_queue: 0,
    rx_base: 0,
    rx_bitmap: 0,
    csr_we: 0,
    csr_addr: 0,
    csr_wdata: 0,
};

/// A model past its table-clearing phase, with a step counter.
struct Drive {
    m: Bfc,
    /// Steps taken since reset; the next step is edge `n`.
    n: u64,
}

impl Drive {
    fn new(cfg: &BfcConfig) -> Drive {
        let mut d = Drive {
            m: Bfc::new(cfg).unwrap(),
            n: 0,
        };
        while d.step(IDLE).ready == 0 {}
        d
    }

    fn step(&mut self, i: BfcIn) -> BfcOut {
        self.n += 1;
        self.m.step(&i)
    }

    /// Steps `i`, then idles until its results come out, and returns them.
    fn op(&mut self, i: BfcIn) -> BfcOut {
        self.step(i);
        (0..EVENT_LATENCY).map(|_| self.step(IDLE)).last().unwrap()
    }

    fn idle(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step(IDLE);
        }
    }

    fn csr_write(&mut self, addr: u32, value: u64) {
        self.step(BfcIn {
            csr_we: 1,
            csr_addr: addr.into(),
            csr_wdata: value,
            ..IDLE
        });
    }

    /// Reads a register (the read returns it as before the edge).
    fn csr_read(&mut self, addr: u32) -> u64 {
        self.step(BfcIn {
            csr_addr: addr.into(),
            ..IDLE
        })
        .csr_rdata
    }

    /// `count` flow ids whose flow-table keys differ from each other.
    fn distinct_fids(&self, count: usize) -> Vec<u64> {
        let mut keys = std::collections::HashSet::new();
        (1..)
            .filter(|&f| keys.insert(self.m.ft_key(f)))
            .take(count)
            .collect()
    }

    /// A flow id other than `fid` with the same flow-table key.
    fn colliding_fid(&self, fid: u64) -> u64 {
        (fid + 1..)
            .find(|&f| self.m.ft_key(f) == self.m.ft_key(fid))
            .unwrap()
    }
}

fn enq(inp: u64, eg: u64, fid: u64, len: u64, upq: u64) -> BfcIn {
    BfcIn {
        enq_valid: 1,
        enq_in_port: inp,
        enq_eg_port: eg,
        enq_fid: fid,
        enq_len: len,
        enq_upstream_q: upq,
        ..IDLE
    }
}

/// The dequeue of a packet whose enqueue gave `a`.
fn deq(a: &BfcOut, eg: u64, inp: u64, upq: u64, len: u64) -> BfcIn {
    BfcIn {
        deq_valid: 1,
        deq_eg_port: eg,
        deq_queue: a.asg_queue,
        deq_ft_key: a.asg_ft_key,
        deq_counter_incr: a.asg_counter_incr,
        deq_in_port: inp,
        deq_upstream_q: upq,
        deq_len: len,
        deq_ft_skip: a.asg_ft_skip,
        ..IDLE
    }
}

/// `e`'s enqueue fields and `d`'s dequeue fields in one cycle.
fn both(e: BfcIn, d: BfcIn) -> BfcIn {
    BfcIn {
        deq_valid: d.deq_valid,
        deq_eg_port: d.deq_eg_port,
        deq_queue: d.deq_queue,
        deq_ft_key: d.deq_ft_key,
        deq_counter_incr: d.deq_counter_incr,
        deq_in_port: d.deq_in_port,
        deq_upstream_q: d.deq_upstream_q,
        deq_len: d.deq_len,
        deq_ft_skip: d.deq_ft_skip,
        ..e
    }
}

fn branch(m: &Bfc, b: Branch) -> u64 {
    m.branch_counts()
        .into_iter()
        .find(|(x, _)| *x == b)
        .unwrap()
        .1
}

/// Sticky off and a Th that no test of assignment reaches.
fn assign_cfg() -> BfcConfig {
    BfcConfig {
        sticky: 0,
        th: vec![60_000; 8],
        ..tiny()
    }
}

#[test]
fn bfc_reset_refuses_events_until_the_tables_are_cleared() {
    let cfg = tiny();
    let mut m = Bfc::new(&cfg).unwrap();
    let init = cfg.init_cycles();
    assert_eq!(init, 128, "4 ports x 32 entries");
    let first = m.step(&enq(0, 1, 7, 100, 0));
    assert_eq!(first.ready, 0);
    for n in 1..init {
        let out = m.step(&IDLE);
        assert_eq!(out.ready, u64::from(n + 1 == init), "edge {n}");
        if n == u64::from(EVENT_LATENCY) {
            assert_eq!((out.asg_valid, out.asg_refused), (1, 1), "refused enqueue");
        }
    }
    assert_eq!(m.csr(reg::ERR), err::NOT_READY);
    assert_eq!(m.csr(reg::STATUS) & STATUS_READY, STATUS_READY);
    assert_eq!(m.qlen(1, 1), 0, "the refused enqueue changed nothing");
}

#[test]
fn bfc_new_flows_take_the_first_empty_queue_from_a_rotating_start() {
    let mut d = Drive::new(&assign_cfg());
    let fids = d.distinct_fids(3);
    // rr_ptr starts at 0; queue 0 is the control queue and never assigned.
    let mut got = vec![];
    for &f in &fids {
        let a = d.op(enq(0, 2, f, 100, 0));
        assert_eq!((a.asg_valid, a.asg_refused, a.asg_new), (1, 0, 1));
        got.push(a.asg_queue);
    }
    assert_eq!(got, [1, 2, 3]);
    assert_eq!(d.m.empty_bitmap(2), 0b1111_0001);
    // A packet of the first flow keeps queue 1.
    let a = d.op(enq(0, 2, fids[0], 100, 0));
    assert_eq!((a.asg_queue, a.asg_new), (1, 0));
    assert_eq!(d.m.ft_entry(2, a.asg_ft_key as usize).size, 2);
    // Empty queue 1 again: the next new flow still starts after queue 3 (rotating start).
    let a1 = d.op(enq(0, 3, 999, 100, 0));
    assert_eq!(a1.asg_queue, 1, "another port has its own rotating start");
    let f4 = d.distinct_fids(4)[3];
    let a = d.op(enq(0, 2, f4, 100, 0));
    assert_eq!(a.asg_queue, 4);
    assert_eq!(branch(&d.m, Branch::AssignEmpty), 5);
    assert_eq!(branch(&d.m, Branch::KeepBusy), 1);
}

#[test]
fn bfc_rotating_start_wraps_past_the_last_queue() {
    let mut d = Drive::new(&assign_cfg());
    let fids = d.distinct_fids(8);
    let mut asg = vec![];
    for &f in &fids[..7] {
        asg.push(d.op(enq(0, 0, f, 100, 0)));
    }
    assert_eq!(
        asg.iter().map(|a| a.asg_queue).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6, 7]
    );
    // Empty queues 2 and 5; rr_ptr is 0 after queue 7, so queue 2 comes first.
    d.op(deq(&asg[4], 0, 0, 0, 100));
    d.op(deq(&asg[1], 0, 0, 0, 100));
    let a = d.op(enq(0, 0, fids[7], 100, 0));
    assert_eq!(a.asg_queue, 2);
}

#[test]
fn bfc_random_queue_when_no_queue_of_the_class_is_empty() {
    let cfg = assign_cfg();
    let mut d = Drive::new(&cfg);
    let fids = d.distinct_fids(12);
    for &f in &fids[..7] {
        d.op(enq(0, 1, f, 100, 0));
    }
    assert_eq!(d.m.empty_bitmap(1), 0b1, "every data queue holds a flow");
    for &f in &fids[7..] {
        // The LFSR steps once per edge from the seed at reset: edge n uses state n.
        let mut lfsr = Lfsr32::new(cfg.lfsr_seed);
        for _ in 0..d.n {
            lfsr.step();
        }
        let want = 1 + reduce_top(lfsr.state(), PICK_BITS, 7);
        let a = d.op(enq(0, 1, f, 100, 0));
        assert_eq!((a.asg_queue, a.asg_new), (u64::from(want), 1), "fid {f}");
    }
    assert_eq!(branch(&d.m, Branch::AssignRandom), 5);
}

#[test]
fn bfc_lfsr_seed_write_reloads_the_generator() {
    let mut d = Drive::new(&assign_cfg());
    let fids = d.distinct_fids(8);
    for &f in &fids[..7] {
        d.op(enq(0, 1, f, 100, 0));
    }
    // The write and the enqueue on one edge: the enqueue uses the new seed.
    let a = d.op(BfcIn {
        csr_we: 1,
        csr_addr: reg::LFSR_SEED.into(),
        csr_wdata: 0xDEAD_BEEF,
        ..enq(0, 1, fids[7], 100, 0)
    });
    assert_eq!(
        a.asg_queue,
        u64::from(1 + reduce_top(0xDEAD_BEEF, PICK_BITS, 7))
    );
}

#[test]
fn bfc_entry_keeps_its_queue_for_the_sticky_time_after_its_last_dequeue() {
    // ts_shift 0: timestamps count cycles; sticky 16.
    let mut d = Drive::new(&BfcConfig {
        th: vec![60_000; 8],
        ..tiny()
    });
    let [f, g] = d.distinct_fids(2)[..] else {
        unreachable!()
    };
    let a = d.op(enq(0, 0, f, 100, 0));
    assert_eq!(a.asg_queue, 1);
    let t_deq = d.n;
    d.op(deq(&a, 0, 0, 0, 100));
    // Another flow takes the next queue, so a reassignment of f would move it.
    assert_eq!(d.op(enq(0, 0, g, 100, 0)).asg_queue, 2);
    // Age 15 at the enqueue's edge: kept.
    d.idle(t_deq + 15 - d.n);
    let a = d.op(enq(0, 0, f, 100, 0));
    assert_eq!((a.asg_queue, a.asg_new), (1, 0));
    assert_eq!(branch(&d.m, Branch::KeepSticky), 1);
    let t_deq = d.n;
    d.op(deq(&a, 0, 0, 0, 100));
    // Age exactly 16 (>= sticky): reassigned, to the first empty queue after queue 2.
    d.idle(t_deq + 16 - d.n);
    let a = d.op(enq(0, 0, f, 100, 0));
    assert_eq!((a.asg_queue, a.asg_new), (3, 1));
}

#[test]
fn bfc_sticky_timestamps_wrap_and_a_stale_entry_may_look_recent() {
    // 8-bit timestamps: an entry idle for 256 + 5 cycles looks 5 cycles old and keeps its
    // queue (spec §3.11: only delays the reassignment).
    let mut d = Drive::new(&BfcConfig {
        th: vec![60_000; 8],
        ..tiny()
    });
    let [f, g] = d.distinct_fids(2)[..] else {
        unreachable!()
    };
    let a = d.op(enq(0, 0, f, 100, 0));
    let t_deq = d.n;
    d.op(deq(&a, 0, 0, 0, 100));
    d.op(enq(0, 0, g, 100, 0));
    d.idle(t_deq + 256 + 5 - d.n);
    let a = d.op(enq(0, 0, f, 100, 0));
    assert_eq!((a.asg_queue, a.asg_new), (1, 0));
}

#[test]
fn bfc_sticky_zero_reassigns_as_soon_as_the_entry_is_empty() {
    let mut d = Drive::new(&assign_cfg());
    let [f, g] = d.distinct_fids(2)[..] else {
        unreachable!()
    };
    let a = d.op(enq(0, 0, f, 100, 0));
    d.op(enq(0, 0, g, 100, 0));
    // Dequeue and enqueue of f on one edge: dequeue first, size 0, age 0 >= 0: reassigned.
    let b = d.op(both(enq(0, 0, f, 100, 0), deq(&a, 0, 0, 0, 100)));
    assert_eq!((b.asg_queue, b.asg_new), (3, 1));
    assert_eq!(branch(&d.m, Branch::SameEntry), 1);
}

#[test]
fn bfc_same_edge_dequeue_and_enqueue_of_one_entry_keep_the_queue_with_sticky() {
    let mut d = Drive::new(&BfcConfig {
        th: vec![60_000; 8],
        ..tiny()
    });
    let f = d.distinct_fids(1)[0];
    let a = d.op(enq(0, 0, f, 100, 0));
    let b = d.op(both(enq(0, 0, f, 300, 0), deq(&a, 0, 0, 0, 100)));
    assert_eq!((b.asg_queue, b.asg_new), (a.asg_queue, 0));
    let e = d.m.ft_entry(0, a.asg_ft_key as usize);
    assert_eq!(e.size, 1);
    assert_eq!(d.m.qlen(0, a.asg_queue as usize), 300);
}

#[test]
fn bfc_colliding_flows_share_the_entry_and_its_queue() {
    let mut d = Drive::new(&assign_cfg());
    let f = d.distinct_fids(1)[0];
    let g = d.colliding_fid(f);
    let a = d.op(enq(0, 0, f, 100, 0));
    let b = d.op(enq(0, 0, g, 100, 0));
    assert_eq!(
        (b.asg_queue, b.asg_ft_key, b.asg_new),
        (a.asg_queue, a.asg_ft_key, 0)
    );
    assert_eq!(d.m.ft_entry(0, a.asg_ft_key as usize).size, 2);
}

/// App. A.3: classes never share a queue. A packet whose flow collides with a busy entry of
/// another class goes to its own class's hash queue (the stochastic pick) and leaves the
/// entry's queue and class alone; an idle entry of another class is reassigned at once, sticky
/// or not; a CSR that moves a class's range does not make the entry's own class look foreign.
#[test]
fn bfc_colliding_flows_of_another_class_never_share_the_entrys_queue() {
    // 7 data queues in 2 classes: class 0 has queues 1..=4, class 1 queues 5..=7; sticky 16.
    let cfg = BfcConfig {
        classes: 2,
        th: vec![60_000; 8],
        ..tiny()
    };
    let mut d = Drive::new(&cfg);
    let f = d.distinct_fids(1)[0];
    let g = d.colliding_fid(f);
    let of_class = |c: u64, fid: u64| BfcIn {
        enq_class: c,
        ..enq(0, 0, fid, 100, 0)
    };
    let a = d.op(of_class(0, f));
    assert_eq!((a.asg_queue, a.asg_new), (1, 1));
    let key = a.asg_ft_key as usize;
    // g of class 1 finds the entry busy with class 0: class 1's hash queue.
    let h = hash32(u128::from(g), 2);
    let hashed = u64::from(5 + reduce_top(h, PICK_BITS, 3));
    let b = d.op(of_class(1, g));
    assert_eq!(
        (b.asg_queue, b.asg_ft_key, b.asg_new),
        (hashed, a.asg_ft_key, 0)
    );
    assert_eq!(branch(&d.m, Branch::CrossClass), 1);
    let e = d.m.ft_entry(0, key);
    assert_eq!(
        (e.q, e.class, e.size),
        (1, 0, 2),
        "entry kept, both packets counted"
    );
    // f keeps its queue while the entry is busy; so does g, in its hash queue.
    assert_eq!(d.op(of_class(0, f)).asg_queue, 1);
    assert_eq!(d.op(of_class(1, g)).asg_queue, hashed);
    // The snapshot names the class the entry was assigned for.
    d.csr_write(
        reg::SNAP_INDEX,
        SNAP_FLOW_TABLE << SNAP_TABLE_SHIFT | key as u64,
    );
    d.idle(2);
    assert_eq!(d.csr_read(reg::SNAP_DATA2), 0);
    assert_eq!(d.csr_read(reg::SNAP_DATA0), 1 | 4 << 8, "queue 1, size 4");
    // Drain all four; the entry is idle and within its sticky time.
    for q in [1, hashed, 1, hashed] {
        let head = BfcOut { asg_queue: q, ..a };
        d.op(deq(&head, 0, 0, 0, 100));
    }
    assert_eq!(d.m.ft_entry(0, key).size, 0);
    // An idle entry of another class is reassigned to class 1 at once: the first empty
    // queue of class 1 (the rotating start is past queue 1).
    let c = d.op(of_class(1, g));
    assert_eq!((c.asg_queue, c.asg_new), (5, 1));
    let e = d.m.ft_entry(0, key);
    assert_eq!((e.q, e.class), (5, 1));
    d.csr_write(
        reg::SNAP_INDEX,
        SNAP_FLOW_TABLE << SNAP_TABLE_SHIFT | key as u64,
    );
    d.idle(2);
    assert_eq!(d.csr_read(reg::SNAP_DATA2), 1);
    // Class 1 moved by CSR to queues 2..=3: the busy entry is still class 1's, so g keeps
    // queue 5 (no reordering) and f, of class 0, goes to class 0's hash queue.
    d.csr_write(reg::CLASS_BASE + 1, class_word(2, 2));
    d.csr_write(reg::CLASS_BASE, class_word(4, 1));
    assert_eq!(d.op(of_class(1, g)).asg_queue, 5);
    let x = d.op(of_class(0, f));
    assert_eq!((x.asg_queue, x.asg_new), (4, 0));
    assert_eq!(branch(&d.m, Branch::CrossClass), 3, "g twice, then f");
}

#[test]
fn bfc_flow_table_key_is_the_shared_hash_reduced_to_the_port_slice() {
    let d = Drive::new(&tiny());
    // tiny: 16-bit flow ids (2 bytes hashed), top 16 hash bits, M = 32.
    for fid in [0u64, 1, 0xBEEF, 0xFFFF] {
        let h = hash32(u128::from(fid), 2);
        assert_eq!(d.m.ft_key(fid) as u64, (u64::from(h >> 16) * 32) >> 16);
    }
}

#[test]
fn bfc_classes_keep_assignment_and_random_choice_within_the_class() {
    // 7 data queues in 2 classes: class 0 has queues 1..=4, class 1 queues 5..=7.
    let cfg = BfcConfig {
        classes: 2,
        ..assign_cfg()
    };
    assert_eq!(cfg.class_queues(1), 5..8);
    let mut d = Drive::new(&cfg);
    let fids = d.distinct_fids(10);
    let class1 = |f: u64| BfcIn {
        enq_class: 1,
        ..enq(0, 0, f, 100, 0)
    };
    let qs: Vec<u64> = fids[..6]
        .iter()
        .map(|&f| d.op(class1(f)).asg_queue)
        .collect();
    // Three empty queues, then random within 5..=7, never in class 0's queues.
    assert_eq!(qs[..3], [5, 6, 7]);
    assert!(qs[3..].iter().all(|q| (5..8).contains(q)), "{qs:?}");
    assert_eq!(d.m.empty_bitmap(0), 0b0001_1111);
    assert_eq!(d.op(enq(0, 0, fids[6], 100, 0)).asg_queue, 1);
    // A class moved by CSR to queues 2..=3.
    d.csr_write(reg::CLASS_BASE + 1, class_word(2, 2));
    assert_eq!(d.op(class1(fids[7])).asg_queue, 2);
}

#[test]
fn bfc_stochastic_and_single_modes_place_flows_statically() {
    let cfg = BfcConfig {
        classes: 2,
        ..assign_cfg()
    };
    let mut d = Drive::new(&cfg);
    let fids = d.distinct_fids(6);
    d.csr_write(reg::MODE, MODE_STOCHASTIC);
    for &f in &fids {
        let h = hash32(u128::from(f), 2);
        let a = d.op(BfcIn {
            enq_class: 1,
            ..enq(0, 0, f, 100, 0)
        });
        assert_eq!(
            (a.asg_queue, a.asg_new),
            (u64::from(5 + reduce_top(h, PICK_BITS, 3)), 0)
        );
    }
    d.csr_write(reg::MODE, MODE_SINGLE);
    for &f in &fids {
        assert_eq!(d.op(enq(0, 0, f, 100, 0)).asg_queue, 1);
        let a = d.op(BfcIn {
            enq_class: 1,
            ..enq(0, 0, f, 100, 0)
        });
        assert_eq!(a.asg_queue, 5);
    }
}

#[test]
fn bfc_threshold_test_uses_the_queue_before_the_packet_strictly() {
    // tiny: Th = 3000 B with one active queue.
    let mut d = Drive::new(&tiny());
    let f = d.distinct_fids(1)[0];
    let mut marks = vec![];
    for _ in 0..5 {
        let a = d.op(enq(2, 0, f, 1000, 5));
        marks.push((a.asg_counter_incr, a.pause_valid));
    }
    // Queue before each packet: 0, 1000, 2000, 3000 (not > 3000), 4000.
    assert_eq!(marks, [(0, 0), (0, 0), (0, 0), (0, 0), (1, 1)]);
    assert_eq!(d.m.pause_counter(2, 5), 1);
}

#[test]
fn bfc_threshold_follows_the_active_queue_count() {
    let mut d = Drive::new(&tiny());
    let [f, g] = d.distinct_fids(2)[..] else {
        unreachable!()
    };
    assert_eq!(d.m.threshold(0), 3000, "N_active = 0 uses the first entry");
    d.op(enq(0, 0, g, 100, 0));
    d.op(enq(0, 0, f, 1600, 0));
    assert_eq!(d.m.n_active(0), 2);
    assert_eq!(d.m.threshold(0), 1500);
    // 1600 > 1500 with two active queues: counted.
    assert_eq!(d.op(enq(0, 0, f, 100, 0)).asg_counter_incr, 1);
    // The downstream pauses g's queue: one active queue, Th = 3000, 1700 is below it.
    d.op(BfcIn {
        rx_valid: 1,
        rx_port: 0,
        rx_kind: RX_PAUSE,
        rx_queue: 1,
        ..IDLE
    });
    assert_eq!(d.m.n_active(0), 1);
    assert_eq!(d.op(enq(0, 0, f, 100, 0)).asg_counter_incr, 0);
}

/// Two speed classes: class 0 the tiny table, class 1 four times it (a 4x faster link at the
/// same HRTT); egress 1 and 3 in class 1.
fn two_speed_cfg() -> BfcConfig {
    let t = tiny();
    let mut th = t.th.clone();
    th.extend(t.th.iter().map(|b| 4 * b));
    BfcConfig {
        speeds: 2,
        port_speed: vec![0, 1, 0, 1],
        th,
        ..t
    }
}

#[test]
fn bfc_each_egress_reads_the_th_row_of_its_speed_class() {
    // Spec §3.4: "Each egress gets its own Th", looked up as ThTab[speed][N_active].
    let mut d = Drive::new(&two_speed_cfg());
    let f = d.distinct_fids(1)[0];
    assert_eq!((d.m.threshold(0), d.m.threshold(1)), (3000, 12_000));
    // The same packets into egress 0 (class 0) and egress 1 (class 1): the first is counted
    // once its queue passes 3000 B, the second only past 12 000 B.
    let mut first = [None, None];
    for k in 0..14 {
        for eg in 0..2u64 {
            if d.op(enq(0, eg, f, 1000, eg)).asg_counter_incr == 1 && first[eg as usize].is_none() {
                first[eg as usize] = Some(k);
            }
        }
    }
    // Queue before packet k is 1000 k B: counted at k = 4 (4000 > 3000) and k = 13.
    assert_eq!(first, [Some(4), Some(13)]);
    // N_active still indexes within the row: two active queues at egress 1 halve its Th.
    let g = d.distinct_fids(2)[1];
    d.op(enq(0, 1, g, 100, 0));
    assert_eq!(d.m.n_active(1), 2);
    assert_eq!(d.m.threshold(1), 6000);
}

#[test]
fn bfc_port_speed_and_th_rows_are_registers() {
    let mut d = Drive::new(&two_speed_cfg());
    assert_eq!(d.csr_read(reg::SPEEDS), 2);
    // The windows show the reset table: ThTab[1][2] = 4 x 1000.
    d.csr_write(reg::TH_SPEED, 1);
    d.csr_write(reg::TH_INDEX, 2);
    assert_eq!(d.csr_read(reg::TH_DATA), 4000);
    d.csr_write(reg::TH_DATA, 4444);
    assert_eq!(d.csr_read(reg::TH_DATA), 4444);
    // A row the table does not have reads 0 and ignores writes.
    d.csr_write(reg::TH_SPEED, 2);
    assert_eq!(d.csr_read(reg::TH_DATA), 0);
    d.csr_write(reg::TH_DATA, 9);
    d.csr_write(reg::TH_SPEED, 1);
    assert_eq!(d.csr_read(reg::TH_DATA), 4444);
    // Moving egress 1 to class 0 gives it class 0's Th at once.
    d.csr_write(reg::PORT_INDEX, 1);
    assert_eq!(d.csr_read(reg::PORT_SPEED), 1);
    d.csr_write(reg::PORT_SPEED, 0);
    assert_eq!((d.csr_read(reg::PORT_SPEED), d.m.threshold(1)), (0, 3000));
    // A class without a row is not stored; the port keeps its class.
    d.csr_write(reg::PORT_SPEED, 3);
    assert_eq!((d.csr_read(reg::PORT_SPEED), d.m.port_speed(1)), (0, 0));
    // Egress 3 still has its reset class.
    d.csr_write(reg::PORT_INDEX, 3);
    assert_eq!(d.csr_read(reg::PORT_SPEED), 1);
}

#[test]
fn bfc_pause_once_and_resume_when_the_last_counted_packet_leaves() {
    let mut d = Drive::new(&tiny());
    let f = d.distinct_fids(1)[0];
    let mut asg = vec![];
    for _ in 0..6 {
        asg.push(d.op(enq(1, 3, f, 1000, 2)));
    }
    let pauses: Vec<u64> = asg.iter().map(|a| a.pause_valid).collect();
    assert_eq!(pauses, [0, 0, 0, 0, 1, 0], "PAUSE only on 0 -> 1");
    assert_eq!((asg[4].pause_port, asg[4].pause_queue), (1, 2));
    assert_eq!(d.m.pause_counter(1, 2), 2);
    let mut resumes = vec![];
    for a in &asg {
        let o = d.op(deq(a, 3, 1, 2, 1000));
        resumes.push((o.resume_valid, o.resume_port, o.resume_queue));
    }
    assert_eq!(
        resumes,
        [
            (0, 0, 0),
            (0, 0, 0),
            (0, 0, 0),
            (0, 0, 0),
            (0, 0, 0),
            (1, 1, 2)
        ]
    );
    assert_eq!(d.m.pause_counter(1, 2), 0);
    assert_eq!(d.m.csr(reg::ERR), 0);
}

#[test]
fn bfc_same_edge_increment_and_decrement_send_no_spurious_pair() {
    let mut d = Drive::new(&tiny());
    let f = d.distinct_fids(1)[0];
    let mut asg = vec![];
    for _ in 0..5 {
        asg.push(d.op(enq(1, 3, f, 1000, 2)));
    }
    assert_eq!(d.m.pause_counter(1, 2), 1);
    // The only counted packet leaves while another is counted: 1 -> 0 -> 1 in sequence,
    // net 1 -> 1: neither RESUME nor PAUSE.
    let o = d.op(both(enq(1, 3, f, 1000, 2), deq(&asg[4], 3, 1, 2, 1000)));
    assert_eq!(
        (o.asg_counter_incr, o.pause_valid, o.resume_valid),
        (1, 0, 0)
    );
    assert_eq!(d.m.pause_counter(1, 2), 1);
    assert_eq!(branch(&d.m, Branch::PauseCounterNet), 1);
    // Different counters on one edge: a RESUME for one and a PAUSE for another together.
    let o = d.op(both(enq(0, 3, f, 1000, 7), deq(&o, 3, 1, 2, 1000)));
    assert_eq!((o.pause_valid, o.pause_port, o.pause_queue), (1, 0, 7));
    assert_eq!((o.resume_valid, o.resume_port, o.resume_queue), (1, 1, 2));
}

#[test]
fn bfc_backpressure_enable_table_skips_the_counter() {
    let mut d = Drive::new(&tiny());
    let f = d.distinct_fids(1)[0];
    // Ingress 2 may not pause for egress 3 (App. B).
    d.csr_write(reg::BPEN_INDEX, 2);
    assert_eq!(d.csr_read(reg::BPEN_LO), 0xF);
    d.csr_write(reg::BPEN_LO, 0b0111);
    for _ in 0..5 {
        assert_eq!(d.op(enq(2, 3, f, 1000, 0)).asg_counter_incr, 0);
    }
    assert_eq!(branch(&d.m, Branch::BackpressureDisabled), 1);
    // Another ingress into the same queue is counted.
    assert_eq!(d.op(enq(1, 3, f, 1000, 0)).asg_counter_incr, 1);
}

#[test]
fn bfc_received_frames_set_the_downstream_pause_state() {
    let cfg = BfcConfig {
        queues: 40,
        th: vec![3000; 40],
        ..tiny()
    };
    // 40 queues: two 32-queue bitmap chunks.
    assert_eq!((cfg.rx_bitmap_bits(), cfg.rx_chunks()), (32, 2));
    let mut d = Drive::new(&cfg);
    let rx = |kind, queue, base, bitmap| BfcIn {
        rx_valid: 1,
        rx_port: 3,
        rx_kind: kind,
        rx_queue: queue,
        rx_base: base,
        rx_bitmap: bitmap,
        ..IDLE
    };
    d.op(rx(RX_PAUSE, 35, 0, 0));
    assert!(d.m.ds_paused(3, 35));
    d.op(rx(RX_BITMAP, 0, 0, 0b1010));
    assert!(d.m.ds_paused(3, 1) && d.m.ds_paused(3, 3) && !d.m.ds_paused(3, 2));
    assert!(d.m.ds_paused(3, 35), "chunk 1 untouched");
    // Chunk 1 covers queues 32..39; bits for queues 40.. are ignored.
    d.op(rx(RX_BITMAP, 0, 1, 0xFFFF_FF81));
    assert!(d.m.ds_paused(3, 32) && !d.m.ds_paused(3, 35) && d.m.ds_paused(3, 39));
    d.op(rx(RX_RESUME, 32, 0, 0));
    assert!(!d.m.ds_paused(3, 32));
    assert_eq!(d.m.csr(reg::ERR), 0);
    d.op(rx(3, 0, 0, 0));
    assert_eq!(d.m.csr(reg::ERR), err::BAD_EVENT, "kind 3 is not a frame");
}

#[test]
fn bfc_periodic_bitmap_lists_the_nonzero_pause_counters_of_each_ingress() {
    let cfg = tiny();
    let mut d = Drive::new(&cfg);
    let f = d.distinct_fids(1)[0];
    for _ in 0..5 {
        d.op(enq(1, 0, f, 1000, 3));
    }
    for _ in 0..5 {
        d.op(enq(1, 2, f, 1000, 6));
    }
    assert_eq!(d.m.pause_counter(1, 3), 1);
    // Over one period: ports 0..3 in slots 0..3, the results EVENT_LATENCY edges later.
    let mut seen = vec![];
    for _ in 0..cfg.t_bm {
        let o = d.step(IDLE);
        if o.bm_valid == 1 {
            seen.push((o.bm_port, o.bm_base, o.bm_bits));
        }
    }
    seen.sort();
    assert_eq!(seen, [(0, 0, 0), (1, 0, 0b0100_1000), (2, 0, 0), (3, 0, 0)]);
    // T_BM = 0 stops them.
    d.csr_write(reg::T_BM, 0);
    d.idle(EVENT_LATENCY.into());
    assert!((0..2 * cfg.t_bm).all(|_| d.step(IDLE).bm_valid == 0));
}

#[test]
fn bfc_bitmap_of_many_upstream_queues_goes_out_in_chunks() {
    let cfg = BfcConfig {
        upstream_queues: 40,
        ..tiny()
    };
    assert_eq!((cfg.bitmap_bits(), cfg.bitmap_chunks()), (32, 2));
    let mut d = Drive::new(&cfg);
    let f = d.distinct_fids(1)[0];
    for _ in 0..5 {
        d.op(enq(2, 0, f, 1000, 33));
    }
    let mut seen = vec![];
    for _ in 0..cfg.t_bm {
        let o = d.step(IDLE);
        if o.bm_valid == 1 && o.bm_port == 2 {
            seen.push((o.bm_base, o.bm_bits));
        }
    }
    seen.sort();
    assert_eq!(seen, [(0, 0), (1, 0b10)]);
}

#[test]
fn bfc_counters_saturate_and_clamp_with_flags() {
    let cfg = BfcConfig {
        pc_bits: 2,
        size_bits: 2,
        th: vec![100; 8],
        ..tiny()
    };
    let mut d = Drive::new(&cfg);
    let f = d.distinct_fids(1)[0];
    let mut asg = vec![];
    for _ in 0..6 {
        asg.push(d.op(enq(0, 0, f, 200, 0)));
    }
    // size counts 1, 2, 3 and stays at 3.
    assert_eq!(d.m.ft_entry(0, asg[0].asg_ft_key as usize).size, 3);
    // Counted from the second packet; the counter stops at 3 and later packets are not
    // counted, so every counted packet is still in it.
    let counted: Vec<u64> = asg.iter().map(|a| a.asg_counter_incr).collect();
    assert_eq!(counted, [0, 1, 1, 1, 0, 0]);
    assert_eq!(d.m.pause_counter(0, 0), 3);
    assert_eq!(d.m.csr(reg::ERR), err::SIZE_SATURATED | err::PC_SATURATED);
    d.csr_write(reg::ERR, 0xFF);
    assert_eq!(d.m.csr(reg::ERR), 0, "write 1 to clear");
    // A dequeue longer than the queue clamps it at 0; a counted dequeue of a zero counter
    // and a dequeue of an empty entry clamp too.
    let long = deq(&asg[0], 0, 0, 0, 5000);
    d.op(long);
    assert_eq!(d.m.qlen(0, 1), 0);
    assert_eq!(d.m.csr(reg::ERR), err::QLEN_UNDERFLOW);
    d.csr_write(reg::ERR, 0xFF);
    for a in &asg[1..4] {
        d.op(deq(a, 0, 0, 0, 1));
    }
    d.op(deq(&asg[1], 0, 0, 0, 1));
    assert_eq!(d.m.ft_entry(0, asg[0].asg_ft_key as usize).size, 0);
    assert_eq!(d.m.pause_counter(0, 0), 0);
    assert_eq!(
        d.m.csr(reg::ERR),
        err::QLEN_UNDERFLOW | err::SIZE_UNDERFLOW | err::PC_UNDERFLOW
    );
}

#[test]
fn bfc_queue_occupancy_saturates_with_a_flag() {
    let cfg = BfcConfig {
        occupancy_bits: 12,
        th: vec![4000; 8],
        ..tiny()
    };
    let mut d = Drive::new(&cfg);
    let f = d.distinct_fids(1)[0];
    for _ in 0..3 {
        d.op(enq(0, 0, f, 1500, 0));
    }
    assert_eq!(d.m.qlen(0, 1), 4095);
    assert_eq!(d.m.csr(reg::ERR) & err::QLEN_SATURATED, err::QLEN_SATURATED);
}

#[test]
fn bfc_bad_events_are_refused_and_flagged() {
    let cfg = BfcConfig {
        ports: 3,
        upstream_queues: 6,
        ..tiny()
    };
    let mut d = Drive::new(&cfg);
    let bad: Vec<(&str, BfcIn)> = vec![
        ("egress port 3 of 3", enq(0, 3, 1, 100, 0)),
        ("ingress port 3 of 3", enq(3, 0, 1, 100, 0)),
        ("upstream queue 6 of 6", enq(0, 0, 1, 100, 6)),
        ("zero length", enq(0, 0, 1, 0, 0)),
        (
            "class 1 of 1",
            BfcIn {
                enq_class: 1,
                ..enq(0, 0, 1, 100, 0)
            },
        ),
    ];
    for (what, i) in bad {
        let a = d.op(i);
        assert_eq!((a.asg_valid, a.asg_refused), (1, 1), "{what}");
        assert_eq!(d.m.csr(reg::ERR), err::BAD_EVENT, "{what}");
        d.csr_write(reg::ERR, 0xFF);
    }
    let good = d.op(enq(0, 0, 1, 100, 0));
    let bad_deq: Vec<(&str, BfcIn)> = vec![
        (
            "queue 0 (control)",
            BfcIn {
                deq_queue: 0,
                ..deq(&good, 0, 0, 0, 100)
            },
        ),
        (
            "key 32 of 32",
            BfcIn {
                deq_ft_key: 32,
                ..deq(&good, 0, 0, 0, 100)
            },
        ),
        (
            "counted, upstream queue 7 of 6",
            BfcIn {
                deq_counter_incr: 1,
                ..deq(&good, 0, 0, 7, 100)
            },
        ),
    ];
    for (what, i) in bad_deq {
        d.op(i);
        assert_eq!(d.m.csr(reg::ERR), err::BAD_EVENT, "{what}");
        d.csr_write(reg::ERR, 0xFF);
    }
    assert_eq!(d.m.qlen(0, good.asg_queue as usize), 100, "nothing changed");
    // A class range made invalid by CSR refuses its packets.
    d.csr_write(reg::CLASS_BASE, class_word(5, 4));
    assert_eq!(d.op(enq(0, 0, 1, 100, 0)).asg_refused, 1);
}

#[test]
fn bfc_th_table_is_written_and_read_through_its_window() {
    let mut d = Drive::new(&tiny());
    d.csr_write(reg::TH_INDEX, 1);
    assert_eq!(d.csr_read(reg::TH_DATA), 1500);
    d.csr_write(reg::TH_DATA, 42);
    assert_eq!(d.csr_read(reg::TH_DATA), 42);
    d.csr_write(reg::TH_INDEX, 0);
    assert_eq!(d.csr_read(reg::TH_DATA), 3000);
    // A write and an enqueue on one edge: the enqueue sees the new Th.
    let f = d.distinct_fids(1)[0];
    d.op(enq(0, 0, f, 500, 0));
    let a = d.op(BfcIn {
        csr_we: 1,
        csr_addr: reg::TH_DATA.into(),
        csr_wdata: 499,
        ..enq(0, 0, f, 500, 0)
    });
    assert_eq!(a.asg_counter_incr, 1);
}

#[test]
fn bfc_snapshot_waits_for_an_edge_without_an_enqueue() {
    let mut d = Drive::new(&tiny());
    let f = d.distinct_fids(1)[0];
    let a = d.op(enq(1, 2, f, 700, 4));
    let index = 2 * 32 + a.asg_ft_key;
    d.csr_write(reg::SNAP_INDEX, SNAP_FLOW_TABLE << SNAP_TABLE_SHIFT | index);
    // Enqueues on every edge hold it off; the status shows it pending.
    for _ in 0..5 {
        let o = d.step(BfcIn {
            csr_addr: reg::STATUS.into(),
            ..enq(1, 2, f, 1000, 4)
        });
        assert_eq!(o.csr_rdata & STATUS_SNAP_BUSY, STATUS_SNAP_BUSY);
    }
    // Served at the first idle edge n, after its events; readable from n + 2 (the RTL
    // reads the occupancy and pause counter in the stage after the flow table).
    d.step(IDLE);
    let busy = d.csr_read(reg::STATUS) & STATUS_SNAP_BUSY;
    assert_eq!(busy, STATUS_SNAP_BUSY, "read at edge n + 1");
    assert_eq!(d.csr_read(reg::STATUS) & STATUS_SNAP_BUSY, 0, "edge n + 2");
    let word = d.csr_read(reg::SNAP_DATA0);
    assert_eq!((word & 0xFF, word >> 8), (a.asg_queue, 6), "queue, size");
    // Pause counter {ingress 1, upstream queue 4}: tiny has 3 upstream-queue bits.
    d.csr_write(
        reg::SNAP_INDEX,
        SNAP_PAUSE_COUNTER << SNAP_TABLE_SHIFT | (1 << 3 | 4),
    );
    d.idle(2);
    // Queue before the five packets: 700, 1700, 2700, 3700, 4700 B; Th 3000.
    assert_eq!(d.csr_read(reg::SNAP_DATA0), 2);
    assert_eq!(d.m.pause_counter(1, 4), 2);
}

/// App. C (spec §3.8) run on the block, cycle by cycle: one flow arriving at x times its drain
/// rate mu into a queue whose PAUSE and RESUME act HRTT after they leave the block, with
/// Th = k x HRTT x mu. Returns the fraction of cycles the link idles, after a warm-up.
fn app_c_idle_fraction(x: f64, k: f64) -> f64 {
    app_c_idle_fraction_late(x, k, 0)
}

/// App. C's loop with `deq_late` of the 400-cycle HRTT spent between a departure and the
/// block's pause counter (`deq_update_latency`) and the rest on the link.
fn app_c_idle_fraction_late(x: f64, k: f64, deq_late: u64) -> f64 {
    const LEN: u64 = 100;
    const SERVICE: u64 = 10; // cycles per packet: mu = LEN / SERVICE bytes per cycle
    const HRTT: u64 = 400; // cycles from a departure to its RESUME's effect on arrivals
    let th = (k * (HRTT * LEN / SERVICE) as f64).round() as u64;
    let link = HRTT - deq_late; // cycles from a PAUSE/RESUME leaving to its effect
    let cfg = BfcConfig {
        th: vec![th; 8],
        occupancy_bits: 20,
        size_bits: 12,
        pc_bits: 12,
        deq_update_latency: deq_late as u32,
        ..tiny()
    };
    let mut d = Drive::new(&cfg);
    let f = d.distinct_fids(1)[0];
    // Upstream pause state as the switch sees it: PAUSE/RESUME act HRTT edges later.
    let mut in_flight: std::collections::VecDeque<(u64, bool)> = Default::default();
    let mut upstream_paused = false;
    let mut fifo: std::collections::VecDeque<BfcOut> = Default::default();
    let mut serving: Option<BfcOut> = None;
    let (mut busy_left, mut idle, mut total) = (0, 0u64, 0u64);
    // Arrivals at x / SERVICE packets per cycle while not paused (a fractional accumulator).
    let mut credit = 0.0f64;
    let period = HRTT as f64 * (k / (x - 1.0) + 1.0 + k + (x - 1.0) + 1.0);
    let warmup = (5.0 * period) as u64;
    let cycles = warmup + (30.0 * period) as u64;
    for t in 0..cycles {
        while in_flight.front().is_some_and(|&(at, _)| at <= t) {
            upstream_paused = in_flight.pop_front().unwrap().1;
        }
        let mut i = IDLE;
        if !upstream_paused {
            credit += x / SERVICE as f64;
            if credit >= 1.0 {
                credit -= 1.0;
                i = enq(0, 1, f, LEN, 0);
            }
        }
        // A packet leaves the queue when its transmission ends (the analysis counts the packet
        // on the wire in the queue), and the next one starts.
        if busy_left == 0 {
            if let Some(p) = serving.take() {
                i = both(i, deq(&p, 1, 0, 0, LEN));
            }
            if let Some(p) = fifo.pop_front() {
                serving = Some(p);
                busy_left = SERVICE;
            }
        }
        if t >= warmup {
            total += 1;
            idle += u64::from(serving.is_none());
        }
        busy_left = busy_left.saturating_sub(1);
        let o = d.step(i);
        if o.asg_valid == 1 {
            assert_eq!(o.asg_refused, 0);
            fifo.push_back(o);
        }
        if o.pause_valid == 1 {
            in_flight.push_back((t + link, true));
        }
        if o.resume_valid == 1 {
            in_flight.push_back((t + link, false));
        }
    }
    idle as f64 / total as f64
}

/// App. C's formula, E_f(x, k) = (x - 1) / (k x + x^2 - 1).
fn app_c_formula(x: f64, k: f64) -> f64 {
    (x - 1.0) / (k * x + x * x - 1.0)
}

/// App. C at every point the paper and spec §3.8 give, run on the block: k = 1 (Th = HRTT x mu,
/// BFC's default) idles 7.6 % at x = 1.1, 18.18 % at x = 1.5 and 3, 20 % at x = 2; the worst
/// case over x is 1 / ((sqrt k + 1)^2 + 1) at x* = sqrt k + 1: 0.2555 (k = 0.5), 0.20 (k = 1),
/// 0.1464 (k = 2), 0.10 (k = 4), and x* beats x* - 0.3 and x* + 0.5.
#[test]
fn bfc_app_c_idle_fractions_match_the_paper_when_run_on_the_block() {
    let points = [
        (1.1, 1.0, 0.0763),
        (1.5, 1.0, 0.1818),
        (2.0, 1.0, 0.20),
        (3.0, 1.0, 0.1818),
        (1.0 + 0.5f64.sqrt(), 0.5, 0.2555),
        (1.0 + 2f64.sqrt(), 2.0, 0.1464),
        (3.0, 4.0, 0.10),
    ];
    for (x, k, paper) in points {
        assert!(
            (app_c_formula(x, k) - paper).abs() < 5e-5,
            "the spec's table at x {x}, k {k}"
        );
        let e = app_c_idle_fraction(x, k);
        eprintln!("App. C at x = {x:.4}, k = {k}: idle {e:.4} on the block, {paper} in the paper");
        assert!(
            (e - paper).abs() < 0.004,
            "x {x}, k {k}: idle {e:.4}, App. C: {paper}"
        );
    }
    for k in [0.5, 1.0, 2.0, 4.0] {
        let best = 1.0 + f64::sqrt(k);
        let at = app_c_idle_fraction(best, k);
        for x in [best - 0.3, best + 0.5] {
            let e = app_c_idle_fraction(x, k);
            assert!(
                e < at,
                "k {k}: idle {e:.4} at x {x:.3} is not below {at:.4} at x* {best:.3}"
            );
        }
    }
}

#[test]
fn bfc_workload_reaches_every_path() {
    use switchcraft_model::bfc::BfcWorkload;
    // 3 ports, 2 classes, 6 upstream queues: buses wide enough to name what does not exist.
    let odd = BfcConfig {
        ports: 3,
        classes: 2,
        upstream_queues: 6,
        ..tiny()
    };
    // Both optional modes of the switch (App. A.7, A.8) on the odd shape.
    let modes = BfcConfig {
        sampling: true,
        incast_label: true,
        ..odd.clone()
    };
    for (preset, c) in [
        ("tiny", tiny()),
        ("fpga", BfcConfig::preset("fpga").unwrap()),
        ("odd", odd),
        ("modes", modes),
    ] {
        let mut m = Bfc::new(&c).unwrap();
        let mut w = BfcWorkload::new(&c, 7);
        for _ in 0..300_000 {
            m.step(&w.next_input());
        }
        let counts = m.branch_counts();
        assert_eq!(
            counts,
            w.branch_counts(),
            "{preset}: the workload follows the block"
        );
        for (branch, n) in counts {
            // Flows of two classes collide only where there are two classes.
            if branch == Branch::CrossClass && c.classes == 1 {
                assert_eq!(n, 0, "{preset}: one class");
                continue;
            }
            let off = match branch {
                Branch::Unsampled => !c.sampling,
                Branch::IncastKeep | Branch::IncastAssign => !c.incast_label,
                _ => false,
            };
            if off {
                assert_eq!(n, 0, "{preset}: {branch:?} without its option");
                continue;
            }
            // Events before ready happen only in the first init_cycles edges.
            let least = if branch == Branch::NotReady { 1 } else { 10 };
            assert!(n >= least, "{preset}: {branch:?} reached only {n} times");
        }
    }
}

/// Issue 30's promise for BFC under a lossy link: a fifth of the PAUSE and RESUME frames BFC
/// sends upstream are lost (its periodic bitmaps are delivered), on the random workload
/// without its writes of T_BM. Upstream's view of each upstream queue (paused by PAUSE, resumed
/// by RESUME, overwritten by a bitmap of its chunk) differs from what BFC sent (the pause
/// counter is non-zero) for at most one bitmap period T_bm: every ingress port gets a bitmap
/// of each chunk once per period. Each bitmap also equals that sent state.
#[test]
fn bfc_lost_pause_and_resume_are_repaired_within_one_bitmap_period() {
    let seed = common::seed();
    // Low thresholds, so pause counters leave and return to 0 often.
    let cfg = BfcConfig {
        t_bm: 200,
        th: vec![300, 150, 100, 75, 60, 50, 42, 37],
        ..tiny()
    };
    let mut m = Bfc::new(&cfg).unwrap();
    let mut work = switchcraft_model::bfc::BfcWorkload::new(&cfg, seed);
    let mut rng = switchcraft_core::rng::SplitMix64::new(seed);
    let (ports, queues) = (cfg.ports as usize, cfg.upstream_queues as usize);
    let width = cfg.bitmap_bits() as usize;
    let mut sent = vec![false; ports * queues];
    let mut upstream = vec![false; ports * queues];
    let mut differs_since: Vec<Option<u64>> = vec![None; ports * queues];
    let (mut lost, mut repaired) = (0u64, 0u64);
    for cycle in 0..1_000_000u64 {
        let mut i = work.next_input();
        // The workload's other CSR writes stay: it follows its own copy of the block.
        if i.csr_addr == u64::from(reg::T_BM) {
            i.csr_we = 0;
        }
        let o = m.step(&i);
        let mut deliver = |k: usize, paused: bool, up: &mut Vec<bool>| {
            if rng.below(1000) < 200 {
                lost += 1;
            } else {
                up[k] = paused;
            }
        };
        if o.pause_valid == 1 {
            let k = o.pause_port as usize * queues + o.pause_queue as usize;
            sent[k] = true;
            deliver(k, true, &mut upstream);
        }
        if o.resume_valid == 1 {
            let k = o.resume_port as usize * queues + o.resume_queue as usize;
            sent[k] = false;
            deliver(k, false, &mut upstream);
        }
        if o.bm_valid == 1 {
            let port = o.bm_port as usize;
            for b in 0..width {
                let q = o.bm_base as usize * width + b;
                if q < queues {
                    let k = port * queues + q;
                    let bit = o.bm_bits >> b & 1 == 1;
                    assert_eq!(
                        bit, sent[k],
                        "cycle {cycle}, seed {seed}: bitmap bit {q} of port {port}"
                    );
                    upstream[k] = bit;
                }
            }
        }
        for k in 0..ports * queues {
            let d = &mut differs_since[k];
            match (upstream[k] != sent[k], *d) {
                (true, None) => *d = Some(cycle),
                (false, Some(_)) => {
                    *d = None;
                    repaired += 1;
                }
                _ => {}
            }
            if let Some(since) = *d {
                assert!(
                    cycle - since < cfg.t_bm,
                    "cycle {cycle}, seed {seed}: upstream queue {} of port {} differs since {since}",
                    k % queues,
                    k / queues
                );
            }
        }
    }
    assert!(
        lost > 200 && repaired > 100,
        "seed {seed}: {lost} lost, {repaired} repaired"
    );
}

/// derive_times refuses a clock that makes a time constant meaningless, naming the field.
#[test]
fn bfc_derive_times_refuses_meaningless_constants() {
    use switchcraft_model::bfc::Timing;
    let at = |clock_mhz: f64| Timing {
        clock_mhz,
        rate_bps: 100e9,
        hrtt_ns: 2000.0,
    };
    let mut c = BfcConfig::preset("ns3-tor").unwrap();
    // 10 MHz: a timestamp unit of 64 cycles is 6.4 us, longer than STICKY = 4 us.
    let e = c.clone().derive_times(&at(10.0)).unwrap_err();
    assert_eq!(e.field, "ts_shift", "{e}");
    // 10 GHz: 4 us is 625 units of 6.4 ns, within 16-bit timestamps.
    c.clone().derive_times(&at(10_000.0)).unwrap();
    // fpga's 12-bit timestamps of 16 cycles: 2 500 units at 10 GHz, not below 2^11.
    let e = BfcConfig::preset("fpga")
        .unwrap()
        .derive_times(&at(10_000.0))
        .unwrap_err();
    assert_eq!(e.field, "sticky", "{e}");
    // HRTT 4 ms at 1 GHz with units of 256 cycles: STICKY = 31 250 units fits, T_BM =
    // 20 000 000 cycles does not fit its 24 bits.
    c.ts_shift = 8;
    let e = c
        .derive_times(&Timing {
            hrtt_ns: 4e6,
            ..at(1000.0)
        })
        .unwrap_err();
    assert_eq!(e.field, "t_bm", "{e}");
}

/// Spec §3.6 `ideal_fid_pause` (§3.3.2 [P]: per-flow pause, "nearly identical" performance):
/// with no collisions (7 flows on 7 data queues, distinct flow-table keys, sticky 0) and one
/// upstream queue per flow, BFC sends exactly the ideal's PAUSE and RESUME frames, and counts
/// the same packets, on random traffic; the downstream pauses flows too (N_active).
#[test]
fn bfc_without_collisions_equals_the_ideal_per_flow_pause() {
    use std::collections::VecDeque;
    use switchcraft_model::bfc::ideal::{FidFrame, IdealFidPause};
    let seed = common::seed();
    let cfg = BfcConfig {
        sticky: 0,
        ..tiny()
    };
    let mut d = Drive::new(&cfg);
    let mut ideal = IdealFidPause::new(&cfg);
    let mut rng = switchcraft_core::rng::SplitMix64::new(seed);
    let fids = d.distinct_fids(7);
    // Per flow: its packets in the switch (the enqueue's result, length, counted).
    let mut queued: Vec<VecDeque<(BfcOut, u64)>> = vec![VecDeque::new(); 7];
    let mut paused = [false; 7];
    let (mut pauses, mut resumes) = (0, 0);
    let frame = |valid: u64, port: u64, queue: u64| (valid == 1).then_some((port, queue));
    for step in 0..50_000 {
        let f = rng.below(7) as usize;
        let (inp, upq) = (f % 4, f as u64);
        let bytes: u64 = queued[f].iter().map(|(_, l)| l).sum();
        let ctx = format!("seed {seed}, step {step}, flow {f}");
        if rng.chance(2) && !queued[f].is_empty() {
            // The downstream pauses or resumes the flow's queue.
            paused[f] = !paused[f];
            let q = queued[f][0].0.asg_queue;
            d.op(BfcIn {
                rx_valid: 1,
                rx_port: 0,
                rx_kind: if paused[f] { RX_PAUSE } else { RX_RESUME },
                rx_queue: q,
                ..IDLE
            });
            ideal.set_ds_paused(0, fids[f], paused[f]);
        } else if rng.chance(55) && bytes < 16_000 {
            // Multiples of 250 B, so a queue often sits exactly on Th (3000, 1500, 1000, 750,
            // 500 B): the strict compare is tested.
            let len = 250 * rng.range(1, 6);
            let a = d.op(enq(inp as u64, 0, fids[f], len, upq));
            let (counted, sent) = ideal.enqueue(inp, 0, fids[f], len);
            assert_eq!(a.asg_counter_incr == 1, counted, "{ctx}");
            let want = sent.map(|_| (inp as u64, upq));
            assert_eq!(
                frame(a.pause_valid, a.pause_port, a.pause_queue),
                want,
                "{ctx}"
            );
            pauses += u32::from(sent.is_some());
            if let Some((b, _)) = queued[f].front() {
                assert_eq!(a.asg_queue, b.asg_queue, "{ctx}: the flow keeps its queue");
            }
            queued[f].push_back((a, len));
        } else if let Some((a, len)) = queued[f].pop_front() {
            let o = d.op(deq(&a, 0, inp as u64, upq, len));
            let sent = ideal.dequeue(inp, 0, fids[f], len, a.asg_counter_incr == 1);
            assert_eq!(sent, sent.map(|_| FidFrame::Resume { inp, fid: fids[f] }));
            let want = sent.map(|_| (inp as u64, upq));
            assert_eq!(
                frame(o.resume_valid, o.resume_port, o.resume_queue),
                want,
                "{ctx}"
            );
            resumes += u32::from(sent.is_some());
            if queued[f].is_empty() && paused[f] {
                // An empty queue's pause state stays with the queue in BFC, with the flow in
                // the ideal: lift it before the flow may move.
                paused[f] = false;
                d.op(BfcIn {
                    rx_valid: 1,
                    rx_port: 0,
                    rx_kind: RX_RESUME,
                    rx_queue: a.asg_queue,
                    ..IDLE
                });
                ideal.set_ds_paused(0, fids[f], false);
            }
        }
        assert_eq!(d.m.n_active(0), ideal.n_active(0), "{ctx}");
    }
    assert!(
        pauses > 50 && resumes > 50,
        "seed {seed}: {pauses} pauses, {resumes} resumes"
    );
    assert_eq!(d.m.csr(reg::ERR), 0, "seed {seed}");
}

/// Sampling on, and a Th of one byte so every sampled packet on a non-empty queue is counted.
fn sampling_cfg() -> BfcConfig {
    BfcConfig {
        sampling: true,
        th: vec![1; 8],
        ..tiny()
    }
}

#[test]
fn bfc_sampling_counts_only_sampled_packets_and_their_departures() {
    let mut d = Drive::new(&sampling_cfg());
    assert_eq!(d.csr_read(reg::SAMPLE_RATE), 128, "reset p_s = 50 %");
    let [f, g] = d.distinct_fids(2)[..] else {
        unreachable!()
    };
    // p_s = 0: packets are assigned and queued but count nowhere.
    d.csr_write(reg::SAMPLE_RATE, 0);
    let a0 = d.op(enq(0, 1, f, 100, 2));
    assert_eq!((a0.asg_queue, a0.asg_new, a0.asg_ft_skip), (1, 1, 1));
    let a1 = d.op(enq(0, 1, f, 100, 2));
    assert_eq!(
        (a1.asg_queue, a1.asg_counter_incr, a1.asg_ft_skip),
        (1, 0, 1)
    );
    let e = d.m.ft_entry(1, a0.asg_ft_key as usize);
    assert_eq!((e.q, e.size), (1, 0), "assigned, not counted");
    assert_eq!((d.m.qlen(1, 1), d.m.pause_counter(0, 2)), (200, 0));
    assert_eq!(branch(&d.m, Branch::Unsampled), 2);
    // Their departures leave the entry alone (no underflow) and only drain the queue.
    d.op(deq(&a0, 1, 0, 2, 100));
    d.op(deq(&a1, 1, 0, 2, 100));
    assert_eq!(d.m.ft_entry(1, a0.asg_ft_key as usize).size, 0);
    assert_eq!((d.m.qlen(1, 1), d.csr_read(reg::ERR)), (0, 0));
    // p_s = 1: as without sampling; the second packet finds 100 B > Th and is counted.
    d.csr_write(reg::SAMPLE_RATE, 256);
    let b0 = d.op(enq(0, 1, g, 100, 3));
    let b1 = d.op(enq(0, 1, g, 100, 3));
    assert_eq!(
        (b0.asg_ft_skip, b1.asg_ft_skip, b1.asg_counter_incr),
        (0, 0, 1)
    );
    assert_eq!(d.m.ft_entry(1, b0.asg_ft_key as usize).size, 2);
    assert_eq!(d.m.pause_counter(0, 3), 1);
    d.op(deq(&b0, 1, 0, 3, 100));
    d.op(deq(&b1, 1, 0, 3, 100));
    assert_eq!(d.m.ft_entry(1, b0.asg_ft_key as usize).size, 0);
    assert_eq!(d.m.pause_counter(0, 3), 0);
}

#[test]
fn bfc_sampling_draws_from_the_lfsr_low_byte() {
    let cfg = BfcConfig {
        sample_rate: 100,
        ..sampling_cfg()
    };
    let mut d = Drive::new(&cfg);
    let f = d.distinct_fids(1)[0];
    let mut sampled = 0;
    for k in 0..2000u64 {
        // Edge n uses the LFSR state n (it steps once per edge from the seed).
        let mut lfsr = Lfsr32::new(cfg.lfsr_seed);
        for _ in 0..d.n {
            lfsr.step();
        }
        let want = lfsr.state() & 0xFF < 100;
        let a = d.op(enq(0, 2, f, 1, 0));
        assert_eq!(a.asg_ft_skip, u64::from(!want), "packet {k}");
        sampled += u64::from(want);
        d.op(deq(&a, 2, 0, 0, 1));
    }
    // p_s = 100 / 256 = 39 %.
    assert!((700..860).contains(&sampled), "{sampled} of 2000 sampled");
    assert_eq!(d.csr_read(reg::ERR), 0);
}

#[test]
fn bfc_sampling_unsampled_arrivals_keep_the_entry_sticky() {
    // Sticky 16 cycles; p_s = 0, so the entry never holds a packet and never sees a dequeue.
    let mut d = Drive::new(&BfcConfig {
        th: vec![60_000; 8],
        ..sampling_cfg()
    });
    d.csr_write(reg::SAMPLE_RATE, 0);
    let [f, g] = d.distinct_fids(2)[..] else {
        unreachable!()
    };
    let a = d.op(enq(0, 0, f, 100, 0));
    let t_enq = d.n - 1 - u64::from(EVENT_LATENCY);
    assert_eq!((a.asg_queue, a.asg_new), (1, 1));
    assert_eq!(d.m.ft_entry(0, a.asg_ft_key as usize).ts_enq, t_enq as u32);
    d.op(deq(&a, 0, 0, 0, 100));
    // g takes queue 2, so a reassignment of f would move it to 3.
    assert_eq!(d.op(enq(0, 0, g, 100, 0)).asg_queue, 2);
    // 15 cycles after f's last arrival: kept.
    d.idle(t_enq + 15 - d.n);
    let a = d.op(enq(0, 0, f, 100, 0));
    assert_eq!((a.asg_queue, a.asg_new), (1, 0));
    assert_eq!(branch(&d.m, Branch::KeepSticky), 1);
    // 16 after that arrival: reassigned.
    let t_enq = d.n - 1 - u64::from(EVENT_LATENCY);
    d.idle(t_enq + 16 - d.n);
    let a = d.op(enq(0, 0, f, 100, 0));
    assert_eq!((a.asg_queue, a.asg_new), (3, 1));
}

#[test]
fn bfc_sampling_off_samples_every_packet_and_fixes_the_register() {
    let mut d = Drive::new(&assign_cfg());
    assert_eq!(d.csr_read(reg::SAMPLE_RATE), 256);
    d.csr_write(reg::SAMPLE_RATE, 0);
    assert_eq!(d.csr_read(reg::SAMPLE_RATE), 256, "a constant");
    let a = d.op(enq(0, 1, 5, 100, 0));
    assert_eq!(a.asg_ft_skip, 0);
    assert_eq!(d.m.ft_entry(1, a.asg_ft_key as usize).ts_enq, 0, "no stamp");
}

fn incast_cfg() -> BfcConfig {
    BfcConfig {
        incast_label: true,
        ..assign_cfg()
    }
}

fn incast(i: BfcIn) -> BfcIn {
    BfcIn { enq_incast: 1, ..i }
}

#[test]
fn bfc_incast_flows_of_a_port_share_one_queue_chosen_when_it_has_drained() {
    let mut d = Drive::new(&incast_cfg());
    let fids = d.distinct_fids(5);
    // Three labelled flows to egress 2: one queue, the first empty one; the flow table is
    // not touched.
    let a: Vec<BfcOut> = fids[..3]
        .iter()
        .map(|&f| d.op(incast(enq(1, 2, f, 100, 0))))
        .collect();
    assert!(a
        .iter()
        .all(|a| (a.asg_queue, a.asg_ft_skip, a.asg_new) == (1, 1, 0)));
    for a in &a {
        assert_eq!(d.m.ft_entry(2, a.asg_ft_key as usize).q, 0, "no entry");
    }
    assert_eq!(
        (
            branch(&d.m, Branch::IncastAssign),
            branch(&d.m, Branch::IncastKeep)
        ),
        (1, 2)
    );
    // An unlabelled flow gets the next empty queue; another port has its own incast queue.
    assert_eq!(d.op(enq(1, 2, fids[3], 100, 0)).asg_queue, 2);
    assert_eq!(d.op(incast(enq(1, 3, fids[0], 100, 0))).asg_queue, 1);
    // Drained, the incast queue is chosen again from the rotating start (after queue 2).
    for a in &a {
        d.op(deq(a, 2, 1, 0, 100));
    }
    assert_eq!(d.m.qlen(2, 1), 0);
    assert_eq!(
        d.csr_read(reg::ERR),
        0,
        "the departures skipped the flow table"
    );
    let b = d.op(incast(enq(1, 2, fids[4], 100, 0)));
    assert_eq!((b.asg_queue, b.asg_ft_skip), (3, 1));
    assert_eq!(branch(&d.m, Branch::IncastAssign), 3);
}

#[test]
fn bfc_incast_packets_are_still_paced_by_the_pause_counter() {
    let mut d = Drive::new(&BfcConfig {
        th: vec![150; 8],
        ..incast_cfg()
    });
    let [f, g] = d.distinct_fids(2)[..] else {
        unreachable!()
    };
    let a0 = d.op(incast(enq(0, 1, f, 100, 4)));
    let a1 = d.op(incast(enq(0, 1, g, 100, 4)));
    let a2 = d.op(incast(enq(0, 1, f, 100, 4)));
    assert_eq!((a0.asg_queue, a1.asg_queue, a2.asg_queue), (1, 1, 1));
    assert_eq!(
        (a1.asg_counter_incr, a2.asg_counter_incr),
        (0, 1),
        "200 B > 150 B"
    );
    assert_eq!(a2.pause_valid, 1);
    d.op(deq(&a0, 1, 0, 4, 100));
    d.op(deq(&a1, 1, 0, 4, 100));
    let r = d.op(deq(&a2, 1, 0, 4, 100));
    assert_eq!((r.resume_valid, r.resume_queue), (1, 4));
}

#[test]
fn bfc_incast_queue_is_per_class_and_the_label_needs_dynamic_mode_and_the_option() {
    let cfg = BfcConfig {
        classes: 2,
        ..incast_cfg()
    };
    let (c0, c1) = (cfg.class_queues(0), cfg.class_queues(1));
    let mut d = Drive::new(&cfg);
    let fids = d.distinct_fids(3);
    let a = d.op(incast(enq(0, 1, fids[0], 100, 0)));
    let b = d.op(incast(BfcIn {
        enq_class: 1,
        ..enq(0, 1, fids[1], 100, 0)
    }));
    assert_eq!(
        (a.asg_queue, b.asg_queue),
        (c0.start.into(), c1.start.into())
    );
    // Stochastic mode ignores the label: the flow's hash queue, counted in its entry.
    d.csr_write(reg::MODE, MODE_STOCHASTIC);
    let s = d.op(incast(enq(0, 1, fids[2], 100, 0)));
    assert_eq!(s.asg_ft_skip, 0);
    assert_eq!(d.m.ft_entry(1, s.asg_ft_key as usize).size, 1);
    // Without the option the label is ignored.
    let mut d = Drive::new(&assign_cfg());
    let fids = d.distinct_fids(2);
    let a = d.op(incast(enq(0, 1, fids[0], 100, 0)));
    let b = d.op(incast(enq(0, 1, fids[1], 100, 0)));
    assert_eq!((a.asg_queue, b.asg_queue, a.asg_ft_skip), (1, 2, 0));
}

#[test]
fn bfc_pipelines_split_the_flow_table_by_ingress_port() {
    // 4 ports in 2 pipelines (ports 0-1, 2-3): each egress port's 32 entries are two slices of
    // 16, and a flow's key depends on the pipeline it arrives in.
    let cfg = BfcConfig {
        pipelines: 2,
        ..assign_cfg()
    };
    assert_eq!(
        (cfg.slice_entries(), cfg.pipeline_of(1), cfg.pipeline_of(2)),
        (16, 0, 1)
    );
    let mut d = Drive::new(&cfg);
    let f = 77;
    let k0 = d.m.ft_key_at(0, f);
    assert!(k0 < 16);
    assert_eq!(d.m.ft_key_at(1, f), k0, "same pipeline, same entry");
    assert_eq!(d.m.ft_key_at(3, f), k0 + 16, "the other pipeline's slice");
    // The flow from ingress 0 and from ingress 3 holds two entries, so two new queues.
    let a = d.op(enq(0, 1, f, 100, 0));
    let b = d.op(enq(3, 1, f, 100, 0));
    assert_eq!((a.asg_ft_key, b.asg_ft_key), (k0 as u64, k0 as u64 + 16));
    assert_eq!(
        (a.asg_queue, a.asg_new, b.asg_queue, b.asg_new),
        (1, 1, 2, 1)
    );
    // From ingress 1 it finds pipeline 0's entry busy and keeps its queue.
    let c = d.op(enq(1, 1, f, 100, 0));
    assert_eq!((c.asg_ft_key, c.asg_queue, c.asg_new), (k0 as u64, 1, 0));
    // Every key stays inside its slice.
    for fid in 0..500 {
        assert!(d.m.ft_key_at(2, fid) >= 16 && d.m.ft_key_at(2, fid) < 32);
    }
}

#[test]
fn bfc_pipelines_must_split_ports_and_entries_evenly() {
    let rule = |c: BfcConfig| c.validate().unwrap_err().to_string();
    let e = rule(BfcConfig {
        pipelines: 3,
        ..tiny()
    });
    assert!(e.contains("pipelines = 3: must divide ports = 4"), "{e}");
    let e = rule(BfcConfig {
        pipelines: 5,
        ..tiny()
    });
    assert!(e.contains("pipelines = 5: must be in 1..=4"), "{e}");
    // 2 ports, 3 queues x 1: 3 entries per port cannot split in 2.
    let e = rule(BfcConfig {
        ports: 2,
        queues: 3,
        ft_multiple: 1,
        th: vec![100; 3],
        t_bm: 8,
        pipelines: 2,
        ..tiny()
    });
    assert!(
        e.contains("pipelines = 2: must divide the 3 flow-table entries per port"),
        "{e}"
    );
    let t2 = BfcConfig::preset("tofino2").unwrap();
    assert_eq!(
        (t2.pipelines, t2.slice_entries() * 32),
        (4, 102_400),
        "spec §3.5"
    );
}

/// Spec §3.8: "a single flow on an isolated link with deq_update_latency included in HRTT". The
/// occupancy is the traffic manager's and falls at once, so a late dequeue update delays only
/// the RESUME: with the link's share Hp of the HRTT before a PAUSE acts and the whole Hr = Hp +
/// deq_update_latency before a RESUME does, App. C's phases become t_p1 = Th / (mu (x - 1)) +
/// Hp, t_p2 = (Th + Hp mu (x - 1)) / mu, t_p3 = Hr.
#[test]
fn bfc_app_c_with_a_late_dequeue_update_counts_it_in_the_resume_delay() {
    let split = |x: f64, k: f64, late: f64| {
        let (hr, mu) = (400.0, 10.0);
        let (hp, th) = (hr - late, k * hr * mu);
        let p1 = th / (mu * (x - 1.0)) + hp;
        let p2 = (th + hp * mu * (x - 1.0)) / mu;
        hr / (p1 + p2 + hr)
    };
    for (x, k) in [(2.0, 1.0), (1.5, 1.0), (3.0, 2.0)] {
        assert!((split(x, k, 0.0) - app_c_formula(x, k)).abs() < 1e-12);
        let e = app_c_idle_fraction_late(x, k, 100);
        let want = split(x, k, 100.0);
        eprintln!("x {x}, k {k}, 100 of 400 cycles in the dequeue update: idle {e:.4}, {want:.4}");
        assert!(
            (e - want).abs() < 0.004,
            "x {x}, k {k}: idle {e:.4}, want {want:.4}"
        );
    }
    // x = 2, k = 1: 400 / 1800 = 0.222 against 0.20 with the whole HRTT on the link.
    assert!((split(2.0, 1.0, 100.0) - 400.0 / 1800.0).abs() < 1e-12);
}

#[test]
fn bfc_deq_update_latency_delays_the_entry_and_counter_not_the_occupancy() {
    let late = 5;
    let mut d = Drive::new(&BfcConfig {
        th: vec![150; 8],
        deq_update_latency: late,
        ..tiny()
    });
    let f = d.distinct_fids(1)[0];
    let a0 = d.op(enq(0, 1, f, 100, 3));
    let a1 = d.op(enq(0, 1, f, 100, 3));
    let a2 = d.op(enq(0, 1, f, 100, 3));
    assert_eq!(
        (a1.asg_counter_incr, a2.asg_counter_incr),
        (0, 1),
        "200 B > 150 B"
    );
    let key = a0.asg_ft_key as usize;
    d.op(deq(&a0, 1, 0, 3, 100));
    d.op(deq(&a1, 1, 0, 3, 100));
    d.idle(u64::from(late));
    // The counted packet leaves at edge t: its bytes at once, its entry and counter at t + 5.
    let t = d.n;
    d.step(deq(&a2, 1, 0, 3, 100));
    assert_eq!(d.m.qlen(1, 1), 0, "the occupancy falls at once");
    assert_eq!((d.m.ft_entry(1, key).size, d.m.pause_counter(0, 3)), (1, 1));
    let mut resumed = None;
    for _ in 0..20 {
        if d.step(IDLE).resume_valid == 1 {
            resumed = Some(d.n - 1);
        }
    }
    assert_eq!((d.m.ft_entry(1, key).size, d.m.pause_counter(0, 3)), (0, 0));
    assert_eq!(
        resumed,
        Some(t + u64::from(late) + u64::from(EVENT_LATENCY)),
        "RESUME leaves EVENT_LATENCY after the late update"
    );
    assert_eq!(d.csr_read(reg::ERR), 0);
}

#[test]
fn bfc_early_resume_resumes_when_the_queue_is_no_longer_above_th() {
    let run = |early: bool| {
        let mut d = Drive::new(&BfcConfig {
            th: vec![150; 8],
            early_resume: early,
            ..tiny()
        });
        let f = d.distinct_fids(1)[0];
        // One flow, one queue: two uncounted packets from upstream queue 1, then a counted
        // one from 1 (200 B > 150) and one from 2 (300 B).
        let p: Vec<BfcOut> = [1, 1, 1, 2]
            .iter()
            .map(|&u| d.op(enq(0, 1, f, 100, u)))
            .collect();
        assert_eq!(
            p.iter().map(|a| a.asg_counter_incr).collect::<Vec<_>>(),
            [0, 0, 1, 1]
        );
        let mut resumes = vec![];
        for (k, (a, u)) in p.iter().zip([1, 1, 1, 2]).enumerate() {
            d.step(deq(a, 1, 0, u, 100));
            for _ in 0..4 {
                let o = d.step(IDLE);
                if o.resume_valid == 1 {
                    resumes.push((k, o.resume_queue));
                }
            }
        }
        assert_eq!(d.csr_read(reg::ERR), 0, "early {early}: no underflow");
        assert_eq!((d.m.pause_counter(0, 1), d.m.pause_counter(0, 2)), (0, 0));
        resumes
    };
    // The third departure leaves 100 B <= Th: upstream queue 2's packet, still queued, no
    // longer holds its pause, and its own departure later lowers nothing.
    assert_eq!(run(true), [(2, 1), (2, 2)]);
    assert_eq!(run(false), [(2, 1), (3, 2)]);
}

#[test]
fn bfc_reserve_sticky_keeps_new_flows_off_a_queue_a_sticky_entry_holds() {
    let run = |reserve: bool| {
        let mut d = Drive::new(&BfcConfig {
            th: vec![60_000; 8],
            reserve_sticky: reserve,
            ..tiny()
        });
        let fids = d.distinct_fids(9);
        let a: Vec<BfcOut> = fids[..7]
            .iter()
            .map(|&f| d.op(enq(0, 1, f, 100, 0)))
            .collect();
        // Queue 1 drains; its entry stays sticky for 16 cycles.
        d.op(deq(&a[0], 1, 0, 0, 100));
        let g = d.op(enq(0, 1, fids[7], 100, 0));
        let (empty, random) = (
            branch(&d.m, Branch::AssignEmpty),
            branch(&d.m, Branch::AssignRandom),
        );
        d.idle(20);
        let h = d.op(enq(0, 1, fids[8], 100, 0));
        (g.asg_queue, empty, random, h.asg_queue)
    };
    // Without the option the sticky entry's empty queue goes to the new flow.
    let (q, empty, random, _) = run(false);
    assert_eq!((q, empty, random), (1, 8, 0));
    // With it no queue is free: the LFSR picks; once STICKY has passed queue 1 is free again.
    let (_, empty, random, later) = run(true);
    assert_eq!((empty, random, later), (7, 1, 1));
}

#[test]
fn bfc_model_only_options_are_refused_for_the_rtl() {
    for (cfg, field) in [
        (
            BfcConfig {
                deq_update_latency: 3,
                ..tiny()
            },
            "deq_update_latency",
        ),
        (
            BfcConfig {
                early_resume: true,
                ..tiny()
            },
            "early_resume",
        ),
        (
            BfcConfig {
                reserve_sticky: true,
                ..tiny()
            },
            "reserve_sticky",
        ),
    ] {
        assert!(cfg.validate().is_ok(), "{field}: the model takes it");
        assert_eq!(cfg.model_only_option().map(|(f, _)| f), Some(field));
        let e = switchcraft::BlockConfig::new(switchcraft::blocks::bfc::BfcBlock, cfg)
            .check_rtl()
            .unwrap_err();
        assert!(
            e.0.starts_with(&format!("{field}: an option of the golden model only")),
            "{e}"
        );
    }
    assert!(tiny().model_only_option().is_none());
}
