//! CaPFC: congestion-aware PFC. PFC's ingress logic, plus per-input arrival counters at every
//! egress queue, Stop-Max or Stop-Calibrate culprit detection (E bits), the combined decision
//! D = I or any E per (ingress, priority), and PFC's frame generator driven by D.
//!
//! Spec: ../shared/spec/mechanisms.md §0 (cycle model, saturation), §2 (state §2.2, ingress
//! §2.3, Algorithm 1 §2.4, Algorithm 2 §2.5, signalling and FSM §2.6, choices §2.9, corner cases
//! §2.10). The contract, with its latencies, is docs/blocks/capfc.md; this model is its
//! reference.
//!
//! Cycle semantics (one [`Capfc::step`] = one rising edge). Events sampled at edge n run
//! through a pipeline of stages, one edge each, so that every stage's logic starts from
//! registers (docs/blocks/capfc.md, "Pipeline"). Within a stage, events apply in this order,
//! each seeing the results of the previous ones:
//! * edge n + 1, the **occupancy stage**: ingress dequeue then enqueue, occupancy and I as PFC's
//!   logic decides them (`in_drop` at [`IN_DROP_LATENCY`], I changes at [`I_LATENCY`]); egress
//!   dequeue then enqueue on the egress occupancy B (`eg_drop`, an enqueue with B + len > MAX
//!   drops), and the threshold tests of the B they leave, against the thresholds of this edge:
//!   B <= WARN and B <= XON for the dequeue, B >= WARN and B >= XOFF for an accepted enqueue;
//! * edge n + 2, the **counter stage** ([`COUNT_LATENCY`]), from those tests:
//!   1. the dequeue: at WARN the counters of (o, p) reset; at WARN or XON its pending
//!      calibration request is dropped and a running one cancelled; at XON its E row is to clear;
//!   2. the calibration engine's step (below); a result under Stop-Calibrate is an E set;
//!   3. a read of a pending request's counters, issued at the previous edge, starts it (below);
//!   4. the enqueue: at WARN it counts in C[o][p][input] (not for input = o, the diagonal is not
//!      stored); at XOFF Stop-Max sets the E bit of the heaviest counter, Stop-Calibrate requests
//!      a calibration;
//! * the counter stage's E requests (the clear, the set) wait [`E_WAIT`] edges, all alike, so
//!   their order holds (the RTL picks Stop-Max's largest counter over those edges);
//! * edge n + 5, the **E stage** ([`E_LATENCY`]): the E row clear, then the E set, and the net
//!   set/clear messages of the edge (an E bit cleared and set again sends none);
//! * edge n + 6, the **D stage** ([`D_LATENCY`]): those messages update the per-(ingress,
//!   priority) count of set E bits; D = I or count != 0 (with I as it is on this edge), and
//!   every D that differs over the edge is marked for the frame generator;
//! * every edge first sends the frame of the edge and ticks the refresh timer, both from D as it
//!   was before the edge.
//!
//! Counters: `counter_bits` wide. An increment of a counter at its maximum either halves every
//! counter of that (o, p) first (`halve`, the default) or leaves it (`saturate`); both flag
//! `ERR` bit 3. Argmax ties and Stop-Calibrate ties go to the lowest ingress index; zero
//! counters are never flagged.
//!
//! Stop-Calibrate runs on one engine (the RTL's iterative select). A request captures the
//! counters of its (o, p); the next edge sums them (S); the edge after scales the sum
//! (`num * S`, spec §2.5's multi-cycle option); then each edge flags the largest remaining
//! nonzero counter and adds it to `cum`, until `den * cum >= num * S` or no nonzero counter is
//! left. The flags are the E set of the edge of the last selection: with m flagged counters
//! (m >= 1 selection edges, one empty edge when S = 0), E is set at edge n + 7 + max(m, 1) for
//! an egress enqueue sampled at edge n, so L_cal <= P + 6. A request starts the engine at once
//! only when the engine is idle and no other request waits; otherwise it is remembered per
//! (o, p). The engine has a read port of its own on the counters: every edge it
//! reads the row of the first waiting request at or after the one served last (round robin),
//! and that read starts it one edge later if the engine is idle then, whatever the buses carry.
//! So a request waits at most for the calibration running and one calibration of every other
//! waiting (o, p), each at most P + 2 edges (docs/blocks/capfc.md, "The calibration engine and
//! its latency"). The counters' other read port serves the egress enqueue in the occupancy
//! stage (dropped or not), then a pending CSR inspection.
//!
//! `csr_rdata` after edge n is register `csr_addr` as it was before edge n.

use crate::config::parse_toml;
use crate::pfc::{Event, FrameGen, Ingress, IngressEdge, Occupancy, PauseState, Thresholds};
use serde::{Deserialize, Serialize};
use switchcraft_core::csr::{Access, CsrFile, Reg, RegMap, CSR_ADDR_BITS, CSR_DATA_BITS};
use switchcraft_core::InputError;
use switchcraft_core::{index_bits, mask, ConfigError, CycleModel, DelayLine, Port, PortSchema};

/// Which egress reaction sets E bits (the reset value of the `policy` register).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// No E bits: D = I, plain PFC with counters kept for inspection.
    PfcOnly,
    /// Algorithm 1: the heaviest contributor, on every enqueue at or above XOFF.
    StopMax,
    /// Algorithm 2: the fewest largest contributors whose sum reaches CUT of the total.
    StopCalibrate,
}

impl Policy {
    pub fn code(self) -> u64 {
        match self {
            Policy::PfcOnly => 0,
            Policy::StopMax => 1,
            Policy::StopCalibrate => 2,
        }
    }
}

/// What an increment of a counter at its maximum does (spec §2.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Saturation {
    /// Halve every counter of the (o, p) first, keeping the ratios Stop-Calibrate needs.
    Halve,
    /// Leave the counter at its maximum.
    Saturate,
}

/// Static parameters of a CaPFC instance. Thresholds, policy, CUT, quanta and refresh are the
/// reset values of their CSRs; software may change them at run time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapfcConfig {
    /// Number of ports P (2..=64); every port is both an ingress and an egress.
    pub ports: u32,
    /// Priorities per port (1..=8).
    pub priorities: u32,
    /// Width of the occupancy counters and thresholds, in bits (8..=32).
    pub occupancy_bits: u32,
    /// Width of the length fields of the buses, in bits (1..=16, <= occupancy_bits).
    pub length_bits: u32,
    /// Width of the per-input arrival counters C (2..=16; the paper's 2 bytes is 16).
    pub counter_bits: u32,
    /// Ingress XOFF, XON and MAX in bytes (xon < xoff <= max).
    pub in_xoff: u64,
    pub in_xon: u64,
    pub in_max: u64,
    /// Egress thresholds in bytes: xon <= warn < xoff <= max.
    pub eg_xoff: u64,
    pub eg_xon: u64,
    pub eg_warn: u64,
    pub eg_max: u64,
    pub policy: Policy,
    /// CUT = cut_num / cut_den, in (0, 1] (each 1..=255).
    pub cut_num: u64,
    pub cut_den: u64,
    pub saturation: Saturation,
    /// Pause time carried by a PAUSE, in 802.1Qbb quanta (1..=65535).
    pub quanta: u64,
    /// Cycles between refresh ticks (ports..=65535).
    pub refresh: u64,
    /// The shared-memory variant (spec §2.7 [P]): missing, every egress queue has a buffer
    /// of its own of `eg_max` bytes (Table II's dedicated buffers).
    #[serde(default)]
    pub shared: Option<SharedMemory>,
}

