//! The packer's two format conversions: early (`Dst` datum → intermediate
//! format) and late (intermediate format → L1 format).
//!
//! Source: tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/Packers/FormatConversion.md`
//! (shared by Blackhole, see `BlackholeA0/.../PACR.md`), refined by the
//! device facts in the project reference README and, where the page is
//! silent, by ttsim `src/tensix.cpp` (`TENSIX_EXECUTE_PACR`).
//!
//! Rounding in the early conversion is round-to-nearest, ties away from zero,
//! on the magnitude. Stochastic rounding is not modelled (ttsim refuses it
//! too). Every rounding conversion flushes denormals to +0, turns −0 into
//! +0, and, when the exponent is 8 bits wide, turns NaN into infinity of the
//! same sign ("Early format conversion", last list). Which denormals: from a
//! 32-bit `Dst`, and into E5M6, the rounded result is flushed (so the largest
//! denormals round up to the smallest normal); from a 16-bit BF16 `Dst` the
//! input is. That is ttsim's order, which its conformance vectors record.

use super::data_format::{BfpExp, DataFormat, Fp8Format};
use super::dst;
use super::float::{
    bf16_to_fp32, e5_narrow, e5_to_e8, e8_narrow, e8_to_e5, fp8_to_fp16, FP16_EXP, FP32_EXP,
    FP32_SIGN, H_SIGN,
};
use super::int;
use crate::arch::Arch;
use crate::fault::{self, Fault};

/// A datum between the early and the late conversion. Float payloads use
/// their own bit layout: FP32/TF32 as FP32 patterns (TF32 with the low 13
/// bits zero), BF16/E8M6 as BF16 patterns (E8M6 with bit 0 zero), FP16/E5M7/
/// E5M6 as FP16 patterns (with the low 3 or 4 bits zero), FP8 as e5m2 bytes.
/// Integers are sign-magnitude, except `UInt8`.
///
/// The variant is the type the early conversion actually produced, which is
/// not always the `IntermediateFormat` code: e.g. `IntermediateFormat = BF16`
/// with `Round_10b_mant` yields TF32 (FormatConversion.md, "Configuring the
/// conversions").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intermediate {
    Fp32(u32),
    Tf32(u32),
    Bf16(u16),
    /// `IntermediateFormat = BFP8` outside BFP output: 8-bit exponent, 6-bit
    /// mantissa.
    E8m6(u16),
    Fp16(u16),
    /// `IntermediateFormat = BFP8a` with `Read_raw`: 5-bit exponent, 7-bit
    /// mantissa.
    E5m7(u16),
    /// `IntermediateFormat = BFP8a` without `Read_raw`: 5-bit exponent, 6-bit
    /// mantissa.
    E5m6(u16),
    Fp8(u8),
    Int32(u32),
    Int16(u16),
    Int8(u8),
    UInt8(u8),
}

/// A float intermediate in one of the two wide layouts of [`super::float`].
#[derive(Clone, Copy)]
enum Wide {
    E8 { bits: u32, man: u32 },
    E5 { bits: u16, man: u32 },
}

impl Intermediate {
    /// The L1 format code whose intermediate type this is.
    pub const fn format(self) -> DataFormat {
        match self {
            Intermediate::Fp32(_) => DataFormat::Float32,
            Intermediate::Tf32(_) => DataFormat::Tf32,
            Intermediate::Bf16(_) => DataFormat::Float16B,
            Intermediate::E8m6(_) => DataFormat::Bfp8B,
            Intermediate::Fp16(_) => DataFormat::Float16,
            Intermediate::E5m7(_) | Intermediate::E5m6(_) => DataFormat::Bfp8A,
            Intermediate::Fp8(_) => DataFormat::Lf8,
            Intermediate::Int32(_) => DataFormat::Int32,
            Intermediate::Int16(_) => DataFormat::Int16,
            Intermediate::Int8(_) | Intermediate::UInt8(_) => DataFormat::Int8,
        }
    }

    const fn wide(self) -> Option<Wide> {
        Some(match self {
            Intermediate::Fp32(x) => Wide::E8 { bits: x, man: 23 },
            Intermediate::Tf32(x) => Wide::E8 { bits: x, man: 10 },
            Intermediate::Bf16(x) => Wide::E8 {
                bits: bf16_to_fp32(x),
                man: 7,
            },
            Intermediate::E8m6(x) => Wide::E8 {
                bits: bf16_to_fp32(x),
                man: 6,
            },
            Intermediate::Fp16(x) => Wide::E5 { bits: x, man: 10 },
            Intermediate::E5m7(x) => Wide::E5 { bits: x, man: 7 },
            Intermediate::E5m6(x) => Wide::E5 { bits: x, man: 6 },
            Intermediate::Fp8(x) => Wide::E5 {
                bits: fp8_to_fp16(x),
                man: 2,
            },
            _ => return None,
        })
    }
}

