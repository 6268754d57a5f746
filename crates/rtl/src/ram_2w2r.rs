//! A memory with two write ports and two read ports, one clock, of config-time width and depth:
//! what a read-modify-write from two buses per cycle needs (PFC's and CaPFC's occupancies).
//! Reads are synchronous and read-old: an address given at edge n is read in cycle n, and a
//! write at edge n is not seen by a read of the same edge. The two write ports never name one
//! word on one edge (the users write a same-key pair through port A only); if they did, port A
//! would win. Each read also says whether its word was written since reset (`read_*_written`),
//! so a user keeps no written-since-reset bits of its own and treats an unwritten word as 0.
//!
//! With a **write stage** ([`Ram2W2R::with_write_stage`]) a write given at edge n lands at edge
//! n + 1, as if the user had registered the write ports; a write given at a reset edge is
//! dropped. The memory registers it itself, so that on the FPGA targets the live-value table
//! and the written bits are updated from one-hot enables decoded when the write is given,
//! not from the addresses in the cycle they land (on the ECP5 that decode, from an address
//! of high fan-out into 2 x depth flip-flops, was PFC's critical path).
//!
//! With an **early select** ([`Ram2W2R::with_early_select`], which needs the write stage) the
//! user also gives, on each edge, the read addresses it will give on the next one
//! (`read_*_next`). On the FPGA targets, for 64 words or more, the live-value and written bits
//! are then read in two halves: on the edge before the read, the words that share the next
//! address's low half are selected from the tables as that edge leaves them (the landing
//! write's one-hot enables are registers); on the read's edge, the word among them by the
//! address's high half. Each half is a narrow multiplexer instead of one of the whole table
//! (PFC's `paper`, 256 words: the table's read was the ECP5 critical path). Same cycles.
//!
//! Its form depends on the target ([`Tech`]):
//! * FPGA targets: a live-value table over 1R1W RAMs (LaForest and Steffan, FPGA 2010): bank A
//!   written only by port A, bank B only by port B, one copy of each bank per read port, and
//!   one bit per word saying which bank holds the word's last write; block RAMs have no reset,
//!   so one more flip-flop per word says whether it was written since reset; 4 x width + 2
//!   bits a word, reset in one cycle. The written bit comes out beside the data rather than
//!   gating it, so the user folds it into its own select (ECP5's `fpga` lost 15 % of its Fmax
//!   when the leaf gated the data).
//! * `asic`: one array of exactly width x depth bits in a module of its own,
//!   `<instance>__sc_ram_2w2r` (parameters `WIDTH`, `DEPTH`, `ADDR`), which an ASIC flow replaces
//!   with a compiled 2-write, 2-read register file of that name and ports, which need not have
//!   a reset: while `reset` is high, port A writes 0 to one word per cycle (a wrapping address
//!   counter), so reset must be held for at least `DEPTH` cycles ([`reset_cycles`]; the
//!   package's ports.json says `reset_cycles`); every word then counts as written.
//!
//! rust-hdl's simulator sees one array in both cases: the two forms behave alike.

use crate::narrow_ram::low_bits;
use crate::tech::Tech;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

#[derive(LogicBlock)]
pub struct Ram2W2R<const A: usize, const D: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: afterwards no word counts as written (FPGA targets), or every
    /// word holds 0 (`asic`, after [`reset_cycles`] cycles).
    pub reset: Signal<In, Bit>,
    pub write_a_enable: Signal<In, Bit>,
    pub write_a_address: Signal<In, Bits<A>>,
    pub write_a_data: Signal<In, Bits<D>>,
    pub write_b_enable: Signal<In, Bit>,
    pub write_b_address: Signal<In, Bits<A>>,
    pub write_b_data: Signal<In, Bits<D>>,
    pub read_0_address: Signal<In, Bits<A>>,
    pub read_0_data: Signal<Out, Bits<D>>,
    /// The word read on port 0 was written since reset (else treat it as 0).
    pub read_0_written: Signal<Out, Bit>,
    pub read_1_address: Signal<In, Bits<A>>,
    pub read_1_data: Signal<Out, Bits<D>>,
    pub read_1_written: Signal<Out, Bit>,
    /// With an early select: the addresses `read_*_address` will hold at the next edge.
    pub read_0_next: Signal<In, Bits<A>>,
    pub read_1_next: Signal<In, Bits<A>>,
    _width: usize,
    _tech: Tech,
    _write_stage: bool,
    _early_select: bool,
    _mem: BTreeMap<u64, Bits<D>>,
    /// With a write stage: the writes given at the last edge (port A, then port B).
    _pending: [Option<(u64, Bits<D>)>; 2],
}

