//! TCD's input stage (the model's `sample_rx`, the dequeue's key check and `snapshot`'s
//! request) and its time: the events sampled at edge n, held for cycle n; the received frame of
//! the active mode; the address the entry RAMs read at edge n (the dequeue's key, or on a cycle
//! without a dequeue a pending snapshot's index); `now` and its half-wraps.
//!
//! Besides the cycle-n values it outputs what this edge loads (`next_*`, reset included), from
//! which [`super::entries::Entries`] prepares the next cycle's lookup.

use rust_hdl::prelude::*;
use switchcraft_core::mask;
use switchcraft_model::tcd::TcdConfig;

/// The input stage for ports of `PB` bits (`PP = 2^PB`) and keys of `KB = PB + 3` bits.
#[derive(LogicBlock)]
pub struct Capture<const PB: usize, const PP: usize, const KB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub rx_pfc_valid: Signal<In, Bit>,
    pub rx_pfc_port: Signal<In, Bits<PB>>,
    pub rx_pfc_prio: Signal<In, Bits<3>>,
    pub rx_pfc_quanta: Signal<In, Bits<16>>,
    pub rx_pfc_qlen: Signal<In, Bits<32>>,
    pub rx_credit_valid: Signal<In, Bit>,
    pub rx_credit_port: Signal<In, Bits<PB>>,
    pub rx_credit_vl: Signal<In, Bits<3>>,
    pub rx_credit_ok: Signal<In, Bit>,
    pub rx_credit_qlen: Signal<In, Bits<32>>,
    pub deq_valid: Signal<In, Bit>,
    pub deq_port: Signal<In, Bits<PB>>,
    pub deq_prio: Signal<In, Bits<3>>,
    pub deq_qlen: Signal<In, Bits<32>>,
    pub deq_ecn: Signal<In, Bits<2>>,
    /// The `mode` register (credit-based when set).
    pub mode: Signal<In, Bit>,
    /// The `prio_enable` register as this edge leaves it.
    pub prio_enable_next: Signal<In, Bits<8>>,
    /// The `entry_index` register as this edge leaves it (a copy is kept here, beside the
    /// lookup it addresses, rather than routed from the CSR bank), and its write strobe.
    pub entry_index_next: Signal<In, Bits<KB>>,
    pub snap_write: Signal<In, Bit>,

    /// Cycle n: the received frame of the active mode (valid on an existing entry, or bad),
    /// its queue length masked to `queue_bits`.
    pub rx_valid: Signal<Out, Bit>,
    pub rx_bad: Signal<Out, Bit>,
    pub rx_key: Signal<Out, Bits<KB>>,
    pub rx_stop: Signal<Out, Bit>,
    pub rx_qlen: Signal<Out, Bits<32>>,
    /// Cycle n: the dequeue (valid on an existing entry, or bad) and its fields.
    pub d_valid: Signal<Out, Bit>,
    pub d_bad: Signal<Out, Bit>,
    pub d_port: Signal<Out, Bits<PB>>,
    pub d_prio: Signal<Out, Bits<3>>,
    pub d_key: Signal<Out, Bits<KB>>,
    pub d_qlen: Signal<Out, Bits<32>>,
    pub d_ecn: Signal<Out, Bits<2>>,
    /// Cycle n: the dequeue's priority is enabled (`prio_enable` as edge n left it, decided at
    /// the edge: the per-key flags' updates start from a flip-flop).
    pub d_enabled: Signal<Out, Bit>,
    /// Cycle n: the RAMs were read for the snapshot, and its index names an existing entry.
    pub snap_read: Signal<Out, Bit>,
    pub snap_ok: Signal<Out, Bit>,
    /// A snapshot is requested or being read (the `entry_status` word).
    pub snap_busy: Signal<Out, Bits<32>>,
    /// Time of cycle n, and whether its top bit flips at this edge.
    pub now: Signal<Out, Bits<32>>,
    pub half_wrap: Signal<Out, Bit>,
    /// Edge n: the entry RAMs' read address, and what this edge captures for cycle n + 1: the
    /// frames of both buses (the bus of the mode is chosen after the edge, so that a write of
    /// `mode` is not on the path into the next cycle's lookups) and the dequeue.
    pub lookup_key: Signal<Out, Bits<KB>>,
    pub next_p_valid: Signal<Out, Bit>,
    pub next_p_key: Signal<Out, Bits<KB>>,
    pub next_p_stop: Signal<Out, Bit>,
    pub next_c_valid: Signal<Out, Bit>,
    pub next_c_key: Signal<Out, Bits<KB>>,
    pub next_c_stop: Signal<Out, Bit>,
    pub next_d_valid: Signal<Out, Bit>,
    pub next_d_key: Signal<Out, Bits<KB>>,

    port_ok: Constant<Bits<PP>>,
    prio_ok: Constant<Bits<8>>,
    time_mask: Constant<Bits<32>>,
    /// The bits of `now` below its top bit, and their value one count before they are all
    /// ones.
    time_low: Constant<Bits<32>>,
    before_low: Constant<Bits<32>>,
    queue_mask: Constant<Bits<32>>,
    one_32: Constant<Bits<32>>,

    p_valid: DFF<Bit>,
    p_bad: DFF<Bit>,
    p_key: DFF<Bits<KB>>,
    p_stop: DFF<Bit>,
    p_qlen: DFF<Bits<32>>,
    c_valid: DFF<Bit>,
    c_bad: DFF<Bit>,
    c_key: DFF<Bits<KB>>,
    c_stop: DFF<Bit>,
    c_qlen: DFF<Bits<32>>,
    d_valid_r: DFF<Bit>,
    d_bad_r: DFF<Bit>,
    d_port_r: DFF<Bits<PB>>,
    d_prio_r: DFF<Bits<3>>,
    d_qlen_r: DFF<Bits<32>>,
    d_ecn_r: DFF<Bits<2>>,
    d_enabled_r: DFF<Bit>,
    l_ok: DFF<Bit>,
    snap_pending: DFF<Bit>,
    /// The `entry_index` register's copy: equal to it on every cycle.
    entry_index: DFF<Bits<KB>>,
    snap_read_r: DFF<Bit>,
    now_r: DFF<Bits<32>>,
    /// `now`'s top bit flips at the next edge: its low bits are all ones. Registered, so the
    /// ages' stepping starts from a flip-flop instead of the counter's carry chain.
    half_wrap_r: DFF<Bit>,

    in_p_key: Signal<Local, Bits<KB>>,
    in_c_key: Signal<Local, Bits<KB>>,
    in_d_key: Signal<Local, Bits<KB>>,
    in_p_ok: Signal<Local, Bit>,
    in_c_ok: Signal<Local, Bit>,
    in_d_ok: Signal<Local, Bit>,
    count: Signal<Local, Bits<32>>,
}