// ---------------------------------------------------------------------------
// Early conversion primitives.

/// Round an FP32 pattern to `23 − drop` mantissa bits with the early
/// conversion's rounding rules (module docs): NaN becomes infinity of its
/// sign; the magnitude rounds to nearest, ties away from zero (a carry out of
/// the largest finite binade gives infinity); a result whose exponent field
/// is zero (a denormal or zero) becomes +0.
///
/// The flush applies to the rounded result, so the largest FP32 denormals
/// round up to the smallest normal rather than to zero. FormatConversion.md
/// says only "Denormals flushed to zero"; ttsim (`TENSIX_EXECUTE_PACR`, the
/// 32-bit `Dst` reads) flushes after rounding, and its conformance vectors
/// (e.g. `blackhole/pack/d32-bf16-to-bf16-0290`) record `0x0080` for such
/// inputs, so the page's words are read as applying to the result.
#[inline]
const fn round_e8(x: u32, drop: u32) -> u32 {
    let sign = x & FP32_SIGN;
    let mag = x & !FP32_SIGN;
    if mag > FP32_EXP {
        return sign | FP32_EXP;
    }
    let half = 1u32 << (drop - 1);
    let r = (mag + half) & !((1u32 << drop) - 1);
    if r & FP32_EXP == 0 {
        return 0;
    }
    sign | r
}

/// FP32 → TF32, rounding (FormatConversion.md, early table, "To TF32 / From
/// FP32: Rounding"). The result is an FP32 pattern with the low 13 bits zero.
#[inline]
pub const fn fp32_round_to_tf32(x: u32) -> u32 {
    round_e8(x, 13)
}

/// FP32 → BF16, rounding. Device fact: `0x3F808000` → `0x3F81`.
#[inline]
pub const fn fp32_round_to_bf16(x: u32) -> u16 {
    (round_e8(x, 16) >> 16) as u16
}

/// FP32 → E8M6 (`IntermediateFormat = BFP8`, `Read_raw = false`), rounding.
/// Returned as a BF16 pattern with bit 0 clear.
#[inline]
pub const fn fp32_round_to_e8m6(x: u32) -> u16 {
    (round_e8(x, 17) >> 16) as u16
}

/// FP32 → BF16 by truncation (`Read_raw = true`): the top 16 bits, so
/// denormals may become zero and NaN may become infinity only as truncation
/// makes them.
#[inline]
pub const fn fp32_truncate_to_bf16(x: u32) -> u16 {
    (x >> 16) as u16
}

/// BF16 → BF16 with `Read_raw = false` ("Rounding (i.e. flush denormals to
/// zero and NaN to infinity)"): denormals and −0 become +0, NaN becomes
/// infinity. Device fact: packing −0.0 from BF16 `Dst` to BF16 gives +0.0.
#[inline]
pub const fn bf16_round(x: u16) -> u16 {
    fp32_round_to_bf16(bf16_to_fp32(x))
}

/// BF16 → E8M6, rounding. Here a denormal input flushes to +0 before the
/// rounding, so `0x007F` gives 0, not `0x0080`: ttsim's 16-bit `Dst` read
/// flushes the BF16 value first (unlike its 32-bit read).
#[inline]
pub const fn bf16_round_to_e8m6(x: u16) -> u16 {
    if x & 0x7F80 == 0 {
        return 0;
    }
    fp32_round_to_e8m6(bf16_to_fp32(x))
}

/// BF16 → TF32 with the rounding rules (the mantissa widens, so only the
/// flushing and NaN rules change anything).
#[inline]
pub const fn bf16_round_to_tf32(x: u16) -> u32 {
    fp32_round_to_tf32(bf16_to_fp32(x))
}

/// FP16 → FP16 with `Read_raw = false` ("Rounding (i.e. flush denormals to
/// zero)"): denormals and −0 become +0. FP16 has no NaN.
#[inline]
pub const fn fp16_round(x: u16) -> u16 {
    if x & FP16_EXP == 0 {
        0
    } else {
        x
    }
}