/// The shared-memory switch of spec §2.7 [P]: each egress queue owns `dedicated` bytes, and
/// what it holds beyond them comes from a pool shared by all queues, with a cap per port and
/// one for the pool. A queue is still capped at `eg_max` (dedicated plus its most shared), and
/// CaPFC's thresholds still act on the queue's own occupancy. An egress enqueue is dropped
/// when it would pass the queue's, its port's or the pool's cap; an ingress enqueue when the
/// pool is full. The caps are the reset values of the `sh_port_cap` and `sh_pool_cap`
/// registers; `dedicated` is a constant, since the pool counters are kept against it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedMemory {
    /// Bytes each egress queue holds before it draws on the pool (the paper's 8 KB).
    pub dedicated: u64,
    /// The most pool bytes the queues of one egress port hold together (100 KB).
    pub port_cap: u64,
    /// The pool (350 KB).
    pub pool_cap: u64,
}

pub const PRESETS: &[&str] = &["tiny", "fpga", "paper"];

impl CapfcConfig {
    pub fn preset(name: &str) -> Option<CapfcConfig> {
        Some(match name {
            // Small thresholds and 6-bit counters, so random tests cross WARN/XOFF/XON every few
            // hundred cycles and saturate counters.
            "tiny" => CapfcConfig {
                ports: 4,
                priorities: 2,
                occupancy_bits: 16,
                length_bits: 11,
                counter_bits: 6,
                in_xoff: 4000,
                in_xon: 2500,
                in_max: 6000,
                eg_xoff: 3000,
                eg_xon: 2000,
                eg_warn: 2000,
                eg_max: 5000,
                policy: Policy::StopCalibrate,
                cut_num: 4,
                cut_den: 5,
                saturation: Saturation::Halve,
                quanta: 0xFFFF,
                refresh: 64,
                shared: None,
            },
            // Fills an iCE40 HX8K: Table II thresholds (ingress 60/50/40 KB, egress
            // 60/25/20/20 KB), CUT 80 %. Four ports: with the pipelined occupancies six no
            // longer fit the device (docs/blocks/capfc.md, "Synthesis").
            "fpga" => CapfcConfig {
                ports: 4,
                priorities: 2,
                occupancy_bits: 16,
                length_bits: 11,
                counter_bits: 16,
                in_xoff: 50_000,
                in_xon: 40_000,
                in_max: 60_000,
                eg_xoff: 25_000,
                eg_xon: 20_000,
                eg_warn: 20_000,
                eg_max: 60_000,
                policy: Policy::StopCalibrate,
                cut_num: 4,
                cut_den: 5,
                saturation: Saturation::Halve,
                quanta: 0xFFFF,
                refresh: 1024,
                shared: None,
            },
            // The paper's 48-port switch with 8 priorities and 16-bit counters (Table II).
            "paper" => CapfcConfig {
                ports: 48,
                priorities: 8,
                occupancy_bits: 24,
                length_bits: 14,
                counter_bits: 16,
                in_xoff: 50_000,
                in_xon: 40_000,
                in_max: 60_000,
                eg_xoff: 25_000,
                eg_xon: 20_000,
                eg_warn: 20_000,
                eg_max: 60_000,
                policy: Policy::StopCalibrate,
                cut_num: 4,
                cut_den: 5,
                saturation: Saturation::Halve,
                quanta: 0xFFFF,
                refresh: 4096,
                shared: None,
            },
            _ => return None,
        })
    }

    pub fn from_toml(text: &str, name: &str) -> Result<CapfcConfig, InputError> {
        let cfg: CapfcConfig = parse_toml(text, name)?;
        cfg.validate()
            .map_err(|e| InputError(format!("{name}: {e}")))?;
        Ok(cfg)
    }

