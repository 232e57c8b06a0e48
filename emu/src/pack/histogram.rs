//! The exponent histogram: a side channel recording the exponents of the
//! datums a packer fetches from `Dst`.
//!
//! The page that defines it, tt-isa-documentation
//! `WormholeB0/.../Packers/ExponentHistogram.md`, is not among the stored
//! sources. Its content as quoted by Tenstorrent's own silicon probe
//! (tt-llk, `tests/python_tests/...pack_exp_histogram...`): per packer a
//! `uint8_t ExponentHistogram[32]`, incremented for every datum fetched from
//! `Dst` while any thread's `ENABLE_ACC_STATS_Enable` is set, at bin
//! `Exponent & 31`; reset by `CLREXPHIST`; read by `SETDMAREG` (two halves,
//! and packer 0's running maximum exponent). What a full 8-bit bin does is
//! left open there, so a readout of a bin past 255 is refused rather than
//! guessed.

use crate::fault::{Fault, Result};
use crate::format::float::{bf16_exponent, fp16_exponent, fp32_exponent};
use crate::format::pack::Intermediate;

/// One packer's histogram.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExponentHistogram {
    counts: [u32; 32],
    max_exponent: u32,
}

impl ExponentHistogram {
    /// `CLREXPHIST`'s `Reset`.
    pub fn reset(&mut self) {
        *self = ExponentHistogram::default();
    }

    /// Record one datum's exponent field (8 bits for the FP32/BF16 family, 5
    /// for the FP16 family). Integers have no exponent field the sources
    /// name, so recording one stops the run.
    pub fn observe(&mut self, v: Intermediate) -> Result<()> {
        let e = exponent_field(v).ok_or_else(|| {
            Fault::unimplemented(format!(
                "exponent histogram of an integer datum ({}): which bits form its exponent is \
                 not documented in the available sources",
                v.format()
            ))
        })?;
        let bin = &mut self.counts[(e & 31) as usize];
        *bin = bin.saturating_add(1);
        self.max_exponent = self.max_exponent.max(e);
        Ok(())
    }

    /// The 32 bins. `Unimplemented` when a bin has counted past 255, since
    /// whether the 8-bit bins wrap or saturate is not documented.
    pub fn bins(&self) -> Result<[u8; 32]> {
        let mut out = [0u8; 32];
        for (o, c) in out.iter_mut().zip(self.counts) {
            *o = u8::try_from(c).map_err(|_| {
                Fault::unimplemented(format!(
                    "exponent histogram bin counted {c} datums; whether a uint8_t bin wraps or \
                     saturates is not documented"
                ))
            })?;
        }
        Ok(out)
    }

    /// The largest exponent field recorded since the last reset.
    pub fn max_exponent(&self) -> u32 {
        self.max_exponent
    }
}

/// The exponent field of a float intermediate, `None` for integers.
pub const fn exponent_field(v: Intermediate) -> Option<u32> {
    use Intermediate as I;
    Some(match v {
        I::Fp32(x) | I::Tf32(x) => fp32_exponent(x),
        I::Bf16(x) | I::E8m6(x) => bf16_exponent(x) as u32,
        I::Fp16(x) | I::E5m7(x) | I::E5m6(x) => fp16_exponent(x) as u32,
        I::Fp8(x) => ((x >> 2) & 0x1F) as u32,
        I::Int32(_) | I::Int16(_) | I::Int8(_) | I::UInt8(_) => return None,
    })
}
