//! TCD's snapshot (the model's `snapshot`): the entry `entry_index` names, as it was before
//! the cycle the RAMs read it in, held in the `entry_*` status words until the next read. A
//! timestamp never set reads 0; a bad index reads all zero.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Snapshot {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Cycle n: the RAMs were read for the snapshot, and its index names an existing entry.
    pub read: Signal<In, Bit>,
    pub ok: Signal<In, Bit>,
    /// The entry ([`super::entries::Entries`]): `t_on`, `t_T`, `Q_rec`, LAST_STATE, paused;
    /// the ages of `t_on` and `t_T` (`{hi, lo}`, 3 = never set).
    pub t_on: Signal<In, Bits<32>>,
    pub t_t: Signal<In, Bits<32>>,
    pub q_rec: Signal<In, Bits<32>>,
    pub last_state: Signal<In, Bits<2>>,
    pub paused: Signal<In, Bits<1>>,
    pub age_on: Signal<In, Bits<2>>,
    pub age_t: Signal<In, Bits<2>>,

    /// The `entry_t_on`, `entry_t_t`, `entry_q_rec` and `entry_state` words.
    pub snap_t_on: Signal<Out, Bits<32>>,
    pub snap_t_t: Signal<Out, Bits<32>>,
    pub snap_q_rec: Signal<Out, Bits<32>>,
    pub snap_state: Signal<Out, Bits<8>>,

    never: Constant<Bits<2>>,

    s_t_on: DFF<Bits<32>>,
    s_t_t: DFF<Bits<32>>,
    s_q_rec: DFF<Bits<32>>,
    s_state: DFF<Bits<8>>,
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
            snap_t_on: Default::default(),
            snap_t_t: Default::default(),
            snap_q_rec: Default::default(),
            snap_state: Default::default(),
            never: Constant::new(3u64.into()),
            s_t_on: Default::default(),
            s_t_t: Default::default(),
            s_q_rec: Default::default(),
            s_state: Default::default(),
            flags: Default::default(),
        }
    }
}

impl Logic for Snapshot {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s_t_on, s_t_t, s_q_rec, s_state);
        self.flags.next = bit_cast::<8, 2>(self.last_state.val())
            | (bit_cast::<8, 1>(self.paused.val()) << 2)
            | (bit_cast::<8, 2>(self.age_on.val()) << 4)
            | (bit_cast::<8, 2>(self.age_t.val()) << 6);
        if self.read.val() {
            self.s_t_on.d.next = 0.into();
            self.s_t_t.d.next = 0.into();
            self.s_q_rec.d.next = 0.into();
            self.s_state.d.next = 0.into();
            if self.ok.val() {
                // Age 3 means never set: the RAM word is not meaningful, show 0.
                if self.age_on.val() != self.never.val() {
                    self.s_t_on.d.next = self.t_on.val();
                }
                if self.age_t.val() != self.never.val() {
                    self.s_t_t.d.next = self.t_t.val();
                }
                self.s_q_rec.d.next = self.q_rec.val();
                self.s_state.d.next = self.flags.val();
            }
        }
        self.snap_t_on.next = self.s_t_on.q.val();
        self.snap_t_t.next = self.s_t_t.q.val();
        self.snap_q_rec.next = self.s_q_rec.q.val();
        self.snap_state.next = self.s_state.q.val();
        if self.reset.val() {
            self.s_t_on.d.next = 0.into();
            self.s_t_t.d.next = 0.into();
            self.s_q_rec.d.next = 0.into();
            self.s_state.d.next = 0.into();
        }
    }
}
