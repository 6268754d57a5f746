//! Synthesis smoke test of PFC (issue 3): yosys parse + `synth_ice40` of the `tiny` preset
//! through `switchcraft::synth`, no place and route (that is `make synth`). Seconds, not minutes.
//! The flow must be able to fail: broken Verilog and a missing tool are errors naming the tool.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use switchcraft::synth::{
    parse_nextpnr_log, parse_stat, read_manifest, synth_ice40, too_large_for_hx8k, wrapper,
    Ice40Resources, SynthError, Tools,
};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn tiny_verilog() -> PathBuf {
    root().join("rtl/pfc/pfc_tiny.v")
}

/// A fresh working directory per test (tests run in parallel).
fn work_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("pfc_synth")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `synth_ice40` of the tiny core, run once and shared by the tests that need it.
fn tiny_core() -> &'static Ice40Resources {
    static CORE: OnceLock<Ice40Resources> = OnceLock::new();
    CORE.get_or_init(|| {
        let dir = work_dir("core");
        synth_ice40(
            &Tools::from_env(),
            &[tiny_verilog()],
            "pfc_tiny_top",
            &dir,
            "core",
            false,
        )
        .unwrap_or_else(|e| panic!("{e}"))
    })
}

#[test]
fn tiny_core_synthesizes_for_ice40() {
    let r = tiny_core();
    // Sane, not exact: a change of the RTL may move these, a broken flow gives 0 or nonsense.
    assert!((100..7680).contains(&r.lut4), "LUT4 {}", r.lut4);
    assert!((50..7680).contains(&r.dff), "DFF {}", r.dff);
    assert!(r.carry > 0, "no carry chain in the occupancy adders");
    // The 4 live-value-table copies of the occupancy, 8 keys {port[1:0], priority[0]} x 16 bits
    // each, in block RAM.
    assert_eq!(r.memory_bits, 4 * 8 * 16);
    assert!(r.bram >= 4, "BRAM {}", r.bram);
}