    /// Checks every rule of the block; the error names the field, its value and the rule.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let range = crate::config::in_range;
        if self.ports < 2 {
            return Err(ConfigError::new(
                "ports",
                self.ports,
                "must be at least 2 (a congested egress needs another ingress to blame)",
            ));
        }
        range("ports", self.ports.into(), 2, 64)?;
        range("priorities", self.priorities.into(), 1, 8)?;
        range("occupancy_bits", self.occupancy_bits.into(), 8, 32)?;
        range("length_bits", self.length_bits.into(), 1, 16)?;
        if self.length_bits > self.occupancy_bits {
            return Err(ConfigError::new(
                "length_bits",
                self.length_bits,
                format!("must be <= occupancy_bits ({})", self.occupancy_bits),
            ));
        }
        range("counter_bits", self.counter_bits.into(), 2, 16)?;
        let limit = mask(self.occupancy_bits);
        for (field, v) in [
            ("in_max", self.in_max),
            ("in_xoff", self.in_xoff),
            ("in_xon", self.in_xon),
            ("eg_max", self.eg_max),
            ("eg_xoff", self.eg_xoff),
            ("eg_xon", self.eg_xon),
            ("eg_warn", self.eg_warn),
        ] {
            if v > limit {
                return Err(ConfigError::new(
                    field,
                    v,
                    format!(
                        "does not fit occupancy_bits = {} (at most {limit})",
                        self.occupancy_bits
                    ),
                ));
            }
        }
        let order = |field: &str, v: u64, rule: &str, other: &str, o: u64, ok: bool| {
            if ok {
                Ok(())
            } else {
                Err(ConfigError::new(
                    field,
                    v,
                    format!("must be {rule} {other} ({o})"),
                ))
            }
        };
        order(
            "in_xon",
            self.in_xon,
            "<",
            "in_xoff",
            self.in_xoff,
            self.in_xon < self.in_xoff,
        )?;
        order(
            "in_xoff",
            self.in_xoff,
            "<=",
            "in_max",
            self.in_max,
            self.in_xoff <= self.in_max,
        )?;
        order(
            "eg_xon",
            self.eg_xon,
            "<",
            "eg_xoff",
            self.eg_xoff,
            self.eg_xon < self.eg_xoff,
        )?;
        order(
            "eg_warn",
            self.eg_warn,
            ">=",
            "eg_xon",
            self.eg_xon,
            self.eg_warn >= self.eg_xon,
        )?;
        order(
            "eg_warn",
            self.eg_warn,
            "<",
            "eg_xoff",
            self.eg_xoff,
            self.eg_warn < self.eg_xoff,
        )?;
        order(
            "eg_xoff",
            self.eg_xoff,
            "<=",
            "eg_max",
            self.eg_max,
            self.eg_xoff <= self.eg_max,
        )?;
        if self.cut_den == 0 {
            return Err(ConfigError::new(
                "cut_den",
                0,
                "must not be 0 (CUT = cut_num / cut_den)",
            ));
        }
        range("cut_den", self.cut_den, 1, 255)?;
        if self.cut_num == 0 || self.cut_num > self.cut_den {
            return Err(ConfigError::new(
                "cut_num",
                self.cut_num,
                format!(
                    "CUT = cut_num / cut_den = {}/{} must be in (0, 1]",
                    self.cut_num, self.cut_den
                ),
            ));
        }
        range("quanta", self.quanta, 1, 0xFFFF)?;
        if let Some(sh) = &self.shared {
            if sh.dedicated > self.eg_max {
                return Err(ConfigError::new(
                    "shared.dedicated",
                    sh.dedicated,
                    format!(
                        "must be <= eg_max ({}), the queue's cap (dedicated plus its most shared)",
                        self.eg_max
                    ),
                ));
            }
            range("shared.pool_cap", sh.pool_cap, 1, mask(32))?;
            if sh.port_cap == 0 || sh.port_cap > sh.pool_cap {
                return Err(ConfigError::new(
                    "shared.port_cap",
                    sh.port_cap,
                    format!(
                        "must be in 1..=pool_cap ({}): a port cannot hold more of the pool than \
                         the pool",
                        sh.pool_cap
                    ),
                ));
            }
        }
        if self.refresh < self.ports.into() || self.refresh > 0xFFFF {
            return Err(ConfigError::new(
                "refresh",
                self.refresh,
                format!(
                    "must be in {}..=65535 (at least one cycle per port, so every paused port \
                     can be refreshed each period)",
                    self.ports
                ),
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

    /// Bits of counter storage: one counter per (egress, priority, ingress), diagonal excluded.
    pub fn counter_storage_bits(&self) -> u64 {
        u64::from(self.ports)
            * u64::from(self.ports - 1)
            * u64::from(self.priorities)
            * u64::from(self.counter_bits)
    }
}

/// Word indices of the CaPFC registers (see [`regmap`]).
pub mod reg {
    pub const ID: u32 = 0;
    pub const PARAMS: u32 = 1;
    pub const POLICY: u32 = 2;
    pub const CUT: u32 = 3;
    pub const IN_XOFF: u32 = 4;
    pub const IN_XON: u32 = 5;
    pub const IN_MAX: u32 = 6;
    pub const EG_XOFF: u32 = 7;
    pub const EG_XON: u32 = 8;
    pub const EG_WARN: u32 = 9;
    pub const EG_MAX: u32 = 10;
    pub const QUANTA: u32 = 11;
    pub const REFRESH: u32 = 12;
    pub const ERR: u32 = 13;
    pub const STATUS: u32 = 14;
    pub const INSPECT: u32 = 15;
    pub const INSPECT_COUNTER: u32 = 16;
    pub const INSPECT_E_LO: u32 = 17;
    pub const INSPECT_E_HI: u32 = 18;
    pub const INSPECT_STATE: u32 = 19;
    /// The shared-memory variant's registers (present only with `shared`).
    pub const SH_DEDICATED: u32 = 20;
    pub const SH_PORT_CAP: u32 = 21;
    pub const SH_POOL_CAP: u32 = 22;
    pub const SH_POOL_USED: u32 = 23;
}

/// `ERR` bit: an ingress dequeue was longer than the occupancy (clamped to 0).
pub const ERR_IN_UNDERFLOW: u64 = 1;
/// `ERR` bit: an egress dequeue was longer than the occupancy (clamped to 0).
pub const ERR_EG_UNDERFLOW: u64 = 2;
/// `ERR` bit: an event named a port, priority or input out of range (event ignored).
pub const ERR_INDEX: u64 = 4;
/// `ERR` bit: an arrival counter was at its maximum (halved or saturated).
pub const ERR_SATURATION: u64 = 8;

/// `POLICY` bit 2: saturate instead of halving.
pub const POLICY_SATURATE: u64 = 4;

/// ID word: ASCII "CAP" and version 1.
pub const ID_WORD: u64 = 0x4341_5001;

/// The CaPFC register map, declared once: RTL decode, model, docs table and C header use it.
pub fn regmap(cfg: &CapfcConfig) -> RegMap {
    let w = cfg.occupancy_bits;
    let params = u64::from(cfg.ports)
        | u64::from(cfg.priorities) << 8
        | u64::from(cfg.occupancy_bits) << 16
        | u64::from(cfg.length_bits) << 22
        | u64::from(cfg.counter_bits) << 27;
    let policy = cfg.policy.code()
        | match cfg.saturation {
            Saturation::Halve => 0,
            Saturation::Saturate => POLICY_SATURATE,
        };
    let r = |name, index, width, access, reset, doc| Reg {
        name,
        index,
        width,
        access,
        reset,
        doc,
    };
    use Access::{Const, Ro, Rw, Rw1c};
    let mut regs = vec![
        r(
            "id",
            reg::ID,
            32,
            Const,
            ID_WORD,
            "block ID \"CAP\" and version 1",
        ),
        r(
            "params",
            reg::PARAMS,
            32,
            Const,
            params,
            "ports [7:0], priorities [15:8], occupancy_bits [21:16], length_bits [26:22], \
                 counter_bits [31:27]",
        ),
        r(
            "policy",
            reg::POLICY,
            3,
            Rw,
            policy,
            "[1:0] 0 PFC only, 1 Stop-Max, 2 Stop-Calibrate (3 acts as 0); [2] counters \
                 saturate instead of halving",
        ),
        r(
            "cut",
            reg::CUT,
            16,
            Rw,
            cfg.cut_num | cfg.cut_den << 8,
            "CUT = num [7:0] / den [15:8]: Stop-Calibrate stops when den * cum >= num * S",
        ),
        r(
            "in_xoff",
            reg::IN_XOFF,
            w,
            Rw,
            cfg.in_xoff,
            "ingress occupancy >= IN_XOFF sets I",
        ),
        r(
            "in_xon",
            reg::IN_XON,
            w,
            Rw,
            cfg.in_xon,
            "ingress occupancy <= IN_XON clears I",
        ),
        r(
            "in_max",
            reg::IN_MAX,
            w,
            Rw,
            cfg.in_max,
            "an ingress enqueue that would exceed IN_MAX is dropped",
        ),
        r(
            "eg_xoff",
            reg::EG_XOFF,
            w,
            Rw,
            cfg.eg_xoff,
            "an egress enqueue reaching EG_XOFF looks for culprits",
        ),
        r(
            "eg_xon",
            reg::EG_XON,
            w,
            Rw,
            cfg.eg_xon,
            "an egress dequeue reaching EG_XON clears the E bits",
        ),
        r(
            "eg_warn",
            reg::EG_WARN,
            w,
            Rw,
            cfg.eg_warn,
            "arrivals count at or above EG_WARN; a dequeue to EG_WARN resets the counters",
        ),
        r(
            "eg_max",
            reg::EG_MAX,
            w,
            Rw,
            cfg.eg_max,
            "an egress enqueue that would exceed EG_MAX is dropped",
        ),
        r(
            "quanta",
            reg::QUANTA,
            16,
            Rw,
            cfg.quanta,
            "pause time of a PAUSE, 512-bit-time quanta",
        ),
        r(
            "refresh",
            reg::REFRESH,
            16,
            Rw,
            cfg.refresh,
            "cycles between refresh ticks (0 acts as 1)",
        ),
        r(
            "err",
            reg::ERR,
            4,
            Rw1c,
            0,
            "sticky: bit 0 ingress underflow, bit 1 egress underflow (clamped), bit 2 event \
                 index out of range, bit 3 counter at its maximum (halved or saturated)",
        ),
        r(
            "status",
            reg::STATUS,
            2,
            Ro,
            0,
            "bit 0 the inspection snapshot waits for a cycle without an egress enqueue; \
                 bit 1 the calibration engine is busy",
        ),
        r(
            "inspect",
            reg::INSPECT,
            22,
            Rw,
            0,
            "port [5:0], priority [10:8], input [21:16] to inspect; a write takes a counter \
                 snapshot",
        ),
        r(
            "inspect_counter",
            reg::INSPECT_COUNTER,
            16,
            Ro,
            0,
            "snapshot: C[port][priority][input] (0 for input = port)",
        ),
        r(
            "inspect_e_lo",
            reg::INSPECT_E_LO,
            32,
            Ro,
            0,
            "E bits of egress (port, priority), inputs 31..0",
        ),
        r(
            "inspect_e_hi",
            reg::INSPECT_E_HI,
            32,
            Ro,
            0,
            "E bits of egress (port, priority), inputs 63..32",
        ),
        r(
            "inspect_state",
            reg::INSPECT_STATE,
            16,
            Ro,
            0,
            "ingress (port, priority): [0] I, [1] D, [15:8] number of egresses with its E \
                 bit set",
        ),
    ];
    if let Some(sh) = &cfg.shared {
        regs.extend([
            r(
                "sh_dedicated",
                reg::SH_DEDICATED,
                w,
                Const,
                sh.dedicated,
                "shared memory: bytes each egress queue holds before it draws on the pool (fixed: \
                 the pool counters are kept against it)",
            ),
            r(
                "sh_port_cap",
                reg::SH_PORT_CAP,
                32,
                Rw,
                sh.port_cap,
                "shared memory: most pool bytes the queues of one egress port hold",
            ),
            r(
                "sh_pool_cap",
                reg::SH_POOL_CAP,
                32,
                Rw,
                sh.pool_cap,
                "shared memory: pool bytes; an ingress enqueue is dropped while the pool holds \
                 this many",
            ),
            r(
                "sh_pool_used",
                reg::SH_POOL_USED,
                32,
                Ro,
                0,
                "shared memory: pool bytes the egress queues hold",
            ),
        ]);
    }
    RegMap::new("capfc", regs)
}

/// Edges from an ingress event to its `in_drop` and underflow flag, and to its I change: PFC's
/// ingress logic, the same pipeline as PFC's (its occupancy stages, then the XOFF/XON decision).
pub const IN_DROP_LATENCY: u32 = crate::pfc::DROP_LATENCY;
pub const I_LATENCY: u32 = crate::pfc::REQUEST_LATENCY;
/// Edges from an egress event to its `eg_drop` and underflow flag (the occupancy stage).
pub const EG_DROP_LATENCY: u32 = 1;
/// Edges from an egress event to the counter stage's results: its counter update (and `ERR`
/// bit 3), a WARN reset, a calibration request or capture.
pub const COUNT_LATENCY: u32 = 2;
/// Edges from an egress event to the E bits it sets (Stop-Max) or clears (XON), and their
/// messages: the counter stage's requests wait [`E_WAIT`] edges, then the E stage takes them.
pub const E_LATENCY: u32 = COUNT_LATENCY + E_WAIT + 1;
/// Edges the counter stage's E requests wait before the E stage: the RTL's Stop-Max selection
/// compares the lanes of the counted row in the edge after the count and picks the largest in
/// the next (docs/blocks/capfc.md, "Hardware structure"); clears and calibration results wait
/// as long, so every request keeps its order.
pub const E_WAIT: u32 = 2;
/// Edges from an egress event to the E counts and D it moves (one edge after its E bits).
pub const D_LATENCY: u32 = E_LATENCY + 1;

/// Pipeline latency per output bus under the config's policy (the `policy` register's reset
/// value; software that switches it gets the new policy's). Stop-Max sets E at [`E_LATENCY`];
/// Stop-Calibrate at L_cal = E_LATENCY + 2 + max(m, 1) edges for m flagged counters, at least
/// `E_LATENCY + 3`. The earliest frame follows an ingress event's I change by one edge (a frame
/// already granted states it); the frame the change causes comes one edge later, after the
/// round robin grants its port (an egress event's at `D_LATENCY + 2`). Plain PFC sets and
/// clears no E bits.
fn output_latencies(policy: Policy) -> Vec<(&'static str, u32)> {
    let mut buses = vec![
        ("in", IN_DROP_LATENCY),
        ("eg", EG_DROP_LATENCY),
        ("csr", 0),
        ("frame", I_LATENCY + 1),
    ];
    match policy {
        Policy::PfcOnly => {}
        Policy::StopMax => buses.extend([("eset", E_LATENCY), ("eclr", E_LATENCY)]),
        Policy::StopCalibrate => buses.extend([("eset", E_LATENCY + 3), ("eclr", E_LATENCY)]),
    }
    buses
}

/// The ports of `capfc_top` for `cfg` (clock `clk` and synchronous reset `rst` are implicit).
pub fn port_schema(cfg: &CapfcConfig) -> PortSchema {
    let (pb, nb, lb, p) = (cfg.port_bits(), cfg.prio_bits(), cfg.length_bits, cfg.ports);
    PortSchema::new(
        "capfc",
        vec![
            Port::input("in_enq_valid", 1, "an arrival at an ingress buffer"),
            Port::input("in_enq_port", pb, "its ingress port"),
            Port::input("in_enq_prio", nb, "its priority"),
            Port::input("in_enq_len", lb, "its length in bytes"),
            Port::input("in_deq_valid", 1, "a packet leaves an ingress buffer"),
            Port::input("in_deq_port", pb, "its ingress port"),
            Port::input("in_deq_prio", nb, "its priority"),
            Port::input("in_deq_len", lb, "its length in bytes"),
            Port::input("eg_enq_valid", 1, "an arrival at an egress queue"),
            Port::input("eg_enq_port", pb, "its egress port"),
            Port::input("eg_enq_prio", nb, "its priority"),
            Port::input("eg_enq_input", pb, "the ingress port it came from"),
            Port::input("eg_enq_len", lb, "its length in bytes"),
            Port::input("eg_deq_valid", 1, "a packet leaves an egress queue"),
            Port::input("eg_deq_port", pb, "its egress port"),
            Port::input("eg_deq_prio", nb, "its priority"),
            Port::input("eg_deq_len", lb, "its length in bytes"),
            Port::input("csr_we", 1, "CSR write strobe"),
            Port::input("csr_addr", CSR_ADDR_BITS, "CSR word index"),
            Port::input("csr_wdata", CSR_DATA_BITS, "CSR write data"),
            Port::output(
                "in_drop",
                1,
                "an ingress enqueue would exceed IN_MAX: dropped",
            ),
            Port::output(
                "eg_drop",
                1,
                "an egress enqueue would exceed EG_MAX: dropped",
            ),
            Port::output(
                "eset_valid",
                1,
                "E bits of one egress (port, priority) were set",
            ),
            Port::output("eset_port", pb, "its egress port (0 when not valid)"),
            Port::output("eset_prio", nb, "its priority (0 when not valid)"),
            Port::output("eset_mask", p, "the ingress ports whose E bit was set"),
            Port::output(
                "eclr_valid",
                1,
                "E bits of one egress (port, priority) were cleared",
            ),
            Port::output("eclr_port", pb, "its egress port (0 when not valid)"),
            Port::output("eclr_prio", nb, "its priority (0 when not valid)"),
            Port::output("eclr_mask", p, "the ingress ports whose E bit was cleared"),
            Port::output("frame_valid", 1, "send an 802.1Qbb PFC frame"),
            Port::output("frame_port", pb, "on this ingress port"),
            Port::output("frame_class_enable", 8, "class-enable vector of the frame"),
            Port::output(
                "frame_pause",
                8,
                "enabled classes whose time is QUANTA (others: 0 = RESUME)",
            ),
            Port::output("frame_quanta", 16, "the pause time of the paused classes"),
            Port::output("csr_rdata", CSR_DATA_BITS, "CSR read data"),
        ],
    )
    .with_latencies(&output_latencies(cfg.policy))
}

port_bundle!(
    /// Inputs of one edge.
    CapfcIn {
        in_enq_valid, in_enq_port, in_enq_prio, in_enq_len,
        in_deq_valid, in_deq_port, in_deq_prio, in_deq_len,
        eg_enq_valid, eg_enq_port, eg_enq_prio, eg_enq_input, eg_enq_len,
        eg_deq_valid, eg_deq_port, eg_deq_prio, eg_deq_len,
        csr_we, csr_addr, csr_wdata,
    }
);

port_bundle!(
    /// Registered outputs after one edge.
    CapfcOut {
        in_drop, eg_drop,
        eset_valid, eset_port, eset_prio, eset_mask,
        eclr_valid, eclr_port, eclr_prio, eclr_mask,
        frame_valid, frame_port, frame_class_enable, frame_pause, frame_quanta,
        csr_rdata,
    }
);

/// Who uses the counter RAM's read port in a cycle (chosen at the edge before).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RowRead {
    Idle,
    /// The egress enqueue of the input stage.
    Enqueue,
    /// The inspection snapshot of counter `(key, input)`.
    Inspect {
        key: Option<usize>,
        input: usize,
    },
}

/// The occupancy stage's results for the counter stage: the threshold tests of the occupancy
/// its egress events left (the register between the two stages).
#[derive(Clone, Copy, Debug, Default)]
struct Occupied {
    /// The dequeue's key, and whether it left B <= WARN and B <= XON.
    deq_key: usize,
    deq_warn: bool,
    deq_xon: bool,
    /// The enqueue's key and input, whether it was accepted with B >= WARN and with B >= XOFF.
    enq_key: usize,
    enq_input: usize,
    enq_warn: bool,
    enq_xoff: bool,
}

/// The counter stage's E row changes for the E stage: a clear (XON), then at most one set
/// (Stop-Max or a calibration result, never both: each needs its own policy).
#[derive(Clone, Copy, Debug, Default)]
struct ERequests {
    clear: Option<usize>,
    set: Option<(usize, u64)>,
}

/// The E stage's net messages for the D stage: (egress key, ingress ports).
#[derive(Clone, Copy, Debug, Default)]
struct EMessages {
    set: Option<(usize, u64)>,
    clear: Option<(usize, u64)>,
}

/// A calibration in progress.
#[derive(Clone, Debug)]
struct Calibration {
    key: usize,
    /// The captured counters, by ingress port.
    counts: Vec<u64>,
    /// None until the edge after the capture has summed the counters.
    total: Option<u64>,
    /// The edge after the sum scales it (`num * S`); the engine flags from the next edge on.
    scaled: bool,
    cum: u64,
    flagged: u64,
    /// A WARN reset or an XON of `key` since the capture: the result is dropped.
    cancelled: bool,
    /// CUT as it was at the capture: a write during the calibration applies to the next one.
    cut: u64,
}

/// Adds `key` to the ingress keys whose D may change on this edge.
fn touch(d_touched: &mut Vec<usize>, key: usize) {
    if !d_touched.contains(&key) {
        d_touched.push(key);
    }
}

pub struct Capfc {
    cfg: CapfcConfig,
    schema: PortSchema,
    csr: CsrFile,
    ingress: Ingress,
    /// Each edge's ingress results, until the occupancy stage reports them (`in_drop`, the
    /// underflow flag) and the decision stage turns them into I changes. This model's input
    /// stage is the first edge of each latency.
    ingress_results: DelayLine<IngressEdge>,
    /// I per ingress port, bit = priority, as the decision stage has set it.
    i: PauseState,
    egress: Occupancy,
    /// The shared-memory variant: pool bytes held by each egress port's queues, and by all.
    pool_port: Vec<u64>,
    pool_used: u64,
    frames: FrameGen,
    /// C per egress key (port * priorities + priority), by ingress port (the diagonal stays 0).
    counts: Vec<Vec<u64>>,
    /// E per egress key, bit = ingress port.
    e: Vec<u64>,
    /// Per ingress key: number of egress ports with its E bit set.
    e_count: Vec<u64>,
    /// D per ingress port, bit = priority (the state the frame generator follows).
    d: Vec<u8>,
    /// Calibration requests waiting for the engine, per egress key, and how many there are.
    pending: Vec<bool>,
    pending_count: usize,
    /// Ingress keys whose D may change on this edge (kept to reuse its allocation).
    d_touched: Vec<usize>,
    /// Round robin over pending requests: the key after the one served last.
    rr_next: usize,
    engine: Option<Calibration>,
    /// The registers between the stages (see the module doc).
    occupied: Occupied,
    /// The counter stage's requests of the last [`E_WAIT`] + 1 edges.
    e_requests: DelayLine<ERequests>,
    e_messages: EMessages,
    /// The events sampled at the previous edge (the RTL's input stage).
    in_enq: Event,
    in_deq: Event,
    eg_enq: Event,
    eg_enq_input: usize,
    eg_deq: Event,
    row_read: RowRead,
    /// The engine's own read port: the row of the pending request it reads at this edge.
    serve_read: Option<usize>,
    /// A written `inspect` waiting for a cycle without an egress enqueue input.
    snap_pending: bool,
}

impl Capfc {
    pub fn new(cfg: &CapfcConfig) -> Result<Capfc, ConfigError> {
        cfg.validate()?;
        let keys = (cfg.ports * cfg.priorities) as usize;
        let mut m = Capfc {
            cfg: cfg.clone(),
            schema: port_schema(cfg),
            csr: CsrFile::new(&regmap(cfg)),
            ingress: Ingress::new(cfg.ports, cfg.priorities),
            ingress_results: DelayLine::new(),
            i: PauseState::new(cfg.ports),
            egress: Occupancy::new(cfg.ports, cfg.priorities),
            pool_port: vec![0; cfg.ports as usize],
            pool_used: 0,
            frames: FrameGen::new(cfg.ports, cfg.priorities),
            counts: vec![vec![0; cfg.ports as usize]; keys],
            e: vec![0; keys],
            e_count: vec![0; keys],
            d: vec![0; cfg.ports as usize],
            pending: vec![false; keys],
            pending_count: 0,
            d_touched: Vec::with_capacity(2 + 2 * cfg.ports as usize),
            rr_next: 0,
            engine: None,
            occupied: Occupied::default(),
            e_requests: DelayLine::new(),
            e_messages: EMessages::default(),
            in_enq: Event::default(),
            in_deq: Event::default(),
            eg_enq: Event::default(),
            eg_enq_input: 0,
            eg_deq: Event::default(),
            row_read: RowRead::Idle,
            serve_read: None,
            snap_pending: false,
        };
        CycleModel::reset(&mut m);
        Ok(m)
    }

    pub fn config(&self) -> &CapfcConfig {
        &self.cfg
    }

    /// Register `index` as software would read it now.
    pub fn csr(&self, index: u32) -> u64 {
        self.csr.get(index)
    }

    fn prios(&self) -> usize {
        self.cfg.priorities as usize
    }

    fn key(&self, port: usize, prio: usize) -> usize {
        port * self.prios() + prio
    }

    pub fn ingress_occupancy(&self, port: usize, prio: usize) -> u64 {
        self.ingress.occupancy(port, prio)
    }

    pub fn egress_occupancy(&self, port: usize, prio: usize) -> u64 {
        self.egress.get(port, prio)
    }

    /// Shared memory: the pool bytes egress port `port`'s queues hold.
    pub fn pool_port(&self, port: usize) -> u64 {
        self.pool_port[port]
    }

    /// C[egress][prio][input].
    pub fn counter(&self, egress: usize, prio: usize, input: usize) -> u64 {
        self.counts[self.key(egress, prio)][input]
    }

    /// E bits of (egress, prio), bit = ingress port.
    pub fn e_bits(&self, egress: usize, prio: usize) -> u64 {
        self.e[self.key(egress, prio)]
    }

    pub fn is_i(&self, port: usize, prio: usize) -> bool {
        self.i.get(port, prio)
    }

    /// D = I or any E, of ingress (port, prio).
    pub fn is_d(&self, port: usize, prio: usize) -> bool {
        self.is_i(port, prio) || self.e_count[self.key(port, prio)] != 0
    }

    pub fn calibrating(&self) -> bool {
        self.engine.is_some()
    }

    fn policy(&self) -> u64 {
        self.csr.get(reg::POLICY) & 3
    }

    /// Counts an arrival from `input` at egress key `key` (spec §2.4 line 8, §2.10).
    fn count(&mut self, key: usize, input: usize, err: &mut u64) {
        let top = mask(self.cfg.counter_bits);
        let saturate = self.csr.get(reg::POLICY) & POLICY_SATURATE != 0;
        let row = &mut self.counts[key];
        if row[input] == top {
            *err |= ERR_SATURATION;
            if saturate {
                return;
            }
            for c in row.iter_mut() {
                *c >>= 1;
            }
        }
        row[input] += 1;
    }

    /// The heaviest contributor of `row`, lowest index on ties; None when every counter is 0.
    fn argmax(row: &[u64], exclude: u64) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, &c) in row.iter().enumerate() {
            if c == 0 || exclude >> i & 1 == 1 {
                continue;
            }
            if best.is_none_or(|b| c > row[b]) {
                best = Some(i);
            }
        }
        best
    }

