//! Golden cycle models: the reference every RTL export is compared against.
//!
//! One module per block, named by the block's stem. Each module holds the block's `Config`
//! (serde; validated), its presets, its port schema, its register map and the model itself.

pub mod config;
pub mod pfc;
