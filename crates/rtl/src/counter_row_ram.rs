//! A RAM of counter rows with two read ports (A and B) and one write port: each address holds
//! `lanes` counters of `lane_bits` bits, written one lane at a time (or cleared as a whole row)
//! and read one lane at a time. Synthesis keeps one copy in flip-flops, or one block-RAM copy
//! per read port.
//!
//! BFC keeps a port's queue occupancies and pause counters in such rows: a reader may learn
//! which lane it needs only after the RAM read (the arrival's queue comes out of the flow
//! table in the same cycle), so a port reads the whole row at the edge and picks the lane in
//! the cycle; the writer knows its lane and writes only that lane, so no read-modify-write of
//! the row is needed. Lane writes are per-bit write enables, which iCE40 block RAMs and
//! flip-flop memories both have.
//!
//! Read timing: `read_address` is sampled at edge n, `read_lane` is given in cycle n, and
//! `lane_data` is that lane as edge n left it, i.e. including the write of edge n. The memory
//! itself reads old, so the leaf keeps the write of the last edge and forwards it when it hit
//! the row and lane read (or cleared the row); readers need no forwarding of their own.

use crate::narrow_ram::index_bits;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// Rows of up to this many lanes write through a `case`, wider ones through an indexed
/// part-select (see `hdl`).
const CASE_LANES: usize = 32;

#[derive(LogicBlock)]
pub struct CounterRowRam<const A: usize> {
    pub clock: Signal<In, Clock>,
    /// Port A: the row, sampled at the edge; the lane, in the cycle after it.
    pub read_address: Signal<In, Bits<A>>,
    pub read_lane: Signal<In, Bits<8>>,
    /// The lane (low `lane_bits`, the rest zero) as the edge left it; 0 past `lanes`.
    pub lane_data: Signal<Out, Bits<32>>,
    /// Port B, the same.
    pub read_address_b: Signal<In, Bits<A>>,
    pub read_lane_b: Signal<In, Bits<8>>,
    pub lane_data_b: Signal<Out, Bits<32>>,
    pub write_address: Signal<In, Bits<A>>,
    pub write_enable: Signal<In, Bit>,
    /// With `write_enable`: clear the whole row instead of writing a lane.
    pub write_clear: Signal<In, Bit>,
    pub write_lane: Signal<In, Bits<8>>,
    pub write_value: Signal<In, Bits<32>>,
    _lanes: usize,
    _lane_bits: usize,
    _depth: usize,
    _mem: BTreeMap<u64, Vec<u32>>,
    /// The rows ports A and B read at the last edge, after its write.
    _row_a: Vec<u32>,
    _row_b: Vec<u32>,
}

