//! QCN / P4QCN: the congestion point of every egress queue beside P4QCN's ingress PFC
//! (docs/blocks/qcn.md), and its helpers `switchcraft qcn thresholds` and `switchcraft qcn rp`.

use super::{def, generator, port_width, Block, FormalSettings, InputGenerator};
use crate::cli::{command_line, num, opt, write_output, Failure};
use crate::synth::{Ice40Resources, StateBits};
use crate::BlockConfig;
use clap::{Args, FromArgMatches, Subcommand};
use std::path::PathBuf;
use switchcraft_core::csr::RegMap;
use switchcraft_core::{InputError, PortSchema};
use switchcraft_model::qcn::reaction_point::{Decrease, ReactionPoint, RpConfig};
use switchcraft_model::qcn::thresholds::{self, Buffer, Mode};
use switchcraft_model::qcn::{self, Qcn, QcnConfig, QcnWorkload};
use switchcraft_model::units::{parse_bytes, parse_duration_ns, parse_rate};
use switchcraft_rtl::export::Package;
use switchcraft_rtl::Tech;

#[derive(Clone, Copy, Debug)]
pub struct QcnBlock;

impl Block for QcnBlock {
    type Config = QcnConfig;
    type Model = Qcn;

    fn stem(&self) -> &'static str {
        "qcn"
    }

    fn presets(&self) -> &'static [&'static str] {
        qcn::PRESETS
    }

    fn preset(&self, name: &str) -> Option<QcnConfig> {
        QcnConfig::preset(name)
    }

    fn parse(&self, text: &str, name: &str) -> Result<QcnConfig, InputError> {
        QcnConfig::from_toml(text, name)
    }

    fn describe(&self, c: &QcnConfig) -> String {
        format!(
            "{} ports x {} priorities, {}-bit depth, P_fb {}..{}, Q_eq {}, w {}, {} flow \
             entries, T_fb {} x {} cycles, Q_PFC {}",
            c.ports,
            c.priorities,
            c.depth_bits,
            c.q_min,
            c.q_max,
            c.q_eq,
            c.w,
            c.flow_entries,
            c.t_fb,
            1u64 << c.ts_shift,
            c.pfc.q_pfc
        )
    }

    fn schema(&self, c: &QcnConfig) -> PortSchema {
        qcn::port_schema(c)
    }

    fn regmap(&self, c: &QcnConfig) -> RegMap {
        qcn::regmap(c)
    }

    fn model(&self, c: &QcnConfig) -> Qcn {
        Qcn::new(c).expect("validated config")
    }

    fn package(&self, c: &QcnConfig, instance: &str, command: &str, tech: Tech) -> Package {
        switchcraft_rtl::qcn::package(c, instance, command, tech)
    }

    fn workload(&self, c: &QcnConfig, seed: u64) -> InputGenerator {
        let mut w = QcnWorkload::new(c, seed);
        generator(move || w.next_input())
    }

    fn formal_defines(&self, c: &QcnConfig) -> Vec<(String, String)> {
        let schema = qcn::port_schema(c);
        let scale = c.fb_scale();
        let p = c.pfc_config();
        vec![
            def("SC_PB", port_width(&schema, "eg_port")),
            def("SC_NB", port_width(&schema, "eg_prio")),
            def("SC_DB", c.depth_bits),
            def("SC_LB", c.pfc.length_bits),
            def("SC_PORTS", c.ports),
            def("SC_PRIOS", c.priorities),
            def("SC_Q_MIN", c.q_min),
            def("SC_Q_EQ", c.q_eq),
            def("SC_W", c.w),
            def("SC_FB_M", scale.mantissa),
            def("SC_FB_E", scale.shift),
            def("SC_T_FB", c.t_fb),
            def("SC_INIT", c.init_cycles()),
            def("SC_FBP_LATENCY", qcn::FBP_LATENCY),
            def("SC_XOFF", p.xoff),
            def("SC_XON", p.xon),
            def("SC_MAX", p.max),
        ]
    }

    /// The properties state which arrivals are sampled, so they need the testbed's step
    /// P_fb and a short reset sweep: formal/qcn/qcn_formal.toml. Depth 20 reaches a second
    /// FBP of one flow five edges after the first (the first FBP at step 14, the second at
    /// 19): with T_fb = 6 that arrival is refused by the entry the RAM read, past the rate
    /// limit's four forwards (distances 1 to 4); the inductive assertions are one-step.
    fn formal(&self) -> FormalSettings {
        FormalSettings {
            depth: 20,
            k: 2,
            config: Some("formal/qcn/qcn_formal.toml"),
        }
    }

    /// Each `eg` event is a packet arriving at an egress queue.
    fn packet_bus(&self) -> &'static str {
        "eg"
    }

    fn bench_presets(&self) -> &'static [&'static str] {
        &["tiny", "switch-48x8"]
    }

    fn preset_timing(&self, preset: &str) -> Option<String> {
        Some(
            match preset {
                "fpga" => "100 MHz clock, 25G links, 1 MiB of buffer, Q_flight 6 250 B; T_fb 50 us",
                "testbed" => {
                    "the paper's bmv2 testbed (depths in packets, 7 Mb/s links) on a 100 MHz \
                     clock; T_fb 5 ms"
                }
                "switch-48x8" => {
                    "1000 MHz clock (1 GHz, assumed), 100G links, 12 MiB of buffer, Q_flight 22.4 KB; T_fb 50 us \
                     in 1 ns timestamps"
                }
                _ => "no clock or link: sizes and times chosen to exercise the logic",
            }
            .into(),
        )
    }

    fn state_bits(&self, c: &QcnConfig, core: &Ice40Resources) -> StateBits {
        // crates/rtl/src/qcn.rs: keys {port, priority}, 2^(port_bits + prio_bits); per key the
        // CP's q_old (depth_bits) and the embedded PFC's ingress state (4 occupancy RAM copies,
        // a bank bit, a written bit, the XOFF bit on the FPGA targets; one copy and XOFF on
        // asic). Beside the keys: the rate-limit table (valid + timestamp per flow entry), two
        // copies of the P_fb table, and the PFC frame generator's 2 dirty bits per port.
        let occ = u64::from(c.pfc.occupancy_bits);
        let depth = u64::from(c.depth_bits);
        let physical_ports = 1u64 << c.port_bits();
        let physical = physical_ports << c.prio_bits();
        let keys = u64::from(c.ports) * u64::from(c.priorities);
        let per_physical = depth + 4 * occ + 3;
        let flows = u64::from(c.flow_entries) * (u64::from(c.ts_bits) + 1);
        let pfb = 2 * u64::from(c.pfb_entries) * u64::from(qcn::PFB_BITS);
        let tables = flows + pfb + 2 * physical_ports;
        let measured = core.dff + core.memory_bits;
        StateBits {
            keys,
            physical_keys: physical,
            measured_bits: measured,
            measured_per_key: measured as f64 / keys as f64,
            architectural_per_physical_key: per_physical,
            architectural_per_key: (per_physical * physical + tables) as f64 / keys as f64,
            asic_per_physical_key: Some(depth + occ + 1),
            architecture: format!(
                "q_old {depth} b + the PFC's 4 occupancy RAM copies x {occ} b + 3 flag bits = \
                 {per_physical} b per physical key ({physical} for {keys} (port, priority)); \
                 beside them the rate-limit table {} x {} b, two P_fb copies {} x {} b and 2 \
                 dirty bits per physical port; on asic one occupancy copy: {} b per physical key",
                c.flow_entries,
                c.ts_bits + 1,
                c.pfb_entries,
                qcn::PFB_BITS,
                depth + occ + 1
            ),
            spec_per_key: Some(depth + occ + 1),
            spec_note: format!(
                "§5.3 of ../shared/spec/mechanisms.md: in_occ ({occ} b here) + pfc_state 1 b, \
                 and the CP's Q_old for Fb (§4.3, {depth} b) = {} b",
                depth + occ + 1
            ),
        }
    }

    fn command(&self) -> Option<clap::Command> {
        Some(QcnCommand::augment_subcommands(
            clap::Command::new("qcn")
                .about("QCN helpers: P4QCN's thresholds from a buffer, and the reaction point")
                .subcommand_required(true),
        ))
    }

    fn run_command(&self, matches: &clap::ArgMatches) -> Result<(), Failure> {
        match QcnCommand::from_arg_matches(matches).map_err(|e| Failure::Input(e.to_string()))? {
            QcnCommand::Thresholds(a) => qcn_thresholds(&a),
            QcnCommand::Rp(a) => qcn_rp(&a),
        }
    }
}

