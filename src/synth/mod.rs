//! FPGA synthesis flow (issue 3), the code behind `switchcraft synth` and `make synth`.
//!
//! Per block and preset, from the checked-in `rtl/<b>/<b>_<preset>.v` and its port manifest:
//!
//! 1. yosys `synth_ice40` of the core top alone: the resource table (LUT4, DFF, carry, BRAM)
//!    is the core's own, with no wrapper or I/O in it;
//! 2. a pin-light wrapper generated from the manifest (clk, rst, sin, load, sout: shift chains
//!    around the core), because the core has ~90 inputs and ~90 outputs and the HX8K CT256
//!    package must still hold it; synthesized with the core, the difference to step 1 is reported
//!    as the wrapper's overhead;
//! 3. if the wrapped design fits an iCE40HX8K, nextpnr-ice40 with `constraints/ice40-hx8k-ct256/`
//!    (pins and a 100 MHz clock), once per seed, one after the other; Fmax is the median of the
//!    seeds' post-route "Max frequency for clock" lines; icepack packs the median seed's result;
//! 4. yosys `synth_xilinx` (7-series) of the core alone: a synthesis-only estimate for users of
//!    larger FPGAs, never placed or routed here; it runs in a second thread alongside steps 1-3;
//! 5. state bits per (port, priority): measured (DFF + memory bits) and architectural.
//!
//! Results go to `<out>/<instance>/` (logs, scripts, netlists, bitstream) and, merged with the
//! entries of other blocks and presets, to `docs/reports/synth.{md,json}`.

pub mod ecp5;
pub mod loops;
mod outreg;

use crate::BlockConfig;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use std::time::Instant;
use switchcraft_core::{Dir, Port};

/// The reference FPGA: logic cells and 4 Kbit block RAMs of an iCE40HX8K (Lattice data sheet).
pub const DEVICE: &str = "iCE40HX8K-CT256";
pub const HX8K_LCS: u64 = 7680;
pub const HX8K_BRAMS: u64 = 32;
/// The Fmax target of issue 3; the constraint itself is in `clocks.py`, which the flow checks
/// nextpnr really applied.
pub const TARGET_MHZ: f64 = 100.0;
/// Board constraints, relative to the repository root.
pub const ICE40_CONSTRAINTS: &str = "constraints/ice40-hx8k-ct256";

pub use crate::tool::Tools;
use crate::tool::{run_tool, run_tool_in, seconds_since, ToolError};

/// Why the flow stopped. Every tool failure names the tool and its log.
#[derive(Debug)]
pub enum SynthError {
    /// Bad arguments (unknown block or preset, zero seeds).
    Input(String),
    /// A missing input file or an unwritable output.
    Io { path: PathBuf, detail: String },
    /// A tool could not be started, exited non-zero, or left no usable result.
    Tool {
        tool: &'static str,
        log: Option<PathBuf>,
        detail: String,
    },
}

