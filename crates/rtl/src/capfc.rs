//! CaPFC in rust-hdl: the register-transfer form of `switchcraft_model::capfc`.
//!
//! Contract and cycle semantics: docs/blocks/capfc.md and crates/model/src/capfc.rs. Keys are
//! `{port, priority}` with the configured priority bits (1..=3), as in PFC. The core reuses PFC's ingress logic ([`Ingress`]), its
//! occupancy RAMs for the egress queues ([`Occupancy`]) and its frame generator ([`FrameGen`]),
//! and adds, all at initiation interval 1:
//! * the arrival counters: one row of P - 1 counters per egress key in a 1R1W RAM
//!   ([`LaneRam`], lane j = input j, or j + 1 at and above the egress port: the diagonal is not
//!   stored), with the running maximum (value, input) of the row in a second RAM for Stop-Max.
//!   The egress enqueue path is the only writer; a row reset at WARN only clears a live bit.
//!   The RAM's read port serves, in this order, the egress enqueue, a CSR inspection, and a
//!   pending calibration request;
//! * the Stop-Calibrate engine: capture a row, sum it on the next edge, then flag one largest
//!   remaining counter per edge until `den * cum >= num * S`;
//! * the E bits ([`FlagRows`], flip-flops) with net set/clear messages, and per ingress key the
//!   count of set E bits as six bit planes (vector increment/decrement), so D = I or count != 0
//!   for every key at once.

use crate::cal_row::CalRow;
use crate::csr_bank::{self, CsrBank};
use crate::flag_rows::FlagRows;
use crate::lane_ram::LaneRam;
use crate::narrow_ram::NarrowRam;
use crate::pfc::frame_gen::FrameGen;
use crate::pfc::ingress::Ingress;
use crate::pfc::occupancy::Occupancy;
use rust_hdl::prelude::*;
use switchcraft_core::mask;
use switchcraft_model::capfc::{
    regmap, CapfcConfig, ERR_EG_UNDERFLOW, ERR_INDEX, ERR_IN_UNDERFLOW, ERR_SATURATION,
};

/// Word slots of the CSR bank (the register map's indices 0..20) and their bits.
pub const CSR_SLOTS: usize = 20;
const CSR_BITS: usize = 32 * CSR_SLOTS;
/// Bits of an offset into the bank's `CSR_BITS`-bit buses.
const CSR_OFFSET_BITS: usize = 10;
type Bank = CsrBank<CSR_SLOTS, CSR_BITS, CSR_OFFSET_BITS>;

/// Read-port users of the counter RAM (`c_kind`).
const KIND_ENQUEUE: u64 = 1;
const KIND_INSPECT: u64 = 2;
const KIND_SERVE: u64 = 3;

