//! RCM in rust-hdl: the register-transfer form of `switchcraft_model::rcm`.
//!
//! Contract and cycle semantics: docs/blocks/rcm.md and crates/model/src/rcm.rs. The core is
//! two samplers ([`sampler::Sampler`], the VOQs and the output queues, six stages each), two
//! CAMs ([`Cam`]: each output queue's sampled flow IDs, and each port's IDs received in CNs),
//! the per-port registers and the **port stage**: one cycle in which the events of edge n (the
//! CN received, the offer, the route query, the ID read; the samples of edge n - 6) and the
//! sweep's visit of port `n mod ports` are applied in the model's order, reading the CAMs'
//! registered matches (their keys come straight from the input buses, so the matches are
//! against every write up to edge n) and writing the port registers at edge n + 1, with the
//! outputs. So the port stage reads registers only, and the visit, which decides from the
//! registers, runs beside the events rather than after them.

pub mod sampler;

use crate::cam::{Cam, SEG_SLOTS};
use crate::csr_bank::{self, CsrBank};
use crate::narrow_ram::low_bits;
use crate::tech::Tech;
use rust_hdl::prelude::*;
use sampler::Sampler;
use switchcraft_model::rcm::{err, regmap, Rcc, RcmConfig, GD_ONE, RATE_ONE, SEVERE_SLOTS};

/// Word slots of the bank (the registers are words 0..=35) and their bits.
const CSR_SLOTS: usize = 36;
const CSR_BITS: usize = 32 * CSR_SLOTS;
const CSR_OFFSET_BITS: usize = 11;
type Bank = CsrBank<CSR_SLOTS, CSR_BITS, CSR_OFFSET_BITS>;

