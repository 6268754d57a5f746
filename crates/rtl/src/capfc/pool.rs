//! CaPFC's shared-memory pool (spec §2.7, the model's `pool_port` / `pool_used`): the bytes
//! each egress port's queues hold beyond their dedicated bytes, and all ports' together.
//!
//! In cycle n (the egress occupancy stage) it gives the room the enqueue of that stage may
//! draw, `min(port_cap - port's bytes, pool_cap - pool bytes)` from the registers as edge n
//! left them, so a departure's bytes are free from the next edge on, as the model has it; and
//! whether the pool will be full after edge n + 1, which drops the ingress enqueues that edge
//! captures. At edge n + 1 the enqueue's drawn
//! bytes and the dequeue's freed bytes are added and subtracted: two writers, on registers
//! (one 32-bit lane per port).

use rust_hdl::prelude::*;
use switchcraft_model::capfc::CapfcConfig;

#[derive(LogicBlock)]
pub struct Pool<const PB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Cycle n: the egress occupancy stage's enqueue (its port, dropped or not, its key's bytes
    /// before and after) and dequeue (its port, bytes before and after).
    pub e_valid: Signal<In, Bit>,
    pub e_drop: Signal<In, Bit>,
    pub e_port: Signal<In, Bits<PB>>,
    pub e_base: Signal<In, Bits<32>>,
    pub e_b1: Signal<In, Bits<32>>,
    pub d_valid: Signal<In, Bit>,
    pub d_port: Signal<In, Bits<PB>>,
    pub d_before: Signal<In, Bits<32>>,
    pub d_b1: Signal<In, Bits<32>>,
    /// The `sh_*` registers.
    pub dedicated: Signal<In, Bits<32>>,
    pub port_cap: Signal<In, Bits<32>>,
    pub pool_cap: Signal<In, Bits<32>>,
    /// `sh_pool_cap` as edge n + 1 leaves it.
    pub pool_cap_next: Signal<In, Bits<32>>,

    /// Cycle n: the bytes the enqueue may draw from the pool; the pool is full as edge n + 1
    /// leaves it (after this cycle's events).
    pub room: Signal<Out, Bits<32>>,
    pub full_next: Signal<Out, Bit>,
    /// The pool bytes the egress queues hold (`sh_pool_used`), as edge n left them.
    pub used_now: Signal<Out, Bits<32>>,

    /// The lanes of the ports this config has; none without a pool.
    used_lanes: Constant<Bits<2048>>,
    lane: Constant<Bits<2048>>,
    pool_on: Constant<Bit>,
    used: DFF<Bits<32>>,
    by_port: DFF<Bits<2048>>,

    used_next: Signal<Local, Bits<32>>,
    room_off: Signal<Local, Bits<12>>,
    e_off: Signal<Local, Bits<12>>,
    d_off: Signal<Local, Bits<12>>,
    port_wide: Signal<Local, Bits<2048>>,
    port_used: Signal<Local, Bits<32>>,
    port_room: Signal<Local, Bits<32>>,
    pool_room: Signal<Local, Bits<32>>,
    e_before_over: Signal<Local, Bits<32>>,
    e_after_over: Signal<Local, Bits<32>>,
    d_before_over: Signal<Local, Bits<32>>,
    d_after_over: Signal<Local, Bits<32>>,
    drawn: Signal<Local, Bits<32>>,
    freed: Signal<Local, Bits<32>>,
    d_lane_wide: Signal<Local, Bits<2048>>,
    after_free: Signal<Local, Bits<2048>>,
    e_lane_wide: Signal<Local, Bits<2048>>,
    d_lane_new: Signal<Local, Bits<32>>,
    e_lane_new: Signal<Local, Bits<32>>,
}

