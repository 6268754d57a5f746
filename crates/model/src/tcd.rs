//! TCD: ternary congestion detection at every egress (port, priority) of a PFC switch, or every
//! (port, VL) of an InfiniBand switch.
//!
//! Spec: ../shared/spec/mechanisms.md §1 (flowchart §1.3, state §1.4, events §1.5, ECN §1.6,
//! ambiguities §1.10, corner cases §1.11). The contract, with its latencies, is
//! docs/blocks/tcd.md; this model is its reference.
//!
//! Cycle semantics (one [`Tcd::step`] = one rising edge n):
//! * time is a free-running cycle counter `now`: 0 in the cycle after reset, +1 per edge. Events
//!   sampled at edge n are applied in cycle n with that cycle's `now`, and their results (the
//!   `mark_*` outputs) appear after edge n + [`MARK_LATENCY`] (the RTL reads the entry's RAMs
//!   in cycle n, tests it in cycle n + 1 and decides in cycle n + 2; a delay line holds the
//!   results in between);
//! * in a cycle, the received control frame (`rx_pfc` in CEE mode, `rx_credit` in IB mode) is
//!   applied before the dequeue, so a RESUME and a dequeue of one entry in one cycle give
//!   `Ton = 0` (spec §1.11);
//! * the model keeps exact 64-bit times; the hardware keeps `time_bits`-bit timestamps and, per
//!   timestamp, an age (how many half-wraps of the counter it has seen, saturating at 2). Every
//!   time register is at most half a wrap (`2^(time_bits-1) - 1`), so an age of 2 decides every
//!   comparison the same way as the exact time: the two agree for any gap between events;
//! * CSR writes sampled at edge n apply to the events sampled at edge n; `csr_rdata` after edge
//!   n is register `csr_addr` as it was before edge n.

pub mod max_ton;

use crate::config::parse_toml;
use serde::{Deserialize, Serialize};
use switchcraft_core::csr::{Access, CsrFile, Reg, RegMap, CSR_ADDR_BITS, CSR_DATA_BITS};
use switchcraft_core::InputError;
use switchcraft_core::{index_bits, mask, ConfigError, CycleModel, DelayLine, Port, PortSchema};

/// Which received frames start an ON period (the reset value of the `mode` register).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// PFC/CEE: `rx_pfc` PAUSE/RESUME per (port, priority).
    Cee,
    /// InfiniBand credit-based flow control: `rx_credit` blocked/unblocked per (port, VL).
    Ib,
}

/// When the low-threshold check D4 (`QueueLength < K_low`) runs for a port just released from
/// ON-OFF (spec §1.3, §1.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LowCheck {
    /// On every packet ("as soon as the queue decreases to a low threshold"); the default.
    EveryPacket,
    /// Only at the end of a T period (the alternative wiring of Figure 9).
    AtTBoundary,
}

/// Static parameters of a TCD instance. Thresholds, periods, mode and options are the reset
/// values of their CSRs; software may change them at run time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcdConfig {
    /// Number of egress ports P (1..=64).
    pub ports: u32,
    /// Priorities per port, or VLs in IB mode (1..=8).
    pub priorities: u32,
    /// Width of queue lengths (`deq_qlen`, `rx_*_qlen`), `K`, `K_low` and `Q_rec`, in bits
    /// (8..=30).
    pub queue_bits: u32,
    /// Width of the cycle counter and of every timestamp, in bits (8..=32). Time registers hold
    /// at most `2^(time_bits-1) - 1` cycles.
    pub time_bits: u32,
    /// Reset value of `mode`: "cee" or "ib".
    pub mode: Mode,
    /// max(Ton) in clock cycles (1..=2^(time_bits-1)-1): an ON period shorter than this means
    /// the port is driven ON-OFF by flow control (undetermined). `switchcraft tcd max-ton`
    /// computes it from link parameters.
    pub max_ton: u64,
    /// The period T in clock cycles (1..=2^(time_bits-1)-1); the paper sets T = max(Ton).
    pub t_period: u64,
    /// CE threshold K in bytes: a queue longer than K marks CE.
    pub k: u64,
    /// Low threshold K_low in bytes (<= K): a released port whose queue is below it is
    /// non-congested. The spec's default is K_low = K.
    pub k_low: u64,
    /// When D4 runs: "every_packet" (default) or "at_t_boundary".
    pub low_check: LowCheck,
    /// CE-mark the packet on which a released port turns congested (default false: the next
    /// packet is the first CE).
    pub mark_transition: bool,
    /// Bit p enables TCD marking on priority p (8 bits; must cover only existing priorities).
    pub prio_enable: u64,
    /// The reset speed class of each (port, priority) entry, index port x priorities +
    /// priority: the class whose max_ton, t_period, k and k_low it is judged with. Empty (the
    /// default): every entry is class 0.
    #[serde(default)]
    pub entry_speed: Vec<u32>,
    /// Speed classes after the first (spec §1.4: configuration per port-speed class, and per
    /// VL for InfiniBand's bandwidth shares, §1.8): class s >= 1 is `more_speeds[s - 1]`;
    /// class 0 is the fields above. At most 3.
    #[serde(default)]
    pub more_speeds: Vec<TcdSpeed>,
}

/// One speed class's time constants and thresholds (the fields of the same names of
/// [`TcdConfig`] are class 0's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcdSpeed {
    pub max_ton: u64,
    pub t_period: u64,
    pub k: u64,
    pub k_low: u64,
}

