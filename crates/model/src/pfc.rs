//! PFC: ingress occupancy, XOFF/XON hysteresis and the 802.1Qbb pause-frame generator.
//!
//! Spec: ../shared/spec/mechanisms.md §0 (cycle model, saturation), §2.3 (ingress block, `>=` XOFF
//! sets, `<=` XON clears), §2.6 (FSM, pause refresh). The contract, with its latencies, is
//! docs/blocks/pfc.md; this model is its reference.
//!
//! Cycle semantics (one [`Pfc::step`] = one rising edge n). The model applies the events
//! sampled at edge n on that edge, in the spec's order, and delays the results to the RTL's
//! declared latencies ([`DROP_LATENCY`], [`REQUEST_LATENCY`], [`FRAME_LATENCY`]) with a delay
//! line:
//! * the dequeue, then the enqueue, update the occupancy (`enq_drop` for an enqueue that would
//!   exceed MAX) and set or clear the key's XOFF bit (`xoff_*`, `xon_*`), with the CSR values
//!   written up to edge n;
//! * a pause-request event is emitted only for a net change of a (port, priority) state over the
//!   two events of one edge, so one edge never yields a spurious XOFF/XON pair;
//! * the frame generator flags a port one edge after the request outputs show a change of one
//!   of its classes; each edge it grants at most one port, the first flagged port after the one
//!   it granted last (round robin), and sends the frame of the port granted at the edge before.
//!   A frame states every class of its port as the XOFF state is when it is built: the paused
//!   ones with the `QUANTA` time (PAUSE), the others with time 0 (RESUME);
//! * every `REFRESH` cycles a global tick flags every port with a paused class for a refresh;
//! * `csr_rdata` after edge n is register `csr_addr` as it was before edge n.

use crate::config::parse_toml;
use crate::units::ClockAndLink;
use serde::{Deserialize, Serialize};
use switchcraft_core::csr::{Access, CsrFile, Reg, RegMap, CSR_ADDR_BITS, CSR_DATA_BITS};
use switchcraft_core::InputError;
use switchcraft_core::{index_bits, mask, ConfigError, CycleModel, DelayLine, Port, PortSchema};

/// Static parameters of a PFC instance. Thresholds, quanta and refresh are the reset values of
/// their CSRs; software may change them at run time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PfcConfig {
    /// Number of ports P (1..=64).
    pub ports: u32,
    /// Priorities (traffic classes) per port (1..=8).
    pub priorities: u32,
    /// Width of the occupancy counters and threshold registers, in bits (8..=32).
    pub occupancy_bits: u32,
    /// Width of the `enq_len`/`deq_len` buses, in bits (1..=16, <= occupancy_bits).
    pub length_bits: u32,
    /// XOFF threshold in bytes: occupancy >= xoff pauses the (port, priority).
    pub xoff: u64,
    /// XON threshold in bytes: occupancy <= xon resumes it (xon < xoff).
    pub xon: u64,
    /// Buffer limit in bytes: an enqueue that would exceed it is dropped (xoff <= max).
    pub max: u64,
    /// Pause time carried by a PAUSE, in 802.1Qbb quanta of 512 bit times (1..=65535).
    pub quanta: u64,
    /// Cycles between refresh ticks (ports..=65535).
    pub refresh: u64,
}

pub const PRESETS: &[&str] = &["tiny", "fpga", "paper"];

impl PfcConfig {
    pub fn preset(name: &str) -> Option<PfcConfig> {
        Some(match name {
            // Small thresholds so random tests cross XOFF/XON every few hundred cycles.
            "tiny" => PfcConfig {
                ports: 4,
                priorities: 2,
                occupancy_bits: 16,
                length_bits: 11,
                xoff: 4000,
                xon: 2500,
                max: 6000,
                quanta: 0xFFFF,
                refresh: 64,
            },
            // Fits an iCE40 HX8K; Table II ingress thresholds (60/50/40 KB) in 16-bit counters.
            "fpga" => PfcConfig {
                ports: 8,
                priorities: 4,
                occupancy_bits: 16,
                length_bits: 11,
                xoff: 50_000,
                xon: 40_000,
                max: 60_000,
                quanta: 0xFFFF,
                refresh: 1024,
            },
            // 32 ports x 8 priorities, 24-bit counters, Table II ingress thresholds, jumbo frames.
            "paper" => PfcConfig {
                ports: 32,
                priorities: 8,
                occupancy_bits: 24,
                length_bits: 14,
                xoff: 50_000,
                xon: 40_000,
                max: 60_000,
                quanta: 0xFFFF,
                refresh: 4096,
            },
            _ => return None,
        })
    }