#[test]
fn wrapper_keeps_every_core_cell() {
    let dir = work_dir("wrapped");
    let tools = Tools::from_env();
    let m = read_manifest(&root().join("rtl/pfc/pfc_tiny.ports.json")).unwrap();
    let w = wrapper(&m).unwrap();
    assert_eq!(w.module, "pfc_tiny_synth_top");
    for p in &m.ports {
        assert!(
            w.verilog.contains(&format!(".{}(", p.name)),
            "{} unconnected",
            p.name
        );
    }
    let wrapper_file = dir.join("pfc_tiny_synth_top.v");
    std::fs::write(&wrapper_file, &w.verilog).unwrap();
    let core = tiny_core();
    let wrapped = synth_ice40(
        &tools,
        &[tiny_verilog(), wrapper_file],
        &w.module,
        &dir,
        "wrapped",
        true,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // The input and output chains are never constant, so they alone add input + output bits of
    // flip-flops; fewer would mean synthesis removed part of the core.
    assert!(
        wrapped.dff >= core.dff + (w.input_bits + w.output_bits) as u64,
        "wrapped {} DFF, core {} DFF, chains {} + {}",
        wrapped.dff,
        core.dff,
        w.input_bits,
        w.output_bits
    );
    assert!(
        wrapped.lut4 >= core.lut4,
        "wrapped {} LUT4 < core {}",
        wrapped.lut4,
        core.lut4
    );
    assert_eq!(wrapped.bram, core.bram);
    // The tiny preset fits; twice the HX8K's cells would not.
    assert_eq!(too_large_for_hx8k(&wrapped), None);
    let huge = Ice40Resources {
        lut4: 2 * 7680,
        ..wrapped.clone()
    };
    assert!(too_large_for_hx8k(&huge).is_some());
    assert!(dir.join("wrapped.json").is_file(), "no netlist for nextpnr");
}

#[test]
fn broken_verilog_is_a_yosys_error() {
    let dir = work_dir("broken");
    let bad = dir.join("broken.v");
    std::fs::write(
        &bad,
        "module broken_top(input wire clk);\n  assign = ;\nendmodule\n",
    )
    .unwrap();
    let err = synth_ice40(
        &Tools::from_env(),
        &[bad],
        "broken_top",
        &dir,
        "core",
        false,
    )
    .expect_err("synthesis of broken Verilog succeeded");
    let msg = err.to_string();
    assert!(
        matches!(err, SynthError::Tool { tool: "yosys", .. }),
        "{msg}"
    );
    assert!(
        msg.contains("yosys failed") && msg.contains("ERROR"),
        "{msg}"
    );
    assert!(
        msg.contains(&dir.join("core.yosys.log").display().to_string()),
        "{msg}"
    );
}

#[test]
fn missing_tool_is_an_error_naming_it() {
    let dir = work_dir("missing");
    let tools = Tools {
        yosys: "/nonexistent/yosys".into(),
        ..Tools::from_env()
    };
    let err = synth_ice40(
        &tools,
        &[tiny_verilog()],
        "pfc_tiny_top",
        &dir,
        "core",
        false,
    )
    .expect_err("a missing yosys ran");
    let msg = err.to_string();
    assert!(
        msg.contains("yosys") && msg.contains("/nonexistent/yosys"),
        "{msg}"
    );
}

#[test]
fn log_parsers_take_the_post_route_numbers() {
    // Abridged nextpnr-ice40 0.4 log: the placer's estimate comes first, the post-route line
    // after "Routing complete" is the one that counts.
    let log = "\
Info: constraining clock net 'clk' to 100.00 MHz
Info: Device utilisation:
Info: \t         ICESTORM_LC:  1499/ 7680    19%
Info: \t        ICESTORM_RAM:     4/   32    12%
Info: port $nextpnr_ICESTORM_LC_5.I1, connected to net 'x', has negative timing budget
Info: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 25.52 MHz (FAIL at 100.00 MHz)
Info: Routing complete.
Info: Critical path report for clock 'clk$SB_IO_IN_$glb_clk' (posedge -> posedge):
Info:  0.5  1.0    Net core.ram.rdata[1] budget 0.2 ns (1,1) -> (1,2)
Info:  0.5  2.0    Net $nextpnr_ICESTORM_LC_2$I3 budget 0.2 ns (1,2) -> (1,3)
Info:  0.5  3.0    Net core.e_drop_SB_LUT4_O_I2[3] budget 0.2 ns (1,3) -> (1,4)
Info: Critical path report for cross-domain path '<async>' -> 'posedge clk':
Info:  0.5  1.0    Net rst$SB_IO_IN budget 0.2 ns (1,1) -> (1,2)
Warning: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 24.91 MHz (FAIL at 100.00 MHz)
";
    let p = parse_nextpnr_log(log);
    assert_eq!(p.clock_constraint_mhz, Some(100.0));
    assert_eq!(p.fmax_mhz, Some(24.91));
    assert_eq!(p.utilisation.get("ICESTORM_LC"), Some(&(1499, 7680)));
    assert_eq!(p.utilisation.get("ICESTORM_RAM"), Some(&(4, 32)));
    assert_eq!(p.utilisation.len(), 2);
    assert_eq!(
        p.critical_path,
        Some(("core.ram.rdata[1]".into(), "core.e_drop".into(), 3))
    );
    assert_eq!(p.does_not_fit, None);
    let full = "ERROR: Failed to expand region (0, 0) |_> (13, 17) of 1500 ICESTORM_LCs\n";
    assert!(parse_nextpnr_log(full).does_not_fit.is_some());
    // No post-route line (nextpnr stopped early): no Fmax rather than the placer's estimate.
    assert_eq!(
        parse_nextpnr_log("Info: Max frequency for clock 'clk': 25.52 MHz (FAIL at 100.00 MHz)\n")
            .fmax_mhz,
        None
    );

    let stat = "\
=== pfc_tiny_top ===

   Number of memories:               1
   Number of memory bits:         2048
   Number of cells:               1636
     SB_CARRY                      226
     SB_DFF                        174
     SB_DFFSR                      166
     SB_LUT4                       982

";
    let s = parse_stat(stat);
    assert_eq!(s.memory_bits, 2048);
    assert_eq!(s.count("SB_LUT4"), 982);
    assert_eq!(s.count_prefix("SB_DFF"), 340);
    assert_eq!(s.cells.len(), 4);
}