/// The most speed classes a TCD instance has (a 2-bit class per entry).
pub const MAX_SPEEDS: u32 = 4;

pub const PRESETS: &[&str] = &["tiny", "fpga", "paper"];

/// The widest time counter a config may ask for (`time_bits`).
pub const TIME_BITS_MAX: u32 = 32;

impl TcdConfig {
    pub fn preset(name: &str) -> Option<TcdConfig> {
        Some(match name {
            // 12-bit time wraps every 4096 cycles, so random tests cross the wrap often; short
            // periods and small thresholds so ON-OFF episodes and T boundaries happen every few
            // hundred cycles.
            "tiny" => TcdConfig {
                ports: 4,
                priorities: 2,
                queue_bits: 16,
                time_bits: 12,
                mode: Mode::Cee,
                max_ton: 300,
                t_period: 300,
                k: 3000,
                k_low: 3000,
                low_check: LowCheck::EveryPacket,
                mark_transition: false,
                prio_enable: 0x3,
                entry_speed: Vec::new(),
                more_speeds: Vec::new(),
            },
            // Fits an iCE40 HX8K. A 100 MHz clock and the paper's 40 Gb/s max(Ton) = 34.4 us
            // (`max_ton::preset_timing`);
            // K = 40 KB as in the spec's flowchart trace (§7.1 T12). Timestamps need only span
            // the longest time register (the ages make the wrap safe): 16 bits take max(Ton)
            // and T up to 327 us, every CEE rate of the paper down to 10 Gb/s (71.6 us) and the
            // InfiniBand credit-period bound at 10 Gb/s (262 us).
            "fpga" => TcdConfig {
                ports: 8,
                priorities: 8,
                queue_bits: 20,
                time_bits: 16,
                mode: Mode::Cee,
                max_ton: max_ton::preset_max_ton_cycles(&max_ton::preset_timing("fpga")?),
                t_period: max_ton::preset_max_ton_cycles(&max_ton::preset_timing("fpga")?),
                k: 40_000,
                k_low: 40_000,
                low_check: LowCheck::EveryPacket,
                mark_transition: false,
                prio_enable: 0xFF,
                entry_speed: Vec::new(),
                more_speeds: Vec::new(),
            },
            // 64 ports x 8 priorities, the spec's 24-bit queues; a 1 GHz clock and max(Ton) =
            // 34.4 us at 40 Gb/s (`max_ton::preset_timing`). 18-bit timestamps take max(Ton) and T up to 131 us: every CEE
            // rate of the paper down to 10 Gb/s (71.6 us) and the InfiniBand credit-period bound
            // at 40 Gb/s (65.5 us). The spec's 32-bit stamps would add 28 RAM bits per entry.
            "paper" => TcdConfig {
                ports: 64,
                priorities: 8,
                queue_bits: 24,
                time_bits: 18,
                mode: Mode::Cee,
                max_ton: max_ton::preset_max_ton_cycles(&max_ton::preset_timing("paper")?),
                t_period: max_ton::preset_max_ton_cycles(&max_ton::preset_timing("paper")?),
                k: 40_000,
                k_low: 40_000,
                low_check: LowCheck::EveryPacket,
                mark_transition: false,
                prio_enable: 0xFF,
                entry_speed: Vec::new(),
                more_speeds: Vec::new(),
            },
            _ => return None,
        })
    }

    pub fn from_toml(text: &str, name: &str) -> Result<TcdConfig, InputError> {
        let cfg: TcdConfig = parse_toml(text, name)?;
        cfg.validate()
            .map_err(|e| InputError(format!("{name}: {e}")))?;
        Ok(cfg)
    }

