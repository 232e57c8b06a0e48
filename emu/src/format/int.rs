//! Sign-magnitude integers and the packer's INT32 → INT8/UINT8 conversion.
//!
//! INT32, INT16 and INT8 are sign-magnitude with the sign in the top bit
//! (Packers/FormatConversion.md, "Final L1 output format"); UINT8 is a plain
//! unsigned byte. Both zeros exist.

/// Value of a `width`-bit sign-magnitude pattern (width 8, 16 or 32). Both
/// zeros give 0.
#[inline]
pub const fn sign_mag_value(bits: u32, width: u32) -> i64 {
    let sign = (bits >> (width - 1)) & 1;
    let mag = (bits & ((1u32 << (width - 1)) - 1)) as i64;
    if sign == 1 {
        -mag
    } else {
        mag
    }
}

/// `width`-bit sign-magnitude pattern of `value`, clamping the magnitude to
/// the largest representable one. Zero is encoded as +0.
#[inline]
pub const fn sign_mag_saturating(value: i64, width: u32) -> u32 {
    let max = (1u64 << (width - 1)) - 1;
    let mag = value.unsigned_abs();
    let mag = if mag > max { max } else { mag } as u32;
    if value < 0 {
        (1u32 << (width - 1)) | mag
    } else {
        mag
    }
}

/// The packer's early conversion from INT32 to INT8 or UINT8 with
/// `Read_raw = false`: the 31-bit magnitude is shifted right by the low five
/// bits of `shift`, rounded to nearest with ties away from zero using the
/// shifted-out bits, then saturated (Packers/FormatConversion.md, "Early
/// format conversion" table and "Configuring the conversions", To INT8 / To
/// UINT8).
///
/// * INT8: the sign bit is left as it is and the magnitude saturates at 127,
///   so a negative input whose magnitude rounds to 0 gives `0x80`.
/// * UINT8: the range is 0 to 255; every input with the sign bit set (−0
///   included) saturates to 0.
///
/// ttsim (`src/tensix.cpp`, PACR) models the unshifted case the same way.
#[inline]
pub const fn int32_to_int8_descaled(x: u32, shift: u8, unsigned: bool) -> u8 {
    let shift = (shift & 31) as u32;
    let sign = x & 0x8000_0000;
    let mag = x & 0x7FFF_FFFF;
    let rounded = if shift == 0 {
        mag
    } else {
        (mag >> shift) + ((mag >> (shift - 1)) & 1)
    };
    if unsigned {
        if sign != 0 {
            0
        } else if rounded > 255 {
            255
        } else {
            rounded as u8
        }
    } else {
        let m = if rounded > 127 { 127 } else { rounded };
        ((sign >> 24) as u8) | m as u8
    }
}

/// The packer's early conversion from a 32-bit `Dst` datum (INT32 or FP32)
/// to INT8 or UINT8 with `Read_raw = true`: the sign bit and low seven bits
/// (INT8), or the low eight bits (UINT8), of the magnitude or mantissa
/// (Packers/FormatConversion.md, "Early format conversion" table).
#[inline]
pub const fn int32_to_int8_raw(x: u32, unsigned: bool) -> u8 {
    if unsigned {
        x as u8
    } else {
        (((x >> 24) & 0x80) | (x & 0x7F)) as u8
    }
}

/// The packer's early conversion from a 16-bit float `Dst` datum (BF16 or
/// FP16) to INT8: the sign bit only, other bits zero
/// (Packers/FormatConversion.md, "Early format conversion" table).
#[inline]
pub const fn float16_to_int8_sign_only(x: u16) -> u8 {
    ((x >> 8) & 0x80) as u8
}