impl fmt::Display for SynthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SynthError::Input(msg) => f.write_str(msg),
            SynthError::Io { path, detail } => write!(f, "{}: {detail}", path.display()),
            SynthError::Tool { tool, log, detail } => {
                write!(f, "{tool} failed: {detail}")?;
                if let Some(log) = log {
                    write!(f, "\n  log: {}", log.display())?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for SynthError {}

impl From<ToolError> for SynthError {
    fn from(e: ToolError) -> Self {
        SynthError::Tool {
            tool: e.tool,
            log: e.log,
            detail: e.detail,
        }
    }
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> SynthError {
    SynthError::Io {
        path: path.to_path_buf(),
        detail: format!("{what}: {e}"),
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), SynthError> {
    std::fs::write(path, text).map_err(|e| io_error(path, "cannot write", e))
}

fn read_file(path: &Path) -> Result<String, SynthError> {
    std::fs::read_to_string(path).map_err(|e| io_error(path, "cannot read", e))
}

// ------------------------------------------------------------------------------------------
// yosys

/// What yosys `stat` says about a design: cell counts by type (of the last module printed,
/// which after flattening is the only one) and the memory bits of the whole hierarchy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    pub cells: BTreeMap<String, u64>,
    pub memory_bits: u64,
}

impl Stat {
    pub fn count(&self, cell: &str) -> u64 {
        self.cells.get(cell).copied().unwrap_or(0)
    }

    /// Sum of the cells whose type starts with `prefix`.
    pub fn count_prefix(&self, prefix: &str) -> u64 {
        self.cells
            .iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .map(|(_, v)| v)
            .sum()
    }
}

/// Parses the text of yosys `stat`, in the format of Debian's yosys 0.23 ("Number of cells:
/// 12", then "SB_LUT4 5" lines) or of the ECP5 flow's yosys 0.70 ("12 cells", then "5 LUT4"
/// lines). (Its `stat -json` is not used: with a hierarchy 0.23 interleaves the text hierarchy
/// into the JSON.) Memory bits: the last memory-bits line, which is the "design hierarchy"
/// total when there is one. Cells: the type lines after the last cell-count line, up to the
/// first line that is not one.
pub fn parse_stat(text: &str) -> Stat {
    let mut stat = Stat::default();
    let mut in_cells = false;
    for line in text.lines() {
        let t = line.trim();
        let words: Vec<&str> = t.split_whitespace().collect();
        let number = |w: &str| w.parse::<u64>().ok();
        if let Some(v) = t.strip_prefix("Number of memory bits:") {
            stat.memory_bits = v.trim().parse().unwrap_or(0);
        } else if let [n, "memory", "bits"] = words[..] {
            stat.memory_bits = number(n).unwrap_or(0);
        }
        let cells_line = t.starts_with("Number of cells:")
            || matches!(words[..], [n, "cells"] if number(n).is_some());
        if cells_line {
            stat.cells.clear();
            in_cells = true;
            continue;
        }
        if in_cells {
            let entry = match words[..] {
                // 0.70 closes the list with the number of submodules.
                [_, "submodules"] => None,
                [n, cell] if number(n).is_some() => Some((cell, number(n))),
                [cell, n] => Some((cell, number(n))),
                _ => None,
            };
            match entry {
                Some((cell, Some(n))) => {
                    stat.cells.insert(cell.to_string(), n);
                }
                _ => in_cells = false,
            }
        }
    }
    stat
}

/// A path on a yosys script line. Yosys 0.23's `tee -o` takes quotes literally (and with `-q`
/// fails silently), so paths are written bare and must not contain white space.
fn ys_path(p: &Path) -> String {
    p.display().to_string()
}

/// Runs a yosys script `<dir>/<name>.ys` in `dir`: read `sources`, record the RTL statistics
/// (memory bits), run `synth` (e.g. `synth_ice40 -top T`; files it names are relative to `dir`),
/// record the mapped statistics. Returns (RTL stat, mapped stat, seconds). The log is
/// `<dir>/<name>.yosys.log`. Running in `dir` with the files there named relative to it keeps
/// the script rerunnable from anywhere and lets the ECP5 flow's WebAssembly yosys, which sees
/// only some of the file system, reach them.
fn yosys_synth(
    yosys: (&'static str, &str),
    sources: &[PathBuf],
    top: &str,
    synth: &str,
    dir: &Path,
    name: &str,
) -> Result<(Stat, Stat, f64), SynthError> {
    for s in sources {
        if !s.is_file() {
            return Err(SynthError::Io {
                path: s.clone(),
                detail: "not found (run switchcraft synth from the repository root)".into(),
            });
        }
    }
    for p in sources.iter().map(PathBuf::as_path).chain([dir]) {
        if p.display().to_string().contains(char::is_whitespace) {
            return Err(SynthError::Input(format!(
                "{}: yosys scripts cannot name paths with white space",
                p.display()
            )));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| io_error(dir, "cannot create", e))?;
    let (rtl_name, mapped_name) = (format!("{name}.rtl-stat.txt"), format!("{name}.stat.txt"));
    let (rtl_stat, mapped_stat) = (dir.join(&rtl_name), dir.join(&mapped_name));
    let reads = sources
        .iter()
        .map(|s| relative_from(dir, s).map(|r| ys_path(&r)))
        .collect::<Result<Vec<String>, _>>()
        .map_err(|e| io_error(dir, "cannot resolve the sources from", e))?;
    let script = format!(
        "# Generated by switchcraft synth; rerun in {dir} with: {tool} -s {name}.ys\n\
         read_verilog {reads}\n\
         hierarchy -check -top {top}\n\
         tee -q -o {rtl_name} stat\n\
         {synth}\n\
         tee -q -o {mapped_name} stat\n",
        dir = dir.display(),
        tool = yosys.0,
        reads = reads.join(" "),
    );
    let script_path = dir.join(format!("{name}.ys"));
    write_file(&script_path, &script)?;
    let log = dir.join(format!("{name}.yosys.log"));
    let seconds = run_tool_in(
        yosys.0,
        yosys.1,
        &["-s".into(), format!("{name}.ys")],
        &log,
        Some(dir),
    )?;
    let missing = |p: &Path| SynthError::Tool {
        tool: yosys.0,
        log: Some(log.clone()),
        detail: format!("no statistics written to {}", p.display()),
    };
    let rtl = parse_stat(&std::fs::read_to_string(&rtl_stat).map_err(|_| missing(&rtl_stat))?);
    let mapped =
        parse_stat(&std::fs::read_to_string(&mapped_stat).map_err(|_| missing(&mapped_stat))?);
    if mapped.cells.is_empty() {
        return Err(missing(&mapped_stat));
    }
    Ok((rtl, mapped, seconds))
}

/// The existing `target` named relative to the existing directory `from`. Relative, because
/// the WebAssembly tools reach some absolute paths (any under `/tmp`, unless it is their
/// working directory) only through `..`.
fn relative_from(from: &Path, target: &Path) -> std::io::Result<PathBuf> {
    let (from, target) = (from.canonicalize()?, target.canonicalize()?);
    let (f, t): (Vec<_>, Vec<_>) = (from.components().collect(), target.components().collect());
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut rel: PathBuf = f[common..].iter().map(|_| "..").collect();
    rel.extend(&t[common..]);
    Ok(rel)
}

/// iCE40 resources of one synthesized design.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ice40Resources {
    pub lut4: u64,
    /// Every SB_DFF* flavour (enable, set/reset variants).
    pub dff: u64,
    pub carry: u64,
    /// SB_RAM40_4K blocks (4 Kbit each).
    pub bram: u64,
    /// Bits of the Verilog memories (`reg [w-1:0] mem [...]`), before mapping.
    pub memory_bits: u64,
    pub cells: BTreeMap<String, u64>,
    pub seconds: f64,
}

/// yosys `synth_ice40` of `top` from `sources`, in `dir` with file stem `name`; with `json`,
/// also writes the netlist `<dir>/<name>.json` for nextpnr.
pub fn synth_ice40(
    tools: &Tools,
    sources: &[PathBuf],
    top: &str,
    dir: &Path,
    name: &str,
    json: bool,
) -> Result<Ice40Resources, SynthError> {
    let mut cmd = format!("synth_ice40 -top {top}");
    if json {
        cmd += &format!(" -json {name}.json");
    }
    let (rtl, mapped, seconds) =
        yosys_synth(("yosys", &tools.yosys), sources, top, &cmd, dir, name)?;
    Ok(Ice40Resources {
        lut4: mapped.count("SB_LUT4"),
        dff: mapped.count_prefix("SB_DFF"),
        carry: mapped.count("SB_CARRY"),
        bram: mapped.count_prefix("SB_RAM40_4K"),
        memory_bits: rtl.memory_bits,
        cells: mapped.cells,
        seconds,
    })
}

/// A synthesis-only Xilinx 7-series estimate (yosys `synth_xilinx`, no place and route).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct XilinxEstimate {
    pub family: String,
    /// LUT1..LUT6 and INV (an INV is a LUT1 in the fabric).
    pub lut: u64,
    /// LUTs used as distributed RAM (RAM32M/RAM64M: 4 each; other RAM*X1*: 1 or 2 each).
    pub lut_as_ram: u64,
    pub ff: u64,
    pub carry4: u64,
    /// 18 Kbit block RAM halves (a RAMB36E1 counts 2).
    pub bram18: u64,
    pub memory_bits: u64,
    pub cells: BTreeMap<String, u64>,
    pub seconds: f64,
}

pub fn synth_xilinx(
    tools: &Tools,
    sources: &[PathBuf],
    top: &str,
    dir: &Path,
    name: &str,
) -> Result<XilinxEstimate, SynthError> {
    // -flatten: one module to count; -noiopad: the core's own cells, no I/O buffers.
    let cmd = format!("synth_xilinx -top {top} -family xc7 -flatten -noiopad");
    let (rtl, m, seconds) = yosys_synth(("yosys", &tools.yosys), sources, top, &cmd, dir, name)?;
    let lut = (1..=6).map(|k| m.count(&format!("LUT{k}"))).sum::<u64>() + m.count("INV");
    let lut_as_ram = 4 * (m.count("RAM32M") + m.count("RAM64M") + m.count("RAM128X1D"))
        + 2 * (m.count("RAM32X1D") + m.count("RAM64X1D") + m.count("RAM128X1S"))
        + m.count("RAM32X1S")
        + m.count("RAM64X1S");
    Ok(XilinxEstimate {
        family: "xc7 (7-series)".into(),
        lut,
        lut_as_ram,
        ff: m.count_prefix("FD"),
        carry4: m.count("CARRY4"),
        bram18: m.count("RAMB18E1") + 2 * m.count("RAMB36E1"),
        memory_bits: rtl.memory_bits,
        cells: m.cells,
        seconds,
    })
}

// ------------------------------------------------------------------------------------------
// The pin-light wrapper

/// The port manifest `<instance>.ports.json` written by `switchcraft generate`.
#[derive(Clone, Debug, Deserialize)]
pub struct Manifest {
    pub instance: String,
    pub top: String,
    pub clock: String,
    pub reset: String,
    pub ports: Vec<Port>,
}

pub fn read_manifest(path: &Path) -> Result<Manifest, SynthError> {
    let text = read_file(path)?;
    serde_json::from_str(&text).map_err(|e| SynthError::Io {
        path: path.to_path_buf(),
        detail: format!("not a port manifest: {e}"),
    })
}

/// A generated wrapper: module name, chain lengths and the Verilog text.
#[derive(Clone, Debug)]
pub struct Wrapper {
    pub module: String,
    pub input_bits: u32,
    pub output_bits: u32,
    pub verilog: String,
}

/// The pin-light synthesis wrapper `<instance>_synth_top` (pins clk, rst, sin, load, sout).
///
/// An input shift chain (entering at `sin`) drives every core input bit, every core output bit
/// is captured into a register every cycle, and an output chain loads the captured bits on
/// `load` and otherwise shifts them out at `sout`. So every core input is a live signal and
/// every core output reaches a pin: synthesis can remove nothing of the core, and every path
/// into and out of the core is register to register. Pins `rst` and `load` are registered first
/// so that no pin-to-register delay enters the core's timing.
pub fn wrapper(m: &Manifest) -> Result<Wrapper, SynthError> {
    let inputs: Vec<&Port> = m.ports.iter().filter(|p| p.dir == Dir::In).collect();
    let outputs: Vec<&Port> = m.ports.iter().filter(|p| p.dir == Dir::Out).collect();
    let ib: u32 = inputs.iter().map(|p| p.width).sum();
    let ob: u32 = outputs.iter().map(|p| p.width).sum();
    if ib == 0 || ob == 0 {
        return Err(SynthError::Input(format!(
            "{}: the wrapper needs at least one input and one output port",
            m.instance
        )));
    }
    let module = format!("{}_synth_top", m.instance);
    // `{chain[n-2:0], bit}` does not exist for a 1-bit chain.
    let shift = |reg: &str, n: u32, bit: &str| {
        if n == 1 {
            bit.to_string()
        } else {
            format!("{{{reg}[{}:0], {bit}}}", n - 2)
        }
    };
    let mut v = String::new();
    v += &format!(
        "// Generated by switchcraft synth from {inst}.ports.json; not checked in.\n\
         // Pin-light wrapper of {top} for place and route only (docs/architecture.md,\n\
         // \"Synthesis\"): an input shift chain drives all {ib} core input bits, all {ob} core\n\
         // output bits are captured every cycle and shifted out at sout, so nothing of the core\n\
         // can be optimized away and every core path is register to register.\n\
         module {module} (\n\
         \x20   input  wire clk,\n\
         \x20   input  wire rst,\n\
         \x20   input  wire sin,\n\
         \x20   input  wire load,\n\
         \x20   output wire sout\n\
         );\n\
         \x20   // Pins are registered before use: no pin-to-register delay inside the core.\n\
         \x20   reg rst_q;\n\
         \x20   reg load_q;\n\
         \x20   always @(posedge clk) begin\n\
         \x20       rst_q <= rst;\n\
         \x20       load_q <= load;\n\
         \x20   end\n\n\
         \x20   // Input chain: enters at bit 0; each core input is a slice of it.\n\
         \x20   reg [{imsb}:0] in_chain;\n\
         \x20   always @(posedge clk) in_chain <= {ishift};\n\n\
         \x20   // Outputs: captured every cycle; the output chain loads them or shifts out.\n\
         \x20   wire [{omsb}:0] core_out;\n\
         \x20   reg [{omsb}:0] out_capture;\n\
         \x20   reg [{omsb}:0] out_chain;\n\
         \x20   always @(posedge clk) begin\n\
         \x20       out_capture <= core_out;\n\
         \x20       if (load_q) out_chain <= out_capture;\n\
         \x20       else out_chain <= {oshift};\n\
         \x20   end\n\
         \x20   assign sout = out_chain[{omsb}];\n\n\
         \x20   {top} core (\n\
         \x20       .{clock}(clk),\n\
         \x20       .{reset}(rst_q)",
        inst = m.instance,
        top = m.top,
        imsb = ib - 1,
        omsb = ob - 1,
        ishift = shift("in_chain", ib, "sin"),
        oshift = shift("out_chain", ob, "1'b0"),
        clock = m.clock,
        reset = m.reset,
    );
    let mut lo = 0;
    for p in &inputs {
        v += &format!(
            ",\n        .{}(in_chain[{}:{lo}])",
            p.name,
            lo + p.width - 1
        );
        lo += p.width;
    }
    lo = 0;
    for p in &outputs {
        v += &format!(
            ",\n        .{}(core_out[{}:{lo}])",
            p.name,
            lo + p.width - 1
        );
        lo += p.width;
    }
    v += "\n    );\nendmodule\n";
    Ok(Wrapper {
        module,
        input_bits: ib,
        output_bits: ob,
        verilog: v,
    })
}

// ------------------------------------------------------------------------------------------
// nextpnr

/// What the flows read from a nextpnr log (nextpnr-ice40 0.4, nextpnr-ecp5 0.11).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PnrLog {
    /// From "constraining clock net 'clk' to 100.00 MHz": proof the clock constraint was used.
    pub clock_constraint_mhz: Option<f64>,
    /// The last "Max frequency for clock" line after "Routing complete" (post-route; the
    /// earlier line is the placer's estimate).
    pub fmax_mhz: Option<f64>,
    /// The constraint that line checked against ("(FAIL at 150.00 MHz)").
    pub checked_at_mhz: Option<f64>,
    /// Device utilisation: (used, available) per BEL type, e.g. "ICESTORM_LC".
    pub utilisation: BTreeMap<String, (u64, u64)>,
    /// First and last net of the post-route critical path and its number of nets.
    pub critical_path: Option<(String, String, usize)>,
    /// nextpnr ran out of cells of some type: the design does not fit. The heap placer says
    /// "Failed to expand region ... of N ICESTORM_LCs", the legaliser "no BELs remaining".
    pub does_not_fit: Option<String>,
}

pub fn parse_nextpnr_log(text: &str) -> PnrLog {
    let mut log = PnrLog::default();
    let mut routed = false;
    let mut path: Option<Vec<String>> = None;
    let mut last_path: Option<Vec<String>> = None;
    for line in text.lines() {
        if let Some(i) = line.find("constraining clock net '") {
            log.clock_constraint_mhz = mhz_before(&line[i..], " MHz");
        }
        if line.contains("Routing complete") {
            routed = true;
        }
        if line.contains("no BELs remaining") || line.contains("Failed to expand region") {
            log.does_not_fit = Some(line.trim().to_string());
        }
        if let Some(i) = line.find("Max frequency for clock '") {
            if let Some(p) = path.take() {
                last_path = Some(p);
            }
            if routed {
                // "...: 25.52 MHz (FAIL at 100.00 MHz)": the number after the clock's name.
                let rest = &line[i..];
                if let Some(j) = rest.find("': ") {
                    log.fmax_mhz = mhz_before(&rest[j + 3..], " MHz");
                }
                if let Some(j) = rest.find(" at ") {
                    log.checked_at_mhz = mhz_before(&rest[j..], " MHz)");
                }
            }
        }
        if routed && line.contains("Critical path report for clock") {
            path = Some(Vec::new());
        } else if line.contains("Critical path report for") {
            // A cross-domain (pin) path ends the clock's report.
            if let Some(p) = path.take() {
                last_path = Some(p);
            }
        }
        if let Some(p) = path.as_mut() {
            if let Some(i) = line.find(" Net ") {
                if let Some(name) = line[i + 5..].split_whitespace().next() {
                    p.push(signal_of_net(name).to_string());
                }
            }
        }
        // "Info:          ICESTORM_LC:  1499/ 7680    19%", "Info: \t TRELLIS_COMB: 2261/ 83640 2%":
        // only lines whose first word is a BEL name and a colon, so that cell names like
        // `$nextpnr_ICESTORM_LC_5.I1` in other messages do not parse.
        let rest = line.strip_prefix("Info:").unwrap_or("").trim_start();
        if let Some((bel, counts)) = rest.split_once(':').filter(|(b, _)| {
            !b.is_empty() && b.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }) {
            if let Some((used, avail)) = counts.split_once('/') {
                let avail = avail.split_whitespace().next().unwrap_or("");
                if let (Ok(u), Ok(a)) = (used.trim().parse(), avail.parse()) {
                    log.utilisation.entry(bel.to_string()).or_insert((u, a));
                }
            }
        }
    }
    if let Some(p) = path.or(last_path) {
        // Nets named by nextpnr (`$nextpnr_ICESTORM_LC_2$I3`) say nothing about the design;
        // name the path by its first and last nets that come from the netlist.
        let mut named = p.iter().filter(|n| !n.starts_with('$'));
        if let Some(first) = named.next() {
            let last = named.next_back().unwrap_or(first);
            log.critical_path = Some((first.clone(), last.clone(), p.len()));
        }
    }
    log
}

/// The design signal a mapped net is named after. Yosys names mapped nets after the cells
/// around the signal (`core.core.d_b0_SB_LUT4_O_I0_...[0]` on the iCE40,
/// `core.state.q_TRELLIS_FF_Q_DI_L6MUX21_Z_...` and `core.ram.mem.0.7$RAMW_SLICE$conn$WDO3` on
/// the ECP5); the signal is the part before the first cell name. (A bare `$` is not one:
/// rust-hdl names a sub-block's signals `block$signal`.) A name that starts with a cell name
/// (nextpnr's own, `$nextpnr_...`) is kept whole.
fn signal_of_net(name: &str) -> &str {
    const CELLS: [&str; 9] = [
        "_SB_",
        "_TRELLIS_",
        "_CCU2C_",
        "_LUT4_",
        "_PFUMX_",
        "_L6MUX21_",
        "$RAMW_SLICE",
        "$DPRAM",
        "$CCU2",
    ];
    let cut = CELLS
        .iter()
        .filter_map(|c| name.find(c))
        .filter(|&i| i > 0)
        .min()
        .unwrap_or(name.len());
    &name[..cut]
}

/// The number just before `unit` in `s` ("... to 100.00 MHz" -> 100.0).
fn mhz_before(s: &str, unit: &str) -> Option<f64> {
    let end = s.find(unit)?;
    s[..end].split_whitespace().last()?.parse().ok()
}

/// The median Fmax of the seeds' runs, and the run nearest it (the one reported in detail).
fn median_run(runs: &[(SeedRun, PnrLog)]) -> (f64, &(SeedRun, PnrLog)) {
    let fmaxes: Vec<f64> = runs.iter().map(|(r, _)| r.fmax_mhz).collect();
    let med = median(&fmaxes);
    let nearest = runs
        .iter()
        .min_by(|a, b| {
            (a.0.fmax_mhz - med)
                .abs()
                .total_cmp(&(b.0.fmax_mhz - med).abs())
        })
        .expect("at least one seed");
    (med, nearest)
}

/// Median of a non-empty list (mean of the middle two for an even count).
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// One place-and-route run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeedRun {
    pub seed: u32,
    pub fmax_mhz: f64,
    pub seconds: f64,
    pub log: String,
}

/// Places and routes `<dir>/wrapped.json` with one seed. `Ok(None)`: nextpnr ran out of cells,
/// the design does not fit the device.
fn place_route(
    tools: &Tools,
    dir: &Path,
    constraints: &Path,
    seed: u32,
) -> Result<Option<(SeedRun, PnrLog)>, SynthError> {
    let log = dir.join(format!("pnr-seed{seed}.log"));
    let args: Vec<String> = vec![
        "--hx8k".into(),
        "--package".into(),
        "ct256".into(),
        "--json".into(),
        dir.join("wrapped.json").display().to_string(),
        "--pcf".into(),
        constraints.join("pins.pcf").display().to_string(),
        "--pre-pack".into(),
        constraints.join("clocks.py").display().to_string(),
        "--seed".into(),
        seed.to_string(),
        // Missing the target is a result to report, not a failure of the flow.
        "--timing-allow-fail".into(),
        "--asc".into(),
        dir.join(format!("pnr-seed{seed}.asc"))
            .display()
            .to_string(),
    ];
    let result = run_tool("nextpnr-ice40", &tools.nextpnr, &args, &log);
    let parsed = parse_nextpnr_log(&std::fs::read_to_string(&log).unwrap_or_default());
    if parsed.does_not_fit.is_some() {
        return Ok(None);
    }
    let seconds = result?;
    let tool_error = |detail: &str| SynthError::Tool {
        tool: "nextpnr-ice40",
        log: Some(log.clone()),
        detail: detail.into(),
    };
    if parsed.clock_constraint_mhz.is_none() {
        return Err(tool_error(
            "the log does not show the clock constraint of clocks.py being applied",
        ));
    }
    let fmax = parsed
        .fmax_mhz
        .ok_or_else(|| tool_error("no post-route \"Max frequency for clock\" line in the log"))?;
    Ok(Some((
        SeedRun {
            seed,
            fmax_mhz: fmax,
            seconds,
            log: log.display().to_string(),
        },
        parsed,
    )))
}

// ------------------------------------------------------------------------------------------
// State bits per key

/// State bits per (port, priority), measured and architectural.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateBits {
    /// (port, priority) pairs of the config.
    pub keys: u64,
    /// Keys the hardware allocates (ports and priorities each padded to a power of 2; TCD still
    /// pads priorities to 8).
    pub physical_keys: u64,
    /// Measured: every DFF of the core plus every memory bit, over `keys`. An upper bound on
    /// per-key state: pipeline, CSR and output registers are counted too.
    pub measured_bits: u64,
    pub measured_per_key: f64,
    /// From the design: storage per physical key, and that over `keys`.
    pub architectural_per_physical_key: u64,
    pub architectural_per_key: f64,
    /// The same on the `asic` target, whose memories hold exactly their architectural bits
    /// (none in reports made before it was recorded).
    #[serde(default)]
    pub asic_per_physical_key: Option<u64>,
    pub architecture: String,
    /// The spec's estimate, if it gives one, and where it comes from.
    pub spec_per_key: Option<u64>,
    pub spec_note: String,
}

