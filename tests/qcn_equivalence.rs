//! QCN golden model vs its exported Verilog under Verilator: every output, every cycle.
//!
//! * long seeded runs of the block's random workload on every preset, and on a 3 x 3 config
//!   with the gate on, two rate-limit entries (every flow collides) and 1-cycle timestamps;
//! * proptest: short random sequences on a config that is ready after 8 cycles, shrunk to a
//!   minimal failing one, regressions in `proptest-regressions/`; seed from `SWITCHCRAFT_SEED`,
//!   printed on failure;
//! * directed: both read-modify-writes (`q_old` per queue, the rate-limit entry per flow) at
//!   every hazard distance 1..=9, with the stages between idle or busy with other queues and
//!   flows, and T_fb such that some distances are inside it and some not; a P_fb window write
//!   at every distance -3..=3 from an arrival reading the entry written.

mod common;

use common::{check, preset_workload, proptest_equivalence, random_workload, seed, verilated};
use proptest::prelude::*;
use switchcraft::blocks::qcn::QcnBlock;
use switchcraft::BlockConfig;
use switchcraft_core::PortValues;
use switchcraft_model::qcn::{reg, QcnConfig, QcnIn, PFB_ONE, PFC_BASE};

#[test]
fn qcn_tiny_random_workload_model_equals_verilator() {
    preset_workload("qcn", "tiny", 400_000);
}

#[test]
fn qcn_fpga_random_workload_model_equals_verilator() {
    preset_workload("qcn", "fpga", 300_000);
}

#[test]
fn qcn_testbed_random_workload_model_equals_verilator() {
    preset_workload("qcn", "testbed", 300_000);
}

#[test]
fn qcn_switch_48x8_random_workload_model_equals_verilator() {
    preset_workload("qcn", "switch-48x8", 150_000);
}

/// 3 x 3 (the buses can name missing queues), the gate on, w = 5, two rate-limit entries,
/// 1-cycle timestamps of 10 bits (they wrap every 1 024 cycles), T_fb 40.
fn odd() -> QcnConfig {
    QcnConfig {
        ports: 3,
        priorities: 3,
        w: 5,
        fb_gate: true,
        flow_entries: 2,
        ts_bits: 10,
        ts_shift: 0,
        t_fb: 40,
        ..QcnConfig::preset("tiny").unwrap()
    }
}

#[test]
fn qcn_3x3_gated_colliding_random_workload_model_equals_verilator() {
    random_workload(
        &BlockConfig::new(QcnBlock, odd()),
        "odd3x3",
        seed(),
        200_000,
    );
}

/// Ready after 8 cycles (8 queue slots, 8 flow entries, 8 P_fb entries), P_fb 1 above 3
/// packets, 1-cycle timestamps, T_fb 6.
fn small() -> QcnConfig {
    QcnConfig {
        q_min: 3,
        q_max: 3,
        pfb_entries: 8,
        pfb_shift: 2,
        flow_entries: 8,
        ts_shift: 0,
        t_fb: 6,
        ..QcnConfig::preset("tiny").unwrap()
    }
}

fn row(i: QcnIn) -> Vec<u64> {
    let mut v = vec![0; QcnIn::NAMES.len()];
    i.to_values(&mut v);
    v
}

