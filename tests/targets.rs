//! Every target's Verilog (`switchcraft generate --target`, issue 29): the FPGA targets share
//! one form of every memory, so their packages equal iCE40's but for the instance name and the
//! target line; the `asic` package of every block is lint-clean and co-simulates against the
//! golden model with zero mismatches (a block whose memories are 1R1W only has the iCE40
//! Verilog there too, but for names).

mod common;

use switchcraft::blocks::REGISTRY;
use switchcraft_rtl::Tech;

#[test]
fn fpga_targets_differ_from_ice40_only_in_name_and_target_line() {
    for block in REGISTRY {
        let name = block.presets()[0];
        let cfg = common::preset(block.stem(), name);
        let ice40 = cfg.package_for(name, "test", Tech::Ice40);
        for tech in [Tech::Ecp5, Tech::Xilinx] {
            let pkg = cfg.package_for(name, "test", tech);
            assert_eq!(pkg.instance, format!("{}_{tech}", ice40.instance));
            let expected = ice40
                .verilog
                .replace(&ice40.instance, &pkg.instance)
                .replace(
                    "built for target ice40",
                    &format!("built for target {tech}"),
                );
            assert!(pkg.verilog == expected, "{} {name} {tech}", block.stem());
        }
    }
}

#[test]
fn asic_packages_lint_clean_and_match_the_model() {
    let seed = common::seed();
    let dir = common::scratch::ScratchDir::new("targets", "asic");
    let mut own_form = Vec::new();
    for block in REGISTRY {
        let name = block.presets()[0];
        let cfg = common::preset(block.stem(), name);
        let pkg = cfg.package_for(name, "test", Tech::Asic);
        assert!(pkg.verilog.contains("built for target asic"));
        // A block whose memories take one form on every target (1R1W only) has the iCE40
        // Verilog but for names, which the other tests lint and co-simulate.
        let ice40 = cfg.package_for(name, "test", Tech::Ice40);
        let renamed = ice40
            .verilog
            .replace(&ice40.instance, &pkg.instance)
            .replace("built for target ice40", "built for target asic");
        if pkg.verilog == renamed {
            continue;
        }
        own_form.push(block.stem());
        let paths = pkg.write_to(&dir).unwrap();
        let file = |ext: &str| {
            paths
                .iter()
                .find(|p| p.to_string_lossy().ends_with(ext))
                .unwrap()
                .clone()
        };
        let lint = std::process::Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", &pkg.top()])
            .arg(file(".vlt"))
            .arg(file(".v"))
            .output()
            .expect("verilator runs");
        assert!(
            lint.status.success(),
            "{}: {}",
            pkg.instance,
            String::from_utf8_lossy(&lint.stderr)
        );
        let mut rtl = switchcraft::verilate(&pkg, &cfg.schema(), false).unwrap();
        let cycles = 60_000;
        let mut stim = common::workload(&cfg, seed, cycles);
        let args = format!("--block {} --preset {name} --target asic", block.stem());
        common::assert_cosim(&cfg, &mut rtl, &mut stim, seed, cycles, &args, "asic");
    }
    // The blocks with two-writer memories (PFC's and CaPFC's occupancies) have an asic form.
    assert!(own_form.len() >= 2, "asic forms checked: {own_form:?}");
}
