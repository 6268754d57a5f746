//! Hostile inputs to the command line (issue 30): output paths that name an input, another
//! output, a special file or a link, runs interrupted while they write, a disk that fills up,
//! and inputs whose errors must stay short and clear. Each must end with a clear error or a
//! clean stop, and touch no file it should not. Random configs are in `config_fuzz.rs`.

mod common;

use common::cli::{assert_bad_input, sc};
use common::scratch::ScratchDir;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;

fn tmp(name: &str) -> ScratchDir {
    ScratchDir::new("hostile", name)
}

/// A short PFC `tiny` stimulus.
fn stimulus(dir: &Path) -> std::path::PathBuf {
    let p = dir.join("stim.jsonl");
    std::fs::write(&p, "{\"enq_valid\":1,\"enq_len\":64}\n{}\n{}\n").unwrap();
    p
}

fn simulate(stim: &Path, out: &Path, vcd: Option<&Path>) -> std::process::Output {
    let mut args = vec![
        "simulate",
        "--block",
        "pfc",
        "--preset",
        "tiny",
        "--stimulus",
        stim.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    if let Some(v) = vcd {
        args.extend(["--vcd", v.to_str().unwrap()]);
    }
    sc(&args)
}

/// Ten cycles of PFC `tiny` co-simulated with a full-run trace at `vcd`.
fn short_cosim_with_trace(vcd: &Path) -> std::process::Output {
    let args = [
        "cosim", "--block", "pfc", "--preset", "tiny", "--cycles", "10", "--vcd",
    ];
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_switchcraft"));
    cmd.args(args)
        .arg(vcd)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs")
}

fn partials(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".partial-"))
        .collect()
}

#[test]
fn an_output_over_an_input_or_another_output_is_refused() {
    let d = tmp("same");
    let stim = stimulus(&d);
    let before = std::fs::read(&stim).unwrap();
    // The same file by another spelling.
    let alias = d.join(".").join("stim.jsonl");
    assert_bad_input(&simulate(&stim, &alias, None), "--out");
    let o = simulate(&stim, &alias, None);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--stimulus"));
    assert_eq!(
        std::fs::read(&stim).unwrap(),
        before,
        "the stimulus was touched"
    );

    let out = d.join("out.jsonl");
    assert_bad_input(&simulate(&stim, &out, Some(&out)), "--vcd");
    assert!(!out.exists());

    // `generate` never writes over its config: here `a.toml` is a link to `pfc_a.v`, the
    // Verilog file it would write.
    let cfg = d.join("pfc_a.v");
    std::fs::write(&cfg, "ports = 4\npriorities = 2\noccupancy_bits = 16\nlength_bits = 11\nxoff = 1000\nxon = 500\nmax = 1500\nquanta = 4660\nrefresh = 100\n").unwrap();
    let link = d.join("a.toml");
    std::os::unix::fs::symlink(&cfg, &link).unwrap();
    let o = sc(&[
        "generate",
        "--block",
        "pfc",
        "--config",
        link.to_str().unwrap(),
        "--out",
        d.to_str().unwrap(),
    ]);
    assert_bad_input(&o, "--config");
    assert!(std::fs::read_to_string(&cfg)
        .unwrap()
        .starts_with("ports = 4"));
    assert!(partials(&d).is_empty());
    // A config beside the generated files is fine when no file takes its name.
    let own = d.join("own.toml");
    std::fs::copy(&cfg, &own).unwrap();
    let o = sc(&[
        "generate",
        "--block",
        "pfc",
        "--config",
        own.to_str().unwrap(),
        "--out",
        d.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&own).unwrap(), std::fs::read(&cfg).unwrap());
}

