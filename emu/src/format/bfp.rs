//! Block floating point: shared-exponent assembly in the packer and datum
//! expansion in the unpacker.
//!
//! A group of 16 datums shares one exponent byte. Each datum is a sign bit
//! over a 7-, 3- or 1-bit magnitude with no hidden bit; BFP8 means
//! `Mag/2^6 · 2^(Exp−127)`, BFP4 `Mag/2^2 · 2^(Exp−127)`, BFP2
//! `Mag · 2^(Exp−127)`, and the "a" forms use bias 15 with a 5-bit exponent
//! zero-extended to a byte (tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/FloatBitPatterns.md`, "BFP").
//!
//! Datums are stored in L1 least significant bits first: BFP4 datum `2k` is
//! the low nibble of byte `k`, BFP2 datum `4k + j` is bits `2j+1:2j` of byte
//! `k`. This is the bit order of `ReadL1Bytes` in the `UNPACR` functional
//! model (`UNPACR_Regular.md`) and of ttsim's BFP4 packer.

use super::data_format::{BfpExp, BfpWidth};
#[cfg(target_arch = "x86_64")]
use super::dst::cells_avx512::{self as cells, exponent_not_zero, A_OR_B_AND_C, SELECT};
use super::dst::encode_bf16;
use crate::fault::{self, Fault};
#[cfg(target_arch = "x86_64")]
use crate::{has_avx512_vbmi, state::CacheLines};

/// One packed group: the shared exponent byte and 16 datums, each already
/// reduced to its width (sign in the top bit of the width).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BfpGroup {
    pub shared_exp: u8,
    pub datums: [u8; 16],
}

/// Exponent field and 7-bit mantissa of a packer BFP input element: a BF16
/// pattern for the "B" forms, an E5M7 pattern (FP16 layout, low three
/// mantissa bits ignored) for the "a" forms.
#[inline(always)]
const fn element_fields(exp: BfpExp, elem: u16) -> (u32, u32) {
    match exp {
        BfpExp::B => (((elem >> 7) & 0xFF) as u32, (elem & 0x7F) as u32),
        BfpExp::A => (((elem >> 10) & 0x1F) as u32, ((elem >> 3) & 0x7F) as u32),
    }
}

/// The BFP8 datum (sign and 7-bit magnitude) of one element aligned to
/// `shared_exp`, as the packer computes it.
///
/// Device behaviour (project reference README, "Device facts"; agrees with
/// ttsim `src/tensix.cpp`, PACR): the mantissa with its hidden bit (absent
/// when the exponent field is 0) is shifted right by `shared − own` plus the
/// one position that drops to a 7-bit magnitude, rounding half away from zero
/// on the shifted-out bits; a carry to 128 clamps to 127; a shift of 8 or more
/// gives 0 (as does a `shared_exp` below the element's own exponent, which
/// the assembler never passes). A zero magnitude is written without its sign, because sign 1 with
/// magnitude 0 means −infinity (−2^16 for the "a" forms) to the unpacker.
/// Packers/FormatConversion.md documents the rounding mode as "round-to-nearest
/// with ties away from zero" (deterministic case); stochastic rounding is not
/// modelled.
#[inline(always)]
pub const fn bfp8_datum(exp: BfpExp, elem: u16, shared_exp: u32) -> u8 {
    let (own, man) = element_fields(exp, elem);
    let m = man | ((own != 0) as u32) << 7;
    let shift = shared_exp.wrapping_sub(own);
    // Written without branches (the shift varies from datum to datum). A
    // shift of 8 or more leaves nothing: (m + 2^8) >> 9 is 0 for m < 2^8.
    let s = if shift > 8 { 8 } else { shift };
    let r = (m + (1 << s)) >> (s + 1);
    // At most 128 (m = 255, no shift), which clamps to 127.
    let mag = r - (r >> 7);
    let sign = ((elem >> 8) & 0x80) as u32 & (((mag != 0) as u32) << 7);
    (sign | mag) as u8
}

/// Reduce a BFP8 datum to `width` by truncating the magnitude, dropping the
/// sign when the truncated magnitude is zero. BFP4 and BFP2 are made from the
/// rounded BFP8 value this way (Packers/FormatConversion.md, "Late format
/// conversion": "Converted to BFP8 ..., then truncate to BFP4 or BFP2"; the
/// device facts confirm the order).
#[inline(always)]
pub const fn bfp8_truncate(datum: u8, width: BfpWidth) -> u8 {
    let drop = 8 - width.datum_bits();
    let mag = (datum & 0x7F) >> drop;
    let sign = ((datum & 0x80) >> drop) & (((mag != 0) as u8) << (7 - drop));
    sign | mag
}

/// Assemble one group of 16 packer elements (BF16 patterns for `BfpExp::B`,
/// E5M7 patterns for `BfpExp::A`; see [`super::pack::bfp_element`]).
///
/// The shared exponent is the largest exponent field of the 16 elements,
/// with 255 (infinity and NaN patterns) counting as an ordinary exponent
/// (device facts; ttsim does the same). For the "a" forms it is the largest
/// 5-bit field, stored zero-extended.
#[inline]
pub fn bfp_assemble(exp: BfpExp, width: BfpWidth, elems: &[u16; 16]) -> BfpGroup {
    let mut g = BfpGroup::default();
    bfp_assemble_into(exp, width, elems, &mut g);
    g
}

/// [`bfp_assemble`] into `out`.
pub fn bfp_assemble_into(exp: BfpExp, width: BfpWidth, elems: &[u16; 16], out: &mut BfpGroup) {
    avx2_or!(
        assemble_avx2(exp, width, elems, out),
        assemble_portable(exp, width, elems, out)
    )
}

/// [`assemble_portable`] compiled for AVX2, whose per-lane variable shifts
/// the alignment of 16 datums to the shared exponent vectorises onto;
/// baseline x86-64 emulates them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn assemble_avx2(exp: BfpExp, width: BfpWidth, elems: &[u16; 16], out: &mut BfpGroup) {
    assemble_portable(exp, width, elems, out);
}

/// [`bfp_assemble_into`] without the choice of instruction set, for
/// callers that compile it into their own multiversioned code.
#[inline(always)]
pub(crate) fn assemble_portable(
    exp: BfpExp,
    width: BfpWidth,
    elems: &[u16; 16],
    out: &mut BfpGroup,
) {
    // One copy of the rule per form and width, each compiled with its field
    // layout and truncation fixed.
    use BfpExp::{A, B};
    use BfpWidth::{Bits2, Bits4, Bits8};
    match (exp, width) {
        (B, Bits8) => assemble_as(B, Bits8, elems, out),
        (B, Bits4) => assemble_as(B, Bits4, elems, out),
        (B, Bits2) => assemble_as(B, Bits2, elems, out),
        (A, Bits8) => assemble_as(A, Bits8, elems, out),
        (A, Bits4) => assemble_as(A, Bits4, elems, out),
        (A, Bits2) => assemble_as(A, Bits2, elems, out),
    }
}

#[inline(always)]
fn assemble_as(exp: BfpExp, width: BfpWidth, elems: &[u16; 16], out: &mut BfpGroup) {
    let mut shared = 0;
    for &e in elems {
        let (own, _) = element_fields(exp, e);
        shared = shared.max(own);
    }
    for (d, &e) in out.datums.iter_mut().zip(elems) {
        *d = bfp8_truncate(bfp8_datum(exp, e, shared), width);
    }
    out.shared_exp = shared as u8;
}

/// [`assemble_portable`] with 16-bit AVX2 lanes, one element each, for the
/// row fast paths (the per-datum path keeps the portable rule, and the test
/// `lane_assembler_is_the_portable_one` holds the two together).
///
/// AVX2 has no per-lane variable shift of 16-bit lanes: the rounding shift
/// is [`round_shift_avx2`]'s multiplication.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) fn assemble_lanes(exp: BfpExp, width: BfpWidth, elems: &[u16; 16], out: &mut BfpGroup) {
    use std::arch::x86_64::*;
    assemble_in_lanes(exp, width, elems, out, |m, s| {
        round_shift_avx2(m, _mm256_add_epi16(s, _mm256_set1_epi16(1)))
    });
}

/// [`assemble_lanes`] with AVX-512BW's per-lane variable shifts of 16-bit
/// lanes (on 256-bit registers by AVX-512VL): the rounding shift is the
/// rule's `(m + 2^s) >> (s + 1)` as written, where AVX2 needs a table and a
/// multiplication. `lane_assembler_is_the_portable_one` holds it to the
/// portable assembler too.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vl")]
pub(crate) fn assemble_lanes_avx512(
    exp: BfpExp,
    width: BfpWidth,
    elems: &[u16; 16],
    out: &mut BfpGroup,
) {
    use std::arch::x86_64::*;
    assemble_in_lanes(exp, width, elems, out, |m, s| {
        let one = _mm256_set1_epi16(1);
        // At most 255 + 2^8 before the shift: it fits 16 bits.
        _mm256_srlv_epi16(
            _mm256_add_epi16(m, _mm256_sllv_epi16(one, s)),
            _mm256_add_epi16(s, one),
        )
    });
}

