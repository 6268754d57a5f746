//! A RAM of counter rows with two read ports (A and B) and one write port: each address holds
//! `lanes` counters of `lane_bits` bits, read as a whole row (lane `l` at bits
//! `[32 l +: lane_bits]` of the `R`-bit bus, the rest zero) and written one lane at a time, or
//! cleared as a whole row. Synthesis keeps one copy in flip-flops, or one block-RAM copy per
//! read port.
//!
//! BFC keeps a port's queue occupancies and pause counters in such rows: the reader learns
//! which lane it needs only after the RAM read, so it reads the row; the writer knows its lane
//! and writes only that lane, so no read-modify-write of the row (and no forwarding of whole
//! rows) is needed. Lane writes are per-bit write enables, which iCE40 block RAMs and
//! flip-flop memories both have. Read-old semantics, as [`crate::narrow_ram::NarrowRam`].

use crate::narrow_ram::{index_bits, low_bits};
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// Rows of up to this many lanes write through a `case`, wider ones through an indexed
/// part-select (see `hdl`).
const CASE_LANES: usize = 32;

#[derive(LogicBlock)]
pub struct CounterRowRam<const A: usize, const R: usize> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, Bits<R>>,
    pub read_address_b: Signal<In, Bits<A>>,
    pub read_data_b: Signal<Out, Bits<R>>,
    pub write_address: Signal<In, Bits<A>>,
    pub write_enable: Signal<In, Bit>,
    /// With `write_enable`: clear the whole row instead of writing a lane.
    pub write_clear: Signal<In, Bit>,
    pub write_lane: Signal<In, Bits<8>>,
    pub write_value: Signal<In, Bits<32>>,
    _lanes: usize,
    _lane_bits: usize,
    _depth: usize,
    _mem: BTreeMap<u64, Bits<R>>,
}

impl<const A: usize, const R: usize> CounterRowRam<A, R> {
    /// `depth` rows (at most `2^A`) of `lanes` counters (at most `R / 32`) of `lane_bits` bits
    /// (1..=32). Only the address and lane bits the sizes need are decoded; reads past the
    /// end return 0; writes there, or to a decoded lane past `lanes`, are ignored.
    pub fn new(lanes: usize, lane_bits: usize, depth: usize) -> Self {
        assert!(R.is_multiple_of(32) && (1..=R / 32).contains(&lanes) && lanes <= 256);
        assert!((1..=32).contains(&lane_bits));
        assert!((1..=1 << A).contains(&depth));
        CounterRowRam {
            clock: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            read_address_b: Default::default(),
            read_data_b: Default::default(),
            write_address: Default::default(),
            write_enable: Default::default(),
            write_clear: Default::default(),
            write_lane: Default::default(),
            write_value: Default::default(),
            _lanes: lanes,
            _lane_bits: lane_bits,
            _depth: depth,
            _mem: BTreeMap::new(),
        }
    }

    /// Decoded lane bits: enough for `lanes` lanes, at least 1.
    fn lane_index_bits(&self) -> usize {
        index_bits(self._lanes)
    }

    /// Decoded address bits: enough for `depth` rows, at least 1.
    fn address_bits(&self) -> usize {
        index_bits(self._depth)
    }
}

