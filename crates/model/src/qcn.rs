//! QCN / P4QCN: the congestion point of every egress queue (feedback probability, Fb, per-flow
//! rate limit, feedback-packet descriptors) beside P4QCN's ingress PFC.
//!
//! Spec: ../shared/spec/mechanisms.md §5 (P4QCN), with the feedback value of 802.1Qau as §4.3
//! states it for RCM's CRD (`Fb = Q_off + w·Q_delta`, clamped and rescaled to 6 bits). The
//! contract, with its latencies, is docs/blocks/qcn.md; this model is its reference. The reaction
//! point (the host side) is [`reaction_point`], the threshold calculator [`thresholds`].
//!
//! Cycle semantics (one [`Qcn::step`] = one rising edge n):
//! * `now` counts edges since reset; the timestamp is `(now >> ts_shift) mod 2^ts_bits`;
//! * for the first [`QcnConfig::init_cycles`] edges the CP's tables are being cleared (and the
//!   P_fb table loaded): an egress arrival is ignored and flagged (`err.NOT_READY`), and the
//!   P_fb window reads 0 and ignores writes; `status.ready` read at edge n says whether edge n
//!   accepts them;
//! * CSR writes sampled at edge n apply to the events sampled at edge n; `csr_rdata` after edge
//!   n is register `csr_addr` as it was before edge n. Words [`PFC_BASE`].. are the embedded
//!   PFC's registers, with the PFC's own semantics;
//! * an egress arrival on queue (port, prio) with depth q is *sampled* when the LFSR's draw
//!   `lfsr[31:16]` is below `P_fb[min(q >> pfb_shift, pfb_entries - 1)]` (Q0.16, 65 536 = 1). A
//!   sample computes `Fb = (q - Q_eq) + w·(q - q_old)` and sets `q_old = q` for its queue; it
//!   becomes a feedback packet (FBP) when its flow `(src, dst)` has sent none within `T_fb`
//!   timestamp units (`last_fbp_t[hash(src, dst) mod M_fb]`) and, with `fb_gate`, when the
//!   quantised Fb is above 0; the FBP records the timestamp;
//! * the LFSR steps once per edge;
//! * FBPs appear after edge n + [`FBP_LATENCY`], the `err` flags after edge n + [`ERR_LATENCY`];
//!   the ingress side is PFC's model with PFC's latencies.

use crate::config::parse_toml;
use crate::pfc::{self, Pfc, PfcConfig, PfcIn};
use serde::{Deserialize, Serialize};
use switchcraft_core::csr::{Access, CsrFile, Reg, RegMap, CSR_ADDR_BITS, CSR_DATA_BITS};
use switchcraft_core::hash::{hash32, reduce_top};
use switchcraft_core::lfsr::Lfsr32;
use switchcraft_core::{index_bits, mask, ConfigError, CycleModel, DelayLine, InputError};
use switchcraft_core::{Port, PortSchema};

pub mod reaction_point;
pub mod thresholds;

pub use crate::feedback::{fb_max, FbScale, FB_QUANT_BITS, FB_QUANT_MAX};

/// Static parameters of a QCN instance. Thresholds, the P_fb table, Q_eq, w, the Fb scale and
/// T_fb are the reset values of their CSRs; software may change them at run time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QcnConfig {
    /// Number of ports P (1..=64): egress ports of the CP, ingress ports of the PFC side.
    pub ports: u32,
    /// Priorities (traffic classes) per port (1..=8).
    pub priorities: u32,
    /// Width of `eg_qdepth` and of Q_eq, Q_min, Q_max (4..=24). The depth is in the traffic
    /// manager's units: packets in the paper's testbed (bmv2 `enq_qdepth`), bytes elsewhere.
    pub depth_bits: u32,
    /// The P_fb table at reset: 0 for q <= q_min, 1 for q >= q_max, linear between
    /// (`α_p = 1/(q_max - q_min)`); with q_min = q_max a step to 1 above it (spec §5.2).
    pub q_min: u64,
    pub q_max: u64,
    /// Entries of the P_fb table (2..=256, a power of two).
    pub pfb_entries: u32,
    /// A depth q reads entry `min(q >> pfb_shift, pfb_entries - 1)` (0..=depth_bits).
    pub pfb_shift: u32,
    /// The CP's equilibrium depth Q_eq (1..=2^depth_bits - 1).
    pub q_eq: u64,
    /// The weight w of the depth's change in Fb (0..=15; 802.1Qau uses 2).
    pub w: u32,
    /// Send an FBP only when its quantised Fb is above 0 (802.1Qau); off, every sample the rate
    /// limit lets through is an FBP, as P4QCN's CP does.
    pub fb_gate: bool,
    /// Entries M_fb of the per-flow rate-limit table (1..=65536, a power of two).
    pub flow_entries: u32,
    /// Timestamp width (8..=32) and unit (2^ts_shift cycles, ts_shift 0..=20).
    pub ts_bits: u32,
    pub ts_shift: u32,
    /// At most one FBP per flow within T_fb timestamp units (0..=2^ts_bits - 1).
    pub t_fb: u64,
    /// Seed of the LFSR (0 acts as 1).
    pub lfsr_seed: u32,
    /// P4QCN's ingress PFC.
    pub pfc: QcnPfc,
}

