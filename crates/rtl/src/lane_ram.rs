//! A RAM with two synchronous read ports (A and B), one write port and one clock, whose data
//! bus is `W / 16` lanes of 16 bits, of which only the low `lane_bits` bits of the first `lanes`
//! lanes are stored. The rest read as zero.
//!
//! One array with two reads: an ASIC flow maps it to a 2R1W register file, and yosys
//! replicates it into one block RAM per read port on the FPGA targets.
//!
//! It holds a row of counters per address (CaPFC's per-input arrival counters of one egress
//! queue): the logic works on 16-bit lanes, the storage has exactly the configured counters of
//! the configured width. Read-old semantics, as [`crate::narrow_ram::NarrowRam`].

use rust_hdl::prelude::*;
use std::collections::BTreeMap;

#[derive(LogicBlock)]
pub struct LaneRam<const A: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, Bits<W>>,
    pub read_address_b: Signal<In, Bits<A>>,
    pub read_data_b: Signal<Out, Bits<W>>,
    pub write_address: Signal<In, Bits<A>>,
    pub write_data: Signal<In, Bits<W>>,
    pub write_enable: Signal<In, Bit>,
    _lanes: usize,
    _lane_bits: usize,
    _mem: BTreeMap<u64, Bits<W>>,
}

impl<const A: usize, const W: usize> LaneRam<A, W> {
    pub fn new(lanes: usize, lane_bits: usize) -> Self {
        assert!(W.is_multiple_of(16) && (1..=W / 16).contains(&lanes));
        assert!((1..=16).contains(&lane_bits));
        LaneRam {
            clock: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            read_address_b: Default::default(),
            read_data_b: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            _lanes: lanes,
            _lane_bits: lane_bits,
            _mem: BTreeMap::new(),
        }
    }

    /// The stored form of `data`: unstored lanes and bits cleared.
    fn keep(&self, data: Bits<W>) -> Bits<W> {
        let mut kept = Bits::<W>::default();
        let lane_mask: Bits<W> = ((1u64 << self._lane_bits) - 1).into();
        for l in 0..self._lanes {
            let shift = (16 * l) as u64;
            kept = kept | (data & (lane_mask << shift));
        }
        kept
    }
}

impl<const A: usize, const W: usize> Logic for LaneRam<A, W> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let old = self
                ._mem
                .get(&self.read_address.val().to_u64())
                .copied()
                .unwrap_or_default();
            self.read_data.next = old;
            self.read_data_b.next = self
                ._mem
                .get(&self.read_address_b.val().to_u64())
                .copied()
                .unwrap_or_default();
            if self.write_enable.val() {
                let kept = self.keep(self.write_data.val());
                self._mem.insert(self.write_address.val().to_u64(), kept);
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
        self.read_data_b.connect();
    }

    fn hdl(&self) -> Verilog {
        let (n, b) = (self._lanes, self._lane_bits);
        let stored = n * b;
        // Lane l of the bus at [16 l +: b], of the memory word at [b l +: b].
        let packed: Vec<String> = (0..n)
            .rev()
            .map(|l| format!("write_data[{}:{}]", 16 * l + b - 1, 16 * l))
            .collect();
        let unpacked = |word: &str| {
            let mut lanes: Vec<String> = Vec::new();
            if W / 16 > n {
                lanes.push(format!("{}'d0", 16 * (W / 16 - n)));
            }
            for l in (0..n).rev() {
                if b < 16 {
                    lanes.push(format!("{}'d0", 16 - b));
                }
                lanes.push(format!("{word}[{}:{}]", b * l + b - 1, b * l));
            }
            lanes.join(", ")
        };
        Verilog::Custom(format!(
            "\
reg [{smsb}:0] mem [0:{last}];
reg [{smsb}:0] word;
reg [{smsb}:0] word_b;
// Only the stored lanes and bits of write_data are kept; the name tells Verilator so.
wire unused_write_data = ^write_data;

always @(posedge clock) begin
   word <= mem[read_address];
   word_b <= mem[read_address_b];
   if (write_enable) begin
      mem[write_address] <= {{{packed}}};
   end
end

always @(*) begin
   read_data = {{{unpacked}}};
   read_data_b = {{{unpacked_b}}};
end
",
            smsb = stored - 1,
            last = (1usize << A) - 1,
            packed = packed.join(", "),
            unpacked = unpacked("word"),
            unpacked_b = unpacked("word_b"),
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "lane_ram".into(),
            clock: "clock".into(),
            inputs: vec![
                "read_address".into(),
                "read_address_b".into(),
                "write_address".into(),
                "write_data".into(),
                "write_enable".into(),
            ],
            outputs: vec!["read_data".into(), "read_data_b".into()],
        }]
    }
}
