//! Seeded random configs within and just outside every block's documented ranges (issue 30):
//! each preset's TOML with one to three fields replaced by boundary values (0, 1, v +- 1,
//! 2^k +- 1, huge, negative, wrong type, and the limits the refusals so far have named for
//! that field, +- 1). A config is either refused with an error that names
//! a field, or everything the CLI does with a config works without a panic: the model runs, the
//! register map and C header are built, and the Verilog package is generated. Then the same
//! through the binary for a sample: exit 0 or 2, never a panic, and no file left on a refusal.
//!
//! The blocks run in parallel, each with its own generator from the seed. RCM is most of the
//! time: its accepted configs' Verilog packages (about 100 s of CPU here in all, at 60 configs
//! per preset).

mod common;

use common::cli::{sc, stderr};
use common::scratch::ScratchDir;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use switchcraft::blocks::{DynBlock, REGISTRY};
use switchcraft_core::rng::SplitMix64;
use toml::Value;

/// Fuzzed configs per preset: 60 in `make test` (the seed is fixed, so every run tries the
/// same ones); `SWITCHCRAFT_FUZZ_TRIALS=n` tries n (`make fuzz`: 1000, some 25 min of CPU).
fn trials_per_preset() -> usize {
    match std::env::var("SWITCHCRAFT_FUZZ_TRIALS") {
        Ok(s) => s.trim().parse().unwrap_or_else(|_| {
            panic!("SWITCHCRAFT_FUZZ_TRIALS = {s:?}: not a whole number of configs per preset")
        }),
        Err(_) => 60,
    }
}
const CYCLES: usize = 64;

/// Values each field's refusals have named (a range's ends, a limit), and their neighbours.
type Learned = BTreeMap<String, Vec<i64>>;

/// Learns the numbers of a refusal `invalid config: <field> = <value>: <rule>`.
fn learn(learned: &mut Learned, msg: &str) {
    let Some(rest) = msg.split("invalid config: ").nth(1) else {
        return;
    };
    let Some((field, rule)) = rest.split_once(" = ") else {
        return;
    };
    let pool = learned.entry(field.to_string()).or_default();
    for word in rule.split(|c: char| !c.is_ascii_digit()) {
        if let Ok(n) = word.parse::<i64>() {
            for m in [n.saturating_sub(1), n, n.saturating_add(1)] {
                if !pool.contains(&m) {
                    pool.push(m);
                }
            }
        }
    }
}

/// A value near a boundary of `v`, of a limit learned for the field, of a power of two, or
/// of the integer type.
fn boundary(rng: &mut SplitMix64, v: i64, limits: &[i64]) -> Value {
    if !limits.is_empty() && rng.chance(50) {
        return Value::Integer(limits[rng.below(limits.len() as u64) as usize]);
    }
    let k = rng.below(64) as u32;
    let pow = 1i64.checked_shl(k).filter(|p| *p > 0).unwrap_or(i64::MAX);
    let n = match rng.below(14) {
        0 => 0,
        1 => 1,
        2 => 2,
        3 => v.saturating_sub(1),
        4 => v.saturating_add(1),
        5 => v.saturating_mul(2),
        6 => v / 2,
        7 => pow.saturating_sub(1),
        8 => pow,
        9 => pow.saturating_add(1),
        10 => rng.below(2 * v.unsigned_abs().max(1) + 1) as i64,
        11 => i64::MAX,
        12 => -1,
        _ => return Value::String("x".into()),
    };
    Value::Integer(n)
}

