//! The flow hash in hardware: CRC-32C of a key of up to 8 bytes as an XOR network, bit-exact
//! with `switchcraft_core::hash::hash32`, which the golden models use. BFC hashes its flow id,
//! QCN the (source, destination) pair of its rate limit.

use rust_hdl::prelude::*;
use switchcraft_core::hash::hash32;

/// The CRC-32C of a `bytes`-byte key as an affine map: bit b of the hash is the parity of
/// `key & masks[b]` XOR bit b of `constant` (CRC is linear over GF(2); the constant is the
/// hash of the zero key). Derived from [`hash32`], so model and RTL share one definition.
pub fn crc_matrix(bytes: usize) -> ([u64; 32], u32) {
    let constant = hash32(0, bytes);
    let mut masks = [0u64; 32];
    for i in 0..8 * bytes {
        let column = hash32(1u128 << i, bytes) ^ constant;
        for (b, m) in masks.iter_mut().enumerate() {
            *m |= u64::from(column >> b & 1) << i;
        }
    }
    (masks, constant)
}

/// Combinational CRC-32C of the low `bytes` bytes of `key`.
#[derive(LogicBlock)]
pub struct FlowHash {
    pub key: Signal<In, Bits<64>>,
    pub hash: Signal<Out, Bits<32>>,
    /// 32 masks of 64 bits, bit b's at [64b+63:64b], and the hash of the zero key.
    masks: Constant<Bits<2048>>,
    zero: Constant<Bits<32>>,
    acc: Signal<Local, Bits<32>>,
}

impl FlowHash {
    pub fn new(bytes: usize) -> Self {
        assert!((1..=8).contains(&bytes));
        let (masks, zero) = crc_matrix(bytes);
        let mut packed = Bits::<2048>::default();
        for (b, m) in masks.iter().enumerate() {
            packed = packed | (Bits::<2048>::from(*m) << (64 * b) as u64);
        }
        FlowHash {
            key: Default::default(),
            hash: Default::default(),
            masks: Constant::new(packed),
            zero: Constant::new(Bits::<32>::from(u64::from(zero))),
            acc: Default::default(),
        }
    }
}

impl Logic for FlowHash {
    #[hdl_gen]
    fn update(&mut self) {
        self.acc.next = self.zero.val();
        for b in 0..32 {
            if (self.key.val() & self.masks.val().get_bits::<64>(b * 64)).xor() {
                self.acc.next = self.acc.val().replace_bit(b, !self.acc.val().get_bit(b));
            }
        }
        self.hash.next = self.acc.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_matrix_reproduces_the_shared_hash() {
        for bytes in [2usize, 4, 8] {
            let (masks, zero) = crc_matrix(bytes);
            for key in [0u64, 1, 0xBEEF, 0x0123_4567_89AB_CDEF, u64::MAX] {
                let key = key & switchcraft_core::mask(8 * bytes as u32);
                let mut h = zero;
                for (b, m) in masks.iter().enumerate() {
                    h ^= ((key & m).count_ones() & 1) << b;
                }
                assert_eq!(h, hash32(key.into(), bytes), "{bytes} bytes, key {key:#x}");
            }
        }
    }
}