#[derive(Subcommand)]
enum QcnCommand {
    /// Print P4QCN's PFC and feedback thresholds for a buffer (spec §5.5), optionally as a
    /// loadable config.
    ///
    /// Q_PFC <= (B - k n Q_flight) / (k n); static partitioning Q_P4QCN <= Q_PFC - Q_flight;
    /// dynamic thresholds Q_P4QCN < α (B - k n Q_flight) / (k n (α + 1)). An infeasible bound
    /// (at or below 0) is refused, naming the rule. With --out, the base config gets Q_PFC, its
    /// MAX (Q_PFC + Q_flight), and the P_fb ramp from Q_P4QCN to Q_PFC with Q_eq at Q_P4QCN.
    Thresholds(ThresholdArgs),
    /// Run a reaction point: FBPs at given times, the rate over time.
    ///
    /// The RP sends at its current rate; its byte counter and timer raise the rate in fast
    /// recovery, active and hyper-active increase (spec §5.6, 802.1Qau). P4QCN's decrease by
    /// β (default) or 802.1Qau's by Gd x Fb (--gd).
    Rp(RpArgs),
}

#[derive(Args)]
struct ThresholdArgs {
    /// Total buffer B: 12MiB, 12MB, 1048576.
    #[arg(long, value_name = "BYTES")]
    buffer: String,
    /// Ports n.
    #[arg(long)]
    ports: u32,
    /// PFC priorities k per port (the paper's formula uses 8).
    #[arg(long, default_value_t = 8)]
    priorities: u32,
    /// In-flight data Q_flight per (port, priority), e.g. 22.4KB.
    #[arg(long, value_name = "BYTES")]
    q_flight: String,
    /// The dynamic-threshold factor α.
    #[arg(long, default_value = "8")]
    alpha: String,
    /// Which bound Q_P4QCN takes: static (per-queue partitioning) or dynamic (the α-form).
    #[arg(long, value_name = "static|dynamic", default_value = "static")]
    mode: String,
    /// The base config of --out: a named QCN preset.
    #[arg(long, conflicts_with = "config")]
    preset: Option<String>,
    /// The base config of --out: a QCN TOML file.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Write the derived config here (nothing is written on error).
    #[arg(long)]
    out: Option<PathBuf>,
}

