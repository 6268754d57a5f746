//! Byte occupancy per key from an enqueue and a dequeue bus, II = 1 on both, in four stages:
//! the pipelined RTL form of `switchcraft_model::pfc::Occupancy`, used by PFC's ingress.
//!
//! * edge n (read): the events are captured (`r_*`) and their keys address the RAMs; the
//!   live-value bits of the keys are captured with them, consistent with what the RAMs return,
//!   and so is whether the event one edge older (captured at edge n - 1) writes each key
//!   (`r_*_fwd_*`, compared on the inputs before the edge);
//! * cycle n: each event's operand: the result of the event one edge older, as it leaves the
//!   arithmetic in this same cycle, where that event writes the key (the bypass); else the
//!   result of the event two edges older (`w_*`, not yet in the RAMs), else that of the event
//!   three edges older (`x_*`, written to the RAMs at this same edge n, so not yet readable),
//!   else the memory's read data (0 for a key not written since reset);
//! * edge n + 1 (operand): the operands and the events move to `o_*`, with what the arithmetic
//!   compares them with ([`OccupancyBounds`], from the lengths and MAX alone);
//! * cycle n + 1: the operands go through [`OccupancyUpdate`]: dequeue, then enqueue;
//! * edge n + 2: the results to `w_*` (and, through the bypass, to the next event's operands);
//! * edge n + 3 (write): RAM writes and the live-value table from `w_*`, which moves to `x_*`.
//!
//! So a key's value reaches an event at every hazard distance: 1 through the bypass into the
//! operand registers, 2 and 3 through the operand lookup, 4 and more through the RAMs. The loop
//! that limits the clock is the bypass: `o_*_b` -> carry chains -> the result's selection and
//! the bypass's -> `o_*_b`. The carry chains start at registers: choosing the operand at the
//! end of the older event's cycle, where that choice merges with the result's, is what the
//! recurrence kernels of `loops/` found fastest (`two_bus_forwarded`, docs/reports/loops.md);
//! choosing it in front of the chains, as this module did before 2026-11-28, measured 8% slower
//! on both devices (docs/blocks/pfc.md, "Synthesis").
//! The RAM read, the lookup, the bounds' carry chains and the RAM writes have a cycle of their
//! own (writing the RAMs from the arithmetic directly put the RAMs' data inputs, far from the
//! arithmetic, at the end of that loop).
//!
//! Storage is one [`Ram2W2R`] (two writes and two reads per cycle, in the target's form), port A
//! written by the enqueue path and port B by the dequeue path; after reset it reads 0 (the
//! target decides how). When both buses hit one key, the combined result is written through
//! port A only.

use super::occupancy_update::{OccupancyBounds, OccupancyUpdate};
use crate::ram_2w2r::Ram2W2R;
use crate::tech::Tech;
use rust_hdl::prelude::*;

/// Occupancy of `K` keys addressed by `KB` bits, counters of `width` bits (at most 32).
#[derive(LogicBlock)]
pub struct PipelinedOccupancy<const KB: usize, const K: usize> {
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
    /// The MAX that applies to the events of edge n, in cycle n. At most the counter mask.
    pub max: Signal<In, Bits<32>>,

    // Cycle n + 1: the events of edge n - 1 and what they do.
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