/// CaPFC core for ports addressed by `PB` bits: `PP = 2^PB` padded ports, keys of `KB = PB + NQ`
/// bits (`NQ` = the config's priority bits), `K = 2^KB` keys, counter rows of `W = 16 * PP` bits (16-bit lanes), `EB = K * PP` E bits.
#[derive(LogicBlock)]
pub struct CapfcCore<
    const PB: usize,
    const PP: usize,
    const K: usize,
    const KB: usize,
    const W: usize,
    const EB: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub in_enq_valid: Signal<In, Bit>,
    pub in_enq_port: Signal<In, Bits<PB>>,
    pub in_enq_prio: Signal<In, Bits<3>>,
    pub in_enq_len: Signal<In, Bits<16>>,
    pub in_deq_valid: Signal<In, Bit>,
    pub in_deq_port: Signal<In, Bits<PB>>,
    pub in_deq_prio: Signal<In, Bits<3>>,
    pub in_deq_len: Signal<In, Bits<16>>,
    pub eg_enq_valid: Signal<In, Bit>,
    pub eg_enq_port: Signal<In, Bits<PB>>,
    pub eg_enq_prio: Signal<In, Bits<3>>,
    pub eg_enq_input: Signal<In, Bits<PB>>,
    pub eg_enq_len: Signal<In, Bits<16>>,
    pub eg_deq_valid: Signal<In, Bit>,
    pub eg_deq_port: Signal<In, Bits<PB>>,
    pub eg_deq_prio: Signal<In, Bits<3>>,
    pub eg_deq_len: Signal<In, Bits<16>>,
    pub csr_we: Signal<In, Bit>,
    pub csr_addr: Signal<In, Bits<6>>,
    pub csr_wdata: Signal<In, Bits<32>>,

    pub in_drop: Signal<Out, Bit>,
    pub eg_drop: Signal<Out, Bit>,
    pub eset_valid: Signal<Out, Bit>,
    pub eset_port: Signal<Out, Bits<PB>>,
    pub eset_prio: Signal<Out, Bits<3>>,
    pub eset_mask: Signal<Out, Bits<PP>>,
    pub eclr_valid: Signal<Out, Bit>,
    pub eclr_port: Signal<Out, Bits<PB>>,
    pub eclr_prio: Signal<Out, Bits<3>>,
    pub eclr_mask: Signal<Out, Bits<PP>>,
    pub frame_valid: Signal<Out, Bit>,
    pub frame_port: Signal<Out, Bits<PB>>,
    pub frame_class_enable: Signal<Out, Bits<8>>,
    pub frame_pause: Signal<Out, Bits<8>>,
    pub frame_quanta: Signal<Out, Bits<16>>,
    pub csr_rdata: Signal<Out, Bits<32>>,

    pub ingress: Ingress<KB, K>,
    pub egress: Occupancy<KB, K>,
    pub frames: FrameGen<PB, PP, K, KB>,
    pub counts: LaneRam<KB, W>,
    pub maxes: NarrowRam<KB, 32>,
    pub e_rows: FlagRows<KB, K, PP, EB>,
    /// The engine's captured row and flagged lanes, with its largest-remaining and sum trees.
    pub cal_row: CalRow<PB, PP, W>,

    // Parameters of this instance, from the config and the register map.
    port_ok: Constant<Bits<PP>>,
    prio_ok: Constant<Bits<8>>,
    ports8: Constant<Bits<8>>,
    counter_top: Constant<Bits<16>>,
    field6: Constant<Bits<8>>,
    /// Priority bits of a key (`KB - PB`) and their mask.
    prio_bits: Constant<Bits<KB>>,
    prio_mask: Constant<Bits<KB>>,
    one_k: Constant<Bits<K>>,
    one_pp: Constant<Bits<PP>>,
    one_kb: Constant<Bits<KB>>,
    one_pb: Constant<Bits<PB>>,
    one_8: Constant<Bits<8>>,
    one_16: Constant<Bits<16>>,
    kind_enqueue: Constant<Bits<2>>,
    kind_inspect: Constant<Bits<2>>,
    kind_serve: Constant<Bits<2>>,
    policy_max: Constant<Bits<2>>,
    policy_cal: Constant<Bits<2>>,
    err_in_underflow: Constant<Bits<4>>,
    err_eg_underflow: Constant<Bits<4>>,
    err_index: Constant<Bits<4>>,
    err_saturation: Constant<Bits<4>>,
    /// Bit offsets of the registers' words on the CSR bank's buses.
    at_policy: Constant<Bits<CSR_OFFSET_BITS>>,
    at_cut: Constant<Bits<CSR_OFFSET_BITS>>,
    at_in_xoff: Constant<Bits<CSR_OFFSET_BITS>>,
    at_in_xon: Constant<Bits<CSR_OFFSET_BITS>>,
    at_in_max: Constant<Bits<CSR_OFFSET_BITS>>,
    at_eg_xoff: Constant<Bits<CSR_OFFSET_BITS>>,
    at_eg_xon: Constant<Bits<CSR_OFFSET_BITS>>,
    at_eg_warn: Constant<Bits<CSR_OFFSET_BITS>>,
    at_eg_max: Constant<Bits<CSR_OFFSET_BITS>>,
    at_quanta: Constant<Bits<CSR_OFFSET_BITS>>,
    at_refresh: Constant<Bits<CSR_OFFSET_BITS>>,
    at_err: Constant<Bits<CSR_OFFSET_BITS>>,
    at_status: Constant<Bits<CSR_OFFSET_BITS>>,
    at_inspect: Constant<Bits<CSR_OFFSET_BITS>>,
    at_inspect_counter: Constant<Bits<CSR_OFFSET_BITS>>,
    at_inspect_e_lo: Constant<Bits<CSR_OFFSET_BITS>>,
    at_inspect_state: Constant<Bits<CSR_OFFSET_BITS>>,
    inspect_written: Constant<Bits<CSR_SLOTS>>,

    // Registers of the CSR map.
    r_snap: DFF<Bits<16>>,
    snap_pending: DFF<Bit>,
    /// An event of edge n - 1 named a port, priority or input that does not exist.
    in_bad: DFF<Bit>,
    eg_bad: DFF<Bit>,

    // The counter RAM's read stage: who reads, which row, which input.
    c_kind: DFF<Bits<2>>,
    c_key: DFF<Bits<KB>>,
    c_input: DFF<Bits<PB>>,
    /// An inspection names an existing counter.
    c_ok: DFF<Bit>,
    /// Rows written since their last reset (RAMs have no reset).
    row_live: DFF<Bits<K>>,
    fw_valid: DFF<Bit>,
    fw_key: DFF<Bits<KB>>,
    fw_row: DFF<Bits<W>>,
    fw_max: DFF<Bits<32>>,
    pending: DFF<Bits<K>>,
    rr_next: DFF<Bits<KB>>,

    // The calibration engine.
    cal_busy: DFF<Bit>,
    cal_summed: DFF<Bit>,
    cal_cancel: DFF<Bit>,
    cal_key: DFF<Bits<KB>>,
    /// CUT latched at the capture.
    cal_cut: DFF<Bits<16>>,
    cal_total: DFF<Bits<32>>,
    cal_cum: DFF<Bits<32>>,

    // Per ingress key, the number of egresses with its E bit set, as bit planes.
    cnt0: DFF<Bits<K>>,
    cnt1: DFF<Bits<K>>,
    cnt2: DFF<Bits<K>>,
    cnt3: DFF<Bits<K>>,
    cnt4: DFF<Bits<K>>,
    cnt5: DFF<Bits<K>>,

    // Output registers.
    o_in_drop: DFF<Bit>,
    o_eg_drop: DFF<Bit>,
    o_eset_valid: DFF<Bit>,
    o_eset_key: DFF<Bits<KB>>,
    o_eset_mask: DFF<Bits<PP>>,
    o_eclr_valid: DFF<Bit>,
    o_eclr_key: DFF<Bits<KB>>,
    o_eclr_mask: DFF<Bits<PP>>,

    pub csr: Bank,
    // The CSR registers this core reads, from the bank (`r_inspect_next`: after this edge).
    r_policy: Signal<Local, Bits<3>>,
    r_cut: Signal<Local, Bits<16>>,
    r_in_xoff: Signal<Local, Bits<32>>,
    r_in_xon: Signal<Local, Bits<32>>,
    r_in_max: Signal<Local, Bits<32>>,
    r_eg_xoff: Signal<Local, Bits<32>>,
    r_eg_xon: Signal<Local, Bits<32>>,
    r_eg_warn: Signal<Local, Bits<32>>,
    r_eg_max: Signal<Local, Bits<32>>,
    r_quanta: Signal<Local, Bits<16>>,
    r_refresh: Signal<Local, Bits<16>>,
    r_inspect: Signal<Local, Bits<32>>,
    r_inspect_next: Signal<Local, Bits<32>>,

    // Combinational values.
    in_e_ok: Signal<Local, Bit>,
    in_d_ok: Signal<Local, Bit>,
    eg_e_ok: Signal<Local, Bit>,
    eg_d_ok: Signal<Local, Bit>,
    eg_key_in: Signal<Local, Bits<KB>>,
    insp_port8: Signal<Local, Bits<8>>,
    insp_input8: Signal<Local, Bits<8>>,
    insp_prio: Signal<Local, Bits<3>>,
    insp_next_port8: Signal<Local, Bits<8>>,
    insp_next_prio: Signal<Local, Bits<3>>,
    insp_key: Signal<Local, Bits<KB>>,
    insp_key_ok: Signal<Local, Bit>,
    pend_above: Signal<Local, Bits<K>>,
    pend_cand: Signal<Local, Bits<K>>,
    pend_grant: Signal<Local, Bits<K>>,
    serve_key: Signal<Local, Bits<KB>>,
    read_key: Signal<Local, Bits<KB>>,
    fw_hit: Signal<Local, Bit>,
    row_raw: Signal<Local, Bits<W>>,
    max_raw: Signal<Local, Bits<32>>,
    reset_now: Signal<Local, Bit>,
    xon_now: Signal<Local, Bit>,
    same_reset: Signal<Local, Bit>,
    /// The row and running maximum as they would be after counting, from the row as read.
    row_counted: Signal<Local, Bits<W>>,
    max_counted: Signal<Local, Bits<32>>,
    /// Only the counted lane, at 1: the row counted after a reset on this cycle.
    row_one: Signal<Local, Bits<W>>,
    c_port: Signal<Local, Bits<PB>>,
    c_lane: Signal<Local, Bits<PB>>,
    is_enq: Signal<Local, Bit>,
    accepted: Signal<Local, Bit>,
    count_it: Signal<Local, Bit>,
    lane_old: Signal<Local, Bits<16>>,
    at_top: Signal<Local, Bit>,
    raw_at_top: Signal<Local, Bit>,
    raw_halve: Signal<Local, Bit>,
    raw_bump: Signal<Local, Bit>,
    lane: Signal<Local, Bits<16>>,
    row_new: Signal<Local, Bits<W>>,
    lane_new: Signal<Local, Bits<16>>,
    max_val: Signal<Local, Bits<16>>,
    max_in: Signal<Local, Bits<PB>>,
    max_val_new: Signal<Local, Bits<16>>,
    max_in_new: Signal<Local, Bits<PB>>,
    max_new: Signal<Local, Bits<32>>,
    xoff_hit: Signal<Local, Bit>,
    policy: Signal<Local, Bits<2>>,
    stopmax_set: Signal<Local, Bit>,
    cal_trigger: Signal<Local, Bit>,
    pending_left: Signal<Local, Bits<K>>,
    serve_capture: Signal<Local, Bit>,
    capture: Signal<Local, Bit>,
    c_onehot: Signal<Local, Bits<K>>,
    d_onehot: Signal<Local, Bits<K>>,
    // Engine.
    cum_new: Signal<Local, Bits<32>>,
    den: Signal<Local, Bits<8>>,
    num: Signal<Local, Bits<8>>,
    den_cum: Signal<Local, Bits<32>>,
    num_total: Signal<Local, Bits<32>>,
    /// Partial products of den * cum and num * S, two at a time (four 32-bit pair sums each).
    pp_lo: Signal<Local, Bits<32>>,
    pp_hi: Signal<Local, Bits<32>>,
    pp_pair: Signal<Local, Bits<32>>,
    den_pairs: Signal<Local, Bits<128>>,
    num_pairs: Signal<Local, Bits<128>>,
    cal_done: Signal<Local, Bit>,
    cancel_now: Signal<Local, Bit>,
    cal_result: Signal<Local, Bit>,
    flags_lanes: Signal<Local, Bits<PP>>,
    cal_port: Signal<Local, Bits<PB>>,
    below_port: Signal<Local, Bits<PP>>,
    flags_inputs: Signal<Local, Bits<PP>>,
    // E rows and counts.
    set_valid: Signal<Local, Bit>,
    set_key: Signal<Local, Bits<KB>>,
    set_bits: Signal<Local, Bits<PP>>,
    set_key_port: Signal<Local, Bits<KB>>,
    set_port: Signal<Local, Bits<PB>>,
    set_lanes: Signal<Local, Bits<PP>>,
    set_wanted: Signal<Local, Bits<PP>>,
    clear_row: Signal<Local, Bits<PP>>,
    set_row: Signal<Local, Bits<PP>>,
    same_row: Signal<Local, Bit>,
    eset: Signal<Local, Bits<PP>>,
    eclr: Signal<Local, Bits<PP>>,
    set_prio: Signal<Local, Bits<KB>>,
    clr_prio: Signal<Local, Bits<KB>>,
    set_prio_oh: Signal<Local, Bits<8>>,
    clr_prio_oh: Signal<Local, Bits<8>>,
    /// The port and priority fields of keys (`>>` and `&` by the priority bits).
    c_key_port: Signal<Local, Bits<KB>>,
    cal_key_port: Signal<Local, Bits<KB>>,
    eset_key_port: Signal<Local, Bits<KB>>,
    eclr_key_port: Signal<Local, Bits<KB>>,
    eset_key_prio: Signal<Local, Bits<KB>>,
    eclr_key_prio: Signal<Local, Bits<KB>>,
    inc: Signal<Local, Bits<K>>,
    dec: Signal<Local, Bits<K>>,
    carry: Signal<Local, Bits<K>>,
    borrow: Signal<Local, Bits<K>>,
    n0: Signal<Local, Bits<K>>,
    n1: Signal<Local, Bits<K>>,
    n2: Signal<Local, Bits<K>>,
    n3: Signal<Local, Bits<K>>,
    n4: Signal<Local, Bits<K>>,
    n5: Signal<Local, Bits<K>>,
    d_old: Signal<Local, Bits<K>>,
    d_new: Signal<Local, Bits<K>>,
    // CSR.
    status: Signal<Local, Bits<2>>,
    insp_row: Signal<Local, Bits<PP>>,
    insp_row64: Signal<Local, Bits<64>>,
    insp_state: Signal<Local, Bits<16>>,
    insp_cnt: Signal<Local, Bits<8>>,
    err_set: Signal<Local, Bits<4>>,
}

