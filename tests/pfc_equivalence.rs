//! PFC golden model vs its exported Verilog under Verilator: every output, every cycle.

use switchcraft::BlockConfig;
use switchcraft_sim::{CosimOptions, SeededStimulus};

fn cosim(preset: &str, seed: u64, cycles: u64) {
    let cfg = BlockConfig::preset("pfc", preset).unwrap();
    let pkg = cfg.package(preset, "test");
    let mut rtl = switchcraft::verilate(&pkg, &cfg.schema(), false).unwrap();
    let mut model = cfg.model();
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
    let report = switchcraft_sim::run(model.as_mut(), &mut rtl, &mut stim, &opts).unwrap();
    assert!(report.passed(), "{}", report);
}

#[test]
fn pfc_tiny_model_equals_verilator() {
    cosim("tiny", 1, 200_000);
}
