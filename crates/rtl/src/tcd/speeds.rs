//! TCD's speed classes behind the register bank's windows: each class's max(Ton), T, K and
//! K_low (one 32-bit lane each, lane `4 class + word`), and each (port, priority) entry's class
//! (2 bits, at bit `2 key`). A write of `max_ton`, `t_period`, `k` or `k_low` stores into
//! class `speed_sel`; a write of `entry_speed` into entry `entry_index` (a class the block does
//! not have is not stored).
//!
//! The dequeue's class is looked up one cycle ahead, on the key of the dequeue on the input
//! bus, in the table as this edge leaves it, and registered: in the dequeue's capture cycle
//! the classify stage computes its time windows and tests K and K_low from that class's lanes
//! as stored (a register and a class multiplexer, no write on the path). One class folds
//! away: its class bits are constant 0.

use super::{Bank, CSR_BITS, CSR_OFFSET_BITS, CSR_SLOTS};
use crate::narrow_ram::low_bits;
use rust_hdl::prelude::*;
use switchcraft_core::{index_bits, mask};
use switchcraft_model::tcd::{regmap, TcdConfig, MAX_SPEEDS};

/// Lanes of the constants: 4 classes x (max_ton, t_period, k, k_low).
const LANE_BITS: usize = 32 * 4 * MAX_SPEEDS as usize;
/// Entry classes: 2 bits for each of the 512 keys of 64 ports x 8 priorities.
const CLASS_BITS: usize = 1024;

#[derive(LogicBlock)]
pub struct Speeds<const KB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// The bank's write strobes of this edge, the written word, and the registers as stored.
    pub write: Signal<In, Bits<CSR_SLOTS>>,
    pub wdata: Signal<In, Bits<32>>,
    pub value: Signal<In, Bits<CSR_BITS>>,
    /// The key of the dequeue on the input bus (classified from the next edge on).
    pub next_d_key: Signal<In, Bits<KB>>,

    /// max(Ton), T, K and K_low of the class of the dequeue captured at the last edge (its
    /// class looked up one edge ago), as stored.
    pub max_ton: Signal<Out, Bits<32>>,
    pub t_period: Signal<Out, Bits<32>>,
    pub k: Signal<Out, Bits<32>>,
    pub k_low: Signal<Out, Bits<32>>,
    /// The window words as stored.
    pub rd_max_ton: Signal<Out, Bits<32>>,
    pub rd_t_period: Signal<Out, Bits<32>>,
    pub rd_k: Signal<Out, Bits<32>>,
    pub rd_k_low: Signal<Out, Bits<32>>,
    pub rd_entry_speed: Signal<Out, Bits<32>>,

    at_speed_sel: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_index: Constant<Bits<CSR_OFFSET_BITS>>,
    /// Write strobes of the windows.
    max_ton_written: Constant<Bits<CSR_SLOTS>>,
    t_period_written: Constant<Bits<CSR_SLOTS>>,
    k_written: Constant<Bits<CSR_SLOTS>>,
    k_low_written: Constant<Bits<CSR_SLOTS>>,
    entry_speed_written: Constant<Bits<CSR_SLOTS>>,
    /// The bits a time lane and a queue lane hold.
    time_mask: Constant<Bits<32>>,
    queue_mask: Constant<Bits<32>>,
    /// Offsets of the lanes within a class.
    c32_9: Constant<Bits<9>>,
    c64_9: Constant<Bits<9>>,
    c96_9: Constant<Bits<9>>,
    n_speeds: Constant<Bits<32>>,
    /// The bits a class number has (0 with one class), so that synthesis sees a single class
    /// as the constant 0 and drops the selects.
    class_mask_9: Constant<Bits<9>>,
    class_mask_2: Constant<Bits<2>>,
    c3_32: Constant<Bits<32>>,
    ones_32: Constant<Bits<LANE_BITS>>,
    lane_class: Constant<Bits<CLASS_BITS>>,
    reset_lanes: Constant<Bits<LANE_BITS>>,
    used_lanes: Constant<Bits<LANE_BITS>>,
    reset_classes: Constant<Bits<CLASS_BITS>>,
    used_classes: Constant<Bits<CLASS_BITS>>,

    /// The tables XOR their reset values, so the registers reset to 0.
    lanes_x: DFF<Bits<LANE_BITS>>,
    classes_x: DFF<Bits<CLASS_BITS>>,
    /// The class of the dequeue being tested.
    d_class: DFF<Bits<2>>,

    lanes: Signal<Local, Bits<LANE_BITS>>,
    lanes_next: Signal<Local, Bits<LANE_BITS>>,
    classes: Signal<Local, Bits<CLASS_BITS>>,
    classes_next: Signal<Local, Bits<CLASS_BITS>>,
    speed_sel: Signal<Local, Bits<32>>,
    entry_index: Signal<Local, Bits<10>>,
    sel_ok: Signal<Local, Bit>,
    sel_class: Signal<Local, Bits<9>>,
    /// Bit offset of lane 0 of class `speed_sel`, of entry `entry_index`'s class, of the next
    /// dequeue's class and of lane 0 of its class.
    sel_off: Signal<Local, Bits<9>>,
    entry_off: Signal<Local, Bits<10>>,
    next_off: Signal<Local, Bits<10>>,
    next_class: Signal<Local, Bits<2>>,
    d_lane: Signal<Local, Bits<9>>,
    class_w: Signal<Local, Bits<32>>,
    /// The lane a window write stores into, and the word.
    w_lane: Signal<Local, Bit>,
    w_off: Signal<Local, Bits<9>>,
    w_word: Signal<Local, Bits<32>>,
    entry_class: Signal<Local, Bits<2>>,
}