impl<
        const PB: usize,
        const PP: usize,
        const K: usize,
        const KB: usize,
        const W: usize,
        const EB: usize,
    > CapfcCore<PB, PP, K, KB, W, EB>
{
    pub fn new(cfg: &CapfcConfig) -> Self {
        assert_eq!(1 << PB, PP);
        assert_eq!(KB, PB + cfg.prio_bits() as usize);
        assert_eq!(K, 1 << KB);
        assert_eq!(W, 16 * PP);
        assert_eq!(EB, K * PP);
        assert!(cfg.ports as usize <= PP);
        let map = regmap(cfg);
        let mut port_ok = Bits::<PP>::default();
        for p in 0..PP {
            port_ok = port_ok.replace_bit(p, p < cfg.ports as usize);
        }
        let c16 = |v: u64| Constant::new(Bits::<16>::from(v));
        let at = |name: &str| Bank::offset(&map, name);
        assert_eq!(
            map.get("inspect_e_hi").index,
            map.get("inspect_e_lo").index + 1,
            "the E row is one 64-bit word pair"
        );
        CapfcCore {
            clock: Default::default(),
            reset: Default::default(),
            in_enq_valid: Default::default(),
            in_enq_port: Default::default(),
            in_enq_prio: Default::default(),
            in_enq_len: Default::default(),
            in_deq_valid: Default::default(),
            in_deq_port: Default::default(),
            in_deq_prio: Default::default(),
            in_deq_len: Default::default(),
            eg_enq_valid: Default::default(),
            eg_enq_port: Default::default(),
            eg_enq_prio: Default::default(),
            eg_enq_input: Default::default(),
            eg_enq_len: Default::default(),
            eg_deq_valid: Default::default(),
            eg_deq_port: Default::default(),
            eg_deq_prio: Default::default(),
            eg_deq_len: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            in_drop: Default::default(),
            eg_drop: Default::default(),
            eset_valid: Default::default(),
            eset_port: Default::default(),
            eset_prio: Default::default(),
            eset_mask: Default::default(),
            eclr_valid: Default::default(),
            eclr_port: Default::default(),
            eclr_prio: Default::default(),
            eclr_mask: Default::default(),
            frame_valid: Default::default(),
            frame_port: Default::default(),
            frame_class_enable: Default::default(),
            frame_pause: Default::default(),
            frame_quanta: Default::default(),
            csr_rdata: Default::default(),
            ingress: Ingress::new(cfg.occupancy_bits as usize),
            egress: Occupancy::new(cfg.occupancy_bits as usize),
            frames: FrameGen::new(cfg.ports),
            counts: LaneRam::new(cfg.ports as usize - 1, cfg.counter_bits as usize),
            maxes: NarrowRam::new(16 + PB),
            e_rows: FlagRows::new(
                cfg.ports as usize,
                cfg.priorities as usize,
                cfg.prio_bits() as usize,
            ),
            cal_row: Default::default(),
            port_ok: Constant::new(port_ok),
            prio_ok: Constant::new(((1u64 << cfg.priorities) - 1).into()),
            ports8: Constant::new(u64::from(cfg.ports).into()),
            counter_top: c16(mask(cfg.counter_bits)),
            field6: Constant::new(0x3Fu64.into()),
            prio_bits: Constant::new(u64::from(cfg.prio_bits()).into()),
            prio_mask: Constant::new(mask(cfg.prio_bits()).into()),
            one_k: Constant::new(1u64.into()),
            one_pp: Constant::new(1u64.into()),
            one_kb: Constant::new(1u64.into()),
            one_pb: Constant::new(1u64.into()),
            one_8: Constant::new(1u64.into()),
            one_16: c16(1),
            kind_enqueue: Constant::new(KIND_ENQUEUE.into()),
            kind_inspect: Constant::new(KIND_INSPECT.into()),
            kind_serve: Constant::new(KIND_SERVE.into()),
            policy_max: Constant::new(1u64.into()),
            policy_cal: Constant::new(2u64.into()),
            err_in_underflow: Constant::new(ERR_IN_UNDERFLOW.into()),
            err_eg_underflow: Constant::new(ERR_EG_UNDERFLOW.into()),
            err_index: Constant::new(ERR_INDEX.into()),
            err_saturation: Constant::new(ERR_SATURATION.into()),
            at_policy: at("policy"),
            at_cut: at("cut"),
            at_in_xoff: at("in_xoff"),
            at_in_xon: at("in_xon"),
            at_in_max: at("in_max"),
            at_eg_xoff: at("eg_xoff"),
            at_eg_xon: at("eg_xon"),
            at_eg_warn: at("eg_warn"),
            at_eg_max: at("eg_max"),
            at_quanta: at("quanta"),
            at_refresh: at("refresh"),
            at_err: at("err"),
            at_status: at("status"),
            at_inspect: at("inspect"),
            at_inspect_counter: at("inspect_counter"),
            at_inspect_e_lo: at("inspect_e_lo"),
            at_inspect_state: at("inspect_state"),
            inspect_written: Bank::strobe(&map, "inspect"),
            r_snap: Default::default(),
            snap_pending: Default::default(),
            in_bad: Default::default(),
            eg_bad: Default::default(),
            c_kind: Default::default(),
            c_key: Default::default(),
            c_input: Default::default(),
            c_ok: Default::default(),
            row_live: Default::default(),
            fw_valid: Default::default(),
            fw_key: Default::default(),
            fw_row: Default::default(),
            fw_max: Default::default(),
            pending: Default::default(),
            rr_next: Default::default(),
            cal_busy: Default::default(),
            cal_summed: Default::default(),
            cal_cancel: Default::default(),
            cal_key: Default::default(),
            cal_cut: Default::default(),
            cal_total: Default::default(),
            cal_cum: Default::default(),
            cnt0: Default::default(),
            cnt1: Default::default(),
            cnt2: Default::default(),
            cnt3: Default::default(),
            cnt4: Default::default(),
            cnt5: Default::default(),
            o_in_drop: Default::default(),
            o_eg_drop: Default::default(),
            o_eset_valid: Default::default(),
            o_eset_key: Default::default(),
            o_eset_mask: Default::default(),
            o_eclr_valid: Default::default(),
            o_eclr_key: Default::default(),
            o_eclr_mask: Default::default(),
            csr: Bank::new(&map),
            r_policy: Default::default(),
            r_cut: Default::default(),
            r_in_xoff: Default::default(),
            r_in_xon: Default::default(),
            r_in_max: Default::default(),
            r_eg_xoff: Default::default(),
            r_eg_xon: Default::default(),
            r_eg_warn: Default::default(),
            r_eg_max: Default::default(),
            r_quanta: Default::default(),
            r_refresh: Default::default(),
            r_inspect: Default::default(),
            r_inspect_next: Default::default(),
            in_e_ok: Default::default(),
            in_d_ok: Default::default(),
            eg_e_ok: Default::default(),
            eg_d_ok: Default::default(),
            eg_key_in: Default::default(),
            insp_port8: Default::default(),
            insp_input8: Default::default(),
            insp_prio: Default::default(),
            insp_next_port8: Default::default(),
            insp_next_prio: Default::default(),
            insp_key: Default::default(),
            insp_key_ok: Default::default(),
            pend_above: Default::default(),
            pend_cand: Default::default(),
            pend_grant: Default::default(),
            serve_key: Default::default(),
            read_key: Default::default(),
            fw_hit: Default::default(),
            row_raw: Default::default(),
            max_raw: Default::default(),
            reset_now: Default::default(),
            xon_now: Default::default(),
            same_reset: Default::default(),
            row_counted: Default::default(),
            max_counted: Default::default(),
            row_one: Default::default(),
            c_port: Default::default(),
            c_lane: Default::default(),
            is_enq: Default::default(),
            accepted: Default::default(),
            count_it: Default::default(),
            lane_old: Default::default(),
            at_top: Default::default(),
            raw_at_top: Default::default(),
            raw_halve: Default::default(),
            raw_bump: Default::default(),
            lane: Default::default(),
            row_new: Default::default(),
            lane_new: Default::default(),
            max_val: Default::default(),
            max_in: Default::default(),
            max_val_new: Default::default(),
            max_in_new: Default::default(),
            max_new: Default::default(),
            xoff_hit: Default::default(),
            policy: Default::default(),
            stopmax_set: Default::default(),
            cal_trigger: Default::default(),
            pending_left: Default::default(),
            serve_capture: Default::default(),
            capture: Default::default(),
            c_onehot: Default::default(),
            d_onehot: Default::default(),
            cum_new: Default::default(),
            den: Default::default(),
            num: Default::default(),
            den_cum: Default::default(),
            num_total: Default::default(),
            pp_lo: Default::default(),
            pp_hi: Default::default(),
            pp_pair: Default::default(),
            den_pairs: Default::default(),
            num_pairs: Default::default(),
            cal_done: Default::default(),
            cancel_now: Default::default(),
            cal_result: Default::default(),
            flags_lanes: Default::default(),
            cal_port: Default::default(),
            below_port: Default::default(),
            flags_inputs: Default::default(),
            set_valid: Default::default(),
            set_key: Default::default(),
            set_key_port: Default::default(),
            set_port: Default::default(),
            set_lanes: Default::default(),
            set_wanted: Default::default(),
            set_bits: Default::default(),
            clear_row: Default::default(),
            set_row: Default::default(),
            same_row: Default::default(),
            eset: Default::default(),
            eclr: Default::default(),
            set_prio: Default::default(),
            clr_prio: Default::default(),
            set_prio_oh: Default::default(),
            clr_prio_oh: Default::default(),
            c_key_port: Default::default(),
            cal_key_port: Default::default(),
            eset_key_port: Default::default(),
            eclr_key_port: Default::default(),
            eset_key_prio: Default::default(),
            eclr_key_prio: Default::default(),
            inc: Default::default(),
            dec: Default::default(),
            carry: Default::default(),
            borrow: Default::default(),
            n0: Default::default(),
            n1: Default::default(),
            n2: Default::default(),
            n3: Default::default(),
            n4: Default::default(),
            n5: Default::default(),
            d_old: Default::default(),
            d_new: Default::default(),
            status: Default::default(),
            insp_row: Default::default(),
            insp_row64: Default::default(),
            insp_state: Default::default(),
            insp_cnt: Default::default(),
            err_set: Default::default(),
        }
    }
}

