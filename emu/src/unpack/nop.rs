//! `UNPACR_NOP`: work sequenced behind earlier `UNPACR`s of the same
//! unpacker. Its forms (tt-isa-documentation, Wormhole tree):
//! * `UNPACR_NOP_ZEROSRC.md`: clear the unpacker's `Src` bank;
//! * `UNPACR_NOP_SETDVALID.md`: give the bank to the matrix unit;
//! * `UNPACR_NOP_SETREG.md`, `UNPACR_NOP_OverlayClear.md`: MMIO writes,
//!   `UnsupportedFunctionality` in the documentation and refused here;
//! * a plain NOP that occupies the unpacker for a cycle.
//!
//! Wormhole B0 selects the form with the low bits of the 23-bit operand
//! (`0b01` ZEROSRC with `NegativeInfSrcA` in bit 2, `BothBanks` in bit 3 and
//! `WaitLikeUnpacr` in bit 4; `0b111` SETDVALID; `0b100` SETREG; `0b000` and
//! `0b011` overlay clear; `0b010` NOP, tt-llk's `UNP_NOP`). Blackhole splits
//! the operand into `unpack_pop` (0 pop, 1 clear, 2 NOP, 3 pop stream),
//! `src_clr_val_ctrl` (0 zero, 1 negative infinity, 2 one, 3 a Config
//! value), `bank_clr_ctrl`, `stall_clr_cntrl`, `clr_to1_fmt_ctrl` and
//! `set_dvalid`, which hands the bank over after the clear (tt-llk
//! `p_unpacr_nop` for Blackhole; ttsim, `TENSIX_EXECUTE_UNPACR_NOP`). The
//! Blackhole pages themselves are not in the stored documentation.

use super::handshake;
use crate::arch::Arch;
use crate::exec::Issue;
use crate::fault::{Fault, Result};
use crate::isa::UnpacrNop;
use crate::machine::Machine;

/// What a cleared bank is filled with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClearValue {
    Zero,
    /// All 19 bits set: negative infinity to the matrix unit.
    NegativeInfinity,
    /// Blackhole `src_clr_val_ctrl` 2, in the format `clr_to1_fmt_ctrl`
    /// names.
    One(u32),
    /// Blackhole `src_clr_val_ctrl` 3: `UNPn_NOP_REG_CLR_VAL`.
    Config,
}

/// One decoded `UNPACR_NOP`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NopOp {
    /// Clear the unpacker's current bank, then on Blackhole optionally give
    /// it to the matrix unit.
    ZeroSrc {
        value: ClearValue,
        both_banks: bool,
        wait_like_unpacr: bool,
        set_dvalid: bool,
    },
    SetDvalid,
    SetReg,
    OverlayClear,
    Nop,
}

impl NopOp {
    /// Decode `i` for `arch`.
    pub fn decode(arch: Arch, i: &UnpacrNop) -> Result<NopOp> {
        match arch {
            Arch::WormholeB0 => {
                let op = i.no_op;
                Ok(match op & 3 {
                    1 => NopOp::ZeroSrc {
                        value: if op & 4 != 0 {
                            ClearValue::NegativeInfinity
                        } else {
                            ClearValue::Zero
                        },
                        both_banks: op & 8 != 0,
                        wait_like_unpacr: op & 16 != 0,
                        set_dvalid: false,
                    },
                    2 => NopOp::Nop,
                    3 if op & 4 != 0 => NopOp::SetDvalid,
                    0 if op & 4 != 0 => NopOp::SetReg,
                    _ => NopOp::OverlayClear,
                })
            }
            Arch::Blackhole => match i.unpack_pop {
                1 => {
                    if i.msg_clr_cnt != 0 || i.stream_id != 0 {
                        return Err(Fault::unimplemented(
                            "UNPACR_NOP clear with msg_clr_cnt or stream_id set: no source \
                             describes the overlay fields in this form",
                        ));
                    }
                    Ok(NopOp::ZeroSrc {
                        value: match i.src_clr_val_ctrl {
                            0 => ClearValue::Zero,
                            1 => ClearValue::NegativeInfinity,
                            2 => ClearValue::One(i.clr_to1_fmt_ctrl),
                            _ => ClearValue::Config,
                        },
                        both_banks: i.bank_clr_ctrl != 0,
                        wait_like_unpacr: i.stall_clr_cntrl != 0,
                        set_dvalid: i.set_dvalid != 0,
                    })
                }
                2 if i.set_dvalid != 0 => Err(Fault::unimplemented(
                    "UNPACR_NOP NOP form with set_dvalid: no source describes it",
                )),
                2 => Ok(NopOp::Nop),
                _ => Ok(NopOp::OverlayClear),
            },
        }
    }
}

