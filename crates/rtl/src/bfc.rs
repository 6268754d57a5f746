//! BFC in rust-hdl: the register-transfer form of `switchcraft_model::bfc`.
//!
//! Contract and cycle semantics: docs/blocks/bfc.md and crates/model/src/bfc.rs. Pipeline,
//! initiation interval 1 on every bus:
//! * before edge n: the flow id is hashed (CRC-32C as an XOR matrix, see [`crate::flow_hash::crc_matrix`]) and
//!   reduced to its key; `egress x M + key` addresses the flow-table RAMs at edge n (the
//!   dequeue's stored key addresses the departure-side copies), the ports address the
//!   counter rows;
//! * cycle n, the lookup: the received frame, the departure (flow-table count and queue
//!   bytes) and the arrival's queue choice in that order, each seeing the one before, and
//!   the threshold the arrival will meet;
//! * edge n + 1: the lookup's RAM writes and registers; the accounting stage's registers;
//! * cycle n + 1, the accounting: the arrival's occupancy, both pause counters, PAUSE and
//!   RESUME, the bitmap timer, the snapshot's counters;
//! * edge n + 2: its RAM writes and the outputs.
//!
//! The core wires stage modules named after the model's functions, each in `bfc/`:
//! [`capture::Capture`] (the events, the key, the read addresses, the time),
//! [`flow_table::FlowTable`] (the table and its reset sweep), [`frames::Frames`] (`apply_rx`),
//! [`departure::Departure`] (`apply_deq`), [`lookup::Lookup`] and [`arrival::Arrival`]
//! (`apply_enq`: the queue, then occupancy, threshold and pause counter), [`tables::Tables`]
//! (Th and bpEn behind their register windows), [`bitmap::Bitmap`] (`bitmap_tick`) and
//! [`snapshot::Snapshot`]. Every stage's inputs come from ports, registers, the register bank
//! or other stages' outputs, and the stages form a chain within the cycle, so Verilator sees no
//! combinational loop between their `always` blocks.
//!
//! Queue occupancies and pause counters have two writers per cycle (+ by an arrival, - by a
//! departure), so each is kept as two counts, one per writer: bytes enqueued and dequeued per
//! queue, increments and decrements per pause counter, in [`CounterRowRam`]s of one row per
//! port (egress for queues, ingress for counters) with one lane per queue. The arrival's
//! queue is known only after the flow-table read, too late to address a RAM; its egress port
//! is known before the edge, so the RAM reads the row at the edge and the lane in the cycle.
//! Lane, Th and bpEn indices pass through masks of the bits the config uses, so synthesis
//! sees the unused part of every fixed-width row and table as constant. Per-(port, index) bit
//! vectors use `{port, index}` with the index's own bits, `N = 2^NB` entries.

mod arrival;
mod bitmap;
mod capture;
mod counters;
mod departure;
mod flow_table;
mod frames;
mod lookup;
mod snapshot;
mod tables;

use crate::csr_bank::{self, CsrBank};
use crate::narrow_ram::low_bits;
use arrival::Arrival;
use bitmap::Bitmap;
use capture::Capture;
use counters::Counters;
use departure::Departure;
use flow_table::FlowTable;
use frames::Frames;
use lookup::Lookup;
use rust_hdl::prelude::*;
use snapshot::Snapshot;
use switchcraft_model::bfc::{reg, regmap, BfcConfig};
use tables::Tables;

/// Address bits of the flow-table RAMs (409 600 entries at most).
const FA: usize = 20;
/// Bits of a bank-E word `{ts_enq, class, enq_count, q}`: 32 + 3 + 24 + 8 at most.
const EW: usize = 72;

/// Word slots of the CSR bank (the register map's indices 0..32: 24 + 8 classes) and their bits.
pub const CSR_SLOTS: usize = 32;
const CSR_BITS: usize = 32 * CSR_SLOTS;
/// Bits of an offset into the bank's `CSR_BITS`-bit buses.
const CSR_OFFSET_BITS: usize = 10;
type Bank = CsrBank<CSR_SLOTS, CSR_BITS, CSR_OFFSET_BITS>;

/// Bit q set for the data queues `1..queues` of a port's row: queue 0 is never picked by the
/// empty-queue search nor counted in N_active.
fn data_queues(cfg: &BfcConfig) -> Bits<128> {
    low_bits::<128>(cfg.queues as usize).replace_bit(0, false)
}

