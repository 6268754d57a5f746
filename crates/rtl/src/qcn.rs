//! QCN in rust-hdl: the register-transfer form of `switchcraft_model::qcn`.
//!
//! Contract and cycle semantics: docs/blocks/qcn.md and crates/model/src/qcn.rs. The core is the
//! congestion point ([`cp::Cp`], eight stages at II = 1) beside P4QCN's ingress PFC, which is
//! the PFC core itself ([`PfcCore`]) with its own register bank as a window at word
//! [`PFC_BASE`]. The CP's registers are a bank of their own; `csr_rdata` is the bank the read's
//! address named (registered with it), or the P_fb window's RAM copy.

pub mod cp;

use crate::csr_bank::{self, CsrBank};
use crate::pfc::PfcCore;
use crate::tech::Tech;
use cp::Cp;
use rust_hdl::prelude::*;
use switchcraft_core::csr::RegMap;
use switchcraft_model::qcn::{reg, regmap, QcnConfig, PFC_BASE};

/// Word slots of the CP's bank (its registers are words 0..13) and their bits.
const CSR_SLOTS: usize = 16;
const CSR_BITS: usize = 32 * CSR_SLOTS;
const CSR_OFFSET_BITS: usize = 9;
type Bank = CsrBank<CSR_SLOTS, CSR_BITS, CSR_OFFSET_BITS>;

/// The CP's own registers: the map without the PFC's window.
fn cp_regmap(cfg: &QcnConfig) -> RegMap {
    let map = regmap(cfg);
    RegMap::new(
        map.block,
        map.regs
            .into_iter()
            .filter(|r| r.index < PFC_BASE)
            .collect(),
    )
}

