//! The CSR bank every core shares, built from the block's [`RegMap`]: the address decoder, the
//! stored registers, the registered read and the write strobes. A core holds no decoder; it
//! reads register values from [`CsrBank::value`], drives its status words and windows into
//! [`CsrBank::hw_value`] and its sticky flags into [`CsrBank::hw_set`], and acts on
//! [`CsrBank::write`] where a write does something (a snapshot, a table write, a reseed).
//!
//! Words are packed 32 bits per slot: slot `k` (word index `k` on `csr_addr`) is bits
//! `[32k, 32k + 32)` of every `SW`-bit bus. Per access kind:
//! * `Const`: reads its reset value; nothing stored.
//! * `Ro`: reads the core's `hw_value` word (a status the core keeps).
//! * `Rw`: stores the low `width` bits of a write; reads the stored value.
//! * `Rw1c`: stores sticky flags; `hw_set` bits set them, a written 1 clears them, and a flag
//!   raised on the edge of a clearing write stays set.
//! * `Window`: nothing stored; reads the core's `hw_value` word (an entry of a table the
//!   index register selects), and a write is the core's to apply (`write` and `wdata`).
//!
//! Reads are registered: `rdata` after edge n is the word `raddr` names at edge n, as it was
//! before that edge ([`CsrBank::new`]) or as that edge leaves it ([`CsrBank::reading_after`],
//! for a core that registers the bus at its input and applies a write one edge later, with
//! the events of the same edge: BFC). A core ties `raddr` to the bus's address, or to the
//! address input when its write bus is registered.
//!
//! `S` slots of `SW = 32 * S` bits, offsets of `OB = ceil(log2(SW))` bits (Verilog's width for
//! an index into `SW` bits).
//!
//! The Verilog is written here, not by `hdl_gen`: one register `r_<name>` of exactly `width`
//! bits per stored register, written under an enable, and one `always` block per output.
//! rust-hdl puts a module's combinational logic in one block, so a core reading `write` or
//! `value_next` (from the bus) while driving `hw_set` would form a false loop between two
//! blocks that Verilator cannot order (UNOPTFLAT). The rust-hdl simulation below is the same
//! logic in Rust; the Verilator run of the exported Verilog is the gate.

use rust_hdl::prelude::*;
use switchcraft_core::csr::{Access, Reg, RegMap, CSR_ADDR_BITS};

#[derive(LogicBlock)]
pub struct CsrBank<const S: usize, const SW: usize, const OB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: stored registers to their reset values.
    pub reset: Signal<In, Bit>,
    pub we: Signal<In, Bit>,
    pub addr: Signal<In, Bits<6>>,
    pub wdata: Signal<In, Bits<32>>,
    /// The word the registered read returns.
    pub raddr: Signal<In, Bits<6>>,
    /// The words of the `Ro` and `Window` slots, as the core has them before the edge.
    pub hw_value: Signal<In, Bits<SW>>,
    /// Flags the core raises on this edge in `Rw1c` slots.
    pub hw_set: Signal<In, Bits<SW>>,
    /// Read data: after edge n, the word `raddr` names, before edge n or as edge n leaves it
    /// (0 past the bank's slots).
    pub rdata: Signal<Out, Bits<32>>,
    /// The stored `Rw` and `Rw1c` words (zero elsewhere).
    pub value: Signal<Out, Bits<SW>>,
    /// The `Rw` words after this edge (its write and reset applied), for a core that
    /// precomputes from a register. `Rw1c` flags are not in it: they depend on `hw_set`.
    pub value_next: Signal<Out, Bits<SW>>,
    /// Bit k: slot k is written on this edge (`we` and `addr == k`), whatever its kind.
    pub write: Signal<Out, Bits<S>>,

    /// The `width` bits of the `Rw` slots, of the `Rw1c` slots and of the `Ro`/`Window` slots.
    _rw_bits: Bits<SW>,
    _w1c_bits: Bits<SW>,
    _hw_bits: Bits<SW>,
    /// The words of the `Const` slots, and the stored words after reset.
    _const_words: Bits<SW>,
    _reset_words: Bits<SW>,
    /// The registers, for the Verilog.
    _regs: Vec<Reg>,
    /// `rdata` shows the words as the edge leaves them (see the module doc).
    _read_after: bool,
    /// Simulation state: the stored words.
    _stored: Bits<SW>,
}

