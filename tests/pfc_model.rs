//! Golden-model tests of PFC: each asserts a rule of the spec (../shared/spec/mechanisms.md §0,
//! §2.3, §2.6) or of the contract in docs/blocks/pfc.md, computed here from first principles.

mod common;

use common::pause_link::check_lossy_link;
use switchcraft_core::CycleModel;
use switchcraft_model::pfc::{
    reg, Pfc, PfcConfig, PfcIn, PfcOut, PfcWorkload, CAUSED_FRAME_LATENCY, DROP_LATENCY, ERR_INDEX,
    ERR_UNDERFLOW, FRAME_LATENCY, ID_WORD, REQUEST_LATENCY,
};

/// The declared latencies as indices into a run's outputs (the event's edge is index 0).
const DROP: usize = DROP_LATENCY as usize;
const REQUEST: usize = REQUEST_LATENCY as usize;
/// The frame a change causes; a frame already due can state the change one edge earlier
/// (`FRAME_LATENCY`, the bus's declared earliest effect).
const CAUSED: usize = CAUSED_FRAME_LATENCY as usize;

fn cfg() -> PfcConfig {
    PfcConfig {
        ports: 4,
        priorities: 2,
        occupancy_bits: 16,
        length_bits: 11,
        xoff: 1000,
        xon: 500,
        max: 1500,
        quanta: 0x1234,
        refresh: 100,
    }
}

fn enq(port: u64, prio: u64, len: u64) -> PfcIn {
    PfcIn {
        enq_valid: 1,
        enq_port: port,
        enq_prio: prio,
        enq_len: len,
        ..Default::default()
    }
}

fn deq(port: u64, prio: u64, len: u64) -> PfcIn {
    PfcIn {
        deq_valid: 1,
        deq_port: port,
        deq_prio: prio,
        deq_len: len,
        ..Default::default()
    }
}

fn both(e: PfcIn, d: PfcIn) -> PfcIn {
    PfcIn {
        deq_valid: d.deq_valid,
        deq_port: d.deq_port,
        deq_prio: d.deq_prio,
        deq_len: d.deq_len,
        ..e
    }
}

fn idle() -> PfcIn {
    PfcIn::default()
}

/// Steps `i` then idle edges up to the request latency, returning the outputs of the last: the
/// XOFF/XON decisions on `i` (its `enq_drop` came earlier, at the drop latency).
fn apply(m: &mut Pfc, i: PfcIn) -> PfcOut {
    run(m, &[i], REQUEST + 1)[REQUEST]
}

/// The outputs of `inputs` followed by idle edges, `edges` in all.
fn run(m: &mut Pfc, inputs: &[PfcIn], edges: usize) -> Vec<PfcOut> {
    (0..edges)
        .map(|k| m.step(inputs.get(k).unwrap_or(&idle())))
        .collect()
}

#[test]
fn pfc_xoff_sets_at_threshold_inclusive() {
    let mut m = Pfc::new(&cfg()).unwrap();
    let o = apply(&mut m, enq(1, 1, 999));
    assert_eq!(o.xoff_valid, 0, "999 < XOFF must not pause");
    let o = apply(&mut m, enq(1, 1, 1));
    assert_eq!(
        (o.xoff_valid, o.xoff_port, o.xoff_prio),
        (1, 1, 1),
        "1000 >= XOFF pauses"
    );
    assert!(m.is_xoff(1, 1));
    assert_eq!(m.occupancy(1, 1), 1000);
}

#[test]
fn pfc_xon_clears_at_threshold_inclusive() {
    let mut m = Pfc::new(&cfg()).unwrap();
    apply(&mut m, enq(0, 0, 1000));
    let o = apply(&mut m, deq(0, 0, 499));
    assert_eq!(o.xon_valid, 0, "501 > XON keeps XOFF");
    let o = apply(&mut m, deq(0, 0, 1));
    assert_eq!(
        (o.xon_valid, o.xon_port, o.xon_prio),
        (1, 0, 0),
        "500 <= XON resumes"
    );
    assert!(!m.is_xoff(0, 0));
}