/// QCN core for ports addressed by `PB` bits; `PP`, `K` and `KB` as in [`PfcCore`].
#[derive(LogicBlock)]
pub struct QcnCore<const PB: usize, const PP: usize, const K: usize, const KB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub eg_valid: Signal<In, Bit>,
    pub eg_port: Signal<In, Bits<PB>>,
    pub eg_prio: Signal<In, Bits<3>>,
    pub eg_qdepth: Signal<In, Bits<24>>,
    pub eg_src: Signal<In, Bits<32>>,
    pub eg_dst: Signal<In, Bits<32>>,
    pub in_enq_valid: Signal<In, Bit>,
    pub in_enq_port: Signal<In, Bits<PB>>,
    pub in_enq_prio: Signal<In, Bits<3>>,
    pub in_enq_len: Signal<In, Bits<16>>,
    pub in_deq_valid: Signal<In, Bit>,
    pub in_deq_port: Signal<In, Bits<PB>>,
    pub in_deq_prio: Signal<In, Bits<3>>,
    pub in_deq_len: Signal<In, Bits<16>>,
    pub csr_we: Signal<In, Bit>,
    pub csr_addr: Signal<In, Bits<6>>,
    pub csr_wdata: Signal<In, Bits<32>>,

    pub fbp_valid: Signal<Out, Bit>,
    pub fbp_port: Signal<Out, Bits<PB>>,
    pub fbp_prio: Signal<Out, Bits<3>>,
    pub fbp_src: Signal<Out, Bits<32>>,
    pub fbp_dst: Signal<Out, Bits<32>>,
    pub fbp_fb: Signal<Out, Bits<6>>,
    pub in_drop: Signal<Out, Bit>,
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

    pub pfc: PfcCore<PB, PP, K, KB>,
    pub cp: Cp<KB>,
    pub csr: Bank,

    /// Bit p set when port p exists; bit c when priority c exists.
    port_ok: Constant<Bits<PP>>,
    prio_ok: Constant<Bits<8>>,
    prio_bits: Constant<Bits<KB>>,
    prio_mask: Constant<Bits<KB>>,
    /// Word offsets of the CP's registers on the bank's buses.
    at_status: Constant<Bits<CSR_OFFSET_BITS>>,
    at_err: Constant<Bits<CSR_OFFSET_BITS>>,
    at_q_eq: Constant<Bits<CSR_OFFSET_BITS>>,
    at_w: Constant<Bits<CSR_OFFSET_BITS>>,
    at_fb_scale: Constant<Bits<CSR_OFFSET_BITS>>,
    at_fb_gate: Constant<Bits<CSR_OFFSET_BITS>>,
    at_t_fb: Constant<Bits<CSR_OFFSET_BITS>>,
    at_pfb_index: Constant<Bits<CSR_OFFSET_BITS>>,
    pfb_data_word: Constant<Bits<6>>,
    pfb_data_slot: Constant<Bits<CSR_SLOTS>>,
    seed_slot: Constant<Bits<CSR_SLOTS>>,
    window_mask: Constant<Bits<6>>,
    window_base: Constant<Bits<6>>,
    low3: Constant<Bits<6>>,

    /// Which source the registered read returns: the PFC's bank, the P_fb window, else the CP's.
    r_read_pfc: DFF<Bit>,
    r_read_pfb: DFF<Bit>,

    in_range: Signal<Local, Bit>,
    eg_key: Signal<Local, Bits<KB>>,
    in_window: Signal<Local, Bit>,
    fbp_port_wide: Signal<Local, Bits<6>>,
    status_word: Signal<Local, Bits<32>>,
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize> QcnCore<PB, PP, K, KB> {
    pub fn new(cfg: &QcnConfig, tech: Tech) -> Self {
        assert_eq!(1 << PB, PP);
        assert_eq!(KB, PB + cfg.prio_bits() as usize);
        assert_eq!(K, 1 << KB);
        let map = cp_regmap(cfg);
        let at = |name: &str| Bank::offset(&map, name);
        let mut port_ok = Bits::<PP>::default();
        for p in 0..PP {
            port_ok = port_ok.replace_bit(p, p < cfg.ports as usize);
        }
        let c6 = |v: u64| Constant::new(Bits::<6>::from(v));
        QcnCore {
            clock: Default::default(),
            reset: Default::default(),
            eg_valid: Default::default(),
            eg_port: Default::default(),
            eg_prio: Default::default(),
            eg_qdepth: Default::default(),
            eg_src: Default::default(),
            eg_dst: Default::default(),
            in_enq_valid: Default::default(),
            in_enq_port: Default::default(),
            in_enq_prio: Default::default(),
            in_enq_len: Default::default(),
            in_deq_valid: Default::default(),
            in_deq_port: Default::default(),
            in_deq_prio: Default::default(),
            in_deq_len: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            fbp_valid: Default::default(),
            fbp_port: Default::default(),
            fbp_prio: Default::default(),
            fbp_src: Default::default(),
            fbp_dst: Default::default(),
            fbp_fb: Default::default(),
            in_drop: Default::default(),
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
            pfc: PfcCore::new(&cfg.pfc_config(), tech),
            cp: Cp::new(cfg),
            csr: Bank::new(&map),
            port_ok: Constant::new(port_ok),
            prio_ok: Constant::new(((1u64 << cfg.priorities) - 1).into()),
            prio_bits: Constant::new(u64::from(cfg.prio_bits()).into()),
            prio_mask: Constant::new(switchcraft_core::mask(cfg.prio_bits()).into()),
            at_status: at("status"),
            at_err: at("err"),
            at_q_eq: at("q_eq"),
            at_w: at("w"),
            at_fb_scale: at("fb_scale"),
            at_fb_gate: at("fb_gate"),
            at_t_fb: at("t_fb"),
            at_pfb_index: at("pfb_index"),
            pfb_data_word: c6(reg::PFB_DATA.into()),
            pfb_data_slot: Bank::strobe(&map, "pfb_data"),
            seed_slot: Bank::strobe(&map, "lfsr_seed"),
            window_mask: c6(0x38),
            window_base: c6(PFC_BASE.into()),
            low3: c6(7),
            r_read_pfc: Default::default(),
            r_read_pfb: Default::default(),
            in_range: Default::default(),
            eg_key: Default::default(),
            in_window: Default::default(),
            fbp_port_wide: Default::default(),
            status_word: Default::default(),
        }
    }
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize> Logic
    for QcnCore<PB, PP, K, KB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_read_pfc, r_read_pfb);

        // ---- The ingress PFC: the in_* buses, and the CSR bus when it names the window.
        self.in_window.next =
            (self.csr_addr.val() & self.window_mask.val()) == self.window_base.val();
        self.pfc.clock.next = self.clock.val();
        self.pfc.reset.next = self.reset.val();
        self.pfc.enq_valid.next = self.in_enq_valid.val();
        self.pfc.enq_port.next = self.in_enq_port.val();
        self.pfc.enq_prio.next = self.in_enq_prio.val();
        self.pfc.enq_len.next = self.in_enq_len.val();
        self.pfc.deq_valid.next = self.in_deq_valid.val();
        self.pfc.deq_port.next = self.in_deq_port.val();
        self.pfc.deq_prio.next = self.in_deq_prio.val();
        self.pfc.deq_len.next = self.in_deq_len.val();
        self.pfc.csr_we.next = self.csr_we.val() & self.in_window.val();
        self.pfc.csr_addr.next = self.csr_addr.val() & self.low3.val();
        self.pfc.csr_wdata.next = self.csr_wdata.val();
        self.in_drop.next = self.pfc.enq_drop.val();
        self.xoff_valid.next = self.pfc.xoff_valid.val();
        self.xoff_port.next = self.pfc.xoff_port.val();
        self.xoff_prio.next = self.pfc.xoff_prio.val();
        self.xon_valid.next = self.pfc.xon_valid.val();
        self.xon_port.next = self.pfc.xon_port.val();
        self.xon_prio.next = self.pfc.xon_prio.val();
        self.frame_valid.next = self.pfc.frame_valid.val();
        self.frame_port.next = self.pfc.frame_port.val();
        self.frame_class_enable.next = self.pfc.frame_class_enable.val();
        self.frame_pause.next = self.pfc.frame_pause.val();
        self.frame_quanta.next = self.pfc.frame_quanta.val();

        // ---- The CP's bank.
        self.csr.clock.next = self.clock.val();
        self.csr.reset.next = self.reset.val();
        self.csr.we.next = self.csr_we.val();
        self.csr.addr.next = self.csr_addr.val();
        self.csr.raddr.next = self.csr_addr.val();
        self.csr.wdata.next = self.csr_wdata.val();
        self.status_word.next = 0.into();
        if self.cp.ready.val() {
            self.status_word.next = 1.into();
        }
        self.csr.hw_value.next =
            bit_cast::<CSR_BITS, 32>(self.status_word.val()) << self.at_status.val();
        self.csr.hw_set.next = bit_cast::<CSR_BITS, 2>(self.cp.err.val()) << self.at_err.val();

        // ---- The congestion point.
        self.in_range.next = self.port_ok.val().get_bit(self.eg_port.val().index())
            & self.prio_ok.val().get_bit(self.eg_prio.val().index());
        self.eg_key.next = (bit_cast::<KB, PB>(self.eg_port.val()) << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.eg_prio.val()) & self.prio_mask.val());
        self.cp.clock.next = self.clock.val();
        self.cp.reset.next = self.reset.val();
        self.cp.eg_valid.next = self.eg_valid.val();
        self.cp.eg_in_range.next = self.in_range.val();
        self.cp.eg_key.next = self.eg_key.val();
        self.cp.eg_port.next = bit_cast::<6, PB>(self.eg_port.val());
        self.cp.eg_prio.next = self.eg_prio.val();
        self.cp.eg_qdepth.next = self.eg_qdepth.val();
        self.cp.eg_src.next = self.eg_src.val();
        self.cp.eg_dst.next = self.eg_dst.val();
        self.cp.q_eq.next = self
            .csr
            .value
            .val()
            .get_bits::<24>(self.at_q_eq.val().index());
        self.cp.w.next = self.csr.value.val().get_bits::<4>(self.at_w.val().index());
        self.cp.fb_scale.next = self
            .csr
            .value
            .val()
            .get_bits::<13>(self.at_fb_scale.val().index());
        self.cp.fb_gate.next = self.csr.value.val().get_bit(self.at_fb_gate.val().index());
        self.cp.t_fb.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_t_fb.val().index());
        self.cp.pfb_index.next = self
            .csr
            .value
            .val()
            .get_bits::<8>(self.at_pfb_index.val().index());
        self.cp.pfb_write.next = (self.csr.write.val() & self.pfb_data_slot.val()).any();
        self.cp.seed_write.next = (self.csr.write.val() & self.seed_slot.val()).any();
        self.cp.wdata.next = self.csr_wdata.val();
        self.fbp_valid.next = self.cp.fbp_valid.val();
        self.fbp_port_wide.next = self.cp.fbp_port.val();
        self.fbp_port.next = bit_cast::<PB, 6>(self.fbp_port_wide.val());
        self.fbp_prio.next = self.cp.fbp_prio.val();
        self.fbp_src.next = self.cp.fbp_src.val();
        self.fbp_dst.next = self.cp.fbp_dst.val();
        self.fbp_fb.next = self.cp.fbp_fb.val();

        // ---- The registered read: the source its edge's address named.
        self.r_read_pfc.d.next = self.in_window.val();
        self.r_read_pfb.d.next = self.csr_addr.val() == self.pfb_data_word.val();
        self.csr_rdata.next = self.csr.rdata.val();
        if self.r_read_pfb.q.val() {
            self.csr_rdata.next = self.cp.pfb_rdata.val();
        }
        if self.r_read_pfc.q.val() {
            self.csr_rdata.next = self.pfc.csr_rdata.val();
        }
    }
}

