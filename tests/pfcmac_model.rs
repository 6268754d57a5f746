//! Golden-model tests of pfcmac: each asserts a rule of the contract in
//! crates/model/src/pfcmac.rs (docs/blocks/pfcmac.md), computed here from first principles:
//! frames byte for byte against IEEE 802.1Qbb's layout and 802.3's FCS, no pause lost under
//! back-pressure, pause timers in quanta, every malformed frame counted and inert.

use switchcraft_core::fcs::{crc_bytes, CRC_INIT, CRC_RESIDUE};
use switchcraft_core::rng::SplitMix64;
use switchcraft_core::CycleModel;
use switchcraft_model::pfcmac::{
    beats, frame, reg, Beat, PfcMac, PfcMacConfig, PfcMacIn, PfcMacOut, EVENT_LATENCY,
    FLAG_BAD_FRAME, VERDICT_LATENCY,
};
use switchcraft_model::tcd::{Tcd, TcdConfig, TcdIn};

fn cfg(data_bits: u32, fcs: bool) -> PfcMacConfig {
    PfcMacConfig {
        data_bits,
        fcs,
        src_mac: 0x02_11_22_33_44_55,
        quanta_step: 0x4000,
    }
}

fn configs() -> [PfcMacConfig; 4] {
    [cfg(8, true), cfg(64, true), cfg(8, false), cfg(64, false)]
}

fn rx(data: u64, keep: u64, last: bool) -> PfcMacIn {
    PfcMacIn {
        rx_tvalid: 1,
        rx_tdata: data,
        rx_tkeep: keep,
        rx_tlast: u64::from(last),
        ..Default::default()
    }
}

fn csr_read(m: &mut PfcMac, index: u32) -> u64 {
    m.step(&PfcMacIn {
        csr_addr: index.into(),
        ..Default::default()
    })
    .csr_rdata
}

/// Collects the bytes of TX frames from outputs (tkeep lanes), one Vec per frame.
#[derive(Default)]
struct TxCollector {
    frames: Vec<Vec<u8>>,
    current: Vec<u8>,
}

impl TxCollector {
    /// `out` shown in a cycle whose `tx_tready` is `ready`.
    fn see(&mut self, out: &PfcMacOut, ready: bool, lanes: usize) {
        if out.tx_tvalid == 1 && ready {
            for l in 0..lanes {
                if out.tx_tkeep >> l & 1 == 1 {
                    self.current.push((out.tx_tdata >> (8 * l)) as u8);
                }
            }
            if out.tx_tlast == 1 {
                self.frames.push(std::mem::take(&mut self.current));
            }
        }
    }
}

