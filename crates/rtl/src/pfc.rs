//! PFC in rust-hdl: the register-transfer form of `switchcraft_model::pfc`.
//!
//! Contract and cycle semantics: docs/blocks/pfc.md and crates/model/src/pfc.rs. This file is
//! the hardware: keys are `{port, priority[2:0]}` (priorities padded to 8 so a port's classes
//! form one byte of every per-key vector, like the 802.1Qbb class-enable vector).
//!
//! Pipeline, initiation interval 1 on both event buses:
//! * edge n: the events are captured (`e_*`, `d_*`) and their keys address the occupancy RAMs;
//! * cycle n: read data (or a forwarded value, see below) -> dequeue, then enqueue, net state
//!   change; the frame arbiter and the refresh tick work on the per-key vectors in parallel;
//! * edge n + 1: RAM writes, per-key vectors, output registers.
//!
//! Occupancy lives in RAM but is read-modify-written by two buses per cycle, so it needs two
//! write ports and two read ports. It is built from 1R1W RAMs as a live-value table (LaForest
//! and Steffan, FPGA 2010): bank E is written only by the enqueue path, bank D only by the
//! dequeue path, each bank has one copy per reading path, and two bits per key say which bank is
//! live (`lvt_e`) and whether the key was written since reset (`lvt_any`; RAMs have no reset).
//! The write of edge n is not yet visible to the read of edge n (read-old), so the last write of
//! each bank is forwarded (`fw_*`). When both buses hit one key, the combined result is written
//! to bank E only.

use crate::narrow_ram::NarrowRam;
use rust_hdl::prelude::*;
use switchcraft_model::pfc::{regmap, PfcConfig, ERR_INDEX, ERR_UNDERFLOW};

