//! BFC golden model: the config rules, the presets' sizing against the paper's numbers
//! (spec §3.2) and the pause-threshold table (spec §3.4).

use switchcraft_model::bfc::{th_table, Assign, BfcConfig, PRESETS};

fn tiny() -> BfcConfig {
    BfcConfig::preset("tiny").unwrap()
}

#[test]
fn bfc_config_rules_name_field_and_rule() {
    type Break = Box<dyn Fn(&mut BfcConfig)>;
    let cases: Vec<(Break, &str, &str)> = vec![
        (
            Box::new(|c| c.ft_multiple = 0),
            "ft_multiple",
            "ft_multiple = 0: must be at least 1",
        ),
        (
            Box::new(|c| c.ft_multiple = 1001),
            "ft_multiple",
            "ft_multiple = 1001: must be in 1..=1000",
        ),
        // Queues not enough for the classes: 4 queues leave 3 data queues.
        (
            Box::new(|c| {
                c.queues = 4;
                c.th.truncate(4);
                c.classes = 4
            }),
            "classes",
            "classes = 4: needs at least one data queue per class; queues = 4 leaves 3 data queues",
        ),
        (
            Box::new(|c| c.classes = 0),
            "classes",
            "classes = 0: must be in 1..=8",
        ),
        // Sticky beyond the wrap-safe half of the timestamp range (8-bit timestamps: 128).
        (
            Box::new(|c| c.sticky = 128),
            "sticky",
            "sticky = 128: must be below 2^(ts_bits - 1) = 128",
        ),
        (
            Box::new(|c| c.t_bm = 0),
            "t_bm",
            "t_bm = 0: must be in 4..=16777216 cycles",
        ),
        (
            Box::new(|c| c.t_bm = 3),
            "t_bm",
            "t_bm = 3: must be in 4..=16777216 cycles",
        ),
        // A hash wider than the key.
        (
            Box::new(|c| c.hash_bits = 17),
            "hash_bits",
            "hash_bits = 17: must be <= fid_bits (16)",
        ),
        // Fewer hash values than entries: 2^8 < 128 x 8 = 1024 per port.
        (
            Box::new(|c| {
                c.hash_bits = 8;
                c.ft_multiple = 128
            }),
            "hash_bits",
            "hash_bits = 8: 2^hash_bits must be at least the 1024 entries per port",
        ),
        // The Th table shorter than the queue count.
        (
            Box::new(|c| c.th.truncate(7)),
            "th",
            "th = 7: the Th table needs an entry for every N_active = 1..=8 (queues), it has 7 entries",
        ),
        (
            Box::new(|c| c.th[5] = 0),
            "th[5]",
            "th[5] = 0: must be at least 1 byte",
        ),
        (
            Box::new(|c| c.th[2] = 65536),
            "th[2]",
            "th[2] = 65536: does not fit occupancy_bits = 16 (at most 65535)",
        ),
        (
            Box::new(|c| c.ports = 1),
            "ports",
            "ports = 1: must be in 2..=64",
        ),
        (
            Box::new(|c| c.queues = 129),
            "queues",
            "queues = 129: must be in 2..=128",
        ),
        (
            Box::new(|c| c.length_bits = 17),
            "length_bits",
            "length_bits = 17: must be in 1..=16",
        ),
        (
            Box::new(|c| {
                c.occupancy_bits = 8;
                c.th = vec![100; 8]
            }),
            "length_bits",
            "length_bits = 11: must be <= occupancy_bits (8)",
        ),
        (
            Box::new(|c| c.size_bits = 0),
            "size_bits",
            "size_bits = 0: must be in 1..=24",
        ),
        (
            Box::new(|c| c.pc_bits = 25),
            "pc_bits",
            "pc_bits = 25: must be in 1..=24",
        ),
        (
            Box::new(|c| c.upstream_queues = 1),
            "upstream_queues",
            "upstream_queues = 1: must be in 2..=128",
        ),
    ];
    for (k, (break_it, field, want)) in cases.iter().enumerate() {
        let mut c = tiny();
        break_it(&mut c);
        let e = c
            .validate()
            .expect_err(&format!("case {k} ({field}) must be refused"));
        assert_eq!(e.field, *field, "case {k}");
        let text = e.to_string();
        assert!(text.contains(want), "case {k}: {text:?} lacks {want:?}");
    }
}

