//! A thread's front end between its instruction queue and the Wait Gate:
//! the MOP Expander, then the Replay Expander (tt-isa-documentation
//! `MOPExpander.md`; `REPLAY.md`: "The Replay Expander sits ... after the MOP
//! Expander and before the Wait Gate").

use super::mop::{MopExpander, MOP_CFG_LEN};
use super::replay::{ReplayExpander, ReplayState};
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

    /// The next word for the Wait Gate, pulling the thread's queued words from
    /// `fetch` only when both expanders have nothing of their own to emit.
    /// `Ok(None)`: nothing to emit until `fetch` has more.
    pub fn next(&mut self, mut fetch: impl FnMut() -> Option<u32>) -> Result<Option<u32>> {
        let mop = &mut self.mop;
        self.replay.next(|| mop.next(|| Ok(fetch())))
    }

    /// Whether an expansion or a playback is under way.
    pub fn is_busy(&self) -> bool {
        self.mop.is_expanding() || matches!(self.replay.state(), ReplayState::Playing { .. })
    }
}