/// PFC core for ports addressed by `PB` bits. `PP = 2^PB` padded ports, `K = 8 * PP` keys,
/// `KB = PB + 3` key bits (Rust cannot yet derive these from `PB` in a type).
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

    // Parameters of this instance, from the config and the register map.
    /// Bit p set when port p exists.
    port_ok: Constant<Bits<PP>>,
    /// Bit c set when priority c exists.
    prio_ok: Constant<Bits<8>>,
    /// Port number p in byte p (the one-hot to binary encoder's table).
    port_ids: Constant<Bits<K>>,
    occ_mask: Constant<Bits<32>>,
    one_pp: Constant<Bits<PP>>,
    one_k: Constant<Bits<K>>,
    byte_k: Constant<Bits<K>>,
    one_16: Constant<Bits<16>>,
    err_underflow: Constant<Bits<2>>,
    err_index: Constant<Bits<2>>,
    id_word: Constant<Bits<32>>,
    params_word: Constant<Bits<32>>,
    a_id: Constant<Bits<6>>,
    a_params: Constant<Bits<6>>,
    a_xoff: Constant<Bits<6>>,
    a_xon: Constant<Bits<6>>,
    a_max: Constant<Bits<6>>,
    a_quanta: Constant<Bits<6>>,
    a_refresh: Constant<Bits<6>>,
    a_err: Constant<Bits<6>>,
    reset_xoff: Constant<Bits<32>>,
    reset_xon: Constant<Bits<32>>,
    reset_max: Constant<Bits<32>>,
    reset_quanta: Constant<Bits<16>>,
    reset_refresh: Constant<Bits<16>>,

    // Input stage.
    e_valid: DFF<Bit>,
    e_bad: DFF<Bit>,
    e_key: DFF<Bits<KB>>,
    e_len: DFF<Bits<16>>,
    d_valid: DFF<Bit>,
    d_bad: DFF<Bit>,
    d_key: DFF<Bits<KB>>,
    d_len: DFF<Bits<16>>,

    // Occupancy: two banks x two read copies, live-value table, forwarding.
    ram_e_for_enq: NarrowRam<KB>,
    ram_e_for_deq: NarrowRam<KB>,
    ram_d_for_enq: NarrowRam<KB>,
    ram_d_for_deq: NarrowRam<KB>,
    lvt_any: DFF<Bits<K>>,
    lvt_e: DFF<Bits<K>>,
    fw_e_valid: DFF<Bit>,
    fw_e_key: DFF<Bits<KB>>,
    fw_e_val: DFF<Bits<32>>,
    fw_d_valid: DFF<Bit>,
    fw_d_key: DFF<Bits<KB>>,
    fw_d_val: DFF<Bits<32>>,

    // Per-key state and the frame generator.
    xoff: DFF<Bits<K>>,
    changed: DFF<Bits<K>>,
    refresh_due: DFF<Bits<K>>,
    rr_above: DFF<Bits<PP>>,
    refresh_timer: DFF<Bits<16>>,

    // Registers of the CSR map.
    r_xoff: DFF<Bits<32>>,
    r_xon: DFF<Bits<32>>,
    r_max: DFF<Bits<32>>,
    r_quanta: DFF<Bits<16>>,
    r_refresh: DFF<Bits<16>>,
    r_err: DFF<Bits<2>>,

    // Output registers.
    o_drop: DFF<Bit>,
    o_xoff_valid: DFF<Bit>,
    o_xoff_key: DFF<Bits<KB>>,
    o_xon_valid: DFF<Bit>,
    o_xon_key: DFF<Bits<KB>>,
    o_frame_valid: DFF<Bit>,
    o_frame_port: DFF<Bits<PB>>,
    o_frame_ce: DFF<Bits<8>>,
    o_frame_pause: DFF<Bits<8>>,
    o_frame_quanta: DFF<Bits<16>>,
    o_rdata: DFF<Bits<32>>,

    // Combinational values of cycle n.
    in_e_key: Signal<Local, Bits<KB>>,
    in_d_key: Signal<Local, Bits<KB>>,
    /// The sampled event names an existing port and priority.
    in_e_ok: Signal<Local, Bit>,
    in_d_ok: Signal<Local, Bit>,
    e_len32: Signal<Local, Bits<32>>,
    d_len32: Signal<Local, Bits<32>>,
    e_b0: Signal<Local, Bits<32>>,
    d_b0: Signal<Local, Bits<32>>,
    same_key: Signal<Local, Bit>,
    d_underflow: Signal<Local, Bit>,
    d_b1: Signal<Local, Bits<32>>,
    xo_d_old: Signal<Local, Bit>,
    xo_d1: Signal<Local, Bit>,
    e_base: Signal<Local, Bits<32>>,
    xo_e_old: Signal<Local, Bit>,
    xo_e_base: Signal<Local, Bit>,
    e_sum: Signal<Local, Bits<33>>,
    e_drop: Signal<Local, Bit>,
    e_b1: Signal<Local, Bits<32>>,
    xo_e1: Signal<Local, Bit>,
    d_final: Signal<Local, Bit>,
    d_write: Signal<Local, Bit>,
    xoff_event: Signal<Local, Bit>,
    xon_event: Signal<Local, Bit>,
    e_onehot: Signal<Local, Bits<K>>,
    d_onehot: Signal<Local, Bits<K>>,
    e_touch: Signal<Local, Bits<K>>,
    d_touch: Signal<Local, Bits<K>>,
    e_set: Signal<Local, Bits<K>>,
    d_set: Signal<Local, Bits<K>>,
    e_chg: Signal<Local, Bits<K>>,
    d_chg: Signal<Local, Bits<K>>,
    dirty_keys: Signal<Local, Bits<K>>,
    dirty_ports: Signal<Local, Bits<PP>>,
    above: Signal<Local, Bits<PP>>,
    candidates: Signal<Local, Bits<PP>>,
    grant: Signal<Local, Bits<PP>>,
    g_port: Signal<Local, Bits<PB>>,
    g_base: Signal<Local, Bits<KB>>,
    g_keys: Signal<Local, Bits<K>>,
    enabled_keys: Signal<Local, Bits<K>>,
    tick: Signal<Local, Bit>,
    tick_keys: Signal<Local, Bits<K>>,
    err_uf_bits: Signal<Local, Bits<2>>,
    err_ix_bits: Signal<Local, Bits<2>>,
    err_clear: Signal<Local, Bits<2>>,
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize> PfcCore<PB, PP, K, KB> {
    pub fn new(cfg: &PfcConfig) -> Self {
        assert_eq!(1 << PB, PP);
        assert_eq!(K, 8 * PP);
        assert_eq!(KB, PB + 3);
        assert!(cfg.ports as usize <= PP);
        let map = regmap(cfg);
        let mut port_ok = Bits::<PP>::default();
        let mut port_ids = Bits::<K>::default();
        for p in 0..PP {
            port_ok = port_ok.replace_bit(p, p < cfg.ports as usize);
            let id: Bits<K> = (p as u64).into();
            port_ids = port_ids | (id << (8 * p) as u64);
        }
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        let c16 = |v: u64| Constant::new(Bits::<16>::from(v));
        let addr = |name: &str| Constant::new(Bits::<6>::from(u64::from(map.get(name).index)));
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
            port_ok: Constant::new(port_ok),
            prio_ok: Constant::new(((1u64 << cfg.priorities) - 1).into()),
            port_ids: Constant::new(port_ids),
            occ_mask: c32(map.get("xoff").mask()),
            one_pp: Constant::new(1u64.into()),
            one_k: Constant::new(1u64.into()),
            byte_k: Constant::new(0xFFu64.into()),
            one_16: c16(1),
            err_underflow: Constant::new(ERR_UNDERFLOW.into()),
            err_index: Constant::new(ERR_INDEX.into()),
            id_word: c32(map.get("id").reset),
            params_word: c32(map.get("params").reset),
            a_id: addr("id"),
            a_params: addr("params"),
            a_xoff: addr("xoff"),
            a_xon: addr("xon"),
            a_max: addr("max"),
            a_quanta: addr("quanta"),
            a_refresh: addr("refresh"),
            a_err: addr("err"),
            reset_xoff: c32(map.get("xoff").reset),
            reset_xon: c32(map.get("xon").reset),
            reset_max: c32(map.get("max").reset),
            reset_quanta: c16(map.get("quanta").reset),
            reset_refresh: c16(map.get("refresh").reset),
            e_valid: Default::default(),
            e_bad: Default::default(),
            e_key: Default::default(),
            e_len: Default::default(),
            d_valid: Default::default(),
            d_bad: Default::default(),
            d_key: Default::default(),
            d_len: Default::default(),
            ram_e_for_enq: NarrowRam::new(cfg.occupancy_bits as usize),
            ram_e_for_deq: NarrowRam::new(cfg.occupancy_bits as usize),
            ram_d_for_enq: NarrowRam::new(cfg.occupancy_bits as usize),
            ram_d_for_deq: NarrowRam::new(cfg.occupancy_bits as usize),
            lvt_any: Default::default(),
            lvt_e: Default::default(),
            fw_e_valid: Default::default(),
            fw_e_key: Default::default(),
            fw_e_val: Default::default(),
            fw_d_valid: Default::default(),
            fw_d_key: Default::default(),
            fw_d_val: Default::default(),
            xoff: Default::default(),
            changed: Default::default(),
            refresh_due: Default::default(),
            rr_above: Default::default(),
            refresh_timer: Default::default(),
            r_xoff: Default::default(),
            r_xon: Default::default(),
            r_max: Default::default(),
            r_quanta: Default::default(),
            r_refresh: Default::default(),
            r_err: Default::default(),
            o_drop: Default::default(),
            o_xoff_valid: Default::default(),
            o_xoff_key: Default::default(),
            o_xon_valid: Default::default(),
            o_xon_key: Default::default(),
            o_frame_valid: Default::default(),
            o_frame_port: Default::default(),
            o_frame_ce: Default::default(),
            o_frame_pause: Default::default(),
            o_frame_quanta: Default::default(),
            o_rdata: Default::default(),
            in_e_key: Default::default(),
            in_d_key: Default::default(),
            in_e_ok: Default::default(),
            in_d_ok: Default::default(),
            e_len32: Default::default(),
            d_len32: Default::default(),
            e_b0: Default::default(),
            d_b0: Default::default(),
            same_key: Default::default(),
            d_underflow: Default::default(),
            d_b1: Default::default(),
            xo_d_old: Default::default(),
            xo_d1: Default::default(),
            e_base: Default::default(),
            xo_e_old: Default::default(),
            xo_e_base: Default::default(),
            e_sum: Default::default(),
            e_drop: Default::default(),
            e_b1: Default::default(),
            xo_e1: Default::default(),
            d_final: Default::default(),
            d_write: Default::default(),
            xoff_event: Default::default(),
            xon_event: Default::default(),
            e_onehot: Default::default(),
            d_onehot: Default::default(),
            e_touch: Default::default(),
            d_touch: Default::default(),
            e_set: Default::default(),
            d_set: Default::default(),
            e_chg: Default::default(),
            d_chg: Default::default(),
            dirty_keys: Default::default(),
            dirty_ports: Default::default(),
            above: Default::default(),
            candidates: Default::default(),
            grant: Default::default(),
            g_port: Default::default(),
            g_base: Default::default(),
            g_keys: Default::default(),
            enabled_keys: Default::default(),
            tick: Default::default(),
            tick_keys: Default::default(),
            err_uf_bits: Default::default(),
            err_ix_bits: Default::default(),
            err_clear: Default::default(),
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
            e_valid,
            e_bad,
            e_key,
            e_len,
            d_valid,
            d_bad,
            d_key,
            d_len,
            lvt_any,
            lvt_e,
            fw_e_valid,
            fw_e_key,
            fw_e_val,
            fw_d_valid,
            fw_d_key,
            fw_d_val,
            xoff,
            changed,
            refresh_due,
            rr_above,
            refresh_timer,
            r_xoff,
            r_xon,
            r_max,
            r_quanta,
            r_refresh,
            r_err,
            o_drop,
            o_xoff_valid,
            o_xoff_key,
            o_xon_valid,
            o_xon_key,
            o_frame_valid,
            o_frame_port,
            o_frame_ce,
            o_frame_pause,
            o_frame_quanta,
            o_rdata
        );
        self.ram_e_for_enq.clock.next = self.clock.val();
        self.ram_e_for_deq.clock.next = self.clock.val();
        self.ram_d_for_enq.clock.next = self.clock.val();
        self.ram_d_for_deq.clock.next = self.clock.val();

        // ---- Edge n: capture the events; their keys address the RAMs.
        self.in_e_key.next =
            (bit_cast::<KB, PB>(self.enq_port.val()) << 3) | bit_cast::<KB, 3>(self.enq_prio.val());
        self.in_d_key.next =
            (bit_cast::<KB, PB>(self.deq_port.val()) << 3) | bit_cast::<KB, 3>(self.deq_prio.val());
        self.in_e_ok.next = self.port_ok.val().get_bit(self.enq_port.val().index())
            & self.prio_ok.val().get_bit(self.enq_prio.val().index());
        self.in_d_ok.next = self.port_ok.val().get_bit(self.deq_port.val().index())
            & self.prio_ok.val().get_bit(self.deq_prio.val().index());
        self.e_valid.d.next = self.enq_valid.val() & self.in_e_ok.val();
        self.e_bad.d.next = self.enq_valid.val() & !self.in_e_ok.val();
        self.e_key.d.next = self.in_e_key.val();
        self.e_len.d.next = self.enq_len.val();
        self.d_valid.d.next = self.deq_valid.val() & self.in_d_ok.val();
        self.d_bad.d.next = self.deq_valid.val() & !self.in_d_ok.val();
        self.d_key.d.next = self.in_d_key.val();
        self.d_len.d.next = self.deq_len.val();
        self.ram_e_for_enq.read_address.next = self.in_e_key.val();
        self.ram_d_for_enq.read_address.next = self.in_e_key.val();
        self.ram_e_for_deq.read_address.next = self.in_d_key.val();
        self.ram_d_for_deq.read_address.next = self.in_d_key.val();

        // ---- Cycle n: occupancy lookups (forwarded write, else live bank, else never written).
        if self.fw_e_valid.q.val() & (self.fw_e_key.q.val() == self.e_key.q.val()) {
            self.e_b0.next = self.fw_e_val.q.val();
        } else if self.fw_d_valid.q.val() & (self.fw_d_key.q.val() == self.e_key.q.val()) {
            self.e_b0.next = self.fw_d_val.q.val();
        } else if !self.lvt_any.q.val().get_bit(self.e_key.q.val().index()) {
            self.e_b0.next = 0.into();
        } else if self.lvt_e.q.val().get_bit(self.e_key.q.val().index()) {
            self.e_b0.next = self.ram_e_for_enq.read_data.val();
        } else {
            self.e_b0.next = self.ram_d_for_enq.read_data.val();
        }
        if self.fw_e_valid.q.val() & (self.fw_e_key.q.val() == self.d_key.q.val()) {
            self.d_b0.next = self.fw_e_val.q.val();
        } else if self.fw_d_valid.q.val() & (self.fw_d_key.q.val() == self.d_key.q.val()) {
            self.d_b0.next = self.fw_d_val.q.val();
        } else if !self.lvt_any.q.val().get_bit(self.d_key.q.val().index()) {
            self.d_b0.next = 0.into();
        } else if self.lvt_e.q.val().get_bit(self.d_key.q.val().index()) {
            self.d_b0.next = self.ram_e_for_deq.read_data.val();
        } else {
            self.d_b0.next = self.ram_d_for_deq.read_data.val();
        }
        self.e_len32.next = bit_cast::<32, 16>(self.e_len.q.val());
        self.d_len32.next = bit_cast::<32, 16>(self.d_len.q.val());
        self.same_key.next = self.e_valid.q.val()
            & self.d_valid.q.val()
            & (self.e_key.q.val() == self.d_key.q.val());

        // Dequeue first: clamp at zero (flagged), XON at or below the threshold.
        self.xo_d_old.next = self.xoff.q.val().get_bit(self.d_key.q.val().index());
        self.d_underflow.next = self.d_valid.q.val() & (self.d_len32.val() > self.d_b0.val());
        if self.d_len32.val() > self.d_b0.val() {
            self.d_b1.next = 0.into();
        } else {
            self.d_b1.next = self.d_b0.val() - self.d_len32.val();
        }
        self.xo_d1.next = self.xo_d_old.val() & !(self.d_b1.val() <= self.r_xon.q.val());

        // Then enqueue, on top of the dequeue when both name one key.
        self.xo_e_old.next = self.xoff.q.val().get_bit(self.e_key.q.val().index());
        if self.same_key.val() {
            self.e_base.next = self.d_b1.val();
            self.xo_e_base.next = self.xo_d1.val();
        } else {
            self.e_base.next = self.e_b0.val();
            self.xo_e_base.next = self.xo_e_old.val();
        }
        self.e_sum.next =
            bit_cast::<33, 32>(self.e_base.val()) + bit_cast::<33, 32>(self.e_len32.val());
        self.e_drop.next =
            self.e_valid.q.val() & (self.e_sum.val() > bit_cast::<33, 32>(self.r_max.q.val()));
        if self.e_drop.val() {
            self.e_b1.next = self.e_base.val();
        } else {
            self.e_b1.next = self.e_sum.val().get_bits::<32>(0);
        }
        self.xo_e1.next = self.xo_e_base.val() | (self.e_b1.val() >= self.r_xoff.q.val());
        if self.same_key.val() {
            self.d_final.next = self.xo_e1.val();
        } else {
            self.d_final.next = self.xo_d1.val();
        }
        self.d_write.next = self.d_valid.q.val() & !self.same_key.val();
        self.xoff_event.next = self.e_valid.q.val() & !self.xo_e_old.val() & self.xo_e1.val();
        self.xon_event.next = self.d_valid.q.val() & self.xo_d_old.val() & !self.d_final.val();

        // Edge n + 1: occupancy writes, live-value table, forwarding registers.
        self.ram_e_for_enq.write_enable.next = self.e_valid.q.val();
        self.ram_e_for_enq.write_address.next = self.e_key.q.val();
        self.ram_e_for_enq.write_data.next = self.e_b1.val();
        self.ram_e_for_deq.write_enable.next = self.e_valid.q.val();
        self.ram_e_for_deq.write_address.next = self.e_key.q.val();
        self.ram_e_for_deq.write_data.next = self.e_b1.val();
        self.ram_d_for_enq.write_enable.next = self.d_write.val();
        self.ram_d_for_enq.write_address.next = self.d_key.q.val();
        self.ram_d_for_enq.write_data.next = self.d_b1.val();
        self.ram_d_for_deq.write_enable.next = self.d_write.val();
        self.ram_d_for_deq.write_address.next = self.d_key.q.val();
        self.ram_d_for_deq.write_data.next = self.d_b1.val();
        self.fw_e_valid.d.next = self.e_valid.q.val();
        self.fw_e_key.d.next = self.e_key.q.val();
        self.fw_e_val.d.next = self.e_b1.val();
        self.fw_d_valid.d.next = self.d_write.val();
        self.fw_d_key.d.next = self.d_key.q.val();
        self.fw_d_val.d.next = self.d_b1.val();

        self.e_onehot.next = self.one_k.val() << self.e_key.q.val();
        self.d_onehot.next = self.one_k.val() << self.d_key.q.val();
        self.e_touch.next = 0.into();
        self.e_set.next = 0.into();
        self.e_chg.next = 0.into();
        if self.e_valid.q.val() {
            self.e_touch.next = self.e_onehot.val();
            if self.xo_e1.val() {
                self.e_set.next = self.e_onehot.val();
            }
            if self.xoff_event.val() {
                self.e_chg.next = self.e_onehot.val();
            }
        }
        self.d_touch.next = 0.into();
        self.d_set.next = 0.into();
        self.d_chg.next = 0.into();
        if self.d_valid.q.val() {
            self.d_touch.next = self.d_onehot.val();
            if self.d_final.val() {
                self.d_set.next = self.d_onehot.val();
            }
            if self.xon_event.val() {
                self.d_chg.next = self.d_onehot.val();
            }
        }
        self.lvt_any.d.next = self.lvt_any.q.val() | self.e_touch.val() | self.d_touch.val();
        if self.d_write.val() {
            self.lvt_e.d.next = (self.lvt_e.q.val() & !self.d_onehot.val()) | self.e_touch.val();
        } else {
            self.lvt_e.d.next = self.lvt_e.q.val() | self.e_touch.val();
        }
        self.xoff.d.next = (self.xoff.q.val() & !(self.e_touch.val() | self.d_touch.val()))
            | self.e_set.val()
            | self.d_set.val();

        // Frame generator: first dirty port after the last one served, round robin.
        self.dirty_keys.next = self.changed.q.val() | self.refresh_due.q.val();
        self.dirty_ports.next = 0.into();
        for p in 0..PP {
            self.dirty_ports.next = self
                .dirty_ports
                .val()
                .replace_bit(p, self.dirty_keys.val().get_bits::<8>(p * 8).any());
        }
        self.above.next = self.dirty_ports.val() & self.rr_above.q.val();
        if self.above.val().any() {
            self.candidates.next = self.above.val();
        } else {
            self.candidates.next = self.dirty_ports.val();
        }
        self.grant.next = self.candidates.val() & (!self.candidates.val() + self.one_pp.val());
        self.g_port.next = 0.into();
        for p in 0..PP {
            if self.grant.val().get_bit(p) {
                self.g_port.next = self.port_ids.val().get_bits::<PB>(p * 8);
            }
        }
        self.g_base.next = bit_cast::<KB, PB>(self.g_port.val()) << 3;
        self.g_keys.next = 0.into();
        if self.grant.val().any() {
            self.g_keys.next = self.byte_k.val() << self.g_base.val();
            self.rr_above.d.next = !(self.grant.val() | (self.grant.val() - self.one_pp.val()));
        }
        self.o_frame_valid.d.next = self.grant.val().any();
        self.o_frame_port.d.next = self.g_port.val();
        self.enabled_keys.next = self.changed.q.val() | self.xoff.q.val();
        self.o_frame_ce.d.next = 0.into();
        self.o_frame_pause.d.next = 0.into();
        self.o_frame_quanta.d.next = 0.into();
        if self.grant.val().any() {
            self.o_frame_ce.d.next = self
                .enabled_keys
                .val()
                .get_bits::<8>(self.g_base.val().index());
            self.o_frame_pause.d.next = self.xoff.q.val().get_bits::<8>(self.g_base.val().index());
            self.o_frame_quanta.d.next = self.r_quanta.q.val();
        }

        // Refresh tick: every REFRESH cycles, flag the paused classes of every port.
        self.tick.next = (self.refresh_timer.q.val() + self.one_16.val()) >= self.r_refresh.q.val();
        self.tick_keys.next = 0.into();
        if self.tick.val() {
            self.refresh_timer.d.next = 0.into();
            self.tick_keys.next = self.xoff.q.val();
        } else {
            self.refresh_timer.d.next = self.refresh_timer.q.val() + self.one_16.val();
        }
        self.changed.d.next =
            (self.changed.q.val() & !self.g_keys.val()) | self.e_chg.val() | self.d_chg.val();
        self.refresh_due.d.next =
            (self.refresh_due.q.val() & !self.g_keys.val()) | self.tick_keys.val();

        // Event outputs (key fields zero when not valid).
        self.o_drop.d.next = self.e_drop.val();
        self.o_xoff_valid.d.next = self.xoff_event.val();
        self.o_xoff_key.d.next = 0.into();
        if self.xoff_event.val() {
            self.o_xoff_key.d.next = self.e_key.q.val();
        }
        self.o_xon_valid.d.next = self.xon_event.val();
        self.o_xon_key.d.next = 0.into();
        if self.xon_event.val() {
            self.o_xon_key.d.next = self.d_key.q.val();
        }

        // CSR bus: read the value before the edge; writes apply at the edge.
        self.o_rdata.d.next = 0.into();
        if self.csr_addr.val() == self.a_id.val() {
            self.o_rdata.d.next = self.id_word.val();
        } else if self.csr_addr.val() == self.a_params.val() {
            self.o_rdata.d.next = self.params_word.val();
        } else if self.csr_addr.val() == self.a_xoff.val() {
            self.o_rdata.d.next = self.r_xoff.q.val();
        } else if self.csr_addr.val() == self.a_xon.val() {
            self.o_rdata.d.next = self.r_xon.q.val();
        } else if self.csr_addr.val() == self.a_max.val() {
            self.o_rdata.d.next = self.r_max.q.val();
        } else if self.csr_addr.val() == self.a_quanta.val() {
            self.o_rdata.d.next = bit_cast::<32, 16>(self.r_quanta.q.val());
        } else if self.csr_addr.val() == self.a_refresh.val() {
            self.o_rdata.d.next = bit_cast::<32, 16>(self.r_refresh.q.val());
        } else if self.csr_addr.val() == self.a_err.val() {
            self.o_rdata.d.next = bit_cast::<32, 2>(self.r_err.q.val());
        }
        self.err_clear.next = 0.into();
        if self.csr_we.val() {
            if self.csr_addr.val() == self.a_xoff.val() {
                self.r_xoff.d.next = self.csr_wdata.val() & self.occ_mask.val();
            }
            if self.csr_addr.val() == self.a_xon.val() {
                self.r_xon.d.next = self.csr_wdata.val() & self.occ_mask.val();
            }
            if self.csr_addr.val() == self.a_max.val() {
                self.r_max.d.next = self.csr_wdata.val() & self.occ_mask.val();
            }
            if self.csr_addr.val() == self.a_quanta.val() {
                self.r_quanta.d.next = self.csr_wdata.val().get_bits::<16>(0);
            }
            if self.csr_addr.val() == self.a_refresh.val() {
                self.r_refresh.d.next = self.csr_wdata.val().get_bits::<16>(0);
            }
            if self.csr_addr.val() == self.a_err.val() {
                self.err_clear.next = self.csr_wdata.val().get_bits::<2>(0);
            }
        }
        self.err_uf_bits.next = 0.into();
        if self.d_underflow.val() {
            self.err_uf_bits.next = self.err_underflow.val();
        }
        self.err_ix_bits.next = 0.into();
        if self.e_bad.q.val() | self.d_bad.q.val() {
            self.err_ix_bits.next = self.err_index.val();
        }
        // A flag raised on this edge wins over a write-1-to-clear of the same edge.
        self.r_err.d.next = (self.r_err.q.val() & !self.err_clear.val())
            | self.err_uf_bits.val()
            | self.err_ix_bits.val();

        // Outputs.
        self.enq_drop.next = self.o_drop.q.val();
        self.xoff_valid.next = self.o_xoff_valid.q.val();
        self.xoff_port.next = self.o_xoff_key.q.val().get_bits::<PB>(3);
        self.xoff_prio.next = self.o_xoff_key.q.val().get_bits::<3>(0);
        self.xon_valid.next = self.o_xon_valid.q.val();
        self.xon_port.next = self.o_xon_key.q.val().get_bits::<PB>(3);
        self.xon_prio.next = self.o_xon_key.q.val().get_bits::<3>(0);
        self.frame_valid.next = self.o_frame_valid.q.val();
        self.frame_port.next = self.o_frame_port.q.val();
        self.frame_class_enable.next = self.o_frame_ce.q.val();
        self.frame_pause.next = self.o_frame_pause.q.val();
        self.frame_quanta.next = self.o_frame_quanta.q.val();
        self.csr_rdata.next = self.o_rdata.q.val();

        // Synchronous reset: registers to their reset values (RAMs are covered by lvt_any).
        if self.reset.val() {
            self.e_valid.d.next = false;
            self.e_bad.d.next = false;
            self.d_valid.d.next = false;
            self.d_bad.d.next = false;
            self.lvt_any.d.next = 0.into();
            self.lvt_e.d.next = 0.into();
            self.fw_e_valid.d.next = false;
            self.fw_d_valid.d.next = false;
            self.xoff.d.next = 0.into();
            self.changed.d.next = 0.into();
            self.refresh_due.d.next = 0.into();
            self.rr_above.d.next = self.port_ok.val();
            self.refresh_timer.d.next = 0.into();
            self.r_xoff.d.next = self.reset_xoff.val();
            self.r_xon.d.next = self.reset_xon.val();
            self.r_max.d.next = self.reset_max.val();
            self.r_quanta.d.next = self.reset_quanta.val();
            self.r_refresh.d.next = self.reset_refresh.val();
            self.r_err.d.next = 0.into();
            self.o_drop.d.next = false;
            self.o_xoff_valid.d.next = false;
            self.o_xoff_key.d.next = 0.into();
            self.o_xon_valid.d.next = false;
            self.o_xon_key.d.next = 0.into();
            self.o_frame_valid.d.next = false;
            self.o_frame_port.d.next = 0.into();
            self.o_frame_ce.d.next = 0.into();
            self.o_frame_pause.d.next = 0.into();
            self.o_frame_quanta.d.next = 0.into();
            self.o_rdata.d.next = 0.into();
        }
    }
}

