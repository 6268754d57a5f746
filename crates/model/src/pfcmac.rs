//! pfcmac: 802.1Qbb priority flow-control frames on the wire, for one link.
//!
//! **TX** turns the frame descriptors of PFC or CaPFC (`frame_*`: class-enable vector, the
//! classes to pause, one pause time) into complete MAC control frames on an AXI-Stream master
//! (`tx_*`): destination 01-80-C2-00-00-01, the source address of `SRC_MAC`, EtherType 0x8808,
//! opcode 0x0101, the class-enable vector, eight pause times (each class its own), zero padding
//! to 60 bytes and, if the config says so, the FCS (else the MAC appends it). Descriptors merge
//! into a pending state per class (the latest descriptor naming a class wins), so back-pressure
//! on `tx_tready` delays pauses and resumes but never loses one: every class pending when a
//! frame starts goes into it.
//!
//! **RX** watches the MAC's receive stream (`rx_*`, no back-pressure) and keeps a pause timer per
//! class in quanta of 512 bit times, decremented by `QUANTA_STEP` quanta per clock cycle (the
//! link rate as a CSR). It reports `paused` per class and an event per received class and per
//! expiry on `rx_pfc_*`, named after TCD's `rx_pfc` bus (quanta 0: a RESUME or an expiry).
//!
//! Cycle semantics (one [`PfcMac::step`] = one rising edge n; the block docs are
//! docs/blocks/pfcmac.md):
//! * TX: on edge n a beat shown with `tx_tvalid` and sampled with `tx_tready` is sent; then the
//!   descriptor sampled at edge n merges into the pending classes; then, if no frame is left in
//!   flight, the pending classes (if any) become the next frame, whose first beat shows after
//!   edge n. Back-to-back frames have no idle cycle. `TX_FRAMES` counts frames sent.
//! * RX: the byte at position k of a frame is lane `k % L` of its beat `k / L` (L lanes of
//!   8 bits). A frame is a *PFC frame* if its bytes 12..16 are 88 08 01 01 (EtherType, opcode);
//!   other frames are ignored. A PFC frame is *good* if it is packed (every beat but the last
//!   keeps all lanes, the last a nonzero run of low lanes), exactly 60 bytes (64 with the FCS),
//!   addressed to 01-80-C2-00-00-01, with a correct FCS (if the stream carries it) and no
//!   `rx_tuser` on any beat; otherwise it is *bad*: counted in `RX_BAD`, flagged, `bad_frame`
//!   for a cycle, and it changes nothing else.
//! * The verdict on the frame whose last beat is sampled at edge n is applied at edge n + 1:
//!   each enabled class's timer loads its time, `paused` is set for time > 0 and cleared for
//!   time 0, and an event is raised. On every edge the timers of paused classes not loaded by a
//!   frame go down by the whole quanta of the step accumulator (Q8.16, which adds `QUANTA_STEP`
//!   as it was before the previous edge: a write reaches the timers one edge after its own);
//!   one that reaches 0 expires (`paused` cleared, an event of quanta 0 raised).
//! * Events raised on an edge join the queue on the next (a register stage between the timers
//!   and the queue), and leave on `rx_pfc_*` one per edge, the lowest class first, one edge
//!   after they are queued. A new event for a class whose previous one is still queued replaces it (flag
//!   `COALESCED`): at most 8 per frame, and frames are at least 8 beats long, so it needs
//!   expiries to coincide with a full frame's events.
//! * Counters saturate at 2^32 - 1 and set flag `SATURATED`. `csr_rdata` after edge n is
//!   register `csr_addr` as it was before edge n; CSR values used on edge n are those before
//!   its write.

use crate::config::parse_toml;
use serde::{Deserialize, Serialize};
use switchcraft_core::csr::{Access, CsrFile, Reg, RegMap, CSR_ADDR_BITS, CSR_DATA_BITS};
use switchcraft_core::fcs::{crc_byte, crc_bytes, CRC_INIT, CRC_RESIDUE};
use switchcraft_core::{mask, ConfigError, CycleModel, InputError, Port, PortSchema};

