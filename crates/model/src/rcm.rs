//! RCM, regional congestion mitigation: per switch port the congestion region detection (CRD),
//! the harmful-flow recogniser (CFR), the window scheduler at the output (RCC) and the
//! switch-level adaptive routing (SAR).
//!
//! Spec: ../shared/spec/mechanisms.md §4, paper ../shared/papers/rcm-regional-mitigation.txt.
//! The contract, with its latencies and every [S] choice, is docs/blocks/rcm.md; this model is
//! its reference. [`calc`] holds the switch-side arithmetic as plain functions (Eq. 2, 4-6),
//! which the model, the CLI calculator and the §7.4 vectors share.
//!
//! Cycle semantics (one [`Rcm::step`] = one rising edge n):
//! * CSR writes sampled at edge n apply to the events sampled at edge n; `csr_rdata` after edge
//!   n is register `csr_addr` as it was before edge n (the port views show port `port_sel`);
//! * **samplers** (`iq`: a VOQ arrival, `oq`: an output-queue arrival) keep `q_old` and a byte
//!   counter per queue. An arrival of `len` bytes is a *sample* when the counter is <= len; the
//!   counter then reloads with `samp_interval[k]`, k the top 3 bits of the 6-bit quantised
//!   static feedback `q - Q_eq` (802.1Qau's interval table, indexed by the arrival's own depth
//!   so that no sample waits for an earlier one's result), else it counts down by len. A
//!   sample computes `Fb = (q - Q_eq) + w (q - q_old)` (Eq. 1) and sets `q_old = q`. For the
//!   first [`RcmConfig::init_cycles`] edges the queue tables are being cleared: arrivals are
//!   ignored and flagged `err.NOT_READY`;
//! * a sample's effect on its port (flags, CAM, CN, RCC trigger) applies [`SAMPLE_DELAY`] edges
//!   after its arrival, in the **port stage**. At edge n the port stage applies, in this order
//!   (spec §0.3 and §4.8): the received CN header (`cnr`) and harmful ID (`cni`) of edge n;
//!   the scheduler's offer (`sch`), the route query (`rt`) and the ID read (`idr`) of edge n;
//!   the VOQ sample, then the output-queue sample, of the arrivals of edge n - SAMPLE_DELAY;
//! * in parallel, the timers: the sweep visits port `n mod ports` (rcf ageing, the CN rate
//!   limit's expiry, the RCC's onset, measurement, reductions and exit) and severe CNs older
//!   than SAR's window expire. Both decide from the state edge n began with; where an event
//!   of edge n changes the same field, the event's change is kept (a CN received keeps rcf, a
//!   CN sent keeps its rate limit, the edge's triggers stay pending, an offer's bytes count in
//!   the window the visit starts, a sample's ID stays in the CAM the visit clears);
//! * the port stage's outputs (`dec`, `route`, `id`, `cn`) appear after edge n +
//!   [`PORT_LATENCY`]; so a CN appears [`CN_LATENCY`] edges after the VOQ arrival that caused
//!   it. The `err` flags of a bus appear with its outputs (samplers: [`ERR_LATENCY`]).

use crate::config::parse_toml;
use crate::feedback::{fb_max, FbScale, FB_QUANT_BITS};
use serde::{Deserialize, Serialize};
use switchcraft_core::csr::{Access, CsrFile, Reg, RegMap, CSR_ADDR_BITS, CSR_DATA_BITS};
use switchcraft_core::{index_bits, mask, ConfigError, CycleModel, DelayLine, InputError};
use switchcraft_core::{Port, PortSchema};

pub mod calc;
mod workload;
pub use workload::RcmWorkload;

/// Static parameters of an RCM instance. Everything software may tune at run time (Q_eq, w,
/// the sampling intervals, the timers, Gd, Wc_min, Eq. 2's weight, SAR's trigger) is the reset
/// value of a CSR.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RcmConfig {
    /// Ports of the switch (1..=16): each has VOQs (one per output port) at its input and one
    /// output queue.
    pub ports: u32,
    /// Width of the queue depths on `iq_qdepth`/`oq_qdepth`, in bytes (8..=24).
    pub depth_bits: u32,
    /// Width of the packet lengths (1..=16).
    pub len_bits: u32,
    /// Width of a flow ID (8..=64): the 5-tuple's hash (the paper stores the 104-bit 5-tuple;
    /// ports here are at most 64 bits, and a 64-bit hash of it collides once in 2^64 pairs).
    pub fid_bits: u32,
    /// D: entries of each output queue's CAM of sampled flow IDs, and of each port's list of
    /// harmful IDs received in CNs (2..=32, a power of two; spec default 16).
    pub cam_depth: u32,
    /// Equilibrium depth Q_eq in bytes (1..=2^depth_bits - 1).
    pub q_eq: u64,
    /// The weight w_q of the depth's change in Fb (0..=15).
    pub w: u32,
    /// Width of the per-queue sampling counters and intervals (8..=24).
    pub samp_bits: u32,
    /// The sampling interval in bytes when the depth is at or below Q_eq (802.1Qau: 150 KB);
    /// it shrinks to a tenth as the static feedback grows ([`RcmConfig::samp_intervals`]).
    pub samp_base: u64,
    /// lcf clears after this many consecutive samples with Fb <= 0 on the port's queues
    /// (1..=15; spec default 3).
    pub n_clear: u32,
    /// Timestamp width (8..=32) and unit (2^ts_shift cycles, 0..=20).
    pub ts_bits: u32,
    pub ts_shift: u32,
    /// At most one CN per port within T_cn timestamp units.
    pub t_cn: u64,
    /// rcf clears when no CN has arrived for T_rcf (spec default 10 T_cn).
    pub t_rcf: u64,
    /// The RCC's measurement window at onset (spec default 2 us, one hop RTT).
    pub t_meas: u64,
    /// Width of W, Wc and the bytes-sent counters (16..=32).
    pub window_bits: u32,
    /// Gd in Q0.16 (65 536 = 1): a reduction cuts by `min(Fb x Gd, 1)`. The exact rule
    /// `Gd = 1/(2 Fb_max)` = 1/126 is 520; 1/128 (a shift) is 512.
    pub gd: u64,
    /// Wc never goes below Wc_min bytes (spec: one MTU).
    pub wc_min: u64,
    /// Eq. 2's weight w = 2^-w_shift (0..=6; spec default 1/2).
    pub w_shift: u32,
    /// SAR: detour non-harmful packets when the switch is in a congestion region.
    pub sar_enable: bool,
    /// SAR detours only packets the router marks as starting a new flow or flowlet (`rt_new`).
    pub sar_new_only: bool,
    /// SAR's trigger without local congestion: this many severe CNs (1..=4; spec default 2)
    pub sar_cns: u32,
    /// within `sar_window` timestamp units (spec default 4 T_cn),
    pub sar_window: u64,
    /// a CN being severe when its Fb' is at least this (0..=63).
    pub sar_severe: u64,
    /// Clear an output queue's CAM when its RCC exits (spec §4.4's option); off, stale IDs age
    /// out by the cyclic overwrite.
    pub cfr_clear_on_exit: bool,
}

pub const PRESETS: &[&str] = &["tiny", "fpga", "paper"];

