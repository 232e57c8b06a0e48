//! The unpackers' format conversion: one L1 datum → one `SrcA`/`SrcB` cell or
//! one `Dst` cell.
//!
//! Source: the `FormatConversion` function of the `UNPACR` functional model,
//! tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/UNPACR_Regular.md` (shared with
//! Blackhole), with the tables of `.../Unpackers/FormatConversion.md`. The
//! one helper that page leaves undefined, `FP32ToFP16`, follows ttsim
//! (`src/tensix.cpp`, `TENSIX_EXECUTE_UNPACR`).

use super::bfp;
use super::data_format::{BfpExp, DataFormat, Fp8Format};
use super::dst;
use super::float::{e8_to_e5, fp8_to_fp16, FP32_EXP, FP32_SIGN};
use super::src_cell::SrcCell;
use crate::fault::{self, Fault};

/// The configuration one conversion depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnpackConfig {
    /// `InDataFormat` (tile descriptor or `Unpack_data_format_cntx`).
    pub in_format: DataFormat,
    /// `OutDataFormat` (`REG2_Out_data_format` or
    /// `Unpack_out_data_format_cntx`).
    pub out_format: DataFormat,
    /// Unpacking to `Dst` (unpacker 0 with `Unpack_If_Sel`) rather than to
    /// `SrcA` / `SrcB`.
    pub to_dst: bool,
    /// `ALU_FORMAT_SPEC_REG0_SrcAUnsigned` (unpacker 0) or `SrcBUnsigned`
    /// (unpacker 1): INT8 means UINT8.
    pub int8_unsigned: bool,
    /// `Unp_LF8_4b_exp` (Blackhole): which FP8 the FP8 code means.
    pub fp8: Fp8Format,
}

/// Where a converted datum goes, in the storage arrangement of its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unpacked {
    /// A `SrcA` / `SrcB` cell.
    Src(SrcCell),
    /// A `Dst16b` cell (BF16, FP16, Integer "8", Integer "16").
    Dst16(u16),
    /// A `Dst32b` value (FP32, Integer "32"); written with the `Dst32b` row
    /// pairing of [`super::dst`].
    Dst32(u32),
}

/// The unpacker's FP32 → FP16 conversion (`FP32ToFP16`, which the ISA page
/// uses without defining): saturate to `±0x7FFF` when the rebiased exponent
/// exceeds 31 (infinity and NaN included), give a signed zero below 2^-15,
/// otherwise truncate the mantissa. ttsim's definition; it matches the
/// packer's documented FP32 → FP16 late conversion
/// ([`super::float::e8_to_e5`]).
#[inline]
pub const fn fp32_to_fp16(x: u32) -> u16 {
    e8_to_e5(x, 10)
}

/// The unpacker's FP32 → BF16 conversion: denormals flushed to zero with
/// their sign kept, then the low 16 bits dropped (no rounding, so a NaN whose
/// top mantissa bits are zero becomes infinity).
#[inline]
pub const fn fp32_to_bf16(x: u32) -> u16 {
    let x = if x & FP32_EXP == 0 { x & FP32_SIGN } else { x };
    (x >> 16) as u16
}

fn unpack_undefined(cfg: &UnpackConfig, why: &str) -> Fault {
    Fault::undefined(format!(
        "unpacking {} to {} {} is undefined: {why}",
        cfg.in_format,
        cfg.out_format,
        if cfg.to_dst { "in Dst" } else { "in SrcA/SrcB" },
    ))
}

