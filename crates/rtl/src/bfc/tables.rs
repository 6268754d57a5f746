//! BFC's configuration tables behind the register bank's windows: the pause thresholds
//! `ThTab[speed][N_active]` (one 32-bit lane per (speed class, active-queue count), lane
//! `speed << queue_bits | n`), each egress port's speed class (2 bits per port), and bpEn (one
//! bit per (ingress, egress) pair, 64 per ingress). A write of `th_data`, `port_speed`,
//! `bpen_lo` or `bpen_hi` stores into the entry its index registers name; the events of the
//! same edge see it.
//!
//! The Th table and bpEn are [`RegTable`]s of exactly the config's words: an event's lane (Th)
//! or row (bpEn) is read at the edge, as the edge leaves it, and so is the word a read of the
//! data window returns (the core puts it on the bus in place of the bank's registered read).

use super::{Bank, CSR_BITS, CSR_OFFSET_BITS, CSR_SLOTS};
use crate::narrow_ram::low_bits;
use crate::reg_table::{RegTable, Word};
use rust_hdl::prelude::*;
use switchcraft_core::{index_bits, mask};
use switchcraft_model::bfc::{reg, regmap, BfcConfig};

/// Address bits of a Th lane and of a bpEn row (64 ingress ports).
pub const TH_LANE_BITS: usize = 9;
pub const BP_ROW_BITS: usize = 6;

#[derive(LogicBlock)]
pub struct Tables {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// The bank's write strobes of this edge and the written word.
    pub write: Signal<In, Bits<CSR_SLOTS>>,
    pub wdata: Signal<In, Bits<32>>,
    /// The registers as stored and as this edge leaves them: a write stores into the entry
    /// its index register names as stored, a read returns the one it names after the edge.
    pub value: Signal<In, Bits<CSR_BITS>>,
    pub value_next: Signal<In, Bits<CSR_BITS>>,

    /// The speed class of each port as this cycle's events see it (bits `2 o + 1 : 2 o`).
    pub port_speed: Signal<Out, Bits<128>>,
    /// The Th lane and the bpEn row (ingress port) of this cycle's event.
    pub ev_th_lane: Signal<In, Bits<TH_LANE_BITS>>,
    pub ev_bp_row: Signal<In, Bits<BP_ROW_BITS>>,
    /// After the edge: that lane's threshold and that row's bpEn bits inverted (bit `egress`
    /// set when backpressure is disabled), as the edge leaves them.
    pub ev_th: Signal<Out, Bits<32>>,
    pub ev_bp_off: Signal<Out, Bits<64>>,
    /// The port speed window word as this edge leaves it (for the bank's registered read).
    pub rd_port_speed: Signal<Out, Bits<32>>,
    /// After the edge: the Th and bpEn window words as the edge leaves them (the core returns
    /// them itself).
    pub rd_th: Signal<Out, Bits<32>>,
    pub rd_bpen_lo: Signal<Out, Bits<32>>,
    pub rd_bpen_hi: Signal<Out, Bits<32>>,

    at_th_index: Constant<Bits<CSR_OFFSET_BITS>>,
    at_th_speed: Constant<Bits<CSR_OFFSET_BITS>>,
    at_port_index: Constant<Bits<CSR_OFFSET_BITS>>,
    port_speed_written: Constant<Bits<CSR_SLOTS>>,
    n_speeds: Constant<Bits<32>>,
    queue_bits: Constant<Bits<16>>,
    lane_speed: Constant<Bits<128>>,
    speed_mask: Constant<Bits<TH_LANE_BITS>>,
    c3_32: Constant<Bits<32>>,
    port_mask7: Constant<Bits<7>>,
    reset_speed: Constant<Bits<128>>,
    used_speed: Constant<Bits<128>>,
    at_bpen_index: Constant<Bits<CSR_OFFSET_BITS>>,
    th_data_written: Constant<Bits<CSR_SLOTS>>,
    bpen_lo_written: Constant<Bits<CSR_SLOTS>>,
    bpen_hi_written: Constant<Bits<CSR_SLOTS>>,
    has_bpen_hi: Constant<Bit>,
    n_queues: Constant<Bits<8>>,
    n_ports: Constant<Bits<8>>,
    occ_max: Constant<Bits<32>>,
    /// bpEn bits a row holds, low and high words.
    bpen_lo_mask: Constant<Bits<32>>,
    bpen_hi_mask: Constant<Bits<32>>,
    th_lane_mask: Constant<Bits<TH_LANE_BITS>>,
    port_mask: Constant<Bits<12>>,
    ones_32: Constant<Bits<32>>,
    low_word: Constant<Bits<64>>,

