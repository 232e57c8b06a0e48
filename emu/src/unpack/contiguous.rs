//! A faster route through the main loop for the common case: uncompressed
//! whole-byte datums read from one contiguous L1 range with no FIFO wrap, and
//! written one after another with no upsampling, column shift or transpose.
//! It computes what the general loop in [`super::regular`] computes (the
//! definition) and declines every other case; `tests/unpack_fast_path.rs`
//! compares the two on random configurations.

use super::descriptor::Settings;
use super::input::InputPlan;
use super::output::{may_straddle_row_63, OutputPlan, Registers, Target};
use crate::fault::Result;
use crate::format::unpack::Conversion;
use crate::state::dst::{adj16, adj32};

/// Run the main loop if this instruction is the contiguous case; `None`
/// (having done nothing) otherwise.
pub(super) fn try_run(
    r: &mut Registers<'_>,
    l1: &[u8],
    s: &Settings,
    all_zero: bool,
    conversion: Conversion,
    i: &InputPlan,
    o: &OutputPlan,
) -> Option<Result<()>> {
    let n = i.input_datums;
    // Uncompressed (no zero-run stream, hence no DecompressDrop either).
    let eligible = i.deltas.is_none()
        && matches!(i.datum_bits, 8 | 16 | 32)
        && i.datums >= 0
        && i.datums % 8 == 0
        && i.row_stride_bits == i.datum_bits as i64 * i.row_datums as i64
        && s.fifo_size == 0
        && o.upsample_zeroes == 0
        && !o.transpose
        && o.col_shift == 0
        && n != 0
        && n != u32::MAX
        && i.datums + n as i64 * i.datum_bits as i64 <= l1.len() as i64 * 8
        && (o.out_addr as u64 + n as u64) < u32::MAX as u64;
    if !eligible {
        return None;
    }
    let exps = if s.in_format.is_bfp() && !s.force_shared_exp {
        let e = i.exponents?;
        if e < 0 || (e + n as i64 - 1) / 16 >= l1.len() as i64 {
            return None;
        }
        Some(e as usize)
    } else {
        None
    };
    if o.target == Target::SrcA {
        let first = o.out_addr / 16;
        let last = (o.out_addr + n - 1) / 16;
        if !o.ovrd_with_addr || first < 4 {
            return None;
        }
        if may_straddle_row_63(first - 4 + o.src_row, last - 4 + o.src_row) {
            return None;
        }
    }
    let start = (i.datums / 8) as usize;
    Some(match i.datum_bits {
        8 => run::<1>(r, l1, start, exps, s, all_zero, conversion, o, n),
        16 => run::<2>(r, l1, start, exps, s, all_zero, conversion, o, n),
        _ => run::<4>(r, l1, start, exps, s, all_zero, conversion, o, n),
    })
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn run<const BYTES: usize>(
    r: &mut Registers<'_>,
    l1: &[u8],
    start: usize,
    exps: Option<usize>,
    s: &Settings,
    all_zero: bool,
    conversion: Conversion,
    o: &OutputPlan,
    n: u32,
) -> Result<()> {
    let data = &l1[start..start + n as usize * BYTES];
    for (k, d) in data.chunks_exact(BYTES).enumerate() {
        let addr = o.out_addr + k as u32;
        let bits = match BYTES {
            1 => d[0] as u32,
            2 => u16::from_le_bytes([d[0], d[1]]) as u32,
            _ => u32::from_le_bytes([d[0], d[1], d[2], d[3]]),
        };
        let exp = match exps {
            Some(e) => l1[(e + k) >> 4],
            None => s.forced_shared_exp,
        };
        let value = if all_zero {
            0
        } else {
            conversion.apply(bits, exp)?.bits()
        };
        let row = addr / 16;
        let col = (addr & 15) as usize;
        match o.target {
            Target::SrcA => {
                let row = (row - 4 + o.src_row) & 0x3F;
                r.srca.banks[o.bank].rows[row as usize][col] = value;
            }
            Target::SrcB => {
                let row = row.wrapping_add(o.src_row) & 0x3F;
                r.srcb.banks[o.bank].rows[row as usize][col] = value;
            }
            Target::Dst16 | Target::Dst32 => {
                let row = row.wrapping_sub(4) & if o.ovrd_with_addr { 15 } else { 0x3FF };
                if o.target == Target::Dst32 {
                    let at = adj32(o.arch, o.dst_addressing, row);
                    r.dst.write32_at(at, col, value);
                    r.dst.set_valid(at, true);
                } else {
                    let at = adj16(o.arch, o.dst_addressing, row);
                    r.dst.row_mut(at)[col] = value as u16;
                    r.dst.set_valid(at, true);
                }
            }
        }
    }
    Ok(())
}