#[derive(LogicBlock)]
pub struct BfcCore<const NB: usize, const N: usize> {
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
    pub deq_in_port: Signal<In, Bits<6>>,
    pub deq_upstream_q: Signal<In, Bits<7>>,
    pub deq_len: Signal<In, Bits<16>>,
    pub deq_ft_skip: Signal<In, Bit>,
    pub rx_valid: Signal<In, Bit>,
    pub rx_port: Signal<In, Bits<6>>,
    pub rx_kind: Signal<In, Bits<2>>,
    pub rx_queue: Signal<In, Bits<7>>,
    pub rx_base: Signal<In, Bits<2>>,
    pub rx_bitmap: Signal<In, Bits<32>>,
    pub csr_we: Signal<In, Bit>,
    pub csr_addr: Signal<In, Bits<6>>,
    pub csr_wdata: Signal<In, Bits<32>>,

    pub ready: Signal<Out, Bit>,
    pub asg_valid: Signal<Out, Bit>,
    pub asg_refused: Signal<Out, Bit>,
    pub asg_queue: Signal<Out, Bits<7>>,
    pub asg_ft_key: Signal<Out, Bits<17>>,
    pub asg_counter_incr: Signal<Out, Bit>,
    pub asg_new: Signal<Out, Bit>,
    pub asg_ft_skip: Signal<Out, Bit>,
    pub pause_valid: Signal<Out, Bit>,
    pub pause_port: Signal<Out, Bits<6>>,
    pub pause_queue: Signal<Out, Bits<7>>,
    pub resume_valid: Signal<Out, Bit>,
    pub resume_port: Signal<Out, Bits<6>>,
    pub resume_queue: Signal<Out, Bits<7>>,
    pub bm_valid: Signal<Out, Bit>,
    pub bm_port: Signal<Out, Bits<6>>,
    pub bm_base: Signal<Out, Bits<2>>,
    pub bm_bits: Signal<Out, Bits<32>>,
    pub csr_rdata: Signal<Out, Bits<32>>,

    /// The registers; the core registers the bus at its input and writes the bank at the
    /// next edge, with the events of its own edge.
    pub csr: Bank,
    pub capture: Capture,
    pub flow_table: FlowTable,
    pub frames: Frames<N>,
    pub departure: Departure,
    pub tables: Tables,
    pub lookup: Lookup<N>,
    pub arrival: Arrival<N>,
    pub bitmap: Bitmap<N>,
    pub snapshot: Snapshot<NB, N>,
    pub counters: Counters,

    /// Bit offsets of the registers' words on the CSR bank's buses.
    at_mode: Constant<Bits<CSR_OFFSET_BITS>>,
    at_sticky: Constant<Bits<CSR_OFFSET_BITS>>,
    at_sample_rate: Constant<Bits<CSR_OFFSET_BITS>>,
    at_t_bm: Constant<Bits<CSR_OFFSET_BITS>>,
    at_status: Constant<Bits<CSR_OFFSET_BITS>>,
    at_err: Constant<Bits<CSR_OFFSET_BITS>>,
    at_now_ts: Constant<Bits<CSR_OFFSET_BITS>>,
    addr_th_data: Constant<Bits<6>>,
    at_port_speed: Constant<Bits<CSR_OFFSET_BITS>>,
    addr_bpen_lo: Constant<Bits<6>>,
    addr_bpen_hi: Constant<Bits<6>>,
    /// The registered read is of the Th or a bpEn window, which the tables return themselves
    /// (read at the edge, as the bank reads).
    r_rd_th: DFF<Bit>,
    r_rd_bpen_lo: DFF<Bit>,
    r_rd_bpen_hi: DFF<Bit>,
    at_snap_index: Constant<Bits<CSR_OFFSET_BITS>>,
    at_snap_data0: Constant<Bits<CSR_OFFSET_BITS>>,
    at_snap_data1: Constant<Bits<CSR_OFFSET_BITS>>,
    at_snap_data2: Constant<Bits<CSR_OFFSET_BITS>>,
    at_class0: Constant<Bits<CSR_OFFSET_BITS>>,
    /// The write strobes of the registers whose writes act here.
    lfsr_seed_written: Constant<Bits<CSR_SLOTS>>,
    snap_index_written: Constant<Bits<CSR_SLOTS>>,
    one_32: Constant<Bits<32>>,

