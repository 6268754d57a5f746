//! The XOFF/XON decision stage of PFC's ingress logic (spec §2.3: `>=` XOFF sets on enqueue,
//! `<=` XON clears on dequeue), part of [`super::ingress::Ingress`] (PFC's, and CaPFC's ingress).
//! It takes one edge's occupancy results in the cycle they are computed, with the thresholds of
//! the events' own edge, and registers them; the threshold comparisons get the next cycle of
//! their own and are registered with the events (`cm_*`); the state update follows one edge
//! later, so that the comparisons' carry chains and the state's update logic are never in one
//! cycle. It reads and writes only the XOFF flip-flops, whose update completes in its own
//! cycle, and the occupancy stages do not read the pause state at all. The keys' XOFF bits are
//! looked up in the comparisons' cycle and registered (`cm_xo_*_old`), with a bypass of the
//! update being decided in that cycle (the event one edge older), so the update starts from
//! registers.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct PauseDecision<const KB: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    // Cycle m: one edge's occupancy results, and the thresholds of the events' edge.
    pub e_valid: Signal<In, Bit>,
    pub e_key: Signal<In, Bits<KB>>,
    /// Occupancy after the enqueue.
    pub e_b: Signal<In, Bits<32>>,
    pub d_valid: Signal<In, Bit>,
    pub d_key: Signal<In, Bits<KB>>,
    /// Occupancy after the dequeue.
    pub d_b: Signal<In, Bits<32>>,
    /// Both events are valid and name one key.
    pub same: Signal<In, Bit>,
    pub xoff_thr: Signal<In, Bits<32>>,
    pub xon_thr: Signal<In, Bits<32>>,

    /// Keys in XOFF before the next edge, and after it.
    pub xoff: Signal<Out, Bits<K>>,
    pub xoff_next: Signal<Out, Bits<K>>,
    // Cycle m + 2: the decisions on the results given in cycle m.
    /// The enqueue's key enters XOFF over the edge.
    pub xoff_event: Signal<Out, Bit>,
    pub xoff_key: Signal<Out, Bits<KB>>,
    /// The dequeue's key leaves XOFF over the edge.
    pub xon_event: Signal<Out, Bit>,
    pub xon_key: Signal<Out, Bits<KB>>,

    state: DFF<Bits<K>>,
    st_e_valid: DFF<Bit>,
    st_e_key: DFF<Bits<KB>>,
    st_e_b: DFF<Bits<32>>,
    st_d_valid: DFF<Bit>,
    st_d_key: DFF<Bits<KB>>,
    st_d_b: DFF<Bits<32>>,
    st_same: DFF<Bit>,
    st_xoff_thr: DFF<Bits<32>>,
    st_xon_thr: DFF<Bits<32>>,
    // The comparisons, registered with their events.
    cm_e_valid: DFF<Bit>,
    cm_e_key: DFF<Bits<KB>>,
    cm_ge_xoff: DFF<Bit>,
    cm_d_valid: DFF<Bit>,
    cm_d_key: DFF<Bits<KB>>,
    cm_le_xon: DFF<Bit>,
    cm_same: DFF<Bit>,
    /// The keys' XOFF bits before their update, looked up in the comparisons' cycle.
    cm_xo_e_old: DFF<Bit>,
    cm_xo_d_old: DFF<Bit>,
    /// The event in the comparisons' stage names a key that the event one edge older (then in
    /// the update) decides: by its enqueue (`*e`) or its dequeue (`*d`), for the enqueue's key
    /// (`st_fwd_e*`) and the dequeue's (`st_fwd_d*`).
    st_fwd_ee: DFF<Bit>,
    st_fwd_ed: DFF<Bit>,
    st_fwd_de: DFF<Bit>,
    st_fwd_dd: DFF<Bit>,
    one_k: Constant<Bits<K>>,
    ge_xoff_now: Signal<Local, Bit>,
    look_e_old: Signal<Local, Bit>,
    look_d_old: Signal<Local, Bit>,
    le_xon_now: Signal<Local, Bit>,
    // What the state update sees: the registered comparisons.
    u_e_valid: Signal<Local, Bit>,
    u_e_key: Signal<Local, Bits<KB>>,
    u_ge_xoff: Signal<Local, Bit>,
    u_d_valid: Signal<Local, Bit>,
    u_d_key: Signal<Local, Bits<KB>>,
    u_le_xon: Signal<Local, Bit>,
    u_same: Signal<Local, Bit>,
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

