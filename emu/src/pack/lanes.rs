//! The early conversions whose results are BF16-shaped (sign, 8-bit
//! exponent, 7 mantissa bits, or 6 with bit 0 clear), worked out on a whole
//! `Dst` row in 16-bit lanes; and, two rows at a time by AVX-512 only, the
//! FP16 ones with their BFP "a" elements.
//!
//! A BF16-shaped intermediate is its own BFP "b" element (the element keeps
//! 7 mantissa bits, so `e8_narrow` changes nothing) and its own BF16 output.
//! Each lane rule below is a branch-free restatement of a per-datum
//! definition in [`crate::format::pack`] (`bf16_round`,
//! `bf16_round_to_e8m6`, `fp32_round_to_bf16`, `fp32_round_to_e8m6`,
//! `fp32_truncate_to_bf16`), narrowed to the 16 bits that survive: adding
//! half a unit at bit 16 or 15 of an FP32 value changes its high half by
//! one or by bit 15 of its low half. Those definitions stay the reference:
//! the tests compare every 16-bit cell, and every high half with the low
//! halves that decide rounding and NaN, against them. The FP16 forms'
//! row rules ([`Fp16Lanes::row`]) are the per-datum definitions
//! themselves, with their "a" element conversion, lane by lane.

use crate::format::dst::decode_bf16;
#[cfg(target_arch = "x86_64")]
use crate::format::dst::decode_fp16;
use crate::format::pack::EarlyConversion;

/// An early conversion from `Dst16b` with a BF16-shaped result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dst16Lanes {
    /// `Read_raw`: the stored BF16 value.
    Identity,
    /// Denormals and −0 to +0, NaN to infinity of its sign.
    Round,
    /// As `Round`, then to 6 mantissa bits, nearest, ties away from zero.
    E8m6,
}

/// An early conversion from `Dst32b` FP32 with a BF16-shaped result, or
/// (`Narrow`) an FP32 one whose BFP "b" element is BF16-shaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dst32Lanes {
    /// The high half.
    Truncate,
    /// The FP32 identity's "b" element: the high half, or only the sign
    /// where the exponent field is 0 (`e8_narrow`).
    Narrow,
    /// To 7 mantissa bits with the early rounding rules.
    RoundToBf16,
    /// To 6 mantissa bits with the early rounding rules.
    RoundToE8m6,
}

/// An early conversion from `Dst16b` FP16 with an FP16-shaped result,
/// taken with its BFP "a" element conversion (`e5_narrow`: the top 7
/// mantissa bits, or the sign alone where the exponent field is 0).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fp16Lanes {
    /// `Read_raw`: the stored value; its element is the sign alone where
    /// the exponent field is 0.
    Identity,
    /// An exponent field of 0 gives +0.
    Round,
    /// `IntermediateFormat = BFP8a` with `Read_raw`: the low three
    /// mantissa bits cleared, which the element drops anyway.
    TruncateToE5m7,
    /// `IntermediateFormat = BFP8a`: to 6 mantissa bits, nearest, ties away
    /// from zero, saturating at `0x7FF0`; a rounded exponent field of 0
    /// gives +0.
    ToE5m6,
}

impl Dst16Lanes {
    /// The lane form of `early`, if it has one.
    pub fn of(early: EarlyConversion) -> Option<Dst16Lanes> {
        Some(match early {
            EarlyConversion::Bf16Identity => Dst16Lanes::Identity,
            EarlyConversion::Bf16Round => Dst16Lanes::Round,
            EarlyConversion::Bf16ToE8m6 => Dst16Lanes::E8m6,
            _ => return None,
        })
    }

    /// The conversion of a row of `Dst16b` cells.
    #[inline(always)]
    pub fn row(self, cells: &[u16; 16]) -> [u16; 16] {
        let mut out = [0u16; 16];
        match self {
            Dst16Lanes::Identity => each16(&mut out, cells, decode_bf16),
            Dst16Lanes::Round => each16(&mut out, cells, |c| round16(decode_bf16(c))),
            Dst16Lanes::E8m6 => each16(&mut out, cells, |c| e8m6_16(decode_bf16(c))),
        }
        out
    }
}

