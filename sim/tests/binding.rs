//! End-to-end tests of the Verilator binding and the co-simulation runner on a small
//! hand-written accumulator.

use std::path::{Path, PathBuf};
use std::time::Instant;
use switchcraft_core::rng::SplitMix64;
use switchcraft_core::{mask, DynModel, Port, PortSchema};
use switchcraft_sim::{
    build, cosim, BuildOptions, CosimOptions, SeededStimulus, SimError, VecStimulus, VerilatedModel,
};

const ACC_V: &str = r#"
// 8-bit accumulator with a registered 40-bit sum, for the switchcraft-sim tests.
module acc_top (
    input  wire        clk,
    input  wire        rst,
    input  wire [7:0]  din,
    input  wire        en,
    input  wire [63:0] wide_in,
    output reg  [39:0] sum,
    output wire        flag,
    output reg  [63:0] wide_echo,
    output reg  [11:0] count,
    output wire [19:0] mix
);
    always @(posedge clk) begin
        if (rst) begin
            sum <= 40'd0;
            wide_echo <= 64'd0;
            count <= 12'd0;
        end else begin
            if (en) sum <= sum + {32'd0, din};
            wide_echo <= {wide_in[62:0], wide_in[63]};
            count <= count + 12'd1;
        end
    end
    assign flag = sum[0];
    assign mix = {count, din};
endmodule
"#;

fn schema() -> PortSchema {
    PortSchema::new(
        "acc",
        vec![
            Port::input("din", 8, "addend"),
            Port::input("en", 1, "add din this cycle"),
            Port::input("wide_in", 64, "echoed rotated left by one"),
            Port::output("sum", 40, "running sum"),
            Port::output("flag", 1, "sum is odd"),
            Port::output("wide_echo", 64, "wide_in of the previous cycle, rotated"),
            Port::output("count", 12, "cycles since reset"),
            Port::output("mix", 20, "{count, din}"),
        ],
    )
}

/// The golden model of `acc_top`; `bug_at` adds one to `sum` (and so flips `flag`) on that
/// cycle's outputs.
struct AccModel {
    schema: PortSchema,
    sum: u64,
    echo: u64,
    count: u64,
    cycle: u64,
    bug_at: Option<u64>,
}

impl AccModel {
    fn new(bug_at: Option<u64>) -> Self {
        AccModel {
            schema: schema(),
            sum: 0,
            echo: 0,
            count: 0,
            cycle: 0,
            bug_at,
        }
    }
}

impl DynModel for AccModel {
    fn ports(&self) -> &PortSchema {
        &self.schema
    }

    fn reset(&mut self) {
        self.sum = 0;
        self.echo = 0;
        self.count = 0;
        self.cycle = 0;
    }

    fn step_values(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let (din, en, wide) = (inputs[0] & 0xff, inputs[1] & 1, inputs[2]);
        if en == 1 {
            self.sum = (self.sum + din) & mask(40);
        }
        self.echo = wide.rotate_left(1);
        self.count = (self.count + 1) & 0xfff;
        let mut sum = self.sum;
        if self.bug_at == Some(self.cycle) {
            sum = (sum + 1) & mask(40);
        }
        outputs[0] = sum;
        outputs[1] = sum & 1;
        outputs[2] = self.echo;
        outputs[3] = self.count;
        outputs[4] = (self.count << 8) | din;
        self.cycle += 1;
    }
}

fn test_dir(name: &str) -> PathBuf {
    // Under cargo's target/tmp/, like every file the tests leave.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("switchcraft-sim-tests")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_verilog(dir: &Path) -> PathBuf {
    let path = dir.join("acc_top.v");
    std::fs::write(&path, ACC_V).unwrap();
    path
}

fn random_inputs(r: &mut SplitMix64, inputs: &mut [u64]) {
    inputs[0] = r.below(256);
    inputs[1] = r.chance(70) as u64;
    inputs[2] = r.next_u64();
}

#[test]
fn drives_narrow_and_wide_ports_and_resets() {
    let dir = test_dir("values");
    let v = write_verilog(&dir);
    let mut m = build(&v, "acc_top", &schema(), &BuildOptions::default()).unwrap();
    assert_eq!(m.schema(), &schema());
    eprintln!(
        "acc_top build: {:?} (cache hit: {}) at {}",
        m.build_info().elapsed,
        m.build_info().cache_hit,
        m.build_info().library.display()
    );
    m.reset(2);
    let mut out = [0u64; 5];

    m.step(&[5, 1, 0x8000_0000_0000_0001], &mut out);
    assert_eq!(out, [5, 1, 0x0000_0000_0000_0003, 1, (1 << 8) | 5]);

    // din is masked to its 8 bits; en = 0 holds the sum.
    m.step(&[0x1ff, 0, u64::MAX], &mut out);
    assert_eq!(out, [5, 1, u64::MAX, 2, (2 << 8) | 0xff]);

    m.step(&[0xff, 1, 0x0123_4567_89ab_cdef], &mut out);
    assert_eq!(out[0], 5 + 0xff);
    assert_eq!(out[1], 0);
    assert_eq!(out[2], 0x0123_4567_89ab_cdef_u64.rotate_left(1));

    // Push the 40-bit sum past 32 bits.
    let mut expect = 5 + 0xff;
    for _ in 0..(1u64 << 32) / 255 + 10 {
        m.step(&[0xff, 1, 0], &mut out);
        expect += 0xff;
    }
    assert!(expect > u32::MAX as u64);
    assert_eq!(out[0], expect);
    assert_eq!(out[1], expect & 1);
    assert_eq!(m.cycle(), 3 + (1u64 << 32) / 255 + 10);

    // The count wraps at 12 bits.
    assert_eq!(out[3], m.cycle() & 0xfff);

    m.reset(1);
    assert_eq!(m.cycle(), 0);
    m.step(&[0, 0, 0], &mut out);
    assert_eq!(out, [0, 0, 0, 1, 1 << 8]);
    assert!(!m.finished());
}

/// Writes an executable script from a child process. Written from this
/// process, the script's write descriptor can be inherited by a child that
/// another test thread is forking at that moment; until that child execs, the
/// script cannot be run ("Text file busy"), which failed CI once.
fn write_executable_in_child(path: &Path, text: &str) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    assert!(
        child.wait().unwrap().success(),
        "writing {}",
        path.display()
    );
}

