//! The AXI4-Lite bridge in hardware: an AXI4-Lite slave in front of a block's CSR bus, cycle for
//! cycle the bridge of `switchcraft_core::axil` (its module doc states the protocol and the
//! access rules). Every AXI4-Lite output and every CSR bus output is a register or a constant
//! function of registers, so the bridge adds no path from its inputs to its outputs.
//!
//! Its phase is one-hot (`in_write` .. `in_rresp`, all zero at idle): each ready and valid
//! output is one flip-flop.

use rust_hdl::prelude::*;
use switchcraft_core::axil::Rules;
use switchcraft_core::csr::{RegMap, CSR_ADDR_BITS};

/// `CSR_ADDR_BITS`, as the const generic rust-hdl's `Bits` take.
const AB: usize = CSR_ADDR_BITS as usize;
/// Address bits the bridge sees: the word index (`s_axil_*addr[7:2]`; the wrapper drops [1:0]).
const WORDS: usize = 1 << AB;

#[derive(LogicBlock)]
pub struct AxilBridge {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: back to idle, every register cleared.
    pub reset: Signal<In, Bit>,
    pub awvalid: Signal<In, Bit>,
    pub awword: Signal<In, Bits<AB>>,
    pub wvalid: Signal<In, Bit>,
    pub wdata: Signal<In, Bits<32>>,
    pub wstrb: Signal<In, Bits<4>>,
    pub bready: Signal<In, Bit>,
    pub arvalid: Signal<In, Bit>,
    pub arword: Signal<In, Bits<AB>>,
    pub rready: Signal<In, Bit>,
    pub awready: Signal<Out, Bit>,
    pub wready: Signal<Out, Bit>,
    pub bvalid: Signal<Out, Bit>,
    pub bresp: Signal<Out, Bits<2>>,
    pub arready: Signal<Out, Bit>,
    pub rvalid: Signal<Out, Bit>,
    pub rdata: Signal<Out, Bits<32>>,
    pub rresp: Signal<Out, Bits<2>>,
    /// The block's CSR bus.
    pub csr_we: Signal<Out, Bit>,
    pub csr_addr: Signal<Out, Bits<AB>>,
    pub csr_wdata: Signal<Out, Bits<32>>,
    pub csr_rdata: Signal<In, Bits<32>>,

    in_write: DFF<Bit>,
    in_wresp: DFF<Bit>,
    in_read: DFF<Bit>,
    in_rdata: DFF<Bit>,
    in_rresp: DFF<Bit>,
    /// The transaction's CSR word; its data (write data, then read data); its verdict.
    word: DFF<Bits<AB>>,
    data: DFF<Bits<32>>,
    ok: DFF<Bit>,
    last_read: DFF<Bit>,
    /// The access rules, bit k for word k (`Rules`).
    readable: Constant<Bits<WORDS>>,
    writable: Constant<Bits<WORDS>>,
    lane0: Constant<Bits<WORDS>>,
    lane1: Constant<Bits<WORDS>>,
    lane2: Constant<Bits<WORDS>>,
    lane3: Constant<Bits<WORDS>>,
    slverr: Constant<Bits<2>>,
    idle: Signal<Local, Bit>,
    take_read: Signal<Local, Bit>,
    take_write: Signal<Local, Bit>,
    lanes_missed: Signal<Local, Bit>,
    resp: Signal<Local, Bits<2>>,
}

impl AxilBridge {
    pub fn new(map: &RegMap) -> Self {
        let rules = Rules::new(map);
        let mask = |m: u64| Constant::new(Bits::<WORDS>::from(m));
        AxilBridge {
            clock: Default::default(),
            reset: Default::default(),
            awvalid: Default::default(),
            awword: Default::default(),
            wvalid: Default::default(),
            wdata: Default::default(),
            wstrb: Default::default(),
            bready: Default::default(),
            arvalid: Default::default(),
            arword: Default::default(),
            rready: Default::default(),
            awready: Default::default(),
            wready: Default::default(),
            bvalid: Default::default(),
            bresp: Default::default(),
            arready: Default::default(),
            rvalid: Default::default(),
            rdata: Default::default(),
            rresp: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            csr_rdata: Default::default(),
            in_write: Default::default(),
            in_wresp: Default::default(),
            in_read: Default::default(),
            in_rdata: Default::default(),
            in_rresp: Default::default(),
            word: Default::default(),
            data: Default::default(),
            ok: Default::default(),
            last_read: Default::default(),
            readable: mask(rules.readable),
            writable: mask(rules.writable),
            lane0: mask(rules.lanes[0]),
            lane1: mask(rules.lanes[1]),
            lane2: mask(rules.lanes[2]),
            lane3: mask(rules.lanes[3]),
            slverr: Constant::new(Bits::<2>::from(switchcraft_core::axil::SLVERR)),
            idle: Default::default(),
            take_read: Default::default(),
            take_write: Default::default(),
            lanes_missed: Default::default(),
            resp: Default::default(),
        }
    }
}

