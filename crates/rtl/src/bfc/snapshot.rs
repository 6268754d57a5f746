//! BFC's snapshot (the model's `snapshot`): a write of `snap_index` requests one entry of the
//! flow table, a pause counter or a queue; the arrival side's RAM ports read it on the next
//! edge n without an arrival, after that edge's events: the flow-table entry and the
//! downstream-paused bit in cycle n, the occupancy and the pause counter in the accounting
//! stage's cycle n + 1. `snap_data0/1/2` take it at edge n + 2 and hold it until the next
//! request is served; the request shows busy until then.

use rust_hdl::prelude::*;
use switchcraft_core::mask;
use switchcraft_model::bfc::{
    BfcConfig, SNAP_FLOW_TABLE, SNAP_PAUSE_COUNTER, SNAP_QUEUE, SNAP_TABLE_SHIFT,
};

#[derive(LogicBlock)]
pub struct Snapshot<const NB: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Before edge n: an arrival takes the arrival-side read port at edge n.
    pub enq_valid: Signal<In, Bit>,
    /// Cycle n: `snap_index` is written at this edge; its value as stored; events are
    /// accepted.
    pub request: Signal<In, Bit>,
    pub index: Signal<In, Bits<32>>,
    pub ready: Signal<In, Bit>,
    /// What the arrival side read in cycle n, after its events: the flow-table entry's queue,
    /// class, size and timestamp; and the downstream-paused bits.
    pub entry_q: Signal<In, Bits<8>>,
    pub entry_class: Signal<In, Bits<3>>,
    pub size: Signal<In, Bits<32>>,
    pub ts: Signal<In, Bits<32>>,
    pub paused: Signal<In, Bits<N>>,
    /// What the accounting stage read in cycle n + 1: the pause counter and the queue's
    /// occupancy after edge n's events.
    pub pc: Signal<In, Bits<32>>,
    pub qlen: Signal<In, Bits<32>>,

    /// A request is pending or in flight, and `snap_data0/1/2`, as this edge leaves them.
    pub pending: Signal<Out, Bit>,
    pub data0: Signal<Out, Bits<32>>,
    pub data1: Signal<Out, Bits<32>>,
    pub data2: Signal<Out, Bits<3>>,

    snap_k_mask: Constant<Bits<32>>,
    ft_entries: Constant<Bits<32>>,
    n_ports: Constant<Bits<8>>,
    n_upstream: Constant<Bits<8>>,
    n_queues: Constant<Bits<8>>,
    queue_bits: Constant<Bits<8>>,
    upstream_bits: Constant<Bits<8>>,
    t_flow_table: Constant<Bits<2>>,
    t_pause_counter: Constant<Bits<2>>,
    t_queue: Constant<Bits<2>>,
    one_32: Constant<Bits<32>>,

    r_pending: DFF<Bit>,
    /// The arrival-side port reads the request at this edge.
    r_serve: DFF<Bit>,
    r_data0: DFF<Bits<32>>,
    r_data1: DFF<Bits<32>>,
    r_data2: DFF<Bits<3>>,
    /// The request served in the last cycle, for the accounting stage's values: its table,
    /// whether its index exists, and its words so far.
    t_serve: DFF<Bit>,
    t_which: DFF<Bits<2>>,
    t_ok: DFF<Bit>,
    t_d0: DFF<Bits<32>>,
    t_d1: DFF<Bits<32>>,
    t_d2: DFF<Bits<3>>,
    serve: Signal<Local, Bit>,
    waiting: Signal<Local, Bit>,
    which: Signal<Local, Bits<2>>,
    k: Signal<Local, Bits<32>>,
    qi: Signal<Local, Bits<NB>>,
    ok: Signal<Local, Bit>,
    d0: Signal<Local, Bits<32>>,
    d1: Signal<Local, Bits<32>>,
    d2: Signal<Local, Bits<3>>,
}

