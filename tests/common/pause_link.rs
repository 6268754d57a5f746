//! The upstream end of a lossy link that carries 802.1Qbb PFC frames (PFC's and CaPFC's
//! `frame_*` bus): each frame is lost with a seeded probability; a delivered frame pauses each
//! class whose `pause` bit is set for `quanta` x `cycles_per_quanta` cycles and resumes each
//! enabled class whose bit is clear. The upstream thus sees what a real link partner would, and
//! a test can hold the block to what PFC promises under loss: while a class stays paused a
//! PAUSE is resent within the refresh bound, so a lost PAUSE is repaired; and a lost RESUME
//! is repaired by the pause time running out, since no PAUSE follows a RESUME.

use switchcraft_core::rng::SplitMix64;

pub struct PauseLink {
    classes: usize,
    cycles_per_quanta: u64,
    lose_per_mille: u64,
    rng: SplitMix64,
    /// Upstream's view: paused until this cycle (exclusive), per (port, class).
    until: Vec<u64>,
    /// Cycle of the last PAUSE sent (delivered or lost), per (port, class).
    pub last_pause_sent: Vec<Option<u64>>,
    pub lost_pauses: u64,
    pub lost_resumes: u64,
    pub delivered: u64,
}

impl PauseLink {
    pub fn new(ports: usize, cycles_per_quanta: u64, lose_per_mille: u64, seed: u64) -> Self {
        PauseLink {
            classes: 8,
            cycles_per_quanta,
            lose_per_mille,
            rng: SplitMix64::new(seed),
            until: vec![0; ports * 8],
            last_pause_sent: vec![None; ports * 8],
            lost_pauses: 0,
            lost_resumes: 0,
            delivered: 0,
        }
    }

    /// A frame the block sent at `cycle`.
    pub fn send(&mut self, cycle: u64, port: usize, enable: u64, pause: u64, quanta: u64) {
        let lost = self.rng.below(1000) < self.lose_per_mille;
        for class in 0..self.classes {
            if enable >> class & 1 == 0 {
                continue;
            }
            let k = port * self.classes + class;
            let paused = pause >> class & 1 == 1;
            if paused {
                self.last_pause_sent[k] = Some(cycle);
            }
            match (lost, paused) {
                (true, true) => self.lost_pauses += 1,
                (true, false) => self.lost_resumes += 1,
                (false, true) => self.until[k] = cycle + 1 + quanta * self.cycles_per_quanta,
                (false, false) => self.until[k] = cycle + 1,
            }
        }
        self.delivered += u64::from(!lost);
    }

    /// Whether upstream holds `(port, class)` paused after `cycle`.
    pub fn paused(&self, cycle: u64, port: usize, class: usize) -> bool {
        self.until[port * self.classes + class] > cycle + 1
    }
}