impl RcmConfig {
    pub fn preset(name: &str) -> Option<RcmConfig> {
        Some(match name {
            // Small and fast: short timers and intervals, so random tests reach every phase.
            "tiny" => RcmConfig {
                ports: 4,
                depth_bits: 12,
                len_bits: 8,
                fid_bits: 12,
                cam_depth: 4,
                q_eq: 400,
                w: 2,
                samp_bits: 12,
                samp_base: 600,
                n_clear: 3,
                ts_bits: 12,
                ts_shift: 0,
                t_cn: 24,
                t_rcf: 240,
                t_meas: 48,
                window_bits: 16,
                gd: 520,
                wc_min: 255,
                w_shift: 1,
                sar_enable: true,
                sar_new_only: false,
                sar_cns: 2,
                sar_window: 96,
                sar_severe: 16,
                cfr_clear_on_exit: false,
            },
            // An 8-port switch of 25G links on a 100 MHz clock, 32 KB per queue, 16-bit flow
            // hashes; timestamps of 16 cycles (160 ns).
            "fpga" => RcmConfig {
                ports: 8,
                depth_bits: 16,
                len_bits: 11,
                fid_bits: 16,
                cam_depth: 4,
                q_eq: 8192,
                w: 2,
                samp_bits: 18,
                samp_base: 150_000,
                n_clear: 3,
                ts_bits: 16,
                ts_shift: 4,
                t_cn: 32,
                t_rcf: 313,
                t_meas: 13,
                window_bits: 24,
                gd: 520,
                wc_min: 1500,
                w_shift: 1,
                sar_enable: true,
                sar_new_only: false,
                sar_cns: 2,
                sar_window: 125,
                sar_severe: 32,
                cfr_clear_on_exit: false,
            },
            // The paper's switch (§4.7): 12 ports, 100G links, VOQs plus one output queue,
            // 100 KB per queue, D = 16; on a 1 GHz clock with 16 ns timestamps. T_meas 2 us,
            // T_cn 5 us [S], T_rcf 10 T_cn, SAR's window 4 T_cn.
            "paper" => RcmConfig {
                ports: 12,
                depth_bits: 17,
                len_bits: 14,
                fid_bits: 64,
                cam_depth: 16,
                q_eq: 25_000,
                w: 2,
                samp_bits: 18,
                samp_base: 150_000,
                n_clear: 3,
                ts_bits: 20,
                ts_shift: 4,
                t_cn: 313,
                t_rcf: 3125,
                t_meas: 125,
                window_bits: 24,
                gd: 520,
                wc_min: 1500,
                w_shift: 1,
                sar_enable: true,
                sar_new_only: false,
                sar_cns: 2,
                sar_window: 1250,
                sar_severe: 32,
                cfr_clear_on_exit: false,
            },
            _ => return None,
        })
    }

    pub fn from_toml(text: &str, name: &str) -> Result<RcmConfig, InputError> {
        let cfg: RcmConfig = parse_toml(text, name)?;
        cfg.validate()
            .map_err(|e| InputError(format!("{name}: {e}")))?;
        Ok(cfg)
    }

    /// Checks every rule of the block; the error names the field, its value and the rule.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let range = crate::config::in_range;
        range("ports", self.ports.into(), 1, MAX_PORTS as u64)?;
        range("depth_bits", self.depth_bits.into(), 8, 24)?;
        range("len_bits", self.len_bits.into(), 1, 16)?;
        range("fid_bits", self.fid_bits.into(), 8, 64)?;
        range("cam_depth", self.cam_depth.into(), 2, 32)?;
        if !self.cam_depth.is_power_of_two() {
            return Err(ConfigError::new(
                "cam_depth",
                self.cam_depth,
                "must be a power of two (the write pointer wraps by its width)",
            ));
        }
        range("q_eq", self.q_eq, 1, mask(self.depth_bits))?;
        range("w", self.w.into(), 0, 15)?;
        range("samp_bits", self.samp_bits.into(), 8, 24)?;
        range("samp_base", self.samp_base, 10, mask(self.samp_bits))?;
        range("n_clear", self.n_clear.into(), 1, 15)?;
        range("ts_bits", self.ts_bits.into(), 8, 32)?;
        range("ts_shift", self.ts_shift.into(), 0, 20)?;
        // Timers stay below half the timestamp's wrap, so the sweep (which visits each port
        // every `ports` edges) always sees an elapsed time before it wraps.
        let half = 1u64 << (self.ts_bits - 1);
        range("t_cn", self.t_cn, 0, half)?;
        range("t_rcf", self.t_rcf, 1, half)?;
        range("t_meas", self.t_meas, 1, half)?;
        range("sar_window", self.sar_window, 1, half)?;
        range("window_bits", self.window_bits.into(), 16, 32)?;
        range("gd", self.gd, 0, GD_ONE)?;
        range("wc_min", self.wc_min, 1, mask(self.window_bits))?;
        range("w_shift", self.w_shift.into(), 0, 6)?;
        range("sar_cns", self.sar_cns.into(), 1, SEVERE_SLOTS as u64)?;
        range("sar_severe", self.sar_severe, 0, 63)?;
        Ok(())
    }

    pub fn port_bits(&self) -> u32 {
        index_bits(self.ports.into())
    }

    pub fn cam_bits(&self) -> u32 {
        index_bits(self.cam_depth.into())
    }

    /// VOQ slots of the sampler's queue table: every (input, output) pair the buses can name.
    pub fn voq_slots(&self) -> u32 {
        1 << (2 * self.port_bits())
    }

    /// Edges after reset while the samplers clear their queue tables, one word per edge.
    pub fn init_cycles(&self) -> u64 {
        self.voq_slots().into()
    }

    /// The reset value of `fb_scale` ([`FbScale::for_fb_max`] of `Q_eq (1 + 2 w)`).
    pub fn fb_scale(&self) -> FbScale {
        FbScale::for_fb_max(fb_max(self.q_eq, self.w))
    }

    /// The sampling intervals at reset, indexed by the top 3 bits of the static feedback
    /// `Fb6(q - Q_eq)`: `samp_base x 7 / (7 + 9k)`, from the base at k = 0 to a tenth of it at
    /// k = 7 (802.1Qau's 1 %..10 % sampling of 1 500-byte frames at 150 KB [S]).
    pub fn samp_intervals(&self) -> [u64; SAMP_LEVELS] {
        std::array::from_fn(|k| (self.samp_base * 7 / (7 + 9 * k as u64)).max(1))
    }
}

/// Levels of the sampling-interval table.
pub const SAMP_LEVELS: usize = 8;
/// Gd = 1 in Q0.16.
pub const GD_ONE: u64 = 1 << 16;
/// R = the line rate, in Q0.16.
pub const RATE_ONE: u64 = 1 << 16;
/// Severe CNs SAR remembers.
pub const SEVERE_SLOTS: usize = 4;

/// Edges from an `iq`/`oq` arrival to its sample's effect in the port stage: the samplers'
/// stages (crates/rtl/src/rcm.rs).
pub const SAMPLE_DELAY: u32 = 6;
/// Edges from the port stage's events (edge n) to their outputs.
pub const PORT_LATENCY: u32 = 1;
/// Edges from a VOQ arrival to the CN it causes.
pub const CN_LATENCY: u32 = SAMPLE_DELAY + PORT_LATENCY;
/// Edges from a sampler arrival to its `err` flags.
pub const ERR_LATENCY: u32 = 1;
const _: () = assert!(CN_LATENCY <= DelayLine::<PortEdge>::MAX_LATENCY);

