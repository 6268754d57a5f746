//! TCD: ternary congestion detection per egress (port, priority) (docs/blocks/tcd.md), and its
//! helpers `switchcraft tcd max-ton` and `switchcraft tcd config`.

use super::{def, generator, Block, InputGenerator};
use crate::cli::{command_line, num, opt, write_output, Failure};
use crate::synth::{Ice40Resources, StateBits};
use crate::BlockConfig;
use clap::{Args, FromArgMatches, Subcommand};
use std::path::{Path, PathBuf};
use switchcraft_core::csr::RegMap;
use switchcraft_core::{InputError, PortSchema};
use switchcraft_model::tcd::{self, Tcd, TcdConfig, TcdWorkload};
use switchcraft_rtl::export::Package;
use switchcraft_rtl::Tech;

#[derive(Clone, Copy, Debug)]
pub struct TcdBlock;

impl Block for TcdBlock {
    type Config = TcdConfig;
    type Model = Tcd;

    fn stem(&self) -> &'static str {
        "tcd"
    }

    fn presets(&self) -> &'static [&'static str] {
        tcd::PRESETS
    }

    fn preset(&self, name: &str) -> Option<TcdConfig> {
        TcdConfig::preset(name)
    }

    fn parse(&self, text: &str, name: &str) -> Result<TcdConfig, InputError> {
        TcdConfig::from_toml(text, name)
    }

    fn describe(&self, c: &TcdConfig) -> String {
        format!(
            "{} ports x {} priorities, {}-bit time, {}-bit queues, max(Ton)/T {}/{} cycles, \
             K {} B",
            c.ports, c.priorities, c.time_bits, c.queue_bits, c.max_ton, c.t_period, c.k
        )
    }

    fn schema(&self, c: &TcdConfig) -> PortSchema {
        tcd::port_schema(c)
    }

    fn regmap(&self, c: &TcdConfig) -> RegMap {
        tcd::regmap(c)
    }

    fn model(&self, c: &TcdConfig) -> Tcd {
        Tcd::new(c).expect("validated config")
    }

    fn package(&self, c: &TcdConfig, instance: &str, command: &str, tech: Tech) -> Package {
        switchcraft_rtl::tcd::package(c, instance, command, tech)
    }

    fn workload(&self, c: &TcdConfig, seed: u64) -> InputGenerator {
        let mut w = TcdWorkload::new(c, seed);
        generator(move || w.next_input())
    }

    fn formal_defines(&self, c: &TcdConfig) -> Vec<(String, String)> {
        vec![
            def("SC_PB", c.port_bits()),
            def("SC_NB", c.prio_bits()),
            def("SC_QB", c.queue_bits),
            def("SC_TB", c.time_bits),
            def("SC_PORTS", c.ports),
            def("SC_PRIOS", c.priorities),
        ]
    }

    /// Each `deq` event is a packet transmitted from an egress queue.
    fn packet_bus(&self) -> &'static str {
        "deq"
    }
    fn preset_timing(&self, preset: &str) -> Option<String> {
        use switchcraft_model::tcd::max_ton::{preset_max_ton_cycles, preset_max_ton_ns};
        Some(
            match switchcraft_model::tcd::max_ton::preset_timing(preset) {
                Some(t) => format!(
                    "max_ton and t_period derived for {}: max(Ton) = T = {} us (the paper's \
                 analysis values) = {} cycles",
                    t.describe(),
                    preset_max_ton_ns(&t) / 1000.0,
                    preset_max_ton_cycles(&t)
                ),
                None => "no clock or link: time constants chosen to exercise the logic".into(),
            },
        )
    }
    /// Received PFC frames and credit updates.
    fn message_buses(&self) -> &'static [&'static str] {
        &["rx_pfc", "rx_credit"]
    }
    fn state_bits(&self, c: &TcdConfig, core: &Ice40Resources) -> StateBits {
        // crates/rtl/src/tcd.rs: keys {port, priority[2:0]}; bank R {t_on, Q at RESUME},
        // bank D {t_T, Q_rec, age of t_T when written, LAST_STATE}, one RAM copy each; 6 flag
        // bits per key (paused, pending, the 2-bit ages of t_on and of bank D's last write,
        // whose 3 says bank D was never written).
        let (tb, qb) = (c.time_bits as u64, c.queue_bits as u64);
        let ram = (tb + qb) + (tb + qb + 4);
        let flags = 6;
        let physical = 8u64 << c.port_bits();
        let keys = c.ports as u64 * c.priorities as u64;
        let per_physical = ram + flags;
        let measured = core.dff + core.memory_bits;
        let spec = 2 * tb + qb + 2 + 1 + 1;
        StateBits {
            keys,
            physical_keys: physical,
            measured_bits: measured,
            measured_per_key: measured as f64 / keys as f64,
            architectural_per_physical_key: per_physical,
            architectural_per_key: (per_physical * physical) as f64 / keys as f64,
            // Its memories take one form on every target.
            asic_per_physical_key: Some(per_physical),
            architecture: format!(
                "bank R {} b + bank D {} b (one RAM copy each, split by writer) + {flags} \
                 flag bits (paused, pending, 2 x 2-bit ages) = {per_physical} b \
                 per physical key; {physical} physical keys for {keys} (port, priority)",
                tb + qb,
                tb + qb + 4
            ),
            spec_per_key: Some(spec),
            spec_note: format!(
                "§1.4 of ../shared/spec/mechanisms.md: t_on_start {tb} b + valid 1 b + t_T \
                 {tb} b + Q_rec {qb} b + LAST_STATE 2 b + paused 1 b = {spec} b (92 b at \
                 32-bit time and 24-bit queues)"
            ),
        }
    }

    fn command(&self) -> Option<clap::Command> {
        Some(TcdCommand::augment_subcommands(
            clap::Command::new("tcd")
                .about("TCD helpers: max(Ton) and T from link parameters, and a loadable config from them")
                .subcommand_required(true),
        ))
    }

    fn run_command(&self, matches: &clap::ArgMatches) -> Result<(), Failure> {
        match TcdCommand::from_arg_matches(matches).map_err(|e| Failure::Input(e.to_string()))? {
            TcdCommand::MaxTon { link, clock_mhz } => tcd_max_ton(&link, clock_mhz.as_deref()),
            TcdCommand::Config(args) => tcd_config(&args),
        }
    }
}

