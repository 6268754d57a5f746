//! The block registry: every block of switchcraft described once.
//!
//! A block is a unit struct implementing [`Block`] in its own file (`src/blocks/<stem>.rs`): its
//! presets and config loading, port schema, register map, golden model, Verilog package,
//! random workload, one-line description, formal settings and defines, state-bit accounting,
//! bench rows and, if it has them, its own CLI helpers (`switchcraft tcd max-ton`). [`REGISTRY`]
//! lists the blocks once; the CLI, co-simulation, demo, synthesis, formal, bench, docs and the
//! Makefile (through `switchcraft list`) read it and nothing else.
//!
//! A loaded config is a [`BlockConfig`]: the block's own config type behind one object-safe
//! handle, so generic code never matches on the block.

use std::any::Any;
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use switchcraft_core::csr::RegMap;
use switchcraft_core::{CycleModel, DynModel, InputError, PortSchema, PortValues};
use switchcraft_rtl::export::Package;
use switchcraft_rtl::Tech;

use crate::synth::{Ice40Resources, StateBits};
use crate::Failure;

pub mod bfc;
pub mod capfc;
pub mod pfc;
pub mod pfcmac;
pub mod qcn;
pub mod rcm;
pub mod tcd;

/// Every block, in the order reports and listings show them. Adding a block: its files (see
/// docs/architecture.md, "Adding a block") and one line here.
pub static REGISTRY: &[&dyn DynBlock] = &[
    &pfc::PfcBlock,
    &tcd::TcdBlock,
    &capfc::CapfcBlock,
    &bfc::BfcBlock,
    &qcn::QcnBlock,
    &rcm::RcmBlock,
    &pfcmac::PfcMacBlock,
];

/// The block named `stem`, or an error listing the known ones.
pub fn find(stem: &str) -> Result<&'static dyn DynBlock, InputError> {
    REGISTRY
        .iter()
        .copied()
        .find(|b| b.stem() == stem)
        .ok_or_else(|| {
            let known: Vec<&str> = REGISTRY.iter().map(|b| b.stem()).collect();
            InputError(format!(
                "unknown block `{stem}` (blocks: {})",
                known.join(", ")
            ))
        })
}

/// The stems of every block, in registry order.
pub fn stems() -> impl Iterator<Item = &'static str> {
    REGISTRY.iter().map(|b| b.stem())
}

/// A generator of input rows (schema input order), one call per cycle.
pub type InputGenerator = Box<dyn FnMut(&mut [u64]) + Send>;

/// How `switchcraft formal` proves a block by default (`make formal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormalSettings {
    /// BMC depth in cycles from reset.
    pub depth: u32,
    /// Induction length.
    pub k: u32,
    /// A config file (relative to the repository root) proved instead of the `tiny` preset.
    pub config: Option<&'static str>,
}

impl FormalSettings {
    pub const DEFAULT: FormalSettings = FormalSettings {
        depth: 12,
        k: 4,
        config: None,
    };
}