    /// Checks every rule of the block; the error names the field, its value and the rule.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let range = crate::config::in_range;
        range("ports", self.ports.into(), 1, 64)?;
        range("priorities", self.priorities.into(), 1, 8)?;
        range("queue_bits", self.queue_bits.into(), 8, 30)?;
        range("time_bits", self.time_bits.into(), 8, TIME_BITS_MAX.into())?;
        if self.speeds() > MAX_SPEEDS {
            return Err(ConfigError::new(
                "more_speeds",
                self.more_speeds.len(),
                format!(
                    "at most {} classes after class 0 (a TCD instance has {MAX_SPEEDS} speed \
                     classes)",
                    MAX_SPEEDS - 1
                ),
            ));
        }
        for s in 0..self.speeds() {
            self.validate_speed(s)?;
        }
        let entries = (self.ports * self.priorities) as usize;
        if !self.entry_speed.is_empty() && self.entry_speed.len() != entries {
            return Err(ConfigError::new(
                "entry_speed",
                self.entry_speed.len(),
                format!(
                    "needs one speed class per (port, priority) entry (ports x priorities = \
                     {entries}), or none (all class 0)"
                ),
            ));
        }
        if let Some((e, &c)) = self
            .entry_speed
            .iter()
            .enumerate()
            .find(|(_, &c)| c >= self.speeds())
        {
            return Err(ConfigError::new(
                &format!("entry_speed[{e}]"),
                c,
                format!(
                    "must be a speed class below {} (1 + more_speeds)",
                    self.speeds()
                ),
            ));
        }
        if self.prio_enable > mask(self.priorities) {
            return Err(ConfigError::new(
                "prio_enable",
                format!("{:#x}", self.prio_enable),
                format!(
                    "may only enable existing priorities (at most {:#x} for priorities = {})",
                    mask(self.priorities),
                    self.priorities
                ),
            ));
        }
        Ok(())
    }

    /// Speed classes: 1 + `more_speeds`.
    pub fn speeds(&self) -> u32 {
        1 + self.more_speeds.len() as u32
    }

    /// Speed class `s`'s constants.
    pub fn speed(&self, s: u32) -> TcdSpeed {
        match s {
            0 => TcdSpeed {
                max_ton: self.max_ton,
                t_period: self.t_period,
                k: self.k,
                k_low: self.k_low,
            },
            _ => self.more_speeds[s as usize - 1],
        }
    }

    /// The reset speed class of entry `key` (port x priorities + priority).
    pub fn entry_speed_of(&self, key: usize) -> u32 {
        self.entry_speed.get(key).copied().unwrap_or(0)
    }

    /// The rules of one speed class's constants; fields are named as in the TOML file.
    fn validate_speed(&self, s: u32) -> Result<(), ConfigError> {
        let c = self.speed(s);
        let name = |f: &str| {
            if s == 0 {
                f.to_string()
            } else {
                format!("more_speeds[{}].{f}", s - 1)
            }
        };
        let half = self.max_time();
        for (field, v) in [("max_ton", c.max_ton), ("t_period", c.t_period)] {
            if v == 0 || v > half {
                return Err(ConfigError::new(
                    &name(field),
                    v,
                    format!(
                        "must be in 1..={half} cycles (at least 1, at most half the wrap of \
                         time_bits = {})",
                        self.time_bits
                    ),
                ));
            }
        }
        let qmax = mask(self.queue_bits);
        for (field, v) in [("k", c.k), ("k_low", c.k_low)] {
            if v > qmax {
                return Err(ConfigError::new(
                    &name(field),
                    v,
                    format!(
                        "does not fit queue_bits = {} (at most {qmax})",
                        self.queue_bits
                    ),
                ));
            }
        }
        if c.k_low > c.k {
            return Err(ConfigError::new(
                &name("k_low"),
                c.k_low,
                format!("must be <= k ({})", c.k),
            ));
        }
        Ok(())
    }

    pub fn port_bits(&self) -> u32 {
        index_bits(self.ports.into())
    }

    pub fn prio_bits(&self) -> u32 {
        index_bits(self.priorities.into())
    }

    /// The largest value of a time register: `2^(time_bits-1) - 1` cycles.
    pub fn max_time(&self) -> u64 {
        mask(self.time_bits - 1)
    }
}

/// Word indices of the TCD registers (see [`regmap`]).
pub mod reg {
    pub const ID: u32 = 0;
    pub const PARAMS: u32 = 1;
    pub const MODE: u32 = 2;
    pub const OPTIONS: u32 = 3;
    pub const MAX_TON: u32 = 4;
    pub const T_PERIOD: u32 = 5;
    pub const K: u32 = 6;
    pub const K_LOW: u32 = 7;
    pub const PRIO_ENABLE: u32 = 8;
    pub const NOW: u32 = 9;
    pub const ERR: u32 = 10;
    pub const ENTRY_INDEX: u32 = 11;
    pub const ENTRY_STATUS: u32 = 12;
    pub const ENTRY_T_ON: u32 = 13;
    pub const ENTRY_T_T: u32 = 14;
    pub const ENTRY_Q_REC: u32 = 15;
    pub const ENTRY_STATE: u32 = 16;
    pub const SPEED_SEL: u32 = 17;
    pub const ENTRY_SPEED: u32 = 18;
    pub const SPEEDS: u32 = 19;
}

/// `MODE` value of InfiniBand mode (0 is CEE).
pub const MODE_IB: u64 = 1;
/// `OPTIONS` bit: run D4 (`Q < K_low`) only at T boundaries.
pub const OPT_LOW_CHECK_AT_T_BOUNDARY: u64 = 1;
/// `OPTIONS` bit: CE-mark the packet on which a released port turns congested.
pub const OPT_MARK_TRANSITION: u64 = 2;
/// `ERR` bit: an event named a port >= ports or a priority >= priorities (event ignored).
pub const ERR_INDEX: u64 = 1;

/// ID word: ASCII "TCD" and version 1.
pub const ID_WORD: u64 = 0x5443_4401;

/// `LAST_STATE` codes (spec §1.4).
pub const NONCONG: u64 = 0;
pub const CONG: u64 = 1;
pub const UND: u64 = 2;

/// ECN codepoints (spec §1.6): UE repurposes ECT(1).
pub const NOT_ECT: u64 = 0b00;
pub const UE: u64 = 0b01;
pub const ECT0: u64 = 0b10;
pub const CE: u64 = 0b11;

/// `Mark(UE)`: never on CE (D5) and never on a Not-ECT packet (§1.10.5).
pub fn mark_ue(ecn: u64) -> u64 {
    match ecn {
        CE | NOT_ECT => ecn,
        _ => UE,
    }
}

/// `Mark(CE)`: overwrites ECT(0) and UE; a Not-ECT packet cannot carry a mark.
pub fn mark_ce(ecn: u64) -> u64 {
    if ecn == NOT_ECT {
        NOT_ECT
    } else {
        CE
    }
}