    /// Starts a calibration of `key` from its current counters.
    fn capture(&mut self, key: usize) {
        self.engine = Some(Calibration {
            key,
            counts: self.counts[key].clone(),
            total: None,
            scaled: false,
            cum: 0,
            flagged: 0,
            cancelled: false,
            cut: self.csr.get(reg::CUT),
        });
        self.set_pending(key, false);
    }

    fn set_pending(&mut self, key: usize, on: bool) {
        if self.pending[key] != on {
            self.pending[key] = on;
            self.pending_count = if on {
                self.pending_count + 1
            } else {
                self.pending_count - 1
            };
        }
    }

    fn touch_d(&mut self, key: usize) {
        touch(&mut self.d_touched, key);
    }

    /// One edge of the calibration engine; returns (key, flags) when it finishes.
    fn calibrate_step(&mut self) -> Option<(usize, u64)> {
        let cal = self.engine.as_mut()?;
        let (num, den) = (cal.cut & 0xFF, cal.cut >> 8 & 0xFF);
        let Some(total) = cal.total else {
            cal.total = Some(cal.counts.iter().sum());
            return None;
        };
        if !cal.scaled {
            cal.scaled = true;
            return None;
        }
        let mut done = true;
        if let Some(i) = Self::argmax(&cal.counts, cal.flagged) {
            cal.flagged |= 1 << i;
            cal.cum += cal.counts[i];
            let left = Self::argmax(&cal.counts, cal.flagged).is_some();
            done = den * cal.cum >= num * total || !left;
        }
        if !done {
            return None;
        }
        let cal = self.engine.take().expect("engine is running");
        (!cal.cancelled).then_some((cal.key, cal.flagged))
    }

