//! BFC's flow table and its reset sweep.
//!
//! The entry's `size` has two writers per cycle (+1 by an arrival at one key, -1 by a
//! departure at another) and a 1R1W RAM has one write port, so it is kept as two counts, one
//! per writer: `size = enq_count - deq_count (mod 2^size_bits)`. Bank E `{ts_enq, class,
//! enq_count, q}` (q in [7:0], enq_count above it, the class above that when there are two
//! classes or more, the arrival stamp above that with sampling) is written by arrivals, bank D `{deq_count}` and the timestamp by departures; each bank has
//! one copy per reader (the arrival side reads everything at its address, the departure side
//! the counts at its, so its copy of bank E holds `{enq_count, q}` only). Reads are as the last
//! edge left the entry: its writes are forwarded.
//!
//! After reset the sweep clears one entry (and one counter row) per edge; `ready` rises when
//! every entry is clear.

use super::{EW, FA};
use crate::narrow_ram::NarrowRam;
use rust_hdl::prelude::*;
use switchcraft_core::{index_bits, mask};
use switchcraft_model::bfc::BfcConfig;

#[derive(LogicBlock)]
pub struct FlowTable {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// The block is out of reset (the sweep runs).
    pub live: Signal<In, Bit>,
    /// Before edge n: the arrival side's and the departure side's addresses.
    pub read_a: Signal<In, Bits<FA>>,
    pub read_d: Signal<In, Bits<FA>>,
    /// Cycle n: the arrival's bank-E word at the arrival side's address, and the
    /// departure's new count and timestamp at the departure side's.
    pub e_write: Signal<In, Bit>,
    pub e_word: Signal<In, Bits<EW>>,
    pub d_write: Signal<In, Bit>,
    pub d_count: Signal<In, Bits<32>>,
    pub d_ts: Signal<In, Bits<32>>,

    /// Cycle n, the arrival side: the bank-E word `{ts_enq, class, enq_count, q}`, the departure
    /// count and the timestamp.
    pub a_word: Signal<Out, Bits<EW>>,
    pub a_dc: Signal<Out, Bits<32>>,
    pub a_ts: Signal<Out, Bits<32>>,
    /// Cycle n, the departure side: the counts.
    pub d_ec: Signal<Out, Bits<32>>,
    pub d_dc: Signal<Out, Bits<32>>,
    /// Both sides read the same entry.
    pub same_entry: Signal<Out, Bit>,
    /// Events are accepted in cycle n; as this edge leaves it; and at the edge after.
    pub ready: Signal<Out, Bit>,
    pub ready_next: Signal<Out, Bit>,
    pub ready_soon: Signal<Out, Bit>,
    /// The sweep clears counter row `sweep_row` at this edge.
    pub sweep: Signal<Out, Bit>,
    pub sweep_row: Signal<Out, Bits<6>>,

    ft_addr_mask: Constant<Bits<FA>>,
    size_mask: Constant<Bits<32>>,
    init_mask: Constant<Bits<32>>,
    ft_entries: Constant<Bits<32>>,
    one_32: Constant<Bits<32>>,
    two_32: Constant<Bits<32>>,

    ram_e_a: NarrowRam<FA, EW>,
    ram_e_d: NarrowRam<FA, EW>,
    ram_dc_a: NarrowRam<FA, 32>,
    ram_ts_a: NarrowRam<FA, 32>,
    ram_dc_d: NarrowRam<FA, 32>,
    /// The addresses read at edge n.
    addr_a: DFF<Bits<FA>>,
    addr_d: DFF<Bits<FA>>,
    /// The writes of the last edge: this edge's RAM reads return them old.
    fw_e_valid: DFF<Bit>,
    fw_e_addr: DFF<Bits<FA>>,
    fw_e_word: DFF<Bits<EW>>,
    fw_d_valid: DFF<Bit>,
    fw_d_addr: DFF<Bits<FA>>,
    fw_d_dc: DFF<Bits<32>>,
    fw_d_ts: DFF<Bits<32>>,
    init_cnt: DFF<Bits<32>>,
    init_done: DFF<Bit>,

    d_ec_wide: Signal<Local, Bits<EW>>,
    sweeping: Signal<Local, Bit>,
    we_e: Signal<Local, Bit>,
    wa_e: Signal<Local, Bits<FA>>,
    wd_e: Signal<Local, Bits<EW>>,
    we_d: Signal<Local, Bit>,
    wa_d: Signal<Local, Bits<FA>>,
    wd_dc: Signal<Local, Bits<32>>,
    wd_ts: Signal<Local, Bits<32>>,
}

