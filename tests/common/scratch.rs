//! A scratch directory per test under cargo's `target/tmp/`: removed when the test passes, kept
//! (and its path printed) when it panics, so a failure's files can be inspected.

use std::ops::Deref;
use std::path::{Path, PathBuf};

pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// An empty directory `target/tmp/sc-<prefix>-<pid>-<name>`.
    pub fn new(prefix: &str, name: &str) -> ScratchDir {
        let d = super::artefacts(&format!("sc-{prefix}-{}-{name}", std::process::id()));
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
