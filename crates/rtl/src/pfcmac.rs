//! pfcmac in rust-hdl: the register-transfer form of `switchcraft_model::pfcmac` (contract and
//! cycle semantics there and in docs/blocks/pfcmac.md), for one link, with `W`-bit AXI-Stream
//! beats of `L = W / 8` byte lanes.
//!
//! * TX: the frame in flight is a shift register of its field bytes (bytes 0..34: the constant
//!   template of destination, EtherType and opcode ORed with the source address, class-enable
//!   vector and times at their positions), loaded when a frame is latched and shifted down one
//!   beat per beat sent, so the beat shown is its low `W` bits, not a multiplexer over the frame;
//!   the padding is zeros and the FCS (bytes 60..64) is ORed in at its beats. The last-beat and
//!   field-beat tests are flags set as the beat index advances. The CRC register takes each
//!   sent beat that holds a field byte (an XOR network derived from `switchcraft_core::fcs`)
//!   one edge after the beat is sent, from a copy of it, so the stream and the XOR network are
//!   in different cycles. The FCS register is the complement of the CRC after the padding's
//!   zero bytes past the last field beat (26 at 8 bits, 20 at 64: one linear map), registered
//!   on every edge: the CRC is final one edge after the last field beat is sent and the FCS
//!   one edge later, before the FCS's beat.
//! * RX: per frame, flags (destination, EtherType and opcode, packing, `rx_tuser`), the length
//!   test at the last beat, the CRC over every beat and whether it is the residue after this
//!   beat, and the bytes of the class-enable vector and the times, captured by position (a
//!   one-hot register of the beat index enables them).
//!   The edge after the last beat judges the frame from those registers, loads the timers and
//!   raises the events: a new frame's first beat may come on that edge, since it rewrites none
//!   of the bytes the verdict reads.

use crate::csr_bank::{self, CsrBank};
use rust_hdl::prelude::*;
use switchcraft_core::fcs::{crc_byte, CRC_INIT, CRC_RESIDUE};
use switchcraft_model::pfcmac::{
    regmap, PfcMacConfig, CLASSES, DESTINATION, FIELD_BYTES, FLAG_BAD_FRAME, FLAG_COALESCED,
    FLAG_SATURATED, FRAME_BYTES, TYPE_AND_OPCODE,
};

/// Word slots of the CSR bank (the register map's indices 0..10) and their bits.
const CSR_SLOTS: usize = 10;
const CSR_BITS: usize = 32 * CSR_SLOTS;
const CSR_OFFSET_BITS: usize = 9;
type Bank = CsrBank<CSR_SLOTS, CSR_BITS, CSR_OFFSET_BITS>;

/// The CRC register after `bytes` bytes as a linear map: bit b of the result is the parity of
/// `crc & crc_masks[b]` XOR the parity of `data & data_masks[b]` (data byte 0 in bits 7:0).
pub fn crc_matrix(bytes: usize) -> ([u64; 32], [u64; 32]) {
    assert!((1..=8).contains(&bytes));
    let run =
        |crc: u32, data: u64| (0..bytes).fold(crc, |c, k| crc_byte(c, (data >> (8 * k)) as u8));
    let crc_masks = crc_after_zeros(bytes);
    let mut data_masks = [0u64; 32];
    for i in 0..8 * bytes {
        let column = run(0, 1 << i);
        for (b, m) in data_masks.iter_mut().enumerate() {
            *m |= u64::from(column >> b & 1) << i;
        }
    }
    (crc_masks, data_masks)
}

/// The CRC register after `bytes` zero bytes as a linear map of the register before them (bit b
/// is the parity of `crc & masks[b]`; zero bytes add nothing but the shifts).
pub fn crc_after_zeros(bytes: usize) -> [u64; 32] {
    let mut masks = [0u64; 32];
    for i in 0..32 {
        let column = (0..bytes).fold(1u32 << i, |c, _| crc_byte(c, 0));
        for (b, m) in masks.iter_mut().enumerate() {
            *m |= u64::from(column >> b & 1) << i;
        }
    }
    masks
}

/// 32 masks packed into one vector, mask b at bits `[64b, 64b + 64)`.
fn pack<const N: usize>(masks: &[u64; 32], width: usize) -> Bits<N> {
    assert_eq!(N, 32 * width);
    let mut packed = Bits::<N>::default();
    for (b, m) in masks.iter().enumerate() {
        packed = packed | (bit_cast::<N, 64>(Bits::<64>::from(*m)) << (width * b) as u64);
    }
    packed
}

fn konst<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

