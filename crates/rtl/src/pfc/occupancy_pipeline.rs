//! Byte occupancy per key from an enqueue and a dequeue bus, II = 1 on both, with a loop of two
//! cycles: the pipelined RTL form of `switchcraft_model::pfc::Occupancy`, used by PFC's ingress.
//!
//! A key's next value depends on its last one, so the per-key recurrence is a loop no stage can
//! be put into. With one result per cycle, the loop held two carry chains' worth of logic and
//! bounded PFC's clock (docs/reports/loops.md). This module applies look-ahead: an event's
//! operand is its key's value after the event **two** edges older, and it applies the events
//! one edge older (its predecessor) and its own together. The composite of up to four
//! operations (the predecessor's dequeue and enqueue where they name the key, then the event's
//! own) is again piecewise "operand plus a constant": every test it makes is a comparison of the
//! operand with a bound computed from the events alone, and every result is the operand plus an
//! offset from the events alone, or a constant. So the loop is: compare and add in one cycle
//! (all chains side by side from the operand register), select in the next, and the selection
//! feeds the operand register of the event two edges younger.
//!
//! For a chain of operations on the operand `X` (the predecessor's dequeue L1 and enqueue L2,
//! zero where they name other keys; the event's dequeue L3 where it names the chain's key; its
//! enqueue L4 with MAX M on the enqueue's chain; M' the predecessor's MAX):
//! * `c1`: `X < L1` (the predecessor's dequeue empties the key; what follows is a constant);
//! * `g2`: `X > M' + L1 - L2` (the predecessor's enqueue is dropped);
//! * `c3`: `X < L1 - L2 + L3` (`X < L1 + L3` when dropped): the event's dequeue empties it;
//! * `g4`: `X > M - L4 + L3 + L1 - L2` (`... + L1` when dropped): the event's enqueue drops;
//! * the results: `X - (L1 - L2 + L3) + L4` and the like, one per path, or constants.
//!
//! The bounds are signed (`S` = max(W, L + 1) + 2 bits for lengths of L bits), and `X > B` is
//! the sign of `B - X`, so a test and, where they coincide, a result (`X - (L1 - L2 + L3)` is
//! both) are one chain.
//!
//! Stages (events sampled at edge n):
//! * edge n (input, `i_*`): the events; whether the event one edge older (its predecessor)
//!   names their keys (`i_p*`); whether the event two edges older writes them (`i_fwd_*`);
//!   whether those three and four edges older write them (`i_me*`, `i_md*`);
//! * cycle n: each event's own sums with its MAX: `M - L4`, `M + L3`, `L3 - L4` and so on;
//!   which stage will hold each key's newest value for the lookup (from those matches,
//!   registered, so the lookup's selects start from flip-flops);
//! * edge n + 1 (read, `r_*`): the keys address the RAMs;
//! * cycle n + 1: the bounds, offsets and constants, from the event's own sums and its
//!   predecessor's (a mux by the `i_p*` flags, then one carry chain each); the lookup of the
//!   operands in the write stages and the RAMs, an AND-OR by the registered hits;
//! * edge n + 2 (operand, `a_*`): the operands, from the lookup or, where the event two edges
//!   older writes the key, its result as it leaves the selection (the bypass);
//! * cycle n + 2: every test and every sum, side by side from the operand registers, and which
//!   result each path takes;
//! * edge n + 3 (select, `b_*`): the sums and one-hot selects (each a function of four tests
//!   at most, so one LUT level after the chains);
//! * cycle n + 3: the results (an AND-OR of the sums), on the outputs and, where the event two
//!   edges younger (now in the read stage) names the key, into its operand (the bypass);
//! * edge n + 4: the results to the write stage (`w_*`, and the memory's own write stage,
//!   which decodes each write's word one-hot for the live-value table);
//! * edge n + 5 (write): the RAMs and the live-value table take the writes; `w_*` moves to
//!   `x_*`.
//!
//! So a key's value reaches an event at every hazard distance: 1 through the look-ahead, 2
//! through the bypass, 3 and 4 through the lookup of `w_*` and `x_*`, 5 and more through the
//! RAMs. Storage is one [`Ram2W2R`] (two writes and two reads per cycle, in the target's
//! form), port A written by the enqueue path and port B by the dequeue path; after reset it
//! reads 0. When both buses hit one key, the combined result is written through port A only.

use crate::ram_2w2r::Ram2W2R;
use crate::tech::Tech;
use rust_hdl::prelude::*;

