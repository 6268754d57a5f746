//! `switchcraft bfc thresholds`: the paper's Th table from link parameters, a config that loads
//! back, and bad input gives exit 2 naming the option, with no output file.

mod common;

use common::cli::sc;
use common::scratch::ScratchDir;
use switchcraft_model::bfc::BfcConfig;

fn tmp(name: &str) -> ScratchDir {
    ScratchDir::new("bfc-cli", name)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn bfc_thresholds_prints_the_papers_table() {
    let o = sc(&["bfc", "thresholds", "--rate", "100G", "--hrtt", "2us"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    // One row per N_active = 1..=32: N, exact, table.
    let rows: Vec<Vec<&str>> = out
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 32, "{out}");
    for (n, exact, bytes) in [
        ("1", "25000", "25000"),
        ("2", "12500", "12500"),
        ("4", "6250", "6250"),
        ("8", "3125", "3125"),
        ("16", "1562.5", "1562"),
        ("32", "781.25", "781"),
    ] {
        let row = rows.iter().find(|r| r[0] == n).unwrap();
        assert_eq!((row[1], row[2]), (exact, bytes), "N_active {n}: {out}");
    }
}

#[test]
fn bfc_thresholds_writes_a_config_that_loads_back() {
    let d = tmp("write");
    let path = d.join("bfc.toml");
    let p = path.to_str().unwrap();
    let args = [
        "bfc",
        "thresholds",
        "--rate",
        "100G",
        "--hrtt",
        "2us",
        "--preset",
        "tiny",
        "--out",
        p,
    ];
    let o = sc(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(
        written.starts_with("# switchcraft bfc thresholds"),
        "{written}"
    );
    let cfg = BfcConfig::from_toml(&written, p).unwrap();
    assert_eq!(
        cfg.th,
        vec![25_000, 12_500, 8_333, 6_250, 5_000, 4_166, 3_571, 3_125]
    );
    let mut rest = cfg.clone();
    rest.th = BfcConfig::preset("tiny").unwrap().th;
    assert_eq!(rest, BfcConfig::preset("tiny").unwrap(), "only th changes");
}

/// With --clock-mhz the written config's STICKY (2 HRTT) and T_BM (5 HRTT) follow the clock:
/// ns3-tor at 500 MHz is 2 000 cycles = 31.25 -> 32 units of 64, and 5 000 cycles; the
/// preset's own (1 GHz) are 63 and 10 000. A clock too slow for the timestamp unit is refused
/// by name and writes nothing.
#[test]
fn bfc_thresholds_derives_sticky_and_t_bm_from_the_clock() {
    let d = tmp("clock");
    let path = d.join("bfc.toml");
    let p = path.to_str().unwrap();
    let run = |clock: &str| {
        sc(&[
            "bfc",
            "thresholds",
            "--rate",
            "100G",
            "--hrtt",
            "2us",
            "--preset",
            "ns3-tor",
            "--clock-mhz",
            clock,
            "--out",
            p,
        ])
    };
    let o = run("500");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let cfg = BfcConfig::from_toml(&std::fs::read_to_string(&path).unwrap(), p).unwrap();
    assert_eq!((cfg.sticky, cfg.t_bm), (32, 5_000));
    let preset = BfcConfig::preset("ns3-tor").unwrap();
    assert_eq!((preset.sticky, preset.t_bm), (63, 10_000));
    std::fs::remove_file(&path).unwrap();
    let o = run("10");
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.contains("ts_shift = 6: a timestamp unit of 2^ts_shift cycles is 6400 ns"),
        "{e}"
    );
    assert!(!path.exists());
}

/// The `fpga` preset's 14-bit occupancies cannot hold 100 Gb/s thresholds: a clear error naming
/// the entry and the rule, and no file.
#[test]
fn bfc_thresholds_refuses_a_table_the_occupancy_cannot_hold() {
    let d = tmp("too-wide");
    let path = d.join("bfc.toml");
    let p = path.to_str().unwrap();
    let args = [
        "bfc",
        "thresholds",
        "--rate",
        "100G",
        "--hrtt",
        "2us",
        "--preset",
        "fpga",
        "--out",
        p,
    ];
    let o = sc(&args);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("th[0] = 25000") && err.contains("occupancy_bits = 14"),
        "{err}"
    );
    assert!(!path.exists(), "nothing written");
}

/// A config whose `th` is missing (or too short for its queues) is what the calculator fills.
#[test]
fn bfc_thresholds_fills_a_config_without_a_table() {
    let d = tmp("fill");
    let base = d.join("base.toml");
    let mut cfg = BfcConfig::preset("tiny").unwrap();
    cfg.queues = 4;
    cfg.th.clear();
    std::fs::write(&base, cfg.to_toml()).unwrap();
    assert!(
        BfcConfig::from_toml(&cfg.to_toml(), "base.toml").is_err(),
        "no table: refused"
    );
    let out = d.join("out.toml");
    let o = sc(&[
        "bfc",
        "thresholds",
        "--rate",
        "10G",
        "--hrtt",
        "2us",
        "--config",
        base.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let back = BfcConfig::from_toml(&std::fs::read_to_string(&out).unwrap(), "out.toml").unwrap();
    assert_eq!(back.th, vec![2500, 1250, 833, 625]);
}

#[test]
fn bfc_thresholds_rounds_down_at_every_size() {
    // 4 000 000 002 b/s x 2 s / 8 = 1 000 000 000.5 B: the table holds 1 000 000 000, not
    // 1 000 000 001 (a relative tolerance once rounded it up).
    let o = sc(&[
        "bfc",
        "thresholds",
        "--rate",
        "4000000002",
        "--hrtt",
        "2s",
        "--queues",
        "1",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let row = out.lines().last().unwrap();
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>(),
        ["1", "1000000000.5", "1000000000"]
    );
}

/// Spec §3.4 [S], issue 31: the floor Th_min. At 100 Gb/s and HRTT = 2 us, Th(N) drops below
/// one MTU from N = 17 (1 470 B); with --th-min 1500 those entries hold 1 500 B, the others
/// keep the paper's values, and the written config carries the floored table. A floor above
/// Th(1) is refused by name and writes nothing.
#[test]
fn bfc_thresholds_floor_raises_the_small_entries_only() {
    let d = tmp("floor");
    let run = |th_min: &str, out: &std::path::Path| {
        let args = ["--th-min", th_min, "--preset", "ns3-tor", "--out"];
        let mut all = vec!["bfc", "thresholds", "--rate", "100G", "--hrtt", "2us"];
        all.extend(args);
        all.push(out.to_str().unwrap());
        sc(&all)
    };
    let path = d.join("bfc.toml");
    let o = run("1500", &path);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let cfg = BfcConfig::from_toml(&std::fs::read_to_string(&path).unwrap(), "bfc.toml").unwrap();
    for (n, th) in cfg.th.iter().enumerate() {
        let paper = 25_000 / (n as u64 + 1);
        assert_eq!(*th, paper.max(1500), "Th({})", n + 1);
    }
    assert_eq!((cfg.th[15], cfg.th[16], cfg.th[31]), (1562, 1500, 1500));
    let bad = d.join("bad.toml");
    let o = run("25001", &bad);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--th-min 25001: more than HRTT x rate = 25000 B, Th(1)"),
        "{}",
        text(&o.stderr)
    );
    assert!(!bad.exists(), "nothing written");
}

/// A mixed-speed switch (spec §3.4: "a different pause threshold for every egress based on its
/// speed"): one Th row per --rate, ports mapped by --port-speed, and the written config gives
/// each egress its own row.
#[test]
fn bfc_thresholds_mixed_speeds_write_one_row_per_speed_class() {
    use switchcraft_core::CycleModel;
    let d = tmp("speeds");
    let path = d.join("bfc.toml");
    let p = path.to_str().unwrap();
    let o = sc(&[
        "bfc",
        "thresholds",
        "--rate",
        "100G",
        "--rate",
        "400G",
        "--hrtt",
        "2us",
        "--preset",
        "ns3-tor",
        "--port-speed",
        &(0..24)
            .map(|o| if o < 16 { "0" } else { "1" })
            .collect::<Vec<_>>()
            .join(","),
        "--out",
        p,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains("speed class 1: HRTT 2000 ns, rate 400 Gb/s"),
        "{out}"
    );
    let cfg = BfcConfig::from_toml(&std::fs::read_to_string(&path).unwrap(), p).unwrap();
    assert_eq!(cfg.speeds, 2);
    assert_eq!(cfg.th.len(), 64);
    // Th(1) and Th(32) of each class: 25 000 / 781 B at 100G, 100 000 / 3 125 B at 400G.
    assert_eq!(
        (cfg.th[0], cfg.th[31], cfg.th[32], cfg.th[63]),
        (25_000, 781, 100_000, 3_125)
    );
    let mut m = switchcraft_model::bfc::Bfc::new(&cfg).unwrap();
    m.reset();
    assert_eq!((m.threshold(0), m.threshold(20)), (25_000, 100_000));
}

#[test]
fn bfc_thresholds_bad_input_exits_2_naming_the_option_and_writes_nothing() {
    let d = tmp("bad");
    let path = d.join("out.toml");
    let p = path.to_str().unwrap();
    for (args, want) in [
        (
            vec!["bfc", "thresholds", "--rate", "100GB", "--hrtt", "2us"],
            "--rate 100GB",
        ),
        (
            vec!["bfc", "thresholds", "--rate", "100G", "--hrtt", "2"],
            "--hrtt 2: a unit is required",
        ),
        (
            vec!["bfc", "thresholds", "--rate", "100G", "--hrtt", "0us"],
            "--hrtt 0us: must be more than 0",
        ),
        // Rates whose tables once printed inf, u64::MAX or 0 B.
        (
            vec!["bfc", "thresholds", "--rate", "1e300", "--hrtt", "2us"],
            "--rate 1e300: must be at most 1000T",
        ),
        (
            vec!["bfc", "thresholds", "--rate", "1000T", "--hrtt", "1s"],
            "more than 4294967295 B, the largest threshold a 32-bit queue occupancy holds",
        ),
        (
            vec!["bfc", "thresholds", "--rate", "1M", "--hrtt", "2us"],
            "leaves Th(1) = 0.25 B, below 1 B",
        ),
        (
            vec![
                "bfc",
                "thresholds",
                "--rate",
                "100G",
                "--hrtt",
                "2us",
                "--preset",
                "big",
                "--out",
                p,
            ],
            "--preset big: unknown BFC preset",
        ),
        // 400 Gb/s x 2 us = 100 000 B does not fit the tiny preset's 16-bit occupancy.
        (
            vec![
                "bfc",
                "thresholds",
                "--rate",
                "400G",
                "--hrtt",
                "2us",
                "--preset",
                "tiny",
                "--out",
                p,
            ],
            "preset tiny with this Th table: invalid config: th[0] = 100000: does not fit occupancy_bits = 16",
        ),
        (
            vec![
                "bfc", "thresholds", "--rate", "100G", "--rate", "400G", "--hrtt", "2us",
                "--hrtt", "1us", "--hrtt", "3us",
            ],
            "--hrtt given 3 times for 2 --rate",
        ),
        (
            vec![
                "bfc", "thresholds", "--rate", "1G", "--rate", "2G", "--rate", "3G", "--rate",
                "4G", "--rate", "5G", "--hrtt", "2us",
            ],
            "--rate given 5 times: a BFC instance has at most 4 speed classes",
        ),
        (
            vec![
                "bfc", "thresholds", "--rate", "25G", "--rate", "50G", "--hrtt", "2us",
                "--preset", "tiny", "--out", p,
            ],
            "--port-speed: 2 speed classes need the class of each of the 4 egress ports",
        ),
        (
            vec![
                "bfc", "thresholds", "--rate", "25G", "--rate", "50G", "--hrtt", "2us",
                "--preset", "tiny", "--port-speed", "0,1,2,0", "--out", p,
            ],
            "port_speed[2] = 2: must be a speed class below speeds = 2",
        ),
        (
            vec![
                "bfc", "thresholds", "--rate", "25G", "--hrtt", "2us", "--preset", "tiny",
                "--port-speed", "0,0,0,0", "--out", p,
            ],
            "--port-speed: needs several --rate",
        ),
    ] {
        let o = sc(&args);
        let e = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(want), "{args:?}: {e:?} lacks {want:?}");
        assert!(!e.contains("panicked"), "{e}");
        assert!(!path.exists(), "{args:?} wrote {p}");
    }
}