/// FP16 → E5M6 (`IntermediateFormat = BFP8a`, `Read_raw = false`), rounding.
/// Returned as an FP16 pattern with the low four bits clear.
///
/// A carry out of exponent 31 has nowhere to go; the page does not say what
/// happens. This saturates to the largest E5M6 magnitude (`0x7FF0`), in line
/// with the 5-bit formats saturating elsewhere rather than overflowing. As in
/// the 32-bit rounding, a result with a zero exponent field becomes +0 after the
/// rounding (ttsim's order), so `0x03F8` rounds up to `0x0400`.
#[inline]
pub const fn fp16_round_to_e5m6(x: u16) -> u16 {
    let sign = x & H_SIGN;
    let mag = ((x & !H_SIGN) as u32 + 8) & !0xF;
    let mag = if mag > 0x7FF0 { 0x7FF0 } else { mag };
    if mag & FP16_EXP as u32 == 0 {
        return 0;
    }
    sign | mag as u16
}

/// FP16 → E5M7 by truncation (`IntermediateFormat = BFP8a`, `Read_raw =
/// true`).
#[inline]
pub const fn fp16_truncate_to_e5m7(x: u16) -> u16 {
    x & !0x7
}

/// FP16 → FP8 (e5m2) by truncation: the top byte.
#[inline]
pub const fn fp16_truncate_to_fp8(x: u16) -> u8 {
    (x >> 8) as u8
}

/// FP32 → FP16 by rounding to TF32 and then saturating to FP16, the
/// Blackhole early conversion selected by `Read_32b_data`,
/// `IntermediateFormat = FP16` and `Round_10b_mant`.
///
/// The ISA page (written for Wormhole B0) says FP32 → FP16 is not an early
/// conversion. ttsim accepts this mode on Blackhole only and models it this
/// way (while flagging it as untested); tt-llk programs it for Blackhole
/// FP8-e4m3 output.
#[inline]
pub const fn fp32_round_to_fp16_blackhole(x: u32) -> u16 {
    e8_to_e5(fp32_round_to_tf32(x), 10)
}

// ---------------------------------------------------------------------------
// Early conversion, configuration driven.

/// The configuration fields that select the early conversion
/// (FormatConversion.md, "Configuring the conversions").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EarlyConfig {
    /// `PCK_DEST_RD_CTRL_Read_32b_data`: read `Dst32b` (FP32/INT32) rather
    /// than `Dst16b`.
    pub read_32b_data: bool,
    /// `PCK_DEST_RD_CTRL_Read_int8`, called `Read_raw` by the ISA page.
    pub read_raw: bool,
    /// `PCK_DEST_RD_CTRL_Read_unsigned`.
    pub read_unsigned: bool,
    /// `PCK_DEST_RD_CTRL_Round_10b_mant`.
    pub round_10b_mant: bool,
    /// `ALU_FORMAT_SPEC_REG_Dstacc_val` or `ALU_FORMAT_SPEC_REG2_Dstacc`.
    pub intermediate: DataFormat,
    /// INT32 → INT8 descale shift (`INT_DESCALE_*`, 0 when disabled); the
    /// low five bits are used.
    pub shift_amount: u8,
}

fn early_undefined(cfg: &EarlyConfig) -> Fault {
    Fault::undefined(format!(
        "packer early conversion from {} Dst to intermediate {} with Read_raw={} Round_10b_mant={} Read_unsigned={} is not one Packers/FormatConversion.md defines",
        if cfg.read_32b_data { "32-bit" } else { "16-bit" },
        cfg.intermediate,
        cfg.read_raw as u8,
        cfg.round_10b_mant as u8,
        cfg.read_unsigned as u8,
    ))
}

