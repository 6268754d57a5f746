//! AXI4-Lite access to a block's CSR bank: the bridge's cycle model, and a block model with the
//! bridge in front of its CSR bus.
//!
//! The bridge (RTL: crates/rtl/src/axil.rs, top `<instance>_axil_top`) is an AXI4-Lite slave
//! that serves one transaction at a time, every output a register:
//!
//! * **Write.** Idle, it waits for `awvalid` and `wvalid` both, captures address, data and the
//!   verdict of the access rules on that edge, raises `awready` and `wready` together for one
//!   cycle (the handshake), drives the CSR write in that cycle if the verdict allows it, and then
//!   holds `bvalid` until `bready`.
//! * **Read.** Idle, it captures `araddr` on the edge that sees `arvalid`, raises `arready` for
//!   one cycle while it drives the word onto `csr_addr`, captures `csr_rdata` the cycle after,
//!   and holds `rvalid` with that data until `rready`.
//! * When a read and a write both wait at Idle, they take turns: the one not served last goes.
//! * `SLVERR` (`bresp`/`rresp` = 2) answers a word no register holds, a write to a read-only
//!   word (`Const`, `Ro`), and a write whose `wstrb` misses a byte lane the field occupies; such
//!   a write changes nothing, such a read returns 0. Byte lanes above the field are don't-care.
//! * Address bits [1:0] are ignored (word accesses); bits [7:2] are the CSR word index.
//!
//! Reading a CSR has no side effect in any block, so a read is safe to retry or speculate.

use crate::csr::{Access, RegMap, CSR_ADDR_BITS, CSR_DATA_BITS};
use crate::{mask, Dir, DynModel, Port, PortSchema};

/// Width of `s_axil_awaddr`/`s_axil_araddr`: a byte address of the CSR words.
pub const ADDR_BITS: u32 = CSR_ADDR_BITS + 2;
pub const OKAY: u64 = 0;
pub const SLVERR: u64 = 2;
/// The response of an interconnect to an address no slave decodes.
pub const DECERR: u64 = 3;

/// The AXI4-Lite slave ports, inputs then outputs, in schema order.
pub fn ports() -> Vec<Port> {
    vec![
        Port::input("s_axil_awvalid", 1, "AXI4-Lite write address valid"),
        Port::input(
            "s_axil_awaddr",
            ADDR_BITS,
            "write byte address (bits 1:0 ignored)",
        ),
        Port::input("s_axil_wvalid", 1, "write data valid"),
        Port::input("s_axil_wdata", CSR_DATA_BITS, "write data"),
        Port::input("s_axil_wstrb", 4, "write byte strobes"),
        Port::input("s_axil_bready", 1, "write response ready"),
        Port::input("s_axil_arvalid", 1, "read address valid"),
        Port::input(
            "s_axil_araddr",
            ADDR_BITS,
            "read byte address (bits 1:0 ignored)",
        ),
        Port::input("s_axil_rready", 1, "read data ready"),
        Port::output("s_axil_awready", 1, "write address ready"),
        Port::output("s_axil_wready", 1, "write data ready"),
        Port::output("s_axil_bvalid", 1, "write response valid"),
        Port::output("s_axil_bresp", 2, "write response: 0 OKAY, 2 SLVERR"),
        Port::output("s_axil_arready", 1, "read address ready"),
        Port::output("s_axil_rvalid", 1, "read data valid"),
        Port::output("s_axil_rdata", CSR_DATA_BITS, "read data"),
        Port::output("s_axil_rresp", 2, "read response: 0 OKAY, 2 SLVERR"),
    ]
}

/// The CSR bus ports the bridge drives, which the AXI4-Lite top does not have.
pub const CSR_PORTS: [&str; 4] = ["csr_we", "csr_addr", "csr_wdata", "csr_rdata"];

/// The port schema of a block's `<instance>_axil_top`: the block's ports without its CSR bus,
/// then the AXI4-Lite slave's.
pub fn schema(block: &PortSchema) -> PortSchema {
    for name in CSR_PORTS {
        assert!(
            block.ports.iter().any(|p| p.name == name),
            "{}: no CSR port {name}",
            block.block
        );
    }
    let kept = block
        .ports
        .iter()
        .filter(|p| !CSR_PORTS.contains(&p.name.as_str()))
        .cloned();
    let (ins, outs): (Vec<Port>, Vec<Port>) = kept.partition(|p| p.dir == Dir::In);
    let (axi_ins, axi_outs): (Vec<Port>, Vec<Port>) =
        ports().into_iter().partition(|p| p.dir == Dir::In);
    let ports = ins.into_iter().chain(axi_ins).chain(outs).chain(axi_outs);
    PortSchema::new(&block.block, ports.collect())
}