/// One block, with its own config and model types. Implemented by a unit struct per block.
pub trait Block: Copy + Send + Sync + 'static {
    type Config: Clone + PartialEq + fmt::Debug + serde::Serialize + Send + Sync + 'static;
    type Model: CycleModel + Send + 'static;

    /// The stem used everywhere: files, CLI, reports.
    fn stem(&self) -> &'static str;
    /// Preset names, smallest first; the last is the paper's scale (docs tables use it).
    fn presets(&self) -> &'static [&'static str];
    fn preset(&self, name: &str) -> Option<Self::Config>;
    /// A TOML config (`name` is the file name for messages), validated.
    fn parse(&self, text: &str, name: &str) -> Result<Self::Config, InputError>;
    /// One line on a config, for `switchcraft list`.
    fn describe(&self, c: &Self::Config) -> String;
    fn schema(&self, c: &Self::Config) -> PortSchema;
    fn regmap(&self, c: &Self::Config) -> RegMap;
    /// The golden model of a validated config.
    fn model(&self, c: &Self::Config) -> Self::Model;
    /// The Verilog package, its modules prefixed with `instance`, its header naming `command`,
    /// its memories in the form of target `tech`.
    fn package(&self, c: &Self::Config, instance: &str, command: &str, tech: Tech) -> Package;
    /// Whether the RTL implements `c`: an error names an option only the golden model has.
    fn check_rtl(&self, _c: &Self::Config) -> Result<(), InputError> {
        Ok(())
    }
    /// The block's seeded random workload.
    fn workload(&self, c: &Self::Config, seed: u64) -> InputGenerator;
    /// Macro definitions the block's props file reads, beyond the common ones (`SC_TOP`,
    /// `SC_A_<REG>` and `SC_ID_WORD`, which [`BlockConfig::formal_defines`] adds).
    fn formal_defines(&self, c: &Self::Config) -> Vec<(String, String)>;
    fn formal(&self) -> FormalSettings {
        FormalSettings::DEFAULT
    }
    /// Measured and architectural state bits of a config, given its core's iCE40 resources.
    fn state_bits(&self, c: &Self::Config, core: &Ice40Resources) -> StateBits;
    /// What one unit of state is, in report headings.
    fn key_name(&self) -> &'static str {
        "(port, priority)"
    }
    /// The input bus on which one event is one packet of the switch's traffic (the block
    /// takes one per cycle, II = 1): what the report's packet rate counts.
    fn packet_bus(&self) -> &'static str;
    /// For a block on a link's byte stream rather than on packet events: the data bits of one
    /// stream beat (one per cycle), so the report gives the link rate it keeps up with.
    fn stream_bits(&self, _c: &Self::Config) -> Option<u32> {
        None
    }
    /// Input buses that carry messages from a link partner (received frames), which a link can
    /// lose or repeat: the buses `switchcraft cosim --faults` disturbs (sim's `faults`).
    fn message_buses(&self) -> &'static [&'static str] {
        &[]
    }
    /// The clock and links a preset's time constants are derived for, in words, if it states
    /// them (`switchcraft config` prints it).
    fn preset_timing(&self, _preset: &str) -> Option<String> {
        None
    }
    /// Presets measured by `make bench`.
    fn bench_presets(&self) -> &'static [&'static str] {
        &["tiny", "paper"]
    }
    /// The core in rust-hdl's own simulator, if the block offers it: `reset_cycles` edges of
    /// reset, then one edge per row of `inputs`; the outputs after each edge. A smoke check and
    /// a throughput reference only (Verilator is the gate).
    fn simulate_rust_hdl(
        &self,
        _c: &Self::Config,
        _reset_cycles: usize,
        _inputs: &[Vec<u64>],
    ) -> Option<Vec<Vec<u64>>> {
        None
    }
    /// The block's own CLI helpers, as a subcommand named after its stem.
    fn command(&self) -> Option<clap::Command> {
        None
    }
    /// Runs the helpers of [`Block::command`] on their parsed arguments.
    fn run_command(&self, _matches: &clap::ArgMatches) -> Result<(), Failure> {
        Err(Failure::Input(format!(
            "block {} has no helpers",
            self.stem()
        )))
    }
}

/// The object-safe face of a [`Block`], which the registry holds.
pub trait DynBlock: Sync {
    fn stem(&self) -> &'static str;
    fn presets(&self) -> &'static [&'static str];
    fn preset(&self, name: &str) -> Option<BlockConfig>;
    fn parse(&self, text: &str, name: &str) -> Result<BlockConfig, InputError>;
    fn formal(&self) -> FormalSettings;
    fn key_name(&self) -> &'static str;
    fn packet_bus(&self) -> &'static str;
    fn message_buses(&self) -> &'static [&'static str];
    fn preset_timing(&self, preset: &str) -> Option<String>;
    fn bench_presets(&self) -> &'static [&'static str];
    fn command(&self) -> Option<clap::Command>;
    fn run_command(&self, matches: &clap::ArgMatches) -> Result<(), Failure>;
}