#[test]
fn tx_sends_the_frame_the_descriptor_states_byte_for_byte() {
    for c in configs() {
        let mut m = PfcMac::new(&c);
        let out = m.step(&PfcMacIn {
            frame_valid: 1,
            frame_class_enable: 0b1010_0101,
            frame_pause: 0b0000_0101,
            frame_quanta: 0x1234,
            ..Default::default()
        });
        assert_eq!(
            out.tx_tvalid, 1,
            "first beat right after the descriptor's edge"
        );
        let mut col = TxCollector::default();
        let mut out = out;
        for _ in 0..100 {
            let next = m.step(&PfcMacIn {
                tx_tready: 1,
                ..Default::default()
            });
            col.see(&out, true, c.lanes());
            out = next;
        }
        assert_eq!(col.frames.len(), 1, "{c:?}");
        let f = &col.frames[0];
        // 802.1Qbb: DA, SA, EtherType 8808, opcode 0101, class-enable vector, 8 times.
        let mut want = vec![0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
        want.extend_from_slice(&[0x02, 0x11, 0x22, 0x33, 0x44, 0x55]);
        want.extend_from_slice(&[0x88, 0x08, 0x01, 0x01, 0x00, 0b1010_0101]);
        let times = [0x1234u16, 0, 0x1234, 0, 0, 0, 0, 0];
        for t in times {
            want.extend_from_slice(&t.to_be_bytes());
        }
        want.resize(60, 0);
        assert_eq!(&f[..60], &want[..], "{c:?}");
        if c.fcs {
            assert_eq!(f.len(), 64);
            assert_eq!(crc_bytes(CRC_INIT, f), CRC_RESIDUE, "FCS of {c:?}");
        } else {
            assert_eq!(f.len(), 60);
        }
        assert_eq!(csr_read(&mut m, reg::TX_FRAMES), 1);
    }
}

#[test]
fn back_pressure_merges_pending_classes_and_loses_none() {
    let seed = 0x5c_2026;
    for c in configs() {
        let mut rng = SplitMix64::new(seed);
        let mut m = PfcMac::new(&c);
        // The receiver's view, class by class, and what the descriptors asked for last.
        let (mut asked, mut got) = ([None::<u16>; 8], [None::<u16>; 8]);
        let mut col = TxCollector::default();
        let mut out = PfcMacOut::default();
        for cycle in 0..40_000 {
            let draining = cycle >= 39_000;
            let mut i = PfcMacIn {
                tx_tready: u64::from(draining || rng.chance(30)),
                ..Default::default()
            };
            if !draining && rng.chance(10) {
                i.frame_valid = 1;
                i.frame_class_enable = rng.below(256);
                i.frame_pause = rng.below(256);
                i.frame_quanta = rng.below(1 << 16);
                for (k, a) in asked.iter_mut().enumerate() {
                    if i.frame_class_enable >> k & 1 == 1 {
                        let paused = i.frame_pause >> k & 1 == 1;
                        *a = Some(if paused { i.frame_quanta as u16 } else { 0 });
                    }
                }
            }
            let next = m.step(&i);
            col.see(&out, i.tx_tready == 1, c.lanes());
            out = next;
        }
        assert!(col.frames.len() > 150, "{c:?}: {} frames", col.frames.len());
        for f in &col.frames {
            assert_eq!(f.len(), c.frame_bytes(), "seed {seed}, {c:?}");
            if c.fcs {
                assert_eq!(crc_bytes(CRC_INIT, f), CRC_RESIDUE, "seed {seed}, {c:?}");
            }
            for (k, g) in got.iter_mut().enumerate() {
                if f[17] >> k & 1 == 1 {
                    *g = Some(u16::from_be_bytes([f[18 + 2 * k], f[19 + 2 * k]]));
                }
            }
        }
        assert_eq!(
            got, asked,
            "seed {seed}, {c:?}: the last state of every class arrives"
        );
    }
}

/// The first edge at which `ticks` whole quanta have accumulated after `loaded` (edges counted
/// from reset, the accumulator's fraction starting at 0).
fn expiry_edge(step: u64, loaded: u64, quanta: u64) -> u64 {
    let whole = |edges: u64| (edges * step) >> 16;
    let mut e = loaded + 1;
    while whole(e + 1) - whole(loaded + 1) < quanta {
        e += 1;
    }
    e
}

#[test]
fn rx_pauses_resumes_and_expires_by_the_quanta_of_the_link_rate() {
    for c in configs() {
        let mut m = PfcMac::new(&c);
        let times = [100, 0, 7, 0, 0, 0, 0, 0];
        let bytes = frame(0x02_00_00_00_00_09, 0b0000_0111, &times, c.fcs);
        let mut outs = Vec::new();
        for (d, k, l) in beats(&bytes, c.lanes()) {
            outs.push(m.step(&rx(d, k, l)));
        }
        let last = outs.len() as u64 - 1;
        for _ in 0..600 {
            outs.push(m.step(&PfcMacIn::default()));
        }
        let at = |e: u64| outs[e as usize];
        let v = last + u64::from(VERDICT_LATENCY);
        assert_eq!(at(v - 1).paused, 0, "{c:?}");
        assert_eq!(
            at(v).paused,
            0b101,
            "{c:?}: classes 0 and 2 paused, 1 resumed"
        );
        let e = last + u64::from(EVENT_LATENCY);
        let events: Vec<(u64, u64)> = (e..e + 3)
            .map(|k| (at(k).rx_pfc_prio, at(k).rx_pfc_quanta))
            .collect();
        assert!((e..e + 3).all(|k| at(k).rx_pfc_valid == 1));
        assert_eq!(events, vec![(0, 100), (1, 0), (2, 7)], "{c:?}");
        // Expiry: 0x4000 is a quarter quantum per edge.
        for (class, quanta) in [(0usize, 100u64), (2, 7)] {
            let x = expiry_edge(0x4000, v, quanta);
            assert_eq!(at(x - 1).paused >> class & 1, 1, "{c:?} class {class}");
            assert_eq!(
                at(x).paused >> class & 1,
                0,
                "{c:?} class {class} expires at {x}"
            );
            let ev = at(x + u64::from(EVENT_LATENCY - VERDICT_LATENCY));
            assert_eq!(
                (ev.rx_pfc_valid, ev.rx_pfc_prio, ev.rx_pfc_quanta),
                (1, class as u64, 0)
            );
        }
        assert_eq!(csr_read(&mut m, reg::RX_FRAMES), 1);
    }
}

/// Frames that must be counted bad and must change nothing, by what is wrong with them.
fn malformed(c: &PfcMacConfig) -> Vec<(&'static str, Vec<Beat>, bool)> {
    let good = frame(0x02_00_00_00_00_09, 0xff, &[9; 8], c.fcs);
    let lanes = c.lanes();
    let with = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        f(&mut b);
        beats(&b, lanes)
    };
    let mut v = vec![
        ("wrong destination", with(&|b| b[5] = 0x02), false),
        ("one byte short", with(&|b| b.truncate(b.len() - 1)), false),
        ("one byte long", with(&|b| b.push(0)), false),
        ("rx_tuser", beats(&good, lanes), true),
    ];
    if c.fcs {
        v.push(("bad FCS", with(&|b| b[30] ^= 0x40), false));
    }
    // A beat in the middle with a lane missing (a null beat at 8 bits).
    let mut unpacked = beats(&good, lanes);
    unpacked[3].1 >>= 1;
    v.push(("not packed", unpacked, false));
    v
}

