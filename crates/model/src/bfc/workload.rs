//! The BFC block's seeded random workload: input rows for co-simulation, tests and the demo,
//! shaped to reach every rule of the block (docs/blocks/bfc.md, "Verification status").

use super::*;

/// A packet in the workload's picture of the switch: what its dequeue must carry.
#[derive(Clone, Copy, Debug)]
struct Pkt {
    eg: u64,
    q: u64,
    key: u64,
    counted: u64,
    inp: u64,
    upq: u64,
    len: u64,
    ft_skip: u64,
}

#[derive(Clone, Copy, Debug)]
enum WorkPhase {
    /// Mostly arrivals: queues fill, counters rise.
    Fill,
    /// Mostly departures: queues empty, RESUMEs.
    Drain,
    Mixed,
    /// One flow every cycle, arriving and leaving: back-to-back events on one entry and one
    /// pause counter.
    Hammer,
    Sparse,
}

fn pick(rng: &mut switchcraft_core::rng::SplitMix64, from: &[u64]) -> u64 {
    from[rng.below(from.len() as u64) as usize]
}

/// The seeded random workload of BFC, closed loop: a private model gives each enqueue's
/// queue, key and counter bit, so the dequeues carry what the block gave them (as a traffic
/// manager would). It collides flows on purpose (a few flow ids, some sharing a key), fills
/// every queue, repeats one key every cycle, and mixes in received frames, CSR traffic and,
/// rarely, bad or inconsistent events.
pub struct BfcWorkload {
    cfg: BfcConfig,
    rng: switchcraft_core::rng::SplitMix64,
    model: Bfc,
    /// The enqueues of the last edges whose results are not out yet, oldest first.
    pending: std::collections::VecDeque<Option<Pkt>>,
    /// Packets per (egress, queue) in arrival order.
    queued: Vec<std::collections::VecDeque<Pkt>>,
    total: usize,
    flows: Vec<u64>,
    eg_hot: Vec<u64>,
    in_hot: Vec<u64>,
    phase: WorkPhase,
    phase_left: u64,
}

impl BfcWorkload {
    pub fn new(cfg: &BfcConfig, seed: u64) -> Self {
        let mut w = BfcWorkload {
            cfg: cfg.clone(),
            rng: switchcraft_core::rng::SplitMix64::new(seed),
            model: Bfc::new(cfg).expect("validated config"),
            pending: Default::default(),
            queued: vec![Default::default(); (cfg.ports * cfg.queues) as usize],
            total: 0,
            flows: Vec::new(),
            eg_hot: Vec::new(),
            in_hot: Vec::new(),
            phase: WorkPhase::Fill,
            phase_left: 0,
        };
        w.new_phase();
        w
    }

    fn new_phase(&mut self) {
        self.phase = match self.rng.below(10) {
            0..=2 => WorkPhase::Fill,
            3..=5 => WorkPhase::Drain,
            6 | 7 => WorkPhase::Mixed,
            8 => WorkPhase::Hammer,
            _ => WorkPhase::Sparse,
        };
        self.phase_left = self.rng.range(32, 256);
        let ports = u64::from(self.cfg.ports);
        let n = self.rng.range(1, 3);
        self.eg_hot = (0..n).map(|_| self.rng.below(ports)).collect();
        let n = self.rng.range(1, 3);
        self.in_hot = (0..n).map(|_| self.rng.below(ports)).collect();
        // A few flows, more than the data queues now and then; some share a key.
        let n = match self.phase {
            WorkPhase::Hammer => 1,
            _ => self.rng.range(1, u64::from(self.cfg.queues) + 4),
        };
        let fid_mask = mask(self.cfg.fid_bits);
        self.flows = (0..n).map(|_| self.rng.next_u64() & fid_mask).collect();
        if self.rng.chance(30) {
            let f = self.flows[0];
            let key = self.model.ft_key(f);
            if let Some(g) = (1..4096u64)
                .map(|k| f.wrapping_add(k) & fid_mask)
                .find(|&g| g != f && self.model.ft_key(g) == key)
            {
                self.flows.push(g);
            }
        }
    }

