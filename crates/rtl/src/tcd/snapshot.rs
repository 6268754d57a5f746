//! TCD's snapshot (the model's `snapshot`): the entry `entry_index` names, as it was before
//! the cycle the RAMs read it in, held in the `entry_*` status words until the next read. A
//! timestamp never set reads 0; a bad index reads all zero.
//!
//! Like a dequeue it takes three cycles: the read of edge n is registered (with the writes of
//! edge n merged, [`super::entries::Entries`]); in cycle n + 1 the entry's words, with bank D's
//! write of edge n + 1 merged, are registered at edge n + 2; in cycle n + 2 the write of the
//! dequeue decided in cycle n + 1, which neither could see, replaces bank D's words when it
//! names the entry (the bypass); the status words load at edge n + 3.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Snapshot {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Cycle n: the RAMs were read for the snapshot at edge n, and its index names an existing
    /// entry.
    pub read: Signal<In, Bit>,
    pub ok: Signal<In, Bit>,
    /// Cycle n + 1: the entry ([`super::entries::Entries`]): `t_on`, `t_T`, `Q_rec`, LAST_STATE,
    /// paused; the ages of `t_on`, `t_T` and bank D's last write (`{hi, lo}`, 3 = never); and
    /// whether the dequeue decided in this cycle writes it.
    pub t_on: Signal<In, Bits<32>>,
    pub t_t: Signal<In, Bits<32>>,
    pub q_rec: Signal<In, Bits<32>>,
    pub last_state: Signal<In, Bits<2>>,
    pub paused: Signal<In, Bits<1>>,
    pub age_on: Signal<In, Bits<2>>,
    pub age_t: Signal<In, Bits<2>>,
    pub age_w: Signal<In, Bits<2>>,
    pub bypass: Signal<In, Bit>,
    /// Cycle n + 2: bank D's write of the last edge (`{t_T}`, `{Q_rec, age, LAST_STATE}`).
    pub last_t: Signal<In, Bits<32>>,
    pub last_qs: Signal<In, Bits<34>>,

    /// A read is in flight (its words not yet in the status words).
    pub busy: Signal<Out, Bit>,
    /// The `entry_t_on`, `entry_t_t`, `entry_q_rec` and `entry_state` words.
    pub snap_t_on: Signal<Out, Bits<32>>,
    pub snap_t_t: Signal<Out, Bits<32>>,
    pub snap_q_rec: Signal<Out, Bits<32>>,
    pub snap_state: Signal<Out, Bits<8>>,

    never: Constant<Bits<2>>,

    // The read of edge n, at edge n + 1; the lookup's words, at edge n + 2.
    r_read: DFF<Bit>,
    r_ok: DFF<Bit>,
    l_read: DFF<Bit>,
    l_ok: DFF<Bit>,
    l_t_on: DFF<Bits<32>>,
    l_t_t: DFF<Bits<32>>,
    l_q_rec: DFF<Bits<32>>,
    l_ls: DFF<Bits<2>>,
    l_paused: DFF<Bits<1>>,
    l_age_on: DFF<Bits<2>>,
    l_age_t: DFF<Bits<2>>,
    l_age_w: DFF<Bits<2>>,
    l_bypass: DFF<Bit>,
    s_t_on: DFF<Bits<32>>,
    s_t_t: DFF<Bits<32>>,
    s_q_rec: DFF<Bits<32>>,
    s_state: DFF<Bits<8>>,
    w_age: Signal<Local, Bits<2>>,
    last_q30: Signal<Local, Bits<30>>,
    t_t_now: Signal<Local, Bits<32>>,
    q: Signal<Local, Bits<32>>,
    ls: Signal<Local, Bits<2>>,
    age_t_now: Signal<Local, Bits<2>>,
    flags: Signal<Local, Bits<8>>,
}

impl Snapshot {
    pub fn new() -> Self {
        Snapshot {
            clock: Default::default(),
            reset: Default::default(),
            read: Default::default(),
            ok: Default::default(),
            t_on: Default::default(),
            t_t: Default::default(),
            q_rec: Default::default(),
            last_state: Default::default(),
            paused: Default::default(),
            age_on: Default::default(),
            age_t: Default::default(),
            age_w: Default::default(),
            bypass: Default::default(),
            last_t: Default::default(),
            last_qs: Default::default(),
            busy: Default::default(),
            snap_t_on: Default::default(),
            snap_t_t: Default::default(),
            snap_q_rec: Default::default(),
            snap_state: Default::default(),
            never: Constant::new(3u64.into()),
            r_read: Default::default(),
            r_ok: Default::default(),
            l_read: Default::default(),
            l_ok: Default::default(),
            l_t_on: Default::default(),
            l_t_t: Default::default(),
            l_q_rec: Default::default(),
            l_ls: Default::default(),
            l_paused: Default::default(),
            l_age_on: Default::default(),
            l_age_t: Default::default(),
            l_age_w: Default::default(),
            l_bypass: Default::default(),
            s_t_on: Default::default(),
            s_t_t: Default::default(),
            s_q_rec: Default::default(),
            s_state: Default::default(),
            w_age: Default::default(),
            last_q30: Default::default(),
            t_t_now: Default::default(),
            q: Default::default(),
            ls: Default::default(),
            age_t_now: Default::default(),
            flags: Default::default(),
        }
    }
}

