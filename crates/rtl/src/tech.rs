//! The technology a package's memories are built for (`switchcraft generate --target`).
//!
//! Blocks ask for a memory by its access pattern ([`crate::ram_2w2r::Ram2W2R`]: two writes and
//! two reads per cycle); the target decides its form. Everything else in a package is the same
//! for every target.

use std::fmt;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tech {
    /// Lattice iCE40: 1R1W block RAMs, replicated per read port, a live-value table per
    /// extra write port. The checked-in rtl/ is this target.
    #[default]
    Ice40,
    /// Lattice ECP5: as iCE40. Its true dual-port RAMs give two accesses per cycle, and a 2R2W
    /// pattern needs four, so they would pay only at twice the clock, which the targets here do
    /// not reach.
    Ecp5,
    /// Xilinx 7-series and later: as ECP5, for the same reason.
    Xilinx,
    /// An ASIC flow: each memory is one array of exactly its architectural bits, in a module of
    /// its own that a compiled multi-port register file of the same name and ports replaces.
    Asic,
}

impl Tech {
    pub const ALL: [Tech; 4] = [Tech::Ice40, Tech::Ecp5, Tech::Xilinx, Tech::Asic];

    pub fn name(self) -> &'static str {
        match self {
            Tech::Ice40 => "ice40",
            Tech::Ecp5 => "ecp5",
            Tech::Xilinx => "xilinx",
            Tech::Asic => "asic",
        }
    }

    pub fn parse(s: &str) -> Result<Tech, String> {
        Tech::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| format!("unknown target `{s}` (known: ice40, ecp5, xilinx, asic)"))
    }

    /// Whether a multi-port memory is built from replicated 1R1W RAMs (the FPGA targets).
    pub fn replicates(self) -> bool {
        self != Tech::Asic
    }
}

impl fmt::Display for Tech {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
