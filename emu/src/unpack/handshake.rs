//! The `SrcA`/`SrcB` handshake between the unpackers and the matrix unit
//! (`SrcASrcB.md`, "AllowedClient"; `UNPACR_Regular.md`, `FlipSrc`;
//! `UNPACR_NOP_SETDVALID.md`; `UNPACR_NOP_ZEROSRC.md`; `CLEARDVALID.md`).
//!
//! Each bank has an `AllowedClient`. An unpacker writes only a bank the
//! unpackers own and waits otherwise; handing a bank to the matrix unit
//! (`SetDatValid`) flips the unpacker to its other bank. The matrix unit
//! hands banks back with `CLEARDVALID`.

use super::UnpackerState;
use crate::arch::Arch;
use crate::machine::Machine;
use crate::state::{SrcClient, SrcReg};

/// `SrcA` for unpacker 0, `SrcB` for unpacker 1.
pub fn src(m: &Machine, unpacker: usize) -> &SrcReg {
    if unpacker == 0 {
        &m.srca
    } else {
        &m.srcb
    }
}

fn src_mut(m: &mut Machine, unpacker: usize) -> &mut SrcReg {
    if unpacker == 0 {
        &mut m.srca
    } else {
        &mut m.srcb
    }
}

/// Whether the unpackers own `bank` of the unpacker's register.
pub fn unpackers_own(src: &SrcReg, bank: usize) -> bool {
    src.banks[bank & 1].allowed_client == SrcClient::Unpackers
}

/// Whether the bank the unpacker writes is the unpackers' (the wait in the
/// main loop of `UNPACR_Regular.md`).
pub fn may_write(m: &Machine, unpacker: usize) -> bool {
    let s = src(m, unpacker);
    unpackers_own(s, s.unpacker_bank)
}

/// Give the unpacker's current bank to the matrix unit, switch the unpacker
/// to its other bank and reset its `SrcRow` for `thread` to
/// `SRCA_SET_Base << 4` / `SRCB_SET_Base << 4` (`FlipSrc` in
/// `UNPACR_Regular.md`; `UNPACR_NOP_SETDVALID.md`). On Blackhole the bank
/// also records `format` as its implied format.
pub fn give_to_matrix(m: &mut Machine, thread: usize, unpacker: usize, format: u8, base: u32) {
    let arch = m.arch();
    let s = src_mut(m, unpacker);
    let bank = s.unpacker_bank & 1;
    s.banks[bank].allowed_client = SrcClient::MatrixUnit;
    s.unpacker_bank = bank ^ 1;
    let unit = &mut m.unpackers.units[unpacker & 1];
    if arch == Arch::Blackhole {
        unit.implied_format[bank] = format & 0xF;
    }
    if let Some(r) = unit.src_row.get_mut(thread) {
        *r = ((base & 3) << 4) as u8;
    }
}

/// `CLEARDVALID` (`CLEARDVALID.md`, without `Reset`): give the matrix unit's
/// current `SrcA` and/or `SrcB` bank back to the unpackers and, unless
/// `keep_reading_same_src`, switch the matrix unit to its other bank.
pub fn clear_dvalid(
    m: &mut Machine,
    flip_srca: bool,
    flip_srcb: bool,
    keep_reading_same_src: bool,
) {
    for (flip, s) in [(flip_srca, &mut m.srca), (flip_srcb, &mut m.srcb)] {
        if flip {
            let bank = s.matrix_bank & 1;
            s.banks[bank].allowed_client = SrcClient::Unpackers;
            if !keep_reading_same_src {
                s.matrix_bank = bank ^ 1;
            }
        }
    }
}

/// Fill the unpacker's current bank with `cell` (`UNPACR_NOP_ZEROSRC.md`,
/// one bank).
pub fn fill_bank(m: &mut Machine, unpacker: usize, cell: u32) {
    let s = src_mut(m, unpacker);
    let bank = s.unpacker_bank & 1;
    for row in s.banks[bank].rows_mut().iter_mut() {
        row.fill(cell & crate::state::src::CELL_MASK);
    }
}

/// `SrcRow[thread] += 16 + SrcRowBase` (`Unpack_Src_Reg_Set_Upd`), kept to
/// the six bits that address a bank.
pub fn advance_src_row(state: &mut UnpackerState, thread: usize, unpacker: usize, base: u32) {
    if let Some(r) = state.units[unpacker & 1].src_row.get_mut(thread) {
        *r = ((*r as u32 + 16 + ((base & 3) << 4)) & 0x3F) as u8;
    }
}

/// Execute `CLEARDVALID` (`CLEARDVALID.md`). Its encoding packs
/// `FlipSrcB << 1 | FlipSrcA` into bits 23:22 and
/// `KeepReadingSameSrc << 1 | Reset` into bits 1:0. `Reset` is
/// `UnsupportedFunctionality` there (it drops banks, tt-metal issue 22383).
pub fn cleardvalid(m: &mut Machine, i: &crate::isa::Cleardvalid) -> crate::fault::Result<()> {
    if i.reset & 1 != 0 {
        return Err(crate::fault::Fault::unsupported(
            "CLEARDVALID with Reset: UnsupportedFunctionality, it drops SrcA/SrcB banks \
             (CLEARDVALID.md)",
        ));
    }
    clear_dvalid(
        m,
        i.cleardvalid & 1 != 0,
        i.cleardvalid & 2 != 0,
        i.reset & 2 != 0,
    );
    Ok(())
}
