//! BFC: backpressure flow control (spec ../shared/spec/mechanisms.md §3). A flow table indexed
//! by (egress port, hash(flow id) mod M) assigns flows to queues dynamically and sticks to the
//! assignment while the flow has packets in the switch; a pause counter per (ingress port,
//! upstream queue) pauses the upstream queue while packets that found their queue above the
//! threshold Th are still in the switch.
//!
//! This module holds the block's static parameters ([`BfcConfig`], its presets and rules), the
//! pause-threshold table ([`th_table`], spec §3.4), the register map ([`regmap`]), the port
//! schema and the cycle model ([`Bfc`], whose doc gives the cycle semantics).
//!
//! Choices where the spec leaves room (docs/blocks/bfc.md lists them):
//! * an entry's queue 0 means "never assigned" (queue 0 is the control queue), so a cleared
//!   table needs no valid bits;
//! * the entry's timestamp is written by dequeues only: the sticky rule reads it only when
//!   `size` is 0, and then the last event on the entry was a dequeue;
//! * the random queue is `first + (lfsr[31:16] * count) >> 16` (multiply-shift, no divider);
//!   the LFSR steps once per edge; stochastic mode does the same with the flow hash;
//! * a packet that finds its pause counter saturated is not counted, so the counter stays
//!   exact for the packets it did count;
//! * colliding flows of one class share the entry's queue (order is kept); the entry keeps
//!   the class it was assigned for, and a packet of another class that finds the entry busy
//!   goes to its own class's hash queue (`first + (hash[31:16] * count) >> 16`, stochastic
//!   mode's pick) without touching the entry's queue, so classes never share a queue (App.
//!   A.3). An idle entry is reassigned to the new class at once, sticky or not.

use crate::config::parse_toml;
use serde::{Deserialize, Serialize};
use switchcraft_core::csr::{Access, CsrFile, Reg, RegMap, CSR_ADDR_BITS, CSR_DATA_BITS};
use switchcraft_core::hash::{hash32, reduce_top};
use switchcraft_core::lfsr::Lfsr32;
use switchcraft_core::InputError;
use switchcraft_core::{index_bits, mask, ConfigError, CycleModel, DelayLine, Port, PortSchema};

/// How a new flow gets its queue (spec §3.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Assign {
    /// Dynamic queue assignment: the first empty queue of the flow's class from a rotating
    /// start, else a random one (the paper's design).
    Dynamic,
    /// Static: the hash of the flow id picks the queue within the class (SFQ-like).
    Stochastic,
    /// Every flow of a class in the class's first queue (PFC-like).
    Single,
}

/// Static parameters of a BFC instance. Sticky time, T_bm, the Th table, the class split and
/// the LFSR seed are the reset values of their CSRs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BfcConfig {
    /// Ports P (2..=64); each is an ingress and an egress.
    pub ports: u32,
    /// Queues per egress port (2..=128). Queue 0 is the control queue, never assigned to a
    /// flow; queues 1.. carry data.
    pub queues: u32,
    /// Flow-table entries per egress port = `ft_multiple * queues` (1..=1000; the paper's 100).
    /// The whole table, ports x queues x ft_multiple, is at most 2^20 entries.
    pub ft_multiple: u32,
    /// Width of the flow id on the enqueue bus (8..=64).
    pub fid_bits: u32,
    /// Bits of the CRC-32C of the flow id used for the table index (8..=32, <= fid_bits).
    pub hash_bits: u32,
    /// Width of an entry's packet count `size` (1..=24).
    pub size_bits: u32,
    /// Width of an entry's timestamp (2..=32), in units of `2^ts_shift` cycles (ts_shift
    /// 0..=16).
    pub ts_bits: u32,
    pub ts_shift: u32,
    /// Sticky time in timestamp units: an entry is reassigned only when its size is 0 and this
    /// long has passed since its last enqueue or dequeue. 0 turns sticky off (the base design).
    pub sticky: u64,
    /// Width of the queue occupancy in bytes (8..=32) and of the length fields (1..=16).
    pub occupancy_bits: u32,
    pub length_bits: u32,
    /// Queues per upstream port, the range of `upstreamQ` (2..=128): pause counters per ingress.
    pub upstream_queues: u32,
    /// Width of a pause counter (1..=24).
    pub pc_bits: u32,
    /// Cycles between two pause bitmaps of one ingress port (ports x bitmap chunks..=2^24 - 1).
    pub t_bm: u64,
    /// Traffic classes (1..=8); the data queues are split among them in contiguous ranges.
    pub classes: u32,
    pub assign: Assign,
    /// Speed classes S (1..=4): each has its own row of the Th table (spec §3.4,
    /// `ThTab[speed][N_active]`), computed from its egress links' rate and HRTT_max. Missing
    /// from a TOML file it is 1.
    #[serde(default = "one_speed")]
    pub speeds: u32,
    /// The reset speed class of each egress port (`port_speed` CSR), `ports` entries each
    /// below `speeds`. Missing or empty: every port is class 0.
    #[serde(default)]
    pub port_speed: Vec<u32>,
    /// Th in bytes by speed class and N_active: row s is entries `s * queues ..`, and entry
    /// `s * queues + n - 1` is Th for n = 1..=queues active queues (N_active = 0 uses n = 1).
    /// At least `speeds x queues` entries, each in 1..2^occupancy_bits. Missing from a TOML
    /// file it is empty, which `validate` refuses (`switchcraft bfc thresholds` fills it).
    #[serde(default)]
    pub th: Vec<u64>,
    /// Seed of the LFSR that picks a random queue when no queue of the class is empty.
    pub lfsr_seed: u32,
    /// BFC + Sampling (spec §3.6, App. A.8): with this on, an arrival is sampled with
    /// probability `sample_rate / 256` (the `sample_rate` register); only a sampled packet
    /// counts in its flow-table entry's `size` and in its pause counter, and only its
    /// departure runs the flow-table update (`asg_ft_skip`/`deq_ft_skip`). Every arrival
    /// stamps its entry (`ts_enq`) and an entry stays sticky while its last arrival or its
    /// last departure is within STICKY. Off (missing from a TOML file): every packet counts
    /// and the entries carry no arrival stamp.
    #[serde(default)]
    pub sampling: bool,
    /// The reset value of `sample_rate` (1..=256; p_s = sample_rate / 256). Missing: 128,
    /// the paper's 50 %. Used only with `sampling`.
    #[serde(default = "half_rate")]
    pub sample_rate: u32,
    /// Incast label (spec §3.6, App. A.7): an arrival with `enq_incast` set skips dynamic
    /// queue assignment and the flow table; every labelled packet of one (egress port, class)
    /// goes to that pair's incast queue, chosen like a new flow's queue when the pair has
    /// none or its queue has drained. Off (missing from a TOML file): the label is ignored.
    #[serde(default)]
    pub incast_label: bool,
    /// Ingress pipelines the flow table is split across (spec §3.5 [P]: Tofino2 keeps its
    /// flow table in 4 ingress pipelines, split by ingress port). Pipeline p serves the
    /// ingress ports `p x ports / pipelines ..` and owns slice p of each egress port's M
    /// entries, so flows from different pipelines never share an entry. Missing: 1.
    #[serde(default = "one_pipeline")]
    pub pipelines: u32,
    /// Model only (spec §3.5 [P], the Tofino2 mapping): edges from a packet leaving its queue
    /// to its dequeue update reaching the flow table and the pause counter (a mirrored,
    /// recirculated header); the occupancy falls at once (the traffic manager pushes queue
    /// depths to the pipelines). 0..=65535; part of HRTT (§3.10.5). Missing: 0, bookkeeping
    /// next to the traffic manager, as in the RTL.
    #[serde(default)]
    pub deq_update_latency: u32,
    /// Model only (spec §3.4 [S], experiments): resume an upstream queue when the queue its
    /// counted packets wait in is no longer above Th, not when they have left.
    #[serde(default)]
    pub early_resume: bool,
    /// Model only (spec §3.10.2 [S]): a queue is a candidate for a new flow only when it is
    /// empty and no other flow-table entry of its port holds it (packets, or within STICKY
    /// of its last event).
    #[serde(default)]
    pub reserve_sticky: bool,
}

/// Flow-table entries of the whole block the RTL can address (its 20-bit flow-table address).
pub const MAX_ENTRIES: u64 = 1 << 20;
/// The largest bitmap period: T_BM is a 24-bit register.
pub const MAX_T_BM: u64 = (1 << 24) - 1;

fn one_speed() -> u32 {
    1
}

fn one_pipeline() -> u32 {
    1
}

/// The largest `deq_update_latency`, edges.
pub const MAX_DEQ_UPDATE_LATENCY: u32 = 65_535;

/// The most ingress pipelines of a BFC instance (Tofino2 has 4).
pub const MAX_PIPELINES: u32 = 4;

fn half_rate() -> u32 {
    SAMPLE_ALL / 2
}

/// `sample_rate` that samples every packet: the draw is the LFSR's low 8 bits `< rate`.
pub const SAMPLE_ALL: u32 = 256;

/// The most speed classes a BFC instance has (a 2-bit `port_speed` CSR per port).
pub const MAX_SPEEDS: u32 = 4;

pub const PRESETS: &[&str] = &["tiny", "fpga", "tofino-loopback", "ns3-tor", "tofino2"];

/// The link and clock a config's time constants are derived for ([`BfcConfig::derive_times`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// The block's clock, MHz (one event per bus per cycle).
    pub clock_mhz: f64,
    /// The egress links' rate, bit/s.
    pub rate_bps: f64,
    /// The largest one-hop RTT of the ingresses feeding a port, ns.
    pub hrtt_ns: f64,
}

/// T_BM in HRTTs: the spec's default bitmap period, 10 us at HRTT = 2 us (§3.4 [S]).
pub const T_BM_HRTTS: f64 = 5.0;
/// STICKY in HRTTs (§3.3.2 [P]: 2 HRTT = 4 us).
pub const STICKY_HRTTS: f64 = 2.0;

impl Timing {
    /// The clock and links a preset's time constants are derived for. `tiny` has none: its
    /// constants are chosen to exercise the logic within a few hundred cycles.
    pub fn of_preset(name: &str) -> Option<Timing> {
        let (clock_mhz, rate_bps) = match name {
            // An HX8K design clock; its links are 25G.
            "fpga" => (100.0, 25e9),
            // The paper's hardware: a switch pipeline at an assumed 1 GHz (the paper does not
            // give Tofino2's clock), with the links of each testbed.
            "tofino-loopback" | "ns3-tor" => (1000.0, 100e9),
            // Tofino2's 128 queues per port are those of its 400G ports (spec §3.5).
            "tofino2" => (1000.0, 400e9),
            _ => return None,
        };
        Some(Timing {
            clock_mhz,
            rate_bps,
            hrtt_ns: 2000.0,
        })
    }

    /// `100 MHz clock, 25 Gb/s links, HRTT 2000 ns`.
    pub fn describe(&self) -> String {
        format!(
            "{} MHz clock, {} Gb/s links, HRTT {} ns",
            self.clock_mhz,
            self.rate_bps / 1e9,
            self.hrtt_ns
        )
    }
}

