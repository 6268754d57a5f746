//! A small hand-written Verilator 5 binding.
//!
//! [`build`] verilates one Verilog top module, generates a C++ shim with an `extern "C"` API
//! for it (create/destroy, eval, a pointer to each port's storage, VCD tracing), links shim,
//! model and Verilator runtime into one shared library, and loads that with `libloading`.
//! Per cycle, Rust writes inputs and reads outputs straight through the port pointers and calls
//! `eval` twice (rising and falling edge): no allocation, no strings.
//!
//! # The top module
//!
//! Ports `clk` (1 bit), `rst` (1 bit, active-high synchronous reset) and exactly the ports of the
//! [`PortSchema`], each 1..=64 bits, as plain `input wire [w-1:0]` / `output wire/reg [w-1:0]`.
//! After verilating, the generated model header is checked against the schema, so a mismatch is
//! reported by port name before anything is compiled.
//!
//! # Cache
//!
//! Every build lands in `<cache>/<top>-<key>/` where `key` is the SHA-256 of: the shim format
//! version and the fixed tool flags, the top module name, the Verilog file's bytes, the schema
//! JSON, the output of `verilator --version`, the host CPU (model name and feature flags: the
//! model is built with `-march=native`), the trace flag and any extra Verilator arguments.
//! A hit loads the library that is there and runs no Verilator (only `verilator --version`, once
//! per process and binary, to compute the key). `<cache>` is, first match wins:
//!
//! 1. [`BuildOptions::cache_dir`];
//! 2. `$SWITCHCRAFT_CACHE`;
//! 3. `$CARGO_TARGET_DIR/verilator-cache` if that variable holds an absolute path;
//! 4. `<target>/verilator-cache`, `<target>` being the nearest ancestor of the running executable
//!    named `target` (so tests and `cargo run` use the workspace's `target/verilator-cache`);
//! 5. `<dir>/target/verilator-cache` for the nearest ancestor `<dir>` of the current directory
//!    that has a `target/` directory;
//! 6. `$TMPDIR/switchcraft-verilator-cache`.
//!
//! A build runs in `<cache>/.tmp-<key>-<pid>-<n>/` and is renamed into place when complete, so a
//! half-built entry is never visible. A builder holds a lock on `<cache>/.locks/<top>-<key>`
//! (`flock`), so when two processes or threads ask for the same key at once, one builds and
//! the other waits and loads its library (on a file system without locks, both build and the
//! first rename wins). Temporary directories left by killed builds are removed by the next
//! cache miss once they are a day old. Entries are never evicted: delete the cache directory
//! to reclaim the space.
//!
//! Verilator's runtime objects (`verilated.o`, `verilated_threads.o`, and `verilated_vcd_c.o`
//! with trace) do not depend on the design. The first build keeps them in
//! `<cache>/runtime-<key>/` (key: the tool flags, `verilator --version`, the host CPU, the trace
//! flag and the extra arguments), renamed into place like an entry; later builds copy them into
//! their object directory, so make links them instead of compiling them again: 5.6 s of CPU
//! saved per build (8.3 s with trace), for about 50 builds in a clean `make test`.
//!
//! Only the one Verilog file is hashed: a design that `` `include``s other files (found through
//! `-I<the file's directory>`) is not rebuilt when only those change.
//!
//! # Tools
//!
//! `$VERILATOR` (or [`BuildOptions::verilator`]) picks the verilator binary, default
//! `verilator` on `PATH`. The generated makefile `V<top>.mk` is driven by GNU make with
//! `OPT_FAST="-O3 -march=native" OPT_SLOW=-O0 OPT_GLOBAL=-O2` (`make_flags`; `-O3` is
//! `$SWITCHCRAFT_OPT_FAST` when set) and
//! `-fvisibility=hidden`; the compiler is whatever that makefile uses (`$CXX`, default `g++`).

use crate::error::SimError;
use libloading::Library;
use sha2::{Digest, Sha256};
use std::ffi::{c_char, c_void, CString};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use switchcraft_core::{Dir, PortSchema};

/// Version of the generated shim and its C ABI. Part of the cache key: bump it whenever the shim,
/// the tool flags or the build recipe change.
pub const SHIM_FORMAT_VERSION: u32 = 10;

/// Verilator flags used for every build (part of the cache key).
const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
    "-O3",
    "--x-assign",
    "fast",
    "--x-initial",
    "fast",
    "-Wno-fatal",
    // Hidden visibility: without it every call between the model's functions inside the shared
    // library goes through the PLT (-fPIC's symbol interposition), 17% slower per cycle on PFC
    // `tiny`. The shim's `switchcraft_*` API is marked visible explicitly.
    "-CFLAGS",
    "-fPIC -fvisibility=hidden",
];

/// C++ optimisation for the model's per-cycle code (`OPT_FAST`), its once-only code
/// (`OPT_SLOW`: construction and the initial settle) and the runtime (`OPT_GLOBAL`). The model is
/// built for the host CPU (5% faster per cycle on PFC `tiny`); the cache key names the CPU, so a
/// cache shared between machines never loads a library built for another one. The once-only
/// code is not optimised: it is as large as the per-cycle code (RCM `fpga`: 0.6 MB of C++) and
/// at Verilator's default `-Os` took a third of a build, for code that runs once.
///
/// `$SWITCHCRAFT_OPT_FAST` replaces the per-cycle code's `-O3` (a separate cache entry):
/// `make test` sets `-O1`, for models that run a few hundred thousand cycles at most. BFC's
/// equivalence tests from a cold cache: 62 s -> 41 s, their runs from a warm one 2.8 -> 3.2 s.
fn make_flags() -> Vec<String> {
    let fast = std::env::var("SWITCHCRAFT_OPT_FAST")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "-O3".to_string());
    vec![
        format!("OPT_FAST={fast} -march=native"),
        "OPT_SLOW=-O0".to_string(),
        "OPT_GLOBAL=-O2".to_string(),
    ]
}

/// How many lines of a failing tool's output an error carries.
const TAIL_LINES: usize = 40;

#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Build with `--trace` so that [`VerilatedModel::trace_open`] works (slower per cycle).
    pub trace: bool,
    /// Cache directory; `None` = [`default_cache_dir`].
    pub cache_dir: Option<PathBuf>,
    /// Verilator binary; `None` = `$VERILATOR`, else `verilator` on `PATH`.
    pub verilator: Option<PathBuf>,
    /// Extra Verilator arguments (part of the cache key), e.g. `-DFOO=1`.
    pub extra_args: Vec<String>,
    /// Parallel make jobs; `None` = the number of CPUs.
    pub jobs: Option<usize>,
}

/// Where a model came from.
#[derive(Clone, Debug)]
pub struct BuildInfo {
    /// Hex SHA-256 cache key.
    pub key: String,
    /// The cache entry directory.
    pub dir: PathBuf,
    /// The loaded shared library.
    pub library: PathBuf,
    /// True if the library was already in the cache (nothing was verilated or compiled).
    pub cache_hit: bool,
    /// Time spent in [`build`] (key, verilate, compile, load).
    pub elapsed: Duration,
}

/// Everything needed to build the model again (e.g. its `--trace` variant).
#[derive(Debug)]
struct Recipe {
    source_name: String,
    source_dir: Option<PathBuf>,
    source: Vec<u8>,
    top: String,
    schema: PortSchema,
    opts: BuildOptions,
}

