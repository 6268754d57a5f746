//! Synthesis smoke test of TCD: yosys parse + `synth_ice40` of the `tiny` preset through
//! `switchcraft::synth`, no place and route (that is `make synth BLOCK=tcd`).

use std::path::Path;
use switchcraft::synth::{synth_ice40, Tools};

#[test]
fn tcd_tiny_core_synthesizes_for_ice40_with_its_register_file_in_ram() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tcd_synth");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let r = synth_ice40(
        &Tools::from_env(),
        &[root.join("rtl/tcd/tcd_tiny.v")],
        "tcd_tiny_top",
        &dir,
        "core",
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Banks R {t_on 12 b, Q 16 b} and D {t_T 12 b, Q_rec 16 b, age of t_T 2 b, LAST_STATE 2 b},
    // 32 keys each (4 ports x 8 padded priorities): the whole register file in RAM, nothing else.
    assert_eq!(r.memory_bits, 32 * (12 + 16 + 12 + 16 + 2 + 2));
    assert!(r.bram >= 4, "BRAM {}", r.bram);
    // Sane, not exact: at least the 7 flag bits per key are flip-flops; a broken flow gives 0.
    assert!((7 * 32..7680).contains(&r.dff), "DFF {}", r.dff);
    assert!((100..7680).contains(&r.lut4), "LUT4 {}", r.lut4);
    assert!(
        r.carry > 0,
        "no carry chain in the time and queue comparisons"
    );
}
