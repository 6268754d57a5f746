//! BFC's input stage: the events and the register bus sampled at edge n and held for cycle n,
//! the arrival's key (the flow id's CRC-32C, reduced to `M` entries) and the addresses the
//! RAMs read at edge n, and the time.
//!
//! The arrival side of the RAMs reads the arrival's entry and rows, or on an edge without an
//! arrival the snapshot's; the departure side reads the departure's. The lanes known from
//! registers are formed here, so the counter-row RAMs get them from no other stage.

use super::FA;
use crate::flow_hash::crc_matrix;
use rust_hdl::prelude::*;
use switchcraft_core::mask;
use switchcraft_model::bfc::{err, BfcConfig, SNAP_TABLE_SHIFT};

#[derive(LogicBlock)]
pub struct Capture {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub enq_valid: Signal<In, Bit>,
    pub enq_in_port: Signal<In, Bits<6>>,
    pub enq_eg_port: Signal<In, Bits<6>>,
    pub enq_fid: Signal<In, Bits<64>>,
    pub enq_len: Signal<In, Bits<16>>,
    pub enq_upstream_q: Signal<In, Bits<7>>,
    pub enq_class: Signal<In, Bits<3>>,
    pub enq_incast: Signal<In, Bit>,
    pub deq_valid: Signal<In, Bit>,
    pub deq_eg_port: Signal<In, Bits<6>>,
    pub deq_queue: Signal<In, Bits<7>>,
    pub deq_ft_key: Signal<In, Bits<17>>,
    pub deq_counter_incr: Signal<In, Bit>,
    pub deq_ft_skip: Signal<In, Bit>,
    pub deq_in_port: Signal<In, Bits<6>>,
    pub deq_upstream_q: Signal<In, Bits<7>>,
    pub deq_len: Signal<In, Bits<16>>,
    pub rx_valid: Signal<In, Bit>,
    pub rx_port: Signal<In, Bits<6>>,
    pub rx_kind: Signal<In, Bits<2>>,
    pub rx_queue: Signal<In, Bits<7>>,
    pub rx_base: Signal<In, Bits<2>>,
    pub rx_bitmap: Signal<In, Bits<32>>,
    pub csr_we: Signal<In, Bit>,
    pub csr_addr: Signal<In, Bits<6>>,
    pub csr_wdata: Signal<In, Bits<32>>,
    /// The `snap_index` register as this edge leaves it, and its low bits as stored.
    pub snap_index_next: Signal<In, Bits<32>>,
    pub snap_index_low: Signal<In, Bits<8>>,
    /// Events are accepted in cycle n.
    pub ready: Signal<In, Bit>,

    /// Before edge n: the flow-table addresses `egress x M + key` of the arrival (or the
    /// snapshot's index) and of the departure.
    pub addr_a: Signal<Out, Bits<FA>>,
    pub addr_d: Signal<Out, Bits<FA>>,

    /// Cycle n: the arrival, its key and flow hash.
    pub e_valid: Signal<Out, Bit>,
    pub e_in: Signal<Out, Bits<6>>,
    pub e_eg: Signal<Out, Bits<6>>,
    pub e_len: Signal<Out, Bits<16>>,
    pub e_upq: Signal<Out, Bits<7>>,
    pub e_class: Signal<Out, Bits<3>>,
    pub e_incast: Signal<Out, Bit>,
    pub e_key: Signal<Out, Bits<17>>,
    pub e_hash: Signal<Out, Bits<32>>,
    /// Cycle n: the departure.
    pub d_valid: Signal<Out, Bit>,
    pub d_eg: Signal<Out, Bits<6>>,
    pub d_q: Signal<Out, Bits<7>>,
    pub d_key: Signal<Out, Bits<17>>,
    pub d_cnt: Signal<Out, Bit>,
    pub d_skip: Signal<Out, Bit>,
    pub d_in: Signal<Out, Bits<6>>,
    pub d_upq: Signal<Out, Bits<7>>,
    pub d_len: Signal<Out, Bits<16>>,
    /// Cycle n: the received frame.
    pub f_valid: Signal<Out, Bit>,
    pub f_port: Signal<Out, Bits<6>>,
    pub f_kind: Signal<Out, Bits<2>>,
    pub f_queue: Signal<Out, Bits<7>>,
    pub f_base: Signal<Out, Bits<2>>,
    pub f_bitmap: Signal<Out, Bits<32>>,
    /// Cycle n: the register bus.
    pub bus_we: Signal<Out, Bit>,
    pub bus_addr: Signal<Out, Bits<6>>,
    pub bus_wdata: Signal<Out, Bits<32>>,
    /// Cycle n: the arrival side's counter rows (the arrival's ports, or the snapshot's),
    /// which the accounting stage reads at edge n + 1, and its pause-counter lane; the
    /// snapshot's queue lane; the departure's lanes.
    pub qrow: Signal<Out, Bits<6>>,
    pub prow: Signal<Out, Bits<6>>,
    pub lane_p: Signal<Out, Bits<8>>,
    pub snap_lane_q: Signal<Out, Bits<8>>,
    pub d_lane_q: Signal<Out, Bits<8>>,
    pub d_lane_u: Signal<Out, Bits<8>>,
    /// The block is out of reset; the timestamp now (cycle n) and as this edge leaves it.
    pub live: Signal<Out, Bit>,
    pub now_ts: Signal<Out, Bits<32>>,
    pub now_ts_next: Signal<Out, Bits<32>>,
    /// The error flags of cycle n: an event before `ready`.
    pub flags: Signal<Out, Bits<8>>,