/// The TCD register map, declared once: RTL decode, model, docs table and C header use it.
pub fn regmap(cfg: &TcdConfig) -> RegMap {
    let (tb, qb) = (cfg.time_bits, cfg.queue_bits);
    let params = u64::from(cfg.ports)
        | u64::from(cfg.priorities) << 8
        | u64::from(cfg.queue_bits) << 16
        | u64::from(cfg.time_bits) << 24;
    let options = match cfg.low_check {
        LowCheck::EveryPacket => 0,
        LowCheck::AtTBoundary => OPT_LOW_CHECK_AT_T_BOUNDARY,
    } | if cfg.mark_transition {
        OPT_MARK_TRANSITION
    } else {
        0
    };
    let mode = match cfg.mode {
        Mode::Cee => 0,
        Mode::Ib => MODE_IB,
    };
    let r = |name, index, width, access, reset, doc| Reg {
        name,
        index,
        width,
        access,
        reset,
        doc,
    };
    use Access::{Const, Ro, Rw, Rw1c, Window};
    RegMap::new(
        "tcd",
        vec![
            r(
                "id",
                reg::ID,
                32,
                Const,
                ID_WORD,
                "block ID \"TCD\" and version 1",
            ),
            r(
                "params",
                reg::PARAMS,
                32,
                Const,
                params,
                "ports [7:0], priorities [15:8], queue_bits [23:16], time_bits [31:24]",
            ),
            r(
                "mode",
                reg::MODE,
                1,
                Rw,
                mode,
                "0 CEE (rx_pfc PAUSE/RESUME), 1 InfiniBand (rx_credit blocked/unblocked)",
            ),
            r(
                "options",
                reg::OPTIONS,
                2,
                Rw,
                options,
                "bit 0: check K_low only at T boundaries; bit 1: CE-mark the transition packet",
            ),
            r(
                "max_ton",
                reg::MAX_TON,
                tb - 1,
                Window,
                cfg.max_ton,
                "max(Ton) in cycles of speed class speed_sel: Ton < max_ton means undetermined",
            ),
            r(
                "t_period",
                reg::T_PERIOD,
                tb - 1,
                Window,
                cfg.t_period,
                "the period T in cycles of speed class speed_sel (a released port is judged \
                 once per T)",
            ),
            r(
                "k",
                reg::K,
                qb,
                Window,
                cfg.k,
                "CE threshold in bytes of speed class speed_sel: queue > K marks CE",
            ),
            r(
                "k_low",
                reg::K_LOW,
                qb,
                Window,
                cfg.k_low,
                "low threshold in bytes of speed class speed_sel: a released port with queue < \
                 K_low is non-congested",
            ),
            r(
                "prio_enable",
                reg::PRIO_ENABLE,
                8,
                Rw,
                cfg.prio_enable,
                "bit p: dequeues on priority p are classified and marked (PAUSE/RESUME tracking runs on every priority)",
            ),
            r(
                "now",
                reg::NOW,
                tb,
                Ro,
                0,
                "the cycle counter that timestamps events",
            ),
            r(
                "err",
                reg::ERR,
                1,
                Rw1c,
                0,
                "sticky: bit 0 event index out of range (event ignored)",
            ),
            r(
                "entry_index",
                reg::ENTRY_INDEX,
                cfg.port_bits() + 3,
                Rw,
                0,
                "{port, priority[2:0]} of the entry to inspect; a write takes a snapshot",
            ),
            r(
                "entry_status",
                reg::ENTRY_STATUS,
                1,
                Ro,
                0,
                "bit 0 busy: the snapshot waits for a cycle without a dequeue input",
            ),
            r(
                "entry_t_on",
                reg::ENTRY_T_ON,
                tb,
                Ro,
                0,
                "snapshot: t_on_start, the end of the latest OFF period",
            ),
            r(
                "entry_t_t",
                reg::ENTRY_T_T,
                tb,
                Ro,
                0,
                "snapshot: t_T, the start of the current T period",
            ),
            r(
                "entry_q_rec",
                reg::ENTRY_Q_REC,
                qb,
                Ro,
                0,
                "snapshot: Q_rec, the queue recorded at RESUME or the last T boundary",
            ),
            r(
                "entry_state",
                reg::ENTRY_STATE,
                8,
                Ro,
                0,
                "snapshot: [1:0] LAST_STATE, [2] paused, [5:4] age of t_on, [7:6] age of t_T \
                 (0, 1: half-wraps since set; 2: older; 3: never set)",
            ),
            r(
                "speed_sel",
                reg::SPEED_SEL,
                2,
                Rw,
                0,
                "speed class whose max_ton, t_period, k and k_low those four windows show",
            ),
            r(
                "entry_speed",
                reg::ENTRY_SPEED,
                2,
                Window,
                0,
                "window on the speed class of entry entry_index; a write of a class >= speeds \
                 is ignored",
            ),
            r(
                "speeds",
                reg::SPEEDS,
                3,
                Const,
                cfg.speeds().into(),
                "speed classes: 1 + more_speeds",
            ),
        ],
    )
}

