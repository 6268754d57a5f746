//! The `switchcraft` command line. Exit status: 0 success, 1 co-simulation mismatch or tool
//! failure, 2 bad input (arguments, config, stimulus).

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use switchcraft::cli::io_err;
use switchcraft::{BlockConfig, Failure, InputError, REGISTRY};
use switchcraft_core::output::OutputFile;
use switchcraft_core::stimulus::{read_stimulus, write_line};
use switchcraft_core::vcd::VcdWriter;
use switchcraft_core::Dir;
use switchcraft_rtl::Tech;
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
    List {
        /// Only the block stems, one per line (for scripts and the Makefile).
        #[arg(long, conflicts_with = "presets")]
        blocks: bool,
        /// Only `block:preset` pairs, one per line (for scripts and the Makefile).
        #[arg(long)]
        presets: bool,
    },
    /// Generate a block's Verilog, port manifest and C header.
    Generate {
        #[command(flatten)]
        target: Target,
        /// Output directory (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// The technology the memories are built for: ice40 (default; the checked-in rtl/),
        /// ecp5, xilinx (replicated 1R1W RAMs with a live-value table where a memory has two
        /// write ports) or asic (one array of the architectural bits per memory, in a module an
        /// ASIC flow swaps for a compiled register file). Other than ice40, the instance name
        /// gets the target appended.
        #[arg(long = "target", default_value = "ice40", value_parser = Tech::parse)]
        tech: Tech,
    },
    /// Print a block's config as the TOML file `--config` loads: every field of a preset (or
    /// of a config file, after its checks), to compare with the paper or edit a copy.
    Config {
        #[command(flatten)]
        target: Target,
        /// Write it to this file instead of stdout.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Print a block's register map: the Markdown table (default) or the C header.
    Regmap {
        #[command(flatten)]
        target: Target,
        /// Print the C header instead of the table.
        #[arg(long)]
        c_header: bool,
    },
    /// Bring the generated sections of docs/blocks/<block>.md (the register and port tables)
    /// up to date from the registry (`make docs`).
    Docs {
        /// Only check: exit 1 naming each stale file, write nothing.
        #[arg(long)]
        check: bool,
        /// The block docs' directory.
        #[arg(long, default_value = "docs/blocks")]
        dir: PathBuf,
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
        /// The technology of the memories of the co-simulated Verilog (see `generate`).
        #[arg(long = "target", default_value = "ice40", value_parser = Tech::parse)]
        tech: Tech,
        /// Inject faults, seeded by --seed: lost (5%) and repeated (2%) received messages, stuck
        /// input valids (64-cycle stretches), random CSR writes and resets in the middle of
        /// traffic (docs/robustness.md).
        #[arg(long)]
        faults: bool,
    },
    /// Formal proof of the block's properties (formal/<block>/<block>_props.sv) with
    /// yosys-smtbmc and an SMT solver: BMC from reset, then k-induction. Exit 1 if a proof fails, with
    /// the counterexample VCD's path. Without --preset or --config, the block's own formal
    /// config (the tiny preset for most).
    Formal {
        #[command(flatten)]
        target: Target,
        /// BMC depth in cycles from reset (also the base case of the induction) [default: the
        /// block's, 12 for most].
        #[arg(long)]
        depth: Option<u32>,
        /// Induction length k (at most --depth) [default: the block's, 4 for most].
        #[arg(long)]
        k: Option<u32>,
        /// Check the props file's deliberately wrong assertion instead (the proof must fail).
        #[arg(long)]
        mutant: bool,
        /// SMT solver: bitwuzla (installed by `make formal-tools`) or z3 (Debian's; minutes
        /// where Bitwuzla takes seconds on the deeper proofs).
        #[arg(long, default_value = "bitwuzla")]
        solver: switchcraft::formal::Solver,
        /// Working directory: scripts, logs, counterexamples.
        #[arg(long, default_value = "target/formal")]
        out: PathBuf,
    },
    /// FPGA synthesis of the checked-in Verilog: iCE40 HX8K resources, place-and-route Fmax and
    /// bitstream plus a synthesis-only Xilinx estimate, or (`--target ecp5`) ECP5-85F resources
    /// and out-of-context Fmax; writes docs/reports/synth.*.
    Synth {
        /// Which flow: `ice40` (with the Xilinx estimate) or `ecp5` (needs `make ecp5-tools`).
        #[arg(long, value_enum, default_value_t = switchcraft::synth::Target::Ice40)]
        target: switchcraft::synth::Target,
        /// Block stem (see `switchcraft list`).
        #[arg(long, required_unless_present_any = ["render_only", "loops"])]
        block: Option<String>,
        /// Presets to run (default: every preset of the block).
        #[arg(long = "preset", num_args = 1..)]
        presets: Vec<String>,
        /// Run no tool: only render synth.md again from synth.json (after a change of the
        /// report's format).
        #[arg(long, conflicts_with = "block")]
        render_only: bool,
        /// Measure each block's one-cycle recurrence alone (the kernels in loops/) on both
        /// devices, and write docs/reports/loops.md instead of synth.* (needs `make
        /// ecp5-tools`).
        #[arg(long, conflicts_with_all = ["block", "render_only", "target"])]
        loops: bool,
        /// With --loops: only these kernels (by module name, e.g. pfc_occupancy_pipeline); the
        /// report then goes to <out>/loops.md, leaving the full one in --report alone.
        #[arg(long = "kernel", num_args = 1.., requires = "loops")]
        kernels: Vec<String>,
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

/// A closed stdout (`switchcraft bfc thresholds ... | head -1`) ends the run as it ends other
/// Unix tools, by SIGPIPE, instead of a panic in `println!`: Rust sets SIGPIPE to "ignore" at
/// startup, so a write to a closed pipe returns an error that `println!` turns into a panic.
#[cfg(unix)]
fn default_sigpipe() {
    // SAFETY: first thing in `main`, before any thread exists; it only sets a disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    #[cfg(unix)]
    default_sigpipe();
    // Ctrl-C or SIGTERM: remove the files still being written, then stop as interrupted.
    let _ = ctrlc::set_handler(|| {
        switchcraft_core::output::remove_partial_files();
        std::process::exit(130);
    });
    // The blocks' own helpers (`switchcraft tcd max-ton`) are subcommands named after them.
    let mut command = Cli::command();
    for block in REGISTRY {
        if let Some(sub) = block.command() {
            command = command.subcommand(sub);
        }
    }
    let matches = command.get_matches();
    let result = match matches.subcommand() {
        Some((name, sub)) if REGISTRY.iter().any(|b| b.stem() == name) => {
            let block = REGISTRY.iter().find(|b| b.stem() == name).expect("found");
            block.run_command(sub)
        }
        _ => match Cli::from_arg_matches(&matches) {
            Ok(cli) => run(cli.command),
            Err(e) => e.exit(),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Run(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(1)
        }
    }
}

fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::List { blocks, presets } => list(blocks, presets),
        Command::Generate { target, out, tech } => generate(&target, &out, tech),
        Command::Simulate {
            target,
            stimulus,
            out,
            vcd,
        } => simulate(&target, &stimulus, &out, vcd.as_deref()),
        Command::Demo { out, cycles } => demo(&out, cycles),
        Command::Config { target, out } => config(&target, out.as_deref()),
        Command::Regmap { target, c_header } => regmap(&target, c_header),
        Command::Docs { check, dir } => docs(check, &dir),
        Command::Cosim {
            target,
            cycles,
            seed,
            stimulus,
            vcd,
            out_dir,
            tech,
            faults,
        } => cosim(
            &target,
            cycles,
            seed,
            stimulus.as_deref(),
            vcd,
            out_dir,
            tech,
            faults,
        ),
        Command::Formal {
            target,
            depth,
            k,
            mutant,
            solver,
            out,
        } => formal(&target, depth, k, mutant, solver, out),
        Command::Synth {
            render_only: true,
            report,
            ..
        } => switchcraft::synth::render(&report).map_err(|e| Failure::Run(format!("error: {e}"))),
        Command::Synth {
            loops: true,
            kernels,
            seeds,
            out,
            report,
            ..
        } => synth_loops(&kernels, seeds, out, report),
        Command::Synth {
            target,
            block,
            presets,
            seeds,
            out,
            report,
            ..
        } => synth(
            target,
            block.expect("clap requires --block without --render-only"),
            presets,
            seeds,
            out,
            report,
        ),
    }
}

fn list(blocks: bool, presets: bool) -> Result<(), Failure> {
    let mut out = String::new();
    for block in REGISTRY {
        if blocks {
            out += &format!("{}\n", block.stem());
            continue;
        }
        if !presets {
            out += &format!("{}\n", block.stem());
        }
        for preset in block.presets() {
            if presets {
                out += &format!("{}:{preset}\n", block.stem());
            } else {
                let cfg = BlockConfig::preset(block.stem(), preset)?;
                out += &format!("  {preset:<8} {}\n", cfg.describe());
            }
        }
    }
    print!("{out}");
    Ok(())
}

/// ` --target <tech>` for a command line, empty for the default target.
fn target_arg(tech: Tech) -> String {
    if tech == Tech::default() {
        String::new()
    } else {
        format!(" --target {tech}")
    }
}

fn generate(target: &Target, out: &Path, tech: Tech) -> Result<(), Failure> {
    let (cfg, name) = target.load()?;
    cfg.check_rtl()?;
    let target_arg = target_arg(tech);
    let command = match &target.preset {
        // Presets regenerate the checked-in files; their header must not depend on the caller.
        Some(p) if out == Path::new(&format!("rtl/{}", target.block)) && target_arg.is_empty() => {
            switchcraft::generate_command(&target.block, p)
        }
        _ => format!(
            "switchcraft generate {}{target_arg} --out {}",
            target.args(),
            out.display()
        ),
    };
    let pkg = cfg.package_for(&name, &command, tech);
    // None of the files written may be the config.
    let targets: Vec<PathBuf> = pkg.files().iter().map(|(f, _)| out.join(f)).collect();
    let outputs: Vec<(&str, &Path)> = targets.iter().map(|p| ("--out", p.as_path())).collect();
    distinct(target, &[], &outputs)?;
    let paths = pkg
        .write_to(out)
        .map_err(|(path, e)| io_err("cannot write", &path)(e))?;
    for p in paths {
        println!("wrote {}", p.display());
    }
    println!(
        "top module: {} (CSR bus), {} (AXI4-Lite)",
        pkg.top(),
        pkg.axil_top()
    );
    Ok(())
}

fn docs(check: bool, dir: &Path) -> Result<(), Failure> {
    let mut stale = Vec::new();
    for block in REGISTRY {
        let path = dir.join(format!("{}.md", block.stem()));
        let doc = std::fs::read_to_string(&path).map_err(io_err("cannot read", &path))?;
        let fresh = switchcraft::block_doc_regenerated(block.stem(), &doc)?;
        if fresh == doc {
            continue;
        }
        if check {
            stale.push(path.display().to_string());
        } else {
            switchcraft::cli::write_output(&path, &fresh)?;
            println!("updated {}", path.display());
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(Failure::Run(format!(
            "stale (run `make docs`): {}",
            stale.join(", ")
        )))
    }
}

/// Refuses outputs that name the target's config, one of `inputs` or each other.
fn distinct(
    target: &Target,
    inputs: &[(&str, &Path)],
    outputs: &[(&str, &Path)],
) -> Result<(), Failure> {
    let mut all: Vec<(&str, &Path)> = inputs.to_vec();
    all.extend(target.config.as_deref().map(|c| ("--config", c)));
    switchcraft_core::output::check_distinct(&all, outputs).map_err(Failure::Input)
}

fn config(target: &Target, out: Option<&Path>) -> Result<(), Failure> {
    let (cfg, _) = target.load()?;
    let mut text = format!(
        "# switchcraft config {}\n# {}\n",
        target.args(),
        cfg.describe()
    );
    let block = switchcraft::blocks::find(&target.block)?;
    if let Some(timing) = target
        .preset
        .as_deref()
        .and_then(|p| block.preset_timing(p))
    {
        text += &format!("# {timing}\n");
    }
    text += &cfg.to_toml();
    match out {
        Some(path) => {
            distinct(target, &[], &[("--out", path)])?;
            switchcraft::cli::write_output(path, &text)?;
            println!("wrote {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(())
}

fn regmap(target: &Target, c_header: bool) -> Result<(), Failure> {
    let (cfg, name) = target.load()?;
    let map = cfg.regmap();
    if c_header {
        let instance = switchcraft::instance_name(&target.block, &name);
        let command = format!("switchcraft regmap {} --c-header", target.args());
        print!("{}", map.c_header(&instance, &command, &cfg.schema()));
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
    let mut outputs = vec![("--out", out)];
    outputs.extend(vcd.map(|v| ("--vcd", v)));
    distinct(target, &[("--stimulus", stimulus)], &outputs)?;
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

// One argument per `cosim` option, as clap parsed them.
#[allow(clippy::too_many_arguments)]
fn cosim(
    target: &Target,
    cycles: u64,
    seed: u64,
    stimulus: Option<&Path>,
    vcd: Option<PathBuf>,
    out_dir: PathBuf,
    tech: Tech,
    faults: bool,
) -> Result<(), Failure> {
    let (cfg, name) = target.load()?;
    cfg.check_rtl()?;
    if let Some(v) = &vcd {
        let rtl_vcd = switchcraft_sim::cosim::rtl_vcd_path(v);
        let inputs: Vec<(&str, &Path)> = stimulus.iter().map(|s| ("--stimulus", *s)).collect();
        distinct(
            target,
            &inputs,
            &[("--vcd", v), ("--vcd (its Verilator trace)", &rtl_vcd)],
        )?;
    }
    let schema = cfg.schema();
    let stim: Box<dyn Stimulus + Send> = match stimulus {
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
    let (mut plain, mut faulty) = (None, None);
    let stim: &mut (dyn Stimulus + Send) = if faults {
        let buses = switchcraft::blocks::find(&target.block)?.message_buses();
        let plan = switchcraft_sim::FaultPlan::standard(seed, buses);
        let f = switchcraft_sim::Faulty::new(stim, plan, &schema).map_err(Failure::Run)?;
        faulty.insert(f)
    } else {
        plain.insert(stim)
    };
    let mut replay = match stimulus {
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
    replay += &target_arg(tech);
    if faults {
        replay += " --faults";
    }
    let pkg = cfg.package_for(
        &name,
        &format!(
            "switchcraft generate {}{} --out <dir>",
            target.args(),
            target_arg(tech)
        ),
        tech,
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
    let report = switchcraft_sim::run(model.as_mut(), &mut rtl, stim, &opts).map_err(|e| {
        match e {
            // A trace or report file that cannot be written: the path the user gave.
            switchcraft_sim::SimError::Io { .. } => Failure::Input(e.to_string()),
            _ => Failure::Run(e.to_string()),
        }
    })?;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{report}");
    if let Some(f) = &faulty {
        let _ = writeln!(stdout, "faults injected: {}", f.counts());
    }
    if report.passed() {
        Ok(())
    } else {
        Err(Failure::Run("co-simulation FAILED".into()))
    }
}

fn formal(
    target: &Target,
    depth: Option<u32>,
    k: Option<u32>,
    mutant: bool,
    solver: switchcraft::formal::Solver,
    out: PathBuf,
) -> Result<(), Failure> {
    let settings = switchcraft::blocks::find(&target.block)?.formal();
    let (depth, k) = (depth.unwrap_or(settings.depth), k.unwrap_or(settings.k));
    if k == 0 || k > depth {
        return Err(Failure::Input(format!(
            "--k {k}: must be 1..=--depth ({depth}); the BMC run is the induction's base case"
        )));
    }
    let (cfg, name) = match (&target.preset, &target.config, settings.config) {
        (None, None, Some(file)) => BlockConfig::load(&target.block, None, Some(Path::new(file)))?,
        (None, None, None) => BlockConfig::load(&target.block, Some("tiny"), None)?,
        _ => target.load()?,
    };
    cfg.check_rtl()?;
    let opts = switchcraft::formal::FormalOptions {
        bmc_depth: depth,
        k,
        mutant,
        out_dir: out.join(switchcraft::instance_name(&target.block, &name)),
        tools: switchcraft::tool::Tools::from_env(),
        solver,
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
    target: switchcraft::synth::Target,
    block: String,
    presets: Vec<String>,
    seeds: u32,
    out: PathBuf,
    report: PathBuf,
) -> Result<(), Failure> {
    use switchcraft::synth::{Options, SynthError, Tools};
    let opts = Options {
        target,
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

fn synth_loops(only: &[String], seeds: u32, out: PathBuf, report: PathBuf) -> Result<(), Failure> {
    use switchcraft::synth::{loops, SynthError, Tools};
    let kernels = loops::select(only).map_err(|e| Failure::Input(e.to_string()))?;
    // A partial run's report must not replace the full one.
    let report = if only.is_empty() { report } else { out.clone() };
    match loops::run(&Tools::from_env(), &kernels, seeds, &out, &report) {
        Ok(()) => Ok(()),
        Err(SynthError::Input(msg)) => Err(Failure::Input(msg)),
        Err(e) => Err(Failure::Run(format!("error: {e}"))),
    }
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
    for block in REGISTRY.iter().map(|b| b.stem()) {
        for preset in BlockConfig::presets(block)? {
            let cfg = BlockConfig::preset(block, preset)?;
            let schema = cfg.schema();
            let rtl_dir = out.join("rtl").join(block);
            let pkg = cfg.package(preset, &switchcraft::generate_command(block, preset));
            pkg.write_to(&rtl_dir)
                .map_err(|(path, e)| io_err("cannot write", &path)(e))?;
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