/// Static parameters of a pfcmac instance (one link).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PfcMacConfig {
    /// AXI-Stream data width in bits, TX and RX: 8 or 64.
    pub data_bits: u32,
    /// The streams carry the FCS: TX appends it, RX checks it. Otherwise the MAC appends and
    /// checks it (RX then trusts `rx_tuser`).
    pub fcs: bool,
    /// Reset value of `SRC_MAC`: the link's own unicast address, 48 bits.
    pub src_mac: u64,
    /// Reset value of `QUANTA_STEP`: pause quanta per clock cycle, Q8.16 (link rate / 512 /
    /// clock frequency; 8192 = 10 Gb/s at 156.25 MHz).
    pub quanta_step: u64,
}

pub const PRESETS: &[&str] = &["tiny", "fpga", "fpga-fcs"];

impl PfcMacConfig {
    pub fn preset(name: &str) -> Option<PfcMacConfig> {
        Some(match name {
            // A byte-wide stream, as 1G MACs have; quanta fast enough that random tests see
            // many expiries (a quantum every 4 cycles).
            "tiny" => PfcMacConfig {
                data_bits: 8,
                fcs: true,
                src_mac: 0x02_00_00_00_00_01,
                quanta_step: 0x4000,
            },
            // The 64-bit stream of a 10G MAC at 156.25 MHz (1/8 quantum per cycle) that appends
            // and checks the FCS itself, as verilog-ethernet's MACs do for their pause-frame
            // blocks: the like-for-like comparison of docs/reports.
            "fpga" => PfcMacConfig {
                data_bits: 64,
                fcs: false,
                src_mac: 0x02_00_00_00_00_01,
                quanta_step: 0x2000,
            },
            // The same with the FCS in the stream: this block computes and checks it.
            "fpga-fcs" => PfcMacConfig {
                fcs: true,
                ..PfcMacConfig::preset("fpga")?
            },
            _ => return None,
        })
    }

    pub fn from_toml(text: &str, name: &str) -> Result<PfcMacConfig, InputError> {
        let cfg: PfcMacConfig = parse_toml(text, name)?;
        cfg.validate()
            .map_err(|e| InputError(format!("{name}: {e}")))?;
        Ok(cfg)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.data_bits != 8 && self.data_bits != 64 {
            return Err(ConfigError::new(
                "data_bits",
                self.data_bits,
                "must be 8 or 64",
            ));
        }
        if self.src_mac >> 48 != 0 {
            return Err(ConfigError::new(
                "src_mac",
                self.src_mac,
                "must fit 48 bits",
            ));
        }
        if self.src_mac >> 40 & 1 == 1 {
            return Err(ConfigError::new(
                "src_mac",
                self.src_mac,
                "must be a unicast address (the first octet's low bit clear)",
            ));
        }
        crate::config::in_range("quanta_step", self.quanta_step, 1, mask(24))
    }

    /// Byte lanes of a beat.
    pub fn lanes(&self) -> usize {
        self.data_bits as usize / 8
    }

    /// Bytes of a frame on the stream: 60, or 64 with the FCS.
    pub fn frame_bytes(&self) -> usize {
        if self.fcs {
            FRAME_BYTES + 4
        } else {
            FRAME_BYTES
        }
    }

    /// Beats of a frame.
    pub fn beats(&self) -> usize {
        self.frame_bytes().div_ceil(self.lanes())
    }

    /// `tkeep` of a frame's last beat.
    pub fn last_keep(&self) -> u64 {
        mask((self.frame_bytes() - (self.beats() - 1) * self.lanes()) as u32)
    }
}

/// A PFC frame without its FCS: the minimum frame.
pub const FRAME_BYTES: usize = 60;
pub const DESTINATION: [u8; 6] = [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01];
/// EtherType (MAC control) and opcode (PFC), bytes 12..16 of a PFC frame.
pub const TYPE_AND_OPCODE: [u8; 4] = [0x88, 0x08, 0x01, 0x01];
pub const CLASSES: usize = 8;
/// Bytes 0..34 carry the frame's fields (the last is class 7's time); the rest is zero padding.
pub const FIELD_BYTES: usize = 18 + 2 * CLASSES;