/// Word indices of the RCM registers (see [`regmap`]).
pub mod reg {
    pub const ID: u32 = 0;
    pub const PARAMS: u32 = 1;
    pub const WIDTHS: u32 = 2;
    pub const STATUS: u32 = 3;
    pub const ERR: u32 = 4;
    pub const Q_EQ: u32 = 5;
    pub const W: u32 = 6;
    pub const FB_SCALE: u32 = 7;
    pub const N_CLEAR: u32 = 8;
    pub const T_CN: u32 = 9;
    pub const T_RCF: u32 = 10;
    pub const T_MEAS: u32 = 11;
    pub const GD: u32 = 12;
    pub const WC_MIN: u32 = 13;
    pub const W_SHIFT: u32 = 14;
    pub const SAR_ENABLE: u32 = 15;
    pub const SAR_NEW_ONLY: u32 = 16;
    pub const SAR_CNS: u32 = 17;
    pub const SAR_WINDOW: u32 = 18;
    pub const SAR_SEVERE: u32 = 19;
    pub const CFR_CLEAR_ON_EXIT: u32 = 20;
    /// Eight words: the sampling interval of level k at SAMP_INTERVAL + k.
    pub const SAMP_INTERVAL: u32 = 21;
    pub const PORT_SEL: u32 = 29;
    pub const PORT_FLAGS: u32 = 30;
    pub const PORT_FB: u32 = 31;
    pub const PORT_W: u32 = 32;
    pub const PORT_WC: u32 = 33;
    pub const PORT_SENT: u32 = 34;
    pub const PORT_RATE: u32 = 35;
}

/// `status` bit: the queue tables are cleared; sampler arrivals count.
pub const STATUS_READY: u64 = 1;

/// `err` bits (sticky, write 1 to clear).
pub mod err {
    /// An event named a port >= ports (ignored; a route query's candidates beyond the ports
    /// are dropped from it).
    pub const INDEX: u64 = 1;
    /// A sampler arrival came while the queue tables were being cleared (ignored).
    pub const NOT_READY: u64 = 1 << 1;
    /// A bytes counter of the RCC (sent, measured, W) saturated.
    pub const SAT: u64 = 1 << 2;
}

/// ID word: ASCII "RCM" and version 1.
pub const ID_WORD: u64 = 0x5243_4D01;

/// Role of a port (spec §4.3): from its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    None = 0,
    /// lcf only: the root congestion point (RCP); RCC uses the port's CAM.
    Root = 1,
    /// rcf only: the edge of a congestion region; RCC uses the root's IDs.
    Edge = 2,
    /// Both flags.
    Inner = 3,
}

/// The RCC's state at one output port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rcc {
    Off = 0,
    /// Measuring Wc0 and Wnc0 since the timestamp (the window's initialisation, spec §4.5 [S]).
    Measure = 1,
    /// Pacing the harmful flows with the window W, Wc.
    On = 2,
}

/// Everything RCM keeps for one port.
#[derive(Clone, Debug)]
pub struct PortState {
    pub lcf: bool,
    /// Consecutive samples with Fb <= 0 since lcf was last set.
    pub clear_run: u32,
    pub rcf: bool,
    /// Timestamp of the last CN received.
    pub rcf_t: u64,
    /// Quantised Fb of the output queue's last sample.
    pub fb: u64,
    /// Fb' of the last CN received (Fbr).
    pub fbr: u64,
    /// The largest Fb of the reduction triggers since the sweep last applied one.
    pub pend: Option<u64>,
    /// Timestamp of the last CN sent through this port, while within T_cn.
    pub cn_t: Option<u64>,
    pub rcc: Rcc,
    /// RCC window (bytes): W, Wc; Wnc = W - Wc.
    pub w: u64,
    pub wc: u64,
    /// Bytes sent in the current window, or measured since the onset: all, and of harmful
    /// flows.
    pub sent_all: u64,
    pub sent_c: u64,
    /// The measurement's start.
    pub meas_t: u64,
    /// Logical rate R, Q0.16 of the line rate (for reporting; Eq. 4).
    pub rate: u64,
    /// The output queue's CAM of sampled flow IDs, written cyclically at `cam_wp`.
    pub cam: Vec<Option<u64>>,
    pub cam_wp: usize,
    /// The harmful IDs of the last CN received, written in order at `ext_wp`.
    pub ext: Vec<Option<u64>>,
    pub ext_wp: usize,
}

impl PortState {
    fn new(d: usize) -> PortState {
        PortState {
            lcf: false,
            clear_run: 0,
            rcf: false,
            rcf_t: 0,
            fb: 0,
            fbr: 0,
            pend: None,
            cn_t: None,
            rcc: Rcc::Off,
            w: 0,
            wc: 0,
            sent_all: 0,
            sent_c: 0,
            meas_t: 0,
            rate: RATE_ONE,
            cam: vec![None; d],
            cam_wp: 0,
            ext: vec![None; d],
            ext_wp: 0,
        }
    }

    pub fn role(&self) -> Role {
        PortState::role_of(self.lcf, self.rcf)
    }

    fn role_of(lcf: bool, rcf: bool) -> Role {
        match (lcf, rcf) {
            (false, false) => Role::None,
            (true, false) => Role::Root,
            (false, true) => Role::Edge,
            (true, true) => Role::Inner,
        }
    }

    /// The list that decides which flows are harmful here: the root's IDs on an edge or inner
    /// port, the port's own CAM otherwise (spec §4.3).
    pub fn harmful_list(&self) -> &[Option<u64>] {
        if self.rcf {
            &self.ext
        } else {
            &self.cam
        }
    }

    pub fn is_harmful(&self, fid: u64) -> bool {
        self.harmful_list().contains(&Some(fid))
    }

    /// Fb', Eq. 2: the local Fb with the remote one while rcf holds.
    pub fn fbp(&self, w_shift: u32) -> u64 {
        PortState::fbp_of(self.fb, self.fbr, self.rcf, w_shift)
    }

    fn fbp_of(fb: u64, fbr: u64, rcf: bool, w_shift: u32) -> u64 {
        if rcf {
            calc::regional_degree(fb, fbr, w_shift)
        } else {
            fb
        }
    }
}

/// The fields of a port the CSR views show.
#[derive(Clone, Copy, Debug)]
struct PortView {
    lcf: bool,
    rcf: bool,
    rcc: Rcc,
    pend: Option<u64>,
    fb: u64,
    fbr: u64,
    w: u64,
    wc: u64,
    sent_c: u64,
    rate: u64,
}

impl PortView {
    fn of(s: &PortState) -> PortView {
        PortView {
            lcf: s.lcf,
            rcf: s.rcf,
            rcc: s.rcc,
            pend: s.pend,
            fb: s.fb,
            fbr: s.fbr,
            w: s.w,
            wc: s.wc,
            sent_c: s.sent_c,
            rate: s.rate,
        }
    }

    fn role(&self) -> Role {
        PortState::role_of(self.lcf, self.rcf)
    }

    fn fbp(&self, w_shift: u32) -> u64 {
        PortState::fbp_of(self.fb, self.fbr, self.rcf, w_shift)
    }
}

