//! The unpackers' format conversion: one L1 datum → one `SrcA`/`SrcB` cell or
//! one `Dst` cell.
//!
//! Source: the `FormatConversion` function of the `UNPACR` functional model,
//! tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/UNPACR_Regular.md` (shared with
//! Blackhole), with the tables of `.../Unpackers/FormatConversion.md`. What
//! that page leaves out follows ttsim (`src/tensix.cpp`,
//! `TENSIX_EXECUTE_UNPACR`): `FP32ToFP16`, the FP8 e4m3 decode selected by
//! Blackhole's `Unp_LF8_4b_exp`, and Blackhole's FP8 e5m2 all-ones decode.
//! (The stored Blackhole page defers to the Wormhole one, whose
//! `TTArchitecture` conditionals are not in the stored copy.)
//!
//! [`Conversion`] is the conversion chosen once per instruction: the
//! combination of formats is checked when it is made, so converting a datum
//! only branches on a small enum.

use super::bfp;
use super::data_format::BfpWidth;
use super::data_format::{BfpExp, DataFormat, Fp8Format};
use super::dst;
use super::float::{e8_to_e5, fp8_to_fp16, FP32_EXP, FP32_SIGN};
use super::src_cell::SrcCell;
use crate::arch::Arch;
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

impl Unpacked {
    /// The bits the target register stores: the canonical `Src` cell, the
    /// `DstBits` cell or the `Dst32b` value.
    #[inline(always)]
    pub const fn bits(self) -> u32 {
        match self {
            Unpacked::Src(c) => c.canonical(),
            Unpacked::Dst16(x) => x as u32,
            Unpacked::Dst32(x) => x,
        }
    }
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

/// FP8 e4m3 (`Unp_LF8_4b_exp`, Blackhole) as the unpacker widens it to
/// FP16: the exponent is rebiased by +8 unless it is zero, the three mantissa
/// bits become the top of the FP16 mantissa, and the all-ones pattern
/// (`S.1111.111`) fills the rest of the mantissa with ones. An e4m3 denormal
/// keeps exponent 0, so it decodes to an FP16 denormal of a different value.
/// No tt-isa-documentation page defines this decode; this is ttsim's
/// (`src/tensix.cpp`, `TENSIX_EXECUTE_UNPACR`, "S1E4M3").
#[inline]
pub const fn fp8_e4m3_to_fp16(x: u8) -> u16 {
    let sign = (x as u16 & 0x80) << 8;
    let exp = (x >> 3) & 0xF;
    let man = (x & 7) as u16;
    let pad = if exp == 0xF && man == 7 { 0x7F } else { 0 };
    let exp = if exp != 0 { exp as u16 + 8 } else { 0 };
    sign | (exp << 10) | (man << 7) | pad
}

/// FP8 e5m2 as the unpacker widens it to FP16: the top byte of the FP16
/// (`DatumBits <<= 8`, `UNPACR_Regular.md`). On Blackhole, a datum whose
/// exponent and mantissa are all ones instead fills the low byte with ones,
/// giving the Tensix FP16 infinity `±0x7FFF` (ttsim, `src/tensix.cpp`,
/// "BH-specific special case for exponent and mantissa all 1s"; the stored
/// ISA page has no Blackhole variant of this line).
#[inline]
pub const fn fp8_e5m2_to_fp16(arch: Arch, x: u8) -> u16 {
    match arch {
        Arch::Blackhole if x & 0x7F == 0x7F => fp8_to_fp16(x) | 0xFF,
        _ => fp8_to_fp16(x),
    }
}

fn unpack_undefined(cfg: &UnpackConfig, why: &str) -> Fault {
    Fault::undefined(format!(
        "unpacking {} to {} {} is undefined: {why} (UNPACR_Regular.md, FormatConversion)",
        cfg.in_format,
        cfg.out_format,
        if cfg.to_dst { "in Dst" } else { "in SrcA/SrcB" },
    ))
}

/// The 16-bit float a conversion produces before it is arranged for its
/// target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Half {
    Bf16,
    Fp16,
}

/// One unpacker format conversion, with the target it writes, chosen once
/// per instruction by [`Conversion::new`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Conversion {
    /// FP32, INT32 or TF32 data to a `Dst32b` cell (`WriteDstFP32`).
    Dst32,
    /// FP32 to TF32 in SrcA/SrcB: the top 19 bits.
    Fp32ToTf32Src,
    /// FP32 to BF16 ([`fp32_to_bf16`]).
    Fp32ToBf16 { to_dst: bool },
    /// FP32 to FP16 ([`fp32_to_fp16`]).
    Fp32ToFp16 { to_dst: bool },
    /// BF16 kept as it is.
    Bf16 { to_dst: bool },
    /// FP16 kept as it is.
    Fp16 { to_dst: bool },
    /// INT16: opaque 16 bits.
    Int16 { to_dst: bool },
    /// FP8 e5m2 to FP16 ([`fp8_e5m2_to_fp16`]).
    Fp8E5M2 { arch: Arch, to_dst: bool },
    /// FP8 e4m3 to FP16 ([`fp8_e4m3_to_fp16`]).
    Fp8E4M3 { to_dst: bool },
    /// BFP to BF16 (8-bit shared exponent) or FP16 ("a" forms).
    Bfp {
        exp: BfpExp,
        width: BfpWidth,
        to_dst: bool,
    },
    /// INT8 or UINT8 to Integer "8" overlaid on FP16.
    Int8 { unsigned: bool, to_dst: bool },
}

