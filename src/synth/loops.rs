//! `switchcraft synth --loops`: how fast a block's one-cycle recurrence can run on each device,
//! measured on the recurrence alone (issue 29's evidence for targets a block misses).
//!
//! A block that accepts an event per cycle on every key (II = 1, back-to-back events on one
//! key exact) has loops whose result is the next event's operand: no pipeline stage can be put
//! inside them. The kernels in `loops/` are such a loop and nothing else, hand-written in a few
//! forms; tests/<block>_loops.rs checks each against the golden model. Each goes through the
//! same flows as the blocks, inside the same pin-light wrapper ([`super::wrapper`]): iCE40 HX8K
//! place and route and ECP5-85F out of context, three seeds each, median Fmax. Where even the
//! kernel misses a target, the block cannot meet it with that loop form on that device.
//!
//! Results go to `<out>/loops/<module>/` and `docs/reports/loops.md`.

use super::{ecp5, io_error, place_route, synth_ice40, write_file, SynthError, Tools};
use super::{Manifest, PnrLog, ICE40_CONSTRAINTS};
use std::path::Path;
use switchcraft_core::Port;

/// Where a kernel's Verilog comes from.
pub enum Source {
    /// A hand-written file in `loops/`, checked against the model by tests/<block>_loops.rs.
    File(&'static str),
    /// A block's own loop sub-block from crates/rtl, exported as the named module (checked by
    /// the block's co-simulation, as part of the block).
    Generated(fn(&str) -> String),
}

/// One kernel: a module, its ports and clock and reset names.
pub struct Kernel {
    pub source: Source,
    pub module: &'static str,
    pub clock: &'static str,
    pub reset: &'static str,
    /// Which loop of which block, and in what form.
    pub loop_name: &'static str,
    pub form: &'static str,
    pub ports: fn() -> Vec<Port>,
    /// Edges from an input's sampling edge to the loop register that shows its result (the
    /// hand-written kernels).
    pub latency: usize,
}

fn pfc_occupancy_pipeline_ports() -> Vec<Port> {
    let mut ports = Vec::new();
    for bus in ["enq", "deq"] {
        ports.push(Port::input(&format!("{bus}_valid"), 1, "event"));
        ports.push(Port::input(&format!("{bus}_key"), 5, "key"));
        ports.push(Port::input(&format!("{bus}_len"), 16, "length"));
    }
    ports.push(Port::input("max_next", 32, "limit after the edge"));
    for side in ["e", "d"] {
        ports.push(Port::output(&format!("{side}_valid"), 1, "event"));
        ports.push(Port::output(&format!("{side}_key"), 5, "key"));
        ports.push(Port::output(&format!("{side}_b1"), 32, "occupancy after"));
    }
    ports.push(Port::output("e_drop", 1, "dropped"));
    ports.push(Port::output("d_underflow", 1, "clamped"));
    ports.push(Port::output("same_key", 1, "one key"));
    ports
}

/// The hand-written PFC kernels' ports: counters of `w` bits, lengths of `l`, and with
/// `with_source` the looked-up value and whether the event's key is the last one's.
fn pfc_occupancy_ports(with_source: bool, w: u32, l: u32) -> Vec<Port> {
    let mut ports = vec![
        Port::input("e_len", l, "enqueue length"),
        Port::input("d_len", l, "dequeue length"),
        Port::input("max", w, "occupancy limit"),
    ];
    if with_source {
        ports.push(Port::input(
            "same_as_last",
            1,
            "the event's key is the last event's",
        ));
        ports.push(Port::input("looked_up", w, "the key's stored value"));
    }
    ports.push(Port::output("occ", w, "occupancy after the pair"));
    ports.push(Port::output("drop", 1, "the enqueue was dropped"));
    ports.push(Port::output("underflow", 1, "the dequeue was clamped"));
    ports
}

/// The two-bus PFC kernels' ports: keys of `kb` bits, counters of `w`, lengths of `l`.
fn pfc_two_bus_ports(w: u32, l: u32, kb: u32) -> Vec<Port> {
    let mut ports = Vec::new();
    for (bus, what) in [("e", "enqueue"), ("d", "dequeue")] {
        ports.push(Port::input(&format!("{bus}_valid"), 1, what));
        ports.push(Port::input(&format!("{bus}_key"), kb, "its key"));
        ports.push(Port::input(&format!("{bus}_len"), l, "its length"));
    }
    ports.push(Port::input("max", w, "occupancy limit"));
    ports.push(Port::input("e_looked_up", w, "the memory's value of e_key"));
    ports.push(Port::input("d_looked_up", w, "the memory's value of d_key"));
    ports.push(Port::output("e_occ", w, "e_key after the edge"));
    ports.push(Port::output("e_drop", 1, "the enqueue was dropped"));
    ports.push(Port::output("d_occ", w, "d_key after the dequeue"));
    ports.push(Port::output("d_underflow", 1, "the dequeue was clamped"));
    ports
}

const PFC_FPGA: &str = "PFC occupancy (`fpga`: 16-bit counter, 11-bit lengths)";
const PFC_PAPER: &str = "PFC occupancy (`paper`: 24-bit counter, 14-bit lengths)";
const BARE: &str = "bare: one key, the operand is the loop register";
const SELECT: &str = "select: loop register or looked-up value, 2:1 before the carry chains";
const TWO_BUS_SELECT: &str = "two buses, select: operand from either bus's last result or the \
                              memory (AND-OR of three) before the chains";
const TWO_BUS_SPECULATED: &str = "two buses, speculated: chains from each bus's last result, \
                                  the memory's result a stage early, chosen after the chains";
const TWO_BUS_FORWARDED: &str = "two buses, forwarded: each operand register loaded with what \
                                 the next event needs, the choice merged with the result's";
const SPECULATED: &str = "speculated: the looked-up value's result a stage early, the loop's \
                          chains fed by the loop register alone, 2:1 after them";

/// A hand-written kernel of loops/pfc_occupancy.v.
const fn pfc_kernel(
    module: &'static str,
    loop_name: &'static str,
    form: &'static str,
    ports: fn() -> Vec<Port>,
    latency: usize,
) -> Kernel {
    Kernel {
        source: Source::File("loops/pfc_occupancy.v"),
        module,
        clock: "clk",
        reset: "rst",
        loop_name,
        form,
        ports,
        latency,
    }
}

fn bfc_search_ports() -> Vec<Port> {
    vec![
        Port::input("a_valid", 1, "an arrival needs a new queue"),
        Port::input("a_class", 8, "its class's data queues"),
        Port::input("d_valid", 1, "a departure empties a queue"),
        Port::input("d_q", 3, "that queue"),
        Port::output("found", 1, "an empty queue of the class was found"),
        Port::output("q", 3, "the queue found"),
        Port::output("start", 3, "the rotating start after the edge"),
    ]
}

const BFC_FPGA: &str = "BFC queue search (`fpga`: 8 queues, one egress port)";

pub const KERNELS: [Kernel; 12] = [
    pfc_kernel(
        "pfc_occupancy_loop_bare",
        PFC_FPGA,
        BARE,
        || pfc_occupancy_ports(false, 16, 11),
        2,
    ),
    pfc_kernel(
        "pfc_occupancy_loop_select",
        PFC_FPGA,
        SELECT,
        || pfc_occupancy_ports(true, 16, 11),
        2,
    ),
    pfc_kernel(
        "pfc_occupancy_loop_speculated",
        PFC_FPGA,
        SPECULATED,
        || pfc_occupancy_ports(true, 16, 11),
        3,
    ),
    pfc_kernel(
        "pfc_occupancy_loop_two_bus_select",
        PFC_FPGA,
        TWO_BUS_SELECT,
        || pfc_two_bus_ports(16, 11, 2),
        2,
    ),
    pfc_kernel(
        "pfc_occupancy_loop_two_bus_speculated",
        PFC_FPGA,
        TWO_BUS_SPECULATED,
        || pfc_two_bus_ports(16, 11, 2),
        3,
    ),
    pfc_kernel(
        "pfc_occupancy_loop_two_bus_forwarded",
        PFC_FPGA,
        TWO_BUS_FORWARDED,
        || pfc_two_bus_ports(16, 11, 2),
        2,
    ),
    Kernel {
        source: Source::Generated(|name| {
            switchcraft_rtl::pfc::occupancy_pipeline::fpga_verilog(
                name,
                switchcraft_rtl::tech::Tech::Ice40,
            )
        }),
        module: "pfc_occupancy_pipeline",
        clock: "clock",
        reset: "reset",
        loop_name: PFC_FPGA,
        form: "the block's: `PipelinedOccupancy` of crates/rtl with its RAMs, 32 keys, two \
               buses, its loop of two cycles by look-ahead (tests and sums, then the selection)",
        ports: pfc_occupancy_pipeline_ports,
        latency: 0,
    },
    pfc_kernel(
        "pfc_occupancy_loop_bare_paper",
        PFC_PAPER,
        BARE,
        || pfc_occupancy_ports(false, 24, 14),
        2,
    ),
    pfc_kernel(
        "pfc_occupancy_loop_select_paper",
        PFC_PAPER,
        SELECT,
        || pfc_occupancy_ports(true, 24, 14),
        2,
    ),
    pfc_kernel(
        "pfc_occupancy_loop_speculated_paper",
        PFC_PAPER,
        SPECULATED,
        || pfc_occupancy_ports(true, 24, 14),
        3,
    ),
    Kernel {
        source: Source::File("loops/bfc_search.v"),
        module: "bfc_search_loop",
        clock: "clk",
        reset: "rst",
        loop_name: BFC_FPGA,
        form: "index: the class's empty queues at or after the rotating start by a mask made \
               from it, one lowest-bit search (x & -x) on the chosen set; the queue found \
               leaves the empty set and moves the start",
        ports: bfc_search_ports,
        latency: 1,
    },
    Kernel {
        source: Source::File("loops/bfc_search.v"),
        module: "bfc_search_loop_thermometer",
        clock: "clk",
        reset: "rst",
        loop_name: BFC_FPGA,
        form: "thermometer: the start kept as a mask of the queues at or after it, both \
               searches in parallel and chosen after them, the next mask a prefix OR",
        ports: bfc_search_ports,
        latency: 1,
    },
];

/// One device's result for one kernel.
#[derive(Clone, Debug)]
pub struct DeviceResult {
    /// LUT4, flip-flops and carry cells of the wrapped kernel.
    pub cells: (u64, u64, u64),
    pub fmax_per_seed: Vec<f64>,
    pub median: f64,
    /// The median seed's critical path: (first net, last net, nets), and its logic and routing
    /// delay in ns.
    pub path: Option<(String, String, usize)>,
    pub delays: Option<(f64, f64)>,
}

/// "X ns logic, Y ns routing" of the first timing report after routing: the clock's own path.
pub fn logic_and_routing(log: &str) -> Option<(f64, f64)> {
    let routed = log.find("Routing complete")?;
    let line = log[routed..].lines().find(|l| l.contains(" ns logic, "))?;
    let numbers: Vec<f64> = line
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|s| s.parse().ok())
        .collect();
    match numbers[..] {
        [logic, routing, ..] => Some((logic, routing)),
        _ => None,
    }
}