/// Verilates `verilog`'s module `top` (ports `clk`, `rst` and those of `schema`), builds and
/// loads it, reusing the cache when the same inputs were built before.
pub fn build(
    verilog: &Path,
    top: &str,
    schema: &PortSchema,
    opts: &BuildOptions,
) -> Result<VerilatedModel, SimError> {
    let source = std::fs::read(verilog).map_err(|e| SimError::io("cannot read", verilog, e))?;
    let source_name = verilog
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| format!("{top}.v"));
    let source_dir = verilog
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.to_path_buf()));
    check_names(top, schema)?;
    let recipe = Arc::new(Recipe {
        source_name,
        source_dir,
        source,
        top: top.to_string(),
        schema: schema.clone(),
        opts: opts.clone(),
    });
    build_recipe(recipe, opts.trace)
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn check_names(top: &str, schema: &PortSchema) -> Result<(), SimError> {
    let mut problems = Vec::new();
    if !is_identifier(top) {
        problems.push(format!("top module name `{top}` is not a plain identifier"));
    }
    for p in &schema.ports {
        if !is_identifier(&p.name) {
            problems.push(format!("port `{}` is not a plain identifier", p.name));
        }
        if p.name == "clk" || p.name == "rst" {
            problems.push(format!(
                "port `{}` is implicit and must not be in the schema",
                p.name
            ));
        }
        if !(1..=64).contains(&p.width) {
            problems.push(format!(
                "port `{}`: width {} outside 1..=64",
                p.name, p.width
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(SimError::PortMismatch {
            top: top.to_string(),
            block: schema.block.clone(),
            problems,
        })
    }
}

fn build_recipe(recipe: Arc<Recipe>, trace: bool) -> Result<VerilatedModel, SimError> {
    let start = Instant::now();
    let bin = verilator_binary(&recipe.opts);
    let version = verilator_version(&bin)?;
    let tools = format!("{version}\n{}", host_cpu());
    let key = cache_key(&recipe, trace, &tools);
    let cache = recipe
        .opts
        .cache_dir
        .clone()
        .unwrap_or_else(default_cache_dir);
    let dir = cache.join(format!("{}-{}", recipe.top, key));
    let lib_name = format!("libswitchcraft_{}.so", recipe.top);
    let library = dir.join(&lib_name);

    // Held while building, so one key is built once: a thread or process that asks for a key
    // being built waits for that build and loads its library (two tests of one binary often
    // ask for the same top at once; each built it and the loser threw its build away).
    let _build_lock = if library.is_file() {
        None
    } else {
        lock_key(&cache, &recipe.top, &key)?
    };
    let cache_hit = library.is_file();
    if !cache_hit {
        remove_stale_builds(&cache);
        static BUILD_SEQ: AtomicU64 = AtomicU64::new(0);
        let tmp = cache.join(format!(
            ".tmp-{}-{}-{}",
            &key[..16],
            std::process::id(),
            BUILD_SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp)
            .map_err(|e| SimError::io("cannot create build directory", &tmp, e))?;
        let runtime = cache.join(format!("runtime-{}", runtime_key(&recipe, trace, &tools)));
        let built = build_in(&tmp, &recipe, trace, &bin, &version, &lib_name, &runtime);
        if let Err(e) = built {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
        if let Err(e) = std::fs::rename(&tmp, &dir) {
            // Lost the race against another builder of the same key: use its result.
            let _ = std::fs::remove_dir_all(&tmp);
            if !library.is_file() {
                return Err(SimError::io("cannot move build into the cache at", &dir, e));
            }
        }
    }

    let mut model = VerilatedModel::load(&library, recipe.clone(), trace)?;
    model.info = BuildInfo {
        key,
        dir,
        library,
        cache_hit,
        elapsed: start.elapsed(),
    };
    Ok(model)
}

/// An exclusive lock on `<cache>/.locks/<top>-<key>`, released when the file is dropped;
/// `None` where the file system has no locks.
/// The lock files stay (empty): removing one while another builder waits on it would let a
/// third take a new one and build beside it.
fn lock_key(cache: &Path, top: &str, key: &str) -> Result<Option<std::fs::File>, SimError> {
    let locks = cache.join(".locks");
    std::fs::create_dir_all(&locks)
        .map_err(|e| SimError::io("cannot create cache directory", &locks, e))?;
    let path = locks.join(format!("{top}-{}", &key[..16]));
    let file = std::fs::File::create(&path)
        .map_err(|e| SimError::io("cannot create lock file", &path, e))?;
    // Without locks (some network file systems) both build and the first rename wins.
    Ok(file.lock().is_ok().then_some(file))
}

/// Removes `.tmp-*` build directories older than a day (left behind by killed builds).
fn remove_stale_builds(cache: &Path) {
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    for e in entries.flatten() {
        let stale = e.file_name().to_string_lossy().starts_with(".tmp-")
            && e.metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > Duration::from_secs(24 * 3600));
        if stale {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The cache directory used when [`BuildOptions::cache_dir`] is `None` (see the module docs).
pub fn default_cache_dir() -> PathBuf {
    let nonempty = |v: Option<std::ffi::OsString>| v.filter(|s| !s.is_empty());
    if let Some(d) = nonempty(std::env::var_os("SWITCHCRAFT_CACHE")) {
        return PathBuf::from(d);
    }
    if let Some(t) = nonempty(std::env::var_os("CARGO_TARGET_DIR")) {
        let t = PathBuf::from(t);
        if t.is_absolute() {
            return t.join("verilator-cache");
        }
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(target) = exe
            .ancestors()
            .skip(1)
            .find(|a| a.file_name().is_some_and(|n| n == "target"))
        {
            return target.join("verilator-cache");
        }
    }
    if let Ok(cwd) = std::env::current_dir() {
        if let Some(dir) = cwd.ancestors().find(|a| a.join("target").is_dir()) {
            return dir.join("target").join("verilator-cache");
        }
    }
    std::env::temp_dir().join("switchcraft-verilator-cache")
}

fn verilator_binary(opts: &BuildOptions) -> PathBuf {
    if let Some(v) = &opts.verilator {
        return v.clone();
    }
    match std::env::var_os("VERILATOR") {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => PathBuf::from("verilator"),
    }
}

/// What `-march=native` builds for: the first processor's model name and feature flags from
/// /proc/cpuinfo (empty where there is none).
fn host_cpu() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.split(':').next().map(str::trim) == Some(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default()
    };
    format!("cpu {} | {}", field("model name"), field("flags"))
}

/// `verilator --version`, run once per process and binary.
fn verilator_version(bin: &Path) -> Result<String, SimError> {
    static SEEN: Mutex<Vec<(PathBuf, String)>> = Mutex::new(Vec::new());
    if let Some((_, v)) = SEEN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(b, _)| b == bin)
    {
        return Ok(v.clone());
    }
    let mut log = String::new();
    let out = run_tool(Command::new(bin).arg("--version"), &mut log)?;
    let version = String::from_utf8_lossy(&out).trim().to_string();
    SEEN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((bin.to_path_buf(), version.clone()));
    Ok(version)
}

fn cache_key(recipe: &Recipe, trace: bool, version: &str) -> String {
    let shim = format!("switchcraft-sim shim {SHIM_FORMAT_VERSION}");
    let (flags, make) = (VERILATOR_FLAGS.join(" "), make_flags().join(" "));
    let schema = recipe.schema.to_json();
    let fields: [&[u8]; 8] = [
        shim.as_bytes(),
        flags.as_bytes(),
        make.as_bytes(),
        recipe.top.as_bytes(),
        &recipe.source,
        schema.as_bytes(),
        version.as_bytes(),
        &[trace as u8],
    ];
    digest(
        fields
            .into_iter()
            .chain(recipe.opts.extra_args.iter().map(|a| a.as_bytes())),
    )
}

/// The key of Verilator's runtime objects (`verilated*.o`): everything their compilation
/// depends on, which is the same for every design built with these flags.
fn runtime_key(recipe: &Recipe, trace: bool, tools: &str) -> String {
    let (flags, make) = (VERILATOR_FLAGS.join(" "), make_flags().join(" "));
    let fields: [&[u8]; 5] = [
        b"switchcraft-sim runtime 1",
        flags.as_bytes(),
        make.as_bytes(),
        tools.as_bytes(),
        &[trace as u8],
    ];
    digest(
        fields
            .into_iter()
            .chain(recipe.opts.extra_args.iter().map(|a| a.as_bytes())),
    )
}

/// The SHA-256 of `fields` in hex, each field prefixed by its length (so that no two lists of
/// fields hash the same bytes).
fn digest<'a>(fields: impl Iterator<Item = &'a [u8]>) -> String {
    let mut h = Sha256::new();
    for bytes in fields {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    let mut hex = String::with_capacity(64);
    for b in h.finalize() {
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

/// Whether `name` is one of Verilator's runtime objects in a build's `obj/`, not the design's
/// (`V<top>*`) or the shim's.
fn is_runtime_object(name: &str) -> bool {
    name.starts_with("verilated") && name.ends_with(".o")
}

/// Copies the runtime objects kept in `runtime` into `obj`: fresh copies are newer than their
/// sources, so make does not compile them again (5.6 s of CPU per build here, 2.7 s more
/// with `--trace`, against about 10 s for a small design). Nothing kept yet: nothing copied.
fn reuse_runtime(runtime: &Path, obj: &Path, log: &mut String) {
    let Ok(entries) = std::fs::read_dir(runtime) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        if is_runtime_object(&name.to_string_lossy())
            && std::fs::copy(e.path(), obj.join(&name)).is_ok()
        {
            let _ = writeln!(log, "reused {}", e.path().display());
        }
    }
}

/// Keeps the runtime objects a build compiled in `obj` under `runtime` for later builds (a
/// complete set or nothing: written into a temporary directory, then renamed).
fn keep_runtime(obj: &Path, runtime: &Path) {
    if runtime.is_dir() {
        return;
    }
    let Some(cache) = runtime.parent() else {
        return;
    };
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let tmp = cache.join(format!(
        ".tmp-runtime-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let copied = (|| -> std::io::Result<()> {
        std::fs::create_dir_all(&tmp)?;
        for e in std::fs::read_dir(obj)?.flatten() {
            let name = e.file_name();
            if is_runtime_object(&name.to_string_lossy()) {
                std::fs::copy(e.path(), tmp.join(&name))?;
            }
        }
        std::fs::rename(&tmp, runtime)
    })();
    if copied.is_err() {
        // Another build kept them first, or the cache is read-only: nothing is lost.
        let _ = std::fs::remove_dir_all(&tmp);
    }
}

/// Verilates, checks the ports, generates the shim and links the library inside `tmp`, with
/// Verilator's runtime objects from `runtime` when an earlier build kept them there.
fn build_in(
    tmp: &Path,
    recipe: &Recipe,
    trace: bool,
    bin: &Path,
    version: &str,
    lib_name: &str,
    runtime: &Path,
) -> Result<(), SimError> {
    let top = &recipe.top;
    let write = |path: PathBuf, text: &[u8]| -> Result<(), SimError> {
        std::fs::write(&path, text).map_err(|e| SimError::io("cannot write", path, e))
    };
    let src_dir = tmp.join("src");
    std::fs::create_dir_all(&src_dir)
        .map_err(|e| SimError::io("cannot create", src_dir.clone(), e))?;
    let source = src_dir.join(&recipe.source_name);
    write(source.clone(), &recipe.source)?;
    write(tmp.join("schema.json"), recipe.schema.to_json().as_bytes())?;

    let mut log = format!(
        "switchcraft-sim build of {top} (shim format {SHIM_FORMAT_VERSION}, trace {trace})\n{version}\n"
    );
    let result = (|| {
        let mut cmd = Command::new(bin);
        cmd.current_dir(tmp)
            .args(VERILATOR_FLAGS)
            .arg("--Mdir")
            .arg("obj")
            .arg("--top-module")
            .arg(top);
        if trace {
            cmd.arg("--trace");
        }
        if let Some(d) = &recipe.source_dir {
            cmd.arg(format!("-I{}", d.display()));
        }
        cmd.args(&recipe.opts.extra_args).arg(&source);
        run_tool(&mut cmd, &mut log)?;

        let obj = tmp.join("obj");
        let header_path = obj.join(format!("V{top}.h"));
        let header = std::fs::read_to_string(&header_path)
            .map_err(|e| SimError::io("cannot read the verilated header", &header_path, e))?;
        check_ports(top, &recipe.schema, &header)?;

        let shim = shim_source(top, &recipe.schema);
        write(obj.join("switchcraft_shim.cpp"), shim.as_bytes())?;
        write(tmp.join("switchcraft_shim.cpp"), shim.as_bytes())?;
        write(
            tmp.join("exports.map"),
            b"{\n  global: switchcraft_*;\n  local: *;\n};\n",
        )?;
        write(
            obj.join("switchcraft.mk"),
            wrapper_makefile(top, lib_name).as_bytes(),
        )?;

        let jobs = recipe.opts.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        });
        reuse_runtime(runtime, &obj, &mut log);
        let mut make = Command::new("make");
        make.arg("-C")
            .arg(&obj)
            .arg("-f")
            .arg("switchcraft.mk")
            .arg(format!("-j{}", jobs.max(1)))
            .args(make_flags())
            .arg(format!("../{lib_name}"))
            .env_remove("MAKEFLAGS")
            .env_remove("MFLAGS")
            .env_remove("MAKELEVEL");
        run_tool(&mut make, &mut log)?;
        if !tmp.join(lib_name).is_file() {
            return Err(SimError::Tool {
                command: "make".into(),
                status: "succeeded".into(),
                output_tail: format!("but {lib_name} was not produced"),
            });
        }
        keep_runtime(&obj, runtime);
        // The objects are not needed once linked; the log, the shim and the library stay.
        let _ = std::fs::remove_dir_all(&obj);
        Ok(())
    })();
    let _ = std::fs::write(tmp.join("build.log"), &log);
    result
}

/// Runs `cmd`, appending the command line and its output to `log`; returns its stdout.
fn run_tool(cmd: &mut Command, log: &mut String) -> Result<Vec<u8>, SimError> {
    let rendered = render_command(cmd);
    let _ = writeln!(log, "$ {rendered}");
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SimError::ToolMissing {
                tool: cmd.get_program().to_string_lossy().into_owned(),
                detail: format!("{e}, running `{rendered}`"),
            })
        }
        Err(e) => {
            return Err(SimError::Tool {
                command: rendered,
                status: "could not start".into(),
                output_tail: e.to_string(),
            })
        }
    };
    log.push_str(&String::from_utf8_lossy(&out.stdout));
    log.push_str(&String::from_utf8_lossy(&out.stderr));
    if out.status.success() {
        Ok(out.stdout)
    } else {
        let text = if out.stderr.iter().any(|b| !b.is_ascii_whitespace()) {
            &out.stderr
        } else {
            &out.stdout
        };
        Err(SimError::Tool {
            command: rendered,
            status: out.status.to_string(),
            output_tail: tail(&String::from_utf8_lossy(text), TAIL_LINES),
        })
    }
}

fn render_command(cmd: &Command) -> String {
    let mut s = String::new();
    if let Some(dir) = cmd.get_current_dir() {
        let _ = write!(s, "(cd {} && ", dir.display());
    }
    s.push_str(&cmd.get_program().to_string_lossy());
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    if cmd.get_current_dir().is_some() {
        s.push(')');
    }
    s
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.trim_end().lines().collect();
    let skip = all.len().saturating_sub(lines);
    let mut out = String::new();
    if skip > 0 {
        let _ = writeln!(out, "[... {skip} earlier lines ...]");
    }
    out.push_str(&all[skip..].join("\n"));
    out
}

/// A port as declared in the verilated model header (`VL_IN8(&name,msb,lsb);` etc.).
#[derive(Debug, PartialEq, Eq)]
struct HeaderPort {
    name: String,
    /// "IN", "OUT" or "INOUT".
    dir: String,
    width: u32,
    /// Storage: "8", "16", "" (32), "64" or "W" (wide, unsupported).
    storage: String,
}

fn parse_header_ports(header: &str) -> Vec<HeaderPort> {
    let mut ports = Vec::new();
    for line in header.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("VL_") else {
            continue;
        };
        let (dir, rest) = if let Some(r) = rest.strip_prefix("INOUT") {
            ("INOUT", r)
        } else if let Some(r) = rest.strip_prefix("IN") {
            ("IN", r)
        } else if let Some(r) = rest.strip_prefix("OUT") {
            ("OUT", r)
        } else {
            continue;
        };
        let Some((storage, args)) = rest.split_once('(') else {
            continue;
        };
        let Some(args) = args.split(')').next() else {
            continue;
        };
        let args: Vec<&str> = args.split(',').map(str::trim).collect();
        if args.len() < 3 || !args[0].starts_with('&') {
            continue;
        }
        let (Ok(msb), Ok(lsb)) = (args[1].parse::<i64>(), args[2].parse::<i64>()) else {
            continue;
        };
        ports.push(HeaderPort {
            name: args[0].trim_start_matches('&').to_string(),
            dir: dir.to_string(),
            width: ((msb - lsb).unsigned_abs() + 1) as u32,
            storage: storage.to_string(),
        });
    }
    ports
}