    /// 32 masks of 64 bits, bit b's at [64b+63:64b], and the hash of the zero key.
    crc_masks: Constant<Bits<2048>>,
    crc_zero: Constant<Bits<32>>,
    /// 32 - hash_bits, hash_bits.
    hash_drop: Constant<Bits<8>>,
    hash_bits: Constant<Bits<8>>,
    /// M, entries per port.
    /// Entries of a pipeline's slice of an egress port (M / pipelines), once and twice; the
    /// pipeline of each ingress port, 2 bits per port.
    slice_entries: Constant<Bits<32>>,
    slice_1: Constant<Bits<17>>,
    slice_2: Constant<Bits<17>>,
    pipe_of: Constant<Bits<128>>,
    m_entries_fa: Constant<Bits<FA>>,
    queue_bits: Constant<Bits<8>>,
    upstream_bits: Constant<Bits<8>>,
    snap_k_mask: Constant<Bits<32>>,
    q_lane_mask: Constant<Bits<8>>,
    u_lane_mask: Constant<Bits<8>>,
    ts_shift: Constant<Bits<8>>,
    ts_mask: Constant<Bits<32>>,
    one_48: Constant<Bits<48>>,
    f_not_ready: Constant<Bits<8>>,

    r_e_valid: DFF<Bit>,
    r_e_in: DFF<Bits<6>>,
    r_e_eg: DFF<Bits<6>>,
    r_e_len: DFF<Bits<16>>,
    r_e_upq: DFF<Bits<7>>,
    r_e_class: DFF<Bits<3>>,
    r_e_incast: DFF<Bit>,
    r_e_key: DFF<Bits<17>>,
    r_e_hash: DFF<Bits<32>>,
    r_d_valid: DFF<Bit>,
    r_d_eg: DFF<Bits<6>>,
    r_d_q: DFF<Bits<7>>,
    r_d_key: DFF<Bits<17>>,
    r_d_cnt: DFF<Bit>,
    r_d_skip: DFF<Bit>,
    r_d_in: DFF<Bits<6>>,
    r_d_upq: DFF<Bits<7>>,
    r_d_len: DFF<Bits<16>>,
    r_f_valid: DFF<Bit>,
    r_f_port: DFF<Bits<6>>,
    r_f_kind: DFF<Bits<2>>,
    r_f_queue: DFF<Bits<7>>,
    r_f_base: DFF<Bits<2>>,
    r_f_bitmap: DFF<Bits<32>>,
    r_bus_we: DFF<Bit>,
    r_bus_addr: DFF<Bits<6>>,
    r_bus_wdata: DFF<Bits<32>>,
    r_qrow: DFF<Bits<6>>,
    r_prow: DFF<Bits<6>>,
    r_live: DFF<Bit>,
    now: DFF<Bits<48>>,