/// The ports of `tcd_top` for `cfg` (clock `clk` and synchronous reset `rst` are implicit).
pub fn port_schema(cfg: &TcdConfig) -> PortSchema {
    let (pb, nb, qb) = (cfg.port_bits(), cfg.prio_bits(), cfg.queue_bits);
    PortSchema::new(
        "tcd",
        vec![
            Port::input(
                "rx_pfc_valid",
                1,
                "a PFC frame's class was received (CEE mode)",
            ),
            Port::input("rx_pfc_port", pb, "the egress port it paces"),
            Port::input("rx_pfc_prio", nb, "its priority"),
            Port::input(
                "rx_pfc_quanta",
                16,
                "its pause time: > 0 PAUSE, 0 RESUME (the MAC reports a pause expiry as 0)",
            ),
            Port::input(
                "rx_pfc_qlen",
                qb,
                "the egress queue of that (port, priority), bytes",
            ),
            Port::input(
                "rx_credit_valid",
                1,
                "a credit update was applied (IB mode)",
            ),
            Port::input("rx_credit_port", pb, "the egress port"),
            Port::input("rx_credit_vl", nb, "the virtual lane"),
            Port::input(
                "rx_credit_ok",
                1,
                "1: credits cover the head packet; 0: blocked for lack of credits",
            ),
            Port::input(
                "rx_credit_qlen",
                qb,
                "the egress queue of that (port, VL), bytes",
            ),
            Port::input("deq_valid", 1, "a packet is transmitted"),
            Port::input("deq_port", pb, "its egress port"),
            Port::input("deq_prio", nb, "its priority (VL)"),
            Port::input("deq_qlen", qb, "the queue before it leaves, bytes"),
            Port::input("deq_ecn", 2, "its ECN codepoint"),
            Port::input("csr_we", 1, "CSR write strobe"),
            Port::input("csr_addr", CSR_ADDR_BITS, "CSR word index"),
            Port::input("csr_wdata", CSR_DATA_BITS, "CSR write data"),
            Port::output(
                "mark_valid",
                1,
                "a dequeue is classified (the latency column says when)",
            ),
            Port::output("mark_port", pb, "its port"),
            Port::output("mark_prio", nb, "its priority"),
            Port::output("mark_ecn", 2, "its outgoing ECN codepoint"),
            Port::output(
                "mark_state",
                2,
                "the entry's new LAST_STATE: 0 non-congestion, 1 congestion, 2 undetermined",
            ),
            Port::output("csr_rdata", CSR_DATA_BITS, "CSR read data"),
        ],
    )
    .with_latencies(&[("mark", MARK_LATENCY), ("csr", 0)])
}

port_bundle!(
    /// Inputs of one edge.
    TcdIn {
        rx_pfc_valid, rx_pfc_port, rx_pfc_prio, rx_pfc_quanta, rx_pfc_qlen,
        rx_credit_valid, rx_credit_port, rx_credit_vl, rx_credit_ok, rx_credit_qlen,
        deq_valid, deq_port, deq_prio, deq_qlen, deq_ecn,
        csr_we, csr_addr, csr_wdata,
    }
);

/// Edges from sampling a dequeue to its `mark_*` outputs: the RAM read's, the tests' and the
/// decision's.
pub const MARK_LATENCY: u32 = 3;
const _: () = assert!(MARK_LATENCY <= DelayLine::<Mark>::MAX_LATENCY);

/// One edge's `mark_*` outputs.
#[derive(Clone, Copy, Debug, Default)]
struct Mark {
    valid: u64,
    port: u64,
    prio: u64,
    ecn: u64,
    state: u64,
}

port_bundle!(
    /// Registered outputs after one edge.
    TcdOut {
        mark_valid, mark_port, mark_prio, mark_ecn, mark_state,
        csr_rdata,
    }
);

/// The TCD state of one egress (port, priority), spec §1.4. Times are exact (never wrap).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// End of the latest OFF period (`None`: never, so Ton is infinite).
    pub t_on: Option<u64>,
    /// Start of the current T period.
    pub t_t: Option<u64>,
    pub q_rec: u64,
    pub last_state: u64,
    /// Paused (CEE) or blocked for lack of credits (IB).
    pub paused: bool,
}

/// The paths through the block, counted by the model so tests can check a workload reaches
/// every one of them (see [`Tcd::branch_counts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    /// RX PAUSE / credit blocked.
    Pause,
    /// RX RESUME / unblocked while paused: the OFF period ends.
    Resume,
    /// RX RESUME / unblocked while not paused: ignored.
    ResumeIgnored,
    /// D1 yes: ON-OFF, undetermined (UE unless CE or Not-ECT).
    OnOff,
    /// D2 no, D6 yes: CE.
    AboveK,
    /// D2 no, D6 no: non-congestion.
    NotAboveK,
    /// Released, D4 on every packet: below K_low, non-congestion.
    LowEveryPacket,
    /// Released, D3 no: inside the T period, stays undetermined.
    WithinT,
    /// Released, T boundary, D4 at the boundary: below K_low.
    LowAtBoundary,
    /// Released, T boundary, D7 no and above K: congestion.
    Transition,
    /// Released, T boundary, queue decreased or not above K: stays undetermined.
    StillUndetermined,
    /// A dequeue on a priority whose `prio_enable` bit is clear.
    Disabled,
    /// An event with an out-of-range index.
    BadIndex,
    /// An entry snapshot taken.
    Snapshot,
}