impl Logic for AxilBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, in_write, in_wresp, in_read, in_rdata, in_rresp, word, data, ok, last_read
        );
        self.idle.next = !(self.in_write.q.val()
            | self.in_wresp.q.val()
            | self.in_read.q.val()
            | self.in_rdata.q.val()
            | self.in_rresp.q.val());
        // At idle a waiting read goes first unless the last transaction was a read and a
        // write waits too: they take turns.
        self.take_read.next = self.idle.val()
            & self.arvalid.val()
            & !(self.last_read.q.val() & self.awvalid.val() & self.wvalid.val());
        self.take_write.next =
            self.idle.val() & self.awvalid.val() & self.wvalid.val() & !self.take_read.val();
        self.lanes_missed.next = (self.lane0.val().get_bit(self.awword.val().index())
            & !self.wstrb.val().get_bit(0))
            | (self.lane1.val().get_bit(self.awword.val().index()) & !self.wstrb.val().get_bit(1))
            | (self.lane2.val().get_bit(self.awword.val().index()) & !self.wstrb.val().get_bit(2))
            | (self.lane3.val().get_bit(self.awword.val().index()) & !self.wstrb.val().get_bit(3));

        if self.take_read.val() {
            self.word.d.next = self.arword.val();
            self.ok.d.next = self.readable.val().get_bit(self.arword.val().index());
            self.last_read.d.next = true;
        }
        if self.take_write.val() {
            self.word.d.next = self.awword.val();
            self.data.d.next = self.wdata.val();
            self.ok.d.next =
                self.writable.val().get_bit(self.awword.val().index()) & !self.lanes_missed.val();
            self.last_read.d.next = false;
        }
        if self.in_rdata.q.val() {
            self.data.d.next = 0.into();
            if self.ok.q.val() {
                self.data.d.next = self.csr_rdata.val();
            }
        }
        self.in_write.d.next = self.take_write.val();
        self.in_wresp.d.next = self.in_write.q.val() | (self.in_wresp.q.val() & !self.bready.val());
        self.in_read.d.next = self.take_read.val();
        self.in_rdata.d.next = self.in_read.q.val();
        self.in_rresp.d.next = self.in_rdata.q.val() | (self.in_rresp.q.val() & !self.rready.val());
        if self.reset.val() {
            self.in_write.d.next = false;
            self.in_wresp.d.next = false;
            self.in_read.d.next = false;
            self.in_rdata.d.next = false;
            self.in_rresp.d.next = false;
            self.word.d.next = 0.into();
            self.data.d.next = 0.into();
            self.ok.d.next = false;
            self.last_read.d.next = false;
        }

        self.awready.next = self.in_write.q.val();
        self.wready.next = self.in_write.q.val();
        self.bvalid.next = self.in_wresp.q.val();
        self.arready.next = self.in_read.q.val();
        self.rvalid.next = self.in_rresp.q.val();
        self.rdata.next = self.data.q.val();
        self.resp.next = 0.into();
        if !self.ok.q.val() {
            self.resp.next = self.slverr.val();
        }
        self.bresp.next = self.resp.val();
        self.rresp.next = self.resp.val();
        self.csr_we.next = self.in_write.q.val() & self.ok.q.val();
        self.csr_addr.next = self.word.q.val();
        self.csr_wdata.next = self.data.q.val();
    }
}

/// rust-hdl's Verilog of the bridge for `map` (module `top`).
pub fn bridge_verilog(map: &RegMap) -> String {
    let mut bridge = AxilBridge::new(map);
    bridge.connect_all();
    generate_verilog(&bridge)
}
