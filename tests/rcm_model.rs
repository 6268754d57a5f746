//! Golden-model tests of RCM: each asserts a rule of the spec (../shared/spec/mechanisms.md §4)
//! or of the contract in docs/blocks/rcm.md, with the expected values worked out here. The
//! spec's §7.4 vectors are named (R3, R4, R7, R8).

use switchcraft_core::CycleModel;
use switchcraft_model::feedback::{fb_max, FbScale};
use switchcraft_model::rcm::calc::{self, Window};
use switchcraft_model::rcm::{
    err, reg, Rcc, Rcm, RcmConfig, RcmIn, RcmOut, RcmWorkload, Role, CN_LATENCY, ERR_LATENCY,
    GD_ONE, ID_WORD, PORT_LATENCY, PRESETS, RATE_ONE, SAMPLE_DELAY, SAMP_LEVELS, STATUS_READY,
};

/// `tiny` with every arrival a sample (the intervals are written to 1 by [`Bench::new`]).
fn cfg() -> RcmConfig {
    RcmConfig::preset("tiny").unwrap()
}

/// `tiny` with room for long tests: 24-bit windows and 20-bit timestamps, rcf held for 60 000
/// edges, a measurement of 1 000.
fn long() -> RcmConfig {
    RcmConfig {
        window_bits: 24,
        ts_bits: 20,
        t_rcf: 60_000,
        t_meas: 1000,
        ..cfg()
    }
}

/// A model driven edge by edge, with every output kept.
struct Bench {
    m: Rcm,
    outs: Vec<RcmOut>,
}

impl Bench {
    /// The model of `c`, run idle until its tables are cleared, with every sampling interval 1
    /// (every arrival a sample).
    fn new(c: &RcmConfig) -> Bench {
        let mut b = Bench::raw(c);
        for k in 0..SAMP_LEVELS as u32 {
            b.write(reg::SAMP_INTERVAL + k, 1);
        }
        b.idle(c.init_cycles() as usize);
        b
    }

    /// The model of `c` at reset, with its reset values.
    fn raw(c: &RcmConfig) -> Bench {
        Bench {
            m: Rcm::new(c).unwrap(),
            outs: Vec::new(),
        }
    }

    fn now(&self) -> usize {
        self.outs.len()
    }

    fn step(&mut self, i: RcmIn) -> RcmOut {
        let o = self.m.step(&i);
        self.outs.push(o);
        o
    }

    fn idle(&mut self, edges: usize) {
        for _ in 0..edges {
            self.step(RcmIn::default());
        }
    }

    /// The output after edge `t`, running idle edges until it exists.
    fn out(&mut self, t: usize) -> RcmOut {
        while self.outs.len() <= t {
            self.step(RcmIn::default());
        }
        self.outs[t]
    }

    fn write(&mut self, index: u32, value: u64) {
        self.step(RcmIn {
            csr_we: 1,
            csr_addr: index.into(),
            csr_wdata: value,
            ..RcmIn::default()
        });
    }

    /// Register `index` read on the CSR bus (so the port views are computed as the RTL shows
    /// them).
    fn read(&mut self, index: u32) -> u64 {
        self.step(RcmIn {
            csr_addr: index.into(),
            ..RcmIn::default()
        })
        .csr_rdata
    }

    /// A port's view registers: (flags, fb word, W, Wc, sent_c, R).
    fn view(&mut self, port: u64) -> [u64; 6] {
        self.write(reg::PORT_SEL, port);
        std::array::from_fn(|k| self.read(reg::PORT_FLAGS + k as u32))
    }

    /// An output-queue arrival; returns its edge.
    fn oq(&mut self, port: u64, q: u64, len: u64, fid: u64) -> usize {
        let t = self.now();
        self.step(RcmIn {
            oq_valid: 1,
            oq_port: port,
            oq_qdepth: q,
            oq_len: len,
            oq_fid: fid,
            ..RcmIn::default()
        });
        t
    }

    /// A VOQ arrival; returns its edge.
    fn iq(&mut self, port: u64, voq: u64, q: u64, len: u64) -> usize {
        let t = self.now();
        self.step(RcmIn {
            iq_valid: 1,
            iq_port: port,
            iq_voq: voq,
            iq_qdepth: q,
            iq_len: len,
            ..RcmIn::default()
        });
        t
    }