    pub fn from_toml(text: &str, name: &str) -> Result<PfcConfig, InputError> {
        let cfg: PfcConfig = parse_toml(text, name)?;
        cfg.validate()
            .map_err(|e| InputError(format!("{name}: {e}")))?;
        Ok(cfg)
    }

    /// Checks every rule of the block; the error names the field, its value and the rule.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let range = crate::config::in_range;
        range("ports", self.ports.into(), 1, 64)?;
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
        let limit = mask(self.occupancy_bits);
        for (field, v) in [("max", self.max), ("xoff", self.xoff), ("xon", self.xon)] {
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
        if self.xon >= self.xoff {
            return Err(ConfigError::new(
                "xon",
                self.xon,
                format!("must be < xoff ({})", self.xoff),
            ));
        }
        if self.xoff > self.max {
            return Err(ConfigError::new(
                "xoff",
                self.xoff,
                format!("must be <= max ({})", self.max),
            ));
        }
        range("quanta", self.quanta, 1, 0xFFFF)?;
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
}

/// Word indices of the PFC registers (see [`regmap`]).
pub mod reg {
    pub const ID: u32 = 0;
    pub const PARAMS: u32 = 1;
    pub const XOFF: u32 = 2;
    pub const XON: u32 = 3;
    pub const MAX: u32 = 4;
    pub const QUANTA: u32 = 5;
    pub const REFRESH: u32 = 6;
    pub const ERR: u32 = 7;
}

/// `ERR` bit: a dequeue was longer than the occupancy (clamped to 0).
pub const ERR_UNDERFLOW: u64 = 1;
/// `ERR` bit: an event named a port >= ports or a priority >= priorities (event ignored).
pub const ERR_INDEX: u64 = 2;

/// ID word: ASCII "PFC" and version 1.
pub const ID_WORD: u64 = 0x5046_4301;

/// The PFC register map, declared once: RTL decode, model, docs table and C header use it.
pub fn regmap(cfg: &PfcConfig) -> RegMap {
    let w = cfg.occupancy_bits;
    let params = u64::from(cfg.ports)
        | u64::from(cfg.priorities) << 8
        | u64::from(cfg.occupancy_bits) << 16
        | u64::from(cfg.length_bits) << 24;
    let r = |name, index, width, access, reset, doc| Reg {
        name,
        index,
        width,
        access,
        reset,
        doc,
    };
    RegMap::new(
        "pfc",
        vec![
            r(
                "id",
                reg::ID,
                32,
                Access::Const,
                ID_WORD,
                "block ID \"PFC\" and version 1",
            ),
            r(
                "params",
                reg::PARAMS,
                32,
                Access::Const,
                params,
                "ports [7:0], priorities [15:8], occupancy_bits [23:16], length_bits [31:24]",
            ),
            r(
                "xoff",
                reg::XOFF,
                w,
                Access::Rw,
                cfg.xoff,
                "occupancy >= XOFF pauses a (port, priority)",
            ),
            r(
                "xon",
                reg::XON,
                w,
                Access::Rw,
                cfg.xon,
                "occupancy <= XON resumes it",
            ),
            r(
                "max",
                reg::MAX,
                w,
                Access::Rw,
                cfg.max,
                "an enqueue that would exceed MAX is dropped",
            ),
            r(
                "quanta",
                reg::QUANTA,
                16,
                Access::Rw,
                cfg.quanta,
                "pause time of a PAUSE, 512-bit-time quanta",
            ),
            r(
                "refresh",
                reg::REFRESH,
                16,
                Access::Rw,
                cfg.refresh,
                "cycles between refresh ticks (0 acts as 1)",
            ),
            r(
                "err",
                reg::ERR,
                2,
                Access::Rw1c,
                0,
                "sticky: bit 0 dequeue underflow (clamped), bit 1 event index out of range",
            ),
        ],
    )
}

/// The ports of `pfc_top` for `cfg` (clock `clk` and synchronous reset `rst` are implicit).
/// Edges from an event to its `enq_drop` and `ERR` flags: the RTL's occupancy stages (input,
/// read, operand, tests and sums, then the selection of the results).
pub const DROP_LATENCY: u32 = 4;
/// Edges from an event to its pause request: occupancy, then the XOFF/XON decision's threshold
/// tests and its state update.
pub const REQUEST_LATENCY: u32 = 6;
/// Edges from an event to the earliest frame it can change (the frame bus's declared latency):
/// a frame already due for the port when the request goes out is built on the next edge from
/// the XOFF state the request left, so it states the change one edge after the request.
pub const FRAME_LATENCY: u32 = REQUEST_LATENCY + 1;
/// Edges from an event to the frame its own XOFF/XON change causes: the frame generator flags
/// the port from the request registers one edge after the decision (so the decision's logic and
/// the frame generator's are in separate cycles), grants it on the next edge, and sends the
/// frame on the edge after that (so the round robin's logic and the frame's multiplexers are in
/// separate cycles too).
pub const CAUSED_FRAME_LATENCY: u32 = REQUEST_LATENCY + 3;
const _: () = assert!(REQUEST_LATENCY <= DelayLine::<IngressEdge>::MAX_LATENCY);

pub fn port_schema(cfg: &PfcConfig) -> PortSchema {
    let (pb, nb, lb) = (cfg.port_bits(), cfg.prio_bits(), cfg.length_bits);
    PortSchema::new(
        "pfc",
        vec![
            Port::input(
                "enq_valid",
                1,
                "an arrival is admitted to the ingress buffer",
            ),
            Port::input("enq_port", pb, "its ingress port"),
            Port::input("enq_prio", nb, "its priority"),
            Port::input("enq_len", lb, "its length in bytes"),
            Port::input("deq_valid", 1, "a packet leaves the ingress buffer"),
            Port::input("deq_port", pb, "its ingress port"),
            Port::input("deq_prio", nb, "its priority"),
            Port::input("deq_len", lb, "its length in bytes"),
            Port::input("csr_we", 1, "CSR write strobe"),
            Port::input("csr_addr", CSR_ADDR_BITS, "CSR word index"),
            Port::input("csr_wdata", CSR_DATA_BITS, "CSR write data"),
            Port::output("enq_drop", 1, "an enqueue would exceed MAX: dropped"),
            Port::output(
                "xoff_valid",
                1,
                "pause request: a (port, priority) entered XOFF",
            ),
            Port::output("xoff_port", pb, "its port (0 when not valid)"),
            Port::output("xoff_prio", nb, "its priority (0 when not valid)"),
            Port::output(
                "xon_valid",
                1,
                "resume request: a (port, priority) left XOFF",
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
        ("enq", DROP_LATENCY),
        ("xoff", REQUEST_LATENCY),
        ("xon", REQUEST_LATENCY),
        ("frame", FRAME_LATENCY),
        ("csr", 0),
    ])
}

port_bundle!(
    /// Inputs of one edge.
    PfcIn {
        enq_valid, enq_port, enq_prio, enq_len,
        deq_valid, deq_port, deq_prio, deq_len,
        csr_we, csr_addr, csr_wdata,
    }
);

port_bundle!(
    /// Registered outputs after one edge.
    PfcOut {
        enq_drop,
        xoff_valid, xoff_port, xoff_prio,
        xon_valid, xon_port, xon_prio,
        frame_valid, frame_port, frame_class_enable, frame_pause, frame_quanta,
        csr_rdata,
    }
);

/// One event of an occupancy bus (enqueue or dequeue), as held by the input stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Event {
    pub valid: bool,
    /// Valid but naming a port or priority out of range: ignored, flagged in `ERR`.
    pub bad_index: bool,
    /// The key, always in range: (0, 0) for an out-of-range index.
    pub port: usize,
    pub prio: usize,
    pub len: u64,
}

impl Event {
    /// Samples a bus of a block with `ports` x `priorities` keys.
    pub fn sample(
        valid: u64,
        port: u64,
        prio: u64,
        len: u64,
        ports: u32,
        priorities: u32,
    ) -> Event {
        let in_range = port < u64::from(ports) && prio < u64::from(priorities);
        Event {
            valid: valid == 1 && in_range,
            bad_index: valid == 1 && !in_range,
            port: if in_range { port as usize } else { 0 },
            prio: if in_range { prio as usize } else { 0 },
            len,
        }
    }
}

/// Byte occupancy per (port, priority): dequeues clamp at zero (flagged), enqueues that would
/// exceed MAX are dropped. Shared by PFC's ingress and CaPFC's egress buffers.
#[derive(Clone, Debug)]
pub struct Occupancy {
    bytes: Vec<u64>,
    priorities: usize,
}

impl Occupancy {
    pub fn new(ports: u32, priorities: u32) -> Occupancy {
        Occupancy {
            bytes: vec![0; (ports * priorities) as usize],
            priorities: priorities as usize,
        }
    }

