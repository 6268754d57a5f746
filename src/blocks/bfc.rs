//! BFC: flow table with dynamic queue assignment and pause counters (docs/blocks/bfc.md), and
//! its helper `switchcraft bfc thresholds`.

use super::{def, generator, Block, FormalSettings, InputGenerator};
use crate::cli::{command_line, io_err, num, opt, write_output, Failure};
use crate::synth::{Ice40Resources, StateBits};
use clap::{Args, FromArgMatches, Subcommand};
use std::path::PathBuf;
use switchcraft_core::csr::RegMap;
use switchcraft_core::{mask, InputError, PortSchema};
use switchcraft_model::bfc::{self, Bfc, BfcConfig, BfcWorkload};
use switchcraft_rtl::export::Package;
use switchcraft_rtl::Tech;

#[derive(Clone, Copy, Debug)]
pub struct BfcBlock;

impl Block for BfcBlock {
    type Config = BfcConfig;
    type Model = Bfc;

    fn stem(&self) -> &'static str {
        "bfc"
    }

    fn presets(&self) -> &'static [&'static str] {
        bfc::PRESETS
    }

    fn preset(&self, name: &str) -> Option<BfcConfig> {
        BfcConfig::preset(name)
    }

    fn parse(&self, text: &str, name: &str) -> Result<BfcConfig, InputError> {
        BfcConfig::from_toml(text, name)
    }

    fn describe(&self, c: &BfcConfig) -> String {
        format!(
            "{} ports x {} queues, {} flow-table entries ({} per port), {} upstream queues, \
             {:?} assignment, sticky {} x 2^{} cycles",
            c.ports,
            c.queues,
            c.entries(),
            c.entries_per_port(),
            c.upstream_queues,
            c.assign,
            c.sticky,
            c.ts_shift
        )
    }

    fn schema(&self, c: &BfcConfig) -> PortSchema {
        bfc::port_schema(c)
    }

    fn regmap(&self, c: &BfcConfig) -> RegMap {
        bfc::regmap(c)
    }

    fn model(&self, c: &BfcConfig) -> Bfc {
        Bfc::new(c).expect("validated config")
    }

    fn check_rtl(&self, c: &BfcConfig) -> Result<(), InputError> {
        match c.model_only_option() {
            Some((field, why)) => Err(InputError(format!(
                "{field}: an option of the golden model only ({why}); the Verilog, \
                 co-simulation and formal commands need it off (docs/blocks/bfc.md)"
            ))),
            None => Ok(()),
        }
    }

    fn package(&self, c: &BfcConfig, instance: &str, command: &str, tech: Tech) -> Package {
        switchcraft_rtl::bfc::package(c, instance, command, tech)
    }

    fn workload(&self, c: &BfcConfig, seed: u64) -> InputGenerator {
        let mut w = BfcWorkload::new(c, seed);
        generator(move || w.next_input())
    }

    /// The tiny preset sweeps its flow table for 128 edges after reset, too long for BMC: the
    /// proof runs on a 2-port config (docs/blocks/bfc.md), at depth 14 and k 3 (about 9
    /// minutes).
    fn formal(&self) -> FormalSettings {
        FormalSettings {
            depth: 14,
            k: 3,
            config: Some("formal/bfc/bfc_formal.toml"),
        }
    }

    fn formal_defines(&self, c: &BfcConfig) -> Vec<(String, String)> {
        // Every port's width, as SC_W_<PORT>: BFC's field widths all depend on the config.
        let mut d: Vec<(String, String)> = bfc::port_schema(c)
            .ports
            .iter()
            .map(|p| def(&format!("SC_W_{}", p.name.to_uppercase()), p.width))
            .collect();
        d.extend([
            def("SC_PB", c.port_bits()),
            def("SC_QB", c.queue_bits()),
            def("SC_UB", c.upstream_bits()),
            def("SC_PORTS", c.ports),
            def("SC_QUEUES", c.queues),
            def("SC_UPSTREAM", c.upstream_queues),
            def("SC_INIT", c.init_cycles()),
            def("SC_M", c.entries_per_port()),
            def("SC_SIZE_MAX", mask(c.size_bits)),
            def("SC_OCC_MAX", mask(c.occupancy_bits)),
        ]);
        d
    }

    /// Each `enq` event is a packet arriving at the traffic manager.
    fn packet_bus(&self) -> &'static str {
        "enq"
    }
    fn preset_timing(&self, preset: &str) -> Option<String> {
        use switchcraft_model::bfc::Timing;
        Some(match Timing::of_preset(preset) {
            Some(t) => format!("Th, sticky and t_bm derived for {}", t.describe()),
            None => "no clock or link: time constants chosen to exercise the logic".into(),
        })
    }
    /// Received BFC control frames (PAUSE, RESUME, bitmaps).
    fn message_buses(&self) -> &'static [&'static str] {
        &["rx"]
    }
    fn state_bits(&self, c: &BfcConfig, core: &Ice40Resources) -> StateBits {
        // crates/rtl/src/bfc.rs: per flow-table entry, bank E {q (8 b), enq_count} in two
        // RAM copies (the arrival side's with the entry's class too), bank D deq_count in two
        // copies and the timestamp in one. The counter rows (2 x occupancy_bits per queue,
        // 2 x pc_bits per upstream queue) and the flag registers are counted in the measured
        // bits, not per entry.
        let (sb, tb) = (c.size_bits as u64, c.ts_bits as u64);
        let cb = u64::from(c.entry_class_bits());
        let per_entry = 2 * (8 + sb) + cb + 2 * sb + tb;
        let entries = c.entries();
        let measured = core.dff + core.memory_bits;
        let spec = c.entry_bits() as u64;
        StateBits {
            keys: entries,
            physical_keys: entries,
            measured_bits: measured,
            measured_per_key: measured as f64 / entries as f64,
            architectural_per_physical_key: per_entry,
            architectural_per_key: per_entry as f64,
            // Its memories take one form on every target.
            asic_per_physical_key: Some(per_entry),
            architecture: format!(
                "per flow-table entry: 2 x (8 b queue + {sb} b enq_count) + {cb} b class + \
                 2 x {sb} b deq_count + {tb} b timestamp = {per_entry} b (size has two \
                 writers per cycle, so it is two counts; one RAM copy per reader)"
            ),
            spec_per_key: Some(spec),
            spec_note: format!(
                "§3.2 of ../shared/spec/mechanisms.md with this config's widths: q {} b + \
                 size {sb} b + ts {tb} b + class {cb} b (App. A.3, none with one class) = \
                 {spec} b per entry",
                c.queue_bits()
            ),
        }
    }

    fn key_name(&self) -> &'static str {
        "flow-table entry"
    }

    fn bench_presets(&self) -> &'static [&'static str] {
        &["tiny", "fpga"]
    }

    fn command(&self) -> Option<clap::Command> {
        Some(BfcCommand::augment_subcommands(
            clap::Command::new("bfc")
                .about("BFC helpers: the pause-threshold table from link parameters")
                .subcommand_required(true),
        ))
    }

    fn run_command(&self, matches: &clap::ArgMatches) -> Result<(), Failure> {
        match BfcCommand::from_arg_matches(matches).map_err(|e| Failure::Input(e.to_string()))? {
            BfcCommand::Thresholds(args) => bfc_thresholds(&args),
        }
    }
}

