//! RCM's switch-side arithmetic as plain functions: Eq. 2 (the regional degree) and Eq. 4-6
//! (the RCC's reductions), in the fixed point the model and the RTL use. The CLI calculator
//! (`switchcraft rcm window`, `switchcraft rcm degree`) and the §7.4 vectors call them.

use super::GD_ONE;
use crate::feedback::FB_QUANT_MAX;

/// The cut of one reduction, Q0.16: `min(Fb x Gd, 1)` (Eq. 4's `F_b x G_d`).
pub fn cut(fb6: u64, gd: u64) -> u64 {
    (fb6 * gd).min(GD_ONE)
}

/// Eq. 5 with the floor: `Wc <- max(Wc (1 - Fb Gd), Wc_min)`, rounded down.
pub fn reduce_window(wc: u64, fb6: u64, gd: u64, wc_min: u64) -> u64 {
    ((wc * (GD_ONE - cut(fb6, gd))) >> 16).max(wc_min)
}

/// Eq. 4: `R <- R (1 - Fb Gd)`, R in Q0.16 of the line rate, rounded down.
pub fn reduce_rate(rate: u64, fb6: u64, gd: u64) -> u64 {
    (rate * (GD_ONE - cut(fb6, gd))) >> 16
}

/// Eq. 2 with `w = 2^-w_shift`: `Fb' = (1 - w) Fb + w Fbr`, computed as
/// `(Fb (2^w_shift - 1) + Fbr) >> w_shift` (rounded down; exact for w = 1/2 and even sums).
pub fn regional_degree(fb: u64, fbr: u64, w_shift: u32) -> u64 {
    ((fb << w_shift) - fb + fbr) >> w_shift
}

/// The exact Gd of the paper's rule `Fb_max x Gd = 1/2` for the 6-bit Fb (1/126), and the
/// nearest Q0.16 register value.
pub fn gd_exact() -> (f64, u64) {
    let exact = 1.0 / (2.0 * FB_QUANT_MAX as f64);
    (exact, (exact * GD_ONE as f64).round() as u64)
}

/// Gd as a shift: 1/128, the largest power of two with `63 Gd <= 1/2`.
pub const GD_SHIFT_128: u64 = GD_ONE / 128;

/// The largest cut a Gd allows, as a fraction: `min(63 Gd, 1)`.
pub fn max_cut(gd: u64) -> f64 {
    cut(FB_QUANT_MAX, gd) as f64 / GD_ONE as f64
}

/// One reduction of a window (Eq. 5-6): the new Wc and Wnc = W - Wc (0 when the floor lifts
/// Wc to W or above).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub w: u64,
    pub wc: u64,
    pub wnc: u64,
}

impl Window {
    pub fn reduce(w: u64, wc: u64, fb6: u64, gd: u64, wc_min: u64) -> Window {
        let wc = reduce_window(wc, fb6, gd, wc_min);
        Window {
            w,
            wc,
            wnc: w.saturating_sub(wc),
        }
    }

    /// The harmful flows' share of the link: Wc / W.
    pub fn harmful_share(&self) -> f64 {
        self.wc as f64 / self.w as f64
    }
}