/// RCM core for ports addressed by `PB` bits: `PP = 2^PB` port slots, VOQ keys of `VB = 2 PB`
/// bits, CAM addresses of `AB = PB + 5` bits over `N = 32 PP` entry slots.
#[derive(LogicBlock)]
pub struct RcmCore<
    const PB: usize,
    const PP: usize,
    const VB: usize,
    const AB: usize,
    const N: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub iq_valid: Signal<In, Bit>,
    pub iq_port: Signal<In, Bits<PB>>,
    pub iq_voq: Signal<In, Bits<PB>>,
    pub iq_qdepth: Signal<In, Bits<24>>,
    pub iq_len: Signal<In, Bits<16>>,
    pub oq_valid: Signal<In, Bit>,
    pub oq_port: Signal<In, Bits<PB>>,
    pub oq_qdepth: Signal<In, Bits<24>>,
    pub oq_len: Signal<In, Bits<16>>,
    pub oq_fid: Signal<In, Bits<64>>,
    pub sch_valid: Signal<In, Bit>,
    pub sch_port: Signal<In, Bits<PB>>,
    pub sch_fid: Signal<In, Bits<64>>,
    pub sch_len: Signal<In, Bits<16>>,
    pub sch_alone: Signal<In, Bit>,
    pub rt_valid: Signal<In, Bit>,
    pub rt_port: Signal<In, Bits<PB>>,
    pub rt_cands: Signal<In, Bits<PP>>,
    pub rt_fid: Signal<In, Bits<64>>,
    pub rt_new: Signal<In, Bit>,
    pub cnr_valid: Signal<In, Bit>,
    pub cnr_port: Signal<In, Bits<PB>>,
    pub cnr_fbp: Signal<In, Bits<6>>,
    pub cni_valid: Signal<In, Bit>,
    pub cni_port: Signal<In, Bits<PB>>,
    pub cni_fid: Signal<In, Bits<64>>,
    pub idr_valid: Signal<In, Bit>,
    pub idr_port: Signal<In, Bits<PB>>,
    pub idr_ext: Signal<In, Bit>,
    pub idr_index: Signal<In, Bits<5>>,
    pub csr_we: Signal<In, Bit>,
    pub csr_addr: Signal<In, Bits<6>>,
    pub csr_wdata: Signal<In, Bits<32>>,

    pub dec_valid: Signal<Out, Bit>,
    pub dec_grant: Signal<Out, Bit>,
    pub dec_harmful: Signal<Out, Bit>,
    pub route_valid: Signal<Out, Bit>,
    pub route_port: Signal<Out, Bits<PB>>,
    pub route_detour: Signal<Out, Bit>,
    pub cn_valid: Signal<Out, Bit>,
    pub cn_port: Signal<Out, Bits<PB>>,
    pub cn_fbp: Signal<Out, Bits<6>>,
    pub cn_list: Signal<Out, Bits<PB>>,
    pub cn_relay: Signal<Out, Bit>,
    pub id_valid: Signal<Out, Bit>,
    pub id_hit: Signal<Out, Bit>,
    pub id_fid: Signal<Out, Bits<64>>,
    pub csr_rdata: Signal<Out, Bits<32>>,

    pub csr: Bank,
    pub voqs: Sampler<VB>,
    pub oqs: Sampler<PB>,
    /// Sampled flow IDs per output queue; IDs received in CNs per port.
    pub sampled_ids: Cam<AB, N, PP, 64>,
    pub received_ids: Cam<AB, N, PP, 64>,

    // ---- Per-port registers (port p's in slot p).
    lcf: [DFF<Bit>; PP],
    clear_run: [DFF<Bits<4>>; PP],
    rcf: [DFF<Bit>; PP],
    rcf_t: [DFF<Bits<32>>; PP],
    fb: [DFF<Bits<6>>; PP],
    fbr: [DFF<Bits<6>>; PP],
    pend_v: [DFF<Bit>; PP],
    pend: [DFF<Bits<6>>; PP],
    cn_v: [DFF<Bit>; PP],
    cn_t: [DFF<Bits<32>>; PP],
    rcc: [DFF<Bits<2>>; PP],
    meas_t: [DFF<Bits<32>>; PP],
    w: [DFF<Bits<32>>; PP],
    wc: [DFF<Bits<32>>; PP],
    sent_all: [DFF<Bits<32>>; PP],
    sent_c: [DFF<Bits<32>>; PP],
    rate: [DFF<Bits<17>>; PP],
    cam_wp: [DFF<Bits<5>>; PP],
    ext_wp: [DFF<Bits<5>>; PP],
    /// Severe CNs: valid and timestamp per slot, and the slot the next one overwrites.
    sev_v: [DFF<Bit>; SEVERE_SLOTS],
    sev_t: [DFF<Bits<32>>; SEVERE_SLOTS],
    sev_wp: DFF<Bits<2>>,

    // ---- Free-running: timestamp, the sweep's port, the reset sweep of the queue tables.
    pre: DFF<Bits<32>>,
    ts: DFF<Bits<32>>,
    visit: DFF<Bits<PB>>,
    init: DFF<Bits<17>>,
    is_ready: DFF<Bit>,

    // ---- Capture of edge n's port-stage events.
    r_cnr_v: DFF<Bit>,
    r_cnr_port: DFF<Bits<PB>>,
    r_cnr_fbp: DFF<Bits<6>>,
    r_cni_v: DFF<Bit>,
    r_cni_port: DFF<Bits<PB>>,
    r_cni_fid: DFF<Bits<64>>,
    r_sch_v: DFF<Bit>,
    r_sch_ok: DFF<Bit>,
    r_sch_port: DFF<Bits<PB>>,
    r_sch_len: DFF<Bits<16>>,
    r_sch_alone: DFF<Bit>,
    r_rt_v: DFF<Bit>,
    r_rt_ok: DFF<Bit>,
    r_rt_port: DFF<Bits<PB>>,
    r_rt_cands: DFF<Bits<PP>>,
    r_rt_new: DFF<Bit>,
    r_idr_v: DFF<Bit>,
    r_idr_ok: DFF<Bit>,
    r_idr_port: DFF<Bits<PB>>,
    r_idr_ext: DFF<Bit>,
    r_idr_index: DFF<Bits<5>>,
    /// The CN's ID equals the offer's / the route query's flow.
    r_eq_sch: DFF<Bit>,
    r_eq_rt: DFF<Bit>,
    r_err: DFF<Bits<3>>,
    r_ts: DFF<Bits<32>>,
    r_visit: DFF<Bits<PB>>,
    /// What the visit's reduction keeps, `1 - min(Fb x Gd, 1)` in Q0.16 with the visited
    /// port's pending Fb: computed in the cycle before the visit, from that port's pending Fb
    /// as the edge leaves it and the Gd the edge writes.
    k_keep: DFF<Bits<17>>,
    /// The visited port's timer tests, made in the cycle before like `k_keep`: T_rcf since
    /// the last CN received, T_cn since the last CN sent, T_meas since the measurement began.
    k_rcf_old: DFF<Bit>,
    k_cn_old: DFF<Bit>,
    k_meas_done: DFF<Bit>,
    /// The visit's multiplicands, registered in the cycle before like `k_keep`, so that the
    /// product does not start behind the selection of the visited port: Wc (or the harmful
    /// bytes measured, at a measurement) and R (or 1), as the edge leaves them.
    k_x: DFF<Bits<32>>,
    k_r: DFF<Bits<17>>,

    // ---- Outputs.
    o_dec_v: DFF<Bit>,
    o_dec_grant: DFF<Bit>,
    o_dec_harmful: DFF<Bit>,
    o_route_v: DFF<Bit>,
    o_route_port: DFF<Bits<PB>>,
    o_route_detour: DFF<Bit>,
    o_cn_v: DFF<Bit>,
    o_cn_port: DFF<Bits<PB>>,
    o_cn_fbp: DFF<Bits<6>>,
    o_cn_list: DFF<Bits<PB>>,
    o_cn_relay: DFF<Bit>,
    o_id_v: DFF<Bit>,
    o_id_hit: DFF<Bit>,
    o_id_fid: DFF<Bits<64>>,

    // ---- Parameters of this instance.
    port_ok: Constant<Bits<PP>>,
    /// One port: every visit is of port 0, so the next visit's pending Fb depends on this one.
    one_port: Constant<Bit>,
    /// Bit offset of port p's Fb' in the packed `fbps`.
    at8: [Constant<Bits<8>>; PP],
    last_port: Constant<Bits<PB>>,
    fid_mask: Constant<Bits<64>>,
    len_mask: Constant<Bits<16>>,
    ts_mask: Constant<Bits<32>>,
    pre_mask: Constant<Bits<32>>,
    window_top: Constant<Bits<33>>,
    window_mask: Constant<Bits<32>>,
    slot_mask: Constant<Bits<5>>,
    init_last: Constant<Bits<17>>,
    gd_one: Constant<Bits<25>>,
    rate_one: Constant<Bits<17>>,
    one32: Constant<Bits<32>>,
    one17: Constant<Bits<17>>,
    one5: Constant<Bits<5>>,
    one4: Constant<Bits<4>>,
    one2: Constant<Bits<2>>,
    c1: Constant<Bits<8>>,
    c5: Constant<Bits<8>>,
    c2: Constant<Bits<8>>,
    c8: Constant<Bits<8>>,
    c16: Constant<Bits<8>>,
    c24: Constant<Bits<8>>,
    err_index: Constant<Bits<3>>,
    err_not_ready: Constant<Bits<3>>,
    err_sat: Constant<Bits<3>>,
    rcc_off: Constant<Bits<2>>,
    rcc_measure: Constant<Bits<2>>,
    rcc_on: Constant<Bits<2>>,
    /// Bit offsets of registers on the bank's buses.
    at_status: Constant<Bits<CSR_OFFSET_BITS>>,
    at_err: Constant<Bits<CSR_OFFSET_BITS>>,
    at_q_eq: Constant<Bits<CSR_OFFSET_BITS>>,
    at_w: Constant<Bits<CSR_OFFSET_BITS>>,
    at_fb_scale: Constant<Bits<CSR_OFFSET_BITS>>,
    at_n_clear: Constant<Bits<CSR_OFFSET_BITS>>,
    at_t_cn: Constant<Bits<CSR_OFFSET_BITS>>,
    at_t_rcf: Constant<Bits<CSR_OFFSET_BITS>>,
    at_t_meas: Constant<Bits<CSR_OFFSET_BITS>>,
    at_gd: Constant<Bits<CSR_OFFSET_BITS>>,
    at_wc_min: Constant<Bits<CSR_OFFSET_BITS>>,
    at_w_shift: Constant<Bits<CSR_OFFSET_BITS>>,
    at_sar_enable: Constant<Bits<CSR_OFFSET_BITS>>,
    at_sar_new_only: Constant<Bits<CSR_OFFSET_BITS>>,
    at_sar_cns: Constant<Bits<CSR_OFFSET_BITS>>,
    at_sar_window: Constant<Bits<CSR_OFFSET_BITS>>,
    at_sar_severe: Constant<Bits<CSR_OFFSET_BITS>>,
    at_cfr_clear: Constant<Bits<CSR_OFFSET_BITS>>,
    at_interval0: Constant<Bits<CSR_OFFSET_BITS>>,
    at_port_sel: Constant<Bits<CSR_OFFSET_BITS>>,
    at_port_flags: Constant<Bits<CSR_OFFSET_BITS>>,
    at_port_fb: Constant<Bits<CSR_OFFSET_BITS>>,
    at_port_w: Constant<Bits<CSR_OFFSET_BITS>>,
    at_port_wc: Constant<Bits<CSR_OFFSET_BITS>>,
    at_port_sent: Constant<Bits<CSR_OFFSET_BITS>>,
    at_port_rate: Constant<Bits<CSR_OFFSET_BITS>>,
    port_one: Constant<Bits<PP>>,
    one_pb: Constant<Bits<PB>>,
    pb_shift: Constant<Bits<VB>>,
    one3: Constant<Bits<3>>,
    c4: Constant<Bits<8>>,
    flag_lcf: Constant<Bits<32>>,
    flag_rcf: Constant<Bits<32>>,
    flag_pend: Constant<Bits<32>>,

    // ---- Cycle n locals: registers.
    reg_n_clear: Signal<Local, Bits<4>>,
    reg_t_cn: Signal<Local, Bits<32>>,
    reg_wc_min: Signal<Local, Bits<32>>,
    reg_w_shift: Signal<Local, Bits<3>>,
    reg_sar_window: Signal<Local, Bits<32>>,
    reg_sar_severe: Signal<Local, Bits<6>>,
    reg_sar_cns: Signal<Local, Bits<3>>,
    reg_port_sel: Signal<Local, Bits<PB>>,
    intervals: Signal<Local, Bits<256>>,
    // Capture.
    cands_ok: Signal<Local, Bits<PP>>,
    bus_err: Signal<Local, Bits<3>>,
    sampler_err: Signal<Local, Bits<3>>,
    sat_err: Signal<Local, Bits<3>>,
    iq_ok: Signal<Local, Bit>,
    oq_ok: Signal<Local, Bit>,
    voq_key: Signal<Local, Bits<VB>>,
    // The samples of this port stage.
    vs: Signal<Local, Bit>,
    vs_i: Signal<Local, Bits<PB>>,
    vs_o: Signal<Local, Bits<PB>>,
    vs_tag_high: Signal<Local, Bits<16>>,
    os: Signal<Local, Bit>,
    os_o: Signal<Local, Bits<PB>>,
    // Reads of the port registers.
    o_rcf: Signal<Local, Bit>,
    o_rcc: Signal<Local, Bits<2>>,
    o_w: Signal<Local, Bits<32>>,
    o_wc: Signal<Local, Bits<32>>,
    o_sent_all: Signal<Local, Bits<32>>,
    o_sent_c: Signal<Local, Bits<32>>,
    o_local: Signal<Local, Bits<32>>,
    o_ext: Signal<Local, Bits<32>>,
    c_rcf: Signal<Local, Bit>,
    c_fb: Signal<Local, Bits<6>>,
    c_fbr: Signal<Local, Bits<6>>,
    c_local: Signal<Local, Bits<32>>,
    c_ext: Signal<Local, Bits<32>>,
    i_cn_v: Signal<Local, Bit>,
    i_cn_t: Signal<Local, Bits<32>>,
    v_rcf: Signal<Local, Bit>,
    v_fbr: Signal<Local, Bits<6>>,
    b_ext_wp: Signal<Local, Bits<5>>,
    o2_cam_wp: Signal<Local, Bits<5>>,
    s_lcf: Signal<Local, Bit>,
    s_rcf: Signal<Local, Bit>,
    s_pend_v: Signal<Local, Bit>,
    s_cn_v: Signal<Local, Bit>,
    s_rcc: Signal<Local, Bits<2>>,
    s_meas_t: Signal<Local, Bits<32>>,
    s_w: Signal<Local, Bits<32>>,
    s_wc: Signal<Local, Bits<32>>,
    s_sent_all: Signal<Local, Bits<32>>,
    s_sent_c: Signal<Local, Bits<32>>,
    s_rate: Signal<Local, Bits<17>>,
    any_lcf: Signal<Local, Bit>,
    any_rcf: Signal<Local, Bit>,
    // The CN received.
    b_slot: Signal<Local, Bits<5>>,
    b_onehot: Signal<Local, Bits<32>>,
    b_cleared: Signal<Local, Bit>,
    // The offer.
    o_cleared: Signal<Local, Bit>,
    o_cni: Signal<Local, Bit>,
    o_ext_kept: Signal<Local, Bits<32>>,
    o_ext_hit: Signal<Local, Bit>,
    o_rcf_now: Signal<Local, Bit>,
    harmful: Signal<Local, Bit>,
    len32: Signal<Local, Bits<32>>,
    spent: Signal<Local, Bit>,
    grant: Signal<Local, Bit>,
    base_all: Signal<Local, Bits<32>>,
    base_c: Signal<Local, Bits<32>>,
    sum_all: Signal<Local, Bits<33>>,
    sum_c: Signal<Local, Bits<33>>,
    new_all: Signal<Local, Bits<32>>,
    new_c: Signal<Local, Bits<32>>,
    write_sent: Signal<Local, Bit>,
    add_c: Signal<Local, Bits<32>>,
    added: Signal<Local, Bit>,
    // The route query.
    c_cleared: Signal<Local, Bit>,
    c_cni: Signal<Local, Bit>,
    c_ext_kept: Signal<Local, Bits<32>>,
    c_ext_hit: Signal<Local, Bit>,
    c_rcf_now: Signal<Local, Bit>,
    rt_harmful: Signal<Local, Bit>,
    push_severe: Signal<Local, Bit>,
    severe_count: Signal<Local, Bits<3>>,
    sar_active: Signal<Local, Bit>,
    p_fbr: Signal<Local, Bits<6>>,
    p_fb: Signal<Local, Bits<6>>,
    p_mix: Signal<Local, Bits<16>>,
    fbp_mix: Signal<Local, Bits<16>>,
    best: Signal<Local, Bits<PB>>,
    idx: Signal<Local, Bits<PB>>,
    cur_mix: Signal<Local, Bits<16>>,
    p_fbp: Signal<Local, Bits<8>>,
    fbps: Signal<Local, Bits<128>>,
    cur_fbp: Signal<Local, Bits<8>>,
    fbp_p: Signal<Local, Bits<8>>,
    fbp_q: Signal<Local, Bits<8>>,
    win: Signal<Local, Bit>,
    beats: Signal<Local, Bit>,
    any_better: Signal<Local, Bit>,
    eligible: Signal<Local, Bit>,
    route: Signal<Local, Bits<PB>>,
    // The ID read.
    d_cleared: Signal<Local, Bit>,
    d_same: Signal<Local, Bit>,
    id_hit_now: Signal<Local, Bit>,
    id_fid_now: Signal<Local, Bits<64>>,
    // The VOQ sample's CN.
    cn_emit: Signal<Local, Bit>,
    cn_elapsed: Signal<Local, Bits<32>>,
    v_rcf_now: Signal<Local, Bit>,
    v_fbr_now: Signal<Local, Bits<6>>,
    cn_mix: Signal<Local, Bits<16>>,
    cn_fbp_now: Signal<Local, Bits<6>>,
    // The output queue's sample's CAM write.
    o2_slot: Signal<Local, Bits<5>>,
    o2_addr: Signal<Local, Bits<AB>>,
    b_addr: Signal<Local, Bits<AB>>,
    // The visit.
    rcf_expired: Signal<Local, Bit>,
    cn_expired: Signal<Local, Bit>,
    congested: Signal<Local, Bit>,
    v_consume: Signal<Local, Bit>,
    v_clear_cam: Signal<Local, Bit>,
    v_zero: Signal<Local, Bit>,
    v_rcc: Signal<Local, Bits<2>>,
    v_meas_t: Signal<Local, Bits<32>>,
    v_w: Signal<Local, Bits<32>>,
    v_wc: Signal<Local, Bits<32>>,
    v_rate: Signal<Local, Bits<17>>,
    cut: Signal<Local, Bits<25>>,
    cp0: Signal<Local, Bits<25>>,
    cp1: Signal<Local, Bits<25>>,
    cp2: Signal<Local, Bits<25>>,
    keep: Signal<Local, Bits<17>>,
    keep_wide: Signal<Local, Bits<25>>,
    red_x_high: Signal<Local, Bits<49>>,
    red_r_high: Signal<Local, Bits<34>>,
    err_now: Signal<Local, Bits<3>>,
    red_x: Signal<Local, Bits<49>>,
    red_r: Signal<Local, Bits<34>>,
    red_wc: Signal<Local, Bits<32>>,
    red_rate: Signal<Local, Bits<17>>,
    red_x_in: Signal<Local, Bits<49>>,
    gd_1: Signal<Local, Bits<25>>,
    /// Radix-4 partial products (digit d of `keep`'s low 16 bits: 0, x, 2x or 3x, at 4^d)
    /// and their tree: x = Wc or the harmful bytes, r = R.
    x3: Signal<Local, Bits<49>>,
    xp0: Signal<Local, Bits<49>>,
    xp1: Signal<Local, Bits<49>>,
    xp2: Signal<Local, Bits<49>>,
    xp3: Signal<Local, Bits<49>>,
    xp4: Signal<Local, Bits<49>>,
    xp5: Signal<Local, Bits<49>>,
    xp6: Signal<Local, Bits<49>>,
    xp7: Signal<Local, Bits<49>>,
    xq0: Signal<Local, Bits<49>>,
    xq1: Signal<Local, Bits<49>>,
    xq2: Signal<Local, Bits<49>>,
    xq3: Signal<Local, Bits<49>>,
    r3: Signal<Local, Bits<34>>,
    rp0: Signal<Local, Bits<34>>,
    rp1: Signal<Local, Bits<34>>,
    rp2: Signal<Local, Bits<34>>,
    rp3: Signal<Local, Bits<34>>,
    rp4: Signal<Local, Bits<34>>,
    rp5: Signal<Local, Bits<34>>,
    rp6: Signal<Local, Bits<34>>,
    rp7: Signal<Local, Bits<34>>,
    rq0: Signal<Local, Bits<34>>,
    rq1: Signal<Local, Bits<34>>,
    rq2: Signal<Local, Bits<34>>,
    rq3: Signal<Local, Bits<34>>,
    // The next visit's pending Fb (port `visit`, as this edge leaves it), for its cut.
    n_pend_v: Signal<Local, Bit>,
    n_pend: Signal<Local, Bits<6>>,
    n_trig_v: Signal<Local, Bit>,
    n_trig: Signal<Local, Bits<6>>,
    n_keep_v: Signal<Local, Bit>,
    n_fb: Signal<Local, Bits<6>>,
    n_gd: Signal<Local, Bits<17>>,
    n_rcf_t: Signal<Local, Bits<32>>,
    n_cn_t: Signal<Local, Bits<32>>,
    n_meas_t: Signal<Local, Bits<32>>,
    n_rcc: Signal<Local, Bits<2>>,
    n_wc: Signal<Local, Bits<32>>,
    n_rate: Signal<Local, Bits<17>>,
    n_sent_c: Signal<Local, Bits<32>>,
    v_fits: Signal<Local, Bit>,
    red_r_in: Signal<Local, Bits<34>>,
    // Per-port next state (in the loop).
    hit_a: Signal<Local, Bit>,
    hit_b: Signal<Local, Bit>,
    hit_o: Signal<Local, Bit>,
    hit_i: Signal<Local, Bit>,
    hit_o2: Signal<Local, Bit>,
    hit_s: Signal<Local, Bit>,
    l_lcf: Signal<Local, Bit>,
    l_run: Signal<Local, Bits<4>>,
    trig_v: Signal<Local, Bit>,
    trig: Signal<Local, Bits<6>>,
    keep_pend_v: Signal<Local, Bit>,
    // Severe-CN expiry and the CSR views.
    sev_elapsed: Signal<Local, Bits<32>>,
    view_flags: Signal<Local, Bits<32>>,
    status_word: Signal<Local, Bits<32>>,
    view_fb: Signal<Local, Bits<32>>,
    view_w: Signal<Local, Bits<32>>,
    view_wc: Signal<Local, Bits<32>>,
    view_sent: Signal<Local, Bits<32>>,
    view_rate: Signal<Local, Bits<32>>,
    view_rate17: Signal<Local, Bits<17>>,
    view_lcf: Signal<Local, Bit>,
    view_rcf: Signal<Local, Bit>,
    view_fbx: Signal<Local, Bits<6>>,
    view_fbr: Signal<Local, Bits<6>>,
    view_mix: Signal<Local, Bits<16>>,
    view_fbp: Signal<Local, Bits<6>>,
    view_rcc: Signal<Local, Bits<2>>,
    view_pend_v: Signal<Local, Bit>,
    view_pend: Signal<Local, Bits<6>>,
    view_pend_raw: Signal<Local, Bits<6>>,
    hw_words: Signal<Local, Bits<CSR_BITS>>,
}

