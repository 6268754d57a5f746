//! Synthesis smoke test of pfcmac: yosys parse + `synth_ice40` of the `fpga` preset through
//! `switchcraft::synth`, no place and route (that is `make synth BLOCK=pfcmac`).

use std::path::Path;
use switchcraft::synth::{synth_ice40, Tools};

#[test]
fn pfcmac_fpga_core_synthesizes_for_ice40_in_registers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pfcmac_synth");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let r = synth_ice40(
        &Tools::from_env(),
        &[root.join("rtl/pfcmac/pfcmac_fpga.v")],
        "pfcmac_fpga_top",
        &dir,
        "core",
        false,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // No memories: the per-class state is flip-flops (TX pending and in-flight times, RX
    // captured times and timers: 8 x 64 b), plus counters and the CSR bank.
    assert_eq!(r.memory_bits, 0);
    assert!((8 * 64..2000).contains(&r.dff), "DFF {}", r.dff);
    // Smaller than verilog-ethernet's mac_pause_ctrl_tx + _rx pair (1171 + 1073 LUT4) with
    // the FCS left to the MAC, as theirs does; a broken flow gives 0.
    assert!((500..2244).contains(&r.lut4), "LUT4 {}", r.lut4);
    assert!(r.carry > 0, "no carry chain in the timers or counters");
}