    pub fn reset(&mut self) {
        self.bytes.fill(0);
    }

    pub fn get(&self, port: usize, prio: usize) -> u64 {
        self.bytes[port * self.priorities + prio]
    }

    /// Removes `len` bytes; returns the new occupancy and whether it underflowed (clamped to 0).
    #[inline]
    pub fn dequeue(&mut self, port: usize, prio: usize, len: u64) -> (u64, bool) {
        let b = &mut self.bytes[port * self.priorities + prio];
        let underflow = len > *b;
        *b = b.saturating_sub(len);
        (*b, underflow)
    }

    /// Adds `len` bytes unless the sum would exceed `max`; returns the new occupancy and
    /// whether the packet was dropped.
    #[inline]
    pub fn enqueue(&mut self, port: usize, prio: usize, len: u64, max: u64) -> (u64, bool) {
        let b = &mut self.bytes[port * self.priorities + prio];
        let drop = *b + len > max;
        if !drop {
            *b += len;
        }
        (*b, drop)
    }
}

/// Thresholds of an XOFF/XON hysteresis, in bytes.
#[derive(Clone, Copy, Debug)]
pub struct Thresholds {
    pub xoff: u64,
    pub xon: u64,
    pub max: u64,
}

/// What [`Ingress::apply`] did with one edge's events, in the spec's order (dequeue, then
/// enqueue). Blocks delay it to their declared latencies before it reaches an output.
#[derive(Clone, Copy, Debug, Default)]
pub struct IngressEdge {
    /// The enqueue would have exceeded MAX.
    pub drop: bool,
    pub underflow: bool,
    pub bad_index: bool,
    /// (port, priority) that entered XOFF (only an enqueue can cause it).
    pub xoff: Option<(u8, u8)>,
    /// (port, priority) that left XOFF (only a dequeue can cause it).
    pub xon: Option<(u8, u8)>,
}
// Small, because the blocks copy one per edge into their delay lines (ports <= 64, priorities
// <= 8).

/// PFC's ingress logic, shared by PFC and CaPFC: occupancy per (port, priority) and its XOFF
/// bit, `>=` XOFF sets on enqueue, `<=` XON clears on dequeue (spec §2.3), applied on the edge
/// that samples the events.
#[derive(Clone, Debug)]
pub struct Ingress {
    occupancy: Occupancy,
    xoff: PauseState,
}

impl Ingress {
    pub fn new(ports: u32, priorities: u32) -> Ingress {
        Ingress {
            occupancy: Occupancy::new(ports, priorities),
            xoff: PauseState::new(ports),
        }
    }

