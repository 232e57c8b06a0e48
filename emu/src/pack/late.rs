//! The late format conversion and the BFP shared-exponent assembler
//! (tt-isa-documentation `WormholeB0/.../Packers/FormatConversion.md`, "Late
//! format conversion"; the per-datum arithmetic is in
//! [`crate::format::pack`] and [`crate::format::bfp`]).

use super::stream::Streams;
use crate::fault::{Fault, Result};
use crate::format::bfp::{bfp_assemble, bfp_pack_datums, BfpGroup};
use crate::format::data_format::{BfpExp, BfpWidth, DataFormat, Fp8Format};
use crate::format::pack::{bfp_element, late_convert, Intermediate};
use crate::state::L1;

/// The late conversion one instruction performs, chosen from
/// `Out_data_format` (and `Pac_LF8_4b_exp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Late {
    /// A non-BFP output of `bytes` bytes per datum.
    Plain {
        to: DataFormat,
        fp8: Fp8Format,
        bytes: usize,
    },
    /// A BFP output: one exponent per 16 datums.
    Bfp { exp: BfpExp, width: BfpWidth },
}

impl Late {
    pub fn select(out: DataFormat, lf8_4b_exp: bool) -> Late {
        match out.bfp() {
            Some((exp, width)) => Late::Bfp { exp, width },
            None => Late::Plain {
                to: out,
                fp8: if lf8_4b_exp {
                    Fp8Format::E4M3
                } else {
                    Fp8Format::E5M2
                },
                bytes: out.datum_bytes().unwrap_or(4) as usize,
            },
        }
    }
}

/// One datum after the late conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Converted {
    /// An L1 datum of `Late::Plain`'s width, in the low bytes.
    Plain(u32),
    /// A BFP element (BF16 pattern for the plain forms, E5M7 in FP16 layout
    /// for the "a" forms) waiting for its group.
    Element(u16),
}

impl Converted {
    /// Whether zero compression may drop it: an all-zero L1 datum, or an
    /// element of magnitude zero (which packs without its sign).
    pub const fn is_zero(self) -> bool {
        match self {
            Converted::Plain(x) => x == 0,
            Converted::Element(e) => e & 0x7FFF == 0,
        }
    }
}

impl Late {
    /// Convert one datum.
    #[inline]
    pub fn convert(self, v: Intermediate) -> Result<Converted> {
        match self {
            Late::Plain { to, fp8, .. } => late_convert(v, to, fp8).map(Converted::Plain),
            Late::Bfp { exp, .. } => bfp_element(v, exp).map(Converted::Element),
        }
    }
}

/// The shared-exponent assembler: collects 16 elements, possibly across
/// several instructions (the output buffers, and the assembler before them,
/// persist between `PACR`s; FormatConversion.md, "one shared 8b exponent per
/// 16 datums").
///
/// Two assemblers are equal when they hold the same elements of the same
/// format: what an empty one last held, and the format of its last group,
/// make no difference to what it does next.
#[derive(Clone, Debug, Default)]
pub struct BfpAssembler {
    elems: [u16; 16],
    n: usize,
    kind: Option<(BfpExp, BfpWidth)>,
}

impl PartialEq for BfpAssembler {
    fn eq(&self, other: &BfpAssembler) -> bool {
        self.elems[..self.n] == other.elems[..other.n] && (self.n == 0 || self.kind == other.kind)
    }
}

impl Eq for BfpAssembler {}

impl BfpAssembler {
    /// Elements waiting for a full group.
    pub fn pending(&self) -> usize {
        self.n
    }

    /// Add one element; returns the group once it has 16. A group begun in
    /// another BFP format stops the run: no source says how the assembler
    /// mixes formats.
    #[inline]
    pub fn push(&mut self, exp: BfpExp, width: BfpWidth, elem: u16) -> Result<Option<BfpGroup>> {
        if self.n > 0 && self.kind != Some((exp, width)) {
            return Err(Fault::unsupported(
                "the BFP output format changed while the shared-exponent assembler held a \
                 partial group of 16 datums; no source says how the group is completed",
            ));
        }
        self.kind = Some((exp, width));
        self.elems[self.n] = elem;
        self.n += 1;
        if self.n < 16 {
            return Ok(None);
        }
        self.n = 0;
        Ok(Some(bfp_assemble(exp, width, &self.elems)))
    }

