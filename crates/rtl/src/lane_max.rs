//! Stop-Max's selection: the largest of a row's 16-bit lanes (lane j at `[16 j +: 16]`, of
//! which the first `lanes` can be nonzero), the lowest lane on ties, none when every lane is 0,
//! registered one-hot one edge after the row. One row a cycle (II = 1).
//!
//! The row comes from a register of the parent, so the cycle holds one comparator of two lanes
//! and the AND-OR that picks the lane every other nonzero lane loses to (the engine's
//! selection, [`CalRow`](crate::cal_row::CalRow), shares that logic). It keeps the maximum off
//! the counter stage's loop: counting a row and tracking its running maximum in the same cycle
//! were CaPFC's critical path (docs/blocks/capfc.md, "Hardware structure"). A leaf with its own
//! Verilog for the same reason as `CalRow`: rust-hdl cannot express the per-pair wires.

use crate::cal_row::pairwise_wins;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct LaneMax<const PP: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub row: Signal<In, Bits<W>>,
    /// The row of the last edge's largest nonzero lane, one-hot (0: every lane was 0).
    pub wins: Signal<Out, Bits<PP>>,
    /// Lanes that can hold a counter (the others are ignored).
    _lanes: usize,
    _wins: Bits<PP>,
}

impl<const PP: usize, const W: usize> LaneMax<PP, W> {
    pub fn new(lanes: usize) -> Self {
        assert_eq!(W, 16 * PP);
        assert!((1..=PP).contains(&lanes));
        LaneMax {
            clock: Default::default(),
            row: Default::default(),
            wins: Default::default(),
            _lanes: lanes,
            _wins: Default::default(),
        }
    }
}

impl<const PP: usize, const W: usize> Logic for LaneMax<PP, W> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let row = self.row.val();
            let mut best: Option<(usize, Bits<16>)> = None;
            for j in 0..self._lanes {
                let lane = row.get_bits::<16>(j * 16);
                if lane.any() && best.is_none_or(|(_, b)| lane > b) {
                    best = Some((j, lane));
                }
            }
            self._wins = match best {
                Some((j, _)) => Bits::<PP>::from(1u64) << j as u64,
                None => Bits::default(),
            };
        }
        self.wins.next = self._wins;
    }

    fn connect(&mut self) {
        self.wins.connect();
    }

    fn hdl(&self) -> Verilog {
        let lanes = self._lanes;
        let mut v = format!(
            "\
reg [{pmsb}:0] wins_r;
wire [{lmsb}:0] cand;
wire [{pmsb}:0] best;
",
            pmsb = PP - 1,
            lmsb = lanes - 1,
        );
        for i in 0..lanes {
            v += &format!("assign cand[{i}] = |row[{lo} +: 16];\n", lo = 16 * i);
        }
        v += &pairwise_wins(lanes, PP, "row", "cand", "best");
        if lanes < PP {
            v += &format!("wire unused_row = ^row[{}:{}];\n", W - 1, 16 * lanes);
        }
        v += "\
always @(posedge clock) wins_r <= best;
always @(*) wins = wins_r;
";
        Verilog::Custom(v)
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![]
    }
}