/// Groups four at a time, by the rule of [`bfp8_datum`] and
/// [`bfp8_truncate`], written as they go to L1: each group's shared
/// exponent to `exps` (one byte a group, as many as there are groups) and
/// its datums, packed to the width as [`bfp_pack_datums`] packs them, to
/// `data`, group after group. `quad(q)` gives the elements of groups
/// `4q .. 4q + 4`, or the cells they are made from, as `LANES` says
/// ([`quad_lanes`]), in halves ([`halves_avx512`]): 128-bit lane `g` of its
/// first register holds elements 0 to 7 of group `4q + g`, of its second
/// elements 8 to 15. A last quad of fewer groups is filled out with
/// anything; only its groups are written.
///
/// Written for the two vector ports that take 512-bit operations:
///
/// - the exponent fields are compared where they lie in the element, so
///   the shift to the shared exponent is their difference moved down once,
///   and in a cell, where it is the low bits, their difference;
/// - a cell's element is made on the way: its sign is where an element's
///   is, its mantissa's top seven bits one shift away, and its hidden bit
///   one saturating add; a cell whose element has no magnitude gets a
///   shift that leaves nothing;
/// - the four groups' largest fields come from one butterfly of maxima
///   inside 128-bit lanes, which leaves each group's in every lane of its
///   halves, with no shuffle across lanes before or after;
/// - the rule's `(m + 2^s) >> (s + 1)` is `((m >> s) + 1) >> 1` (the bits
///   shifted out of `m >> s` add less than one to the halved sum), the
///   average of `m >> s` and 0, and a shift of 16 or more, like one of 8
///   to 15, leaves nothing, so the shift needs no clamp;
/// - a carry to 128 clamps by a minimum;
/// - whether the magnitude at the width is 0, which drops the sign, is
///   read from `m >> s` before the rounding;
/// - the datums of two registers are narrowed together, each group's
///   bytes landing in order in place; BFP2 datums, a sign and one
///   magnitude bit, are never made as bytes: both bits come from compares
///   as masks, and BMI2's `pdep` lays them out.
///
/// What the lanes hold, `LANES`, and the width `BITS` (8, 4 or 2 bits) are
/// constants, so that each form's loop is its own whether or not the
/// compiler inlines it. The loop is here, with `quad` inlined into it,
/// rather than in the callers: the four groups' code is too large for the
/// compiler to inline as a function of its own, and calling it, its
/// registers passed through memory, cost a tenth of a BFP8 tile.
/// `lane_assembler_is_the_portable_one` holds it to the portable assembler
/// on elements, and the test `every_cell_pattern_packs_to_bfp_as_on_the_per_datum_path`
/// (`pack_fast_path`) to the per-datum path on every cell.
///
/// # Panics
/// If `data` is shorter than the groups' bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vl,bmi2")]
#[inline]
pub(crate) fn assemble_quads_avx512<const LANES: u8, const BITS: u32>(
    exps: &mut [u8],
    data: &mut [u8],
    mut quad: impl FnMut(usize) -> [std::arch::x86_64::__m512i; 2],
) {
    use quad_lanes::*;
    use std::arch::x86_64::*;
    let exp = match LANES {
        A_ELEMENTS | FP16_CELLS | FP16_CELLS_NARROWED => BfpExp::A,
        _ => BfpExp::B,
    };
    // Cells whose exponent field stays in their low bits; E8M6 rounding
    // can carry into the field, so those cells are made elements first.
    let cells = matches!(
        LANES,
        BF16_CELLS | BF16_CELLS_NARROWED | BF16_CELLS_ROUNDED | FP16_CELLS | FP16_CELLS_NARROWED
    );
    let e8m6 = LANES == BF16_CELLS_TO_E8M6;
    // Cells kept as cells where a cell whose field is 0 has no magnitude.
    let narrowed = matches!(
        LANES,
        BF16_CELLS_NARROWED | BF16_CELLS_ROUNDED | FP16_CELLS_NARROWED
    );
    let width = const {
        match BITS {
            8 => BfpWidth::Bits8,
            4 => BfpWidth::Bits4,
            2 => BfpWidth::Bits2,
            _ => panic!("BFP datums are 8, 4 or 2 bits"),
        }
    };
    let n = width.group_bytes();
    let data = &mut data[..exps.len() * n];
    let splat = |v: u16| _mm512_set1_epi16(v as i16);
    // The exponent field where it lies: bits 14:7 ("b"), 14:10 ("a").
    let field = match exp {
        BfpExp::B => splat(0x7F80),
        BfpExp::A => splat(0x7C00),
    };
    let least = match width {
        BfpWidth::Bits8 => splat(0),
        BfpWidth::Bits4 => splat(30),
        BfpWidth::Bits2 => splat(126),
    };
    // A cell's exponent field: its low eight bits (BF16), five (FP16).
    let stored = match exp {
        BfpExp::B => 0x00FF,
        BfpExp::A => 0x001F,
    };
    let own_field = if cells { splat(stored) } else { field };
    for (q, (exps, out)) in exps.chunks_mut(4).zip(data.chunks_mut(4 * n)).enumerate() {
        let x = quad(q);
        // What the lanes are made from (`e`: the E8M6 magnitudes, or the
        // lanes as they are), which E8M6 cells have a magnitude, and what
        // the shared exponent is the largest of (`own`: the fields, or the
        // E8M6 magnitudes, whose largest has the largest field).
        let (e, nonzero, own) = if e8m6 {
            let [(e0, k0), (e1, k1)] = x.map(|x| e8m6_magnitudes(x));
            ([e0, e1], [k0, k1], [e0, e1])
        } else {
            (x, [0; 2], x.map(|x| _mm512_and_si512(x, own_field)))
        };
        let mut most = _mm512_max_epu16(own[0], own[1]);
        most = _mm512_max_epu16(most, _mm512_shuffle_epi32::<0b01_00_11_10>(most));
        most = _mm512_max_epu16(most, _mm512_shuffle_epi32::<0b10_11_00_01>(most));
        most = _mm512_max_epu16(most, _mm512_rol_epi32::<16>(most));
        // Every lane of 128-bit lane g now holds group g's largest, beside
        // the group's own elements in both registers.
        // `m >> s`, each element's magnitude moved to the shared exponent.
        let shifted = [0, 1].map(|i| {
            let (x, e, own) = (x[i], e[i], own[i]);
            let (s, m) = if e8m6 {
                // The largest field with 0x7F below it, less a magnitude:
                // the mantissas differ by less than one step of the field,
                // which the shift drops. A cell without a magnitude gets a
                // shift of 16, which leaves nothing. The rounding left the
                // last mantissa bit to clear; the hidden bit is there
                // wherever the field is not 0.
                let most_field =
                    _mm512_ternarylogic_epi64::<A_OR_B_AND_C>(splat(0x7F), most, splat(0x7F80));
                let d = mask_sub16(splat(16 << 7), nonzero[i], most_field, e);
                let m = _mm512_ternarylogic_epi64::<A_OR_B_AND_C>(splat(0x80), e, splat(0x7E));
                (_mm512_srli_epi16::<7>(d), m)
            } else if cells {
                // The field is the low bits: the difference is the shift. A
                // cell without a magnitude where its field is 0 gets a
                // shift of 16, which leaves nothing of its mantissa.
                let s = if narrowed {
                    mask_sub16(splat(16), exponent_not_zero(x, stored), most, own)
                } else {
                    _mm512_sub_epi16(most, own)
                };
                // The mantissa's top seven bits, from bits 14:8, and the
                // sign, moved down to bit 7 with them (replaced below).
                // Rounded, infinity's and NaN's are 0.
                let man = match LANES {
                    BF16_CELLS_ROUNDED => {
                        _mm512_maskz_srli_epi16::<8>(_mm512_cmpneq_epu16_mask(own, splat(0xFF)), x)
                    }
                    _ => _mm512_srli_epi16::<8>(x),
                };
                // Bit 7 the hidden bit: the field, added to 0x7F with the
                // byte's saturation, reaches 0x80 exactly where it is not
                // 0.
                let hidden = _mm512_adds_epu8(own, splat(0x7F));
                (
                    s,
                    _mm512_ternarylogic_epi64::<SELECT>(splat(0x80), hidden, man),
                )
            } else {
                let d = _mm512_sub_epi16(most, own);
                let (s, man) = match exp {
                    BfpExp::B => (_mm512_srli_epi16::<7>(d), e),
                    BfpExp::A => (_mm512_srli_epi16::<10>(d), _mm512_srli_epi16::<3>(e)),
                };
                // The hidden bit, 0x80 where the field is not 0.
                let hidden = _mm512_min_epu16(own, splat(0x80));
                // `hidden | man & 0x7F` in one ternary-logic operation.
                // Written as AND and OR, the compiler sees that `m` fits a
                // byte and narrows the rounding to bytes and back, three
                // operations more.
                let m = _mm512_ternarylogic_epi64::<A_OR_B_AND_C>(hidden, man, splat(0x7F));
                (s, m)
            };
            srlv16(m, s)
        });
        // Where the magnitude at the width is not 0, where `(q + 1) >> 1`
        // is at least 1, 16 or 64; the sign is kept only there.
        let some = shifted.map(|q| _mm512_cmpgt_epu16_mask(q, least));
        let signed = [0, 1].map(|i| some[i] & _mm512_movepi16_mask(x[i]));
        // The datum of each register's elements, as a byte: the sign above
        // the magnitude.
        let datum = |i: usize| {
            let q = shifted[i];
            let mag = _mm512_min_epu16(_mm512_avg_epu16(q, _mm512_setzero_si512()), splat(0x7F));
            // The sign bit is clear in `mag`.
            mask_add16(mag, signed[i], splat(0x80))
        };
        // The four groups' bytes, narrowed, go to the low `4n` bytes, group
        // g's at `g * n`.
        let bytes = match width {
            // 128-bit lane g: group g's elements 0 to 7, then 8 to 15.
            BfpWidth::Bits8 => _mm512_packus_epi16(datum(0), datum(1)),
            BfpWidth::Bits4 => {
                // Each group's datums as bytes, in order, as for BFP8. Byte
                // k of the group holds the top four bits of datum 2k in its
                // low half and of datum 2k + 1 in its high half: 16-bit
                // lane k's two bytes, one moved down by 4 and one by 8.
                let both = _mm512_packus_epi16(datum(0), datum(1));
                let pairs = _mm512_ternarylogic_epi64::<SELECT>(
                    splat(0x000F),
                    _mm512_srli_epi16::<4>(both),
                    _mm512_srli_epi16::<8>(both),
                );
                _mm512_castsi256_si512(_mm512_cvtepi16_epi8(pairs))
            }
            BfpWidth::Bits2 => {
                // A BFP2 datum is the byte's top two bits: `some` (bit 0,
                // the magnitude's bit 6) and `signed` (bit 1), bit 8g + j
                // of register i's mask for element 8i + j of group g.
                // `pdep` puts each group's 16 bits together (group g's at
                // bit 16g), then the two masks' bits side by side, datum j
                // of a group at bits 2j and 2j + 1 (`bfp_pack_datums`).
                let by_group = |k: [u32; 2]| {
                    _pdep_u64(u64::from(k[0]), 0x00FF_00FF_00FF_00FF)
                        | _pdep_u64(u64::from(k[1]), 0xFF00_FF00_FF00_FF00)
                };
                let (some, signed) = (by_group(some), by_group(signed));
                // Two groups' datums from the low 32 bits of each.
                let datums = |some: u64, signed: u64| {
                    _pdep_u64(some, 0x5555_5555_5555_5555)
                        | _pdep_u64(signed, 0xAAAA_AAAA_AAAA_AAAA)
                };
                let low = datums(some, signed);
                let high = datums(some >> 32, signed >> 32);
                _mm512_castsi128_si512(_mm_set_epi64x(high as i64, low as i64))
            }
        };
        // Word 0 of each 128-bit lane, the field moved down to a byte.
        #[rustfmt::skip]
        let firsts = _mm512_set_epi16(
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 24, 16, 8, 0,
        );
        let words = _mm512_castsi512_si128(_mm512_permutexvar_epi16(firsts, most));
        let words = match exp {
            _ if cells => words,
            BfpExp::B => _mm_srli_epi16::<7>(words),
            BfpExp::A => _mm_srli_epi16::<10>(words),
        };
        let four = _mm_cvtsi128_si32(_mm_packus_epi16(words, words)).to_le_bytes();
        // A whole quad's `out` is four groups' bytes: 64, 32 or 16, the
        // width of its store.
        match (<&mut [u8; 4]>::try_from(&mut *exps).ok(), width) {
            (Some(e), BfpWidth::Bits8) => {
                *e = four;
                // SAFETY: 64 bytes, as above.
                unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), bytes) };
            }
            (Some(e), BfpWidth::Bits4) => {
                *e = four;
                let low = _mm512_castsi512_si256(bytes);
                // SAFETY: 32 bytes, as above.
                unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), low) };
            }
            (Some(e), BfpWidth::Bits2) => {
                *e = four;
                let low = _mm512_castsi512_si128(bytes);
                // SAFETY: 16 bytes, as above.
                unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), low) };
            }
            (None, _) => {
                let mut all = [0u8; 64];
                // SAFETY: `all` is 64 bytes, the width of the store.
                unsafe { _mm512_storeu_si512(all.as_mut_ptr().cast(), bytes) };
                exps.copy_from_slice(&four[..exps.len()]);
                out.copy_from_slice(&all[..out.len()]);
            }
        }
    }
}

/// Groups two at a time, by the rule of [`bfp8_datum`] and
/// [`bfp8_truncate`], written as they go to L1, for CPUs with AVX2 and
/// without AVX-512: each group's shared exponent to `exps` (one byte a
/// group) and its datums, packed to the width as [`bfp_pack_datums`] packs
/// them, to `data`, group after group. `pair(p)` gives the elements of
/// groups `2p` and `2p + 1` in halves ([`halves_avx2`]): 128-bit lane `g`
/// of its first register holds elements 0 to 7 of group `2p + g`, of its
/// second elements 8 to 15. A last pair of one group is filled out with
/// anything; only its group is written.
///
/// The arithmetic is [`assemble_quads_avx512`]'s on half the width, with
/// what AVX2 lacks made otherwise:
///
/// - no variable shift of 16-bit lanes: the shift and its rounding are
///   one rounding multiplication ([`round_shift_avx2`], as in
///   [`assemble_lanes`]). (Two variable shifts of 32-bit lanes, even and
///   odd lanes blended, took three operations a register more);
/// - no masks: the compares give lanes of ones, and a BFP2 datum's two
///   bits, put at bits 7 and 15 of its lane, are gathered by one
///   `vpmovmskb` per register, datum `j` of a group at bits `2j` and
///   `2j + 1`;
/// - no narrowing of 16-bit lanes to bytes at once: BFP4's byte pairs are
///   joined by a multiply-add of bytes (`vpmaddubsw`, `lo + 16 * hi`).
///
/// `LANES` is [`quad_lanes::B_ELEMENTS`] or [`quad_lanes::A_ELEMENTS`] and
/// the width `BITS` is 8, 4 or 2, constants so that each form's loop is its
/// own. `lane_assembler_is_the_portable_one` holds it to the portable
/// assembler on elements, and `pack_fast_path`'s tests to the per-datum
/// path.
///
/// # Panics
/// If `data` is shorter than the groups' bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn assemble_pairs_avx2<const LANES: u8, const BITS: u32>(
    exps: &mut [u8],
    data: &mut [u8],
    mut pair: impl FnMut(usize) -> [std::arch::x86_64::__m256i; 2],
) {
    use quad_lanes::*;
    use std::arch::x86_64::*;
    let exp = const {
        match LANES {
            B_ELEMENTS => BfpExp::B,
            A_ELEMENTS => BfpExp::A,
            _ => panic!("the AVX2 assembler takes elements"),
        }
    };
    let width = const {
        match BITS {
            8 => BfpWidth::Bits8,
            4 => BfpWidth::Bits4,
            2 => BfpWidth::Bits2,
            _ => panic!("BFP datums are 8, 4 or 2 bits"),
        }
    };
    let n = width.group_bytes();
    let data = &mut data[..exps.len() * n];
    let splat = |v: u16| _mm256_set1_epi16(v as i16);
    // The exponent field where it lies: bits 14:7 ("b"), 14:10 ("a").
    let field = match exp {
        BfpExp::B => splat(0x7F80),
        BfpExp::A => splat(0x7C00),
    };
    // Where the rounded magnitude keeps the datum's magnitude at the
    // width from 0: at least 1, 16 or 64.
    let least = match width {
        BfpWidth::Bits8 => splat(0),
        BfpWidth::Bits4 => splat(15),
        BfpWidth::Bits2 => splat(63),
    };
    // One step of the exponent field where it lies.
    let step = match exp {
        BfpExp::B => splat(0x80),
        BfpExp::A => splat(0x400),
    };
    // The two 16-bit halves of each 32-bit lane swapped.
    #[rustfmt::skip]
    let swap_halves = _mm256_setr_epi8(
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
    );
    for (p, (exps, out)) in exps.chunks_mut(2).zip(data.chunks_mut(2 * n)).enumerate() {
        let x = pair(p);
        let own = x.map(|x| _mm256_and_si256(x, field));
        let mut most = _mm256_max_epu16(own[0], own[1]);
        most = _mm256_max_epu16(most, _mm256_shuffle_epi32::<0b01_00_11_10>(most));
        most = _mm256_max_epu16(most, _mm256_shuffle_epi32::<0b10_11_00_01>(most));
        most = _mm256_max_epu16(most, _mm256_shuffle_epi8(most, swap_halves));
        // Every lane of 128-bit lane g now holds group g's largest field.
        let above = _mm256_add_epi16(most, step);
        // Each element's magnitude moved to the shared exponent and
        // rounded ([`round_shift_avx2`]), from its shift plus one: the
        // fields' difference plus one step, moved down.
        let rounded = [0, 1].map(|i| {
            let (x, own) = (x[i], own[i]);
            let d = _mm256_sub_epi16(above, own);
            let (s1, man) = match exp {
                BfpExp::B => (_mm256_srli_epi16::<7>(d), x),
                BfpExp::A => (_mm256_srli_epi16::<10>(d), _mm256_srli_epi16::<3>(x)),
            };
            // The hidden bit, 0x80 where the field is not 0, below it the
            // mantissa's seven bits.
            let m = _mm256_or_si256(
                _mm256_min_epu16(own, splat(0x80)),
                _mm256_and_si256(man, splat(0x7F)),
            );
            round_shift_avx2(m, s1)
        });
        // Where the magnitude at the width is not 0 (`r` is at most 128:
        // the signed compare is the unsigned one); the sign is kept only
        // there.
        let some = rounded.map(|r| _mm256_cmpgt_epi16(r, least));
        let signed = [0, 1].map(|i| _mm256_and_si256(some[i], _mm256_srai_epi16::<15>(x[i])));
        // The datum of each register's elements, as a byte: the sign above
        // the magnitude, a carry to 128 clamped.
        let datum = |i: usize| {
            let mag = _mm256_min_epu16(rounded[i], splat(0x7F));
            _mm256_or_si256(mag, _mm256_and_si256(signed[i], splat(0x80)))
        };
        // The two groups' bytes, group g's at `g * n`: all 32 for BFP8, the
        // low 16 for BFP4, the low 8 for BFP2.
        let bytes = match width {
            // 128-bit lane g: group g's datums 0 to 7, then 8 to 15.
            BfpWidth::Bits8 => _mm256_packus_epi16(datum(0), datum(1)),
            BfpWidth::Bits4 => {
                // Each datum's top four bits, bytes in order as for BFP8;
                // byte k of a group is datum 2k plus 16 times datum 2k + 1.
                let both = _mm256_packus_epi16(datum(0), datum(1));
                let nibbles =
                    _mm256_and_si256(_mm256_srli_epi16::<4>(both), _mm256_set1_epi8(0x0F));
                let pairs = _mm256_maddubs_epi16(nibbles, splat(0x1001));
                let eight = _mm256_packus_epi16(pairs, pairs);
                _mm256_permute4x64_epi64::<0b11_11_10_00>(eight)
            }
            BfpWidth::Bits2 => {
                // A BFP2 datum is the byte's top two bits: `some` (bit 0,
                // the magnitude's bit 6) and `signed` (bit 1), here at bits
                // 7 and 15 of its lane. Register i's mask holds element
                // 8i + j of group g at bits 16g + 2j and 16g + 2j + 1.
                let [k0, k1] = [0, 1].map(|i| {
                    let bits = _mm256_or_si256(
                        _mm256_and_si256(some[i], splat(0x0080)),
                        _mm256_and_si256(signed[i], splat(0x8000)),
                    );
                    _mm256_movemask_epi8(bits) as u32
                });
                let first = (k0 & 0xFFFF) | k1 << 16;
                let second = k0 >> 16 | (k1 & 0xFFFF_0000);
                _mm256_castsi128_si256(_mm_cvtsi64_si128(
                    (u64::from(second) << 32 | u64::from(first)) as i64,
                ))
            }
        };
        // Word 0 of each 128-bit lane, the field moved down to a byte.
        let (first, second) = (
            _mm256_extract_epi16::<0>(most) as u16,
            _mm256_extract_epi16::<8>(most) as u16,
        );
        let shift = match exp {
            BfpExp::B => 7,
            BfpExp::A => 10,
        };
        // Made as one word: two byte stores read back as one word would
        // wait for both to reach the cache.
        let two = (first >> shift | (second >> shift) << 8).to_le_bytes();
        if let Ok(e) = <&mut [u8; 2]>::try_from(&mut *exps) {
            *e = two;
            let at = out.as_mut_ptr();
            let low = _mm256_castsi256_si128(bytes);
            // SAFETY: a whole pair's `out` is two groups' bytes, 32, 16 or
            // 8: the width of its store.
            unsafe {
                match width {
                    BfpWidth::Bits8 => _mm256_storeu_si256(at.cast(), bytes),
                    BfpWidth::Bits4 => _mm_storeu_si128(at.cast(), low),
                    BfpWidth::Bits2 => _mm_storel_epi64(at.cast(), low),
                }
            }
        } else {
            let mut all = [0u8; 32];
            // SAFETY: `all` is 32 bytes, the width of the store.
            unsafe { _mm256_storeu_si256(all.as_mut_ptr().cast(), bytes) };
            exps.copy_from_slice(&two[..exps.len()]);
            out.copy_from_slice(&all[..out.len()]);
        }
    }
}

