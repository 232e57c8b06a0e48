//! The output address generator and the writes to `SrcA`, `SrcB` and `Dst`
//! (`UNPACR_Regular.md`, "Determine initial output address" and the inner
//! loops of the main loop; `Unpackers/README.md`, "Upsampling").
//!
//! The output address counts datums of the output format: the byte address
//! `Base + Y * Ystride + Z * Zstride + W * Wstride` from channel 1 of the
//! issuing thread's ADCs, halved for 16-bit and quartered for 32-bit output
//! formats. Row `OutAddr / 16`, column `OutAddr % 16`. On unpacker 0 the
//! first four rows are a header that `SrcA` writes skip and `Dst` writes
//! wrap below.

use super::descriptor::Settings;
use crate::arch::Arch;
use crate::fault::{Fault, Result};
use crate::format::DataFormat;
use crate::observe::UnpackCell;
use crate::state::dst::{adj16, adj32, DstAddressing};
use crate::state::{Dst, SrcReg};

/// Where the datums of one instruction go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    SrcA,
    SrcB,
    /// `Dst16b` rows.
    Dst16,
    /// `Dst32b` rows.
    Dst32,
}

/// The output side of one `UNPACR`, fixed before the main loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputPlan {
    pub target: Target,
    /// `OutAddr`, in datums.
    pub out_addr: u32,
    /// `UpsampleZeroes`: output positions after each datum (0, 1, 3 or 7).
    pub upsample_zeroes: u32,
    /// `UpsampleInterleave`: skip those positions rather than write zeroes.
    pub interleave: bool,
    /// `ColShift` (`SrcA` only).
    pub col_shift: u32,
    /// `Transpose` (haloize, `SrcA` only).
    pub transpose: bool,
    /// The `Src` bank the unpacker writes.
    pub bank: usize,
    /// `SrcRow[CurrentThread]`.
    pub src_row: u32,
    /// `SRCA_SET_SetOvrdWithAddr`.
    pub ovrd_with_addr: bool,
    pub dst_addressing: DstAddressing,
    pub arch: Arch,
}

/// Bytes of one output datum as the output address generator counts them:
/// 4 for the 32-bit formats, 2 for the 16-bit ones, 1 for the rest
/// (`UNPACR_Regular.md`, "Determine initial output address").
pub fn datum_bytes(f: DataFormat) -> u32 {
    match f.datum_bits() {
        32 => 4,
        16 => 2,
        _ => 1,
    }
}

/// The four output counters of channel 1 (`ADCs[CurrentThread]`): Y, Z, W.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputCounters {
    pub y: u32,
    pub z: u32,
    pub w: u32,
}

/// What the output side takes from the settings and the operands alone,
/// worked out once per preparation (`UNPACR_Regular.md`, "Determine initial
/// output address" and the compatibility checks, before the counters are
/// read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputBase {
    target: Target,
    /// Bytes per output datum ([`datum_bytes`]).
    bytes: u32,
    /// `MultiContextMode` on unpacker 0: the context's output address is
    /// added (to `Dst`, or with `Add_dest_addr_cntr`) or replaces the
    /// counters' address.
    context_out: Option<(u32, bool)>,
    transpose: bool,
    col_shift: u32,
    /// `UnpackToDst` with a column shift or transpose: undefined.
    dst_shifted: bool,
    upsample_zeroes: u32,
}

impl OutputBase {
    pub fn new(s: &Settings, unpacker: usize, multi_context: bool) -> OutputBase {
        let bytes = datum_bytes(s.out_format);
        let context_out = (multi_context && unpacker == 0)
            .then_some((s.context_out_addr, s.unpack_to_dst || s.add_dest_addr_cntr));
        // Unpacker 1 ignores Haloize_mode on current silicon
        // (UNPACR_Regular.md, NonContractualBehavior; ttsim treats it as
        // unsupported).
        let transpose = s.haloize && unpacker == 0;
        let col_shift = if s.tileize || unpacker == 1 {
            0
        } else {
            s.column_shift
        };
        let target = match (unpacker, s.unpack_to_dst) {
            (1, _) => Target::SrcB,
            (_, false) => Target::SrcA,
            (_, true) if bytes == 4 => Target::Dst32,
            (_, true) => Target::Dst16,
        };
        OutputBase {
            target,
            bytes,
            context_out,
            transpose,
            col_shift,
            dst_shifted: s.unpack_to_dst && (col_shift != 0 || transpose),
            upsample_zeroes: (1u32 << (s.upsample_rate & 3)) - 1,
        }
    }

