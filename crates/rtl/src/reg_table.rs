//! A table of registers with reset values (a config table a register bank writes through an
//! index and a data window, e.g. BFC's thresholds): `depth` words of up to `W` bits, one masked
//! write port, and two registered read ports that return a word as the edge leaves it (the
//! same edge's write included).
//!
//! Which words exist, the bits each holds and their reset values come from the runtime config,
//! so the leaf writes its Verilog itself: one register per existing word of exactly the config's
//! bits, and the reads as cases over those words. A table held in one wide vector instead
//! (`Bits<16 384>` for 512 lanes) costs synthesis minutes of shifters and wide logic over the
//! lanes a config does not have before they fall away.

use rust_hdl::prelude::*;

/// One word of a [`RegTable`]: the bits it stores and its value after reset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word {
    pub bits: u64,
    pub reset: u64,
}

#[derive(LogicBlock)]
pub struct RegTable<const A: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: every word to its reset value (the reads of that edge still
    /// return the words as written).
    pub reset: Signal<In, Bit>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<A>>,
    /// The bits of `write_data` a write stores (the rest of the word is kept).
    pub write_mask: Signal<In, Bits<W>>,
    pub write_data: Signal<In, Bits<W>>,
    /// After edge n: the word `read_address` named before edge n, as edge n leaves it (its
    /// write applied, its reset not); 0 for a word the table does not have.
    pub read_address: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, Bits<W>>,
    pub read_address_b: Signal<In, Bits<A>>,
    pub read_data_b: Signal<Out, Bits<W>>,
    /// Word `i`, or `None` where the table has no word (it reads 0 and ignores writes).
    _words: Vec<Option<Word>>,
    _state: Vec<u64>,
}

impl<const A: usize, const W: usize> RegTable<A, W> {
    pub fn new(words: Vec<Option<Word>>) -> Self {
        assert!(W <= 64 && words.len() <= 1 << A);
        assert!(
            words.iter().flatten().any(|w| w.bits != 0),
            "a table stores some bits"
        );
        let state = words
            .iter()
            .map(|w| w.map_or(0, |w| w.reset & w.bits))
            .collect();
        RegTable {
            clock: Default::default(),
            reset: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_mask: Default::default(),
            write_data: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            read_address_b: Default::default(),
            read_data_b: Default::default(),
            _words: words,
            _state: state,
        }
    }

    fn bits_at(&self, address: u64) -> u64 {
        self._words
            .get(address as usize)
            .copied()
            .flatten()
            .map_or(0, |w| w.bits)
    }

    fn stored(&self, address: u64) -> u64 {
        self._state.get(address as usize).copied().unwrap_or(0)
    }
}