/// Byte `k` (< 60) of the PFC frame from `src_mac` with class-enable vector `enable` and pause
/// times `times` (big-endian, class 0 first; a class not enabled sends 0).
pub fn frame_byte(k: usize, src_mac: u64, enable: u8, times: &[u16; CLASSES]) -> u8 {
    match k {
        0..=5 => DESTINATION[k],
        6..=11 => (src_mac >> (8 * (11 - k))) as u8,
        12..=15 => TYPE_AND_OPCODE[k - 12],
        16 => 0,
        17 => enable,
        18..FIELD_BYTES => {
            let class = (k - 18) / 2;
            let time = if enable >> class & 1 == 1 {
                times[class]
            } else {
                0
            };
            if k.is_multiple_of(2) {
                (time >> 8) as u8
            } else {
                time as u8
            }
        }
        _ => 0,
    }
}

/// The whole frame, with its FCS if `fcs` (what a dissector sees).
pub fn frame(src_mac: u64, enable: u8, times: &[u16; CLASSES], fcs: bool) -> Vec<u8> {
    let mut f: Vec<u8> = (0..FRAME_BYTES)
        .map(|k| frame_byte(k, src_mac, enable, times))
        .collect();
    if fcs {
        let v = switchcraft_core::fcs::fcs(&f);
        f.extend_from_slice(&v.to_le_bytes());
    }
    f
}

/// One beat of a stream: (tdata, tkeep, tlast).
pub type Beat = (u64, u64, bool);

/// `bytes` as the beats of a packed stream of `lanes` byte lanes (byte 0 in lane 0).
pub fn beats(bytes: &[u8], lanes: usize) -> Vec<Beat> {
    let chunks: Vec<&[u8]> = bytes.chunks(lanes).collect();
    chunks
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let data = c
                .iter()
                .enumerate()
                .fold(0u64, |d, (l, &b)| d | u64::from(b) << (8 * l));
            (data, mask(c.len() as u32), k + 1 == chunks.len())
        })
        .collect()
}

pub mod reg {
    pub const ID: u32 = 0;
    pub const PARAMS: u32 = 1;
    pub const SRC_MAC_LO: u32 = 2;
    pub const SRC_MAC_HI: u32 = 3;
    pub const QUANTA_STEP: u32 = 4;
    pub const TX_FRAMES: u32 = 5;
    pub const RX_FRAMES: u32 = 6;
    pub const RX_BAD: u32 = 7;
    pub const FLAGS: u32 = 8;
    pub const PAUSED: u32 = 9;
}

/// `FLAGS` bits (sticky, write 1 to clear).
pub const FLAG_BAD_FRAME: u64 = 1;
pub const FLAG_SATURATED: u64 = 2;
pub const FLAG_COALESCED: u64 = 4;

/// ID word: ASCII "PFM" and version 1.
pub const ID_WORD: u64 = 0x5046_4D01;

pub fn regmap(cfg: &PfcMacConfig) -> RegMap {
    let params = u64::from(cfg.data_bits) | u64::from(cfg.fcs) << 8;
    let r = |name, index, width, access, reset, doc| Reg {
        name,
        index,
        width,
        access,
        reset,
        doc,
    };
    RegMap::new(
        "pfcmac",
        vec![
            r("id", reg::ID, 32, Access::Const, ID_WORD, "block ID \"PFM\" and version 1"),
            r(
                "params",
                reg::PARAMS,
                32,
                Access::Const,
                params,
                "data_bits [7:0], fcs [8]",
            ),
            r(
                "src_mac_lo",
                reg::SRC_MAC_LO,
                32,
                Access::Rw,
                cfg.src_mac & mask(32),
                "source MAC address of sent frames, bits 31:0",
            ),
            r(
                "src_mac_hi",
                reg::SRC_MAC_HI,
                16,
                Access::Rw,
                cfg.src_mac >> 32,
                "source MAC address, bits 47:32 (the first octet sent is bits 47:40)",
            ),
            r(
                "quanta_step",
                reg::QUANTA_STEP,
                24,
                Access::Rw,
                cfg.quanta_step,
                "pause quanta per clock cycle, Q8.16 (link rate / 512 / clock); 0 stops the timers",
            ),
            r("tx_frames", reg::TX_FRAMES, 32, Access::Ro, 0, "frames sent (saturating)"),
            r(
                "rx_frames",
                reg::RX_FRAMES,
                32,
                Access::Ro,
                0,
                "good PFC frames received (saturating)",
            ),
            r(
                "rx_bad",
                reg::RX_BAD,
                32,
                Access::Ro,
                0,
                "bad PFC frames received: wrong destination, length, FCS or packing, or rx_tuser (saturating)",
            ),
            r(
                "flags",
                reg::FLAGS,
                3,
                Access::Rw1c,
                0,
                "sticky: bit 0 a bad PFC frame, bit 1 a counter saturated, bit 2 an rx_pfc event replaced before it was sent",
            ),
            r("paused", reg::PAUSED, 8, Access::Ro, 0, "classes the link partner pauses now"),
        ],
    )
}