impl<const A: usize, const R: usize> Logic for CounterRowRam<A, R> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let decoded = (1u64 << self.address_bits()) - 1;
            let read = self.read_address.val().to_u64() & decoded;
            self.read_data.next = self._mem.get(&read).copied().unwrap_or_default();
            let read_b = self.read_address_b.val().to_u64() & decoded;
            self.read_data_b.next = self._mem.get(&read_b).copied().unwrap_or_default();
            let write = self.write_address.val().to_u64() & decoded;
            let lane =
                (self.write_lane.val().to_u64() & ((1 << self.lane_index_bits()) - 1)) as usize;
            if self.write_enable.val() && (write as usize) < self._depth {
                let row = self._mem.get(&write).copied().unwrap_or_default();
                if self.write_clear.val() {
                    self._mem.insert(write, Bits::default());
                } else if lane < self._lanes {
                    let at = (32 * lane) as u64;
                    let field = low_bits::<R>(self._lane_bits) << at;
                    let value = bit_cast::<R, 32>(self.write_value.val()) << at;
                    self._mem.insert(write, (row & !field) | (value & field));
                }
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
        self.read_data_b.connect();
    }

    fn hdl(&self) -> Verilog {
        let (n, b, ab) = (self._lanes, self._lane_bits, self.address_bits());
        let lane_bits = self.lane_index_bits();
        let address = |name: &str| {
            if ab == A {
                name.to_string()
            } else {
                format!("{name}[{}:0]", ab - 1)
            }
        };
        let mut declarations = Vec::new();
        // Only the decoded address and lane bits and the stored value bits are used; the
        // `unused_` names tell Verilator the rest is unused on purpose.
        if ab < A {
            declarations.push(format!(
                "wire unused_address_high = ^{{read_address[{m}:{ab}], read_address_b[{m}:{ab}], write_address[{m}:{ab}]}};",
                m = A - 1
            ));
        }
        if lane_bits < 8 {
            declarations.push(format!(
                "wire unused_lane_high = ^write_lane[7:{lane_bits}];"
            ));
        }
        if b < 32 {
            declarations.push(format!("wire unused_value_high = ^write_value[31:{b}];"));
        }
        // The lane write. Up to CASE_LANES lanes, a `case` with one constant slice per lane:
        // where the row stays in flip-flops, yosys decodes each lane's enable from its own
        // match (an `if` chain routed every enable through all earlier lanes and took `proc`
        // over 20 minutes on 32 lanes). Yosys elaborates the case in time growing with a high
        // power of the lane count (15 s for 64 lanes, over 5 minutes for 128), so wider rows
        // write through an indexed part-select instead: one write port whose enable mask is
        // shifted to the lane, elaborated in seconds and mapped to bit-enabled block RAM, at
        // the price of a shifter that would cost logic in a small row.
        let (lm, wa) = (lane_bits - 1, address("write_address"));
        let lane_write = if n <= CASE_LANES {
            let arms: Vec<String> = (0..n)
                .map(|l| {
                    format!(
                        "            {lane_bits}'d{l}: mem[{wa}][{hi}:{lo}] <= write_value[{bm}:0];",
                        hi = b * l + b - 1,
                        lo = b * l,
                        bm = b - 1,
                    )
                })
                .collect();
            format!(
                "         case (write_lane[{lm}:0])\n{}\n            default: ;\n         endcase",
                arms.join("\n")
            )
        } else {
            // Offsets up to n * b - 1 need `ob` bits; a lane index past the last lane is not
            // written, as in the case form.
            let ob = index_bits(n * b);
            declarations.push(format!(
                "wire [{obm}:0] lane_offset = {{{pad}'d0, write_lane[{lm}:0]}} * {ob}'d{b};",
                obm = ob - 1,
                pad = ob - lane_bits,
            ));
            let write = format!("mem[{wa}][lane_offset +: {b}] <= write_value[{}:0];", b - 1);
            if n == 1 << lane_bits {
                format!("         {write}")
            } else {
                format!(
                    "         if (write_lane[{lm}:0] < {lane_bits}'d{n}) begin\n            \
                     {write}\n         end"
                )
            }
        };
        // Lane l of the bus at [32 l +: b], of the memory row at [b l +: b].
        let fields = |word: &str| {
            let mut fields = Vec::new();
            if R / 32 > n {
                fields.push(format!("{}'d0", 32 * (R / 32 - n)));
            }
            for l in (0..n).rev() {
                if b < 32 {
                    fields.push(format!("{}'d0", 32 - b));
                }
                fields.push(format!("{word}[{}:{}]", b * l + b - 1, b * l));
            }
            fields.join(", ")
        };
        Verilog::Custom(format!(
            "\
reg [{smsb}:0] mem [0:{last}];
reg [{smsb}:0] word;
reg [{smsb}:0] word_b;
{declarations}

always @(posedge clock) begin
   word <= mem[{ra}];
   word_b <= mem[{rb}];
   if (write_enable) begin
      if (write_clear) begin
         mem[{wa}] <= {stored}'d0;
      end else begin
{lane_write}
      end
   end
end

always @(*) begin
   read_data = {{{fields}}};
   read_data_b = {{{fields_b}}};
end
",
            smsb = n * b - 1,
            stored = n * b,
            last = self._depth - 1,
            ra = address("read_address"),
            rb = address("read_address_b"),
            declarations = declarations.join("\n"),
            fields = fields("word"),
            fields_b = fields("word_b"),
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "counter_row_ram".into(),
            clock: "clock".into(),
            inputs: vec![
                "read_address".into(),
                "read_address_b".into(),
                "write_address".into(),
                "write_enable".into(),
                "write_clear".into(),
                "write_lane".into(),
                "write_value".into(),
            ],
            outputs: vec!["read_data".into(), "read_data_b".into()],
        }]
    }
}
