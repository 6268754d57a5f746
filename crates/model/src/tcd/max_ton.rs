//! max(Ton) and T from link parameters (spec §1.7–1.9): what `switchcraft tcd max-ton` prints
//! and `switchcraft tcd config` loads into a block's `max_ton` and `t_period`.
//!
//! PFC/CEE uses the spec's **hypothesis** §1.7 [H] for the paper's Eq. 3. The extract does not
//! print the equation; this form reproduces the paper's three printed values exactly (34.4 /
//! 26.96 / 24.48 us at 40 / 100 / 200 Gb/s, spec §7.1 T1–T3):
//!
//! ```text
//! tau      = 2 MTU / C + 2 t_p
//! max(Ton) = (B1 - B0) / (eps C) + tau / (2 eps) + tau      (B1 - B0 = Xoff - Xon, default 2 MTU)
//! T        = max(Ton)                                       (the paper's recommendation)
//! ```
//!
//! InfiniBand/CBFC (§1.8, [P]): max(Ton) = Tc, the credit period, and T = max(Ton).
//!
//! Units: rates in bit/s, sizes in bytes, times in ns, all `f64`. The parsers take the CLI's
//! strings; their errors state the rule and an example, and the CLI prefixes the option and
//! value (`--rate 40Q: unknown unit ...`).

use super::TcdConfig;
use crate::units::ClockAndLink;

/// The status of the CEE formula, quoted in reports: a hypothesis that fits the paper's numbers.
pub const CEE_HYPOTHESIS: &str = "spec §1.7 hypothesis [H]; it reproduces the paper's \
    34.4 / 26.96 / 24.48 us at 40 / 100 / 200 Gb/s";

/// The clock and link a preset is sized for: its `max_ton` and `t_period` are the paper's
/// PFC/CEE max(Ton) = T at that link rate ([`CeeParams::paper`]), in cycles of that clock
/// ([`preset_max_ton_cycles`]). `fpga`: a 100 MHz FPGA clock; `paper`: a 1 GHz switch clock
/// (assumed: the paper gives none); both at the paper's 40 Gb/s. `tiny` has none: its times
/// are chosen to exercise the logic.
pub fn preset_timing(name: &str) -> Option<ClockAndLink> {
    ClockAndLink::of_sized_preset(name, 40e9)
}

/// The paper's max(Ton) = T at `t`'s link rate, in ns.
pub fn preset_max_ton_ns(t: &ClockAndLink) -> f64 {
    CeeParams::paper(t.rate_bps)
        .max_ton()
        .expect("the paper's parameters are valid")
        .max_ton_ns
}

/// The same in cycles of `t`'s clock, rounded up.
pub fn preset_max_ton_cycles(t: &ClockAndLink) -> u64 {
    cycles(preset_max_ton_ns(t), t.clock_mhz).expect("a preset's max(Ton) fits")
}

/// Inputs of the PFC/CEE bound.
#[derive(Clone, Debug, PartialEq)]
pub struct CeeParams {
    /// Link rate C in bit/s.
    pub rate_bps: f64,
    /// MTU in bytes (the paper: 1000).
    pub mtu_bytes: f64,
    /// One-way propagation delay t_p in ns (the paper: 1 us).
    pub prop_delay_ns: f64,
    /// ε: the ON-period input rate exceeds the drain rate by ε·C (the paper: 0.05; testbed 0.04).
    pub epsilon: f64,
    /// B1 - B0 = Xoff - Xon of the upstream PFC in bytes; `None` = 2 MTU, the paper's value.
    pub gap_bytes: Option<f64>,
    /// τ in ns, replacing 2 MTU/C + 2 t_p (the DPDK testbed measured τ ≈ 20 us).
    pub tau_ns: Option<f64>,
}

/// The CEE bound and its terms, all in ns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaxTon {
    /// τ = 2 MTU/C + 2 t_p, or the given τ.
    pub tau_ns: f64,
    /// (B1 - B0) / (ε C).
    pub gap_term_ns: f64,
    /// τ / (2 ε).
    pub tau_over_2eps_ns: f64,
    /// The sum of the two terms above and τ.
    pub max_ton_ns: f64,
    /// T = max(Ton).
    pub t_ns: f64,
}

