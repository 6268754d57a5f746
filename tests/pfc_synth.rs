//! Synthesis smoke tests of PFC (issues 3 and 29): yosys parse + `synth_ice40` of the `tiny`
//! preset through `switchcraft::synth`, no iCE40 place and route (that is `make synth`); and the
//! whole ECP5 flow on `tiny` (its synthesis and one out-of-context place and route take
//! seconds). The flow must be able to fail: broken Verilog and a missing tool are errors naming
//! the tool.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use switchcraft::synth::{
    ecp5, parse_nextpnr_log, parse_stat, read_manifest, synth_ice40, too_large_for_hx8k, wrapper,
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

#[test]
fn ecp5_log_and_yosys_070_stat_parse() {
    // Abridged nextpnr-ecp5 0.11 log (out of context, --freq 150): no "constraining" line; the
    // post-route line is an ERROR when the constraint fails and names the constraint.
    let log = "\
Info: Device utilisation:
Info: \t              DP16KD:       0/    208     0%
Info: \t          TRELLIS_FF:     685/  83640     0%
Info: \t        TRELLIS_COMB:    2261/  83640     2%
Info: Max frequency for clock 'clk': 76.20 MHz (FAIL at 150.00 MHz)
Info: Routing complete.
Info: Critical path report for clock 'clk' (posedge -> posedge):
Info:   clk-to-q  0.52  0.52 Source core.occ.w_d_val.q_TRELLIS_FF_Q_5.Q
Info:    routing  1.63  2.15 Net core.decision.state.q_TRELLIS_FF_Q_DI_L6MUX21_Z_SD[1] (19,9) -> (14,5)
Info:    routing  0.00  4.97 Net core.occ.upd_CCU2C_S1_CIN_CCU2C_COUT (17,5) -> (17,5)
Info:    routing  0.70  9.90 Net core.ingress$xon_event_LUT4_Z_D[1] (20,3) -> (22,3)
Info:    routing  0.08  10.46 Net core.occ.ram_e.mem.0.7$RAMW_SLICE$conn$WDO3 (22,3) -> (22,3)
Info: 3.17 ns logic, 7.30 ns routing

ERROR: Max frequency for clock 'clk': 95.59 MHz (FAIL at 150.00 MHz)
";
    let p = parse_nextpnr_log(log);
    assert_eq!(p.fmax_mhz, Some(95.59));
    assert_eq!(p.checked_at_mhz, Some(150.0));
    assert_eq!(p.clock_constraint_mhz, None);
    assert_eq!(p.utilisation.get("TRELLIS_COMB"), Some(&(2261, 83640)));
    assert_eq!(p.utilisation.get("DP16KD"), Some(&(0, 208)));
    assert_eq!(p.utilisation.len(), 3);
    assert_eq!(
        p.critical_path,
        Some((
            "core.decision.state.q".into(),
            "core.occ.ram_e.mem.0.7".into(),
            4
        ))
    );

    // rust-hdl names a sub-block's signal `block$signal`: that `$` is part of the name.
    let log = "\
Info: Routing complete.
Info: Critical path report for clock 'clk' (posedge -> posedge):
Info:    routing  1.63  2.15 Net core.a.q[1] (19,9) -> (14,5)
Info:    routing  0.70  9.90 Net core.ingress$xon_event_LUT4_Z_D[1] (20,3) -> (22,3)
";
    assert_eq!(
        parse_nextpnr_log(log).critical_path,
        Some(("core.a.q[1]".into(), "core.ingress$xon_event".into(), 2))
    );

    // yosys 0.70 `stat`: counts before names, the hierarchy's total last.
    let stat = "\
=== pfc_tiny_top ===

        +----------Local Count, excluding submodules.
        |
     2562 wires
        4 memories
      512 memory bits
     3354 cells
      114   CCU2C
     1779   LUT4
       32   TRELLIS_DPR16X4
      685   TRELLIS_FF
        1 submodules
        1   pfc_tiny__core

=== design hierarchy ===

     2048 memory bits
";
    let s = parse_stat(stat);
    assert_eq!(s.memory_bits, 2048);
    assert_eq!(s.count("LUT4"), 1779);
    assert_eq!(s.count("TRELLIS_FF"), 685);
    assert_eq!(s.cells.len(), 4, "{:?}", s.cells);
}

#[test]
fn tiny_places_and_routes_on_ecp5() {
    let out = work_dir("ecp5");
    let e = ecp5::run_preset(&Tools::from_env(), "pfc", "tiny", 1, &out)
        .unwrap_or_else(|err| panic!("{err}"));
    let r = &e.resources;
    // Sane, not exact: a change of the RTL may move these, a broken flow gives 0 or nonsense.
    assert!((100..20_000).contains(&r.lut4), "LUT4 {}", r.lut4);
    assert!((50..20_000).contains(&r.ff), "FF {}", r.ff);
    assert!(r.carry > 0, "no carry chain in the occupancy adders");
    assert_eq!(r.memory_bits, 4 * 8 * 16);
    assert!(e.fits, "{}", e.fit_reason);
    let p = e.pnr.expect("placed and routed");
    assert_eq!(p.target_mhz, ecp5::TARGET_MHZ);
    assert!(
        (20.0..500.0).contains(&p.fmax_median_mhz),
        "Fmax {}",
        p.fmax_median_mhz
    );
    assert!(p
        .utilisation
        .get("TRELLIS_COMB")
        .is_some_and(|&(u, _)| u > 0));
    assert!(p.critical_path.is_some());
}

#[test]
fn ecp5_too_large_counts_lut_ram() {
    let r = |lut4, lut_ram| ecp5::Resources {
        lut4,
        ff: 0,
        carry: 0,
        dp16kd: 0,
        ff_in_dp16kd: 0,
        lut_ram,
        memory_bits: 0,
        cells: Default::default(),
        seconds: 0.0,
    };
    assert_eq!(ecp5::too_large(&r(ecp5::LUTS, 0)), None);
    assert!(ecp5::too_large(&r(ecp5::LUTS - 1, 1)).is_some());
}
