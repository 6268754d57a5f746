//! BFC's lookup and queue assignment (the first half of the model's `apply_enq`): the
//! arrival's flow-table entry after this cycle's departure, and the queue it goes to. In dynamic mode
//! an entry without packets whose queue is unset or older than `sticky` is reassigned: to
//! the first empty queue of the class at or after the port's rotating start, else to a
//! random queue of the class (the shared LFSR); otherwise it keeps its queue. An entry that
//! holds packets of another class keeps its queue and class, and the arrival goes to its own
//! class's hash queue; an idle entry of another class is reassigned. Stochastic mode hashes
//! the flow onto the class's queues, single mode uses the class's first queue.
//!
//! Two options of App. A: with `incast_label`, a labelled arrival in dynamic mode skips the
//! flow table and goes to its (port, class)'s incast queue while that holds packets, else to a
//! new one chosen as a new flow's; with `sampling`, the LFSR's low byte below `sample_rate`
//! samples the arrival, and an unsampled one is assigned but not counted in `size`. Every
//! arrival that writes its entry stamps it (`ts_enq`, with sampling), and with sampling that
//! stamp also keeps the entry sticky.
//!
//! Owns the per-queue empty bits (a departure can empty a queue, the arrival fills one), the
//! rotating starts, the incast queues and the LFSR.

use super::EW;
use rust_hdl::prelude::*;
use switchcraft_core::lfsr::Lfsr32;
use switchcraft_core::mask;
use switchcraft_model::bfc::{err, reg, BfcConfig, MODE_SINGLE, MODE_STOCHASTIC};