#[derive(Subcommand)]
enum TcdCommand {
    /// Print max(Ton) and T from link parameters (PFC/CEE: the spec's §1.7 hypothesis; or IB).
    ///
    /// Prints the inputs, the formula's terms, max(Ton) and T (= max(Ton), as the paper
    /// recommends) and, with --clock-mhz, both in clock cycles (rounded up).
    ///
    /// PFC/CEE: max(Ton) = (B1-B0)/(eps C) + tau/(2 eps) + tau, tau = 2 MTU/C + 2 t_p. This is
    /// the spec's hypothesis (mechanisms.md §1.7 [H]) for the paper's Eq. 3: it reproduces the
    /// paper's 34.4 / 26.96 / 24.48 us at 40 / 100 / 200 Gb/s, but the paper extract does not
    /// print the equation. InfiniBand/CBFC (--credit-period): max(Ton) = Tc (spec §1.8).
    MaxTon {
        #[command(flatten)]
        link: LinkArgs,
        /// Block clock in MHz: also print the values in cycles (rounded up).
        #[arg(long, value_name = "MHZ")]
        clock_mhz: Option<String>,
    },
    /// Write a TCD config (TOML, or a CSR write list) with max(Ton) = T from link parameters.
    ///
    /// Loads the base config, sets max_ton and t_period to the cycles of max(Ton) = T computed
    /// as `tcd max-ton` does (spec §1.7 hypothesis for PFC/CEE; Tc for IB, which also sets
    /// mode = "ib"), and K/K_low if given, validates, and writes it: link parameters to a
    /// loaded block in one step.
    Config(TcdConfigArgs),
}