/// The module an `asic` package's memories instantiate; the exporter keeps one definition.
pub const ASIC_MODULE: &str = "sc_ram_2w2r";

/// Cycles `reset` must be held for a memory of `depth` words to read 0 everywhere afterwards.
pub fn reset_cycles(depth: usize, tech: Tech) -> u32 {
    if tech.replicates() {
        1
    } else {
        depth as u32
    }
}

impl<const A: usize, const D: usize> Ram2W2R<A, D> {
    /// `2^A` words of `width` bits (at most `D`).
    pub fn new(width: usize, tech: Tech) -> Self {
        assert!((1..=D).contains(&width));
        Ram2W2R {
            clock: Default::default(),
            reset: Default::default(),
            write_a_enable: Default::default(),
            write_a_address: Default::default(),
            write_a_data: Default::default(),
            write_b_enable: Default::default(),
            write_b_address: Default::default(),
            write_b_data: Default::default(),
            read_0_address: Default::default(),
            read_0_data: Default::default(),
            read_0_written: Default::default(),
            read_1_address: Default::default(),
            read_1_data: Default::default(),
            read_1_written: Default::default(),
            read_0_next: Default::default(),
            read_1_next: Default::default(),
            _width: width,
            _tech: tech,
            _write_stage: false,
            _early_select: false,
            _mem: BTreeMap::new(),
            _pending: [None, None],
        }
    }

    /// Writes land one edge after they are given (the module doc's write stage).
    pub fn with_write_stage(mut self) -> Self {
        self._write_stage = true;
        self
    }

    /// The tables are read in two halves, the first from `read_*_next` (module doc). Only where
    /// it pays: at 32 words or fewer a table's read is already one or two LUT levels.
    pub fn with_early_select(mut self) -> Self {
        assert!(
            self._write_stage,
            "the early select reads the write stage's one-hot enables"
        );
        self._early_select = A >= 6;
        self
    }

    /// Storage bits per word on the target: the architectural width, or the replicated banks,
    /// the live-value bit and the written-since-reset bit.
    pub fn bits_per_word(width: usize, tech: Tech) -> usize {
        if tech.replicates() {
            4 * width + 2
        } else {
            width
        }
    }

    /// The words' padding to the `D`-bit bus, for reads.
    fn pad(&self, word: &str) -> String {
        let w = self._width;
        if w == D {
            word.to_string()
        } else {
            format!("{{{}'d0, {word}}}", D - w)
        }
    }

    fn unused_high(&self) -> String {
        let w = self._width;
        if w == D {
            String::new()
        } else {
            format!(
                "wire unused_write_data_high = ^{{write_a_data[{m}:{w}], write_b_data[{m}:{w}]}};\n",
                m = D - 1
            )
        }
    }

    /// The write stage's registers: the writes given at the last edge (none after a reset
    /// edge) and, with `hot`, their words one-hot (`wa_hot`, `wb_hot`).
    fn write_stage(&self, hot: bool) -> String {
        let (am, msb, words) = (A - 1, self._width - 1, 1usize << A);
        let mut v = format!(
            "\
// Write stage: the writes given at the last edge (none after a reset edge).
reg wa_enable, wb_enable;
reg [{am}:0] wa_address, wb_address;
reg [{msb}:0] wa_data, wb_data;
always @(posedge clock) begin
   wa_enable <= write_a_enable & !reset;
   wb_enable <= write_b_enable & !reset;
   wa_address <= write_a_address;
   wb_address <= write_b_address;
   wa_data <= write_a_data[{msb}:0];
   wb_data <= write_b_data[{msb}:0];
end
"
        );
        if hot {
            v += &format!(
                "\
// Their words one-hot.
reg [{m}:0] wa_hot, wb_hot;
always @(posedge clock) begin
   wa_hot <= (write_a_enable & !reset) ? {words}'d1 << write_a_address : {words}'d0;
   wb_hot <= (write_b_enable & !reset) ? {words}'d1 << write_b_address : {words}'d0;
end
",
                m = words - 1
            );
        }
        v
    }