    pub fn reset(&mut self) {
        self.occupancy.reset();
        self.xoff.reset();
    }

    pub fn occupancy(&self, port: usize, prio: usize) -> u64 {
        self.occupancy.get(port, prio)
    }

    pub fn is_xoff(&self, port: usize, prio: usize) -> bool {
        self.xoff.get(port, prio)
    }

    /// One edge's events: the dequeue, then the enqueue, update the occupancy, and each sets or
    /// clears its key's XOFF bit with `thr`. A transition is reported only when the state differs
    /// over the whole edge, so one edge never yields a spurious XOFF/XON pair.
    // Always: left to itself, LLVM keeps this call out of callers that inline `step`, which
    // costs PFC's model 15%.
    #[inline(always)]
    pub fn apply(&mut self, deq: Event, enq: Event, thr: Thresholds) -> IngressEdge {
        // An idle bus is applied as a zero-length event on key (0, 0), which changes nothing, so
        // the model takes one path whatever the traffic: random valid bits would otherwise cost
        // a mispredicted branch on most cycles.
        let deq_len = if deq.valid { deq.len } else { 0 };
        let enq_len = if enq.valid { enq.len } else { 0 };
        let (b_deq, underflow) = self.occupancy.dequeue(deq.port, deq.prio, deq_len);
        let (b_enq, drop) = self.occupancy.enqueue(enq.port, enq.prio, enq_len, thr.max);
        // Without branches on the traffic, as above: `&` and masks instead of `&&` and `if`.
        let was_deq = self.xoff.get(deq.port, deq.prio);
        let was_enq = self.xoff.get(enq.port, enq.prio);
        self.xoff
            .clear_when(deq.port, deq.prio, deq.valid & (b_deq <= thr.xon));
        self.xoff
            .set_when(enq.port, enq.prio, enq.valid & (b_enq >= thr.xoff));
        let entered = enq.valid & !was_enq & self.xoff.get(enq.port, enq.prio);
        let left = deq.valid & was_deq & !self.xoff.get(deq.port, deq.prio);
        IngressEdge {
            drop: drop && enq.valid,
            underflow,
            bad_index: deq.bad_index || enq.bad_index,
            xoff: entered.then_some((enq.port as u8, enq.prio as u8)),
            xon: left.then_some((deq.port as u8, deq.prio as u8)),
        }
    }
}

/// Per port, the classes in XOFF (bit = priority). [`Ingress`] keeps the state its decisions
/// make; a block keeps another that follows its delayed pause requests, the state its outputs
/// have shown, which is what the frame generator and the register reads see.
#[derive(Clone, Debug)]
pub struct PauseState(Vec<u8>);

impl PauseState {
    pub fn new(ports: u32) -> PauseState {
        PauseState(vec![0; ports as usize])
    }