/// One early conversion, chosen once per instruction from an [`EarlyConfig`]
/// by [`EarlyConversion::select`] and applied to each datum by
/// [`EarlyConversion::apply`]. The variant names say what happens to the
/// `Dst` datum (Packers/FormatConversion.md, "Early format conversion").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EarlyConversion {
    /// 32-bit `Dst` to INT32, identity.
    Int32Identity,
    /// 32-bit `Dst` to FP32, identity (or bitcast of INT32).
    Fp32Identity,
    /// 32-bit `Dst` to TF32, rounding.
    Fp32ToTf32,
    /// 32-bit `Dst` to BF16, truncation (`Read_raw`).
    Fp32TruncateToBf16,
    /// 32-bit `Dst` to BF16, rounding.
    Fp32ToBf16,
    /// 32-bit `Dst` to E8M6, rounding.
    Fp32ToE8m6,
    /// 32-bit `Dst` to INT8/UINT8: sign and low bits (`Read_raw`).
    Int32ToInt8Raw { unsigned: bool },
    /// 32-bit `Dst` to INT8/UINT8: shift, round, saturate.
    Int32ToInt8Descaled { shift: u8, unsigned: bool },
    /// Blackhole only: 32-bit `Dst` rounded to TF32, then saturated to FP16
    /// ([`fp32_round_to_fp16_blackhole`]).
    Fp32ToFp16ViaTf32,
    /// 32-bit `Dst` to INT16: the high half of the stored `Dst32b` value.
    /// FormatConversion.md marks INT32 → INT16 "No" (so no result is
    /// defined); ttsim (`TENSIX_EXECUTE_PACR`, intermediate format 9 with
    /// `Read_32b_data`) takes the high 16 stored bits, and its conformance
    /// vectors exercise that, so that is the result given here.
    Dst32HighToInt16,
    /// 16-bit `Dst` BF16, identity (`Read_raw`).
    Bf16Identity,
    /// 16-bit `Dst` BF16, rounding (flush denormals, NaN to infinity).
    Bf16Round,
    /// 16-bit `Dst` BF16 to TF32, rounding.
    Bf16ToTf32,
    /// 16-bit `Dst` BF16 to E8M6, rounding.
    Bf16ToE8m6,
    /// Blackhole only: 16-bit `Dst` read as BF16 and re-encoded as FP16 with
    /// saturation, selected by `IntermediateFormat = FP16` with
    /// `Round_10b_mant`. Not on the (Wormhole) ISA page; this is ttsim's
    /// model of the mode tt-llk programs for Blackhole FP8-e4m3 output from
    /// a BF16 `Dst`.
    Bf16ToFp16Blackhole,
    /// 16-bit `Dst` FP16, identity.
    Fp16Identity,
    /// 16-bit `Dst` FP16, rounding (flush denormals).
    Fp16Round,
    /// 16-bit `Dst` FP16 to E5M7, truncation.
    Fp16TruncateToE5m7,
    /// 16-bit `Dst` FP16 to E5M6, rounding.
    Fp16ToE5m6,
    /// 16-bit `Dst` FP16 to FP8 (e5m2), truncation.
    Fp16TruncateToFp8,
    /// 16-bit `Dst` float to INT8: the sign bit only.
    Float16ToInt8Sign,
    /// 16-bit `Dst` INT16, identity.
    Int16Identity,
}

impl EarlyConversion {
    /// The conversion `cfg` selects, or `UndefinedBehavior` for a
    /// combination the ISA page marks "No" or does not describe.
    ///
    /// The notable mappings:
    /// * 32-bit `Dst`: INT32 identity; FP32 identity, or TF32 rounding with
    ///   `Round_10b_mant`; TF32 rounding, or identity with `Read_raw`; BF16
    ///   rounding, TF32 rounding with `Round_10b_mant`, truncation with
    ///   `Read_raw`; BFP8 (E8M6) rounding, or BF16 truncation with
    ///   `Read_raw`; INT8/UINT8 descale, or raw bits with `Read_raw`; FP16
    ///   only on Blackhole with `Round_10b_mant`; INT16 as ttsim models it.
    /// * 16-bit `Dst`: BF16 rounding or identity (`Read_raw`), TF32 rounding
    ///   with `Round_10b_mant`; BFP8 (E8M6) rounding or BF16 identity; TF32,
    ///   or FP32 with `Round_10b_mant`, is TF32 rounding from BF16; FP16
    ///   rounding or identity (on Blackhole, BF16 to FP16 with
    ///   `Round_10b_mant`); BFP8a E5M6 rounding or E5M7 truncation; FP8
    ///   truncation (`Read_raw` only); INT8 sign bit only (`Read_raw`,
    ///   signed only); INT16 identity.
    pub fn select(arch: Arch, cfg: &EarlyConfig) -> fault::Result<EarlyConversion> {
        use DataFormat as F;
        use EarlyConversion as E;
        let raw = cfg.read_raw;
        let r10 = cfg.round_10b_mant;
        let bh = arch == Arch::Blackhole;
        if cfg.read_32b_data {
            return Ok(match cfg.intermediate {
                F::Int32 => E::Int32Identity,
                F::Float32 if r10 && !raw => E::Fp32ToTf32,
                F::Float32 => E::Fp32Identity,
                F::Tf32 if raw => E::Fp32Identity,
                F::Tf32 => E::Fp32ToTf32,
                F::Float16B if raw => E::Fp32TruncateToBf16,
                F::Float16B if r10 => E::Fp32ToTf32,
                F::Float16B => E::Fp32ToBf16,
                F::Bfp8B if raw => E::Fp32TruncateToBf16,
                F::Bfp8B => E::Fp32ToE8m6,
                F::Int8 if raw => E::Int32ToInt8Raw {
                    unsigned: cfg.read_unsigned,
                },
                F::Int8 => E::Int32ToInt8Descaled {
                    shift: cfg.shift_amount,
                    unsigned: cfg.read_unsigned,
                },
                // ttsim ignores Read_raw in this Blackhole-only mode.
                F::Float16 if bh && r10 => E::Fp32ToFp16ViaTf32,
                F::Int16 => E::Dst32HighToInt16,
                _ => return Err(early_undefined(cfg)),
            });
        }
        Ok(match cfg.intermediate {
            F::Float16B if raw => E::Bf16Identity,
            F::Float16B if r10 => E::Bf16ToTf32,
            F::Float16B => E::Bf16Round,
            F::Bfp8B if raw => E::Bf16Identity,
            F::Bfp8B => E::Bf16ToE8m6,
            F::Tf32 if !raw => E::Bf16ToTf32,
            F::Float32 if !raw && r10 => E::Bf16ToTf32,
            F::Float16 if bh && r10 && !raw => E::Bf16ToFp16Blackhole,
            F::Float16 if raw => E::Fp16Identity,
            F::Float16 => E::Fp16Round,
            F::Bfp8A if raw => E::Fp16TruncateToE5m7,
            F::Bfp8A => E::Fp16ToE5m6,
            F::Lf8 if raw => E::Fp16TruncateToFp8,
            F::Int8 if raw && !cfg.read_unsigned => E::Float16ToInt8Sign,
            F::Int16 => E::Int16Identity,
            _ => return Err(early_undefined(cfg)),
        })
    }

