//! Fault injection for co-simulation (issue 30): a [`Stimulus`] wrapper that disturbs the
//! traffic of another one the way a real switch's surroundings do, so the model and the
//! Verilator run can be compared under faults as well as on clean traffic.
//!
//! Faults, each seeded and reproducible (the same plan and seed replay identically after
//! [`Stimulus::restart`]):
//! * **lost and duplicated messages**: an event on one of the block's message buses (received
//!   PAUSE/RESUME frames, credits, bitmaps) is removed, or repeated on the next idle cycle;
//! * **stuck valid**: an input bus holds its last event (valid and fields) for a stretch of
//!   cycles, as a wedged upstream would;
//! * **CSR writes in the middle of traffic**: a random word written with random data;
//! * **resets in the middle of traffic**: both sides reset between two rows
//!   ([`Stimulus::reset_next`]).
//!
//! A bus is the set of input ports that share the prefix of a `<bus>_valid` port
//! (`rx_pfc_valid`, `rx_pfc_port`, ...); the CSR bus is `csr_we`, `csr_addr`, `csr_wdata`.

use crate::cosim::Stimulus;
use switchcraft_core::rng::SplitMix64;
use switchcraft_core::{Dir, PortSchema};

/// How often each fault strikes. Rates are per mille (1/1000) per cycle or per event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultPlan {
    pub seed: u64,
    /// Input buses whose events are messages from a link partner, which a link can lose or
    /// repeat (a block's received-frame buses).
    pub message_buses: Vec<String>,
    /// Per mille of message events lost.
    pub lose: u64,
    /// Per mille of message events repeated on the next cycle the bus is idle (one waiting
    /// repeat per bus; a later one replaces it).
    pub duplicate: u64,
    /// Per mille of cycles on which a stuck stretch starts (one random bus with a valid port).
    pub stuck: u64,
    /// Length of a stuck stretch in cycles.
    pub stuck_cycles: u64,
    /// Per mille of cycles with a random CSR write (over the stimulus's own CSR fields).
    pub csr_write: u64,
    /// Both sides are reset before a cycle with probability 1 / `reset_every` (0: never).
    pub reset_every: u64,
}

impl FaultPlan {
    /// The plan of `switchcraft cosim --faults` and `make soak`: every fault a few times per
    /// thousand cycles, stuck stretches of 64 cycles, a reset about every 20 000 cycles.
    pub fn standard(seed: u64, message_buses: &[&str]) -> FaultPlan {
        FaultPlan {
            seed,
            message_buses: message_buses.iter().map(|s| s.to_string()).collect(),
            lose: 50,
            duplicate: 20,
            stuck: 2,
            stuck_cycles: 64,
            csr_write: 2,
            reset_every: 20_000,
        }
    }
}

/// How many faults a run got, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultCounts {
    pub lost: u64,
    pub duplicated: u64,
    pub stuck_stretches: u64,
    pub csr_writes: u64,
    pub resets: u64,
}

impl std::fmt::Display for FaultCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} messages lost, {} duplicated, {} stuck stretches, {} CSR writes, {} resets",
            self.lost, self.duplicated, self.stuck_stretches, self.csr_writes, self.resets
        )
    }
}

/// One input bus: its valid port and the ports it carries, as indices of the input row.
#[derive(Clone, Debug)]
struct Bus {
    valid: usize,
    fields: Vec<usize>,
    message: bool,
}

/// `inner` with the faults of a [`FaultPlan`].
pub struct Faulty<S> {
    inner: S,
    plan: FaultPlan,
    buses: Vec<Bus>,
    /// Input indices of csr_we, csr_addr, csr_wdata (if the block has a CSR port).
    csr: Option<(usize, usize, usize)>,
    /// Input masks by index.
    masks: Vec<u64>,
    rng: SplitMix64,
    /// The previous row as the block saw it.
    last: Vec<u64>,
    /// A stuck bus and the cycles it has left.
    stuck: Option<(usize, u64)>,
    /// Per bus, a message event waiting to be repeated, and the values of its ports (one
    /// buffer per bus, allocated once: `next` runs every cycle).
    repeat_waiting: Vec<bool>,
    repeat_values: Vec<Vec<u64>>,
    reset_next: bool,
    counts: FaultCounts,
}