/// `Bits<SW>` with `word` at slot `slot`.
fn at_slot<const SW: usize>(slot: u32, word: u64) -> Bits<SW> {
    bit_cast::<SW, 64>(Bits::<64>::from(word)) << (32 * u64::from(slot))
}

impl<const S: usize, const SW: usize, const OB: usize> CsrBank<S, SW, OB> {
    pub fn new(map: &RegMap) -> Self {
        assert_eq!(SW, 32 * S, "SW = 32 * S");
        assert_eq!(OB, crate::narrow_ram::index_bits(SW), "OB = ceil(log2(SW))");
        assert!((2..=1 << CSR_ADDR_BITS).contains(&S));
        let (mut rw, mut w1c, mut hw, mut consts, mut resets) = Default::default();
        let or = |acc: &mut Bits<SW>, slot: u32, word: u64| *acc = *acc | at_slot::<SW>(slot, word);
        for r in &map.regs {
            assert!(
                (r.index as usize) < S,
                "{}: register {} at index {} is past the bank's {S} slots",
                map.block,
                r.name,
                r.index
            );
            match r.access {
                Access::Const => or(&mut consts, r.index, r.reset),
                Access::Ro | Access::Window => or(&mut hw, r.index, r.mask()),
                Access::Rw => {
                    or(&mut rw, r.index, r.mask());
                    or(&mut resets, r.index, r.reset);
                }
                Access::Rw1c => {
                    or(&mut w1c, r.index, r.mask());
                    or(&mut resets, r.index, r.reset);
                }
            }
        }
        CsrBank {
            clock: Default::default(),
            reset: Default::default(),
            we: Default::default(),
            addr: Default::default(),
            wdata: Default::default(),
            raddr: Default::default(),
            hw_value: Default::default(),
            hw_set: Default::default(),
            rdata: Default::default(),
            value: Default::default(),
            value_next: Default::default(),
            write: Default::default(),
            _rw_bits: rw,
            _w1c_bits: w1c,
            _hw_bits: hw,
            _const_words: consts,
            _reset_words: resets,
            _regs: map.regs.clone(),
            _read_after: false,
            _stored: resets,
        }
    }

    /// `rdata` after edge n shows the word as edge n leaves it: an `Rw` word with the write of
    /// that edge, an `Rw1c` word with its clear and the flags raised, `hw_value` as the core
    /// drives it (its next state).
    pub fn reading_after(mut self) -> Self {
        self._read_after = true;
        self
    }

    /// The bit offset of register `name`'s word in the packed buses, for `get_bits` in a core.
    pub fn offset(map: &RegMap, name: &str) -> Constant<Bits<OB>> {
        Constant::new(u64::from(32 * map.get(name).index).into())
    }

    /// Register `name`'s bit in [`CsrBank::write`]: `(write & strobe).any()` is its write.
    pub fn strobe(map: &RegMap, name: &str) -> Constant<Bits<S>> {
        Constant::new(Bits::<S>::from(1u64) << u64::from(map.get(name).index))
    }

    /// `bits` placed in register `name`'s word, e.g. a flag for [`CsrBank::hw_set`].
    pub fn bits(map: &RegMap, name: &str, bits: u64) -> Constant<Bits<SW>> {
        let r = map.get(name);
        assert_eq!(bits & !r.mask(), 0, "{}: bits past its width", r.name);
        Constant::new(at_slot::<SW>(r.index, bits))
    }

    /// The selected word's bits and the written data, at the addressed slot (zero when the
    /// bus does not write a slot of the bank).
    fn write_lanes(&self) -> (Bits<SW>, Bits<SW>) {
        let addr = self.addr.val().to_u64();
        if !(self.we.val() && addr < S as u64) {
            return (Bits::default(), Bits::default());
        }
        let select = at_slot::<SW>(addr as u32, 0xffff_ffff);
        (
            select,
            at_slot::<SW>(addr as u32, self.wdata.val().to_u64()) & select,
        )
    }