impl CeeParams {
    /// The paper's analysis values (MTU 1000 B, t_p = 1 us, ε = 0.05, B1 - B0 = 2 MTU) at `rate_bps`.
    pub fn paper(rate_bps: f64) -> CeeParams {
        CeeParams {
            rate_bps,
            mtu_bytes: 1000.0,
            prop_delay_ns: 1000.0,
            epsilon: 0.05,
            gap_bytes: None,
            tau_ns: None,
        }
    }

    /// B1 - B0 in bytes: the given value or 2 MTU.
    pub fn gap(&self) -> f64 {
        self.gap_bytes.unwrap_or(2.0 * self.mtu_bytes)
    }

    /// Checks every input; the message names the CLI option and the rule.
    pub fn validate(&self) -> Result<(), String> {
        let finite_above = |opt: &str, v: f64, lo: f64, unit: &str| {
            if v.is_finite() && v > lo {
                Ok(())
            } else {
                Err(format!("{opt}: must be more than {lo} {unit} (got {v})"))
            }
        };
        finite_above("--rate", self.rate_bps, 0.0, "b/s")?;
        finite_above("--mtu", self.mtu_bytes, 0.0, "bytes")?;
        if !(self.prop_delay_ns.is_finite() && self.prop_delay_ns >= 0.0) {
            return Err(format!(
                "--prop-delay: must be at least 0 ns (got {})",
                self.prop_delay_ns
            ));
        }
        if !(self.epsilon > 0.0 && self.epsilon < 1.0) {
            return Err(format!(
                "--epsilon: must be in (0, 1), e.g. 0.05 (got {})",
                self.epsilon
            ));
        }
        if let Some(g) = self.gap_bytes {
            finite_above("--gap", g, 0.0, "bytes")?;
        }
        if let Some(t) = self.tau_ns {
            finite_above("--tau", t, 0.0, "ns")?;
        }
        Ok(())
    }

    /// τ in ns: the given value, or 2 MTU/C + 2 t_p.
    pub fn tau(&self) -> f64 {
        self.tau_ns
            .unwrap_or(2.0 * bits_ns(self.mtu_bytes, self.rate_bps) + 2.0 * self.prop_delay_ns)
    }

    /// max(Ton) under the spec's hypothesis §1.7 (see the module doc), and T = max(Ton).
    pub fn max_ton(&self) -> Result<MaxTon, String> {
        self.validate()?;
        let tau = self.tau();
        let gap_term = bits_ns(self.gap(), self.epsilon * self.rate_bps);
        let tau_over_2eps = tau / (2.0 * self.epsilon);
        let max_ton = gap_term + tau_over_2eps + tau;
        Ok(MaxTon {
            tau_ns: tau,
            gap_term_ns: gap_term,
            tau_over_2eps_ns: tau_over_2eps,
            max_ton_ns: max_ton,
            t_ns: max_ton,
        })
    }
}

/// Time in ns to send `bytes` at `rate_bps`.
fn bits_ns(bytes: f64, rate_bps: f64) -> f64 {
    bytes * 8.0 / rate_bps * 1e9
}

/// IB/CBFC (spec §1.8 [P]): the steady-state ON period R_d·Tc/(R_d + ε·C) is below Tc for any
/// ε > 0, so max(Ton) = Tc; T = max(Ton) too. Returns max(Ton) in ns.
pub fn ib_max_ton_ns(credit_period_ns: f64) -> Result<f64, String> {
    if credit_period_ns.is_finite() && credit_period_ns > 0.0 {
        Ok(credit_period_ns)
    } else {
        Err(format!(
            "--credit-period: must be more than 0 ns (got {credit_period_ns})"
        ))
    }
}

/// The IB specification recommends a credit period of at most this many symbol times (§1.8).
pub const IB_MAX_CREDIT_PERIOD_SYMBOLS: f64 = 65_536.0;

/// The recommended upper bound on Tc in ns for a link whose symbol time is `symbol_ns`
/// (4 ns at 10G, 1 ns at 40G).
pub fn ib_max_credit_period_ns(symbol_ns: f64) -> f64 {
    IB_MAX_CREDIT_PERIOD_SYMBOLS * symbol_ns
}