/// One random cycle of the proptest: arrivals on few queues and flows (so both read-modify-
/// writes see back-to-back hits), depths across the P_fb step, ingress events, and rare CSR
/// writes of every register that changes the CP's decisions.
fn cycle() -> impl Strategy<Value = Vec<u64>> {
    (
        (0u64..10, 0u64..4, 0u64..2, 0u64..24, 0u32..3, 0u32..3),
        (0u64..3, 0u64..4, 0u64..2, 1u64..2048),
        (0u64..40, 0u64..16, any::<u32>()),
    )
        .prop_map(
            |((eg, port, prio, q, s, d), (inb, ip, iq, len), (w, a, data))| {
                let mut i = QcnIn::default();
                if eg < 7 {
                    (i.eg_valid, i.eg_port, i.eg_prio, i.eg_qdepth) = (1, port, prio, q);
                    (i.eg_src, i.eg_dst) = (u64::from(s) * 0x1111, u64::from(d) * 0x2222);
                }
                match inb {
                    0 => {
                        (i.in_enq_valid, i.in_enq_port, i.in_enq_prio, i.in_enq_len) =
                            (1, ip, iq, len)
                    }
                    1 => {
                        (i.in_deq_valid, i.in_deq_port, i.in_deq_prio, i.in_deq_len) =
                            (1, ip, iq, len)
                    }
                    _ => {}
                }
                i.csr_addr = a;
                if w == 0 {
                    i.csr_we = 1;
                    i.csr_wdata = match a as u32 {
                        reg::W => u64::from(data % 16),
                        reg::Q_EQ => u64::from(data % 30),
                        reg::T_FB => u64::from(data % 12),
                        reg::PFB_DATA => u64::from(data) % (PFB_ONE + 1),
                        // Small scales, so that products land on the quantiser's bounds
                        // (1 << shift: Fb6 nonzero, the gate; 64 << shift: the clamp).
                        reg::FB_SCALE => u64::from(data % 3) << 8 | u64::from(1 + (data >> 8) % 3),
                        _ => u64::from(data),
                    };
                } else if w == 1 {
                    // The PFC's window too.
                    (i.csr_we, i.csr_addr, i.csr_wdata) =
                        (1, u64::from(PFC_BASE) + a % 8, u64::from(data % 5000));
                }
                row(i)
            },
        )
}

#[test]
fn qcn_small_proptest_model_equals_verilator() {
    let cfg = BlockConfig::new(QcnBlock, small());
    proptest_equivalence(
        &cfg,
        "small",
        "qcn_small_proptest_model_equals_verilator",
        "proptest-regressions/qcn_equivalence.txt",
        prop::collection::vec(cycle(), 20..400),
    );
}

/// An arrival on queue (port, prio) of `flow` with depth `q`.
fn arrival(port: u64, prio: u64, q: u64, flow: u64) -> Vec<u64> {
    row(QcnIn {
        eg_valid: 1,
        eg_port: port,
        eg_prio: prio,
        eg_qdepth: q,
        eg_src: 0xA000 + flow,
        eg_dst: 0xB000 + flow,
        ..QcnIn::default()
    })
}

#[test]
fn qcn_every_hazard_distance_on_both_read_modify_writes() {
    let c = small();
    let cfg = BlockConfig::new(QcnBlock, c.clone());
    let mut rtl = verilated(&cfg, "small");
    for distance in 1..=9usize {
        for busy in [false, true] {
            let mut rows = vec![row(QcnIn::default()); c.init_cycles() as usize];
            // One queue and one flow every `distance` cycles, the depth moving so each Fb
            // depends on the q_old just written; T_fb = 6 cycles, so distances below 6 are
            // suppressed and the rest pass. Between them, idle cycles or other queues and flows.
            for k in 0..150u64 {
                rows.push(arrival(1, 1, 4 + (k * 7) % 19, 0));
                for j in 1..distance as u64 {
                    rows.push(if busy {
                        arrival(2 + j % 2, j % 2, 4 + (k + j) % 17, 1 + j % 3)
                    } else {
                        row(QcnIn::default())
                    });
                }
            }
            rows.extend(vec![row(QcnIn::default()); 10]);
            if let Err(e) = check(
                &cfg,
                &mut rtl,
                rows,
                "cargo test --test qcn_equivalence qcn_every_hazard_distance",
            ) {
                panic!("distance {distance}, busy {busy}: {e}");
            }
        }
    }
}

