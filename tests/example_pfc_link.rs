//! The hand-written example top `examples/pfc_link/` (PFC + one pfcmac per port + one AXI4-Lite
//! port through a demultiplexer) under Verilator against the blocks' models wired the same way,
//! every output on every cycle, while a seeded AXI4-Lite master with random wait states reads
//! and writes every block's registers (and addresses no block decodes), PFC's random workload
//! runs on the ingress events and each port's pfcmac workload on its RX stream and TX ready.
//! The master checks the protocol and each block's register map on its own (a constant ID read
//! through the wrong window, or a missing DECERR, fails it).

mod common;

use std::path::Path;
use switchcraft::synth::{synth_ice40, Tools};
use switchcraft_core::axil::{self, AxilBlock, AxilIn, AxilOut, DECERR};
use switchcraft_core::rng::SplitMix64;
use switchcraft_core::{mask, DynModel, Port, PortSchema};
use switchcraft_sim::axil::{run_lockstep, AxilMaster, MasterOptions};
use switchcraft_sim::BuildOptions;

const PORTS: usize = 4;
const SLAVES: usize = PORTS + 1;
/// Byte address bits of the example's AXI4-Lite port; bits 11:8 choose the block.
const ADDR_BITS: u32 = 12;

/// PFC's outputs the top brings out, and pfcmac's, each of the latter packed over the ports.
const PFC_OUTPUTS: [&str; 7] = [
    "enq_drop",
    "xoff_valid",
    "xoff_port",
    "xoff_prio",
    "xon_valid",
    "xon_port",
    "xon_prio",
];
const MAC_STREAM_INPUTS: [&str; 6] = [
    "tx_tready",
    "rx_tvalid",
    "rx_tdata",
    "rx_tkeep",
    "rx_tlast",
    "rx_tuser",
];
const MAC_OUTPUTS: [&str; 9] = [
    "tx_tvalid",
    "tx_tdata",
    "tx_tkeep",
    "tx_tlast",
    "paused",
    "rx_pfc_valid",
    "rx_pfc_prio",
    "rx_pfc_quanta",
    "bad_frame",
];

/// `pfc_link_top`'s ports, in the order the model's values follow: the ingress events, the
/// per-port streams, the AXI4-Lite inputs (contiguous, as `run_lockstep` expects), then the
/// outputs likewise.
fn top_schema(pfc: &PortSchema, mac: &PortSchema) -> PortSchema {
    let packed = |p: &Port| {
        let mut q = p.clone();
        q.width *= PORTS as u32;
        q
    };
    let mut ports: Vec<Port> = pfc
        .inputs()
        .filter(|p| !p.name.starts_with("csr_"))
        .cloned()
        .collect();
    ports.extend(
        MAC_STREAM_INPUTS
            .iter()
            .map(|n| packed(&mac.ports[mac.input_index(n).unwrap()])),
    );
    let (axi_in, axi_out): (Vec<Port>, Vec<Port>) = axil::ports()
        .into_iter()
        .partition(|p| p.dir == switchcraft_core::Dir::In);
    for mut p in axi_in {
        if p.name.ends_with("addr") {
            p.width = ADDR_BITS;
        }
        ports.push(p);
    }
    let mac_outputs: Vec<&Port> = mac.outputs().collect();
    ports.extend(PFC_OUTPUTS.iter().map(|n| {
        pfc.outputs()
            .find(|p| p.name == *n)
            .expect("PFC output")
            .clone()
    }));
    ports.extend(
        MAC_OUTPUTS
            .iter()
            .map(|n| packed(mac_outputs.iter().find(|p| p.name == *n).unwrap())),
    );
    ports.extend(axi_out);
    PortSchema::new("pfc_link", ports)
}

/// The demultiplexer's cycle model (examples/pfc_link/pfc_link_axil_demux.v).
#[derive(Clone, Copy, Debug, Default)]
struct Demux {
    w_pending: bool,
    r_pending: bool,
    dec_w_hs: bool,
    dec_bvalid: bool,
    dec_ar_hs: bool,
    dec_rvalid: bool,
}

impl Demux {
    fn slot(addr: u64) -> usize {
        (addr >> 8 & 0xf) as usize
    }

    fn w_go(&self, i: &AxilIn) -> bool {
        i.awvalid && i.wvalid && !self.w_pending
    }

    fn r_go(&self, i: &AxilIn) -> bool {
        i.arvalid && !self.r_pending
    }

