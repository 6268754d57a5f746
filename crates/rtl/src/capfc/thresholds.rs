//! The egress occupancy stage's threshold tests (spec §2.3 on the egress queues: an accepted
//! enqueue at or above WARN / XOFF, a dequeue at or below WARN / XON), taken on the stage's
//! operands instead of its results.
//!
//! Comparing the results (`e_b1 >= xoff`) puts a second carry chain after the occupancy
//! arithmetic's, in the cycle that starts at the occupancy RAM's read: on iCE40 that was the
//! block's critical path. Each test is rewritten here against the operand the arithmetic reads
//! (the lookup's `e_b0` / `d_b0`), with the other side computed from the lengths and the
//! threshold registers alone, so each is one comparison beside the arithmetic, as
//! [`crate::pfc::occupancy_update`] does for the drop test:
//! * apart, `e_b0 + e_len >= t` is `e_len >= t` or `e_b0 >= t - e_len`;
//! * one key, after a dequeue that did not underflow, `d_b0 - d_len + e_len >= t` is
//!   `e_len >= t + d_len` or `d_b0 >= t + d_len - e_len`; after one that did, `e_len >= t`;
//! * the dequeue's `max(d_b0 - d_len, 0) <= t` is `d_b0 <= t + d_len`.
//!
//! The enqueue tests are exact only for an accepted enqueue (its sum is then at most the
//! counter mask): the caller ANDs them with it.
//!
//! Every threshold and length is at most the counter mask (the registers are `width` bits
//! wide, the top's length ports `length_bits <= width`), so each bound is below
//! `2^(width + 1)`. The bounds are masked to that width: where one wraps (`t < e_len`) the
//! length alone decides, and the mask lets synthesis narrow the arithmetic to `width + 1`
//! bits. Left at 33 bits, a wrapped subtraction kept it 33 bits wide everywhere: at the
//! formal config's 8 bits the deep BMC took about 510 s instead of 351 s.

use rust_hdl::prelude::*;

/// Whether an accepted enqueue leaves its queue at or above a threshold `t`.
#[derive(LogicBlock)]
pub struct AtOrAbove {
    /// The threshold and the lengths, the bounds of [`EgressTests`].
    pub t: Signal<In, Bits<33>>,
    pub e_len: Signal<In, Bits<33>>,
    pub d_len: Signal<In, Bits<33>>,
    /// The operands, masked to the counter width; the dequeue underflowed; one key.
    pub e_b0: Signal<In, Bits<33>>,
    pub d_b0: Signal<In, Bits<33>>,
    pub d_underflow: Signal<In, Bit>,
    pub same: Signal<In, Bit>,

    pub hit: Signal<Out, Bit>,

    /// `2^(width + 1) - 1`: the bounds' width.
    bound_mask: Constant<Bits<33>>,
    len_reaches: Signal<Local, Bit>,
    t_apart: Signal<Local, Bits<33>>,
    t_plus_deq: Signal<Local, Bits<33>>,
    len_reaches_same: Signal<Local, Bit>,
    t_same: Signal<Local, Bits<33>>,
    hit_apart: Signal<Local, Bit>,
    hit_same: Signal<Local, Bit>,
}

impl AtOrAbove {
    /// Counters of `width` bits.
    pub fn new(width: usize) -> Self {
        AtOrAbove {
            t: Default::default(),
            e_len: Default::default(),
            d_len: Default::default(),
            e_b0: Default::default(),
            d_b0: Default::default(),
            d_underflow: Default::default(),
            same: Default::default(),
            hit: Default::default(),
            bound_mask: Constant::new(crate::narrow_ram::low_bits(width + 1)),
            len_reaches: Default::default(),
            t_apart: Default::default(),
            t_plus_deq: Default::default(),
            len_reaches_same: Default::default(),
            t_same: Default::default(),
            hit_apart: Default::default(),
            hit_same: Default::default(),
        }
    }
}

impl Logic for AtOrAbove {
    #[hdl_gen]
    fn update(&mut self) {
        // From registers only: the lengths and the threshold.
        self.len_reaches.next = self.e_len.val() >= self.t.val();
        self.t_apart.next = (self.t.val() - self.e_len.val()) & self.bound_mask.val();
        self.t_plus_deq.next = (self.t.val() + self.d_len.val()) & self.bound_mask.val();
        self.len_reaches_same.next = self.e_len.val() >= self.t_plus_deq.val();
        self.t_same.next = (self.t_plus_deq.val() - self.e_len.val()) & self.bound_mask.val();
        // One comparison on each operand.
        self.hit_apart.next = self.len_reaches.val() | (self.e_b0.val() >= self.t_apart.val());
        self.hit_same.next = self.len_reaches_same.val() | (self.d_b0.val() >= self.t_same.val());
        if !self.same.val() {
            self.hit.next = self.hit_apart.val();
        } else if self.d_underflow.val() {
            self.hit.next = self.len_reaches.val();
        } else {
            self.hit.next = self.hit_same.val();
        }
    }
}