/// Clock cycles of `ns` (finite, >= 0) at `clock_mhz`, rounded up: conservative, the register
/// value is never shorter than the computed bound. Float noise on a whole number does not add a
/// cycle (34.4 us at 100 MHz is 3440, not 3441), a real fraction does at any size
/// (2 000 000 000.4 is 2 000 000 001): [`crate::units::ceil_exact`]. More than 2^53 cycles,
/// where a float no longer holds every whole number, is an error: no time register is that
/// wide.
pub fn cycles(ns: f64, clock_mhz: f64) -> Result<u64, String> {
    let x = ns * clock_mhz / 1000.0;
    if !x.is_finite() || x > (1u64 << 53) as f64 {
        return Err(format!(
            "{ns} ns at {clock_mhz} MHz is {x:e} cycles, more than 2^53 (no time register is \
             that wide)"
        ));
    }
    Ok(crate::units::ceil_exact(x) as u64)
}

/// `cfg` as TOML (the format `TcdConfig::from_toml` reads).
pub fn config_toml(cfg: &TcdConfig) -> String {
    toml::to_string(cfg).expect("a TcdConfig serializes to TOML")
}

// ---- parsers of the CLI's strings: shared with other blocks' link calculators ----

pub use crate::units::{
    parse_bytes, parse_clock_mhz, parse_duration_ns, parse_epsilon, parse_rate,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal within a relative 1e-9 (float noise of the arithmetic, not of the formula).
    fn assert_close(got: f64, want: f64) {
        assert!(
            (got - want).abs() <= 1e-9 * want.abs().max(1.0),
            "got {got}, want {want}"
        );
    }

    fn paper(gbps: f64) -> MaxTon {
        CeeParams::paper(gbps * 1e9).max_ton().unwrap()
    }

    #[test]
    fn max_ton_reproduces_paper_t1_34_4us_at_40g() {
        assert_close(paper(40.0).max_ton_ns, 34_400.0);
    }

    #[test]
    fn max_ton_reproduces_paper_t2_26_96us_at_100g() {
        assert_close(paper(100.0).max_ton_ns, 26_960.0);
    }

    #[test]
    fn max_ton_reproduces_paper_t3_24_48us_at_200g() {
        assert_close(paper(200.0).max_ton_ns, 24_480.0);
    }

    #[test]
    fn max_ton_t_equals_max_ton() {
        for g in [40.0, 100.0, 200.0] {
            let m = paper(g);
            assert_eq!(m.t_ns, m.max_ton_ns);
        }
    }

    #[test]
    fn max_ton_tau_t4_is_2mtu_over_c_plus_2tp() {
        assert_close(paper(40.0).tau_ns, 2_400.0);
        assert_close(paper(100.0).tau_ns, 2_160.0);
        assert_close(paper(200.0).tau_ns, 2_080.0);
    }

    #[test]
    fn max_ton_components_t5_at_40g() {
        let m = paper(40.0);
        assert_close(m.gap_term_ns, 8_000.0);
        assert_close(m.tau_over_2eps_ns, 24_000.0);
        assert_close(m.tau_ns, 2_400.0);
        assert_close(m.gap_term_ns + m.tau_over_2eps_ns + m.tau_ns, m.max_ton_ns);
    }

    #[test]
    fn max_ton_is_not_the_rejected_naive_model_t6() {
        // Naive: (B1-B0)/(eps C) + tau/eps = 56.0 us at 40G (spec §1.7, rejected).
        let m = paper(40.0);
        let naive = m.gap_term_ns + m.tau_ns / 0.05;
        assert_close(naive, 56_000.0);
        assert!((m.max_ton_ns - naive).abs() > 1_000.0, "{m:?}");
    }

    #[test]
    fn max_ton_ib_credit_period_bound_t7() {
        assert_close(ib_max_credit_period_ns(4.0), 262_144.0);
        assert_close(ib_max_credit_period_ns(1.0), 65_536.0);
    }

    #[test]
    fn max_ton_ib_is_the_credit_period() {
        assert_eq!(ib_max_ton_ns(60_000.0), Ok(60_000.0));
        assert!(ib_max_ton_ns(0.0).unwrap_err().contains("--credit-period"));
        assert!(ib_max_ton_ns(f64::NAN).is_err());
    }

    #[test]
    fn max_ton_dpdk_testbed_t10_is_870us() {
        let p = CeeParams {
            rate_bps: 10e9,
            epsilon: 0.04,
            gap_bytes: Some(30_000.0),
            tau_ns: Some(20_000.0),
            ..CeeParams::paper(10e9)
        };
        let m = p.max_ton().unwrap();
        assert_close(m.gap_term_ns, 600_000.0);
        assert_close(m.tau_over_2eps_ns, 250_000.0);
        assert_close(m.max_ton_ns, 870_000.0);
        // With KiB (30 x 1024 B): 884.4 us.
        let kib = CeeParams {
            gap_bytes: Some(30_720.0),
            ..p
        };
        assert_close(kib.max_ton().unwrap().max_ton_ns, 884_400.0);
    }

    #[test]
    fn max_ton_gap_defaults_to_two_mtu() {
        let p = CeeParams::paper(40e9);
        assert_eq!(p.gap(), 2_000.0);
        let explicit = CeeParams {
            gap_bytes: Some(2_000.0),
            ..p.clone()
        };
        assert_eq!(p.max_ton(), explicit.max_ton());
    }

    #[test]
    fn max_ton_rejects_bad_params_naming_the_option() {
        let base = CeeParams::paper(40e9);
        let cases = [
            (
                CeeParams {
                    rate_bps: 0.0,
                    ..base.clone()
                },
                "--rate",
            ),
            (
                CeeParams {
                    rate_bps: f64::INFINITY,
                    ..base.clone()
                },
                "--rate",
            ),
            (
                CeeParams {
                    mtu_bytes: 0.0,
                    ..base.clone()
                },
                "--mtu",
            ),
            (
                CeeParams {
                    prop_delay_ns: -1.0,
                    ..base.clone()
                },
                "--prop-delay",
            ),
            (
                CeeParams {
                    epsilon: 1.0,
                    ..base.clone()
                },
                "--epsilon",
            ),
            (
                CeeParams {
                    epsilon: f64::NAN,
                    ..base.clone()
                },
                "--epsilon",
            ),
            (
                CeeParams {
                    gap_bytes: Some(0.0),
                    ..base.clone()
                },
                "--gap",
            ),
            (
                CeeParams {
                    tau_ns: Some(0.0),
                    ..base.clone()
                },
                "--tau",
            ),
        ];
        for (p, opt) in cases {
            let e = p.max_ton().unwrap_err();
            assert!(e.starts_with(opt), "{e}");
        }
    }

    #[test]
    fn max_ton_cycles_round_up_without_float_noise() {
        assert_eq!(cycles(paper(40.0).max_ton_ns, 100.0).unwrap(), 3_440);
        assert_eq!(cycles(paper(40.0).max_ton_ns, 1000.0).unwrap(), 34_400);
        assert_eq!(cycles(paper(100.0).max_ton_ns, 100.0).unwrap(), 2_696);
        assert_eq!(cycles(paper(200.0).max_ton_ns, 156.25).unwrap(), 3_825);
        // 24.48 us at 156.25 MHz is exactly 3825; 10.001 ns at 100 MHz is 1.0001 -> 2.
        assert_eq!(cycles(10.001, 100.0).unwrap(), 2);
        assert_eq!(cycles(10.0, 100.0).unwrap(), 1);
        assert_eq!(
            cycles(1e-6, 100.0).unwrap(),
            1,
            "a tiny bound is still one cycle"
        );
        // A real fraction of a cycle at 2^31 cycles is a cycle more, never one less.
        assert_eq!(cycles(20_000_000_004.0, 100.0).unwrap(), 2_000_000_001);
        assert_eq!(cycles(20_000_000_000.0, 100.0).unwrap(), 2_000_000_000);
        assert!(cycles(26_960.0, 1e300)
            .unwrap_err()
            .contains("more than 2^53"));
    }

    #[test]
    fn max_ton_config_toml_parses_back() {
        let cfg = TcdConfig::preset("fpga").unwrap();
        let back = TcdConfig::from_toml(&config_toml(&cfg), "t").unwrap();
        assert_eq!(back, cfg);
    }

    #[test]
    fn max_ton_parse_rate_accepts_common_spellings() {
        for (s, want) in [
            ("40G", 40e9),
            ("40g", 40e9),
            ("40Gbps", 40e9),
            ("40Gb/s", 40e9),
            ("40 Gbit/s", 40e9),
            ("100G", 100e9),
            ("400M", 400e6),
            ("400Mbps", 400e6),
            ("2.5G", 2.5e9),
            ("1T", 1e12),
            ("10k", 1e4),
            ("25e9", 25e9),
            ("25e9bps", 25e9),
            ("1000000", 1e6),
        ] {
            assert_eq!(parse_rate(s), Ok(want), "{s}");
        }
    }

    #[test]
    fn max_ton_parse_rate_rejects_with_the_rule() {
        for (s, want) in [
            ("40Q", "unknown unit `Q`"),
            ("40GB/s", "is bytes per second"),
            ("G", "not a rate"),
            ("", "not a rate"),
            ("0G", "must be more than 0"),
            ("-40G", "must not be negative"),
            ("1e999", "too large"),
            ("nan", "not a rate"),
            ("inf", "not a rate"),
            ("40Gbpsx", "unknown unit `Gbpsx`"),
        ] {
            let e = parse_rate(s).unwrap_err();
            assert!(e.contains(want), "{s}: {e}");
            assert!(e.contains("e.g. 40G"), "{s}: the hint: {e}");
        }
    }

    #[test]
    fn max_ton_parse_duration_accepts_units() {
        for (s, want) in [
            ("1us", 1_000.0),
            ("1µs", 1_000.0),
            ("1μs", 1_000.0),
            ("1000ns", 1_000.0),
            ("2.5us", 2_500.0),
            ("1ms", 1e6),
            ("0.5s", 5e8),
            ("60 us", 60_000.0),
            ("0us", 0.0),
        ] {
            assert_eq!(parse_duration_ns(s), Ok(want), "{s}");
        }
    }

    #[test]
    fn max_ton_parse_duration_rejects_bare_numbers_and_unknown_units() {
        for (s, want) in [
            ("1000", "a unit is required"),
            ("1 sec", "unknown unit `sec`"),
            ("1uS", "unknown unit `uS`"),
            ("us", "not a duration"),
            ("-1us", "must not be negative"),
        ] {
            let e = parse_duration_ns(s).unwrap_err();
            assert!(e.contains(want), "{s}: {e}");
        }
    }

    #[test]
    fn max_ton_parse_bytes_accepts_decimal_and_binary_units() {
        for (s, want) in [
            ("1000", 1000),
            ("1000B", 1000),
            ("1KB", 1000),
            ("1kB", 1000),
            ("1KiB", 1024),
            ("30KB", 30_000),
            ("1.5KB", 1500),
            ("1.1KB", 1100),
            ("1MB", 1_000_000),
            ("1MiB", 1_048_576),
            ("0", 0),
        ] {
            assert_eq!(parse_bytes(s), Ok(want), "{s}");
        }
    }

    #[test]
    fn max_ton_parse_bytes_rejects_bits_fractions_and_unknown_units() {
        for (s, want) in [
            ("1Kb", "is bits"),
            ("1000.5", "whole number of bytes"),
            ("1XB", "unknown unit `XB`"),
            ("KB", "not a size"),
            ("-1KB", "must not be negative"),
        ] {
            let e = parse_bytes(s).unwrap_err();
            assert!(e.contains(want), "{s}: {e}");
        }
    }

    #[test]
    fn max_ton_parse_epsilon_and_clock() {
        assert_eq!(parse_epsilon("0.05"), Ok(0.05));
        for s in ["0", "1", "1.5", "-0.1"] {
            assert!(parse_epsilon(s).unwrap_err().contains("(0, 1)"), "{s}");
        }
        assert!(parse_epsilon("5%").unwrap_err().contains("not a number"));
        assert_eq!(parse_clock_mhz("156.25"), Ok(156.25));
        assert!(parse_clock_mhz("0").unwrap_err().contains("more than 0"));
        assert!(parse_clock_mhz("100MHz")
            .unwrap_err()
            .contains("not a number"));
    }
}