/// The register map, declared once: RTL decode, model, docs table and C header use it.
pub fn regmap(cfg: &RcmConfig) -> RegMap {
    let params = u64::from(cfg.ports)
        | u64::from(cfg.cam_depth) << 8
        | u64::from(cfg.fid_bits) << 16
        | u64::from(cfg.depth_bits) << 24;
    let widths = u64::from(cfg.window_bits)
        | u64::from(cfg.samp_bits) << 8
        | u64::from(cfg.ts_bits) << 16
        | u64::from(cfg.ts_shift) << 24;
    let r = |name, index, width, access, reset, doc| Reg {
        name,
        index,
        width,
        access,
        reset,
        doc,
    };
    let (rw, ro) = (Access::Rw, Access::Ro);
    let wb = cfg.window_bits;
    let mut regs = vec![
        r("id", reg::ID, 32, Access::Const, ID_WORD, "block ID \"RCM\" and version 1"),
        r(
            "params",
            reg::PARAMS,
            32,
            Access::Const,
            params,
            "ports [7:0], cam_depth [15:8], fid_bits [23:16], depth_bits [31:24]",
        ),
        r(
            "widths",
            reg::WIDTHS,
            32,
            Access::Const,
            widths,
            "window_bits [7:0], samp_bits [15:8], ts_bits [23:16], ts_shift [31:24]",
        ),
        r(
            "status",
            reg::STATUS,
            1,
            ro,
            0,
            "bit 0 ready: the queue tables are cleared after reset; sampler arrivals count",
        ),
        r(
            "err",
            reg::ERR,
            3,
            Access::Rw1c,
            0,
            "sticky: bit 0 port index out of range, bit 1 arrival before ready, bit 2 bytes counter saturated",
        ),
        r("q_eq", reg::Q_EQ, cfg.depth_bits, rw, cfg.q_eq, "Q_eq: Fb = (q - Q_eq) + w (q - q_old)"),
        r("w", reg::W, 4, rw, cfg.w.into(), "w_q: the weight of the depth's change in Fb"),
        r(
            "fb_scale",
            reg::FB_SCALE,
            13,
            rw,
            cfg.fb_scale().word(),
            "Fb6 = min(63, (Fb x mantissa [7:0]) >> shift [12:8]); rewrite with Q_eq or w",
        ),
        r(
            "n_clear",
            reg::N_CLEAR,
            4,
            rw,
            cfg.n_clear.into(),
            "lcf clears after this many consecutive samples with Fb <= 0",
        ),
        r("t_cn", reg::T_CN, cfg.ts_bits, rw, cfg.t_cn, "at most one CN per port within T_cn timestamp units"),
        r("t_rcf", reg::T_RCF, cfg.ts_bits, rw, cfg.t_rcf, "rcf clears T_rcf after the last CN received"),
        r("t_meas", reg::T_MEAS, cfg.ts_bits, rw, cfg.t_meas, "the RCC's measurement window at onset"),
        r("gd", reg::GD, 17, rw, cfg.gd, "Gd, Q0.16: a reduction cuts by min(Fb x Gd, 1)"),
        r("wc_min", reg::WC_MIN, wb, rw, cfg.wc_min, "Wc never goes below Wc_min bytes"),
        r("w_shift", reg::W_SHIFT, 3, rw, cfg.w_shift.into(), "Eq. 2: Fb' = Fb + (Fbr - Fb) x 2^-w_shift"),
        r("sar_enable", reg::SAR_ENABLE, 1, rw, cfg.sar_enable.into(), "1: SAR detours non-harmful packets"),
        r(
            "sar_new_only",
            reg::SAR_NEW_ONLY,
            1,
            rw,
            cfg.sar_new_only.into(),
            "1: SAR detours only packets marked rt_new",
        ),
        r("sar_cns", reg::SAR_CNS, 3, rw, cfg.sar_cns.into(), "SAR's trigger: this many severe CNs (1..4)"),
        r("sar_window", reg::SAR_WINDOW, cfg.ts_bits, rw, cfg.sar_window, "within this many timestamp units"),
        r("sar_severe", reg::SAR_SEVERE, 6, rw, cfg.sar_severe, "a CN is severe when its Fb' is at least this"),
        r(
            "cfr_clear_on_exit",
            reg::CFR_CLEAR_ON_EXIT,
            1,
            rw,
            cfg.cfr_clear_on_exit.into(),
            "1: an output queue's CAM is cleared when its RCC exits",
        ),
    ];
    const INTERVAL_NAMES: [&str; SAMP_LEVELS] = [
        "samp_interval0",
        "samp_interval1",
        "samp_interval2",
        "samp_interval3",
        "samp_interval4",
        "samp_interval5",
        "samp_interval6",
        "samp_interval7",
    ];
    for (k, reset) in cfg.samp_intervals().into_iter().enumerate() {
        regs.push(r(
            INTERVAL_NAMES[k],
            reg::SAMP_INTERVAL + k as u32,
            cfg.samp_bits,
            rw,
            reset,
            "bytes between samples at level k = Fb6(q - Q_eq) >> 3",
        ));
    }
    regs.extend([
        r(
            "port_sel",
            reg::PORT_SEL,
            cfg.port_bits(),
            rw,
            0,
            "the port the port_* registers show",
        ),
        r(
            "port_flags",
            reg::PORT_FLAGS,
            7,
            ro,
            0,
            "lcf [0], rcf [1], role [3:2] (0 none, 1 root, 2 edge, 3 inner), rcc [5:4] (0 off, 1 measure, 2 on), reduction pending [6]",
        ),
        r(
            "port_fb",
            reg::PORT_FB,
            30,
            ro,
            0,
            "Fb [5:0] (output queue's last sample), Fbr [13:8], Fb' [21:16], pending Fb [29:24]",
        ),
        r("port_w", reg::PORT_W, wb, ro, 0, "the RCC window W in bytes"),
        r("port_wc", reg::PORT_WC, wb, ro, 0, "Wc in bytes (Wnc = W - Wc)"),
        r("port_sent", reg::PORT_SENT, wb, ro, 0, "bytes of harmful flows sent in the current window"),
        r("port_rate", reg::PORT_RATE, 17, ro, 0, "the logical rate R, Q0.16 of the line rate"),
    ]);
    RegMap::new("rcm", regs)
}