impl Branch {
    pub const ALL: [Branch; 14] = [
        Branch::Pause,
        Branch::Resume,
        Branch::ResumeIgnored,
        Branch::OnOff,
        Branch::AboveK,
        Branch::NotAboveK,
        Branch::LowEveryPacket,
        Branch::WithinT,
        Branch::LowAtBoundary,
        Branch::Transition,
        Branch::StillUndetermined,
        Branch::Disabled,
        Branch::BadIndex,
        Branch::Snapshot,
    ];
}

/// A received control frame as held by the input stage, common to both modes.
#[derive(Clone, Copy, Debug, Default)]
struct RxEvent {
    valid: bool,
    bad_index: bool,
    key: usize,
    /// PAUSE (quanta > 0) or credit-blocked: an OFF period starts.
    stop: bool,
    qlen: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct DeqEvent {
    valid: bool,
    bad_index: bool,
    port: u64,
    prio: u64,
    qlen: u64,
    ecn: u64,
}

#[derive(Clone)]
pub struct Tcd {
    cfg: TcdConfig,
    schema: PortSchema,
    csr: CsrFile,
    /// Per (port, priority), index port * priorities + priority.
    entries: Vec<Entry>,
    /// Each speed class's constants and each entry's class (their registers).
    speeds: Vec<TcdSpeed>,
    entry_speed: Vec<u32>,
    /// The cycle counter of the cycle whose events are applied next.
    now: u64,
    /// The events sampled at the previous edge (the RTL's input stage).
    rx_pfc: RxEvent,
    rx_credit: RxEvent,
    deq: DeqEvent,
    /// A written `entry_index` waiting for a cycle without a dequeue input.
    snap_pending: bool,
    /// The index read at the previous edge: its snapshot is taken on this edge.
    snap_reading: Option<u64>,
    /// The snapshot taken on the previous edge (`entry_t_on`, `entry_t_t`, `entry_q_rec`,
    /// `entry_state`), one edge from the status words (the RTL merges the writes its read
    /// missed over two cycles).
    snap_taken: Option<[u64; 4]>,
    /// The snapshot taken two edges ago: the status words show it from this edge on.
    snap_held: Option<[u64; 4]>,
    /// The `mark_*` results of the edges in flight.
    marks: DelayLine<Mark>,
    branches: [u64; Branch::ALL.len()],
}

impl Tcd {
    pub fn new(cfg: &TcdConfig) -> Result<Tcd, ConfigError> {
        cfg.validate()?;
        let keys = (cfg.ports * cfg.priorities) as usize;
        let mut m = Tcd {
            cfg: cfg.clone(),
            schema: port_schema(cfg),
            csr: CsrFile::new(&regmap(cfg)),
            entries: vec![Entry::default(); keys],
            speeds: Vec::new(),
            entry_speed: Vec::new(),
            now: 0,
            rx_pfc: RxEvent::default(),
            rx_credit: RxEvent::default(),
            deq: DeqEvent::default(),
            snap_pending: false,
            snap_reading: None,
            snap_taken: None,
            snap_held: None,
            marks: DelayLine::new(),
            branches: [0; Branch::ALL.len()],
        };
        CycleModel::reset(&mut m);
        Ok(m)
    }

    pub fn config(&self) -> &TcdConfig {
        &self.cfg
    }

    /// Register `index` as software would read it now.
    pub fn csr(&self, index: u32) -> u64 {
        self.csr.get(index)
    }

    pub fn entry(&self, port: usize, prio: usize) -> Entry {
        self.entries[port * self.cfg.priorities as usize + prio]
    }

    /// How often each path ran since the model was made (reset does not clear the counts).
    pub fn branch_counts(&self) -> Vec<(Branch, u64)> {
        Branch::ALL
            .iter()
            .map(|&b| (b, self.branches[b as usize]))
            .collect()
    }

    fn count(&mut self, b: Branch) {
        self.branches[b as usize] += 1;
    }

    /// The cycle counter of the next cycle to be applied (exact, never wraps).
    pub fn now(&self) -> u64 {
        self.now
    }

    fn key_of(&self, port: u64, prio: u64) -> Option<usize> {
        (port < u64::from(self.cfg.ports) && prio < u64::from(self.cfg.priorities))
            .then(|| (port * u64::from(self.cfg.priorities) + prio) as usize)
    }

    fn sample_rx(&self, valid: u64, port: u64, prio: u64, stop: bool, qlen: u64) -> RxEvent {
        let key = self.key_of(port, prio);
        RxEvent {
            valid: valid == 1 && key.is_some(),
            bad_index: valid == 1 && key.is_none(),
            key: key.unwrap_or(0),
            stop,
            qlen,
        }
    }

    /// Half-wraps of the hardware's time counter between `t` and now, saturating at 2; 3 when
    /// the timestamp was never set (the `entry_state` age fields).
    fn age(&self, t: Option<u64>) -> u64 {
        let half = self.cfg.time_bits - 1;
        t.map_or(3, |t| ((self.now >> half) - (t >> half)).min(2))
    }

    /// The snapshot registers of entry `index` (`{port, priority[2:0]}`) in this cycle:
    /// `entry_t_on`, `entry_t_t`, `entry_q_rec`, `entry_state`.
    fn snapshot(&mut self, index: u64) -> [u64; 4] {
        self.count(Branch::Snapshot);
        let e = self.key_of(index >> 3, index & 7).map(|k| self.entries[k]);
        let tmask = mask(self.cfg.time_bits);
        let (t_on, t_t, q_rec, state) = match e {
            None => (0, 0, 0, 0),
            Some(e) => (
                e.t_on.map_or(0, |t| t & tmask),
                e.t_t.map_or(0, |t| t & tmask),
                e.q_rec,
                e.last_state
                    | u64::from(e.paused) << 2
                    | self.age(e.t_on) << 4
                    | self.age(e.t_t) << 6,
            ),
        };
        [t_on, t_t, q_rec, state]
    }

