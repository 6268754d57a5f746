//! Synthesis smoke test of CaPFC: yosys parse + `synth_ice40` of the `tiny` preset through
//! `switchcraft::synth`, no place and route (that is `make synth BLOCK=capfc`).

use std::path::Path;
use switchcraft::synth::{synth_ice40, Tools};
use switchcraft_model::capfc::CapfcConfig;

#[test]
fn capfc_tiny_core_synthesizes_for_ice40_with_occupancy_and_counters_in_ram() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("capfc_synth");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let r = synth_ice40(
        &Tools::from_env(),
        &[root.join("rtl/capfc/capfc_tiny.v")],
        "capfc_tiny_top",
        &dir,
        "core",
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let c = CapfcConfig::preset("tiny").unwrap();
    let keys = 1u64 << (c.port_bits() + c.prio_bits()); // {port, priority}
    let occ = c.occupancy_bits as u64;
    // In RAM and nothing else: ingress and egress occupancy (4 copies each, the two-bus live
    // value table) and a row of P - 1 counters per egress key (Stop-Max keeps no running
    // maximum: it selects from the counted row).
    let counters = (c.ports as u64 - 1) * c.counter_bits as u64;
    assert_eq!(
        r.memory_bits,
        keys * (2 * 4 * occ + counters),
        "memory bits"
    );
    assert!(r.bram >= 4, "BRAM {}", r.bram);
    // Sane, not exact: at least the E bits that can be set (per egress (port, priority), the
    // other P - 1 ports) are flip-flops; a broken flow gives 0.
    let e_bits = u64::from(c.ports * c.priorities * (c.ports - 1));
    assert!((e_bits..7680).contains(&r.dff), "DFF {}", r.dff);
    assert!((500..7680).contains(&r.lut4), "LUT4 {}", r.lut4);
    assert!(r.carry > 0, "no carry chain in the threshold comparisons");
}
