//! BFC's accounting stage (the second half of the model's `apply_enq`, and the pause counter
//! of `apply_deq`), one edge after the lookup: the arrival's queue occupancy and the pause
//! counters of the arrival and of the departure of the same edge. The packet is counted (its
//! counter incremented) when its queue is above `Th[N_active - 1]` and backpressure is
//! enabled from its ingress to its egress; a counter leaving 0 pauses the upstream queue, a
//! departure bringing it back to 0 resumes it.
//!
//! In cycle n (the lookup's cycle) it takes the threshold and bpEn bit the arrival sees, from
//! the empty bits after the departure and the downstream-paused bits after the frame, and
//! registers them with the events; in cycle n + 1 it reads the lanes (the departure of edge n
//! wrote its bytes at edge n + 1, which the RAM leaf forwards) and writes them at edge n + 2.
//!
//! Owns the non-zero bits of the pause counters, which the bitmap frames carry. On a cycle
//! without an arrival the same lanes hold the snapshot's queue and counter.

use super::tables::{BP_ROW_BITS, TH_LANE_BITS};
use rust_hdl::prelude::*;
use switchcraft_core::mask;
use switchcraft_model::bfc::{err, BfcConfig};

#[derive(LogicBlock)]
pub struct Arrival<const N: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Cycle n: the arrival acts; its ports, upstream queue, length, and the lanes the
    /// accounting stage reads (its queue and counter, or the snapshot's) with the counter's
    /// row.
    pub act: Signal<In, Bit>,
    pub in_port: Signal<In, Bits<6>>,
    pub eg: Signal<In, Bits<6>>,
    pub upq: Signal<In, Bits<7>>,
    pub len: Signal<In, Bits<16>>,
    pub lane_q: Signal<In, Bits<8>>,
    pub prow: Signal<In, Bits<6>>,
    pub lane_p: Signal<In, Bits<8>>,
    /// Sampling drew the arrival (always, without the option): only then is it counted.
    pub sampled: Signal<In, Bit>,
    /// Cycle n: the egress row's empty bits before this cycle's departure, and whether the
    /// departure (at `d_eg`, `d_q`) empties its queue; the downstream-paused bits after
    /// this cycle's frame; each port's speed class.
    pub row_empty: Signal<In, Bits<128>>,
    pub d_emptied: Signal<In, Bit>,
    pub d_eg: Signal<In, Bits<6>>,
    pub d_q: Signal<In, Bits<7>>,
    pub paused: Signal<In, Bits<N>>,
    pub port_speed: Signal<In, Bits<128>>,
    /// Cycle n: the packet's Th lane (`speed << queue_bits | n`) and bpEn row (its ingress
    /// port), which the tables read at edge n; cycle n + 1: that threshold and that row
    /// (inverted), as edge n leaves them.
    pub ev_th_lane: Signal<Out, Bits<TH_LANE_BITS>>,
    pub ev_bp_row: Signal<Out, Bits<BP_ROW_BITS>>,
    pub ev_th: Signal<In, Bits<32>>,
    pub ev_bp_off: Signal<In, Bits<64>>,
    /// Cycle n: the departure acts on a counted packet; its counter's port, upstream queue
    /// and lane.
    pub d_dec: Signal<In, Bit>,
    pub d_in: Signal<In, Bits<6>>,
    pub d_upq: Signal<In, Bits<7>>,
    pub d_lane_u: Signal<In, Bits<8>>,
    /// Cycle n + 1: the lanes read (bytes enqueued and dequeued, counter increments and
    /// decrements) as edge n + 1 left them, on the arrival side and the departure's counter.
    pub qe: Signal<In, Bits<32>>,
    pub qd: Signal<In, Bits<32>>,
    pub pi: Signal<In, Bits<32>>,
    pub pd: Signal<In, Bits<32>>,
    pub d_pi: Signal<In, Bits<32>>,
    pub d_pd: Signal<In, Bits<32>>,

    /// Cycle n + 1: the registered events, for the RAM writes and the lookup's forwarding.
    pub s_act: Signal<Out, Bit>,
    pub s_in: Signal<Out, Bits<6>>,
    pub s_eg: Signal<Out, Bits<6>>,
    pub s_q: Signal<Out, Bits<7>>,
    pub s_len: Signal<Out, Bits<16>>,
    pub s_lane_q: Signal<Out, Bits<8>>,
    pub s_lane_p: Signal<Out, Bits<8>>,
    pub s_d_in: Signal<Out, Bits<6>>,
    pub s_d_lane_u: Signal<Out, Bits<8>>,
    /// The queue's occupancy and the counter after the departure, before the arrival (also
    /// the snapshot's values).
    pub ql_old: Signal<Out, Bits<32>>,
    pub pc_old: Signal<Out, Bits<32>>,
    /// The packet is counted; the error flags of this stage (a full queue or counter, a
    /// counter found at 0).
    pub counted: Signal<Out, Bit>,
    pub flags: Signal<Out, Bits<8>>,
    /// The new bytes-enqueued and increment counts; the departure's counter is written (it
    /// was not 0) with its new decrement count.
    pub qe_next: Signal<Out, Bits<32>>,
    pub pi_next: Signal<Out, Bits<32>>,
    pub d_pc_write: Signal<Out, Bit>,
    pub pd_next: Signal<Out, Bits<32>>,
    /// The PAUSE (of the arrival's upstream queue) and RESUME (of the departure's) of edge
    /// n + 2.
    pub pause_valid: Signal<Out, Bit>,
    pub pause_port: Signal<Out, Bits<6>>,
    pub pause_queue: Signal<Out, Bits<7>>,
    pub resume_valid: Signal<Out, Bit>,
    pub resume_port: Signal<Out, Bits<6>>,
    pub resume_queue: Signal<Out, Bits<7>>,
    /// The non-zero bits of the counters as edge n + 2 leaves them.
    pub nz_next: Signal<Out, Bits<N>>,

    occ_max: Constant<Bits<32>>,
    pc_max: Constant<Bits<32>>,
    queue_bits: Constant<Bits<8>>,
    upstream_bits: Constant<Bits<8>>,
    q_lane_mask: Constant<Bits<8>>,
    port_mask: Constant<Bits<12>>,
    /// Bit q set for the data queues (1..queues).
    data_queues: Constant<Bits<128>>,
    one_8: Constant<Bits<8>>,
    two_8: Constant<Bits<8>>,
    /// Bit 0 of every 2-bit field, the low half of every 4-bit field, bit 0 of every 4-bit
    /// field: the masks of the active-queue count's bitwise adders.
    every2: Constant<Bits<128>>,
    low2of4: Constant<Bits<128>>,
    every4: Constant<Bits<128>>,
    one_32: Constant<Bits<32>>,
    one_n: Constant<Bits<N>>,
    /// The `{port, upstream queue}` bits this config has.
    used_u: Constant<Bits<N>>,

    f_qlen_saturated: Constant<Bits<8>>,
    f_pc_saturated: Constant<Bits<8>>,
    f_pc_underflow: Constant<Bits<8>>,

    // ---- Cycle n: the threshold and bpEn bit the arrival sees.
    row_paused_wide: Signal<Local, Bits<N>>,
    row_paused: Signal<Local, Bits<128>>,
    active: Signal<Local, Bits<128>>,
    n_active: Signal<Local, Bits<8>>,
    /// The active bits counted in 2-bit fields (`pairs`), then in 4-bit fields (`nibbles`);
    /// the other terms hold one bit of an addend, sum or carry at each field's bit 0.
    pair_lo: Signal<Local, Bits<128>>,
    pair_hi: Signal<Local, Bits<128>>,
    pairs: Signal<Local, Bits<128>>,
    nib_x: Signal<Local, Bits<128>>,
    nib_y: Signal<Local, Bits<128>>,
    nib_c: Signal<Local, Bits<128>>,
    nib_x1: Signal<Local, Bits<128>>,
    nib_y1: Signal<Local, Bits<128>>,
    nib_b0: Signal<Local, Bits<128>>,
    nib_b1: Signal<Local, Bits<128>>,
    nib_b2: Signal<Local, Bits<128>>,
    nibbles: Signal<Local, Bits<128>>,
    nib: Signal<Local, Bits<4>>,
    th_idx: Signal<Local, Bits<8>>,
    th_idx_less: Signal<Local, Bits<8>>,
    /// The first lane of the egress port's speed class, and the lanes read.
    speed: Signal<Local, Bits<2>>,
    speed_base: Signal<Local, Bits<TH_LANE_BITS>>,
    th_lane_less: Signal<Local, Bits<TH_LANE_BITS>>,
    /// The departure's queue as a lane index; it counts in N_active.
    d_q_index: Signal<Local, Bits<7>>,
    dep_active: Signal<Local, Bit>,
    bp_on: Signal<Local, Bit>,

    // ---- The accounting stage's registers (edge n + 1).
    r_act: DFF<Bit>,
    r_in: DFF<Bits<6>>,
    r_eg: DFF<Bits<6>>,
    r_upq: DFF<Bits<7>>,
    r_len: DFF<Bits<16>>,
    r_lane_q: DFF<Bits<8>>,
    r_lane_p: DFF<Bits<8>>,
    r_prow: DFF<Bits<6>>,
    r_sampled: DFF<Bit>,
    r_d_dec: DFF<Bit>,
    r_d_in: DFF<Bits<6>>,
    r_d_upq: DFF<Bits<7>>,
    r_d_lane_u: DFF<Bits<8>>,

    nz: DFF<Bits<N>>,
    o_pause_valid: DFF<Bit>,
    o_pause_port: DFF<Bits<6>>,
    o_pause_queue: DFF<Bits<7>>,
    o_resume_valid: DFF<Bit>,
    o_resume_port: DFF<Bits<6>>,
    o_resume_queue: DFF<Bits<7>>,
    pause: Signal<Local, Bit>,
    resume: Signal<Local, Bit>,
    above: Signal<Local, Bit>,
    j: Signal<Local, Bits<16>>,
    d_j: Signal<Local, Bits<16>>,
    /// The arrival's counter before the departure, and one less; whether it is not 0, and
    /// whether the departure decrements it.
    pc_start: Signal<Local, Bits<32>>,
    pc_less: Signal<Local, Bits<32>>,
    pc_start_nz: Signal<Local, Bit>,
    d_same_counter: Signal<Local, Bit>,
    pc_sat: Signal<Local, Bit>,
    /// The counters are not 0 after the cycle: the arrival's and the departure's.
    pc_fin_nz: Signal<Local, Bit>,
    d_pc_old: Signal<Local, Bits<32>>,
    d_pc_nz: Signal<Local, Bit>,
    d_pc_fin_nz: Signal<Local, Bit>,
    ql_sat: Signal<Local, Bit>,
}