impl<B: Block> DynBlock for B {
    fn stem(&self) -> &'static str {
        Block::stem(self)
    }
    fn presets(&self) -> &'static [&'static str] {
        Block::presets(self)
    }
    fn preset(&self, name: &str) -> Option<BlockConfig> {
        Block::preset(self, name).map(|c| BlockConfig::new(*self, c))
    }
    fn parse(&self, text: &str, name: &str) -> Result<BlockConfig, InputError> {
        Block::parse(self, text, name).map(|c| BlockConfig::new(*self, c))
    }
    fn formal(&self) -> FormalSettings {
        Block::formal(self)
    }
    fn key_name(&self) -> &'static str {
        Block::key_name(self)
    }
    fn packet_bus(&self) -> &'static str {
        Block::packet_bus(self)
    }
    fn message_buses(&self) -> &'static [&'static str] {
        Block::message_buses(self)
    }
    fn preset_timing(&self, preset: &str) -> Option<String> {
        Block::preset_timing(self, preset)
    }
    fn bench_presets(&self) -> &'static [&'static str] {
        Block::bench_presets(self)
    }
    fn command(&self) -> Option<clap::Command> {
        Block::command(self)
    }
    fn run_command(&self, matches: &clap::ArgMatches) -> Result<(), Failure> {
        Block::run_command(self, matches)
    }
}

/// What generic code does with a config, whatever its block.
trait AnyConfig: Send + Sync {
    fn stem(&self) -> &'static str;
    fn describe(&self) -> String;
    fn schema(&self) -> PortSchema;
    fn regmap(&self) -> RegMap;
    fn model(&self) -> Box<dyn DynModel + Send>;
    fn package(&self, instance: &str, command: &str, tech: Tech) -> Package;
    fn check_rtl(&self) -> Result<(), InputError>;
    fn workload(&self, seed: u64) -> InputGenerator;
    fn formal_defines(&self) -> Vec<(String, String)>;
    fn state_bits(&self, core: &Ice40Resources) -> StateBits;
    fn stream_bits(&self) -> Option<u32>;
    fn model_rates(&self, rows: &[Vec<u64>], runs: usize) -> Vec<f64>;
    fn simulate_rust_hdl(&self, reset_cycles: usize, inputs: &[Vec<u64>]) -> Option<Vec<Vec<u64>>>;
    fn config(&self) -> &dyn Any;
    fn to_toml(&self) -> String;
    fn preset_name(&self) -> Option<&'static str>;
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

struct Typed<B: Block> {
    block: B,
    config: B::Config,
}

impl<B: Block> AnyConfig for Typed<B> {
    fn stem(&self) -> &'static str {
        self.block.stem()
    }
    fn describe(&self) -> String {
        self.block.describe(&self.config)
    }
    fn schema(&self) -> PortSchema {
        self.block.schema(&self.config)
    }
    fn regmap(&self) -> RegMap {
        self.block.regmap(&self.config)
    }
    fn model(&self) -> Box<dyn DynModel + Send> {
        Box::new(self.block.model(&self.config))
    }
    fn package(&self, instance: &str, command: &str, tech: Tech) -> Package {
        self.block.package(&self.config, instance, command, tech)
    }
    fn check_rtl(&self) -> Result<(), InputError> {
        self.block.check_rtl(&self.config)
    }
    fn workload(&self, seed: u64) -> InputGenerator {
        self.block.workload(&self.config, seed)
    }
    fn formal_defines(&self) -> Vec<(String, String)> {
        self.block.formal_defines(&self.config)
    }
    fn state_bits(&self, core: &Ice40Resources) -> StateBits {
        self.block.state_bits(&self.config, core)
    }
    fn stream_bits(&self) -> Option<u32> {
        self.block.stream_bits(&self.config)
    }
    fn model_rates(&self, rows: &[Vec<u64>], runs: usize) -> Vec<f64> {
        typed_model_rates(self.block.model(&self.config), rows, runs)
    }
    fn simulate_rust_hdl(&self, reset_cycles: usize, inputs: &[Vec<u64>]) -> Option<Vec<Vec<u64>>> {
        self.block
            .simulate_rust_hdl(&self.config, reset_cycles, inputs)
    }
    fn config(&self) -> &dyn Any {
        &self.config
    }
    fn to_toml(&self) -> String {
        toml::to_string(&self.config).expect("a config serializes to TOML")
    }
    fn preset_name(&self) -> Option<&'static str> {
        let b = self.block;
        b.presets()
            .iter()
            .copied()
            .find(|p| b.preset(p).as_ref() == Some(&self.config))
    }
    fn debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {:?}", self.block.stem(), self.config)
    }
}

