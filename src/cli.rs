//! What the CLI's commands share, the blocks' own helpers (`switchcraft tcd ...`) included:
//! the failure kinds and their exit status, and small argument and output helpers.

use std::io::Write;
use std::path::Path;
use switchcraft_core::output::OutputFile;
use switchcraft_core::InputError;

/// Why a command failed. Exit status: 2 for bad input, 1 for a failed run.
#[derive(Debug)]
pub enum Failure {
    /// Bad arguments, config or stimulus: printed as `error: <msg>`.
    Input(String),
    /// A mismatch, a failed proof or a tool error: printed as is.
    Run(String),
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure::Input(e.0)
    }
}

/// Maps an I/O error on `path` to bad input naming the path and what failed.
pub fn io_err<'a>(what: &'static str, path: &'a Path) -> impl Fn(std::io::Error) -> Failure + 'a {
    move |e| Failure::Input(format!("{}: {what}: {e}", path.display()))
}

/// Parses `value` of `option`; the error names both.
pub fn opt<T>(
    option: &str,
    value: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<T, Failure> {
    parse(value).map_err(|e| Failure::Input(format!("{option} {value}: {e}")))
}

/// A number without float noise or trailing zeros: 34.4, 26.96, 2.
pub fn num(x: f64) -> String {
    let s = format!("{x:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The command line as typed, without the program name (for generated files' headers).
pub fn command_line() -> String {
    std::env::args().skip(1).collect::<Vec<_>>().join(" ")
}

/// Writes `text` to `path` whole or not at all.
pub fn write_output(path: &Path, text: &str) -> Result<(), Failure> {
    let mut f = OutputFile::create(path).map_err(io_err("cannot create", path))?;
    f.write_all(text.as_bytes())
        .map_err(io_err("cannot write", path))?;
    f.commit().map_err(io_err("cannot write", path))
}