    /// The CN caused by the VOQ arrival of edge `t`.
    fn cn(&mut self, t: usize) -> Option<(u64, u64, u64, u64)> {
        let o = self.out(t + CN_LATENCY as usize);
        (o.cn_valid == 1).then_some((o.cn_port, o.cn_fbp, o.cn_list, o.cn_relay))
    }

    /// A received CN: the header on one edge, then its IDs, one per edge.
    fn receive(&mut self, port: u64, fbp: u64, ids: &[u64]) {
        self.step(RcmIn {
            cnr_valid: 1,
            cnr_port: port,
            cnr_fbp: fbp,
            ..RcmIn::default()
        });
        for &fid in ids {
            self.step(RcmIn {
                cni_valid: 1,
                cni_port: port,
                cni_fid: fid,
                ..RcmIn::default()
            });
        }
    }

    /// The scheduler offers a packet: (grant, harmful).
    fn offer(&mut self, port: u64, fid: u64, len: u64, alone: bool) -> (bool, bool) {
        let t = self.now();
        self.step(RcmIn {
            sch_valid: 1,
            sch_port: port,
            sch_fid: fid,
            sch_len: len,
            sch_alone: alone.into(),
            ..RcmIn::default()
        });
        let o = self.out(t + PORT_LATENCY as usize);
        assert_eq!(o.dec_valid, 1);
        (o.dec_grant == 1, o.dec_harmful == 1)
    }

    /// A route query: (port, detour).
    fn route(&mut self, port: u64, cands: u64, fid: u64, new: bool) -> (u64, bool) {
        let t = self.now();
        self.step(RcmIn {
            rt_valid: 1,
            rt_port: port,
            rt_cands: cands,
            rt_fid: fid,
            rt_new: new.into(),
            ..RcmIn::default()
        });
        let o = self.out(t + PORT_LATENCY as usize);
        assert_eq!(o.route_valid, 1);
        (o.route_port, o.route_detour == 1)
    }

    /// Entry `index` of a port's CAM (`ext` false) or received list.
    fn id(&mut self, port: u64, ext: bool, index: u64) -> Option<u64> {
        let t = self.now();
        self.step(RcmIn {
            idr_valid: 1,
            idr_port: port,
            idr_ext: ext.into(),
            idr_index: index,
            ..RcmIn::default()
        });
        let o = self.out(t + PORT_LATENCY as usize);
        assert_eq!(o.id_valid, 1);
        (o.id_hit == 1).then_some(o.id_fid)
    }

    /// Runs idle until the sweep has visited every port once and every sample has landed.
    fn settle(&mut self) {
        self.idle(self.m.config().ports as usize + SAMPLE_DELAY as usize + 1);
    }
}

/// The quantised Fb the model computes for depth q with q_old, at `tiny`'s reset registers.
fn fb6(c: &RcmConfig, q: u64, q_old: u64) -> u64 {
    let fb = (q as i64 - c.q_eq as i64) + i64::from(c.w) * (q as i64 - q_old as i64);
    c.fb_scale().quantise(fb)
}

#[test]
fn presets_validate_and_the_registers_read_their_reset_values() {
    for name in PRESETS {
        let c = RcmConfig::preset(name).unwrap();
        c.validate().unwrap();
        let mut b = Bench::raw(&c);
        assert_eq!(b.read(reg::ID), ID_WORD);
        assert_eq!(b.read(reg::Q_EQ), c.q_eq);
        assert_eq!(b.read(reg::GD), c.gd);
        assert_eq!(b.read(reg::FB_SCALE), c.fb_scale().word());
        for (k, v) in c.samp_intervals().into_iter().enumerate() {
            assert_eq!(b.read(reg::SAMP_INTERVAL + k as u32), v, "{name} level {k}");
        }
        assert_eq!(
            b.read(reg::PORT_RATE),
            RATE_ONE,
            "{name}: R starts at the line rate"
        );
    }
    assert!(RcmConfig::preset("nope").is_none());
}

