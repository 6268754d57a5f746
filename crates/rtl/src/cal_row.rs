//! The row a Stop-Calibrate engine works on: `PP` 16-bit counters (lane j at `[16 j +: 16]`)
//! and one "already flagged" bit per lane, in registers loaded from `next_*` on every edge,
//! and what the engine asks of them:
//!
//! * `best_val`: the largest counter that is nonzero and not yet flagged (0 when there is
//!   none), and `found` = whether there is one;
//! * `sel`: its lane, the lowest on ties, as a one-hot vector (0 when none); `left`: whether
//!   another candidate remains besides it;
//! * `sum`: the sum of all lanes, flagged or not.
//!
//! The selection is registered: it is computed during the cycle before, from the row register
//! and the flags the next cycle will hold if no new row is loaded (`sel_flagged`: the parent's
//! flags, with this cycle's selection when it flags one), so the engine's CUT test starts from
//! a register instead of from the end of a comparison tree. It therefore describes the
//! registers as they are except in the cycle right after a row was loaded (the engine's
//! summing cycle, which does not use it); so the tree does not wait for the parent's decision
//! to load a row (a capture), only `next_*` do. `sum` is combinational from the row register.
//!
//! Both are balanced trees (`log2 PP` levels): a tournament of 2:1 comparisons, where the
//! upper half of a pair wins only when it is strictly larger, which keeps the lowest lane on
//! ties; and a pairwise adder tree. A loop over the lanes in rust-hdl's single combinational
//! block builds chains `PP` stages long instead, which set CaPFC's critical path. A leaf with
//! its own Verilog because rust-hdl's generator cannot express a tree of per-level signals;
//! no output depends combinationally on an input (as in
//! [`FlagRows`](crate::flag_rows::FlagRows)), so the parent drives `next_*` and reads the
//! outputs in one combinational block without a false loop for Verilator.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CalRow<const PB: usize, const PP: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    /// What the registers load on the edge.
    pub next_counts: Signal<In, Bits<W>>,
    pub next_flagged: Signal<In, Bits<PP>>,
    /// The flags the selection excludes: `next_flagged` on every edge that loads no new row.
    pub sel_flagged: Signal<In, Bits<PP>>,
    /// The registers.
    pub counts: Signal<Out, Bits<W>>,
    pub flagged: Signal<Out, Bits<PP>>,
    pub best_val: Signal<Out, Bits<16>>,
    pub found: Signal<Out, Bit>,
    pub sel: Signal<Out, Bits<PP>>,
    pub left: Signal<Out, Bit>,
    pub sum: Signal<Out, Bits<32>>,
    _counts: Bits<W>,
    _flagged: Bits<PP>,
    /// The registered selection: (lane, value, candidates).
    _best: (usize, Bits<16>, Bits<PP>),
}

impl<const PB: usize, const PP: usize, const W: usize> Default for CalRow<PB, PP, W> {
    fn default() -> Self {
        assert_eq!(1 << PB, PP);
        assert_eq!(W, 16 * PP);
        CalRow {
            clock: Default::default(),
            next_counts: Default::default(),
            next_flagged: Default::default(),
            sel_flagged: Default::default(),
            counts: Default::default(),
            flagged: Default::default(),
            best_val: Default::default(),
            found: Default::default(),
            sel: Default::default(),
            left: Default::default(),
            sum: Default::default(),
            _counts: Default::default(),
            _flagged: Default::default(),
            _best: Default::default(),
        }
    }
}

