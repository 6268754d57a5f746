//! BFC in rust-hdl: the register-transfer form of `switchcraft_model::bfc`.
//!
//! Contract and cycle semantics: docs/blocks/bfc.md and crates/model/src/bfc.rs. Pipeline,
//! initiation interval 1 on every bus:
//! * before edge n: the flow id is hashed (CRC-32C as an XOR matrix, see [`crc_matrix`]) and
//!   reduced to its key; `egress x M + key` addresses the flow-table RAMs at edge n (the
//!   dequeue's stored key addresses the dequeue-side copies);
//! * cycle n: lookup (RAM data, or the forwarded write of edge n), then the received frame,
//!   the dequeue and the enqueue in that order, the bitmap timer and a snapshot;
//! * edge n + 1: RAM writes, registers, outputs.
//!
//! The flow-table entry's `size` has two writers per cycle (+1 by an arrival at one key, -1 by
//! a departure at another) and a 1R1W RAM has one write port, so it is kept as two counts, one
//! per writer: `size = enq_count - deq_count (mod 2^size_bits)`. Bank E `{q, enq_count}` is
//! written by arrivals, bank D `{deq_count}` and the timestamp by departures; each bank has one
//! copy per reader (the arrival reads everything at its key, the departure reads the counts at
//! its key).
//!
//! Queue occupancies and pause counters have the same two writers and get the same split:
//! bytes enqueued and dequeued per queue, increments and decrements per pause counter, in RAMs
//! of one row per port (egress for queues, ingress for counters) with one 32-bit lane per
//! queue. The arrival's queue is known only after the flow-table read, in the cycle that tests
//! it against Th, too late to address a RAM; its egress port is known before the edge, so the
//! whole row is read and the lane picked in the cycle. Each writer writes only its lane
//! ([`CounterRowRam`]: per-lane write enables, `occupancy_bits` or `pc_bits` stored per lane,
//! differences taken modulo that width); the lane written at the last edge is forwarded (the
//! read of this edge returns it old), and the arrival sees the departure of its own cycle.
//! Lane, Th and bpEn indices pass through masks of the bits the config uses, so synthesis
//! sees the unused part of every fixed-width row and table as constant. Empty,
//! downstream-paused and non-zero bits, the Th table, the rotating starts and bpEn are
//! registers. Per-(port, index) bit vectors use `{port, index}` with the index's own bits,
//! `N = 2^NB` entries; counter rows hold `R / 32 = min(N, 128)` lanes.

mod bitmap;

use crate::counter_row_ram::CounterRowRam;
use crate::csr_bank::{self, CsrBank};
use crate::narrow_ram::{low_bits, NarrowRam};
use bitmap::Bitmap;
use rust_hdl::prelude::*;
use switchcraft_core::hash::hash32;
use switchcraft_core::lfsr::Lfsr32;
use switchcraft_core::{index_bits, mask};
use switchcraft_model::bfc::{
    err, reg, regmap, BfcConfig, RX_BITMAP, RX_PAUSE, RX_RESUME, SNAP_FLOW_TABLE,
    SNAP_PAUSE_COUNTER, SNAP_QUEUE, SNAP_TABLE_SHIFT,
};

/// Address bits of the flow-table RAMs (409 600 entries at most).
const FA: usize = 20;

/// Word slots of the CSR bank (the register map's indices 0..32: 24 + 8 classes) and their bits.
pub const CSR_SLOTS: usize = 32;
const CSR_BITS: usize = 32 * CSR_SLOTS;
/// Bits of an offset into the bank's `CSR_BITS`-bit buses.
const CSR_OFFSET_BITS: usize = 10;
type Bank = CsrBank<CSR_SLOTS, CSR_BITS, CSR_OFFSET_BITS>;

/// The CRC-32C of a `bytes`-byte key as an affine map: bit b of the hash is the parity of
/// `key & masks[b]` XOR bit b of `constant` (CRC is linear over GF(2); the constant is the
/// hash of the zero key). Derived from [`hash32`], so model and RTL share one definition.
pub fn crc_matrix(bytes: usize) -> ([u64; 32], u32) {
    let constant = hash32(0, bytes);
    let mut masks = [0u64; 32];
    for i in 0..8 * bytes {
        let column = hash32(1u128 << i, bytes) ^ constant;
        for (b, m) in masks.iter_mut().enumerate() {
            *m |= u64::from(column >> b & 1) << i;
        }
    }
    (masks, constant)
}

#[derive(LogicBlock)]
pub struct BfcCore<const NB: usize, const N: usize, const R: usize> {
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
    pub deq_valid: Signal<In, Bit>,
    pub deq_eg_port: Signal<In, Bits<6>>,
    pub deq_queue: Signal<In, Bits<7>>,
    pub deq_ft_key: Signal<In, Bits<17>>,
    pub deq_counter_incr: Signal<In, Bit>,
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

    pub ready: Signal<Out, Bit>,
    pub asg_valid: Signal<Out, Bit>,
    pub asg_refused: Signal<Out, Bit>,
    pub asg_queue: Signal<Out, Bits<7>>,
    pub asg_ft_key: Signal<Out, Bits<17>>,
    pub asg_counter_incr: Signal<Out, Bit>,
    pub asg_new: Signal<Out, Bit>,
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
    pub bitmap: Bitmap,

    // ---- Parameters of this instance.
    /// 32 masks of 64 bits, bit b's at [64b+63:64b], and the hash of the zero key.
    crc_masks: Constant<Bits<2048>>,
    crc_zero: Constant<Bits<32>>,
    /// 32 - hash_bits, hash_bits.
    hash_drop: Constant<Bits<8>>,
    hash_bits: Constant<Bits<8>>,
    /// M, entries per port; total entries.
    m_entries: Constant<Bits<32>>,
    m_entries_fa: Constant<Bits<FA>>,
    ft_entries: Constant<Bits<32>>,
    n_ports: Constant<Bits<8>>,
    n_queues: Constant<Bits<8>>,
    n_upstream: Constant<Bits<8>>,
    n_classes: Constant<Bits<8>>,
    rx_chunks: Constant<Bits<8>>,
    /// Index bits of queues and upstream queues: the shift of `{port, index}`.
    queue_bits: Constant<Bits<8>>,
    upstream_bits: Constant<Bits<8>>,
    ts_shift: Constant<Bits<8>>,
    ts_mask: Constant<Bits<32>>,
    size_mask: Constant<Bits<32>>,
    occ_max: Constant<Bits<32>>,
    pc_max: Constant<Bits<32>>,
    /// Bit q set for q < queues; the same without queue 0 (data queues).
    queue_valid: Constant<Bits<128>>,
    data_queues: Constant<Bits<128>>,
    /// bpEn bits a row holds, low and high words.
    bpen_lo_mask: Constant<Bits<32>>,
    bpen_hi_mask: Constant<Bits<32>>,
    has_bpen_hi: Constant<Bit>,
    one_32: Constant<Bits<32>>,
    one_128: Constant<Bits<128>>,
    one_n: Constant<Bits<N>>,
    all_n: Constant<Bits<N>>,
    /// One 32-bit lane of a counter row.
    lane_th: Constant<Bits<4096>>,
    lane_rr: Constant<Bits<512>>,
    /// The bits of entries this config has: {port, queue} and {port, upstream queue} vectors,
    /// Th lanes, bpEn bits, rotating starts, class words.
    used_q: Constant<Bits<N>>,
    used_u: Constant<Bits<N>>,
    used_th: Constant<Bits<4096>>,
    used_bpen: Constant<Bits<4096>>,
    used_rr: Constant<Bits<512>>,
    mode_stochastic: Constant<Bits<2>>,
    mode_single: Constant<Bits<2>>,
    kind_pause: Constant<Bits<2>>,
    kind_resume: Constant<Bits<2>>,
    kind_bitmap: Constant<Bits<2>>,
    // Reset values of the tables and the LFSR the core keeps.
    reset_th: Constant<Bits<4096>>,
    reset_lfsr: Constant<Bits<32>>,
    lfsr_toggle: Constant<Bits<32>>,
    mask_7: Constant<Bits<8>>,
    /// Bit offsets of the registers' words on the CSR bank's buses.
    at_mode: Constant<Bits<CSR_OFFSET_BITS>>,
    at_sticky: Constant<Bits<CSR_OFFSET_BITS>>,
    at_t_bm: Constant<Bits<CSR_OFFSET_BITS>>,
    at_status: Constant<Bits<CSR_OFFSET_BITS>>,
    at_err: Constant<Bits<CSR_OFFSET_BITS>>,
    at_now_ts: Constant<Bits<CSR_OFFSET_BITS>>,
    at_th_index: Constant<Bits<CSR_OFFSET_BITS>>,
    at_th_data: Constant<Bits<CSR_OFFSET_BITS>>,
    at_bpen_index: Constant<Bits<CSR_OFFSET_BITS>>,
    at_bpen_lo: Constant<Bits<CSR_OFFSET_BITS>>,
    at_bpen_hi: Constant<Bits<CSR_OFFSET_BITS>>,
    at_snap_index: Constant<Bits<CSR_OFFSET_BITS>>,
    at_snap_data0: Constant<Bits<CSR_OFFSET_BITS>>,
    at_snap_data1: Constant<Bits<CSR_OFFSET_BITS>>,
    at_class0: Constant<Bits<CSR_OFFSET_BITS>>,
    /// The write strobes of the registers whose writes act.
    lfsr_seed_written: Constant<Bits<CSR_SLOTS>>,
    th_data_written: Constant<Bits<CSR_SLOTS>>,
    bpen_lo_written: Constant<Bits<CSR_SLOTS>>,
    bpen_hi_written: Constant<Bits<CSR_SLOTS>>,
    snap_index_written: Constant<Bits<CSR_SLOTS>>,
    // Masks of the lane and port index bits the config uses: indices pass through them
    // so synthesis sees the unused lanes of the fixed-width rows and tables as constant.
    q_lane_mask: Constant<Bits<8>>,
    init_mask: Constant<Bits<32>>,
    ft_addr_mask: Constant<Bits<FA>>,
    u_lane_mask: Constant<Bits<8>>,
    port_mask: Constant<Bits<12>>,
    th_lane_mask: Constant<Bits<12>>,
    snap_k_mask: Constant<Bits<32>>,
    one_8: Constant<Bits<8>>,
    one_48: Constant<Bits<48>>,
    c32_16: Constant<Bits<12>>,
    t_flow_table: Constant<Bits<2>>,
    t_pause_counter: Constant<Bits<2>>,
    t_queue: Constant<Bits<2>>,
    f_bad_event: Constant<Bits<8>>,
    f_not_ready: Constant<Bits<8>>,
    f_size_saturated: Constant<Bits<8>>,
    f_size_underflow: Constant<Bits<8>>,
    f_qlen_saturated: Constant<Bits<8>>,
    f_qlen_underflow: Constant<Bits<8>>,
    f_pc_saturated: Constant<Bits<8>>,
    f_pc_underflow: Constant<Bits<8>>,

    // ---- Input stage (edge n).
    i_enq_valid: DFF<Bit>,
    i_enq_in: DFF<Bits<6>>,
    i_enq_eg: DFF<Bits<6>>,
    i_enq_len: DFF<Bits<16>>,
    i_enq_upq: DFF<Bits<7>>,
    i_enq_class: DFF<Bits<3>>,
    i_key: DFF<Bits<17>>,
    i_hash: DFF<Bits<32>>,
    i_addr_a: DFF<Bits<FA>>,
    i_deq_valid: DFF<Bit>,
    i_deq_eg: DFF<Bits<6>>,
    i_deq_q: DFF<Bits<7>>,
    i_deq_key: DFF<Bits<17>>,
    i_deq_cnt: DFF<Bit>,
    i_deq_in: DFF<Bits<6>>,
    i_deq_upq: DFF<Bits<7>>,
    i_deq_len: DFF<Bits<16>>,
    i_addr_d: DFF<Bits<FA>>,
    i_rx_valid: DFF<Bit>,
    i_rx_port: DFF<Bits<6>>,
    i_rx_kind: DFF<Bits<2>>,
    i_rx_queue: DFF<Bits<7>>,
    i_rx_base: DFF<Bits<2>>,
    i_rx_bitmap: DFF<Bits<32>>,
    i_csr_we: DFF<Bit>,
    i_csr_addr: DFF<Bits<6>>,
    i_csr_wdata: DFF<Bits<32>>,
    /// A pending snapshot may take the enqueue-side read port at this edge.
    i_serve: DFF<Bit>,

    // ---- Flow table: banks E (arrival-written) and D (departure-written), one copy per reader.
    ram_e_a: NarrowRam<FA, 32>,
    ram_e_d: NarrowRam<FA, 32>,
    ram_dc_a: NarrowRam<FA, 32>,
    ram_ts_a: NarrowRam<FA, 32>,
    ram_dc_d: NarrowRam<FA, 32>,
    fw_e_valid: DFF<Bit>,
    fw_e_addr: DFF<Bits<FA>>,
    fw_e_word: DFF<Bits<32>>,
    fw_d_valid: DFF<Bit>,
    fw_d_addr: DFF<Bits<FA>>,
    fw_d_dc: DFF<Bits<32>>,
    fw_d_ts: DFF<Bits<32>>,

