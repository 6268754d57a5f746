//! TCD's entry storage (the model's `Entry` table, `apply_rx` and `snapshot`): banks R and D
//! with the forwarding of their last writes, the per-key flags, and the lookup of the entry the
//! RAMs read at edge n, prepared at that edge from the keys alone.
//!
//! Bank R, written only by received frames, holds `{t_on, Q at RESUME}`; bank D, written only
//! by dequeues, holds `{t_T, Q_rec, age of t_T when written, LAST_STATE}` (see the module doc
//! of [`super`]). Per key: `paused`, `pending` (R is newer than D), the age of `t_on` and the
//! age of bank D's last write. Every per-key flag changes on events known at capture (frames,
//! and whether a dequeue writes bank D); only bank D's words depend on the flowchart.
//!
//! In cycle n (read) the RAMs' words are registered, each with the writes it could not see
//! merged in (bank R: the frame captured at edge n - 1, written at edge n; bank D: the dequeues
//! decided in cycles n - 1 and n - 2, written from their registered words at edges n + 1 and
//! n, so that the decide stage's word goes into a flip-flop and not across to the LUT RAM),
//! with the entry's per-key flags (their K-way multiplexer split over cycles n - 1, by port,
//! and n, by priority) and the one-hot selects of its words. In cycle n + 1
//! (test) the stage outputs the dequeued entry as the words it can come from (that register,
//! or bank D's write of edge n + 1, the decide stage's `last_*`), so that
//! [`super::classify::Classify`] runs each test on every word before the selection. It takes
//! the dequeue's `flag_write` in its capture cycle (the per-key flags change at edge n + 1),
//! and bank D's write from Classify's decide stage in cycle n + 2 (registered at edge n + 3,
//! written at edge n + 4).

use crate::narrow_ram::NarrowRam;
use rust_hdl::prelude::*;
use switchcraft_model::tcd::TcdConfig;