impl Dst32Lanes {
    /// The lane form of `early` (for `Narrow`, of `early` and the "b"
    /// element conversion), if it has one.
    pub fn of(early: EarlyConversion) -> Option<Dst32Lanes> {
        Some(match early {
            EarlyConversion::Fp32TruncateToBf16 => Dst32Lanes::Truncate,
            EarlyConversion::Fp32Identity => Dst32Lanes::Narrow,
            EarlyConversion::Fp32ToBf16 => Dst32Lanes::RoundToBf16,
            EarlyConversion::Fp32ToE8m6 => Dst32Lanes::RoundToE8m6,
            _ => return None,
        })
    }

    /// The conversion of a row of `Dst32b` values stored as high halves
    /// `hi` and low halves `lo` (`dst32_join`).
    #[inline(always)]
    pub fn row(self, hi: &[u16; 16], lo: &[u16; 16]) -> [u16; 16] {
        let mut out = [0u16; 16];
        match self {
            Dst32Lanes::Truncate => each16(&mut out, hi, decode_bf16),
            Dst32Lanes::Narrow => each16(&mut out, hi, |h| {
                let x = decode_bf16(h);
                if x & 0x7F80 == 0 {
                    x & 0x8000
                } else {
                    x
                }
            }),
            Dst32Lanes::RoundToBf16 => each32(&mut out, hi, lo, |h, l| {
                let r = (h & 0x7FFF) + (l >> 15);
                round32(h, l, r)
            }),
            Dst32Lanes::RoundToE8m6 => each32(&mut out, hi, lo, |h, l| {
                let r = ((h & 0x7FFF) + 1) & !1;
                round32(h, l, r)
            }),
        }
        out
    }
}

#[cfg(target_arch = "x86_64")]
impl Fp16Lanes {
    /// The lane form of `early` and the "a" element conversion, if it has
    /// one.
    pub fn of(early: EarlyConversion) -> Option<Fp16Lanes> {
        Some(match early {
            EarlyConversion::Fp16Identity => Fp16Lanes::Identity,
            EarlyConversion::Fp16Round => Fp16Lanes::Round,
            EarlyConversion::Fp16TruncateToE5m7 => Fp16Lanes::TruncateToE5m7,
            EarlyConversion::Fp16ToE5m6 => Fp16Lanes::ToE5m6,
            _ => return None,
        })
    }

    /// The "a" elements of a row of `Dst16b` FP16 cells, for the row paths
    /// that take elements (all but AVX-512's four-group assembler, which
    /// makes them from the cells as it reads them): the per-datum
    /// definitions on each lane, with the element
    /// conversion (`e5_narrow` to seven mantissa bits) written out for the
    /// intermediate each form gives, which the compiler keeps in vector
    /// lanes where the general per-datum path is not.
    #[inline(always)]
    pub fn row(self, cells: &[u16; 16]) -> [u16; 16] {
        use crate::format::float::e5_narrow;
        use crate::format::pack::{fp16_round, fp16_round_to_e5m6, fp16_truncate_to_e5m7};
        let mut out = [0u16; 16];
        match self {
            // FP16 intermediates: ten mantissa bits to seven.
            Fp16Lanes::Identity => each16(&mut out, cells, |c| e5_narrow(decode_fp16(c), 10, 7)),
            Fp16Lanes::Round => each16(&mut out, cells, |c| {
                e5_narrow(fp16_round(decode_fp16(c)), 10, 7)
            }),
            // E5M7 and E5M6 intermediates: already no wider than the
            // element.
            Fp16Lanes::TruncateToE5m7 => {
                each16(&mut out, cells, |c| fp16_truncate_to_e5m7(decode_fp16(c)))
            }
            Fp16Lanes::ToE5m6 => each16(&mut out, cells, |c| fp16_round_to_e5m6(decode_fp16(c))),
        }
        out
    }
}

/// Two rows at once in AVX-512's 32 16-bit lanes, the first row in the low
/// half, and the lane rules that round them, written with AVX-512BW's lane
/// masks and ternary logic: BF16 rounding for whole BF16 rows, and the
/// roundings whose elements the BFP assembler cannot make from the cells as
/// it reads them ([`crate::format::bfp::quad_lanes`]): FP32 to BF16 and to
/// E8M6, FP16 to E5M6. `vector_rules_are_the_row_rules` holds the BF16 and
/// FP32 ones to the row rules for every cell,
/// `fp16_rows_and_pairs_are_the_early_conversion_and_its_a_element` the FP16 one to
/// the per-datum definition.
#[cfg(target_arch = "x86_64")]
pub(super) use pairs::{
    adjacent_rows_avx512, bf16_round_avx512, fp16_to_e5m6_avx512, fp32_round_avx512,
    two_rows_avx512,
};

