//! The hand-written recurrence kernels of loops/pfc_occupancy.v (what `switchcraft synth
//! --loops` measures on each device) compute PFC's occupancy: under Verilator, every form
//! against the golden model's `Occupancy` (dequeue, then enqueue, on one key), every output on
//! every cycle. A speed bound measured on a kernel says something about PFC only if the kernel
//! is PFC's function.

mod common;

use std::collections::VecDeque;
use switchcraft::synth::loops::{self, Kernel, KERNELS};
use switchcraft_core::rng::SplitMix64;
use switchcraft_core::PortSchema;
use switchcraft_model::pfc::Occupancy;
use switchcraft_sim::VerilatedModel;

const CYCLES: u64 = 40_000;

/// A hand-written kernel, verilated and reset: its entry, its ports, the model, and the
/// largest length and counter value its widths hold.
struct Verilated {
    k: &'static Kernel,
    schema: PortSchema,
    rtl: VerilatedModel,
    len_max: u64,
    occ_top: u64,
}

fn verilated(top: &str) -> Verilated {
    let (k, schema, rtl) = common::verilated_kernel(top);
    let width = |name: &str| schema.ports.iter().find(|p| p.name == name).unwrap().width;
    let (len_max, occ_top) = ((1u64 << width("e_len")) - 1, (1u64 << width("max")) - 1);
    Verilated {
        k,
        schema,
        rtl,
        len_max,
        occ_top,
    }
}

/// How often each case of the spec occurred, so a run that never reaches one fails.
#[derive(Default, Debug)]
struct Seen {
    drops: u64,
    underflows: u64,
    both: u64,
    from_lookup: u64,
    from_loop: u64,
}

fn run(top: &str, seed: u64) -> Seen {
    let Verilated {
        k,
        schema,
        mut rtl,
        len_max,
        occ_top,
    } = verilated(top);
    let with_source = schema.input_index("looked_up").is_some();
    let mut rng = SplitMix64::new(seed);
    let mut model = Occupancy::new(1, 1);
    let mut expected: VecDeque<([u64; 3], [u64; 5])> = VecDeque::new();
    let mut seen = Seen::default();
    let (mut max, mut fill) = (0u64, 50u64);
    let mut outputs = vec![0u64; 3];
    for cycle in 0..CYCLES {
        // Phases: a limit from small to the counter's top, and traffic that fills or drains.
        if cycle % 700 == 0 {
            max = match rng.below(5) {
                0 => rng.below(3),
                1 => rng.range(1, len_max),
                2 => rng.range(len_max, 8 * len_max),
                _ => rng.range(occ_top - 15_000, occ_top),
            };
            fill = rng.range(20, 80);
        }
        let e_len = if rng.chance(fill) {
            rng.range(0, len_max)
        } else {
            0
        };
        let d_len = if rng.chance(100 - fill) {
            rng.range(0, len_max)
        } else {
            0
        };
        let same = !with_source || rng.chance(80);
        // Any stored value, also one above the limit (the loop must not assume otherwise).
        let looked_up = if rng.chance(70) {
            rng.range(0, max)
        } else {
            rng.below(occ_top + 1)
        };
        if same {
            seen.from_loop += 1;
        } else {
            seen.from_lookup += 1;
            model.reset();
            model.enqueue(0, 0, looked_up, u64::MAX);
        }
        let (_, underflow) = model.dequeue(0, 0, d_len);
        let (occ, drop) = model.enqueue(0, 0, e_len, max);
        seen.drops += drop as u64;
        seen.underflows += underflow as u64;
        seen.both += (drop && underflow) as u64;
        // The inputs (no per-cycle allocation: the message is formatted only on a mismatch).
        let inputs = [e_len, d_len, max, same as u64, looked_up];
        let inputs = if with_source {
            &inputs[..]
        } else {
            &inputs[..3]
        };
        expected.push_back((
            [occ, drop as u64, underflow as u64],
            [e_len, d_len, max, same as u64, looked_up],
        ));
        rtl.step(inputs, &mut outputs);
        if expected.len() > k.latency {
            let (want, event) = expected.pop_front().unwrap();
            assert_eq!(
                outputs, want,
                "{top}: cycle {cycle}: (occ, drop, underflow) differ from the model for the \
                 event sampled {} edges earlier (e_len, d_len, max, operand from the loop, \
                 looked-up value: {event:?}) (SWITCHCRAFT_SEED={seed})",
                k.latency
            );
        }
    }
    seen
}