// ------------------------------------------------------------------------------------------
// One preset, end to end

/// Place-and-route results of the wrapper on the HX8K.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pnr {
    pub clock_constraint_mhz: f64,
    pub seeds: Vec<SeedRun>,
    pub fmax_median_mhz: f64,
    pub target_mhz: f64,
    pub target_met: bool,
    /// Utilisation of the wrapped design at the median seed, (used, available) per BEL type.
    pub utilisation: BTreeMap<String, (u64, u64)>,
    /// Critical path of the median seed: first net, last net, number of nets.
    pub critical_path: Option<(String, String, usize)>,
    pub bitstream: String,
    pub bitstream_seed: u32,
}

/// The wrapper's own cost: wrapped design minus core, both from `synth_ice40`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WrapperOverhead {
    pub module: String,
    pub input_chain_bits: u32,
    pub output_bits: u32,
    pub lut4: i64,
    pub dff: i64,
    pub carry: i64,
    pub bram: i64,
    pub wrapped_lut4: u64,
    pub wrapped_dff: u64,
}

/// One (block, preset) of the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub block: String,
    pub preset: String,
    pub instance: String,
    pub top: String,
    pub verilog: String,
    pub date: String,
    /// The core top alone, yosys `synth_ice40`.
    pub ice40: Ice40Resources,
    /// `None` when the core alone already rules out the HX8K: the wrapped design (a second
    /// synthesis as long as the first) is then not built.
    pub wrapper: Option<WrapperOverhead>,
    /// Whether the wrapped design fits the HX8K, and why.
    pub fits_ice40: bool,
    pub fit_reason: String,
    /// Place and route, when it fits.
    pub pnr: Option<Pnr>,
    /// Synthesis only: never placed or routed.
    pub xilinx_estimate: XilinxEstimate,
    pub state_bits: StateBits,
    pub seconds: f64,
}