pub fn port_schema(cfg: &RcmConfig) -> PortSchema {
    let pb = cfg.port_bits();
    let (db, lb, fb) = (cfg.depth_bits, cfg.len_bits, cfg.fid_bits);
    PortSchema::new(
        "rcm",
        vec![
            Port::input("iq_valid", 1, "a packet arrives at a VOQ of an input port"),
            Port::input("iq_port", pb, "the input port"),
            Port::input("iq_voq", pb, "the VOQ: the packet's output port"),
            Port::input(
                "iq_qdepth",
                db,
                "the VOQ's depth in bytes as the packet arrives",
            ),
            Port::input("iq_len", lb, "the packet's length in bytes"),
            Port::input("oq_valid", 1, "a packet arrives at an output queue"),
            Port::input("oq_port", pb, "the output port"),
            Port::input(
                "oq_qdepth",
                db,
                "the queue's depth in bytes as the packet arrives",
            ),
            Port::input("oq_len", lb, "the packet's length in bytes"),
            Port::input("oq_fid", fb, "the packet's flow ID"),
            Port::input("sch_valid", 1, "the output scheduler offers a packet"),
            Port::input("sch_port", pb, "its output port"),
            Port::input("sch_fid", fb, "its flow ID"),
            Port::input("sch_len", lb, "its length in bytes"),
            Port::input(
                "sch_alone",
                1,
                "no other packet waits for this port (a held packet would leave the link idle)",
            ),
            Port::input("rt_valid", 1, "a routing query for a packet"),
            Port::input("rt_port", pb, "the output port its route chose"),
            Port::input(
                "rt_cands",
                cfg.ports,
                "the equal-cost output ports it may take instead (bit per port)",
            ),
            Port::input("rt_fid", fb, "its flow ID"),
            Port::input("rt_new", 1, "it starts a new flow or flowlet"),
            Port::input("cnr_valid", 1, "a CN arrives (its header)"),
            Port::input("cnr_port", pb, "the port it arrives on"),
            Port::input("cnr_fbp", FB_QUANT_BITS, "its regional degree Fb'"),
            Port::input("cni_valid", 1, "a harmful-flow ID of the CN last received"),
            Port::input("cni_port", pb, "the port the CN arrived on"),
            Port::input("cni_fid", fb, "the ID"),
            Port::input(
                "idr_valid",
                1,
                "read one entry of a port's ID list (to build a CN)",
            ),
            Port::input("idr_port", pb, "the port"),
            Port::input(
                "idr_ext",
                1,
                "0: the output queue's CAM, 1: the IDs received",
            ),
            Port::input("idr_index", cfg.cam_bits(), "the entry"),
            Port::input("csr_we", 1, "CSR write strobe"),
            Port::input("csr_addr", CSR_ADDR_BITS, "CSR word index"),
            Port::input("csr_wdata", CSR_DATA_BITS, "CSR write data"),
            Port::output("dec_valid", 1, "the decision on an offered packet"),
            Port::output("dec_grant", 1, "send it (0: hold it, its window is spent)"),
            Port::output("dec_harmful", 1, "it belongs to a harmful flow of its port"),
            Port::output("route_valid", 1, "the answer to a routing query"),
            Port::output("route_port", pb, "the output port to use"),
            Port::output(
                "route_detour",
                1,
                "SAR moved the packet off its route's port",
            ),
            Port::output("cn_valid", 1, "send a CN upstream"),
            Port::output("cn_port", pb, "through this (input) port"),
            Port::output("cn_fbp", FB_QUANT_BITS, "its regional degree Fb' (Eq. 2)"),
            Port::output(
                "cn_list",
                pb,
                "the output port whose harmful IDs it carries (read them on idr)",
            ),
            Port::output(
                "cn_relay",
                1,
                "0: the IDs are the port's CAM (root), 1: the IDs it received (relay)",
            ),
            Port::output("id_valid", 1, "the entry an idr read asked for"),
            Port::output("id_hit", 1, "the entry holds an ID"),
            Port::output("id_fid", fb, "the ID (0 when empty)"),
            Port::output("csr_rdata", CSR_DATA_BITS, "CSR read data"),
        ],
    )
    .with_latencies(&[
        ("dec", PORT_LATENCY),
        ("route", PORT_LATENCY),
        // A CN received changes the next CN's Fb' from the port stage of its own edge; a CN
        // comes CN_LATENCY edges after the VOQ arrival that caused it.
        ("cn", PORT_LATENCY),
        ("id", PORT_LATENCY),
        ("csr", 0),
    ])
}

port_bundle!(
    /// Inputs of one edge.
    RcmIn {
        iq_valid, iq_port, iq_voq, iq_qdepth, iq_len,
        oq_valid, oq_port, oq_qdepth, oq_len, oq_fid,
        sch_valid, sch_port, sch_fid, sch_len, sch_alone,
        rt_valid, rt_port, rt_cands, rt_fid, rt_new,
        cnr_valid, cnr_port, cnr_fbp,
        cni_valid, cni_port, cni_fid,
        idr_valid, idr_port, idr_ext, idr_index,
        csr_we, csr_addr, csr_wdata,
    }
);

port_bundle!(
    /// Registered outputs after one edge.
    RcmOut {
        dec_valid, dec_grant, dec_harmful,
        route_valid, route_port, route_detour,
        cn_valid, cn_port, cn_fbp, cn_list, cn_relay,
        id_valid, id_hit, id_fid,
        csr_rdata,
    }
);

/// A sampler's table: per queue (VOQ `input << port_bits | output`, or output port), q_old
/// and the bytes until the next sample.
struct QueueTable {
    q_old: Vec<u64>,
    ctr: Vec<u64>,
}

impl QueueTable {
    fn new(slots: usize) -> QueueTable {
        QueueTable {
            q_old: vec![0; slots],
            ctr: vec![0; slots],
        }
    }
}

/// One sample of a queue, on its way to the port stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    /// The raw feedback (positive: congested) and its 6-bit quantisation.
    pub fb: i64,
    pub fb6: u64,
    /// VOQ samples: the input port and the VOQ's output port; output queues: the port twice.
    pub port: u8,
    pub voq: u8,
    /// Output-queue samples: the flow ID, written into the CAM.
    pub fid: u64,
}

/// A CN descriptor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cn {
    pub port: u8,
    pub fbp: u64,
    pub list: u8,
    pub relay: bool,
}

/// What the samplers did with one edge's arrivals, until the port stage takes them.
#[derive(Clone, Copy, Debug, Default)]
struct SamplerEdge {
    voq: Option<Sample>,
    oq: Option<Sample>,
    err: u64,
}

/// What the port stage produced at one edge, until its outputs report it.
#[derive(Clone, Copy, Debug, Default)]
pub struct PortEdge {
    dec: Option<(bool, bool)>,
    route: Option<(u8, bool)>,
    cn: Option<Cn>,
    id: Option<Option<u64>>,
    err: u64,
}

/// The RCM golden model (see the module documentation for its cycle semantics).
pub struct Rcm {
    cfg: RcmConfig,
    schema: PortSchema,
    csr: CsrFile,
    voqs: QueueTable,
    oqs: QueueTable,
    ports: Vec<PortState>,
    /// The ports as the previous edge began (what the CSR views show).
    lagged: Vec<PortView>,
    /// Timestamps of the last severe CNs (a ring, oldest overwritten).
    severe: [Option<u64>; SEVERE_SLOTS],
    severe_wp: usize,
    marks: Marks,
    now: u64,
    samples: DelayLine<SamplerEdge>,
    results: DelayLine<PortEdge>,
}

impl Rcm {
    pub fn new(cfg: &RcmConfig) -> Result<Rcm, ConfigError> {
        cfg.validate()?;
        let d = cfg.cam_depth as usize;
        let mut m = Rcm {
            cfg: cfg.clone(),
            schema: port_schema(cfg),
            csr: CsrFile::new(&regmap(cfg)),
            voqs: QueueTable::new(cfg.voq_slots() as usize),
            oqs: QueueTable::new(1 << cfg.port_bits()),
            ports: (0..cfg.ports).map(|_| PortState::new(d)).collect(),
            lagged: Vec::new(),
            severe: [None; SEVERE_SLOTS],
            severe_wp: 0,
            marks: Marks::default(),
            now: 0,
            samples: DelayLine::new(),
            results: DelayLine::new(),
        };
        CycleModel::reset(&mut m);
        Ok(m)
    }