#[derive(Args)]
struct TcdConfigArgs {
    /// The base config: a named TCD preset (tiny, fpga, paper).
    #[arg(long, conflicts_with = "config")]
    preset: Option<String>,
    /// The base config: a TCD TOML file.
    #[arg(long)]
    config: Option<PathBuf>,
    #[command(flatten)]
    link: LinkArgs,
    /// Block clock in MHz (max(Ton) and T are rounded up to whole cycles).
    #[arg(long, value_name = "MHZ")]
    clock_mhz: String,
    /// Set the CE threshold K (bytes: 40000, 40KB, 64KiB); K_low follows it unless --k-low.
    #[arg(long, value_name = "BYTES")]
    k: Option<String>,
    /// Set the low threshold K_low (bytes; at most K).
    #[arg(long, value_name = "BYTES")]
    k_low: Option<String>,
    /// The speed class to set (spec §1.4: constants per port-speed class): 0, the default, is
    /// the top-level max_ton, t_period, k, k_low; s >= 1 is more_speeds[s - 1], and s = the
    /// base config's class count adds a class (K and K_low from class 0 unless given). Entries
    /// join a class through the config's entry_speed.
    #[arg(long, value_name = "S", default_value_t = 0)]
    speed_class: u32,
    /// Write here (nothing is written on error) instead of to stdout.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write a JSON Lines CSR write list (mode, max_ton, t_period, k, k_low; one write per
    /// cycle, usable as a stimulus) instead of TOML.
    #[arg(long)]
    csr: bool,
}

/// Link parameters of `tcd max-ton` and `tcd config`: PFC/CEE (--rate ...) or IB
/// (--credit-period).
#[derive(Args)]
struct LinkArgs {
    /// PFC/CEE link rate C in bit/s: 40G, 100Gbps, 400Mb/s, 25e9.
    #[arg(long, required_unless_present = "credit_period")]
    rate: Option<String>,
    /// PFC/CEE one-way propagation delay t_p: 1us, 500ns (a unit is required).
    #[arg(long, value_name = "DURATION", required_unless_present_any = ["credit_period", "tau"])]
    prop_delay: Option<String>,
    /// PFC/CEE MTU in bytes [default: 1000, the paper's].
    #[arg(long, value_name = "BYTES")]
    mtu: Option<String>,
    /// PFC/CEE epsilon in (0, 1): ON-period input rate = drain rate + eps C [default: 0.05, the
    /// paper's; its testbed used 0.04].
    #[arg(long)]
    epsilon: Option<String>,
    /// PFC/CEE B1 - B0 = Xoff - Xon of the upstream port, in bytes [default: 2 MTU].
    #[arg(long, value_name = "BYTES")]
    gap: Option<String>,
    /// PFC/CEE tau, replacing 2 MTU/C + 2 t_p (e.g. a measured 20us).
    #[arg(long, value_name = "DURATION")]
    tau: Option<String>,
    /// InfiniBand/CBFC credit period Tc (e.g. 60us): max(Ton) = T = Tc. Not with the PFC/CEE
    /// options.
    #[arg(long, value_name = "DURATION", conflicts_with_all = ["rate", "prop_delay", "mtu", "epsilon", "gap", "tau"])]
    credit_period: Option<String>,
}

/// A link's max(Ton) = T in ns, with the report lines that explain it.
struct LinkBound {
    /// InfiniBand (from --credit-period) rather than PFC/CEE.
    ib: bool,
    max_ton_ns: f64,
    /// Heading, inputs and the formula's terms.
    lines: Vec<String>,
}

fn us(ns: f64) -> String {
    format!("{} us", num(ns / 1000.0))
}

fn rate_text(bps: f64) -> String {
    for (scale, prefix) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] {
        if bps >= scale {
            return format!("{} {prefix}b/s", num(bps / scale));
        }
    }
    format!("{} b/s", num(bps))
}