/// A fresh `QcnCore` with `$pb` port bits and `$nq` priority bits (the sizes follow from them).
macro_rules! qcn_core {
    ($pb:literal, $nq:literal, $cfg:expr, $tech:expr) => {
        QcnCore::<$pb, { 1 << $pb }, { 1 << ($pb + $nq) }, { $pb + $nq }>::new($cfg, $tech)
    };
}

/// rust-hdl's Verilog of the QCN core for `cfg` (module `top` and its submodules).
pub fn core_verilog(cfg: &QcnConfig, tech: Tech) -> String {
    crate::export::on_large_stack(|| {
        let tech: Tech = tech;
        with_sized_core!(
            (cfg.port_bits(), cfg.prio_bits()),
            qcn_core!(cfg, tech),
            |core| {
                core.connect_all();
                generate_verilog(&core)
            }
        )
    })
}

/// The packaged Verilog, manifest and C header of a QCN instance.
pub fn package(
    cfg: &QcnConfig,
    instance: &str,
    command: &str,
    tech: Tech,
) -> crate::export::Package {
    let config_toml = toml::to_string(cfg).expect("config serializes");
    let schema = switchcraft_model::qcn::port_schema(cfg);
    let map = regmap(cfg);
    use crate::export::Waiver;
    crate::export::package(&crate::export::Source {
        block: "qcn",
        instance,
        command,
        config_toml: &config_toml,
        schema: &schema,
        core_verilog: &core_verilog(cfg, tech),
        tech,
        // The PFC's occupancy memories clear themselves during reset; the CP's tables after it.
        reset_cycles: crate::ram_2w2r::reset_cycles(1 << (cfg.port_bits() + cfg.prio_bits()), tech),
        regmap: &map,
        notes: &[
            "After reset the CP clears its tables for init_cycles edges (status.ready); \
             see docs/blocks/qcn.md.",
            "A PFC frame waits for the arbiter when several ports want one.",
        ],
        waivers: &[
            csr_bank::UNUSED_WAIVER,
            crate::pfc::occupancy_pipeline::WIDE_WAIVER,
            Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &["*_key_port", "*_key_prio", "g_paused", "ingress$xoff_next"],
                reason: "the embedded PFC's: the high bits of its key-field locals, of the frame \
                         generator's selected pause group, and the decision's next-state vector \
                         that only CaPFC reads (see the PFC package).",
            },
            Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &[
                    "hash_top",
                    "draw_hi",
                    "scale_hi",
                    "entry_ts",
                    "fbp_port_wide",
                    "shifted",
                ],
                reason: "locals that hold a shifted word at its full width: only the low bits \
                         the field needs are read (the flow index, the 16-bit draw, the \
                         quantiser's shift, the entry's timestamp, the port's PB bits, Fb6's \
                         6 bits of the shifted product).",
            },
        ],
    })
}