#[derive(Subcommand)]
enum BfcCommand {
    /// Print the pause-threshold table Th(N) = HRTT x rate / N for N = 1..=queues active
    /// queues (spec §3.4), and with --out write a BFC config whose `th` is that table.
    ///
    /// The table holds whole bytes, rounded down (781.25 B -> 781). The queue count comes from
    /// the base config (--preset or --config), else from --queues. Several --rate give a
    /// switch of mixed link speeds one row per speed class (`ThTab[speed][N]`), in the order
    /// given; --port-speed then says which egress ports are in which class.
    Thresholds(BfcThresholdsArgs),
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("base").args(["preset", "config"])))]
struct BfcThresholdsArgs {
    /// Egress link rate in bit/s: 100G, 400Gbps, 25e9. Repeat it for speed classes 1, 2, 3.
    #[arg(long, required = true)]
    rate: Vec<String>,
    /// The largest one-hop RTT of the ingresses feeding the port: 2us, 1500ns. Once for every
    /// speed class, or once per --rate.
    #[arg(long, required = true)]
    hrtt: Vec<String>,
    /// Rows to print without a base config, 1..=4096 [default: 32]. A config's own queue
    /// count is 2..=128.
    #[arg(long, conflicts_with_all = ["preset", "config"])]
    queues: Option<u32>,
    /// The base config: a named BFC preset (tiny, fpga, tofino-loopback, ns3-tor, tofino2).
    #[arg(long)]
    preset: Option<String>,
    /// The base config: a BFC TOML file.
    #[arg(long)]
    config: Option<PathBuf>,
    /// A floor in bytes under every entry (spec §3.4 [S]; 0, the default, is the paper's
    /// table; one MTU, e.g. 1500, keeps Th(32) = 781 B at 100G from pausing a queue that
    /// holds less than one packet). At most HRTT x rate, Th(1), of every class.
    #[arg(long, default_value_t = 0)]
    th_min: u64,
    /// The block's clock in MHz: with --out, also derive STICKY = 2 HRTT (timestamp units)
    /// and T_BM = 5 HRTT (cycles), from the largest HRTT, instead of keeping the base
    /// config's.
    #[arg(long, requires = "out")]
    clock_mhz: Option<String>,
    /// With --out and several --rate: the speed class of each egress port, comma-separated
    /// (0,0,1,1: ports 2 and 3 at the second --rate).
    #[arg(long, requires = "out", value_delimiter = ',')]
    port_speed: Vec<u32>,
    /// Write the base config with this `th` table here (nothing is written on error).
    #[arg(long, requires = "base")]
    out: Option<PathBuf>,
}

