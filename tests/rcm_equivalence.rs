//! RCM golden model vs its exported Verilog under Verilator: every output, every cycle.
//!
//! * long seeded runs of the block's random workload on every preset, on a 3-port config
//!   whose buses can name a missing port, with 2-entry CAMs, 8-bit flow IDs (collisions),
//!   16-bit windows (saturation), wrapping one-cycle timestamps and every option on, and on
//!   one port (a visit on every edge);
//! * proptest: short random sequences on a 2-port config ready after 4 cycles, shrunk to a
//!   minimal failing one, regressions in `proptest-regressions/`; seed from `SWITCHCRAFT_SEED`,
//!   printed on failure;
//! * directed: the samplers' read-modify-write at every hazard distance 1..=8 (one queue every
//!   d cycles, the cycles between idle or busy), and a CN whose header and IDs land on the
//!   edges of offers, route queries and ID reads of the same port.

mod common;

use common::{check, preset_workload, proptest_equivalence, random_workload, seed, verilated};
use proptest::prelude::*;
use switchcraft::blocks::rcm::RcmBlock;
use switchcraft::BlockConfig;
use switchcraft_core::PortValues;
use switchcraft_model::rcm::{reg, RcmConfig, RcmIn, SAMP_LEVELS};

#[test]
fn rcm_tiny_random_workload_model_equals_verilator() {
    preset_workload("rcm", "tiny", 400_000);
}

#[test]
fn rcm_fpga_random_workload_model_equals_verilator() {
    preset_workload("rcm", "fpga", 300_000);
}

/// The paper's 12 ports with 16 x 64-bit CAM entries each simulate at about 20 000 cycles/s.
#[test]
fn rcm_paper_random_workload_model_equals_verilator() {
    preset_workload("rcm", "paper", 60_000);
}

/// 3 ports (the 2-bit buses name a missing port 3), D = 2, 8-bit flow IDs, 16-bit windows,
/// n_clear 1, w = 1 (Eq. 2 all remote), 8-bit one-cycle timestamps that wrap every 256
/// cycles, and every option on.
fn odd() -> RcmConfig {
    RcmConfig {
        ports: 3,
        cam_depth: 2,
        fid_bits: 8,
        n_clear: 1,
        w_shift: 0,
        ts_bits: 8,
        t_cn: 10,
        t_rcf: 100,
        t_meas: 20,
        sar_window: 40,
        sar_new_only: true,
        cfr_clear_on_exit: true,
        ..RcmConfig::preset("tiny").unwrap()
    }
}

#[test]
fn rcm_3port_odd_random_workload_model_equals_verilator() {
    random_workload(&BlockConfig::new(RcmBlock, odd()), "odd3", seed(), 300_000);
}

/// One port: the sweep visits it on every edge, so each visit's reduction starts from what the
/// visit before it left (the RTL's next-visit path through this visit's decision).
#[test]
fn rcm_1port_random_workload_model_equals_verilator() {
    let c = RcmConfig {
        ports: 1,
        ..small()
    };
    random_workload(&BlockConfig::new(RcmBlock, c), "one1", seed(), 200_000);
}

/// 2 ports (ready after 4 cycles), D = 2, short timers and intervals.
fn small() -> RcmConfig {
    RcmConfig {
        ports: 2,
        cam_depth: 2,
        q_eq: 40,
        samp_base: 50,
        t_cn: 4,
        t_rcf: 30,
        t_meas: 8,
        sar_window: 12,
        wc_min: 20,
        ..RcmConfig::preset("tiny").unwrap()
    }
}

fn row(i: RcmIn) -> Vec<u64> {
    let mut v = vec![0; RcmIn::NAMES.len()];
    i.to_values(&mut v);
    v
}

