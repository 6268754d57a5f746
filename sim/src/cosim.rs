//! Co-simulation: a golden [`DynModel`] and a [`VerilatedModel`] on the same stimulus, every
//! output compared every cycle.
//!
//! Both sides are reset first (the model with [`DynModel::reset`], the RTL with
//! [`CosimOptions::reset_cycles`] cycles of `rst` = 1), then cycle 0, 1, ... get the same inputs.
//! On the first cycle where some output differs, the run records it, goes on for
//! [`CosimOptions::window_after`] more cycles, and then replays the stimulus from the start to
//! write both sides' waveforms for the window `[cycle - window_before, cycle + window_after]`:
//! `<out_dir>/mismatch_model.vcd` (core's `VcdWriter`) and `<out_dir>/mismatch_rtl.vcd`
//! (Verilator's own trace of every signal, from the `--trace` build of the same design).
//! The stimulus must therefore replay identically after [`Stimulus::restart`].
//!
//! The per-cycle loop only writes into preallocated buffers; nothing is allocated or formatted
//! unless a full-run VCD was asked for.

use crate::error::SimError;
use crate::verilator::VerilatedModel;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use switchcraft_core::output::OutputFile;
use switchcraft_core::vcd::VcdWriter;
use switchcraft_core::{DynModel, PortSchema};

/// A replayable source of input values, one row per cycle in schema input order.
pub trait Stimulus {
    /// Goes back to cycle 0; the following [`next`](Stimulus::next) calls must reproduce the
    /// same sequence.
    fn restart(&mut self);
    /// Writes the next cycle's inputs; returns false (leaving `inputs` unspecified) at the end.
    fn next(&mut self, inputs: &mut [u64]) -> bool;
    /// True when both sides are to be reset before the next row (a fault injected in the
    /// middle of traffic, [`crate::faults`]): the model by [`DynModel::reset`], the RTL by
    /// [`CosimOptions::reset_cycles`] cycles of `rst`, which are not compared.
    fn reset_next(&self) -> bool {
        false
    }
}

impl<T: Stimulus + ?Sized> Stimulus for &mut T {
    fn restart(&mut self) {
        (**self).restart()
    }
    fn next(&mut self, inputs: &mut [u64]) -> bool {
        (**self).next(inputs)
    }
    fn reset_next(&self) -> bool {
        (**self).reset_next()
    }
}

impl<T: Stimulus + ?Sized> Stimulus for Box<T> {
    fn restart(&mut self) {
        (**self).restart()
    }
    fn next(&mut self, inputs: &mut [u64]) -> bool {
        (**self).next(inputs)
    }
    fn reset_next(&self) -> bool {
        (**self).reset_next()
    }
}

/// Stimulus from rows of values, e.g. a file read by `switchcraft_core::stimulus::read_stimulus`.
/// A short row leaves the remaining inputs 0.
#[derive(Clone, Debug, Default)]
pub struct VecStimulus {
    rows: Vec<Vec<u64>>,
    pos: usize,
}