impl LinkArgs {
    fn bound(&self) -> Result<LinkBound, Failure> {
        use switchcraft_model::tcd::max_ton::{self, CeeParams};
        if let Some(tc) = &self.credit_period {
            let tc_ns = opt("--credit-period", tc, max_ton::parse_duration_ns)?;
            let max_ton_ns = max_ton::ib_max_ton_ns(tc_ns).map_err(Failure::Input)?;
            return Ok(LinkBound {
                ib: true,
                max_ton_ns,
                lines: vec![
                    "TCD max(Ton), InfiniBand/CBFC (spec §1.8)".into(),
                    "inputs:".into(),
                    format!("  Tc = {} (credit period)", us(tc_ns)),
                    "max(Ton) = Tc".into(),
                ],
            });
        }
        // clap requires --rate without --credit-period, and --prop-delay without --tau too.
        let rate = opt(
            "--rate",
            self.rate.as_deref().unwrap_or_default(),
            max_ton::parse_rate,
        )?;
        let prop_delay = match &self.prop_delay {
            Some(v) => Some(opt("--prop-delay", v, max_ton::parse_duration_ns)?),
            None => None,
        };
        let bytes = |option: &str, v: &Option<String>| -> Result<Option<f64>, Failure> {
            match v {
                Some(v) => Ok(Some(opt(option, v, max_ton::parse_bytes)? as f64)),
                None => Ok(None),
            }
        };
        let p = CeeParams {
            rate_bps: rate,
            mtu_bytes: bytes("--mtu", &self.mtu)?.unwrap_or(1000.0),
            prop_delay_ns: prop_delay.unwrap_or(0.0),
            epsilon: match &self.epsilon {
                Some(v) => opt("--epsilon", v, max_ton::parse_epsilon)?,
                None => 0.05,
            },
            gap_bytes: bytes("--gap", &self.gap)?,
            tau_ns: match &self.tau {
                Some(v) => Some(opt("--tau", v, max_ton::parse_duration_ns)?),
                None => None,
            },
        };
        let m = p.max_ton().map_err(Failure::Input)?;
        let mut lines = vec![
            format!("TCD max(Ton), PFC/CEE ({})", max_ton::CEE_HYPOTHESIS),
            "inputs:".into(),
            format!("  C       = {}", rate_text(p.rate_bps)),
            format!("  MTU     = {} B", num(p.mtu_bytes)),
        ];
        if let Some(tp) = prop_delay {
            let unused = if p.tau_ns.is_some() {
                " (unused: --tau given)"
            } else {
                ""
            };
            lines.push(format!("  t_p     = {}{unused}", us(tp)));
        }
        lines.push(format!("  eps     = {}", num(p.epsilon)));
        let gap_note = if p.gap_bytes.is_none() {
            " (2 MTU)"
        } else {
            ""
        };
        lines.push(format!("  B1 - B0 = {} B{gap_note}", num(p.gap())));
        let tau_note = if p.tau_ns.is_some() { " (--tau)" } else { "" };
        lines.extend([
            "max(Ton) = (B1-B0)/(eps C) + tau/(2 eps) + tau, tau = 2 MTU/C + 2 t_p".into(),
            format!("  tau             = {}{tau_note}", us(m.tau_ns)),
            format!("  (B1-B0)/(eps C) = {}", us(m.gap_term_ns)),
            format!("  tau/(2 eps)     = {}", us(m.tau_over_2eps_ns)),
            format!("  + tau           = {}", us(m.tau_ns)),
        ]);
        Ok(LinkBound {
            ib: false,
            max_ton_ns: m.max_ton_ns,
            lines,
        })
    }
}

/// The closing lines of a report: max(Ton), T and, given a clock, their cycles.
fn bound_summary(bound: &LinkBound, clock_mhz: Option<f64>) -> Result<Vec<String>, Failure> {
    use switchcraft_model::tcd::max_ton::cycles;
    let mut lines = vec![
        format!("max(Ton) = {}", us(bound.max_ton_ns)),
        format!(
            "T        = {} (T = max(Ton), as the paper recommends)",
            us(bound.max_ton_ns)
        ),
    ];
    if let Some(f) = clock_mhz {
        let c =
            cycles(bound.max_ton_ns, f).map_err(|e| Failure::Input(format!("--clock-mhz: {e}")))?;
        lines.push(format!(
            "at {} MHz: max_ton = {c} cycles, t_period = {c} cycles (rounded up)",
            num(f)
        ));
    }
    Ok(lines)
}

fn tcd_max_ton(link: &LinkArgs, clock_mhz: Option<&str>) -> Result<(), Failure> {
    use switchcraft_model::tcd::max_ton::parse_clock_mhz;
    let bound = link.bound()?;
    let clock = match clock_mhz {
        Some(v) => Some(opt("--clock-mhz", v, parse_clock_mhz)?),
        None => None,
    };
    for line in bound.lines.iter().chain(&bound_summary(&bound, clock)?) {
        println!("{line}");
    }
    Ok(())
}

/// The base config of `tcd config`, and how to name it in messages.
fn load_tcd(preset: Option<&str>, config: Option<&Path>) -> Result<(TcdConfig, String), Failure> {
    let source = match (preset, config) {
        (Some(p), _) => format!("preset {p}"),
        (_, Some(f)) => f.display().to_string(),
        _ => String::new(),
    };
    let (cfg, _) = BlockConfig::load("tcd", preset, config)?;
    let c = cfg.get::<TcdConfig>().expect("block tcd loads a TcdConfig");
    Ok((c.clone(), source))
}