fn storage_for_width(width: u32) -> &'static str {
    match width {
        0..=8 => "8",
        9..=16 => "16",
        17..=32 => "",
        _ => "64",
    }
}

fn check_ports(top: &str, schema: &PortSchema, header: &str) -> Result<(), SimError> {
    let found = parse_header_ports(header);
    let mut problems = Vec::new();
    let mut expect: Vec<(&str, &str, u32)> = vec![("clk", "IN", 1), ("rst", "IN", 1)];
    for p in &schema.ports {
        let dir = match p.dir {
            Dir::In => "IN",
            Dir::Out => "OUT",
        };
        expect.push((&p.name, dir, p.width));
    }
    let words = |d: &str| match d {
        "IN" => "input",
        "OUT" => "output",
        _ => "inout",
    };
    for &(name, dir, width) in &expect {
        match found.iter().find(|h| h.name == name) {
            None => problems.push(format!(
                "{} `{name}` ({width} bits) is missing from the Verilog module",
                words(dir)
            )),
            Some(h) => {
                if h.dir != dir {
                    problems.push(format!(
                        "`{name}` is an {} in the schema but an {} in the Verilog",
                        words(dir),
                        words(&h.dir)
                    ));
                }
                if h.width != width {
                    problems.push(format!(
                        "`{name}` is {width} bits in the schema but {} bits in the Verilog",
                        h.width
                    ));
                } else if h.storage != storage_for_width(width) {
                    problems.push(format!(
                        "`{name}`: unexpected Verilator storage VL_{}{}",
                        h.dir, h.storage
                    ));
                }
            }
        }
    }
    for h in &found {
        if !expect.iter().any(|(n, _, _)| *n == h.name) {
            problems.push(format!(
                "the Verilog has an extra {} `{}` ({} bits) that is not in the schema",
                words(&h.dir),
                h.name,
                h.width
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(SimError::PortMismatch {
            top: top.to_string(),
            block: schema.block.clone(),
            problems,
        })
    }
}

/// The C++ shim: a C ABI over `V<top>`. Port index 0 is `clk`, 1 is `rst`, `2 + i` is
/// `schema.ports[i]`.
fn shim_source(top: &str, schema: &PortSchema) -> String {
    let class = format!("V{top}");
    let nports = schema.ports.len() + 2;
    let names: Vec<&str> = ["clk", "rst"]
        .into_iter()
        .chain(schema.ports.iter().map(|p| p.name.as_str()))
        .collect();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by switchcraft-sim (shim format {SHIM_FORMAT_VERSION}): a C ABI over the \
         verilated model {class}.\n// Do not edit; it is rebuilt from the port schema."
    );
    s.push_str("#include <cstdint>\n#include <type_traits>\n#include \"verilated.h\"\n");
    let _ = writeln!(s, "#include \"{class}.h\"");
    let _ = writeln!(s, "#include \"{class}___024root.h\"");
    s.push_str("#include <cerrno>\n#if VM_TRACE\n#include \"verilated_vcd_c.h\"\n#endif\n\n");
    // Storage checks: the Rust side writes exactly this many bytes per port.
    for (k, name) in names.iter().enumerate() {
        let width = if k < 2 { 1 } else { schema.ports[k - 2].width };
        let bytes = match width {
            0..=8 => 1,
            9..=16 => 2,
            17..=32 => 4,
            _ => 8,
        };
        let _ = writeln!(
            s,
            "static_assert(sizeof({class}::{name}) == {bytes}, \"port {name}: expected {bytes}-byte storage for {width} bits\");"
        );
    }
    let _ = write!(
        s,
        r#"
namespace {{
#if VM_TRACE
// The trace's file. A failed write (a full disk) is recorded and the rest of the trace
// discarded: Verilator's own reaction, a fatal error, runs its flush callbacks under the
// trace's lock and hangs the process.
class TraceFile final : public VerilatedVcdFile {{
public:
    int error = 0;
    ssize_t write(const char* bufp, ssize_t len) override {{
        ssize_t done = 0;
        while (error == 0 && done < len) {{
            errno = 0;
            const ssize_t got = VerilatedVcdFile::write(bufp + done, len - done);
            if (got > 0) {{
                done += got;
            }} else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {{
                error = errno != 0 ? errno : EIO;
            }}
        }}
        return len;
    }}
}};
#endif

struct SwitchcraftSim {{
    VerilatedContext* ctx = nullptr;
    {class}* top = nullptr;
#if VM_TRACE
    VerilatedVcdC* vcd = nullptr;
    TraceFile* file = nullptr;
#endif
    // The errno of the last trace's first failed write, 0 if none.
    int trace_error = 0;
}};
}}  // namespace

#define SWITCHCRAFT_API extern "C" __attribute__((visibility("default")))

SWITCHCRAFT_API uint32_t switchcraft_shim_version(void) {{ return {SHIM_FORMAT_VERSION}; }}
SWITCHCRAFT_API uint32_t switchcraft_has_trace(void) {{ return VM_TRACE ? 1 : 0; }}
SWITCHCRAFT_API uint32_t switchcraft_port_count(void) {{ return {nports}; }}

SWITCHCRAFT_API void* switchcraft_create(void) {{
    SwitchcraftSim* s = nullptr;
    try {{
        s = new SwitchcraftSim;
        s->ctx = new VerilatedContext;
        // $stop must not abort the host process.
        s->ctx->fatalOnError(false);
#if VM_TRACE
        s->ctx->traceEverOn(true);
#endif
        s->top = new {class}{{s->ctx, "TOP"}};
        s->top->clk = 0;
        s->top->rst = 0;
        s->top->eval();
        return s;
    }} catch (...) {{
        if (s) {{
            delete s->top;
            delete s->ctx;
            delete s;
        }}
        return nullptr;
    }}
}}

SWITCHCRAFT_API void switchcraft_destroy(void* p) {{
    SwitchcraftSim* s = static_cast<SwitchcraftSim*>(p);
    if (!s) return;
#if VM_TRACE
    if (s->vcd) {{
        s->vcd->close();
        delete s->vcd;
    }}
    delete s->file;
#endif
    s->top->final();
    delete s->top;
    delete s->ctx;
    delete s;
}}

SWITCHCRAFT_API void switchcraft_eval(void* p) {{ static_cast<SwitchcraftSim*>(p)->top->eval(); }}

// The falling clock edge. Every flop of a switchcraft design is posedge-triggered and the
// combinational logic was settled by the rising edge's eval, so an eval at clk = 0 would only
// recompute unchanged values (Verilator 5 evaluates all input-dependent logic on every eval)
// and record clk = 0 as the previous clock level. When the model exposes that record
// (`__Vtrigrprev__TOP__clk`, Verilator 5), write it directly and skip the eval; otherwise eval.
// sim/tests/binding.rs checks both paths give identical outputs.
namespace {{
template <typename R, typename = void>
struct HasClockMemory : std::false_type {{}};
template <typename R>
struct HasClockMemory<R, std::void_t<decltype(std::declval<R&>().__Vtrigrprev__TOP__clk)>>
    : std::true_type {{}};
template <typename R>
void fall(SwitchcraftSim* s, R* root) {{
    s->top->clk = 0;
    if constexpr (HasClockMemory<R>::value) {{
        root->__Vtrigrprev__TOP__clk = 0;
    }} else {{
        s->top->eval();
    }}
}}
}}  // namespace

SWITCHCRAFT_API void switchcraft_fall(void* p) {{
    SwitchcraftSim* s = static_cast<SwitchcraftSim*>(p);
    fall(s, s->top->rootp);
}}

SWITCHCRAFT_API uint32_t switchcraft_fall_skips_eval(void) {{
    return HasClockMemory<{class}___024root>::value ? 1u : 0u;
}}

SWITCHCRAFT_API uint32_t switchcraft_status(void* p) {{
    VerilatedContext* c = static_cast<SwitchcraftSim*>(p)->ctx;
    return (c->gotFinish() ? 1u : 0u) | (c->gotError() ? 2u : 0u);
}}

SWITCHCRAFT_API void* switchcraft_port(void* p, uint32_t index) {{
    {class}* t = static_cast<SwitchcraftSim*>(p)->top;
    switch (index) {{
"#
    );
    for (k, name) in names.iter().enumerate() {
        let _ = writeln!(s, "    case {k}: return &t->{name};");
    }
    let (n_in, n_out) = (schema.input_count(), schema.output_count());
    // `switchcraft_run`: whole clock cycles in straight-line code with the widths known to
    // the compiler (the per-port path through `switchcraft_port` stays for tracing and reset).
    let mut step_body = String::new();
    for (i, p) in schema.inputs().enumerate() {
        let _ = writeln!(
            step_body,
            "        t->{} = in[{i}] & {:#x}ull;",
            p.name,
            switchcraft_core::mask(p.width)
        );
    }
    step_body.push_str("        t->clk = 1;\n        t->eval();\n");
    for (i, p) in schema.outputs().enumerate() {
        let _ = writeln!(
            step_body,
            "        out[{i}] = static_cast<uint64_t>(t->{}) & {:#x}ull;",
            p.name,
            switchcraft_core::mask(p.width)
        );
    }
    let _ = write!(
        s,
        r#"    default: return nullptr;
    }}
}}

// `rows` clock cycles: row r's inputs are in[r * {n_in} ..], its outputs go to out[r * {n_out} ..].
SWITCHCRAFT_API void switchcraft_run(void* p, uint64_t rows, const uint64_t* in, uint64_t* out,
                                     uint32_t exact_fall) {{
    SwitchcraftSim* s = static_cast<SwitchcraftSim*>(p);
    {class}* t = s->top;
    for (uint64_t r = 0; r < rows; ++r, in += {n_in}, out += {n_out}) {{
{step_body}        if (exact_fall) {{
            t->clk = 0;
            t->eval();
        }} else {{
            fall(s, t->rootp);
        }}
    }}
}}

#if VM_TRACE
static void close_trace(SwitchcraftSim* s) {{
    if (s->vcd) {{
        s->vcd->close();
        delete s->vcd;
        s->vcd = nullptr;
    }}
    if (s->file) {{
        s->trace_error = s->file->error;
        delete s->file;
        s->file = nullptr;
    }}
}}
#endif

SWITCHCRAFT_API int switchcraft_trace_open(void* p, const char* path) {{
#if VM_TRACE
    SwitchcraftSim* s = static_cast<SwitchcraftSim*>(p);
    close_trace(s);
    s->trace_error = 0;
    s->file = new TraceFile;
    VerilatedVcdC* v = new VerilatedVcdC(s->file);
    // The trace takes its timescale from the thread's default context, not from ours: set it
    // explicitly to match switchcraft-core's VcdWriter (1 ns, one cycle = 10 ns).
    v->set_time_unit("1ns");
    v->set_time_resolution("1ns");
    s->top->trace(v, 99);
    v->open(path);
    if (!v->isOpen()) {{
        delete v;
        delete s->file;
        s->file = nullptr;
        return -2;
    }}
    s->vcd = v;
    return 0;
#else
    (void)p;
    (void)path;
    return -1;
#endif
}}

SWITCHCRAFT_API void switchcraft_trace_dump(void* p, uint64_t time) {{
#if VM_TRACE
    SwitchcraftSim* s = static_cast<SwitchcraftSim*>(p);
    if (s->vcd) s->vcd->dump(time);
#else
    (void)p;
    (void)time;
#endif
}}

SWITCHCRAFT_API void switchcraft_trace_close(void* p) {{
#if VM_TRACE
    close_trace(static_cast<SwitchcraftSim*>(p));
#else
    (void)p;
#endif
}}

// The errno of the open (or last closed) trace's first failed write, 0 if none.
SWITCHCRAFT_API uint32_t switchcraft_trace_error(void* p) {{
    SwitchcraftSim* s = static_cast<SwitchcraftSim*>(p);
#if VM_TRACE
    if (s->file && s->file->error != 0) return static_cast<uint32_t>(s->file->error);
#endif
    return static_cast<uint32_t>(s->trace_error);
}}
"#
    );
    s
}

/// Includes Verilator's generated makefile and adds the shim object and the shared library.
fn wrapper_makefile(top: &str, lib_name: &str) -> String {
    // Two unity files, the model's per-cycle code (`VM_FAST`, at `OPT_FAST`) and its once-only
    // code (`VM_SLOW`, at `OPT_SLOW`), instead of Verilator's one object per file: each file
    // parses the Verilator headers again (about 0.9 s), and a mid-sized model is ten files.
    // Verilator's own unity file (`__ALL.cpp`, for small models) would build the once-only
    // code at `OPT_FAST`. BFC `tiny`: 10.5 s of CPU -> 6.5 s. The shim joins the per-cycle
    // file (its functions run every cycle): one parse of the headers less, about 1 s a build.
    format!(
        "# Generated by switchcraft-sim: builds V{top} and the shim into one shared library.\n\
         include V{top}.mk\n\
         \n\
         switchcraft_fast.cpp: $(addsuffix .cpp, $(VM_FAST)) switchcraft_shim.cpp\n\
         \t$(VERILATOR_INCLUDER) -DVL_INCLUDE_OPT=include $^ > $@\n\
         switchcraft_slow.cpp: $(addsuffix .cpp, $(VM_SLOW))\n\
         \t$(VERILATOR_INCLUDER) -DVL_INCLUDE_OPT=include $^ > $@\n\
         switchcraft_slow.o: switchcraft_slow.cpp\n\
         \t$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(OPT_SLOW) -c -o $@ $<\n\
         \n\
         ../{lib_name}: switchcraft_fast.o switchcraft_slow.o $(VK_GLOBAL_OBJS) ../exports.map\n\
         \t$(CXX) -shared -o $@ switchcraft_fast.o switchcraft_slow.o \
         $(VK_GLOBAL_OBJS) -Wl,--version-script=../exports.map \
         -Wl,--no-undefined $(LDFLAGS) $(LDLIBS)\n"
    )
}

type CreateFn = unsafe extern "C" fn() -> *mut c_void;
type HandleFn = unsafe extern "C" fn(*mut c_void);
type PortFn = unsafe extern "C" fn(*mut c_void, u32) -> *mut c_void;
type StatusFn = unsafe extern "C" fn(*mut c_void) -> u32;
type RunFn = unsafe extern "C" fn(*mut c_void, u64, *const u64, *mut u64, u32);
type TraceOpenFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> i32;
type TraceDumpFn = unsafe extern "C" fn(*mut c_void, u64);
type InfoFn = unsafe extern "C" fn() -> u32;

#[derive(Clone, Copy)]
struct Shim {
    destroy: HandleFn,
    eval: HandleFn,
    fall: HandleFn,
    run: RunFn,
    status: StatusFn,
    trace_open: TraceOpenFn,
    trace_dump: TraceDumpFn,
    trace_close: HandleFn,
    trace_error: StatusFn,
}

/// Pointer to one port's storage in the verilated model, and its width class.
#[derive(Clone, Copy)]
struct Slot {
    ptr: *mut u8,
    bytes: u8,
    mask: u64,
}

impl Slot {
    /// # Safety
    /// `ptr` must point to live, aligned storage of `bytes` bytes.
    #[inline(always)]
    unsafe fn write(self, v: u64) {
        let v = v & self.mask;
        match self.bytes {
            1 => self.ptr.write(v as u8),
            2 => (self.ptr as *mut u16).write(v as u16),
            4 => (self.ptr as *mut u32).write(v as u32),
            _ => (self.ptr as *mut u64).write(v),
        }
    }

    /// # Safety
    /// As for [`Slot::write`].
    #[inline(always)]
    unsafe fn read(self) -> u64 {
        let v = match self.bytes {
            1 => self.ptr.read() as u64,
            2 => (self.ptr as *const u16).read() as u64,
            4 => (self.ptr as *const u32).read() as u64,
            _ => (self.ptr as *const u64).read(),
        };
        v & self.mask
    }
}

/// A loaded verilated model: one instance of the top module, driven one clock cycle at a time.
pub struct VerilatedModel {
    handle: *mut c_void,
    shim: Shim,
    clk: *mut u8,
    rst: *mut u8,
    inputs: Vec<Slot>,
    outputs: Vec<Slot>,
    cycle: u64,
    has_trace: bool,
    tracing: bool,
    /// The open trace's file: incomplete until closed, so an interrupt removes it.
    trace_path: Option<PathBuf>,
    /// The shim records the falling edge without an eval (Verilator 5's edge memory found).
    fall_skips_eval: bool,
    /// Always evaluate on the falling edge (see [`set_exact_falling_edge`](Self::set_exact_falling_edge)).
    exact_falling_edge: bool,
    /// Clock periods dumped since the trace was opened.
    trace_clock: u64,
    /// The fewest cycles a reset holds `rst` (the package's `reset_cycles`).
    min_reset_cycles: u32,
    recipe: Arc<Recipe>,
    info: BuildInfo,
    /// Dropped last, after `Drop::drop` has destroyed the instance.
    _lib: Library,
}

// SAFETY: the instance is only touched through `&mut self` (no sharing), and a single-threaded
// Verilated model may be evaluated from any one thread at a time.
unsafe impl Send for VerilatedModel {}

impl std::fmt::Debug for VerilatedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerilatedModel")
            .field("top", &self.recipe.top)
            .field("cycle", &self.cycle)
            .field("trace", &self.has_trace)
            .field("library", &self.info.library)
            .finish()
    }
}