impl<const PB: usize, const PP: usize, const KB: usize> Capture<PB, PP, KB> {
    pub fn new(cfg: &TcdConfig) -> Self {
        let mut port_ok = Bits::<PP>::default();
        for p in 0..PP {
            port_ok = port_ok.replace_bit(p, p < cfg.ports as usize);
        }
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        Capture {
            clock: Default::default(),
            reset: Default::default(),
            rx_pfc_valid: Default::default(),
            rx_pfc_port: Default::default(),
            rx_pfc_prio: Default::default(),
            rx_pfc_quanta: Default::default(),
            rx_pfc_qlen: Default::default(),
            rx_credit_valid: Default::default(),
            rx_credit_port: Default::default(),
            rx_credit_vl: Default::default(),
            rx_credit_ok: Default::default(),
            rx_credit_qlen: Default::default(),
            deq_valid: Default::default(),
            deq_port: Default::default(),
            deq_prio: Default::default(),
            deq_qlen: Default::default(),
            deq_ecn: Default::default(),
            mode: Default::default(),
            entry_index_next: Default::default(),
            snap_write: Default::default(),
            rx_valid: Default::default(),
            rx_bad: Default::default(),
            rx_key: Default::default(),
            rx_stop: Default::default(),
            rx_qlen: Default::default(),
            d_valid: Default::default(),
            d_bad: Default::default(),
            d_port: Default::default(),
            d_prio: Default::default(),
            d_key: Default::default(),
            d_qlen: Default::default(),
            d_ecn: Default::default(),
            d_enabled: Default::default(),
            prio_enable_next: Default::default(),
            snap_read: Default::default(),
            snap_ok: Default::default(),
            snap_busy: Default::default(),
            now: Default::default(),
            half_wrap: Default::default(),
            lookup_key: Default::default(),
            next_p_valid: Default::default(),
            next_p_key: Default::default(),
            next_p_stop: Default::default(),
            next_c_valid: Default::default(),
            next_c_key: Default::default(),
            next_c_stop: Default::default(),
            next_d_valid: Default::default(),
            next_d_key: Default::default(),
            port_ok: Constant::new(port_ok),
            prio_ok: Constant::new(mask(cfg.priorities).into()),
            time_mask: c32(mask(cfg.time_bits)),
            time_low: c32(mask(cfg.time_bits - 1)),
            before_low: c32(mask(cfg.time_bits - 1) - 1),
            queue_mask: c32(mask(cfg.queue_bits)),
            one_32: c32(1),
            p_valid: Default::default(),
            p_bad: Default::default(),
            p_key: Default::default(),
            p_stop: Default::default(),
            p_qlen: Default::default(),
            c_valid: Default::default(),
            c_bad: Default::default(),
            c_key: Default::default(),
            c_stop: Default::default(),
            c_qlen: Default::default(),
            d_valid_r: Default::default(),
            d_bad_r: Default::default(),
            d_port_r: Default::default(),
            d_prio_r: Default::default(),
            d_qlen_r: Default::default(),
            d_ecn_r: Default::default(),
            d_enabled_r: Default::default(),
            l_ok: Default::default(),
            snap_pending: Default::default(),
            entry_index: Default::default(),
            snap_read_r: Default::default(),
            now_r: Default::default(),
            half_wrap_r: Default::default(),
            in_p_key: Default::default(),
            in_c_key: Default::default(),
            in_d_key: Default::default(),
            in_p_ok: Default::default(),
            in_c_ok: Default::default(),
            in_d_ok: Default::default(),
            count: Default::default(),
        }
    }
}

