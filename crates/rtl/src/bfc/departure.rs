//! BFC's departure in the lookup stage (the model's `apply_deq` without the pause counter):
//! the flow-table entry's count at its key and its queue's occupancy, which the arrival of the
//! same cycle needs (an emptied queue is a candidate for a new flow). An underflow dequeues
//! what is there and flags. The pause counter is the accounting stage's (`arrival.rs`).
//!
//! The arrival one edge older is in the accounting stage in this cycle and has not written its
//! bytes yet: when it went to this departure's queue, the queue before this departure is
//! `min(Q + its length, max)`, Q the lane as read. Whether that empties the queue is a
//! comparison of Q with `len - its length`, so the emptied bit costs one comparison after the
//! read, as without the older arrival.

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
    one_32: Constant<Bits<32>>,
    f_bad_event: Constant<Bits<8>>,
    f_size_underflow: Constant<Bits<8>>,
    f_qlen_underflow: Constant<Bits<8>>,

    ok: Signal<Local, Bit>,
    size_under: Signal<Local, Bit>,
    size: Signal<Local, Bits<32>>,
    /// The lane as read, and whether the older arrival adds to it.
    ql_read: Signal<Local, Bits<32>>,
    behind: Signal<Local, Bit>,
    /// `len - a_len` (17 bits: bit 16 set when the arrival is longer).
    len_over_a: Signal<Local, Bits<17>>,
    /// The enqueued count after the older arrival.
    qe_now: Signal<Local, Bits<32>>,
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
            one_32: c32(1),
            f_bad_event: c8(err::BAD_EVENT),
            f_size_underflow: c8(err::SIZE_UNDERFLOW),
            f_qlen_underflow: c8(err::QLEN_UNDERFLOW),
            ok: Default::default(),
            size_under: Default::default(),
            size: Default::default(),
            ql_read: Default::default(),
            behind: Default::default(),
            len_over_a: Default::default(),
            qe_now: Default::default(),
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
        self.ql_read.next = (self.qe.val() - self.qd.val()) & self.occ_max.val();
        self.behind.next = self.a_act.val()
            & (self.a_eg.val() == self.eg.val())
            & (self.a_q.val() == self.q.val());
        self.len_over_a.next =
            bit_cast::<17, 16>(self.len.val()) - bit_cast::<17, 16>(self.a_len.val());
        self.emptied_alone.next = self.ql_read.val() <= bit_cast::<32, 16>(self.len.val());
        self.under_alone.next = self.ql_read.val() < bit_cast::<32, 16>(self.len.val());
        // min(Q + a_len, max) <= len: Q + a_len <= len, or max <= len.
        self.emptied_behind.next = (!self.len_over_a.val().get_bit(16)
            & (self.ql_read.val() <= bit_cast::<32, 17>(self.len_over_a.val())))
            | (self.occ_max.val() <= bit_cast::<32, 16>(self.len.val()));
        // min(Q + a_len, max) < len: Q + a_len < len (max < len is impossible, lengths have
        // at most occupancy_bits bits).
        self.under_behind.next = !self.len_over_a.val().get_bit(16)
            & (self.ql_read.val() < bit_cast::<32, 17>(self.len_over_a.val()));
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