/// The rule's `(m + 2^s) >> (s + 1)` ([`bfp8_datum`]) in each 16-bit lane,
/// for `m` at most 255, given `s + 1` (`s1`) as a 16-bit lane.
///
/// For `s` of 0 to 7 it is `vpmulhrsw`'s `(a * b + 2^14) >> 15` of
/// `a = m * 2^7` (which fits 15 bits) and `b = 2^(7 - s)`, exactly; for
/// larger shifts the rule gives 0, and so does a multiplier of 0. `b` is
/// looked up by `vpshufb`: byte `s + 1` of the table, clamped to 15, where
/// bytes past 8 and byte 0 (which a lane's high byte indexes) are 0.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn round_shift_avx2(
    m: std::arch::x86_64::__m256i,
    s1: std::arch::x86_64::__m256i,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    #[rustfmt::skip]
    let powers = _mm256_setr_epi8(
        0, -128, 64, 32, 16, 8, 4, 2, 1, 0, 0, 0, 0, 0, 0, 0,
        0, -128, 64, 32, 16, 8, 4, 2, 1, 0, 0, 0, 0, 0, 0, 0,
    );
    let b = _mm256_shuffle_epi8(powers, _mm256_min_epu16(s1, _mm256_set1_epi16(15)));
    _mm256_mulhrs_epi16(_mm256_slli_epi16::<7>(m), b)
}

/// Two groups of elements in halves, as [`assemble_pairs_avx2`] takes
/// them: 128-bit lane `g` of the first result holds elements 0 to 7 of
/// group `g` (`a`, then `b`), of the second elements 8 to 15.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn halves_avx2(a: &[u16; 16], b: &[u16; 16]) -> [std::arch::x86_64::__m256i; 2] {
    use std::arch::x86_64::*;
    // SAFETY: each row is 32 bytes, the width of its load.
    let (a, b) = unsafe {
        (
            _mm256_loadu_si256(a.as_ptr().cast()),
            _mm256_loadu_si256(b.as_ptr().cast()),
        )
    };
    [
        _mm256_permute2x128_si256::<0x20>(a, b),
        _mm256_permute2x128_si256::<0x31>(a, b),
    ]
}

