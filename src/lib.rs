//! switchcraft: cycle-accurate golden models, rust-hdl RTL and Verilator co-simulation of the
//! congestion-control blocks of lossless switches.
//!
//! This crate is the glue the CLI, the tests, the benches and the demo share: which blocks
//! exist, how a config is loaded (preset or TOML file), and how a block's model, Verilog package,
//! verilated RTL and random workload are made from a config.

use std::path::{Path, PathBuf};
use switchcraft_core::{DynModel, PortSchema, PortValues};
use switchcraft_model::bfc::{Bfc, BfcConfig, BfcWorkload};
use switchcraft_model::capfc::{Capfc, CapfcConfig, CapfcWorkload};
use switchcraft_model::pfc::{Pfc, PfcConfig, PfcWorkload};
use switchcraft_model::tcd::{Tcd, TcdConfig, TcdWorkload};
use switchcraft_rtl::export::Package;
use switchcraft_sim::{BuildOptions, SimError, VerilatedModel};

pub use switchcraft_core as core;
pub use switchcraft_model as model;
pub use switchcraft_rtl as rtl;
pub use switchcraft_sim as sim;

/// Running yosys, yosys-smtbmc, nextpnr-ice40 and icepack with logs.
pub mod tool;

/// Formal flow (`switchcraft formal`, `make formal`).
pub mod formal;

/// FPGA synthesis flow (`switchcraft synth`, `make synth`).
pub mod synth;

/// Blocks implemented so far, by stem.
pub const BLOCKS: &[&str] = &["pfc", "tcd", "capfc", "bfc"];

/// Bad user input: the message names the file, field or value and the rule broken.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// `<block>_<name>` as a Verilog identifier: the prefix of every module and file of a package.
/// Characters a Verilog name cannot hold (the `-` of `tofino-loopback`, a config file's `.`)
/// become `_`.
pub fn instance_name(block: &str, name: &str) -> String {
    format!("{block}_{name}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A generator of input rows (schema input order), one call per cycle.
pub type InputGenerator = Box<dyn FnMut(&mut [u64]) + Send>;

/// A validated config of one block.
#[derive(Clone, Debug)]
pub enum BlockConfig {
    Pfc(PfcConfig),
    Tcd(TcdConfig),
    Capfc(CapfcConfig),
    Bfc(BfcConfig),
}

impl BlockConfig {
    pub fn presets(block: &str) -> Result<&'static [&'static str], InputError> {
        match block {
            "pfc" => Ok(switchcraft_model::pfc::PRESETS),
            "tcd" => Ok(switchcraft_model::tcd::PRESETS),
            "capfc" => Ok(switchcraft_model::capfc::PRESETS),
            "bfc" => Ok(switchcraft_model::bfc::PRESETS),
            other => Err(unknown_block(other)),
        }
    }

    pub fn preset(block: &str, name: &str) -> Result<BlockConfig, InputError> {
        let presets = Self::presets(block)?;
        let cfg = match block {
            "pfc" => PfcConfig::preset(name).map(BlockConfig::Pfc),
            "tcd" => TcdConfig::preset(name).map(BlockConfig::Tcd),
            "capfc" => CapfcConfig::preset(name).map(BlockConfig::Capfc),
            "bfc" => BfcConfig::preset(name).map(BlockConfig::Bfc),
            _ => None,
        };
        cfg.ok_or_else(|| {
            InputError(format!(
                "unknown preset `{name}` for block {block} (presets: {})",
                presets.join(", ")
            ))
        })
    }

    pub fn from_file(block: &str, path: &Path) -> Result<BlockConfig, InputError> {
        Self::presets(block)?;
        let text = std::fs::read_to_string(path)
            .map_err(|e| InputError(format!("{}: cannot read: {e}", path.display())))?;
        let name = path.display().to_string();
        match block {
            "pfc" => PfcConfig::from_toml(&text, &name)
                .map(BlockConfig::Pfc)
                .map_err(|e| InputError(e.to_string())),
            "tcd" => TcdConfig::from_toml(&text, &name)
                .map(BlockConfig::Tcd)
                .map_err(|e| InputError(e.to_string())),
            "capfc" => CapfcConfig::from_toml(&text, &name)
                .map(BlockConfig::Capfc)
                .map_err(|e| InputError(e.to_string())),
            "bfc" => BfcConfig::from_toml(&text, &name)
                .map(BlockConfig::Bfc)
                .map_err(|e| InputError(e.to_string())),
            other => Err(unknown_block(other)),
        }
    }

    /// `--preset` or `--config`, exactly one.
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

    pub fn block(&self) -> &'static str {
        match self {
            BlockConfig::Pfc(_) => "pfc",
            BlockConfig::Tcd(_) => "tcd",
            BlockConfig::Capfc(_) => "capfc",
            BlockConfig::Bfc(_) => "bfc",
        }
    }

    pub fn schema(&self) -> PortSchema {
        match self {
            BlockConfig::Pfc(c) => switchcraft_model::pfc::port_schema(c),
            BlockConfig::Tcd(c) => switchcraft_model::tcd::port_schema(c),
            BlockConfig::Capfc(c) => switchcraft_model::capfc::port_schema(c),
            BlockConfig::Bfc(c) => switchcraft_model::bfc::port_schema(c),
        }
    }

    pub fn model(&self) -> Box<dyn DynModel + Send> {
        match self {
            BlockConfig::Pfc(c) => Box::new(Pfc::new(c).expect("validated config")),
            BlockConfig::Tcd(c) => Box::new(Tcd::new(c).expect("validated config")),
            BlockConfig::Capfc(c) => Box::new(Capfc::new(c).expect("validated config")),
            BlockConfig::Bfc(c) => Box::new(Bfc::new(c).expect("validated config")),
        }
    }

    /// The Verilog package of this config, named [`instance_name`]`(block, name)`.
    pub fn package(&self, name: &str, command: &str) -> Package {
        let instance = instance_name(self.block(), name);
        match self {
            BlockConfig::Pfc(c) => switchcraft_rtl::pfc::package(c, &instance, command),
            BlockConfig::Tcd(c) => switchcraft_rtl::tcd::package(c, &instance, command),
            BlockConfig::Capfc(c) => switchcraft_rtl::capfc::package(c, &instance, command),
            BlockConfig::Bfc(c) => switchcraft_rtl::bfc::package(c, &instance, command),
        }
    }

    pub fn regmap(&self) -> switchcraft_core::csr::RegMap {
        match self {
            BlockConfig::Pfc(c) => switchcraft_model::pfc::regmap(c),
            BlockConfig::Tcd(c) => switchcraft_model::tcd::regmap(c),
            BlockConfig::Capfc(c) => switchcraft_model::capfc::regmap(c),
            BlockConfig::Bfc(c) => switchcraft_model::bfc::regmap(c),
        }
    }

    /// The block's seeded random workload, as a generator of input rows.
    pub fn workload(&self, seed: u64) -> InputGenerator {
        match self {
            BlockConfig::Pfc(c) => {
                let mut w = PfcWorkload::new(c, seed);
                Box::new(move |inputs: &mut [u64]| w.next_input().to_values(inputs))
            }
            BlockConfig::Tcd(c) => {
                let mut w = TcdWorkload::new(c, seed);
                Box::new(move |inputs: &mut [u64]| w.next_input().to_values(inputs))
            }
            BlockConfig::Capfc(c) => {
                let mut w = CapfcWorkload::new(c, seed);
                Box::new(move |inputs: &mut [u64]| w.next_input().to_values(inputs))
            }
            BlockConfig::Bfc(c) => {
                let mut w = BfcWorkload::new(c, seed);
                Box::new(move |inputs: &mut [u64]| w.next_input().to_values(inputs))
            }
        }
    }
}