/// P4QCN's ingress PFC (spec §5.4): PAUSE when the ingress occupancy exceeds Q_PFC, RESUME
/// at or below Q_PFC - H_pfc. It runs as an embedded PFC block ([`QcnPfc::pfc_config`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QcnPfc {
    /// Width of the ingress occupancy counters (8..=32).
    pub occupancy_bits: u32,
    /// Width of the `in_enq_len`/`in_deq_len` buses (1..=16, <= occupancy_bits).
    pub length_bits: u32,
    /// Q_PFC: an occupancy above it pauses the (port, priority).
    pub q_pfc: u64,
    /// H_pfc: the hysteresis; the (port, priority) resumes at or below Q_PFC - H_pfc (1..=q_pfc).
    pub h_pfc: u64,
    /// Buffer limit: an enqueue that would exceed it is dropped (> q_pfc).
    pub max: u64,
    /// Pause time of a PAUSE, in 512-bit-time quanta (1..=65535).
    pub quanta: u64,
    /// Cycles between refresh ticks (ports..=65535).
    pub refresh: u64,
}

impl QcnPfc {
    /// The embedded PFC: XOFF at Q_PFC + 1 (PFC pauses at `>=`, P4QCN above Q_PFC), XON at
    /// Q_PFC - H_pfc.
    pub fn pfc_config(&self, ports: u32, priorities: u32) -> PfcConfig {
        PfcConfig {
            ports,
            priorities,
            occupancy_bits: self.occupancy_bits,
            length_bits: self.length_bits,
            xoff: self.q_pfc + 1,
            xon: self.q_pfc.saturating_sub(self.h_pfc),
            max: self.max,
            quanta: self.quanta,
            refresh: self.refresh,
        }
    }
}

pub const PRESETS: &[&str] = &["tiny", "fpga", "testbed", "switch-48x8"];