    /// What slave `k` sees this cycle.
    fn route(&self, i: &AxilIn, k: usize) -> AxilIn {
        let w = self.w_go(i) && Self::slot(i.awaddr) == k;
        AxilIn {
            awvalid: w,
            awaddr: i.awaddr & 0xff,
            wvalid: w,
            wdata: i.wdata,
            wstrb: i.wstrb,
            bready: i.bready,
            arvalid: self.r_go(i) && Self::slot(i.araddr) == k,
            araddr: i.araddr & 0xff,
            rready: i.rready,
        }
    }

    /// The master's view this cycle of the slaves' registered outputs.
    fn outputs(&self, slaves: &[AxilOut]) -> AxilOut {
        let mut o = AxilOut {
            awready: self.dec_w_hs,
            wready: self.dec_w_hs,
            bvalid: self.dec_bvalid,
            bresp: if self.dec_bvalid { DECERR } else { 0 },
            arready: self.dec_ar_hs,
            rvalid: self.dec_rvalid,
            rdata: 0,
            rresp: if self.dec_rvalid { DECERR } else { 0 },
        };
        for s in slaves {
            o.awready |= s.awready;
            o.wready |= s.wready;
            o.bvalid |= s.bvalid;
            o.arready |= s.arready;
            o.rvalid |= s.rvalid;
            if s.bvalid {
                o.bresp |= s.bresp;
            }
            if s.rvalid {
                o.rresp |= s.rresp;
                o.rdata |= s.rdata;
            }
        }
        o
    }

    fn edge(&mut self, i: &AxilIn, o: &AxilOut) {
        let (w_go, r_go) = (self.w_go(i), self.r_go(i));
        if i.awvalid && o.awready {
            self.w_pending = true;
        } else if o.bvalid && i.bready {
            self.w_pending = false;
        }
        if i.arvalid && o.arready {
            self.r_pending = true;
        } else if o.rvalid && i.rready {
            self.r_pending = false;
        }
        let dec_w_hs = w_go && Self::slot(i.awaddr) >= SLAVES && !self.dec_w_hs;
        if self.dec_w_hs {
            self.dec_bvalid = true;
        } else if i.bready {
            self.dec_bvalid = false;
        }
        self.dec_w_hs = dec_w_hs;
        let dec_ar_hs = r_go && Self::slot(i.araddr) >= SLAVES && !self.dec_ar_hs;
        if self.dec_ar_hs {
            self.dec_rvalid = true;
        } else if i.rready {
            self.dec_rvalid = false;
        }
        self.dec_ar_hs = dec_ar_hs;
    }
}

/// Where a sub-model's input comes from.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// A top input, bits `[lsb, lsb + width)`.
    Top { index: usize, lsb: u32, width: u32 },
    /// PFC's output of the same name, as it is this cycle.
    Pfc(usize),
    /// PFC's `frame_valid` for this pfcmac's port.
    FrameValid { valid: usize, port: usize, p: u64 },
    /// The demultiplexer's routed AXI4-Lite input number k.
    Axil(usize),
}

/// One block behind its bridge, with its wiring and its outputs after the last edge.
struct Sub {
    model: AxilBlock,
    sources: Vec<Source>,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
    axil_out: usize,
}

impl Sub {
    fn new(model: AxilBlock, sources: impl Fn(&str) -> Source) -> Self {
        let schema = model.ports().clone();
        Sub {
            sources: schema
                .inputs()
                .enumerate()
                .map(|(k, p)| {
                    if p.name.starts_with("s_axil_") {
                        Source::Axil(k - schema.input_index("s_axil_awvalid").unwrap())
                    } else {
                        sources(&p.name)
                    }
                })
                .collect(),
            inputs: vec![0; schema.input_count()],
            outputs: vec![0; schema.output_count()],
            axil_out: schema.output_index("s_axil_awready").unwrap(),
            model,
        }
    }

    fn axil(&self) -> AxilOut {
        AxilOut::from_values(&self.outputs[self.axil_out..self.axil_out + 8])
    }
}

/// The example's model: the blocks' models wired as `pfc_link_top` wires their Verilog.
struct PfcLink {
    schema: PortSchema,
    pfc: Sub,
    macs: Vec<Sub>,
    demux: Demux,
    axil_in: usize,
    out_from: Vec<Output>,
    axil_out: usize,
    coverage: [Coverage; PORTS],
    coverage_at: CoverageAt,
}

/// Where the coverage counts read a pfcmac's inputs and outputs.
#[derive(Clone, Copy, Debug)]
struct CoverageAt {
    frame_valid: usize,
    tx_tready: usize,
    tx_tvalid: usize,
    tx_tlast: usize,
    rx_pfc_valid: usize,
    paused: usize,
    bad_frame: usize,
}

