//! The unpackers: `UNPACR` moves datums from L1 to `SrcA`, `SrcB` or `Dst`,
//! and `UNPACR_NOP` clears a `Src` bank or hands it to the matrix unit in
//! sequence with them.
//!
//! The model is the `UNPACR` functional model of tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/UNPACR_Regular.md` (which the
//! Blackhole page defers to), read with `Unpackers/README.md` and the
//! `UNPACR_NOP_*.md` pages. The stored copy of that page has no
//! `TTArchitecture` conditionals; where Blackhole differs, ttsim
//! (`src/tensix.cpp`, `TENSIX_EXECUTE_UNPACR`, v1.10.0 and later) is followed
//! and the code says so.
//!
//! The stages, in pipeline order, each in its own module:
//! * [`context`]: which configuration context, Config state and ADC set an
//!   instruction uses, and the context counters;
//! * [`descriptor`]: the tile descriptor and the rest of the unpacker's
//!   configuration, read once per instruction;
//! * [`input`]: the input address generator (header skip, row start index
//!   array, BFP exponent section, first datum, datum count, FIFO wrap) and
//!   the L1 streams of datums, exponents and zero-run counts;
//! * [`crate::format::unpack`]: the format conversion;
//! * [`output`]: the output address generator (upsampling, column shift,
//!   header rows, haloize transpose, `SRCA_SET`/`SRCB_SET` rows) and the
//!   writes to `SrcA`, `SrcB` and `Dst`;
//! * [`handshake`]: the `AllowedClient` handshake with the matrix unit;
//! * [`nop`]: the forms of `UNPACR_NOP`.
//!
//! A fast path for contiguous unpacks (`contiguous.rs`) computes the same as
//! the general loop; [`unpacr_general`] runs without it, for the differential
//! test that guards it. [`program`] builds LLK-style unpack programs for
//! tests and benchmarks.

pub mod context;
mod contiguous;
pub mod descriptor;
mod fields;
pub mod handshake;
pub mod input;
pub mod nop;
pub mod output;
pub mod program;
mod regular;

pub use nop::unpacr_nop;
pub use regular::{unpacr, unpacr_general, UnpacrOp};

/// What one unpacker keeps between instructions (`Unpackers[i]` in
/// `UNPACR_Regular.md`). Its `SrcBank` lives in [`crate::state::SrcReg`]
/// (`unpacker_bank`) beside the banks it selects.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Unpacker {
    /// `ContextCounter[thread]`: the next context for `UseContextCounter`.
    pub context_counter: [u8; crate::regs::THREADS],
    /// `SrcRow[thread]`: the row offset added to `SrcA`/`SrcB` writes.
    pub src_row: [u8; crate::regs::THREADS],
    /// Blackhole's `ImpliedSrcAFmt` / `ImpliedSrcBFmt` per bank
    /// (`SrcASrcB.md`, "Implied data format"), written when the bank is
    /// handed to the matrix unit.
    pub implied_format: [u8; 2],
}

/// What the unpackers remember between instructions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnpackerState {
    pub units: [Unpacker; 2],
}
