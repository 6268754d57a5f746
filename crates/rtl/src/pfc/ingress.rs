//! PFC's ingress logic, shared by PFC and CaPFC: occupancy per key and its XOFF bit (`>=` XOFF
//! sets on enqueue, `<=` XON clears on dequeue, spec §2.3). The RTL form of
//! `switchcraft_model::pfc::Ingress`: events of edge n update the occupancy in cycle n + 1
//! ([`PipelinedOccupancy`], read, operand and write stages); edge n + 2 registers the results
//! with the thresholds of edge n, cycle n + 2 decides, and the XOFF vector changes at edge
//! n + 3. The decision stage reads and writes only the XOFF flip-flops, so it needs no
//! forwarding from the occupancy stages.

use super::occupancy_pipeline::PipelinedOccupancy;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Ingress<const KB: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Events of edge n; the caller has already dropped those naming a key that does not exist.
    pub enq_valid: Signal<In, Bit>,
    pub enq_key: Signal<In, Bits<KB>>,
    pub enq_len: Signal<In, Bits<16>>,
    pub deq_valid: Signal<In, Bit>,
    pub deq_key: Signal<In, Bits<KB>>,
    pub deq_len: Signal<In, Bits<16>>,
    pub xoff_thr: Signal<In, Bits<32>>,
    pub xon_thr: Signal<In, Bits<32>>,
    pub max: Signal<In, Bits<32>>,

    /// Keys in XOFF before the next edge, and after it.
    pub xoff: Signal<Out, Bits<K>>,
    pub xoff_next: Signal<Out, Bits<K>>,
    // Cycle n + 1: what the events of edge n do to the occupancy.
    pub drop: Signal<Out, Bit>,
    pub underflow: Signal<Out, Bit>,
    // Cycle n + 2: the decisions on the events of edge n.
    /// The enqueue's key enters XOFF over the edge.
    pub xoff_event: Signal<Out, Bit>,
    pub e_key: Signal<Out, Bits<KB>>,
    /// The dequeue's key leaves XOFF over the edge.
    pub xon_event: Signal<Out, Bit>,
    pub d_key: Signal<Out, Bits<KB>>,

    pub occ: PipelinedOccupancy<KB, K>,
    state: DFF<Bits<K>>,
    /// The thresholds of the events in the occupancy's operand stage (their capture edge's).
    thr_xoff_q: DFF<Bits<32>>,
    thr_xon_q: DFF<Bits<32>>,
    // The decision stage's inputs: the occupancy stage's results and the thresholds of their
    // capture edge.
    st_e_valid: DFF<Bit>,
    st_e_key: DFF<Bits<KB>>,
    st_e_b: DFF<Bits<32>>,
    st_d_valid: DFF<Bit>,
    st_d_key: DFF<Bits<KB>>,
    st_d_b: DFF<Bits<32>>,
    st_same: DFF<Bit>,
    st_xoff_thr: DFF<Bits<32>>,
    st_xon_thr: DFF<Bits<32>>,
    one_k: Constant<Bits<K>>,
    xo_d_old: Signal<Local, Bit>,
    xo_d1: Signal<Local, Bit>,
    xo_e_old: Signal<Local, Bit>,
    xo_e_base: Signal<Local, Bit>,
    xo_e1: Signal<Local, Bit>,
    d_final: Signal<Local, Bit>,
    e_onehot: Signal<Local, Bits<K>>,
    d_onehot: Signal<Local, Bits<K>>,
    touched: Signal<Local, Bits<K>>,
    set: Signal<Local, Bits<K>>,
}

impl<const KB: usize, const K: usize> Ingress<KB, K> {
    /// Occupancy counters of `width` bits.
    pub fn new(width: usize) -> Self {
        Ingress {
            clock: Default::default(),
            reset: Default::default(),
            enq_valid: Default::default(),
            enq_key: Default::default(),
            enq_len: Default::default(),
            deq_valid: Default::default(),
            deq_key: Default::default(),
            deq_len: Default::default(),
            xoff_thr: Default::default(),
            xon_thr: Default::default(),
            max: Default::default(),
            xoff: Default::default(),
            xoff_next: Default::default(),
            drop: Default::default(),
            underflow: Default::default(),
            xoff_event: Default::default(),
            e_key: Default::default(),
            xon_event: Default::default(),
            d_key: Default::default(),
            occ: PipelinedOccupancy::new(width),
            thr_xoff_q: Default::default(),
            thr_xon_q: Default::default(),
            state: Default::default(),
            st_e_valid: Default::default(),
            st_e_key: Default::default(),
            st_e_b: Default::default(),
            st_d_valid: Default::default(),
            st_d_key: Default::default(),
            st_d_b: Default::default(),
            st_same: Default::default(),
            st_xoff_thr: Default::default(),
            st_xon_thr: Default::default(),
            one_k: Constant::new(1u64.into()),
            xo_d_old: Default::default(),
            xo_d1: Default::default(),
            xo_e_old: Default::default(),
            xo_e_base: Default::default(),
            xo_e1: Default::default(),
            d_final: Default::default(),
            e_onehot: Default::default(),
            d_onehot: Default::default(),
            touched: Default::default(),
            set: Default::default(),
        }
    }
}

