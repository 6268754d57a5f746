//! CaPFC in rust-hdl: the register-transfer form of `switchcraft_model::capfc`.
//!
//! Contract and cycle semantics: docs/blocks/capfc.md and crates/model/src/capfc.rs. Keys are
//! `{port, priority}` with the configured priority bits (1..=3), as in PFC. The core reuses
//! PFC's ingress logic ([`Ingress`]: the pipelined occupancy and the XOFF/XON decision, whose
//! XOFF vector is I), PFC's single-stage occupancy for the egress queues ([`Occupancy`]) and
//! PFC's frame generator ([`FrameGen`]), and adds three modules for the
//! model's pipeline stages after the egress occupancy, all at initiation interval 1:
//! * [`Counters`]: the counter stage: the occupancy stage's tests registered, the per-input
//!   arrival counters per egress key, in a RAM whose read port A also serves CSR inspections
//!   and whose read port B reads the calibration requests' rows, and Stop-Max's selection;
//! * [`Calibrate`]: the Stop-Calibrate engine and its request queue, in the counter stage;
//! * [`Decision`]: the E stage (the counter stage's requests registered, the E bits with their
//!   set/clear messages) and the D stage (the E counts from the registered messages, and D per
//!   ingress key).
//!
//! This file validates the events, reads the CSR bank, applies the policy at XOFF (Stop-Max
//! sets the maximum's E bit, Stop-Calibrate triggers the engine) and wires the stages.

mod calibrate;
mod counters;
mod decision;
mod pool;
mod thresholds;

use crate::csr_bank::{self, CsrBank};
use crate::pfc::frame_gen::FrameGen;
use crate::pfc::ingress::Ingress;
use crate::pfc::occupancy::Occupancy;
use crate::tech::Tech;
use calibrate::Calibrate;
use counters::Counters;
use decision::Decision;
use pool::Pool;
use rust_hdl::prelude::*;
use switchcraft_core::mask;
use switchcraft_model::capfc::{
    reg as capfc_reg, regmap, CapfcConfig, ERR_EG_UNDERFLOW, ERR_INDEX, ERR_IN_UNDERFLOW,
    ERR_SATURATION,
};
use thresholds::EgressTests;

/// Word slots of the CSR bank (the register map's indices 0..20) and their bits.
pub const CSR_SLOTS: usize = 24;
const CSR_BITS: usize = 32 * CSR_SLOTS;
/// Bits of an offset into the bank's `CSR_BITS`-bit buses.
const CSR_OFFSET_BITS: usize = 10;
type Bank = CsrBank<CSR_SLOTS, CSR_BITS, CSR_OFFSET_BITS>;

