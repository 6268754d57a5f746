//! TCD in rust-hdl: the register-transfer form of `switchcraft_model::tcd`.
//!
//! Contract and cycle semantics: docs/blocks/tcd.md and crates/model/src/tcd.rs. Keys are
//! `{port, priority[2:0]}` (priorities padded to 8; PFC and CaPFC key by the bus's priority width).
//!
//! Pipeline, initiation interval 1 on every bus:
//! * edge n: the events are captured; the dequeue key (or, on a cycle without a dequeue input,
//!   a pending snapshot index) addresses the entry RAMs;
//! * cycle n: lookup (RAM read data, or the forwarded write of edge n), the received frame,
//!   then the dequeue's flowchart on the entry as the frame left it;
//! * edge n + 1: RAM writes, per-key flags, output registers.
//!
//! The entry has two writers per cycle (a RESUME and a dequeue, on any keys) but 1R1W RAMs
//! have one write port, so it is split by writer, like a live-value table: bank R, written only
//! by the received-frame path, holds `{t_on, Q at RESUME}`; bank D, written only by the dequeue
//! path, holds `{t_T, Q_rec, LAST_STATE}`. A RESUME restarts T at `t_on`, so `pending` (one bit
//! per key: R is newer than D) tells the dequeue path to take `t_T = t_on` and `Q_rec` from R;
//! its write to D then carries them over. Only the dequeue path reads, so each bank is one RAM
//! copy. Small per-key flags live in registers: `paused`, `pending`, and two 2-bit timestamp
//! ages (6 bits).
//!
//! Wrap-safe time without a sweep: a timestamp's age counts the half-wraps of `now` since it was
//! written (all ages step together when `now`'s top bit flips), saturating at 2, reset value 3
//! ("never set"). With age <= 1 the modular difference `now - t` is exact; with age >= 2 it is
//! over half a wrap, longer than any time register can hold, so Ton is long and T expired.
//!
//! The T age's 3 also means "bank D never written" (RAMs have no reset, so D's words are not
//! meaningful yet), and no per-key flag says it: until D's first write the entry's `t_T` is
//! either never set (no RESUME yet) or R's `t_on` (a RESUME is pending), whose age `age_on`
//! is. That write loads the T age from `age_on` (3, never set, becomes 2: no decision reads
//! `t_T` before a RESUME, and the snapshot then shows `age_on`'s 3).

use crate::csr_bank::{self, CsrBank};
use crate::narrow_ram::NarrowRam;
use rust_hdl::prelude::*;
use switchcraft_model::tcd::{regmap, TcdConfig, CONG, ERR_INDEX, UND};

/// Word slots of the CSR bank (the register map's indices 0..17) and their bits.
pub const CSR_SLOTS: usize = 17;
const CSR_BITS: usize = 32 * CSR_SLOTS;
/// Bits of an offset into the bank's `CSR_BITS`-bit buses.
const CSR_OFFSET_BITS: usize = 10;
type Bank = CsrBank<CSR_SLOTS, CSR_BITS, CSR_OFFSET_BITS>;

/// TCD core for ports addressed by `PB` bits. `PP = 2^PB` padded ports, `K = 8 * PP` keys,
/// `KB = PB + 3` key bits.
#[derive(LogicBlock)]
pub struct TcdCore<const PB: usize, const PP: usize, const K: usize, const KB: usize> {
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
    pub csr_we: Signal<In, Bit>,
    pub csr_addr: Signal<In, Bits<6>>,
    pub csr_wdata: Signal<In, Bits<32>>,

    pub mark_valid: Signal<Out, Bit>,
    pub mark_port: Signal<Out, Bits<PB>>,
    pub mark_prio: Signal<Out, Bits<3>>,
    pub mark_ecn: Signal<Out, Bits<2>>,
    pub mark_state: Signal<Out, Bits<2>>,
    pub csr_rdata: Signal<Out, Bits<32>>,

    // Parameters of this instance, from the config and the register map.
    port_ok: Constant<Bits<PP>>,
    prio_ok: Constant<Bits<8>>,
    time_mask: Constant<Bits<32>>,
    time_top: Constant<Bits<32>>,
    queue_mask: Constant<Bits<32>>,
    one_32: Constant<Bits<32>>,
    one_k: Constant<Bits<K>>,
    ls_cong: Constant<Bits<2>>,
    ls_und: Constant<Bits<2>>,
    ecn_ue: Constant<Bits<2>>,
    ecn_ce: Constant<Bits<2>>,
    all_k: Constant<Bits<K>>,
    /// Bit offsets of the registers' words on the CSR bank's buses.
    at_mode: Constant<Bits<CSR_OFFSET_BITS>>,
    at_options: Constant<Bits<CSR_OFFSET_BITS>>,
    at_max_ton: Constant<Bits<CSR_OFFSET_BITS>>,
    at_t_period: Constant<Bits<CSR_OFFSET_BITS>>,
    at_k: Constant<Bits<CSR_OFFSET_BITS>>,
    at_k_low: Constant<Bits<CSR_OFFSET_BITS>>,
    at_prio_enable: Constant<Bits<CSR_OFFSET_BITS>>,
    at_now: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_index: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_status: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_t_on: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_t_t: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_q_rec: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_state: Constant<Bits<CSR_OFFSET_BITS>>,
    /// The `err` flag in the bank's words, and the write strobe of `entry_index`.
    err_flag: Constant<Bits<CSR_BITS>>,
    entry_index_written: Constant<Bits<CSR_SLOTS>>,
    one_1: Constant<Bits<1>>,

    // Input stage.
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
    d_valid: DFF<Bit>,
    d_bad: DFF<Bit>,
    d_port: DFF<Bits<PB>>,
    d_prio: DFF<Bits<3>>,
    d_qlen: DFF<Bits<32>>,
    d_ecn: DFF<Bits<2>>,
    // The entry the RAMs were addressed with at the last edge (dequeue or snapshot), as it was
    // after that edge: where its words come from and its per-key flags, decided at the edge
    // from the keys alone so that cycle n starts from registers instead of key compares and
    // K-way multiplexers (the critical path).
    /// Bank R's word is the RESUME written at the last edge (forwarded), not the RAM's.
    lk_sel_r: DFF<Bit>,
    /// Bank D's word is the dequeue written at the last edge (forwarded), not the RAM's.
    lk_sel_d: DFF<Bit>,
    lk_pend: DFF<Bit>,
    lk_wr: DFF<Bit>,
    lk_paused_r: DFF<Bits<1>>,
    lk_on_hi_r: DFF<Bits<1>>,
    lk_on_lo_r: DFF<Bits<1>>,
    /// The T age as the last edge left it: the per-key value kept when that edge did not
    /// write bank D, and the dequeue's value when it did (`lk_sel_d`). The latter depends on
    /// the flowchart's boundary, too late in the cycle for a K-way mux after it.
    lk_t_keep_hi: DFF<Bits<1>>,
    lk_t_keep_lo: DFF<Bits<1>>,
    lk_t_w_hi: DFF<Bits<1>>,
    lk_t_w_lo: DFF<Bits<1>>,
    /// Where the dequeued entry's `(t_T, Q_rec)` come from, one-hot or none (never written:
    /// `tq_zero`; a RESUME of the same cycle: `same_r`): bank R's forwarded write or RAM word
    /// (a RESUME is pending), else bank D's. One-hot selects make each lookup an AND-OR of two
    /// LUT levels, and let every test run on each source word before the selection. LAST_STATE
    /// needs none: it comes from bank D alone, picked by `lk_written`, one LUT level per bit.
    tq_fw_r: DFF<Bit>,
    tq_ram_r: DFF<Bit>,
    tq_fw_d: DFF<Bit>,
    tq_ram_d: DFF<Bit>,
    tq_zero: DFF<Bit>,
    /// The windows of this cycle (see the flowchart): `now - max_ton` and `now - T` (mod 2^time_bits),
    /// whether they wrapped below 0, and whether max(Ton) and T are 0 (empty windows).
    on_start: DFF<Bits<32>>,
    on_wraps: DFF<Bit>,
    on_zero: DFF<Bit>,
    t_start: DFF<Bits<32>>,
    t_wraps: DFF<Bit>,
    t_zero: DFF<Bit>,
    /// The received frame captured at the last edge is a RESUME of a paused entry.
    rx_resume_r: DFF<Bit>,
    /// ... and the dequeue captured at the same edge is of that entry.
    same_r: DFF<Bit>,
    /// The snapshot index names an existing entry.
    l_ok: DFF<Bit>,
    snap_pending: DFF<Bit>,
    snap_read: DFF<Bit>,
    now: DFF<Bits<32>>,

