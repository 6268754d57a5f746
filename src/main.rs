//! The `switchcraft` command line. Exit status: 0 success, 1 co-simulation mismatch or tool
//! failure, 2 bad input (arguments, config, stimulus).

use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use switchcraft::{BlockConfig, InputError, BLOCKS};
use switchcraft_core::stimulus::{read_stimulus, write_line, OutputFile};
use switchcraft_core::vcd::VcdWriter;
use switchcraft_core::Dir;
use switchcraft_sim::{CosimOptions, SeededStimulus, Stimulus, VecStimulus};

#[derive(Parser)]
#[command(
    name = "switchcraft",
    version,
    about = "Cycle-accurate models, Verilog generators and \
    Verilator co-simulation for lossless-switch congestion-control blocks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the blocks and their presets.
    List,
    /// Generate a block's Verilog, port manifest and C header.
    Generate {
        #[command(flatten)]
        target: Target,
        /// Output directory (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
    /// Print a block's register map: the Markdown table (default) or the C header.
    Regmap {
        #[command(flatten)]
        target: Target,
        /// Print the C header instead of the table.
        #[arg(long)]
        c_header: bool,
    },
    /// Run the golden model on a stimulus file and write its output trace.
    Simulate {
        #[command(flatten)]
        target: Target,
        /// Stimulus: JSON Lines, one object per cycle keyed by input port (omitted ports are 0).
        #[arg(long)]
        stimulus: PathBuf,
        /// Output trace: JSON Lines, one object per cycle with every output port.
        #[arg(long)]
        out: PathBuf,
        /// Also write a VCD of every port.
        #[arg(long)]
        vcd: Option<PathBuf>,
    },
    /// The main job: generate every block's Verilog, co-simulate each preset against its golden
    /// model on the default random workload, write a summary and a VCD.
    Demo {
        /// Output directory.
        #[arg(long, default_value = "target/demo")]
        out: PathBuf,
        /// Cycles per co-simulation.
        #[arg(long, default_value_t = 1_000_000)]
        cycles: u64,
    },
    /// Co-simulate the golden model against the exported Verilog under Verilator.
    Cosim {
        #[command(flatten)]
        target: Target,
        /// Cycles of seeded random workload.
        #[arg(long, default_value_t = 100_000)]
        cycles: u64,
        /// Seed of the random workload.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Drive this stimulus file instead of the random workload.
        #[arg(long, conflicts_with = "seed")]
        stimulus: Option<PathBuf>,
        /// Write the model's VCD of the whole run here (and Verilator's next to it, `.rtl.vcd`).
        #[arg(long)]
        vcd: Option<PathBuf>,
        /// Where mismatch waveforms go.
        #[arg(long, default_value = "target/switchcraft-mismatch")]
        out_dir: PathBuf,
    },
    /// Formal proof of the block's properties (formal/<block>/<block>_props.sv) with
    /// yosys-smtbmc and z3: BMC from reset, then k-induction. Exit 1 if a proof fails, with
    /// the counterexample VCD's path.
    Formal {
        #[command(flatten)]
        target: Target,
        /// BMC depth in cycles from reset (also the base case of the induction).
        #[arg(long, default_value_t = 12)]
        depth: u32,
        /// Induction length k (at most --depth).
        #[arg(long, default_value_t = 4)]
        k: u32,
        /// Check the props file's deliberately wrong assertion instead (the proof must fail).
        #[arg(long)]
        mutant: bool,
        /// Working directory: scripts, logs, counterexamples.
        #[arg(long, default_value = "target/formal")]
        out: PathBuf,
    },
    /// FPGA synthesis: iCE40 HX8K resources, place-and-route Fmax and bitstream of the
    /// checked-in Verilog, plus a synthesis-only Xilinx estimate; writes docs/reports/synth.*.
    Synth {
        /// Block stem (see `switchcraft list`).
        #[arg(long)]
        block: String,
        /// Presets to run (default: every preset of the block).
        #[arg(long = "preset", num_args = 1..)]
        presets: Vec<String>,
        /// Place-and-route seeds per preset (run one after the other); Fmax is their median.
        #[arg(long, default_value_t = 3)]
        seeds: u32,
        /// Working directory for logs, netlists and bitstreams.
        #[arg(long, default_value = "target/synth")]
        out: PathBuf,
        /// Where synth.md and synth.json are merged into.
        #[arg(long, default_value = "docs/reports")]
        report: PathBuf,
    },
    /// TCD helpers: max(Ton) and T from link parameters, and a loadable config from them.
    Tcd {
        #[command(subcommand)]
        command: TcdCommand,
    },
    /// BFC helpers: the pause-threshold table from link parameters.
    Bfc {
        #[command(subcommand)]
        command: BfcCommand,
    },
}