    // ---- The assignment as the lookup leaves it (edge n + 1), and the outputs of edge n + 2
    // (`ready` of edge n + 1).
    s_asg_valid: DFF<Bit>,
    s_asg_refused: DFF<Bit>,
    s_asg_queue: DFF<Bits<7>>,
    s_asg_key: DFF<Bits<17>>,
    s_asg_new: DFF<Bit>,
    s_asg_skip: DFF<Bit>,
    o_ready: DFF<Bit>,
    o_asg_valid: DFF<Bit>,
    o_asg_refused: DFF<Bit>,
    o_asg_queue: DFF<Bits<7>>,
    o_asg_key: DFF<Bits<17>>,
    o_asg_cnt: DFF<Bit>,
    o_asg_new: DFF<Bit>,
    o_asg_skip: DFF<Bit>,

    flags: Signal<Local, Bits<8>>,
    status_word: Signal<Local, Bits<32>>,
}

impl<const NB: usize, const N: usize> BfcCore<NB, N> {
    pub fn new(cfg: &BfcConfig) -> Self {
        assert_eq!(1 << NB, N);
        assert!(cfg.port_bits() + cfg.queue_bits() <= NB as u32);
        assert!(cfg.port_bits() + cfg.upstream_bits() <= NB as u32);
        assert!(cfg.entries() <= 1 << FA);
        let map = regmap(cfg);
        let at = |name: &str| Bank::offset(&map, name);
        let (qb, ub) = (cfg.queue_bits() as usize, cfg.upstream_bits() as usize);
        // The {port, queue} and {port, upstream queue} bits this config has.
        let mut used_q = Bits::<N>::default();
        let mut used_u = Bits::<N>::default();
        for p in 0..cfg.ports as usize {
            used_q = used_q | (low_bits::<N>(cfg.queues as usize) << ((p << qb) as u64));
            used_u = used_u | (low_bits::<N>(cfg.upstream_queues as usize) << ((p << ub) as u64));
        }
        BfcCore {
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
            deq_in_port: Default::default(),
            deq_upstream_q: Default::default(),
            deq_len: Default::default(),
            deq_ft_skip: Default::default(),
            rx_valid: Default::default(),
            rx_port: Default::default(),
            rx_kind: Default::default(),
            rx_queue: Default::default(),
            rx_base: Default::default(),
            rx_bitmap: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            ready: Default::default(),
            asg_valid: Default::default(),
            asg_refused: Default::default(),
            asg_queue: Default::default(),
            asg_ft_key: Default::default(),
            asg_counter_incr: Default::default(),
            asg_new: Default::default(),
            asg_ft_skip: Default::default(),
            pause_valid: Default::default(),
            pause_port: Default::default(),
            pause_queue: Default::default(),
            resume_valid: Default::default(),
            resume_port: Default::default(),
            resume_queue: Default::default(),
            bm_valid: Default::default(),
            bm_port: Default::default(),
            bm_base: Default::default(),
            bm_bits: Default::default(),
            csr_rdata: Default::default(),
            csr: Bank::new(&map).reading_after(),
            capture: Capture::new(cfg),
            flow_table: FlowTable::new(cfg),
            frames: Frames::new(cfg, used_q),
            departure: Departure::new(cfg),
            tables: Tables::new(cfg),
            lookup: Lookup::new(cfg, used_q),
            arrival: Arrival::new(cfg, used_u),
            bitmap: Bitmap::new(cfg),
            snapshot: Snapshot::new(cfg),
            counters: Counters::new(cfg),
            at_mode: at("mode"),
            at_sticky: at("sticky"),
            at_sample_rate: at("sample_rate"),
            at_t_bm: at("t_bm"),
            at_status: at("status"),
            at_err: at("err"),
            at_now_ts: at("now_ts"),
            addr_th_data: Constant::new(u64::from(reg::TH_DATA).into()),
            at_port_speed: at("port_speed"),
            addr_bpen_lo: Constant::new(u64::from(reg::BPEN_LO).into()),
            // (bpen_hi exists above 32 ports; below, the tables read it as 0.)
            addr_bpen_hi: Constant::new(u64::from(reg::BPEN_HI).into()),
            r_rd_th: Default::default(),
            r_rd_bpen_lo: Default::default(),
            r_rd_bpen_hi: Default::default(),
            at_snap_index: at("snap_index"),
            at_snap_data0: at("snap_data0"),
            at_snap_data1: at("snap_data1"),
            at_snap_data2: at("snap_data2"),
            at_class0: at("class0"),
            lfsr_seed_written: Bank::strobe(&map, "lfsr_seed"),
            snap_index_written: Bank::strobe(&map, "snap_index"),
            one_32: Constant::new(1u64.into()),
            s_asg_valid: Default::default(),
            s_asg_refused: Default::default(),
            s_asg_queue: Default::default(),
            s_asg_key: Default::default(),
            s_asg_new: Default::default(),
            s_asg_skip: Default::default(),
            o_ready: Default::default(),
            o_asg_valid: Default::default(),
            o_asg_refused: Default::default(),
            o_asg_queue: Default::default(),
            o_asg_key: Default::default(),
            o_asg_cnt: Default::default(),
            o_asg_new: Default::default(),
            o_asg_skip: Default::default(),
            flags: Default::default(),
            status_word: Default::default(),
        }
    }
}