impl BfcConfig {
    /// A named preset; every preset but `tiny` derives its Th table, STICKY and T_BM from its
    /// [`Timing::of_preset`].
    pub fn preset(name: &str) -> Option<BfcConfig> {
        let mut cfg = Self::preset_fields(name)?;
        if let Some(t) = Timing::of_preset(name) {
            cfg.derive_times(&t)
                .expect("a preset's timing fits its widths");
        }
        Some(cfg)
    }

    /// Every optional mode off (one pipeline, sampling at its default rate); the fields of
    /// the block's shape are zero, for a preset to set.
    fn options_off() -> BfcConfig {
        BfcConfig {
            ports: 0,
            queues: 0,
            ft_multiple: 0,
            fid_bits: 0,
            hash_bits: 0,
            size_bits: 0,
            ts_bits: 0,
            ts_shift: 0,
            sticky: 0,
            occupancy_bits: 0,
            length_bits: 0,
            upstream_queues: 0,
            pc_bits: 0,
            t_bm: 0,
            classes: 0,
            assign: Assign::Dynamic,
            speeds: one_speed(),
            port_speed: Vec::new(),
            th: Vec::new(),
            lfsr_seed: 0,
            sampling: false,
            sample_rate: half_rate(),
            incast_label: false,
            pipelines: one_pipeline(),
            deq_update_latency: 0,
            early_resume: false,
            reserve_sticky: false,
        }
    }

    fn preset_fields(name: &str) -> Option<BfcConfig> {
        Some(match name {
            // Few table entries and narrow counters, so random tests collide flows, fill
            // queues and saturate within a few hundred cycles.
            "tiny" => BfcConfig {
                ports: 4,
                queues: 8,
                ft_multiple: 4,
                fid_bits: 16,
                hash_bits: 16,
                size_bits: 6,
                ts_bits: 8,
                ts_shift: 0,
                sticky: 16,
                occupancy_bits: 16,
                length_bits: 11,
                upstream_queues: 8,
                pc_bits: 6,
                t_bm: 64,
                classes: 1,
                assign: Assign::Dynamic,
                speeds: 1,
                port_speed: Vec::new(),
                th: vec![3000, 1500, 1000, 750, 600, 500, 428, 375],
                lfsr_seed: 1,
                ..Self::options_off()
            },
            // For an iCE40 HX8K: 4 ports x 8 queues at 25 Gb/s (HRTT 2 us, Th(1) = 6 250 B), 16 x
            // queues flow-table entries per port (512, in block RAM), 14-bit occupancies (16 KiB
            // per queue) and 6-bit pause counters. The counter rows are flip-flops (the arrival
            // reads a whole row); 8 ports would need 64 block RAMs or twice the flip-flops.
            "fpga" => BfcConfig {
                ports: 4,
                queues: 8,
                ft_multiple: 16,
                fid_bits: 32,
                hash_bits: 16,
                size_bits: 8,
                ts_bits: 12,
                ts_shift: 4,
                sticky: 25,
                occupancy_bits: 14,
                length_bits: 11,
                upstream_queues: 8,
                pc_bits: 6,
                t_bm: 1024,
                classes: 1,
                assign: Assign::Dynamic,
                speeds: 1,
                port_speed: Vec::new(),
                th: Vec::new(),
                lfsr_seed: 1,
                ..Self::options_off()
            },
            // The paper's Tofino2 testbed in loopback mode: 16 queues per port.
            "tofino-loopback" => BfcConfig {
                ports: 8,
                queues: 16,
                ft_multiple: 100,
                fid_bits: 64,
                hash_bits: 32,
                size_bits: 18,
                ts_bits: 16,
                ts_shift: 6,
                sticky: 16,
                occupancy_bits: 24,
                length_bits: 14,
                upstream_queues: 16,
                pc_bits: 18,
                t_bm: 5000,
                classes: 1,
                assign: Assign::Dynamic,
                speeds: 1,
                port_speed: Vec::new(),
                th: Vec::new(),
                lfsr_seed: 1,
                ..Self::options_off()
            },
            // The ns-3 ToR (spec §3.2): 24 ports x 32 queues x 100 = 76 800 entries.
            "ns3-tor" => BfcConfig {
                ports: 24,
                queues: 32,
                ft_multiple: 100,
                fid_bits: 64,
                hash_bits: 32,
                size_bits: 18,
                ts_bits: 16,
                ts_shift: 6,
                sticky: 16,
                occupancy_bits: 24,
                length_bits: 14,
                upstream_queues: 32,
                pc_bits: 18,
                t_bm: 5000,
                classes: 1,
                assign: Assign::Dynamic,
                speeds: 1,
                port_speed: Vec::new(),
                th: Vec::new(),
                lfsr_seed: 1,
                ..Self::options_off()
            },
            // Tofino2 (spec §3.2): 32 ports x 128 queues = 4096 queues, 409 600 entries; pause
            // counters 32 x 128 = 4096. Tofino2 has 128 queues on its 400G ports (32 on 100G,
            // spec §3.5), so the Th table is 400 Gb/s x 2 us: Th(1) = 100 000 B. The table is
            // split across its 4 ingress pipelines: 102 400 entries each (§3.5).
            "tofino2" => BfcConfig {
                ports: 32,
                queues: 128,
                ft_multiple: 100,
                fid_bits: 64,
                hash_bits: 32,
                size_bits: 17,
                ts_bits: 16,
                ts_shift: 6,
                sticky: 16,
                occupancy_bits: 24,
                length_bits: 14,
                upstream_queues: 128,
                pc_bits: 18,
                t_bm: 5000,
                classes: 1,
                assign: Assign::Dynamic,
                speeds: 1,
                port_speed: Vec::new(),
                th: Vec::new(),
                lfsr_seed: 1,
                pipelines: 4,
                ..Self::options_off()
            },
            _ => return None,
        })
    }

    pub fn from_toml(text: &str, name: &str) -> Result<BfcConfig, InputError> {
        let cfg = Self::parse_unchecked(text, name)?;
        cfg.validate()
            .map_err(|e| InputError(format!("{name}: {e}")))?;
        Ok(cfg)
    }

    /// Derives every time constant from `t`: the Th table HRTT x rate / N (§3.4), STICKY =
    /// 2 HRTT (§3.3.2 [P]) in timestamp units rounded up, T_BM = 5 HRTT (§3.4 [S]) in cycles
    /// rounded up and at least one bitmap round (ports x chunks cycles). Refuses a combination
    /// that makes one meaningless: a timestamp unit (2^ts_shift cycles) longer than 2 HRTT,
    /// STICKY at or past the wrap-safe half of the timestamp range, T_BM past its register.
    /// The config becomes single-speed (every port at `t.rate_bps`).
    pub fn derive_times(&mut self, t: &Timing) -> Result<(), ConfigError> {
        self.derive_clocked_times(t)?;
        self.speeds = 1;
        self.port_speed.clear();
        self.th = th_table(t.rate_bps, t.hrtt_ns, self.queues)
            .iter()
            .map(|r| r.bytes)
            .collect();
        Ok(())
    }

    /// The part of [`BfcConfig::derive_times`] that does not depend on the links' rate:
    /// STICKY and T_BM from the clock and HRTT (the largest of all speed classes' HRTTs, for a
    /// config with several). `t.rate_bps` is not read.
    pub fn derive_clocked_times(&mut self, t: &Timing) -> Result<(), ConfigError> {
        use crate::units::ceil_exact;
        let cycle_ns = 1000.0 / t.clock_mhz;
        let unit_ns = cycle_ns * f64::from(1u32 << self.ts_shift.min(31));
        let sticky_ns = STICKY_HRTTS * t.hrtt_ns;
        if sticky_ns < unit_ns {
            return Err(ConfigError::new(
                "ts_shift",
                self.ts_shift,
                format!(
                    "a timestamp unit of 2^ts_shift cycles is {unit_ns} ns at {} MHz, longer \
                     than STICKY = 2 HRTT = {sticky_ns} ns; lower ts_shift",
                    t.clock_mhz
                ),
            ));
        }
        let sticky = ceil_exact(sticky_ns / unit_ns) as u64;
        let half = 1u64 << (self.ts_bits.clamp(2, 32) - 1);
        if sticky >= half {
            return Err(ConfigError::new(
                "sticky",
                sticky,
                format!(
                    "STICKY = 2 HRTT = {sticky_ns} ns is {sticky} timestamp units of {unit_ns} \
                     ns at {} MHz, not below 2^(ts_bits - 1) = {half}; raise ts_bits or \
                     ts_shift",
                    t.clock_mhz
                ),
            ));
        }
        let scan = u64::from(self.ports) * u64::from(self.bitmap_chunks());
        let t_bm = (ceil_exact(T_BM_HRTTS * t.hrtt_ns / cycle_ns) as u64).max(scan);
        if t_bm > MAX_T_BM {
            return Err(ConfigError::new(
                "t_bm",
                t_bm,
                format!(
                    "T_BM = 5 HRTT = {} ns is more than {MAX_T_BM} cycles at {} MHz (the 24-bit \
                     register)",
                    T_BM_HRTTS * t.hrtt_ns,
                    t.clock_mhz
                ),
            ));
        }
        self.sticky = sticky;
        self.t_bm = t_bm;
        Ok(())
    }

    /// Parses without [`BfcConfig::validate`], for tools that change fields before checking
    /// (the thresholds calculator replaces `th`).
    pub fn parse_unchecked(text: &str, name: &str) -> Result<BfcConfig, InputError> {
        parse_toml(text, name)
    }