/// Which flow `switchcraft synth` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// iCE40 HX8K place and route, bitstream, and the Xilinx 7-series estimate.
    Ice40,
    /// Lattice ECP5-85F place and route, out of context ([`ecp5`]).
    Ecp5,
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    pub target: Target,
    pub block: String,
    /// Empty: every preset of the block.
    pub presets: Vec<String>,
    pub seeds: u32,
    pub out: PathBuf,
    /// Directory of synth.md and synth.json; `None` writes no report.
    pub report: Option<PathBuf>,
    pub tools: Tools,
}

/// Whether synthesis results alone rule out the HX8K: a logic cell holds one LUT4 and one
/// DFF, so max(LUT4, DFF) cells is the least a design needs, and BRAMs are counted exactly.
/// Past that, place and route cannot succeed and is not tried; below it nextpnr decides (an
/// out-of-cells failure there also means "does not fit").
pub fn too_large_for_hx8k(wrapped: &Ice40Resources) -> Option<String> {
    let lcs = wrapped.lut4.max(wrapped.dff);
    if lcs > HX8K_LCS || wrapped.bram > HX8K_BRAMS {
        Some(format!(
            "needs at least {lcs} logic cells and {} BRAM; the {DEVICE} has {HX8K_LCS} and {HX8K_BRAMS}",
            wrapped.bram
        ))
    } else {
        None
    }
}

