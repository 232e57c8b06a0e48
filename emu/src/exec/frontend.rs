//! A thread's front end between its instruction queue and the Wait Gate:
//! the MOP Expander, then the Replay Expander (tt-isa-documentation
//! `MOPExpander.md`; `REPLAY.md`: "The Replay Expander sits ... after the MOP
//! Expander and before the Wait Gate").

use super::mop::{opcode, MopExpander, MOP_CFG_LEN, OPCODE_MOP, OPCODE_MOP_CFG};
use super::replay::{ReplayExpander, ReplayState, OPCODE_REPLAY};
use crate::arch::Arch;
use crate::fault::Result;

/// Per-thread front-end state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontEnd {
    mop: MopExpander,
    replay: ReplayExpander,
}

impl FrontEnd {
    pub fn new(arch: Arch) -> FrontEnd {
        FrontEnd {
            mop: MopExpander::new(arch),
            replay: ReplayExpander::new(arch),
        }
    }

    /// Set MOP configuration word `index` (0..9); `false` outside that range.
    pub fn set_mop_config(&mut self, index: usize, value: u32) -> bool {
        index < MOP_CFG_LEN && self.mop.set_config(index, value).is_ok()
    }

    /// Whether neither expander holds anything, so the next queued word is
    /// the next word for the Wait Gate unless it is itself `MOP`, `MOP_CFG`
    /// or `REPLAY`.
    #[inline]
    pub fn passes_through(&self) -> bool {
        self.mop.is_idle() && self.replay.state() == ReplayState::PassThrough
    }

    /// The next word for the Wait Gate, pulling the thread's queued words from
    /// `fetch` only when both expanders have nothing of their own to emit.
    /// `Ok(None)`: nothing to emit until `fetch` has more.
    #[inline]
    pub fn next(&mut self, mut fetch: impl FnMut() -> Option<u32>) -> Result<Option<u32>> {
        if self.passes_through() {
            // Neither expander holds anything: both take the next queued
            // word, and one that neither acts on passes both unchanged.
            let Some(word) = fetch() else {
                return Ok(None);
            };
            if !matches!(opcode(word), OPCODE_MOP | OPCODE_MOP_CFG | OPCODE_REPLAY) {
                return Ok(Some(word));
            }
            let mut first = Some(word);
            return self.expand(|| first.take().or_else(&mut fetch));
        }
        self.expand(fetch)
    }

    /// The next word through the MOP Expander and then the Replay Expander.
    #[inline(never)]
    fn expand(&mut self, mut fetch: impl FnMut() -> Option<u32>) -> Result<Option<u32>> {
        let mop = &mut self.mop;
        self.replay.next(|| mop.next(|| Ok(fetch())))
    }
}