impl<const PB: usize, const PP: usize, const VB: usize, const AB: usize, const N: usize>
    RcmCore<PB, PP, VB, AB, N>
{
    pub fn new(cfg: &RcmConfig) -> Self {
        assert_eq!(1 << PB, PP);
        assert_eq!(VB, 2 * PB);
        assert_eq!(AB, PB + 5);
        assert_eq!(N, PP * SEG_SLOTS);
        assert_eq!(PB as u32, cfg.port_bits());
        let map = regmap(cfg);
        let at = |name: &str| Bank::offset(&map, name);
        RcmCore {
            clock: Default::default(),
            reset: Default::default(),
            iq_valid: Default::default(),
            iq_port: Default::default(),
            iq_voq: Default::default(),
            iq_qdepth: Default::default(),
            iq_len: Default::default(),
            oq_valid: Default::default(),
            oq_port: Default::default(),
            oq_qdepth: Default::default(),
            oq_len: Default::default(),
            oq_fid: Default::default(),
            sch_valid: Default::default(),
            sch_port: Default::default(),
            sch_fid: Default::default(),
            sch_len: Default::default(),
            sch_alone: Default::default(),
            rt_valid: Default::default(),
            rt_port: Default::default(),
            rt_cands: Default::default(),
            rt_fid: Default::default(),
            rt_new: Default::default(),
            cnr_valid: Default::default(),
            cnr_port: Default::default(),
            cnr_fbp: Default::default(),
            cni_valid: Default::default(),
            cni_port: Default::default(),
            cni_fid: Default::default(),
            idr_valid: Default::default(),
            idr_port: Default::default(),
            idr_ext: Default::default(),
            idr_index: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            dec_valid: Default::default(),
            dec_grant: Default::default(),
            dec_harmful: Default::default(),
            route_valid: Default::default(),
            route_port: Default::default(),
            route_detour: Default::default(),
            cn_valid: Default::default(),
            cn_port: Default::default(),
            cn_fbp: Default::default(),
            cn_list: Default::default(),
            cn_relay: Default::default(),
            id_valid: Default::default(),
            id_hit: Default::default(),
            id_fid: Default::default(),
            csr_rdata: Default::default(),
            csr: Bank::new(&map),
            voqs: Sampler::new(cfg),
            oqs: Sampler::new(cfg),
            sampled_ids: Cam::new(
                cfg.cam_depth as usize,
                cfg.fid_bits as usize,
                cfg.ports as usize,
            ),
            received_ids: Cam::new(
                cfg.cam_depth as usize,
                cfg.fid_bits as usize,
                cfg.ports as usize,
            ),
            lcf: std::array::from_fn(|_| Default::default()),
            clear_run: std::array::from_fn(|_| Default::default()),
            rcf: std::array::from_fn(|_| Default::default()),
            rcf_t: std::array::from_fn(|_| Default::default()),
            fb: std::array::from_fn(|_| Default::default()),
            fbr: std::array::from_fn(|_| Default::default()),
            pend_v: std::array::from_fn(|_| Default::default()),
            pend: std::array::from_fn(|_| Default::default()),
            cn_v: std::array::from_fn(|_| Default::default()),
            cn_t: std::array::from_fn(|_| Default::default()),
            rcc: std::array::from_fn(|_| Default::default()),
            meas_t: std::array::from_fn(|_| Default::default()),
            w: std::array::from_fn(|_| Default::default()),
            wc: std::array::from_fn(|_| Default::default()),
            sent_all: std::array::from_fn(|_| Default::default()),
            sent_c: std::array::from_fn(|_| Default::default()),
            rate: std::array::from_fn(|_| Default::default()),
            cam_wp: std::array::from_fn(|_| Default::default()),
            ext_wp: std::array::from_fn(|_| Default::default()),
            sev_v: std::array::from_fn(|_| Default::default()),
            sev_t: std::array::from_fn(|_| Default::default()),
            sev_wp: Default::default(),
            pre: Default::default(),
            ts: Default::default(),
            visit: Default::default(),
            init: Default::default(),
            is_ready: Default::default(),
            r_cnr_v: Default::default(),
            r_cnr_port: Default::default(),
            r_cnr_fbp: Default::default(),
            r_cni_v: Default::default(),
            r_cni_port: Default::default(),
            r_cni_fid: Default::default(),
            r_sch_v: Default::default(),
            r_sch_ok: Default::default(),
            r_sch_port: Default::default(),
            r_sch_len: Default::default(),
            r_sch_alone: Default::default(),
            r_rt_v: Default::default(),
            r_rt_ok: Default::default(),
            r_rt_port: Default::default(),
            r_rt_cands: Default::default(),
            r_rt_new: Default::default(),
            r_idr_v: Default::default(),
            r_idr_ok: Default::default(),
            r_idr_port: Default::default(),
            r_idr_ext: Default::default(),
            r_idr_index: Default::default(),
            r_eq_sch: Default::default(),
            r_eq_rt: Default::default(),
            r_err: Default::default(),
            r_ts: Default::default(),
            r_visit: Default::default(),
            k_keep: Default::default(),
            k_rcf_old: Default::default(),
            k_cn_old: Default::default(),
            k_meas_done: Default::default(),
            k_x: Default::default(),
            k_r: Default::default(),
            o_dec_v: Default::default(),
            o_dec_grant: Default::default(),
            o_dec_harmful: Default::default(),
            o_route_v: Default::default(),
            o_route_port: Default::default(),
            o_route_detour: Default::default(),
            o_cn_v: Default::default(),
            o_cn_port: Default::default(),
            o_cn_fbp: Default::default(),
            o_cn_list: Default::default(),
            o_cn_relay: Default::default(),
            o_id_v: Default::default(),
            o_id_hit: Default::default(),
            o_id_fid: Default::default(),
            port_ok: Constant::new(low_bits(cfg.ports as usize)),
            last_port: Constant::new(u64::from(cfg.ports - 1).into()),
            one_port: Constant::new(cfg.ports == 1),
            at8: std::array::from_fn(|p| Constant::new((8 * p as u64).into())),
            fid_mask: Constant::new(low_bits(cfg.fid_bits as usize)),
            len_mask: Constant::new(low_bits(cfg.len_bits as usize)),
            ts_mask: Constant::new(low_bits(cfg.ts_bits as usize)),
            pre_mask: Constant::new(low_bits(cfg.ts_shift as usize)),
            window_top: Constant::new(low_bits(cfg.window_bits as usize)),
            window_mask: Constant::new(low_bits(cfg.window_bits as usize)),
            slot_mask: Constant::new(u64::from(cfg.cam_depth - 1).into()),
            init_last: Constant::new((cfg.init_cycles() - 1).into()),
            gd_one: Constant::new(GD_ONE.into()),
            rate_one: Constant::new(RATE_ONE.into()),
            one32: Constant::new(1u64.into()),
            one17: Constant::new(1u64.into()),
            one5: Constant::new(1u64.into()),
            one4: Constant::new(1u64.into()),
            one2: Constant::new(1u64.into()),
            c1: Constant::new(1u64.into()),
            c5: Constant::new(5u64.into()),
            c2: Constant::new(2u64.into()),
            c8: Constant::new(8u64.into()),
            c16: Constant::new(16u64.into()),
            c24: Constant::new(24u64.into()),
            err_index: Constant::new(err::INDEX.into()),
            err_not_ready: Constant::new(err::NOT_READY.into()),
            err_sat: Constant::new(err::SAT.into()),
            rcc_off: Constant::new((Rcc::Off as u64).into()),
            rcc_measure: Constant::new((Rcc::Measure as u64).into()),
            rcc_on: Constant::new((Rcc::On as u64).into()),
            at_status: at("status"),
            at_err: at("err"),
            at_q_eq: at("q_eq"),
            at_w: at("w"),
            at_fb_scale: at("fb_scale"),
            at_n_clear: at("n_clear"),
            at_t_cn: at("t_cn"),
            at_t_rcf: at("t_rcf"),
            at_t_meas: at("t_meas"),
            at_gd: at("gd"),
            at_wc_min: at("wc_min"),
            at_w_shift: at("w_shift"),
            at_sar_enable: at("sar_enable"),
            at_sar_new_only: at("sar_new_only"),
            at_sar_cns: at("sar_cns"),
            at_sar_window: at("sar_window"),
            at_sar_severe: at("sar_severe"),
            at_cfr_clear: at("cfr_clear_on_exit"),
            at_interval0: at("samp_interval0"),
            at_port_sel: at("port_sel"),
            at_port_flags: at("port_flags"),
            at_port_fb: at("port_fb"),
            at_port_w: at("port_w"),
            at_port_wc: at("port_wc"),
            at_port_sent: at("port_sent"),
            at_port_rate: at("port_rate"),
            port_one: Constant::new(1u64.into()),
            one_pb: Constant::new(1u64.into()),
            pb_shift: Constant::new((PB as u64).into()),
            one3: Constant::new(1u64.into()),
            c4: Constant::new(4u64.into()),
            flag_lcf: Constant::new(0b0101u64.into()),
            flag_rcf: Constant::new(0b1010u64.into()),
            flag_pend: Constant::new((1u64 << 6).into()),
            reg_n_clear: Default::default(),
            reg_t_cn: Default::default(),
            reg_wc_min: Default::default(),
            reg_w_shift: Default::default(),
            reg_sar_window: Default::default(),
            reg_sar_severe: Default::default(),
            reg_sar_cns: Default::default(),
            reg_port_sel: Default::default(),
            intervals: Default::default(),
            cands_ok: Default::default(),
            bus_err: Default::default(),
            sampler_err: Default::default(),
            sat_err: Default::default(),
            iq_ok: Default::default(),
            oq_ok: Default::default(),
            voq_key: Default::default(),
            vs: Default::default(),
            vs_i: Default::default(),
            vs_o: Default::default(),
            vs_tag_high: Default::default(),
            os: Default::default(),
            os_o: Default::default(),
            o_rcf: Default::default(),
            o_rcc: Default::default(),
            o_w: Default::default(),
            o_wc: Default::default(),
            o_sent_all: Default::default(),
            o_sent_c: Default::default(),
            o_local: Default::default(),
            o_ext: Default::default(),
            c_rcf: Default::default(),
            c_fb: Default::default(),
            c_fbr: Default::default(),
            c_local: Default::default(),
            c_ext: Default::default(),
            i_cn_v: Default::default(),
            i_cn_t: Default::default(),
            v_rcf: Default::default(),
            v_fbr: Default::default(),
            b_ext_wp: Default::default(),
            o2_cam_wp: Default::default(),
            s_lcf: Default::default(),
            s_rcf: Default::default(),
            s_pend_v: Default::default(),
            s_cn_v: Default::default(),
            s_rcc: Default::default(),
            s_meas_t: Default::default(),
            s_w: Default::default(),
            s_wc: Default::default(),
            s_sent_all: Default::default(),
            s_sent_c: Default::default(),
            s_rate: Default::default(),
            any_lcf: Default::default(),
            any_rcf: Default::default(),
            b_slot: Default::default(),
            b_onehot: Default::default(),
            b_cleared: Default::default(),
            o_cleared: Default::default(),
            o_cni: Default::default(),
            o_ext_kept: Default::default(),
            o_ext_hit: Default::default(),
            o_rcf_now: Default::default(),
            harmful: Default::default(),
            len32: Default::default(),
            spent: Default::default(),
            grant: Default::default(),
            base_all: Default::default(),
            base_c: Default::default(),
            sum_all: Default::default(),
            sum_c: Default::default(),
            new_all: Default::default(),
            new_c: Default::default(),
            write_sent: Default::default(),
            add_c: Default::default(),
            added: Default::default(),
            c_cleared: Default::default(),
            c_cni: Default::default(),
            c_ext_kept: Default::default(),
            c_ext_hit: Default::default(),
            c_rcf_now: Default::default(),
            rt_harmful: Default::default(),
            push_severe: Default::default(),
            severe_count: Default::default(),
            sar_active: Default::default(),
            p_fbr: Default::default(),
            p_fb: Default::default(),
            p_mix: Default::default(),
            fbp_mix: Default::default(),
            best: Default::default(),
            idx: Default::default(),
            cur_mix: Default::default(),
            p_fbp: Default::default(),
            fbps: Default::default(),
            cur_fbp: Default::default(),
            fbp_p: Default::default(),
            fbp_q: Default::default(),
            win: Default::default(),
            beats: Default::default(),
            any_better: Default::default(),
            eligible: Default::default(),
            route: Default::default(),
            d_cleared: Default::default(),
            d_same: Default::default(),
            id_hit_now: Default::default(),
            id_fid_now: Default::default(),
            cn_emit: Default::default(),
            cn_elapsed: Default::default(),
            v_rcf_now: Default::default(),
            v_fbr_now: Default::default(),
            cn_mix: Default::default(),
            cn_fbp_now: Default::default(),
            o2_slot: Default::default(),
            o2_addr: Default::default(),
            b_addr: Default::default(),
            rcf_expired: Default::default(),
            cn_expired: Default::default(),
            congested: Default::default(),
            v_consume: Default::default(),
            v_clear_cam: Default::default(),
            v_zero: Default::default(),
            v_rcc: Default::default(),
            v_meas_t: Default::default(),
            v_w: Default::default(),
            v_wc: Default::default(),
            v_rate: Default::default(),
            cut: Default::default(),
            cp0: Default::default(),
            cp1: Default::default(),
            cp2: Default::default(),
            keep: Default::default(),
            keep_wide: Default::default(),
            red_x_high: Default::default(),
            red_r_high: Default::default(),
            err_now: Default::default(),
            red_x: Default::default(),
            red_r: Default::default(),
            red_wc: Default::default(),
            red_rate: Default::default(),
            red_x_in: Default::default(),
            gd_1: Default::default(),
            x3: Default::default(),
            xp0: Default::default(),
            xp1: Default::default(),
            xp2: Default::default(),
            xp3: Default::default(),
            xp4: Default::default(),
            xp5: Default::default(),
            xp6: Default::default(),
            xp7: Default::default(),
            xq0: Default::default(),
            xq1: Default::default(),
            xq2: Default::default(),
            xq3: Default::default(),
            r3: Default::default(),
            rp0: Default::default(),
            rp1: Default::default(),
            rp2: Default::default(),
            rp3: Default::default(),
            rp4: Default::default(),
            rp5: Default::default(),
            rp6: Default::default(),
            rp7: Default::default(),
            rq0: Default::default(),
            rq1: Default::default(),
            rq2: Default::default(),
            rq3: Default::default(),
            n_pend_v: Default::default(),
            n_pend: Default::default(),
            n_trig_v: Default::default(),
            n_trig: Default::default(),
            n_keep_v: Default::default(),
            n_fb: Default::default(),
            n_gd: Default::default(),
            n_rcf_t: Default::default(),
            n_cn_t: Default::default(),
            n_meas_t: Default::default(),
            n_rcc: Default::default(),
            n_wc: Default::default(),
            n_rate: Default::default(),
            n_sent_c: Default::default(),
            v_fits: Default::default(),
            red_r_in: Default::default(),
            hit_a: Default::default(),
            hit_b: Default::default(),
            hit_o: Default::default(),
            hit_i: Default::default(),
            hit_o2: Default::default(),
            hit_s: Default::default(),
            l_lcf: Default::default(),
            l_run: Default::default(),
            trig_v: Default::default(),
            trig: Default::default(),
            keep_pend_v: Default::default(),
            sev_elapsed: Default::default(),
            view_flags: Default::default(),
            status_word: Default::default(),
            view_fb: Default::default(),
            view_w: Default::default(),
            view_wc: Default::default(),
            view_sent: Default::default(),
            view_rate: Default::default(),
            view_rate17: Default::default(),
            view_lcf: Default::default(),
            view_rcf: Default::default(),
            view_fbx: Default::default(),
            view_fbr: Default::default(),
            view_mix: Default::default(),
            view_fbp: Default::default(),
            view_rcc: Default::default(),
            view_pend_v: Default::default(),
            view_pend: Default::default(),
            view_pend_raw: Default::default(),
            hw_words: Default::default(),
        }
    }
}

