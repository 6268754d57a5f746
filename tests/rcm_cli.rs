//! `switchcraft rcm window` and `switchcraft rcm degree`: the spec's §7.4 vectors R3, R4, R7
//! and R8 from the command line, and every bad input gives exit 2 naming the option or rule.

mod common;

use common::cli::{ok, sc, stdout};

fn assert_bad_input(args: &[&str], want: &str) {
    let o = sc(args);
    common::cli::assert_bad_input(&o, want);
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
}

#[test]
fn rcm_window_prints_vector_r7() {
    let s = ok(&[
        "rcm", "window", "--w", "64KiB", "--wc", "32KiB", "--fb", "32", "--gd", "1/64",
    ]);
    for want in [
        "Fb x Gd      0.500000 (32 x 1024/65536)",
        "Wc           32768 -> 16384 B (floor 1500 B)",
        "Wnc          32768 -> 49152 B",
        "harmful share 50.00 % -> 25.00 %",
    ] {
        assert!(s.contains(want), "{s}\nlacks {want:?}");
    }
}

/// R3 and R4: the default Gd (1/126 as 520/65536) cuts at most 50 %, 1/128 at most 49.2 %.
#[test]
fn rcm_window_prints_the_largest_cut_of_r3_and_r4() {
    let s = ok(&[
        "rcm", "window", "--w", "64KiB", "--wc", "32KiB", "--fb", "63",
    ]);
    assert!(s.contains("largest cut  49.99 %"), "{s}");
    assert!(s.contains("32768 -> 16388 B"), "{s}");
    let s = ok(&[
        "rcm", "window", "--w", "64KiB", "--wc", "32KiB", "--fb", "63", "--gd", "1/128",
    ]);
    assert!(s.contains("largest cut  49.22 %"), "{s}");
}

#[test]
fn rcm_degree_prints_vector_r8() {
    let s = ok(&["rcm", "degree", "--fb", "40", "--fbr", "20"]);
    assert!(s.contains("Fb' = (1 - w) Fb + w Fbr = 30"), "{s}");
    let s = ok(&[
        "rcm",
        "degree",
        "--fb",
        "40",
        "--fbr",
        "20",
        "--w-shift",
        "0",
    ]);
    assert!(s.contains("= 20 "), "{s}");
}

#[test]
fn rcm_helpers_refuse_bad_input() {
    assert_bad_input(
        &[
            "rcm", "window", "--w", "64KiB", "--wc", "70KiB", "--fb", "1",
        ],
        "--wc 71680: the harmful window cannot exceed W",
    );
    assert_bad_input(
        &[
            "rcm", "window", "--w", "64KiB", "--wc", "1KiB", "--fb", "64",
        ],
        "--fb 64: a quantised degree is 0..=63",
    );
    assert_bad_input(
        &[
            "rcm", "window", "--w", "64KiB", "--wc", "1KiB", "--fb", "1", "--gd", "1/0",
        ],
        "--gd 1/0",
    );
    assert_bad_input(
        &["rcm", "window", "--w", "lots", "--wc", "1KiB", "--fb", "1"],
        "--w lots",
    );
    assert_bad_input(
        &["rcm", "degree", "--fb", "1", "--fbr", "2", "--w-shift", "7"],
        "--w-shift 7: must be in 0..=6",
    );
}
