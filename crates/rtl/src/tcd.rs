//! TCD in rust-hdl: the register-transfer form of `switchcraft_model::tcd`.
//!
//! Contract and cycle semantics: docs/blocks/tcd.md and crates/model/src/tcd.rs. Keys are
//! `{port, priority[2:0]}` (priorities padded to 8; PFC and CaPFC key by the bus's priority width).
//!
//! Pipeline, initiation interval 1 on every bus (`mark_*` latency 3):
//! * edge n: the events are captured; the dequeue key (or, on a cycle without a dequeue input,
//!   a pending snapshot index) addresses the entry RAMs;
//! * cycle n (read): the received frame (its RAM write and the per-key flags of both events
//!   land at edge n + 1); the RAMs' words, with the writes they could not see merged, go into
//!   registers with nothing else on the path; the entry's per-key flags (the second
//!   half of their K-way multiplexer) and where its words will come from;
//! * cycle n + 1 (test): every test of the dequeue's flowchart, on the entry as the read found
//!   it (or as bank D's write of edge n + 1 leaves it) and on what the dequeue still deciding in
//!   this cycle will leave in it;
//! * cycle n + 2 (decide): the older dequeue's write, when it names the entry, picks among the
//!   precomputed tests (the bypass), then the flowchart combines bits;
//! * edge n + 3: bank D's new words into registers (`w_*`), output registers;
//! * edge n + 4: bank D's RAM takes the words (from registers: on the ECP5 the LUT RAM's write
//!   data had been the decide stage's longest path).
//!
//! Hazard distances on bank D: 1 through the bypass, 2 through the test stage's forwarding of
//! the registered words, 3 and 4 through the read's merge (the registered words, and the
//! write the RAM takes on the read's edge), 5 and more through the RAM.
//!
//! Four stages named after the model's functions, wired by this core:
//! * [`Capture`]: the events of cycle n, the RAMs' read address, `now`;
//! * [`Entries`]: the entry storage, received frames, the per-key flags and the lookup;
//! * [`Classify`]: the flowchart on the dequeued entry, tested in cycle n + 1, decided in n + 2;
//! * [`Snapshot`]: the `entry_*` words, through the same cycles.
//!
//! The entry has two writers per cycle (a RESUME and a dequeue, on any keys) but 1R1W RAMs
//! have one write port, so it is split by writer, like a live-value table: bank R, written only
//! by the received-frame path, holds `{t_on, Q at RESUME}`; bank D, written only by the dequeue
//! path, holds `{t_T, Q_rec, LAST_STATE}`. A RESUME restarts T at `t_on`, so `pending` (one bit
//! per key: R is newer than D) tells the dequeue path to take `t_T = t_on` and `Q_rec` from R;
//! its write to D then carries them over. Only the dequeue path reads, so each bank is one RAM
//! copy. Small per-key flags live in registers: `paused`, `pending`, and two 2-bit timestamp
//! ages (6 bits).
//!
//! Wrap-safe time without a sweep: a timestamp's age counts the half-wraps of `now` since it was
//! written (all ages step together when `now`'s top bit flips), saturating at 2, reset value 3
//! ("never set"). With age <= 1 the modular difference `now - t` is exact; with age >= 2 it is
//! over half a wrap, longer than any time register can hold, so Ton is long and T expired.
//!
//! The T age's 3 also means "bank D never written" (RAMs have no reset, so D's words are not
//! meaningful yet), and no per-key flag says it: until D's first write the entry's `t_T` is
//! either never set (no RESUME yet) or R's `t_on` (a RESUME is pending), whose age `age_on`
//! is. That write loads the T age from `age_on` (3, never set, becomes 2: no decision reads
//! `t_T` before a RESUME, and the snapshot then shows `age_on`'s 3).

mod capture;
mod classify;
mod entries;
mod snapshot;
mod speeds;

