//! BFC's arrival accounting (the second half of the model's `apply_enq`): the queue's
//! occupancy and the upstream pause counter, each after this cycle's departure. The packet
//! is counted (the counter incremented) when its queue is above `Th[N_active - 1]` and
//! backpressure is enabled from its ingress to its egress; a counter leaving 0 pauses the
//! upstream queue, a departure bringing it back to 0 resumes it.
//!
//! Owns the non-zero bits of the pause counters, which the bitmap frames carry. On a cycle
//! without an arrival the same lanes hold the snapshot's queue and counter.

use rust_hdl::prelude::*;
use switchcraft_core::mask;
use switchcraft_model::bfc::{err, BfcConfig};

#[derive(LogicBlock)]
pub struct Arrival<const N: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Cycle n: the arrival acts; its ports, upstream queue and length.
    pub act: Signal<In, Bit>,
    pub in_port: Signal<In, Bits<6>>,
    pub eg: Signal<In, Bits<6>>,
    pub upq: Signal<In, Bits<7>>,
    pub len: Signal<In, Bits<16>>,
    /// The arrival side's rows and lanes read, and their lanes' values (bytes enqueued and
    /// dequeued, counter increments and decrements) as the last edge left them.
    pub qrow: Signal<In, Bits<6>>,
    pub lane_q: Signal<In, Bits<8>>,
    pub prow: Signal<In, Bits<6>>,
    pub lane_p: Signal<In, Bits<8>>,
    pub qe: Signal<In, Bits<32>>,
    pub qd: Signal<In, Bits<32>>,
    pub pi: Signal<In, Bits<32>>,
    pub pd: Signal<In, Bits<32>>,
    /// The egress row's empty bits after this cycle's departure; the downstream-paused bits
    /// after this cycle's frame; the Th and bpEn tables.
    pub row_empty: Signal<In, Bits<128>>,
    pub paused: Signal<In, Bits<N>>,
    pub th: Signal<In, Bits<4096>>,
    pub bp_off: Signal<In, Bits<4096>>,
    /// This cycle's departure: its queue's row and lane and new dequeued-bytes count; its
    /// counter's row, lane, index and new decrement count; the counter before and after.
    pub d_act: Signal<In, Bit>,
    pub d_eg: Signal<In, Bits<6>>,
    pub d_lane_q: Signal<In, Bits<8>>,
    pub d_qd_next: Signal<In, Bits<32>>,
    pub d_in: Signal<In, Bits<6>>,
    pub d_upq: Signal<In, Bits<7>>,
    pub d_lane_u: Signal<In, Bits<8>>,
    pub d_j: Signal<In, Bits<16>>,
    pub d_pc_dec: Signal<In, Bit>,
    pub d_pc_write: Signal<In, Bit>,
    pub d_pd_next: Signal<In, Bits<32>>,
    pub d_pc_old: Signal<In, Bits<32>>,
    pub d_pc_after: Signal<In, Bits<32>>,

    /// The queue's occupancy and the counter after this cycle's departure, before the
    /// arrival (also the snapshot's values).
    pub ql_old: Signal<Out, Bits<32>>,
    pub pc_old: Signal<Out, Bits<32>>,
    /// The packet is counted; the error flags it raises (a full queue or counter).
    pub counted: Signal<Out, Bit>,
    pub flags: Signal<Out, Bits<8>>,
    /// The new bytes-enqueued and increment counts.
    pub qe_next: Signal<Out, Bits<32>>,
    pub pi_next: Signal<Out, Bits<32>>,
    /// The PAUSE (of the arrival's upstream queue) and RESUME (of the departure's) of edge
    /// n + 1.
    pub pause_valid: Signal<Out, Bit>,
    pub pause_port: Signal<Out, Bits<6>>,
    pub pause_queue: Signal<Out, Bits<7>>,
    pub resume_valid: Signal<Out, Bit>,
    pub resume_port: Signal<Out, Bits<6>>,
    pub resume_queue: Signal<Out, Bits<7>>,
    /// The non-zero bits of the counters as this edge leaves them.
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
    one_32: Constant<Bits<32>>,
    one_n: Constant<Bits<N>>,
    /// The `{port, upstream queue}` bits this config has.
    used_u: Constant<Bits<N>>,

    f_qlen_saturated: Constant<Bits<8>>,
    f_pc_saturated: Constant<Bits<8>>,

    nz: DFF<Bits<N>>,
    o_pause_valid: DFF<Bit>,
    o_pause_port: DFF<Bits<6>>,
    o_pause_queue: DFF<Bits<7>>,
    o_resume_valid: DFF<Bit>,
    o_resume_port: DFF<Bits<6>>,
    o_resume_queue: DFF<Bits<7>>,
    pause: Signal<Local, Bit>,
    resume: Signal<Local, Bit>,
    qd_now: Signal<Local, Bits<32>>,
    row_paused_wide: Signal<Local, Bits<N>>,
    row_paused: Signal<Local, Bits<128>>,
    active: Signal<Local, Bits<128>>,
    n_active: Signal<Local, Bits<8>>,
    th_idx: Signal<Local, Bits<8>>,
    th_now: Signal<Local, Bits<32>>,
    above: Signal<Local, Bit>,
    bp_idx: Signal<Local, Bits<12>>,
    bp: Signal<Local, Bit>,
    j: Signal<Local, Bits<16>>,
    pd_now: Signal<Local, Bits<32>>,
    pc_start: Signal<Local, Bits<32>>,
    pc_sat: Signal<Local, Bit>,
    pc_fin: Signal<Local, Bits<32>>,
    d_pc_fin: Signal<Local, Bits<32>>,
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
            qrow: Default::default(),
            lane_q: Default::default(),
            prow: Default::default(),
            lane_p: Default::default(),
            qe: Default::default(),
            qd: Default::default(),
            pi: Default::default(),
            pd: Default::default(),
            row_empty: Default::default(),
            paused: Default::default(),
            th: Default::default(),
            bp_off: Default::default(),
            d_act: Default::default(),
            d_eg: Default::default(),
            d_lane_q: Default::default(),
            d_qd_next: Default::default(),
            d_in: Default::default(),
            d_upq: Default::default(),
            d_lane_u: Default::default(),
            d_j: Default::default(),
            d_pc_dec: Default::default(),
            d_pc_write: Default::default(),
            d_pd_next: Default::default(),
            d_pc_old: Default::default(),
            d_pc_after: Default::default(),
            ql_old: Default::default(),
            pc_old: Default::default(),
            counted: Default::default(),
            flags: Default::default(),
            qe_next: Default::default(),
            pi_next: Default::default(),
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
            one_32: c32(1),
            one_n: Constant::new(1u64.into()),
            used_u: Constant::new(used_u),
            f_qlen_saturated: c8(err::QLEN_SATURATED),
            f_pc_saturated: c8(err::PC_SATURATED),
            nz: Default::default(),
            o_pause_valid: Default::default(),
            o_pause_port: Default::default(),
            o_pause_queue: Default::default(),
            o_resume_valid: Default::default(),
            o_resume_port: Default::default(),
            o_resume_queue: Default::default(),
            pause: Default::default(),
            resume: Default::default(),
            qd_now: Default::default(),
            row_paused_wide: Default::default(),
            row_paused: Default::default(),
            active: Default::default(),
            n_active: Default::default(),
            th_idx: Default::default(),
            th_now: Default::default(),
            above: Default::default(),
            bp_idx: Default::default(),
            bp: Default::default(),
            j: Default::default(),
            pd_now: Default::default(),
            pc_start: Default::default(),
            pc_sat: Default::default(),
            pc_fin: Default::default(),
            d_pc_fin: Default::default(),
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
            nz,
            o_pause_valid,
            o_pause_port,
            o_pause_queue,
            o_resume_valid,
            o_resume_port,
            o_resume_queue
        );
        // ---- The queue before this packet, after this cycle's departure.
        self.qd_now.next = self.qd.val();
        if self.d_act.val()
            & (self.d_eg.val() == self.qrow.val())
            & (self.d_lane_q.val() == self.lane_q.val())
        {
            self.qd_now.next = self.d_qd_next.val();
        }
        self.ql_old.next = (self.qe.val() - self.qd_now.val()) & self.occ_max.val();
        self.ql_sat.next =
            (self.occ_max.val() - self.ql_old.val()) < bit_cast::<32, 16>(self.len.val());
        // A saturated queue holds occ_max: enqueued = dequeued + occ_max.
        self.qe_next.next = self.qe.val() + bit_cast::<32, 16>(self.len.val());
        if self.ql_sat.val() {
            self.qe_next.next = self.qd_now.val() + self.occ_max.val();
        }

        // ---- The threshold: Th[N_active - 1], N_active the data queues of the egress that
        // are neither empty nor paused downstream.
        self.row_paused_wide.next =
            self.paused.val() >> (bit_cast::<16, 6>(self.eg.val()) << self.queue_bits.val());
        self.row_paused.next = bit_cast::<128, N>(self.row_paused_wide.val());
        self.active.next = !self.row_empty.val() & !self.row_paused.val() & self.data_queues.val();
        self.n_active.next = 0.into();
        for i in 0..128 {
            if self.active.val().get_bit(i) {
                self.n_active.next = self.n_active.val() + self.one_8.val();
            }
        }
        self.th_idx.next = 0.into();
        if self.n_active.val().any() {
            self.th_idx.next = (self.n_active.val() - self.one_8.val()) & self.q_lane_mask.val();
        }
        self.th_now.next = self.th.val().get_bits::<32>(self.th_idx.val().index() * 32);
        self.above.next = self.ql_old.val() > self.th_now.val();
        self.bp_idx.next = ((bit_cast::<12, 6>(self.in_port.val()) & self.port_mask.val()) << 6)
            | (bit_cast::<12, 6>(self.eg.val()) & self.port_mask.val());
        self.bp.next = !self.bp_off.val().get_bit(self.bp_idx.val().index());

        // ---- The pause counter at the start of the cycle (for PAUSE) and after this cycle's
        // departure.
        self.j.next = (bit_cast::<16, 6>(self.in_port.val()) << self.upstream_bits.val())
            | bit_cast::<16, 7>(self.upq.val());
        self.pd_now.next = self.pd.val();
        if self.d_pc_write.val()
            & (self.d_in.val() == self.prow.val())
            & (self.d_lane_u.val() == self.lane_p.val())
        {
            self.pd_now.next = self.d_pd_next.val();
        }
        self.pc_start.next = (self.pi.val() - self.pd.val()) & self.pc_max.val();
        self.pc_old.next = (self.pi.val() - self.pd_now.val()) & self.pc_max.val();
        self.pc_sat.next = self.pc_old.val() == self.pc_max.val();
        self.flags.next = 0.into();
        if self.act.val() & self.ql_sat.val() {
            self.flags.next = self.f_qlen_saturated.val();
        }
        if self.act.val() & self.above.val() & self.bp.val() & self.pc_sat.val() {
            self.flags.next = self.flags.val() | self.f_pc_saturated.val();
        }
        self.counted.next = self.act.val() & self.above.val() & self.bp.val() & !self.pc_sat.val();
        self.pi_next.next = self.pi.val() + self.one_32.val();
        self.pc_fin.next = self.pc_old.val();
        if self.counted.val() {
            self.pc_fin.next = self.pc_old.val() + self.one_32.val();
        }
        // The departure's counter after the cycle: the arrival's result if it is the same one.
        self.d_pc_fin.next = self.d_pc_after.val();
        if self.act.val()
            & (self.in_port.val() == self.d_in.val())
            & (self.upq.val() == self.d_upq.val())
        {
            self.d_pc_fin.next = self.pc_fin.val();
        }
        self.pause.next = self.act.val() & !self.pc_start.val().any() & self.pc_fin.val().any();
        self.resume.next =
            self.d_pc_dec.val() & self.d_pc_old.val().any() & !self.d_pc_fin.val().any();

        // ---- The non-zero bits, departure first.
        self.nz_next.next = self.nz.q.val();
        if self.d_pc_dec.val() {
            if self.d_pc_fin.val().any() {
                self.nz_next.next = self.nz_next.val() | (self.one_n.val() << self.d_j.val());
            } else {
                self.nz_next.next = self.nz_next.val() & !(self.one_n.val() << self.d_j.val());
            }
        }
        if self.act.val() {
            if self.pc_fin.val().any() {
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
            self.o_pause_port.d.next = self.in_port.val();
            self.o_pause_queue.d.next = self.upq.val();
        }
        self.o_resume_valid.d.next = self.resume.val();
        self.o_resume_port.d.next = 0.into();
        self.o_resume_queue.d.next = 0.into();
        if self.resume.val() {
            self.o_resume_port.d.next = self.d_in.val();
            self.o_resume_queue.d.next = self.d_upq.val();
        }
        self.pause_valid.next = self.o_pause_valid.q.val();
        self.pause_port.next = self.o_pause_port.q.val();
        self.pause_queue.next = self.o_pause_queue.q.val();
        self.resume_valid.next = self.o_resume_valid.q.val();
        self.resume_port.next = self.o_resume_port.q.val();
        self.resume_queue.next = self.o_resume_queue.q.val();
        if self.reset.val() {
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
