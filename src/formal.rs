//! Formal flow (`switchcraft formal`, `make formal`): a block's property wrapper
//! `formal/<b>/<b>_props.sv` around its exported top, proved with yosys + yosys-smtbmc and an
//! SMT solver: Bitwuzla by default, z3 on request ([`Solver`]).
//!
//! Three runs per instance, each only after the one before passed (a counterexample settles
//! the proof):
//! * BMC from reset to `k` cycles of every assertion (`a_*`): the base case;
//! * BMC from reset to `bmc_depth` cycles of the assertions the props file marks BMC-only
//!   (left out under `SC_INDUCTION`), the others removed with `chformal`: the induction
//!   proves those for every cycle, and z3 took about twice as long at depth 9 with them in;
//! * k-induction at `k` (`yosys-smtbmc -i`) with `SC_INDUCTION` defined. Together with the
//!   base case this proves the inductive assertions for every reachable cycle.
//!
//! A mutant run (or one with `bmc_depth <= k`, or no BMC-only assertions) is one BMC of every
//! assertion to `bmc_depth`, then the induction.
//!
//! Cut points: a props line `// deep-cut: <path>` (instances below the core, dotted, e.g.
//! `ingress.occ`) replaces that sub-block's outputs by free values (yosys `cutpoint`,
//! `$anyseq`) in the deep BMC only. Every behaviour of the design is one of the cut design's,
//! so what that run proves holds for the design; it is for sub-blocks that no BMC-only
//! assertion is about and that its depth would otherwise pay for at every step. A cut design
//! has its own elaboration, in which the probes into a cut sub-block stay unconnected (free
//! values too).
//!
//! yosys elaborates twice: the induction's design (with `SC_INDUCTION`), then the BMC's, which
//! the same run also writes without the inductive assertions for the deep BMC (a third
//! elaboration of the same design took about 7 s of the 80 s TCD `tiny` proof).
//!
//! Probes: a wire in the props file marked `// probe: <path>` is connected after `flatten` to
//! the design's internal net `<path>` (yosys cannot read hierarchical references itself).
//! z3 runs with `--unroll` (its incremental mode took minutes per step on these designs);
//! yosys-smtbmc always unrolls for Bitwuzla.

use crate::tool::{run_logged_in, run_tool, ToolError, Tools};
use crate::{BlockConfig, InputError};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct FormalOptions {
    pub bmc_depth: u32,
    pub k: u32,
    /// Define `SC_MUTANT`: the props file's deliberately wrong assertion; the proof must fail.
    pub mutant: bool,
    /// Work directory: the Verilog, scripts, logs and counterexample VCDs go here.
    pub out_dir: PathBuf,
    pub tools: Tools,
    pub solver: Solver,
}

/// The SMT solver yosys-smtbmc drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Solver {
    /// Bitwuzla 0.10 (PyPI) through scripts/bitwuzla-smt2.py: RCM's and CaPFC's depth-9 BMC in
    /// 8 and 29 s, against 301 and 281 s with z3 4.8 (docs/architecture.md).
    #[default]
    Bitwuzla,
    /// Debian's z3 4.8.
    Z3,
}

impl Solver {
    /// The name yosys-smtbmc's `-s` takes (and the CLI's `--solver`).
    pub fn name(self) -> &'static str {
        match self {
            Solver::Bitwuzla => "bitwuzla",
            Solver::Z3 => "z3",
        }
    }
}

impl std::str::FromStr for Solver {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "bitwuzla" => Ok(Solver::Bitwuzla),
            "z3" => Ok(Solver::Z3),
            _ => Err(format!("unknown solver `{s}`: expected bitwuzla or z3")),
        }
    }
}

/// One solver run.
#[derive(Clone, Debug)]
pub struct Proof {
    /// "bmc" (every assertion), "bmc-deep" (the BMC-only ones) or "induction".
    pub kind: &'static str,
    pub depth: u32,
    pub passed: bool,
    /// The failing assertion's name, when yosys-smtbmc names it.
    pub failed_assertion: Option<String>,
    /// The counterexample, when the run failed.
    pub counterexample: Option<PathBuf>,
    pub log: PathBuf,
    /// Wall time in seconds.
    pub seconds: f64,
}

#[derive(Clone, Debug)]
pub struct FormalReport {
    pub instance: String,
    pub solver: Solver,
    pub assertions: Vec<String>,
    /// Every assertion from reset: to `k` when `deep` is run, else to `bmc_depth`.
    pub bmc: Proof,
    /// The BMC-only assertions from reset to `bmc_depth` (`None`: not split, or not run).
    pub deep: Option<Proof>,
    /// `None` when a BMC run failed (not run).
    pub induction: Option<Proof>,
}