impl Logic for Snapshot {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, r_read, r_ok, l_read, l_ok, l_t_on, l_t_t, l_q_rec, l_ls, l_paused,
            l_age_on, l_age_t, l_age_w, l_bypass, s_t_on, s_t_t, s_q_rec, s_state
        );
        // ---- Edge n + 1: the read; edge n + 2: the lookup's words.
        self.r_read.d.next = self.read.val();
        self.r_ok.d.next = self.ok.val();
        self.l_read.d.next = self.r_read.q.val();
        self.l_ok.d.next = self.r_ok.q.val();
        self.l_t_on.d.next = self.t_on.val();
        self.l_t_t.d.next = self.t_t.val();
        self.l_q_rec.d.next = self.q_rec.val();
        self.l_ls.d.next = self.last_state.val();
        self.l_paused.d.next = self.paused.val();
        self.l_age_on.d.next = self.age_on.val();
        self.l_age_t.d.next = self.age_t.val();
        self.l_age_w.d.next = self.age_w.val();
        self.l_bypass.d.next = self.bypass.val();

        // ---- Cycle n + 2: bank D's words from the write the lookup missed, if it names the
        // entry; its stored age plus the half-wraps since (`age_w`, as the lookup saw it).
        self.w_age.next = self.last_qs.val().get_bits::<2>(2);
        self.last_q30.next = self.last_qs.val().get_bits::<30>(4);
        self.t_t_now.next = self.l_t_t.q.val();
        self.q.next = self.l_q_rec.q.val();
        self.ls.next = self.l_ls.q.val();
        self.age_t_now.next = self.l_age_t.q.val();
        if self.l_bypass.q.val() {
            self.t_t_now.next = self.last_t.val();
            self.q.next = bit_cast::<32, 30>(self.last_q30.val());
            self.ls.next = self.last_qs.val().get_bits::<2>(0);
            if self.w_age.val() == self.never.val() {
                self.age_t_now.next = self.never.val();
            } else if self.w_age.val().get_bit(1)
                | self.l_age_w.q.val().get_bit(1)
                | (self.w_age.val().get_bit(0) & self.l_age_w.q.val().get_bit(0))
            {
                self.age_t_now.next = 2.into();
            } else if self.w_age.val().get_bit(0) ^ self.l_age_w.q.val().get_bit(0) {
                self.age_t_now.next = 1.into();
            } else {
                self.age_t_now.next = 0.into();
            }
        }
        self.flags.next = bit_cast::<8, 2>(self.ls.val())
            | (bit_cast::<8, 1>(self.l_paused.q.val()) << 2)
            | (bit_cast::<8, 2>(self.l_age_on.q.val()) << 4)
            | (bit_cast::<8, 2>(self.age_t_now.val()) << 6);
        if self.l_read.q.val() {
            self.s_t_on.d.next = 0.into();
            self.s_t_t.d.next = 0.into();
            self.s_q_rec.d.next = 0.into();
            self.s_state.d.next = 0.into();
            if self.l_ok.q.val() {
                // Age 3 means never set: the RAM word is not meaningful, show 0.
                if self.l_age_on.q.val() != self.never.val() {
                    self.s_t_on.d.next = self.l_t_on.q.val();
                }
                if self.age_t_now.val() != self.never.val() {
                    self.s_t_t.d.next = self.t_t_now.val();
                }
                self.s_q_rec.d.next = self.q.val();
                self.s_state.d.next = self.flags.val();
            }
        }
        self.busy.next = self.r_read.q.val() | self.l_read.q.val();
        self.snap_t_on.next = self.s_t_on.q.val();
        self.snap_t_t.next = self.s_t_t.q.val();
        self.snap_q_rec.next = self.s_q_rec.q.val();
        self.snap_state.next = self.s_state.q.val();
        if self.reset.val() {
            self.r_read.d.next = false;
            self.l_read.d.next = false;
            self.s_t_on.d.next = 0.into();
            self.s_t_t.d.next = 0.into();
            self.s_q_rec.d.next = 0.into();
            self.s_state.d.next = 0.into();
        }
    }
}