    /// The occupancy stage: the egress events of the input stage on B, and the threshold tests
    /// of the B they leave.
    fn occupancy_stage(&mut self, out: &mut CapfcOut, err: &mut u64) -> Occupied {
        let (deq, enq) = (self.eg_deq, self.eg_enq);
        if deq.bad_index || enq.bad_index {
            *err |= ERR_INDEX;
        }
        let mut occupied = Occupied::default();
        // Shared memory: the room left for the enqueue's port, from the pool counters as the
        // last edge left them (a departure's bytes are free from the next edge on).
        let shared = self.cfg.shared.is_some();
        let dedicated = self.csr.get(reg::SH_DEDICATED);
        let pool_part = |b: u64| b.saturating_sub(dedicated);
        let room = if shared && enq.valid {
            let port_room = self
                .csr
                .get(reg::SH_PORT_CAP)
                .saturating_sub(self.pool_port[enq.port]);
            port_room.min(
                self.csr
                    .get(reg::SH_POOL_CAP)
                    .saturating_sub(self.pool_used),
            )
        } else {
            u64::MAX
        };
        if deq.valid {
            let before = self.egress.get(deq.port, deq.prio);
            let (b, underflow) = self.egress.dequeue(deq.port, deq.prio, deq.len);
            if shared {
                let freed = pool_part(before) - pool_part(b);
                self.pool_port[deq.port] -= freed;
                self.pool_used -= freed;
            }
            *err |= u64::from(underflow) * ERR_EG_UNDERFLOW;
            occupied.deq_key = self.key(deq.port, deq.prio);
            occupied.deq_warn = b <= self.csr.get(reg::EG_WARN);
            occupied.deq_xon = b <= self.csr.get(reg::EG_XON);
        }
        if enq.valid {
            let before = self.egress.get(enq.port, enq.prio);
            let drawn = pool_part(before + enq.len) - pool_part(before);
            // Over the port's or the pool's room, the enqueue is dropped as over eg_max is.
            let (b, drop) = if drawn > room {
                (before, true)
            } else {
                let max = self.csr.get(reg::EG_MAX);
                self.egress.enqueue(enq.port, enq.prio, enq.len, max)
            };
            if shared && !drop {
                self.pool_port[enq.port] += drawn;
                self.pool_used += drawn;
            }
            out.eg_drop = drop.into();
            occupied.enq_key = self.key(enq.port, enq.prio);
            occupied.enq_input = self.eg_enq_input;
            occupied.enq_warn = !drop && b >= self.csr.get(reg::EG_WARN);
            occupied.enq_xoff = !drop && b >= self.csr.get(reg::EG_XOFF);
        }
        occupied
    }