#[derive(Subcommand)]
enum BfcCommand {
    /// Print the pause-threshold table Th(N) = HRTT x rate / N for N = 1..=queues active
    /// queues (spec §3.4), and with --out write a BFC config whose `th` is that table.
    ///
    /// The table holds whole bytes, rounded down (781.25 B -> 781). The queue count comes from
    /// the base config (--preset or --config), else from --queues.
    Thresholds(BfcThresholdsArgs),
}

#[derive(Args)]
#[command(group(clap::ArgGroup::new("base").args(["preset", "config"])))]
struct BfcThresholdsArgs {
    /// Egress link rate in bit/s: 100G, 400Gbps, 25e9.
    #[arg(long)]
    rate: String,
    /// The largest one-hop RTT of the ingresses feeding the port: 2us, 1500ns.
    #[arg(long)]
    hrtt: String,
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
    /// Write the base config with this `th` table here (nothing is written on error).
    #[arg(long, requires = "base")]
    out: Option<PathBuf>,
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

#[derive(Args)]
struct Target {
    /// Block stem (see `switchcraft list`).
    #[arg(long)]
    block: String,
    /// A named preset of the block.
    #[arg(long, conflicts_with = "config")]
    preset: Option<String>,
    /// A TOML config file whose keys are the block's config fields.
    #[arg(long)]
    config: Option<PathBuf>,
}

impl Target {
    fn load(&self) -> Result<(BlockConfig, String), InputError> {
        BlockConfig::load(&self.block, self.preset.as_deref(), self.config.as_deref())
    }

    /// How this target is named on a command line, for headers and replay commands.
    fn args(&self) -> String {
        match (&self.preset, &self.config) {
            (Some(p), _) => format!("--block {} --preset {p}", self.block),
            (_, Some(c)) => format!("--block {} --config {}", self.block, c.display()),
            _ => format!("--block {}", self.block),
        }
    }
}

enum Failure {
    Input(String),
    Run(String),
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure::Input(e.0)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::List => list(),
        Command::Generate { target, out } => generate(&target, &out),
        Command::Simulate {
            target,
            stimulus,
            out,
            vcd,
        } => simulate(&target, &stimulus, &out, vcd.as_deref()),
        Command::Demo { out, cycles } => demo(&out, cycles),
        Command::Regmap { target, c_header } => regmap(&target, c_header),
        Command::Cosim {
            target,
            cycles,
            seed,
            stimulus,
            vcd,
            out_dir,
        } => cosim(&target, cycles, seed, stimulus.as_deref(), vcd, out_dir),
        Command::Formal {
            target,
            depth,
            k,
            mutant,
            out,
        } => formal(&target, depth, k, mutant, out),
        Command::Synth {
            block,
            presets,
            seeds,
            out,
            report,
        } => synth(block, presets, seeds, out, report),
        Command::Tcd {
            command: TcdCommand::MaxTon { link, clock_mhz },
        } => tcd_max_ton(&link, clock_mhz.as_deref()),
        Command::Tcd {
            command: TcdCommand::Config(args),
        } => tcd_config(&args),
        Command::Bfc {
            command: BfcCommand::Thresholds(args),
        } => bfc_thresholds(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Run(msg)) => {
            eprintln!("{msg}");
            ExitCode::from(1)
        }
    }
}

fn list() -> Result<(), Failure> {
    for block in BLOCKS {
        println!("{block}");
        for preset in BlockConfig::presets(block)? {
            let cfg = BlockConfig::preset(block, preset)?;
            println!("  {preset:<8} {}", describe(&cfg));
        }
    }
    Ok(())
}