/// Edges from a descriptor to the first beat of its frame, when no frame is in flight: the
/// beat shows right after the edge that sampled the descriptor.
pub const TX_LATENCY: u32 = 0;
/// Edges from the edge sampling a frame's last beat to its effect on `paused` and `bad_frame`.
pub const VERDICT_LATENCY: u32 = 1;
/// ... and to its first event on `rx_pfc_*` (raised, queued, sent).
pub const EVENT_LATENCY: u32 = 3;

pub fn port_schema(cfg: &PfcMacConfig) -> PortSchema {
    let (w, l) = (cfg.data_bits, cfg.lanes() as u32);
    PortSchema::new(
        "pfcmac",
        vec![
            Port::input(
                "frame_valid",
                1,
                "a PFC frame descriptor (from PFC or CaPFC)",
            ),
            Port::input("frame_class_enable", 8, "the classes it states"),
            Port::input(
                "frame_pause",
                8,
                "of those, the classes to pause (others resume)",
            ),
            Port::input("frame_quanta", 16, "the pause time of the paused classes"),
            Port::input("tx_tready", 1, "the MAC takes the TX beat"),
            Port::input("rx_tvalid", 1, "a received beat"),
            Port::input("rx_tdata", w, "its bytes, byte 0 in bits 7:0"),
            Port::input("rx_tkeep", l, "its valid byte lanes"),
            Port::input("rx_tlast", 1, "the last beat of a frame"),
            Port::input("rx_tuser", 1, "the MAC marks the frame bad"),
            Port::input("csr_we", 1, "CSR write strobe"),
            Port::input("csr_addr", CSR_ADDR_BITS, "CSR word index"),
            Port::input("csr_wdata", CSR_DATA_BITS, "CSR write data"),
            Port::output("tx_tvalid", 1, "a beat of a PFC frame to send"),
            Port::output("tx_tdata", w, "its bytes, byte 0 in bits 7:0"),
            Port::output("tx_tkeep", l, "its valid byte lanes"),
            Port::output("tx_tlast", 1, "the last beat of the frame"),
            Port::output("paused", 8, "classes the link partner pauses"),
            Port::output(
                "rx_pfc_valid",
                1,
                "a class was received in a good PFC frame, or expired",
            ),
            Port::output("rx_pfc_prio", 3, "the class"),
            Port::output(
                "rx_pfc_quanta",
                16,
                "its pause time: > 0 PAUSE, 0 RESUME or expiry",
            ),
            Port::output("bad_frame", 1, "a bad PFC frame was received"),
            Port::output("csr_rdata", CSR_DATA_BITS, "CSR read data"),
        ],
    )
    .with_latencies(&[
        ("tx", TX_LATENCY),
        ("paused", VERDICT_LATENCY),
        ("rx", EVENT_LATENCY),
        ("bad", VERDICT_LATENCY),
        ("csr", 0),
    ])
}

port_bundle!(
    /// Inputs of one edge.
    PfcMacIn {
        frame_valid, frame_class_enable, frame_pause, frame_quanta,
        tx_tready,
        rx_tvalid, rx_tdata, rx_tkeep, rx_tlast, rx_tuser,
        csr_we, csr_addr, csr_wdata,
    }
);