    /// The counter stage: WARN resets and XON clears, the engine's step, counting and the
    /// policy at XOFF, a served request; returns the E row changes.
    fn counter_stage(
        &mut self,
        occupied: Occupied,
        serve_read: Option<usize>,
        engine_idle: bool,
        err: &mut u64,
    ) -> ERequests {
        let mut requests = ERequests::default();
        // 1. The dequeue. Either threshold ends the episode a calibration of (o, p) was asked
        // for: its request is dropped and a running one is cancelled. (With XON <= WARN, as the
        // config check demands, XON implies WARN; the CSRs may still be written otherwise.)
        let key = occupied.deq_key;
        if occupied.deq_warn || occupied.deq_xon {
            self.set_pending(key, false);
            if let Some(cal) = self.engine.as_mut().filter(|c| c.key == key) {
                cal.cancelled = true;
            }
        }
        if occupied.deq_warn {
            self.counts[key].fill(0);
        }
        if occupied.deq_xon {
            requests.clear = Some(key);
        }

        // 2. The calibration engine; its result stands only under Stop-Calibrate.
        if let Some((key, flags)) = self.calibrate_step() {
            if self.policy() == Policy::StopCalibrate.code() {
                requests.set = Some((key, flags));
            }
        }

        // 3. A pending request's row was read at the last edge: start it if the engine is free.
        // The row is as the last edge left it: this cycle's count below comes after.
        let mut served = false;
        if let Some(key) = serve_read {
            if engine_idle && self.pending[key] {
                self.capture(key);
                self.rr_next = (key + 1) % self.pending.len();
                served = true;
            }
        }

        // 4. The enqueue: count at WARN, look for culprits at XOFF. Stop-Calibrate starts at
        // once only on an idle engine with no request waiting, so waiting requests are served
        // in turn and none waits behind a busier queue's repeated requests.
        let key = occupied.enq_key;
        if occupied.enq_warn && occupied.enq_input != key / self.prios() {
            self.count(key, occupied.enq_input, err);
        }
        if occupied.enq_xoff {
            match self.policy() {
                1 => {
                    if let Some(culprit) = Self::argmax(&self.counts[key], 0) {
                        requests.set = Some((key, 1 << culprit));
                    }
                }
                2 if engine_idle && !served && self.pending_count == 0 => self.capture(key),
                2 => self.set_pending(key, true),
                _ => {}
            }
        }
        requests
    }