impl<const KB: usize> Speeds<KB> {
    pub fn new(cfg: &TcdConfig) -> Self {
        let map = regmap(cfg);
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        let widths = [
            cfg.time_bits - 1,
            cfg.time_bits - 1,
            cfg.queue_bits,
            cfg.queue_bits,
        ];
        let mut reset_lanes = Bits::<LANE_BITS>::default();
        let mut used_lanes = Bits::<LANE_BITS>::default();
        for s in 0..cfg.speeds() {
            let c = cfg.speed(s);
            for (w, (v, width)) in [c.max_ton, c.t_period, c.k, c.k_low]
                .into_iter()
                .zip(widths)
                .enumerate()
            {
                let at = 32 * (4 * s as u64 + w as u64);
                reset_lanes = reset_lanes | (Bits::<LANE_BITS>::from(v) << at);
                used_lanes = used_lanes | (low_bits::<LANE_BITS>(width as usize) << at);
            }
        }
        // A class has the bits its values need: none with one class.
        let class_bits = if cfg.speeds() == 1 {
            0
        } else {
            index_bits(cfg.speeds().into()) as usize
        };
        let mut reset_classes = Bits::<CLASS_BITS>::default();
        let mut used_classes = Bits::<CLASS_BITS>::default();
        for port in 0..cfg.ports {
            for prio in 0..cfg.priorities {
                let key = port * cfg.priorities + prio;
                let at = 2 * u64::from(port << 3 | prio);
                let class = u64::from(cfg.entry_speed_of(key as usize));
                reset_classes = reset_classes | (Bits::<CLASS_BITS>::from(class) << at);
                used_classes = used_classes | (low_bits::<CLASS_BITS>(class_bits) << at);
            }
        }
        Speeds {
            clock: Default::default(),
            reset: Default::default(),
            write: Default::default(),
            wdata: Default::default(),
            value: Default::default(),
            next_d_key: Default::default(),
            max_ton: Default::default(),
            t_period: Default::default(),
            k: Default::default(),
            k_low: Default::default(),
            rd_max_ton: Default::default(),
            rd_t_period: Default::default(),
            rd_k: Default::default(),
            rd_k_low: Default::default(),
            rd_entry_speed: Default::default(),
            at_speed_sel: Bank::offset(&map, "speed_sel"),
            at_entry_index: Bank::offset(&map, "entry_index"),
            max_ton_written: Bank::strobe(&map, "max_ton"),
            t_period_written: Bank::strobe(&map, "t_period"),
            k_written: Bank::strobe(&map, "k"),
            k_low_written: Bank::strobe(&map, "k_low"),
            entry_speed_written: Bank::strobe(&map, "entry_speed"),
            time_mask: c32(mask(cfg.time_bits - 1)),
            queue_mask: c32(mask(cfg.queue_bits)),
            c32_9: Constant::new(32u64.into()),
            c64_9: Constant::new(64u64.into()),
            c96_9: Constant::new(96u64.into()),
            n_speeds: c32(cfg.speeds().into()),
            class_mask_9: Constant::new(mask(class_bits as u32).into()),
            class_mask_2: Constant::new(mask(class_bits as u32).into()),
            c3_32: c32(3),
            ones_32: Constant::new(0xFFFF_FFFFu64.into()),
            lane_class: Constant::new(3u64.into()),
            reset_lanes: Constant::new(reset_lanes),
            used_lanes: Constant::new(used_lanes),
            reset_classes: Constant::new(reset_classes),
            used_classes: Constant::new(used_classes),
            lanes_x: Default::default(),
            classes_x: Default::default(),
            d_class: Default::default(),
            lanes: Default::default(),
            lanes_next: Default::default(),
            classes: Default::default(),
            classes_next: Default::default(),
            speed_sel: Default::default(),
            entry_index: Default::default(),
            sel_ok: Default::default(),
            sel_class: Default::default(),
            sel_off: Default::default(),
            entry_off: Default::default(),
            next_off: Default::default(),
            next_class: Default::default(),
            d_lane: Default::default(),
            class_w: Default::default(),
            w_lane: Default::default(),
            w_off: Default::default(),
            w_word: Default::default(),
            entry_class: Default::default(),
        }
    }
}

