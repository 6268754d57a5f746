//! BFC's departure in the lookup stage (the model's `apply_deq` without the pause counter):
//! the flow-table entry's count at its key and its queue's occupancy, which the arrival of the
//! same cycle needs (an emptied queue is a candidate for a new flow). An underflow dequeues
//! what is there and flags. The pause counter is the accounting stage's (`arrival.rs`).
//!
//! The arrival one edge older is in the accounting stage in this cycle and has not written its
//! bytes yet: when it went to this departure's queue, the queue before this departure is
//! `min(Q + its length, max)`, Q the lane as read. Whether that empties the queue is the sign
//! of `Q + its length - len - 1`, added from the lane's two counts and both lengths in one
//! carry chain, as without the older arrival.

use rust_hdl::prelude::*;
use switchcraft_core::mask;
use switchcraft_model::bfc::{err, BfcConfig};

#[derive(LogicBlock)]
pub struct Departure {
    /// Events are accepted in this cycle.
    pub ready: Signal<In, Bit>,
    /// Cycle n: the departure.
    pub valid: Signal<In, Bit>,
    pub eg: Signal<In, Bits<6>>,
    pub q: Signal<In, Bits<7>>,
    pub key: Signal<In, Bits<17>>,
    pub cnt: Signal<In, Bit>,
    pub in_port: Signal<In, Bits<6>>,
    pub upq: Signal<In, Bits<7>>,
    pub len: Signal<In, Bits<16>>,
    /// The packet did not count in its entry (unsampled or incast): the entry is left alone.
    pub skip: Signal<In, Bit>,
    /// Its entry's counts, and the lanes of its queue (bytes enqueued, dequeued) as the last
    /// edge left them.
    pub ec: Signal<In, Bits<32>>,
    pub dc: Signal<In, Bits<32>>,
    pub qe: Signal<In, Bits<32>>,
    pub qd: Signal<In, Bits<32>>,
    /// The arrival in the accounting stage (one edge older): it acts, its egress, queue and
    /// length.
    pub a_act: Signal<In, Bit>,
    pub a_eg: Signal<In, Bits<6>>,
    pub a_q: Signal<In, Bits<7>>,
    pub a_len: Signal<In, Bits<16>>,

    /// The departure acts (valid, ready, on an existing queue and entry).
    pub act: Signal<Out, Bit>,
    /// It acts and updates its flow-table entry.
    pub ft_act: Signal<Out, Bit>,
    /// The error flags it raises: a bad event, or an entry or queue it finds empty.
    pub flags: Signal<Out, Bits<8>>,
    /// The entry's new departure count.
    pub dc_next: Signal<Out, Bits<32>>,
    /// Its queue is left empty; the new dequeued-bytes count.
    pub emptied: Signal<Out, Bit>,
    pub qd_next: Signal<Out, Bits<32>>,
    /// `{egress, queue}`: its bit in the per-queue vectors.
    pub qi: Signal<Out, Bits<16>>,

    n_ports: Constant<Bits<8>>,
    n_queues: Constant<Bits<8>>,
    n_upstream: Constant<Bits<8>>,
    m_entries: Constant<Bits<32>>,
    queue_bits: Constant<Bits<8>>,
    size_mask: Constant<Bits<32>>,
    occ_max: Constant<Bits<32>>,
    occ_bits: Constant<Bits<8>>,
    one_34: Constant<Bits<34>>,
    one_32: Constant<Bits<32>>,
    f_bad_event: Constant<Bits<8>>,
    f_size_underflow: Constant<Bits<8>>,
    f_qlen_underflow: Constant<Bits<8>>,

    ok: Signal<Local, Bit>,
    size_under: Signal<Local, Bit>,
    size: Signal<Local, Bits<32>>,
    /// The older arrival adds to the lane read.
    behind: Signal<Local, Bit>,
    /// The enqueued count after the older arrival.
    qe_now: Signal<Local, Bits<32>>,
    /// Whether the queue is emptied or underflows (see the update): the operands at 34 bits
    /// (enqueued, dequeued inverted, the older arrival's length, this length inverted), their
    /// carry-save sums, the two totals, and whether the count wrapped.
    e_count: Signal<Local, Bits<32>>,
    d_count: Signal<Local, Bits<32>>,
    op_e: Signal<Local, Bits<34>>,
    op_nd: Signal<Local, Bits<34>>,
    op_a: Signal<Local, Bits<34>>,
    op_nl: Signal<Local, Bits<34>>,
    sum_1: Signal<Local, Bits<34>>,
    carry_1: Signal<Local, Bits<34>>,
    sum_2: Signal<Local, Bits<34>>,
    carry_2: Signal<Local, Bits<34>>,
    total_alone: Signal<Local, Bits<34>>,
    total_behind: Signal<Local, Bits<34>>,
    /// The totals from bit b up.
    sign_alone_wide: Signal<Local, Bits<34>>,
    sign_behind_wide: Signal<Local, Bits<34>>,
    occ_max_34: Constant<Bits<34>>,
    wrapped: Signal<Local, Bit>,
    /// The queue (plus the older arrival's bytes) is at most `len`; exactly `len`.
    fits_behind: Signal<Local, Bit>,
    exact_alone: Signal<Local, Bit>,
    exact_behind: Signal<Local, Bit>,
    emptied_alone: Signal<Local, Bit>,
    emptied_behind: Signal<Local, Bit>,
    under_alone: Signal<Local, Bit>,
    under_behind: Signal<Local, Bit>,
    ql_under: Signal<Local, Bit>,
}