    bounds: OccupancyBounds,
    upd: OccupancyUpdate,
    // Read stage.
    r_e_valid: DFF<Bit>,
    r_e_key: DFF<Bits<KB>>,
    r_e_len: DFF<Bits<16>>,
    r_d_valid: DFF<Bit>,
    r_d_key: DFF<Bits<KB>>,
    r_d_len: DFF<Bits<16>>,
    r_same: DFF<Bit>,
    /// Whether the event one edge older (then in the operand stage) writes this event's
    /// enqueue key, by its enqueue (or same-key pair) or by its dequeue; and the dequeue key's.
    /// Compared on the inputs before edge n, so the bypass starts from registers.
    r_e_fwd_e: DFF<Bit>,
    r_e_fwd_d: DFF<Bit>,
    r_d_fwd_e: DFF<Bit>,
    r_d_fwd_d: DFF<Bit>,
    // Operand stage.
    o_e_valid: DFF<Bit>,
    o_e_key: DFF<Bits<KB>>,
    o_e_len: DFF<Bits<16>>,
    o_d_valid: DFF<Bit>,
    o_d_key: DFF<Bits<KB>>,
    o_d_len: DFF<Bits<16>>,
    o_same: DFF<Bit>,
    // What the arithmetic compares with, from the lengths and the MAX of the events' edge.
    o_len_over_max: DFF<Bit>,
    o_room: DFF<Bits<33>>,
    o_room_same: DFF<Bits<33>>,
    o_delta: DFF<Bits<32>>,
    o_e_len_only: DFF<Bits<32>>,
    o_e_b: DFF<Bits<32>>,
    o_d_b: DFF<Bits<32>>,
    // Write stage: the results of the last edge, written to the RAMs at the next one.
    w_e_valid: DFF<Bit>,
    w_e_key: DFF<Bits<KB>>,
    /// The enqueue's result (a same-key pair's, when the dequeue named its key).
    w_e_val: DFF<Bits<32>>,
    w_d_write: DFF<Bit>,
    w_d_key: DFF<Bits<KB>>,
    w_d_val: DFF<Bits<32>>,
    // Written stage: what the RAMs took at the last edge (not yet readable by that edge's reads).
    x_e_valid: DFF<Bit>,
    x_e_key: DFF<Bits<KB>>,
    x_e_val: DFF<Bits<32>>,
    x_d_write: DFF<Bit>,
    x_d_key: DFF<Bits<KB>>,
    x_d_val: DFF<Bits<32>>,
    ram: Ram2W2R<KB, 32>,

    // Cycle n: the lookup of the read stage's operands.
    r_e_hit_we: Signal<Local, Bit>,
    r_e_hit_wd: Signal<Local, Bit>,
    r_e_hit_xe: Signal<Local, Bit>,
    r_e_hit_xd: Signal<Local, Bit>,
    r_e_from_ram: Signal<Local, Bit>,
    r_d_hit_we: Signal<Local, Bit>,
    r_d_hit_wd: Signal<Local, Bit>,
    r_d_hit_xe: Signal<Local, Bit>,
    r_d_hit_xd: Signal<Local, Bit>,
    r_d_from_ram: Signal<Local, Bit>,
    r_e_b_w: Signal<Local, Bits<32>>,
    r_e_b_x: Signal<Local, Bits<32>>,
    r_e_b_ram: Signal<Local, Bits<32>>,
    r_d_b_w: Signal<Local, Bits<32>>,
    r_d_b_x: Signal<Local, Bits<32>>,
    r_d_b_ram: Signal<Local, Bits<32>>,
    /// The operand stage's dequeue writes bank D (its key is not the enqueue's).
    o_d_write: Signal<Local, Bit>,
    /// The read stage's dequeue writes bank D (its key is not the enqueue's).
    r_d_write: Signal<Local, Bit>,
    // Cycle n: the operand stage's writes (at edge n + 1) that hit the read stage's keys.
    // Cycle n + 1: the operands.
    e_b0: Signal<Local, Bits<32>>,
    d_b0: Signal<Local, Bits<32>>,
}