fn describe(cfg: &BlockConfig) -> String {
    match cfg {
        BlockConfig::Pfc(c) => format!(
            "{} ports x {} priorities, {}-bit occupancy, XOFF/XON/MAX {}/{}/{} B",
            c.ports, c.priorities, c.occupancy_bits, c.xoff, c.xon, c.max
        ),
        BlockConfig::Tcd(c) => format!(
            "{} ports x {} priorities, {}-bit time, {}-bit queues, max(Ton)/T {}/{} cycles, \
             K {} B",
            c.ports, c.priorities, c.time_bits, c.queue_bits, c.max_ton, c.t_period, c.k
        ),
        BlockConfig::Capfc(c) => format!(
            "{} ports x {} priorities, {}-bit occupancy, {}-bit counters, egress \
             MAX/XOFF/WARN/XON {}/{}/{}/{} B, {:?}, CUT {}/{}",
            c.ports,
            c.priorities,
            c.occupancy_bits,
            c.counter_bits,
            c.eg_max,
            c.eg_xoff,
            c.eg_warn,
            c.eg_xon,
            c.policy,
            c.cut_num,
            c.cut_den
        ),
        BlockConfig::Bfc(c) => format!(
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
        ),
    }
}

fn io_err<'a>(what: &'static str, path: &'a Path) -> impl Fn(std::io::Error) -> Failure + 'a {
    move |e| Failure::Input(format!("{}: {what}: {e}", path.display()))
}

fn generate(target: &Target, out: &Path) -> Result<(), Failure> {
    let (cfg, name) = target.load()?;
    let command = match &target.preset {
        // Presets regenerate the checked-in files; their header must not depend on the caller.
        Some(p) if out == Path::new(&format!("rtl/{}", target.block)) => {
            switchcraft::generate_command(&target.block, p)
        }
        _ => format!(
            "switchcraft generate {} --out {}",
            target.args(),
            out.display()
        ),
    };
    let pkg = cfg.package(&name, &command);
    let paths = pkg.write_to(out).map_err(io_err("cannot write", out))?;
    for p in paths {
        println!("wrote {}", p.display());
    }
    println!("top module: {}", pkg.top());
    Ok(())
}

fn regmap(target: &Target, c_header: bool) -> Result<(), Failure> {
    let (cfg, name) = target.load()?;
    let map = cfg.regmap();
    if c_header {
        let instance = switchcraft::instance_name(&target.block, &name);
        let command = format!("switchcraft regmap {} --c-header", target.args());
        print!("{}", map.c_header(&instance, &command));
    } else {
        print!("{}", map.markdown_table());
    }
    Ok(())
}

fn simulate(
    target: &Target,
    stimulus: &Path,
    out: &Path,
    vcd: Option<&Path>,
) -> Result<(), Failure> {
    let (cfg, _) = target.load()?;
    let schema = cfg.schema();
    let rows = read_stimulus(stimulus, &schema).map_err(|e| Failure::Input(e.to_string()))?;
    let mut model = cfg.model();
    let mut trace = OutputFile::create(out).map_err(io_err("cannot create", out))?;
    let mut vcd_file = match vcd {
        Some(p) => Some((
            p,
            OutputFile::create(p).map_err(io_err("cannot create", p))?,
        )),
        None => None,
    };
    let mut wave = match vcd_file.as_mut() {
        Some((p, f)) => Some((
            *p,
            VcdWriter::new(f, &schema, 0).map_err(io_err("cannot write", p))?,
        )),
        None => None,
    };
    let mut outputs = vec![0u64; schema.output_count()];
    for (cycle, row) in rows.iter().enumerate() {
        model.step_values(row, &mut outputs);
        write_line(&mut trace, &schema, Dir::Out, &outputs).map_err(io_err("cannot write", out))?;
        if let Some((p, w)) = wave.as_mut() {
            w.step(cycle as u64, row, &outputs)
                .map_err(io_err("cannot write", p))?;
        }
    }
    if let Some((p, w)) = wave {
        w.finish().map_err(io_err("cannot write", p))?;
    }
    trace.commit().map_err(io_err("cannot write", out))?;
    if let Some((p, f)) = vcd_file {
        f.commit().map_err(io_err("cannot write", p))?;
    }
    println!("{} cycles; trace {}", rows.len(), out.display());
    if let Some(p) = vcd {
        println!("waves {}", p.display());
    }
    Ok(())
}