impl<
        const PB: usize,
        const PP: usize,
        const K: usize,
        const KB: usize,
        const W: usize,
        const EB: usize,
    > Logic for CapfcCore<PB, PP, K, KB, W, EB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_snap,
            snap_pending,
            in_bad,
            eg_bad,
            c_kind,
            c_key,
            c_input,
            c_ok,
            row_live,
            fw_valid,
            fw_key,
            fw_row,
            fw_max,
            pending,
            rr_next,
            cal_busy,
            cal_summed,
            cal_cancel,
            cal_key,
            cal_cut,
            cal_total,
            cal_cum,
            cnt0,
            cnt1,
            cnt2,
            cnt3,
            cnt4,
            cnt5,
            o_in_drop,
            o_eg_drop,
            o_eset_valid,
            o_eset_key,
            o_eset_mask,
            o_eclr_valid,
            o_eclr_key,
            o_eclr_mask
        );

        // The CSR registers this core reads, from the bank.
        self.r_policy.next = self
            .csr
            .value
            .val()
            .get_bits::<3>(self.at_policy.val().index());
        self.r_cut.next = self
            .csr
            .value
            .val()
            .get_bits::<16>(self.at_cut.val().index());
        self.r_in_xoff.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_in_xoff.val().index());
        self.r_in_xon.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_in_xon.val().index());
        self.r_in_max.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_in_max.val().index());
        self.r_eg_xoff.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_eg_xoff.val().index());
        self.r_eg_xon.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_eg_xon.val().index());
        self.r_eg_warn.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_eg_warn.val().index());
        self.r_eg_max.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_eg_max.val().index());
        self.r_quanta.next = self
            .csr
            .value
            .val()
            .get_bits::<16>(self.at_quanta.val().index());
        self.r_refresh.next = self
            .csr
            .value
            .val()
            .get_bits::<16>(self.at_refresh.val().index());
        self.r_inspect.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_inspect.val().index());
        self.r_inspect_next.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_inspect.val().index());
        self.counts.clock.next = self.clock.val();
        self.maxes.clock.next = self.clock.val();
        self.e_rows.clock.next = self.clock.val();
        self.cal_row.clock.next = self.clock.val();
        self.cal_row.next_counts.next = self.cal_row.counts.val();
        self.cal_row.next_flagged.next = self.cal_row.flagged.val();
        self.e_rows.reset.next = self.reset.val();

        // ---- Edge n: events naming existing ports and priorities go to the buffers.
        self.in_e_ok.next = self.port_ok.val().get_bit(self.in_enq_port.val().index())
            & self.prio_ok.val().get_bit(self.in_enq_prio.val().index());
        self.in_d_ok.next = self.port_ok.val().get_bit(self.in_deq_port.val().index())
            & self.prio_ok.val().get_bit(self.in_deq_prio.val().index());
        self.eg_e_ok.next = self.port_ok.val().get_bit(self.eg_enq_port.val().index())
            & self.prio_ok.val().get_bit(self.eg_enq_prio.val().index())
            & self.port_ok.val().get_bit(self.eg_enq_input.val().index());
        self.eg_d_ok.next = self.port_ok.val().get_bit(self.eg_deq_port.val().index())
            & self.prio_ok.val().get_bit(self.eg_deq_prio.val().index());
        self.in_bad.d.next = (self.in_enq_valid.val() & !self.in_e_ok.val())
            | (self.in_deq_valid.val() & !self.in_d_ok.val());
        self.eg_bad.d.next = (self.eg_enq_valid.val() & !self.eg_e_ok.val())
            | (self.eg_deq_valid.val() & !self.eg_d_ok.val());

        self.ingress.clock.next = self.clock.val();
        self.ingress.reset.next = self.reset.val();
        self.ingress.enq_valid.next = self.in_enq_valid.val() & self.in_e_ok.val();
        self.ingress.enq_key.next = (bit_cast::<KB, PB>(self.in_enq_port.val())
            << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.in_enq_prio.val()) & self.prio_mask.val());
        self.ingress.enq_len.next = self.in_enq_len.val();
        self.ingress.deq_valid.next = self.in_deq_valid.val() & self.in_d_ok.val();
        self.ingress.deq_key.next = (bit_cast::<KB, PB>(self.in_deq_port.val())
            << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.in_deq_prio.val()) & self.prio_mask.val());
        self.ingress.deq_len.next = self.in_deq_len.val();
        self.ingress.xoff_thr.next = self.r_in_xoff.val();
        self.ingress.xon_thr.next = self.r_in_xon.val();
        self.ingress.max.next = self.r_in_max.val();

        self.eg_key_in.next = (bit_cast::<KB, PB>(self.eg_enq_port.val()) << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.eg_enq_prio.val()) & self.prio_mask.val());
        self.egress.clock.next = self.clock.val();
        self.egress.reset.next = self.reset.val();
        self.egress.enq_valid.next = self.eg_enq_valid.val() & self.eg_e_ok.val();
        self.egress.enq_key.next = self.eg_key_in.val();
        self.egress.enq_len.next = self.eg_enq_len.val();
        self.egress.deq_valid.next = self.eg_deq_valid.val() & self.eg_d_ok.val();
        self.egress.deq_key.next = (bit_cast::<KB, PB>(self.eg_deq_port.val())
            << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.eg_deq_prio.val()) & self.prio_mask.val());
        self.egress.deq_len.next = self.eg_deq_len.val();
        self.egress.max.next = self.r_eg_max.val();

        // The inspection fields: port [5:0], priority [10:8], input [21:16].
        self.insp_port8.next = self.r_inspect.val().get_bits::<8>(0) & self.field6.val();
        self.insp_prio.next = self.r_inspect.val().get_bits::<3>(8);
        self.insp_input8.next = self.r_inspect.val().get_bits::<8>(16) & self.field6.val();
        self.insp_key.next = (bit_cast::<KB, 8>(self.insp_port8.val()) << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.insp_prio.val()) & self.prio_mask.val());
        self.insp_key_ok.next = (self.insp_port8.val() < self.ports8.val())
            & self.prio_ok.val().get_bit(self.insp_prio.val().index());

        // The pending request at or after the round-robin pointer.
        self.pend_above.next =
            self.pending.q.val() & !((self.one_k.val() << self.rr_next.q.val()) - self.one_k.val());
        if self.pend_above.val().any() {
            self.pend_cand.next = self.pend_above.val();
        } else {
            self.pend_cand.next = self.pending.q.val();
        }
        self.pend_grant.next = self.pend_cand.val() & (!self.pend_cand.val() + self.one_k.val());
        self.serve_key.next = 0.into();
        for k in 0..K {
            if self.pend_grant.val().get_bit(k) {
                self.serve_key.next = k.to_bits::<KB>();
            }
        }

        // The counter RAM's read port: egress enqueue, then inspection, then a pending request.
        self.c_kind.d.next = 0.into();
        self.c_key.d.next = 0.into();
        self.c_input.d.next = 0.into();
        self.c_ok.d.next = false;
        self.read_key.next = self.serve_key.val();
        if self.eg_enq_valid.val() & self.eg_e_ok.val() {
            self.c_kind.d.next = self.kind_enqueue.val();
            self.read_key.next = self.eg_key_in.val();
            self.c_input.d.next = self.eg_enq_input.val();
        } else if self.snap_pending.q.val() {
            self.c_kind.d.next = self.kind_inspect.val();
            self.read_key.next = self.insp_key.val();
            self.c_input.d.next = bit_cast::<PB, 8>(self.insp_input8.val());
            self.c_ok.d.next = self.insp_key_ok.val()
                & (self.insp_input8.val() < self.ports8.val())
                & (self.insp_input8.val() != self.insp_port8.val());
            self.snap_pending.d.next = false;
        } else if self.pending.q.val().any() {
            self.c_kind.d.next = self.kind_serve.val();
        }
        self.c_key.d.next = self.read_key.val();
        self.counts.read_address.next = self.read_key.val();
        self.maxes.read_address.next = self.read_key.val();

        // ---- Cycle n: the row (forwarded write, else live RAM row, else zero).
        self.fw_hit.next = self.fw_valid.q.val() & (self.fw_key.q.val() == self.c_key.q.val());
        if self.fw_hit.val() {
            self.row_raw.next = self.fw_row.q.val();
            self.max_raw.next = self.fw_max.q.val();
        } else if self.row_live.q.val().get_bit(self.c_key.q.val().index()) {
            self.row_raw.next = self.counts.read_data.val();
            self.max_raw.next = self.maxes.read_data.val();
        } else {
            self.row_raw.next = 0.into();
            self.max_raw.next = 0.into();
        }
        // Egress dequeue first: B <= WARN resets the counters, B <= XON clears the E bits.
        self.reset_now.next =
            self.egress.d_valid.val() & (self.egress.d_b1.val() <= self.r_eg_warn.val());
        self.xon_now.next =
            self.egress.d_valid.val() & (self.egress.d_b1.val() <= self.r_eg_xon.val());
        self.same_reset.next =
            self.reset_now.val() & (self.egress.d_key.val() == self.c_key.q.val());

        // Then the egress enqueue: count at WARN (not from the egress port itself).
        self.c_key_port.next = self.c_key.q.val() >> self.prio_bits.val();
        self.c_port.next = bit_cast::<PB, KB>(self.c_key_port.val());
        if self.c_input.q.val() > self.c_port.val() {
            self.c_lane.next = self.c_input.q.val() - self.one_pb.val();
        } else {
            self.c_lane.next = self.c_input.q.val();
        }
        self.is_enq.next = self.egress.e_valid.val();
        self.accepted.next = self.is_enq.val() & !self.egress.e_drop.val();
        self.count_it.next = self.accepted.val()
            & (self.egress.e_b1.val() >= self.r_eg_warn.val())
            & (self.c_input.q.val() != self.c_port.val());
        // The counted row and maximum are computed from the row as read, in parallel with the
        // late tests (the occupancy results decide `count_it` and `same_reset`), and selected
        // after them. A row reset on this cycle's dequeue counts from zero instead: its lane
        // becomes 1 (0 is never at the top) and so does the maximum, at the counted input.
        self.lane_old.next = self
            .row_raw
            .val()
            .get_bits::<16>(self.c_lane.val().index() * 16);
        self.raw_at_top.next = self.lane_old.val() == self.counter_top.val();
        self.raw_halve.next = self.raw_at_top.val() & !self.r_policy.val().get_bit(2);
        self.raw_bump.next = !(self.raw_at_top.val() & self.r_policy.val().get_bit(2));
        self.row_counted.next = 0.into();
        self.row_one.next = 0.into();
        for j in 0..PP {
            self.lane.next = self.row_raw.val().get_bits::<16>(j * 16);
            if self.raw_halve.val() {
                self.lane.next = self.lane.val() >> 1;
            }
            if self.raw_bump.val() & (self.c_lane.val() == j.to_bits::<PB>()) {
                self.lane.next = self.lane.val() + self.one_16.val();
            }
            self.row_counted.next = self.row_counted.val()
                | (bit_cast::<W, 16>(self.lane.val()) << (j * 16).to_bits::<16>());
            if self.c_lane.val() == j.to_bits::<PB>() {
                self.row_one.next = self.row_one.val()
                    | (bit_cast::<W, 16>(self.one_16.val()) << (j * 16).to_bits::<16>());
            }
        }
        self.lane_new.next = self
            .row_counted
            .val()
            .get_bits::<16>(self.c_lane.val().index() * 16);
        // The running maximum (lowest input on ties); a halving leaves the counted input as the
        // only maximum.
        self.max_val.next = self.max_raw.val().get_bits::<16>(0);
        self.max_in.next = self.max_raw.val().get_bits::<PB>(16);
        self.max_counted.next = self.max_raw.val();
        if self.raw_halve.val()
            | (self.lane_new.val() > self.max_val.val())
            | ((self.lane_new.val() == self.max_val.val())
                & (self.c_input.q.val() < self.max_in.val()))
        {
            self.max_counted.next = bit_cast::<32, 16>(self.lane_new.val())
                | (bit_cast::<32, PB>(self.c_input.q.val()) << 16);
        }
        self.at_top.next = !self.same_reset.val() & self.raw_at_top.val();
        if self.same_reset.val() {
            self.row_new.next = 0.into();
            self.max_new.next = 0.into();
            if self.count_it.val() {
                self.row_new.next = self.row_one.val();
                self.max_new.next = bit_cast::<32, 16>(self.one_16.val())
                    | (bit_cast::<32, PB>(self.c_input.q.val()) << 16);
            }
        } else if self.count_it.val() {
            self.row_new.next = self.row_counted.val();
            self.max_new.next = self.max_counted.val();
        } else {
            self.row_new.next = self.row_raw.val();
            self.max_new.next = self.max_raw.val();
        }
        self.max_val_new.next = self.max_new.val().get_bits::<16>(0);
        self.max_in_new.next = self.max_new.val().get_bits::<PB>(16);

        // Edge n + 1: the row write, forwarding, live bits.
        self.counts.write_enable.next = self.count_it.val();
        self.counts.write_address.next = self.c_key.q.val();
        self.counts.write_data.next = self.row_new.val();
        self.maxes.write_enable.next = self.count_it.val();
        self.maxes.write_address.next = self.c_key.q.val();
        self.maxes.write_data.next = self.max_new.val();
        self.fw_valid.d.next = self.count_it.val();
        self.fw_key.d.next = self.c_key.q.val();
        self.fw_row.d.next = self.row_new.val();
        self.fw_max.d.next = self.max_new.val();
        self.c_onehot.next = self.one_k.val() << self.c_key.q.val();
        self.d_onehot.next = self.one_k.val() << self.egress.d_key.val();
        self.row_live.d.next = self.row_live.q.val();
        if self.reset_now.val() {
            self.row_live.d.next = self.row_live.q.val() & !self.d_onehot.val();
        }
        if self.count_it.val() {
            self.row_live.d.next = self.row_live.d.val() | self.c_onehot.val();
        }

        // At XOFF: Stop-Max flags the maximum, Stop-Calibrate requests a calibration.
        self.policy.next = self.r_policy.val().get_bits::<2>(0);
        self.xoff_hit.next = self.accepted.val() & (self.egress.e_b1.val() >= self.r_eg_xoff.val());
        self.stopmax_set.next = self.xoff_hit.val()
            & (self.policy.val() == self.policy_max.val())
            & self.max_val_new.val().any();
        self.cal_trigger.next = self.xoff_hit.val() & (self.policy.val() == self.policy_cal.val());
        self.pending_left.next = self.pending.q.val();
        if self.reset_now.val() | self.xon_now.val() {
            self.pending_left.next = self.pending.q.val() & !self.d_onehot.val();
        }
        self.serve_capture.next = (self.c_kind.q.val() == self.kind_serve.val())
            & !self.cal_busy.q.val()
            & self.pending_left.val().get_bit(self.c_key.q.val().index());
        self.capture.next =
            (self.cal_trigger.val() & !self.cal_busy.q.val()) | self.serve_capture.val();
        self.pending.d.next = self.pending_left.val();
        if self.cal_trigger.val() & self.cal_busy.q.val() {
            self.pending.d.next = self.pending_left.val() | self.c_onehot.val();
        }
        if self.capture.val() {
            self.pending.d.next = self.pending_left.val() & !self.c_onehot.val();
        }
        if self.serve_capture.val() {
            self.rr_next.d.next = self.c_key.q.val() + self.one_kb.val();
        }

        // The inspection snapshot shows the row before this edge's events.
        if self.c_kind.q.val() == self.kind_inspect.val() {
            self.r_snap.d.next = 0.into();
            if self.c_ok.q.val() {
                self.r_snap.d.next = self
                    .row_raw
                    .val()
                    .get_bits::<16>(self.c_lane.val().index() * 16);
            }
        }

        // ---- The calibration engine: sum, then one largest remaining counter per edge.
        self.cum_new.next = self.cal_cum.q.val() + bit_cast::<32, 16>(self.cal_row.best_val.val());
        self.den.next = self.cal_cut.q.val().get_bits::<8>(8);
        self.num.next = self.cal_cut.q.val().get_bits::<8>(0);
        // den * cum and num * S by shift and add (8-bit factors): four pair sums in parallel,
        // then a balanced sum of the pairs, so each product is three adders deep, not eight.
        self.den_pairs.next = 0.into();
        self.num_pairs.next = 0.into();
        for b in 0..4 {
            self.pp_lo.next = 0.into();
            self.pp_hi.next = 0.into();
            if self.den.val().get_bit(2 * b) {
                self.pp_lo.next = self.cum_new.val() << (2 * b).to_bits::<8>();
            }
            if self.den.val().get_bit(2 * b + 1) {
                self.pp_hi.next = self.cum_new.val() << (2 * b + 1).to_bits::<8>();
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
        self.den_cum.next = (self.den_pairs.val().get_bits::<32>(0)
            + self.den_pairs.val().get_bits::<32>(32))
            + (self.den_pairs.val().get_bits::<32>(64) + self.den_pairs.val().get_bits::<32>(96));
        self.num_total.next = (self.num_pairs.val().get_bits::<32>(0)
            + self.num_pairs.val().get_bits::<32>(32))
            + (self.num_pairs.val().get_bits::<32>(64) + self.num_pairs.val().get_bits::<32>(96));
        self.cancel_now.next = self.cal_cancel.q.val()
            | ((self.reset_now.val() | self.xon_now.val())
                & (self.egress.d_key.val() == self.cal_key.q.val()));
        self.cal_done.next = false;
        if self.cal_busy.q.val() {
            self.cal_cancel.d.next = self.cancel_now.val();
            if !self.cal_summed.q.val() {
                self.cal_total.d.next = self.cal_row.sum.val();
                self.cal_summed.d.next = true;
            } else {
                self.cal_row.next_flagged.next =
                    self.cal_row.flagged.val() | self.cal_row.sel.val();
                self.cal_cum.d.next = self.cum_new.val();
                self.cal_done.next = !self.cal_row.found.val()
                    | (self.den_cum.val() >= self.num_total.val())
                    | !self.cal_row.left.val();
            }
        }
        if self.cal_done.val() {
            self.cal_busy.d.next = false;
        }
        self.cal_result.next = self.cal_done.val()
            & !self.cancel_now.val()
            & (self.policy.val() == self.policy_cal.val());
        // Lanes back to inputs: lanes at and above the egress port move up by one.
        self.flags_lanes.next = self.cal_row.flagged.val() | self.cal_row.sel.val();
        self.cal_key_port.next = self.cal_key.q.val() >> self.prio_bits.val();
        self.cal_port.next = bit_cast::<PB, KB>(self.cal_key_port.val());
        self.below_port.next = (self.one_pp.val() << self.cal_port.val()) - self.one_pp.val();
        self.flags_inputs.next = (self.flags_lanes.val() & self.below_port.val())
            | ((self.flags_lanes.val() & !self.below_port.val()) << 1);
        if self.capture.val() {
            self.cal_busy.d.next = true;
            self.cal_summed.d.next = false;
            self.cal_cancel.d.next = false;
            self.cal_key.d.next = self.c_key.q.val();
            self.cal_cut.d.next = self.r_cut.val();
            self.cal_cum.d.next = 0.into();
            self.cal_row.next_flagged.next = 0.into();
            if self.serve_capture.val() {
                self.cal_row.next_counts.next = self.row_raw.val();
            } else {
                self.cal_row.next_counts.next = self.row_new.val();
            }
        }

        // ---- E bits: clear at XON, then set by Stop-Max or the engine; net messages.
        self.set_valid.next = self.stopmax_set.val() | self.cal_result.val();
        if self.stopmax_set.val() {
            self.set_key.next = self.c_key.q.val();
            self.set_wanted.next = self.one_pp.val() << self.max_in_new.val();
        } else {
            self.set_key.next = self.cal_key.q.val();
            self.set_wanted.next = self.flags_inputs.val();
        }
        // Only the lanes the E rows keep (the other existing ports, in a row of an existing
        // key). Every reachable set already lies within them; masking keeps the E messages and
        // the count planes equal to the rows from any state (k-induction starts from any).
        self.set_key_port.next = self.set_key.val() >> self.prio_bits.val();
        self.set_port.next = bit_cast::<PB, KB>(self.set_key_port.val());
        self.set_prio.next = self.set_key.val() & self.prio_mask.val();
        self.set_prio_oh.next = self.one_8.val() << self.set_prio.val();
        self.set_lanes.next = 0.into();
        if self.port_ok.val().get_bit(self.set_port.val().index())
            & (self.set_prio_oh.val() & self.prio_ok.val()).any()
        {
            self.set_lanes.next = self.port_ok.val() & !(self.one_pp.val() << self.set_port.val());
        }
        self.set_bits.next = self.set_wanted.val() & self.set_lanes.val();
        self.e_rows.clear_valid.next = self.xon_now.val();
        self.e_rows.clear_key.next = self.egress.d_key.val();
        self.e_rows.set_valid.next = self.set_valid.val();
        self.e_rows.set_key.next = self.set_key.val();
        self.e_rows.set_bits.next = self.set_bits.val();
        self.clear_row.next = self.e_rows.row0.val();
        self.set_row.next = self.e_rows.row2.val();
        if self.stopmax_set.val() {
            self.set_row.next = self.e_rows.row1.val();
        }
        self.same_row.next = self.xon_now.val()
            & self.set_valid.val()
            & (self.egress.d_key.val() == self.set_key.val());
        self.eset.next = 0.into();
        if self.set_valid.val() {
            if self.same_row.val() {
                self.eset.next = self.set_bits.val() & !self.clear_row.val();
            } else {
                self.eset.next = self.set_bits.val() & !self.set_row.val();
            }
        }
        self.eclr.next = 0.into();
        if self.xon_now.val() {
            if self.same_row.val() {
                self.eclr.next = self.clear_row.val() & !self.set_bits.val();
            } else {
                self.eclr.next = self.clear_row.val();
            }
        }
        self.o_eset_valid.d.next = self.eset.val().any();
        self.o_eset_key.d.next = 0.into();
        if self.eset.val().any() {
            self.o_eset_key.d.next = self.set_key.val();
        }
        self.o_eset_mask.d.next = self.eset.val();
        self.o_eclr_valid.d.next = self.eclr.val().any();
        self.o_eclr_key.d.next = 0.into();
        if self.eclr.val().any() {
            self.o_eclr_key.d.next = self.egress.d_key.val();
        }
        self.o_eclr_mask.d.next = self.eclr.val();

        // Counts of set E bits per ingress key: +1 for each set bit, -1 for each cleared bit.
        self.clr_prio.next = self.egress.d_key.val() & self.prio_mask.val();
        self.clr_prio_oh.next = self.one_8.val() << self.clr_prio.val();
        self.inc.next = 0.into();
        self.dec.next = 0.into();
        for i in 0..PP {
            if self.eset.val().get_bit(i) {
                self.inc.next = self.inc.val()
                    | (bit_cast::<K, 8>(self.set_prio_oh.val())
                        << (i.to_bits::<16>() << self.prio_bits.val()));
            }
            if self.eclr.val().get_bit(i) {
                self.dec.next = self.dec.val()
                    | (bit_cast::<K, 8>(self.clr_prio_oh.val())
                        << (i.to_bits::<16>() << self.prio_bits.val()));
            }
        }
        self.carry.next = self.inc.val() & !self.dec.val();
        self.borrow.next = self.dec.val() & !self.inc.val();
        self.n0.next = self.cnt0.q.val() ^ (self.carry.val() | self.borrow.val());
        self.carry.next = self.carry.val() & self.cnt0.q.val();
        self.borrow.next = self.borrow.val() & !self.cnt0.q.val();
        self.n1.next = self.cnt1.q.val() ^ (self.carry.val() | self.borrow.val());
        self.carry.next = self.carry.val() & self.cnt1.q.val();
        self.borrow.next = self.borrow.val() & !self.cnt1.q.val();
        self.n2.next = self.cnt2.q.val() ^ (self.carry.val() | self.borrow.val());
        self.carry.next = self.carry.val() & self.cnt2.q.val();
        self.borrow.next = self.borrow.val() & !self.cnt2.q.val();
        self.n3.next = self.cnt3.q.val() ^ (self.carry.val() | self.borrow.val());
        self.carry.next = self.carry.val() & self.cnt3.q.val();
        self.borrow.next = self.borrow.val() & !self.cnt3.q.val();
        self.n4.next = self.cnt4.q.val() ^ (self.carry.val() | self.borrow.val());
        self.carry.next = self.carry.val() & self.cnt4.q.val();
        self.borrow.next = self.borrow.val() & !self.cnt4.q.val();
        self.n5.next = self.cnt5.q.val() ^ (self.carry.val() | self.borrow.val());
        self.cnt0.d.next = self.n0.val();
        self.cnt1.d.next = self.n1.val();
        self.cnt2.d.next = self.n2.val();
        self.cnt3.d.next = self.n3.val();
        self.cnt4.d.next = self.n4.val();
        self.cnt5.d.next = self.n5.val();
        self.d_old.next = self.ingress.xoff.val()
            | self.cnt0.q.val()
            | self.cnt1.q.val()
            | self.cnt2.q.val()
            | self.cnt3.q.val()
            | self.cnt4.q.val()
            | self.cnt5.q.val();
        self.d_new.next = self.ingress.xoff_next.val()
            | self.n0.val()
            | self.n1.val()
            | self.n2.val()
            | self.n3.val()
            | self.n4.val()
            | self.n5.val();

        // ---- The frame generator follows D.
        self.frames.clock.next = self.clock.val();
        self.frames.reset.next = self.reset.val();
        self.frames.paused.next = self.d_old.val();
        self.frames.paused_next.next = self.d_new.val();
        self.frames.quanta.next = self.r_quanta.val();
        self.frames.refresh.next = self.r_refresh.val();

        // ---- Drops.
        self.o_in_drop.d.next = self.ingress.drop.val();
        self.o_eg_drop.d.next = self.egress.e_drop.val();

        // ---- CSR bus: read the value before the edge; writes apply at the edge.
        self.insp_row.next = 0.into();
        self.insp_row64.next = 0.into();
        self.insp_state.next = 0.into();
        self.insp_cnt.next = 0.into();
        if self.insp_key_ok.val() {
            self.insp_row.next = self.e_rows.row3.val();
            self.insp_row64.next = bit_cast::<64, PP>(self.insp_row.val());
            self.insp_cnt.next = self
                .insp_cnt
                .val()
                .replace_bit(0, self.cnt0.q.val().get_bit(self.insp_key.val().index()));
            self.insp_cnt.next = self
                .insp_cnt
                .val()
                .replace_bit(1, self.cnt1.q.val().get_bit(self.insp_key.val().index()));
            self.insp_cnt.next = self
                .insp_cnt
                .val()
                .replace_bit(2, self.cnt2.q.val().get_bit(self.insp_key.val().index()));
            self.insp_cnt.next = self
                .insp_cnt
                .val()
                .replace_bit(3, self.cnt3.q.val().get_bit(self.insp_key.val().index()));
            self.insp_cnt.next = self
                .insp_cnt
                .val()
                .replace_bit(4, self.cnt4.q.val().get_bit(self.insp_key.val().index()));
            self.insp_cnt.next = self
                .insp_cnt
                .val()
                .replace_bit(5, self.cnt5.q.val().get_bit(self.insp_key.val().index()));
            self.insp_state.next = bit_cast::<16, 8>(self.insp_cnt.val()) << 8;
            self.insp_state.next = self.insp_state.val().replace_bit(
                0,
                self.ingress.xoff.val().get_bit(self.insp_key.val().index()),
            );
            self.insp_state.next = self
                .insp_state
                .val()
                .replace_bit(1, self.d_old.val().get_bit(self.insp_key.val().index()));
        }
        self.status.next = 0.into();
        self.status.next = self.status.val().replace_bit(
            0,
            self.snap_pending.q.val() | (self.c_kind.q.val() == self.kind_inspect.val()),
        );
        self.status.next = self.status.val().replace_bit(1, self.cal_busy.q.val());
        // CSR bank: the bus, the status words as they are before the edge.
        self.csr.clock.next = self.clock.val();
        self.csr.reset.next = self.reset.val();
        self.csr.we.next = self.csr_we.val();
        self.csr.addr.next = self.csr_addr.val();
        self.csr.wdata.next = self.csr_wdata.val();
        self.csr.hw_value.next = (bit_cast::<CSR_BITS, 2>(self.status.val())
            << self.at_status.val())
            | (bit_cast::<CSR_BITS, 16>(self.r_snap.q.val()) << self.at_inspect_counter.val())
            | (bit_cast::<CSR_BITS, 64>(self.insp_row64.val()) << self.at_inspect_e_lo.val())
            | (bit_cast::<CSR_BITS, 16>(self.insp_state.val()) << self.at_inspect_state.val());
        // A write of `inspect` asks for a snapshot.
        if (self.csr.write.val() & self.inspect_written.val()).any() {
            self.snap_pending.d.next = true;
        }
        self.err_set.next = 0.into();
        if self.ingress.underflow.val() {
            self.err_set.next = self.err_set.val() | self.err_in_underflow.val();
        }
        if self.egress.d_underflow.val() {
            self.err_set.next = self.err_set.val() | self.err_eg_underflow.val();
        }
        if self.in_bad.q.val() | self.eg_bad.q.val() {
            self.err_set.next = self.err_set.val() | self.err_index.val();
        }
        if self.count_it.val() & self.at_top.val() {
            self.err_set.next = self.err_set.val() | self.err_saturation.val();
        }
        self.csr.hw_set.next = bit_cast::<CSR_BITS, 4>(self.err_set.val()) << self.at_err.val();

        // ---- Outputs.
        self.in_drop.next = self.o_in_drop.q.val();
        self.eg_drop.next = self.o_eg_drop.q.val();
        self.eset_valid.next = self.o_eset_valid.q.val();
        self.eset_key_port.next = self.o_eset_key.q.val() >> self.prio_bits.val();
        self.eset_port.next = bit_cast::<PB, KB>(self.eset_key_port.val());
        self.eset_key_prio.next = self.o_eset_key.q.val() & self.prio_mask.val();
        self.eset_prio.next = bit_cast::<3, KB>(self.eset_key_prio.val());
        self.eset_mask.next = self.o_eset_mask.q.val();
        self.eclr_valid.next = self.o_eclr_valid.q.val();
        self.eclr_key_port.next = self.o_eclr_key.q.val() >> self.prio_bits.val();
        self.eclr_port.next = bit_cast::<PB, KB>(self.eclr_key_port.val());
        self.eclr_key_prio.next = self.o_eclr_key.q.val() & self.prio_mask.val();
        self.eclr_prio.next = bit_cast::<3, KB>(self.eclr_key_prio.val());
        self.eclr_mask.next = self.o_eclr_mask.q.val();
        self.frame_valid.next = self.frames.frame_valid.val();
        self.frame_port.next = self.frames.frame_port.val();
        self.frame_class_enable.next = self.frames.frame_class_enable.val();
        self.frame_pause.next = self.frames.frame_pause.val();
        self.frame_quanta.next = self.frames.frame_quanta.val();
        self.csr_rdata.next = self.csr.rdata.val();

        // ---- Synchronous reset: registers to their reset values.
        if self.reset.val() {
            self.r_snap.d.next = 0.into();
            self.snap_pending.d.next = false;
            self.in_bad.d.next = false;
            self.eg_bad.d.next = false;
            self.c_kind.d.next = 0.into();
            self.row_live.d.next = 0.into();
            self.fw_valid.d.next = false;
            self.pending.d.next = 0.into();
            self.rr_next.d.next = 0.into();
            self.cal_busy.d.next = false;
            self.cal_summed.d.next = false;
            self.cal_cancel.d.next = false;
            self.cnt0.d.next = 0.into();
            self.cnt1.d.next = 0.into();
            self.cnt2.d.next = 0.into();
            self.cnt3.d.next = 0.into();
            self.cnt4.d.next = 0.into();
            self.cnt5.d.next = 0.into();
            self.o_in_drop.d.next = false;
            self.o_eg_drop.d.next = false;
            self.o_eset_valid.d.next = false;
            self.o_eset_key.d.next = 0.into();
            self.o_eset_mask.d.next = 0.into();
            self.o_eclr_valid.d.next = false;
            self.o_eclr_key.d.next = 0.into();
            self.o_eclr_mask.d.next = 0.into();
        }

        // ---- The E rows' read keys: what each key register loads on this edge (the rows are
        // then ready at the start of the next cycle). Row 0 at the dequeue key (the XON clear),
        // row 1 at Stop-Max's key, row 2 at the engine's key, row 3 at the inspected key.
        self.e_rows.next_key0.next = self.egress.deq_key.val();
        self.e_rows.next_key1.next = self.c_key.d.val();
        self.e_rows.next_key2.next = self.cal_key.d.val();
        self.insp_next_port8.next = self.r_inspect_next.val().get_bits::<8>(0) & self.field6.val();
        self.insp_next_prio.next = self.r_inspect_next.val().get_bits::<3>(8);
        self.e_rows.next_key3.next = (bit_cast::<KB, 8>(self.insp_next_port8.val())
            << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.insp_next_prio.val()) & self.prio_mask.val());
    }
}