    /// This config as TOML (the format [`BfcConfig::from_toml`] reads).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a BfcConfig serializes to TOML")
    }

    /// Checks every rule of the block; the error names the field, its value and the rule.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let range = crate::config::in_range;
        range("ports", self.ports.into(), 2, 64)?;
        range("queues", self.queues.into(), 2, 128)?;
        if self.ft_multiple == 0 {
            return Err(ConfigError::new(
                "ft_multiple",
                0,
                "must be at least 1 (entries per port = ft_multiple x queues)",
            ));
        }
        range("ft_multiple", self.ft_multiple.into(), 1, 1000)?;
        range("fid_bits", self.fid_bits.into(), 8, 64)?;
        range("hash_bits", self.hash_bits.into(), 8, 32)?;
        if self.hash_bits > self.fid_bits {
            return Err(ConfigError::new(
                "hash_bits",
                self.hash_bits,
                format!(
                    "must be <= fid_bits ({}): a hash wider than the key adds no information",
                    self.fid_bits
                ),
            ));
        }
        let entries = self.entries_per_port();
        if entries > 1 << self.hash_bits {
            return Err(ConfigError::new(
                "hash_bits",
                self.hash_bits,
                format!(
                    "2^hash_bits must be at least the {entries} entries per port (ft_multiple x \
                     queues), or some entries are never used"
                ),
            ));
        }
        if self.entries() > MAX_ENTRIES {
            return Err(ConfigError::new(
                "ft_multiple",
                self.ft_multiple,
                format!(
                    "the flow table would have {} entries (ports x queues x ft_multiple); the \
                     RTL addresses at most 2^20 = {MAX_ENTRIES}",
                    self.entries()
                ),
            ));
        }
        range("size_bits", self.size_bits.into(), 1, 24)?;
        range("ts_bits", self.ts_bits.into(), 2, 32)?;
        range("ts_shift", self.ts_shift.into(), 0, 16)?;
        let half = 1u64 << (self.ts_bits - 1);
        if self.sticky >= half {
            return Err(ConfigError::new(
                "sticky",
                self.sticky,
                format!(
                    "must be below 2^(ts_bits - 1) = {half} timestamp units, so the wrapping \
                     age compare is exact (0 turns sticky off)"
                ),
            ));
        }
        range("occupancy_bits", self.occupancy_bits.into(), 8, 32)?;
        range("length_bits", self.length_bits.into(), 1, 16)?;
        if self.length_bits > self.occupancy_bits {
            return Err(ConfigError::new(
                "length_bits",
                self.length_bits,
                format!("must be <= occupancy_bits ({})", self.occupancy_bits),
            ));
        }
        range("upstream_queues", self.upstream_queues.into(), 2, 128)?;
        range("pc_bits", self.pc_bits.into(), 1, 24)?;
        let scan = u64::from(self.ports) * u64::from(self.bitmap_chunks());
        if self.t_bm < scan || self.t_bm > MAX_T_BM {
            return Err(ConfigError::new(
                "t_bm",
                self.t_bm,
                format!(
                    "must be in {scan}..={MAX_T_BM} cycles (at least one cycle per port and \
                     {}-queue chunk, so every port's whole bitmap goes out each period, and the \
                     periodic bitmap is what repairs a lost RESUME; at most the 24-bit T_BM \
                     register)",
                    self.bitmap_bits()
                ),
            ));
        }
        range("classes", self.classes.into(), 1, 8)?;
        if self.classes > self.queues - 1 {
            return Err(ConfigError::new(
                "classes",
                self.classes,
                format!(
                    "needs at least one data queue per class; queues = {} leaves {} data \
                     queues (queue 0 is the control queue)",
                    self.queues,
                    self.queues - 1
                ),
            ));
        }
        range("speeds", self.speeds.into(), 1, MAX_SPEEDS.into())?;
        if !self.port_speed.is_empty() && self.port_speed.len() != self.ports as usize {
            return Err(ConfigError::new(
                "port_speed",
                self.port_speed.len(),
                format!(
                    "needs one speed class per egress port ({} ports), or none (all class 0)",
                    self.ports
                ),
            ));
        }
        if let Some((o, &s)) = self
            .port_speed
            .iter()
            .enumerate()
            .find(|(_, &s)| s >= self.speeds)
        {
            return Err(ConfigError::new(
                &format!("port_speed[{o}]"),
                s,
                format!(
                    "must be a speed class below speeds = {} (a row of the Th table)",
                    self.speeds
                ),
            ));
        }
        range("sample_rate", self.sample_rate.into(), 1, SAMPLE_ALL.into())?;
        range("pipelines", self.pipelines.into(), 1, MAX_PIPELINES.into())?;
        range(
            "deq_update_latency",
            self.deq_update_latency.into(),
            0,
            MAX_DEQ_UPDATE_LATENCY.into(),
        )?;
        if !self.ports.is_multiple_of(self.pipelines) {
            return Err(ConfigError::new(
                "pipelines",
                self.pipelines,
                format!(
                    "must divide ports = {} (each pipeline serves as many ingress ports)",
                    self.ports
                ),
            ));
        }
        if !self
            .entries_per_port()
            .is_multiple_of(u64::from(self.pipelines))
        {
            return Err(ConfigError::new(
                "pipelines",
                self.pipelines,
                format!(
                    "must divide the {} flow-table entries per port (ft_multiple x queues), \
                     each pipeline owning an equal slice",
                    self.entries_per_port()
                ),
            ));
        }
        let rows = (self.speeds * self.queues) as usize;
        if self.th.len() < rows {
            return Err(ConfigError::new(
                "th",
                self.th.len(),
                format!(
                    "the Th table needs an entry for every speed class and N_active = 1..={} \
                     (speeds x queues = {rows}), it has {} entries",
                    self.queues,
                    self.th.len()
                ),
            ));
        }
        if let Some(n) = self.th.iter().position(|&t| t == 0) {
            return Err(ConfigError::new(
                &format!("th[{n}]"),
                0,
                "must be at least 1 byte (Th = 0 would count every packet of a non-empty queue)",
            ));
        }
        let limit = mask(self.occupancy_bits);
        if let Some((n, &t)) = self.th.iter().enumerate().find(|(_, &t)| t > limit) {
            return Err(ConfigError::new(
                &format!("th[{n}]"),
                t,
                format!(
                    "does not fit occupancy_bits = {} (at most {limit})",
                    self.occupancy_bits
                ),
            ));
        }
        Ok(())
    }

    pub fn port_bits(&self) -> u32 {
        index_bits(self.ports.into())
    }

    pub fn queue_bits(&self) -> u32 {
        index_bits(self.queues.into())
    }

    pub fn entries_per_port(&self) -> u64 {
        u64::from(self.ft_multiple) * u64::from(self.queues)
    }

    /// The first option set that only the golden model has (the RTL refuses the config),
    /// with the reason.
    pub fn model_only_option(&self) -> Option<(&'static str, &'static str)> {
        if self.deq_update_latency > 0 {
            Some((
                "deq_update_latency",
                "the Tofino2 mapping's recirculation delay; the RTL is the bookkeeping next to \
                 the traffic manager and takes each dequeue as it happens (0)",
            ))
        } else if self.early_resume {
            Some((
                "early_resume",
                "an experiment: it needs a count of counted packets per (queue, upstream \
                 queue), the bookkeeping the paper declined",
            ))
        } else if self.reserve_sticky {
            Some((
                "reserve_sticky",
                "an experiment: whether a queue is reserved changes with time alone (an \
                 entry's STICKY running out), which needs a scan of the flow table",
            ))
        } else {
            None
        }
    }

    /// Flow-table entries of one pipeline's slice of an egress port (M / pipelines).
    pub fn slice_entries(&self) -> u64 {
        self.entries_per_port() / u64::from(self.pipelines)
    }

    /// The ingress pipeline of ingress port `inp`.
    pub fn pipeline_of(&self, inp: u32) -> u32 {
        inp / (self.ports / self.pipelines)
    }

    /// Flow-table entries of the whole block.
    pub fn entries(&self) -> u64 {
        u64::from(self.ports) * self.entries_per_port()
    }

    /// Bits of one flow-table entry: queue, size, timestamp and class.
    pub fn entry_bits(&self) -> u32 {
        self.queue_bits() + self.size_bits + self.ts_bits + self.entry_class_bits()
    }

    /// Bits of the class an entry keeps: none with one class.
    pub fn entry_class_bits(&self) -> u32 {
        if self.classes == 1 {
            0
        } else {
            self.class_bits()
        }
    }

    /// Pause counters of the whole block: one per (ingress port, upstream queue).
    pub fn pause_counters(&self) -> u64 {
        u64::from(self.ports) * u64::from(self.upstream_queues)
    }

    pub fn upstream_bits(&self) -> u32 {
        index_bits(self.upstream_queues.into())
    }

    pub fn class_bits(&self) -> u32 {
        index_bits(self.classes.into())
    }

    /// Width of a flow-table key within its egress port's slice (`0..entries_per_port`).
    pub fn key_bits(&self) -> u32 {
        index_bits(self.entries_per_port())
    }

    /// Width of a received pause bitmap: the queues it covers at once (at most 32).
    pub fn rx_bitmap_bits(&self) -> u32 {
        self.queues.min(32)
    }

    /// Received bitmap chunks that cover a port's queues (`rx_base` is a chunk index).
    pub fn rx_chunks(&self) -> u32 {
        self.queues.div_ceil(self.rx_bitmap_bits())
    }

    /// Width of a sent pause bitmap: the upstream queues it covers at once (at most 32).
    pub fn bitmap_bits(&self) -> u32 {
        self.upstream_queues.min(32)
    }

    /// Sent bitmap chunks per ingress port.
    pub fn bitmap_chunks(&self) -> u32 {
        self.upstream_queues.div_ceil(self.bitmap_bits())
    }

    /// Cycles after reset during which the flow table is cleared one entry per cycle and
    /// events are refused (`ready` low).
    pub fn init_cycles(&self) -> u64 {
        self.entries()
    }

    /// The data queues of class `c`: a contiguous range of 1..queues, the first classes one
    /// queue longer when the split is uneven.
    pub fn class_queues(&self, c: u32) -> std::ops::Range<u32> {
        let (data, n) = (self.queues - 1, self.classes);
        let start = |c: u32| 1 + c * (data / n) + c.min(data % n);
        start(c)..start(c + 1)
    }
}

/// One row of the pause-threshold table: Th for `n_active` queues.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Th {
    pub n_active: u32,
    /// `HRTT * rate / max(n_active, 1)` in bytes, exact.
    pub exact: f64,
    /// What the CSR table holds: the exact value rounded down to whole bytes (and raised to
    /// the floor, if any).
    pub bytes: u64,
}

/// Th(n) = HRTT x rate / n for n = 1..=queues (spec §3.4), `rate_bps` in bit/s, `hrtt_ns` in
/// ns. At 100 Gb/s and HRTT = 2 us: 25 000, 12 500, 6 250, ..., 781.25 B at n = 32.
pub fn th_table(rate_bps: f64, hrtt_ns: f64, queues: u32) -> Vec<Th> {
    th_table_with_floor(rate_bps, hrtt_ns, queues, 0)
}

/// [`th_table`] with every entry raised to at least `th_min` bytes (spec §3.4 [S]: at 100 Gb/s
/// and HRTT = 2 us, 32 active queues give 781 B, less than one MTU; a floor of one MTU keeps a
/// queue from pausing before it holds a full packet). `th_min` 0 is the paper's table.
pub fn th_table_with_floor(rate_bps: f64, hrtt_ns: f64, queues: u32, th_min: u64) -> Vec<Th> {
    let bdp = hrtt_ns * 1e-9 * rate_bps / 8.0;
    (1..=queues)
        .map(|n| {
            let exact = bdp / f64::from(n);
            // Float noise may leave a whole number just below itself (6249.999...).
            let bytes = (crate::units::floor_exact(exact) as u64).max(th_min);
            Th {
                n_active: n,
                exact,
                bytes,
            }
        })
        .collect()
}

// ------------------------------------------------------------------------------------------
// The cycle model

/// Edges from the events of edge n to their results (`asg_*`, `pause_*`, `resume_*`, `bm_*`):
/// the RTL looks the flow-table entry up and picks the queue in cycle n, and runs the
/// occupancy, threshold and pause-counter stage in cycle n + 1.
pub const EVENT_LATENCY: u32 = 2;
const _: () = assert!(EVENT_LATENCY <= DelayLine::<Results>::MAX_LATENCY);

