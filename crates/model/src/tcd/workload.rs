//! The TCD block's seeded random workload: input rows for co-simulation, tests and the demo,
//! shaped to reach every rule of the block (docs/blocks/tcd.md, "Verification status").

use super::*;

/// Seeded random workload for co-simulation, tests and the demo.
///
/// It runs in phases of 32..=512 cycles: ON-OFF (frequent PAUSE/RESUME on a few hot entries,
/// ON periods far below max(Ton)), released (rare frames, so ON periods outlast max(Ton) and T
/// boundaries pass), quiet (little traffic, so timestamps age across half-wraps of a short
/// counter) and hammer (one entry dequeued every cycle while frames toggle it). Queue lengths
/// random-walk around K with jumps onto K, K_low and 0; ECN codepoints of every kind; rare
/// out-of-range indices, frames on the inactive bus, CSR writes (mode, options, periods,
/// thresholds, enables), entry snapshots, and reads of every register.
pub struct TcdWorkload {
    cfg: TcdConfig,
    rng: switchcraft_core::rng::SplitMix64,
    /// The queue length the generator reports for each entry.
    queue: Vec<u64>,
    /// Whether the generator last paused each entry.
    paused: Vec<bool>,
    hot: [usize; 3],
    phase: WorkPhase,
    phase_left: u64,
    /// The generator's copy of the `mode` register (frames mostly go to the active bus).
    ib: bool,
    /// Live copies of K and K_low, so queue lengths stay near them.
    k: u64,
    k_low: u64,
}

#[derive(Clone, Copy, Debug)]
enum WorkPhase {
    OnOff,
    Released,
    Quiet,
    Hammer,
}

impl TcdWorkload {
    pub fn new(cfg: &TcdConfig, seed: u64) -> Self {
        let keys = (cfg.ports * cfg.priorities) as usize;
        let mut w = TcdWorkload {
            cfg: cfg.clone(),
            rng: switchcraft_core::rng::SplitMix64::new(seed),
            queue: vec![cfg.k; keys],
            paused: vec![false; keys],
            hot: [0; 3],
            phase: WorkPhase::OnOff,
            phase_left: 0,
            ib: cfg.mode == Mode::Ib,
            k: cfg.k,
            k_low: cfg.k_low,
        };
        for h in &mut w.hot {
            *h = w.rng.below(keys as u64) as usize;
        }
        w.new_phase();
        w
    }

    fn keys(&self) -> u64 {
        self.queue.len() as u64
    }

    fn new_phase(&mut self) {
        self.phase = match self.rng.below(8) {
            0..=2 => WorkPhase::OnOff,
            3..=5 => WorkPhase::Released,
            6 => WorkPhase::Quiet,
            _ => WorkPhase::Hammer,
        };
        self.phase_left = self.rng.range(32, 512);
        if self.rng.chance(30) {
            for h in &mut self.hot {
                *h = self.rng.below(self.queue.len() as u64) as usize;
            }
        }
    }

    fn pick_key(&mut self) -> usize {
        if matches!(self.phase, WorkPhase::Hammer) {
            self.hot[0]
        } else if self.rng.chance(80) {
            self.hot[self.rng.below(3) as usize]
        } else {
            self.rng.below(self.keys()) as usize
        }
    }

    /// (port, priority) of `key`, or rarely any index the bus can carry.
    fn index(&mut self, key: usize) -> (u64, u64) {
        if self.rng.chance(1) {
            let p = self.rng.below(1 << self.cfg.port_bits());
            let q = self.rng.below(1 << self.cfg.prio_bits());
            return (p, q);
        }
        let n = self.cfg.priorities as usize;
        ((key / n) as u64, (key % n) as u64)
    }

    /// The next queue length of `key`: a random walk around K with jumps onto the thresholds.
    fn walk_queue(&mut self, key: usize) -> u64 {
        let qmax = mask(self.cfg.queue_bits);
        let step = (self.k / 8).max(16);
        let q = &mut self.queue[key];
        *q = match self.rng.below(100) {
            0 => self.k,
            1 => self.k + 1,
            2 => self.k_low,
            3 => self.k_low.saturating_sub(1),
            4 => 0,
            5 => qmax,
            _ => {
                let up = self.rng.range(0, 2 * step);
                (*q + up).saturating_sub(step)
            }
        }
        .min(qmax);
        *q
    }