/// A fresh `CapfcCore` with `$pb` port bits and `$nq` priority bits (the sizes follow from them).
macro_rules! capfc_core {
    ($pb:literal, $nq:literal, $cfg:expr) => {
        CapfcCore::<
            $pb,
            { 1 << $pb },
            { 1 << ($pb + $nq) },
            { $pb + $nq },
            { 16 << $pb },
            { 1 << ($pb + $nq + $pb) },
        >::new($cfg)
    };
}

/// Calls `$body` with `$core` bound to a fresh `CapfcCore` sized for `$cfg`.
macro_rules! with_capfc_core {
    ($cfg:expr, |$core:ident| $body:expr) => {{
        let cfg: &CapfcConfig = $cfg;
        match (cfg.port_bits(), cfg.prio_bits()) {
            (1, 1) => {
                let mut $core = capfc_core!(1, 1, cfg);
                $body
            }
            (1, 2) => {
                let mut $core = capfc_core!(1, 2, cfg);
                $body
            }
            (1, 3) => {
                let mut $core = capfc_core!(1, 3, cfg);
                $body
            }
            (2, 1) => {
                let mut $core = capfc_core!(2, 1, cfg);
                $body
            }
            (2, 2) => {
                let mut $core = capfc_core!(2, 2, cfg);
                $body
            }
            (2, 3) => {
                let mut $core = capfc_core!(2, 3, cfg);
                $body
            }
            (3, 1) => {
                let mut $core = capfc_core!(3, 1, cfg);
                $body
            }
            (3, 2) => {
                let mut $core = capfc_core!(3, 2, cfg);
                $body
            }
            (3, 3) => {
                let mut $core = capfc_core!(3, 3, cfg);
                $body
            }
            (4, 1) => {
                let mut $core = capfc_core!(4, 1, cfg);
                $body
            }
            (4, 2) => {
                let mut $core = capfc_core!(4, 2, cfg);
                $body
            }
            (4, 3) => {
                let mut $core = capfc_core!(4, 3, cfg);
                $body
            }
            (5, 1) => {
                let mut $core = capfc_core!(5, 1, cfg);
                $body
            }
            (5, 2) => {
                let mut $core = capfc_core!(5, 2, cfg);
                $body
            }
            (5, 3) => {
                let mut $core = capfc_core!(5, 3, cfg);
                $body
            }
            (6, 1) => {
                let mut $core = capfc_core!(6, 1, cfg);
                $body
            }
            (6, 2) => {
                let mut $core = capfc_core!(6, 2, cfg);
                $body
            }
            (6, 3) => {
                let mut $core = capfc_core!(6, 3, cfg);
                $body
            }
            (pb, nq) => unreachable!(
                "validated configs have 2..=64 ports and 1..=8 priorities, not {pb} port bits and {nq} priority bits"
            ),
        }
    }};
}