/// Execute one `UNPACR_NOP` for `thread`.
pub fn unpacr_nop(m: &mut Machine, thread: usize, i: &UnpacrNop) -> Result<Issue> {
    let unpacker = ((match m.arch() {
        Arch::WormholeB0 => i.unpack_block_selection,
        Arch::Blackhole => i.unpacker_select,
    }) & 1) as usize;
    match NopOp::decode(m.arch(), i)? {
        NopOp::Nop => Ok(Issue::Done),
        NopOp::SetReg => Err(Fault::unsupported(
            "UNPACR_NOP SETREG (MMIO write): UnsupportedFunctionality with no known usage \
             (UNPACR_NOP_SETREG.md)",
        )),
        NopOp::OverlayClear => Err(Fault::unsupported(
            "UNPACR_NOP overlay clear (NoC overlay STREAM_MSG_DATA_CLEAR write): \
             UnsupportedFunctionality with no known usage (UNPACR_NOP_OverlayClear.md)",
        )),
        NopOp::SetDvalid => {
            set_dvalid(m, thread, unpacker);
            Ok(Issue::Done)
        }
        NopOp::ZeroSrc {
            value,
            both_banks,
            wait_like_unpacr,
            set_dvalid: then_set,
        } => {
            if both_banks {
                return Err(Fault::unsupported(
                    "UNPACR_NOP ZEROSRC of both banks: UnsupportedFunctionality, the wait covers one \
                     bank so the other clear races the matrix unit (UNPACR_NOP_ZEROSRC.md)",
                ));
            }
            let cell = clear_cell(m.arch(), unpacker, value)?;
            let s = handshake::src(m, unpacker);
            let wait_bank = if wait_like_unpacr {
                s.unpacker_bank
            } else {
                s.matrix_bank
            };
            if !handshake::unpackers_own(s, wait_bank) {
                return Ok(Issue::Wait);
            }
            handshake::fill_bank(m, unpacker, cell);
            if then_set {
                set_dvalid(m, thread, unpacker);
            }
            Ok(Issue::Done)
        }
    }
}

/// The cell a clear writes (`UNPACR_NOP_ZEROSRC.md`: `~0u` for negative
/// infinity, except on Wormhole B0's `SrcB`, where the bit has no effect).
fn clear_cell(arch: Arch, unpacker: usize, value: ClearValue) -> Result<u32> {
    match value {
        ClearValue::Zero => Ok(0),
        ClearValue::NegativeInfinity if unpacker == 1 && arch == Arch::WormholeB0 => Ok(0),
        ClearValue::NegativeInfinity => Ok(crate::state::src::CELL_MASK),
        ClearValue::One(fmt) => Err(Fault::unimplemented(format!(
            "UNPACR_NOP clear to one (clr_to1_fmt_ctrl {fmt}): no source gives the bit pattern"
        ))),
        ClearValue::Config => Err(Fault::unimplemented(
            "UNPACR_NOP clear to UNPn_NOP_REG_CLR_VAL: no source gives how the 32-bit value \
             becomes a 19-bit cell",
        )),
    }
}

/// `UNPACR_NOP_SETDVALID.md`: no wait; the format recorded on Blackhole is
/// `THCON_SEC[i].REG2_Out_data_format` of the thread's Config state.
fn set_dvalid(m: &mut Machine, thread: usize, unpacker: usize) {
    let state = crate::exec::config_unit::state_of(&m.thread_config, thread);
    let f = &super::fields::UNPACKERS[unpacker];
    let format = m.config.get(state, f.out_data_format) as u8;
    let base = m.thread_config.get(thread, f.src_set_base);
    handshake::give_to_matrix(m, thread, unpacker, format, base);
}