/// `vpsrlvw`: each 16-bit lane of `x` shifted right by its lane of
/// `counts`, 0 where the count is past 15. The intrinsic restates that
/// rule as a compare and a select, which the compiler keeps beside the
/// shift: one operation more per register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
#[inline]
fn srlv16(
    x: std::arch::x86_64::__m512i,
    counts: std::arch::x86_64::__m512i,
) -> std::arch::x86_64::__m512i {
    let out;
    // SAFETY: register operands only; the caller's target features
    // include AVX-512BW.
    unsafe {
        std::arch::asm!(
            "vpsrlvw {out}, {x}, {counts}",
            out = lateout(zmm_reg) out,
            x = in(zmm_reg) x,
            counts = in(zmm_reg) counts,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    out
}

/// `x + add` in the 16-bit lanes of `mask`, `x` in the others: one
/// masked `vpaddw`. Written with the intrinsic, the compiler sees that the
/// sum sets bits `x` lacks, makes it an OR, which has no 16-bit masked
/// form, and merges the lanes with a second operation.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
#[inline]
fn mask_add16(
    x: std::arch::x86_64::__m512i,
    mask: std::arch::x86_64::__mmask32,
    add: std::arch::x86_64::__m512i,
) -> std::arch::x86_64::__m512i {
    let mut out = x;
    // SAFETY: register operands only; the caller's target features
    // include AVX-512BW.
    unsafe {
        std::arch::asm!(
            "vpaddw {out}{{{mask}}}, {out}, {add}",
            out = inout(zmm_reg) out,
            mask = in(kreg) mask,
            add = in(zmm_reg) add,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    out
}

/// `a - b` in the 16-bit lanes of `mask`, `src` in the others: one masked
/// `vpsubw`. Written with the intrinsic, the compiler moves the selection
/// past the shift that follows, one operation more.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
#[inline]
fn mask_sub16(
    src: std::arch::x86_64::__m512i,
    mask: std::arch::x86_64::__mmask32,
    a: std::arch::x86_64::__m512i,
    b: std::arch::x86_64::__m512i,
) -> std::arch::x86_64::__m512i {
    let mut out = src;
    // SAFETY: register operands only; the caller's target features
    // include AVX-512BW.
    unsafe {
        std::arch::asm!(
            "vpsubw {out}{{{mask}}}, {a}, {b}",
            out = inout(zmm_reg) out,
            mask = in(kreg) mask,
            a = in(zmm_reg) a,
            b = in(zmm_reg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    out
}

/// The magnitudes of BF16 cells rounded to E8M6 (`bf16_round_to_e8m6`),
/// and the lanes whose cell has one (an exponent field other than 0; the
/// others' magnitude is 0): the value without its sign, plus one at the
/// mantissa's last bit, at most infinity's. The last mantissa bit
/// is left for the caller to clear; the sum can carry into the exponent
/// field, and a NaN's, or a carry past the largest finite value, becomes
/// infinity's.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
#[inline]
fn e8m6_magnitudes(
    x: std::arch::x86_64::__m512i,
) -> (std::arch::x86_64::__m512i, std::arch::x86_64::__mmask32) {
    use std::arch::x86_64::*;
    let splat = |v: u16| _mm512_set1_epi16(v as i16);
    let mag = cells::magnitudes::<7, 8>(x, 0x7F80);
    let nonzero = exponent_not_zero(x, 0x00FF);
    let up = _mm512_maskz_add_epi16(nonzero, mag, splat(1));
    (_mm512_min_epu16(up, splat(0x7F80)), nonzero)
}

/// What the 16-bit lanes [`assemble_quads_avx512`] takes hold: elements,
/// or `Dst` cells whose elements the assembler makes as it reads them. A
/// cell is a value as `Dst16b` stores it, or the high half of an FP32 value
/// as `Dst32b` does (`Dst.md`): the sign, the mantissa's top bits from bit
/// 14 down, the exponent field in the low bits (`decode_bf16`,
/// `decode_fp16`).
pub(crate) mod quad_lanes {
    /// "b" elements: the sign, the exponent field at bits 14:7, the
    /// mantissa at 6:0.
    pub const B_ELEMENTS: u8 = 0;
    /// "a" elements: the sign, the exponent field at bits 14:10, the
    /// mantissa's top seven bits at 9:3.
    pub const A_ELEMENTS: u8 = 1;
    /// BF16 cells (exponent field at bits 7:0), each its own "b" element:
    /// the BF16 identity, FP32 truncated to BF16.
    pub const BF16_CELLS: u8 = 2;
    /// BF16 cells whose element, where the field is 0, is the sign alone
    /// (`e8_narrow`: the FP32 identity).
    pub const BF16_CELLS_NARROWED: u8 = 3;
    /// BF16 cells as `bf16_round` makes them: +0 where the field is 0,
    /// infinity where it is 0xFF.
    pub const BF16_CELLS_ROUNDED: u8 = 4;
    /// FP16 cells (exponent field at bits 4:0), whose "a" elements keep
    /// the mantissa's top seven bits (FP16 truncated to E5M7).
    pub const FP16_CELLS: u8 = 5;
    /// FP16 cells whose element, where the field is 0, is the sign alone or
    /// +0 (`e5_narrow`: the FP16 identity, FP16 rounding), either way a
    /// datum of 0.
    pub const FP16_CELLS_NARROWED: u8 = 6;
    /// BF16 cells whose "b" elements are their values rounded to E8M6
    /// (`bf16_round_to_e8m6`): +0 where the field is 0, infinity for NaN
    /// and past the largest finite value.
    pub const BF16_CELLS_TO_E8M6: u8 = 7;
}

/// Four groups of elements in halves, as [`assemble_quads_avx512`] takes
/// them, from two registers of two groups each (`x`: groups 0 and 1, the
/// first in the low 256 bits; `y`: groups 2 and 3): 128-bit lane `g` of
/// the first result holds elements 0 to 7 of group `g`, of the second
/// elements 8 to 15.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vl")]
#[inline]
pub(crate) fn halves_avx512(
    x: std::arch::x86_64::__m512i,
    y: std::arch::x86_64::__m512i,
) -> [std::arch::x86_64::__m512i; 2] {
    use std::arch::x86_64::_mm512_shuffle_i64x2;
    [
        _mm512_shuffle_i64x2::<0b10_00_10_00>(x, y),
        _mm512_shuffle_i64x2::<0b11_01_11_01>(x, y),
    ]
}

/// The body of [`assemble_lanes`] and [`assemble_lanes_avx512`], inlined
/// into each: everything but the rounding shift, `round(m, s)`, which takes
/// each lane's mantissa with its hidden bit and its shift
/// `min(shared - own, 8)` to `(m + 2^s) >> (s + 1)`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn assemble_in_lanes(
    exp: BfpExp,
    width: BfpWidth,
    elems: &[u16; 16],
    out: &mut BfpGroup,
    round: impl Fn(std::arch::x86_64::__m256i, std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i,
) {
    use std::arch::x86_64::*;
    let splat = |v: u16| _mm256_set1_epi16(v as i16);
    // SAFETY: `elems` is 32 bytes, the width of the unaligned load.
    let x = unsafe { _mm256_loadu_si256(elems.as_ptr().cast()) };
    let (own, man) = match exp {
        BfpExp::B => (
            _mm256_and_si256(_mm256_srli_epi16::<7>(x), splat(0xFF)),
            _mm256_and_si256(x, splat(0x7F)),
        ),
        BfpExp::A => (
            _mm256_and_si256(_mm256_srli_epi16::<10>(x), splat(0x1F)),
            _mm256_and_si256(_mm256_srli_epi16::<3>(x), splat(0x7F)),
        ),
    };
    // The largest exponent: the smallest complement, by PHMINPOSUW.
    let half = _mm_max_epu16(
        _mm256_castsi256_si128(own),
        _mm256_extracti128_si256::<1>(own),
    );
    let least = _mm_minpos_epu16(_mm_xor_si128(half, _mm_set1_epi16(-1)));
    let shared = !(_mm_cvtsi128_si32(least) as u16);
    let zero = _mm256_setzero_si256();
    let hidden = _mm256_andnot_si256(_mm256_cmpeq_epi16(own, zero), splat(0x80));
    let m = _mm256_or_si256(man, hidden);
    let s = _mm256_min_epu16(_mm256_sub_epi16(splat(shared), own), splat(8));
    let r = round(m, s);
    // A carry to 128 clamps to 127; a zero magnitude drops its sign.
    let mag = _mm256_sub_epi16(r, _mm256_srli_epi16::<7>(r));
    let sign = _mm256_and_si256(_mm256_srli_epi16::<8>(x), splat(0x80));
    let (mag, sign) = match width {
        BfpWidth::Bits8 => (mag, sign),
        BfpWidth::Bits4 => (_mm256_srli_epi16::<4>(mag), _mm256_srli_epi16::<4>(sign)),
        BfpWidth::Bits2 => (_mm256_srli_epi16::<6>(mag), _mm256_srli_epi16::<6>(sign)),
    };
    let sign = _mm256_andnot_si256(_mm256_cmpeq_epi16(mag, zero), sign);
    let datums = _mm256_or_si256(sign, mag);
    let bytes = _mm_packus_epi16(
        _mm256_castsi256_si128(datums),
        _mm256_extracti128_si256::<1>(datums),
    );
    // SAFETY: `out.datums` is 16 bytes, the width of the unaligned store.
    unsafe { _mm_storeu_si128(out.datums.as_mut_ptr().cast(), bytes) };
    out.shared_exp = shared as u8;
}

/// Write 16 datums of `width` into `out` (16, 8 or 4 bytes), least
/// significant bits first.
///
/// # Panics
/// If `out` is shorter than [`BfpWidth::group_bytes`].
#[inline]
pub fn bfp_pack_datums(width: BfpWidth, datums: &[u8; 16], out: &mut [u8]) {
    match width {
        BfpWidth::Bits8 => out[..16].copy_from_slice(datums),
        BfpWidth::Bits4 => pack_narrow::<4>(datums, &mut out[..8]),
        BfpWidth::Bits2 => pack_narrow::<2>(datums, &mut out[..4]),
    }
}

/// [`bfp_pack_datums`] for `BITS` (4 or 2) bits per datum: each byte holds
/// `8 / BITS` consecutive datums, the first in the low bits. Eight datums
/// go at a time, a byte each in a 64-bit word; each step joins neighbouring
/// fields of `w` bits, each holding `b` bits at its bottom, into one field
/// of `2w` bits holding `2b`: `x | x >> (w - b)`, keeping the low `2b` bits
/// of each new field. Three steps leave the `BITS` bytes at the bottom.
#[inline(always)]
fn pack_narrow<const BITS: usize>(datums: &[u8; 16], out: &mut [u8]) {
    let steps: [(u32, u64); 3] = match BITS {
        4 => [
            (4, 0x00FF_00FF_00FF_00FF),
            (8, 0x0000_FFFF_0000_FFFF),
            (16, 0x0000_0000_FFFF_FFFF),
        ],
        _ => [
            (6, 0x000F_000F_000F_000F),
            (12, 0x0000_00FF_0000_00FF),
            (24, 0x0000_0000_0000_FFFF),
        ],
    };
    let datum_bits = u64::from_le_bytes([((1u16 << BITS) - 1) as u8; 8]);
    let (eights, _) = datums.as_chunks::<8>();
    for (eight, out) in eights.iter().zip(out.chunks_exact_mut(BITS)) {
        let mut x = u64::from_le_bytes(*eight) & datum_bits;
        for (shift, keep) in steps {
            x = (x | x >> shift) & keep;
        }
        out.copy_from_slice(&x.to_le_bytes()[..BITS]);
    }
}

/// Read 16 datums of `width` from `bytes` (16, 8 or 4 bytes), least
/// significant bits first.
///
/// # Panics
/// If `bytes` is shorter than [`BfpWidth::group_bytes`].
pub fn bfp_unpack_datums(width: BfpWidth, bytes: &[u8]) -> [u8; 16] {
    let bits = width.datum_bits() as usize;
    let per_byte = 8 / bits;
    let mask = ((1u16 << bits) - 1) as u8;
    let mut out = [0u8; 16];
    for (i, d) in out.iter_mut().enumerate() {
        *d = (bytes[i / per_byte] >> ((i % per_byte) * bits)) & mask;
    }
    out
}

/// Widen a BFP4 or BFP2 datum to the BFP8 datum the unpacker expands
/// (`DatumBits << 4`, `DatumBits << 6`).
#[inline]
pub const fn bfp_datum_to_bfp8(datum: u8, width: BfpWidth) -> u8 {
    datum << (8 - width.datum_bits())
}

/// Normalise a BFP8 magnitude: leading zero count of `Mag << 1` as an 8-bit
/// value, and the mantissa bits that remain after shifting them out (none
/// for magnitude 0, which the expansions treat apart).
const fn normalise_slow(datum: u8) -> (u8, u8) {
    let mag = datum << 1;
    if mag == 0 {
        return (8, 0);
    }
    let lz = mag.leading_zeros();
    (lz as u8, (mag << lz) & 0x7E)
}

/// [`normalise_slow`] of every byte, so that expanding a datum is a load
/// and a few integer operations the compiler can keep branch-free on any
/// x86-64 (which has no vector leading-zero count before AVX-512).
const NORMALISED: [(u8, u8); 256] = {
    let mut t = [(0u8, 0u8); 256];
    let mut d = 0;
    while d < 256 {
        t[d] = normalise_slow(d as u8);
        d += 1;
    }
    t
};

/// [`normalise_slow`], by table.
#[inline(always)]
const fn normalise(datum: u8) -> (u8, u8) {
    NORMALISED[datum as usize]
}

/// The unpacker's BFP8 → BF16 expansion (`BFP8ToBF16`, FloatBitPatterns.md
/// "Conversion routines" and `UNPACR_Regular.md`).
///
/// Sign 1 with magnitude 0 gives −infinity (`0xFF80`), whatever the
/// exponent; sign 0 with magnitude 0 gives +0. Otherwise the magnitude is
/// normalised and the exponent reduced by the shift in 8-bit arithmetic, so
/// it wraps when the shared exponent is smaller than the shift (ttsim notes
/// that silicon does the same).
#[inline]
pub const fn bfp8_to_bf16(datum: u8, exp: u8) -> u16 {
    let sign = (datum >> 7) as u16;
    if datum & 0x7F == 0 {
        return if sign != 0 { 0xFF80 } else { 0 };
    }
    let (lz, man) = normalise(datum);
    let e = exp.wrapping_sub(lz);
    (sign << 15) | ((e as u16) << 7) | man as u16
}

/// [`bfp8_to_bf16`] with neither a table nor a branch, for row kernels the
/// compiler vectorises. A non-zero magnitude `m` converted to FP32 comes
/// out normalised: its top mantissa bits are `m`'s bits below the leading
/// one, and its exponent is `127 + p` where `p = 6 - lz` for the
/// normalising shift `lz`. Adding `exp - 133` to that exponent field, in
/// the same 8-bit wrapping arithmetic, gives `exp - lz`.
#[inline(always)]
pub fn bfp8_to_bf16_arith(datum: u8, exp: u8) -> u16 {
    let magnitude = (datum & 0x7F) as i32;
    let sign = ((datum >> 7) as u16) << 15;
    let normalised = ((magnitude as f32).to_bits() >> 16) as u16;
    let rebased = normalised.wrapping_add((exp as u16).wrapping_sub(133) << 7) & 0x7FFF;
    let zero = if sign != 0 { 0xFF80 } else { 0 };
    if magnitude == 0 {
        zero
    } else {
        sign | rebased
    }
}

/// [`bfp8_to_bf16`] as the `SrcA`/`SrcB` cell the unpackers write (BF16 in
/// bits 18:3, [`SrcCell::from_bf16`](super::src_cell::SrcCell::from_bf16)),
/// computed as [`bfp8_to_bf16_arith`]
/// does but in 32-bit lanes: the FP32 bits shifted down by 13 are the
/// magnitude's BF16 already in the cell's place (a 7-bit magnitude has no
/// mantissa bits below BF16's), and the exponent field, now bits 17:10,
/// is rebased in the same 8-bit wrapping arithmetic. A row of these
/// vectorises with no narrowing to 16 bits and widening back.
#[inline(always)]
pub const fn bfp8_to_src_arith(datum: u8, exp: u8) -> u32 {
    let magnitude = (datum & 0x7F) as i32;
    // Bits 31:7 are all the sign.
    let signed = datum as i8 as i32 as u32;
    let normalised = (magnitude as f32).to_bits() >> 13;
    let rebased = normalised.wrapping_add((exp as u32).wrapping_sub(133) << 10) & 0x3_FFF8;
    // Magnitude 0 gives 0, or −infinity (BF16 0xFF80) for sign 1. Chosen
    // by a mask, not a branch, so that a row of these vectorises.
    let zero = ((magnitude == 0) as u32).wrapping_neg();
    (signed & 0x7_FC00 & zero) | (((signed & 0x4_0000) | rebased) & !zero)
}

/// Where consecutive BFP groups take their shared exponents.
#[derive(Clone, Copy, Debug)]
pub enum GroupExps<'a> {
    /// The forced shared exponent, for every group.
    Forced(u8),
    /// The exponent section's bytes, one per group: as many groups as
    /// there are bytes.
    Section(&'a [u8]),
}

impl GroupExps<'_> {
    /// `f(j, group, exp)` for each of `groups` in turn with its exponent
    /// (from a section, as many groups as it has bytes). A loop for each
    /// kind of exponent: one loop over either kind measured 2-6% more
    /// instructions per BFP tile.
    #[inline(always)]
    fn each<G>(self, groups: impl Iterator<Item = G>, mut f: impl FnMut(usize, G, u8)) {
        let groups = groups.enumerate();
        match self {
            GroupExps::Forced(e) => {
                for (j, group) in groups {
                    f(j, group, e);
                }
            }
            GroupExps::Section(s) => {
                for ((j, group), &e) in groups.zip(s) {
                    f(j, group, e);
                }
            }
        }
    }
}

/// `$body` with `$j`, `$group` and `$exp` bound to each index, item of
/// `$groups` and item of `$exps` in turn, as many as the shorter has, four
/// to a pass of the loop. A group's kernel is a few instructions, and the
/// loop's own (its counter and end test, and the bounds check of the row
/// a group goes to) measured 7% of a BFP2 tile unpacked to `SrcA`. A macro
/// rather than a function taking a closure: the loops are written in a
/// function that has its target features only from the callers it is
/// inlined into, a closure there is compiled without them, and the
/// kernel's intrinsics in it were called rather than inlined (BFP4 tiles
/// five times slower).
#[cfg(target_arch = "x86_64")]
macro_rules! by_four {
    ($groups:expr, $exps:expr, |$j:ident, $group:ident, $exp:ident| $body:expr) => {{
        let (groups, exps) = ($groups, $exps);
        let n = groups.len().min(exps.len());
        let (fours, rest) = groups[..n].as_chunks::<4>();
        let (exp_fours, exp_rest) = exps[..n].as_chunks::<4>();
        for (q, (four, exp_four)) in fours.iter().zip(exp_fours).enumerate() {
            for i in 0..4 {
                let ($j, $group, $exp) = (4 * q + i, &four[i], &exp_four[i]);
                $body;
            }
        }
        let first = 4 * fours.len();
        for (i, ($group, $exp)) in rest.iter().zip(exp_rest).enumerate() {
            let $j = first + i;
            $body;
        }
    }};
}

/// BFP "b" groups as `SrcA`/`SrcB` cells, `bytes` holding them back to
/// back: each group 16 datums of `BITS` bits (8, 4 or 2) packed in `2 ×
/// BITS` bytes (least significant bits first), sharing its exponent from
/// `exps`, each datum widened to the BFP8 datum the unpacker expands
/// ([`bfp_datum_to_bfp8`]) and expanded ([`bfp8_to_src_arith`]). Group
/// `j`'s cells go to `out(j, cells)`. By AVX-512 or AVX2 where the CPU has
/// it (checked once for all the groups), which takes each datum straight
/// from the packed bytes into its lane (`bfp_group_to_src_avx512`,
/// `bfp_groups_to_src_avx2`).
#[inline(always)]
pub fn bfp_groups_to_src<const BITS: usize>(
    bytes: &[u8],
    exps: GroupExps<'_>,
    mut out: impl FnMut(usize, [u32; 16]),
) {
    #[cfg(target_arch = "x86_64")]
    {
        if BITS == 4 && has_avx512_vbmi() {
            // SAFETY: the CPU has AVX-512F and VBMI, checked just above.
            return unsafe { bfp_groups_to_src_avx512_vbmi::<BITS>(bytes, exps, out) };
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            return unsafe { bfp_groups_to_src_avx512::<BITS>(bytes, exps, out) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { bfp_groups_to_src_avx2::<BITS>(bytes, exps, out) };
        }
    }
    exps.each(bytes.chunks_exact(2 * BITS), |j, group, e| {
        out(j, bfp_group_to_src_portable::<BITS>(group, e));
    });
}

/// [`bfp_groups_to_src`] with each group by [`bfp_group_to_src_avx512`].
///
/// # Safety
/// The CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn bfp_groups_to_src_avx512<const BITS: usize>(
    bytes: &[u8],
    exps: GroupExps<'_>,
    out: impl FnMut(usize, [u32; 16]),
) {
    // SAFETY: the CPU has AVX-512F (this function's contract).
    unsafe { groups_to_src_avx512::<BITS, false>(bytes, exps, out) }
}

/// [`bfp_groups_to_src_avx512`] with each BFP4 group's datums put in
/// their lanes by one byte shuffle (`vpmultishiftqb`).
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512 VBMI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vbmi")]
#[inline]
unsafe fn bfp_groups_to_src_avx512_vbmi<const BITS: usize>(
    bytes: &[u8],
    exps: GroupExps<'_>,
    out: impl FnMut(usize, [u32; 16]),
) {
    // SAFETY: the CPU has both (this function's contract).
    unsafe { groups_to_src_avx512::<BITS, true>(bytes, exps, out) }
}

/// The groups sixteen at a time: the sixteen exponents' rebases
/// `(exp - 133) << 10` ([`bfp8_to_src_arith`]) are worked out together,
/// from the exponent bytes where they lie, and kept in memory, where each
/// group's kernel reads its own as a broadcast operand, with no move from
/// a general register to a vector one.
///
/// # Safety
/// The CPU must have AVX-512F, and AVX-512 VBMI with `VBMI`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn groups_to_src_avx512<const BITS: usize, const VBMI: bool>(
    bytes: &[u8],
    exps: GroupExps<'_>,
    mut out: impl FnMut(usize, [u32; 16]),
) {
    use std::arch::x86_64::*;
    if BITS == 2 {
        let groups = bytes.as_chunks::<4>().0;
        match exps {
            GroupExps::Forced(e) => {
                for (j, group) in groups.iter().enumerate() {
                    // SAFETY: the CPU has AVX-512F (this function's contract).
                    out(j, unsafe { bfp2_group_to_src_avx512(group, e) });
                }
            }
            GroupExps::Section(s) => by_four!(groups, s, |j, group, e| {
                // SAFETY: as above.
                out(j, unsafe { bfp2_group_to_src_avx512(group, *e) })
            }),
        }
        return;
    }
    for (c, chunk) in bytes.chunks(16 * 2 * BITS).enumerate() {
        let first = 16 * c;
        let groups = chunk.len() / (2 * BITS);
        // SAFETY: the CPU has AVX-512F (this function's contract); every
        // load and store is inside its slice or array.
        let (exps16, n) = unsafe {
            match exps {
                GroupExps::Forced(e) => (_mm512_set1_epi32(e as i32), groups),
                GroupExps::Section(s) => {
                    let s = s.get(first..).unwrap_or_default();
                    let n = groups.min(s.len());
                    let bytes16 = match s.get(..16) {
                        Some(s) => _mm_loadu_si128(s.as_ptr().cast()),
                        None => {
                            let mut b = [0u8; 16];
                            b[..n].copy_from_slice(&s[..n]);
                            _mm_loadu_si128(b.as_ptr().cast())
                        }
                    };
                    (_mm512_cvtepu8_epi32(bytes16), n)
                }
            }
        };
        let mut rebases = [0u32; 16];
        // SAFETY: as above.
        unsafe {
            let r = _mm512_slli_epi32::<10>(_mm512_sub_epi32(exps16, _mm512_set1_epi32(133)));
            _mm512_storeu_si512(rebases.as_mut_ptr().cast(), r);
        }
        if BITS == 4 {
            // BFP4's groups four to a pass of the loop. (BFP8's kernel is
            // larger, and measured no faster so.)
            by_four!(
                chunk.as_chunks::<8>().0,
                &rebases[..n],
                |g, group, rebase| {
                    // SAFETY: as above; `group` is `2 × BITS` bytes long.
                    out(first + g, unsafe {
                        bfp_group_to_src_avx512::<BITS, VBMI>(group, rebase)
                    })
                }
            );
        } else {
            for ((g, group), rebase) in chunk.chunks_exact(2 * BITS).enumerate().zip(&rebases[..n])
            {
                // SAFETY: as above; `group` is `2 × BITS` bytes long.
                out(first + g, unsafe {
                    bfp_group_to_src_avx512::<BITS, VBMI>(group, rebase)
                });
            }
        }
        if n < 16 {
            return;
        }
    }
}

/// [`bfp8_group_to_src_avx2`] in AVX-512's sixteen 32-bit lanes: the whole
/// group in one register, `rebase` its exponent's `(exp - 133) << 10`.
/// BFP8 datums are expanded lane by lane, the zero datums picked out by a
/// lane mask. A BFP4 datum has only 16 values, so the group's 16 possible
/// cells are made once, from its exponent ([`BFP4_CELLS`]), and each datum
/// picks its own (`vpermd`, which reads the low four bits of its lane).
/// (BFP2 groups take [`bfp2_group_to_src_avx512`].)
///
/// # Safety
/// The CPU must have AVX-512F, and AVX-512 VBMI with `VBMI`. `bytes` is
/// `2 × BITS` long (checked by the caller); nothing else is read, and the
/// store is of the array's own size.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn bfp_group_to_src_avx512<const BITS: usize, const VBMI: bool>(
    bytes: &[u8],
    rebase: &u32,
) -> [u32; 16] {
    use std::arch::x86_64::*;
    let rebase = _mm512_set1_epi32(*rebase as i32);
    let rebased_mask = _mm512_set1_epi32(0x3_FFF8);
    let cells = match BITS {
        8 => {
            // Each datum sign-extended from bit 7 of its lane.
            let signed = _mm512_cvtepi8_epi32(_mm_loadu_si128(bytes.as_ptr().cast()));
            let magnitude = _mm512_and_si512(signed, _mm512_set1_epi32(0x7F));
            let normalised =
                _mm512_srli_epi32::<13>(_mm512_castps_si512(_mm512_cvtepi32_ps(magnitude)));
            let rebased = _mm512_and_si512(_mm512_add_epi32(normalised, rebase), rebased_mask);
            let value = _mm512_or_si512(
                _mm512_and_si512(signed, _mm512_set1_epi32(0x4_0000)),
                rebased,
            );
            // Magnitude 0: 0, or −infinity for sign 1 (`bfp8_to_src_arith`).
            let zero = _mm512_testn_epi32_mask(signed, _mm512_set1_epi32(0x7F));
            _mm512_mask_blend_epi32(
                zero,
                value,
                _mm512_and_si512(signed, _mm512_set1_epi32(0x7_FC00)),
            )
        }
        4 => {
            // Each lane's datum in its low bits (bits above it ignored).
            let at_datum = if VBMI {
                // Byte 0 of lane `i` is bits `4i..4i + 8` of the group.
                let group = u64::from_le_bytes(std::array::from_fn(|i| bytes[i]));
                let at =
                    _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60);
                _mm512_multishift_epi64_epi8(at, _mm512_set1_epi64(group as i64))
            } else {
                let low = i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                let high = i32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
                let words =
                    _mm512_inserti64x4::<1>(_mm512_set1_epi32(low), _mm256_set1_epi32(high));
                let at =
                    _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);
                _mm512_srlv_epi32(words, at)
            };
            let lookup = &BFP4_CELLS;
            let load = |v: &[u32; 16]| _mm512_loadu_si512(v.as_ptr().cast());
            // `(normalised + rebase) & rebased | fixed`.
            let table = _mm512_ternarylogic_epi32::<0xEA>(
                _mm512_add_epi32(load(&lookup.normalised), rebase),
                load(&lookup.rebased),
                load(&lookup.fixed),
            );
            _mm512_permutexvar_epi32(at_datum, table)
        }
        _ => unreachable!("BFP2 groups take `bfp2_group_to_src_avx512`"),
    };
    let mut out = [0u32; 16];
    _mm512_storeu_si512(out.as_mut_ptr().cast(), cells);
    out
}

/// For each BFP4 datum value `i`: the parts of its `SrcA`/`SrcB` cell
/// ([`bfp8_to_src_arith`]) as `(normalised + rebase) & rebased | fixed`,
/// with `rebase = (exp - 133) << 10`. A non-zero magnitude keeps the
/// rebased bits `0x3_FFF8` and has its sign fixed; a zero magnitude keeps
/// none and has its whole cell fixed, whatever the exponent.
#[cfg(target_arch = "x86_64")]
struct Bfp4Cells {
    normalised: [u32; 16],
    rebased: [u32; 16],
    fixed: [u32; 16],
}

/// [`Bfp4Cells`]: each value's cell at exponent 133, where the rebase is
/// 0, taken apart.
#[cfg(target_arch = "x86_64")]
const BFP4_CELLS: Bfp4Cells = {
    let mut t = Bfp4Cells {
        normalised: [0; 16],
        rebased: [0; 16],
        fixed: [0; 16],
    };
    let mut i = 0;
    while i < 16 {
        let bfp8 = bfp_datum_to_bfp8(i as u8, BfpWidth::Bits4);
        let cell = bfp8_to_src_arith(bfp8, 133);
        if bfp8 & 0x7F == 0 {
            t.fixed[i] = cell;
        } else {
            t.normalised[i] = cell & 0x3_FFF8;
            t.rebased[i] = 0x3_FFF8;
            t.fixed[i] = cell & 0x4_0000;
        }
        i += 1;
    }
    t
};

/// A BFP2 group of [`bfp_groups_to_src`] in AVX-512's sixteen 32-bit
/// lanes. A BFP2 datum has four values, so its exponent's four cells
/// ([`BFP2_CELLS`]) fill each 128-bit quarter of a register, and each datum
/// picks its own within its quarter (`vpermilps`, which reads the low two
/// bits of its lane): one shift and one shuffle a group, the group's bytes
/// and its cells loaded as they are used.
///
/// # Safety
/// The CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn bfp2_group_to_src_avx512(bytes: &[u8; 4], exp: u8) -> [u32; 16] {
    use std::arch::x86_64::*;
    // The group's word in every lane, broadcast as it is loaded: written
    // with the intrinsics, the compiler loads it into a general register
    // and broadcasts from there, a shuffle on the port the lookup below
    // needs too.
    let word: __m512i;
    // SAFETY: reads the group's 4 bytes; writes only the output register.
    unsafe {
        std::arch::asm!(
            "vpbroadcastd {word}, dword ptr [{at}]",
            word = out(zmm_reg) word,
            at = in(reg) bytes.as_ptr(),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    let at = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    let at_datum = _mm512_srlv_epi32(word, at);
    let table = _mm512_load_si512(BFP2_CELLS.0[exp as usize].as_ptr().cast());
    let cells = _mm512_castps_si512(_mm512_permutevar_ps(_mm512_castsi512_ps(table), at_datum));
    let mut out = [0u32; 16];
    _mm512_storeu_si512(out.as_mut_ptr().cast(), cells);
    out
}

/// For each shared exponent, the `SrcA`/`SrcB` cells of the four BFP2
/// datum values ([`bfp_datum_to_bfp8`], [`bfp8_to_src_arith`]), repeated
/// in each quarter of its own 64-byte line (aligned loads): 16 KiB.
#[cfg(target_arch = "x86_64")]
static BFP2_CELLS: CacheLines<[[u32; 16]; 256]> = {
    let mut t = CacheLines([[0; 16]; 256]);
    let mut e = 0;
    while e < 256 {
        let mut i = 0;
        while i < 16 {
            let datum = bfp_datum_to_bfp8((i % 4) as u8, BfpWidth::Bits2);
            t.0[e][i] = bfp8_to_src_arith(datum, e as u8);
            i += 1;
        }
        e += 1;
    }
    t
};

/// [`bfp_groups_to_src`] in AVX2's 32-bit lanes, eight datums to a
/// register: BFP8 groups by [`bfp8_group_to_src_avx2`], BFP4 and BFP2 ones
/// by lookup ([`bfp4_group_to_src_avx2`], [`bfp2_group_to_src_avx2`]),
/// each inlined into a loop of its own for each kind of exponent, a
/// section's four groups to a pass (`by_four!`) for BFP4 and BFP2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn bfp_groups_to_src_avx2<const BITS: usize>(
    bytes: &[u8],
    exps: GroupExps<'_>,
    mut out: impl FnMut(usize, [u32; 16]),
) {
    // `$kernel` on each `$n`-byte group of `bytes`, a section's groups
    // one or four to a pass, the loops written out (as `by_four!` does).
    macro_rules! groups {
        ($n:literal, $kernel:ident, $pass:ident) => {{
            let groups = bytes.as_chunks::<$n>().0;
            match exps {
                GroupExps::Forced(e) => {
                    for (j, group) in groups.iter().enumerate() {
                        // SAFETY: the CPU has AVX2 (this function's
                        // contract).
                        out(j, unsafe { $kernel(group, e) });
                    }
                }
                GroupExps::Section(s) => groups!(@$pass groups, s, |j, group, e| {
                    // SAFETY: as above.
                    out(j, unsafe { $kernel(group, *e) })
                }),
            }
        }};
        (@one $groups:expr, $exps:expr, |$j:ident, $group:ident, $exp:ident| $body:expr) => {
            for ($j, ($group, $exp)) in $groups.iter().zip($exps).enumerate() {
                $body;
            }
        };
        (@four $($rest:tt)*) => {
            by_four!($($rest)*)
        };
    }
    match BITS {
        // BFP8's kernel is larger, and measured 3-5% slower four to a pass.
        8 => groups!(16, bfp8_group_to_src_avx2, one),
        4 => groups!(8, bfp4_group_to_src_avx2, four),
        _ => groups!(4, bfp2_group_to_src_avx2, four),
    }
}

/// One group of [`bfp_groups_to_src`] without vector instructions of its
/// own.
#[inline(always)]
fn bfp_group_to_src_portable<const BITS: usize>(bytes: &[u8], exp: u8) -> [u32; 16] {
    let mut cells = [0; 16];
    for (j, c) in cells.iter_mut().enumerate() {
        // The datum's bits at the top of the byte; the bits above it fall
        // out of the `u8`.
        let datum = bytes[j * BITS / 8] >> (j * BITS % 8);
        *c = bfp8_to_src_arith(datum << (8 - BITS), exp);
    }
    cells
}

/// A BFP8 group of [`bfp_groups_to_src`] in AVX2's 32-bit lanes, eight
/// datums to a register: each lane's datum sign-extended from its byte,
/// and expanded as [`bfp8_to_src_arith`] does.
///
/// The AVX2 kernels and their parts are functions inlined always, not
/// closures: these functions have their target features only from the
/// callers they are inlined into, a closure in one is compiled without
/// them, and one left out of line calls each intrinsic (BFP8 tiles
/// measured 25 times slower so).
///
/// # Safety
/// The CPU must have AVX2 (the caller's target features, into which this
/// is inlined).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn bfp8_group_to_src_avx2(bytes: &[u8; 16], exp: u8) -> [u32; 16] {
    use std::arch::x86_64::*;
    let rebase = _mm256_set1_epi32(((exp as u32).wrapping_sub(133) << 10) as i32);
    // SAFETY: `bytes` is 16 bytes, the width of the load.
    let d = unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) };
    // SAFETY: the CPU has AVX2 (this function's contract).
    let (low, high) = unsafe {
        (
            bfp8_cells_avx2(_mm256_cvtepi8_epi32(d), rebase),
            bfp8_cells_avx2(_mm256_cvtepi8_epi32(_mm_srli_si128::<8>(d)), rebase),
        )
    };
    // SAFETY: as above.
    unsafe { join_halves_avx2(low, high) }
}