impl Departure {
    pub fn new(cfg: &BfcConfig) -> Self {
        let c8 = |v: u64| Constant::new(Bits::<8>::from(v));
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        Departure {
            ready: Default::default(),
            valid: Default::default(),
            eg: Default::default(),
            q: Default::default(),
            key: Default::default(),
            cnt: Default::default(),
            in_port: Default::default(),
            upq: Default::default(),
            len: Default::default(),
            skip: Default::default(),
            ec: Default::default(),
            dc: Default::default(),
            qe: Default::default(),
            qd: Default::default(),
            a_act: Default::default(),
            a_eg: Default::default(),
            a_q: Default::default(),
            a_len: Default::default(),
            act: Default::default(),
            ft_act: Default::default(),
            flags: Default::default(),
            dc_next: Default::default(),
            emptied: Default::default(),
            qd_next: Default::default(),
            qi: Default::default(),
            n_ports: c8(cfg.ports.into()),
            n_queues: c8(cfg.queues.into()),
            n_upstream: c8(cfg.upstream_queues.into()),
            m_entries: c32(cfg.entries_per_port()),
            queue_bits: c8(cfg.queue_bits().into()),
            size_mask: c32(mask(cfg.size_bits)),
            occ_max: c32(mask(cfg.occupancy_bits)),
            occ_bits: c8(cfg.occupancy_bits.into()),
            one_34: Constant::new(1u64.into()),
            one_32: c32(1),
            f_bad_event: c8(err::BAD_EVENT),
            f_size_underflow: c8(err::SIZE_UNDERFLOW),
            f_qlen_underflow: c8(err::QLEN_UNDERFLOW),
            ok: Default::default(),
            size_under: Default::default(),
            size: Default::default(),
            behind: Default::default(),
            qe_now: Default::default(),
            e_count: Default::default(),
            d_count: Default::default(),
            op_e: Default::default(),
            op_nd: Default::default(),
            op_a: Default::default(),
            op_nl: Default::default(),
            sum_1: Default::default(),
            carry_1: Default::default(),
            sum_2: Default::default(),
            carry_2: Default::default(),
            total_alone: Default::default(),
            total_behind: Default::default(),
            sign_alone_wide: Default::default(),
            sign_behind_wide: Default::default(),
            occ_max_34: Constant::new(mask(cfg.occupancy_bits).into()),
            wrapped: Default::default(),
            fits_behind: Default::default(),
            exact_alone: Default::default(),
            exact_behind: Default::default(),
            emptied_alone: Default::default(),
            emptied_behind: Default::default(),
            under_alone: Default::default(),
            under_behind: Default::default(),
            ql_under: Default::default(),
        }
    }
}