/// Occupancy of `K` keys addressed by `KB` bits, counters of `width` bits (at most 32), event
/// lengths of `length_bits` (at most 16; the length inputs' high bits are 0).
#[derive(LogicBlock)]
pub struct PipelinedOccupancy<const KB: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Events of edge n; the caller has already dropped those naming a key that does not exist.
    pub enq_valid: Signal<In, Bit>,
    pub enq_key: Signal<In, Bits<KB>>,
    pub enq_len: Signal<In, Bits<16>>,
    pub deq_valid: Signal<In, Bit>,
    pub deq_key: Signal<In, Bits<KB>>,
    pub deq_len: Signal<In, Bits<16>>,
    /// The MAX that applies to the events of edge n, as edge n leaves it (the CSR bank's
    /// `value_next`). At most the counter mask. Registered here: cycle n's sums start from a
    /// flip-flop placed beside them, not from the CSR bank (2.7 ns of routing on the ECP5).
    pub max_next: Signal<In, Bits<32>>,

    // Cycle n + 3: the events of edge n and what they do.
    pub e_valid: Signal<Out, Bit>,
    pub e_key: Signal<Out, Bits<KB>>,
    /// Occupancy after the enqueue (its base when dropped).
    pub e_b1: Signal<Out, Bits<32>>,
    pub e_drop: Signal<Out, Bit>,
    pub d_valid: Signal<Out, Bit>,
    pub d_key: Signal<Out, Bits<KB>>,
    /// Occupancy after the dequeue (0 when it underflowed).
    pub d_b1: Signal<Out, Bits<32>>,
    pub d_underflow: Signal<Out, Bit>,
    /// Both events are valid and name one key.
    pub same_key: Signal<Out, Bit>,

    /// The counter width's mask, and the signed width's (`S` bits) and its sign bit's index.
    mask: Constant<Bits<32>>,
    mask_s: Constant<Bits<34>>,
    sign_at: Constant<Bits<34>>,
    one_s: Constant<Bits<34>>,

    // ---- Input stage (edge n). Lengths are 0 for an idle bus, so that an absent operation is
    // a zero-length one, which changes nothing.
    i_e_valid: DFF<Bit>,
    i_e_key: DFF<Bits<KB>>,
    i_e_len: DFF<Bits<16>>,
    i_d_valid: DFF<Bit>,
    i_d_key: DFF<Bits<KB>>,
    i_d_len: DFF<Bits<16>>,
    i_same: DFF<Bit>,
    /// The predecessor's dequeue (1) and enqueue (2) name this event's enqueue key (`pe`), its
    /// dequeue key (`pd`).
    i_pe1: DFF<Bit>,
    i_pe2: DFF<Bit>,
    i_pd1: DFF<Bit>,
    i_pd2: DFF<Bit>,
    /// The event two edges older writes this event's enqueue key by its enqueue (`ee`, or its
    /// same-key pair) or by its dequeue (`ed`); the same for the dequeue key.
    i_fwd_ee: DFF<Bit>,
    i_fwd_ed: DFF<Bit>,
    i_fwd_de: DFF<Bit>,
    i_fwd_dd: DFF<Bit>,
    i_fwd_e: DFF<Bit>,
    i_fwd_d: DFF<Bit>,
    /// The keys the lookup will find in the write stage (the event three edges older's
    /// enqueue, `*we`, and dequeue when it writes, `*wd`) and in the written stage (four edges
    /// older, `*xe`, `*xd`), for this event's enqueue key (`i_me*`) and dequeue key (`i_md*`).
    i_me_we: DFF<Bit>,
    i_me_wd: DFF<Bit>,
    i_me_xe: DFF<Bit>,
    i_me_xd: DFF<Bit>,
    i_md_we: DFF<Bit>,
    i_md_wd: DFF<Bit>,
    i_md_xe: DFF<Bit>,
    i_md_xd: DFF<Bit>,

    // Cycle n: the event's own sums (signed, `S` bits).
    max_w: Signal<Local, Bits<32>>,
    e_s: Signal<Local, Bits<34>>,
    d_s: Signal<Local, Bits<34>>,
    m_s: Signal<Local, Bits<34>>,
    /// `M + d - e` in carry-save form, then one chain.
    csa_sum: Signal<Local, Bits<34>>,
    csa_carry: Signal<Local, Bits<34>>,
    /// The dequeue's length when the two operations name one key, else 0, and the sums of
    /// the chain's predecessor terms with it (the choice before the carry chains, not after).
    d_same: Signal<Local, Bits<34>>,
    csa_sum_same: Signal<Local, Bits<34>>,
    csa_carry_same: Signal<Local, Bits<34>>,
    m_de: Signal<Local, Bits<34>>,
    m_d: Signal<Local, Bits<34>>,
    m_e: Signal<Local, Bits<34>>,
    d_m_e: Signal<Local, Bits<34>>,
    n_e: Signal<Local, Bits<34>>,
    m_e_sign_wide: Signal<Local, Bits<34>>,
    len_over: Signal<Local, Bit>,

    // ---- Read stage (edge n + 1).
    r_e_valid: DFF<Bit>,
    r_e_key: DFF<Bits<KB>>,
    r_e_len: DFF<Bits<16>>,
    r_d_valid: DFF<Bit>,
    r_d_key: DFF<Bits<KB>>,
    r_d_s: DFF<Bits<34>>,
    r_same: DFF<Bit>,
    r_pe1: DFF<Bit>,
    r_pe2: DFF<Bit>,
    r_pd1: DFF<Bit>,
    r_pd2: DFF<Bit>,
    r_fwd_ee: DFF<Bit>,
    r_fwd_ed: DFF<Bit>,
    r_fwd_de: DFF<Bit>,
    r_fwd_dd: DFF<Bit>,
    r_fwd_e: DFF<Bit>,
    r_fwd_d: DFF<Bit>,
    /// As a predecessor: `M`, `M + d - e`, `M + d`, `M - e`, `d - e`, `-e`, and the enqueue's
    /// length where it alone fits under `M` (else 0).
    r_m: DFF<Bits<34>>,
    r_m_de: DFF<Bits<34>>,
    r_m_d: DFF<Bits<34>>,
    r_m_e: DFF<Bits<34>>,
    r_d_m_e: DFF<Bits<34>>,
    r_n_e: DFF<Bits<34>>,
    r_e_only: DFF<Bits<32>>,
    r_len_over: DFF<Bit>,
    /// As the event, on its enqueue chain: `M - L4 + L3`, `L3 - L4` and `L3` (L3 = the dequeue's
    /// length when both name one key, else 0).
    /// The MAX of cycle n (see `max_next`).
    max_r: DFF<Bits<32>>,
    r_p4: DFF<Bits<34>>,
    r_r4: DFF<Bits<34>>,
    r_l3e: DFF<Bits<34>>,

    // Cycle n + 1: the bounds of the enqueue chain (`*e`) and the dequeue chain (`*d`).
    b2e: Signal<Local, Bits<34>>,
    v13e: Signal<Local, Bits<34>>,
    v1e: Signal<Local, Bits<34>>,
    v2e: Signal<Local, Bits<32>>,
    b2d: Signal<Local, Bits<34>>,
    v13d: Signal<Local, Bits<34>>,
    v1d: Signal<Local, Bits<34>>,
    v2d: Signal<Local, Bits<32>>,
    /// The constants after the predecessor's dequeue empties the key: its enqueue onto 0, then
    /// the event's dequeue (`k1*_diff`, clamped).
    k1e_diff: Signal<Local, Bits<34>>,
    k1e_sign_wide: Signal<Local, Bits<34>>,
    k1d_diff: Signal<Local, Bits<34>>,
    k1d_sign_wide: Signal<Local, Bits<34>>,
    // Cycle n: which stage holds the newest value of each event's key that the RAM read of
    // cycle n + 1 will not see (`*_hit_w*`: the select stage now, the write stage then;
    // `*_hit_x*`: the write stage now, the written stage then), by the enqueue (`*e`) or the
    // dequeue (`*d`) result. Registered, so the lookup's selects come from flip-flops.
    e_hit_we: Signal<Local, Bit>,
    e_hit_wd: Signal<Local, Bit>,
    e_hit_xe: Signal<Local, Bit>,
    e_hit_xd: Signal<Local, Bit>,
    d_hit_we: Signal<Local, Bit>,
    d_hit_wd: Signal<Local, Bit>,
    d_hit_xe: Signal<Local, Bit>,
    d_hit_xd: Signal<Local, Bit>,
    r_e_hit_we: DFF<Bit>,
    r_e_hit_wd: DFF<Bit>,
    r_e_hit_xe: DFF<Bit>,
    r_e_hit_xd: DFF<Bit>,
    /// Neither a stage nor the bypass has the key's value: the RAM's read data has it.
    r_e_no_hit: DFF<Bit>,
    r_d_hit_we: DFF<Bit>,
    r_d_hit_wd: DFF<Bit>,
    r_d_hit_xe: DFF<Bit>,
    r_d_hit_xd: DFF<Bit>,
    r_d_no_hit: DFF<Bit>,
    // Cycle n + 1: the lookup of the operands.
    r_e_from_ram: Signal<Local, Bit>,
    r_d_from_ram: Signal<Local, Bit>,
    r_e_b_w: Signal<Local, Bits<32>>,
    r_e_b_x: Signal<Local, Bits<32>>,
    r_e_b_ram: Signal<Local, Bits<32>>,
    r_d_b_w: Signal<Local, Bits<32>>,
    r_d_b_x: Signal<Local, Bits<32>>,
    r_d_b_ram: Signal<Local, Bits<32>>,
    /// The read stage's dequeue writes bank D (its key is not the enqueue's).
    r_d_write: Signal<Local, Bit>,

    // ---- Operand stage (edge n + 2).
    a_e_valid: DFF<Bit>,
    a_e_key: DFF<Bits<KB>>,
    a_e_len: DFF<Bits<32>>,
    a_d_valid: DFF<Bit>,
    a_d_key: DFF<Bits<KB>>,
    a_d_s: DFF<Bits<34>>,
    a_same: DFF<Bit>,
    a_x_e: DFF<Bits<32>>,
    a_x_d: DFF<Bits<32>>,
    // The predecessor's sums, for the event one edge younger (now in the read stage).
    a_m: DFF<Bits<34>>,
    a_m_de: DFF<Bits<34>>,
    a_m_d: DFF<Bits<34>>,
    a_m_e: DFF<Bits<34>>,
    a_d_m_e: DFF<Bits<34>>,
    a_n_e: DFF<Bits<34>>,
    a_e_only: DFF<Bits<32>>,
    a_len_over: DFF<Bit>,
    // The bounds (enqueue chain): `L1`, `M' + L1 - L2`, `L1 - L2 + L3`, `L1 + L3`,
    // `M - L4 + L3 + L1 - L2`, `M - L4 + L3 + L1`, `L1 - L2 + L3 - L4`, `L1 + L3 - L4`.
    a_b1e: DFF<Bits<34>>,
    a_b2e: DFF<Bits<34>>,
    a_b3ae: DFF<Bits<34>>,
    a_b3be: DFF<Bits<34>>,
    a_b4ae: DFF<Bits<34>>,
    a_b4be: DFF<Bits<34>>,
    a_dae: DFF<Bits<34>>,
    a_dbe: DFF<Bits<34>>,
    /// The value after the predecessor's dequeue emptied the key and the event's dequeue.
    a_k1e_v3: DFF<Bits<32>>,
    // The bounds (dequeue chain): `L1`, `M' + L1 - L2`, `L1 - L2 + L3`, `L1 + L3`.
    a_b1d: DFF<Bits<34>>,
    a_b2d: DFF<Bits<34>>,
    a_b3ad: DFF<Bits<34>>,
    a_b3bd: DFF<Bits<34>>,
    a_k1d_v3: DFF<Bits<32>>,
    a_k1d_u3: DFF<Bit>,

    // Cycle n + 2: the tests and sums, from the operand registers.
    x_e_s: Signal<Local, Bits<34>>,
    x_d_s: Signal<Local, Bits<34>>,
    t1e: Signal<Local, Bits<34>>,
    t2e: Signal<Local, Bits<34>>,
    t3ae: Signal<Local, Bits<34>>,
    t3be: Signal<Local, Bits<34>>,
    t4ae: Signal<Local, Bits<34>>,
    t4be: Signal<Local, Bits<34>>,
    t1e_sign_wide: Signal<Local, Bits<34>>,
    t2e_sign_wide: Signal<Local, Bits<34>>,
    t3ae_sign_wide: Signal<Local, Bits<34>>,
    t3be_sign_wide: Signal<Local, Bits<34>>,
    t4ae_sign_wide: Signal<Local, Bits<34>>,
    t4be_sign_wide: Signal<Local, Bits<34>>,
    aa_wide: Signal<Local, Bits<34>>,
    ba_wide: Signal<Local, Bits<34>>,
    s_aa: Signal<Local, Bits<32>>,
    s_ba: Signal<Local, Bits<32>>,
    t5e: Signal<Local, Bits<34>>,
    t5e_sign_wide: Signal<Local, Bits<34>>,
    k1e_drop: Signal<Local, Bit>,
    k1e_v4: Signal<Local, Bits<32>>,
    t1d: Signal<Local, Bits<34>>,
    t2d: Signal<Local, Bits<34>>,
    t3ad: Signal<Local, Bits<34>>,
    t3bd: Signal<Local, Bits<34>>,
    t1d_sign_wide: Signal<Local, Bits<34>>,
    t2d_sign_wide: Signal<Local, Bits<34>>,
    t3ad_sign_wide: Signal<Local, Bits<34>>,
    t3bd_sign_wide: Signal<Local, Bits<34>>,
    c1e: Signal<Local, Bit>,
    g2e: Signal<Local, Bit>,
    c3ae: Signal<Local, Bit>,
    c3be: Signal<Local, Bit>,
    g4ae: Signal<Local, Bit>,
    g4be: Signal<Local, Bit>,
    c1d: Signal<Local, Bit>,
    g2d: Signal<Local, Bit>,
    c3ad: Signal<Local, Bit>,
    c3bd: Signal<Local, Bit>,
    // One-hot: which result each chain takes, each a function of four tests at most (one
    // LUT level after the chains).
    sel_k1e: Signal<Local, Bit>,
    sel_k3e: Signal<Local, Bit>,
    sel_aa: Signal<Local, Bit>,
    sel_ab: Signal<Local, Bit>,
    sel_ba: Signal<Local, Bit>,
    sel_bb: Signal<Local, Bit>,
    sel_k1d: Signal<Local, Bit>,
    sel_abd: Signal<Local, Bit>,
    sel_bbd: Signal<Local, Bit>,
    /// The dequeue chain's result is 0 (its dequeue emptied the key).
    sel_zd: Signal<Local, Bit>,

    // ---- Select stage (edge n + 3).
    b_e_valid: DFF<Bit>,
    b_e_key: DFF<Bits<KB>>,
    b_d_valid: DFF<Bit>,
    b_d_key: DFF<Bits<KB>>,
    b_same: DFF<Bit>,
    // The candidate results.
    b_k1e: DFF<Bits<32>>,
    b_k3e: DFF<Bits<32>>,
    b_s_aa: DFF<Bits<32>>,
    b_s_ab: DFF<Bits<32>>,
    b_s_ba: DFF<Bits<32>>,
    b_s_bb: DFF<Bits<32>>,
    b_k1d: DFF<Bits<32>>,
    b_s_abd: DFF<Bits<32>>,
    b_s_bbd: DFF<Bits<32>>,
    // The selects of the results.
    b_sel_k1e: DFF<Bit>,
    b_sel_k3e: DFF<Bit>,
    b_sel_aa: DFF<Bit>,
    b_sel_ab: DFF<Bit>,
    b_sel_ba: DFF<Bit>,
    b_sel_bb: DFF<Bit>,
    b_sel_k1d: DFF<Bit>,
    b_sel_abd: DFF<Bit>,
    b_sel_bbd: DFF<Bit>,
    b_sel_zd: DFF<Bit>,
    // What the flags need beside the selects.
    b_k1e_drop: DFF<Bit>,
    b_len_over: DFF<Bit>,
    b_k1d_u3: DFF<Bit>,
    // Cycle n + 3: the results and the bypass.
    e_res: Signal<Local, Bits<32>>,
    d_res: Signal<Local, Bits<32>>,
    e_fwd: Signal<Local, Bits<32>>,
    d_fwd: Signal<Local, Bits<32>>,
    e_flag: Signal<Local, Bit>,
    d_flag: Signal<Local, Bit>,

    // ---- Write stage (edge n + 4): the results, written to the RAMs at the next edge.
    w_e_valid: DFF<Bit>,
    w_e_key: DFF<Bits<KB>>,
    /// The enqueue's result (a same-key pair's, when the dequeue named its key).
    w_e_val: DFF<Bits<32>>,
    w_d_write: DFF<Bit>,
    w_d_key: DFF<Bits<KB>>,
    w_d_val: DFF<Bits<32>>,
    // Written stage: what the RAMs took at the last edge (not yet readable by that edge's reads).
    x_e_valid: DFF<Bit>,
    x_e_key: DFF<Bits<KB>>,
    x_e_val: DFF<Bits<32>>,
    x_d_write: DFF<Bit>,
    x_d_key: DFF<Bits<KB>>,
    x_d_val: DFF<Bits<32>>,
    ram: Ram2W2R<KB, 32>,
}

