//! CaPFC's Stop-Calibrate engine (the model's `capture` and `calibrate_step`) and its request
//! queue. At XOFF an enqueue triggers a calibration of its row; the one engine captures the row
//! when it is idle and no request waits, else the row's request waits in `pending`. The
//! counter RAM's read port B ([`super::counters::Counters`]) reads, on every edge, the row of
//! the first waiting request at or after the one served last, and the engine captures it on
//! the next edge if it is idle then: waiting requests are served round robin whatever the
//! buses carry. A dequeue at WARN or XON withdraws its row's request and cancels its running
//! calibration.
//!
//! The engine captures a row ([`CalRow`]), sums it on the next edge (S), scales the sum on the
//! edge after (`num * S`, CUT = num/den latched at the capture), then flags one largest
//! remaining counter per edge until `den * cum >= num * S`; the flagged lanes, as inputs, are
//! the E bits to set. The test keeps the remainder `num * S - den * cum` of the lanes flagged
//! so far and compares it with `den * v` of the lane it flags now, a product registered on the
//! edge before from the selection [`CalRow`] makes a lane ahead: each flagging edge is one
//! comparison and one subtraction, from registers.

use crate::cal_row::CalRow;
use rust_hdl::prelude::*;
use switchcraft_model::capfc::CapfcConfig;

