//! RCM's sampler of one kind of queue (the VOQs, or the output queues): one arrival per cycle
//! (II = 1) through six stages, the register-transfer form of `Rcm::sample`
//! (crates/model/src/rcm.rs).
//!
//! | edge | stage | work in the cycle after it |
//! |---|---|---|
//! | n | `r_*` capture (arrival, with the CSR values of edge n) | Q_off; the static Fb6 of Q_off, its level and interval; the queue's RAM address |
//! | n+1 | `s1_*` | the byte counter and q_old (RAM, or the arrival one edge older on the same queue): sample or count down; their write; Q_delta |
//! | n+2 | `s2_*` | w x Q_delta |
//! | n+3 | `s3_*` | Fb = Q_off + w Q_delta; Fb > 0; clamped at 0 |
//! | n+4 | `s4_*` | Fb x mantissa |
//! | n+5 | `s5_*` | Fb6 = min(63, product >> shift) |
//! | n+6 | `o_*` outputs: the sample, in the port stage of edge n + 6 ([`SAMPLE_DELAY`]) | |
//!
//! One read-modify-write (`{counter, q_old}` per queue, read at n+1, written at n+2) with a
//! forward for the arrival one edge behind, whose write the RAM's read of the same edge cannot
//! see. While `clearing`, the core's reset sweep writes zeros at `clear_addr` (arrivals are not
//! taken then).
//!
//! [`SAMPLE_DELAY`]: switchcraft_model::rcm::SAMPLE_DELAY

use crate::narrow_ram::{low_bits, NarrowRam};
use rust_hdl::prelude::*;
use switchcraft_model::rcm::{RcmConfig, SAMPLE_DELAY};

/// Width of the sampler's `{counter, q_old}` words on the logic's side; the RAM stores
/// `samp_bits + depth_bits` of them, q_old in the low `depth_bits` and the counter above it.
const WORD: usize = 48;
const _: () = assert!(SAMPLE_DELAY == 6);

