//! BFC golden model vs its exported Verilog under Verilator: every output, every cycle.
//!
//! Long seeded runs of the block's closed-loop random workload (colliding flow ids, more flows
//! than queues, one key every cycle, received frames, CSR traffic, damaged metadata) on `tiny`,
//! `fpga` and odd shapes.

mod common;

use common::{random_workload, seed};
use switchcraft::BlockConfig;
use switchcraft_model::bfc::BfcConfig;

fn preset(name: &str) -> BlockConfig {
    BlockConfig::preset("bfc", name).unwrap()
}

fn tiny() -> BfcConfig {
    BfcConfig::preset("tiny").unwrap()
}

#[test]
fn bfc_tiny_random_workload_model_equals_verilator() {
    let replay = "switchcraft cosim --block bfc --preset tiny";
    random_workload(&preset("tiny"), "tiny", replay, seed(), 200_000);
}

#[test]
fn bfc_fpga_random_workload_model_equals_verilator() {
    let replay = "switchcraft cosim --block bfc --preset fpga";
    random_workload(&preset("fpga"), "fpga", replay, seed(), 200_000);
}

/// 3 ports, 2 classes, 6 upstream queues, sticky 0: buses that can name missing ports and
/// queues, class ranges, and the base design's reassignment.
#[test]
fn bfc_odd_shape_random_workload_model_equals_verilator() {
    let cfg = BlockConfig::Bfc(BfcConfig {
        ports: 3,
        classes: 2,
        upstream_queues: 6,
        sticky: 0,
        ..tiny()
    });
    let replay =
        "switchcraft cosim --block bfc --config (3 ports, 2 classes, 6 upstream, else tiny)";
    random_workload(&cfg, "odd", replay, seed(), 200_000);
}

/// 40 queues and 40 upstream queues: two 32-queue chunks in received and sent bitmaps; 64-bit
/// flow ids hashed into 32-bit keys; timestamps in units of 8 cycles.
#[test]
fn bfc_wide_chunks_random_workload_model_equals_verilator() {
    let cfg = BlockConfig::Bfc(BfcConfig {
        ports: 2,
        queues: 40,
        upstream_queues: 40,
        ft_multiple: 2,
        fid_bits: 64,
        hash_bits: 32,
        ts_shift: 3,
        sticky: 5,
        classes: 3,
        t_bm: 200,
        th: vec![2000; 40],
        ..tiny()
    });
    let replay = "switchcraft cosim --block bfc --config (2 x 40 queues, 40 upstream, else tiny)";
    random_workload(&cfg, "wide", replay, seed(), 150_000);
}
