//! rust-hdl descriptions of switchcraft's blocks and their Verilog packaging.
//!
//! One module per block (same stem as the model); `export` turns a block's rust-hdl Verilog into
//! the files under rtl/<b>/.

/// Calls `$body` with `$core` bound to `$make!(pb, nq, args...)`: the block core sized for a
/// validated config's port bits `pb` (1..=6) and priority bits `nq` (1..=3), given as the pair
/// `$bits`. The cores take these sizes as const generics, so each pair needs its own arm.
macro_rules! with_sized_core {
    ($bits:expr, $make:ident!($($arg:expr),*), |$core:ident| $body:expr) => {{
        match $bits {
            (1, 1) => { let mut $core = $make!(1, 1, $($arg),*); $body }
            (1, 2) => { let mut $core = $make!(1, 2, $($arg),*); $body }
            (1, 3) => { let mut $core = $make!(1, 3, $($arg),*); $body }
            (2, 1) => { let mut $core = $make!(2, 1, $($arg),*); $body }
            (2, 2) => { let mut $core = $make!(2, 2, $($arg),*); $body }
            (2, 3) => { let mut $core = $make!(2, 3, $($arg),*); $body }
            (3, 1) => { let mut $core = $make!(3, 1, $($arg),*); $body }
            (3, 2) => { let mut $core = $make!(3, 2, $($arg),*); $body }
            (3, 3) => { let mut $core = $make!(3, 3, $($arg),*); $body }
            (4, 1) => { let mut $core = $make!(4, 1, $($arg),*); $body }
            (4, 2) => { let mut $core = $make!(4, 2, $($arg),*); $body }
            (4, 3) => { let mut $core = $make!(4, 3, $($arg),*); $body }
            (5, 1) => { let mut $core = $make!(5, 1, $($arg),*); $body }
            (5, 2) => { let mut $core = $make!(5, 2, $($arg),*); $body }
            (5, 3) => { let mut $core = $make!(5, 3, $($arg),*); $body }
            (6, 1) => { let mut $core = $make!(6, 1, $($arg),*); $body }
            (6, 2) => { let mut $core = $make!(6, 2, $($arg),*); $body }
            (6, 3) => { let mut $core = $make!(6, 3, $($arg),*); $body }
            (pb, nq) => unreachable!(
                "validated configs have 1..=64 ports and 1..=8 priorities, not {pb} port bits \
                 and {nq} priority bits"
            ),
        }
    }};
}

pub mod axil;
pub mod bfc;
pub mod cal_row;
pub mod cam;
pub mod capfc;
pub mod counter_row_ram;
pub mod csr_bank;
pub mod export;
pub mod flag_rows;
pub mod flow_hash;
pub mod lane_max;
pub mod lane_ram;
pub mod narrow_ram;
pub mod pfc;
pub mod pfcmac;
pub mod qcn;
pub mod ram_2w2r;
pub mod rcm;
pub mod reg_table;
pub mod tcd;
pub mod tech;

pub use tech::Tech;

pub use rust_hdl;