#[derive(LogicBlock)]
pub struct Sampler<const KB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Edge n: an arrival the sampler takes (valid, in range, ready), its queue and fields.
    pub valid: Signal<In, Bit>,
    pub key: Signal<In, Bits<KB>>,
    pub q: Signal<In, Bits<24>>,
    pub len: Signal<In, Bits<16>>,
    /// Carried to the outputs unchanged: the ports (port [7:0], VOQ [15:8]) and the flow ID.
    pub tag: Signal<In, Bits<16>>,
    pub fid: Signal<In, Bits<64>>,
    /// The registers as edge n left them.
    pub q_eq: Signal<In, Bits<24>>,
    pub w: Signal<In, Bits<4>>,
    pub fb_scale: Signal<In, Bits<13>>,
    /// The eight sampling intervals, level k at `[32 k +: 24]` (the bank's words).
    pub intervals: Signal<In, Bits<256>>,
    /// The reset sweep: zero the word at `clear_addr`.
    pub clearing: Signal<In, Bit>,
    pub clear_addr: Signal<In, Bits<KB>>,

    /// After edge n + 6: the arrival of edge n was a sample, its Fb > 0, its Fb6, tag and ID.
    pub sampled: Signal<Out, Bit>,
    pub fb_pos: Signal<Out, Bit>,
    pub fb6: Signal<Out, Bits<6>>,
    pub tag_out: Signal<Out, Bits<16>>,
    pub fid_out: Signal<Out, Bits<64>>,

    words: NarrowRam<KB, WORD>,
    q_old_bits: Constant<Bits<8>>,
    depth_mask: Constant<Bits<24>>,
    samp_mask: Constant<Bits<24>>,
    one8: Constant<Bits<8>>,
    c63: Constant<Bits<40>>,
    c64: Constant<Bits<40>>,
    c2: Constant<Bits<8>>,
    c3: Constant<Bits<8>>,
    c4: Constant<Bits<8>>,
    c8: Constant<Bits<8>>,

    // Capture (edge n).
    r_valid: DFF<Bit>,
    r_key: DFF<Bits<KB>>,
    r_q: DFF<Bits<24>>,
    r_len: DFF<Bits<16>>,
    r_tag: DFF<Bits<16>>,
    r_fid: DFF<Bits<64>>,
    // Stage 1.
    s1_valid: DFF<Bit>,
    s1_key: DFF<Bits<KB>>,
    s1_q: DFF<Bits<24>>,
    s1_len: DFF<Bits<16>>,
    s1_reload: DFF<Bits<24>>,
    s1_q_off: DFF<Bits<32>>,
    s1_w: DFF<Bits<4>>,
    s1_scale: DFF<Bits<13>>,
    s1_tag: DFF<Bits<16>>,
    s1_fid: DFF<Bits<64>>,
    // Stage 2 (and the forward of the word it wrote).
    s2_valid: DFF<Bit>,
    s2_key: DFF<Bits<KB>>,
    s2_word: DFF<Bits<WORD>>,
    s2_sampled: DFF<Bit>,
    s2_q_off: DFF<Bits<32>>,
    s2_q_delta: DFF<Bits<32>>,
    s2_w: DFF<Bits<4>>,
    s2_scale: DFF<Bits<13>>,
    s2_tag: DFF<Bits<16>>,
    s2_fid: DFF<Bits<64>>,
    // Stage 3.
    s3_sampled: DFF<Bit>,
    s3_q_off: DFF<Bits<32>>,
    s3_wd: DFF<Bits<32>>,
    s3_scale: DFF<Bits<13>>,
    s3_tag: DFF<Bits<16>>,
    s3_fid: DFF<Bits<64>>,
    // Stage 4.
    s4_sampled: DFF<Bit>,
    s4_pos: DFF<Bit>,
    s4_fb: DFF<Bits<40>>,
    s4_scale: DFF<Bits<13>>,
    s4_tag: DFF<Bits<16>>,
    s4_fid: DFF<Bits<64>>,
    // Stage 5.
    s5_sampled: DFF<Bit>,
    s5_pos: DFF<Bit>,
    s5_prod: DFF<Bits<40>>,
    s5_shift: DFF<Bits<8>>,
    s5_tag: DFF<Bits<16>>,
    s5_fid: DFF<Bits<64>>,
    // Outputs.
    o_sampled: DFF<Bit>,
    o_pos: DFF<Bit>,
    o_fb6: DFF<Bits<6>>,
    o_tag: DFF<Bits<16>>,
    o_fid: DFF<Bits<64>>,

    // Cycle n.
    q_off: Signal<Local, Bits<32>>,
    static_fb: Signal<Local, Bits<40>>,
    static_prod: Signal<Local, Bits<40>>,
    /// The products' pairs of partial products (multiplier bits 2j and 2j + 1), summed as
    /// a tree: static Fb x mantissa, w x Q_delta, Fb x mantissa.
    sa0: Signal<Local, Bits<40>>,
    sa1: Signal<Local, Bits<40>>,
    sa2: Signal<Local, Bits<40>>,
    sa3: Signal<Local, Bits<40>>,
    static_shifted: Signal<Local, Bits<40>>,
    level: Signal<Local, Bits<8>>,
    level_wide: Signal<Local, Bits<40>>,
    reload: Signal<Local, Bits<24>>,
    mantissa: Signal<Local, Bits<8>>,
    scale_hi: Signal<Local, Bits<13>>,
    // Cycle n + 1.
    word: Signal<Local, Bits<WORD>>,
    counter: Signal<Local, Bits<24>>,
    word_high: Signal<Local, Bits<WORD>>,
    q_old: Signal<Local, Bits<24>>,
    len24: Signal<Local, Bits<24>>,
    take: Signal<Local, Bit>,
    next_counter: Signal<Local, Bits<24>>,
    next_q_old: Signal<Local, Bits<24>>,
    next_word: Signal<Local, Bits<WORD>>,
    // Cycle n + 2.
    wd: Signal<Local, Bits<32>>,
    da0: Signal<Local, Bits<32>>,
    da1: Signal<Local, Bits<32>>,
    // Cycle n + 3.
    fb: Signal<Local, Bits<32>>,
    // Cycle n + 4.
    prod: Signal<Local, Bits<40>>,
    pa0: Signal<Local, Bits<40>>,
    pa1: Signal<Local, Bits<40>>,
    pa2: Signal<Local, Bits<40>>,
    pa3: Signal<Local, Bits<40>>,
    s4_mantissa: Signal<Local, Bits<8>>,
    s4_scale_hi: Signal<Local, Bits<13>>,
    // Cycle n + 5.
    shifted: Signal<Local, Bits<40>>,
}

