//! `K` rows of `R` flag bits in flip-flops, with one clear port and one set port per edge and
//! three row reads. CaPFC keeps its E bits here: row = egress key `{port, priority}` (priority
//! in the low `prio_bits` bits), bit = ingress port.
//!
//! On an edge, a valid clear empties row `clear_key`, then a valid set ORs `set_bits` into row
//! `set_key` (so clearing and setting one row leaves exactly `set_bits`). Synchronous reset
//! empties every row. Only the bits that can ever be set are flip-flops: rows of existing
//! (port, priority) keys, and in them the lanes of the other existing ports (an egress port
//! never flags itself); every other bit is a constant 0, so synthesis keeps neither its
//! flip-flop nor its share of the read multiplexers.
//!
//! Outputs, all as they are before the edge: three rows, row `n` selected by a key that
//! `next_key<n>` loaded on the previous edge, and the whole matrix (`F = K * R` bits, row k at
//! `[k * R +: R]`) for the formal properties. The keys are registered here, so no output depends
//! combinationally on an input: the parent's single combinational block (rust-hdl's form) may
//! then both drive the keys and read the rows without a false loop for Verilator (UNOPTFLAT). The
//! parent drives `next_key<n>` with what its own key register loads, so the row is ready at the
//! start of the cycle. Each read is a balanced 2:1 multiplexer tree; an indexed part-select of
//! the flat matrix would become a barrel shifter over all `K * R` bits, which dominated CaPFC
//! `paper`'s synthesis. A leaf with its own Verilog because rust-hdl cannot address a row of a
//! register array.

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
    pub next_key0: Signal<In, Bits<KB>>,
    pub next_key1: Signal<In, Bits<KB>>,
    pub next_key2: Signal<In, Bits<KB>>,
    /// Row `next_key0` of the previous edge.
    pub row0: Signal<Out, Bits<R>>,
    pub row1: Signal<Out, Bits<R>>,
    pub row2: Signal<Out, Bits<R>>,
    /// Every row.
    pub rows: Signal<Out, Bits<F>>,
    _ports: usize,
    _priorities: usize,
    _prio_bits: usize,
    /// Per row, the bits that can be set.
    _lanes: Vec<Bits<R>>,
    _rows: Vec<Bits<R>>,
    _keys: [Bits<KB>; 3],
}

impl<const KB: usize, const K: usize, const R: usize, const F: usize> FlagRows<KB, K, R, F> {
    /// Rows for `ports` x `priorities` keys whose priority takes the low `prio_bits` key bits.
    pub fn new(ports: usize, priorities: usize, prio_bits: usize) -> Self {
        assert_eq!(1 << KB, K);
        assert_eq!(F, K * R);
        assert!((1..=R).contains(&ports) && ports << prio_bits <= K);
        assert!((1..=1 << prio_bits).contains(&priorities));
        let all_ports = crate::narrow_ram::low_bits::<R>(ports);
        let lanes = (0..K)
            .map(|k| {
                let (port, prio) = (k >> prio_bits, k & ((1 << prio_bits) - 1));
                if port < ports && prio < priorities {
                    all_ports & !(Bits::<R>::from(1u64) << port as u64)
                } else {
                    Bits::default()
                }
            })
            .collect();
        FlagRows {
            clock: Default::default(),
            reset: Default::default(),
            clear_valid: Default::default(),
            clear_key: Default::default(),
            set_valid: Default::default(),
            set_key: Default::default(),
            set_bits: Default::default(),
            next_key0: Default::default(),
            next_key1: Default::default(),
            next_key2: Default::default(),
            row0: Default::default(),
            row1: Default::default(),
            row2: Default::default(),
            rows: Default::default(),
            _ports: ports,
            _priorities: priorities,
            _prio_bits: prio_bits,
            _lanes: lanes,
            _rows: vec![Bits::default(); K],
            _keys: [Bits::default(); 3],
        }
    }

