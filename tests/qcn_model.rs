//! Golden-model tests of QCN: each asserts a rule of the spec (../shared/spec/mechanisms.md §5,
//! with §4.3's Fb) or of the contract in docs/blocks/qcn.md, with the expected values worked out
//! here. The spec's §7.5 vectors are named (Q1..Q5).

use switchcraft_core::lfsr::Lfsr32;
use switchcraft_core::CycleModel;
use switchcraft_model::qcn::reaction_point::{Counter, Decrease, ReactionPoint, RpConfig, RpState};
use switchcraft_model::qcn::thresholds::{self, Buffer, Mode};
use switchcraft_model::qcn::{
    err, fb_max, flow_index, pfb_law, reg, FbScale, Qcn, QcnConfig, QcnIn, QcnOut, QcnWorkload,
    ERR_LATENCY, FBP_LATENCY, ID_WORD, PFB_ONE, PFC_BASE, PRESETS, STATUS_READY,
};

mod common;

/// `tiny` with 1-cycle timestamps, so rate-limit times are exact, and T_fb = 20 cycles.
fn cfg() -> QcnConfig {
    QcnConfig {
        ts_shift: 0,
        t_fb: 20,
        ..QcnConfig::preset("tiny").unwrap()
    }
}

/// A model driven edge by edge, with every output kept.
struct Bench {
    m: Qcn,
    outs: Vec<QcnOut>,
}

impl Bench {
    /// The model of `c`, run idle until its tables are cleared.
    fn new(c: &QcnConfig) -> Bench {
        let mut b = Bench {
            m: Qcn::new(c).unwrap(),
            outs: Vec::new(),
        };
        for _ in 0..c.init_cycles() {
            b.step(QcnIn::default());
        }
        b
    }

    /// The edge about to be sampled.
    fn now(&self) -> usize {
        self.outs.len()
    }

    fn step(&mut self, i: QcnIn) -> QcnOut {
        let o = self.m.step(&i);
        self.outs.push(o);
        o
    }

    fn idle(&mut self, edges: usize) {
        for _ in 0..edges {
            self.step(QcnIn::default());
        }
    }

    /// An egress arrival at this edge; returns the edge.
    fn arrival(&mut self, port: u64, prio: u64, q: u64, src: u32, dst: u32) -> usize {
        let t = self.now();
        self.step(QcnIn {
            eg_valid: 1,
            eg_port: port,
            eg_prio: prio,
            eg_qdepth: q,
            eg_src: src.into(),
            eg_dst: dst.into(),
            ..QcnIn::default()
        });
        t
    }

    /// The FBP of the arrival sampled at edge `t` (output after edge t + FBP_LATENCY).
    fn fbp(&mut self, t: usize) -> Option<QcnOut> {
        while self.outs.len() <= t + FBP_LATENCY as usize {
            self.step(QcnIn::default());
        }
        let o = self.outs[t + FBP_LATENCY as usize];
        (o.fbp_valid == 1).then_some(o)
    }

    fn write(&mut self, addr: u32, data: u64) {
        self.step(QcnIn {
            csr_we: 1,
            csr_addr: addr.into(),
            csr_wdata: data,
            ..QcnIn::default()
        });
    }

    /// Register `addr` as a bus read returns it.
    fn read(&mut self, addr: u32) -> u64 {
        self.step(QcnIn {
            csr_addr: addr.into(),
            ..QcnIn::default()
        })
        .csr_rdata
    }

    /// Every P_fb entry set to `p`.
    fn fill_pfb(&mut self, p: u64) {
        for k in 0..self.m.config().pfb_entries {
            self.write(reg::PFB_INDEX, k.into());
            self.write(reg::PFB_DATA, p);
        }
    }
}

// ---- Configuration.

#[test]
fn every_preset_is_valid_and_round_trips_through_toml() {
    for p in PRESETS {
        let c = QcnConfig::preset(p).unwrap();
        c.validate().unwrap_or_else(|e| panic!("{p}: {e}"));
        let text = toml::to_string(&c).unwrap();
        assert_eq!(QcnConfig::from_toml(&text, p).unwrap(), c, "{p}");
    }
}

