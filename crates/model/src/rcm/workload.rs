//! The RCM block's seeded random workload: input rows for co-simulation, tests and the demo,
//! shaped to reach every rule of the block (docs/blocks/rcm.md, "Verification status").

use super::*;
use switchcraft_core::rng::SplitMix64;

/// Seeded random workload for co-simulation, tests and the demo.
///
/// Runs in phases of 32..=256 cycles: rise (queues grow past Q_eq, so samples congest, CNs go
/// out and the RCC starts), fall (queues drain, lcf clears, the RCC exits), mixed, and hammer
/// (one queue, one port and one flow every cycle: back-to-back updates of one key). Each
/// queue's depth is a random walk the generator keeps. Flow IDs come mostly from a small hot
/// set, so the CAMs fill with IDs that offers and route queries then hit. CNs arrive now and
/// then, each followed by a burst of IDs (mostly hot ones) on `cni`. CSR traffic reads every
/// register and rarely writes the tunable ones with values the block accepts.
pub struct RcmWorkload {
    cfg: RcmConfig,
    rng: SplitMix64,
    voq_depth: Vec<u64>,
    oq_depth: Vec<u64>,
    hot_fids: [u64; 6],
    hot_port: u64,
    /// IDs of the CN being received, still to send on `cni`.
    cn_ids: Vec<(u64, u64)>,
    phase: Phase,
    phase_left: u64,
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

impl RcmWorkload {
    pub fn new(cfg: &RcmConfig, seed: u64) -> Self {
        let mut rng = SplitMix64::new(seed);
        let fid_mask = mask(cfg.fid_bits);
        let hot_fids = std::array::from_fn(|_| rng.next_u64() & fid_mask);
        let mut w = RcmWorkload {
            cfg: cfg.clone(),
            voq_depth: vec![0; (cfg.ports * cfg.ports) as usize],
            oq_depth: vec![0; cfg.ports as usize],
            hot_fids,
            hot_port: 0,
            cn_ids: Vec::new(),
            phase: Phase::Rise,
            phase_left: 0,
            step: (cfg.q_eq / 6).max(1),
            top: (cfg.q_eq * 3).min(mask(cfg.depth_bits)),
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
        self.phase_left = self.rng.range(32, 256);
        if self.rng.chance(50) {
            self.hot_port = self.rng.below(self.cfg.ports.into());
        }
    }

    /// A port: mostly the hot one, rarely beyond the ports when the bus can name one.
    fn port(&mut self) -> u64 {
        let bus_ports = 1u64 << self.cfg.port_bits();
        let ports = u64::from(self.cfg.ports);
        if bus_ports > ports && self.rng.chance(1) {
            self.rng.range(ports, bus_ports - 1)
        } else if matches!(self.phase, Phase::Hammer) || self.rng.chance(50) {
            self.hot_port
        } else {
            self.rng.below(ports)
        }
    }

    fn fid(&mut self) -> u64 {
        if matches!(self.phase, Phase::Hammer) {
            self.hot_fids[0]
        } else if self.rng.chance(70) {
            self.hot_fids[self.rng.below(self.hot_fids.len() as u64) as usize]
        } else {
            self.rng.next_u64() & mask(self.cfg.fid_bits)
        }
    }

    fn len(&mut self) -> u64 {
        let top = mask(self.cfg.len_bits);
        if self.rng.chance(30) {
            top
        } else {
            self.rng.range(1, top)
        }
    }

    /// The next depth of a queue's random walk.
    fn walk(&mut self, depth: u64) -> u64 {
        let up = match self.phase {
            Phase::Rise => 75,
            Phase::Fall => 20,
            Phase::Mixed => 50,
            Phase::Hammer => 60,
        };
        let step = self.rng.below(self.step + 1);
        if self.rng.chance(up) {
            (depth + step).min(self.top)
        } else {
            depth.saturating_sub(step)
        }
    }

    pub fn next_input(&mut self) -> RcmIn {
        if self.phase_left == 0 {
            self.new_phase();
        }
        self.phase_left -= 1;
        let ports = u64::from(self.cfg.ports);
        let mut i = RcmIn::default();
        if self.rng.chance(70) {
            i.iq_valid = 1;
            i.iq_port = self.port();
            i.iq_voq = if self.rng.chance(60) {
                self.hot_port
            } else {
                self.rng.below(ports)
            };
            let slot = ((i.iq_port % ports) * ports + i.iq_voq) as usize;
            self.voq_depth[slot] = self.walk(self.voq_depth[slot]);
            i.iq_qdepth = self.voq_depth[slot];
            i.iq_len = self.len();
        }
        if self.rng.chance(70) {
            i.oq_valid = 1;
            i.oq_port = self.port();
            let slot = (i.oq_port % ports) as usize;
            self.oq_depth[slot] = self.walk(self.oq_depth[slot]);
            i.oq_qdepth = self.oq_depth[slot];
            i.oq_len = self.len();
            i.oq_fid = self.fid();
        }
        if self.rng.chance(70) {
            i.sch_valid = 1;
            i.sch_port = self.port();
            i.sch_fid = self.fid();
            i.sch_len = self.len();
            i.sch_alone = self.rng.chance(25).into();
        }
        if self.rng.chance(30) {
            i.rt_valid = 1;
            i.rt_port = self.port();
            i.rt_cands = self.rng.next_u64() & mask(self.cfg.ports);
            i.rt_fid = self.fid();
            i.rt_new = self.rng.chance(50).into();
        }
        self.receive(&mut i);
        if self.rng.chance(20) {
            i.idr_valid = 1;
            i.idr_port = self.port();
            i.idr_ext = self.rng.chance(50).into();
            i.idr_index = self.rng.below(self.cfg.cam_depth.into());
        }
        self.csr(&mut i);
        i
    }

    /// CN headers now and then, each followed by its IDs, one per cycle.
    fn receive(&mut self, i: &mut RcmIn) {
        let p_cn = if matches!(self.phase, Phase::Fall) {
            1
        } else {
            3
        };
        if self.rng.chance(p_cn) {
            i.cnr_valid = 1;
            i.cnr_port = self.port();
            i.cnr_fbp = self.rng.below(64);
            let n = self.rng.below(u64::from(self.cfg.cam_depth) + 2);
            self.cn_ids.clear();
            for _ in 0..n {
                let fid = self.fid();
                self.cn_ids.push((i.cnr_port, fid));
            }
            self.cn_ids.reverse();
        }
        if let Some((port, fid)) = self.cn_ids.pop() {
            i.cni_valid = 1;
            i.cni_port = port;
            i.cni_fid = fid;
        } else if self.rng.chance(1) {
            i.cni_valid = 1;
            i.cni_port = self.port();
            i.cni_fid = self.fid();
        }
    }

    fn csr(&mut self, i: &mut RcmIn) {
        let c = &self.cfg;
        let regs = reg::PORT_RATE as u64 + 1;
        if !self.rng.chance(2) {
            i.csr_addr = self.rng.below(regs + 2) & mask(CSR_ADDR_BITS);
            return;
        }
        i.csr_we = 1;
        let r = &mut self.rng;
        let ts_max = 1u64 << (c.ts_bits - 1);
        let (addr, data) = match r.below(14) {
            0 => {
                let q_eq = r.range(1, mask(c.depth_bits) / 2);
                (reg::Q_EQ, q_eq)
            }
            1 => (reg::W, r.below(16)),
            2 => {
                let fbm = fb_max(c.q_eq, r.below(16) as u32);
                (reg::FB_SCALE, FbScale::for_fb_max(fbm).word())
            }
            3 => (reg::N_CLEAR, r.range(1, 15)),
            4 => (reg::T_CN, r.below(c.t_cn * 2 + 1).min(ts_max)),
            5 => (reg::T_RCF, r.range(1, (c.t_rcf * 2).min(ts_max))),
            6 => (reg::T_MEAS, r.range(1, (c.t_meas * 2).min(ts_max))),
            7 => (reg::GD, r.below(GD_ONE / 32)),
            8 => (reg::WC_MIN, r.range(1, mask(c.len_bits) * 4)),
            9 => (reg::W_SHIFT, r.below(7)),
            10 => {
                let k = r.below(SAMP_LEVELS as u64) as u32;
                (reg::SAMP_INTERVAL + k, r.range(1, c.samp_base))
            }
            11 => (reg::PORT_SEL, r.below(u64::from(c.ports))),
            12 => (reg::ERR, r.next_u64()),
            _ => {
                let k = r.below(5) as u32;
                let data = match k {
                    2 => r.range(1, SEVERE_SLOTS as u64),
                    3 => r.range(1, (c.sar_window * 2).min(ts_max)),
                    4 => r.below(64),
                    _ => r.below(2),
                };
                let addr = [
                    reg::SAR_ENABLE,
                    reg::SAR_NEW_ONLY,
                    reg::SAR_CNS,
                    reg::SAR_WINDOW,
                    reg::SAR_SEVERE,
                ][k as usize];
                (addr, data)
            }
        };
        i.csr_addr = addr.into();
        i.csr_wdata = data;
    }
}
