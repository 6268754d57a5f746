//! Throughput of each block's golden model, of Verilator co-simulation with per-cycle comparison,
//! and (PFC) of rust-hdl's own simulator, on the same seeded stimulus (pre-generated, so the
//! workload generator is not timed), for each block's bench presets (its descriptor's
//! `bench_presets`: `tiny` and `paper`, or `tiny` and `fpga` where `paper` takes long to
//! verilate). Writes docs/reports/bench.md.
//!
//! Run: `make bench` (or `cargo bench --bench throughput`). Targets (issue 2): model >= 5e7
//! cycles/s and co-simulation >= 1e7 cycles/s on `tiny`. `cargo bench --bench throughput --
//! pfc capfc/tiny` measures only the rows named (block, or block/preset) and prints them
//! without writing the report.

use std::fmt::Write as _;
use std::time::Instant;
use switchcraft::{BlockConfig, REGISTRY};
use switchcraft_sim::{CosimOptions, VecStimulus};

const SEED: u64 = 1;

fn rows(cfg: &BlockConfig, n: usize) -> Vec<Vec<u64>> {
    let mut gen = cfg.workload(SEED);
    (0..n)
        .map(|_| {
            let mut v = vec![0; cfg.schema().inputs().count()];
            gen(&mut v);
            v
        })
        .collect()
}

/// Rates of repeated runs, in cycles per second: the best and the median.
#[derive(Clone, Copy)]
struct Rate {
    best: f64,
    median: f64,
}

impl Rate {
    fn of(mut rates: Vec<f64>) -> Rate {
        rates.sort_by(f64::total_cmp);
        Rate {
            best: rates[rates.len() - 1],
            median: rates[rates.len() / 2],
        }
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{:.2e} ({:.2e})", self.best, self.median)
    }
}

/// `runs` timings of `f`, as cycles per second.
fn timed(runs: usize, cycles: usize, mut f: impl FnMut()) -> Rate {
    Rate::of(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                cycles as f64 / t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

const RUNS: usize = 5;
/// The model's runs take tens of milliseconds each, so they can afford more repeats, which
/// matter on a shared virtual machine whose speed drifts over seconds.
const MODEL_RUNS: usize = 20;

fn main() {
    // Positional arguments select rows; cargo's own `--bench` flag is not one.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut table = String::from(
        "| block | preset | golden model | Verilator alone | co-simulation, per-cycle compare | rust-hdl simulator |\n|---|---|---|---|---|---|\n",
    );
    let rows_of_blocks = REGISTRY
        .iter()
        .flat_map(|b| b.bench_presets().iter().map(move |p| (b.stem(), *p)));
    for (block, preset) in rows_of_blocks {
        let row = format!("{block}/{preset}");
        if !only.is_empty() && !only.iter().any(|o| *o == block || *o == row) {
            continue;
        }
        let cfg = BlockConfig::preset(block, preset).unwrap();
        let n = 1_000_000;
        let stim = rows(&cfg, n);
        // The golden model alone, typed (no conversion from port values in the timed loop).
        let model_rate = Rate::of(cfg.model_rates(&stim, MODEL_RUNS));

        let pkg = cfg.package(preset, "bench");
        let mut rtl = switchcraft::verilate(&pkg, &cfg.schema(), false).unwrap();
        let mut cosim_rates = Vec::new();
        for _ in 0..RUNS {
            let mut s = VecStimulus::new(stim.clone());
            let opts = CosimOptions {
                max_cycles: n as u64,
                ..Default::default()
            };
            let report =
                switchcraft_sim::run(cfg.model().as_mut(), &mut rtl, &mut s, &opts).unwrap();
            assert!(report.passed(), "{report}");
            cosim_rates.push(report.cycles_per_second());
        }
        let cosim_rate = Rate::of(cosim_rates);

        // Verilator alone: the whole stimulus in one call, the fastest way the binding offers.
        let flat: Vec<u64> = stim.concat();
        let mut outs = vec![0u64; cfg.schema().outputs().count() * n];
        let rtl_rate = timed(RUNS, n, || {
            rtl.reset(2);
            rtl.step_rows(&flat, &mut outs);
        });

        // rust-hdl's own simulator, a reference where the block offers it (PFC).
        let m = 5_000;
        let hdl = match cfg.simulate_rust_hdl(2, &[]) {
            Some(_) => {
                let rate = timed(1, m, || {
                    std::hint::black_box(cfg.simulate_rust_hdl(2, &stim[..m]));
                });
                format!("{:.2e}", rate.best)
            }
            None => "-".to_string(),
        };
        println!("{block} {preset}: model {model_rate}, verilator {rtl_rate}, cosim {cosim_rate}, rust-hdl {hdl} cycles/s (best (median))");
        let _ = writeln!(
            table,
            "| {block} | {preset} | {model_rate} | {rtl_rate} | {cosim_rate} | {hdl} |"
        );
    }
    if !only.is_empty() {
        println!(
            "only {} measured: docs/reports/bench.md not written",
            only.join(", ")
        );
        return;
    }
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let verilator = std::process::Command::new("verilator")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let report = format!(
        "# Throughput benchmark\n\n\
         Generated by `make bench` (`cargo bench --bench throughput`, release build). Per block,\n\
         the same seeded stimulus for all three (workload seed {SEED}, pre-generated so the\n\
         generator is not timed): 1 000 000 cycles, {MODEL_RUNS} runs of the model and {RUNS} of Verilator alone\n\
         (`step_rows` over the whole stimulus) and of the co-simulation (every output compared every\n\
         cycle; stimulus and model on a second thread), one run of 5 000 cycles for rust-hdl's\n\
         simulator. Unit: cycles per second, best of the runs with the median in parentheses.\n\n\
         {table}\n\
         Targets (issue 2): model >= 5e7 cycles/s, co-simulation >= 1e7 cycles/s on `tiny`.\n\n\
         Machine: {cpu}, {cores} cores; {verilator}. Rates depend on the machine: on a shared\n\
         virtual machine the CPU time of one identical co-simulation run varies by up to 1.5x\n\
         from run to run, so compare rows of one report, not rows of reports from different days.\n"
    );
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reports/bench.md");
    std::fs::write(path, report).unwrap();
    println!("wrote {path}");
}