#[test]
fn bfc_presets_validate_and_match_the_papers_sizes() {
    for p in PRESETS {
        let c = BfcConfig::preset(p).unwrap();
        c.validate().unwrap_or_else(|e| panic!("preset {p}: {e}"));
        assert_eq!(
            c.assign,
            Assign::Dynamic,
            "{p}: the paper's design is the default"
        );
    }
    let ns3 = BfcConfig::preset("ns3-tor").unwrap();
    assert_eq!((ns3.ports, ns3.queues, ns3.entries()), (24, 32, 76_800));
    let t2 = BfcConfig::preset("tofino2").unwrap();
    assert_eq!(u64::from(t2.ports * t2.queues), 4096);
    assert_eq!(t2.entries(), 409_600);
    assert_eq!(t2.pause_counters(), 4096);
    assert_eq!(BfcConfig::preset("tofino-loopback").unwrap().queues, 16);
    assert_eq!(BfcConfig::preset("tiny").unwrap().queues, 8);
    // At most 5 bytes per flow-table entry at the paper's scales (the ns-3 configuration
    // implies about 5.3).
    for p in ["tofino-loopback", "ns3-tor", "tofino2"] {
        let c = BfcConfig::preset(p).unwrap();
        assert!(
            c.entry_bits() <= 40,
            "{p}: {} bits per entry",
            c.entry_bits()
        );
    }
    assert!(BfcConfig::preset("paper").is_none());
}

#[test]
fn bfc_toml_round_trips_and_rejects_unknown_keys() {
    let c = BfcConfig::preset("ns3-tor").unwrap();
    let back = BfcConfig::from_toml(&c.to_toml(), "x.toml").unwrap();
    assert_eq!(back, c);
    let e = BfcConfig::from_toml(&(c.to_toml() + "bogus = 1\n"), "x.toml").unwrap_err();
    assert!(e.0.contains("bogus"), "{}", e.0);
    let mut bad = c.clone();
    bad.ft_multiple = 0;
    let e = BfcConfig::from_toml(&bad.to_toml(), "x.toml").unwrap_err();
    assert!(
        e.0.contains("x.toml: invalid config: ft_multiple = 0"),
        "{}",
        e.0
    );
}

/// The paper's ns-3 thresholds (100 Gb/s, HRTT 2 us): 25 000 / 12 500 / 6 250 / 3 125 /
/// 1 562.5 / 781.25 B at N_active = 1 / 2 / 4 / 8 / 16 / 32; the CSR table rounds down.
#[test]
fn bfc_th_table_has_the_papers_values() {
    let t = th_table(100e9, 2000.0, 32);
    let want = [
        (1, 25_000.0, 25_000),
        (2, 12_500.0, 12_500),
        (4, 6_250.0, 6_250),
        (8, 3_125.0, 3_125),
        (16, 1_562.5, 1_562),
        (32, 781.25, 781),
    ];
    for (n, exact, bytes) in want {
        let row = t[n - 1];
        assert_eq!(row.n_active as usize, n);
        assert!((row.exact - exact).abs() < 1e-9, "Th({n}) = {}", row.exact);
        assert_eq!(row.bytes, bytes, "Th({n}) in the table");
    }
    // Th scales with the rate and the HRTT.
    assert_eq!(th_table(400e9, 2000.0, 1)[0].bytes, 100_000);
    assert_eq!(th_table(100e9, 1000.0, 1)[0].bytes, 12_500);
    // The ns3-tor preset carries this table.
    let ns3 = BfcConfig::preset("ns3-tor").unwrap();
    assert_eq!(ns3.th, t.iter().map(|r| r.bytes).collect::<Vec<_>>());
}