impl<const PB: usize, const PP: usize, const W: usize> Logic for CalRow<PB, PP, W> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            // The selection from the row as it is and the flags it will keep.
            let sel_flagged = self.sel_flagged.val();
            let mut best = (0usize, Bits::<16>::default(), Bits::<PP>::default());
            for j in 0..PP {
                let lane = self._counts.get_bits::<16>(j * 16);
                if lane.any() && !sel_flagged.get_bit(j) {
                    best.2 = best.2.replace_bit(j, true);
                    if lane > best.1 {
                        (best.0, best.1) = (j, lane);
                    }
                }
            }
            self._best = best;
            self._counts = self.next_counts.val();
            self._flagged = self.next_flagged.val();
        }
        let (lane, best_val, cand) = self._best;
        let found = best_val.any();
        let sel = if found {
            Bits::<PP>::from(1u64) << lane as u64
        } else {
            Bits::default()
        };
        let mut sum = Bits::<32>::default();
        for j in 0..PP {
            sum = sum + bit_cast::<32, 16>(self._counts.get_bits::<16>(j * 16));
        }
        self.counts.next = self._counts;
        self.flagged.next = self._flagged;
        self.best_val.next = best_val;
        self.found.next = found;
        self.sel.next = sel;
        self.left.next = (cand & !sel).any();
        self.sum.next = sum;
    }

    fn connect(&mut self) {
        self.counts.connect();
        self.flagged.connect();
        self.best_val.connect();
        self.found.connect();
        self.sel.connect();
        self.left.connect();
        self.sum.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut v = format!(
            "\
reg [{wmsb}:0] counts_r;
reg [{pmsb}:0] flagged_r;
always @(*) counts = counts_r;
always @(*) flagged = flagged_r;
// Level l of each tree has 2^l nodes; level {PB} is the lanes. The selection's candidates are
// the lanes of the row register that are nonzero and not flagged after this edge (unless the
// edge loads a new row, after which the selection is not used for a cycle).
wire [{pmsb}:0] cand;
",
            wmsb = W - 1,
            pmsb = PP - 1,
        );
        for l in 0..=PB {
            let n = 1usize << l;
            v += &format!(
                "wire [{}:0] max_val_l{l};\nwire [{}:0] max_lane_l{l};\nwire [{}:0] sum_l{l};\n",
                16 * n - 1,
                PB * n - 1,
                32 * n - 1
            );
        }
        v += &format!(
            "\
genvar i;
generate
   for (i = 0; i < {PP}; i = i + 1) begin : lanes
      localparam [{pbmsb}:0] LANE = i;
      assign cand[i] = |counts_r[i * 16 +: 16] && !sel_flagged[i];
      assign max_val_l{PB}[i * 16 +: 16] = cand[i] ? counts_r[i * 16 +: 16] : 16'd0;
      assign max_lane_l{PB}[i * {PB} +: {PB}] = LANE;
      assign sum_l{PB}[i * 32 +: 32] = {{16'd0, counts_r[i * 16 +: 16]}};
   end
",
            pbmsb = PB - 1,
        );
        for l in (0..PB).rev() {
            let c = l + 1;
            v += &format!(
                "\
   for (i = 0; i < {n}; i = i + 1) begin : node{l}
      wire [15:0] lo = max_val_l{c}[2 * i * 16 +: 16];
      wire [15:0] hi = max_val_l{c}[(2 * i + 1) * 16 +: 16];
      wire take_hi = hi > lo;
      assign max_val_l{l}[i * 16 +: 16] = take_hi ? hi : lo;
      assign max_lane_l{l}[i * {PB} +: {PB}] = take_hi
         ? max_lane_l{c}[(2 * i + 1) * {PB} +: {PB}] : max_lane_l{c}[2 * i * {PB} +: {PB}];
      assign sum_l{l}[i * 32 +: 32] = sum_l{c}[2 * i * 32 +: 32] + sum_l{c}[(2 * i + 1) * 32 +: 32];
   end
",
                n = 1usize << l,
            );
        }
        v += &format!(
            "\
endgenerate
wire found_next = |max_val_l0;
wire [{pmsb}:0] sel_next = found_next ? {PP}'d1 << max_lane_l0 : {PP}'d0;
reg [15:0] best_r;
reg found_r;
reg [{pmsb}:0] sel_r;
reg left_r;
always @(posedge clock) begin
   counts_r <= next_counts;
   flagged_r <= next_flagged;
   best_r <= max_val_l0;
   found_r <= found_next;
   sel_r <= sel_next;
   left_r <= |(cand & ~sel_next);
end
always @(*) begin
   best_val = best_r;
   found = found_r;
   sel = sel_r;
   left = left_r;
   sum = sum_l0;
end
",
            pmsb = PP - 1,
        );
        Verilog::Custom(v)
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![]
    }
}
