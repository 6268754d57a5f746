//! BFC: backpressure flow control (spec ../shared/spec/mechanisms.md §3). A flow table indexed
//! by (egress port, hash(flow id) mod M) assigns flows to queues dynamically and sticks to the
//! assignment while the flow has packets in the switch; a pause counter per (ingress port,
//! upstream queue) pauses the upstream queue while packets that found their queue above the
//! threshold Th are still in the switch.
//!
//! This module holds the block's static parameters ([`BfcConfig`], its presets and rules) and
//! the pause-threshold table ([`th_table`], spec §3.4). The cycle model follows.

use crate::config::{parse_toml, LoadError};
use serde::{Deserialize, Serialize};
use switchcraft_core::{index_bits, mask, ConfigError};

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
    /// Cycles between two pause bitmaps of one ingress port (ports..=2^24).
    pub t_bm: u64,
    /// Traffic classes (1..=8); the data queues are split among them in contiguous ranges.
    pub classes: u32,
    pub assign: Assign,
    /// Th in bytes by N_active: entry n - 1 for n = 1..=queues active queues (N_active = 0
    /// uses entry 0). At least `queues` entries, each in 1..2^occupancy_bits. Missing from a
    /// TOML file it is empty, which `validate` refuses (`switchcraft bfc thresholds` fills it).
    #[serde(default)]
    pub th: Vec<u64>,
    /// Seed of the LFSR that picks a random queue when no queue of the class is empty.
    pub lfsr_seed: u32,
}

pub const PRESETS: &[&str] = &["tiny", "fpga", "tofino-loopback", "ns3-tor", "tofino2"];

/// The Th table of the ns-3 configuration (100 Gb/s, HRTT 2 us) for `queues` queues.
fn ns3_th(queues: u32) -> Vec<u64> {
    th_table(100e9, 2000.0, queues)
        .iter()
        .map(|t| t.bytes)
        .collect()
}

impl BfcConfig {
    pub fn preset(name: &str) -> Option<BfcConfig> {
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
                th: vec![3000, 1500, 1000, 750, 600, 500, 428, 375],
                lfsr_seed: 1,
            },
            // Sized for an iCE40 HX8K: 8 x 8 queues, 16 x queues entries per port in block RAM.
            "fpga" => BfcConfig {
                ports: 8,
                queues: 8,
                ft_multiple: 16,
                fid_bits: 32,
                hash_bits: 16,
                size_bits: 10,
                ts_bits: 12,
                ts_shift: 4,
                sticky: 25,
                occupancy_bits: 16,
                length_bits: 11,
                upstream_queues: 8,
                pc_bits: 10,
                t_bm: 1024,
                classes: 1,
                assign: Assign::Dynamic,
                th: ns3_th(8),
                lfsr_seed: 1,
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
                th: ns3_th(16),
                lfsr_seed: 1,
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
                th: ns3_th(32),
                lfsr_seed: 1,
            },
            // Tofino2 (spec §3.2): 32 ports x 128 queues = 4096 queues, 409 600 entries; pause
            // counters 32 x 128 = 4096.
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
                th: ns3_th(128),
                lfsr_seed: 1,
            },
            _ => return None,
        })
    }

    pub fn from_toml(text: &str, name: &str) -> Result<BfcConfig, LoadError> {
        let cfg = Self::parse_unchecked(text, name)?;
        cfg.validate()
            .map_err(|e| LoadError(format!("{name}: {e}")))?;
        Ok(cfg)
    }

    /// Parses without [`BfcConfig::validate`], for tools that change fields before checking
    /// (the thresholds calculator replaces `th`).
    pub fn parse_unchecked(text: &str, name: &str) -> Result<BfcConfig, LoadError> {
        parse_toml(text, name)
    }

    /// This config as TOML (the format [`BfcConfig::from_toml`] reads).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a BfcConfig serializes to TOML")
    }

    /// Checks every rule of the block; the error names the field, its value and the rule.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let range = |field: &str, v: u64, lo: u64, hi: u64| {
            if v < lo || v > hi {
                Err(ConfigError::new(
                    field,
                    v,
                    format!("must be in {lo}..={hi}"),
                ))
            } else {
                Ok(())
            }
        };
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
        if self.t_bm < u64::from(self.ports) || self.t_bm > 1 << 24 {
            return Err(ConfigError::new(
                "t_bm",
                self.t_bm,
                format!(
                    "must be in {}..=16777216 cycles (at least one cycle per port, so each \
                     port's bitmap goes out every period)",
                    self.ports
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
        if self.th.len() < self.queues as usize {
            return Err(ConfigError::new(
                "th",
                self.th.len(),
                format!(
                    "the Th table needs an entry for every N_active = 1..={} (queues), it has \
                     {} entries",
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

    /// Flow-table entries of the whole block.
    pub fn entries(&self) -> u64 {
        u64::from(self.ports) * self.entries_per_port()
    }

    /// Bits of one flow-table entry: queue, size, timestamp.
    pub fn entry_bits(&self) -> u32 {
        self.queue_bits() + self.size_bits + self.ts_bits
    }

    /// Pause counters of the whole block: one per (ingress port, upstream queue).
    pub fn pause_counters(&self) -> u64 {
        u64::from(self.ports) * u64::from(self.upstream_queues)
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
    /// What the CSR table holds: the exact value rounded down to whole bytes.
    pub bytes: u64,
}

/// Th(n) = HRTT x rate / n for n = 1..=queues (spec §3.4), `rate_bps` in bit/s, `hrtt_ns` in
/// ns. At 100 Gb/s and HRTT = 2 us: 25 000, 12 500, 6 250, ..., 781.25 B at n = 32.
pub fn th_table(rate_bps: f64, hrtt_ns: f64, queues: u32) -> Vec<Th> {
    let bdp = hrtt_ns * 1e-9 * rate_bps / 8.0;
    (1..=queues)
        .map(|n| {
            let exact = bdp / f64::from(n);
            // Float noise may leave a whole number just below itself (6249.999...).
            let bytes = (exact + 1e-9 * exact.max(1.0)).floor() as u64;
            Th {
                n_active: n,
                exact,
                bytes,
            }
        })
        .collect()
}

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