port_bundle!(
    /// Registered outputs after one edge.
    PfcMacOut {
        tx_tvalid, tx_tdata, tx_tkeep, tx_tlast,
        paused,
        rx_pfc_valid, rx_pfc_prio, rx_pfc_quanta,
        bad_frame,
        csr_rdata,
    }
);

/// The frame in flight on TX.
#[derive(Clone, Copy, Debug, Default)]
struct TxFrame {
    src_mac: u64,
    enable: u8,
    times: [u16; CLASSES],
    /// The beat shown now.
    beat: usize,
    /// The CRC register over the bytes of the beats already sent.
    crc: u32,
}

/// The frame being received, as far as its beats have come.
#[derive(Clone, Copy, Debug)]
struct RxFrame {
    /// Bytes by position (lane order, kept or not): the first `len` of them, up to 72. An array,
    /// not a Vec: the model allocates nothing per frame.
    bytes: [u8; 72],
    len: usize,
    beats: usize,
    packed: bool,
    tuser: bool,
}

impl Default for RxFrame {
    fn default() -> Self {
        RxFrame {
            bytes: [0; 72],
            len: 0,
            beats: 0,
            packed: false,
            tuser: false,
        }
    }
}

/// A frame's verdict, applied one edge after its last beat.
#[derive(Clone, Copy, Debug, Default)]
struct Verdict {
    good: bool,
    bad: bool,
    enable: u8,
    times: [u16; CLASSES],
}

pub struct PfcMac {
    cfg: PfcMacConfig,
    schema: PortSchema,
    csr: CsrFile,
    /// TX: classes waiting for a frame, with their times.
    pending: u8,
    pending_time: [u16; CLASSES],
    tx: Option<TxFrame>,
    tx_frames: u64,
    rx: RxFrame,
    verdict: Verdict,
    rx_frames: u64,
    rx_bad: u64,
    /// Pause state per class, its timer, and the step accumulator's fraction.
    paused: u8,
    timer: [u16; CLASSES],
    fraction: u64,
    /// `QUANTA_STEP` before the previous edge's write.
    step_prev: u64,
    /// Events raised on the last edge (loads and expiries), with their quanta.
    raised: u8,
    raised_quanta: [u16; CLASSES],
    /// Events queued for `rx_pfc_*`: classes, with their quanta.
    queued: u8,
    queued_quanta: [u16; CLASSES],
}

impl PfcMac {
    pub fn new(cfg: &PfcMacConfig) -> PfcMac {
        cfg.validate().expect("validated config");
        let mut m = PfcMac {
            cfg: cfg.clone(),
            schema: port_schema(cfg),
            csr: CsrFile::new(&regmap(cfg)),
            pending: 0,
            pending_time: [0; CLASSES],
            tx: None,
            tx_frames: 0,
            rx: RxFrame::default(),
            verdict: Verdict::default(),
            rx_frames: 0,
            rx_bad: 0,
            paused: 0,
            timer: [0; CLASSES],
            fraction: 0,
            step_prev: 0,
            raised: 0,
            raised_quanta: [0; CLASSES],
            queued: 0,
            queued_quanta: [0; CLASSES],
        };
        m.reset();
        m
    }

    /// The beat `f` shows: (tdata, tkeep, tlast), and the CRC register after its data bytes.
    fn tx_beat(&self, f: &TxFrame) -> (u64, u64, bool, u32) {
        let lanes = self.cfg.lanes();
        let (mut data, mut keep, mut crc) = (0u64, 0u64, f.crc);
        for lane in 0..lanes {
            let k = f.beat * lanes + lane;
            if k >= self.cfg.frame_bytes() {
                break;
            }
            let byte = if k < FRAME_BYTES {
                let b = frame_byte(k, f.src_mac, f.enable, &f.times);
                crc = crc_byte(crc, b);
                b
            } else {
                // The FCS, least significant byte first.
                (!crc >> (8 * (k - FRAME_BYTES))) as u8
            };
            data |= u64::from(byte) << (8 * lane);
            keep |= 1 << lane;
        }
        (data, keep, f.beat + 1 == self.cfg.beats(), crc)
    }