    /// Whether this conversion reads `Dst32b` rather than `Dst16b`.
    pub const fn reads_32b(self) -> bool {
        use EarlyConversion as E;
        matches!(
            self,
            E::Int32Identity
                | E::Fp32Identity
                | E::Fp32ToTf32
                | E::Fp32TruncateToBf16
                | E::Fp32ToBf16
                | E::Fp32ToE8m6
                | E::Int32ToInt8Raw { .. }
                | E::Int32ToInt8Descaled { .. }
                | E::Fp32ToFp16ViaTf32
                | E::Dst32HighToInt16
        )
    }

    /// Convert one stored `Dst` cell: a `Dst32b` value for the 32-bit
    /// conversions, otherwise a `Dst16b` value in the low 16 bits. The `Dst`
    /// arrangement is undone according to the type the conversion implies
    /// (Dst.md, "Data type bit layout").
    #[inline(always)]
    pub fn apply(self, dst_bits: u32) -> Intermediate {
        use EarlyConversion as E;
        use Intermediate as I;
        let h = dst_bits as u16;
        match self {
            E::Int32Identity => I::Int32(dst::decode_fp32(dst_bits)),
            E::Fp32Identity => I::Fp32(dst::decode_fp32(dst_bits)),
            E::Fp32ToTf32 => I::Tf32(fp32_round_to_tf32(dst::decode_fp32(dst_bits))),
            E::Fp32TruncateToBf16 => I::Bf16(fp32_truncate_to_bf16(dst::decode_fp32(dst_bits))),
            E::Fp32ToBf16 => I::Bf16(fp32_round_to_bf16(dst::decode_fp32(dst_bits))),
            E::Fp32ToE8m6 => I::E8m6(fp32_round_to_e8m6(dst::decode_fp32(dst_bits))),
            E::Int32ToInt8Raw { unsigned } => int8(
                int::int32_to_int8_raw(dst::decode_fp32(dst_bits), unsigned),
                unsigned,
            ),
            E::Int32ToInt8Descaled { shift, unsigned } => int8(
                int::int32_to_int8_descaled(dst::decode_fp32(dst_bits), shift, unsigned),
                unsigned,
            ),
            E::Fp32ToFp16ViaTf32 => {
                I::Fp16(fp32_round_to_fp16_blackhole(dst::decode_fp32(dst_bits)))
            }
            E::Dst32HighToInt16 => I::Int16((dst_bits >> 16) as u16),
            E::Bf16Identity => I::Bf16(dst::decode_bf16(h)),
            E::Bf16Round => I::Bf16(bf16_round(dst::decode_bf16(h))),
            E::Bf16ToTf32 => I::Tf32(bf16_round_to_tf32(dst::decode_bf16(h))),
            E::Bf16ToE8m6 => I::E8m6(bf16_round_to_e8m6(dst::decode_bf16(h))),
            E::Bf16ToFp16Blackhole => I::Fp16(bf16_to_fp16_blackhole(dst::decode_bf16(h))),
            E::Fp16Identity => I::Fp16(dst::decode_fp16(h)),
            E::Fp16Round => I::Fp16(fp16_round(dst::decode_fp16(h))),
            E::Fp16TruncateToE5m7 => I::E5m7(fp16_truncate_to_e5m7(dst::decode_fp16(h))),
            E::Fp16ToE5m6 => I::E5m6(fp16_round_to_e5m6(dst::decode_fp16(h))),
            E::Fp16TruncateToFp8 => I::Fp8(fp16_truncate_to_fp8(dst::decode_fp16(h))),
            E::Float16ToInt8Sign => I::Int8(int::float16_to_int8_sign_only(h)),
            E::Int16Identity => I::Int16(h),
        }
    }
}