#[derive(LogicBlock)]
pub struct Lookup<const N: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// The block is out of reset (the LFSR runs); events are accepted in this cycle.
    pub live: Signal<In, Bit>,
    pub ready: Signal<In, Bit>,
    /// Cycle n: the arrival.
    pub valid: Signal<In, Bit>,
    pub in_port: Signal<In, Bits<6>>,
    pub eg: Signal<In, Bits<6>>,
    pub upq: Signal<In, Bits<7>>,
    pub class_id: Signal<In, Bits<3>>,
    /// The sender labelled it incast.
    pub incast: Signal<In, Bit>,
    pub len: Signal<In, Bits<16>>,
    pub hash: Signal<In, Bits<32>>,
    /// Its entry as the last edge left it: bank-E word, departure count, timestamp; and
    /// whether this cycle's departure is at the same entry.
    pub word: Signal<In, Bits<EW>>,
    pub dc: Signal<In, Bits<32>>,
    pub ts: Signal<In, Bits<32>>,
    pub same_entry: Signal<In, Bit>,
    /// This cycle's departure: it acts, its new departure count, it empties its queue `d_qi`
    /// (`{d_eg, d_lane_q}`). Whether it empties it comes late in the cycle, so the queue search
    /// runs without it and takes its queue afterwards when that comes first.
    pub d_act: Signal<In, Bit>,
    pub d_dc_next: Signal<In, Bits<32>>,
    pub d_emptied: Signal<In, Bit>,
    pub d_qi: Signal<In, Bits<16>>,
    pub d_eg: Signal<In, Bits<6>>,
    pub d_lane_q: Signal<In, Bits<8>>,
    pub now_ts: Signal<In, Bits<32>>,
    /// Cycle n - 1, for the class decode registered at edge n: the class words (one 32-bit
    /// slot each) as edge n - 1 leaves them, and what edge n captures: the arrival's class
    /// and the CSR bus, whose write the events of edge n see.
    pub classes: Signal<In, Bits<256>>,
    pub next_class_id: Signal<In, Bits<3>>,
    pub next_bus_we: Signal<In, Bit>,
    pub next_bus_addr: Signal<In, Bits<6>>,
    pub next_bus_wdata: Signal<In, Bits<16>>,
    /// Registers as this edge's events see them: the mode and the sticky time; a write of
    /// the LFSR seed, and the written word.
    pub mode: Signal<In, Bits<2>>,
    pub sticky: Signal<In, Bits<32>>,
    pub sample_rate: Signal<In, Bits<9>>,
    pub reseed: Signal<In, Bit>,
    pub seed: Signal<In, Bits<32>>,
    /// The snapshot's queue lane, read on a cycle without an arrival.
    pub snap_lane_q: Signal<In, Bits<8>>,

    /// The arrival acts (valid, ready, well-formed), or is refused.
    pub act: Signal<Out, Bit>,
    pub refused: Signal<Out, Bit>,
    /// Its queue; the entry was (re)assigned.
    pub q: Signal<Out, Bits<7>>,
    pub reassigned: Signal<Out, Bit>,
    /// The arrival writes its flow-table entry (it acts and is not an incast packet); it is
    /// sampled; it skips the departure's entry update (incast or not sampled).
    pub ft_write: Signal<Out, Bit>,
    pub sampled: Signal<Out, Bit>,
    pub ft_skip: Signal<Out, Bit>,
    /// The queue lane the arrival side reads: the arrival's queue, or the snapshot's.
    pub lane_q: Signal<Out, Bits<8>>,
    /// The empty bits of the arrival's egress row before this cycle's departure.
    pub row_empty: Signal<Out, Bits<128>>,
    /// The entry after this cycle's departure: its queue, class, size and timestamp.
    pub entry_q: Signal<Out, Bits<8>>,
    pub entry_class: Signal<Out, Bits<3>>,
    pub size: Signal<Out, Bits<32>>,
    pub entry_ts: Signal<Out, Bits<32>>,
    /// The new bank-E word; the error flags the arrival raises (refused while ready, an
    /// entry at its maximum size).
    pub flags: Signal<Out, Bits<8>>,
    pub word_next: Signal<Out, Bits<EW>>,

    n_ports: Constant<Bits<8>>,
    n_queues: Constant<Bits<8>>,
    n_upstream: Constant<Bits<8>>,
    n_classes: Constant<Bits<8>>,
    /// The CSR slot of class 0 (a class word's fields lie within the 15 bits it stores).
    class_base: Constant<Bits<6>>,
    queue_bits: Constant<Bits<8>>,
    q_lane_mask: Constant<Bits<8>>,
    mask_7: Constant<Bits<8>>,
    ts_mask: Constant<Bits<32>>,
    size_mask: Constant<Bits<32>>,
    /// Where bank E's word holds the class: above `{enq_count, q}`; the bits it has.
    class_shift: Constant<Bits<8>>,
    entry_class_mask: Constant<Bits<3>>,
    /// Where it holds the arrival stamp (above the class), and the stamp's bits (none
    /// without sampling).
    stamp_shift: Constant<Bits<8>>,
    stamp_mask: Constant<Bits<32>>,
    sampling_on: Constant<Bit>,
    incast_on: Constant<Bit>,
    /// The incast lanes (8 bits per `{port, class}`) this config has: queue_bits each.
    used_inc: Constant<Bits<4096>>,
    lane_inc: Constant<Bits<4096>>,
    low_byte: Constant<Bits<9>>,
    /// Bit q set for the data queues (1..queues).
    data_queues: Constant<Bits<128>>,
    mode_stochastic: Constant<Bits<2>>,
    mode_single: Constant<Bits<2>>,
    one_32: Constant<Bits<32>>,
    one_128: Constant<Bits<128>>,
    one_n: Constant<Bits<N>>,
    all_n: Constant<Bits<N>>,
    /// The `{port, queue}` bits this config has; one row's bits (2^queue_bits).
    used_q: Constant<Bits<N>>,
    row_ones: Constant<Bits<N>>,
    f_bad_event: Constant<Bits<8>>,
    f_size_saturated: Constant<Bits<8>>,
    reset_lfsr: Constant<Bits<32>>,
    lfsr_toggle: Constant<Bits<32>>,

    empty: DFF<Bits<N>>,
    /// Each port's rotating start as a mask of the queues at or after it, laid out as
    /// `empty`: the search needs no shift or subtraction of an index. A port's mask of 0 (after
    /// reset, or past its last queue) searches from queue 0, as start 0 does.
    from_start: DFF<Bits<N>>,
    /// Each (port, class)'s incast queue, 8 bits per `{port, class}`; 0 for none.
    inc: DFF<Bits<4096>>,
    lfsr: DFF<Bits<32>>,

    ec_wide: Signal<Local, Bits<EW>>,
    ec: Signal<Local, Bits<32>>,
    class_wide: Signal<Local, Bits<EW>>,
    size_sat: Signal<Local, Bit>,
    dc_now: Signal<Local, Bits<32>>,
    lfsr_now: Signal<Local, Bits<32>>,
    empty_now: Signal<Local, Bits<N>>,
    /// The next arrival's class decode (its first queue, count, whether the word is valid
    /// and the class's data queues), registered so the queue search starts from registers.
    r_first: DFF<Bits<8>>,
    r_count: DFF<Bits<7>>,
    r_class_ok: DFF<Bit>,
    r_class_data: DFF<Bits<128>>,
    p_class: Signal<Local, Bits<3>>,
    p_first: Signal<Local, Bits<8>>,
    p_count: Signal<Local, Bits<8>>,
    p_class_mask: Signal<Local, Bits<128>>,
    cw_wide: Signal<Local, Bits<256>>,
    cw: Signal<Local, Bits<16>>,
    first: Signal<Local, Bits<8>>,
    count: Signal<Local, Bits<7>>,
    class_ok: Signal<Local, Bit>,
    ok: Signal<Local, Bit>,
    age: Signal<Local, Bits<32>>,
    reassign: Signal<Local, Bit>,
    /// The entry holds another class's assignment.
    other_class: Signal<Local, Bit>,
    /// The arrival leaves the entry's queue and class as they are (a busy entry of another
    /// class).
    keep_entry: Signal<Local, Bit>,
    row_off: Signal<Local, Bits<16>>,
    row_empty_wide: Signal<Local, Bits<N>>,
    cand: Signal<Local, Bits<128>>,
    start_wide: Signal<Local, Bits<N>>,
    start_row: Signal<Local, Bits<128>>,
    upper: Signal<Local, Bits<128>>,
    /// -upper and -cand: with x, the lowest set bit (x & -x) and the positions above it
    /// (x ^ -x).
    neg_upper: Signal<Local, Bits<128>>,
    neg_cand: Signal<Local, Bits<128>>,
    pick_low: Signal<Local, Bits<128>>,
    pick_above: Signal<Local, Bits<128>>,
    q_first: Signal<Local, Bits<8>>,
    /// The departure's queue: its lane, it is a candidate of the class once emptied, and it
    /// comes before the search's pick from the rotating start.
    dq_index: Signal<Local, Bits<7>>,
    dq_bit: Signal<Local, Bits<128>>,
    dq_at_or_below: Signal<Local, Bits<128>>,
    dq_from_start: Signal<Local, Bit>,
    class_data: Signal<Local, Bits<128>>,
    dq_in_class: Signal<Local, Bit>,
    dq_first: Signal<Local, Bit>,
    take_dq: Signal<Local, Bit>,
    rand_prod: Signal<Local, Bits<32>>,
    stoch_prod: Signal<Local, Bits<32>>,
    rr_write: Signal<Local, Bit>,
    ec_next: Signal<Local, Bits<32>>,
    /// The queue (below 128), and as a one-hot row: a new queue's straight from the search.
    chosen: Signal<Local, Bits<8>>,
    chosen_bit_wide: Signal<Local, Bits<128>>,
    chosen_new: Signal<Local, Bit>,
    stamp_wide: Signal<Local, Bits<EW>>,
    entry_stamp: Signal<Local, Bits<32>>,
    age_enq: Signal<Local, Bits<32>>,
    /// The entry's last departure, or with sampling its last arrival, is within STICKY.
    recent: Signal<Local, Bit>,
    incast_path: Signal<Local, Bit>,
    inc_off: Signal<Local, Bits<16>>,
    inc_wide: Signal<Local, Bits<4096>>,
    inc_q: Signal<Local, Bits<8>>,
    inc_q7: Signal<Local, Bits<7>>,
    inc_busy: Signal<Local, Bit>,
    /// A new queue for the arrival: the departure's emptied queue, the first empty one from
    /// the rotating start, or the LFSR's (and whether the rotating start moves).
    new_q: Signal<Local, Bits<8>>,
    new_q_bit: Signal<Local, Bits<128>>,
    new_above_wide: Signal<Local, Bits<128>>,
    new_rr: Signal<Local, Bit>,
    inc_write: Signal<Local, Bit>,
    lfsr_low: Signal<Local, Bits<9>>,
    stamp_next: Signal<Local, Bits<32>>,
}