    fn src_mac(&self) -> u64 {
        self.csr.get(reg::SRC_MAC_HI) << 32 | self.csr.get(reg::SRC_MAC_LO)
    }

    /// The verdict on a frame whose last beat has come, `length` bytes long if packed.
    fn judge(&self, f: &RxFrame, length: usize) -> Verdict {
        let b = &f.bytes[..f.len];
        let n = self.cfg.frame_bytes();
        let is_pfc = b.len() >= 16 && b[12..16] == TYPE_AND_OPCODE;
        // A packed frame of the right length: its first n bytes are exactly the frame's.
        let good = is_pfc
            && f.packed
            && length == n
            && b[..6] == DESTINATION
            && (!self.cfg.fcs || crc_bytes(CRC_INIT, &b[..n]) == CRC_RESIDUE)
            && !f.tuser;
        let mut times = [0u16; CLASSES];
        if b.len() >= 34 {
            for (c, t) in times.iter_mut().enumerate() {
                *t = u16::from_be_bytes([b[18 + 2 * c], b[19 + 2 * c]]);
            }
        }
        Verdict {
            good,
            bad: is_pfc && !good,
            enable: b.get(17).copied().unwrap_or(0),
            times,
        }
    }

    /// One received beat; returns the frame's verdict if it was the last.
    fn rx_beat(&mut self, data: u64, keep: u64, last: bool, user: bool) -> Option<Verdict> {
        let lanes = self.cfg.lanes();
        let f = &mut self.rx;
        if f.beats == 0 {
            f.packed = true;
        }
        // Packed: full beats, then a last beat of a nonzero run of low lanes.
        let low_run = keep != 0 && keep & (keep + 1) == 0;
        if (!last && keep != mask(lanes as u32)) || (last && !low_run) {
            f.packed = false;
        }
        f.tuser |= user;
        for lane in 0..lanes {
            if f.len < f.bytes.len() {
                f.bytes[f.len] = (data >> (8 * lane)) as u8;
                f.len += 1;
            }
        }
        f.beats = (f.beats + 1).min(255);
        if !last {
            return None;
        }
        let length = (f.beats - 1) * lanes + keep.count_ones() as usize;
        let v = self.judge(&self.rx, length);
        self.rx = RxFrame::default();
        Some(v)
    }
}

fn saturating_count(counter: &mut u64, flags: &mut u64) {
    if *counter == mask(32) {
        *flags |= FLAG_SATURATED;
    } else {
        *counter += 1;
    }
}

impl CycleModel for PfcMac {
    type In = PfcMacIn;
    type Out = PfcMacOut;

    fn ports(&self) -> &PortSchema {
        &self.schema
    }

    fn reset(&mut self) {
        self.csr.reset();
        self.pending = 0;
        self.pending_time = [0; CLASSES];
        self.tx = None;
        self.tx_frames = 0;
        self.rx = RxFrame::default();
        self.verdict = Verdict::default();
        self.rx_frames = 0;
        self.rx_bad = 0;
        self.paused = 0;
        self.timer = [0; CLASSES];
        self.fraction = 0;
        self.step_prev = self.cfg.quanta_step;
        self.raised = 0;
        self.raised_quanta = [0; CLASSES];
        self.queued = 0;
        self.queued_quanta = [0; CLASSES];
    }