/// [`bfp8_to_src_arith`] of the datums `signed` (each sign-extended from
/// bit 7 of its lane), `rebase` their exponent's `(exp - 133) << 10`.
///
/// # Safety
/// The CPU must have AVX2 (the caller's target features).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn bfp8_cells_avx2(
    signed: std::arch::x86_64::__m256i,
    rebase: std::arch::x86_64::__m256i,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    let magnitude = _mm256_and_si256(signed, _mm256_set1_epi32(0x7F));
    let normalised = _mm256_srli_epi32::<13>(_mm256_castps_si256(_mm256_cvtepi32_ps(magnitude)));
    let rebased = _mm256_and_si256(
        _mm256_add_epi32(normalised, rebase),
        _mm256_set1_epi32(0x3_FFF8),
    );
    let value = _mm256_or_si256(
        _mm256_and_si256(signed, _mm256_set1_epi32(0x4_0000)),
        rebased,
    );
    // Magnitude 0: 0, or −infinity for sign 1.
    let zero = _mm256_cmpeq_epi32(magnitude, _mm256_setzero_si256());
    _mm256_blendv_epi8(
        value,
        _mm256_and_si256(signed, _mm256_set1_epi32(0x7_FC00)),
        zero,
    )
}

/// A group's 16 cells from its two halves, eight to a register.
///
/// # Safety
/// The CPU must have AVX (the caller's target features).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn join_halves_avx2(
    low: std::arch::x86_64::__m256i,
    high: std::arch::x86_64::__m256i,
) -> [u32; 16] {
    use std::arch::x86_64::_mm256_storeu_si256;
    let mut cells = [0u32; 16];
    // SAFETY: each store is 32 bytes, half of `cells`.
    unsafe {
        _mm256_storeu_si256(cells.as_mut_ptr().cast(), low);
        _mm256_storeu_si256(cells[8..].as_mut_ptr().cast(), high);
    }
    cells
}