#[cfg(target_arch = "x86_64")]
mod pairs {
    #[cfg(doc)]
    use super::{Dst16Lanes, Dst32Lanes, Fp16Lanes};
    use crate::format::dst::cells_avx512::{exponent_not_zero, magnitudes, with_sign};
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx512bw,avx512vl")]
    #[inline]
    fn splat(v: u16) -> __m512i {
        _mm512_set1_epi16(v as i16)
    }

    /// Two 16-cell rows in one register, the first in the low half.
    #[target_feature(enable = "avx512bw,avx512vl")]
    #[inline]
    pub fn two_rows_avx512(a: &[u16; 16], b: &[u16; 16]) -> __m512i {
        // SAFETY: each row is 32 bytes, the width of its unaligned load.
        let [a, b] = [a, b].map(|r| unsafe { _mm256_loadu_si256(r.as_ptr().cast()) });
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(a), b)
    }

    /// Two 16-cell rows that lie together, as [`two_rows_avx512`] gives
    /// them: one load.
    #[target_feature(enable = "avx512bw,avx512vl")]
    #[inline]
    pub fn adjacent_rows_avx512(rows: &[[u16; 16]; 2]) -> __m512i {
        // SAFETY: the two rows are 64 bytes, the width of the load.
        unsafe { _mm512_loadu_si512(rows.as_ptr().cast()) }
    }

    /// [`Dst16Lanes::Round`] of the 32 cells `x` (the BF16 rows that
    /// `PACR` rounds whole). Infinity is the largest magnitude a result
    /// keeps, so a NaN's becomes it by a minimum.
    #[target_feature(enable = "avx512bw,avx512vl")]
    #[inline]
    pub fn bf16_round_avx512(x: __m512i) -> __m512i {
        let mag = magnitudes::<7, 8>(x, 0x7F80);
        let r = _mm512_min_epu16(mag, splat(0x7F80));
        _mm512_maskz_mov_epi16(exponent_not_zero(x, 0x00FF), with_sign(r, x))
    }

    /// [`Fp16Lanes::ToE5m6`] of the 32 cells `x`: the "a" elements of
    /// their FP16 values (`decode_fp16`) rounded by `fp16_round_to_e5m6`.
    #[target_feature(enable = "avx512bw,avx512vl")]
    #[inline]
    pub fn fp16_to_e5m6_avx512(x: __m512i) -> __m512i {
        let mag = magnitudes::<10, 5>(x, 0x7C00);
        let up = _mm512_andnot_si512(splat(0xF), _mm512_add_epi16(mag, splat(8)));
        let r = _mm512_min_epu16(up, splat(0x7FF0));
        let normal = _mm512_test_epi16_mask(r, splat(0x7C00));
        _mm512_maskz_mov_epi16(normal, with_sign(r, x))
    }

    /// [`Dst32Lanes::RoundToBf16`], or with `E8M6`
    /// [`Dst32Lanes::RoundToE8m6`], of 32 FP32 values, their high halves
    /// `h` and their low halves `l`.
    #[target_feature(enable = "avx512bw,avx512vl")]
    #[inline]
    pub fn fp32_round_avx512<const E8M6: bool>(h: __m512i, l: __m512i) -> __m512i {
        let mag = magnitudes::<7, 8>(h, 0x7F80);
        let r = if E8M6 {
            _mm512_andnot_si512(splat(1), _mm512_add_epi16(mag, splat(1)))
        } else {
            _mm512_add_epi16(mag, _mm512_srli_epi16::<15>(l))
        };
        // `round32`: NaN (a magnitude past infinity's, or infinity's high
        // half with a low half) to infinity. A high magnitude of
        // infinity's or more rounds to no less than it, and one below it
        // to no more: at most infinity's is the rule.
        let r = _mm512_min_epu16(r, splat(0x7F80));
        // Zero where the rounded exponent (14:7) is 0.
        let kept = _mm512_test_epi16_mask(r, splat(0x7F80));
        _mm512_maskz_mov_epi16(kept, with_sign(r, h))
    }
}