fn device_result(cells: (u64, u64, u64), runs: Vec<(super::SeedRun, PnrLog)>) -> DeviceResult {
    let fmax_per_seed: Vec<f64> = runs.iter().map(|(r, _)| r.fmax_mhz).collect();
    let (med, (run, parsed)) = super::median_run(&runs);
    let log = std::fs::read_to_string(&run.log).unwrap_or_default();
    DeviceResult {
        cells,
        median: med,
        fmax_per_seed,
        path: parsed.critical_path.clone(),
        delays: logic_and_routing(&log),
    }
}

/// Both flows on one kernel.
fn run_kernel(
    tools: &Tools,
    k: &Kernel,
    seeds: u32,
    out: &Path,
) -> Result<(DeviceResult, DeviceResult), SynthError> {
    let dir = out.join("loops").join(k.module);
    std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, "cannot create", e))?;
    let source = match k.source {
        Source::File(file) => std::fs::read_to_string(file).map_err(|e| {
            io_error(
                Path::new(file),
                "cannot read (run from the repository root)",
                e,
            )
        })?,
        Source::Generated(verilog) => verilog(k.module),
    };
    let manifest = Manifest {
        instance: k.module.to_string(),
        top: k.module.to_string(),
        clock: k.clock.into(),
        reset: k.reset.into(),
        ports: (k.ports)(),
    };
    let wrapper = super::wrapper(&manifest)?;
    // One file holding the kernel and its wrapper: the ECP5 flow reads one source.
    let wrapped = dir.join("wrapped.v");
    write_file(&wrapped, &format!("{source}\n{}", wrapper.verilog))?;
    let say = |msg: String| println!("{}: {msg}", k.module);

    let r = synth_ice40(
        tools,
        std::slice::from_ref(&wrapped),
        &wrapper.module,
        &dir,
        "wrapped",
        true,
    )?;
    let mut runs = Vec::new();
    for seed in 1..=seeds {
        let run =
            place_route(tools, &dir, Path::new(ICE40_CONSTRAINTS), seed)?.ok_or_else(|| {
                SynthError::Input(format!("{}: does not fit the iCE40 HX8K", k.module))
            })?;
        say(format!("iCE40 seed {seed}: {:.2} MHz", run.0.fmax_mhz));
        runs.push(run);
    }
    let ice40 = device_result((r.lut4, r.dff, r.carry), runs);

    let r = ecp5::synth_ecp5(tools, &wrapped, &wrapper.module, &dir)?;
    let mut runs = Vec::new();
    for seed in 1..=seeds {
        let run = ecp5::place_route(tools, &dir, seed)?
            .ok_or_else(|| SynthError::Input(format!("{}: does not fit the ECP5-85F", k.module)))?;
        say(format!("ECP5 seed {seed}: {:.2} MHz", run.0.fmax_mhz));
        runs.push(run);
    }
    let ecp5 = device_result((r.lut4, r.ff, r.carry), runs);
    Ok((ice40, ecp5))
}