#[test]
fn every_malformed_pfc_frame_is_counted_and_changes_nothing() {
    for c in configs() {
        for (what, frame_beats, tuser) in malformed(&c) {
            let mut m = PfcMac::new(&c);
            let mut outs = Vec::new();
            for (d, k, l) in &frame_beats {
                let mut i = rx(*d, *k, *l);
                i.rx_tuser = u64::from(tuser && *l);
                outs.push(m.step(&i));
            }
            for _ in 0..4 {
                outs.push(m.step(&PfcMacIn::default()));
            }
            let v = frame_beats.len() - 1 + VERDICT_LATENCY as usize;
            assert_eq!(outs[v].bad_frame, 1, "{c:?}: {what}");
            assert_eq!(outs.iter().filter(|o| o.bad_frame == 1).count(), 1);
            assert!(
                outs.iter().all(|o| o.paused == 0 && o.rx_pfc_valid == 0),
                "{what}"
            );
            assert_eq!(csr_read(&mut m, reg::RX_BAD), 1, "{c:?}: {what}");
            assert_eq!(csr_read(&mut m, reg::RX_FRAMES), 0);
            assert_eq!(
                csr_read(&mut m, reg::FLAGS) & FLAG_BAD_FRAME,
                FLAG_BAD_FRAME
            );
        }
    }
}

#[test]
fn frames_that_are_not_pfc_are_ignored() {
    for c in configs() {
        let good = frame(0x02_00_00_00_00_09, 0xff, &[9; 8], c.fcs);
        let mut ip = good.clone();
        ip[12..14].copy_from_slice(&[0x08, 0x00]);
        let mut pause_8023x = good.clone();
        pause_8023x[14..16].copy_from_slice(&[0x00, 0x01]);
        let runt = good[..10].to_vec();
        for (what, bytes) in [("IPv4", ip), ("802.3x PAUSE", pause_8023x), ("runt", runt)] {
            let mut m = PfcMac::new(&c);
            let mut outs = Vec::new();
            for (d, k, l) in beats(&bytes, c.lanes()) {
                outs.push(m.step(&rx(d, k, l)));
            }
            for _ in 0..4 {
                outs.push(m.step(&PfcMacIn::default()));
            }
            assert!(
                outs.iter()
                    .all(|o| o.paused == 0 && o.rx_pfc_valid == 0 && o.bad_frame == 0),
                "{c:?}: {what}"
            );
            assert_eq!(csr_read(&mut m, reg::RX_BAD), 0, "{what}");
        }
    }
}

