//! CaPFC's per-input arrival counters (the model's `count`): one row of P - 1 counters per
//! egress key in a 1R1W RAM ([`LaneRam`], lane j = input j, or j + 1 at and above the egress
//! port: the diagonal is not stored). The egress enqueue is the only writer; a row reset at
//! WARN only clears a live bit (RAMs have no reset).
//!
//! At XOFF the enqueue applies the policy: Stop-Max sets the E bit of the row's largest
//! counter, picked from the counted row over the next two edges ([`LaneMax`]; the E requests
//! wait as long, `E_WAIT` of the model), Stop-Calibrate triggers the engine
//! ([`super::calibrate::Calibrate`]).
//!
//! This is the counter stage of the model. Its operands start from registers: the occupancy
//! stage's threshold tests are registered on the edge that addresses the RAMs.
//! The counter RAM's read port A serves, in this order, the egress enqueue of the occupancy
//! stage and a CSR inspection (the `inspect` register's counter, snapshot into
//! `inspect_counter`); its read port B is the calibration engine's, which reads the row of the
//! request it names on every edge, so a waiting request never waits for the enqueue bus:
//! * cycle n - 1: the occupancy stage holds the egress events sampled at edge n - 1 and tests
//!   the occupancy they leave against WARN, XON and XOFF;
//! * edge n: the tests, the read key and who reads (`kind`) are registered, the RAMs are
//!   addressed;
//! * cycle n: the rows as read (the write of edge n forwarded, else the live RAM row, else
//!   zero) and, for an enqueue accepted at or above WARN, the row counted;
//! * edge n + 1: the counted row is written and kept for forwarding (`fw_row`);
//! * cycle n + 1: Stop-Max's selection compares the lanes of `fw_row`;
//! * cycle n + 2: its pick, as an input mask, to the E stage (`max_*`).

use crate::lane_max::LaneMax;
use crate::lane_ram::LaneRam;
use rust_hdl::prelude::*;
use switchcraft_core::mask;
use switchcraft_model::capfc::CapfcConfig;

/// Who reads the counter RAMs' port A (`c_kind`).
const KIND_ENQUEUE: u64 = 1;
const KIND_INSPECT: u64 = 2;

