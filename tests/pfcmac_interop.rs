//! pfcmac's frames through a dissector nobody here wrote, and frames it built fed to pfcmac:
//! scapy's 802.1Qbb layer (`MACControlClassBasedFlowControl`) and zlib's CRC-32, driven by
//! scripts/pfc_interop.py from `.tools/interop` (`make interop-tools`).
//!
//! * TX: each preset's Verilog under Verilator (in lockstep with the model) sends frames for
//!   random descriptors under random back-pressure; they go to a pcap, scapy dissects them, and
//!   every field must be what 802.1Qbb says: destination, source, EtherType, opcode, reserved
//!   byte, enable vector, times (zero for classes not enabled), zero padding, length and FCS;
//!   applied in order, the frames leave each class in the state its last descriptor asked.
//! * RX: scapy builds good PFC frames, each malformed kind (destination, one byte short or
//!   long, FCS) and frames that are not PFC (802.3x PAUSE, IPv4); each preset's Verilog and the
//!   model receive them in lockstep: every good frame gives exactly its classes' events and
//!   pause state, every malformed one is counted bad and changes nothing, the others nothing.

mod common;

use common::lockstep::Lockstep;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use switchcraft_core::rng::SplitMix64;
use switchcraft_model::pfcmac::{beats, reg, PfcMacConfig, PfcMacIn, PfcMacOut};

fn python() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/interop/bin/python");
    assert!(
        p.exists(),
        "{} is missing: install it with `make interop-tools`",
        p.display()
    );
    p
}

/// Runs scripts/pfc_interop.py with `args`; its JSON lines.
fn interop(args: &[&str]) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pfc_interop.py");
    let out = Command::new(python())
        .arg(script)
        .args(args)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "pfc_interop.py {args:?}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A preset's model and Verilog in lockstep.
fn lockstep(preset: &str, what: &str) -> Lockstep {
    Lockstep::new(&common::preset("pfcmac", preset), preset, what)
}

/// One edge of `run` with pfcmac's typed ports.
fn step(run: &mut Lockstep, i: &PfcMacIn) -> PfcMacOut {
    run.step(i)
}

fn cfg(preset: &str) -> PfcMacConfig {
    PfcMacConfig::preset(preset).unwrap()
}

fn tx_frames_pass_the_dissector(preset: &str) {
    let c = cfg(preset);
    let seed = common::seed();
    let mut rng = SplitMix64::new(seed);
    let mut run = lockstep(preset, "TX to scapy");
    let (mut asked, mut frames, mut current) = ([None::<u64>; 8], Vec::new(), Vec::new());
    let mut out = PfcMacOut::default();
    for cycle in 0..20_000 {
        let draining = cycle >= 19_000;
        let ready = draining || rng.chance(60);
        let mut i = PfcMacIn {
            tx_tready: u64::from(ready),
            ..Default::default()
        };
        if !draining && rng.chance(3) {
            i.frame_valid = 1;
            i.frame_class_enable = rng.below(256);
            i.frame_pause = rng.below(256);
            i.frame_quanta = rng.below(1 << 16);
            for (k, a) in asked.iter_mut().enumerate() {
                if i.frame_class_enable >> k & 1 == 1 {
                    let paused = i.frame_pause >> k & 1 == 1;
                    *a = Some(if paused { i.frame_quanta } else { 0 });
                }
            }
        }
        // The beat shown in this cycle is sent on this edge if ready.
        if out.tx_tvalid == 1 && ready {
            for l in 0..c.lanes() {
                if out.tx_tkeep >> l & 1 == 1 {
                    current.push((out.tx_tdata >> (8 * l)) as u8);
                }
            }
            if out.tx_tlast == 1 {
                frames.push(std::mem::take(&mut current));
            }
        }
        out = step(&mut run, &i);
    }
    assert!(frames.len() > 100, "{preset}: {} frames", frames.len());
    let dir = common::scratch::ScratchDir::new("pfcmac-interop", &format!("tx-{preset}"));
    let pcap = dir.join("tx.pcap");
    common::pcap::write(&pcap, &frames);
    let fcs = if c.fcs { "1" } else { "0" };
    let parsed = interop(&["dissect", pcap.to_str().unwrap(), fcs]);
    assert_eq!(parsed.len(), frames.len());
    let mut got = [None::<u64>; 8];
    for (k, f) in parsed.iter().enumerate() {
        let ctx = format!("{preset}, seed {seed}, frame {k}: {f}");
        assert_eq!(f["length"], c.frame_bytes(), "{ctx}");
        if c.fcs {
            assert_eq!(f["fcs_ok"], true, "{ctx}");
        }
        assert_eq!(f["is_pfc"], true, "{ctx}");
        assert_eq!(f["dst"], "01:80:c2:00:00:01", "{ctx}");
        assert_eq!(f["src"], "02:00:00:00:00:01", "{ctx}");
        assert_eq!(f["type"], 0x8808, "{ctx}");
        assert_eq!(f["opcode"], 0x0101, "{ctx}");
        assert_eq!(f["reserved"], 0, "{ctx}");
        assert_eq!(f["padding_zero"], true, "{ctx}");
        assert_eq!(f["bytes_after_times"], 26, "{ctx}");
        let enable = f["enable"].as_u64().unwrap();
        assert_ne!(enable, 0, "{ctx}: a frame states some class");
        for (c, g) in got.iter_mut().enumerate() {
            let t = f["times"][c].as_u64().unwrap();
            if enable >> c & 1 == 1 {
                *g = Some(t);
            } else {
                assert_eq!(t, 0, "{ctx}: class {c} not enabled, time not 0");
            }
        }
    }
    assert_eq!(
        got, asked,
        "{preset}, seed {seed}: each class's last request arrives"
    );
}

