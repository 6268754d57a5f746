//! Synthesis smoke test of QCN: yosys parse + `synth_ice40` of the `tiny` preset through
//! `switchcraft::synth`, no place and route (that is `make synth BLOCK=qcn`).

use std::path::Path;
use switchcraft::synth::{synth_ice40, Tools};

#[test]
fn qcn_tiny_core_synthesizes_for_ice40_with_its_tables_in_ram() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("qcn_synth");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let r = synth_ice40(
        &Tools::from_env(),
        &[root.join("rtl/qcn/qcn_tiny.v")],
        "qcn_tiny_top",
        &dir,
        "core",
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Every table in RAM: q_old (8 queue slots x 8 b), the rate limit (64 entries x {12-bit
    // timestamp, valid}), P_fb twice (16 x 17 b), and the embedded PFC's occupancy (4 copies x
    // 8 keys x 16 b).
    assert_eq!(r.memory_bits, 8 * 8 + 64 * 13 + 2 * 16 * 17 + 4 * 8 * 16);
    assert!(r.bram >= 4, "BRAM {}", r.bram);
    // Sane, not exact: the pipeline carries each arrival's addresses (64 b) through eight
    // stages; a broken flow gives 0.
    assert!((8 * 64..7680).contains(&r.dff), "DFF {}", r.dff);
    assert!((500..7680).contains(&r.lut4), "LUT4 {}", r.lut4);
    assert!(r.carry > 0, "no carry chain in Fb's arithmetic");
}