#[test]
fn cache_hit_reuses_the_library_without_verilating() {
    let dir = test_dir("cache");
    let v = write_verilog(&dir);
    let log = dir.join("verilator-calls.log");
    let real = std::env::var("VERILATOR")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "verilator".into());
    let wrapper = dir.join("verilator-wrapper.sh");
    write_executable_in_child(
        &wrapper,
        &format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec {real} \"$@\"\n",
            log.display()
        ),
    );

    let opts = BuildOptions {
        cache_dir: Some(dir.join("cache")),
        verilator: Some(wrapper),
        ..Default::default()
    };
    let verilations = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("--cc"))
            .count()
    };

    let t = Instant::now();
    let first = build(&v, "acc_top", &schema(), &opts).unwrap();
    let cold = t.elapsed();
    assert!(!first.build_info().cache_hit);
    assert_eq!(verilations(), 1);
    assert!(first.build_info().dir.join("build.log").is_file());

    let t = Instant::now();
    let second = build(&v, "acc_top", &schema(), &opts).unwrap();
    let hit = t.elapsed();
    assert!(second.build_info().cache_hit);
    assert_eq!(second.build_info().library, first.build_info().library);
    assert_eq!(verilations(), 1, "a cache hit must not run verilator");
    eprintln!("first build (cold): {cold:?}; cache hit: {hit:?}");
    assert!(hit < cold);

    // Two live instances of one library are independent.
    let (mut a, mut b) = (first, second);
    a.reset(1);
    b.reset(1);
    let mut out = [0u64; 5];
    a.step(&[7, 1, 0], &mut out);
    assert_eq!(out[0], 7);
    b.step(&[9, 1, 0], &mut out);
    assert_eq!(out[0], 9);

    // A different source is a different key.
    std::fs::write(&v, ACC_V.replace("count + 12'd1", "count + 12'd2")).unwrap();
    let third = build(&v, "acc_top", &schema(), &opts).unwrap();
    assert!(!third.build_info().cache_hit);
    assert_ne!(third.build_info().key, a.build_info().key);
    assert_eq!(verilations(), 2);

    // It links the Verilator runtime objects the first build compiled instead of compiling
    // them again, and works.
    let build_log =
        |m: &VerilatedModel| std::fs::read_to_string(m.build_info().dir.join("build.log")).unwrap();
    let (first_log, third_log) = (build_log(&a), build_log(&third));
    assert!(first_log.contains("-o verilated.o"), "{first_log}");
    assert!(!first_log.contains("reused"), "{first_log}");
    assert!(
        third_log.contains("reused") && third_log.contains("verilated.o"),
        "{third_log}"
    );
    assert!(!third_log.contains("-o verilated.o"), "{third_log}");
    let mut c = third;
    c.reset(1);
    c.step(&[7, 1, 0], &mut out);
    assert_eq!(out[0], 7);
}

