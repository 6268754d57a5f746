//! Model and Verilator agree cycle for cycle under every fault of `switchcraft cosim --faults`
//! (issue 30), for every block: lost and repeated received messages, stuck input valids, CSR
//! writes and resets in the middle of traffic. What each mechanism promises under these faults
//! (refresh, pause expiry, the periodic bitmap) is tested in the blocks' model tests.

mod common;

use switchcraft::blocks::REGISTRY;
use switchcraft_sim::{CosimOptions, FaultPlan, Faulty, SeededStimulus};

const CYCLES: u64 = 120_000;

#[test]
fn every_block_agrees_with_its_verilog_under_injected_faults() {
    let seed = common::seed();
    for block in REGISTRY {
        let name = block.presets()[0];
        let cfg = common::preset(block.stem(), name);
        let mut rtl = common::verilated(&cfg, name);
        let schema = cfg.schema();
        let c2 = cfg.clone();
        let clean = SeededStimulus::new(seed, CYCLES, move |s| c2.workload(s), |g, i| g(i));
        let plan = FaultPlan::standard(seed, block.message_buses());
        let mut stim = Faulty::new(clean, plan, &schema).unwrap();
        let opts = CosimOptions {
            max_cycles: CYCLES,
            seed: Some(seed),
            replay: Some(format!(
                "switchcraft cosim --block {} --preset {name} --seed {seed} --cycles {CYCLES} \
                 --faults",
                block.stem()
            )),
            out_dir: common::artefacts(&format!("sc-{}-faults-{seed}", block.stem())),
            ..Default::default()
        };
        let report =
            switchcraft_sim::run(cfg.model().as_mut(), &mut rtl, &mut stim, &opts).unwrap();
        assert!(report.passed(), "{report}");
        assert_eq!(report.cycles, CYCLES, "{}", block.stem());
        // Every kind of fault struck, more than once.
        let n = stim.counts();
        let messages = !block.message_buses().is_empty();
        assert!(
            n.stuck_stretches > 10
                && n.csr_writes > 50
                && n.resets >= 2
                && (!messages || (n.lost > 20 && n.duplicated > 5)),
            "{} {name}: {n}",
            block.stem()
        );
    }
}
