//! `switchcraft qcn thresholds` and `switchcraft qcn rp`: the spec's §5.5 vectors and §5.6
//! trace from the command line, configs that load back, and every bad input gives exit 2
//! naming the option or the rule, with no output file.

mod common;

use common::cli::{ok, sc, stdout};
use common::scratch::ScratchDir;
use switchcraft::model::qcn::QcnConfig;
use switchcraft::BlockConfig;

fn assert_bad_input(args: &[&str], want: &str) {
    let o = sc(args);
    common::cli::assert_bad_input(&o, want);
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
}

#[test]
fn qcn_thresholds_print_vector_q1() {
    let s = ok(&[
        "qcn",
        "thresholds",
        "--buffer",
        "12MiB",
        "--ports",
        "32",
        "--q-flight",
        "22.4KB",
    ]);
    for want in [
        "B = 12582912 B, n = 32, k = 8, Q_flight = 22400 B, alpha = 8",
        "= 26752 B",
        "= 4352 B",
        "= 23779.6 B",
        "chosen (static): Q_PFC = 26752 B, Q_P4QCN = 4352 B",
    ] {
        assert!(s.contains(want), "{s}\nlacks {want:?}");
    }
    let s = ok(&[
        "qcn",
        "thresholds",
        "--buffer",
        "12MiB",
        "--ports",
        "32",
        "--q-flight",
        "22.4KB",
        "--mode",
        "dynamic",
    ]);
    assert!(
        s.contains("chosen (dynamic): Q_PFC = 26752 B, Q_P4QCN = 23779 B"),
        "{s}"
    );
}

#[test]
fn qcn_thresholds_refuse_the_infeasible_q2_and_write_nothing() {
    let dir = ScratchDir::new("qcn-cli", "q2");
    let out = dir.join("q2.toml");
    let out_s = out.to_str().unwrap();
    assert_bad_input(
        &[
            "qcn",
            "thresholds",
            "--buffer",
            "12MB",
            "--ports",
            "32",
            "--q-flight",
            "25KB",
            "--preset",
            "fpga",
            "--out",
            out_s,
        ],
        "infeasible static configuration: Q_P4QCN <= Q_PFC - Q_flight = -3125.0 B",
    );
    assert!(!out.exists());
    // The message names the way out, which works.
    ok(&[
        "qcn",
        "thresholds",
        "--buffer",
        "12MB",
        "--ports",
        "32",
        "--q-flight",
        "25KB",
        "--mode",
        "dynamic",
    ]);
    for (over, want) in [
        (("--buffer", "12Mb"), "--buffer 12Mb: `Mb` is bits"),
        (("--buffer", "100"), "not above 0"),
        (
            ("--mode", "sometimes"),
            "--mode sometimes: must be `static` or `dynamic`",
        ),
        (("--alpha", "0"), "--alpha 0: must be a number above 0"),
        (("--priorities", "9"), "priorities = 9: must be in 1..=8"),
    ] {
        let mut a = vec!["qcn", "thresholds", "--ports", "32", "--q-flight", "22.4KB"];
        if over.0 != "--buffer" {
            a.extend(["--buffer", "12MiB"]);
        }
        a.extend([over.0, over.1]);
        assert_bad_input(&a, want);
    }
}

#[test]
fn qcn_thresholds_out_writes_a_config_that_loads_back_as_the_preset() {
    let dir = ScratchDir::new("qcn-cli", "fpga");
    let out = dir.join("fpga.toml");
    let o = ok(&[
        "qcn",
        "thresholds",
        "--buffer",
        "1MiB",
        "--ports",
        "8",
        "--priorities",
        "4",
        "--q-flight",
        "6250B",
        "--preset",
        "fpga",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.contains("Q_PFC = 26518 B, Q_P4QCN = 20268 B"), "{o}");
    let cfg = BlockConfig::from_file("qcn", &out).unwrap();
    assert_eq!(
        cfg.get::<QcnConfig>(),
        Some(&QcnConfig::preset("fpga").unwrap())
    );
    // A derived config the block cannot hold is refused by the rule it breaks.
    assert_bad_input(
        &[
            "qcn",
            "thresholds",
            "--buffer",
            "1GiB",
            "--ports",
            "8",
            "--q-flight",
            "6250B",
            "--preset",
            "tiny",
            "--out",
            out.to_str().unwrap(),
        ],
        "the derived config is not valid",
    );
}

#[test]
fn qcn_rp_prints_the_q5_fast_recovery() {
    // 7 Mb/s: R_c = 3.5 Mb/s after the FBP; a 150 KB byte-counter cycle at 3.5 Mb/s takes
    // 343 ms, so the row at 400 ms shows 0.75 x 7 Mb/s.
    let s = ok(&[
        "qcn",
        "rp",
        "--line-rate",
        "7M",
        "--duration",
        "400ms",
        "--step",
        "200ms",
    ]);
    let rows: Vec<&str> = s.lines().collect();
    assert_eq!(rows[0], "time_ms\tstate\tR_c_bps\tR_t_bps");
    assert_eq!(rows[1], "0\tFastRecovery\t3500000\t7000000");
    assert_eq!(rows[3], "400\tFastRecovery\t5250000\t7000000");
    assert_bad_input(&["qcn", "rp", "--beta", "2"], "beta = 2: must be in (0, 1]");
    assert_bad_input(&["qcn", "rp", "--fb", "64"], "--fb 64: must be in 0..=63");
    assert_bad_input(
        &["qcn", "rp", "--step", "0ms"],
        "--step 0ms: must be above 0",
    );
}
