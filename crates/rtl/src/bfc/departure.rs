//! BFC's departure (the model's `apply_deq`): the flow-table entry's count at its key, its
//! pause counter (when the packet was counted) and its queue's occupancy, each read as the
//! last edge left it. An underflow dequeues what is there and flags.

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
    /// Its entry's counts, and the lanes of its queue (bytes enqueued, dequeued) and of its
    /// pause counter (increments, decrements).
    pub ec: Signal<In, Bits<32>>,
    pub dc: Signal<In, Bits<32>>,
    pub qe: Signal<In, Bits<32>>,
    pub qd: Signal<In, Bits<32>>,
    pub pi: Signal<In, Bits<32>>,
    pub pd: Signal<In, Bits<32>>,

    /// The departure acts (valid, ready, on an existing queue and entry).
    pub act: Signal<Out, Bit>,
    /// The error flags it raises: a bad event, or an entry, queue or counter it finds empty.
    pub flags: Signal<Out, Bits<8>>,
    /// The entry's new departure count.
    pub dc_next: Signal<Out, Bits<32>>,
    /// Its pause counter: decremented (a counted packet), written (it was not 0 already);
    /// the counter before and after, and the new decrement count.
    pub pc_dec: Signal<Out, Bit>,
    pub pc_write: Signal<Out, Bit>,
    pub pc_old: Signal<Out, Bits<32>>,
    pub pc_after: Signal<Out, Bits<32>>,
    pub pd_next: Signal<Out, Bits<32>>,
    /// Its queue is left empty; the new dequeued-bytes count.
    pub emptied: Signal<Out, Bit>,
    pub qd_next: Signal<Out, Bits<32>>,
    /// `{egress, queue}` and `{ingress, upstream queue}`: its bits in the per-queue and
    /// per-counter vectors.
    pub qi: Signal<Out, Bits<16>>,
    pub j: Signal<Out, Bits<16>>,

    n_ports: Constant<Bits<8>>,
    n_queues: Constant<Bits<8>>,
    n_upstream: Constant<Bits<8>>,
    m_entries: Constant<Bits<32>>,
    queue_bits: Constant<Bits<8>>,
    upstream_bits: Constant<Bits<8>>,
    size_mask: Constant<Bits<32>>,
    occ_max: Constant<Bits<32>>,
    pc_max: Constant<Bits<32>>,
    one_32: Constant<Bits<32>>,
    f_bad_event: Constant<Bits<8>>,
    f_size_underflow: Constant<Bits<8>>,
    f_qlen_underflow: Constant<Bits<8>>,
    f_pc_underflow: Constant<Bits<8>>,

    ok: Signal<Local, Bit>,
    size_under: Signal<Local, Bit>,
    pc_under: Signal<Local, Bit>,
    ql_under: Signal<Local, Bit>,
    size: Signal<Local, Bits<32>>,
    ql_old: Signal<Local, Bits<32>>,
    ql_new: Signal<Local, Bits<32>>,
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
            ec: Default::default(),
            dc: Default::default(),
            qe: Default::default(),
            qd: Default::default(),
            pi: Default::default(),
            pd: Default::default(),
            act: Default::default(),
            flags: Default::default(),
            dc_next: Default::default(),
            pc_dec: Default::default(),
            pc_write: Default::default(),
            pc_old: Default::default(),
            pc_after: Default::default(),
            pd_next: Default::default(),
            emptied: Default::default(),
            qd_next: Default::default(),
            qi: Default::default(),
            j: Default::default(),
            n_ports: c8(cfg.ports.into()),
            n_queues: c8(cfg.queues.into()),
            n_upstream: c8(cfg.upstream_queues.into()),
            m_entries: c32(cfg.entries_per_port()),
            queue_bits: c8(cfg.queue_bits().into()),
            upstream_bits: c8(cfg.upstream_bits().into()),
            size_mask: c32(mask(cfg.size_bits)),
            occ_max: c32(mask(cfg.occupancy_bits)),
            pc_max: c32(mask(cfg.pc_bits)),
            one_32: c32(1),
            f_bad_event: c8(err::BAD_EVENT),
            f_size_underflow: c8(err::SIZE_UNDERFLOW),
            f_qlen_underflow: c8(err::QLEN_UNDERFLOW),
            f_pc_underflow: c8(err::PC_UNDERFLOW),
            ok: Default::default(),
            size_under: Default::default(),
            pc_under: Default::default(),
            ql_under: Default::default(),
            size: Default::default(),
            ql_old: Default::default(),
            ql_new: Default::default(),
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

        // The entry: size = enq_count - deq_count; an empty entry stays empty.
        self.size.next = (self.ec.val() - self.dc.val()) & self.size_mask.val();
        self.size_under.next = !self.size.val().any();
        self.dc_next.next = self.dc.val();
        if self.size.val().any() {
            self.dc_next.next = (self.dc.val() + self.one_32.val()) & self.size_mask.val();
        }

        // The pause counter: increments - decrements.
        self.j.next = (bit_cast::<16, 6>(self.in_port.val()) << self.upstream_bits.val())
            | bit_cast::<16, 7>(self.upq.val());
        self.pc_old.next = (self.pi.val() - self.pd.val()) & self.pc_max.val();
        self.pc_dec.next = self.act.val() & self.cnt.val();
        self.pc_under.next = self.pc_dec.val() & !self.pc_old.val().any();
        self.pc_write.next = self.pc_dec.val() & self.pc_old.val().any();
        self.pd_next.next = self.pd.val() + self.one_32.val();
        self.pc_after.next = self.pc_old.val();
        if self.pc_write.val() {
            self.pc_after.next = self.pc_old.val() - self.one_32.val();
        }

        // The queue: enqueued - dequeued bytes; an underflow dequeues what is there, so the
        // queue reads 0.
        self.qi.next = (bit_cast::<16, 6>(self.eg.val()) << self.queue_bits.val())
            | bit_cast::<16, 7>(self.q.val());
        self.ql_old.next = (self.qe.val() - self.qd.val()) & self.occ_max.val();
        self.ql_under.next =
            self.act.val() & (self.ql_old.val() < bit_cast::<32, 16>(self.len.val()));
        self.ql_new.next = self.ql_old.val() - bit_cast::<32, 16>(self.len.val());
        self.qd_next.next = self.qd.val() + bit_cast::<32, 16>(self.len.val());
        if self.ql_under.val() {
            self.ql_new.next = 0.into();
            self.qd_next.next = self.qe.val();
        }
        self.emptied.next = self.act.val() & !self.ql_new.val().any();

        self.flags.next = 0.into();
        if self.valid.val() & self.ready.val() & !self.ok.val() {
            self.flags.next = self.f_bad_event.val();
        }
        if self.act.val() & self.size_under.val() {
            self.flags.next = self.flags.val() | self.f_size_underflow.val();
        }
        if self.ql_under.val() {
            self.flags.next = self.flags.val() | self.f_qlen_underflow.val();
        }
        if self.pc_under.val() {
            self.flags.next = self.flags.val() | self.f_pc_underflow.val();
        }
    }
}