impl Logic for Departure {
    #[hdl_gen]
    fn update(&mut self) {
        self.ok.next = (bit_cast::<8, 6>(self.eg.val()) < self.n_ports.val())
            & self.q.val().any()
            & (bit_cast::<8, 7>(self.q.val()) < self.n_queues.val())
            & (bit_cast::<32, 17>(self.key.val()) < self.m_entries.val())
            & self.len.val().any()
            & (!self.cnt.val()
                | ((bit_cast::<8, 6>(self.in_port.val()) < self.n_ports.val())
                    & (bit_cast::<8, 7>(self.upq.val()) < self.n_upstream.val())));
        self.act.next = self.valid.val() & self.ready.val() & self.ok.val();
        self.ft_act.next = self.act.val() & !self.skip.val();

        // The entry: size = enq_count - deq_count; an empty entry stays empty.
        self.size.next = (self.ec.val() - self.dc.val()) & self.size_mask.val();
        self.size_under.next = !self.size.val().any();
        self.dc_next.next = self.dc.val();
        if self.size.val().any() {
            self.dc_next.next = (self.dc.val() + self.one_32.val()) & self.size_mask.val();
        }

        // The queue: enqueued - dequeued bytes, plus the older arrival when it went here
        // (saturating at max); an underflow dequeues what is there, so the queue reads 0.
        self.qi.next = (bit_cast::<16, 6>(self.eg.val()) << self.queue_bits.val())
            | bit_cast::<16, 7>(self.q.val());
        self.behind.next = self.a_act.val()
            & (self.a_eg.val() == self.eg.val())
            & (self.a_q.val() == self.q.val());
        // Emptied, the path into the lookup's queue choice: Q <= len, and with the older
        // arrival min(Q + a_len, max) <= len, i.e. Q + a_len <= len or max <= len. With
        // E, D the counts (b = occupancy_bits each) and w = [E < D], Q = E - D + 2^b w, so
        // Q (+ a_len) - len - 1 = T + 2^b w with T = E + ~D (+ a_len) + ~len + 1, and that
        // lies in [-2^b, 2^(b+1)): it is negative when bit b of T (bit b + 1 with a_len,
        // where adding 2^b w carries out of bit b) says so, and it is -1 (Q (+ a_len) is
        // exactly len, so no underflow) when it is negative with T's low b bits all ones.
        // The operands are added carry-save (LUTs) into one carry chain, beside the chain of
        // E < D, instead of Q and a comparison in series.
        self.e_count.next = self.qe.val() & self.occ_max.val();
        self.d_count.next = self.qd.val() & self.occ_max.val();
        self.op_e.next = bit_cast::<34, 32>(self.e_count.val());
        self.op_nd.next = !bit_cast::<34, 32>(self.d_count.val());
        self.op_a.next = bit_cast::<34, 16>(self.a_len.val());
        self.op_nl.next = !bit_cast::<34, 16>(self.len.val());
        self.wrapped.next = self.e_count.val() < self.d_count.val();
        self.sum_1.next = self.op_e.val() ^ self.op_nd.val() ^ self.op_nl.val();
        self.carry_1.next = ((self.op_e.val() & self.op_nd.val())
            | (self.op_e.val() & self.op_nl.val())
            | (self.op_nd.val() & self.op_nl.val()))
            << 1;
        self.total_alone.next = self.sum_1.val() + (self.carry_1.val() | self.one_34.val());
        self.sign_alone_wide.next = self.total_alone.val() >> self.occ_bits.val();
        self.emptied_alone.next = self.sign_alone_wide.val().get_bit(0) ^ self.wrapped.val();
        self.exact_alone.next =
            (self.total_alone.val() & self.occ_max_34.val()) == self.occ_max_34.val();
        self.under_alone.next = self.emptied_alone.val() & !self.exact_alone.val();
        self.sum_2.next = self.sum_1.val() ^ self.carry_1.val() ^ self.op_a.val();
        self.carry_2.next = ((self.sum_1.val() & self.carry_1.val())
            | (self.sum_1.val() & self.op_a.val())
            | (self.carry_1.val() & self.op_a.val()))
            << 1;
        self.total_behind.next = self.sum_2.val() + (self.carry_2.val() | self.one_34.val());
        self.sign_behind_wide.next = self.total_behind.val() >> self.occ_bits.val();
        self.fits_behind.next = self.sign_behind_wide.val().get_bit(1)
            ^ (self.wrapped.val() & self.sign_behind_wide.val().get_bit(0));
        self.emptied_behind.next =
            self.fits_behind.val() | (self.occ_max.val() <= bit_cast::<32, 16>(self.len.val()));
        // min(Q + a_len, max) < len: Q + a_len < len (max < len is impossible, lengths have
        // at most occupancy_bits bits).
        self.exact_behind.next =
            (self.total_behind.val() & self.occ_max_34.val()) == self.occ_max_34.val();
        self.under_behind.next = self.fits_behind.val() & !self.exact_behind.val();
        self.qe_now.next = self.qe.val();
        self.ql_under.next = self.act.val() & self.under_alone.val();
        self.emptied.next = self.act.val() & self.emptied_alone.val();
        if self.behind.val() {
            // The arrival's bytes, only needed for an underflow, which a saturated queue
            // (max bytes) cannot have.
            self.qe_now.next = self.qe.val() + bit_cast::<32, 16>(self.a_len.val());
            self.ql_under.next = self.act.val() & self.under_behind.val();
            self.emptied.next = self.act.val() & self.emptied_behind.val();
        }
        self.qd_next.next = self.qd.val() + bit_cast::<32, 16>(self.len.val());
        if self.ql_under.val() {
            self.qd_next.next = self.qe_now.val();
        }

        self.flags.next = 0.into();
        if self.valid.val() & self.ready.val() & !self.ok.val() {
            self.flags.next = self.f_bad_event.val();
        }
        if self.ft_act.val() & self.size_under.val() {
            self.flags.next = self.flags.val() | self.f_size_underflow.val();
        }
        if self.ql_under.val() {
            self.flags.next = self.flags.val() | self.f_qlen_underflow.val();
        }
    }
}