/// The lane forms whose elements are the cells rearranged, or rounded by
/// a few lane operations, on one row in AVX2's 16 16-bit lanes: the BFP
/// row path on CPUs without AVX-512 makes them from whole rows of `Dst` as
/// its assembler reads them. `avx2_rules_are_the_row_rules` holds each to
/// its row rule for every cell.
#[cfg(target_arch = "x86_64")]
pub(super) mod rows_avx2 {
    #[cfg(doc)]
    use super::{Dst16Lanes, Dst32Lanes, Fp16Lanes};
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx2")]
    #[inline]
    fn splat(v: u16) -> __m256i {
        _mm256_set1_epi16(v as i16)
    }

    /// Lanes of ones where `x`'s bits `field` are all 0.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn field_zero(x: __m256i, field: u16) -> __m256i {
        _mm256_cmpeq_epi16(_mm256_and_si256(x, splat(field)), _mm256_setzero_si256())
    }

    /// [`Dst16Lanes::Identity`], and [`Dst32Lanes::Truncate`] of the high
    /// halves: `decode_bf16`, `Dst16b`'s BF16 arrangement (exponent field
    /// at bits 7:0, mantissa at 14:8) to BF16's.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn bf16_avx2(x: __m256i) -> __m256i {
        let exp = _mm256_and_si256(_mm256_slli_epi16::<7>(x), splat(0x7F80));
        let man = _mm256_and_si256(_mm256_srli_epi16::<8>(x), splat(0x007F));
        let sign = _mm256_and_si256(x, splat(0x8000));
        _mm256_or_si256(_mm256_or_si256(exp, man), sign)
    }

    /// [`Dst16Lanes::Round`]: +0 where the exponent field is 0, and a NaN
    /// (field 0xFF, mantissa not 0) its mantissa cleared, infinity of its
    /// sign.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn bf16_round_avx2(x: __m256i) -> __m256i {
        let e = bf16_avx2(x);
        // Magnitudes are below 0x8000: the signed compare is the unsigned.
        let nan = _mm256_cmpgt_epi16(_mm256_and_si256(e, splat(0x7FFF)), splat(0x7F80));
        let cleared = _mm256_or_si256(field_zero(e, 0x7F80), _mm256_and_si256(nan, splat(0x7F)));
        _mm256_andnot_si256(cleared, e)
    }

    /// [`Dst16Lanes::E8m6`]: +0 where the exponent field is 0, otherwise
    /// the magnitude plus half of bit 1, bit 0 cleared, at most infinity's
    /// (which a NaN's and a carry out of the largest binade both become).
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn bf16_e8m6_avx2(x: __m256i) -> __m256i {
        let e = bf16_avx2(x);
        let mag = _mm256_and_si256(e, splat(0x7FFF));
        let up = _mm256_andnot_si256(splat(1), _mm256_add_epi16(mag, splat(1)));
        let r = _mm256_min_epu16(up, splat(0x7F80));
        let signed = _mm256_or_si256(r, _mm256_and_si256(e, splat(0x8000)));
        _mm256_andnot_si256(field_zero(e, 0x7F80), signed)
    }

    /// [`Dst32Lanes::Narrow`] of the high halves: BF16, the sign alone
    /// where the exponent field is 0.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn bf16_narrow_avx2(hi: __m256i) -> __m256i {
        let e = bf16_avx2(hi);
        _mm256_andnot_si256(_mm256_and_si256(field_zero(e, 0x7F80), splat(0x7FFF)), e)
    }

    /// [`Fp16Lanes::Identity`] (or, with `ROUND`, [`Fp16Lanes::Round`]):
    /// `decode_fp16` (exponent field at bits 4:0 and mantissa at 14:5, to
    /// FP16's), the mantissa's low three bits cleared; where the exponent
    /// field is 0, the sign alone (+0 with `ROUND`).
    #[target_feature(enable = "avx2")]
    #[inline]
    pub fn fp16_a_avx2<const ROUND: bool>(x: __m256i) -> __m256i {
        let exp = _mm256_and_si256(_mm256_slli_epi16::<10>(x), splat(0x7C00));
        let man = _mm256_and_si256(_mm256_srli_epi16::<5>(x), splat(0x03F8));
        let sign = _mm256_and_si256(x, splat(0x8000));
        let e = _mm256_or_si256(_mm256_or_si256(exp, man), sign);
        let keep = if ROUND { 0xFFFF } else { 0x7FFF };
        _mm256_andnot_si256(_mm256_and_si256(field_zero(x, 0x001F), splat(keep)), e)
    }
}