/// `value` with one random change of the kind its type allows.
fn mutate(rng: &mut SplitMix64, value: &Value, limits: &[i64]) -> Value {
    match value {
        Value::Integer(v) => boundary(rng, *v, limits),
        Value::Float(f) => Value::Float(match rng.below(5) {
            0 => 0.0,
            1 => -f,
            2 => f * 1e12,
            3 => f64::NAN,
            _ => f64::INFINITY,
        }),
        Value::Boolean(b) => Value::Boolean(!b),
        Value::String(_) => {
            Value::String(["dynamic", "", "stop", "x"][rng.below(4) as usize].into())
        }
        Value::Array(items) => {
            let mut items = items.clone();
            match rng.below(4) {
                0 => {
                    items.truncate(rng.below(items.len() as u64 + 1) as usize);
                }
                1 => {
                    let extra = items.last().cloned().unwrap_or(Value::Integer(1));
                    items.extend(std::iter::repeat_n(extra, rng.range(1, 300) as usize));
                }
                _ if !items.is_empty() => {
                    let i = rng.below(items.len() as u64) as usize;
                    items[i] = mutate(rng, &items[i], limits);
                }
                _ => items.push(Value::Integer(0)),
            }
            Value::Array(items)
        }
        other => other.clone(),
    }
}

/// The preset's TOML with one to three fields changed, and the names of those fields.
fn fuzzed(rng: &mut SplitMix64, toml_text: &str, learned: &Learned) -> (String, Vec<String>) {
    let mut table: toml::Table = toml_text.parse().expect("a preset's TOML parses");
    let keys: Vec<String> = table.keys().cloned().collect();
    let mut changed = Vec::new();
    let fields = if rng.chance(70) { 1 } else { rng.range(2, 3) };
    for _ in 0..fields {
        let key = &keys[rng.below(keys.len() as u64) as usize];
        let limits = learned.get(key).map_or(&[][..], |v| v.as_slice());
        let new = mutate(rng, &table[key], limits);
        table.insert(key.clone(), new);
        changed.push(key.clone());
    }
    (toml::to_string(&table).expect("serializes"), changed)
}

/// What the CLI does with a loaded config, with random traffic: it must not panic.
fn exercise(cfg: &switchcraft::BlockConfig, seed: u64) {
    let schema = cfg.schema();
    let regmap = cfg.regmap();
    let _ = regmap.markdown_table();
    let _ = cfg.describe();
    let mut model = cfg.model();
    let mut workload = cfg.workload(seed);
    let mut inputs = vec![0u64; schema.input_count()];
    let mut outputs = vec![0u64; schema.output_count()];
    for _ in 0..CYCLES {
        workload(&mut inputs);
        model.step_values(&inputs, &mut outputs);
    }
    // A config with an option only the model has is refused by name before any Verilog.
    if let Err(e) = cfg.check_rtl() {
        assert!(e.0.contains("golden model only"), "{e}");
        return;
    }
    let pkg = cfg.package("fuzz", "switchcraft generate (fuzz)");
    assert!(!pkg.files().is_empty());
}

/// One block's presets, [`trials_per_preset`] fuzzed configs each: (accepted, refused).
fn fuzz_block(block: &'static dyn DynBlock, seed: u64) -> (usize, usize) {
    // Each block its own generator (from the seed and its stem), so blocks can run in parallel
    // and a failure replays with the same seed.
    let stem_hash = block
        .stem()
        .bytes()
        .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    let mut rng = SplitMix64::new(seed ^ stem_hash);
    let (mut accepted, mut refused) = (0usize, 0usize);
    let mut learned = Learned::new();
    let trials = trials_per_preset();
    for preset in block.presets() {
        let base = block.preset(preset).expect("preset").to_toml();
        for trial in 0..trials {
            let (text, changed) = fuzzed(&mut rng, &base, &learned);
            // A preset's configs depend on how many the presets before it drew: a replay needs
            // both numbers.
            let what = format!(
                "{} {preset} trial {trial} (seed {seed}, {trials} per preset: \
                 SWITCHCRAFT_SEED and SWITCHCRAFT_FUZZ_TRIALS to replay), \
                 changed {changed:?}:\n{text}",
                block.stem()
            );
            match block.parse(&text, "fuzz.toml") {
                Err(e) => {
                    let msg = e.to_string();
                    assert!(msg.starts_with("fuzz.toml"), "{what}\nerror {msg:?}");
                    assert!(msg.len() < 600, "{what}\nan error of {} bytes", msg.len());
                    learn(&mut learned, &msg);
                    refused += 1;
                }
                Ok(cfg) => {
                    let s = rng.next_u64();
                    if let Err(p) = catch_unwind(AssertUnwindSafe(|| exercise(&cfg, s))) {
                        let msg = p
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        panic!("{what}\naccepted, then panicked: {msg}");
                    }
                    accepted += 1;
                }
            }
        }
    }
    (accepted, refused)
}

