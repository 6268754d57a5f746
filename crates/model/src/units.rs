//! Parsers of link parameters given as strings on the command line (rates, durations, sizes,
//! clock frequencies), shared by the blocks' calculators (`tcd max-ton`, `bfc thresholds`).
//! Each error states the rule and an example; the CLI prefixes the option and value
//! (`--rate 40Q: unknown unit ...`). Rates are in bit/s, sizes in bytes, times in ns.

/// Splits "40Gbps" into (40.0, "Gbps"): the longest leading run of number characters that
/// parses, then the rest, trimmed. `None` if there is no number.
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let run = s
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '+' | '-' | 'e' | 'E')))
        .unwrap_or(s.len());
    (1..=run)
        .rev()
        .find_map(|i| s[..i].parse::<f64>().ok().map(|v| (v, s[i..].trim())))
}

/// The number of `s`, finite and not negative; `what` and `hint` complete the error.
fn number<'a>(s: &'a str, what: &str, hint: &str) -> Result<(f64, &'a str), String> {
    let (v, unit) = split_number(s).ok_or_else(|| format!("not {what} ({hint})"))?;
    if !v.is_finite() {
        return Err(format!("too large ({hint})"));
    }
    if v < 0.0 {
        return Err(format!("must not be negative ({hint})"));
    }
    Ok((v, unit))
}

/// `x` as a whole number when it is one up to float noise (64 ULPs: a few products and sums
/// of decimal inputs), else `None`. 34.4 us x 100 MHz computes to 3440.0000000000005, which is
/// 3440; 2 000 000 000.4 is not whole, at any size a register holds.
pub fn whole(x: f64) -> Option<f64> {
    let nearest = x.round();
    ((x - nearest).abs() <= 64.0 * f64::EPSILON * x.abs()).then_some(nearest)
}

/// `x` rounded down, where float noise does not lose a whole number ([`whole`]).
pub fn floor_exact(x: f64) -> f64 {
    whole(x).unwrap_or(x.floor())
}

/// `x` rounded up, where float noise does not add one ([`whole`]).
pub fn ceil_exact(x: f64) -> f64 {
    whole(x).unwrap_or(x.ceil())
}

/// The fastest link rate the calculators take: 1 Pb/s.
pub const MAX_RATE_BPS: f64 = 1e15;
/// The longest duration the calculators take: 1000 s.
pub const MAX_DURATION_NS: f64 = 1e12;

const RATE_HINT: &str =
    "use b/s with an optional k, M, G or T prefix, e.g. 40G, 100Gbps, 400Mb/s, 25e9";

/// A link rate in bit/s, more than 0: `40G`, `40g`, `40Gbps`, `40Gb/s`, `40Gbit/s`, `400M`,
/// `25e9` (bare = bit/s). Prefixes are decimal and case-insensitive; `B` (bytes) is rejected.
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let (v, unit) = number(s, "a rate", RATE_HINT)?;
    let (scale, rest) = match unit.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('k') => (1e3, &unit[1..]),
        Some('m') => (1e6, &unit[1..]),
        Some('g') => (1e9, &unit[1..]),
        Some('t') => (1e12, &unit[1..]),
        _ => (1.0, unit),
    };
    match rest {
        "" | "b/s" | "bps" | "bit/s" | "bits/s" => {}
        r if r.starts_with('B') => {
            return Err(format!(
                "`{unit}` is bytes per second; rates are in bits per second ({RATE_HINT})"
            ))
        }
        _ => return Err(format!("unknown unit `{unit}` ({RATE_HINT})")),
    }
    let rate = v * scale;
    if rate <= 0.0 {
        Err(format!("must be more than 0 ({RATE_HINT})"))
    } else if rate > MAX_RATE_BPS {
        Err(format!("must be at most 1000T (1 Pb/s) ({RATE_HINT})"))
    } else {
        Ok(rate)
    }
}

const DURATION_HINT: &str = "use s, ms, us (or µs) or ns, e.g. 1us, 1000ns, 2.5us";