impl<const PB: usize, const PP: usize, const VB: usize, const AB: usize, const N: usize> Logic
    for RcmCore<PB, PP, VB, AB, N>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            sev_wp,
            pre,
            ts,
            visit,
            init,
            is_ready,
            r_cnr_v,
            r_cnr_port,
            r_cnr_fbp,
            r_cni_v,
            r_cni_port,
            r_cni_fid,
            r_sch_v,
            r_sch_ok,
            r_sch_port,
            r_sch_len,
            r_sch_alone,
            r_rt_v,
            r_rt_ok,
            r_rt_port,
            r_rt_cands,
            r_rt_new,
            r_idr_v,
            r_idr_ok,
            r_idr_port,
            r_idr_ext,
            r_idr_index,
            r_eq_sch,
            r_eq_rt,
            r_err,
            r_ts,
            r_visit,
            k_keep,
            k_rcf_old,
            k_cn_old,
            k_meas_done,
            k_x,
            k_r,
            o_dec_v,
            o_dec_grant,
            o_dec_harmful,
            o_route_v,
            o_route_port,
            o_route_detour,
            o_cn_v,
            o_cn_port,
            o_cn_fbp,
            o_cn_list,
            o_cn_relay,
            o_id_v,
            o_id_hit,
            o_id_fid
        );
        for p in 0..PP {
            self.lcf[p].clock.next = self.clock.val();
            self.clear_run[p].clock.next = self.clock.val();
            self.rcf[p].clock.next = self.clock.val();
            self.rcf_t[p].clock.next = self.clock.val();
            self.fb[p].clock.next = self.clock.val();
            self.fbr[p].clock.next = self.clock.val();
            self.pend_v[p].clock.next = self.clock.val();
            self.pend[p].clock.next = self.clock.val();
            self.cn_v[p].clock.next = self.clock.val();
            self.cn_t[p].clock.next = self.clock.val();
            self.rcc[p].clock.next = self.clock.val();
            self.meas_t[p].clock.next = self.clock.val();
            self.w[p].clock.next = self.clock.val();
            self.wc[p].clock.next = self.clock.val();
            self.sent_all[p].clock.next = self.clock.val();
            self.sent_c[p].clock.next = self.clock.val();
            self.rate[p].clock.next = self.clock.val();
            self.cam_wp[p].clock.next = self.clock.val();
            self.ext_wp[p].clock.next = self.clock.val();
            self.lcf[p].d.next = self.lcf[p].q.val();
            self.clear_run[p].d.next = self.clear_run[p].q.val();
            self.rcf[p].d.next = self.rcf[p].q.val();
            self.rcf_t[p].d.next = self.rcf_t[p].q.val();
            self.fb[p].d.next = self.fb[p].q.val();
            self.fbr[p].d.next = self.fbr[p].q.val();
            self.pend_v[p].d.next = self.pend_v[p].q.val();
            self.pend[p].d.next = self.pend[p].q.val();
            self.cn_v[p].d.next = self.cn_v[p].q.val();
            self.cn_t[p].d.next = self.cn_t[p].q.val();
            self.rcc[p].d.next = self.rcc[p].q.val();
            self.meas_t[p].d.next = self.meas_t[p].q.val();
            self.w[p].d.next = self.w[p].q.val();
            self.wc[p].d.next = self.wc[p].q.val();
            self.sent_all[p].d.next = self.sent_all[p].q.val();
            self.sent_c[p].d.next = self.sent_c[p].q.val();
            self.rate[p].d.next = self.rate[p].q.val();
            self.cam_wp[p].d.next = self.cam_wp[p].q.val();
            self.ext_wp[p].d.next = self.ext_wp[p].q.val();
        }
        for k in 0..SEVERE_SLOTS {
            self.sev_v[k].clock.next = self.clock.val();
            self.sev_t[k].clock.next = self.clock.val();
            self.sev_v[k].d.next = self.sev_v[k].q.val();
            self.sev_t[k].d.next = self.sev_t[k].q.val();
        }

        // ---- The bank, and the registers as the edge of this cycle left them.
        self.csr.clock.next = self.clock.val();
        self.csr.reset.next = self.reset.val();
        self.csr.we.next = self.csr_we.val();
        self.csr.addr.next = self.csr_addr.val();
        self.csr.raddr.next = self.csr_addr.val();
        self.csr.wdata.next = self.csr_wdata.val();
        self.csr_rdata.next = self.csr.rdata.val();
        self.reg_n_clear.next = self
            .csr
            .value
            .val()
            .get_bits::<4>(self.at_n_clear.val().index());
        self.reg_t_cn.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_t_cn.val().index());
        self.reg_wc_min.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_wc_min.val().index());
        self.reg_w_shift.next = self
            .csr
            .value
            .val()
            .get_bits::<3>(self.at_w_shift.val().index());
        self.reg_sar_window.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_sar_window.val().index());
        self.reg_sar_severe.next = self
            .csr
            .value
            .val()
            .get_bits::<6>(self.at_sar_severe.val().index());
        self.reg_sar_cns.next = self
            .csr
            .value
            .val()
            .get_bits::<3>(self.at_sar_cns.val().index());
        self.reg_port_sel.next = self
            .csr
            .value
            .val()
            .get_bits::<PB>(self.at_port_sel.val().index());
        self.intervals.next = self
            .csr
            .value
            .val()
            .get_bits::<256>(self.at_interval0.val().index());

        // ---- Free-running: the timestamp, the sweep's port, the reset sweep of the queues.
        self.pre.d.next = (self.pre.q.val() + self.one32.val()) & self.pre_mask.val();
        if self.pre.q.val() == self.pre_mask.val() {
            self.ts.d.next = (self.ts.q.val() + self.one32.val()) & self.ts_mask.val();
        }
        self.visit.d.next = self.visit.q.val() + self.one_pb.val();
        if self.visit.q.val() == self.last_port.val() {
            self.visit.d.next = 0.into();
        }
        if !self.is_ready.q.val() {
            self.init.d.next = self.init.q.val() + self.one17.val();
            if self.init.q.val() == self.init_last.val() {
                self.is_ready.d.next = true;
            }
        }

        // ---- Edge n: the samplers take their arrivals; the port-stage buses are captured and
        // the CAMs' keys and read address presented (their outputs are the matches after the
        // edge).
        self.iq_ok.next = self.port_ok.val().get_bit(self.iq_port.val().index())
            & self.port_ok.val().get_bit(self.iq_voq.val().index());
        self.oq_ok.next = self.port_ok.val().get_bit(self.oq_port.val().index());
        self.voq_key.next = (bit_cast::<VB, PB>(self.iq_port.val()) << self.pb_shift.val())
            | bit_cast::<VB, PB>(self.iq_voq.val());
        self.voqs.clock.next = self.clock.val();
        self.voqs.reset.next = self.reset.val();
        self.voqs.valid.next = self.iq_valid.val() & self.iq_ok.val() & self.is_ready.q.val();
        self.voqs.key.next = self.voq_key.val();
        self.voqs.q.next = self.iq_qdepth.val();
        self.voqs.len.next = self.iq_len.val() & self.len_mask.val();
        self.voqs.tag.next = bit_cast::<16, PB>(self.iq_port.val())
            | (bit_cast::<16, PB>(self.iq_voq.val()) << self.c8.val());
        self.voqs.fid.next = 0.into();
        self.oqs.clock.next = self.clock.val();
        self.oqs.reset.next = self.reset.val();
        self.oqs.valid.next = self.oq_valid.val() & self.oq_ok.val() & self.is_ready.q.val();
        self.oqs.key.next = self.oq_port.val();
        self.oqs.q.next = self.oq_qdepth.val();
        self.oqs.len.next = self.oq_len.val() & self.len_mask.val();
        self.oqs.tag.next = bit_cast::<16, PB>(self.oq_port.val())
            | (bit_cast::<16, PB>(self.oq_port.val()) << self.c8.val());
        self.oqs.fid.next = self.oq_fid.val() & self.fid_mask.val();
        self.voqs.q_eq.next = self
            .csr
            .value
            .val()
            .get_bits::<24>(self.at_q_eq.val().index());
        self.oqs.q_eq.next = self
            .csr
            .value
            .val()
            .get_bits::<24>(self.at_q_eq.val().index());
        self.voqs.w.next = self.csr.value.val().get_bits::<4>(self.at_w.val().index());
        self.oqs.w.next = self.csr.value.val().get_bits::<4>(self.at_w.val().index());
        self.voqs.fb_scale.next = self
            .csr
            .value
            .val()
            .get_bits::<13>(self.at_fb_scale.val().index());
        self.oqs.fb_scale.next = self
            .csr
            .value
            .val()
            .get_bits::<13>(self.at_fb_scale.val().index());
        self.voqs.intervals.next = self.intervals.val();
        self.oqs.intervals.next = self.intervals.val();
        self.voqs.clearing.next = !self.is_ready.q.val();
        self.oqs.clearing.next = !self.is_ready.q.val();
        self.voqs.clear_addr.next = bit_cast::<VB, 17>(self.init.q.val());
        self.oqs.clear_addr.next = bit_cast::<PB, 17>(self.init.q.val());

        self.sampler_err.next = 0.into();
        if (self.iq_valid.val() & !self.iq_ok.val()) | (self.oq_valid.val() & !self.oq_ok.val()) {
            self.sampler_err.next = self.err_index.val();
        }
        if ((self.iq_valid.val() & self.iq_ok.val()) | (self.oq_valid.val() & self.oq_ok.val()))
            & !self.is_ready.q.val()
        {
            self.sampler_err.next = self.sampler_err.val() | self.err_not_ready.val();
        }
        self.cands_ok.next = self.rt_cands.val() & self.port_ok.val();
        self.bus_err.next = 0.into();
        if (self.cnr_valid.val() & !self.port_ok.val().get_bit(self.cnr_port.val().index()))
            | (self.cni_valid.val() & !self.port_ok.val().get_bit(self.cni_port.val().index()))
            | (self.sch_valid.val() & !self.port_ok.val().get_bit(self.sch_port.val().index()))
            | (self.idr_valid.val() & !self.port_ok.val().get_bit(self.idr_port.val().index()))
            | (self.rt_valid.val()
                & (!self.port_ok.val().get_bit(self.rt_port.val().index())
                    | (self.rt_cands.val() != self.cands_ok.val())))
        {
            self.bus_err.next = self.err_index.val();
        }
        self.r_err.d.next = self.bus_err.val() | self.sampler_err.val();
        self.r_cnr_v.d.next =
            self.cnr_valid.val() & self.port_ok.val().get_bit(self.cnr_port.val().index());
        self.r_cnr_port.d.next = self.cnr_port.val();
        self.r_cnr_fbp.d.next = self.cnr_fbp.val();
        self.r_cni_v.d.next =
            self.cni_valid.val() & self.port_ok.val().get_bit(self.cni_port.val().index());
        self.r_cni_port.d.next = self.cni_port.val();
        self.r_cni_fid.d.next = self.cni_fid.val() & self.fid_mask.val();
        self.r_sch_v.d.next = self.sch_valid.val();
        self.r_sch_ok.d.next = self.port_ok.val().get_bit(self.sch_port.val().index());
        self.r_sch_port.d.next = self.sch_port.val();
        self.r_sch_len.d.next = self.sch_len.val() & self.len_mask.val();
        self.r_sch_alone.d.next = self.sch_alone.val();
        self.r_rt_v.d.next = self.rt_valid.val();
        self.r_rt_ok.d.next = self.port_ok.val().get_bit(self.rt_port.val().index());
        self.r_rt_port.d.next = self.rt_port.val();
        self.r_rt_cands.d.next = self.cands_ok.val();
        self.r_rt_new.d.next = self.rt_new.val();
        self.r_idr_v.d.next = self.idr_valid.val();
        self.r_idr_ok.d.next = self.port_ok.val().get_bit(self.idr_port.val().index());
        self.r_idr_port.d.next = self.idr_port.val();
        self.r_idr_ext.d.next = self.idr_ext.val();
        self.r_idr_index.d.next = self.idr_index.val();
        self.r_eq_sch.d.next = (self.cni_fid.val() & self.fid_mask.val())
            == (self.sch_fid.val() & self.fid_mask.val());
        self.r_eq_rt.d.next =
            (self.cni_fid.val() & self.fid_mask.val()) == (self.rt_fid.val() & self.fid_mask.val());
        self.r_ts.d.next = self.ts.q.val();
        self.r_visit.d.next = self.visit.q.val();
        self.sampled_ids.clock.next = self.clock.val();
        self.sampled_ids.reset.next = self.reset.val();
        self.received_ids.clock.next = self.clock.val();
        self.received_ids.reset.next = self.reset.val();
        self.sampled_ids.key_a.next = self.sch_fid.val() & self.fid_mask.val();
        self.sampled_ids.key_b.next = self.rt_fid.val() & self.fid_mask.val();
        self.received_ids.key_a.next = self.sch_fid.val() & self.fid_mask.val();
        self.received_ids.key_b.next = self.rt_fid.val() & self.fid_mask.val();
        self.sampled_ids.raddr.next = (bit_cast::<AB, PB>(self.idr_port.val()) << self.c5.val())
            | bit_cast::<AB, 5>(self.idr_index.val());
        self.received_ids.raddr.next = (bit_cast::<AB, PB>(self.idr_port.val()) << self.c5.val())
            | bit_cast::<AB, 5>(self.idr_index.val());

        // ---- Cycle n: the port stage of edge n. The samples of edge n - 6.
        self.vs.next = self.voqs.sampled.val();
        self.vs_i.next = bit_cast::<PB, 16>(self.voqs.tag_out.val());
        self.vs_tag_high.next = self.voqs.tag_out.val() >> self.c8.val();
        self.vs_o.next = bit_cast::<PB, 16>(self.vs_tag_high.val());
        self.os.next = self.oqs.sampled.val();
        self.os_o.next = bit_cast::<PB, 16>(self.oqs.tag_out.val());

        // Reads of the port registers (as the port stage of edge n - 1 left them).
        self.o_rcf.next = false;
        self.o_rcc.next = 0.into();
        self.o_w.next = 0.into();
        self.o_wc.next = 0.into();
        self.o_sent_all.next = 0.into();
        self.o_sent_c.next = 0.into();
        self.o_local.next = 0.into();
        self.o_ext.next = 0.into();
        self.c_rcf.next = false;
        self.c_fb.next = 0.into();
        self.c_fbr.next = 0.into();
        self.c_local.next = 0.into();
        self.c_ext.next = 0.into();
        self.i_cn_v.next = false;
        self.i_cn_t.next = 0.into();
        self.v_rcf.next = false;
        self.v_fbr.next = 0.into();
        self.b_ext_wp.next = 0.into();
        self.o2_cam_wp.next = 0.into();
        self.s_lcf.next = false;
        self.s_rcf.next = false;
        self.s_pend_v.next = false;
        self.s_cn_v.next = false;
        self.s_rcc.next = 0.into();
        self.s_meas_t.next = 0.into();
        self.s_w.next = 0.into();
        self.s_wc.next = 0.into();
        self.s_sent_all.next = 0.into();
        self.s_sent_c.next = 0.into();
        self.s_rate.next = 0.into();
        self.view_lcf.next = false;
        self.view_rcf.next = false;
        self.view_fbx.next = 0.into();
        self.view_fbr.next = 0.into();
        self.view_rcc.next = 0.into();
        self.view_pend_v.next = false;
        self.view_pend_raw.next = 0.into();
        self.view_w.next = 0.into();
        self.view_wc.next = 0.into();
        self.view_sent.next = 0.into();
        self.view_rate.next = 0.into();
        self.view_rate17.next = 0.into();
        self.any_lcf.next = false;
        self.any_rcf.next = false;
        for p in 0..PP {
            if self.r_sch_port.q.val().index() == p {
                self.o_rcf.next = self.rcf[p].q.val();
                self.o_rcc.next = self.rcc[p].q.val();
                self.o_w.next = self.w[p].q.val();
                self.o_wc.next = self.wc[p].q.val();
                self.o_sent_all.next = self.sent_all[p].q.val();
                self.o_sent_c.next = self.sent_c[p].q.val();
                self.o_local.next = self.sampled_ids.hit_a.val().get_bits::<32>(p * 32);
                self.o_ext.next = self.received_ids.hit_a.val().get_bits::<32>(p * 32);
            }
            if self.r_rt_port.q.val().index() == p {
                self.c_rcf.next = self.rcf[p].q.val();
                self.c_fb.next = self.fb[p].q.val();
                self.c_fbr.next = self.fbr[p].q.val();
                self.c_local.next = self.sampled_ids.hit_b.val().get_bits::<32>(p * 32);
                self.c_ext.next = self.received_ids.hit_b.val().get_bits::<32>(p * 32);
            }
            if self.vs_i.val().index() == p {
                self.i_cn_v.next = self.cn_v[p].q.val();
                self.i_cn_t.next = self.cn_t[p].q.val();
            }
            if self.vs_o.val().index() == p {
                self.v_rcf.next = self.rcf[p].q.val();
                self.v_fbr.next = self.fbr[p].q.val();
            }
            if self.r_cni_port.q.val().index() == p {
                self.b_ext_wp.next = self.ext_wp[p].q.val();
            }
            if self.os_o.val().index() == p {
                self.o2_cam_wp.next = self.cam_wp[p].q.val();
            }
            if self.r_visit.q.val().index() == p {
                self.s_lcf.next = self.lcf[p].q.val();
                self.s_rcf.next = self.rcf[p].q.val();
                self.s_pend_v.next = self.pend_v[p].q.val();
                self.s_cn_v.next = self.cn_v[p].q.val();
                self.s_rcc.next = self.rcc[p].q.val();
                self.s_meas_t.next = self.meas_t[p].q.val();
                self.s_w.next = self.w[p].q.val();
                self.s_wc.next = self.wc[p].q.val();
                self.s_sent_all.next = self.sent_all[p].q.val();
                self.s_sent_c.next = self.sent_c[p].q.val();
                self.s_rate.next = self.rate[p].q.val();
            }
            if self.reg_port_sel.val().index() == p {
                self.view_lcf.next = self.lcf[p].q.val();
                self.view_rcf.next = self.rcf[p].q.val();
                self.view_fbx.next = self.fb[p].q.val();
                self.view_fbr.next = self.fbr[p].q.val();
                self.view_rcc.next = self.rcc[p].q.val();
                self.view_pend_v.next = self.pend_v[p].q.val();
                self.view_pend_raw.next = self.pend[p].q.val();
                self.view_w.next = self.w[p].q.val();
                self.view_wc.next = self.wc[p].q.val();
                self.view_sent.next = self.sent_c[p].q.val();
                self.view_rate17.next = self.rate[p].q.val();
            }
            self.any_lcf.next = self.any_lcf.val() | self.lcf[p].q.val();
            self.any_rcf.next = self.any_rcf.val() | self.rcf[p].q.val();
        }

        // The CN received: its header empties the port's list, its ID goes to the slot after
        // the last (slot 0 after a header on the same edge).
        self.b_cleared.next =
            self.r_cnr_v.q.val() & (self.r_cnr_port.q.val() == self.r_cni_port.q.val());
        self.b_slot.next = self.b_ext_wp.val();
        if self.b_cleared.val() {
            self.b_slot.next = 0.into();
        }
        self.b_onehot.next = self.one32.val() << self.b_slot.val();
        self.b_addr.next = (bit_cast::<AB, PB>(self.r_cni_port.q.val()) << self.c5.val())
            | bit_cast::<AB, 5>(self.b_slot.val());
        self.received_ids.clear.next = 0.into();
        if self.r_cnr_v.q.val() {
            self.received_ids.clear.next = self.port_one.val() << self.r_cnr_port.q.val();
        }
        self.received_ids.we.next = self.r_cni_v.q.val();
        self.received_ids.waddr.next = self.b_addr.val();
        self.received_ids.wdata.next = self.r_cni_fid.q.val();

        // The offer: harmful from the CAM, or from the received list while rcf holds (with
        // the CN of this edge: its header's clear, its ID's write).
        self.o_cleared.next =
            self.r_cnr_v.q.val() & (self.r_cnr_port.q.val() == self.r_sch_port.q.val());
        self.o_cni.next =
            self.r_cni_v.q.val() & (self.r_cni_port.q.val() == self.r_sch_port.q.val());
        self.o_ext_kept.next = self.o_ext.val();
        if self.o_cni.val() {
            self.o_ext_kept.next = self.o_ext.val() & !self.b_onehot.val();
        }
        self.o_ext_hit.next = (!self.o_cleared.val() & self.o_ext_kept.val().any())
            | (self.o_cni.val() & self.r_eq_sch.q.val());
        self.o_rcf_now.next = self.o_rcf.val() | self.o_cleared.val();
        self.harmful.next = self.o_local.val().any();
        if self.o_rcf_now.val() {
            self.harmful.next = self.o_ext_hit.val();
        }
        self.len32.next = bit_cast::<32, 16>(self.r_sch_len.q.val());
        self.spent.next = self.harmful.val() & (self.o_sent_c.val() >= self.o_wc.val());
        self.grant.next = true;
        self.base_all.next = self.o_sent_all.val();
        self.base_c.next = self.o_sent_c.val();
        self.write_sent.next = false;
        self.added.next = false;
        if self.o_rcc.val() == self.rcc_on.val() {
            self.grant.next = !self.spent.val() | self.r_sch_alone.q.val();
            self.write_sent.next = self.grant.val();
            if self.spent.val() & self.r_sch_alone.q.val() {
                // Work-conserving: the next window starts with this packet.
                self.base_all.next = 0.into();
                self.base_c.next = 0.into();
            }
        }
        if self.o_rcc.val() == self.rcc_measure.val() {
            self.write_sent.next = true;
            self.added.next = true;
        }
        self.sum_all.next =
            bit_cast::<33, 32>(self.base_all.val()) + bit_cast::<33, 32>(self.len32.val());
        self.sum_c.next =
            bit_cast::<33, 32>(self.base_c.val()) + bit_cast::<33, 32>(self.len32.val());
        self.sat_err.next = 0.into();
        self.new_all.next = bit_cast::<32, 33>(self.sum_all.val());
        if self.sum_all.val() > self.window_top.val() {
            self.new_all.next = bit_cast::<32, 33>(self.window_top.val());
            if self.write_sent.val() & self.r_sch_v.q.val() & self.r_sch_ok.q.val() {
                self.sat_err.next = self.err_sat.val();
            }
        }
        self.new_c.next = self.base_c.val();
        self.add_c.next = 0.into();
        if self.harmful.val() {
            self.add_c.next = self.len32.val();
            self.new_c.next = bit_cast::<32, 33>(self.sum_c.val());
            if self.sum_c.val() > self.window_top.val() {
                self.new_c.next = bit_cast::<32, 33>(self.window_top.val());
                if self.write_sent.val() & self.r_sch_v.q.val() & self.r_sch_ok.q.val() {
                    self.sat_err.next = self.err_sat.val();
                }
            }
        }
        if (self.o_rcc.val() == self.rcc_on.val()) & (self.new_all.val() >= self.o_w.val()) {
            self.new_all.next = 0.into();
            self.new_c.next = 0.into();
        }

        // The route query: SAR's trigger, and the candidate with the least Fb' (Eq. 2, with
        // the CN of this edge), the current port on a tie, then the lowest index.
        self.c_cleared.next =
            self.r_cnr_v.q.val() & (self.r_cnr_port.q.val() == self.r_rt_port.q.val());
        self.c_cni.next =
            self.r_cni_v.q.val() & (self.r_cni_port.q.val() == self.r_rt_port.q.val());
        self.c_ext_kept.next = self.c_ext.val();
        if self.c_cni.val() {
            self.c_ext_kept.next = self.c_ext.val() & !self.b_onehot.val();
        }
        self.c_ext_hit.next = (!self.c_cleared.val() & self.c_ext_kept.val().any())
            | (self.c_cni.val() & self.r_eq_rt.q.val());
        self.c_rcf_now.next = self.c_rcf.val() | self.c_cleared.val();
        self.rt_harmful.next = self.c_local.val().any();
        if self.c_rcf_now.val() {
            self.rt_harmful.next = self.c_ext_hit.val();
        }
        self.push_severe.next =
            self.r_cnr_v.q.val() & (self.r_cnr_fbp.q.val() >= self.reg_sar_severe.val());
        self.severe_count.next = 0.into();
        for k in 0..SEVERE_SLOTS {
            if self.sev_wp.q.val().index() == k {
                if self.push_severe.val() | self.sev_v[k].q.val() {
                    self.severe_count.next = self.severe_count.val() + self.one3.val();
                }
            } else if self.sev_v[k].q.val() {
                self.severe_count.next = self.severe_count.val() + self.one3.val();
            }
        }
        self.sar_active.next = self
            .csr
            .value
            .val()
            .get_bit(self.at_sar_enable.val().index())
            & (self.any_lcf.val()
                | ((self.any_rcf.val() | self.r_cnr_v.q.val())
                    & (self.severe_count.val() >= self.reg_sar_cns.val())));
        self.p_fbr.next = self.c_fbr.val();
        if self.c_cleared.val() {
            self.p_fbr.next = self.r_cnr_fbp.q.val();
        }
        self.cur_mix.next = bit_cast::<16, 6>(self.c_fb.val());
        self.fbp_mix.next = 0.into();
        if self.c_rcf_now.val() {
            self.fbp_mix.next = (((bit_cast::<16, 6>(self.c_fb.val())
                << bit_cast::<16, 3>(self.reg_w_shift.val()))
                - bit_cast::<16, 6>(self.c_fb.val()))
                + bit_cast::<16, 6>(self.p_fbr.val()))
                >> bit_cast::<16, 3>(self.reg_w_shift.val());
            self.cur_mix.next = self.fbp_mix.val();
        }
        // Each port's Fb' (at most 63), packed 8 bits per port, then the winner among the
        // candidates below the current port's: the one no candidate beats, a lower index
        // winning a tie. Every pair is compared in parallel (the order of a chain of
        // compare-and-select is the same rule, but PP compares in series).
        self.fbps.next = 0.into();
        for p in 0..PP {
            self.p_fbr.next = self.fbr[p].q.val();
            if self.r_cnr_v.q.val() & (self.r_cnr_port.q.val().index() == p) {
                self.p_fbr.next = self.r_cnr_fbp.q.val();
            }
            self.p_fb.next = self.fb[p].q.val();
            self.p_mix.next = bit_cast::<16, 6>(self.p_fb.val());
            if self.rcf[p].q.val() | (self.r_cnr_v.q.val() & (self.r_cnr_port.q.val().index() == p))
            {
                self.p_mix.next = (((bit_cast::<16, 6>(self.p_fb.val())
                    << bit_cast::<16, 3>(self.reg_w_shift.val()))
                    - bit_cast::<16, 6>(self.p_fb.val()))
                    + bit_cast::<16, 6>(self.p_fbr.val()))
                    >> bit_cast::<16, 3>(self.reg_w_shift.val());
            }
            self.p_fbp.next = bit_cast::<8, 16>(self.p_mix.val());
            self.fbps.next =
                self.fbps.val() | (bit_cast::<128, 8>(self.p_fbp.val()) << self.at8[p].val());
        }
        self.cur_fbp.next = bit_cast::<8, 16>(self.cur_mix.val());
        self.best.next = 0.into();
        self.any_better.next = false;
        self.idx.next = 0.into();
        for p in 0..PP {
            self.fbp_p.next = self.fbps.val().get_bits::<8>(8 * p);
            self.win.next =
                self.r_rt_cands.q.val().get_bit(p) & (self.fbp_p.val() < self.cur_fbp.val());
            for q in 0..PP {
                self.fbp_q.next = self.fbps.val().get_bits::<8>(8 * q);
                // A lower index beats on a tie (q == p never beats: strictly less).
                if q < p {
                    self.beats.next =
                        self.r_rt_cands.q.val().get_bit(q) & (self.fbp_q.val() <= self.fbp_p.val());
                } else {
                    self.beats.next =
                        self.r_rt_cands.q.val().get_bit(q) & (self.fbp_q.val() < self.fbp_p.val());
                }
                if self.beats.val() {
                    self.win.next = false;
                }
            }
            // At most one port wins: its index is the OR of the winners'.
            if self.win.val() {
                self.best.next = self.best.val() | self.idx.val();
                self.any_better.next = true;
            }
            self.idx.next = self.idx.val() + self.one_pb.val();
        }
        if !self.any_better.val() {
            self.best.next = self.r_rt_port.q.val();
        }
        self.eligible.next = (self.r_rt_new.q.val()
            | !self
                .csr
                .value
                .val()
                .get_bit(self.at_sar_new_only.val().index()))
            & !self.rt_harmful.val();
        self.route.next = self.r_rt_port.q.val();
        if self.r_rt_ok.q.val() & self.eligible.val() & self.sar_active.val() {
            self.route.next = self.best.val();
        }

        // The ID read (with the CN of this edge on the received list).
        self.d_cleared.next =
            self.r_cnr_v.q.val() & (self.r_cnr_port.q.val() == self.r_idr_port.q.val());
        self.d_same.next = self.r_cni_v.q.val()
            & (self.r_cni_port.q.val() == self.r_idr_port.q.val())
            & (self.r_idr_index.q.val() == self.b_slot.val());
        self.id_hit_now.next = self.sampled_ids.rvalid.val();
        self.id_fid_now.next = self.sampled_ids.rdata.val();
        if self.r_idr_ext.q.val() {
            self.id_hit_now.next = !self.d_cleared.val() & self.received_ids.rvalid.val();
            self.id_fid_now.next = 0.into();
            if !self.d_cleared.val() {
                self.id_fid_now.next = self.received_ids.rdata.val();
            }
            if self.d_same.val() {
                self.id_hit_now.next = true;
                self.id_fid_now.next = self.r_cni_fid.q.val();
            }
        }
        if !self.r_idr_ok.q.val() {
            self.id_hit_now.next = false;
        }
        if !self.id_hit_now.val() {
            self.id_fid_now.next = 0.into();
        }

        // The VOQ sample's CN upstream through its input port, once per T_cn.
        self.cn_elapsed.next = (self.r_ts.q.val() - self.i_cn_t.val()) & self.ts_mask.val();
        self.cn_emit.next = self.vs.val()
            & self.voqs.fb_pos.val()
            & (!self.i_cn_v.val() | (self.cn_elapsed.val() >= self.reg_t_cn.val()));
        self.v_rcf_now.next = self.v_rcf.val()
            | (self.r_cnr_v.q.val() & (self.r_cnr_port.q.val() == self.vs_o.val()));
        self.v_fbr_now.next = self.v_fbr.val();
        if self.r_cnr_v.q.val() & (self.r_cnr_port.q.val() == self.vs_o.val()) {
            self.v_fbr_now.next = self.r_cnr_fbp.q.val();
        }
        self.cn_mix.next = (((bit_cast::<16, 6>(self.voqs.fb6.val())
            << bit_cast::<16, 3>(self.reg_w_shift.val()))
            - bit_cast::<16, 6>(self.voqs.fb6.val()))
            + bit_cast::<16, 6>(self.v_fbr_now.val()))
            >> bit_cast::<16, 3>(self.reg_w_shift.val());
        self.cn_fbp_now.next = self.voqs.fb6.val();
        if self.v_rcf_now.val() {
            self.cn_fbp_now.next = bit_cast::<6, 16>(self.cn_mix.val());
        }

        // The visit of port r_visit, decided from its registers.
        // Its timers' tests were made in the cycle before (k_*).
        self.rcf_expired.next = self.s_rcf.val() & self.k_rcf_old.q.val();
        self.cn_expired.next = self.s_cn_v.val() & self.k_cn_old.q.val();
        self.congested.next = self.s_lcf.val() | (self.s_rcf.val() & !self.rcf_expired.val());
        // One reduction: x (1 - Fb Gd) of Wc (of the harmful bytes measured, at the
        // measurement's end) and of R, with what the pending Fb keeps (`k_keep`, computed in
        // the cycle before). The products are radix-4 shift-and-add: one partial product per
        // two bits of keep's low 16 (0, x, 2x or 3x = x + 2x, at 4^j), summed as a tree, so
        // that four adders are in series; keep = 1 (bit 16) is the multiplicand itself.
        // Inline, not a leaf block: a combinational leaf between this block's statements is a
        // false loop for Verilator.
        self.keep.next = self.k_keep.q.val();
        self.red_x_in.next = bit_cast::<49, 32>(self.k_x.q.val());
        self.red_r_in.next = bit_cast::<34, 17>(self.k_r.q.val());
        self.x3.next = self.red_x_in.val() + (self.red_x_in.val() << self.c1.val());
        self.r3.next = self.red_r_in.val() + (self.red_r_in.val() << self.c1.val());
        // Digit j of keep selects the partial products of both.
        self.xp0.next = 0.into();
        self.rp0.next = 0.into();
        if self.keep.val().get_bit(1) {
            self.xp0.next = self.red_x_in.val() << self.c1.val();
            self.rp0.next = self.red_r_in.val() << self.c1.val();
            if self.keep.val().get_bit(0) {
                self.xp0.next = self.x3.val();
                self.rp0.next = self.r3.val();
            }
        } else if self.keep.val().get_bit(0) {
            self.xp0.next = self.red_x_in.val();
            self.rp0.next = self.red_r_in.val();
        }
        self.xp1.next = 0.into();
        self.rp1.next = 0.into();
        if self.keep.val().get_bit(3) {
            self.xp1.next = self.red_x_in.val() << self.c1.val();
            self.rp1.next = self.red_r_in.val() << self.c1.val();
            if self.keep.val().get_bit(2) {
                self.xp1.next = self.x3.val();
                self.rp1.next = self.r3.val();
            }
        } else if self.keep.val().get_bit(2) {
            self.xp1.next = self.red_x_in.val();
            self.rp1.next = self.red_r_in.val();
        }
        self.xp2.next = 0.into();
        self.rp2.next = 0.into();
        if self.keep.val().get_bit(5) {
            self.xp2.next = self.red_x_in.val() << self.c1.val();
            self.rp2.next = self.red_r_in.val() << self.c1.val();
            if self.keep.val().get_bit(4) {
                self.xp2.next = self.x3.val();
                self.rp2.next = self.r3.val();
            }
        } else if self.keep.val().get_bit(4) {
            self.xp2.next = self.red_x_in.val();
            self.rp2.next = self.red_r_in.val();
        }
        self.xp3.next = 0.into();
        self.rp3.next = 0.into();
        if self.keep.val().get_bit(7) {
            self.xp3.next = self.red_x_in.val() << self.c1.val();
            self.rp3.next = self.red_r_in.val() << self.c1.val();
            if self.keep.val().get_bit(6) {
                self.xp3.next = self.x3.val();
                self.rp3.next = self.r3.val();
            }
        } else if self.keep.val().get_bit(6) {
            self.xp3.next = self.red_x_in.val();
            self.rp3.next = self.red_r_in.val();
        }
        self.xp4.next = 0.into();
        self.rp4.next = 0.into();
        if self.keep.val().get_bit(9) {
            self.xp4.next = self.red_x_in.val() << self.c1.val();
            self.rp4.next = self.red_r_in.val() << self.c1.val();
            if self.keep.val().get_bit(8) {
                self.xp4.next = self.x3.val();
                self.rp4.next = self.r3.val();
            }
        } else if self.keep.val().get_bit(8) {
            self.xp4.next = self.red_x_in.val();
            self.rp4.next = self.red_r_in.val();
        }
        self.xp5.next = 0.into();
        self.rp5.next = 0.into();
        if self.keep.val().get_bit(11) {
            self.xp5.next = self.red_x_in.val() << self.c1.val();
            self.rp5.next = self.red_r_in.val() << self.c1.val();
            if self.keep.val().get_bit(10) {
                self.xp5.next = self.x3.val();
                self.rp5.next = self.r3.val();
            }
        } else if self.keep.val().get_bit(10) {
            self.xp5.next = self.red_x_in.val();
            self.rp5.next = self.red_r_in.val();
        }
        self.xp6.next = 0.into();
        self.rp6.next = 0.into();
        if self.keep.val().get_bit(13) {
            self.xp6.next = self.red_x_in.val() << self.c1.val();
            self.rp6.next = self.red_r_in.val() << self.c1.val();
            if self.keep.val().get_bit(12) {
                self.xp6.next = self.x3.val();
                self.rp6.next = self.r3.val();
            }
        } else if self.keep.val().get_bit(12) {
            self.xp6.next = self.red_x_in.val();
            self.rp6.next = self.red_r_in.val();
        }
        self.xp7.next = 0.into();
        self.rp7.next = 0.into();
        if self.keep.val().get_bit(15) {
            self.xp7.next = self.red_x_in.val() << self.c1.val();
            self.rp7.next = self.red_r_in.val() << self.c1.val();
            if self.keep.val().get_bit(14) {
                self.xp7.next = self.x3.val();
                self.rp7.next = self.r3.val();
            }
        } else if self.keep.val().get_bit(14) {
            self.xp7.next = self.red_x_in.val();
            self.rp7.next = self.red_r_in.val();
        }
        self.xq0.next = self.xp0.val() + (self.xp1.val() << self.c2.val());
        self.xq1.next = self.xp2.val() + (self.xp3.val() << self.c2.val());
        self.xq2.next = self.xp4.val() + (self.xp5.val() << self.c2.val());
        self.xq3.next = self.xp6.val() + (self.xp7.val() << self.c2.val());
        self.rq0.next = self.rp0.val() + (self.rp1.val() << self.c2.val());
        self.rq1.next = self.rp2.val() + (self.rp3.val() << self.c2.val());
        self.rq2.next = self.rp4.val() + (self.rp5.val() << self.c2.val());
        self.rq3.next = self.rp6.val() + (self.rp7.val() << self.c2.val());
        self.red_x.next = (self.xq0.val() + (self.xq1.val() << self.c4.val()))
            + ((self.xq2.val() + (self.xq3.val() << self.c4.val())) << self.c8.val());
        self.red_r.next = (self.rq0.val() + (self.rq1.val() << self.c4.val()))
            + ((self.rq2.val() + (self.rq3.val() << self.c4.val())) << self.c8.val());
        if self.keep.val().get_bit(16) {
            self.red_x.next = self.red_x_in.val() << self.c16.val();
            self.red_r.next = self.red_r_in.val() << self.c16.val();
        }
        self.red_x_high.next = self.red_x.val() >> self.c16.val();
        self.red_wc.next = bit_cast::<32, 49>(self.red_x_high.val());
        if self.red_wc.val() < self.reg_wc_min.val() {
            self.red_wc.next = self.reg_wc_min.val();
        }
        self.red_r_high.next = self.red_r.val() >> self.c16.val();
        self.red_rate.next = bit_cast::<17, 34>(self.red_r_high.val());
        self.v_consume.next = false;
        self.v_clear_cam.next = false;
        self.v_zero.next = false;
        self.v_rcc.next = self.s_rcc.val();
        self.v_meas_t.next = self.s_meas_t.val();
        self.v_w.next = self.s_w.val();
        self.v_fits.next = self.len32.val() < self.s_w.val();
        self.v_wc.next = self.s_wc.val();
        self.v_rate.next = self.s_rate.val();
        if self.s_rcc.val() == self.rcc_off.val() {
            if self.s_pend_v.val() & self.congested.val() {
                self.v_rcc.next = self.rcc_measure.val();
                self.v_meas_t.next = self.r_ts.q.val();
                self.v_zero.next = true;
            } else {
                self.v_consume.next = true;
            }
        } else if !self.congested.val() {
            // Congestion cleared: the RCC quits.
            self.v_rcc.next = self.rcc_off.val();
            self.v_consume.next = true;
            self.v_clear_cam.next = self
                .csr
                .value
                .val()
                .get_bit(self.at_cfr_clear.val().index());
        } else if self.s_rcc.val() == self.rcc_measure.val() {
            if self.k_meas_done.q.val() {
                self.v_consume.next = true;
                if self.s_sent_c.val().any() {
                    self.v_rcc.next = self.rcc_on.val();
                    self.v_w.next = self.s_sent_all.val();
                    self.v_fits.next = self.len32.val() < self.s_sent_all.val();
                    self.v_wc.next = self.red_wc.val();
                    self.v_rate.next = self.red_rate.val();
                    self.v_zero.next = true;
                } else {
                    // No harmful packet measured: nothing to pace.
                    self.v_rcc.next = self.rcc_off.val();
                }
            }
        } else if self.s_pend_v.val() {
            self.v_wc.next = self.red_wc.val();
            self.v_rate.next = self.red_rate.val();
            self.v_consume.next = true;
        }

        // The output queue's sample writes its flow into the CAM (slot 0 after the visit's
        // clear of the same port).
        self.o2_slot.next = self.o2_cam_wp.val();
        if self.v_clear_cam.val() & (self.r_visit.q.val() == self.os_o.val()) {
            self.o2_slot.next = 0.into();
        }
        self.o2_addr.next = (bit_cast::<AB, PB>(self.os_o.val()) << self.c5.val())
            | bit_cast::<AB, 5>(self.o2_slot.val());
        self.sampled_ids.clear.next = 0.into();
        if self.v_clear_cam.val() {
            self.sampled_ids.clear.next = self.port_one.val() << self.r_visit.q.val();
        }
        self.sampled_ids.we.next = self.os.val();
        self.sampled_ids.waddr.next = self.o2_addr.val();
        self.sampled_ids.wdata.next = self.oqs.fid_out.val();

        // ---- The port registers after the port stage.
        for p in 0..PP {
            self.hit_a.next = self.r_cnr_v.q.val() & (self.r_cnr_port.q.val().index() == p);
            self.hit_b.next = self.r_cni_v.q.val() & (self.r_cni_port.q.val().index() == p);
            self.hit_o.next = self.r_sch_v.q.val()
                & self.r_sch_ok.q.val()
                & (self.r_sch_port.q.val().index() == p);
            self.hit_i.next = self.vs.val() & (self.vs_i.val().index() == p);
            self.hit_o2.next = self.os.val() & (self.os_o.val().index() == p);
            self.hit_s.next = self.r_visit.q.val().index() == p;
            // rcf: set by a CN, aged out by the visit unless a CN came on this edge.
            if self.hit_s.val() & self.rcf_expired.val() {
                self.rcf[p].d.next = false;
            }
            if self.hit_a.val() {
                self.rcf[p].d.next = true;
                self.rcf_t[p].d.next = self.r_ts.q.val();
                self.fbr[p].d.next = self.r_cnr_fbp.q.val();
                self.ext_wp[p].d.next = 0.into();
            }
            if self.hit_b.val() {
                self.ext_wp[p].d.next =
                    (self.b_slot.val() + self.one5.val()) & self.slot_mask.val();
            }
            // The window's bytes; a visit that starts a window or a measurement keeps only
            // this edge's (counted in it, unless they already fill W).
            if self.hit_o.val() & self.write_sent.val() {
                self.sent_all[p].d.next = self.new_all.val() & self.window_mask.val();
                self.sent_c[p].d.next = self.new_c.val() & self.window_mask.val();
            }
            if self.hit_s.val() & self.v_zero.val() {
                self.sent_all[p].d.next = 0.into();
                self.sent_c[p].d.next = 0.into();
                if self.hit_o.val() & self.added.val() & self.v_fits.val() {
                    self.sent_all[p].d.next = self.len32.val() & self.window_mask.val();
                    self.sent_c[p].d.next = self.add_c.val() & self.window_mask.val();
                }
            }
            // lcf after the VOQ sample, then the output queue's.
            self.l_lcf.next = self.lcf[p].q.val();
            self.l_run.next = self.clear_run[p].q.val();
            if self.hit_i.val() {
                if self.voqs.fb_pos.val() {
                    self.l_lcf.next = true;
                    self.l_run.next = 0.into();
                } else if self.l_lcf.val() {
                    if (self.l_run.val() + self.one4.val()) >= self.reg_n_clear.val() {
                        self.l_lcf.next = false;
                        self.l_run.next = 0.into();
                    } else {
                        self.l_run.next = self.l_run.val() + self.one4.val();
                    }
                }
            }
            if self.hit_o2.val() {
                if self.oqs.fb_pos.val() {
                    self.l_lcf.next = true;
                    self.l_run.next = 0.into();
                } else if self.l_lcf.val() {
                    if (self.l_run.val() + self.one4.val()) >= self.reg_n_clear.val() {
                        self.l_lcf.next = false;
                        self.l_run.next = 0.into();
                    } else {
                        self.l_run.next = self.l_run.val() + self.one4.val();
                    }
                }
            }
            self.lcf[p].d.next = self.l_lcf.val();
            self.clear_run[p].d.next = self.l_run.val();
            // The CN rate limit.
            if self.hit_s.val() & self.cn_expired.val() {
                self.cn_v[p].d.next = false;
            }
            if self.hit_i.val() & self.cn_emit.val() {
                self.cn_v[p].d.next = true;
                self.cn_t[p].d.next = self.r_ts.q.val();
            }
            // The output queue's Fb and CAM pointer.
            if self.hit_s.val() & self.v_clear_cam.val() {
                self.cam_wp[p].d.next = 0.into();
            }
            if self.hit_o2.val() {
                self.fb[p].d.next = self.oqs.fb6.val();
                self.cam_wp[p].d.next =
                    (self.o2_slot.val() + self.one5.val()) & self.slot_mask.val();
            }
            // The pending reduction: the largest of the triggers not yet used.
            self.trig_v.next = false;
            self.trig.next = 0.into();
            if self.hit_a.val() {
                self.trig_v.next = true;
                self.trig.next = self.r_cnr_fbp.q.val();
            }
            if self.hit_o2.val() & self.oqs.fb_pos.val() {
                if !self.trig_v.val() | (self.oqs.fb6.val() > self.trig.val()) {
                    self.trig.next = self.oqs.fb6.val();
                }
                self.trig_v.next = true;
            }
            self.keep_pend_v.next =
                self.pend_v[p].q.val() & !(self.hit_s.val() & self.v_consume.val());
            self.pend_v[p].d.next = self.keep_pend_v.val() | self.trig_v.val();
            if self.trig_v.val()
                & (!self.keep_pend_v.val() | (self.trig.val() > self.pend[p].q.val()))
            {
                self.pend[p].d.next = self.trig.val();
            }
            // The RCC's fields: the visit's.
            // Masked to their widths, so that synthesis sees the containers' high bits
            // constant (a register fed back through the visit's selection is not pruned).
            if self.hit_s.val() {
                self.rcc[p].d.next = self.v_rcc.val();
                self.meas_t[p].d.next = self.v_meas_t.val() & self.ts_mask.val();
                self.w[p].d.next = self.v_w.val() & self.window_mask.val();
                self.wc[p].d.next = self.v_wc.val() & self.window_mask.val();
                self.rate[p].d.next = self.v_rate.val();
            }
        }
        // The next visit's keep: port `visit`'s pending Fb as this edge leaves it (the same
        // rule as the loop above), x the Gd this edge writes, so that the visit starts from a
        // register. The visit of this edge is of another port unless there is only one.
        // Port `visit`'s registers, one selection for every next-visit value below.
        self.n_pend_v.next = false;
        self.n_pend.next = 0.into();
        self.n_rcf_t.next = 0.into();
        self.n_cn_t.next = 0.into();
        self.n_meas_t.next = 0.into();
        self.n_rcc.next = 0.into();
        self.n_wc.next = 0.into();
        self.n_rate.next = 0.into();
        self.n_sent_c.next = 0.into();
        for p in 0..PP {
            if self.visit.q.val().index() == p {
                self.n_pend_v.next = self.pend_v[p].q.val();
                self.n_pend.next = self.pend[p].q.val();
                self.n_rcf_t.next = self.rcf_t[p].q.val();
                self.n_cn_t.next = self.cn_t[p].q.val();
                self.n_meas_t.next = self.meas_t[p].q.val();
                self.n_rcc.next = self.rcc[p].q.val();
                self.n_wc.next = self.wc[p].q.val();
                self.n_rate.next = self.rate[p].q.val();
                self.n_sent_c.next = self.sent_c[p].q.val();
            }
        }
        self.n_trig_v.next = false;
        self.n_trig.next = 0.into();
        if self.r_cnr_v.q.val() & (self.r_cnr_port.q.val() == self.visit.q.val()) {
            self.n_trig_v.next = true;
            self.n_trig.next = self.r_cnr_fbp.q.val();
        }
        if self.os.val() & (self.os_o.val() == self.visit.q.val()) & self.oqs.fb_pos.val() {
            if !self.n_trig_v.val() | (self.oqs.fb6.val() > self.n_trig.val()) {
                self.n_trig.next = self.oqs.fb6.val();
            }
            self.n_trig_v.next = true;
        }
        self.n_keep_v.next = self.n_pend_v.val() & !(self.one_port.val() & self.v_consume.val());
        self.n_fb.next = 0.into();
        if self.n_keep_v.val() {
            self.n_fb.next = self.n_pend.val();
        }
        if self.n_trig_v.val() & (!self.n_keep_v.val() | (self.n_trig.val() > self.n_pend.val())) {
            self.n_fb.next = self.n_trig.val();
        }
        if self.reset.val() {
            self.n_fb.next = 0.into();
        }
        self.n_gd.next = self
            .csr
            .value_next
            .val()
            .get_bits::<17>(self.at_gd.val().index());
        // Fb x Gd, shift-and-add over Fb's bit pairs as a tree (three adders in series); keep
        // = 1 - Fb x Gd, or 0 where the cut is 1 or more (the difference's borrow).
        self.gd_1.next = bit_cast::<25, 17>(self.n_gd.val());
        self.cp0.next = 0.into();
        if self.n_fb.val().get_bit(0) {
            self.cp0.next = self.gd_1.val();
        }
        if self.n_fb.val().get_bit(1) {
            self.cp0.next = self.cp0.val() + (self.gd_1.val() << self.c1.val());
        }
        self.cp1.next = 0.into();
        if self.n_fb.val().get_bit(2) {
            self.cp1.next = self.gd_1.val();
        }
        if self.n_fb.val().get_bit(3) {
            self.cp1.next = self.cp1.val() + (self.gd_1.val() << self.c1.val());
        }
        self.cp2.next = 0.into();
        if self.n_fb.val().get_bit(4) {
            self.cp2.next = self.gd_1.val();
        }
        if self.n_fb.val().get_bit(5) {
            self.cp2.next = self.cp2.val() + (self.gd_1.val() << self.c1.val());
        }
        self.cut.next = (self.cp0.val() + (self.cp1.val() << self.c2.val()))
            + (self.cp2.val() << self.c4.val());
        self.keep_wide.next = self.gd_one.val() - self.cut.val();
        self.k_keep.d.next = bit_cast::<17, 25>(self.keep_wide.val());
        if self.keep_wide.val().get_bit(24) {
            self.k_keep.d.next = 0.into();
        }
        // The next visit's timer tests: its rcf, CN and measurement times as this edge leaves
        // them (a CN received, a CN sent, this visit when there is one port) against this
        // cycle's timestamp, which is the next cycle's r_ts, and the limits this edge writes.
        if self.r_cnr_v.q.val() & (self.r_cnr_port.q.val() == self.visit.q.val()) {
            self.n_rcf_t.next = self.r_ts.q.val();
        }
        if self.cn_emit.val() & (self.vs_i.val() == self.visit.q.val()) {
            self.n_cn_t.next = self.r_ts.q.val();
        }
        if self.one_port.val() {
            self.n_meas_t.next = self.v_meas_t.val() & self.ts_mask.val();
        }
        if self.reset.val() {
            self.n_rcf_t.next = 0.into();
            self.n_cn_t.next = 0.into();
            self.n_meas_t.next = 0.into();
        }
        self.k_rcf_old.d.next = ((self.ts.q.val() - self.n_rcf_t.val()) & self.ts_mask.val())
            >= self
                .csr
                .value_next
                .val()
                .get_bits::<32>(self.at_t_rcf.val().index());
        self.k_cn_old.d.next = ((self.ts.q.val() - self.n_cn_t.val()) & self.ts_mask.val())
            >= self
                .csr
                .value_next
                .val()
                .get_bits::<32>(self.at_t_cn.val().index());
        self.k_meas_done.d.next = ((self.ts.q.val() - self.n_meas_t.val()) & self.ts_mask.val())
            >= self
                .csr
                .value_next
                .val()
                .get_bits::<32>(self.at_t_meas.val().index());
        // The next visit's multiplicands. Only the visit writes Wc, R and the RCC state, so
        // with two or more ports the next visited port's are its registers; its harmful bytes
        // are this edge's offer's when the offer is for that port. With one port, the next
        // visit's are this visit's.
        if self.r_sch_v.q.val()
            & self.r_sch_ok.q.val()
            & (self.r_sch_port.q.val() == self.visit.q.val())
            & self.write_sent.val()
        {
            self.n_sent_c.next = self.new_c.val();
        }
        if self.one_port.val() {
            self.n_rcc.next = self.v_rcc.val();
            self.n_wc.next = self.v_wc.val();
            self.n_rate.next = self.v_rate.val();
            if self.v_zero.val() {
                self.n_sent_c.next = 0.into();
                if self.r_sch_v.q.val()
                    & self.r_sch_ok.q.val()
                    & self.added.val()
                    & self.v_fits.val()
                {
                    self.n_sent_c.next = self.add_c.val();
                }
            }
        }
        // The windows never exceed window_bits: masking says so to synthesis (and to the
        // solver), so the product has only those bits' partial sums.
        self.k_x.d.next = self.n_wc.val() & self.window_mask.val();
        self.k_r.d.next = self.n_rate.val();
        if self.n_rcc.val() == self.rcc_measure.val() {
            self.k_x.d.next = self.n_sent_c.val() & self.window_mask.val();
            self.k_r.d.next = self.rate_one.val();
        }
        if self.reset.val() {
            self.k_x.d.next = 0.into();
            self.k_r.d.next = self.rate_one.val();
        }
        // Severe CNs: this edge's, and the expiry of those older than SAR's window.
        for k in 0..SEVERE_SLOTS {
            self.sev_elapsed.next =
                (self.r_ts.q.val() - self.sev_t[k].q.val()) & self.ts_mask.val();
            if self.sev_v[k].q.val() & (self.sev_elapsed.val() >= self.reg_sar_window.val()) {
                self.sev_v[k].d.next = false;
            }
            if self.push_severe.val() & (self.sev_wp.q.val().index() == k) {
                self.sev_v[k].d.next = true;
                self.sev_t[k].d.next = self.r_ts.q.val();
            }
        }
        if self.push_severe.val() {
            self.sev_wp.d.next = self.sev_wp.q.val() + self.one2.val();
        }

        // ---- Outputs of the port stage (fields 0 when not valid).
        self.o_dec_v.d.next = self.r_sch_v.q.val();
        self.o_dec_grant.d.next =
            self.r_sch_v.q.val() & (self.grant.val() | !self.r_sch_ok.q.val());
        self.o_dec_harmful.d.next =
            self.r_sch_v.q.val() & self.r_sch_ok.q.val() & self.harmful.val();
        self.o_route_v.d.next = self.r_rt_v.q.val();
        self.o_route_port.d.next = 0.into();
        if self.r_rt_v.q.val() {
            self.o_route_port.d.next = self.route.val();
        }
        self.o_route_detour.d.next =
            self.r_rt_v.q.val() & (self.route.val() != self.r_rt_port.q.val());
        self.o_cn_v.d.next = self.cn_emit.val();
        self.o_cn_port.d.next = 0.into();
        self.o_cn_fbp.d.next = 0.into();
        self.o_cn_list.d.next = 0.into();
        self.o_cn_relay.d.next = false;
        if self.cn_emit.val() {
            self.o_cn_port.d.next = self.vs_i.val();
            self.o_cn_fbp.d.next = self.cn_fbp_now.val();
            self.o_cn_list.d.next = self.vs_o.val();
            self.o_cn_relay.d.next = self.v_rcf_now.val();
        }
        self.o_id_v.d.next = self.r_idr_v.q.val();
        self.o_id_hit.d.next = self.r_idr_v.q.val() & self.id_hit_now.val();
        self.o_id_fid.d.next = 0.into();
        if self.r_idr_v.q.val() {
            self.o_id_fid.d.next = self.id_fid_now.val();
        }
        self.dec_valid.next = self.o_dec_v.q.val();
        self.dec_grant.next = self.o_dec_grant.q.val();
        self.dec_harmful.next = self.o_dec_harmful.q.val();
        self.route_valid.next = self.o_route_v.q.val();
        self.route_port.next = self.o_route_port.q.val();
        self.route_detour.next = self.o_route_detour.q.val();
        self.cn_valid.next = self.o_cn_v.q.val();
        self.cn_port.next = self.o_cn_port.q.val();
        self.cn_fbp.next = self.o_cn_fbp.q.val();
        self.cn_list.next = self.o_cn_list.q.val();
        self.cn_relay.next = self.o_cn_relay.q.val();
        self.id_valid.next = self.o_id_v.q.val();
        self.id_hit.next = self.o_id_hit.q.val();
        self.id_fid.next = self.o_id_fid.q.val();

        self.view_rate.next = bit_cast::<32, 17>(self.view_rate17.val());
        // ---- The status, the port views of port_sel (as the registers are now) and the
        // flags.
        self.view_pend.next = 0.into();
        if self.view_pend_v.val() {
            self.view_pend.next = self.view_pend_raw.val();
        }
        self.view_mix.next = (((bit_cast::<16, 6>(self.view_fbx.val())
            << bit_cast::<16, 3>(self.reg_w_shift.val()))
            - bit_cast::<16, 6>(self.view_fbx.val()))
            + bit_cast::<16, 6>(self.view_fbr.val()))
            >> bit_cast::<16, 3>(self.reg_w_shift.val());
        self.view_fbp.next = self.view_fbx.val();
        if self.view_rcf.val() {
            self.view_fbp.next = bit_cast::<6, 16>(self.view_mix.val());
        }
        // lcf [0], rcf [1], role [3:2] = {rcf, lcf}, rcc [5:4], pending [6].
        self.view_flags.next = bit_cast::<32, 2>(self.view_rcc.val()) << self.c4.val();
        if self.view_lcf.val() {
            self.view_flags.next = self.view_flags.val() | self.flag_lcf.val();
        }
        if self.view_rcf.val() {
            self.view_flags.next = self.view_flags.val() | self.flag_rcf.val();
        }
        if self.view_pend_v.val() {
            self.view_flags.next = self.view_flags.val() | self.flag_pend.val();
        }
        self.view_fb.next = bit_cast::<32, 6>(self.view_fbx.val())
            | (bit_cast::<32, 6>(self.view_fbr.val()) << self.c8.val())
            | (bit_cast::<32, 6>(self.view_fbp.val()) << self.c16.val())
            | (bit_cast::<32, 6>(self.view_pend.val()) << self.c24.val());
        self.status_word.next = 0.into();
        if self.is_ready.q.val() {
            self.status_word.next = self.one32.val();
        }
        self.hw_words.next = (bit_cast::<CSR_BITS, 32>(self.status_word.val())
            << self.at_status.val())
            | (bit_cast::<CSR_BITS, 32>(self.view_flags.val()) << self.at_port_flags.val())
            | (bit_cast::<CSR_BITS, 32>(self.view_fb.val()) << self.at_port_fb.val())
            | (bit_cast::<CSR_BITS, 32>(self.view_w.val()) << self.at_port_w.val())
            | (bit_cast::<CSR_BITS, 32>(self.view_wc.val()) << self.at_port_wc.val())
            | (bit_cast::<CSR_BITS, 32>(self.view_sent.val()) << self.at_port_sent.val())
            | (bit_cast::<CSR_BITS, 32>(self.view_rate.val()) << self.at_port_rate.val());
        self.csr.hw_value.next = self.hw_words.val();
        self.err_now.next = self.r_err.q.val() | self.sat_err.val();
        self.csr.hw_set.next = bit_cast::<CSR_BITS, 3>(self.err_now.val()) << self.at_err.val();

        // Synchronous reset.
        if self.reset.val() {
            for p in 0..PP {
                self.lcf[p].d.next = false;
                self.clear_run[p].d.next = 0.into();
                self.rcf[p].d.next = false;
                self.rcf_t[p].d.next = 0.into();
                self.fb[p].d.next = 0.into();
                self.fbr[p].d.next = 0.into();
                self.pend_v[p].d.next = false;
                self.pend[p].d.next = 0.into();
                self.cn_v[p].d.next = false;
                self.cn_t[p].d.next = 0.into();
                self.rcc[p].d.next = 0.into();
                self.meas_t[p].d.next = 0.into();
                self.w[p].d.next = 0.into();
                self.wc[p].d.next = 0.into();
                self.sent_all[p].d.next = 0.into();
                self.sent_c[p].d.next = 0.into();
                self.rate[p].d.next = self.rate_one.val();
                self.cam_wp[p].d.next = 0.into();
                self.ext_wp[p].d.next = 0.into();
            }
            for k in 0..SEVERE_SLOTS {
                self.sev_v[k].d.next = false;
                self.sev_t[k].d.next = 0.into();
            }
            self.sev_wp.d.next = 0.into();
            self.pre.d.next = 0.into();
            self.ts.d.next = 0.into();
            self.visit.d.next = 0.into();
            self.init.d.next = 0.into();
            self.is_ready.d.next = false;
            self.r_cnr_v.d.next = false;
            self.r_cni_v.d.next = false;
            self.r_sch_v.d.next = false;
            self.r_rt_v.d.next = false;
            self.r_idr_v.d.next = false;
            self.r_err.d.next = 0.into();
            self.o_dec_v.d.next = false;
            self.o_dec_grant.d.next = false;
            self.o_dec_harmful.d.next = false;
            self.o_route_v.d.next = false;
            self.o_route_port.d.next = 0.into();
            self.o_route_detour.d.next = false;
            self.o_cn_v.d.next = false;
            self.o_cn_port.d.next = 0.into();
            self.o_cn_fbp.d.next = 0.into();
            self.o_cn_list.d.next = 0.into();
            self.o_cn_relay.d.next = false;
            self.o_id_v.d.next = false;
            self.o_id_hit.d.next = false;
            self.o_id_fid.d.next = 0.into();
        }
    }
}