    // ---- Queue occupancies and pause counters: one row of lanes per port in RAM.
    /// Bytes enqueued (written by arrivals, row = egress) and dequeued (written by departures)
    /// per queue, qlen = enqueued - dequeued (mod 2^occupancy_bits); read port A for the
    /// arrival side (the arrival's egress row, or the snapshot's), B for the departure side.
    qe: CounterRowRam<6, R>,
    qd: CounterRowRam<6, R>,
    /// Pause-counter increments (arrivals, row = ingress) and decrements (departures) per
    /// upstream queue, counter = increments - decrements (mod 2^pc_bits).
    pi: CounterRowRam<6, R>,
    pd: CounterRowRam<6, R>,
    /// The lane each bank wrote at the last edge: this edge's RAM read returns it old.
    fw_qe_valid: DFF<Bit>,
    fw_qe_row: DFF<Bits<6>>,
    fw_qe_lane: DFF<Bits<8>>,
    fw_qe_val: DFF<Bits<32>>,
    fw_qd_valid: DFF<Bit>,
    fw_qd_row: DFF<Bits<6>>,
    fw_qd_lane: DFF<Bits<8>>,
    fw_qd_val: DFF<Bits<32>>,
    fw_pi_valid: DFF<Bit>,
    fw_pi_row: DFF<Bits<6>>,
    fw_pi_lane: DFF<Bits<8>>,
    fw_pi_val: DFF<Bits<32>>,
    fw_pd_valid: DFF<Bit>,
    fw_pd_row: DFF<Bits<6>>,
    fw_pd_lane: DFF<Bits<8>>,
    fw_pd_val: DFF<Bits<32>>,
    /// The arrival-side rows read at edge n.
    i_qrow_a: DFF<Bits<6>>,
    i_prow_a: DFF<Bits<6>>,

    // ---- Registers.
    live: DFF<Bit>,
    now: DFF<Bits<48>>,
    init_cnt: DFF<Bits<32>>,
    init_done: DFF<Bit>,
    lfsr: DFF<Bits<32>>,
    empty: DFF<Bits<N>>,
    dsp: DFF<Bits<N>>,
    nz: DFF<Bits<N>>,
    rr: DFF<Bits<512>>,
    th: DFF<Bits<4096>>,
    bpen: DFF<Bits<4096>>,
    r_snap0: DFF<Bits<32>>,
    r_snap1: DFF<Bits<32>>,
    snap_pending: DFF<Bit>,
    o_ready: DFF<Bit>,
    o_asg_valid: DFF<Bit>,
    o_asg_refused: DFF<Bit>,
    o_asg_queue: DFF<Bits<7>>,
    o_asg_key: DFF<Bits<17>>,
    o_asg_cnt: DFF<Bit>,
    o_asg_new: DFF<Bit>,
    o_pause_valid: DFF<Bit>,
    o_pause_port: DFF<Bits<6>>,
    o_pause_queue: DFF<Bits<7>>,
    o_resume_valid: DFF<Bit>,
    o_resume_port: DFF<Bits<6>>,
    o_resume_queue: DFF<Bits<7>>,
    o_bm_valid: DFF<Bit>,
    o_bm_port: DFF<Bits<6>>,
    o_bm_base: DFF<Bits<2>>,
    o_bm_bits: DFF<Bits<32>>,

    // ---- Before edge n: hash and key.
    h_full: Signal<Local, Bits<32>>,
    h_top: Signal<Local, Bits<64>>,
    key_prod: Signal<Local, Bits<64>>,
    key_e: Signal<Local, Bits<17>>,
    eg_m_e: Signal<Local, Bits<FA>>,
    eg_m_d: Signal<Local, Bits<FA>>,
    addr_e: Signal<Local, Bits<FA>>,
    addr_d: Signal<Local, Bits<FA>>,
    addr_a: Signal<Local, Bits<FA>>,
    // ---- Cycle n: the CSR writes that act (reseed, window writes, snapshot request).
    w_seed: Signal<Local, Bit>,
    w_th_data: Signal<Local, Bit>,
    w_bpen_lo: Signal<Local, Bit>,
    w_bpen_hi: Signal<Local, Bit>,
    w_snap_index: Signal<Local, Bit>,
    mode_eff: Signal<Local, Bits<2>>,
    sticky_eff: Signal<Local, Bits<32>>,
    lfsr_eff: Signal<Local, Bits<32>>,
    classes_eff: Signal<Local, Bits<256>>,
    th_eff: Signal<Local, Bits<4096>>,
    bpen_eff: Signal<Local, Bits<4096>>,
    th_off: Signal<Local, Bits<12>>,
    bpen_off: Signal<Local, Bits<12>>,
    now_ts: Signal<Local, Bits<32>>,
    ready_now: Signal<Local, Bit>,
    // Received frame.
    rx_ok: Signal<Local, Bit>,
    rx_bad: Signal<Local, Bit>,
    rx_idx: Signal<Local, Bits<16>>,
    rx_off: Signal<Local, Bits<16>>,
    rx_cmask: Signal<Local, Bits<32>>,
    dsp_rx: Signal<Local, Bits<N>>,
    // Departure.
    d_ok: Signal<Local, Bit>,
    d_v: Signal<Local, Bit>,
    d_bad: Signal<Local, Bit>,
    d_ec: Signal<Local, Bits<32>>,
    d_dc: Signal<Local, Bits<32>>,
    d_size: Signal<Local, Bits<32>>,
    d_size_under: Signal<Local, Bit>,
    d_dc_new: Signal<Local, Bits<32>>,
    d_j: Signal<Local, Bits<16>>,
    d_pc_old: Signal<Local, Bits<32>>,
    d_pc_dec: Signal<Local, Bit>,
    d_pc_under: Signal<Local, Bit>,
    d_qi: Signal<Local, Bits<16>>,
    d_ql_old: Signal<Local, Bits<32>>,
    d_ql_under: Signal<Local, Bit>,
    d_ql_new: Signal<Local, Bits<32>>,
    empty_mid: Signal<Local, Bits<N>>,
    // Arrival (or snapshot) lookup.
    a_word: Signal<Local, Bits<32>>,
    a_q: Signal<Local, Bits<8>>,
    a_ec: Signal<Local, Bits<32>>,
    a_dc: Signal<Local, Bits<32>>,
    a_ts: Signal<Local, Bits<32>>,
    a_size: Signal<Local, Bits<32>>,
    // Arrival.
    e_cw: Signal<Local, Bits<16>>,
    e_first: Signal<Local, Bits<8>>,
    e_count: Signal<Local, Bits<8>>,
    e_class_ok: Signal<Local, Bit>,
    e_ok: Signal<Local, Bit>,
    e_v: Signal<Local, Bit>,
    e_refused: Signal<Local, Bit>,
    e_age: Signal<Local, Bits<32>>,
    e_reassign: Signal<Local, Bit>,
    e_row_off: Signal<Local, Bits<16>>,
    e_row_empty: Signal<Local, Bits<128>>,
    e_row_paused: Signal<Local, Bits<128>>,
    e_class_mask: Signal<Local, Bits<128>>,
    e_cand: Signal<Local, Bits<128>>,
    e_rr: Signal<Local, Bits<8>>,
    e_upper: Signal<Local, Bits<128>>,
    e_pick: Signal<Local, Bits<128>>,
    snap_qrow_wide: Signal<Local, Bits<32>>,
    snap_prow_wide: Signal<Local, Bits<32>>,
    qrow_a: Signal<Local, Bits<6>>,
    prow_a: Signal<Local, Bits<6>>,
    s_qlane_wide: Signal<Local, Bits<32>>,
    s_plane_wide: Signal<Local, Bits<32>>,
    d_qe_lane: Signal<Local, Bits<32>>,
    d_qd_lane: Signal<Local, Bits<32>>,
    d_qd_new: Signal<Local, Bits<32>>,
    a_lane_q: Signal<Local, Bits<8>>,
    e_lane_q: Signal<Local, Bits<8>>,
    e_lane_u: Signal<Local, Bits<8>>,
    d_lane_q: Signal<Local, Bits<8>>,
    d_lane_u: Signal<Local, Bits<8>>,
    a_qe_lane: Signal<Local, Bits<32>>,
    a_qd_lane: Signal<Local, Bits<32>>,
    e_qe_new: Signal<Local, Bits<32>>,
    d_pi_lane: Signal<Local, Bits<32>>,
    d_pd_lane: Signal<Local, Bits<32>>,
    d_pc_write: Signal<Local, Bit>,
    d_pd_new: Signal<Local, Bits<32>>,
    d_pc_after: Signal<Local, Bits<32>>,
    a_lane_p: Signal<Local, Bits<8>>,
    a_pi_lane: Signal<Local, Bits<32>>,
    a_pd_lane_start: Signal<Local, Bits<32>>,
    a_pd_lane: Signal<Local, Bits<32>>,
    e_pc_start: Signal<Local, Bits<32>>,
    e_pi_new: Signal<Local, Bits<32>>,
    e_pc_fin: Signal<Local, Bits<32>>,
    d_pc_fin: Signal<Local, Bits<32>>,
    same_j: Signal<Local, Bit>,
    rx_bits: Signal<Local, Bits<32>>,
    key_wide: Signal<Local, Bits<64>>,
    th_wdata: Signal<Local, Bits<32>>,
    bpen_lo_wdata: Signal<Local, Bits<32>>,
    bpen_hi_wdata: Signal<Local, Bits<32>>,
    now_wide: Signal<Local, Bits<48>>,
    rx_cmask_wide: Signal<Local, Bits<128>>,
    e_cw_wide: Signal<Local, Bits<256>>,
    e_row_empty_wide: Signal<Local, Bits<N>>,
    e_row_paused_wide: Signal<Local, Bits<N>>,
    e_rr_wide: Signal<Local, Bits<512>>,
    e_pick_low: Signal<Local, Bits<128>>,
    e_bp_idx: Signal<Local, Bits<12>>,
    bm_bits_wide: Signal<Local, Bits<N>>,
    now_next_wide: Signal<Local, Bits<48>>,
    s_qi: Signal<Local, Bits<NB>>,
    e_q_first: Signal<Local, Bits<8>>,
    e_rand_prod: Signal<Local, Bits<32>>,
    e_stoch_prod: Signal<Local, Bits<32>>,
    e_q: Signal<Local, Bits<8>>,
    e_new: Signal<Local, Bit>,
    e_rr_write: Signal<Local, Bit>,
    e_rr_next: Signal<Local, Bits<8>>,
    e_size_sat: Signal<Local, Bit>,
    e_ec_new: Signal<Local, Bits<32>>,
    e_qi: Signal<Local, Bits<16>>,
    e_ql_old: Signal<Local, Bits<32>>,
    e_active: Signal<Local, Bits<128>>,
    e_nact: Signal<Local, Bits<8>>,
    e_th_idx: Signal<Local, Bits<8>>,
    e_th: Signal<Local, Bits<32>>,
    e_above: Signal<Local, Bit>,
    e_bp: Signal<Local, Bit>,
    e_j: Signal<Local, Bits<16>>,
    e_pc_old: Signal<Local, Bits<32>>,
    e_pc_sat: Signal<Local, Bit>,
    e_counted: Signal<Local, Bit>,
    e_ql_sat: Signal<Local, Bit>,
    empty_fin: Signal<Local, Bits<N>>,
    nz_fin: Signal<Local, Bits<N>>,
    // Bitmap timer.
    // Snapshot.
    s_serve: Signal<Local, Bit>,
    s_table: Signal<Local, Bits<2>>,
    s_k: Signal<Local, Bits<32>>,
    s_ok: Signal<Local, Bit>,
    s_d0: Signal<Local, Bits<32>>,
    s_d1: Signal<Local, Bits<32>>,
    // Next state and the bank's status and window words.
    flags: Signal<Local, Bits<8>>,
    now_next: Signal<Local, Bits<48>>,
    ready_next: Signal<Local, Bit>,
    pending_next: Signal<Local, Bit>,
    th_index_next: Signal<Local, Bits<32>>,
    bpen_index_next: Signal<Local, Bits<32>>,
    snap_index_next: Signal<Local, Bits<32>>,
    snap0_next: Signal<Local, Bits<32>>,
    snap1_next: Signal<Local, Bits<32>>,
    status_word: Signal<Local, Bits<32>>,
    /// Registers as stored (before this cycle's write).
    snap_index: Signal<Local, Bits<32>>,
    th_index: Signal<Local, Bits<32>>,
    bpen_index: Signal<Local, Bits<32>>,
    /// The window words as the edge leaves them.
    rd_th: Signal<Local, Bits<32>>,
    now_ts_next: Signal<Local, Bits<32>>,
    rd_bpen_off: Signal<Local, Bits<12>>,
    rd_bpen_lo: Signal<Local, Bits<32>>,
    rd_bpen_hi: Signal<Local, Bits<32>>,
    pause_now: Signal<Local, Bit>,
    resume_now: Signal<Local, Bit>,
    we_e: Signal<Local, Bit>,
    wa_e: Signal<Local, Bits<FA>>,
    wd_e: Signal<Local, Bits<32>>,
    we_d: Signal<Local, Bit>,
    wa_d: Signal<Local, Bits<FA>>,
    wd_dc: Signal<Local, Bits<32>>,
    wd_ts: Signal<Local, Bits<32>>,
}

