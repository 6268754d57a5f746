//! Byte occupancy per key from an enqueue and a dequeue bus, II = 1 on both: the RTL form of
//! `switchcraft_model::pfc::Occupancy`. Shared by PFC's ingress and CaPFC's egress buffers.
//!
//! * edge n: the events are captured (`e_*`, `d_*`) and their keys address the RAMs;
//! * cycle n: read data (or a forwarded value) -> dequeue (clamp at 0, flagged), then enqueue on
//!   top of it when both name one key (drop when the sum exceeds `max`);
//! * edge n + 1: RAM writes.
//!
//! Occupancy is read-modify-written by two buses per cycle, so it needs two write ports and two
//! read ports. It is built from 1R1W RAMs as a live-value table (LaForest and Steffan, FPGA 2010):
//! bank E is written only by the enqueue path, bank D only by the dequeue path, each bank has
//! one copy per reading path, and two bits per key say which bank is live (`lvt_e`) and whether
//! the key was written since reset (`lvt_any`; RAMs have no reset). The write of edge n is not
//! yet visible to the read of edge n (read-old), so the last write of each bank is forwarded
//! (`fw_*`). When both buses hit one key, the combined result is written to bank E only.

use crate::narrow_ram::NarrowRam;
use rust_hdl::prelude::*;

/// Occupancy of `K` keys addressed by `KB` bits, counters of `width` bits (at most 32).
#[derive(LogicBlock)]
pub struct Occupancy<const KB: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Events of edge n; the caller has already dropped those naming a key that does not exist.
    pub enq_valid: Signal<In, Bit>,
    pub enq_key: Signal<In, Bits<KB>>,
    pub enq_len: Signal<In, Bits<16>>,
    pub deq_valid: Signal<In, Bit>,
    pub deq_key: Signal<In, Bits<KB>>,
    pub deq_len: Signal<In, Bits<16>>,
    /// An enqueue whose sum would exceed this is dropped.
    pub max: Signal<In, Bits<32>>,

    // Cycle n: the events of edge n - 1 and what they do.
    pub e_valid: Signal<Out, Bit>,
    pub e_key: Signal<Out, Bits<KB>>,
    /// Occupancy after the enqueue (`e_base` when dropped).
    pub e_b1: Signal<Out, Bits<32>>,
    pub e_drop: Signal<Out, Bit>,
    pub d_valid: Signal<Out, Bit>,
    pub d_key: Signal<Out, Bits<KB>>,
    /// Occupancy after the dequeue (0 when it underflowed).
    pub d_b1: Signal<Out, Bits<32>>,
    pub d_underflow: Signal<Out, Bit>,
    /// Both events are valid and name one key.
    pub same_key: Signal<Out, Bit>,

    one_k: Constant<Bits<K>>,
    e_valid_q: DFF<Bit>,
    e_key_q: DFF<Bits<KB>>,
    e_len_q: DFF<Bits<16>>,
    d_valid_q: DFF<Bit>,
    d_key_q: DFF<Bits<KB>>,
    d_len_q: DFF<Bits<16>>,
    ram_e_for_enq: NarrowRam<KB, 32>,
    ram_e_for_deq: NarrowRam<KB, 32>,
    ram_d_for_enq: NarrowRam<KB, 32>,
    ram_d_for_deq: NarrowRam<KB, 32>,
    lvt_any: DFF<Bits<K>>,
    lvt_e: DFF<Bits<K>>,
    fw_e_valid: DFF<Bit>,
    fw_e_key: DFF<Bits<KB>>,
    fw_e_val: DFF<Bits<32>>,
    fw_d_valid: DFF<Bit>,
    fw_d_key: DFF<Bits<KB>>,
    fw_d_val: DFF<Bits<32>>,

    e_b0: Signal<Local, Bits<32>>,
    /// Occupancy before the dequeue.
    d_b0: Signal<Local, Bits<32>>,
    /// Occupancy the enqueue adds to: after the dequeue when both name one key.
    e_base: Signal<Local, Bits<32>>,
    e_len32: Signal<Local, Bits<32>>,
    d_len32: Signal<Local, Bits<32>>,
    e_sum: Signal<Local, Bits<33>>,
    d_write: Signal<Local, Bit>,
    e_onehot: Signal<Local, Bits<K>>,
    d_onehot: Signal<Local, Bits<K>>,
    e_touch: Signal<Local, Bits<K>>,
    d_touch: Signal<Local, Bits<K>>,
}