/// One random cycle of the proptest: every bus on few ports and flows, depths around Q_eq, and
/// rare CSR writes of the registers that change decisions.
fn cycle() -> impl Strategy<Value = Vec<u64>> {
    (
        (0u64..4, 0u64..2, 0u64..2, 0u64..200, 1u64..256),
        (0u64..4, 0u64..2, 0u64..200, 0u64..4),
        (0u64..4, 0u64..2, 0u64..4, 1u64..256, any::<bool>()),
        (0u64..6, 0u64..2, 0u64..4, 0u64..4, any::<bool>()),
        (0u64..12, 0u64..2, 0u64..64, 0u64..4),
        (0u64..4, 0u64..2, any::<bool>(), 0u64..2),
        (0u64..30, 0u64..36, any::<u32>()),
    )
        .prop_map(
            |(
                (iq, ip, iv, iqd, il),
                (oq, op, oqd, of),
                (sc, sp, sf, sl, alone),
                (rt, rp, rc, rf, new),
                (cn, cp, cfbp, cid),
                (idr, dp, dext, dix),
                (w, a, data),
            )| {
                let mut i = RcmIn::default();
                if iq < 3 {
                    (i.iq_valid, i.iq_port, i.iq_voq, i.iq_qdepth, i.iq_len) = (1, ip, iv, iqd, il);
                }
                if oq < 3 {
                    (i.oq_valid, i.oq_port, i.oq_qdepth, i.oq_len, i.oq_fid) = (1, op, oqd, il, of);
                }
                if sc < 3 {
                    (i.sch_valid, i.sch_port, i.sch_fid, i.sch_len, i.sch_alone) =
                        (1, sp, sf, sl, alone.into());
                }
                if rt < 2 {
                    (i.rt_valid, i.rt_port, i.rt_cands, i.rt_fid, i.rt_new) =
                        (1, rp, rc, rf, new.into());
                }
                match cn {
                    0 => (i.cnr_valid, i.cnr_port, i.cnr_fbp) = (1, cp, cfbp),
                    1..=3 => (i.cni_valid, i.cni_port, i.cni_fid) = (1, cp, cid),
                    4 => {
                        (i.cnr_valid, i.cnr_port, i.cnr_fbp) = (1, cp, cfbp);
                        (i.cni_valid, i.cni_port, i.cni_fid) = (1, cp, cid);
                    }
                    _ => {}
                }
                if idr < 2 {
                    (i.idr_valid, i.idr_port, i.idr_ext, i.idr_index) = (1, dp, dext.into(), dix);
                }
                i.csr_addr = a;
                if w == 0 {
                    i.csr_we = 1;
                    i.csr_wdata = match a as u32 {
                        reg::W => u64::from(data % 16),
                        reg::Q_EQ => u64::from(data % 120 + 1),
                        reg::N_CLEAR => u64::from(data % 4),
                        reg::T_CN | reg::T_MEAS | reg::SAR_WINDOW => u64::from(data % 16),
                        reg::T_RCF => u64::from(data % 60),
                        reg::GD => u64::from(data % 4096),
                        reg::WC_MIN => u64::from(data % 300),
                        reg::W_SHIFT => u64::from(data % 7),
                        reg::SAR_CNS => u64::from(data % 4 + 1),
                        reg::SAR_SEVERE => u64::from(data % 64),
                        k if (reg::SAMP_INTERVAL..reg::SAMP_INTERVAL + SAMP_LEVELS as u32)
                            .contains(&k) =>
                        {
                            u64::from(data % 300)
                        }
                        _ => u64::from(data),
                    };
                }
                row(i)
            },
        )
}

#[test]
fn rcm_small_proptest_model_equals_verilator() {
    let cfg = BlockConfig::new(RcmBlock, small());
    proptest_equivalence(
        &cfg,
        "small",
        "rcm_small_proptest_model_equals_verilator",
        "proptest-regressions/rcm_equivalence.txt",
        prop::collection::vec(cycle(), 20..400),
    );
}

fn write(index: u32, value: u64) -> Vec<u64> {
    row(RcmIn {
        csr_we: 1,
        csr_addr: index.into(),
        csr_wdata: value,
        ..RcmIn::default()
    })
}

/// Edges that make every arrival a sample: all eight intervals 1.
fn every_arrival_sampled() -> Vec<Vec<u64>> {
    (0..SAMP_LEVELS as u32)
        .map(|k| write(reg::SAMP_INTERVAL + k, 1))
        .collect()
}