use crate::csr_bank::{self, CsrBank};
use capture::Capture;
use classify::Classify;
use entries::Entries;
use rust_hdl::prelude::*;
use snapshot::Snapshot;
use speeds::Speeds;
use switchcraft_model::tcd::{regmap, TcdConfig, ERR_INDEX};

/// Word slots of the CSR bank (the register map's indices 0..20) and their bits.
pub const CSR_SLOTS: usize = 20;
const CSR_BITS: usize = 32 * CSR_SLOTS;
/// Bits of an offset into the bank's `CSR_BITS`-bit buses.
const CSR_OFFSET_BITS: usize = 10;
type Bank = CsrBank<CSR_SLOTS, CSR_BITS, CSR_OFFSET_BITS>;

/// TCD core for ports addressed by `PB` bits. `PP = 2^PB` padded ports, `K = 8 * PP` keys,
/// `KB = PB + 3` key bits.
#[derive(LogicBlock)]
pub struct TcdCore<const PB: usize, const PP: usize, const K: usize, const KB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub rx_pfc_valid: Signal<In, Bit>,
    pub rx_pfc_port: Signal<In, Bits<PB>>,
    pub rx_pfc_prio: Signal<In, Bits<3>>,
    pub rx_pfc_quanta: Signal<In, Bits<16>>,
    pub rx_pfc_qlen: Signal<In, Bits<32>>,
    pub rx_credit_valid: Signal<In, Bit>,
    pub rx_credit_port: Signal<In, Bits<PB>>,
    pub rx_credit_vl: Signal<In, Bits<3>>,
    pub rx_credit_ok: Signal<In, Bit>,
    pub rx_credit_qlen: Signal<In, Bits<32>>,
    pub deq_valid: Signal<In, Bit>,
    pub deq_port: Signal<In, Bits<PB>>,
    pub deq_prio: Signal<In, Bits<3>>,
    pub deq_qlen: Signal<In, Bits<32>>,
    pub deq_ecn: Signal<In, Bits<2>>,
    pub csr_we: Signal<In, Bit>,
    pub csr_addr: Signal<In, Bits<6>>,
    pub csr_wdata: Signal<In, Bits<32>>,

    pub mark_valid: Signal<Out, Bit>,
    pub mark_port: Signal<Out, Bits<PB>>,
    pub mark_prio: Signal<Out, Bits<3>>,
    pub mark_ecn: Signal<Out, Bits<2>>,
    pub mark_state: Signal<Out, Bits<2>>,
    pub csr_rdata: Signal<Out, Bits<32>>,

    pub csr: Bank,
    pub capture: Capture<PB, PP, KB>,
    pub entries: Entries<K, KB>,
    pub snapshot: Snapshot,
    pub classify: Classify<PB, KB>,
    pub speeds: Speeds<KB>,

    /// Bit offsets of the registers' words on the CSR bank's buses.
    at_mode: Constant<Bits<CSR_OFFSET_BITS>>,
    at_options: Constant<Bits<CSR_OFFSET_BITS>>,
    at_max_ton: Constant<Bits<CSR_OFFSET_BITS>>,
    at_t_period: Constant<Bits<CSR_OFFSET_BITS>>,
    at_k: Constant<Bits<CSR_OFFSET_BITS>>,
    at_k_low: Constant<Bits<CSR_OFFSET_BITS>>,
    at_prio_enable: Constant<Bits<CSR_OFFSET_BITS>>,
    at_now: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_index: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_status: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_t_on: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_t_t: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_q_rec: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_state: Constant<Bits<CSR_OFFSET_BITS>>,
    at_entry_speed: Constant<Bits<CSR_OFFSET_BITS>>,
    /// The `err` flag in the bank's words, and the write strobe of `entry_index`.
    err_flag: Constant<Bits<CSR_BITS>>,
    entry_index_written: Constant<Bits<CSR_SLOTS>>,

    /// `entry_status`: a snapshot is pending or in flight.
    snap_busy: Signal<Local, Bits<32>>,
    one_32: Constant<Bits<32>>,

    // Output registers.
    o_valid: DFF<Bit>,
    o_port: DFF<Bits<PB>>,
    o_prio: DFF<Bits<3>>,
    o_ecn: DFF<Bits<2>>,
    o_state: DFF<Bits<2>>,
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize> TcdCore<PB, PP, K, KB> {
    pub fn new(cfg: &TcdConfig) -> Self {
        assert_eq!(1 << PB, PP);
        assert_eq!(K, 8 * PP);
        assert_eq!(KB, PB + 3);
        assert!(cfg.ports as usize <= PP);
        assert_eq!(ERR_INDEX, 1, "`err` is the one index flag");
        let map = regmap(cfg);
        let at = |name: &str| Bank::offset(&map, name);
        TcdCore {
            clock: Default::default(),
            reset: Default::default(),
            rx_pfc_valid: Default::default(),
            rx_pfc_port: Default::default(),
            rx_pfc_prio: Default::default(),
            rx_pfc_quanta: Default::default(),
            rx_pfc_qlen: Default::default(),
            rx_credit_valid: Default::default(),
            rx_credit_port: Default::default(),
            rx_credit_vl: Default::default(),
            rx_credit_ok: Default::default(),
            rx_credit_qlen: Default::default(),
            deq_valid: Default::default(),
            deq_port: Default::default(),
            deq_prio: Default::default(),
            deq_qlen: Default::default(),
            deq_ecn: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            mark_valid: Default::default(),
            mark_port: Default::default(),
            mark_prio: Default::default(),
            mark_ecn: Default::default(),
            mark_state: Default::default(),
            csr_rdata: Default::default(),
            csr: Bank::new(&map),
            capture: Capture::new(cfg),
            entries: Entries::new(cfg),
            snapshot: Snapshot::new(),
            classify: Classify::new(cfg),
            speeds: Speeds::new(cfg),
            at_mode: at("mode"),
            at_options: at("options"),
            at_max_ton: at("max_ton"),
            at_t_period: at("t_period"),
            at_k: at("k"),
            at_k_low: at("k_low"),
            at_entry_speed: at("entry_speed"),
            at_prio_enable: at("prio_enable"),
            at_now: at("now"),
            at_entry_index: at("entry_index"),
            at_entry_status: at("entry_status"),
            at_entry_t_on: at("entry_t_on"),
            at_entry_t_t: at("entry_t_t"),
            at_entry_q_rec: at("entry_q_rec"),
            at_entry_state: at("entry_state"),
            err_flag: Bank::bits(&map, "err", 1),
            entry_index_written: Bank::strobe(&map, "entry_index"),
            snap_busy: Default::default(),
            one_32: Constant::new(1u64.into()),
            o_valid: Default::default(),
            o_port: Default::default(),
            o_prio: Default::default(),
            o_ecn: Default::default(),
            o_state: Default::default(),
        }
    }
}

