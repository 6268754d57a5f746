//! Byte occupancy per key from an enqueue and a dequeue bus, II = 1 on both: the RTL form of
//! `switchcraft_model::pfc::Occupancy`, for CaPFC's egress buffers.
//!
//! * edge n: the events are captured (`e_*`, `d_*`) and their keys address the RAMs; where each
//!   event's occupancy will come from (a forwarded write, a bank, or "never written") is decided
//!   now, from the keys alone, and registered as one-hot selects;
//! * cycle n: read data (or a forwarded value) -> dequeue (clamp at 0, flagged), then enqueue on
//!   top of it when both name one key (drop when the sum exceeds `max`);
//! * edge n + 1: RAM writes.
//!
//! Occupancy is read-modify-written by two buses per cycle, so it needs two write ports and two
//! read ports: a [`Ram2W2R`] in the target's form (on FPGAs a live-value table over 1R1W RAMs),
//! port A written by the enqueue path and port B by the dequeue path; after reset it reads 0
//! (the target decides how). The write of edge n
//! is not yet visible to the read of edge n (read-old), so the last write of each path is
//! forwarded (`fw_*`). When both buses hit one key, the combined result is written through
//! port A only.
//!
//! Cycle n is the loop that limits the clock (a value written at edge n + 1 is read back in
//! cycle n + 1), so it holds only the lookup (an AND-OR of the one-hot selects, two LUT levels)
//! and the arithmetic of [`OccupancyUpdate`]. PFC's ingress (and CaPFC's) uses the pipelined
//! form, [`super::occupancy_pipeline::PipelinedOccupancy`] (the lookup in a stage of its own,
//! the per-key loop in two cycles by look-ahead); CaPFC's egress still uses this one, with the
//! shared pool's admission test beside the arithmetic ([`PoolTest`]).

use super::occupancy_update::{OccupancyBounds, OccupancyUpdate};
use crate::ram_2w2r::Ram2W2R;
use crate::tech::Tech;
use rust_hdl::prelude::*;

/// Occupancy of `K` keys addressed by `KB` bits, counters of `width` bits (at most 32).
#[derive(LogicBlock)]
pub struct Occupancy<const KB: usize, const K: usize> {
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
    /// An enqueue whose sum would exceed this is dropped. At most the counter mask.
    pub max: Signal<In, Bits<32>>,
    /// A shared buffer (built with [`Occupancy::with_pool`], else ignored): each key owns
    /// `dedicated` bytes, and an enqueue that would draw more than `pool_room` bytes beyond
    /// them is dropped too. Cycle n, from registers.
    pub dedicated: Signal<In, Bits<32>>,
    pub pool_room: Signal<In, Bits<32>>,

    // Cycle n: the events of edge n - 1 and what they do.
    pub e_valid: Signal<Out, Bit>,
    pub e_key: Signal<Out, Bits<KB>>,
    /// Occupancy after the enqueue (its base when dropped).
    pub e_b1: Signal<Out, Bits<32>>,
    pub e_drop: Signal<Out, Bit>,
    pub d_valid: Signal<Out, Bit>,
    pub d_key: Signal<Out, Bits<KB>>,
    /// Occupancy after the dequeue (0 when it underflowed).
    pub d_b1: Signal<Out, Bits<32>>,
    pub d_underflow: Signal<Out, Bit>,
    /// Both events are valid and name one key.
    pub same_key: Signal<Out, Bit>,
    /// The enqueue's key before it (after a same-key dequeue), and the dequeue's before it.
    pub e_base: Signal<Out, Bits<32>>,
    pub d_before: Signal<Out, Bits<32>>,
    /// The enqueue's key before the edge (used when the keys differ), and the events' lengths:
    /// the operands, for tests taken beside the arithmetic instead of after it.
    pub e_before: Signal<Out, Bits<32>>,
    pub e_len: Signal<Out, Bits<16>>,
    pub d_len: Signal<Out, Bits<16>>,

    bounds: OccupancyBounds,
    pool: PoolTest,
    upd: OccupancyUpdate,
    e_valid_q: DFF<Bit>,
    e_key_q: DFF<Bits<KB>>,
    e_len_q: DFF<Bits<16>>,
    d_valid_q: DFF<Bit>,
    d_key_q: DFF<Bits<KB>>,
    d_len_q: DFF<Bits<16>>,
    same_q: DFF<Bit>,
    // Where each event's occupancy comes from, decided at capture, one-hot or none: the
    // enqueue path's write of this edge (`*_from_fe`), the dequeue path's (`*_from_fd`), else
    // the memory (`*_from_ram`, 0 for a key not written since reset). One-hot selects make the
    // lookup an AND-OR of two LUT levels instead of a chain of multiplexers.
    e_from_fe: DFF<Bit>,
    e_from_fd: DFF<Bit>,
    e_from_ram: DFF<Bit>,
    d_from_fe: DFF<Bit>,
    d_from_fd: DFF<Bit>,
    d_from_ram: DFF<Bit>,
    ram: Ram2W2R<KB, 32>,
    fw_e_val: DFF<Bits<32>>,
    fw_d_val: DFF<Bits<32>>,