impl FlowTable {
    pub fn new(cfg: &BfcConfig) -> Self {
        let (sb, tb) = (cfg.size_bits as usize, cfg.ts_bits as usize);
        let depth = cfg.entries() as usize;
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        FlowTable {
            clock: Default::default(),
            reset: Default::default(),
            live: Default::default(),
            read_a: Default::default(),
            read_d: Default::default(),
            e_write: Default::default(),
            e_word: Default::default(),
            d_write: Default::default(),
            d_count: Default::default(),
            d_ts: Default::default(),
            a_word: Default::default(),
            a_dc: Default::default(),
            a_ts: Default::default(),
            d_ec: Default::default(),
            d_dc: Default::default(),
            same_entry: Default::default(),
            ready: Default::default(),
            ready_next: Default::default(),
            ready_soon: Default::default(),
            sweep: Default::default(),
            sweep_row: Default::default(),
            ft_addr_mask: Constant::new(mask(index_bits(cfg.entries())).into()),
            size_mask: c32(mask(cfg.size_bits)),
            init_mask: c32(mask(index_bits(cfg.entries() + 1))),
            ft_entries: c32(cfg.entries()),
            one_32: c32(1),
            two_32: c32(2),
            ram_e_a: NarrowRam::with_depth(
                8 + sb + cfg.entry_class_bits() as usize + if cfg.sampling { tb } else { 0 },
                depth,
            ),
            ram_e_d: NarrowRam::with_depth(8 + sb, depth),
            ram_dc_a: NarrowRam::with_depth(sb, depth),
            ram_ts_a: NarrowRam::with_depth(tb, depth),
            ram_dc_d: NarrowRam::with_depth(sb, depth),
            addr_a: Default::default(),
            addr_d: Default::default(),
            fw_e_valid: Default::default(),
            fw_e_addr: Default::default(),
            fw_e_word: Default::default(),
            fw_d_valid: Default::default(),
            fw_d_addr: Default::default(),
            fw_d_dc: Default::default(),
            fw_d_ts: Default::default(),
            init_cnt: Default::default(),
            init_done: Default::default(),
            d_ec_wide: Default::default(),
            sweeping: Default::default(),
            we_e: Default::default(),
            wa_e: Default::default(),
            wd_e: Default::default(),
            we_d: Default::default(),
            wa_d: Default::default(),
            wd_dc: Default::default(),
            wd_ts: Default::default(),
        }
    }
}

