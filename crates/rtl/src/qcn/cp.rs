//! QCN's congestion point: one egress arrival per cycle (II = 1) through nine stages, the
//! register-transfer form of `Qcn::arrival` (crates/model/src/qcn.rs).
//!
//! | edge | stage | work in the cycle after it |
//! |---|---|---|
//! | n | `r_*` capture (arrival, LFSR draw, timestamp; P_fb read at the arrival's bucket) | flow hash; q_old RAM address; draw < P_fb (RAM, or the window's write of edge n); q_old forward or not |
//! | n+1 | `s1_*` (+ the CSR values of edge n) | Q_off; Q_delta against the RAM's and the forward's q_old side by side, then chosen; q_old write if sampled |
//! | n+2 | `s2_*` | Q_off + w x Q_delta, reduced to two words by carry-save adders |
//! | n+3 | `s3_*` | Fb = their sum, and Fb < 0 noted; Fb x mantissa's partial products; the rate-limit RAM address |
//! | n+4 | `s4_*` (the rate-limit RAM reads) | the partial products reduced to two words by carry-save adders |
//! | n+5 | `s5_*` (the entry in the RAM's output register) | their sum; `1 << shift` and `64 << shift`; the forwards' tests against the arrivals one to four edges older |
//! | n+6 | `s6_*` (the entry in the fabric) | product >> shift, product >= 64 << shift, product >= 1 << shift (all 0 for Fb < 0); rate limit from the entry or the decisions two to four edges older |
//! | n+7 | `s7_*` | Fb6 = min(63, product >> shift); gate; rate limit (prepared, or the decision one edge older); the entry's write |
//! | n+8 | `s8_*`, FBP outputs | |
//! | n+9 | `s9_*`: the decision again, for the forward from four edges behind | |
//!
//! Two read-modify-writes, each with forwards for the events whose writes the RAM's read did
//! not see: `q_old` (read at n+1, written at n+2: a forward from one edge behind, decided in cycle n) and the
//! rate-limit entry (read at n+4, registered at n+5 with no logic in front, which a block
//! RAM's output register takes, and at n+6 in the fabric; decided in cycle n+7, written at
//! n+8). Its forwards: from four edges behind (a write on the read's edge), three and two
//! (writes after it), merged with the entry in cycle n+6, and from one edge behind, chosen
//! in cycle n+7, so that the decision and the RAM's write enable are two gates deep. Every
//! forward's test (same entry, timestamp in the window) is prepared in cycle n+5.
//! Comparisons are strict, negated for `>=` and `<=` (`!(a < b)`): yosys builds `>=` and `<=`
//! with an equality tree after the carry chain ([`crate::tcd`]'s classify stage says more).
//!
//! After reset the CP clears `q_old` and the rate-limit table and loads the P_fb table's reset
//! values ([`PfbRamp`]), one word of each per edge; until then arrivals are not taken (they
//! raise `err`) and the P_fb window reads 0 and ignores writes.

use crate::flow_hash::FlowHash;
use crate::narrow_ram::{low_bits, NarrowRam};
use rust_hdl::prelude::*;
use switchcraft_core::lfsr::Lfsr32;
use switchcraft_model::qcn::{err, QcnConfig, PFB_BITS, PFB_ONE};

/// The P_fb table's reset values as an incremental computation: entry k is 0 up to the last
/// bucket at or below Q_min (`k < k0`), 65 536 from the first at or above Q_max (`k >= k_top`),
/// and between them `floor(65536 (k 2^s - Q_min) / D)` with `D = Q_max - Q_min`, kept as a
/// quotient and a remainder that advance by `65536 2^s = a D + b` per bucket (no divider).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfbRamp {
    pub k0: u64,
    pub k_top: u64,
    pub quot0: u64,
    pub rem0: u64,
    pub a: u64,
    pub b: u64,
    pub d: u64,
}

impl PfbRamp {
    pub fn new(cfg: &QcnConfig) -> PfbRamp {
        let s = cfg.pfb_shift;
        let k0 = (cfg.q_min >> s) + 1;
        let k_top = cfg.q_max.div_ceil(1 << s);
        let d = (cfg.q_max - cfg.q_min).max(1);
        let n0 = PFB_ONE * ((k0 << s).saturating_sub(cfg.q_min));
        let step = PFB_ONE << s;
        PfbRamp {
            k0,
            k_top,
            quot0: n0 / d,
            rem0: n0 % d,
            a: step / d,
            b: step % d,
            d,
        }
    }

    /// The values the hardware writes, entry by entry (its algorithm, in Rust).
    pub fn values(&self, entries: u64) -> Vec<u64> {
        let (mut quot, mut rem) = (self.quot0, self.rem0);
        (0..entries)
            .map(|k| {
                let v = if k < self.k0 {
                    0
                } else if k >= self.k_top {
                    PFB_ONE
                } else {
                    quot
                };
                if k >= self.k0 && k < self.k_top {
                    rem += self.b;
                    quot += self.a;
                    if rem >= self.d {
                        rem -= self.d;
                        quot += 1;
                    }
                }
                v
            })
            .collect()
    }
}