    pub fn config(&self) -> &RcmConfig {
        &self.cfg
    }

    /// Register `index` as software would read it now.
    pub fn csr(&self, index: u32) -> u64 {
        self.csr.get(index)
    }

    /// A port's state after the events the port stage has applied so far.
    pub fn port(&self, p: usize) -> &PortState {
        &self.ports[p]
    }

    /// q_old of a VOQ and of an output queue, after the arrivals sampled so far.
    pub fn voq_q_old(&self, input: usize, output: usize) -> u64 {
        self.voqs.q_old[input << self.cfg.port_bits() | output]
    }

    pub fn oq_q_old(&self, port: usize) -> u64 {
        self.oqs.q_old[port]
    }

    /// Timestamps of the severe CNs SAR counts, after the edges so far.
    pub fn severe_cns(&self) -> usize {
        self.severe.iter().flatten().count()
    }

    /// The timestamp of the edge about to be sampled.
    pub fn now_ts(&self) -> u64 {
        (self.now >> self.cfg.ts_shift) & mask(self.cfg.ts_bits)
    }

    fn elapsed(&self, t: u64) -> u64 {
        self.now_ts().wrapping_sub(t) & mask(self.cfg.ts_bits)
    }

    fn ready(&self) -> bool {
        self.now >= self.cfg.init_cycles()
    }

    fn reg(&self, index: u32) -> u64 {
        self.csr.get(index)
    }

    /// The port views, then one CSR bus cycle. The views show the port as it was one edge
    /// earlier (after the port stage of edge n - 2 for a read at edge n): the registered read
    /// of the RTL's port registers.
    fn csr_access(&mut self, i: &RcmIn) -> u64 {
        let sel = self.reg(reg::PORT_SEL) as usize;
        let w_shift = self.reg(reg::W_SHIFT) as u32;
        let views = self.lagged.get(sel).map(|p| {
            let flags = u64::from(p.lcf)
                | u64::from(p.rcf) << 1
                | (p.role() as u64) << 2
                | (p.rcc as u64) << 4
                | u64::from(p.pend.is_some()) << 6;
            let fb = p.fb | p.fbr << 8 | p.fbp(w_shift) << 16 | p.pend.unwrap_or(0) << 24;
            [flags, fb, p.w, p.wc, p.sent_c, p.rate]
        });
        let views = views.unwrap_or([0; 6]);
        self.lagged.clear();
        self.lagged.extend(self.ports.iter().map(PortView::of));
        for (k, v) in views.into_iter().enumerate() {
            self.csr.set(reg::PORT_FLAGS + k as u32, v);
        }
        self.csr
            .set(reg::STATUS, u64::from(self.ready()) * STATUS_READY);
        self.csr.access(i.csr_we == 1, i.csr_addr, i.csr_wdata)
    }

    /// One sampler arrival at queue `slot` of the VOQs' table (`voq`) or the output queues':
    /// its errors, then the byte counter, and on a sample Eq. 1's feedback and q_old.
    fn arrive(
        &mut self,
        voq: bool,
        in_range: bool,
        slot: usize,
        q: u64,
        len: u64,
        err: &mut u64,
    ) -> Option<(i64, u64)> {
        if !in_range {
            *err |= err::INDEX;
            return None;
        }
        if !self.ready() {
            *err |= err::NOT_READY;
            return None;
        }
        let (q, len) = (q & mask(self.cfg.depth_bits), len & mask(self.cfg.len_bits));
        let scale = FbScale::from_word(self.reg(reg::FB_SCALE));
        let (q_eq, w) = (self.reg(reg::Q_EQ) as i64, self.reg(reg::W) as i64);
        let level = scale.quantise(q as i64 - q_eq) >> 3;
        let reload = self.reg(reg::SAMP_INTERVAL + level as u32);
        let table = if voq { &mut self.voqs } else { &mut self.oqs };
        if table.ctr[slot] > len {
            table.ctr[slot] -= len;
            return None;
        }
        table.ctr[slot] = reload;
        let fb = (q as i64 - q_eq) + w * (q as i64 - table.q_old[slot] as i64);
        table.q_old[slot] = q;
        Some((fb, scale.quantise(fb)))
    }

    fn samplers(&mut self, i: &RcmIn) -> SamplerEdge {
        let ports = u64::from(self.cfg.ports);
        let mut edge = SamplerEdge::default();
        if i.iq_valid == 1 {
            let in_range = i.iq_port < ports && i.iq_voq < ports;
            let slot = (i.iq_port << self.cfg.port_bits() | i.iq_voq) as usize;
            let s = self.arrive(true, in_range, slot, i.iq_qdepth, i.iq_len, &mut edge.err);
            edge.voq = s.map(|(fb, fb6)| Sample {
                fb,
                fb6,
                port: i.iq_port as u8,
                voq: i.iq_voq as u8,
                fid: 0,
            });
        }
        if i.oq_valid == 1 {
            let in_range = i.oq_port < ports;
            let s = self.arrive(
                false,
                in_range,
                i.oq_port as usize,
                i.oq_qdepth,
                i.oq_len,
                &mut edge.err,
            );
            edge.oq = s.map(|(fb, fb6)| Sample {
                fb,
                fb6,
                port: i.oq_port as u8,
                voq: i.oq_port as u8,
                fid: i.oq_fid & mask(self.cfg.fid_bits),
            });
        }
        edge
    }

    /// A reduction trigger on port `p` (a local sample with Fb > 0, or a CN): the sweep applies
    /// the largest pending Fb at its next visit.
    fn trigger(&mut self, p: usize, fb6: u64) {
        let max = |pend: Option<u64>| Some(pend.map_or(fb6, |f| f.max(fb6)));
        self.ports[p].pend = max(self.ports[p].pend);
        self.marks.triggers[p] = max(self.marks.triggers[p]);
    }

    /// lcf after one sample of the port's queues (spec §4.3 [S] clearing rule).
    fn local_flag(&mut self, p: usize, congested: bool) {
        let n_clear = self.reg(reg::N_CLEAR) as u32;
        let s = &mut self.ports[p];
        if congested {
            s.lcf = true;
            s.clear_run = 0;
        } else if s.lcf {
            s.clear_run += 1;
            if s.clear_run >= n_clear {
                s.lcf = false;
                s.clear_run = 0;
            }
        }
    }

    fn receive_cn(&mut self, i: &RcmIn, out: &mut PortEdge) {
        let ports = u64::from(self.cfg.ports);
        let now = self.now_ts();
        if i.cnr_valid == 1 {
            if i.cnr_port >= ports {
                out.err |= err::INDEX;
            } else {
                let p = i.cnr_port as usize;
                let fbp = i.cnr_fbp & mask(FB_QUANT_BITS);
                let s = &mut self.ports[p];
                s.rcf = true;
                s.rcf_t = now;
                s.fbr = fbp;
                s.ext.fill(None);
                s.ext_wp = 0;
                self.trigger(p, fbp);
                self.marks.cn_received |= 1 << p;
                if fbp >= self.reg(reg::SAR_SEVERE) {
                    self.marks.severe_written = Some(self.severe_wp);
                    self.severe[self.severe_wp] = Some(now);
                    self.severe_wp = (self.severe_wp + 1) % SEVERE_SLOTS;
                }
            }
        }
        if i.cni_valid == 1 {
            if i.cni_port >= ports {
                out.err |= err::INDEX;
            } else {
                let d = self.cfg.cam_depth as usize;
                let s = &mut self.ports[i.cni_port as usize];
                s.ext[s.ext_wp] = Some(i.cni_fid & mask(self.cfg.fid_bits));
                s.ext_wp = (s.ext_wp + 1) % d;
            }
        }
    }

