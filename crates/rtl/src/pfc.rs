//! PFC in rust-hdl: the register-transfer form of `switchcraft_model::pfc`.
//!
//! Contract and cycle semantics: docs/blocks/pfc.md and crates/model/src/pfc.rs. Keys are
//! `{port, priority}` with the config's priority bits (1..=3), so the storage of a key exists
//! only for priority codes the bus can carry (2 priorities cost 2 keys per port, not 8); a port's
//! classes form one group of `2^bits` bits in every per-key vector.
//!
//! The core is the ingress logic ([`Ingress`]: occupancy RAMs and XOFF bits), the frame
//! generator ([`FrameGen`]) and the CSR map; CaPFC reuses the first two. Pipeline, initiation
//! interval 1 on both event buses:
//! * edge n: the events are captured; cycle n: their own sums with MAX;
//! * edge n + 1: their keys address the occupancy RAMs; cycle n + 1: each event's operand is
//!   looked up (read data, or a write the read did not see), and the bounds its tests compare
//!   with are computed from its own lengths and its predecessor's;
//! * edge n + 2: the operands are registered (with a bypass from the results of the event two
//!   edges older); cycle n + 2: every test and sum of the predecessor's and the event's
//!   operations, side by side ([`occupancy_pipeline`]);
//! * edge n + 3: tests and sums registered; cycle n + 3: the results selected; the frame arbiter
//!   and the refresh tick work on the per-key vectors in parallel;
//! * edge n + 4: `enq_drop`, the `ERR` flags; the results and thresholds move to the decision
//!   stage (RAM writes one edge later);
//! * edge n + 5: the threshold tests; cycle n + 5: XOFF/XON decisions, net state change;
//! * edge n + 6: XOFF vector, `xoff_*`/`xon_*` output registers;
//! * edge n + 7: the ports of changed classes flagged; cycle n + 7: the round robin;
//! * edge n + 8: the grant registered; cycle n + 8: the granted port's frame built from the
//!   XOFF vector as it is then (so a frame granted earlier states the change at n + 7);
//! * edge n + 9: the frame registers.

pub mod frame_gen;
pub mod ingress;
pub mod occupancy;
pub mod occupancy_pipeline;
pub mod occupancy_update;
pub mod pause_decision;

use crate::csr_bank::{self, CsrBank};
use crate::tech::Tech;
use frame_gen::FrameGen;
use ingress::Ingress;
use rust_hdl::prelude::*;
use switchcraft_model::pfc::{regmap, PfcConfig, ERR_INDEX, ERR_UNDERFLOW};

/// Word slots of the CSR bank (the register map's indices 0..8) and their bits.
pub const CSR_SLOTS: usize = 8;
const CSR_BITS: usize = 32 * CSR_SLOTS;
/// Bits of an offset into the bank's `CSR_BITS`-bit buses.
const CSR_OFFSET_BITS: usize = 8;