/// Where a top output comes from.
#[derive(Clone, Copy, Debug)]
enum Output {
    /// PFC's output number k.
    Pfc(usize),
    /// The pfcmacs' output number `index`, port p's in bits `[width * p, width * (p + 1))`.
    Macs { index: usize, width: u32 },
    /// The demultiplexer's (filled apart).
    Axil,
}

/// What happened on each port, so the test knows the run exercised the wiring.
#[derive(Clone, Copy, Debug, Default)]
struct Coverage {
    /// PFC's frame descriptors for this port.
    descriptors: u64,
    frames_sent: u64,
    pause_events: u64,
    paused_cycles: u64,
    bad_frames: u64,
}

impl PfcLink {
    fn new(pfc: AxilBlock, macs: Vec<AxilBlock>, schema: PortSchema) -> Self {
        let top_input = |name: &str| schema.input_index(name).unwrap();
        let pfc_schema = pfc.ports().clone();
        let pfc_sub = Sub::new(pfc, |name| Source::Top {
            index: top_input(name),
            lsb: 0,
            width: 64,
        });
        let macs: Vec<Sub> = macs
            .into_iter()
            .enumerate()
            .map(|(p, m)| {
                let mac_schema = m.ports().clone();
                Sub::new(m, |name| {
                    let width = mac_schema.ports[mac_schema.input_index(name).unwrap()].width;
                    match name {
                        "frame_valid" => Source::FrameValid {
                            valid: pfc_schema.output_index("frame_valid").unwrap(),
                            port: pfc_schema.output_index("frame_port").unwrap(),
                            p: p as u64,
                        },
                        n if n.starts_with("frame_") => {
                            Source::Pfc(pfc_schema.output_index(n).unwrap())
                        }
                        n => Source::Top {
                            index: top_input(n),
                            lsb: width * p as u32,
                            width,
                        },
                    }
                })
            })
            .collect();
        let mac_schema = macs[0].model.ports().clone();
        let out_from = schema
            .outputs()
            .map(|o| {
                if o.name.starts_with("s_axil_") {
                    Output::Axil
                } else if let Some(k) = pfc_schema.output_index(&o.name) {
                    Output::Pfc(k)
                } else {
                    let index = mac_schema.output_index(&o.name).unwrap();
                    let width = mac_schema.outputs().nth(index).unwrap().width;
                    Output::Macs { index, width }
                }
            })
            .collect();
        PfcLink {
            axil_in: schema.input_index("s_axil_awvalid").unwrap(),
            axil_out: schema.output_index("s_axil_awready").unwrap(),
            out_from,
            schema,
            pfc: pfc_sub,
            macs,
            demux: Demux::default(),
            coverage: [Coverage::default(); PORTS],
            coverage_at: CoverageAt {
                frame_valid: mac_schema.input_index("frame_valid").unwrap(),
                tx_tready: mac_schema.input_index("tx_tready").unwrap(),
                tx_tvalid: mac_schema.output_index("tx_tvalid").unwrap(),
                tx_tlast: mac_schema.output_index("tx_tlast").unwrap(),
                rx_pfc_valid: mac_schema.output_index("rx_pfc_valid").unwrap(),
                paused: mac_schema.output_index("paused").unwrap(),
                bad_frame: mac_schema.output_index("bad_frame").unwrap(),
            },
        }
    }

    /// Every bridge's AXI4-Lite outputs as they are now (PFC's first).
    fn slave_outputs(&self) -> [AxilOut; SLAVES] {
        std::array::from_fn(|k| {
            if k == 0 {
                self.pfc.axil()
            } else {
                self.macs[k - 1].axil()
            }
        })
    }

    fn fill(sub: &mut Sub, inputs: &[u64], pfc_out: &[u64], axil: &[u64; 9]) {
        for (k, s) in sub.sources.iter().enumerate() {
            sub.inputs[k] = match *s {
                Source::Top { index, lsb, width } => inputs[index] >> lsb & mask(width),
                Source::Pfc(o) => pfc_out[o],
                Source::FrameValid { valid, port, p } => {
                    u64::from(pfc_out[valid] == 1 && pfc_out[port] == p)
                }
                Source::Axil(a) => axil[a],
            };
        }
    }
}

impl DynModel for PfcLink {
    fn ports(&self) -> &PortSchema {
        &self.schema
    }

    fn reset(&mut self) {
        for sub in std::iter::once(&mut self.pfc).chain(self.macs.iter_mut()) {
            sub.model.reset();
            sub.outputs.fill(0);
        }
        self.demux = Demux::default();
    }