#[test]
fn cosim_of_a_correct_model_passes() {
    let dir = test_dir("pass");
    let v = write_verilog(&dir);
    let mut rtl = build(&v, "acc_top", &schema(), &BuildOptions::default()).unwrap();
    let mut model = AccModel::new(None);
    let cycles = 1_000_000;
    let mut stim = SeededStimulus::new(7, cycles, SplitMix64::new, random_inputs);
    let report = cosim::run(
        &mut model,
        &mut rtl,
        &mut stim,
        &CosimOptions {
            seed: Some(7),
            out_dir: dir.clone(),
            ..Default::default()
        },
    )
    .unwrap();
    eprintln!("{report}");
    assert!(report.passed(), "{report}");
    assert_eq!(report.cycles, cycles);
    assert!(report.cycles_per_second() > 0.0);
    assert!(!dir.join("mismatch_model.vcd").exists());
}

#[test]
fn cosim_mismatch_names_cycle_and_port_and_writes_waves() {
    let dir = test_dir("mismatch");
    let v = write_verilog(&dir);
    let mut rtl = build(&v, "acc_top", &schema(), &BuildOptions::default()).unwrap();
    let mut model = AccModel::new(Some(300));
    let mut stim = SeededStimulus::new(42, 10_000, SplitMix64::new, random_inputs);
    let opts = CosimOptions {
        seed: Some(42),
        replay: Some("cargo test -p switchcraft-sim --test binding cosim_mismatch".into()),
        out_dir: dir.join("waves"),
        ..Default::default()
    };
    let report = cosim::run(&mut model, &mut rtl, &mut stim, &opts).unwrap();
    eprintln!("{report}");
    let m = report.mismatch.as_ref().expect("a mismatch");
    assert_eq!(m.cycle, 300);
    assert_eq!(m.first.port, "sum");
    assert_eq!(m.first.expected, m.first.actual + 1);
    assert_eq!(m.others.len(), 1);
    assert_eq!(m.others[0].port, "flag");
    assert_eq!(report.cycles, 309, "runs window_after = 8 more cycles");
    assert_eq!(m.window, (284, 308));
    assert!(m.reproduced);
    assert!(m.waves_error.is_none(), "{:?}", m.waves_error);

    let model_vcd = m.model_vcd.clone().unwrap();
    let rtl_vcd = m.rtl_vcd.clone().unwrap();
    assert_eq!(model_vcd, dir.join("waves/mismatch_model.vcd"));
    assert_eq!(rtl_vcd, dir.join("waves/mismatch_rtl.vcd"));
    let model_text = std::fs::read_to_string(&model_vcd).unwrap();
    let rtl_text = std::fs::read_to_string(&rtl_vcd).unwrap();
    assert!(model_text.contains("sum"), "{model_text}");
    assert!(rtl_text.contains("wide_echo"), "{rtl_text}");
    assert!(
        rtl_text.contains("1ns") || rtl_text.contains("1 ns"),
        "{rtl_text}"
    );
    // 25 cycles in the window: both files end at the window's last edge.
    assert!(model_text.contains("#245\n"), "{model_text}");
    assert!(rtl_text.contains("#245\n"), "{rtl_text}");
    assert!(rtl_text.contains("#250\n"), "{rtl_text}");
    assert!(!rtl_text.contains("#255\n"), "{rtl_text}");

    let text = report.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("mismatch at cycle 300 on port sum: expected "),
        "{text}"
    );
    assert!(
        lines[1].starts_with("also at cycle 300 on port flag: "),
        "{text}"
    );
    assert_eq!(lines[2], "seed: 42");
    assert_eq!(
        lines[3],
        "replay: cargo test -p switchcraft-sim --test binding cosim_mismatch"
    );
    assert_eq!(lines[4], format!("waves: {}", model_vcd.display()));
    assert_eq!(lines[5], format!("waves: {}", rtl_vcd.display()));
}