/// PFC core for ports addressed by `PB` bits. `PP = 2^PB` padded ports, keys `{port, priority}`
/// of `KB = PB + NQ` bits (`NQ` = the config's priority bits), `K = 2^KB` keys (Rust cannot yet
/// derive these from `PB` and `NQ` in a type).
#[derive(LogicBlock)]
pub struct PfcCore<const PB: usize, const PP: usize, const K: usize, const KB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub enq_valid: Signal<In, Bit>,
    pub enq_port: Signal<In, Bits<PB>>,
    pub enq_prio: Signal<In, Bits<3>>,
    pub enq_len: Signal<In, Bits<16>>,
    pub deq_valid: Signal<In, Bit>,
    pub deq_port: Signal<In, Bits<PB>>,
    pub deq_prio: Signal<In, Bits<3>>,
    pub deq_len: Signal<In, Bits<16>>,
    pub csr_we: Signal<In, Bit>,
    pub csr_addr: Signal<In, Bits<6>>,
    pub csr_wdata: Signal<In, Bits<32>>,

    pub enq_drop: Signal<Out, Bit>,
    pub xoff_valid: Signal<Out, Bit>,
    pub xoff_port: Signal<Out, Bits<PB>>,
    pub xoff_prio: Signal<Out, Bits<3>>,
    pub xon_valid: Signal<Out, Bit>,
    pub xon_port: Signal<Out, Bits<PB>>,
    pub xon_prio: Signal<Out, Bits<3>>,
    pub frame_valid: Signal<Out, Bit>,
    pub frame_port: Signal<Out, Bits<PB>>,
    pub frame_class_enable: Signal<Out, Bits<8>>,
    pub frame_pause: Signal<Out, Bits<8>>,
    pub frame_quanta: Signal<Out, Bits<16>>,
    pub csr_rdata: Signal<Out, Bits<32>>,

    pub ingress: Ingress<KB, K>,
    pub frames: FrameGen<PB, PP, K, KB>,
    pub csr: CsrBank<CSR_SLOTS, CSR_BITS, CSR_OFFSET_BITS>,

    // Parameters of this instance, from the config and the register map.
    /// Bit p set when port p exists.
    port_ok: Constant<Bits<PP>>,
    /// Bit c set when priority c exists.
    prio_ok: Constant<Bits<8>>,
    err_underflow: Constant<Bits<2>>,
    err_index: Constant<Bits<2>>,
    /// Bit offsets of the registers' words on the CSR bank's buses.
    at_xoff: Constant<Bits<CSR_OFFSET_BITS>>,
    at_xon: Constant<Bits<CSR_OFFSET_BITS>>,
    at_max: Constant<Bits<CSR_OFFSET_BITS>>,
    at_quanta: Constant<Bits<CSR_OFFSET_BITS>>,
    at_refresh: Constant<Bits<CSR_OFFSET_BITS>>,
    /// REFRESH's bit in the CSR bank's write strobes.
    refresh_written: Constant<Bits<CSR_SLOTS>>,
    at_err: Constant<Bits<CSR_OFFSET_BITS>>,
    /// Priority bits of a key (`KB - PB`) and their mask.
    prio_bits: Constant<Bits<KB>>,
    prio_mask: Constant<Bits<KB>>,

    /// An event of edge n - 1 named a port or priority that does not exist.
    e_bad: DFF<Bit>,
    d_bad: DFF<Bit>,
    /// An event named a missing key, flagged with the occupancy's flags at the declared latency
    /// of `ERR`'s hardware-set bits (`bad_1`, `bad_2`: the edges between).
    bad_1: DFF<Bit>,
    bad_2: DFF<Bit>,
    bad_late: DFF<Bit>,

    // Output registers.
    o_drop: DFF<Bit>,
    o_xoff_valid: DFF<Bit>,
    o_xoff_key: DFF<Bits<KB>>,
    o_xon_valid: DFF<Bit>,
    o_xon_key: DFF<Bits<KB>>,

    /// The event names an existing port and priority.
    in_e_ok: Signal<Local, Bit>,
    in_d_ok: Signal<Local, Bit>,
    err_uf_bits: Signal<Local, Bits<2>>,
    err_ix_bits: Signal<Local, Bits<2>>,
    err_raised: Signal<Local, Bits<2>>,
    /// The port and priority fields of the output keys (`>>` and `&` by the priority bits).
    xoff_key_port: Signal<Local, Bits<KB>>,
    xoff_key_prio: Signal<Local, Bits<KB>>,
    xon_key_port: Signal<Local, Bits<KB>>,
    xon_key_prio: Signal<Local, Bits<KB>>,
    /// Ports whose class the request registers show changing: the frame generator's marks,
    /// from registers, so the decision's logic and the frame generator's are in separate
    /// cycles.
    changed_ports: Signal<Local, Bits<PP>>,
    one_pp: Constant<Bits<PP>>,
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize> PfcCore<PB, PP, K, KB> {
    pub fn new(cfg: &PfcConfig, tech: Tech) -> Self {
        assert_eq!(1 << PB, PP);
        assert_eq!(KB, PB + cfg.prio_bits() as usize);
        assert_eq!(K, 1 << KB);
        assert!(cfg.ports as usize <= PP);
        let map = regmap(cfg);
        let mut port_ok = Bits::<PP>::default();
        for p in 0..PP {
            port_ok = port_ok.replace_bit(p, p < cfg.ports as usize);
        }
        let at = |name: &str| CsrBank::<CSR_SLOTS, CSR_BITS, CSR_OFFSET_BITS>::offset(&map, name);
        PfcCore {
            clock: Default::default(),
            reset: Default::default(),
            enq_valid: Default::default(),
            enq_port: Default::default(),
            enq_prio: Default::default(),
            enq_len: Default::default(),
            deq_valid: Default::default(),
            deq_port: Default::default(),
            deq_prio: Default::default(),
            deq_len: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            enq_drop: Default::default(),
            xoff_valid: Default::default(),
            xoff_port: Default::default(),
            xoff_prio: Default::default(),
            xon_valid: Default::default(),
            xon_port: Default::default(),
            xon_prio: Default::default(),
            frame_valid: Default::default(),
            frame_port: Default::default(),
            frame_class_enable: Default::default(),
            frame_pause: Default::default(),
            frame_quanta: Default::default(),
            csr_rdata: Default::default(),
            ingress: Ingress::new(cfg.occupancy_bits as usize, cfg.length_bits as usize, tech),
            frames: FrameGen::new(cfg.ports, cfg.priorities),
            csr: CsrBank::new(&map),
            port_ok: Constant::new(port_ok),
            prio_ok: Constant::new(((1u64 << cfg.priorities) - 1).into()),
            err_underflow: Constant::new(ERR_UNDERFLOW.into()),
            err_index: Constant::new(ERR_INDEX.into()),
            at_xoff: at("xoff"),
            at_xon: at("xon"),
            at_max: at("max"),
            at_quanta: at("quanta"),
            at_refresh: at("refresh"),
            refresh_written: CsrBank::<CSR_SLOTS, CSR_BITS, CSR_OFFSET_BITS>::strobe(
                &map, "refresh",
            ),
            at_err: at("err"),
            prio_bits: Constant::new(u64::from(cfg.prio_bits()).into()),
            prio_mask: Constant::new(switchcraft_core::mask(cfg.prio_bits()).into()),
            e_bad: Default::default(),
            d_bad: Default::default(),
            bad_1: Default::default(),
            bad_2: Default::default(),
            bad_late: Default::default(),
            o_drop: Default::default(),
            o_xoff_valid: Default::default(),
            o_xoff_key: Default::default(),
            o_xon_valid: Default::default(),
            o_xon_key: Default::default(),
            in_e_ok: Default::default(),
            in_d_ok: Default::default(),
            err_uf_bits: Default::default(),
            err_ix_bits: Default::default(),
            err_raised: Default::default(),
            xoff_key_port: Default::default(),
            xoff_key_prio: Default::default(),
            xon_key_port: Default::default(),
            xon_key_prio: Default::default(),
            changed_ports: Default::default(),
            one_pp: Constant::new(1u64.into()),
        }
    }
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize> Logic
    for PfcCore<PB, PP, K, KB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            e_bad,
            d_bad,
            bad_1,
            bad_2,
            bad_late,
            o_drop,
            o_xoff_valid,
            o_xoff_key,
            o_xon_valid,
            o_xon_key
        );

        // ---- Edge n: events naming an existing port and priority go to the ingress logic.
        self.in_e_ok.next = self.port_ok.val().get_bit(self.enq_port.val().index())
            & self.prio_ok.val().get_bit(self.enq_prio.val().index());
        self.in_d_ok.next = self.port_ok.val().get_bit(self.deq_port.val().index())
            & self.prio_ok.val().get_bit(self.deq_prio.val().index());
        self.ingress.clock.next = self.clock.val();
        self.ingress.reset.next = self.reset.val();
        self.ingress.enq_valid.next = self.enq_valid.val() & self.in_e_ok.val();
        self.ingress.enq_key.next = (bit_cast::<KB, PB>(self.enq_port.val())
            << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.enq_prio.val()) & self.prio_mask.val());
        self.ingress.enq_len.next = self.enq_len.val();
        self.ingress.deq_valid.next = self.deq_valid.val() & self.in_d_ok.val();
        self.ingress.deq_key.next = (bit_cast::<KB, PB>(self.deq_port.val())
            << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.deq_prio.val()) & self.prio_mask.val());
        self.ingress.deq_len.next = self.deq_len.val();
        self.ingress.xoff_thr.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_xoff.val().index());
        self.ingress.xon_thr.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_xon.val().index());
        self.ingress.max_next.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_max.val().index());
        self.e_bad.d.next = self.enq_valid.val() & !self.in_e_ok.val();
        self.d_bad.d.next = self.deq_valid.val() & !self.in_d_ok.val();
        self.bad_1.d.next = self.e_bad.q.val() | self.d_bad.q.val();
        self.bad_2.d.next = self.bad_1.q.val();
        self.bad_late.d.next = self.bad_2.q.val();

        // ---- The frame generator follows the XOFF bits; the request registers name the ports
        // whose state changed at the last edge (below, after their key fields).
        self.frames.clock.next = self.clock.val();
        self.frames.reset.next = self.reset.val();
        self.frames.paused.next = self.ingress.xoff.val();
        self.frames.quanta.next = self
            .csr
            .value
            .val()
            .get_bits::<16>(self.at_quanta.val().index());
        self.frames.refresh.next = self
            .csr
            .value
            .val()
            .get_bits::<16>(self.at_refresh.val().index());
        self.frames.refresh_write.next = (self.csr.write.val() & self.refresh_written.val()).any();
        self.frames.refresh_wdata.next = self.csr_wdata.val().get_bits::<16>(0);

        // ---- Edge n + 1: event outputs (key fields zero when not valid).
        self.o_drop.d.next = self.ingress.drop.val();
        self.o_xoff_valid.d.next = self.ingress.xoff_event.val();
        self.o_xoff_key.d.next = 0.into();
        if self.ingress.xoff_event.val() {
            self.o_xoff_key.d.next = self.ingress.e_key.val();
        }
        self.o_xon_valid.d.next = self.ingress.xon_event.val();
        self.o_xon_key.d.next = 0.into();
        if self.ingress.xon_event.val() {
            self.o_xon_key.d.next = self.ingress.d_key.val();
        }

        // CSR bank: the bus, and the sticky flags raised on this edge.
        self.csr.clock.next = self.clock.val();
        self.csr.reset.next = self.reset.val();
        self.csr.we.next = self.csr_we.val();
        self.csr.addr.next = self.csr_addr.val();
        self.csr.raddr.next = self.csr_addr.val();
        self.csr.wdata.next = self.csr_wdata.val();
        self.csr.hw_value.next = 0.into();
        self.err_uf_bits.next = 0.into();
        if self.ingress.underflow.val() {
            self.err_uf_bits.next = self.err_underflow.val();
        }
        self.err_ix_bits.next = 0.into();
        if self.bad_late.q.val() {
            self.err_ix_bits.next = self.err_index.val();
        }
        self.err_raised.next = self.err_uf_bits.val() | self.err_ix_bits.val();
        self.csr.hw_set.next = bit_cast::<CSR_BITS, 2>(self.err_raised.val()) << self.at_err.val();

        // Outputs.
        self.enq_drop.next = self.o_drop.q.val();
        self.xoff_valid.next = self.o_xoff_valid.q.val();
        self.xoff_key_port.next = self.o_xoff_key.q.val() >> self.prio_bits.val();
        self.xoff_port.next = bit_cast::<PB, KB>(self.xoff_key_port.val());
        self.xoff_key_prio.next = self.o_xoff_key.q.val() & self.prio_mask.val();
        self.xoff_prio.next = bit_cast::<3, KB>(self.xoff_key_prio.val());
        self.xon_valid.next = self.o_xon_valid.q.val();
        self.xon_key_port.next = self.o_xon_key.q.val() >> self.prio_bits.val();
        self.xon_port.next = bit_cast::<PB, KB>(self.xon_key_port.val());
        self.xon_key_prio.next = self.o_xon_key.q.val() & self.prio_mask.val();
        self.xon_prio.next = bit_cast::<3, KB>(self.xon_key_prio.val());
        // The frame generator's marks: the ports of the request registers.
        self.frames.flipped.next = 0.into();
        self.changed_ports.next = 0.into();
        if self.o_xoff_valid.q.val() {
            self.changed_ports.next =
                self.one_pp.val() << bit_cast::<PB, KB>(self.xoff_key_port.val());
        }
        if self.o_xon_valid.q.val() {
            self.changed_ports.next = self.changed_ports.val()
                | (self.one_pp.val() << bit_cast::<PB, KB>(self.xon_key_port.val()));
        }
        self.frames.changed_ports.next = self.changed_ports.val();
        self.frame_valid.next = self.frames.frame_valid.val();
        self.frame_port.next = self.frames.frame_port.val();
        self.frame_class_enable.next = self.frames.frame_class_enable.val();
        self.frame_pause.next = self.frames.frame_pause.val();
        self.frame_quanta.next = self.frames.frame_quanta.val();
        self.csr_rdata.next = self.csr.rdata.val();

        // Synchronous reset: registers to their reset values.
        if self.reset.val() {
            self.e_bad.d.next = false;
            self.d_bad.d.next = false;
            self.bad_1.d.next = false;
            self.bad_2.d.next = false;
            self.bad_late.d.next = false;
            self.o_drop.d.next = false;
            self.o_xoff_valid.d.next = false;
            self.o_xoff_key.d.next = 0.into();
            self.o_xon_valid.d.next = false;
            self.o_xon_key.d.next = 0.into();
        }
    }
}