#[test]
fn a_bad_config_is_refused_naming_the_field_and_rule() {
    let base = QcnConfig::preset("tiny").unwrap();
    let cases: Vec<(QcnConfig, &str, &str)> = vec![
        (
            QcnConfig {
                q_min: 30,
                ..base.clone()
            },
            "q_min",
            "0..=24",
        ),
        (
            QcnConfig {
                pfb_entries: 24,
                ..base.clone()
            },
            "pfb_entries",
            "power of two",
        ),
        (
            QcnConfig {
                q_eq: 0,
                ..base.clone()
            },
            "q_eq",
            "1..=255",
        ),
        (
            QcnConfig {
                t_fb: 4096,
                ..base.clone()
            },
            "t_fb",
            "0..=4095",
        ),
    ];
    for (c, field, rule) in cases {
        let e = c.validate().unwrap_err();
        assert_eq!(e.field, field);
        assert!(e.rule.contains(rule), "{field}: {}", e.rule);
    }
    let mut c = base.clone();
    c.pfc.h_pfc = c.pfc.q_pfc + 1;
    assert_eq!(c.validate().unwrap_err().field, "pfc.h_pfc");
    let mut c = base.clone();
    c.pfc.max = c.pfc.q_pfc;
    let e = c.validate().unwrap_err();
    assert_eq!(e.field, "pfc.max");
    assert!(e.rule.contains("above Q_PFC"), "{}", e.rule);
    // PFC's own rules come back under the table's names.
    let mut c = base;
    c.pfc.refresh = 1;
    assert_eq!(c.validate().unwrap_err().field, "pfc.refresh");
    // A file: the name and the rule.
    let text = toml::to_string(&c).unwrap();
    let e = QcnConfig::from_toml(&text, "q.toml").unwrap_err().0;
    assert!(e.starts_with("q.toml: ") && e.contains("refresh"), "{e}");
}

#[test]
fn the_embedded_pfc_pauses_above_q_pfc_and_resumes_at_q_pfc_minus_h_pfc() {
    // Spec §5.4: in_occ > Q_PFC pauses, in_occ <= Q_PFC - H_pfc resumes.
    let c = QcnConfig::preset("testbed").unwrap();
    let p = c.pfc_config();
    assert_eq!((p.xoff, p.xon, p.ports, p.priorities), (15, 12, 4, 8));
}

// ---- The feedback probability (§5.2).

#[test]
fn pfb_law_is_the_spec_ramp_and_step_q4() {
    // Q4: Q_min = 10, Q_max = 20, α_p = 0.1: P(15) = 0.5, P(20) = 1, P(10) = 0.
    assert_eq!(pfb_law(15, 10, 20), PFB_ONE / 2);
    assert_eq!(pfb_law(20, 10, 20), PFB_ONE);
    assert_eq!(pfb_law(10, 10, 20), 0);
    assert_eq!(pfb_law(11, 10, 20), PFB_ONE / 10);
    assert_eq!(pfb_law(25, 10, 20), PFB_ONE);
    // The testbed's step (Q_min = Q_max = 11): "exceeds 11" samples, 11 does not.
    assert_eq!(pfb_law(11, 11, 11), 0);
    assert_eq!(pfb_law(12, 11, 11), PFB_ONE);
    let t = QcnConfig::preset("testbed").unwrap().pfb_table();
    assert_eq!(t.len(), 16);
    assert!(t[..=11].iter().all(|&p| p == 0));
    assert!(t[12..].iter().all(|&p| p == PFB_ONE));
}

#[test]
fn an_arrival_is_sampled_exactly_when_the_lfsr_draw_is_below_its_bucket() {
    // P = 0.5 everywhere: the sampled arrivals are those whose edge's lfsr[31:16] < 32768.
    let c = QcnConfig { t_fb: 0, ..cfg() };
    let mut b = Bench::new(&c);
    b.fill_pfb(PFB_ONE / 2);
    // The model's LFSR, replayed: one step per edge from the seed.
    let mut lfsr = Lfsr32::new(c.lfsr_seed);
    for _ in 0..b.now() {
        lfsr.step();
    }
    let mut expected = Vec::new();
    for k in 0..2000u32 {
        let draw = lfsr.state() >> 16;
        expected.push((b.arrival(1, 1, 20, k, 7), draw));
        lfsr.step();
    }
    let mut sampled = 0;
    for (t, draw) in expected {
        assert_eq!(b.fbp(t).is_some(), draw < 32768, "edge {t}, draw {draw}");
        sampled += u32::from(draw < 32768);
    }
    assert!(
        (900..1100).contains(&sampled),
        "{sampled} of 2000 at P = 0.5"
    );
}