/// A mismatch after whole batches that matched (the comparison skips per-row work for those)
/// is still reported at its own cycle.
#[test]
fn cosim_mismatch_after_matching_batches_names_its_cycle() {
    let dir = test_dir("mismatch_late");
    let v = write_verilog(&dir);
    let mut rtl = build(&v, "acc_top", &schema(), &BuildOptions::default()).unwrap();
    let mut model = AccModel::new(Some(2_500));
    let mut stim = SeededStimulus::new(7, 10_000, SplitMix64::new, random_inputs);
    let opts = CosimOptions {
        seed: Some(7),
        out_dir: dir.join("waves"),
        ..Default::default()
    };
    let report = cosim::run(&mut model, &mut rtl, &mut stim, &opts).unwrap();
    let m = report.mismatch.as_ref().expect("a mismatch");
    assert_eq!(m.cycle, 2_500, "{report}");
    assert_eq!(m.first.port, "sum");
    assert_eq!(report.cycles, 2_509, "runs window_after = 8 more cycles");
}

#[test]
fn cosim_writes_full_run_vcds_and_accepts_file_stimulus() {
    let dir = test_dir("fullvcd");
    let v = write_verilog(&dir);
    let mut rtl = build(&v, "acc_top", &schema(), &BuildOptions::default()).unwrap();
    let mut model = AccModel::new(None);
    let rows: Vec<Vec<u64>> = (0..40).map(|k| vec![k * 3 % 256, k % 2, k << 40]).collect();
    let mut stim = VecStimulus::from(rows);
    let vcd = dir.join("run.vcd");
    let report = cosim::run(
        &mut model,
        &mut rtl,
        &mut stim,
        &CosimOptions {
            vcd: Some(vcd.clone()),
            out_dir: dir.clone(),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(report.passed(), "{report}");
    assert_eq!(report.cycles, 40);
    let rtl_vcd = dir.join("run.rtl.vcd");
    assert_eq!(report.vcd, Some((vcd.clone(), rtl_vcd.clone())));
    let rtl_text = std::fs::read_to_string(&rtl_vcd).unwrap();
    assert!(rtl_text.contains("#395\n") && rtl_text.contains("#400\n"));
    assert!(std::fs::metadata(&vcd).unwrap().len() > 0);
}

#[test]
fn schema_mismatch_is_reported_by_port_name() {
    let dir = test_dir("badschema");
    let v = write_verilog(&dir);
    let mut ports = schema().ports;
    ports[3].width = 32;
    ports.push(Port::output("missing_out", 3, ""));
    let bad = PortSchema::new("acc", ports);
    let e = build(&v, "acc_top", &bad, &BuildOptions::default()).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, SimError::PortMismatch { .. }), "{text}");
    assert!(
        text.contains("`sum` is 32 bits in the schema but 40 bits in the Verilog"),
        "{text}"
    );
    assert!(text.contains("`missing_out`"), "{text}");
}

#[test]
fn tool_failures_are_errors_not_panics() {
    let dir = test_dir("tools");
    let v = write_verilog(&dir);
    let opts = BuildOptions {
        verilator: Some(PathBuf::from("/nonexistent/verilator")),
        ..Default::default()
    };
    let e = build(&v, "acc_top", &schema(), &opts).unwrap_err();
    assert!(matches!(e, SimError::ToolMissing { .. }), "{e}");
    assert!(e.to_string().contains("scripts/setup.sh"), "{e}");

    // A Verilog syntax error names the command and quotes Verilator's message.
    let broken = dir.join("broken.v");
    std::fs::write(&broken, ACC_V.replace("endmodule", "")).unwrap();
    let e = build(&broken, "acc_top", &schema(), &BuildOptions::default()).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, SimError::Tool { .. }), "{text}");
    assert!(text.contains("--top-module acc_top"), "{text}");
    assert!(text.contains("%Error"), "{text}");
}

