//! Errors of the Verilator binding and the co-simulation runner.
//!
//! Tool failures never panic: they come back as a [`SimError`] that names the command that failed
//! and the tail of what it printed.

use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum SimError {
    /// A required external tool (verilator, make, g++) could not be started.
    #[error(
        "`{tool}` not found ({detail}); install the simulation tools with scripts/setup.sh \
         (Debian packages: verilator, g++, make), or point $VERILATOR at a Verilator 5 binary"
    )]
    ToolMissing { tool: String, detail: String },

    /// An external command ran and failed.
    #[error("command failed ({status}): {command}\n{output_tail}")]
    Tool {
        command: String,
        status: String,
        /// The last lines of its stderr (or stdout when stderr was empty).
        output_tail: String,
    },

    /// The Verilog top module's ports disagree with the port schema.
    #[error("module `{top}` does not match the port schema of block `{block}`:\n  {}", problems.join("\n  "))]
    PortMismatch {
        top: String,
        block: String,
        problems: Vec<String>,
    },

    /// A file or directory operation failed.
    #[error("{what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The built shared library could not be loaded or is not the expected shim.
    #[error("cannot load {}: {msg}", path.display())]
    Load { path: PathBuf, msg: String },

    /// The model could not be created or a trace could not be opened.
    #[error("verilated model {top}: {msg}")]
    Model { top: String, msg: String },

    /// Golden model and RTL were given different port schemas, or stimulus of the wrong shape.
    #[error("co-simulation setup: {0}")]
    Setup(String),
}

impl SimError {
    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SimError::Io {
            what,
            path: path.into(),
            source,
        }
    }
}