    /// The window registers as stored: speed class `speed_sel`'s constants (0 for a class the
    /// block does not have) and the class of entry `entry_index`.
    fn show_windows(&mut self) {
        let sel = self.csr.get(reg::SPEED_SEL) as usize;
        let c = self.speeds.get(sel).copied().unwrap_or_default();
        for (r, v) in [
            (reg::MAX_TON, c.max_ton),
            (reg::T_PERIOD, c.t_period),
            (reg::K, c.k),
            (reg::K_LOW, c.k_low),
        ] {
            self.csr.set(r, v);
        }
        let index = self.csr.get(reg::ENTRY_INDEX);
        let class = self
            .key_of(index >> 3, index & 7)
            .map_or(0, |k| self.entry_speed[k]);
        self.csr.set(reg::ENTRY_SPEED, class.into());
    }

    /// Stores a write to a window (the bank has masked it to the register's width).
    fn write_window(&mut self, addr: u32) {
        let sel = self.csr.get(reg::SPEED_SEL) as usize;
        let v = self.csr.get(addr);
        if let Some(c) = self.speeds.get_mut(sel) {
            match addr {
                reg::MAX_TON => c.max_ton = v,
                reg::T_PERIOD => c.t_period = v,
                reg::K => c.k = v,
                reg::K_LOW => c.k_low = v,
                _ => {}
            }
        }
        let index = self.csr.get(reg::ENTRY_INDEX);
        if addr == reg::ENTRY_SPEED && v < self.speeds.len() as u64 {
            if let Some(k) = self.key_of(index >> 3, index & 7) {
                self.entry_speed[k] = v as u32;
            }
        }
    }

    /// The speed class of entry (`port`, `prio`) now.
    pub fn entry_speed(&self, port: usize, prio: usize) -> u32 {
        self.entry_speed[port * self.cfg.priorities as usize + prio]
    }

    /// A received PAUSE/RESUME or credit update, spec §1.5 items 1-3.
    fn apply_rx(&mut self, rx: RxEvent) {
        let now = self.now;
        let e = &mut self.entries[rx.key];
        let branch = if rx.stop {
            Branch::Pause
        } else if e.paused {
            Branch::Resume
        } else {
            Branch::ResumeIgnored
        };
        if rx.stop {
            e.paused = true;
        } else if e.paused {
            // The OFF period ends: RecordQueue(); ResetTimer/FCCL().
            e.paused = false;
            e.t_on = Some(now);
            e.t_t = Some(now);
            e.q_rec = rx.qlen;
        }
        self.count(branch);
    }

    /// The flowchart of spec §1.3 for one transmitted packet: updates the entry and returns
    /// the outgoing ECN codepoint and the path taken (the new LAST_STATE is in the entry).
    fn classify(&mut self, key: usize, q: u64, ecn: u64) -> (u64, Branch) {
        let now = self.now;
        let TcdSpeed {
            max_ton,
            t_period: period,
            k,
            k_low,
        } = self.speeds[self.entry_speed[key] as usize];
        let options = self.csr.get(reg::OPTIONS);
        let at_boundary = options & OPT_LOW_CHECK_AT_T_BOUNDARY != 0;
        let e = &mut self.entries[key];
        // D1: Ton < max(Ton)?
        if e.t_on.is_some_and(|t| now - t < max_ton) {
            e.last_state = UND;
            return (mark_ue(ecn), Branch::OnOff);
        }
        // D2: LAST_STATE == Undetermined? No: D6, plain threshold marking.
        if e.last_state != UND {
            return if q > k {
                e.last_state = CONG;
                (mark_ce(ecn), Branch::AboveK)
            } else {
                e.last_state = NONCONG;
                (ecn, Branch::NotAboveK)
            };
        }
        // Yes: a port just released from ON-OFF.
        if !at_boundary && q < k_low {
            e.last_state = NONCONG; // D4 on every packet
            return (ecn, Branch::LowEveryPacket);
        }
        // D3: Timer(T) expires? (lazy: several idle periods count as one)
        if e.t_t.is_some_and(|t| now - t < period) {
            return (ecn, Branch::WithinT);
        }
        let (out, branch) = if at_boundary && q < k_low {
            e.last_state = NONCONG; // D4 at the T boundary
            (ecn, Branch::LowAtBoundary)
        } else if q >= e.q_rec && q > k {
            // D7 no (not decreased during T), and above the threshold.
            e.last_state = CONG;
            let marked = options & OPT_MARK_TRANSITION != 0;
            (if marked { mark_ce(ecn) } else { ecn }, Branch::Transition)
        } else {
            (ecn, Branch::StillUndetermined)
        };
        // ResetTimer(T); RecordQueue().
        e.t_t = Some(now);
        e.q_rec = q;
        (out, branch)
    }