    /// Complete a partial group with zero elements (used only where the
    /// format itself calls for padding, in zero compression).
    pub fn pad(&mut self) -> Option<BfpGroup> {
        let (exp, width) = self.kind?;
        if self.n == 0 {
            return None;
        }
        self.elems[self.n..].fill(0);
        self.n = 0;
        Some(bfp_assemble(exp, width, &self.elems))
    }
}

/// Write a finished group: its shared exponent to the exponent stream, its
/// 16, 8 or 4 bytes of datums to the data stream. Never accumulated: L1
/// accumulation is not defined for BFP outputs ([`AccFormat::for_output`]).
///
/// [`AccFormat::for_output`]: super::l1_acc::AccFormat::for_output
#[inline]
pub fn emit_group(
    streams: &mut Streams,
    l1: &mut L1,
    width: BfpWidth,
    g: &BfpGroup,
    tag: u64,
) -> Result<()> {
    streams.exp.push(l1, &[g.shared_exp], None, tag)?;
    let mut bytes = [0u8; 16];
    bfp_pack_datums(width, &g.datums, &mut bytes);
    streams
        .data
        .push(l1, &bytes[..width.group_bytes()], None, tag)
}

/// [`emit_group`] for each of `groups` (at most four) in order, writing L1
/// in the same order with at most three pushes. Only the exponent stream's
/// push of the group whose exponent fills its buffer writes there, after
/// the data bytes of the groups before it and before that group's own: so
/// the data bytes go in two pushes, split at that group. When no exponent
/// fills the buffer and the data bytes are whole 16-byte writes of an
/// empty buffer, they are packed straight into L1
/// ([`OutStream::fill_direct`](super::stream::OutStream::fill_direct)).
pub fn emit_groups(
    streams: &mut Streams,
    l1: &mut L1,
    width: BfpWidth,
    groups: &[BfpGroup],
    tag: u64,
) -> Result<()> {
    const MAX: usize = 4;
    if groups.len() > MAX {
        return groups
            .iter()
            .try_for_each(|g| emit_group(streams, l1, width, g, tag));
    }
    let n = width.group_bytes();
    let mut exps = [0u8; MAX];
    for (e, g) in exps.iter_mut().zip(groups) {
        *e = g.shared_exp;
    }
    let exps = &exps[..groups.len()];
    // The group whose exponent fills the buffer (`groups.len()` when none
    // does): the data bytes before it reach L1 first.
    let fills = (16 - streams.exp.pending()).min(groups.len() + 1) - 1;
    let pack = |out: &mut [u8]| {
        for (g, at) in groups.iter().zip(out.chunks_exact_mut(n)) {
            bfp_pack_datums(width, &g.datums, at);
        }
    };
    if fills == groups.len() && streams.data.fill_direct(l1, n * groups.len(), tag, pack) {
        return streams.exp.push(l1, exps, None, tag);
    }
    let mut data = [0u8; 16 * MAX];
    let data = &mut data[..n * groups.len()];
    pack(data);
    let (before, rest) = data.split_at(n * fills);
    streams.data.push(l1, before, None, tag)?;
    streams.exp.push(l1, exps, None, tag)?;
    streams.data.push(l1, rest, None, tag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use BfpExp::{A, B};
    use BfpWidth::{Bits4, Bits8};

    fn fed(steps: &[(BfpExp, BfpWidth, u16)]) -> BfpAssembler {
        let mut a = BfpAssembler::default();
        for &(exp, width, e) in steps {
            a.push(exp, width, e).unwrap();
        }
        a
    }

    /// Equal when the same elements of the same format wait, whatever groups
    /// went before; unequal when the waiting elements or their format
    /// differ.
    #[test]
    fn assemblers_compare_by_what_they_hold() {
        let group_a: Vec<_> = (0..16).map(|e| (A, Bits4, 0x3C00 + e)).collect();
        assert_eq!(fed(&group_a), BfpAssembler::default());
        let mut then_one = group_a.clone();
        then_one.push((B, Bits8, 0x3F80));
        assert_eq!(fed(&then_one), fed(&[(B, Bits8, 0x3F80)]));
        assert_ne!(fed(&then_one), fed(&[(B, Bits8, 0x3F81)]));
        assert_ne!(fed(&then_one), fed(&[(B, Bits4, 0x3F80)]));
        assert_ne!(fed(&then_one), BfpAssembler::default());
    }
}