    /// The RCC's decision on an offered packet: (grant, harmful).
    fn offer(&mut self, i: &RcmIn, out: &mut PortEdge) {
        if i.sch_valid != 1 {
            return;
        }
        if i.sch_port >= u64::from(self.cfg.ports) {
            out.err |= err::INDEX;
            out.dec = Some((true, false));
            return;
        }
        let top = mask(self.cfg.window_bits);
        let len = i.sch_len & mask(self.cfg.len_bits);
        let s = &mut self.ports[i.sch_port as usize];
        let harmful = s.is_harmful(i.sch_fid & mask(self.cfg.fid_bits));
        let mut sat = false;
        let mut add = |x: &mut u64| {
            sat |= *x + len > top;
            *x = (*x + len).min(top);
        };
        let grant = match s.rcc {
            Rcc::Off => true,
            Rcc::Measure => {
                add(&mut s.sent_all);
                if harmful {
                    add(&mut s.sent_c);
                }
                self.marks.added = Some((i.sch_port as usize, len, if harmful { len } else { 0 }));
                true
            }
            Rcc::On => {
                let spent = harmful && s.sent_c >= s.wc;
                if spent && i.sch_alone == 1 {
                    // Work-conserving: nothing else would use the link, so the next window
                    // starts with this packet.
                    s.sent_all = 0;
                    s.sent_c = 0;
                }
                let grant = !spent || i.sch_alone == 1;
                if grant {
                    add(&mut s.sent_all);
                    if harmful {
                        add(&mut s.sent_c);
                    }
                    if s.sent_all >= s.w {
                        s.sent_all = 0;
                        s.sent_c = 0;
                    }
                }
                grant
            }
        };
        if sat {
            out.err |= err::SAT;
        }
        out.dec = Some((grant, harmful));
    }

    /// Whether SAR may move packets now: the switch is congested itself, or it is in a region
    /// (some rcf) and has seen `sar_cns` severe CNs within `sar_window`.
    pub fn sar_active(&self) -> bool {
        let any_lcf = self.ports.iter().any(|p| p.lcf);
        let any_rcf = self.ports.iter().any(|p| p.rcf);
        let severe = self.severe_cns() as u64 >= self.reg(reg::SAR_CNS);
        self.reg(reg::SAR_ENABLE) == 1 && (any_lcf || (any_rcf && severe))
    }

    fn route(&mut self, i: &RcmIn, out: &mut PortEdge) {
        if i.rt_valid != 1 {
            return;
        }
        let ports = self.cfg.ports;
        let current = i.rt_port;
        if current >= u64::from(ports) {
            out.err |= err::INDEX;
            out.route = Some(((current & mask(self.cfg.port_bits())) as u8, false));
            return;
        }
        if i.rt_cands & !mask(ports) != 0 {
            out.err |= err::INDEX;
        }
        let cands = i.rt_cands & mask(ports);
        let c = current as usize;
        let harmful = self.ports[c].is_harmful(i.rt_fid & mask(self.cfg.fid_bits));
        let eligible = (i.rt_new == 1 || self.reg(reg::SAR_NEW_ONLY) == 0) && !harmful;
        let mut best = c;
        if eligible && self.sar_active() {
            let w_shift = self.reg(reg::W_SHIFT) as u32;
            let mut best_fbp = self.ports[c].fbp(w_shift);
            for p in (0..ports as usize).filter(|&p| cands >> p & 1 == 1) {
                let fbp = self.ports[p].fbp(w_shift);
                // Strictly lower only: the current port wins ties, then the lowest index.
                if fbp < best_fbp {
                    (best, best_fbp) = (p, fbp);
                }
            }
        }
        out.route = Some((best as u8, best != c));
    }

    fn read_id(&mut self, i: &RcmIn, out: &mut PortEdge) {
        if i.idr_valid != 1 {
            return;
        }
        if i.idr_port >= u64::from(self.cfg.ports) {
            out.err |= err::INDEX;
            out.id = Some(None);
            return;
        }
        let s = &self.ports[i.idr_port as usize];
        let list = if i.idr_ext == 1 { &s.ext } else { &s.cam };
        out.id = Some(list[(i.idr_index & mask(self.cfg.cam_bits())) as usize]);
    }

    /// A VOQ sample's effect: the input port's lcf, and a CN upstream through it when
    /// congested and T_cn has passed.
    fn voq_sample(&mut self, s: Sample, out: &mut PortEdge) {
        let (input, output) = (s.port as usize, s.voq as usize);
        self.local_flag(input, s.fb > 0);
        if s.fb <= 0 {
            return;
        }
        let t_cn = self.reg(reg::T_CN);
        if let Some(t) = self.ports[input].cn_t {
            if self.elapsed(t) < t_cn {
                return;
            }
        }
        self.ports[input].cn_t = Some(self.now_ts());
        self.marks.cn_sent |= 1 << input;
        let o = &self.ports[output];
        let fbp = if o.rcf {
            calc::regional_degree(s.fb6, o.fbr, self.reg(reg::W_SHIFT) as u32)
        } else {
            s.fb6
        };
        out.cn = Some(Cn {
            port: s.port,
            fbp,
            list: s.voq,
            relay: o.rcf,
        });
    }

    /// An output-queue sample's effect: Fb, the CAM, lcf and the RCC's trigger.
    fn oq_sample(&mut self, s: Sample) {
        let p = s.port as usize;
        let d = self.cfg.cam_depth as usize;
        let st = &mut self.ports[p];
        st.fb = s.fb6;
        st.cam[st.cam_wp] = Some(s.fid);
        st.cam_wp = (st.cam_wp + 1) % d;
        self.local_flag(p, s.fb > 0);
        if s.fb > 0 {
            self.trigger(p, s.fb6);
        }
    }