/// Runs the whole flow on one (block, preset), printing progress.
pub fn run_preset(
    tools: &Tools,
    block: &str,
    preset: &str,
    seeds: u32,
    out: &Path,
) -> Result<Entry, SynthError> {
    let cfg = BlockConfig::preset(block, preset).map_err(|e| SynthError::Input(e.0))?;
    let start = Instant::now();
    let instance = crate::instance_name(block, preset);
    let rtl = Path::new("rtl").join(block);
    let verilog = rtl.join(format!("{instance}.v"));
    let manifest = read_manifest(&rtl.join(format!("{instance}.ports.json")))?;
    let dir = out.join(&instance);
    std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, "cannot create", e))?;
    let say = |msg: String| println!("{block} {preset}: {msg}");

    // The Xilinx estimate needs nothing from the iCE40 flow, so it runs alongside it on a
    // second core: at CaPFC `paper` they take 40 and 31 min. (An iCE40 error is reported once
    // the estimate has finished too.)
    let (ice40, xilinx) = std::thread::scope(|s| {
        let xilinx = s.spawn(|| {
            synth_xilinx(
                tools,
                std::slice::from_ref(&verilog),
                &manifest.top,
                &dir,
                "xilinx",
            )
        });
        let ice40 = ice40_flow(tools, &verilog, &manifest, &dir, seeds, &say);
        let xilinx = xilinx.join().expect("synth_xilinx does not panic");
        (ice40, xilinx)
    });
    let Ice40Flow {
        core,
        fits,
        fit_reason,
        overhead,
        pnr,
    } = ice40?;
    let xilinx = xilinx?;
    say(format!(
        "synth_xilinx estimate: {} LUT, {} LUT as RAM, {} FF, {} RAMB18 ({:.1} s)",
        xilinx.lut, xilinx.lut_as_ram, xilinx.ff, xilinx.bram18, xilinx.seconds
    ));

    let state = cfg.state_bits(&core);
    Ok(Entry {
        block: block.into(),
        preset: preset.into(),
        instance: instance.clone(),
        top: manifest.top.clone(),
        verilog: verilog.display().to_string(),
        date: today(),
        ice40: core,
        wrapper: overhead,
        fits_ice40: fits,
        fit_reason,
        pnr,
        xilinx_estimate: xilinx,
        state_bits: state,
        seconds: seconds_since(start),
    })
}

/// What the iCE40 part of the flow found for one preset.
struct Ice40Flow {
    core: Ice40Resources,
    fits: bool,
    fit_reason: String,
    overhead: Option<WrapperOverhead>,
    pnr: Option<Pnr>,
}