    fn step_values(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let master = AxilIn::from_values(&inputs[self.axil_in..self.axil_in + 9]);
        // This cycle's view: every sub-model's outputs after the last edge.
        let seen = self.demux.outputs(&self.slave_outputs());
        // The pfcmacs read PFC's outputs of this cycle; PFC reads none of theirs.
        for (p, mac) in self.macs.iter_mut().enumerate() {
            let routed = self.demux.route(&master, 1 + p).to_values();
            Self::fill(mac, inputs, &self.pfc.outputs, &routed);
        }
        let routed = self.demux.route(&master, 0).to_values();
        Self::fill(&mut self.pfc, inputs, &[], &routed);
        let at = &self.coverage_at;
        for (mac, c) in self.macs.iter().zip(&mut self.coverage) {
            let (i, o) = (&mac.inputs, &mac.outputs);
            c.descriptors += i[at.frame_valid];
            c.frames_sent += o[at.tx_tvalid] & o[at.tx_tlast] & i[at.tx_tready];
            c.pause_events += o[at.rx_pfc_valid];
            c.paused_cycles += u64::from(o[at.paused] != 0);
            c.bad_frames += o[at.bad_frame];
        }
        for sub in std::iter::once(&mut self.pfc).chain(self.macs.iter_mut()) {
            sub.model.step_values(&sub.inputs, &mut sub.outputs);
        }
        self.demux.edge(&master, &seen);

        for (k, from) in self.out_from.iter().enumerate() {
            match *from {
                Output::Pfc(o) => outputs[k] = self.pfc.outputs[o],
                Output::Macs { index, width } => {
                    outputs[k] = self
                        .macs
                        .iter()
                        .enumerate()
                        .fold(0, |v, (p, m)| v | m.outputs[index] << (width * p as u32))
                }
                Output::Axil => {}
            }
        }
        let o = self.demux.outputs(&self.slave_outputs());
        outputs[self.axil_out..self.axil_out + 8].copy_from_slice(&o.to_values());
    }
}

/// Ingress traffic on every (port, priority) of `pfc_tiny` (XOFF 4 000 B, XON 2 500 B): phases
/// of 300 cycles that fill (mostly enqueues) and drain (mostly dequeues of bytes enqueued), so
/// every port's queues cross XOFF and XON again and again.
struct Ingress {
    rng: SplitMix64,
    held: [u64; PORTS * 2],
    cycle: u64,
    at: [usize; 8],
}

impl Ingress {
    fn new(schema: &PortSchema, seed: u64) -> Self {
        let at = [
            "enq_valid",
            "enq_port",
            "enq_prio",
            "enq_len",
            "deq_valid",
            "deq_port",
            "deq_prio",
            "deq_len",
        ]
        .map(|n| schema.input_index(n).unwrap());
        Ingress {
            rng: SplitMix64::new(seed ^ 0x1e55),
            held: [0; PORTS * 2],
            cycle: 0,
            at,
        }
    }

    fn fill(&mut self, row: &mut [u64]) {
        let filling = (self.cycle / 300).is_multiple_of(2);
        self.cycle += 1;
        let (enq, deq) = if filling { (70, 20) } else { (10, 80) };
        if self.rng.chance(enq) {
            let key = self.rng.below(self.held.len() as u64) as usize;
            let len = 64 + self.rng.below(1437);
            self.held[key] += len;
            row[self.at[0]] = 1;
            row[self.at[1]] = key as u64 / 2;
            row[self.at[2]] = key as u64 % 2;
            row[self.at[3]] = len;
        }
        if self.rng.chance(deq) {
            let key = self.rng.below(self.held.len() as u64) as usize;
            let len = self.held[key].min(64 + self.rng.below(1437));
            if len > 0 {
                self.held[key] -= len;
                row[self.at[4]] = 1;
                row[self.at[5]] = key as u64 / 2;
                row[self.at[6]] = key as u64 % 2;
                row[self.at[7]] = len;
            }
        }
    }
}

