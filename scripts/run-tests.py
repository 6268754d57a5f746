#!/usr/bin/env python3
"""Builds every test binary of the workspace, then runs them side by side.

`cargo test` runs one test binary after another. Many of ours spend most of their time in one
single-threaded tool (a solver, nextpnr, one long co-simulation), so one core idles while the
other works. This runs up to --jobs binaries at once (default: one per core), each as cargo
would (its package's directory, the same binary), the longest first (durations of the last
run, kept in target/test-durations.json). A binary's output is kept in
target/test-logs/<name>.log and printed whole when it fails. Exit status 1 if any failed.

With --clippy the build itself is the lint gate: the workspace's crates are compiled by
clippy-driver (cargo's RUSTC_WORKSPACE_WRAPPER, which is how `cargo clippy` runs it), every
target (`--all-targets`, as `cargo clippy --all-targets`), and any warning fails the run, as
`-D warnings` would. A separate `cargo clippy` also checked every dependency a second time
(check mode shares nothing with the test build); clippy's lints themselves, mostly over the
RTL crate's macro-expanded code, remain, so a clean build saves about half a minute.
"""

import argparse
import json
import os
import subprocess
import sys
import threading
import time

# Before any run has recorded durations: these are the long ones (minutes on 2 cores).
LONG_FIRST = ("config_fuzz", "_equivalence", "example_", "_formal", "_synth", "_loops")


def build(cargo, clippy):
    """Builds the test binaries; returns [(name, command, cwd)]."""
    cmd = [cargo, "test", "--workspace", "--no-run", "--message-format=json"]
    if clippy:
        cmd.append("--all-targets")
        # In the environment of every cargo run that follows too (the doc tests): a crate
        # compiled without the wrapper has another fingerprint, and cargo would build the
        # workspace again (2 minutes of CPU).
        os.environ["RUSTC_WORKSPACE_WRAPPER"] = clippy
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    binaries = []
    warnings = 0
    for line in proc.stdout:
        msg = json.loads(line)
        if msg.get("reason") == "compiler-message":
            # Dependencies are compiled with --cap-lints: only the workspace's crates warn.
            sys.stderr.write(msg["message"]["rendered"])
            warnings += msg["message"]["level"] == "warning"
            continue
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        target = msg["target"]
        # The benchmark is built to be linted; `make bench` runs it.
        if not msg["profile"]["test"] or "bench" in target["kind"]:
            continue
        # Integration tests are named after their file, a crate's own tests after the crate
        # and the kind of target (lib, bin).
        kind = target["kind"][0]
        name = target["name"] if kind == "test" else f"{target['name']} ({kind})"
        cwd = os.path.dirname(msg["manifest_path"])
        binaries.append((name, [msg["executable"]], cwd))
    if proc.wait() != 0:
        sys.exit(proc.returncode)
    if clippy and warnings:
        # (rustc's "N warnings emitted" summary is a message of its own: no count here.)
        sys.exit("warnings in the build (above): make test treats them as errors")
    # Doc tests are compiled when run; one more job, as `cargo test` runs them last.
    binaries.append(("doc-tests", [cargo, "test", "--workspace", "--doc"], os.getcwd()))
    return binaries


def order(binaries, durations):
    """Binaries without a recorded duration first (a new one may be long; known-long name
    patterns ahead), then the recorded ones, longest first."""

    def key(b):
        name = b[0]
        if name not in durations:
            hint = next((i for i, p in enumerate(LONG_FIRST) if p in name), len(LONG_FIRST))
            return (0, hint)
        return (1, -durations[name])

    return sorted(binaries, key=key)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument(
        "--clippy",
        metavar="DRIVER",
        help="compile the workspace with this clippy-driver; fail on any warning",
    )
    args = ap.parse_args()

    cargo = os.environ.get("CARGO", "cargo")
    target_dir = os.environ.get("CARGO_TARGET_DIR", "target")
    binaries = build(cargo, args.clippy)
    logs = os.path.join(target_dir, "test-logs")
    os.makedirs(logs, exist_ok=True)
    times_path = os.path.join(target_dir, "test-durations.json")
    try:
        with open(times_path) as f:
            durations = json.load(f)
    except (OSError, ValueError):
        durations = {}

    queue = order(binaries, durations)
    lock = threading.Lock()
    results = []  # (name, ok, seconds, log path)
    started = time.monotonic()

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                name, cmd, cwd = queue.pop(0)
            log_path = os.path.join(logs, name.replace(" ", "_") + ".log")
            t0 = time.monotonic()
            with open(log_path, "w") as log:
                proc = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
                # wait4: the CPU time of the binary and of the tools it ran (solvers, nextpnr).
                _, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = code = os.waitstatus_to_exitcode(status)
            secs = time.monotonic() - t0
            cpu = usage.ru_utime + usage.ru_stime
            with lock:
                results.append((name, code == 0, secs, log_path))
                status = "ok  " if code == 0 else "FAIL"
                print(f"{status} {name:<32} {secs:7.1f} s  (CPU {cpu:7.1f} s)", flush=True)

    print(f"running {len(binaries)} test binaries, {args.jobs} at a time", flush=True)
    threads = [threading.Thread(target=worker) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    # Durations feed the next run's order; a failed binary's time is kept too (it ran).
    durations.update({name: round(secs, 1) for name, _, secs, _ in results})
    tmp = times_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(durations, f, indent=1, sort_keys=True)
    os.replace(tmp, times_path)

    failed = [r for r in results if not r[1]]
    for name, _, _, log_path in failed:
        print(f"\n==== {name}: output ({log_path}) ====", flush=True)
        with open(log_path, errors="replace") as f:
            sys.stdout.write(f.read())
    wall = time.monotonic() - started
    busy = sum(r[2] for r in results)
    print(
        f"\n{len(results) - len(failed)} of {len(results)} test binaries passed in {wall:.0f} s "
        f"({busy:.0f} s of binaries run {args.jobs} at a time)"
    )
    if failed:
        print("failed: " + ", ".join(r[0] for r in failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
