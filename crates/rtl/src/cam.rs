//! A content-addressable memory in flip-flops: `S` segments of `depth` entries (at most
//! [`SEG_SLOTS`]) of `width` bits, entry `{segment, index}` at address `segment << 5 | index`,
//! with one write, one clear of whole segments, two matches and one read per edge (II = 1).
//!
//! RCM keeps each output queue's sampled flow IDs in one segment, and each port's list of
//! harmful IDs received in CNs in one segment of a second instance (spec §4.4).
//!
//! On an edge, the segments set in `clear` are emptied, then a valid write stores `wdata` at
//! `waddr` and marks it valid. The outputs are registered and describe the entries **as the
//! edge leaves them**: `hit_a` bit e is set when entry e is valid and equal to `key_a` (likewise
//! `hit_b`; a parent ORs a segment's bits, or masks an entry it knows is being overwritten),
//! and `rdata`/`rvalid` are entry `raddr`. So a key presented in the cycle
//! before an edge is matched against every write up to and including that edge, and no output
//! depends combinationally on an input (the parent's single combinational block may drive the
//! keys and read the hits without a false loop for Verilator). Synchronous reset empties every
//! entry. Only the entries of existing segments (`used`) below `depth` have flip-flops; the rest
//! never match.
//!
//! A leaf with its own Verilog because rust-hdl's generator cannot address an entry of a
//! register array; the rust-hdl simulation below is the same logic in Rust (the Verilator run
//! of the exported Verilog is the gate).

use rust_hdl::prelude::*;

/// Address slots per segment: the index is 5 bits whatever the depth.
pub const SEG_SLOTS: usize = 32;
const SEG_BITS: usize = 5;

#[derive(LogicBlock)]
pub struct Cam<const AB: usize, const N: usize, const S: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub clear: Signal<In, Bits<S>>,
    pub we: Signal<In, Bit>,
    pub waddr: Signal<In, Bits<AB>>,
    pub wdata: Signal<In, Bits<W>>,
    pub key_a: Signal<In, Bits<W>>,
    pub key_b: Signal<In, Bits<W>>,
    pub raddr: Signal<In, Bits<AB>>,
    pub hit_a: Signal<Out, Bits<N>>,
    pub hit_b: Signal<Out, Bits<N>>,
    pub rdata: Signal<Out, Bits<W>>,
    pub rvalid: Signal<Out, Bit>,
    _depth: usize,
    _width: usize,
    _used: usize,
    /// Simulation state: entries (valid, data) and the registered outputs.
    _entries: Vec<(bool, Bits<W>)>,
    _out: (Bits<N>, Bits<N>, Bits<W>, bool),
}

impl<const AB: usize, const N: usize, const S: usize, const W: usize> Cam<AB, N, S, W> {
    /// `S` segments of `depth` entries, of which the first `used` segments exist, each entry
    /// `width` bits.
    pub fn new(depth: usize, width: usize, used: usize) -> Self {
        assert_eq!(S * SEG_SLOTS, N);
        assert_eq!(N, 1 << AB);
        assert!((1..=SEG_SLOTS).contains(&depth));
        assert!((1..=W).contains(&width) && (1..=S).contains(&used));
        Cam {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            key_a: Default::default(),
            key_b: Default::default(),
            raddr: Default::default(),
            hit_a: Default::default(),
            hit_b: Default::default(),
            rdata: Default::default(),
            rvalid: Default::default(),
            _depth: depth,
            _width: width,
            _used: used,
            _entries: vec![(false, Bits::default()); 1 << AB],
            _out: Default::default(),
        }
    }
}

impl<const AB: usize, const N: usize, const S: usize, const W: usize> Logic for Cam<AB, N, S, W> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let mask = crate::narrow_ram::low_bits::<W>(self._width);
            let clear = self.clear.val();
            let write = self.waddr.val().index();
            for (e, entry) in self._entries.iter_mut().enumerate() {
                let seg = e >> SEG_BITS;
                let live = seg < self._used && e % SEG_SLOTS < self._depth;
                if !live || self.reset.val() {
                    *entry = (false, Bits::default());
                    continue;
                }
                if clear.get_bit(seg) {
                    entry.0 = false;
                }
                if self.we.val() && write == e {
                    *entry = (true, self.wdata.val() & mask);
                }
            }
            let (ka, kb) = (self.key_a.val() & mask, self.key_b.val() & mask);
            let (mut ha, mut hb) = (Bits::<N>::default(), Bits::<N>::default());
            for (e, &(valid, data)) in self._entries.iter().enumerate() {
                ha = ha.replace_bit(e, valid && data == ka);
                hb = hb.replace_bit(e, valid && data == kb);
            }
            let (valid, data) = self._entries[self.raddr.val().index()];
            self._out = (ha, hb, data, valid);
            if self.reset.val() {
                self._out = Default::default();
            }
        }
        self.hit_a.next = self._out.0;
        self.hit_b.next = self._out.1;
        self.rdata.next = self._out.2;
        self.rvalid.next = self._out.3;
    }

    fn connect(&mut self) {
        self.hit_a.connect();
        self.hit_b.connect();
        self.rdata.connect();
        self.rvalid.connect();
    }

    fn hdl(&self) -> Verilog {
        let (wb, n) = (self._width, N);
        let unused = if wb < W {
            format!(
                "wire unused_high = ^{{wdata[{m}:{wb}], key_a[{m}:{wb}], key_b[{m}:{wb}]}};\n",
                m = W - 1
            )
        } else {
            String::new()
        };
        let read = if wb == W {
            format!("d_next[raddr * {wb} +: {wb}]")
        } else {
            format!("{{{}'d0, d_next[raddr * {wb} +: {wb}]}}", W - wb)
        };
        Verilog::Custom(format!(
            "\
// The entries as this edge leaves them: cleared segments emptied, then the write.
wire [{nmsb}:0] v_next;
wire [{dmsb}:0] d_next;
wire [{nmsb}:0] match_a;
wire [{nmsb}:0] match_b;
{unused}genvar e;
generate
   for (e = 0; e < {n}; e = e + 1) begin : entry
      localparam integer SEG = e / {slots};
      localparam [{amsb}:0] ADDR = e;
      if (SEG < {used} && e % {slots} < {depth}) begin : live
         reg v;
         reg [{wmsb}:0] data;
         wire wr = we && waddr == ADDR;
         assign v_next[e] = wr || (v && !clear[SEG]);
         assign d_next[e * {wb} +: {wb}] = wr ? wdata[{wmsb}:0] : data;
         always @(posedge clock) begin
            v <= reset ? 1'b0 : v_next[e];
            data <= d_next[e * {wb} +: {wb}];
         end
      end else begin : absent
         assign v_next[e] = 1'b0;
         assign d_next[e * {wb} +: {wb}] = {wb}'d0;
      end
      assign match_a[e] = v_next[e] && d_next[e * {wb} +: {wb}] == key_a[{wmsb}:0];
      assign match_b[e] = v_next[e] && d_next[e * {wb} +: {wb}] == key_b[{wmsb}:0];
   end
endgenerate
always @(posedge clock) begin
   hit_a <= reset ? {n}'d0 : match_a;
   hit_b <= reset ? {n}'d0 : match_b;
   rdata <= reset ? {W}'d0 : {read};
   rvalid <= !reset && v_next[raddr];
end
",
            nmsb = n - 1,
            dmsb = n * wb - 1,
            amsb = AB - 1,
            wmsb = wb - 1,
            slots = SEG_SLOTS,
            depth = self._depth,
            used = self._used,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![]
    }
}