/// The pfcmac core: `W` data bits, `L` lanes, `OB = log2(W)` bits of a lane's bit offset.
#[derive(LogicBlock)]
pub struct PfcMacCore<const W: usize, const L: usize, const OB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub frame_valid: Signal<In, Bit>,
    pub frame_class_enable: Signal<In, Bits<8>>,
    pub frame_pause: Signal<In, Bits<8>>,
    pub frame_quanta: Signal<In, Bits<16>>,
    pub tx_tready: Signal<In, Bit>,
    pub rx_tvalid: Signal<In, Bit>,
    pub rx_tdata: Signal<In, Bits<W>>,
    pub rx_tkeep: Signal<In, Bits<L>>,
    pub rx_tlast: Signal<In, Bit>,
    pub rx_tuser: Signal<In, Bit>,
    pub csr_we: Signal<In, Bit>,
    pub csr_addr: Signal<In, Bits<6>>,
    pub csr_wdata: Signal<In, Bits<32>>,
    pub tx_tvalid: Signal<Out, Bit>,
    pub tx_tdata: Signal<Out, Bits<W>>,
    pub tx_tkeep: Signal<Out, Bits<L>>,
    pub tx_tlast: Signal<Out, Bit>,
    pub paused: Signal<Out, Bits<8>>,
    pub rx_pfc_valid: Signal<Out, Bit>,
    pub rx_pfc_prio: Signal<Out, Bits<3>>,
    pub rx_pfc_quanta: Signal<Out, Bits<16>>,
    pub bad_frame: Signal<Out, Bit>,
    pub csr_rdata: Signal<Out, Bits<32>>,

    pub csr: Bank,

    // ---- TX state.
    pend: DFF<Bits<8>>,
    pend_time: [DFF<Bits<16>>; CLASSES],
    active: DFF<Bit>,
    beat: DFF<Bits<7>>,
    /// The CRC of the frame's field beats sent before the last one sent, and that beat when it
    /// is still to enter (`crc_pending`): the CRC lags the stream by one edge.
    tx_crc: DFF<Bits<32>>,
    crc_beat: DFF<Bits<W>>,
    crc_pending: DFF<Bit>,
    /// `crc_beat` is the frame's first beat: its step starts from the initial value, so a new
    /// frame never has to reset `tx_crc` (which would put the handshake on its path).
    crc_first: DFF<Bit>,
    /// The FCS of the frame in flight, valid from the second edge after its last field beat.
    fcs: DFF<Bits<32>>,
    /// The frame in flight without its FCS, shifted down one beat per beat sent: the beat
    /// shown is its low `W` bits, no multiplexer over the frame (bits past the field beats are
    /// always 0, and synthesis drops them).
    tx_shift: DFF<Bits<512>>,
    /// The beat shown is the frame's last; and it holds a field byte (the CRC takes it).
    tx_last: DFF<Bit>,
    in_fields: DFF<Bit>,
    tx_frames: DFF<Bits<32>>,

    // ---- RX state: the frame being received.
    rx_beats: DFF<Bits<7>>,
    /// The beat index one-hot (bit k: this beat is the frame's beat k; none past 63), so the
    /// captures' enables are one flip-flop each rather than comparisons.
    at_beat: DFF<Bits<64>>,
    da_ok: DFF<Bit>,
    class_ok: DFF<Bit>,
    reached: DFF<Bit>,
    is_packed: DFF<Bit>,
    length_ok: DFF<Bit>,
    tuser: DFF<Bit>,
    rx_crc: DFF<Bits<32>>,
    /// Whether the CRC after this edge's beat is the residue: with `residue_early`, the
    /// verdict on the next edge reads one flip-flop instead of a 32-bit comparison.
    crc_ok: DFF<Bit>,
    r_enable: DFF<Bits<8>>,
    r_hi: [DFF<Bits<8>>; CLASSES],
    r_lo: [DFF<Bits<8>>; CLASSES],
    /// A frame's last beat came on the last edge: judge it on this one.
    ended: DFF<Bit>,
    // ---- RX state: pause, timers, events, counters.
    pause: DFF<Bits<8>>,
    timer: [DFF<Bits<16>>; CLASSES],
    /// The step accumulator one edge ahead: the fraction this edge leaves plus the step it
    /// adds, so bits 24:16 are this edge's whole quanta (see the timers).
    sum: DFF<Bits<25>>,
    /// `QUANTA_STEP` as it was one edge ago: the step the accumulator adds.
    step_prev: DFF<Bits<24>>,
    /// Events raised on the last edge, and which of them are loads (not expiries).
    raised_q: DFF<Bits<8>>,
    loaded_q: DFF<Bits<8>>,
    queued: DFF<Bits<8>>,
    q_quanta: [DFF<Bits<16>>; CLASSES],
    o_valid: DFF<Bit>,
    o_prio: DFF<Bits<3>>,
    o_quanta: DFF<Bits<16>>,
    o_bad: DFF<Bit>,
    rx_frames: DFF<Bits<32>>,
    rx_bad: DFF<Bits<32>>,

    // ---- Constants.
    fcs_on: Constant<Bit>,
    /// The residue test on the beat's edge (8-bit beats, whose CRC step is shallow), not in
    /// the verdict's cycle (64-bit beats: the step is three LUT levels, the test three more).
    residue_early: Constant<Bit>,
    /// Beats of a frame - 1, `tkeep` of its last beat, all lanes.
    last_beat: Constant<Bits<7>>,
    /// The beat before the last, and the last field beat (the beat index when the next beat
    /// is the last, or the first after the fields).
    before_last: Constant<Bits<7>>,
    last_field: Constant<Bits<7>>,
    /// `W`, the shift of `tx_shift` per beat.
    beat_bits: Constant<Bits<10>>,
    last_keep: Constant<Bits<L>>,
    all_keep: Constant<Bits<L>>,
    /// log2(W): a beat's bit offset in the frame is `beat << beat_shift` (the FCS's bytes).
    beat_shift: Constant<Bits<4>>,
    template: Constant<Bits<512>>,
    crc_init: Constant<Bits<32>>,
    /// `QUANTA_STEP`'s reset value.
    step_reset: Constant<Bits<24>>,
    crc_residue: Constant<Bits<32>>,
    /// The CRC step of one beat, and the zero bytes from the last field beat to the FCS.
    crc_by_crc: Constant<Bits<2048>>,
    crc_by_data: Constant<Bits<2048>>,
    crc_to_fcs: Constant<Bits<2048>>,
    /// Bit offsets in the frame vector of the variable bytes.
    sa_at: [Constant<Bits<9>>; 6],
    /// Bit offsets in the 48-bit source address of its bytes, first sent first.
    sa_from: [Constant<Bits<6>>; 6],
    enable_at: Constant<Bits<9>>,
    hi_at: [Constant<Bits<9>>; CLASSES],
    lo_at: [Constant<Bits<9>>; CLASSES],
    fcs_at: Constant<Bits<9>>,
    /// RX byte positions: the beat holding them and their bit offset in `rx_tdata`.
    da_beat: [Constant<Bits<6>>; 6],
    da_lane: [Constant<Bits<OB>>; 6],
    da_byte: [Constant<Bits<8>>; 6],
    to_beat: [Constant<Bits<6>>; 4],
    to_lane: [Constant<Bits<OB>>; 4],
    to_byte: [Constant<Bits<8>>; 4],
    en_beat: Constant<Bits<6>>,
    en_lane: Constant<Bits<OB>>,
    hi_beat: [Constant<Bits<6>>; CLASSES],
    hi_lane: [Constant<Bits<OB>>; CLASSES],
    lo_beat: [Constant<Bits<6>>; CLASSES],
    lo_lane: [Constant<Bits<OB>>; CLASSES],
    class_bit: [Constant<Bits<8>>; CLASSES],
    class_id: [Constant<Bits<3>>; CLASSES],
    ones32: Constant<Bits<32>>,
    c8: Constant<Bits<4>>,
    c32: Constant<Bits<6>>,
    one_l: Constant<Bits<L>>,
    one7: Constant<Bits<7>>,
    one64: Constant<Bits<64>>,
    max7: Constant<Bits<7>>,
    one32: Constant<Bits<32>>,
    at_src_lo: Constant<Bits<CSR_OFFSET_BITS>>,
    at_src_hi: Constant<Bits<CSR_OFFSET_BITS>>,
    at_step: Constant<Bits<CSR_OFFSET_BITS>>,
    at_tx_frames: Constant<Bits<CSR_OFFSET_BITS>>,
    at_rx_frames: Constant<Bits<CSR_OFFSET_BITS>>,
    at_rx_bad: Constant<Bits<CSR_OFFSET_BITS>>,
    at_paused: Constant<Bits<CSR_OFFSET_BITS>>,
    flag_bad: Constant<Bits<CSR_BITS>>,
    flag_saturated: Constant<Bits<CSR_BITS>>,
    flag_coalesced: Constant<Bits<CSR_BITS>>,

    // ---- Combinational values.
    src_lo: Signal<Local, Bits<32>>,
    src_hi: Signal<Local, Bits<16>>,
    src: Signal<Local, Bits<48>>,
    beat_at: Signal<Local, Bits<9>>,
    /// The frame the next latch loads (the fields at their byte positions, no FCS), and the
    /// FCS at its position, read at the beat shown.
    f_sa: [Signal<Local, Bits<8>>; 6],
    f_enable: Signal<Local, Bits<8>>,
    f_hi: [Signal<Local, Bits<8>>; CLASSES],
    f_lo: [Signal<Local, Bits<8>>; CLASSES],
    frame: Signal<Local, Bits<512>>,
    fcs_frame: Signal<Local, Bits<512>>,
    tx_data: Signal<Local, Bits<W>>,
    tx_crc_base: Signal<Local, Bits<32>>,
    tx_crc_next: Signal<Local, Bits<32>>,
    fcs_next: Signal<Local, Bits<32>>,
    sent: Signal<Local, Bit>,
    done: Signal<Local, Bit>,
    pend_now: Signal<Local, Bits<8>>,
    time_now: [Signal<Local, Bits<16>>; CLASSES],
    latch: Signal<Local, Bit>,
    fresh: Signal<Local, Bit>,
    crc_base: Signal<Local, Bits<32>>,
    rx_crc_next: Signal<Local, Bits<32>>,
    rx_byte: Signal<Local, Bits<8>>,
    low_run: Signal<Local, Bit>,
    crc_good: Signal<Local, Bit>,
    good: Signal<Local, Bit>,
    bad: Signal<Local, Bit>,
    /// The fraction the accumulator's sum leaves for the next edge, and its whole quanta.
    sum_fraction: Signal<Local, Bits<16>>,
    sum_whole: Signal<Local, Bits<9>>,
    tick: Signal<Local, Bits<16>>,
    time_rx: [Signal<Local, Bits<16>>; CLASSES],
    left: [Signal<Local, Bits<16>>; CLASSES],
    alive: [Signal<Local, Bit>; CLASSES],
    raised: Signal<Local, Bits<8>>,
    loaded: Signal<Local, Bits<8>>,
    picked: Signal<Local, Bit>,
    sent_bit: Signal<Local, Bits<8>>,
    flags: Signal<Local, Bits<CSR_BITS>>,
}