    h_full: Signal<Local, Bits<32>>,
    h_top: Signal<Local, Bits<64>>,
    key_prod: Signal<Local, Bits<64>>,
    key_wide: Signal<Local, Bits<64>>,
    pipe_idx: Signal<Local, Bits<7>>,
    pipe_in: Signal<Local, Bits<2>>,
    key: Signal<Local, Bits<17>>,
    eg_m_e: Signal<Local, Bits<FA>>,
    eg_m_d: Signal<Local, Bits<FA>>,
    addr_e: Signal<Local, Bits<FA>>,
    snap_k: Signal<Local, Bits<32>>,
    snap_qrow_wide: Signal<Local, Bits<32>>,
    snap_prow_wide: Signal<Local, Bits<32>>,
    now_wide: Signal<Local, Bits<48>>,
    now_next: Signal<Local, Bits<48>>,
    /// Before edge n: the arrival side's counter rows.
    qrow_a: Signal<Local, Bits<6>>,
    prow_a: Signal<Local, Bits<6>>,
    now_next_wide: Signal<Local, Bits<48>>,
}

impl Capture {
    pub fn new(cfg: &BfcConfig) -> Self {
        let c8 = |v: u64| Constant::new(Bits::<8>::from(v));
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        let (masks, crc_zero) = crc_matrix(cfg.fid_bits.div_ceil(8) as usize);
        let mut pipe_of = Bits::<128>::default();
        for p in 0..cfg.ports {
            pipe_of =
                pipe_of | (Bits::<128>::from(u64::from(cfg.pipeline_of(p))) << u64::from(2 * p));
        }
        let mut crc_masks = Bits::<2048>::default();
        for (b, m) in masks.iter().enumerate() {
            crc_masks = crc_masks | (Bits::<2048>::from(*m) << (64 * b) as u64);
        }
        Capture {
            clock: Default::default(),
            reset: Default::default(),
            enq_valid: Default::default(),
            enq_in_port: Default::default(),
            enq_eg_port: Default::default(),
            enq_fid: Default::default(),
            enq_len: Default::default(),
            enq_upstream_q: Default::default(),
            enq_class: Default::default(),
            enq_incast: Default::default(),
            deq_valid: Default::default(),
            deq_eg_port: Default::default(),
            deq_queue: Default::default(),
            deq_ft_key: Default::default(),
            deq_counter_incr: Default::default(),
            deq_ft_skip: Default::default(),
            deq_in_port: Default::default(),
            deq_upstream_q: Default::default(),
            deq_len: Default::default(),
            rx_valid: Default::default(),
            rx_port: Default::default(),
            rx_kind: Default::default(),
            rx_queue: Default::default(),
            rx_base: Default::default(),
            rx_bitmap: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            snap_index_next: Default::default(),
            snap_index_low: Default::default(),
            ready: Default::default(),
            addr_a: Default::default(),
            addr_d: Default::default(),
            qrow_a: Default::default(),
            prow_a: Default::default(),
            e_valid: Default::default(),
            e_in: Default::default(),
            e_eg: Default::default(),
            e_len: Default::default(),
            e_upq: Default::default(),
            e_class: Default::default(),
            e_incast: Default::default(),
            e_key: Default::default(),
            e_hash: Default::default(),
            d_valid: Default::default(),
            d_eg: Default::default(),
            d_q: Default::default(),
            d_key: Default::default(),
            d_cnt: Default::default(),
            d_skip: Default::default(),
            d_in: Default::default(),
            d_upq: Default::default(),
            d_len: Default::default(),
            f_valid: Default::default(),
            f_port: Default::default(),
            f_kind: Default::default(),
            f_queue: Default::default(),
            f_base: Default::default(),
            f_bitmap: Default::default(),
            bus_we: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            qrow: Default::default(),
            prow: Default::default(),
            lane_p: Default::default(),
            snap_lane_q: Default::default(),
            d_lane_q: Default::default(),
            d_lane_u: Default::default(),
            live: Default::default(),
            now_ts: Default::default(),
            now_ts_next: Default::default(),
            flags: Default::default(),
            crc_masks: Constant::new(crc_masks),
            crc_zero: c32(u64::from(crc_zero)),
            hash_drop: c8(u64::from(32 - cfg.hash_bits)),
            hash_bits: c8(cfg.hash_bits.into()),
            slice_entries: c32(cfg.slice_entries()),
            slice_1: Constant::new(cfg.slice_entries().into()),
            slice_2: Constant::new((2 * cfg.slice_entries()).into()),
            pipe_of: Constant::new(pipe_of),
            m_entries_fa: Constant::new(cfg.entries_per_port().into()),
            queue_bits: c8(cfg.queue_bits().into()),
            upstream_bits: c8(cfg.upstream_bits().into()),
            snap_k_mask: c32(mask(SNAP_TABLE_SHIFT)),
            q_lane_mask: c8(mask(cfg.queue_bits())),
            u_lane_mask: c8(mask(cfg.upstream_bits())),
            ts_shift: c8(cfg.ts_shift.into()),
            ts_mask: c32(mask(cfg.ts_bits)),
            one_48: Constant::new(1u64.into()),
            f_not_ready: c8(err::NOT_READY),
            r_e_valid: Default::default(),
            r_e_in: Default::default(),
            r_e_eg: Default::default(),
            r_e_len: Default::default(),
            r_e_upq: Default::default(),
            r_e_class: Default::default(),
            r_e_incast: Default::default(),
            r_e_key: Default::default(),
            r_e_hash: Default::default(),
            r_d_valid: Default::default(),
            r_d_eg: Default::default(),
            r_d_q: Default::default(),
            r_d_key: Default::default(),
            r_d_cnt: Default::default(),
            r_d_skip: Default::default(),
            r_d_in: Default::default(),
            r_d_upq: Default::default(),
            r_d_len: Default::default(),
            r_f_valid: Default::default(),
            r_f_port: Default::default(),
            r_f_kind: Default::default(),
            r_f_queue: Default::default(),
            r_f_base: Default::default(),
            r_f_bitmap: Default::default(),
            r_bus_we: Default::default(),
            r_bus_addr: Default::default(),
            r_bus_wdata: Default::default(),
            r_qrow: Default::default(),
            r_prow: Default::default(),
            r_live: Default::default(),
            now: Default::default(),
            h_full: Default::default(),
            h_top: Default::default(),
            key_prod: Default::default(),
            key_wide: Default::default(),
            pipe_idx: Default::default(),
            pipe_in: Default::default(),
            key: Default::default(),
            eg_m_e: Default::default(),
            eg_m_d: Default::default(),
            addr_e: Default::default(),
            snap_k: Default::default(),
            snap_qrow_wide: Default::default(),
            snap_prow_wide: Default::default(),
            now_wide: Default::default(),
            now_next: Default::default(),
            now_next_wide: Default::default(),
        }
    }
}

