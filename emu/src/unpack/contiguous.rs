//! A faster route through the main loop for the common case: uncompressed
//! datums (2, 4, 8, 16 or 32 bits, starting on a byte) read from one
//! contiguous L1 range with no FIFO wrap, and written one after another with
//! no upsampling, column shift or transpose, a whole register row of 16 at a
//! time where the output is row-aligned.
//! It computes what the general loop in [`super::regular`] computes (the
//! definition) and declines every other case; `tests/unpack_fast_path.rs`
//! compares the two on random configurations.

use super::descriptor::Settings;
use super::input::InputPlan;
use super::output::{may_straddle_row_63, OutputPlan, Registers, Target};
use crate::fault::Result;
use crate::format::bfp::{bfp8_to_bf16, bfp_datum_to_bfp8};
use crate::format::data_format::{BfpExp, BfpWidth};
use crate::format::dst::{encode_bf16, encode_fp16, encode_fp32};
use crate::format::src_cell::SrcCell;
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
        && matches!(i.datum_bits, 2 | 4 | 8 | 16 | 32)
        && i.datums >= 0
        && i.datums % 8 == 0
        && i.row_stride_bits == i.datum_bits as i64 * i.row_datums as i64
        && s.fifo_size == 0
        && o.upsample_zeroes == 0
        && !o.transpose
        && o.col_shift == 0
        && n != 0
        && n != u32::MAX
        && (i.datums + n as i64 * i.datum_bits as i64 + 7) / 8 <= l1.len() as i64
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
    let job = Job {
        l1,
        start: (i.datums / 8) as usize,
        exps,
        forced_exp: s.forced_shared_exp,
        all_zero,
        conversion,
        o,
        n,
    };
    Some(match i.datum_bits {
        2 => job.run::<2>(r),
        4 => job.run::<4>(r),
        8 => job.run::<8>(r),
        16 => job.run::<16>(r),
        _ => job.run::<32>(r),
    })
}

/// One eligible instruction's datums: `n` of them from byte `start` of `l1`.
struct Job<'a> {
    l1: &'a [u8],
    start: usize,
    /// The exponent section as `16 × byte address + first datum index`
    /// (datum `k`'s exponent is byte `(exps + k) / 16`), for BFP input.
    exps: Option<usize>,
    forced_exp: u8,
    all_zero: bool,
    conversion: Conversion,
    o: &'a OutputPlan,
    n: u32,
}

impl Job<'_> {
    /// Datums one at a time up to the first register row boundary, then a
    /// whole row (16 datums) at a time while rows start on a byte of L1,
    /// then the rest one at a time.
    fn run<const BITS: usize>(&self, r: &mut Registers<'_>) -> Result<()> {
        let n = self.n as usize;
        let mut k = 0;
        while k < n && (self.o.out_addr as usize + k) % 16 != 0 {
            self.one::<BITS>(r, k)?;
            k += 1;
        }
        // A row of 2- or 4-bit datums must start on a byte; otherwise every
        // datum goes alone.
        while k + 16 <= n && (k * BITS) % 8 == 0 {
            let at = self.start + k * BITS / 8;
            let raw = raw_row::<BITS>(&self.l1[at..at + 2 * BITS]);
            let exps = self.row_exponents(k);
            let mut row = [0u32; 16];
            if self.all_zero || convert_row(self.conversion, &raw, &exps, &mut row).is_ok() {
                store_row(r, self.o, self.o.out_addr + k as u32, &row);
            } else {
                // A datum of this row faults: the datums before it are
                // written first, as the general loop writes them.
                for j in 0..16 {
                    self.one::<BITS>(r, k + j)?;
                }
            }
            k += 16;
        }
        while k < n {
            self.one::<BITS>(r, k)?;
            k += 1;
        }
        Ok(())
    }

    /// Datum `k`'s bits, least significant bits first in L1.
    #[inline(always)]
    fn datum<const BITS: usize>(&self, k: usize) -> u32 {
        let l1 = self.l1;
        let at = self.start + k * BITS / 8;
        match BITS {
            2 | 4 => ((l1[at] >> ((k * BITS) % 8)) & ((1 << BITS) - 1)) as u32,
            8 => l1[at] as u32,
            16 => u16::from_le_bytes([l1[at], l1[at + 1]]) as u32,
            _ => u32::from_le_bytes([l1[at], l1[at + 1], l1[at + 2], l1[at + 3]]),
        }
    }

    #[inline(always)]
    fn exponent(&self, k: usize) -> u8 {
        match self.exps {
            Some(e) => self.l1[(e + k) >> 4],
            None => self.forced_exp,
        }
    }

    /// The exponents of datums `k..k + 16`: one byte when they are one BFP
    /// group.
    #[inline(always)]
    fn row_exponents(&self, k: usize) -> [u8; 16] {
        match self.exps {
            Some(e) if (e + k) % 16 != 0 => std::array::from_fn(|j| self.exponent(k + j)),
            _ => [self.exponent(k); 16],
        }
    }

    /// Datum `k` alone, converted and written.
    fn one<const BITS: usize>(&self, r: &mut Registers<'_>, k: usize) -> Result<()> {
        let value = if self.all_zero {
            0
        } else {
            self.conversion
                .apply(self.datum::<BITS>(k), self.exponent(k))?
                .bits()
        };
        store(r, self.o, self.o.out_addr + k as u32, value);
        Ok(())
    }
}