/// Cycles per second of `runs` runs of the typed model over `rows` (converted before timing,
/// so only `step` is timed). Not inlined, so the timed loop is laid out the same for every
/// caller.
#[inline(never)]
fn typed_model_rates<M: CycleModel>(mut model: M, rows: &[Vec<u64>], runs: usize) -> Vec<f64> {
    let typed: Vec<M::In> = rows.iter().map(|r| M::In::from_values(r)).collect();
    (0..runs)
        .map(|_| {
            let t = std::time::Instant::now();
            model.reset();
            for i in &typed {
                std::hint::black_box(model.step(i));
            }
            typed.len() as f64 / t.elapsed().as_secs_f64()
        })
        .collect()
}

/// A validated config of one block.
#[derive(Clone)]
pub struct BlockConfig(Arc<dyn AnyConfig>);

impl fmt::Debug for BlockConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.debug(f)
    }
}

impl BlockConfig {
    /// A config of block `block`; the caller has validated it (presets and parsed files are).
    pub fn new<B: Block>(block: B, config: B::Config) -> BlockConfig {
        BlockConfig(Arc::new(Typed { block, config }))
    }

    pub fn presets(block: &str) -> Result<&'static [&'static str], InputError> {
        Ok(find(block)?.presets())
    }

    pub fn preset(block: &str, name: &str) -> Result<BlockConfig, InputError> {
        let b = find(block)?;
        b.preset(name).ok_or_else(|| {
            InputError(format!(
                "unknown preset `{name}` for block {block} (presets: {})",
                b.presets().join(", ")
            ))
        })
    }

    pub fn from_file(block: &str, path: &Path) -> Result<BlockConfig, InputError> {
        let b = find(block)?;
        let text = std::fs::read_to_string(path)
            .map_err(|e| InputError(format!("{}: cannot read: {e}", path.display())))?;
        b.parse(&text, &path.display().to_string())
    }

    /// `--preset` or `--config`, exactly one. Returns the config and its name (the preset, or
    /// the file stem as an identifier).
    pub fn load(
        block: &str,
        preset: Option<&str>,
        config: Option<&Path>,
    ) -> Result<(BlockConfig, String), InputError> {
        match (preset, config) {
            (Some(p), None) => Ok((Self::preset(block, p)?, p.to_string())),
            (None, Some(f)) => {
                let stem = f
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "custom".into());
                let name: String = stem
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() {
                            c.to_ascii_lowercase()
                        } else {
                            '_'
                        }
                    })
                    .collect();
                Ok((Self::from_file(block, f)?, name))
            }
            (None, None) => Err(InputError(
                "give --preset NAME or --config FILE.toml".into(),
            )),
            (Some(_), Some(_)) => Err(InputError("give --preset or --config, not both".into())),
        }
    }

    /// The block's stem.
    pub fn block(&self) -> &'static str {
        self.0.stem()
    }

    /// The block's registry entry.
    pub fn def(&self) -> &'static dyn DynBlock {
        find(self.block()).expect("a config's block is registered")
    }

    /// The block's own config, if it is of type `C`.
    pub fn get<C: 'static>(&self) -> Option<&C> {
        self.0.config().downcast_ref()
    }

    pub fn describe(&self) -> String {
        self.0.describe()
    }

    /// The config as a TOML file `--config` loads back.
    pub fn to_toml(&self) -> String {
        self.0.to_toml()
    }

    /// The preset this config equals, if any.
    pub fn preset_name(&self) -> Option<&'static str> {
        self.0.preset_name()
    }

    pub fn schema(&self) -> PortSchema {
        self.0.schema()
    }

    pub fn regmap(&self) -> RegMap {
        self.0.regmap()
    }

    pub fn model(&self) -> Box<dyn DynModel + Send> {
        self.0.model()
    }

    /// Refuses a config whose options only the golden model has, naming the option: the
    /// commands that build the Verilog (generate, cosim, formal) call it first.
    pub fn check_rtl(&self) -> Result<(), InputError> {
        self.0.check_rtl()
    }

    /// The Verilog package of this config for the default target (iCE40, the checked-in rtl/),
    /// named [`crate::instance_name`]`(block, name)`.
    pub fn package(&self, name: &str, command: &str) -> Package {
        self.package_for(name, command, Tech::default())
    }

    /// The Verilog package for target `tech`; an instance other than the default target's is
    /// named with the target appended (`pfc_tiny_asic`), so both can live in one project.
    pub fn package_for(&self, name: &str, command: &str, tech: Tech) -> Package {
        let mut instance = crate::instance_name(self.block(), name);
        if tech != Tech::default() {
            instance = format!("{instance}_{tech}");
        }
        self.0.package(&instance, command, tech)
    }

    /// The block's seeded random workload, as a generator of input rows.
    pub fn workload(&self, seed: u64) -> InputGenerator {
        self.0.workload(seed)
    }

    /// Every macro the block's props file reads, for the package `instance`.
    pub fn formal_defines(&self, instance: &str) -> Vec<(String, String)> {
        let regmap = self.regmap();
        let mut d = vec![("SC_TOP".to_string(), format!("{instance}_top"))];
        for r in &regmap.regs {
            d.push((
                format!("SC_A_{}", r.name.to_uppercase()),
                r.index.to_string(),
            ));
        }
        d.push((
            "SC_ID_WORD".into(),
            format!("32'h{:08x}", regmap.regs[0].reset),
        ));
        d.extend(self.0.formal_defines());
        d
    }

    pub fn state_bits(&self, core: &Ice40Resources) -> StateBits {
        self.0.state_bits(core)
    }

    /// See [`Block::simulate_rust_hdl`]; `None` if the block does not offer it.
    pub fn simulate_rust_hdl(
        &self,
        reset_cycles: usize,
        inputs: &[Vec<u64>],
    ) -> Option<Vec<Vec<u64>>> {
        self.0.simulate_rust_hdl(reset_cycles, inputs)
    }

    /// The typed golden model's speed over `rows`, cycles per second per run (`make bench`).
    /// Data bits per beat of a stream block (pfcmac), `None` for a packet-event block.
    pub fn stream_bits(&self) -> Option<u32> {
        self.0.stream_bits()
    }

    pub fn model_rates(&self, rows: &[Vec<u64>], runs: usize) -> Vec<f64> {
        self.0.model_rates(rows, runs)
    }
}

/// Width of port `name` in `schema` (0 if absent), for formal defines.
pub(crate) fn port_width(schema: &PortSchema, name: &str) -> u32 {
    schema
        .ports
        .iter()
        .find(|p| p.name == name)
        .map_or(0, |p| p.width)
}

/// `(name, value)` as a define pair.
pub(crate) fn def(name: &str, value: impl fmt::Display) -> (String, String) {
    (name.to_string(), value.to_string())
}

/// Converts a typed workload into an [`InputGenerator`].
pub(crate) fn generator<I: PortValues + 'static>(
    mut next: impl FnMut() -> I + Send + 'static,
) -> InputGenerator {
    Box::new(move |inputs: &mut [u64]| next().to_values(inputs))
}
