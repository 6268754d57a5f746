//! Synthesis smoke test of BFC: yosys parse + `synth_ice40` of the `tiny` preset through
//! `switchcraft::synth`, no place and route (that is `make synth BLOCK=bfc`). About 40 s here
//! (540 s while the Th and bpEn tables were fixed-width vectors; see docs/blocks/bfc.md).

use std::path::Path;
use switchcraft::synth::{synth_ice40, Tools};
use switchcraft_model::bfc::BfcConfig;

#[test]
fn bfc_tiny_core_synthesizes_for_ice40_with_its_flow_table_in_ram() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bfc_synth");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let r = synth_ice40(
        &Tools::from_env(),
        &[root.join("rtl/bfc/bfc_tiny.v")],
        "bfc_tiny_top",
        &dir,
        "core",
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let c = BfcConfig::preset("tiny").unwrap();
    let (size, ts, occ, pc) = (c.size_bits, c.ts_bits, c.occupancy_bits, c.pc_bits);
    // Flow table (crates/rtl/src/bfc.rs): bank E {q 8 b, enq_count} and bank D deq_count in two
    // copies each, the timestamp in one; counter rows of two counts per queue and per upstream
    // queue. Nothing else is a memory.
    let per_entry = 2 * (8 + size) + 2 * size + ts;
    let rows = c.ports * (c.queues * 2 * occ + c.upstream_queues * 2 * pc);
    assert_eq!(
        r.memory_bits,
        c.entries() * u64::from(per_entry) + u64::from(rows)
    );
    // The five flow-table RAMs are block RAMs; the counter rows (4 rows) are flip-flops.
    assert!(r.bram >= 5, "BRAM {}", r.bram);
    assert!((u64::from(rows)..7680).contains(&r.dff), "DFF {}", r.dff);
    assert!((1000..7680).contains(&r.lut4), "LUT4 {}", r.lut4);
    assert!(r.carry > 0, "no carry chain in the counters and compares");
}