/// A BFP4 group of [`bfp_groups_to_src`] by lookup, as the AVX-512 kernel
/// does it ([`bfp_group_to_src_avx512`]) in AVX2's eight lanes: the
/// group's 16 possible cells made once from its exponent
/// ([`BFP4_CELLS`]), the positive datums' in one register and the
/// negative ones' in another; each lane shifts its datum to its low bits
/// (`vpsrlvd`), picks its magnitude's cell from both (`vpermd`, which
/// reads the low three bits of its lane) and keeps one by its sign (bit
/// 3, moved to the top for `vblendvps`).
///
/// # Safety
/// The CPU must have AVX2 (the caller's target features, into which this
/// is inlined).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn bfp4_group_to_src_avx2(bytes: &[u8; 8], exp: u8) -> [u32; 16] {
    use std::arch::x86_64::*;
    let rebase = _mm256_set1_epi32(((exp as u32).wrapping_sub(133) << 10) as i32);
    let [a, b, c, d, e, f, g, h] = *bytes;
    let words = [[a, b, c, d], [e, f, g, h]].map(|w| _mm256_set1_epi32(i32::from_le_bytes(w)));
    // SAFETY: the CPU has AVX2 (this function's contract).
    unsafe {
        let positive = bfp4_cells_avx2::<0>(rebase);
        let negative = bfp4_cells_avx2::<8>(rebase);
        join_halves_avx2(
            bfp4_pick_avx2(words[0], positive, negative),
            bfp4_pick_avx2(words[1], positive, negative),
        )
    }
}

/// The cells of BFP4 datum values `FROM` to `FROM + 7` at the exponent
/// whose `(exp - 133) << 10` is `rebase`: [`BFP4_CELLS`]'s
/// `(normalised + rebase) & rebased | fixed`.
///
/// # Safety
/// The CPU must have AVX2 (the caller's target features).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn bfp4_cells_avx2<const FROM: usize>(
    rebase: std::arch::x86_64::__m256i,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    let t = &BFP4_CELLS;
    let at = const {
        assert!(FROM == 0 || FROM == 8);
        FROM
    };
    // SAFETY: eight of each array's sixteen values, from 0 or 8.
    let (normalised, rebased, fixed) = unsafe {
        (
            _mm256_loadu_si256(t.normalised[at..].as_ptr().cast()),
            _mm256_loadu_si256(t.rebased[at..].as_ptr().cast()),
            _mm256_loadu_si256(t.fixed[at..].as_ptr().cast()),
        )
    };
    _mm256_or_si256(
        _mm256_and_si256(_mm256_add_epi32(normalised, rebase), rebased),
        fixed,
    )
}

/// The cells of the eight BFP4 datums in the low half of `word` (in every
/// lane), datum `i` of them in lane `i`, from the positive and negative
/// values' cells.
///
/// # Safety
/// The CPU must have AVX2 (the caller's target features).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn bfp4_pick_avx2(
    word: std::arch::x86_64::__m256i,
    positive: std::arch::x86_64::__m256i,
    negative: std::arch::x86_64::__m256i,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    let datum = _mm256_srlv_epi32(word, _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28));
    let sign = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(datum));
    let if_positive = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(positive, datum));
    let if_negative = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(negative, datum));
    _mm256_castps_si256(_mm256_blendv_ps(if_positive, if_negative, sign))
}

/// A BFP2 group of [`bfp_groups_to_src`] by lookup in AVX2's eight lanes,
/// as [`bfp2_group_to_src_avx512`] does it in sixteen: the exponent's four
/// cells ([`BFP2_CELLS`]) in each 128-bit half of a register, each lane's
/// datum shifted to its low bits (`vpsrlvd`) and picking its cell within
/// its half (`vpermilps`, which reads the low two bits of its lane).
///
/// # Safety
/// The CPU must have AVX2 (the caller's target features, into which this
/// is inlined).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn bfp2_group_to_src_avx2(bytes: &[u8; 4], exp: u8) -> [u32; 16] {
    use std::arch::x86_64::*;
    let word = _mm256_set1_epi32(i32::from_le_bytes(*bytes));
    // SAFETY: the first eight of the exponent's sixteen cells.
    let table = unsafe { _mm256_loadu_si256(BFP2_CELLS.0[exp as usize].as_ptr().cast()) };
    let table = _mm256_castsi256_ps(table);
    let low = _mm256_srlv_epi32(word, _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14));
    let high = _mm256_srlv_epi32(word, _mm256_setr_epi32(16, 18, 20, 22, 24, 26, 28, 30));
    // SAFETY: the CPU has AVX2 (this function's contract).
    unsafe {
        join_halves_avx2(
            _mm256_castps_si256(_mm256_permutevar_ps(table, low)),
            _mm256_castps_si256(_mm256_permutevar_ps(table, high)),
        )
    }
}

/// [`bfp8_to_bf16`] for a row of 16 datums, each with its shared exponent,
/// in the `Dst16b` BF16 arrangement ([`encode_bf16`]), as the unpackers
/// store BFP "b" datums in `Dst`: by AVX2 where the CPU has it
/// (`bfp8_row_avx2`), else datum by datum with [`bfp8_to_bf16_arith`].
#[inline(always)]
pub fn bfp8_row_to_dst16(datums: &[u8; 16], exps: &[u8; 16]) -> [u16; 16] {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { bfp8_row_avx2(datums, exps) };
    }
    bfp8_row_portable(datums, exps)
}

/// [`bfp8_row_to_dst16`] for consecutive groups, each of 16 datums sharing
/// one exponent: the BFP8 datums of each from `groups`, its exponent from
/// `exps`, into the rows of `out` in turn. The CPU's features are checked
/// once for all of them.
#[inline(always)]
pub fn bfp8_groups_to_dst16(
    groups: impl Iterator<Item = [u8; 16]>,
    exps: impl Iterator<Item = u8>,
    out: &mut [[u16; 16]],
) {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::has_avx512_bw_vl() {
            // SAFETY: the CPU has AVX-512BW and AVX-512VL, checked just
            // above.
            return unsafe { bfp8_groups_avx512(groups, exps, out) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { bfp8_groups_avx2(groups, exps, out) };
        }
    }
    for ((row, datums), exp) in out.iter_mut().zip(groups).zip(exps) {
        *row = bfp8_row_portable(&datums, &[exp; 16]);
    }
}

/// [`bfp8_groups_to_dst16`] two groups at a time ([`bfp8_pair_avx512`]),
/// and a last group alone by [`bfp8_group_avx2`]. Rows without a group (or
/// an exponent) are left as they are.
///
/// # Safety
/// The CPU must have AVX-512BW and AVX-512VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vl")]
#[inline]
unsafe fn bfp8_groups_avx512(
    groups: impl Iterator<Item = [u8; 16]>,
    exps: impl Iterator<Item = u8>,
    out: &mut [[u16; 16]],
) {
    let mut groups = groups.zip(exps);
    let (pairs, last) = out.as_chunks_mut::<2>();
    for pair in pairs {
        match (groups.next(), groups.next()) {
            (Some((d0, e0)), Some((d1, e1))) => {
                // SAFETY: the CPU has AVX-512BW and AVX-512VL (this
                // function's contract).
                *pair = unsafe { bfp8_pair_avx512([&d0, &d1], [e0, e1]) };
            }
            (Some((d0, e0)), None) => {
                // SAFETY: as above; AVX-512 implies AVX2.
                pair[0] = unsafe { bfp8_group_avx2(&d0, e0) };
                return;
            }
            _ => return,
        }
    }
    if let (Some(row), Some((d, e))) = (last.first_mut(), groups.next()) {
        // SAFETY: as above; AVX-512 implies AVX2.
        *row = unsafe { bfp8_group_avx2(&d, e) };
    }
}

/// [`bfp8_lanes`] for two groups at once, each with its shared exponent, in
/// AVX-512's 32 16-bit lanes: the leading-zero count by the same nibble
/// look-ups (per 128-bit lane, one group to each), the normalising shift by
/// a per-lane variable shift in place of a multiplication, magnitude zero
/// picked out by a lane mask.
///
/// # Safety
/// The CPU must have AVX-512BW and AVX-512VL. The loads and the store are
/// of the arrays' own sizes (16 bytes each, 64 bytes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vl")]
#[inline]
unsafe fn bfp8_pair_avx512(datums: [&[u8; 16]; 2], exps: [u8; 2]) -> [[u16; 16]; 2] {
    use std::arch::x86_64::*;
    const LZ_HIGH: [u8; 16] = [0xFF, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    const LZ_LOW: [u8; 16] = [7, 6, 5, 5, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 3];
    let table = |t: &[u8; 16]| _mm256_broadcastsi128_si256(_mm_loadu_si128(t.as_ptr().cast()));
    let two = |a: __m128i, b: __m128i| _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(a), b);
    let d = two(
        _mm_loadu_si128(datums[0].as_ptr().cast()),
        _mm_loadu_si128(datums[1].as_ptr().cast()),
    );
    let e = two(_mm_set1_epi8(exps[0] as i8), _mm_set1_epi8(exps[1] as i8));
    let nibble = _mm256_set1_epi8(0x0F);
    let mag = _mm256_and_si256(d, _mm256_set1_epi8(0x7F));
    let high = _mm256_and_si256(_mm256_srli_epi16::<4>(mag), nibble);
    let low = _mm256_and_si256(mag, nibble);
    let lz = _mm256_min_epu8(
        _mm256_shuffle_epi8(table(&LZ_HIGH), high),
        _mm256_shuffle_epi8(table(&LZ_LOW), low),
    );
    let shifted = _mm512_sllv_epi16(_mm512_cvtepu8_epi16(mag), _mm512_cvtepu8_epi16(lz));
    let mantissa = _mm512_and_si512(shifted, _mm512_set1_epi16(0x3F));
    let exponent = _mm512_cvtepu8_epi16(_mm256_sub_epi8(e, lz));
    let signed = _mm512_cvtepi8_epi16(d);
    let sign = _mm512_and_si512(signed, _mm512_set1_epi16(i16::MIN));
    // Sign 15, mantissa 14:8, exponent 7:0; −infinity is 0x80FF.
    let fields = _mm512_or_si512(_mm512_slli_epi16::<9>(mantissa), exponent);
    let value = _mm512_or_si512(sign, fields);
    let zero_value = _mm512_or_si512(sign, _mm512_srli_epi16::<8>(signed));
    let zero = _mm256_cmpeq_epi8_mask(mag, _mm256_setzero_si256());
    let rows = _mm512_mask_blend_epi16(zero, value, zero_value);
    let mut out = [[0u16; 16]; 2];
    _mm512_storeu_si512(out.as_mut_ptr().cast(), rows);
    out
}

/// [`bfp8_groups_to_dst16`] with each group by [`bfp8_group_avx2`].
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn bfp8_groups_avx2(
    groups: impl Iterator<Item = [u8; 16]>,
    exps: impl Iterator<Item = u8>,
    out: &mut [[u16; 16]],
) {
    for ((row, datums), exp) in out.iter_mut().zip(groups).zip(exps) {
        // SAFETY: the CPU has AVX2 (this function's contract).
        *row = unsafe { bfp8_group_avx2(&datums, exp) };
    }
}

/// [`bfp8_row_to_dst16`] without vector instructions of its own.
#[inline(always)]
fn bfp8_row_portable(datums: &[u8; 16], exps: &[u8; 16]) -> [u16; 16] {
    std::array::from_fn(|i| encode_bf16(bfp8_to_bf16_arith(datums[i], exps[i])))
}