impl VerilatedModel {
    fn load(path: &Path, recipe: Arc<Recipe>, trace: bool) -> Result<Self, SimError> {
        let load_err = |msg: String| SimError::Load {
            path: path.to_path_buf(),
            msg,
        };
        // SAFETY: the library is one this module generated; its initialisers are Verilator's
        // and the C++ runtime's.
        let lib = unsafe { Library::new(path) }.map_err(|e| load_err(e.to_string()))?;
        // SAFETY: the symbol types match the shim's declarations (checked by its version).
        unsafe {
            macro_rules! sym {
                ($name:literal, $ty:ty) => {
                    *lib.get::<$ty>(concat!($name, "\0").as_bytes())
                        .map_err(|e| load_err(format!("missing {}: {e}", $name)))?
                };
            }
            let version: InfoFn = sym!("switchcraft_shim_version", InfoFn);
            if version() != SHIM_FORMAT_VERSION {
                return Err(load_err(format!(
                    "shim format {} but this crate expects {SHIM_FORMAT_VERSION}",
                    version()
                )));
            }
            let has_trace: InfoFn = sym!("switchcraft_has_trace", InfoFn);
            let port_count: InfoFn = sym!("switchcraft_port_count", InfoFn);
            if port_count() as usize != recipe.schema.ports.len() + 2 {
                return Err(load_err(format!(
                    "library has {} ports, schema has {} (+ clk, rst)",
                    port_count(),
                    recipe.schema.ports.len()
                )));
            }
            if (has_trace() == 1) != trace {
                return Err(load_err(format!(
                    "library trace support is {}, expected {trace}",
                    has_trace() == 1
                )));
            }
            let create: CreateFn = sym!("switchcraft_create", CreateFn);
            let port: PortFn = sym!("switchcraft_port", PortFn);
            let shim = Shim {
                destroy: sym!("switchcraft_destroy", HandleFn),
                eval: sym!("switchcraft_eval", HandleFn),
                fall: sym!("switchcraft_fall", HandleFn),
                run: sym!("switchcraft_run", RunFn),
                status: sym!("switchcraft_status", StatusFn),
                trace_open: sym!("switchcraft_trace_open", TraceOpenFn),
                trace_dump: sym!("switchcraft_trace_dump", TraceDumpFn),
                trace_close: sym!("switchcraft_trace_close", HandleFn),
                trace_error: sym!("switchcraft_trace_error", StatusFn),
            };
            let fall_skips_eval = sym!("switchcraft_fall_skips_eval", InfoFn)() != 0;
            let handle = create();
            if handle.is_null() {
                return Err(SimError::Model {
                    top: recipe.top.clone(),
                    msg: "the C++ model could not be constructed".into(),
                });
            }
            let slot = |index: usize, width: u32| -> Result<Slot, SimError> {
                let ptr = port(handle, index as u32) as *mut u8;
                let bytes: u8 = match width {
                    0..=8 => 1,
                    9..=16 => 2,
                    17..=32 => 4,
                    _ => 8,
                };
                if ptr.is_null() || (ptr as usize) & (bytes as usize - 1) != 0 {
                    return Err(load_err(format!("bad storage pointer for port {index}")));
                }
                Ok(Slot {
                    ptr,
                    bytes,
                    mask: switchcraft_core::mask(width),
                })
            };
            let built = (|| {
                let clk = slot(0, 1)?.ptr;
                let rst = slot(1, 1)?.ptr;
                let mut inputs = Vec::new();
                let mut outputs = Vec::new();
                for (k, p) in recipe.schema.ports.iter().enumerate() {
                    let s = slot(k + 2, p.width)?;
                    match p.dir {
                        Dir::In => inputs.push(s),
                        Dir::Out => outputs.push(s),
                    }
                }
                Ok((clk, rst, inputs, outputs))
            })();
            let (clk, rst, inputs, outputs) = match built {
                Ok(v) => v,
                Err(e) => {
                    (shim.destroy)(handle);
                    return Err(e);
                }
            };
            Ok(VerilatedModel {
                handle,
                shim,
                clk,
                rst,
                inputs,
                outputs,
                cycle: 0,
                has_trace: trace,
                trace_path: None,
                tracing: false,
                exact_falling_edge: false,
                fall_skips_eval,
                trace_clock: 0,
                min_reset_cycles: 1,
                info: BuildInfo {
                    key: String::new(),
                    dir: path.parent().unwrap_or(path).to_path_buf(),
                    library: path.to_path_buf(),
                    cache_hit: false,
                    elapsed: Duration::ZERO,
                },
                recipe,
                _lib: lib,
            })
        }
    }

