//! TCD's flowchart (the model's `classify`, spec §1.3) for a dequeue captured at edge n, in
//! three stages: what needs no entry in cycle n (its priority enabled, `Q > K`, `Q < K_low`,
//! the windows of its cycle), the tests in the cycle after its entry's read (n + 1), the
//! decision in the next (n + 2). Ton against max(Ton), the T period, the queue tests against K,
//! K_low and Q_rec, and the ECN marks.
//!
//! Time tests are `now - x >= L` (Ton long, T expired; mod 2^time_bits, L below half a wrap)
//! on a word x under two half-wraps old (older words are long ago). The word's age says on
//! which side of `now` it lies: age 0 (`now`'s half-wrap) or age 1 while `now` is in the upper
//! half: x <= now, and the test is `now >= L and x <= now - L`; age 1 while `now` is in the
//! lower half: x lies numerically above `now` (the counter wrapped since), and the test is
//! `now >= L or x <= (now - L) mod 2^time_bits`. With `now - L` and `now >= L` registered, each
//! test is one comparison of x with the window's start, and the rest is known before it: a
//! window test as two comparisons (`x > now - L`, `x <= now`) took two carry chains and a LUT
//! level more (the iCE40's critical path). The comparisons run on every word x can come from
//! ([`super::entries::Entries`]: RAM or forwarded write), and the registered one-hot selects
//! pick a result afterwards. Every comparison is written strict, negated where the test is
//! `<=` or `>=` (`!(now < x)`): yosys builds `<=` and `>=` from the subtraction's carry and an
//! equality tree over its sum bits (on the ECP5 a 16-bit `<=` took 16 LUT4 and two levels after
//! the carry chain, a window test 56 LUT4 against 15), a strict comparison from the carry
//! alone.
//!
//! Cycle n + 1 (test stage): every comparison of the flowchart, on the entry as the read found
//! it and on what the dequeue one edge older (in the decide stage now, `c_*`) will leave in it:
//! its kept words, or its boundary (`now - 1`, its queue length). The results are registered
//! with the event (`c_*`) at edge n + 2. Cycle n + 2 (decide stage): when the older dequeue
//! wrote this entry, its registered write (`w_*`: boundary, LAST_STATE, words) picks among the
//! precomputed results (the bypass); then the flowchart, which only combines bits, and bank D's
//! new words, registered in `w_*` at edge n + 3 (the RAM's write data and the forwarding). The
//! loop from one decision to the next is a few LUT levels, without a comparison.

use rust_hdl::prelude::*;
use switchcraft_core::mask;
use switchcraft_model::tcd::{TcdConfig, CE, CONG, UE, UND};