impl<const A: usize> CounterRowRam<A> {
    /// `depth` rows (at most `2^A`) of `lanes` counters (at most 128) of `lane_bits` bits
    /// (1..=32). Only the address and lane bits the sizes need are decoded; reads past the
    /// end return 0; writes there, or to a decoded lane past `lanes`, are ignored.
    pub fn new(lanes: usize, lane_bits: usize, depth: usize) -> Self {
        assert!((1..=128).contains(&lanes));
        assert!((1..=32).contains(&lane_bits));
        assert!((1..=1 << A).contains(&depth));
        CounterRowRam {
            clock: Default::default(),
            read_address: Default::default(),
            read_lane: Default::default(),
            lane_data: Default::default(),
            read_address_b: Default::default(),
            read_lane_b: Default::default(),
            lane_data_b: Default::default(),
            write_address: Default::default(),
            write_enable: Default::default(),
            write_clear: Default::default(),
            write_lane: Default::default(),
            write_value: Default::default(),
            _lanes: lanes,
            _lane_bits: lane_bits,
            _depth: depth,
            _mem: BTreeMap::new(),
            _row_a: vec![0; lanes],
            _row_b: vec![0; lanes],
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

    /// Lane `lane` (decoded bits only) of `row`, 0 past the last lane.
    fn lane_of(&self, row: &[u32], lane: Bits<8>) -> Bits<32> {
        let lane = (lane.to_u64() & ((1 << self.lane_index_bits()) - 1)) as usize;
        u64::from(row.get(lane).copied().unwrap_or(0)).into()
    }
}

impl<const A: usize> Logic for CounterRowRam<A> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            // Write, then read: the read port's view of the edge's write is what the Verilog's
            // forwarding register gives.
            let decoded = (1u64 << self.address_bits()) - 1;
            let write = self.write_address.val().to_u64() & decoded;
            let lane =
                (self.write_lane.val().to_u64() & ((1 << self.lane_index_bits()) - 1)) as usize;
            if self.write_enable.val() && (write as usize) < self._depth {
                let row = self
                    ._mem
                    .entry(write)
                    .or_insert_with(|| vec![0; self._lanes]);
                if self.write_clear.val() {
                    row.iter_mut().for_each(|v| *v = 0);
                } else if lane < self._lanes {
                    let keep = (((1u64 << self._lane_bits) - 1) & 0xFFFF_FFFF) as u32;
                    row[lane] = self.write_value.val().to_u64() as u32 & keep;
                }
            }
            let zero = vec![0; self._lanes];
            let read = self.read_address.val().to_u64() & decoded;
            self._row_a = self._mem.get(&read).unwrap_or(&zero).clone();
            let read_b = self.read_address_b.val().to_u64() & decoded;
            self._row_b = self._mem.get(&read_b).unwrap_or(&zero).clone();
        }
        self.lane_data.next = self.lane_of(&self._row_a, self.read_lane.val());
        self.lane_data_b.next = self.lane_of(&self._row_b, self.read_lane_b.val());
    }

    fn connect(&mut self) {
        self.lane_data.connect();
        self.lane_data_b.connect();
    }

    fn hdl(&self) -> Verilog {
        let (n, b, ab) = (self._lanes, self._lane_bits, self.address_bits());
        let lane_bits = self.lane_index_bits();
        let (lm, am) = (lane_bits - 1, ab - 1);
        let address = |name: &str| {
            if ab == A {
                name.to_string()
            } else {
                format!("{name}[{am}:0]")
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
                "wire unused_lane_high = ^{{read_lane[7:{lane_bits}], read_lane_b[7:{lane_bits}], write_lane[7:{lane_bits}]}};"
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
        let wa = address("write_address");
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
        // A write the memory keeps: in range, and a clear or a lane that exists.
        let mut stored = vec!["write_enable".to_string()];
        if self._depth < 1 << ab {
            stored.push(format!("({wa} < {ab}'d{})", self._depth));
        }
        if n < 1 << lane_bits {
            stored.push(format!(
                "(write_clear || write_lane[{lm}:0] < {lane_bits}'d{n})"
            ));
        }
        // Every decoded lane l of a row at [32 l +: 32] (low b bits stored, zero past `lanes`).
        let lanes = |word: &str| {
            let mut fields = Vec::new();
            if (1 << lane_bits) > n {
                fields.push(format!("{}'d0", 32 * ((1 << lane_bits) - n)));
            }
            for l in (0..n).rev() {
                if b < 32 {
                    fields.push(format!("{}'d0", 32 - b));
                }
                fields.push(format!("{word}[{}:{}]", b * l + b - 1, b * l));
            }
            fields.join(", ")
        };
        let value = if b < 32 {
            format!("{{{}'d0, last_value}}", 32 - b)
        } else {
            "last_value".to_string()
        };
        // The read of a port: the row's lane, or the last edge's write where it hit them. Whether
        // the write hit the row is known at the edge; only the lane is compared in the cycle.
        let port = |lane: &str, data: &str, word: &str, row_hit: &str| {
            format!(
                "\
wire [{wm}:0] {word}_lanes = {{{fields}}};
wire {word}_hit = {row_hit} && (last_clear || last_lane == {lane}[{lm}:0]);
assign {data} = {word}_hit ? (last_clear ? 32'd0 : {value}) : {word}_lanes[{{{lane}[{lm}:0], 5'd0}} +: 32];",
                wm = 32 * (1 << lane_bits) - 1,
                fields = lanes(word),
            )
        };
        Verilog::Custom(format!(
            "\
reg [{smsb}:0] mem [0:{last}];
reg [{smsb}:0] word_a;
reg [{smsb}:0] word_b;
reg row_hit_a;
reg row_hit_b;
reg last_clear;
reg [{lm}:0] last_lane;
reg [{bm}:0] last_value;
{declarations}

always @(posedge clock) begin
   word_a <= mem[{ra}];
   word_b <= mem[{rb}];
   row_hit_a <= {stored} && {wa} == {ra};
   row_hit_b <= {stored} && {wa} == {rb};
   last_clear <= write_clear;
   last_lane <= write_lane[{lm}:0];
   last_value <= write_value[{bm}:0];
   if (write_enable) begin
      if (write_clear) begin
         mem[{wa}] <= {width}'d0;
      end else begin
{lane_write}
      end
   end
end

{port_a}
{port_b}
",
            smsb = n * b - 1,
            width = n * b,
            bm = b - 1,
            last = self._depth - 1,
            ra = address("read_address"),
            rb = address("read_address_b"),
            stored = stored.join(" && "),
            declarations = declarations.join("\n"),
            port_a = port("read_lane", "lane_data", "word_a", "row_hit_a"),
            port_b = port("read_lane_b", "lane_data_b", "word_b", "row_hit_b"),
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
            outputs: vec![],
        }]
    }
}
