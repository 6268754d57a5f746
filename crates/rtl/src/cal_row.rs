//! The row a Stop-Calibrate engine works on: `PP` 16-bit counters (lane j at `[16 j +: 16]`,
//! of which the first `lanes` can be nonzero) and one "already flagged" bit per lane, in
//! registers loaded from `next_*` on every edge, and the engine's selections, two deep:
//!
//! * `ahead`, `ahead_val`: registered on the last edge, the largest counter that was nonzero
//!   and not in `sel_flagged` (one-hot, the lowest lane on ties; 0 when there was none), and
//!   its value;
//! * `sel`: `ahead` of the edge before, shifted on;
//! * `sum`: the sum of all lanes, flagged or not (combinational, from the row register).
//!
//! The engine passes as `sel_flagged` the lanes flagged after this edge and the one `ahead`
//! holds, so `sel` is the lane it flags now and `ahead` the one it flags next: each flagging
//! edge can start the CUT test of the next lane (its product) from registers. The selection's
//! candidates hold still while the engine works on one row, so it compares every pair of lanes
//! once, from the row register (`ge_i_k`: lane i at least lane k, i < k), and a candidate is
//! selected when every other candidate loses to it (a lower lane wins a tie): the flags, which
//! change on every flagging edge, meet only that AND-OR logic and the value's AND-OR
//! multiplexer. It costs `lanes (lanes - 1) / 2` comparators where a tournament of 2:1
//! comparisons needs `lanes - 1`, but a tournament's `log2 PP` comparisons of masked values lay
//! in series on the flags' path each edge (CaPFC's critical path at `tiny` and `fpga` until
//! 2026-12-01). The sum is a balanced pairwise adder tree. A loop over the lanes in rust-hdl's
//! single combinational block builds chains `PP` stages long instead. A leaf with its own
//! Verilog because rust-hdl's generator cannot express a tree of per-level signals; no output
//! depends combinationally on an input (as in [`FlagRows`](crate::flag_rows::FlagRows)), so the
//! parent drives `next_*` and reads the outputs in one combinational block without a false loop
//! for Verilator.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct CalRow<const PB: usize, const PP: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    /// What the registers load on the edge.
    pub next_counts: Signal<In, Bits<W>>,
    pub next_flagged: Signal<In, Bits<PP>>,
    /// The lanes the selection made on this edge (`ahead` after it) excludes.
    pub sel_flagged: Signal<In, Bits<PP>>,
    /// The registers.
    pub counts: Signal<Out, Bits<W>>,
    pub flagged: Signal<Out, Bits<PP>>,
    pub sel: Signal<Out, Bits<PP>>,
    pub ahead: Signal<Out, Bits<PP>>,
    pub ahead_val: Signal<Out, Bits<16>>,
    pub sum: Signal<Out, Bits<32>>,
    /// Lanes that can hold a counter (the others are zero and never selected).
    _lanes: usize,
    _counts: Bits<W>,
    _flagged: Bits<PP>,
    _sel: Bits<PP>,
    _ahead: Bits<PP>,
    _ahead_val: Bits<16>,
}

impl<const PB: usize, const PP: usize, const W: usize> CalRow<PB, PP, W> {
    pub fn new(lanes: usize) -> Self {
        assert_eq!(1 << PB, PP);
        assert_eq!(W, 16 * PP);
        assert!((1..=PP).contains(&lanes));
        CalRow {
            clock: Default::default(),
            next_counts: Default::default(),
            next_flagged: Default::default(),
            sel_flagged: Default::default(),
            counts: Default::default(),
            flagged: Default::default(),
            sel: Default::default(),
            ahead: Default::default(),
            ahead_val: Default::default(),
            sum: Default::default(),
            _lanes: lanes,
            _counts: Default::default(),
            _flagged: Default::default(),
            _sel: Default::default(),
            _ahead: Default::default(),
            _ahead_val: Default::default(),
        }
    }
}

