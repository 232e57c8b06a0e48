//! Field access for the floating-point bit patterns and the truncating,
//! saturating re-encodings shared by the packers and unpackers.
//!
//! Two "wide" layouts carry every float in this module:
//! * 8-bit-exponent types (FP32, TF32, BF16, E8M6) as an FP32 bit pattern
//!   whose unused low mantissa bits are zero;
//! * 5-bit-exponent types (FP16, E5M7, E5M6, FP8 e5m2) as an FP16 bit pattern
//!   whose unused low mantissa bits are zero.
//!
//! Meaning of the patterns: tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/FloatBitPatterns.md`. In
//! particular the Tensix FP16 has no NaN, and exponent 31 is an ordinary
//! binade whose all-ones mantissa stands in for infinity.

/// FP32 sign bit.
pub const FP32_SIGN: u32 = 0x8000_0000;
/// FP32 exponent field.
pub const FP32_EXP: u32 = 0x7F80_0000;
/// FP32 mantissa field.
pub const FP32_MAN: u32 = 0x007F_FFFF;
/// FP16 / BF16 sign bit.
pub const H_SIGN: u16 = 0x8000;
/// FP16 exponent field.
pub const FP16_EXP: u16 = 0x7C00;
/// FP16 mantissa field.
pub const FP16_MAN: u16 = 0x03FF;
/// BF16 exponent field.
pub const BF16_EXP: u16 = 0x7F80;
/// Largest Tensix FP16 magnitude: exponent 31, mantissa all ones. The Matrix
/// Unit writes it for results too large to represent (FloatBitPatterns.md,
/// "FP16", note ‡), so it serves as the saturation value.
pub const FP16_MAX_MAG: u16 = 0x7FFF;

/// Biased exponent of an FP32 pattern.
#[inline]
pub const fn fp32_exponent(x: u32) -> u32 {
    (x >> 23) & 0xFF
}

/// Biased exponent of a BF16 pattern.
#[inline]
pub const fn bf16_exponent(x: u16) -> u16 {
    (x >> 7) & 0xFF
}

/// Biased exponent of an FP16 pattern.
#[inline]
pub const fn fp16_exponent(x: u16) -> u16 {
    (x >> 10) & 0x1F
}

/// BF16 as the FP32 pattern it is the top half of.
#[inline]
pub const fn bf16_to_fp32(x: u16) -> u32 {
    (x as u32) << 16
}

/// FP8 (e5m2) as the FP16 pattern it is the top byte of.
#[inline]
pub const fn fp8_to_fp16(x: u8) -> u16 {
    (x as u16) << 8
}

/// Mask keeping the top `keep` of `width` mantissa bits.
#[inline]
const fn keep_mask(width: u32, keep: u32) -> u32 {
    !((1u32 << (width - keep)) - 1)
}

/// Re-encode an 8-bit-exponent value carried in FP32 layout with `from_man`
/// meaningful mantissa bits into one with `to_man` bits, as the packer's late
/// conversion does (Packers/FormatConversion.md, "Late format conversion"):
/// if the mantissa narrows it is truncated and denormals are flushed to zero
/// (a NaN whose surviving mantissa bits are zero becomes infinity); otherwise
/// every bit is kept, denormals and NaN included. A flushed denormal keeps its
/// sign. The page does not say; ttsim has no FP32 → BF16 late conversion to
/// compare with (its FP32 → BFP8 flush gives +0, and a BFP zero magnitude is
/// written without its sign, so the two agree there).
#[inline]
pub const fn e8_narrow(x: u32, from_man: u32, to_man: u32) -> u32 {
    if to_man >= from_man {
        return x;
    }
    if x & FP32_EXP == 0 {
        return x & FP32_SIGN;
    }
    x & (FP32_SIGN | FP32_EXP | (FP32_MAN & keep_mask(23, to_man)))
}