impl<const PB: usize, const PP: usize, const K: usize, const KB: usize> Logic
    for TcdCore<PB, PP, K, KB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, o_valid, o_port, o_prio, o_ecn, o_state);

        // ---- Capture: the events, the snapshot request, time.
        self.capture.clock.next = self.clock.val();
        self.capture.reset.next = self.reset.val();
        self.capture.rx_pfc_valid.next = self.rx_pfc_valid.val();
        self.capture.rx_pfc_port.next = self.rx_pfc_port.val();
        self.capture.rx_pfc_prio.next = self.rx_pfc_prio.val();
        self.capture.rx_pfc_quanta.next = self.rx_pfc_quanta.val();
        self.capture.rx_pfc_qlen.next = self.rx_pfc_qlen.val();
        self.capture.rx_credit_valid.next = self.rx_credit_valid.val();
        self.capture.rx_credit_port.next = self.rx_credit_port.val();
        self.capture.rx_credit_vl.next = self.rx_credit_vl.val();
        self.capture.rx_credit_ok.next = self.rx_credit_ok.val();
        self.capture.rx_credit_qlen.next = self.rx_credit_qlen.val();
        self.capture.deq_valid.next = self.deq_valid.val();
        self.capture.deq_port.next = self.deq_port.val();
        self.capture.deq_prio.next = self.deq_prio.val();
        self.capture.deq_qlen.next = self.deq_qlen.val();
        self.capture.deq_ecn.next = self.deq_ecn.val();
        self.capture.mode.next = self.csr.value.val().get_bit(self.at_mode.val().index());
        self.capture.prio_enable_next.next = self
            .csr
            .value_next
            .val()
            .get_bits::<8>(self.at_prio_enable.val().index());
        self.capture.entry_index_next.next = self
            .csr
            .value_next
            .val()
            .get_bits::<KB>(self.at_entry_index.val().index());
        self.capture.snap_write.next =
            (self.csr.write.val() & self.entry_index_written.val()).any();

        // ---- Entries: storage, received frames, lookup, snapshot.
        self.snapshot.clock.next = self.clock.val();
        self.snapshot.reset.next = self.reset.val();
        self.snapshot.read.next = self.capture.snap_read.val();
        self.snapshot.ok.next = self.capture.snap_ok.val();
        self.snapshot.t_on.next = self.entries.entry_t_on.val();
        self.snapshot.t_t.next = self.entries.entry_t_t.val();
        self.snapshot.q_rec.next = self.entries.entry_q_rec.val();
        self.snapshot.last_state.next = self.entries.entry_ls.val();
        self.snapshot.paused.next = self.entries.entry_paused.val();
        self.snapshot.age_w.next = self.entries.age_w.val();
        self.snapshot.bypass.next = self.classify.bypass_next.val();
        self.snapshot.last_t.next = self.classify.last_t.val();
        self.snapshot.last_qs.next = self.classify.last_qs.val();
        self.snapshot.age_on.next = self.entries.entry_age_on.val();
        self.snapshot.age_t.next = self.entries.entry_age_t.val();
        self.entries.clock.next = self.clock.val();
        self.entries.reset.next = self.reset.val();
        self.entries.rx_valid.next = self.capture.rx_valid.val();
        self.entries.rx_stop.next = self.capture.rx_stop.val();
        self.entries.rx_key.next = self.capture.rx_key.val();
        self.entries.rx_qlen.next = self.capture.rx_qlen.val();
        self.entries.now.next = self.capture.now.val();
        self.entries.half_wrap.next = self.capture.half_wrap.val();
        self.entries.flag_write.next = self.classify.write_now.val();
        self.entries.write.next = self.classify.write.val();
        self.entries.write_key.next = self.classify.write_key.val();
        self.entries.last_t.next = self.classify.last_t.val();
        self.entries.last_qs.next = self.classify.last_qs.val();
        self.entries.lookup_key.next = self.capture.lookup_key.val();
        self.entries.mode.next = self.csr.value.val().get_bit(self.at_mode.val().index());
        self.entries.next_p_valid.next = self.capture.next_p_valid.val();
        self.entries.next_p_key.next = self.capture.next_p_key.val();
        self.entries.next_p_stop.next = self.capture.next_p_stop.val();
        self.entries.next_c_valid.next = self.capture.next_c_valid.val();
        self.entries.next_c_key.next = self.capture.next_c_key.val();
        self.entries.next_c_stop.next = self.capture.next_c_stop.val();
        self.entries.next_d_valid.next = self.capture.next_d_valid.val();
        self.entries.next_d_key.next = self.capture.next_d_key.val();

        // ---- Classify: the flowchart on the dequeued entry.
        self.classify.clock.next = self.clock.val();
        self.classify.reset.next = self.reset.val();
        self.classify.now.next = self.capture.now.val();
        self.classify.options.next = self
            .csr
            .value
            .val()
            .get_bits::<2>(self.at_options.val().index());
        self.classify.k.next = self.speeds.k.val();
        self.classify.k_low.next = self.speeds.k_low.val();
        self.classify.d_enabled.next = self.capture.d_enabled.val();
        self.classify.max_ton.next = self.speeds.max_ton.val();
        self.classify.t_period.next = self.speeds.t_period.val();

        // ---- Speed classes: the dequeue's class and the windows onto the tables.
        self.speeds.clock.next = self.clock.val();
        self.speeds.reset.next = self.reset.val();
        self.speeds.write.next = self.csr.write.val();
        self.speeds.wdata.next = self.csr_wdata.val();
        self.speeds.value.next = self.csr.value.val();
        self.speeds.next_d_key.next = self.capture.next_d_key.val();
        self.classify.d_valid.next = self.capture.d_valid.val();
        self.classify.d_bad.next = self.capture.d_bad.val();
        self.classify.d_port.next = self.capture.d_port.val();
        self.classify.d_key.next = self.capture.d_key.val();
        self.classify.lk_key.next = self.entries.lk_key.val();
        self.classify.age_w.next = self.entries.age_w.val();
        self.classify.d_prio.next = self.capture.d_prio.val();
        self.classify.d_qlen.next = self.capture.d_qlen.val();
        self.classify.d_ecn.next = self.capture.d_ecn.val();
        self.classify.same_key.next = self.entries.same_key.val();
        self.classify.rx_qlen.next = self.entries.fw_r_q.val();
        self.classify.ram_r_t.next = self.entries.ram_r_t.val();
        self.classify.ram_r_q.next = self.entries.ram_r_q.val();
        self.classify.ram_d_t.next = self.entries.ram_d_t.val();
        self.classify.ram_d_q.next = self.entries.ram_d_q.val();
        self.classify.tq_ram_r.next = self.entries.tq_ram_r.val();
        self.classify.tq_fw_d.next = self.entries.tq_fw_d.val();
        self.classify.tq_ram_d.next = self.entries.tq_ram_d.val();
        self.classify.tq_zero.next = self.entries.tq_zero.val();
        self.classify.on_old.next = self.entries.on_old.val();
        self.classify.t_old_fw.next = self.entries.t_old_fw.val();
        self.classify.t_old_d.next = self.entries.t_old_d.val();
        self.classify.on_one.next = self.entries.on_one.val();
        self.classify.t_one_fw.next = self.entries.t_one_fw.val();
        self.classify.t_one_d.next = self.entries.t_one_d.val();
        self.classify.age_t.next = self.entries.age_t.val();
        self.classify.last_state.next = self.entries.last_state.val();

        // ---- The marked packets, decided two cycles after their read.
        self.o_valid.d.next = self.classify.m_valid.val();
        self.o_port.d.next = self.classify.m_port.val();
        self.o_prio.d.next = self.classify.m_prio.val();
        self.o_ecn.d.next = self.classify.m_ecn.val();
        self.o_state.d.next = self.classify.m_state.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
            self.o_port.d.next = 0.into();
            self.o_prio.d.next = 0.into();
            self.o_ecn.d.next = 0.into();
            self.o_state.d.next = 0.into();
        }

        // ---- CSR bank: the bus, the status words as they are before the edge, the flag raised.
        self.csr.clock.next = self.clock.val();
        self.csr.reset.next = self.reset.val();
        self.csr.we.next = self.csr_we.val();
        self.csr.addr.next = self.csr_addr.val();
        self.csr.raddr.next = self.csr_addr.val();
        self.csr.wdata.next = self.csr_wdata.val();
        self.snap_busy.next = self.capture.snap_busy.val();
        if self.snapshot.busy.val() {
            self.snap_busy.next = self.one_32.val();
        }
        self.csr.hw_value.next = (bit_cast::<CSR_BITS, 32>(self.capture.now.val())
            << self.at_now.val())
            | (bit_cast::<CSR_BITS, 32>(self.snap_busy.val()) << self.at_entry_status.val())
            | (bit_cast::<CSR_BITS, 32>(self.snapshot.snap_t_on.val()) << self.at_entry_t_on.val())
            | (bit_cast::<CSR_BITS, 32>(self.snapshot.snap_t_t.val()) << self.at_entry_t_t.val())
            | (bit_cast::<CSR_BITS, 32>(self.snapshot.snap_q_rec.val())
                << self.at_entry_q_rec.val())
            | (bit_cast::<CSR_BITS, 8>(self.snapshot.snap_state.val())
                << self.at_entry_state.val())
            | (bit_cast::<CSR_BITS, 32>(self.speeds.rd_max_ton.val()) << self.at_max_ton.val())
            | (bit_cast::<CSR_BITS, 32>(self.speeds.rd_t_period.val()) << self.at_t_period.val())
            | (bit_cast::<CSR_BITS, 32>(self.speeds.rd_k.val()) << self.at_k.val())
            | (bit_cast::<CSR_BITS, 32>(self.speeds.rd_k_low.val()) << self.at_k_low.val())
            | (bit_cast::<CSR_BITS, 32>(self.speeds.rd_entry_speed.val())
                << self.at_entry_speed.val());
        self.csr.hw_set.next = 0.into();
        if self.capture.rx_bad.val() | self.capture.d_bad.val() {
            self.csr.hw_set.next = self.err_flag.val();
        }

        // ---- Outputs.
        self.mark_valid.next = self.o_valid.q.val();
        self.mark_port.next = self.o_port.q.val();
        self.mark_prio.next = self.o_prio.q.val();
        self.mark_ecn.next = self.o_ecn.q.val();
        self.mark_state.next = self.o_state.q.val();
        self.csr_rdata.next = self.csr.rdata.val();
    }
}