#[test]
fn example_top_equals_the_blocks_models_wired_alike_under_verilator() {
    let seed = common::seed();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pfc_cfg = common::preset("pfc", "tiny");
    let mac_cfg = common::preset("pfcmac", "tiny");
    let (pfc_map, mac_map) = (pfc_cfg.regmap(), mac_cfg.regmap());
    let schema = top_schema(&pfc_cfg.schema(), &mac_cfg.schema());

    // The example and the checked-in Verilog it instantiates, in one file so that Verilator's
    // cache key covers all of them.
    let work = common::scratch::ScratchDir::new("example", "pfc_link");
    let mut source = String::new();
    for f in [
        "examples/pfc_link/pfc_link_axil_demux.v",
        "examples/pfc_link/pfc_link_top.v",
        "rtl/pfc/pfc_tiny.v",
        "rtl/pfcmac/pfcmac_tiny.v",
    ] {
        source += &std::fs::read_to_string(root.join(f)).unwrap();
    }
    let file = work.join("pfc_link.v");
    std::fs::write(&file, source).unwrap();
    let mut rtl = switchcraft_sim::build(&file, "pfc_link_top", &schema, &BuildOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let reset_cycles = pfc_cfg
        .package("tiny", "test")
        .reset_cycles
        .max(mac_cfg.package("tiny", "test").reset_cycles);
    rtl.set_min_reset_cycles(reset_cycles);

    let macs = (0..PORTS)
        .map(|_| AxilBlock::new(mac_cfg.model(), &mac_map))
        .collect();
    let mut model = PfcLink::new(
        AxilBlock::new(pfc_cfg.model(), &pfc_map),
        macs,
        schema.clone(),
    );

    // The top's own inputs: ingress traffic on every port, each port's pfcmac workload (its
    // own seed) on that port's streams.
    let events_schema = PortSchema::new(
        "pfc_link_events",
        schema
            .inputs()
            .filter(|p| !p.name.starts_with("s_axil_"))
            .cloned()
            .collect(),
    );
    let mac_in = mac_cfg.schema();
    let mut ingress = Ingress::new(&events_schema, seed);
    let mut mac_events: Vec<_> = (0..PORTS as u64)
        .map(|p| mac_cfg.workload(seed ^ (p + 1) << 32))
        .collect();
    let mut mac_row = vec![0u64; mac_in.input_count()];
    let mut events = |row: &mut [u64]| {
        row.fill(0);
        ingress.fill(row);
        for (p, gen) in mac_events.iter_mut().enumerate() {
            gen(&mut mac_row);
            for name in MAC_STREAM_INPUTS {
                let i = mac_in.input_index(name).unwrap();
                let w = mac_in.ports[i].width;
                row[events_schema.input_index(name).unwrap()] |= mac_row[i] << (w * p as u32);
            }
        }
    };

    let slaves: Vec<(u64, &switchcraft_core::csr::RegMap)> = std::iter::once((0, &pfc_map))
        .chain((1..=PORTS as u64).map(|p| (p << 8, &mac_map)))
        .collect();
    let mut master = AxilMaster::with_slaves(&slaves, ADDR_BITS, seed, MasterOptions::default());
    let cycles = 100_000;
    let report = run_lockstep(
        &mut model,
        &mut rtl,
        &events_schema,
        &mut events,
        &mut master,
        cycles,
        reset_cycles,
    )
    .unwrap();
    assert!(
        report.passed(),
        "pfc_link example, seed {seed} (rerun with SWITCHCRAFT_SEED={seed}): {report:?}"
    );
    let c = report.counts;
    assert_eq!(report.cycles, cycles);
    assert!(
        c.writes_okay > 1000
            && c.writes_refused > 200
            && c.reads_okay > 1000
            && c.decode_errors > 100,
        "too few transactions of some kind to mean anything: {c:?}"
    );
    for (p, c) in model.coverage.iter().enumerate() {
        assert!(
            c.descriptors > 200
                && c.frames_sent > 50
                && c.pause_events > 1000
                && c.paused_cycles > 10_000
                && c.bad_frames > 100,
            "port {p}: too little happened: {c:?}"
        );
    }
}

/// The example synthesizes for iCE40 as it stands (yosys `synth_ice40`; place and route, and
/// the figures, in examples/pfc_link/README.md).
#[test]
fn example_top_synthesizes_for_ice40() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = common::scratch::ScratchDir::new("example", "synth");
    let sources: Vec<_> = [
        "examples/pfc_link/pfc_link_axil_demux.v",
        "examples/pfc_link/pfc_link_top.v",
        "rtl/pfc/pfc_tiny.v",
        "rtl/pfcmac/pfcmac_tiny.v",
    ]
    .iter()
    .map(|f| root.join(f))
    .collect();
    let r = synth_ice40(
        &Tools::from_env(),
        &sources,
        "pfc_link_top",
        &work,
        "pfc_link",
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Four pfcmacs and PFC, each far above 500 LUT4 alone (7 423 in all when written; the
    // README's figures); a broken flow or a design optimized away gives far fewer.
    assert!((5 * 500..15_000).contains(&r.lut4), "LUT4 {}", r.lut4);
    assert!(r.dff > 4 * 8 * 64, "DFF {}", r.dff);
}
