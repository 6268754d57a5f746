//! rust-hdl descriptions of switchcraft's blocks and their Verilog packaging.
//!
//! One module per block (same stem as the model); `export` turns a block's rust-hdl Verilog into
//! the files under rtl/<b>/.

pub mod bfc;
pub mod cal_row;
pub mod capfc;
pub mod counter_row_ram;
pub mod csr_bank;
pub mod export;
pub mod flag_rows;
pub mod lane_ram;
pub mod narrow_ram;
pub mod pfc;
pub mod ram_2w2r;
pub mod tcd;
pub mod tech;

pub use tech::Tech;

pub use rust_hdl;