/// The `ERR` flags of the occupancy and pause-counter stage: they reach `err` one edge after
/// the flags of the lookup (a bad or refused event, a flow-table count at its limit, a
/// dequeue longer than its queue).
pub const ERR_LATE: u64 = err::QLEN_SATURATED | err::PC_SATURATED | err::PC_UNDERFLOW;

/// One edge's results on their way out, and the flags its second stage raises.
#[derive(Clone, Copy, Default)]
struct Results {
    out: BfcOut,
    err_late: u64,
}

/// Top bits of the LFSR (random fallback) or of the flow hash (stochastic mode) that pick a
/// queue within a class: `first + (top16 * count) >> 16`, a 16 x 7-bit multiply in hardware.
pub const PICK_BITS: u32 = 16;

/// Word indices of the BFC registers (see [`regmap`]).
pub mod reg {
    pub const ID: u32 = 0;
    pub const PARAMS: u32 = 1;
    pub const FT_SIZE: u32 = 2;
    pub const MODE: u32 = 3;
    pub const STICKY: u32 = 4;
    pub const T_BM: u32 = 5;
    pub const LFSR_SEED: u32 = 6;
    pub const STATUS: u32 = 7;
    pub const ERR: u32 = 8;
    pub const NOW_TS: u32 = 9;
    pub const TH_INDEX: u32 = 10;
    pub const TH_DATA: u32 = 11;
    pub const BPEN_INDEX: u32 = 12;
    pub const BPEN_LO: u32 = 13;
    pub const BPEN_HI: u32 = 14;
    pub const SNAP_INDEX: u32 = 15;
    pub const SNAP_DATA0: u32 = 16;
    pub const SNAP_DATA1: u32 = 17;
    pub const SNAP_DATA2: u32 = 18;
    pub const TH_SPEED: u32 = 19;
    pub const PORT_INDEX: u32 = 20;
    pub const PORT_SPEED: u32 = 21;
    pub const SPEEDS: u32 = 22;
    pub const SAMPLE_RATE: u32 = 23;
    /// `CLASS_BASE + c` holds class c's queue range.
    pub const CLASS_BASE: u32 = 24;
}

/// ID word: ASCII "BFC" and version 1.
pub const ID_WORD: u64 = 0x4246_4301;

/// `MODE` values (the assignment mode); 3 is reserved and acts as dynamic.
pub const MODE_DYNAMIC: u64 = 0;
pub const MODE_STOCHASTIC: u64 = 1;
pub const MODE_SINGLE: u64 = 2;

/// `STATUS` bits.
pub const STATUS_READY: u64 = 1;
pub const STATUS_SNAP_BUSY: u64 = 2;

/// `ERR` bits (sticky, write 1 to clear).
pub mod err {
    /// An event with a field out of range (port, queue, class, key, upstream queue), a zero
    /// length, or a class whose CSR range is invalid: the event is ignored.
    pub const BAD_EVENT: u64 = 1 << 0;
    /// An event while `ready` is low (the tables are being cleared): ignored.
    pub const NOT_READY: u64 = 1 << 1;
    /// A flow-table `size` was at its maximum on an enqueue: it stays there.
    pub const SIZE_SATURATED: u64 = 1 << 2;
    /// A dequeue found `size` 0: it stays 0.
    pub const SIZE_UNDERFLOW: u64 = 1 << 3;
    /// A queue occupancy would pass its maximum: it saturates.
    pub const QLEN_SATURATED: u64 = 1 << 4;
    /// A dequeue longer than its queue's occupancy: the occupancy clamps at 0.
    pub const QLEN_UNDERFLOW: u64 = 1 << 5;
    /// A packet found its pause counter at the maximum: it is not counted (`counter_incr` 0).
    pub const PC_SATURATED: u64 = 1 << 6;
    /// A marked dequeue found its pause counter at 0: it stays 0.
    pub const PC_UNDERFLOW: u64 = 1 << 7;
}

/// `SNAP_INDEX` table selector (bits [21:20]); the index is bits [19:0].
pub const SNAP_FLOW_TABLE: u64 = 0;
pub const SNAP_PAUSE_COUNTER: u64 = 1;
pub const SNAP_QUEUE: u64 = 2;
pub const SNAP_TABLE_SHIFT: u32 = 20;

/// `rx_kind` values.
pub const RX_PAUSE: u64 = 0;
pub const RX_RESUME: u64 = 1;
pub const RX_BITMAP: u64 = 2;

/// A class's queue range as its CSR holds it: first queue [6:0], queue count [14:8].
pub fn class_word(first: u32, count: u32) -> u64 {
    u64::from(first) | u64::from(count) << 8
}