impl<const NB: usize, const N: usize> Logic for BfcCore<NB, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s_asg_valid,
            s_asg_refused,
            s_asg_queue,
            s_asg_key,
            s_asg_new,
            s_asg_skip,
            o_ready,
            o_asg_valid,
            o_asg_refused,
            o_asg_queue,
            o_asg_key,
            o_asg_cnt,
            o_asg_new,
            o_asg_skip,
            r_rd_th,
            r_rd_bpen_lo,
            r_rd_bpen_hi
        );
        self.csr.clock.next = self.clock.val();
        self.capture.clock.next = self.clock.val();
        self.flow_table.clock.next = self.clock.val();
        self.frames.clock.next = self.clock.val();
        self.tables.clock.next = self.clock.val();
        self.lookup.clock.next = self.clock.val();
        self.arrival.clock.next = self.clock.val();
        self.bitmap.clock.next = self.clock.val();
        self.snapshot.clock.next = self.clock.val();
        self.counters.clock.next = self.clock.val();
        self.csr.reset.next = self.reset.val();
        self.capture.reset.next = self.reset.val();
        self.flow_table.reset.next = self.reset.val();
        self.frames.reset.next = self.reset.val();
        self.tables.reset.next = self.reset.val();
        self.lookup.reset.next = self.reset.val();
        self.arrival.reset.next = self.reset.val();
        self.bitmap.reset.next = self.reset.val();
        self.snapshot.reset.next = self.reset.val();

        // ---- CSR bank: the bus registered at edge n is written at edge n + 1 with this cycle's
        // events, which see it (`value_next`); a read at edge n + 1 returns the word as that
        // edge leaves it (the bank reads after the edge).
        self.csr.we.next = self.capture.bus_we.val();
        self.csr.addr.next = self.capture.bus_addr.val();
        self.csr.wdata.next = self.capture.bus_wdata.val();
        self.csr.raddr.next = self.csr_addr.val();

        // ---- Before edge n: the events, and the addresses the RAMs read at edge n.
        self.capture.enq_valid.next = self.enq_valid.val();
        self.capture.enq_in_port.next = self.enq_in_port.val();
        self.capture.enq_eg_port.next = self.enq_eg_port.val();
        self.capture.enq_fid.next = self.enq_fid.val();
        self.capture.enq_len.next = self.enq_len.val();
        self.capture.enq_upstream_q.next = self.enq_upstream_q.val();
        self.capture.enq_class.next = self.enq_class.val();
        self.capture.enq_incast.next = self.enq_incast.val();
        self.capture.deq_valid.next = self.deq_valid.val();
        self.capture.deq_eg_port.next = self.deq_eg_port.val();
        self.capture.deq_queue.next = self.deq_queue.val();
        self.capture.deq_ft_key.next = self.deq_ft_key.val();
        self.capture.deq_counter_incr.next = self.deq_counter_incr.val();
        self.capture.deq_in_port.next = self.deq_in_port.val();
        self.capture.deq_upstream_q.next = self.deq_upstream_q.val();
        self.capture.deq_len.next = self.deq_len.val();
        self.capture.deq_ft_skip.next = self.deq_ft_skip.val();
        self.capture.rx_valid.next = self.rx_valid.val();
        self.capture.rx_port.next = self.rx_port.val();
        self.capture.rx_kind.next = self.rx_kind.val();
        self.capture.rx_queue.next = self.rx_queue.val();
        self.capture.rx_base.next = self.rx_base.val();
        self.capture.rx_bitmap.next = self.rx_bitmap.val();
        self.capture.csr_we.next = self.csr_we.val();
        self.capture.csr_addr.next = self.csr_addr.val();
        self.capture.csr_wdata.next = self.csr_wdata.val();
        self.capture.ready.next = self.flow_table.ready.val();
        self.capture.snap_index_low.next = self
            .csr
            .value
            .val()
            .get_bits::<8>(self.at_snap_index.val().index());
        self.capture.snap_index_next.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_snap_index.val().index());
        self.flow_table.read_a.next = self.capture.addr_a.val();
        self.flow_table.read_d.next = self.capture.addr_d.val();
        self.counters.qrow_d.next = self.deq_eg_port.val();
        self.snapshot.enq_valid.next = self.enq_valid.val();

        // ---- The counter rows. The departure reads and writes its queue's dequeued bytes in
        // cycle n; the accounting stage reads the rows of cycle n's arrival (or snapshot) and
        // departure counter at edge n + 1 and writes them at edge n + 2.
        self.counters.qrow_a.next = self.capture.qrow.val();
        self.counters.prow_a.next = self.capture.prow.val();
        self.counters.prow_d.next = self.capture.d_in.val();
        self.counters.lane_qa.next = self.arrival.s_lane_q.val();
        self.counters.lane_pa.next = self.arrival.s_lane_p.val();
        self.counters.lane_qd.next = self.capture.d_lane_q.val();
        self.counters.lane_pd.next = self.arrival.s_d_lane_u.val();
        self.counters.e_write.next = self.arrival.s_act.val();
        self.counters.e_row.next = self.arrival.s_eg.val();
        self.counters.qe_next.next = self.arrival.qe_next.val();
        self.counters.i_write.next = self.arrival.counted.val();
        self.counters.i_row.next = self.arrival.s_in.val();
        self.counters.pi_next.next = self.arrival.pi_next.val();
        self.counters.d_write.next = self.departure.act.val();
        self.counters.d_row.next = self.capture.d_eg.val();
        self.counters.qd_next.next = self.departure.qd_next.val();
        self.counters.dp_write.next = self.arrival.d_pc_write.val();
        self.counters.dp_row.next = self.arrival.s_d_in.val();
        self.counters.pd_next.next = self.arrival.pd_next.val();
        self.counters.sweep.next = self.flow_table.sweep.val();
        self.counters.sweep_row.next = self.flow_table.sweep_row.val();

        // ---- Cycle n: the flow table, the tables, the frame.
        self.flow_table.live.next = self.capture.live.val();
        self.flow_table.e_write.next = self.lookup.ft_write.val();
        self.flow_table.e_word.next = self.lookup.word_next.val();
        self.flow_table.d_write.next = self.departure.ft_act.val();
        self.flow_table.d_count.next = self.departure.dc_next.val();
        self.flow_table.d_ts.next = self.capture.now_ts.val();
        self.tables.write.next = self.csr.write.val();
        self.tables.wdata.next = self.capture.bus_wdata.val();
        self.tables.value.next = self.csr.value.val();
        self.tables.value_next.next = self.csr.value_next.val();
        self.frames.ready.next = self.flow_table.ready.val();
        self.frames.valid.next = self.capture.f_valid.val();
        self.frames.port.next = self.capture.f_port.val();
        self.frames.kind.next = self.capture.f_kind.val();
        self.frames.queue.next = self.capture.f_queue.val();
        self.frames.base.next = self.capture.f_base.val();
        self.frames.bitmap.next = self.capture.f_bitmap.val();

        // ---- The departure.
        self.departure.ready.next = self.flow_table.ready.val();
        self.departure.valid.next = self.capture.d_valid.val();
        self.departure.eg.next = self.capture.d_eg.val();
        self.departure.q.next = self.capture.d_q.val();
        self.departure.key.next = self.capture.d_key.val();
        self.departure.cnt.next = self.capture.d_cnt.val();
        self.departure.in_port.next = self.capture.d_in.val();
        self.departure.upq.next = self.capture.d_upq.val();
        self.departure.len.next = self.capture.d_len.val();
        self.departure.skip.next = self.capture.d_skip.val();
        self.departure.ec.next = self.flow_table.d_ec.val();
        self.departure.dc.next = self.flow_table.d_dc.val();
        self.departure.qe.next = self.counters.d_qe.val();
        self.departure.qd.next = self.counters.d_qd.val();
        self.departure.a_act.next = self.arrival.s_act.val();
        self.departure.a_eg.next = self.arrival.s_eg.val();
        self.departure.a_q.next = self.arrival.s_q.val();
        self.departure.a_len.next = self.arrival.s_len.val();

        // ---- The arrival's queue, with the registers as this edge's events see them.
        self.lookup.live.next = self.capture.live.val();
        self.lookup.ready.next = self.flow_table.ready.val();
        self.lookup.valid.next = self.capture.e_valid.val();
        self.lookup.in_port.next = self.capture.e_in.val();
        self.lookup.eg.next = self.capture.e_eg.val();
        self.lookup.upq.next = self.capture.e_upq.val();
        self.lookup.class_id.next = self.capture.e_class.val();
        self.lookup.incast.next = self.capture.e_incast.val();
        self.lookup.len.next = self.capture.e_len.val();
        self.lookup.hash.next = self.capture.e_hash.val();
        self.lookup.word.next = self.flow_table.a_word.val();
        self.lookup.dc.next = self.flow_table.a_dc.val();
        self.lookup.ts.next = self.flow_table.a_ts.val();
        self.lookup.same_entry.next = self.flow_table.same_entry.val();
        self.lookup.d_act.next = self.departure.ft_act.val();
        self.lookup.d_dc_next.next = self.departure.dc_next.val();
        self.lookup.d_emptied.next = self.departure.emptied.val();
        self.lookup.d_qi.next = self.departure.qi.val();
        self.lookup.d_eg.next = self.capture.d_eg.val();
        self.lookup.d_lane_q.next = self.capture.d_lane_q.val();
        self.lookup.now_ts.next = self.capture.now_ts.val();
        self.lookup.classes.next = self
            .csr
            .value_next
            .val()
            .get_bits::<256>(self.at_class0.val().index());
        self.lookup.next_class_id.next = self.enq_class.val();
        self.lookup.next_bus_we.next = self.csr_we.val();
        self.lookup.next_bus_addr.next = self.csr_addr.val();
        self.lookup.next_bus_wdata.next = self.csr_wdata.val().get_bits::<16>(0);
        self.lookup.mode.next = self
            .csr
            .value_next
            .val()
            .get_bits::<2>(self.at_mode.val().index());
        self.lookup.sticky.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_sticky.val().index());
        self.lookup.sample_rate.next = self
            .csr
            .value_next
            .val()
            .get_bits::<9>(self.at_sample_rate.val().index());
        self.lookup.reseed.next = (self.csr.write.val() & self.lfsr_seed_written.val()).any();
        self.lookup.seed.next = self.capture.bus_wdata.val();
        self.lookup.snap_lane_q.next = self.capture.snap_lane_q.val();

        // ---- The accounting stage: the arrival's occupancy, threshold and pause counter, and
        // the departure's pause counter, in cycle n + 1.
        self.arrival.act.next = self.lookup.act.val();
        self.arrival.in_port.next = self.capture.e_in.val();
        self.arrival.eg.next = self.capture.e_eg.val();
        self.arrival.upq.next = self.capture.e_upq.val();
        self.arrival.len.next = self.capture.e_len.val();
        self.arrival.lane_q.next = self.lookup.lane_q.val();
        self.arrival.lane_p.next = self.capture.lane_p.val();
        self.arrival.sampled.next = self.lookup.sampled.val();
        self.arrival.prow.next = self.capture.prow.val();
        self.arrival.row_empty.next = self.lookup.row_empty.val();
        self.arrival.d_emptied.next = self.departure.emptied.val();
        self.arrival.d_eg.next = self.capture.d_eg.val();
        self.arrival.d_q.next = self.capture.d_q.val();
        self.arrival.paused.next = self.frames.paused.val();
        self.arrival.port_speed.next = self.tables.port_speed.val();
        self.tables.ev_th_lane.next = self.arrival.ev_th_lane.val();
        self.tables.ev_bp_row.next = self.arrival.ev_bp_row.val();
        self.arrival.ev_th.next = self.tables.ev_th.val();
        self.arrival.ev_bp_off.next = self.tables.ev_bp_off.val();
        self.arrival.d_dec.next = self.departure.act.val() & self.capture.d_cnt.val();
        self.arrival.d_in.next = self.capture.d_in.val();
        self.arrival.d_upq.next = self.capture.d_upq.val();
        self.arrival.d_lane_u.next = self.capture.d_lane_u.val();
        self.arrival.qe.next = self.counters.a_qe.val();
        self.arrival.qd.next = self.counters.a_qd.val();
        self.arrival.pi.next = self.counters.a_pi.val();
        self.arrival.pd.next = self.counters.a_pd.val();
        self.arrival.d_pi.next = self.counters.d_pi.val();
        self.arrival.d_pd.next = self.counters.d_pd.val();

        // ---- The bitmap timer in the accounting stage, with the period the events of the
        // last edge saw (the bank as stored), and a snapshot.
        self.bitmap.live.next = self.capture.live.val();
        self.bitmap.nz.next = self.arrival.nz_next.val();
        self.bitmap.t_bm.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_t_bm.val().index());
        self.snapshot.request.next = (self.csr.write.val() & self.snap_index_written.val()).any();
        self.snapshot.index.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_snap_index.val().index());
        self.snapshot.ready.next = self.flow_table.ready.val();
        self.snapshot.entry_q.next = self.lookup.entry_q.val();
        self.snapshot.entry_class.next = self.lookup.entry_class.val();
        self.snapshot.size.next = self.lookup.size.val();
        self.snapshot.ts.next = self.lookup.entry_ts.val();
        self.snapshot.pc.next = self.arrival.pc_old.val();
        self.snapshot.qlen.next = self.arrival.ql_old.val();
        self.snapshot.paused.next = self.frames.paused.val();

        // ---- The sticky error flags each stage raises.
        self.flags.next = self.capture.flags.val()
            | self.frames.flags.val()
            | self.departure.flags.val()
            | self.lookup.flags.val()
            | self.arrival.flags.val();
        self.csr.hw_set.next = bit_cast::<CSR_BITS, 8>(self.flags.val()) << self.at_err.val();

        // ---- The bank's status and window words as edge n + 1 leaves them (read after the
        // edge).
        self.status_word.next = 0.into();
        if self.flow_table.ready_next.val() {
            self.status_word.next = self.status_word.val() | self.one_32.val();
        }
        if self.snapshot.pending.val() {
            self.status_word.next = self.status_word.val() | (self.one_32.val() << 1);
        }
        self.csr.hw_value.next = (bit_cast::<CSR_BITS, 32>(self.status_word.val())
            << self.at_status.val())
            | (bit_cast::<CSR_BITS, 32>(self.capture.now_ts_next.val()) << self.at_now_ts.val())
            | (bit_cast::<CSR_BITS, 32>(self.tables.rd_port_speed.val())
                << self.at_port_speed.val())
            | (bit_cast::<CSR_BITS, 32>(self.snapshot.data0.val()) << self.at_snap_data0.val())
            | (bit_cast::<CSR_BITS, 32>(self.snapshot.data1.val()) << self.at_snap_data1.val())
            | (bit_cast::<CSR_BITS, 3>(self.snapshot.data2.val()) << self.at_snap_data2.val());

        // ---- Outputs: the assignment (edge n + 2) and `ready` (edge n + 1).
        self.o_ready.d.next = self.flow_table.ready_soon.val();
        self.s_asg_valid.d.next = self.capture.e_valid.val();
        self.s_asg_refused.d.next = self.lookup.refused.val();
        self.s_asg_queue.d.next = 0.into();
        self.s_asg_key.d.next = 0.into();
        self.s_asg_new.d.next = false;
        self.s_asg_skip.d.next = false;
        if self.lookup.act.val() {
            self.s_asg_queue.d.next = self.lookup.q.val();
            self.s_asg_key.d.next = self.capture.e_key.val();
            self.s_asg_new.d.next = self.lookup.reassigned.val();
            self.s_asg_skip.d.next = self.lookup.ft_skip.val();
        }
        self.o_asg_valid.d.next = self.s_asg_valid.q.val();
        self.o_asg_refused.d.next = self.s_asg_refused.q.val();
        self.o_asg_queue.d.next = self.s_asg_queue.q.val();
        self.o_asg_key.d.next = self.s_asg_key.q.val();
        self.o_asg_cnt.d.next = self.arrival.counted.val();
        self.o_asg_new.d.next = self.s_asg_new.q.val();
        self.o_asg_skip.d.next = self.s_asg_skip.q.val();
        if self.reset.val() {
            self.s_asg_valid.d.next = false;
            self.s_asg_refused.d.next = false;
            self.s_asg_queue.d.next = 0.into();
            self.s_asg_key.d.next = 0.into();
            self.s_asg_new.d.next = false;
            self.s_asg_skip.d.next = false;
            self.o_ready.d.next = false;
            self.o_asg_valid.d.next = false;
            self.o_asg_refused.d.next = false;
            self.o_asg_queue.d.next = 0.into();
            self.o_asg_key.d.next = 0.into();
            self.o_asg_cnt.d.next = false;
            self.o_asg_new.d.next = false;
            self.o_asg_skip.d.next = false;
        }

        self.ready.next = self.o_ready.q.val();
        self.asg_valid.next = self.o_asg_valid.q.val();
        self.asg_refused.next = self.o_asg_refused.q.val();
        self.asg_queue.next = self.o_asg_queue.q.val();
        self.asg_ft_key.next = self.o_asg_key.q.val();
        self.asg_counter_incr.next = self.o_asg_cnt.q.val();
        self.asg_new.next = self.o_asg_new.q.val();
        self.asg_ft_skip.next = self.o_asg_skip.q.val();
        self.pause_valid.next = self.arrival.pause_valid.val();
        self.pause_port.next = self.arrival.pause_port.val();
        self.pause_queue.next = self.arrival.pause_queue.val();
        self.resume_valid.next = self.arrival.resume_valid.val();
        self.resume_port.next = self.arrival.resume_port.val();
        self.resume_queue.next = self.arrival.resume_queue.val();
        self.bm_valid.next = self.bitmap.bm_valid.val();
        self.bm_port.next = self.bitmap.bm_port.val();
        self.bm_base.next = self.bitmap.bm_base.val();
        self.bm_bits.next = self.bitmap.bm_bits.val();
        self.r_rd_th.d.next = (self.csr_addr.val() == self.addr_th_data.val()) & !self.reset.val();
        self.r_rd_bpen_lo.d.next =
            (self.csr_addr.val() == self.addr_bpen_lo.val()) & !self.reset.val();
        self.r_rd_bpen_hi.d.next =
            (self.csr_addr.val() == self.addr_bpen_hi.val()) & !self.reset.val();
        self.csr_rdata.next = self.csr.rdata.val();
        if self.r_rd_th.q.val() {
            self.csr_rdata.next = self.tables.rd_th.val();
        }
        if self.r_rd_bpen_lo.q.val() {
            self.csr_rdata.next = self.tables.rd_bpen_lo.val();
        }
        if self.r_rd_bpen_hi.q.val() {
            self.csr_rdata.next = self.tables.rd_bpen_hi.val();
        }
    }
}

