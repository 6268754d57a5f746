//! One edge's occupancy arithmetic, combinational: the dequeue (clamped at 0, flagged), then the
//! enqueue on top of it when both name one key (dropped when the sum would exceed `max`), for
//! the single-stage [`super::occupancy::Occupancy`] (CaPFC's egress queues). PFC's
//! [`super::occupancy_pipeline::PipelinedOccupancy`] has its own arithmetic: a loop of two
//! cycles that applies two events' operations at once.
//!
//! [`OccupancyUpdate`] sits in the loop that limits the clock (a result is the next same-key
//! event's operand), so it holds one carry chain per result: every test is rewritten against
//! the operand, with the other side computed by [`OccupancyBounds`] from the lengths and `max`
//! alone (`e_b0 + len > max` is `e_b0 > max - len`; the same-key sum `d_b0 - d_len + e_len` is
//! one addition of `e_len - d_len`). Results are masked to the counter width (they never exceed
//! `max`, which is masked the same way) so that synthesis sizes every chain by the counter
//! width, not 32 bits.

use rust_hdl::prelude::*;

/// What an edge's tests compare the operands with, from the lengths and `max` alone.
#[derive(LogicBlock)]
pub struct OccupancyBounds {
    pub e_len: Signal<In, Bits<16>>,
    pub d_len: Signal<In, Bits<16>>,
    /// At most the counter mask.
    pub max: Signal<In, Bits<32>>,

    /// The enqueue alone exceeds `max`.
    pub len_over_max: Signal<Out, Bit>,
    /// `max - e_len`: an enqueue onto `b` drops when `b` is above it. Masked: it is used only
    /// when `e_len <= max`, and then it is at most `max`.
    pub room: Signal<Out, Bits<33>>,
    /// `max - e_len + d_len`: the same for a same-key pair, tested on `d_b0`.
    pub room_same: Signal<Out, Bits<33>>,
    /// `e_len - d_len` modulo the counter width: the same-key sum is used only when it is at
    /// most `max`, so it is exact modulo that width.
    pub delta: Signal<Out, Bits<32>>,
    /// `e_len`, or 0 when it alone exceeds `max`: an enqueue onto an emptied key.
    pub e_len_only: Signal<Out, Bits<32>>,

    mask: Constant<Bits<32>>,
    mask33: Constant<Bits<33>>,
    e_len33: Signal<Local, Bits<33>>,
    d_len33: Signal<Local, Bits<33>>,
}

impl OccupancyBounds {
    /// Counters of `width` bits.
    pub fn new(width: usize) -> Self {
        OccupancyBounds {
            e_len: Default::default(),
            d_len: Default::default(),
            max: Default::default(),
            len_over_max: Default::default(),
            room: Default::default(),
            room_same: Default::default(),
            delta: Default::default(),
            e_len_only: Default::default(),
            mask: Constant::new(crate::narrow_ram::low_bits(width)),
            mask33: Constant::new(crate::narrow_ram::low_bits(width)),
            e_len33: Default::default(),
            d_len33: Default::default(),
        }
    }
}

impl Logic for OccupancyBounds {
    #[hdl_gen]
    fn update(&mut self) {
        self.e_len33.next = bit_cast::<33, 16>(self.e_len.val());
        self.d_len33.next = bit_cast::<33, 16>(self.d_len.val());
        self.len_over_max.next = self.e_len33.val() > bit_cast::<33, 32>(self.max.val());
        self.room.next =
            (bit_cast::<33, 32>(self.max.val()) - self.e_len33.val()) & self.mask33.val();
        self.room_same.next = self.room.val() + self.d_len33.val();
        self.delta.next = (bit_cast::<32, 16>(self.e_len.val())
            - bit_cast::<32, 16>(self.d_len.val()))
            & self.mask.val();
        self.e_len_only.next = 0.into();
        if !self.len_over_max.val() {
            self.e_len_only.next = bit_cast::<32, 16>(self.e_len.val());
        }
    }
}

#[derive(LogicBlock)]
pub struct OccupancyUpdate {
    pub e_valid: Signal<In, Bit>,
    pub e_len: Signal<In, Bits<16>>,
    /// Occupancy of the enqueue's key before the edge (used when the keys differ).
    pub e_b0: Signal<In, Bits<32>>,
    pub d_valid: Signal<In, Bit>,
    pub d_len: Signal<In, Bits<16>>,
    /// Occupancy of the dequeue's key before the edge.
    pub d_b0: Signal<In, Bits<32>>,
    /// Both events are valid and name one key.
    pub same: Signal<In, Bit>,
    /// The [`OccupancyBounds`] of these events.
    pub len_over_max: Signal<In, Bit>,
    pub room: Signal<In, Bits<33>>,
    pub room_same: Signal<In, Bits<33>>,
    pub delta: Signal<In, Bits<32>>,
    pub e_len_only: Signal<In, Bits<32>>,

