//! TCD's flowchart (the model's `classify`, spec §1.3) for the dequeue of cycle n: Ton against
//! max(Ton), the T period, the queue tests against K, K_low and Q_rec, and the ECN marks.
//!
//! Time tests are windows: `now - x < L` (mod 2^time_bits, L below half a wrap) holds exactly
//! when x lies in the L cycles up to `now`, (now - L, now]: `x > now - L and x <= now`, or, when
//! the window wraps below 0 (now < L), either of the two. With `now - L` registered, each test
//! is two comparisons of x in parallel instead of a subtraction and then a comparison; they run
//! on every word x can come from ([`super::entries::Entries`]: RAM or forwarded write), and the
//! registered one-hot selects pick a result afterwards.

use rust_hdl::prelude::*;
use switchcraft_core::mask;
use switchcraft_model::tcd::{TcdConfig, CE, CONG, UE, UND};

#[derive(LogicBlock)]
pub struct Classify {
    pub clock: Signal<In, Clock>,
    /// Time of cycle n and n + 1.
    pub now: Signal<In, Bits<32>>,
    pub now_next: Signal<In, Bits<32>>,
    /// Registers: `options`, `k`, `k_low`, `prio_enable` as stored, `max_ton` and `t_period`
    /// as this edge leaves them (the windows are registered).
    pub options: Signal<In, Bits<2>>,
    pub k: Signal<In, Bits<32>>,
    pub k_low: Signal<In, Bits<32>>,
    pub prio_enable: Signal<In, Bits<8>>,
    pub max_ton_next: Signal<In, Bits<32>>,
    pub t_period_next: Signal<In, Bits<32>>,
    /// The dequeue of cycle n.
    pub d_valid: Signal<In, Bit>,
    pub d_prio: Signal<In, Bits<3>>,
    pub d_qlen: Signal<In, Bits<32>>,
    pub d_ecn: Signal<In, Bits<2>>,
    /// A RESUME of the dequeued entry in this cycle, and its queue length (masked).
    pub same_key: Signal<In, Bit>,
    pub rx_qlen: Signal<In, Bits<32>>,
    /// The entry's source words and selects, ages and LAST_STATE ([`super::entries::Entries`]).
    pub ram_r_t: Signal<In, Bits<32>>,
    pub ram_r_q: Signal<In, Bits<32>>,
    pub ram_d_t: Signal<In, Bits<32>>,
    pub ram_d_q: Signal<In, Bits<32>>,
    pub fw_r_t: Signal<In, Bits<32>>,
    pub fw_r_q: Signal<In, Bits<32>>,
    pub fw_d_t: Signal<In, Bits<32>>,
    pub fw_d_q: Signal<In, Bits<32>>,
    pub sel_r: Signal<In, Bit>,
    pub tq_fw_r: Signal<In, Bit>,
    pub tq_ram_r: Signal<In, Bit>,
    pub tq_fw_d: Signal<In, Bit>,
    pub tq_ram_d: Signal<In, Bit>,
    pub tq_zero: Signal<In, Bit>,
    pub on_old: Signal<In, Bit>,
    pub t_old: Signal<In, Bit>,
    /// The age of the entry's `t_T` (3: never set), stored with the new bank-D word.
    pub age_t: Signal<In, Bits<2>>,
    pub last_state: Signal<In, Bits<2>>,

    /// The dequeue updates its entry (valid and its priority enabled).
    pub write: Signal<Out, Bit>,
    pub new_ls: Signal<Out, Bits<2>>,
    pub new_ecn: Signal<Out, Bits<2>>,
    /// The entry's new bank-D words: `t_T` and `{Q_rec, age of t_T, LAST_STATE}` (from the
    /// entry, after a RESUME of this cycle, or restarted at a boundary: age 0).
    pub write_t: Signal<Out, Bits<32>>,
    pub write_qs: Signal<Out, Bits<34>>,

    time_mask: Constant<Bits<32>>,
    queue_mask: Constant<Bits<32>>,
    ls_cong: Constant<Bits<2>>,
    ls_und: Constant<Bits<2>>,
    ecn_ue: Constant<Bits<2>>,
    ecn_ce: Constant<Bits<2>>,

