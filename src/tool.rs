//! Running the hardware tools (yosys, yosys-smtbmc, nextpnr-ice40, icepack) with their output in
//! a log file, for the formal and synthesis flows.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::Instant;

/// Programs to run; `$YOSYS`, `$YOSYS_SMTBMC`, `$NEXTPNR_ICE40` and `$ICEPACK` pick others (like
/// `$VERILATOR` for the simulator).
#[derive(Clone, Debug)]
pub struct Tools {
    pub yosys: String,
    pub smtbmc: String,
    pub nextpnr: String,
    pub icepack: String,
}

/// (tool name, environment variable, default program).
const TOOLS: [(&str, &str, &str); 4] = [
    ("yosys", "YOSYS", "yosys"),
    ("yosys-smtbmc", "YOSYS_SMTBMC", "yosys-smtbmc"),
    ("nextpnr-ice40", "NEXTPNR_ICE40", "nextpnr-ice40"),
    ("icepack", "ICEPACK", "icepack"),
];

impl Tools {
    pub fn from_env() -> Self {
        let pick = |k: usize| std::env::var(TOOLS[k].1).unwrap_or_else(|_| TOOLS[k].2.into());
        Tools {
            yosys: pick(0),
            smtbmc: pick(1),
            nextpnr: pick(2),
            icepack: pick(3),
        }
    }

    /// One line per tool, for reports. A tool that cannot say is "unknown", not an error: the
    /// flows report missing tools when they need them.
    pub fn versions(&self) -> BTreeMap<String, String> {
        let first_line = |program: &str, args: &[&str]| -> String {
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
        };
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
    let status = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .status()
        .map_err(|e| {
            let var = TOOLS.iter().find(|t| t.0 == tool).map_or("PATH", |t| t.1);
            fail(format!(
                "cannot run `{program}`: {e} (install the tools with `make setup`, or point ${var} at it)"
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
    let (status, seconds) = run_logged(tool, program, args, log)?;
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