/// A byte count for a message: six decimals, or three significant digits below 0.001.
fn bytes(x: f64) -> String {
    if x >= 1e-3 {
        num(x)
    } else {
        format!("{x:.2e}")
    }
}

/// One speed class's link: its rate (bit/s) and HRTT (ns), with the options that gave them.
struct Link<'a> {
    rate: f64,
    hrtt: f64,
    rate_arg: &'a str,
    hrtt_arg: &'a str,
}

/// The links of the speed classes: each --rate with its --hrtt (or the one --hrtt).
fn links(a: &BfcThresholdsArgs) -> Result<Vec<Link<'_>>, Failure> {
    use switchcraft_model::bfc::MAX_SPEEDS;
    use switchcraft_model::units::{parse_duration_ns, parse_rate};
    if a.rate.len() > MAX_SPEEDS as usize {
        return Err(Failure::Input(format!(
            "--rate given {} times: a BFC instance has at most {MAX_SPEEDS} speed classes",
            a.rate.len()
        )));
    }
    if a.hrtt.len() != 1 && a.hrtt.len() != a.rate.len() {
        return Err(Failure::Input(format!(
            "--hrtt given {} times for {} --rate: give it once for every class or once per \
             --rate",
            a.hrtt.len(),
            a.rate.len()
        )));
    }
    a.rate
        .iter()
        .enumerate()
        .map(|(s, r)| {
            let h = &a.hrtt[s.min(a.hrtt.len() - 1)];
            let link = Link {
                rate: opt("--rate", r, parse_rate)?,
                hrtt: opt("--hrtt", h, parse_duration_ns)?,
                rate_arg: r,
                hrtt_arg: h,
            };
            if link.hrtt <= 0.0 {
                return Err(Failure::Input(format!(
                    "--hrtt {h}: must be more than 0 (the threshold is HRTT x rate)"
                )));
            }
            Ok(link)
        })
        .collect()
}

/// Th(N) of one link, refused with the options named when an entry is 0 or too wide.
fn link_table(
    link: &Link,
    queues: u32,
    th_min: u64,
) -> Result<Vec<switchcraft_model::bfc::Th>, Failure> {
    let table = switchcraft_model::bfc::th_table_with_floor(link.rate, link.hrtt, queues, th_min);
    // Each entry must be a threshold a queue-occupancy register can hold and compare: at least
    // 1 B (0 B pauses at every arrival) and at most the widest occupancy, 32 bits.
    let bdp = link.hrtt * 1e-9 * link.rate / 8.0;
    let limit = u64::from(u32::MAX);
    let (rate, hrtt) = (link.rate_arg, link.hrtt_arg);
    if table[0].bytes > limit {
        return Err(Failure::Input(format!(
            "--rate {rate} --hrtt {hrtt}: HRTT x rate = {} B is more than {limit} B, the \
             largest threshold a 32-bit queue occupancy holds",
            num(bdp)
        )));
    }
    if th_min as f64 > bdp {
        return Err(Failure::Input(format!(
            "--th-min {th_min}: more than HRTT x rate = {} B, Th(1); such a floor makes every \
             entry equal and the threshold no longer follows the active queues",
            bytes(bdp)
        )));
    }
    if let Some(t) = table.iter().find(|t| t.bytes == 0) {
        return Err(Failure::Input(format!(
            "--rate {rate} --hrtt {hrtt}: HRTT x rate = {} B leaves Th({}) = {} B, below 1 B: \
             a threshold of 0 pauses at every arrival (use fewer queues, or check the units)",
            bytes(bdp),
            t.n_active,
            bytes(t.exact)
        )));
    }
    Ok(table)
}

