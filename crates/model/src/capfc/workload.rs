//! The CaPFC block's seeded random workload: input rows for co-simulation, tests and the demo,
//! shaped to reach every rule of the block (docs/blocks/capfc.md, "Verification status").

use super::*;

/// Seeded random workload for co-simulation, tests and the demo.
///
/// Phases of 32..=256 cycles (fill, drain, mixed, hammer, sparse) drive a few hot egress queues
/// across WARN, XOFF and XON again and again, with arrivals skewed towards a per-phase heavy
/// input so the argmax moves; sparse phases leave the egress enqueue bus idle often, so
/// inspections get the counter RAM's read port A (waiting calibration requests have port B
/// whatever the bus carries). The ingress buses get
/// the same treatment with their own hot set. Rare events: oversize dequeues, MAX overruns,
/// out-of-range indices, CSR writes (policy, CUT, thresholds that keep their order, inspection
/// indices), and reads of every register.
pub struct CapfcWorkload {
    cfg: CapfcConfig,
    rng: switchcraft_core::rng::SplitMix64,
    /// Bytes the generator believes each egress and ingress key holds.
    eg_held: Vec<u64>,
    in_held: Vec<u64>,
    eg_hot: [usize; 3],
    in_hot: [usize; 2],
    /// Arrival weights per input in this phase.
    weights: Vec<u64>,
    phase: WorkPhase,
    phase_left: u64,
    /// Live copies of the thresholds, so CSR writes keep their order.
    eg: [u64; 4],
    ing: [u64; 3],
}

#[derive(Clone, Copy, Debug)]
enum WorkPhase {
    Fill,
    Drain,
    Mixed,
    Hammer,
    Sparse,
}

impl CapfcWorkload {
    pub fn new(cfg: &CapfcConfig, seed: u64) -> Self {
        let keys = (cfg.ports * cfg.priorities) as usize;
        let mut w = CapfcWorkload {
            cfg: cfg.clone(),
            rng: switchcraft_core::rng::SplitMix64::new(seed),
            eg_held: vec![0; keys],
            in_held: vec![0; keys],
            eg_hot: [0; 3],
            in_hot: [0; 2],
            weights: vec![1; cfg.ports as usize],
            phase: WorkPhase::Fill,
            phase_left: 0,
            eg: [cfg.eg_xon, cfg.eg_warn, cfg.eg_xoff, cfg.eg_max],
            ing: [cfg.in_xon, cfg.in_xoff, cfg.in_max],
        };
        w.pick_hot();
        w.new_phase();
        w
    }

    fn keys(&self) -> u64 {
        self.eg_held.len() as u64
    }

    fn pick_hot(&mut self) {
        for k in 0..3 {
            self.eg_hot[k] = self.rng.below(self.keys()) as usize;
        }
        for k in 0..2 {
            self.in_hot[k] = self.rng.below(self.keys()) as usize;
        }
    }

    fn new_phase(&mut self) {
        self.phase = match self.rng.below(10) {
            0..=2 => WorkPhase::Fill,
            3..=5 => WorkPhase::Drain,
            6 => WorkPhase::Mixed,
            7 => WorkPhase::Hammer,
            _ => WorkPhase::Sparse,
        };
        self.phase_left = self.rng.range(32, 256);
        if self.rng.chance(25) {
            self.pick_hot();
        }
        // One heavy input, a few medium ones, the rest light; a new draw each phase moves the
        // argmax.
        for wgt in self.weights.iter_mut() {
            *wgt = 1;
        }
        let p = self.weights.len() as u64;
        let heavy = self.rng.below(p) as usize;
        self.weights[heavy] = self.rng.range(4, 16);
        for _ in 0..2 {
            let medium = self.rng.below(p) as usize;
            self.weights[medium] += self.rng.range(1, 6);
        }
    }

    fn input(&mut self) -> u64 {
        let total: u64 = self.weights.iter().sum();
        let mut x = self.rng.below(total);
        for (i, &wgt) in self.weights.iter().enumerate() {
            if x < wgt {
                return i as u64;
            }
            x -= wgt;
        }
        0
    }