fn check(top: &str) {
    let seed = common::seed();
    let seen = run(top, seed);
    println!("{top}: {seen:?}");
    // Every case of the spec, many times over (SWITCHCRAFT_SEED={seed}).
    assert!(seen.drops > 500, "{top}: too few drops: {seen:?}");
    assert!(seen.underflows > 500, "{top}: too few underflows: {seen:?}");
    assert!(
        seen.both > 20,
        "{top}: too few dropped enqueues onto an emptied key: {seen:?}"
    );
    if !top.starts_with("pfc_occupancy_loop_bare") {
        assert!(seen.from_lookup > 4_000, "{top}: too few lookups: {seen:?}");
    }
}

#[test]
fn bare_loop_equals_the_model() {
    check("pfc_occupancy_loop_bare");
    check("pfc_occupancy_loop_bare_paper");
}

#[test]
fn select_loop_equals_the_model() {
    check("pfc_occupancy_loop_select");
    check("pfc_occupancy_loop_select_paper");
}

#[test]
fn speculated_loop_equals_the_model() {
    check("pfc_occupancy_loop_speculated");
    check("pfc_occupancy_loop_speculated_paper");
}

/// Cases the two-bus run must reach many times.
#[derive(Default, Debug)]
struct SeenTwoBus {
    pairs: u64,
    drops: u64,
    underflows: u64,
    /// An operand that is the last cycle's enqueue (or pair) result, or dequeue result.
    from_last_enqueue: u64,
    from_last_dequeue: u64,
}

/// The two-bus kernels against the model's `Occupancy` over 4 keys: each cycle a dequeue and
/// then an enqueue, on any keys. The memory values the kernel gets are the model's for keys the
/// last cycle did not touch, and random otherwise (the kernel must take the loop's).
fn run_two_bus(top: &str, seed: u64) -> SeenTwoBus {
    const KEYS: u64 = 4;
    let Verilated {
        k,
        mut rtl,
        len_max,
        occ_top,
        ..
    } = verilated(top);
    let mut rng = SplitMix64::new(seed);
    let mut model = Occupancy::new(KEYS as u32, 1);
    let mut seen = SeenTwoBus::default();
    // Per event: the expected outputs (0 for an invalid event's) and the inputs.
    let mut expected: VecDeque<([u64; 4], [u64; 9])> = VecDeque::new();
    let mut outputs = vec![0u64; 4];
    let (mut max, mut fill) = (0u64, 50u64);
    // Keys the last cycle's valid events wrote: (enqueue or pair, dequeue apart).
    let mut last: (Option<u64>, Option<u64>) = (None, None);
    for cycle in 0..CYCLES {
        if cycle % 700 == 0 {
            max = match rng.below(4) {
                0 => rng.below(3),
                1 => rng.range(1, len_max),
                2 => rng.range(len_max, 8 * len_max),
                _ => rng.range(occ_top - 15_000, occ_top),
            };
            fill = rng.range(20, 80);
        }
        // Keys: often the last cycle's, so every forwarding case comes up.
        let key = |rng: &mut SplitMix64| match (rng.below(4), last) {
            (0, (Some(e), _)) => e,
            (1, (_, Some(d))) => d,
            _ => rng.below(KEYS),
        };
        let (e_key, d_key) = (key(&mut rng), key(&mut rng));
        let e_valid = rng.chance(90);
        let d_valid = rng.chance(90);
        let e_len = if rng.chance(fill) {
            rng.range(0, len_max)
        } else {
            0
        };
        let d_len = if rng.chance(100 - fill) {
            rng.range(0, len_max)
        } else {
            0
        };
        let touched = |key: u64| last.0 == Some(key) || last.1 == Some(key);
        let looked_up = |key: u64, rng: &mut SplitMix64| {
            if touched(key) {
                rng.below(occ_top + 1)
            } else {
                model.get(key as usize, 0)
            }
        };
        let e_looked_up = looked_up(e_key, &mut rng);
        let d_looked_up = looked_up(d_key, &mut rng);
        for (valid, key) in [(e_valid, e_key), (d_valid, d_key)] {
            if valid && last.0 == Some(key) {
                seen.from_last_enqueue += 1;
            } else if valid && last.1 == Some(key) {
                seen.from_last_dequeue += 1;
            }
        }
        let pair = e_valid && d_valid && e_key == d_key;
        seen.pairs += pair as u64;
        let (d_occ, underflow) = if d_valid {
            model.dequeue(d_key as usize, 0, d_len)
        } else {
            (0, false)
        };
        let (e_occ, drop) = if e_valid {
            model.enqueue(e_key as usize, 0, e_len, max)
        } else {
            (0, false)
        };
        seen.drops += drop as u64;
        seen.underflows += underflow as u64;
        last = (
            e_valid.then_some(e_key),
            (d_valid && !pair).then_some(d_key),
        );
        let inputs = [
            e_valid as u64,
            e_key,
            e_len,
            d_valid as u64,
            d_key,
            d_len,
            max,
            e_looked_up,
            d_looked_up,
        ];
        // Only a valid event's outputs count: the others are masked to 0 on both sides.
        let (e, d) = (e_valid as u64, d_valid as u64);
        expected.push_back((
            [e_occ * e, drop as u64, d_occ * d, underflow as u64],
            inputs,
        ));
        rtl.step(&inputs, &mut outputs);
        if expected.len() > k.latency {
            let (want, event) = expected.pop_front().unwrap();
            let (e, d) = (event[0] == 1, event[3] == 1);
            let got = [
                if e { outputs[0] } else { 0 },
                if e { outputs[1] } else { 0 },
                if d { outputs[2] } else { 0 },
                if d { outputs[3] } else { 0 },
            ];
            assert_eq!(
                got, want,
                "{top}: cycle {cycle}: (e_occ, e_drop, d_occ, d_underflow) of the valid events \
                 differ from the model for the events sampled {} edges earlier (inputs e_valid, \
                 e_key, e_len, d_valid, d_key, d_len, max, e_looked_up, d_looked_up: {event:?}) \
                 (SWITCHCRAFT_SEED={seed})",
                k.latency
            );
        }
    }
    seen
}