#[derive(LogicBlock)]
pub struct Cp<const KB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Edge n: the egress arrival, `in_range` when its port and priority exist.
    pub eg_valid: Signal<In, Bit>,
    pub eg_in_range: Signal<In, Bit>,
    pub eg_key: Signal<In, Bits<KB>>,
    pub eg_port: Signal<In, Bits<6>>,
    pub eg_prio: Signal<In, Bits<3>>,
    pub eg_qdepth: Signal<In, Bits<24>>,
    pub eg_src: Signal<In, Bits<32>>,
    pub eg_dst: Signal<In, Bits<32>>,
    /// The CP's registers as the last edge left them (cycle n: as edge n left them).
    pub q_eq: Signal<In, Bits<24>>,
    pub w: Signal<In, Bits<4>>,
    pub fb_scale: Signal<In, Bits<13>>,
    pub fb_gate: Signal<In, Bit>,
    pub t_fb: Signal<In, Bits<32>>,
    pub pfb_index: Signal<In, Bits<8>>,
    /// Edge n: the bus writes `pfb_data` / `lfsr_seed` with `wdata`.
    pub pfb_write: Signal<In, Bit>,
    pub seed_write: Signal<In, Bit>,
    pub wdata: Signal<In, Bits<32>>,

    /// The tables are cleared and loaded: arrivals are taken.
    pub ready: Signal<Out, Bit>,
    /// The `err` flags of the arrival of the last edge: bit 0 index, bit 1 not ready.
    pub err: Signal<Out, Bits<2>>,
    /// P_fb[pfb_index] as the last edge read it (the window's read data; 0 before ready).
    pub pfb_rdata: Signal<Out, Bits<32>>,
    pub fbp_valid: Signal<Out, Bit>,
    pub fbp_port: Signal<Out, Bits<6>>,
    pub fbp_prio: Signal<Out, Bits<3>>,
    pub fbp_src: Signal<Out, Bits<32>>,
    pub fbp_dst: Signal<Out, Bits<32>>,
    pub fbp_fb: Signal<Out, Bits<6>>,

    flow_hash: FlowHash,
    /// P_fb, one copy for the arrivals and one for the window; q_old; the rate limit's
    /// `{timestamp, valid}` per flow entry.
    pfb_cp: NarrowRam<8, 17>,
    pfb_rd: NarrowRam<8, 17>,
    q_old: NarrowRam<KB, 24>,
    flows: NarrowRam<16, 33>,

    // Parameters of this instance.
    depth_mask: Constant<Bits<24>>,
    pfb_shift: Constant<Bits<8>>,
    pfb_last: Constant<Bits<24>>,
    flow_drop: Constant<Bits<8>>,
    ts_mask: Constant<Bits<32>>,
    pre_mask: Constant<Bits<32>>,
    seed: Constant<Bits<32>>,
    toggle: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    one17: Constant<Bits<17>>,
    c1: Constant<Bits<8>>,
    c2: Constant<Bits<8>>,
    c3: Constant<Bits<8>>,
    c4: Constant<Bits<8>>,
    c5: Constant<Bits<8>>,
    c6: Constant<Bits<8>>,
    c7: Constant<Bits<8>>,
    c16: Constant<Bits<8>>,
    one40: Constant<Bits<40>>,
    sixty_four40: Constant<Bits<40>>,
    ramp_quot0: Constant<Bits<48>>,
    ramp_rem0_plus_1: Constant<Bits<25>>,
    ramp_a: Constant<Bits<48>>,
    ramp_b: Constant<Bits<25>>,
    /// `D - b`: the remainder plus b reaches D exactly when the remainder reaches `D - b`.
    ramp_d_minus_b: Constant<Bits<25>>,
    ramp_carry_after_step: Constant<Bits<25>>,
    ramp_carry_after_carry: Constant<Bits<25>>,
    ramp_carry0: Constant<Bit>,
    ramp_a_plus_1: Constant<Bits<48>>,
    /// The sweep's positions one before K0, K_top, the P_fb table's end and its last edge,
    /// and the sweep flags' values at sweep 0.
    k0_before: Constant<Bits<17>>,
    k_top_before: Constant<Bits<17>>,
    pfb_end_before: Constant<Bits<17>>,
    last_before: Constant<Bits<17>>,
    below_k0_at_0: Constant<Bit>,
    at_top_at_0: Constant<Bit>,
    last_at_0: Constant<Bit>,
    pfb_one: Constant<Bits<17>>,
    /// The `err` bits (the model's `qcn::err`).
    err_index: Constant<Bits<2>>,
    err_not_ready: Constant<Bits<2>>,
    /// The valid bit of a rate-limit entry.
    valid33: Constant<Bits<33>>,

    // Free-running state.
    lfsr: DFF<Bits<32>>,
    pre: DFF<Bits<32>>,
    ts: DFF<Bits<32>>,
    sweep: DFF<Bits<17>>,
    is_ready: DFF<Bit>,
    /// Where the sweep is, as flags kept beside it (equalities with constants, no
    /// comparisons in the cycle): below K0, at or above K_top, inside the P_fb table, last.
    sweep_below_k0: DFF<Bit>,
    sweep_at_top: DFF<Bit>,
    sweep_in_pfb: DFF<Bit>,
    sweep_last: DFF<Bit>,
    quot: DFF<Bits<48>>,
    rem_plus_1: DFF<Bits<25>>,
    rem_carry: DFF<Bit>,
    /// The window's read was of a loaded table.
    rd_ready: DFF<Bit>,

    // Capture (edge n).
    r_valid: DFF<Bit>,
    r_err: DFF<Bits<2>>,
    r_key: DFF<Bits<KB>>,
    r_port: DFF<Bits<6>>,
    r_prio: DFF<Bits<3>>,
    r_q: DFF<Bits<24>>,
    r_src: DFF<Bits<32>>,
    r_dst: DFF<Bits<32>>,
    r_draw: DFF<Bits<17>>,
    r_pfb_fwd: DFF<Bit>,
    r_pfb_fwd_data: DFF<Bits<17>>,
    r_ts: DFF<Bits<32>>,
    // Stage 1 (edge n + 1), with the CSR values of edge n.
    s1_valid: DFF<Bit>,
    s1_key: DFF<Bits<KB>>,
    s1_port: DFF<Bits<6>>,
    s1_prio: DFF<Bits<3>>,
    s1_q: DFF<Bits<24>>,
    s1_src: DFF<Bits<32>>,
    s1_dst: DFF<Bits<32>>,
    s1_draw_p: DFF<Bit>,
    s1_ts: DFF<Bits<32>>,
    s1_flow: DFF<Bits<16>>,
    s1_q_eq: DFF<Bits<24>>,
    s1_w: DFF<Bits<4>>,
    s1_scale: DFF<Bits<13>>,
    s1_gate: DFF<Bit>,
    s1_t_fb: DFF<Bits<32>>,
    /// The arrival one edge older was sampled with the same key: its q_old write comes after
    /// this arrival's read, so q_old is its Q (decided in cycle n, so that cycle n + 1 holds
    /// the subtraction alone).
    s1_q_old_fwd: DFF<Bit>,
    // Stage 2.
    s2_sampled: DFF<Bit>,
    s2_q: DFF<Bits<24>>,
    s2_port: DFF<Bits<6>>,
    s2_prio: DFF<Bits<3>>,
    s2_src: DFF<Bits<32>>,
    s2_dst: DFF<Bits<32>>,
    s2_ts: DFF<Bits<32>>,
    s2_flow: DFF<Bits<16>>,
    s2_q_off: DFF<Bits<32>>,
    s2_q_delta: DFF<Bits<32>>,
    s2_w: DFF<Bits<4>>,
    s2_scale: DFF<Bits<13>>,
    s2_gate: DFF<Bit>,
    s2_t_fb: DFF<Bits<32>>,
    // Stage 3.
    s3_sampled: DFF<Bit>,
    s3_port: DFF<Bits<6>>,
    s3_prio: DFF<Bits<3>>,
    s3_src: DFF<Bits<32>>,
    s3_dst: DFF<Bits<32>>,
    s3_ts: DFF<Bits<32>>,
    s3_flow: DFF<Bits<16>>,
    s3_fb_sum: DFF<Bits<32>>,
    s3_fb_carry: DFF<Bits<32>>,
    s3_scale: DFF<Bits<13>>,
    s3_gate: DFF<Bit>,
    s3_t_fb: DFF<Bits<32>>,
    // Stage 4.
    s4_sampled: DFF<Bit>,
    s4_port: DFF<Bits<6>>,
    s4_prio: DFF<Bits<3>>,
    s4_src: DFF<Bits<32>>,
    s4_dst: DFF<Bits<32>>,
    s4_ts: DFF<Bits<32>>,
    s4_flow: DFF<Bits<16>>,
    /// Fb's partial products (Fb x each mantissa bit, shifted), registered so that cycle n + 4
    /// holds the carry-save tree alone. Fb is not clamped at 0 here (the sign, at the end of
    /// n + 3's carry chain, would drive all 256 products); `s4_neg` carries the clamp to
    /// cycle n + 6, which zeroes the quantiser's results instead.
    s4_neg: DFF<Bit>,
    s4_p0: DFF<Bits<40>>,
    s4_p1: DFF<Bits<40>>,
    s4_p2: DFF<Bits<40>>,
    s4_p3: DFF<Bits<40>>,
    s4_p4: DFF<Bits<40>>,
    s4_p5: DFF<Bits<40>>,
    s4_p6: DFF<Bits<40>>,
    s4_p7: DFF<Bits<40>>,
    s4_scale: DFF<Bits<13>>,
    s4_gate: DFF<Bit>,
    s4_t_fb: DFF<Bits<32>>,
    // Stage 5.
    s5_sampled: DFF<Bit>,
    s5_port: DFF<Bits<6>>,
    s5_prio: DFF<Bits<3>>,
    s5_src: DFF<Bits<32>>,
    s5_dst: DFF<Bits<32>>,
    s5_ts: DFF<Bits<32>>,
    s5_flow: DFF<Bits<16>>,
    /// The product `Fb x m` in carry-save form: it is `s5_sum + s5_carry`.
    s5_sum: DFF<Bits<40>>,
    s5_carry: DFF<Bits<40>>,
    s5_shift: DFF<Bits<8>>,
    s5_gate: DFF<Bit>,
    s5_neg: DFF<Bit>,
    s5_t_fb: DFF<Bits<32>>,
    // Stage 6.
    s6_sampled: DFF<Bit>,
    s6_port: DFF<Bits<6>>,
    s6_prio: DFF<Bits<3>>,
    s6_src: DFF<Bits<32>>,
    s6_dst: DFF<Bits<32>>,
    s6_ts: DFF<Bits<32>>,
    s6_flow: DFF<Bits<16>>,
    s6_prod: DFF<Bits<40>>,
    s6_shift: DFF<Bits<8>>,
    /// `1 << shift` and `64 << shift`: `product >> shift` is nonzero (above 63) exactly when
    /// the product is at least the first (the second), so the gate and the clamp are
    /// comparisons of the product with registers, not tests behind the run-time shift.
    s6_one_sh: DFF<Bits<40>>,
    s6_top_sh: DFF<Bits<40>>,
    s6_gate: DFF<Bit>,
    s6_neg: DFF<Bit>,
    s6_t_fb: DFF<Bits<32>>,
    /// The entry `{ts, valid}` as the RAM read it at edge n + 4, registered at n + 5 with no
    /// logic in front (a block RAM's output register takes it) and again at n + 6, so that
    /// the route out of the block RAM is a cycle of its own.
    s5_entry: DFF<Bits<33>>,
    s6_entry: DFF<Bits<33>>,
    s5_deadline: DFF<Bits<32>>,
    s5_wrapped: DFF<Bit>,
    /// `now - T_fb` (`deadline`) and whether it wrapped below 0, so that "elapsed < T_fb" is
    /// a timestamp in the window (deadline, now], two comparisons side by side.
    s6_deadline: DFF<Bits<32>>,
    s6_wrapped: DFF<Bit>,
    /// The forwards' tests against the arrivals one to four edges older, prepared a cycle
    /// ahead: the same entry (`same_k`), its timestamp in the window (`in_window_k`), and for
    /// three and four edges behind, whose decisions are known, the nearest one's result.
    s6_same_1: DFF<Bit>,
    s6_in_window_1: DFF<Bit>,
    s6_same_2: DFF<Bit>,
    s6_in_window_2: DFF<Bit>,
    s6_hit_34: DFF<Bit>,
    s6_allowed_34: DFF<Bit>,
    // Stage 7: the quantiser's results and the rate-limit entry, registered for the decision.
    s7_sampled: DFF<Bit>,
    s7_port: DFF<Bits<6>>,
    s7_prio: DFF<Bits<3>>,
    s7_src: DFF<Bits<32>>,
    s7_dst: DFF<Bits<32>>,
    s7_ts: DFF<Bits<32>>,
    s7_flow: DFF<Bits<16>>,
    s7_gate: DFF<Bit>,
    /// `product >> shift` to 6 bits, `product >= 64 << shift` (Fb6 clamps at 63) and
    /// `product >= 1 << shift` (Fb6 is not 0).
    s7_fb_low: DFF<Bits<6>>,
    s7_clamp: DFF<Bit>,
    s7_nonzero: DFF<Bit>,
    /// The rate limit as far as the decisions at least two edges older say: the nearest of
    /// those two, three and four edges older that names the same entry (their writes landed
    /// after the read, or on its edge), else the entry the RAM read; allowed when unset or its
    /// timestamp is at least T_fb old.
    s7_allowed_old: DFF<Bit>,
    /// The arrival one edge older (in s7, in s8 at the decision) names the same entry
    /// (`same_flow`), and its timestamp is at least T_fb old (`allowed_fwd`), for the
    /// forward from it, prepared a cycle ahead.
    s7_same_flow: DFF<Bit>,
    s7_allowed_fwd: DFF<Bit>,
    // Stage 8: the decision, for the rate limit's forwards and the outputs.
    s8_fbp: DFF<Bit>,
    s8_ts: DFF<Bits<32>>,
    s8_flow: DFF<Bits<16>>,
    // The decision an edge later, for the forward from four edges behind.
    s9_fbp: DFF<Bit>,
    s9_ts: DFF<Bits<32>>,
    s9_flow: DFF<Bits<16>>,
    o_port: DFF<Bits<6>>,
    o_prio: DFF<Bits<3>>,
    o_src: DFF<Bits<32>>,
    o_dst: DFF<Bits<32>>,
    o_fb: DFF<Bits<6>>,

    // Cycle n.
    draw_state: Signal<Local, Bits<32>>,
    draw_hi: Signal<Local, Bits<32>>,
    depth: Signal<Local, Bits<24>>,
    bucket: Signal<Local, Bits<24>>,
    hash_top: Signal<Local, Bits<32>>,
    ramp_value: Signal<Local, Bits<17>>,
    pw_enable: Signal<Local, Bit>,
    pw_address: Signal<Local, Bits<8>>,
    pw_data: Signal<Local, Bits<17>>,
    // Cycle n + 1.
    q32: Signal<Local, Bits<32>>,
    // Cycle n + 2.
    t0: Signal<Local, Bits<32>>,
    t1: Signal<Local, Bits<32>>,
    t2: Signal<Local, Bits<32>>,
    t3: Signal<Local, Bits<32>>,
    fb_s1: Signal<Local, Bits<32>>,
    fb_c1: Signal<Local, Bits<32>>,
    fb_s2: Signal<Local, Bits<32>>,
    fb_c2: Signal<Local, Bits<32>>,
    // Cycle n + 3.
    fb: Signal<Local, Bits<32>>,
    fb40: Signal<Local, Bits<40>>,
    m: Signal<Local, Bits<8>>,
    // Cycle n + 4.
    scale_hi: Signal<Local, Bits<13>>,
    csa_s1: Signal<Local, Bits<40>>,
    csa_c1: Signal<Local, Bits<40>>,
    csa_s2: Signal<Local, Bits<40>>,
    csa_c2: Signal<Local, Bits<40>>,
    csa_s3: Signal<Local, Bits<40>>,
    csa_c3: Signal<Local, Bits<40>>,
    csa_s4: Signal<Local, Bits<40>>,
    csa_c4: Signal<Local, Bits<40>>,
    csa_s5: Signal<Local, Bits<40>>,
    csa_c5: Signal<Local, Bits<40>>,
    // Cycle n + 5.
    after1: Signal<Local, Bit>,
    not_later1: Signal<Local, Bit>,
    in_window1: Signal<Local, Bit>,
    after2: Signal<Local, Bit>,
    not_later2: Signal<Local, Bit>,
    in_window2: Signal<Local, Bit>,
    after3: Signal<Local, Bit>,
    not_later3: Signal<Local, Bit>,
    in_window3: Signal<Local, Bit>,
    after4: Signal<Local, Bit>,
    not_later4: Signal<Local, Bit>,
    in_window4: Signal<Local, Bit>,
    hit3: Signal<Local, Bit>,
    hit4: Signal<Local, Bit>,
    // Cycle n + 6.
    shifted: Signal<Local, Bits<40>>,
    entry_ts: Signal<Local, Bits<33>>,
    after: Signal<Local, Bit>,
    not_later: Signal<Local, Bit>,
    in_window: Signal<Local, Bit>,
    // Cycle n + 7.
    fb6: Signal<Local, Bits<6>>,
    allowed: Signal<Local, Bit>,
    decide: Signal<Local, Bit>,
}