#[test]
fn pfc_hysteresis_holds_between_thresholds() {
    let mut m = Pfc::new(&cfg()).unwrap();
    apply(&mut m, enq(2, 0, 700));
    assert!(!m.is_xoff(2, 0), "rising through the band does not pause");
    apply(&mut m, enq(2, 0, 400));
    apply(&mut m, deq(2, 0, 400));
    assert_eq!(m.occupancy(2, 0), 700);
    assert!(m.is_xoff(2, 0), "falling through the band does not resume");
}

#[test]
fn pfc_pause_request_comes_at_the_declared_latency() {
    let mut m = Pfc::new(&cfg()).unwrap();
    let outs = run(&mut m, &[enq(3, 1, 1200)], REQUEST + 2);
    let valid: Vec<u64> = outs.iter().map(|o| o.xoff_valid).collect();
    let mut expect = vec![0; REQUEST + 2];
    expect[REQUEST] = 1;
    assert_eq!(valid, expect);
    assert_eq!((outs[REQUEST].xoff_port, outs[REQUEST].xoff_prio), (3, 1));
    assert!(m.is_xoff(3, 1));
}

#[test]
fn pfc_drop_comes_at_the_declared_latency() {
    let mut m = Pfc::new(&cfg()).unwrap();
    let drops: Vec<u64> = run(&mut m, &[enq(3, 1, 1501)], DROP + 2)
        .iter()
        .map(|o| o.enq_drop)
        .collect();
    let mut expect = vec![0; DROP + 2];
    expect[DROP] = 1;
    assert_eq!(
        drops, expect,
        "1501 > MAX, reported once, at the drop latency"
    );
}

#[test]
fn pfc_enqueue_over_max_is_dropped_and_leaves_occupancy() {
    let mut m = Pfc::new(&cfg()).unwrap();
    let drop = |m: &mut Pfc, i: PfcIn| run(m, &[i], DROP + 1)[DROP].enq_drop;
    apply(&mut m, enq(1, 0, 1400));
    assert_eq!(drop(&mut m, enq(1, 0, 101)), 1, "1400 + 101 > MAX = 1500");
    assert_eq!(m.occupancy(1, 0), 1400);
    assert_eq!(drop(&mut m, enq(1, 0, 100)), 0, "exactly MAX is accepted");
    assert_eq!(m.occupancy(1, 0), 1500);
}

#[test]
fn pfc_dequeue_underflow_clamps_and_flags() {
    let mut m = Pfc::new(&cfg()).unwrap();
    apply(&mut m, enq(0, 1, 100));
    assert_eq!(m.csr(reg::ERR), 0);
    apply(&mut m, deq(0, 1, 101));
    assert_eq!(m.occupancy(0, 1), 0, "clamped at zero, not wrapped");
    assert_eq!(m.csr(reg::ERR), ERR_UNDERFLOW);
}

#[test]
fn pfc_same_cycle_dequeue_then_enqueue_reports_net_change_only() {
    // At XON + 1 in XOFF: the dequeue alone would resume, the enqueue then pauses again.
    let mut m = Pfc::new(&cfg()).unwrap();
    apply(&mut m, enq(1, 0, 1000));
    apply(&mut m, deq(1, 0, 499));
    assert!(m.is_xoff(1, 0));
    let o = apply(&mut m, both(enq(1, 0, 600), deq(1, 0, 100)));
    assert_eq!(
        (o.xoff_valid, o.xon_valid),
        (0, 0),
        "no spurious XON/XOFF pair"
    );
    assert!(m.is_xoff(1, 0));
    assert_eq!(m.occupancy(1, 0), 1001);
    // Dequeue resumes and a smaller enqueue stays below XOFF: one net XON.
    let o = apply(&mut m, both(enq(1, 0, 100), deq(1, 0, 600)));
    assert_eq!((o.xoff_valid, o.xon_valid), (0, 1));
    assert_eq!(m.occupancy(1, 0), 501);
}

#[test]
fn pfc_same_cycle_events_on_two_keys_report_both() {
    let mut m = Pfc::new(&cfg()).unwrap();
    apply(&mut m, enq(0, 0, 1000));
    let o = apply(&mut m, both(enq(2, 1, 1000), deq(0, 0, 1000)));
    assert_eq!((o.xoff_valid, o.xoff_port, o.xoff_prio), (1, 2, 1));
    assert_eq!((o.xon_valid, o.xon_port, o.xon_prio), (1, 0, 0));
}

