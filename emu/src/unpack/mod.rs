//! The unpackers: UNPACR moves data from L1 to SrcA, SrcB or Dst.
//!
//! Not modelled yet: UNPACR and UNPACR_NOP stop the run with an
//! `Unimplemented` fault rather than producing values.

use crate::exec::Issue;
use crate::fault::{Fault, Result};
use crate::isa::{Unpacr, UnpacrNop};
use crate::machine::Machine;

/// Execute one UNPACR for `thread`.
pub fn unpacr(_m: &mut Machine, _thread: usize, _i: &Unpacr) -> Result<Issue> {
    Err(Fault::unimplemented(
        "UNPACR: the unpacker data path is not modelled yet",
    ))
}

/// Execute one UNPACR_NOP for `thread`.
pub fn unpacr_nop(_m: &mut Machine, _thread: usize, _i: &UnpacrNop) -> Result<Issue> {
    Err(Fault::unimplemented(
        "UNPACR_NOP: the unpacker data path is not modelled yet",
    ))
}

/// What the unpackers remember between instructions.
#[derive(Clone, Debug, Default)]
pub struct UnpackerState {}
