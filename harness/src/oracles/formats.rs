//! The emulator's format conversions against the `half` crate, where the
//! hardware behaves as IEEE 754 does: widening BF16 and FP16 normals, and
//! narrowing FP32 to BF16 or FP16 wherever the hardware's rounding or
//! truncation and IEEE round-to-nearest-even must give the same answer
//! (not at ties, not for denormals, NaN, or FP16 exponent 31, which Tensix
//! treats as an ordinary binade: `FloatBitPatterns.md`).

use super::{expect_agreement, Finding, Verdict};
use half::{bf16, f16};
use tensix_emu::format::{float, pack, unpack};

/// `formats`: panics when a conversion disagrees with `half`.
pub fn formats(input: u32) -> Verdict {
    expect_agreement(check_formats(input), "formats")
}

fn fail(what: &str, input: u32, emu: u32, ieee: u32) -> Finding {
    Finding::new(
        format!("{what} disagrees with IEEE (half)"),
        format!("input {input:#010x}: emulator {emu:#x}, half {ieee:#x}"),
    )
}

/// Checks every IEEE-like conversion of `input` (its low 16 bits for the
/// 16-bit sources).
pub fn check_formats(input: u32) -> Result<Verdict, Finding> {
    let x16 = input as u16;
    // BF16 → FP32 widening is exact for every non-NaN pattern.
    let b = bf16::from_bits(x16);
    if !b.is_nan() {
        let emu = float::bf16_to_fp32(x16);
        let ieee = b.to_f32().to_bits();
        if emu != ieee {
            return Err(fail("BF16 → FP32", input, emu, ieee));
        }
    }
    // FP16 → FP32 widening (late conversion) is exact for IEEE normals.
    let h = f16::from_bits(x16);
    let e16 = (x16 >> 10) & 0x1f;
    if e16 != 0 && e16 != 31 {
        let emu = float::e5_to_e8(x16, 23);
        let ieee = h.to_f32().to_bits();
        if emu != ieee {
            return Err(fail("FP16 → FP32", input, emu, ieee));
        }
    }
    // FP32 → BF16 rounding (early conversion): ties away from zero, so it
    // matches round-to-nearest-even except at exact ties; denormals and NaN
    // are treated specially.
    let f = f32::from_bits(input);
    let low = input & 0xffff;
    let e32 = (input >> 23) & 0xff;
    if e32 != 0 && e32 != 255 && low != 0x8000 {
        let emu = u32::from(pack::fp32_round_to_bf16(input));
        let ieee = u32::from(bf16::from_f32(f).to_bits());
        let ieee_normal = (ieee >> 7) & 0xff != 0;
        if ieee_normal && emu != ieee {
            return Err(fail("FP32 → BF16 (rounding)", input, emu, ieee));
        }
    }
    // FP32 → BF16 truncation (unpacker) equals IEEE on exactly representable
    // normal values.
    if e32 != 0 && e32 != 255 && low == 0 {
        let emu = u32::from(unpack::fp32_to_bf16(input));
        let ieee = u32::from(bf16::from_f32(f).to_bits());
        if emu != ieee {
            return Err(fail("FP32 → BF16 (truncation)", input, emu, ieee));
        }
    }
    // FP32 → FP16 (saturating, truncating) equals IEEE on values FP16
    // represents exactly as normals below exponent 31.
    if (113..=142).contains(&e32) && input & 0x1fff == 0 {
        let emu = u32::from(unpack::fp32_to_fp16(input));
        let ieee = u32::from(f16::from_f32(f).to_bits());
        if emu != ieee {
            return Err(fail("FP32 → FP16", input, emu, ieee));
        }
        let late = u32::from(float::e8_to_e5(input, 10));
        if late != ieee {
            return Err(fail("FP32 → FP16 (late conversion)", input, late, ieee));
        }
    }
    Ok(Verdict::Agree)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_reference_tie_is_skipped_not_failed() {
        // 0x3F808000 is the device-fact tie: away from zero gives 0x3F81,
        // IEEE gives 0x3F80; the oracle must not call that a disagreement.
        assert_eq!(super::check_formats(0x3f80_8000), Ok(super::Verdict::Agree));
    }
}