impl<const KB: usize, const K: usize> Logic for Ingress<KB, K> {
    // `!(b <= xon)` is the spec's "not at or below XON" and the shape the checked-in Verilog
    // (and its synthesis results) came from.
    #[allow(clippy::nonminimal_bool)]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            thr_xoff_q,
            thr_xon_q,
            st_e_valid,
            st_e_key,
            st_e_b,
            st_d_valid,
            st_d_key,
            st_d_b,
            st_same,
            st_xoff_thr,
            st_xon_thr
        );
        self.occ.clock.next = self.clock.val();
        self.occ.reset.next = self.reset.val();
        self.occ.enq_valid.next = self.enq_valid.val();
        self.occ.enq_key.next = self.enq_key.val();
        self.occ.enq_len.next = self.enq_len.val();
        self.occ.deq_valid.next = self.deq_valid.val();
        self.occ.deq_key.next = self.deq_key.val();
        self.occ.deq_len.next = self.deq_len.val();
        self.occ.max.next = self.max.val();

        // Edge n + 2: the occupancy stage's results move to the decision stage, with the
        // thresholds that applied at their capture edge n.
        self.thr_xoff_q.d.next = self.xoff_thr.val();
        self.thr_xon_q.d.next = self.xon_thr.val();
        self.st_e_valid.d.next = self.occ.e_valid.val() & !self.reset.val();
        self.st_e_key.d.next = self.occ.e_key.val();
        self.st_e_b.d.next = self.occ.e_b1.val();
        self.st_d_valid.d.next = self.occ.d_valid.val() & !self.reset.val();
        self.st_d_key.d.next = self.occ.d_key.val();
        self.st_d_b.d.next = self.occ.d_b1.val();
        self.st_same.d.next = self.occ.same_key.val();
        self.st_xoff_thr.d.next = self.thr_xoff_q.q.val();
        self.st_xon_thr.d.next = self.thr_xon_q.q.val();

        // Dequeue first: XON at or below the threshold.
        self.xo_d_old.next = self.state.q.val().get_bit(self.st_d_key.q.val().index());
        self.xo_d1.next = self.xo_d_old.val() & !(self.st_d_b.q.val() <= self.st_xon_thr.q.val());
        // Then enqueue, on top of the dequeue when both name one key.
        self.xo_e_old.next = self.state.q.val().get_bit(self.st_e_key.q.val().index());
        if self.st_same.q.val() {
            self.xo_e_base.next = self.xo_d1.val();
        } else {
            self.xo_e_base.next = self.xo_e_old.val();
        }
        self.xo_e1.next = self.xo_e_base.val() | (self.st_e_b.q.val() >= self.st_xoff_thr.q.val());
        if self.st_same.q.val() {
            self.d_final.next = self.xo_e1.val();
        } else {
            self.d_final.next = self.xo_d1.val();
        }

        // Edge n + 3: the XOFF bits of the decided keys take their final values.
        self.e_onehot.next = self.one_k.val() << self.st_e_key.q.val();
        self.d_onehot.next = self.one_k.val() << self.st_d_key.q.val();
        self.touched.next = 0.into();
        self.set.next = 0.into();
        if self.st_e_valid.q.val() {
            self.touched.next = self.e_onehot.val();
            if self.xo_e1.val() {
                self.set.next = self.e_onehot.val();
            }
        }
        if self.st_d_valid.q.val() {
            self.touched.next = self.touched.val() | self.d_onehot.val();
            if self.d_final.val() {
                self.set.next = self.set.val() | self.d_onehot.val();
            }
        }
        self.state.d.next = (self.state.q.val() & !self.touched.val()) | self.set.val();
        if self.reset.val() {
            self.state.d.next = 0.into();
        }

        self.xoff.next = self.state.q.val();
        self.xoff_next.next = self.state.d.val();
        self.drop.next = self.occ.e_drop.val();
        self.underflow.next = self.occ.d_underflow.val();
        self.xoff_event.next = self.st_e_valid.q.val() & !self.xo_e_old.val() & self.xo_e1.val();
        self.e_key.next = self.st_e_key.q.val();
        self.xon_event.next = self.st_d_valid.q.val() & self.xo_d_old.val() & !self.d_final.val();
        self.d_key.next = self.st_d_key.q.val();
    }
}