impl<const KB: usize, const K: usize> PipelinedOccupancy<KB, K> {
    pub fn new(width: usize, length_bits: usize, tech: Tech) -> Self {
        assert_eq!(1 << KB, K);
        assert!((1..=32).contains(&width) && (1..=16).contains(&length_bits));
        // With lengths below 2^L, bounds range over (-2^(L+1), 2^W + 2^(L+1)) and operands
        // over [0, 2^W): their differences fit `S` = max(W, L + 1) + 2 signed bits.
        let signed_bits = width.max(length_bits + 1) + 2;
        PipelinedOccupancy {
            mask: Constant::new(crate::narrow_ram::low_bits(width)),
            mask_s: Constant::new(crate::narrow_ram::low_bits(signed_bits)),
            sign_at: Constant::new((signed_bits as u64 - 1).into()),
            one_s: Constant::new(1.into()),
            ram: Ram2W2R::new(width, tech)
                .with_write_stage()
                .with_early_select(),
            clock: Default::default(),
            reset: Default::default(),
            enq_valid: Default::default(),
            enq_key: Default::default(),
            enq_len: Default::default(),
            deq_valid: Default::default(),
            deq_key: Default::default(),
            deq_len: Default::default(),
            max_next: Default::default(),
            e_valid: Default::default(),
            e_key: Default::default(),
            e_b1: Default::default(),
            e_drop: Default::default(),
            d_valid: Default::default(),
            d_key: Default::default(),
            d_b1: Default::default(),
            d_underflow: Default::default(),
            same_key: Default::default(),
            i_e_valid: Default::default(),
            i_e_key: Default::default(),
            i_e_len: Default::default(),
            i_d_valid: Default::default(),
            i_d_key: Default::default(),
            i_d_len: Default::default(),
            i_same: Default::default(),
            i_pe1: Default::default(),
            i_pe2: Default::default(),
            i_pd1: Default::default(),
            i_pd2: Default::default(),
            i_fwd_ee: Default::default(),
            i_fwd_ed: Default::default(),
            i_fwd_de: Default::default(),
            i_fwd_dd: Default::default(),
            i_fwd_e: Default::default(),
            i_fwd_d: Default::default(),
            i_me_we: Default::default(),
            i_me_wd: Default::default(),
            i_me_xe: Default::default(),
            i_me_xd: Default::default(),
            i_md_we: Default::default(),
            i_md_wd: Default::default(),
            i_md_xe: Default::default(),
            i_md_xd: Default::default(),
            max_w: Default::default(),
            e_s: Default::default(),
            d_s: Default::default(),
            m_s: Default::default(),
            csa_sum: Default::default(),
            csa_carry: Default::default(),
            d_same: Default::default(),
            csa_sum_same: Default::default(),
            csa_carry_same: Default::default(),
            m_de: Default::default(),
            m_d: Default::default(),
            m_e: Default::default(),
            d_m_e: Default::default(),
            n_e: Default::default(),
            m_e_sign_wide: Default::default(),
            len_over: Default::default(),
            r_e_valid: Default::default(),
            r_e_key: Default::default(),
            r_e_len: Default::default(),
            r_d_valid: Default::default(),
            r_d_key: Default::default(),
            r_d_s: Default::default(),
            r_same: Default::default(),
            r_pe1: Default::default(),
            r_pe2: Default::default(),
            r_pd1: Default::default(),
            r_pd2: Default::default(),
            r_fwd_ee: Default::default(),
            r_fwd_ed: Default::default(),
            r_fwd_de: Default::default(),
            r_fwd_dd: Default::default(),
            r_fwd_e: Default::default(),
            r_fwd_d: Default::default(),
            r_m: Default::default(),
            r_m_de: Default::default(),
            r_m_d: Default::default(),
            r_m_e: Default::default(),
            r_d_m_e: Default::default(),
            r_n_e: Default::default(),
            r_e_only: Default::default(),
            r_len_over: Default::default(),
            max_r: Default::default(),
            r_p4: Default::default(),
            r_r4: Default::default(),
            r_l3e: Default::default(),
            b2e: Default::default(),
            v13e: Default::default(),
            v1e: Default::default(),
            v2e: Default::default(),
            b2d: Default::default(),
            v13d: Default::default(),
            v1d: Default::default(),
            v2d: Default::default(),
            k1e_diff: Default::default(),
            k1e_sign_wide: Default::default(),
            k1d_diff: Default::default(),
            k1d_sign_wide: Default::default(),
            e_hit_we: Default::default(),
            e_hit_wd: Default::default(),
            e_hit_xe: Default::default(),
            e_hit_xd: Default::default(),
            d_hit_we: Default::default(),
            d_hit_wd: Default::default(),
            d_hit_xe: Default::default(),
            d_hit_xd: Default::default(),
            r_e_no_hit: Default::default(),
            r_d_no_hit: Default::default(),
            r_e_hit_we: Default::default(),
            r_e_hit_wd: Default::default(),
            r_e_hit_xe: Default::default(),
            r_e_hit_xd: Default::default(),
            r_e_from_ram: Default::default(),
            r_d_hit_we: Default::default(),
            r_d_hit_wd: Default::default(),
            r_d_hit_xe: Default::default(),
            r_d_hit_xd: Default::default(),
            r_d_from_ram: Default::default(),
            r_e_b_w: Default::default(),
            r_e_b_x: Default::default(),
            r_e_b_ram: Default::default(),
            r_d_b_w: Default::default(),
            r_d_b_x: Default::default(),
            r_d_b_ram: Default::default(),
            r_d_write: Default::default(),
            a_e_valid: Default::default(),
            a_e_key: Default::default(),
            a_e_len: Default::default(),
            a_d_valid: Default::default(),
            a_d_key: Default::default(),
            a_d_s: Default::default(),
            a_same: Default::default(),
            a_x_e: Default::default(),
            a_x_d: Default::default(),
            a_m: Default::default(),
            a_m_de: Default::default(),
            a_m_d: Default::default(),
            a_m_e: Default::default(),
            a_d_m_e: Default::default(),
            a_n_e: Default::default(),
            a_e_only: Default::default(),
            a_len_over: Default::default(),
            a_b1e: Default::default(),
            a_b2e: Default::default(),
            a_b3ae: Default::default(),
            a_b3be: Default::default(),
            a_b4ae: Default::default(),
            a_b4be: Default::default(),
            a_dae: Default::default(),
            a_dbe: Default::default(),
            a_k1e_v3: Default::default(),
            a_b1d: Default::default(),
            a_b2d: Default::default(),
            a_b3ad: Default::default(),
            a_b3bd: Default::default(),
            a_k1d_v3: Default::default(),
            a_k1d_u3: Default::default(),
            x_e_s: Default::default(),
            x_d_s: Default::default(),
            t1e: Default::default(),
            t2e: Default::default(),
            t3ae: Default::default(),
            t3be: Default::default(),
            t4ae: Default::default(),
            t4be: Default::default(),
            t1e_sign_wide: Default::default(),
            t2e_sign_wide: Default::default(),
            t3ae_sign_wide: Default::default(),
            t3be_sign_wide: Default::default(),
            t4ae_sign_wide: Default::default(),
            t4be_sign_wide: Default::default(),
            aa_wide: Default::default(),
            ba_wide: Default::default(),
            s_aa: Default::default(),
            s_ba: Default::default(),
            t5e: Default::default(),
            t5e_sign_wide: Default::default(),
            k1e_drop: Default::default(),
            k1e_v4: Default::default(),
            t1d: Default::default(),
            t2d: Default::default(),
            t3ad: Default::default(),
            t3bd: Default::default(),
            t1d_sign_wide: Default::default(),
            t2d_sign_wide: Default::default(),
            t3ad_sign_wide: Default::default(),
            t3bd_sign_wide: Default::default(),
            c1e: Default::default(),
            g2e: Default::default(),
            c3ae: Default::default(),
            c3be: Default::default(),
            g4ae: Default::default(),
            g4be: Default::default(),
            c1d: Default::default(),
            g2d: Default::default(),
            c3ad: Default::default(),
            c3bd: Default::default(),
            sel_k1e: Default::default(),
            sel_k3e: Default::default(),
            sel_aa: Default::default(),
            sel_ab: Default::default(),
            sel_ba: Default::default(),
            sel_bb: Default::default(),
            sel_k1d: Default::default(),
            sel_abd: Default::default(),
            sel_bbd: Default::default(),
            sel_zd: Default::default(),
            b_e_valid: Default::default(),
            b_e_key: Default::default(),
            b_d_valid: Default::default(),
            b_d_key: Default::default(),
            b_same: Default::default(),
            b_k1e: Default::default(),
            b_k3e: Default::default(),
            b_s_aa: Default::default(),
            b_s_ab: Default::default(),
            b_s_ba: Default::default(),
            b_s_bb: Default::default(),
            b_k1d: Default::default(),
            b_s_abd: Default::default(),
            b_s_bbd: Default::default(),
            b_sel_k1e: Default::default(),
            b_sel_k3e: Default::default(),
            b_sel_aa: Default::default(),
            b_sel_ab: Default::default(),
            b_sel_ba: Default::default(),
            b_sel_bb: Default::default(),
            b_sel_k1d: Default::default(),
            b_sel_abd: Default::default(),
            b_sel_bbd: Default::default(),
            b_sel_zd: Default::default(),
            b_k1e_drop: Default::default(),
            b_len_over: Default::default(),
            b_k1d_u3: Default::default(),
            e_res: Default::default(),
            d_res: Default::default(),
            e_fwd: Default::default(),
            d_fwd: Default::default(),
            e_flag: Default::default(),
            d_flag: Default::default(),
            w_e_valid: Default::default(),
            w_e_key: Default::default(),
            w_e_val: Default::default(),
            w_d_write: Default::default(),
            w_d_key: Default::default(),
            w_d_val: Default::default(),
            x_e_valid: Default::default(),
            x_e_key: Default::default(),
            x_e_val: Default::default(),
            x_d_write: Default::default(),
            x_d_key: Default::default(),
            x_d_val: Default::default(),
        }
    }
}