impl<const KB: usize> Cp<KB> {
    pub fn new(cfg: &QcnConfig) -> Self {
        let c8 = |v: u64| Constant::new(Bits::<8>::from(v));
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        let ramp = PfbRamp::new(cfg);
        let flow_bits = cfg.flow_entries.trailing_zeros();
        let seed = Lfsr32::new(cfg.lfsr_seed).state();
        // Sweep positions are 17 bits; one before 0 is 2^17 - 1, which the sweep never holds.
        let c17 = |v: u64| Constant::new(Bits::<17>::from(v & 0x1_ffff));
        let (k0, k_top) = (ramp.k0.min(1 << 16), ramp.k_top.min(1 << 16));
        let init_last = cfg.init_cycles() - 1;
        PfbRamp::check_fits(&ramp);
        Cp {
            clock: Default::default(),
            reset: Default::default(),
            eg_valid: Default::default(),
            eg_in_range: Default::default(),
            eg_key: Default::default(),
            eg_port: Default::default(),
            eg_prio: Default::default(),
            eg_qdepth: Default::default(),
            eg_src: Default::default(),
            eg_dst: Default::default(),
            q_eq: Default::default(),
            w: Default::default(),
            fb_scale: Default::default(),
            fb_gate: Default::default(),
            t_fb: Default::default(),
            pfb_index: Default::default(),
            pfb_write: Default::default(),
            seed_write: Default::default(),
            wdata: Default::default(),
            ready: Default::default(),
            err: Default::default(),
            pfb_rdata: Default::default(),
            fbp_valid: Default::default(),
            fbp_port: Default::default(),
            fbp_prio: Default::default(),
            fbp_src: Default::default(),
            fbp_dst: Default::default(),
            fbp_fb: Default::default(),
            flow_hash: FlowHash::new(8),
            pfb_cp: NarrowRam::with_depth(PFB_BITS as usize, cfg.pfb_entries as usize).forwarded(),
            pfb_rd: NarrowRam::with_depth(PFB_BITS as usize, cfg.pfb_entries as usize),
            q_old: NarrowRam::new(cfg.depth_bits as usize).forwarded(),
            flows: NarrowRam::with_depth(cfg.ts_bits as usize + 1, cfg.flow_entries as usize)
                .forwarded(),
            depth_mask: Constant::new(low_bits(cfg.depth_bits as usize)),
            pfb_shift: c8(cfg.pfb_shift.into()),
            pfb_last: Constant::new((u64::from(cfg.pfb_entries) - 1).into()),
            flow_drop: c8(u64::from(32 - flow_bits)),
            ts_mask: Constant::new(low_bits(cfg.ts_bits as usize)),
            pre_mask: Constant::new(low_bits(cfg.ts_shift as usize)),
            seed: c32(seed.into()),
            toggle: c32(Lfsr32::TOGGLE.into()),
            one32: c32(1),
            one17: Constant::new(1u64.into()),
            c1: c8(1),
            c2: c8(2),
            c3: c8(3),
            c4: c8(4),
            c5: c8(5),
            c6: c8(6),
            c7: c8(7),
            c16: c8(16),
            one40: Constant::new(1u64.into()),
            sixty_four40: Constant::new(64u64.into()),
            ramp_quot0: Constant::new(ramp.quot0.into()),
            ramp_rem0_plus_1: Constant::new((ramp.rem0 + 1).into()),
            ramp_a: Constant::new(ramp.a.into()),
            ramp_b: Constant::new(ramp.b.into()),
            ramp_d_minus_b: Constant::new((ramp.d - ramp.b).into()),
            ramp_carry_after_step: Constant::new((ramp.d.saturating_sub(2 * ramp.b) + 1).into()),
            ramp_carry_after_carry: Constant::new((2 * (ramp.d - ramp.b) + 1).into()),
            ramp_carry0: Constant::new(ramp.rem0 >= ramp.d - ramp.b),
            ramp_a_plus_1: Constant::new((ramp.a + 1).into()),
            k0_before: c17(k0.wrapping_sub(1)),
            k_top_before: c17(k_top.wrapping_sub(1)),
            pfb_end_before: c17(u64::from(cfg.pfb_entries) - 1),
            last_before: c17(init_last.wrapping_sub(1)),
            below_k0_at_0: Constant::new(k0 > 0),
            at_top_at_0: Constant::new(k_top == 0),
            last_at_0: Constant::new(init_last == 0),
            pfb_one: Constant::new(PFB_ONE.into()),
            err_index: Constant::new(err::INDEX.into()),
            err_not_ready: Constant::new(err::NOT_READY.into()),
            valid33: Constant::new(1u64.into()),
            lfsr: Default::default(),
            pre: Default::default(),
            ts: Default::default(),
            sweep: Default::default(),
            is_ready: Default::default(),
            sweep_below_k0: Default::default(),
            sweep_at_top: Default::default(),
            sweep_in_pfb: Default::default(),
            sweep_last: Default::default(),
            quot: Default::default(),
            rem_plus_1: Default::default(),
            rem_carry: Default::default(),
            rd_ready: Default::default(),
            r_valid: Default::default(),
            r_err: Default::default(),
            r_key: Default::default(),
            r_port: Default::default(),
            r_prio: Default::default(),
            r_q: Default::default(),
            r_src: Default::default(),
            r_dst: Default::default(),
            r_draw: Default::default(),
            r_pfb_fwd: Default::default(),
            r_pfb_fwd_data: Default::default(),
            r_ts: Default::default(),
            s1_valid: Default::default(),
            s1_key: Default::default(),
            s1_port: Default::default(),
            s1_prio: Default::default(),
            s1_q: Default::default(),
            s1_src: Default::default(),
            s1_dst: Default::default(),
            s1_draw_p: Default::default(),
            s1_q_old_fwd: Default::default(),
            s1_ts: Default::default(),
            s1_flow: Default::default(),
            s1_q_eq: Default::default(),
            s1_w: Default::default(),
            s1_scale: Default::default(),
            s1_gate: Default::default(),
            s1_t_fb: Default::default(),
            s2_sampled: Default::default(),
            s2_q: Default::default(),
            s2_port: Default::default(),
            s2_prio: Default::default(),
            s2_src: Default::default(),
            s2_dst: Default::default(),
            s2_ts: Default::default(),
            s2_flow: Default::default(),
            s2_q_off: Default::default(),
            s2_q_delta: Default::default(),
            s2_w: Default::default(),
            s2_scale: Default::default(),
            s2_gate: Default::default(),
            s2_t_fb: Default::default(),
            s3_sampled: Default::default(),
            s3_port: Default::default(),
            s3_prio: Default::default(),
            s3_src: Default::default(),
            s3_dst: Default::default(),
            s3_ts: Default::default(),
            s3_flow: Default::default(),
            s3_fb_sum: Default::default(),
            s3_fb_carry: Default::default(),
            s3_scale: Default::default(),
            s3_gate: Default::default(),
            s3_t_fb: Default::default(),
            s4_sampled: Default::default(),
            s4_port: Default::default(),
            s4_prio: Default::default(),
            s4_src: Default::default(),
            s4_dst: Default::default(),
            s4_ts: Default::default(),
            s4_flow: Default::default(),
            s4_neg: Default::default(),
            s4_p0: Default::default(),
            s4_p1: Default::default(),
            s4_p2: Default::default(),
            s4_p3: Default::default(),
            s4_p4: Default::default(),
            s4_p5: Default::default(),
            s4_p6: Default::default(),
            s4_p7: Default::default(),
            s4_scale: Default::default(),
            s4_gate: Default::default(),
            s4_t_fb: Default::default(),
            s5_sampled: Default::default(),
            s5_port: Default::default(),
            s5_prio: Default::default(),
            s5_src: Default::default(),
            s5_dst: Default::default(),
            s5_ts: Default::default(),
            s5_flow: Default::default(),
            s5_sum: Default::default(),
            s5_carry: Default::default(),
            s5_shift: Default::default(),
            s5_gate: Default::default(),
            s5_neg: Default::default(),
            s5_t_fb: Default::default(),
            s6_sampled: Default::default(),
            s6_port: Default::default(),
            s6_prio: Default::default(),
            s6_src: Default::default(),
            s6_dst: Default::default(),
            s6_ts: Default::default(),
            s6_flow: Default::default(),
            s6_prod: Default::default(),
            s6_shift: Default::default(),
            s6_one_sh: Default::default(),
            s6_top_sh: Default::default(),
            s6_gate: Default::default(),
            s6_neg: Default::default(),
            s6_t_fb: Default::default(),
            s7_sampled: Default::default(),
            s7_port: Default::default(),
            s7_prio: Default::default(),
            s7_src: Default::default(),
            s7_dst: Default::default(),
            s7_ts: Default::default(),
            s7_flow: Default::default(),
            s7_gate: Default::default(),
            s7_fb_low: Default::default(),
            s7_clamp: Default::default(),
            s7_nonzero: Default::default(),
            s5_entry: Default::default(),
            s5_deadline: Default::default(),
            s5_wrapped: Default::default(),
            s6_same_1: Default::default(),
            s6_in_window_1: Default::default(),
            s6_same_2: Default::default(),
            s6_in_window_2: Default::default(),
            s6_hit_34: Default::default(),
            s6_allowed_34: Default::default(),
            s6_entry: Default::default(),
            s6_deadline: Default::default(),
            s6_wrapped: Default::default(),
            s7_allowed_old: Default::default(),
            s7_same_flow: Default::default(),
            s7_allowed_fwd: Default::default(),
            s8_fbp: Default::default(),
            s8_ts: Default::default(),
            s8_flow: Default::default(),
            s9_fbp: Default::default(),
            s9_ts: Default::default(),
            s9_flow: Default::default(),
            o_port: Default::default(),
            o_prio: Default::default(),
            o_src: Default::default(),
            o_dst: Default::default(),
            o_fb: Default::default(),
            draw_state: Default::default(),
            draw_hi: Default::default(),
            depth: Default::default(),
            bucket: Default::default(),
            hash_top: Default::default(),
            ramp_value: Default::default(),
            pw_enable: Default::default(),
            pw_address: Default::default(),
            pw_data: Default::default(),
            q32: Default::default(),
            t0: Default::default(),
            t1: Default::default(),
            t2: Default::default(),
            t3: Default::default(),
            fb_s1: Default::default(),
            fb_c1: Default::default(),
            fb_s2: Default::default(),
            fb_c2: Default::default(),
            fb: Default::default(),
            m: Default::default(),
            fb40: Default::default(),
            scale_hi: Default::default(),
            csa_s1: Default::default(),
            csa_c1: Default::default(),
            csa_s2: Default::default(),
            csa_c2: Default::default(),
            csa_s3: Default::default(),
            csa_c3: Default::default(),
            csa_s4: Default::default(),
            csa_c4: Default::default(),
            csa_s5: Default::default(),
            csa_c5: Default::default(),
            shifted: Default::default(),
            after: Default::default(),
            not_later: Default::default(),
            after1: Default::default(),
            not_later1: Default::default(),
            in_window1: Default::default(),
            after2: Default::default(),
            not_later2: Default::default(),
            in_window2: Default::default(),
            after3: Default::default(),
            not_later3: Default::default(),
            in_window3: Default::default(),
            after4: Default::default(),
            not_later4: Default::default(),
            in_window4: Default::default(),
            hit3: Default::default(),
            hit4: Default::default(),
            fb6: Default::default(),
            entry_ts: Default::default(),
            in_window: Default::default(),
            allowed: Default::default(),
            decide: Default::default(),
        }
    }
}

