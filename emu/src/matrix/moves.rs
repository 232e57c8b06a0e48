//! `MOVA2D` and `MOVB2D`: the Matrix Unit (FPU) copies rows of `SrcA` or
//! `SrcB` into `Dst` (tt-isa-documentation `MOVA2D.md`, `MOVB2D.md`,
//! Wormhole tree; the `MOVA2D` page as of 545c98a, which adds Blackhole's
//! implied `SrcA` format and makes TF32 with `UseDst32bLo` undefined).
//! `MOVB2A` copies rows of `SrcB` into `SrcA` (`MOVB2A.md` as of 1ae1f85,
//! which covers both architectures).
//!
//! Each datum is taken in its hardware order (sign, mantissa, exponent) and
//! narrowed to 16 bits: with an 8-bit exponent the low three mantissa bits
//! go (`RemoveLowMantissa`), otherwise the top three exponent bits go
//! (`RemoveHighExponent`). With the `SrcA` format TF32 the three mantissa
//! bits come back in bits 15:13 of a `Dst32b` write, so all 19 bits of the
//! datum arrive: sign, exponent and ten mantissa bits, which a packer reads
//! as FP32 with the low 13 bits zero. Otherwise the 16 bits go to `Dst16b`.
//!
//! Both instructions use the `SrcA` format, `MOVB2D` too ("not a
//! documentation typo", `MOVB2D.md`). `LaneConfig`'s `BLOCK_DEST_MOV`
//! bits, which skip columns, belong to the Vector Unit (SFPU), whose
//! `SFPCONFIG` is not modelled; they keep their reset value, zero, and
//! every column moves.

use super::addr_mod;
use crate::arch::Arch;
use crate::exec::config_unit::state_of;
use crate::exec::{dst_addressing, Issue};
use crate::fault::{Fault, Result};
use crate::format::{DataFormat, SrcCell};
use crate::isa::{Mova2d, Movb2a, Movb2d};
use crate::machine::Machine;
use crate::regs::{CfgField as C, ThreadCfgField as T};
use crate::state::dst::{adj16, adj32, COLS};
use crate::state::{SrcClient, SrcReg};

/// Which rows a move copies: `count` rows from `src` (stepping by
/// `src_step`) to consecutive rows from `dst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rows {
    src: u32,
    dst: u32,
    count: u32,
    src_step: u32,
    broadcast_col0: bool,
}

/// The `SrcA` formats whose datums keep an 8-bit exponent (`MOVA2D.md`:
/// FP32, TF32, BF16, BFP8, BFP4, BFP2, INT32, INT16; the BFP codes are the
/// B forms, 6, 7 and 15, per `Packers/FormatConversion.md`).
fn has_8b_exponent(code: u32) -> bool {
    use DataFormat as F;
    [
        F::Float32,
        F::Tf32,
        F::Float16B,
        F::Bfp8B,
        F::Bfp4B,
        F::Bfp2B,
        F::Int32,
        F::Int16,
    ]
    .iter()
    .any(|f| u32::from(f.code()) == code)
}

/// `RemoveLowMantissa`: sign, the high seven mantissa bits, the exponent.
fn remove_low_mantissa(hw: u32) -> u16 {
    (((hw & (1 << 18)) >> 3) | ((hw & (0x7f << 11)) >> 3) | (hw & 0xff)) as u16
}

/// `RemoveHighExponent`: sign, the ten mantissa bits, the low five
/// exponent bits.
fn remove_high_exponent(hw: u32) -> u16 {
    (((hw & (1 << 18)) >> 3) | ((hw & (0x3ff << 8)) >> 3) | (hw & 0x1f)) as u16
}

/// Execute `MOVA2D` for `thread`.
pub fn mova2d(m: &mut Machine, thread: usize, i: &Mova2d) -> Result<Issue> {
    let move8 = i.instr_mod & 2 != 0;
    let rows = Rows {
        src: i.src & if move8 { 0x38 } else { 0x3f },
        dst: i.dst,
        count: if move8 { 8 } else { 1 },
        src_step: 1,
        broadcast_col0: false,
    };
    let mask = if move8 { 0x3f8 } else { 0x3ff };
    move_rows(m, thread, 0, rows, mask, i.dest_32b_lo != 0, i.addr_mode)
}

