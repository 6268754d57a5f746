//! Running the `switchcraft` binary from tests, and checking its output.

use std::process::{Command, Output};

/// Runs `switchcraft args...` from the repository root.
pub fn sc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_switchcraft"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit 2, one `error:` message containing `want`, no panic.
pub fn assert_bad_input(o: &Output, want: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {e}");
    assert!(e.contains(want), "{e:?} lacks {want:?}");
    assert!(!e.contains("panicked"), "{e}");
}

/// Runs `switchcraft args...`, requires success and returns stdout.
pub fn ok(args: &[&str]) -> String {
    let o = sc(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}