    /// The port schema (clock and reset excluded).
    pub fn schema(&self) -> &PortSchema {
        &self.recipe.schema
    }

    /// The Verilog top module name.
    pub fn top(&self) -> &str {
        &self.recipe.top
    }

    /// Cache key, library path, whether it was a cache hit, build time.
    pub fn build_info(&self) -> &BuildInfo {
        &self.info
    }

    /// Whether this model was built with `--trace`.
    pub fn has_trace(&self) -> bool {
        self.has_trace
    }

    /// Steps since the last [`reset`](Self::reset) (or since creation).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// True once the design has executed `$finish` or `$stop` (or a runtime error was flagged).
    pub fn finished(&self) -> bool {
        // SAFETY: live handle.
        unsafe { (self.shim.status)(self.handle) != 0 }
    }

    /// Builds (or loads from the cache) the same design with `--trace`, as a new instance.
    pub fn trace_variant(&self) -> Result<VerilatedModel, SimError> {
        let mut traced = build_recipe(self.recipe.clone(), true)?;
        traced.min_reset_cycles = self.min_reset_cycles;
        Ok(traced)
    }

    /// Every later [`reset`](Self::reset) holds `rst` for at least `cycles` cycles: the
    /// design's declared minimum (its package's `reset_cycles`).
    pub fn set_min_reset_cycles(&mut self, cycles: u32) {
        self.min_reset_cycles = cycles.max(1);
    }