fn qcn_thresholds(a: &ThresholdArgs) -> Result<(), Failure> {
    let mode = match a.mode.as_str() {
        "static" => Mode::Static,
        "dynamic" => Mode::Dynamic,
        m => {
            return Err(Failure::Input(format!(
                "--mode {m}: must be `static` or `dynamic`"
            )))
        }
    };
    let buffer = Buffer {
        bytes: opt("--buffer", &a.buffer, parse_bytes)? as f64,
        ports: a.ports,
        priorities: a.priorities,
        q_flight_bytes: opt("--q-flight", &a.q_flight, parse_bytes)? as f64,
        alpha: opt("--alpha", &a.alpha, |s| {
            s.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| "must be a number above 0, e.g. 8".to_string())
        })?,
    };
    let b = buffer.bounds().map_err(Failure::Input)?;
    let chosen = b.q_p4qcn_bytes(mode).map_err(Failure::Input)?;
    let k = a.priorities;
    let terms = [
        (
            format!("Q_PFC   <= (B - {k}n Q_flight) / ({k}n)"),
            num(b.q_pfc),
        ),
        (
            "Q_P4QCN <= Q_PFC - Q_flight (static)".to_string(),
            num(b.q_p4qcn_static),
        ),
        (
            format!("Q_P4QCN <  a (B - {k}n Q_flight) / ({k}n (a + 1)) (dynamic)"),
            num((b.q_p4qcn_dynamic * 10.0).round() / 10.0),
        ),
    ];
    let width = terms.iter().map(|(t, _)| t.len()).max().unwrap_or(0);
    let mut lines = vec![
        "P4QCN thresholds (spec §5.5)".to_string(),
        format!(
            "inputs: B = {} B, n = {}, k = {k}, Q_flight = {} B, alpha = {}",
            num(buffer.bytes),
            a.ports,
            num(buffer.q_flight_bytes),
            num(buffer.alpha)
        ),
    ];
    lines.extend(terms.iter().map(|(t, v)| format!("{t:width$} = {v} B")));
    lines.push(format!(
        "chosen ({}): Q_PFC = {} B, Q_P4QCN = {chosen} B",
        a.mode,
        b.q_pfc_bytes()
    ));
    let Some(out) = &a.out else {
        for l in lines {
            println!("{l}");
        }
        return Ok(());
    };
    let (base, _) = BlockConfig::load("qcn", a.preset.as_deref(), a.config.as_deref())?;
    let base = base
        .get::<QcnConfig>()
        .expect("block qcn loads a QcnConfig");
    let cfg = thresholds::apply(base, &buffer, mode).map_err(Failure::Input)?;
    let mut text = format!("# switchcraft {}\n", command_line());
    for l in &lines {
        text += &format!("# {l}\n");
    }
    text += &toml::to_string(&cfg).expect("a config serializes to TOML");
    write_output(out, &text)?;
    println!(
        "wrote {}: Q_PFC = {} B, Q_P4QCN = {chosen} B ({})",
        out.display(),
        b.q_pfc_bytes(),
        a.mode
    );
    Ok(())
}

