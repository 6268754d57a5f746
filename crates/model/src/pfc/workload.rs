//! The PFC block's seeded random workload: input rows for co-simulation, tests and the demo,
//! shaped to reach every rule of the block (docs/blocks/pfc.md, "Verification status").

use super::*;

/// Seeded random workload for co-simulation, tests and the demo.
///
/// It runs in phases of 32..=192 cycles: fill (mostly enqueues), drain (mostly dequeues),
/// mixed, and hammer (one key every cycle on both buses). Most events go to a small hot set of
/// keys so queues cross XOFF and XON again and again; the generator tracks what it enqueued so
/// dequeues are mostly plausible, with rare oversize dequeues (underflow), out-of-range
/// indices, CSR writes of threshold-respecting values and CSR reads of every register.
pub struct PfcWorkload {
    cfg: PfcConfig,
    rng: switchcraft_core::rng::SplitMix64,
    /// Bytes the generator believes each key holds.
    held: Vec<u64>,
    hot: [usize; 3],
    phase: Phase,
    phase_left: u64,
    /// Live copies of the thresholds, so CSR writes keep xon < xoff <= max.
    xoff: u64,
    xon: u64,
    max: u64,
}

#[derive(Clone, Copy, Debug)]
enum Phase {
    Fill,
    Drain,
    Mixed,
    Hammer,
}

impl PfcWorkload {
    pub fn new(cfg: &PfcConfig, seed: u64) -> Self {
        let keys = (cfg.ports * cfg.priorities) as usize;
        let mut w = PfcWorkload {
            cfg: cfg.clone(),
            rng: switchcraft_core::rng::SplitMix64::new(seed),
            held: vec![0; keys],
            hot: [0; 3],
            phase: Phase::Fill,
            phase_left: 0,
            xoff: cfg.xoff,
            xon: cfg.xon,
            max: cfg.max,
        };
        for h in &mut w.hot {
            *h = w.rng.below(keys as u64) as usize;
        }
        w.new_phase();
        w
    }

    fn keys(&self) -> usize {
        self.held.len()
    }

    fn new_phase(&mut self) {
        self.phase = match self.rng.below(8) {
            0..=2 => Phase::Fill,
            3..=5 => Phase::Drain,
            6 => Phase::Mixed,
            _ => Phase::Hammer,
        };
        self.phase_left = self.rng.range(32, 192);
        // Keep the hot set across most phases, so what one phase fills the next one drains.
        if self.rng.chance(30) {
            for h in &mut self.hot {
                *h = self.rng.below(self.held.len() as u64) as usize;
            }
        }
    }

    fn pick_key(&mut self) -> usize {
        if matches!(self.phase, Phase::Hammer) || self.rng.chance(80) {
            self.hot[self.rng.below(3) as usize]
        } else {
            self.rng.below(self.keys() as u64) as usize
        }
    }

    fn len(&mut self) -> u64 {
        // Packets of up to a quarter of the XOFF-XON gap (at least 64 B), within the bus width.
        let top = ((self.xoff - self.xon) / 4)
            .max(64)
            .min(mask(self.cfg.length_bits));
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

    pub fn next_input(&mut self) -> PfcIn {
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let (p_enq, p_deq) = match self.phase {
            Phase::Fill => (85, 30),
            Phase::Drain => (20, 85),
            Phase::Mixed => (55, 55),
            Phase::Hammer => (100, 100),
        };
        let mut i = PfcIn::default();
        if self.rng.chance(p_deq) {
            let mut key = self.pick_key();
            for _ in 0..4 {
                if self.held[key] > 0 {
                    break;
                }
                key = self.rng.below(self.keys() as u64) as usize;
            }
            let held = self.held[key];
            let len = if self.rng.chance(1) {
                self.len() + held
            } else if held == 0 {
                0
            } else {
                held.min(self.len())
            };
            if len > 0 && len <= mask(self.cfg.length_bits) {
                self.held[key] = held.saturating_sub(len);
                let (p, q) = self.index(key);
                (i.deq_valid, i.deq_port, i.deq_prio, i.deq_len) = (1, p, q, len);
            }
        }
        if self.rng.chance(p_enq) {
            let key = self.pick_key();
            let len = self.len();
            let fits = self.held[key] + len <= self.max;
            // Mostly respect the buffer (a sender under PFC would have stopped); sometimes
            // overrun it, to exercise the MAX drop.
            if fits || self.rng.chance(5) {
                if fits {
                    self.held[key] += len;
                }
                let (p, q) = self.index(key);
                (i.enq_valid, i.enq_port, i.enq_prio, i.enq_len) = (1, p, q, len);
            }
        }
        i.csr_addr = self.rng.below(10);
        if self.rng.below(1000) < 3 {
            i.csr_we = 1;
            i.csr_wdata = self.csr_write_value(i.csr_addr);
        }
        i
    }

    /// A value for a CSR write that keeps the thresholds meaningful (xon < xoff <= max).
    fn csr_write_value(&mut self, addr: u64) -> u64 {
        let limit = mask(self.cfg.occupancy_bits);
        match addr as u32 {
            reg::XOFF => {
                self.xoff = self.rng.range(self.xon + 1, self.max);
                self.xoff
            }
            reg::XON => {
                self.xon = self.rng.range(self.xoff / 2, self.xoff - 1);
                self.xon
            }
            reg::MAX => {
                // Stay near the configured buffer, so queues keep crossing the thresholds.
                let top = limit.min(self.cfg.max + self.cfg.max / 4).max(self.xoff);
                self.max = self.rng.range(self.xoff, top);
                self.max
            }
            reg::QUANTA => self.rng.range(1, 0xFFFF),
            reg::REFRESH => self.rng.range(self.cfg.ports.into(), 256),
            _ => self.rng.next_u64() & 0xFFFF_FFFF,
        }
    }
}