impl<const W: usize, const L: usize, const OB: usize> PfcMacCore<W, L, OB> {
    pub fn new(cfg: &PfcMacConfig) -> Self {
        assert_eq!(W, cfg.data_bits as usize);
        assert_eq!(L * 8, W);
        assert_eq!(1 << OB, W);
        let map = regmap(cfg);
        let at = |name: &str| Bank::offset(&map, name);
        let beats = cfg.beats();
        // The CRC takes the beats that hold a field byte; the FCS follows the padding's zero
        // bytes from there. The CRC is final one edge after the last of those beats is sent and
        // the FCS register one edge later, so the FCS's beat must be at least two beats on.
        let crc_beats = FIELD_BYTES.div_ceil(L);
        let zeros_before_fcs = FRAME_BYTES - crc_beats * L;
        assert!(FRAME_BYTES / L >= crc_beats + 2);
        let (by_crc, by_data) = crc_matrix(L);
        let to_fcs = crc_after_zeros(zeros_before_fcs);
        let mut template = Bits::<512>::default();
        for (k, &byte) in DESTINATION.iter().enumerate() {
            template = template | (bit_cast::<512, 64>(u64::from(byte).into()) << (8 * k) as u64);
        }
        for (k, &byte) in TYPE_AND_OPCODE.iter().enumerate() {
            template =
                template | (bit_cast::<512, 64>(u64::from(byte).into()) << (8 * (12 + k)) as u64);
        }
        let beat_of = |p: usize| konst::<6>((p / L) as u64);
        let lane_of = |p: usize| konst::<OB>((8 * (p % L)) as u64);
        let bit_at = |p: usize| konst::<9>((8 * p) as u64);
        PfcMacCore {
            clock: Default::default(),
            reset: Default::default(),
            frame_valid: Default::default(),
            frame_class_enable: Default::default(),
            frame_pause: Default::default(),
            frame_quanta: Default::default(),
            tx_tready: Default::default(),
            rx_tvalid: Default::default(),
            rx_tdata: Default::default(),
            rx_tkeep: Default::default(),
            rx_tlast: Default::default(),
            rx_tuser: Default::default(),
            csr_we: Default::default(),
            csr_addr: Default::default(),
            csr_wdata: Default::default(),
            tx_tvalid: Default::default(),
            tx_tdata: Default::default(),
            tx_tkeep: Default::default(),
            tx_tlast: Default::default(),
            paused: Default::default(),
            rx_pfc_valid: Default::default(),
            rx_pfc_prio: Default::default(),
            rx_pfc_quanta: Default::default(),
            bad_frame: Default::default(),
            csr_rdata: Default::default(),
            csr: CsrBank::new(&map),
            pend: Default::default(),
            pend_time: Default::default(),
            active: Default::default(),
            beat: Default::default(),
            tx_crc: Default::default(),
            crc_beat: Default::default(),
            crc_pending: Default::default(),
            crc_first: Default::default(),
            fcs: Default::default(),
            tx_shift: Default::default(),
            tx_last: Default::default(),
            in_fields: Default::default(),
            tx_frames: Default::default(),
            rx_beats: Default::default(),
            at_beat: Default::default(),
            da_ok: Default::default(),
            class_ok: Default::default(),
            reached: Default::default(),
            is_packed: Default::default(),
            length_ok: Default::default(),
            tuser: Default::default(),
            rx_crc: Default::default(),
            crc_ok: Default::default(),
            r_enable: Default::default(),
            r_hi: Default::default(),
            r_lo: Default::default(),
            ended: Default::default(),
            pause: Default::default(),
            timer: Default::default(),
            sum: Default::default(),
            step_prev: Default::default(),
            step_reset: konst(cfg.quanta_step),
            raised_q: Default::default(),
            loaded_q: Default::default(),
            queued: Default::default(),
            q_quanta: Default::default(),
            o_valid: Default::default(),
            o_prio: Default::default(),
            o_quanta: Default::default(),
            o_bad: Default::default(),
            rx_frames: Default::default(),
            rx_bad: Default::default(),
            fcs_on: Constant::new(cfg.fcs),
            residue_early: Constant::new(W == 8),
            last_beat: konst((beats - 1) as u64),
            before_last: konst((beats - 2) as u64),
            last_field: konst((crc_beats - 1) as u64),
            beat_bits: konst(W as u64),
            last_keep: konst(cfg.last_keep()),
            all_keep: konst(switchcraft_core::mask(L as u32)),
            beat_shift: konst(u64::from(W.trailing_zeros())),
            template: Constant::new(template),
            crc_init: konst(CRC_INIT.into()),
            crc_residue: konst(CRC_RESIDUE.into()),
            crc_by_crc: Constant::new(pack::<2048>(&by_crc, 64)),
            crc_by_data: Constant::new(pack::<2048>(&by_data, 64)),
            crc_to_fcs: Constant::new(pack::<2048>(&to_fcs, 64)),
            sa_at: std::array::from_fn(|j| bit_at(6 + j)),
            sa_from: std::array::from_fn(|j| konst((40 - 8 * j) as u64)),
            enable_at: bit_at(17),
            hi_at: std::array::from_fn(|c| bit_at(18 + 2 * c)),
            lo_at: std::array::from_fn(|c| bit_at(19 + 2 * c)),
            fcs_at: bit_at(FRAME_BYTES),
            da_beat: std::array::from_fn(beat_of),
            da_lane: std::array::from_fn(lane_of),
            da_byte: std::array::from_fn(|k| konst(DESTINATION[k].into())),
            to_beat: std::array::from_fn(|k| beat_of(12 + k)),
            to_lane: std::array::from_fn(|k| lane_of(12 + k)),
            to_byte: std::array::from_fn(|k| konst(TYPE_AND_OPCODE[k].into())),
            en_beat: beat_of(17),
            en_lane: lane_of(17),
            hi_beat: std::array::from_fn(|c| beat_of(18 + 2 * c)),
            hi_lane: std::array::from_fn(|c| lane_of(18 + 2 * c)),
            lo_beat: std::array::from_fn(|c| beat_of(19 + 2 * c)),
            lo_lane: std::array::from_fn(|c| lane_of(19 + 2 * c)),
            class_bit: std::array::from_fn(|c| konst(1 << c)),
            class_id: std::array::from_fn(|c| konst(c as u64)),
            ones32: konst(0xffff_ffff),
            c8: konst(8),
            c32: konst(32),
            one_l: konst(1),
            one7: konst(1),
            one64: konst(1),
            max7: konst(127),
            one32: konst(1),
            at_src_lo: at("src_mac_lo"),
            at_src_hi: at("src_mac_hi"),
            at_step: at("quanta_step"),
            at_tx_frames: at("tx_frames"),
            at_rx_frames: at("rx_frames"),
            at_rx_bad: at("rx_bad"),
            at_paused: at("paused"),
            flag_bad: Bank::bits(&map, "flags", FLAG_BAD_FRAME),
            flag_saturated: Bank::bits(&map, "flags", FLAG_SATURATED),
            flag_coalesced: Bank::bits(&map, "flags", FLAG_COALESCED),
            src_lo: Default::default(),
            src_hi: Default::default(),
            src: Default::default(),
            beat_at: Default::default(),
            f_sa: Default::default(),
            f_enable: Default::default(),
            f_hi: Default::default(),
            f_lo: Default::default(),
            frame: Default::default(),
            fcs_frame: Default::default(),
            tx_data: Default::default(),
            tx_crc_base: Default::default(),
            tx_crc_next: Default::default(),
            fcs_next: Default::default(),
            sent: Default::default(),
            done: Default::default(),
            pend_now: Default::default(),
            time_now: Default::default(),
            latch: Default::default(),
            fresh: Default::default(),
            crc_base: Default::default(),
            rx_crc_next: Default::default(),
            rx_byte: Default::default(),
            low_run: Default::default(),
            crc_good: Default::default(),
            good: Default::default(),
            bad: Default::default(),
            sum_fraction: Default::default(),
            sum_whole: Default::default(),
            tick: Default::default(),
            time_rx: Default::default(),
            left: Default::default(),
            alive: Default::default(),
            raised: Default::default(),
            loaded: Default::default(),
            picked: Default::default(),
            sent_bit: Default::default(),
            flags: Default::default(),
        }
    }
}