impl<const KB: usize> Logic for Speeds<KB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lanes_x, classes_x, d_class);
        self.speed_sel.next = self
            .value
            .val()
            .get_bits::<32>(self.at_speed_sel.val().index());
        self.entry_index.next = self
            .value
            .val()
            .get_bits::<10>(self.at_entry_index.val().index());
        self.lanes.next = self.lanes_x.q.val() ^ self.reset_lanes.val();
        self.classes.next = self.classes_x.q.val() ^ self.reset_classes.val();

        // Windows as stored. speed_sel is 2 bits: its lanes lie within the table, and read 0
        // for a class the block does not have.
        self.sel_ok.next = self.speed_sel.val() < self.n_speeds.val();
        self.sel_class.next = bit_cast::<9, 32>(self.speed_sel.val()) & self.class_mask_9.val();
        self.sel_off.next = self.sel_class.val() << 7;
        self.rd_max_ton.next = 0.into();
        self.rd_t_period.next = 0.into();
        self.rd_k.next = 0.into();
        self.rd_k_low.next = 0.into();
        if self.sel_ok.val() {
            self.rd_max_ton.next = self.lanes.val().get_bits::<32>(self.sel_off.val().index());
            self.rd_t_period.next = self
                .lanes
                .val()
                .get_bits::<32>((self.sel_off.val() + self.c32_9.val()).index());
            self.rd_k.next = self
                .lanes
                .val()
                .get_bits::<32>((self.sel_off.val() + self.c64_9.val()).index());
            self.rd_k_low.next = self
                .lanes
                .val()
                .get_bits::<32>((self.sel_off.val() + self.c96_9.val()).index());
        }
        self.entry_off.next = self.entry_index.val() << 1;
        self.entry_class.next = self
            .classes
            .val()
            .get_bits::<2>(self.entry_off.val().index())
            & self.class_mask_2.val();
        self.rd_entry_speed.next = bit_cast::<32, 2>(self.entry_class.val());

        // Writes: into class speed_sel's lane, or entry entry_index's class.
        self.w_off.next = self.sel_off.val();
        self.w_word.next = self.wdata.val() & self.time_mask.val();
        self.w_lane.next = (self.write.val() & self.max_ton_written.val()).any();
        if (self.write.val() & self.t_period_written.val()).any() {
            self.w_off.next = self.sel_off.val() + self.c32_9.val();
            self.w_lane.next = true;
        }
        if (self.write.val() & self.k_written.val()).any() {
            self.w_off.next = self.sel_off.val() + self.c64_9.val();
            self.w_word.next = self.wdata.val() & self.queue_mask.val();
            self.w_lane.next = true;
        }
        if (self.write.val() & self.k_low_written.val()).any() {
            self.w_off.next = self.sel_off.val() + self.c96_9.val();
            self.w_word.next = self.wdata.val() & self.queue_mask.val();
            self.w_lane.next = true;
        }
        self.lanes_next.next = self.lanes.val();
        if self.sel_ok.val() & self.w_lane.val() {
            self.lanes_next.next = (self.lanes.val() & !(self.ones_32.val() << self.w_off.val()))
                | (bit_cast::<LANE_BITS, 32>(self.w_word.val()) << self.w_off.val());
        }
        self.class_w.next = self.wdata.val() & self.c3_32.val();
        self.classes_next.next = self.classes.val();
        if (self.write.val() & self.entry_speed_written.val()).any()
            & (self.class_w.val() < self.n_speeds.val())
        {
            self.classes_next.next = (self.classes.val()
                & !(self.lane_class.val() << self.entry_off.val()))
                | (bit_cast::<CLASS_BITS, 32>(self.class_w.val()) << self.entry_off.val());
        }
        // Entries and classes this config does not have are never written.
        self.lanes_x.d.next =
            (self.lanes_next.val() ^ self.reset_lanes.val()) & self.used_lanes.val();
        self.classes_x.d.next =
            (self.classes_next.val() ^ self.reset_classes.val()) & self.used_classes.val();

        // The next dequeue's class and its max(Ton) and T, as this edge leaves them.
        self.next_off.next = bit_cast::<10, KB>(self.next_d_key.val()) << 1;
        self.next_class.next = self
            .classes_next
            .val()
            .get_bits::<2>(self.next_off.val().index())
            & self.class_mask_2.val();
        self.d_class.d.next = self.next_class.val();
        self.d_lane.next = bit_cast::<9, 2>(self.d_class.q.val()) << 7;
        self.max_ton.next = self.lanes.val().get_bits::<32>(self.d_lane.val().index());
        self.t_period.next = self
            .lanes
            .val()
            .get_bits::<32>((self.d_lane.val() + self.c32_9.val()).index());
        self.k.next = self
            .lanes
            .val()
            .get_bits::<32>((self.d_lane.val() + self.c64_9.val()).index());
        self.k_low.next = self
            .lanes
            .val()
            .get_bits::<32>((self.d_lane.val() + self.c96_9.val()).index());

        if self.reset.val() {
            self.lanes_x.d.next = 0.into();
            self.classes_x.d.next = 0.into();
            self.d_class.d.next = 0.into();
        }
    }
}