#[test]
fn bad_configs_name_the_field_and_rule() {
    let bad = |f: fn(&mut RcmConfig), field: &str| {
        let mut c = cfg();
        f(&mut c);
        let e = c.validate().unwrap_err();
        assert_eq!(e.field, field, "{e}");
    };
    bad(|c| c.ports = 17, "ports");
    bad(|c| c.cam_depth = 6, "cam_depth");
    bad(|c| c.fid_bits = 65, "fid_bits");
    bad(|c| c.q_eq = 0, "q_eq");
    bad(|c| c.gd = GD_ONE + 1, "gd");
    bad(|c| c.t_rcf = (1 << 11) + 1, "t_rcf");
    bad(|c| c.sar_cns = 5, "sar_cns");
    bad(|c| c.wc_min = 0, "wc_min");
    let e = RcmConfig::from_toml("ports = 4\n", "x.toml").unwrap_err();
    assert!(e.0.starts_with("x.toml"), "{e}");
}

/// The interval table at reset: 802.1Qau's base, shrinking to a tenth at the top level.
#[test]
fn sampling_intervals_run_from_the_base_to_a_tenth() {
    let c = RcmConfig::preset("paper").unwrap();
    let t = c.samp_intervals();
    assert_eq!(t[0], 150_000);
    assert_eq!(t[7], 15_000);
    assert!(t.windows(2).all(|w| w[0] > w[1]));
}

/// The byte counter: an arrival is a sample when the counter is at most its length; the
/// counter then reloads with the interval of the arrival's level, else counts down.
#[test]
fn a_sample_every_interval_of_bytes_at_the_level_of_the_depth() {
    let c = cfg();
    let mut b = Bench::raw(&c);
    b.idle(c.init_cycles() as usize);
    let (q_low, q_high) = (100, 3000);
    let level_high = c.fb_scale().quantise(q_high as i64 - c.q_eq as i64) >> 3;
    assert_eq!(level_high, 7, "q - Q_eq is beyond Fb_max");
    let intervals = c.samp_intervals();
    // The counter starts at 0: the first arrival is a sample; it reloads with level 0's 600.
    let t0 = b.oq(1, q_low, 200, 5);
    b.settle();
    assert_eq!(b.m.oq_q_old(1), q_low, "edge {t0} sampled");
    // 200 + 200 = 400 < 600 counted down; the third (counter 200 <= 200) is a sample.
    b.oq(1, q_low + 1, 200, 5);
    b.oq(1, q_low + 2, 200, 5);
    b.settle();
    assert_eq!(b.m.oq_q_old(1), q_low, "two arrivals within the interval");
    b.oq(1, q_high, 200, 5);
    b.settle();
    assert_eq!(b.m.oq_q_old(1), q_high, "the third is a sample");
    // Reloaded at level 7: every intervals[7] bytes.
    let n = intervals[7].div_ceil(100);
    for k in 0..n - 1 {
        b.oq(1, q_high - 1 - k, 100, 5);
    }
    b.settle();
    assert_eq!(
        b.m.oq_q_old(1),
        q_high,
        "{} bytes counted down",
        (n - 1) * 100
    );
    b.oq(1, 7, 100, 5);
    b.settle();
    assert_eq!(b.m.oq_q_old(1), 7);
}

/// Eq. 1 with RCM's sign: Fb = (q - Q_eq) + w (q - q_old), quantised; q_old = q.
#[test]
fn the_feedback_is_eq_1_and_the_port_shows_it() {
    let c = cfg();
    let mut b = Bench::new(&c);
    b.oq(2, 500, 10, 1);
    b.oq(2, 600, 10, 1);
    b.settle();
    assert_eq!(b.m.oq_q_old(2), 600);
    let want = fb6(&c, 600, 500);
    assert!(want > 0 && want < 63);
    assert_eq!(b.m.port(2).fb, want);
    assert_eq!(b.view(2)[1] & 63, want);
    // Fb_max = Q_eq (1 + 2 w) quantises to 63.
    assert_eq!(c.fb_scale().quantise(fb_max(c.q_eq, c.w) as i64), 63);
}

#[test]
fn lcf_sets_on_fb_above_0_and_clears_after_n_clear_calm_samples() {
    let c = cfg();
    let mut b = Bench::new(&c);
    b.oq(0, 500, 10, 1);
    b.settle();
    assert!(b.m.port(0).lcf);
    assert_eq!(b.m.port(0).role(), Role::Root);
    // Calm samples: q falling below Q_eq. Two are not enough (n_clear = 3).
    b.oq(0, 100, 10, 1);
    b.oq(0, 90, 10, 1);
    b.settle();
    assert!(b.m.port(0).lcf);
    // A congested VOQ sample at input 0 restarts the run.
    b.iq(0, 3, 600, 10);
    b.oq(0, 80, 10, 1);
    b.oq(0, 70, 10, 1);
    b.settle();
    assert!(b.m.port(0).lcf, "the run restarted");
    b.oq(0, 60, 10, 1);
    b.settle();
    assert!(!b.m.port(0).lcf);
    assert_eq!(b.m.port(0).role(), Role::None);
}