    /// The windows of this cycle: `now - max_ton` and `now - T` (mod 2^time_bits), whether
    /// they wrapped below 0, and whether max(Ton) and T are 0 (empty windows).
    on_start: DFF<Bits<32>>,
    on_wraps: DFF<Bit>,
    on_zero: DFF<Bit>,
    t_start: DFF<Bits<32>>,
    t_wraps: DFF<Bit>,
    t_zero: DFF<Bit>,

    // `deq_qlen >= Q_rec` on each word Q_rec can come from.
    q_ge_ram_r: Signal<Local, Bit>,
    q_ge_fw_r: Signal<Local, Bit>,
    q_ge_ram_d: Signal<Local, Bit>,
    q_ge_fw_d: Signal<Local, Bit>,
    q_ge_same: Signal<Local, Bit>,
    q_ge: Signal<Local, Bit>,
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
    on_win: Signal<Local, Bit>,
    t_win: Signal<Local, Bit>,
    ton_short: Signal<Local, Bit>,
    t_expired: Signal<Local, Bit>,
    enabled: Signal<Local, Bit>,
    at_boundary: Signal<Local, Bit>,
    ecn_as_ue: Signal<Local, Bits<2>>,
    ecn_as_ce: Signal<Local, Bits<2>>,
    // The entry's T and Q_rec from a forwarded word or from a RAM.
    t_fw: Signal<Local, Bits<32>>,
    q_fw: Signal<Local, Bits<32>>,
    t_ram: Signal<Local, Bits<32>>,
    q_ram: Signal<Local, Bits<32>>,
    q_rec: Signal<Local, Bits<32>>,
    age_w: Signal<Local, Bits<2>>,
    /// The T period ended: bank D restarts T at `now` with `Q_rec` = the queue length.
    boundary: Signal<Local, Bit>,
}

impl Classify {
    pub fn new(cfg: &TcdConfig) -> Self {
        Classify {
            clock: Default::default(),
            now: Default::default(),
            now_next: Default::default(),
            options: Default::default(),
            k: Default::default(),
            k_low: Default::default(),
            prio_enable: Default::default(),
            max_ton_next: Default::default(),
            t_period_next: Default::default(),
            d_valid: Default::default(),
            d_prio: Default::default(),
            d_qlen: Default::default(),
            d_ecn: Default::default(),
            same_key: Default::default(),
            rx_qlen: Default::default(),
            ram_r_t: Default::default(),
            ram_r_q: Default::default(),
            ram_d_t: Default::default(),
            ram_d_q: Default::default(),
            fw_r_t: Default::default(),
            fw_r_q: Default::default(),
            fw_d_t: Default::default(),
            fw_d_q: Default::default(),
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
            write: Default::default(),
            boundary: Default::default(),
            new_ls: Default::default(),
            new_ecn: Default::default(),
            write_t: Default::default(),
            write_qs: Default::default(),
            time_mask: Constant::new(mask(cfg.time_bits).into()),
            queue_mask: Constant::new(mask(cfg.queue_bits).into()),
            ls_cong: Constant::new(CONG.into()),
            ls_und: Constant::new(UND.into()),
            ecn_ue: Constant::new(UE.into()),
            ecn_ce: Constant::new(CE.into()),
            on_start: Default::default(),
            on_wraps: Default::default(),
            on_zero: Default::default(),
            t_start: Default::default(),
            t_wraps: Default::default(),
            t_zero: Default::default(),
            q_ge_ram_r: Default::default(),
            q_ge_fw_r: Default::default(),
            q_ge_ram_d: Default::default(),
            q_ge_fw_d: Default::default(),
            q_ge_same: Default::default(),
            q_ge: Default::default(),
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
            on_win: Default::default(),
            t_win: Default::default(),
            ton_short: Default::default(),
            t_expired: Default::default(),
            enabled: Default::default(),
            at_boundary: Default::default(),
            ecn_as_ue: Default::default(),
            ecn_as_ce: Default::default(),
            t_fw: Default::default(),
            q_fw: Default::default(),
            t_ram: Default::default(),
            q_ram: Default::default(),
            q_rec: Default::default(),
            age_w: Default::default(),
        }
    }
}