/// A fresh `PfcCore` with `$pb` port bits and `$nq` priority bits (the sizes follow from them).
macro_rules! pfc_core {
    ($pb:literal, $nq:literal, $cfg:expr, $tech:expr) => {
        PfcCore::<$pb, { 1 << $pb }, { 1 << ($pb + $nq) }, { $pb + $nq }>::new($cfg, $tech)
    };
}

/// Calls `$body` with `$core` bound to a fresh `PfcCore` sized for `$cfg`.
macro_rules! with_pfc_core {
    ($cfg:expr, $tech:expr, |$core:ident| $body:expr) => {{
        let cfg: &PfcConfig = $cfg;
        let tech: Tech = $tech;
        with_sized_core!(
            (cfg.port_bits(), cfg.prio_bits()),
            pfc_core!(cfg, tech),
            |$core| $body
        )
    }};
}

/// rust-hdl's Verilog of the PFC core for `cfg` (module `top` and its submodules).
pub fn core_verilog(cfg: &PfcConfig, tech: Tech) -> String {
    crate::export::on_large_stack(|| {
        with_pfc_core!(cfg, tech, |core| {
            core.connect_all();
            generate_verilog(&core)
        })
    })
}

/// The packaged Verilog, manifest and C header of a PFC instance.
pub fn package(
    cfg: &PfcConfig,
    instance: &str,
    command: &str,
    tech: Tech,
) -> crate::export::Package {
    let config_toml = toml::to_string(cfg).expect("config serializes");
    let schema = switchcraft_model::pfc::port_schema(cfg);
    let map = regmap(cfg);
    use crate::export::Waiver;
    crate::export::package(&crate::export::Source {
        block: "pfc",
        instance,
        command,
        config_toml: &config_toml,
        schema: &schema,
        core_verilog: &core_verilog(cfg, tech),
        tech,
        // The occupancy memories clear themselves during reset.
        reset_cycles: crate::ram_2w2r::reset_cycles(1 << (cfg.port_bits() + cfg.prio_bits()), tech),
        regmap: &map,
        notes: &[
            "A frame waits for the arbiter when several ports want one. See docs/blocks/pfc.md.",
        ],
        waivers: &[
            csr_bank::UNUSED_WAIVER,
            occupancy_pipeline::WIDE_WAIVER,
            Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &["*_key_port", "*_key_prio", "g_paused"],
                reason:
                    "the high bits of the key-field locals, which keep the key's width through \
                     the shift or mask (only the low port bits or the priority bits are used), \
                     and of the frame generator's selected pause group (K wide; its low 8 bits \
                     at most are the pause vector).",
            },
            Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &["ingress$xoff_next"],
                reason: "the XOFF/XON decision's next-state vector, which CaPFC's combined \
                         decision reads; PFC's frame generator reads the registered state.",
            },
        ],
    })
}