    /// With `true`, every falling clock edge is a full Verilator eval, as with a trace open. The
    /// default (`false`) skips that eval when the shim can (it only records the clock level;
    /// about a quarter faster). Both give the same outputs; this switch exists to test that.
    pub fn set_exact_falling_edge(&mut self, exact: bool) {
        self.exact_falling_edge = exact;
    }

    /// True when, without a trace, falling clock edges are recorded without an eval (the shim
    /// found Verilator 5's clock-edge memory in the model); false means every edge is an eval.
    pub fn falling_edge_skips_eval(&self) -> bool {
        self.fall_skips_eval && !self.exact_falling_edge
    }

    /// Synchronous reset: all inputs 0 and `rst` = 1 for `cycles` clock cycles, or the design's
    /// minimum if that is more, then `rst` = 0; returns the cycles held. The cycle count
    /// restarts at 0. An open trace records the reset cycles too.
    pub fn reset(&mut self, cycles: u32) -> u32 {
        let cycles = cycles.max(self.min_reset_cycles);
        // SAFETY: the slots point into the live instance.
        unsafe {
            for s in &self.inputs {
                s.write(0);
            }
            self.rst.write(1);
            for _ in 0..cycles {
                self.clock_period();
            }
            self.rst.write(0);
            (self.shim.eval)(self.handle);
        }
        self.cycle = 0;
        cycles
    }