impl Logic for Capture {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_e_valid,
            r_e_in,
            r_e_eg,
            r_e_len,
            r_e_upq,
            r_e_class,
            r_e_incast,
            r_e_key,
            r_e_hash,
            r_d_valid,
            r_d_eg,
            r_d_q,
            r_d_key,
            r_d_cnt,
            r_d_skip,
            r_d_in,
            r_d_upq,
            r_d_len,
            r_f_valid,
            r_f_port,
            r_f_kind,
            r_f_queue,
            r_f_base,
            r_f_bitmap,
            r_bus_we,
            r_bus_addr,
            r_bus_wdata,
            r_qrow,
            r_prow,
            r_live,
            now
        );
        // ---- Before edge n: the arrival's key (CRC-32C, top hash_bits bits times the slice
        // M / pipelines, in its ingress pipeline's slice) and the flow-table addresses
        // egress x M + key.
        self.h_full.next = self.crc_zero.val();
        for b in 0..32 {
            if (self.enq_fid.val() & self.crc_masks.val().get_bits::<64>(b * 64)).xor() {
                self.h_full.next = self
                    .h_full
                    .val()
                    .replace_bit(b, !self.h_full.val().get_bit(b));
            }
        }
        self.h_top.next = bit_cast::<64, 32>(self.h_full.val()) >> self.hash_drop.val();
        self.key_prod.next = 0.into();
        for b in 0..17 {
            if self.slice_entries.val().get_bit(b) {
                self.key_prod.next = self.key_prod.val() + (self.h_top.val() << b.to_bits::<8>());
            }
        }
        self.key_wide.next = self.key_prod.val() >> self.hash_bits.val();
        self.key.next = bit_cast::<17, 64>(self.key_wide.val());
        self.pipe_idx.next = bit_cast::<7, 6>(self.enq_in_port.val()) << 1;
        self.pipe_in.next = self
            .pipe_of
            .val()
            .get_bits::<2>(self.pipe_idx.val().index());
        if self.pipe_in.val().get_bit(0) {
            self.key.next = self.key.val() + self.slice_1.val();
        }
        if self.pipe_in.val().get_bit(1) {
            self.key.next = self.key.val() + self.slice_2.val();
        }
        self.eg_m_e.next = 0.into();
        self.eg_m_d.next = 0.into();
        for b in 0..6 {
            if self.enq_eg_port.val().get_bit(b) {
                self.eg_m_e.next =
                    self.eg_m_e.val() + (self.m_entries_fa.val() << b.to_bits::<8>());
            }
            if self.deq_eg_port.val().get_bit(b) {
                self.eg_m_d.next =
                    self.eg_m_d.val() + (self.m_entries_fa.val() << b.to_bits::<8>());
            }
        }
        self.addr_e.next = self.eg_m_e.val() + bit_cast::<FA, 17>(self.key.val());
        self.addr_d.next = self.eg_m_d.val() + bit_cast::<FA, 17>(self.deq_ft_key.val());
        // The arrival-side read port is free on an edge without an arrival: a snapshot uses
        // it, with the rows and lanes of its index.
        self.snap_k.next = self.snap_index_next.val() & self.snap_k_mask.val();
        self.snap_qrow_wide.next = self.snap_k.val() >> self.queue_bits.val();
        self.snap_prow_wide.next = self.snap_k.val() >> self.upstream_bits.val();
        if self.enq_valid.val() {
            self.addr_a.next = self.addr_e.val();
            self.qrow_a.next = self.enq_eg_port.val();
            self.prow_a.next = self.enq_in_port.val();
        } else {
            self.addr_a.next = bit_cast::<FA, 32>(self.snap_index_next.val());
            self.qrow_a.next = bit_cast::<6, 32>(self.snap_qrow_wide.val());
            self.prow_a.next = bit_cast::<6, 32>(self.snap_prow_wide.val());
        }
        self.r_qrow.d.next = self.qrow_a.val();
        self.r_prow.d.next = self.prow_a.val();

        self.r_e_valid.d.next = self.enq_valid.val();
        self.r_e_in.d.next = self.enq_in_port.val();
        self.r_e_eg.d.next = self.enq_eg_port.val();
        self.r_e_len.d.next = self.enq_len.val();
        self.r_e_upq.d.next = self.enq_upstream_q.val();
        self.r_e_class.d.next = self.enq_class.val();
        self.r_e_incast.d.next = self.enq_incast.val();
        self.r_e_key.d.next = self.key.val();
        self.r_e_hash.d.next = self.h_full.val();
        self.r_d_valid.d.next = self.deq_valid.val();
        self.r_d_eg.d.next = self.deq_eg_port.val();
        self.r_d_q.d.next = self.deq_queue.val();
        self.r_d_key.d.next = self.deq_ft_key.val();
        self.r_d_cnt.d.next = self.deq_counter_incr.val();
        self.r_d_skip.d.next = self.deq_ft_skip.val();
        self.r_d_in.d.next = self.deq_in_port.val();
        self.r_d_upq.d.next = self.deq_upstream_q.val();
        self.r_d_len.d.next = self.deq_len.val();
        self.r_f_valid.d.next = self.rx_valid.val();
        self.r_f_port.d.next = self.rx_port.val();
        self.r_f_kind.d.next = self.rx_kind.val();
        self.r_f_queue.d.next = self.rx_queue.val();
        self.r_f_base.d.next = self.rx_base.val();
        self.r_f_bitmap.d.next = self.rx_bitmap.val();
        self.r_bus_we.d.next = self.csr_we.val();
        self.r_bus_addr.d.next = self.csr_addr.val();
        self.r_bus_wdata.d.next = self.csr_wdata.val();

        // ---- Time: `now` counts edges since reset; timestamps are its bits from ts_shift.
        self.r_live.d.next = true;
        self.now_next.next = self.now.q.val();
        if self.r_live.q.val() {
            self.now_next.next = self.now.q.val() + self.one_48.val();
        }
        self.now.d.next = self.now_next.val();
        self.now_wide.next = self.now.q.val() >> self.ts_shift.val();
        self.now_next_wide.next = self.now_next.val() >> self.ts_shift.val();

        // ---- Cycle n.
        self.e_valid.next = self.r_e_valid.q.val();
        self.e_in.next = self.r_e_in.q.val();
        self.e_eg.next = self.r_e_eg.q.val();
        self.e_len.next = self.r_e_len.q.val();
        self.e_upq.next = self.r_e_upq.q.val();
        self.e_class.next = self.r_e_class.q.val();
        self.e_incast.next = self.r_e_incast.q.val();
        self.e_key.next = self.r_e_key.q.val();
        self.e_hash.next = self.r_e_hash.q.val();
        self.d_valid.next = self.r_d_valid.q.val();
        self.d_eg.next = self.r_d_eg.q.val();
        self.d_q.next = self.r_d_q.q.val();
        self.d_key.next = self.r_d_key.q.val();
        self.d_cnt.next = self.r_d_cnt.q.val();
        self.d_skip.next = self.r_d_skip.q.val();
        self.d_in.next = self.r_d_in.q.val();
        self.d_upq.next = self.r_d_upq.q.val();
        self.d_len.next = self.r_d_len.q.val();
        self.f_valid.next = self.r_f_valid.q.val();
        self.f_port.next = self.r_f_port.q.val();
        self.f_kind.next = self.r_f_kind.q.val();
        self.f_queue.next = self.r_f_queue.q.val();
        self.f_base.next = self.r_f_base.q.val();
        self.f_bitmap.next = self.r_f_bitmap.q.val();
        self.bus_we.next = self.r_bus_we.q.val();
        self.bus_addr.next = self.r_bus_addr.q.val();
        self.bus_wdata.next = self.r_bus_wdata.q.val();
        self.qrow.next = self.r_qrow.q.val();
        self.prow.next = self.r_prow.q.val();
        // Lanes from registers (the snapshot's from its index as stored): the counter rows
        // take them straight from here.
        self.d_lane_q.next = bit_cast::<8, 7>(self.r_d_q.q.val()) & self.q_lane_mask.val();
        self.d_lane_u.next = bit_cast::<8, 7>(self.r_d_upq.q.val()) & self.u_lane_mask.val();
        self.snap_lane_q.next = self.snap_index_low.val() & self.q_lane_mask.val();
        self.lane_p.next = self.snap_index_low.val() & self.u_lane_mask.val();
        if self.r_e_valid.q.val() {
            self.lane_p.next = bit_cast::<8, 7>(self.r_e_upq.q.val()) & self.u_lane_mask.val();
        }
        self.live.next = self.r_live.q.val();
        self.now_ts.next = bit_cast::<32, 48>(self.now_wide.val()) & self.ts_mask.val();
        self.now_ts_next.next = bit_cast::<32, 48>(self.now_next_wide.val()) & self.ts_mask.val();
        self.flags.next = 0.into();
        if !self.ready.val()
            & (self.r_e_valid.q.val() | self.r_d_valid.q.val() | self.r_f_valid.q.val())
        {
            self.flags.next = self.f_not_ready.val();
        }

        if self.reset.val() {
            self.r_e_valid.d.next = false;
            self.r_e_in.d.next = 0.into();
            self.r_e_eg.d.next = 0.into();
            self.r_e_len.d.next = 0.into();
            self.r_e_upq.d.next = 0.into();
            self.r_e_class.d.next = 0.into();
            self.r_e_incast.d.next = false;
            self.r_e_key.d.next = 0.into();
            self.r_e_hash.d.next = 0.into();
            self.r_d_valid.d.next = false;
            self.r_d_eg.d.next = 0.into();
            self.r_d_q.d.next = 0.into();
            self.r_d_key.d.next = 0.into();
            self.r_d_cnt.d.next = false;
            self.r_d_skip.d.next = false;
            self.r_d_in.d.next = 0.into();
            self.r_d_upq.d.next = 0.into();
            self.r_d_len.d.next = 0.into();
            self.r_f_valid.d.next = false;
            self.r_f_port.d.next = 0.into();
            self.r_f_kind.d.next = 0.into();
            self.r_f_queue.d.next = 0.into();
            self.r_f_base.d.next = 0.into();
            self.r_f_bitmap.d.next = 0.into();
            self.r_bus_we.d.next = false;
            self.r_bus_addr.d.next = 0.into();
            self.r_bus_wdata.d.next = 0.into();
            self.r_live.d.next = false;
            self.now.d.next = 0.into();
        }
    }
}