/// [`bfp8_row_to_dst16`] in AVX2's 16-bit lanes, one register for the row. The
/// magnitude's leading-zero count (in its 7-bit field, 7 for zero) is the
/// smaller of two nibble look-ups, and the normalising shift a
/// multiplication by `2^lz`: together they give [`normalise`]'s count and
/// remaining mantissa bits. Magnitude zero takes the datum sign-extended to
/// 16 bits, which is `0xFF80` (−infinity) for sign 1 and `0` for sign 0.
///
/// # Safety
/// The CPU must have AVX2. The loads and the store are of the arrays'
/// own sizes (16 bytes, 32 bytes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn bfp8_row_avx2(datums: &[u8; 16], exps: &[u8; 16]) -> [u16; 16] {
    use std::arch::x86_64::*;
    let e = _mm_loadu_si128(exps.as_ptr().cast());
    bfp8_lanes(datums, e)
}

/// [`bfp8_row_avx2`] for a group sharing exponent `exp`.
///
/// # Safety
/// As [`bfp8_row_avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn bfp8_group_avx2(datums: &[u8; 16], exp: u8) -> [u16; 16] {
    use std::arch::x86_64::*;
    bfp8_lanes(datums, _mm_set1_epi8(exp as i8))
}

/// The body of [`bfp8_row_avx2`], the exponents `e` in a register.
///
/// # Safety
/// As [`bfp8_row_avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn bfp8_lanes(datums: &[u8; 16], e: std::arch::x86_64::__m128i) -> [u16; 16] {
    use std::arch::x86_64::*;
    // Leading zeros of a 7-bit magnitude from its high three bits (none
    // set: 0xFF, so that the low nibble's count is the smaller) and from
    // its low nibble (3 more than the nibble's own count).
    const LZ_HIGH: [u8; 16] = [0xFF, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    const LZ_LOW: [u8; 16] = [7, 6, 5, 5, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 3];
    const POW2: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0];
    let table = |t: &[u8; 16]| _mm_loadu_si128(t.as_ptr().cast());
    let d = _mm_loadu_si128(datums.as_ptr().cast());
    let nibble = _mm_set1_epi8(0x0F);
    let mag = _mm_and_si128(d, _mm_set1_epi8(0x7F));
    let high = _mm_and_si128(_mm_srli_epi16(mag, 4), nibble);
    let low = _mm_and_si128(mag, nibble);
    let lz = _mm_min_epu8(
        _mm_shuffle_epi8(table(&LZ_HIGH), high),
        _mm_shuffle_epi8(table(&LZ_LOW), low),
    );
    let shifted = _mm256_mullo_epi16(
        _mm256_cvtepu8_epi16(mag),
        _mm256_cvtepu8_epi16(_mm_shuffle_epi8(table(&POW2), lz)),
    );
    // The six mantissa bits below the leading one, and the exponent
    // reduced by the shift in 8-bit arithmetic.
    let mantissa = _mm256_and_si256(shifted, _mm256_set1_epi16(0x3F));
    let exponent = _mm256_cvtepu8_epi16(_mm_sub_epi8(e, lz));
    let signed = _mm256_cvtepi8_epi16(d);
    let sign = _mm256_and_si256(signed, _mm256_set1_epi16(i16::MIN));
    // Sign 15, mantissa 14:8, exponent 7:0; −infinity is 0x80FF.
    let fields = _mm256_or_si256(_mm256_slli_epi16(mantissa, 9), exponent);
    let value = _mm256_or_si256(sign, fields);
    let zero_value = _mm256_or_si256(sign, _mm256_srli_epi16(signed, 8));
    let zero = _mm256_cvtepi8_epi16(_mm_cmpeq_epi8(mag, _mm_setzero_si128()));
    let row = _mm256_blendv_epi8(value, zero_value, zero);
    let mut out = [0u16; 16];
    _mm256_storeu_si256(out.as_mut_ptr().cast(), row);
    out
}

/// The unpacker's BFP8a → FP16 expansion (`BFP8aToFP16`).
///
/// Sign 1 with magnitude 0 gives `0xFC00` (−2^16 in Tensix FP16); sign 0
/// with magnitude 0 gives +0. A normalised exponent outside 0..=31 (after
/// 8-bit wrapping) is undefined behaviour.
#[inline]
pub fn bfp8a_to_fp16(datum: u8, exp: u8) -> fault::Result<u16> {
    let sign = (datum >> 7) as u16;
    if datum & 0x7F == 0 {
        return Ok(if sign != 0 { 0xFC00 } else { 0 });
    }
    let (lz, man) = normalise(datum);
    let e = exp.wrapping_sub(lz);
    if e & 0xE0 != 0 {
        return Err(Fault::undefined(format!(
            "BFP8a datum {datum:#04x} with shared exponent {exp:#04x} normalises to exponent {e:#04x}, outside the 5-bit range"
        )));
    }
    Ok((sign << 15) | ((e as u16) << 10) | ((man as u16) << 3))
}