    /// A departure: the head of a non-empty queue of a hot egress (or any), sometimes with
    /// its metadata damaged.
    fn dequeue(&mut self, i: &mut BfcIn) {
        let n = self.queued.len();
        let hot = pick(&mut self.rng, &self.eg_hot) as usize * self.cfg.queues as usize;
        let start = if self.rng.chance(80) {
            hot + self.rng.below(u64::from(self.cfg.queues)) as usize
        } else {
            self.rng.below(n as u64) as usize
        };
        let Some(k) = (0..n)
            .map(|d| (start + d) % n)
            .find(|&k| !self.queued[k].is_empty())
        else {
            return;
        };
        let mut p = self.queued[k].pop_front().expect("non-empty");
        self.total -= 1;
        if self.rng.below(1000) < 5 {
            // Lost or damaged metadata: underflows and bad fields.
            match self.rng.below(5) {
                0 => p.len = self.rng.range(1, mask(self.cfg.length_bits)),
                1 => p.counted ^= 1,
                2 => p.key = self.rng.below(1 << self.cfg.key_bits()),
                3 => p.ft_skip ^= 1,
                _ => p.q = self.rng.below(1 << self.cfg.queue_bits()),
            }
        }
        (i.deq_valid, i.deq_eg_port, i.deq_queue, i.deq_ft_key) = (1, p.eg, p.q, p.key);
        (i.deq_counter_incr, i.deq_in_port) = (p.counted, p.inp);
        (i.deq_upstream_q, i.deq_len, i.deq_ft_skip) = (p.upq, p.len, p.ft_skip);
    }

    fn enqueue(&mut self, i: &mut BfcIn) -> Pkt {
        let c = &self.cfg;
        let top = mask(c.length_bits).min(1500);
        let len = if self.rng.chance(1) {
            0
        } else {
            self.rng.range(1, top)
        };
        let fid = pick(&mut self.rng, &self.flows);
        let eg = pick(&mut self.rng, &self.eg_hot);
        let inp = pick(&mut self.rng, &self.in_hot);
        let upq = self.rng.below(u64::from(c.upstream_queues.min(4)));
        let class = if self.rng.chance(1) {
            self.rng.below(1 << c.class_bits())
        } else {
            // A flow keeps its class.
            fid % u64::from(c.classes)
        };
        (i.enq_valid, i.enq_in_port, i.enq_eg_port, i.enq_fid) = (1, inp, eg, fid);
        (i.enq_len, i.enq_upstream_q, i.enq_class) = (len, upq, class);
        // A flow keeps its label, which a config without incast_label ignores; now and then
        // a packet of another flow carries one too.
        i.enq_incast = u64::from(fid % 4 == 1 || self.rng.chance(1));
        Pkt {
            eg,
            q: 0,
            key: 0,
            counted: 0,
            inp,
            upq,
            len,
            ft_skip: 0,
        }
    }

    fn rx(&mut self, i: &mut BfcIn) {
        let c = &self.cfg;
        i.rx_valid = 1;
        i.rx_port = pick(&mut self.rng, &self.eg_hot);
        i.rx_kind = match self.rng.below(20) {
            0 => 3,
            1..=8 => RX_PAUSE,
            9..=16 => RX_RESUME,
            _ => RX_BITMAP,
        };
        i.rx_queue = self.rng.below(1 << c.queue_bits());
        i.rx_base = self.rng.below(1 << index_bits(c.rx_chunks().into()));
        i.rx_bitmap = self.rng.next_u64() & mask(c.rx_bitmap_bits());
    }