    fn len(&mut self, gap: u64) -> u64 {
        // Packets of up to a quarter of the hysteresis gap (at least 64 B), within the bus.
        let top = (gap / 4).max(64).min(mask(self.cfg.length_bits));
        self.rng.range(1, top)
    }

    fn index(&mut self, key: usize) -> (u64, u64) {
        let n = self.cfg.priorities as usize;
        if self.rng.chance(1) {
            // Anything the bus can carry, in range or not.
            let p = self.rng.below(1 << self.cfg.port_bits());
            let q = self.rng.below(1 << self.cfg.prio_bits());
            return (p, q);
        }
        ((key / n) as u64, (key % n) as u64)
    }

    /// A dequeue from `held` (mostly from a hot key): (key, len) or None.
    fn dequeue(
        &mut self,
        hot: &[usize],
        held_of: fn(&mut Self) -> &mut Vec<u64>,
        gap: u64,
    ) -> Option<(usize, u64)> {
        let mut key = hot[self.rng.below(hot.len() as u64) as usize];
        for _ in 0..4 {
            if held_of(self)[key] > 0 {
                break;
            }
            key = self.rng.below(self.keys()) as usize;
        }
        let held = held_of(self)[key];
        let len = if self.rng.chance(1) {
            self.len(gap) + held
        } else {
            held.min(self.len(gap))
        };
        if len == 0 || len > mask(self.cfg.length_bits) {
            return None;
        }
        held_of(self)[key] = held.saturating_sub(len);
        Some((key, len))
    }

    /// An enqueue of a hot (mostly) key that mostly respects `max`.
    fn enqueue(
        &mut self,
        hot: &[usize],
        held_of: fn(&mut Self) -> &mut Vec<u64>,
        gap: u64,
        max: u64,
    ) -> Option<(usize, u64)> {
        let key = if matches!(self.phase, WorkPhase::Hammer) || self.rng.chance(85) {
            hot[self.rng.below(hot.len() as u64) as usize]
        } else {
            self.rng.below(self.keys()) as usize
        };
        let len = self.len(gap);
        let fits = held_of(self)[key] + len <= max;
        if !fits && !self.rng.chance(5) {
            return None;
        }
        if fits {
            held_of(self)[key] += len;
        }
        Some((key, len))
    }

    pub fn next_input(&mut self) -> CapfcIn {
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let (p_enq, p_deq) = match self.phase {
            WorkPhase::Fill => (85, 30),
            WorkPhase::Drain => (20, 85),
            WorkPhase::Mixed => (55, 55),
            WorkPhase::Hammer => (100, 100),
            WorkPhase::Sparse => (25, 20),
        };
        let mut i = CapfcIn::default();
        let eg_hot = self.eg_hot;
        let in_hot = self.in_hot;
        let eg_gap = self.eg[2] - self.eg[0];
        let in_gap = self.ing[1] - self.ing[0];
        if self.rng.chance(p_deq) {
            if let Some((key, len)) = self.dequeue(&eg_hot, |w| &mut w.eg_held, eg_gap) {
                let (p, q) = self.index(key);
                (i.eg_deq_valid, i.eg_deq_port, i.eg_deq_prio, i.eg_deq_len) = (1, p, q, len);
            }
        }
        if self.rng.chance(p_enq) {
            let max = self.eg[3];
            if let Some((key, len)) = self.enqueue(&eg_hot, |w| &mut w.eg_held, eg_gap, max) {
                let (p, q) = self.index(key);
                let input = if self.rng.chance(1) {
                    self.rng.below(1 << self.cfg.port_bits())
                } else {
                    self.input()
                };
                (i.eg_enq_valid, i.eg_enq_port, i.eg_enq_prio) = (1, p, q);
                (i.eg_enq_input, i.eg_enq_len) = (input, len);
            }
        }
        if self.rng.chance(p_deq / 2) {
            if let Some((key, len)) = self.dequeue(&in_hot, |w| &mut w.in_held, in_gap) {
                let (p, q) = self.index(key);
                (i.in_deq_valid, i.in_deq_port, i.in_deq_prio, i.in_deq_len) = (1, p, q, len);
            }
        }
        if self.rng.chance(p_enq / 2) {
            let max = self.ing[2];
            if let Some((key, len)) = self.enqueue(&in_hot, |w| &mut w.in_held, in_gap, max) {
                let (p, q) = self.index(key);
                (i.in_enq_valid, i.in_enq_port, i.in_enq_prio, i.in_enq_len) = (1, p, q, len);
            }
        }
        i.csr_addr = self.rng.below(22);
        if self.rng.below(1000) < 4 {
            i.csr_we = 1;
            i.csr_wdata = self.csr_write_value(i.csr_addr);
        } else if self.rng.below(1000) < 8 {
            // Inspect a hot egress queue (or anything) and read the snapshot back.
            i.csr_we = 1;
            i.csr_addr = u64::from(reg::INSPECT);
            i.csr_wdata = self.csr_write_value(i.csr_addr);
        }
        i
    }

