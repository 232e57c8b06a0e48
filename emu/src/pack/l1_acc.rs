//! L1 accumulation (`Pack_L1_Acc`): the packer adds each datum to the one
//! already in L1, in the output format, instead of overwriting it.
//!
//! tt-isa-documentation lists the feature ("Accumulation, to perform
//! `L1 += Datum` rather than `L1 = Datum`", Packers/README.md) without the
//! arithmetic. The arithmetic here is ttsim's (`src/tensix.cpp`,
//! `pack_l1_acc_fp32`, `pack_l1_acc_bf16`, `pack_l1_acc_fp16`), which claims
//! silicon exactness and accepts FP32, FP16 and BF16 outputs only; other
//! output formats are refused (`AccFormat::for_output`).

use crate::fault::{Fault, Result};
use crate::format::data_format::DataFormat;

/// An output format L1 accumulation is defined for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccFormat {
    Fp32,
    Fp16,
    Bf16,
}

impl AccFormat {
    /// The accumulation for `Out_data_format`, or `Unsupported` where no
    /// source defines one.
    pub fn for_output(out: DataFormat) -> Result<AccFormat> {
        match out {
            DataFormat::Float32 => Ok(AccFormat::Fp32),
            DataFormat::Float16 => Ok(AccFormat::Fp16),
            DataFormat::Float16B => Ok(AccFormat::Bf16),
            other => Err(Fault::unsupported(format!(
                "Pack_L1_Acc with Out_data_format = {other}: no source defines accumulation in \
                 that format (ttsim accepts FP32, FP16 and BF16 only)"
            ))),
        }
    }

    /// Bytes per datum.
    pub const fn bytes(self) -> usize {
        match self {
            AccFormat::Fp32 => 4,
            AccFormat::Fp16 | AccFormat::Bf16 => 2,
        }
    }

    /// Accumulate `new` (little-endian datums) onto `old`, in place in
    /// `new`. A trailing partial datum is left as it is.
    pub fn accumulate(self, old: &[u8], new: &mut [u8]) {
        let n = self.bytes();
        for (o, d) in old.chunks_exact(n).zip(new.chunks_exact_mut(n)) {
            match self {
                AccFormat::Fp32 => {
                    let r = fp32(
                        u32::from_le_bytes([o[0], o[1], o[2], o[3]]),
                        u32::from_le_bytes([d[0], d[1], d[2], d[3]]),
                    );
                    d.copy_from_slice(&r.to_le_bytes());
                }
                AccFormat::Fp16 | AccFormat::Bf16 => {
                    let a = u16::from_le_bytes([o[0], o[1]]);
                    let b = u16::from_le_bytes([d[0], d[1]]);
                    let r = if self == AccFormat::Fp16 {
                        fp16(a, b)
                    } else {
                        bf16(a, b)
                    };
                    d.copy_from_slice(&r.to_le_bytes());
                }
            }
        }
    }
}

/// FP32 denormals read as zeros of the same sign.
const fn fp32_daz(x: u32) -> u32 {
    if x & 0x7FFF_FFFF < 0x0080_0000 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// FP32 `old + new`: denormal inputs and outputs are zeros of their sign,
/// the sum rounds to nearest even, and every NaN result is `0x7FC00000`.
pub fn fp32(old: u32, new: u32) -> u32 {
    let s = f32::from_bits(fp32_daz(old)) + f32::from_bits(fp32_daz(new));
    let r = s.to_bits();
    if r & 0x7FFF_FFFF > 0x7F80_0000 {
        return 0x7FC0_0000;
    }
    fp32_daz(r)
}

/// BF16 `old + new`: `+∞ + −∞` is `0x7FC0`; denormal inputs are zeros of
/// their sign; a NaN input counts as a huge finite number (`old` as the
/// largest FP64 magnitude, `new` with exponent 128 and its own mantissa);
/// the exact sum rounds to nearest even at BF16 precision, with results
/// below the normal range becoming signed zeros and above it infinities.
pub fn bf16(old: u16, new: u16) -> u16 {
    if (old == 0x7F80 && new == 0xFF80) || (old == 0xFF80 && new == 0x7F80) {
        return 0x7FC0;
    }
    let daz = |x: u16| if x & 0x7FFF < 0x80 { x & 0x8000 } else { x };
    let (a, b) = (daz(old), daz(new));
    let sign64 = |x: u16| ((x & 0x8000) as u64) << 48;
    let fa = if a & 0x7FFF > 0x7F80 {
        f64::from_bits(sign64(a) | ((0x7FFu64 << 52) - 1))
    } else {
        f32::from_bits((a as u32) << 16) as f64
    };
    let fb = if b & 0x7FFF > 0x7F80 {
        f64::from_bits(sign64(b) | ((255u64 - 127 + 1023) << 52) | (((b & 0x7F) as u64) << 45))
    } else {
        f32::from_bits((b as u32) << 16) as f64
    };
    let r = (fa + fb).to_bits();
    let s = ((r >> 63) as u16) << 15;
    let e = ((r >> 52) & 0x7FF) as i64 - 1023 + 127;
    let m = r & ((1u64 << 52) - 1);
    if e <= 0 {
        s
    } else if e >= 255 {
        s | 0x7F80
    } else {
        let rounded = (m + (1u64 << 44) - 1 + ((m >> 45) & 1)) >> 45;
        s | (((e as u64) << 7) + rounded) as u16
    }
}

/// FP16 `old + new` (Tensix FP16: no infinity or NaN): each operand widens
/// to FP32 (a zero exponent field reads as a signed zero), the FP32 sum
/// rounds to nearest even at FP16 precision and saturates to `0x7FFF`. An
/// exact cancellation gives `0x7FFF` when `old`'s exponent is 30 or 31 and
/// zero otherwise; a result below the FP16 normal range gives `0x7FFF` (a
/// zero exponent field gives zero). These last two are ttsim's record of
/// the hardware and are reproduced as they are.
pub fn fp16(old: u16, new: u16) -> u16 {
    let widen = |x: u16| {
        let mut w = ((x & 0x8000) as u32) << 16;
        if x & 0x7FFF >= 0x400 {
            w |= (((x & 0x7FFF) as u32) << 13) + (112 << 23);
        }
        w
    };
    let r = (f32::from_bits(widen(old)) + f32::from_bits(widen(new))).to_bits();
    let sign = ((r >> 16) & 0x8000) as u16;
    if r & 0x7FFF_FFFF == 0 {
        return sign | if (old >> 10) & 31 >= 30 { 0x7FFF } else { 0 };
    }
    let e = ((r >> 23) & 0xFF) as i32 - 112;
    if e <= 0 {
        return sign | if e < 0 { 0x7FFF } else { 0 };
    }
    let m = r & 0x7F_FFFF;
    let packed = ((e as u32) << 10) + ((m + (1 << 12) - 1 + ((m >> 13) & 1)) >> 13);
    sign | if packed < 0x8000 {
        packed as u16
    } else {
        0x7FFF
    }
}
