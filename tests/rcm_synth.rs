//! Synthesis smoke test of RCM: yosys parse + `synth_ice40` of the `tiny` preset through
//! `switchcraft::synth`, no place and route (that is `make synth BLOCK=rcm`).

use std::path::Path;
use switchcraft::synth::{synth_ice40, Tools};

#[test]
fn rcm_tiny_core_synthesizes_for_ice40_with_its_queue_tables_in_ram() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rcm_synth");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let r = synth_ice40(
        &Tools::from_env(),
        &[root.join("rtl/rcm/rcm_tiny.v")],
        "rcm_tiny_top",
        &dir,
        "core",
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // The samplers' tables in RAM: 16 VOQ slots and 4 output queues of {12-bit counter,
    // 12-bit q_old}.
    assert_eq!(r.memory_bits, (16 + 4) * (12 + 12));
    // The CAMs are flip-flops: 2 x 4 ports x 4 entries x (12-bit ID + valid) = 416, beside the
    // port registers and the pipelines; a broken flow gives 0.
    assert!((416..7680).contains(&r.dff), "DFF {}", r.dff);
    assert!((500..20000).contains(&r.lut4), "LUT4 {}", r.lut4);
    assert!(r.carry > 0, "no carry chain in the counters' arithmetic");
}
