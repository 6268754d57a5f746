//! The block registry is the only central list of blocks (docs/architecture.md, "Adding a
//! block"): every registered block has its own files, and no shared file spells a block's stem.

use std::path::{Path, PathBuf};
use switchcraft::blocks::{stems, REGISTRY};
use switchcraft::BlockConfig;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The files shared by every block: code that must learn of blocks only through the registry.
fn central_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let rs_in = |dir: &str, files: &mut Vec<PathBuf>| {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    };
    for dir in ["src", "benches", "sim/src", "crates/core/src"] {
        rs_in(dir, &mut files);
    }
    for f in [
        "src/blocks/mod.rs",
        "crates/model/src/lib.rs",
        "crates/rtl/src/lib.rs",
        "crates/rtl/src/export.rs",
        "Makefile",
        ".ci/run",
        "scripts/setup.sh",
    ] {
        files.push(root().join(f));
    }
    files
}

/// Whether `line` names block `stem`: in Rust, as a string literal (`"pfc"`) or a path segment
/// (`pfc::`, `::pfc`); in a Makefile or script, as a word. A crate's `pub mod <stem>;` line is
/// the one mention each block needs; comments are prose.
fn names_block(line: &str, stem: &str, rust: bool) -> bool {
    let t = line.trim();
    let ident = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let comment = if rust { "//" } else { "#" };
    if t.starts_with(comment) || (rust && t == format!("pub mod {stem};")) {
        return false;
    }
    t.match_indices(stem).any(|(i, _)| {
        let (before, after) = (&t[..i], &t[i + stem.len()..]);
        if ident(before.chars().next_back()) || ident(after.chars().next()) {
            return false;
        }
        !rust
            || (before.ends_with('"') && after.starts_with('"'))
            || before.ends_with("::")
            || after.starts_with("::")
    })
}

#[test]
fn no_central_file_names_a_block() {
    let mut found = Vec::new();
    let mut registry_lines = Vec::new();
    for path in central_files() {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let rust = path.extension().is_some_and(|x| x == "rs");
        let registry = path.ends_with("src/blocks/mod.rs");
        for (n, line) in text.lines().enumerate() {
            for stem in stems() {
                // The registry's own line for the block: `&<stem>::<Name>Block,`.
                if registry && line.trim().starts_with(&format!("&{stem}::")) {
                    registry_lines.push(stem);
                    continue;
                }
                if names_block(line, stem, rust) {
                    found.push(format!(
                        "{}:{}: names block {stem}: {}",
                        path.strip_prefix(root()).unwrap().display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "blocks must come from the registry (src/blocks/mod.rs), not be listed here:\n{}",
        found.join("\n")
    );
    assert_eq!(
        registry_lines,
        stems().collect::<Vec<_>>(),
        "one REGISTRY line per block"
    );
}

#[test]
fn the_check_catches_a_listed_block() {
    // The detector itself: each way a block used to be listed centrally is caught.
    assert!(names_block(r#"    "pfc" => Ok(PRESETS),"#, "pfc", true));
    assert!(names_block(
        "use switchcraft_model::pfc::{Pfc, PfcConfig};",
        "pfc",
        true
    ));
    assert!(names_block("BLOCKS  = pfc tcd capfc bfc", "tcd", false));
    assert!(names_block(
        "  case $$b in capfc) d=6;; esac",
        "capfc",
        false
    ));
    assert!(!names_block("pub mod pfc;", "pfc", true));
    assert!(!names_block("let pfc_like = 1; // pfc", "pfc", true));
    assert!(!names_block("# the pfc block", "pfc", false));
}

#[test]
fn every_registered_block_has_its_files() {
    let mut missing = Vec::new();
    for block in REGISTRY {
        let b = block.stem();
        let mut need = vec![
            format!("crates/model/src/{b}.rs"),
            format!("crates/rtl/src/{b}.rs"),
            format!("src/blocks/{b}.rs"),
            format!("formal/{b}/{b}_props.sv"),
            format!("docs/blocks/{b}.md"),
            format!("tests/{b}_equivalence.rs"),
            format!("tests/{b}_model.rs"),
            format!("tests/{b}_formal.rs"),
            format!("tests/{b}_synth.rs"),
        ];
        for p in block.presets() {
            let i = switchcraft::instance_name(b, p);
            need.push(format!("rtl/{b}/{i}.v"));
            need.push(format!("rtl/{b}/{i}.ports.json"));
        }
        if let Some(f) = block.formal().config {
            need.push(f.to_string());
        }
        missing.extend(need.into_iter().filter(|f| !root().join(f).exists()));
        // The registry's presets load, and describe themselves.
        for p in block.presets() {
            let cfg = BlockConfig::preset(b, p).unwrap();
            assert_eq!(cfg.block(), b);
            assert!(!cfg.describe().is_empty());
        }
    }
    assert!(missing.is_empty(), "missing: {}", missing.join(", "));
}

#[test]
fn stems_are_unique_identifiers() {
    let all: Vec<&str> = stems().collect();
    for (i, s) in all.iter().enumerate() {
        assert!(
            s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()),
            "stem {s}: lowercase letters and digits only (it names files and Verilog modules)"
        );
        assert!(!all[..i].contains(s), "stem {s} registered twice");
    }
}

#[test]
fn every_preset_round_trips_through_its_toml() {
    // Replay commands of non-preset configs pass them as `--config FILE` written by `to_toml`.
    for block in REGISTRY {
        for p in block.presets() {
            let cfg = BlockConfig::preset(block.stem(), p).unwrap();
            let back = block
                .parse(&cfg.to_toml(), "round-trip")
                .unwrap_or_else(|e| panic!("{}/{p}: {e}", block.stem()));
            assert_eq!(back.preset_name(), Some(*p), "{}/{p}", block.stem());
        }
    }
}

#[test]
fn formal_harnesses_connect_exactly_the_schema_ports() {
    // The props file instantiates the exported top by port name; an unconnected port would be
    // a free input (or an unchecked output) that yosys accepts silently.
    for block in REGISTRY {
        let b = block.stem();
        let path = root().join(format!("formal/{b}/{b}_props.sv"));
        let props = std::fs::read_to_string(&path).unwrap();
        let start = props
            .find("`SC_TOP dut (")
            .unwrap_or_else(|| panic!("{}: no `SC_TOP dut ( instance", path.display()));
        let inst = &props[start..start + props[start..].find(");").expect("instance ends")];
        let mut connected: Vec<&str> = inst
            .split('.')
            .skip(1)
            .map(|c| c.split('(').next().unwrap().trim())
            .collect();
        connected.sort_unstable();
        let cfg = match block.formal().config {
            Some(f) => BlockConfig::from_file(b, &root().join(f)).unwrap(),
            None => BlockConfig::preset(b, "tiny").unwrap(),
        };
        let mut want: Vec<String> = cfg.schema().ports.iter().map(|p| p.name.clone()).collect();
        want.extend(["clk".to_string(), "rst".to_string()]);
        want.sort_unstable();
        assert_eq!(connected, want, "{}: the dut's connections", path.display());
    }
}

/// Every preset of every block says what clock and link it is sized for, or that it has none
/// (`switchcraft config` prints it above the TOML).
#[test]
fn every_preset_states_its_timing() {
    for block in REGISTRY {
        for preset in block.presets() {
            let timing = block.preset_timing(preset).unwrap_or_default();
            assert!(
                timing.contains("MHz clock") || timing.starts_with("no clock or link"),
                "{} {preset}: {timing:?}",
                block.stem()
            );
        }
    }
}