    /// What the sweep's visit of port `p` does, decided from the state the edge began with
    /// (so in parallel with the edge's events): rcf ageing, the CN rate limit's expiry, and
    /// the RCC's onset, measurement, reductions and exit.
    fn plan_visit(&self, p: usize) -> Visit {
        let now = self.now_ts();
        let (gd, wc_min) = (self.reg(reg::GD), self.reg(reg::WC_MIN));
        let s = &self.ports[p];
        let rcf_expired = s.rcf && self.elapsed(s.rcf_t) >= self.reg(reg::T_RCF);
        let mut v = Visit {
            port: p,
            clear_rcf: rcf_expired,
            expire_cn: s
                .cn_t
                .is_some_and(|t| self.elapsed(t) >= self.reg(reg::T_CN)),
            consume_pend: false,
            clear_cam: false,
            zero_sent: false,
            rcc: s.rcc,
            meas_t: s.meas_t,
            w: s.w,
            wc: s.wc,
            rate: s.rate,
        };
        let congested = s.lcf || (s.rcf && !rcf_expired);
        match s.rcc {
            Rcc::Off if s.pend.is_some() && congested => {
                v.rcc = Rcc::Measure;
                v.meas_t = now;
                v.zero_sent = true;
            }
            // A stale trigger (its flags cleared before the visit) is dropped.
            Rcc::Off => v.consume_pend = true,
            _ if !congested => {
                // Congestion cleared: the RCC quits; its next onset measures afresh.
                v.rcc = Rcc::Off;
                v.consume_pend = true;
                v.clear_cam = self.reg(reg::CFR_CLEAR_ON_EXIT) == 1;
            }
            Rcc::Measure => {
                if self.elapsed(s.meas_t) >= self.reg(reg::T_MEAS) {
                    v.consume_pend = true;
                    if s.sent_c == 0 {
                        // No harmful packet in the window: nothing to pace (spec §4.8).
                        v.rcc = Rcc::Off;
                    } else {
                        let fb = s.pend.unwrap_or(0);
                        v.rcc = Rcc::On;
                        v.w = s.sent_all;
                        v.wc = calc::reduce_window(s.sent_c, fb, gd, wc_min);
                        v.rate = calc::reduce_rate(RATE_ONE, fb, gd);
                        v.zero_sent = true;
                    }
                }
            }
            Rcc::On => {
                if let Some(fb) = s.pend {
                    v.wc = calc::reduce_window(s.wc, fb, gd, wc_min);
                    v.rate = calc::reduce_rate(s.rate, fb, gd);
                    v.consume_pend = true;
                }
            }
        }
        v
    }

    /// Applies a visit after the edge's events, keeping what they set: rcf from a CN received,
    /// the rate limit of a CN sent, the edge's triggers, its bytes (counted in the window the
    /// visit starts) and its CAM write (the clear came before it).
    fn apply_visit(&mut self, v: &Visit) {
        let m = &self.marks;
        let s = &mut self.ports[v.port];
        if v.clear_rcf && m.cn_received >> v.port & 1 == 0 {
            s.rcf = false;
        }
        if v.expire_cn && m.cn_sent >> v.port & 1 == 0 {
            s.cn_t = None;
        }
        if v.consume_pend {
            s.pend = m.triggers[v.port];
        }
        (s.rcc, s.meas_t, s.w, s.wc, s.rate) = (v.rcc, v.meas_t, v.w, v.wc, v.rate);
        if v.zero_sent {
            // The window's rule holds from its first bytes: at W or beyond, the next starts.
            (s.sent_all, s.sent_c) = match m.added {
                Some((p, all, c)) if p == v.port && all < v.w => (all, c),
                _ => (0, 0),
            };
        }
    }

    /// The severe CNs that are older than SAR's window as the edge begins.
    fn expiring_severe(&self) -> [bool; SEVERE_SLOTS] {
        let window = self.reg(reg::SAR_WINDOW);
        std::array::from_fn(|k| self.severe[k].is_some_and(|t| self.elapsed(t) >= window))
    }
}

/// One visit of the sweep (see [`Rcm::plan_visit`]): what it clears, and the port's RCC
/// fields after it.
#[derive(Clone, Copy, Debug)]
struct Visit {
    port: usize,
    clear_rcf: bool,
    expire_cn: bool,
    /// The pending Fb is used or dropped: only the edge's own triggers stay pending.
    consume_pend: bool,
    clear_cam: bool,
    /// A window or measurement starts: the bytes sent restart from the edge's own.
    zero_sent: bool,
    rcc: Rcc,
    meas_t: u64,
    w: u64,
    wc: u64,
    rate: u64,
}

/// What the events of one edge set, which a visit in parallel keeps.
#[derive(Clone, Copy, Debug, Default)]
struct Marks {
    /// Ports that received a CN, and sent one (bit per port).
    cn_received: u32,
    cn_sent: u32,
    /// The largest Fb of the edge's reduction triggers per port.
    triggers: [Option<u64>; MAX_PORTS],
    /// The bytes an offer counted: (port, all, harmful).
    added: Option<(usize, u64, u64)>,
    /// The severe-CN slot written.
    severe_written: Option<usize>,
}

/// The most ports a config may have.
const MAX_PORTS: usize = 16;

impl CycleModel for Rcm {
    type In = RcmIn;
    type Out = RcmOut;

    fn ports(&self) -> &PortSchema {
        &self.schema
    }

    fn reset(&mut self) {
        let d = self.cfg.cam_depth as usize;
        self.csr.reset();
        self.voqs = QueueTable::new(self.voqs.q_old.len());
        self.oqs = QueueTable::new(self.oqs.q_old.len());
        self.ports = (0..self.cfg.ports).map(|_| PortState::new(d)).collect();
        self.lagged = self.ports.iter().map(PortView::of).collect();
        self.severe = [None; SEVERE_SLOTS];
        self.severe_wp = 0;
        self.now = 0;
        self.samples.reset();
        self.results.reset();
    }

    fn step(&mut self, i: &RcmIn) -> RcmOut {
        let rdata = self.csr_access(i);
        let sampled = self.samplers(i);
        self.samples.push(sampled);

        // The port stage, in the order of the module documentation; the sweep's visit and the
        // severe CNs' expiry are decided from the state the edge begins with.
        let visit = self.plan_visit((self.now % u64::from(self.cfg.ports)) as usize);
        let expiring = self.expiring_severe();
        self.marks = Marks::default();
        let mut edge = PortEdge::default();
        self.receive_cn(i, &mut edge);
        self.offer(i, &mut edge);
        self.route(i, &mut edge);
        self.read_id(i, &mut edge);
        if visit.clear_cam {
            let s = &mut self.ports[visit.port];
            s.cam.fill(None);
            s.cam_wp = 0;
        }
        let due = self.samples.tap(SAMPLE_DELAY);
        if let Some(s) = due.voq {
            self.voq_sample(s, &mut edge);
        }
        if let Some(s) = due.oq {
            self.oq_sample(s);
        }
        self.apply_visit(&visit);
        for (k, expired) in expiring.into_iter().enumerate() {
            if expired && self.marks.severe_written != Some(k) {
                self.severe[k] = None;
            }
        }
        self.now += 1;
        self.results.push(edge);

        let flagged = self.samples.tap(ERR_LATENCY).err | self.results.tap(PORT_LATENCY).err;
        // Hardware-set flags win over a write-1-to-clear on the same edge.
        self.csr.set(reg::ERR, self.csr.get(reg::ERR) | flagged);
        let r = self.results.tap(PORT_LATENCY);
        let mut out = RcmOut {
            csr_rdata: rdata,
            ..RcmOut::default()
        };
        if let Some((grant, harmful)) = r.dec {
            (out.dec_valid, out.dec_grant, out.dec_harmful) = (1, grant.into(), harmful.into());
        }
        if let Some((port, detour)) = r.route {
            (out.route_valid, out.route_port, out.route_detour) = (1, port.into(), detour.into());
        }
        if let Some(cn) = r.cn {
            out.cn_valid = 1;
            out.cn_port = cn.port.into();
            out.cn_fbp = cn.fbp;
            out.cn_list = cn.list.into();
            out.cn_relay = cn.relay.into();
        }
        if let Some(entry) = r.id {
            (out.id_valid, out.id_hit, out.id_fid) =
                (1, entry.is_some().into(), entry.unwrap_or(0));
        }
        out
    }
}