/// Counters for keys of `KB` bits (`K = 2^KB`), ports of `PB` bits (`PP = 2^PB`), rows of
/// `W = 16 * PP` bits.
#[derive(LogicBlock)]
pub struct Counters<
    const PB: usize,
    const PP: usize,
    const K: usize,
    const KB: usize,
    const W: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    // Edge n: the read port's requests, highest priority first.
    /// The occupancy stage's egress enqueue (of an existing key and input, dropped or not).
    pub enq_valid: Signal<In, Bit>,
    pub enq_key: Signal<In, Bits<KB>>,
    pub enq_input: Signal<In, Bits<PB>>,
    /// A write of the `inspect` register asks for a snapshot of the counter it names.
    pub inspect_request: Signal<In, Bit>,
    /// The `inspect` register: port [5:0], priority [10:8], input [21:16].
    pub inspect: Signal<In, Bits<32>>,
    /// A pending calibration request, for row `serve_key` (port B), also one-hot.
    pub serve_valid: Signal<In, Bit>,
    pub serve_key: Signal<In, Bits<KB>>,
    pub serve_onehot: Signal<In, Bits<K>>,
    // Cycle n - 1: the egress occupancy stage's results for the events of edge n - 1: the
    // enqueue (dropped or not, and whether it leaves its queue at or above WARN / XOFF when
    // accepted) and the dequeue (at or below WARN / XON after it).
    pub e_valid: Signal<In, Bit>,
    pub e_drop: Signal<In, Bit>,
    pub e_at_warn: Signal<In, Bit>,
    pub e_at_xoff: Signal<In, Bit>,
    pub d_valid: Signal<In, Bit>,
    pub d_key: Signal<In, Bits<KB>>,
    pub d_at_warn: Signal<In, Bit>,
    pub d_at_xon: Signal<In, Bit>,
    /// The `policy` register (bits 1:0 the policy, bit 2 saturate instead of halving).
    pub policy: Signal<In, Bits<3>>,

    /// Port B read a calibration request's row for cycle n: its key and the row as the last
    /// edge left it.
    pub serving: Signal<Out, Bit>,
    pub served_key: Signal<Out, Bits<KB>>,
    pub served_row: Signal<Out, Bits<W>>,
    /// Port A's row `key`, as this edge writes it.
    pub key: Signal<Out, Bits<KB>>,
    pub row_new: Signal<Out, Bits<W>>,
    /// The dequeue resets row `clear_key` (B <= WARN), before the enqueue counts.
    pub row_reset: Signal<Out, Bit>,
    /// The dequeue clears the E row `clear_key` (B <= XON).
    pub xon_clear: Signal<Out, Bit>,
    pub clear_key: Signal<Out, Bits<KB>>,
    /// Stop-Calibrate: calibrate row `key`.
    pub cal_trigger: Signal<Out, Bit>,
    /// Stop-Max, two edges after the XOFF it found: set the E bits of `max_flags` (one input)
    /// in row `max_key`.
    pub max_set: Signal<Out, Bit>,
    pub max_key: Signal<Out, Bits<KB>>,
    pub max_flags: Signal<Out, Bits<PP>>,
    /// The enqueue's counter was at the top (saturation) when counted.
    pub saturated: Signal<Out, Bit>,
    /// The key the `inspect` register names, and whether it exists.
    pub inspect_key: Signal<Out, Bits<KB>>,
    pub inspect_key_ok: Signal<Out, Bit>,
    /// An inspection is pending or reading, and the last snapshot (0 for no such counter).
    pub inspect_busy: Signal<Out, Bit>,
    pub inspected: Signal<Out, Bits<16>>,

    pub counts: LaneRam<KB, W>,
    pub lane_max: LaneMax<PP, W>,

    prio_bits: Constant<Bits<KB>>,
    prio_mask: Constant<Bits<KB>>,
    prio_ok: Constant<Bits<8>>,
    ports8: Constant<Bits<8>>,
    field6: Constant<Bits<8>>,
    policy_max: Constant<Bits<2>>,
    policy_cal: Constant<Bits<2>>,
    counter_top: Constant<Bits<16>>,
    one_k: Constant<Bits<K>>,
    one_pb: Constant<Bits<PB>>,
    one_pp: Constant<Bits<PP>>,
    one_16: Constant<Bits<16>>,
    kind_enqueue: Constant<Bits<2>>,
    kind_inspect: Constant<Bits<2>>,

    snap_pending: DFF<Bit>,
    r_snap: DFF<Bits<16>>,
    c_kind: DFF<Bits<2>>,
    c_key: DFF<Bits<KB>>,
    c_input: DFF<Bits<PB>>,
    /// An inspection names an existing counter.
    c_ok: DFF<Bit>,
    /// Rows written since their last reset.
    row_live: DFF<Bits<K>>,
    /// Decided on the read's edge, so the row's sources are chosen by registers: the row read
    /// is the one this edge writes (forward `fw_row`), or else is live in the RAM.
    fw_hit: DFF<Bit>,
    live_hit: DFF<Bit>,
    /// The counted input's lane in the row (input j at lane j, or j - 1 above the egress
    /// port), and whether the input is the egress port itself (never counted).
    c_lane: DFF<Bits<PB>>,
    c_diag: DFF<Bit>,
    fw_row: DFF<Bits<W>>,
    /// Stop-Max's XOFF, its key and its port's lanes below the egress port, for `fw_row` and
    /// then for the selection registered from it.
    m1_valid: DFF<Bit>,
    m1_key: DFF<Bits<KB>>,
    m2_valid: DFF<Bit>,
    m2_key: DFF<Bits<KB>>,
    m2_below: DFF<Bits<PP>>,
    /// Port B: a request's row is read at this edge, its key, and its sources (as port A's).
    s_valid: DFF<Bit>,
    s_key: DFF<Bits<KB>>,
    s_fw_hit: DFF<Bit>,
    s_live_hit: DFF<Bit>,
    /// The occupancy stage's tests, registered: an accepted enqueue at or above WARN and at or
    /// above XOFF; a dequeue to WARN or below and to XON or below, and its key.
    t_warn: DFF<Bit>,
    t_xoff: DFF<Bit>,
    t_reset: DFF<Bit>,
    t_xon: DFF<Bit>,
    t_deq_key: DFF<Bits<KB>>,

    insp_port8: Signal<Local, Bits<8>>,
    insp_input8: Signal<Local, Bits<8>>,
    insp_prio: Signal<Local, Bits<3>>,
    insp_key: Signal<Local, Bits<KB>>,
    insp_key_ok: Signal<Local, Bit>,
    read_key: Signal<Local, Bits<KB>>,
    accepted: Signal<Local, Bit>,
    row_raw: Signal<Local, Bits<W>>,
    same_reset: Signal<Local, Bit>,
    /// The row as it would be after counting, from the row as read.
    row_counted: Signal<Local, Bits<W>>,
    /// Only the counted lane, at 1: the row counted after a reset on this cycle.
    row_one: Signal<Local, Bits<W>>,
    read_key_port: Signal<Local, Bits<KB>>,
    read_port: Signal<Local, Bits<PB>>,
    lane_base: Signal<Local, Bits<16>>,
    count_it: Signal<Local, Bit>,
    lane_old: Signal<Local, Bits<16>>,
    raw_at_top: Signal<Local, Bit>,
    raw_halve: Signal<Local, Bit>,
    raw_bump: Signal<Local, Bit>,
    lane: Signal<Local, Bits<16>>,
    lane_new: Signal<Local, Bits<16>>,
    m1_key_port: Signal<Local, Bits<KB>>,
    m1_port: Signal<Local, Bits<PB>>,
    c_onehot: Signal<Local, Bits<K>>,
    r_onehot: Signal<Local, Bits<K>>,
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize, const W: usize>
    Counters<PB, PP, K, KB, W>
{
    pub fn new(cfg: &CapfcConfig) -> Self {
        Counters {
            clock: Default::default(),
            reset: Default::default(),
            enq_valid: Default::default(),
            enq_key: Default::default(),
            enq_input: Default::default(),
            inspect_request: Default::default(),
            inspect: Default::default(),
            serve_valid: Default::default(),
            serve_key: Default::default(),
            serve_onehot: Default::default(),
            e_valid: Default::default(),
            e_drop: Default::default(),
            e_at_warn: Default::default(),
            e_at_xoff: Default::default(),
            d_valid: Default::default(),
            d_key: Default::default(),
            d_at_warn: Default::default(),
            d_at_xon: Default::default(),
            policy: Default::default(),
            serving: Default::default(),
            served_key: Default::default(),
            served_row: Default::default(),
            key: Default::default(),
            row_new: Default::default(),
            row_reset: Default::default(),
            xon_clear: Default::default(),
            clear_key: Default::default(),
            cal_trigger: Default::default(),
            max_set: Default::default(),
            max_key: Default::default(),
            max_flags: Default::default(),
            saturated: Default::default(),
            inspect_key: Default::default(),
            inspect_key_ok: Default::default(),
            inspect_busy: Default::default(),
            inspected: Default::default(),
            counts: LaneRam::new(cfg.ports as usize - 1, cfg.counter_bits as usize),
            lane_max: LaneMax::new(cfg.ports as usize - 1),
            prio_bits: Constant::new(u64::from(cfg.prio_bits()).into()),
            prio_mask: Constant::new(mask(cfg.prio_bits()).into()),
            prio_ok: Constant::new(((1u64 << cfg.priorities) - 1).into()),
            ports8: Constant::new(u64::from(cfg.ports).into()),
            field6: Constant::new(0x3Fu64.into()),
            policy_max: Constant::new(1u64.into()),
            policy_cal: Constant::new(2u64.into()),
            counter_top: Constant::new(mask(cfg.counter_bits).into()),
            one_k: Constant::new(1u64.into()),
            one_pb: Constant::new(1u64.into()),
            one_pp: Constant::new(1u64.into()),
            one_16: Constant::new(1u64.into()),
            kind_enqueue: Constant::new(KIND_ENQUEUE.into()),
            kind_inspect: Constant::new(KIND_INSPECT.into()),
            snap_pending: Default::default(),
            r_snap: Default::default(),
            c_kind: Default::default(),
            c_key: Default::default(),
            c_input: Default::default(),
            c_ok: Default::default(),
            row_live: Default::default(),
            fw_hit: Default::default(),
            live_hit: Default::default(),
            c_lane: Default::default(),
            c_diag: Default::default(),
            fw_row: Default::default(),
            m1_valid: Default::default(),
            m1_key: Default::default(),
            m2_valid: Default::default(),
            m2_key: Default::default(),
            m2_below: Default::default(),
            s_valid: Default::default(),
            s_key: Default::default(),
            s_fw_hit: Default::default(),
            s_live_hit: Default::default(),
            t_warn: Default::default(),
            t_xoff: Default::default(),
            t_reset: Default::default(),
            t_xon: Default::default(),
            t_deq_key: Default::default(),
            insp_port8: Default::default(),
            insp_input8: Default::default(),
            insp_prio: Default::default(),
            insp_key: Default::default(),
            insp_key_ok: Default::default(),
            read_key: Default::default(),
            accepted: Default::default(),
            row_raw: Default::default(),
            same_reset: Default::default(),
            row_counted: Default::default(),
            row_one: Default::default(),
            read_key_port: Default::default(),
            read_port: Default::default(),
            lane_base: Default::default(),
            count_it: Default::default(),
            lane_old: Default::default(),
            raw_at_top: Default::default(),
            raw_halve: Default::default(),
            raw_bump: Default::default(),
            lane: Default::default(),
            lane_new: Default::default(),
            m1_key_port: Default::default(),
            m1_port: Default::default(),
            c_onehot: Default::default(),
            r_onehot: Default::default(),
        }
    }
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize, const W: usize> Logic
    for Counters<PB, PP, K, KB, W>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            snap_pending,
            r_snap,
            c_kind,
            c_key,
            c_input,
            c_ok,
            row_live,
            fw_hit,
            live_hit,
            c_lane,
            c_diag,
            fw_row,
            m1_valid,
            m1_key,
            m2_valid,
            m2_key,
            m2_below,
            s_valid,
            s_key,
            s_fw_hit,
            s_live_hit,
            t_warn,
            t_xoff,
            t_reset,
            t_xon,
            t_deq_key
        );
        self.counts.clock.next = self.clock.val();
        self.lane_max.clock.next = self.clock.val();

        // The inspected counter: port [5:0], priority [10:8], input [21:16].
        self.insp_port8.next = self.inspect.val().get_bits::<8>(0) & self.field6.val();
        self.insp_prio.next = self.inspect.val().get_bits::<3>(8);
        self.insp_input8.next = self.inspect.val().get_bits::<8>(16) & self.field6.val();
        self.insp_key.next = (bit_cast::<KB, 8>(self.insp_port8.val()) << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.insp_prio.val()) & self.prio_mask.val());
        self.insp_key_ok.next = (self.insp_port8.val() < self.ports8.val())
            & self.prio_ok.val().get_bit(self.insp_prio.val().index());

        // ---- Edge n: the occupancy stage's tests.
        self.accepted.next = self.e_valid.val() & !self.e_drop.val();
        self.t_warn.d.next = self.accepted.val() & self.e_at_warn.val();
        self.t_xoff.d.next = self.accepted.val() & self.e_at_xoff.val();
        self.t_reset.d.next = self.d_valid.val() & self.d_at_warn.val();
        self.t_xon.d.next = self.d_valid.val() & self.d_at_xon.val();
        self.t_deq_key.d.next = self.d_key.val();

        // ---- Edge n: read port A, egress enqueue first, then inspection.
        self.c_kind.d.next = 0.into();
        self.c_input.d.next = 0.into();
        self.c_ok.d.next = false;
        self.read_key.next = self.enq_key.val();
        if self.enq_valid.val() {
            self.c_kind.d.next = self.kind_enqueue.val();
            self.read_key.next = self.enq_key.val();
            self.c_input.d.next = self.enq_input.val();
        } else if self.snap_pending.q.val() {
            self.c_kind.d.next = self.kind_inspect.val();
            self.read_key.next = self.insp_key.val();
            self.c_input.d.next = bit_cast::<PB, 8>(self.insp_input8.val());
            self.c_ok.d.next = self.insp_key_ok.val()
                & (self.insp_input8.val() < self.ports8.val())
                & (self.insp_input8.val() != self.insp_port8.val());
            self.snap_pending.d.next = false;
        }
        self.c_key.d.next = self.read_key.val();
        self.counts.read_address.next = self.read_key.val();
        self.read_key_port.next = self.read_key.val() >> self.prio_bits.val();
        self.read_port.next = bit_cast::<PB, KB>(self.read_key_port.val());
        if self.c_input.d.val() > self.read_port.val() {
            self.c_lane.d.next = self.c_input.d.val() - self.one_pb.val();
        } else {
            self.c_lane.d.next = self.c_input.d.val();
        }
        self.c_diag.d.next = self.c_input.d.val() == self.read_port.val();

        // ---- Cycle n: the row (forwarded write, else live RAM row, else zero).
        if self.fw_hit.q.val() {
            self.row_raw.next = self.fw_row.q.val();
        } else if self.live_hit.q.val() {
            self.row_raw.next = self.counts.read_data.val();
        } else {
            self.row_raw.next = 0.into();
        }
        // The dequeue first: B <= WARN resets its row, and the enqueue then counts from zero.
        self.same_reset.next =
            self.t_reset.q.val() & (self.t_deq_key.q.val() == self.c_key.q.val());

        // Then the egress enqueue: count at WARN (not from the egress port itself).
        self.count_it.next = self.t_warn.q.val() & !self.c_diag.q.val();
        // The counted row is computed from the row as read, in parallel with `count_it` and
        // `same_reset`, and selected after them. A row reset on this cycle's dequeue counts
        // from zero instead: its lane becomes 1 (0 is never at the top).
        self.lane_old.next = self
            .row_raw
            .val()
            .get_bits::<16>(self.c_lane.q.val().index() * 16);
        self.raw_at_top.next = self.lane_old.val() == self.counter_top.val();
        self.raw_halve.next = self.raw_at_top.val() & !self.policy.val().get_bit(2);
        self.raw_bump.next = !(self.raw_at_top.val() & self.policy.val().get_bit(2));
        // The counted lane, from the lane as read: one increment.
        self.lane_base.next = self.lane_old.val();
        if self.raw_halve.val() {
            self.lane_base.next = self.lane_old.val() >> 1;
        }
        self.lane_new.next = self.lane_base.val();
        if self.raw_bump.val() {
            self.lane_new.next = self.lane_base.val() + self.one_16.val();
        }
        // The row: every lane halved when the counted one was at the top, the counted lane
        // replaced by its count.
        self.row_counted.next = 0.into();
        self.row_one.next = 0.into();
        for j in 0..PP {
            self.lane.next = self.row_raw.val().get_bits::<16>(j * 16);
            if self.raw_halve.val() {
                self.lane.next = self.lane.val() >> 1;
            }
            if self.c_lane.q.val() == j.to_bits::<PB>() {
                self.lane.next = self.lane_new.val();
            }
            self.row_counted.next = self.row_counted.val()
                | (bit_cast::<W, 16>(self.lane.val()) << (j * 16).to_bits::<16>());
            if self.c_lane.q.val() == j.to_bits::<PB>() {
                self.row_one.next = self.row_one.val()
                    | (bit_cast::<W, 16>(self.one_16.val()) << (j * 16).to_bits::<16>());
            }
        }
        if self.same_reset.val() {
            self.row_new.next = 0.into();
            if self.count_it.val() {
                self.row_new.next = self.row_one.val();
            }
        } else if self.count_it.val() {
            self.row_new.next = self.row_counted.val();
        } else {
            self.row_new.next = self.row_raw.val();
        }

        // ---- Edge n + 1: the row write, forwarding, live bits.
        self.counts.write_enable.next = self.count_it.val();
        self.counts.write_address.next = self.c_key.q.val();
        self.counts.write_data.next = self.row_new.val();
        self.fw_hit.d.next = self.count_it.val() & (self.c_key.q.val() == self.read_key.val());
        self.fw_row.d.next = self.row_new.val();
        self.c_onehot.next = self.one_k.val() << self.c_key.q.val();
        self.r_onehot.next = self.one_k.val() << self.t_deq_key.q.val();
        self.row_live.d.next = self.row_live.q.val();
        if self.t_reset.q.val() {
            self.row_live.d.next = self.row_live.q.val() & !self.r_onehot.val();
        }
        if self.count_it.val() {
            self.row_live.d.next = self.row_live.d.val() | self.c_onehot.val();
        }
        self.live_hit.d.next = self.row_live.d.val().get_bit(self.read_key.val().index());
        // Port B, the engine's: the same sources for its row.
        self.counts.read_address_b.next = self.serve_key.val();
        self.s_valid.d.next = self.serve_valid.val();
        self.s_key.d.next = self.serve_key.val();
        // From the request's one-hot grant: AND-OR, no decoder after the round robin's search.
        self.s_fw_hit.d.next =
            self.count_it.val() & (self.c_onehot.val() & self.serve_onehot.val()).any();
        self.s_live_hit.d.next = (self.row_live.d.val() & self.serve_onehot.val()).any();

        // ---- At XOFF: Stop-Calibrate requests a calibration; Stop-Max flags the largest
        // counter of the row as this edge writes it (`fw_row` from edge n + 1), picked on edge
        // n + 2 (none when every counter is 0), and decoded to its input in cycle n + 2.
        self.cal_trigger.next =
            self.t_xoff.q.val() & (self.policy.val().get_bits::<2>(0) == self.policy_cal.val());
        self.m1_valid.d.next =
            self.t_xoff.q.val() & (self.policy.val().get_bits::<2>(0) == self.policy_max.val());
        self.m1_key.d.next = self.c_key.q.val();
        self.lane_max.row.next = self.fw_row.q.val();
        self.m2_valid.d.next = self.m1_valid.q.val();
        self.m2_key.d.next = self.m1_key.q.val();
        self.m1_key_port.next = self.m1_key.q.val() >> self.prio_bits.val();
        self.m1_port.next = bit_cast::<PB, KB>(self.m1_key_port.val());
        self.m2_below.d.next = (self.one_pp.val() << self.m1_port.val()) - self.one_pp.val();
        self.max_set.next = self.m2_valid.q.val() & self.lane_max.wins.val().any();
        self.max_key.next = self.m2_key.q.val();
        self.max_flags.next = (self.lane_max.wins.val() & self.m2_below.q.val())
            | ((self.lane_max.wins.val() & !self.m2_below.q.val()) << 1);

        // ---- The inspection snapshot shows the row before this edge's events.
        if self.c_kind.q.val() == self.kind_inspect.val() {
            self.r_snap.d.next = 0.into();
            if self.c_ok.q.val() {
                self.r_snap.d.next = self.lane_old.val();
            }
        }
        if self.inspect_request.val() {
            self.snap_pending.d.next = true;
        }

        // ---- Outputs.
        self.serving.next = self.s_valid.q.val();
        self.served_key.next = self.s_key.q.val();
        self.served_row.next = 0.into();
        if self.s_fw_hit.q.val() {
            self.served_row.next = self.fw_row.q.val();
        } else if self.s_live_hit.q.val() {
            self.served_row.next = self.counts.read_data_b.val();
        }
        self.key.next = self.c_key.q.val();
        self.row_reset.next = self.t_reset.q.val();
        self.xon_clear.next = self.t_xon.q.val();
        self.clear_key.next = self.t_deq_key.q.val();
        self.saturated.next = self.count_it.val() & !self.same_reset.val() & self.raw_at_top.val();
        self.inspect_key.next = self.insp_key.val();
        self.inspect_key_ok.next = self.insp_key_ok.val();
        self.inspect_busy.next =
            self.snap_pending.q.val() | (self.c_kind.q.val() == self.kind_inspect.val());
        self.inspected.next = self.r_snap.q.val();

        if self.reset.val() {
            self.snap_pending.d.next = false;
            self.r_snap.d.next = 0.into();
            self.c_kind.d.next = 0.into();
            self.row_live.d.next = 0.into();
            self.fw_hit.d.next = false;
            self.live_hit.d.next = false;
            self.m1_valid.d.next = false;
            self.m2_valid.d.next = false;
            self.s_valid.d.next = false;
            self.s_fw_hit.d.next = false;
            self.s_live_hit.d.next = false;
            self.t_warn.d.next = false;
            self.t_xoff.d.next = false;
            self.t_reset.d.next = false;
            self.t_xon.d.next = false;
        }
    }
}
