//! `K` rows of `R` flag bits in flip-flops, with one clear port and one set port per edge; the
//! whole matrix is an output (`F = K * R` bits, row k at `[k * R +: R]`), so readers select
//! rows without a combinational path through this block. CaPFC keeps its E bits here: row =
//! egress (port, priority), bit = ingress port.
//!
//! On an edge, a valid clear empties row `clear_key`, then a valid set ORs `set_bits` into row
//! `set_key` (so clearing and setting one row leaves exactly `set_bits`). Synchronous reset
//! empties every row. A leaf with its own Verilog (a generate loop of row registers) because
//! rust-hdl cannot address a row of a register array; its rows are ordinary flip-flops.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct FlagRows<const KB: usize, const K: usize, const R: usize, const F: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub clear_valid: Signal<In, Bit>,
    pub clear_key: Signal<In, Bits<KB>>,
    pub set_valid: Signal<In, Bit>,
    pub set_key: Signal<In, Bits<KB>>,
    pub set_bits: Signal<In, Bits<R>>,
    /// Every row, as it is before the edge.
    pub rows: Signal<Out, Bits<F>>,
    _rows: Vec<Bits<R>>,
}

impl<const KB: usize, const K: usize, const R: usize, const F: usize> Default
    for FlagRows<KB, K, R, F>
{
    fn default() -> Self {
        assert_eq!(1 << KB, K);
        assert_eq!(F, K * R);
        FlagRows {
            clock: Default::default(),
            reset: Default::default(),
            clear_valid: Default::default(),
            clear_key: Default::default(),
            set_valid: Default::default(),
            set_key: Default::default(),
            set_bits: Default::default(),
            rows: Default::default(),
            _rows: vec![Bits::default(); K],
        }
    }
}

impl<const KB: usize, const K: usize, const R: usize, const F: usize> Logic
    for FlagRows<KB, K, R, F>
{
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self._rows.fill(Bits::default());
            } else {
                if self.clear_valid.val() {
                    self._rows[self.clear_key.val().index()] = Bits::default();
                }
                if self.set_valid.val() {
                    let k = self.set_key.val().index();
                    self._rows[k] = self._rows[k] | self.set_bits.val();
                }
            }
        }
        let mut flat = Bits::<F>::default();
        for (k, row) in self._rows.iter().enumerate() {
            flat = flat | (bit_cast::<F, R>(*row) << (k * R) as u64);
        }
        self.rows.next = flat;
    }

    fn connect(&mut self) {
        self.rows.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
genvar k;
generate
   for (k = 0; k < {K}; k = k + 1) begin : row
      localparam [{kmsb}:0] KEY = k;
      reg [{rmsb}:0] r;
      wire clear_here = clear_valid && clear_key == KEY;
      wire set_here = set_valid && set_key == KEY;
      always @(posedge clock) begin
         if (reset) r <= {R}'d0;
         else if (clear_here) r <= set_here ? set_bits : {R}'d0;
         else if (set_here) r <= r | set_bits;
      end
      always @(*) rows[k * {R} +: {R}] = r;
   end
endgenerate
",
            kmsb = KB - 1,
            rmsb = R - 1,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![]
    }
}