/// `$body` with `$e` bound to `$conv`, expanded once per conversion so
/// that each copy sees a single variant and the compiler specialises the
/// loop inside it: the conversion is matched once, outside the loop.
macro_rules! per_conversion {
    ($conv:expr, $e:ident => $body:expr) => {{
        use EarlyConversion as E;
        match $conv {
            $e @ E::Int32Identity => $body,
            $e @ E::Fp32Identity => $body,
            $e @ E::Fp32ToTf32 => $body,
            $e @ E::Fp32TruncateToBf16 => $body,
            $e @ E::Fp32ToBf16 => $body,
            $e @ E::Fp32ToE8m6 => $body,
            $e @ E::Int32ToInt8Raw { .. } => $body,
            $e @ E::Int32ToInt8Descaled { .. } => $body,
            $e @ E::Fp32ToFp16ViaTf32 => $body,
            $e @ E::Dst32HighToInt16 => $body,
            $e @ E::Bf16Identity => $body,
            $e @ E::Bf16Round => $body,
            $e @ E::Bf16ToTf32 => $body,
            $e @ E::Bf16ToE8m6 => $body,
            $e @ E::Bf16ToFp16Blackhole => $body,
            $e @ E::Fp16Identity => $body,
            $e @ E::Fp16Round => $body,
            $e @ E::Fp16TruncateToE5m7 => $body,
            $e @ E::Fp16ToE5m6 => $body,
            $e @ E::Fp16TruncateToFp8 => $body,
            $e @ E::Float16ToInt8Sign => $body,
            $e @ E::Int16Identity => $body,
        }
    }};
}

impl EarlyConversion {
    /// [`EarlyConversion::apply`] to each of `cells`, into `out` (as many as
    /// the shorter of the two).
    pub fn apply_row(self, cells: &[u32], out: &mut [Intermediate]) {
        per_conversion!(self, e => {
            for (o, c) in out.iter_mut().zip(cells) {
                *o = e.apply(*c);
            }
        })
    }

    /// Whether this conversion produces a float intermediate, the only kind
    /// the late conversion to a BFP format accepts ([`bfp_element`]).
    pub fn feeds_bfp(self) -> bool {
        self.apply(0).wide().is_some()
    }

    /// [`bfp_element`] of [`EarlyConversion::apply`] for each of a row's
    /// 16 cells, with the conversion and the exponent form matched outside
    /// the loop, for a conversion that [`EarlyConversion::feeds_bfp`]
    /// (otherwise every element is 0: the caller refuses those first). The
    /// loop has no exit, so each copy of it compiles to straight-line code
    /// over the 16 datums.
    #[inline(always)]
    pub fn bfp_elements(self, exp: BfpExp, cells: &[u32; 16], out: &mut [u16; 16]) {
        per_conversion!(self, e => match exp {
            BfpExp::B => {
                for (o, c) in out.iter_mut().zip(cells) {
                    *o = float_bfp_element(e.apply(*c), BfpExp::B);
                }
            }
            BfpExp::A => {
                for (o, c) in out.iter_mut().zip(cells) {
                    *o = float_bfp_element(e.apply(*c), BfpExp::A);
                }
            }
        })
    }
}

#[inline]
const fn int8(b: u8, unsigned: bool) -> Intermediate {
    if unsigned {
        Intermediate::UInt8(b)
    } else {
        Intermediate::Int8(b)
    }
}