/// A fresh `RcmCore` with `$pb` port bits (the sizes follow from it).
macro_rules! rcm_core {
    ($pb:literal, $cfg:expr) => {
        RcmCore::<$pb, { 1 << $pb }, { 2 * $pb }, { $pb + 5 }, { 32 << $pb }>::new($cfg)
    };
}

/// Calls `$body` with `$core` bound to the core sized for `cfg` (1..=16 ports: 1..=4 port
/// bits).
macro_rules! with_rcm_core {
    ($cfg:expr, |$core:ident| $body:expr) => {{
        match $cfg.port_bits() {
            1 => {
                let mut $core = rcm_core!(1, $cfg);
                $body
            }
            2 => {
                let mut $core = rcm_core!(2, $cfg);
                $body
            }
            3 => {
                let mut $core = rcm_core!(3, $cfg);
                $body
            }
            4 => {
                let mut $core = rcm_core!(4, $cfg);
                $body
            }
            pb => unreachable!("validated configs have 1..=16 ports, not {pb} port bits"),
        }
    }};
}

/// rust-hdl's Verilog of the RCM core for `cfg` (module `top` and its submodules).
pub fn core_verilog(cfg: &RcmConfig) -> String {
    crate::export::on_large_stack(|| {
        with_rcm_core!(cfg, |core| {
            core.connect_all();
            generate_verilog(&core)
        })
    })
}