#[test]
fn a_draw_equal_to_p_is_not_sampled_and_one_below_is() {
    // "Select iff r < P_fb x 2^16" (§5.2): the boundary, with P set to the very draw.
    let c = QcnConfig { t_fb: 0, ..cfg() };
    for (offset, sampled) in [(0, false), (1, true)] {
        let mut b = Bench::new(&c);
        let mut lfsr = Lfsr32::new(c.lfsr_seed);
        // The draw of the edge after the table write (two edges from now).
        for _ in 0..b.now() + 2 {
            lfsr.step();
        }
        let draw = u64::from(lfsr.state() >> 16);
        b.write(reg::PFB_INDEX, 15);
        b.write(reg::PFB_DATA, draw + offset);
        let t = b.arrival(0, 0, 200, 1, 2);
        assert_eq!(b.fbp(t).is_some(), sampled, "P = draw + {offset}");
    }
}

#[test]
fn the_bucket_is_the_depth_shifted_and_clamped_to_the_last_entry() {
    // tiny: 16 entries of 2 packets. Entry 5 = depths 10 and 11; entry 15 = 30 and above.
    let mut b = Bench::new(&QcnConfig { t_fb: 0, ..cfg() });
    b.fill_pfb(0);
    b.write(reg::PFB_INDEX, 5);
    b.write(reg::PFB_DATA, PFB_ONE);
    b.write(reg::PFB_INDEX, 15);
    b.write(reg::PFB_DATA, PFB_ONE);
    for (q, sampled) in [
        (9, false),
        (10, true),
        (11, true),
        (12, false),
        (29, false),
        (30, true),
        (255, true),
    ] {
        let t = b.arrival(0, 0, q, 1, 2);
        assert_eq!(b.fbp(t).is_some(), sampled, "q = {q}");
    }
}

#[test]
fn the_p_fb_window_reads_and_writes_the_indexed_entry_only_in_range() {
    let mut b = Bench::new(&cfg());
    let table = cfg().pfb_table();
    b.write(reg::PFB_INDEX, 9);
    assert_eq!(b.read(reg::PFB_DATA), table[9]);
    b.write(reg::PFB_DATA, 12_345);
    assert_eq!(b.read(reg::PFB_DATA), 12_345);
    b.write(reg::PFB_INDEX, 8);
    assert_eq!(b.read(reg::PFB_DATA), table[8]);
    // pfb_index is 4 bits wide at 16 entries: every value it can hold is in range.
    b.write(reg::PFB_INDEX, 31);
    assert_eq!(b.read(reg::PFB_INDEX), 15);
}

#[test]
fn the_p_fb_window_reads_0_and_ignores_writes_until_the_table_is_loaded() {
    let c = cfg();
    let mut m = Qcn::new(&c).unwrap();
    let bus = |m: &mut Qcn, we: u64, addr: u32, data: u64| {
        m.step(&QcnIn {
            csr_we: we,
            csr_addr: addr.into(),
            csr_wdata: data,
            ..QcnIn::default()
        })
        .csr_rdata
    };
    bus(&mut m, 1, reg::PFB_INDEX, 15);
    assert_eq!(
        bus(&mut m, 0, reg::PFB_DATA, 0),
        0,
        "entry 15 is 1.0 once loaded"
    );
    bus(&mut m, 1, reg::PFB_DATA, 7);
    while m.csr(reg::STATUS) != STATUS_READY {
        bus(&mut m, 0, 0, 0);
    }
    assert_eq!(
        bus(&mut m, 0, reg::PFB_DATA, 0),
        PFB_ONE,
        "the early write was ignored"
    );
}

// ---- The feedback value (§4.3 for the CP, 802.1Qau).

#[test]
fn fb_scale_maps_fb_max_to_63_within_half_a_step() {
    for fbm in (1..3000).chain([55, 1 << 16, 999_983, 1 << 27, 31 << 24]) {
        let s = FbScale::for_fb_max(fbm);
        assert!(s.mantissa <= 255 && s.shift <= 31, "{fbm}: {s:?}");
        assert_eq!(FbScale::from_word(s.word()), s);
        assert_eq!(s.quantise(fbm as i64), 63, "Fb_max {fbm}");
        assert_eq!(s.quantise(10 * fbm as i64), 63);
        assert_eq!(s.quantise(0), 0);
        assert_eq!(s.quantise(-5), 0);
        for fb in [1, fbm / 3, fbm / 2, fbm - 1] {
            let exact = 63.0 * fb as f64 / fbm as f64;
            let q = s.quantise(fb as i64) as f64;
            assert!(
                q >= exact.floor() && q <= exact.floor() + 1.0,
                "{fbm}: Fb {fb} -> {q}, exact {exact}"
            );
        }
    }
}

