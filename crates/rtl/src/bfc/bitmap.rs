//! BFC's pause-bitmap timer (the model's `bitmap_tick`): the period of `t_bm` cycles is cut
//! into slots; slot s sends chunk s % chunks of ingress port s / chunks (32 upstream queues of
//! its non-zero pause counters), while ports are left; `t_bm = 0` stops the timer. The bitmap
//! frame leaves on the `bm_*` bus at the edge that ends its slot.
//!
//! It runs in the accounting stage, one cycle behind the events: the slot of edge n is
//! served in cycle n + 1, with the counters after edge n's events, and its frame leaves at
//! edge n + 2.

use rust_hdl::prelude::*;
use switchcraft_core::{index_bits, mask};
use switchcraft_model::bfc::BfcConfig;

#[derive(LogicBlock)]
pub struct Bitmap<const N: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Cycle n: the block is out of reset (the timer runs from the next cycle).
    pub live: Signal<In, Bit>,
    /// Cycle n + 1: the period, as the events of edge n saw it.
    pub t_bm: Signal<In, Bits<32>>,

    /// The non-zero bits of the pause counters after edge n's events.
    pub nz: Signal<In, Bits<N>>,

    /// The bitmap frame of edge n + 2: ingress `port`, chunk `base` (at most 4), 32 bits.
    pub bm_valid: Signal<Out, Bit>,
    pub bm_port: Signal<Out, Bits<6>>,
    pub bm_base: Signal<Out, Bits<2>>,
    pub bm_bits: Signal<Out, Bits<32>>,

    n_ports: Constant<Bits<8>>,
    chunks: Constant<Bits<8>>,
    upstream_bits: Constant<Bits<8>>,
    one_32: Constant<Bits<32>>,
    one_8: Constant<Bits<8>>,
    mask_24: Constant<Bits<32>>,
    port_mask: Constant<Bits<32>>,

    /// The slot (below T_BM < 2^24) and the port and chunk it sends (the port at most `ports`).
    slot: DFF<Bits<32>>,
    r_live: DFF<Bit>,
    port_c: DFF<Bits<32>>,
    chunk_c: DFF<Bits<8>>,
    o_valid: DFF<Bit>,
    o_port: DFF<Bits<6>>,
    o_base: DFF<Bits<2>>,
    o_bits: DFF<Bits<32>>,
    running: Signal<Local, Bit>,
    /// A bitmap leaves at this edge; its bits start at `offset` in the `{port, upstream
    /// queue}` vectors.
    emit: Signal<Local, Bit>,
    offset: Signal<Local, Bits<16>>,
    nz_wide: Signal<Local, Bits<N>>,
}

impl<const N: usize> Bitmap<N> {
    pub fn new(cfg: &BfcConfig) -> Self {
        let c8 = |v: u64| Constant::new(Bits::<8>::from(v));
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v));
        Bitmap {
            clock: Default::default(),
            reset: Default::default(),
            live: Default::default(),
            t_bm: Default::default(),
            nz: Default::default(),
            bm_valid: Default::default(),
            bm_port: Default::default(),
            bm_base: Default::default(),
            bm_bits: Default::default(),
            n_ports: c8(cfg.ports.into()),
            chunks: c8(cfg.bitmap_chunks().into()),
            upstream_bits: c8(cfg.upstream_bits().into()),
            one_32: c32(1),
            one_8: c8(1),
            mask_24: c32(mask(24)),
            port_mask: c32(mask(index_bits(u64::from(cfg.ports) + 1))),
            slot: Default::default(),
            r_live: Default::default(),
            port_c: Default::default(),
            chunk_c: Default::default(),
            o_valid: Default::default(),
            o_port: Default::default(),
            o_base: Default::default(),
            o_bits: Default::default(),
            running: Default::default(),
            emit: Default::default(),
            offset: Default::default(),
            nz_wide: Default::default(),
        }
    }
}

impl<const N: usize> Logic for Bitmap<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, slot, r_live, port_c, chunk_c, o_valid, o_port, o_base, o_bits);
        self.r_live.d.next = self.live.val();
        self.running.next = self.r_live.q.val() & self.t_bm.val().any();
        self.emit.next =
            self.running.val() & (self.port_c.q.val() < bit_cast::<32, 8>(self.n_ports.val()));
        self.offset.next = (bit_cast::<16, 32>(self.port_c.q.val()) << self.upstream_bits.val())
            + (bit_cast::<16, 8>(self.chunk_c.q.val()) << 5);
        self.slot.d.next = self.slot.q.val() & self.mask_24.val();
        self.port_c.d.next = self.port_c.q.val() & self.port_mask.val();
        if self.r_live.q.val() {
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
        self.nz_wide.next = self.nz.val() >> self.offset.val();
        self.o_valid.d.next = self.emit.val();
        self.o_port.d.next = 0.into();
        self.o_base.d.next = 0.into();
        self.o_bits.d.next = 0.into();
        if self.emit.val() {
            self.o_port.d.next = bit_cast::<6, 32>(self.port_c.q.val());
            self.o_base.d.next = bit_cast::<2, 8>(self.chunk_c.q.val());
            self.o_bits.d.next = bit_cast::<32, N>(self.nz_wide.val());
        }
        self.bm_valid.next = self.o_valid.q.val();
        self.bm_port.next = self.o_port.q.val();
        self.bm_base.next = self.o_base.q.val();
        self.bm_bits.next = self.o_bits.q.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
            self.o_port.d.next = 0.into();
            self.o_base.d.next = 0.into();
            self.o_bits.d.next = 0.into();
            self.slot.d.next = 0.into();
            self.r_live.d.next = false;
            self.port_c.d.next = 0.into();
            self.chunk_c.d.next = 0.into();
        }
    }
}