impl<const KB: usize, const K: usize> Occupancy<KB, K> {
    pub fn new(width: usize) -> Self {
        assert_eq!(1 << KB, K);
        Occupancy {
            clock: Default::default(),
            reset: Default::default(),
            enq_valid: Default::default(),
            enq_key: Default::default(),
            enq_len: Default::default(),
            deq_valid: Default::default(),
            deq_key: Default::default(),
            deq_len: Default::default(),
            max: Default::default(),
            e_valid: Default::default(),
            e_key: Default::default(),
            e_base: Default::default(),
            e_b1: Default::default(),
            e_drop: Default::default(),
            d_valid: Default::default(),
            d_key: Default::default(),
            d_b0: Default::default(),
            d_b1: Default::default(),
            d_underflow: Default::default(),
            same_key: Default::default(),
            one_k: Constant::new(1u64.into()),
            e_valid_q: Default::default(),
            e_key_q: Default::default(),
            e_len_q: Default::default(),
            d_valid_q: Default::default(),
            d_key_q: Default::default(),
            d_len_q: Default::default(),
            ram_e_for_enq: NarrowRam::new(width),
            ram_e_for_deq: NarrowRam::new(width),
            ram_d_for_enq: NarrowRam::new(width),
            ram_d_for_deq: NarrowRam::new(width),
            lvt_any: Default::default(),
            lvt_e: Default::default(),
            fw_e_valid: Default::default(),
            fw_e_key: Default::default(),
            fw_e_val: Default::default(),
            fw_d_valid: Default::default(),
            fw_d_key: Default::default(),
            fw_d_val: Default::default(),
            e_b0: Default::default(),
            e_len32: Default::default(),
            d_len32: Default::default(),
            e_sum: Default::default(),
            d_write: Default::default(),
            e_onehot: Default::default(),
            d_onehot: Default::default(),
            e_touch: Default::default(),
            d_touch: Default::default(),
        }
    }
}