impl FormalReport {
    pub fn passed(&self) -> bool {
        self.bmc.passed
            && self.deep.as_ref().is_none_or(|p| p.passed)
            && self.induction.as_ref().is_some_and(|p| p.passed)
    }
}

impl std::fmt::Display for FormalReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "formal {}: {} assertions, solver {}",
            self.instance,
            self.assertions.len(),
            self.solver.name()
        )?;
        for p in std::iter::once(&self.bmc)
            .chain(&self.deep)
            .chain(&self.induction)
        {
            write!(
                f,
                "  {:<9} depth {:>2}: {} in {:.1} s",
                p.kind,
                p.depth,
                if p.passed { "PASSED" } else { "FAILED" },
                p.seconds
            )?;
            if let Some(a) = &p.failed_assertion {
                write!(f, ", assertion {a}")?;
            }
            if let Some(v) = &p.counterexample {
                write!(f, ", counterexample {}", v.display())?;
            }
            writeln!(f, " (log {})", p.log.display())?;
        }
        if self.induction.is_none() {
            writeln!(f, "  induction not run (BMC failed)")?;
        }
        Ok(())
    }
}

/// Why the flow could not run (not a failed proof: that is a report with `passed() == false`).
#[derive(Debug)]
pub enum FormalError {
    Input(InputError),
    Tool(ToolError),
    Io(PathBuf, std::io::Error),
}

impl std::fmt::Display for FormalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FormalError::Input(e) => write!(f, "{e}"),
            FormalError::Tool(e) => write!(f, "{e}"),
            FormalError::Io(p, e) => write!(f, "{}: {e}", p.display()),
        }
    }
}

impl std::error::Error for FormalError {}