/// Expand one datum of any BFP format: BF16 for the "B" forms, FP16 for the
/// "a" forms. `datum` holds `width` bits.
#[inline]
pub fn bfp_expand(exp: BfpExp, width: BfpWidth, datum: u8, shared_exp: u8) -> fault::Result<u16> {
    let d8 = bfp_datum_to_bfp8(datum, width);
    match exp {
        BfpExp::B => Ok(bfp8_to_bf16(d8, shared_exp)),
        BfpExp::A => bfp8a_to_fp16(d8, shared_exp),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arithmetic expansion is the table one, for every datum and
    /// every shared exponent.
    #[test]
    fn arithmetic_bfp8_expansion_is_the_definition() {
        for datum in 0..=255u8 {
            for exp in 0..=255u8 {
                assert_eq!(
                    bfp8_to_bf16_arith(datum, exp),
                    bfp8_to_bf16(datum, exp),
                    "datum {datum:#04x} exp {exp:#04x}"
                );
            }
        }
    }

    /// A group expansion into `SrcA`/`SrcB` cells, as [`bfp_groups_to_src`]
    /// takes its arguments.
    type SrcKernel = fn(&[u8], GroupExps, &mut dyn FnMut(usize, [u32; 16]));

    /// The group expansions to hold to the definition: the dispatcher, and
    /// each of AVX-512 (with and without VBMI) and AVX2 that the CPU has.
    fn src_kernels<const BITS: usize>() -> Vec<(&'static str, SrcKernel)> {
        let mut kernels: Vec<(&str, SrcKernel)> = vec![("dispatched", |b, e, out| {
            bfp_groups_to_src::<BITS>(b, e, out)
        })];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                kernels.push(("AVX-512", |b, e, out| {
                    // SAFETY: the CPU has AVX-512F, checked above.
                    unsafe { bfp_groups_to_src_avx512::<BITS>(b, e, out) }
                }));
            }
            if has_avx512_vbmi() {
                kernels.push(("AVX-512 VBMI", |b, e, out| {
                    // SAFETY: the CPU has AVX-512F and VBMI, checked above.
                    unsafe { bfp_groups_to_src_avx512_vbmi::<BITS>(b, e, out) }
                }));
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                kernels.push(("AVX2", |b, e, out| {
                    // SAFETY: the CPU has AVX2, checked above.
                    unsafe { bfp_groups_to_src_avx2::<BITS>(b, e, out) }
                }));
            }
        }
        kernels
    }

    /// The group expansion into `SrcA`/`SrcB` cells (the dispatcher, and
    /// each of AVX-512 and AVX2 that the CPU has, the portable one, and its
    /// datum arithmetic) is the table definition, for every datum and every
    /// shared exponent in every width, each datum in every lane; of two
    /// groups expanded together, each with its own exponent.
    #[test]
    fn src_cell_expansion_is_the_definition() {
        use crate::format::src_cell::SrcCell;
        fn check<const BITS: usize>(width: BfpWidth) {
            let kernels = src_kernels::<BITS>();
            for exp in 0..=255u8 {
                for first in 0..=255u8 {
                    let bytes: [u8; 32] = std::array::from_fn(|i| {
                        first
                            .wrapping_mul(29)
                            .wrapping_add((i as u8).wrapping_mul(17))
                    });
                    let bytes = &bytes[..4 * BITS];
                    let exps = [exp, exp.wrapping_mul(7).wrapping_add(90)];
                    // The table definition of each group's cells, which the
                    // datum arithmetic and the portable group form give too.
                    let want: [[u32; 16]; 2] = std::array::from_fn(|j| {
                        let datums = bfp_unpack_datums(width, &bytes[2 * BITS * j..]);
                        std::array::from_fn(|i| {
                            let bfp8 = bfp_datum_to_bfp8(datums[i], width);
                            let cell = SrcCell::from_bf16(bfp8_to_bf16(bfp8, exps[j])).canonical();
                            assert_eq!(bfp8_to_src_arith(bfp8, exps[j]), cell);
                            cell
                        })
                    });
                    for (j, group) in bytes.chunks(2 * BITS).enumerate() {
                        assert_eq!(bfp_group_to_src_portable::<BITS>(group, exps[j]), want[j]);
                    }
                    for (name, kernel) in &kernels {
                        let mut groups = [[0; 16]; 2];
                        kernel(bytes, GroupExps::Section(&exps), &mut |j, g| groups[j] = g);
                        assert_eq!(
                            groups, want,
                            "{name}: BFP{BITS} {bytes:02x?} exps {exps:02x?}"
                        );
                    }
                }
            }
        }
        check::<8>(BfpWidth::Bits8);
        check::<4>(BfpWidth::Bits4);
        check::<2>(BfpWidth::Bits2);
    }

    /// Runs of groups longer than the sixteen whose exponents the AVX-512
    /// forms take together: each group is expanded with its own exponent
    /// (from a section, or forced), and from a section only as many groups
    /// as it has exponents.
    #[test]
    fn src_cell_expansion_takes_each_group_its_exponent() {
        fn check<const BITS: usize>() {
            let kernels = src_kernels::<BITS>();
            let mut x = 0x9E37_79B9u32;
            let mut next = move || {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            };
            // Every exponent at every place in a section, over the bases.
            for base in 0..=255u8 {
                let bytes: Vec<u8> = (0..37 * 2 * BITS).map(|_| next()).collect();
                let section: Vec<u8> = (0..40u8)
                    .map(|i| base.wrapping_add(i.wrapping_mul(97)))
                    .collect();
                runs::<BITS>(&kernels, &bytes, &section);
            }
        }
        fn runs<const BITS: usize>(kernels: &[(&str, SrcKernel)], bytes: &[u8], section: &[u8]) {
            let runs = [
                (37, 37),
                (37, 20),
                (37, 16),
                (16, 16),
                (33, 40),
                (5, 0),
                (17, 3),
            ];
            for (groups, n_exps) in runs {
                let bytes = &bytes[..groups * 2 * BITS];
                for exps in [
                    GroupExps::Section(&section[..n_exps]),
                    GroupExps::Forced(section[n_exps % 40]),
                ] {
                    let want: Vec<[u32; 16]> = match exps {
                        GroupExps::Section(s) => bytes
                            .chunks_exact(2 * BITS)
                            .zip(s)
                            .map(|(g, &e)| bfp_group_to_src_portable::<BITS>(g, e))
                            .collect(),
                        GroupExps::Forced(e) => bytes
                            .chunks_exact(2 * BITS)
                            .map(|g| bfp_group_to_src_portable::<BITS>(g, e))
                            .collect(),
                    };
                    for (name, kernel) in kernels {
                        let mut got = Vec::new();
                        kernel(bytes, exps, &mut |j, g| {
                            assert_eq!(j, got.len(), "{name}: groups in order");
                            got.push(g);
                        });
                        assert_eq!(got, want, "{name}: BFP{BITS}, {groups} groups, {exps:?}");
                    }
                }
            }
        }
        check::<8>();
        check::<4>();
        check::<2>();
    }

    /// The `Dst16b` row forms (AVX2 where the CPU has it, and the portable
    /// one; an exponent per datum, and one for the group) are the table
    /// definition, for every datum and every shared exponent, each pair in
    /// every lane of a row beside different pairs.
    #[test]
    fn bfp8_row_expansion_is_the_definition() {
        for exp in 0..=255u8 {
            for first in 0..=255u8 {
                let datums: [u8; 16] = std::array::from_fn(|i| first.wrapping_add(17 * i as u8));
                let exps: [u8; 16] = std::array::from_fn(|i| exp.wrapping_add((i as u8) << 4));
                let rows = [
                    bfp8_row_to_dst16(&datums, &exps),
                    bfp8_row_portable(&datums, &exps),
                ];
                // Two groups together: these datums, and the same reversed
                // under another exponent.
                let mut reversed = datums;
                reversed.reverse();
                let exps2 = [exp, exp ^ 0xA5];
                let mut groups = [[0; 16]; 2];
                bfp8_groups_to_dst16(
                    [datums, reversed].into_iter(),
                    exps2.into_iter(),
                    &mut groups,
                );
                #[allow(unused_mut)]
                let mut all = vec![("dispatched", groups)];
                #[cfg(target_arch = "x86_64")]
                if crate::has_avx512_bw_vl() {
                    // SAFETY: the CPU has AVX-512BW and AVX-512VL, checked
                    // just above.
                    let pair = unsafe { bfp8_pair_avx512([&datums, &reversed], exps2) };
                    all.push(("AVX-512 pair", pair));
                }
                for (name, groups) in all {
                    for (j, (group, datums)) in groups.iter().zip([datums, reversed]).enumerate() {
                        for i in 0..16 {
                            assert_eq!(
                                group[i],
                                encode_bf16(bfp8_to_bf16(datums[i], exps2[j])),
                                "{name}: lane {i} of group {j}"
                            );
                        }
                    }
                }
                for row in rows {
                    for i in 0..16 {
                        assert_eq!(
                            row[i],
                            encode_bf16(bfp8_to_bf16(datums[i], exps[i])),
                            "datum {:#04x} exp {:#04x} in lane {i}",
                            datums[i],
                            exps[i]
                        );
                    }
                }
            }
        }
    }

    use proptest::prelude::*;

    /// `$f::<LANES, BITS>(args)` for the elements of form `$e` and width
    /// `$w`, each form and width its own constants.
    #[cfg(target_arch = "x86_64")]
    macro_rules! by_form {
        ($e:expr, $w:expr, $f:ident($($arg:expr),*)) => {{
            use quad_lanes::{A_ELEMENTS, B_ELEMENTS};
            use BfpExp::{A, B};
            use BfpWidth::{Bits2, Bits4, Bits8};
            match ($e, $w) {
                (B, Bits8) => $f::<B_ELEMENTS, 8>($($arg),*),
                (B, Bits4) => $f::<B_ELEMENTS, 4>($($arg),*),
                (B, Bits2) => $f::<B_ELEMENTS, 2>($($arg),*),
                (A, Bits8) => $f::<A_ELEMENTS, 8>($($arg),*),
                (A, Bits4) => $f::<A_ELEMENTS, 4>($($arg),*),
                (A, Bits2) => $f::<A_ELEMENTS, 2>($($arg),*),
            }
        }};
    }

    /// [`assemble_quads_avx512`] of the four groups of elements `groups`,
    /// in form `e` and width `w`.
    ///
    /// # Safety
    /// The CPU must have AVX-512BW, AVX-512VL and BMI2.
    #[cfg(target_arch = "x86_64")]
    unsafe fn quads(
        e: BfpExp,
        w: BfpWidth,
        groups: [&[u16; 16]; 4],
        exps: &mut [u8],
        data: &mut [u8],
    ) {
        use std::arch::x86_64::*;
        // The layout `assemble_quads_avx512` documents, built here rather
        // than by `halves_avx512`: elements 0 to 7 of group g at 8g in the
        // first register, elements 8 to 15 in the second.
        let half =
            |from: usize| -> [u16; 32] { std::array::from_fn(|i| groups[i / 8][from + i % 8]) };
        // SAFETY: each array is 64 bytes, the width of its load.
        let x = [half(0), half(8)].map(|h| unsafe { _mm512_loadu_si512(h.as_ptr().cast()) });
        by_form!(e, w, assemble_quads_avx512(exps, data, |_| x));
    }

    /// [`assemble_pairs_avx2`] of the two groups of elements `groups`, in
    /// form `e` and width `w`.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn pairs(
        e: BfpExp,
        w: BfpWidth,
        groups: [&[u16; 16]; 2],
        exps: &mut [u8],
        data: &mut [u8],
    ) {
        use std::arch::x86_64::*;
        // The layout `assemble_pairs_avx2` documents, built here rather
        // than by `halves_avx2`: elements 0 to 7 of group g at 8g in the
        // first register, elements 8 to 15 in the second.
        let half =
            |from: usize| -> [u16; 16] { std::array::from_fn(|i| groups[i / 8][from + i % 8]) };
        // SAFETY: each array is 32 bytes, the width of its load.
        let x = [half(0), half(8)].map(|h| unsafe { _mm256_loadu_si256(h.as_ptr().cast()) });
        by_form!(e, w, assemble_pairs_avx2(exps, data, |_| x));
    }

    /// What the portable assembler writes to L1 for `groups`: their shared
    /// exponents, and their datums packed to the width.
    fn portable_bytes<const N: usize>(
        e: BfpExp,
        w: BfpWidth,
        groups: [&[u16; 16]; N],
    ) -> ([u8; N], Vec<u8>) {
        let n = w.group_bytes();
        let mut exps = [0u8; N];
        let mut bytes = vec![0u8; N * n];
        for ((g, shared), out) in groups.iter().zip(&mut exps).zip(bytes.chunks_exact_mut(n)) {
            let mut want = BfpGroup::default();
            assemble_portable(e, w, g, &mut want);
            *shared = want.shared_exp;
            bfp_pack_datums(w, &want.datums, out);
        }
        (exps, bytes)
    }

    /// The lane assembler against the portable rule, where the CPU has
    /// AVX2: every 16-bit pattern in every lane position, beside groups
    /// whose other elements make it the largest exponent, one exponent
    /// below, several below, and far below (a shift past 8), in every form
    /// and width.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn lane_assembler_is_the_portable_one() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let avx512 = crate::has_avx512_bw_vl_bmi2();
        use BfpExp::{A, B};
        use BfpWidth::{Bits2, Bits4, Bits8};
        let mut checked = 0u32;
        for (e, w) in [
            (B, Bits8),
            (B, Bits4),
            (B, Bits2),
            (A, Bits8),
            (A, Bits4),
            (A, Bits2),
        ] {
            for x in 0..=u16::MAX {
                let lane = (x % 16) as usize;
                let others = match x % 5 {
                    0 => 0u16,
                    1 => x.wrapping_add(0x0080) ^ 0x8000,
                    2 => x.wrapping_sub(0x0400),
                    3 => x.rotate_left(3),
                    _ => 0x7F80 | (x & 0x8001),
                };
                let mut elems = [0u16; 16];
                for (i, v) in elems.iter_mut().enumerate() {
                    *v = others.wrapping_add(i as u16 * 0x0111);
                }
                elems[lane] = x;
                let mut want = BfpGroup::default();
                assemble_portable(e, w, &elems, &mut want);
                let mut got = BfpGroup::default();
                // SAFETY: the CPU has AVX2, checked above.
                unsafe { assemble_lanes(e, w, &elems, &mut got) };
                assert_eq!(got, want, "{e:?} {w:?} {elems:04x?}");
                // In each of a pair's two places, beside a group whose
                // elements are the same in another order, with another
                // exponent spread; and alone, as a last pair of one.
                let mut other = elems;
                other.rotate_left(7);
                other.reverse();
                other[lane] = x.rotate_left(9);
                let n = w.group_bytes();
                for pair in [[&elems, &other], [&other, &elems]] {
                    let (want_exps, want_bytes) = portable_bytes(e, w, pair);
                    let mut exps = [0u8; 2];
                    let mut bytes = [0u8; 32];
                    // SAFETY: the CPU has AVX2, checked above.
                    unsafe { pairs(e, w, pair, &mut exps, &mut bytes) };
                    assert_eq!(
                        (exps, &bytes[..2 * n]),
                        (want_exps, &want_bytes[..]),
                        "AVX2 pair: {e:?} {w:?} {pair:04x?}"
                    );
                    assert!(bytes[2 * n..].iter().all(|b| *b == 0));
                    let mut exps = [0u8; 2];
                    let mut bytes = [0u8; 32];
                    // SAFETY: as above.
                    unsafe { pairs(e, w, pair, &mut exps[..1], &mut bytes) };
                    assert_eq!(
                        (exps, &bytes[..]),
                        (
                            [want_exps[0], 0],
                            &[&want_bytes[..n], &[0u8; 32][n..]].concat()[..]
                        ),
                        "AVX2, 1 of a pair: {e:?} {w:?} {pair:04x?}"
                    );
                }
                if avx512 {
                    let mut got = BfpGroup::default();
                    // SAFETY: the CPU has AVX-512BW and AVX-512VL, checked
                    // above (with BMI2).
                    unsafe { assemble_lanes_avx512(e, w, &elems, &mut got) };
                    assert_eq!(got, want, "AVX-512: {e:?} {w:?} {elems:04x?}");
                    // In each of a quad's four places, beside groups whose
                    // elements are the same in another order and with
                    // other exponent spreads.
                    let mut others = [elems; 3];
                    for (k, other) in others.iter_mut().enumerate() {
                        other.rotate_left(5 * k + 1);
                        other.reverse();
                        other[lane] = x.rotate_left(7 + 3 * k as u32);
                    }
                    for place in 0..4 {
                        let mut quad = [&others[0], &others[1], &others[2], &others[2]];
                        let mut rest = others.iter();
                        for (q, slot) in quad.iter_mut().enumerate() {
                            *slot = if q == place {
                                &elems
                            } else {
                                rest.next().unwrap()
                            };
                        }
                        let (mut want_exps, want) = portable_bytes(e, w, quad);
                        let mut want_bytes = [0u8; 64];
                        want_bytes[..4 * n].copy_from_slice(&want);
                        let mut exps = [0u8; 4];
                        let mut bytes = [0u8; 64];
                        // SAFETY: the CPU has AVX-512BW, AVX-512VL and
                        // BMI2, checked above.
                        unsafe { quads(e, w, quad, &mut exps, &mut bytes) };
                        assert_eq!(
                            (exps, bytes),
                            (want_exps, want_bytes),
                            "AVX-512 quad, place {place}: {e:?} {w:?} {:04x?}",
                            quad
                        );
                        // A last quad of fewer groups writes theirs only.
                        let k = 1 + place % 3;
                        let mut exps = [0u8; 4];
                        let mut bytes = [0u8; 64];
                        // SAFETY: as above.
                        unsafe { quads(e, w, quad, &mut exps[..k], &mut bytes) };
                        want_exps[k..].fill(0);
                        want_bytes[k * n..].fill(0);
                        assert_eq!(
                            (exps, bytes),
                            (want_exps, want_bytes),
                            "AVX-512, {k} of a quad: {e:?} {w:?} {:04x?}",
                            quad
                        );
                    }
                }
                checked += 1;
            }
        }
        assert_eq!(checked, 6 * 65536);
    }

    /// Datums of 4 and 2 bits packed as the widths' definition says (each
    /// byte `8 / BITS` consecutive datums, the first in the low bits), the
    /// bits above a datum's width ignored: against a datum-by-datum packing,
    /// for every datum value in every position beside varied others.
    #[test]
    fn narrow_datums_pack_least_significant_first() {
        fn by_datum<const BITS: usize>(datums: &[u8; 16]) -> Vec<u8> {
            let mut out = vec![0u8; 2 * BITS];
            for (i, d) in datums.iter().enumerate() {
                let at = i * BITS;
                out[at / 8] |= (d & ((1 << BITS) - 1)) << (at % 8);
            }
            out
        }
        fn check<const BITS: usize>(width: BfpWidth) {
            for d in 0..=255u8 {
                for lane in 0..16 {
                    let mut datums: [u8; 16] =
                        std::array::from_fn(|i| (i as u8).wrapping_mul(0x9D) ^ d.rotate_left(3));
                    datums[lane] = d;
                    let mut out = [0xA5u8; 16];
                    bfp_pack_datums(width, &datums, &mut out);
                    assert_eq!(
                        out[..2 * BITS],
                        by_datum::<BITS>(&datums)[..],
                        "{datums:02x?}"
                    );
                    assert!(
                        out[2 * BITS..].iter().all(|&b| b == 0xA5),
                        "wrote past the group"
                    );
                    let back = bfp_unpack_datums(width, &out);
                    let mask = (1u8 << BITS) - 1;
                    assert_eq!(back, datums.map(|d| d & mask));
                }
            }
        }
        check::<4>(BfpWidth::Bits4);
        check::<2>(BfpWidth::Bits2);
    }

    /// Groups into `Dst16b` rows, for every count of rows from 0 to 5 with
    /// as many groups, one fewer, or one more: each row with a group is that
    /// group's expansion, and a row without one is left as it was (the
    /// AVX-512 build goes two groups at a time).
    #[test]
    fn dst16_groups_fill_the_rows_they_have() {
        for rows in 0..=5usize {
            for groups in rows.saturating_sub(1)..=rows + 1 {
                let datums: Vec<[u8; 16]> = (0..groups)
                    .map(|g| std::array::from_fn(|i| (g * 37 + i * 11) as u8))
                    .collect();
                let exps: Vec<u8> = (0..groups).map(|g| 120 + g as u8).collect();
                let mut out = vec![[0xABCDu16; 16]; rows];
                bfp8_groups_to_dst16(datums.iter().copied(), exps.iter().copied(), &mut out);
                for (r, row) in out.iter().enumerate() {
                    let want = match datums.get(r) {
                        Some(d) => d.map(|d| encode_bf16(bfp8_to_bf16(d, exps[r]))),
                        None => [0xABCD; 16],
                    };
                    assert_eq!(*row, want, "row {r} of {rows} with {groups} groups");
                }
            }
        }
    }

    /// 16 elements, half of them sharing the top bits of the first, so the
    /// group mixes exponents near and far from its largest.
    fn group() -> impl Strategy<Value = [u16; 16]> {
        (any::<[u16; 16]>(), any::<u16>()).prop_map(|(mut e, near)| {
            let top = e[0] & 0xFF00;
            for x in e.iter_mut().step_by(2) {
                *x = top ^ (near & 0x83FF) ^ (*x & 0x0F);
            }
            e
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The AVX2 and AVX-512 builds of the assembler (each where the CPU
        /// has it) and the portable one agree on every form and width.
        #[test]
        fn every_build_of_the_assembler_agrees(elems in group()) {
            use BfpExp::{A, B};
            use BfpWidth::{Bits2, Bits4, Bits8};
            for (e, w) in [(B, Bits8), (B, Bits4), (B, Bits2), (A, Bits8), (A, Bits4), (A, Bits2)] {
                let mut portable = BfpGroup::default();
                assemble_portable(e, w, &elems, &mut portable);
                prop_assert_eq!(bfp_assemble(e, w, &elems), portable);
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    let mut lanes = BfpGroup::default();
                    // SAFETY: the CPU has AVX2, checked just above.
                    unsafe { assemble_lanes(e, w, &elems, &mut lanes) };
                    prop_assert_eq!(lanes, portable);
                }
                #[cfg(target_arch = "x86_64")]
                if crate::has_avx512_bw_vl() {
                    let mut lanes = BfpGroup::default();
                    // SAFETY: the CPU has AVX-512BW and AVX-512VL, checked
                    // just above.
                    unsafe { assemble_lanes_avx512(e, w, &elems, &mut lanes) };
                    prop_assert_eq!(lanes, portable);
                }
            }
        }
    }
}