    /// Whether each datum goes to the next output position: no upsampling,
    /// no transpose, no column shift.
    pub fn one_to_one(&self) -> bool {
        self.upsample_zeroes == 0 && !self.transpose && self.col_shift == 0
    }
}

/// Plan the output side (`UNPACR_Regular.md`, "Determine initial output
/// address" and the compatibility checks) from the settings `s`, what they
/// and the operands decide alone (`b`, made from `s`), and the counters.
#[inline(always)]
pub fn plan(
    s: &Settings,
    b: &OutputBase,
    c: OutputCounters,
    bank: usize,
    src_row: u32,
    dst_addressing: DstAddressing,
) -> Result<OutputPlan> {
    let mut out = s
        .out_base
        .wrapping_add(c.y.wrapping_mul(s.out_ystride))
        .wrapping_add(c.z.wrapping_mul(s.out_zstride))
        .wrapping_add(c.w.wrapping_mul(s.out_wstride));
    // A power of two: the alignment is a mask and the division a shift.
    let bytes = b.bytes;
    if out & (bytes - 1) != 0 {
        return Err(Fault::undefined(format!(
            "UNPACR output byte address {out:#x} is not {bytes}-byte aligned for {} \
             (UNPACR_Regular.md: OutAddr & {})",
            s.out_format,
            bytes - 1
        )));
    }
    out >>= bytes.trailing_zeros();
    match b.context_out {
        Some((context_addr, true)) => out = out.wrapping_add(context_addr),
        Some((context_addr, false)) => out = context_addr,
        None => {}
    }
    if b.dst_shifted {
        return Err(Fault::undefined(
            "UNPACR to Dst with a column shift or haloize transpose \
             (UNPACR_Regular.md: UnpackToDst && (ColShift || Transpose))",
        ));
    }
    Ok(OutputPlan {
        target: b.target,
        out_addr: out,
        upsample_zeroes: b.upsample_zeroes,
        interleave: s.upsample_interleave,
        col_shift: b.col_shift,
        transpose: b.transpose,
        bank,
        src_row,
        ovrd_with_addr: s.set_ovrd_with_addr,
        dst_addressing,
        arch: s.arch,
    })
}

/// The registers an instruction writes.
pub struct Registers<'a> {
    pub srca: &'a mut SrcReg,
    pub srcb: &'a mut SrcReg,
    pub dst: &'a mut Dst,
}

/// The output side while the main loop runs.
#[derive(Clone, Copy, Debug)]
pub struct OutputStream {
    plan: OutputPlan,
    /// The first `SrcA` row written, before wrapping, for the burst check.
    first_srca_row: Option<u32>,
    /// The register cell the last datum went to (for an observer).
    pub last: Option<crate::observe::UnpackCell>,
}

impl OutputStream {
    pub fn new(plan: OutputPlan) -> OutputStream {
        OutputStream {
            plan,
            first_srca_row: None,
            last: None,
        }
    }

    /// Write `value` (a canonical `Src` cell, a `DstBits` cell or a `Dst32b`
    /// value, as the target takes) and the upsampling positions after it.
    #[inline]
    pub fn emit(&mut self, r: &mut Registers<'_>, value: u32) -> Result<()> {
        let mut v = value;
        self.last = None;
        for k in 0..=self.plan.upsample_zeroes {
            if !(self.plan.interleave && k != 0) {
                self.write(r, v)?;
            }
            v = 0;
            self.plan.out_addr = self.plan.out_addr.wrapping_add(1);
        }
        Ok(())
    }