impl<const NB: usize, const N: usize> Snapshot<NB, N> {
    pub fn new(cfg: &BfcConfig) -> Self {
        let c8 = |v: u64| Constant::new(Bits::<8>::from(v));
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        Snapshot {
            clock: Default::default(),
            reset: Default::default(),
            enq_valid: Default::default(),
            request: Default::default(),
            index: Default::default(),
            ready: Default::default(),
            entry_q: Default::default(),
            entry_class: Default::default(),
            size: Default::default(),
            ts: Default::default(),
            pc: Default::default(),
            qlen: Default::default(),
            paused: Default::default(),
            pending: Default::default(),
            data0: Default::default(),
            data1: Default::default(),
            data2: Default::default(),
            snap_k_mask: c32(mask(SNAP_TABLE_SHIFT)),
            ft_entries: c32(cfg.entries()),
            n_ports: c8(cfg.ports.into()),
            n_upstream: c8(cfg.upstream_queues.into()),
            n_queues: c8(cfg.queues.into()),
            queue_bits: c8(cfg.queue_bits().into()),
            upstream_bits: c8(cfg.upstream_bits().into()),
            t_flow_table: Constant::new(SNAP_FLOW_TABLE.into()),
            t_pause_counter: Constant::new(SNAP_PAUSE_COUNTER.into()),
            t_queue: Constant::new(SNAP_QUEUE.into()),
            one_32: c32(1),
            r_pending: Default::default(),
            r_serve: Default::default(),
            r_data0: Default::default(),
            r_data1: Default::default(),
            r_data2: Default::default(),
            t_serve: Default::default(),
            t_which: Default::default(),
            t_ok: Default::default(),
            t_d0: Default::default(),
            t_d1: Default::default(),
            t_d2: Default::default(),
            serve: Default::default(),
            waiting: Default::default(),
            which: Default::default(),
            k: Default::default(),
            qi: Default::default(),
            ok: Default::default(),
            d0: Default::default(),
            d1: Default::default(),
            d2: Default::default(),
        }
    }
}

impl<const NB: usize, const N: usize> Logic for Snapshot<NB, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, r_pending, r_serve, r_data0, r_data1, r_data2, t_serve, t_which, t_ok,
            t_d0, t_d1, t_d2
        );
        // The request as this cycle leaves it (a request written this cycle counts).
        self.serve.next = self.r_serve.q.val() & self.ready.val();
        self.waiting.next = (self.r_pending.q.val() & !self.serve.val()) | self.request.val();
        self.pending.next = self.waiting.val() | self.serve.val();
        self.r_pending.d.next = self.waiting.val();
        self.r_serve.d.next = self.waiting.val() & !self.enq_valid.val();

        // ---- Cycle n: the table, the index's range, the flow-table words and the paused bit.
        self.which.next = self.index.val().get_bits::<2>(20);
        self.k.next = self.index.val() & self.snap_k_mask.val();
        self.qi.next = bit_cast::<NB, 32>(self.k.val());
        self.ok.next = false;
        self.d0.next = 0.into();
        self.d1.next = 0.into();
        self.d2.next = 0.into();
        if self.which.val() == self.t_flow_table.val() {
            self.ok.next = self.k.val() < self.ft_entries.val();
            self.d0.next = bit_cast::<32, 8>(self.entry_q.val()) | (self.size.val() << 8);
            self.d1.next = self.ts.val();
            self.d2.next = self.entry_class.val();
        }
        if self.which.val() == self.t_pause_counter.val() {
            self.ok.next = ((self.k.val() >> self.upstream_bits.val())
                < bit_cast::<32, 8>(self.n_ports.val()))
                & ((self.k.val()
                    & ((self.one_32.val() << self.upstream_bits.val()) - self.one_32.val()))
                    < bit_cast::<32, 8>(self.n_upstream.val()));
        }
        if self.which.val() == self.t_queue.val() {
            self.ok.next = ((self.k.val() >> self.queue_bits.val())
                < bit_cast::<32, 8>(self.n_ports.val()))
                & ((self.k.val()
                    & ((self.one_32.val() << self.queue_bits.val()) - self.one_32.val()))
                    < bit_cast::<32, 8>(self.n_queues.val()));
            if self.paused.val().get_bit(self.qi.val().index()) {
                self.d1.next = self.one_32.val();
            }
        }
        self.t_serve.d.next = self.serve.val();
        self.t_which.d.next = self.which.val();
        self.t_ok.d.next = self.ok.val();
        self.t_d0.d.next = self.d0.val();
        self.t_d1.d.next = self.d1.val();
        self.t_d2.d.next = self.d2.val();

        // ---- Cycle n + 1: the counter or occupancy, and the words.
        self.data0.next = self.r_data0.q.val();
        self.data1.next = self.r_data1.q.val();
        self.data2.next = self.r_data2.q.val();
        if self.t_serve.q.val() {
            self.data0.next = 0.into();
            self.data1.next = 0.into();
            self.data2.next = 0.into();
            if self.t_ok.q.val() {
                self.data0.next = self.t_d0.q.val();
                if self.t_which.q.val() == self.t_pause_counter.val() {
                    self.data0.next = self.pc.val();
                }
                if self.t_which.q.val() == self.t_queue.val() {
                    self.data0.next = self.qlen.val();
                }
                self.data1.next = self.t_d1.q.val();
                self.data2.next = self.t_d2.q.val();
            }
        }
        self.r_data0.d.next = self.data0.val();
        self.r_data1.d.next = self.data1.val();
        self.r_data2.d.next = self.data2.val();
        if self.reset.val() {
            self.r_pending.d.next = false;
            self.r_serve.d.next = false;
            self.t_serve.d.next = false;
            self.r_data0.d.next = 0.into();
            self.r_data1.d.next = 0.into();
            self.r_data2.d.next = 0.into();
        }
    }
}
