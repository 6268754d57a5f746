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
//! In cycle n the stage outputs the dequeued entry as the words it can come from (RAM or
//! forwarded write of bank R or D, one-hot selected by registers), so that
//! [`super::classify::Classify`] runs each test on every word before the selection. It takes
//! the dequeue's `flag_write` in the same cycle (the per-key flags change at edge n + 1), and
//! bank D's write from Classify's decide stage one cycle later (the write of edge n + 2; the
//! decide stage keeps the last write, which this stage forwards to the lookup).

use crate::narrow_ram::NarrowRam;
use rust_hdl::prelude::*;
use switchcraft_model::tcd::TcdConfig;

/// The entries of `K` keys of `KB` bits.
#[derive(LogicBlock)]
pub struct Entries<const K: usize, const KB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Cycle n: the received frame ([`super::capture::Capture`]), time, the dequeue's key.
    pub rx_valid: Signal<In, Bit>,
    pub rx_stop: Signal<In, Bit>,
    pub rx_key: Signal<In, Bits<KB>>,
    pub rx_qlen: Signal<In, Bits<32>>,
    pub now: Signal<In, Bits<32>>,
    pub half_wrap: Signal<In, Bit>,
    pub d_key: Signal<In, Bits<KB>>,
    /// Cycle n: the dequeue will write bank D (known from the captured event alone): its
    /// flags change at edge n + 1.
    pub flag_write: Signal<In, Bit>,
    /// Cycle n: bank D's write at edge n + 1 (the dequeue of cycle n - 1, decided now): key
    /// and words `{t_T}` and `{Q_rec, age of t_T, LAST_STATE}`; and the write of edge n.
    pub write: Signal<In, Bit>,
    pub write_key: Signal<In, Bits<KB>>,
    pub write_t: Signal<In, Bits<32>>,
    pub write_qs: Signal<In, Bits<34>>,
    pub last_t: Signal<In, Bits<32>>,
    pub last_qs: Signal<In, Bits<34>>,
    /// Edge n: the RAMs' read address and what the input stage loads for cycle n + 1.
    pub lookup_key: Signal<In, Bits<KB>>,
    pub next_rx_valid: Signal<In, Bit>,
    pub next_rx_key: Signal<In, Bits<KB>>,
    pub next_rx_stop: Signal<In, Bit>,
    pub next_d_valid: Signal<In, Bit>,
    pub next_d_key: Signal<In, Bits<KB>>,

    /// Cycle n: the key the RAMs read at edge n.
    pub lk_key: Signal<Out, Bits<KB>>,
    /// Cycle n: a RESUME of the dequeued entry (frames first: Ton and the elapsed T are 0).
    pub same_key: Signal<Out, Bit>,
    /// The words `t_on`, `t_T` and `Q_rec` can come from: the RAMs' read data and the
    /// forwarded write of bank R (bank D's is the decide stage's own `last_*`).
    pub ram_r_t: Signal<Out, Bits<32>>,
    pub ram_r_q: Signal<Out, Bits<32>>,
    pub ram_d_t: Signal<Out, Bits<32>>,
    pub ram_d_q: Signal<Out, Bits<32>>,
    pub fw_r_t: Signal<Out, Bits<32>>,
    pub fw_r_q: Signal<Out, Bits<32>>,
    /// `t_on` is bank R's forwarded write (else its RAM word).
    pub sel_r: Signal<Out, Bit>,
    /// Where `(t_T, Q_rec)` come from, one-hot or none (a RESUME of this cycle: `same_key`).
    pub tq_fw_r: Signal<Out, Bit>,
    pub tq_ram_r: Signal<Out, Bit>,
    pub tq_fw_d: Signal<Out, Bit>,
    pub tq_ram_d: Signal<Out, Bit>,
    pub tq_zero: Signal<Out, Bit>,
    /// The high bits of the entry's ages (>= 2: over half a wrap old, or never set), the
    /// age of its `t_T` (3: never set) and its LAST_STATE.
    pub on_old: Signal<Out, Bit>,
    pub t_old: Signal<Out, Bit>,
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
    // where its words come from and its per-key flags, decided at the edge from the keys alone
    // so that cycle n starts from registers instead of key compares and K-way multiplexers.
    /// Bank R's (D's) word is the write of the last edge (forwarded), not the RAM's.
    lk_sel_r: DFF<Bit>,
    lk_sel_d: DFF<Bit>,
    lk_pend: DFF<Bit>,
    lk_wr: DFF<Bit>,
    lk_paused_r: DFF<Bits<1>>,
    lk_on_hi_r: DFF<Bits<1>>,
    lk_on_lo_r: DFF<Bits<1>>,
    lk_w_hi_r: DFF<Bits<1>>,
    lk_w_lo_r: DFF<Bits<1>>,
    tq_fw_r_r: DFF<Bit>,
    tq_ram_r_r: DFF<Bit>,
    tq_fw_d_r: DFF<Bit>,
    tq_ram_d_r: DFF<Bit>,
    tq_zero_r: DFF<Bit>,
    /// The received frame captured at the last edge is a RESUME of a paused entry ...
    rx_resume_r: DFF<Bit>,
    /// ... and the dequeue captured at the same edge is of that entry.
    same_r: DFF<Bit>,

    rx_resume_keys: Signal<Local, Bits<K>>,
    rx_pause_keys: Signal<Local, Bits<K>>,
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
    // The next cycle's lookup: this edge's events on the looked-up key, and its flags now.
    lk_hit_d: Signal<Local, Bit>,
    lk_hit_resume: Signal<Local, Bit>,
    lk_hit_pause: Signal<Local, Bit>,
    lk_paused_now: Signal<Local, Bits<1>>,
    lk_on_hi_now: Signal<Local, Bits<1>>,
    lk_on_lo_now: Signal<Local, Bits<1>>,
    lk_w_hi_now: Signal<Local, Bits<1>>,
    lk_w_lo_now: Signal<Local, Bits<1>>,
    next_paused: Signal<Local, Bit>,
    next_resume: Signal<Local, Bit>,
    next_same: Signal<Local, Bit>,
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
            d_key: Default::default(),
            flag_write: Default::default(),
            write: Default::default(),
            write_key: Default::default(),
            last_t: Default::default(),
            last_qs: Default::default(),
            lk_key: Default::default(),
            age_w: Default::default(),
            write_t: Default::default(),
            write_qs: Default::default(),
            lookup_key: Default::default(),
            next_rx_valid: Default::default(),
            next_rx_key: Default::default(),
            next_rx_stop: Default::default(),
            next_d_valid: Default::default(),
            next_d_key: Default::default(),
            same_key: Default::default(),
            ram_r_t: Default::default(),
            ram_r_q: Default::default(),
            ram_d_t: Default::default(),
            ram_d_q: Default::default(),
            fw_r_t: Default::default(),
            fw_r_q: Default::default(),
            sel_r: Default::default(),
            tq_fw_r: Default::default(),
            tq_ram_r: Default::default(),
            tq_fw_d: Default::default(),
            tq_ram_d: Default::default(),
            tq_zero: Default::default(),
            on_old: Default::default(),
            t_old: Default::default(),
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
            lk_pend: Default::default(),
            lk_wr: Default::default(),
            lk_paused_r: Default::default(),
            lk_on_hi_r: Default::default(),
            lk_on_lo_r: Default::default(),
            lk_w_hi_r: Default::default(),
            lk_w_lo_r: Default::default(),
            tq_fw_r_r: Default::default(),
            tq_ram_r_r: Default::default(),
            tq_fw_d_r: Default::default(),
            tq_ram_d_r: Default::default(),
            tq_zero_r: Default::default(),
            rx_resume_r: Default::default(),
            same_r: Default::default(),
            rx_resume_keys: Default::default(),
            rx_pause_keys: Default::default(),
            lk_r_t: Default::default(),
            lk_r_q: Default::default(),
            lk_d_t: Default::default(),
            lk_d_qs: Default::default(),
            lk_t_t: Default::default(),
            lk_q_rec: Default::default(),
            lk_ls: Default::default(),
            lk_aw: Default::default(),
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
            lk_hit_d: Default::default(),
            lk_hit_resume: Default::default(),
            lk_hit_pause: Default::default(),
            lk_paused_now: Default::default(),
            lk_on_hi_now: Default::default(),
            lk_on_lo_now: Default::default(),
            lk_w_hi_now: Default::default(),
            lk_w_lo_now: Default::default(),
            next_paused: Default::default(),
            next_resume: Default::default(),
            next_same: Default::default(),
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
            lk_pend,
            lk_wr,
            lk_paused_r,
            lk_on_hi_r,
            lk_on_lo_r,
            lk_w_hi_r,
            lk_w_lo_r,
            tq_fw_r_r,
            tq_ram_r_r,
            tq_fw_d_r,
            tq_ram_d_r,
            tq_zero_r,
            rx_resume_r,
            same_r
        );
        self.ram_r_t_m.clock.next = self.clock.val();
        self.ram_r_q_m.clock.next = self.clock.val();
        self.ram_d_t_m.clock.next = self.clock.val();
        self.ram_d_qs.clock.next = self.clock.val();
        self.ram_r_t_m.read_address.next = self.lookup_key.val();
        self.ram_r_q_m.read_address.next = self.lookup_key.val();
        self.ram_d_t_m.read_address.next = self.lookup_key.val();
        self.ram_d_qs.read_address.next = self.lookup_key.val();

        // ---- Cycle n: the words the dequeued entry can come from, and their selects.
        self.lk_key_r.d.next = self.lookup_key.val();
        self.lk_key.next = self.lk_key_r.q.val();
        self.age_w.next = (bit_cast::<2, 1>(self.lk_w_hi_r.q.val()) << 1)
            | bit_cast::<2, 1>(self.lk_w_lo_r.q.val());
        self.same_key.next = self.same_r.q.val();
        self.ram_r_t.next = self.ram_r_t_m.read_data.val();
        self.ram_r_q.next = self.ram_r_q_m.read_data.val();
        self.ram_d_t.next = self.ram_d_t_m.read_data.val();
        self.ram_d_q30.next = self.ram_d_qs.read_data.val().get_bits::<30>(4);
        self.ram_d_q.next = bit_cast::<32, 30>(self.ram_d_q30.val());
        self.fw_r_t.next = self.fw_r_t_r.q.val();
        self.fw_r_q.next = self.fw_r_q_r.q.val();
        self.sel_r.next = self.lk_sel_r.q.val();
        self.tq_fw_r.next = self.tq_fw_r_r.q.val();
        self.tq_ram_r.next = self.tq_ram_r_r.q.val();
        self.tq_fw_d.next = self.tq_fw_d_r.q.val();
        self.tq_ram_d.next = self.tq_ram_d_r.q.val();
        self.tq_zero.next = self.tq_zero_r.q.val();
        self.on_old.next = self.lk_on_hi_r.q.val().any();
        // LAST_STATE comes from bank D alone (forwarded or RAM), else 0: one LUT per bit.
        self.last_state.next = 0.into();
        if self.lk_wr.q.val() {
            if self.lk_sel_d.q.val() {
                self.last_state.next = self.last_qs.val().get_bits::<2>(0);
            } else {
                self.last_state.next = self.ram_d_qs.read_data.val().get_bits::<2>(0);
            }
        }

        // ---- Received frames: `paused`, and a RESUME writes bank R.
        self.rx_resume_keys.next = 0.into();
        if self.rx_resume_r.q.val() {
            self.rx_resume_keys.next = self.one_k.val() << self.rx_key.val();
        }
        self.rx_pause_keys.next = 0.into();
        if self.rx_valid.val() & self.rx_stop.val() {
            self.rx_pause_keys.next = self.one_k.val() << self.rx_key.val();
        }
        self.paused.d.next =
            (self.paused.q.val() & !self.rx_resume_keys.val()) | self.rx_pause_keys.val();
        self.ram_r_t_m.write_enable.next = self.rx_resume_r.q.val();
        self.ram_r_t_m.write_address.next = self.rx_key.val();
        self.ram_r_t_m.write_data.next = self.now.val();
        self.ram_r_q_m.write_enable.next = self.rx_resume_r.q.val();
        self.ram_r_q_m.write_address.next = self.rx_key.val();
        self.ram_r_q_m.write_data.next = self.rx_qlen.val();
        self.lk_sel_r.d.next =
            self.rx_resume_r.q.val() & (self.rx_key.val() == self.lookup_key.val());
        self.fw_r_t_r.d.next = self.now.val();
        self.fw_r_q_r.d.next = self.rx_qlen.val();

        // ---- Lookup of the entry the RAMs were addressed with, as it was before this cycle.
        if self.lk_sel_r.q.val() {
            self.lk_r_t.next = self.fw_r_t_r.q.val();
            self.lk_r_q.next = self.fw_r_q_r.q.val();
        } else {
            self.lk_r_t.next = self.ram_r_t_m.read_data.val();
            self.lk_r_q.next = self.ram_r_q_m.read_data.val();
        }
        if self.lk_sel_d.q.val() {
            self.lk_d_t.next = self.last_t.val();
            self.lk_d_qs.next = self.last_qs.val();
        } else {
            self.lk_d_t.next = self.ram_d_t_m.read_data.val();
            self.lk_d_qs.next = self.ram_d_qs.read_data.val();
        }
        self.lk_q30.next = self.lk_d_qs.val().get_bits::<30>(4);
        self.lk_t_t.next = 0.into();
        self.lk_q_rec.next = 0.into();
        self.lk_ls.next = 0.into();
        if self.lk_wr.q.val() {
            self.lk_t_t.next = self.lk_d_t.val();
            self.lk_q_rec.next = bit_cast::<32, 30>(self.lk_q30.val());
            self.lk_ls.next = self.lk_d_qs.val().get_bits::<2>(0);
        }
        if self.lk_pend.q.val() {
            self.lk_t_t.next = self.lk_r_t.val();
            self.lk_q_rec.next = self.lk_r_q.val();
        }
        // The age of `t_T` (see `lk_age_t`); sat(aw + age_w) when both are below 3.
        self.lk_aw.next = self.lk_d_qs.val().get_bits::<2>(2);
        if self.lk_pend.q.val() {
            self.lk_age_t.next = (bit_cast::<2, 1>(self.lk_on_hi_r.q.val()) << 1)
                | bit_cast::<2, 1>(self.lk_on_lo_r.q.val());
        } else if !self.lk_wr.q.val() | (self.lk_aw.val() == self.never.val()) {
            self.lk_age_t.next = self.never.val();
        } else if self.lk_aw.val().get_bit(1)
            | self.lk_w_hi_r.q.val().any()
            | (self.lk_aw.val().get_bit(0) & self.lk_w_lo_r.q.val().any())
        {
            self.lk_age_t.next = 2.into();
        } else if self.lk_aw.val().get_bit(0) ^ self.lk_w_lo_r.q.val().any() {
            self.lk_age_t.next = 1.into();
        } else {
            self.lk_age_t.next = 0.into();
        }
        self.age_t.next = self.lk_age_t.val();
        self.t_old.next = self.lk_age_t.val().get_bit(1);

        // ---- The entry for the snapshot, before this cycle's events.
        self.entry_t_on.next = self.lk_r_t.val();
        self.entry_t_t.next = self.lk_t_t.val();
        self.entry_q_rec.next = self.lk_q_rec.val();
        self.entry_ls.next = self.lk_ls.val();
        self.entry_paused.next = self.lk_paused_r.q.val();
        self.entry_age_on.next = (bit_cast::<2, 1>(self.lk_on_hi_r.q.val()) << 1)
            | bit_cast::<2, 1>(self.lk_on_lo_r.q.val());
        self.entry_age_t.next = self.lk_age_t.val();

        // ---- Edge n + 1: bank D's write (from Classify's decide stage), and the flags of the
        // dequeue of cycle n.
        self.ram_d_t_m.write_enable.next = self.write.val();
        self.ram_d_t_m.write_address.next = self.write_key.val();
        self.ram_d_t_m.write_data.next = self.write_t.val();
        self.ram_d_qs.write_enable.next = self.write.val();
        self.ram_d_qs.write_address.next = self.write_key.val();
        self.ram_d_qs.write_data.next = self.write_qs.val();
        self.lk_sel_d.d.next = self.write.val() & (self.write_key.val() == self.lookup_key.val());
        self.d_write_keys.next = 0.into();
        if self.flag_write.val() {
            self.d_write_keys.next = self.one_k.val() << self.d_key.val();
        }
        // A dequeue's write of bank D carries a RESUME of its own cycle (the flowchart applies
        // the frame first), so D is then the newer bank.
        self.pending.d.next =
            (self.pending.q.val() | self.rx_resume_keys.val()) & !self.d_write_keys.val();

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
        self.age_on_hi.d.next = self.on_hi_stepped.val() & !self.rx_resume_keys.val();
        self.age_on_lo.d.next =
            (self.on_lo_stepped.val() & !self.rx_resume_keys.val()) | self.fresh_on.val();
        self.age_w_hi.d.next = self.w_hi_stepped.val() & !self.d_write_keys.val();
        self.age_w_lo.d.next =
            (self.w_lo_stepped.val() & !self.d_write_keys.val()) | self.fresh_w.val();

        // Synchronous reset: registers to their reset values (RAMs are covered by the flags).
        if self.reset.val() {
            self.lk_sel_r.d.next = false;
            self.lk_sel_d.d.next = false;
            self.paused.d.next = 0.into();
            self.pending.d.next = 0.into();
            self.age_on_hi.d.next = self.all_k.val();
            self.age_on_lo.d.next = self.all_k.val();
            self.age_w_hi.d.next = self.all_k.val();
            self.age_w_lo.d.next = self.all_k.val();
        }

        // ---- The next cycle's lookup: the per-key flags of the entry the RAMs are addressed
        // with, as this edge leaves them, and whether the captured frame is a RESUME of a paused
        // entry (of the dequeued one). Each is the flag's present value (a K-way multiplexer
        // on the key) updated by this edge's own events on that key (key comparisons, in
        // parallel), not a multiplexer after every key's update.
        self.lk_hit_d.next = self.flag_write.val() & (self.d_key.val() == self.lookup_key.val());
        self.lk_hit_resume.next =
            self.rx_resume_r.q.val() & (self.rx_key.val() == self.lookup_key.val());
        self.lk_hit_pause.next =
            self.rx_valid.val() & self.rx_stop.val() & (self.rx_key.val() == self.lookup_key.val());
        self.lk_pend.d.next = (self.pending.q.val().get_bit(self.lookup_key.val().index())
            | self.lk_hit_resume.val())
            & !self.lk_hit_d.val();
        self.lk_paused_now.next = self
            .paused
            .q
            .val()
            .get_bits::<1>(self.lookup_key.val().index());
        self.lk_paused_r.d.next = self.lk_paused_now.val();
        if self.lk_hit_resume.val() {
            self.lk_paused_r.d.next = 0.into();
        }
        if self.lk_hit_pause.val() {
            self.lk_paused_r.d.next = 1.into();
        }
        self.lk_on_hi_now.next = self
            .age_on_hi
            .q
            .val()
            .get_bits::<1>(self.lookup_key.val().index());
        self.lk_on_lo_now.next = self
            .age_on_lo
            .q
            .val()
            .get_bits::<1>(self.lookup_key.val().index());
        self.lk_w_hi_now.next = self
            .age_w_hi
            .q
            .val()
            .get_bits::<1>(self.lookup_key.val().index());
        self.lk_w_lo_now.next = self
            .age_w_lo
            .q
            .val()
            .get_bits::<1>(self.lookup_key.val().index());
        // The ages' step (see above), on the looked-up key alone; a restart wins.
        self.lk_on_hi_r.d.next = self.lk_on_hi_now.val();
        self.lk_on_lo_r.d.next = self.lk_on_lo_now.val();
        self.lk_w_hi_r.d.next = self.lk_w_hi_now.val();
        self.lk_w_lo_r.d.next = self.lk_w_lo_now.val();
        if self.half_wrap.val() {
            self.lk_on_hi_r.d.next = self.lk_on_hi_now.val() | self.lk_on_lo_now.val();
            self.lk_on_lo_r.d.next = !(self.lk_on_hi_now.val() ^ self.lk_on_lo_now.val());
            self.lk_w_hi_r.d.next = self.lk_w_hi_now.val() | self.lk_w_lo_now.val();
            self.lk_w_lo_r.d.next = !(self.lk_w_hi_now.val() ^ self.lk_w_lo_now.val());
        }
        if self.lk_hit_resume.val() {
            self.lk_on_hi_r.d.next = 0.into();
            self.lk_on_lo_r.d.next = bit_cast::<1, 1>(self.half_wrap.val().into());
        }
        if self.lk_hit_d.val() {
            self.lk_w_hi_r.d.next = 0.into();
            self.lk_w_lo_r.d.next = bit_cast::<1, 1>(self.half_wrap.val().into());
        }
        if self.reset.val() {
            self.lk_pend.d.next = false;
            self.lk_paused_r.d.next = 0.into();
            self.lk_on_hi_r.d.next = 1.into();
            self.lk_on_lo_r.d.next = 1.into();
            self.lk_w_hi_r.d.next = 1.into();
            self.lk_w_lo_r.d.next = 1.into();
        }
        self.lk_wr.d.next = !(self.lk_w_hi_r.d.val().any() & self.lk_w_lo_r.d.val().any());
        self.next_paused.next = (self.paused.q.val().get_bit(self.next_rx_key.val().index())
            & !(self.rx_resume_r.q.val() & (self.rx_key.val() == self.next_rx_key.val())))
            | (self.rx_valid.val()
                & self.rx_stop.val()
                & (self.rx_key.val() == self.next_rx_key.val()));
        self.next_resume.next = self.next_rx_valid.val()
            & !self.next_rx_stop.val()
            & self.next_paused.val()
            & !self.reset.val();
        self.rx_resume_r.d.next = self.next_resume.val();
        self.next_same.next = self.next_resume.val()
            & self.next_d_valid.val()
            & (self.next_rx_key.val() == self.next_d_key.val());
        self.same_r.d.next = self.next_same.val();
        self.tq_from_r.next = !self.next_same.val() & self.lk_pend.d.val();
        self.tq_from_d.next = !self.next_same.val() & !self.lk_pend.d.val() & self.lk_wr.d.val();
        self.tq_fw_r_r.d.next = self.tq_from_r.val() & self.lk_sel_r.d.val();
        self.tq_ram_r_r.d.next = self.tq_from_r.val() & !self.lk_sel_r.d.val();
        self.tq_fw_d_r.d.next = self.tq_from_d.val() & self.lk_sel_d.d.val();
        self.tq_ram_d_r.d.next = self.tq_from_d.val() & !self.lk_sel_d.d.val();
        self.tq_zero_r.d.next = !self.next_same.val() & !self.lk_pend.d.val() & !self.lk_wr.d.val();
    }
}
