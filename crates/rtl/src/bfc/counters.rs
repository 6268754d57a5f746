//! BFC's queue occupancies and pause counters. Each has two writers per cycle (+ by an
//! arrival, - by a departure), so each is kept as two counts, one per writer, in
//! [`CounterRowRam`]s of one row per port with one lane per queue: bytes enqueued and
//! dequeued per queue (row = egress), `qlen = enqueued - dequeued (mod 2^occupancy_bits)`;
//! increments and decrements per pause counter (row = ingress), `counter = increments -
//! decrements (mod 2^pc_bits)`.
//!
//! Port A of each RAM serves the arrival side (the arrival's rows, or the snapshot's), port B
//! the departure side. Each reader gets its lane as the last edge left it; each writer writes
//! its own lane; the reset sweep clears one row of each RAM per edge.

use crate::counter_row_ram::CounterRowRam;
use rust_hdl::prelude::*;
use switchcraft_model::bfc::BfcConfig;

#[derive(LogicBlock)]
pub struct Counters {
    pub clock: Signal<In, Clock>,
    /// Before edge n: the rows each side reads.
    pub qrow_a: Signal<In, Bits<6>>,
    pub prow_a: Signal<In, Bits<6>>,
    pub qrow_d: Signal<In, Bits<6>>,
    pub prow_d: Signal<In, Bits<6>>,
    /// Cycle n: the lanes each side reads.
    pub lane_qa: Signal<In, Bits<8>>,
    pub lane_pa: Signal<In, Bits<8>>,
    pub lane_qd: Signal<In, Bits<8>>,
    pub lane_pd: Signal<In, Bits<8>>,
    /// Cycle n: the writes of the arrival (its queue in row `e_row`, and when counted its
    /// counter in row `i_row`) and of the departure (`d_row`, `dp_row`), each at the lane its
    /// side reads; the sweep.
    pub e_write: Signal<In, Bit>,
    pub e_row: Signal<In, Bits<6>>,
    pub qe_next: Signal<In, Bits<32>>,
    pub i_write: Signal<In, Bit>,
    pub i_row: Signal<In, Bits<6>>,
    pub pi_next: Signal<In, Bits<32>>,
    pub d_write: Signal<In, Bit>,
    pub d_row: Signal<In, Bits<6>>,
    pub qd_next: Signal<In, Bits<32>>,
    pub dp_write: Signal<In, Bit>,
    pub dp_row: Signal<In, Bits<6>>,
    pub pd_next: Signal<In, Bits<32>>,
    pub sweep: Signal<In, Bit>,
    pub sweep_row: Signal<In, Bits<6>>,

    /// Cycle n, the arrival side: bytes enqueued and dequeued, increments and decrements.
    pub a_qe: Signal<Out, Bits<32>>,
    pub a_qd: Signal<Out, Bits<32>>,
    pub a_pi: Signal<Out, Bits<32>>,
    pub a_pd: Signal<Out, Bits<32>>,
    /// Cycle n, the departure side: the same.
    pub d_qe: Signal<Out, Bits<32>>,
    pub d_qd: Signal<Out, Bits<32>>,
    pub d_pi: Signal<Out, Bits<32>>,
    pub d_pd: Signal<Out, Bits<32>>,

    qe: CounterRowRam<6>,
    qd: CounterRowRam<6>,
    pi: CounterRowRam<6>,
    pd: CounterRowRam<6>,
}

impl Counters {
    pub fn new(cfg: &BfcConfig) -> Self {
        let rows = cfg.ports as usize;
        let (queues, upstream) = (cfg.queues as usize, cfg.upstream_queues as usize);
        let (ob, pb) = (cfg.occupancy_bits as usize, cfg.pc_bits as usize);
        Counters {
            clock: Default::default(),
            qrow_a: Default::default(),
            prow_a: Default::default(),
            qrow_d: Default::default(),
            prow_d: Default::default(),
            lane_qa: Default::default(),
            lane_pa: Default::default(),
            lane_qd: Default::default(),
            lane_pd: Default::default(),
            e_write: Default::default(),
            e_row: Default::default(),
            qe_next: Default::default(),
            i_write: Default::default(),
            i_row: Default::default(),
            pi_next: Default::default(),
            d_write: Default::default(),
            d_row: Default::default(),
            qd_next: Default::default(),
            dp_write: Default::default(),
            dp_row: Default::default(),
            pd_next: Default::default(),
            sweep: Default::default(),
            sweep_row: Default::default(),
            a_qe: Default::default(),
            a_qd: Default::default(),
            a_pi: Default::default(),
            a_pd: Default::default(),
            d_qe: Default::default(),
            d_qd: Default::default(),
            d_pi: Default::default(),
            d_pd: Default::default(),
            qe: CounterRowRam::new(queues, ob, rows),
            qd: CounterRowRam::new(queues, ob, rows),
            pi: CounterRowRam::new(upstream, pb, rows),
            pd: CounterRowRam::new(upstream, pb, rows),
        }
    }
}