impl From<ToolError> for FormalError {
    fn from(e: ToolError) -> Self {
        FormalError::Tool(e)
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FormalError + '_ {
    move |e| FormalError::Io(path.to_path_buf(), e)
}

/// The props file of a block.
pub fn props_path(block: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("formal")
        .join(block)
        .join(format!("{block}_props.sv"))
}

/// `(wire, internal net)` for every `// probe:` line of a props file.
pub fn probes(props: &str) -> Result<Vec<(String, String)>, InputError> {
    let mut out = Vec::new();
    for (n, line) in props.lines().enumerate() {
        let Some((decl, path)) = line.split_once("// probe:") else {
            continue;
        };
        if decl.trim_start().starts_with("//") {
            continue; // prose about probes
        }
        let name = decl
            .trim()
            .strip_suffix(';')
            .and_then(|d| d.split_whitespace().last())
            .filter(|w| w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        match (name, path.trim()) {
            (Some(w), p) if !p.is_empty() && !p.contains(char::is_whitespace) => {
                out.push((w.to_string(), p.to_string()))
            }
            _ => {
                return Err(InputError(format!(
                    "props line {}: a probe must be `<decl> <wire>; // probe: <net>`",
                    n + 1
                )))
            }
        }
    }
    Ok(out)
}

/// The deep BMC's cut points: the `// deep-cut: <path>` lines of a props file, in order.
pub fn deep_cuts(props: &str) -> Result<Vec<String>, InputError> {
    let mut out = Vec::new();
    for (n, line) in props.lines().enumerate() {
        let Some(path) = line.trim_start().strip_prefix("// deep-cut:") else {
            continue;
        };
        let path = path.trim();
        let ok = !path.is_empty()
            && path
                .split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        if !ok {
            return Err(InputError(format!(
                "props line {}: a cut point must be `// deep-cut: <instance>[.<instance>...]` \
                 (instances below the core)",
                n + 1
            )));
        }
        out.push(path.to_string());
    }
    Ok(out)
}

/// A cut point: its path below the core and its yosys selection.
type Cut = (String, String);

/// The yosys selection of the instance `path` (dotted, below the core) in rust-hdl's Verilog of
/// `instance`: the cell in its parent's module (`<instance>__core` for the core's own
/// sub-blocks, else `<instance>__<parent path joined by $>`).
fn cut_selection(instance: &str, path: &str) -> String {
    let parts: Vec<&str> = path.split('.').collect();
    let (cell, parents) = parts.split_last().expect("a cut path has an instance");
    let parent = if parents.is_empty() {
        "core".to_string()
    } else {
        parents.join("$")
    };
    format!("{instance}__{parent}/{cell}")
}

/// Names of the assertions in the elaborated design: the `; yosys-smt2-assert <n> <name>` lines
/// yosys writes into an SMT-LIB2 file, in order, without repeats. An assertion the props text
/// states but the elaboration dropped (a mistyped `ifdef`, a dead branch) is not among them.
pub fn elaborated_assertions(smt2: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for line in smt2.lines() {
        let Some(rest) = line.strip_prefix("; yosys-smt2-assert ") else {
            continue;
        };
        let Some(name) = rest.split_whitespace().nth(1) else {
            continue;
        };
        // Hierarchical names (`props.a_x`) keep their last part; the labels are unique.
        let name = name
            .rsplit('.')
            .next()
            .unwrap_or(name)
            .trim_start_matches('\\');
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }
    names
}

/// Runs BMC and k-induction on `cfg` packaged under `name` (instance `<block>_<name>`).
pub fn run(
    block: &str,
    cfg: &BlockConfig,
    name: &str,
    opts: &FormalOptions,
) -> Result<FormalReport, FormalError> {
    let props_file = props_path(block);
    let props = std::fs::read_to_string(&props_file).map_err(io(&props_file))?;
    let probes = probes(&props).map_err(FormalError::Input)?;
    let cuts = deep_cuts(&props).map_err(FormalError::Input)?;
    let dir = &opts.out_dir;
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let pkg = cfg.package(name, &format!("switchcraft formal --block {block}"));
    let instance = pkg.instance.as_str();
    let verilog = dir.join(format!("{instance}.v"));
    std::fs::write(&verilog, &pkg.verilog).map_err(io(&verilog))?;

    let mut defines = cfg.formal_defines(instance);
    if opts.mutant {
        defines.push(("SC_MUTANT".into(), "1".into()));
    }
    let mut ind_defines = defines.clone();
    ind_defines.push(("SC_INDUCTION".into(), "1".into()));
    let tools = &opts.tools;
    let cut_cells: Vec<Cut> = cuts
        .iter()
        .map(|c| (c.clone(), cut_selection(instance, c)))
        .collect();
    let prep = |kind: &str, defines: &[(String, String)], deep: Option<&[String]>, cut: &[Cut]| {
        let top = format!("{block}_props");
        prepare(
            tools,
            &top,
            dir,
            kind,
            &verilog,
            &props_file,
            defines,
            &probes,
            deep,
            cut,
        )
    };
    let read_assertions = |smt: &Path| -> Result<Vec<String>, FormalError> {
        Ok(elaborated_assertions(
            &std::fs::read_to_string(smt).map_err(io(smt))?,
        ))
    };
    // The induction's design first: the assertions it elaborates are the ones the deep BMC
    // leaves out, and the BMC's design is written with and without them in one yosys run.
    // (A mutant's BMC fails, so its induction script is written only if it is needed.)
    let mut ind_smt = None;
    if !opts.mutant {
        ind_smt = Some(prep("induction", &ind_defines, None, &[])?.0);
    }
    let inductive = match &ind_smt {
        Some(smt) => read_assertions(smt)?,
        None => Vec::new(),
    };
    let may_split = !opts.mutant && opts.bmc_depth > opts.k;
    // With cut points the deep BMC's design is elaborated on its own (`bmc-cut.*`).
    let one_run = cut_cells.is_empty();
    let (bmc_smt, mut deep_smt) = prep(
        "bmc",
        &defines,
        (may_split && one_run).then_some(&inductive[..]),
        &[],
    )?;
    let all = read_assertions(&bmc_smt)?;
    let bmc_only: Vec<String> = all
        .iter()
        .filter(|a| !inductive.contains(a))
        .cloned()
        .collect();
    let split = may_split && !bmc_only.is_empty();

    let bmc_depth = if split { opts.k } else { opts.bmc_depth };
    let bmc = solve(opts, "bmc", &bmc_smt, bmc_depth, false)?;
    let mut passed = bmc.passed;
    let mut deep = None;
    if split && passed {
        if !one_run {
            deep_smt = prep("bmc-cut", &defines, Some(&inductive[..]), &cut_cells)?.1;
        }
        let deep_smt = deep_smt.expect("written when a split is possible");
        // A removal that missed (or took more) would change what is proved: check it.
        let mut kept = read_assertions(&deep_smt)?;
        kept.sort();
        let mut expected = bmc_only.clone();
        expected.sort();
        if kept != expected {
            return Err(FormalError::Tool(ToolError {
                tool: "yosys",
                log: Some(dir.join("bmc.yosys.log")),
                detail: format!("chformal kept {kept:?}, not the BMC-only assertions {bmc_only:?}"),
            }));
        }
        let p = solve(opts, "bmc-deep", &deep_smt, opts.bmc_depth, false)?;
        passed = p.passed;
        deep = Some(p);
    }
    let induction = if passed {
        let ind_smt = match ind_smt {
            Some(smt) => smt,
            None => prep("induction", &ind_defines, None, &[])?.0,
        };
        Some(solve(opts, "induction", &ind_smt, opts.k, true)?)
    } else {
        None
    };
    Ok(FormalReport {
        instance: instance.to_string(),
        solver: opts.solver,
        assertions: all,
        bmc,
        deep,
        induction,
    })
}

/// yosys: read, cut the `cut` instances, flatten, connect the probes (but those into a cut
/// instance), write SMT-LIB2; with `deep`, then remove those assertions (by label) and write the rest as
/// `bmc-deep.smt2` from the same run. Returns the .smt2 paths.
#[allow(clippy::too_many_arguments)]
fn prepare(
    tools: &Tools,
    top: &str,
    dir: &Path,
    kind: &str,
    verilog: &Path,
    props: &Path,
    defines: &[(String, String)],
    probes: &[(String, String)],
    deep: Option<&[String]>,
    cut: &[Cut],
) -> Result<(PathBuf, Option<PathBuf>), FormalError> {
    let smt = dir.join(format!("{kind}.smt2"));
    let script = dir.join(format!("{kind}.ys"));
    let log = dir.join(format!("{kind}.yosys.log"));
    let mut ys = String::new();
    let _ = writeln!(ys, "read_verilog {}", verilog.display());
    let defs: String = defines.iter().map(|(k, v)| format!(" -D{k}={v}")).collect();
    let _ = writeln!(ys, "read_verilog -formal{defs} {}", props.display());
    let _ = writeln!(ys, "prep -top {top}");
    for (_, sel) in cut {
        // A cut point that names no instance would prove the design uncut: fail instead.
        let _ = writeln!(ys, "select -assert-count 1 {sel}\ncutpoint {sel}");
    }
    ys += "flatten\n";
    for (wire, net) in probes {
        // A probe into a cut instance names a net the cut removed: it stays a free value.
        let into_cut = cut
            .iter()
            .any(|(path, _)| net.starts_with(&format!("dut.core.{path}.")));
        if !into_cut {
            let _ = writeln!(ys, "connect -set {wire} {net}");
        }
    }
    // Constant propagation across the flattened hierarchy (the config's masks and constants
    // reach the core's registers only after flatten): BFC's BMC steps ran about 6x faster.
    // `-keepdc` keeps undefined values undefined, as `prep` does, so no behaviour is assumed.
    ys += "opt -keepdc -fine\nwreduce -keepdc\nopt -keepdc\nopt_clean\n";
    // opt folds enables and resets into flip-flops; write_smt2 wants them as plain logic.
    ys += "dffunmap\n";
    let _ = writeln!(ys, "write_smt2 -wires {}", smt.display());
    let mut deep_smt = None;
    if let Some([]) = deep {
        deep_smt = Some(smt.clone());
    } else if let Some(removed) = deep {
        // The logic only the removed assertions read goes with them (opt_clean sweeps it).
        let path = dir.join("bmc-deep.smt2");
        let cells: Vec<String> = removed.iter().map(|a| format!("{top}/{a}")).collect();
        let _ = writeln!(ys, "chformal -assert -remove {}", cells.join(" "));
        let _ = writeln!(ys, "opt_clean\nwrite_smt2 -wires {}", path.display());
        deep_smt = Some(path);
    }
    std::fs::write(&script, ys).map_err(io(&script))?;
    let args = [
        "-q".to_string(),
        "-s".to_string(),
        script.display().to_string(),
    ];
    run_tool("yosys", &tools.yosys, &args, &log)?;
    Ok((smt, deep_smt))
}

/// yosys-smtbmc with `opts.solver`: BMC (`induction` false) or the induction step.
fn solve(
    opts: &FormalOptions,
    kind: &'static str,
    smt: &Path,
    depth: u32,
    induction: bool,
) -> Result<Proof, FormalError> {
    let dir = &opts.out_dir;
    let log = dir.join(format!("{kind}.smtbmc.log"));
    let vcd = dir.join(format!("{kind}_counterexample.vcd"));
    let _ = std::fs::remove_file(&vcd);
    let mut args: Vec<String> = vec!["-s".into(), opts.solver.name().into()];
    let mut path_first = None;
    match opts.solver {
        Solver::Z3 => args.push("--unroll".into()),
        Solver::Bitwuzla => {
            let launcher = Path::new(&opts.tools.bitwuzla);
            // yosys-smtbmc starts `bitwuzla` by that name from PATH.
            if !launcher.is_file() || launcher.file_name() != Some("bitwuzla".as_ref()) {
                return Err(FormalError::Tool(ToolError {
                    tool: "bitwuzla",
                    log: None,
                    detail: format!(
                        "no launcher at {} (install it with `make formal-tools`, or point \
                         $BITWUZLA at a program named `bitwuzla`, or use `--solver z3`)",
                        launcher.display()
                    ),
                }));
            }
            path_first = launcher.parent();
        }
    }
    args.push("-t".into());
    args.push(depth.to_string());
    args.push("--dump-vcd".into());
    args.push(vcd.display().to_string());
    if induction {
        args.push("-i".into());
    }
    args.push(smt.display().to_string());
    // A failed proof exits non-zero too: the status line decides, not the exit code.
    let (exit, seconds) = run_logged_in(
        "yosys-smtbmc",
        &opts.tools.smtbmc,
        &args,
        &log,
        None,
        path_first,
    )?;
    let text = std::fs::read_to_string(&log).map_err(io(&log))?;
    let status = text
        .lines()
        .rev()
        .find_map(|l| l.split("Status: ").nth(1))
        .map(str::trim);
    let passed = match status {
        Some("PASSED") => true,
        Some("FAILED") => false,
        _ => {
            return Err(FormalError::Tool(ToolError {
                tool: "yosys-smtbmc",
                log: Some(log),
                detail: format!("{exit}, and no PASSED/FAILED status in its log"),
            }))
        }
    };
    let failed_assertion = text
        .lines()
        .find_map(|l| l.split("Assert failed in ").nth(1))
        .and_then(|s| s.split(": ").nth(1))
        .map(|s| s.split_whitespace().next().unwrap_or(s).to_string());
    Ok(Proof {
        kind,
        depth,
        passed,
        failed_assertion,
        counterexample: (!passed && vcd.exists()).then_some(vcd),
        log,
        seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_cuts_are_read_and_named_as_rust_hdl_names_the_modules() {
        let text = "// deep-cut: ingress.occ\n  // deep-cut: egress\nwire a; // deep-cut: x\n";
        let cuts = deep_cuts(text).unwrap();
        assert_eq!(cuts, ["ingress.occ", "egress"]);
        assert_eq!(
            cut_selection("capfc_tiny", &cuts[0]),
            "capfc_tiny__ingress/occ"
        );
        assert_eq!(
            cut_selection("capfc_tiny", &cuts[1]),
            "capfc_tiny__core/egress"
        );
        assert_eq!(cut_selection("capfc_tiny", "a.b.c"), "capfc_tiny__a$b/c");
        let bad = deep_cuts("x\n// deep-cut: ingress..occ\n").unwrap_err();
        assert!(bad.0.contains("props line 2"), "{}", bad.0);
        assert!(deep_cuts("// deep-cut:\n").is_err());
    }

    #[test]
    fn probes_are_read_from_the_props_text() {
        let text = "    (* keep *) wire [3:0] a; // probe: dut.core.a$q\n\
                    // a comment about a `// probe: x` line\n\
                    wire b;   // probe: dut.b\n\
                    always @(*) a_one: assert (a == 1);\n\
                    always @(*) if (x) a_two: assert (b);\n";
        assert_eq!(
            probes(text).unwrap(),
            [
                ("a".to_string(), "dut.core.a$q".to_string()),
                ("b".to_string(), "dut.b".to_string())
            ]
        );
        let bad = probes("wire c // probe: x\n").unwrap_err();
        assert!(bad.0.contains("props line 1"), "{bad}");
    }

    #[test]
    fn assertions_are_read_from_the_elaborated_design() {
        let smt2 = "; yosys-smt2-module top\n\
                    ; yosys-smt2-assert 0 a_one props.sv:3.5-3.30\n\
                    ; yosys-smt2-assert 1 \\props.a_two\n\
                    ; yosys-smt2-assert 2 a_one\n\
                    (define-fun |top_a 0| ((state |top_s|)) Bool true)\n";
        assert_eq!(elaborated_assertions(smt2), ["a_one", "a_two"]);
    }
}
