//! Every target's Verilog (`switchcraft generate --target`, issue 29): the FPGA targets share
//! one form of every memory, so their packages equal iCE40's but for the instance name and the
//! target line; the `asic` package of every block is lint-clean and co-simulates against the
//! golden model with zero mismatches under injected faults, resets included (a block whose
//! memories are 1R1W only has the iCE40 Verilog there too, but for names). An `asic` memory
//! clears itself during reset, one word per cycle, so its package declares a longer reset; a
//! reset half that long leaves stale words, which the co-simulation must catch.

mod common;

use switchcraft::blocks::REGISTRY;
use switchcraft_rtl::Tech;
use switchcraft_sim::{CosimOptions, FaultPlan, Faulty};

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
        // The declared reset: one cycle per word of the deepest memory (PFC's and CaPFC's
        // occupancies: one word per key), against one cycle on the FPGA targets.
        let keys = 1u32 << pkg_key_bits(&pkg);
        assert_eq!(
            (ice40.reset_cycles, pkg.reset_cycles),
            (1, keys),
            "{}",
            pkg.instance
        );
        assert!(pkg.manifest.contains(&format!("\"reset_cycles\": {keys}")));
        let mut rtl = switchcraft::verilate(&pkg, &cfg.schema(), false).unwrap();
        let cycles = 60_000;
        let faulty = || {
            let plan = FaultPlan::standard(seed, block.message_buses());
            Faulty::new(common::workload(&cfg, seed, cycles), plan, &cfg.schema()).unwrap()
        };
        let mut stim = faulty();
        let args = format!(
            "--block {} --preset {name} --target asic --faults",
            block.stem()
        );
        common::assert_cosim(&cfg, &mut rtl, &mut stim, seed, cycles, &args, "asic");
        assert!(
            stim.counts().resets >= 2,
            "{}: {}",
            pkg.instance,
            stim.counts()
        );
        // Half the declared reset: the words the clear did not reach keep their old values.
        rtl.set_min_reset_cycles(keys / 2);
        let opts = CosimOptions {
            max_cycles: cycles,
            reset_cycles: keys / 2,
            out_dir: common::artefacts(&format!("sc-{}-short-reset", pkg.instance)),
            window_before: 0,
            window_after: 0,
            ..Default::default()
        };
        let report =
            switchcraft_sim::run(cfg.model().as_mut(), &mut rtl, &mut faulty(), &opts).unwrap();
        assert!(
            !report.passed(),
            "{}: a reset of {} cycles cleared every word (seed {seed})",
            pkg.instance,
            keys / 2
        );
    }
    // The blocks with two-writer memories (PFC's and CaPFC's occupancies) have an asic form.
    assert!(own_form.len() >= 2, "asic forms checked: {own_form:?}");
}

/// Address bits of the deepest `asic` memory of a package (its instances' `ADDR`).
fn pkg_key_bits(pkg: &switchcraft_rtl::export::Package) -> u32 {
    pkg.verilog
        .split(".ADDR(")
        .skip(1)
        .map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u32>().unwrap()
        })
        .max()
        .expect("an asic memory")
}