impl Conversion {
    /// Choose the conversion `cfg` asks for on `arch`, or say why the
    /// combination is undefined (`UNPACR_Regular.md`, `FormatConversion`):
    /// FP32 may become FP32 (Dst only), TF32, BF16 or FP16; every other input
    /// needs `OutDataFormat == InDataFormat`; 32-bit data and TF32 input go
    /// only to Dst.
    #[inline]
    pub fn new(arch: Arch, cfg: &UnpackConfig) -> fault::Result<Conversion> {
        use DataFormat as F;
        let to_dst = cfg.to_dst;
        if cfg.in_format == F::Float32 {
            return match cfg.out_format {
                F::Float32 if to_dst => Ok(Conversion::Dst32),
                F::Float32 => Err(unpack_undefined(
                    cfg,
                    "32-bit data cannot be written to SrcA/SrcB",
                )),
                F::Tf32 if to_dst => Ok(Conversion::Dst32),
                F::Tf32 => Ok(Conversion::Fp32ToTf32Src),
                F::Float16B => Ok(Conversion::Fp32ToBf16 { to_dst }),
                F::Float16 => Ok(Conversion::Fp32ToFp16 { to_dst }),
                _ => Err(unpack_undefined(
                    cfg,
                    "FP32 converts only to FP32, TF32, BF16 or FP16",
                )),
            };
        }
        if cfg.in_format != cfg.out_format {
            return Err(unpack_undefined(
                cfg,
                "only FP32 input may differ from the output format",
            ));
        }
        Ok(match cfg.in_format {
            F::Lf8 => match cfg.fp8 {
                Fp8Format::E5M2 => Conversion::Fp8E5M2 { arch, to_dst },
                Fp8Format::E4M3 => Conversion::Fp8E4M3 { to_dst },
            },
            F::Bfp8B | F::Bfp4B | F::Bfp2B | F::Bfp8A | F::Bfp4A | F::Bfp2A => {
                match cfg.in_format.bfp() {
                    Some((exp, width)) => Conversion::Bfp { exp, width, to_dst },
                    None => return Err(unpack_undefined(cfg, "not a BFP format")),
                }
            }
            F::Int8 => Conversion::Int8 {
                unsigned: cfg.int8_unsigned,
                to_dst,
            },
            F::Tf32 | F::Int32 if to_dst => Conversion::Dst32,
            F::Tf32 => {
                return Err(unpack_undefined(
                    cfg,
                    "TF32 input is valid only when unpacking to Dst",
                ))
            }
            F::Int32 => {
                return Err(unpack_undefined(
                    cfg,
                    "32-bit data cannot be written to SrcA/SrcB",
                ))
            }
            F::Int16 => Conversion::Int16 { to_dst },
            F::Float16B => Conversion::Bf16 { to_dst },
            F::Float16 => Conversion::Fp16 { to_dst },
            F::Float32 => Conversion::Dst32,
        })
    }

    /// Whether [`Conversion::apply`] can fault: only for BFP "a" input,
    /// whose normalised exponent can leave the 5-bit range.
    pub fn can_fault(self) -> bool {
        matches!(self, Conversion::Bfp { exp: BfpExp::A, .. })
    }

