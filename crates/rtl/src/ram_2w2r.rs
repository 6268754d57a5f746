//! A memory with two write ports and two read ports, one clock, of config-time width and depth:
//! what a read-modify-write from two buses per cycle needs (PFC's and CaPFC's occupancies).
//! Reads are synchronous and read-old: an address given at edge n is read in cycle n, and a
//! write at edge n is not seen by a read of the same edge. The two write ports never name one
//! word on one edge (the users write a same-key pair through port A only); if they did, port A
//! would win. Each read also says whether its word was written since reset (`read_*_written`),
//! so a user keeps no written-since-reset bits of its own and treats an unwritten word as 0.
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
    _width: usize,
    _tech: Tech,
    _mem: BTreeMap<u64, Bits<D>>,
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
            _width: width,
            _tech: tech,
            _mem: BTreeMap::new(),
        }
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

    fn replicated(&self) -> Verilog {
        let (msb, last) = (self._width - 1, (1usize << A) - 1);
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
{unused}
always @(posedge clock) begin
   a0 <= mem_a0[read_0_address];
   b0 <= mem_b0[read_0_address];
   a1 <= mem_a1[read_1_address];
   b1 <= mem_b1[read_1_address];
   sel0 <= live_a[read_0_address];
   sel1 <= live_a[read_1_address];
   w0 <= written[read_0_address];
   w1 <= written[read_1_address];
   if (write_b_enable) begin
      mem_b0[write_b_address] <= write_b_data[{msb}:0];
      mem_b1[write_b_address] <= write_b_data[{msb}:0];
      live_a[write_b_address] <= 1'b0;
   end
   if (write_a_enable) begin
      mem_a0[write_a_address] <= write_a_data[{msb}:0];
      mem_a1[write_a_address] <= write_a_data[{msb}:0];
      live_a[write_a_address] <= 1'b1;
   end
   if (reset) begin
      written <= {{{words}{{1'b0}}}};
   end else begin
      if (write_b_enable) written[write_b_address] <= 1'b1;
      if (write_a_enable) written[write_a_address] <= 1'b1;
   end
end
always @(*) read_0_data = {r0};
always @(*) read_1_data = {r1};
always @(*) read_0_written = w0;
always @(*) read_1_written = w1;
",
            unused = self.unused_high(),
            words = last + 1,
            r0 = self.pad("(sel0 ? a0 : b0)"),
            r1 = self.pad("(sel1 ? a1 : b1)"),
        ))
    }

    fn asic(&self) -> Verilog {
        let w = self._width;
        let (r0, r1) = if w == D {
            ("read_0_data".to_string(), "read_1_data".to_string())
        } else {
            ("read_0_word".to_string(), "read_1_word".to_string())
        };
        let mut code = self.unused_high();
        if w < D {
            code += &format!(
                "wire [{m}:0] read_0_word;\nwire [{m}:0] read_1_word;\n\
                 assign read_0_data = {};\nassign read_1_data = {};\n",
                self.pad("read_0_word"),
                self.pad("read_1_word"),
                m = w - 1
            );
        }
        code += &format!(
            "\
// Reset clears the memory, one word per cycle through port A (held for at least {depth}
// cycles it reaches every word, whatever the counter's start).
reg [{am}:0] clear_address;
always @(posedge clock) clear_address <= reset ? clear_address + {A}'d1 : {A}'d0;
wire a_enable = reset | write_a_enable;
wire [{am}:0] a_address = reset ? clear_address : write_a_address;
wire [{m}:0] a_data = reset ? {w}'d0 : write_a_data[{m}:0];
top${ASIC_MODULE} #(.WIDTH({w}), .DEPTH({depth}), .ADDR({A})) mem (
   .clock(clock),
   .write_a_enable(a_enable), .write_a_address(a_address),
   .write_a_data(a_data),
   .write_b_enable(write_b_enable & !reset), .write_b_address(write_b_address),
   .write_b_data(write_b_data[{m}:0]),
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
            if self.write_b_enable.val() {
                let a = self.write_b_address.val().to_u64();
                self._mem.insert(a, self.write_b_data.val() & mask);
            }
            if self.write_a_enable.val() {
                let a = self.write_a_address.val().to_u64();
                self._mem.insert(a, self.write_a_data.val() & mask);
            }
            if self.reset.val() {
                self._mem.clear();
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
