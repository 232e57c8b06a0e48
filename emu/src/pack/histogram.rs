//! The exponent histogram: a side channel recording the exponents of the
//! datums a packer fetches from `Dst`.
//!
//! `SETDMAREG_Special.md` (tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/`) describes it as an array of
//! 32 bytes per packer, each a saturating counter, indexed by the low five
//! bits of the exponent (useful mostly for 5-bit exponents), beside a
//! running maximum exponent; `SETDMAREG` reads the bins of any packer and
//! the maximum of packer 0 ([`super::readout`]). The page that defines the counting,
//! `Packers/ExponentHistogram.md`, is not among the stored sources; as
//! quoted by Tenstorrent's silicon probe (tt-llk,
//! `tests/python_tests/...pack_exp_histogram...`), a datum counts when it is
//! fetched from `Dst` while any thread's `ENABLE_ACC_STATS_Enable` is set,
//! and `CLREXPHIST` resets the counters.

use crate::fault::{Fault, Result};
use crate::format::float::{bf16_exponent, fp16_exponent, fp32_exponent};
use crate::format::pack::Intermediate;

/// One packer's histogram.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExponentHistogram {
    counts: [u8; 32],
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
        let bin = &mut self.counts[bin_of(e)];
        *bin = bin.saturating_add(1);
        self.max_exponent = self.max_exponent.max(e);
        Ok(())
    }

    /// The 32 bins, each saturating at 255 (SETDMAREG_Special.md).
    pub fn bins(&self) -> [u8; 32] {
        self.counts
    }

    /// The largest exponent field recorded since the last reset.
    pub fn max_exponent(&self) -> u32 {
        self.max_exponent
    }
}

/// The bin an exponent field counts in: its low five bits.
pub const fn bin_of(exponent: u32) -> usize {
    (exponent & 31) as usize
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