/// The entries of `K` keys of `KB` bits.
#[derive(LogicBlock)]
pub struct Entries<const K: usize, const KB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Cycle n: the received frame of the mode ([`super::capture::Capture`]), the mode (the
    /// credit bus when set), time.
    pub rx_valid: Signal<In, Bit>,
    pub rx_stop: Signal<In, Bit>,
    pub rx_key: Signal<In, Bits<KB>>,
    pub rx_qlen: Signal<In, Bits<32>>,
    pub mode: Signal<In, Bit>,
    pub now: Signal<In, Bits<32>>,
    pub half_wrap: Signal<In, Bit>,
    /// Cycle n: the dequeue will write bank D (known from the captured event alone): its
    /// flags change at edge n + 1.
    pub flag_write: Signal<In, Bit>,
    /// Any cycle m: bank D's write decided in cycle m by Classify's decide stage (its key),
    /// and the words `{t_T}` and `{Q_rec, age of t_T, LAST_STATE}` of the write decided in
    /// cycle m - 1 (`last_*`, registered at edge m), which the RAM takes at edge m + 1.
    pub write: Signal<In, Bit>,
    pub write_key: Signal<In, Bits<KB>>,
    pub last_t: Signal<In, Bits<32>>,
    pub last_qs: Signal<In, Bits<34>>,
    /// Edge n: the RAMs' read address and what the input stage loads for cycle n + 1 (the
    /// frames of both buses, and the dequeue).
    pub lookup_key: Signal<In, Bits<KB>>,
    pub next_p_valid: Signal<In, Bit>,
    pub next_p_key: Signal<In, Bits<KB>>,
    pub next_p_stop: Signal<In, Bit>,
    pub next_c_valid: Signal<In, Bit>,
    pub next_c_key: Signal<In, Bits<KB>>,
    pub next_c_stop: Signal<In, Bit>,
    pub next_d_valid: Signal<In, Bit>,
    pub next_d_key: Signal<In, Bits<KB>>,

    /// Cycle n + 1 (the tests of the dequeue captured at edge n): the key the RAMs read at
    /// edge n.
    pub lk_key: Signal<Out, Bits<KB>>,
    /// Cycle n + 1: a RESUME captured at edge n names the dequeued entry (frames first: Ton
    /// and the elapsed T are 0), and its queue length.
    pub same_key: Signal<Out, Bit>,
    pub fw_r_q: Signal<Out, Bits<32>>,
    /// Cycle n + 1: the words `t_on`, `t_T` and `Q_rec` can come from: the words the RAMs read
    /// at edge n, registered, with the writes of edge n merged (bank D's write of edge n + 1
    /// is the decide stage's own `last_*`).
    pub ram_r_t: Signal<Out, Bits<32>>,
    pub ram_r_q: Signal<Out, Bits<32>>,
    pub ram_d_t: Signal<Out, Bits<32>>,
    pub ram_d_q: Signal<Out, Bits<32>>,
    /// Where `(t_T, Q_rec)` come from, one-hot or none (a RESUME of edge n: `same_key`).
    pub tq_ram_r: Signal<Out, Bit>,
    pub tq_fw_d: Signal<Out, Bit>,
    pub tq_ram_d: Signal<Out, Bit>,
    pub tq_zero: Signal<Out, Bit>,
    /// The high bits of the entry's ages (>= 2: over half a wrap old, or never set): of
    /// `t_on`, and of `t_T` for each word it can come from (bank R's, bank D's write of edge
    /// n + 1, bank D's read), for the select to pick after Classify's windows; the age of its
    /// `t_T` (3: never set) and its LAST_STATE.
    pub on_old: Signal<Out, Bit>,
    pub t_old_fw: Signal<Out, Bit>,
    pub t_old_d: Signal<Out, Bit>,
    /// Age 1 (the half-wrap before `now`'s) for the same words.
    pub on_one: Signal<Out, Bit>,
    pub t_one_fw: Signal<Out, Bit>,
    pub t_one_d: Signal<Out, Bit>,
    pub age_t: Signal<Out, Bits<2>>,
    /// The age of bank D's last write (3: never written), as edge n left it.
    pub age_w: Signal<Out, Bits<2>>,
    pub last_state: Signal<Out, Bits<2>>,
    /// The entry the RAMs read, before this cycle's events (for [`super::snapshot::Snapshot`]):
    /// `t_on`, `t_T`, `Q_rec`, LAST_STATE, paused; the ages `{hi, lo}` of `t_on` and `t_T`.
    pub entry_t_on: Signal<Out, Bits<32>>,
    pub entry_t_t: Signal<Out, Bits<32>>,
    pub entry_q_rec: Signal<Out, Bits<32>>,
    pub entry_ls: Signal<Out, Bits<2>>,
    pub entry_paused: Signal<Out, Bits<1>>,
    pub entry_age_on: Signal<Out, Bits<2>>,
    pub entry_age_t: Signal<Out, Bits<2>>,

    one_k: Constant<Bits<K>>,
    all_k: Constant<Bits<K>>,
    never: Constant<Bits<2>>,

    ram_r_t_m: NarrowRam<KB, 32>,
    ram_r_q_m: NarrowRam<KB, 32>,
    ram_d_t_m: NarrowRam<KB, 32>,
    ram_d_qs: NarrowRam<KB, 34>,
    fw_r_t_r: DFF<Bits<32>>,
    fw_r_q_r: DFF<Bits<32>>,
    lk_key_r: DFF<Bits<KB>>,
    paused: DFF<Bits<K>>,
    pending: DFF<Bits<K>>,
    age_on_hi: DFF<Bits<K>>,
    age_on_lo: DFF<Bits<K>>,
    /// Half-wraps since bank D was last written (saturating at 2; 3: never written).
    age_w_hi: DFF<Bits<K>>,
    age_w_lo: DFF<Bits<K>>,

    // The entry the RAMs were addressed with at the last edge, as it was after that edge:
    // where its words come from, decided at the edge from the keys alone, and its per-key
    // flags, so that cycle n starts from registers instead of key compares and K-way
    // multiplexers.
    /// Bank R's (D's) word is the write of the last edge (forwarded), not the RAM's.
    lk_sel_r: DFF<Bit>,
    lk_sel_d: DFF<Bit>,
    /// Bank D's word is the write the RAM took at the last edge, from `fw2_*` (the read saw
    /// the RAM before it).
    lk_sel_d2: DFF<Bit>,
    /// Bank D's write decided in the last cycle (enable, key), which the RAM takes at the next
    /// edge from `last_*`; and that word again, one edge later, for the read that missed it.
    wr_en_r: DFF<Bit>,
    wr_key_r: DFF<Bits<KB>>,
    fw2_t: DFF<Bits<32>>,
    fw2_qs: DFF<Bits<34>>,
    /// The per-key flags of the entry the RAMs read, as edge n left them, for its port's
    /// eight priorities: the first half of the lookup's K-way multiplexer, on the key of
    /// cycle n - 1, the flags' registers and the updates of edge n; cycle n picks the
    /// priority. `cand_wr`: bank D was ever written (`age_w` below 3).
    cand_paused: DFF<Bits<8>>,
    cand_pend: DFF<Bits<8>>,
    cand_wr: DFF<Bits<8>>,
    cand_on_hi: DFF<Bits<8>>,
    cand_on_lo: DFF<Bits<8>>,
    cand_w_hi: DFF<Bits<8>>,
    cand_w_lo: DFF<Bits<8>>,
    // ---- Edge n + 1: the read of edge n, registered (words with the writes of edge n merged),
    // the entry's flags, where `(t_T, Q_rec)` come from, and bank D's write of edge n + 1
    // names it.
    l_r_t: DFF<Bits<32>>,
    l_r_q: DFF<Bits<32>>,
    l_d_t: DFF<Bits<32>>,
    l_d_qs: DFF<Bits<34>>,
    l_key: DFF<Bits<KB>>,
    l_same: DFF<Bit>,
    l_pend: DFF<Bit>,
    l_wr: DFF<Bit>,
    l_paused: DFF<Bits<1>>,
    l_on_hi: DFF<Bits<1>>,
    l_on_lo: DFF<Bits<1>>,
    l_w_hi: DFF<Bits<1>>,
    l_w_lo: DFF<Bits<1>>,
    l_fw_d: DFF<Bit>,
    l_tq_r: DFF<Bit>,
    l_tq_fw_d: DFF<Bit>,
    l_tq_ram_d: DFF<Bit>,
    l_tq_zero: DFF<Bit>,
    // Decided at the edge that captures a frame, for each bus (the mode picks one in the
    // frame's cycle): the frame is a RESUME of a paused entry, by key and as one bit (the
    // per-key updates need no K-way multiplexer), or a PAUSE, by key; and the dequeue
    // captured at the same edge is of the resumed entry.
    res_p_keys: DFF<Bits<K>>,
    /// The dequeue captured at the last edge, by key (valid): its flags' updates decode no
    /// key in its cycle.
    d_keys_r: DFF<Bits<K>>,
    res_c_keys: DFF<Bits<K>>,
    pau_p_keys: DFF<Bits<K>>,
    pau_c_keys: DFF<Bits<K>>,
    res_p_r: DFF<Bit>,
    res_c_r: DFF<Bit>,
    same_p_r: DFF<Bit>,
    same_c_r: DFF<Bit>,

    // Cycle n: the frame of the mode is a RESUME of a paused entry (one bit, and by key), a
    // PAUSE (by key), and the dequeue is of the resumed entry.
    rx_resume: Signal<Local, Bit>,
    rx_resume_keys: Signal<Local, Bits<K>>,
    rx_pause_keys: Signal<Local, Bits<K>>,
    same: Signal<Local, Bit>,
    // Lookup of `lookup_key`, before this cycle's events.
    lk_r_t: Signal<Local, Bits<32>>,
    lk_r_q: Signal<Local, Bits<32>>,
    lk_d_t: Signal<Local, Bits<32>>,
    lk_d_qs: Signal<Local, Bits<34>>,
    lk_t_t: Signal<Local, Bits<32>>,
    lk_q_rec: Signal<Local, Bits<32>>,
    lk_ls: Signal<Local, Bits<2>>,
    /// The age of `t_T` stored with bank D's word (forwarded or RAM), and the entry's age of
    /// `t_T` now: `age_on` while R is newer, never set while D was never written, else the
    /// stored age plus the half-wraps since the write.
    lk_aw: Signal<Local, Bits<2>>,
    aw_fw: Signal<Local, Bits<2>>,
    aw_rd: Signal<Local, Bits<2>>,
    lk_age_t: Signal<Local, Bits<2>>,
    // `Q_rec` of bank D's words ({Q_rec, age, LAST_STATE}; at most 30 bits).
    ram_d_q30: Signal<Local, Bits<30>>,
    lk_q30: Signal<Local, Bits<30>>,
    // The dequeue's write to bank D, by key.
    d_write_keys: Signal<Local, Bits<K>>,
    // Ages: all step on a half-wrap; written timestamps restart (at 1 on the half-wrap edge).
    on_hi_stepped: Signal<Local, Bits<K>>,
    on_lo_stepped: Signal<Local, Bits<K>>,
    w_hi_stepped: Signal<Local, Bits<K>>,
    w_lo_stepped: Signal<Local, Bits<K>>,
    fresh_on: Signal<Local, Bits<K>>,
    fresh_w: Signal<Local, Bits<K>>,
    // The flags' next values as registers alone decide them (without the dequeue's write of
    // bank D and reset): what the next lookup's candidates are selected from.
    paused_next: Signal<Local, Bits<K>>,
    pend_kept: Signal<Local, Bits<K>>,
    on_hi_next: Signal<Local, Bits<K>>,
    on_lo_next: Signal<Local, Bits<K>>,
    // Cycle n: the looked-up entry's flags (the candidate of its priority).
    lk_prio: Signal<Local, Bits<3>>,
    lk_pend: Signal<Local, Bit>,
    lk_wr: Signal<Local, Bit>,
    /// Cycle n: the decide stage's write (of edge n + 1) names the entry.
    fw_d_now: Signal<Local, Bit>,
    // The next cycle's lookup: the first bit of its port's keys; its eight priorities' flags
    // as registers alone decide them, the dequeue's key and write among them, the write's
    // restarted age, and `age_w` as this edge leaves it.
    lk_base: Signal<Local, Bits<KB>>,
    s_paused: Signal<Local, Bits<8>>,
    s_pend: Signal<Local, Bits<8>>,
    s_on_hi: Signal<Local, Bits<8>>,
    s_on_lo: Signal<Local, Bits<8>>,
    s_w_hi_st: Signal<Local, Bits<8>>,
    s_w_lo_st: Signal<Local, Bits<8>>,
    s_deq: Signal<Local, Bits<8>>,
    s_dw: Signal<Local, Bits<8>>,
    s_fresh_w: Signal<Local, Bits<8>>,
    c_w_hi: Signal<Local, Bits<8>>,
    c_w_lo: Signal<Local, Bits<8>>,
    // The next frames (of each bus): their entry paused as this edge leaves it, RESUME of it.
    next_paused_p: Signal<Local, Bit>,
    next_paused_c: Signal<Local, Bit>,
    next_resume_p: Signal<Local, Bit>,
    next_resume_c: Signal<Local, Bit>,
    tq_from_r: Signal<Local, Bit>,
    tq_from_d: Signal<Local, Bit>,
}