fn bfc_thresholds(a: &BfcThresholdsArgs) -> Result<(), Failure> {
    use switchcraft_model::bfc::{BfcConfig, PRESETS};
    let links = links(a)?;
    let base = match (&a.preset, &a.config) {
        (Some(p), _) => Some((
            BfcConfig::preset(p).ok_or_else(|| {
                Failure::Input(format!(
                    "--preset {p}: unknown BFC preset (known: {})",
                    PRESETS.join(", ")
                ))
            })?,
            format!("preset {p}"),
        )),
        (_, Some(f)) => {
            let text = std::fs::read_to_string(f).map_err(io_err("cannot read", f))?;
            let name = f.display().to_string();
            // Checked after `th` is replaced: the file's own table may be short or missing.
            let cfg = BfcConfig::parse_unchecked(&text, &name).map_err(|e| Failure::Input(e.0))?;
            Some((cfg, name))
        }
        _ => None,
    };
    let queues = match (&base, a.queues) {
        (Some((c, _)), _) => c.queues,
        (None, Some(q)) if (1..=4096).contains(&q) => q,
        (None, Some(q)) => {
            return Err(Failure::Input(format!("--queues {q}: must be in 1..=4096")))
        }
        (None, None) => 32,
    };
    let tables = links
        .iter()
        .map(|l| link_table(l, queues, a.th_min))
        .collect::<Result<Vec<_>, _>>()?;
    let mut lines = vec![];
    for (s, (link, table)) in links.iter().zip(&tables).enumerate() {
        let class = if links.len() > 1 {
            format!(" speed class {s}:")
        } else {
            String::new()
        };
        lines.push(format!(
            "BFC pause threshold Th(N) = HRTT x rate / N (spec §3.4):{class} HRTT {} ns, rate \
             {} Gb/s, HRTT x rate = {} B",
            num(link.hrtt),
            num(link.rate / 1e9),
            num(link.hrtt * 1e-9 * link.rate / 8.0)
        ));
        if a.th_min > 0 {
            lines.push(format!(
                "floor Th_min = {} B (spec §3.4 [S]): entries below it hold it",
                a.th_min
            ));
        }
        lines.push("N_active  Th exact (B)  table (B)".to_string());
        for t in table {
            lines.push(format!(
                "{:>8}  {:>12}  {:>9}",
                t.n_active,
                num(t.exact),
                t.bytes
            ));
        }
    }
    let (Some((mut cfg, source)), Some(path)) = (base, &a.out) else {
        for line in &lines {
            println!("{line}");
        }
        return Ok(());
    };
    cfg.th = tables.iter().flatten().map(|t| t.bytes).collect();
    cfg.speeds = links.len() as u32;
    if links.len() == 1 && !a.port_speed.is_empty() {
        return Err(Failure::Input(
            "--port-speed: needs several --rate (one speed class has nothing to choose)".into(),
        ));
    }
    if links.len() > 1 && a.port_speed.is_empty() {
        return Err(Failure::Input(format!(
            "--port-speed: {} speed classes need the class of each of the {} egress ports \
             (e.g. --port-speed 0,1,...)",
            links.len(),
            cfg.ports
        )));
    }
    cfg.port_speed = a.port_speed.clone();
    if let Some(clock) = &a.clock_mhz {
        use switchcraft_model::bfc::Timing;
        let clock_mhz = opt(
            "--clock-mhz",
            clock,
            switchcraft_model::units::parse_clock_mhz,
        )?;
        let timing = Timing {
            clock_mhz,
            rate_bps: links[0].rate,
            hrtt_ns: links.iter().map(|l| l.hrtt).fold(0.0, f64::max),
        };
        cfg.derive_clocked_times(&timing)
            .map_err(|e| Failure::Input(format!("{source} at --clock-mhz {clock}: {e}")))?;
        lines.push(format!(
            "sticky = 2 HRTT = {} timestamp units of 2^{} cycles, t_bm = 5 HRTT = {} cycles, \
             at {} MHz",
            cfg.sticky,
            cfg.ts_shift,
            cfg.t_bm,
            num(clock_mhz)
        ));
    } else {
        lines.push(format!(
            "sticky = {} and t_bm = {} kept from {source} (--clock-mhz derives them)",
            cfg.sticky, cfg.t_bm
        ));
    }
    cfg.validate()
        .map_err(|e| Failure::Input(format!("{source} with this Th table: {e}")))?;
    let mut text = format!("# switchcraft {}\n", command_line());
    for line in &lines {
        text += &format!("# {line}\n");
    }
    text += &cfg.to_toml();
    write_output(path, &text)?;
    for line in &lines {
        println!("{line}");
    }
    println!("wrote {}: th = {} entries", path.display(), cfg.th.len());
    Ok(())
}