/// CaPFC core for ports addressed by `PB` bits: `PP = 2^PB` padded ports, keys of `KB = PB + NQ`
/// bits (`NQ` = the config's priority bits), `K = 2^KB` keys, counter rows of `W = 16 * PP` bits (16-bit lanes), `EB = K * PP` E bits.
#[derive(LogicBlock)]
pub struct CapfcCore<
    const PB: usize,
    const PP: usize,
    const K: usize,
    const KB: usize,
    const W: usize,
    const EB: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub in_enq_valid: Signal<In, Bit>,
    pub in_enq_port: Signal<In, Bits<PB>>,
    pub in_enq_prio: Signal<In, Bits<3>>,
    pub in_enq_len: Signal<In, Bits<16>>,
    pub in_deq_valid: Signal<In, Bit>,
    pub in_deq_port: Signal<In, Bits<PB>>,
    pub in_deq_prio: Signal<In, Bits<3>>,
    pub in_deq_len: Signal<In, Bits<16>>,
    pub eg_enq_valid: Signal<In, Bit>,
    pub eg_enq_port: Signal<In, Bits<PB>>,
    pub eg_enq_prio: Signal<In, Bits<3>>,
    pub eg_enq_input: Signal<In, Bits<PB>>,
    pub eg_enq_len: Signal<In, Bits<16>>,
    pub eg_deq_valid: Signal<In, Bit>,
    pub eg_deq_port: Signal<In, Bits<PB>>,
    pub eg_deq_prio: Signal<In, Bits<3>>,
    pub eg_deq_len: Signal<In, Bits<16>>,
    pub csr_we: Signal<In, Bit>,
    pub csr_addr: Signal<In, Bits<6>>,
    pub csr_wdata: Signal<In, Bits<32>>,

    pub in_drop: Signal<Out, Bit>,
    pub eg_drop: Signal<Out, Bit>,
    pub eset_valid: Signal<Out, Bit>,
    pub eset_port: Signal<Out, Bits<PB>>,
    pub eset_prio: Signal<Out, Bits<3>>,
    pub eset_mask: Signal<Out, Bits<PP>>,
    pub eclr_valid: Signal<Out, Bit>,
    pub eclr_port: Signal<Out, Bits<PB>>,
    pub eclr_prio: Signal<Out, Bits<3>>,
    pub eclr_mask: Signal<Out, Bits<PP>>,
    pub frame_valid: Signal<Out, Bit>,
    pub frame_port: Signal<Out, Bits<PB>>,
    pub frame_class_enable: Signal<Out, Bits<8>>,
    pub frame_pause: Signal<Out, Bits<8>>,
    pub frame_quanta: Signal<Out, Bits<16>>,
    pub csr_rdata: Signal<Out, Bits<32>>,

    /// The ingress occupancy and I per ingress key (PFC's XOFF/XON decision).
    pub ingress: Ingress<KB, K>,
    pub egress: Occupancy<KB, K>,
    /// The shared-memory pool counters (spec §2.7; constant 0 without `[shared]`).
    pub pool: Pool<PB>,
    /// The egress occupancy stage's threshold tests, on its operands.
    eg_tests: EgressTests,
    pub counters: Counters<PB, PP, K, KB, W>,
    pub calibrate: Calibrate<PB, PP, K, KB, W>,
    pub decision: Decision<PB, PP, K, KB, EB>,
    pub frames: FrameGen<PB, PP, K, KB>,
    pub csr: Bank,

    // Parameters of this instance, from the config and the register map.
    port_ok: Constant<Bits<PP>>,
    prio_ok: Constant<Bits<8>>,
    /// Priority bits of a key (`KB - PB`) and their mask.
    prio_bits: Constant<Bits<KB>>,
    prio_mask: Constant<Bits<KB>>,
    policy_cal: Constant<Bits<2>>,
    policy_max: Constant<Bits<2>>,
    err_in_underflow: Constant<Bits<4>>,
    err_eg_underflow: Constant<Bits<4>>,
    err_index: Constant<Bits<4>>,
    err_saturation: Constant<Bits<4>>,
    /// Bit offsets of the registers' words on the CSR bank's buses.
    at_policy: Constant<Bits<CSR_OFFSET_BITS>>,
    at_cut: Constant<Bits<CSR_OFFSET_BITS>>,
    at_in_xoff: Constant<Bits<CSR_OFFSET_BITS>>,
    at_in_xon: Constant<Bits<CSR_OFFSET_BITS>>,
    at_in_max: Constant<Bits<CSR_OFFSET_BITS>>,
    at_eg_xoff: Constant<Bits<CSR_OFFSET_BITS>>,
    at_eg_xon: Constant<Bits<CSR_OFFSET_BITS>>,
    at_eg_warn: Constant<Bits<CSR_OFFSET_BITS>>,
    at_eg_max: Constant<Bits<CSR_OFFSET_BITS>>,
    at_quanta: Constant<Bits<CSR_OFFSET_BITS>>,
    at_refresh: Constant<Bits<CSR_OFFSET_BITS>>,
    /// REFRESH's bit in the CSR bank's write strobes.
    refresh_written: Constant<Bits<CSR_SLOTS>>,
    at_err: Constant<Bits<CSR_OFFSET_BITS>>,
    at_status: Constant<Bits<CSR_OFFSET_BITS>>,
    at_inspect: Constant<Bits<CSR_OFFSET_BITS>>,
    at_inspect_counter: Constant<Bits<CSR_OFFSET_BITS>>,
    at_inspect_e_lo: Constant<Bits<CSR_OFFSET_BITS>>,
    at_inspect_state: Constant<Bits<CSR_OFFSET_BITS>>,
    /// The `sh_*` registers' slots (unmapped, reading 0, without `[shared]`), and the
    /// dedicated bytes, a constant the bank does not store.
    at_sh_port_cap: Constant<Bits<CSR_OFFSET_BITS>>,
    at_sh_pool_cap: Constant<Bits<CSR_OFFSET_BITS>>,
    at_sh_pool_used: Constant<Bits<CSR_OFFSET_BITS>>,
    sh_dedicated: Constant<Bits<32>>,
    inspect_written: Constant<Bits<CSR_SLOTS>>,

    /// An event of edge n - 1 named a port, priority or input that does not exist.
    in_bad: DFF<Bit>,
    eg_bad: DFF<Bit>,
    o_in_drop: DFF<Bit>,
    o_eg_drop: DFF<Bit>,
    /// The egress enqueue's input, alongside the occupancy stage.
    eg_input: DFF<Bits<PB>>,

    // Combinational values.
    in_e_ok: Signal<Local, Bit>,
    in_d_ok: Signal<Local, Bit>,
    eg_e_ok: Signal<Local, Bit>,
    eg_d_ok: Signal<Local, Bit>,
    eg_key_in: Signal<Local, Bits<KB>>,
    /// The port and priority fields of keys (`>>` and `&` by the priority bits).
    eset_key_port: Signal<Local, Bits<KB>>,
    pool_e_key_port: Signal<Local, Bits<KB>>,
    pool_d_key_port: Signal<Local, Bits<KB>>,
    eclr_key_port: Signal<Local, Bits<KB>>,
    eset_key_prio: Signal<Local, Bits<KB>>,
    eclr_key_prio: Signal<Local, Bits<KB>>,
    // CSR.
    status: Signal<Local, Bits<2>>,
    err_set: Signal<Local, Bits<4>>,
}