impl<const KB: usize, const K: usize> Logic for PipelinedOccupancy<KB, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, i_e_valid, i_e_key, i_e_len, i_d_valid, i_d_key, i_d_len, i_same, i_pe1,
            i_pe2, i_pd1, i_pd2, i_fwd_ee, i_fwd_ed, i_fwd_de, i_fwd_dd, i_fwd_e, i_fwd_d, i_me_we,
            i_me_wd, i_me_xe, i_me_xd, i_md_we, i_md_wd, i_md_xe, i_md_xd, r_e_valid, r_e_key,
            r_e_len, r_d_valid, r_d_key, r_d_s, r_same, r_pe1, r_pe2, r_pd1, r_pd2, r_e_hit_we,
            r_e_hit_wd, r_e_hit_xe, r_e_hit_xd, r_e_no_hit, r_d_hit_we, r_d_hit_wd, r_d_hit_xe,
            r_d_hit_xd, r_d_no_hit, r_fwd_ee, r_fwd_ed, r_fwd_de, r_fwd_dd, r_fwd_e, r_fwd_d, r_m,
            r_m_de, r_m_d, r_m_e, r_d_m_e, r_n_e, r_e_only, r_len_over, max_r, r_p4, r_r4, r_l3e,
            a_e_valid, a_e_key, a_e_len, a_d_valid, a_d_key, a_d_s, a_same, a_x_e, a_x_d, a_m,
            a_m_de, a_m_d, a_m_e, a_d_m_e, a_n_e, a_e_only, a_len_over, a_b1e, a_b2e, a_b3ae,
            a_b3be, a_b4ae, a_b4be, a_dae, a_dbe, a_k1e_v3, a_b1d, a_b2d, a_b3ad, a_b3bd, a_k1d_v3,
            a_k1d_u3, b_e_valid, b_e_key, b_d_valid, b_d_key, b_same, b_k1e, b_k3e, b_s_aa, b_s_ab,
            b_s_ba, b_s_bb, b_k1d, b_s_abd, b_s_bbd, b_sel_k1e, b_sel_k3e, b_sel_aa, b_sel_ab,
            b_sel_ba, b_sel_bb, b_sel_k1d, b_sel_abd, b_sel_bbd, b_sel_zd, b_k1e_drop, b_len_over,
            b_k1d_u3, w_e_valid, w_e_key, w_e_val, w_d_write, w_d_key, w_d_val, x_e_valid, x_e_key,
            x_e_val, x_d_write, x_d_key, x_d_val
        );
        self.ram.clock.next = self.clock.val();
        self.ram.reset.next = self.reset.val();

        // ---- Edge n (input): the events, and how they relate to the two older ones.
        self.i_e_valid.d.next = self.enq_valid.val();
        self.i_e_key.d.next = self.enq_key.val();
        self.i_e_len.d.next = 0.into();
        if self.enq_valid.val() {
            self.i_e_len.d.next = self.enq_len.val();
        }
        self.i_d_valid.d.next = self.deq_valid.val();
        self.i_d_key.d.next = self.deq_key.val();
        self.i_d_len.d.next = 0.into();
        if self.deq_valid.val() {
            self.i_d_len.d.next = self.deq_len.val();
        }
        self.i_same.d.next = self.enq_valid.val()
            & self.deq_valid.val()
            & (self.enq_key.val() == self.deq_key.val());
        // The predecessor is in the input stage now.
        self.i_pe1.d.next = self.i_d_valid.q.val() & (self.i_d_key.q.val() == self.enq_key.val());
        self.i_pe2.d.next = self.i_e_valid.q.val() & (self.i_e_key.q.val() == self.enq_key.val());
        self.i_pd1.d.next = self.i_d_valid.q.val() & (self.i_d_key.q.val() == self.deq_key.val());
        self.i_pd2.d.next = self.i_e_valid.q.val() & (self.i_e_key.q.val() == self.deq_key.val());
        // The event two edges older is in the read stage: its enqueue (or same-key pair) wins
        // over its dequeue, whose key is then the same.
        self.r_d_write.next = self.r_d_valid.q.val() & !self.r_same.q.val();
        self.i_fwd_ee.d.next =
            self.r_e_valid.q.val() & (self.r_e_key.q.val() == self.enq_key.val());
        self.i_fwd_ed.d.next = !self.i_fwd_ee.d.val()
            & self.r_d_write.val()
            & (self.r_d_key.q.val() == self.enq_key.val());
        self.i_fwd_de.d.next =
            self.r_e_valid.q.val() & (self.r_e_key.q.val() == self.deq_key.val());
        self.i_fwd_dd.d.next = !self.i_fwd_de.d.val()
            & self.r_d_write.val()
            & (self.r_d_key.q.val() == self.deq_key.val());
        self.i_fwd_e.d.next = self.i_fwd_ee.d.val() | self.i_fwd_ed.d.val();
        self.i_fwd_d.d.next = self.i_fwd_de.d.val() | self.i_fwd_dd.d.val();
        // The events three and four edges older are in the operand and select stages: the
        // stages they will be in when this event's lookup runs are the write and written ones.
        self.i_me_we.d.next = self.a_e_valid.q.val() & (self.a_e_key.q.val() == self.enq_key.val());
        self.i_me_wd.d.next = self.a_d_valid.q.val()
            & !self.a_same.q.val()
            & (self.a_d_key.q.val() == self.enq_key.val());
        self.i_me_xe.d.next = self.b_e_valid.q.val() & (self.b_e_key.q.val() == self.enq_key.val());
        self.i_me_xd.d.next = self.b_d_valid.q.val()
            & !self.b_same.q.val()
            & (self.b_d_key.q.val() == self.enq_key.val());
        self.i_md_we.d.next = self.a_e_valid.q.val() & (self.a_e_key.q.val() == self.deq_key.val());
        self.i_md_wd.d.next = self.a_d_valid.q.val()
            & !self.a_same.q.val()
            & (self.a_d_key.q.val() == self.deq_key.val());
        self.i_md_xe.d.next = self.b_e_valid.q.val() & (self.b_e_key.q.val() == self.deq_key.val());
        self.i_md_xd.d.next = self.b_d_valid.q.val()
            & !self.b_same.q.val()
            & (self.b_d_key.q.val() == self.deq_key.val());

        // ---- Cycle n: the event's own sums with the MAX of its edge.
        self.e_s.next = bit_cast::<34, 16>(self.i_e_len.q.val());
        self.d_s.next = bit_cast::<34, 16>(self.i_d_len.q.val());
        self.max_r.d.next = self.max_next.val();
        self.max_w.next = self.max_r.q.val() & self.mask.val();
        self.m_s.next = bit_cast::<34, 32>(self.max_w.val());
        // M + d + !e + 1, the +1 as the carry vector's bit 0.
        self.csa_sum.next = self.m_s.val() ^ self.d_s.val() ^ !self.e_s.val();
        self.csa_carry.next = (((self.m_s.val() & self.d_s.val())
            | (self.m_s.val() & !self.e_s.val())
            | (self.d_s.val() & !self.e_s.val()))
            << 1)
            | self.one_s.val();
        self.m_de.next = (self.csa_sum.val() + self.csa_carry.val()) & self.mask_s.val();
        self.m_d.next = (self.m_s.val() + self.d_s.val()) & self.mask_s.val();
        self.m_e.next = (self.m_s.val() - self.e_s.val()) & self.mask_s.val();
        self.d_m_e.next = (self.d_s.val() - self.e_s.val()) & self.mask_s.val();
        self.n_e.next = (self.mask_s.val() - self.e_s.val() + self.one_s.val()) & self.mask_s.val();
        self.m_e_sign_wide.next = self.m_e.val() >> self.sign_at.val();
        self.len_over.next = self.m_e_sign_wide.val().get_bit(0);

        // ---- Edge n + 1 (read): the keys address the RAMs.
        self.r_e_valid.d.next = self.i_e_valid.q.val();
        self.r_e_key.d.next = self.i_e_key.q.val();
        self.r_e_len.d.next = self.i_e_len.q.val();
        self.r_d_valid.d.next = self.i_d_valid.q.val();
        self.r_d_key.d.next = self.i_d_key.q.val();
        self.r_d_s.d.next = self.d_s.val();
        self.r_same.d.next = self.i_same.q.val();
        self.r_pe1.d.next = self.i_pe1.q.val();
        self.r_pe2.d.next = self.i_pe2.q.val();
        self.r_pd1.d.next = self.i_pd1.q.val();
        self.r_pd2.d.next = self.i_pd2.q.val();
        self.r_fwd_ee.d.next = self.i_fwd_ee.q.val();
        self.r_fwd_ed.d.next = self.i_fwd_ed.q.val();
        self.r_fwd_de.d.next = self.i_fwd_de.q.val();
        self.r_fwd_dd.d.next = self.i_fwd_dd.q.val();
        self.r_fwd_e.d.next = self.i_fwd_e.q.val();
        self.r_fwd_d.d.next = self.i_fwd_d.q.val();
        self.r_m.d.next = self.m_s.val();
        self.r_m_de.d.next = self.m_de.val();
        self.r_m_d.d.next = self.m_d.val();
        self.r_m_e.d.next = self.m_e.val();
        self.r_d_m_e.d.next = self.d_m_e.val();
        self.r_n_e.d.next = self.n_e.val();
        self.r_len_over.d.next = self.len_over.val();
        self.r_e_only.d.next = 0.into();
        if !self.len_over.val() {
            self.r_e_only.d.next = bit_cast::<32, 16>(self.i_e_len.q.val());
        }
        // M + d - e and d - e when both operations name one key, else M - e and -e: the
        // dequeue's length gated into the operands, so no multiplexer follows the carry chains
        // (one LUT level and its routing on the ECP5's critical path).
        self.d_same.next = 0.into();
        if self.i_same.q.val() {
            self.d_same.next = self.d_s.val();
        }
        self.csa_sum_same.next = self.m_s.val() ^ self.d_same.val() ^ !self.e_s.val();
        self.csa_carry_same.next = (((self.m_s.val() & self.d_same.val())
            | (self.m_s.val() & !self.e_s.val())
            | (self.d_same.val() & !self.e_s.val()))
            << 1)
            | self.one_s.val();
        self.r_p4.d.next =
            (self.csa_sum_same.val() + self.csa_carry_same.val()) & self.mask_s.val();
        self.r_r4.d.next = (self.d_same.val() - self.e_s.val()) & self.mask_s.val();
        self.r_l3e.d.next = self.d_same.val();
        self.ram.read_0_address.next = self.i_e_key.q.val();
        self.ram.read_1_address.next = self.i_d_key.q.val();
        // The addresses of the next edge: the keys the input stage registers now.
        self.ram.read_0_next.next = self.enq_key.val();
        self.ram.read_1_next.next = self.deq_key.val();

        // ---- Cycle n + 1: the bounds, from the predecessor's sums (now in the operand stage)
        // chosen by which of its operations name the chain's key, then one chain each.
        if self.r_pe1.q.val() {
            if self.r_pe2.q.val() {
                self.b2e.next = self.a_m_de.q.val();
                self.v13e.next = self.a_d_m_e.q.val();
            } else {
                self.b2e.next = self.a_m_d.q.val();
                self.v13e.next = self.a_d_s.q.val();
            }
            self.v1e.next = self.a_d_s.q.val();
        } else {
            if self.r_pe2.q.val() {
                self.b2e.next = self.a_m_e.q.val();
                self.v13e.next = self.a_n_e.q.val();
            } else {
                self.b2e.next = self.a_m.q.val();
                self.v13e.next = 0.into();
            }
            self.v1e.next = 0.into();
        }
        self.v2e.next = 0.into();
        if self.r_pe2.q.val() {
            self.v2e.next = self.a_e_only.q.val();
        }
        if self.r_pd1.q.val() {
            if self.r_pd2.q.val() {
                self.b2d.next = self.a_m_de.q.val();
                self.v13d.next = self.a_d_m_e.q.val();
            } else {
                self.b2d.next = self.a_m_d.q.val();
                self.v13d.next = self.a_d_s.q.val();
            }
            self.v1d.next = self.a_d_s.q.val();
        } else {
            if self.r_pd2.q.val() {
                self.b2d.next = self.a_m_e.q.val();
                self.v13d.next = self.a_n_e.q.val();
            } else {
                self.b2d.next = self.a_m.q.val();
                self.v13d.next = 0.into();
            }
            self.v1d.next = 0.into();
        }
        self.v2d.next = 0.into();
        if self.r_pd2.q.val() {
            self.v2d.next = self.a_e_only.q.val();
        }
        self.k1e_diff.next =
            (bit_cast::<34, 32>(self.v2e.val()) - self.r_l3e.q.val()) & self.mask_s.val();
        self.k1e_sign_wide.next = self.k1e_diff.val() >> self.sign_at.val();
        self.k1d_diff.next =
            (bit_cast::<34, 32>(self.v2d.val()) - self.r_d_s.q.val()) & self.mask_s.val();
        self.k1d_sign_wide.next = self.k1d_diff.val() >> self.sign_at.val();

        // Cycle n: where each operand's newest value will be in cycle n + 1, from the key
        // matches of edge n: `w_*` (written to the RAMs at edge n + 2), else `x_*` (written at
        // edge n + 1), else the memory's read data (0 for a key not written since reset); none
        // where the bypass will supply it. The two writes of one stage never name one key (a
        // same-key pair writes bank E only), so at most one hit per stage counts.
        self.e_hit_we.next = !self.i_fwd_e.q.val() & self.i_me_we.q.val();
        self.e_hit_wd.next = !self.i_fwd_e.q.val() & self.i_me_wd.q.val();
        self.e_hit_xe.next = !self.i_fwd_e.q.val()
            & !self.i_me_we.q.val()
            & !self.i_me_wd.q.val()
            & self.i_me_xe.q.val();
        self.e_hit_xd.next = !self.i_fwd_e.q.val()
            & !self.i_me_we.q.val()
            & !self.i_me_wd.q.val()
            & self.i_me_xd.q.val();
        self.r_e_hit_we.d.next = self.e_hit_we.val();
        self.r_e_hit_wd.d.next = self.e_hit_wd.val();
        self.r_e_hit_xe.d.next = self.e_hit_xe.val();
        self.r_e_hit_xd.d.next = self.e_hit_xd.val();
        self.r_e_no_hit.d.next = !self.i_fwd_e.q.val()
            & !self.e_hit_we.val()
            & !self.e_hit_wd.val()
            & !self.e_hit_xe.val()
            & !self.e_hit_xd.val();
        self.d_hit_we.next = !self.i_fwd_d.q.val() & self.i_md_we.q.val();
        self.d_hit_wd.next = !self.i_fwd_d.q.val() & self.i_md_wd.q.val();
        self.d_hit_xe.next = !self.i_fwd_d.q.val()
            & !self.i_md_we.q.val()
            & !self.i_md_wd.q.val()
            & self.i_md_xe.q.val();
        self.d_hit_xd.next = !self.i_fwd_d.q.val()
            & !self.i_md_we.q.val()
            & !self.i_md_wd.q.val()
            & self.i_md_xd.q.val();
        self.r_d_hit_we.d.next = self.d_hit_we.val();
        self.r_d_hit_wd.d.next = self.d_hit_wd.val();
        self.r_d_hit_xe.d.next = self.d_hit_xe.val();
        self.r_d_hit_xd.d.next = self.d_hit_xd.val();
        self.r_d_no_hit.d.next = !self.i_fwd_d.q.val()
            & !self.d_hit_we.val()
            & !self.d_hit_wd.val()
            & !self.d_hit_xe.val()
            & !self.d_hit_xd.val();

        // Cycle n + 1: each operand from the stage the hits name, or the RAM's read data.
        self.r_e_from_ram.next = self.r_e_no_hit.q.val() & self.ram.read_0_written.val();
        self.r_d_from_ram.next = self.r_d_no_hit.q.val() & self.ram.read_1_written.val();
        self.r_e_b_w.next = 0.into();
        if self.r_e_hit_we.q.val() {
            self.r_e_b_w.next = self.w_e_val.q.val();
        }
        if self.r_e_hit_wd.q.val() {
            self.r_e_b_w.next = self.r_e_b_w.val() | self.w_d_val.q.val();
        }
        self.r_e_b_x.next = 0.into();
        if self.r_e_hit_xe.q.val() {
            self.r_e_b_x.next = self.x_e_val.q.val();
        }
        if self.r_e_hit_xd.q.val() {
            self.r_e_b_x.next = self.r_e_b_x.val() | self.x_d_val.q.val();
        }
        self.r_e_b_ram.next = 0.into();
        if self.r_e_from_ram.val() {
            self.r_e_b_ram.next = self.ram.read_0_data.val();
        }
        self.r_d_b_w.next = 0.into();
        if self.r_d_hit_we.q.val() {
            self.r_d_b_w.next = self.w_e_val.q.val();
        }
        if self.r_d_hit_wd.q.val() {
            self.r_d_b_w.next = self.r_d_b_w.val() | self.w_d_val.q.val();
        }
        self.r_d_b_x.next = 0.into();
        if self.r_d_hit_xe.q.val() {
            self.r_d_b_x.next = self.x_e_val.q.val();
        }
        if self.r_d_hit_xd.q.val() {
            self.r_d_b_x.next = self.r_d_b_x.val() | self.x_d_val.q.val();
        }
        self.r_d_b_ram.next = 0.into();
        if self.r_d_from_ram.val() {
            self.r_d_b_ram.next = self.ram.read_1_data.val();
        }

        // ---- Edge n + 2 (operand).
        self.a_e_valid.d.next = self.r_e_valid.q.val();
        self.a_e_key.d.next = self.r_e_key.q.val();
        self.a_e_len.d.next = bit_cast::<32, 16>(self.r_e_len.q.val());
        self.a_d_valid.d.next = self.r_d_valid.q.val();
        self.a_d_key.d.next = self.r_d_key.q.val();
        self.a_d_s.d.next = self.r_d_s.q.val();
        self.a_same.d.next = self.r_same.q.val();
        self.a_m.d.next = self.r_m.q.val();
        self.a_m_de.d.next = self.r_m_de.q.val();
        self.a_m_d.d.next = self.r_m_d.q.val();
        self.a_m_e.d.next = self.r_m_e.q.val();
        self.a_d_m_e.d.next = self.r_d_m_e.q.val();
        self.a_n_e.d.next = self.r_n_e.q.val();
        self.a_e_only.d.next = self.r_e_only.q.val();
        self.a_len_over.d.next = self.r_len_over.q.val();
        self.a_b1e.d.next = self.v1e.val();
        self.a_b2e.d.next = self.b2e.val();
        self.a_b3ae.d.next = (self.v13e.val() + self.r_l3e.q.val()) & self.mask_s.val();
        self.a_b3be.d.next = (self.v1e.val() + self.r_l3e.q.val()) & self.mask_s.val();
        self.a_b4ae.d.next = (self.r_p4.q.val() + self.v13e.val()) & self.mask_s.val();
        self.a_b4be.d.next = (self.r_p4.q.val() + self.v1e.val()) & self.mask_s.val();
        self.a_dae.d.next = (self.v13e.val() + self.r_r4.q.val()) & self.mask_s.val();
        self.a_dbe.d.next = (self.v1e.val() + self.r_r4.q.val()) & self.mask_s.val();
        self.a_k1e_v3.d.next = 0.into();
        if !self.k1e_sign_wide.val().get_bit(0) {
            self.a_k1e_v3.d.next = bit_cast::<32, 34>(self.k1e_diff.val()) & self.mask.val();
        }
        self.a_b1d.d.next = self.v1d.val();
        self.a_b2d.d.next = self.b2d.val();
        self.a_b3ad.d.next = (self.v13d.val() + self.r_d_s.q.val()) & self.mask_s.val();
        self.a_b3bd.d.next = (self.v1d.val() + self.r_d_s.q.val()) & self.mask_s.val();
        self.a_k1d_u3.d.next = self.k1d_sign_wide.val().get_bit(0);
        self.a_k1d_v3.d.next = 0.into();
        if !self.k1d_sign_wide.val().get_bit(0) {
            self.a_k1d_v3.d.next = bit_cast::<32, 34>(self.k1d_diff.val()) & self.mask.val();
        }

        // ---- Cycle n + 2: every test and sum from the operand registers.
        self.x_e_s.next = bit_cast::<34, 32>(self.a_x_e.q.val());
        self.x_d_s.next = bit_cast::<34, 32>(self.a_x_d.q.val());
        // Enqueue chain. `X < B` is the sign of `X - B`, `X > B` that of `B - X`.
        self.t1e.next = (self.x_e_s.val() - self.a_b1e.q.val()) & self.mask_s.val();
        self.t2e.next = (self.a_b2e.q.val() - self.x_e_s.val()) & self.mask_s.val();
        self.t3ae.next = (self.x_e_s.val() - self.a_b3ae.q.val()) & self.mask_s.val();
        self.t3be.next = (self.x_e_s.val() - self.a_b3be.q.val()) & self.mask_s.val();
        self.t4ae.next = (self.a_b4ae.q.val() - self.x_e_s.val()) & self.mask_s.val();
        self.t4be.next = (self.a_b4be.q.val() - self.x_e_s.val()) & self.mask_s.val();
        self.t1e_sign_wide.next = self.t1e.val() >> self.sign_at.val();
        self.t2e_sign_wide.next = self.t2e.val() >> self.sign_at.val();
        self.t3ae_sign_wide.next = self.t3ae.val() >> self.sign_at.val();
        self.t3be_sign_wide.next = self.t3be.val() >> self.sign_at.val();
        self.t4ae_sign_wide.next = self.t4ae.val() >> self.sign_at.val();
        self.t4be_sign_wide.next = self.t4be.val() >> self.sign_at.val();
        self.aa_wide.next = (self.x_e_s.val() - self.a_dae.q.val()) & self.mask_s.val();
        self.ba_wide.next = (self.x_e_s.val() - self.a_dbe.q.val()) & self.mask_s.val();
        self.s_aa.next = bit_cast::<32, 34>(self.aa_wide.val()) & self.mask.val();
        self.s_ba.next = bit_cast::<32, 34>(self.ba_wide.val()) & self.mask.val();
        self.c1e.next = self.t1e_sign_wide.val().get_bit(0);
        self.g2e.next = self.t2e_sign_wide.val().get_bit(0);
        self.c3ae.next = self.t3ae_sign_wide.val().get_bit(0);
        self.c3be.next = self.t3be_sign_wide.val().get_bit(0);
        self.g4ae.next = self.t4ae_sign_wide.val().get_bit(0);
        self.g4be.next = self.t4be_sign_wide.val().get_bit(0);
        // After the predecessor's dequeue emptied the key: the event's enqueue onto a constant.
        self.t5e.next =
            (self.a_m_e.q.val() - bit_cast::<34, 32>(self.a_k1e_v3.q.val())) & self.mask_s.val();
        self.t5e_sign_wide.next = self.t5e.val() >> self.sign_at.val();
        self.k1e_drop.next = self.t5e_sign_wide.val().get_bit(0);
        self.k1e_v4.next = self.a_k1e_v3.q.val();
        if !self.k1e_drop.val() {
            self.k1e_v4.next = (self.a_k1e_v3.q.val() + self.a_e_len.q.val()) & self.mask.val();
        }
        // Dequeue chain.
        self.t1d.next = (self.x_d_s.val() - self.a_b1d.q.val()) & self.mask_s.val();
        self.t2d.next = (self.a_b2d.q.val() - self.x_d_s.val()) & self.mask_s.val();
        self.t3ad.next = (self.x_d_s.val() - self.a_b3ad.q.val()) & self.mask_s.val();
        self.t3bd.next = (self.x_d_s.val() - self.a_b3bd.q.val()) & self.mask_s.val();
        self.t1d_sign_wide.next = self.t1d.val() >> self.sign_at.val();
        self.t2d_sign_wide.next = self.t2d.val() >> self.sign_at.val();
        self.t3ad_sign_wide.next = self.t3ad.val() >> self.sign_at.val();
        self.t3bd_sign_wide.next = self.t3bd.val() >> self.sign_at.val();
        self.c1d.next = self.t1d_sign_wide.val().get_bit(0);
        self.g2d.next = self.t2d_sign_wide.val().get_bit(0);
        self.c3ad.next = self.t3ad_sign_wide.val().get_bit(0);
        self.c3bd.next = self.t3bd_sign_wide.val().get_bit(0);
        // Which result each chain takes (one-hot; on the enqueue chain `g2` picks the tests of
        // the path where the predecessor's enqueue was dropped, `*b*`, or not, `*a*`).
        self.sel_k1e.next = self.c1e.val();
        if self.g2e.val() {
            self.sel_k3e.next = !self.c1e.val() & self.c3be.val();
        } else {
            self.sel_k3e.next = !self.c1e.val() & self.c3ae.val();
        }
        self.sel_aa.next = !self.g2e.val() & !self.c1e.val() & !self.c3ae.val() & !self.g4ae.val();
        self.sel_ab.next = !self.g2e.val() & !self.c1e.val() & !self.c3ae.val() & self.g4ae.val();
        self.sel_ba.next = self.g2e.val() & !self.c1e.val() & !self.c3be.val() & !self.g4be.val();
        self.sel_bb.next = self.g2e.val() & !self.c1e.val() & !self.c3be.val() & self.g4be.val();
        self.sel_k1d.next = self.c1d.val();
        if self.g2d.val() {
            self.sel_zd.next = !self.c1d.val() & self.c3bd.val();
        } else {
            self.sel_zd.next = !self.c1d.val() & self.c3ad.val();
        }
        self.sel_abd.next = !self.g2d.val() & !self.c1d.val() & !self.c3ad.val();
        self.sel_bbd.next = self.g2d.val() & !self.c1d.val() & !self.c3bd.val();

        // ---- Edge n + 3 (select).
        self.b_e_valid.d.next = self.a_e_valid.q.val();
        self.b_e_key.d.next = self.a_e_key.q.val();
        self.b_d_valid.d.next = self.a_d_valid.q.val();
        self.b_d_key.d.next = self.a_d_key.q.val();
        self.b_same.d.next = self.a_same.q.val();
        self.b_k1e_drop.d.next = self.k1e_drop.val();
        self.b_len_over.d.next = self.a_len_over.q.val();
        self.b_k1d_u3.d.next = self.a_k1d_u3.q.val();
        self.b_k1e.d.next = self.k1e_v4.val();
        self.b_k3e.d.next = self.a_e_only.q.val();
        self.b_s_aa.d.next = self.s_aa.val();
        self.b_s_ab.d.next = bit_cast::<32, 34>(self.t3ae.val()) & self.mask.val();
        self.b_s_ba.d.next = self.s_ba.val();
        self.b_s_bb.d.next = bit_cast::<32, 34>(self.t3be.val()) & self.mask.val();
        self.b_k1d.d.next = self.a_k1d_v3.q.val();
        self.b_s_abd.d.next = bit_cast::<32, 34>(self.t3ad.val()) & self.mask.val();
        self.b_s_bbd.d.next = bit_cast::<32, 34>(self.t3bd.val()) & self.mask.val();
        self.b_sel_k1e.d.next = self.sel_k1e.val();
        self.b_sel_k3e.d.next = self.sel_k3e.val();
        self.b_sel_aa.d.next = self.sel_aa.val();
        self.b_sel_ab.d.next = self.sel_ab.val();
        self.b_sel_ba.d.next = self.sel_ba.val();
        self.b_sel_bb.d.next = self.sel_bb.val();
        self.b_sel_k1d.d.next = self.sel_k1d.val();
        self.b_sel_abd.d.next = self.sel_abd.val();
        self.b_sel_bbd.d.next = self.sel_bbd.val();
        self.b_sel_zd.d.next = self.sel_zd.val();

        // ---- Cycle n + 3: the results, an AND-OR of the candidates by the one-hot selects.
        self.e_res.next = 0.into();
        if self.b_sel_k1e.q.val() {
            self.e_res.next = self.b_k1e.q.val();
        }
        if self.b_sel_k3e.q.val() {
            self.e_res.next = self.e_res.val() | self.b_k3e.q.val();
        }
        if self.b_sel_aa.q.val() {
            self.e_res.next = self.e_res.val() | self.b_s_aa.q.val();
        }
        if self.b_sel_ab.q.val() {
            self.e_res.next = self.e_res.val() | self.b_s_ab.q.val();
        }
        if self.b_sel_ba.q.val() {
            self.e_res.next = self.e_res.val() | self.b_s_ba.q.val();
        }
        if self.b_sel_bb.q.val() {
            self.e_res.next = self.e_res.val() | self.b_s_bb.q.val();
        }
        self.d_res.next = 0.into();
        if self.b_sel_k1d.q.val() {
            self.d_res.next = self.b_k1d.q.val();
        }
        if self.b_sel_abd.q.val() {
            self.d_res.next = self.d_res.val() | self.b_s_abd.q.val();
        }
        if self.b_sel_bbd.q.val() {
            self.d_res.next = self.d_res.val() | self.b_s_bbd.q.val();
        }
        // The bypass: where the event two edges younger (now in the read stage) names a key
        // this one writes, the result is its operand.
        self.e_fwd.next = 0.into();
        if self.r_fwd_ee.q.val() {
            self.e_fwd.next = self.e_res.val();
        }
        if self.r_fwd_ed.q.val() {
            self.e_fwd.next = self.e_fwd.val() | self.d_res.val();
        }
        self.d_fwd.next = 0.into();
        if self.r_fwd_de.q.val() {
            self.d_fwd.next = self.e_res.val();
        }
        if self.r_fwd_dd.q.val() {
            self.d_fwd.next = self.d_fwd.val() | self.d_res.val();
        }
        // The flags: a drop on the paths that drop the event's enqueue, an underflow on those
        // where its dequeue empties the key.
        self.e_flag.next = (self.b_sel_k1e.q.val() & self.b_k1e_drop.q.val())
            | (self.b_sel_k3e.q.val() & self.b_len_over.q.val())
            | self.b_sel_ab.q.val()
            | self.b_sel_bb.q.val();
        self.d_flag.next = (self.b_sel_k1d.q.val() & self.b_k1d_u3.q.val()) | self.b_sel_zd.q.val();
        // Edge n + 2, the operands of the event in the read stage: the lookup, or the bypass of
        // the event two edges older's result as it leaves the selection (its selects already
        // carry whether it writes the key).
        self.a_x_e.d.next =
            self.e_fwd.val() | self.r_e_b_w.val() | self.r_e_b_x.val() | self.r_e_b_ram.val();
        self.a_x_d.d.next =
            self.d_fwd.val() | self.r_d_b_w.val() | self.r_d_b_x.val() | self.r_d_b_ram.val();
        self.e_valid.next = self.b_e_valid.q.val();
        self.e_key.next = self.b_e_key.q.val();
        self.e_b1.next = self.e_res.val();
        self.e_drop.next = self.b_e_valid.q.val() & self.e_flag.val();
        self.d_valid.next = self.b_d_valid.q.val();
        self.d_key.next = self.b_d_key.q.val();
        self.d_b1.next = self.d_res.val();
        self.d_underflow.next = self.b_d_valid.q.val() & self.d_flag.val();
        self.same_key.next = self.b_same.q.val();

        // ---- Edge n + 4: the results to the write stage.
        self.w_e_valid.d.next = self.b_e_valid.q.val();
        self.w_e_key.d.next = self.b_e_key.q.val();
        self.w_e_val.d.next = self.e_res.val();
        self.w_d_write.d.next = self.b_d_valid.q.val() & !self.b_same.q.val();
        self.w_d_key.d.next = self.b_d_key.q.val();
        self.w_d_val.d.next = self.d_res.val();

        // The same writes to the memory, whose write stage holds them as `w_*` does: they land
        // at edge n + 5, its live-value table updated from enables it decodes at edge n + 4.
        self.ram.write_a_enable.next = self.b_e_valid.q.val();
        self.ram.write_a_address.next = self.b_e_key.q.val();
        self.ram.write_a_data.next = self.e_res.val();
        self.ram.write_b_enable.next = self.b_d_valid.q.val() & !self.b_same.q.val();
        self.ram.write_b_address.next = self.b_d_key.q.val();
        self.ram.write_b_data.next = self.d_res.val();

        // ---- Edge n + 5 (write): the RAMs take the writes; the written stage.
        self.x_e_valid.d.next = self.w_e_valid.q.val();
        self.x_e_key.d.next = self.w_e_key.q.val();
        self.x_e_val.d.next = self.w_e_val.q.val();
        self.x_d_write.d.next = self.w_d_write.q.val();
        self.x_d_key.d.next = self.w_d_key.q.val();
        self.x_d_val.d.next = self.w_d_val.q.val();

        // Synchronous reset (the memory clears itself).
        if self.reset.val() {
            self.i_e_valid.d.next = false;
            self.i_d_valid.d.next = false;
            self.i_same.d.next = false;
            self.i_pe1.d.next = false;
            self.i_pe2.d.next = false;
            self.i_pd1.d.next = false;
            self.i_pd2.d.next = false;
            self.i_fwd_ee.d.next = false;
            self.i_fwd_ed.d.next = false;
            self.i_fwd_de.d.next = false;
            self.i_fwd_dd.d.next = false;
            self.i_fwd_e.d.next = false;
            self.i_fwd_d.d.next = false;
            self.i_me_we.d.next = false;
            self.i_me_wd.d.next = false;
            self.i_me_xe.d.next = false;
            self.i_me_xd.d.next = false;
            self.i_md_we.d.next = false;
            self.i_md_wd.d.next = false;
            self.i_md_xe.d.next = false;
            self.i_md_xd.d.next = false;
            self.r_e_valid.d.next = false;
            self.r_d_valid.d.next = false;
            self.r_same.d.next = false;
            self.r_pe1.d.next = false;
            self.r_pe2.d.next = false;
            self.r_pd1.d.next = false;
            self.r_pd2.d.next = false;
            self.r_e_hit_we.d.next = false;
            self.r_e_hit_wd.d.next = false;
            self.r_e_hit_xe.d.next = false;
            self.r_e_hit_xd.d.next = false;
            self.r_e_no_hit.d.next = false;
            self.r_d_hit_we.d.next = false;
            self.r_d_hit_wd.d.next = false;
            self.r_d_hit_xe.d.next = false;
            self.r_d_hit_xd.d.next = false;
            self.r_d_no_hit.d.next = false;
            self.r_fwd_ee.d.next = false;
            self.r_fwd_ed.d.next = false;
            self.r_fwd_de.d.next = false;
            self.r_fwd_dd.d.next = false;
            self.r_fwd_e.d.next = false;
            self.r_fwd_d.d.next = false;
            self.r_len_over.d.next = false;
            self.a_e_valid.d.next = false;
            self.a_d_valid.d.next = false;
            self.a_same.d.next = false;
            self.a_len_over.d.next = false;
            self.a_k1d_u3.d.next = false;
            self.b_e_valid.d.next = false;
            self.b_d_valid.d.next = false;
            self.b_same.d.next = false;
            self.b_sel_k1e.d.next = false;
            self.b_sel_k3e.d.next = false;
            self.b_sel_aa.d.next = false;
            self.b_sel_ab.d.next = false;
            self.b_sel_ba.d.next = false;
            self.b_sel_bb.d.next = false;
            self.b_sel_k1d.d.next = false;
            self.b_sel_abd.d.next = false;
            self.b_sel_bbd.d.next = false;
            self.b_sel_zd.d.next = false;
            self.b_k1e_drop.d.next = false;
            self.b_len_over.d.next = false;
            self.b_k1d_u3.d.next = false;
            self.w_e_valid.d.next = false;
            self.w_d_write.d.next = false;
            self.x_e_valid.d.next = false;
            self.x_d_write.d.next = false;
        }
    }
}

/// The `fpga` preset's occupancy (32 keys, 16-bit counters, 11-bit lengths) alone, as the
/// Verilog module `name`, with the target's memories: PFC's loop as the block builds it, for
/// `switchcraft synth --loops` to measure beside the hand-written kernels.
pub fn fpga_verilog(name: &str, tech: Tech) -> String {
    let mut occupancy = PipelinedOccupancy::<5, 32>::new(16, 11, tech);
    occupancy.connect_all();
    crate::export::standalone_module(&generate_verilog(&occupancy), name)
}

/// Lint waiver of a core holding [`PipelinedOccupancy`] (PFC's, and P4QCN's embedded PFC).
pub const WIDE_WAIVER: crate::export::Waiver = crate::export::Waiver {
    rule: "UNUSEDSIGNAL",
    signals: &["*_wide"],
    reason: "the occupancy's `*_wide` locals: a signed difference shifted right by its run-time \
             sign position (only bit 0, the sign, is read), or one kept at the signed width \
             whose low counter-width bits are the result.",
};