impl<const A: usize, const W: usize> Logic for RegTable<A, W> {
    fn update(&mut self) {
        if !self.clock.pos_edge() {
            return;
        }
        let wa = self.write_address.val().to_u64();
        let mask = self.write_mask.val().to_u64();
        let merged =
            (self.stored(wa) & !mask | self.write_data.val().to_u64() & mask) & self.bits_at(wa);
        let we = self.write_enable.val();
        let [a, b] = [self.read_address.val(), self.read_address_b.val()].map(|r| {
            let r = r.to_u64();
            if we && r == wa {
                merged
            } else {
                self.stored(r)
            }
        });
        self.read_data.next = a.into();
        self.read_data_b.next = b.into();
        if self.reset.val() {
            for (s, w) in self._state.iter_mut().zip(&self._words) {
                *s = w.map_or(0, |w| w.reset & w.bits);
            }
        } else if we && self.bits_at(wa) != 0 {
            self._state[wa as usize] = merged;
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
        self.read_data_b.connect();
    }

    fn hdl(&self) -> Verilog {
        let hex = |v: u64| format!("{W}'h{v:x}");
        let mut regs = String::new();
        let mut resets = String::new();
        let mut writes = String::new();
        let (mut word_case, mut bits_case) = (String::new(), String::new());
        for (i, w) in self._words.iter().enumerate() {
            let Some(w) = w.filter(|w| w.bits != 0) else {
                continue;
            };
            regs += &format!("reg [{}:0] word_{i};\n", W - 1);
            resets += &format!("      word_{i} <= {};\n", hex(w.reset & w.bits));
            writes += &format!(
                "   if (!reset && write_enable && write_address == {A}'d{i}) word_{i} <= merged;\n"
            );
            word_case += &format!("      {A}'d{i}: @ = word_{i};\n");
            bits_case += &format!("      {A}'d{i}: @ = {};\n", hex(w.bits));
        }
        // A case over the table's words (0 for an address without one).
        let select = |name: &str, address: &str, cases: &str| {
            format!(
                "\
reg [{msb}:0] {name};
always @(*) begin
   {name} = {zero};
   case ({address})
{cases}      default: ;
   endcase
end
",
                msb = W - 1,
                zero = hex(0),
                cases = cases.replace('@', name),
            )
        };
        Verilog::Custom(format!(
            "\
{regs}{at_write}{at_read}{at_read_b}// What a write stores: the masked bits of the data over the word, within the word's bits.
wire [{msb}:0] merged = ((at_write & ~write_mask) | (write_data & write_mask)) & at_write_bits;
always @(posedge clock) begin
   read_data <= (write_enable && write_address == read_address) ? merged : at_read;
   read_data_b <= (write_enable && write_address == read_address_b) ? merged : at_read_b;
   if (reset) begin
{resets}   end
{writes}end
",
            at_write = select("at_write", "write_address", &word_case)
                + &select("at_write_bits", "write_address", &bits_case),
            at_read = select("at_read", "read_address", &word_case),
            at_read_b = select("at_read_b", "read_address_b", &word_case),
            msb = W - 1,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> RegTable<2, 8> {
        RegTable::new(vec![
            Some(Word {
                bits: 0x0f,
                reset: 5,
            }),
            None,
            Some(Word {
                bits: 0xff,
                reset: 0x80,
            }),
        ])
    }

    fn edge(t: &mut RegTable<2, 8>) {
        t.clock.next = true.into();
        t.update_all();
        t.clock.next = false.into();
        t.update_all();
    }

    fn set(t: &mut RegTable<2, 8>, we: bool, wa: u64, mask: u64, data: u64, ra: u64, rb: u64) {
        t.write_enable.next = we;
        t.write_address.next = wa.into();
        t.write_mask.next = mask.into();
        t.write_data.next = data.into();
        t.read_address.next = ra.into();
        t.read_address_b.next = rb.into();
        t.reset.next = false;
        t.update_all();
    }

    #[test]
    fn reads_return_the_word_as_the_edge_leaves_it() {
        let mut t = table();
        set(&mut t, false, 0, 0, 0, 0, 2);
        edge(&mut t);
        assert_eq!(
            (t.read_data.val().to_u64(), t.read_data_b.val().to_u64()),
            (5, 0x80)
        );
        // A write is seen by a read of the same edge, within the word's bits and the mask.
        set(&mut t, true, 0, 0xfc, 0xfa, 0, 2);
        edge(&mut t);
        assert_eq!(
            (t.read_data.val().to_u64(), t.read_data_b.val().to_u64()),
            (0x9, 0x80)
        );
        // A missing word reads 0 and keeps nothing.
        set(&mut t, true, 1, 0xff, 0xff, 1, 0);
        edge(&mut t);
        assert_eq!(
            (t.read_data.val().to_u64(), t.read_data_b.val().to_u64()),
            (0, 0x9)
        );
    }

    #[test]
    fn the_verilog_has_one_register_per_word_the_table_has() {
        let Verilog::Custom(v) = table().hdl() else {
            panic!("custom Verilog")
        };
        assert!(v.contains("reg [7:0] word_0;") && v.contains("reg [7:0] word_2;"));
        assert!(!v.contains("word_1"));
        assert!(v.contains("word_0 <= 8'h5;") && v.contains("at_write_bits = 8'hf;"));
    }
}