impl<const W: usize, const L: usize, const OB: usize> Logic for PfcMacCore<W, L, OB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            pend,
            active,
            beat,
            tx_crc,
            crc_beat,
            crc_pending,
            crc_first,
            fcs,
            tx_shift,
            tx_last,
            in_fields,
            tx_frames,
            rx_beats,
            at_beat,
            da_ok,
            class_ok,
            reached,
            is_packed,
            length_ok,
            tuser,
            rx_crc,
            crc_ok,
            r_enable,
            ended,
            pause,
            sum,
            step_prev,
            raised_q,
            loaded_q,
            queued,
            o_valid,
            o_prio,
            o_quanta,
            o_bad,
            rx_frames,
            rx_bad
        );
        for c in 0..8 {
            self.pend_time[c].clock.next = self.clock.val();
            self.pend_time[c].d.next = self.pend_time[c].q.val();
            self.r_hi[c].clock.next = self.clock.val();
            self.r_hi[c].d.next = self.r_hi[c].q.val();
            self.r_lo[c].clock.next = self.clock.val();
            self.r_lo[c].d.next = self.r_lo[c].q.val();
            self.timer[c].clock.next = self.clock.val();
            self.timer[c].d.next = self.timer[c].q.val();
            self.q_quanta[c].clock.next = self.clock.val();
            self.q_quanta[c].d.next = self.q_quanta[c].q.val();
        }
        self.csr.clock.next = self.clock.val();
        self.csr.reset.next = self.reset.val();
        self.csr.we.next = self.csr_we.val();
        self.csr.addr.next = self.csr_addr.val();
        self.csr.raddr.next = self.csr_addr.val();
        self.csr.wdata.next = self.csr_wdata.val();
        self.flags.next = 0.into();

        // ---- TX: the beat shown now, from the shift register (and the FCS at its beats).
        self.beat_at.next = bit_cast::<9, 7>(self.beat.q.val()) << self.beat_shift.val();
        self.fcs_frame.next = bit_cast::<512, 32>(self.fcs.q.val()) << self.fcs_at.val();
        self.tx_data.next = self.tx_shift.q.val().get_bits::<W>(0)
            | self
                .fcs_frame
                .val()
                .get_bits::<W>(self.beat_at.val().index());
        self.tx_tvalid.next = self.active.q.val();
        self.tx_tdata.next = 0.into();
        self.tx_tkeep.next = 0.into();
        self.tx_tlast.next = false;
        if self.active.q.val() {
            self.tx_tdata.next = self.tx_data.val();
            self.tx_tkeep.next = self.all_keep.val();
            if self.tx_last.q.val() {
                self.tx_tkeep.next = self.last_keep.val();
            }
            self.tx_tlast.next = self.tx_last.q.val();
        }

        // ---- TX, edge: the beat sent, the descriptor merged, the next frame latched.
        self.tx_crc_base.next = self.tx_crc.q.val();
        if self.crc_first.q.val() {
            self.tx_crc_base.next = self.crc_init.val();
        }
        self.tx_crc_next.next = 0.into();
        for b in 0..32 {
            if (self.tx_crc_base.val() & self.crc_by_crc.val().get_bits::<32>(b * 64)).xor()
                ^ (self.crc_beat.q.val() & self.crc_by_data.val().get_bits::<W>(b * 64)).xor()
            {
                self.tx_crc_next.next = self.tx_crc_next.val().replace_bit(b, true);
            }
        }
        if self.crc_pending.q.val() {
            self.tx_crc.d.next = self.tx_crc_next.val();
        }
        self.fcs_next.next = 0.into();
        if self.fcs_on.val() {
            for b in 0..32 {
                if !(self.tx_crc.q.val() & self.crc_to_fcs.val().get_bits::<32>(b * 64)).xor() {
                    self.fcs_next.next = self.fcs_next.val().replace_bit(b, true);
                }
            }
        }
        self.fcs.d.next = self.fcs_next.val();
        self.sent.next = self.active.q.val() & self.tx_tready.val();
        self.done.next = self.sent.val() & self.tx_last.q.val();
        self.crc_pending.d.next = false;
        if self.sent.val() {
            self.beat.d.next = self.beat.q.val() + self.one7.val();
            self.tx_shift.d.next = self.tx_shift.q.val() >> self.beat_bits.val();
            self.tx_last.d.next = self.beat.q.val() == self.before_last.val();
            self.in_fields.d.next = self.beat.q.val() < self.last_field.val();
            if self.in_fields.q.val() {
                self.crc_beat.d.next = self.tx_data.val();
                self.crc_pending.d.next = true;
                self.crc_first.d.next = !self.beat.q.val().any();
            }
        }
        if self.done.val() {
            self.active.d.next = false;
            if self.tx_frames.q.val() == self.ones32.val() {
                self.flags.next = self.flags.val() | self.flag_saturated.val();
            } else {
                self.tx_frames.d.next = self.tx_frames.q.val() + self.one32.val();
            }
        }
        self.pend_now.next = self.pend.q.val();
        if self.frame_valid.val() {
            self.pend_now.next = self.pend.q.val() | self.frame_class_enable.val();
        }
        for c in 0..8 {
            self.time_now[c].next = self.pend_time[c].q.val();
            if self.frame_valid.val() & self.frame_class_enable.val().get_bit(c) {
                self.time_now[c].next = 0.into();
                if self.frame_pause.val().get_bit(c) {
                    self.time_now[c].next = self.frame_quanta.val();
                }
            }
            self.pend_time[c].d.next = self.time_now[c].val();
        }
        self.pend.d.next = self.pend_now.val();
        self.latch.next = !(self.active.q.val() & !self.done.val()) & self.pend_now.val().any();
        self.src_lo.next = self
            .csr
            .value
            .val()
            .get_bits::<32>(self.at_src_lo.val().index());
        self.src_hi.next = self
            .csr
            .value
            .val()
            .get_bits::<16>(self.at_src_hi.val().index());
        self.src.next = bit_cast::<48, 32>(self.src_lo.val())
            | (bit_cast::<48, 16>(self.src_hi.val()) << self.c32.val());
        self.f_enable.next = self.pend_now.val();
        for j in 0..6 {
            self.f_sa[j].next = self.src.val().get_bits::<8>(self.sa_from[j].val().index());
        }
        for c in 0..8 {
            self.f_hi[c].next = 0.into();
            self.f_lo[c].next = 0.into();
            if self.pend_now.val().get_bit(c) {
                self.f_hi[c].next = self.time_now[c].val().get_bits::<8>(8);
                self.f_lo[c].next = self.time_now[c].val().get_bits::<8>(0);
            }
        }
        self.frame.next =
            self.template.val() | (bit_cast::<512, 8>(self.f_enable.val()) << self.enable_at.val());
        // Unrolled: rust-hdl evaluates a bit_cast's width outside the loop that holds it.
        self.frame.next =
            self.frame.val() | (bit_cast::<512, 8>(self.f_sa[0].val()) << self.sa_at[0].val());
        self.frame.next =
            self.frame.val() | (bit_cast::<512, 8>(self.f_sa[1].val()) << self.sa_at[1].val());
        self.frame.next =
            self.frame.val() | (bit_cast::<512, 8>(self.f_sa[2].val()) << self.sa_at[2].val());
        self.frame.next =
            self.frame.val() | (bit_cast::<512, 8>(self.f_sa[3].val()) << self.sa_at[3].val());
        self.frame.next =
            self.frame.val() | (bit_cast::<512, 8>(self.f_sa[4].val()) << self.sa_at[4].val());
        self.frame.next =
            self.frame.val() | (bit_cast::<512, 8>(self.f_sa[5].val()) << self.sa_at[5].val());
        self.frame.next = self.frame.val()
            | (bit_cast::<512, 8>(self.f_hi[0].val()) << self.hi_at[0].val())
            | (bit_cast::<512, 8>(self.f_lo[0].val()) << self.lo_at[0].val());
        self.frame.next = self.frame.val()
            | (bit_cast::<512, 8>(self.f_hi[1].val()) << self.hi_at[1].val())
            | (bit_cast::<512, 8>(self.f_lo[1].val()) << self.lo_at[1].val());
        self.frame.next = self.frame.val()
            | (bit_cast::<512, 8>(self.f_hi[2].val()) << self.hi_at[2].val())
            | (bit_cast::<512, 8>(self.f_lo[2].val()) << self.lo_at[2].val());
        self.frame.next = self.frame.val()
            | (bit_cast::<512, 8>(self.f_hi[3].val()) << self.hi_at[3].val())
            | (bit_cast::<512, 8>(self.f_lo[3].val()) << self.lo_at[3].val());
        self.frame.next = self.frame.val()
            | (bit_cast::<512, 8>(self.f_hi[4].val()) << self.hi_at[4].val())
            | (bit_cast::<512, 8>(self.f_lo[4].val()) << self.lo_at[4].val());
        self.frame.next = self.frame.val()
            | (bit_cast::<512, 8>(self.f_hi[5].val()) << self.hi_at[5].val())
            | (bit_cast::<512, 8>(self.f_lo[5].val()) << self.lo_at[5].val());
        self.frame.next = self.frame.val()
            | (bit_cast::<512, 8>(self.f_hi[6].val()) << self.hi_at[6].val())
            | (bit_cast::<512, 8>(self.f_lo[6].val()) << self.lo_at[6].val());
        self.frame.next = self.frame.val()
            | (bit_cast::<512, 8>(self.f_hi[7].val()) << self.hi_at[7].val())
            | (bit_cast::<512, 8>(self.f_lo[7].val()) << self.lo_at[7].val());
        if self.latch.val() {
            self.pend.d.next = 0.into();
            self.active.d.next = true;
            self.beat.d.next = 0.into();
            self.tx_shift.d.next = self.frame.val();
            self.tx_last.d.next = false;
            self.in_fields.d.next = true;
        }

        // ---- RX, edge: the event sent, the last frame's verdict, the timers.
        self.o_valid.d.next = self.queued.q.val().any();
        self.o_prio.d.next = 0.into();
        self.o_quanta.d.next = 0.into();
        self.picked.next = false;
        self.sent_bit.next = 0.into();
        for c in 0..8 {
            if self.queued.q.val().get_bit(c) & !self.picked.val() {
                self.picked.next = true;
                self.sent_bit.next = self.class_bit[c].val();
                self.o_prio.d.next = self.class_id[c].val();
                self.o_quanta.d.next = self.q_quanta[c].q.val();
            }
        }
        self.crc_good.next = self.rx_crc.q.val() == self.crc_residue.val();
        if self.residue_early.val() {
            self.crc_good.next = self.crc_ok.q.val();
        }
        self.good.next = self.ended.q.val()
            & self.class_ok.q.val()
            & self.reached.q.val()
            & self.is_packed.q.val()
            & self.length_ok.q.val()
            & self.da_ok.q.val()
            & !self.tuser.q.val()
            & (!self.fcs_on.val() | self.crc_good.val());
        self.bad.next =
            self.ended.q.val() & self.class_ok.q.val() & self.reached.q.val() & !self.good.val();
        // The step accumulator runs one edge ahead: `sum` holds the fraction this edge leaves
        // plus the step it adds, computed on the last edge, so its bits 24:16 are this edge's
        // whole quanta straight from a register, and the one adder (the fraction left plus the
        // next edge's step) is off the timers' path. (The step is the register one edge old.)
        self.step_prev.d.next = self
            .csr
            .value
            .val()
            .get_bits::<24>(self.at_step.val().index());
        self.sum_fraction.next = self.sum.q.val().get_bits::<16>(0);
        self.sum.d.next = bit_cast::<25, 16>(self.sum_fraction.val())
            + bit_cast::<25, 24>(self.step_prev.d.val());
        if self.reset.val() {
            // Fraction 0 plus the reset step.
            self.step_prev.d.next = self.step_reset.val();
            self.sum.d.next = bit_cast::<25, 24>(self.step_reset.val());
        }
        self.sum_whole.next = self.sum.q.val().get_bits::<9>(16);
        self.tick.next = bit_cast::<16, 9>(self.sum_whole.val());
        // Unrolled, as the frame vector above.
        self.time_rx[0].next = (bit_cast::<16, 8>(self.r_hi[0].q.val()) << self.c8.val())
            | bit_cast::<16, 8>(self.r_lo[0].q.val());
        self.time_rx[1].next = (bit_cast::<16, 8>(self.r_hi[1].q.val()) << self.c8.val())
            | bit_cast::<16, 8>(self.r_lo[1].q.val());
        self.time_rx[2].next = (bit_cast::<16, 8>(self.r_hi[2].q.val()) << self.c8.val())
            | bit_cast::<16, 8>(self.r_lo[2].q.val());
        self.time_rx[3].next = (bit_cast::<16, 8>(self.r_hi[3].q.val()) << self.c8.val())
            | bit_cast::<16, 8>(self.r_lo[3].q.val());
        self.time_rx[4].next = (bit_cast::<16, 8>(self.r_hi[4].q.val()) << self.c8.val())
            | bit_cast::<16, 8>(self.r_lo[4].q.val());
        self.time_rx[5].next = (bit_cast::<16, 8>(self.r_hi[5].q.val()) << self.c8.val())
            | bit_cast::<16, 8>(self.r_lo[5].q.val());
        self.time_rx[6].next = (bit_cast::<16, 8>(self.r_hi[6].q.val()) << self.c8.val())
            | bit_cast::<16, 8>(self.r_lo[6].q.val());
        self.time_rx[7].next = (bit_cast::<16, 8>(self.r_hi[7].q.val()) << self.c8.val())
            | bit_cast::<16, 8>(self.r_lo[7].q.val());
        // The events raised on the last edge join the queue (a loaded class's time is still in
        // the capture registers: a new frame's first beats do not reach them).
        self.queued.d.next = (self.queued.q.val() & !self.sent_bit.val()) | self.raised_q.q.val();
        if ((self.queued.q.val() & !self.sent_bit.val()) & self.raised_q.q.val()).any() {
            self.flags.next = self.flags.val() | self.flag_coalesced.val();
        }
        for c in 0..8 {
            if self.raised_q.q.val().get_bit(c) {
                self.q_quanta[c].d.next = 0.into();
                if self.loaded_q.q.val().get_bit(c) {
                    self.q_quanta[c].d.next = self.time_rx[c].val();
                }
            }
        }
        // This edge's loads and expiries.
        self.raised.next = 0.into();
        self.loaded.next = 0.into();
        self.pause.d.next = self.pause.q.val();
        for c in 0..8 {
            // Expiry is the comparison alone, not a test of the difference for zero.
            self.left[c].next = self.timer[c].q.val() - self.tick.val();
            self.alive[c].next = self.timer[c].q.val() > self.tick.val();
            if !self.alive[c].val() {
                self.left[c].next = 0.into();
            }
            if self.good.val() & self.r_enable.q.val().get_bit(c) {
                self.timer[c].d.next = self.time_rx[c].val();
                self.raised.next = self.raised.val() | self.class_bit[c].val();
                self.loaded.next = self.loaded.val() | self.class_bit[c].val();
                self.pause.d.next = self.pause.d.val() & !self.class_bit[c].val();
                if self.time_rx[c].val().any() {
                    self.pause.d.next = self.pause.d.val() | self.class_bit[c].val();
                }
            } else if self.pause.q.val().get_bit(c) {
                self.timer[c].d.next = self.left[c].val();
                if !self.alive[c].val() {
                    self.raised.next = self.raised.val() | self.class_bit[c].val();
                    self.pause.d.next = self.pause.d.val() & !self.class_bit[c].val();
                }
            }
        }
        self.raised_q.d.next = self.raised.val();
        self.loaded_q.d.next = self.loaded.val();
        self.o_bad.d.next = self.bad.val();
        if self.good.val() {
            if self.rx_frames.q.val() == self.ones32.val() {
                self.flags.next = self.flags.val() | self.flag_saturated.val();
            } else {
                self.rx_frames.d.next = self.rx_frames.q.val() + self.one32.val();
            }
        }
        if self.bad.val() {
            self.flags.next = self.flags.val() | self.flag_bad.val();
            if self.rx_bad.q.val() == self.ones32.val() {
                self.flags.next = self.flags.val() | self.flag_saturated.val();
            } else {
                self.rx_bad.d.next = self.rx_bad.q.val() + self.one32.val();
            }
        }

        // ---- RX, edge: this edge's beat.
        self.ended.d.next = false;
        self.rx_byte.next = 0.into();
        self.fresh.next = self.at_beat.q.val().get_bit(0);
        self.crc_base.next = self.rx_crc.q.val();
        if self.fresh.val() {
            self.crc_base.next = self.crc_init.val();
        }
        self.rx_crc_next.next = 0.into();
        for b in 0..32 {
            if (self.crc_base.val() & self.crc_by_crc.val().get_bits::<32>(b * 64)).xor()
                ^ (self.rx_tdata.val() & self.crc_by_data.val().get_bits::<W>(b * 64)).xor()
            {
                self.rx_crc_next.next = self.rx_crc_next.val().replace_bit(b, true);
            }
        }
        self.crc_ok.d.next = self.rx_crc_next.val() == self.crc_residue.val();
        self.low_run.next = self.rx_tkeep.val().any()
            & !(self.rx_tkeep.val() & (self.rx_tkeep.val() + self.one_l.val())).any();
        if self.rx_tvalid.val() {
            self.rx_crc.d.next = self.rx_crc_next.val();
            self.rx_beats.d.next = self.rx_beats.q.val() + self.one7.val();
            self.at_beat.d.next = self.at_beat.q.val() << self.one7.val();
            if self.rx_beats.q.val() == self.max7.val() {
                self.rx_beats.d.next = self.max7.val();
            }
            if self.fresh.val() {
                self.da_ok.d.next = true;
                self.class_ok.d.next = true;
                self.reached.d.next = false;
                self.is_packed.d.next = true;
                self.tuser.d.next = false;
            }
            for k in 0..6 {
                self.rx_byte.next = self
                    .rx_tdata
                    .val()
                    .get_bits::<8>(self.da_lane[k].val().index());
                if self.at_beat.q.val().get_bit(self.da_beat[k].val().index())
                    & (self.rx_byte.val() != self.da_byte[k].val())
                {
                    self.da_ok.d.next = false;
                }
            }
            for k in 0..4 {
                self.rx_byte.next = self
                    .rx_tdata
                    .val()
                    .get_bits::<8>(self.to_lane[k].val().index());
                if self.at_beat.q.val().get_bit(self.to_beat[k].val().index())
                    & (self.rx_byte.val() != self.to_byte[k].val())
                {
                    self.class_ok.d.next = false;
                }
            }
            if self.at_beat.q.val().get_bit(self.to_beat[3].val().index()) {
                self.reached.d.next = true;
            }
            if self.at_beat.q.val().get_bit(self.en_beat.val().index()) {
                self.r_enable.d.next = self
                    .rx_tdata
                    .val()
                    .get_bits::<8>(self.en_lane.val().index());
            }
            for c in 0..8 {
                if self.at_beat.q.val().get_bit(self.hi_beat[c].val().index()) {
                    self.r_hi[c].d.next = self
                        .rx_tdata
                        .val()
                        .get_bits::<8>(self.hi_lane[c].val().index());
                }
                if self.at_beat.q.val().get_bit(self.lo_beat[c].val().index()) {
                    self.r_lo[c].d.next = self
                        .rx_tdata
                        .val()
                        .get_bits::<8>(self.lo_lane[c].val().index());
                }
            }
            if self.rx_tuser.val() {
                self.tuser.d.next = true;
            }
            if self.rx_tlast.val() {
                if !self.low_run.val() {
                    self.is_packed.d.next = false;
                }
                self.length_ok.d.next = (self.rx_beats.q.val() == self.last_beat.val())
                    & (self.rx_tkeep.val() == self.last_keep.val());
                self.ended.d.next = true;
                self.rx_beats.d.next = 0.into();
                self.at_beat.d.next = self.one64.val();
            } else if self.rx_tkeep.val() != self.all_keep.val() {
                self.is_packed.d.next = false;
            }
        }

        // ---- CSR: status words, the flags raised on this edge.
        self.csr.hw_value.next = (bit_cast::<CSR_BITS, 32>(self.tx_frames.q.val())
            << self.at_tx_frames.val())
            | (bit_cast::<CSR_BITS, 32>(self.rx_frames.q.val()) << self.at_rx_frames.val())
            | (bit_cast::<CSR_BITS, 32>(self.rx_bad.q.val()) << self.at_rx_bad.val())
            | (bit_cast::<CSR_BITS, 8>(self.pause.q.val()) << self.at_paused.val());
        self.csr.hw_set.next = self.flags.val();

        // ---- Outputs.
        self.paused.next = self.pause.q.val();
        self.rx_pfc_valid.next = self.o_valid.q.val();
        self.rx_pfc_prio.next = self.o_prio.q.val();
        self.rx_pfc_quanta.next = self.o_quanta.q.val();
        self.bad_frame.next = self.o_bad.q.val();
        self.csr_rdata.next = self.csr.rdata.val();

        if self.reset.val() {
            self.pend.d.next = 0.into();
            self.active.d.next = false;
            self.beat.d.next = 0.into();
            self.tx_crc.d.next = 0.into();
            self.crc_pending.d.next = false;
            self.tx_last.d.next = false;
            self.tx_frames.d.next = 0.into();
            self.rx_beats.d.next = 0.into();
            self.at_beat.d.next = self.one64.val();
            self.da_ok.d.next = false;
            self.class_ok.d.next = false;
            self.reached.d.next = false;
            self.is_packed.d.next = false;
            self.length_ok.d.next = false;
            self.tuser.d.next = false;
            self.rx_crc.d.next = 0.into();
            self.crc_ok.d.next = false;
            self.r_enable.d.next = 0.into();
            self.ended.d.next = false;
            self.pause.d.next = 0.into();
            self.queued.d.next = 0.into();
            self.raised_q.d.next = 0.into();
            self.loaded_q.d.next = 0.into();
            self.o_valid.d.next = false;
            self.o_prio.d.next = 0.into();
            self.o_quanta.d.next = 0.into();
            self.o_bad.d.next = false;
            self.rx_frames.d.next = 0.into();
            self.rx_bad.d.next = 0.into();
            for c in 0..8 {
                self.pend_time[c].d.next = 0.into();
                self.r_hi[c].d.next = 0.into();
                self.r_lo[c].d.next = 0.into();
                self.timer[c].d.next = 0.into();
                self.q_quanta[c].d.next = 0.into();
            }
        }
    }
}