    /// Occupancy after the enqueue (its base when dropped).
    pub e_b1: Signal<Out, Bits<32>>,
    pub e_drop: Signal<Out, Bit>,
    /// Occupancy after the dequeue (0 when it underflowed).
    pub d_b1: Signal<Out, Bits<32>>,
    pub d_underflow: Signal<Out, Bit>,

    /// The counter width's mask.
    mask: Constant<Bits<32>>,
    // One carry chain each from the operands.
    e_b0_33: Signal<Local, Bits<33>>,
    d_b0_33: Signal<Local, Bits<33>>,
    /// Used only when not dropped, so at most `max`: 32 bits hold it.
    e_sum: Signal<Local, Bits<32>>,
    e_over: Signal<Local, Bit>,
    d_diff: Signal<Local, Bits<32>>,
    same_sum: Signal<Local, Bits<32>>,
    same_over: Signal<Local, Bit>,
    drop_any: Signal<Local, Bit>,
    res_same: Signal<Local, Bits<32>>,
    res_apart: Signal<Local, Bits<32>>,
    /// `e_b1` when both events name one key, and when they do not.
    e_b1_same: Signal<Local, Bits<32>>,
    e_b1_apart: Signal<Local, Bits<32>>,
    d_res: Signal<Local, Bits<32>>,
}

impl OccupancyUpdate {
    /// Counters of `width` bits.
    pub fn new(width: usize) -> Self {
        OccupancyUpdate {
            e_valid: Default::default(),
            e_len: Default::default(),
            e_b0: Default::default(),
            d_valid: Default::default(),
            d_len: Default::default(),
            d_b0: Default::default(),
            same: Default::default(),
            len_over_max: Default::default(),
            room: Default::default(),
            room_same: Default::default(),
            delta: Default::default(),
            e_len_only: Default::default(),
            e_b1: Default::default(),
            e_b1_same: Default::default(),
            e_b1_apart: Default::default(),
            e_drop: Default::default(),
            d_b1: Default::default(),
            d_underflow: Default::default(),
            mask: Constant::new(crate::narrow_ram::low_bits(width)),
            e_b0_33: Default::default(),
            d_b0_33: Default::default(),
            e_sum: Default::default(),
            e_over: Default::default(),
            d_diff: Default::default(),
            same_sum: Default::default(),
            same_over: Default::default(),
            drop_any: Default::default(),
            res_same: Default::default(),
            res_apart: Default::default(),
            d_res: Default::default(),
        }
    }
}

impl Logic for OccupancyUpdate {
    #[hdl_gen]
    fn update(&mut self) {
        // Dequeue first: clamp at zero (flagged).
        self.d_underflow.next =
            self.d_valid.val() & (bit_cast::<32, 16>(self.d_len.val()) > self.d_b0.val());
        self.d_diff.next = self.d_b0.val() - bit_cast::<32, 16>(self.d_len.val());
        // Then enqueue, on top of the dequeue when both name one key: every candidate sum and
        // every drop test in parallel from e_b0 / d_b0.
        self.e_b0_33.next = bit_cast::<33, 32>(self.e_b0.val());
        self.d_b0_33.next = bit_cast::<33, 32>(self.d_b0.val());
        self.e_sum.next = self.e_b0.val() + bit_cast::<32, 16>(self.e_len.val());
        self.e_over.next = self.len_over_max.val() | (self.e_b0_33.val() > self.room.val());
        self.same_sum.next = self.d_b0.val() + self.delta.val();
        self.same_over.next = self.len_over_max.val() | (self.d_b0_33.val() > self.room_same.val());
        if self.e_over.val() {
            self.res_apart.next = self.e_b0.val();
        } else {
            self.res_apart.next = self.e_sum.val();
        }
        if self.d_underflow.val() {
            // The dequeue emptied the key: the enqueue adds to 0.
            self.res_same.next = self.e_len_only.val();
        } else if self.same_over.val() {
            self.res_same.next = self.d_diff.val();
        } else {
            self.res_same.next = self.same_sum.val();
        }
        if !self.same.val() {
            self.drop_any.next = self.e_over.val();
        } else if self.d_underflow.val() {
            self.drop_any.next = self.len_over_max.val();
        } else {
            self.drop_any.next = self.same_over.val();
        }
        self.e_drop.next = self.e_valid.val() & self.drop_any.val();
        self.e_b1_same.next = self.res_same.val() & self.mask.val();
        self.e_b1_apart.next = self.res_apart.val() & self.mask.val();
        if self.same.val() {
            self.e_b1.next = self.e_b1_same.val();
        } else {
            self.e_b1.next = self.e_b1_apart.val();
        }
        self.d_res.next = 0.into();
        if !self.d_underflow.val() {
            self.d_res.next = self.d_diff.val();
        }
        self.d_b1.next = self.d_res.val() & self.mask.val();
    }
}
