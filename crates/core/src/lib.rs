//! Shared vocabulary of switchcraft.
//!
//! Everything that the golden model, the RTL export and the co-simulation must agree on lives
//! here: the port schema of a block, the [`CycleModel`] trait, register-map declarations, the
//! stimulus/trace file format, the VCD writer, and the LFSR and hash that model and RTL share
//! bit-exactly.

pub mod axil;
pub mod csr;
pub mod delay;
pub mod error;
pub mod fcs;
pub mod hash;
pub mod lfsr;
pub mod model;
pub mod output;
pub mod port;
pub mod rng;
pub mod stimulus;
pub mod vcd;

pub use delay::DelayLine;
pub use error::{ConfigError, InputError, StimulusError};
pub use model::{CycleModel, DynModel, PortValues};
pub use port::{Dir, Port, PortSchema};

/// Number of bits needed to index `n` items (at least 1): `clog2(n)` with `clog2(1) = 1`.
pub fn index_bits(n: u64) -> u32 {
    if n <= 2 {
        1
    } else {
        64 - (n - 1).leading_zeros()
    }
}

/// Number of bits needed to hold the value `v` (at least 1).
pub fn value_bits(v: u64) -> u32 {
    (64 - v.leading_zeros()).max(1)
}

/// All-ones mask of `bits` bits (`bits` <= 64).
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// FNV-1a 64-bit digest, for content identifiers in generated files (not for security).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_bits_covers_every_index() {
        assert_eq!(index_bits(1), 1);
        assert_eq!(index_bits(2), 1);
        assert_eq!(index_bits(3), 2);
        assert_eq!(index_bits(4), 2);
        assert_eq!(index_bits(5), 3);
        assert_eq!(index_bits(32), 5);
        assert_eq!(index_bits(33), 6);
    }

    #[test]
    fn value_bits_holds_the_value() {
        assert_eq!(value_bits(0), 1);
        assert_eq!(value_bits(1), 1);
        assert_eq!(value_bits(255), 8);
        assert_eq!(value_bits(256), 9);
        assert_eq!(mask(0), 0);
        assert_eq!(mask(5), 31);
        assert_eq!(mask(64), u64::MAX);
    }
}