    pub fn reset(&mut self) {
        self.0.fill(0);
    }

    #[inline]
    pub fn get(&self, port: usize, prio: usize) -> bool {
        self.0[port] >> prio & 1 == 1
    }

    /// Sets the bit when `cond` holds, without a branch.
    #[inline]
    pub fn set_when(&mut self, port: usize, prio: usize, cond: bool) {
        self.0[port] |= u8::from(cond) << prio;
    }

    /// Clears the bit when `cond` holds, without a branch.
    #[inline]
    pub fn clear_when(&mut self, port: usize, prio: usize, cond: bool) {
        self.0[port] &= !(u8::from(cond) << prio);
    }

    /// Applies the pause requests of `edge`, calling `changed(port, priority)` for each (XOFF,
    /// then XON).
    // A callback, not an iterator over the changed keys: the chained iterator cost PFC's model
    // 8% of its speed.
    #[inline(always)]
    pub fn follow(&mut self, edge: &IngressEdge, mut changed: impl FnMut(usize, usize)) {
        if let Some((port, prio)) = edge.xoff {
            let (port, prio) = (port.into(), prio.into());
            self.set_when(port, prio, true);
            changed(port, prio);
        }
        if let Some((port, prio)) = edge.xon {
            let (port, prio) = (port.into(), prio.into());
            self.clear_when(port, prio, true);
            changed(port, prio);
        }
    }

    /// Per port, the classes in XOFF.
    pub fn ports(&self) -> &[u8] {
        &self.0
    }
}

/// The clock and link a PFC or CaPFC preset is sized for (`switchcraft config` states it):
/// `fpga` a 100 MHz FPGA clock, `paper` a 1 GHz switch clock (assumed: the paper gives none),
/// both on the CaPFC paper's 1 Gb/s links, for which its Table II thresholds are set. `tiny`
/// has none: its sizes and times are chosen to exercise the logic.
pub fn preset_timing(name: &str) -> Option<ClockAndLink> {
    ClockAndLink::of_sized_preset(name, 1e9)
}

/// How long a PAUSE of `quanta` holds the upstream class on `t`'s link: 512 bit times per
/// quantum.
pub fn pause_ns(t: &ClockAndLink, quanta: u64) -> f64 {
    t.line_ns(quanta as f64 * 512.0)
}

/// What `switchcraft config` says of a PFC or CaPFC preset's timing: its clock and link, the
/// pause time and the longest wait for a refresh PAUSE while XOFF holds (REFRESH + P - 1
/// cycles: the tick, then the round robin); or that it has none.
pub fn describe_preset_timing(preset: &str, quanta: u64, refresh: u64, ports: u32) -> String {
    match preset_timing(preset) {
        Some(t) => format!(
            "Table II thresholds of the CaPFC paper for {}: a PAUSE holds {} us, refreshed at \
             least every {} us",
            t.describe(),
            pause_ns(&t, quanta) / 1000.0,
            t.ns(refresh + u64::from(ports) - 1) / 1000.0
        ),
        None => "no clock or link: sizes and times chosen to exercise the logic".into(),
    }
}

/// One 802.1Qbb PFC frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub port: usize,
    /// Classes the frame carries a time for.
    pub class_enable: u8,
    /// Enabled classes whose time is QUANTA (the others carry 0, RESUME).
    pub pause: u8,
}

