//! The one way switchcraft writes a file: [`OutputFile`], written under a temporary name beside
//! the target and moved into place by [`OutputFile::commit`], so an error or an interrupt never
//! leaves a half-written file and never touches a file it should not:
//! * only regular files are written: a device, FIFO, socket or directory at the path is refused
//!   (as root, `--out /dev/null` would otherwise replace the device with a regular file);
//! * a symbolic link is followed, and its target is written (the link stays a link);
//! * an existing file keeps its permission bits, and a file with other hard links is rewritten
//!   in place from the complete temporary, so every link sees the new contents;
//! * temporaries still open are listed, so an interrupt handler can remove them
//!   ([`remove_partial_files`]); so can a file another writer fills (Verilator's trace), while it
//!   is open ([`track_partial`]).
//!
//! [`check_distinct`] refuses a command line whose outputs name one of its inputs or each other.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Files being written: removed by [`remove_partial_files`] if the process is interrupted.
static PARTIAL: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn partial() -> std::sync::MutexGuard<'static, BTreeSet<PathBuf>> {
    PARTIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Lists `path` as incomplete until [`untrack_partial`]: an interrupt removes it.
pub fn track_partial(path: &Path) {
    partial().insert(path.to_path_buf());
}

pub fn untrack_partial(path: &Path) {
    partial().remove(path);
}

/// Removes every file still being written (for an interrupt handler, before it exits).
pub fn remove_partial_files() {
    for p in std::mem::take(&mut *partial()) {
        let _ = std::fs::remove_file(p);
    }
}

fn invalid(msg: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, msg)
}

/// The file `path` names: a symbolic link's target, else `path` itself.
fn resolve(path: &Path) -> std::io::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).map_err(|e| {
            invalid(format!(
                "is a symbolic link whose target cannot be resolved ({e})"
            ))
        }),
        _ => Ok(path.to_path_buf()),
    }
}

/// An existing file's identity (device, inode), or `None` when nothing is there yet.
fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Refuses paths of one command that name the same file, inputs and outputs given as
/// `(flag, path)`: writing an output over an input, or two outputs into one file, loses data.
pub fn check_distinct(inputs: &[(&str, &Path)], outputs: &[(&str, &Path)]) -> Result<(), String> {
    let key = |p: &Path| -> Option<PathBuf> {
        // An output that does not exist yet is its resolved directory plus its name.
        std::fs::canonicalize(p).ok().or_else(|| {
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty());
            let dir = std::fs::canonicalize(dir.unwrap_or(Path::new("."))).ok()?;
            Some(dir.join(p.file_name()?))
        })
    };
    for (i, (out_flag, out)) in outputs.iter().enumerate() {
        let out_id = identity(out);
        let out_key = key(out);
        let earlier = inputs.iter().chain(&outputs[..i]);
        for (flag, other) in earlier {
            let same = match (out_id, identity(other)) {
                (Some(a), Some(b)) => a == b,
                _ => out_key.is_some() && out_key == key(other),
            };
            if same {
                return Err(format!(
                    "{out_flag} {} names the same file as {flag} {}; choose another output",
                    out.display(),
                    other.display()
                ));
            }
        }
    }
    Ok(())
}

/// A file written under a temporary name and moved into place by [`OutputFile::commit`].
/// Dropped without commit, it removes the temporary: no half-written output survives an error.
pub struct OutputFile {
    /// The file written (a symbolic link's target).
    target: PathBuf,
    tmp: PathBuf,
    /// The existing file's permissions and whether other hard links share it.
    existing: Option<(std::fs::Permissions, bool)>,
    writer: Option<BufWriter<File>>,
}