impl Logic for Classify {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, on_start, on_wraps, on_zero, t_start, t_wraps, t_zero);

        // The flowchart's queue test on every word Q_rec can come from (0 when never written:
        // always true), selected like the word itself.
        self.q_ge_ram_r.next = self.d_qlen.val() >= self.ram_r_q.val();
        self.q_ge_fw_r.next = self.d_qlen.val() >= self.fw_r_q.val();
        self.q_ge_ram_d.next = self.d_qlen.val() >= self.ram_d_q.val();
        self.q_ge_fw_d.next = self.d_qlen.val() >= self.fw_d_q.val();
        self.q_ge_same.next = self.d_qlen.val() >= self.rx_qlen.val();
        self.q_ge.next = (self.same_key.val() & self.q_ge_same.val())
            | (self.tq_fw_r.val() & self.q_ge_fw_r.val())
            | (self.tq_ram_r.val() & self.q_ge_ram_r.val())
            | (self.tq_fw_d.val() & self.q_ge_fw_d.val())
            | (self.tq_ram_d.val() & self.q_ge_ram_d.val())
            | self.tq_zero.val();

        // The windows (see the module doc) on every word a timestamp can come from.
        self.at_or_before_ram_r.next = self.ram_r_t.val() <= self.now.val();
        self.at_or_before_fw_r.next = self.fw_r_t.val() <= self.now.val();
        self.at_or_before_ram_d.next = self.ram_d_t.val() <= self.now.val();
        self.at_or_before_fw_d.next = self.fw_d_t.val() <= self.now.val();
        self.on_after_ram_r.next = self.ram_r_t.val() > self.on_start.q.val();
        self.on_win_ram_r.next = (self.on_after_ram_r.val() & self.at_or_before_ram_r.val())
            | (self.on_wraps.q.val() & (self.on_after_ram_r.val() | self.at_or_before_ram_r.val()));
        self.on_after_fw_r.next = self.fw_r_t.val() > self.on_start.q.val();
        self.on_win_fw_r.next = (self.on_after_fw_r.val() & self.at_or_before_fw_r.val())
            | (self.on_wraps.q.val() & (self.on_after_fw_r.val() | self.at_or_before_fw_r.val()));
        self.t_after_ram_r.next = self.ram_r_t.val() > self.t_start.q.val();
        self.t_win_ram_r.next = (self.t_after_ram_r.val() & self.at_or_before_ram_r.val())
            | (self.t_wraps.q.val() & (self.t_after_ram_r.val() | self.at_or_before_ram_r.val()));
        self.t_after_fw_r.next = self.fw_r_t.val() > self.t_start.q.val();
        self.t_win_fw_r.next = (self.t_after_fw_r.val() & self.at_or_before_fw_r.val())
            | (self.t_wraps.q.val() & (self.t_after_fw_r.val() | self.at_or_before_fw_r.val()));
        self.t_after_ram_d.next = self.ram_d_t.val() > self.t_start.q.val();
        self.t_win_ram_d.next = (self.t_after_ram_d.val() & self.at_or_before_ram_d.val())
            | (self.t_wraps.q.val() & (self.t_after_ram_d.val() | self.at_or_before_ram_d.val()));
        self.t_after_fw_d.next = self.fw_d_t.val() > self.t_start.q.val();
        self.t_win_fw_d.next = (self.t_after_fw_d.val() & self.at_or_before_fw_d.val())
            | (self.t_wraps.q.val() & (self.t_after_fw_d.val() | self.at_or_before_fw_d.val()));
        // x = 0 (D never written): 0 > start never holds, 0 <= now always does. (Not used
        // when a RESUME of this cycle names the entry: `same_key` below.)
        self.t_win.next = (self.tq_zero.val() & self.t_wraps.q.val())
            | (self.tq_fw_r.val() & self.t_win_fw_r.val())
            | (self.tq_ram_r.val() & self.t_win_ram_r.val())
            | (self.tq_fw_d.val() & self.t_win_fw_d.val())
            | (self.tq_ram_d.val() & self.t_win_ram_d.val());
        self.on_win.next = self.on_win_ram_r.val();
        if self.sel_r.val() {
            self.on_win.next = self.on_win_fw_r.val();
        }

        // The flowchart. A RESUME of this entry in this cycle makes Ton and the elapsed T both
        // 0. A timestamp over half a wrap old (age >= 2) is long ago.
        if self.same_key.val() {
            self.ton_short.next = !self.on_zero.q.val();
            self.t_expired.next = self.t_zero.q.val();
        } else {
            // (An empty window, max(Ton) = 0 or T = 0, holds no x.)
            self.ton_short.next = !self.on_old.val() & self.on_win.val();
            self.t_expired.next = self.t_old.val() | !self.t_win.val();
        }
        self.enabled.next = self.prio_enable.val().get_bit(self.d_prio.val().index());
        self.at_boundary.next = self.options.val().get_bit(0);
        // Mark(UE) never on CE or Not-ECT; Mark(CE) never on Not-ECT.
        if self.d_ecn.val().all() | !self.d_ecn.val().any() {
            self.ecn_as_ue.next = self.d_ecn.val();
        } else {
            self.ecn_as_ue.next = self.ecn_ue.val();
        }
        if self.d_ecn.val().any() {
            self.ecn_as_ce.next = self.ecn_ce.val();
        } else {
            self.ecn_as_ce.next = self.d_ecn.val();
        }
        self.new_ls.next = self.last_state.val();
        self.new_ecn.next = self.d_ecn.val();
        self.boundary.next = false;
        if self.ton_short.val() {
            self.new_ls.next = self.ls_und.val();
            self.new_ecn.next = self.ecn_as_ue.val();
        } else if self.last_state.val() != self.ls_und.val() {
            if self.d_qlen.val() > self.k.val() {
                self.new_ls.next = self.ls_cong.val();
                self.new_ecn.next = self.ecn_as_ce.val();
            } else {
                self.new_ls.next = 0.into();
            }
        } else if !self.at_boundary.val() & (self.d_qlen.val() < self.k_low.val()) {
            self.new_ls.next = 0.into();
        } else if self.t_expired.val() {
            self.boundary.next = true;
            if self.at_boundary.val() & (self.d_qlen.val() < self.k_low.val()) {
                self.new_ls.next = 0.into();
            } else if self.q_ge.val() & (self.d_qlen.val() > self.k.val()) {
                self.new_ls.next = self.ls_cong.val();
                if self.options.val().get_bit(1) {
                    self.new_ecn.next = self.ecn_as_ce.val();
                }
            }
        }
        if !self.enabled.val() {
            self.new_ls.next = self.last_state.val();
            self.new_ecn.next = self.d_ecn.val();
            self.boundary.next = false;
        }
        self.write.next = self.d_valid.val() & self.enabled.val();

        // The new bank-D words: the entry's T and Q_rec (the one-hot selects OR the words
        // together), or at a boundary `now` and the queue length.
        self.t_fw.next = 0.into();
        self.q_fw.next = 0.into();
        if self.same_key.val() {
            self.t_fw.next = self.now.val();
            self.q_fw.next = self.rx_qlen.val();
        }
        if self.tq_fw_r.val() {
            self.t_fw.next = self.t_fw.val() | self.fw_r_t.val();
            self.q_fw.next = self.q_fw.val() | self.fw_r_q.val();
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
        // A RESUME of this cycle restarted T at `now` as well (age 0).
        self.age_w.next = self.age_t.val();
        if self.same_key.val() {
            self.age_w.next = 0.into();
        }
        if self.boundary.val() {
            self.write_t.next = self.now.val();
            self.q_rec.next = self.d_qlen.val() & self.queue_mask.val();
            self.age_w.next = 0.into();
        } else {
            self.write_t.next = self.t_fw.val() | self.t_ram.val();
            self.q_rec.next = self.q_fw.val() | self.q_ram.val();
        }
        // (Q_rec has at most 30 bits: the shift drops only zeros.)
        self.write_qs.next = (bit_cast::<34, 32>(self.q_rec.val()) << 4)
            | (bit_cast::<34, 2>(self.age_w.val()) << 2)
            | bit_cast::<34, 2>(self.new_ls.val());

        // The next cycle's windows.
        self.on_start.d.next =
            (self.now_next.val() - self.max_ton_next.val()) & self.time_mask.val();
        self.on_wraps.d.next = self.now_next.val() < self.max_ton_next.val();
        self.on_zero.d.next = !self.max_ton_next.val().any();
        self.t_start.d.next =
            (self.now_next.val() - self.t_period_next.val()) & self.time_mask.val();
        self.t_wraps.d.next = self.now_next.val() < self.t_period_next.val();
        self.t_zero.d.next = !self.t_period_next.val().any();
    }
}