impl<
        const PB: usize,
        const PP: usize,
        const K: usize,
        const KB: usize,
        const W: usize,
        const EB: usize,
    > CapfcCore<PB, PP, K, KB, W, EB>
{
    pub fn new(cfg: &CapfcConfig, tech: Tech) -> Self {
        assert_eq!(1 << PB, PP);
        assert_eq!(KB, PB + cfg.prio_bits() as usize);
        assert_eq!(K, 1 << KB);
        assert_eq!(W, 16 * PP);
        assert_eq!(EB, K * PP);
        assert!(cfg.ports as usize <= PP);
        let map = regmap(cfg);
        let mut port_ok = Bits::<PP>::default();
        for p in 0..PP {
            port_ok = port_ok.replace_bit(p, p < cfg.ports as usize);
        }
        let at = |name: &str| Bank::offset(&map, name);
        let slot = |index: u32| Constant::new(u64::from(32 * index).into());
        assert_eq!(
            map.get("inspect_e_hi").index,
            map.get("inspect_e_lo").index + 1,
            "the E row is one 64-bit word pair"
        );
        CapfcCore {
            clock: Default::default(),
            reset: Default::default(),
            in_enq_valid: Default::default(),
            in_enq_port: Default::default(),
            in_enq_prio: Default::default(),
            in_enq_len: Default::default(),
            in_deq_valid: Default::default(),
            in_deq_port: Default::default(),
            in_deq_prio: Default::default(),
            in_deq_len: Default::default(),
            eg_enq_valid: Default::default(),
            eg_enq_port: Default::default(),
            eg_enq_prio: Default::default(),
            eg_enq_input: Default::default(),
            eg_enq_len: Default::default(),
            eg_deq_valid: Default::default(),
            eg_deq_port: Default::default(),
            eg_deq_prio: Default::default(),
            eg_deq_len: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            in_drop: Default::default(),
            eg_drop: Default::default(),
            eset_valid: Default::default(),
            eset_port: Default::default(),
            eset_prio: Default::default(),
            eset_mask: Default::default(),
            eclr_valid: Default::default(),
            eclr_port: Default::default(),
            eclr_prio: Default::default(),
            eclr_mask: Default::default(),
            frame_valid: Default::default(),
            frame_port: Default::default(),
            frame_class_enable: Default::default(),
            frame_pause: Default::default(),
            frame_quanta: Default::default(),
            csr_rdata: Default::default(),
            ingress: Ingress::new(cfg.occupancy_bits as usize, cfg.length_bits as usize, tech),
            egress: if cfg.shared.is_some() {
                Occupancy::with_pool(cfg.occupancy_bits as usize, tech)
            } else {
                Occupancy::new(cfg.occupancy_bits as usize, tech)
            },
            pool: Pool::new(cfg),
            eg_tests: EgressTests::new(cfg.occupancy_bits as usize),
            counters: Counters::new(cfg),
            calibrate: Calibrate::new(cfg),
            decision: Decision::new(cfg),
            frames: FrameGen::new(cfg.ports, cfg.priorities),
            csr: Bank::new(&map),
            port_ok: Constant::new(port_ok),
            prio_ok: Constant::new(((1u64 << cfg.priorities) - 1).into()),
            prio_bits: Constant::new(u64::from(cfg.prio_bits()).into()),
            prio_mask: Constant::new(mask(cfg.prio_bits()).into()),
            policy_cal: Constant::new(2u64.into()),
            policy_max: Constant::new(1u64.into()),
            err_in_underflow: Constant::new(ERR_IN_UNDERFLOW.into()),
            err_eg_underflow: Constant::new(ERR_EG_UNDERFLOW.into()),
            err_index: Constant::new(ERR_INDEX.into()),
            err_saturation: Constant::new(ERR_SATURATION.into()),
            at_policy: at("policy"),
            at_cut: at("cut"),
            at_in_xoff: at("in_xoff"),
            at_in_xon: at("in_xon"),
            at_in_max: at("in_max"),
            at_eg_xoff: at("eg_xoff"),
            at_eg_xon: at("eg_xon"),
            at_eg_warn: at("eg_warn"),
            at_eg_max: at("eg_max"),
            at_quanta: at("quanta"),
            at_refresh: at("refresh"),
            refresh_written: CsrBank::<CSR_SLOTS, CSR_BITS, CSR_OFFSET_BITS>::strobe(
                &map, "refresh",
            ),
            at_err: at("err"),
            at_status: at("status"),
            at_inspect: at("inspect"),
            at_inspect_counter: at("inspect_counter"),
            at_inspect_e_lo: at("inspect_e_lo"),
            at_inspect_state: at("inspect_state"),
            at_sh_port_cap: slot(capfc_reg::SH_PORT_CAP),
            at_sh_pool_cap: slot(capfc_reg::SH_POOL_CAP),
            at_sh_pool_used: slot(capfc_reg::SH_POOL_USED),
            sh_dedicated: Constant::new(cfg.shared.map_or(0, |sh| sh.dedicated).into()),
            inspect_written: Bank::strobe(&map, "inspect"),
            in_bad: Default::default(),
            eg_bad: Default::default(),
            o_in_drop: Default::default(),
            o_eg_drop: Default::default(),
            eg_input: Default::default(),
            in_e_ok: Default::default(),
            in_d_ok: Default::default(),
            eg_e_ok: Default::default(),
            eg_d_ok: Default::default(),
            eg_key_in: Default::default(),
            eset_key_port: Default::default(),
            pool_e_key_port: Default::default(),
            pool_d_key_port: Default::default(),
            eclr_key_port: Default::default(),
            eset_key_prio: Default::default(),
            eclr_key_prio: Default::default(),
            status: Default::default(),
            err_set: Default::default(),
        }
    }
}

