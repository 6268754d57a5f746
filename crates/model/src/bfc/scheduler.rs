//! The egress scheduler BFC assumes around the block: which queue of an egress port sends next.
//! A model, not RTL: the scheduler belongs to the traffic manager, and BFC's block only needs
//! its dequeues (docs/blocks/bfc.md, "The scheduler around the block").
//!
//! * Queue 0, the control queue, carries the pause and resume frames and goes first (spec §3.3
//!   [P]: "Pause/resume frames use a dedicated high-priority queue"); it is never paused.
//! * Classes (App. A.3 [P]) are served in strict priority, class 0 first [S]; a class is
//!   eligible when one of its queues has data and is not paused by the downstream.
//! * Within a class: **DRR** (spec §3.3 [P]: "DRR over queues with qlen > 0 && !dsPaused"),
//!   Shreedhar and Varghese's deficit round robin with a quantum in bytes; or **SRF** (App. A.2
//!   [P], BFC-SRF): the queue whose head packet has the smallest remaining flow size, the
//!   lowest queue on a tie [S].
//! * A paused queue is skipped and keeps its deficit [S] (it is still backlogged); a queue that
//!   empties loses it, as in DRR.

use std::collections::VecDeque;
use std::ops::Range;

/// How a class's queues share the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Deficit round robin with this quantum in bytes (at least 1).
    Drr { quantum: u64 },
    /// Shortest remaining flow first, on the head packets.
    Srf,
}

/// A packet waiting in a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Bytes on the wire (at least 1).
    pub len: u64,
    /// Bytes its flow has left to send, this packet included (SRF's key).
    pub remaining: u64,
    /// The caller's tag (a flow id, a sequence number).
    pub tag: u64,
}

/// The queues of one egress port and the policy that serves them.
#[derive(Clone, Debug)]
pub struct EgressScheduler {
    policy: Policy,
    classes: Vec<Range<usize>>,
    queues: Vec<VecDeque<Packet>>,
    paused: Vec<bool>,
    deficit: Vec<u64>,
    /// DRR per class: the queue whose turn it is, and whether its quantum was added.
    turn: Vec<usize>,
    turn_started: Vec<bool>,
}

impl EgressScheduler {
    /// `queues` queues (queue 0 the control queue); `classes` split queues 1.. into
    /// contiguous ranges, highest priority first (BfcConfig::class_queues gives them).
    pub fn new(queues: usize, classes: &[Range<usize>], policy: Policy) -> EgressScheduler {
        assert!(queues >= 2, "a control queue and a data queue");
        if let Policy::Drr { quantum } = policy {
            assert!(quantum >= 1, "a DRR quantum of 0 serves nothing");
        }
        for c in classes {
            assert!(
                c.start >= 1 && c.start < c.end && c.end <= queues,
                "class {c:?}"
            );
        }
        EgressScheduler {
            policy,
            classes: classes.to_vec(),
            queues: vec![VecDeque::new(); queues],
            paused: vec![false; queues],
            deficit: vec![0; queues],
            turn: classes.iter().map(|c| c.start).collect(),
            turn_started: vec![false; classes.len()],
        }
    }

    pub fn enqueue(&mut self, q: usize, p: Packet) {
        assert!(p.len >= 1, "a packet has at least one byte");
        self.queues[q].push_back(p);
    }

    /// PAUSE (true) or RESUME (false) of queue `q` from the downstream. The control queue
    /// cannot be paused.
    pub fn set_paused(&mut self, q: usize, paused: bool) {
        assert!(q != 0, "the control queue is never paused");
        self.paused[q] = paused;
    }

    pub fn len(&self, q: usize) -> usize {
        self.queues[q].len()
    }

    pub fn is_empty(&self) -> bool {
        self.queues.iter().all(VecDeque::is_empty)
    }

    fn eligible(&self, q: usize) -> bool {
        !self.queues[q].is_empty() && !self.paused[q]
    }

    /// The next packet to send and its queue, or None when every queue with data is paused.
    pub fn send(&mut self) -> Option<(usize, Packet)> {
        if let Some(p) = self.queues[0].pop_front() {
            return Some((0, p));
        }
        let c =
            (0..self.classes.len()).find(|&c| self.classes[c].clone().any(|q| self.eligible(q)))?;
        let q = match self.policy {
            Policy::Srf => self.classes[c]
                .clone()
                .filter(|&q| self.eligible(q))
                .min_by_key(|&q| (self.queues[q][0].remaining, q))
                .expect("the class has an eligible queue"),
            Policy::Drr { quantum } => self.drr_pick(c, quantum),
        };
        let p = self.queues[q].pop_front().expect("eligible");
        if let Policy::Drr { .. } = self.policy {
            self.deficit[q] -= p.len;
            if self.queues[q].is_empty() {
                self.deficit[q] = 0;
                self.end_turn(c);
            }
        }
        Some((q, p))
    }

    /// DRR within class `c`: the queue that sends now (its deficit covers its head packet).
    fn drr_pick(&mut self, c: usize, quantum: u64) -> usize {
        loop {
            let q = self.turn[c];
            if !self.eligible(q) {
                if self.queues[q].is_empty() {
                    self.deficit[q] = 0;
                }
                self.end_turn(c);
                continue;
            }
            if !self.turn_started[c] {
                self.deficit[q] += quantum;
                self.turn_started[c] = true;
            }
            if self.queues[q][0].len <= self.deficit[q] {
                return q;
            }
            self.end_turn(c);
        }
    }