    // Entry storage: banks R and D, forwarding of their last writes, per-key flags.
    ram_r_t: NarrowRam<KB, 32>,
    ram_r_q: NarrowRam<KB, 32>,
    ram_d_t: NarrowRam<KB, 32>,
    ram_d_qs: NarrowRam<KB, 32>,
    fw_r_t: DFF<Bits<32>>,
    fw_r_q: DFF<Bits<32>>,
    fw_d_t: DFF<Bits<32>>,
    fw_d_qs: DFF<Bits<32>>,
    paused: DFF<Bits<K>>,
    pending: DFF<Bits<K>>,
    age_on_hi: DFF<Bits<K>>,
    age_on_lo: DFF<Bits<K>>,
    age_t_hi: DFF<Bits<K>>,
    age_t_lo: DFF<Bits<K>>,

    // The snapshot of the entry `entry_index` names (the `entry_*` status words).
    s_t_on: DFF<Bits<32>>,
    s_t_t: DFF<Bits<32>>,
    s_q_rec: DFF<Bits<32>>,
    s_state: DFF<Bits<8>>,

    // Output registers.
    o_valid: DFF<Bit>,
    o_port: DFF<Bits<PB>>,
    o_prio: DFF<Bits<3>>,
    o_ecn: DFF<Bits<2>>,
    o_state: DFF<Bits<2>>,

    pub csr: Bank,
    /// CSR values this core reads (the bank's stored words, or their next values).
    r_mode: Signal<Local, Bit>,
    r_mode_next: Signal<Local, Bit>,
    r_options: Signal<Local, Bits<2>>,
    r_max_ton_next: Signal<Local, Bits<32>>,
    r_t_period_next: Signal<Local, Bits<32>>,
    r_k: Signal<Local, Bits<32>>,
    r_k_low: Signal<Local, Bits<32>>,
    r_prio_enable: Signal<Local, Bits<8>>,
    r_entry_index: Signal<Local, Bits<KB>>,
    snap_busy: Signal<Local, Bits<32>>,