/// The four tests of the egress occupancy stage.
#[derive(LogicBlock)]
pub struct EgressTests {
    /// The stage's registered lengths, its lookup's operands, one key, the dequeue underflowed.
    pub e_len: Signal<In, Bits<16>>,
    pub d_len: Signal<In, Bits<16>>,
    pub e_b0: Signal<In, Bits<32>>,
    pub d_b0: Signal<In, Bits<32>>,
    pub same: Signal<In, Bit>,
    pub d_underflow: Signal<In, Bit>,
    /// The egress threshold registers.
    pub xoff: Signal<In, Bits<32>>,
    pub warn: Signal<In, Bits<32>>,
    pub xon: Signal<In, Bits<32>>,

    /// An accepted enqueue (the caller's AND) leaves its queue at or above WARN / XOFF.
    pub e_at_warn: Signal<Out, Bit>,
    pub e_at_xoff: Signal<Out, Bit>,
    /// The dequeue leaves its queue at or below WARN / XON.
    pub d_at_warn: Signal<Out, Bit>,
    pub d_at_xon: Signal<Out, Bit>,

    warn_test: AtOrAbove,
    xoff_test: AtOrAbove,
    /// The counter width's mask.
    mask: Constant<Bits<32>>,
    e_len33: Signal<Local, Bits<33>>,
    d_len33: Signal<Local, Bits<33>>,
    e_b0_masked: Signal<Local, Bits<32>>,
    d_b0_masked: Signal<Local, Bits<32>>,
    e_b0_33: Signal<Local, Bits<33>>,
    d_b0_33: Signal<Local, Bits<33>>,
    warn33: Signal<Local, Bits<33>>,
    xoff33: Signal<Local, Bits<33>>,
    xon33: Signal<Local, Bits<33>>,
}

impl EgressTests {
    /// Counters of `width` bits.
    pub fn new(width: usize) -> Self {
        EgressTests {
            e_len: Default::default(),
            d_len: Default::default(),
            e_b0: Default::default(),
            d_b0: Default::default(),
            same: Default::default(),
            d_underflow: Default::default(),
            xoff: Default::default(),
            warn: Default::default(),
            xon: Default::default(),
            e_at_warn: Default::default(),
            e_at_xoff: Default::default(),
            d_at_warn: Default::default(),
            d_at_xon: Default::default(),
            warn_test: AtOrAbove::new(width),
            xoff_test: AtOrAbove::new(width),
            mask: Constant::new(crate::narrow_ram::low_bits(width)),
            e_len33: Default::default(),
            d_len33: Default::default(),
            e_b0_masked: Default::default(),
            d_b0_masked: Default::default(),
            e_b0_33: Default::default(),
            d_b0_33: Default::default(),
            warn33: Default::default(),
            xoff33: Default::default(),
            xon33: Default::default(),
        }
    }
}

impl Logic for EgressTests {
    #[hdl_gen]
    fn update(&mut self) {
        self.e_len33.next = bit_cast::<33, 16>(self.e_len.val());
        self.d_len33.next = bit_cast::<33, 16>(self.d_len.val());
        self.e_b0_masked.next = self.e_b0.val() & self.mask.val();
        self.d_b0_masked.next = self.d_b0.val() & self.mask.val();
        self.e_b0_33.next = bit_cast::<33, 32>(self.e_b0_masked.val());
        self.d_b0_33.next = bit_cast::<33, 32>(self.d_b0_masked.val());
        self.warn33.next = bit_cast::<33, 32>(self.warn.val());
        self.xoff33.next = bit_cast::<33, 32>(self.xoff.val());
        self.xon33.next = bit_cast::<33, 32>(self.xon.val());

        self.warn_test.t.next = self.warn33.val();
        self.warn_test.e_len.next = self.e_len33.val();
        self.warn_test.d_len.next = self.d_len33.val();
        self.warn_test.e_b0.next = self.e_b0_33.val();
        self.warn_test.d_b0.next = self.d_b0_33.val();
        self.warn_test.d_underflow.next = self.d_underflow.val();
        self.warn_test.same.next = self.same.val();
        self.e_at_warn.next = self.warn_test.hit.val();

        self.xoff_test.t.next = self.xoff33.val();
        self.xoff_test.e_len.next = self.e_len33.val();
        self.xoff_test.d_len.next = self.d_len33.val();
        self.xoff_test.e_b0.next = self.e_b0_33.val();
        self.xoff_test.d_b0.next = self.d_b0_33.val();
        self.xoff_test.d_underflow.next = self.d_underflow.val();
        self.xoff_test.same.next = self.same.val();
        self.e_at_xoff.next = self.xoff_test.hit.val();

        // Also right after an underflow (0 <= t): then d_b0 < d_len.
        self.d_at_warn.next = self.d_b0_33.val() <= self.warn33.val() + self.d_len33.val();
        self.d_at_xon.next = self.d_b0_33.val() <= self.xon33.val() + self.d_len33.val();
    }
}
