//! Helpers shared by the tests: the equivalence opening (golden model vs exported Verilog under
//! Verilator, every output compared on every cycle) here, the CLI runner in [`cli`], the formal
//! flow in [`formal`], scratch directories in [`scratch`], a lossy PFC link in [`pause_link`]. Every file a test leaves for
//! inspection goes under cargo's `target/tmp/`.

#![allow(dead_code)]

pub mod cli;
pub mod formal;
pub mod lockstep;
pub mod pause_link;
pub mod pcap;
pub mod scratch;

use std::path::PathBuf;

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngSeed, TestCaseError, TestRunner};
use switchcraft::BlockConfig;
use switchcraft_sim::{CosimOptions, SeededStimulus, Stimulus, VecStimulus, VerilatedModel};

const DEFAULT_SEED: u64 = 0x5c_2026;

/// The seed of every random test: `SWITCHCRAFT_SEED`, or a fixed default.
pub fn seed() -> u64 {
    std::env::var("SWITCHCRAFT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED)
}

/// `target/tmp/<name>`: where tests leave files (mismatch waveforms, replay configs).
pub fn artefacts(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// A preset of `block`.
pub fn preset(block: &str, name: &str) -> BlockConfig {
    BlockConfig::preset(block, name).unwrap()
}

/// The `switchcraft cosim` arguments that name `cfg`: its preset, or a TOML file of it written
/// under `target/tmp/` so the printed replay command runs as printed.
pub fn cosim_target(cfg: &BlockConfig, name: &str) -> String {
    let block = cfg.block();
    match cfg.preset_name() {
        Some(p) => format!("--block {block} --preset {p}"),
        None => {
            let path = artefacts(&format!("sc-replay-{block}-{name}.toml"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, cfg.to_toml()).unwrap();
            format!("--block {block} --config {}", path.display())
        }
    }
}

/// Co-simulates `cycles` of a preset's seeded random workload (seed: [`seed`]).
pub fn preset_workload(block: &str, name: &str, cycles: u64) {
    random_workload(&preset(block, name), name, seed(), cycles);
}

/// `cfg` exported as instance `<block>_<name>` and verilated (cached by content).
pub fn verilated(cfg: &BlockConfig, name: &str) -> VerilatedModel {
    let pkg = cfg.package(name, "test");
    switchcraft::verilate(&pkg, &cfg.schema(), false).unwrap()
}

/// Co-simulates `cycles` of the block's seeded random workload; panics with the report, whose
/// replay command reruns it with `switchcraft cosim`.
pub fn random_workload(cfg: &BlockConfig, name: &str, seed: u64, cycles: u64) {
    let mut rtl = verilated(cfg, name);
    let mut stim = workload(cfg, seed, cycles);
    assert_cosim(
        cfg,
        &mut rtl,
        &mut stim,
        seed,
        cycles,
        &cosim_target(cfg, name),
        "eq",
    );
}

/// The block's seeded random workload as a stimulus of `cycles` rows.
pub fn workload(cfg: &BlockConfig, seed: u64, cycles: u64) -> impl Stimulus + Send + use<> {
    let c2 = cfg.clone();
    SeededStimulus::new(seed, cycles, move |s| c2.workload(s), |g, i| g(i))
}

/// Co-simulates `cycles` rows of `stim` on `rtl` against `cfg`'s model and panics with the
/// report unless every output matched; the report's replay is `switchcraft cosim <args>
/// --seed <seed> --cycles <cycles>`, mismatch waveforms go under `target/tmp/sc-<block>-<tag>-*`.
pub fn assert_cosim(
    cfg: &BlockConfig,
    rtl: &mut VerilatedModel,
    stim: &mut (dyn Stimulus + Send),
    seed: u64,
    cycles: u64,
    args: &str,
    tag: &str,
) {
    let opts = CosimOptions {
        max_cycles: cycles,
        seed: Some(seed),
        replay: Some(format!(
            "switchcraft cosim {args} --seed {seed} --cycles {cycles}"
        )),
        out_dir: artefacts(&format!("sc-{}-{tag}-{seed}", cfg.block())),
        ..Default::default()
    };
    let report = switchcraft_sim::run(cfg.model().as_mut(), rtl, stim, &opts).unwrap();
    assert!(report.passed(), "{report}");
    assert_eq!(
        report.cycles,
        cycles,
        "{}: the stimulus ended early",
        cfg.block()
    );
}

/// Runs `rows` on a fresh reset of both sides; Err describes the first mismatch.
pub fn check(
    cfg: &BlockConfig,
    rtl: &mut VerilatedModel,
    rows: Vec<Vec<u64>>,
    replay: &str,
) -> Result<(), String> {
    let cycles = rows.len() as u64;
    let mut stim = VecStimulus::new(rows);
    let opts = CosimOptions {
        max_cycles: cycles,
        seed: Some(seed()),
        replay: Some(format!("SWITCHCRAFT_SEED={} {replay}", seed())),
        out_dir: artefacts(&format!("sc-{}-check", cfg.block())),
        ..Default::default()
    };
    let report = switchcraft_sim::run(cfg.model().as_mut(), rtl, &mut stim, &opts)
        .map_err(|e| e.to_string())?;
    if report.passed() {
        Ok(())
    } else {
        Err(report.to_string())
    }
}

/// Proptest: random input sequences from `rows` (one `Vec<u64>` per cycle, schema input
/// order), shrunk to a minimal failing one; regressions in `proptest-regressions/<file>`.
pub fn proptest_equivalence(
    cfg: &BlockConfig,
    name: &str,
    test: &str,
    regressions: &'static str,
    rows: impl Strategy<Value = Vec<Vec<u64>>>,
) {
    let rtl = std::cell::RefCell::new(verilated(cfg, name));
    let seed = seed();
    let mut config = Config::with_cases(64);
    config.rng_seed = RngSeed::Fixed(seed);
    config.failure_persistence = Some(Box::new(FileFailurePersistence::Direct(regressions)));
    let mut runner = TestRunner::new(config);
    let replay = format!("cargo test --test {}_equivalence {test}", cfg.block());
    let result = runner.run(&rows, |rows| {
        check(cfg, &mut rtl.borrow_mut(), rows, &replay).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        panic!("{test}: seed {seed} (rerun with SWITCHCRAFT_SEED={seed}): {e}");
    }
}

/// A hand-written kernel of loops/ (`switchcraft synth --loops`), verilated and reset: its
/// entry, its ports and the model.
pub fn verilated_kernel(
    top: &str,
) -> (
    &'static switchcraft::synth::loops::Kernel,
    switchcraft_core::PortSchema,
    VerilatedModel,
) {
    use switchcraft::synth::loops::{Source, KERNELS};
    let k = KERNELS
        .iter()
        .find(|k| k.module == top)
        .expect("a kernel of loops/");
    let schema = switchcraft_core::PortSchema::new(top, (k.ports)());
    let Source::File(file) = k.source else {
        panic!("{top} is not a hand-written kernel");
    };
    let mut rtl = switchcraft_sim::build(
        std::path::Path::new(file),
        top,
        &schema,
        &switchcraft_sim::BuildOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{top}: {e}"));
    rtl.reset(2);
    (k, schema, rtl)
}