#[inline(always)]
fn each16(out: &mut [u16; 16], cells: &[u16; 16], f: impl Fn(u16) -> u16) {
    for (o, c) in out.iter_mut().zip(cells) {
        *o = f(*c);
    }
}

#[inline(always)]
fn each32(out: &mut [u16; 16], hi: &[u16; 16], lo: &[u16; 16], f: impl Fn(u16, u16) -> u16) {
    for ((o, h), l) in out.iter_mut().zip(hi).zip(lo) {
        *o = f(decode_bf16(*h), *l);
    }
}

/// `bf16_round` of BF16 `x`: an exponent field of 0 gives +0, NaN gives
/// infinity of its sign, every other value stays.
#[inline(always)]
fn round16(x: u16) -> u16 {
    let mag = x & 0x7FFF;
    let r = if mag > 0x7F80 {
        0x7F80 | (x & 0x8000)
    } else {
        x
    };
    if x & 0x7F80 == 0 {
        0
    } else {
        r
    }
}

/// `bf16_round_to_e8m6` of BF16 `x`: an exponent field of 0 gives +0, NaN
/// gives infinity of its sign, otherwise the magnitude plus half of bit 1,
/// bit 0 cleared (a carry out of the largest finite binade gives infinity).
#[inline(always)]
fn e8m6_16(x: u16) -> u16 {
    let mag = x & 0x7FFF;
    let r = if mag > 0x7F80 { 0x7F80 } else { (mag + 1) & !1 };
    if x & 0x7F80 == 0 {
        0
    } else {
        r | (x & 0x8000)
    }
}