#[test]
fn a_sample_computes_fb_from_q_eq_w_and_q_old_then_updates_q_old() {
    // testbed: Q_eq = 11, w = 2, Fb_max = 55; every arrival above 11 packets is sampled.
    let c = QcnConfig::preset("testbed").unwrap();
    assert_eq!(fb_max(c.q_eq, c.w), 55);
    let scale = c.fb_scale();
    let mut b = Bench::new(&c);
    // First sample of queue (1, 3) at q = 12, q_old = 0: Fb = (12 - 11) + 2 x 12 = 25.
    let t = b.arrival(1, 3, 12, 0x0A00_0001, 0x0A00_0002);
    let f = b.fbp(t).expect("sampled at q = 12");
    assert_eq!(f.fbp_fb, scale.quantise(25));
    assert_eq!(f.fbp_fb, 28); // 63 x 25 / 55 = 28.6
    assert_eq!(b.m.q_old(1, 3), 12);
    // Not sampled (q = 11): q_old stays.
    b.arrival(1, 3, 11, 0x0A00_0003, 0x0A00_0002);
    assert_eq!(b.m.q_old(1, 3), 12);
    // Second sample at q = 14 (another flow): Fb = 3 + 2 x 2 = 7.
    let t = b.arrival(1, 3, 14, 0x0A00_0004, 0x0A00_0002);
    assert_eq!(b.fbp(t).unwrap().fbp_fb, scale.quantise(7));
    // Falling: q = 13 after 14: Fb = 2 - 2 = 0, still an FBP without the gate (P4QCN).
    let t = b.arrival(1, 3, 13, 0x0A00_0005, 0x0A00_0002);
    assert_eq!(b.fbp(t).unwrap().fbp_fb, 0);
    // Saturation: q = 200 after 13: Fb = 189 + 374 > Fb_max -> 63.
    let t = b.arrival(1, 3, 200, 0x0A00_0006, 0x0A00_0002);
    assert_eq!(b.fbp(t).unwrap().fbp_fb, 63);
    // Other queues keep their own q_old.
    assert_eq!(b.m.q_old(1, 2), 0);
}

#[test]
fn the_fbp_swaps_the_addresses_and_names_the_queue_at_its_latency() {
    let mut b = Bench::new(&QcnConfig::preset("testbed").unwrap());
    let t = b.arrival(3, 5, 13, 0xC0A8_0001, 0xC0A8_0102);
    for k in 1..FBP_LATENCY as usize {
        assert_eq!(
            b.outs.get(t + k).map_or(0, |o| o.fbp_valid),
            0,
            "early at +{k}"
        );
    }
    let f = b.fbp(t).unwrap();
    assert_eq!((f.fbp_port, f.fbp_prio), (3, 5));
    assert_eq!((f.fbp_src, f.fbp_dst), (0xC0A8_0102, 0xC0A8_0001));
}

#[test]
fn with_the_gate_an_fbp_needs_a_quantised_fb_above_0_and_a_gated_one_leaves_no_stamp() {
    let c = QcnConfig {
        fb_gate: true,
        ..QcnConfig::preset("testbed").unwrap()
    };
    let mut b = Bench::new(&c);
    let (s, d) = (1, 2);
    let t = b.arrival(0, 0, 20, s, d); // Fb = 9 + 40 > 0
    assert!(b.fbp(t).is_some());
    // Another flow on a falling queue: Fb = (14 - 11) + 2 (14 - 20) = -9: gated.
    let t = b.arrival(0, 0, 14, 5, d);
    assert!(b.fbp(t).is_none());
    // That gated sample stamped nothing: the flow is sampled again at once and passes.
    let t = b.arrival(0, 0, 20, 5, d); // Fb = 9 + 12
    assert!(b.fbp(t).is_some());
    // The register turns the gate off at run time.
    b.write(reg::FB_GATE, 0);
    let t = b.arrival(0, 0, 12, 6, d); // Fb = 1 - 16 < 0, sent anyway
    assert_eq!(b.fbp(t).unwrap().fbp_fb, 0);
}