/// rust-hdl's Verilog of the pfcmac core for `cfg` (module `top` and its submodules).
pub fn core_verilog(cfg: &PfcMacConfig) -> String {
    crate::export::on_large_stack(|| match cfg.data_bits {
        8 => {
            let mut core = PfcMacCore::<8, 1, 3>::new(cfg);
            core.connect_all();
            generate_verilog(&core)
        }
        64 => {
            let mut core = PfcMacCore::<64, 8, 6>::new(cfg);
            core.connect_all();
            generate_verilog(&core)
        }
        w => unreachable!("validated configs have 8 or 64 data bits, not {w}"),
    })
}

/// The packaged Verilog, manifest and C header of a pfcmac instance; its only memories are
/// registers, the same on every target.
pub fn package(
    cfg: &PfcMacConfig,
    instance: &str,
    command: &str,
    tech: crate::tech::Tech,
) -> crate::export::Package {
    let config_toml = toml::to_string(cfg).expect("config serializes");
    let schema = switchcraft_model::pfcmac::port_schema(cfg);
    let map = regmap(cfg);
    crate::export::package(&crate::export::Source {
        block: "pfcmac",
        instance,
        command,
        config_toml: &config_toml,
        schema: &schema,
        core_verilog: &core_verilog(cfg),
        tech,
        reset_cycles: 1,
        regmap: &map,
        notes: &["One link. See docs/blocks/pfcmac.md."],
        waivers: &[csr_bank::UNUSED_WAIVER],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchcraft_core::fcs::crc_bytes;

    #[test]
    fn crc_matrix_reproduces_the_bytewise_crc() {
        for bytes in [1usize, 4, 8] {
            let (by_crc, by_data) = crc_matrix(bytes);
            for (crc, data) in [
                (0u32, 0u64),
                (CRC_INIT, 0x0123_4567_89AB_CDEF),
                (0xDEAD_BEEF, 7),
            ] {
                let data = data & switchcraft_core::mask(8 * bytes as u32);
                let mut next = 0u32;
                for b in 0..32 {
                    let bit = ((u64::from(crc) & by_crc[b]).count_ones()
                        + (data & by_data[b]).count_ones())
                        & 1;
                    next |= bit << b;
                }
                let bytes_le: Vec<u8> = (0..bytes).map(|k| (data >> (8 * k)) as u8).collect();
                assert_eq!(next, crc_bytes(crc, &bytes_le));
            }
        }
    }

    #[test]
    fn crc_after_zeros_reproduces_the_bytewise_crc() {
        for bytes in [0usize, 1, 20, 26] {
            let masks = crc_after_zeros(bytes);
            for crc in [0u32, CRC_INIT, 0xDEAD_BEEF, 1] {
                let mut next = 0u32;
                for (b, m) in masks.iter().enumerate() {
                    next |= ((u64::from(crc) & m).count_ones() & 1) << b;
                }
                assert_eq!(
                    next,
                    crc_bytes(crc, &vec![0u8; bytes]),
                    "{bytes} zero bytes"
                );
            }
        }
    }
}