/// rust-hdl's Verilog of the CaPFC core for `cfg` (module `top` and its submodules).
pub fn core_verilog(cfg: &CapfcConfig) -> String {
    crate::export::on_large_stack(|| {
        with_capfc_core!(cfg, |core| {
            core.connect_all();
            generate_verilog(&core)
        })
    })
}

/// The packaged Verilog, manifest and C header of a CaPFC instance.
pub fn package(cfg: &CapfcConfig, instance: &str, command: &str) -> crate::export::Package {
    let config_toml = toml::to_string(cfg).expect("config serializes");
    let schema = switchcraft_model::capfc::port_schema(cfg);
    let header = regmap(cfg).c_header(instance, command, &schema);
    use crate::export::Waiver;
    crate::export::package(&crate::export::Source {
        block: "capfc",
        instance,
        command,
        config_toml: &config_toml,
        schema: &schema,
        core_verilog: &core_verilog(cfg),
        c_header: &header,
        notes: &[
            "Stop-Calibrate sets eset_* 2 + max(m, 1) edges after the triggering enqueue (m",
            "flagged counters). See docs/blocks/capfc.md.",
        ],
        waivers: &[
            csr_bank::UNUSED_WAIVER,
            Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &[
                    "ingress$xoff_event",
                    "ingress$xon_event",
                    "ingress$e_key",
                    "ingress$d_key",
                    "egress$e_key",
                    "egress$same_key",
                    "max_eff",
                ],
                reason: "outputs of the sub-blocks shared with PFC that CaPFC does not need \
                         (PFC's pause-request events, the egress stage's key and same-key flag), \
                         and the unused high bits of the running-maximum RAM's 32-bit bus.",
            },
            Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &["e_rows$rows"],
                reason: "the whole E matrix: the core reads rows through the E rows' read \
                         ports; the matrix is an output for the formal properties \
                         (formal/capfc/capfc_props.sv probes it).",
            },
            Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &[
                    "*_key_port",
                    "*_key_prio",
                    "insp_next_port8",
                    "r_inspect",
                    "r_inspect_next",
                    "g_enabled",
                    "g_paused",
                ],
                reason: "the high bits of the key-field locals, which keep the key's width \
                         through the shift or mask (only the low PB port bits or the priority \
                         bits are used), the bits of the inspect word between its fields, and \
                         the frame generator's selected class group (K wide; its low 8 bits at \
                         most are the class vector).",
            },
        ],
    })
}