/// The pause-frame generator, shared by PFC and CaPFC. Per port it keeps one flag, set when a
/// class of the port changes state or a refresh tick finds a paused class on it; each edge it
/// grants at most one port, the first flagged port after the one it granted last (round
/// robin), and sends the frame of the port granted at the edge before. A frame states every
/// class of its port as the pause state is when it is built: the paused ones with QUANTA (a
/// PAUSE), the others with 0 (a RESUME, which upstream ignores for a class it does not hold
/// paused). So the generator needs no per-class memory of what changed, and any frame repairs a
/// lost RESUME of its port. Every REFRESH cycles a tick flags every port with a paused class.
#[derive(Clone, Debug)]
pub struct FrameGen {
    /// Ports with a change or a refresh not yet granted (bit = port).
    dirty: u64,
    /// Ports the round robin looks at first: those after the port granted last.
    rr_above: u64,
    /// The port granted at the previous edge: its frame is this edge's.
    granted: Option<usize>,
    refresh_timer: u64,
    all_ports: u64,
    /// The classes that exist: every frame's class-enable vector.
    all_classes: u8,
}

impl FrameGen {
    pub fn new(ports: u32, priorities: u32) -> FrameGen {
        let mut g = FrameGen {
            dirty: 0,
            rr_above: 0,
            granted: None,
            refresh_timer: 0,
            all_ports: mask(ports),
            all_classes: mask(priorities) as u8,
        };
        g.reset();
        g
    }

    pub fn reset(&mut self) {
        self.dirty = 0;
        self.rr_above = self.all_ports;
        self.granted = None;
        self.refresh_timer = 0;
    }

    /// Records that a class of each port in `ports` (bit = port) changed state.
    #[inline]
    pub fn mark_ports(&mut self, ports: u64) {
        self.dirty |= ports;
    }

    /// The frame of this edge, for the port granted at the previous edge, given the paused
    /// classes of every port before this edge; and this edge's grant.
    #[inline]
    pub fn send(&mut self, paused: &[u8]) -> Option<Frame> {
        let frame = self.granted.take().map(|port| Frame {
            port,
            class_enable: self.all_classes,
            pause: paused[port],
        });
        if self.dirty != 0 {
            let above = self.dirty & self.rr_above;
            let port = if above != 0 { above } else { self.dirty }.trailing_zeros() as usize;
            self.dirty &= !(1 << port);
            self.rr_above = self.all_ports & !mask(port as u32 + 1);
            self.granted = Some(port);
        }
        frame
    }

    /// The refresh timer's edge. REFRESH = 0 behaves as 1 (a tick every cycle).
    #[inline]
    pub fn tick(&mut self, paused: &[u8], refresh: u64) {
        if self.refresh_timer + 1 >= refresh {
            self.refresh_timer = 0;
            for (p, &classes) in paused.iter().enumerate() {
                if classes != 0 {
                    self.dirty |= 1 << p;
                }
            }
        } else {
            self.refresh_timer += 1;
        }
    }
}

pub struct Pfc {
    cfg: PfcConfig,
    schema: PortSchema,
    csr: CsrFile,
    ingress: Ingress,
    /// Each edge's ingress results, until the RTL's occupancy stage reports them (`enq_drop`,
    /// the `ERR` bits) and its decision stage the pause requests.
    ingress_results: DelayLine<IngressEdge>,
    /// The pause state as the frame generator sees it: as the request outputs showed it one
    /// edge before.
    paused: PauseState,
    frames: FrameGen,
}