#[test]
fn pfc_back_to_back_events_on_one_key_every_cycle_match_sequential_sum() {
    let mut m = Pfc::new(&cfg()).unwrap();
    let mut expect: u64 = 0;
    for k in 0..200u64 {
        let e = 3 + k % 7;
        let d = 1 + k % 5;
        m.step(&both(enq(2, 1, e), deq(2, 1, d)));
        // Dequeue first (clamped at 0), then enqueue (dropped above MAX).
        expect = expect.saturating_sub(d);
        if expect + e <= 1500 {
            expect += e;
        }
    }
    m.step(&idle());
    assert_eq!(m.occupancy(2, 1), expect);
}

#[test]
fn pfc_pause_frame_follows_xoff_with_quanta() {
    let mut m = Pfc::new(&cfg()).unwrap();
    let outs = run(&mut m, &[enq(2, 1, 1000)], CAUSED + 2);
    assert_eq!(outs[REQUEST].xoff_valid, 1);
    assert!(
        outs[..CAUSED].iter().all(|o| o.frame_valid == 0),
        "the frame follows the event by CAUSED_FRAME_LATENCY edges"
    );
    let f = outs[CAUSED];
    assert_eq!(f.frame_valid, 1);
    assert_eq!(f.frame_port, 2);
    assert_eq!(f.frame_class_enable, 0b11, "every class of the port");
    assert_eq!(
        f.frame_pause, 0b10,
        "class 1 paused; class 0 carries time 0"
    );
    assert_eq!(f.frame_quanta, 0x1234);
    assert_eq!(outs[CAUSED + 1].frame_valid, 0, "one frame per change");
}

#[test]
fn pfc_resume_frame_enables_the_class_with_zero_time() {
    let mut m = Pfc::new(&cfg()).unwrap();
    apply(&mut m, enq(2, 0, 1000));
    apply(&mut m, enq(2, 1, 1000));
    m.step(&idle());
    let f = run(&mut m, &[deq(2, 1, 1000)], CAUSED + 1)[CAUSED];
    assert_eq!(f.frame_valid, 1);
    assert_eq!(f.frame_port, 2);
    assert_eq!(
        f.frame_class_enable, 0b11,
        "every class of the port: resumed class 1 and still-paused class 0"
    );
    assert_eq!(f.frame_pause, 0b01, "class 1 carries time 0: RESUME");
}

/// The frame bus's declared latency is the earliest effect of an event: a frame already due
/// for the port (here caused by a class that crossed XOFF a little earlier) is built from the
/// XOFF state as the requests leave it, so it states a change `FRAME_LATENCY` edges after the
/// event; the change's own frame follows at `CAUSED_FRAME_LATENCY`.
#[test]
fn pfc_frame_already_due_states_a_change_at_the_frame_latency() {
    let mut m = Pfc::new(&cfg()).unwrap();
    // The second event's edge: the first one's frame leaves at the second's FRAME_LATENCY.
    let second = (CAUSED_FRAME_LATENCY - FRAME_LATENCY) as usize;
    let mut inputs = vec![idle(); second + 1];
    (inputs[0], inputs[second]) = (enq(2, 0, 1000), enq(2, 1, 1000));
    let outs = run(&mut m, &inputs, second + CAUSED + 1);
    let due = outs[second + FRAME_LATENCY as usize];
    assert_eq!(
        (due.frame_valid, due.frame_port),
        (1, 2),
        "class 0's own frame"
    );
    assert_eq!(
        due.frame_pause, 0b11,
        "it already states class 1, paused by the second event"
    );
    assert!(
        outs[..second + FRAME_LATENCY as usize]
            .iter()
            .all(|o| o.frame_valid == 0),
        "no frame before the first event's caused frame"
    );
    let own = outs[second + CAUSED];
    assert_eq!(
        (own.frame_valid, own.frame_pause),
        (1, 0b11),
        "class 1's own frame"
    );
}

