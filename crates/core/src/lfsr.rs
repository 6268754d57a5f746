//! The hardware LFSR, shared bit-exactly by golden models and RTL.
//!
//! 32-bit Galois LFSR shifting right, feedback polynomial x^32 + x^22 + x^2 + x + 1 (maximal
//! length, period 2^32 - 1). One `next()` is one clock of the hardware register:
//! `s' = (s >> 1) ^ (s[0] ? TOGGLE : 0)`. The all-zero state is a lock-up state, so a zero seed
//! is replaced by [`Lfsr32::ZERO_SEED_REPLACEMENT`], in the model and in the RTL alike.

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lfsr32 {
    state: u32,
}

impl Lfsr32 {
    /// Toggle mask of the right-shifting Galois form of x^32 + x^22 + x^2 + x + 1.
    pub const TOGGLE: u32 = 0x8020_0003;
    pub const ZERO_SEED_REPLACEMENT: u32 = 1;

    pub fn new(seed: u32) -> Self {
        let state = if seed == 0 {
            Self::ZERO_SEED_REPLACEMENT
        } else {
            seed
        };
        Lfsr32 { state }
    }

    pub fn state(&self) -> u32 {
        self.state
    }

    /// Advances one clock and returns the new state.
    #[inline]
    pub fn step(&mut self) -> u32 {
        let lsb = self.state & 1;
        self.state = (self.state >> 1) ^ (lsb.wrapping_neg() & Self::TOGGLE);
        self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lfsr_zero_seed_does_not_lock_up() {
        let mut l = Lfsr32::new(0);
        assert_ne!(l.step(), 0);
    }

    #[test]
    fn lfsr_step_is_the_galois_shift() {
        let mut l = Lfsr32::new(1);
        // 1 has its LSB set: shift gives 0, then the toggle mask.
        assert_eq!(l.step(), Lfsr32::TOGGLE);
        // TOGGLE has LSB set too: (TOGGLE >> 1) ^ TOGGLE.
        assert_eq!(l.step(), (Lfsr32::TOGGLE >> 1) ^ Lfsr32::TOGGLE);
    }

    #[test]
    fn lfsr_does_not_repeat_early() {
        // A maximal LFSR never revisits a state before 2^32 - 1 steps; check the first million.
        let mut l = Lfsr32::new(0xACE1);
        let start = l.state();
        for _ in 0..1_000_000 {
            assert_ne!(l.step(), start);
        }
    }
}