/// The iCE40 part of the flow: the core's resources, then, if it can fit, the wrapper, place
/// and route with every seed, and the bitstream of the median seed.
fn ice40_flow(
    tools: &Tools,
    verilog: &Path,
    manifest: &Manifest,
    dir: &Path,
    seeds: u32,
    say: &dyn Fn(String),
) -> Result<Ice40Flow, SynthError> {
    let core = synth_ice40(
        tools,
        &[verilog.to_path_buf()],
        &manifest.top,
        dir,
        "core",
        false,
    )?;
    say(format!(
        "synth_ice40 core: {} LUT4, {} DFF, {} carry, {} BRAM ({:.1} s)",
        core.lut4, core.dff, core.carry, core.bram, core.seconds
    ));

    let (mut fits, mut fit_reason, overhead) = match too_large_for_hx8k(&core) {
        Some(why) => {
            say(format!(
                "the core alone rules out the {DEVICE}; no wrapper, no place and route"
            ));
            (false, why, None)
        }
        None => {
            let w = wrapper(manifest)?;
            let wrapper_path = dir.join(format!("{}.v", w.module));
            write_file(&wrapper_path, &w.verilog)?;
            let wrapped = synth_ice40(
                tools,
                &[verilog.to_path_buf(), wrapper_path],
                &w.module,
                dir,
                "wrapped",
                true,
            )?;
            let overhead = WrapperOverhead {
                module: w.module.clone(),
                input_chain_bits: w.input_bits,
                output_bits: w.output_bits,
                lut4: wrapped.lut4 as i64 - core.lut4 as i64,
                dff: wrapped.dff as i64 - core.dff as i64,
                carry: wrapped.carry as i64 - core.carry as i64,
                bram: wrapped.bram as i64 - core.bram as i64,
                wrapped_lut4: wrapped.lut4,
                wrapped_dff: wrapped.dff,
            };
            say(format!(
                "synth_ice40 wrapped ({}): +{} LUT4, +{} DFF over the core ({:.1} s)",
                w.module, overhead.lut4, overhead.dff, wrapped.seconds
            ));
            match too_large_for_hx8k(&wrapped) {
                Some(why) => (false, why, Some(overhead)),
                None => (true, String::new(), Some(overhead)),
            }
        }
    };
    let mut pnr = None;
    if fits {
        let constraints = Path::new(ICE40_CONSTRAINTS);
        let mut runs: Vec<(SeedRun, PnrLog)> = Vec::new();
        for seed in 1..=seeds {
            match place_route(tools, dir, constraints, seed)? {
                Some((run, log)) => {
                    say(format!(
                        "nextpnr-ice40 seed {seed}: Fmax {:.2} MHz ({:.1} s)",
                        run.fmax_mhz, run.seconds
                    ));
                    runs.push((run, log));
                }
                None => {
                    fits = false;
                    // The report is committed: its reason names no local path; the log's is
                    // printed.
                    fit_reason = format!(
                        "nextpnr-ice40 ran out of cells placing the wrapped core (seed {seed})"
                    );
                    say(format!(
                        "{fit_reason}: {}",
                        dir.join(format!("pnr-seed{seed}.log")).display()
                    ));
                    break;
                }
            }
        }
        if fits {
            // The seed whose Fmax is nearest the median is the one packed.
            let (med, (best, log)) = median_run(&runs);
            let asc = dir.join(format!("pnr-seed{}.asc", best.seed));
            let module = &overhead
                .as_ref()
                .expect("fits, so the wrapper was built")
                .module;
            let bin = dir.join(format!("{module}.bin"));
            run_tool(
                "icepack",
                &tools.icepack,
                &[asc.display().to_string(), bin.display().to_string()],
                &dir.join("icepack.log"),
            )?;
            let lc = log
                .utilisation
                .get("ICESTORM_LC")
                .copied()
                .unwrap_or((0, 0));
            fit_reason = format!("placed and routed: {} of {} logic cells", lc.0, lc.1);
            // The target is what nextpnr applied (clocks.py), checked present in place_route.
            let target = log.clock_constraint_mhz.unwrap_or(TARGET_MHZ);
            say(format!(
                "Fmax median {med:.2} MHz (target {target} MHz {}); bitstream {}",
                if med >= target { "met" } else { "NOT met" },
                bin.display()
            ));
            pnr = Some(Pnr {
                clock_constraint_mhz: target,
                seeds: runs.iter().map(|(r, _)| r.clone()).collect(),
                fmax_median_mhz: med,
                target_mhz: target,
                target_met: med >= target,
                utilisation: log.utilisation.clone(),
                critical_path: log.critical_path.clone(),
                bitstream: bin.display().to_string(),
                bitstream_seed: best.seed,
            });
        }
    }
    if !fits {
        say(format!("does not fit the {DEVICE}: {fit_reason}"));
    }

    Ok(Ice40Flow {
        core,
        fits,
        fit_reason,
        overhead,
        pnr,
    })
}

// ------------------------------------------------------------------------------------------
// The report

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub device: String,
    pub target_mhz: f64,
    pub tools: BTreeMap<String, String>,
    pub date: String,
    pub entries: Vec<Entry>,
    /// `--target ecp5` results, and the versions of that flow's tools.
    #[serde(default)]
    pub ecp5: Vec<ecp5::Entry>,
    #[serde(default)]
    pub ecp5_tools: BTreeMap<String, String>,
}

/// Runs `opts` and, with `opts.report`, merges the results into `synth.json` / `synth.md`
/// there (entries of other blocks, presets and targets are kept).
pub fn run(opts: &Options) -> Result<(), SynthError> {
    let all = BlockConfig::presets(&opts.block).map_err(|e| SynthError::Input(e.0))?;
    if opts.seeds == 0 {
        return Err(SynthError::Input("--seeds must be at least 1".into()));
    }
    let presets: Vec<String> = if opts.presets.is_empty() {
        all.iter().map(|s| s.to_string()).collect()
    } else {
        opts.presets.clone()
    };
    for p in &presets {
        BlockConfig::preset(&opts.block, p).map_err(|e| SynthError::Input(e.0))?;
    }
    let mut entries = Vec::new();
    let mut ecp5_entries = Vec::new();
    for p in &presets {
        let (tools, block, seeds, out) = (&opts.tools, &opts.block, opts.seeds, &opts.out);
        match opts.target {
            Target::Ice40 => entries.push(run_preset(tools, block, p, seeds, out)?),
            Target::Ecp5 => ecp5_entries.push(ecp5::run_preset(tools, block, p, seeds, out)?),
        }
    }
    if let Some(dir) = &opts.report {
        let json_path = dir.join("synth.json");
        let mut report = match std::fs::read_to_string(&json_path) {
            Ok(text) => serde_json::from_str::<Report>(&text).unwrap_or_else(|e| {
                eprintln!(
                    "warning: {}: unreadable ({e}); starting a new report",
                    json_path.display()
                );
                empty_report()
            }),
            Err(_) => empty_report(),
        };
        report.entries.retain(|e| {
            !entries
                .iter()
                .any(|n| n.block == e.block && n.preset == e.preset)
        });
        report.entries.extend(entries);
        report.entries.sort_by_key(|e| order(&e.block, &e.preset));
        report.ecp5.retain(|e| {
            !ecp5_entries
                .iter()
                .any(|n| n.block == e.block && n.preset == e.preset)
        });
        report.ecp5.extend(ecp5_entries);
        report.ecp5.sort_by_key(|e| order(&e.block, &e.preset));
        match opts.target {
            Target::Ice40 => report.tools = opts.tools.versions(),
            Target::Ecp5 => report.ecp5_tools = opts.tools.ecp5_versions(),
        }
        report.date = today();
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, "cannot create", e))?;
        let json = serde_json::to_string_pretty(&report).expect("report serializes") + "\n";
        write_file(&json_path, &json)?;
        let md_path = dir.join("synth.md");
        write_file(&md_path, &markdown(&report))?;
        println!("report: {} and {}", md_path.display(), json_path.display());
    }
    Ok(())
}

/// Renders `<dir>/synth.md` again from `<dir>/synth.json`, running no tool.
pub fn render(dir: &Path) -> Result<(), SynthError> {
    let json_path = dir.join("synth.json");
    let text = read_file(&json_path)?;
    let report: Report = serde_json::from_str(&text).map_err(|e| SynthError::Io {
        path: json_path.clone(),
        detail: format!("not a synthesis report: {e}"),
    })?;
    let md_path = dir.join("synth.md");
    write_file(&md_path, &markdown(&report))?;
    println!("report: {}", md_path.display());
    Ok(())
}

fn empty_report() -> Report {
    Report {
        device: DEVICE.into(),
        target_mhz: TARGET_MHZ,
        tools: BTreeMap::new(),
        date: String::new(),
        entries: Vec::new(),
        ecp5: Vec::new(),
        ecp5_tools: BTreeMap::new(),
    }
}