/// Calls `$body` with `$core` bound to a fresh `TcdCore` sized for `$cfg`.
macro_rules! with_tcd_core {
    ($cfg:expr, |$core:ident| $body:expr) => {{
        let cfg: &TcdConfig = $cfg;
        match cfg.port_bits() {
            1 => {
                let mut $core = TcdCore::<1, 2, 16, 4>::new(cfg);
                $body
            }
            2 => {
                let mut $core = TcdCore::<2, 4, 32, 5>::new(cfg);
                $body
            }
            3 => {
                let mut $core = TcdCore::<3, 8, 64, 6>::new(cfg);
                $body
            }
            4 => {
                let mut $core = TcdCore::<4, 16, 128, 7>::new(cfg);
                $body
            }
            5 => {
                let mut $core = TcdCore::<5, 32, 256, 8>::new(cfg);
                $body
            }
            6 => {
                let mut $core = TcdCore::<6, 64, 512, 9>::new(cfg);
                $body
            }
            b => unreachable!("validated configs have 1..=64 ports, not {b} port bits"),
        }
    }};
}

/// rust-hdl's Verilog of the TCD core for `cfg` (module `top` and its submodules).
pub fn core_verilog(cfg: &TcdConfig) -> String {
    crate::export::on_large_stack(|| {
        with_tcd_core!(cfg, |core| {
            core.connect_all();
            generate_verilog(&core)
        })
    })
}

/// The packaged Verilog, manifest and C header of a TCD instance.
/// `tech` is written into the header and manifest; this block's memories take the same form
/// on every target (see docs/blocks/tcd.md).
pub fn package(
    cfg: &TcdConfig,
    instance: &str,
    command: &str,
    tech: crate::tech::Tech,
) -> crate::export::Package {
    let config_toml = toml::to_string(cfg).expect("config serializes");
    let schema = switchcraft_model::tcd::port_schema(cfg);
    let map = regmap(cfg);
    crate::export::package(&crate::export::Source {
        block: "tcd",
        instance,
        command,
        config_toml: &config_toml,
        schema: &schema,
        core_verilog: &core_verilog(cfg),
        tech,
        reset_cycles: 1,
        regmap: &map,
        notes: &[
            "An entry snapshot is readable 3 edges after a cycle without deq_valid.",
            "See docs/blocks/tcd.md.",
        ],
        waivers: &[csr_bank::UNUSED_WAIVER],
    })
}