impl<const K: usize, const KB: usize> Entries<K, KB> {
    pub fn new(cfg: &TcdConfig) -> Self {
        Entries {
            clock: Default::default(),
            reset: Default::default(),
            rx_valid: Default::default(),
            rx_stop: Default::default(),
            rx_key: Default::default(),
            rx_qlen: Default::default(),
            now: Default::default(),
            half_wrap: Default::default(),
            flag_write: Default::default(),
            write: Default::default(),
            write_key: Default::default(),
            last_t: Default::default(),
            last_qs: Default::default(),
            lk_key: Default::default(),
            age_w: Default::default(),
            lookup_key: Default::default(),
            mode: Default::default(),
            next_p_valid: Default::default(),
            next_p_key: Default::default(),
            next_p_stop: Default::default(),
            next_c_valid: Default::default(),
            next_c_key: Default::default(),
            next_c_stop: Default::default(),
            next_d_valid: Default::default(),
            next_d_key: Default::default(),
            same_key: Default::default(),
            ram_r_t: Default::default(),
            ram_r_q: Default::default(),
            ram_d_t: Default::default(),
            ram_d_q: Default::default(),
            fw_r_q: Default::default(),
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
            last_state: Default::default(),
            entry_t_on: Default::default(),
            entry_t_t: Default::default(),
            entry_q_rec: Default::default(),
            entry_ls: Default::default(),
            entry_paused: Default::default(),
            entry_age_on: Default::default(),
            entry_age_t: Default::default(),
            one_k: Constant::new(1u64.into()),
            all_k: Constant::new(!Bits::<K>::default()),
            never: Constant::new(3u64.into()),
            ram_r_t_m: NarrowRam::new(cfg.time_bits as usize),
            ram_r_q_m: NarrowRam::new(cfg.queue_bits as usize),
            ram_d_t_m: NarrowRam::new(cfg.time_bits as usize),
            ram_d_qs: NarrowRam::new(cfg.queue_bits as usize + 4),
            fw_r_t_r: Default::default(),
            fw_r_q_r: Default::default(),
            lk_key_r: Default::default(),
            paused: Default::default(),
            pending: Default::default(),
            age_on_hi: Default::default(),
            age_on_lo: Default::default(),
            age_w_hi: Default::default(),
            age_w_lo: Default::default(),
            lk_sel_r: Default::default(),
            lk_sel_d: Default::default(),
            lk_sel_d2: Default::default(),
            wr_en_r: Default::default(),
            wr_key_r: Default::default(),
            fw2_t: Default::default(),
            fw2_qs: Default::default(),
            cand_paused: Default::default(),
            cand_pend: Default::default(),
            cand_wr: Default::default(),
            cand_on_hi: Default::default(),
            cand_on_lo: Default::default(),
            cand_w_hi: Default::default(),
            cand_w_lo: Default::default(),
            l_r_t: Default::default(),
            l_r_q: Default::default(),
            l_d_t: Default::default(),
            l_d_qs: Default::default(),
            l_key: Default::default(),
            l_same: Default::default(),
            l_pend: Default::default(),
            l_wr: Default::default(),
            l_paused: Default::default(),
            l_on_hi: Default::default(),
            l_on_lo: Default::default(),
            l_w_hi: Default::default(),
            l_w_lo: Default::default(),
            l_fw_d: Default::default(),
            l_tq_r: Default::default(),
            l_tq_fw_d: Default::default(),
            l_tq_ram_d: Default::default(),
            l_tq_zero: Default::default(),
            res_p_keys: Default::default(),
            d_keys_r: Default::default(),
            res_c_keys: Default::default(),
            pau_p_keys: Default::default(),
            pau_c_keys: Default::default(),
            res_p_r: Default::default(),
            res_c_r: Default::default(),
            same_p_r: Default::default(),
            same_c_r: Default::default(),
            rx_resume: Default::default(),
            rx_resume_keys: Default::default(),
            rx_pause_keys: Default::default(),
            same: Default::default(),
            lk_r_t: Default::default(),
            lk_r_q: Default::default(),
            lk_d_t: Default::default(),
            lk_d_qs: Default::default(),
            lk_t_t: Default::default(),
            lk_q_rec: Default::default(),
            lk_ls: Default::default(),
            lk_aw: Default::default(),
            aw_fw: Default::default(),
            aw_rd: Default::default(),
            lk_age_t: Default::default(),
            ram_d_q30: Default::default(),
            lk_q30: Default::default(),
            d_write_keys: Default::default(),
            on_hi_stepped: Default::default(),
            on_lo_stepped: Default::default(),
            w_hi_stepped: Default::default(),
            w_lo_stepped: Default::default(),
            fresh_on: Default::default(),
            fresh_w: Default::default(),
            lk_prio: Default::default(),
            lk_pend: Default::default(),
            lk_wr: Default::default(),
            fw_d_now: Default::default(),
            lk_base: Default::default(),
            s_paused: Default::default(),
            s_pend: Default::default(),
            s_on_hi: Default::default(),
            s_on_lo: Default::default(),
            s_w_hi_st: Default::default(),
            s_w_lo_st: Default::default(),
            s_deq: Default::default(),
            s_dw: Default::default(),
            s_fresh_w: Default::default(),
            c_w_hi: Default::default(),
            c_w_lo: Default::default(),
            paused_next: Default::default(),
            pend_kept: Default::default(),
            on_hi_next: Default::default(),
            on_lo_next: Default::default(),
            next_paused_p: Default::default(),
            next_paused_c: Default::default(),
            next_resume_p: Default::default(),
            next_resume_c: Default::default(),
            tq_from_r: Default::default(),
            tq_from_d: Default::default(),
        }
    }
}