/// The packaged Verilog, manifest and C header of an RCM instance. Every memory is flip-flops
/// or a small 1R1W RAM, the same on every target.
pub fn package(
    cfg: &RcmConfig,
    instance: &str,
    command: &str,
    tech: Tech,
) -> crate::export::Package {
    let config_toml = toml::to_string(cfg).expect("config serializes");
    let schema = switchcraft_model::rcm::port_schema(cfg);
    let map = regmap(cfg);
    crate::export::package(&crate::export::Source {
        block: "rcm",
        instance,
        command,
        config_toml: &config_toml,
        schema: &schema,
        core_verilog: &core_verilog(cfg),
        tech,
        reset_cycles: 1,
        regmap: &map,
        notes: &[
            "After reset the samplers clear their queue tables for init_cycles edges \
             (status.ready); see docs/blocks/rcm.md.",
        ],
        waivers: &[
            csr_bank::UNUSED_WAIVER,
            crate::export::Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &[
                    "voqs$fid_out",
                    "oqs$tag_out",
                    "vs_tag_high",
                    "cn_mix",
                    "view_mix",
                    "cur_mix",
                    "p_mix",
                    "keep_wide",
                    "red_x_high",
                    "red_r_high",
                    "level_wide",
                    "word_high",
                    "s4_scale_hi",
                    "intervals",
                ],
                reason: "the VOQ sampler carries no flow ID; the output-queue sampler's tag \
                         repeats its port; Eq. 2's mix, the cut's complement and the shifted \
                         words are held at full width and only their low bits read; the \
                         interval words are 32-bit slots of which samp_bits are stored.",
            },
        ],
    })
}