/// Calls `$body` with `$core` bound to a fresh `PfcCore` sized for `$cfg`.
macro_rules! with_pfc_core {
    ($cfg:expr, |$core:ident| $body:expr) => {{
        let cfg: &PfcConfig = $cfg;
        match cfg.port_bits() {
            1 => {
                let mut $core = PfcCore::<1, 2, 16, 4>::new(cfg);
                $body
            }
            2 => {
                let mut $core = PfcCore::<2, 4, 32, 5>::new(cfg);
                $body
            }
            3 => {
                let mut $core = PfcCore::<3, 8, 64, 6>::new(cfg);
                $body
            }
            4 => {
                let mut $core = PfcCore::<4, 16, 128, 7>::new(cfg);
                $body
            }
            5 => {
                let mut $core = PfcCore::<5, 32, 256, 8>::new(cfg);
                $body
            }
            6 => {
                let mut $core = PfcCore::<6, 64, 512, 9>::new(cfg);
                $body
            }
            b => unreachable!("validated configs have 1..=64 ports, not {b} port bits"),
        }
    }};
}

/// rust-hdl's Verilog of the PFC core for `cfg` (module `top` and its submodules).
pub fn core_verilog(cfg: &PfcConfig) -> String {
    with_pfc_core!(cfg, |core| {
        core.connect_all();
        generate_verilog(&core)
    })
}

/// The packaged Verilog, manifest and C header of a PFC instance.
pub fn package(cfg: &PfcConfig, instance: &str, command: &str) -> crate::export::Package {
    let config_toml = toml::to_string(cfg).expect("config serializes");
    let schema = switchcraft_model::pfc::port_schema(cfg);
    let header = regmap(cfg).c_header(instance, command);
    crate::export::package(&crate::export::Source {
        block: "pfc",
        instance,
        command,
        config_toml: &config_toml,
        schema: &schema,
        core_verilog: &core_verilog(cfg),
        c_header: &header,
        notes: &[
            "Latency: enq_drop, xoff_*, xon_* 1 edge after the events; first frame_* 2 edges;",
            "csr_rdata on the edge that samples csr_addr. See docs/blocks/pfc.md.",
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
    with_pfc_core!(cfg, |core| {
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