impl Pfc {
    pub fn new(cfg: &PfcConfig) -> Result<Pfc, ConfigError> {
        cfg.validate()?;
        let schema = port_schema(cfg);
        let mut m = Pfc {
            cfg: cfg.clone(),
            csr: CsrFile::new(&regmap(cfg)),
            ingress: Ingress::new(cfg.ports, cfg.priorities),
            ingress_results: DelayLine::new(),
            paused: PauseState::new(cfg.ports),
            frames: FrameGen::new(cfg.ports, cfg.priorities),
            schema,
        };
        CycleModel::reset(&mut m);
        Ok(m)
    }

    pub fn config(&self) -> &PfcConfig {
        &self.cfg
    }

    /// Register `index` as software would read it now.
    pub fn csr(&self, index: u32) -> u64 {
        self.csr.get(index)
    }

    /// The occupancy after the events sampled so far (the RTL shows it one stage later).
    pub fn occupancy(&self, port: usize, prio: usize) -> u64 {
        self.ingress.occupancy(port, prio)
    }

    /// The XOFF state after the events sampled so far (the request outputs show its changes
    /// `REQUEST_LATENCY` edges later).
    pub fn is_xoff(&self, port: usize, prio: usize) -> bool {
        self.ingress.is_xoff(port, prio)
    }

    fn sample(&self, valid: u64, port: u64, prio: u64, len: u64) -> Event {
        Event::sample(valid, port, prio, len, self.cfg.ports, self.cfg.priorities)
    }
}

impl CycleModel for Pfc {
    type In = PfcIn;
    type Out = PfcOut;

    fn ports(&self) -> &PortSchema {
        &self.schema
    }

    fn reset(&mut self) {
        self.csr.reset();
        self.ingress.reset();
        self.ingress_results.reset();
        self.paused.reset();
        self.frames.reset();
    }

    #[inline]
    fn step(&mut self, i: &PfcIn) -> PfcOut {
        let mut out = PfcOut::default();
        // The frame generator sees the pause state as the request outputs showed it at the
        // previous edge; the ports those requests changed become eligible one edge later (the
        // RTL registers them from the request registers). It and the refresh tick go before this
        // edge's CSR write, and a port's flag raised now survives the clear of its frame.
        // Before this edge's push, the requests output at the previous edge.
        let seen = self.ingress_results.tap(REQUEST_LATENCY);
        let mut changed_ports = 0u64;
        self.paused
            .follow(&seen, |port, _| changed_ports |= 1 << port);
        if let Some(f) = self.frames.send(self.paused.ports()) {
            out.frame_valid = 1;
            out.frame_port = f.port as u64;
            out.frame_class_enable = f.class_enable.into();
            out.frame_pause = f.pause.into();
            out.frame_quanta = self.csr.get(reg::QUANTA);
        }
        self.frames
            .tick(self.paused.ports(), self.csr.get(reg::REFRESH));
        self.frames.mark_ports(changed_ports);
        // A CSR write applies to the events of its own edge.
        out.csr_rdata = self.csr.access(i.csr_we == 1, i.csr_addr, i.csr_wdata);
        let thr = Thresholds {
            xoff: self.csr.get(reg::XOFF),
            xon: self.csr.get(reg::XON),
            max: self.csr.get(reg::MAX),
        };
        let deq = self.sample(i.deq_valid, i.deq_port, i.deq_prio, i.deq_len);
        let enq = self.sample(i.enq_valid, i.enq_port, i.enq_prio, i.enq_len);
        let edge = self.ingress.apply(deq, enq, thr);

        self.ingress_results.push(edge);
        let occupied = self.ingress_results.tap(DROP_LATENCY);
        out.enq_drop = occupied.drop.into();
        let err = (u64::from(occupied.underflow) * ERR_UNDERFLOW)
            | (u64::from(occupied.bad_index) * ERR_INDEX);
        // Hardware-set flags win over a write-1-to-clear on the same edge.
        self.csr.set(reg::ERR, self.csr.get(reg::ERR) | err);

        let decided = self.ingress_results.tap(REQUEST_LATENCY);
        if let Some((port, prio)) = decided.xoff {
            (out.xoff_valid, out.xoff_port, out.xoff_prio) = (1, port.into(), prio.into());
        }
        if let Some((port, prio)) = decided.xon {
            (out.xon_valid, out.xon_port, out.xon_prio) = (1, port.into(), prio.into());
        }
        out
    }
}

mod workload;
pub use workload::PfcWorkload;
