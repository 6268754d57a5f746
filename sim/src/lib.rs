//! Verilator co-simulation for switchcraft.
//!
//! * [`verilator`]: a small hand-written Verilator 5 binding — verilate a top module, generate
//!   a C ABI shim from its [`PortSchema`](switchcraft_core::PortSchema), build a shared library
//!   (content-hash cached) and drive it cycle by cycle.
//! * [`cosim`]: run a golden [`DynModel`](switchcraft_core::DynModel) and the verilated RTL on
//!   the same stimulus, compare every output every cycle, and on the first difference write both
//!   sides' waveforms around it.
//! * [`faults`]: a stimulus wrapper that injects faults (lost and repeated messages, stuck
//!   inputs, CSR writes and resets in the middle of traffic), for the same comparison.

pub mod axil;
pub mod cosim;
pub mod error;
pub mod faults;
pub mod verilator;

pub use cosim::{
    run, CosimOptions, CosimReport, FnStimulus, Mismatch, PortDiff, SeededStimulus, Stimulus,
    VecStimulus,
};
pub use error::SimError;
pub use faults::{FaultCounts, FaultPlan, Faulty};
pub use verilator::{build, default_cache_dir, BuildInfo, BuildOptions, VerilatedModel};
