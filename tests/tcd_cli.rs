//! `switchcraft tcd max-ton` and `switchcraft tcd config`: the paper's numbers from link
//! parameters, configs that load back, and every bad input gives exit 2 naming the option, with
//! no output file.

mod common;

use common::cli::{ok, sc, stderr, stdout};
use common::scratch::ScratchDir;
use switchcraft::model::tcd::{Mode, TcdConfig};

fn tmp(name: &str) -> ScratchDir {
    ScratchDir::new("tcd-cli", name)
}

fn assert_contains(s: &str, wants: &[&str]) {
    for w in wants {
        assert!(s.contains(w), "{s}\nlacks {w:?}");
    }
}

/// Exit 2, the message contains `want`, no panic, nothing on stdout.
fn assert_bad_input(args: &[&str], want: &str) {
    let o = sc(args);
    common::cli::assert_bad_input(&o, want);
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
}

const PAPER_40G: &[&str] = &[
    "tcd",
    "max-ton",
    "--rate",
    "40G",
    "--mtu",
    "1000",
    "--prop-delay",
    "1us",
    "--epsilon",
    "0.05",
];

#[test]
fn tcd_max_ton_prints_paper_34_4us_and_its_terms_at_40g() {
    let s = ok(PAPER_40G);
    assert_contains(
        &s,
        &[
            "hypothesis",
            "§1.7",
            "C       = 40 Gb/s",
            "B1 - B0 = 2000 B (2 MTU)",
            "tau             = 2.4 us",
            "(B1-B0)/(eps C) = 8 us",
            "tau/(2 eps)     = 24 us",
            "max(Ton) = 34.4 us",
            "T        = 34.4 us",
        ],
    );
    assert!(!s.contains("cycles"), "no clock, no cycles: {s}");
}

#[test]
fn tcd_max_ton_at_100_mhz_is_3440_cycles() {
    let args = [PAPER_40G, &["--clock-mhz", "100"]].concat();
    assert_contains(
        &ok(&args),
        &["at 100 MHz: max_ton = 3440 cycles, t_period = 3440 cycles"],
    );
}

#[test]
fn tcd_max_ton_defaults_reproduce_paper_at_100g_and_200g() {
    for (rate, want) in [
        ("100G", "max(Ton) = 26.96 us"),
        ("200Gbps", "max(Ton) = 24.48 us"),
    ] {
        let s = ok(&["tcd", "max-ton", "--rate", rate, "--prop-delay", "1000ns"]);
        assert_contains(&s, &[want, "MTU     = 1000 B", "eps     = 0.05"]);
    }
}

#[test]
fn tcd_max_ton_dpdk_testbed_with_given_gap_and_tau_is_870us() {
    let s = ok(&[
        "tcd",
        "max-ton",
        "--rate",
        "10G",
        "--gap",
        "30KB",
        "--epsilon",
        "0.04",
        "--tau",
        "20us",
    ]);
    assert_contains(
        &s,
        &["tau             = 20 us (--tau)", "max(Ton) = 870 us"],
    );
}

#[test]
fn tcd_max_ton_ib_is_the_credit_period() {
    let s = ok(&[
        "tcd",
        "max-ton",
        "--credit-period",
        "60us",
        "--clock-mhz",
        "100",
    ]);
    assert_contains(
        &s,
        &[
            "InfiniBand",
            "max(Ton) = Tc",
            "max(Ton) = 60 us",
            "T        = 60 us",
            "max_ton = 6000 cycles",
        ],
    );
}

#[test]
fn tcd_max_ton_help_says_the_formula_is_the_spec_hypothesis() {
    let s = ok(&["tcd", "max-ton", "--help"]);
    assert_contains(
        &s,
        &[
            "hypothesis",
            "§1.7",
            "34.4 / 26.96 / 24.48",
            "--credit-period",
        ],
    );
}