    fn next_rw(&self) -> Bits<SW> {
        if self.reset.val() {
            return self._reset_words & self._rw_bits;
        }
        let (select, written) = self.write_lanes();
        (self._stored & !select | written) & self._rw_bits
    }

    fn next_w1c(&self) -> Bits<SW> {
        if self.reset.val() {
            return self._reset_words & self._w1c_bits;
        }
        let (_, written) = self.write_lanes();
        (self._stored & !written | self.hw_set.val()) & self._w1c_bits
    }
}

impl<const S: usize, const SW: usize, const OB: usize> Logic for CsrBank<S, SW, OB> {
    fn update(&mut self) {
        let addr = self.addr.val().to_u64();
        self.write.next = if self.we.val() && addr < S as u64 {
            Bits::<S>::from(1u64) << addr
        } else {
            Bits::default()
        };
        self.value_next.next = self.next_rw();
        if self.clock.pos_edge() {
            let next = self.next_rw() | self.next_w1c();
            let stored = if self._read_after { next } else { self._stored };
            let words = stored | self._const_words | (self.hw_value.val() & self._hw_bits);
            let raddr = self.raddr.val().to_u64();
            self.rdata.next = if self.reset.val() || raddr >= S as u64 {
                Bits::default()
            } else {
                (words >> (32 * raddr)).get_bits::<32>(0)
            };
            self._stored = next;
        }
        self.value.next = self._stored;
    }

    fn connect(&mut self) {
        self.rdata.connect();
        self.value.connect();
        self.value_next.connect();
        self.write.connect();
    }

    fn hdl(&self) -> Verilog {
        // One register `r_<name>` of `width` bits per stored register, written with an enable
        // (synthesis maps it to enable flip-flops); a read is a case over the mapped slots.
        let mut regs = String::new();
        let mut resets = String::new();
        let mut writes = String::new();
        let mut reads = String::new();
        let mut words = vec!["32'd0".to_string(); S];
        let mut nexts = vec!["32'd0".to_string(); S];
        for r in &self._regs {
            let (k, w, n) = (r.index as usize, r.width, r.name);
            let msb = w - 1;
            let pad = |v: &str| {
                if w == 32 {
                    v.to_string()
                } else {
                    format!("{{{}'d0, {v}}}", 32 - w)
                }
            };
            let lo = 32 * k;
            let set = format!("hw_set[{}:{lo}]", lo + msb as usize);
            let cleared = format!("r_{n} & ~(slot[{k}] ? wdata[{msb}:0] : {w}'d0) | {set}");
            let word = match r.access {
                Access::Const => format!("32'h{:08x}", r.reset),
                Access::Ro | Access::Window => {
                    pad(&format!("hw_value[{}:{lo}]", lo + msb as usize))
                }
                Access::Rw if self._read_after => {
                    pad(&format!("(slot[{k}] ? wdata[{msb}:0] : r_{n})"))
                }
                Access::Rw1c if self._read_after => pad(&format!("({cleared})")),
                Access::Rw | Access::Rw1c => pad(&format!("r_{n}")),
            };
            reads += &format!("         6'd{k}: rdata <= {word};\n");
            if matches!(r.access, Access::Rw | Access::Rw1c) {
                regs += &format!("reg [{msb}:0] r_{n};\n");
                resets += &format!("      r_{n} <= {w}'h{:x};\n", r.reset);
                words[k] = pad(&format!("r_{n}"));
            }
            match r.access {
                Access::Rw => {
                    writes += &format!("      if (slot[{k}]) r_{n} <= wdata[{msb}:0];\n");
                    nexts[k] = pad(&format!(
                        "(reset ? {w}'h{:x} : slot[{k}] ? wdata[{msb}:0] : r_{n})",
                        r.reset
                    ));
                }
                Access::Rw1c => writes += &format!("      r_{n} <= {cleared};\n"),
                _ => {}
            }
        }
        let concat = |v: &[String]| v.iter().rev().cloned().collect::<Vec<_>>().join(", ");
        Verilog::Custom(format!(
            "\
{regs}// Each slot reads only its register's bits of the buses; the rest is unused on purpose.
wire unused_bus_bits = ^{{wdata, hw_value, hw_set}};
wire [{sm}:0] slot = we ? {s}'d1 << addr : {s}'d0;
always @(posedge clock) begin
   if (reset) begin
{resets}      rdata <= 32'd0;
   end else begin
{writes}      case (raddr)
{reads}         default: rdata <= 32'd0;
      endcase
   end
end
always @(*) value = {{{words}}};
always @(*) value_next = {{{nexts}}};
always @(*) write = slot;
",
            sm = S - 1,
            s = S,
            words = concat(&words),
            nexts = concat(&nexts),
        ))
    }
}