impl<const NB: usize, const N: usize, const R: usize> BfcCore<NB, N, R> {
    pub fn new(cfg: &BfcConfig) -> Self {
        assert_eq!(1 << NB, N);
        assert_eq!(32 * N.min(128), R);
        assert!(cfg.port_bits() + cfg.queue_bits() <= NB as u32);
        assert!(cfg.port_bits() + cfg.upstream_bits() <= NB as u32);
        assert!(cfg.entries() <= 1 << FA);
        let map = regmap(cfg);
        let c8 = |v: u64| Constant::new(Bits::<8>::from(v));
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        let at = |name: &str| Bank::offset(&map, name);
        let (masks, crc_zero) = crc_matrix(cfg.fid_bits.div_ceil(8) as usize);
        let mut crc_masks = Bits::<2048>::default();
        for (b, m) in masks.iter().enumerate() {
            crc_masks = crc_masks | (Bits::<2048>::from(*m) << (64 * b) as u64);
        }
        let mut queue_valid = Bits::<128>::default();
        for q in 0..cfg.queues as usize {
            queue_valid = queue_valid.replace_bit(q, true);
        }
        let data_queues = queue_valid.replace_bit(0, false);
        let mut th = Bits::<4096>::default();
        for (n, &t) in cfg.th[..cfg.queues as usize].iter().enumerate() {
            th = th | (Bits::<4096>::from(t) << (32 * n) as u64);
        }
        let (sb, tb) = (cfg.size_bits as usize, cfg.ts_bits as usize);
        let (qb, ub) = (cfg.queue_bits() as usize, cfg.upstream_bits() as usize);
        // Th lanes hold occupancy_bits (the config's and written values fit, see
        // BfcConfig::validate and th_wdata).
        let mut used_th = Bits::<4096>::default();
        for n in 0..cfg.queues as usize {
            used_th = used_th | (low_bits::<4096>(cfg.occupancy_bits as usize) << (32 * n) as u64);
        }
        // A rotating start is a queue index: queue_bits of each port's 8-bit lane.
        let mut used_rr = Bits::<512>::default();
        for p in 0..cfg.ports as usize {
            used_rr = used_rr | (low_bits::<512>(cfg.queue_bits() as usize) << (8 * p) as u64);
        }
        let mut used_q = Bits::<N>::default();
        let mut used_u = Bits::<N>::default();
        let mut used_bpen = Bits::<4096>::default();
        for p in 0..cfg.ports as usize {
            used_q = used_q | (low_bits::<N>(cfg.queues as usize) << ((p << qb) as u64));
            used_u = used_u | (low_bits::<N>(cfg.upstream_queues as usize) << ((p << ub) as u64));
            used_bpen = used_bpen | (low_bits::<4096>(cfg.ports as usize) << ((64 * p) as u64));
        }
        let depth = cfg.entries() as usize;
        let rows = cfg.ports as usize;
        let (queues, upstream) = (cfg.queues as usize, cfg.upstream_queues as usize);
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
            deq_valid: Default::default(),
            deq_eg_port: Default::default(),
            deq_queue: Default::default(),
            deq_ft_key: Default::default(),
            deq_counter_incr: Default::default(),
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
            ready: Default::default(),
            asg_valid: Default::default(),
            asg_refused: Default::default(),
            asg_queue: Default::default(),
            asg_ft_key: Default::default(),
            asg_counter_incr: Default::default(),
            asg_new: Default::default(),
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
            bitmap: Bitmap::new(cfg),
            at_mode: at("mode"),
            at_sticky: at("sticky"),
            at_t_bm: at("t_bm"),
            at_status: at("status"),
            at_err: at("err"),
            at_now_ts: at("now_ts"),
            at_th_index: at("th_index"),
            at_th_data: at("th_data"),
            at_bpen_index: at("bpen_index"),
            at_bpen_lo: at("bpen_lo"),
            // (bpen_hi exists above 32 ports; below, the bank ignores its slot.)
            at_bpen_hi: Constant::new(u64::from(32 * reg::BPEN_HI).into()),
            at_snap_index: at("snap_index"),
            at_snap_data0: at("snap_data0"),
            at_snap_data1: at("snap_data1"),
            at_class0: at("class0"),
            lfsr_seed_written: Bank::strobe(&map, "lfsr_seed"),
            th_data_written: Bank::strobe(&map, "th_data"),
            bpen_lo_written: Bank::strobe(&map, "bpen_lo"),
            bpen_hi_written: Constant::new(
                Bits::<CSR_SLOTS>::from(1u64) << u64::from(reg::BPEN_HI),
            ),
            snap_index_written: Bank::strobe(&map, "snap_index"),
            crc_masks: Constant::new(crc_masks),
            crc_zero: c32(u64::from(crc_zero)),
            hash_drop: c8(u64::from(32 - cfg.hash_bits)),
            hash_bits: c8(cfg.hash_bits.into()),
            m_entries: c32(cfg.entries_per_port()),
            m_entries_fa: Constant::new(cfg.entries_per_port().into()),
            ft_entries: c32(cfg.entries()),
            n_ports: c8(cfg.ports.into()),
            n_queues: c8(cfg.queues.into()),
            n_upstream: c8(cfg.upstream_queues.into()),
            n_classes: c8(cfg.classes.into()),
            rx_chunks: c8(cfg.rx_chunks().into()),
            queue_bits: c8(cfg.queue_bits().into()),
            upstream_bits: c8(cfg.upstream_bits().into()),
            ts_shift: c8(cfg.ts_shift.into()),
            ts_mask: c32(mask(cfg.ts_bits)),
            size_mask: c32(mask(cfg.size_bits)),
            occ_max: c32(mask(cfg.occupancy_bits)),
            pc_max: c32(mask(cfg.pc_bits)),
            queue_valid: Constant::new(queue_valid),
            data_queues: Constant::new(data_queues),
            bpen_lo_mask: c32(mask(cfg.ports.min(32))),
            bpen_hi_mask: c32(if cfg.ports > 32 {
                mask(cfg.ports - 32)
            } else {
                0
            }),
            has_bpen_hi: Constant::new(cfg.ports > 32),
            one_32: c32(1),
            one_128: Constant::new(1u64.into()),
            one_n: Constant::new(1u64.into()),
            all_n: Constant::new(!Bits::<N>::default()),
            lane_th: Constant::new(0xFFFF_FFFFu64.into()),
            lane_rr: Constant::new(0xFFu64.into()),
            used_q: Constant::new(used_q),
            used_u: Constant::new(used_u),
            used_th: Constant::new(used_th),
            used_bpen: Constant::new(used_bpen),
            used_rr: Constant::new(used_rr),
            mode_stochastic: Constant::new(switchcraft_model::bfc::MODE_STOCHASTIC.into()),
            mode_single: Constant::new(switchcraft_model::bfc::MODE_SINGLE.into()),
            kind_pause: Constant::new(RX_PAUSE.into()),
            kind_resume: Constant::new(RX_RESUME.into()),
            kind_bitmap: Constant::new(RX_BITMAP.into()),
            reset_th: Constant::new(th),
            reset_lfsr: c32(u64::from(Lfsr32::new(cfg.lfsr_seed).state())),
            lfsr_toggle: c32(u64::from(Lfsr32::TOGGLE)),
            mask_7: c8(0x7F),
            q_lane_mask: c8(mask(cfg.queue_bits())),
            init_mask: c32(mask(index_bits(cfg.entries() + 1))),
            ft_addr_mask: Constant::new(mask(index_bits(cfg.entries())).into()),
            u_lane_mask: c8(mask(cfg.upstream_bits())),
            port_mask: Constant::new(mask(cfg.port_bits()).into()),
            th_lane_mask: Constant::new(mask(cfg.queue_bits()).into()),
            snap_k_mask: c32(mask(SNAP_TABLE_SHIFT)),
            one_8: c8(1),
            one_48: Constant::new(1u64.into()),
            c32_16: Constant::new(32u64.into()),
            t_flow_table: Constant::new(SNAP_FLOW_TABLE.into()),
            t_pause_counter: Constant::new(SNAP_PAUSE_COUNTER.into()),
            t_queue: Constant::new(SNAP_QUEUE.into()),
            f_bad_event: c8(err::BAD_EVENT),
            f_not_ready: c8(err::NOT_READY),
            f_size_saturated: c8(err::SIZE_SATURATED),
            f_size_underflow: c8(err::SIZE_UNDERFLOW),
            f_qlen_saturated: c8(err::QLEN_SATURATED),
            f_qlen_underflow: c8(err::QLEN_UNDERFLOW),
            f_pc_saturated: c8(err::PC_SATURATED),
            f_pc_underflow: c8(err::PC_UNDERFLOW),
            i_enq_valid: Default::default(),
            i_enq_in: Default::default(),
            i_enq_eg: Default::default(),
            i_enq_len: Default::default(),
            i_enq_upq: Default::default(),
            i_enq_class: Default::default(),
            i_key: Default::default(),
            i_hash: Default::default(),
            i_addr_a: Default::default(),
            i_deq_valid: Default::default(),
            i_deq_eg: Default::default(),
            i_deq_q: Default::default(),
            i_deq_key: Default::default(),
            i_deq_cnt: Default::default(),
            i_deq_in: Default::default(),
            i_deq_upq: Default::default(),
            i_deq_len: Default::default(),
            i_addr_d: Default::default(),
            i_rx_valid: Default::default(),
            i_rx_port: Default::default(),
            i_rx_kind: Default::default(),
            i_rx_queue: Default::default(),
            i_rx_base: Default::default(),
            i_rx_bitmap: Default::default(),
            i_csr_we: Default::default(),
            i_csr_addr: Default::default(),
            i_csr_wdata: Default::default(),
            i_serve: Default::default(),
            ram_e_a: NarrowRam::with_depth(8 + sb, depth),
            ram_e_d: NarrowRam::with_depth(8 + sb, depth),
            ram_dc_a: NarrowRam::with_depth(sb, depth),
            ram_ts_a: NarrowRam::with_depth(tb, depth),
            ram_dc_d: NarrowRam::with_depth(sb, depth),
            fw_e_valid: Default::default(),
            fw_e_addr: Default::default(),
            fw_e_word: Default::default(),
            fw_d_valid: Default::default(),
            fw_d_addr: Default::default(),
            fw_d_dc: Default::default(),
            fw_d_ts: Default::default(),
            qe: CounterRowRam::new(queues, cfg.occupancy_bits as usize, rows),
            qd: CounterRowRam::new(queues, cfg.occupancy_bits as usize, rows),
            pi: CounterRowRam::new(upstream, cfg.pc_bits as usize, rows),
            pd: CounterRowRam::new(upstream, cfg.pc_bits as usize, rows),
            fw_qe_valid: Default::default(),
            fw_qe_row: Default::default(),
            fw_qe_lane: Default::default(),
            fw_qe_val: Default::default(),
            fw_qd_valid: Default::default(),
            fw_qd_row: Default::default(),
            fw_qd_lane: Default::default(),
            fw_qd_val: Default::default(),
            fw_pi_valid: Default::default(),
            fw_pi_row: Default::default(),
            fw_pi_lane: Default::default(),
            fw_pi_val: Default::default(),
            fw_pd_valid: Default::default(),
            fw_pd_row: Default::default(),
            fw_pd_lane: Default::default(),
            fw_pd_val: Default::default(),
            i_qrow_a: Default::default(),
            i_prow_a: Default::default(),
            live: Default::default(),
            now: Default::default(),
            init_cnt: Default::default(),
            init_done: Default::default(),
            lfsr: Default::default(),
            empty: Default::default(),
            dsp: Default::default(),
            nz: Default::default(),
            rr: Default::default(),
            th: Default::default(),
            bpen: Default::default(),
            r_snap0: Default::default(),
            r_snap1: Default::default(),
            snap_pending: Default::default(),
            o_ready: Default::default(),
            o_asg_valid: Default::default(),
            o_asg_refused: Default::default(),
            o_asg_queue: Default::default(),
            o_asg_key: Default::default(),
            o_asg_cnt: Default::default(),
            o_asg_new: Default::default(),
            o_pause_valid: Default::default(),
            o_pause_port: Default::default(),
            o_pause_queue: Default::default(),
            o_resume_valid: Default::default(),
            o_resume_port: Default::default(),
            o_resume_queue: Default::default(),
            o_bm_valid: Default::default(),
            o_bm_port: Default::default(),
            o_bm_base: Default::default(),
            o_bm_bits: Default::default(),
            h_full: Default::default(),
            h_top: Default::default(),
            key_prod: Default::default(),
            key_e: Default::default(),
            eg_m_e: Default::default(),
            eg_m_d: Default::default(),
            addr_e: Default::default(),
            addr_d: Default::default(),
            addr_a: Default::default(),
            w_seed: Default::default(),
            w_th_data: Default::default(),
            w_bpen_lo: Default::default(),
            w_bpen_hi: Default::default(),
            w_snap_index: Default::default(),
            mode_eff: Default::default(),
            sticky_eff: Default::default(),
            lfsr_eff: Default::default(),
            classes_eff: Default::default(),
            th_eff: Default::default(),
            bpen_eff: Default::default(),
            th_off: Default::default(),
            bpen_off: Default::default(),
            now_ts: Default::default(),
            ready_now: Default::default(),
            rx_ok: Default::default(),
            rx_bad: Default::default(),
            rx_idx: Default::default(),
            rx_off: Default::default(),
            rx_cmask: Default::default(),
            dsp_rx: Default::default(),
            d_ok: Default::default(),
            d_v: Default::default(),
            d_bad: Default::default(),
            d_ec: Default::default(),
            d_dc: Default::default(),
            d_size: Default::default(),
            d_size_under: Default::default(),
            d_dc_new: Default::default(),
            d_j: Default::default(),
            d_pc_old: Default::default(),
            d_pc_dec: Default::default(),
            d_pc_under: Default::default(),
            d_qi: Default::default(),
            d_ql_old: Default::default(),
            d_ql_under: Default::default(),
            d_ql_new: Default::default(),
            empty_mid: Default::default(),
            a_word: Default::default(),
            a_q: Default::default(),
            a_ec: Default::default(),
            a_dc: Default::default(),
            a_ts: Default::default(),
            a_size: Default::default(),
            e_cw: Default::default(),
            e_first: Default::default(),
            e_count: Default::default(),
            e_class_ok: Default::default(),
            e_ok: Default::default(),
            e_v: Default::default(),
            e_refused: Default::default(),
            e_age: Default::default(),
            e_reassign: Default::default(),
            e_row_off: Default::default(),
            e_row_empty: Default::default(),
            e_row_paused: Default::default(),
            e_class_mask: Default::default(),
            e_cand: Default::default(),
            e_rr: Default::default(),
            e_upper: Default::default(),
            e_pick: Default::default(),
            snap_qrow_wide: Default::default(),
            snap_prow_wide: Default::default(),
            qrow_a: Default::default(),
            prow_a: Default::default(),
            s_qlane_wide: Default::default(),
            s_plane_wide: Default::default(),
            d_qe_lane: Default::default(),
            d_qd_lane: Default::default(),
            d_qd_new: Default::default(),
            a_lane_q: Default::default(),
            e_lane_q: Default::default(),
            e_lane_u: Default::default(),
            d_lane_q: Default::default(),
            d_lane_u: Default::default(),
            a_qe_lane: Default::default(),
            a_qd_lane: Default::default(),
            e_qe_new: Default::default(),
            d_pi_lane: Default::default(),
            d_pd_lane: Default::default(),
            d_pc_write: Default::default(),
            d_pd_new: Default::default(),
            d_pc_after: Default::default(),
            a_lane_p: Default::default(),
            a_pi_lane: Default::default(),
            a_pd_lane_start: Default::default(),
            a_pd_lane: Default::default(),
            e_pc_start: Default::default(),
            e_pi_new: Default::default(),
            e_pc_fin: Default::default(),
            d_pc_fin: Default::default(),
            same_j: Default::default(),
            rx_bits: Default::default(),
            key_wide: Default::default(),
            th_wdata: Default::default(),
            bpen_lo_wdata: Default::default(),
            bpen_hi_wdata: Default::default(),
            now_wide: Default::default(),
            rx_cmask_wide: Default::default(),
            e_cw_wide: Default::default(),
            e_row_empty_wide: Default::default(),
            e_row_paused_wide: Default::default(),
            e_rr_wide: Default::default(),
            e_pick_low: Default::default(),
            e_bp_idx: Default::default(),
            bm_bits_wide: Default::default(),
            now_next_wide: Default::default(),
            s_qi: Default::default(),
            e_q_first: Default::default(),
            e_rand_prod: Default::default(),
            e_stoch_prod: Default::default(),
            e_q: Default::default(),
            e_new: Default::default(),
            e_rr_write: Default::default(),
            e_rr_next: Default::default(),
            e_size_sat: Default::default(),
            e_ec_new: Default::default(),
            e_qi: Default::default(),
            e_ql_old: Default::default(),
            e_active: Default::default(),
            e_nact: Default::default(),
            e_th_idx: Default::default(),
            e_th: Default::default(),
            e_above: Default::default(),
            e_bp: Default::default(),
            e_j: Default::default(),
            e_pc_old: Default::default(),
            e_pc_sat: Default::default(),
            e_counted: Default::default(),
            e_ql_sat: Default::default(),
            empty_fin: Default::default(),
            nz_fin: Default::default(),
            s_serve: Default::default(),
            s_table: Default::default(),
            s_k: Default::default(),
            s_ok: Default::default(),
            s_d0: Default::default(),
            s_d1: Default::default(),
            flags: Default::default(),
            now_next: Default::default(),
            ready_next: Default::default(),
            pending_next: Default::default(),
            th_index_next: Default::default(),
            bpen_index_next: Default::default(),
            snap_index_next: Default::default(),
            snap0_next: Default::default(),
            snap1_next: Default::default(),
            status_word: Default::default(),
            snap_index: Default::default(),
            th_index: Default::default(),
            bpen_index: Default::default(),
            rd_th: Default::default(),
            now_ts_next: Default::default(),
            rd_bpen_off: Default::default(),
            rd_bpen_lo: Default::default(),
            rd_bpen_hi: Default::default(),
            pause_now: Default::default(),
            resume_now: Default::default(),
            we_e: Default::default(),
            wa_e: Default::default(),
            wd_e: Default::default(),
            we_d: Default::default(),
            wa_d: Default::default(),
            wd_dc: Default::default(),
            wd_ts: Default::default(),
        }
    }
}