impl QcnConfig {
    pub fn preset(name: &str) -> Option<QcnConfig> {
        Some(match name {
            // Small depths and a short T_fb, so random tests sample, gate and rate-limit often.
            "tiny" => QcnConfig {
                ports: 4,
                priorities: 2,
                depth_bits: 8,
                q_min: 8,
                q_max: 24,
                pfb_entries: 16,
                pfb_shift: 1,
                q_eq: 12,
                w: 2,
                fb_gate: false,
                flow_entries: 64,
                ts_bits: 12,
                ts_shift: 2,
                t_fb: 16,
                lfsr_seed: 1,
                pfc: QcnPfc {
                    occupancy_bits: 16,
                    length_bits: 11,
                    q_pfc: 4000,
                    h_pfc: 1500,
                    max: 6000,
                    quanta: 0xFFFF,
                    refresh: 64,
                },
            },
            // An 8-port, 4-class switch on an iCE40 HX8K at 100 MHz with 25G links, 1 MiB of
            // buffer and Q_flight 6 250 B (2 us at 25G): `qcn thresholds` gives Q_PFC <= 26 518 B
            // and the static Q_P4QCN <= 20 268 B; the P_fb ramp runs from one to the other.
            "fpga" => QcnConfig {
                ports: 8,
                priorities: 4,
                depth_bits: 16,
                q_min: 20_268,
                q_max: 26_518,
                pfb_entries: 64,
                pfb_shift: 9,
                q_eq: 20_268,
                w: 2,
                fb_gate: false,
                flow_entries: 1024,
                ts_bits: 16,
                ts_shift: 6,
                // 50 us [S] at 100 MHz in units of 64 cycles, rounded up.
                t_fb: 79,
                lfsr_seed: 1,
                pfc: QcnPfc {
                    occupancy_bits: 16,
                    length_bits: 11,
                    q_pfc: 26_518,
                    h_pfc: 3000,
                    max: 32_768,
                    quanta: 0xFFFF,
                    refresh: 1024,
                },
            },
            // The paper's bmv2 testbed (§5.7), depths in packets: Q_P4QCN = Q_min = Q_max = 11
            // (a step: every arrival above 11 packets is sampled), Q_PFC = 14 with 1-packet
            // lengths, T_fb 5 ms at 7 Mb/s [S] on a 100 MHz clock (units of 1 024 cycles).
            "testbed" => QcnConfig {
                ports: 4,
                priorities: 8,
                depth_bits: 19,
                q_min: 11,
                q_max: 11,
                pfb_entries: 16,
                pfb_shift: 0,
                q_eq: 11,
                w: 2,
                fb_gate: false,
                flow_entries: 256,
                ts_bits: 16,
                ts_shift: 10,
                t_fb: 489,
                lfsr_seed: 1,
                pfc: QcnPfc {
                    occupancy_bits: 8,
                    length_bits: 1,
                    q_pfc: 14,
                    h_pfc: 2,
                    max: 24,
                    quanta: 0xFFFF,
                    refresh: 1024,
                },
            },
            // A 48-port, 8-priority 100G switch with 12 MiB of buffer and Q_flight 22.4 KB (the
            // BDP of the spec's vector Q1), on a 1 GHz clock with 1 ns timestamps (the spec's
            // 32-bit ns). The static bound is infeasible here (Q_PFC 10 368 B < Q_flight), so
            // Q_P4QCN is the dynamic-threshold form: < 9 216 B at α = 8.
            "switch-48x8" => QcnConfig {
                ports: 48,
                priorities: 8,
                depth_bits: 24,
                q_min: 9215,
                q_max: 10_368,
                pfb_entries: 256,
                pfb_shift: 6,
                q_eq: 9215,
                w: 2,
                fb_gate: false,
                flow_entries: 4096,
                ts_bits: 32,
                ts_shift: 0,
                t_fb: 50_000,
                lfsr_seed: 1,
                pfc: QcnPfc {
                    occupancy_bits: 24,
                    length_bits: 14,
                    q_pfc: 10_368,
                    h_pfc: 3000,
                    max: 32_768,
                    quanta: 0xFFFF,
                    refresh: 4096,
                },
            },
            _ => return None,
        })
    }

    pub fn from_toml(text: &str, name: &str) -> Result<QcnConfig, InputError> {
        let cfg: QcnConfig = parse_toml(text, name)?;
        cfg.validate()
            .map_err(|e| InputError(format!("{name}: {e}")))?;
        Ok(cfg)
    }

    /// Checks every rule of the block; the error names the field, its value and the rule.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let range = crate::config::in_range;
        range("ports", self.ports.into(), 1, 64)?;
        range("priorities", self.priorities.into(), 1, 8)?;
        range("depth_bits", self.depth_bits.into(), 4, 24)?;
        let depth_max = mask(self.depth_bits);
        range("q_max", self.q_max, 0, depth_max)?;
        range("q_min", self.q_min, 0, self.q_max)?;
        range("q_eq", self.q_eq, 1, depth_max)?;
        range("w", self.w.into(), 0, 15)?;
        range("pfb_entries", self.pfb_entries.into(), 2, 256)?;
        if !self.pfb_entries.is_power_of_two() {
            return Err(ConfigError::new(
                "pfb_entries",
                self.pfb_entries,
                "must be a power of two",
            ));
        }
        range(
            "pfb_shift",
            self.pfb_shift.into(),
            0,
            self.depth_bits.into(),
        )?;
        range("flow_entries", self.flow_entries.into(), 1, 1 << 16)?;
        if !self.flow_entries.is_power_of_two() {
            // The index is then the hash's top bits, with no multiplier.
            return Err(ConfigError::new(
                "flow_entries",
                self.flow_entries,
                "must be a power of two",
            ));
        }
        range("ts_bits", self.ts_bits.into(), 8, 32)?;
        range("ts_shift", self.ts_shift.into(), 0, 20)?;
        range("t_fb", self.t_fb, 0, mask(self.ts_bits))?;
        let p = &self.pfc;
        range("pfc.occupancy_bits", p.occupancy_bits.into(), 8, 32)?;
        range("pfc.q_pfc", p.q_pfc, 1, mask(p.occupancy_bits) - 1)?;
        range("pfc.h_pfc", p.h_pfc, 1, p.q_pfc)?;
        if p.max <= p.q_pfc {
            return Err(ConfigError::new(
                "pfc.max",
                p.max,
                format!(
                    "must be > pfc.q_pfc ({}): the PAUSE comes above Q_PFC",
                    p.q_pfc
                ),
            ));
        }
        // The rest are PFC's own rules, reported under this table's names.
        self.pfc_config().validate().map_err(|e| {
            let field = match e.field.as_str() {
                "xoff" => "pfc.q_pfc".to_string(),
                "xon" => "pfc.h_pfc".to_string(),
                other => format!("pfc.{other}"),
            };
            ConfigError {
                field,
                value: e.value,
                rule: e.rule,
            }
        })
    }

    pub fn pfc_config(&self) -> PfcConfig {
        self.pfc.pfc_config(self.ports, self.priorities)
    }

    pub fn port_bits(&self) -> u32 {
        index_bits(self.ports.into())
    }

    pub fn prio_bits(&self) -> u32 {
        index_bits(self.priorities.into())
    }

    /// Egress queues the CP keeps `q_old` for: every (port, priority) the buses can name.
    pub fn queue_slots(&self) -> u32 {
        1 << (self.port_bits() + self.prio_bits())
    }

    /// Edges after reset while the CP clears `q_old` and the rate-limit table and loads the
    /// P_fb table's reset values, one word of each per edge.
    pub fn init_cycles(&self) -> u64 {
        u64::from(
            self.flow_entries
                .max(self.queue_slots())
                .max(self.pfb_entries),
        )
    }

    /// The P_fb table at reset: the law of spec §5.2 at each bucket's lowest depth.
    pub fn pfb_table(&self) -> Vec<u64> {
        (0..u64::from(self.pfb_entries))
            .map(|k| pfb_law(k << self.pfb_shift, self.q_min, self.q_max))
            .collect()
    }

    /// The reset value of `fb_scale`, derived from Q_eq and w ([`FbScale::for_fb_max`]).
    pub fn fb_scale(&self) -> FbScale {
        FbScale::for_fb_max(fb_max(self.q_eq, self.w))
    }
}