    /// Occupancy before the enqueue (when the keys differ) and before the dequeue.
    e_b0: Signal<Local, Bits<32>>,
    d_b0: Signal<Local, Bits<32>>,
    // At capture: the new keys' hits on this edge's writes, and their bank bits.
    e_hit_fe: Signal<Local, Bit>,
    e_hit_fd: Signal<Local, Bit>,
    e_in_ram: Signal<Local, Bit>,
    d_hit_fe: Signal<Local, Bit>,
    d_hit_fd: Signal<Local, Bit>,
    d_in_ram: Signal<Local, Bit>,
    // Cycle n: the AND-OR lookup's two halves.
    e_b0_fw: Signal<Local, Bits<32>>,
    e_b0_ram: Signal<Local, Bits<32>>,
    d_b0_fw: Signal<Local, Bits<32>>,
    d_b0_ram: Signal<Local, Bits<32>>,
    d_write: Signal<Local, Bit>,
}

impl<const KB: usize, const K: usize> Occupancy<KB, K> {
    pub fn new(width: usize, tech: Tech) -> Self {
        Self::build(width, tech, false)
    }

    /// With the shared buffer's pool test (`dedicated`, `pool_room`).
    pub fn with_pool(width: usize, tech: Tech) -> Self {
        Self::build(width, tech, true)
    }

    fn build(width: usize, tech: Tech, pool: bool) -> Self {
        assert_eq!(1 << KB, K);
        Occupancy {
            clock: Default::default(),
            reset: Default::default(),
            enq_valid: Default::default(),
            enq_key: Default::default(),
            enq_len: Default::default(),
            deq_valid: Default::default(),
            deq_key: Default::default(),
            deq_len: Default::default(),
            max: Default::default(),
            dedicated: Default::default(),
            pool_room: Default::default(),
            e_valid: Default::default(),
            e_key: Default::default(),
            e_b1: Default::default(),
            e_drop: Default::default(),
            d_valid: Default::default(),
            d_key: Default::default(),
            d_b1: Default::default(),
            d_underflow: Default::default(),
            same_key: Default::default(),
            e_base: Default::default(),
            d_before: Default::default(),
            e_before: Default::default(),
            e_len: Default::default(),
            d_len: Default::default(),
            bounds: OccupancyBounds::new(width),
            pool: PoolTest::new(width, pool),
            upd: OccupancyUpdate::new(width),
            e_valid_q: Default::default(),
            e_key_q: Default::default(),
            e_len_q: Default::default(),
            d_valid_q: Default::default(),
            d_key_q: Default::default(),
            d_len_q: Default::default(),
            same_q: Default::default(),
            e_from_fe: Default::default(),
            e_from_fd: Default::default(),
            e_from_ram: Default::default(),
            d_from_fe: Default::default(),
            d_from_fd: Default::default(),
            d_from_ram: Default::default(),
            ram: Ram2W2R::new(width, tech),
            fw_e_val: Default::default(),
            fw_d_val: Default::default(),
            e_b0: Default::default(),
            d_b0: Default::default(),
            e_hit_fe: Default::default(),
            e_hit_fd: Default::default(),
            e_in_ram: Default::default(),
            d_hit_fe: Default::default(),
            d_hit_fd: Default::default(),
            d_in_ram: Default::default(),
            e_b0_fw: Default::default(),
            e_b0_ram: Default::default(),
            d_b0_fw: Default::default(),
            d_b0_ram: Default::default(),
            d_write: Default::default(),
        }
    }
}