// ---- The per-flow rate limit (§5.4, §5.9).

#[test]
fn a_flow_gets_one_fbp_per_t_fb_and_only_the_first_of_a_burst() {
    // cfg(): P_fb = 1 at q >= 24, T_fb = 20 one-cycle units.
    let mut b = Bench::new(&cfg());
    let (s, d) = (0x0101_0101, 0x0202_0202);
    let first = b.arrival(2, 1, 40, s, d);
    // A burst of the same flow over the next 19 edges: none (§5.9).
    let mut burst = Vec::new();
    for _ in 0..19 {
        burst.push(b.arrival(2, 1, 40, s, d));
    }
    // Exactly T_fb after the first: allowed (elapsed >= T_fb).
    assert_eq!(b.now(), first + 20);
    let again = b.arrival(2, 1, 40, s, d);
    assert!(b.fbp(first).is_some());
    for t in burst {
        assert!(b.fbp(t).is_none(), "edge {t} within T_fb");
    }
    assert!(b.fbp(again).is_some());
    // Other flows are not limited by it.
    let t = b.arrival(2, 1, 40, s, d + 1);
    assert!(b.fbp(t).is_some());
    assert_eq!(b.m.last_fbp(flow_index(s, d, 64)), Some(again as u64));
}

#[test]
fn t_fb_is_read_at_the_arrivals_edge_and_0_lets_every_sample_through() {
    let mut b = Bench::new(&cfg());
    let (s, d) = (9, 10);
    let t = b.arrival(0, 1, 40, s, d);
    assert!(b.fbp(t).is_some());
    b.write(reg::T_FB, 0);
    for _ in 0..5 {
        let t = b.arrival(0, 1, 40, s, d);
        assert!(b.fbp(t).is_some());
    }
    // A write on the arrival's own edge applies to it.
    let t = b.now();
    b.step(QcnIn {
        eg_valid: 1,
        eg_qdepth: 40,
        eg_src: s.into(),
        eg_dst: d.into(),
        csr_we: 1,
        csr_addr: reg::T_FB.into(),
        csr_wdata: 100,
        ..QcnIn::default()
    });
    assert!(b.fbp(t).is_none());
}

#[test]
fn timestamps_count_in_units_of_2_pow_ts_shift_cycles() {
    // tiny: units of 4 cycles, T_fb = 16 units = 64 cycles (at most 3 cycles less, by where in
    // its unit the first FBP fell).
    let c = QcnConfig::preset("tiny").unwrap();
    let mut b = Bench::new(&c);
    b.idle(4 - b.now() % 4); // the first FBP at the start of a unit
    let first = b.arrival(0, 0, 40, 1, 1);
    b.idle(62);
    let early = b.arrival(0, 0, 40, 1, 1); // 63 cycles, unit 15
    let on_time = b.arrival(0, 0, 40, 1, 1); // 64 cycles, unit 16
    assert!(b.fbp(first).is_some());
    assert!(b.fbp(early).is_none());
    assert!(b.fbp(on_time).is_some());
}

// ---- Reset, ready, errors, registers.

#[test]
fn arrivals_before_ready_and_out_of_range_are_ignored_and_flagged() {
    let c = cfg();
    let mut m = Qcn::new(&c).unwrap();
    let eg = |port| QcnIn {
        eg_valid: 1,
        eg_port: port,
        eg_qdepth: 200,
        ..QcnIn::default()
    };
    assert_eq!(c.init_cycles(), 64);
    // status.ready reads 0 during the sweep.
    let o = m.step(&QcnIn {
        csr_addr: reg::STATUS.into(),
        ..eg(0)
    });
    assert_eq!(o.csr_rdata, 0);
    let mut outs = Vec::new();
    for _ in 0..80 {
        outs.push(m.step(&QcnIn {
            csr_addr: reg::ERR.into(),
            ..QcnIn::default()
        }));
    }
    assert!(
        outs.iter().all(|o| o.fbp_valid == 0),
        "nothing sampled before ready"
    );
    assert_eq!(m.csr(reg::ERR), err::NOT_READY);
    assert_eq!(m.csr(reg::STATUS), STATUS_READY);
    // The flag's edge: the arrival at edge 0 shows at ERR_LATENCY.
    assert_eq!(outs[ERR_LATENCY as usize].csr_rdata, err::NOT_READY);
    assert_eq!(outs[ERR_LATENCY as usize - 1].csr_rdata, 0);
    // Write 1 to clear; a port out of range sets INDEX and changes nothing.
    m.step(&QcnIn {
        csr_we: 1,
        csr_addr: reg::ERR.into(),
        csr_wdata: 3,
        ..QcnIn::default()
    });
    assert_eq!(m.csr(reg::ERR), 0);
    let t = (0..FBP_LATENCY + 1)
        .map(|k| m.step(&if k == 0 { eg(5) } else { QcnIn::default() }))
        .collect::<Vec<_>>();
    assert!(t.iter().all(|o| o.fbp_valid == 0));
    assert_eq!(m.csr(reg::ERR), err::INDEX);
    assert_eq!(m.q_old(1, 0), 0, "port 5 & 3 would alias port 1");
}