/// Runs the PFC core in rust-hdl's own simulator: `reset_cycles` edges of reset, then one edge
/// per row of `inputs` (schema input order); returns the outputs after each edge (schema output
/// order). A quick smoke check and a throughput reference only: the Verilator run of the
/// exported Verilog is the gate for RTL correctness.
pub fn simulate_rust_hdl(
    cfg: &PfcConfig,
    reset_cycles: usize,
    inputs: &[Vec<u64>],
) -> Vec<Vec<u64>> {
    // The simulator sees one array whatever the target's memory form.
    let tech = Tech::default();
    with_pfc_core!(cfg, tech, |core| {
        core.connect_all();
        let mut outputs = Vec::with_capacity(inputs.len());
        let idle = vec![0u64; 11];
        for k in 0..reset_cycles + inputs.len() {
            let (row, reset) = if k < reset_cycles {
                (&idle, true)
            } else {
                (&inputs[k - reset_cycles], false)
            };
            core.reset.next = reset;
            core.enq_valid.next = row[0] == 1;
            core.enq_port.next = row[1].into();
            core.enq_prio.next = row[2].into();
            core.enq_len.next = row[3].into();
            core.deq_valid.next = row[4] == 1;
            core.deq_port.next = row[5].into();
            core.deq_prio.next = row[6].into();
            core.deq_len.next = row[7].into();
            core.csr_we.next = row[8] == 1;
            core.csr_addr.next = row[9].into();
            core.csr_wdata.next = row[10].into();
            core.clock.next = Clock { clk: false };
            assert!(
                simulate(&mut core, 100),
                "rust-hdl simulation did not settle"
            );
            core.clock.next = Clock { clk: true };
            assert!(
                simulate(&mut core, 100),
                "rust-hdl simulation did not settle"
            );
            if k >= reset_cycles {
                outputs.push(vec![
                    core.enq_drop.val() as u64,
                    core.xoff_valid.val() as u64,
                    core.xoff_port.val().to_u64(),
                    core.xoff_prio.val().to_u64(),
                    core.xon_valid.val() as u64,
                    core.xon_port.val().to_u64(),
                    core.xon_prio.val().to_u64(),
                    core.frame_valid.val() as u64,
                    core.frame_port.val().to_u64(),
                    core.frame_class_enable.val().to_u64(),
                    core.frame_pause.val().to_u64(),
                    core.frame_quanta.val().to_u64(),
                    core.csr_rdata.val().to_u64(),
                ]);
            }
        }
        outputs
    })
}