impl<const KB: usize, const K: usize> Logic for Occupancy<KB, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, e_valid_q, e_key_q, e_len_q, d_valid_q, d_key_q, d_len_q, same_q,
            e_from_fe, e_from_fd, e_from_ram, d_from_fe, d_from_fd, d_from_ram, fw_e_val, fw_d_val
        );
        self.ram.clock.next = self.clock.val();
        self.ram.reset.next = self.reset.val();

        // ---- Edge n: capture the events; their keys address the RAMs. The writes of this same
        // edge (the events now in cycle n - 1) are what the forwarding registers will hold.
        self.e_valid_q.d.next = self.enq_valid.val();
        self.e_key_q.d.next = self.enq_key.val();
        self.e_len_q.d.next = self.enq_len.val();
        self.d_valid_q.d.next = self.deq_valid.val();
        self.d_key_q.d.next = self.deq_key.val();
        self.d_len_q.d.next = self.deq_len.val();
        self.same_q.d.next = self.enq_valid.val()
            & self.deq_valid.val()
            & (self.enq_key.val() == self.deq_key.val());
        // The dequeue path writes bank D at edge n unless its key is the enqueue's.
        self.d_write.next = self.d_valid_q.q.val() & !self.same_q.q.val();
        // The two writes of this edge never name one key (a same-key pair writes bank E only),
        // so at most one hit is set.
        self.e_hit_fe.next = self.e_valid_q.q.val() & (self.e_key_q.q.val() == self.enq_key.val());
        self.e_hit_fd.next = self.d_write.val() & (self.d_key_q.q.val() == self.enq_key.val());
        self.e_in_ram.next = !self.e_hit_fe.val() & !self.e_hit_fd.val();
        self.e_from_fe.d.next = self.e_hit_fe.val();
        self.e_from_fd.d.next = self.e_hit_fd.val();
        self.e_from_ram.d.next = self.e_in_ram.val();
        self.d_hit_fe.next = self.e_valid_q.q.val() & (self.e_key_q.q.val() == self.deq_key.val());
        self.d_hit_fd.next = self.d_write.val() & (self.d_key_q.q.val() == self.deq_key.val());
        self.d_in_ram.next = !self.d_hit_fe.val() & !self.d_hit_fd.val();
        self.d_from_fe.d.next = self.d_hit_fe.val();
        self.d_from_fd.d.next = self.d_hit_fd.val();
        self.d_from_ram.d.next = self.d_in_ram.val();
        self.ram.read_0_address.next = self.enq_key.val();
        self.ram.read_1_address.next = self.deq_key.val();
        // No early select: the addresses are this cycle's inputs.
        self.ram.read_0_next.next = self.enq_key.val();
        self.ram.read_1_next.next = self.deq_key.val();

        // ---- Cycle n: lookups with the sources chosen at capture.
        self.e_valid.next = self.e_valid_q.q.val();
        self.e_key.next = self.e_key_q.q.val();
        self.d_valid.next = self.d_valid_q.q.val();
        self.d_key.next = self.d_key_q.q.val();
        self.same_key.next = self.same_q.q.val();
        self.e_b0_fw.next = 0.into();
        if self.e_from_fe.q.val() {
            self.e_b0_fw.next = self.fw_e_val.q.val();
        }
        if self.e_from_fd.q.val() {
            self.e_b0_fw.next = self.e_b0_fw.val() | self.fw_d_val.q.val();
        }
        self.e_b0_ram.next = 0.into();
        if self.e_from_ram.q.val() & self.ram.read_0_written.val() {
            self.e_b0_ram.next = self.ram.read_0_data.val();
        }
        self.e_b0.next = self.e_b0_fw.val() | self.e_b0_ram.val();
        self.d_b0_fw.next = 0.into();
        if self.d_from_fe.q.val() {
            self.d_b0_fw.next = self.fw_e_val.q.val();
        }
        if self.d_from_fd.q.val() {
            self.d_b0_fw.next = self.d_b0_fw.val() | self.fw_d_val.q.val();
        }
        self.d_b0_ram.next = 0.into();
        if self.d_from_ram.q.val() & self.ram.read_1_written.val() {
            self.d_b0_ram.next = self.ram.read_1_data.val();
        }
        self.d_b0.next = self.d_b0_fw.val() | self.d_b0_ram.val();

        // Dequeue, then enqueue, on the values looked up.
        self.upd.e_valid.next = self.e_valid_q.q.val();
        self.upd.e_len.next = self.e_len_q.q.val();
        self.upd.e_b0.next = self.e_b0.val();
        self.upd.d_valid.next = self.d_valid_q.q.val();
        self.upd.d_len.next = self.d_len_q.q.val();
        self.upd.d_b0.next = self.d_b0.val();
        self.upd.same.next = self.same_q.q.val();
        self.bounds.e_len.next = self.e_len_q.q.val();
        self.bounds.d_len.next = self.d_len_q.q.val();
        self.bounds.max.next = self.max.val();
        self.upd.len_over_max.next = self.bounds.len_over_max.val();
        self.upd.room.next = self.bounds.room.val();
        self.upd.room_same.next = self.bounds.room_same.val();
        self.upd.delta.next = self.bounds.delta.val();
        self.upd.e_len_only.next = self.bounds.e_len_only.val();
        self.d_underflow.next = self.upd.d_underflow.val();
        self.d_b1.next = self.upd.d_b1.val();
        self.d_before.next = self.d_b0.val();
        self.e_before.next = self.e_b0.val();
        self.e_len.next = self.e_len_q.q.val();
        self.d_len.next = self.d_len_q.q.val();
        // The pool test beside the occupancy's (a shared buffer only).
        self.pool.e_valid.next = self.e_valid_q.q.val();
        self.pool.same.next = self.same_q.q.val();
        self.pool.e_b0.next = self.e_b0.val();
        self.pool.d_b0.next = self.d_b0.val();
        self.pool.e_len.next = self.e_len_q.q.val();
        self.pool.d_len.next = self.d_len_q.q.val();
        self.pool.dedicated.next = self.dedicated.val();
        self.pool.room.next = self.pool_room.val();
        self.e_base.next = self.pool.base.val();
        self.e_drop.next = self.upd.e_drop.val() | self.pool.drop.val();
        self.e_b1.next = self.upd.e_b1.val();
        if self.pool.drop.val() {
            self.e_b1.next = self.pool.base.val();
        }

        // ---- Edge n + 1: RAM writes, written-since-reset bits, forwarding registers.
        self.ram.write_a_enable.next = self.e_valid_q.q.val();
        self.ram.write_a_address.next = self.e_key_q.q.val();
        self.ram.write_a_data.next = self.e_b1.val();
        self.ram.write_b_enable.next = self.d_write.val();
        self.ram.write_b_address.next = self.d_key_q.q.val();
        self.ram.write_b_data.next = self.d_b1.val();
        self.fw_e_val.d.next = self.e_b1.val();
        self.fw_d_val.d.next = self.d_b1.val();

        // Synchronous reset (the memory clears itself).
        if self.reset.val() {
            self.e_valid_q.d.next = false;
            self.d_valid_q.d.next = false;
            self.same_q.d.next = false;
        }
    }
}