#[test]
fn pfc_refresh_resends_pause_every_period_while_xoff_holds() {
    let mut c = cfg();
    c.refresh = 20;
    let mut m = Pfc::new(&c).unwrap();
    let mut frames = Vec::new();
    for cycle in 0..200u64 {
        let i = if cycle == 0 { enq(1, 0, 1000) } else { idle() };
        let o = m.step(&i);
        if o.frame_valid == 1 {
            assert_eq!(
                (o.frame_port, o.frame_pause, o.frame_quanta),
                (1, 1, 0x1234)
            );
            frames.push(cycle);
        }
    }
    assert_eq!(
        frames[0], CAUSED as u64,
        "first PAUSE at the caused frame's latency"
    );
    for w in frames.windows(2) {
        assert!(w[1] - w[0] <= 20, "refresh gap {} > REFRESH", w[1] - w[0]);
    }
    // One tick every 20 cycles: 200 cycles hold 10 ticks (a tick may coincide with the first).
    assert!(frames.len() >= 10, "{frames:?}");
}

#[test]
fn pfc_no_refresh_after_resume() {
    let mut c = cfg();
    c.refresh = 10;
    let mut m = Pfc::new(&c).unwrap();
    apply(&mut m, enq(0, 0, 1000));
    apply(&mut m, deq(0, 0, 1000));
    for _ in 0..5 {
        m.step(&idle());
    }
    for _ in 0..100 {
        assert_eq!(m.step(&idle()).frame_valid, 0);
    }
}

#[test]
fn pfc_frames_are_served_round_robin_across_ports() {
    let mut c = cfg();
    c.refresh = 1000;
    let mut m = Pfc::new(&c).unwrap();
    // Pause ports 0, 1 and 3 in consecutive cycles: three frames, in port order.
    let inputs = [enq(0, 0, 1000), enq(1, 0, 1000), enq(3, 0, 1000)];
    let ports: Vec<u64> = inputs
        .iter()
        .chain([idle(); CAUSED].iter())
        .map(|i| m.step(i))
        .filter(|o| o.frame_valid == 1)
        .map(|o| o.frame_port)
        .collect();
    assert_eq!(ports, vec![0, 1, 3]);
}

#[test]
fn pfc_csr_write_applies_to_events_of_the_same_edge() {
    let mut m = Pfc::new(&cfg()).unwrap();
    let mut i = enq(0, 0, 600);
    i.csr_we = 1;
    i.csr_addr = reg::XOFF.into();
    i.csr_wdata = 600;
    let o = apply(&mut m, i);
    assert_eq!(o.xoff_valid, 1, "the new XOFF = 600 already applies");
    assert_eq!(m.csr(reg::XOFF), 600);
}

#[test]
fn pfc_threshold_written_after_an_event_does_not_apply_to_it() {
    // The decision, edges later, uses the thresholds of the event's own edge.
    let mut m = Pfc::new(&cfg()).unwrap();
    let mut w = idle();
    w.csr_we = 1;
    w.csr_addr = reg::XOFF.into();
    w.csr_wdata = 600;
    let outs = run(&mut m, &[enq(0, 0, 600), w], REQUEST + 1);
    assert!(
        outs.iter().all(|o| o.xoff_valid == 0),
        "XOFF was 1000 at the event's edge"
    );
    assert!(!m.is_xoff(0, 0));
    let o = apply(&mut m, enq(0, 0, 1));
    assert_eq!(o.xoff_valid, 1, "the next event sees XOFF = 600");
}