    fn end_turn(&mut self, c: usize) {
        let r = &self.classes[c];
        self.turn[c] = if self.turn[c] + 1 == r.end {
            r.start
        } else {
            self.turn[c] + 1
        };
        self.turn_started[c] = false;
    }
}

#[cfg(test)]
// `&[1..4]` is one class holding queues 1..4, not a misspelt list of numbers.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    fn pkt(len: u64, remaining: u64, tag: u64) -> Packet {
        Packet {
            len,
            remaining,
            tag,
        }
    }

    /// Bytes each queue sends in `n` packets from backlogs that never run dry.
    fn bytes_sent(s: &mut EgressScheduler, n: usize, refill: &[(usize, u64)]) -> Vec<u64> {
        let mut sent = vec![0; s.queues.len()];
        for _ in 0..n {
            for &(q, len) in refill {
                if s.len(q) < 4 {
                    s.enqueue(q, pkt(len, 1, 0));
                }
            }
            let (q, p) = s.send().unwrap();
            sent[q] += p.len;
        }
        sent
    }

    #[test]
    fn drr_shares_bytes_not_packets() {
        // 1500 B packets against 500 B packets, quantum 1500 B: equal bytes, 3x the packets.
        let mut s = EgressScheduler::new(4, &[1..4], Policy::Drr { quantum: 1500 });
        let sent = bytes_sent(&mut s, 4000, &[(1, 1500), (2, 500), (3, 100)]);
        let (lo, hi) = (
            sent[1..].iter().min().unwrap(),
            sent[1..].iter().max().unwrap(),
        );
        assert!(hi - lo <= 1500, "{sent:?}");
    }

    #[test]
    fn drr_serves_a_packet_longer_than_the_quantum_after_enough_turns() {
        let mut s = EgressScheduler::new(3, &[1..3], Policy::Drr { quantum: 100 });
        s.enqueue(1, pkt(350, 1, 1));
        for k in 0..10 {
            s.enqueue(2, pkt(100, 1, 10 + k));
        }
        let order: Vec<u64> = std::iter::from_fn(|| s.send())
            .map(|(_, p)| p.tag)
            .collect();
        // Queue 1 gathers 100 B per round: it sends in its fourth turn, after three of queue 2.
        assert_eq!(order[..5], [10, 11, 12, 1, 13]);
    }

    #[test]
    fn paused_queues_wait_and_the_control_queue_goes_first() {
        let mut s = EgressScheduler::new(3, &[1..3], Policy::Drr { quantum: 1000 });
        s.enqueue(1, pkt(100, 1, 1));
        s.enqueue(2, pkt(100, 1, 2));
        s.enqueue(0, pkt(64, 1, 0));
        s.set_paused(1, true);
        assert_eq!(s.send().map(|(q, _)| q), Some(0));
        assert_eq!(s.send().map(|(q, _)| q), Some(2));
        assert_eq!(s.send(), None, "only a paused queue has data");
        s.set_paused(1, false);
        assert_eq!(s.send().map(|(q, p)| (q, p.tag)), Some((1, 1)));
        assert!(s.is_empty());
    }

    #[test]
    fn srf_sends_the_smallest_remaining_head_and_the_lowest_queue_on_a_tie() {
        let mut s = EgressScheduler::new(4, &[1..4], Policy::Srf);
        s.enqueue(1, pkt(1000, 50_000, 1));
        s.enqueue(2, pkt(1000, 3_000, 2));
        s.enqueue(3, pkt(1000, 3_000, 3));
        s.enqueue(2, pkt(1000, 90_000, 4));
        s.set_paused(3, true);
        let order: Vec<u64> = std::iter::from_fn(|| s.send())
            .map(|(_, p)| p.tag)
            .collect();
        // Queue 2's head first; then its next packet (90 000) loses to queue 1's (50 000).
        assert_eq!(order, [2, 1, 4]);
        s.set_paused(3, false);
        s.enqueue(1, pkt(1000, 3_000, 5));
        // A tie at 3 000: the lowest queue.
        assert_eq!(s.send().map(|(_, p)| p.tag), Some(5));
        assert_eq!(s.send().map(|(_, p)| p.tag), Some(3));
    }

    #[test]
    fn classes_are_served_in_strict_priority() {
        let mut s = EgressScheduler::new(5, &[1..3, 3..5], Policy::Drr { quantum: 1500 });
        for k in 0..3 {
            s.enqueue(3, pkt(1500, 1, 30 + k));
            s.enqueue(2, pkt(1500, 1, 20 + k));
        }
        let order: Vec<u64> = std::iter::from_fn(|| s.send())
            .map(|(_, p)| p.tag)
            .collect();
        assert_eq!(order, [20, 21, 22, 30, 31, 32]);
        // A paused class 0 lets class 1 send.
        s.enqueue(1, pkt(1500, 1, 10));
        s.enqueue(4, pkt(1500, 1, 40));
        s.set_paused(1, true);
        assert_eq!(s.send().map(|(_, p)| p.tag), Some(40));
    }
}