    /// A value for a CSR write that keeps the thresholds meaningful.
    fn csr_write_value(&mut self, addr: u64) -> u64 {
        let limit = mask(self.cfg.occupancy_bits);
        let [xon, warn, xoff, max] = self.eg;
        match addr as u32 {
            reg::POLICY => {
                // Mostly the two culprit policies; sometimes PFC only or the saturate bit.
                let policy = match self.rng.below(10) {
                    0 => 0,
                    1..=4 => 1,
                    _ => 2,
                };
                policy
                    | if self.rng.chance(25) {
                        POLICY_SATURATE
                    } else {
                        0
                    }
            }
            reg::CUT => {
                let den = self.rng.range(1, 255);
                let num = if self.rng.chance(5) {
                    self.rng.below(256)
                } else {
                    self.rng.range(1, den)
                };
                num | den << 8
            }
            reg::EG_XON => {
                self.eg[0] = self.rng.range(warn / 2, warn);
                self.eg[0]
            }
            reg::EG_WARN => {
                self.eg[1] = self.rng.range(xon, xoff - 1);
                self.eg[1]
            }
            reg::EG_XOFF => {
                self.eg[2] = self.rng.range(warn + 1, max);
                self.eg[2]
            }
            reg::EG_MAX => {
                let top = limit.min(self.cfg.eg_max + self.cfg.eg_max / 4).max(xoff);
                self.eg[3] = self.rng.range(xoff, top);
                self.eg[3]
            }
            reg::IN_XON => {
                self.ing[0] = self.rng.range(self.ing[1] / 2, self.ing[1] - 1);
                self.ing[0]
            }
            reg::IN_XOFF => {
                self.ing[1] = self.rng.range(self.ing[0] + 1, self.ing[2]);
                self.ing[1]
            }
            reg::IN_MAX => {
                let top = limit
                    .min(self.cfg.in_max + self.cfg.in_max / 4)
                    .max(self.ing[1]);
                self.ing[2] = self.rng.range(self.ing[1], top);
                self.ing[2]
            }
            reg::QUANTA => self.rng.range(1, 0xFFFF),
            reg::REFRESH => self.rng.range(self.cfg.ports.into(), 256),
            reg::INSPECT => {
                let n = self.cfg.priorities as usize;
                let key = self.eg_hot[self.rng.below(3) as usize];
                let (mut port, mut prio) = ((key / n) as u64, (key % n) as u64);
                let mut input = self.rng.below(self.cfg.ports.into());
                if self.rng.chance(10) {
                    port = self.rng.below(64);
                    prio = self.rng.below(8);
                    input = self.rng.below(64);
                }
                port | prio << 8 | input << 16
            }
            _ => self.rng.next_u64() & 0xFFFF_FFFF,
        }
    }
}