fn check_two_bus(top: &str) {
    let seed = common::seed();
    let seen = run_two_bus(top, seed);
    println!("{top}: {seen:?}");
    assert!(
        seen.pairs > 3_000,
        "{top}: {seen:?} (SWITCHCRAFT_SEED={seed})"
    );
    assert!(
        seen.drops > 500,
        "{top}: {seen:?} (SWITCHCRAFT_SEED={seed})"
    );
    assert!(
        seen.underflows > 500,
        "{top}: {seen:?} (SWITCHCRAFT_SEED={seed})"
    );
    assert!(
        seen.from_last_enqueue > 10_000,
        "{top}: {seen:?} (SWITCHCRAFT_SEED={seed})"
    );
    assert!(
        seen.from_last_dequeue > 5_000,
        "{top}: {seen:?} (SWITCHCRAFT_SEED={seed})"
    );
}

#[test]
fn two_bus_select_loop_equals_the_model() {
    check_two_bus("pfc_occupancy_loop_two_bus_select");
}

#[test]
fn two_bus_speculated_loop_equals_the_model() {
    check_two_bus("pfc_occupancy_loop_two_bus_speculated");
}

#[test]
fn two_bus_forwarded_loop_equals_the_model() {
    check_two_bus("pfc_occupancy_loop_two_bus_forwarded");
}

/// `switchcraft synth --loops` with one seed on two kernels, one hand-written and one generated
/// from the block's RTL (all twelve take 90 s; `make loops` runs them): each synthesized, placed
/// and routed on both devices, and a report row for each with a frequency per device.
#[test]
fn loops_flow_reports_each_kernel_on_both_devices() {
    let dir = common::artefacts("pfc_loops_flow");
    let _ = std::fs::remove_dir_all(&dir);
    let only = ["pfc_occupancy_loop_bare", "pfc_occupancy_pipeline"].map(String::from);
    let kernels = loops::select(&only).unwrap();
    assert_eq!(kernels.len(), 2);
    loops::run(
        &switchcraft::synth::Tools::from_env(),
        &kernels,
        1,
        &dir,
        &dir,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let report = std::fs::read_to_string(dir.join("loops.md")).unwrap();
    assert!(
        !report.contains("bfc_search_loop"),
        "only the selected kernels"
    );
    for k in &kernels {
        let row = report
            .lines()
            .find(|l| l.contains(&format!("(`{}`)", k.module)))
            .unwrap_or_else(|| panic!("no row for {}:\n{report}", k.module));
        let mhz: Vec<f64> = row
            .split('|')
            .filter_map(|c| c.trim().parse::<f64>().ok())
            .collect();
        // Per device: the one seed's Fmax and the median, equal with one seed.
        assert_eq!(mhz.len(), 4, "{row}");
        assert!(mhz.iter().all(|&f| f > 20.0 && f < 1000.0), "{row}");
        assert_eq!((mhz[0], mhz[2]), (mhz[1], mhz[3]), "{row}");
    }
}

#[test]
fn an_unknown_kernel_is_refused_by_name() {
    let err = loops::select(&["pfc_occupancy_loop_nope".to_string()])
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("--kernel pfc_occupancy_loop_nope"), "{err}");
    assert!(
        err.contains("pfc_occupancy_pipeline"),
        "lists the known ones: {err}"
    );
    assert_eq!(loops::select(&[]).unwrap().len(), KERNELS.len());
}