impl<const PB: usize, const PP: usize, const KB: usize> Logic for Capture<PB, PP, KB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            p_valid,
            p_bad,
            p_key,
            p_stop,
            p_qlen,
            c_valid,
            c_bad,
            c_key,
            c_stop,
            c_qlen,
            d_valid_r,
            d_bad_r,
            d_port_r,
            d_prio_r,
            d_qlen_r,
            d_ecn_r,
            d_enabled_r,
            l_ok,
            snap_pending,
            entry_index,
            snap_read_r,
            now_r,
            half_wrap_r
        );

        // Edge n: keys, and whether they name an existing entry (else the event is bad).
        self.in_p_key.next = (bit_cast::<KB, PB>(self.rx_pfc_port.val()) << 3)
            | bit_cast::<KB, 3>(self.rx_pfc_prio.val());
        self.in_c_key.next = (bit_cast::<KB, PB>(self.rx_credit_port.val()) << 3)
            | bit_cast::<KB, 3>(self.rx_credit_vl.val());
        self.in_d_key.next =
            (bit_cast::<KB, PB>(self.deq_port.val()) << 3) | bit_cast::<KB, 3>(self.deq_prio.val());
        self.in_p_ok.next = self.port_ok.val().get_bit(self.rx_pfc_port.val().index())
            & self.prio_ok.val().get_bit(self.rx_pfc_prio.val().index());
        self.in_c_ok.next = self
            .port_ok
            .val()
            .get_bit(self.rx_credit_port.val().index())
            & self.prio_ok.val().get_bit(self.rx_credit_vl.val().index());
        self.in_d_ok.next = self.port_ok.val().get_bit(self.deq_port.val().index())
            & self.prio_ok.val().get_bit(self.deq_prio.val().index());
        self.p_valid.d.next = self.rx_pfc_valid.val() & self.in_p_ok.val();
        self.p_bad.d.next = self.rx_pfc_valid.val() & !self.in_p_ok.val();
        self.p_key.d.next = self.in_p_key.val();
        self.p_stop.d.next = self.rx_pfc_quanta.val().any();
        self.p_qlen.d.next = self.rx_pfc_qlen.val();
        self.c_valid.d.next = self.rx_credit_valid.val() & self.in_c_ok.val();
        self.c_bad.d.next = self.rx_credit_valid.val() & !self.in_c_ok.val();
        self.c_key.d.next = self.in_c_key.val();
        self.c_stop.d.next = !self.rx_credit_ok.val();
        self.c_qlen.d.next = self.rx_credit_qlen.val();
        self.d_valid_r.d.next = self.deq_valid.val() & self.in_d_ok.val();
        self.d_bad_r.d.next = self.deq_valid.val() & !self.in_d_ok.val();
        self.d_port_r.d.next = self.deq_port.val();
        self.d_prio_r.d.next = self.deq_prio.val();
        self.d_qlen_r.d.next = self.deq_qlen.val();
        self.d_ecn_r.d.next = self.deq_ecn.val();
        self.d_enabled_r.d.next = self
            .prio_enable_next
            .val()
            .get_bit(self.deq_prio.val().index());

        // The RAMs' read port is free on a cycle without a dequeue: a pending snapshot uses it.
        if self.deq_valid.val() {
            self.lookup_key.next = self.in_d_key.val();
        } else {
            self.lookup_key.next = self.entry_index.q.val();
        }
        self.l_ok.d.next = self
            .port_ok
            .val()
            .get_bit(self.entry_index.q.val().get_bits::<PB>(3).index())
            & self
                .prio_ok
                .val()
                .get_bit(self.entry_index.q.val().get_bits::<3>(0).index());
        self.entry_index.d.next = self.entry_index_next.val();
        self.snap_read_r.d.next = self.snap_pending.q.val() & !self.deq_valid.val();
        self.snap_pending.d.next =
            (self.snap_pending.q.val() & self.deq_valid.val()) | self.snap_write.val();

        // Time: a free-running counter; the per-key ages step when its top bit flips.
        self.count.next = (self.now_r.q.val() + self.one_32.val()) & self.time_mask.val();
        self.now_r.d.next = self.count.val();

        if self.reset.val() {
            self.p_valid.d.next = false;
            self.p_bad.d.next = false;
            self.c_valid.d.next = false;
            self.c_bad.d.next = false;
            self.d_valid_r.d.next = false;
            self.d_bad_r.d.next = false;
            self.snap_pending.d.next = false;
            self.snap_read_r.d.next = false;
            self.now_r.d.next = 0.into();
        }

        // Cycle n.
        if self.mode.val() {
            self.rx_valid.next = self.c_valid.q.val();
            self.rx_bad.next = self.c_bad.q.val();
            self.rx_key.next = self.c_key.q.val();
            self.rx_stop.next = self.c_stop.q.val();
            self.rx_qlen.next = self.c_qlen.q.val() & self.queue_mask.val();
        } else {
            self.rx_valid.next = self.p_valid.q.val();
            self.rx_bad.next = self.p_bad.q.val();
            self.rx_key.next = self.p_key.q.val();
            self.rx_stop.next = self.p_stop.q.val();
            self.rx_qlen.next = self.p_qlen.q.val() & self.queue_mask.val();
        }
        self.d_valid.next = self.d_valid_r.q.val();
        self.d_bad.next = self.d_bad_r.q.val();
        self.d_port.next = self.d_port_r.q.val();
        self.d_prio.next = self.d_prio_r.q.val();
        self.d_key.next = (bit_cast::<KB, PB>(self.d_port_r.q.val()) << 3)
            | bit_cast::<KB, 3>(self.d_prio_r.q.val());
        self.d_qlen.next = self.d_qlen_r.q.val();
        self.d_ecn.next = self.d_ecn_r.q.val();
        self.d_enabled.next = self.d_enabled_r.q.val();
        self.snap_read.next = self.snap_read_r.q.val();
        self.snap_ok.next = self.l_ok.q.val();
        self.snap_busy.next = 0.into();
        if self.snap_pending.q.val() | self.snap_read_r.q.val() {
            self.snap_busy.next = self.one_32.val();
        }
        self.now.next = self.now_r.q.val();
        // The next `now`'s low bits all ones, tested on this one (one count before), so the
        // increment's carry chain is not on the flag's path.
        self.half_wrap_r.d.next = ((self.now_r.q.val() & self.time_low.val())
            == self.before_low.val())
            & !self.reset.val();
        self.half_wrap.next = self.half_wrap_r.q.val();

        // What this edge loads, reset included.
        self.next_p_valid.next = self.p_valid.d.val();
        self.next_p_key.next = self.p_key.d.val();
        self.next_p_stop.next = self.p_stop.d.val();
        self.next_c_valid.next = self.c_valid.d.val();
        self.next_c_key.next = self.c_key.d.val();
        self.next_c_stop.next = self.c_stop.d.val();
        self.next_d_valid.next = self.d_valid_r.d.val();
        self.next_d_key.next = self.in_d_key.val();
    }
}