impl<
        const PB: usize,
        const PP: usize,
        const K: usize,
        const KB: usize,
        const W: usize,
        const EB: usize,
    > Logic for CapfcCore<PB, PP, K, KB, W, EB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_bad, eg_bad, o_in_drop, o_eg_drop, eg_input);

        // ---- Edge n: events naming existing ports and priorities go to the buffers.
        self.in_e_ok.next = self.port_ok.val().get_bit(self.in_enq_port.val().index())
            & self.prio_ok.val().get_bit(self.in_enq_prio.val().index());
        self.in_d_ok.next = self.port_ok.val().get_bit(self.in_deq_port.val().index())
            & self.prio_ok.val().get_bit(self.in_deq_prio.val().index());
        self.eg_e_ok.next = self.port_ok.val().get_bit(self.eg_enq_port.val().index())
            & self.prio_ok.val().get_bit(self.eg_enq_prio.val().index())
            & self.port_ok.val().get_bit(self.eg_enq_input.val().index());
        self.eg_d_ok.next = self.port_ok.val().get_bit(self.eg_deq_port.val().index())
            & self.prio_ok.val().get_bit(self.eg_deq_prio.val().index());
        self.in_bad.d.next = (self.in_enq_valid.val() & !self.in_e_ok.val())
            | (self.in_deq_valid.val() & !self.in_d_ok.val());
        self.eg_bad.d.next = (self.eg_enq_valid.val() & !self.eg_e_ok.val())
            | (self.eg_deq_valid.val() & !self.eg_d_ok.val());

        self.ingress.clock.next = self.clock.val();
        self.ingress.reset.next = self.reset.val();
        self.ingress.enq_valid.next = self.in_enq_valid.val() & self.in_e_ok.val();
        self.ingress.enq_key.next = (bit_cast::<KB, PB>(self.in_enq_port.val())
            << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.in_enq_prio.val()) & self.prio_mask.val());
        self.ingress.enq_len.next = self.in_enq_len.val();
        self.ingress.deq_valid.next = self.in_deq_valid.val() & self.in_d_ok.val();
        self.ingress.deq_key.next = (bit_cast::<KB, PB>(self.in_deq_port.val())
            << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.in_deq_prio.val()) & self.prio_mask.val());
        self.ingress.deq_len.next = self.in_deq_len.val();
        self.ingress.xoff_thr.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_in_xoff.val().index());
        self.ingress.xon_thr.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_in_xon.val().index());
        // While the shared pool is full no ingress enqueue is admitted (a max of 0): the pool
        // as this edge leaves it, for the events this edge captures.
        self.ingress.max_next.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_in_max.val().index());
        if self.pool.full_next.val() {
            self.ingress.max_next.next = 0.into();
        }

        self.eg_key_in.next = (bit_cast::<KB, PB>(self.eg_enq_port.val()) << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.eg_enq_prio.val()) & self.prio_mask.val());
        self.egress.clock.next = self.clock.val();
        self.egress.reset.next = self.reset.val();
        self.egress.enq_valid.next = self.eg_enq_valid.val() & self.eg_e_ok.val();
        self.egress.enq_key.next = self.eg_key_in.val();
        self.egress.enq_len.next = self.eg_enq_len.val();
        self.egress.deq_valid.next = self.eg_deq_valid.val() & self.eg_d_ok.val();
        self.egress.deq_key.next = (bit_cast::<KB, PB>(self.eg_deq_port.val())
            << self.prio_bits.val())
            | (bit_cast::<KB, 3>(self.eg_deq_prio.val()) & self.prio_mask.val());
        self.egress.deq_len.next = self.eg_deq_len.val();
        self.egress.max.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_eg_max.val().index());
        self.egress.dedicated.next = self.sh_dedicated.val();
        self.egress.pool_room.next = self.pool.room.val();

        // ---- The shared pool, beside the egress occupancy stage.
        self.pool.clock.next = self.clock.val();
        self.pool.reset.next = self.reset.val();
        self.pool.e_valid.next = self.egress.e_valid.val();
        self.pool.e_drop.next = self.egress.e_drop.val();
        self.pool_e_key_port.next = self.egress.e_key.val() >> self.prio_bits.val();
        self.pool.e_port.next = bit_cast::<PB, KB>(self.pool_e_key_port.val());
        self.pool.e_base.next = self.egress.e_base.val();
        self.pool.e_b1.next = self.egress.e_b1.val();
        self.pool.d_valid.next = self.egress.d_valid.val();
        self.pool_d_key_port.next = self.egress.d_key.val() >> self.prio_bits.val();
        self.pool.d_port.next = bit_cast::<PB, KB>(self.pool_d_key_port.val());
        self.pool.d_before.next = self.egress.d_before.val();
        self.pool.d_b1.next = self.egress.d_b1.val();
        self.pool.dedicated.next = self.sh_dedicated.val();
        self.pool.port_cap.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_sh_port_cap.val().index());
        self.pool.pool_cap.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_sh_pool_cap.val().index());
        self.pool.pool_cap_next.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_sh_pool_cap.val().index());

        // ---- Arrival counters: the counter stage, one edge after the occupancy stage (its
        // tests registered, its enqueue reading the counter row); read port A also serves
        // inspections, read port B the calibration requests. Stages take the bank's
        // words and other stages' outputs directly, not through this block's locals: Verilator
        // orders this block by the locals its statements share, and a shared local between an
        // input of a stage and a use of that stage's output is a false loop (UNOPTFLAT).
        self.counters.clock.next = self.clock.val();
        self.counters.reset.next = self.reset.val();
        self.eg_input.d.next = self.eg_enq_input.val();
        self.counters.enq_valid.next = self.egress.e_valid.val();
        self.counters.enq_key.next = self.egress.e_key.val();
        self.counters.enq_input.next = self.eg_input.q.val();
        self.counters.inspect_request.next =
            (self.csr.write.val() & self.inspect_written.val()).any();
        self.counters.inspect.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_inspect.val().index());
        self.counters.serve_valid.next = self.calibrate.requesting.val();
        self.counters.serve_key.next = self.calibrate.serve_key.val();
        self.counters.serve_onehot.next = self.calibrate.serve_onehot.val();
        self.counters.e_valid.next = self.egress.e_valid.val();
        self.counters.e_drop.next = self.egress.e_drop.val();
        self.counters.e_at_warn.next = self.eg_tests.e_at_warn.val();
        self.counters.e_at_xoff.next = self.eg_tests.e_at_xoff.val();
        self.counters.d_valid.next = self.egress.d_valid.val();
        self.counters.d_key.next = self.egress.d_key.val();
        self.counters.d_at_warn.next = self.eg_tests.d_at_warn.val();
        self.counters.d_at_xon.next = self.eg_tests.d_at_xon.val();
        self.counters.policy.next = self
            .csr
            .value
            .val()
            .get_bits::<3>(self.at_policy.val().index());
        self.eg_tests.e_len.next = self.egress.e_len.val();
        self.eg_tests.d_len.next = self.egress.d_len.val();
        self.eg_tests.e_b0.next = self.egress.e_before.val();
        self.eg_tests.d_b0.next = self.egress.d_before.val();
        self.eg_tests.same.next = self.egress.same_key.val();
        self.eg_tests.d_underflow.next = self.egress.d_underflow.val();
        self.eg_tests.xoff.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_eg_xoff.val().index());
        self.eg_tests.warn.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_eg_warn.val().index());
        self.eg_tests.xon.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_eg_xon.val().index());

        // ---- The engine, triggered at XOFF; a dequeue at WARN or XON withdraws its row.
        self.calibrate.clock.next = self.clock.val();
        self.calibrate.reset.next = self.reset.val();
        self.calibrate.serving.next = self.counters.serving.val();
        self.calibrate.served_key.next = self.counters.served_key.val();
        self.calibrate.served_row.next = self.counters.served_row.val();
        self.calibrate.key.next = self.counters.key.val();
        self.calibrate.row_new.next = self.counters.row_new.val();
        self.calibrate.trigger.next = self.counters.cal_trigger.val();
        self.calibrate.withdraw.next =
            self.counters.row_reset.val() | self.counters.xon_clear.val();
        self.calibrate.withdraw_key.next = self.counters.clear_key.val();
        self.calibrate.cut.next = self
            .csr
            .value
            .val()
            .get_bits::<16>(self.at_cut.val().index());
        self.calibrate.enabled.next = self
            .csr
            .value
            .val()
            .get_bits::<2>(self.at_policy.val().index())
            == self.policy_cal.val();

        // ---- E bits and D, one and two stages after the counter stage; the frame generator
        // follows D.
        self.decision.clock.next = self.clock.val();
        self.decision.reset.next = self.reset.val();
        self.decision.clear_valid.next = self.counters.xon_clear.val();
        self.decision.clear_key.next = self.counters.clear_key.val();
        self.decision.max_valid.next = self.counters.max_set.val();
        self.decision.max_key.next = self.counters.max_key.val();
        self.decision.max_flags.next = self.counters.max_flags.val();
        self.decision.cal_valid.next = self.calibrate.result.val();
        self.decision.cal_key.next = self.calibrate.cal_key.val();
        self.decision.cal_flags.next = self.calibrate.flags.val();
        self.decision.stop_max.next = self
            .csr
            .value
            .val()
            .get_bits::<2>(self.at_policy.val().index())
            == self.policy_max.val();
        self.decision.xoff.next = self.ingress.xoff.val();
        self.decision.xoff_next.next = self.ingress.xoff_next.val();
        self.decision.inspect_key.next = self.counters.inspect_key.val();
        self.decision.inspect_key_ok.next = self.counters.inspect_key_ok.val();
        self.decision.inspect_next.next = self
            .csr
            .value_next
            .val()
            .get_bits::<32>(self.at_inspect.val().index());
        self.frames.clock.next = self.clock.val();
        self.frames.reset.next = self.reset.val();
        self.frames.paused.next = self.decision.d.val();
        self.frames.flipped.next = self.decision.d.val() ^ self.decision.d_next.val();
        self.frames.changed_ports.next = 0.into();
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

        // ---- Drops.
        self.o_in_drop.d.next = self.ingress.drop.val();
        self.o_eg_drop.d.next = self.egress.e_drop.val();

        // ---- CSR bus: read the value before the edge; writes apply at the edge.
        self.status.next = 0.into();
        self.status.next = self
            .status
            .val()
            .replace_bit(0, self.counters.inspect_busy.val());
        self.status.next = self.status.val().replace_bit(1, self.calibrate.busy.val());
        // CSR bank: the bus, the status words as they are before the edge.
        self.csr.clock.next = self.clock.val();
        self.csr.reset.next = self.reset.val();
        self.csr.we.next = self.csr_we.val();
        self.csr.addr.next = self.csr_addr.val();
        self.csr.raddr.next = self.csr_addr.val();
        self.csr.wdata.next = self.csr_wdata.val();
        self.csr.hw_value.next = (bit_cast::<CSR_BITS, 2>(self.status.val())
            << self.at_status.val())
            | (bit_cast::<CSR_BITS, 16>(self.counters.inspected.val())
                << self.at_inspect_counter.val())
            | (bit_cast::<CSR_BITS, 64>(self.decision.inspect_row.val())
                << self.at_inspect_e_lo.val())
            | (bit_cast::<CSR_BITS, 16>(self.decision.inspect_state.val())
                << self.at_inspect_state.val())
            | (bit_cast::<CSR_BITS, 32>(self.pool.used_now.val()) << self.at_sh_pool_used.val());
        self.err_set.next = 0.into();
        if self.ingress.underflow.val() {
            self.err_set.next = self.err_set.val() | self.err_in_underflow.val();
        }
        if self.egress.d_underflow.val() {
            self.err_set.next = self.err_set.val() | self.err_eg_underflow.val();
        }
        if self.in_bad.q.val() | self.eg_bad.q.val() {
            self.err_set.next = self.err_set.val() | self.err_index.val();
        }
        if self.counters.saturated.val() {
            self.err_set.next = self.err_set.val() | self.err_saturation.val();
        }
        self.csr.hw_set.next = bit_cast::<CSR_BITS, 4>(self.err_set.val()) << self.at_err.val();

        // ---- Outputs.
        self.in_drop.next = self.o_in_drop.q.val();
        self.eg_drop.next = self.o_eg_drop.q.val();
        self.eset_valid.next = self.decision.eset_valid.val();
        self.eset_key_port.next = self.decision.eset_key.val() >> self.prio_bits.val();
        self.eset_port.next = bit_cast::<PB, KB>(self.eset_key_port.val());
        self.eset_key_prio.next = self.decision.eset_key.val() & self.prio_mask.val();
        self.eset_prio.next = bit_cast::<3, KB>(self.eset_key_prio.val());
        self.eset_mask.next = self.decision.eset_mask.val();
        self.eclr_valid.next = self.decision.eclr_valid.val();
        self.eclr_key_port.next = self.decision.eclr_key.val() >> self.prio_bits.val();
        self.eclr_port.next = bit_cast::<PB, KB>(self.eclr_key_port.val());
        self.eclr_key_prio.next = self.decision.eclr_key.val() & self.prio_mask.val();
        self.eclr_prio.next = bit_cast::<3, KB>(self.eclr_key_prio.val());
        self.eclr_mask.next = self.decision.eclr_mask.val();
        self.frame_valid.next = self.frames.frame_valid.val();
        self.frame_port.next = self.frames.frame_port.val();
        self.frame_class_enable.next = self.frames.frame_class_enable.val();
        self.frame_pause.next = self.frames.frame_pause.val();
        self.frame_quanta.next = self.frames.frame_quanta.val();
        self.csr_rdata.next = self.csr.rdata.val();

        // ---- Synchronous reset: registers to their reset values.
        if self.reset.val() {
            self.in_bad.d.next = false;
            self.eg_bad.d.next = false;
            self.o_in_drop.d.next = false;
            self.o_eg_drop.d.next = false;
        }
    }
}

