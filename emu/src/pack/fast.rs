//! A row-at-a-time path for the common case: datums from `Dst` that pass
//! edge masking untouched and go through no ReLU, histogram, thresholding,
//! downsampling, compression or accumulation. It computes
//! exactly what the per-datum path computes (the differential test
//! `pack_fast_path` runs both on the same inputs), only with the
//! conversions of a whole row done before the bytes go to the stream.

use super::late::{group_bytes, Late};
use super::{Context, Sink, Stages};
use crate::fault::Result;
use crate::format::bfp::{bfp_assemble, BfpGroup};
use crate::format::data_format::BfpWidth;
use crate::format::data_format::DataFormat;
use crate::format::dst::{decode_bf16, decode_fp32};
use crate::format::pack::{
    bf16_round, bfp_element, fp32_round_to_bf16, late_convert, EarlyConversion, Intermediate,
};
use crate::pack::relu::Relu;

/// The row conversions the fast path knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kernel {
    /// `Dst16b` BF16, rounding, to BF16.
    Bf16RoundToBf16,
    /// `Dst32b` FP32, rounding, to BF16.
    Fp32RoundToBf16,
    /// `Dst32b` FP32 identity to FP32.
    Fp32ToFp32,
    /// Anything else without per-datum stages: early then late conversion.
    Generic,
    /// A BFP output: early conversion, BFP element, shared-exponent
    /// assembly, a group at a time.
    Bfp,
}

impl Stages {
    /// The kernel for these stages, `None` when a per-datum stage is active.
    pub(super) fn kernel(&self, compress: bool) -> Option<Kernel> {
        if self.relu != Relu::Off
            || self.relu_on_tf32
            || self.histogram
            || self.threshold.is_some()
            || !self.down.keeps_all()
            || compress
            || self.acc.is_some()
        {
            return None;
        }
        let Late::Plain { to, .. } = self.late else {
            return Some(Kernel::Bfp);
        };
        Some(match (self.early, to) {
            (EarlyConversion::Bf16Round, DataFormat::Float16B) => Kernel::Bf16RoundToBf16,
            (EarlyConversion::Fp32ToBf16, DataFormat::Float16B) => Kernel::Fp32RoundToBf16,
            (EarlyConversion::Fp32Identity, DataFormat::Float32) => Kernel::Fp32ToFp32,
            _ => Kernel::Generic,
        })
    }
}

impl Context<'_> {
    /// Pack `n` datums of one row from column `col0` if the fast path
    /// applies (every one of them passes `mask`); returns whether it did.
    #[inline]
    pub(super) fn fast_row(
        &self,
        st: &Stages,
        sink: &mut Sink<'_>,
        cells: &[u32; 16],
        col0: u32,
        n: u32,
        mask: u16,
    ) -> Result<bool> {
        if self.general {
            return Ok(false);
        }
        let Some(kernel) = st.fast else {
            return Ok(false);
        };
        let want = (((1u32 << n) - 1) << col0) as u16;
        if mask & want != want {
            return Ok(false);
        }
        let cells = &cells[col0 as usize..(col0 + n) as usize];
        let (to, fp8, bytes) = match st.late {
            Late::Plain { to, fp8, bytes } => (to, fp8, bytes),
            Late::Bfp { exp, width } => {
                let mut vals = [Intermediate::Fp32(0); 16];
                st.early.apply_row(cells, &mut vals);
                let vals = &vals[..cells.len()];
                if sink.bfp.pending() == 0 && vals.len() == 16 {
                    // A whole group: assemble it directly.
                    let mut elems = [0u16; 16];
                    for (e, v) in elems.iter_mut().zip(vals) {
                        *e = bfp_element(*v, exp)?;
                    }
                    let g = bfp_assemble(exp, width, &elems);
                    emit_group(sink, width, &g)?;
                } else {
                    for v in vals {
                        let e = bfp_element(*v, exp)?;
                        if let Some(g) = sink.bfp.push(exp, width, e)? {
                            emit_group(sink, width, &g)?;
                        }
                    }
                }
                sink.emitted += n;
                return Ok(true);
            }
        };
        let mut out = [0u8; 64];
        let len = n as usize * bytes;
        match kernel {
            Kernel::Bf16RoundToBf16 => {
                for (o, c) in out.chunks_exact_mut(2).zip(cells) {
                    o.copy_from_slice(&bf16_round(decode_bf16(*c as u16)).to_le_bytes());
                }
            }
            Kernel::Fp32RoundToBf16 => {
                for (o, c) in out.chunks_exact_mut(2).zip(cells) {
                    o.copy_from_slice(&fp32_round_to_bf16(decode_fp32(*c)).to_le_bytes());
                }
            }
            Kernel::Fp32ToFp32 => {
                for (o, c) in out.chunks_exact_mut(4).zip(cells) {
                    o.copy_from_slice(&decode_fp32(*c).to_le_bytes());
                }
            }
            Kernel::Generic | Kernel::Bfp => {
                let mut vals = [Intermediate::Fp32(0); 16];
                st.early.apply_row(cells, &mut vals);
                for (o, v) in out.chunks_exact_mut(bytes).zip(&vals[..cells.len()]) {
                    let x = late_convert(*v, to, fp8)?;
                    o.copy_from_slice(&x.to_le_bytes()[..bytes]);
                }
            }
        }
        sink.emitted += n;
        sink.streams
            .data
            .push(sink.l1, &out[..len], None, sink.tag)?;
        Ok(true)
    }
}

/// A finished BFP group to the exponent and data streams.
#[inline]
fn emit_group(sink: &mut Sink<'_>, width: BfpWidth, g: &BfpGroup) -> Result<()> {
    sink.streams
        .exp
        .push(sink.l1, &[g.shared_exp], None, sink.tag)?;
    let (b, len) = group_bytes(width, g);
    sink.streams.data.push(sink.l1, &b[..len], None, sink.tag)
}