impl<const N: usize> Arrival<N> {
    pub fn new(cfg: &BfcConfig, used_u: Bits<N>) -> Self {
        let c8 = |v: u64| Constant::new(Bits::<8>::from(v));
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        Arrival {
            clock: Default::default(),
            reset: Default::default(),
            act: Default::default(),
            in_port: Default::default(),
            eg: Default::default(),
            upq: Default::default(),
            len: Default::default(),
            lane_q: Default::default(),
            lane_p: Default::default(),
            sampled: Default::default(),
            prow: Default::default(),
            row_empty: Default::default(),
            d_emptied: Default::default(),
            d_eg: Default::default(),
            d_q: Default::default(),
            paused: Default::default(),
            ev_th_lane: Default::default(),
            ev_bp_row: Default::default(),
            ev_th: Default::default(),
            ev_bp_off: Default::default(),
            port_speed: Default::default(),
            d_dec: Default::default(),
            d_in: Default::default(),
            d_upq: Default::default(),
            d_lane_u: Default::default(),
            qe: Default::default(),
            qd: Default::default(),
            pi: Default::default(),
            pd: Default::default(),
            d_pi: Default::default(),
            d_pd: Default::default(),
            s_act: Default::default(),
            s_in: Default::default(),
            s_eg: Default::default(),
            s_q: Default::default(),
            s_len: Default::default(),
            s_lane_q: Default::default(),
            s_lane_p: Default::default(),
            s_d_in: Default::default(),
            s_d_lane_u: Default::default(),
            ql_old: Default::default(),
            pc_old: Default::default(),
            counted: Default::default(),
            flags: Default::default(),
            qe_next: Default::default(),
            pi_next: Default::default(),
            d_pc_write: Default::default(),
            pd_next: Default::default(),
            pause_valid: Default::default(),
            pause_port: Default::default(),
            pause_queue: Default::default(),
            resume_valid: Default::default(),
            resume_port: Default::default(),
            resume_queue: Default::default(),
            nz_next: Default::default(),
            occ_max: c32(mask(cfg.occupancy_bits)),
            pc_max: c32(mask(cfg.pc_bits)),
            queue_bits: c8(cfg.queue_bits().into()),
            upstream_bits: c8(cfg.upstream_bits().into()),
            q_lane_mask: c8(mask(cfg.queue_bits())),
            port_mask: Constant::new(mask(cfg.port_bits()).into()),
            data_queues: Constant::new(super::data_queues(cfg)),
            one_8: c8(1),
            two_8: c8(2),
            every2: Constant::new(repeat_128(0x5)),
            low2of4: Constant::new(repeat_128(0x3)),
            every4: Constant::new(repeat_128(0x1)),
            one_32: c32(1),
            one_n: Constant::new(1u64.into()),
            used_u: Constant::new(used_u),
            f_qlen_saturated: c8(err::QLEN_SATURATED),
            f_pc_saturated: c8(err::PC_SATURATED),
            f_pc_underflow: c8(err::PC_UNDERFLOW),
            row_paused_wide: Default::default(),
            row_paused: Default::default(),
            active: Default::default(),
            n_active: Default::default(),
            pair_lo: Default::default(),
            pair_hi: Default::default(),
            pairs: Default::default(),
            nib_x: Default::default(),
            nib_y: Default::default(),
            nib_c: Default::default(),
            nib_x1: Default::default(),
            nib_y1: Default::default(),
            nib_b0: Default::default(),
            nib_b1: Default::default(),
            nib_b2: Default::default(),
            nibbles: Default::default(),
            nib: Default::default(),
            th_idx: Default::default(),
            th_idx_less: Default::default(),
            speed: Default::default(),
            speed_base: Default::default(),
            th_lane_less: Default::default(),
            d_q_index: Default::default(),
            dep_active: Default::default(),
            bp_on: Default::default(),
            r_act: Default::default(),
            r_in: Default::default(),
            r_eg: Default::default(),
            r_upq: Default::default(),
            r_len: Default::default(),
            r_lane_q: Default::default(),
            r_lane_p: Default::default(),
            r_prow: Default::default(),
            r_sampled: Default::default(),
            r_d_dec: Default::default(),
            r_d_in: Default::default(),
            r_d_upq: Default::default(),
            r_d_lane_u: Default::default(),
            nz: Default::default(),
            o_pause_valid: Default::default(),
            o_pause_port: Default::default(),
            o_pause_queue: Default::default(),
            o_resume_valid: Default::default(),
            o_resume_port: Default::default(),
            o_resume_queue: Default::default(),
            pause: Default::default(),
            resume: Default::default(),
            above: Default::default(),
            j: Default::default(),
            d_j: Default::default(),
            pc_start: Default::default(),
            pc_less: Default::default(),
            pc_start_nz: Default::default(),
            d_same_counter: Default::default(),
            pc_sat: Default::default(),
            pc_fin_nz: Default::default(),
            d_pc_old: Default::default(),
            d_pc_nz: Default::default(),
            d_pc_fin_nz: Default::default(),
            ql_sat: Default::default(),
        }
    }
}