/// A congested VOQ sends a CN upstream through its input port, rate-limited to one per T_cn;
/// Fb' combines the sample's Fb with the output's Fbr (Eq. 2) and the CN names the output's
/// list; it is a relay when the output has rcf.
#[test]
fn congested_voqs_send_cns_upstream_once_per_t_cn() {
    let c = cfg();
    let mut b = Bench::new(&c);
    let t = b.iq(1, 2, 500, 10);
    let first = fb6(&c, 500, 0);
    assert_eq!(b.cn(t), Some((1, first, 2, 0)));
    // Within T_cn of it, through the same port: none; through another port: one.
    let t2 = b.iq(1, 2, 510, 10);
    assert_eq!(b.cn(t2), None);
    let t3 = b.iq(3, 2, 500, 10);
    assert!(b.cn(t3).is_some());
    // A calm VOQ sends none.
    let t4 = b.iq(0, 2, 100, 10);
    assert_eq!(b.cn(t4), None);
    // T_cn after the first, port 1 may send again; with rcf on output 2 (Fbr 20), Fb' is
    // Eq. 2's mean and the CN relays the received IDs.
    b.receive(2, 20, &[7]);
    while b.now() < t + SAMPLE_DELAY as usize + c.t_cn as usize {
        b.idle(1);
    }
    let t5 = b.iq(1, 2, 500, 10);
    let fb = fb6(&c, 500, 510);
    assert_eq!(b.cn(t5), Some((1, calc::regional_degree(fb, 20, 1), 2, 1)));
    assert_eq!(b.id(2, true, 0), Some(7));
}

/// R8: Fb = 40, Fbr = 20, w = 1/2 gives Fb' = 30, by the function and by the block.
#[test]
fn r8_regional_degree_of_40_and_20_is_30() {
    assert_eq!(calc::regional_degree(40, 20, 1), 30);
    assert_eq!(calc::regional_degree(40, 20, 0), 20, "w = 1: all remote");
    assert_eq!(calc::regional_degree(41, 20, 1), 30, "rounded down");
    let c = cfg();
    let mut b = Bench::new(&c);
    // Find a depth whose first sample quantises to 40.
    let q = (c.q_eq..4095).find(|&q| fb6(&c, q, 0) == 40).unwrap();
    b.receive(1, 20, &[]);
    b.oq(1, q, 10, 9);
    b.settle();
    let fb_word = b.view(1)[1];
    assert_eq!((fb_word & 63, fb_word >> 8 & 63), (40, 20));
    assert_eq!(fb_word >> 16 & 63, 30, "Fb' = 30");
}

#[test]
fn rcf_holds_for_t_rcf_after_the_last_cn() {
    let c = cfg();
    let mut b = Bench::new(&c);
    b.receive(3, 5, &[]);
    let t = b.now() - 1;
    assert!(b.m.port(3).rcf);
    assert_eq!(b.m.port(3).role(), Role::Edge);
    // The sweep clears it at its first visit at or after T_rcf.
    while b.now() < t + c.t_rcf as usize {
        b.idle(1);
        assert!(b.m.port(3).rcf, "edge {}", b.now());
    }
    b.idle(c.ports as usize);
    assert!(!b.m.port(3).rcf);
}

/// CFR: each output-queue sample writes its flow into the CAM, cyclically; a CN's header
/// replaces the received list and its IDs fill it in order.
#[test]
fn the_cam_is_written_cyclically_and_a_cn_replaces_the_received_list() {
    let c = cfg();
    let d = c.cam_depth as u64;
    let mut b = Bench::new(&c);
    for k in 0..d + 1 {
        b.oq(0, 10, 10, 100 + k);
    }
    b.settle();
    assert_eq!(
        b.id(0, false, 0),
        Some(100 + d),
        "the first entry overwritten"
    );
    for k in 1..d {
        assert_eq!(b.id(0, false, k), Some(100 + k));
    }
    assert_eq!(b.id(1, false, 0), None);
    b.receive(0, 3, &[1, 2, 3]);
    b.receive(0, 3, &[4]);
    assert_eq!(b.id(0, true, 0), Some(4));
    assert_eq!(b.id(0, true, 1), None, "the header cleared the old list");
}