/// Convert one L1 datum. `datum` holds the datum's bits (masked to the input
/// format's width); `exp` is the shared exponent for BFP input (from the
/// exponent section or `FORCED_SHARED_EXP_shared_exp`), ignored otherwise.
///
/// Follows `FormatConversion` in the `UNPACR` functional model:
/// * FP32 input may become FP32 (`Dst` only), TF32 (`Dst`: FP32; Src: the
///   top 19 bits), BF16 ([`fp32_to_bf16`]) or FP16 ([`fp32_to_fp16`]);
/// * every other input needs `OutDataFormat == InDataFormat`; FP8 becomes the
///   top byte of an FP16, BFP becomes BF16 or FP16 ([`super::bfp`]), INT8
///   becomes Integer "8" overlaid on FP16 (exponent 16, or 0 for magnitude
///   0), TF32 means FP32 and is valid only for `Dst`;
/// * INT32 and FP32 can only go to `Dst`; INT16 goes to `Dst` unchanged or to
///   Src with its high byte moved up three bits.
///
/// FP8 in e4m3 mode is `Unimplemented` (no source defines it).
pub fn unpack_datum(cfg: &UnpackConfig, datum: u32, exp: u8) -> fault::Result<Unpacked> {
    use DataFormat as F;
    let bits = cfg.in_format.datum_bits();
    let datum = if bits == 32 {
        datum
    } else {
        datum & ((1u32 << bits) - 1)
    };

    // Normalise to one of FP32 / BF16 / FP16 / INT16 / INT32.
    let (kind, value) = if cfg.in_format == F::Float32 {
        match cfg.out_format {
            F::Float32 => (F::Float32, datum),
            F::Tf32 => {
                return Ok(if cfg.to_dst {
                    Unpacked::Dst32(dst::encode_fp32(datum))
                } else {
                    Unpacked::Src(SrcCell::from_fp32_truncated(datum))
                })
            }
            F::Float16B => (F::Float16B, fp32_to_bf16(datum) as u32),
            F::Float16 => (F::Float16, fp32_to_fp16(datum) as u32),
            _ => {
                return Err(unpack_undefined(
                    cfg,
                    "FP32 converts only to FP32, TF32, BF16 or FP16",
                ))
            }
        }
    } else {
        if cfg.in_format != cfg.out_format {
            return Err(unpack_undefined(
                cfg,
                "only FP32 input may differ from the output format",
            ));
        }
        match cfg.in_format {
            F::Lf8 => match cfg.fp8 {
                Fp8Format::E5M2 => (F::Float16, fp8_to_fp16(datum as u8) as u32),
                Fp8Format::E4M3 => return Err(Fault::unimplemented(
                    "unpacking FP8 in e4m3 mode (Unp_LF8_4b_exp): no source defines the conversion",
                )),
            },
            F::Bfp8B | F::Bfp4B | F::Bfp2B | F::Bfp8A | F::Bfp4A | F::Bfp2A => {
                let (form, width) = cfg.in_format.bfp().expect("BFP format");
                let h = bfp::bfp_expand(form, width, datum as u8, exp)?;
                let kind = match form {
                    BfpExp::B => F::Float16B,
                    BfpExp::A => F::Float16,
                };
                (kind, h as u32)
            }
            F::Int8 => {
                let sign = if cfg.int8_unsigned { 0 } else { datum & 0x80 };
                let mag = datum - sign;
                let exp = if mag != 0 { 16 << 10 } else { 0 };
                (F::Float16, (sign << 8) | exp | mag)
            }
            F::Tf32 => {
                return if cfg.to_dst {
                    Ok(Unpacked::Dst32(dst::encode_fp32(datum)))
                } else {
                    Err(unpack_undefined(
                        cfg,
                        "TF32 input is valid only when unpacking to Dst",
                    ))
                }
            }
            other => (other, datum),
        }
    };

    match kind {
        F::Int16 => Ok(if cfg.to_dst {
            Unpacked::Dst16(value as u16)
        } else {
            Unpacked::Src(SrcCell::from_int16(value as u16))
        }),
        F::Int32 | F::Float32 => {
            if cfg.to_dst {
                Ok(Unpacked::Dst32(dst::encode_fp32(value)))
            } else {
                Err(unpack_undefined(
                    cfg,
                    "32-bit data cannot be written to SrcA/SrcB",
                ))
            }
        }
        F::Float16B => Ok(if cfg.to_dst {
            Unpacked::Dst16(dst::encode_bf16(value as u16))
        } else {
            Unpacked::Src(SrcCell::from_bf16(value as u16))
        }),
        F::Float16 => Ok(if cfg.to_dst {
            Unpacked::Dst16(dst::encode_fp16(value as u16))
        } else {
            Unpacked::Src(SrcCell::from_fp16(value as u16))
        }),
        _ => unreachable!("normalised to FP32, BF16, FP16, INT16 or INT32"),
    }
}