impl<const NB: usize, const N: usize, const R: usize> Logic for BfcCore<NB, N, R> {
    // The checked-in Verilog is generated from this code's shape; kept as synthesized until the
    // core is split into stage modules (issue 28), which rewrites it anyway.
    #[allow(clippy::collapsible_if)]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            i_enq_valid,
            i_enq_in,
            i_enq_eg,
            i_enq_len,
            i_enq_upq,
            i_enq_class,
            i_key,
            i_hash,
            i_addr_a,
            i_deq_valid,
            i_deq_eg,
            i_deq_q,
            i_deq_key,
            i_deq_cnt,
            i_deq_in,
            i_deq_upq,
            i_deq_len,
            i_addr_d,
            i_rx_valid,
            i_rx_port,
            i_rx_kind,
            i_rx_queue,
            i_rx_base,
            i_rx_bitmap,
            i_csr_we,
            i_csr_addr,
            i_csr_wdata,
            i_serve,
            fw_e_valid,
            fw_e_addr,
            fw_e_word,
            fw_d_valid,
            fw_d_addr,
            fw_d_dc,
            fw_d_ts,
            fw_qe_valid,
            fw_qe_row,
            fw_qe_lane,
            fw_qe_val,
            fw_qd_valid,
            fw_qd_row,
            fw_qd_lane,
            fw_qd_val,
            fw_pi_valid,
            fw_pi_row,
            fw_pi_lane,
            fw_pi_val,
            fw_pd_valid,
            fw_pd_row,
            fw_pd_lane,
            fw_pd_val,
            i_qrow_a,
            i_prow_a,
            live,
            now,
            init_cnt,
            init_done,
            lfsr,
            empty,
            dsp,
            nz,
            rr,
            th,
            bpen,
            r_snap0,
            r_snap1,
            snap_pending,
            o_ready,
            o_asg_valid,
            o_asg_refused,
            o_asg_queue,
            o_asg_key,
            o_asg_cnt,
            o_asg_new,
            o_pause_valid,
            o_pause_port,
            o_pause_queue,
            o_resume_valid,
            o_resume_port,
            o_resume_queue,
            o_bm_valid,
            o_bm_port,
            o_bm_base,
            o_bm_bits
        );
        self.ram_e_a.clock.next = self.clock.val();
        self.ram_e_d.clock.next = self.clock.val();
        self.ram_dc_a.clock.next = self.clock.val();
        self.ram_ts_a.clock.next = self.clock.val();
        self.ram_dc_d.clock.next = self.clock.val();
        self.qe.clock.next = self.clock.val();
        self.qd.clock.next = self.clock.val();
        self.pi.clock.next = self.clock.val();
        self.pd.clock.next = self.clock.val();

        // ---- CSR bank: the bus registered at edge n is written at edge n + 1 with this cycle's
        // events, which see it (`value_next`); a read at edge n + 1 returns the word as that
        // edge leaves it (the bank reads after the edge).
        self.csr.clock.next = self.clock.val();
        self.csr.reset.next = self.reset.val();
        self.csr.we.next = self.i_csr_we.q.val();
        self.csr.addr.next = self.i_csr_addr.q.val();
        self.csr.wdata.next = self.i_csr_wdata.q.val();
        self.csr.raddr.next = self.csr_addr.val();
        self.w_seed.next = (self.csr.write.val() & self.lfsr_seed_written.val()).any();
        self.w_th_data.next = (self.csr.write.val() & self.th_data_written.val()).any();
        self.w_bpen_lo.next = (self.csr.write.val() & self.bpen_lo_written.val()).any();
        self.w_bpen_hi.next =
            (self.csr.write.val() & self.bpen_hi_written.val()).any() & self.has_bpen_hi.val();
        self.w_snap_index.next = (self.csr.write.val() & self.snap_index_written.val()).any();

        // The snapshot request as this cycle leaves it (read before edge n + 1 below).
        self.s_serve.next = self.i_serve.q.val() & self.init_done.q.val();
        self.pending_next.next =
            (self.snap_pending.q.val() & !self.s_serve.val()) | self.w_snap_index.val();
        self.snap_index_next.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_snap_index.val().index());

        // ---- Before edge n: the arrival's key (CRC-32C, top hash_bits bits times M) and the
        // flow-table addresses egress x M + key.
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
            if self.m_entries.val().get_bit(b) {
                self.key_prod.next = self.key_prod.val() + (self.h_top.val() << b.to_bits::<8>());
            }
        }
        self.key_wide.next = self.key_prod.val() >> self.hash_bits.val();
        self.key_e.next = bit_cast::<17, 64>(self.key_wide.val());
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
        self.addr_e.next = self.eg_m_e.val() + bit_cast::<FA, 17>(self.key_e.val());
        self.addr_d.next = self.eg_m_d.val() + bit_cast::<FA, 17>(self.deq_ft_key.val());
        // The arrival-side read port is free on an edge without an arrival: a snapshot uses it.
        if self.enq_valid.val() {
            self.addr_a.next = self.addr_e.val();
        } else {
            self.addr_a.next = bit_cast::<FA, 32>(self.snap_index_next.val());
        }
        self.ram_e_a.read_address.next = self.addr_a.val();
        self.ram_dc_a.read_address.next = self.addr_a.val();
        self.ram_ts_a.read_address.next = self.addr_a.val();
        self.ram_e_d.read_address.next = self.addr_d.val();
        self.ram_dc_d.read_address.next = self.addr_d.val();
        self.i_enq_valid.d.next = self.enq_valid.val();
        self.i_enq_in.d.next = self.enq_in_port.val();
        self.i_enq_eg.d.next = self.enq_eg_port.val();
        self.i_enq_len.d.next = self.enq_len.val();
        self.i_enq_upq.d.next = self.enq_upstream_q.val();
        self.i_enq_class.d.next = self.enq_class.val();
        self.i_key.d.next = self.key_e.val();
        self.i_hash.d.next = self.h_full.val();
        self.i_addr_a.d.next = self.addr_a.val() & self.ft_addr_mask.val();
        // Counter rows: the arrival's egress and ingress rows, or the snapshot's row.
        self.snap_qrow_wide.next =
            (self.snap_index_next.val() & self.snap_k_mask.val()) >> self.queue_bits.val();
        self.snap_prow_wide.next =
            (self.snap_index_next.val() & self.snap_k_mask.val()) >> self.upstream_bits.val();
        self.qrow_a.next = bit_cast::<6, 32>(self.snap_qrow_wide.val());
        self.prow_a.next = bit_cast::<6, 32>(self.snap_prow_wide.val());
        if self.enq_valid.val() {
            self.qrow_a.next = self.enq_eg_port.val();
            self.prow_a.next = self.enq_in_port.val();
        }
        self.qe.read_address.next = self.qrow_a.val();
        self.qd.read_address.next = self.qrow_a.val();
        self.pi.read_address.next = self.prow_a.val();
        self.pd.read_address.next = self.prow_a.val();
        self.qe.read_address_b.next = self.deq_eg_port.val();
        self.qd.read_address_b.next = self.deq_eg_port.val();
        self.pi.read_address_b.next = self.deq_in_port.val();
        self.pd.read_address_b.next = self.deq_in_port.val();
        self.i_qrow_a.d.next = self.qrow_a.val();
        self.i_prow_a.d.next = self.prow_a.val();
        self.i_deq_valid.d.next = self.deq_valid.val();
        self.i_deq_eg.d.next = self.deq_eg_port.val();
        self.i_deq_q.d.next = self.deq_queue.val();
        self.i_deq_key.d.next = self.deq_ft_key.val();
        self.i_deq_cnt.d.next = self.deq_counter_incr.val();
        self.i_deq_in.d.next = self.deq_in_port.val();
        self.i_deq_upq.d.next = self.deq_upstream_q.val();
        self.i_deq_len.d.next = self.deq_len.val();
        self.i_addr_d.d.next = self.addr_d.val() & self.ft_addr_mask.val();
        self.i_rx_valid.d.next = self.rx_valid.val();
        self.i_rx_port.d.next = self.rx_port.val();
        self.i_rx_kind.d.next = self.rx_kind.val();
        self.i_rx_queue.d.next = self.rx_queue.val();
        self.i_rx_base.d.next = self.rx_base.val();
        self.i_rx_bitmap.d.next = self.rx_bitmap.val();
        self.i_csr_we.d.next = self.csr_we.val();
        self.i_csr_addr.d.next = self.csr_addr.val();
        self.i_csr_wdata.d.next = self.csr_wdata.val();
        // As the registers stand after this cycle (a request written this cycle counts).
        self.i_serve.d.next = self.pending_next.val() & !self.enq_valid.val();

        // ---- Cycle n: registers as this edge's events see them.
        self.snap_index.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_snap_index.val().index());
        self.th_index.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_th_index.val().index());
        self.bpen_index.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_bpen_index.val().index());
        self.s_k.next = self.snap_index.val() & self.snap_k_mask.val();
        self.s_qi.next = bit_cast::<NB, 32>(self.s_k.val());
        self.s_qlane_wide.next =
            self.s_k.val() & ((self.one_32.val() << self.queue_bits.val()) - self.one_32.val());
        self.s_plane_wide.next =
            self.s_k.val() & ((self.one_32.val() << self.upstream_bits.val()) - self.one_32.val());
        self.mode_eff.next = self
            .csr
            .value_next
            .val()
            .get_bits::<2>(self.at_mode.val().index());
        self.sticky_eff.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_sticky.val().index());
        self.lfsr_eff.next = self.lfsr.q.val();
        if self.w_seed.val() {
            if self.i_csr_wdata.q.val().any() {
                self.lfsr_eff.next = self.i_csr_wdata.q.val();
            } else {
                self.lfsr_eff.next = self.one_32.val();
            }
        }
        // The class words, one 32-bit slot each (15 bits stored).
        self.classes_eff.next = self
            .csr
            .value_next
            .val()
            .get_bits::<256>(self.at_class0.val().index());
        self.th_off.next = (bit_cast::<12, 32>(self.th_index.val()) & self.th_lane_mask.val()) << 5;
        self.th_wdata.next = self.i_csr_wdata.q.val() & self.occ_max.val();
        // The Th table is kept XOR its reset value, so its register resets to 0.
        self.th_eff.next = self.th.q.val() ^ self.reset_th.val();
        if self.w_th_data.val() & (self.th_index.val() < bit_cast::<32, 8>(self.n_queues.val())) {
            self.th_eff.next = ((self.th.q.val() ^ self.reset_th.val())
                & !(self.lane_th.val() << self.th_off.val()))
                | (bit_cast::<4096, 32>(self.th_wdata.val()) << self.th_off.val());
        }
        self.bpen_off.next =
            (bit_cast::<12, 32>(self.bpen_index.val()) & self.port_mask.val()) << 6;
        self.bpen_lo_wdata.next = !self.i_csr_wdata.q.val() & self.bpen_lo_mask.val();
        self.bpen_hi_wdata.next = !self.i_csr_wdata.q.val() & self.bpen_hi_mask.val();
        // bpEn is kept inverted (set bits disable backpressure), so its reset value is 0.
        self.bpen_eff.next = self.bpen.q.val();
        if self.bpen_index.val() < bit_cast::<32, 8>(self.n_ports.val()) {
            if self.w_bpen_lo.val() {
                self.bpen_eff.next = (self.bpen.q.val()
                    & !(bit_cast::<4096, 32>(self.bpen_lo_mask.val()) << self.bpen_off.val()))
                    | (bit_cast::<4096, 32>(self.bpen_lo_wdata.val()) << self.bpen_off.val());
            }
            if self.w_bpen_hi.val() {
                self.bpen_eff.next = (self.bpen.q.val()
                    & !(bit_cast::<4096, 32>(self.bpen_hi_mask.val())
                        << (self.bpen_off.val() + self.c32_16.val())))
                    | (bit_cast::<4096, 32>(self.bpen_hi_wdata.val())
                        << (self.bpen_off.val() + self.c32_16.val()));
            }
        }
        self.now_wide.next = self.now.q.val() >> self.ts_shift.val();
        self.now_ts.next = bit_cast::<32, 48>(self.now_wide.val()) & self.ts_mask.val();
        self.ready_now.next = self.init_done.q.val();

        // ---- The received frame: downstream pause state of one queue or 32 at once.
        self.rx_idx.next = (bit_cast::<16, 6>(self.i_rx_port.q.val()) << self.queue_bits.val())
            | bit_cast::<16, 7>(self.i_rx_queue.q.val());
        self.rx_off.next = (bit_cast::<16, 6>(self.i_rx_port.q.val()) << self.queue_bits.val())
            + (bit_cast::<16, 2>(self.i_rx_base.q.val()) << 5);
        self.rx_cmask_wide.next =
            self.queue_valid.val() >> (bit_cast::<8, 2>(self.i_rx_base.q.val()) << 5);
        self.rx_cmask.next = bit_cast::<32, 128>(self.rx_cmask_wide.val());
        self.rx_bits.next = self.i_rx_bitmap.q.val() & self.rx_cmask.val();
        self.rx_ok.next = false;
        if bit_cast::<8, 6>(self.i_rx_port.q.val()) < self.n_ports.val() {
            if (self.i_rx_kind.q.val() == self.kind_pause.val())
                | (self.i_rx_kind.q.val() == self.kind_resume.val())
            {
                self.rx_ok.next = bit_cast::<8, 7>(self.i_rx_queue.q.val()) < self.n_queues.val();
            }
            if self.i_rx_kind.q.val() == self.kind_bitmap.val() {
                self.rx_ok.next = bit_cast::<8, 2>(self.i_rx_base.q.val()) < self.rx_chunks.val();
            }
        }
        self.rx_bad.next = self.i_rx_valid.q.val() & self.ready_now.val() & !self.rx_ok.val();
        self.dsp_rx.next = self.dsp.q.val();
        if self.i_rx_valid.q.val() & self.ready_now.val() & self.rx_ok.val() {
            if self.i_rx_kind.q.val() == self.kind_pause.val() {
                self.dsp_rx.next = self.dsp.q.val() | (self.one_n.val() << self.rx_idx.val());
            }
            if self.i_rx_kind.q.val() == self.kind_resume.val() {
                self.dsp_rx.next = self.dsp.q.val() & !(self.one_n.val() << self.rx_idx.val());
            }
            if self.i_rx_kind.q.val() == self.kind_bitmap.val() {
                self.dsp_rx.next = (self.dsp.q.val()
                    & !(bit_cast::<N, 32>(self.rx_cmask.val()) << self.rx_off.val()))
                    | (bit_cast::<N, 32>(self.rx_bits.val()) << self.rx_off.val());
            }
        }

        // ---- The departure: flow-table counts at its key, its pause counter, its queue.
        self.d_ok.next = (bit_cast::<8, 6>(self.i_deq_eg.q.val()) < self.n_ports.val())
            & self.i_deq_q.q.val().any()
            & (bit_cast::<8, 7>(self.i_deq_q.q.val()) < self.n_queues.val())
            & (bit_cast::<32, 17>(self.i_deq_key.q.val()) < self.m_entries.val())
            & self.i_deq_len.q.val().any()
            & (!self.i_deq_cnt.q.val()
                | ((bit_cast::<8, 6>(self.i_deq_in.q.val()) < self.n_ports.val())
                    & (bit_cast::<8, 7>(self.i_deq_upq.q.val()) < self.n_upstream.val())));
        self.d_v.next = self.i_deq_valid.q.val() & self.ready_now.val() & self.d_ok.val();
        self.d_bad.next = self.i_deq_valid.q.val() & self.ready_now.val() & !self.d_ok.val();
        self.d_ec.next = self.ram_e_d.read_data.val() >> 8;
        if self.fw_e_valid.q.val() & (self.fw_e_addr.q.val() == self.i_addr_d.q.val()) {
            self.d_ec.next = self.fw_e_word.q.val() >> 8;
        }
        self.d_dc.next = self.ram_dc_d.read_data.val();
        if self.fw_d_valid.q.val() & (self.fw_d_addr.q.val() == self.i_addr_d.q.val()) {
            self.d_dc.next = self.fw_d_dc.q.val();
        }
        self.d_size.next = (self.d_ec.val() - self.d_dc.val()) & self.size_mask.val();
        self.d_size_under.next = !self.d_size.val().any();
        self.d_dc_new.next = self.d_dc.val();
        if !self.d_size_under.val() {
            self.d_dc_new.next = (self.d_dc.val() + self.one_32.val()) & self.size_mask.val();
        }
        self.d_lane_q.next = bit_cast::<8, 7>(self.i_deq_q.q.val()) & self.q_lane_mask.val();
        self.d_lane_u.next = bit_cast::<8, 7>(self.i_deq_upq.q.val()) & self.u_lane_mask.val();
        self.d_j.next = (bit_cast::<16, 6>(self.i_deq_in.q.val()) << self.upstream_bits.val())
            | bit_cast::<16, 7>(self.i_deq_upq.q.val());
        // Its pause counter: increments - decrements at (ingress, upstreamQ), each bank with
        // the lane it wrote at the last edge.
        self.d_pi_lane.next = self
            .pi
            .read_data_b
            .val()
            .get_bits::<32>(self.d_lane_u.val().index() * 32);
        if self.fw_pi_valid.q.val()
            & (self.fw_pi_row.q.val() == self.i_deq_in.q.val())
            & (self.fw_pi_lane.q.val() == self.d_lane_u.val())
        {
            self.d_pi_lane.next = self.fw_pi_val.q.val();
        }
        self.d_pd_lane.next = self
            .pd
            .read_data_b
            .val()
            .get_bits::<32>(self.d_lane_u.val().index() * 32);
        if self.fw_pd_valid.q.val()
            & (self.fw_pd_row.q.val() == self.i_deq_in.q.val())
            & (self.fw_pd_lane.q.val() == self.d_lane_u.val())
        {
            self.d_pd_lane.next = self.fw_pd_val.q.val();
        }
        self.d_pc_old.next = (self.d_pi_lane.val() - self.d_pd_lane.val()) & self.pc_max.val();
        self.d_pc_dec.next = self.d_v.val() & self.i_deq_cnt.q.val();
        self.d_pc_under.next = self.d_pc_dec.val() & !self.d_pc_old.val().any();
        self.d_pc_write.next = self.d_pc_dec.val() & !self.d_pc_under.val();
        self.d_pd_new.next = self.d_pd_lane.val() + self.one_32.val();
        self.d_pc_after.next = self.d_pc_old.val();
        if self.d_pc_write.val() {
            self.d_pc_after.next = self.d_pc_old.val() - self.one_32.val();
        }
        self.d_qi.next = (bit_cast::<16, 6>(self.i_deq_eg.q.val()) << self.queue_bits.val())
            | bit_cast::<16, 7>(self.i_deq_q.q.val());
        // Its queue: enqueued - dequeued bytes at (egress, queue); an underflow dequeues what
        // is there, so the queue reads 0.
        self.d_qe_lane.next = self
            .qe
            .read_data_b
            .val()
            .get_bits::<32>(self.d_lane_q.val().index() * 32);
        if self.fw_qe_valid.q.val()
            & (self.fw_qe_row.q.val() == self.i_deq_eg.q.val())
            & (self.fw_qe_lane.q.val() == self.d_lane_q.val())
        {
            self.d_qe_lane.next = self.fw_qe_val.q.val();
        }
        self.d_qd_lane.next = self
            .qd
            .read_data_b
            .val()
            .get_bits::<32>(self.d_lane_q.val().index() * 32);
        if self.fw_qd_valid.q.val()
            & (self.fw_qd_row.q.val() == self.i_deq_eg.q.val())
            & (self.fw_qd_lane.q.val() == self.d_lane_q.val())
        {
            self.d_qd_lane.next = self.fw_qd_val.q.val();
        }
        self.d_ql_old.next = (self.d_qe_lane.val() - self.d_qd_lane.val()) & self.occ_max.val();
        self.d_ql_under.next =
            self.d_v.val() & (self.d_ql_old.val() < bit_cast::<32, 16>(self.i_deq_len.q.val()));
        self.d_ql_new.next = self.d_ql_old.val() - bit_cast::<32, 16>(self.i_deq_len.q.val());
        self.d_qd_new.next = self.d_qd_lane.val() + bit_cast::<32, 16>(self.i_deq_len.q.val());
        if self.d_ql_under.val() {
            self.d_ql_new.next = 0.into();
            self.d_qd_new.next = self.d_qe_lane.val();
        }
        self.empty_mid.next = self.empty.q.val();
        if self.d_v.val() {
            if !self.d_ql_new.val().any() {
                self.empty_mid.next = self.empty.q.val() | (self.one_n.val() << self.d_qi.val());
            }
        }

        // ---- The arrival's entry (or the snapshot's), after the departure of this cycle.
        self.a_word.next = self.ram_e_a.read_data.val();
        if self.fw_e_valid.q.val() & (self.fw_e_addr.q.val() == self.i_addr_a.q.val()) {
            self.a_word.next = self.fw_e_word.q.val();
        }
        self.a_q.next = self.a_word.val().get_bits::<8>(0);
        self.a_ec.next = self.a_word.val() >> 8;
        self.a_dc.next = self.ram_dc_a.read_data.val();
        self.a_ts.next = self.ram_ts_a.read_data.val();
        if self.fw_d_valid.q.val() & (self.fw_d_addr.q.val() == self.i_addr_a.q.val()) {
            self.a_dc.next = self.fw_d_dc.q.val();
            self.a_ts.next = self.fw_d_ts.q.val();
        }
        if self.d_v.val() & (self.i_addr_d.q.val() == self.i_addr_a.q.val()) {
            self.a_dc.next = self.d_dc_new.val();
            self.a_ts.next = self.now_ts.val();
        }
        self.a_size.next = (self.a_ec.val() - self.a_dc.val()) & self.size_mask.val();

        // ---- The arrival.
        self.e_cw_wide.next =
            self.classes_eff.val() >> (bit_cast::<8, 3>(self.i_enq_class.q.val()) << 5);
        // (A class past the config's refuses the arrival, see e_ok.)
        self.e_cw.next = bit_cast::<16, 256>(self.e_cw_wide.val());
        self.e_first.next = bit_cast::<8, 16>(self.e_cw.val()) & self.mask_7.val();
        self.e_count.next = self.e_cw.val().get_bits::<8>(8) & self.mask_7.val();
        self.e_class_ok.next = self.e_first.val().any()
            & self.e_count.val().any()
            & ((self.e_first.val() + self.e_count.val()) <= self.n_queues.val());
        // A valid class lies in 1..queues, so its first queue and count fit the queue bits;
        // an invalid one refuses the arrival. Narrowed, the class mask, the products and the
        // candidate search below shrink to the config's queues in synthesis.
        self.e_first.next = self.e_first.val() & self.q_lane_mask.val();
        self.e_count.next = self.e_count.val() & self.q_lane_mask.val();
        self.e_ok.next = (bit_cast::<8, 6>(self.i_enq_in.q.val()) < self.n_ports.val())
            & (bit_cast::<8, 6>(self.i_enq_eg.q.val()) < self.n_ports.val())
            & (bit_cast::<8, 7>(self.i_enq_upq.q.val()) < self.n_upstream.val())
            & (bit_cast::<8, 3>(self.i_enq_class.q.val()) < self.n_classes.val())
            & self.i_enq_len.q.val().any()
            & self.e_class_ok.val();
        self.e_v.next = self.i_enq_valid.q.val() & self.ready_now.val() & self.e_ok.val();
        self.e_refused.next = self.i_enq_valid.q.val() & !(self.ready_now.val() & self.e_ok.val());
        self.e_age.next = (self.now_ts.val() - self.a_ts.val()) & self.ts_mask.val();
        self.e_reassign.next = !self.a_size.val().any()
            & (!self.a_q.val().any() | (self.e_age.val() >= self.sticky_eff.val()));
        self.e_row_off.next = bit_cast::<16, 6>(self.i_enq_eg.q.val()) << self.queue_bits.val();
        self.e_row_empty_wide.next = self.empty_mid.val() >> self.e_row_off.val();
        self.e_row_empty.next = bit_cast::<128, N>(self.e_row_empty_wide.val());
        self.e_row_paused_wide.next = self.dsp_rx.val() >> self.e_row_off.val();
        self.e_row_paused.next = bit_cast::<128, N>(self.e_row_paused_wide.val());
        self.e_class_mask.next =
            ((self.one_128.val() << self.e_count.val()) - self.one_128.val()) << self.e_first.val();
        self.e_cand.next =
            self.e_row_empty.val() & self.e_class_mask.val() & self.data_queues.val();
        self.e_rr_wide.next = self.rr.q.val() >> (bit_cast::<16, 6>(self.i_enq_eg.q.val()) << 3);
        self.e_rr.next = bit_cast::<8, 512>(self.e_rr_wide.val());
        self.e_upper.next =
            self.e_cand.val() & !((self.one_128.val() << self.e_rr.val()) - self.one_128.val());
        self.e_pick.next = self.e_cand.val();
        if self.e_upper.val().any() {
            self.e_pick.next = self.e_upper.val();
        }
        // The lowest set bit (x & -x), then its index by OR-ing the indices of the one-hot bits:
        // a carry chain and an OR tree instead of a 128-deep priority chain.
        self.e_pick_low.next = self.e_pick.val() & (!self.e_pick.val() + self.one_128.val());
        self.e_q_first.next = 0.into();
        for q in 0..128 {
            if self.e_pick_low.val().get_bit(q) {
                self.e_q_first.next = self.e_q_first.val() | q.to_bits::<8>();
            }
        }
        // first + (top 16 bits x count) >> 16, for the LFSR and for the flow hash.
        self.e_rand_prod.next = 0.into();
        self.e_stoch_prod.next = 0.into();
        for b in 0..7 {
            if self.e_count.val().get_bit(b) {
                self.e_rand_prod.next =
                    self.e_rand_prod.val() + ((self.lfsr_eff.val() >> 16) << b.to_bits::<8>());
                self.e_stoch_prod.next =
                    self.e_stoch_prod.val() + ((self.i_hash.q.val() >> 16) << b.to_bits::<8>());
            }
        }
        self.e_new.next = false;
        self.e_rr_write.next = false;
        if self.mode_eff.val() == self.mode_stochastic.val() {
            self.e_q.next = self.e_first.val() + self.e_stoch_prod.val().get_bits::<8>(16);
        } else if self.mode_eff.val() == self.mode_single.val() {
            self.e_q.next = self.e_first.val();
        } else if self.e_reassign.val() {
            self.e_new.next = true;
            if self.e_cand.val().any() {
                self.e_q.next = self.e_q_first.val();
                self.e_rr_write.next = true;
            } else {
                self.e_q.next = self.e_first.val() + self.e_rand_prod.val().get_bits::<8>(16);
            }
        } else {
            self.e_q.next = self.a_q.val();
        }
        self.e_rr_next.next = self.e_q.val() + self.one_8.val();
        if self.e_rr_next.val() == self.n_queues.val() {
            self.e_rr_next.next = 0.into();
        }
        self.e_size_sat.next = self.a_size.val() == self.size_mask.val();
        self.e_ec_new.next = self.a_ec.val();
        if !self.e_size_sat.val() {
            self.e_ec_new.next = (self.a_ec.val() + self.one_32.val()) & self.size_mask.val();
        }
        // The threshold test on the queue before this packet, after this cycle's departure.
        self.e_qi.next = self.e_row_off.val() | bit_cast::<16, 8>(self.e_q.val());
        // The arrival-side lane: the arrival's queue, or the snapshot's.
        self.e_lane_q.next = self.e_q.val() & self.q_lane_mask.val();
        self.a_lane_q.next = self.e_lane_q.val();
        if !self.i_enq_valid.q.val() {
            self.a_lane_q.next = bit_cast::<8, 32>(self.s_qlane_wide.val());
        }
        self.a_qe_lane.next = self
            .qe
            .read_data
            .val()
            .get_bits::<32>(self.a_lane_q.val().index() * 32);
        if self.fw_qe_valid.q.val()
            & (self.fw_qe_row.q.val() == self.i_qrow_a.q.val())
            & (self.fw_qe_lane.q.val() == self.a_lane_q.val())
        {
            self.a_qe_lane.next = self.fw_qe_val.q.val();
        }
        self.a_qd_lane.next = self
            .qd
            .read_data
            .val()
            .get_bits::<32>(self.a_lane_q.val().index() * 32);
        if self.fw_qd_valid.q.val()
            & (self.fw_qd_row.q.val() == self.i_qrow_a.q.val())
            & (self.fw_qd_lane.q.val() == self.a_lane_q.val())
        {
            self.a_qd_lane.next = self.fw_qd_val.q.val();
        }
        if self.d_v.val()
            & (self.i_deq_eg.q.val() == self.i_qrow_a.q.val())
            & (self.d_lane_q.val() == self.a_lane_q.val())
        {
            self.a_qd_lane.next = self.d_qd_new.val();
        }
        self.e_ql_old.next = (self.a_qe_lane.val() - self.a_qd_lane.val()) & self.occ_max.val();
        self.e_active.next =
            !self.e_row_empty.val() & !self.e_row_paused.val() & self.data_queues.val();
        self.e_nact.next = 0.into();
        for q in 0..128 {
            if self.e_active.val().get_bit(q) {
                self.e_nact.next = self.e_nact.val() + self.one_8.val();
            }
        }
        self.e_th_idx.next = 0.into();
        if self.e_nact.val().any() {
            self.e_th_idx.next = (self.e_nact.val() - self.one_8.val()) & self.q_lane_mask.val();
        }
        self.e_th.next = self
            .th_eff
            .val()
            .get_bits::<32>(self.e_th_idx.val().index() * 32);
        self.e_above.next = self.e_ql_old.val() > self.e_th.val();
        self.e_bp_idx.next = ((bit_cast::<12, 6>(self.i_enq_in.q.val()) & self.port_mask.val())
            << 6)
            | (bit_cast::<12, 6>(self.i_enq_eg.q.val()) & self.port_mask.val());
        self.e_bp.next = !self.bpen_eff.val().get_bit(self.e_bp_idx.val().index());
        self.e_j.next = (bit_cast::<16, 6>(self.i_enq_in.q.val()) << self.upstream_bits.val())
            | bit_cast::<16, 7>(self.i_enq_upq.q.val());
        self.e_lane_u.next = bit_cast::<8, 7>(self.i_enq_upq.q.val()) & self.u_lane_mask.val();
        self.a_lane_p.next = self.e_lane_u.val();
        if !self.i_enq_valid.q.val() {
            self.a_lane_p.next = bit_cast::<8, 32>(self.s_plane_wide.val());
        }
        self.a_pi_lane.next = self
            .pi
            .read_data
            .val()
            .get_bits::<32>(self.a_lane_p.val().index() * 32);
        if self.fw_pi_valid.q.val()
            & (self.fw_pi_row.q.val() == self.i_prow_a.q.val())
            & (self.fw_pi_lane.q.val() == self.a_lane_p.val())
        {
            self.a_pi_lane.next = self.fw_pi_val.q.val();
        }
        self.a_pd_lane_start.next = self
            .pd
            .read_data
            .val()
            .get_bits::<32>(self.a_lane_p.val().index() * 32);
        if self.fw_pd_valid.q.val()
            & (self.fw_pd_row.q.val() == self.i_prow_a.q.val())
            & (self.fw_pd_lane.q.val() == self.a_lane_p.val())
        {
            self.a_pd_lane_start.next = self.fw_pd_val.q.val();
        }
        self.a_pd_lane.next = self.a_pd_lane_start.val();
        if self.d_pc_write.val()
            & (self.i_deq_in.q.val() == self.i_prow_a.q.val())
            & (self.d_lane_u.val() == self.a_lane_p.val())
        {
            self.a_pd_lane.next = self.d_pd_new.val();
        }
        // The counter at the start of the cycle (for PAUSE) and after this cycle's departure.
        self.e_pc_start.next =
            (self.a_pi_lane.val() - self.a_pd_lane_start.val()) & self.pc_max.val();
        self.e_pc_old.next = (self.a_pi_lane.val() - self.a_pd_lane.val()) & self.pc_max.val();
        self.e_pc_sat.next = self.e_pc_old.val() == self.pc_max.val();
        self.e_counted.next =
            self.e_v.val() & self.e_above.val() & self.e_bp.val() & !self.e_pc_sat.val();
        self.e_pi_new.next = self.a_pi_lane.val() + self.one_32.val();
        self.e_pc_fin.next = self.e_pc_old.val();
        if self.e_counted.val() {
            self.e_pc_fin.next = self.e_pc_old.val() + self.one_32.val();
        }
        // The departure's counter after the cycle: the arrival's result if it is the same one.
        self.same_j.next = self.e_v.val()
            & (self.i_enq_in.q.val() == self.i_deq_in.q.val())
            & (self.i_enq_upq.q.val() == self.i_deq_upq.q.val());
        self.d_pc_fin.next = self.d_pc_after.val();
        if self.same_j.val() {
            self.d_pc_fin.next = self.e_pc_fin.val();
        }
        self.e_ql_sat.next =
            (self.occ_max.val() - self.e_ql_old.val()) < bit_cast::<32, 16>(self.i_enq_len.q.val());
        // A saturated queue holds occ_max: enqueued = dequeued + occ_max.
        self.e_qe_new.next = self.a_qe_lane.val() + bit_cast::<32, 16>(self.i_enq_len.q.val());
        if self.e_ql_sat.val() {
            self.e_qe_new.next = self.a_qd_lane.val() + self.occ_max.val();
        }
        self.empty_fin.next = self.empty_mid.val();
        if self.e_v.val() {
            self.empty_fin.next = self.empty_mid.val() & !(self.one_n.val() << self.e_qi.val());
        }
        self.nz_fin.next = self.nz.q.val();
        if self.d_pc_dec.val() {
            if self.d_pc_fin.val().any() {
                self.nz_fin.next = self.nz_fin.val() | (self.one_n.val() << self.d_j.val());
            } else {
                self.nz_fin.next = self.nz_fin.val() & !(self.one_n.val() << self.d_j.val());
            }
        }
        if self.e_v.val() {
            if self.e_pc_fin.val().any() {
                self.nz_fin.next = self.nz_fin.val() | (self.one_n.val() << self.e_j.val());
            } else {
                self.nz_fin.next = self.nz_fin.val() & !(self.one_n.val() << self.e_j.val());
            }
        }

        // Flow-table writes: the arrival to bank E, the departure to bank D, or the reset sweep.
        self.we_e.next = self.e_v.val();
        self.wa_e.next = self.i_addr_a.q.val();
        self.wd_e.next = bit_cast::<32, 8>(self.e_q.val()) | (self.e_ec_new.val() << 8);
        self.we_d.next = self.d_v.val();
        self.wa_d.next = self.i_addr_d.q.val();
        self.wd_dc.next = self.d_dc_new.val();
        self.wd_ts.next = self.now_ts.val();
        if self.live.q.val() & !self.init_done.q.val() {
            self.we_e.next = true;
            self.wa_e.next = bit_cast::<FA, 32>(self.init_cnt.q.val());
            self.wd_e.next = 0.into();
            self.we_d.next = true;
            self.wa_d.next = bit_cast::<FA, 32>(self.init_cnt.q.val());
            self.wd_dc.next = 0.into();
            self.wd_ts.next = 0.into();
        }
        self.ram_e_a.write_enable.next = self.we_e.val();
        self.ram_e_a.write_address.next = self.wa_e.val();
        self.ram_e_a.write_data.next = self.wd_e.val();
        self.ram_e_d.write_enable.next = self.we_e.val();
        self.ram_e_d.write_address.next = self.wa_e.val();
        self.ram_e_d.write_data.next = self.wd_e.val();
        self.ram_dc_a.write_enable.next = self.we_d.val();
        self.ram_dc_a.write_address.next = self.wa_d.val();
        self.ram_dc_a.write_data.next = self.wd_dc.val();
        self.ram_dc_d.write_enable.next = self.we_d.val();
        self.ram_dc_d.write_address.next = self.wa_d.val();
        self.ram_dc_d.write_data.next = self.wd_dc.val();
        self.ram_ts_a.write_enable.next = self.we_d.val();
        self.ram_ts_a.write_address.next = self.wa_d.val();
        self.ram_ts_a.write_data.next = self.wd_ts.val();
        self.fw_e_valid.d.next = self.we_e.val();
        self.fw_e_addr.d.next = self.wa_e.val();
        self.fw_e_word.d.next = self.wd_e.val();
        self.fw_d_valid.d.next = self.we_d.val();
        self.fw_d_addr.d.next = self.wa_d.val();
        self.fw_d_dc.d.next = self.wd_dc.val();
        self.fw_d_ts.d.next = self.wd_ts.val();
        // Counter rows: each bank writes one lane; the reset sweep clears every row.
        self.qe.write_enable.next = self.e_v.val();
        self.qe.write_address.next = self.i_enq_eg.q.val();
        self.qe.write_clear.next = false;
        self.qe.write_lane.next = self.e_lane_q.val();
        self.qe.write_value.next = self.e_qe_new.val();
        self.qd.write_enable.next = self.d_v.val();
        self.qd.write_address.next = self.i_deq_eg.q.val();
        self.qd.write_clear.next = false;
        self.qd.write_lane.next = self.d_lane_q.val();
        self.qd.write_value.next = self.d_qd_new.val();
        self.pi.write_enable.next = self.e_counted.val();
        self.pi.write_address.next = self.i_enq_in.q.val();
        self.pi.write_clear.next = false;
        self.pi.write_lane.next = self.e_lane_u.val();
        self.pi.write_value.next = self.e_pi_new.val();
        self.pd.write_enable.next = self.d_pc_write.val();
        self.pd.write_address.next = self.i_deq_in.q.val();
        self.pd.write_clear.next = false;
        self.pd.write_lane.next = self.d_lane_u.val();
        self.pd.write_value.next = self.d_pd_new.val();
        if self.live.q.val() & !self.init_done.q.val() {
            self.qe.write_enable.next = true;
            self.qe.write_address.next = bit_cast::<6, 32>(self.init_cnt.q.val());
            self.qe.write_clear.next = true;
            self.qd.write_enable.next = true;
            self.qd.write_address.next = bit_cast::<6, 32>(self.init_cnt.q.val());
            self.qd.write_clear.next = true;
            self.pi.write_enable.next = true;
            self.pi.write_address.next = bit_cast::<6, 32>(self.init_cnt.q.val());
            self.pi.write_clear.next = true;
            self.pd.write_enable.next = true;
            self.pd.write_address.next = bit_cast::<6, 32>(self.init_cnt.q.val());
            self.pd.write_clear.next = true;
        }
        self.fw_qe_valid.d.next = self.e_v.val();
        self.fw_qe_row.d.next = self.i_enq_eg.q.val();
        self.fw_qe_lane.d.next = self.e_lane_q.val();
        self.fw_qe_val.d.next = self.e_qe_new.val() & self.occ_max.val();
        self.fw_qd_valid.d.next = self.d_v.val();
        self.fw_qd_row.d.next = self.i_deq_eg.q.val();
        self.fw_qd_lane.d.next = self.d_lane_q.val();
        self.fw_qd_val.d.next = self.d_qd_new.val() & self.occ_max.val();
        self.fw_pi_valid.d.next = self.e_counted.val();
        self.fw_pi_row.d.next = self.i_enq_in.q.val();
        self.fw_pi_lane.d.next = self.e_lane_u.val();
        self.fw_pi_val.d.next = self.e_pi_new.val() & self.pc_max.val();
        self.fw_pd_valid.d.next = self.d_pc_write.val();
        self.fw_pd_row.d.next = self.i_deq_in.q.val();
        self.fw_pd_lane.d.next = self.d_lane_u.val();
        self.fw_pd_val.d.next = self.d_pd_new.val() & self.pc_max.val();

        // ---- The bitmap timer, with the period this cycle's events see.
        self.bitmap.clock.next = self.clock.val();
        self.bitmap.reset.next = self.reset.val();
        self.bitmap.live.next = self.live.q.val();
        self.bitmap.t_bm.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_t_bm.val().index());

        // ---- A snapshot, after this edge's events.
        self.s_table.next = self.snap_index.val().get_bits::<2>(20);
        self.s_ok.next = false;
        self.s_d0.next = 0.into();
        self.s_d1.next = 0.into();
        if self.s_table.val() == self.t_flow_table.val() {
            self.s_ok.next = self.s_k.val() < self.ft_entries.val();
            self.s_d0.next = bit_cast::<32, 8>(self.a_q.val()) | (self.a_size.val() << 8);
            self.s_d1.next = self.a_ts.val();
        }
        if self.s_table.val() == self.t_pause_counter.val() {
            self.s_ok.next = ((self.s_k.val() >> self.upstream_bits.val())
                < bit_cast::<32, 8>(self.n_ports.val()))
                & ((self.s_k.val()
                    & ((self.one_32.val() << self.upstream_bits.val()) - self.one_32.val()))
                    < bit_cast::<32, 8>(self.n_upstream.val()));
            self.s_d0.next = self.e_pc_old.val();
        }
        if self.s_table.val() == self.t_queue.val() {
            self.s_ok.next = ((self.s_k.val() >> self.queue_bits.val())
                < bit_cast::<32, 8>(self.n_ports.val()))
                & ((self.s_k.val()
                    & ((self.one_32.val() << self.queue_bits.val()) - self.one_32.val()))
                    < bit_cast::<32, 8>(self.n_queues.val()));
            self.s_d0.next = self.e_ql_old.val();
            if self.dsp_rx.val().get_bit(self.s_qi.val().index()) {
                self.s_d1.next = self.one_32.val();
            }
        }
        if !self.s_ok.val() {
            self.s_d0.next = 0.into();
            self.s_d1.next = 0.into();
        }
        self.snap0_next.next = self.r_snap0.q.val();
        self.snap1_next.next = self.r_snap1.q.val();
        if self.s_serve.val() {
            self.snap0_next.next = self.s_d0.val();
            self.snap1_next.next = self.s_d1.val();
        }

        // ---- Next state.
        self.flags.next = 0.into();
        if self.rx_bad.val() | self.d_bad.val() | (self.e_refused.val() & self.ready_now.val()) {
            self.flags.next = self.flags.val() | self.f_bad_event.val();
        }
        if !self.ready_now.val()
            & (self.i_enq_valid.q.val() | self.i_deq_valid.q.val() | self.i_rx_valid.q.val())
        {
            self.flags.next = self.flags.val() | self.f_not_ready.val();
        }
        if self.e_v.val() & self.e_size_sat.val() {
            self.flags.next = self.flags.val() | self.f_size_saturated.val();
        }
        if self.d_v.val() & self.d_size_under.val() {
            self.flags.next = self.flags.val() | self.f_size_underflow.val();
        }
        if self.e_v.val() & self.e_ql_sat.val() {
            self.flags.next = self.flags.val() | self.f_qlen_saturated.val();
        }
        if self.d_ql_under.val() {
            self.flags.next = self.flags.val() | self.f_qlen_underflow.val();
        }
        if self.e_v.val() & self.e_above.val() & self.e_bp.val() & self.e_pc_sat.val() {
            self.flags.next = self.flags.val() | self.f_pc_saturated.val();
        }
        if self.d_pc_under.val() {
            self.flags.next = self.flags.val() | self.f_pc_underflow.val();
        }
        self.csr.hw_set.next = bit_cast::<CSR_BITS, 8>(self.flags.val()) << self.at_err.val();
        self.now_next.next = self.now.q.val();
        if self.live.q.val() {
            self.now_next.next = self.now.q.val() + self.one_48.val();
        }
        self.ready_next.next = self.init_done.q.val();
        if self.live.q.val()
            & ((self.init_cnt.q.val() + self.one_32.val()) >= self.ft_entries.val())
        {
            self.ready_next.next = true;
        }
        self.th_index_next.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_th_index.val().index());
        self.bpen_index_next.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_bpen_index.val().index());

        self.live.d.next = true;
        self.now.d.next = self.now_next.val();
        self.init_cnt.d.next = self.init_cnt.q.val() & self.init_mask.val();
        if self.live.q.val() & !self.init_done.q.val() {
            self.init_cnt.d.next =
                (self.init_cnt.q.val() + self.one_32.val()) & self.init_mask.val();
        }
        self.init_done.d.next = self.ready_next.val();
        self.lfsr.d.next = self.lfsr_eff.val();
        if self.live.q.val() {
            // The shared Galois LFSR: shift right, toggle on a set low bit.
            self.lfsr.d.next = self.lfsr_eff.val() >> 1;
            if self.lfsr_eff.val().get_bit(0) {
                self.lfsr.d.next = (self.lfsr_eff.val() >> 1) ^ self.lfsr_toggle.val();
            }
        }
        // Entries this config does not have are never written; the masks make that visible to
        // synthesis, which then drops their flip-flops (the vectors are sized for the largest
        // config) and the logic feeding them.
        self.empty.d.next = self.empty_fin.val() | !self.used_q.val();
        self.dsp.d.next = self.dsp_rx.val() & self.used_q.val();
        self.nz.d.next = self.nz_fin.val() & self.used_u.val();
        self.rr.d.next = self.rr.q.val() & self.used_rr.val();
        if self.e_rr_write.val() & self.e_v.val() {
            self.rr.d.next = ((self.rr.q.val()
                & !(self.lane_rr.val() << (bit_cast::<16, 6>(self.i_enq_eg.q.val()) << 3)))
                | (bit_cast::<512, 8>(self.e_rr_next.val())
                    << (bit_cast::<16, 6>(self.i_enq_eg.q.val()) << 3)))
                & self.used_rr.val();
        }
        self.th.d.next = (self.th_eff.val() ^ self.reset_th.val()) & self.used_th.val();
        self.bpen.d.next = self.bpen_eff.val() & self.used_bpen.val();
        self.r_snap0.d.next = self.snap0_next.val();
        self.r_snap1.d.next = self.snap1_next.val();
        self.snap_pending.d.next = self.pending_next.val();

        // ---- Outputs of edge n + 1.
        // `ready` after edge n + 1 says whether edge n + 2 accepts events.
        self.o_ready.d.next = self.init_done.q.val()
            | (self.live.q.val()
                & ((self.init_cnt.q.val() + self.one_32.val() + self.one_32.val())
                    >= self.ft_entries.val()));
        self.o_asg_valid.d.next = self.i_enq_valid.q.val();
        self.o_asg_refused.d.next = self.e_refused.val();
        self.o_asg_queue.d.next = 0.into();
        self.o_asg_key.d.next = 0.into();
        self.o_asg_cnt.d.next = false;
        self.o_asg_new.d.next = false;
        if self.e_v.val() {
            self.o_asg_queue.d.next = bit_cast::<7, 8>(self.e_q.val());
            self.o_asg_key.d.next = self.i_key.q.val();
            self.o_asg_cnt.d.next = self.e_counted.val();
            self.o_asg_new.d.next = self.e_new.val();
        }
        self.pause_now.next =
            self.e_v.val() & !self.e_pc_start.val().any() & self.e_pc_fin.val().any();
        self.o_pause_valid.d.next = self.pause_now.val();
        self.o_pause_port.d.next = 0.into();
        self.o_pause_queue.d.next = 0.into();
        if self.pause_now.val() {
            self.o_pause_port.d.next = self.i_enq_in.q.val();
            self.o_pause_queue.d.next = self.i_enq_upq.q.val();
        }
        self.resume_now.next =
            self.d_pc_dec.val() & self.d_pc_old.val().any() & !self.d_pc_fin.val().any();
        self.o_resume_valid.d.next = self.resume_now.val();
        self.o_resume_port.d.next = 0.into();
        self.o_resume_queue.d.next = 0.into();
        if self.resume_now.val() {
            self.o_resume_port.d.next = self.i_deq_in.q.val();
            self.o_resume_queue.d.next = self.i_deq_upq.q.val();
        }
        self.o_bm_valid.d.next = self.bitmap.emit.val();
        self.bm_bits_wide.next = self.nz_fin.val() >> self.bitmap.offset.val();
        self.o_bm_port.d.next = 0.into();
        self.o_bm_base.d.next = 0.into();
        self.o_bm_bits.d.next = 0.into();
        if self.bitmap.emit.val() {
            self.o_bm_port.d.next = self.bitmap.port.val();
            self.o_bm_base.d.next = self.bitmap.chunk.val();
            self.o_bm_bits.d.next = bit_cast::<32, N>(self.bm_bits_wide.val());
        }

        // The bank's status and window words as edge n + 1 leaves them (read after the edge).
        self.now_next_wide.next = self.now_next.val() >> self.ts_shift.val();
        self.now_ts_next.next = bit_cast::<32, 48>(self.now_next_wide.val()) & self.ts_mask.val();
        self.status_word.next = 0.into();
        if self.ready_next.val() {
            self.status_word.next = self.status_word.val() | self.one_32.val();
        }
        if self.pending_next.val() {
            self.status_word.next = self.status_word.val() | (self.one_32.val() << 1);
        }
        self.rd_th.next = 0.into();
        if self.th_index_next.val() < bit_cast::<32, 8>(self.n_queues.val()) {
            self.rd_th.next = self.th_eff.val().get_bits::<32>(
                ((bit_cast::<12, 32>(self.th_index_next.val()) & self.th_lane_mask.val()) << 5)
                    .index(),
            );
        }
        self.rd_bpen_lo.next = 0.into();
        self.rd_bpen_hi.next = 0.into();
        self.rd_bpen_off.next =
            (bit_cast::<12, 32>(self.bpen_index_next.val()) & self.port_mask.val()) << 6;
        if self.bpen_index_next.val() < bit_cast::<32, 8>(self.n_ports.val()) {
            self.rd_bpen_lo.next = !self
                .bpen_eff
                .val()
                .get_bits::<32>(self.rd_bpen_off.val().index())
                & self.bpen_lo_mask.val();
            self.rd_bpen_hi.next = !self
                .bpen_eff
                .val()
                .get_bits::<32>((self.rd_bpen_off.val() + self.c32_16.val()).index())
                & self.bpen_hi_mask.val();
        }
        self.csr.hw_value.next = (bit_cast::<CSR_BITS, 32>(self.status_word.val())
            << self.at_status.val())
            | (bit_cast::<CSR_BITS, 32>(self.now_ts_next.val()) << self.at_now_ts.val())
            | (bit_cast::<CSR_BITS, 32>(self.rd_th.val()) << self.at_th_data.val())
            | (bit_cast::<CSR_BITS, 32>(self.rd_bpen_lo.val()) << self.at_bpen_lo.val())
            | (bit_cast::<CSR_BITS, 32>(self.rd_bpen_hi.val()) << self.at_bpen_hi.val())
            | (bit_cast::<CSR_BITS, 32>(self.snap0_next.val()) << self.at_snap_data0.val())
            | (bit_cast::<CSR_BITS, 32>(self.snap1_next.val()) << self.at_snap_data1.val());

        self.ready.next = self.o_ready.q.val();
        self.asg_valid.next = self.o_asg_valid.q.val();
        self.asg_refused.next = self.o_asg_refused.q.val();
        self.asg_queue.next = self.o_asg_queue.q.val();
        self.asg_ft_key.next = self.o_asg_key.q.val();
        self.asg_counter_incr.next = self.o_asg_cnt.q.val();
        self.asg_new.next = self.o_asg_new.q.val();
        self.pause_valid.next = self.o_pause_valid.q.val();
        self.pause_port.next = self.o_pause_port.q.val();
        self.pause_queue.next = self.o_pause_queue.q.val();
        self.resume_valid.next = self.o_resume_valid.q.val();
        self.resume_port.next = self.o_resume_port.q.val();
        self.resume_queue.next = self.o_resume_queue.q.val();
        self.bm_valid.next = self.o_bm_valid.q.val();
        self.bm_port.next = self.o_bm_port.q.val();
        self.bm_base.next = self.o_bm_base.q.val();
        self.bm_bits.next = self.o_bm_bits.q.val();
        self.csr_rdata.next = self.csr.rdata.val();

        // ---- Synchronous reset.
        if self.reset.val() {
            self.i_enq_valid.d.next = false;
            self.i_enq_in.d.next = 0.into();
            self.i_enq_eg.d.next = 0.into();
            self.i_enq_len.d.next = 0.into();
            self.i_enq_upq.d.next = 0.into();
            self.i_enq_class.d.next = 0.into();
            self.i_key.d.next = 0.into();
            self.i_hash.d.next = 0.into();
            self.i_addr_a.d.next = 0.into();
            self.i_deq_valid.d.next = false;
            self.i_deq_eg.d.next = 0.into();
            self.i_deq_q.d.next = 0.into();
            self.i_deq_key.d.next = 0.into();
            self.i_deq_cnt.d.next = false;
            self.i_deq_in.d.next = 0.into();
            self.i_deq_upq.d.next = 0.into();
            self.i_deq_len.d.next = 0.into();
            self.i_addr_d.d.next = 0.into();
            self.i_rx_valid.d.next = false;
            self.i_rx_port.d.next = 0.into();
            self.i_rx_kind.d.next = 0.into();
            self.i_rx_queue.d.next = 0.into();
            self.i_rx_base.d.next = 0.into();
            self.i_rx_bitmap.d.next = 0.into();
            self.i_csr_we.d.next = false;
            self.i_csr_addr.d.next = 0.into();
            self.i_csr_wdata.d.next = 0.into();
            self.i_serve.d.next = false;
            self.fw_e_valid.d.next = false;
            self.fw_e_addr.d.next = 0.into();
            self.fw_e_word.d.next = 0.into();
            self.fw_d_valid.d.next = false;
            self.fw_d_addr.d.next = 0.into();
            self.fw_d_dc.d.next = 0.into();
            self.fw_d_ts.d.next = 0.into();
            self.fw_qe_valid.d.next = false;
            self.fw_qd_valid.d.next = false;
            self.fw_pi_valid.d.next = false;
            self.fw_pd_valid.d.next = false;
            self.live.d.next = false;
            self.now.d.next = 0.into();
            self.init_cnt.d.next = 0.into();
            self.init_done.d.next = false;
            self.lfsr.d.next = self.reset_lfsr.val();
            self.empty.d.next = self.all_n.val();
            self.dsp.d.next = 0.into();
            self.nz.d.next = 0.into();
            self.rr.d.next = 0.into();
            self.th.d.next = 0.into();
            self.bpen.d.next = 0.into();
            self.r_snap0.d.next = 0.into();
            self.r_snap1.d.next = 0.into();
            self.snap_pending.d.next = false;
            self.o_ready.d.next = false;
            self.o_asg_valid.d.next = false;
            self.o_asg_refused.d.next = false;
            self.o_asg_queue.d.next = 0.into();
            self.o_asg_key.d.next = 0.into();
            self.o_asg_cnt.d.next = false;
            self.o_asg_new.d.next = false;
            self.o_pause_valid.d.next = false;
            self.o_pause_port.d.next = 0.into();
            self.o_pause_queue.d.next = 0.into();
            self.o_resume_valid.d.next = false;
            self.o_resume_port.d.next = 0.into();
            self.o_resume_queue.d.next = 0.into();
            self.o_bm_valid.d.next = false;
            self.o_bm_port.d.next = 0.into();
            self.o_bm_base.d.next = 0.into();
            self.o_bm_bits.d.next = 0.into();
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
                // Counter rows hold min(N, 128) lanes: a port's queues or upstream queues.
                let mut $core = BfcCore::<
                    $nb,
                    { 1 << $nb },
                    {
                        if $nb < 7 {
                            32 << $nb
                        } else {
                            4096
                        }
                    },
                >::new(cfg);
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
pub fn package(cfg: &BfcConfig, instance: &str, command: &str) -> crate::export::Package {
    let config_toml = cfg.to_toml();
    let schema = switchcraft_model::bfc::port_schema(cfg);
    let header = regmap(cfg).c_header(instance, command, &schema);
    use crate::export::Waiver;
    crate::export::package(&crate::export::Source {
        block: "bfc",
        instance,
        command,
        config_toml: &config_toml,
        schema: &schema,
        core_verilog: &core_verilog(cfg),
        c_header: &header,
        notes: &[
            "ready is low for the flow-table entries' count of edges after reset; a snapshot is",
            "readable the edge after an edge without enq_valid. See docs/blocks/bfc.md.",
        ],
        waivers: &[
            csr_bank::UNUSED_WAIVER,
            Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &["*_wide"],
                reason: "the `*_wide` locals hold a vector shifted right by a run-time offset (a \
                     queue row, a class word, a timestamp after ts_shift) at the vector's full \
                     width; only the low bits that the field needs are read.",
            },
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_matrix_reproduces_the_shared_hash() {
        for bytes in [2usize, 4, 8] {
            let (masks, zero) = crc_matrix(bytes);
            for key in [0u64, 1, 0xBEEF, 0x0123_4567_89AB_CDEF, u64::MAX] {
                let key = key & switchcraft_core::mask(8 * bytes as u32);
                let mut h = zero;
                for (b, m) in masks.iter().enumerate() {
                    h ^= ((key & m).count_ones() & 1) << b;
                }
                assert_eq!(h, hash32(key.into(), bytes), "{bytes} bytes, key {key:#x}");
            }
        }
    }
}