    // Combinational values of cycle n.
    in_p_key: Signal<Local, Bits<KB>>,
    in_c_key: Signal<Local, Bits<KB>>,
    in_d_key: Signal<Local, Bits<KB>>,
    in_l_key: Signal<Local, Bits<KB>>,
    in_p_ok: Signal<Local, Bit>,
    in_c_ok: Signal<Local, Bit>,
    in_d_ok: Signal<Local, Bit>,
    in_s_ok: Signal<Local, Bit>,
    snap_write: Signal<Local, Bit>,
    next_now: Signal<Local, Bits<32>>,
    half_wrap: Signal<Local, Bit>,
    // The received frame of the active mode.
    rx_valid: Signal<Local, Bit>,
    rx_bad: Signal<Local, Bit>,
    rx_key: Signal<Local, Bits<KB>>,
    rx_stop: Signal<Local, Bit>,
    rx_qlen: Signal<Local, Bits<32>>,
    rx_resume: Signal<Local, Bit>,
    rx_pause: Signal<Local, Bit>,
    rx_onehot: Signal<Local, Bits<K>>,
    rx_resume_keys: Signal<Local, Bits<K>>,
    rx_pause_keys: Signal<Local, Bits<K>>,
    // The lookup of the next cycle (decided at this edge).
    sel_r_next: Signal<Local, Bit>,
    sel_d_next: Signal<Local, Bit>,
    rx_next_valid: Signal<Local, Bit>,
    rx_next_key: Signal<Local, Bits<KB>>,
    rx_next_stop: Signal<Local, Bit>,
    rx_next_resume: Signal<Local, Bit>,
    // Lookup of `l_key`, before this cycle's events.
    lk_r_t: Signal<Local, Bits<32>>,
    lk_r_q: Signal<Local, Bits<32>>,
    lk_d_t: Signal<Local, Bits<32>>,
    lk_d_qs: Signal<Local, Bits<32>>,
    lk_pending: Signal<Local, Bit>,
    lk_written: Signal<Local, Bit>,
    // Per-key flags of `l_key` as 1-bit vectors, so they can be packed into `entry_state`.
    lk_on_hi: Signal<Local, Bits<1>>,
    lk_on_lo: Signal<Local, Bits<1>>,
    lk_t_hi: Signal<Local, Bits<1>>,
    lk_t_lo: Signal<Local, Bits<1>>,
    /// The snapshot's T age: the model's, 3 when `t_T` was never set.
    snap_t_hi: Signal<Local, Bits<1>>,
    snap_t_lo: Signal<Local, Bits<1>>,
    lk_paused: Signal<Local, Bits<1>>,
    snap_state: Signal<Local, Bits<8>>,
    lk_t_t: Signal<Local, Bits<32>>,
    lk_q_rec: Signal<Local, Bits<32>>,
    lk_ls: Signal<Local, Bits<2>>,
    // The dequeued entry after a RESUME of the same cycle.
    d_key: Signal<Local, Bits<KB>>,
    d_onehot: Signal<Local, Bits<K>>,
    same_key: Signal<Local, Bit>,
    e_t_t: Signal<Local, Bits<32>>,
    e_q_rec: Signal<Local, Bits<32>>,
    e_t_fw: Signal<Local, Bits<32>>,
    e_t_ram: Signal<Local, Bits<32>>,
    e_q_fw: Signal<Local, Bits<32>>,
    e_q_ram: Signal<Local, Bits<32>>,
    // `deq_qlen >= Q_rec` on each word Q_rec can come from.
    q_ge_ram_r: Signal<Local, Bit>,
    q_ge_fw_r: Signal<Local, Bit>,
    q_ge_ram_d: Signal<Local, Bit>,
    q_ge_fw_d: Signal<Local, Bit>,
    q_ge_same: Signal<Local, Bit>,
    q_ge: Signal<Local, Bit>,
    tq_from_r: Signal<Local, Bit>,
    tq_from_d: Signal<Local, Bit>,
    // The flowchart.
    // `x <= now`, `x > window start` and the windows of each word a timestamp can come from.
    at_or_before_ram_r: Signal<Local, Bit>,
    at_or_before_fw_r: Signal<Local, Bit>,
    at_or_before_ram_d: Signal<Local, Bit>,
    at_or_before_fw_d: Signal<Local, Bit>,
    on_after_ram_r: Signal<Local, Bit>,
    on_after_fw_r: Signal<Local, Bit>,
    t_after_ram_r: Signal<Local, Bit>,
    t_after_fw_r: Signal<Local, Bit>,
    t_after_ram_d: Signal<Local, Bit>,
    t_after_fw_d: Signal<Local, Bit>,
    on_win_ram_r: Signal<Local, Bit>,
    on_win_fw_r: Signal<Local, Bit>,
    t_win_ram_r: Signal<Local, Bit>,
    t_win_fw_r: Signal<Local, Bit>,
    t_win_ram_d: Signal<Local, Bit>,
    t_win_fw_d: Signal<Local, Bit>,
    on_win_lk: Signal<Local, Bit>,
    t_win_lk: Signal<Local, Bit>,
    ton_short: Signal<Local, Bit>,
    t_expired: Signal<Local, Bit>,
    enabled: Signal<Local, Bit>,
    at_boundary: Signal<Local, Bit>,
    ecn_as_ue: Signal<Local, Bits<2>>,
    ecn_as_ce: Signal<Local, Bits<2>>,
    new_ls: Signal<Local, Bits<2>>,
    new_ecn: Signal<Local, Bits<2>>,
    boundary: Signal<Local, Bit>,
    d_write: Signal<Local, Bit>,
    d_write_keys: Signal<Local, Bits<K>>,
    w_t_t: Signal<Local, Bits<32>>,
    w_q_rec: Signal<Local, Bits<32>>,
    // Ages: all step on a half-wrap; written timestamps restart.
    on_hi_stepped: Signal<Local, Bits<K>>,
    on_lo_stepped: Signal<Local, Bits<K>>,
    t_hi_stepped: Signal<Local, Bits<K>>,
    t_lo_stepped: Signal<Local, Bits<K>>,
    fresh_on: Signal<Local, Bits<K>>,
    /// Bank D never written (T age 3), before this edge and after it (reset included).
    d_unwritten: Signal<Local, Bits<K>>,
    d_unwritten_next: Signal<Local, Bits<K>>,
    /// Each T age as this edge leaves it if bank D's write is not its key's.
    t_hi_keep: Signal<Local, Bits<K>>,
    t_lo_keep: Signal<Local, Bits<K>>,
    /// The dequeued entry's `age_on` and T age as this edge leaves them (the latter written
    /// with bank D).
    w_on_hi: Signal<Local, Bits<1>>,
    w_on_lo: Signal<Local, Bits<1>>,
    w_t_hi: Signal<Local, Bits<1>>,
    w_t_lo: Signal<Local, Bits<1>>,
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize> TcdCore<PB, PP, K, KB> {
    pub fn new(cfg: &TcdConfig) -> Self {
        assert_eq!(1 << PB, PP);
        assert_eq!(K, 8 * PP);
        assert_eq!(KB, PB + 3);
        assert!(cfg.ports as usize <= PP);
        assert_eq!(ERR_INDEX, 1, "`err` is the one index flag");
        let map = regmap(cfg);
        let mut port_ok = Bits::<PP>::default();
        for p in 0..PP {
            port_ok = port_ok.replace_bit(p, p < cfg.ports as usize);
        }
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        let at = |name: &str| Bank::offset(&map, name);
        let tb = cfg.time_bits;
        let mask = switchcraft_core::mask;
        TcdCore {
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
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            mark_valid: Default::default(),
            mark_port: Default::default(),
            mark_prio: Default::default(),
            mark_ecn: Default::default(),
            mark_state: Default::default(),
            csr_rdata: Default::default(),
            port_ok: Constant::new(port_ok),
            prio_ok: Constant::new(mask(cfg.priorities).into()),
            time_mask: c32(mask(tb)),
            time_top: c32(1 << (tb - 1)),
            queue_mask: c32(mask(cfg.queue_bits)),
            one_32: c32(1),
            one_k: Constant::new(1u64.into()),
            ls_cong: Constant::new(CONG.into()),
            ls_und: Constant::new(UND.into()),
            ecn_ue: Constant::new(switchcraft_model::tcd::UE.into()),
            ecn_ce: Constant::new(switchcraft_model::tcd::CE.into()),
            all_k: Constant::new(!Bits::<K>::default()),
            at_mode: at("mode"),
            at_options: at("options"),
            at_max_ton: at("max_ton"),
            at_t_period: at("t_period"),
            at_k: at("k"),
            at_k_low: at("k_low"),
            at_prio_enable: at("prio_enable"),
            at_now: at("now"),
            at_entry_index: at("entry_index"),
            at_entry_status: at("entry_status"),
            at_entry_t_on: at("entry_t_on"),
            at_entry_t_t: at("entry_t_t"),
            at_entry_q_rec: at("entry_q_rec"),
            at_entry_state: at("entry_state"),
            err_flag: Bank::bits(&map, "err", 1),
            entry_index_written: Bank::strobe(&map, "entry_index"),
            one_1: Constant::new(1u64.into()),
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
            d_valid: Default::default(),
            d_bad: Default::default(),
            d_port: Default::default(),
            d_prio: Default::default(),
            d_qlen: Default::default(),
            d_ecn: Default::default(),
            lk_sel_r: Default::default(),
            lk_sel_d: Default::default(),
            lk_pend: Default::default(),
            lk_wr: Default::default(),
            lk_paused_r: Default::default(),
            lk_on_hi_r: Default::default(),
            lk_on_lo_r: Default::default(),
            lk_t_keep_hi: Default::default(),
            lk_t_keep_lo: Default::default(),
            lk_t_w_hi: Default::default(),
            lk_t_w_lo: Default::default(),
            tq_fw_r: Default::default(),
            tq_ram_r: Default::default(),
            tq_fw_d: Default::default(),
            tq_ram_d: Default::default(),
            tq_zero: Default::default(),
            rx_resume_r: Default::default(),
            same_r: Default::default(),
            on_start: Default::default(),
            on_wraps: Default::default(),
            on_zero: Default::default(),
            t_start: Default::default(),
            t_wraps: Default::default(),
            t_zero: Default::default(),
            l_ok: Default::default(),
            snap_pending: Default::default(),
            snap_read: Default::default(),
            now: Default::default(),
            ram_r_t: NarrowRam::new(tb as usize),
            ram_r_q: NarrowRam::new(cfg.queue_bits as usize),
            ram_d_t: NarrowRam::new(tb as usize),
            ram_d_qs: NarrowRam::new(cfg.queue_bits as usize + 2),
            fw_r_t: Default::default(),
            fw_r_q: Default::default(),
            fw_d_t: Default::default(),
            fw_d_qs: Default::default(),
            paused: Default::default(),
            pending: Default::default(),
            age_on_hi: Default::default(),
            age_on_lo: Default::default(),
            age_t_hi: Default::default(),
            age_t_lo: Default::default(),
            s_t_on: Default::default(),
            s_t_t: Default::default(),
            s_q_rec: Default::default(),
            s_state: Default::default(),
            o_valid: Default::default(),
            o_port: Default::default(),
            o_prio: Default::default(),
            o_ecn: Default::default(),
            o_state: Default::default(),
            csr: Bank::new(&map),
            r_mode: Default::default(),
            r_mode_next: Default::default(),
            r_options: Default::default(),
            r_max_ton_next: Default::default(),
            r_t_period_next: Default::default(),
            r_k: Default::default(),
            r_k_low: Default::default(),
            r_prio_enable: Default::default(),
            r_entry_index: Default::default(),
            snap_busy: Default::default(),
            in_p_key: Default::default(),
            in_c_key: Default::default(),
            in_d_key: Default::default(),
            in_l_key: Default::default(),
            in_p_ok: Default::default(),
            in_c_ok: Default::default(),
            in_d_ok: Default::default(),
            in_s_ok: Default::default(),
            snap_write: Default::default(),
            next_now: Default::default(),
            half_wrap: Default::default(),
            rx_valid: Default::default(),
            rx_bad: Default::default(),
            rx_key: Default::default(),
            rx_stop: Default::default(),
            rx_qlen: Default::default(),
            rx_resume: Default::default(),
            rx_pause: Default::default(),
            rx_onehot: Default::default(),
            rx_resume_keys: Default::default(),
            rx_pause_keys: Default::default(),
            sel_r_next: Default::default(),
            sel_d_next: Default::default(),
            rx_next_valid: Default::default(),
            rx_next_key: Default::default(),
            rx_next_stop: Default::default(),
            rx_next_resume: Default::default(),
            lk_r_t: Default::default(),
            lk_r_q: Default::default(),
            lk_d_t: Default::default(),
            lk_d_qs: Default::default(),
            lk_pending: Default::default(),
            lk_written: Default::default(),
            lk_on_hi: Default::default(),
            lk_on_lo: Default::default(),
            lk_t_hi: Default::default(),
            lk_t_lo: Default::default(),
            snap_t_hi: Default::default(),
            snap_t_lo: Default::default(),
            lk_paused: Default::default(),
            snap_state: Default::default(),
            lk_t_t: Default::default(),
            lk_q_rec: Default::default(),
            lk_ls: Default::default(),
            d_key: Default::default(),
            d_onehot: Default::default(),
            same_key: Default::default(),
            e_t_t: Default::default(),
            e_q_rec: Default::default(),
            e_t_fw: Default::default(),
            e_t_ram: Default::default(),
            e_q_fw: Default::default(),
            e_q_ram: Default::default(),
            q_ge_ram_r: Default::default(),
            q_ge_fw_r: Default::default(),
            q_ge_ram_d: Default::default(),
            q_ge_fw_d: Default::default(),
            q_ge_same: Default::default(),
            q_ge: Default::default(),
            tq_from_r: Default::default(),
            tq_from_d: Default::default(),
            at_or_before_ram_r: Default::default(),
            at_or_before_fw_r: Default::default(),
            at_or_before_ram_d: Default::default(),
            at_or_before_fw_d: Default::default(),
            on_after_ram_r: Default::default(),
            on_after_fw_r: Default::default(),
            t_after_ram_r: Default::default(),
            t_after_fw_r: Default::default(),
            t_after_ram_d: Default::default(),
            t_after_fw_d: Default::default(),
            on_win_ram_r: Default::default(),
            on_win_fw_r: Default::default(),
            t_win_ram_r: Default::default(),
            t_win_fw_r: Default::default(),
            t_win_ram_d: Default::default(),
            t_win_fw_d: Default::default(),
            on_win_lk: Default::default(),
            t_win_lk: Default::default(),
            ton_short: Default::default(),
            t_expired: Default::default(),
            enabled: Default::default(),
            at_boundary: Default::default(),
            ecn_as_ue: Default::default(),
            ecn_as_ce: Default::default(),
            new_ls: Default::default(),
            new_ecn: Default::default(),
            boundary: Default::default(),
            d_write: Default::default(),
            d_write_keys: Default::default(),
            w_t_t: Default::default(),
            w_q_rec: Default::default(),
            on_hi_stepped: Default::default(),
            on_lo_stepped: Default::default(),
            t_hi_stepped: Default::default(),
            t_lo_stepped: Default::default(),
            fresh_on: Default::default(),
            d_unwritten: Default::default(),
            d_unwritten_next: Default::default(),
            t_hi_keep: Default::default(),
            t_lo_keep: Default::default(),
            w_on_hi: Default::default(),
            w_on_lo: Default::default(),
            w_t_hi: Default::default(),
            w_t_lo: Default::default(),
        }
    }
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize> Logic
    for TcdCore<PB, PP, K, KB>
{
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
            d_valid,
            d_bad,
            d_port,
            d_prio,
            d_qlen,
            d_ecn,
            lk_sel_r,
            lk_sel_d,
            lk_pend,
            lk_wr,
            lk_paused_r,
            lk_on_hi_r,
            lk_on_lo_r,
            lk_t_keep_hi,
            lk_t_keep_lo,
            lk_t_w_hi,
            lk_t_w_lo,
            tq_fw_r,
            tq_ram_r,
            tq_fw_d,
            tq_ram_d,
            tq_zero,
            rx_resume_r,
            same_r,
            on_start,
            on_wraps,
            on_zero,
            t_start,
            t_wraps,
            t_zero,
            l_ok,
            snap_pending,
            snap_read,
            now,
            fw_r_t,
            fw_r_q,
            fw_d_t,
            fw_d_qs,
            paused,
            pending,
            age_on_hi,
            age_on_lo,
            age_t_hi,
            age_t_lo,
            s_t_on,
            s_t_t,
            s_q_rec,
            s_state,
            o_valid,
            o_port,
            o_prio,
            o_ecn,
            o_state
        );

        // The CSR registers this core reads, from the bank.
        self.r_mode.next = self.csr.value.val().get_bit(self.at_mode.val().index());
        self.r_options.next = self
            .csr
            .value
            .val()
            .get_bits::<2>(self.at_options.val().index());
        self.r_k.next = self.csr.value.val().get_bits::<32>(self.at_k.val().index());
        self.r_k_low.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_k_low.val().index());
        self.r_prio_enable.next = self
            .csr
            .value
            .val()
            .get_bits::<8>(self.at_prio_enable.val().index());
        self.r_entry_index.next = self
            .csr
            .value
            .val()
            .get_bits::<KB>(self.at_entry_index.val().index());
        self.r_mode_next.next = self
            .csr
            .value_next
            .val()
            .get_bit(self.at_mode.val().index());
        self.r_max_ton_next.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_max_ton.val().index());
        self.r_t_period_next.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_t_period.val().index());
        self.ram_r_t.clock.next = self.clock.val();
        self.ram_r_q.clock.next = self.clock.val();
        self.ram_d_t.clock.next = self.clock.val();
        self.ram_d_qs.clock.next = self.clock.val();

        // ---- Edge n: capture the events; the dequeue key (or a snapshot index) reads the RAMs.
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
        self.d_valid.d.next = self.deq_valid.val() & self.in_d_ok.val();
        self.d_bad.d.next = self.deq_valid.val() & !self.in_d_ok.val();
        self.d_port.d.next = self.deq_port.val();
        self.d_prio.d.next = self.deq_prio.val();
        self.d_qlen.d.next = self.deq_qlen.val();
        self.d_ecn.d.next = self.deq_ecn.val();
        // The RAMs' read port is free on a cycle without a dequeue: a pending snapshot uses it.
        if self.deq_valid.val() {
            self.in_l_key.next = self.in_d_key.val();
        } else {
            self.in_l_key.next = self.r_entry_index.val();
        }
        self.in_s_ok.next = self
            .port_ok
            .val()
            .get_bit(self.r_entry_index.val().get_bits::<PB>(3).index())
            & self
                .prio_ok
                .val()
                .get_bit(self.r_entry_index.val().get_bits::<3>(0).index());
        self.l_ok.d.next = self.in_s_ok.val();
        self.snap_read.d.next = self.snap_pending.q.val() & !self.deq_valid.val();
        self.snap_write.next = (self.csr.write.val() & self.entry_index_written.val()).any();
        self.snap_pending.d.next =
            (self.snap_pending.q.val() & self.deq_valid.val()) | self.snap_write.val();
        self.ram_r_t.read_address.next = self.in_l_key.val();
        self.ram_r_q.read_address.next = self.in_l_key.val();
        self.ram_d_t.read_address.next = self.in_l_key.val();
        self.ram_d_qs.read_address.next = self.in_l_key.val();

        // Time: a free-running counter; ages step when its top bit flips.
        self.next_now.next = (self.now.q.val() + self.one_32.val()) & self.time_mask.val();
        self.now.d.next = self.next_now.val();
        self.half_wrap.next =
            ((self.next_now.val() ^ self.now.q.val()) & self.time_top.val()).any();

        // ---- Cycle n: the received frame of the active mode.
        if self.r_mode.val() {
            self.rx_valid.next = self.c_valid.q.val();
            self.rx_bad.next = self.c_bad.q.val();
            self.rx_key.next = self.c_key.q.val();
            self.rx_stop.next = self.c_stop.q.val();
            self.rx_qlen.next = self.c_qlen.q.val();
        } else {
            self.rx_valid.next = self.p_valid.q.val();
            self.rx_bad.next = self.p_bad.q.val();
            self.rx_key.next = self.p_key.q.val();
            self.rx_stop.next = self.p_stop.q.val();
            self.rx_qlen.next = self.p_qlen.q.val();
        }
        self.rx_resume.next = self.rx_resume_r.q.val();
        self.rx_pause.next = self.rx_valid.val() & self.rx_stop.val();
        self.rx_onehot.next = self.one_k.val() << self.rx_key.val();
        self.rx_resume_keys.next = 0.into();
        if self.rx_resume.val() {
            self.rx_resume_keys.next = self.rx_onehot.val();
        }
        self.rx_pause_keys.next = 0.into();
        if self.rx_pause.val() {
            self.rx_pause_keys.next = self.rx_onehot.val();
        }
        self.paused.d.next =
            (self.paused.q.val() & !self.rx_resume_keys.val()) | self.rx_pause_keys.val();
        self.ram_r_t.write_enable.next = self.rx_resume.val();
        self.ram_r_t.write_address.next = self.rx_key.val();
        self.ram_r_t.write_data.next = self.now.q.val();
        self.ram_r_q.write_enable.next = self.rx_resume.val();
        self.ram_r_q.write_address.next = self.rx_key.val();
        self.ram_r_q.write_data.next = self.rx_qlen.val() & self.queue_mask.val();
        self.sel_r_next.next = self.rx_resume.val() & (self.rx_key.val() == self.in_l_key.val());
        self.lk_sel_r.d.next = self.sel_r_next.val();
        self.fw_r_t.d.next = self.now.q.val();
        self.fw_r_q.d.next = self.rx_qlen.val() & self.queue_mask.val();

        // Lookup of the entry the RAMs were addressed with, as it was before this cycle.
        if self.lk_sel_r.q.val() {
            self.lk_r_t.next = self.fw_r_t.q.val();
            self.lk_r_q.next = self.fw_r_q.q.val();
        } else {
            self.lk_r_t.next = self.ram_r_t.read_data.val();
            self.lk_r_q.next = self.ram_r_q.read_data.val();
        }
        if self.lk_sel_d.q.val() {
            self.lk_d_t.next = self.fw_d_t.q.val();
            self.lk_d_qs.next = self.fw_d_qs.q.val();
        } else {
            self.lk_d_t.next = self.ram_d_t.read_data.val();
            self.lk_d_qs.next = self.ram_d_qs.read_data.val();
        }
        self.lk_pending.next = self.lk_pend.q.val();
        self.lk_written.next = self.lk_wr.q.val();
        self.lk_on_hi.next = self.lk_on_hi_r.q.val();
        self.lk_on_lo.next = self.lk_on_lo_r.q.val();
        self.lk_paused.next = self.lk_paused_r.q.val();
        // The T age as the last edge left it (see `age_t_*` below).
        self.lk_t_hi.next = self.lk_t_keep_hi.q.val();
        self.lk_t_lo.next = self.lk_t_keep_lo.q.val();
        if self.lk_sel_d.q.val() {
            self.lk_t_hi.next = self.lk_t_w_hi.q.val();
            self.lk_t_lo.next = self.lk_t_w_lo.q.val();
        }
        self.lk_t_t.next = 0.into();
        self.lk_q_rec.next = 0.into();
        if self.lk_written.val() {
            self.lk_t_t.next = self.lk_d_t.val();
            self.lk_q_rec.next = self.lk_d_qs.val() >> 2;
        }
        // LAST_STATE comes from bank D alone (forwarded or RAM), else 0: one LUT per bit.
        self.lk_ls.next = 0.into();
        if self.lk_written.val() {
            self.lk_ls.next = self.lk_d_qs.val().get_bits::<2>(0);
        }
        if self.lk_pending.val() {
            self.lk_t_t.next = self.lk_r_t.val();
            self.lk_q_rec.next = self.lk_r_q.val();
        }

        // Snapshot registers (the entry before this cycle's events; zero for a bad index).
        // Until D is written, `t_T` is `t_on` or never set: its age is `age_on`; so it is when
        // `t_on` was never set (D's T age is then only a placeholder).
        self.snap_t_hi.next = self.lk_t_hi.val();
        self.snap_t_lo.next = self.lk_t_lo.val();
        if !self.lk_written.val() | (self.lk_on_hi.val() & self.lk_on_lo.val()).any() {
            self.snap_t_hi.next = self.lk_on_hi.val();
            self.snap_t_lo.next = self.lk_on_lo.val();
        }
        self.snap_state.next = bit_cast::<8, 2>(self.lk_ls.val())
            | (bit_cast::<8, 1>(self.lk_paused.val()) << 2)
            | (bit_cast::<8, 1>(self.lk_on_lo.val()) << 4)
            | (bit_cast::<8, 1>(self.lk_on_hi.val()) << 5)
            | (bit_cast::<8, 1>(self.snap_t_lo.val()) << 6)
            | (bit_cast::<8, 1>(self.snap_t_hi.val()) << 7);
        if self.snap_read.q.val() {
            self.s_t_on.d.next = 0.into();
            self.s_t_t.d.next = 0.into();
            self.s_q_rec.d.next = 0.into();
            self.s_state.d.next = 0.into();
            if self.l_ok.q.val() {
                // Age 3 means never set: the RAM word is not meaningful, show 0.
                if !(self.lk_on_hi.val() & self.lk_on_lo.val()).any() {
                    self.s_t_on.d.next = self.lk_r_t.val();
                }
                if !(self.snap_t_hi.val() & self.snap_t_lo.val()).any() {
                    self.s_t_t.d.next = self.lk_t_t.val();
                }
                self.s_q_rec.d.next = self.lk_q_rec.val();
                self.s_state.d.next = self.snap_state.val();
            }
        }
        // The dequeued entry, after a RESUME of the same entry in this cycle (frames first).
        self.d_key.next =
            (bit_cast::<KB, PB>(self.d_port.q.val()) << 3) | bit_cast::<KB, 3>(self.d_prio.q.val());
        self.d_onehot.next = self.one_k.val() << self.d_key.val();
        self.same_key.next = self.same_r.q.val();
        self.e_t_fw.next = 0.into();
        self.e_q_fw.next = 0.into();
        if self.same_key.val() {
            self.e_t_fw.next = self.now.q.val();
            self.e_q_fw.next = self.rx_qlen.val() & self.queue_mask.val();
        }
        if self.tq_fw_r.q.val() {
            self.e_t_fw.next = self.e_t_fw.val() | self.fw_r_t.q.val();
            self.e_q_fw.next = self.e_q_fw.val() | self.fw_r_q.q.val();
        }
        if self.tq_fw_d.q.val() {
            self.e_t_fw.next = self.e_t_fw.val() | self.fw_d_t.q.val();
            self.e_q_fw.next = self.e_q_fw.val() | (self.fw_d_qs.q.val() >> 2);
        }
        self.e_t_ram.next = 0.into();
        self.e_q_ram.next = 0.into();
        if self.tq_ram_r.q.val() {
            self.e_t_ram.next = self.ram_r_t.read_data.val();
            self.e_q_ram.next = self.ram_r_q.read_data.val();
        }
        if self.tq_ram_d.q.val() {
            self.e_t_ram.next = self.e_t_ram.val() | self.ram_d_t.read_data.val();
            self.e_q_ram.next = self.e_q_ram.val() | (self.ram_d_qs.read_data.val() >> 2);
        }
        self.e_t_t.next = self.e_t_fw.val() | self.e_t_ram.val();
        self.e_q_rec.next = self.e_q_fw.val() | self.e_q_ram.val();
        // The flowchart's queue test on every word Q_rec can come from (0 when never written:
        // always true), selected like the word itself.
        self.q_ge_ram_r.next = self.d_qlen.q.val() >= self.ram_r_q.read_data.val();
        self.q_ge_fw_r.next = self.d_qlen.q.val() >= self.fw_r_q.q.val();
        self.q_ge_ram_d.next = self.d_qlen.q.val() >= (self.ram_d_qs.read_data.val() >> 2);
        self.q_ge_fw_d.next = self.d_qlen.q.val() >= (self.fw_d_qs.q.val() >> 2);
        self.q_ge_same.next = self.d_qlen.q.val() >= (self.rx_qlen.val() & self.queue_mask.val());
        self.q_ge.next = (self.same_key.val() & self.q_ge_same.val())
            | (self.tq_fw_r.q.val() & self.q_ge_fw_r.val())
            | (self.tq_ram_r.q.val() & self.q_ge_ram_r.val())
            | (self.tq_fw_d.q.val() & self.q_ge_fw_d.val())
            | (self.tq_ram_d.q.val() & self.q_ge_ram_d.val())
            | self.tq_zero.q.val();

        // Ton < max(Ton) and t_elapsed >= T as windows: `now - x < L` (mod 2^time_bits, L
        // below half a wrap) holds exactly when x lies in the L cycles up to `now`, (now - L,
        // now]: `x > now - L and x <= now`, or, when the window wraps below 0 (now < L), either
        // of the two. With `now - L` registered, each test is two comparisons of x in parallel
        // instead of a subtraction and then a comparison; they run on every word x can come
        // from (RAM or forwarded write), and the registered selects pick a result afterwards.
        self.at_or_before_ram_r.next = self.ram_r_t.read_data.val() <= self.now.q.val();
        self.at_or_before_fw_r.next = self.fw_r_t.q.val() <= self.now.q.val();
        self.at_or_before_ram_d.next = self.ram_d_t.read_data.val() <= self.now.q.val();
        self.at_or_before_fw_d.next = self.fw_d_t.q.val() <= self.now.q.val();
        self.on_after_ram_r.next = self.ram_r_t.read_data.val() > self.on_start.q.val();
        self.on_win_ram_r.next = (self.on_after_ram_r.val() & self.at_or_before_ram_r.val())
            | (self.on_wraps.q.val() & (self.on_after_ram_r.val() | self.at_or_before_ram_r.val()));
        self.on_after_fw_r.next = self.fw_r_t.q.val() > self.on_start.q.val();
        self.on_win_fw_r.next = (self.on_after_fw_r.val() & self.at_or_before_fw_r.val())
            | (self.on_wraps.q.val() & (self.on_after_fw_r.val() | self.at_or_before_fw_r.val()));
        self.t_after_ram_r.next = self.ram_r_t.read_data.val() > self.t_start.q.val();
        self.t_win_ram_r.next = (self.t_after_ram_r.val() & self.at_or_before_ram_r.val())
            | (self.t_wraps.q.val() & (self.t_after_ram_r.val() | self.at_or_before_ram_r.val()));
        self.t_after_fw_r.next = self.fw_r_t.q.val() > self.t_start.q.val();
        self.t_win_fw_r.next = (self.t_after_fw_r.val() & self.at_or_before_fw_r.val())
            | (self.t_wraps.q.val() & (self.t_after_fw_r.val() | self.at_or_before_fw_r.val()));
        self.t_after_ram_d.next = self.ram_d_t.read_data.val() > self.t_start.q.val();
        self.t_win_ram_d.next = (self.t_after_ram_d.val() & self.at_or_before_ram_d.val())
            | (self.t_wraps.q.val() & (self.t_after_ram_d.val() | self.at_or_before_ram_d.val()));
        self.t_after_fw_d.next = self.fw_d_t.q.val() > self.t_start.q.val();
        self.t_win_fw_d.next = (self.t_after_fw_d.val() & self.at_or_before_fw_d.val())
            | (self.t_wraps.q.val() & (self.t_after_fw_d.val() | self.at_or_before_fw_d.val()));
        // x = 0 (D never written): 0 > start never holds, 0 <= now always does. (Not used
        // when a RESUME of this cycle names the entry: `same_key` below.)
        self.t_win_lk.next = (self.tq_zero.q.val() & self.t_wraps.q.val())
            | (self.tq_fw_r.q.val() & self.t_win_fw_r.val())
            | (self.tq_ram_r.q.val() & self.t_win_ram_r.val())
            | (self.tq_fw_d.q.val() & self.t_win_fw_d.val())
            | (self.tq_ram_d.q.val() & self.t_win_ram_d.val());
        self.on_win_lk.next = self.on_win_ram_r.val();
        if self.lk_sel_r.q.val() {
            self.on_win_lk.next = self.on_win_fw_r.val();
        }

        // The flowchart (spec §1.3). A RESUME of this entry in this cycle makes Ton and the
        // elapsed T both 0. A timestamp over half a wrap old (age >= 2) is long ago.
        if self.same_key.val() {
            self.ton_short.next = !self.on_zero.q.val();
            self.t_expired.next = self.t_zero.q.val();
        } else {
            // (An empty window, max(Ton) = 0 or T = 0, holds no x.)
            self.ton_short.next = !self.lk_on_hi.val().any() & self.on_win_lk.val();
            self.t_expired.next = self.lk_t_hi.val().any() | !self.t_win_lk.val();
        }
        self.enabled.next = self
            .r_prio_enable
            .val()
            .get_bit(self.d_prio.q.val().index());
        self.at_boundary.next = self.r_options.val().get_bit(0);
        // Mark(UE) never on CE or Not-ECT; Mark(CE) never on Not-ECT.
        if self.d_ecn.q.val().all() | !self.d_ecn.q.val().any() {
            self.ecn_as_ue.next = self.d_ecn.q.val();
        } else {
            self.ecn_as_ue.next = self.ecn_ue.val();
        }
        if self.d_ecn.q.val().any() {
            self.ecn_as_ce.next = self.ecn_ce.val();
        } else {
            self.ecn_as_ce.next = self.d_ecn.q.val();
        }
        self.new_ls.next = self.lk_ls.val();
        self.new_ecn.next = self.d_ecn.q.val();
        self.boundary.next = false;
        if self.ton_short.val() {
            self.new_ls.next = self.ls_und.val();
            self.new_ecn.next = self.ecn_as_ue.val();
        } else if self.lk_ls.val() != self.ls_und.val() {
            if self.d_qlen.q.val() > self.r_k.val() {
                self.new_ls.next = self.ls_cong.val();
                self.new_ecn.next = self.ecn_as_ce.val();
            } else {
                self.new_ls.next = 0.into();
            }
        } else if !self.at_boundary.val() & (self.d_qlen.q.val() < self.r_k_low.val()) {
            self.new_ls.next = 0.into();
        } else if self.t_expired.val() {
            self.boundary.next = true;
            if self.at_boundary.val() & (self.d_qlen.q.val() < self.r_k_low.val()) {
                self.new_ls.next = 0.into();
            } else if self.q_ge.val() & (self.d_qlen.q.val() > self.r_k.val()) {
                self.new_ls.next = self.ls_cong.val();
                if self.r_options.val().get_bit(1) {
                    self.new_ecn.next = self.ecn_as_ce.val();
                }
            }
        }
        if !self.enabled.val() {
            self.new_ls.next = self.lk_ls.val();
            self.new_ecn.next = self.d_ecn.q.val();
            self.boundary.next = false;
        }

        // Edge n + 1: bank D, forwarding, per-key flags.
        self.d_write.next = self.d_valid.q.val() & self.enabled.val();
        if self.boundary.val() {
            self.w_t_t.next = self.now.q.val();
            self.w_q_rec.next = self.d_qlen.q.val() & self.queue_mask.val();
        } else {
            self.w_t_t.next = self.e_t_t.val();
            self.w_q_rec.next = self.e_q_rec.val();
        }
        self.ram_d_t.write_enable.next = self.d_write.val();
        self.ram_d_t.write_address.next = self.d_key.val();
        self.ram_d_t.write_data.next = self.w_t_t.val();
        self.ram_d_qs.write_enable.next = self.d_write.val();
        self.ram_d_qs.write_address.next = self.d_key.val();
        self.ram_d_qs.write_data.next =
            (self.w_q_rec.val() << 2) | bit_cast::<32, 2>(self.new_ls.val());
        self.sel_d_next.next = self.d_write.val() & (self.d_key.val() == self.in_l_key.val());
        self.lk_sel_d.d.next = self.sel_d_next.val();
        self.fw_d_t.d.next = self.w_t_t.val();
        self.fw_d_qs.d.next = (self.w_q_rec.val() << 2) | bit_cast::<32, 2>(self.new_ls.val());
        self.d_write_keys.next = 0.into();
        if self.d_write.val() {
            self.d_write_keys.next = self.d_onehot.val();
        }
        self.pending.d.next =
            (self.pending.q.val() & !self.d_write_keys.val()) | self.rx_resume_keys.val();
        self.d_unwritten.next = self.age_t_hi.q.val() & self.age_t_lo.q.val();
        self.d_unwritten_next.next = self.d_unwritten.val() & !self.d_write_keys.val();

        // Ages: 0 -> 1 -> 2 -> 2 and 3 -> 3 on a half-wrap; a written timestamp restarts at 0,
        // or at 1 when it is written on the half-wrap edge itself.
        if self.half_wrap.val() {
            self.on_hi_stepped.next = self.age_on_hi.q.val() | self.age_on_lo.q.val();
            self.on_lo_stepped.next = !(self.age_on_hi.q.val() ^ self.age_on_lo.q.val());
            self.t_hi_stepped.next = self.age_t_hi.q.val() | self.age_t_lo.q.val();
            self.t_lo_stepped.next = !(self.age_t_hi.q.val() ^ self.age_t_lo.q.val());
            self.fresh_on.next = self.rx_resume_keys.val();
        } else {
            self.on_hi_stepped.next = self.age_on_hi.q.val();
            self.on_lo_stepped.next = self.age_on_lo.q.val();
            self.t_hi_stepped.next = self.age_t_hi.q.val();
            self.t_lo_stepped.next = self.age_t_lo.q.val();
            self.fresh_on.next = 0.into();
        }
        self.age_on_hi.d.next = self.on_hi_stepped.val() & !self.rx_resume_keys.val();
        self.age_on_lo.d.next =
            (self.on_lo_stepped.val() & !self.rx_resume_keys.val()) | self.fresh_on.val();
        // The T age stays 3 until bank D's first write; after that a RESUME restarts it like
        // `age_on`. The dequeued entry's comes from the dequeue path: computed once, late (it
        // depends on the boundary), and written only to its key.
        self.t_hi_keep.next =
            self.d_unwritten.val() | (self.t_hi_stepped.val() & !self.rx_resume_keys.val());
        self.t_lo_keep.next = self.d_unwritten.val()
            | (self.t_lo_stepped.val() & !self.rx_resume_keys.val())
            | self.fresh_on.val();
        // The dequeued entry's `age_on` after this edge (a RESUME of this cycle restarts it) ...
        self.w_on_hi.next = self.lk_on_hi.val();
        self.w_on_lo.next = self.lk_on_lo.val();
        if self.half_wrap.val() {
            self.w_on_hi.next = self.lk_on_hi.val() | self.lk_on_lo.val();
            self.w_on_lo.next = !(self.lk_on_hi.val() ^ self.lk_on_lo.val());
        }
        if self.same_key.val() {
            self.w_on_hi.next = 0.into();
            self.w_on_lo.next = 0.into();
            if self.half_wrap.val() {
                self.w_on_lo.next = self.one_1.val();
            }
        }
        // ... and its T age: a boundary restarts it; D's first write loads `age_on` (`t_T` is
        // `t_on`; 3, never set, becomes 2: see the module doc); else as any other key's.
        self.w_t_hi.next = self.lk_t_hi.val();
        self.w_t_lo.next = self.lk_t_lo.val();
        if self.half_wrap.val() {
            self.w_t_hi.next = self.lk_t_hi.val() | self.lk_t_lo.val();
            self.w_t_lo.next = !(self.lk_t_hi.val() ^ self.lk_t_lo.val());
        }
        if !self.lk_written.val() {
            self.w_t_hi.next = self.w_on_hi.val();
            self.w_t_lo.next = self.w_on_lo.val() & !self.w_on_hi.val();
        } else if self.same_key.val() | self.boundary.val() {
            self.w_t_hi.next = 0.into();
            self.w_t_lo.next = 0.into();
            if self.half_wrap.val() {
                self.w_t_lo.next = self.one_1.val();
            }
        }
        self.age_t_hi.d.next = self.t_hi_keep.val() & !self.d_write_keys.val();
        if self.w_t_hi.val().any() {
            self.age_t_hi.d.next = self.t_hi_keep.val() | self.d_write_keys.val();
        }
        self.age_t_lo.d.next = self.t_lo_keep.val() & !self.d_write_keys.val();
        if self.w_t_lo.val().any() {
            self.age_t_lo.d.next = self.t_lo_keep.val() | self.d_write_keys.val();
        }
        self.lk_t_keep_hi.d.next = self
            .t_hi_keep
            .val()
            .get_bits::<1>(self.in_l_key.val().index());
        self.lk_t_keep_lo.d.next = self
            .t_lo_keep
            .val()
            .get_bits::<1>(self.in_l_key.val().index());
        self.lk_t_w_hi.d.next = self.w_t_hi.val();
        self.lk_t_w_lo.d.next = self.w_t_lo.val();

        // Dequeue outputs (fields zero when not valid; a bad index passes the ECN unchanged).
        self.o_valid.d.next = self.d_valid.q.val() | self.d_bad.q.val();
        self.o_port.d.next = 0.into();
        self.o_prio.d.next = 0.into();
        self.o_ecn.d.next = 0.into();
        self.o_state.d.next = 0.into();
        if self.d_valid.q.val() | self.d_bad.q.val() {
            self.o_port.d.next = self.d_port.q.val();
            self.o_prio.d.next = self.d_prio.q.val();
            self.o_ecn.d.next = self.d_ecn.q.val();
        }
        if self.d_valid.q.val() {
            self.o_ecn.d.next = self.new_ecn.val();
            self.o_state.d.next = self.new_ls.val();
        }

        // CSR bank: the bus, the status words as they are before the edge, the flag raised.
        self.csr.clock.next = self.clock.val();
        self.csr.reset.next = self.reset.val();
        self.csr.we.next = self.csr_we.val();
        self.csr.addr.next = self.csr_addr.val();
        self.csr.wdata.next = self.csr_wdata.val();
        self.snap_busy.next = 0.into();
        if self.snap_pending.q.val() | self.snap_read.q.val() {
            self.snap_busy.next = self.one_32.val();
        }
        self.csr.hw_value.next = (bit_cast::<CSR_BITS, 32>(self.now.q.val()) << self.at_now.val())
            | (bit_cast::<CSR_BITS, 32>(self.snap_busy.val()) << self.at_entry_status.val())
            | (bit_cast::<CSR_BITS, 32>(self.s_t_on.q.val()) << self.at_entry_t_on.val())
            | (bit_cast::<CSR_BITS, 32>(self.s_t_t.q.val()) << self.at_entry_t_t.val())
            | (bit_cast::<CSR_BITS, 32>(self.s_q_rec.q.val()) << self.at_entry_q_rec.val())
            | (bit_cast::<CSR_BITS, 8>(self.s_state.q.val()) << self.at_entry_state.val());
        self.csr.hw_set.next = 0.into();
        if self.rx_bad.val() | self.d_bad.q.val() {
            self.csr.hw_set.next = self.err_flag.val();
        }

        // Outputs.
        self.mark_valid.next = self.o_valid.q.val();
        self.mark_port.next = self.o_port.q.val();
        self.mark_prio.next = self.o_prio.q.val();
        self.mark_ecn.next = self.o_ecn.q.val();
        self.mark_state.next = self.o_state.q.val();
        self.csr_rdata.next = self.csr.rdata.val();

        // Synchronous reset: registers to their reset values (RAMs are covered by the flags).
        if self.reset.val() {
            self.p_valid.d.next = false;
            self.p_bad.d.next = false;
            self.c_valid.d.next = false;
            self.c_bad.d.next = false;
            self.d_valid.d.next = false;
            self.d_bad.d.next = false;
            self.snap_pending.d.next = false;
            self.snap_read.d.next = false;
            self.now.d.next = 0.into();
            self.lk_sel_r.d.next = false;
            self.lk_sel_d.d.next = false;
            self.lk_t_keep_hi.d.next = self.one_1.val();
            self.lk_t_keep_lo.d.next = self.one_1.val();
            self.lk_t_w_hi.d.next = 0.into();
            self.lk_t_w_lo.d.next = 0.into();
            self.paused.d.next = 0.into();
            self.pending.d.next = 0.into();
            self.d_unwritten_next.next = self.all_k.val();
            self.age_on_hi.d.next = self.all_k.val();
            self.age_on_lo.d.next = self.all_k.val();
            self.age_t_hi.d.next = self.all_k.val();
            self.age_t_lo.d.next = self.all_k.val();
            self.s_t_on.d.next = 0.into();
            self.s_t_t.d.next = 0.into();
            self.s_q_rec.d.next = 0.into();
            self.s_state.d.next = 0.into();
            self.o_valid.d.next = false;
            self.o_port.d.next = 0.into();
            self.o_prio.d.next = 0.into();
            self.o_ecn.d.next = 0.into();
            self.o_state.d.next = 0.into();
        }

        // ---- The next cycle's lookup, from the registers' final D values (reset included):
        // the per-key flags of the entry the RAMs are addressed with, as this edge leaves them,
        // and whether the captured frame is a RESUME of a paused entry (of the dequeued one).
        self.lk_pend.d.next = self.pending.d.val().get_bit(self.in_l_key.val().index());
        self.lk_wr.d.next = !self
            .d_unwritten_next
            .val()
            .get_bit(self.in_l_key.val().index());
        self.lk_paused_r.d.next = self
            .paused
            .d
            .val()
            .get_bits::<1>(self.in_l_key.val().index());
        self.lk_on_hi_r.d.next = self
            .age_on_hi
            .d
            .val()
            .get_bits::<1>(self.in_l_key.val().index());
        self.lk_on_lo_r.d.next = self
            .age_on_lo
            .d
            .val()
            .get_bits::<1>(self.in_l_key.val().index());
        if self.r_mode_next.val() {
            self.rx_next_valid.next = self.c_valid.d.val();
            self.rx_next_key.next = self.c_key.d.val();
            self.rx_next_stop.next = self.c_stop.d.val();
        } else {
            self.rx_next_valid.next = self.p_valid.d.val();
            self.rx_next_key.next = self.p_key.d.val();
            self.rx_next_stop.next = self.p_stop.d.val();
        }
        self.rx_next_resume.next = self.rx_next_valid.val()
            & !self.rx_next_stop.val()
            & self.paused.d.val().get_bit(self.rx_next_key.val().index());
        self.rx_resume_r.d.next = self.rx_next_resume.val();
        self.same_r.d.next = self.rx_next_resume.val()
            & self.d_valid.d.val()
            & (self.rx_next_key.val() == self.in_d_key.val());
        self.tq_from_r.next = !self.same_r.d.val() & self.lk_pend.d.val();
        self.tq_from_d.next = !self.same_r.d.val() & !self.lk_pend.d.val() & self.lk_wr.d.val();
        self.tq_fw_r.d.next = self.tq_from_r.val() & self.lk_sel_r.d.val();
        self.tq_ram_r.d.next = self.tq_from_r.val() & !self.lk_sel_r.d.val();
        self.tq_fw_d.d.next = self.tq_from_d.val() & self.lk_sel_d.d.val();
        self.tq_ram_d.d.next = self.tq_from_d.val() & !self.lk_sel_d.d.val();
        self.tq_zero.d.next = !self.same_r.d.val() & !self.lk_pend.d.val() & !self.lk_wr.d.val();
        self.on_start.d.next =
            (self.now.d.val() - self.r_max_ton_next.val()) & self.time_mask.val();
        self.on_wraps.d.next = self.now.d.val() < self.r_max_ton_next.val();
        self.on_zero.d.next = !self.r_max_ton_next.val().any();
        self.t_start.d.next =
            (self.now.d.val() - self.r_t_period_next.val()) & self.time_mask.val();
        self.t_wraps.d.next = self.now.d.val() < self.r_t_period_next.val();
        self.t_zero.d.next = !self.r_t_period_next.val().any();
    }
}