#[test]
fn the_register_map_holds_the_cp_and_the_embedded_pfc_window() {
    let c = QcnConfig::preset("testbed").unwrap();
    let map = switchcraft_model::qcn::regmap(&c);
    let pfc = switchcraft_model::pfc::regmap(&c.pfc_config());
    for r in &pfc.regs {
        let q = map.get(&format!("pfc_{}", r.name));
        assert_eq!(
            (q.index, q.width, q.access, q.reset),
            (PFC_BASE + r.index, r.width, r.access, r.reset)
        );
    }
    let mut b = Bench::new(&c);
    assert_eq!(b.read(reg::ID), ID_WORD);
    assert_eq!(b.read(PFC_BASE + 2), 15, "pfc_xoff = Q_PFC + 1");
    assert_eq!(b.read(reg::FB_SCALE), c.fb_scale().word());
    // A write through the window moves the PFC's threshold: 3 packets now pause.
    b.write(PFC_BASE + 2, 3);
    assert_eq!(b.read(PFC_BASE + 2), 3);
    for _ in 0..3 {
        b.step(QcnIn {
            in_enq_valid: 1,
            in_enq_port: 2,
            in_enq_prio: 6,
            in_enq_len: 1,
            ..QcnIn::default()
        });
    }
    b.idle(switchcraft_model::pfc::REQUEST_LATENCY as usize);
    let xoff: Vec<_> = b.outs.iter().filter(|o| o.xoff_valid == 1).collect();
    assert_eq!(xoff.len(), 1);
    assert_eq!((xoff[0].xoff_port, xoff[0].xoff_prio), (2, 6));
    // The CP's own words do not reach the PFC, and the PFC's do not reach the CP.
    assert_eq!(b.read(reg::Q_EQ), 11);
}

#[test]
fn a_seed_write_restarts_the_draws_from_its_own_edge() {
    let c = QcnConfig { t_fb: 0, ..cfg() };
    let run = |seed_edge_extra: usize| {
        let mut b = Bench::new(&c);
        b.fill_pfb(PFB_ONE / 2);
        b.idle(seed_edge_extra);
        let t0 = b.now();
        b.step(QcnIn {
            eg_valid: 1,
            eg_qdepth: 20,
            csr_we: 1,
            csr_addr: reg::LFSR_SEED.into(),
            csr_wdata: 0xACE1,
            ..QcnIn::default()
        });
        let mut got = vec![b.fbp(t0).is_some()];
        for k in 0..200u32 {
            let t = b.arrival(0, 0, 20, k, 0);
            got.push(b.fbp(t).is_some());
        }
        got
    };
    // The same draws whenever the seed is written.
    assert_eq!(run(0), run(37));
    let l = Lfsr32::new(0xACE1);
    assert_eq!(run(0)[0], (l.state() >> 16) < 32768);
}

// ---- A long random run: the spec's invariants on the outputs.