#[test]
fn pfc_csr_reads_value_before_the_edge_and_respects_access() {
    let mut m = Pfc::new(&cfg()).unwrap();
    let rd = |m: &mut Pfc, addr: u32| {
        m.step(&PfcIn {
            csr_addr: addr.into(),
            ..Default::default()
        })
        .csr_rdata
    };
    assert_eq!(rd(&mut m, reg::ID), ID_WORD);
    assert_eq!(rd(&mut m, reg::PARAMS), 4 | 2 << 8 | 16 << 16 | 11 << 24);
    assert_eq!(rd(&mut m, reg::QUANTA), 0x1234);
    let w = |m: &mut Pfc, addr: u32, data: u64| {
        m.step(&PfcIn {
            csr_we: 1,
            csr_addr: addr.into(),
            csr_wdata: data,
            ..Default::default()
        })
        .csr_rdata
    };
    assert_eq!(
        w(&mut m, reg::QUANTA, 0x1_0077),
        0x1234,
        "read returns the old value"
    );
    assert_eq!(
        m.csr(reg::QUANTA),
        0x0077,
        "written value masked to 16 bits"
    );
    w(&mut m, reg::ID, 0);
    assert_eq!(m.csr(reg::ID), ID_WORD, "RO ignores writes");
    apply(&mut m, deq(0, 0, 1));
    assert_eq!(m.csr(reg::ERR), ERR_UNDERFLOW);
    w(&mut m, reg::ERR, ERR_INDEX);
    assert_eq!(
        m.csr(reg::ERR),
        ERR_UNDERFLOW,
        "RW1C clears only the written ones"
    );
    w(&mut m, reg::ERR, ERR_UNDERFLOW);
    assert_eq!(m.csr(reg::ERR), 0);
}

#[test]
fn pfc_error_flag_set_wins_over_clear_on_the_same_edge() {
    let mut m = Pfc::new(&cfg()).unwrap();
    let mut clear = idle();
    clear.csr_we = 1;
    clear.csr_addr = reg::ERR.into();
    clear.csr_wdata = 3;
    // The underflow lands on the clear's edge: the drop latency after the dequeue.
    let mut inputs = vec![idle(); DROP + 1];
    inputs[0] = deq(0, 0, 5);
    inputs[DROP] = clear;
    run(&mut m, &inputs, DROP + 1);
    assert_eq!(m.csr(reg::ERR), ERR_UNDERFLOW);
}

#[test]
fn pfc_out_of_range_index_is_ignored_and_flagged() {
    let mut c = cfg();
    c.ports = 3; // port bus is 2 bits: port 3 is out of range
    let mut m = Pfc::new(&c).unwrap();
    let o = apply(&mut m, enq(3, 0, 1200));
    assert_eq!((o.xoff_valid, o.enq_drop), (0, 0));
    assert_eq!(m.csr(reg::ERR), ERR_INDEX);
}

#[test]
fn pfc_reset_clears_state_and_restores_csrs() {
    let mut m = Pfc::new(&cfg()).unwrap();
    let mut i = enq(0, 0, 1000);
    i.csr_we = 1;
    i.csr_addr = reg::XON.into();
    i.csr_wdata = 7;
    apply(&mut m, i);
    m.reset();
    assert_eq!(m.occupancy(0, 0), 0);
    assert!(!m.is_xoff(0, 0));
    assert_eq!(m.csr(reg::XON), 500);
    let quiet = PfcOut {
        csr_rdata: ID_WORD,
        ..Default::default()
    };
    for _ in 0..300 {
        assert_eq!(m.step(&idle()), quiet, "reading ID, nothing else moves");
    }
}

#[test]
fn pfc_config_rules_name_field_and_rule() {
    type Edit = Box<dyn Fn(&mut PfcConfig)>;
    let cases: Vec<(Edit, &str)> = vec![
        (
            Box::new(|c| c.xon = 1000),
            "xon = 1000: must be < xoff (1000)",
        ),
        (
            Box::new(|c| c.xoff = 1600),
            "xoff = 1600: must be <= max (1500)",
        ),
        (Box::new(|c| c.ports = 0), "ports = 0: must be in 1..=64"),
        (
            Box::new(|c| c.priorities = 9),
            "priorities = 9: must be in 1..=8",
        ),
        (
            Box::new(|c| c.max = 70_000),
            "max = 70000: does not fit occupancy_bits = 16",
        ),
        (
            Box::new(|c| c.length_bits = 17),
            "length_bits = 17: must be in 1..=16",
        ),
        (
            Box::new(|c| c.quanta = 0),
            "quanta = 0: must be in 1..=65535",
        ),
        (
            Box::new(|c| c.refresh = 3),
            "refresh = 3: must be in 4..=65535",
        ),
    ];
    for (break_it, want) in cases {
        let mut c = cfg();
        break_it(&mut c);
        let e = c.validate().unwrap_err().to_string();
        assert!(e.contains(want), "{e:?} lacks {want:?}");
        assert!(Pfc::new(&c).is_err());
    }
    for p in switchcraft_model::pfc::PRESETS {
        PfcConfig::preset(p).unwrap().validate().unwrap();
    }
}