impl<const N: usize> Lookup<N> {
    pub fn new(cfg: &BfcConfig, used_q: Bits<N>) -> Self {
        let c8 = |v: u64| Constant::new(Bits::<8>::from(v));
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        // An incast queue per {port, class} (3 class bits), only with the option.
        let mut used_inc = Bits::<4096>::default();
        if cfg.incast_label {
            for p in 0..cfg.ports as usize {
                for c in 0..cfg.classes as usize {
                    used_inc = used_inc
                        | (crate::narrow_ram::low_bits::<4096>(cfg.queue_bits() as usize)
                            << (8 * (p * 8 + c)) as u64);
                }
            }
        }
        Lookup {
            clock: Default::default(),
            reset: Default::default(),
            live: Default::default(),
            ready: Default::default(),
            valid: Default::default(),
            in_port: Default::default(),
            eg: Default::default(),
            upq: Default::default(),
            class_id: Default::default(),
            incast: Default::default(),
            len: Default::default(),
            hash: Default::default(),
            word: Default::default(),
            dc: Default::default(),
            ts: Default::default(),
            same_entry: Default::default(),
            d_act: Default::default(),
            d_dc_next: Default::default(),
            d_emptied: Default::default(),
            d_qi: Default::default(),
            d_eg: Default::default(),
            d_lane_q: Default::default(),
            now_ts: Default::default(),
            classes: Default::default(),
            next_class_id: Default::default(),
            next_bus_we: Default::default(),
            next_bus_addr: Default::default(),
            next_bus_wdata: Default::default(),
            mode: Default::default(),
            sticky: Default::default(),
            sample_rate: Default::default(),
            reseed: Default::default(),
            seed: Default::default(),
            snap_lane_q: Default::default(),
            act: Default::default(),
            refused: Default::default(),
            q: Default::default(),
            reassigned: Default::default(),
            ft_write: Default::default(),
            sampled: Default::default(),
            ft_skip: Default::default(),
            lane_q: Default::default(),
            row_empty: Default::default(),
            entry_q: Default::default(),
            entry_class: Default::default(),
            size: Default::default(),
            entry_ts: Default::default(),
            flags: Default::default(),
            word_next: Default::default(),
            n_ports: c8(cfg.ports.into()),
            n_queues: c8(cfg.queues.into()),
            n_upstream: c8(cfg.upstream_queues.into()),
            n_classes: c8(cfg.classes.into()),
            class_base: Constant::new(u64::from(reg::CLASS_BASE).into()),
            queue_bits: c8(cfg.queue_bits().into()),
            q_lane_mask: c8(mask(cfg.queue_bits())),
            mask_7: c8(0x7F),
            ts_mask: c32(mask(cfg.ts_bits)),
            size_mask: c32(mask(cfg.size_bits)),
            class_shift: c8(8 + u64::from(cfg.size_bits)),
            entry_class_mask: Constant::new(mask(cfg.entry_class_bits()).into()),
            stamp_shift: c8(8 + u64::from(cfg.size_bits + cfg.entry_class_bits())),
            stamp_mask: c32(if cfg.sampling { mask(cfg.ts_bits) } else { 0 }),
            sampling_on: Constant::new(cfg.sampling),
            incast_on: Constant::new(cfg.incast_label),
            used_inc: Constant::new(used_inc),
            lane_inc: Constant::new(0xFFu64.into()),
            low_byte: Constant::new(0xFFu64.into()),
            data_queues: Constant::new(super::data_queues(cfg)),
            mode_stochastic: Constant::new(MODE_STOCHASTIC.into()),
            mode_single: Constant::new(MODE_SINGLE.into()),
            one_32: c32(1),
            one_128: Constant::new(1u64.into()),
            one_n: Constant::new(1u64.into()),
            all_n: Constant::new(!Bits::<N>::default()),
            used_q: Constant::new(used_q),
            row_ones: Constant::new(crate::narrow_ram::low_bits::<N>(1 << cfg.queue_bits())),
            f_bad_event: c8(err::BAD_EVENT),
            f_size_saturated: c8(err::SIZE_SATURATED),
            reset_lfsr: c32(u64::from(Lfsr32::new(cfg.lfsr_seed).state())),
            lfsr_toggle: c32(u64::from(Lfsr32::TOGGLE)),
            empty: Default::default(),
            from_start: Default::default(),
            inc: Default::default(),
            lfsr: Default::default(),
            ec_wide: Default::default(),
            ec: Default::default(),
            class_wide: Default::default(),
            size_sat: Default::default(),
            dc_now: Default::default(),
            lfsr_now: Default::default(),
            empty_now: Default::default(),
            r_first: Default::default(),
            r_count: Default::default(),
            r_class_ok: Default::default(),
            r_class_data: Default::default(),
            p_class: Default::default(),
            p_first: Default::default(),
            p_count: Default::default(),
            p_class_mask: Default::default(),
            cw_wide: Default::default(),
            cw: Default::default(),
            first: Default::default(),
            count: Default::default(),
            class_ok: Default::default(),
            ok: Default::default(),
            age: Default::default(),
            reassign: Default::default(),
            other_class: Default::default(),
            keep_entry: Default::default(),
            row_off: Default::default(),
            row_empty_wide: Default::default(),
            cand: Default::default(),
            start_wide: Default::default(),
            start_row: Default::default(),
            upper: Default::default(),
            neg_upper: Default::default(),
            neg_cand: Default::default(),
            pick_low: Default::default(),
            pick_above: Default::default(),
            q_first: Default::default(),
            dq_index: Default::default(),
            dq_bit: Default::default(),
            dq_at_or_below: Default::default(),
            dq_from_start: Default::default(),
            class_data: Default::default(),
            dq_in_class: Default::default(),
            dq_first: Default::default(),
            take_dq: Default::default(),
            rand_prod: Default::default(),
            stoch_prod: Default::default(),
            rr_write: Default::default(),
            ec_next: Default::default(),
            chosen: Default::default(),
            chosen_bit_wide: Default::default(),
            chosen_new: Default::default(),
            stamp_wide: Default::default(),
            entry_stamp: Default::default(),
            age_enq: Default::default(),
            recent: Default::default(),
            incast_path: Default::default(),
            inc_off: Default::default(),
            inc_wide: Default::default(),
            inc_q: Default::default(),
            inc_q7: Default::default(),
            inc_busy: Default::default(),
            new_q: Default::default(),
            new_q_bit: Default::default(),
            new_above_wide: Default::default(),
            new_rr: Default::default(),
            inc_write: Default::default(),
            lfsr_low: Default::default(),
            stamp_next: Default::default(),
        }
    }
}