#[test]
fn tcd_config_fpga_at_100_mhz_parses_back_with_max_ton_3440() {
    let s = ok(&[
        "tcd",
        "config",
        "--preset",
        "fpga",
        "--rate",
        "40G",
        "--prop-delay",
        "1us",
        "--clock-mhz",
        "100",
    ]);
    let cfg = TcdConfig::from_toml(&s, "stdout").unwrap();
    assert_eq!((cfg.max_ton, cfg.t_period), (3440, 3440));
    assert_eq!(cfg.mode, Mode::Cee);
    assert!(
        s.starts_with("# switchcraft tcd config --preset fpga"),
        "{s}"
    );
    assert!(s.contains("# max(Ton) = 34.4 us"), "{s}");
}

#[test]
fn tcd_config_ib_sets_mode_ib_and_thresholds_from_a_config_file() {
    let d = tmp("ib");
    let base = d.join("base.toml");
    let mut cfg = TcdConfig::preset("paper").unwrap();
    cfg.mode = Mode::Cee;
    std::fs::write(&base, switchcraft::model::tcd::max_ton::config_toml(&cfg)).unwrap();
    let out = d.join("ib.toml");
    let s = ok(&[
        "tcd",
        "config",
        "--config",
        base.to_str().unwrap(),
        "--credit-period",
        "60us",
        "--clock-mhz",
        "1000",
        "--k",
        "30KB",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(s.contains("max_ton = t_period = 60000 cycles"), "{s}");
    let back = TcdConfig::from_toml(&std::fs::read_to_string(&out).unwrap(), "ib.toml").unwrap();
    assert_eq!(back.mode, Mode::Ib);
    assert_eq!((back.max_ton, back.t_period), (60_000, 60_000));
    assert_eq!((back.k, back.k_low), (30_000, 30_000), "K_low follows K");
    assert_eq!(back.ports, cfg.ports, "the rest comes from the base config");
}

#[test]
fn tcd_config_csr_writes_one_register_per_cycle() {
    let s = ok(&[
        "tcd",
        "config",
        "--preset",
        "fpga",
        "--rate",
        "40G",
        "--prop-delay",
        "1us",
        "--clock-mhz",
        "100",
        "--k",
        "50KB",
        "--k-low",
        "45KB",
        "--csr",
    ]);
    use switchcraft::model::tcd::reg;
    let writes: Vec<(u64, u64)> = s
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert_eq!(v["csr_we"], 1, "{l}");
            (
                v["csr_addr"].as_u64().unwrap(),
                v["csr_wdata"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        writes,
        [
            (reg::MODE.into(), 0),
            (reg::SPEED_SEL.into(), 0),
            (reg::MAX_TON.into(), 3440),
            (reg::T_PERIOD.into(), 3440),
            (reg::K.into(), 50_000),
            (reg::K_LOW.into(), 45_000),
        ]
    );
}

/// Spec §1.4: max(Ton), T, K and K_low per port-speed class. `--speed-class 1` on a one-class
/// config adds class 1 (K from class 0), on a two-class config replaces it; the loaded model
/// judges an entry of class 1 with the 100G max(Ton) (26.96 us) and class 0 keeps 40G's.
#[test]
fn tcd_config_speed_class_adds_or_sets_a_class() {
    let d = ScratchDir::new("tcd-cli", "speed-class");
    let path = d.join("tcd.toml");
    let p = path.to_str().unwrap();
    let base = [
        "tcd",
        "config",
        "--preset",
        "fpga",
        "--rate",
        "100G",
        "--prop-delay",
        "1us",
        "--clock-mhz",
        "100",
        "--speed-class",
        "1",
        "--out",
        p,
    ];
    let o = sc(&base);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cfg = TcdConfig::from_toml(&std::fs::read_to_string(&path).unwrap(), p).unwrap();
    let fpga = TcdConfig::preset("fpga").unwrap();
    assert_eq!(cfg.speeds(), 2);
    assert_eq!(cfg.speed(0), fpga.speed(0), "class 0 unchanged");
    assert_eq!(
        (cfg.speed(1).max_ton, cfg.speed(1).t_period, cfg.speed(1).k),
        (2_696, 2_696, fpga.k)
    );
    // `tcd config` on the written file at 100G, with more options.
    let again = |extra: &[&str]| {
        let mut args = vec![
            "tcd",
            "config",
            "--config",
            p,
            "--rate",
            "100G",
            "--prop-delay",
            "1us",
            "--clock-mhz",
            "100",
        ];
        args.extend(extra);
        sc(&args)
    };
    // With a K: class 1 is replaced, no class 2 appears.
    let o = again(&["--speed-class", "1", "--k", "30KB", "--out", p]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cfg = TcdConfig::from_toml(&std::fs::read_to_string(&path).unwrap(), p).unwrap();
    assert_eq!(
        (cfg.speeds(), cfg.speed(1).k, cfg.speed(1).k_low),
        (2, 30_000, 30_000)
    );
    // A class past the next one, or one the block lacks in a CSR write list: exit 2.
    for (extra, want) in [
        (vec!["--speed-class", "3"], "--speed-class 3: "),
        (
            vec!["--speed-class", "2", "--csr"],
            "a CSR write list can only set a class",
        ),
    ] {
        let o = again(&extra);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(e.contains(want), "{e:?} lacks {want:?}");
    }
}

#[test]
fn tcd_config_max_ton_beyond_time_bits_exits_2_naming_max_ton_and_the_width_it_needs() {
    let d = tmp("toolong");
    let out = d.join("c.toml");
    let args = [
        "tcd",
        "config",
        "--preset",
        "tiny",
        "--rate",
        "40G",
        "--prop-delay",
        "1us",
        "--clock-mhz",
        "1000",
        "--out",
        out.to_str().unwrap(),
    ];
    assert_bad_input(&args, "max_ton = 34400: must be in 1..=2047 cycles");
    // 34 400 cycles need 16 bits, and a time register holds at most half a wrap.
    assert_bad_input(&args, "config with time_bits >= 17");
    assert!(!out.exists(), "no output file on error");
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0, "no partial file");
}

#[test]
fn tcd_config_max_ton_beyond_any_time_bits_asks_only_for_a_slower_clock() {
    let d = tmp("waytoolong");
    let out = d.join("c.toml");
    let args = [
        "tcd",
        "config",
        "--preset",
        "paper",
        "--rate",
        "1G",
        "--prop-delay",
        "10s",
        "--clock-mhz",
        "5000",
        "--out",
        out.to_str().unwrap(),
    ];
    // About 1.1e12 cycles: 41 bits, so time_bits would have to be 42, beyond the limit of 32.
    assert_bad_input(
        &args,
        "use a slower --clock-mhz (it needs 42 time_bits; at most 32 exist)",
    );
    assert!(!out.exists(), "no output file on error");
}

#[test]
fn tcd_bad_units_exit_2_naming_the_option() {
    let cee = |opt: &str, value: &str| {
        let mut a = vec![
            "tcd",
            "max-ton",
            "--rate",
            "40G",
            "--prop-delay",
            "1us",
            "--clock-mhz",
            "100",
        ];
        match a.iter().position(|x| *x == opt) {
            Some(i) => a[i + 1] = value,
            None => a.extend([opt, value]),
        }
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let cases = [
        ("--rate", "40Q", "--rate 40Q: unknown unit `Q`"),
        (
            "--rate",
            "5GB/s",
            "--rate 5GB/s: `GB/s` is bytes per second",
        ),
        ("--rate", "0G", "--rate 0G: must be more than 0"),
        ("--prop-delay", "1", "--prop-delay 1: a unit is required"),
        ("--prop-delay", "1 fortnight", "unknown unit `fortnight`"),
        ("--mtu", "1Kb", "--mtu 1Kb: `Kb` is bits"),
        ("--mtu", "0", "--mtu: must be more than 0 bytes"),
        ("--epsilon", "1.5", "--epsilon 1.5: must be in (0, 1)"),
        ("--gap", "1.5", "--gap 1.5: must be a whole number of bytes"),
        ("--clock-mhz", "0", "--clock-mhz 0: must be more than 0"),
        ("--clock-mhz", "100MHz", "--clock-mhz 100MHz: not a number"),
        // Values that once printed u64::MAX cycles or an endless rate.
        (
            "--clock-mhz",
            "1e300",
            "--clock-mhz 1e300: must be more than 0 and at most 100000",
        ),
        ("--rate", "1e300", "--rate 1e300: must be at most 1000T"),
        (
            "--prop-delay",
            "1e20s",
            "--prop-delay 1e20s: must be at most 1000 s",
        ),
    ];
    for (opt, value, want) in cases {
        let args = cee(opt, value);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_bad_input(&args, want);
    }
    assert_bad_input(
        &["tcd", "max-ton", "--credit-period", "60us", "--rate", "40G"],
        "'--credit-period <DURATION>' cannot be used with '--rate <RATE>'",
    );
    assert_bad_input(
        &["tcd", "max-ton", "--credit-period", "0us"],
        "--credit-period: must be more than 0 ns",
    );
    assert_bad_input(&["tcd", "max-ton", "--rate", "40G"], "--prop-delay");
}

#[test]
fn tcd_max_ton_cycles_round_up_at_any_size_and_refuse_beyond_2_pow_53() {
    // 20 000 000 000.4 cycles is never shortened to 2e9 (a relative tolerance once did).
    let out = ok(&[
        "tcd",
        "max-ton",
        "--credit-period",
        "20000000004ns",
        "--clock-mhz",
        "100",
    ]);
    assert_contains(&out, &["max_ton = 2000000001 cycles"]);
    assert_bad_input(
        &[
            "tcd",
            "max-ton",
            "--rate",
            "1",
            "--prop-delay",
            "1000s",
            "--clock-mhz",
            "100000",
        ],
        "cycles, more than 2^53",
    );
}

#[test]
fn tcd_config_bad_inputs_exit_2() {
    fn with<'a>(extra: &[&'a str]) -> Vec<&'a str> {
        let link = ["--rate", "40G", "--prop-delay", "1us", "--clock-mhz", "100"];
        [&["tcd", "config"][..], &link, extra].concat()
    }
    assert_bad_input(&with(&[]), "give --preset NAME or --config FILE.toml");
    assert_bad_input(
        &with(&["--preset", "huge"]),
        "unknown preset `huge` for block tcd",
    );
    assert_bad_input(
        &with(&["--preset", "fpga", "--k", "40Q"]),
        "--k 40Q: unknown unit `Q`",
    );
    assert_bad_input(
        &with(&["--preset", "fpga", "--k-low", "50KB"]),
        "k_low = 50000: must be <= k (40000)",
    );
    assert_bad_input(
        &with(&["--config", "/nonexistent.toml"]),
        "/nonexistent.toml: cannot read",
    );
    let d = tmp("badcfg");
    let bad = d.join("bad.toml");
    std::fs::write(&bad, "ports = 4\n").unwrap();
    assert_bad_input(&with(&["--config", bad.to_str().unwrap()]), "bad.toml");
}

#[test]
fn tcd_bad_config_files_exit_2_naming_the_field_and_rule() {
    let dir = tmp("badcfg");
    let base = toml::to_string(&TcdConfig::preset("tiny").unwrap()).unwrap();
    for (what, from, to, wants) in [
        (
            "k_low above k",
            "k_low = 3000",
            "k_low = 3001",
            &["k_low", "must be <= k"][..],
        ),
        (
            "zero max_ton",
            "max_ton = 300",
            "max_ton = 0",
            &["max_ton", "at least 1"][..],
        ),
        (
            "zero T",
            "t_period = 300",
            "t_period = 0",
            &["t_period", "at least 1"][..],
        ),
        (
            "unknown mode",
            "mode = \"cee\"",
            "mode = \"fddi\"",
            &["mode", "fddi"][..],
        ),
    ] {
        assert!(base.contains(from), "{what}: {base}");
        let path = dir.join(format!("{}.toml", what.replace(' ', "_")));
        std::fs::write(&path, base.replace(from, to)).unwrap();
        let out = dir.join(what.replace(' ', "_"));
        let o = sc(&[
            "generate",
            "--block",
            "tcd",
            "--config",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
        let err = stderr(&o);
        for w in wants {
            assert!(err.contains(w), "{what}: `{w}` not in: {err}");
        }
        assert!(!out.exists(), "{what}: output directory written");
    }
}