impl PfbRamp {
    /// The ramp's registers hold it: the quotient within 48 bits over every bucket of the ramp,
    /// the remainder and divisor within 25.
    fn check_fits(&self) {
        assert!(self.d < 1 << 24 && self.b < self.d && self.rem0 < self.d);
        let last = self.quot0 + self.k_top.saturating_sub(self.k0) * (self.a + 1);
        assert!(last < 1 << 48, "P_fb ramp beyond 48 bits: {self:?}");
    }
}

// `!(a < b)` for `a >= b` is deliberate: see the module doc.
#[allow(clippy::nonminimal_bool)]
impl<const KB: usize> Logic for Cp<KB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            lfsr,
            pre,
            ts,
            sweep,
            is_ready,
            sweep_below_k0,
            sweep_at_top,
            sweep_in_pfb,
            sweep_last,
            quot,
            rem_plus_1,
            rem_carry,
            rd_ready,
            r_valid,
            r_err,
            r_key,
            r_port,
            r_prio,
            r_q,
            r_src,
            r_dst,
            r_draw,
            r_pfb_fwd,
            r_pfb_fwd_data,
            r_ts,
            s1_valid,
            s1_key,
            s1_port,
            s1_prio,
            s1_q,
            s1_src,
            s1_dst,
            s1_draw_p,
            s1_q_old_fwd,
            s1_ts,
            s1_flow,
            s1_q_eq,
            s1_w,
            s1_scale,
            s1_gate,
            s1_t_fb,
            s2_sampled,
            s2_q,
            s2_port,
            s2_prio,
            s2_src,
            s2_dst,
            s2_ts,
            s2_flow,
            s2_q_off,
            s2_q_delta,
            s2_w,
            s2_scale,
            s2_gate,
            s2_t_fb,
            s3_sampled,
            s3_port,
            s3_prio,
            s3_src,
            s3_dst,
            s3_ts,
            s3_flow,
            s3_fb_sum,
            s3_fb_carry,
            s3_scale,
            s3_gate,
            s3_t_fb,
            s4_sampled,
            s4_port,
            s4_prio,
            s4_src,
            s4_dst,
            s4_ts,
            s4_flow,
            s4_neg,
            s4_p0,
            s4_p1,
            s4_p2,
            s4_p3,
            s4_p4,
            s4_p5,
            s4_p6,
            s4_p7,
            s4_scale,
            s4_gate,
            s4_t_fb,
            s5_sampled,
            s5_port,
            s5_prio,
            s5_src,
            s5_dst,
            s5_ts,
            s5_flow,
            s5_sum,
            s5_carry,
            s5_shift,
            s5_gate,
            s5_neg,
            s5_t_fb,
            s6_sampled,
            s6_port,
            s6_prio,
            s6_src,
            s6_dst,
            s6_ts,
            s6_flow,
            s6_prod,
            s6_shift,
            s6_one_sh,
            s6_top_sh,
            s6_gate,
            s6_neg,
            s6_t_fb,
            s7_sampled,
            s7_port,
            s7_prio,
            s7_src,
            s7_dst,
            s7_ts,
            s7_flow,
            s7_gate,
            s7_fb_low,
            s7_clamp,
            s7_nonzero,
            s5_entry,
            s5_deadline,
            s5_wrapped,
            s6_same_1,
            s6_in_window_1,
            s6_same_2,
            s6_in_window_2,
            s6_hit_34,
            s6_allowed_34,
            s6_entry,
            s6_deadline,
            s6_wrapped,
            s7_allowed_old,
            s7_same_flow,
            s7_allowed_fwd,
            s8_fbp,
            s8_ts,
            s8_flow,
            s9_fbp,
            s9_ts,
            s9_flow,
            o_port,
            o_prio,
            o_src,
            o_dst,
            o_fb
        );
        self.pfb_cp.clock.next = self.clock.val();
        self.pfb_rd.clock.next = self.clock.val();
        self.q_old.clock.next = self.clock.val();
        self.flows.clock.next = self.clock.val();

        // ---- Free-running: the LFSR (a seed write restarts it on its own edge's draw), the
        // timestamp (edges since reset >> ts_shift), and the reset sweep with the P_fb ramp.
        self.draw_state.next = self.lfsr.q.val();
        if self.seed_write.val() {
            self.draw_state.next = self.wdata.val();
            if !self.wdata.val().any() {
                self.draw_state.next = self.one32.val();
            }
        }
        self.lfsr.d.next = self.draw_state.val() >> self.c1.val();
        if self.draw_state.val().get_bit(0) {
            self.lfsr.d.next = (self.draw_state.val() >> self.c1.val()) ^ self.toggle.val();
        }
        self.pre.d.next = (self.pre.q.val() + self.one32.val()) & self.pre_mask.val();
        if self.pre.q.val() == self.pre_mask.val() {
            self.ts.d.next = (self.ts.q.val() + self.one32.val()) & self.ts_mask.val();
        }
        // Below Q_min before at or above Q_max: with Q_min = Q_max the buckets up to Q_min
        // are 0 (the law's first case).
        self.ramp_value.next = bit_cast::<17, 48>(self.quot.q.val());
        if self.sweep_at_top.q.val() {
            self.ramp_value.next = self.pfb_one.val();
        }
        if self.sweep_below_k0.q.val() {
            self.ramp_value.next = 0.into();
        }
        if !self.is_ready.q.val() & !self.sweep_below_k0.q.val() & !self.sweep_at_top.q.val() {
            // `rem_carry` is `rem >= D - b` (this step carries into the quotient), kept a step
            // ahead: after rem += b it is rem >= D - 2b, after rem -= D - b it is
            // rem >= 2 (D - b), both tests on the current rem. The register holds rem + 1, so
            // that no test is against 0 (always true: Verilator's UNSIGNED).
            self.quot.d.next = self.quot.q.val() + self.ramp_a.val();
            self.rem_plus_1.d.next = self.rem_plus_1.q.val() + self.ramp_b.val();
            self.rem_carry.d.next = !(self.rem_plus_1.q.val() < self.ramp_carry_after_step.val());
            if self.rem_carry.q.val() {
                self.quot.d.next = self.quot.q.val() + self.ramp_a_plus_1.val();
                self.rem_plus_1.d.next = self.rem_plus_1.q.val() - self.ramp_d_minus_b.val();
                self.rem_carry.d.next =
                    !(self.rem_plus_1.q.val() < self.ramp_carry_after_carry.val());
            }
        }
        if !self.is_ready.q.val() {
            self.sweep.d.next = self.sweep.q.val() + self.one17.val();
            self.is_ready.d.next = self.sweep_last.q.val();
            if self.sweep.q.val() == self.k0_before.val() {
                self.sweep_below_k0.d.next = false;
            }
            if self.sweep.q.val() == self.k_top_before.val() {
                self.sweep_at_top.d.next = true;
            }
            if self.sweep.q.val() == self.pfb_end_before.val() {
                self.sweep_in_pfb.d.next = false;
            }
            self.sweep_last.d.next = self.sweep.q.val() == self.last_before.val();
        }
        self.ready.next = self.is_ready.q.val();

        // ---- Edge n: capture the arrival, its draw and timestamp.
        self.depth.next = self.eg_qdepth.val() & self.depth_mask.val();
        self.r_valid.d.next = self.eg_valid.val() & self.eg_in_range.val() & self.is_ready.q.val();
        self.r_err.d.next = 0.into();
        if self.eg_valid.val() & !self.eg_in_range.val() {
            self.r_err.d.next = self.err_index.val();
        }
        if self.eg_valid.val() & self.eg_in_range.val() & !self.is_ready.q.val() {
            self.r_err.d.next = self.err_not_ready.val();
        }
        self.r_key.d.next = self.eg_key.val();
        self.r_port.d.next = self.eg_port.val();
        self.r_prio.d.next = self.eg_prio.val();
        self.r_q.d.next = self.depth.val();
        self.r_src.d.next = self.eg_src.val();
        self.r_dst.d.next = self.eg_dst.val();
        self.draw_hi.next = self.draw_state.val() >> self.c16.val();
        self.r_draw.d.next = bit_cast::<17, 32>(self.draw_hi.val());
        self.r_ts.d.next = self.ts.q.val();
        // The P_fb bucket, read from the arrival's own depth so that the RAM's output is
        // registered on edge n (a window write on the same edge is forwarded below).
        self.bucket.next = self.depth.val() >> self.pfb_shift.val();
        if self.bucket.val() > self.pfb_last.val() {
            self.bucket.next = self.pfb_last.val();
        }
        self.pfb_cp.read_address.next = bit_cast::<8, 24>(self.bucket.val());
        self.err.next = self.r_err.q.val();

        // ---- Cycle n: the flow hash (the key is `src | dst << 32`), the q_old address, the
        // P_fb table's window and writes.
        self.flow_hash.key.next =
            bit_cast::<64, 32>(self.r_src.q.val()) | (bit_cast::<64, 32>(self.r_dst.q.val()) << 32);
        self.hash_top.next = self.flow_hash.hash.val() >> self.flow_drop.val();
        self.q_old.read_address.next = self.r_key.q.val();
        // The window's copy, read at the index as stored (0 until the table is loaded).
        self.pfb_rd.read_address.next = self.pfb_index.val();
        self.rd_ready.d.next = self.is_ready.q.val();
        self.pfb_rdata.next = 0.into();
        if self.rd_ready.q.val() {
            self.pfb_rdata.next = bit_cast::<32, 17>(self.pfb_rd.read_data.val());
        }
        // P_fb writes: the sweep's ramp while loading, then the window's writes.
        self.pw_enable.next = self.pfb_write.val() & self.is_ready.q.val();
        self.pw_address.next = self.pfb_index.val();
        self.pw_data.next = bit_cast::<17, 32>(self.wdata.val());
        if !self.is_ready.q.val() {
            self.pw_enable.next = self.sweep_in_pfb.q.val();
            self.pw_address.next = bit_cast::<8, 17>(self.sweep.q.val());
            self.pw_data.next = self.ramp_value.val();
        }
        self.pfb_cp.write_enable.next = self.pw_enable.val();
        // The RAM reads first: a write on edge n reaches the arrival of edge n by forwarding.
        self.r_pfb_fwd.d.next =
            self.pw_enable.val() & (self.pw_address.val() == bit_cast::<8, 24>(self.bucket.val()));
        self.r_pfb_fwd_data.d.next = self.pw_data.val();
        self.pfb_cp.write_address.next = self.pw_address.val();
        self.pfb_cp.write_data.next = self.pw_data.val();
        self.pfb_rd.write_enable.next = self.pw_enable.val();
        self.pfb_rd.write_address.next = self.pw_address.val();
        self.pfb_rd.write_data.next = self.pw_data.val();

        // ---- Edge n + 1.
        self.s1_valid.d.next = self.r_valid.q.val();
        self.s1_key.d.next = self.r_key.q.val();
        self.s1_port.d.next = self.r_port.q.val();
        self.s1_prio.d.next = self.r_prio.q.val();
        self.s1_q.d.next = self.r_q.q.val();
        self.s1_src.d.next = self.r_src.q.val();
        self.s1_dst.d.next = self.r_dst.q.val();
        // Sampled or not: the draw against P_fb (the RAM's, or the one written on edge n).
        self.s1_draw_p.d.next = self.r_draw.q.val() < self.pfb_cp.read_data.val();
        if self.r_pfb_fwd.q.val() {
            self.s1_draw_p.d.next = self.r_draw.q.val() < self.r_pfb_fwd_data.q.val();
        }
        self.s1_ts.d.next = self.r_ts.q.val();
        self.s1_flow.d.next = bit_cast::<16, 32>(self.hash_top.val());
        self.s1_q_eq.d.next = self.q_eq.val();
        self.s1_w.d.next = self.w.val();
        self.s1_scale.d.next = self.fb_scale.val();
        self.s1_gate.d.next = self.fb_gate.val();
        self.s1_t_fb.d.next = self.t_fb.val();
        self.s1_q_old_fwd.d.next = self.s1_valid.q.val()
            & self.s1_draw_p.q.val()
            & (self.s1_key.q.val() == self.r_key.q.val());

        // ---- Cycle n + 1: Q_off and Q_delta, against q_old from the RAM and from the sample one
        // edge older (whose write the read did not see) side by side; the q_old write.
        self.q32.next = bit_cast::<32, 24>(self.s1_q.q.val());
        self.s2_sampled.d.next = self.s1_valid.q.val() & self.s1_draw_p.q.val();
        self.s2_q.d.next = self.s1_q.q.val();
        self.s2_port.d.next = self.s1_port.q.val();
        self.s2_prio.d.next = self.s1_prio.q.val();
        self.s2_src.d.next = self.s1_src.q.val();
        self.s2_dst.d.next = self.s1_dst.q.val();
        self.s2_ts.d.next = self.s1_ts.q.val();
        self.s2_flow.d.next = self.s1_flow.q.val();
        self.s2_q_off.d.next = self.q32.val() - bit_cast::<32, 24>(self.s1_q_eq.q.val());
        self.s2_q_delta.d.next = self.q32.val() - bit_cast::<32, 24>(self.q_old.read_data.val());
        if self.s1_q_old_fwd.q.val() {
            self.s2_q_delta.d.next = self.q32.val() - bit_cast::<32, 24>(self.s2_q.q.val());
        }
        self.s2_w.d.next = self.s1_w.q.val();
        self.s2_scale.d.next = self.s1_scale.q.val();
        self.s2_gate.d.next = self.s1_gate.q.val();
        self.s2_t_fb.d.next = self.s1_t_fb.q.val();
        // q_old and the rate-limit entries: cleared by the sweep while loading.
        self.q_old.write_enable.next = self.s1_valid.q.val() & self.s1_draw_p.q.val();
        self.q_old.write_address.next = self.s1_key.q.val();
        self.q_old.write_data.next = self.s1_q.q.val();
        if !self.is_ready.q.val() {
            self.q_old.write_enable.next = true;
            self.q_old.write_address.next = bit_cast::<KB, 17>(self.sweep.q.val());
            self.q_old.write_data.next = 0.into();
        }

        // ---- Cycle n + 2: Q_off + w x Q_delta (modulo 2^32: two's complement).
        self.t0.next = 0.into();
        if self.s2_w.q.val().get_bit(0) {
            self.t0.next = self.s2_q_delta.q.val();
        }
        self.t1.next = 0.into();
        if self.s2_w.q.val().get_bit(1) {
            self.t1.next = self.s2_q_delta.q.val() << self.c1.val();
        }
        self.t2.next = 0.into();
        if self.s2_w.q.val().get_bit(2) {
            self.t2.next = self.s2_q_delta.q.val() << self.c2.val();
        }
        self.t3.next = 0.into();
        if self.s2_w.q.val().get_bit(3) {
            self.t3.next = self.s2_q_delta.q.val() << self.c3.val();
        }
        self.s3_sampled.d.next = self.s2_sampled.q.val();
        self.s3_port.d.next = self.s2_port.q.val();
        self.s3_prio.d.next = self.s2_prio.q.val();
        self.s3_src.d.next = self.s2_src.q.val();
        self.s3_dst.d.next = self.s2_dst.q.val();
        self.s3_ts.d.next = self.s2_ts.q.val();
        self.s3_flow.d.next = self.s2_flow.q.val();
        // Q_off + the four terms, reduced to two words by carry-save adders (exact modulo
        // 2^32), so that cycle n + 3 holds one carry chain.
        self.fb_s1.next = self.t0.val() ^ self.t1.val() ^ self.t2.val();
        self.fb_c1.next = ((self.t0.val() & self.t1.val())
            | (self.t0.val() & self.t2.val())
            | (self.t1.val() & self.t2.val()))
            << self.c1.val();
        self.fb_s2.next = self.t3.val() ^ self.s2_q_off.q.val() ^ self.fb_s1.val();
        self.fb_c2.next = ((self.t3.val() & self.s2_q_off.q.val())
            | (self.t3.val() & self.fb_s1.val())
            | (self.s2_q_off.q.val() & self.fb_s1.val()))
            << self.c1.val();
        self.s3_fb_sum.d.next = self.fb_c1.val() ^ self.fb_s2.val() ^ self.fb_c2.val();
        self.s3_fb_carry.d.next = ((self.fb_c1.val() & self.fb_s2.val())
            | (self.fb_c1.val() & self.fb_c2.val())
            | (self.fb_s2.val() & self.fb_c2.val()))
            << self.c1.val();
        self.s3_scale.d.next = self.s2_scale.q.val();
        self.s3_gate.d.next = self.s2_gate.q.val();
        self.s3_t_fb.d.next = self.s2_t_fb.q.val();

        // ---- Cycle n + 3: Fb and its partial products; Fb < 0 (which quantises to 0) noted.
        // The rate-limit RAM address (its entry is read at edge n + 4).
        self.flows.read_address.next = self.s3_flow.q.val();
        self.fb.next = self.s3_fb_sum.q.val() + self.s3_fb_carry.q.val();
        self.fb40.next = bit_cast::<40, 32>(self.fb.val());
        self.s4_neg.d.next = self.fb.val().get_bit(31);
        // Fb x mantissa's partial products: Fb shifted by each mantissa bit's place where the
        // bit is set (a negative Fb's are discarded in cycle n + 6).
        self.m.next = bit_cast::<8, 13>(self.s3_scale.q.val());
        self.s4_p0.d.next = 0.into();
        if self.m.val().get_bit(0) {
            self.s4_p0.d.next = self.fb40.val();
        }
        self.s4_p1.d.next = 0.into();
        if self.m.val().get_bit(1) {
            self.s4_p1.d.next = self.fb40.val() << self.c1.val();
        }
        self.s4_p2.d.next = 0.into();
        if self.m.val().get_bit(2) {
            self.s4_p2.d.next = self.fb40.val() << self.c2.val();
        }
        self.s4_p3.d.next = 0.into();
        if self.m.val().get_bit(3) {
            self.s4_p3.d.next = self.fb40.val() << self.c3.val();
        }
        self.s4_p4.d.next = 0.into();
        if self.m.val().get_bit(4) {
            self.s4_p4.d.next = self.fb40.val() << self.c4.val();
        }
        self.s4_p5.d.next = 0.into();
        if self.m.val().get_bit(5) {
            self.s4_p5.d.next = self.fb40.val() << self.c5.val();
        }
        self.s4_p6.d.next = 0.into();
        if self.m.val().get_bit(6) {
            self.s4_p6.d.next = self.fb40.val() << self.c6.val();
        }
        self.s4_p7.d.next = 0.into();
        if self.m.val().get_bit(7) {
            self.s4_p7.d.next = self.fb40.val() << self.c7.val();
        }
        self.s4_sampled.d.next = self.s3_sampled.q.val();
        self.s4_port.d.next = self.s3_port.q.val();
        self.s4_prio.d.next = self.s3_prio.q.val();
        self.s4_src.d.next = self.s3_src.q.val();
        self.s4_dst.d.next = self.s3_dst.q.val();
        self.s4_ts.d.next = self.s3_ts.q.val();
        self.s4_flow.d.next = self.s3_flow.q.val();
        self.s4_scale.d.next = self.s3_scale.q.val();
        self.s4_gate.d.next = self.s3_gate.q.val();
        self.s4_t_fb.d.next = self.s3_t_fb.q.val();

        // ---- Cycle n + 4: Fb x mantissa: the eight partial products (registered at n + 4)
        // reduced to two by a tree of carry-save adders (3 words -> sum and carry, no carry
        // chain), so that cycle n + 5 holds one carry chain. The words are exact: the product fits 40 bits. The entry the
        // RAM read at edge n + 4, into its output register.
        self.s5_entry.d.next = self.flows.read_data.val();
        self.s5_deadline.d.next = (self.s4_ts.q.val() - self.s4_t_fb.q.val()) & self.ts_mask.val();
        self.s5_wrapped.d.next = self.s4_ts.q.val() < self.s4_t_fb.q.val();
        self.csa_s1.next = self.s4_p0.q.val() ^ self.s4_p1.q.val() ^ self.s4_p2.q.val();
        self.csa_c1.next = ((self.s4_p0.q.val() & self.s4_p1.q.val())
            | (self.s4_p0.q.val() & self.s4_p2.q.val())
            | (self.s4_p1.q.val() & self.s4_p2.q.val()))
            << self.c1.val();
        self.csa_s2.next = self.s4_p3.q.val() ^ self.s4_p4.q.val() ^ self.s4_p5.q.val();
        self.csa_c2.next = ((self.s4_p3.q.val() & self.s4_p4.q.val())
            | (self.s4_p3.q.val() & self.s4_p5.q.val())
            | (self.s4_p4.q.val() & self.s4_p5.q.val()))
            << self.c1.val();
        self.csa_s3.next = self.csa_s1.val() ^ self.csa_c1.val() ^ self.csa_s2.val();
        self.csa_c3.next = ((self.csa_s1.val() & self.csa_c1.val())
            | (self.csa_s1.val() & self.csa_s2.val())
            | (self.csa_c1.val() & self.csa_s2.val()))
            << self.c1.val();
        self.csa_s4.next = self.csa_c2.val() ^ self.s4_p6.q.val() ^ self.s4_p7.q.val();
        self.csa_c4.next = ((self.csa_c2.val() & self.s4_p6.q.val())
            | (self.csa_c2.val() & self.s4_p7.q.val())
            | (self.s4_p6.q.val() & self.s4_p7.q.val()))
            << self.c1.val();
        self.csa_s5.next = self.csa_s3.val() ^ self.csa_c3.val() ^ self.csa_s4.val();
        self.csa_c5.next = ((self.csa_s3.val() & self.csa_c3.val())
            | (self.csa_s3.val() & self.csa_s4.val())
            | (self.csa_c3.val() & self.csa_s4.val()))
            << self.c1.val();
        self.s5_sum.d.next = self.csa_s5.val() ^ self.csa_c5.val() ^ self.csa_c4.val();
        self.s5_carry.d.next = ((self.csa_s5.val() & self.csa_c5.val())
            | (self.csa_s5.val() & self.csa_c4.val())
            | (self.csa_c5.val() & self.csa_c4.val()))
            << self.c1.val();
        self.scale_hi.next = self.s4_scale.q.val() >> 8;
        self.s5_shift.d.next = bit_cast::<8, 13>(self.scale_hi.val());
        self.s5_sampled.d.next = self.s4_sampled.q.val();
        self.s5_neg.d.next = self.s4_neg.q.val();
        self.s5_port.d.next = self.s4_port.q.val();
        self.s5_prio.d.next = self.s4_prio.q.val();
        self.s5_src.d.next = self.s4_src.q.val();
        self.s5_dst.d.next = self.s4_dst.q.val();
        self.s5_ts.d.next = self.s4_ts.q.val();
        self.s5_flow.d.next = self.s4_flow.q.val();
        self.s5_gate.d.next = self.s4_gate.q.val();
        self.s5_t_fb.d.next = self.s4_t_fb.q.val();

        // ---- Cycle n + 5: the product; the forwards' tests against the arrivals one to four
        // edges older (in s6 to s9).
        self.s6_prod.d.next = self.s5_sum.q.val() + self.s5_carry.q.val();
        self.s6_entry.d.next = self.s5_entry.q.val();
        self.s6_deadline.d.next = self.s5_deadline.q.val();
        self.s6_wrapped.d.next = self.s5_wrapped.q.val();
        self.after1.next = self.s6_ts.q.val() > self.s5_deadline.q.val();
        self.not_later1.next = !(self.s5_ts.q.val() < self.s6_ts.q.val());
        self.after2.next = self.s7_ts.q.val() > self.s5_deadline.q.val();
        self.not_later2.next = !(self.s5_ts.q.val() < self.s7_ts.q.val());
        self.after3.next = self.s8_ts.q.val() > self.s5_deadline.q.val();
        self.not_later3.next = !(self.s5_ts.q.val() < self.s8_ts.q.val());
        self.after4.next = self.s9_ts.q.val() > self.s5_deadline.q.val();
        self.not_later4.next = !(self.s5_ts.q.val() < self.s9_ts.q.val());
        if self.s5_wrapped.q.val() {
            self.in_window1.next = self.after1.val() | self.not_later1.val();
            self.in_window2.next = self.after2.val() | self.not_later2.val();
            self.in_window3.next = self.after3.val() | self.not_later3.val();
            self.in_window4.next = self.after4.val() | self.not_later4.val();
        } else {
            self.in_window1.next = self.after1.val() & self.not_later1.val();
            self.in_window2.next = self.after2.val() & self.not_later2.val();
            self.in_window3.next = self.after3.val() & self.not_later3.val();
            self.in_window4.next = self.after4.val() & self.not_later4.val();
        }
        self.s6_same_1.d.next = self.s6_flow.q.val() == self.s5_flow.q.val();
        self.s6_in_window_1.d.next = self.in_window1.val();
        self.s6_same_2.d.next = self.s7_flow.q.val() == self.s5_flow.q.val();
        self.s6_in_window_2.d.next = self.in_window2.val();
        self.hit3.next = self.s8_fbp.q.val() & (self.s8_flow.q.val() == self.s5_flow.q.val());
        self.hit4.next = self.s9_fbp.q.val() & (self.s9_flow.q.val() == self.s5_flow.q.val());
        self.s6_hit_34.d.next = self.hit3.val() | self.hit4.val();
        self.s6_allowed_34.d.next = !self.in_window4.val();
        if self.hit3.val() {
            self.s6_allowed_34.d.next = !self.in_window3.val();
        }
        self.s6_shift.d.next = self.s5_shift.q.val();
        // The shift is at most 31 (`fb_scale[12:8]`), so `64 << shift` fits 40 bits.
        self.s6_one_sh.d.next = self.one40.val() << bit_cast::<40, 8>(self.s5_shift.q.val());
        self.s6_top_sh.d.next = self.sixty_four40.val() << bit_cast::<40, 8>(self.s5_shift.q.val());
        self.s6_sampled.d.next = self.s5_sampled.q.val();
        self.s6_neg.d.next = self.s5_neg.q.val();
        self.s6_port.d.next = self.s5_port.q.val();
        self.s6_prio.d.next = self.s5_prio.q.val();
        self.s6_src.d.next = self.s5_src.q.val();
        self.s6_dst.d.next = self.s5_dst.q.val();
        self.s6_ts.d.next = self.s5_ts.q.val();
        self.s6_flow.d.next = self.s5_flow.q.val();
        self.s6_gate.d.next = self.s5_gate.q.val();
        self.s6_t_fb.d.next = self.s5_t_fb.q.val();

        // ---- Cycle n + 6: the quantiser's tests; the rate limit as the RAM's entry and the
        // decisions two, three and four edges older say (their writes, at n + 6, n + 5 and
        // n + 4, the read did not see).
        self.shifted.next = self.s6_prod.q.val() >> bit_cast::<40, 8>(self.s6_shift.q.val());
        self.s7_fb_low.d.next = bit_cast::<6, 40>(self.shifted.val());
        self.s7_clamp.d.next = !(self.s6_prod.q.val() < self.s6_top_sh.q.val());
        self.s7_nonzero.d.next = !(self.s6_prod.q.val() < self.s6_one_sh.q.val());
        // Fb < 0 quantises to 0.
        if self.s6_neg.q.val() {
            self.s7_fb_low.d.next = 0.into();
            self.s7_clamp.d.next = false;
            self.s7_nonzero.d.next = false;
        }
        // "Elapsed < T_fb" as a timestamp in the window (deadline, now]: two comparisons side
        // by side rather than a subtraction and then a comparison.
        self.entry_ts.next = self.s6_entry.q.val() >> 1;
        self.after.next = bit_cast::<32, 33>(self.entry_ts.val()) > self.s6_deadline.q.val();
        self.not_later.next = !(self.s6_ts.q.val() < bit_cast::<32, 33>(self.entry_ts.val()));
        if self.s6_wrapped.q.val() {
            self.in_window.next = self.after.val() | self.not_later.val();
        } else {
            self.in_window.next = self.after.val() & self.not_later.val();
        }
        self.s7_allowed_old.d.next = !self.s6_entry.q.val().get_bit(0) | !self.in_window.val();
        if self.s6_hit_34.q.val() {
            self.s7_allowed_old.d.next = self.s6_allowed_34.q.val();
        }
        // The decision two edges older is known at this cycle's start (in s8).
        if self.s8_fbp.q.val() & self.s6_same_2.q.val() {
            self.s7_allowed_old.d.next = !self.s6_in_window_2.q.val();
        }
        self.s7_same_flow.d.next = self.s6_same_1.q.val();
        self.s7_allowed_fwd.d.next = !self.s6_in_window_1.q.val();
        self.s7_sampled.d.next = self.s6_sampled.q.val();
        self.s7_port.d.next = self.s6_port.q.val();
        self.s7_prio.d.next = self.s6_prio.q.val();
        self.s7_src.d.next = self.s6_src.q.val();
        self.s7_dst.d.next = self.s6_dst.q.val();
        self.s7_ts.d.next = self.s6_ts.q.val();
        self.s7_flow.d.next = self.s6_flow.q.val();
        self.s7_gate.d.next = self.s6_gate.q.val();

        // ---- Cycle n + 7: Fb6, the gate and the rate limit (the decision one edge older if it
        // names the same entry, else the rest, prepared), then the entry's write.
        self.fb6.next = self.s7_fb_low.q.val();
        if self.s7_clamp.q.val() {
            self.fb6.next = 63.into();
        }
        self.allowed.next = self.s7_allowed_old.q.val();
        if self.s8_fbp.q.val() & self.s7_same_flow.q.val() {
            self.allowed.next = self.s7_allowed_fwd.q.val();
        }
        self.decide.next = self.s7_sampled.q.val()
            & self.allowed.val()
            & (!self.s7_gate.q.val() | self.s7_nonzero.q.val());
        self.flows.write_enable.next = self.decide.val();
        self.flows.write_address.next = self.s7_flow.q.val();
        self.flows.write_data.next =
            (bit_cast::<33, 32>(self.s7_ts.q.val()) << 1) | self.valid33.val();
        if !self.is_ready.q.val() {
            self.flows.write_enable.next = true;
            self.flows.write_address.next = bit_cast::<16, 17>(self.sweep.q.val());
            self.flows.write_data.next = 0.into();
        }

        // ---- Edge n + 8: the FBP. Its fields are registered whatever the decision and zeroed
        // at the outputs when there is none, so that `decide`, late in its cycle, drives one
        // flip-flop rather than the fields' registers' resets (a net of high fan-out).
        self.s8_fbp.d.next = self.decide.val();
        self.s8_ts.d.next = self.s7_ts.q.val();
        self.s8_flow.d.next = self.s7_flow.q.val();
        self.s9_fbp.d.next = self.s8_fbp.q.val();
        self.s9_ts.d.next = self.s8_ts.q.val();
        self.s9_flow.d.next = self.s8_flow.q.val();
        self.o_port.d.next = self.s7_port.q.val();
        self.o_prio.d.next = self.s7_prio.q.val();
        self.o_src.d.next = self.s7_dst.q.val();
        self.o_dst.d.next = self.s7_src.q.val();
        self.o_fb.d.next = self.fb6.val();
        self.fbp_valid.next = self.s8_fbp.q.val();
        self.fbp_port.next = 0.into();
        self.fbp_prio.next = 0.into();
        self.fbp_src.next = 0.into();
        self.fbp_dst.next = 0.into();
        self.fbp_fb.next = 0.into();
        if self.s8_fbp.q.val() {
            self.fbp_port.next = self.o_port.q.val();
            self.fbp_prio.next = self.o_prio.q.val();
            self.fbp_src.next = self.o_src.q.val();
            self.fbp_dst.next = self.o_dst.q.val();
            self.fbp_fb.next = self.o_fb.q.val();
        }

        // Synchronous reset.
        if self.reset.val() {
            self.lfsr.d.next = self.seed.val();
            self.pre.d.next = 0.into();
            self.ts.d.next = 0.into();
            self.sweep.d.next = 0.into();
            self.is_ready.d.next = false;
            self.sweep_below_k0.d.next = self.below_k0_at_0.val();
            self.sweep_at_top.d.next = self.at_top_at_0.val();
            self.sweep_in_pfb.d.next = true;
            self.sweep_last.d.next = self.last_at_0.val();
            self.quot.d.next = self.ramp_quot0.val();
            self.rem_plus_1.d.next = self.ramp_rem0_plus_1.val();
            self.rem_carry.d.next = self.ramp_carry0.val();
            self.rd_ready.d.next = false;
            self.r_valid.d.next = false;
            self.r_err.d.next = 0.into();
            self.s1_valid.d.next = false;
            self.s1_q_old_fwd.d.next = false;
            self.s2_sampled.d.next = false;
            self.s3_sampled.d.next = false;
            self.s4_sampled.d.next = false;
            self.s5_sampled.d.next = false;
            self.s6_sampled.d.next = false;
            self.s7_sampled.d.next = false;
            self.s8_fbp.d.next = false;
            self.s9_fbp.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ramp_generator_writes_the_reset_table() {
        for p in switchcraft_model::qcn::PRESETS {
            let c = QcnConfig::preset(p).unwrap();
            let r = PfbRamp::new(&c);
            r.check_fits();
            assert_eq!(r.values(c.pfb_entries.into()), c.pfb_table(), "{p}");
        }
        // Ramps of every shape: step, steep, shallow, past the table, from 0.
        let base = QcnConfig::preset("tiny").unwrap();
        for (q_min, q_max, shift) in [
            (0, 0, 0),
            (0, 255, 4),
            (10, 11, 0),
            (7, 200, 3),
            (100, 101, 8),
            (3, 3, 2),
            (250, 255, 0),
            (0, 1, 0),
        ] {
            let c = QcnConfig {
                q_min,
                q_max,
                pfb_shift: shift,
                ..base.clone()
            };
            let r = PfbRamp::new(&c);
            r.check_fits();
            assert_eq!(r.values(16), c.pfb_table(), "{q_min}..{q_max} >> {shift}");
        }
    }
}