impl<const PB: usize, const PP: usize, const W: usize> Logic for CalRow<PB, PP, W> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            // The largest candidate of the row as it is, the lowest lane on ties.
            let excluded = self.sel_flagged.val();
            let mut best: Option<(usize, Bits<16>)> = None;
            for j in 0..self._lanes {
                let lane = self._counts.get_bits::<16>(j * 16);
                if lane.any() && !excluded.get_bit(j) && best.is_none_or(|(_, b)| lane > b) {
                    best = Some((j, lane));
                }
            }
            self._sel = self._ahead;
            (self._ahead, self._ahead_val) = match best {
                Some((j, v)) => (Bits::<PP>::from(1u64) << j as u64, v),
                None => (Bits::default(), Bits::default()),
            };
            self._counts = self.next_counts.val();
            self._flagged = self.next_flagged.val();
        }
        let mut sum = Bits::<32>::default();
        for j in 0..self._lanes {
            sum = sum + bit_cast::<32, 16>(self._counts.get_bits::<16>(j * 16));
        }
        self.counts.next = self._counts;
        self.flagged.next = self._flagged;
        self.sel.next = self._sel;
        self.ahead.next = self._ahead;
        self.ahead_val.next = self._ahead_val;
        self.sum.next = sum;
    }

    fn connect(&mut self) {
        self.counts.connect();
        self.flagged.connect();
        self.sel.connect();
        self.ahead.connect();
        self.ahead_val.connect();
        self.sum.connect();
    }

    fn hdl(&self) -> Verilog {
        let lanes = self._lanes;
        let mut v = format!(
            "\
reg [{wmsb}:0] counts_r;
reg [{pmsb}:0] flagged_r;
reg [{pmsb}:0] sel_r;
reg [{pmsb}:0] ahead_r;
reg [15:0] ahead_val_r;
// The candidates are the lanes of the row register that are nonzero and not in `sel_flagged`.
// A candidate wins when every other candidate loses to it: ge_i_k (i < k) compares two lanes
// once, from the row register, so the flags meet only AND-OR logic.
wire [{lmsb}:0] cand;
wire [{pmsb}:0] wins;
",
            wmsb = W - 1,
            pmsb = PP - 1,
            lmsb = lanes - 1,
        );
        for i in 0..lanes {
            v += &format!(
                "assign cand[{i}] = |counts_r[{lo} +: 16] && !sel_flagged[{i}];\n",
                lo = 16 * i
            );
        }
        v += &pairwise_wins(lanes, PP, "counts_r", "cand", "wins");
        if lanes < PP {
            v += &format!(
                "wire unused_sel_flagged = ^sel_flagged[{}:{lanes}];\n",
                PP - 1
            );
        }
        let picks: Vec<String> = (0..lanes)
            .map(|i| format!("({{16{{wins[{i}]}}}} & counts_r[{lo} +: 16])", lo = 16 * i))
            .collect();
        v += &format!("wire [15:0] pick = {};\n", picks.join(" | "));
        for l in 0..=PB {
            v += &format!("wire [{}:0] sum_l{l};\n", 32 * (1usize << l) - 1);
        }
        for i in 0..PP {
            if i < lanes {
                v += &format!(
                    "assign sum_l{PB}[{lo} +: 32] = {{16'd0, counts_r[{c} +: 16]}};\n",
                    lo = 32 * i,
                    c = 16 * i
                );
            } else {
                v += &format!("assign sum_l{PB}[{lo} +: 32] = 32'd0;\n", lo = 32 * i);
            }
        }
        v += "genvar i;\ngenerate\n";
        for l in (0..PB).rev() {
            let c = l + 1;
            v += &format!(
                "\
   for (i = 0; i < {n}; i = i + 1) begin : node{l}
      assign sum_l{l}[i * 32 +: 32] = sum_l{c}[2 * i * 32 +: 32] + sum_l{c}[(2 * i + 1) * 32 +: 32];
   end
",
                n = 1usize << l,
            );
        }
        v += "\
endgenerate
always @(posedge clock) begin
   counts_r <= next_counts;
   flagged_r <= next_flagged;
   sel_r <= ahead_r;
   ahead_r <= wins;
   ahead_val_r <= pick;
end
always @(*) begin
   counts = counts_r;
   flagged = flagged_r;
   sel = sel_r;
   ahead = ahead_r;
   ahead_val = ahead_val_r;
   sum = sum_l0;
end
";
        Verilog::Custom(v)
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![]
    }
}

/// Verilog for the largest candidate of a row, shared by the engine's selection and Stop-Max's
/// ([`LaneMax`](crate::lane_max::LaneMax)): `wins` (`pp` bits) is one-hot on the candidate that
/// every other candidate loses to, the lowest lane on ties, 0 when `cand` (`lanes` bits) is
/// empty. Lanes are 16 bits of `counts`; `ge_i_k` (lane i at least lane k, i < k) compares each
/// pair once, so only AND-OR logic follows the comparators.
pub(crate) fn pairwise_wins(
    lanes: usize,
    pp: usize,
    counts: &str,
    cand: &str,
    wins: &str,
) -> String {
    let mut v = String::new();
    for i in 0..lanes {
        for k in i + 1..lanes {
            v += &format!(
                "wire ge_{i}_{k} = {counts}[{a} +: 16] >= {counts}[{b} +: 16];\n",
                a = 16 * i,
                b = 16 * k
            );
        }
    }
    // Lane i beats a lower lane k only when strictly larger (ties: the lowest lane).
    for i in 0..lanes {
        let mut terms = vec![format!("{cand}[{i}]")];
        for k in (0..lanes).filter(|&k| k != i) {
            terms.push(if i < k {
                format!("(!{cand}[{k}] || ge_{i}_{k})")
            } else {
                format!("(!{cand}[{k}] || !ge_{k}_{i})")
            });
        }
        v += &format!("assign {wins}[{i}] = {};\n", terms.join(" && "));
    }
    if lanes < pp {
        v += &format!("assign {wins}[{}:{lanes}] = {}'d0;\n", pp - 1, pp - lanes);
    }
    v
}