/// The flowchart for ports of `PB` bits and keys of `KB` bits.
#[derive(LogicBlock)]
pub struct Classify<const PB: usize, const KB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Time of cycle n.
    pub now: Signal<In, Bits<32>>,
    /// Registers as stored: `options`, and `k`, `k_low`, `max_ton`, `t_period` of the class of
    /// the dequeue of cycle n.
    pub options: Signal<In, Bits<2>>,
    pub k: Signal<In, Bits<32>>,
    pub k_low: Signal<In, Bits<32>>,
    pub max_ton: Signal<In, Bits<32>>,
    pub t_period: Signal<In, Bits<32>>,
    /// The dequeue of cycle n (a bad index: passed through to the output unchanged).
    pub d_valid: Signal<In, Bit>,
    pub d_bad: Signal<In, Bit>,
    pub d_port: Signal<In, Bits<PB>>,
    pub d_prio: Signal<In, Bits<3>>,
    pub d_key: Signal<In, Bits<KB>>,
    pub d_qlen: Signal<In, Bits<32>>,
    pub d_ecn: Signal<In, Bits<2>>,
    /// Its priority is enabled (`prio_enable` of cycle n).
    pub d_enabled: Signal<In, Bit>,
    /// A RESUME of the dequeued entry in this cycle, and its queue length (masked).
    pub same_key: Signal<In, Bit>,
    pub rx_qlen: Signal<In, Bits<32>>,
    /// The key the lookup of cycle n read (the dequeue's, or a snapshot's).
    pub lk_key: Signal<In, Bits<KB>>,
    /// The entry's source words and selects, ages and LAST_STATE ([`super::entries::Entries`]).
    pub ram_r_t: Signal<In, Bits<32>>,
    pub ram_r_q: Signal<In, Bits<32>>,
    pub ram_d_t: Signal<In, Bits<32>>,
    pub ram_d_q: Signal<In, Bits<32>>,
    pub tq_ram_r: Signal<In, Bit>,
    pub tq_fw_d: Signal<In, Bit>,
    pub tq_ram_d: Signal<In, Bit>,
    pub tq_zero: Signal<In, Bit>,
    /// "Over half a wrap old" for each word a timestamp can come from (bank R's `t_on`, which
    /// is also `t_T` while a RESUME is pending; bank D's forwarded write; bank D's read; the
    /// selects pick), and age 1 (written in the half-wrap before `now`'s) for the same words.
    pub on_old: Signal<In, Bit>,
    pub t_old_fw: Signal<In, Bit>,
    pub t_old_d: Signal<In, Bit>,
    pub on_one: Signal<In, Bit>,
    pub t_one_fw: Signal<In, Bit>,
    pub t_one_d: Signal<In, Bit>,
    /// The age of the entry's `t_T` (3: never set), and of bank D's last write (as edge n
    /// left it).
    pub age_t: Signal<In, Bits<2>>,
    pub age_w: Signal<In, Bits<2>>,
    pub last_state: Signal<In, Bits<2>>,

    /// Cycle n: the dequeue updates its entry (valid and its priority enabled). Cycle n + 1:
    /// the dequeue in the decide stage writes the entry the test stage holds (the bypass).
    pub write_now: Signal<Out, Bit>,
    pub bypass_next: Signal<Out, Bit>,
    /// Cycle n + 2: bank D's write: the entry's key (its words are registered at edge n + 3).
    pub write: Signal<Out, Bit>,
    pub write_key: Signal<Out, Bits<KB>>,
    /// Bank D's write decided in the last cycle, as its new words `t_T` and `{Q_rec, age of
    /// t_T, LAST_STATE}` (restarted at a boundary or by a RESUME: age 0): the RAM's write data,
    /// the read's merge, the test stage's forwarding, the snapshot's bypass.
    pub last_t: Signal<Out, Bits<32>>,
    pub last_qs: Signal<Out, Bits<34>>,
    /// Cycle n + 2: the marked packet (the dequeue captured at edge n).
    pub m_valid: Signal<Out, Bit>,
    pub m_port: Signal<Out, Bits<PB>>,
    pub m_prio: Signal<Out, Bits<3>>,
    pub m_ecn: Signal<Out, Bits<2>>,
    pub m_state: Signal<Out, Bits<2>>,

    time_mask: Constant<Bits<32>>,
    /// The time counter's top bit.
    time_top: Constant<Bits<32>>,
    queue_mask: Constant<Bits<32>>,
    /// The bits bank D's `{Q_rec, age, LAST_STATE}` word holds.
    qs_mask: Constant<Bits<34>>,
    ls_cong: Constant<Bits<2>>,
    ls_und: Constant<Bits<2>>,
    ecn_ue: Constant<Bits<2>>,
    ecn_ce: Constant<Bits<2>>,
    never: Constant<Bits<2>>,

    // ---- The test stage (cycle n + 1): the dequeue captured at edge n, with what cycle n
    // knew of it (the registers as that edge left them: K, K_low, the options, the windows:
    // `now - max_ton` and `now - T` (mod 2^time_bits), whether they wrapped below 0, whether
    // max(Ton) and T are 0 (empty windows), and T <= 1 (the previous cycle lies outside the T
    // window)).
    t_valid: DFF<Bit>,
    t_bad: DFF<Bit>,
    t_enabled: DFF<Bit>,
    t_port: DFF<Bits<PB>>,
    t_prio: DFF<Bits<3>>,
    t_key: DFF<Bits<KB>>,
    t_ecn: DFF<Bits<2>>,
    t_now: DFF<Bits<32>>,
    t_qlen: DFF<Bits<32>>,
    t_options: DFF<Bits<2>>,
    t_q_gt_k: DFF<Bit>,
    t_q_lt_k_low: DFF<Bit>,
    t_on_start: DFF<Bits<32>>,
    t_on_wraps: DFF<Bit>,
    t_on_zero: DFF<Bit>,
    t_t_start: DFF<Bits<32>>,
    t_t_wraps: DFF<Bit>,
    t_t_zero: DFF<Bit>,
    t_t_le_one: DFF<Bit>,
    // ---- The decide stage: the dequeue tested in the last cycle, with its tests.
    c_valid: DFF<Bit>,
    c_bad: DFF<Bit>,
    c_enabled: DFF<Bit>,
    c_port: DFF<Bits<PB>>,
    c_prio: DFF<Bits<3>>,
    c_key: DFF<Bits<KB>>,
    c_ecn: DFF<Bits<2>>,
    c_now: DFF<Bits<32>>,
    c_qlen: DFF<Bits<32>>,
    c_options: DFF<Bits<2>>,
    /// The entry as the lookup found it: `t_T`, `Q_rec`, their age, LAST_STATE and `age_w`.
    c_t: DFF<Bits<32>>,
    c_q: DFF<Bits<32>>,
    c_age: DFF<Bits<2>>,
    c_ls: DFF<Bits<2>>,
    c_age_w: DFF<Bits<2>>,
    /// The flowchart's tests on it: Ton short, T expired, `Q >= Q_rec`, `Q > K`, `Q < K_low`.
    /// T expired and `Q >= Q_rec` as the terms the decide stage ORs: what needs no comparison
    /// (`_early`, `_zero`), and one term per source word (its select and its comparison).
    c_ton_short: DFF<Bit>,
    c_t_exp_early: DFF<Bit>,
    c_t_exp_r: DFF<Bit>,
    c_t_exp_fw: DFF<Bit>,
    c_t_exp_d: DFF<Bit>,
    c_q_ge_zero: DFF<Bit>,
    c_q_ge_same: DFF<Bit>,
    c_q_ge_r: DFF<Bit>,
    c_q_ge_fw: DFF<Bit>,
    c_q_ge_d: DFF<Bit>,
    c_q_gt_k: DFF<Bit>,
    c_q_lt_k_low: DFF<Bit>,
    /// The flowchart reaches "T expired?" if LAST_STATE is UND: enabled, Ton not short, and
    /// not ended by `Q < K_low` (without option 0). Registered so that the decide stage's
    /// boundary, on the loop from one decision to the next, is LAST_STATE and T expired only.
    c_pre: DFF<Bit>,
    /// The dequeue one edge older wrote this entry: all of it (`c_byp_tq`), or LAST_STATE only
    /// (a RESUME of this cycle set `t_T` and `Q_rec`).
    c_byp: DFF<Bit>,
    c_byp_tq: DFF<Bit>,
    /// The T and queue tests against what that dequeue leaves: its kept words, or its boundary.
    c_keep_exp_early: DFF<Bit>,
    c_keep_exp_own: DFF<Bit>,
    c_keep_exp_fw: DFF<Bit>,
    c_keep_q_own: DFF<Bit>,
    c_keep_q_fw: DFF<Bit>,
    c_bnd_t_exp: DFF<Bit>,
    c_bnd_q_ge: DFF<Bit>,
    // ---- Bank D's write of the last edge.
    w_t: DFF<Bits<32>>,
    w_qs: DFF<Bits<34>>,
    w_boundary: DFF<Bit>,

    // Cycle n: `deq_qlen >= Q_rec` on each word Q_rec can come from.
    q_ge_ram_r: Signal<Local, Bit>,
    q_ge_ram_d: Signal<Local, Bit>,
    q_ge_fw_d: Signal<Local, Bit>,
    q_ge_same: Signal<Local, Bit>,
    // Per word: `x <= window start`, and whether x lies numerically above `now` (age 1 while
    // `now` is in the lower half).
    now_low: Signal<Local, Bit>,
    on_le_ram_r: Signal<Local, Bit>,
    t_le_ram_r: Signal<Local, Bit>,
    t_le_ram_d: Signal<Local, Bit>,
    t_le_fw_d: Signal<Local, Bit>,
    on_above: Signal<Local, Bit>,
    t_above_fw: Signal<Local, Bit>,
    t_above_d: Signal<Local, Bit>,
    t_exp_ram_r: Signal<Local, Bit>,
    t_exp_ram_d: Signal<Local, Bit>,
    t_exp_fw_d: Signal<Local, Bit>,
    on_long: Signal<Local, Bit>,
    t_exp_early: Signal<Local, Bit>,
    enabled: Signal<Local, Bit>,
    ton_short: Signal<Local, Bit>,
    // The entry's T and Q_rec as the lookup found them (a forwarded word, or a RAM's).
    // The dequeue's class's max(Ton) and T, `time_bits` wide.
    max_ton_t: Signal<Local, Bits<32>>,
    t_period_t: Signal<Local, Bits<32>>,
    fw_d_t: Signal<Local, Bits<32>>,
    fw_d_q: Signal<Local, Bits<32>>,
    fw_d_q30: Signal<Local, Bits<30>>,
    t_fw: Signal<Local, Bits<32>>,
    q_fw: Signal<Local, Bits<32>>,
    t_ram: Signal<Local, Bits<32>>,
    q_ram: Signal<Local, Bits<32>>,
    // What the decide stage's dequeue keeps if it takes no boundary (its own words, or the
    // write it bypassed), and the tests of this cycle's dequeue on them.
    keep_old_own: Signal<Local, Bit>,
    keep_old_fw: Signal<Local, Bit>,
    keep_above_own: Signal<Local, Bit>,
    keep_above_fw: Signal<Local, Bit>,
    keep_exp_early: Signal<Local, Bit>,
    keep_exp_own: Signal<Local, Bit>,
    keep_exp_fw: Signal<Local, Bit>,
    keep_le: Signal<Local, Bit>,
    // Cycle n + 1: the bypass, the flowchart, the new words.
    w_ls: Signal<Local, Bits<2>>,
    w_age: Signal<Local, Bits<2>>,
    w_age_now: Signal<Local, Bits<2>>,
    ls: Signal<Local, Bits<2>>,
    t_exp: Signal<Local, Bit>,
    q_ge_d: Signal<Local, Bit>,
    age_sel: Signal<Local, Bits<2>>,
    t_sel: Signal<Local, Bits<32>>,
    q_sel: Signal<Local, Bits<32>>,
    ecn_as_ue: Signal<Local, Bits<2>>,
    ecn_as_ce: Signal<Local, Bits<2>>,
    new_ls: Signal<Local, Bits<2>>,
    new_ecn: Signal<Local, Bits<2>>,
    /// The T period ended: bank D restarts T at `now` with `Q_rec` = the queue length.
    boundary: Signal<Local, Bit>,
    q_rec: Signal<Local, Bits<32>>,
    age_new: Signal<Local, Bits<2>>,
    write_t: Signal<Local, Bits<32>>,
    write_qs: Signal<Local, Bits<34>>,
}