#[derive(Args)]
struct RpArgs {
    /// The RP's link rate: 7M (the testbed), 100G.
    #[arg(long, default_value = "7M")]
    line_rate: String,
    /// Times of the FBPs it receives: 0ms,120ms (each with --fb).
    #[arg(
        long,
        value_name = "DURATIONS",
        value_delimiter = ',',
        default_value = "0ms"
    )]
    fbp_at: Vec<String>,
    /// The quantised Fb each FBP carries (0..=63).
    #[arg(long, default_value_t = 63)]
    fb: u8,
    /// Decrease by Gd x Fb (802.1Qau, e.g. 0.0078125 = 1/128) instead of P4QCN's β.
    #[arg(long)]
    gd: Option<f64>,
    /// P4QCN's β in (0, 1].
    #[arg(long, default_value_t = 1.0)]
    beta: f64,
    /// Active- and hyper-active-increase steps.
    #[arg(long, default_value = "5M")]
    r_ai: String,
    #[arg(long, default_value = "50M")]
    r_hai: String,
    /// Byte-counter cycle.
    #[arg(long, default_value = "150KB")]
    bc_limit: String,
    /// Timer cycle; 0 for none (P4QCN's RP counts bytes only).
    #[arg(long, default_value = "0")]
    timer: String,
    /// How long to run and how often to print.
    #[arg(long, default_value = "2s")]
    duration: String,
    #[arg(long, default_value = "100ms")]
    step: String,
}

fn qcn_rp(a: &RpArgs) -> Result<(), Failure> {
    let rate = |option: &str, v: &str| opt(option, v, parse_rate);
    let duration = |option: &str, v: &str| {
        if v == "0" {
            Ok(0.0)
        } else {
            opt(option, v, parse_duration_ns)
        }
    };
    let cfg = RpConfig {
        line_rate_bps: rate("--line-rate", &a.line_rate)?,
        decrease: match a.gd {
            Some(gd) => Decrease::Fb { gd },
            None => Decrease::Beta(a.beta),
        },
        r_ai_bps: rate("--r-ai", &a.r_ai)?,
        r_hai_bps: rate("--r-hai", &a.r_hai)?,
        bc_limit_bytes: opt("--bc-limit", &a.bc_limit, parse_bytes)? as f64,
        timer_ns: duration("--timer", &a.timer)?,
        ..RpConfig::testbed()
    };
    let cfg = RpConfig {
        min_rate_bps: cfg.min_rate_bps.min(cfg.line_rate_bps),
        ..cfg
    };
    cfg.validate().map_err(Failure::Input)?;
    if a.fb > 63 {
        return Err(Failure::Input(format!("--fb {}: must be in 0..=63", a.fb)));
    }
    let mut fbps = a
        .fbp_at
        .iter()
        .map(|t| duration("--fbp-at", t))
        .collect::<Result<Vec<f64>, _>>()?;
    fbps.sort_by(f64::total_cmp);
    let end = duration("--duration", &a.duration)?;
    let step = duration("--step", &a.step)?;
    if step <= 0.0 {
        return Err(Failure::Input(format!(
            "--step {}: must be above 0",
            a.step
        )));
    }
    if end / step > 1e6 {
        return Err(Failure::Input(format!(
            "--duration {} / --step {}: more than a million rows",
            a.duration, a.step
        )));
    }
    let mut rp = ReactionPoint::new(&cfg);
    let mut changes = Vec::new();
    let mut next_fbp = fbps.iter().peekable();
    println!("time_ms\tstate\tR_c_bps\tR_t_bps");
    // Each row: the RP after time t, every FBP at or before t applied at its own time.
    let (mut at, mut t) = (0.0, 0.0);
    while t <= end {
        while let Some(&&f) = next_fbp.peek() {
            if f > t {
                break;
            }
            rp.run(f - at, &mut changes);
            rp.on_fbp(a.fb);
            at = f;
            next_fbp.next();
        }
        rp.run(t - at, &mut changes);
        at = t;
        println!(
            "{}\t{:?}\t{}\t{}",
            num(t / 1e6),
            rp.state(),
            num(rp.current_bps()),
            num(rp.target_bps())
        );
        t += step;
    }
    Ok(())
}