impl<const KB: usize> Sampler<KB> {
    /// The sampler of a table of `2^KB` queues.
    pub fn new(cfg: &RcmConfig) -> Self {
        let c8 = |v: u64| Constant::new(Bits::<8>::from(v));
        Sampler {
            clock: Default::default(),
            reset: Default::default(),
            valid: Default::default(),
            key: Default::default(),
            q: Default::default(),
            len: Default::default(),
            tag: Default::default(),
            fid: Default::default(),
            q_eq: Default::default(),
            w: Default::default(),
            fb_scale: Default::default(),
            intervals: Default::default(),
            clearing: Default::default(),
            clear_addr: Default::default(),
            sampled: Default::default(),
            fb_pos: Default::default(),
            fb6: Default::default(),
            tag_out: Default::default(),
            fid_out: Default::default(),
            words: NarrowRam::new((cfg.depth_bits + cfg.samp_bits) as usize),
            q_old_bits: c8(cfg.depth_bits.into()),
            depth_mask: Constant::new(low_bits(cfg.depth_bits as usize)),
            samp_mask: Constant::new(low_bits(cfg.samp_bits as usize)),
            one8: c8(1),
            c63: Constant::new(63u64.into()),
            c64: Constant::new(64u64.into()),
            c2: c8(2),
            c3: c8(3),
            c4: c8(4),
            c8: c8(8),
            r_valid: Default::default(),
            r_key: Default::default(),
            r_q: Default::default(),
            r_len: Default::default(),
            r_tag: Default::default(),
            r_fid: Default::default(),
            s1_valid: Default::default(),
            s1_key: Default::default(),
            s1_q: Default::default(),
            s1_len: Default::default(),
            s1_reload: Default::default(),
            s1_q_off: Default::default(),
            s1_w: Default::default(),
            s1_scale: Default::default(),
            s1_tag: Default::default(),
            s1_fid: Default::default(),
            s2_valid: Default::default(),
            s2_key: Default::default(),
            s2_word: Default::default(),
            s2_sampled: Default::default(),
            s2_q_off: Default::default(),
            s2_q_delta: Default::default(),
            s2_w: Default::default(),
            s2_scale: Default::default(),
            s2_tag: Default::default(),
            s2_fid: Default::default(),
            s3_sampled: Default::default(),
            s3_q_off: Default::default(),
            s3_wd: Default::default(),
            s3_scale: Default::default(),
            s3_tag: Default::default(),
            s3_fid: Default::default(),
            s4_sampled: Default::default(),
            s4_pos: Default::default(),
            s4_fb: Default::default(),
            s4_scale: Default::default(),
            s4_tag: Default::default(),
            s4_fid: Default::default(),
            s5_sampled: Default::default(),
            s5_pos: Default::default(),
            s5_prod: Default::default(),
            s5_shift: Default::default(),
            s5_tag: Default::default(),
            s5_fid: Default::default(),
            o_sampled: Default::default(),
            o_pos: Default::default(),
            o_fb6: Default::default(),
            o_tag: Default::default(),
            o_fid: Default::default(),
            q_off: Default::default(),
            static_fb: Default::default(),
            static_prod: Default::default(),
            sa0: Default::default(),
            sa1: Default::default(),
            sa2: Default::default(),
            sa3: Default::default(),
            static_shifted: Default::default(),
            level: Default::default(),
            level_wide: Default::default(),
            reload: Default::default(),
            mantissa: Default::default(),
            scale_hi: Default::default(),
            word: Default::default(),
            counter: Default::default(),
            word_high: Default::default(),
            q_old: Default::default(),
            len24: Default::default(),
            take: Default::default(),
            next_counter: Default::default(),
            next_q_old: Default::default(),
            next_word: Default::default(),
            wd: Default::default(),
            da0: Default::default(),
            da1: Default::default(),
            fb: Default::default(),
            prod: Default::default(),
            pa0: Default::default(),
            pa1: Default::default(),
            pa2: Default::default(),
            pa3: Default::default(),
            s4_mantissa: Default::default(),
            s4_scale_hi: Default::default(),
            shifted: Default::default(),
        }
    }
}

