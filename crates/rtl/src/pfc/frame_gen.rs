//! The 802.1Qbb pause-frame generator, shared by PFC and CaPFC: the RTL form of
//! `switchcraft_model::pfc::FrameGen`. Keys are `{port, priority}` with `KB - PB` priority bits,
//! so a port's classes form one group of `2^(KB - PB)` bits in every per-key vector; the group of
//! the paused vector, zero-extended to 8 bits, is the frame's pause vector.
//!
//! Each edge it grants at most one port, the first dirty port after the one it granted last
//! (round robin), and registers the grant; on the next edge the frame of the granted port
//! leaves, stating every class of its port as the paused vector is then (the paused ones with
//! QUANTA, the others with 0), so nothing per class is kept but the pause state itself. The
//! grant's register keeps the round robin's carry chains and the frame's multiplexers in
//! separate cycles. Every REFRESH cycles a tick marks every port with a paused class. A port
//! marked on an edge is granted on the next and its frame leaves on the edge after.

use rust_hdl::prelude::*;

/// Ports addressed by `PB` bits, `PP = 2^PB`, keys of `KB = PB + NQ` bits (`NQ` = 1..=3
/// priority bits), `K = 2^KB`.
#[derive(LogicBlock)]
pub struct FrameGen<const PB: usize, const PP: usize, const K: usize, const KB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Paused keys: what a frame sent on the next edge says.
    pub paused: Signal<In, Bits<K>>,
    /// Keys that change state on the next edge, and ports that had a class change state: a
    /// parent gives whichever it has registered (the other tied to 0). Their ports become dirty
    /// on the next edge.
    pub flipped: Signal<In, Bits<K>>,
    pub changed_ports: Signal<In, Bits<PP>>,
    pub quanta: Signal<In, Bits<16>>,
    /// The REFRESH register, whether the next edge writes it and with what: the tick is
    /// decided a cycle ahead, against REFRESH as that edge leaves it.
    pub refresh: Signal<In, Bits<16>>,
    pub refresh_write: Signal<In, Bit>,
    pub refresh_wdata: Signal<In, Bits<16>>,

    pub frame_valid: Signal<Out, Bit>,
    pub frame_port: Signal<Out, Bits<PB>>,
    pub frame_class_enable: Signal<Out, Bits<8>>,
    pub frame_pause: Signal<Out, Bits<8>>,
    pub frame_quanta: Signal<Out, Bits<16>>,

    /// Bit p set when port p exists.
    port_ok: Constant<Bits<PP>>,
    /// Priority bits of a key, and the key bits of port 0's classes.
    prio_bits: Constant<Bits<KB>>,
    group: Constant<Bits<K>>,
    /// The classes that exist: every frame's class-enable vector.
    classes: Constant<Bits<8>>,
    one_pp: Constant<Bits<PP>>,
    one_16: Constant<Bits<16>>,
    two_16: Constant<Bits<16>>,

    /// Ports made dirty (a changed or refresh-due class) before the last edge and not served
    /// since. Kept per port (a frame clears its whole port), so the round robin's loop is
    /// grant -> this register, not an OR over each port's keys.
    dirty_old: DFF<Bits<PP>>,
    /// Ports that a class change or a refresh tick made dirty on the last edge.
    dirty_new: DFF<Bits<PP>>,
    rr_above: DFF<Bits<PP>>,
    /// The port granted on the last edge (one-hot, or zero): its frame is built this cycle.
    granted: DFF<Bits<PP>>,
    granted_valid: DFF<Bit>,
    /// Cycles since the last refresh tick, plus two: the model's timer + 2, the timer + 1 of
    /// the next cycle when this one does not tick, held so that the next tick's test is one
    /// comparison, without an increment in front of it.
    refresh_count: DFF<Bits<16>>,
    /// This cycle ticks (the model's timer + 1 >= REFRESH): decided in the cycle before, so
    /// that neither its comparison nor its fan-out to the counter's reload shares a cycle with
    /// the other.
    tick: DFF<Bit>,
    o_valid: DFF<Bit>,
    o_port: DFF<Bits<PB>>,
    o_class_enable: DFF<Bits<8>>,
    o_pause: DFF<Bits<8>>,
    o_quanta: DFF<Bits<16>>,

    dirty_ports: Signal<Local, Bits<PP>>,
    above: Signal<Local, Bits<PP>>,
    /// Per candidate vector, the ports up to its lowest set bit (all ports when it is empty).
    upto_above: Signal<Local, Bits<PP>>,
    upto_any: Signal<Local, Bits<PP>>,
    upto: Signal<Local, Bits<PP>>,
    grant: Signal<Local, Bits<PP>>,
    fresh_keys: Signal<Local, Bits<K>>,
    fresh_ports: Signal<Local, Bits<PP>>,
    g_port: Signal<Local, Bits<PB>>,
    g_paused: Signal<Local, Bits<K>>,
    tick_keys: Signal<Local, Bits<K>>,
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize> FrameGen<PB, PP, K, KB> {
    pub fn new(ports: u32, priorities: u32) -> Self {
        assert_eq!(1 << PB, PP);
        assert_eq!(1 << KB, K);
        let prio_bits = KB - PB;
        assert!((1..=3).contains(&prio_bits));
        assert!(ports as usize <= PP);
        let mut port_ok = Bits::<PP>::default();
        for p in 0..PP {
            port_ok = port_ok.replace_bit(p, p < ports as usize);
        }
        FrameGen {
            clock: Default::default(),
            reset: Default::default(),
            paused: Default::default(),
            flipped: Default::default(),
            changed_ports: Default::default(),
            quanta: Default::default(),
            refresh: Default::default(),
            refresh_write: Default::default(),
            refresh_wdata: Default::default(),
            frame_valid: Default::default(),
            frame_port: Default::default(),
            frame_class_enable: Default::default(),
            frame_pause: Default::default(),
            frame_quanta: Default::default(),
            port_ok: Constant::new(port_ok),
            prio_bits: Constant::new((prio_bits as u64).into()),
            group: Constant::new(((1u64 << (1 << prio_bits)) - 1).into()),
            classes: Constant::new(((1u64 << priorities) - 1).into()),
            one_pp: Constant::new(1u64.into()),
            one_16: Constant::new(1u64.into()),
            two_16: Constant::new(2u64.into()),

            dirty_old: Default::default(),
            dirty_new: Default::default(),
            rr_above: Default::default(),
            granted: Default::default(),
            granted_valid: Default::default(),
            refresh_count: Default::default(),
            o_valid: Default::default(),
            o_port: Default::default(),
            o_class_enable: Default::default(),
            o_pause: Default::default(),
            o_quanta: Default::default(),
            dirty_ports: Default::default(),
            above: Default::default(),
            upto_above: Default::default(),
            upto_any: Default::default(),
            upto: Default::default(),
            grant: Default::default(),
            fresh_keys: Default::default(),
            fresh_ports: Default::default(),
            g_port: Default::default(),
            g_paused: Default::default(),
            tick: Default::default(),
            tick_keys: Default::default(),
        }
    }
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize> Logic
    for FrameGen<PB, PP, K, KB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            dirty_old,
            dirty_new,
            rr_above,
            granted,
            granted_valid,
            refresh_count,
            tick,
            o_valid,
            o_port,
            o_class_enable,
            o_pause,
            o_quanta
        );

        // First dirty port after the last one granted, round robin: the lowest dirty port above
        // the last grant if there is one, else the lowest dirty port. For each candidate vector
        // `x`, `x ^ (x - 1)` is the ports up to its lowest set bit: one carry chain gives both
        // the grant (those ports that are in `x`: the lowest one) and the next round's start
        // (the ports above it). The choice between the candidates is one LUT level after the
        // chains.
        self.dirty_ports.next = self.dirty_old.q.val() | self.dirty_new.q.val();
        self.above.next = self.dirty_ports.val() & self.rr_above.q.val();
        self.upto_above.next = self.above.val() ^ (self.above.val() - self.one_pp.val());
        self.upto_any.next = self.dirty_ports.val() ^ (self.dirty_ports.val() - self.one_pp.val());
        if self.above.val().any() {
            self.upto.next = self.upto_above.val();
            self.grant.next = self.upto_above.val() & self.above.val();
        } else {
            self.upto.next = self.upto_any.val();
            self.grant.next = self.upto_any.val() & self.dirty_ports.val();
        }
        // A port is granted whenever one is dirty (the test without the chains).
        self.granted.d.next = self.grant.val();
        self.granted_valid.d.next = self.dirty_ports.val().any();
        // The last edge's grant is one-hot (or zero), so the port number and its paused classes
        // are ORs over the ports of terms gated by their grant bit: balanced trees, instead of a
        // priority chain and shifts by the encoded port.
        self.g_port.next = 0.into();
        self.g_paused.next = 0.into();
        for p in 0..PP {
            if self.granted.q.val().get_bit(p) {
                self.g_port.next = self.g_port.val() | p.to_bits::<PB>();
                self.g_paused.next = self.g_paused.val()
                    | ((self.paused.val() >> (p.to_bits::<KB>() << self.prio_bits.val()))
                        & self.group.val());
            }
        }
        if self.dirty_ports.val().any() {
            self.rr_above.d.next = !self.upto.val() & self.port_ok.val();
        }
        self.o_valid.d.next = self.granted_valid.q.val();
        self.o_port.d.next = self.g_port.val();
        // Without a grant `g_paused` is 0. The class enables and the quanta are registered
        // whatever the grant and zeroed at the outputs without a frame, so that the grant does
        // not drive their registers' resets (a net of high fanout late in the cycle).
        self.o_class_enable.d.next = self.classes.val();
        // Only existing classes (their pause bits are the only ones ever set).
        self.o_pause.d.next = bit_cast::<8, K>(self.g_paused.val()) & self.classes.val();
        self.o_quanta.d.next = self.quanta.val();

        // Refresh tick: every REFRESH cycles, flag the paused classes of every port. The next
        // cycle's tick: its timer + 1 against its REFRESH, the timer being 0 after a tick and
        // this one's + 1 otherwise. (The count wraps only at timer 65534, which always ticks:
        // 65535 >= any REFRESH; a ticking cycle's count is not used.)
        // The comparisons run against the register and the written value side by side, and the
        // write chooses after them.
        self.tick_keys.next = 0.into();
        if self.tick.q.val() {
            if self.refresh_write.val() {
                self.tick.d.next = self.refresh_wdata.val() <= self.one_16.val();
            } else {
                self.tick.d.next = self.refresh.val() <= self.one_16.val();
            }
            self.refresh_count.d.next = self.two_16.val();
            self.tick_keys.next = self.paused.val();
        } else {
            if self.refresh_write.val() {
                self.tick.d.next = self.refresh_count.q.val() >= self.refresh_wdata.val();
            } else {
                self.tick.d.next = self.refresh_count.q.val() >= self.refresh.val();
            }
            self.refresh_count.d.next = self.refresh_count.q.val() + self.one_16.val();
        }
        // A mark on this edge survives the clear of a frame sent on this edge.
        self.fresh_keys.next = self.flipped.val() | self.tick_keys.val();
        self.fresh_ports.next = self.changed_ports.val();
        for p in 0..PP {
            self.fresh_ports.next = self.fresh_ports.val().replace_bit(
                p,
                self.fresh_ports.val().get_bit(p)
                    | ((self.fresh_keys.val() >> (p.to_bits::<KB>() << self.prio_bits.val()))
                        & self.group.val())
                    .any(),
            );
        }
        self.dirty_old.d.next = self.dirty_ports.val() & !self.grant.val();
        self.dirty_new.d.next = self.fresh_ports.val();

        self.frame_valid.next = self.o_valid.q.val();
        self.frame_port.next = self.o_port.q.val();
        self.frame_class_enable.next = 0.into();
        self.frame_quanta.next = 0.into();
        if self.o_valid.q.val() {
            self.frame_class_enable.next = self.o_class_enable.q.val();
            self.frame_quanta.next = self.o_quanta.q.val();
        }
        self.frame_pause.next = self.o_pause.q.val();

        if self.reset.val() {
            self.dirty_old.d.next = 0.into();
            self.dirty_new.d.next = 0.into();
            self.rr_above.d.next = self.port_ok.val();
            self.granted.d.next = 0.into();
            self.granted_valid.d.next = false;
            // Timer 0. The model's first cycle ticks when REFRESH's reset value is at most 1,
            // but no class is paused for several cycles after reset, so such a tick flags
            // nothing: none here, and the timer runs as the model's from the next cycle.
            self.tick.d.next = false;
            self.refresh_count.d.next = self.two_16.val();
            self.o_valid.d.next = false;
            self.o_port.d.next = 0.into();
            self.o_class_enable.d.next = 0.into();
            self.o_pause.d.next = 0.into();
            self.o_quanta.d.next = 0.into();
        }
    }
}