/// The access rules of a register map, per CSR word: bit k of each mask is word k.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Words a register holds.
    pub readable: u64,
    /// Words software may write (`Rw`, `Rw1c`, `Window`).
    pub writable: u64,
    /// `lanes[j]`: words whose field occupies byte lane j, which a write must strobe.
    pub lanes: [u64; 4],
}

impl Rules {
    pub fn new(map: &RegMap) -> Self {
        let mut rules = Rules {
            readable: 0,
            writable: 0,
            lanes: [0; 4],
        };
        for r in &map.regs {
            let bit = 1u64 << r.index;
            rules.readable |= bit;
            if matches!(r.access, Access::Rw | Access::Rw1c | Access::Window) {
                rules.writable |= bit;
            }
            for (j, lane) in rules.lanes.iter_mut().enumerate() {
                if r.width > 8 * j as u32 {
                    *lane |= bit;
                }
            }
        }
        rules
    }

    pub fn read_ok(&self, word: u64) -> bool {
        self.readable >> word & 1 == 1
    }

    pub fn write_ok(&self, word: u64, wstrb: u64) -> bool {
        let lanes_missed = (0..4).any(|j| self.lanes[j] >> word & 1 == 1 && wstrb >> j & 1 == 0);
        self.writable >> word & 1 == 1 && !lanes_missed
    }
}

/// Where the bridge is in its one transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Idle,
    /// `awready` = `wready` = 1: the handshake cycle, which also drives the CSR write.
    Write,
    /// `bvalid` = 1 until `bready`.
    WriteResp,
    /// `arready` = 1: the handshake cycle, which also drives `csr_addr`.
    Read,
    /// `csr_rdata` holds the word; captured on this cycle's edge.
    ReadData,
    /// `rvalid` = 1 until `rready`.
    ReadResp,
}

/// The AXI4-Lite inputs of one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AxilIn {
    pub awvalid: bool,
    pub awaddr: u64,
    pub wvalid: bool,
    pub wdata: u64,
    pub wstrb: u64,
    pub bready: bool,
    pub arvalid: bool,
    pub araddr: u64,
    pub rready: bool,
}

/// The AXI4-Lite outputs after an edge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AxilOut {
    pub awready: bool,
    pub wready: bool,
    pub bvalid: bool,
    pub bresp: u64,
    pub arready: bool,
    pub rvalid: bool,
    pub rdata: u64,
    pub rresp: u64,
}

/// The CSR bus cycle the bridge drives.
impl AxilIn {
    /// The 9 input values in schema order (`s_axil_awvalid` .. `s_axil_rready`).
    pub fn from_values(v: &[u64]) -> Self {
        AxilIn {
            awvalid: v[0] == 1,
            awaddr: v[1],
            wvalid: v[2] == 1,
            wdata: v[3],
            wstrb: v[4],
            bready: v[5] == 1,
            arvalid: v[6] == 1,
            araddr: v[7],
            rready: v[8] == 1,
        }
    }

    pub fn to_values(&self) -> [u64; 9] {
        [
            u64::from(self.awvalid),
            self.awaddr,
            u64::from(self.wvalid),
            self.wdata,
            self.wstrb,
            u64::from(self.bready),
            u64::from(self.arvalid),
            self.araddr,
            u64::from(self.rready),
        ]
    }
}

impl AxilOut {
    /// The 8 output values in schema order (`s_axil_awready` .. `s_axil_rresp`).
    pub fn from_values(v: &[u64]) -> Self {
        AxilOut {
            awready: v[0] == 1,
            wready: v[1] == 1,
            bvalid: v[2] == 1,
            bresp: v[3],
            arready: v[4] == 1,
            rvalid: v[5] == 1,
            rdata: v[6],
            rresp: v[7],
        }
    }