fn cosim(
    target: &Target,
    cycles: u64,
    seed: u64,
    stimulus: Option<&Path>,
    vcd: Option<PathBuf>,
    out_dir: PathBuf,
) -> Result<(), Failure> {
    let (cfg, name) = target.load()?;
    let schema = cfg.schema();
    let mut stim: Box<dyn Stimulus + Send> = match stimulus {
        Some(p) => Box::new(VecStimulus::new(
            read_stimulus(p, &schema).map_err(|e| Failure::Input(e.to_string()))?,
        )),
        None => {
            let c = cfg.clone();
            Box::new(SeededStimulus::new(
                seed,
                cycles,
                move |s| c.workload(s),
                |g, i| g(i),
            ))
        }
    };
    let replay = match stimulus {
        Some(p) => format!(
            "switchcraft cosim {} --stimulus {}",
            target.args(),
            p.display()
        ),
        None => format!(
            "switchcraft cosim {} --seed {seed} --cycles {cycles}",
            target.args()
        ),
    };
    let pkg = cfg.package(
        &name,
        &format!("switchcraft generate {} --out <dir>", target.args()),
    );
    let mut rtl =
        switchcraft::verilate(&pkg, &schema, false).map_err(|e| Failure::Run(e.to_string()))?;
    let mut model = cfg.model();
    let opts = CosimOptions {
        max_cycles: cycles,
        seed: stimulus.is_none().then_some(seed),
        replay: Some(replay),
        out_dir,
        vcd,
        ..Default::default()
    };
    let report = switchcraft_sim::run(model.as_mut(), &mut rtl, stim.as_mut(), &opts)
        .map_err(|e| Failure::Run(e.to_string()))?;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{report}");
    if report.passed() {
        Ok(())
    } else {
        Err(Failure::Run("co-simulation FAILED".into()))
    }
}

fn formal(target: &Target, depth: u32, k: u32, mutant: bool, out: PathBuf) -> Result<(), Failure> {
    if k == 0 || k > depth {
        return Err(Failure::Input(format!(
            "--k {k}: must be 1..=--depth ({depth}); the BMC run is the induction's base case"
        )));
    }
    let (cfg, name) = target.load()?;
    let opts = switchcraft::formal::FormalOptions {
        bmc_depth: depth,
        k,
        mutant,
        out_dir: out.join(&name),
        tools: switchcraft::tool::Tools::from_env(),
    };
    let report =
        switchcraft::formal::run(&target.block, &cfg, &name, &opts).map_err(|e| match e {
            switchcraft::formal::FormalError::Input(e) => Failure::Input(e.0),
            e => Failure::Run(format!("error: {e}")),
        })?;
    print!("{report}");
    if report.passed() {
        Ok(())
    } else {
        Err(Failure::Run(format!("formal {name}: a proof FAILED")))
    }
}

fn synth(
    block: String,
    presets: Vec<String>,
    seeds: u32,
    out: PathBuf,
    report: PathBuf,
) -> Result<(), Failure> {
    use switchcraft::synth::{Options, SynthError, Tools};
    let opts = Options {
        block,
        presets,
        seeds,
        out,
        report: Some(report),
        tools: Tools::from_env(),
    };
    match switchcraft::synth::run(&opts) {
        Ok(_) => Ok(()),
        Err(SynthError::Input(msg)) => Err(Failure::Input(msg)),
        Err(e) => Err(Failure::Run(format!("error: {e}"))),
    }
}

/// A link's max(Ton) = T in ns, with the report lines that explain it.
struct LinkBound {
    /// InfiniBand (from --credit-period) rather than PFC/CEE.
    ib: bool,
    max_ton_ns: f64,
    /// Heading, inputs and the formula's terms.
    lines: Vec<String>,
}