/// Execute `MOVB2D` for `thread` (Wormhole B0: `BroadcastCol0` in bit 0 of
/// its modifier, `Broadcast1RowTo8` in bit 1, `Move4Rows` in bit 2).
pub fn movb2d(m: &mut Machine, thread: usize, i: &Movb2d) -> Result<Issue> {
    if m.arch() == Arch::Blackhole {
        // ttsim reads a 3-bit modifier at bits 13:11 there and takes the
        // format from the one SrcB's bank was unpacked with; no stored page
        // says either.
        return Err(Fault::unimplemented(
            "MOVB2D on Blackhole: its modifier bits and format source are not documented",
        ));
    }
    let (col0, broadcast8, move4) = (
        i.instr_mod & 1 != 0,
        i.instr_mod & 2 != 0,
        i.instr_mod & 4 != 0,
    );
    let (src, count, src_step, mask) = if broadcast8 {
        (i.src & 0x3f, 8, 0, 0x3f8)
    } else if move4 {
        (i.src & 0x3c, 4, 1, 0x3fc)
    } else {
        (i.src & 0x3f, 1, 1, 0x3ff)
    };
    let rows = Rows {
        src,
        dst: i.dst,
        count,
        src_step,
        broadcast_col0: col0,
    };
    move_rows(m, thread, 1, rows, mask, i.dest_32b_lo != 0, i.addr_mode)
}

/// The format the matrix unit takes `SrcA` (`source` 0) or `SrcB` (1) to
/// hold for an instruction of `thread` (in Config state `state`) reading
/// `bank`: the configured one
/// (`ALU_FORMAT_SPEC_REG_Src*_val` when overridden), or on Blackhole the
/// format the unpacker wrote the bank in (`ImpliedSrcAFmt`/`ImpliedSrcBFmt`,
/// `SrcASrcB.md`) unless `DISABLE_IMPLIED_SRC*_FMT_Base` is set.
fn format_of(m: &Machine, thread: usize, state: usize, source: usize, bank: usize) -> u32 {
    let (overridden, value, configured, disable) = if source == 0 {
        (
            C::ALU_FORMAT_SPEC_REG_SrcA_override,
            C::ALU_FORMAT_SPEC_REG_SrcA_val,
            C::ALU_FORMAT_SPEC_REG0_SrcA,
            T::DISABLE_IMPLIED_SRCA_FMT_Base,
        )
    } else {
        (
            C::ALU_FORMAT_SPEC_REG_SrcB_override,
            C::ALU_FORMAT_SPEC_REG_SrcB_val,
            C::ALU_FORMAT_SPEC_REG1_SrcB,
            T::DISABLE_IMPLIED_SRCB_FMT_Base,
        )
    };
    let (tcfg, cfg) = (&m.thread_config, &m.config);
    if m.arch() == Arch::Blackhole && tcfg.get(thread, disable) == 0 {
        return u32::from(m.unpackers.units[source & 1].implied_format[bank & 1]);
    }
    if cfg.get(state, overridden) != 0 {
        cfg.get(state, value)
    } else {
        cfg.get(state, configured)
    }
}

/// Execute `MOVB2A` for `thread` (`MOVB2A.md`): one row, or with
/// `Move4Rows` (modifier bit 1) an aligned block of four, from the matrix
/// unit's `SrcB` bank to its `SrcA` bank. It waits for the matrix unit to
/// own the `SrcB` bank, not the `SrcA` one. Each datum may be flushed (an
/// exponent of zero becomes zero, unless `Zero_Flag_disabled_src`) and is
/// then passed through `TruncateSrc` for the `SrcB` format (on Blackhole the
/// bank's implied format unless `DISABLE_IMPLIED_SRCB_FMT_Base`).
///
/// `TruncateSrc` is named on the page and defined on none stored; TF32 is
/// taken to keep the datum whole (it is the full 19-bit type of
/// `SrcASrcB.md`), and any other format is unimplemented. ttsim
/// (`TENSIX_EXECUTE_MOVB2A`) copies every format unchanged.
pub fn movb2a(m: &mut Machine, thread: usize, i: &Movb2a) -> Result<Issue> {
    let bank_b = m.srcb.matrix_bank & 1;
    if m.srcb.banks[bank_b].allowed_client != SrcClient::MatrixUnit {
        return Ok(Issue::Wait);
    }
    let tcfg = &m.thread_config;
    addr_mod::check_no_op(tcfg, thread, i.addr_mode)?;
    let state = state_of(tcfg, thread);
    let cfg = &m.config;
    let format = format_of(m, thread, state, 1, bank_b);
    if format != u32::from(DataFormat::Tf32.code()) {
        return Err(Fault::unimplemented(format!(
            "MOVB2A with the SrcB format {format}: TruncateSrc, which narrows each datum to \
             it, is defined in no stored page (MOVB2A.md); only TF32 is modelled"
        )));
    }
    let flush = cfg.get(state, C::ALU_ACC_CTRL_Zero_Flag_disabled_src) == 0;
    let (srca, srcb, count) = if i.instr_mod & 2 != 0 {
        (i.srca & 0x3c, i.srcb & 0x3c, 4)
    } else {
        (i.srca & 0x3f, i.srcb & 0x3f, 1)
    };
    let bank_a = m.srca.matrix_bank & 1;
    for k in 0..count {
        let row = m.srcb.banks[bank_b].rows()[(srcb + k) as usize];
        let to = &mut m.srca.banks[bank_a].rows_mut()[(srca + k) as usize];
        for (out, cell) in to.iter_mut().zip(row) {
            // The canonical cell's exponent is bits 17:10 (the hardware
            // order's 7:0, `!(SrcVal & 0xff)`).
            *out = if flush && cell & (0xff << 10) == 0 {
                0
            } else {
                cell
            };
        }
    }
    Ok(Issue::Done)
}

