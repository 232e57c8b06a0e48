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
//! Where the sources disagree (each also noted at the code):
//! * `SRCA_SET_SetOvrdWithAddr`: one stored version of `UNPACR_Regular.md`
//!   wraps `SrcA` rows modulo 64 (with a note on write bursts that cross row
//!   63) and keeps four row bits for `Dst`; an older one makes `SrcA` rows
//!   past 63 and the `Dst` case undefined; ttsim faults on both on Wormhole
//!   B0 and wraps `SrcA` on Blackhole. The newer page is followed; bursts
//!   that would straddle row 63 are refused as unsupported.
//! * ttsim omits `ADDR_BASE_REG_1_Base`, `DigestSize`, `WDim`, the FIFO wrap,
//!   `SrcRow` and the row wrap of `SrcB`, and stalls even an `UNPACR` with no
//!   datums; the page's model is followed for all of these.
//! * Blackhole reads 32 datums per input row of a 16- or 32-bit format
//!   (ttsim); the page gives 16. It matters in tileize mode and for when the
//!   FIFO wrap is checked.
//! * FP8: ttsim's e4m3 decode and Blackhole's e5m2 all-ones case (confirmed
//!   by the ttsim vectors) fill in what the page does not say.
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
pub mod prepared;
pub mod program;
mod regular;

pub use nop::unpacr_nop;
pub use regular::{unpacr, unpacr_general, unpacr_word, unpacr_words, UnpacrOp};

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
    /// Each unpacker's last preparation.
    pub(crate) prepared: [prepared::PreparedCache; 2],
}

impl UnpackerState {
    /// The reset state, keeping the memory of what is kept between
    /// instructions (a reset is a store to Config and ThreadConfig, so
    /// nothing kept is used again).
    pub fn reset(&mut self) {
        let UnpackerState { units, prepared: _ } = self;
        *units = Default::default();
    }
}
