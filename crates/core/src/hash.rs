//! The flow hash shared bit-exactly by golden models and RTL.
//!
//! CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, init and final XOR 0xFFFFFFFF) over the
//! key's bytes, least significant byte first. A bit-serial definition, so the RTL form is an
//! unrolled XOR network with no tables. Table indices come from [`reduce`], Lemire's
//! multiply-shift reduction, which avoids a divider in hardware.

pub const CRC32C_REFLECTED: u32 = 0x82F6_3B78;

/// CRC-32C of the low `key_bytes` bytes of `key`, least significant byte first.
pub fn hash32(key: u128, key_bytes: usize) -> u32 {
    assert!(key_bytes <= 16);
    let mut crc = u32::MAX;
    for i in 0..key_bytes {
        crc ^= ((key >> (8 * i)) & 0xFF) as u32;
        for _ in 0..8 {
            let lsb = crc & 1;
            crc = (crc >> 1) ^ (lsb.wrapping_neg() & CRC32C_REFLECTED);
        }
    }
    !crc
}

/// Maps a 32-bit hash to `0..m` as `(h * m) >> 32`.
pub fn reduce(h: u32, m: u32) -> u32 {
    ((h as u64 * m as u64) >> 32) as u32
}

/// [`reduce`] over the top `bits` bits of `h` only: `(h[31:32-bits] * m) >> bits`, so the
/// hardware multiplier is `bits` wide instead of 32. Equal to `reduce(h, m)` at 32 bits.
pub fn reduce_top(h: u32, bits: u32, m: u32) -> u32 {
    assert!((1..=32).contains(&bits));
    let top = u64::from(h) >> (32 - bits);
    ((top * u64::from(m)) >> bits) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_check_value() {
        // The standard check: CRC-32C("123456789") = 0xE3069283.
        let mut key = 0u128;
        for (i, b) in b"123456789".iter().enumerate() {
            key |= (*b as u128) << (8 * i);
        }
        assert_eq!(hash32(key, 9), 0xE306_9283);
    }

    #[test]
    fn reduce_covers_range_without_exceeding() {
        assert_eq!(reduce(0, 100), 0);
        assert_eq!(reduce(u32::MAX, 100), 99);
        assert_eq!(reduce(1 << 31, 100), 50);
    }

    #[test]
    fn reduce_top_uses_only_the_top_bits() {
        for h in [0, 1, 0xFFFF, 0x8000_0000, 0xDEAD_BEEF, u32::MAX] {
            assert_eq!(reduce_top(h, 32, 100), reduce(h, 100));
            // The low 16 bits do not matter at 16 bits.
            assert_eq!(reduce_top(h, 16, 100), reduce_top(h | 0xFFFF, 16, 100));
            assert_eq!(reduce_top(h, 16, 100), reduce(h & 0xFFFF_0000, 100));
            assert!(reduce_top(h, 8, 100) < 100);
        }
    }
}
