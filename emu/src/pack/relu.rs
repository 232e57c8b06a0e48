//! The ReLU stage, shortly after the early format conversion
//! (tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/Packers/ReLU.md`).

use crate::fault::{Fault, Result};
use crate::format::pack::Intermediate;

use super::edge_mask::zero_of;

/// The four modes of `STACC_RELU_ApplyRelu & 3`, with the 16-bit
/// `STACC_RELU_ReluThreshold`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relu {
    /// 0, `NO_RELU`.
    Off,
    /// 1, `ZERO_RELU`: `x <= 0 ? 0 : x`.
    Zero,
    /// 2, `MIN_THRESHOLD_RELU`: `x <= Threshold ? 0 : x`.
    MinThreshold(u16),
    /// 3, `MAX_THRESHOLD_RELU`: 0 at or below 0, `Threshold` above it.
    MaxThreshold(u16),
}

impl Relu {
    /// The stage `Config` selects. A threshold with its sign bit set is
    /// `UndefinedBehavior` in modes 2 and 3 (ReLU.md: "Threshold <= -0 is
    /// undefined").
    pub fn select(apply_relu: u32, threshold: u16) -> Result<Relu> {
        let mode = apply_relu & 3;
        if mode >= 2 && threshold & 0x8000 != 0 {
            return Err(Fault::undefined(format!(
                "ReLU mode {mode} with STACC_RELU_ReluThreshold = {threshold:#06x}, whose sign \
                 bit is set: a threshold <= -0 is undefined (Packers/ReLU.md)"
            )));
        }
        Ok(match mode {
            0 => Relu::Off,
            1 => Relu::Zero,
            2 => Relu::MinThreshold(threshold),
            _ => Relu::MaxThreshold(threshold),
        })
    }

    /// Apply the stage to one datum.
    ///
    /// ReLU.md gives the stage on `float` values, with the threshold read as
    /// FP16 when `IntermediateFormat` is FP16, FP8, BFP8a, BFP4a or BFP2a and
    /// as BF16 (the top half of an FP32) otherwise. Here the comparisons are
    /// made on the sign-magnitude bit patterns, as ttsim does
    /// (`TENSIX_EXECUTE_PACR`), against the threshold read in the datum's
    /// own family: a set sign bit counts as `<= 0`, and otherwise the
    /// magnitude bits are compared with the threshold's. For every number
    /// this is the page's comparison. Where they differ the conformance
    /// vectors follow ttsim:
    /// * a NaN (only an identity early conversion lets one through) compares
    ///   by its bits: a negative NaN becomes 0, a positive NaN counts as
    ///   above any threshold (`blackhole/pack/d32-fp32-to-fp32-0196`);
    /// * in the Blackhole mode that rounds a 32-bit `Dst` to TF32 before
    ///   saturating to FP16, ReLU acts on the TF32 value with a BF16
    ///   threshold, though `IntermediateFormat` is FP16
    ///   (`blackhole/pack/d32-fp16-to-fp16-0266`).
    ///
    /// FP32 datums in mode 3 compare with the threshold at full precision,
    /// as the page's `x > Threshold` on floats says: `0x40400001` is above
    /// the threshold `0x4040` and is clamped. ttsim v1.10.0 compares there at
    /// TF32 precision (`(value >> 13) > (threshold >> 13)`, while its mode 2
    /// uses every bit) and would keep it; no device source backs the
    /// asymmetry, and the documentation outranks ttsim
    /// (`isa-spec/blackhole/pack/relu-max-threshold-fp32-full-precision`).
    ///
    /// Mode 3 replaces a datum above the threshold by the threshold, in the
    /// datum's type with all of the threshold's bits (the page's "converted
    /// back down" is unspecified; ttsim keeps the bits and the late
    /// conversion narrows them). An FP8 datum cannot hold an FP16 threshold
    /// with more than two mantissa bits; that stops the run.
    ///
    /// Integers: mode 1 replaces negatives (and −0) with 0; modes 2 and 3
    /// are `UndefinedBehavior` (the page: with an integer format
    /// `ApplyRelu` "should be set to zero ... or set to one").
    #[inline]
    pub fn apply(self, v: Intermediate) -> Result<Intermediate> {
        use Intermediate as I;
        let (t, max) = match self {
            Relu::Off => return Ok(v),
            Relu::Zero => (None, false),
            Relu::MinThreshold(t) => (Some(t), false),
            Relu::MaxThreshold(t) => (Some(t), true),
        };
        // (sign set, magnitude bits, threshold magnitude)
        let (negative, mag, tmag) = match v {
            I::Fp32(x) | I::Tf32(x) => (x & 0x8000_0000 != 0, x, t.map(|t| (t as u32) << 16)),
            I::Bf16(x) | I::E8m6(x) | I::Fp16(x) | I::E5m7(x) | I::E5m6(x) => {
                (x & 0x8000 != 0, x as u32, t.map(|t| t as u32))
            }
            I::Fp8(x) => (x & 0x80 != 0, (x as u32) << 8, t.map(|t| t as u32)),
            I::Int32(x) => return int(self, v, x & 0x8000_0000 != 0 || x == 0),
            I::Int16(x) => return int(self, v, x & 0x8000 != 0 || x == 0),
            I::Int8(x) => return int(self, v, x & 0x80 != 0 || x == 0),
            I::UInt8(x) => return int(self, v, x == 0),
        };
        if negative {
            return Ok(zero_of(v));
        }
        let Some(tm) = tmag else {
            return Ok(if mag == 0 { zero_of(v) } else { v });
        };
        if max {
            if mag == 0 {
                Ok(zero_of(v))
            } else if mag > tm {
                threshold_as(v, tm)
            } else {
                Ok(v)
            }
        } else if mag <= tm {
            Ok(zero_of(v))
        } else {
            Ok(v)
        }
    }
}

/// ReLU on an integer datum; `nonpositive` says whether it is <= 0.
fn int(relu: Relu, v: Intermediate, nonpositive: bool) -> Result<Intermediate> {
    match relu {
        Relu::Zero => Ok(if nonpositive { zero_of(v) } else { v }),
        _ => Err(Fault::undefined(format!(
            "ReLU threshold modes with the integer intermediate {}: ApplyRelu should be 0 or 1 \
             for integers (Packers/ReLU.md)",
            v.format()
        ))),
    }
}

/// The threshold (magnitude bits in the datum's family) in `like`'s type.
fn threshold_as(like: Intermediate, t: u32) -> Result<Intermediate> {
    use Intermediate as I;
    Ok(match like {
        I::Fp32(_) => I::Fp32(t),
        I::Tf32(_) => I::Tf32(t),
        I::Bf16(_) => I::Bf16(t as u16),
        I::E8m6(_) => I::E8m6(t as u16),
        I::Fp16(_) => I::Fp16(t as u16),
        I::E5m7(_) => I::E5m7(t as u16),
        I::E5m6(_) => I::E5m6(t as u16),
        I::Fp8(_) if t & 0xFF == 0 => I::Fp8((t >> 8) as u8),
        _ => {
            return Err(Fault::unsupported(format!(
                "ReLU mode 3 clamps a {} datum to the threshold {t:#06x}, which that type cannot \
                 hold; Packers/ReLU.md does not say how it is narrowed",
                like.format()
            )))
        }
    })
}