    /// One clock period without reading outputs (for reset).
    unsafe fn clock_period(&mut self) {
        self.rising_edge();
        self.falling_edge();
    }

    /// `clk` = 1 and evaluate; trace sample at 10k + 5.
    unsafe fn rising_edge(&mut self) {
        self.clk.write(1);
        (self.shim.eval)(self.handle);
        if self.tracing {
            (self.shim.trace_dump)(self.handle, 10 * self.trace_clock + 5);
        }
    }

    /// `clk` = 0 and evaluate; trace sample at 10k + 10, closing period k. Without a trace open
    /// the shim's `fall` skips the eval where it can (see the shim source).
    unsafe fn falling_edge(&mut self) {
        if self.tracing || self.exact_falling_edge {
            self.clk.write(0);
            (self.shim.eval)(self.handle);
        } else {
            (self.shim.fall)(self.handle);
        }
        if self.tracing {
            (self.shim.trace_dump)(self.handle, 10 * self.trace_clock + 10);
            self.trace_clock += 1;
        }
    }

    /// One rising clock edge: writes `inputs` (schema input order, masked to width), raises
    /// `clk`, evaluates, reads `outputs` (schema output order), lowers `clk` and evaluates again.
    /// With a trace open, samples are dumped at both edges: `10k + 5` (rising) and `10k + 10`
    /// (falling) for the k-th clock since [`trace_open`](Self::trace_open).
    #[inline]
    pub fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        assert!(
            inputs.len() == self.inputs.len() && outputs.len() == self.outputs.len(),
            "step: {} inputs and {} outputs given, the model has {} and {}",
            inputs.len(),
            outputs.len(),
            self.inputs.len(),
            self.outputs.len()
        );
        if !self.tracing {
            // SAFETY: live handle; one row of exactly the schema's counts (checked above).
            unsafe { self.run_rows(1, inputs, outputs) };
            return;
        }
        // SAFETY: the slots point into the live instance; lengths checked above.
        unsafe {
            for (s, &v) in self.inputs.iter().zip(inputs) {
                s.write(v);
            }
            self.rising_edge();
            for (s, o) in self.outputs.iter().zip(outputs.iter_mut()) {
                *o = s.read();
            }
            self.falling_edge();
        }
        self.cycle += 1;
    }

    /// Consecutive clock cycles in one call: `inputs` holds one row per cycle (schema input
    /// order, `input_count` values each), `outputs` receives one row per cycle. The same as
    /// calling [`step`](Self::step) row by row, with less overhead per cycle.
    pub fn step_rows(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let (n_in, n_out) = (self.inputs.len(), self.outputs.len());
        let rows = inputs
            .len()
            .checked_div(n_in)
            .unwrap_or(outputs.len() / n_out.max(1));
        assert!(
            inputs.len() == rows * n_in && outputs.len() == rows * n_out,
            "step_rows: {} input and {} output values do not make whole rows of {} and {}",
            inputs.len(),
            outputs.len(),
            n_in,
            n_out
        );
        if self.tracing {
            for (i, o) in inputs
                .chunks_exact(n_in.max(1))
                .zip(outputs.chunks_exact_mut(n_out.max(1)))
            {
                self.step(i, o);
            }
            return;
        }
        // SAFETY: live handle; `rows` whole rows checked above.
        unsafe { self.run_rows(rows, inputs, outputs) };
    }

    /// # Safety
    /// `inputs` and `outputs` hold at least `rows` rows of the schema's counts.
    unsafe fn run_rows(&mut self, rows: usize, inputs: &[u64], outputs: &mut [u64]) {
        (self.shim.run)(
            self.handle,
            rows as u64,
            inputs.as_ptr(),
            outputs.as_mut_ptr(),
            u32::from(self.exact_falling_edge),
        );
        self.cycle += rows as u64;
    }

    /// Opens a VCD of every signal of the design (timescale 1 ns). Time 0 is the moment of
    /// opening: the next step's rising edge is at 5, like core's `VcdWriter` with
    /// `first_cycle` = that step. Replaces a trace that is already open. Needs a model built with
    /// [`BuildOptions::trace`] (see [`trace_variant`](Self::trace_variant)).
    pub fn trace_open(&mut self, path: &Path) -> Result<(), SimError> {
        if !self.has_trace {
            return Err(SimError::Model {
                top: self.recipe.top.clone(),
                msg: "built without --trace; build with BuildOptions { trace: true, .. } or use \
                      trace_variant()"
                    .into(),
            });
        }
        self.trace_close()?;
        // Fail with a clear message if the file cannot be created (Verilator would only print).
        std::fs::File::create(path).map_err(|e| SimError::io("cannot create", path, e))?;
        switchcraft_core::output::track_partial(path);
        self.trace_path = Some(path.to_path_buf());
        use std::os::unix::ffi::OsStrExt;
        let c_path = CString::new(path.as_os_str().as_bytes()).map_err(|_| SimError::Model {
            top: self.recipe.top.clone(),
            msg: format!("trace path {} contains a NUL byte", path.display()),
        })?;
        // SAFETY: live handle, NUL-terminated path.
        let rc = unsafe { (self.shim.trace_open)(self.handle, c_path.as_ptr()) };
        if rc != 0 {
            return Err(SimError::Model {
                top: self.recipe.top.clone(),
                msg: format!("cannot open trace {} (code {rc})", path.display()),
            });
        }
        self.tracing = true;
        self.trace_clock = 0;
        Ok(())
    }

    /// Flushes and closes the trace, if one is open. A trace that could not be written whole
    /// (a full disk) is removed, and the error names it.
    pub fn trace_close(&mut self) -> Result<(), SimError> {
        if self.tracing {
            // SAFETY: live handle.
            unsafe { (self.shim.trace_close)(self.handle) };
            self.tracing = false;
        }
        let result = self.trace_check();
        if let Some(p) = self.trace_path.take() {
            if result.is_err() {
                let _ = std::fs::remove_file(&p);
            }
            switchcraft_core::output::untrack_partial(&p);
        }
        result
    }

    /// Closes the trace, if one is open, and removes its file: for a run that failed.
    pub fn trace_abandon(&mut self) {
        if let Some(p) = self.trace_path.clone() {
            let _ = self.trace_close();
            let _ = std::fs::remove_file(p);
        }
    }

    /// Fails if a write of the open (or last) trace failed; the rest of that trace is
    /// discarded, so a run that cares should stop.
    pub fn trace_check(&self) -> Result<(), SimError> {
        // SAFETY: live handle.
        let errno = unsafe { (self.shim.trace_error)(self.handle) };
        match (errno, &self.trace_path) {
            (0, _) | (_, None) => Ok(()),
            (e, Some(p)) => Err(SimError::io(
                "cannot write",
                p,
                std::io::Error::from_raw_os_error(e as i32),
            )),
        }
    }
}