    /// A CSR write that keeps the block mostly in its useful range.
    fn csr_write(&mut self, i: &mut BfcIn) {
        let c = &self.cfg;
        let (addr, data) = match self.rng.below(16) {
            0 => (
                reg::MODE,
                if self.rng.chance(70) {
                    MODE_DYNAMIC
                } else {
                    self.rng.below(4)
                },
            ),
            1 => (reg::STICKY, self.rng.below(mask(c.ts_bits - 1).min(40) + 1)),
            2 => (reg::T_BM, self.rng.range(0, c.t_bm * 2)),
            // Now and then an index past the table, whose writes are ignored and reads are 0.
            3 => (reg::TH_INDEX, self.rng.below(u64::from(c.queues) + 2)),
            4 => (reg::TH_DATA, self.rng.range(1, c.th[0] * 2)),
            5 => (reg::BPEN_INDEX, self.rng.below(u64::from(c.ports) + 2)),
            6 => (reg::BPEN_LO, self.rng.next_u64()),
            7 => {
                let cl = self.rng.below(u64::from(c.classes)) as u32;
                let q = c.class_queues(cl);
                let word = if self.rng.chance(90) {
                    let first = self.rng.range(1, u64::from(c.queues) - 1) as u32;
                    let count = self.rng.range(1, u64::from(c.queues - first)) as u32;
                    class_word(first, count)
                } else if self.rng.chance(50) {
                    class_word(q.start, q.end - q.start)
                } else {
                    // Any word: malformed ranges, and bits past the register's 15.
                    self.rng.next_u64() & 0xFFFF_FFFF
                };
                (reg::CLASS_BASE + cl, word)
            }
            8 => (reg::LFSR_SEED, self.rng.next_u64() & 0xFFFF_FFFF),
            9 => (reg::ERR, 0xFF),
            // Speed classes past `speeds` too: their Th rows read 0 and are not written, and a
            // port is never moved to one.
            10 => (reg::TH_SPEED, self.rng.below(u64::from(c.speeds) + 1)),
            11 => (reg::PORT_INDEX, self.rng.below(u64::from(c.ports) + 1)),
            12 => (reg::PORT_SPEED, self.rng.below(u64::from(c.speeds) + 1)),
            // Rates around the paper's 50 %, and now and then none or every packet.
            13 => (
                reg::SAMPLE_RATE,
                match self.rng.below(8) {
                    0 => 0,
                    1 => self.rng.range(256, 511),
                    _ => self.rng.range(1, 255),
                },
            ),
            _ => {
                let table = self.rng.below(3);
                let size = match table {
                    SNAP_FLOW_TABLE => c.entries(),
                    SNAP_PAUSE_COUNTER => u64::from(c.ports) << c.upstream_bits(),
                    _ => u64::from(c.ports) << c.queue_bits(),
                };
                let k = self.rng.below(size + 2);
                (reg::SNAP_INDEX, table << SNAP_TABLE_SHIFT | k)
            }
        };
        (i.csr_we, i.csr_addr, i.csr_wdata) = (1, addr.into(), data & 0xFFFF_FFFF);
    }

    pub fn next_input(&mut self) -> BfcIn {
        let mut i = BfcIn::default();
        let mut enq = None;
        if self.model.now() < self.cfg.init_cycles() {
            // While the tables clear: mostly idle, a refused event now and then.
            if self.rng.chance(10) {
                enq = Some(self.enqueue(&mut i));
            }
        } else {
            if self.phase_left == 0 {
                self.new_phase();
            }
            self.phase_left -= 1;
            let (p_enq, p_deq) = match self.phase {
                WorkPhase::Fill => (85, 30),
                WorkPhase::Drain => (15, 90),
                WorkPhase::Mixed => (55, 55),
                WorkPhase::Hammer => (100, 100),
                WorkPhase::Sparse => (20, 20),
            };
            if self.rng.chance(p_deq) {
                self.dequeue(&mut i);
            }
            let cap = 12 * (self.cfg.ports * self.cfg.queues) as usize;
            if self.rng.chance(p_enq) && (self.total < cap || self.rng.chance(5)) {
                enq = Some(self.enqueue(&mut i));
            }
            if self.rng.chance(3) {
                self.rx(&mut i);
            }
            i.csr_addr = self.rng.below(1 << CSR_ADDR_BITS);
            if self.rng.below(1000) < 6 {
                self.csr_write(&mut i);
            }
        }
        // Follow the block: the result of the enqueue EVENT_LATENCY edges ago comes out now.
        let out = self.model.step(&i);
        self.pending.push_back(enq);
        if self.pending.len() > EVENT_LATENCY as usize {
            let sent = self.pending.pop_front().expect("non-empty");
            if let (Some(mut p), 1, 0) = (sent, out.asg_valid, out.asg_refused) {
                (p.q, p.key, p.counted) = (out.asg_queue, out.asg_ft_key, out.asg_counter_incr);
                p.ft_skip = out.asg_ft_skip;
                self.queued[(p.eg * u64::from(self.cfg.queues) + p.q) as usize].push_back(p);
                self.total += 1;
            }
        }
        i
    }

    /// The private model's path counts (what the workload has exercised).
    pub fn branch_counts(&self) -> Vec<(Branch, u64)> {
        self.model.branch_counts()
    }
}
