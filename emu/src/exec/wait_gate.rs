//! The Wait Gate: where a thread's instructions wait behind a latched
//! `STALLWAIT` or `SEMWAIT` (tt-isa-documentation `STALLWAIT.md`,
//! `SEMWAIT.md`, both trees).
//!
//! This emulator executes each instruction to completion in the step that
//! issues it, so every "an instruction is still in unit X's pipeline"
//! condition is met at once. The conditions that can hold a thread are the
//! SrcA/SrcB `AllowedClient` ones and the semaphore ones.

use crate::arch::Arch;
use crate::isa::Opcode;
use crate::state::{SrcClient, SrcReg};

/// Block-mask bits (`STALLWAIT.md`, "Block mask").
pub mod block {
    /// Miscellaneous unit, mover, scalar unit, packer and unpacker.
    pub const B0: u16 = 1 << 0;
    pub const SYNC: u16 = 1 << 1;
    pub const PACKER: u16 = 1 << 2;
    pub const UNPACKER: u16 = 1 << 3;
    pub const MOVER: u16 = 1 << 4;
    pub const SCALAR: u16 = 1 << 5;
    pub const MATRIX: u16 = 1 << 6;
    pub const CONFIG: u16 = 1 << 7;
    pub const VECTOR: u16 = 1 << 8;
    pub const ALL: u16 = 0x1ff;
}

/// The block-mask bits any of which holds `opcode` at a latched wait
/// (`STALLWAIT.md`, the per-instruction table).
pub fn blocked_by(opcode: Opcode) -> u16 {
    use block::*;
    use Opcode::*;
    match opcode {
        Adddmareg | Atcas | Atincget | Atincgetptr | Atswap | Bitwopdmareg | Cmpdmareg | Dmanop
        | Flushdma | Loadind | Loadreg | Muldmareg | Reg2flop | Setdmareg | Shiftdmareg
        | Storeind | Storereg | Subdmareg => B0 | SCALAR,
        Addrcrxy | Addrcrzw | Incadcxy | Incadczw | Setadc | Setadcxx | Setadcxy | Setadczw
        | Setdvalid | Rstdma => B0,
        Pacr | PacrSetreg => B0 | PACKER,
        Unpacr | UnpacrNop => B0 | UNPACKER,
        Xmov => B0 | MOVER,
        Atgetm | Atrelm | Semget | Seminit | Sempost => SYNC,
        // Blackhole STALLWAIT.md: a wait instruction is held by every block
        // bit, so a new wait never replaces a latched one. The Wormhole B0
        // STALLWAIT.md and SEMWAIT.md instead hold SEMWAIT only by B1 and let
        // it replace a latched wait; this model applies the Blackhole rule to
        // both architectures (not yet split per arch).
        Stallwait | Semwait | Streamwait => ALL,
        Cfgshiftmask | Rdcfg | Rmwcib0 | Rmwcib1 | Rmwcib2 | Rmwcib3 | Setc16 | Streamwrcfg
        | Wrcfg => CONFIG,
        // NOP is held only when every block bit is set.
        Nop => 0,
        other if other.mnemonic().starts_with("SFP") => VECTOR,
        // Everything else executes on the matrix unit (FPU).
        _ => MATRIX,
    }
}

/// The block mask a wait instruction latches from its 9-bit `BlockMask`
/// field: the field, or B6 alone when it is zero (`STALLWAIT.md` and
/// `SEMWAIT.md`, functional models, both trees).
pub fn latched_block_mask(field: u32) -> u16 {
    match field & block::ALL as u32 {
        0 => block::MATRIX,
        mask => mask as u16,
    }
}

/// A latched wait instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LatchedWait {
    Stall {
        conditions: u16,
        block: u16,
    },
    Semaphore {
        conditions: u8,
        semaphores: u8,
        block: u16,
    },
}

impl LatchedWait {
    pub fn block_mask(self) -> u16 {
        match self {
            LatchedWait::Stall { block, .. } | LatchedWait::Semaphore { block, .. } => block,
        }
    }

    /// Whether `opcode` may not pass while this wait is latched.
    pub fn holds(self, opcode: Opcode) -> bool {
        let mask = self.block_mask();
        match opcode {
            Opcode::Nop => mask & block::ALL == block::ALL,
            _ => blocked_by(opcode) & mask != 0,
        }
    }
}

/// What the wait conditions can observe.
pub struct Observed<'a> {
    pub arch: Arch,
    pub srca: &'a SrcReg,
    pub srcb: &'a SrcReg,
    pub semaphores: &'a super::sync_unit::Semaphores,
}

/// Whether every selected condition of `wait` is met.
pub fn conditions_met(wait: LatchedWait, seen: &Observed<'_>) -> bool {
    match wait {
        LatchedWait::Stall { conditions, .. } => {
            // The AllowedClient conditions are C5..C8 on Blackhole and C8..C11
            // on Wormhole B0 (STALLWAIT.md, "Condition mask", both trees).
            let first = match seen.arch {
                Arch::Blackhole => 5,
                Arch::WormholeB0 => 8,
            };
            let waiting = [
                seen.srca.unpacker_side_client() != SrcClient::Unpackers,
                seen.srcb.unpacker_side_client() != SrcClient::Unpackers,
                seen.srca.matrix_side_client() != SrcClient::MatrixUnit,
                seen.srcb.matrix_side_client() != SrcClient::MatrixUnit,
            ];
            !waiting
                .iter()
                .enumerate()
                .any(|(i, w)| *w && conditions & (1 << (first + i)) != 0)
        }
        LatchedWait::Semaphore {
            conditions,
            semaphores,
            ..
        } => (0..8).filter(|i| semaphores & (1 << i) != 0).all(|i| {
            let s = seen.semaphores.get(i);
            !(conditions & 1 != 0 && s.value == 0 || conditions & 2 != 0 && s.value >= s.max)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// STALLWAIT.md / SEMWAIT.md: `BlockMask ? BlockMask : (1u << 6)`.
    #[test]
    fn a_zero_block_mask_latches_b6() {
        assert_eq!(latched_block_mask(0), 0x040);
        assert_eq!(latched_block_mask(0x080), 0x080);
        assert_eq!(latched_block_mask(0x1ff), 0x1ff);
    }
}