/// Lint waiver for a core with a bank: it reads only the words it uses, and the strobes of the
/// registers whose writes do something; so does a stage module that takes the packed buses.
pub const UNUSED_WAIVER: crate::export::Waiver = crate::export::Waiver {
    rule: "UNUSEDSIGNAL",
    signals: &[
        "csr$value",
        "csr$value_next",
        "csr$write",
        "value",
        "value_next",
    ],
    reason: "a core, or a stage module given the packed `value` and `value_next` buses (which \
             hold every slot), reads from its CSR bank only the register bits it uses, and only \
             the write strobes of the registers whose writes act.",
};

#[cfg(test)]
mod tests {
    use super::*;
    use switchcraft_core::csr::Reg;

    fn reg(name: &'static str, index: u32, width: u32, access: Access, reset: u64) -> Reg {
        Reg {
            name,
            index,
            width,
            access,
            reset,
            doc: "",
        }
    }

    fn map() -> RegMap {
        RegMap::new(
            "test",
            vec![
                reg("id", 0, 32, Access::Const, 0x1234_5678),
                reg("rw", 1, 5, Access::Rw, 0x11),
                reg("flags", 2, 2, Access::Rw1c, 0),
                reg("status", 3, 8, Access::Ro, 0),
            ],
        )
    }

    #[test]
    fn masks_place_each_register_in_its_slot_by_kind() {
        let bank = CsrBank::<4, 128, 7>::new(&map());
        assert_eq!(bank._const_words, at_slot::<128>(0, 0x1234_5678));
        assert_eq!(bank._rw_bits, at_slot::<128>(1, 0x1f));
        assert_eq!(bank._w1c_bits, at_slot::<128>(2, 0x3));
        assert_eq!(bank._hw_bits, at_slot::<128>(3, 0xff));
        assert_eq!(bank._reset_words, at_slot::<128>(1, 0x11));
    }

    #[test]
    fn the_verilog_names_each_stored_register_and_reads_each_slot() {
        let Verilog::Custom(v) = CsrBank::<4, 128, 7>::new(&map()).hdl() else {
            panic!("custom Verilog")
        };
        assert!(v.contains("reg [4:0] r_rw;"), "{v}");
        assert!(v.contains("if (slot[1]) r_rw <= wdata[4:0];"), "{v}");
        assert!(
            v.contains("r_flags <= r_flags & ~(slot[2] ? wdata[1:0] : 2'd0) | hw_set[65:64];"),
            "{v}"
        );
        assert!(v.contains("6'd0: rdata <= 32'h12345678;"), "{v}");
        assert!(
            v.contains("6'd3: rdata <= {24'd0, hw_value[103:96]};"),
            "{v}"
        );
        assert!(!v.contains("r_id") && !v.contains("r_status"), "{v}");
    }

    #[test]
    fn reading_after_the_edge_reads_each_word_as_the_edge_leaves_it() {
        let Verilog::Custom(v) = CsrBank::<4, 128, 7>::new(&map()).reading_after().hdl() else {
            panic!("custom Verilog")
        };
        assert!(v.contains("case (raddr)"), "{v}");
        assert!(
            v.contains("6'd1: rdata <= {27'd0, (slot[1] ? wdata[4:0] : r_rw)};"),
            "{v}"
        );
        assert!(
            v.contains(
                "6'd2: rdata <= {30'd0, (r_flags & ~(slot[2] ? wdata[1:0] : 2'd0) | hw_set[65:64])};"
            ),
            "{v}"
        );
        assert!(v.contains("if (slot[1]) r_rw <= wdata[4:0];"), "{v}");
    }

    #[test]
    #[should_panic(expected = "past the bank's 2 slots")]
    fn a_register_past_the_slots_is_refused() {
        CsrBank::<2, 64, 6>::new(&map());
    }
}
