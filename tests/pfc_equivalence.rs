//! PFC golden model vs its exported Verilog under Verilator: every output, every cycle.
//!
//! * long seeded runs of the block's random workload (`tiny`, `fpga`);
//! * proptest: short random event sequences, shrunk to a minimal failing one, regressions kept
//!   in `proptest-regressions/`; the seed comes from `SWITCHCRAFT_SEED` (default below) and is in
//!   every failure message;
//! * directed: both buses on one (port, priority) every cycle.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use switchcraft::BlockConfig;
use switchcraft_core::PortValues;
use switchcraft_model::pfc::{reg, PfcConfig, PfcIn};
use switchcraft_sim::{CosimOptions, SeededStimulus, VecStimulus, VerilatedModel};

const DEFAULT_SEED: u64 = 0x5c_2026;

fn seed() -> u64 {
    std::env::var("SWITCHCRAFT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED)
}

fn rtl(preset: &str) -> (BlockConfig, VerilatedModel) {
    let cfg = BlockConfig::preset("pfc", preset).unwrap();
    let pkg = cfg.package(preset, "test");
    let rtl = switchcraft::verilate(&pkg, &cfg.schema(), false).unwrap();
    (cfg, rtl)
}

fn random_workload(preset: &str, seed: u64, cycles: u64) {
    let (cfg, mut rtl) = rtl(preset);
    let c2 = cfg.clone();
    let mut stim = SeededStimulus::new(seed, cycles, move |s| c2.workload(s), |g, i| g(i));
    let opts = CosimOptions {
        max_cycles: cycles,
        seed: Some(seed),
        replay: Some(format!(
            "switchcraft cosim --block pfc --preset {preset} --seed {seed} --cycles {cycles}"
        )),
        out_dir: std::env::temp_dir().join(format!("sc-pfc-eq-{preset}-{seed}")),
        ..Default::default()
    };
    let report = switchcraft_sim::run(cfg.model().as_mut(), &mut rtl, &mut stim, &opts).unwrap();
    assert!(report.passed(), "{report}");
}

#[test]
fn pfc_tiny_random_workload_model_equals_verilator() {
    random_workload("tiny", seed(), 300_000);
}

#[test]
fn pfc_fpga_random_workload_model_equals_verilator() {
    random_workload("fpga", seed(), 300_000);
}

/// Runs `rows` on a fresh reset of both sides; Err describes the first mismatch.
fn check(
    cfg: &BlockConfig,
    rtl: &mut VerilatedModel,
    rows: Vec<Vec<u64>>,
    what: &str,
) -> Result<(), String> {
    let cycles = rows.len() as u64;
    let mut stim = VecStimulus::new(rows);
    let opts = CosimOptions {
        max_cycles: cycles,
        seed: Some(seed()),
        replay: Some(format!(
            "SWITCHCRAFT_SEED={} cargo test --test pfc_equivalence {what}",
            seed()
        )),
        out_dir: std::env::temp_dir().join(format!("sc-pfc-prop-{what}")),
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

/// One cycle of events, biased to a few keys and to lengths that land on the thresholds.
fn cycle_strategy(c: &PfcConfig) -> impl Strategy<Value = PfcIn> {
    let keys = u64::from(c.ports * c.priorities);
    let hot = keys.min(3);
    let n = u64::from(c.priorities);
    let max_len = (1u64 << c.length_bits) - 1;
    let gap = (c.xoff - c.xon).max(2);
    let len = prop_oneof![
        4 => 1..=max_len.min(gap),
        1 => Just(gap.min(max_len)),
        1 => Just((c.xoff / 4).clamp(1, max_len)),
        1 => Just(1u64),
        1 => Just(max_len),
    ];
    let key = prop_oneof![4 => 0..hot, 1 => 0..keys];
    let event = (any::<bool>(), key, len);
    let csr = prop_oneof![
        20 => Just(None),
        1 => (0u64..10, any::<u32>()).prop_map(|(a, d)| Some((a, u64::from(d)))),
        1 => (Just(u64::from(reg::XOFF)), c.xon + 1..=c.max).prop_map(|(a, d)| Some((a, d))),
        1 => (Just(u64::from(reg::REFRESH)), 0u64..40).prop_map(|(a, d)| Some((a, d))),
    ];
    (event.clone(), event, csr, 0u64..10).prop_map(
        move |((ev, ek, el), (dv, dk, dl), csr, raddr)| {
            let mut i = PfcIn {
                enq_valid: ev as u64,
                enq_port: ek / n,
                enq_prio: ek % n,
                enq_len: el,
                deq_valid: dv as u64,
                deq_port: dk / n,
                deq_prio: dk % n,
                deq_len: dl,
                csr_addr: raddr,
                ..Default::default()
            };
            if let Some((a, d)) = csr {
                (i.csr_we, i.csr_addr, i.csr_wdata) = (1, a, d);
            }
            i
        },
    )
}

fn proptest_equivalence(preset: &str, name: &str) {
    let (cfg, rtl) = rtl(preset);
    // The runner takes a `Fn`; the one Verilated model is reused (and reset) across cases.
    let rtl = std::cell::RefCell::new(rtl);
    let BlockConfig::Pfc(pc) = cfg.clone();
    let seed = seed();
    let mut config = Config::with_cases(64);
    config.rng_seed = RngSeed::Fixed(seed);
    config.failure_persistence = Some(Box::new(
        proptest::test_runner::FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/proptest-regressions/pfc_equivalence.txt"
        )),
    ));
    let mut runner = TestRunner::new(config);
    let strategy = prop::collection::vec(cycle_strategy(&pc), 1..600);
    let result = runner.run(&strategy, |cycles| {
        let rows = cycles
            .iter()
            .map(|i| {
                let mut v = vec![0; 11];
                i.to_values(&mut v);
                v
            })
            .collect();
        check(&cfg, &mut rtl.borrow_mut(), rows, name).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        panic!("{name}: seed {seed} (rerun with SWITCHCRAFT_SEED={seed}): {e}");
    }
}

#[test]
fn pfc_tiny_proptest_model_equals_verilator() {
    proptest_equivalence("tiny", "pfc_tiny_proptest_model_equals_verilator");
}

#[test]
fn pfc_fpga_proptest_model_equals_verilator() {
    proptest_equivalence("fpga", "pfc_fpga_proptest_model_equals_verilator");
}

#[test]
fn pfc_back_to_back_events_on_one_key_every_cycle_model_equals_verilator() {
    let (cfg, mut rtl) = rtl("tiny");
    // Both buses on (port 2, priority 1) every cycle: enqueues outpace dequeues, then the
    // reverse, so the key crosses XOFF and XON with a read-modify-write hazard on every edge.
    let rows = (0..20_000u64)
        .map(|k| {
            let fill = (k / 500) % 2 == 0;
            let i = PfcIn {
                enq_valid: 1,
                enq_port: 2,
                enq_prio: 1,
                enq_len: if fill { 300 } else { 100 } + k % 7,
                deq_valid: 1,
                deq_port: 2,
                deq_prio: 1,
                deq_len: if fill { 100 } else { 300 } + k % 5,
                ..Default::default()
            };
            let mut v = vec![0; 11];
            i.to_values(&mut v);
            v
        })
        .collect();
    check(&cfg, &mut rtl, rows, "back_to_back").unwrap_or_else(|e| panic!("{e}"));
}
