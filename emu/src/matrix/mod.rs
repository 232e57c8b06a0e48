//! The Matrix Unit (FPU), as far as the pack/unpack data paths need it:
//! the moves from `SrcA`/`SrcB` into `Dst` ([`moves`]) that hand unpacked
//! data to the packers without arithmetic. Its arithmetic instructions are
//! not modelled and fault `Unimplemented`.
//!
//! The unit's read-write counters (RWCs) are not modelled either. Every
//! instruction that can change them (`SETRWC`, `INCRWC`, the arithmetic
//! instructions, and an address modifier that is not all zero) faults
//! before it changes anything, so in a run the emulator completes they hold
//! their reset value, zero (`RWCs.md`), and the moves add nothing for them.

pub mod addr_mod;
pub mod moves;