impl<const PB: usize, const KB: usize> Classify<PB, KB> {
    pub fn new(cfg: &TcdConfig) -> Self {
        Classify {
            clock: Default::default(),
            reset: Default::default(),
            now: Default::default(),
            options: Default::default(),
            k: Default::default(),
            k_low: Default::default(),
            max_ton: Default::default(),
            t_period: Default::default(),
            d_valid: Default::default(),
            d_bad: Default::default(),
            d_port: Default::default(),
            d_prio: Default::default(),
            d_key: Default::default(),
            d_qlen: Default::default(),
            d_ecn: Default::default(),
            d_enabled: Default::default(),
            same_key: Default::default(),
            rx_qlen: Default::default(),
            lk_key: Default::default(),
            ram_r_t: Default::default(),
            ram_r_q: Default::default(),
            ram_d_t: Default::default(),
            ram_d_q: Default::default(),
            tq_ram_r: Default::default(),
            tq_fw_d: Default::default(),
            tq_ram_d: Default::default(),
            tq_zero: Default::default(),
            on_old: Default::default(),
            t_old_fw: Default::default(),
            t_old_d: Default::default(),
            on_one: Default::default(),
            t_one_fw: Default::default(),
            t_one_d: Default::default(),
            age_t: Default::default(),
            age_w: Default::default(),
            last_state: Default::default(),
            write_now: Default::default(),
            bypass_next: Default::default(),
            write: Default::default(),
            write_key: Default::default(),
            write_t: Default::default(),
            write_qs: Default::default(),
            last_t: Default::default(),
            last_qs: Default::default(),
            m_valid: Default::default(),
            m_port: Default::default(),
            m_prio: Default::default(),
            m_ecn: Default::default(),
            m_state: Default::default(),
            time_mask: Constant::new(mask(cfg.time_bits).into()),
            time_top: Constant::new((1u64 << (cfg.time_bits - 1)).into()),
            queue_mask: Constant::new(mask(cfg.queue_bits).into()),
            qs_mask: Constant::new(mask(cfg.queue_bits + 4).into()),
            ls_cong: Constant::new(CONG.into()),
            ls_und: Constant::new(UND.into()),
            ecn_ue: Constant::new(UE.into()),
            ecn_ce: Constant::new(CE.into()),
            never: Constant::new(3u64.into()),
            t_valid: Default::default(),
            t_bad: Default::default(),
            t_enabled: Default::default(),
            t_port: Default::default(),
            t_prio: Default::default(),
            t_key: Default::default(),
            t_ecn: Default::default(),
            t_now: Default::default(),
            t_qlen: Default::default(),
            t_options: Default::default(),
            t_q_gt_k: Default::default(),
            t_q_lt_k_low: Default::default(),
            t_on_start: Default::default(),
            t_on_wraps: Default::default(),
            t_on_zero: Default::default(),
            t_t_start: Default::default(),
            t_t_wraps: Default::default(),
            t_t_zero: Default::default(),
            t_t_le_one: Default::default(),
            c_valid: Default::default(),
            c_bad: Default::default(),
            c_enabled: Default::default(),
            c_port: Default::default(),
            c_prio: Default::default(),
            c_key: Default::default(),
            c_ecn: Default::default(),
            c_now: Default::default(),
            c_qlen: Default::default(),
            c_options: Default::default(),
            c_t: Default::default(),
            c_q: Default::default(),
            c_age: Default::default(),
            c_ls: Default::default(),
            c_age_w: Default::default(),
            c_ton_short: Default::default(),
            c_t_exp_early: Default::default(),
            c_t_exp_r: Default::default(),
            c_t_exp_fw: Default::default(),
            c_t_exp_d: Default::default(),
            c_q_ge_zero: Default::default(),
            c_q_ge_same: Default::default(),
            c_q_ge_r: Default::default(),
            c_q_ge_fw: Default::default(),
            c_q_ge_d: Default::default(),
            c_q_gt_k: Default::default(),
            c_q_lt_k_low: Default::default(),
            c_pre: Default::default(),
            c_byp: Default::default(),
            c_byp_tq: Default::default(),
            c_keep_exp_early: Default::default(),
            c_keep_exp_own: Default::default(),
            c_keep_exp_fw: Default::default(),
            c_keep_q_own: Default::default(),
            c_keep_q_fw: Default::default(),
            c_bnd_t_exp: Default::default(),
            c_bnd_q_ge: Default::default(),
            w_t: Default::default(),
            w_qs: Default::default(),
            w_boundary: Default::default(),
            q_ge_ram_r: Default::default(),
            q_ge_ram_d: Default::default(),
            q_ge_fw_d: Default::default(),
            q_ge_same: Default::default(),
            now_low: Default::default(),
            on_le_ram_r: Default::default(),
            t_le_ram_r: Default::default(),
            t_le_ram_d: Default::default(),
            t_le_fw_d: Default::default(),
            on_above: Default::default(),
            t_above_fw: Default::default(),
            t_above_d: Default::default(),
            t_exp_ram_r: Default::default(),
            t_exp_ram_d: Default::default(),
            t_exp_fw_d: Default::default(),
            t_exp_early: Default::default(),
            on_long: Default::default(),
            enabled: Default::default(),
            ton_short: Default::default(),
            max_ton_t: Default::default(),
            t_period_t: Default::default(),
            fw_d_t: Default::default(),
            fw_d_q: Default::default(),
            fw_d_q30: Default::default(),
            t_fw: Default::default(),
            q_fw: Default::default(),
            t_ram: Default::default(),
            q_ram: Default::default(),
            keep_old_own: Default::default(),
            keep_old_fw: Default::default(),
            keep_exp_early: Default::default(),
            keep_exp_own: Default::default(),
            keep_exp_fw: Default::default(),
            keep_above_own: Default::default(),
            keep_above_fw: Default::default(),
            keep_le: Default::default(),
            w_ls: Default::default(),
            w_age: Default::default(),
            w_age_now: Default::default(),
            ls: Default::default(),
            t_exp: Default::default(),
            q_ge_d: Default::default(),
            age_sel: Default::default(),
            t_sel: Default::default(),
            q_sel: Default::default(),
            ecn_as_ue: Default::default(),
            ecn_as_ce: Default::default(),
            new_ls: Default::default(),
            new_ecn: Default::default(),
            boundary: Default::default(),
            q_rec: Default::default(),
            age_new: Default::default(),
        }
    }
}