fn tcd_config(a: &TcdConfigArgs) -> Result<(), Failure> {
    use switchcraft_model::tcd::max_ton::{config_toml, cycles, parse_bytes, parse_clock_mhz};
    use switchcraft_model::tcd::{reg, Mode, MODE_IB, TIME_BITS_MAX};
    let bound = a.link.bound()?;
    let clock = opt("--clock-mhz", &a.clock_mhz, parse_clock_mhz)?;
    let k =
        a.k.as_deref()
            .map(|v| opt("--k", v, parse_bytes))
            .transpose()?;
    let k_low = a
        .k_low
        .as_deref()
        .map(|v| opt("--k-low", v, parse_bytes))
        .transpose()?;
    let (mut cfg, source) = load_tcd(a.preset.as_deref(), a.config.as_deref())?;
    let c =
        cycles(bound.max_ton_ns, clock).map_err(|e| Failure::Input(format!("--clock-mhz: {e}")))?;
    let s = a.speed_class;
    if s > cfg.speeds() || (a.csr && s >= cfg.speeds()) {
        return Err(Failure::Input(format!(
            "--speed-class {s}: {source} has classes 0..={}; {}",
            cfg.speeds() - 1,
            if a.csr {
                "a CSR write list can only set a class the block has"
            } else {
                "a new class takes the next number"
            }
        )));
    }
    let mut class = cfg.speed(s.min(cfg.speeds() - 1));
    class.max_ton = c;
    class.t_period = c;
    if s == cfg.speeds() {
        class.k = cfg.k;
        class.k_low = cfg.k_low;
    }
    if let Some(k) = k {
        // The spec's default K_low = K.
        class.k = k;
        class.k_low = k;
    }
    if let Some(k_low) = k_low {
        class.k_low = k_low;
    }
    match s {
        0 => (cfg.max_ton, cfg.t_period, cfg.k, cfg.k_low) = (c, c, class.k, class.k_low),
        _ if s == cfg.speeds() => cfg.more_speeds.push(class),
        _ => cfg.more_speeds[s as usize - 1] = class,
    }
    cfg.mode = if bound.ib { Mode::Ib } else { Mode::Cee };
    cfg.validate().map_err(|e| {
        if e.field.ends_with("max_ton") || e.field.ends_with("t_period") {
            // A time register holds at most half a wrap of the time counter.
            let needed = 65 - c.leading_zeros();
            let fix = if needed <= TIME_BITS_MAX {
                format!("use a slower --clock-mhz or a config with time_bits >= {needed}")
            } else {
                format!(
                    "use a slower --clock-mhz (it needs {needed} time_bits; at most \
                     {TIME_BITS_MAX} exist)"
                )
            };
            Failure::Input(format!(
                "{source} with max(Ton) = {} at {} MHz: {e}; {fix}",
                us(bound.max_ton_ns),
                num(clock)
            ))
        } else {
            Failure::Input(format!("{source}: {e}"))
        }
    })?;
    let text = if a.csr {
        let mode = if cfg.mode == Mode::Ib { MODE_IB } else { 0 };
        [
            (reg::MODE, mode),
            (reg::SPEED_SEL, s.into()),
            (reg::MAX_TON, class.max_ton),
            (reg::T_PERIOD, class.t_period),
            (reg::K, class.k),
            (reg::K_LOW, class.k_low),
        ]
        .iter()
        .map(|(addr, data)| format!("{{\"csr_we\":1,\"csr_addr\":{addr},\"csr_wdata\":{data}}}\n"))
        .collect::<String>()
    } else {
        let mut head = format!("# switchcraft {}\n", command_line());
        for line in bound
            .lines
            .iter()
            .chain(&bound_summary(&bound, Some(clock))?)
        {
            head += &format!("# {line}\n");
        }
        head + &config_toml(&cfg)
    };
    match &a.out {
        Some(path) => {
            write_output(path, &text)?;
            println!(
                "wrote {}: speed class {s}: max_ton = t_period = {c} cycles ({} at {} MHz)",
                path.display(),
                us(bound.max_ton_ns),
                num(clock)
            );
        }
        None => print!("{text}"),
    }
    Ok(())
}