/// BF16 → FP16 by re-biasing the exponent with saturation (the mantissa
/// widens, so nothing is rounded): below the FP16 range gives a signed zero,
/// above it (infinity and NaN included) the largest magnitude `0x7FFF` with
/// the sign. The Blackhole early conversion [`EarlyConversion::Bf16ToFp16Blackhole`]
/// as ttsim models it.
#[inline]
pub const fn bf16_to_fp16_blackhole(x: u16) -> u16 {
    e8_to_e5(bf16_to_fp32(x), 10)
}

/// The early conversion of one datum read from `Dst`: [`EarlyConversion::select`]
/// followed by [`EarlyConversion::apply`].
pub fn early_convert(arch: Arch, cfg: &EarlyConfig, dst_bits: u32) -> fault::Result<Intermediate> {
    Ok(EarlyConversion::select(arch, cfg)?.apply(dst_bits))
}

/// The early "conversion" when packer 0 reads its datums from L1 instead of
/// `Dst` (FormatConversion.md, second table of "Early format conversion").
/// `datum_bytes` is 4, 2 or 1; `datum` holds that many bytes.
pub fn l1_source_convert(
    datum: u32,
    datum_bytes: u32,
    intermediate: DataFormat,
    read_unsigned: bool,
) -> fault::Result<Intermediate> {
    use DataFormat as F;
    use Intermediate as I;
    Ok(match (datum_bytes, intermediate) {
        (4, F::Float32) => I::Fp32(datum),
        (4, F::Int32) => I::Int32(datum),
        (4, F::Int16) => I::Int16((datum >> 16) as u16),
        (2, F::Float16B) => I::Bf16(datum as u16),
        (2, F::Float16) => I::Fp16(datum as u16),
        (2, F::Int32) => I::Int32((datum & 0xFFFF) << 16),
        (2, F::Int16) => I::Int16(datum as u16),
        (2, F::Int8) => int8((datum >> 8) as u8, read_unsigned),
        (1, F::Float16B) => I::Bf16(((datum as u16 & 0x80) << 8) | (datum as u16 & 0x7F)),
        (1, F::Bfp8A) => I::E5m7(((datum as u16 & 0x80) << 8) | ((datum as u16 & 0x7F) << 3)),
        (1, F::Lf8) => I::Fp8(datum as u8),
        (1, F::Int32) => I::Int32((datum & 0xFF) << 24),
        (1, F::Int16) => I::Int16(((datum & 0xFF) << 8) as u16),
        (1, F::Int8) => int8(datum as u8, read_unsigned),
        _ => {
            return Err(Fault::undefined(format!(
            "packer 0 cannot convert a {datum_bytes}-byte L1 datum to intermediate {intermediate}"
        )))
        }
    })
}

// ---------------------------------------------------------------------------
// Late conversion.

/// To an 8-bit-exponent type with `man` mantissa bits, FP32 layout.
#[inline]
const fn wide_to_e8(w: Wide, man: u32) -> u32 {
    match w {
        Wide::E8 { bits, man: from } => e8_narrow(bits, from, man),
        Wide::E5 { bits, .. } => e5_to_e8(bits, man),
    }
}

/// To a 5-bit-exponent type with `man` mantissa bits, FP16 layout.
#[inline]
const fn wide_to_e5(w: Wide, man: u32) -> u16 {
    match w {
        Wide::E8 { bits, .. } => e8_to_e5(bits, man),
        Wide::E5 { bits, man: from } => e5_narrow(bits, from, man),
    }
}

fn late_undefined(value: Intermediate, to: DataFormat) -> Fault {
    Fault::undefined(format!(
        "the packer late conversion cannot convert intermediate {} to {to} (Packers/FormatConversion.md, late table)",
        value.format()
    ))
}