/// Harmful: in the CAM on a root (or uncongested) port, in the received list with rcf.
#[test]
fn harmful_flows_come_from_the_cam_or_from_the_root() {
    let c = cfg();
    let mut b = Bench::new(&c);
    b.oq(1, 10, 10, 55);
    b.settle();
    assert_eq!(b.offer(1, 55, 10, false), (true, true));
    assert_eq!(b.offer(1, 56, 10, false), (true, false));
    b.receive(1, 1, &[56]);
    assert!(
        !b.offer(1, 55, 10, false).1,
        "the root's IDs replace the CAM's"
    );
    assert!(b.offer(1, 56, 10, false).1);
}

/// Sets up port `p` with the RCC on: a CN with Fb' `fbp` naming flow 1, then during the
/// measurement `c_bytes` of flow 1 and `nc_bytes` of flow 2 in 128-byte packets.
fn measured(b: &mut Bench, p: u64, fbp: u64, c_bytes: u64, nc_bytes: u64) {
    b.receive(p, fbp, &[1]);
    b.idle(b.m.config().ports as usize);
    assert_eq!(b.m.port(p as usize).rcc, Rcc::Measure);
    let first = b.now();
    let n = ((c_bytes + nc_bytes) / 128) as usize;
    for k in 0..n {
        b.step(RcmIn {
            sch_valid: 1,
            sch_port: p,
            sch_fid: if k < (c_bytes / 128) as usize { 1 } else { 2 },
            sch_len: 128,
            ..RcmIn::default()
        });
    }
    for t in first..first + n {
        let o = b.out(t + PORT_LATENCY as usize);
        assert_eq!(
            (o.dec_valid, o.dec_grant),
            (1, 1),
            "measuring: every packet goes"
        );
    }
    let t_meas = b.m.config().t_meas as usize;
    b.idle(t_meas + b.m.config().ports as usize);
    assert_eq!(b.m.port(p as usize).rcc, Rcc::On);
}

/// R7: W = 64 KB, Wc = 32 KB and Fb Gd = 1/2 give Wc = 16 KB and Wnc = 48 KB: the harmful
/// flows' share of the window falls to 25 %. By the calculator, and by the block (a
/// measurement of 32 KB + 32 KB, then the CN's reduction).
#[test]
fn r7_window_64k_32k_halved_gives_16k_and_48k() {
    let w = Window::reduce(65_536, 32_768, 32, 1024, 1500);
    assert_eq!((w.wc, w.wnc), (16_384, 49_152));
    assert_eq!(w.harmful_share(), 0.25);
    let c = long();
    let mut b = Bench::new(&c);
    b.write(reg::GD, 1024);
    measured(&mut b, 2, 32, 32_768, 32_768);
    let v = b.view(2);
    assert_eq!((v[2], v[3]), (65_536, 16_384));
    assert_eq!(v[5], RATE_ONE / 2, "R halved (Eq. 4)");
    assert_eq!(v[0] >> 4 & 3, Rcc::On as u64);
}

/// R3 and R4: Gd = 1/(2 Fb_max) cuts at most 50 %; 1/126 exactly, 520 in Q0.16 (49.99 %),
/// or 1/128 as a shift (49.2 %). By the block: the largest Fb' halves Wc at most.
#[test]
fn r3_r4_one_reduction_cuts_at_most_half() {
    let (exact, register) = calc::gd_exact();
    assert_eq!(exact, 1.0 / 126.0);
    assert_eq!(register, 520);
    assert!((calc::max_cut(520) - 0.5).abs() < 1e-3 && calc::max_cut(520) <= 0.5);
    assert_eq!(calc::max_cut(calc::GD_SHIFT_128), 63.0 / 128.0);
    assert_eq!(format!("{:.1}", 100.0 * calc::max_cut(512)), "49.2");
    let c = long();
    let mut b = Bench::new(&c);
    measured(&mut b, 0, 63, 20_480, 20_480);
    let wc1 = b.m.port(0).wc;
    assert_eq!(wc1, calc::reduce_window(20_480, 63, 520, c.wc_min));
    assert!(wc1 * 2 >= 20_480, "at most 50 %: {wc1}");
    // Another CN: one more reduction at the next visit, again at most half.
    b.receive(0, 63, &[1]);
    b.idle(c.ports as usize);
    let wc2 = b.m.port(0).wc;
    assert!(wc2 < wc1 && wc2 * 2 >= wc1);
}

