//! A simple dual-port RAM (one synchronous read port, one write port, one clock) that stores
//! only the low `width` bits of its `D`-bit data bus, in `depth` words.
//!
//! rust-hdl's own `RAM` sizes its storage by the Rust data type, which is fixed at compile time;
//! switchcraft's storage widths and depths come from the runtime config (e.g. the flow-table
//! entries, the queues of a port), so this leaf takes them as values and emits
//! `reg [width-1:0] mem [0:depth-1]`. Read-old semantics: a read and a write of the same address
//! on one edge return the old value, as in rust-hdl's RAM and in iCE40/Xilinx block RAM in
//! read-first mode.
//!
//! A RAM whose every such collision the design forwards around ([`NarrowRam::forwarded`]) leaves
//! the collision's read undefined instead (`(* no_rw_check *)`), so that synthesis adds no
//! bypass logic of its own behind the RAM's output (yosys otherwise emulates read-old across
//! the two ports of an ECP5 DP16KD with a multiplexer on the read data). Simulation then
//! returns the old word inverted on a collision, so a design that used it fails its co-simulation.

use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// Bits that index `n` items (`ceil(log2(n))`), at least 1.
pub fn index_bits(n: usize) -> usize {
    (usize::BITS - (n - 1).leading_zeros()).max(1) as usize
}

/// `Bits<W>` with its low `n` bits set.
pub fn low_bits<const W: usize>(n: usize) -> Bits<W> {
    if n == 0 {
        Bits::default()
    } else {
        !Bits::<W>::default() >> ((W - n) as u64)
    }
}

#[derive(LogicBlock)]
pub struct NarrowRam<const A: usize, const D: usize> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, Bits<D>>,
    pub write_address: Signal<In, Bits<A>>,
    pub write_data: Signal<In, Bits<D>>,
    pub write_enable: Signal<In, Bit>,
    _width: usize,
    _depth: usize,
    _forwarded: bool,
    _mem: BTreeMap<u64, Bits<D>>,
}

impl<const A: usize, const D: usize> NarrowRam<A, D> {
    /// `2^A` words of `width` bits.
    pub fn new(width: usize) -> Self {
        Self::with_depth(width, 1 << A)
    }

    /// `depth` words (at most `2^A`) of `width` bits (at most `D`). Only the low
    /// `ceil(log2(depth))` address bits are decoded (the rest are ignored, so the Verilog has no
    /// unused address bits); reads past the end return 0 and writes there are ignored, as
    /// Verilator does.
    pub fn with_depth(width: usize, depth: usize) -> Self {
        assert!((1..=D).contains(&width));
        assert!((1..=1 << A).contains(&depth));
        NarrowRam {
            clock: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            _width: width,
            _depth: depth,
            _forwarded: false,
            _mem: BTreeMap::new(),
        }
    }

    /// The design forwards around every read that meets a write of the same address on its
    /// edge, so that read's data is undefined (see the module's doc).
    pub fn forwarded(mut self) -> Self {
        self._forwarded = true;
        self
    }

    /// Decoded address bits: enough for `depth` words, at least 1.
    fn address_bits(&self) -> usize {
        index_bits(self._depth)
    }
}

impl<const A: usize, const D: usize> Logic for NarrowRam<A, D> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let decoded = (1u64 << self.address_bits()) - 1;
            let read = self.read_address.val().to_u64() & decoded;
            let old = self._mem.get(&read).copied().unwrap_or_default();
            self.read_data.next = old;
            let write = self.write_address.val().to_u64() & decoded;
            if self.write_enable.val() && (write as usize) < self._depth {
                let mask = low_bits::<D>(self._width);
                self._mem.insert(write, self.write_data.val() & mask);
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let w = self._width;
        let ab = self.address_bits();
        let (read_address, write_address) = if ab == A {
            ("read_address".to_string(), "write_address".to_string())
        } else {
            (
                format!("read_address[{}:0]", ab - 1),
                format!("write_address[{}:0]", ab - 1),
            )
        };
        let mut unused = String::new();
        // Only `width` bits are stored and `ab` address bits decoded; the `unused_` names tell
        // Verilator the rest is unused on purpose.
        if w < D {
            unused += &format!(
                "wire unused_write_data_high = ^write_data[{}:{w}];\n",
                D - 1
            );
        }
        if ab < A {
            unused += &format!(
                "wire unused_address_high = ^{{read_address[{m}:{ab}], write_address[{m}:{ab}]}};\n",
                m = A - 1
            );
        }
        let pad = |word: String| {
            if w == D {
                word
            } else {
                format!("{{{}'d0, {word}}}", D - w)
            }
        };
        let read = pad(format!("mem[{read_address}]"));
        let (attribute, read) = if self._forwarded {
            (
                "(* no_rw_check *)\n",
                format!(
                    "\
`ifdef SYNTHESIS
   read_data <= {read};
`else
   // Undefined in hardware; inverted here, so that a design that used it fails.
   if (write_enable && {write_address} == {read_address})
      read_data <= {inverted};
   else
      read_data <= {read};
`endif",
                    inverted = pad(format!("~mem[{read_address}]"))
                ),
            )
        } else {
            ("", format!("   read_data <= {read};"))
        };
        Verilog::Custom(format!(
            "\
{attribute}reg [{msb}:0] mem [0:{last}];
{unused}
always @(posedge clock) begin
{read}
   if (write_enable) begin
      mem[{write_address}] <= write_data[{msb}:0];
   end
end
",
            msb = w - 1,
            last = self._depth - 1,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "narrow_ram".into(),
            clock: "clock".into(),
            inputs: vec![
                "read_address".into(),
                "write_address".into(),
                "write_data".into(),
                "write_enable".into(),
            ],
            outputs: vec!["read_data".into()],
        }]
    }
}