/// Report order: blocks as the registry lists them, presets as the block lists them.
fn order(block: &str, preset: &str) -> (usize, usize) {
    let b = crate::blocks::stems()
        .position(|x| x == block)
        .unwrap_or(usize::MAX);
    let p = BlockConfig::presets(block)
        .ok()
        .and_then(|ps| ps.iter().position(|x| *x == preset))
        .unwrap_or(usize::MAX);
    (b, p)
}

fn pct(used: u64, avail: u64) -> String {
    match (100 * used + avail / 2).checked_div(avail) {
        Some(p) => format!("{p}%"),
        None => "-".into(),
    }
}

/// The Markdown report.
pub fn markdown(r: &Report) -> String {
    let mut s = String::new();
    s += "# FPGA synthesis report\n\n\
          Generated by `switchcraft synth`; do not edit. Regenerate with `make synth` (every \
          block and preset) or `make synth BLOCK=<b>`, and the ECP5 rows with `make synth \
          TARGET=ecp5`. Machine-readable: `synth.json`. The flow is described in \
          docs/architecture.md (\"Synthesis\").\n\n";
    s += &format!("- Date of this report: {}\n", r.date);
    s += "- Tools:";
    for (k, v) in &r.tools {
        s += &format!(" {k}: `{v}`;");
    }
    s.pop();
    s += "\n";
    if !r.ecp5_tools.is_empty() {
        s += "- ECP5 tools (YoWASP builds from PyPI, `make ecp5-tools`):";
        for (k, v) in &r.ecp5_tools {
            s += &format!(" {k}: `{v}`;");
        }
        s.pop();
        s += "\n";
    }
    s += &format!(
        "- Device: {} (iCE40-HX8K Breakout Board), constraints `{ICE40_CONSTRAINTS}/` \
         (`pins.pcf`, `clocks.py`: `clk` at {} MHz).\n",
        r.device, r.target_mhz
    );
    s += "- Resource columns are the **core top alone** (`<b>_<preset>_top`, yosys \
          `synth_ice40`, then `stat`). Fmax is post-route (nextpnr-ice40 `--hx8k --package \
          ct256`, `--timing-allow-fail`) of the pin-light wrapper `<instance>_synth_top` around \
          the core, median over the seeds; the wrapper's own cells are listed separately.\n\n";
    let mut blocks: Vec<&str> = r.entries.iter().map(|e| e.block.as_str()).collect();
    blocks.extend(r.ecp5.iter().map(|e| e.block.as_str()));
    blocks.sort_by_key(|b| order(b, ""));
    blocks.dedup();
    for b in blocks {
        let es: Vec<&Entry> = r.entries.iter().filter(|e| e.block == b).collect();
        let ecp5_es: Vec<&ecp5::Entry> = r.ecp5.iter().filter(|e| e.block == b).collect();
        s += &format!(
            "## {b}\n\n### iCE40HX8K: resources of the core, Fmax of the wrapped core\n\n"
        );
        s += "| preset | LUT4 | DFF | carry | BRAM (SB_RAM40_4K) | memory bits | fits HX8K | \
              Fmax median (MHz) | Fmax per seed (MHz) | clock target met | date |\n\
              |---|---|---|---|---|---|---|---|---|---|---|\n";
        for e in &es {
            let c = &e.ice40;
            let (fit, med, seeds, met) = match &e.pnr {
                Some(p) => {
                    let lc = p.utilisation.get("ICESTORM_LC").copied().unwrap_or((0, 0));
                    (
                        format!("yes, {} of LCs", pct(lc.0, lc.1)),
                        format!("{:.2}", p.fmax_median_mhz),
                        p.seeds
                            .iter()
                            .map(|x| format!("{:.2}", x.fmax_mhz))
                            .collect::<Vec<_>>()
                            .join(" / "),
                        if p.target_met { "met" } else { "**not met**" }.to_string(),
                    )
                }
                None => (
                    format!("no ({})", e.fit_reason),
                    "-".into(),
                    "-".into(),
                    "- (synthesis only)".into(),
                ),
            };
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {fit} | {med} | {seeds} | {met} | {} |\n",
                e.preset, c.lut4, c.dff, c.carry, c.bram, c.memory_bits, e.date
            );
        }
        s += "\nCritical path (post-route, median seed) and wrapper cost. The wrapper is \
              `sin` -> input chain -> every core input; every core output -> capture register \
              -> output chain -> `sout`; its cells are the wrapped design minus the core (both \
              `synth_ice40`). Constant core outputs (unused padding bits) need no capture \
              register, so the wrapper's DFF count is below input bits + 2 x output bits. The LUT4 \
              difference can be negative: ABC maps the wrapped design and the core alone \
              separately and its heuristics do not always find the same cover.\n\n\
              | preset | critical path: first net -> last net (nets on the path) | wrapper: input bits / \
              output bits | + LUT4 | + DFF | + carry | + BRAM | place and route: seconds per seed |\n\
              |---|---|---|---|---|---|---|---|\n";
        for e in &es {
            let Some(w) = &e.wrapper else {
                s += &format!(
                    "| {} | - | not built: the core alone does not fit | - | - | - | - | - |\n",
                    e.preset
                );
                continue;
            };
            let (path, secs) = match &e.pnr {
                Some(p) => (
                    p.critical_path
                        .as_ref()
                        .map(|(a, z, n)| format!("`{a}` -> `{z}` ({n})"))
                        .unwrap_or_else(|| "-".into()),
                    p.seeds
                        .iter()
                        .map(|x| format!("{:.0}", x.seconds))
                        .collect::<Vec<_>>()
                        .join(" / "),
                ),
                None => ("-".into(), "-".into()),
            };
            s += &format!(
                "| {} | {path} | {} / {} | {} | {} | {} | {} | {secs} |\n",
                e.preset, w.input_chain_bits, w.output_bits, w.lut4, w.dff, w.carry, w.bram
            );
        }
        s += "\n";
        if !ecp5_es.is_empty() {
            s += &ecp5::markdown(&ecp5_es);
        }
        s += "### Synthesis-only estimate: Xilinx 7-series (yosys `synth_xilinx -family xc7`)\n\n\
              Not placed or routed; no timing. The core top alone, flattened, without I/O \
              buffers. LUT counts LUT1-LUT6 and INV; LUT as RAM counts the LUTs of distributed \
              RAM cells.\n\n\
              | preset | LUT | LUT as RAM | FF | CARRY4 | RAMB18 | memory bits |\n\
              |---|---|---|---|---|---|---|\n";
        for e in &es {
            let x = &e.xilinx_estimate;
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                e.preset, x.lut, x.lut_as_ram, x.ff, x.carry4, x.bram18, x.memory_bits
            );
        }
        s += &line_rate(b, &es, &ecp5_es);
        // What a key is (a (port, priority), a flow-table entry) is the block's to say.
        let key = crate::blocks::find(b).map_or("key", |d| d.key_name());
        s += &format!(
            "\n### State bits per {key}\n\n\
             Measured: every DFF of the core (`synth_ice40`) plus every memory bit, over the \
             config's {key} count; an upper bound, since pipeline, CSR and output registers \
             count too. Architectural: the storage the design allocates per key, on the FPGA \
             targets and (per physical key, beside per-port state) on `asic`, whose memories \
             hold exactly their architectural bits; the last column compares that with the \
             spec's fields at the config's widths (fewer: other fields, fewer bits).\n\n\
             | preset | {key} count | physical keys | measured DFF + memory bits | measured \
             per key | architectural per key | spec estimate per key | within spec | asic per \
             physical key | asic = spec |\n\
             |---|---|---|---|---|---|---|---|---|---|\n"
        );
        for e in &es {
            let t = &e.state_bits;
            let (spec, within) = match t.spec_per_key {
                Some(v) => (
                    v.to_string(),
                    if t.measured_per_key <= v as f64 {
                        "yes"
                    } else {
                        "**no**"
                    },
                ),
                None => ("-".into(), "-"),
            };
            let (asic, asic_eq) = match (t.asic_per_physical_key, t.spec_per_key) {
                (Some(a), Some(v)) => (
                    a.to_string(),
                    match a.cmp(&v) {
                        std::cmp::Ordering::Equal => "yes",
                        std::cmp::Ordering::Less => "fewer",
                        std::cmp::Ordering::Greater => "**no**",
                    },
                ),
                (Some(a), None) => (a.to_string(), "-"),
                (None, _) => ("-".into(), "-"),
            };
            s += &format!(
                "| {} | {} | {} | {} | {:.1} | {:.1} | {spec} | {within} | {asic} | {asic_eq} |\n",
                e.preset,
                t.keys,
                t.physical_keys,
                t.measured_bits,
                t.measured_per_key,
                t.architectural_per_key,
            );
        }
        s += "\n";
        for e in &es {
            s += &format!(
                "- {}: {}. Spec: {}.\n",
                e.preset, e.state_bits.architecture, e.state_bits.spec_note
            );
        }
        s += "\n";
        let total: f64 = es.iter().map(|e| e.seconds).sum();
        s += &format!(
            "Flow time for these presets: {total:.0} s ({}).\n\n",
            es.iter()
                .map(|e| format!("{} {:.0} s", e.preset, e.seconds))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    s += "## How to reproduce\n\n\
          ```sh\n\
          make synth              # every block of `switchcraft list`, every preset (runs make build first)\n\
          make synth BLOCK=pfc    # one block\n\
          target/release/switchcraft synth --block pfc --preset fpga --seeds 3 --out target/synth\n\
          ```\n\n\
          Per preset, `target/synth/<instance>/` holds the yosys scripts (`*.ys`) and logs, the \
          generated wrapper, the netlist `wrapped.json`, one nextpnr log and `.asc` per seed and \
          the bitstream `<instance>_synth_top.bin`.\n";
    s
}