    /// The E stage: the clear, then the set; returns the net messages (also the outputs).
    fn e_stage(&mut self, requests: ERequests, out: &mut CapfcOut) -> EMessages {
        let clear_row = requests.clear.map(|k| (k, self.e[k]));
        let set_row = requests
            .set
            .filter(|&(k, _)| requests.clear != Some(k))
            .map(|(k, _)| (k, self.e[k]));
        if let Some(k) = requests.clear {
            self.e[k] = 0;
        }
        if let Some((k, bits)) = requests.set {
            self.e[k] |= bits;
        }
        let mut messages = EMessages::default();
        let n = self.prios() as u64;
        for (key, old) in [clear_row, set_row].into_iter().flatten() {
            let new = self.e[key];
            let (port, prio) = (key as u64 / n, key as u64 % n);
            let (set, clr) = (new & !old, old & !new);
            if set != 0 {
                messages.set = Some((key, set));
                (out.eset_valid, out.eset_port, out.eset_prio, out.eset_mask) =
                    (1, port, prio, set);
            }
            if clr != 0 {
                messages.clear = Some((key, clr));
                (out.eclr_valid, out.eclr_port, out.eclr_prio, out.eclr_mask) =
                    (1, port, prio, clr);
            }
        }
        messages
    }

    /// The D stage: the E counts per ingress key follow the E stage's messages.
    fn d_stage(&mut self, messages: EMessages) {
        let n = self.prios();
        for (message, up) in [(messages.set, true), (messages.clear, false)] {
            let Some((key, inputs)) = message else {
                continue;
            };
            for input in 0..self.cfg.ports as usize {
                if inputs >> input & 1 == 1 {
                    let ik = input * n + key % n;
                    if up {
                        self.e_count[ik] += 1;
                    } else {
                        self.e_count[ik] -= 1;
                    }
                    self.touch_d(ik);
                }
            }
        }
    }

    fn sample(&self, valid: u64, port: u64, prio: u64, len: u64) -> Event {
        Event::sample(valid, port, prio, len, self.cfg.ports, self.cfg.priorities)
    }

    /// The first pending request at or after the round-robin pointer.
    fn pending_pick(&self) -> Option<usize> {
        if self.pending_count == 0 {
            return None;
        }
        let n = self.pending.len();
        (0..n)
            .map(|k| (self.rr_next + k) % n)
            .find(|&k| self.pending[k])
    }

    fn inspect_fields(&self) -> (Option<usize>, usize, usize, usize) {
        let v = self.csr.get(reg::INSPECT);
        let (port, prio, input) = (
            (v & 0x3F) as usize,
            (v >> 8 & 7) as usize,
            (v >> 16) as usize,
        );
        let ok = port < self.cfg.ports as usize && prio < self.prios();
        (ok.then(|| self.key(port, prio)), port, prio, input)
    }