/// Index bits of the per-(port, index) vectors of `cfg`: room for `{port, queue}` and
/// `{port, upstream queue}`, at least 5.
pub fn vector_bits(cfg: &BfcConfig) -> u32 {
    (cfg.port_bits() + cfg.queue_bits().max(cfg.upstream_bits())).max(5)
}

/// Calls `$body` with `$core` bound to a fresh `BfcCore` sized for `$cfg`.
macro_rules! with_bfc_core {
    ($cfg:expr, |$core:ident| $body:expr) => {{
        let cfg: &BfcConfig = $cfg;
        macro_rules! arm {
            ($nb:literal) => {{
                let mut $core = BfcCore::<$nb, { 1 << $nb }>::new(cfg);
                $body
            }};
        }
        match vector_bits(cfg) {
            5 => arm!(5),
            6 => arm!(6),
            7 => arm!(7),
            8 => arm!(8),
            9 => arm!(9),
            10 => arm!(10),
            11 => arm!(11),
            12 => arm!(12),
            13 => arm!(13),
            b => unreachable!("validated configs need 5..=13 vector bits, not {b}"),
        }
    }};
}

/// The rust-hdl Verilog of the core for `cfg` (module `top`). The core is one large struct
/// with wide constants, too large for a test thread's stack, so it is built on its own thread.
pub fn core_verilog(cfg: &BfcConfig) -> String {
    crate::export::on_large_stack(|| {
        with_bfc_core!(cfg, |core| {
            core.connect_all();
            generate_verilog(&core)
        })
    })
}