impl<const PB: usize> Pool<PB> {
    pub fn new(cfg: &CapfcConfig) -> Self {
        let mut used_lanes = Bits::<2048>::default();
        if cfg.shared.is_some() {
            for p in 0..cfg.ports as usize {
                used_lanes = used_lanes | (Bits::<2048>::from(0xFFFF_FFFFu64) << (32 * p) as u64);
            }
        }
        Pool {
            clock: Default::default(),
            reset: Default::default(),
            e_valid: Default::default(),
            e_drop: Default::default(),
            e_port: Default::default(),
            e_base: Default::default(),
            e_b1: Default::default(),
            d_valid: Default::default(),
            d_port: Default::default(),
            d_before: Default::default(),
            d_b1: Default::default(),
            dedicated: Default::default(),
            port_cap: Default::default(),
            pool_cap: Default::default(),
            pool_cap_next: Default::default(),
            room: Default::default(),
            full_next: Default::default(),
            used_now: Default::default(),
            used_lanes: Constant::new(used_lanes),
            lane: Constant::new(0xFFFF_FFFFu64.into()),
            pool_on: Constant::new(cfg.shared.is_some()),
            used: Default::default(),
            by_port: Default::default(),
            used_next: Default::default(),
            room_off: Default::default(),
            e_off: Default::default(),
            d_off: Default::default(),
            port_wide: Default::default(),
            port_used: Default::default(),
            port_room: Default::default(),
            pool_room: Default::default(),
            e_before_over: Default::default(),
            e_after_over: Default::default(),
            d_before_over: Default::default(),
            d_after_over: Default::default(),
            drawn: Default::default(),
            freed: Default::default(),
            d_lane_wide: Default::default(),
            after_free: Default::default(),
            e_lane_wide: Default::default(),
            d_lane_new: Default::default(),
            e_lane_new: Default::default(),
        }
    }
}

impl<const PB: usize> Logic for Pool<PB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, used, by_port);
        // ---- Cycle n: the room, from the registers.
        // (The room's statements share no local with the update's below: the enqueue's drop,
        // an input there, depends on the room.)
        self.room_off.next = bit_cast::<12, PB>(self.e_port.val()) << 5;
        self.port_wide.next = self.by_port.q.val() >> self.room_off.val();
        self.port_used.next = self.port_wide.val().get_bits::<32>(0);
        self.port_room.next = 0.into();
        if self.port_cap.val() > self.port_used.val() {
            self.port_room.next = self.port_cap.val() - self.port_used.val();
        }
        self.pool_room.next = 0.into();
        if self.pool_cap.val() > self.used.q.val() {
            self.pool_room.next = self.pool_cap.val() - self.used.q.val();
        }
        self.room.next = self.port_room.val();
        if self.pool_room.val() < self.port_room.val() {
            self.room.next = self.pool_room.val();
        }
        self.used_now.next = self.used.q.val();

        // ---- The bytes beyond `dedicated` the events add and take.
        self.e_off.next = bit_cast::<12, PB>(self.e_port.val()) << 5;
        self.d_off.next = bit_cast::<12, PB>(self.d_port.val()) << 5;
        self.e_before_over.next = 0.into();
        if self.e_base.val() > self.dedicated.val() {
            self.e_before_over.next = self.e_base.val() - self.dedicated.val();
        }
        self.e_after_over.next = 0.into();
        if self.e_b1.val() > self.dedicated.val() {
            self.e_after_over.next = self.e_b1.val() - self.dedicated.val();
        }
        self.d_before_over.next = 0.into();
        if self.d_before.val() > self.dedicated.val() {
            self.d_before_over.next = self.d_before.val() - self.dedicated.val();
        }
        self.d_after_over.next = 0.into();
        if self.d_b1.val() > self.dedicated.val() {
            self.d_after_over.next = self.d_b1.val() - self.dedicated.val();
        }
        self.drawn.next = 0.into();
        if self.pool_on.val() & self.e_valid.val() & !self.e_drop.val() {
            self.drawn.next = self.e_after_over.val() - self.e_before_over.val();
        }
        self.freed.next = 0.into();
        if self.pool_on.val() & self.d_valid.val() {
            self.freed.next = self.d_before_over.val() - self.d_after_over.val();
        }

        // ---- Edge n + 1: the dequeue's lane, then the enqueue's (one lane when one port).
        self.used_next.next = self.used.q.val() + self.drawn.val() - self.freed.val();
        self.used.d.next = self.used_next.val();
        self.d_lane_wide.next = self.by_port.q.val() >> self.d_off.val();
        self.d_lane_new.next = self.d_lane_wide.val().get_bits::<32>(0) - self.freed.val();
        self.after_free.next = (self.by_port.q.val() & !(self.lane.val() << self.d_off.val()))
            | (bit_cast::<2048, 32>(self.d_lane_new.val()) << self.d_off.val());
        self.e_lane_wide.next = self.after_free.val() >> self.e_off.val();
        self.e_lane_new.next = self.e_lane_wide.val().get_bits::<32>(0) + self.drawn.val();
        self.by_port.d.next = ((self.after_free.val() & !(self.lane.val() << self.e_off.val()))
            | (bit_cast::<2048, 32>(self.e_lane_new.val()) << self.e_off.val()))
            & self.used_lanes.val();
        self.full_next.next =
            self.pool_on.val() & (self.used_next.val() >= self.pool_cap_next.val());
        if self.reset.val() {
            self.used.d.next = 0.into();
            self.full_next.next = false;
            self.by_port.d.next = 0.into();
        }
    }
}