impl<S: Stimulus> Faulty<S> {
    /// Fails if a message bus of the plan is not an input bus of `schema`.
    pub fn new(inner: S, plan: FaultPlan, schema: &PortSchema) -> Result<Self, String> {
        let inputs: Vec<_> = schema.ports.iter().filter(|p| p.dir == Dir::In).collect();
        let index = |name: &str| inputs.iter().position(|p| p.name == name);
        let mut buses = Vec::new();
        for (i, p) in inputs.iter().enumerate() {
            let Some(prefix) = p.name.strip_suffix("_valid") else {
                continue;
            };
            let fields = inputs
                .iter()
                .enumerate()
                .filter(|(_, q)| q.name.starts_with(&format!("{prefix}_")) && q.name != p.name)
                .map(|(k, _)| k)
                .collect();
            buses.push(Bus {
                valid: i,
                fields,
                message: plan.message_buses.iter().any(|m| m == prefix),
            });
        }
        for m in &plan.message_buses {
            let known = inputs.iter().any(|p| p.name == format!("{m}_valid"));
            if !known {
                return Err(format!(
                    "message bus `{m}`: block {} has no input `{m}_valid`",
                    schema.block
                ));
            }
        }
        let csr = match (index("csr_we"), index("csr_addr"), index("csr_wdata")) {
            (Some(we), Some(addr), Some(data)) => Some((we, addr, data)),
            _ => None,
        };
        let masks = inputs
            .iter()
            .map(|p| switchcraft_core::mask(p.width))
            .collect();
        let rng = SplitMix64::new(plan.seed);
        let repeat_values: Vec<Vec<u64>> = buses.iter().map(|b| vec![0; b.fields.len()]).collect();
        Ok(Faulty {
            inner,
            buses,
            csr,
            masks,
            rng,
            last: vec![0; inputs.len()],
            stuck: None,
            repeat_waiting: vec![false; repeat_values.len()],
            repeat_values,
            reset_next: false,
            counts: FaultCounts::default(),
            plan,
        })
    }

    pub fn counts(&self) -> FaultCounts {
        self.counts
    }

    fn per_mille(&mut self, rate: u64) -> bool {
        rate > 0 && self.rng.below(1000) < rate
    }

    fn plan_reset(&mut self) {
        let every = self.plan.reset_every;
        self.reset_next = every > 0 && self.rng.below(every) == 0;
        if self.reset_next {
            self.counts.resets += 1;
            // A reset ends a stuck stretch and the repeats in flight: the link restarts too.
            self.stuck = None;
            self.repeat_waiting.fill(false);
        }
    }
}

impl<S: Stimulus> Stimulus for Faulty<S> {
    fn restart(&mut self) {
        self.inner.restart();
        self.rng = SplitMix64::new(self.plan.seed);
        self.last.iter_mut().for_each(|v| *v = 0);
        self.stuck = None;
        self.repeat_waiting.fill(false);
        self.reset_next = false;
        self.counts = FaultCounts::default();
    }

    fn next(&mut self, inputs: &mut [u64]) -> bool {
        if !self.inner.next(inputs) {
            return false;
        }
        // Messages: a repeat waiting from an earlier cycle goes out when its bus is idle; an
        // event is lost, or kept for a repeat.
        for b in 0..self.buses.len() {
            let bus = &self.buses[b];
            if !bus.message {
                continue;
            }
            if inputs[bus.valid] == 0 {
                if self.repeat_waiting[b] {
                    self.repeat_waiting[b] = false;
                    inputs[bus.valid] = 1;
                    for (&k, &v) in bus.fields.iter().zip(&self.repeat_values[b]) {
                        inputs[k] = v;
                    }
                    self.counts.duplicated += 1;
                }
                continue;
            }
            if self.rng.below(1000) < self.plan.lose {
                inputs[bus.valid] = 0;
                bus.fields.iter().for_each(|&k| inputs[k] = 0);
                self.counts.lost += 1;
            } else if self.rng.below(1000) < self.plan.duplicate {
                self.repeat_waiting[b] = true;
                for (v, &k) in self.repeat_values[b].iter_mut().zip(&bus.fields) {
                    *v = inputs[k];
                }
            }
        }
        // A stuck bus repeats the last row's values of its ports.
        if self.stuck.is_none() && !self.buses.is_empty() && self.per_mille(self.plan.stuck) {
            let b = self.rng.below(self.buses.len() as u64) as usize;
            if self.last[self.buses[b].valid] != 0 {
                self.stuck = Some((b, self.plan.stuck_cycles));
                self.counts.stuck_stretches += 1;
            }
        }
        if let Some((b, left)) = self.stuck {
            let bus = &self.buses[b];
            for &k in std::iter::once(&bus.valid).chain(&bus.fields) {
                inputs[k] = self.last[k];
            }
            self.stuck = (left > 1).then_some((b, left - 1));
        }
        if let Some((we, addr, data)) = self.csr {
            if self.per_mille(self.plan.csr_write) {
                inputs[we] = 1;
                inputs[addr] = self.rng.next_u64() & self.masks[addr];
                inputs[data] = self.rng.next_u64() & self.masks[data];
                self.counts.csr_writes += 1;
            }
        }
        self.last.copy_from_slice(inputs);
        self.plan_reset();
        true
    }

    fn reset_next(&self) -> bool {
        self.reset_next
    }
}