impl<const N: usize> Logic for Lookup<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            empty,
            from_start,
            inc,
            lfsr,
            r_first,
            r_count,
            r_class_ok,
            r_class_data
        );
        // ---- The entry after this cycle's departure.
        self.entry_q.next = self.word.val().get_bits::<8>(0);
        self.ec_wide.next = self.word.val() >> 8;
        self.ec.next = self.ec_wide.val().get_bits::<32>(0) & self.size_mask.val();
        // Above the class only the arrival stamp (with sampling), and with one class there are
        // no class bits: both fields are masked to the bits stored.
        self.class_wide.next = self.word.val() >> self.class_shift.val();
        self.entry_class.next =
            self.class_wide.val().get_bits::<3>(0) & self.entry_class_mask.val();
        self.stamp_wide.next = self.word.val() >> self.stamp_shift.val();
        self.entry_stamp.next = self.stamp_wide.val().get_bits::<32>(0) & self.stamp_mask.val();
        self.dc_now.next = self.dc.val();
        self.entry_ts.next = self.ts.val();
        if self.d_act.val() & self.same_entry.val() {
            self.dc_now.next = self.d_dc_next.val();
            self.entry_ts.next = self.now_ts.val();
        }
        self.size.next = (self.ec.val() - self.dc_now.val()) & self.size_mask.val();
        self.size_sat.next = self.size.val() == self.size_mask.val();
        self.empty_now.next = self.empty.q.val();
        if self.d_emptied.val() {
            self.empty_now.next = self.empty.q.val() | (self.one_n.val() << self.d_qi.val());
        }
        self.lfsr_now.next = self.lfsr.q.val();
        if self.reseed.val() {
            if self.seed.val().any() {
                self.lfsr_now.next = self.seed.val();
            } else {
                self.lfsr_now.next = self.one_32.val();
            }
        }
        // Sampling: the LFSR's low byte below the rate (256 or more samples every packet);
        // only a sampled packet counts in `size`.
        self.lfsr_low.next = bit_cast::<9, 32>(self.lfsr_now.val()) & self.low_byte.val();
        // (Without the option the register is a constant, which the bank does not store.)
        self.sampled.next =
            !self.sampling_on.val() | (self.lfsr_low.val() < self.sample_rate.val());
        self.ec_next.next = self.ec.val();
        if self.sampled.val() & !self.size_sat.val() {
            self.ec_next.next = (self.ec.val() + self.one_32.val()) & self.size_mask.val();
        }

        // ---- Cycle n - 1: the next arrival's class, decoded: its first queue and count (a
        // class past the config's, or a malformed word, refuses the arrival). Its word is the
        // one the events of edge n see: the bus's write on that edge, else as edge n - 1 left
        // it. (A reset in cycle n, not known yet, discards the events of edge n anyway.)
        self.p_class.next = self.next_class_id.val();
        if self.reset.val() {
            self.p_class.next = 0.into();
        }
        self.cw_wide.next = self.classes.val() >> (bit_cast::<8, 3>(self.p_class.val()) << 5);
        self.cw.next = bit_cast::<16, 256>(self.cw_wide.val());
        if self.next_bus_we.val()
            & !self.reset.val()
            & (self.next_bus_addr.val()
                == self.class_base.val() + bit_cast::<6, 3>(self.p_class.val()))
            & (bit_cast::<8, 3>(self.p_class.val()) < self.n_classes.val())
        {
            self.cw.next = self.next_bus_wdata.val();
        }
        self.p_first.next = bit_cast::<8, 16>(self.cw.val()) & self.mask_7.val();
        self.p_count.next = self.cw.val().get_bits::<8>(8) & self.mask_7.val();
        self.r_class_ok.d.next = self.p_first.val().any()
            & self.p_count.val().any()
            & ((self.p_first.val() + self.p_count.val()) <= self.n_queues.val());
        // A valid class lies in 1..queues, so its first queue and count fit the queue bits.
        // Narrowed, the class mask, the products and the candidate search below shrink to
        // the config's queues in synthesis.
        self.p_first.next = self.p_first.val() & self.q_lane_mask.val();
        self.p_count.next = self.p_count.val() & self.q_lane_mask.val();
        self.r_first.d.next = self.p_first.val();
        self.r_count.d.next = bit_cast::<7, 8>(self.p_count.val());
        self.p_class_mask.next =
            ((self.one_128.val() << self.p_count.val()) - self.one_128.val()) << self.p_first.val();
        self.r_class_data.d.next = self.p_class_mask.val() & self.data_queues.val();

        // ---- Cycle n: the arrival's class.
        self.first.next = self.r_first.q.val();
        self.count.next = self.r_count.q.val();
        self.class_ok.next = self.r_class_ok.q.val();
        self.class_data.next = self.r_class_data.q.val();
        self.ok.next = (bit_cast::<8, 6>(self.in_port.val()) < self.n_ports.val())
            & (bit_cast::<8, 6>(self.eg.val()) < self.n_ports.val())
            & (bit_cast::<8, 7>(self.upq.val()) < self.n_upstream.val())
            & (bit_cast::<8, 3>(self.class_id.val()) < self.n_classes.val())
            & self.len.val().any()
            & self.class_ok.val();
        self.act.next = self.valid.val() & self.ready.val() & self.ok.val();
        self.refused.next = self.valid.val() & !(self.ready.val() & self.ok.val());
        // The incast label replaces dynamic assignment only.
        self.incast_path.next = self.incast_on.val()
            & self.incast.val()
            & (self.mode.val() != self.mode_stochastic.val())
            & (self.mode.val() != self.mode_single.val());
        self.ft_write.next = self.act.val() & !self.incast_path.val();
        self.ft_skip.next = self.incast_path.val() | !self.sampled.val();
        self.flags.next = 0.into();
        if self.valid.val() & self.ready.val() & !self.ok.val() {
            self.flags.next = self.f_bad_event.val();
        }
        if self.ft_write.val() & self.sampled.val() & self.size_sat.val() {
            self.flags.next = self.flags.val() | self.f_size_saturated.val();
        }

        // ---- Dynamic mode: the empty queues of the class, from the rotating start.
        self.age.next = (self.now_ts.val() - self.entry_ts.val()) & self.ts_mask.val();
        self.age_enq.next = (self.now_ts.val() - self.entry_stamp.val()) & self.ts_mask.val();
        self.recent.next = (self.age.val() < self.sticky.val())
            | (self.sampling_on.val() & (self.age_enq.val() < self.sticky.val()));
        self.other_class.next = self.entry_class.val() != self.class_id.val();
        self.reassign.next = !self.size.val().any()
            & (!self.entry_q.val().any() | !self.recent.val() | self.other_class.val());
        self.row_off.next = bit_cast::<16, 6>(self.eg.val()) << self.queue_bits.val();
        self.row_empty_wide.next = self.empty.q.val() >> self.row_off.val();
        self.row_empty.next = bit_cast::<128, N>(self.row_empty_wide.val());
        self.cand.next = self.row_empty.val() & self.class_data.val();
        self.start_wide.next = self.from_start.q.val() >> self.row_off.val();
        self.start_row.next = bit_cast::<128, N>(self.start_wide.val());
        self.upper.next = self.cand.val() & self.start_row.val();
        // Both searches at once (from the start, from queue 0), the first used if it finds
        // one: a carry chain each, side by side, then a select.
        self.neg_upper.next = !self.upper.val() + self.one_128.val();
        self.neg_cand.next = !self.cand.val() + self.one_128.val();
        self.pick_low.next = self.cand.val() & self.neg_cand.val();
        self.pick_above.next = self.cand.val() ^ self.neg_cand.val();
        if self.upper.val().any() {
            self.pick_low.next = self.upper.val() & self.neg_upper.val();
            self.pick_above.next = self.upper.val() ^ self.neg_upper.val();
        }
        // The index by OR-ing the indices of the one-hot bits (an OR tree, not a priority
        // chain); the loop back to the start and the empty bits uses the one-hot row instead.
        self.q_first.next = 0.into();
        for i in 0..128 {
            if self.pick_low.val().get_bit(i) {
                self.q_first.next = self.q_first.val() | i.to_bits::<8>();
            }
        }
        // first + (top 16 bits x count) >> 16, for the LFSR and for the flow hash.
        self.rand_prod.next = 0.into();
        self.stoch_prod.next = 0.into();
        for b in 0..7 {
            if self.count.val().get_bit(b) {
                self.rand_prod.next =
                    self.rand_prod.val() + ((self.lfsr_now.val() >> 16) << b.to_bits::<8>());
                self.stoch_prod.next =
                    self.stoch_prod.val() + ((self.hash.val() >> 16) << b.to_bits::<8>());
            }
        }

        // The departure's queue, if this departure empties it, is one more candidate: it wins
        // when it comes first from the start (positions at or above the start before those
        // below, each ascending). With a find above the start it must be above the start and
        // below every such find; otherwise, above the start or below every find.
        self.dq_index.next = bit_cast::<7, 8>(self.d_lane_q.val());
        self.dq_in_class.next = (self.d_eg.val() == self.eg.val())
            & self.class_data.val().get_bit(self.dq_index.val().index());
        self.dq_bit.next = self.one_128.val() << self.dq_index.val();
        self.dq_at_or_below.next = self.dq_bit.val() | (self.dq_bit.val() - self.one_128.val());
        self.dq_from_start.next = self.start_row.val().get_bit(self.dq_index.val().index());
        self.dq_first.next =
            self.dq_from_start.val() | !(self.cand.val() & self.dq_at_or_below.val()).any();
        if self.upper.val().any() {
            self.dq_first.next =
                self.dq_from_start.val() & !(self.upper.val() & self.dq_at_or_below.val()).any();
        }
        self.take_dq.next = self.d_emptied.val() & self.dq_in_class.val() & self.dq_first.val();

        // A new queue: the departure's emptied one, the first empty one from the start, or
        // the LFSR's; the start moves past the first two.
        self.new_rr.next = true;
        self.new_q.next = self.first.val() + self.rand_prod.val().get_bits::<8>(16);
        self.new_q_bit.next = self.one_128.val() << self.new_q.val();
        self.new_above_wide.next = 0.into();
        if self.take_dq.val() {
            self.new_q.next = self.d_lane_q.val();
            self.new_q_bit.next = self.dq_bit.val();
            self.new_above_wide.next = !self.dq_at_or_below.val();
        } else if self.cand.val().any() {
            self.new_q.next = self.q_first.val();
            self.new_q_bit.next = self.pick_low.val();
            self.new_above_wide.next = self.pick_above.val();
        } else {
            self.new_rr.next = false;
        }
        // The (port, class)'s incast queue, and whether it holds packets after the departure.
        self.inc_off.next =
            ((bit_cast::<16, 6>(self.eg.val()) << 3) | bit_cast::<16, 3>(self.class_id.val())) << 3;
        self.inc_wide.next = self.inc.q.val() >> self.inc_off.val();
        self.inc_q.next = bit_cast::<8, 4096>(self.inc_wide.val()) & self.q_lane_mask.val();
        self.inc_q7.next = bit_cast::<7, 8>(self.inc_q.val());
        self.inc_busy.next = self.inc_q.val().any()
            & !self.row_empty.val().get_bit(self.inc_q7.val().index())
            & !(self.d_emptied.val()
                & (self.d_eg.val() == self.eg.val())
                & (self.d_lane_q.val() == self.inc_q.val()));

        // ---- The queue.
        self.reassigned.next = false;
        self.rr_write.next = false;
        self.chosen_new.next = false;
        self.keep_entry.next = false;
        self.inc_write.next = false;
        self.chosen.next = self.entry_q.val();
        if self.mode.val() == self.mode_stochastic.val() {
            self.chosen.next = self.first.val() + self.stoch_prod.val().get_bits::<8>(16);
        } else if self.mode.val() == self.mode_single.val() {
            self.chosen.next = self.first.val();
        } else if self.incast_path.val() {
            self.chosen.next = self.inc_q.val();
            if !self.inc_busy.val() {
                self.chosen.next = self.new_q.val();
                self.chosen_new.next = true;
                self.rr_write.next = self.new_rr.val();
                self.inc_write.next = true;
            }
        } else if self.reassign.val() {
            self.reassigned.next = true;
            self.chosen.next = self.new_q.val();
            self.chosen_new.next = true;
            self.rr_write.next = self.new_rr.val();
        } else if self.other_class.val() {
            // Busy with another class: its own class's hash queue, the entry untouched.
            self.keep_entry.next = true;
            self.chosen.next = self.first.val() + self.stoch_prod.val().get_bits::<8>(16);
        }
        self.chosen_bit_wide.next = self.one_128.val() << self.chosen.val();
        if self.chosen_new.val() {
            self.chosen_bit_wide.next = self.new_q_bit.val();
        }
        self.lane_q.next = self.snap_lane_q.val();
        if self.valid.val() {
            self.lane_q.next = self.chosen.val() & self.q_lane_mask.val();
        }
        self.q.next = bit_cast::<7, 8>(self.chosen.val());
        // With sampling, the arrival stamps the entry.
        self.stamp_next.next = self.now_ts.val() & self.stamp_mask.val();
        self.word_next.next = bit_cast::<EW, 8>(self.chosen.val())
            | (bit_cast::<EW, 32>(self.ec_next.val()) << 8)
            | (bit_cast::<EW, 3>(self.class_id.val()) << self.class_shift.val())
            | (bit_cast::<EW, 32>(self.stamp_next.val()) << self.stamp_shift.val());
        if self.keep_entry.val() {
            self.word_next.next = bit_cast::<EW, 8>(self.entry_q.val())
                | (bit_cast::<EW, 32>(self.ec_next.val()) << 8)
                | (bit_cast::<EW, 3>(self.entry_class.val()) << self.class_shift.val())
                | (bit_cast::<EW, 32>(self.stamp_next.val()) << self.stamp_shift.val());
        }

        // ---- Edge n + 1. Entries this config does not have are never written, which
        // synthesis sees.
        self.empty.d.next = self.empty_now.val() | !self.used_q.val();
        if self.act.val() {
            self.empty.d.next = (self.empty_now.val()
                & !((bit_cast::<N, 128>(self.chosen_bit_wide.val()) & self.row_ones.val())
                    << self.row_off.val()))
                | !self.used_q.val();
        }
        self.from_start.d.next = self.from_start.q.val() & self.used_q.val();
        if self.rr_write.val() & self.act.val() {
            self.from_start.d.next = ((self.from_start.q.val()
                & !(self.row_ones.val() << self.row_off.val()))
                | ((bit_cast::<N, 128>(self.new_above_wide.val()) & self.row_ones.val())
                    << self.row_off.val()))
                & self.used_q.val();
        }
        self.inc.d.next = self.inc.q.val() & self.used_inc.val();
        if self.inc_write.val() & self.act.val() {
            self.inc.d.next = ((self.inc.q.val() & !(self.lane_inc.val() << self.inc_off.val()))
                | (bit_cast::<4096, 8>(self.chosen.val()) << self.inc_off.val()))
                & self.used_inc.val();
        }
        // The shared Galois LFSR: shift right, toggle on a set low bit.
        self.lfsr.d.next = self.lfsr_now.val();
        if self.live.val() {
            self.lfsr.d.next = self.lfsr_now.val() >> 1;
            if self.lfsr_now.val().get_bit(0) {
                self.lfsr.d.next = (self.lfsr_now.val() >> 1) ^ self.lfsr_toggle.val();
            }
        }
        if self.reset.val() {
            self.empty.d.next = self.all_n.val();
            self.from_start.d.next = 0.into();
            self.inc.d.next = 0.into();
            self.lfsr.d.next = self.reset_lfsr.val();
        }
    }
}