/// `P_fb(q)` in Q0.16 (65 536 = always): 0 at q <= q_min, 65 536 at q >= q_max, linear
/// between; with q_min = q_max a step to 65 536 above it (spec §5.2, the continuous slope
/// `α_p = 1/(q_max - q_min)`, no division by an empty range).
pub fn pfb_law(q: u64, q_min: u64, q_max: u64) -> u64 {
    if q <= q_min {
        0
    } else if q >= q_max {
        PFB_ONE
    } else {
        (PFB_ONE * (q - q_min)) / (q_max - q_min)
    }
}

/// Probability 1 in the P_fb table's Q0.16.
pub const PFB_ONE: u64 = 1 << 16;
/// Width of a P_fb entry: 0..=65 536.
pub const PFB_BITS: u32 = 17;

/// Word indices of the QCN registers (see [`regmap`]).
pub mod reg {
    pub const ID: u32 = 0;
    pub const PARAMS: u32 = 1;
    pub const TABLES: u32 = 2;
    pub const STATUS: u32 = 3;
    pub const ERR: u32 = 4;
    pub const Q_EQ: u32 = 5;
    pub const W: u32 = 6;
    pub const FB_SCALE: u32 = 7;
    pub const FB_GATE: u32 = 8;
    pub const T_FB: u32 = 9;
    pub const PFB_INDEX: u32 = 10;
    pub const PFB_DATA: u32 = 11;
    pub const LFSR_SEED: u32 = 12;
}

/// The first word of the embedded PFC's registers: its word k is QCN's word PFC_BASE + k.
pub const PFC_BASE: u32 = 32;
/// The embedded PFC's register names as QCN's map shows them, by PFC word index.
const PFC_NAMES: [&str; 8] = [
    "pfc_id",
    "pfc_params",
    "pfc_xoff",
    "pfc_xon",
    "pfc_max",
    "pfc_quanta",
    "pfc_refresh",
    "pfc_err",
];

/// Whether word `index` is one of the embedded PFC's registers.
fn in_pfc_window(index: u32) -> bool {
    (PFC_BASE..PFC_BASE + PFC_NAMES.len() as u32).contains(&index)
}

/// `status` bit: the tables are cleared; egress arrivals are accepted.
pub const STATUS_READY: u64 = 1;

/// `err` bits (sticky, write 1 to clear).
pub mod err {
    /// An egress arrival named a port >= ports or a priority >= priorities (ignored).
    pub const INDEX: u64 = 1;
    /// An egress arrival came while the tables were being cleared (ignored).
    pub const NOT_READY: u64 = 1 << 1;
}