#[test]
fn random_workload_keeps_the_rate_limit_and_the_threshold_invariants() {
    // Without CSR writes (the invariants are stated for the reset registers): every FBP is for
    // a depth above Q_min, carries Fb <= 63, and no flow gets two within T_fb.
    for preset in ["tiny", "fpga", "testbed"] {
        let c = QcnConfig::preset(preset).unwrap();
        let seed = common::seed();
        let mut w = QcnWorkload::new(&c, seed);
        let mut m = Qcn::new(&c).unwrap();
        let mut inputs = std::collections::VecDeque::new();
        let mut last: std::collections::HashMap<(u64, u64), u64> = Default::default();
        let mut fbps = 0;
        let unit = 1u64 << c.ts_shift;
        for edge in 0..100_000u64 {
            let mut i = w.next_input();
            i.csr_we = 0;
            let o = m.step(&i);
            inputs.push_back(i);
            if inputs.len() > FBP_LATENCY as usize + 1 {
                inputs.pop_front();
            }
            if o.fbp_valid == 1 {
                let a = inputs[0];
                fbps += 1;
                assert!(
                    a.eg_qdepth > c.q_min,
                    "seed {seed}, {preset}: FBP at q = {}",
                    a.eg_qdepth
                );
                assert!(o.fbp_fb <= 63);
                assert_eq!((o.fbp_src, o.fbp_dst), (a.eg_dst, a.eg_src));
                let sent = edge - u64::from(FBP_LATENCY);
                if let Some(prev) = last.insert((a.eg_src, a.eg_dst), sent) {
                    // T_fb units apart at least: more than (T_fb - 1) units of cycles.
                    assert!(
                        sent - prev > (c.t_fb - 1) * unit,
                        "seed {seed}, {preset}: flow FBPs at {prev} and {sent}"
                    );
                }
            }
        }
        assert!(fbps > 100, "seed {seed}, {preset}: only {fbps} FBPs");
    }
}

// ---- Thresholds (§5.5, Q1 and Q2).

#[test]
fn thresholds_reproduce_q1_and_refuse_q2() {
    let q1 = Buffer {
        bytes: 12.0 * 1024.0 * 1024.0,
        ports: 32,
        priorities: 8,
        q_flight_bytes: 22_400.0,
        alpha: 8.0,
    };
    let b = q1.bounds().unwrap();
    assert_eq!(b.q_pfc, 26_752.0);
    assert_eq!(b.q_p4qcn_static, 4_352.0);
    assert!(
        (b.q_p4qcn_dynamic - 23_779.6).abs() < 0.05,
        "{}",
        b.q_p4qcn_dynamic
    );
    assert_eq!(b.q_p4qcn_bytes(Mode::Static), Ok(4_352));
    assert_eq!(b.q_p4qcn_bytes(Mode::Dynamic), Ok(23_779));
    let q2 = Buffer {
        bytes: 12e6,
        q_flight_bytes: 25_000.0,
        ..q1
    };
    let b = q2.bounds().unwrap();
    assert_eq!(b.q_pfc, 21_875.0);
    assert_eq!(b.q_p4qcn_static, -3_125.0);
    let e = b.q_p4qcn_bytes(Mode::Static).unwrap_err();
    assert!(
        e.contains("-3125.0 B") && e.contains("Q_PFC - Q_flight <= 0"),
        "{e}"
    );
    assert_eq!(b.q_p4qcn_bytes(Mode::Dynamic), Ok(19_444));
    // A buffer that cannot even hold the flight data.
    let e = Buffer { bytes: 1e6, ..q2 }.bounds().unwrap_err();
    assert!(e.contains("not above 0"), "{e}");
}

#[test]
fn the_fpga_and_switch_presets_are_what_the_calculator_derives() {
    let fpga = QcnConfig::preset("fpga").unwrap();
    let derived = thresholds::apply(
        &fpga,
        &Buffer {
            bytes: 1024.0 * 1024.0,
            ports: 8,
            priorities: 4,
            q_flight_bytes: 6_250.0,
            alpha: 8.0,
        },
        Mode::Static,
    )
    .unwrap();
    assert_eq!(derived, fpga);
    let sw = QcnConfig::preset("switch-48x8").unwrap();
    let buffer = Buffer {
        bytes: 12.0 * 1024.0 * 1024.0,
        ports: 48,
        priorities: 8,
        q_flight_bytes: 22_400.0,
        alpha: 8.0,
    };
    assert!(thresholds::apply(&sw, &buffer, Mode::Static)
        .unwrap_err()
        .contains("infeasible static"));
    assert_eq!(thresholds::apply(&sw, &buffer, Mode::Dynamic).unwrap(), sw);
}

// ---- The reaction point (§5.6, Q5).

