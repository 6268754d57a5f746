//! BFC's received frames (the model's `apply_rx`): the downstream pause state of one egress
//! queue (PAUSE, RESUME) or of 32 at once (a bitmap), kept as one bit per `{port, queue}`.

use crate::narrow_ram::low_bits;
use rust_hdl::prelude::*;
use switchcraft_model::bfc::{err, BfcConfig, RX_BITMAP, RX_PAUSE, RX_RESUME};

#[derive(LogicBlock)]
pub struct Frames<const N: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Events are accepted in this cycle.
    pub ready: Signal<In, Bit>,
    /// Cycle n: the received frame.
    pub valid: Signal<In, Bit>,
    pub port: Signal<In, Bits<6>>,
    pub kind: Signal<In, Bits<2>>,
    pub queue: Signal<In, Bits<7>>,
    pub base: Signal<In, Bits<2>>,
    pub bitmap: Signal<In, Bits<32>>,

    /// The downstream-paused bits after this cycle's frame.
    pub paused: Signal<Out, Bits<N>>,
    /// The error flags it raises: a frame naming a port, queue or chunk the config does not
    /// have is a bad event.
    pub flags: Signal<Out, Bits<8>>,

    n_ports: Constant<Bits<8>>,
    n_queues: Constant<Bits<8>>,
    rx_chunks: Constant<Bits<8>>,
    queue_bits: Constant<Bits<8>>,
    /// Bit q set for q < queues.
    queue_valid: Constant<Bits<128>>,
    kind_pause: Constant<Bits<2>>,
    kind_resume: Constant<Bits<2>>,
    kind_bitmap: Constant<Bits<2>>,
    one_n: Constant<Bits<N>>,
    /// The `{port, queue}` bits this config has.
    used_q: Constant<Bits<N>>,

    f_bad_event: Constant<Bits<8>>,

    dsp: DFF<Bits<N>>,
    ok: Signal<Local, Bit>,
    idx: Signal<Local, Bits<16>>,
    off: Signal<Local, Bits<16>>,
    chunk_mask_wide: Signal<Local, Bits<128>>,
    chunk_mask: Signal<Local, Bits<32>>,
    bits: Signal<Local, Bits<32>>,
}

impl<const N: usize> Frames<N> {
    pub fn new(cfg: &BfcConfig, used_q: Bits<N>) -> Self {
        let c8 = |v: u64| Constant::new(Bits::<8>::from(v));
        Frames {
            clock: Default::default(),
            reset: Default::default(),
            ready: Default::default(),
            valid: Default::default(),
            port: Default::default(),
            kind: Default::default(),
            queue: Default::default(),
            base: Default::default(),
            bitmap: Default::default(),
            paused: Default::default(),
            flags: Default::default(),
            n_ports: c8(cfg.ports.into()),
            n_queues: c8(cfg.queues.into()),
            rx_chunks: c8(cfg.rx_chunks().into()),
            queue_bits: c8(cfg.queue_bits().into()),
            queue_valid: Constant::new(low_bits::<128>(cfg.queues as usize)),
            kind_pause: Constant::new(RX_PAUSE.into()),
            kind_resume: Constant::new(RX_RESUME.into()),
            kind_bitmap: Constant::new(RX_BITMAP.into()),
            one_n: Constant::new(1u64.into()),
            used_q: Constant::new(used_q),
            f_bad_event: Constant::new(err::BAD_EVENT.into()),
            dsp: Default::default(),
            ok: Default::default(),
            idx: Default::default(),
            off: Default::default(),
            chunk_mask_wide: Default::default(),
            chunk_mask: Default::default(),
            bits: Default::default(),
        }
    }
}

impl<const N: usize> Logic for Frames<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, dsp);
        self.idx.next = (bit_cast::<16, 6>(self.port.val()) << self.queue_bits.val())
            | bit_cast::<16, 7>(self.queue.val());
        self.off.next = (bit_cast::<16, 6>(self.port.val()) << self.queue_bits.val())
            + (bit_cast::<16, 2>(self.base.val()) << 5);
        self.chunk_mask_wide.next =
            self.queue_valid.val() >> (bit_cast::<8, 2>(self.base.val()) << 5);
        self.chunk_mask.next = bit_cast::<32, 128>(self.chunk_mask_wide.val());
        self.bits.next = self.bitmap.val() & self.chunk_mask.val();
        self.ok.next = false;
        if bit_cast::<8, 6>(self.port.val()) < self.n_ports.val() {
            if (self.kind.val() == self.kind_pause.val())
                | (self.kind.val() == self.kind_resume.val())
            {
                self.ok.next = bit_cast::<8, 7>(self.queue.val()) < self.n_queues.val();
            }
            if self.kind.val() == self.kind_bitmap.val() {
                self.ok.next = bit_cast::<8, 2>(self.base.val()) < self.rx_chunks.val();
            }
        }
        self.flags.next = 0.into();
        if self.valid.val() & self.ready.val() & !self.ok.val() {
            self.flags.next = self.f_bad_event.val();
        }
        self.paused.next = self.dsp.q.val();
        if self.valid.val() & self.ready.val() & self.ok.val() {
            if self.kind.val() == self.kind_pause.val() {
                self.paused.next = self.dsp.q.val() | (self.one_n.val() << self.idx.val());
            }
            if self.kind.val() == self.kind_resume.val() {
                self.paused.next = self.dsp.q.val() & !(self.one_n.val() << self.idx.val());
            }
            if self.kind.val() == self.kind_bitmap.val() {
                self.paused.next = (self.dsp.q.val()
                    & !(bit_cast::<N, 32>(self.chunk_mask.val()) << self.off.val()))
                    | (bit_cast::<N, 32>(self.bits.val()) << self.off.val());
            }
        }
        // Entries this config does not have are never set, which synthesis sees.
        self.dsp.d.next = self.paused.val() & self.used_q.val();
        if self.reset.val() {
            self.dsp.d.next = 0.into();
        }
    }
}