#[test]
fn pfc_toml_rejects_unknown_keys() {
    let text = "ports = 4\npriorities = 2\noccupancy_bits = 16\nlength_bits = 11\nxoff = 1000\n\
                xon = 500\nmax = 1500\nquanta = 1\nrefresh = 100\nxofff = 3\n";
    let e = PfcConfig::from_toml(text, "c.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("c.toml") && e.contains("xofff"), "{e}");
}

#[test]
fn pfc_workload_crosses_both_thresholds_repeatedly() {
    let c = PfcConfig::preset("tiny").unwrap();
    let mut m = Pfc::new(&c).unwrap();
    let mut w = switchcraft_model::pfc::PfcWorkload::new(&c, 1);
    let (mut xoffs, mut xons, mut frames, mut drops) = (0, 0, 0, 0);
    for _ in 0..20_000 {
        let o = m.step(&w.next_input());
        xoffs += o.xoff_valid;
        xons += o.xon_valid;
        frames += o.frame_valid;
        drops += o.enq_drop;
    }
    eprintln!("xoff {xoffs} xon {xons} frames {frames} drops {drops}");
    assert!(
        xoffs >= 25 && xons >= 25 && frames > 100 && drops > 0,
        "{xoffs} {xons} {frames} {drops}"
    );
}

/// Issue 30's promise for PFC under a lossy link (a fifth of the frames lost, PAUSE and RESUME
/// alike), on the random workload without its CSR writes: while a class stays in XOFF a PAUSE
/// is resent at least every REFRESH + P - 1 cycles (docs/blocks/pfc.md), so a lost PAUSE is
/// repaired within one refresh period; and once a class's occupancy is at or below XON no PAUSE
/// follows, so upstream holds it paused at most one pause time (QUANTA, here one cycle per
/// quantum) after the last PAUSE, even when the RESUME is lost.
#[test]
fn pfc_lost_frames_are_repaired_by_refresh_and_no_class_stays_paused_below_xon() {
    let seed = common::seed();
    let cfg = PfcConfig {
        quanta: 300,
        refresh: 64,
        ..PfcConfig::preset("tiny").unwrap()
    };
    let mut m = Pfc::new(&cfg).unwrap();
    let mut work = PfcWorkload::new(&cfg, seed);
    let (ports, prios) = (cfg.ports as usize, cfg.priorities as usize);
    let slack = u64::from(CAUSED_FRAME_LATENCY) + ports as u64;
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
                let (port, prio) = (k / prios, k % prios);
                key.pausing = m.is_xoff(port, prio);
                key.released = m.occupancy(port, prio) <= cfg.xon;
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

/// While XOFF holds, PAUSE is resent before half the pause time has run out (spec §2.6: every
/// quanta_time / 2), at the clock and link each sized PFC and CaPFC preset states: the longest
/// wait is REFRESH + P - 1 cycles (the tick, then the round robin); a PAUSE holds QUANTA x 512
/// bit times.
#[test]
fn sized_presets_refresh_within_half_the_pause_time() {
    use switchcraft_model::capfc::CapfcConfig;
    use switchcraft_model::pfc::preset_timing;
    let mut checked = 0;
    for name in ["tiny", "fpga", "paper"] {
        let pfc = PfcConfig::preset(name).unwrap();
        let capfc = CapfcConfig::preset(name).unwrap();
        let Some(t) = preset_timing(name) else {
            continue;
        };
        for (block, quanta, refresh, ports) in [
            ("pfc", pfc.quanta, pfc.refresh, pfc.ports),
            ("capfc", capfc.quanta, capfc.refresh, capfc.ports),
        ] {
            let wait_ns = (refresh as f64 + f64::from(ports) - 1.0) * 1000.0 / t.clock_mhz;
            let pause_ns = quanta as f64 * 512.0 / t.rate_bps * 1e9;
            assert!(
                wait_ns <= pause_ns / 2.0,
                "{block} {name}: {wait_ns} ns vs {pause_ns} ns"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 4, "fpga and paper of both blocks state a timing");
}
