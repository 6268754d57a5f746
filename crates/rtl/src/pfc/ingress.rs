//! PFC's ingress logic: occupancy per key and its XOFF bit (`>=` XOFF sets on enqueue, `<=` XON
//! clears on dequeue, spec §2.3). The RTL form of `switchcraft_model::pfc::Ingress`: events of
//! edge n update the occupancy in cycle n + 1 ([`PipelinedOccupancy`]: read, operand and write
//! stages); edge n + 2 registers the results with the thresholds of edge n ([`PauseDecision`]),
//! cycle n + 2 tests them, edge n + 3 registers the tests, cycle n + 3 decides, and the XOFF
//! vector changes at edge n + 4. CaPFC builds its ingress from the single-stage occupancy and
//! the same [`PauseDecision`] without the registered tests (crates/rtl/src/capfc.rs).

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
    pub max: Signal<In, Bits<32>>,

    /// Keys in XOFF.
    pub xoff: Signal<Out, Bits<K>>,
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
    pub decision: PauseDecision<KB, K>,
    /// The thresholds of the events in the occupancy's operand stage (their capture edge's).
    thr_xoff_q: DFF<Bits<32>>,
    thr_xon_q: DFF<Bits<32>>,
}

impl<const KB: usize, const K: usize> Ingress<KB, K> {
    /// Occupancy counters of `width` bits.
    pub fn new(width: usize, tech: crate::tech::Tech) -> Self {
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
            drop: Default::default(),
            underflow: Default::default(),
            xoff_event: Default::default(),
            e_key: Default::default(),
            xon_event: Default::default(),
            d_key: Default::default(),
            occ: PipelinedOccupancy::new(width, tech),
            decision: PauseDecision::new(true),
            thr_xoff_q: Default::default(),
            thr_xon_q: Default::default(),
        }
    }
}

impl<const KB: usize, const K: usize> Logic for Ingress<KB, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, thr_xoff_q, thr_xon_q);
        self.occ.clock.next = self.clock.val();
        self.occ.reset.next = self.reset.val();
        self.occ.enq_valid.next = self.enq_valid.val();
        self.occ.enq_key.next = self.enq_key.val();
        self.occ.enq_len.next = self.enq_len.val();
        self.occ.deq_valid.next = self.deq_valid.val();
        self.occ.deq_key.next = self.deq_key.val();
        self.occ.deq_len.next = self.deq_len.val();
        self.occ.max.next = self.max.val();

        // The occupancy results of cycle n + 1 go to the decision with the thresholds that
        // applied at their capture edge n.
        self.thr_xoff_q.d.next = self.xoff_thr.val();
        self.thr_xon_q.d.next = self.xon_thr.val();
        self.decision.clock.next = self.clock.val();
        self.decision.reset.next = self.reset.val();
        self.decision.e_valid.next = self.occ.e_valid.val();
        self.decision.e_key.next = self.occ.e_key.val();
        self.decision.e_b.next = self.occ.e_b1.val();
        self.decision.d_valid.next = self.occ.d_valid.val();
        self.decision.d_key.next = self.occ.d_key.val();
        self.decision.d_b.next = self.occ.d_b1.val();
        self.decision.same.next = self.occ.same_key.val();
        self.decision.xoff_thr.next = self.thr_xoff_q.q.val();
        self.decision.xon_thr.next = self.thr_xon_q.q.val();

        self.xoff.next = self.decision.xoff.val();
        self.drop.next = self.occ.e_drop.val();
        self.underflow.next = self.occ.d_underflow.val();
        self.xoff_event.next = self.decision.xoff_event.val();
        self.e_key.next = self.decision.xoff_key.val();
        self.xon_event.next = self.decision.xon_event.val();
        self.d_key.next = self.decision.xon_key.val();
    }
}
