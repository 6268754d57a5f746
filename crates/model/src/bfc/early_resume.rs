//! `early_resume` (spec §3.4 [S], for experiments only): an upstream queue is resumed when the
//! queue its counted packets wait in is no longer above Th, instead of when they have left.
//! The paper considered and dropped it for the bookkeeping it needs, which is this: which
//! counted packets of which pause counter sit in which queue. A model-only option.

use std::collections::{HashMap, VecDeque};

#[derive(Default)]
pub(super) struct EarlyResume {
    /// Counted packets in queue `qi` (egress x queues + queue) from pause counter `j`, whose
    /// count is still in the counter.
    held: HashMap<(usize, usize), u64>,
    /// Counted packets in queue `qi` from `j` whose count was already returned: their
    /// departures lower nothing.
    released: HashMap<(usize, usize), u64>,
    /// Counters an early release brought to 0, waiting for a free RESUME bus.
    pub pending: VecDeque<usize>,
}

impl EarlyResume {
    pub fn clear(&mut self) {
        self.held.clear();
        self.released.clear();
        self.pending.clear();
    }

    /// A counted arrival into queue `qi` from counter `j`.
    pub fn counted(&mut self, qi: usize, j: usize) {
        *self.held.entry((qi, j)).or_default() += 1;
    }

    /// A counted departure from `qi`: whether its count is still in counter `j` (it was not
    /// released early), so the departure lowers the counter.
    pub fn depart(&mut self, qi: usize, j: usize) -> bool {
        if let Some(n) = self.released.get_mut(&(qi, j)).filter(|n| **n > 0) {
            *n -= 1;
            return false;
        }
        if let Some(n) = self.held.get_mut(&(qi, j)).filter(|n| **n > 0) {
            *n -= 1;
        }
        true
    }

    /// Queue `qi` is no longer above Th: the counts its counted packets hold, by counter,
    /// which the caller returns; their departures will lower nothing.
    pub fn release(&mut self, qi: usize) -> Vec<(usize, u64)> {
        let mut out: Vec<(usize, u64)> = self
            .held
            .iter()
            .filter(|(&(q, _), &n)| q == qi && n > 0)
            .map(|(&(_, j), &n)| (j, n))
            .collect();
        out.sort_unstable();
        for &(j, n) in &out {
            self.held.remove(&(qi, j));
            *self.released.entry((qi, j)).or_default() += n;
        }
        out
    }
}
