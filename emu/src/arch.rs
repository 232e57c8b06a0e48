//! The two Tensix generations this emulator models and the facts that differ
//! between them.

use std::fmt;

/// A Tensix architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    WormholeB0,
    Blackhole,
}

impl Arch {
    pub const ALL: [Arch; 2] = [Arch::WormholeB0, Arch::Blackhole];

    /// The name used in conformance vectors.
    pub fn name(self) -> &'static str {
        match self {
            Arch::WormholeB0 => "wormhole_b0",
            Arch::Blackhole => "blackhole",
        }
    }

    pub fn from_name(name: &str) -> Option<Arch> {
        Arch::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Bytes of L1 in one Tensix tile: 1464 KiB on Wormhole B0, 1536 KiB on
    /// Blackhole (tt-isa-documentation `WormholeB0/TensixTile/L1.md`,
    /// `BlackholeA0/TensixTile/README.md`).
    pub fn l1_size(self) -> usize {
        match self {
            Arch::WormholeB0 => 1464 * 1024,
            Arch::Blackhole => 1536 * 1024,
        }
    }

    /// Number of packers. Wormhole B0 has four, selected by PACR's
    /// `PackerMask`; Blackhole has one packer with four Dst read interfaces
    /// selected by `ReadIntfSel`.
    pub fn packer_count(self) -> usize {
        match self {
            Arch::WormholeB0 => 4,
            Arch::Blackhole => 1,
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