    /// Applies the events of the input stage: control frame first, then the dequeue.
    fn apply_events(&mut self, out: &mut TcdOut, err: &mut u64) {
        let rx = if self.csr.get(reg::MODE) == MODE_IB {
            self.rx_credit
        } else {
            self.rx_pfc
        };
        let deq = self.deq;
        if rx.bad_index || deq.bad_index {
            *err |= ERR_INDEX;
            self.count(Branch::BadIndex);
        }
        if rx.valid {
            self.apply_rx(rx);
        }
        if deq.valid || deq.bad_index {
            out.mark_valid = 1;
            out.mark_port = deq.port;
            out.mark_prio = deq.prio;
            out.mark_ecn = deq.ecn;
        }
        if deq.valid {
            let key = self.key_of(deq.port, deq.prio).expect("sampled in range");
            let branch = if self.csr.get(reg::PRIO_ENABLE) >> deq.prio & 1 == 1 {
                let (ecn, branch) = self.classify(key, deq.qlen, deq.ecn);
                out.mark_ecn = ecn;
                branch
            } else {
                Branch::Disabled
            };
            out.mark_state = self.entries[key].last_state;
            self.count(branch);
        }
    }
}

impl CycleModel for Tcd {
    type In = TcdIn;
    type Out = TcdOut;

    fn ports(&self) -> &PortSchema {
        &self.schema
    }

    fn reset(&mut self) {
        self.csr.reset();
        self.entries.fill(Entry::default());
        let c = &self.cfg;
        self.speeds = (0..c.speeds()).map(|s| c.speed(s)).collect();
        self.entry_speed = (0..self.entries.len())
            .map(|k| c.entry_speed_of(k))
            .collect();
        self.now = 0;
        self.rx_pfc = RxEvent::default();
        self.rx_credit = RxEvent::default();
        self.deq = DeqEvent::default();
        self.snap_pending = false;
        self.snap_reading = None;
        self.snap_taken = None;
        self.snap_held = None;
        self.marks.reset();
    }

    #[inline]
    fn step(&mut self, i: &TcdIn) -> TcdOut {
        let mut out = TcdOut::default();
        let mut err = 0;
        // The read sees the registers before this edge.
        self.csr.set(reg::NOW, self.now);
        self.csr.set(
            reg::ENTRY_STATUS,
            u64::from(
                self.snap_pending
                    || self.snap_reading.is_some()
                    || self.snap_taken.is_some()
                    || self.snap_held.is_some(),
            ),
        );
        self.show_windows();
        let rdata = self.csr.get(i.csr_addr as u32 & mask(CSR_ADDR_BITS) as u32);
        // The snapshot taken two edges ago reaches the status words on this one.
        if let Some(words) = self.snap_held.take() {
            for (r, w) in [
                reg::ENTRY_T_ON,
                reg::ENTRY_T_T,
                reg::ENTRY_Q_REC,
                reg::ENTRY_STATE,
            ]
            .into_iter()
            .zip(words)
            {
                self.csr.set(r, w);
            }
        }
        self.snap_held = self.snap_taken.take();
        // The snapshot of the previous edge's read shows the state before this edge's events.
        if let Some(index) = self.snap_reading.take() {
            self.snap_taken = Some(self.snapshot(index));
        }
        self.apply_events(&mut out, &mut err);
        self.marks.push(Mark {
            valid: out.mark_valid,
            port: out.mark_port,
            prio: out.mark_prio,
            ecn: out.mark_ecn,
            state: out.mark_state,
        });
        // This edge applied the events sampled at the last one: their marks are one edge old.
        let m = self.marks.tap(MARK_LATENCY - 1);
        (out.mark_valid, out.mark_port, out.mark_prio) = (m.valid, m.port, m.prio);
        (out.mark_ecn, out.mark_state) = (m.ecn, m.state);
        // The entry RAMs' read port is free when no dequeue comes in: a pending snapshot reads.
        if self.snap_pending && i.deq_valid == 0 {
            self.snap_pending = false;
            self.snap_reading = Some(self.csr.get(reg::ENTRY_INDEX));
        }
        self.csr.access(i.csr_we == 1, i.csr_addr, i.csr_wdata);
        if i.csr_we == 1 {
            self.write_window(i.csr_addr as u32);
        }
        if i.csr_we == 1 && i.csr_addr == u64::from(reg::ENTRY_INDEX) {
            self.snap_pending = true;
        }
        out.csr_rdata = rdata;
        // Hardware-set flags win over a write-1-to-clear on the same edge.
        self.csr.set(reg::ERR, self.csr.get(reg::ERR) | err);
        self.now += 1;
        self.rx_pfc = self.sample_rx(
            i.rx_pfc_valid,
            i.rx_pfc_port,
            i.rx_pfc_prio,
            i.rx_pfc_quanta != 0,
            i.rx_pfc_qlen,
        );
        self.rx_credit = self.sample_rx(
            i.rx_credit_valid,
            i.rx_credit_port,
            i.rx_credit_vl,
            i.rx_credit_ok == 0,
            i.rx_credit_qlen,
        );
        let key = self.key_of(i.deq_port, i.deq_prio);
        self.deq = DeqEvent {
            valid: i.deq_valid == 1 && key.is_some(),
            bad_index: i.deq_valid == 1 && key.is_none(),
            port: i.deq_port,
            prio: i.deq_prio,
            qlen: i.deq_qlen,
            ecn: i.deq_ecn,
        };
        out
    }
}

mod workload;
pub use workload::TcdWorkload;