impl Logic for Counters {
    #[hdl_gen]
    fn update(&mut self) {
        self.qe.clock.next = self.clock.val();
        self.qd.clock.next = self.clock.val();
        self.pi.clock.next = self.clock.val();
        self.pd.clock.next = self.clock.val();
        self.qe.read_address.next = self.qrow_a.val();
        self.qd.read_address.next = self.qrow_a.val();
        self.pi.read_address.next = self.prow_a.val();
        self.pd.read_address.next = self.prow_a.val();
        self.qe.read_address_b.next = self.qrow_d.val();
        self.qd.read_address_b.next = self.qrow_d.val();
        self.pi.read_address_b.next = self.prow_d.val();
        self.pd.read_address_b.next = self.prow_d.val();
        // (Each lane goes straight from an input to a RAM and each output straight from a RAM:
        // the arrival side's lane depends on the departure side's values.)
        self.qe.read_lane.next = self.lane_qa.val();
        self.qd.read_lane.next = self.lane_qa.val();
        self.pi.read_lane.next = self.lane_pa.val();
        self.pd.read_lane.next = self.lane_pa.val();
        self.qe.read_lane_b.next = self.lane_qd.val();
        self.qd.read_lane_b.next = self.lane_qd.val();
        self.pi.read_lane_b.next = self.lane_pd.val();
        self.pd.read_lane_b.next = self.lane_pd.val();
        self.a_qe.next = self.qe.lane_data.val();
        self.a_qd.next = self.qd.lane_data.val();
        self.a_pi.next = self.pi.lane_data.val();
        self.a_pd.next = self.pd.lane_data.val();
        self.d_qe.next = self.qe.lane_data_b.val();
        self.d_qd.next = self.qd.lane_data_b.val();
        self.d_pi.next = self.pi.lane_data_b.val();
        self.d_pd.next = self.pd.lane_data_b.val();

        self.qe.write_enable.next = self.e_write.val();
        self.qe.write_address.next = self.e_row.val();
        self.qe.write_clear.next = false;
        self.qe.write_lane.next = self.lane_qa.val();
        self.qe.write_value.next = self.qe_next.val();
        self.pi.write_enable.next = self.i_write.val();
        self.pi.write_address.next = self.i_row.val();
        self.pi.write_clear.next = false;
        self.pi.write_lane.next = self.lane_pa.val();
        self.pi.write_value.next = self.pi_next.val();
        self.qd.write_enable.next = self.d_write.val();
        self.qd.write_address.next = self.d_row.val();
        self.qd.write_clear.next = false;
        self.qd.write_lane.next = self.lane_qd.val();
        self.qd.write_value.next = self.qd_next.val();
        self.pd.write_enable.next = self.dp_write.val();
        self.pd.write_address.next = self.dp_row.val();
        self.pd.write_clear.next = false;
        self.pd.write_lane.next = self.lane_pd.val();
        self.pd.write_value.next = self.pd_next.val();
        if self.sweep.val() {
            self.qe.write_enable.next = true;
            self.qe.write_address.next = self.sweep_row.val();
            self.qe.write_clear.next = true;
            self.qd.write_enable.next = true;
            self.qd.write_address.next = self.sweep_row.val();
            self.qd.write_clear.next = true;
            self.pi.write_enable.next = true;
            self.pi.write_address.next = self.sweep_row.val();
            self.pi.write_clear.next = true;
            self.pd.write_enable.next = true;
            self.pd.write_address.next = self.sweep_row.val();
            self.pd.write_clear.next = true;
        }
    }
}