// `!(a < b)` for `a >= b` is deliberate: see the module doc.
#[allow(clippy::nonminimal_bool)]
impl<const PB: usize, const KB: usize> Logic for Classify<PB, KB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            t_valid,
            t_bad,
            t_enabled,
            t_port,
            t_prio,
            t_key,
            t_ecn,
            t_now,
            t_qlen,
            t_options,
            t_q_gt_k,
            t_q_lt_k_low,
            t_on_start,
            t_on_wraps,
            t_on_zero,
            t_t_start,
            t_t_wraps,
            t_t_zero,
            t_t_le_one,
            c_valid,
            c_bad,
            c_enabled,
            c_port,
            c_prio,
            c_key,
            c_ecn,
            c_now,
            c_qlen,
            c_options,
            c_t,
            c_q,
            c_age,
            c_ls,
            c_age_w,
            c_ton_short,
            c_t_exp_early,
            c_t_exp_r,
            c_t_exp_fw,
            c_t_exp_d,
            c_q_ge_zero,
            c_q_ge_same,
            c_q_ge_r,
            c_q_ge_fw,
            c_q_ge_d,
            c_q_gt_k,
            c_q_lt_k_low,
            c_pre,
            c_byp,
            c_byp_tq,
            c_keep_exp_early,
            c_keep_exp_own,
            c_keep_exp_fw,
            c_keep_q_own,
            c_keep_q_fw,
            c_bnd_t_exp,
            c_bnd_q_ge,
            w_t,
            w_qs,
            w_boundary
        );

        // The write of the last edge (the decide stage's older dequeue): LAST_STATE, and the
        // age of its `t_T` as the decide stage's dequeue sees it (plus its `age_w`).
        self.w_ls.next = self.w_qs.q.val().get_bits::<2>(0);
        self.w_age.next = self.w_qs.q.val().get_bits::<2>(2);
        if self.w_age.val() == self.never.val() {
            self.w_age_now.next = self.never.val();
        } else if self.w_age.val().get_bit(1)
            | self.c_age_w.q.val().get_bit(1)
            | (self.w_age.val().get_bit(0) & self.c_age_w.q.val().get_bit(0))
        {
            self.w_age_now.next = 2.into();
        } else if self.w_age.val().get_bit(0) ^ self.c_age_w.q.val().get_bit(0) {
            self.w_age_now.next = 1.into();
        } else {
            self.w_age_now.next = 0.into();
        }

        // ==== Cycle n: the dequeue as captured, its tests that need no entry (against the
        // registers of this cycle), and this cycle's windows, into the test stage.
        self.enabled.next = self.d_enabled.val();
        self.write_now.next = self.d_valid.val() & self.enabled.val();
        self.t_valid.d.next = self.d_valid.val();
        self.t_bad.d.next = self.d_bad.val();
        self.t_enabled.d.next = self.enabled.val();
        self.t_port.d.next = self.d_port.val();
        self.t_prio.d.next = self.d_prio.val();
        self.t_key.d.next = self.d_key.val();
        self.t_ecn.d.next = self.d_ecn.val();
        self.t_now.d.next = self.now.val() & self.time_mask.val();
        self.t_qlen.d.next = self.d_qlen.val() & self.queue_mask.val();
        self.t_options.d.next = self.options.val();
        self.t_q_gt_k.d.next = self.d_qlen.val() > self.k.val();
        self.t_q_lt_k_low.d.next = self.d_qlen.val() < self.k_low.val();
        self.max_ton_t.next = self.max_ton.val() & self.time_mask.val();
        self.t_period_t.next = self.t_period.val() & self.time_mask.val();
        self.t_on_start.d.next = (self.t_now.d.val() - self.max_ton_t.val()) & self.time_mask.val();
        self.t_on_wraps.d.next = self.t_now.d.val() < self.max_ton_t.val();
        self.t_on_zero.d.next = !self.max_ton_t.val().any();
        self.t_t_start.d.next = (self.t_now.d.val() - self.t_period_t.val()) & self.time_mask.val();
        self.t_t_wraps.d.next = self.t_now.d.val() < self.t_period_t.val();
        self.t_t_zero.d.next = !self.t_period_t.val().any();
        self.t_t_le_one.d.next = self.t_period_t.val() < 2;

        // ==== Cycle n + 1: the tests.
        self.fw_d_t.next = self.w_t.q.val();
        self.fw_d_q30.next = self.w_qs.q.val().get_bits::<30>(4);
        self.fw_d_q.next = bit_cast::<32, 30>(self.fw_d_q30.val());
        // The flowchart's queue test on every word Q_rec can come from (0 when never written:
        // always true), selected like the word itself.
        self.q_ge_ram_r.next = !(self.t_qlen.q.val() < self.ram_r_q.val());
        self.q_ge_ram_d.next = !(self.t_qlen.q.val() < self.ram_d_q.val());
        self.q_ge_fw_d.next = !(self.t_qlen.q.val() < self.fw_d_q.val());
        self.q_ge_same.next = !(self.t_qlen.q.val() < self.rx_qlen.val());

        // The time tests (see the module doc) on every word a timestamp can come from: one
        // comparison with the window's start, and the word's age.
        self.now_low.next = !(self.t_now.q.val() & self.time_top.val()).any();
        self.on_le_ram_r.next = !(self.t_on_start.q.val() < self.ram_r_t.val());
        self.t_le_ram_r.next = !(self.t_t_start.q.val() < self.ram_r_t.val());
        self.t_le_ram_d.next = !(self.t_t_start.q.val() < self.ram_d_t.val());
        self.t_le_fw_d.next = !(self.t_t_start.q.val() < self.fw_d_t.val());
        self.on_above.next = self.on_one.val() & self.now_low.val();
        self.t_above_fw.next = self.t_one_fw.val() & self.now_low.val();
        self.t_above_d.next = self.t_one_d.val() & self.now_low.val();
        // Ton >= max(Ton): old, or above `now` and the window started at or after 0, or at or
        // before the window's start and either of the two.
        self.on_long.next = self.on_old.val()
            | (self.on_above.val() & !self.t_on_wraps.q.val())
            | (self.on_le_ram_r.val() & (self.on_above.val() | !self.t_on_wraps.q.val()));
        // T expired, per word: its early part (select, age, wrap), and the comparison ANDed
        // with another early part. The comparison terms are registered apart and ORed in the
        // decide stage, so each is one LUT after its carry chain here; combined in this stage,
        // ABC (which takes a carry chain's output for as early as a register's) put four LUTs
        // after the chains (the iCE40's critical path). The selects are one-hot, none set when
        // a RESUME of this cycle names the entry (`same_key`: T is 0, expired only when T = 0);
        // D never written and no RESUME pending (`tq_zero`): expired (its age is 3, never set).
        self.t_exp_early.next = self.tq_zero.val()
            | (self.same_key.val() & self.t_t_zero.q.val())
            | (self.tq_ram_r.val()
                & (self.on_old.val() | (self.on_above.val() & !self.t_t_wraps.q.val())))
            | (self.tq_fw_d.val()
                & (self.t_old_fw.val() | (self.t_above_fw.val() & !self.t_t_wraps.q.val())))
            | (self.tq_ram_d.val()
                & (self.t_old_d.val() | (self.t_above_d.val() & !self.t_t_wraps.q.val())));
        self.t_exp_ram_r.next = self.tq_ram_r.val()
            & (self.on_above.val() | !self.t_t_wraps.q.val())
            & self.t_le_ram_r.val();
        self.t_exp_fw_d.next = self.tq_fw_d.val()
            & (self.t_above_fw.val() | !self.t_t_wraps.q.val())
            & self.t_le_fw_d.val();
        self.t_exp_ram_d.next = self.tq_ram_d.val()
            & (self.t_above_d.val() | !self.t_t_wraps.q.val())
            & self.t_le_ram_d.val();

        // The entry's T and Q_rec (the one-hot selects OR the words together; a RESUME of this
        // cycle: `now` and its queue length, age 0).
        self.t_fw.next = 0.into();
        self.q_fw.next = 0.into();
        if self.same_key.val() {
            self.t_fw.next = self.t_now.q.val();
            self.q_fw.next = self.rx_qlen.val();
        }
        if self.tq_fw_d.val() {
            self.t_fw.next = self.t_fw.val() | self.fw_d_t.val();
            self.q_fw.next = self.q_fw.val() | self.fw_d_q.val();
        }
        self.t_ram.next = 0.into();
        self.q_ram.next = 0.into();
        if self.tq_ram_r.val() {
            self.t_ram.next = self.ram_r_t.val();
            self.q_ram.next = self.ram_r_q.val();
        }
        if self.tq_ram_d.val() {
            self.t_ram.next = self.t_ram.val() | self.ram_d_t.val();
            self.q_ram.next = self.q_ram.val() | self.ram_d_q.val();
        }

        // What the dequeue in the decide stage leaves in its entry without a boundary: the
        // words it holds, or the write it bypasses (its age then counted to its own cycle).
        // Its age as this cycle's dequeue sees it, one edge later: plus `age_w`, saturating
        // (3, never set, stays 3). The tests run on both words and the bypass picks a result:
        // the write's are the forwarded word's own (`t_le_fw_d`, `q_ge_fw_d`).
        // Over half a wrap old (age >= 2; 3, never set, included) as this cycle's dequeue
        // sees it: its age plus `age_w` (the half-wraps since that write), saturating; for
        // the words it holds and for the write it bypasses.
        self.keep_old_own.next = self.c_age.q.val().get_bit(1)
            | self.age_w.val().get_bit(1)
            | (self.c_age.q.val().get_bit(0) & self.age_w.val().get_bit(0));
        self.keep_old_fw.next = self.w_age_now.val().get_bit(1)
            | self.age_w.val().get_bit(1)
            | (self.w_age_now.val().get_bit(0) & self.age_w.val().get_bit(0));
        // Age 1 (the sum is 1) while `now` is in the lower half: above `now`.
        self.keep_above_own.next = !self.c_age.q.val().get_bit(1)
            & !self.age_w.val().get_bit(1)
            & (self.c_age.q.val().get_bit(0) ^ self.age_w.val().get_bit(0))
            & self.now_low.val();
        self.keep_above_fw.next = !self.w_age_now.val().get_bit(1)
            & !self.age_w.val().get_bit(1)
            & (self.w_age_now.val().get_bit(0) ^ self.age_w.val().get_bit(0))
            & self.now_low.val();
        self.keep_le.next = !(self.t_t_start.q.val() < self.c_t.q.val());
        // T expired on the kept word: as for this dequeue's own words, early part and
        // comparison terms apart.
        self.keep_exp_early.next = (!self.c_byp_tq.q.val()
            & (self.keep_old_own.val() | (self.keep_above_own.val() & !self.t_t_wraps.q.val())))
            | (self.c_byp_tq.q.val()
                & (self.keep_old_fw.val() | (self.keep_above_fw.val() & !self.t_t_wraps.q.val())));
        self.keep_exp_own.next = !self.c_byp_tq.q.val()
            & (self.keep_above_own.val() | !self.t_t_wraps.q.val())
            & self.keep_le.val();
        self.keep_exp_fw.next = self.c_byp_tq.q.val()
            & (self.keep_above_fw.val() | !self.t_t_wraps.q.val())
            & self.t_le_fw_d.val();

        // The decide stage's dequeue writes bank D (at edge n + 1), and it names this entry.
        self.write.next = self.c_valid.q.val() & self.c_enabled.q.val();
        self.bypass_next.next = self.write.val() & (self.c_key.q.val() == self.lk_key.val());

        // ---- Edge n + 1: the event and its tests into the decide stage. A RESUME of this
        // entry in this cycle makes Ton and the elapsed T both 0; a timestamp over half a wrap
        // old (age >= 2) is long ago; an empty window (max(Ton) = 0 or T = 0) holds no x.
        self.c_valid.d.next = self.t_valid.q.val();
        self.c_bad.d.next = self.t_bad.q.val();
        self.c_enabled.d.next = self.t_enabled.q.val();
        self.c_port.d.next = self.t_port.q.val();
        self.c_prio.d.next = self.t_prio.q.val();
        self.c_key.d.next = self.t_key.q.val();
        self.c_ecn.d.next = self.t_ecn.q.val();
        self.c_now.d.next = self.t_now.q.val();
        self.c_qlen.d.next = self.t_qlen.q.val();
        self.c_options.d.next = self.t_options.q.val();
        self.c_t.d.next = (self.t_fw.val() | self.t_ram.val()) & self.time_mask.val();
        self.c_q.d.next = (self.q_fw.val() | self.q_ram.val()) & self.queue_mask.val();
        self.c_ls.d.next = self.last_state.val();
        self.c_age_w.d.next = self.age_w.val();
        // The queue tests as T's: one term per word, ORed in the decide stage.
        self.c_q_ge_zero.d.next = self.tq_zero.val();
        self.c_q_ge_same.d.next = self.same_key.val() & self.q_ge_same.val();
        self.c_q_ge_r.d.next = self.tq_ram_r.val() & self.q_ge_ram_r.val();
        self.c_q_ge_fw.d.next = self.tq_fw_d.val() & self.q_ge_fw_d.val();
        self.c_q_ge_d.d.next = self.tq_ram_d.val() & self.q_ge_ram_d.val();
        self.c_q_gt_k.d.next = self.t_q_gt_k.q.val();
        self.c_q_lt_k_low.d.next = self.t_q_lt_k_low.q.val();
        if self.same_key.val() {
            self.c_age.d.next = 0.into();
            self.ton_short.next = !self.t_on_zero.q.val();
        } else {
            self.c_age.d.next = self.age_t.val();
            self.ton_short.next = !self.on_long.val();
        }
        self.c_ton_short.d.next = self.ton_short.val();
        self.c_pre.d.next = self.t_enabled.q.val()
            & !self.ton_short.val()
            & !(!self.t_options.q.val().get_bit(0) & self.t_q_lt_k_low.q.val());
        self.c_t_exp_early.d.next = self.t_exp_early.val();
        self.c_t_exp_r.d.next = self.t_exp_ram_r.val();
        self.c_t_exp_fw.d.next = self.t_exp_fw_d.val();
        self.c_t_exp_d.d.next = self.t_exp_ram_d.val();
        self.c_byp.d.next = self.bypass_next.val();
        self.c_byp_tq.d.next = self.bypass_next.val() & !self.same_key.val();
        self.c_keep_exp_early.d.next = self.keep_exp_early.val();
        self.c_keep_exp_own.d.next = self.keep_exp_own.val();
        self.c_keep_exp_fw.d.next = self.keep_exp_fw.val();
        self.c_keep_q_own.d.next =
            !self.c_byp_tq.q.val() & !(self.t_qlen.q.val() < self.c_q.q.val());
        self.c_keep_q_fw.d.next = self.c_byp_tq.q.val() & self.q_ge_fw_d.val();
        // A boundary one cycle ago: the elapsed T is 1, its age 0 (or 1: not old).
        self.c_bnd_t_exp.d.next = self.t_t_le_one.q.val();
        self.c_bnd_q_ge.d.next = !(self.t_qlen.q.val() < self.c_qlen.q.val());

        // ==== Cycle n + 1: the bypass of the older dequeue's write, then the flowchart.
        self.ls.next = self.c_ls.q.val();
        if self.c_byp.q.val() {
            self.ls.next = self.w_ls.val();
        }
        self.t_exp.next = self.c_t_exp_early.q.val()
            | self.c_t_exp_r.q.val()
            | self.c_t_exp_fw.q.val()
            | self.c_t_exp_d.q.val();
        self.q_ge_d.next = self.c_q_ge_zero.q.val()
            | self.c_q_ge_same.q.val()
            | self.c_q_ge_r.q.val()
            | self.c_q_ge_fw.q.val()
            | self.c_q_ge_d.q.val();
        self.age_sel.next = self.c_age.q.val();
        self.t_sel.next = self.c_t.q.val();
        self.q_sel.next = self.c_q.q.val();
        if self.c_byp_tq.q.val() {
            self.age_sel.next = self.w_age_now.val();
            self.t_sel.next = self.w_t.q.val();
            self.q_sel.next = self.fw_d_q.val();
            if self.w_boundary.q.val() {
                self.t_exp.next = self.c_bnd_t_exp.q.val();
                self.q_ge_d.next = self.c_bnd_q_ge.q.val();
            } else {
                self.t_exp.next = self.c_keep_exp_early.q.val()
                    | self.c_keep_exp_own.q.val()
                    | self.c_keep_exp_fw.q.val();
                self.q_ge_d.next = self.c_keep_q_own.q.val() | self.c_keep_q_fw.q.val();
            }
        }

        // Mark(UE) never on CE or Not-ECT; Mark(CE) never on Not-ECT.
        if self.c_ecn.q.val().all() | !self.c_ecn.q.val().any() {
            self.ecn_as_ue.next = self.c_ecn.q.val();
        } else {
            self.ecn_as_ue.next = self.ecn_ue.val();
        }
        if self.c_ecn.q.val().any() {
            self.ecn_as_ce.next = self.ecn_ce.val();
        } else {
            self.ecn_as_ce.next = self.c_ecn.q.val();
        }
        self.new_ls.next = self.ls.val();
        self.new_ecn.next = self.c_ecn.q.val();
        if self.c_ton_short.q.val() {
            self.new_ls.next = self.ls_und.val();
            self.new_ecn.next = self.ecn_as_ue.val();
        } else if self.ls.val() != self.ls_und.val() {
            if self.c_q_gt_k.q.val() {
                self.new_ls.next = self.ls_cong.val();
                self.new_ecn.next = self.ecn_as_ce.val();
            } else {
                self.new_ls.next = 0.into();
            }
        } else if !self.c_options.q.val().get_bit(0) & self.c_q_lt_k_low.q.val() {
            self.new_ls.next = 0.into();
        } else if self.t_exp.val() {
            if self.c_options.q.val().get_bit(0) & self.c_q_lt_k_low.q.val() {
                self.new_ls.next = 0.into();
            } else if self.q_ge_d.val() & self.c_q_gt_k.q.val() {
                self.new_ls.next = self.ls_cong.val();
                if self.c_options.q.val().get_bit(1) {
                    self.new_ecn.next = self.ecn_as_ce.val();
                }
            }
        }
        if !self.c_enabled.q.val() {
            self.new_ls.next = self.ls.val();
            self.new_ecn.next = self.c_ecn.q.val();
        }
        self.boundary.next =
            self.c_pre.q.val() & (self.ls.val() == self.ls_und.val()) & self.t_exp.val();

        // Bank D's new words: the entry's, or at a boundary `now` and the queue length (age 0).
        self.age_new.next = self.age_sel.val();
        if self.boundary.val() {
            self.write_t.next = self.c_now.q.val();
            self.q_rec.next = self.c_qlen.q.val();
            self.age_new.next = 0.into();
        } else {
            self.write_t.next = self.t_sel.val();
            self.q_rec.next = self.q_sel.val();
        }
        // (Q_rec has at most 30 bits: the shift drops only zeros.)
        self.write_qs.next = (bit_cast::<34, 32>(self.q_rec.val()) << 4)
            | (bit_cast::<34, 2>(self.age_new.val()) << 2)
            | bit_cast::<34, 2>(self.new_ls.val());
        self.write_key.next = self.c_key.q.val();
        // Timestamps are `time_bits` wide and queues `queue_bits`: the masks tell synthesis the
        // rest is 0, so the comparisons of the next cycle are that wide (yosys kept 32-bit
        // carry chains through the registers' loops).
        self.w_t.d.next = self.write_t.val() & self.time_mask.val();
        self.w_qs.d.next = self.write_qs.val() & self.qs_mask.val();
        self.w_boundary.d.next = self.boundary.val();
        self.last_t.next = self.w_t.q.val();
        self.last_qs.next = self.w_qs.q.val();

        // The marked packet (fields zero when not valid; a bad index passes the ECN unchanged).
        self.m_valid.next = self.c_valid.q.val() | self.c_bad.q.val();
        self.m_port.next = 0.into();
        self.m_prio.next = 0.into();
        self.m_ecn.next = 0.into();
        self.m_state.next = 0.into();
        if self.c_valid.q.val() | self.c_bad.q.val() {
            self.m_port.next = self.c_port.q.val();
            self.m_prio.next = self.c_prio.q.val();
            self.m_ecn.next = self.c_ecn.q.val();
        }
        if self.c_valid.q.val() {
            self.m_ecn.next = self.new_ecn.val();
            self.m_state.next = self.new_ls.val();
        }

        if self.reset.val() {
            self.t_valid.d.next = false;
            self.t_bad.d.next = false;
            self.t_enabled.d.next = false;
            self.c_valid.d.next = false;
            self.c_bad.d.next = false;
            self.c_enabled.d.next = false;
            self.c_pre.d.next = false;
            self.c_byp.d.next = false;
            self.c_byp_tq.d.next = false;
        }
    }
}