/// Triggers between two visits of the sweep make one reduction, with the largest Fb.
#[test]
fn one_reduction_per_visit_with_the_largest_pending_fb() {
    let c = long();
    let mut b = Bench::new(&c);
    measured(&mut b, 1, 0, 40_960, 0);
    let wc = b.m.port(1).wc;
    assert_eq!(wc, 40_960, "Fb' 0 cuts nothing");
    // Align to just after port 1's visit (edge n with n mod 4 = 1).
    while b.now() % 4 != 2 {
        b.idle(1);
    }
    b.receive(1, 10, &[]);
    b.receive(1, 30, &[]);
    b.receive(1, 20, &[]);
    assert_eq!(b.m.port(1).pend, Some(30));
    b.idle(4);
    assert_eq!(b.m.port(1).wc, calc::reduce_window(wc, 30, c.gd, c.wc_min));
}

#[test]
fn wc_never_goes_below_wc_min() {
    let c = long();
    let mut b = Bench::new(&c);
    measured(&mut b, 3, 63, 3072, 3072);
    for _ in 0..20 {
        b.receive(3, 63, &[1]);
        b.idle(4);
        assert!(b.m.port(3).wc >= c.wc_min);
    }
    assert_eq!(b.m.port(3).wc, c.wc_min);
}

/// The window scheduler: harmful packets go while sent_c < Wc, then wait for the window's
/// end (sent_all >= W), unless nothing else waits (work-conserving restart).
#[test]
fn harmful_packets_wait_once_wc_is_spent_until_the_window_ends() {
    let c = RcmConfig { gd: 1024, ..long() };
    let mut b = Bench::new(&c);
    // W = 4096, Wc = 2048 halved to 1024.
    measured(&mut b, 0, 32, 2048, 2048);
    assert_eq!((b.m.port(0).w, b.m.port(0).wc), (4096, 1024));
    for _ in 0..8 {
        assert_eq!(b.offer(0, 1, 128, false), (true, true));
    }
    assert_eq!(b.offer(0, 1, 128, false), (false, true), "Wc spent");
    assert_eq!(b.offer(0, 2, 128, false), (true, false), "others go");
    assert_eq!(b.m.port(0).sent_all, 1024 + 128);
    // Others fill the window: at sent_all >= W a new one starts.
    for _ in 0..23 {
        b.offer(0, 2, 128, false);
    }
    assert_eq!((b.m.port(0).sent_all, b.m.port(0).sent_c), (0, 0));
    assert_eq!(b.offer(0, 1, 128, false), (true, true));
    // Spend Wc again; alone, a held packet starts the next window instead.
    for _ in 0..7 {
        b.offer(0, 1, 128, false);
    }
    assert!(!b.offer(0, 1, 128, false).0);
    assert_eq!(b.offer(0, 1, 128, true), (true, true));
    assert_eq!((b.m.port(0).sent_all, b.m.port(0).sent_c), (128, 128));
}

/// Exit: with lcf and rcf both clear the RCC stops; the next onset measures afresh. A
/// measurement without a harmful packet starts nothing (spec §4.8).
#[test]
fn the_rcc_exits_with_the_flags_and_needs_a_harmful_packet_to_start() {
    let c = RcmConfig {
        window_bits: 24,
        t_meas: 100,
        t_rcf: 300,
        ..cfg()
    };
    let mut b = Bench::new(&c);
    measured(&mut b, 2, 10, 1024, 1024);
    b.idle(c.t_rcf as usize + 4);
    assert!(!b.m.port(2).rcf);
    assert_eq!(b.m.port(2).rcc, Rcc::Off);
    assert_eq!(
        b.offer(2, 1, 100, false),
        (true, false),
        "the received list is gone"
    );
    // A CN whose IDs never pass: the measurement ends with Wc0 = 0 and the RCC stays off.
    b.receive(2, 10, &[9]);
    b.idle(4);
    assert_eq!(b.m.port(2).rcc, Rcc::Measure);
    for _ in 0..5 {
        b.offer(2, 1, 100, false);
    }
    b.idle(c.t_meas as usize + 4);
    assert_eq!(b.m.port(2).rcc, Rcc::Off);
    assert!(b.m.port(2).rcf, "rcf stays");
}