/// Calls `$body` with `$core` bound to a fresh `TcdCore` sized for `$cfg`.
macro_rules! with_tcd_core {
    ($cfg:expr, |$core:ident| $body:expr) => {{
        let cfg: &TcdConfig = $cfg;
        match cfg.port_bits() {
            1 => {
                let mut $core = TcdCore::<1, 2, 16, 4>::new(cfg);
                $body
            }
            2 => {
                let mut $core = TcdCore::<2, 4, 32, 5>::new(cfg);
                $body
            }
            3 => {
                let mut $core = TcdCore::<3, 8, 64, 6>::new(cfg);
                $body
            }
            4 => {
                let mut $core = TcdCore::<4, 16, 128, 7>::new(cfg);
                $body
            }
            5 => {
                let mut $core = TcdCore::<5, 32, 256, 8>::new(cfg);
                $body
            }
            6 => {
                let mut $core = TcdCore::<6, 64, 512, 9>::new(cfg);
                $body
            }
            b => unreachable!("validated configs have 1..=64 ports, not {b} port bits"),
        }
    }};
}

/// rust-hdl's Verilog of the TCD core for `cfg` (module `top` and its submodules).
pub fn core_verilog(cfg: &TcdConfig) -> String {
    crate::export::on_large_stack(|| {
        with_tcd_core!(cfg, |core| {
            core.connect_all();
            generate_verilog(&core)
        })
    })
}

/// The packaged Verilog, manifest and C header of a TCD instance.
pub fn package(cfg: &TcdConfig, instance: &str, command: &str) -> crate::export::Package {
    let config_toml = toml::to_string(cfg).expect("config serializes");
    let schema = switchcraft_model::tcd::port_schema(cfg);
    let header = regmap(cfg).c_header(instance, command, &schema);
    crate::export::package(&crate::export::Source {
        block: "tcd",
        instance,
        command,
        config_toml: &config_toml,
        schema: &schema,
        core_verilog: &core_verilog(cfg),
        c_header: &header,
        notes: &[
            "An entry snapshot is readable 2 edges after a cycle without deq_valid.",
            "See docs/blocks/tcd.md.",
        ],
        waivers: &[csr_bank::UNUSED_WAIVER],
    })
}