    fn step(&mut self, i: &PfcMacIn) -> PfcMacOut {
        let mut out = PfcMacOut::default();
        let mut flags = 0u64;
        // CSR values before this edge's write.
        let src_mac = self.src_mac();
        let step = self.csr.get(reg::QUANTA_STEP);

        // ---- TX: the beat sent on this edge, the descriptor, the next frame.
        if let Some(f) = self.tx {
            if i.tx_tready == 1 {
                let (_, _, last, crc) = self.tx_beat(&f);
                self.tx = if last {
                    saturating_count(&mut self.tx_frames, &mut flags);
                    None
                } else {
                    Some(TxFrame {
                        beat: f.beat + 1,
                        crc,
                        ..f
                    })
                };
            }
        }
        if i.frame_valid == 1 {
            for c in 0..CLASSES {
                if i.frame_class_enable >> c & 1 == 1 {
                    self.pending |= 1 << c;
                    self.pending_time[c] = if i.frame_pause >> c & 1 == 1 {
                        i.frame_quanta as u16
                    } else {
                        0
                    };
                }
            }
        }
        if self.tx.is_none() && self.pending != 0 {
            self.tx = Some(TxFrame {
                src_mac,
                enable: self.pending,
                times: self.pending_time,
                beat: 0,
                crc: CRC_INIT,
            });
            self.pending = 0;
        }

        // ---- RX: the event sent on this edge, the last frame's verdict and the timers, then
        // this edge's beat.
        if self.queued != 0 {
            let c = self.queued.trailing_zeros() as usize;
            self.queued &= !(1 << c);
            out.rx_pfc_valid = 1;
            out.rx_pfc_prio = c as u64;
            out.rx_pfc_quanta = self.queued_quanta[c].into();
        }
        // The step as QUANTA_STEP held it one edge before (a write reaches the timers one
        // edge after its own).
        let sum = self.fraction + self.step_prev;
        self.step_prev = step;
        let tick = (sum >> 16) as u16;
        self.fraction = sum & mask(16);
        // The events raised on the last edge join the queue.
        for c in 0..CLASSES {
            let bit = 1u8 << c;
            if self.raised & bit != 0 {
                if self.queued & bit != 0 {
                    flags |= FLAG_COALESCED;
                }
                self.queued |= bit;
                self.queued_quanta[c] = self.raised_quanta[c];
            }
        }
        let v = self.verdict;
        self.raised = 0;
        self.raised_quanta = [0; CLASSES];
        for c in 0..CLASSES {
            let bit = 1u8 << c;
            let event = if v.good && v.enable & bit != 0 {
                self.timer[c] = v.times[c];
                if v.times[c] > 0 {
                    self.paused |= bit;
                } else {
                    self.paused &= !bit;
                }
                Some(v.times[c])
            } else if self.paused & bit != 0 {
                self.timer[c] = self.timer[c].saturating_sub(tick);
                (self.timer[c] == 0).then(|| {
                    self.paused &= !bit;
                    0
                })
            } else {
                None
            };
            if let Some(q) = event {
                self.raised |= bit;
                self.raised_quanta[c] = q;
            }
        }
        if v.good {
            saturating_count(&mut self.rx_frames, &mut flags);
        }
        if v.bad {
            saturating_count(&mut self.rx_bad, &mut flags);
            flags |= FLAG_BAD_FRAME;
            out.bad_frame = 1;
        }
        self.verdict = Verdict::default();
        if i.rx_tvalid == 1 {
            if let Some(v) = self.rx_beat(i.rx_tdata, i.rx_tkeep, i.rx_tlast == 1, i.rx_tuser == 1)
            {
                self.verdict = v;
            }
        }

        // ---- CSR: status words as they were before this edge, the bus, then the flags raised
        // on this edge (a flag raised on the edge of its clearing write stays set).
        let rdata = self.csr.access(i.csr_we == 1, i.csr_addr, i.csr_wdata);
        out.csr_rdata = rdata;
        let kept = self.csr.get(reg::FLAGS);
        self.csr.set(reg::FLAGS, kept | flags);
        self.csr.set(reg::TX_FRAMES, self.tx_frames);
        self.csr.set(reg::RX_FRAMES, self.rx_frames);
        self.csr.set(reg::RX_BAD, self.rx_bad);
        self.csr.set(reg::PAUSED, self.paused.into());

        if let Some(f) = self.tx {
            let (data, keep, last, _) = self.tx_beat(&f);
            out.tx_tvalid = 1;
            out.tx_tdata = data;
            out.tx_tkeep = keep;
            out.tx_tlast = u64::from(last);
        }
        out.paused = self.paused.into();
        out
    }
}

mod workload;
pub use workload::PfcMacWorkload;
