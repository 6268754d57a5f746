//! The generated FuseSoC core files under rtl/ work in FuseSoC itself (installed by
//! `make fusesoc-tools`): every instance is listed under its VLNV, each block's `tiny` core
//! lints clean through its `lint` and `lint_axil` targets (Verilator -Wall with the instance's
//! waivers, run by FuseSoC's edalize backend), and the example under examples/ lints clean with
//! its generated cores pulled in as dependencies (their waivers with them).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use switchcraft::blocks::stems;
use switchcraft::{instance_name, BlockConfig};

fn fusesoc() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/fusesoc/bin/fusesoc");
    assert!(
        path.exists(),
        "{} is missing: install it with `make fusesoc-tools`",
        path.display()
    );
    path
}

fn run(work: &Path, args: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(fusesoc())
        .current_dir(work)
        .arg("--cores-root")
        .arg(root.join("rtl"))
        .arg("--cores-root")
        .arg(root.join("examples"))
        .args(args)
        .output()
        .expect("fusesoc runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "fusesoc {args:?} failed:\n{text}");
    text
}

#[test]
fn every_generated_core_is_listed_under_its_vlnv() {
    let work = common::scratch::ScratchDir::new("fusesoc", "list");
    let list = run(&work, &["core", "list"]);
    for block in stems() {
        for preset in BlockConfig::presets(block).unwrap() {
            let vlnv = format!(
                "switchcraft:{block}:{}:{}",
                instance_name(block, preset),
                env!("CARGO_PKG_VERSION")
            );
            assert!(list.contains(&vlnv), "{vlnv} not listed:\n{list}");
        }
    }
}

#[test]
fn each_blocks_tiny_core_lints_clean_through_fusesoc() {
    let work = common::scratch::ScratchDir::new("fusesoc", "lint");
    for block in stems() {
        let core = format!("switchcraft:{block}:{}", instance_name(block, "tiny"));
        for target in ["lint", "lint_axil"] {
            run(&work, &["run", "--target", target, &core]);
        }
    }
}

#[test]
fn the_example_core_lints_clean_with_its_dependencies() {
    let work = common::scratch::ScratchDir::new("fusesoc", "example");
    let list = run(&work, &["core", "list"]);
    assert!(list.contains("switchcraft:example:pfc_link"), "{list}");
    run(
        &work,
        &["run", "--target", "lint", "switchcraft:example:pfc_link"],
    );
}