impl<const KB: usize, const K: usize> PauseDecision<KB, K> {
    pub fn new() -> Self {
        PauseDecision {
            clock: Default::default(),
            reset: Default::default(),
            e_valid: Default::default(),
            e_key: Default::default(),
            e_b: Default::default(),
            d_valid: Default::default(),
            d_key: Default::default(),
            d_b: Default::default(),
            same: Default::default(),
            xoff_thr: Default::default(),
            xon_thr: Default::default(),
            xoff: Default::default(),
            xoff_next: Default::default(),
            xoff_event: Default::default(),
            xoff_key: Default::default(),
            xon_event: Default::default(),
            xon_key: Default::default(),
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
            cm_e_valid: Default::default(),
            cm_e_key: Default::default(),
            cm_ge_xoff: Default::default(),
            cm_d_valid: Default::default(),
            cm_d_key: Default::default(),
            cm_le_xon: Default::default(),
            cm_same: Default::default(),
            cm_xo_e_old: Default::default(),
            cm_xo_d_old: Default::default(),
            st_fwd_ee: Default::default(),
            st_fwd_ed: Default::default(),
            st_fwd_de: Default::default(),
            st_fwd_dd: Default::default(),
            look_e_old: Default::default(),
            look_d_old: Default::default(),
            one_k: Constant::new(1u64.into()),
            ge_xoff_now: Default::default(),
            le_xon_now: Default::default(),
            u_e_valid: Default::default(),
            u_e_key: Default::default(),
            u_ge_xoff: Default::default(),
            u_d_valid: Default::default(),
            u_d_key: Default::default(),
            u_le_xon: Default::default(),
            u_same: Default::default(),
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

impl<const KB: usize, const K: usize> Default for PauseDecision<KB, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const KB: usize, const K: usize> Logic for PauseDecision<KB, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            st_e_valid,
            st_e_key,
            st_e_b,
            st_d_valid,
            st_d_key,
            st_d_b,
            st_same,
            st_xoff_thr,
            st_xon_thr,
            cm_e_valid,
            cm_e_key,
            cm_ge_xoff,
            cm_d_valid,
            cm_d_key,
            cm_le_xon,
            cm_same,
            cm_xo_e_old,
            cm_xo_d_old,
            st_fwd_ee,
            st_fwd_ed,
            st_fwd_de,
            st_fwd_dd
        );
        // Edge m + 1: the results move into the stage, with their thresholds.
        self.st_e_valid.d.next = self.e_valid.val() & !self.reset.val();
        self.st_e_key.d.next = self.e_key.val();
        self.st_e_b.d.next = self.e_b.val();
        self.st_d_valid.d.next = self.d_valid.val() & !self.reset.val();
        self.st_d_key.d.next = self.d_key.val();
        self.st_d_b.d.next = self.d_b.val();
        self.st_same.d.next = self.same.val();
        self.st_xoff_thr.d.next = self.xoff_thr.val();
        self.st_xon_thr.d.next = self.xon_thr.val();
        // The event now in this stage moves to the update at this edge: does it decide the
        // arriving event's keys? (Its enqueue's decision wins; a same-key pair's is the same.)
        self.st_fwd_ee.d.next = !self.reset.val()
            & self.st_e_valid.q.val()
            & (self.st_e_key.q.val() == self.e_key.val());
        self.st_fwd_ed.d.next = !self.reset.val()
            & self.st_d_valid.q.val()
            & (self.st_d_key.q.val() == self.e_key.val());
        self.st_fwd_de.d.next = !self.reset.val()
            & self.st_e_valid.q.val()
            & (self.st_e_key.q.val() == self.d_key.val());
        self.st_fwd_dd.d.next = !self.reset.val()
            & self.st_d_valid.q.val()
            & (self.st_d_key.q.val() == self.d_key.val());

        // Cycle m + 1: the threshold tests.
        self.ge_xoff_now.next = self.st_e_b.q.val() >= self.st_xoff_thr.q.val();
        self.le_xon_now.next = self.st_d_b.q.val() <= self.st_xon_thr.q.val();
        self.cm_e_valid.d.next = self.st_e_valid.q.val() & !self.reset.val();
        self.cm_e_key.d.next = self.st_e_key.q.val();
        self.cm_ge_xoff.d.next = self.ge_xoff_now.val();
        self.cm_d_valid.d.next = self.st_d_valid.q.val() & !self.reset.val();
        self.cm_d_key.d.next = self.st_d_key.q.val();
        self.cm_le_xon.d.next = self.le_xon_now.val();
        self.cm_same.d.next = self.st_same.q.val();
        self.u_e_valid.next = self.cm_e_valid.q.val();
        self.u_e_key.next = self.cm_e_key.q.val();
        self.u_ge_xoff.next = self.cm_ge_xoff.q.val();
        self.u_d_valid.next = self.cm_d_valid.q.val();
        self.u_d_key.next = self.cm_d_key.q.val();
        self.u_le_xon.next = self.cm_le_xon.q.val();
        self.u_same.next = self.cm_same.q.val();

        // The update's cycle (m + 2), from the keys' XOFF bits looked up in the comparisons'
        // cycle with the bypass below.
        self.xo_d_old.next = self.cm_xo_d_old.q.val();
        self.xo_e_old.next = self.cm_xo_e_old.q.val();
        // Dequeue first: XON at or below the threshold.
        self.xo_d1.next = self.xo_d_old.val() & !self.u_le_xon.val();
        // Then enqueue, on top of the dequeue when both name one key.
        if self.u_same.val() {
            self.xo_e_base.next = self.xo_d1.val();
        } else {
            self.xo_e_base.next = self.xo_e_old.val();
        }
        self.xo_e1.next = self.xo_e_base.val() | self.u_ge_xoff.val();
        if self.u_same.val() {
            self.d_final.next = self.xo_e1.val();
        } else {
            self.d_final.next = self.xo_d1.val();
        }

        // The next edge: the XOFF bits of the decided keys take their final values.
        self.e_onehot.next = self.one_k.val() << self.u_e_key.val();
        self.d_onehot.next = self.one_k.val() << self.u_d_key.val();
        self.touched.next = 0.into();
        self.set.next = 0.into();
        if self.u_e_valid.val() {
            self.touched.next = self.e_onehot.val();
            if self.xo_e1.val() {
                self.set.next = self.e_onehot.val();
            }
        }
        if self.u_d_valid.val() {
            self.touched.next = self.touched.val() | self.d_onehot.val();
            if self.d_final.val() {
                self.set.next = self.set.val() | self.d_onehot.val();
            }
        }
        self.state.d.next = (self.state.q.val() & !self.touched.val()) | self.set.val();
        if self.reset.val() {
            self.state.d.next = 0.into();
        }

        // Cycle m + 1: the XOFF bits of the event in the comparisons' stage, as the update of
        // this cycle leaves them.
        self.look_e_old.next = self.state.q.val().get_bit(self.st_e_key.q.val().index());
        if self.st_fwd_ee.q.val() {
            self.look_e_old.next = self.xo_e1.val();
        } else if self.st_fwd_ed.q.val() {
            self.look_e_old.next = self.d_final.val();
        }
        self.look_d_old.next = self.state.q.val().get_bit(self.st_d_key.q.val().index());
        if self.st_fwd_de.q.val() {
            self.look_d_old.next = self.xo_e1.val();
        } else if self.st_fwd_dd.q.val() {
            self.look_d_old.next = self.d_final.val();
        }
        self.cm_xo_e_old.d.next = self.look_e_old.val();
        self.cm_xo_d_old.d.next = self.look_d_old.val();

        self.xoff.next = self.state.q.val();
        self.xoff_next.next = self.state.d.val();
        self.xoff_event.next = self.u_e_valid.val() & !self.xo_e_old.val() & self.xo_e1.val();
        self.xoff_key.next = self.u_e_key.val();
        self.xon_event.next = self.u_d_valid.val() & self.xo_d_old.val() & !self.d_final.val();
        self.xon_key.next = self.u_d_key.val();
    }
}