/// A fresh `CapfcCore` with `$pb` port bits and `$nq` priority bits (the sizes follow from them).
macro_rules! capfc_core {
    ($pb:literal, $nq:literal, $cfg:expr, $tech:expr) => {
        CapfcCore::<
            $pb,
            { 1 << $pb },
            { 1 << ($pb + $nq) },
            { $pb + $nq },
            { 16 << $pb },
            { 1 << ($pb + $nq + $pb) },
        >::new($cfg, $tech)
    };
}

/// Calls `$body` with `$core` bound to a fresh `CapfcCore` sized for `$cfg`.
macro_rules! with_capfc_core {
    ($cfg:expr, $tech:expr, |$core:ident| $body:expr) => {{
        let cfg: &CapfcConfig = $cfg;
        let tech: Tech = $tech;
        with_sized_core!(
            (cfg.port_bits(), cfg.prio_bits()),
            capfc_core!(cfg, tech),
            |$core| $body
        )
    }};
}

/// rust-hdl's Verilog of the CaPFC core for `cfg` (module `top` and its submodules).
pub fn core_verilog(cfg: &CapfcConfig, tech: Tech) -> String {
    crate::export::on_large_stack(|| {
        with_capfc_core!(cfg, tech, |core| {
            core.connect_all();
            generate_verilog(&core)
        })
    })
}