    th_words: RegTable<TH_LANE_BITS, 32>,
    /// bpEn inverted (set bits disable backpressure), so its reset value is 0.
    bp_rows: RegTable<BP_ROW_BITS, 64>,
    /// The port speed classes XOR their reset value.
    speed_x: DFF<Bits<128>>,
    /// The read windows' index registers named an entry the table has.
    rd_th_ok: DFF<Bit>,
    rd_bp_ok: DFF<Bit>,
    th_index: Signal<Local, Bits<32>>,
    th_speed: Signal<Local, Bits<32>>,
    th_speed_next: Signal<Local, Bits<32>>,
    port_index: Signal<Local, Bits<32>>,
    port_index_next: Signal<Local, Bits<32>>,
    w_speed: Signal<Local, Bit>,
    speed_off: Signal<Local, Bits<7>>,
    rd_speed_off: Signal<Local, Bits<7>>,
    speed_wdata: Signal<Local, Bits<128>>,
    speed_w32: Signal<Local, Bits<32>>,
    speed_all: Signal<Local, Bits<128>>,
    th_speed_m: Signal<Local, Bits<TH_LANE_BITS>>,
    th_speed_next_m: Signal<Local, Bits<TH_LANE_BITS>>,
    rd_speed: Signal<Local, Bits<2>>,
    bpen_index: Signal<Local, Bits<32>>,
    th_index_next: Signal<Local, Bits<32>>,
    bpen_index_next: Signal<Local, Bits<32>>,
    w_th: Signal<Local, Bit>,
    w_lo: Signal<Local, Bit>,
    w_hi: Signal<Local, Bit>,
    th_lane: Signal<Local, Bits<TH_LANE_BITS>>,
    rd_th_lane: Signal<Local, Bits<TH_LANE_BITS>>,
    th_wdata: Signal<Local, Bits<32>>,
    bp_wdata_n: Signal<Local, Bits<32>>,
    bp_wdata_64: Signal<Local, Bits<64>>,
}

impl Tables {
    pub fn new(cfg: &BfcConfig) -> Self {
        let map = regmap(cfg);
        let c8 = |v: u64| Constant::new(Bits::<8>::from(v));
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        let qb = cfg.queue_bits();
        // Th lanes hold occupancy_bits (the config's and written values fit, see
        // BfcConfig::validate and th_wdata).
        let mut th_words = vec![None; ((cfg.speeds - 1) << qb | (cfg.queues - 1)) as usize + 1];
        for s in 0..cfg.speeds {
            for n in 0..cfg.queues {
                th_words[(s << qb | n) as usize] = Some(Word {
                    bits: mask(cfg.occupancy_bits),
                    reset: cfg.th[(s * cfg.queues + n) as usize],
                });
            }
        }
        // A bpEn row has a bit per egress port, all enabled (stored 0) after reset.
        let bp_words = vec![
            Some(Word {
                bits: low_bits::<64>(cfg.ports as usize).to_u64(),
                reset: 0
            });
            cfg.ports as usize
        ];
        // A port's speed class has the bits its values need: none with one class.
        let speed_bits = if cfg.speeds == 1 {
            0
        } else {
            index_bits(cfg.speeds.into()) as usize
        };
        let mut reset_speed = Bits::<128>::default();
        let mut used_speed = Bits::<128>::default();
        for o in 0..cfg.ports {
            let s = cfg.port_speed.get(o as usize).copied().unwrap_or(0);
            reset_speed = reset_speed | (Bits::<128>::from(u64::from(s)) << u64::from(2 * o));
            used_speed = used_speed | (low_bits::<128>(speed_bits) << u64::from(2 * o));
        }
        Tables {
            clock: Default::default(),
            reset: Default::default(),
            write: Default::default(),
            wdata: Default::default(),
            value: Default::default(),
            value_next: Default::default(),
            ev_th_lane: Default::default(),
            ev_bp_row: Default::default(),
            ev_th: Default::default(),
            ev_bp_off: Default::default(),
            rd_th: Default::default(),
            rd_port_speed: Default::default(),
            port_speed: Default::default(),
            rd_bpen_lo: Default::default(),
            rd_bpen_hi: Default::default(),
            at_th_index: Bank::offset(&map, "th_index"),
            at_th_speed: Bank::offset(&map, "th_speed"),
            at_port_index: Bank::offset(&map, "port_index"),
            port_speed_written: Bank::strobe(&map, "port_speed"),
            n_speeds: c32(cfg.speeds.into()),
            queue_bits: Constant::new(u64::from(qb).into()),
            lane_speed: Constant::new(3u64.into()),
            speed_mask: Constant::new(mask(speed_bits as u32).into()),
            c3_32: c32(3),
            port_mask7: Constant::new(mask(cfg.port_bits()).into()),
            reset_speed: Constant::new(reset_speed),
            used_speed: Constant::new(used_speed),
            at_bpen_index: Bank::offset(&map, "bpen_index"),
            th_data_written: Bank::strobe(&map, "th_data"),
            bpen_lo_written: Bank::strobe(&map, "bpen_lo"),
            // (bpen_hi exists above 32 ports; below, its writes do nothing.)
            bpen_hi_written: Constant::new(
                Bits::<CSR_SLOTS>::from(1u64) << u64::from(reg::BPEN_HI),
            ),
            has_bpen_hi: Constant::new(cfg.ports > 32),
            n_queues: c8(cfg.queues.into()),
            n_ports: c8(cfg.ports.into()),
            occ_max: c32(mask(cfg.occupancy_bits)),
            bpen_lo_mask: c32(mask(cfg.ports.min(32))),
            bpen_hi_mask: c32(if cfg.ports > 32 {
                mask(cfg.ports - 32)
            } else {
                0
            }),
            th_lane_mask: Constant::new(mask(qb).into()),
            port_mask: Constant::new(mask(cfg.port_bits()).into()),
            ones_32: c32(0xFFFF_FFFF),
            low_word: Constant::new(0xFFFF_FFFFu64.into()),
            th_words: RegTable::new(th_words),
            bp_rows: RegTable::new(bp_words),
            speed_x: Default::default(),
            rd_th_ok: Default::default(),
            rd_bp_ok: Default::default(),
            th_index: Default::default(),
            th_speed: Default::default(),
            th_speed_next: Default::default(),
            port_index: Default::default(),
            port_index_next: Default::default(),
            w_speed: Default::default(),
            speed_off: Default::default(),
            rd_speed_off: Default::default(),
            speed_wdata: Default::default(),
            speed_w32: Default::default(),
            speed_all: Default::default(),
            th_speed_m: Default::default(),
            th_speed_next_m: Default::default(),
            rd_speed: Default::default(),
            bpen_index: Default::default(),
            th_index_next: Default::default(),
            bpen_index_next: Default::default(),
            w_th: Default::default(),
            w_lo: Default::default(),
            w_hi: Default::default(),
            th_lane: Default::default(),
            rd_th_lane: Default::default(),
            th_wdata: Default::default(),
            bp_wdata_n: Default::default(),
            bp_wdata_64: Default::default(),
        }
    }
}