/// The option to clear the CAM when the RCC exits.
#[test]
fn cfr_clear_on_exit_empties_the_cam() {
    for clear in [false, true] {
        let c = RcmConfig {
            cfr_clear_on_exit: clear,
            t_meas: 20,
            ..cfg()
        };
        let mut b = Bench::new(&c);
        // A congested output sample: lcf, the CAM holds flow 4, the RCC measures it.
        b.oq(1, 900, 10, 4);
        b.settle();
        for _ in 0..4 {
            b.offer(1, 4, 100, false);
        }
        b.idle(c.t_meas as usize + 4);
        assert_eq!(b.m.port(1).rcc, Rcc::On);
        for q in [10, 9, 8] {
            b.oq(1, q, 10, 5);
        }
        b.settle();
        assert_eq!(b.m.port(1).rcc, Rcc::Off);
        assert_eq!(b.id(1, false, 0).is_some(), !clear, "clear {clear}");
    }
}

/// SAR: inside a region and triggered, non-harmful packets take the candidate with the least
/// Fb' (the current port on a tie, then the lowest index); harmful ones never move.
#[test]
fn sar_detours_non_harmful_packets_to_the_least_congested_candidate() {
    let c = cfg();
    let mut b = Bench::new(&c);
    // Not in a region: nothing moves.
    assert_eq!(b.route(0, 0b1110, 3, true), (0, false));
    // Port 0 congested (lcf, Fb > 0), ports 1-3 calm: a tie at 0 among them, lowest wins.
    b.oq(0, 800, 10, 77);
    b.settle();
    assert!(b.m.sar_active());
    assert_eq!(b.route(0, 0b1100, 3, true), (2, true));
    assert_eq!(b.route(0, 0b1110, 3, false), (1, true));
    assert_eq!(b.route(0, 0, 3, true), (0, false), "no alternative");
    assert_eq!(
        b.route(0, 0b1110, 77, true),
        (0, false),
        "harmful: never detoured"
    );
    // The current port wins a tie.
    assert_eq!(b.route(1, 0b1101, 3, true), (1, false));
    // Only new flows, when so configured.
    b.write(reg::SAR_NEW_ONLY, 1);
    assert_eq!(b.route(0, 0b0010, 3, false), (0, false));
    assert_eq!(b.route(0, 0b0010, 3, true), (1, true));
    b.write(reg::SAR_ENABLE, 0);
    assert_eq!(b.route(0, 0b0010, 3, true), (0, false));
}

/// Without local congestion, SAR needs sar_cns severe CNs within sar_window.
#[test]
fn sar_triggers_on_two_severe_cns_within_the_window() {
    let c = cfg();
    let mut b = Bench::new(&c);
    b.receive(1, 63, &[]);
    b.receive(2, c.sar_severe - 1, &[]);
    assert!(!b.m.sar_active(), "one severe CN");
    b.receive(1, c.sar_severe, &[]);
    assert!(b.m.sar_active());
    assert_eq!(b.m.severe_cns(), 2);
    // Fb' of port 1 is 16, of port 2 is 15 (rcf), of port 3 is 0.
    assert_eq!(b.route(1, 0b0100, 0, true), (2, true));
    assert_eq!(b.route(1, 0b1100, 0, true), (3, true));
    b.idle(c.sar_window as usize);
    assert!(!b.m.sar_active(), "they expired");
}

#[test]
fn errors_flag_bad_indices_early_arrivals_and_saturation() {
    let c = RcmConfig { ports: 3, ..cfg() };
    let mut b = Bench::raw(&c);
    b.oq(0, 10, 10, 1);
    b.idle(ERR_LATENCY as usize + 1);
    assert_eq!(b.read(reg::ERR), err::NOT_READY);
    assert_eq!(b.read(reg::STATUS), 0);
    b.idle(c.init_cycles() as usize);
    assert_eq!(b.read(reg::STATUS), STATUS_READY);
    b.write(reg::ERR, err::NOT_READY);
    assert_eq!(b.read(reg::ERR), 0);
    // An offer on port 3 of 3 goes (grant, not harmful) and flags.
    assert_eq!(b.offer(3, 1, 10, false), (true, false));
    let (port, detour) = b.route(1, 0b1000, 1, true);
    assert_eq!((port, detour), (1, false));
    b.idle(2);
    assert_eq!(b.read(reg::ERR), err::INDEX);
    assert_eq!(b.id(3, false, 0), None);
    // Saturation: a 16-bit window's measurement of more than 65 535 bytes.
    let c = RcmConfig {
        t_meas: 2000,
        t_rcf: 2047,
        ..cfg()
    };
    let mut b = Bench::new(&c);
    b.receive(0, 1, &[1]);
    b.idle(4);
    for _ in 0..300 {
        b.offer(0, 1, 255, false);
    }
    b.idle(PORT_LATENCY as usize + 1);
    assert_eq!(b.read(reg::ERR) & err::SAT, err::SAT);
    assert_eq!(b.m.port(0).sent_c, 65_535);
}

