//! A scratch directory per test under the system's temp dir: removed when the test passes,
//! kept (and its path printed) when it panics, so a failure's files can be inspected.

use std::ops::Deref;
use std::path::{Path, PathBuf};

pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// An empty directory `<temp>/sc-<prefix>-<pid>-<name>`.
    pub fn new(prefix: &str, name: &str) -> ScratchDir {
        let d = std::env::temp_dir().join(format!("sc-{prefix}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        ScratchDir(d)
    }
}

impl Deref for ScratchDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for ScratchDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