    #[inline]
    fn write(&mut self, r: &mut Registers<'_>, value: u32) -> Result<()> {
        let p = self.plan;
        let row = p.out_addr / 16;
        let col = p.out_addr & 15;
        match p.target {
            Target::SrcB => {
                let row = row.wrapping_add(p.src_row) & 0x3F;
                r.srcb.banks[p.bank].rows_mut()[row as usize][col as usize] = value;
                self.first_cell(UnpackCell::SrcB {
                    bank: p.bank as u8,
                    row,
                    col,
                });
            }
            Target::SrcA => {
                if row < 4 || col < p.col_shift {
                    return Ok(());
                }
                let row = row - 4;
                let col = col - p.col_shift;
                let mut row = if p.ovrd_with_addr {
                    let unwrapped = row.wrapping_add(p.src_row);
                    self.check_burst(unwrapped)?;
                    unwrapped & 0x3F
                } else {
                    if row >= 16 {
                        return Err(Fault::undefined(format!(
                            "UNPACR writes SrcA row {row} past the header without SRCA_SET_SetOvrdWithAddr \
                             (UNPACR_Regular.md: Row >= 16)"
                        )));
                    }
                    let row = row + p.src_row;
                    if row >= 64 {
                        return Err(Fault::undefined(format!(
                            "UNPACR writes SrcA row {row}, past row 63, with SrcRow {} \
                             (UNPACR_Regular.md: SrcA has 64 rows)",
                            p.src_row
                        )));
                    }
                    row
                };
                let mut col = col;
                if p.transpose {
                    let low = row & 15;
                    row = (row & !15) | col;
                    col = low;
                }
                r.srca.banks[p.bank].rows_mut()[row as usize][col as usize] = value;
                self.first_cell(UnpackCell::SrcA {
                    bank: p.bank as u8,
                    row,
                    col,
                });
            }
            Target::Dst16 | Target::Dst32 => {
                // UNPACR_Regular.md: `Row -= 4`, then 10 bits of row. With
                // SRCA_SET_SetOvrdWithAddr one version of the page says
                // `Row &= 15` and an older one calls the mode undefined
                // ("likely Row &= 0x3CF"); ttsim faults. The newer page is
                // followed.
                let row = row.wrapping_sub(4) & if p.ovrd_with_addr { 15 } else { 0x3FF };
                let wide = p.target == Target::Dst32;
                if wide {
                    let s = adj32(p.arch, p.dst_addressing, row);
                    r.dst.write32_at(s, col as usize, value);
                    r.dst.set_valid(s, true);
                } else {
                    let s = adj16(p.arch, p.dst_addressing, row);
                    r.dst.row_mut(s)[col as usize] = value as u16;
                    r.dst.set_valid(s, true);
                }
                self.first_cell(UnpackCell::Dst { row, col, wide });
            }
        }
        Ok(())
    }

    /// `OutAddr`: where the next datum goes, in datums.
    pub fn out_addr(&self) -> u32 {
        self.plan.out_addr
    }

    /// Note the cell a datum (not an upsampling zero after it) went to.
    #[inline]
    fn first_cell(&mut self, cell: UnpackCell) {
        if self.last.is_none() {
            self.last = Some(cell);
        }
    }

    /// Refuse a `SrcA` write that [`may_straddle_row_63`].
    fn check_burst(&mut self, unwrapped: u32) -> Result<()> {
        let first = *self.first_srca_row.get_or_insert(unwrapped);
        if may_straddle_row_63(first, unwrapped) {
            return Err(Fault::unsupported(format!(
                "UNPACR's SrcA writes run from row {first} past row 63; silicon drops or wraps them \
                 depending on write-burst boundaries, which this emulator does not model \
                 (UNPACR_Regular.md, SetOvrdWithAddr burst note)"
            )));
        }
        Ok(())
    }
}

/// Whether an instruction whose `SrcA` writes (with `SetOvrdWithAddr`,
/// before the wrap) start at row `first` may, by row `row`, have a write
/// burst that straddles row 63. Rows past 63 wrap to row 0 when a burst
/// starts past row 63, but are dropped when a burst that started at or
/// below row 63 runs past it (UNPACR_Regular.md, `SetOvrdWithAddr`). Bursts
/// are up to 8 rows, so starting on a multiple of 8 no burst straddles row
/// 63; otherwise the burst boundaries depend on the throttle mode, which is
/// not modelled.
#[inline]
pub(super) fn may_straddle_row_63(first: u32, row: u32) -> bool {
    row >= 64 && first < 64 && !first.is_multiple_of(8)
}
