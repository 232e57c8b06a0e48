//! The Replay Expander: the second stage of each Tensix thread's front end,
//! after the MOP Expander ([`super::mop`]) and before the Wait Gate.
//!
//! A `REPLAY` instruction either records the next `Count` incoming
//! instructions into the thread's 32-entry replay buffer (optionally passing
//! them on as well), or is replaced by `Count` instructions from that buffer.
//! Every other instruction passes through unchanged.
//!
//! Source: tenstorrent/tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/REPLAY.md` (the Blackhole page
//! points at it and says the two are "similar, but not identical"; the
//! differences are not described in any stored revision, so both
//! architectures behave alike here), and `Diagrams/Src/Bits32.lua` for the
//! encoding: opcode 0x04, `Load` `[0]`, `Exec` `[1]`, `Count` `[9:4]` (6 bits),
//! `Index` `[18:14]` (5 bits).
//!
//! Two stored revisions of `REPLAY.md` disagree on `Count = 0`: one expands it
//! to 64 (wrapping the 32-entry buffer twice); the other to 32, adding that
//! counts above 32 are not supported because hardware does not follow the
//! model for them. The second reads as the later correction and is followed
//! here. ttsim rejects `Count = 0` (and counts above 32) as
//! `UnsupportedFunctionality`.

use super::mop::{opcode, OPCODE_MOP, OPCODE_MOP_CFG};
use crate::arch::Arch;
use crate::fault::{Fault, Result};
use crate::isa::{self, Instruction};

/// Opcode of `REPLAY`.
pub const OPCODE_REPLAY: u32 = 0x04;

/// Entries in each thread's replay buffer (`ReplayBuffer = [0] * 32`).
pub const REPLAY_BUFFER_LEN: usize = 32;

/// What the Replay Expander is doing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReplayState {
    /// Passing instructions through and watching for `REPLAY`.
    #[default]
    PassThrough,
    /// Recording: the next `remaining` incoming instructions go to the buffer
    /// from entry `next_slot` on (wrapping modulo 32).
    Loading {
        next_slot: usize,
        remaining: u32,
        execute: bool,
    },
    /// Playing back `remaining` more entries from `next_slot` on (wrapping
    /// modulo 32). Nothing is taken in meanwhile.
    Playing { next_slot: usize, remaining: u32 },
}

/// The Replay Expander of one Tensix thread. Reset state: buffer all zero,
/// passing through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayExpander {
    arch: Arch,
    buffer: [u32; REPLAY_BUFFER_LEN],
    state: ReplayState,
}

impl ReplayExpander {
    pub fn new(arch: Arch) -> ReplayExpander {
        ReplayExpander {
            arch,
            buffer: [0; REPLAY_BUFFER_LEN],
            state: ReplayState::default(),
        }
    }

    /// The replay buffer. It has no address RISC-V can read or write; only
    /// `REPLAY` fills it.
    pub fn buffer(&self) -> &[u32; REPLAY_BUFFER_LEN] {
        &self.buffer
    }

    pub fn state(&self) -> ReplayState {
        self.state
    }