    fn replicated(&self) -> Verilog {
        let (msb, last) = (self._width - 1, (1usize << A) - 1);
        let words = last + 1;
        // The writes as they land: the ports, or the write stage's registers; and the
        // live-value table's and written bits' update, by address or by the stage's one-hot
        // enables.
        let (stage, a, b, tables) = if self._write_stage {
            (
                self.write_stage(true),
                ["wa_enable", "wa_address", "wa_data"].map(String::from),
                ["wb_enable", "wb_address", "wb_data"].map(String::from),
                format!(
                    "   live_a <= (live_a & ~wb_hot) | wa_hot;
   written <= reset ? {words}'d0 : written | wa_hot | wb_hot;
"
                ),
            )
        } else {
            (
                String::new(),
                [
                    "write_a_enable".to_string(),
                    "write_a_address".to_string(),
                    format!("write_a_data[{msb}:0]"),
                ],
                [
                    "write_b_enable".to_string(),
                    "write_b_address".to_string(),
                    format!("write_b_data[{msb}:0]"),
                ],
                "   if (reset) begin
      written <= {words}{{1'b0}};
   end else begin
      if (write_b_enable) written[write_b_address] <= 1'b1;
      if (write_a_enable) written[write_a_address] <= 1'b1;
   end
"
                .replace("{words}{{1'b0}}", &format!("{{{words}{{1'b0}}}}")),
            )
        };
        let [a_enable, a_address, a_data] = a;
        let [b_enable, b_address, b_data] = b;
        let (read_next, select) = self.table_reads();
        let (live_a, live_b) = if self._write_stage {
            (String::new(), String::new())
        } else {
            (
                "      live_a[write_a_address] <= 1'b1;\n".to_string(),
                "      live_a[write_b_address] <= 1'b0;\n".to_string(),
            )
        };
        Verilog::Custom(format!(
            "\
// Live-value table: banks a and b (one per write port), a copy of each per read port, and
// per word the bank of its last write. Block RAMs have no reset: per word, whether it was
// written since reset (an unwritten word reads 0).
reg [{msb}:0] mem_a0 [0:{last}];
reg [{msb}:0] mem_a1 [0:{last}];
reg [{msb}:0] mem_b0 [0:{last}];
reg [{msb}:0] mem_b1 [0:{last}];
reg [{last}:0] live_a;
reg [{last}:0] written;
reg [{msb}:0] a0, a1, b0, b1;
reg sel0, sel1, w0, w1;
{unused}{stage}{read_next}
always @(posedge clock) begin
   a0 <= mem_a0[read_0_address];
   b0 <= mem_b0[read_0_address];
   a1 <= mem_a1[read_1_address];
   b1 <= mem_b1[read_1_address];
{select}   if ({b_enable}) begin
      mem_b0[{b_address}] <= {b_data};
      mem_b1[{b_address}] <= {b_data};
{live_b}   end
   if ({a_enable}) begin
      mem_a0[{a_address}] <= {a_data};
      mem_a1[{a_address}] <= {a_data};
{live_a}   end
{tables}end
always @(*) read_0_data = {r0};
always @(*) read_1_data = {r1};
always @(*) read_0_written = w0;
always @(*) read_1_written = w1;
",
            unused = self.unused_high(),
            r0 = self.pad("(sel0 ? a0 : b0)"),
            r1 = self.pad("(sel1 ? a1 : b1)"),
        ))
    }

    /// The live-value and written bits' reads: the early select's first half (its own block)
    /// and the registers `sel*`, `w*` (lines of the main block).
    fn table_reads(&self) -> (String, String) {
        if !self._early_select {
            return (
                "wire unused_read_next = ^{read_0_next, read_1_next};\n".to_string(),
                "   sel0 <= live_a[read_0_address];
   sel1 <= live_a[read_1_address];
   w0 <= written[read_0_address];
   w1 <= written[read_1_address];
"
                .to_string(),
            );
        }
        let (low, last) = (A / 2, (1usize << A) - 1);
        let groups = 1usize << (A - low);
        let (lm, gm, am) = (low - 1, groups - 1, A - 1);
        let mut first = format!(
            "\
// Early select: the tables as this edge leaves them, narrowed to the words that share the
// next read addresses' low {low} bits.
wire [{last}:0] live_after = (live_a & ~wb_hot) | wa_hot;
wire [{last}:0] written_after = reset ? {words}'d0 : written | wa_hot | wb_hot;
reg [{gm}:0] live0_part, live1_part, written0_part, written1_part;
wire unused_read_next_high = ^{{read_0_next[{am}:{low}], read_1_next[{am}:{low}]}};
always @(posedge clock) begin
",
            words = last + 1
        );
        let high = A - low;
        for g in 0..groups {
            for (port, next) in [(0, "read_0_next"), (1, "read_1_next")] {
                first += &format!(
                    "   live{port}_part[{g}] <= live_after[{{{high}'d{g}, {next}[{lm}:0]}}];
   written{port}_part[{g}] <= written_after[{{{high}'d{g}, {next}[{lm}:0]}}];
"
                );
            }
        }
        first += "end\n";
        let second = format!(
            "   sel0 <= live0_part[read_0_address[{am}:{low}]];
   sel1 <= live1_part[read_1_address[{am}:{low}]];
   w0 <= written0_part[read_0_address[{am}:{low}]];
   w1 <= written1_part[read_1_address[{am}:{low}]];
"
        );
        (first, second)
    }

    fn asic(&self) -> Verilog {
        let w = self._width;
        let (r0, r1) = if w == D {
            ("read_0_data".to_string(), "read_1_data".to_string())
        } else {
            ("read_0_word".to_string(), "read_1_word".to_string())
        };
        // The asic memory reads in one cycle: the early addresses are not needed.
        let mut code =
            self.unused_high() + "wire unused_read_next = ^{read_0_next, read_1_next};\n";
        if w < D {
            code += &format!(
                "wire [{m}:0] read_0_word;\nwire [{m}:0] read_1_word;\n\
                 assign read_0_data = {};\nassign read_1_data = {};\n",
                self.pad("read_0_word"),
                self.pad("read_1_word"),
                m = w - 1
            );
        }
        let (wa, wb) = if self._write_stage {
            code += &self.write_stage(false);
            (
                ["wa_enable", "wa_address", "wa_data"],
                ["wb_enable", "wb_address", "wb_data"],
            )
        } else {
            (
                ["write_a_enable", "write_a_address", "write_a_data"],
                ["write_b_enable", "write_b_address", "write_b_data"],
            )
        };
        let ([a_enable, a_address, a_data], [b_enable, b_address, b_data]) = (wa, wb);
        code += &format!(
            "\
// Reset clears the memory, one word per cycle through port A (held for at least {depth}
// cycles it reaches every word, whatever the counter's start).
reg [{am}:0] clear_address;
always @(posedge clock) clear_address <= reset ? clear_address + {A}'d1 : {A}'d0;
wire a_enable = reset | {a_enable};
wire [{am}:0] a_address = reset ? clear_address : {a_address};
wire [{m}:0] a_data = reset ? {w}'d0 : {a_data}[{m}:0];
top${ASIC_MODULE} #(.WIDTH({w}), .DEPTH({depth}), .ADDR({A})) mem (
   .clock(clock),
   .write_a_enable(a_enable), .write_a_address(a_address),
   .write_a_data(a_data),
   .write_b_enable({b_enable} & !reset), .write_b_address({b_address}),
   .write_b_data({b_data}[{m}:0]),
   .read_0_address(read_0_address), .read_0_data({r0}),
   .read_1_address(read_1_address), .read_1_data({r1})
);
// Cleared during reset: every word holds its value.
assign read_0_written = 1'b1;
assign read_1_written = 1'b1;
",
            depth = 1usize << A,
            m = w - 1,
            am = A - 1
        );
        Verilog::Wrapper(Wrapper {
            code,
            cores: format!(
                "\
// A 2-write, 2-read memory of exactly WIDTH x DEPTH bits, synchronous read-old reads; the two
// write ports never name one word on one edge (port A would win). An ASIC flow replaces this
// module with a compiled register file of the same name and ports.
module top${ASIC_MODULE} #(parameter WIDTH = 1, parameter DEPTH = 2, parameter ADDR = 1) (
   input wire clock,
   input wire write_a_enable,
   input wire [ADDR-1:0] write_a_address,
   input wire [WIDTH-1:0] write_a_data,
   input wire write_b_enable,
   input wire [ADDR-1:0] write_b_address,
   input wire [WIDTH-1:0] write_b_data,
   input wire [ADDR-1:0] read_0_address,
   output reg [WIDTH-1:0] read_0_data,
   input wire [ADDR-1:0] read_1_address,
   output reg [WIDTH-1:0] read_1_data
);
   reg [WIDTH-1:0] words [0:DEPTH-1];
   always @(posedge clock) begin
      read_0_data <= words[read_0_address];
      read_1_data <= words[read_1_address];
      if (write_b_enable) words[write_b_address] <= write_b_data;
      if (write_a_enable) words[write_a_address] <= write_a_data;
   end
endmodule
"
            ),
        })
    }
}

impl<const A: usize, const D: usize> Logic for Ram2W2R<A, D> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let word = |m: &BTreeMap<u64, Bits<D>>, a: Bits<A>| {
                m.get(&a.to_u64()).copied().unwrap_or_default()
            };
            self.read_0_data.next = word(&self._mem, self.read_0_address.val());
            self.read_1_data.next = word(&self._mem, self.read_1_address.val());
            let written = |m: &BTreeMap<u64, Bits<D>>, a: Bits<A>| m.contains_key(&a.to_u64());
            self.read_0_written.next = written(&self._mem, self.read_0_address.val());
            self.read_1_written.next = written(&self._mem, self.read_1_address.val());
            let mask = low_bits::<D>(self._width);
            let given = [
                self.write_a_enable.val().then(|| {
                    (
                        self.write_a_address.val().to_u64(),
                        self.write_a_data.val() & mask,
                    )
                }),
                self.write_b_enable.val().then(|| {
                    (
                        self.write_b_address.val().to_u64(),
                        self.write_b_data.val() & mask,
                    )
                }),
            ];
            let landing = if self._write_stage {
                std::mem::replace(&mut self._pending, given)
            } else {
                given
            };
            // Port B first, so that port A wins on a shared word.
            for (a, d) in landing.into_iter().rev().flatten() {
                self._mem.insert(a, d);
            }
            if self.reset.val() {
                self._mem.clear();
                self._pending = [None, None];
            }
        }
    }

    fn connect(&mut self) {
        self.read_0_data.connect();
        self.read_1_data.connect();
        self.read_0_written.connect();
        self.read_1_written.connect();
    }

    fn hdl(&self) -> Verilog {
        if self._tech.replicates() {
            self.replicated()
        } else {
            self.asic()
        }
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "ram_2w2r".into(),
            clock: "clock".into(),
            inputs: vec![
                "reset".into(),
                "write_a_enable".into(),
                "write_a_address".into(),
                "write_a_data".into(),
                "write_b_enable".into(),
                "write_b_address".into(),
                "write_b_data".into(),
                "read_0_address".into(),
                "read_1_address".into(),
            ],
            outputs: vec![
                "read_0_data".into(),
                "read_1_data".into(),
                "read_0_written".into(),
                "read_1_written".into(),
            ],
        }]
    }
}