/// The BFC register map, declared once: RTL decode, model, docs table and C header use it.
pub fn regmap(cfg: &BfcConfig) -> RegMap {
    let params = u64::from(cfg.ports)
        | u64::from(cfg.queues) << 8
        | u64::from(cfg.upstream_queues) << 16
        | u64::from(cfg.classes) << 24;
    let mode = match cfg.assign {
        Assign::Dynamic => MODE_DYNAMIC,
        Assign::Stochastic => MODE_STOCHASTIC,
        Assign::Single => MODE_SINGLE,
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
    let mut regs =
        vec![
        r("id", reg::ID, 32, Const, ID_WORD, "block ID \"BFC\" and version 1"),
        r(
            "params",
            reg::PARAMS,
            32,
            Const,
            params,
            "ports [7:0], queues [15:8], upstream_queues [23:16], classes [31:24]",
        ),
        r(
            "ft_size",
            reg::FT_SIZE,
            20,
            Const,
            cfg.entries_per_port(),
            "flow-table entries per egress port (M = ft_multiple x queues)",
        ),
        r(
            "mode",
            reg::MODE,
            2,
            Rw,
            mode,
            "queue assignment: 0 dynamic, 1 stochastic (hash), 2 single (class's first queue); \
             3 acts as 0",
        ),
        r(
            "sticky",
            reg::STICKY,
            cfg.ts_bits - 1,
            Rw,
            cfg.sticky,
            "sticky time in timestamp units (2^ts_shift cycles); 0: reassign as soon as size is 0",
        ),
        r(
            "t_bm",
            reg::T_BM,
            24,
            Rw,
            cfg.t_bm,
            "period of the pause bitmaps in cycles; 0 stops them; below ports x chunks, the \
             later ports get none",
        ),
        r(
            "lfsr_seed",
            reg::LFSR_SEED,
            32,
            Rw,
            u64::from(cfg.lfsr_seed),
            "a write reloads the random-queue LFSR with this seed (0 acts as 1)",
        ),
        r(
            "status",
            reg::STATUS,
            2,
            Ro,
            0,
            "bit 0 ready (tables cleared, events accepted); bit 1 snapshot pending",
        ),
        r(
            "err",
            reg::ERR,
            8,
            Rw1c,
            0,
            "sticky: 0 bad event, 1 event before ready, 2 size saturated, 3 size underflow, \
             4 qlen saturated, 5 qlen underflow, 6 pause counter saturated, 7 pause counter \
             underflow",
        ),
        r(
            "now_ts",
            reg::NOW_TS,
            cfg.ts_bits,
            Ro,
            0,
            "the current timestamp (cycle counter >> ts_shift, wrapping)",
        ),
        r(
            "th_index",
            reg::TH_INDEX,
            cfg.queue_bits(),
            Rw,
            0,
            "Th table entry n (used when max(N_active, 1) = n + 1) seen at th_data",
        ),
        r(
            "th_data",
            reg::TH_DATA,
            cfg.occupancy_bits,
            Window,
            0,
            "window on ThTab[th_speed][th_index], bytes: a read returns it, a write sets it",
        ),
        r(
            "bpen_index",
            reg::BPEN_INDEX,
            cfg.port_bits(),
            Rw,
            0,
            "ingress port i whose backpressure-enable row bpen_lo/hi shows",
        ),
        r(
            "bpen_lo",
            reg::BPEN_LO,
            cfg.ports.min(32),
            Window,
            0,
            "window on bpEn[i][egress 0..31]: bit o clear skips the pause counter for i -> o",
        ),
    ];
    if cfg.ports > 32 {
        regs.push(r(
            "bpen_hi",
            reg::BPEN_HI,
            cfg.ports - 32,
            Window,
            0,
            "window on bpEn[i][egress 32..]",
        ));
    }
    regs.extend([
        r(
            "snap_index",
            reg::SNAP_INDEX,
            22,
            Rw,
            0,
            "[21:20] table (0 flow table o x M + k, 1 pause counter {i, u}, 2 queue {o, q}), \
             [19:0] index; a write requests a snapshot",
        ),
        r(
            "snap_data0",
            reg::SNAP_DATA0,
            32,
            Ro,
            0,
            "snapshot: flow table q [7:0] and size [31:8]; pause counter; queue occupancy",
        ),
        r(
            "snap_data1",
            reg::SNAP_DATA1,
            32,
            Ro,
            0,
            "snapshot: flow table ts (last dequeue); queue: bit 0 paused by the downstream",
        ),
        r(
            "snap_data2",
            reg::SNAP_DATA2,
            3,
            Ro,
            0,
            "snapshot: flow table class [2:0] (the class q was assigned for)",
        ),
        r(
            "th_speed",
            reg::TH_SPEED,
            2,
            Rw,
            0,
            "speed class s whose Th row th_data shows (ThTab[s][th_index])",
        ),
        r(
            "port_index",
            reg::PORT_INDEX,
            cfg.port_bits(),
            Rw,
            0,
            "egress port o whose speed class port_speed shows",
        ),
        r(
            "port_speed",
            reg::PORT_SPEED,
            2,
            Window,
            0,
            "window on egress port o's speed class, the Th row its threshold is read from; a \
             write of a class >= speeds is ignored",
        ),
        r(
            "speeds",
            reg::SPEEDS,
            3,
            Const,
            cfg.speeds.into(),
            "speed classes S: rows of the Th table, values of port_speed",
        ),
        if cfg.sampling {
            r(
                "sample_rate",
                reg::SAMPLE_RATE,
                9,
                Rw,
                cfg.sample_rate.into(),
                "sampling: an arrival is sampled when the LFSR's low 8 bits are below this \
                 (p_s = sample_rate / 256; 256 and above sample every packet, 0 none)",
            )
        } else {
            r(
                "sample_rate",
                reg::SAMPLE_RATE,
                9,
                Const,
                SAMPLE_ALL.into(),
                "the config has no sampling: every packet is sampled",
            )
        },
    ]);
    for c in 0..cfg.classes {
        let q = cfg.class_queues(c);
        regs.push(r(
            CLASS_NAMES[c as usize],
            reg::CLASS_BASE + c,
            15,
            Rw,
            class_word(q.start, q.end - q.start),
            "class queue range: first queue [6:0] (>= 1), count [14:8] (>= 1, first + count <= \
             queues)",
        ));
    }
    RegMap::new("bfc", regs)
}

const CLASS_NAMES: [&str; 8] = [
    "class0", "class1", "class2", "class3", "class4", "class5", "class6", "class7",
];

/// The ports of `bfc_top` for `cfg` (clock `clk` and synchronous reset `rst` are implicit).
pub fn port_schema(cfg: &BfcConfig) -> PortSchema {
    let (pb, qb, ub, kb, lb) = (
        cfg.port_bits(),
        cfg.queue_bits(),
        cfg.upstream_bits(),
        cfg.key_bits(),
        cfg.length_bits,
    );
    PortSchema::new(
        "bfc",
        vec![
            Port::input("enq_valid", 1, "a packet arrives at the traffic manager"),
            Port::input("enq_in_port", pb, "its ingress port"),
            Port::input("enq_eg_port", pb, "its egress port (routing's choice)"),
            Port::input(
                "enq_fid",
                cfg.fid_bits,
                "its flow id (5-tuple bits or a wide key)",
            ),
            Port::input("enq_len", lb, "its length in bytes (>= 1)"),
            Port::input(
                "enq_upstream_q",
                ub,
                "the upstream queue it left (header field upstreamQ)",
            ),
            Port::input("enq_class", cfg.class_bits(), "its traffic class"),
            Port::input(
                "enq_incast",
                1,
                "incast_label: the sender labelled its flow incast (ignored without the option)",
            ),
            Port::input("deq_valid", 1, "a packet leaves its queue"),
            Port::input("deq_eg_port", pb, "its egress port"),
            Port::input("deq_queue", qb, "its queue (asg_queue of its enqueue)"),
            Port::input("deq_ft_key", kb, "its flow-table key (asg_ft_key)"),
            Port::input(
                "deq_counter_incr",
                1,
                "it was counted in a pause counter (asg_counter_incr)",
            ),
            Port::input("deq_in_port", pb, "its ingress port"),
            Port::input("deq_upstream_q", ub, "its upstreamQ as it arrived"),
            Port::input("deq_len", lb, "its length in bytes"),
            Port::input(
                "deq_ft_skip",
                1,
                "it did not count in its flow-table entry (asg_ft_skip)",
            ),
            Port::input("rx_valid", 1, "a BFC control frame arrived from downstream"),
            Port::input("rx_port", pb, "the egress port it paces"),
            Port::input("rx_kind", 2, "0 PAUSE, 1 RESUME (one queue), 2 bitmap"),
            Port::input("rx_queue", qb, "PAUSE/RESUME: the queue"),
            Port::input(
                "rx_base",
                index_bits(cfg.rx_chunks().into()),
                "bitmap: which chunk of rx_bitmap_bits queues",
            ),
            Port::input(
                "rx_bitmap",
                cfg.rx_bitmap_bits(),
                "bitmap: bit b pauses queue base x width + b, clear resumes it",
            ),
            Port::input("csr_we", 1, "CSR write strobe"),
            Port::input("csr_addr", CSR_ADDR_BITS, "CSR word index"),
            Port::input("csr_wdata", CSR_DATA_BITS, "CSR write data"),
            Port::output(
                "ready",
                1,
                "the tables are cleared: events of the next edge are accepted",
            ),
            Port::output("asg_valid", 1, "the result of an enqueue"),
            Port::output(
                "asg_refused",
                1,
                "the enqueue was refused (bad field or not ready) and changed nothing",
            ),
            Port::output("asg_queue", qb, "the queue the packet goes to (qAssign)"),
            Port::output(
                "asg_ft_key",
                kb,
                "its flow-table key, carried to the dequeue",
            ),
            Port::output(
                "asg_counter_incr",
                1,
                "it was counted in its pause counter, carried to the dequeue",
            ),
            Port::output("asg_new", 1, "dynamic mode: the entry was (re)assigned"),
            Port::output(
                "asg_ft_skip",
                1,
                "not counted in its flow-table entry (unsampled or incast), carried to the \
                 dequeue",
            ),
            Port::output(
                "pause_valid",
                1,
                "send PAUSE upstream: a pause counter left 0",
            ),
            Port::output("pause_port", pb, "the ingress port to send it on"),
            Port::output("pause_queue", ub, "the upstream queue to pause"),
            Port::output(
                "resume_valid",
                1,
                "send RESUME upstream: a pause counter returned to 0",
            ),
            Port::output("resume_port", pb, "the ingress port to send it on"),
            Port::output("resume_queue", ub, "the upstream queue to resume"),
            Port::output("bm_valid", 1, "send a periodic pause bitmap upstream"),
            Port::output("bm_port", pb, "the ingress port to send it on"),
            Port::output(
                "bm_base",
                index_bits(cfg.bitmap_chunks().into()),
                "which chunk of bitmap_bits upstream queues",
            ),
            Port::output(
                "bm_bits",
                cfg.bitmap_bits(),
                "bit b: upstream queue base x width + b has a non-zero pause counter",
            ),
            Port::output("csr_rdata", CSR_DATA_BITS, "CSR read data"),
        ],
    )
    .with_latencies(&[
        ("asg", EVENT_LATENCY),
        ("pause", EVENT_LATENCY),
        ("resume", EVENT_LATENCY),
        ("bm", EVENT_LATENCY),
        ("csr", 0),
    ])
}

port_bundle!(
    /// Inputs of one edge.
    BfcIn {
        enq_valid, enq_in_port, enq_eg_port, enq_fid, enq_len, enq_upstream_q, enq_class,
        enq_incast,
        deq_valid, deq_eg_port, deq_queue, deq_ft_key, deq_counter_incr, deq_in_port,
        deq_upstream_q, deq_len, deq_ft_skip,
        rx_valid, rx_port, rx_kind, rx_queue, rx_base, rx_bitmap,
        csr_we, csr_addr, csr_wdata,
    }
);

port_bundle!(
    /// Registered outputs after one edge.
    BfcOut {
        ready,
        asg_valid, asg_refused, asg_queue, asg_ft_key, asg_counter_incr, asg_new, asg_ft_skip,
        pause_valid, pause_port, pause_queue,
        resume_valid, resume_port, resume_queue,
        bm_valid, bm_port, bm_base, bm_bits,
        csr_rdata,
    }
);

/// One flow-table entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FtEntry {
    /// The assigned queue; 0 (the control queue) means never assigned.
    pub q: u32,
    /// Packets of this entry in the switch, saturating at `2^size_bits - 1`.
    pub size: u32,
    /// Timestamp of the last dequeue (`ts_bits` wide, wrapping). When `size` is 0 the last
    /// event on the entry was a dequeue, so this is the spec's "last enqueue/dequeue time"
    /// wherever the sticky rule reads it.
    pub ts: u32,
    /// The traffic class `q` was assigned for (`class_bits` wide). A CSR that moves the
    /// class's queue range later leaves `q` outside it; the class, not the range, says whether
    /// a colliding packet is of the entry's class.
    pub class: u32,
    /// Timestamp of the last arrival that looked the entry up (sampled or not): with
    /// sampling, packets the entry does not count keep it sticky. 0 without sampling.
    pub ts_enq: u32,
}

/// The paths through the block, counted so tests can check a workload reaches each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Branch {
    /// Dynamic mode, reassignment, an empty queue of the class found.
    AssignEmpty,
    /// Dynamic mode, reassignment, no empty queue: the LFSR picks.
    AssignRandom,
    /// Dynamic mode: the entry keeps its queue because it has packets.
    KeepBusy,
    /// Dynamic mode: size is 0 but the sticky time has not passed.
    KeepSticky,
    /// Dynamic mode: the entry has packets of another class; this packet goes to its own
    /// class's hash queue and the entry keeps its queue and class.
    CrossClass,
    AssignStochastic,
    AssignSingle,
    /// Sampling: the arrival was not sampled; it was assigned but not counted.
    Unsampled,
    /// A labelled incast arrival went to its (port, class)'s incast queue, which holds packets.
    IncastKeep,
    /// A labelled incast arrival found no incast queue with packets: one was chosen.
    IncastAssign,
    /// An enqueue found its queue above Th and was counted.
    Counted,
    /// Above Th but bpEn is clear for (ingress, egress).
    BackpressureDisabled,
    Pause,
    Resume,
    /// An enqueue and a dequeue on the same pause counter in one cycle.
    PauseCounterNet,
    /// An enqueue and a dequeue on the same flow-table entry in one cycle.
    SameEntry,
    RxPause,
    RxResume,
    RxBitmap,
    Bitmap,
    Snapshot,
    BadEvent,
    NotReady,
    Saturation,
    Underflow,
}

impl Branch {
    pub const ALL: [Branch; 25] = [
        Branch::AssignEmpty,
        Branch::AssignRandom,
        Branch::KeepBusy,
        Branch::KeepSticky,
        Branch::CrossClass,
        Branch::AssignStochastic,
        Branch::AssignSingle,
        Branch::Unsampled,
        Branch::IncastKeep,
        Branch::IncastAssign,
        Branch::Counted,
        Branch::BackpressureDisabled,
        Branch::Pause,
        Branch::Resume,
        Branch::PauseCounterNet,
        Branch::SameEntry,
        Branch::RxPause,
        Branch::RxResume,
        Branch::RxBitmap,
        Branch::Bitmap,
        Branch::Snapshot,
        Branch::BadEvent,
        Branch::NotReady,
        Branch::Saturation,
        Branch::Underflow,
    ];
}

/// A checked enqueue: indices in range.
struct Enq {
    inp: usize,
    eg: usize,
    /// Flow-table key of the flow id.
    key: usize,
    fid: u64,
    len: u64,
    upq: usize,
    class: usize,
    /// Labelled incast and the config honours the label.
    incast: bool,
}

/// A checked dequeue.
#[derive(Clone)]
struct Deq {
    eg: usize,
    q: usize,
    key: usize,
    counted: bool,
    inp: usize,
    upq: usize,
    len: u64,
    /// The packet did not count in its flow-table entry (`asg_ft_skip`).
    ft_skip: bool,
}