    /// Read port `n`: its key register and one balanced 2:1 multiplexer tree selecting row
    /// `key<n>` into `row<n>`: level `l` has `2^l` nodes steered by key bit `KB - 1 - l`; level
    /// `KB` is the rows themselves.
    fn read_port(n: usize) -> String {
        let (name, key) = (format!("row{n}_tree"), format!("key{n}"));
        let mut v = format!(
            "   reg [{}:0] {key};\n   always @(posedge clock) {key} <= next_key{n};\n",
            KB - 1
        );
        for l in 0..KB {
            v += &format!("   wire [{}:0] {name}_l{l};\n", (R << l) - 1);
        }
        for l in (0..KB).rev() {
            let child = if l + 1 == KB {
                "rows".to_string()
            } else {
                format!("{name}_l{}", l + 1)
            };
            v += &format!(
                "   for (i = 0; i < {count}; i = i + 1) begin : {name}_node{l}
      assign {name}_l{l}[i * {R} +: {R}] = {key}[{bit}] ? {child}[(2 * i + 1) * {R} +: {R}] : {child}[2 * i * {R} +: {R}];
   end
",
                count = 1usize << l,
                bit = KB - 1 - l,
            );
        }
        v += &format!("   always @(*) row{n} = {name}_l0;\n");
        v
    }
}

impl<const KB: usize, const K: usize, const R: usize, const F: usize> Logic
    for FlagRows<KB, K, R, F>
{
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self._keys = [
                self.next_key0.val(),
                self.next_key1.val(),
                self.next_key2.val(),
            ];
            if self.reset.val() {
                self._rows.fill(Bits::default());
            } else {
                if self.clear_valid.val() {
                    self._rows[self.clear_key.val().index()] = Bits::default();
                }
                if self.set_valid.val() {
                    let k = self.set_key.val().index();
                    self._rows[k] = self._rows[k] | (self.set_bits.val() & self._lanes[k]);
                }
            }
        }
        let mut flat = Bits::<F>::default();
        for (k, row) in self._rows.iter().enumerate() {
            flat = flat | (bit_cast::<F, R>(*row) << (k * R) as u64);
        }
        self.rows.next = flat;
        self.row0.next = self._rows[self._keys[0].index()];
        self.row1.next = self._rows[self._keys[1].index()];
        self.row2.next = self._rows[self._keys[2].index()];
    }

    fn connect(&mut self) {
        self.rows.connect();
        self.row0.connect();
        self.row1.connect();
        self.row2.connect();
    }

    fn hdl(&self) -> Verilog {
        let all_ports = crate::narrow_ram::low_bits::<R>(self._ports);
        let mut v = format!(
            "\
genvar k, i;
generate
   for (k = 0; k < {K}; k = k + 1) begin : row
      localparam [{kmsb}:0] KEY = k;
      localparam integer PORT = k / {prio_span};
      localparam integer PRIO = k % {prio_span};
      // The bits that can be set: the other existing ports, in rows of existing keys.
      localparam [{rmsb}:0] LANES = (PORT < {ports} && PRIO < {priorities})
         ? {R}'h{all_ports:x} & ~({R}'d1 << PORT) : {R}'d0;
      reg [{rmsb}:0] r;
      wire clear_here = clear_valid && clear_key == KEY;
      wire set_here = set_valid && set_key == KEY;
      always @(posedge clock) begin
         if (reset) r <= {R}'d0;
         else if (clear_here) r <= set_here ? set_bits & LANES : {R}'d0;
         else if (set_here) r <= r | (set_bits & LANES);
      end
      always @(*) rows[k * {R} +: {R}] = r;
   end
",
            kmsb = KB - 1,
            rmsb = R - 1,
            prio_span = 1usize << self._prio_bits,
            ports = self._ports,
            priorities = self._priorities,
        );
        for n in 0..3 {
            v += &Self::read_port(n);
        }
        v += "endgenerate\n";
        Verilog::Custom(v)
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![]
    }
}
