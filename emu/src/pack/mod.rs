//! The packer: PACR moves data from Dst to L1.
//!
//! Not modelled yet: PACR stops the run with an `Unimplemented` fault rather
//! than producing bytes.

use crate::fault::{Fault, Result};
use crate::isa::Pacr;
use crate::machine::Machine;

/// Execute one PACR for `thread`.
pub fn pacr(_m: &mut Machine, _thread: usize, _i: &Pacr) -> Result<()> {
    Err(Fault::unimplemented(
        "PACR: the packer data path is not modelled yet",
    ))
}

/// What the packer remember between instructions.
#[derive(Clone, Debug, Default)]
pub struct PackerState {}
