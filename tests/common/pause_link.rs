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

/// What a block says about one (port, priority) after an edge: its decision pauses it, and
/// whether the condition under which it must stop pausing holds (PFC: occupancy at or below
/// XON; CaPFC: D clear).
#[derive(Clone, Copy)]
pub struct KeyState {
    pub pausing: bool,
    pub released: bool,
}

/// A frame on the `frame_*` bus: port, class enable, pause bits, quanta.
pub type Frame = (usize, u64, u64, u64);

/// Runs `cycles` edges through a lossy link (a fifth of the frames lost) and checks both
/// promises on every (port, priority): while the block's decision pauses it (for more than
/// `slack` edges, the frame path's latency), the last PAUSE sent is at most
/// `refresh_bound` cycles old; once released for more than `slack + quanta` edges, upstream no
/// longer holds it paused. `edge` steps the block once and returns its frame, if any, and
/// fills the key states (ports x priorities, port-major).
#[allow(clippy::too_many_arguments)]
pub fn check_lossy_link(
    ports: usize,
    prios: usize,
    refresh_bound: u64,
    quanta: u64,
    slack: u64,
    seed: u64,
    cycles: u64,
    mut edge: impl FnMut(&mut [KeyState]) -> Option<Frame>,
) {
    let mut link = PauseLink::new(ports, 1, 200, seed);
    let mut keys = vec![
        KeyState {
            pausing: false,
            released: true
        };
        ports * prios
    ];
    let mut pausing_since = vec![None; ports * prios];
    let mut released_since = vec![None; ports * prios];
    let mut checked = (0u64, 0u64);
    for cycle in 0..cycles {
        if let Some((port, enable, pause, q)) = edge(&mut keys) {
            link.send(cycle, port, enable, pause, q);
        }
        for (k, key) in keys.iter().enumerate() {
            let (port, prio) = (k / prios, k % prios);
            let what = format!("cycle {cycle}, ({port}, {prio}), seed {seed}");
            let since = |s: Option<u64>, holds: bool| holds.then(|| s.unwrap_or(cycle));
            pausing_since[k] = since(pausing_since[k], key.pausing);
            released_since[k] = since(released_since[k], key.released);
            if let Some(s) = pausing_since[k].filter(|s| cycle >= s + slack + refresh_bound) {
                let last = link.last_pause_sent[port * 8 + prio];
                assert!(
                    last.is_some_and(|t| cycle - t <= refresh_bound),
                    "{what}: pausing since {s}, last PAUSE sent {last:?}"
                );
                checked.0 += 1;
            }
            if let Some(s) = released_since[k].filter(|s| cycle > s + slack + quanta) {
                assert!(
                    !link.paused(cycle, port, prio),
                    "{what}: released since {s}, still paused upstream"
                );
                checked.1 += 1;
            }
        }
    }
    // The run exercised both repairs.
    assert!(
        link.lost_pauses > 100 && link.lost_resumes > 20 && checked.0 > 1000 && checked.1 > 1000,
        "seed {seed}: {} PAUSEs and {} RESUMEs lost, {checked:?} checks",
        link.lost_pauses,
        link.lost_resumes
    );
}