#[test]
fn trace_needs_a_trace_build() {
    let dir = test_dir("trace");
    let v = write_verilog(&dir);
    let mut m = build(&v, "acc_top", &schema(), &BuildOptions::default()).unwrap();
    assert!(m.trace_open(&dir.join("x.vcd")).is_err());
    let mut t = m.trace_variant().unwrap();
    assert!(t.has_trace());
    t.reset(1);
    let mut out = [0u64; 5];
    t.step(&[1, 1, 0], &mut out);
    t.trace_open(&dir.join("x.vcd")).unwrap();
    for _ in 0..3 {
        t.step(&[1, 1, 0], &mut out);
    }
    assert_eq!(out[0], 4);
    t.trace_close().unwrap();
    let text = std::fs::read_to_string(dir.join("x.vcd")).unwrap();
    assert!(text.contains("#5\n") && text.contains("#30\n"), "{text}");
    // Opening again replaces the trace; times restart at the new opening.
    t.trace_open(&dir.join("y.vcd")).unwrap();
    t.step(&[1, 1, 0], &mut out);
    drop(t);
    let text = std::fs::read_to_string(dir.join("y.vcd")).unwrap();
    assert!(text.contains("#5\n") && text.contains("#10\n"), "{text}");
}

#[test]
fn concurrent_builds_of_one_key_build_once_and_models_are_send() {
    fn assert_send<T: Send>() {}
    assert_send::<switchcraft_sim::VerilatedModel>();

    let dir = test_dir("race");
    let v = write_verilog(&dir);
    let opts = BuildOptions {
        cache_dir: Some(dir.join("cache")),
        jobs: Some(1),
        ..Default::default()
    };
    let handles: Vec<_> = (0..2)
        .map(|k| {
            let (v, opts) = (v.clone(), opts.clone());
            std::thread::spawn(move || {
                let mut m = build(&v, "acc_top", &schema(), &opts).unwrap();
                m.reset(1);
                let mut out = [0u64; 5];
                m.step(&[10 + k, 1, 0], &mut out);
                assert_eq!(out[0], 10 + k);
                m
            })
        })
        .collect();
    let mut models: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(
        models[0].build_info().library,
        models[1].build_info().library
    );
    // One build: the other thread waited on the key's lock and loaded its library.
    let misses = models.iter().filter(|m| !m.build_info().cache_hit).count();
    assert_eq!(misses, 1, "built once");
    // Exactly one entry and one set of runtime objects (beside the lock files), no temporary
    // directories left over.
    let mut entries: Vec<String> = std::fs::read_dir(dir.join("cache"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != ".locks")
        .collect();
    entries.sort();
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert!(entries[0].starts_with("acc_top-"), "{entries:?}");
    assert!(entries[1].starts_with("runtime-"), "{entries:?}");
    // Models built on other threads keep their state and run on this one.
    let mut out = [0u64; 5];
    for (k, m) in models.iter_mut().enumerate() {
        m.step(&[1, 1, 0], &mut out);
        assert_eq!(out[0], 11 + k as u64);
    }
}

#[test]
fn batched_steps_with_the_fast_falling_edge_equal_exact_single_steps() {
    let dir = test_dir("fast-edge");
    let v = write_verilog(&dir);
    let opts = BuildOptions::default();
    let mut exact = build(&v, "acc_top", &schema(), &opts).unwrap();
    let mut fast = build(&v, "acc_top", &schema(), &opts).unwrap();
    exact.set_exact_falling_edge(true);
    assert!(!exact.falling_edge_skips_eval());
    assert!(
        fast.falling_edge_skips_eval(),
        "Verilator 5 models expose their clock-edge memory; the shim should use it"
    );
    exact.reset(2);
    fast.reset(2);

    let seed = 0x5e_ed0f_ed9e;
    let mut rng = SplitMix64::new(seed);
    let (n_in, n_out) = (3, 5);
    let mut one = [0u64; 5];
    let mut cycle = 0u64;
    while cycle < 200_000 {
        // Batches of 1..=700 rows, so batch boundaries fall everywhere.
        let rows = 1 + rng.below(700) as usize;
        let mut inputs = vec![0u64; rows * n_in];
        for row in inputs.chunks_exact_mut(n_in) {
            random_inputs(&mut rng, row);
        }
        let mut outputs = vec![0u64; rows * n_out];
        fast.step_rows(&inputs, &mut outputs);
        for (r, (i, o)) in inputs
            .chunks_exact(n_in)
            .zip(outputs.chunks_exact(n_out))
            .enumerate()
        {
            exact.step(i, &mut one);
            assert_eq!(o, &one[..], "cycle {}, seed {seed:#x}", cycle + r as u64);
        }
        cycle += rows as u64;
    }
    assert_eq!(fast.cycle(), exact.cycle());
}