impl<const KB: usize> Logic for Sampler<KB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, r_valid, r_key, r_q, r_len, r_tag, r_fid, s1_valid, s1_key, s1_q, s1_len,
            s1_reload, s1_q_off, s1_w, s1_scale, s1_tag, s1_fid, s2_valid, s2_key, s2_word,
            s2_sampled, s2_q_off, s2_q_delta, s2_w, s2_scale, s2_tag, s2_fid, s3_sampled, s3_q_off,
            s3_wd, s3_scale, s3_tag, s3_fid, s4_sampled, s4_pos, s4_fb, s4_scale, s4_tag, s4_fid,
            s5_sampled, s5_pos, s5_prod, s5_shift, s5_tag, s5_fid, o_sampled, o_pos, o_fb6, o_tag,
            o_fid
        );
        self.words.clock.next = self.clock.val();

        // ---- Edge n: capture.
        self.r_valid.d.next = self.valid.val();
        self.r_key.d.next = self.key.val();
        self.r_q.d.next = self.q.val() & self.depth_mask.val();
        self.r_len.d.next = self.len.val();
        self.r_tag.d.next = self.tag.val();
        self.r_fid.d.next = self.fid.val();

        // ---- Cycle n: Q_off; the level of its static Fb6 (Fb6 >> 3, at most 7) and that
        // level's interval, with the registers of edge n; the queue's RAM address.
        self.q_off.next =
            bit_cast::<32, 24>(self.r_q.q.val()) - bit_cast::<32, 24>(self.q_eq.val());
        self.static_fb.next = 0.into();
        if !self.q_off.val().get_bit(31) {
            self.static_fb.next = bit_cast::<40, 32>(self.q_off.val());
        }
        self.mantissa.next = bit_cast::<8, 13>(self.fb_scale.val());
        // Shift-and-add as a tree (three adders in series): pair j is bits 2j and 2j + 1.
        self.sa0.next = 0.into();
        if self.mantissa.val().get_bit(0) {
            self.sa0.next = self.static_fb.val();
        }
        if self.mantissa.val().get_bit(1) {
            self.sa0.next = self.sa0.val() + (self.static_fb.val() << self.one8.val());
        }
        self.sa1.next = 0.into();
        if self.mantissa.val().get_bit(2) {
            self.sa1.next = self.static_fb.val();
        }
        if self.mantissa.val().get_bit(3) {
            self.sa1.next = self.sa1.val() + (self.static_fb.val() << self.one8.val());
        }
        self.sa2.next = 0.into();
        if self.mantissa.val().get_bit(4) {
            self.sa2.next = self.static_fb.val();
        }
        if self.mantissa.val().get_bit(5) {
            self.sa2.next = self.sa2.val() + (self.static_fb.val() << self.one8.val());
        }
        self.sa3.next = 0.into();
        if self.mantissa.val().get_bit(6) {
            self.sa3.next = self.static_fb.val();
        }
        if self.mantissa.val().get_bit(7) {
            self.sa3.next = self.sa3.val() + (self.static_fb.val() << self.one8.val());
        }
        self.static_prod.next = (self.sa0.val() + (self.sa1.val() << self.c2.val()))
            + ((self.sa2.val() + (self.sa3.val() << self.c2.val())) << self.c4.val());
        self.scale_hi.next = self.fb_scale.val() >> 8;
        self.static_shifted.next =
            self.static_prod.val() >> bit_cast::<40, 13>(self.scale_hi.val());
        self.level_wide.next = self.static_shifted.val() >> self.c3.val();
        self.level.next = bit_cast::<8, 40>(self.level_wide.val());
        if self.static_shifted.val() >= self.c64.val() {
            self.level.next = 7.into();
        }
        self.reload.next = self.intervals.val().get_bits::<24>(0);
        for k in 1..8 {
            if self.level.val().index() == k {
                self.reload.next = self.intervals.val().get_bits::<24>(32 * k);
            }
        }
        self.words.read_address.next = self.r_key.q.val();
        self.s1_valid.d.next = self.r_valid.q.val();
        self.s1_key.d.next = self.r_key.q.val();
        self.s1_q.d.next = self.r_q.q.val();
        self.s1_len.d.next = self.r_len.q.val();
        self.s1_reload.d.next = self.reload.val() & self.samp_mask.val();
        self.s1_q_off.d.next = self.q_off.val();
        self.s1_w.d.next = self.w.val();
        self.s1_scale.d.next = self.fb_scale.val();
        self.s1_tag.d.next = self.r_tag.q.val();
        self.s1_fid.d.next = self.r_fid.q.val();

        // ---- Cycle n + 1: the byte counter and q_old (the RAM's, or the word the arrival one
        // edge older on the same queue wrote); a sample when the counter is at most the
        // length; the word's write.
        self.word.next = self.words.read_data.val();
        if self.s2_valid.q.val() & (self.s2_key.q.val() == self.s1_key.q.val()) {
            self.word.next = self.s2_word.q.val();
        }
        self.q_old.next = bit_cast::<24, WORD>(self.word.val()) & self.depth_mask.val();
        self.word_high.next = self.word.val() >> self.q_old_bits.val();
        self.counter.next = bit_cast::<24, WORD>(self.word_high.val()) & self.samp_mask.val();
        self.len24.next = bit_cast::<24, 16>(self.s1_len.q.val());
        self.take.next = self.counter.val() <= self.len24.val();
        self.next_counter.next = self.counter.val() - self.len24.val();
        self.next_q_old.next = self.q_old.val();
        if self.take.val() {
            self.next_counter.next = self.s1_reload.q.val();
            self.next_q_old.next = self.s1_q.q.val();
        }
        self.next_word.next = bit_cast::<WORD, 24>(self.next_q_old.val())
            | (bit_cast::<WORD, 24>(self.next_counter.val()) << self.q_old_bits.val());
        self.words.write_enable.next = self.s1_valid.q.val();
        self.words.write_address.next = self.s1_key.q.val();
        self.words.write_data.next = self.next_word.val();
        if self.clearing.val() {
            self.words.write_enable.next = true;
            self.words.write_address.next = self.clear_addr.val();
            self.words.write_data.next = 0.into();
        }
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_key.d.next = self.s1_key.q.val();
        self.s2_word.d.next = self.next_word.val();
        self.s2_sampled.d.next = self.s1_valid.q.val() & self.take.val();
        self.s2_q_off.d.next = self.s1_q_off.q.val();
        self.s2_q_delta.d.next =
            bit_cast::<32, 24>(self.s1_q.q.val()) - bit_cast::<32, 24>(self.q_old.val());
        self.s2_w.d.next = self.s1_w.q.val();
        self.s2_scale.d.next = self.s1_scale.q.val();
        self.s2_tag.d.next = self.s1_tag.q.val();
        self.s2_fid.d.next = self.s1_fid.q.val();

        // ---- Cycle n + 2: w x Q_delta (modulo 2^32: two's complement).
        self.da0.next = 0.into();
        if self.s2_w.q.val().get_bit(0) {
            self.da0.next = self.s2_q_delta.q.val();
        }
        if self.s2_w.q.val().get_bit(1) {
            self.da0.next = self.da0.val() + (self.s2_q_delta.q.val() << self.one8.val());
        }
        self.da1.next = 0.into();
        if self.s2_w.q.val().get_bit(2) {
            self.da1.next = self.s2_q_delta.q.val();
        }
        if self.s2_w.q.val().get_bit(3) {
            self.da1.next = self.da1.val() + (self.s2_q_delta.q.val() << self.one8.val());
        }
        self.wd.next = self.da0.val() + (self.da1.val() << self.c2.val());
        self.s3_sampled.d.next = self.s2_sampled.q.val();
        self.s3_q_off.d.next = self.s2_q_off.q.val();
        self.s3_wd.d.next = self.wd.val();
        self.s3_scale.d.next = self.s2_scale.q.val();
        self.s3_tag.d.next = self.s2_tag.q.val();
        self.s3_fid.d.next = self.s2_fid.q.val();

        // ---- Cycle n + 3: Fb, whether it is above 0, and 0 for Fb <= 0.
        self.fb.next = self.s3_q_off.q.val() + self.s3_wd.q.val();
        self.s4_pos.d.next = !self.fb.val().get_bit(31) & self.fb.val().any();
        self.s4_fb.d.next = 0.into();
        if !self.fb.val().get_bit(31) {
            self.s4_fb.d.next = bit_cast::<40, 32>(self.fb.val());
        }
        self.s4_sampled.d.next = self.s3_sampled.q.val();
        self.s4_scale.d.next = self.s3_scale.q.val();
        self.s4_tag.d.next = self.s3_tag.q.val();
        self.s4_fid.d.next = self.s3_fid.q.val();

        // ---- Cycle n + 4: Fb x mantissa.
        self.s4_mantissa.next = bit_cast::<8, 13>(self.s4_scale.q.val());
        self.pa0.next = 0.into();
        if self.s4_mantissa.val().get_bit(0) {
            self.pa0.next = self.s4_fb.q.val();
        }
        if self.s4_mantissa.val().get_bit(1) {
            self.pa0.next = self.pa0.val() + (self.s4_fb.q.val() << self.one8.val());
        }
        self.pa1.next = 0.into();
        if self.s4_mantissa.val().get_bit(2) {
            self.pa1.next = self.s4_fb.q.val();
        }
        if self.s4_mantissa.val().get_bit(3) {
            self.pa1.next = self.pa1.val() + (self.s4_fb.q.val() << self.one8.val());
        }
        self.pa2.next = 0.into();
        if self.s4_mantissa.val().get_bit(4) {
            self.pa2.next = self.s4_fb.q.val();
        }
        if self.s4_mantissa.val().get_bit(5) {
            self.pa2.next = self.pa2.val() + (self.s4_fb.q.val() << self.one8.val());
        }
        self.pa3.next = 0.into();
        if self.s4_mantissa.val().get_bit(6) {
            self.pa3.next = self.s4_fb.q.val();
        }
        if self.s4_mantissa.val().get_bit(7) {
            self.pa3.next = self.pa3.val() + (self.s4_fb.q.val() << self.one8.val());
        }
        self.prod.next = (self.pa0.val() + (self.pa1.val() << self.c2.val()))
            + ((self.pa2.val() + (self.pa3.val() << self.c2.val())) << self.c4.val());
        self.s5_prod.d.next = self.prod.val();
        self.s4_scale_hi.next = self.s4_scale.q.val() >> self.c8.val();
        self.s5_shift.d.next = bit_cast::<8, 13>(self.s4_scale_hi.val());
        self.s5_sampled.d.next = self.s4_sampled.q.val();
        self.s5_pos.d.next = self.s4_pos.q.val();
        self.s5_tag.d.next = self.s4_tag.q.val();
        self.s5_fid.d.next = self.s4_fid.q.val();

        // ---- Cycle n + 5: Fb6.
        self.shifted.next = self.s5_prod.q.val() >> bit_cast::<40, 8>(self.s5_shift.q.val());
        self.o_fb6.d.next = bit_cast::<6, 40>(self.shifted.val());
        if self.shifted.val() > self.c63.val() {
            self.o_fb6.d.next = 63.into();
        }
        self.o_sampled.d.next = self.s5_sampled.q.val();
        self.o_pos.d.next = self.s5_pos.q.val();
        self.o_tag.d.next = self.s5_tag.q.val();
        self.o_fid.d.next = self.s5_fid.q.val();

        self.sampled.next = self.o_sampled.q.val();
        self.fb_pos.next = self.o_pos.q.val();
        self.fb6.next = self.o_fb6.q.val();
        self.tag_out.next = self.o_tag.q.val();
        self.fid_out.next = self.o_fid.q.val();

        // Synchronous reset.
        if self.reset.val() {
            self.r_valid.d.next = false;
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s2_sampled.d.next = false;
            self.s3_sampled.d.next = false;
            self.s4_sampled.d.next = false;
            self.s5_sampled.d.next = false;
            self.o_sampled.d.next = false;
        }
    }
}