/// The move itself: `source` 0 is `SrcA`, 1 `SrcB`; `dst_mask` aligns the
/// first `Dst` row after the offsets are added.
fn move_rows(
    m: &mut Machine,
    thread: usize,
    source: usize,
    rows: Rows,
    dst_mask: u32,
    use_dst32b_lo: bool,
    addr_mode: u32,
) -> Result<Issue> {
    let reg: &SrcReg = if source == 0 { &m.srca } else { &m.srcb };
    let bank = reg.matrix_bank & 1;
    if reg.banks[bank].allowed_client != SrcClient::MatrixUnit {
        return Ok(Issue::Wait);
    }
    let arch = m.arch();
    let tcfg = &m.thread_config;
    addr_mod::check_no_op(tcfg, thread, addr_mode)?;
    let state = state_of(tcfg, thread);
    let cfg = &m.config;
    // The SrcA format, MOVB2D's too. (Only MOVA2D gets here on Blackhole.)
    let format = format_of(m, thread, state, 0, bank);
    let tf32 = format == u32::from(DataFormat::Tf32.code());
    if use_dst32b_lo && tf32 {
        return Err(Fault::undefined(
            "MOVA2D/MOVB2D with UseDst32bLo and the SrcA format TF32 (MOVA2D.md: Blackhole \
             corrupts the write, erratum TEN-4245)",
        ));
    }
    if use_dst32b_lo {
        // ttsim reads the Dst32b row first and takes a row not valid as zero;
        // the ISA pages say nothing of valid rows here.
        return Err(Fault::unimplemented(
            "MOVA2D/MOVB2D with UseDst32bLo: how it reads back rows not valid is not documented",
        ));
    }
    let eight_bit = tcfg.get(thread, T::FP16A_FORCE_Enable) == 0 && has_8b_exponent(format);
    let flush = cfg.get(state, C::ALU_ACC_CTRL_Zero_Flag_disabled_src) == 0;
    let offset = tcfg.get(thread, T::DEST_TARGET_REG_CFG_MATH_Offset)
        + cfg.get(state, C::DEST_REGW_BASE_Base);
    let first = rows.dst.wrapping_add(offset) & dst_mask;
    let addressing = dst_addressing(cfg, state);

    for k in 0..rows.count {
        let src_row = &reg.banks[bank].rows()[((rows.src + k * rows.src_step) & 0x3f) as usize];
        let mut wide = [0u32; COLS];
        let mut narrow = [0u16; COLS];
        for c in 0..COLS {
            let cell = src_row[if rows.broadcast_col0 { 0 } else { c }];
            let mut hw = SrcCell::from_canonical(cell).hw();
            if flush && hw & 0xff == 0 {
                hw = 0;
            }
            narrow[c] = if eight_bit {
                remove_low_mantissa(hw)
            } else {
                remove_high_exponent(hw)
            };
            if tf32 {
                wide[c] = (u32::from(narrow[c]) << 16) | (((hw >> 8) & 7) << 13);
            }
        }
        let row = (first + k) & 0x3ff;
        // Each write makes its row valid, as the unpackers' writes do
        // (`crate::unpack::output`; ttsim `write_dst32b`/`write_dst16b`).
        if tf32 {
            let s = adj32(arch, addressing, row);
            m.dst.write32_row(s, &wide);
            m.dst.set_valid(s, true);
        } else {
            let s = adj16(arch, addressing, row);
            *m.dst.row_mut(s) = narrow;
            m.dst.set_valid(s, true);
        }
    }
    Ok(Issue::Done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrowing_keeps_the_documented_bits() {
        // Hardware order: sign 18, mantissa 17:8, exponent 7:0.
        let x = (1 << 18) | (0x2a5 << 8) | 0x9c;
        // RemoveLowMantissa: mantissa 0x2a5 >> 3 = 0x54 in 14:8.
        assert_eq!(remove_low_mantissa(x), 0x8000 | (0x54 << 8) | 0x9c);
        // RemoveHighExponent: mantissa whole in 14:5, exponent 0x9c & 0x1f.
        assert_eq!(remove_high_exponent(x), 0x8000 | (0x2a5 << 5) | 0x1c);
        for code in [0, 4, 5, 6, 7, 8, 9, 15] {
            assert!(has_8b_exponent(code), "{code}");
        }
        for code in [1, 2, 3, 10, 11, 14] {
            assert!(!has_8b_exponent(code), "{code}");
        }
    }
}
