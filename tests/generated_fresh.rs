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
            let out = std::process::Command::new(&verilator)
                .args(["--lint-only", "-Wall", "--top-module"])
                .arg(format!("{instance}_top"))
                .arg(dir.join(format!("{instance}.vlt")))
                .arg(dir.join(format!("{instance}.v")))
                .output()
                .expect("verilator runs (install with scripts/setup.sh)");
            assert!(
                out.status.success(),
                "{block}_{preset}: verilator -Wall:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
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
