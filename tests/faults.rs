//! Model and Verilator agree cycle for cycle under every fault of `switchcraft cosim --faults`
//! (issue 30), for every block: lost and repeated received messages, stuck input valids, CSR
//! writes and resets in the middle of traffic. What each mechanism promises under these faults
//! (refresh, pause expiry, the periodic bitmap) is tested in the blocks' model tests.

mod common;

use switchcraft::blocks::REGISTRY;
use switchcraft_sim::{FaultPlan, Faulty};

const CYCLES: u64 = 120_000;

#[test]
fn every_block_agrees_with_its_verilog_under_injected_faults() {
    let seed = common::seed();
    for block in REGISTRY {
        let name = block.presets()[0];
        let cfg = common::preset(block.stem(), name);
        let mut rtl = common::verilated(&cfg, name);
        let clean = common::workload(&cfg, seed, CYCLES);
        let plan = FaultPlan::standard(seed, block.message_buses());
        let mut stim = Faulty::new(clean, plan, &cfg.schema()).unwrap();
        let args = format!("--block {} --preset {name} --faults", block.stem());
        common::assert_cosim(&cfg, &mut rtl, &mut stim, seed, CYCLES, &args, "faults");
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