impl Logic for FlowTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, addr_a, addr_d, fw_e_valid, fw_e_addr, fw_e_word, fw_d_valid, fw_d_addr,
            fw_d_dc, fw_d_ts, init_cnt, init_done
        );
        self.ram_e_a.clock.next = self.clock.val();
        self.ram_e_d.clock.next = self.clock.val();
        self.ram_dc_a.clock.next = self.clock.val();
        self.ram_ts_a.clock.next = self.clock.val();
        self.ram_dc_d.clock.next = self.clock.val();
        self.ram_e_a.read_address.next = self.read_a.val();
        self.ram_dc_a.read_address.next = self.read_a.val();
        self.ram_ts_a.read_address.next = self.read_a.val();
        self.ram_e_d.read_address.next = self.read_d.val();
        self.ram_dc_d.read_address.next = self.read_d.val();
        self.addr_a.d.next = self.read_a.val() & self.ft_addr_mask.val();
        self.addr_d.d.next = self.read_d.val() & self.ft_addr_mask.val();

        // ---- Cycle n: the reads, with the writes of the last edge. (The outputs come from
        // registers and RAMs only: the writes below depend on what the other stages make of
        // them.)
        self.a_word.next = self.ram_e_a.read_data.val();
        if self.fw_e_valid.q.val() & (self.fw_e_addr.q.val() == self.addr_a.q.val()) {
            self.a_word.next = self.fw_e_word.q.val();
        }
        self.a_dc.next = self.ram_dc_a.read_data.val();
        self.a_ts.next = self.ram_ts_a.read_data.val();
        if self.fw_d_valid.q.val() & (self.fw_d_addr.q.val() == self.addr_a.q.val()) {
            self.a_dc.next = self.fw_d_dc.q.val();
            self.a_ts.next = self.fw_d_ts.q.val();
        }
        // The departure side's copy holds `{enq_count, q}` only; a forwarded word has the
        // class above the count.
        self.d_ec_wide.next = self.ram_e_d.read_data.val() >> 8;
        if self.fw_e_valid.q.val() & (self.fw_e_addr.q.val() == self.addr_d.q.val()) {
            self.d_ec_wide.next = self.fw_e_word.q.val() >> 8;
        }
        self.d_ec.next = self.d_ec_wide.val().get_bits::<32>(0) & self.size_mask.val();
        self.d_dc.next = self.ram_dc_d.read_data.val();
        if self.fw_d_valid.q.val() & (self.fw_d_addr.q.val() == self.addr_d.q.val()) {
            self.d_dc.next = self.fw_d_dc.q.val();
        }
        self.same_entry.next = self.addr_a.q.val() == self.addr_d.q.val();
        self.ready.next = self.init_done.q.val();
        self.ready_next.next = self.init_done.q.val()
            | (self.live.val()
                & ((self.init_cnt.q.val() + self.one_32.val()) >= self.ft_entries.val()));
        // `ready` after edge n + 1 says whether edge n + 2 accepts events.
        self.ready_soon.next = self.init_done.q.val()
            | (self.live.val()
                & ((self.init_cnt.q.val() + self.two_32.val()) >= self.ft_entries.val()));
        self.sweep.next = self.live.val() & !self.init_done.q.val();
        self.sweep_row.next = bit_cast::<6, 32>(self.init_cnt.q.val());

        // ---- Edge n + 1: the arrival writes bank E, the departure bank D, or the sweep both.
        self.sweeping.next = self.live.val() & !self.init_done.q.val();
        self.we_e.next = self.e_write.val();
        self.wa_e.next = self.addr_a.q.val();
        self.wd_e.next = self.e_word.val();
        self.we_d.next = self.d_write.val();
        self.wa_d.next = self.addr_d.q.val();
        self.wd_dc.next = self.d_count.val();
        self.wd_ts.next = self.d_ts.val();
        if self.sweeping.val() {
            self.we_e.next = true;
            self.wa_e.next = bit_cast::<FA, 32>(self.init_cnt.q.val());
            self.wd_e.next = 0.into();
            self.we_d.next = true;
            self.wa_d.next = bit_cast::<FA, 32>(self.init_cnt.q.val());
            self.wd_dc.next = 0.into();
            self.wd_ts.next = 0.into();
        }
        self.ram_e_a.write_enable.next = self.we_e.val();
        self.ram_e_a.write_address.next = self.wa_e.val();
        self.ram_e_a.write_data.next = self.wd_e.val();
        self.ram_e_d.write_enable.next = self.we_e.val();
        self.ram_e_d.write_address.next = self.wa_e.val();
        self.ram_e_d.write_data.next = self.wd_e.val();
        self.ram_dc_a.write_enable.next = self.we_d.val();
        self.ram_dc_a.write_address.next = self.wa_d.val();
        self.ram_dc_a.write_data.next = self.wd_dc.val();
        self.ram_dc_d.write_enable.next = self.we_d.val();
        self.ram_dc_d.write_address.next = self.wa_d.val();
        self.ram_dc_d.write_data.next = self.wd_dc.val();
        self.ram_ts_a.write_enable.next = self.we_d.val();
        self.ram_ts_a.write_address.next = self.wa_d.val();
        self.ram_ts_a.write_data.next = self.wd_ts.val();
        self.fw_e_valid.d.next = self.we_e.val();
        self.fw_e_addr.d.next = self.wa_e.val();
        self.fw_e_word.d.next = self.wd_e.val();
        self.fw_d_valid.d.next = self.we_d.val();
        self.fw_d_addr.d.next = self.wa_d.val();
        self.fw_d_dc.d.next = self.wd_dc.val();
        self.fw_d_ts.d.next = self.wd_ts.val();
        self.init_cnt.d.next = self.init_cnt.q.val() & self.init_mask.val();
        if self.sweeping.val() {
            self.init_cnt.d.next =
                (self.init_cnt.q.val() + self.one_32.val()) & self.init_mask.val();
        }
        self.init_done.d.next = self.init_done.q.val()
            | (self.live.val()
                & ((self.init_cnt.q.val() + self.one_32.val()) >= self.ft_entries.val()));

        if self.reset.val() {
            self.addr_a.d.next = 0.into();
            self.addr_d.d.next = 0.into();
            self.fw_e_valid.d.next = false;
            self.fw_e_addr.d.next = 0.into();
            self.fw_e_word.d.next = 0.into();
            self.fw_d_valid.d.next = false;
            self.fw_d_addr.d.next = 0.into();
            self.fw_d_dc.d.next = 0.into();
            self.fw_d_ts.d.next = 0.into();
            self.init_cnt.d.next = 0.into();
            self.init_done.d.next = false;
        }
    }
}