impl<const K: usize, const KB: usize> Logic for Entries<K, KB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            fw_r_t_r,
            fw_r_q_r,
            lk_key_r,
            paused,
            pending,
            age_on_hi,
            age_on_lo,
            age_w_hi,
            age_w_lo,
            lk_sel_r,
            lk_sel_d,
            lk_sel_d2,
            wr_en_r,
            wr_key_r,
            fw2_t,
            fw2_qs,
            cand_paused,
            cand_pend,
            cand_wr,
            cand_on_hi,
            cand_on_lo,
            cand_w_hi,
            cand_w_lo,
            l_r_t,
            l_r_q,
            l_d_t,
            l_d_qs,
            l_key,
            l_same,
            l_pend,
            l_wr,
            l_paused,
            l_on_hi,
            l_on_lo,
            l_w_hi,
            l_w_lo,
            l_fw_d,
            l_tq_r,
            l_tq_fw_d,
            l_tq_ram_d,
            l_tq_zero,
            res_p_keys,
            d_keys_r,
            res_c_keys,
            pau_p_keys,
            pau_c_keys,
            res_p_r,
            res_c_r,
            same_p_r,
            same_c_r
        );
        // The frame of the mode, from the bus registers decided at its capture edge.
        if self.mode.val() {
            self.rx_resume.next = self.res_c_r.q.val();
            self.rx_resume_keys.next = self.res_c_keys.q.val();
            self.rx_pause_keys.next = self.pau_c_keys.q.val();
            self.same.next = self.same_c_r.q.val();
        } else {
            self.rx_resume.next = self.res_p_r.q.val();
            self.rx_resume_keys.next = self.res_p_keys.q.val();
            self.rx_pause_keys.next = self.pau_p_keys.q.val();
            self.same.next = self.same_p_r.q.val();
        }
        self.ram_r_t_m.clock.next = self.clock.val();
        self.ram_r_q_m.clock.next = self.clock.val();
        self.ram_d_t_m.clock.next = self.clock.val();
        self.ram_d_qs.clock.next = self.clock.val();
        self.ram_r_t_m.read_address.next = self.lookup_key.val();
        self.ram_r_q_m.read_address.next = self.lookup_key.val();
        self.ram_d_t_m.read_address.next = self.lookup_key.val();
        self.ram_d_qs.read_address.next = self.lookup_key.val();

        // ---- Cycle n (read): the RAMs' words, with the writes of edge n they could not see
        // merged (bank R: the frame captured at edge n - 1; bank D: the dequeue decided in
        // cycle n - 1), registered at edge n + 1 with nothing else on the path; the entry's
        // flags, its priority's candidate (an 8-way multiplexer on a register), and where
        // `(t_T, Q_rec)` will come from in cycle n + 1.
        self.lk_key_r.d.next = self.lookup_key.val();
        self.lk_prio.next = self.lk_key_r.q.val().get_bits::<3>(0);
        if self.lk_sel_r.q.val() {
            self.l_r_t.d.next = self.fw_r_t_r.q.val();
            self.l_r_q.d.next = self.fw_r_q_r.q.val();
        } else {
            self.l_r_t.d.next = self.ram_r_t_m.read_data.val();
            self.l_r_q.d.next = self.ram_r_q_m.read_data.val();
        }
        if self.lk_sel_d.q.val() {
            self.l_d_t.d.next = self.last_t.val();
            self.l_d_qs.d.next = self.last_qs.val();
        } else if self.lk_sel_d2.q.val() {
            self.l_d_t.d.next = self.fw2_t.q.val();
            self.l_d_qs.d.next = self.fw2_qs.q.val();
        } else {
            self.l_d_t.d.next = self.ram_d_t_m.read_data.val();
            self.l_d_qs.d.next = self.ram_d_qs.read_data.val();
        }
        self.lk_pend.next = self.cand_pend.q.val().get_bit(self.lk_prio.val().index());
        self.lk_wr.next = self.cand_wr.q.val().get_bit(self.lk_prio.val().index());
        self.l_paused.d.next = self
            .cand_paused
            .q
            .val()
            .get_bits::<1>(self.lk_prio.val().index());
        self.l_on_hi.d.next = self
            .cand_on_hi
            .q
            .val()
            .get_bits::<1>(self.lk_prio.val().index());
        self.l_on_lo.d.next = self
            .cand_on_lo
            .q
            .val()
            .get_bits::<1>(self.lk_prio.val().index());
        self.l_w_hi.d.next = self
            .cand_w_hi
            .q
            .val()
            .get_bits::<1>(self.lk_prio.val().index());
        self.l_w_lo.d.next = self
            .cand_w_lo
            .q
            .val()
            .get_bits::<1>(self.lk_prio.val().index());
        self.l_key.d.next = self.lk_key_r.q.val();
        self.l_same.d.next = self.same.val();
        self.l_pend.d.next = self.lk_pend.val();
        self.l_wr.d.next = self.lk_wr.val();
        // Bank D's write of edge n + 1 (the dequeue decided in this cycle) names the entry: in
        // cycle n + 1 it is the decide stage's `last_*`.
        self.fw_d_now.next = self.write.val() & (self.write_key.val() == self.lk_key_r.q.val());
        self.l_fw_d.d.next = self.fw_d_now.val();
        self.tq_from_r.next = !self.same.val() & self.lk_pend.val();
        self.tq_from_d.next = !self.same.val() & !self.lk_pend.val() & self.lk_wr.val();
        self.l_tq_r.d.next = self.tq_from_r.val();
        self.l_tq_fw_d.d.next = self.tq_from_d.val() & self.fw_d_now.val();
        self.l_tq_ram_d.d.next = self.tq_from_d.val() & !self.fw_d_now.val();
        self.l_tq_zero.d.next = !self.same.val() & !self.lk_pend.val() & !self.lk_wr.val();

        // ---- Cycle n + 1 (test): the words the dequeued entry can come from, and their
        // selects, for Classify's tests.
        self.lk_key.next = self.l_key.q.val();
        self.same_key.next = self.l_same.q.val();
        self.ram_r_t.next = self.l_r_t.q.val();
        self.ram_r_q.next = self.l_r_q.q.val();
        self.ram_d_t.next = self.l_d_t.q.val();
        self.ram_d_q30.next = self.l_d_qs.q.val().get_bits::<30>(4);
        self.ram_d_q.next = bit_cast::<32, 30>(self.ram_d_q30.val());
        self.fw_r_q.next = self.fw_r_q_r.q.val();
        self.tq_ram_r.next = self.l_tq_r.q.val();
        self.tq_fw_d.next = self.l_tq_fw_d.q.val();
        self.tq_ram_d.next = self.l_tq_ram_d.q.val();
        self.tq_zero.next = self.l_tq_zero.q.val();
        self.age_w.next =
            (bit_cast::<2, 1>(self.l_w_hi.q.val()) << 1) | bit_cast::<2, 1>(self.l_w_lo.q.val());
        self.on_old.next = self.l_on_hi.q.val().any();
        // Bank D's word as the lookup found it: the write of edge n + 1, or the read's.
        if self.l_fw_d.q.val() {
            self.lk_d_t.next = self.last_t.val();
            self.lk_d_qs.next = self.last_qs.val();
        } else {
            self.lk_d_t.next = self.l_d_t.q.val();
            self.lk_d_qs.next = self.l_d_qs.q.val();
        }
        // LAST_STATE comes from bank D alone, else 0.
        self.last_state.next = 0.into();
        if self.l_wr.q.val() {
            self.last_state.next = self.lk_d_qs.val().get_bits::<2>(0);
        }

        // ---- Received frames: `paused`, and a RESUME writes bank R.
        self.paused_next.next =
            (self.paused.q.val() & !self.rx_resume_keys.val()) | self.rx_pause_keys.val();
        self.paused.d.next = self.paused_next.val();
        self.ram_r_t_m.write_enable.next = self.rx_resume.val();
        self.ram_r_t_m.write_address.next = self.rx_key.val();
        self.ram_r_t_m.write_data.next = self.now.val();
        self.ram_r_q_m.write_enable.next = self.rx_resume.val();
        self.ram_r_q_m.write_address.next = self.rx_key.val();
        self.ram_r_q_m.write_data.next = self.rx_qlen.val();
        self.lk_sel_r.d.next = self.rx_resume.val() & (self.rx_key.val() == self.lookup_key.val());
        self.fw_r_t_r.d.next = self.now.val();
        self.fw_r_q_r.d.next = self.rx_qlen.val();

        // ---- Lookup of the entry the RAMs were addressed with, as edge n left it (cycle n + 1).
        self.lk_r_t.next = self.l_r_t.q.val();
        self.lk_r_q.next = self.l_r_q.q.val();
        self.lk_q30.next = self.lk_d_qs.val().get_bits::<30>(4);
        self.lk_t_t.next = 0.into();
        self.lk_q_rec.next = 0.into();
        self.lk_ls.next = 0.into();
        if self.l_wr.q.val() {
            self.lk_t_t.next = self.lk_d_t.val();
            self.lk_q_rec.next = bit_cast::<32, 30>(self.lk_q30.val());
            self.lk_ls.next = self.lk_d_qs.val().get_bits::<2>(0);
        }
        if self.l_pend.q.val() {
            self.lk_t_t.next = self.lk_r_t.val();
            self.lk_q_rec.next = self.lk_r_q.val();
        }
        // The age of `t_T` (see `lk_age_t`); sat(aw + age_w) when both are below 3.
        self.lk_aw.next = self.lk_d_qs.val().get_bits::<2>(2);
        if self.l_pend.q.val() {
            self.lk_age_t.next = (bit_cast::<2, 1>(self.l_on_hi.q.val()) << 1)
                | bit_cast::<2, 1>(self.l_on_lo.q.val());
        } else if !self.l_wr.q.val() | (self.lk_aw.val() == self.never.val()) {
            self.lk_age_t.next = self.never.val();
        } else if self.lk_aw.val().get_bit(1)
            | self.l_w_hi.q.val().any()
            | (self.lk_aw.val().get_bit(0) & self.l_w_lo.q.val().any())
        {
            self.lk_age_t.next = 2.into();
        } else if self.lk_aw.val().get_bit(0) ^ self.l_w_lo.q.val().any() {
            self.lk_age_t.next = 1.into();
        } else {
            self.lk_age_t.next = 0.into();
        }
        self.age_t.next = self.lk_age_t.val();
        // "Old" (age >= 2) per word, as `lk_age_t` would find it: bank R's is `on_old` (its
        // `age_on`); bank D's is its age when written plus `age_w`, saturating (3, never set,
        // is old too).
        // Selecting the word's age first put the forwarded-write flag, the word's multiplexer
        // and the sum in front of Classify's "T expired" (the ECP5's critical path).
        self.aw_fw.next = self.last_qs.val().get_bits::<2>(2);
        self.aw_rd.next = self.l_d_qs.q.val().get_bits::<2>(2);
        self.t_old_fw.next = self.aw_fw.val().get_bit(1)
            | self.l_w_hi.q.val().any()
            | (self.aw_fw.val().get_bit(0) & self.l_w_lo.q.val().any());
        self.t_old_d.next = self.aw_rd.val().get_bit(1)
            | self.l_w_hi.q.val().any()
            | (self.aw_rd.val().get_bit(0) & self.l_w_lo.q.val().any());
        self.on_one.next = !self.l_on_hi.q.val().any() & self.l_on_lo.q.val().any();
        self.t_one_fw.next = !self.aw_fw.val().get_bit(1)
            & !self.l_w_hi.q.val().any()
            & (self.aw_fw.val().get_bit(0) ^ self.l_w_lo.q.val().any());
        self.t_one_d.next = !self.aw_rd.val().get_bit(1)
            & !self.l_w_hi.q.val().any()
            & (self.aw_rd.val().get_bit(0) ^ self.l_w_lo.q.val().any());

        // ---- The entry for the snapshot, before this cycle's events.
        self.entry_t_on.next = self.lk_r_t.val();
        self.entry_t_t.next = self.lk_t_t.val();
        self.entry_q_rec.next = self.lk_q_rec.val();
        self.entry_ls.next = self.lk_ls.val();
        self.entry_paused.next = self.l_paused.q.val();
        self.entry_age_on.next =
            (bit_cast::<2, 1>(self.l_on_hi.q.val()) << 1) | bit_cast::<2, 1>(self.l_on_lo.q.val());
        self.entry_age_t.next = self.lk_age_t.val();

        // ---- Edge n + 1: bank D's write (from Classify's decide stage), and the flags of the
        // dequeue of cycle n.
        self.wr_en_r.d.next = self.write.val();
        self.wr_key_r.d.next = self.write_key.val();
        self.fw2_t.d.next = self.last_t.val();
        self.fw2_qs.d.next = self.last_qs.val();
        self.ram_d_t_m.write_enable.next = self.wr_en_r.q.val();
        self.ram_d_t_m.write_address.next = self.wr_key_r.q.val();
        self.ram_d_t_m.write_data.next = self.last_t.val();
        self.ram_d_qs.write_enable.next = self.wr_en_r.q.val();
        self.ram_d_qs.write_address.next = self.wr_key_r.q.val();
        self.ram_d_qs.write_data.next = self.last_qs.val();
        self.lk_sel_d.d.next = self.write.val() & (self.write_key.val() == self.lookup_key.val());
        self.lk_sel_d2.d.next =
            self.wr_en_r.q.val() & (self.wr_key_r.q.val() == self.lookup_key.val());
        self.d_write_keys.next = 0.into();
        if self.flag_write.val() {
            self.d_write_keys.next = self.d_keys_r.q.val();
        }
        // A dequeue's write of bank D carries a RESUME of its own cycle (the flowchart applies
        // the frame first), so D is then the newer bank.
        self.pend_kept.next = self.pending.q.val() | self.rx_resume_keys.val();
        self.pending.d.next = self.pend_kept.val() & !self.d_write_keys.val();

        // ---- Ages: 0 -> 1 -> 2 -> 2 and 3 -> 3 on a half-wrap; a RESUME restarts `age_on`, a
        // write of bank D restarts `age_w`, at 0, or at 1 on the half-wrap edge itself.
        if self.half_wrap.val() {
            self.on_hi_stepped.next = self.age_on_hi.q.val() | self.age_on_lo.q.val();
            self.on_lo_stepped.next = !(self.age_on_hi.q.val() ^ self.age_on_lo.q.val());
            self.w_hi_stepped.next = self.age_w_hi.q.val() | self.age_w_lo.q.val();
            self.w_lo_stepped.next = !(self.age_w_hi.q.val() ^ self.age_w_lo.q.val());
            self.fresh_on.next = self.rx_resume_keys.val();
            self.fresh_w.next = self.d_write_keys.val();
        } else {
            self.on_hi_stepped.next = self.age_on_hi.q.val();
            self.on_lo_stepped.next = self.age_on_lo.q.val();
            self.w_hi_stepped.next = self.age_w_hi.q.val();
            self.w_lo_stepped.next = self.age_w_lo.q.val();
            self.fresh_on.next = 0.into();
            self.fresh_w.next = 0.into();
        }
        self.on_hi_next.next = self.on_hi_stepped.val() & !self.rx_resume_keys.val();
        self.on_lo_next.next =
            (self.on_lo_stepped.val() & !self.rx_resume_keys.val()) | self.fresh_on.val();
        self.age_on_hi.d.next = self.on_hi_next.val();
        self.age_on_lo.d.next = self.on_lo_next.val();
        self.age_w_hi.d.next = self.w_hi_stepped.val() & !self.d_write_keys.val();
        self.age_w_lo.d.next =
            (self.w_lo_stepped.val() & !self.d_write_keys.val()) | self.fresh_w.val();

        // Synchronous reset: registers to their reset values (RAMs are covered by the flags).
        if self.reset.val() {
            self.lk_sel_r.d.next = false;
            self.lk_sel_d.d.next = false;
            self.lk_sel_d2.d.next = false;
            self.wr_en_r.d.next = false;
            self.paused.d.next = 0.into();
            self.pending.d.next = 0.into();
            self.age_on_hi.d.next = self.all_k.val();
            self.age_on_lo.d.next = self.all_k.val();
            self.age_w_hi.d.next = self.all_k.val();
            self.age_w_lo.d.next = self.all_k.val();
        }

        // ---- The next cycle's lookup: the per-key flags of the port the RAMs are addressed
        // with, as this edge leaves them, for its eight priorities; cycle n + 1 picks the
        // priority. Selected from what registers alone decide (the frames' updates, the ages'
        // steps), with the dequeue's write of bank D (its enable is late: the priority's
        // enable bit, fanned out) and reset applied to the eight after the multiplexer.
        self.lk_base.next = (self.lookup_key.val() >> 3) << 3;
        self.s_paused.next = self
            .paused_next
            .val()
            .get_bits::<8>(self.lk_base.val().index());
        self.s_pend.next = self
            .pend_kept
            .val()
            .get_bits::<8>(self.lk_base.val().index());
        self.s_on_hi.next = self
            .on_hi_next
            .val()
            .get_bits::<8>(self.lk_base.val().index());
        self.s_on_lo.next = self
            .on_lo_next
            .val()
            .get_bits::<8>(self.lk_base.val().index());
        self.s_w_hi_st.next = self
            .w_hi_stepped
            .val()
            .get_bits::<8>(self.lk_base.val().index());
        self.s_w_lo_st.next = self
            .w_lo_stepped
            .val()
            .get_bits::<8>(self.lk_base.val().index());
        self.s_deq.next = self
            .d_keys_r
            .q
            .val()
            .get_bits::<8>(self.lk_base.val().index());
        self.s_dw.next = 0.into();
        if self.flag_write.val() {
            self.s_dw.next = self.s_deq.val();
        }
        self.s_fresh_w.next = 0.into();
        if self.half_wrap.val() {
            self.s_fresh_w.next = self.s_dw.val();
        }
        self.cand_paused.d.next = self.s_paused.val();
        self.cand_pend.d.next = self.s_pend.val() & !self.s_dw.val();
        self.cand_on_hi.d.next = self.s_on_hi.val();
        self.cand_on_lo.d.next = self.s_on_lo.val();
        self.c_w_hi.next = self.s_w_hi_st.val() & !self.s_dw.val();
        self.c_w_lo.next = (self.s_w_lo_st.val() & !self.s_dw.val()) | self.s_fresh_w.val();
        if self.reset.val() {
            self.cand_paused.d.next = 0.into();
            self.cand_pend.d.next = 0.into();
            self.cand_on_hi.d.next = 0xFF.into();
            self.cand_on_lo.d.next = 0xFF.into();
            self.c_w_hi.next = 0xFF.into();
            self.c_w_lo.next = 0xFF.into();
        }
        self.cand_w_hi.d.next = self.c_w_hi.val();
        self.cand_w_lo.d.next = self.c_w_lo.val();
        self.cand_wr.d.next = !(self.c_w_hi.val() & self.c_w_lo.val());
        // The next frames: a RESUME of a paused entry (`paused` as this edge leaves it: the
        // register's bit, less this cycle's RESUME, plus its PAUSE), decided for both buses.
        self.next_paused_p.next = (self.paused.q.val().get_bit(self.next_p_key.val().index())
            & !(self.rx_resume.val() & (self.rx_key.val() == self.next_p_key.val())))
            | (self.rx_valid.val()
                & self.rx_stop.val()
                & (self.rx_key.val() == self.next_p_key.val()));
        self.next_paused_c.next = (self.paused.q.val().get_bit(self.next_c_key.val().index())
            & !(self.rx_resume.val() & (self.rx_key.val() == self.next_c_key.val())))
            | (self.rx_valid.val()
                & self.rx_stop.val()
                & (self.rx_key.val() == self.next_c_key.val()));
        self.next_resume_p.next = self.next_p_valid.val()
            & !self.next_p_stop.val()
            & self.next_paused_p.val()
            & !self.reset.val();
        self.next_resume_c.next = self.next_c_valid.val()
            & !self.next_c_stop.val()
            & self.next_paused_c.val()
            & !self.reset.val();
        self.res_p_r.d.next = self.next_resume_p.val();
        self.res_c_r.d.next = self.next_resume_c.val();
        self.same_p_r.d.next = self.next_resume_p.val()
            & self.next_d_valid.val()
            & (self.next_p_key.val() == self.next_d_key.val());
        self.same_c_r.d.next = self.next_resume_c.val()
            & self.next_d_valid.val()
            & (self.next_c_key.val() == self.next_d_key.val());
        // By key: the per-key flags' updates decode no key in the event's cycle.
        self.d_keys_r.d.next = 0.into();
        if self.next_d_valid.val() {
            self.d_keys_r.d.next = self.one_k.val() << self.next_d_key.val();
        }
        self.res_p_keys.d.next = 0.into();
        if self.next_p_valid.val() & !self.next_p_stop.val() & !self.reset.val() {
            self.res_p_keys.d.next =
                (self.one_k.val() << self.next_p_key.val()) & self.paused.d.val();
        }
        self.res_c_keys.d.next = 0.into();
        if self.next_c_valid.val() & !self.next_c_stop.val() & !self.reset.val() {
            self.res_c_keys.d.next =
                (self.one_k.val() << self.next_c_key.val()) & self.paused.d.val();
        }
        self.pau_p_keys.d.next = 0.into();
        if self.next_p_valid.val() & self.next_p_stop.val() {
            self.pau_p_keys.d.next = self.one_k.val() << self.next_p_key.val();
        }
        self.pau_c_keys.d.next = 0.into();
        if self.next_c_valid.val() & self.next_c_stop.val() {
            self.pau_c_keys.d.next = self.one_k.val() << self.next_c_key.val();
        }
    }
}