#[test]
fn special_files_are_refused_and_links_are_kept() {
    let d = tmp("special");
    let stim = stimulus(&d);
    // A device (as root, replacing it would break the system) and a FIFO.
    assert_bad_input(
        &simulate(&stim, Path::new("/dev/null"), None),
        "not a regular file",
    );
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    let fifo = d.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    assert_bad_input(&simulate(&stim, &fifo, None), "not a regular file");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());

    // A symlink stays a link and its target is written; an existing file keeps its mode and
    // its hard links.
    let real = d.join("real.jsonl");
    let link = d.join("link.jsonl");
    let other = d.join("other_name.jsonl");
    std::fs::write(&real, "old\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o604)).unwrap();
    std::fs::hard_link(&real, &other).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let o = simulate(&stim, &link, None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let written = std::fs::read_to_string(&real).unwrap();
    assert_eq!(written.lines().count(), 3, "{written}");
    assert_eq!(std::fs::read_to_string(&other).unwrap(), written);
    let m = std::fs::metadata(&real).unwrap();
    assert_eq!(m.permissions().mode() & 0o777, 0o604);
    assert_eq!(m.nlink(), 2);
    assert!(partials(&d).is_empty());
}

#[test]
fn an_interrupted_run_leaves_no_partial_file() {
    let d = tmp("interrupt");
    // Long enough to be caught writing: a million cycles of PFC `tiny`.
    let stim = d.join("long.jsonl");
    std::fs::write(
        &stim,
        "{\"enq_valid\":1,\"enq_len\":64}\n{}\n".repeat(500_000),
    )
    .unwrap();
    let out = d.join("out.jsonl");
    let vcd = d.join("out.vcd");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_switchcraft"))
        .args([
            "simulate",
            "--block",
            "pfc",
            "--preset",
            "tiny",
            "--stimulus",
        ])
        .arg(&stim)
        .arg("--out")
        .arg(&out)
        .arg("--vcd")
        .arg(&vcd)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let start = std::time::Instant::now();
    while partials(&d).is_empty() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "no temporary appeared"
        );
        if child.try_wait().unwrap().is_some() {
            panic!("the run ended before it could be interrupted");
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(partials(&d).is_empty(), "{:?}", partials(&d));
    assert!(!out.exists() && !vcd.exists());
}

#[test]
fn a_trace_that_fills_the_disk_fails_cleanly_instead_of_hanging() {
    // A file-size limit stands in for a full disk: writes past it fail with EFBIG (SIGXFSZ
    // ignored, as a shell's `trap "" XFSZ` does). Verilator's own reaction to a failed trace
    // write was a fatal error that hung the process.
    let d = tmp("full-disk");
    // Build (or find cached) the traced model first, without the limit: the limit would stop
    // the compiler too.
    let warm = d.join("warm.vcd");
    let o = short_cosim_with_trace(&warm);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in std::fs::read_dir(&d).unwrap() {
        std::fs::remove_file(f.unwrap().path()).unwrap();
    }
    let vcd = d.join("t.vcd");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_switchcraft"));
    cmd.args([
        "cosim", "--block", "pfc", "--preset", "tiny", "--cycles", "200000",
    ])
    .arg("--vcd")
    .arg(&vcd)
    .current_dir(env!("CARGO_MANIFEST_DIR"));
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 400 * 1024,
                rlim_max: 400 * 1024,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(300) {
            let _ = child.kill();
            panic!("cosim onto a full disk did not end within 300 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let o = child.wait_with_output().unwrap();
    assert_bad_input(&o, "File too large");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("t.rtl.vcd") || e.contains("t.vcd"), "{e}");
    let left: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "left {left:?}");
}

#[test]
fn generate_writes_every_file_or_none_and_names_the_one_it_cannot_write() {
    let d = tmp("generate");
    let out = d.join("rtl");
    // One of the package's later files is taken by a directory.
    let blocked = out.join("pfc_tiny_csr.h");
    std::fs::create_dir_all(&blocked).unwrap();
    let o = sc(&[
        "generate",
        "--block",
        "pfc",
        "--preset",
        "tiny",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_bad_input(&o, &format!("{}: cannot write", blocked.display()));
    let left: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        left,
        vec![blocked],
        "nothing else written, no temporary left"
    );
}

#[test]
fn simulate_with_a_directory_as_its_trace_writes_nothing() {
    let d = tmp("vcd-dir");
    let stim = stimulus(&d);
    let out = d.join("o.jsonl");
    let dir = d.join("waves");
    std::fs::create_dir(&dir).unwrap();
    assert_bad_input(&simulate(&stim, &out, Some(&dir)), "waves: cannot create");
    assert!(!out.exists());
    assert!(partials(&d).is_empty() && partials(&dir).is_empty());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

#[test]
fn errors_on_unwritable_paths_and_huge_keys_are_short_and_clear() {
    // A trace path that cannot be created: exit 2 with the usual prefix.
    let o = short_cosim_with_trace(Path::new("/proc/x.vcd"));
    assert_bad_input(&o, "/proc/x.vcd");
    // A megabyte-long unknown key, in a config and in a stimulus: named, shortened.
    let d = tmp("huge-key");
    let key = "k".repeat(1 << 20);
    let config = d.join("c.toml");
    std::fs::write(&config, format!("{key} = 1\n")).unwrap();
    let stim = stimulus(&d);
    let out = d.join("o.jsonl");
    let o = sc(&[
        "simulate",
        "--block",
        "pfc",
        "--config",
        config.to_str().unwrap(),
        "--stimulus",
        stim.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_bad_input(&o, "c.toml:1:1: unknown field `kkkk");
    assert!(o.stderr.len() < 1000, "{} bytes of error", o.stderr.len());
    let huge = d.join("huge.jsonl");
    std::fs::write(&huge, format!("{{\"{key}\":1}}\n")).unwrap();
    let o = simulate(&huge, &out, None);
    assert_bad_input(&o, "huge.jsonl:1: unknown port `kkkk");
    assert!(o.stderr.len() < 1000, "{} bytes of error", o.stderr.len());
    assert!(!out.exists());
}