impl OutputFile {
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let target = resolve(path)?;
        let existing = match std::fs::metadata(&target) {
            Ok(m) if !m.is_file() => {
                return Err(invalid(
                    "is not a regular file (switchcraft writes only regular files)".into(),
                ))
            }
            Ok(m) => Some((m.permissions(), m.nlink() > 1)),
            Err(_) => None,
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "out".into());
        // Unique per call, not only per process: two threads writing one path (tests that
        // package the same preset at once) must not share, truncate or rename each other's
        // temporary; the last rename wins and both leave a complete file.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = target.with_file_name(format!(".{name}.partial-{}-{n}", std::process::id()));
        track_partial(&tmp);
        let f = File::create(&tmp).inspect_err(|_| untrack_partial(&tmp))?;
        Ok(OutputFile {
            target,
            tmp,
            existing,
            writer: Some(BufWriter::new(f)),
        })
    }

    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.writer.as_mut().expect("open")
    }

    pub fn commit(mut self) -> std::io::Result<()> {
        let mut w = self.writer.take().expect("open");
        w.flush()?;
        drop(w);
        let result = match &self.existing {
            Some((perms, true)) => std::fs::copy(&self.tmp, &self.target).and_then(|_| {
                std::fs::set_permissions(&self.target, perms.clone())?;
                std::fs::remove_file(&self.tmp)
            }),
            Some((perms, false)) => std::fs::set_permissions(&self.tmp, perms.clone())
                .and_then(|_| std::fs::rename(&self.tmp, &self.target)),
            None => std::fs::rename(&self.tmp, &self.target),
        };
        if result.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        untrack_partial(&self.tmp);
        result
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
            untrack_partial(&self.tmp);
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("sc-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn write(path: &Path, text: &str) -> std::io::Result<()> {
        let mut f = OutputFile::create(path)?;
        f.write_all(text.as_bytes())?;
        f.commit()
    }

    fn leftovers(d: &Path) -> Vec<String> {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".partial-"))
            .collect()
    }

    #[test]
    fn keeps_mode_and_hard_links() {
        let d = dir("links");
        let a = d.join("a.txt");
        let b = d.join("b.txt");
        std::fs::write(&a, "old").unwrap();
        std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o640)).unwrap();
        std::fs::hard_link(&a, &b).unwrap();
        write(&a, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "new");
        let m = std::fs::metadata(&a).unwrap();
        assert_eq!(m.permissions().mode() & 0o777, 0o640);
        assert_eq!(m.nlink(), 2);
        assert!(leftovers(&d).is_empty());
    }

    #[test]
    fn follows_symlinks_and_refuses_special_files() {
        let d = dir("special");
        let real = d.join("real.txt");
        let link = d.join("link.txt");
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write(&link, "new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        let e = write(Path::new("/dev/null"), "x").unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
        let e = write(&d, "x").unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
        assert!(leftovers(&d).is_empty());
    }

    #[test]
    fn dropped_or_interrupted_writes_leave_nothing() {
        let d = dir("drop");
        let p = d.join("x.txt");
        {
            let mut f = OutputFile::create(&p).unwrap();
            f.write_all(b"half").unwrap();
        }
        assert!(leftovers(&d).is_empty());
        // An interrupt handler would remove what is listed (not called here: other tests of
        // this process are writing too).
        let f = OutputFile::create(&p).unwrap();
        assert!(partial().iter().any(|t| t.starts_with(&d)));
        drop(f);
        assert!(!partial().iter().any(|t| t.starts_with(&d)));
        assert!(leftovers(&d).is_empty());
        assert!(!p.exists());
    }

    #[test]
    fn distinct_paths() {
        let d = dir("distinct");
        let input = d.join("in.jsonl");
        std::fs::write(&input, "{}\n").unwrap();
        let alias = d.join(".").join("in.jsonl");
        let e = check_distinct(&[("--stimulus", &input)], &[("--out", &alias)]).unwrap_err();
        assert!(e.contains("--out") && e.contains("--stimulus"), "{e}");
        let (a, b) = (d.join("o.jsonl"), d.join("o.jsonl"));
        let e = check_distinct(&[], &[("--out", &a), ("--vcd", &b)]).unwrap_err();
        assert!(e.contains("--vcd") && e.contains("--out"), "{e}");
        check_distinct(&[("--stimulus", &input)], &[("--out", &a)]).unwrap();
    }
}