    /// The next instruction this stage emits, pulling incoming instructions
    /// from `upstream` (the MOP Expander's output) only as needed
    /// (`ReplayExpander` in `REPLAY.md`):
    ///
    /// - while playing back, the next buffer entry, without pulling anything;
    /// - while recording, the next incoming instruction is stored at the next
    ///   entry whatever it is (a `REPLAY` included), and emitted too if `Exec`
    ///   was set;
    /// - otherwise a `REPLAY` starts recording or playback (at entry `Index`,
    ///   `Count` entries, wrapping modulo 32) and emits nothing itself;
    ///   anything else is emitted unchanged.
    ///
    /// Instructions that emit nothing (a `REPLAY`, a recorded instruction
    /// without `Exec`) are resolved within the call, so one call emits at most
    /// one instruction. Returns `Ok(None)` when `upstream` has nothing more
    /// and no playback is in progress.
    ///
    /// Faults:
    /// - `Count` above 32, or set bits outside the documented `Count` and
    ///   `Index` fields: `Unsupported` (`REPLAY.md`: hardware does not follow
    ///   the functional model for counts above 32; ttsim rejects both).
    /// - emitting an instruction whose opcode is `REPLAY`, `MOP` or `MOP_CFG`:
    ///   `UndefinedBehavior`. Those execute only at the expanders
    ///   (`REPLAY.md`, `MOPExpander.md`), and the expansion of a `REPLAY`
    ///   cannot contain `MOP` instructions (`MOPExpander.md`); such a word
    ///   would reach the Wait Gate, which does not define them. A `REPLAY`
    ///   can get into the buffer as recorded data; the fault comes when it is
    ///   played back (or passed on by `Exec`). A `MOP` or `MOP_CFG` can reach
    ///   this stage only by a path that bypasses the MOP Expander (RISC-V B's
    ///   pushes, per `MOP.md`).
    ///
    /// With `Load` clear, `Exec` is ignored, as the functional model reads it
    /// only when recording (ttsim rejects the combination as unimplemented).
    pub fn next<F>(&mut self, mut upstream: F) -> Result<Option<u32>>
    where
        F: FnMut() -> Result<Option<u32>>,
    {
        loop {
            if let ReplayState::Playing {
                next_slot,
                remaining,
            } = self.state
            {
                let word = self.buffer[next_slot];
                self.state = if remaining > 1 {
                    ReplayState::Playing {
                        next_slot: (next_slot + 1) % REPLAY_BUFFER_LEN,
                        remaining: remaining - 1,
                    }
                } else {
                    ReplayState::PassThrough
                };
                return emit(word).map(Some);
            }
            let Some(word) = upstream()? else {
                return Ok(None);
            };
            match self.state {
                ReplayState::Loading {
                    next_slot,
                    remaining,
                    execute,
                } => {
                    self.buffer[next_slot] = word;
                    self.state = if remaining > 1 {
                        ReplayState::Loading {
                            next_slot: (next_slot + 1) % REPLAY_BUFFER_LEN,
                            remaining: remaining - 1,
                            execute,
                        }
                    } else {
                        ReplayState::PassThrough
                    };
                    if execute {
                        return emit(word).map(Some);
                    }
                }
                _ if opcode(word) == OPCODE_REPLAY => self.begin(word)?,
                _ => return emit(word).map(Some),
            }
        }
    }

    /// Start recording or playback for the `REPLAY` instruction `word`.
    fn begin(&mut self, word: u32) -> Result<()> {
        let Instruction::Replay(f) = isa::decode(self.arch, word)? else {
            return Err(Fault::invalid_instruction(format!(
                "{word:#010x} is not a REPLAY"
            )));
        };
        // Bits [13:10] and [23:19] belong to no field of REPLAY.md's encoding;
        // ttsim reads Count and Index 10 bits wide and rejects what lands
        // there as UnsupportedFunctionality, and so does this model.
        if let Some(bits @ 1..) = isa::reserved_bits(self.arch, word) {
            return Err(Fault::unsupported(format!(
                "REPLAY {word:#010x} sets bits {bits:#08x}, which REPLAY.md's encoding does not \
                 assign (Count is [9:4], Index is [18:14])"
            )));
        }
        if f.len > REPLAY_BUFFER_LEN as u32 {
            return Err(Fault::unsupported(format!(
                "REPLAY with Count = {} is not supported: REPLAY.md says hardware does not follow \
                 the functional model for counts above 32",
                f.len
            )));
        }
        // `Instruction.Count or 32`.
        let count = if f.len == 0 {
            REPLAY_BUFFER_LEN as u32
        } else {
            f.len
        };
        let next_slot = f.start_idx as usize;
        let (load_mode, execute) = (f.load_mode != 0, f.execute_while_loading != 0);
        self.state = if load_mode {
            ReplayState::Loading {
                next_slot,
                remaining: count,
                execute,
            }
        } else {
            ReplayState::Playing {
                next_slot,
                remaining: count,
            }
        };
        Ok(())
    }
}

fn emit(word: u32) -> Result<u32> {
    let name = match opcode(word) {
        OPCODE_REPLAY => "REPLAY",
        OPCODE_MOP => "MOP",
        OPCODE_MOP_CFG => "MOP_CFG",
        _ => return Ok(word),
    };
    Err(Fault::undefined(format!(
        "{name} instruction {word:#010x} would leave the Replay Expander unexpanded: MOP and \
         MOP_CFG execute only at the MOP Expander, which sits before the Replay Expander \
         (MOPExpander.md), and REPLAY only at the Replay Expander, which does not expand its own \
         output (REPLAY.md); past it, the instruction is undefined"
    )))
}