#[test]
fn tx_to_rx_round_trip_under_back_pressure_loses_no_state() {
    let seed = 0x5c_2027;
    for c in configs() {
        let mut rng = SplitMix64::new(seed);
        // Slow timers: nothing expires during the run (quanta >= 0x8000 at 1/65536 per edge).
        let c = PfcMacConfig {
            quanta_step: 1,
            ..c
        };
        let (mut tx, mut rxm) = (PfcMac::new(&c), PfcMac::new(&c));
        let mut asked = [None::<u16>; 8];
        let mut tx_out = PfcMacOut::default();
        let mut rx_out = PfcMacOut::default();
        for cycle in 0..30_000 {
            let draining = cycle >= 29_000;
            let ready = draining || rng.chance(40);
            let mut i = PfcMacIn {
                tx_tready: u64::from(ready),
                ..Default::default()
            };
            if !draining && rng.chance(5) {
                i.frame_valid = 1;
                i.frame_class_enable = rng.below(256);
                i.frame_pause = rng.below(256);
                i.frame_quanta = 0x8000 + rng.below(0x8000);
                for (k, a) in asked.iter_mut().enumerate() {
                    if i.frame_class_enable >> k & 1 == 1 {
                        let paused = i.frame_pause >> k & 1 == 1;
                        *a = Some(if paused { i.frame_quanta as u16 } else { 0 });
                    }
                }
            }
            // The link: a beat taken by TX's MAC arrives at RX's MAC.
            let link = PfcMacIn {
                rx_tvalid: u64::from(tx_out.tx_tvalid == 1 && ready),
                rx_tdata: tx_out.tx_tdata,
                rx_tkeep: tx_out.tx_tkeep,
                rx_tlast: tx_out.tx_tlast,
                ..Default::default()
            };
            tx_out = tx.step(&i);
            rx_out = rxm.step(&link);
            assert_eq!(rx_out.bad_frame, 0, "seed {seed}, {c:?}, cycle {cycle}");
        }
        let want: u64 = asked
            .iter()
            .enumerate()
            .filter(|(_, a)| a.is_some_and(|t| t > 0))
            .map(|(k, _)| 1 << k)
            .sum();
        assert_eq!(rx_out.paused, want, "seed {seed}, {c:?}");
        assert_eq!(
            csr_read(&mut tx, reg::TX_FRAMES),
            csr_read(&mut rxm, reg::RX_FRAMES)
        );
    }
}

#[test]
fn the_random_workload_reaches_every_rule() {
    use switchcraft_model::pfcmac::PfcMacWorkload;
    for c in configs() {
        let mut w = PfcMacWorkload::new(&c, 0x5c_2026);
        let mut m = PfcMac::new(&c);
        let (mut sent, mut pauses, mut resumes, mut bad, mut stalls) = (0, 0, 0, 0, 0);
        let mut prev = PfcMacOut::default();
        for _ in 0..200_000 {
            let i = w.next_input();
            if prev.tx_tvalid == 1 {
                if i.tx_tready == 1 {
                    sent += prev.tx_tlast;
                } else {
                    stalls += 1;
                }
            }
            prev = m.step(&i);
            if prev.rx_pfc_valid == 1 {
                if prev.rx_pfc_quanta > 0 {
                    pauses += 1;
                } else {
                    resumes += 1;
                }
            }
            bad += prev.bad_frame;
        }
        let good = csr_read(&mut m, reg::RX_FRAMES);
        let counts = (sent, stalls, good, pauses, resumes, bad);
        assert!(
            sent > 200 && stalls > 1000 && good > 200 && pauses > 500 && resumes > 500 && bad > 50,
            "{c:?}: (frames sent, stalled beats, good frames, PAUSE events, RESUME or expiry \
             events, bad frames) = {counts:?}"
        );
    }
}

