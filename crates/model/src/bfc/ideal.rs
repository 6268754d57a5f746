//! `ideal_fid_pause`: the reference BFC is compared with (spec §3.6, §3.3.2 [P]: "pause/resume
//! by FID, no sticky"; the paper finds BFC's performance "nearly identical"). Every flow has a
//! queue of its own at every egress, so nothing collides, and the upstream pauses exactly the
//! flow. It keeps BFC's rules otherwise: Th(o) = ThTab[speed(o)][max(N_active, 1)] with N_active
//! the flows at `o` with data and not paused by the downstream, a packet is counted when its
//! flow's queue before it is above Th, PAUSE when a flow's counter at an ingress leaves 0,
//! RESUME when it returns to 0. Unbounded counters: a model for comparisons, not hardware.
//!
//! With no more flows at an egress than its data queues, distinct flow-table keys and sticky 0,
//! BFC gives every flow a queue of its own and its pause counters, one per upstream queue, are
//! per flow when each flow has its own upstream queue: the two then send the same PAUSE and
//! RESUME frames (tests/bfc_model.rs checks it on random traffic).

use super::BfcConfig;
use std::collections::{HashMap, HashSet};

/// A frame to send upstream: pause or resume flow `fid` on ingress port `inp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FidFrame {
    Pause { inp: usize, fid: u64 },
    Resume { inp: usize, fid: u64 },
}

#[derive(Clone, Debug)]
pub struct IdealFidPause {
    cfg: BfcConfig,
    /// Bytes queued per (egress, flow).
    qlen: HashMap<(usize, u64), u64>,
    /// Flows paused by the downstream, per (egress, flow).
    ds_paused: HashSet<(usize, u64)>,
    /// Counted packets per (ingress, flow).
    pc: HashMap<(usize, u64), u64>,
}

impl IdealFidPause {
    /// Uses `cfg`'s Th table and port speed classes (its reset values).
    pub fn new(cfg: &BfcConfig) -> IdealFidPause {
        IdealFidPause {
            cfg: cfg.clone(),
            qlen: HashMap::new(),
            ds_paused: HashSet::new(),
            pc: HashMap::new(),
        }
    }

    /// Flows at `eg` with data and not paused by the downstream.
    pub fn n_active(&self, eg: usize) -> u32 {
        self.qlen
            .iter()
            .filter(|(&(o, f), &b)| o == eg && b > 0 && !self.ds_paused.contains(&(o, f)))
            .count() as u32
    }

    pub fn threshold(&self, eg: usize) -> u64 {
        let c = &self.cfg;
        let speed = c.port_speed.get(eg).copied().unwrap_or(0);
        let n = self.n_active(eg).clamp(1, c.queues);
        c.th[(speed * c.queues + n - 1) as usize]
    }

    pub fn qlen(&self, eg: usize, fid: u64) -> u64 {
        self.qlen.get(&(eg, fid)).copied().unwrap_or(0)
    }

    /// A packet of `fid` from ingress `inp` arrives for egress `eg`: whether it is counted, and
    /// the PAUSE it sends.
    pub fn enqueue(
        &mut self,
        inp: usize,
        eg: usize,
        fid: u64,
        len: u64,
    ) -> (bool, Option<FidFrame>) {
        let counted = self.qlen(eg, fid) > self.threshold(eg);
        *self.qlen.entry((eg, fid)).or_default() += len;
        if !counted {
            return (false, None);
        }
        let pc = self.pc.entry((inp, fid)).or_default();
        *pc += 1;
        (true, (*pc == 1).then_some(FidFrame::Pause { inp, fid }))
    }

    /// The packet leaves; `counted` as its enqueue said. The RESUME it sends.
    pub fn dequeue(
        &mut self,
        inp: usize,
        eg: usize,
        fid: u64,
        len: u64,
        counted: bool,
    ) -> Option<FidFrame> {
        let q = self.qlen.entry((eg, fid)).or_default();
        assert!(
            *q >= len,
            "a dequeue of bytes the flow's queue does not hold"
        );
        *q -= len;
        if !counted {
            return None;
        }
        let pc = self
            .pc
            .get_mut(&(inp, fid))
            .expect("a counted packet's counter");
        *pc -= 1;
        (*pc == 0).then_some(FidFrame::Resume { inp, fid })
    }

    /// The downstream pauses (true) or resumes flow `fid` at egress `eg`.
    pub fn set_ds_paused(&mut self, eg: usize, fid: u64, paused: bool) {
        if paused {
            self.ds_paused.insert((eg, fid));
        } else {
            self.ds_paused.remove(&(eg, fid));
        }
    }
}