/// ID word: ASCII "QCN" and version 1.
pub const ID_WORD: u64 = 0x5143_4E01;

/// The QCN register map, declared once: RTL decode, model, docs table and C header use it.
pub fn regmap(cfg: &QcnConfig) -> RegMap {
    let params = u64::from(cfg.ports)
        | u64::from(cfg.priorities) << 8
        | u64::from(cfg.depth_bits) << 16
        | u64::from(cfg.ts_bits) << 24;
    let tables = u64::from(cfg.flow_entries - 1)
        | u64::from(cfg.pfb_entries - 1) << 16
        | u64::from(cfg.ts_shift) << 24;
    let r = |name, index, width, access, reset, doc| Reg {
        name,
        index,
        width,
        access,
        reset,
        doc,
    };
    let mut regs = vec![
        r(
            "id",
            reg::ID,
            32,
            Access::Const,
            ID_WORD,
            "block ID \"QCN\" and version 1",
        ),
        r(
            "params",
            reg::PARAMS,
            32,
            Access::Const,
            params,
            "ports [7:0], priorities [15:8], depth_bits [23:16], ts_bits [31:24]",
        ),
        r(
            "tables",
            reg::TABLES,
            32,
            Access::Const,
            tables,
            "flow_entries - 1 [15:0], pfb_entries - 1 [23:16], ts_shift [31:24]",
        ),
        r(
            "status",
            reg::STATUS,
            1,
            Access::Ro,
            0,
            "bit 0 ready: the tables are cleared after reset; egress arrivals count",
        ),
        r(
            "err",
            reg::ERR,
            2,
            Access::Rw1c,
            0,
            "sticky: bit 0 egress index out of range, bit 1 egress arrival before ready",
        ),
        r(
            "q_eq",
            reg::Q_EQ,
            cfg.depth_bits,
            Access::Rw,
            cfg.q_eq,
            "Q_eq: Fb = (q - Q_eq) + w (q - q_old)",
        ),
        r(
            "w",
            reg::W,
            4,
            Access::Rw,
            cfg.w.into(),
            "w: the weight of the depth's change in Fb",
        ),
        r(
            "fb_scale",
            reg::FB_SCALE,
            13,
            Access::Rw,
            cfg.fb_scale().word(),
            "Fb6 = min(63, (Fb x mantissa [7:0]) >> shift [12:8]); rewrite with Q_eq or w",
        ),
        r(
            "fb_gate",
            reg::FB_GATE,
            1,
            Access::Rw,
            cfg.fb_gate.into(),
            "1: an FBP only when its quantised Fb is above 0 (802.1Qau)",
        ),
        r(
            "t_fb",
            reg::T_FB,
            cfg.ts_bits,
            Access::Rw,
            cfg.t_fb,
            "at most one FBP per flow within T_fb timestamp units",
        ),
        r(
            "pfb_index",
            reg::PFB_INDEX,
            index_bits(cfg.pfb_entries.into()),
            Access::Rw,
            0,
            "P_fb table entry seen at pfb_data",
        ),
        r(
            "pfb_data",
            reg::PFB_DATA,
            PFB_BITS,
            Access::Window,
            0,
            "window on P_fb[pfb_index], Q0.16 (65536 = always), once ready: a read returns it, a write sets it",
        ),
        r(
            "lfsr_seed",
            reg::LFSR_SEED,
            32,
            Access::Rw,
            cfg.lfsr_seed.into(),
            "a write reseeds the LFSR (0 acts as 1), from its own edge's draw on",
        ),
    ];
    for reg in pfc::regmap(&cfg.pfc_config()).regs {
        let name = PFC_NAMES[reg.index as usize];
        regs.push(Reg {
            name,
            index: PFC_BASE + reg.index,
            ..reg
        });
    }
    RegMap::new("qcn", regs)
}

/// Edges from an egress arrival to its FBP: the RTL's stages are capture (hash, table
/// addresses), sample and q_old, w x Q_delta, Fb, the quantiser's two multiply stages, its
/// tests with the rate-limit entry's read, and the rate limit's decision
/// (crates/rtl/src/qcn/cp.rs).
pub const FBP_LATENCY: u32 = 8;
/// Edges from an egress arrival to its `err` flags.
pub const ERR_LATENCY: u32 = 1;
const _: () = assert!(FBP_LATENCY <= DelayLine::<CpEdge>::MAX_LATENCY);