    fn ecn(&mut self) -> u64 {
        match self.rng.below(20) {
            0..=11 => ECT0,
            12..=14 => UE,
            15..=17 => CE,
            _ => NOT_ECT,
        }
    }

    pub fn next_input(&mut self) -> TcdIn {
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let (p_rx, p_deq) = match self.phase {
            WorkPhase::OnOff => (150, 600),
            WorkPhase::Released => (3, 700),
            WorkPhase::Quiet => (2, 30),
            WorkPhase::Hammer => (100, 1000),
        };
        let mut i = TcdIn::default();
        if self.rng.below(1000) < p_rx {
            let key = self.pick_key();
            // Mostly a real ON/OFF transition; sometimes a repeat (ignored by the block).
            let stop = if self.rng.chance(5) {
                self.paused[key]
            } else {
                !self.paused[key]
            };
            self.paused[key] = stop;
            let qlen = self.queue[key];
            let (port, prio) = self.index(key);
            // Frames mostly arrive on the bus of the active mode.
            if self.ib != self.rng.chance(5) {
                (i.rx_credit_valid, i.rx_credit_port, i.rx_credit_vl) = (1, port, prio);
                (i.rx_credit_ok, i.rx_credit_qlen) = (u64::from(!stop), qlen);
            } else {
                (i.rx_pfc_valid, i.rx_pfc_port, i.rx_pfc_prio) = (1, port, prio);
                i.rx_pfc_quanta = if stop { self.rng.range(1, 0xFFFF) } else { 0 };
                i.rx_pfc_qlen = qlen;
            }
        }
        if self.rng.below(1000) < p_deq {
            let key = self.pick_key();
            let qlen = self.walk_queue(key);
            let (port, prio) = self.index(key);
            (i.deq_valid, i.deq_port, i.deq_prio) = (1, port, prio);
            (i.deq_qlen, i.deq_ecn) = (qlen, self.ecn());
        }
        i.csr_addr = self.rng.below(20);
        if self.rng.chance(1) {
            // An entry snapshot, sometimes of an index that names no entry.
            let key = self.rng.below(self.keys()) as usize;
            let (port, prio) = self.index(key);
            (i.csr_we, i.csr_addr, i.csr_wdata) =
                (1, u64::from(reg::ENTRY_INDEX), port << 3 | prio);
        } else if self.rng.below(1000) < 3 {
            i.csr_we = 1;
            i.csr_wdata = self.csr_write_value(i.csr_addr);
        }
        i
    }

    /// A value for a CSR write that keeps the block in a useful operating range.
    fn csr_write_value(&mut self, addr: u64) -> u64 {
        let half = self.cfg.max_time();
        match addr as u32 {
            reg::MODE => {
                // Rarely switch modes; paused entries carry over.
                if self.rng.chance(20) {
                    self.ib = !self.ib;
                }
                u64::from(self.ib)
            }
            reg::OPTIONS => self.rng.below(4),
            // Sometimes 0: max(Ton) = 0 never calls an ON period short; T = 0 makes every
            // dequeue a T boundary.
            reg::MAX_TON if self.rng.chance(10) => 0,
            reg::T_PERIOD if self.rng.chance(10) => 0,
            reg::MAX_TON => self.rng.range(1, (2 * self.cfg.max_ton).min(half)),
            reg::T_PERIOD => self.rng.range(1, (2 * self.cfg.t_period).min(half)),
            reg::K => {
                let top = (self.cfg.k + self.cfg.k / 2).min(mask(self.cfg.queue_bits));
                self.k = self.rng.range(self.cfg.k / 2, top);
                self.k
            }
            reg::K_LOW => {
                self.k_low = self.rng.range(self.k / 2, self.k);
                self.k_low
            }
            // Classes past the block's too: their windows read 0 and ignore writes.
            reg::SPEED_SEL | reg::ENTRY_SPEED => self.rng.below(u64::from(self.cfg.speeds()) + 1),
            reg::PRIO_ENABLE => {
                if self.rng.chance(50) {
                    mask(self.cfg.priorities)
                } else {
                    self.rng.below(256)
                }
            }
            _ => self.rng.next_u64() & 0xFFFF_FFFF,
        }
    }
}