    /// The directly readable inspection registers, from the state before the next edge.
    fn update_inspect_regs(&mut self) {
        let (key, _, _, _) = self.inspect_fields();
        let (e, state) = match key {
            None => (0, 0),
            Some(k) => {
                let (port, prio) = (k / self.prios(), k % self.prios());
                let i = u64::from(self.is_i(port, prio));
                let d = u64::from(self.is_d(port, prio));
                (self.e[k], i | d << 1 | self.e_count[k] << 8)
            }
        };
        self.csr.set(reg::INSPECT_E_LO, e & 0xFFFF_FFFF);
        self.csr.set(reg::INSPECT_E_HI, e >> 32);
        self.csr.set(reg::INSPECT_STATE, state);
        let busy = u64::from(self.snap_pending || matches!(self.row_read, RowRead::Inspect { .. }))
            | u64::from(self.engine.is_some()) << 1;
        self.csr.set(reg::STATUS, busy);
        if self.cfg.shared.is_some() {
            self.csr.set(reg::SH_POOL_USED, self.pool_used);
        }
    }
}

impl CycleModel for Capfc {
    type In = CapfcIn;
    type Out = CapfcOut;

    fn ports(&self) -> &PortSchema {
        &self.schema
    }

    fn reset(&mut self) {
        self.csr.reset();
        self.ingress.reset();
        self.ingress_results.reset();
        self.i.reset();
        self.egress.reset();
        self.pool_port.fill(0);
        self.pool_used = 0;
        self.frames.reset();
        for row in &mut self.counts {
            row.fill(0);
        }
        self.e.fill(0);
        self.e_count.fill(0);
        self.d.fill(0);
        self.pending.fill(false);
        self.pending_count = 0;
        self.rr_next = 0;
        self.engine = None;
        self.occupied = Occupied::default();
        self.e_requests.reset();
        self.e_messages = EMessages::default();
        self.in_enq = Event::default();
        self.in_deq = Event::default();
        self.eg_enq = Event::default();
        self.eg_enq_input = 0;
        self.eg_deq = Event::default();
        self.row_read = RowRead::Idle;
        self.serve_read = None;
        self.snap_pending = false;
        self.update_inspect_regs();
    }

    #[inline]
    fn step(&mut self, i: &CapfcIn) -> CapfcOut {
        let mut out = CapfcOut::default();
        let mut err = 0;
        let n = self.prios();
        let rdata = self.csr.get(i.csr_addr as u32 & mask(CSR_ADDR_BITS) as u32);
        let engine_idle = self.engine.is_none();
        let serve_pick = self.pending_pick();
        self.d_touched.clear();

        // An inspection read issued at the previous edge shows the counters before this edge.
        let row_read = std::mem::replace(&mut self.row_read, RowRead::Idle);
        if let RowRead::Inspect { key, input } = row_read {
            let c = key.map_or(0, |k| self.counts[k].get(input).copied().unwrap_or(0));
            self.csr.set(reg::INSPECT_COUNTER, c);
        }

        // Frames and refresh, from D before the edge.
        if let Some(f) = self.frames.send(&self.d) {
            out.frame_valid = 1;
            out.frame_port = f.port as u64;
            out.frame_class_enable = f.class_enable.into();
            out.frame_pause = f.pause.into();
            out.frame_quanta = self.csr.get(reg::QUANTA);
        }
        self.frames.tick(&self.d, self.csr.get(reg::REFRESH));

        // Ingress: PFC's logic, its occupancy in the occupancy stage.
        // Shared memory: while the pool is full no ingress enqueue is admitted (a max of 0).
        let pool_full =
            self.cfg.shared.is_some() && self.pool_used >= self.csr.get(reg::SH_POOL_CAP);
        let thr = Thresholds {
            xoff: self.csr.get(reg::IN_XOFF),
            xon: self.csr.get(reg::IN_XON),
            max: if pool_full {
                0
            } else {
                self.csr.get(reg::IN_MAX)
            },
        };
        let edge = self.ingress.apply(self.in_deq, self.in_enq, thr);
        err |= u64::from(edge.bad_index) * ERR_INDEX;
        self.ingress_results.push(edge);
        let in_occupied = self.ingress_results.tap(IN_DROP_LATENCY - 1);
        out.in_drop = in_occupied.drop.into();
        err |= u64::from(in_occupied.underflow) * ERR_IN_UNDERFLOW;
        let decided = self.ingress_results.tap(I_LATENCY - 1);
        let d_touched = &mut self.d_touched;
        self.i
            .follow(&decided, |port, prio| touch(d_touched, port * n + prio));

        // The stages, last first: each takes what the stage before it registered at the
        // previous edge.
        let messages = std::mem::take(&mut self.e_messages);
        self.d_stage(messages);
        let requests = self.e_requests.tap(E_WAIT);
        self.e_messages = self.e_stage(requests, &mut out);
        let occupied = self.occupied;
        let serve_read = self.serve_read.take();
        let requests = self.counter_stage(occupied, serve_read, engine_idle, &mut err);
        self.e_requests.push(requests);
        self.occupied = self.occupancy_stage(&mut out, &mut err);
        let enqueue_reads = self.eg_enq.valid;

        // D = I or some E, for every key whose I or E count moved; changes go to the frame
        // generator.
        for t in 0..self.d_touched.len() {
            let key = self.d_touched[t];
            let (port, prio) = (key / n, key % n);
            let d = self.is_d(port, prio);
            if d != (self.d[port] >> prio & 1 == 1) {
                self.d[port] ^= 1 << prio;
                self.frames.mark_ports(1 << port);
            }
        }

        // The input stage, and the counter RAM's read port for the next edge (chosen from the
        // registers before this edge's CSR write).
        self.in_enq = self.sample(i.in_enq_valid, i.in_enq_port, i.in_enq_prio, i.in_enq_len);
        self.in_deq = self.sample(i.in_deq_valid, i.in_deq_port, i.in_deq_prio, i.in_deq_len);
        self.eg_enq = self.sample(i.eg_enq_valid, i.eg_enq_port, i.eg_enq_prio, i.eg_enq_len);
        if self.eg_enq.valid && i.eg_enq_input >= u64::from(self.cfg.ports) {
            self.eg_enq.valid = false;
            self.eg_enq.bad_index = true;
        }
        self.eg_enq_input = i.eg_enq_input as usize;
        self.eg_deq = self.sample(i.eg_deq_valid, i.eg_deq_port, i.eg_deq_prio, i.eg_deq_len);
        self.row_read = if enqueue_reads {
            RowRead::Enqueue
        } else if self.snap_pending {
            self.snap_pending = false;
            let (key, _, _, input) = self.inspect_fields();
            RowRead::Inspect { key, input }
        } else {
            RowRead::Idle
        };
        self.serve_read = serve_pick;
        self.csr.access(i.csr_we == 1, i.csr_addr, i.csr_wdata);
        out.csr_rdata = rdata;
        // Hardware-set flags win over a write-1-to-clear on the same edge.
        self.csr.set(reg::ERR, self.csr.get(reg::ERR) | err);
        if i.csr_we == 1 && i.csr_addr == u64::from(reg::INSPECT) {
            self.snap_pending = true;
        }
        self.update_inspect_regs();
        out
    }
}

mod workload;
pub use workload::CapfcWorkload;