impl<const KB: usize, const K: usize> Logic for Occupancy<KB, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, e_valid_q, e_key_q, e_len_q, d_valid_q, d_key_q, d_len_q, lvt_any, lvt_e,
            fw_e_valid, fw_e_key, fw_e_val, fw_d_valid, fw_d_key, fw_d_val
        );
        self.ram_e_for_enq.clock.next = self.clock.val();
        self.ram_e_for_deq.clock.next = self.clock.val();
        self.ram_d_for_enq.clock.next = self.clock.val();
        self.ram_d_for_deq.clock.next = self.clock.val();

        // ---- Edge n: capture the events; their keys address the RAMs.
        self.e_valid_q.d.next = self.enq_valid.val();
        self.e_key_q.d.next = self.enq_key.val();
        self.e_len_q.d.next = self.enq_len.val();
        self.d_valid_q.d.next = self.deq_valid.val();
        self.d_key_q.d.next = self.deq_key.val();
        self.d_len_q.d.next = self.deq_len.val();
        self.ram_e_for_enq.read_address.next = self.enq_key.val();
        self.ram_d_for_enq.read_address.next = self.enq_key.val();
        self.ram_e_for_deq.read_address.next = self.deq_key.val();
        self.ram_d_for_deq.read_address.next = self.deq_key.val();

        // ---- Cycle n: lookups (forwarded write, else live bank, else never written).
        self.e_valid.next = self.e_valid_q.q.val();
        self.e_key.next = self.e_key_q.q.val();
        self.d_valid.next = self.d_valid_q.q.val();
        self.d_key.next = self.d_key_q.q.val();
        if self.fw_e_valid.q.val() & (self.fw_e_key.q.val() == self.e_key_q.q.val()) {
            self.e_b0.next = self.fw_e_val.q.val();
        } else if self.fw_d_valid.q.val() & (self.fw_d_key.q.val() == self.e_key_q.q.val()) {
            self.e_b0.next = self.fw_d_val.q.val();
        } else if !self.lvt_any.q.val().get_bit(self.e_key_q.q.val().index()) {
            self.e_b0.next = 0.into();
        } else if self.lvt_e.q.val().get_bit(self.e_key_q.q.val().index()) {
            self.e_b0.next = self.ram_e_for_enq.read_data.val();
        } else {
            self.e_b0.next = self.ram_d_for_enq.read_data.val();
        }
        if self.fw_e_valid.q.val() & (self.fw_e_key.q.val() == self.d_key_q.q.val()) {
            self.d_b0.next = self.fw_e_val.q.val();
        } else if self.fw_d_valid.q.val() & (self.fw_d_key.q.val() == self.d_key_q.q.val()) {
            self.d_b0.next = self.fw_d_val.q.val();
        } else if !self.lvt_any.q.val().get_bit(self.d_key_q.q.val().index()) {
            self.d_b0.next = 0.into();
        } else if self.lvt_e.q.val().get_bit(self.d_key_q.q.val().index()) {
            self.d_b0.next = self.ram_e_for_deq.read_data.val();
        } else {
            self.d_b0.next = self.ram_d_for_deq.read_data.val();
        }
        self.e_len32.next = bit_cast::<32, 16>(self.e_len_q.q.val());
        self.d_len32.next = bit_cast::<32, 16>(self.d_len_q.q.val());
        self.same_key.next = self.e_valid_q.q.val()
            & self.d_valid_q.q.val()
            & (self.e_key_q.q.val() == self.d_key_q.q.val());

        // Dequeue first: clamp at zero (flagged).
        self.d_underflow.next = self.d_valid_q.q.val() & (self.d_len32.val() > self.d_b0.val());
        if self.d_len32.val() > self.d_b0.val() {
            self.d_b1.next = 0.into();
        } else {
            self.d_b1.next = self.d_b0.val() - self.d_len32.val();
        }
        // Then enqueue, on top of the dequeue when both name one key.
        if self.same_key.val() {
            self.e_base.next = self.d_b1.val();
        } else {
            self.e_base.next = self.e_b0.val();
        }
        self.e_sum.next =
            bit_cast::<33, 32>(self.e_base.val()) + bit_cast::<33, 32>(self.e_len32.val());
        self.e_drop.next =
            self.e_valid_q.q.val() & (self.e_sum.val() > bit_cast::<33, 32>(self.max.val()));
        if self.e_drop.val() {
            self.e_b1.next = self.e_base.val();
        } else {
            self.e_b1.next = self.e_sum.val().get_bits::<32>(0);
        }

        // ---- Edge n + 1: RAM writes, live-value table, forwarding registers.
        self.d_write.next = self.d_valid_q.q.val() & !self.same_key.val();
        self.ram_e_for_enq.write_enable.next = self.e_valid_q.q.val();
        self.ram_e_for_enq.write_address.next = self.e_key_q.q.val();
        self.ram_e_for_enq.write_data.next = self.e_b1.val();
        self.ram_e_for_deq.write_enable.next = self.e_valid_q.q.val();
        self.ram_e_for_deq.write_address.next = self.e_key_q.q.val();
        self.ram_e_for_deq.write_data.next = self.e_b1.val();
        self.ram_d_for_enq.write_enable.next = self.d_write.val();
        self.ram_d_for_enq.write_address.next = self.d_key_q.q.val();
        self.ram_d_for_enq.write_data.next = self.d_b1.val();
        self.ram_d_for_deq.write_enable.next = self.d_write.val();
        self.ram_d_for_deq.write_address.next = self.d_key_q.q.val();
        self.ram_d_for_deq.write_data.next = self.d_b1.val();
        self.fw_e_valid.d.next = self.e_valid_q.q.val();
        self.fw_e_key.d.next = self.e_key_q.q.val();
        self.fw_e_val.d.next = self.e_b1.val();
        self.fw_d_valid.d.next = self.d_write.val();
        self.fw_d_key.d.next = self.d_key_q.q.val();
        self.fw_d_val.d.next = self.d_b1.val();
        self.e_onehot.next = self.one_k.val() << self.e_key_q.q.val();
        self.d_onehot.next = self.one_k.val() << self.d_key_q.q.val();
        self.e_touch.next = 0.into();
        if self.e_valid_q.q.val() {
            self.e_touch.next = self.e_onehot.val();
        }
        self.d_touch.next = 0.into();
        if self.d_valid_q.q.val() {
            self.d_touch.next = self.d_onehot.val();
        }
        self.lvt_any.d.next = self.lvt_any.q.val() | self.e_touch.val() | self.d_touch.val();
        if self.d_write.val() {
            self.lvt_e.d.next = (self.lvt_e.q.val() & !self.d_onehot.val()) | self.e_touch.val();
        } else {
            self.lvt_e.d.next = self.lvt_e.q.val() | self.e_touch.val();
        }

        // Synchronous reset (RAM contents are covered by lvt_any).
        if self.reset.val() {
            self.e_valid_q.d.next = false;
            self.d_valid_q.d.next = false;
            self.lvt_any.d.next = 0.into();
            self.lvt_e.d.next = 0.into();
            self.fw_e_valid.d.next = false;
            self.fw_d_valid.d.next = false;
        }
    }
}
