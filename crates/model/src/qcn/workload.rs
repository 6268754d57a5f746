//! The QCN block's seeded random workload: input rows for co-simulation, tests and the demo,
//! shaped to reach every rule of the block (docs/blocks/qcn.md, "Verification status").

use super::*;
use crate::pfc::PfcWorkload;
use switchcraft_core::rng::SplitMix64;

/// Seeded random workload for co-simulation, tests and the demo.
///
/// The egress side runs in phases of 32..=192 cycles: rise (queues grow through the P_fb
/// ramp), fall, mixed, and hammer (one queue and one flow every cycle, so the rate limit and
/// `q_old` see back-to-back updates). Each queue's depth is a random walk the generator keeps,
/// from 0 to beyond Q_max; most arrivals come from a small hot set of queues and flows, so
/// flows repeat within T_fb, with rare out-of-range indices. The ingress side is PFC's own
/// workload. CSR traffic reads every register and rarely writes Q_eq, w, the Fb scale, the
/// gate, T_fb, the P_fb table, the seed and the PFC's registers.
pub struct QcnWorkload {
    cfg: QcnConfig,
    rng: SplitMix64,
    pfc: PfcWorkload,
    depth: Vec<u64>,
    hot_queues: [usize; 3],
    flows: [(u32, u32); 8],
    phase: Phase,
    phase_left: u64,
    /// The depth walk's step and ceiling.
    step: u64,
    top: u64,
}

#[derive(Clone, Copy, Debug)]
enum Phase {
    Rise,
    Fall,
    Mixed,
    Hammer,
}

impl QcnWorkload {
    pub fn new(cfg: &QcnConfig, seed: u64) -> Self {
        let mut rng = SplitMix64::new(seed);
        let pfc = PfcWorkload::new(&cfg.pfc_config(), rng.next_u64());
        let queues = (cfg.ports * cfg.priorities) as usize;
        let top = (cfg.q_max + cfg.q_max / 2 + 4).min(mask(cfg.depth_bits));
        let mut flows = [(0, 0); 8];
        for f in &mut flows {
            *f = (rng.next_u64() as u32, rng.next_u64() as u32);
        }
        let mut w = QcnWorkload {
            cfg: cfg.clone(),
            pfc,
            depth: vec![0; queues],
            hot_queues: [0; 3],
            flows,
            phase: Phase::Rise,
            phase_left: 0,
            step: (cfg.q_max / 16).max(1),
            top,
            rng,
        };
        w.new_phase();
        w
    }

    fn new_phase(&mut self) {
        self.phase = match self.rng.below(8) {
            0..=2 => Phase::Rise,
            3..=4 => Phase::Fall,
            5..=6 => Phase::Mixed,
            _ => Phase::Hammer,
        };
        self.phase_left = self.rng.range(32, 192);
        if self.rng.chance(40) {
            for h in &mut self.hot_queues {
                *h = self.rng.below(self.depth.len() as u64) as usize;
            }
        }
    }

    pub fn next_input(&mut self) -> QcnIn {
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let p = self.pfc.next_input();
        let mut i = QcnIn {
            in_enq_valid: p.enq_valid,
            in_enq_port: p.enq_port,
            in_enq_prio: p.enq_prio,
            in_enq_len: p.enq_len,
            in_deq_valid: p.deq_valid,
            in_deq_port: p.deq_port,
            in_deq_prio: p.deq_prio,
            in_deq_len: p.deq_len,
            ..QcnIn::default()
        };
        let (p_arrival, up) = match self.phase {
            Phase::Rise => (75, 70),
            Phase::Fall => (50, 25),
            Phase::Mixed => (60, 50),
            Phase::Hammer => (100, 55),
        };
        if self.rng.chance(p_arrival) {
            self.egress_arrival(&mut i, up);
        }
        if p.csr_we == 1 {
            // The PFC workload's write, on the PFC's window.
            (i.csr_we, i.csr_addr, i.csr_wdata) =
                (1, u64::from(PFC_BASE) + p.csr_addr, p.csr_wdata);
        } else {
            self.csr(&mut i);
        }
        i
    }

    fn egress_arrival(&mut self, i: &mut QcnIn, up: u64) {
        let hammer = matches!(self.phase, Phase::Hammer);
        let queue = if hammer || self.rng.chance(75) {
            self.hot_queues[if hammer {
                0
            } else {
                self.rng.below(3) as usize
            }]
        } else {
            self.rng.below(self.depth.len() as u64) as usize
        };
        // The queue's depth walks; now and then it jumps, as a burst or a drain would.
        let d = &mut self.depth[queue];
        if self.rng.chance(2) {
            *d = self.rng.below(self.top + 1);
        } else if self.rng.chance(up) {
            *d = (*d + self.rng.range(1, self.step)).min(self.top);
        } else {
            *d = d.saturating_sub(self.rng.range(1, self.step));
        }
        let n = self.cfg.priorities as usize;
        let (mut port, mut prio) = ((queue / n) as u64, (queue % n) as u64);
        if self.rng.chance(1) {
            // Anything the bus can carry, in range or not.
            port = self.rng.below(1 << self.cfg.port_bits());
            prio = self.rng.below(1 << self.cfg.prio_bits());
        }
        let (src, dst) = if hammer {
            self.flows[0]
        } else if self.rng.chance(85) {
            self.flows[self.rng.below(8) as usize]
        } else {
            (self.rng.next_u64() as u32, self.rng.next_u64() as u32)
        };
        (i.eg_valid, i.eg_port, i.eg_prio, i.eg_qdepth) = (1, port, prio, *d);
        (i.eg_src, i.eg_dst) = (src.into(), dst.into());
    }

    /// Reads of every register; rare writes of values that keep the CP meaningful.
    fn csr(&mut self, i: &mut QcnIn) {
        let c = &self.cfg;
        i.csr_addr = if self.rng.chance(80) {
            self.rng.below(u64::from(reg::LFSR_SEED) + 1)
        } else {
            u64::from(PFC_BASE) + self.rng.below(8)
        };
        if self.rng.below(1000) >= 4 || i.csr_addr >= u64::from(PFC_BASE) {
            return;
        }
        let addr = i.csr_addr as u32;
        i.csr_we = 1;
        i.csr_wdata = match addr {
            reg::Q_EQ => self
                .rng
                .range(1, c.q_max.max(1) * 2)
                .min(mask(c.depth_bits)),
            reg::W => self.rng.below(16),
            reg::FB_SCALE => {
                let q_eq = self.rng.range(1, c.q_max.max(1) * 2);
                FbScale::for_fb_max(fb_max(q_eq, self.rng.below(16) as u32)).word()
            }
            reg::FB_GATE => self.rng.below(2),
            reg::T_FB => self.rng.below(c.t_fb * 2 + 2).min(mask(c.ts_bits)),
            reg::PFB_INDEX => self.rng.below(u64::from(c.pfb_entries) + 2),
            reg::PFB_DATA => match self.rng.below(3) {
                0 => 0,
                1 => PFB_ONE,
                _ => self.rng.below(PFB_ONE + 1),
            },
            reg::ERR => self.rng.below(4),
            // Now and then 0, which the LFSR replaces (a zero state would lock it up).
            reg::LFSR_SEED if self.rng.chance(25) => 0,
            _ => self.rng.next_u64() & 0xFFFF_FFFF,
        };
    }
}