pub fn port_schema(cfg: &QcnConfig) -> PortSchema {
    let (pb, nb) = (cfg.port_bits(), cfg.prio_bits());
    let lb = cfg.pfc.length_bits;
    PortSchema::new(
        "qcn",
        vec![
            Port::input("eg_valid", 1, "a packet arrives at an egress queue"),
            Port::input("eg_port", pb, "its egress port"),
            Port::input("eg_prio", nb, "its priority"),
            Port::input(
                "eg_qdepth",
                cfg.depth_bits,
                "the queue's depth as the packet arrives (traffic-manager units)",
            ),
            Port::input("eg_src", 32, "its source address"),
            Port::input("eg_dst", 32, "its destination address"),
            Port::input(
                "in_enq_valid",
                1,
                "an arrival is admitted to the ingress buffer",
            ),
            Port::input("in_enq_port", pb, "its ingress port"),
            Port::input("in_enq_prio", nb, "its priority"),
            Port::input("in_enq_len", lb, "its length"),
            Port::input("in_deq_valid", 1, "a packet leaves the ingress buffer"),
            Port::input("in_deq_port", pb, "its ingress port"),
            Port::input("in_deq_prio", nb, "its priority"),
            Port::input("in_deq_len", lb, "its length"),
            Port::input("csr_we", 1, "CSR write strobe"),
            Port::input("csr_addr", CSR_ADDR_BITS, "CSR word index"),
            Port::input("csr_wdata", CSR_DATA_BITS, "CSR write data"),
            Port::output(
                "fbp_valid",
                1,
                "send a feedback packet (ECN 11) to the arrival's source",
            ),
            Port::output(
                "fbp_port",
                pb,
                "the congested queue's port (0 when not valid)",
            ),
            Port::output("fbp_prio", nb, "its priority (0 when not valid)"),
            Port::output("fbp_src", 32, "the FBP's source: the arrival's destination"),
            Port::output("fbp_dst", 32, "the FBP's destination: the arrival's source"),
            Port::output(
                "fbp_fb",
                FB_QUANT_BITS,
                "quantised Fb, 0..63 (63: Fb >= Fb_max)",
            ),
            Port::output("in_drop", 1, "an ingress enqueue would exceed MAX: dropped"),
            Port::output(
                "xoff_valid",
                1,
                "pause request: an ingress (port, priority) went above Q_PFC",
            ),
            Port::output("xoff_port", pb, "its port (0 when not valid)"),
            Port::output("xoff_prio", nb, "its priority (0 when not valid)"),
            Port::output(
                "xon_valid",
                1,
                "resume request: it fell to Q_PFC - H_pfc or below",
            ),
            Port::output("xon_port", pb, "its port (0 when not valid)"),
            Port::output("xon_prio", nb, "its priority (0 when not valid)"),
            Port::output("frame_valid", 1, "send an 802.1Qbb PFC frame"),
            Port::output("frame_port", pb, "on this port"),
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
    .with_latencies(&[
        ("fbp", FBP_LATENCY),
        ("in", pfc::DROP_LATENCY),
        ("xoff", pfc::REQUEST_LATENCY),
        ("xon", pfc::REQUEST_LATENCY),
        ("frame", pfc::FRAME_LATENCY),
        ("csr", 0),
    ])
}

port_bundle!(
    /// Inputs of one edge.
    QcnIn {
        eg_valid, eg_port, eg_prio, eg_qdepth, eg_src, eg_dst,
        in_enq_valid, in_enq_port, in_enq_prio, in_enq_len,
        in_deq_valid, in_deq_port, in_deq_prio, in_deq_len,
        csr_we, csr_addr, csr_wdata,
    }
);

port_bundle!(
    /// Registered outputs after one edge.
    QcnOut {
        fbp_valid, fbp_port, fbp_prio, fbp_src, fbp_dst, fbp_fb,
        in_drop,
        xoff_valid, xoff_port, xoff_prio,
        xon_valid, xon_port, xon_prio,
        frame_valid, frame_port, frame_class_enable, frame_pause, frame_quanta,
        csr_rdata,
    }
);

/// One feedback packet's descriptor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fbp {
    pub port: u8,
    pub prio: u8,
    /// The FBP's addresses: the arrival's swapped.
    pub src: u32,
    pub dst: u32,
    pub fb: u8,
}

/// What the CP did with one edge's egress arrival, until its outputs report it.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpEdge {
    pub fbp: Option<Fbp>,
    pub err: u64,
}

/// The rate-limit table's index of the flow (src, dst): CRC-32C of the 8 bytes `src | dst << 32`
/// reduced to `0..entries` by its top 16 bits ([`reduce_top`]).
pub fn flow_index(src: u32, dst: u32, entries: u32) -> usize {
    let h = hash32(u128::from(src) | u128::from(dst) << 32, 8);
    reduce_top(h, FLOW_HASH_BITS, entries) as usize
}