/// Bits on the wire per 64-byte frame: the frame, its 8-byte preamble and the 12-byte gap.
const WIRE_BITS_64B: f64 = ((64 + 8 + 12) * 8) as f64;

/// The table users ask for first: per preset and target, the clock, the packet rate it
/// sustains at one packet per cycle, state per key and each output's latency.
fn line_rate(block: &str, ice40: &[&Entry], ecp5: &[&ecp5::Entry]) -> String {
    let Ok(desc) = crate::blocks::find(block) else {
        return String::new();
    };
    let key = desc.key_name();
    let bus = desc.packet_bus();
    let presets = BlockConfig::presets(block).unwrap_or(&[]);
    let Ok(configs) = presets
        .iter()
        .map(|p| BlockConfig::preset(block, p))
        .collect::<Result<Vec<_>, _>>()
    else {
        return String::new();
    };
    let stream = configs.iter().any(|c| c.stream_bits().is_some());
    let rate_text = if stream {
        "One beat of the AXI-Stream per cycle on RX and on TX, so the stream moves data bits x \
         Fmax: that is the link rate it keeps up with, whatever the frame size (the wire adds \
         preamble and gap, the stream does not); Mpps counts 64-byte frames on such a link (84 \
         bytes each on the wire)."
            .to_string()
    } else {
        format!(
            "One packet per cycle (one `{bus}` event, II = 1), so Mpps = Fmax in MHz; Gb/s is \
             that rate of 64-byte frames on the wire (84 bytes each with preamble and gap: \
             148.8 Mpps is 100 Gb/s)."
        )
    };
    let gbps_heading = if stream {
        "link Gb/s (data bits x Fmax)"
    } else {
        "Gb/s of 64-byte frames"
    };
    let mut s = format!(
        "### Line rate, state per {key} and latency\n\n\
         {rate_text} Physical bits: every flip-flop plus every memory bit of the core on that \
         target, over the {key} count (an upper bound: pipeline, CSR and output registers count \
         too); architectural: the storage the design allocates. Latency: edges from the \
         sampling edge to each output bus (at the earliest, where an arbiter may add more).\n\n\
         | preset | target | Fmax median (MHz) | Mpps | {gbps_heading} | physical bits \
         per {key} | architectural bits per {key} | output latency (edges) |\n\
         |---|---|---|---|---|---|---|---|\n"
    );
    for (preset, cfg) in presets.iter().zip(&configs) {
        let latency = cfg
            .schema()
            .output_buses()
            .into_iter()
            .filter_map(|(bus, l)| l.map(|l| format!("`{bus}` {l}")))
            .collect::<Vec<_>>()
            .join(", ");
        let rows = ice40
            .iter()
            .filter(|e| e.preset == *preset)
            .map(|e| {
                (
                    "iCE40 HX8K",
                    e.pnr.as_ref().map(|p| p.fmax_median_mhz),
                    Some(&e.state_bits),
                )
            })
            .chain(ecp5.iter().filter(|e| e.preset == *preset).map(|e| {
                (
                    "ECP5-85F",
                    e.pnr.as_ref().map(|p| p.fmax_median_mhz),
                    e.state_bits.as_ref(),
                )
            }));
        for (target, fmax, bits) in rows {
            let (mhz, mpps, gbps) = match (fmax, cfg.stream_bits()) {
                (Some(f), Some(bits)) => {
                    let gbps = f * f64::from(bits) / 1000.0;
                    (
                        format!("{f:.2}"),
                        format!("{:.1}", gbps * 1000.0 / WIRE_BITS_64B),
                        format!("{gbps:.1}"),
                    )
                }
                (Some(f), None) => (
                    format!("{f:.2}"),
                    format!("{f:.1}"),
                    format!("{:.1}", f * WIRE_BITS_64B / 1000.0),
                ),
                (None, _) => ("does not fit".into(), "-".into(), "-".into()),
            };
            let (physical, architectural) = bits.map_or(("-".into(), "-".into()), |b| {
                (
                    format!("{:.1}", b.measured_per_key),
                    format!("{:.1}", b.architectural_per_key),
                )
            });
            s += &format!(
                "| {preset} | {target} | {mhz} | {mpps} | {gbps} | {physical} | {architectural} \
                 | {latency} |\n"
            );
        }
    }
    s
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock (no date crate needed).
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar: count in
/// 400-year eras (146 097 days), years starting on 1 March so the leap day comes last.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468; // days since 0000-03-01
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // day of era, 0..=146096
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // year of era
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of year, from 1 March
    let mp = (5 * doy + 2) / 153; // month from March = 0
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = (if mp < 10 { mp + 3 } else { mp - 9 }) as u32;
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0]), 2.5);
    }
}