/// Parses `value` of `option`; the error names both.
fn opt<T>(
    option: &str,
    value: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<T, Failure> {
    parse(value).map_err(|e| Failure::Input(format!("{option} {value}: {e}")))
}

/// A number without float noise or trailing zeros: 34.4, 26.96, 2.
fn num(x: f64) -> String {
    let s = format!("{x:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
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
fn bound_summary(bound: &LinkBound, clock_mhz: Option<f64>) -> Vec<String> {
    use switchcraft_model::tcd::max_ton::cycles;
    let mut lines = vec![
        format!("max(Ton) = {}", us(bound.max_ton_ns)),
        format!(
            "T        = {} (T = max(Ton), as the paper recommends)",
            us(bound.max_ton_ns)
        ),
    ];
    if let Some(f) = clock_mhz {
        let c = cycles(bound.max_ton_ns, f);
        lines.push(format!(
            "at {} MHz: max_ton = {c} cycles, t_period = {c} cycles (rounded up)",
            num(f)
        ));
    }
    lines
}

fn tcd_max_ton(link: &LinkArgs, clock_mhz: Option<&str>) -> Result<(), Failure> {
    use switchcraft_model::tcd::max_ton::parse_clock_mhz;
    let bound = link.bound()?;
    let clock = match clock_mhz {
        Some(v) => Some(opt("--clock-mhz", v, parse_clock_mhz)?),
        None => None,
    };
    for line in bound.lines.iter().chain(&bound_summary(&bound, clock)) {
        println!("{line}");
    }
    Ok(())
}

/// The base config of `tcd config`, and how to name it in messages.
fn load_tcd(
    preset: Option<&str>,
    config: Option<&Path>,
) -> Result<(switchcraft_model::tcd::TcdConfig, String), Failure> {
    let source = match (preset, config) {
        (Some(p), _) => format!("preset {p}"),
        (_, Some(f)) => f.display().to_string(),
        _ => String::new(),
    };
    match BlockConfig::load("tcd", preset, config)? {
        (BlockConfig::Tcd(c), _) => Ok((c, source)),
        (other, _) => unreachable!("block tcd loaded a {} config", other.block()),
    }
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
    let c = cycles(bound.max_ton_ns, clock);
    cfg.max_ton = c;
    cfg.t_period = c;
    cfg.mode = if bound.ib { Mode::Ib } else { Mode::Cee };
    if let Some(k) = k {
        // The spec's default K_low = K.
        cfg.k = k;
        cfg.k_low = k;
    }
    if let Some(k_low) = k_low {
        cfg.k_low = k_low;
    }
    cfg.validate().map_err(|e| {
        if e.field == "max_ton" || e.field == "t_period" {
            // A time register holds at most half a wrap of the time counter.
            let needed = 65 - cfg.max_ton.max(cfg.t_period).leading_zeros();
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
            (reg::MAX_TON, cfg.max_ton),
            (reg::T_PERIOD, cfg.t_period),
            (reg::K, cfg.k),
            (reg::K_LOW, cfg.k_low),
        ]
        .iter()
        .map(|(addr, data)| format!("{{\"csr_we\":1,\"csr_addr\":{addr},\"csr_wdata\":{data}}}\n"))
        .collect::<String>()
    } else {
        let command: Vec<String> = std::env::args().skip(1).collect();
        let mut head = format!("# switchcraft {}\n", command.join(" "));
        for line in bound
            .lines
            .iter()
            .chain(&bound_summary(&bound, Some(clock)))
        {
            head += &format!("# {line}\n");
        }
        head + &config_toml(&cfg)
    };
    match &a.out {
        Some(path) => {
            let mut f = OutputFile::create(path).map_err(io_err("cannot create", path))?;
            f.write_all(text.as_bytes())
                .map_err(io_err("cannot write", path))?;
            f.commit().map_err(io_err("cannot write", path))?;
            println!(
                "wrote {}: max_ton = t_period = {c} cycles ({} at {} MHz)",
                path.display(),
                us(bound.max_ton_ns),
                num(clock)
            );
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// Cycles of the demo's waveform run (a VCD of a million cycles helps nobody).
const DEMO_WAVE_CYCLES: u64 = 2_000;

fn demo(out: &Path, cycles: u64) -> Result<(), Failure> {
    let seed = 1;
    let mut summary = String::from(
        "# switchcraft demo\n\nGolden model vs exported Verilog under Verilator, seeded random \
         workload (seed 1), every output compared every cycle.\n\n\
         | block | preset | Verilog | cycles | result | cycles/s |\n|---|---|---|---|---|---|\n",
    );
    let mut failed = false;
    let mut waves = Vec::new();
    for block in BLOCKS {
        for preset in BlockConfig::presets(block)? {
            let cfg = BlockConfig::preset(block, preset)?;
            let schema = cfg.schema();
            let rtl_dir = out.join("rtl").join(block);
            let pkg = cfg.package(preset, &switchcraft::generate_command(block, preset));
            pkg.write_to(&rtl_dir)
                .map_err(io_err("cannot write", &rtl_dir))?;
            let verilog = rtl_dir.join(format!("{}.v", pkg.instance));
            println!("{block} {preset}: generated {}", verilog.display());
            let mut rtl = switchcraft::verilate(&pkg, &schema, false)
                .map_err(|e| Failure::Run(e.to_string()))?;
            let run = |rtl: &mut switchcraft_sim::VerilatedModel, n: u64, vcd: Option<PathBuf>| {
                let c = cfg.clone();
                let mut stim = SeededStimulus::new(seed, n, move |s| c.workload(s), |g, i| g(i));
                let opts = CosimOptions {
                    max_cycles: n,
                    seed: Some(seed),
                    replay: Some(format!(
                        "switchcraft cosim --block {block} --preset {preset} --seed {seed} --cycles {n}"
                    )),
                    out_dir: out.join("mismatch").join(&pkg.instance),
                    vcd,
                    ..Default::default()
                };
                switchcraft_sim::run(cfg.model().as_mut(), rtl, &mut stim, &opts)
                    .map_err(|e| Failure::Run(e.to_string()))
            };
            let report = run(&mut rtl, cycles, None)?;
            println!("{block} {preset}: {report}");
            let result = if report.passed() {
                "pass"
            } else {
                "**MISMATCH**"
            };
            failed |= !report.passed();
            summary += &format!(
                "| {block} | {preset} | `{}` | {} | {result} | {:.2e} |\n",
                verilog.display(),
                report.cycles,
                report.cycles_per_second()
            );
            if *preset == "tiny" {
                let vcd = out.join(format!("{}.vcd", pkg.instance));
                let r = run(&mut rtl, DEMO_WAVE_CYCLES, Some(vcd))?;
                if let Some((m, v)) = r.vcd {
                    let view = |ext: &str| rtl_dir.join(format!("{}{ext}", pkg.instance));
                    waves.push((m, view(".gtkw"), v, view(".rtl.gtkw")));
                }
            }
        }
    }
    summary += "\nWaveforms of the first cycles, with their GTKWave views:\n\n";
    for (m, mv, r, rv) in &waves {
        summary += &format!(
            "- model: `gtkwave {} {}`\n- Verilator: `gtkwave {} {}`\n",
            m.display(),
            mv.display(),
            r.display(),
            rv.display()
        );
    }
    let path = out.join("summary.md");
    let mut f = OutputFile::create(&path).map_err(io_err("cannot create", &path))?;
    f.write_all(summary.as_bytes())
        .map_err(io_err("cannot write", &path))?;
    f.commit().map_err(io_err("cannot write", &path))?;
    println!("\nsummary: {}", path.display());
    for (m, mv, r, rv) in &waves {
        println!("waves:   gtkwave {} {}", m.display(), mv.display());
        println!("         gtkwave {} {}", r.display(), rv.display());
    }
    if failed {
        Err(Failure::Run(
            "demo: a co-simulation FAILED (see above)".into(),
        ))
    } else {
        Ok(())
    }
}

fn bfc_thresholds(a: &BfcThresholdsArgs) -> Result<(), Failure> {
    use switchcraft_model::bfc::{th_table, BfcConfig, PRESETS};
    use switchcraft_model::units::{parse_duration_ns, parse_rate};
    let rate = opt("--rate", &a.rate, parse_rate)?;
    let hrtt = opt("--hrtt", &a.hrtt, parse_duration_ns)?;
    if hrtt <= 0.0 {
        return Err(Failure::Input(format!(
            "--hrtt {}: must be more than 0 (the threshold is HRTT x rate)",
            a.hrtt
        )));
    }
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
    let table = th_table(rate, hrtt, queues);
    let mut lines = vec![
        format!(
            "BFC pause threshold Th(N) = HRTT x rate / N (spec §3.4): HRTT {} ns, rate {} Gb/s, \
             HRTT x rate = {} B",
            num(hrtt),
            num(rate / 1e9),
            num(hrtt * 1e-9 * rate / 8.0)
        ),
        "N_active  Th exact (B)  table (B)".to_string(),
    ];
    for t in &table {
        lines.push(format!(
            "{:>8}  {:>12}  {:>9}",
            t.n_active,
            num(t.exact),
            t.bytes
        ));
    }
    let (Some((mut cfg, source)), Some(path)) = (base, &a.out) else {
        for line in &lines {
            println!("{line}");
        }
        return Ok(());
    };
    cfg.th = table.iter().map(|t| t.bytes).collect();
    cfg.validate()
        .map_err(|e| Failure::Input(format!("{source} with this Th table: {e}")))?;
    let command: Vec<String> = std::env::args().skip(1).collect();
    let mut text = format!("# switchcraft {}\n", command.join(" "));
    for line in &lines {
        text += &format!("# {line}\n");
    }
    text += &cfg.to_toml();
    let mut f = OutputFile::create(path).map_err(io_err("cannot create", path))?;
    f.write_all(text.as_bytes())
        .map_err(io_err("cannot write", path))?;
    f.commit().map_err(io_err("cannot write", path))?;
    for line in &lines {
        println!("{line}");
    }
    println!("wrote {}: th = {} entries", path.display(), cfg.th.len());
    Ok(())
}