impl Drop for VerilatedModel {
    fn drop(&mut self) {
        // SAFETY: the handle is live and destroyed exactly once; the library outlives it.
        unsafe {
            if self.tracing {
                (self.shim.trace_close)(self.handle);
            }
            (self.shim.destroy)(self.handle);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchcraft_core::Port;

    const HEADER: &str = "
    VL_IN8(&clk,0,0);
    VL_IN8(&rst,0,0);
    VL_IN8(&din,7,0);
    VL_IN16(&mid,11,0);
    VL_IN(&w,31,0);
    VL_OUT64(&sum,39,0);
    VL_OUT8(&flag,0,0);
";

    fn schema() -> PortSchema {
        PortSchema::new(
            "acc",
            vec![
                Port::input("din", 8, ""),
                Port::input("mid", 12, ""),
                Port::input("w", 32, ""),
                Port::output("sum", 40, ""),
                Port::output("flag", 1, ""),
            ],
        )
    }

    #[test]
    fn header_ports_parse() {
        let ports = parse_header_ports(HEADER);
        assert_eq!(ports.len(), 7);
        assert_eq!(
            ports[5],
            HeaderPort {
                name: "sum".into(),
                dir: "OUT".into(),
                width: 40,
                storage: "64".into()
            }
        );
        assert_eq!(ports[4].storage, "");
        check_ports("acc_top", &schema(), HEADER).unwrap();
    }

    #[test]
    fn port_mismatches_are_named() {
        let mut s = schema();
        s.ports[0].width = 9;
        s.ports[4].dir = Dir::In;
        s.ports.remove(2);
        s.ports.push(Port::output("extra", 3, ""));
        let e = check_ports("acc_top", &s, HEADER).unwrap_err().to_string();
        assert!(
            e.contains("`din` is 9 bits in the schema but 8 bits"),
            "{e}"
        );
        assert!(
            e.contains("`flag` is an input in the schema but an output"),
            "{e}"
        );
        assert!(e.contains("output `extra` (3 bits) is missing"), "{e}");
        assert!(e.contains("extra input `w` (32 bits)"), "{e}");
    }

    #[test]
    fn key_depends_on_every_input() {
        let r = |src: &[u8], trace_args: Vec<String>| Recipe {
            source_name: "a.v".into(),
            source_dir: None,
            source: src.to_vec(),
            top: "acc_top".into(),
            schema: schema(),
            opts: BuildOptions {
                extra_args: trace_args,
                ..Default::default()
            },
        };
        let base = cache_key(&r(b"x", vec![]), false, "V 5");
        assert_eq!(base.len(), 64);
        assert_eq!(base, cache_key(&r(b"x", vec![]), false, "V 5"));
        assert_ne!(base, cache_key(&r(b"y", vec![]), false, "V 5"));
        assert_ne!(base, cache_key(&r(b"x", vec![]), true, "V 5"));
        assert_ne!(base, cache_key(&r(b"x", vec![]), false, "V 6"));
        assert_ne!(base, cache_key(&r(b"x", vec!["-DX".into()]), false, "V 5"));
    }

    #[test]
    fn names_must_be_identifiers() {
        let s = PortSchema::new("b", vec![Port::input("clk", 1, "")]);
        assert!(check_names("top", &s).is_err());
        assert!(check_names("1top", &schema()).is_err());
        check_names("acc_top", &schema()).unwrap();
    }
}