/// The 16 datums of `BITS` bits in `bytes` (`2 × BITS` of them), least
/// significant bits first.
#[inline(always)]
fn raw_row<const BITS: usize>(bytes: &[u8]) -> [u32; 16] {
    let mut raw = [0u32; 16];
    match BITS {
        2 | 4 => {
            let per_byte = 8 / BITS;
            for (j, r) in raw.iter_mut().enumerate() {
                *r = ((bytes[j / per_byte] >> ((j % per_byte) * BITS)) & ((1 << BITS) - 1)) as u32;
            }
        }
        8 => {
            for (r, b) in raw.iter_mut().zip(&bytes[..16]) {
                *r = *b as u32;
            }
        }
        16 => {
            for (r, b) in raw.iter_mut().zip(bytes[..32].chunks_exact(2)) {
                *r = u16::from_le_bytes([b[0], b[1]]) as u32;
            }
        }
        _ => {
            for (r, b) in raw.iter_mut().zip(bytes[..64].chunks_exact(4)) {
                *r = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        }
    }
    raw
}

/// Apply `f` to each of 16 datums: one loop per conversion, which the
/// compiler unrolls and vectorises.
#[inline(always)]
fn each(raw: &[u32; 16], out: &mut [u32; 16], f: impl Fn(u32) -> u32) {
    for (o, x) in out.iter_mut().zip(raw) {
        *o = f(*x);
    }
}

/// BFP datums of `width` with their exponents, expanded by `expand`.
#[inline(always)]
fn each_bfp(
    raw: &[u32; 16],
    exps: &[u8; 16],
    width: BfpWidth,
    out: &mut [u32; 16],
    expand: impl Fn(u16) -> u32,
) {
    for ((o, x), e) in out.iter_mut().zip(raw).zip(exps) {
        *o = expand(bfp8_to_bf16(bfp_datum_to_bfp8(*x as u8, width), *e));
    }
}

/// A row of 16 datums converted as [`Conversion::apply`] converts each
/// (`Err` when one of them faults). The common conversions have their own
/// loops; the rest go datum by datum through `apply`.
#[inline(always)]
fn convert_row(c: Conversion, raw: &[u32; 16], exps: &[u8; 16], out: &mut [u32; 16]) -> Result<()> {
    use Conversion as C;
    match c {
        C::Bf16 { to_dst: false } => each(raw, out, |x| SrcCell::from_bf16(x as u16).canonical()),
        C::Bf16 { to_dst: true } => each(raw, out, |x| encode_bf16(x as u16) as u32),
        C::Fp16 { to_dst: false } => each(raw, out, |x| SrcCell::from_fp16(x as u16).canonical()),
        C::Fp16 { to_dst: true } => each(raw, out, |x| encode_fp16(x as u16) as u32),
        C::Dst32 => each(raw, out, encode_fp32),
        C::Fp32ToTf32Src => each(raw, out, |x| SrcCell::from_fp32_truncated(x).canonical()),
        C::Bfp {
            exp: BfpExp::B,
            width,
            to_dst: false,
        } => each_bfp(raw, exps, width, out, |h| SrcCell::from_bf16(h).canonical()),
        C::Bfp {
            exp: BfpExp::B,
            width,
            to_dst: true,
        } => each_bfp(raw, exps, width, out, |h| encode_bf16(h) as u32),
        _ => {
            for ((o, x), e) in out.iter_mut().zip(raw).zip(exps) {
                *o = c.apply(*x, *e)?.bits();
            }
        }
    }
    Ok(())
}

/// Datum address `addr` of the output: its register row and column.
#[inline(always)]
fn store(r: &mut Registers<'_>, o: &OutputPlan, addr: u32, value: u32) {
    let col = (addr & 15) as usize;
    match o.target {
        Target::SrcA => {
            let row = (addr / 16 - 4 + o.src_row) & 0x3F;
            r.srca.banks[o.bank].rows[row as usize][col] = value;
        }
        Target::SrcB => {
            let row = (addr / 16).wrapping_add(o.src_row) & 0x3F;
            r.srcb.banks[o.bank].rows[row as usize][col] = value;
        }
        Target::Dst16 | Target::Dst32 => {
            let at = dst_row(o, addr / 16);
            if o.target == Target::Dst32 {
                r.dst.write32_at(at, col, value);
            } else {
                r.dst.row_mut(at)[col] = value as u16;
            }
            r.dst.set_valid(at, true);
        }
    }
}

/// A whole register row from datum address `addr` (a multiple of 16), as
/// [`store`] stores each datum.
#[inline(always)]
fn store_row(r: &mut Registers<'_>, o: &OutputPlan, addr: u32, row: &[u32; 16]) {
    match o.target {
        Target::SrcA => {
            let at = (addr / 16 - 4 + o.src_row) & 0x3F;
            r.srca.banks[o.bank].rows[at as usize] = *row;
        }
        Target::SrcB => {
            let at = (addr / 16).wrapping_add(o.src_row) & 0x3F;
            r.srcb.banks[o.bank].rows[at as usize] = *row;
        }
        Target::Dst16 => {
            let at = dst_row(o, addr / 16);
            *r.dst.row_mut(at) = row.map(|v| v as u16);
            r.dst.set_valid(at, true);
        }
        Target::Dst32 => {
            let at = dst_row(o, addr / 16);
            for (col, v) in row.iter().enumerate() {
                r.dst.write32_at(at, col, *v);
            }
            r.dst.set_valid(at, true);
        }
    }
}

/// The `Dst` storage row of output row `row`.
#[inline(always)]
fn dst_row(o: &OutputPlan, row: u32) -> usize {
    let row = row.wrapping_sub(4) & if o.ovrd_with_addr { 15 } else { 0x3FF };
    if o.target == Target::Dst32 {
        adj32(o.arch, o.dst_addressing, row)
    } else {
        adj16(o.arch, o.dst_addressing, row)
    }
}