/// The rounding of FP32 `h:l` (`h` its high half) whose rounded high
/// magnitude is `r`: NaN gives infinity of its sign, a rounded exponent
/// field of 0 gives +0 (`round_e8`).
#[inline(always)]
fn round32(h: u16, l: u16, r: u16) -> u16 {
    let mag = h & 0x7FFF;
    let nan = (mag > 0x7F80) | ((mag == 0x7F80) & (l != 0));
    let r = if nan { 0x7F80 } else { r };
    if r & 0x7F80 == 0 {
        0
    } else {
        r | (h & 0x8000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::data_format::BfpExp;
    use crate::format::dst::{decode_fp32, dst32_join};
    use crate::format::pack::{bf16_round, bfp_element, fp32_round_to_bf16};

    /// The AVX-512 pair rules against the row rules, where the CPU has
    /// AVX-512: every 16-bit cell in each half of the pair, beside a
    /// neighbour, and for `Dst32b` every high half with low halves that
    /// decide rounding and NaN (0, 0x7FFF, 0x8000, 0xFFFF, and others).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn vector_rules_are_the_row_rules() {
        if !crate::has_avx512_bw_vl() {
            return;
        }
        let to_rows = |v: std::arch::x86_64::__m512i| -> [u16; 32] {
            // SAFETY: both are 64 bytes of plain integers.
            unsafe { std::mem::transmute(v) }
        };
        let mut checked = 0u32;
        for c in 0..=u16::MAX {
            let a = row_with(c, c as usize);
            let b = row_with(c.rotate_left(5), c as usize + 3);
            // SAFETY: the CPU has AVX-512BW and AVX-512VL, checked above.
            let got = to_rows(unsafe { bf16_round_avx512(two_rows_avx512(&a, &b)) });
            let round = Dst16Lanes::Round;
            assert_eq!(got[..], [round.row(&a), round.row(&b)].concat(), "{c:#06x}");
            let lo_a = row_with([0, 0x7FFF, 0x8000, 0xFFFF, c][c as usize % 5], c as usize);
            let lo_b = row_with(c ^ 0x8000, c as usize + 3);
            for k in [Dst32Lanes::RoundToBf16, Dst32Lanes::RoundToE8m6] {
                // SAFETY: as above.
                let got = to_rows(unsafe {
                    let (h, l) = (two_rows_avx512(&a, &b), two_rows_avx512(&lo_a, &lo_b));
                    match k {
                        Dst32Lanes::RoundToBf16 => fp32_round_avx512::<false>(h, l),
                        _ => fp32_round_avx512::<true>(h, l),
                    }
                });
                let want = [k.row(&a, &lo_a), k.row(&b, &lo_b)].concat();
                assert_eq!(got[..], want[..], "{k:?} {c:#06x}");
            }
            checked += 1;
        }
        assert_eq!(checked, 65536);
    }

    /// The AVX2 row rules against the row rules, where the CPU has AVX2:
    /// every 16-bit cell, beside neighbours.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_rules_are_the_row_rules() {
        use rows_avx2::*;
        use std::arch::x86_64::{__m256i, _mm256_loadu_si256};
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let to_row = |v: __m256i| -> [u16; 16] {
            // SAFETY: both are 32 bytes of plain integers.
            unsafe { std::mem::transmute(v) }
        };
        let mut checked = 0u32;
        for c in 0..=u16::MAX {
            let a = row_with(c, c as usize);
            // SAFETY: the row is 32 bytes, the width of the load.
            let x = unsafe { _mm256_loadu_si256(a.as_ptr().cast()) };
            // SAFETY: the CPU has AVX2, checked above.
            let got = unsafe {
                [
                    bf16_avx2(x),
                    bf16_round_avx2(x),
                    bf16_e8m6_avx2(x),
                    bf16_narrow_avx2(x),
                    fp16_a_avx2::<false>(x),
                    fp16_a_avx2::<true>(x),
                ]
            }
            .map(to_row);
            let lo = [0u16; 16];
            let want = [
                Dst16Lanes::Identity.row(&a),
                Dst16Lanes::Round.row(&a),
                Dst16Lanes::E8m6.row(&a),
                Dst32Lanes::Narrow.row(&a, &lo),
                Fp16Lanes::Identity.row(&a),
                Fp16Lanes::Round.row(&a),
            ];
            assert_eq!(got, want, "{c:#06x}");
            assert_eq!(got[0], Dst32Lanes::Truncate.row(&a, &lo), "{c:#06x}");
            checked += 1;
        }
        assert_eq!(checked, 65536);
    }

    /// A row that puts `c` in every lane but one, which holds a neighbour,
    /// so that a lane rule cannot pass by looking at one lane only.
    fn row_with(c: u16, k: usize) -> [u16; 16] {
        std::array::from_fn(|i| if i == k % 16 { c } else { c ^ 0x5A5A })
    }

    /// Every early conversion there is.
    fn every_early_conversion() -> Vec<EarlyConversion> {
        use EarlyConversion as E;
        let mut all = vec![
            E::Int32Identity,
            E::Fp32Identity,
            E::Fp32ToTf32,
            E::Fp32TruncateToBf16,
            E::Fp32ToBf16,
            E::Fp32ToE8m6,
            E::Fp32ToFp16ViaTf32,
            E::Dst32HighToInt16,
            E::Bf16Identity,
            E::Bf16Round,
            E::Bf16ToTf32,
            E::Bf16ToE8m6,
            E::Bf16ToFp16Blackhole,
            E::Fp16Identity,
            E::Fp16Round,
            E::Fp16TruncateToE5m7,
            E::Fp16ToE5m6,
            E::Fp16TruncateToFp8,
            E::Float16ToInt8Sign,
            E::Int16Identity,
        ];
        for unsigned in [false, true] {
            all.push(E::Int32ToInt8Raw { unsigned });
            all.push(E::Int32ToInt8Descaled { shift: 3, unsigned });
        }
        all
    }

    /// Every `Dst16b` cell, against the per-datum early conversion followed
    /// by the BFP "b" element conversion (`FormatConversion.md`, early and
    /// BFP tables, as `format::pack` states them), for every conversion
    /// that has a lane form; the `Round` lanes are the BF16 → BF16 pack
    /// conversion as well.
    #[test]
    fn dst16_rows_are_the_early_conversion_and_its_b_element() {
        let mut with_lanes = Vec::new();
        for early in every_early_conversion() {
            let Some(lanes) = Dst16Lanes::of(early) else {
                continue;
            };
            assert!(!early.reads_32b(), "{early:?}");
            with_lanes.push(early);
            for c in 0..=u16::MAX {
                let row = row_with(c, c as usize);
                let got = lanes.row(&row);
                for (g, c) in got.iter().zip(row) {
                    let want = bfp_element(early.apply(c as u32), BfpExp::B).unwrap();
                    assert_eq!(*g, want, "{early:?} {c:#06x}");
                    if early == EarlyConversion::Bf16Round {
                        assert_eq!(*g, bf16_round(decode_bf16(c)), "{c:#06x}");
                    }
                }
            }
        }
        use EarlyConversion as E;
        assert_eq!(with_lanes, [E::Bf16Identity, E::Bf16Round, E::Bf16ToE8m6]);
    }

    /// The FP16 lane forms are the early conversions that have one, none of
    /// them reading `Dst32b`; where the CPU has AVX-512, the vector rounding
    /// to E5M6 of every `Dst16b` cell in each half of a pair, beside a
    /// neighbour, against the per-datum early conversion followed by the
    /// BFP "a" element conversion. (The other forms go to the assembler as
    /// the stored cells, `quad_lanes`.)
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn fp16_rows_and_pairs_are_the_early_conversion_and_its_a_element() {
        use EarlyConversion as E;
        let with_lanes: Vec<_> = every_early_conversion()
            .into_iter()
            .filter(|e| Fp16Lanes::of(*e).is_some())
            .collect();
        let want = [
            E::Fp16Identity,
            E::Fp16Round,
            E::Fp16TruncateToE5m7,
            E::Fp16ToE5m6,
        ];
        assert_eq!(with_lanes, want);
        assert!(with_lanes.iter().all(|e| !e.reads_32b()), "{with_lanes:?}");
        // The row rules, every cell in every lane position.
        for early in want {
            let k = Fp16Lanes::of(early).unwrap();
            for c in 0..=u16::MAX {
                let row = row_with(c, c as usize);
                for (g, c) in k.row(&row).iter().zip(&row) {
                    let want = bfp_element(early.apply(u32::from(*c)), BfpExp::A).unwrap();
                    assert_eq!(*g, want, "{early:?} {c:#06x}");
                }
            }
        }
        if !crate::has_avx512_bw_vl() {
            return;
        }
        let early = E::Fp16ToE5m6;
        assert_eq!(Fp16Lanes::of(early), Some(Fp16Lanes::ToE5m6));
        for c in 0..=u16::MAX {
            let a = row_with(c, c as usize);
            let b = row_with(c.rotate_left(5), c as usize + 3);
            // SAFETY: the CPU has AVX-512BW and AVX-512VL, checked above.
            let got: [u16; 32] =
                unsafe { std::mem::transmute(fp16_to_e5m6_avx512(two_rows_avx512(&a, &b))) };
            for (g, c) in got.iter().zip(a.iter().chain(&b)) {
                let want = bfp_element(early.apply(u32::from(*c)), BfpExp::A).unwrap();
                assert_eq!(*g, want, "{c:#06x}");
            }
        }
    }

    /// Every high half with low halves on both sides of the rounding bit and
    /// of zero (which decides NaN against infinity), and a spread of others,
    /// for every conversion that has a lane form.
    #[test]
    fn dst32_rows_are_the_early_conversion_and_its_b_element() {
        let mut x = 0x2545_F491u32;
        let mut lows = vec![0u16, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF];
        lows.extend((0..10).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u16
        }));
        let mut with_lanes = Vec::new();
        for early in every_early_conversion() {
            let Some(lanes) = Dst32Lanes::of(early) else {
                continue;
            };
            assert!(early.reads_32b(), "{early:?}");
            with_lanes.push(early);
            for h in 0..=u16::MAX {
                let hi = row_with(h, h as usize);
                for &l in &lows {
                    let lo = row_with(l, h as usize + 7);
                    let got = lanes.row(&hi, &lo);
                    for i in 0..16 {
                        let bits = dst32_join(hi[i], lo[i]);
                        let want = bfp_element(early.apply(bits), BfpExp::B).unwrap();
                        assert_eq!(got[i], want, "{early:?} {bits:#010x}");
                        if early == EarlyConversion::Fp32ToBf16 {
                            assert_eq!(got[i], fp32_round_to_bf16(decode_fp32(bits)));
                        }
                    }
                }
            }
        }
        use EarlyConversion as E;
        let want = [
            E::Fp32Identity,
            E::Fp32TruncateToBf16,
            E::Fp32ToBf16,
            E::Fp32ToE8m6,
        ];
        assert_eq!(with_lanes, want);
    }
}