/// The BFC golden model. Cycle semantics (one [`CycleModel::step`] = one rising edge n):
/// * `now` counts edges since reset; the timestamp is `(now >> ts_shift) mod 2^ts_bits`;
/// * for the first [`BfcConfig::init_cycles`] edges the tables are being cleared: events are
///   refused (`asg_refused`, `err.NOT_READY`); `ready` after edge n says whether edge n + 1
///   accepts them;
/// * CSR writes sampled at edge n apply to the events sampled at edge n; `csr_rdata` after
///   edge n is register `csr_addr` as it was before edge n;
/// * the events of edge n apply in the spec's order (§0.3): received frame, dequeue, enqueue,
///   then the bitmap timer; pause counters report the net change of the cycle;
/// * the results (`asg_*`, `pause_*`, `resume_*`, `bm_*`) appear after edge n +
///   [`EVENT_LATENCY`]; the `err` flags of [`ERR_LATE`] one edge after the others;
/// * a snapshot requested by a `snap_index` write at edge w is taken at the first edge n > w
///   with no enqueue input, after that edge's events, and is readable from edge n + 2
///   (`status` bit 1 clears then).
pub struct Bfc {
    cfg: BfcConfig,
    schema: PortSchema,
    csr: CsrFile,
    /// Flow table, index egress x M + key.
    ft: Vec<FtEntry>,
    /// Occupancy in bytes per (egress, queue), index egress x queues + queue.
    qlen: Vec<u64>,
    /// Bit q set when queue q of the port is paused by the downstream.
    ds_paused: Vec<u128>,
    /// Rotating start of the empty-queue search, per egress port.
    rr_ptr: Vec<u32>,
    /// The incast queue of each (egress port, class), index egress x classes + class; 0 (the
    /// control queue) when none was chosen.
    incast: Vec<u32>,
    /// Pause counters, index ingress x upstream_queues + upstream queue.
    pc: Vec<u64>,
    /// Th in bytes by speed class x queues + max(N_active, 1) - 1.
    th: Vec<u64>,
    /// The speed class of each egress port (its `port_speed` CSR).
    port_speed: Vec<u32>,
    /// bpEn rows: bit o of entry i enables backpressure from ingress i for egress o.
    bp_en: Vec<u64>,
    lfsr: Lfsr32,
    now: u64,
    bm_slot: u64,
    snap_pending: bool,
    /// A snapshot taken at the last edge, reaching `snap_data0/1/2` at this one.
    snap_taken: Option<[u64; 3]>,
    /// Each edge's results, read back at their latency.
    results: DelayLine<Results>,
    /// `deq_update_latency`: the checked departures whose entry and counter updates are
    /// still on their way, oldest first.
    deq_line: std::collections::VecDeque<Option<Deq>>,
    early: early_resume::EarlyResume,
    /// Counters an early release lowered this cycle, with their value before it.
    released_now: Vec<(usize, u64)>,
    branches: [u64; Branch::ALL.len()],
}

impl Bfc {
    pub fn new(cfg: &BfcConfig) -> Result<Bfc, ConfigError> {
        cfg.validate()?;
        let mut m = Bfc {
            cfg: cfg.clone(),
            schema: port_schema(cfg),
            csr: CsrFile::new(&regmap(cfg)),
            ft: vec![FtEntry::default(); cfg.entries() as usize],
            qlen: vec![0; (cfg.ports * cfg.queues) as usize],
            ds_paused: vec![0; cfg.ports as usize],
            rr_ptr: vec![0; cfg.ports as usize],
            incast: vec![0; (cfg.ports * cfg.classes) as usize],
            pc: vec![0; cfg.pause_counters() as usize],
            th: Vec::new(),
            port_speed: Vec::new(),
            bp_en: Vec::new(),
            lfsr: Lfsr32::new(cfg.lfsr_seed),
            now: 0,
            bm_slot: 0,
            snap_pending: false,
            snap_taken: None,
            results: DelayLine::new(),
            deq_line: Default::default(),
            early: Default::default(),
            released_now: Vec::new(),
            branches: [0; Branch::ALL.len()],
        };
        CycleModel::reset(&mut m);
        Ok(m)
    }

    pub fn config(&self) -> &BfcConfig {
        &self.cfg
    }

    /// Register `index` as software would read it now.
    pub fn csr(&self, index: u32) -> u64 {
        self.csr.get(index)
    }

    /// Edges since reset.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Flow-table entry `key` of egress port `eg`.
    pub fn ft_entry(&self, eg: usize, key: usize) -> FtEntry {
        self.ft[eg * self.m() + key]
    }

    pub fn qlen(&self, eg: usize, q: usize) -> u64 {
        self.qlen[eg * self.cfg.queues as usize + q]
    }

    pub fn ds_paused(&self, eg: usize, q: usize) -> bool {
        self.ds_paused[eg] >> q & 1 == 1
    }

    pub fn pause_counter(&self, inp: usize, upq: usize) -> u64 {
        self.pc[inp * self.cfg.upstream_queues as usize + upq]
    }

    /// Bit q set when queue q of egress `eg` is empty (the spec's emptyBM; queue 0 included).
    pub fn empty_bitmap(&self, eg: usize) -> u128 {
        let nq = self.cfg.queues as usize;
        (0..nq)
            .filter(|&q| self.qlen[eg * nq + q] == 0)
            .fold(0, |bm, q| bm | 1 << q)
    }

    /// Data queues of `eg` with bytes and not paused by the downstream.
    pub fn n_active(&self, eg: usize) -> u32 {
        let data = mask_u128(self.cfg.queues) & !1;
        (!self.empty_bitmap(eg) & !self.ds_paused[eg] & data).count_ones()
    }

    /// The pause threshold of `eg` now: `ThTab[speed(eg)][max(N_active, 1) - 1]`.
    pub fn threshold(&self, eg: usize) -> u64 {
        let row = self.port_speed[eg] as usize * self.cfg.queues as usize;
        self.th[row + self.n_active(eg).max(1) as usize - 1]
    }

    /// The speed class of egress port `eg` now.
    pub fn port_speed(&self, eg: usize) -> u32 {
        self.port_speed[eg]
    }

    /// The flow-table key (within the egress port's M entries) of flow id `fid` arriving on
    /// an ingress port of pipeline 0 (any port with one pipeline).
    pub fn ft_key(&self, fid: u64) -> usize {
        self.ft_key_at(0, fid)
    }