/// The late conversion of one datum to a non-BFP L1 format; the result holds
/// the L1 datum in its low 32, 16 or 8 bits (TF32 as 32 bits with the low 13
/// zero). BFP outputs go through [`bfp_element`] and
/// [`super::bfp::bfp_assemble`] instead.
///
/// Float to float (FormatConversion.md, "Late format conversion"):
/// * to FP32, BF16 or TF32: truncate if the mantissa narrows (denormals then
///   flush to zero, NaN may become infinity); keep every bit otherwise; from
///   a 5-bit exponent, rebias (see [`super::float::e5_to_e8`]). FP32 → TF32
///   is "No".
/// * to FP16 or FP8: saturate if the exponent narrows (see
///   [`super::float::e8_to_e5`]), then truncate if the mantissa narrows
///   (denormals flush).
///
/// Integers: INT32 → INT32, INT16 → INT16 and INT8/UINT8 → INT8 are
/// identities; everything else is "No". FP8 output in e4m3 mode
/// (`Pac_LF8_4b_exp`) is [`fp16_to_fp8_e4m3`] after the FP16 conversion.
pub fn late_convert(value: Intermediate, to: DataFormat, fp8: Fp8Format) -> fault::Result<u32> {
    use DataFormat as F;
    use Intermediate as I;
    match (value, to) {
        (I::Int32(x), F::Int32) => return Ok(x),
        (I::Int16(x), F::Int16) => return Ok(x as u32),
        (I::Int8(x) | I::UInt8(x), F::Int8) => return Ok(x as u32),
        _ => {}
    }
    if to.is_bfp() {
        return Err(Fault::undefined(format!(
            "{to} output is assembled per 16 datums; use pack::bfp_element and bfp::bfp_assemble"
        )));
    }
    let Some(w) = value.wide() else {
        return Err(late_undefined(value, to));
    };
    match to {
        F::Float32 => Ok(wide_to_e8(w, 23)),
        F::Float16B => Ok(wide_to_e8(w, 7) >> 16),
        F::Tf32 => match value {
            I::Fp32(_) => Err(late_undefined(value, to)),
            _ => Ok(wide_to_e8(w, 10)),
        },
        F::Float16 => Ok(wide_to_e5(w, 10) as u32),
        F::Lf8 => match fp8 {
            Fp8Format::E5M2 => Ok((wide_to_e5(w, 2) >> 8) as u32),
            Fp8Format::E4M3 => Ok(fp16_to_fp8_e4m3(wide_to_e5(w, 10)) as u32),
        },
        _ => Err(late_undefined(value, to)),
    }
}

/// FP16 → FP8 in e4m3 mode (`Pac_LF8_4b_exp`, Blackhole): the exponent is
/// re-biased from 15 to 7 and the mantissa truncated to three bits. An FP16
/// exponent of 8 or less (every value below 2^-6, so every e4m3 denormal)
/// gives a zero that keeps its sign; 24 or more saturates to `0x7F` with the
/// sign.
///
/// No tt-isa-documentation page defines this mode. This is ttsim's model
/// (`src/tensix.cpp`, PACR, "fp16 -> fp8 late conversion" under
/// `Pac_LF8_4b_exp`), which its Blackhole conformance vectors exercise. A
/// wider intermediate reaches it through FP16 (saturate, then truncate), as
/// the late conversion to any 5-bit-exponent format does.
#[inline]
pub const fn fp16_to_fp8_e4m3(x: u16) -> u8 {
    let sign = ((x >> 8) & 0x80) as u8;
    let e = (x >> 10) & 0x1F;
    let m = (x & 0x3FF) >> 7;
    if e <= 8 {
        sign
    } else if e >= 24 {
        sign | 0x7F
    } else {
        sign | (((e - 8) as u8) << 3) | m as u8
    }
}

/// The per-datum part of the late conversion to a BFP format: BF16 for the
/// "B" forms ("Converted to BF16 (as per first row)"), E5M7 in FP16 layout
/// for the "a" forms ("Converted to E5M7 (saturate if there is narrowing of
/// exponent, then truncate if there is narrowing of mantissa)"). Feed 16 of
/// these to [`super::bfp::bfp_assemble`]. Integer intermediates are "No".
#[inline]
pub fn bfp_element(value: Intermediate, exp: BfpExp) -> fault::Result<u16> {
    if value.wide().is_none() {
        return Err(not_bfp_convertible(value));
    }
    Ok(float_bfp_element(value, exp))
}

/// [`bfp_element`] of a float intermediate; an integer one, which callers
/// refuse first, gives 0.
#[inline(always)]
const fn float_bfp_element(value: Intermediate, exp: BfpExp) -> u16 {
    match (value.wide(), exp) {
        (Some(w), BfpExp::B) => (wide_to_e8(w, 7) >> 16) as u16,
        (Some(w), BfpExp::A) => wide_to_e5(w, 7),
        (None, _) => 0,
    }
}

#[cold]
fn not_bfp_convertible(value: Intermediate) -> Fault {
    Fault::undefined(format!(
        "the packer cannot convert intermediate {} to a BFP format",
        value.format()
    ))
}