impl VecStimulus {
    pub fn new(rows: Vec<Vec<u64>>) -> Self {
        VecStimulus { rows, pos: 0 }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

impl From<Vec<Vec<u64>>> for VecStimulus {
    fn from(rows: Vec<Vec<u64>>) -> Self {
        VecStimulus::new(rows)
    }
}

impl Stimulus for VecStimulus {
    fn restart(&mut self) {
        self.pos = 0;
    }

    fn next(&mut self, inputs: &mut [u64]) -> bool {
        let Some(row) = self.rows.get(self.pos) else {
            return false;
        };
        self.pos += 1;
        let n = row.len().min(inputs.len());
        inputs[..n].copy_from_slice(&row[..n]);
        inputs[n..].fill(0);
        true
    }
}

/// Stimulus computed from the cycle number alone: `f(cycle, inputs)` for `cycle` in
/// `0..cycles`. Replays trivially.
pub struct FnStimulus<F> {
    f: F,
    cycle: u64,
    cycles: u64,
}

impl<F: FnMut(u64, &mut [u64])> FnStimulus<F> {
    pub fn new(cycles: u64, f: F) -> Self {
        FnStimulus {
            f,
            cycle: 0,
            cycles,
        }
    }
}

impl<F: FnMut(u64, &mut [u64])> Stimulus for FnStimulus<F> {
    fn restart(&mut self) {
        self.cycle = 0;
    }

    fn next(&mut self, inputs: &mut [u64]) -> bool {
        if self.cycle >= self.cycles {
            return false;
        }
        (self.f)(self.cycle, inputs);
        self.cycle += 1;
        true
    }
}

/// Seeded random stimulus: the generator state is `init(seed)` (e.g.
/// `switchcraft_core::rng::SplitMix64::new`) and each cycle calls `generate(&mut state, inputs)`.
/// [`restart`](Stimulus::restart) re-creates the state from the seed, so a replay is identical.
pub struct SeededStimulus<S, I, G> {
    seed: u64,
    cycles: u64,
    cycle: u64,
    init: I,
    generate: G,
    state: S,
}

impl<S, I, G> SeededStimulus<S, I, G>
where
    I: FnMut(u64) -> S,
    G: FnMut(&mut S, &mut [u64]),
{
    pub fn new(seed: u64, cycles: u64, mut init: I, generate: G) -> Self {
        let state = init(seed);
        SeededStimulus {
            seed,
            cycles,
            cycle: 0,
            init,
            generate,
            state,
        }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl<S, I, G> Stimulus for SeededStimulus<S, I, G>
where
    I: FnMut(u64) -> S,
    G: FnMut(&mut S, &mut [u64]),
{
    fn restart(&mut self) {
        self.state = (self.init)(self.seed);
        self.cycle = 0;
    }

    fn next(&mut self, inputs: &mut [u64]) -> bool {
        if self.cycle >= self.cycles {
            return false;
        }
        (self.generate)(&mut self.state, inputs);
        self.cycle += 1;
        true
    }
}

#[derive(Clone, Debug)]
pub struct CosimOptions {
    /// Stop after this many cycles even if the stimulus goes on.
    pub max_cycles: u64,
    /// Clock cycles of `rst` = 1 given to the RTL before cycle 0 and at each reset of the
    /// stimulus; the RTL's declared minimum when that is more
    /// ([`VerilatedModel::set_min_reset_cycles`]).
    pub reset_cycles: u32,
    /// The stimulus seed, echoed in the mismatch report.
    pub seed: Option<u64>,
    /// A command that reproduces the run, echoed in the mismatch report.
    pub replay: Option<String>,
    /// Where `mismatch_model.vcd` and `mismatch_rtl.vcd` go (created if missing).
    pub out_dir: PathBuf,
    /// Cycles before the mismatch included in its waveforms.
    pub window_before: u64,
    /// Cycles after the mismatch that are still run and included in its waveforms.
    pub window_after: u64,
    /// Model-side VCD of the whole run; the Verilator trace goes next to it as `<stem>.rtl.vcd`.
    pub vcd: Option<PathBuf>,
}

impl Default for CosimOptions {
    fn default() -> Self {
        CosimOptions {
            max_cycles: u64::MAX,
            reset_cycles: 1,
            seed: None,
            replay: None,
            out_dir: PathBuf::from("."),
            window_before: 16,
            window_after: 8,
            vcd: None,
        }
    }
}

/// One output port's values on a cycle where they differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortDiff {
    pub port: String,
    /// The golden model's value.
    pub expected: u64,
    /// The Verilator model's value.
    pub actual: u64,
}

/// The first cycle on which model and RTL disagree.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub cycle: u64,
    /// The first differing output (schema order).
    pub first: PortDiff,
    /// Every other output that differs on the same cycle.
    pub others: Vec<PortDiff>,
    pub seed: Option<u64>,
    pub replay: Option<String>,
    /// First and last cycle of the waveform window.
    pub window: (u64, u64),
    /// `<out_dir>/mismatch_model.vcd`, if written.
    pub model_vcd: Option<PathBuf>,
    /// `<out_dir>/mismatch_rtl.vcd`, if written.
    pub rtl_vcd: Option<PathBuf>,
    /// Why the waveforms could not be written, if so.
    pub waves_error: Option<String>,
    /// False if replaying the stimulus for the waveforms gave other values on the mismatch cycle.
    pub reproduced: bool,
}

#[derive(Clone, Debug)]
pub struct CosimReport {
    pub block: String,
    /// Cycles compared (after reset), including the ones after a mismatch.
    pub cycles: u64,
    /// Wall time of the compare loop.
    pub wall: Duration,
    pub mismatch: Option<Mismatch>,
    /// The full-run VCDs (model, RTL), if [`CosimOptions::vcd`] was set.
    pub vcd: Option<(PathBuf, PathBuf)>,
}

impl CosimReport {
    pub fn passed(&self) -> bool {
        self.mismatch.is_none()
    }

    pub fn cycles_per_second(&self) -> f64 {
        let s = self.wall.as_secs_f64();
        if s > 0.0 {
            self.cycles as f64 / s
        } else {
            f64::INFINITY
        }
    }
}

fn value(v: u64) -> String {
    if v < 10 {
        v.to_string()
    } else {
        format!("{v} (0x{v:x})")
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "mismatch at cycle {} on port {}: expected {}, got {}",
            self.cycle,
            self.first.port,
            value(self.first.expected),
            value(self.first.actual)
        )?;
        for d in &self.others {
            writeln!(
                f,
                "also at cycle {} on port {}: expected {}, got {}",
                self.cycle,
                d.port,
                value(d.expected),
                value(d.actual)
            )?;
        }
        match self.seed {
            Some(s) => writeln!(f, "seed: {s}")?,
            None => writeln!(f, "seed: none")?,
        }
        match &self.replay {
            Some(r) => writeln!(f, "replay: {r}")?,
            None => writeln!(f, "replay: (no replay command given)")?,
        }
        if let Some(e) = &self.waves_error {
            write!(f, "waves: not written: {e}")?;
        } else {
            let paths: Vec<&PathBuf> = [&self.model_vcd, &self.rtl_vcd]
                .into_iter()
                .flatten()
                .collect();
            for (k, p) in paths.iter().enumerate() {
                if k > 0 {
                    writeln!(f)?;
                }
                write!(f, "waves: {}", p.display())?;
            }
        }
        if !self.reproduced {
            write!(
                f,
                "\nwarning: replaying the stimulus did not reproduce this mismatch \
                 (is the stimulus deterministic?)"
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for CosimReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = &self.mismatch {
            return m.fmt(f);
        }
        write!(
            f,
            "co-simulation of {} passed: {} cycles in {:.3} s ({:.0} cycles/s)",
            self.block,
            self.cycles,
            self.wall.as_secs_f64(),
            self.cycles_per_second()
        )?;
        if let Some((m, r)) = &self.vcd {
            write!(f, "\nwaves: {}\nwaves: {}", m.display(), r.display())?;
        }
        Ok(())
    }
}

/// Where co-simulation writes the Verilator trace beside the model's: `run.vcd` ->
/// `run.rtl.vcd`.
pub fn rtl_vcd_path(model_vcd: &Path) -> PathBuf {
    let name = model_vcd
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run.vcd".into());
    let stem = name.strip_suffix(".vcd").unwrap_or(&name);
    model_vcd.with_file_name(format!("{stem}.rtl.vcd"))
}

pub(crate) fn check_schemas(model: &PortSchema, rtl: &PortSchema) -> Result<(), SimError> {
    let sig = |s: &PortSchema| {
        s.ports
            .iter()
            .map(|p| (p.name.clone(), p.width, p.dir))
            .collect::<Vec<_>>()
    };
    if sig(model) == sig(rtl) {
        return Ok(());
    }
    let show = |s: &PortSchema| {
        s.ports
            .iter()
            .map(|p| format!("{:?} {}[{}]", p.dir, p.name, p.width))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(SimError::Setup(format!(
        "the model's ports ({}: {}) differ from the RTL's ({}: {})",
        model.block,
        show(model),
        rtl.block,
        show(rtl)
    )))
}

fn vcd_err(path: &Path) -> impl Fn(std::io::Error) -> SimError + '_ {
    move |e| SimError::io("cannot write", path, e)
}

/// Cycles per batch handed from the stimulus/model thread to the Verilator thread: large enough
/// that the hand-off (a thread wake-up per batch) is lost in the batch's work (1024 cost 3% on
/// PFC `tiny`), small enough to stay in cache.
const BATCH_CYCLES: usize = 8192;
/// Filled batches that may wait for the Verilator thread.
const BATCHES_IN_FLIGHT: usize = 2;

/// Rows of inputs and the model's outputs for consecutive cycles, flattened.
struct Batch {
    rows: usize,
    /// Both sides are reset before the batch's first row.
    reset: bool,
    inputs: Vec<u64>,
    expected: Vec<u64>,
}

impl Batch {
    fn new(n_in: usize, n_out: usize) -> Self {
        Batch {
            rows: 0,
            reset: false,
            inputs: vec![0; BATCH_CYCLES * n_in],
            expected: vec![0; BATCH_CYCLES * n_out],
        }
    }
}

/// Fills recycled batches with stimulus rows and the model's outputs until the stimulus ends,
/// `max_cycles` are done, or the consumer hangs up.
fn produce(
    model: &mut (dyn DynModel + Send),
    stim: &mut (dyn Stimulus + Send),
    max_cycles: u64,
    full: mpsc::SyncSender<Batch>,
    empty: mpsc::Receiver<Batch>,
) {
    let n_in = model.ports().input_count();
    let n_out = model.ports().output_count();
    let mut cycle = 0u64;
    let mut ended = false;
    while !ended {
        let Ok(mut batch) = empty.recv() else {
            return;
        };
        batch.rows = 0;
        batch.reset = false;
        while batch.rows < BATCH_CYCLES {
            if cycle >= max_cycles {
                ended = true;
                break;
            }
            if stim.reset_next() {
                // A reset starts a batch, so the consumer resets the RTL before its rows.
                if batch.rows > 0 {
                    break;
                }
                batch.reset = true;
                model.reset();
            }
            let inputs = &mut batch.inputs[batch.rows * n_in..][..n_in];
            if !stim.next(inputs) {
                ended = true;
                break;
            }
            model.step_values(inputs, &mut batch.expected[batch.rows * n_out..][..n_out]);
            batch.rows += 1;
            cycle += 1;
        }
        if batch.rows > 0 && full.send(batch).is_err() {
            return;
        }
    }
}

/// Runs `model` and `rtl` on `stim` and compares every output every cycle (see the module
/// docs). A mismatch is a normal outcome, reported in [`CosimReport::mismatch`]; `Err` means the
/// run itself could not be done (tools, files, schemas).
pub fn run(
    model: &mut (dyn DynModel + Send),
    rtl: &mut VerilatedModel,
    stim: &mut (dyn Stimulus + Send),
    opts: &CosimOptions,
) -> Result<CosimReport, SimError> {
    check_schemas(model.ports(), rtl.schema())?;
    let schema = rtl.schema().clone();
    let mut actual = vec![0u64; BATCH_CYCLES * schema.output_count()];

    // A full-run trace needs the --trace build of the design.
    let mut traced: Option<VerilatedModel> = None;
    if opts.vcd.is_some() && !rtl.has_trace() {
        traced = Some(rtl.trace_variant()?);
    }

    let (cycles, wall, first, full_vcd) = {
        let main: &mut VerilatedModel = match traced.as_mut() {
            Some(t) => t,
            None => &mut *rtl,
        };
        stim.restart();
        model.reset();
        main.reset(opts.reset_cycles);

        let mut model_file = None;
        if let Some(path) = &opts.vcd {
            create_parent(path)?;
            model_file = Some((
                OutputFile::create(path).map_err(|e| SimError::io("cannot create", path, e))?,
                path,
            ));
            main.trace_open(&rtl_vcd_path(path))?;
        }
        // A failed run leaves no partial Verilator trace.
        let run = run_traced(
            model,
            &mut *main,
            stim,
            opts,
            &schema,
            &mut actual,
            model_file,
        );
        if run.is_err() {
            main.trace_abandon();
        }
        run?
    };

    let mut report = CosimReport {
        block: schema.block.clone(),
        cycles,
        wall,
        mismatch: None,
        vcd: full_vcd,
    };
    let Some((at, exp_at, act_at)) = first else {
        return Ok(report);
    };

    let names: Vec<&str> = schema.outputs().map(|p| p.name.as_str()).collect();
    let mut diffs = exp_at
        .iter()
        .zip(&act_at)
        .enumerate()
        .filter(|(_, (e, a))| e != a)
        .map(|(k, (&expected, &actual))| PortDiff {
            port: names[k].to_string(),
            expected,
            actual,
        });
    let first_diff = diffs.next().expect("a differing output");
    let others: Vec<PortDiff> = diffs.collect();
    let window = (
        at.saturating_sub(opts.window_before),
        at.saturating_add(opts.window_after)
            .min(cycles.saturating_sub(1)),
    );
    let mut mismatch = Mismatch {
        cycle: at,
        first: first_diff,
        others,
        seed: opts.seed,
        replay: opts.replay.clone(),
        window,
        model_vcd: None,
        rtl_vcd: None,
        waves_error: None,
        reproduced: true,
    };

    // Waveforms of the window, from a replay of the stimulus on a --trace build.
    let waves = (|| {
        if traced.is_none() && !rtl.has_trace() {
            traced = Some(rtl.trace_variant()?);
        }
        let t: &mut VerilatedModel = match traced.as_mut() {
            Some(t) => t,
            None => &mut *rtl,
        };
        write_window(model, t, stim, opts, &schema, window, at, &exp_at, &act_at)
    })();
    match waves {
        Ok((model_vcd, rtl_vcd, reproduced)) => {
            mismatch.model_vcd = Some(model_vcd);
            mismatch.rtl_vcd = Some(rtl_vcd);
            mismatch.reproduced = reproduced;
        }
        Err(e) => mismatch.waves_error = Some(e.to_string()),
    }
    report.mismatch = Some(mismatch);
    Ok(report)
}

/// The compared run of [`run`], with the full-run VCDs if `model_file` is given (the model's
/// file, not yet written; the Verilator trace already open on `main`).
#[allow(clippy::type_complexity)]
fn run_traced(
    model: &mut (dyn DynModel + Send),
    main: &mut VerilatedModel,
    stim: &mut (dyn Stimulus + Send),
    opts: &CosimOptions,
    schema: &PortSchema,
    actual: &mut [u64],
    mut model_file: Option<(OutputFile, &PathBuf)>,
) -> Result<
    (
        u64,
        Duration,
        Option<(u64, Vec<u64>, Vec<u64>)>,
        Option<(PathBuf, PathBuf)>,
    ),
    SimError,
> {
    let (n_in, n_out) = (schema.input_count(), schema.output_count());
    let model_vcd = opts.vcd.as_deref();
    let mut writer = match model_file.as_mut() {
        Some((file, path)) => {
            Some(VcdWriter::new(file, schema, 0).map_err(vcd_err(path.as_path()))?)
        }
        None => None,
    };

    let start = Instant::now();
    let mut cycle = 0u64;
    let mut stop_after = u64::MAX;
    let mut vcd_shift = 0u64;
    let mut first: Option<(u64, Vec<u64>, Vec<u64>)> = None;
    std::thread::scope(|scope| -> Result<(), SimError> {
        // The stimulus and the model run one batch ahead on a second thread; this thread
        // steps Verilator and compares. Batches are recycled, so nothing is allocated per cycle.
        let (full_tx, full_rx) = mpsc::sync_channel::<Batch>(BATCHES_IN_FLIGHT);
        let (empty_tx, empty_rx) = mpsc::channel::<Batch>();
        for _ in 0..BATCHES_IN_FLIGHT + 1 {
            let _ = empty_tx.send(Batch::new(n_in, n_out));
        }
        let max_cycles = opts.max_cycles;
        let (model, stim) = (&mut *model, &mut *stim);
        scope.spawn(move || produce(model, stim, max_cycles, full_tx, empty_rx));

        'batches: for batch in full_rx.iter() {
            let rows = batch.rows;
            if batch.reset {
                let held = main.reset(opts.reset_cycles);
                // The Verilator trace records the reset's clock periods; the model's VCD
                // leaves them out, at the same times.
                vcd_shift += u64::from(held);
            }
            main.step_rows(&batch.inputs[..rows * n_in], &mut actual[..rows * n_out]);
            if model_vcd.is_some() {
                // A trace that can no longer be written (a full disk) stops the run.
                main.trace_check()?;
            }
            // Without a VCD to write, a batch that matches as a whole needs no per-row work.
            if writer.is_none()
                && first.is_none()
                && batch.expected[..rows * n_out] == actual[..rows * n_out]
            {
                cycle += rows as u64;
                let _ = empty_tx.send(batch);
                continue;
            }
            for row in 0..rows {
                let inputs = &batch.inputs[row * n_in..][..n_in];
                let expected = &batch.expected[row * n_out..][..n_out];
                let actual = &actual[row * n_out..][..n_out];
                if let Some(w) = writer.as_mut() {
                    let path = opts.vcd.as_deref().unwrap_or(Path::new(""));
                    w.step(cycle + vcd_shift, inputs, expected)
                        .map_err(vcd_err(path))?;
                }
                if expected != actual && first.is_none() {
                    first = Some((cycle, expected.to_vec(), actual.to_vec()));
                    stop_after = cycle.saturating_add(opts.window_after);
                }
                cycle += 1;
                if cycle > stop_after {
                    break 'batches;
                }
            }
            // The producer may have finished and dropped its end: nothing to recycle then.
            let _ = empty_tx.send(batch);
        }
        // Dropping both channel ends here (before the scope joins) unblocks the producer.
        Ok(())
    })?;
    let wall = start.elapsed();

    if let Some(w) = writer {
        let path = opts.vcd.as_deref().unwrap_or(Path::new(""));
        w.finish().map_err(vcd_err(path))?;
    }
    main.trace_close()?;
    let mut full_vcd = None;
    if let Some((file, path)) = model_file {
        file.commit().map_err(vcd_err(path))?;
        full_vcd = Some((path.clone(), rtl_vcd_path(path)));
    }
    Ok((cycle, wall, first, full_vcd))
}

fn create_parent(path: &Path) -> Result<(), SimError> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir)
            .map_err(|e| SimError::io("cannot create directory", dir, e)),
        _ => Ok(()),
    }
}