    /// The flow-table key of flow id `fid` arriving on ingress port `inp`: its pipeline's
    /// slice of the egress port's entries, and the hash reduced to the slice.
    pub fn ft_key_at(&self, inp: u32, fid: u64) -> usize {
        let c = &self.cfg;
        let h = hash32(u128::from(fid), c.fid_bits.div_ceil(8) as usize);
        let slice = c.slice_entries();
        (u64::from(c.pipeline_of(inp)) * slice
            + u64::from(reduce_top(h, c.hash_bits, slice as u32))) as usize
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

    fn m(&self) -> usize {
        self.cfg.entries_per_port() as usize
    }

    fn ready(&self) -> bool {
        self.now >= self.cfg.init_cycles()
    }

    fn now_ts(&self) -> u32 {
        ((self.now >> self.cfg.ts_shift) & mask(self.cfg.ts_bits)) as u32
    }

    /// The queue range of class `c` from its CSR, `None` when the CSR holds no valid range.
    fn class_range(&self, c: usize) -> Option<(u32, u32)> {
        let w = self.csr.get(reg::CLASS_BASE + c as u32);
        let (first, count) = ((w & 0x7F) as u32, (w >> 8 & 0x7F) as u32);
        (first >= 1 && count >= 1 && first + count <= self.cfg.queues).then_some((first, count))
    }

    fn check_enq(&self, i: &BfcIn) -> Option<Enq> {
        let c = &self.cfg;
        let ok = i.enq_in_port < u64::from(c.ports)
            && i.enq_eg_port < u64::from(c.ports)
            && i.enq_upstream_q < u64::from(c.upstream_queues)
            && i.enq_class < u64::from(c.classes)
            && i.enq_len > 0
            && self.class_range(i.enq_class as usize).is_some();
        ok.then(|| Enq {
            inp: i.enq_in_port as usize,
            eg: i.enq_eg_port as usize,
            key: self.ft_key_at(i.enq_in_port as u32, i.enq_fid),
            fid: i.enq_fid,
            len: i.enq_len,
            upq: i.enq_upstream_q as usize,
            class: i.enq_class as usize,
            incast: c.incast_label && i.enq_incast == 1,
        })
    }

    fn check_deq(&self, i: &BfcIn) -> Option<Deq> {
        let c = &self.cfg;
        let counted = i.deq_counter_incr == 1;
        let ok = i.deq_eg_port < u64::from(c.ports)
            && (1..u64::from(c.queues)).contains(&i.deq_queue)
            && i.deq_ft_key < c.entries_per_port()
            && i.deq_len > 0
            && (!counted
                || i.deq_in_port < u64::from(c.ports)
                    && i.deq_upstream_q < u64::from(c.upstream_queues));
        ok.then_some(Deq {
            eg: i.deq_eg_port as usize,
            q: i.deq_queue as usize,
            key: i.deq_ft_key as usize,
            counted,
            inp: i.deq_in_port as usize,
            upq: i.deq_upstream_q as usize,
            len: i.deq_len,
            ft_skip: i.deq_ft_skip == 1,
        })
    }

    /// A received PAUSE, RESUME or bitmap: `dsPaused` of the egress port (spec §3.3).
    /// Returns false for a bad frame.
    fn apply_rx(&mut self, i: &BfcIn) -> bool {
        let c = &self.cfg;
        if i.rx_port >= u64::from(c.ports) {
            return false;
        }
        let p = i.rx_port as usize;
        match i.rx_kind {
            RX_PAUSE | RX_RESUME if i.rx_queue < u64::from(c.queues) => {
                let bit = 1u128 << i.rx_queue;
                if i.rx_kind == RX_PAUSE {
                    self.ds_paused[p] |= bit;
                    self.count(Branch::RxPause);
                } else {
                    self.ds_paused[p] &= !bit;
                    self.count(Branch::RxResume);
                }
                true
            }
            RX_BITMAP if i.rx_base < u64::from(c.rx_chunks()) => {
                let w = c.rx_bitmap_bits();
                let shift = i.rx_base as u32 * w;
                let chunk = mask_u128(w) << shift & mask_u128(c.queues);
                self.ds_paused[p] =
                    self.ds_paused[p] & !chunk | (u128::from(i.rx_bitmap) << shift) & chunk;
                self.count(Branch::RxBitmap);
                true
            }
            _ => false,
        }
    }

    /// Pause counter `j` counts up or down, saturating or clamping; returns whether it
    /// changed.
    fn bump_pc(&mut self, j: usize, up: bool, err: &mut u64) -> bool {
        let max = mask(self.cfg.pc_bits);
        let v = &mut self.pc[j];
        if up {
            if *v == max {
                *err |= err::PC_SATURATED;
                self.count(Branch::Saturation);
                return false;
            }
            *v += 1;
        } else {
            if *v == 0 {
                *err |= err::PC_UNDERFLOW;
                self.count(Branch::Underflow);
                return false;
            }
            *v -= 1;
        }
        true
    }

    /// A departure's update of its flow-table entry (size and timestamp) and pause counter
    /// (spec §3.3 ON DEQUEUE); `deq_update_latency` edges after the departure.
    fn apply_deq_entry(&mut self, d: &Deq, err: &mut u64) {
        let now_ts = self.now_ts();
        let fi = d.eg * self.m() + d.key;
        let e = &mut self.ft[fi];
        if !d.ft_skip {
            e.ts = now_ts;
            if e.size == 0 {
                *err |= err::SIZE_UNDERFLOW;
                self.count(Branch::Underflow);
            } else {
                e.size -= 1;
            }
        }
        let j = d.inp * self.cfg.upstream_queues as usize + d.upq;
        let qi = d.eg * self.cfg.queues as usize + d.q;
        // With early_resume a counted packet whose count was returned early lowers nothing.
        if d.counted && (!self.cfg.early_resume || self.early.depart(qi, j)) {
            self.bump_pc(j, false, err);
        }
    }

    /// A departure's occupancy (whose 0 is the empty bit), at once: the traffic manager's.
    fn apply_deq_queue(&mut self, d: &Deq, err: &mut u64) {
        let qi = d.eg * self.cfg.queues as usize + d.q;
        if self.qlen[qi] < d.len {
            *err |= err::QLEN_UNDERFLOW;
            self.count(Branch::Underflow);
            self.qlen[qi] = 0;
        } else {
            self.qlen[qi] -= d.len;
        }
        // early_resume: a queue no longer above Th returns the counts of its counted packets.
        if self.cfg.early_resume && self.qlen[qi] <= self.threshold(d.eg) {
            for (j, n) in self.early.release(qi) {
                let before = self.pc[j];
                self.pc[j] = before.saturating_sub(n);
                self.released_now.push((j, before));
            }
        }
    }

    /// An arrival (spec §3.3 ON ENQUEUE): flow-table lookup and queue assignment, the
    /// threshold test against the occupancy after this cycle's dequeue, pause counter and
    /// occupancy. Returns the enqueue's result.
    fn apply_enq(&mut self, e: &Enq, lfsr: u32, err: &mut u64) -> BfcOut {
        let key = e.key;
        let nq = self.cfg.queues as usize;
        let (first, count) = self.class_range(e.class).expect("checked");
        let now_ts = self.now_ts();
        let sticky = self.csr.get(reg::STICKY) as u32;
        let fi = e.eg * self.m() + key;
        let entry = self.ft[fi];
        // Sampling (App. A.8): the LFSR's low byte against p_s x 256. Without the option the
        // register reads 256 and every packet is sampled.
        let sampled = u64::from(lfsr & 0xFF) < self.csr.get(reg::SAMPLE_RATE);
        let mut new = false;
        // The entry's own queue and class stay when a packet of another class passes through.
        let mut keep_entry = false;
        let fid_bytes = self.cfg.fid_bits.div_ceil(8) as usize;
        let hash_pick =
            || first + reduce_top(hash32(u128::from(e.fid), fid_bytes), PICK_BITS, count);
        let cross = entry.class != e.class as u32;
        let mode = self.csr.get(reg::MODE);
        // The incast label replaces dynamic assignment only; the other modes ignore it.
        let incast = e.incast && mode != MODE_STOCHASTIC && mode != MODE_SINGLE;
        let q = if incast {
            let slot = e.eg * self.cfg.classes as usize + e.class;
            let iq = self.incast[slot];
            if iq != 0 && self.qlen[e.eg * nq + iq as usize] > 0 {
                self.count(Branch::IncastKeep);
                iq
            } else {
                self.count(Branch::IncastAssign);
                let q = self.pick_new_queue(e.eg, first, count, lfsr, None);
                self.incast[slot] = q;
                q
            }
        } else {
            match mode {
                MODE_STOCHASTIC => {
                    self.count(Branch::AssignStochastic);
                    hash_pick()
                }
                MODE_SINGLE => {
                    self.count(Branch::AssignSingle);
                    first
                }
                _ => {
                    // With sampling, the last arrival (counted or not) also keeps the entry.
                    let recent = self.entry_recent(&entry, sticky);
                    if entry.size > 0 && cross {
                        self.count(Branch::CrossClass);
                        keep_entry = true;
                        hash_pick()
                    } else if entry.size > 0 {
                        self.count(Branch::KeepBusy);
                        entry.q
                    } else if entry.q != 0 && recent && !cross {
                        self.count(Branch::KeepSticky);
                        entry.q
                    } else {
                        new = true;
                        self.pick_new_queue(e.eg, first, count, lfsr, Some(fi))
                    }
                }
            }
        };
        if !incast {
            let size_max = mask(self.cfg.size_bits) as u32;
            let sampling = self.cfg.sampling;
            let entry = &mut self.ft[fi];
            if !keep_entry {
                entry.q = q;
                entry.class = e.class as u32;
            }
            if sampling {
                entry.ts_enq = now_ts;
            }
            // Only a sampled packet counts in `size` (and runs the departure's update).
            let saturated = sampled && entry.size == size_max;
            if sampled && !saturated {
                entry.size += 1;
            }
            if saturated {
                *err |= err::SIZE_SATURATED;
                self.count(Branch::Saturation);
            }
        }
        if !sampled {
            self.count(Branch::Unsampled);
        }

        // The threshold test uses the queue before this packet (spec §3.10.1), strictly.
        let qi = e.eg * nq + q as usize;
        // Only a sampled packet is counted.
        let above = sampled && self.qlen[qi] > self.threshold(e.eg);
        let bp = self.bp_en[e.inp] >> e.eg & 1 == 1;
        let j = e.inp * self.cfg.upstream_queues as usize + e.upq;
        let mut counted = false;
        if above && !bp {
            self.count(Branch::BackpressureDisabled);
        } else if above {
            counted = self.bump_pc(j, true, err);
            if counted {
                self.count(Branch::Counted);
                if self.cfg.early_resume {
                    self.early.counted(qi, j);
                }
            }
        }
        let occ_max = mask(self.cfg.occupancy_bits);
        if occ_max - self.qlen[qi] < e.len {
            *err |= err::QLEN_SATURATED;
            self.count(Branch::Saturation);
            self.qlen[qi] = occ_max;
        } else {
            self.qlen[qi] += e.len;
        }
        BfcOut {
            asg_valid: 1,
            asg_queue: q.into(),
            asg_ft_key: key as u64,
            asg_counter_incr: counted.into(),
            asg_new: new.into(),
            asg_ft_skip: (incast || !sampled).into(),
            ..BfcOut::default()
        }
    }

    /// A new queue for a flow (or an incast queue) of the class `first..first + count`: the
    /// first empty one from the port's rotating start, which moves past it, else the LFSR's.
    fn pick_new_queue(
        &mut self,
        eg: usize,
        first: u32,
        count: u32,
        lfsr: u32,
        except: Option<usize>,
    ) -> u32 {
        let nq = self.cfg.queues;
        let mut cand = self.empty_bitmap(eg) & mask_u128(count) << first;
        if self.cfg.reserve_sticky {
            cand &= !self.reserved(eg, except);
        }
        if cand != 0 {
            self.count(Branch::AssignEmpty);
            let q = first_set_from(cand, self.rr_ptr[eg], nq);
            self.rr_ptr[eg] = if q + 1 == nq { 0 } else { q + 1 };
            q
        } else {
            self.count(Branch::AssignRandom);
            first + reduce_top(lfsr, PICK_BITS, count)
        }
    }

    /// reserve_sticky (model only): the queues of `eg` that an entry other than `except` holds,
    /// with packets or within STICKY of its last event.
    fn reserved(&self, eg: usize, except: Option<usize>) -> u128 {
        let sticky = self.csr.get(reg::STICKY) as u32;
        let m = self.m();
        (eg * m..(eg + 1) * m)
            .filter(|&fi| Some(fi) != except)
            .map(|fi| self.ft[fi])
            .filter(|e| e.q != 0 && (e.size > 0 || self.entry_recent(e, sticky)))
            .fold(0, |r, e| r | 1 << e.q)
    }

    /// The entry's last departure, or with sampling its last arrival, is within `sticky`.
    fn entry_recent(&self, e: &FtEntry, sticky: u32) -> bool {
        let (now_ts, ts_mask) = (self.now_ts(), mask(self.cfg.ts_bits) as u32);
        let age = now_ts.wrapping_sub(e.ts) & ts_mask;
        let age_enq = now_ts.wrapping_sub(e.ts_enq) & ts_mask;
        age < sticky || self.cfg.sampling && age_enq < sticky
    }

    /// The bitmap timer: the bitmap of this cycle's slot, if any.
    fn bitmap_tick(&mut self, out: &mut BfcOut) {
        let t_bm = self.csr.get(reg::T_BM);
        if t_bm == 0 {
            self.bm_slot = 0;
            return;
        }
        let chunks = u64::from(self.cfg.bitmap_chunks());
        if self.bm_slot < u64::from(self.cfg.ports) * chunks {
            let (port, chunk) = (self.bm_slot / chunks, self.bm_slot % chunks);
            let (uq, w) = (
                self.cfg.upstream_queues as usize,
                self.cfg.bitmap_bits() as usize,
            );
            let lo = port as usize * uq + chunk as usize * w;
            let hi = (port as usize + 1) * uq;
            let bits = self.pc[lo..hi.min(lo + w)]
                .iter()
                .enumerate()
                .filter(|(_, &v)| v > 0)
                .fold(0u64, |b, (k, _)| b | 1 << k);
            out.bm_valid = 1;
            out.bm_port = port;
            out.bm_base = chunk;
            out.bm_bits = bits;
            self.count(Branch::Bitmap);
        }
        self.bm_slot = if self.bm_slot + 1 >= t_bm {
            0
        } else {
            self.bm_slot + 1
        };
    }

    /// The snapshot registers for `snap_index` now.
    fn snapshot(&mut self, index: u64) -> [u64; 3] {
        self.count(Branch::Snapshot);
        let c = &self.cfg;
        let (table, k) = (index >> SNAP_TABLE_SHIFT, index & mask(SNAP_TABLE_SHIFT));
        // Pause counters and queues are named {port, index} with the index's own bits.
        let split = |bits: u32, n: u32| {
            let (port, i) = (k >> bits, k & mask(bits));
            (port < u64::from(c.ports) && i < u64::from(n)).then_some((port as usize, i as usize))
        };
        match table {
            SNAP_FLOW_TABLE if k < c.entries() => {
                let e = self.ft[k as usize];
                [
                    u64::from(e.q) | u64::from(e.size) << 8,
                    e.ts.into(),
                    e.class.into(),
                ]
            }
            SNAP_PAUSE_COUNTER => match split(c.upstream_bits(), c.upstream_queues) {
                Some((i, u)) => [self.pause_counter(i, u), 0, 0],
                None => [0; 3],
            },
            SNAP_QUEUE => match split(c.queue_bits(), c.queues) {
                Some((o, q)) => [self.qlen(o, q), u64::from(self.ds_paused(o, q)), 0],
                None => [0; 3],
            },
            _ => [0; 3],
        }
    }

    /// The read-only status registers for the next edge.
    fn set_status(&mut self) {
        self.csr.set(reg::NOW_TS, self.now_ts().into());
        self.csr.set(
            reg::STATUS,
            (u64::from(self.ready()) * STATUS_READY)
                | (u64::from(self.snap_pending || self.snap_taken.is_some()) * STATUS_SNAP_BUSY),
        );
    }

    /// One CSR bus cycle, with the windows onto the Th table and the bpEn rows.
    fn csr_access(&mut self, i: &BfcIn) -> u64 {
        let c = &self.cfg;
        // Th[th_speed][th_index], if both are in range.
        let (th_speed, th_n) = (
            self.csr.get(reg::TH_SPEED) as usize,
            self.csr.get(reg::TH_INDEX) as usize,
        );
        let th_index = (th_speed < c.speeds as usize && th_n < c.queues as usize)
            .then_some(th_speed * c.queues as usize + th_n);
        let port_index = self.csr.get(reg::PORT_INDEX) as usize;
        let bp_index = self.csr.get(reg::BPEN_INDEX) as usize;
        let th = th_index.map_or(0, |t| self.th[t]);
        let row = self.bp_en.get(bp_index).copied().unwrap_or(0);
        let speed = self.port_speed.get(port_index).copied().unwrap_or(0);
        self.csr.set(reg::TH_DATA, th);
        self.csr.set(reg::PORT_SPEED, speed.into());
        self.csr.set(reg::BPEN_LO, row & mask(c.ports.min(32)));
        if c.ports > 32 {
            self.csr.set(reg::BPEN_HI, row >> 32);
        }
        let addr = (i.csr_addr & mask(CSR_ADDR_BITS)) as u32;
        let rdata = self.csr.access(i.csr_we == 1, i.csr_addr, i.csr_wdata);
        if i.csr_we == 1 {
            match addr {
                reg::TH_DATA if th_index.is_some() => {
                    self.th[th_index.unwrap()] = self.csr.get(reg::TH_DATA);
                }
                // A class the Th table has no row for is not stored.
                reg::PORT_SPEED
                    if port_index < self.port_speed.len()
                        && self.csr.get(reg::PORT_SPEED) < c.speeds.into() =>
                {
                    self.port_speed[port_index] = self.csr.get(reg::PORT_SPEED) as u32;
                }
                reg::BPEN_LO if bp_index < self.bp_en.len() => {
                    let lo = mask(c.ports.min(32));
                    self.bp_en[bp_index] = row & !lo | self.csr.get(reg::BPEN_LO);
                }
                reg::BPEN_HI if bp_index < self.bp_en.len() && c.ports > 32 => {
                    self.bp_en[bp_index] = row & mask(32) | self.csr.get(reg::BPEN_HI) << 32;
                }
                reg::LFSR_SEED => self.lfsr = Lfsr32::new(self.csr.get(reg::LFSR_SEED) as u32),
                reg::SNAP_INDEX => self.snap_pending = true,
                _ => {}
            }
        }
        rdata
    }
}

fn mask_u128(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// The first set bit of `bits` at or after `start`, wrapping at `n`; `bits` is not 0. The
/// dynamic assignment's search (public for the search kernel's test, tests/bfc_loops.rs).
pub fn first_set_from(bits: u128, start: u32, n: u32) -> u32 {
    let upper = bits & !mask_u128(start);
    let pick = if upper != 0 { upper } else { bits };
    let q = pick.trailing_zeros();
    debug_assert!(q < n);
    q
}

impl CycleModel for Bfc {
    type In = BfcIn;
    type Out = BfcOut;

    fn ports(&self) -> &PortSchema {
        &self.schema
    }

    fn reset(&mut self) {
        let c = &self.cfg;
        self.csr.reset();
        self.ft.fill(FtEntry::default());
        self.qlen.fill(0);
        self.ds_paused.fill(0);
        self.rr_ptr.fill(0);
        self.incast.fill(0);
        self.pc.fill(0);
        self.th = c.th[..(c.speeds * c.queues) as usize].to_vec();
        self.port_speed = if c.port_speed.is_empty() {
            vec![0; c.ports as usize]
        } else {
            c.port_speed.clone()
        };
        self.bp_en = vec![mask(c.ports); c.ports as usize];
        self.lfsr = Lfsr32::new(c.lfsr_seed);
        self.now = 0;
        self.bm_slot = 0;
        self.snap_pending = false;
        self.snap_taken = None;
        self.results.reset();
        self.deq_line.clear();
        self.early.clear();
        self.released_now.clear();
        self.set_status();
    }

    #[inline]
    fn step(&mut self, i: &BfcIn) -> BfcOut {
        let mut out = BfcOut::default();
        let mut err = 0;
        let ready = self.ready();
        // A pending snapshot is served on an edge without an enqueue, with the index as it
        // was before this edge's write.
        let serve = ready && self.snap_pending && i.enq_valid == 0;
        let snap_index = self.csr.get(reg::SNAP_INDEX);
        if serve {
            self.snap_pending = false;
        }
        let rdata = self.csr_access(i);
        let lfsr = self.lfsr.state();

        let events = i.rx_valid | i.deq_valid | i.enq_valid == 1;
        if !ready {
            if events {
                err |= err::NOT_READY;
                self.count(Branch::NotReady);
            }
            if i.enq_valid == 1 {
                out.asg_valid = 1;
                out.asg_refused = 1;
            }
        } else {
            if i.rx_valid == 1 && !self.apply_rx(i) {
                err |= err::BAD_EVENT;
                self.count(Branch::BadEvent);
            }
            let deq = if i.deq_valid == 1 {
                let d = self.check_deq(i);
                if d.is_none() {
                    err |= err::BAD_EVENT;
                    self.count(Branch::BadEvent);
                }
                d
            } else {
                None
            };
            let enq = if i.enq_valid == 1 {
                let e = self.check_enq(i);
                if e.is_none() {
                    err |= err::BAD_EVENT;
                    self.count(Branch::BadEvent);
                    out.asg_valid = 1;
                    out.asg_refused = 1;
                }
                e
            } else {
                None
            };
            // deq_update_latency (model only): the occupancy falls now, the entry and the
            // counter learn of the departure that many edges later.
            let late = self.cfg.deq_update_latency as usize;
            let deq_entry = if late == 0 {
                deq.clone()
            } else {
                self.deq_line.push_back(deq.clone());
                if self.deq_line.len() > late {
                    self.deq_line.pop_front().expect("non-empty")
                } else {
                    None
                }
            };
            // Pause counters as they were at the start of the cycle, for the net change.
            let pc_before = |m: &Bfc, j: Option<usize>| j.map(|j| m.pc[j]);
            let j_deq = deq_entry.as_ref().and_then(|d| {
                d.counted
                    .then_some(d.inp * self.cfg.upstream_queues as usize + d.upq)
            });
            let j_enq = enq
                .as_ref()
                .map(|e| e.inp * self.cfg.upstream_queues as usize + e.upq);
            let before_deq = pc_before(self, j_deq);
            let before_enq = pc_before(self, j_enq);
            if let (Some(d), Some(e)) = (&deq_entry, &enq) {
                if d.eg == e.eg && d.key == e.key && !d.ft_skip {
                    self.count(Branch::SameEntry);
                }
            }
            if let Some(d) = &deq_entry {
                self.apply_deq_entry(d, &mut err);
            }
            if let Some(d) = &deq {
                self.apply_deq_queue(d, &mut err);
            }
            if let Some(e) = &enq {
                out = self.apply_enq(e, lfsr, &mut err);
            }
            if j_deq.is_some() && j_deq == j_enq {
                self.count(Branch::PauseCounterNet);
            }
            // PAUSE when a counter leaves 0, RESUME when it returns to 0, by the cycle's net
            // change (only an enqueue raises a counter, only a dequeue lowers one).
            if let (Some(j), Some(b)) = (j_enq, before_enq) {
                if b == 0 && self.pc[j] > 0 {
                    let uq = self.cfg.upstream_queues as usize;
                    out.pause_valid = 1;
                    out.pause_port = (j / uq) as u64;
                    out.pause_queue = (j % uq) as u64;
                    self.count(Branch::Pause);
                }
            }
            if let (Some(j), Some(b)) = (j_deq, before_deq) {
                if b > 0 && self.pc[j] == 0 {
                    let uq = self.cfg.upstream_queues as usize;
                    out.resume_valid = 1;
                    out.resume_port = (j / uq) as u64;
                    out.resume_queue = (j % uq) as u64;
                    self.count(Branch::Resume);
                }
            }
            // early_resume: the other counters its release brought to 0 over the cycle wait
            // for the RESUME bus (a counter raised again before its turn is dropped).
            for (j, before) in std::mem::take(&mut self.released_now) {
                if Some(j) != j_deq
                    && before > 0
                    && self.pc[j] == 0
                    && !self.early.pending.contains(&j)
                {
                    self.early.pending.push_back(j);
                }
            }
        }
        if out.resume_valid == 0 {
            while let Some(j) = self.early.pending.pop_front() {
                if self.pc[j] == 0 {
                    let uq = self.cfg.upstream_queues as usize;
                    out.resume_valid = 1;
                    out.resume_port = (j / uq) as u64;
                    out.resume_queue = (j % uq) as u64;
                    self.count(Branch::Resume);
                    break;
                }
            }
        }
        self.bitmap_tick(&mut out);
        if let Some([d0, d1, d2]) = self.snap_taken.take() {
            self.csr.set(reg::SNAP_DATA0, d0);
            self.csr.set(reg::SNAP_DATA1, d1);
            self.csr.set(reg::SNAP_DATA2, d2);
        }
        if serve {
            self.snap_taken = Some(self.snapshot(snap_index));
        }

        // Results leave EVENT_LATENCY edges later; the second stage's flags one edge later.
        self.results.push(Results {
            out,
            err_late: err & ERR_LATE,
        });
        let leaving = self.results.tap(EVENT_LATENCY);
        let raised = err & !ERR_LATE | self.results.tap(1).err_late;
        self.csr.set(reg::ERR, self.csr.get(reg::ERR) | raised);
        self.lfsr.step();
        self.now += 1;
        self.set_status();
        BfcOut {
            ready: u64::from(self.ready()),
            csr_rdata: rdata,
            ..leaving.out
        }
    }
}

mod early_resume;
pub mod ideal;
pub mod scheduler;
mod workload;
pub use workload::BfcWorkload;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn th_table_reproduces_the_ns3_values() {
        let t = th_table(100e9, 2000.0, 32);
        let at = |n: u32| t[n as usize - 1].exact;
        for (n, want) in [
            (1, 25_000.0),
            (2, 12_500.0),
            (4, 6_250.0),
            (8, 3_125.0),
            (16, 1_562.5),
            (32, 781.25),
        ] {
            assert!(
                (at(n) - want).abs() < 1e-9,
                "Th({n}) = {}, want {want}",
                at(n)
            );
        }
        assert_eq!(t[31].bytes, 781);
        assert_eq!(t[15].bytes, 1562);
        assert_eq!(t[2].bytes, 8333); // 25000 / 3
    }

    #[test]
    fn class_ranges_partition_the_data_queues() {
        for queues in 2..=40 {
            for classes in 1..=8.min(queues - 1) {
                let cfg = BfcConfig {
                    queues,
                    classes,
                    th: vec![1000; queues as usize],
                    ..BfcConfig::preset("tiny").unwrap()
                };
                let mut next = 1;
                for c in 0..classes {
                    let r = cfg.class_queues(c);
                    assert_eq!(r.start, next, "{queues} queues, {classes} classes");
                    assert!(
                        !r.is_empty(),
                        "{queues} queues, {classes} classes: class {c} empty"
                    );
                    next = r.end;
                }
                assert_eq!(next, queues);
            }
        }
    }
}