#[test]
fn rcm_every_hazard_distance_on_the_samplers_read_modify_write() {
    let c = small();
    let cfg = BlockConfig::new(RcmBlock, c.clone());
    let mut rtl = verilated(&cfg, "small");
    for distance in 1..=8usize {
        for busy in [false, true] {
            for sampled_every in [1u64, 300] {
                let mut rows = vec![row(RcmIn::default()); c.init_cycles() as usize];
                if sampled_every == 1 {
                    rows.extend(every_arrival_sampled());
                }
                // One VOQ and one output queue every `distance` cycles, the depth moving so
                // each Fb depends on the q_old just written and each counter on the last
                // arrival's; between them, idle cycles or the other queues.
                for k in 0..120u64 {
                    rows.push(row(RcmIn {
                        iq_valid: 1,
                        iq_port: 1,
                        iq_voq: 0,
                        iq_qdepth: 20 + (k * 13) % 60,
                        iq_len: 40 + (k * 7) % 90,
                        oq_valid: 1,
                        oq_port: 1,
                        oq_qdepth: 25 + (k * 11) % 50,
                        oq_len: 30 + (k * 5) % 120,
                        oq_fid: k % 3,
                        ..RcmIn::default()
                    }));
                    for j in 1..distance as u64 {
                        rows.push(if busy {
                            row(RcmIn {
                                iq_valid: 1,
                                iq_port: j % 2,
                                iq_voq: 1,
                                iq_qdepth: 30 + j * 9,
                                iq_len: 60,
                                oq_valid: 1,
                                oq_port: 0,
                                oq_qdepth: 35 + j * 5,
                                oq_len: 70,
                                oq_fid: j,
                                ..RcmIn::default()
                            })
                        } else {
                            row(RcmIn::default())
                        });
                    }
                }
                rows.extend(vec![row(RcmIn::default()); 12]);
                if let Err(e) = check(
                    &cfg,
                    &mut rtl,
                    rows,
                    "cargo test --test rcm_equivalence rcm_every_hazard_distance",
                ) {
                    panic!("distance {distance}, busy {busy}, interval {sampled_every}: {e}");
                }
            }
        }
    }
}

/// A CN's header and IDs on the same edges as offers, route queries and ID reads of its port,
/// and on the edge after: the port stage's corrections of the CAM's registered matches.
#[test]
fn rcm_cn_on_the_edge_of_offers_queries_and_reads() {
    let c = small();
    let cfg = BlockConfig::new(RcmBlock, c.clone());
    let mut rtl = verilated(&cfg, "small");
    let mut rows = vec![row(RcmIn::default()); c.init_cycles() as usize];
    rows.extend(every_arrival_sampled());
    for round in 0..40u64 {
        let port = round % 2;
        // A congested output sample with flow 1 (the CAM, lcf, a trigger).
        rows.push(row(RcmIn {
            oq_valid: 1,
            oq_port: port,
            oq_qdepth: 150,
            oq_len: 50,
            oq_fid: 1 + round % 3,
            ..RcmIn::default()
        }));
        for (k, fid) in [(0u64, 2u64), (1, 1), (2, 3), (3, 2)] {
            let mut i = RcmIn {
                sch_valid: 1,
                sch_port: port,
                sch_fid: fid,
                sch_len: 100,
                sch_alone: (round % 3 == 0).into(),
                rt_valid: 1,
                rt_port: port,
                rt_cands: 0b11,
                rt_fid: fid,
                rt_new: 1,
                idr_valid: 1,
                idr_port: port,
                idr_ext: (k % 2 == 0).into(),
                idr_index: k % 2,
                ..RcmIn::default()
            };
            if k == 0 {
                (i.cnr_valid, i.cnr_port, i.cnr_fbp) = (1, port, 20 + round);
            }
            if k == 0 || round % 4 != 1 {
                (i.cni_valid, i.cni_port, i.cni_fid) = (1, port, fid ^ (round & 1));
            }
            rows.push(row(i));
        }
        rows.extend(vec![row(RcmIn::default()); (round % 5) as usize]);
    }
    rows.extend(vec![row(RcmIn::default()); 12]);
    check(
        &cfg,
        &mut rtl,
        rows,
        "cargo test --test rcm_equivalence rcm_cn_on_the_edge",
    )
    .unwrap_or_else(|e| panic!("{e}"));
}
