//! A thread's front end between its instruction queue and the Wait Gate:
//! the MOP expander, then the REPLAY expander (tt-isa-documentation
//! `REPLAY.md`: "The Replay Expander sits ... after the MOP Expander and
//! before the Wait Gate").

use crate::arch::Arch;
use crate::fault::{Fault, Result};

/// What the front end did with one incoming word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ingest {
    /// The word passes on to the Wait Gate.
    Forward(u32),
    /// The word was consumed (MOP, MOP_CFG, REPLAY, or loaded into the
    /// replay buffer without executing).
    Absorbed,
}

/// Per-thread front-end state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontEnd {
    arch: Arch,
    mop_config: [u32; 9],
}

impl FrontEnd {
    pub fn new(arch: Arch) -> FrontEnd {
        FrontEnd {
            arch,
            mop_config: [0; 9],
        }
    }

    pub fn set_mop_config(&mut self, index: usize, value: u32) -> bool {
        match self.mop_config.get_mut(index) {
            Some(w) => {
                *w = value;
                true
            }
            None => false,
        }
    }

    /// A word the front end produces by itself (MOP expansion or replay
    /// playback), if it is producing any.
    pub fn produce(&mut self) -> Option<Result<Ingest>> {
        None
    }

    /// Take in one word from the thread's program.
    pub fn ingest(&mut self, word: u32) -> Result<Ingest> {
        match word >> 24 {
            0x01 | 0x03 | 0x04 => Err(Fault::unimplemented(format!(
                "{}: MOP and REPLAY expansion are not modelled yet",
                self.arch
            ))),
            _ => Ok(Ingest::Forward(word)),
        }
    }
}