    /// Convert one datum (`datum` holds the input format's bits, anything
    /// above them ignored; `exp` is the shared exponent for BFP input,
    /// ignored otherwise). Only BFP8a-family input can fail, when the
    /// normalised exponent leaves the 5-bit range.
    #[inline(always)]
    pub fn apply(self, datum: u32, exp: u8) -> fault::Result<Unpacked> {
        let (half, bits, to_dst) = match self {
            Conversion::Dst32 => return Ok(Unpacked::Dst32(dst::encode_fp32(datum))),
            Conversion::Fp32ToTf32Src => {
                return Ok(Unpacked::Src(SrcCell::from_fp32_truncated(datum)))
            }
            Conversion::Int16 { to_dst } => {
                return Ok(if to_dst {
                    Unpacked::Dst16(datum as u16)
                } else {
                    Unpacked::Src(SrcCell::from_int16(datum as u16))
                })
            }
            Conversion::Fp32ToBf16 { to_dst } => (Half::Bf16, fp32_to_bf16(datum), to_dst),
            Conversion::Fp32ToFp16 { to_dst } => (Half::Fp16, fp32_to_fp16(datum), to_dst),
            Conversion::Bf16 { to_dst } => (Half::Bf16, datum as u16, to_dst),
            Conversion::Fp16 { to_dst } => (Half::Fp16, datum as u16, to_dst),
            Conversion::Fp8E5M2 { arch, to_dst } => {
                (Half::Fp16, fp8_e5m2_to_fp16(arch, datum as u8), to_dst)
            }
            Conversion::Fp8E4M3 { to_dst } => (Half::Fp16, fp8_e4m3_to_fp16(datum as u8), to_dst),
            Conversion::Bfp {
                exp: form,
                width,
                to_dst,
            } => {
                let mask = (1u32 << width.datum_bits()) - 1;
                let h = bfp::bfp_expand(form, width, (datum & mask) as u8, exp)?;
                let half = match form {
                    BfpExp::B => Half::Bf16,
                    BfpExp::A => Half::Fp16,
                };
                (half, h, to_dst)
            }
            Conversion::Int8 { unsigned, to_dst } => {
                let datum = datum & 0xFF;
                let sign = if unsigned { 0 } else { datum & 0x80 };
                let mag = datum - sign;
                let exp = if mag != 0 { 16 << 10 } else { 0 };
                (Half::Fp16, ((sign << 8) | exp | mag) as u16, to_dst)
            }
        };
        Ok(match (half, to_dst) {
            (Half::Bf16, true) => Unpacked::Dst16(dst::encode_bf16(bits)),
            (Half::Bf16, false) => Unpacked::Src(SrcCell::from_bf16(bits)),
            (Half::Fp16, true) => Unpacked::Dst16(dst::encode_fp16(bits)),
            (Half::Fp16, false) => Unpacked::Src(SrcCell::from_fp16(bits)),
        })
    }
}

/// Convert one L1 datum. `datum` holds the datum's bits (bits above the
/// input format's width are ignored); `exp` is the shared exponent for BFP
/// input (from the exponent section or `FORCED_SHARED_EXP_shared_exp`),
/// ignored otherwise.
///
/// This is `FormatConversion` of the `UNPACR` functional model as the stored
/// page gives it, without Blackhole's FP8 e5m2 special case (use
/// [`Conversion::new`] with [`Arch::Blackhole`] for that):
/// * FP32 input may become FP32 (`Dst` only), TF32 (`Dst`: FP32; Src: the
///   top 19 bits), BF16 ([`fp32_to_bf16`]) or FP16 ([`fp32_to_fp16`]);
/// * every other input needs `OutDataFormat == InDataFormat`; FP8 becomes an
///   FP16 ([`fp8_e5m2_to_fp16`], [`fp8_e4m3_to_fp16`]), BFP becomes BF16 or
///   FP16 ([`super::bfp`]), INT8 becomes Integer "8" overlaid on FP16
///   (exponent 16, or 0 for magnitude 0), TF32 means FP32 and is valid only
///   for `Dst`;
/// * INT32 and FP32 can only go to `Dst`; INT16 goes to `Dst` unchanged or to
///   Src with its high byte moved up three bits.
pub fn unpack_datum(cfg: &UnpackConfig, datum: u32, exp: u8) -> fault::Result<Unpacked> {
    Conversion::new(Arch::WormholeB0, cfg)?.apply(datum, exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ttsim's e4m3 decode: 1.0 (exponent 7, bias 7) becomes FP16 1.0
    /// (exponent 15); the all-ones magnitude fills the mantissa.
    #[test]
    fn e4m3_rebiases_by_eight() {
        assert_eq!(fp8_e4m3_to_fp16(0x38), 0x3C00);
        assert_eq!(fp8_e4m3_to_fp16(0xB9), 0xBC80);
        assert_eq!(fp8_e4m3_to_fp16(0x7F), 0x5FFF);
        assert_eq!(fp8_e4m3_to_fp16(0x7E), 0x5F00);
        assert_eq!(fp8_e4m3_to_fp16(0x05), 0x0280);
        assert_eq!(fp8_e4m3_to_fp16(0x80), 0x8000);
    }

    /// Blackhole widens the all-ones e5m2 magnitude to the Tensix FP16
    /// infinity; Wormhole B0 only shifts.
    #[test]
    fn e5m2_all_ones_is_infinity_on_blackhole_only() {
        assert_eq!(fp8_e5m2_to_fp16(Arch::Blackhole, 0xFF), 0xFFFF);
        assert_eq!(fp8_e5m2_to_fp16(Arch::Blackhole, 0x7E), 0x7E00);
        assert_eq!(fp8_e5m2_to_fp16(Arch::WormholeB0, 0x7F), 0x7F00);
    }
}
