//! The congestion feedback of 802.1Qau as QCN's and RCM's congestion points compute it (spec
//! §4.3): `Fb = Q_off + w·Q_delta`, positive when congested, clamped at 0 and rescaled to the
//! 6 bits carried on the wire. One quantiser, shared by both blocks' models.

/// `Fb_max = Q_eq·(1 + 2w)`, the 802.1Qau convention (spec §4.3 [S]): the Fb that quantises
/// to 63.
pub fn fb_max(q_eq: u64, w: u32) -> u64 {
    q_eq * (1 + 2 * u64::from(w))
}

/// The quantiser's scale: `Fb6 = min(63, (max(Fb, 0) · mantissa) >> shift)`, a rescaling of
/// [0, Fb_max] onto 6 bits by an 8-bit multiplier (spec §4.3 "clamp and rescale" [S]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FbScale {
    pub mantissa: u64,
    pub shift: u32,
}

impl FbScale {
    /// The scale that maps `fb_max` to exactly 63 (rounded up, so Fb_max itself reaches 63):
    /// `mantissa = ceil(63 · 2^shift / fb_max)` with the largest `shift` (at most 31) that keeps
    /// it within 8 bits. The rescale's error is then below half a step of the 6-bit Fb.
    pub fn for_fb_max(fb_max: u64) -> FbScale {
        assert!(fb_max >= 1);
        let mut best = FbScale {
            mantissa: 63u64.div_ceil(fb_max).min(255),
            shift: 0,
        };
        for shift in 1..=31u32 {
            let mantissa = (63u64 << shift).div_ceil(fb_max);
            if mantissa > 255 {
                break;
            }
            best = FbScale { mantissa, shift };
        }
        best
    }

    /// The `fb_scale` register: mantissa [7:0], shift [12:8].
    pub fn word(self) -> u64 {
        self.mantissa | u64::from(self.shift) << 8
    }

    pub fn from_word(word: u64) -> FbScale {
        FbScale {
            mantissa: word & 0xFF,
            shift: ((word >> 8) & 0x1F) as u32,
        }
    }

    /// The 6-bit feedback of a signed Fb (positive: congested).
    pub fn quantise(self, fb: i64) -> u64 {
        if fb <= 0 {
            0
        } else {
            ((fb as u64 * self.mantissa) >> self.shift).min(FB_QUANT_MAX)
        }
    }
}

/// The largest quantised Fb.
pub const FB_QUANT_MAX: u64 = 63;
/// Width of the quantised Fb.
pub const FB_QUANT_BITS: u32 = 6;
