//! The checked-in files under rtl/ equal what the generator makes now, and they lint clean.

use std::path::Path;
use switchcraft::blocks::stems;
use switchcraft::{generate_command, BlockConfig};

#[test]
fn generated_rtl_is_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stale = Vec::new();
    for block in stems() {
        for preset in BlockConfig::presets(block).unwrap() {
            let cfg = BlockConfig::preset(block, preset).unwrap();
            let pkg = cfg.package(preset, &generate_command(block, preset));
            for (name, want) in pkg.files() {
                let path = root.join("rtl").join(block).join(&name);
                match std::fs::read_to_string(&path) {
                    Ok(have) if have == want => {}
                    Ok(_) => stale.push(format!("rtl/{block}/{name} is stale")),
                    Err(_) => stale.push(format!("rtl/{block}/{name} is missing")),
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "{}\nRegenerate with 'make rtl'.",
        stale.join("\n")
    );
}

#[test]
fn generated_rtl_lints_clean_under_verilator_wall() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let verilator = std::env::var("VERILATOR").unwrap_or_else(|_| "verilator".into());
    for block in stems() {
        for preset in BlockConfig::presets(block).unwrap() {
            let dir = root.join("rtl").join(block);
            let instance = switchcraft::instance_name(block, preset);
            // The CSR-bus top and the AXI4-Lite top.
            for top in [format!("{instance}_top"), format!("{instance}_axil_top")] {
                let out = std::process::Command::new(&verilator)
                    .args(["--lint-only", "-Wall", "--top-module", &top])
                    .arg(dir.join(format!("{instance}.vlt")))
                    .arg(dir.join(format!("{instance}.v")))
                    .output()
                    .expect("verilator runs (install with scripts/setup.sh)");
                assert!(
                    out.status.success(),
                    "{top}: verilator -Wall:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
    }
}

#[test]
fn block_docs_register_and_port_tables_are_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for block in stems() {
        let path = root.join("docs/blocks").join(format!("{block}.md"));
        let doc = std::fs::read_to_string(&path).expect("block doc exists");
        let fresh = switchcraft::block_doc_regenerated(block, &doc).unwrap();
        assert!(
            fresh == doc,
            "docs/blocks/{block}.md: its register or port table differs from the register map \
             or port schema. Regenerate with 'make docs'."
        );
    }
}

/// docs/reports/synth.md is what `switchcraft synth` renders from synth.json (no hand edits,
/// no stale format), and its line-rate rows are the arithmetic they claim: Mpps = Fmax at one
/// packet per cycle, Gb/s = Mpps x 672 bits per 64-byte frame on the wire.
#[test]
fn synth_report_is_rendered_from_its_json() {
    use switchcraft::synth::{markdown, Report};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let json = std::fs::read_to_string(root.join("docs/reports/synth.json")).unwrap();
    let report: Report = serde_json::from_str(&json).expect("synth.json parses");
    let md = std::fs::read_to_string(root.join("docs/reports/synth.md")).unwrap();
    assert!(
        md == markdown(&report),
        "docs/reports/synth.md differs from its rendering of synth.json: rerun `make synth` \
         (or `switchcraft synth`) for the affected block"
    );
    let mut rows = 0;
    for e in &report.entries {
        let Some(p) = &e.pnr else { continue };
        let f = p.fmax_median_mhz;
        // A packet block takes one packet per cycle (Mpps = MHz, Gb/s of 64-byte frames at 672
        // bits each on the wire); a stream block moves its data bits per cycle (Gb/s), which
        // is that many 64-byte frames.
        let stream = BlockConfig::preset(&e.block, &e.preset)
            .unwrap()
            .stream_bits();
        let (mpps, gbps) = match stream {
            None => (f, f * 672.0 / 1000.0),
            Some(bits) => (f * f64::from(bits) / 672.0, f * f64::from(bits) / 1000.0),
        };
        let row = format!(
            "| {} | iCE40 HX8K | {f:.2} | {mpps:.1} | {gbps:.1} |",
            e.preset
        );
        assert!(md.contains(&row), "{}: no line-rate row {row}", e.block);
        rows += 1;
    }
    assert!(rows > 0, "no placed and routed preset in the report");
}