/// A duration in ns, at least 0: `1us`, `1µs`, `1000ns`, `2.5us`, `1ms`, `0.5s`. A bare number
/// is rejected, since ns and us are both common and a wrong guess is off by 1000.
pub fn parse_duration_ns(s: &str) -> Result<f64, String> {
    let (v, unit) = number(s, "a duration", DURATION_HINT)?;
    let scale = match unit {
        "s" => 1e9,
        "ms" => 1e6,
        "us" | "µs" | "μs" => 1e3,
        "ns" => 1.0,
        "" => return Err(format!("a unit is required ({DURATION_HINT})")),
        _ => return Err(format!("unknown unit `{unit}` ({DURATION_HINT})")),
    };
    let ns = v * scale;
    if ns > MAX_DURATION_NS {
        return Err(format!("must be at most 1000 s ({DURATION_HINT})"));
    }
    Ok(ns)
}

const BYTES_HINT: &str = "use bytes with an optional unit B, KB (1000), MB, KiB (1024) or MiB, \
    e.g. 1000, 1500B, 30KB, 64KiB";

/// A whole number of bytes, at least 0: `1000`, `1000B`, `1KB` = 1000, `1kB`, `1KiB` = 1024,
/// `30KB`, `1.5KB` = 1500, `1MB`, `1MiB`. Lower-case `b` (bits) is rejected.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (v, unit) = number(s, "a size", BYTES_HINT)?;
    let scale = match unit {
        "" | "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        u if u.ends_with('b') => {
            return Err(format!(
                "`{u}` is bits; sizes are in bytes, `B` ({BYTES_HINT})"
            ))
        }
        u => return Err(format!("unknown unit `{u}` ({BYTES_HINT})")),
    };
    let bytes = v * scale;
    // The scale may leave float noise on a whole number (1.1KB = 1100.0000000000002).
    let whole = bytes.round();
    if (bytes - whole).abs() > 1e-6 {
        return Err(format!("must be a whole number of bytes (got {bytes})"));
    }
    if whole >= u64::MAX as f64 {
        return Err(format!("too large ({BYTES_HINT})"));
    }
    Ok(whole as u64)
}

/// ε: a plain number in (0, 1), e.g. `0.05`.
pub fn parse_epsilon(s: &str) -> Result<f64, String> {
    let hint = "a plain number in (0, 1), e.g. 0.05 (the paper) or 0.04 (its testbed)";
    match split_number(s) {
        Some((v, "")) if v > 0.0 && v < 1.0 => Ok(v),
        Some((_, "")) => Err(format!("must be in (0, 1) ({hint})")),
        _ => Err(format!("not a number ({hint})")),
    }
}

/// A clock frequency in MHz: a plain number more than 0 and at most 100 000 (100 GHz, beyond
/// any digital block's clock), e.g. `100` or `156.25`.
pub fn parse_clock_mhz(s: &str) -> Result<f64, String> {
    let hint = "a plain number of MHz, e.g. 100 or 156.25";
    match split_number(s) {
        Some((v, "")) if v.is_finite() && v > 0.0 && v <= 100_000.0 => Ok(v),
        Some((_, "")) => Err(format!("must be more than 0 and at most 100000 ({hint})")),
        _ => Err(format!("not a number ({hint})")),
    }
}

/// The clock and link rate a preset is sized for (each block says which presets have one and
/// what it derives from it; `switchcraft config` prints it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockAndLink {
    pub clock_mhz: f64,
    /// Link rate in bit/s.
    pub rate_bps: f64,
}

impl ClockAndLink {
    /// The clock the house's sized presets assume, with a block's link rate: `fpga` a 100 MHz
    /// FPGA clock, `paper` a 1 GHz switch clock (assumed: the papers give none); other presets
    /// (`tiny`) have none.
    pub fn of_sized_preset(name: &str, rate_bps: f64) -> Option<ClockAndLink> {
        let clock_mhz = match name {
            "fpga" => 100.0,
            "paper" => 1000.0,
            _ => return None,
        };
        Some(ClockAndLink {
            clock_mhz,
            rate_bps,
        })
    }

    /// `cycles` of the clock, in ns.
    pub fn ns(&self, cycles: u64) -> f64 {
        cycles as f64 * 1000.0 / self.clock_mhz
    }

    /// `bits` on the link, in ns.
    pub fn line_ns(&self, bits: f64) -> f64 {
        bits / self.rate_bps * 1e9
    }

    pub fn describe(&self) -> String {
        format!(
            "a {} MHz clock and {} Gb/s links",
            self.clock_mhz,
            self.rate_bps / 1e9
        )
    }
}