/// The engine for keys of `KB` bits (`K = 2^KB`), ports of `PB` bits (`PP = 2^PB`), rows of
/// `W = 16 * PP` bits.
#[derive(LogicBlock)]
pub struct Calibrate<
    const PB: usize,
    const PP: usize,
    const K: usize,
    const KB: usize,
    const W: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Cycle n: port B read request `served_key`'s row (as the last edge left it).
    pub serving: Signal<In, Bit>,
    pub served_key: Signal<In, Bits<KB>>,
    pub served_row: Signal<In, Bits<W>>,
    /// Cycle n: the enqueue's row `key` as this edge writes it.
    pub key: Signal<In, Bits<KB>>,
    pub row_new: Signal<In, Bits<W>>,
    /// An accepted enqueue at or above XOFF under Stop-Calibrate, on row `key`.
    pub trigger: Signal<In, Bit>,
    /// A dequeue at or below WARN or XON on row `withdraw_key`.
    pub withdraw: Signal<In, Bit>,
    pub withdraw_key: Signal<In, Bits<KB>>,
    /// CUT: numerator in bits 7:0, denominator in 15:8.
    pub cut: Signal<In, Bits<16>>,
    /// The policy is Stop-Calibrate (results are dropped otherwise).
    pub enabled: Signal<In, Bit>,

    /// A request waits, and the row to serve next (also one-hot, for the row's sources).
    pub requesting: Signal<Out, Bit>,
    pub serve_key: Signal<Out, Bits<KB>>,
    pub serve_onehot: Signal<Out, Bits<K>>,
    pub busy: Signal<Out, Bit>,
    /// The engine's row.
    pub cal_key: Signal<Out, Bits<KB>>,
    /// The engine finishes on this edge, uncancelled: set the E bits of `flags` in row `cal_key`.
    pub result: Signal<Out, Bit>,
    pub flags: Signal<Out, Bits<PP>>,

    /// The engine's captured row and flagged lanes, its selections and the row's sum.
    pub cal_row: CalRow<PB, PP, W>,

    prio_bits: Constant<Bits<KB>>,
    one_k: Constant<Bits<K>>,
    one_kb: Constant<Bits<KB>>,
    one_pp: Constant<Bits<PP>>,

    pending: DFF<Bits<K>>,
    /// The round-robin pointer as the keys before it (the key after the last one served): the
    /// search starts from a mask register, not from a decoder and a subtraction of a pointer.
    rr_before: DFF<Bits<K>>,
    cal_busy: DFF<Bit>,
    cal_summed: DFF<Bit>,
    /// The sum is scaled: the engine flags from now on.
    cal_scaled: DFF<Bit>,
    cal_cancel: DFF<Bit>,
    cal_key_r: DFF<Bits<KB>>,
    /// CUT latched at the capture.
    cal_cut: DFF<Bits<16>>,
    cal_total: DFF<Bits<32>>,
    /// `num * S - den * cum`: what the lanes flagged so far leave to reach CUT.
    cal_rem: DFF<Bits<32>>,
    /// `den * v` of the lane `sel` (registered from `ahead_val` on the edge before).
    cal_dv: DFF<Bits<32>>,

    pend_above: Signal<Local, Bits<K>>,
    pend_cand: Signal<Local, Bits<K>>,
    pend_grant: Signal<Local, Bits<K>>,
    served_next: Signal<Local, Bits<KB>>,
    served_before: Signal<Local, Bits<K>>,
    key_onehot: Signal<Local, Bits<K>>,
    served_onehot: Signal<Local, Bits<K>>,
    /// The trigger captures at once (idle engine, nothing waiting, nothing served now).
    direct: Signal<Local, Bit>,
    withdraw_onehot: Signal<Local, Bits<K>>,
    pending_left: Signal<Local, Bits<K>>,
    serve_capture: Signal<Local, Bit>,
    capture: Signal<Local, Bit>,
    den: Signal<Local, Bits<8>>,
    num: Signal<Local, Bits<8>>,
    den_ahead: Signal<Local, Bits<32>>,
    num_total: Signal<Local, Bits<32>>,
    ahead_val: Signal<Local, Bits<32>>,
    /// Partial products of den * v and num * S, two at a time (four 32-bit pair sums each).
    pp_lo: Signal<Local, Bits<32>>,
    pp_hi: Signal<Local, Bits<32>>,
    pp_pair: Signal<Local, Bits<32>>,
    den_pairs: Signal<Local, Bits<128>>,
    num_pairs: Signal<Local, Bits<128>>,
    cal_done: Signal<Local, Bit>,
    cancel_now: Signal<Local, Bit>,
    flags_lanes: Signal<Local, Bits<PP>>,
    cal_key_port: Signal<Local, Bits<KB>>,
    cal_port: Signal<Local, Bits<PB>>,
    below_port: Signal<Local, Bits<PP>>,
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize, const W: usize>
    Calibrate<PB, PP, K, KB, W>
{
    pub fn new(cfg: &CapfcConfig) -> Self {
        Calibrate {
            clock: Default::default(),
            reset: Default::default(),
            serving: Default::default(),
            served_key: Default::default(),
            served_row: Default::default(),
            key: Default::default(),
            row_new: Default::default(),
            trigger: Default::default(),
            withdraw: Default::default(),
            withdraw_key: Default::default(),
            cut: Default::default(),
            enabled: Default::default(),
            requesting: Default::default(),
            serve_key: Default::default(),
            serve_onehot: Default::default(),
            busy: Default::default(),
            cal_key: Default::default(),
            result: Default::default(),
            flags: Default::default(),
            cal_row: CalRow::new(cfg.ports as usize - 1),
            prio_bits: Constant::new(u64::from(cfg.prio_bits()).into()),
            one_k: Constant::new(1u64.into()),
            one_kb: Constant::new(1u64.into()),
            one_pp: Constant::new(1u64.into()),
            pending: Default::default(),
            rr_before: Default::default(),
            cal_busy: Default::default(),
            cal_summed: Default::default(),
            cal_scaled: Default::default(),
            cal_cancel: Default::default(),
            cal_key_r: Default::default(),
            cal_cut: Default::default(),
            cal_total: Default::default(),
            cal_rem: Default::default(),
            cal_dv: Default::default(),
            pend_above: Default::default(),
            pend_cand: Default::default(),
            pend_grant: Default::default(),
            served_next: Default::default(),
            served_before: Default::default(),
            key_onehot: Default::default(),
            served_onehot: Default::default(),
            direct: Default::default(),
            withdraw_onehot: Default::default(),
            pending_left: Default::default(),
            serve_capture: Default::default(),
            capture: Default::default(),
            den: Default::default(),
            num: Default::default(),
            den_ahead: Default::default(),
            ahead_val: Default::default(),
            num_total: Default::default(),
            pp_lo: Default::default(),
            pp_hi: Default::default(),
            pp_pair: Default::default(),
            den_pairs: Default::default(),
            num_pairs: Default::default(),
            cal_done: Default::default(),
            cancel_now: Default::default(),
            flags_lanes: Default::default(),
            cal_key_port: Default::default(),
            cal_port: Default::default(),
            below_port: Default::default(),
        }
    }
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize, const W: usize> Logic
    for Calibrate<PB, PP, K, KB, W>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, pending, rr_before, cal_busy, cal_summed, cal_scaled, cal_cancel,
            cal_key_r, cal_cut, cal_total, cal_rem, cal_dv
        );
        self.cal_row.clock.next = self.clock.val();
        self.cal_row.next_counts.next = self.cal_row.counts.val();
        self.cal_row.next_flagged.next = self.cal_row.flagged.val();
        // Idle or summing: the flags as they are (none after a capture), and `ahead` is stale.
        self.cal_row.sel_flagged.next = self.cal_row.flagged.val();

        // The pending request at or after the round-robin pointer.
        self.pend_above.next = self.pending.q.val() & !self.rr_before.q.val();
        if self.pend_above.val().any() {
            self.pend_cand.next = self.pend_above.val();
        } else {
            self.pend_cand.next = self.pending.q.val();
        }
        self.pend_grant.next = self.pend_cand.val() & (!self.pend_cand.val() + self.one_k.val());
        // The grant is one-hot (or empty): its key is an OR of the indices, a tree per bit.
        self.serve_key.next = 0.into();
        for k in 0..K {
            if self.pend_grant.val().get_bit(k) {
                self.serve_key.next = self.serve_key.val() | k.to_bits::<KB>();
            }
        }
        self.serve_onehot.next = self.pend_grant.val();

        // Requests: a dequeue withdraws one; the row port B read starts its request on an
        // idle engine; a trigger starts at once only on an idle engine with nothing waiting,
        // else it waits (also behind the request served now, even its own row's).
        self.key_onehot.next = self.one_k.val() << self.key.val();
        self.served_onehot.next = self.one_k.val() << self.served_key.val();
        self.served_next.next = self.served_key.val() + self.one_kb.val();
        self.served_before.next = (self.one_k.val() << self.served_next.val()) - self.one_k.val();
        self.withdraw_onehot.next = self.one_k.val() << self.withdraw_key.val();
        self.pending_left.next = self.pending.q.val();
        if self.withdraw.val() {
            self.pending_left.next = self.pending.q.val() & !self.withdraw_onehot.val();
        }
        self.serve_capture.next = self.serving.val()
            & !self.cal_busy.q.val()
            & self
                .pending_left
                .val()
                .get_bit(self.served_key.val().index());
        self.direct.next = self.trigger.val()
            & !self.cal_busy.q.val()
            & !self.serve_capture.val()
            & !self.pending_left.val().any();
        self.capture.next = self.direct.val() | self.serve_capture.val();
        self.pending.d.next = self.pending_left.val();
        if self.serve_capture.val() {
            self.pending.d.next = self.pending_left.val() & !self.served_onehot.val();
            self.rr_before.d.next = self.served_before.val();
        }
        if self.trigger.val() & !self.direct.val() {
            self.pending.d.next = self.pending.d.val() | self.key_onehot.val();
        }

        // ---- The engine: sum, scale, then one largest remaining counter per edge.
        self.den.next = self.cal_cut.q.val().get_bits::<8>(8);
        self.num.next = self.cal_cut.q.val().get_bits::<8>(0);
        self.ahead_val.next = bit_cast::<32, 16>(self.cal_row.ahead_val.val());
        // den * v (of the lane flagged next) and num * S by shift and add (8-bit factors): four
        // pair sums in parallel, then a balanced sum of the pairs, three adders deep.
        self.den_pairs.next = 0.into();
        self.num_pairs.next = 0.into();
        for b in 0..4 {
            self.pp_lo.next = 0.into();
            self.pp_hi.next = 0.into();
            if self.den.val().get_bit(2 * b) {
                self.pp_lo.next = self.ahead_val.val() << (2 * b).to_bits::<8>();
            }
            if self.den.val().get_bit(2 * b + 1) {
                self.pp_hi.next = self.ahead_val.val() << (2 * b + 1).to_bits::<8>();
            }
            self.pp_pair.next = self.pp_lo.val() + self.pp_hi.val();
            self.den_pairs.next = self.den_pairs.val()
                | (bit_cast::<128, 32>(self.pp_pair.val()) << (b * 32).to_bits::<8>());
            self.pp_lo.next = 0.into();
            self.pp_hi.next = 0.into();
            if self.num.val().get_bit(2 * b) {
                self.pp_lo.next = self.cal_total.q.val() << (2 * b).to_bits::<8>();
            }
            if self.num.val().get_bit(2 * b + 1) {
                self.pp_hi.next = self.cal_total.q.val() << (2 * b + 1).to_bits::<8>();
            }
            self.pp_pair.next = self.pp_lo.val() + self.pp_hi.val();
            self.num_pairs.next = self.num_pairs.val()
                | (bit_cast::<128, 32>(self.pp_pair.val()) << (b * 32).to_bits::<8>());
        }
        self.den_ahead.next = (self.den_pairs.val().get_bits::<32>(0)
            + self.den_pairs.val().get_bits::<32>(32))
            + (self.den_pairs.val().get_bits::<32>(64) + self.den_pairs.val().get_bits::<32>(96));
        self.num_total.next = (self.num_pairs.val().get_bits::<32>(0)
            + self.num_pairs.val().get_bits::<32>(32))
            + (self.num_pairs.val().get_bits::<32>(64) + self.num_pairs.val().get_bits::<32>(96));
        self.cal_dv.d.next = self.den_ahead.val();
        self.cancel_now.next = self.cal_cancel.q.val()
            | (self.withdraw.val() & (self.withdraw_key.val() == self.cal_key_r.q.val()));
        self.cal_done.next = false;
        if self.cal_busy.q.val() {
            self.cal_cancel.d.next = self.cancel_now.val();
            if !self.cal_summed.q.val() {
                self.cal_total.d.next = self.cal_row.sum.val();
                self.cal_summed.d.next = true;
            } else if !self.cal_scaled.q.val() {
                // `ahead` holds the first lane to flag; the selection goes on to the second.
                self.cal_rem.d.next = self.num_total.val();
                self.cal_scaled.d.next = true;
                self.cal_row.sel_flagged.next =
                    self.cal_row.flagged.val() | self.cal_row.ahead.val();
            } else {
                // Flag `sel`; done when it reaches CUT or leaves no candidate (`ahead` empty),
                // or when there was none to flag.
                self.cal_row.next_flagged.next =
                    self.cal_row.flagged.val() | self.cal_row.sel.val();
                self.cal_row.sel_flagged.next =
                    self.cal_row.flagged.val() | self.cal_row.sel.val() | self.cal_row.ahead.val();
                self.cal_rem.d.next = self.cal_rem.q.val() - self.cal_dv.q.val();
                self.cal_done.next = !self.cal_row.sel.val().any()
                    | !self.cal_row.ahead.val().any()
                    | (self.cal_dv.q.val() >= self.cal_rem.q.val());
            }
        }
        if self.cal_done.val() {
            self.cal_busy.d.next = false;
        }
        self.result.next = self.cal_done.val() & !self.cancel_now.val() & self.enabled.val();
        // Lanes back to inputs: lanes at and above the egress port move up by one.
        self.flags_lanes.next = self.cal_row.flagged.val() | self.cal_row.sel.val();
        self.cal_key_port.next = self.cal_key_r.q.val() >> self.prio_bits.val();
        self.cal_port.next = bit_cast::<PB, KB>(self.cal_key_port.val());
        self.below_port.next = (self.one_pp.val() << self.cal_port.val()) - self.one_pp.val();
        self.flags.next = (self.flags_lanes.val() & self.below_port.val())
            | ((self.flags_lanes.val() & !self.below_port.val()) << 1);
        if self.capture.val() {
            self.cal_busy.d.next = true;
            self.cal_summed.d.next = false;
            self.cal_scaled.d.next = false;
            self.cal_cancel.d.next = false;
            self.cal_key_r.d.next = self.key.val();
            self.cal_cut.d.next = self.cut.val();
            self.cal_row.next_flagged.next = 0.into();
            self.cal_row.next_counts.next = self.row_new.val();
            if self.serve_capture.val() {
                self.cal_key_r.d.next = self.served_key.val();
                self.cal_row.next_counts.next = self.served_row.val();
            }
        }

        self.requesting.next = self.pending.q.val().any();
        self.busy.next = self.cal_busy.q.val();
        self.cal_key.next = self.cal_key_r.q.val();

        if self.reset.val() {
            self.pending.d.next = 0.into();
            self.rr_before.d.next = 0.into();
            self.cal_busy.d.next = false;
            self.cal_summed.d.next = false;
            self.cal_scaled.d.next = false;
            self.cal_cancel.d.next = false;
        }
    }
}