/// A shared buffer's admission test: each key owns `dedicated` bytes; the bytes an enqueue
/// would hold beyond them, less those its key held, must not pass `room`. A module of its own
/// so that its operands, the lookup's `e_b0` / `d_b0`, are not shared with the statements that
/// read the occupancy arithmetic's results (which Verilator would see as a loop).
#[derive(LogicBlock)]
pub struct PoolTest {
    pub e_valid: Signal<In, Bit>,
    pub same: Signal<In, Bit>,
    pub e_b0: Signal<In, Bits<32>>,
    pub d_b0: Signal<In, Bits<32>>,
    pub e_len: Signal<In, Bits<16>>,
    pub d_len: Signal<In, Bits<16>>,
    pub dedicated: Signal<In, Bits<32>>,
    pub room: Signal<In, Bits<32>>,

    /// The enqueue's key before it: after the dequeue (clamped at 0) when both name one key.
    pub base: Signal<Out, Bits<32>>,
    /// The enqueue is dropped for the pool (never without one).
    pub drop: Signal<Out, Bit>,

    pool_on: Constant<Bit>,
    mask: Constant<Bits<32>>,
    base_over: Signal<Local, Bits<32>>,
    sum33: Signal<Local, Bits<33>>,
    ded33: Signal<Local, Bits<33>>,
    sum_over: Signal<Local, Bits<33>>,
    drawn: Signal<Local, Bits<33>>,
}

impl PoolTest {
    fn new(width: usize, pool: bool) -> Self {
        PoolTest {
            e_valid: Default::default(),
            same: Default::default(),
            e_b0: Default::default(),
            d_b0: Default::default(),
            e_len: Default::default(),
            d_len: Default::default(),
            dedicated: Default::default(),
            room: Default::default(),
            base: Default::default(),
            drop: Default::default(),
            pool_on: Constant::new(pool),
            mask: Constant::new(crate::narrow_ram::low_bits(width)),
            base_over: Default::default(),
            sum33: Default::default(),
            ded33: Default::default(),
            sum_over: Default::default(),
            drawn: Default::default(),
        }
    }
}

impl Logic for PoolTest {
    #[hdl_gen]
    fn update(&mut self) {
        self.base.next = self.e_b0.val() & self.mask.val();
        if self.same.val() {
            self.base.next = 0.into();
            if self.d_b0.val() > bit_cast::<32, 16>(self.d_len.val()) {
                self.base.next =
                    (self.d_b0.val() - bit_cast::<32, 16>(self.d_len.val())) & self.mask.val();
            }
        }
        self.ded33.next = bit_cast::<33, 32>(self.dedicated.val());
        self.base_over.next = 0.into();
        if self.base.val() > self.dedicated.val() {
            self.base_over.next = self.base.val() - self.dedicated.val();
        }
        self.sum33.next =
            bit_cast::<33, 32>(self.base.val()) + bit_cast::<33, 16>(self.e_len.val());
        self.sum_over.next = 0.into();
        if self.sum33.val() > self.ded33.val() {
            self.sum_over.next = self.sum33.val() - self.ded33.val();
        }
        self.drawn.next = self.sum_over.val() - bit_cast::<33, 32>(self.base_over.val());
        self.drop.next = self.pool_on.val()
            & self.e_valid.val()
            & (self.drawn.val() > bit_cast::<33, 32>(self.room.val()));
    }
}