impl<const KB: usize, const K: usize> PipelinedOccupancy<KB, K> {
    pub fn new(width: usize, tech: Tech) -> Self {
        assert_eq!(1 << KB, K);
        PipelinedOccupancy {
            clock: Default::default(),
            reset: Default::default(),
            enq_valid: Default::default(),
            enq_key: Default::default(),
            enq_len: Default::default(),
            deq_valid: Default::default(),
            deq_key: Default::default(),
            deq_len: Default::default(),
            max: Default::default(),
            e_valid: Default::default(),
            e_key: Default::default(),
            e_b1: Default::default(),
            e_drop: Default::default(),
            d_valid: Default::default(),
            d_key: Default::default(),
            d_b1: Default::default(),
            d_underflow: Default::default(),
            same_key: Default::default(),
            bounds: OccupancyBounds::new(width),
            upd: OccupancyUpdate::new(width),
            r_e_valid: Default::default(),
            r_e_key: Default::default(),
            r_e_len: Default::default(),
            r_d_valid: Default::default(),
            r_d_key: Default::default(),
            r_d_len: Default::default(),
            r_same: Default::default(),
            r_e_fwd_e: Default::default(),
            r_e_fwd_d: Default::default(),
            r_d_fwd_e: Default::default(),
            r_d_fwd_d: Default::default(),
            o_e_valid: Default::default(),
            o_e_key: Default::default(),
            o_e_len: Default::default(),
            o_d_valid: Default::default(),
            o_d_key: Default::default(),
            o_d_len: Default::default(),
            o_same: Default::default(),
            o_len_over_max: Default::default(),
            o_room: Default::default(),
            o_room_same: Default::default(),
            o_delta: Default::default(),
            o_e_len_only: Default::default(),
            o_e_b: Default::default(),
            o_d_b: Default::default(),
            w_e_valid: Default::default(),
            w_e_key: Default::default(),
            w_d_write: Default::default(),
            w_d_key: Default::default(),
            w_d_val: Default::default(),
            x_e_valid: Default::default(),
            x_e_key: Default::default(),
            x_e_val: Default::default(),
            x_d_write: Default::default(),
            x_d_key: Default::default(),
            x_d_val: Default::default(),
            ram: Ram2W2R::new(width, tech),
            r_e_hit_we: Default::default(),
            r_e_hit_wd: Default::default(),
            r_e_hit_xe: Default::default(),
            r_e_hit_xd: Default::default(),
            r_e_from_ram: Default::default(),
            r_d_hit_we: Default::default(),
            r_d_hit_wd: Default::default(),
            r_d_hit_xe: Default::default(),
            r_d_hit_xd: Default::default(),
            r_d_from_ram: Default::default(),
            r_e_b_w: Default::default(),
            r_e_b_x: Default::default(),
            r_e_b_ram: Default::default(),
            r_d_b_w: Default::default(),
            r_d_b_x: Default::default(),
            r_d_b_ram: Default::default(),
            o_d_write: Default::default(),
            r_d_write: Default::default(),
            e_b0: Default::default(),
            d_b0: Default::default(),
            w_e_val: Default::default(),
        }
    }
}