    pub fn to_values(&self) -> [u64; 8] {
        [
            u64::from(self.awready),
            u64::from(self.wready),
            u64::from(self.bvalid),
            self.bresp,
            u64::from(self.arready),
            u64::from(self.rvalid),
            self.rdata,
            self.rresp,
        ]
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CsrDrive {
    pub we: bool,
    pub addr: u64,
    pub wdata: u64,
}

/// The bridge's registers and their next-state function.
#[derive(Clone, Debug)]
pub struct Bridge {
    rules: Rules,
    phase: Phase,
    /// The CSR word of the transaction.
    word: u64,
    /// Write data, then read data (one register serves both).
    data: u64,
    /// The access rules allow the transaction.
    ok: bool,
    /// The last transaction chosen at Idle was a read.
    last_read: bool,
}

impl Bridge {
    pub fn new(rules: Rules) -> Self {
        Bridge {
            rules,
            phase: Phase::Idle,
            word: 0,
            data: 0,
            ok: false,
            last_read: false,
        }
    }

    pub fn reset(&mut self) {
        *self = Bridge::new(self.rules);
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The CSR bus in this cycle (from registers only).
    pub fn csr(&self) -> CsrDrive {
        CsrDrive {
            we: self.phase == Phase::Write && self.ok,
            addr: self.word,
            wdata: self.data,
        }
    }

    /// The AXI4-Lite outputs in this cycle (from registers only).
    pub fn outputs(&self) -> AxilOut {
        let resp = if self.ok { OKAY } else { SLVERR };
        AxilOut {
            awready: self.phase == Phase::Write,
            wready: self.phase == Phase::Write,
            bvalid: self.phase == Phase::WriteResp,
            bresp: resp,
            arready: self.phase == Phase::Read,
            rvalid: self.phase == Phase::ReadResp,
            rdata: self.data,
            rresp: resp,
        }
    }

    /// One rising edge: `i` the AXI4-Lite inputs, `csr_rdata` the core's read data in this
    /// cycle (its value before the edge).
    pub fn edge(&mut self, i: &AxilIn, csr_rdata: u64) {
        let word = |addr: u64| addr >> 2 & mask(CSR_ADDR_BITS);
        match self.phase {
            Phase::Idle => {
                let write = i.awvalid && i.wvalid;
                let read = i.arvalid && (!write || !self.last_read);
                if read {
                    self.word = word(i.araddr);
                    self.ok = self.rules.read_ok(self.word);
                    self.phase = Phase::Read;
                    self.last_read = true;
                } else if write {
                    self.word = word(i.awaddr);
                    self.data = i.wdata & mask(CSR_DATA_BITS);
                    self.ok = self.rules.write_ok(self.word, i.wstrb);
                    self.phase = Phase::Write;
                    self.last_read = false;
                }
            }
            Phase::Write => self.phase = Phase::WriteResp,
            Phase::Read => self.phase = Phase::ReadData,
            Phase::ReadData => {
                self.data = if self.ok { csr_rdata } else { 0 };
                self.phase = Phase::ReadResp;
            }
            Phase::WriteResp if i.bready => self.phase = Phase::Idle,
            Phase::ReadResp if i.rready => self.phase = Phase::Idle,
            Phase::WriteResp | Phase::ReadResp => {}
        }
    }
}

/// A block's model with the bridge in front of its CSR bus: the model of `<instance>_axil_top`
/// (port schema [`schema`]).
pub struct AxilBlock {
    inner: Box<dyn DynModel + Send>,
    bridge: Bridge,
    schema: PortSchema,
    /// Per inner input: its position among this schema's inputs, or the CSR port it is.
    inner_inputs: Vec<Source>,
    /// Per inner output kept: (inner output position, position among this schema's outputs).
    kept_outputs: Vec<(usize, usize)>,
    /// Positions of the AXI4-Lite inputs and outputs in this schema's value order.
    axil_in: usize,
    axil_out: usize,
    csr_rdata: usize,
    inner_in: Vec<u64>,
    inner_out: Vec<u64>,
}

#[derive(Clone, Copy, Debug)]
enum Source {
    Outer(usize),
    We,
    Addr,
    Wdata,
}

impl AxilBlock {
    pub fn new(inner: Box<dyn DynModel + Send>, map: &RegMap) -> Self {
        let block = inner.ports().clone();
        let schema = schema(&block);
        let inner_inputs = block
            .inputs()
            .map(|p| match p.name.as_str() {
                "csr_we" => Source::We,
                "csr_addr" => Source::Addr,
                "csr_wdata" => Source::Wdata,
                name => Source::Outer(schema.input_index(name).expect("kept input")),
            })
            .collect();
        let kept_outputs = block
            .outputs()
            .enumerate()
            .filter(|(_, p)| p.name != "csr_rdata")
            .map(|(k, p)| (k, schema.output_index(&p.name).expect("kept output")))
            .collect();
        AxilBlock {
            bridge: Bridge::new(Rules::new(map)),
            axil_in: schema.input_index("s_axil_awvalid").expect("axil input"),
            axil_out: schema.output_index("s_axil_awready").expect("axil output"),
            csr_rdata: block.output_index("csr_rdata").expect("csr_rdata"),
            inner_in: vec![0; block.input_count()],
            inner_out: vec![0; block.output_count()],
            inner_inputs,
            kept_outputs,
            schema,
            inner,
        }
    }

    pub fn bridge(&self) -> &Bridge {
        &self.bridge
    }
}

impl DynModel for AxilBlock {
    fn ports(&self) -> &PortSchema {
        &self.schema
    }

    fn reset(&mut self) {
        self.inner.reset();
        self.bridge.reset();
        self.inner_out.fill(0);
    }

    fn step_values(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let drive = self.bridge.csr();
        for (k, source) in self.inner_inputs.iter().enumerate() {
            self.inner_in[k] = match *source {
                Source::Outer(i) => inputs[i],
                Source::We => u64::from(drive.we),
                Source::Addr => drive.addr,
                Source::Wdata => drive.wdata,
            };
        }
        // csr_rdata as it is in this cycle: the inner outputs of the previous edge.
        let csr_rdata = self.inner_out[self.csr_rdata];
        self.inner.step_values(&self.inner_in, &mut self.inner_out);
        let a = AxilIn::from_values(&inputs[self.axil_in..self.axil_in + 9]);
        self.bridge.edge(&a, csr_rdata);
        for &(from, to) in &self.kept_outputs {
            outputs[to] = self.inner_out[from];
        }
        outputs[self.axil_out..self.axil_out + 8]
            .copy_from_slice(&self.bridge.outputs().to_values());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::Reg;

    fn map() -> RegMap {
        let reg = |name, index, width, access, reset| Reg {
            name,
            index,
            width,
            access,
            reset,
            doc: "",
        };
        RegMap::new(
            "t",
            vec![
                reg("id", 0, 32, Access::Const, 0x1234_5678),
                reg("narrow", 1, 4, Access::Rw, 3),
                reg("wide", 2, 20, Access::Rw, 0),
                reg("flags", 3, 8, Access::Rw1c, 0),
                reg("status", 5, 16, Access::Ro, 0),
            ],
        )
    }

    #[test]
    fn rules_follow_the_register_map() {
        let r = Rules::new(&map());
        assert!(r.read_ok(0) && r.read_ok(5) && !r.read_ok(4) && !r.read_ok(63));
        assert!(!r.write_ok(0, 0xf), "a constant is read-only");
        assert!(!r.write_ok(5, 0xf), "a status word is read-only");
        assert!(!r.write_ok(4, 0xf), "no register at word 4");
        assert!(r.write_ok(1, 0x1), "a 4-bit field needs lane 0 only");
        assert!(!r.write_ok(1, 0xe));
        assert!(
            r.write_ok(2, 0x7) && !r.write_ok(2, 0x3),
            "20 bits need lanes 0..=2"
        );
        assert!(r.write_ok(3, 0x1));
    }

    /// Runs the bridge against a plain register file (reads see values before the edge).
    struct Bench {
        bridge: Bridge,
        csr: crate::csr::CsrFile,
        rdata: u64,
        cycles: u32,
    }

    impl Bench {
        fn new() -> Self {
            let map = map();
            Bench {
                bridge: Bridge::new(Rules::new(&map)),
                csr: crate::csr::CsrFile::new(&map),
                rdata: 0,
                cycles: 0,
            }
        }

        fn edge(&mut self, i: &AxilIn) -> AxilOut {
            let d = self.bridge.csr();
            self.bridge.edge(i, self.rdata);
            self.rdata = self.csr.access(d.we, d.addr, d.wdata);
            self.cycles += 1;
            self.bridge.outputs()
        }

        /// A write held until its handshake, then the response taken: (bresp, cycles).
        fn write(&mut self, addr: u64, wdata: u64, wstrb: u64) -> (u64, u32) {
            let start = self.cycles;
            let mut i = AxilIn {
                awvalid: true,
                awaddr: addr,
                wvalid: true,
                wdata,
                wstrb,
                bready: true,
                ..AxilIn::default()
            };
            loop {
                let before = self.bridge.outputs();
                if before.awready {
                    i.awvalid = false;
                    i.wvalid = false;
                }
                if before.bvalid {
                    self.edge(&i);
                    return (before.bresp, self.cycles - start);
                }
                self.edge(&i);
            }
        }

        fn read(&mut self, addr: u64) -> (u64, u64, u32) {
            let start = self.cycles;
            let mut i = AxilIn {
                arvalid: true,
                araddr: addr,
                rready: true,
                ..AxilIn::default()
            };
            loop {
                let before = self.bridge.outputs();
                if before.arready {
                    i.arvalid = false;
                }
                if before.rvalid {
                    self.edge(&i);
                    return (before.rresp, before.rdata, self.cycles - start);
                }
                self.edge(&i);
            }
        }
    }

    #[test]
    fn writes_and_reads_follow_the_access_rules() {
        let mut b = Bench::new();
        assert_eq!(b.read(0x0), (OKAY, 0x1234_5678, 4), "the ID word, 4 cycles");
        assert_eq!(b.read(0x4), (OKAY, 3, 4), "reset value");
        assert_eq!(b.write(0x4, 0xffff_fffa, 0x1), (OKAY, 3), "3 cycles");
        assert_eq!(b.read(0x4), (OKAY, 0xa, 4), "the field's 4 bits");
        assert_eq!(b.read(0x7), (OKAY, 0xa, 4), "address bits 1:0 ignored");
        assert_eq!(b.write(0x8, 0xabcde, 0x3).0, SLVERR, "lane 2 missing");
        assert_eq!(
            b.read(0x8),
            (OKAY, 0, 4),
            "the refused write changed nothing"
        );
        assert_eq!(b.write(0x8, 0xabcde, 0xf).0, OKAY);
        assert_eq!(b.read(0x8).1, 0xabcde);
        assert_eq!(b.write(0x0, 0, 0xf).0, SLVERR, "constant");
        assert_eq!(b.read(0x0).1, 0x1234_5678);
        assert_eq!(b.write(0x14, 7, 0xf).0, SLVERR, "status");
        assert_eq!(b.write(0x10, 7, 0xf).0, SLVERR, "unmapped");
        assert_eq!(b.read(0x10), (SLVERR, 0, 4), "unmapped read returns 0");
        assert_eq!(b.read(0xfc), (SLVERR, 0, 4));
        b.csr.set(3, 0b1011);
        assert_eq!(b.write(0xc, 0b0011, 0x1).0, OKAY);
        assert_eq!(b.read(0xc).1, 0b1000, "write 1 to clear");
    }

    #[test]
    fn a_waiting_read_and_write_take_turns() {
        let mut b = Bench::new();
        let both = AxilIn {
            awvalid: true,
            awaddr: 0x4,
            wvalid: true,
            wdata: 5,
            wstrb: 0xf,
            arvalid: true,
            araddr: 0x4,
            ..AxilIn::default()
        };
        b.edge(&both);
        assert_eq!(
            b.bridge.phase(),
            Phase::Read,
            "a write was never last: read first"
        );
        let mut b = Bench::new();
        b.read(0x0);
        b.edge(&both);
        assert_eq!(
            b.bridge.phase(),
            Phase::Write,
            "the last was a read: write now"
        );
    }

    #[test]
    fn a_response_waits_for_ready_and_holds_its_data() {
        let mut b = Bench::new();
        let i = AxilIn {
            arvalid: true,
            araddr: 0x0,
            ..AxilIn::default()
        };
        for _ in 0..3 {
            b.edge(&i);
        }
        for _ in 0..5 {
            let o = b.edge(&AxilIn::default());
            assert!(o.rvalid && o.rdata == 0x1234_5678 && !o.arready);
        }
        let o = b.edge(&AxilIn {
            rready: true,
            ..AxilIn::default()
        });
        assert!(!o.rvalid);
    }
}