/// Issue 34's example of the link rate as a CSR: 0xFFFF quanta at 100 Gb/s last 0xFFFF x 512
/// bit times = 335.5 us. At a 322.265625 MHz clock, `QUANTA_STEP` is 100e9 / 512 / 322.265625e6
/// quanta per cycle in Q8.16, rounded down (39 718, 20 ppm below the exact step, so the class stays paused
/// no shorter than the standard asks); written over the CSR bus, the class expires after
/// 335.5 us of cycles, to within one cycle and the step's rounding.
#[test]
fn a_full_pause_at_100g_lasts_335_microseconds() {
    let clock_hz: f64 = 322.265_625e6;
    let step = (100e9 / 512.0 / clock_hz * 65536.0).floor() as u64;
    assert_eq!(step, 39_718);
    let c = cfg(64, true);
    let mut m = PfcMac::new(&c);
    m.step(&PfcMacIn {
        csr_we: 1,
        csr_addr: reg::QUANTA_STEP.into(),
        csr_wdata: step,
        ..Default::default()
    });
    let bytes = frame(
        0x02_00_00_00_00_09,
        0b1,
        &[0xffff, 0, 0, 0, 0, 0, 0, 0],
        c.fcs,
    );
    let mut edge = 1u64;
    let mut paused_at = None;
    for (d, k, l) in beats(&bytes, c.lanes()) {
        m.step(&rx(d, k, l));
        edge += 1;
    }
    let expired_at = loop {
        let out = m.step(&PfcMacIn::default());
        edge += 1;
        match (paused_at, out.paused & 1) {
            (None, 1) => paused_at = Some(edge),
            (Some(p), 0) => break edge - p,
            _ => {}
        }
        assert!(edge < 200_000, "class 0 never expired");
    };
    let seconds = expired_at as f64 / clock_hz;
    let exact: f64 = 65535.0 * 512.0 / 100e9;
    assert!((exact - 335.5e-6).abs() < 0.05e-6, "{exact}");
    assert!(
        seconds >= exact - 1.0 / clock_hz && seconds <= exact * (1.0 + 25e-6) + 1.0 / clock_hz,
        "paused for {expired_at} cycles = {:.4} us, the standard says {:.4} us",
        seconds * 1e6,
        exact * 1e6
    );
}

/// What pfcmac's RX is for (issue 34): TCD sees a pause run out. A frame pauses class 3 of the
/// link on port 5 for 20 quanta and nothing resumes it; pfcmac's `rx_pfc` events drive TCD's
/// `rx_pfc` bus (the port is the link's). TCD's entry is paused by the PAUSE event and its OFF
/// period ends when the timer runs out, 80 edges later at a quarter quantum per edge (within
/// one edge of the accumulator's phase), with the ON time starting there: without pfcmac a MAC
/// that does not report expiry would leave the entry paused.
#[test]
fn a_pause_that_runs_out_ends_tcds_off_period() {
    const PORT: u64 = 5;
    let c = cfg(64, true);
    assert_eq!(c.quanta_step, 0x4000, "a quarter quantum per edge");
    let mut mac = PfcMac::new(&c);
    let mut tcd = Tcd::new(&TcdConfig::preset("fpga").unwrap()).unwrap();
    let bytes = frame(
        0x02_00_00_00_00_09,
        0b1000,
        &[0, 0, 0, 20, 0, 0, 0, 0],
        c.fcs,
    );
    let rx_beats: Vec<PfcMacIn> = beats(&bytes, c.lanes())
        .into_iter()
        .map(|(d, k, l)| rx(d, k, l))
        .collect();
    let (mut events, mut paused_at, mut resumed_at) = (Vec::new(), None, None);
    let mut shown = PfcMacOut::default();
    for edge in 0..300usize {
        // TCD samples on this edge what pfcmac showed after the last one; `stamp` is its time.
        let stamp = tcd.now();
        tcd.step(&TcdIn {
            rx_pfc_valid: shown.rx_pfc_valid,
            rx_pfc_port: PORT,
            rx_pfc_prio: shown.rx_pfc_prio,
            rx_pfc_quanta: shown.rx_pfc_quanta,
            rx_pfc_qlen: 1000,
            ..Default::default()
        });
        if shown.rx_pfc_valid == 1 {
            events.push((shown.rx_pfc_prio, shown.rx_pfc_quanta));
        }
        let e = tcd.entry(PORT as usize, 3);
        match (paused_at, resumed_at, e.paused) {
            (None, _, true) => paused_at = Some(edge),
            (Some(_), None, false) => {
                resumed_at = Some(edge);
                assert_eq!(e.t_on, Some(stamp), "the ON period starts at the expiry");
            }
            _ => {}
        }
        shown = mac.step(&rx_beats.get(edge).copied().unwrap_or_default());
    }
    assert_eq!(events, vec![(3, 20), (3, 0)], "a PAUSE, then the expiry");
    let (p, r) = (
        paused_at.expect("paused"),
        resumed_at.expect("the pause ran out"),
    );
    assert!((79..=81).contains(&(r - p)), "paused for {} edges", r - p);
    assert!(!tcd.entry(PORT as usize, 3).paused);
}
