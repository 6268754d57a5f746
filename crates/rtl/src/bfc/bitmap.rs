//! BFC's pause-bitmap timer (the model's `bitmap_tick`): the period of `t_bm` cycles is cut
//! into slots; slot s sends chunk s % chunks of ingress port s / chunks (32 upstream queues of
//! its non-zero pause counters), while ports are left; `t_bm = 0` stops the timer.

use rust_hdl::prelude::*;
use switchcraft_core::{index_bits, mask};
use switchcraft_model::bfc::BfcConfig;

#[derive(LogicBlock)]
pub struct Bitmap {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// The block is out of reset (the timer runs).
    pub live: Signal<In, Bit>,
    /// The period, as this cycle's events see it.
    pub t_bm: Signal<In, Bits<32>>,

    /// A bitmap leaves at this edge: of ingress `port`, chunk `chunk` (at most 4), whose bits start at
    /// `offset` in the `{port, upstream queue}` vectors.
    pub emit: Signal<Out, Bit>,
    pub port: Signal<Out, Bits<6>>,
    pub chunk: Signal<Out, Bits<2>>,
    pub offset: Signal<Out, Bits<16>>,

    n_ports: Constant<Bits<8>>,
    chunks: Constant<Bits<8>>,
    upstream_bits: Constant<Bits<8>>,
    one_32: Constant<Bits<32>>,
    one_8: Constant<Bits<8>>,
    mask_24: Constant<Bits<32>>,
    port_mask: Constant<Bits<32>>,

    /// The slot (below T_BM < 2^24) and the port and chunk it sends (the port at most `ports`).
    slot: DFF<Bits<32>>,
    port_c: DFF<Bits<32>>,
    chunk_c: DFF<Bits<8>>,
    running: Signal<Local, Bit>,
}

impl Bitmap {
    pub fn new(cfg: &BfcConfig) -> Self {
        let c8 = |v: u64| Constant::new(Bits::<8>::from(v));
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        Bitmap {
            clock: Default::default(),
            reset: Default::default(),
            live: Default::default(),
            t_bm: Default::default(),
            emit: Default::default(),
            port: Default::default(),
            chunk: Default::default(),
            offset: Default::default(),
            n_ports: c8(cfg.ports.into()),
            chunks: c8(cfg.bitmap_chunks().into()),
            upstream_bits: c8(cfg.upstream_bits().into()),
            one_32: c32(1),
            one_8: c8(1),
            mask_24: c32(mask(24)),
            port_mask: c32(mask(index_bits(u64::from(cfg.ports) + 1))),
            slot: Default::default(),
            port_c: Default::default(),
            chunk_c: Default::default(),
            running: Default::default(),
        }
    }
}

impl Logic for Bitmap {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, slot, port_c, chunk_c);
        self.running.next = self.live.val() & self.t_bm.val().any();
        self.emit.next =
            self.running.val() & (self.port_c.q.val() < bit_cast::<32, 8>(self.n_ports.val()));
        self.port.next = bit_cast::<6, 32>(self.port_c.q.val());
        self.chunk.next = bit_cast::<2, 8>(self.chunk_c.q.val());
        self.offset.next = (bit_cast::<16, 32>(self.port_c.q.val()) << self.upstream_bits.val())
            + (bit_cast::<16, 8>(self.chunk_c.q.val()) << 5);
        self.slot.d.next = self.slot.q.val() & self.mask_24.val();
        self.port_c.d.next = self.port_c.q.val() & self.port_mask.val();
        if self.live.val() {
            if !self.t_bm.val().any() | ((self.slot.q.val() + self.one_32.val()) >= self.t_bm.val())
            {
                self.slot.d.next = 0.into();
                self.port_c.d.next = 0.into();
                self.chunk_c.d.next = 0.into();
            } else {
                self.slot.d.next = (self.slot.q.val() + self.one_32.val()) & self.mask_24.val();
                if self.emit.val() {
                    if (self.chunk_c.q.val() + self.one_8.val()) == self.chunks.val() {
                        self.chunk_c.d.next = 0.into();
                        self.port_c.d.next =
                            (self.port_c.q.val() + self.one_32.val()) & self.port_mask.val();
                    } else {
                        self.chunk_c.d.next = self.chunk_c.q.val() + self.one_8.val();
                    }
                }
            }
        }
        if self.reset.val() {
            self.slot.d.next = 0.into();
            self.port_c.d.next = 0.into();
            self.chunk_c.d.next = 0.into();
        }
    }
}