#[test]
fn random_configs_are_refused_by_name_or_work_without_a_panic() {
    let seed = common::seed();
    // The blocks in parallel: generating each accepted config's Verilog is most of the time.
    let counts: Vec<(usize, usize)> = std::thread::scope(|scope| {
        let runs: Vec<_> = REGISTRY
            .iter()
            .map(|&block| scope.spawn(move || fuzz_block(block, seed)))
            .collect();
        runs.into_iter()
            .map(|r| r.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let accepted: usize = counts.iter().map(|c| c.0).sum();
    let refused: usize = counts.iter().map(|c| c.1).sum();
    // Boundary values are meant to land on both sides of the rules.
    assert!(
        accepted > 100 && refused > 100,
        "{accepted} accepted, {refused} refused"
    );
}

/// The binary on a sample of the same kind of configs: `simulate` and `generate` exit 0 or 2,
/// never panic, and a refusal leaves no file behind.
#[test]
fn the_cli_exits_0_or_2_on_random_configs_and_a_refusal_writes_nothing() {
    let seed = common::seed();
    let mut rng = SplitMix64::new(seed ^ 0xc11);
    let learned = Learned::new();
    let scratch = ScratchDir::new("config-fuzz", "cli");
    let dir: &std::path::Path = &scratch;
    let stimulus = dir.join("stim.jsonl");
    std::fs::write(&stimulus, "{}\n{}\n").unwrap();
    let stimulus = stimulus.to_str().unwrap();
    for block in REGISTRY {
        for preset in block.presets() {
            let base = block.preset(preset).expect("preset").to_toml();
            for trial in 0..3 {
                let (text, changed) = fuzzed(&mut rng, &base, &learned);
                let what = format!(
                    "{} {preset} trial {trial} (seed {seed}), changed {changed:?}",
                    block.stem()
                );
                let config = dir.join("fuzz.toml");
                std::fs::write(&config, &text).unwrap();
                let out = dir.join("out");
                let _ = std::fs::remove_dir_all(&out);
                let config = config.to_str().unwrap();
                let out_s = out.to_str().unwrap();
                let trace = format!("{out_s}/trace.jsonl");
                std::fs::create_dir_all(&out).unwrap();
                let runs = [
                    vec![
                        "generate",
                        "--block",
                        block.stem(),
                        "--config",
                        config,
                        "--out",
                        out_s,
                    ],
                    vec![
                        "simulate",
                        "--block",
                        block.stem(),
                        "--config",
                        config,
                        "--stimulus",
                        stimulus,
                        "--out",
                        &trace,
                    ],
                ];
                for args in &runs {
                    let o = sc(args);
                    let e = stderr(&o);
                    assert!(!e.contains("panicked"), "{what}: {args:?}\n{e}");
                    match o.status.code() {
                        Some(0) => {}
                        Some(2) => {
                            assert!(e.starts_with("error: "), "{what}: {args:?}\n{e}");
                            let left: Vec<_> = std::fs::read_dir(&out).unwrap().collect();
                            assert!(left.is_empty(), "{what}: {args:?} left {left:?}");
                        }
                        c => panic!("{what}: {args:?} exit {c:?}\n{e}"),
                    }
                }
            }
        }
    }
}