fn rx_takes_the_frames_scapy_built(preset: &str) {
    let c = cfg(preset);
    let seed = common::seed();
    let dir = common::scratch::ScratchDir::new("pfcmac-interop", &format!("rx-{preset}"));
    let pcap = dir.join("rx.pcap");
    let fcs = if c.fcs { "1" } else { "0" };
    let expect = interop(&["build", pcap.to_str().unwrap(), &seed.to_string(), fcs]);
    let frames = common::pcap::read(&pcap);
    assert_eq!(frames.len(), expect.len());
    let mut run = lockstep(preset, "RX from scapy");
    // Slow timers: no pause runs out during the run; only frames change the state.
    step(
        &mut run,
        &PfcMacIn {
            csr_we: 1,
            csr_addr: reg::QUANTA_STEP.into(),
            csr_wdata: 1,
            ..Default::default()
        },
    );
    let mut paused = 0u64;
    let (mut good, mut bad) = (0u64, 0u64);
    for (k, (bytes, e)) in frames.iter().zip(&expect).enumerate() {
        let ctx = format!("{preset}, seed {seed}, frame {k}: {e}");
        let mut outs = Vec::new();
        for (data, keep, last) in beats(bytes, c.lanes()) {
            outs.push(step(
                &mut run,
                &PfcMacIn {
                    rx_tvalid: 1,
                    rx_tdata: data,
                    rx_tkeep: keep,
                    rx_tlast: u64::from(last),
                    ..Default::default()
                },
            ));
        }
        // Long enough for the verdict and eight events.
        for _ in 0..16 {
            outs.push(step(&mut run, &PfcMacIn::default()));
        }
        let events: Vec<(u64, u64)> = outs
            .iter()
            .filter(|o| o.rx_pfc_valid == 1)
            .map(|o| (o.rx_pfc_prio, o.rx_pfc_quanta))
            .collect();
        let bad_frames = outs.iter().filter(|o| o.bad_frame == 1).count();
        let enable = e["enable"].as_u64().unwrap();
        match e["verdict"].as_str().unwrap() {
            "good" => {
                good += 1;
                let want: Vec<(u64, u64)> = (0..8u64)
                    .filter(|c| enable >> c & 1 == 1)
                    .map(|c| (c, e["times"][c as usize].as_u64().unwrap()))
                    .collect();
                assert_eq!(events, want, "{ctx}");
                for (c, t) in &want {
                    paused = (paused & !(1 << c)) | (u64::from(*t > 0) << c);
                }
                assert_eq!(bad_frames, 0, "{ctx}");
            }
            "bad" => {
                bad += 1;
                assert_eq!((events.len(), bad_frames), (0, 1), "{ctx}");
            }
            _ => assert_eq!((events.len(), bad_frames), (0, 0), "{ctx}"),
        }
        assert_eq!(outs.last().unwrap().paused, paused, "{ctx}");
    }
    assert!(
        good > 50 && bad > 10,
        "{preset}: {good} good, {bad} bad frames"
    );
    // csr_rdata after an edge is the word that edge addressed.
    let read = |run: &mut Lockstep, r: u32| {
        step(
            run,
            &PfcMacIn {
                csr_addr: r.into(),
                ..Default::default()
            },
        )
        .csr_rdata
    };
    assert_eq!(read(&mut run, reg::RX_FRAMES), good);
    assert_eq!(read(&mut run, reg::RX_BAD), bad);
}

#[test]
fn pfcmac_tx_frames_pass_scapys_dissector() {
    for preset in ["tiny", "fpga", "fpga-fcs"] {
        tx_frames_pass_the_dissector(preset);
    }
}

#[test]
fn pfcmac_rx_takes_scapys_frames() {
    for preset in ["tiny", "fpga", "fpga-fcs"] {
        rx_takes_the_frames_scapy_built(preset);
    }
}