impl Logic for Tables {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, speed_x, rd_th_ok, rd_bp_ok);
        self.th_words.clock.next = self.clock.val();
        self.th_words.reset.next = self.reset.val();
        self.bp_rows.clock.next = self.clock.val();
        self.bp_rows.reset.next = self.reset.val();
        self.th_index.next = self
            .value
            .val()
            .get_bits::<32>(self.at_th_index.val().index());
        self.bpen_index.next = self
            .value
            .val()
            .get_bits::<32>(self.at_bpen_index.val().index());
        self.th_index_next.next = self
            .value_next
            .val()
            .get_bits::<32>(self.at_th_index.val().index());
        self.bpen_index_next.next = self
            .value_next
            .val()
            .get_bits::<32>(self.at_bpen_index.val().index());
        self.th_speed.next = self
            .value
            .val()
            .get_bits::<32>(self.at_th_speed.val().index());
        self.th_speed_next.next = self
            .value_next
            .val()
            .get_bits::<32>(self.at_th_speed.val().index());
        self.port_index.next = self
            .value
            .val()
            .get_bits::<32>(self.at_port_index.val().index());
        self.port_index_next.next = self
            .value_next
            .val()
            .get_bits::<32>(self.at_port_index.val().index());
        self.w_th.next = (self.write.val() & self.th_data_written.val()).any();
        self.w_speed.next = (self.write.val() & self.port_speed_written.val()).any();
        self.w_lo.next = (self.write.val() & self.bpen_lo_written.val()).any();
        self.w_hi.next =
            (self.write.val() & self.bpen_hi_written.val()).any() & self.has_bpen_hi.val();

        // Lane {speed, n}: used only when the speed is below `speeds` (<= 3).
        // The speed's bits this config has (none with one class), so a single class is the
        // constant 0 to synthesis and the lane offset is the queue's alone.
        self.th_speed_m.next =
            bit_cast::<TH_LANE_BITS, 32>(self.th_speed.val()) & self.speed_mask.val();
        self.th_speed_next_m.next =
            bit_cast::<TH_LANE_BITS, 32>(self.th_speed_next.val()) & self.speed_mask.val();
        self.th_lane.next = (self.th_speed_m.val() << self.queue_bits.val())
            | (bit_cast::<TH_LANE_BITS, 32>(self.th_index.val()) & self.th_lane_mask.val());
        self.th_wdata.next = self.wdata.val() & self.occ_max.val();
        self.th_words.write_enable.next = self.w_th.val()
            & (self.th_index.val() < bit_cast::<32, 8>(self.n_queues.val()))
            & (self.th_speed.val() < self.n_speeds.val());
        self.th_words.write_address.next = self.th_lane.val();
        self.th_words.write_mask.next = self.ones_32.val();
        self.th_words.write_data.next = self.th_wdata.val();
        self.th_words.read_address.next = self.ev_th_lane.val();
        self.ev_th.next = self.th_words.read_data.val();

        // A bpEn write replaces the low or the high word of its row (stored inverted).
        self.bp_wdata_n.next = !self.wdata.val();
        self.bp_wdata_64.next = bit_cast::<64, 32>(self.bp_wdata_n.val());
        self.bp_rows.write_enable.next = (self.w_lo.val() | self.w_hi.val())
            & (self.bpen_index.val() < bit_cast::<32, 8>(self.n_ports.val()));
        self.bp_rows.write_address.next = bit_cast::<BP_ROW_BITS, 32>(self.bpen_index.val())
            & bit_cast::<BP_ROW_BITS, 12>(self.port_mask.val());
        self.bp_rows.write_mask.next = self.low_word.val();
        if self.w_hi.val() {
            self.bp_rows.write_mask.next = self.low_word.val() << 32;
        }
        self.bp_rows.write_data.next = self.bp_wdata_64.val() | (self.bp_wdata_64.val() << 32);
        self.bp_rows.read_address.next = self.ev_bp_row.val();
        self.ev_bp_off.next = self.bp_rows.read_data.val();

        // The data windows: the entry the index registers name after this edge, read at it.
        self.rd_th_lane.next = (self.th_speed_next_m.val() << self.queue_bits.val())
            | (bit_cast::<TH_LANE_BITS, 32>(self.th_index_next.val()) & self.th_lane_mask.val());
        self.th_words.read_address_b.next = self.rd_th_lane.val();
        self.rd_th_ok.d.next = (self.th_index_next.val() < bit_cast::<32, 8>(self.n_queues.val()))
            & (self.th_speed_next.val() < self.n_speeds.val());
        self.rd_th.next = 0.into();
        if self.rd_th_ok.q.val() {
            self.rd_th.next = self.th_words.read_data_b.val();
        }

        // Port speed classes: a class the Th table has no row for is not stored.
        self.speed_off.next =
            (bit_cast::<7, 32>(self.port_index.val()) & self.port_mask7.val()) << 1;
        self.speed_w32.next = self.wdata.val() & self.c3_32.val();
        self.speed_wdata.next = bit_cast::<128, 32>(self.speed_w32.val());
        self.speed_all.next = self.speed_x.q.val() ^ self.reset_speed.val();
        if self.w_speed.val()
            & (self.port_index.val() < bit_cast::<32, 8>(self.n_ports.val()))
            & (self.speed_w32.val() < self.n_speeds.val())
        {
            self.speed_all.next = ((self.speed_x.q.val() ^ self.reset_speed.val())
                & !(self.lane_speed.val() << self.speed_off.val()))
                | (self.speed_wdata.val() << self.speed_off.val());
        }
        self.port_speed.next = self.speed_all.val() & self.used_speed.val();
        self.speed_x.d.next =
            (self.port_speed.val() ^ self.reset_speed.val()) & self.used_speed.val();
        self.rd_speed_off.next =
            (bit_cast::<7, 32>(self.port_index_next.val()) & self.port_mask7.val()) << 1;
        self.rd_speed.next = self
            .port_speed
            .val()
            .get_bits::<2>(self.rd_speed_off.val().index());
        self.rd_port_speed.next = 0.into();
        if self.port_index_next.val() < bit_cast::<32, 8>(self.n_ports.val()) {
            self.rd_port_speed.next = bit_cast::<32, 2>(self.rd_speed.val());
        }
        self.bp_rows.read_address_b.next = bit_cast::<BP_ROW_BITS, 32>(self.bpen_index_next.val())
            & bit_cast::<BP_ROW_BITS, 12>(self.port_mask.val());
        self.rd_bp_ok.d.next = self.bpen_index_next.val() < bit_cast::<32, 8>(self.n_ports.val());
        self.rd_bpen_lo.next = 0.into();
        self.rd_bpen_hi.next = 0.into();
        if self.rd_bp_ok.q.val() {
            self.rd_bpen_lo.next =
                !self.bp_rows.read_data_b.val().get_bits::<32>(0) & self.bpen_lo_mask.val();
            self.rd_bpen_hi.next =
                !self.bp_rows.read_data_b.val().get_bits::<32>(32) & self.bpen_hi_mask.val();
        }
        if self.reset.val() {
            self.speed_x.d.next = 0.into();
            self.rd_th_ok.d.next = false;
            self.rd_bp_ok.d.next = false;
        }
    }
}