/// The packaged Verilog, manifest and C header of a CaPFC instance.
pub fn package(
    cfg: &CapfcConfig,
    instance: &str,
    command: &str,
    tech: Tech,
) -> crate::export::Package {
    let config_toml = toml::to_string(cfg).expect("config serializes");
    let schema = switchcraft_model::capfc::port_schema(cfg);
    let map = regmap(cfg);
    use crate::export::Waiver;
    crate::export::package(&crate::export::Source {
        block: "capfc",
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
            "Egress events pass four stages (occupancy, counters, E, D; docs/blocks/capfc.md,",
            "\"Pipeline\"); the E requests wait two edges for Stop-Max's selection. Stop-Calibrate",
            "sets eset_* 7 + max(m, 1) edges after the triggering enqueue (m flagged counters).",
        ],
        waivers: &[
            csr_bank::UNUSED_WAIVER,
            Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &[
                    "ingress$xoff_event",
                    "ingress$xon_event",
                    "ingress$e_key",
                    "ingress$d_key",
                    "egress$e_key",
                ],
                reason: "outputs of the sub-blocks shared with PFC that CaPFC does not need \
                         (PFC's pause-request events, the egress stage's key's priority).",
            },
            Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &["*_wide"],
                reason: "the `*_wide` locals hold a pool counter row shifted right by a \
                     port's offset, of which the low 32 bits are read.",
            },
            Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &["e_rows$rows"],
                reason: "the whole E matrix: the core reads rows through the E rows' read \
                         ports; the matrix is an output for the formal properties \
                         (formal/capfc/capfc_props.sv probes it).",
            },
            Waiver {
                rule: "UNUSEDSIGNAL",
                signals: &[
                    "*_key_port",
                    "*_key_prio",
                    "inspect",
                    "inspect_next",
                    "insp_next_port8",
                    "g_paused",
                ],
                reason: "the high bits of the key-field locals, which keep the key's width \
                         through the shift or mask (only the low PB port bits or the priority \
                         bits are used), the bits of the `inspect` register around its fields \
                         (the stages that read it take the whole word), and \
                         the frame generator's selected pause group (K wide; its low 8 bits at \
                         most are the pause vector).",
            },
        ],
    })
}