/// As [`e8_narrow`], for a 5-bit-exponent value carried in FP16 layout.
#[inline]
pub const fn e5_narrow(x: u16, from_man: u32, to_man: u32) -> u16 {
    if to_man >= from_man {
        return x;
    }
    if x & FP16_EXP == 0 {
        return x & H_SIGN;
    }
    x & (H_SIGN | FP16_EXP | (FP16_MAN & keep_mask(10, to_man) as u16))
}

/// Widen a 5-bit-exponent value (FP16 layout) to an 8-bit-exponent value
/// (FP32 layout, `to_man` mantissa bits): the
/// exponent is rebiased by 127 − 15 = 112, then the mantissa truncated if it
/// narrows.
///
/// Exponent 0 is special. Packers/FormatConversion.md ("Late format
/// conversion", denormal table) says that when the exponent widens, denormals
/// are flushed to zero if the mantissa narrows and "mishandled" otherwise,
/// without saying how. ttsim (`src/tensix.cpp`, PACR late conversion) settles
/// it by the width of the result, and this follows it:
/// * to the 7-bit mantissa of BF16 (BF16 output, and the BF16 datum a "B"
///   form BFP group is assembled from: the page's "Converted to BF16 (as per
///   first row)"), a zero exponent field gives +0 whatever the mantissa,
///   sign included (ttsim's FP16 → BF16 and BFP8a → BFP8 conversions). This
///   covers the "mishandled" E5M6 → BF16 and E5M7 → BF16 cases, e.g. a ReLU
///   clamp to a denormal FP16 threshold under a BFP8a intermediate format;
/// * to a 32-bit result (FP32, TF32) the mantissa bits are copied under a
///   zero exponent field, an FP32 denormal 2^112 too small (ttsim's FP16 →
///   FP32 conversion).
///
/// Exponent 31 is an ordinary binade (FloatBitPatterns.md, "FP16"), so it
/// widens to exponent 143, never to infinity.
#[inline]
pub const fn e5_to_e8(x: u16, to_man: u32) -> u32 {
    let sign = ((x & H_SIGN) as u32) << 16;
    let exp = fp16_exponent(x) as u32;
    let man = (x & FP16_MAN) as u32;
    if exp == 0 {
        if to_man <= 7 {
            return 0;
        }
        return sign | (man << 13);
    }
    let wide = sign | ((exp + 112) << 23) | (man << 13);
    wide & (FP32_SIGN | FP32_EXP | (FP32_MAN & keep_mask(23, to_man)))
}

/// Narrow an 8-bit-exponent value (FP32 layout) to a 5-bit-exponent value
/// with `to_man` mantissa bits in FP16 layout: saturate, then truncate
/// (Packers/FormatConversion.md, "Late format conversion": "Saturate if there
/// is narrowing of exponent, then truncate if there is narrowing of
/// mantissa").
///
/// With `e = exponent − 112`:
/// * `e > 31` (including infinity and NaN) saturates to exponent 31 with an
///   all-ones mantissa, the Tensix stand-in for infinity, keeping the sign;
/// * `e < 0`, i.e. `|x| < 2^-15` and every denormal, becomes zero with the
///   sign kept;
/// * `e == 0`, i.e. `2^-15 ≤ |x| < 2^-14`, keeps the truncated mantissa
///   under a zero exponent field. `|x| = 2^-15` therefore gives zero and the
///   rest of the range gives an FP16 denormal pattern whose value is not `x`:
///   this is the range the page calls "mishandled".
///
/// The exact patterns are ttsim's (`src/tensix.cpp`, PACR FP32 → FP16 late
/// conversion and UNPACR FP32 → FP16), which agree with everything the page
/// states.
#[inline]
pub const fn e8_to_e5(x: u32, to_man: u32) -> u16 {
    let sign = ((x >> 16) as u16) & H_SIGN;
    let e = fp32_exponent(x) as i32 - 112;
    let man_mask = (FP16_MAN as u32 & keep_mask(10, to_man)) as u16;
    if e < 0 {
        sign
    } else if e > 31 {
        sign | FP16_EXP | man_mask
    } else {
        sign | ((e as u16) << 10) | (((x >> 13) as u16) & man_mask)
    }
}