impl<const N: usize> Logic for Arrival<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_act,
            r_in,
            r_eg,
            r_upq,
            r_len,
            r_lane_q,
            r_lane_p,
            r_prow,
            r_sampled,
            r_d_dec,
            r_d_in,
            r_d_upq,
            r_d_lane_u,
            nz,
            o_pause_valid,
            o_pause_port,
            o_pause_queue,
            o_resume_valid,
            o_resume_port,
            o_resume_queue
        );
        // ---- Cycle n: Th[N_active - 1], N_active the data queues of the egress that are
        // neither empty nor paused downstream, and the bpEn bit, as the arrival sees them. The
        // count runs on the row before the departure, whose "emptied" comes late: both
        // thresholds are read, and the departure picks one.
        self.row_paused_wide.next =
            self.paused.val() >> (bit_cast::<16, 6>(self.eg.val()) << self.queue_bits.val());
        self.row_paused.next = bit_cast::<128, N>(self.row_paused_wide.val());
        self.active.next = !self.row_empty.val() & !self.row_paused.val() & self.data_queues.val();
        // N_active: the bits counted per 4-bit field by bitwise adders (LUTs, no carry
        // chain), then the fields summed: one add per 4 queues instead of one per queue.
        self.pair_lo.next = self.active.val() & self.every2.val();
        self.pair_hi.next = (self.active.val() >> 1) & self.every2.val();
        self.pairs.next = (self.pair_lo.val() ^ self.pair_hi.val())
            | ((self.pair_lo.val() & self.pair_hi.val()) << 1);
        // Two 2-bit counts per 4-bit field, added bit by bit: x (bits 1:0) + y (bits 3:2).
        self.nib_x.next = self.pairs.val() & self.low2of4.val();
        self.nib_y.next = (self.pairs.val() >> 2) & self.low2of4.val();
        self.nib_c.next = self.nib_x.val() & self.nib_y.val() & self.every4.val();
        self.nib_b0.next = (self.nib_x.val() ^ self.nib_y.val()) & self.every4.val();
        self.nib_x1.next = (self.nib_x.val() >> 1) & self.every4.val();
        self.nib_y1.next = (self.nib_y.val() >> 1) & self.every4.val();
        self.nib_b1.next = self.nib_x1.val() ^ self.nib_y1.val() ^ self.nib_c.val();
        self.nib_b2.next = (self.nib_x1.val() & self.nib_y1.val())
            | (self.nib_c.val() & (self.nib_x1.val() ^ self.nib_y1.val()));
        self.nibbles.next = self.nib_b0.val() | (self.nib_b1.val() << 1) | (self.nib_b2.val() << 2);
        self.n_active.next = 0.into();
        for k in 0..32 {
            self.nib.next = self.nibbles.val().get_bits::<4>(k * 4);
            self.n_active.next = self.n_active.val() + bit_cast::<8, 4>(self.nib.val());
        }
        // Th[N_active - 1] (0 when none is active), and with the departure's queue emptied.
        self.th_idx.next = 0.into();
        if self.n_active.val().any() {
            self.th_idx.next = (self.n_active.val() - self.one_8.val()) & self.q_lane_mask.val();
        }
        self.th_idx_less.next = 0.into();
        if (self.n_active.val() >> 1).any() {
            self.th_idx_less.next =
                (self.n_active.val() - self.two_8.val()) & self.q_lane_mask.val();
        }
        self.d_q_index.next = self.d_q.val() & bit_cast::<7, 8>(self.q_lane_mask.val());
        self.dep_active.next = (self.d_eg.val() == self.eg.val())
            & self.active.val().get_bit(self.d_q_index.val().index());
        self.speed.next = self
            .port_speed
            .val()
            .get_bits::<2>((bit_cast::<7, 6>(self.eg.val()) << 1).index());
        self.speed_base.next =
            bit_cast::<TH_LANE_BITS, 2>(self.speed.val()) << self.queue_bits.val();
        self.ev_th_lane.next =
            self.speed_base.val() | bit_cast::<TH_LANE_BITS, 8>(self.th_idx.val());
        self.th_lane_less.next =
            self.speed_base.val() | bit_cast::<TH_LANE_BITS, 8>(self.th_idx_less.val());
        if self.d_emptied.val() & self.dep_active.val() {
            self.ev_th_lane.next = self.th_lane_less.val();
        }
        self.ev_bp_row.next =
            self.in_port.val() & bit_cast::<BP_ROW_BITS, 12>(self.port_mask.val());
        self.r_sampled.d.next = self.sampled.val();
        self.r_act.d.next = self.act.val();
        self.r_in.d.next = self.in_port.val();
        self.r_eg.d.next = self.eg.val();
        self.r_upq.d.next = self.upq.val();
        self.r_len.d.next = self.len.val();
        self.r_lane_q.d.next = self.lane_q.val();
        self.r_lane_p.d.next = self.lane_p.val();
        self.r_prow.d.next = self.prow.val();
        self.r_d_dec.d.next = self.d_dec.val();
        self.r_d_in.d.next = self.d_in.val();
        self.r_d_upq.d.next = self.d_upq.val();
        self.r_d_lane_u.d.next = self.d_lane_u.val();
        self.s_act.next = self.r_act.q.val();
        self.s_in.next = self.r_in.q.val();
        self.s_eg.next = self.r_eg.q.val();
        self.s_q.next = bit_cast::<7, 8>(self.r_lane_q.q.val());
        self.s_len.next = self.r_len.q.val();
        self.s_lane_q.next = self.r_lane_q.q.val();
        self.s_lane_p.next = self.r_lane_p.q.val();
        self.s_d_in.next = self.r_d_in.q.val();
        self.s_d_lane_u.next = self.r_d_lane_u.q.val();

        // ---- Cycle n + 1: the queue before this packet (after the departure of its edge,
        // which the lane read includes).
        self.ql_old.next = (self.qe.val() - self.qd.val()) & self.occ_max.val();
        self.ql_sat.next =
            (self.occ_max.val() - self.ql_old.val()) < bit_cast::<32, 16>(self.r_len.q.val());
        // A saturated queue holds occ_max: enqueued = dequeued + occ_max.
        self.qe_next.next = self.qe.val() + bit_cast::<32, 16>(self.r_len.q.val());
        if self.ql_sat.val() {
            self.qe_next.next = self.qd.val() + self.occ_max.val();
        }
        self.above.next = self.ql_old.val() > self.ev_th.val();
        // An unsampled packet is never counted (App. A.8), as if bpEn were clear.
        self.bp_on.next = !self
            .ev_bp_off
            .val()
            .get_bit((self.r_eg.q.val() & bit_cast::<6, 12>(self.port_mask.val())).index())
            & self.r_sampled.q.val();

        // ---- The departure's counter: decrements, clamping at 0.
        self.d_j.next = (bit_cast::<16, 6>(self.r_d_in.q.val()) << self.upstream_bits.val())
            | bit_cast::<16, 7>(self.r_d_upq.q.val());
        self.d_pc_old.next = (self.d_pi.val() - self.d_pd.val()) & self.pc_max.val();
        // (Not 0: the two counts differ; no subtraction needed.)
        self.d_pc_nz.next = ((self.d_pi.val() ^ self.d_pd.val()) & self.pc_max.val()).any();
        self.d_pc_write.next = self.r_d_dec.q.val() & self.d_pc_nz.val();
        self.pd_next.next = self.d_pd.val() + self.one_32.val();

        // ---- The arrival's counter (or the snapshot's) at the start of the cycle (for PAUSE)
        // and after the departure: one less when the departure decrements the same counter,
        // which it does when that is not 0. Both values come from the lanes read, side by
        // side, so the departure's new count is not in series with the arrival's.
        self.j.next = (bit_cast::<16, 6>(self.r_in.q.val()) << self.upstream_bits.val())
            | bit_cast::<16, 7>(self.r_upq.q.val());
        self.pc_start.next = (self.pi.val() - self.pd.val()) & self.pc_max.val();
        self.pc_less.next = (self.pi.val() + !self.pd.val()) & self.pc_max.val();
        self.pc_start_nz.next = ((self.pi.val() ^ self.pd.val()) & self.pc_max.val()).any();
        self.d_same_counter.next = self.r_d_dec.q.val()
            & (self.r_d_in.q.val() == self.r_prow.q.val())
            & (self.r_d_lane_u.q.val() == self.r_lane_p.q.val());
        self.pc_old.next = self.pc_start.val();
        if self.d_same_counter.val() & self.pc_start_nz.val() {
            self.pc_old.next = self.pc_less.val();
        }
        self.pc_sat.next = self.pc_old.val() == self.pc_max.val();
        self.flags.next = 0.into();
        if self.r_act.q.val() & self.ql_sat.val() {
            self.flags.next = self.f_qlen_saturated.val();
        }
        if self.r_act.q.val() & self.above.val() & self.bp_on.val() & self.pc_sat.val() {
            self.flags.next = self.flags.val() | self.f_pc_saturated.val();
        }
        if self.r_d_dec.q.val() & !self.d_pc_nz.val() {
            self.flags.next = self.flags.val() | self.f_pc_underflow.val();
        }
        self.counted.next =
            self.r_act.q.val() & self.above.val() & self.bp_on.val() & !self.pc_sat.val();
        self.pi_next.next = self.pi.val() + self.one_32.val();
        // Only whether the counters end the cycle non-zero is needed (the RAMs take the new
        // counts): counting a packet leaves its counter at least 1.
        self.pc_fin_nz.next = self.counted.val() | self.pc_old.val().any();
        // The departure's counter after the cycle: the arrival's result if it is the same one,
        // else non-zero when the departure found it above 1.
        self.d_pc_fin_nz.next = self.d_pc_nz.val() & (self.d_pc_old.val() != self.one_32.val());
        if self.r_act.q.val()
            & (self.r_in.q.val() == self.r_d_in.q.val())
            & (self.r_upq.q.val() == self.r_d_upq.q.val())
        {
            self.d_pc_fin_nz.next = self.pc_fin_nz.val();
        }
        // PAUSE: the counter leaves 0. A departure leaves a counter at 0 as it is, so it is
        // the count of this packet that moves it.
        self.pause.next = self.counted.val() & !self.pc_start_nz.val();
        self.resume.next = self.d_pc_write.val() & !self.d_pc_fin_nz.val();

        // ---- The non-zero bits, departure first.
        self.nz_next.next = self.nz.q.val();
        if self.r_d_dec.q.val() {
            if self.d_pc_fin_nz.val() {
                self.nz_next.next = self.nz_next.val() | (self.one_n.val() << self.d_j.val());
            } else {
                self.nz_next.next = self.nz_next.val() & !(self.one_n.val() << self.d_j.val());
            }
        }
        if self.r_act.q.val() {
            if self.pc_fin_nz.val() {
                self.nz_next.next = self.nz_next.val() | (self.one_n.val() << self.j.val());
            } else {
                self.nz_next.next = self.nz_next.val() & !(self.one_n.val() << self.j.val());
            }
        }
        self.nz.d.next = self.nz_next.val() & self.used_u.val();

        self.o_pause_valid.d.next = self.pause.val();
        self.o_pause_port.d.next = 0.into();
        self.o_pause_queue.d.next = 0.into();
        if self.pause.val() {
            self.o_pause_port.d.next = self.r_in.q.val();
            self.o_pause_queue.d.next = self.r_upq.q.val();
        }
        self.o_resume_valid.d.next = self.resume.val();
        self.o_resume_port.d.next = 0.into();
        self.o_resume_queue.d.next = 0.into();
        if self.resume.val() {
            self.o_resume_port.d.next = self.r_d_in.q.val();
            self.o_resume_queue.d.next = self.r_d_upq.q.val();
        }
        self.pause_valid.next = self.o_pause_valid.q.val();
        self.pause_port.next = self.o_pause_port.q.val();
        self.pause_queue.next = self.o_pause_queue.q.val();
        self.resume_valid.next = self.o_resume_valid.q.val();
        self.resume_port.next = self.o_resume_port.q.val();
        self.resume_queue.next = self.o_resume_queue.q.val();
        if self.reset.val() {
            self.r_act.d.next = false;
            self.r_d_dec.d.next = false;
            self.nz.d.next = 0.into();
            self.o_pause_valid.d.next = false;
            self.o_pause_port.d.next = 0.into();
            self.o_pause_queue.d.next = 0.into();
            self.o_resume_valid.d.next = false;
            self.o_resume_port.d.next = 0.into();
            self.o_resume_queue.d.next = 0.into();
        }
    }
}

/// `nibble` in every 4-bit field of 128 bits.
fn repeat_128(nibble: u64) -> Bits<128> {
    (0..32).fold(Bits::<128>::default(), |acc, k| {
        acc | (Bits::<128>::from(nibble) << (4 * k))
    })
}