/// The register table of docs/blocks/<block>.md, between these markers, is generated from the
/// block's register map at its largest preset (`paper`, or `tofino2` for BFC).
pub const REGMAP_BEGIN: &str = "<!-- BEGIN regmap: switchcraft regmap --block";
pub const REGMAP_END: &str = "<!-- END regmap -->";

/// The generated register section of docs/blocks/<block>.md.
pub fn regmap_doc_section(block: &str) -> Result<String, InputError> {
    // The block's largest preset (its paper scale), listed last.
    let preset = BlockConfig::presets(block)?
        .last()
        .expect("every block has presets");
    let cfg = BlockConfig::preset(block, preset)?;
    Ok(format!(
        "{REGMAP_BEGIN} {block} --preset {preset} -->\n{}{REGMAP_END}",
        cfg.regmap().markdown_table()
    ))
}

/// The command that regenerates the checked-in files of a preset (their header names it).
pub fn generate_command(block: &str, preset: &str) -> String {
    format!("switchcraft generate --block {block} --preset {preset} --out rtl/{block}")
}

fn unknown_block(name: &str) -> InputError {
    InputError(format!(
        "unknown block `{name}` (blocks: {})",
        BLOCKS.join(", ")
    ))
}

/// Where generated files for co-simulation go: `target/switchcraft-gen/` of this workspace, or
/// `$SWITCHCRAFT_GEN`.
pub fn gen_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("SWITCHCRAFT_GEN") {
        return PathBuf::from(d);
    }
    switchcraft_sim::default_cache_dir()
        .parent()
        .map(|t| t.join("switchcraft-gen"))
        .unwrap_or_else(|| PathBuf::from("target/switchcraft-gen"))
}

/// Writes `pkg` under [`gen_dir`] and verilates its top module (cached by content).
pub fn verilate(
    pkg: &Package,
    schema: &PortSchema,
    trace: bool,
) -> Result<VerilatedModel, SimError> {
    let dir = gen_dir().join(&pkg.instance);
    pkg.write_to(&dir).map_err(|source| SimError::Io {
        what: "cannot write",
        path: dir.clone(),
        source,
    })?;
    let opts = BuildOptions {
        trace,
        ..Default::default()
    };
    switchcraft_sim::build(
        &dir.join(format!("{}.v", pkg.instance)),
        &pkg.top(),
        schema,
        &opts,
    )
}
