//! Every block behind its AXI4-Lite bridge (`<instance>_axil_top`): the Verilog under Verilator
//! against the block's model with the bridge's model in front (`AxilBlock`), every output on
//! every cycle, while a seeded master with random wait states reads and writes the registers
//! (unmapped and read-only words and partial strobes included) and the block's own random
//! workload runs on its event inputs. The master checks the AXI4-Lite rules and the register
//! map's answers on its own.

mod common;

use switchcraft_core::axil::{self, AxilBlock};
use switchcraft_sim::axil::{run_lockstep, AxilMaster, MasterOptions};

fn axil_lockstep(block: &str, cycles: u64) {
    let seed = common::seed();
    let cfg = common::preset(block, "tiny");
    let pkg = cfg.package("axil", "test");
    let schema = axil::schema(&cfg.schema());
    let mut rtl = switchcraft::verilate_top(&pkg, &pkg.axil_top(), &schema, false).unwrap();
    let map = cfg.regmap();
    let mut model = AxilBlock::new(cfg.model(), &map);
    let mut events = cfg.workload(seed);
    let mut master = AxilMaster::new(&map, seed, MasterOptions::default());
    let report = run_lockstep(
        &mut model,
        &mut rtl,
        &cfg.schema(),
        &mut *events,
        &mut master,
        cycles,
        pkg.reset_cycles,
    )
    .unwrap();
    assert!(
        report.passed(),
        "{block} tiny behind AXI4-Lite, seed {seed} (rerun with SWITCHCRAFT_SEED={seed}): \
         {report:?}"
    );
    let c = report.counts;
    assert_eq!(report.cycles, cycles);
    assert!(
        c.writes_okay > 50 && c.writes_refused > 20 && c.reads_okay > 50 && c.reads_refused > 5,
        "{block}: too few transactions of some kind to mean anything: {c:?}"
    );
    assert!(c.partial_strobes > 0, "{block}: no partial strobe: {c:?}");
}

/// Every registered block, so a new block is covered without a line here.
#[test]
fn every_block_behind_axil_model_equals_verilator() {
    for block in switchcraft::blocks::stems() {
        axil_lockstep(block, 6000);
    }
}
