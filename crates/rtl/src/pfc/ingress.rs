//! PFC's ingress logic: occupancy per key and its XOFF bit (`>=` XOFF sets on enqueue, `<=` XON
//! clears on dequeue, spec §2.3). The RTL form of `switchcraft_model::pfc::Ingress`: events of
//! edge n update the occupancy in cycles n to n + 3 ([`PipelinedOccupancy`]: input, read,
//! operand, select and write stages), its results leaving in cycle n + 3; edge n + 4 registers
//! them with the thresholds of edge n ([`PauseDecision`]), cycle n + 4 tests them, edge n + 5
//! registers the tests, cycle n + 5 decides, and the XOFF vector changes at edge n + 6. CaPFC's
//! ingress is this module too (its I bits are the XOFF vector).

use super::occupancy_pipeline::PipelinedOccupancy;
use super::pause_decision::PauseDecision;
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
    /// MAX as this edge leaves it (the CSR bank's `value_next`).
    pub max_next: Signal<In, Bits<32>>,

    /// Keys in XOFF, and as this edge leaves them.
    pub xoff: Signal<Out, Bits<K>>,
    pub xoff_next: Signal<Out, Bits<K>>,
    // Cycle n + 3: what the events of edge n do to the occupancy.
    pub drop: Signal<Out, Bit>,
    pub underflow: Signal<Out, Bit>,
    // Cycle n + 5: the decisions on the events of edge n.
    /// The enqueue's key enters XOFF over the edge.
    pub xoff_event: Signal<Out, Bit>,
    pub e_key: Signal<Out, Bits<KB>>,
    /// The dequeue's key leaves XOFF over the edge.
    pub xon_event: Signal<Out, Bit>,
    pub d_key: Signal<Out, Bits<KB>>,

    pub occ: PipelinedOccupancy<KB, K>,
    pub decision: PauseDecision<KB, K>,
    /// The thresholds of the events in the occupancy's read, operand and select stages (their
    /// capture edge's).
    thr_xoff_r: DFF<Bits<32>>,
    thr_xon_r: DFF<Bits<32>>,
    thr_xoff_a: DFF<Bits<32>>,
    thr_xon_a: DFF<Bits<32>>,
    thr_xoff_b: DFF<Bits<32>>,
    thr_xon_b: DFF<Bits<32>>,
}

impl<const KB: usize, const K: usize> Ingress<KB, K> {
    /// Occupancy counters of `width` bits, lengths of `length_bits`.
    pub fn new(width: usize, length_bits: usize, tech: crate::tech::Tech) -> Self {
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
            max_next: Default::default(),
            xoff: Default::default(),
            xoff_next: Default::default(),
            drop: Default::default(),
            underflow: Default::default(),
            xoff_event: Default::default(),
            e_key: Default::default(),
            xon_event: Default::default(),
            d_key: Default::default(),
            occ: PipelinedOccupancy::new(width, length_bits, tech),
            decision: PauseDecision::new(),
            thr_xoff_r: Default::default(),
            thr_xon_r: Default::default(),
            thr_xoff_a: Default::default(),
            thr_xon_a: Default::default(),
            thr_xoff_b: Default::default(),
            thr_xon_b: Default::default(),
        }
    }
}

impl<const KB: usize, const K: usize> Logic for Ingress<KB, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, thr_xoff_r, thr_xon_r, thr_xoff_a, thr_xon_a, thr_xoff_b, thr_xon_b
        );
        self.occ.clock.next = self.clock.val();
        self.occ.reset.next = self.reset.val();
        self.occ.enq_valid.next = self.enq_valid.val();
        self.occ.enq_key.next = self.enq_key.val();
        self.occ.enq_len.next = self.enq_len.val();
        self.occ.deq_valid.next = self.deq_valid.val();
        self.occ.deq_key.next = self.deq_key.val();
        self.occ.deq_len.next = self.deq_len.val();
        self.occ.max_next.next = self.max_next.val();

        // The occupancy results of cycle n + 3 go to the decision with the thresholds that
        // applied at their capture edge n.
        self.thr_xoff_r.d.next = self.xoff_thr.val();
        self.thr_xon_r.d.next = self.xon_thr.val();
        self.thr_xoff_a.d.next = self.thr_xoff_r.q.val();
        self.thr_xon_a.d.next = self.thr_xon_r.q.val();
        self.thr_xoff_b.d.next = self.thr_xoff_a.q.val();
        self.thr_xon_b.d.next = self.thr_xon_a.q.val();
        self.decision.clock.next = self.clock.val();
        self.decision.reset.next = self.reset.val();
        self.decision.e_valid.next = self.occ.e_valid.val();
        self.decision.e_key.next = self.occ.e_key.val();
        self.decision.e_b.next = self.occ.e_b1.val();
        self.decision.d_valid.next = self.occ.d_valid.val();
        self.decision.d_key.next = self.occ.d_key.val();
        self.decision.d_b.next = self.occ.d_b1.val();
        self.decision.same.next = self.occ.same_key.val();
        self.decision.xoff_thr.next = self.thr_xoff_b.q.val();
        self.decision.xon_thr.next = self.thr_xon_b.q.val();

        self.xoff.next = self.decision.xoff.val();
        self.xoff_next.next = self.decision.xoff_next.val();
        self.drop.next = self.occ.e_drop.val();
        self.underflow.next = self.occ.d_underflow.val();
        self.xoff_event.next = self.decision.xoff_event.val();
        self.e_key.next = self.decision.xoff_key.val();
        self.xon_event.next = self.decision.xon_event.val();
        self.d_key.next = self.decision.xon_key.val();
    }
}