/// The kernels named in `only` (by module), or every kernel when it is empty; an unknown name
/// is an input error that lists the known ones.
pub fn select(only: &[String]) -> Result<Vec<&'static Kernel>, SynthError> {
    if only.is_empty() {
        return Ok(KERNELS.iter().collect());
    }
    only.iter()
        .map(|name| {
            KERNELS.iter().find(|k| k.module == name).ok_or_else(|| {
                let known: Vec<&str> = KERNELS.iter().map(|k| k.module).collect();
                SynthError::Input(format!(
                    "--kernel {name}: no such kernel (known: {})",
                    known.join(", ")
                ))
            })
        })
        .collect()
}

/// Runs `kernels` on both devices and writes `<report>/loops.md`.
pub fn run(
    tools: &Tools,
    kernels: &[&'static Kernel],
    seeds: u32,
    out: &Path,
    report: &Path,
) -> Result<(), SynthError> {
    if seeds == 0 {
        return Err(SynthError::Input("--seeds must be at least 1".into()));
    }
    let mut results = Vec::new();
    for &k in kernels {
        results.push((k, run_kernel(tools, k, seeds, out)?));
    }
    std::fs::create_dir_all(report).map_err(|e| io_error(report, "cannot create", e))?;
    let path = report.join("loops.md");
    write_file(&path, &markdown(tools, &results))?;
    println!("report: {}", path.display());
    Ok(())
}

fn cell(r: &DeviceResult, target: f64) -> String {
    let seeds: Vec<String> = r.fmax_per_seed.iter().map(|f| format!("{f:.2}")).collect();
    let met = if r.median >= target {
        "met"
    } else {
        "**not met**"
    };
    let delays = r
        .delays
        .map(|(l, rt)| format!("{l:.1} + {rt:.1}"))
        .unwrap_or_else(|| "-".into());
    let path = r
        .path
        .as_ref()
        .map(|(a, b, n)| format!("`{a}` -> `{b}` ({n})"))
        .unwrap_or_else(|| "-".into());
    format!(
        "{} / {} / {} | {} | {:.2} | {met} | {delays} | {path}",
        r.cells.0,
        r.cells.1,
        r.cells.2,
        seeds.join(" / "),
        r.median
    )
}

fn markdown(tools: &Tools, results: &[(&Kernel, (DeviceResult, DeviceResult))]) -> String {
    let versions = |v: std::collections::BTreeMap<String, String>| {
        v.iter()
            .map(|(k, v)| format!("{k}: `{v}`"))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut s = format!(
        "# Recurrence bounds: each block's one-cycle loop alone\n\n\
         Generated by `switchcraft synth --loops` (`make loops`); do not edit. The kernels are \
         hand-written in `loops/` and checked against the golden model by \
         `tests/<block>_loops.rs`; what they show is discussed in docs/architecture.md \
         (\"Synthesis\", recurrence bounds).\n\n\
         - Date: {date}\n- iCE40 tools: {ice}\n- ECP5 tools: {ecp}\n\n\
         Each kernel is the loop and its input registers in the pin-light wrapper of the \
         blocks' flow (shift chains to five pins), alone on the device: iCE40HX8K-CT256 \
         (nextpnr-ice40, `clk` constrained to {ice_mhz} MHz) and LFE5U-85F speed grade 6 \
         (nextpnr-ecp5 out of context, {ecp_mhz} MHz), seeds 1-{n}, median. Cells are the \
         wrapped kernel's (LUT4 / flip-flops / carry: SB_CARRY on the iCE40, CCU2C on the \
         ECP5). Delays: logic + routing in ns of the median seed's critical path.\n\n\
         | loop | form | iCE40 cells | iCE40 Fmax per seed (MHz) | median | 100 MHz | ns | \
         iCE40 critical path (nets) | ECP5 cells | ECP5 Fmax per seed (MHz) | median | 150 MHz \
         | ns | ECP5 critical path (nets) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        date = super::today(),
        ice = versions(tools.versions()),
        ecp = versions(tools.ecp5_versions()),
        ice_mhz = super::TARGET_MHZ,
        ecp_mhz = ecp5::TARGET_MHZ,
        n = results
            .first()
            .map(|(_, (r, _))| r.fmax_per_seed.len())
            .unwrap_or(0),
    );
    for (k, (ice40, ecp)) in results {
        s += &format!(
            "| {} | {} (`{}`) | {} | {} |\n",
            k.loop_name,
            k.form,
            k.module,
            cell(ice40, super::TARGET_MHZ),
            cell(ecp, ecp5::TARGET_MHZ)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logic_and_routing_is_read_after_routing() {
        let log = "Info: 9.9 ns logic, 9.9 ns routing\nInfo: Routing complete.\n\
                   Info: Critical path report for clock 'clk' (posedge -> posedge):\n\
                   Info: 5.0 ns logic, 7.4 ns routing\nInfo: 0.5 ns logic, 1.9 ns routing\n";
        assert_eq!(logic_and_routing(log), Some((5.0, 7.4)));
        assert_eq!(
            logic_and_routing("Info: 1.0 ns logic, 2.0 ns routing\n"),
            None
        );
    }

    #[test]
    fn every_kernel_names_a_file_and_ports_with_outputs() {
        for k in &KERNELS {
            if let Source::File(file) = k.source {
                let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
                assert!(path.is_file(), "{file}");
            }
            let ports = (k.ports)();
            assert!(ports.iter().any(|p| p.dir == switchcraft_core::Dir::Out));
            assert!(ports.iter().any(|p| p.dir == switchcraft_core::Dir::In));
        }
    }
}