/// A P_fb window write at every distance from an arrival whose depth reads the entry written:
/// the written value alternates between 0 (never sample) and 1 (always sample), so whether
/// the arrival saw the write or the value before it shows on the feedback bus.
#[test]
fn qcn_p_fb_write_at_every_distance_from_an_arrival() {
    let c = small();
    let cfg = BlockConfig::new(QcnBlock, c.clone());
    let mut rtl = verilated(&cfg, "small");
    let csr = |addr: u32, wdata: u64| {
        row(QcnIn {
            csr_we: 1,
            csr_addr: addr.into(),
            csr_wdata: wdata,
            ..QcnIn::default()
        })
    };
    let mut rows = vec![row(QcnIn::default()); c.init_cycles() as usize + 1];
    // Depth 21 is bucket 5 (21 >> 2); Q_eq 1, so each sampled arrival has Fb > 0.
    rows.push(csr(reg::Q_EQ, 1));
    rows.push(csr(reg::PFB_INDEX, 5));
    let mut flow = 0;
    for offset in -3i64..=3 {
        for value in [PFB_ONE, 0, PFB_ONE, 0] {
            let start = rows.len();
            rows.extend(vec![row(QcnIn::default()); 7]);
            let at = (start as i64 + 3) as usize;
            rows[at] = arrival(1, 1, 21, flow);
            flow += 1;
            let w = (at as i64 + offset) as usize;
            rows[w][QcnIn::NAMES.iter().position(|n| *n == "csr_we").unwrap()] = 1;
            rows[w][QcnIn::NAMES.iter().position(|n| *n == "csr_addr").unwrap()] =
                reg::PFB_DATA.into();
            rows[w][QcnIn::NAMES.iter().position(|n| *n == "csr_wdata").unwrap()] = value;
        }
    }
    rows.extend(vec![row(QcnIn::default()); 12]);
    let replay = "cargo test --test qcn_equivalence qcn_p_fb_write_at_every_distance";
    if let Err(e) = check(&cfg, &mut rtl, rows, replay) {
        panic!("{e}");
    }
}

/// The P_fb table the reset sweep writes (its ramp computed without a divider), read back
/// entry by entry through the CSR window, on every preset and on ramps of other shapes: from 0,
/// a step, steep and shallow slopes, past the table's end, and one whose remainder reaches the
/// divisor exactly (0..6: 65 536 = 10 922 x 6 + 4, so the remainders run 4, 2, 0), and two
/// whose remainders sit one below the hardware's look-ahead bounds (0..5 before a step: D - 2b;
/// 0..9 before a carry: 2 (D - b)).
#[test]
fn qcn_reset_p_fb_table_reads_back_on_every_ramp_shape() {
    let tiny = QcnConfig::preset("tiny").unwrap();
    let mut configs: Vec<(String, QcnConfig)> = ["tiny", "fpga", "testbed"]
        .iter()
        .map(|p| (p.to_string(), QcnConfig::preset(p).unwrap()))
        .collect();
    for (q_min, q_max, pfb_shift) in [
        (0, 31, 1),
        (10, 11, 0),
        (7, 200, 4),
        (3, 3, 2),
        (20, 255, 1),
        (0, 6, 0),
        (0, 5, 0),
        (0, 9, 0),
    ] {
        let c = QcnConfig {
            q_min,
            q_max,
            q_eq: q_max.max(1),
            pfb_shift,
            ..tiny.clone()
        };
        configs.push((format!("ramp_{q_min}_{q_max}_{pfb_shift}"), c));
    }
    let csr = |we: u64, addr: u32, wdata: u64| {
        row(QcnIn {
            csr_we: we,
            csr_addr: addr.into(),
            csr_wdata: wdata,
            ..QcnIn::default()
        })
    };
    for (name, c) in configs {
        let cfg = BlockConfig::new(QcnBlock, c.clone());
        let mut rtl = verilated(&cfg, &name);
        let mut rows = vec![row(QcnIn::default()); c.init_cycles() as usize + 1];
        for k in 0..u64::from(c.pfb_entries) {
            rows.push(csr(1, reg::PFB_INDEX, k));
            rows.push(csr(0, reg::PFB_DATA, 0));
        }
        rows.push(row(QcnIn::default()));
        let replay = "cargo test --test qcn_equivalence qcn_reset_p_fb_table";
        if let Err(e) = check(&cfg, &mut rtl, rows, replay) {
            panic!("{name}: {e}");
        }
    }
}