/// The port views and the flags/role encoding.
#[test]
fn the_port_views_show_flags_role_and_window() {
    let c = cfg();
    let mut b = Bench::new(&c);
    b.oq(1, 900, 10, 4);
    b.receive(1, 12, &[4]);
    b.settle();
    let v = b.view(1);
    assert_eq!(v[0] & 0b1111, 0b1111, "lcf, rcf, role inner");
    assert_eq!(v[0] >> 4 & 3, Rcc::Measure as u64);
    assert_eq!(v[1] >> 8 & 63, 12);
    assert_eq!(b.view(0), [0, 0, 0, 0, 0, RATE_ONE]);
}

/// The fb_scale register is 802.1Qau's quantiser, shared with QCN.
#[test]
fn the_quantiser_is_the_shared_one() {
    let c = cfg();
    assert_eq!(c.fb_scale(), FbScale::for_fb_max(fb_max(c.q_eq, c.w)));
}

/// 100 000 random edges per preset against the spec's invariants: an active RCC has a
/// window (Wc >= 1, sent_all < W), a held packet is harmful, a detour goes to one of the
/// query's candidates and never for a harmful packet.
#[test]
fn random_workloads_keep_the_invariants() {
    let lat = PORT_LATENCY as usize;
    for name in PRESETS {
        let c = RcmConfig::preset(name).unwrap();
        let seed = 7;
        let mut m = Rcm::new(&c).unwrap();
        let mut w = RcmWorkload::new(&c, seed);
        let mut inputs = Vec::new();
        let mut counts = [0u64; 6];
        for n in 0..100_000usize {
            let i = w.next_input();
            inputs.push(i);
            let o = m.step(&i);
            let at = format!("{name} seed {seed} edge {n}");
            for p in 0..c.ports as usize {
                let s = m.port(p);
                if s.rcc == Rcc::On {
                    assert!(s.wc >= 1 && s.sent_all < s.w, "{at}: port {p} {s:?}");
                    counts[0] += 1;
                }
            }
            if o.dec_valid == 1 && o.dec_grant == 0 {
                assert_eq!(o.dec_harmful, 1, "{at}");
                counts[1] += 1;
            }
            if o.route_detour == 1 {
                let q = inputs[n - lat];
                assert_ne!(o.route_port, q.rt_port, "{at}");
                assert_eq!(q.rt_cands >> o.route_port & 1, 1, "{at}");
                counts[2] += 1;
            }
            counts[3] += o.cn_valid;
            counts[4] += u64::from(o.dec_harmful == 1);
            counts[5] += u64::from(o.id_hit == 1);
        }
        eprintln!("{name}: on-port-edges, holds, detours, CNs, harmful, id hits = {counts:?}");
        assert!(
            counts.iter().all(|&k| k > 0),
            "{name} seed {seed}: {counts:?}"
        );
    }
}

/// The sweep decides from the state the edge began with; a CN received on the edge of the
/// visit that ages rcf out keeps it (spec §0.3: control frames first, timers last).
#[test]
fn a_cn_on_the_ageing_visit_keeps_rcf() {
    let c = cfg();
    let mut b = Bench::new(&c);
    let t = b.now();
    b.receive(1, 5, &[]);
    let ports = c.ports as usize;
    let visit = (t + c.t_rcf as usize..).find(|n| n % ports == 1).unwrap();
    b.idle(visit - b.now());
    b.receive(1, 6, &[]);
    assert!(b.m.port(1).rcf, "the CN of the visit's edge is kept");
    assert_eq!(b.m.port(1).fbr, 6);
    // Without it, that visit clears rcf.
    let mut b = Bench::new(&c);
    b.receive(1, 5, &[]);
    b.idle(visit - b.now() + 1);
    assert!(!b.m.port(1).rcf);
}
