//! Exponent thresholding: replace datums whose exponent is below a
//! threshold with zero (tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/Packers/ExponentThresholding.md`).

use super::edge_mask::zero_of;
use super::histogram::exponent_field;
use crate::fault::{Fault, Result};
use crate::format::data_format::DataFormat;
use crate::format::pack::Intermediate;

/// `ApplyExponentThresholding` with `Exp_threshold_en` set: for an
/// `In_data_format` of FP32, TF32, BF16, BFP8 or BFP4 the 8-bit exponent, for
/// FP16, FP8, BFP8a or BFP4a the 5-bit exponent zero-extended, is compared
/// with the 8-bit `Exp_threshold`; below it the datum becomes +0. BFP2a is
/// `UndefinedBehavior` (a hardware bug); the other formats pass unchanged.
/// The exponent is the datum's own field (its intermediate type decides
/// whether that is 8 or 5 bits).
#[inline]
pub fn apply(v: Intermediate, in_format: DataFormat, threshold: u32) -> Result<Intermediate> {
    use DataFormat as F;
    match in_format {
        F::Bfp2A => Err(Fault::undefined(
            "exponent thresholding with In_data_format = BFP2a is undefined (a hardware bug; \
             Packers/ExponentThresholding.md)",
        )),
        F::Float32
        | F::Tf32
        | F::Float16B
        | F::Bfp8B
        | F::Bfp4B
        | F::Float16
        | F::Lf8
        | F::Bfp8A
        | F::Bfp4A => match exponent_field(v) {
            Some(e) if e < (threshold & 0xFF) => Ok(zero_of(v)),
            _ => Ok(v),
        },
        _ => Ok(v),
    }
}