/// Bits of the flow hash the rate-limit index uses.
pub const FLOW_HASH_BITS: u32 = 16;

/// The QCN golden model (see the module documentation for its cycle semantics).
pub struct Qcn {
    cfg: QcnConfig,
    schema: PortSchema,
    csr: CsrFile,
    pfc: Pfc,
    /// P_fb per bucket, Q0.16.
    pfb: Vec<u64>,
    /// The depth at each queue's last sample, by `port << prio_bits | prio`.
    q_old: Vec<u64>,
    /// The timestamp of each flow entry's last FBP, `None` since reset.
    last_fbp: Vec<Option<u64>>,
    lfsr: Lfsr32,
    now: u64,
    results: DelayLine<CpEdge>,
}

impl Qcn {
    pub fn new(cfg: &QcnConfig) -> Result<Qcn, ConfigError> {
        cfg.validate()?;
        let mut m = Qcn {
            cfg: cfg.clone(),
            schema: port_schema(cfg),
            csr: CsrFile::new(&regmap(cfg)),
            pfc: Pfc::new(&cfg.pfc_config())?,
            pfb: cfg.pfb_table(),
            q_old: vec![0; cfg.queue_slots() as usize],
            last_fbp: vec![None; cfg.flow_entries as usize],
            lfsr: Lfsr32::new(cfg.lfsr_seed),
            now: 0,
            results: DelayLine::new(),
        };
        CycleModel::reset(&mut m);
        Ok(m)
    }

    pub fn config(&self) -> &QcnConfig {
        &self.cfg
    }

    /// Register `index` as software would read it now.
    pub fn csr(&self, index: u32) -> u64 {
        if in_pfc_window(index) {
            self.pfc.csr(index - PFC_BASE)
        } else {
            self.csr.get(index)
        }
    }

    /// The embedded PFC (its occupancy and XOFF state).
    pub fn pfc(&self) -> &Pfc {
        &self.pfc
    }

    /// `q_old` of a queue after the events sampled so far.
    pub fn q_old(&self, port: usize, prio: usize) -> u64 {
        self.q_old[port << self.cfg.prio_bits() | prio]
    }

    /// The timestamp of flow entry `index`'s last FBP, after the events sampled so far.
    pub fn last_fbp(&self, index: usize) -> Option<u64> {
        self.last_fbp[index]
    }

    /// The timestamp of the edge about to be sampled.
    pub fn now_ts(&self) -> u64 {
        (self.now >> self.cfg.ts_shift) & mask(self.cfg.ts_bits)
    }

    fn ready(&self) -> bool {
        self.now >= self.cfg.init_cycles()
    }

    /// One CSR bus cycle of the CP's own registers, with the window onto the P_fb table (which
    /// reads 0 and ignores writes until the table is loaded).
    fn csr_access(&mut self, i: &QcnIn) -> u64 {
        let index = self.csr.get(reg::PFB_INDEX) as usize;
        let ready = self.ready();
        let entry = self.pfb.get(index).copied().filter(|_| ready);
        self.csr.set(reg::PFB_DATA, entry.unwrap_or(0));
        self.csr
            .set(reg::STATUS, u64::from(self.ready()) * STATUS_READY);
        let rdata = self.csr.access(i.csr_we == 1, i.csr_addr, i.csr_wdata);
        if i.csr_we == 1 {
            match (i.csr_addr & mask(CSR_ADDR_BITS)) as u32 {
                reg::PFB_DATA if entry.is_some() => {
                    self.pfb[index] = self.csr.get(reg::PFB_DATA);
                }
                reg::LFSR_SEED => self.lfsr = Lfsr32::new(self.csr.get(reg::LFSR_SEED) as u32),
                _ => {}
            }
        }
        rdata
    }