impl<const KB: usize, const K: usize> Logic for PipelinedOccupancy<KB, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_e_valid,
            r_e_key,
            r_e_len,
            r_d_valid,
            r_d_key,
            r_d_len,
            r_same,
            r_e_fwd_e,
            r_e_fwd_d,
            r_d_fwd_e,
            r_d_fwd_d,
            o_e_valid,
            o_e_key,
            o_e_len,
            o_d_valid,
            o_d_key,
            o_d_len,
            o_same,
            o_len_over_max,
            o_room,
            o_room_same,
            o_delta,
            o_e_len_only,
            o_e_b,
            o_d_b,
            w_e_valid,
            w_e_key,
            w_e_val,
            w_d_write,
            w_d_key,
            w_d_val,
            x_e_valid,
            x_e_key,
            x_e_val,
            x_d_write,
            x_d_key,
            x_d_val
        );
        self.ram.clock.next = self.clock.val();
        self.ram.reset.next = self.reset.val();

        // ---- Edge n (read): capture the events; their keys address the RAMs.
        self.r_e_valid.d.next = self.enq_valid.val();
        self.r_e_key.d.next = self.enq_key.val();
        self.r_e_len.d.next = self.enq_len.val();
        self.r_d_valid.d.next = self.deq_valid.val();
        self.r_d_key.d.next = self.deq_key.val();
        self.r_d_len.d.next = self.deq_len.val();
        self.r_same.d.next = self.enq_valid.val()
            & self.deq_valid.val()
            & (self.enq_key.val() == self.deq_key.val());
        // The event now in the read stage is one edge older than the one captured here: does it
        // write the new event's keys? Its enqueue (or same-key pair) wins over its dequeue, whose
        // key is then the same.
        self.r_d_write.next = self.r_d_valid.q.val() & !self.r_same.q.val();
        self.r_e_fwd_e.d.next =
            self.r_e_valid.q.val() & (self.r_e_key.q.val() == self.enq_key.val());
        self.r_e_fwd_d.d.next = !self.r_e_fwd_e.d.val()
            & self.r_d_write.val()
            & (self.r_d_key.q.val() == self.enq_key.val());
        self.r_d_fwd_e.d.next =
            self.r_e_valid.q.val() & (self.r_e_key.q.val() == self.deq_key.val());
        self.r_d_fwd_d.d.next = !self.r_d_fwd_e.d.val()
            & self.r_d_write.val()
            & (self.r_d_key.q.val() == self.deq_key.val());
        self.ram.read_0_address.next = self.enq_key.val();
        self.ram.read_1_address.next = self.deq_key.val();

        // ---- Cycle n: each operand from the newest value the RAM read of edge n did not see:
        // the write stage's (`w_*`, written to the RAMs at edge n + 1), else the written stage's
        // (`x_*`, written at this edge n), else the RAM's read data. The two writes of one
        // stage never name one key (a same-key pair writes bank E only), so at most one hit per
        // stage counts.
        self.r_e_hit_we.next =
            self.w_e_valid.q.val() & (self.w_e_key.q.val() == self.r_e_key.q.val());
        self.r_e_hit_wd.next =
            self.w_d_write.q.val() & (self.w_d_key.q.val() == self.r_e_key.q.val());
        self.r_e_hit_xe.next = !self.r_e_hit_we.val()
            & !self.r_e_hit_wd.val()
            & self.x_e_valid.q.val()
            & (self.x_e_key.q.val() == self.r_e_key.q.val());
        self.r_e_hit_xd.next = !self.r_e_hit_we.val()
            & !self.r_e_hit_wd.val()
            & self.x_d_write.q.val()
            & (self.x_d_key.q.val() == self.r_e_key.q.val());
        self.r_e_from_ram.next = !self.r_e_hit_we.val()
            & !self.r_e_hit_wd.val()
            & !self.r_e_hit_xe.val()
            & !self.r_e_hit_xd.val()
            & self.ram.read_0_written.val();
        self.r_d_hit_we.next =
            self.w_e_valid.q.val() & (self.w_e_key.q.val() == self.r_d_key.q.val());
        self.r_d_hit_wd.next =
            self.w_d_write.q.val() & (self.w_d_key.q.val() == self.r_d_key.q.val());
        self.r_d_hit_xe.next = !self.r_d_hit_we.val()
            & !self.r_d_hit_wd.val()
            & self.x_e_valid.q.val()
            & (self.x_e_key.q.val() == self.r_d_key.q.val());
        self.r_d_hit_xd.next = !self.r_d_hit_we.val()
            & !self.r_d_hit_wd.val()
            & self.x_d_write.q.val()
            & (self.x_d_key.q.val() == self.r_d_key.q.val());
        self.r_d_from_ram.next = !self.r_d_hit_we.val()
            & !self.r_d_hit_wd.val()
            & !self.r_d_hit_xe.val()
            & !self.r_d_hit_xd.val()
            & self.ram.read_1_written.val();
        self.r_e_b_w.next = 0.into();
        if self.r_e_hit_we.val() {
            self.r_e_b_w.next = self.w_e_val.q.val();
        }
        if self.r_e_hit_wd.val() {
            self.r_e_b_w.next = self.r_e_b_w.val() | self.w_d_val.q.val();
        }
        self.r_e_b_x.next = 0.into();
        if self.r_e_hit_xe.val() {
            self.r_e_b_x.next = self.x_e_val.q.val();
        }
        if self.r_e_hit_xd.val() {
            self.r_e_b_x.next = self.r_e_b_x.val() | self.x_d_val.q.val();
        }
        self.r_e_b_ram.next = 0.into();
        if self.r_e_from_ram.val() {
            self.r_e_b_ram.next = self.ram.read_0_data.val();
        }
        self.r_d_b_w.next = 0.into();
        if self.r_d_hit_we.val() {
            self.r_d_b_w.next = self.w_e_val.q.val();
        }
        if self.r_d_hit_wd.val() {
            self.r_d_b_w.next = self.r_d_b_w.val() | self.w_d_val.q.val();
        }
        self.r_d_b_x.next = 0.into();
        if self.r_d_hit_xe.val() {
            self.r_d_b_x.next = self.x_e_val.q.val();
        }
        if self.r_d_hit_xd.val() {
            self.r_d_b_x.next = self.r_d_b_x.val() | self.x_d_val.q.val();
        }
        self.r_d_b_ram.next = 0.into();
        if self.r_d_from_ram.val() {
            self.r_d_b_ram.next = self.ram.read_1_data.val();
        }

        // ---- Edge n + 1 (operand).
        self.o_d_write.next = self.o_d_valid.q.val() & !self.o_same.q.val();
        self.o_e_valid.d.next = self.r_e_valid.q.val();
        self.o_e_key.d.next = self.r_e_key.q.val();
        self.o_e_len.d.next = self.r_e_len.q.val();
        self.o_d_valid.d.next = self.r_d_valid.q.val();
        self.o_d_key.d.next = self.r_d_key.q.val();
        self.o_d_len.d.next = self.r_d_len.q.val();
        self.o_same.d.next = self.r_same.q.val();
        self.bounds.e_len.next = self.r_e_len.q.val();
        self.bounds.d_len.next = self.r_d_len.q.val();
        self.bounds.max.next = self.max.val();
        self.o_len_over_max.d.next = self.bounds.len_over_max.val();
        self.o_room.d.next = self.bounds.room.val();
        self.o_room_same.d.next = self.bounds.room_same.val();
        self.o_delta.d.next = self.bounds.delta.val();
        self.o_e_len_only.d.next = self.bounds.e_len_only.val();
        self.o_e_b.d.next = self.r_e_b_w.val() | self.r_e_b_x.val() | self.r_e_b_ram.val();
        self.o_d_b.d.next = self.r_d_b_w.val() | self.r_d_b_x.val() | self.r_d_b_ram.val();
        // The bypass: where the event in the arithmetic now (one edge older) writes the key,
        // its result, as it leaves the arithmetic, is the operand.
        if self.r_e_fwd_e.q.val() {
            self.o_e_b.d.next = self.upd.e_b1.val();
        } else if self.r_e_fwd_d.q.val() {
            self.o_e_b.d.next = self.upd.d_b1.val();
        }
        if self.r_d_fwd_e.q.val() {
            self.o_d_b.d.next = self.upd.e_b1.val();
        } else if self.r_d_fwd_d.q.val() {
            self.o_d_b.d.next = self.upd.d_b1.val();
        }
        // ---- Cycle n + 1: the arithmetic, from the operand registers themselves (the bypass
        // of the older event's result happened as they were loaded).
        self.e_b0.next = self.o_e_b.q.val();
        self.d_b0.next = self.o_d_b.q.val();
        self.upd.e_valid.next = self.o_e_valid.q.val();
        self.upd.e_len.next = self.o_e_len.q.val();
        self.upd.e_b0.next = self.e_b0.val();
        self.upd.d_valid.next = self.o_d_valid.q.val();
        self.upd.d_len.next = self.o_d_len.q.val();
        self.upd.d_b0.next = self.d_b0.val();
        self.upd.same.next = self.o_same.q.val();
        self.upd.len_over_max.next = self.o_len_over_max.q.val();
        self.upd.room.next = self.o_room.q.val();
        self.upd.room_same.next = self.o_room_same.q.val();
        self.upd.delta.next = self.o_delta.q.val();
        self.upd.e_len_only.next = self.o_e_len_only.q.val();
        self.e_valid.next = self.o_e_valid.q.val();
        self.e_key.next = self.o_e_key.q.val();
        self.e_b1.next = self.upd.e_b1.val();
        self.e_drop.next = self.upd.e_drop.val();
        self.d_valid.next = self.o_d_valid.q.val();
        self.d_key.next = self.o_d_key.q.val();
        self.d_b1.next = self.upd.d_b1.val();
        self.d_underflow.next = self.upd.d_underflow.val();
        self.same_key.next = self.o_same.q.val();

        // ---- Edge n + 2: the results to the write stage.
        self.w_e_valid.d.next = self.o_e_valid.q.val();
        self.w_e_key.d.next = self.o_e_key.q.val();
        self.w_e_val.d.next = self.upd.e_b1.val();
        self.w_d_write.d.next = self.o_d_write.val();
        self.w_d_key.d.next = self.o_d_key.q.val();
        self.w_d_val.d.next = self.upd.d_b1.val();

        // ---- Edge n + 3 (write): RAM writes and the live-value table, from registers (the
        // arithmetic's results feed only the write stage and the bypass, not the RAMs' data
        // inputs), and the written stage.
        self.ram.write_a_enable.next = self.w_e_valid.q.val();
        self.ram.write_a_address.next = self.w_e_key.q.val();
        self.ram.write_a_data.next = self.w_e_val.q.val();
        self.ram.write_b_enable.next = self.w_d_write.q.val();
        self.ram.write_b_address.next = self.w_d_key.q.val();
        self.ram.write_b_data.next = self.w_d_val.q.val();
        self.x_e_valid.d.next = self.w_e_valid.q.val();
        self.x_e_key.d.next = self.w_e_key.q.val();
        self.x_e_val.d.next = self.w_e_val.q.val();
        self.x_d_write.d.next = self.w_d_write.q.val();
        self.x_d_key.d.next = self.w_d_key.q.val();
        self.x_d_val.d.next = self.w_d_val.q.val();

        // Synchronous reset (the memory clears itself).
        if self.reset.val() {
            self.r_e_valid.d.next = false;
            self.r_d_valid.d.next = false;
            self.r_same.d.next = false;
            self.r_e_fwd_e.d.next = false;
            self.r_e_fwd_d.d.next = false;
            self.r_d_fwd_e.d.next = false;
            self.r_d_fwd_d.d.next = false;
            self.o_e_valid.d.next = false;
            self.o_d_valid.d.next = false;
            self.o_same.d.next = false;
            self.w_e_valid.d.next = false;
            self.w_d_write.d.next = false;
            self.x_e_valid.d.next = false;
            self.x_d_write.d.next = false;
        }
    }
}

/// The `fpga` preset's occupancy (32 keys, 16-bit counters) alone, as the Verilog module
/// `name`, with the target's memories: PFC's loop as the block builds it, for
/// `switchcraft synth --loops` to measure beside the hand-written kernels.
pub fn fpga_verilog(name: &str, tech: Tech) -> String {
    let mut occupancy = PipelinedOccupancy::<5, 32>::new(16, tech);
    occupancy.connect_all();
    crate::export::standalone_module(&generate_verilog(&occupancy), name)
}