/// The packaged Verilog, manifest and C header of a BFC instance.
/// `tech` is written into the header and manifest; this block's memories take the same form
/// on every target (see docs/blocks/bfc.md).
pub fn package(
    cfg: &BfcConfig,
    instance: &str,
    command: &str,
    tech: crate::tech::Tech,
) -> crate::export::Package {
    let config_toml = cfg.to_toml();
    let schema = switchcraft_model::bfc::port_schema(cfg);
    let map = regmap(cfg);
    use crate::export::Waiver;
    crate::export::package(&crate::export::Source {
        block: "bfc",
        instance,
        command,
        config_toml: &config_toml,
        schema: &schema,
        core_verilog: &core_verilog(cfg),
        tech,
        reset_cycles: 1,
        regmap: &map,
        notes: &[
            "ready is low for the flow-table entries' count of edges after reset; a snapshot is",
            "readable two edges after an edge without enq_valid. See docs/blocks/bfc.md.",
        ],
        waivers: &[
            csr_bank::UNUSED_WAIVER,
            Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &["*_wide"],
                reason: "the `*_wide` locals hold a vector shifted right by a run-time offset (a \
                     queue row, a class word, a timestamp after ts_shift) at the vector's full \
                     width, or a one-hot or mask of queues at the widest row's 128 bits; only the \
                     low bits that the field or the config's row needs are read.",
            },
        ],
    })
}