    /// The CP's work on one egress arrival (valid, in range, ready), with the LFSR's state of
    /// the edge.
    fn arrival(&mut self, i: &QcnIn, lfsr: u32) -> Option<Fbp> {
        let c = &self.cfg;
        let q = i.eg_qdepth & mask(c.depth_bits);
        let bucket = (q >> c.pfb_shift).min(u64::from(c.pfb_entries) - 1) as usize;
        let draw = u64::from(lfsr >> 16);
        if draw >= self.pfb[bucket] {
            return None;
        }
        // A sample: the feedback value, then q_old.
        let slot = (i.eg_port << c.prio_bits() | i.eg_prio) as usize;
        let q_old = std::mem::replace(&mut self.q_old[slot], q);
        let q_eq = self.csr.get(reg::Q_EQ) as i64;
        let w = self.csr.get(reg::W) as i64;
        let fb = (q as i64 - q_eq) + w * (q as i64 - q_old as i64);
        let fb6 = FbScale::from_word(self.csr.get(reg::FB_SCALE)).quantise(fb);
        if self.csr.get(reg::FB_GATE) == 1 && fb6 == 0 {
            return None;
        }
        // The per-flow rate limit.
        let (src, dst) = (i.eg_src as u32, i.eg_dst as u32);
        let entry = flow_index(src, dst, c.flow_entries);
        let now = self.now_ts();
        let t_fb = self.csr.get(reg::T_FB);
        if let Some(t) = self.last_fbp[entry] {
            if (now.wrapping_sub(t) & mask(c.ts_bits)) < t_fb {
                return None;
            }
        }
        self.last_fbp[entry] = Some(now);
        Some(Fbp {
            port: i.eg_port as u8,
            prio: i.eg_prio as u8,
            src: dst,
            dst: src,
            fb: fb6 as u8,
        })
    }
}

impl CycleModel for Qcn {
    type In = QcnIn;
    type Out = QcnOut;

    fn ports(&self) -> &PortSchema {
        &self.schema
    }

    fn reset(&mut self) {
        self.csr.reset();
        self.pfc.reset();
        self.pfb = self.cfg.pfb_table();
        self.q_old.fill(0);
        self.last_fbp.fill(None);
        self.lfsr = Lfsr32::new(self.cfg.lfsr_seed);
        self.now = 0;
        self.results.reset();
    }

    fn step(&mut self, i: &QcnIn) -> QcnOut {
        // The ingress side: the embedded PFC, with the CSR bus when it names its words.
        let addr = (i.csr_addr & mask(CSR_ADDR_BITS)) as u32;
        let in_pfc = in_pfc_window(addr);
        let p = self.pfc.step(&PfcIn {
            enq_valid: i.in_enq_valid,
            enq_port: i.in_enq_port,
            enq_prio: i.in_enq_prio,
            enq_len: i.in_enq_len,
            deq_valid: i.in_deq_valid,
            deq_port: i.in_deq_port,
            deq_prio: i.in_deq_prio,
            deq_len: i.in_deq_len,
            csr_we: u64::from(in_pfc) & i.csr_we,
            csr_addr: u64::from(addr.wrapping_sub(PFC_BASE)) & mask(CSR_ADDR_BITS),
            csr_wdata: i.csr_wdata,
        });
        let own_rdata = self.csr_access(i);

        // The congestion point.
        let lfsr = self.lfsr.state();
        let mut edge = CpEdge::default();
        if i.eg_valid == 1 {
            let c = &self.cfg;
            if i.eg_port >= u64::from(c.ports) || i.eg_prio >= u64::from(c.priorities) {
                edge.err |= err::INDEX;
            } else if !self.ready() {
                edge.err |= err::NOT_READY;
            } else {
                edge.fbp = self.arrival(i, lfsr);
            }
        }
        self.lfsr.step();
        self.now += 1;
        self.results.push(edge);

        let flagged = self.results.tap(ERR_LATENCY).err;
        // Hardware-set flags win over a write-1-to-clear on the same edge.
        self.csr.set(reg::ERR, self.csr.get(reg::ERR) | flagged);
        let mut out = QcnOut {
            in_drop: p.enq_drop,
            xoff_valid: p.xoff_valid,
            xoff_port: p.xoff_port,
            xoff_prio: p.xoff_prio,
            xon_valid: p.xon_valid,
            xon_port: p.xon_port,
            xon_prio: p.xon_prio,
            frame_valid: p.frame_valid,
            frame_port: p.frame_port,
            frame_class_enable: p.frame_class_enable,
            frame_pause: p.frame_pause,
            frame_quanta: p.frame_quanta,
            csr_rdata: if in_pfc { p.csr_rdata } else { own_rdata },
            ..QcnOut::default()
        };
        if let Some(f) = self.results.tap(FBP_LATENCY).fbp {
            out.fbp_valid = 1;
            out.fbp_port = f.port.into();
            out.fbp_prio = f.prio.into();
            out.fbp_src = f.src.into();
            out.fbp_dst = f.dst.into();
            out.fbp_fb = f.fb.into();
        }
        out
    }
}

mod workload;
pub use workload::QcnWorkload;
