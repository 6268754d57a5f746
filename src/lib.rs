//! switchcraft: cycle-accurate golden models, rust-hdl RTL and Verilator co-simulation of the
//! congestion-control blocks of lossless switches.
//!
//! This crate is the glue the CLI, the tests, the benches and the demo share: which blocks
//! exist, how a config is loaded (preset or TOML file), and how a block's model, Verilog package,
//! verilated RTL and random workload are made from a config.

use std::path::PathBuf;
use switchcraft_core::PortSchema;
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

/// The block registry and each block's descriptor.
pub mod blocks;

/// What the CLI's commands share: failures and their exit status, argument and output helpers.
pub mod cli;

pub use blocks::{BlockConfig, InputGenerator, REGISTRY};
pub use cli::Failure;
pub use switchcraft_core::InputError;

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

/// The register table of docs/blocks/<block>.md, between these markers, is generated from the
/// block's register map at its largest preset (`paper`, or `tofino2` for BFC).
pub const REGMAP_BEGIN: &str = "<!-- BEGIN regmap: switchcraft regmap --block";
pub const REGMAP_END: &str = "<!-- END regmap -->";

/// The ports table of docs/blocks/<block>.md, between these markers, is generated from the
/// block's port schema (the only list of its ports) at every preset.
pub const PORTS_BEGIN: &str = "<!-- BEGIN ports: switchcraft docs -->";
pub const PORTS_END: &str = "<!-- END ports -->";

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

/// The generated ports section of docs/blocks/<block>.md: one row per port of the schema, its
/// width and (outputs) pipeline latency at each preset (one number when every preset agrees).
pub fn ports_doc_section(block: &str) -> Result<String, InputError> {
    let presets = BlockConfig::presets(block)?;
    let schemas = presets
        .iter()
        .map(|p| Ok(BlockConfig::preset(block, p)?.schema()))
        .collect::<Result<Vec<_>, InputError>>()?;
    let last = schemas.last().expect("every block has presets");
    let mut s = format!(
        "{PORTS_BEGIN}\n| port | dir | width ({}) | latency | meaning |\n|---|---|---|---|---|\n",
        presets.join(" / ")
    );
    for port in &last.ports {
        // One value when every preset agrees, else one per preset.
        let of_presets = |f: &dyn Fn(&switchcraft_core::Port) -> String| {
            let values: Vec<String> = schemas
                .iter()
                .map(|sc| {
                    sc.ports
                        .iter()
                        .find(|p| p.name == port.name)
                        .map_or("-".into(), f)
                })
                .collect();
            if values.iter().all(|v| *v == values[0]) {
                values[0].clone()
            } else {
                values.join(" / ")
            }
        };
        let width = of_presets(&|p| p.width.to_string());
        let latency = of_presets(&|p| p.latency.map_or("-".into(), |l| l.to_string()));
        let dir = match port.dir {
            switchcraft_core::Dir::In => "in",
            switchcraft_core::Dir::Out => "out",
        };
        s += &format!(
            "| `{}` | {dir} | {width} | {latency} | {} |\n",
            port.name, port.doc
        );
    }
    s += PORTS_END;
    Ok(s)
}

/// `doc` with the section from the line starting with `begin` through `end` replaced by
/// `section` (which holds both markers); an error names the missing marker.
pub fn replace_doc_section(
    doc: &str,
    begin: &str,
    end: &str,
    section: &str,
) -> Result<String, String> {
    let start = doc
        .find(begin)
        .ok_or_else(|| format!("no `{begin}` marker"))?;
    let stop = doc[start..]
        .find(end)
        .map(|i| start + i + end.len())
        .ok_or_else(|| format!("no `{end}` marker after `{begin}`"))?;
    Ok(format!("{}{section}{}", &doc[..start], &doc[stop..]))
}

/// docs/blocks/<block>.md with its generated sections (registers, ports) brought up to date.
pub fn block_doc_regenerated(block: &str, doc: &str) -> Result<String, InputError> {
    let name = format!("docs/blocks/{block}.md");
    let doc = replace_doc_section(doc, REGMAP_BEGIN, REGMAP_END, &regmap_doc_section(block)?)
        .map_err(|e| InputError(format!("{name}: {e}")))?;
    replace_doc_section(&doc, PORTS_BEGIN, PORTS_END, &ports_doc_section(block)?)
        .map_err(|e| InputError(format!("{name}: {e}")))
}

/// The command that regenerates the checked-in files of a preset (their header names it).
pub fn generate_command(block: &str, preset: &str) -> String {
    format!("switchcraft generate --block {block} --preset {preset} --out rtl/{block}")
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
    verilate_top(pkg, &pkg.top(), schema, trace)
}

/// [`verilate`] with the top module named: `pkg.axil_top()` with the AXI4-Lite schema
/// (`switchcraft_core::axil::schema`) co-simulates the block behind its AXI4-Lite bridge.
pub fn verilate_top(
    pkg: &Package,
    top: &str,
    schema: &PortSchema,
    trace: bool,
) -> Result<VerilatedModel, SimError> {
    let dir = gen_dir().join(&pkg.instance);
    pkg.write_to(&dir).map_err(|(path, source)| SimError::Io {
        what: "cannot write",
        path,
        source,
    })?;
    let opts = BuildOptions {
        trace,
        ..Default::default()
    };
    let mut rtl =
        switchcraft_sim::build(&dir.join(format!("{}.v", pkg.instance)), top, schema, &opts)?;
    rtl.set_min_reset_cycles(pkg.reset_cycles);
    Ok(rtl)
}
