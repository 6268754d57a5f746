//! CaPFC's E stage and D stage (the model's `e_stage` and `d_stage`): the E matrix
//! ([`FlagRows`], flip-flops), cleared by row at XON and then set by Stop-Max or the
//! calibration engine, with the net set/clear messages it sends; and per ingress key the count
//! of set E bits as bit planes, as many as P - 1 needs (vector increment/decrement), so
//! D = I or count != 0 for every key at once. It also shows the row and state of the key the
//! `inspect` register names.
//!
//! * cycle n - 2: the counter stage's clear and the engine's result arrive and wait two edges
//!   (`w1_*`, `w2_*`), while the counters pick Stop-Max's input for the XOFF of that cycle;
//! * cycle n: the requests (Stop-Max's from the counters now) are registered; the E rows they
//!   name are loaded into the row read ports on the same edge;
//! * cycle n + 1 (E stage): the rows change at edge n + 2, and the net messages are registered
//!   (the `eset_*` / `eclr_*` outputs);
//! * cycle n + 2 (D stage): the registered messages move the count planes at edge n + 3, so
//!   the messages' logic and the planes' carry chains are in different cycles.

use crate::flag_rows::FlagRows;
use rust_hdl::prelude::*;
use switchcraft_model::capfc::CapfcConfig;