#[test]
fn rp_halves_then_recovers_through_the_q5_trace_then_increases_actively() {
    let cfg = RpConfig::testbed();
    let mut rp = ReactionPoint::new(&cfg);
    assert_eq!(rp.state(), RpState::Idle);
    let r = 7e6;
    let c = rp.on_fbp(17); // β = 1 ignores Fb
    assert_eq!((c.current_bps, c.target_bps), (r / 2.0, r));
    let mut changes = Vec::new();
    // Five byte-counter cycles of 150 KB: fast recovery.
    rp.on_sent(5.0 * 150_000.0, &mut changes);
    let ratios: Vec<f64> = changes.iter().map(|c| c.current_bps / r).collect();
    assert_eq!(ratios, [0.75, 0.875, 0.9375, 0.96875, 0.984375]);
    assert!(changes
        .iter()
        .all(|c| c.state == RpState::FastRecovery && c.cause == Some(Counter::Bytes)));
    // Then active increase, every half cycle: R_t += 5 Mb/s, capped at the line rate.
    changes.clear();
    rp.on_sent(75_000.0 - 1.0, &mut changes);
    assert!(changes.is_empty());
    rp.on_sent(1.0, &mut changes);
    assert_eq!(changes[0].state, RpState::ActiveIncrease);
    assert_eq!(changes[0].target_bps, r); // 7 + 5 Mb/s, capped
    assert_eq!(changes[0].current_bps, (r + 0.984375 * r) / 2.0);
    // The timer does nothing on the testbed RP (no timer in its FSM).
    rp.on_time(1e12, &mut changes);
    assert_eq!(changes.len(), 1);
}

#[test]
fn rp_802_1qau_cuts_by_gd_fb_and_enters_hyper_active_increase_on_both_counters() {
    let cfg = RpConfig::qau(10e9);
    let mut rp = ReactionPoint::new(&cfg);
    let c = rp.on_fbp(63);
    assert_eq!(c.current_bps, 10e9 * (1.0 - 63.0 / 128.0));
    // A second FBP before any increase: R_t is the reduced rate, below the line rate, so the
    // increases below are not capped.
    let c = rp.on_fbp(63);
    assert_eq!(c.target_bps, 10e9 * (1.0 - 63.0 / 128.0));
    let mut changes = Vec::new();
    // Five cycles of each counter: fast recovery (the state of a cycle counts it).
    for _ in 0..5 {
        rp.on_time(15e6, &mut changes);
        rp.on_sent(150_000.0, &mut changes);
    }
    assert_eq!(changes.len(), 10);
    assert!(changes.iter().all(|c| c.state == RpState::FastRecovery));
    // A sixth timer cycle: active increase (one counter past N).
    changes.clear();
    rp.on_time(7.5e6, &mut changes);
    assert_eq!(changes[0].state, RpState::ActiveIncrease);
    let t = changes[0].target_bps;
    // A sixth byte cycle: both past N, hyper-active: R_t += (6 - 5) x 50 Mb/s.
    rp.on_sent(75_000.0, &mut changes);
    assert_eq!(changes[1].state, RpState::HyperActiveIncrease);
    assert_eq!(changes[1].target_bps, t + 50e6);
    // A new FBP restarts both counters.
    rp.on_fbp(1);
    assert_eq!(rp.state(), RpState::FastRecovery);
    assert_eq!(rp.target_bps(), changes[1].current_bps);
}

#[test]
fn rp_keeps_its_floor_and_goes_idle_at_the_line_rate() {
    let cfg = RpConfig {
        decrease: Decrease::Beta(1.0),
        ..RpConfig::qau(100e6)
    };
    let mut rp = ReactionPoint::new(&cfg);
    for _ in 0..10 {
        rp.on_fbp(0);
    }
    assert_eq!(rp.current_bps(), cfg.min_rate_bps);
    let mut changes = Vec::new();
    for _ in 0..2000 {
        rp.run(1e6, &mut changes);
    }
    assert_eq!(rp.state(), RpState::Idle);
    assert_eq!(rp.current_bps(), 100e6);
    assert!(RpConfig {
        min_rate_bps: 1e9,
        ..cfg.clone()
    }
    .validate()
    .unwrap_err()
    .contains("min_rate_bps"));
    assert!(RpConfig {
        decrease: Decrease::Fb { gd: 1.0 / 32.0 },
        ..cfg
    }
    .validate()
    .unwrap_err()
    .contains("gd"));
}