/// Replays the stimulus up to the end of `window` and writes both sides' VCDs of the window.
/// Returns the two paths and whether the mismatch cycle replayed identically.
#[allow(clippy::too_many_arguments)]
fn write_window(
    model: &mut dyn DynModel,
    rtl: &mut VerilatedModel,
    stim: &mut dyn Stimulus,
    opts: &CosimOptions,
    schema: &PortSchema,
    (first, last): (u64, u64),
    at: u64,
    exp_at: &[u64],
    act_at: &[u64],
) -> Result<(PathBuf, PathBuf, bool), SimError> {
    std::fs::create_dir_all(&opts.out_dir)
        .map_err(|e| SimError::io("cannot create directory", &opts.out_dir, e))?;
    let model_vcd = opts.out_dir.join("mismatch_model.vcd");
    let rtl_vcd = opts.out_dir.join("mismatch_rtl.vcd");
    let mut inputs = vec![0u64; schema.input_count()];
    let mut expected = vec![0u64; schema.output_count()];
    let mut actual = vec![0u64; schema.output_count()];
    let mut reproduced = false;

    stim.restart();
    model.reset();
    rtl.reset(opts.reset_cycles);
    let mut file =
        OutputFile::create(&model_vcd).map_err(|e| SimError::io("cannot create", &model_vcd, e))?;
    let mut writer = VcdWriter::new(&mut file, schema, first).map_err(vcd_err(&model_vcd))?;
    // A failed replay leaves no partial Verilator trace.
    let replay = || -> Result<(), SimError> {
        let mut shift = 0u64;
        for cycle in 0..=last {
            if stim.reset_next() {
                model.reset();
                let held = rtl.reset(opts.reset_cycles);
                if cycle > first {
                    shift += u64::from(held);
                }
            }
            if !stim.next(&mut inputs) {
                break;
            }
            if cycle == first {
                rtl.trace_open(&rtl_vcd)?;
            }
            model.step_values(&inputs, &mut expected);
            rtl.step(&inputs, &mut actual);
            if cycle >= first {
                writer
                    .step(cycle + shift, &inputs, &expected)
                    .map_err(vcd_err(&model_vcd))?;
            }
            if cycle == at {
                reproduced = expected == exp_at && actual == act_at;
            }
        }
        writer.finish().map_err(vcd_err(&model_vcd))?;
        rtl.trace_close()
    };
    let replayed = replay();
    if replayed.is_err() {
        rtl.trace_abandon();
    }
    replayed?;
    file.commit().map_err(vcd_err(&model_vcd))?;
    Ok((model_vcd, rtl_vcd, reproduced))
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchcraft_core::rng::SplitMix64;

    fn drain(s: &mut dyn Stimulus, width: usize) -> Vec<Vec<u64>> {
        let mut out = Vec::new();
        let mut row = vec![0; width];
        while s.next(&mut row) {
            out.push(row.clone());
        }
        out
    }

    #[test]
    fn stimuli_replay_identically() {
        let mut v = VecStimulus::from(vec![vec![1, 2], vec![3]]);
        let a = drain(&mut v, 2);
        assert_eq!(a, vec![vec![1, 2], vec![3, 0]]);
        v.restart();
        assert_eq!(drain(&mut v, 2), a);

        let mut f = FnStimulus::new(3, |c, i: &mut [u64]| i[0] = c * 2);
        let a = drain(&mut f, 1);
        assert_eq!(a, vec![vec![0], vec![2], vec![4]]);
        f.restart();
        assert_eq!(drain(&mut f, 1), a);

        let mut s = SeededStimulus::new(42, 50, SplitMix64::new, |r, i: &mut [u64]| {
            i[0] = r.below(100)
        });
        let a = drain(&mut s, 1);
        assert_eq!(a.len(), 50);
        s.restart();
        assert_eq!(drain(&mut s, 1), a);
    }

    #[test]
    fn rtl_vcd_sits_next_to_the_model_vcd() {
        assert_eq!(
            rtl_vcd_path(Path::new("/x/run.vcd")),
            Path::new("/x/run.rtl.vcd")
        );
        assert_eq!(rtl_vcd_path(Path::new("run")), Path::new("run.rtl.vcd"));
    }

    #[test]
    fn mismatch_report_lists_everything() {
        let m = Mismatch {
            cycle: 1234,
            first: PortDiff {
                port: "xoff_valid".into(),
                expected: 1,
                actual: 0,
            },
            others: vec![PortDiff {
                port: "q".into(),
                expected: 300,
                actual: 301,
            }],
            seed: Some(42),
            replay: Some("switchcraft cosim --seed 42".into()),
            window: (1218, 1242),
            model_vcd: Some("out/mismatch_model.vcd".into()),
            rtl_vcd: Some("out/mismatch_rtl.vcd".into()),
            waves_error: None,
            reproduced: true,
        };
        let text = m.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "mismatch at cycle 1234 on port xoff_valid: expected 1, got 0"
        );
        assert_eq!(
            lines[1],
            "also at cycle 1234 on port q: expected 300 (0x12c), got 301 (0x12d)"
        );
        assert_eq!(lines[2], "seed: 42");
        assert_eq!(lines[3], "replay: switchcraft cosim --seed 42");
        assert_eq!(lines[4], "waves: out/mismatch_model.vcd");
        assert_eq!(lines[5], "waves: out/mismatch_rtl.vcd");
    }
}