/// For keys of `KB` bits (`K = 2^KB`), ports of `PB` bits (`PP = 2^PB`), `EB = K * PP` E bits.
#[derive(LogicBlock)]
pub struct Decision<
    const PB: usize,
    const PP: usize,
    const K: usize,
    const KB: usize,
    const EB: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// The counter stage's cycle (they wait two edges): XON on egress key `clear_key`, its E
    /// row clears (before any set on that edge); the engine's `cal_flags` for row `cal_key`.
    pub clear_valid: Signal<In, Bit>,
    pub clear_key: Signal<In, Bits<KB>>,
    pub cal_valid: Signal<In, Bit>,
    pub cal_key: Signal<In, Bits<KB>>,
    pub cal_flags: Signal<In, Bits<PP>>,
    /// The policy is Stop-Max in the counter stage's cycle: the set's key and bits are
    /// Stop-Max's (else the engine's). The two never set on one edge (each needs its policy),
    /// and the policy is a register, so the set row's read key does not wait for `max_valid`.
    pub stop_max: Signal<In, Bit>,
    /// Two edges after the counter stage's cycle: Stop-Max sets `max_flags` in row `max_key`.
    pub max_valid: Signal<In, Bit>,
    pub max_key: Signal<In, Bits<KB>>,
    pub max_flags: Signal<In, Bits<PP>>,
    /// The ingress XOFF vector before this edge and after it.
    pub xoff: Signal<In, Bits<K>>,
    pub xoff_next: Signal<In, Bits<K>>,
    /// The inspected key and whether it exists; the `inspect` register (port [5:0],
    /// priority [10:8]) after this edge, for the row read port.
    pub inspect_key: Signal<In, Bits<KB>>,
    pub inspect_key_ok: Signal<In, Bit>,
    pub inspect_next: Signal<In, Bits<32>>,

    /// The net E messages of the last edge (registered).
    pub eset_valid: Signal<Out, Bit>,
    pub eset_key: Signal<Out, Bits<KB>>,
    pub eset_mask: Signal<Out, Bits<PP>>,
    pub eclr_valid: Signal<Out, Bit>,
    pub eclr_key: Signal<Out, Bits<KB>>,
    pub eclr_mask: Signal<Out, Bits<PP>>,
    /// D per ingress key, before this edge and after it.
    pub d: Signal<Out, Bits<K>>,
    pub d_next: Signal<Out, Bits<K>>,
    /// The inspected key's E row (`inspect_e_lo/hi`), and its state (`inspect_state`: I in
    /// bit 0, D in bit 1, the count of set E bits in 13:8); 0 for a key that does not exist.
    pub inspect_row: Signal<Out, Bits<64>>,
    pub inspect_state: Signal<Out, Bits<16>>,

    pub e_rows: FlagRows<KB, K, PP, EB>,

    port_ok: Constant<Bits<PP>>,
    prio_ok: Constant<Bits<8>>,
    prio_bits: Constant<Bits<KB>>,
    prio_mask: Constant<Bits<KB>>,
    field6: Constant<Bits<8>>,
    one_pp: Constant<Bits<PP>>,
    one_8: Constant<Bits<8>>,

    /// Which of the count's six planes exist: the count is at most P - 1 (E bits of the other
    /// ports), so it needs `value_bits(P - 1)` of them; the others stay 0 and synthesis
    /// removes them.
    planes: Constant<Bits<6>>,
    // Per ingress key, the number of egresses with its E bit set, as bit planes.
    cnt0: DFF<Bits<K>>,
    cnt1: DFF<Bits<K>>,
    cnt2: DFF<Bits<K>>,
    cnt3: DFF<Bits<K>>,
    cnt4: DFF<Bits<K>>,
    cnt5: DFF<Bits<K>>,
    o_eset_valid: DFF<Bit>,
    o_eset_key: DFF<Bits<KB>>,
    o_eset_mask: DFF<Bits<PP>>,
    o_eclr_valid: DFF<Bit>,
    o_eclr_key: DFF<Bits<KB>>,
    o_eclr_mask: DFF<Bits<PP>>,
    /// The counter stage's clear, the engine's result and the policy, one and two edges on.
    w1_clear_valid: DFF<Bit>,
    w1_clear_key: DFF<Bits<KB>>,
    w1_cal_valid: DFF<Bit>,
    w1_cal_key: DFF<Bits<KB>>,
    w1_cal_flags: DFF<Bits<PP>>,
    w1_stop_max: DFF<Bit>,
    w2_clear_valid: DFF<Bit>,
    w2_clear_key: DFF<Bits<KB>>,
    w2_cal_valid: DFF<Bit>,
    w2_cal_key: DFF<Bits<KB>>,
    w2_cal_flags: DFF<Bits<PP>>,
    w2_stop_max: DFF<Bit>,
    /// The requests, registered: the E stage's operands.
    r_clear_valid: DFF<Bit>,
    r_clear_key: DFF<Bits<KB>>,
    r_set_valid: DFF<Bit>,
    r_set_key: DFF<Bits<KB>>,
    r_set_flags: DFF<Bits<PP>>,

    set_valid: Signal<Local, Bit>,
    set_key: Signal<Local, Bits<KB>>,
    set_bits: Signal<Local, Bits<PP>>,
    set_key_port: Signal<Local, Bits<KB>>,
    set_port: Signal<Local, Bits<PB>>,
    set_lanes: Signal<Local, Bits<PP>>,
    clear_row: Signal<Local, Bits<PP>>,
    set_row: Signal<Local, Bits<PP>>,
    same_row: Signal<Local, Bit>,
    eset: Signal<Local, Bits<PP>>,
    eclr: Signal<Local, Bits<PP>>,
    set_prio: Signal<Local, Bits<KB>>,
    clr_prio: Signal<Local, Bits<KB>>,
    set_prio_oh: Signal<Local, Bits<8>>,
    clr_prio_oh: Signal<Local, Bits<8>>,
    msg_set_prio: Signal<Local, Bits<KB>>,
    msg_set_prio_oh: Signal<Local, Bits<8>>,
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
    insp_next_port8: Signal<Local, Bits<8>>,
    insp_next_prio: Signal<Local, Bits<3>>,
    insp_count: Signal<Local, Bits<8>>,
    d_old: Signal<Local, Bits<K>>,
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize, const EB: usize>
    Decision<PB, PP, K, KB, EB>
{
    pub fn new(cfg: &CapfcConfig) -> Self {
        let mut port_ok = Bits::<PP>::default();
        for p in 0..PP {
            port_ok = port_ok.replace_bit(p, p < cfg.ports as usize);
        }
        Decision {
            clock: Default::default(),
            reset: Default::default(),
            clear_valid: Default::default(),
            clear_key: Default::default(),
            cal_valid: Default::default(),
            cal_key: Default::default(),
            cal_flags: Default::default(),
            stop_max: Default::default(),
            max_valid: Default::default(),
            max_key: Default::default(),
            max_flags: Default::default(),
            xoff: Default::default(),
            xoff_next: Default::default(),
            inspect_key: Default::default(),
            inspect_key_ok: Default::default(),
            inspect_next: Default::default(),
            eset_valid: Default::default(),
            eset_key: Default::default(),
            eset_mask: Default::default(),
            eclr_valid: Default::default(),
            eclr_key: Default::default(),
            eclr_mask: Default::default(),
            d: Default::default(),
            d_next: Default::default(),
            inspect_row: Default::default(),
            inspect_state: Default::default(),
            e_rows: FlagRows::new(
                cfg.ports as usize,
                cfg.priorities as usize,
                cfg.prio_bits() as usize,
            ),
            port_ok: Constant::new(port_ok),
            prio_ok: Constant::new(((1u64 << cfg.priorities) - 1).into()),
            prio_bits: Constant::new(u64::from(cfg.prio_bits()).into()),
            prio_mask: Constant::new(switchcraft_core::mask(cfg.prio_bits()).into()),
            field6: Constant::new(0x3Fu64.into()),
            one_pp: Constant::new(1u64.into()),
            one_8: Constant::new(1u64.into()),
            planes: Constant::new(
                switchcraft_core::mask(switchcraft_core::value_bits(u64::from(cfg.ports) - 1))
                    .into(),
            ),
            cnt0: Default::default(),
            cnt1: Default::default(),
            cnt2: Default::default(),
            cnt3: Default::default(),
            cnt4: Default::default(),
            cnt5: Default::default(),
            o_eset_valid: Default::default(),
            o_eset_key: Default::default(),
            o_eset_mask: Default::default(),
            o_eclr_valid: Default::default(),
            o_eclr_key: Default::default(),
            o_eclr_mask: Default::default(),
            w1_clear_valid: Default::default(),
            w1_clear_key: Default::default(),
            w1_cal_valid: Default::default(),
            w1_cal_key: Default::default(),
            w1_cal_flags: Default::default(),
            w1_stop_max: Default::default(),
            w2_clear_valid: Default::default(),
            w2_clear_key: Default::default(),
            w2_cal_valid: Default::default(),
            w2_cal_key: Default::default(),
            w2_cal_flags: Default::default(),
            w2_stop_max: Default::default(),
            r_clear_valid: Default::default(),
            r_clear_key: Default::default(),
            r_set_valid: Default::default(),
            r_set_key: Default::default(),
            r_set_flags: Default::default(),
            set_valid: Default::default(),
            set_key: Default::default(),
            set_bits: Default::default(),
            set_key_port: Default::default(),
            set_port: Default::default(),
            set_lanes: Default::default(),
            clear_row: Default::default(),
            set_row: Default::default(),
            same_row: Default::default(),
            eset: Default::default(),
            eclr: Default::default(),
            set_prio: Default::default(),
            clr_prio: Default::default(),
            set_prio_oh: Default::default(),
            clr_prio_oh: Default::default(),
            msg_set_prio: Default::default(),
            msg_set_prio_oh: Default::default(),
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
            insp_next_port8: Default::default(),
            insp_next_prio: Default::default(),
            insp_count: Default::default(),
            d_old: Default::default(),
        }
    }
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize, const EB: usize> Logic
    for Decision<PB, PP, K, KB, EB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            cnt0,
            cnt1,
            cnt2,
            cnt3,
            cnt4,
            cnt5,
            o_eset_valid,
            o_eset_key,
            o_eset_mask,
            o_eclr_valid,
            o_eclr_key,
            o_eclr_mask,
            w1_clear_valid,
            w1_clear_key,
            w1_cal_valid,
            w1_cal_key,
            w1_cal_flags,
            w1_stop_max,
            w2_clear_valid,
            w2_clear_key,
            w2_cal_valid,
            w2_cal_key,
            w2_cal_flags,
            w2_stop_max,
            r_clear_valid,
            r_clear_key,
            r_set_valid,
            r_set_key,
            r_set_flags
        );
        self.e_rows.clock.next = self.clock.val();
        self.e_rows.reset.next = self.reset.val();

        // ---- Cycles n - 2 and n - 1: the clear and the engine's result wait for Stop-Max.
        self.w1_clear_valid.d.next = self.clear_valid.val();
        self.w1_clear_key.d.next = self.clear_key.val();
        self.w1_cal_valid.d.next = self.cal_valid.val();
        self.w1_cal_key.d.next = self.cal_key.val();
        self.w1_cal_flags.d.next = self.cal_flags.val();
        self.w1_stop_max.d.next = self.stop_max.val();
        self.w2_clear_valid.d.next = self.w1_clear_valid.q.val();
        self.w2_clear_key.d.next = self.w1_clear_key.q.val();
        self.w2_cal_valid.d.next = self.w1_cal_valid.q.val();
        self.w2_cal_key.d.next = self.w1_cal_key.q.val();
        self.w2_cal_flags.d.next = self.w1_cal_flags.q.val();
        self.w2_stop_max.d.next = self.w1_stop_max.q.val();

        // ---- Cycle n: the requests, registered; their rows are loaded into the read ports.
        self.set_valid.next = self.max_valid.val() | self.w2_cal_valid.q.val();
        if self.w2_stop_max.q.val() {
            self.set_key.next = self.max_key.val();
            self.r_set_flags.d.next = self.max_flags.val();
        } else {
            self.set_key.next = self.w2_cal_key.q.val();
            self.r_set_flags.d.next = self.w2_cal_flags.q.val();
        }
        self.r_clear_valid.d.next = self.w2_clear_valid.q.val();
        self.r_clear_key.d.next = self.w2_clear_key.q.val();
        self.r_set_valid.d.next = self.set_valid.val();
        self.r_set_key.d.next = self.set_key.val();
        self.e_rows.next_key0.next = self.w2_clear_key.q.val();
        self.e_rows.next_key1.next = self.set_key.val();

        // ---- E stage: clear at XON, then set by Stop-Max or the engine; net messages.
        // Only the lanes the E rows keep (the other existing ports, in a row of an existing
        // key). Every reachable set already lies within them; masking keeps the E messages and
        // the count planes equal to the rows from any state (k-induction starts from any).
        self.set_key_port.next = self.r_set_key.q.val() >> self.prio_bits.val();
        self.set_port.next = bit_cast::<PB, KB>(self.set_key_port.val());
        self.set_prio.next = self.r_set_key.q.val() & self.prio_mask.val();
        self.set_prio_oh.next = self.one_8.val() << self.set_prio.val();
        self.set_lanes.next = 0.into();
        if self.port_ok.val().get_bit(self.set_port.val().index())
            & (self.set_prio_oh.val() & self.prio_ok.val()).any()
        {
            self.set_lanes.next = self.port_ok.val() & !(self.one_pp.val() << self.set_port.val());
        }
        self.set_bits.next = self.r_set_flags.q.val() & self.set_lanes.val();
        self.e_rows.clear_valid.next = self.r_clear_valid.q.val();
        self.e_rows.clear_key.next = self.r_clear_key.q.val();
        self.e_rows.set_valid.next = self.r_set_valid.q.val();
        self.e_rows.set_key.next = self.r_set_key.q.val();
        self.e_rows.set_bits.next = self.set_bits.val();
        self.clear_row.next = self.e_rows.row0.val();
        self.set_row.next = self.e_rows.row1.val();
        self.same_row.next = self.r_clear_valid.q.val()
            & self.r_set_valid.q.val()
            & (self.r_clear_key.q.val() == self.r_set_key.q.val());
        self.eset.next = 0.into();
        if self.r_set_valid.q.val() {
            if self.same_row.val() {
                self.eset.next = self.set_bits.val() & !self.clear_row.val();
            } else {
                self.eset.next = self.set_bits.val() & !self.set_row.val();
            }
        }
        self.eclr.next = 0.into();
        if self.r_clear_valid.q.val() {
            if self.same_row.val() {
                self.eclr.next = self.clear_row.val() & !self.set_bits.val();
            } else {
                self.eclr.next = self.clear_row.val();
            }
        }
        self.o_eset_valid.d.next = self.eset.val().any();
        self.o_eset_key.d.next = 0.into();
        if self.eset.val().any() {
            self.o_eset_key.d.next = self.r_set_key.q.val();
        }
        self.o_eset_mask.d.next = self.eset.val();
        self.o_eclr_valid.d.next = self.eclr.val().any();
        self.o_eclr_key.d.next = 0.into();
        if self.eclr.val().any() {
            self.o_eclr_key.d.next = self.r_clear_key.q.val();
        }
        self.o_eclr_mask.d.next = self.eclr.val();

        // ---- D stage: the counts of set E bits per ingress key follow the registered
        // messages: +1 for each set bit, -1 for each cleared bit.
        self.msg_set_prio.next = self.o_eset_key.q.val() & self.prio_mask.val();
        self.msg_set_prio_oh.next = self.one_8.val() << self.msg_set_prio.val();
        self.clr_prio.next = self.o_eclr_key.q.val() & self.prio_mask.val();
        self.clr_prio_oh.next = self.one_8.val() << self.clr_prio.val();
        self.inc.next = 0.into();
        self.dec.next = 0.into();
        for i in 0..PP {
            if self.o_eset_mask.q.val().get_bit(i) {
                self.inc.next = self.inc.val()
                    | (bit_cast::<K, 8>(self.msg_set_prio_oh.val())
                        << (i.to_bits::<16>() << self.prio_bits.val()));
            }
            if self.o_eclr_mask.q.val().get_bit(i) {
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
        self.cnt1.d.next = 0.into();
        if self.planes.val().get_bit(1) {
            self.cnt1.d.next = self.n1.val();
        }
        self.cnt2.d.next = 0.into();
        if self.planes.val().get_bit(2) {
            self.cnt2.d.next = self.n2.val();
        }
        self.cnt3.d.next = 0.into();
        if self.planes.val().get_bit(3) {
            self.cnt3.d.next = self.n3.val();
        }
        self.cnt4.d.next = 0.into();
        if self.planes.val().get_bit(4) {
            self.cnt4.d.next = self.n4.val();
        }
        self.cnt5.d.next = 0.into();
        if self.planes.val().get_bit(5) {
            self.cnt5.d.next = self.n5.val();
        }
        self.d_old.next = self.xoff.val()
            | self.cnt0.q.val()
            | self.cnt1.q.val()
            | self.cnt2.q.val()
            | self.cnt3.q.val()
            | self.cnt4.q.val()
            | self.cnt5.q.val();
        self.d.next = self.d_old.val();
        self.d_next.next = self.xoff_next.val()
            | self.n0.val()
            | self.n1.val()
            | self.n2.val()
            | self.n3.val()
            | self.n4.val()
            | self.n5.val();

        // ---- The inspected key: its row (E row read port 2) and state.
        self.insp_count.next = 0.into();
        self.insp_count.next = self
            .insp_count
            .val()
            .replace_bit(0, self.cnt0.q.val().get_bit(self.inspect_key.val().index()));
        self.insp_count.next = self
            .insp_count
            .val()
            .replace_bit(1, self.cnt1.q.val().get_bit(self.inspect_key.val().index()));
        self.insp_count.next = self
            .insp_count
            .val()
            .replace_bit(2, self.cnt2.q.val().get_bit(self.inspect_key.val().index()));
        self.insp_count.next = self
            .insp_count
            .val()
            .replace_bit(3, self.cnt3.q.val().get_bit(self.inspect_key.val().index()));
        self.insp_count.next = self
            .insp_count
            .val()
            .replace_bit(4, self.cnt4.q.val().get_bit(self.inspect_key.val().index()));
        self.insp_count.next = self
            .insp_count
            .val()
            .replace_bit(5, self.cnt5.q.val().get_bit(self.inspect_key.val().index()));
        self.inspect_row.next = 0.into();
        self.inspect_state.next = 0.into();
        if self.inspect_key_ok.val() {
            self.inspect_row.next = bit_cast::<64, PP>(self.e_rows.row2.val());
            self.inspect_state.next = bit_cast::<16, 8>(self.insp_count.val()) << 8;
            self.inspect_state.next = self
                .inspect_state
                .val()
                .replace_bit(0, self.xoff.val().get_bit(self.inspect_key.val().index()));
            self.inspect_state.next = self
                .inspect_state
                .val()
                .replace_bit(1, self.d_old.val().get_bit(self.inspect_key.val().index()));
        }
        self.insp_next_port8.next = self.inspect_next.val().get_bits::<8>(0) & self.field6.val();
        self.insp_next_prio.next = self.inspect_next.val().get_bits::<3>(8);

        // The inspected row's read key.
        self.e_rows.next_key2.next = (bit_cast::<KB, 8>(self.insp_next_port8.val())
            << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.insp_next_prio.val()) & self.prio_mask.val());

        // ---- Outputs.
        self.eset_valid.next = self.o_eset_valid.q.val();
        self.eset_key.next = self.o_eset_key.q.val();
        self.eset_mask.next = self.o_eset_mask.q.val();
        self.eclr_valid.next = self.o_eclr_valid.q.val();
        self.eclr_key.next = self.o_eclr_key.q.val();
        self.eclr_mask.next = self.o_eclr_mask.q.val();

        if self.reset.val() {
            self.cnt0.d.next = 0.into();
            self.cnt1.d.next = 0.into();
            self.cnt2.d.next = 0.into();
            self.cnt3.d.next = 0.into();
            self.cnt4.d.next = 0.into();
            self.cnt5.d.next = 0.into();
            self.o_eset_valid.d.next = false;
            self.o_eset_key.d.next = 0.into();
            self.o_eset_mask.d.next = 0.into();
            self.o_eclr_valid.d.next = false;
            self.o_eclr_key.d.next = 0.into();
            self.o_eclr_mask.d.next = 0.into();
            self.w1_clear_valid.d.next = false;
            self.w1_cal_valid.d.next = false;
            self.w2_clear_valid.d.next = false;
            self.w2_cal_valid.d.next = false;
            self.r_clear_valid.d.next = false;
            self.r_set_valid.d.next = false;
        }
    }
}
