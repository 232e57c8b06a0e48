//! A row-at-a-time path for the common case: datums from `Dst` that go
//! through no histogram, thresholding, downsampling, compression or
//! accumulation. Rows whose datums all pass edge masking, with ReLU off,
//! take row kernels; the others (ReLU on, or a row the edge mask touches)
//! have each datum fetched as the per-datum path fetches it (edge mask,
//! early conversion, ReLU) and the row's output pushed at once
//! ([`Context::staged_row`]). It
//! computes exactly what the per-datum path computes (the differential test
//! `pack_fast_path` runs both on the same inputs), only with the
//! conversions of whole rows done before the bytes go to the stream.

use super::config::Shared;
#[cfg(target_arch = "x86_64")]
use super::lanes::{
    adjacent_rows_avx512, bf16_round_avx512, fp16_to_e5m6_avx512, fp32_round_avx512,
    two_rows_avx512, Fp16Lanes,
};
use super::lanes::{Dst16Lanes, Dst32Lanes};
use super::late::{emit_group, emit_groups, Late};
use super::stream::{OutStream, Streams};
use super::{dst_row16, dst_row32, read_row, Context, Sink, Stages};
use crate::arch::Arch;
use crate::fault::Result;
#[cfg(target_arch = "x86_64")]
use crate::format::bfp::{
    assemble_lanes, assemble_lanes_avx512, assemble_pairs_avx2, assemble_quads_avx512, halves_avx2,
    halves_avx512,
    quad_lanes::{self, A_ELEMENTS, B_ELEMENTS},
};
use crate::format::bfp::{assemble_portable, bfp_pack_datums, BfpGroup};
use crate::format::data_format::{BfpExp, BfpWidth, DataFormat, Fp8Format};
use crate::format::dst::{decode_bf16, decode_fp32, dst32_join};
use crate::format::pack::{
    bf16_round, bfp_element, fp32_round_to_bf16, late_convert, EarlyConversion, Intermediate,
};
use crate::pack::relu::Relu;
use crate::state::dst::DstAddressing;
use crate::state::{Dst, L1};

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

/// Rows one [`Context::fast_rows`] call converts before writing: Blackhole's
/// four read interfaces.
pub(super) const BATCH_ROWS: usize = 4;

/// The most rows one call of [`BfpRows::to_streams`] takes for several
/// instructions: a tile's.
pub(super) const TILE_ROWS: usize = 64;

impl Stages {
    /// Whether the row path applies to these stages: none after ReLU (the
    /// histogram, thresholding, downsampling, compression, accumulation) is
    /// active.
    pub(super) fn row_path(&self, compress: bool) -> bool {
        !(self.histogram
            || self.threshold.is_some()
            || !self.down.keeps_all()
            || compress
            || self.acc.is_some())
    }

    /// The row kernel for these stages, `None` when a per-datum stage
    /// (ReLU, or one after it) is active.
    pub(super) fn kernel(&self, compress: bool) -> Option<Kernel> {
        if !self.row_path(compress) || self.relu != Relu::Off || self.relu_on_tf32 {
            return None;
        }
        let Late::Plain { to, .. } = self.late else {
            return self.early.feeds_bfp().then_some(Kernel::Bfp);
        };
        Some(match (self.early, to) {
            (EarlyConversion::Bf16Round, DataFormat::Float16B) => Kernel::Bf16RoundToBf16,
            (EarlyConversion::Fp32ToBf16, DataFormat::Float16B) => Kernel::Fp32RoundToBf16,
            (EarlyConversion::Fp32Identity, DataFormat::Float32) => Kernel::Fp32ToFp32,
            _ => Kernel::Generic,
        })
    }
}

impl Kernel {
    /// Bytes of output per whole `Dst` row, for the kernels that write L1
    /// directly ([`whole_rows_to_l1`]).
    pub(super) fn row_bytes(self) -> Option<usize> {
        match self {
            Kernel::Bf16RoundToBf16 | Kernel::Fp32RoundToBf16 => Some(32),
            Kernel::Fp32ToFp32 => Some(64),
            Kernel::Generic | Kernel::Bfp => None,
        }
    }

    /// Convert `cells` (a plain, not BFP, output of `bytes` bytes per datum)
    /// into the start of `out`; returns the bytes written.
    #[inline]
    fn plain_row(
        self,
        early: EarlyConversion,
        cells: &[u32],
        out: &mut [u8],
        (to, fp8, bytes): (DataFormat, Fp8Format, usize),
    ) -> Result<usize> {
        if let Ok(row) = <&[u32; 16]>::try_from(cells) {
            if let Some(len) = self.whole_row(row, out) {
                return Ok(len);
            }
        }
        let out = &mut out[..cells.len() * bytes];
        match self {
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
                early.apply_row(cells, &mut vals);
                for (o, v) in out.chunks_exact_mut(bytes).zip(&vals[..cells.len()]) {
                    let x = late_convert(*v, to, fp8)?;
                    o.copy_from_slice(&x.to_le_bytes()[..bytes]);
                }
            }
        }
        Ok(out.len())
    }

    /// The fixed-format kernels on a whole row of 16 datums, written so the
    /// compiler can convert several datums per instruction; `None` for the
    /// kernels without such a form.
    #[inline]
    fn whole_row(self, cells: &[u32; 16], out: &mut [u8]) -> Option<usize> {
        match self {
            Kernel::Bf16RoundToBf16 => {
                put_u16(out, &Dst16Lanes::Round.row(&cells.map(|c| c as u16)))
            }
            Kernel::Fp32RoundToBf16 => {
                let mut v = [0u16; 16];
                for (v, c) in v.iter_mut().zip(cells) {
                    *v = fp32_round_to_bf16(decode_fp32(*c));
                }
                put_u16(out, &v)
            }
            Kernel::Fp32ToFp32 => {
                let mut v = [0u32; 16];
                for (v, c) in v.iter_mut().zip(cells) {
                    *v = decode_fp32(*c);
                }
                put_u32(out, &v)
            }
            Kernel::Generic | Kernel::Bfp => None,
        }
    }
}

/// `vals` as little-endian bytes at the start of `out`; the bytes written,
/// or `None` if `out` is too short.
#[inline]
fn put_u16(out: &mut [u8], vals: &[u16; 16]) -> Option<usize> {
    let mut bytes = [0u8; 32];
    for (b, v) in bytes.chunks_exact_mut(2).zip(vals) {
        b.copy_from_slice(&v.to_le_bytes());
    }
    out.get_mut(..32)?.copy_from_slice(&bytes);
    Some(32)
}

/// As [`put_u16`] for 32-bit values.
#[inline]
fn put_u32(out: &mut [u8], vals: &[u32; 16]) -> Option<usize> {
    let mut bytes = [0u8; 64];
    for (b, v) in bytes.chunks_exact_mut(4).zip(vals) {
        b.copy_from_slice(&v.to_le_bytes());
    }
    out.get_mut(..64)?.copy_from_slice(&bytes);
    Some(64)
}

impl Context<'_> {
    /// Pack `n` datums of one row from column `col0`, under edge mask
    /// `mask`, if the fast path applies; returns whether it did.
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
        if self.general || !st.row_path {
            return Ok(false);
        }
        let want = (((1u32 << n) - 1) << col0) as u16;
        let Some(kernel) = st.fast.filter(|_| mask & want == want) else {
            self.staged_row(st, sink, cells, col0 as usize..(col0 + n) as usize, mask)?;
            return Ok(true);
        };
        let cells = &cells[col0 as usize..(col0 + n) as usize];
        match st.late {
            Late::Plain { to, fp8, bytes } => {
                let mut out = [0u8; 64];
                let len = kernel.plain_row(st.early, cells, &mut out, (to, fp8, bytes))?;
                sink.emitted += n;
                sink.streams
                    .data
                    .push(sink.l1, &out[..len], None, sink.tag)?;
            }
            Late::Bfp { exp, width } => bfp_row(st, sink, cells, exp, width)?,
        }
        Ok(true)
    }

    /// The datums of `cells` in columns `cols`, each as [`Context::fetch`]
    /// gives it (the edge mask's fill, or the early conversion and ReLU)
    /// and then through the late conversion, with no stage between them;
    /// a plain row's bytes are pushed at once. A datum that faults stops
    /// the row after those before it have gone to the stream, as datum by
    /// datum.
    fn staged_row(
        &self,
        st: &Stages,
        sink: &mut Sink<'_>,
        cells: &[u32; 16],
        cols: std::ops::Range<usize>,
        mask: u16,
    ) -> Result<()> {
        let fetched = |col: usize| self.fetch(st, cells[col], mask, col as u32);
        match st.late {
            Late::Plain { to, fp8, bytes } => {
                let mut out = [0u8; 64];
                let mut len = 0;
                let mut fault = None;
                for col in cols {
                    match fetched(col).and_then(|v| late_convert(v, to, fp8)) {
                        Ok(x) => {
                            out[len..len + bytes].copy_from_slice(&x.to_le_bytes()[..bytes]);
                            len += bytes;
                        }
                        Err(f) => {
                            fault = Some(f);
                            break;
                        }
                    }
                }
                sink.emitted += (len / bytes) as u32;
                sink.streams
                    .data
                    .push(sink.l1, &out[..len], None, sink.tag)?;
                fault.map_or(Ok(()), Err)
            }
            Late::Bfp { exp, width } => {
                for col in cols {
                    let e = bfp_element(fetched(col)?, exp)?;
                    sink.emitted += 1;
                    if let Some(g) = sink.bfp.push(exp, width, e)? {
                        emit_group(sink.streams, sink.l1, width, &g, sink.tag)?;
                    }
                }
                Ok(())
            }
        }
    }

    /// Pack `n` datums from column `col0` of each `Dst` row in `rows` (at
    /// most four) if the fast path applies to every one of them, converting
    /// them all before writing the stream; returns whether it did. A
    /// conversion fault comes after the rows before it are written, as row
    /// by row.
    pub(super) fn fast_rows(
        &self,
        st: &Stages,
        sink: &mut Sink<'_>,
        dst: &Dst,
        rows: &[u32],
        col0: u32,
        n: u32,
    ) -> Result<bool> {
        if self.general || !st.edge_unmasked || rows.len() > BATCH_ROWS {
            return Ok(false);
        }
        let Some(kernel) = st.fast else {
            return Ok(false);
        };
        let sh = self.shared;
        let wide = st.early.reads_32b();
        let (col0, end) = (col0 as usize, (col0 + n) as usize);
        let (to, fp8, bytes) = match st.late {
            Late::Plain { to, fp8, bytes } => (to, fp8, bytes),
            Late::Bfp { exp, width } => {
                if col0 == 0 && end == 16 && sink.bfp.pending() == 0 {
                    let form = BfpRows {
                        early: st.early,
                        exp,
                        width,
                    };
                    form.to_streams::<BATCH_ROWS>(sh, sink.streams, sink.l1, sink.tag, dst, rows)?;
                    sink.emitted += 16 * rows.len() as u32;
                    return Ok(true);
                }
                for row in rows {
                    let cells = read_row(dst, sh.arch, sh.dst_addressing, wide, *row);
                    bfp_row(st, sink, &cells[col0..end], exp, width)?;
                }
                return Ok(true);
            }
        };
        if col0 == 0
            && end == 16
            && whole_rows_to_l1(
                kernel,
                sh,
                &mut sink.streams.data,
                sink.l1,
                sink.tag,
                dst,
                rows,
            )
        {
            sink.emitted += n * rows.len() as u32;
            return Ok(true);
        }
        let mut out = [0u8; BATCH_ROWS * 64];
        let mut len = 0;
        for row in rows {
            let cells = read_row(dst, sh.arch, sh.dst_addressing, wide, *row);
            match kernel.plain_row(
                st.early,
                &cells[col0..end],
                &mut out[len..],
                (to, fp8, bytes),
            ) {
                Ok(k) => {
                    len += k;
                    sink.emitted += n;
                }
                Err(e) => {
                    sink.streams
                        .data
                        .push(sink.l1, &out[..len], None, sink.tag)?;
                    return Err(e);
                }
            }
        }
        sink.streams
            .data
            .push(sink.l1, &out[..len], None, sink.tag)?;
        Ok(true)
    }
}

/// A BFP output fed by an early conversion that feeds BFP
/// ([`EarlyConversion::feeds_bfp`]), taken a whole `Dst` row at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct BfpRows {
    pub early: EarlyConversion,
    pub exp: BfpExp,
    pub width: BfpWidth,
}

impl BfpRows {
    /// Whole `Dst` rows (at most `N`) with the BFP assembler empty, each
    /// one group made from the row in place in `Dst`, sent to the exponent
    /// and data streams. `N` = [`BATCH_ROWS`], one instruction's rows: the
    /// groups go as group by group ([`emit_groups`]), and a fault is the
    /// streams' leaving L1 with the writes before it done. `N` =
    /// [`TILE_ROWS`], several instructions' rows: all the exponents are
    /// pushed and then all the data (or the data, written straight into
    /// L1, and then the exponents), which leaves the same trace only where
    /// the two streams' writes do not overlap, all lie inside L1, and the
    /// L1 write log is off (the caller's to check).
    pub fn to_streams<const N: usize>(
        self,
        sh: &Shared,
        streams: &mut Streams,
        l1: &mut L1,
        tag: u64,
        dst: &Dst,
        rows: &[u32],
    ) -> Result<()> {
        let rows = &rows[..rows.len().min(N)];
        if N <= BATCH_ROWS {
            let cells = rows.iter().map(|row| self.row_cells(sh, dst, *row));
            let mut groups = [BfpGroup::default(); N];
            let groups = &mut groups[..rows.len()];
            self.groups(cells, groups);
            return emit_groups(streams, l1, self.width, groups, tag);
        }
        let mut exps = [0u8; TILE_ROWS];
        let exps = &mut exps[..rows.len()];
        let data_len = self.width.group_bytes() * rows.len();
        // The data straight into L1 where the stream allows it, and then
        // the exponents: the order does not matter here either.
        let direct = streams.data.fill_direct(l1, data_len, tag, |out| {
            self.tile_bytes(sh, dst, rows, exps, out);
        });
        if direct {
            return streams.exp.push(l1, exps, None, tag);
        }
        let mut data = [0u8; 16 * TILE_ROWS];
        let data = &mut data[..data_len];
        self.tile_bytes(sh, dst, rows, exps, data);
        streams.exp.push(l1, exps, None, tag)?;
        streams.data.push(l1, data, None, tag)
    }

    /// The group of each of `Dst` rows `rows` (at most [`TILE_ROWS`]) as
    /// its bytes go to L1: its shared exponent into `exps` (as long as
    /// `rows`), its datums packed to the width into `data`, one group after
    /// another.
    #[inline]
    fn tile_bytes(self, sh: &Shared, dst: &Dst, rows: &[u32], exps: &mut [u8], data: &mut [u8]) {
        #[cfg(target_arch = "x86_64")]
        if crate::has_avx512_bw_vl_bmi2() {
            // SAFETY: the CPU has AVX-512BW, AVX-512VL and BMI2, checked
            // just above.
            return unsafe { tile_bytes_avx512(self, sh, dst, rows, exps, data) };
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { tile_bytes_avx2(self, sh, dst, rows, exps, data) };
        }
        let cells = rows.iter().map(|row| self.row_cells(sh, dst, *row));
        let mut groups = [BfpGroup::default(); TILE_ROWS];
        let groups = &mut groups[..exps.len().min(TILE_ROWS)];
        self.groups(cells, groups);
        let n = self.width.group_bytes();
        for ((g, e), out) in groups.iter().zip(exps).zip(data.chunks_exact_mut(n)) {
            *e = g.shared_exp;
            bfp_pack_datums(self.width, &g.datums, out);
        }
    }

    /// The group of each row of `cells`, into `out`, with the instruction
    /// set chosen once for them all.
    #[inline]
    fn groups<'c>(self, cells: impl Iterator<Item = Cells<'c>>, out: &mut [BfpGroup]) {
        #[cfg(target_arch = "x86_64")]
        if crate::has_avx512_bw_vl() {
            // SAFETY: the CPU has AVX-512BW and AVX-512VL, checked just
            // above.
            return unsafe { groups_avx512(self, cells, out) };
        }
        avx2_or!(
            groups_avx2(self, cells, out),
            groups_portable(self, cells, out)
        )
    }

    /// `Dst` row `row` in place, as the early conversion reads it.
    #[inline(always)]
    fn row_cells<'d>(self, sh: &Shared, dst: &'d Dst, row: u32) -> Cells<'d> {
        if self.early.reads_32b() {
            Cells::Dst32(dst_row32(dst, sh.arch, sh.dst_addressing, row))
        } else {
            Cells::Dst16(dst_row16(dst, sh.arch, sh.dst_addressing, row))
        }
    }
}

/// [`BfpRows::groups`] compiled for AVX2, assembling in 16-bit lanes
/// ([`assemble_lanes`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn groups_avx2<'c>(form: BfpRows, cells: impl Iterator<Item = Cells<'c>>, out: &mut [BfpGroup]) {
    each_row_elements(form, cells, out, |e, elems, g| {
        assemble_lanes(e, form.width, elems, g)
    });
}

/// [`BfpRows::groups`] compiled for AVX-512, assembling with its variable
/// shifts of 16-bit lanes ([`assemble_lanes_avx512`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vl")]
fn groups_avx512<'c>(form: BfpRows, cells: impl Iterator<Item = Cells<'c>>, out: &mut [BfpGroup]) {
    each_row_elements(form, cells, out, |e, elems, g| {
        assemble_lanes_avx512(e, form.width, elems, g)
    });
}

/// Each row's BFP elements ([`bfp_elements`]), handed to `take` with the
/// form's exponent kind and the row's item of `outs`, while both last: the
/// body of [`groups_avx2`] and [`groups_avx512`], and of the elements path
/// of [`tile_bytes_avx512`], inlined into each.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn each_row_elements<'c, O>(
    form: BfpRows,
    cells: impl Iterator<Item = Cells<'c>>,
    outs: impl IntoIterator<Item = O>,
    mut take: impl FnMut(BfpExp, &[u16; 16], O),
) {
    // A form whose early conversion has a lane form gets a loop of its own
    // for it, so that the conversion is not chosen again row by row.
    macro_rules! each {
        ($exp:ident, $cells:pat => $elems:expr) => {{
            for (c, o) in cells.zip(outs) {
                let elems = match c {
                    $cells => $elems,
                    c => bfp_elements(form.early, form.exp, c),
                };
                take(BfpExp::$exp, &elems, o);
            }
            return;
        }};
    }
    use {Dst16Lanes as L16, Dst32Lanes as L32, Fp16Lanes as F16};
    match form.exp {
        BfpExp::B => match (L16::of(form.early), L32::of(form.early)) {
            // Each arm binds its own form, known there, so that the form's
            // choice inside `row` is made once, here.
            (Some(k @ L16::Identity), _) => each!(B, Cells::Dst16(c) => k.row(c)),
            (Some(k @ L16::Round), _) => each!(B, Cells::Dst16(c) => k.row(c)),
            (Some(k @ L16::E8m6), _) => each!(B, Cells::Dst16(c) => k.row(c)),
            (_, Some(k @ L32::Truncate)) => each!(B, Cells::Dst32([h, l]) => k.row(h, l)),
            (_, Some(k @ L32::Narrow)) => each!(B, Cells::Dst32([h, l]) => k.row(h, l)),
            (_, Some(k @ L32::RoundToBf16)) => each!(B, Cells::Dst32([h, l]) => k.row(h, l)),
            (_, Some(k @ L32::RoundToE8m6)) => each!(B, Cells::Dst32([h, l]) => k.row(h, l)),
            _ => {}
        },
        BfpExp::A => match F16::of(form.early) {
            Some(k @ F16::Identity) => each!(A, Cells::Dst16(c) => k.row(c)),
            Some(k @ F16::Round) => each!(A, Cells::Dst16(c) => k.row(c)),
            Some(k @ F16::TruncateToE5m7) => each!(A, Cells::Dst16(c) => k.row(c)),
            Some(k @ F16::ToE5m6) => each!(A, Cells::Dst16(c) => k.row(c)),
            None => {}
        },
    }
    for (c, o) in cells.zip(outs) {
        let elems = bfp_elements(form.early, form.exp, c);
        take(form.exp, &elems, o);
    }
}

/// `$f::<$lanes, BITS, ..>(args)`, with `BITS` the BFP width `$width` is:
/// each width's loop its own, with the width a constant in it.
#[cfg(target_arch = "x86_64")]
macro_rules! by_width {
    ($width:expr, $f:ident::<$lanes:ident $(, $more:tt)*>($($arg:expr),* $(,)?)) => {
        match $width {
            BfpWidth::Bits8 => $f::<$lanes, 8 $(, $more)*>($($arg),*),
            BfpWidth::Bits4 => $f::<$lanes, 4 $(, $more)*>($($arg),*),
            BfpWidth::Bits2 => $f::<$lanes, 2 $(, $more)*>($($arg),*),
        }
    };
}

/// [`BfpRows::tile_bytes`] compiled for AVX-512 (and BMI2, for the
/// assembler's BFP2 datums): the groups four at a time,
/// two to a register ([`groups_in_quads_avx512`]). An early conversion
/// with a lane form for the exponent form (BF16-shaped for "b", FP16 for
/// "a") brings its rows there two at a time: as the stored cells, whose
/// elements the assembler makes as it reads them (`quad_lanes`), or
/// through a vector rounding ([`fp32_round_avx512`],
/// [`fp16_to_e5m6_avx512`]). `Dst16b` rows that lie one after another are
/// read as one slice and `Dst32b` ones as whole blocks of storage rows; any
/// other early conversion has every row's elements worked out first. The
/// forms and width are chosen once for the whole loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vl,bmi2")]
fn tile_bytes_avx512(
    form: BfpRows,
    sh: &Shared,
    dst: &Dst,
    rows: &[u32],
    exps: &mut [u8],
    data: &mut [u8],
) {
    use quad_lanes::{BF16_CELLS, BF16_CELLS_NARROWED, BF16_CELLS_ROUNDED, BF16_CELLS_TO_E8M6};
    use quad_lanes::{FP16_CELLS, FP16_CELLS_NARROWED};
    use std::arch::x86_64::__m512i;
    use BfpExp::{A, B};
    use {Dst16Lanes as L16, Dst32Lanes as L32, Fp16Lanes as F16};
    let (arch, addressing) = (sh.arch, sh.dst_addressing);
    // `Dst16b` rows, read in place: as one slice when they lie one after
    // another ([`consecutive_rows16`]), else row by row; `$lanes` makes a
    // register of cells what `$held` says.
    macro_rules! rows16 {
        ($held:ident, $lanes:expr) => {{
            let lanes = $lanes;
            if let Some(cells) = consecutive_rows16(dst, (arch, addressing), rows) {
                return by_width!(
                    form.width,
                    slice16_in_quads_avx512::<$held>(cells, exps, data, lanes)
                );
            }
            let r16 = |row: &u32| dst_row16(dst, arch, addressing, *row);
            let pair = |a, b| lanes(two_rows_avx512(a, b));
            return by_width!(
                form.width,
                groups_in_quads_avx512::<$held, _, _>(rows, exps, data, r16, pair)
            );
        }};
    }
    // `Dst32b` rows, read in place: whole blocks of storage when they lie
    // one after another ([`consecutive_rows32`]), else row by row; `$lanes`
    // makes a register of high halves and one of low halves what `$held`
    // says.
    macro_rules! rows32 {
        ($held:ident, $lanes:expr) => {{
            let lanes = $lanes;
            if let Some(blocks) = consecutive_rows32(dst, (arch, addressing), rows) {
                return by_width!(
                    form.width,
                    blocks32_in_quads_avx512::<$held>(blocks, exps, data, lanes)
                );
            }
            let r32 = |row: &u32| dst_row32(dst, arch, addressing, *row);
            let pair = |a: [&[u16; 16]; 2], b: [&[u16; 16]; 2]| {
                lanes(two_rows_avx512(a[0], b[0]), two_rows_avx512(a[1], b[1]))
            };
            return by_width!(
                form.width,
                groups_in_quads_avx512::<$held, _, _>(rows, exps, data, r32, pair)
            );
        }};
    }
    // Each arm names its own lane form too, a constant in its loop. Where
    // the assembler makes the elements from the cells as it reads them
    // (`quad_lanes`), the cells go to it as they are, the low halves of
    // FP32 values unread.
    let cells = |x: __m512i| x;
    let high = |h: __m512i, _: __m512i| h;
    match form.exp {
        B => match (L16::of(form.early), L32::of(form.early)) {
            (Some(L16::Identity), _) => rows16!(BF16_CELLS, cells),
            (Some(L16::Round), _) => rows16!(BF16_CELLS_ROUNDED, cells),
            (Some(L16::E8m6), _) => rows16!(BF16_CELLS_TO_E8M6, cells),
            (_, Some(L32::Truncate)) => rows32!(BF16_CELLS, high),
            (_, Some(L32::Narrow)) => rows32!(BF16_CELLS_NARROWED, high),
            (_, Some(L32::RoundToBf16)) => {
                rows32!(B_ELEMENTS, |h, l| fp32_round_avx512::<false>(h, l))
            }
            (_, Some(L32::RoundToE8m6)) => {
                rows32!(B_ELEMENTS, |h, l| fp32_round_avx512::<true>(h, l))
            }
            _ => {}
        },
        A => match F16::of(form.early) {
            Some(F16::Identity | F16::Round) => rows16!(FP16_CELLS_NARROWED, cells),
            Some(F16::TruncateToE5m7) => rows16!(FP16_CELLS, cells),
            Some(F16::ToE5m6) => rows16!(A_ELEMENTS, |x| fp16_to_e5m6_avx512(x)),
            None => {}
        },
    }
    let cells = rows.iter().map(|row| form.row_cells(sh, dst, *row));
    elements_then_quads_avx512(form, cells, exps, data);
}

/// [`tile_bytes_avx512`] for a form without a lane form in pairs: every
/// row's elements first, then their groups four at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vl,bmi2")]
fn elements_then_quads_avx512<'c>(
    form: BfpRows,
    cells: impl Iterator<Item = Cells<'c>>,
    exps: &mut [u8],
    data: &mut [u8],
) {
    let mut all = [[0u16; 16]; TILE_ROWS];
    let mut len = 0;
    each_row_elements(form, cells, &mut all, |_, elems, slot| {
        *slot = *elems;
        len += 1;
    });
    let elems = &all[..len];
    let two = |a, b| two_rows_avx512(a, b);
    // Each arm passes its own form, and `by_width!` the width, constants
    // in the loop.
    let w = form.width;
    match form.exp {
        BfpExp::B => by_width!(
            w,
            groups_in_quads_avx512::<B_ELEMENTS, _, _>(elems, exps, data, |e| e, two)
        ),
        BfpExp::A => by_width!(
            w,
            groups_in_quads_avx512::<A_ELEMENTS, _, _>(elems, exps, data, |e| e, two)
        ),
    }
}

/// [`BfpRows::tile_bytes`] compiled for AVX2, where there is no AVX-512:
/// groups two at a time ([`assemble_pairs_avx2`]). Rows that lie one after
/// another, in a lane form that a few register operations make from the
/// cells ([`rows_avx2`](super::lanes::rows_avx2): the BF16 identity,
/// rounding and E8M6 rounding, FP32 truncated or narrowed, the FP16
/// identity and rounding), are read in place and made elements as the
/// assembler takes them; any other rows have every row's elements worked
/// out first ([`each_row_elements`], each lane form in a loop of its own).
/// Reading the same slices through the row-by-row lane loops measured
/// twice as slow: the compiler vectorised those loops across rows.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn tile_bytes_avx2(
    form: BfpRows,
    sh: &Shared,
    dst: &Dst,
    rows: &[u32],
    exps: &mut [u8],
    data: &mut [u8],
) {
    use super::lanes::rows_avx2::{
        bf16_avx2, bf16_e8m6_avx2, bf16_narrow_avx2, bf16_round_avx2, fp16_a_avx2,
    };
    use {Dst16Lanes as L16, Dst32Lanes as L32, Fp16Lanes as F16};
    let place = (sh.arch, sh.dst_addressing);
    let w = form.width;
    // Rows that lie one after another: one slice ([`consecutive_rows16`],
    // [`consecutive_rows32`]), made elements in the assembler's registers.
    macro_rules! rows16 {
        ($held:ident, $elements:expr) => {
            if let Some(cells) = consecutive_rows16(dst, place, rows) {
                let elements = $elements;
                return by_width!(
                    w,
                    slice16_in_pairs_avx2::<$held>(cells, exps, data, elements)
                );
            }
        };
    }
    macro_rules! rows32 {
        ($held:ident, $elements:expr) => {
            if let Some(blocks) = consecutive_rows32(dst, place, rows) {
                let elements = $elements;
                return by_width!(
                    w,
                    blocks32_in_pairs_avx2::<$held>(blocks, exps, data, elements)
                );
            }
        };
    }
    match form.exp {
        BfpExp::B => match (L16::of(form.early), L32::of(form.early)) {
            (Some(L16::Identity), _) => rows16!(B_ELEMENTS, |x| bf16_avx2(x)),
            (Some(L16::Round), _) => rows16!(B_ELEMENTS, |x| bf16_round_avx2(x)),
            (Some(L16::E8m6), _) => rows16!(B_ELEMENTS, |x| bf16_e8m6_avx2(x)),
            (_, Some(L32::Truncate)) => rows32!(B_ELEMENTS, |h| bf16_avx2(h)),
            (_, Some(L32::Narrow)) => rows32!(B_ELEMENTS, |h| bf16_narrow_avx2(h)),
            _ => {}
        },
        BfpExp::A => match F16::of(form.early) {
            Some(F16::Identity) => rows16!(A_ELEMENTS, |x| fp16_a_avx2::<false>(x)),
            Some(F16::Round) => rows16!(A_ELEMENTS, |x| fp16_a_avx2::<true>(x)),
            _ => {}
        },
    }
    let cells = rows.iter().map(|row| form.row_cells(sh, dst, *row));
    let mut all = [[0u16; 16]; TILE_ROWS];
    let mut len = 0;
    each_row_elements(form, cells, &mut all, |_, elems, slot| {
        *slot = *elems;
        len += 1;
    });
    let elems = &all[..len];
    // Each arm passes its own form, and `by_width!` the width, constants
    // in the loop.
    let same = |x| x;
    match form.exp {
        BfpExp::B => by_width!(
            w,
            slice16_in_pairs_avx2::<B_ELEMENTS>(elems, exps, data, same)
        ),
        BfpExp::A => by_width!(
            w,
            slice16_in_pairs_avx2::<A_ELEMENTS>(elems, exps, data, same)
        ),
    }
}

/// The groups of rows held one after another, `cells` (`Dst16b` rows in
/// place, or elements worked out already), into `exps` and `data`, as
/// [`assemble_pairs_avx2`] takes them, two rows to a pair of loads, made
/// elements by `elements` in the registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn slice16_in_pairs_avx2<const LANES: u8, const BITS: u32>(
    cells: &[[u16; 16]],
    exps: &mut [u8],
    data: &mut [u8],
    elements: impl Fn(std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i,
) {
    let Some(last) = cells.last() else {
        return;
    };
    let count = cells.len().min(exps.len());
    let exps = &mut exps[..count];
    let (pairs, _) = cells.as_chunks::<2>();
    // A last pair of one group is filled out with that group.
    let pair = |p: usize| {
        let [a, b] = pairs.get(p).map_or([last, last], |[a, b]| [a, b]);
        halves_avx2(a, b).map(&elements)
    };
    assemble_pairs_avx2::<LANES, BITS>(exps, data, pair);
}

/// The groups of `Dst32b` rows that lie together, stored as whole blocks
/// of eight high-half rows then their eight low-half rows (`blocks`), into
/// `exps` and `data`, as [`assemble_pairs_avx2`] takes them, made elements
/// by `elements` from the high halves alone.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn blocks32_in_pairs_avx2<const LANES: u8, const BITS: u32>(
    blocks: &[[[u16; 16]; 16]],
    exps: &mut [u8],
    data: &mut [u8],
    elements: impl Fn(std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i,
) {
    let count = (8 * blocks.len()).min(exps.len());
    let exps = &mut exps[..count];
    // Rows 2p and 2p + 1 lie in one block: a block holds eight.
    let pair = |p: usize| {
        let (b, i) = (p / 4, 2 * (p % 4));
        let block = &blocks[b];
        halves_avx2(&block[i], &block[i + 1]).map(&elements)
    };
    assemble_pairs_avx2::<LANES, BITS>(exps, data, pair);
}

/// The groups of `Dst16b` rows that lie together, `cells`, into `exps` and
/// `data`, as [`groups_in_quads_avx512`] takes them, two rows to a load,
/// made what `LANES` says by `lanes` (the cells themselves, or
/// [`fp16_to_e5m6_avx512`]'s elements).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vl,bmi2")]
#[inline]
fn slice16_in_quads_avx512<const LANES: u8, const BITS: u32>(
    cells: &[[u16; 16]],
    exps: &mut [u8],
    data: &mut [u8],
    lanes: impl Fn(std::arch::x86_64::__m512i) -> std::arch::x86_64::__m512i,
) {
    let Some(last) = cells.last() else {
        return;
    };
    let count = cells.len().min(exps.len());
    let (pairs, _) = cells.as_chunks::<2>();
    assemble_quads_avx512::<LANES, BITS>(&mut exps[..count], data, |q| {
        // Past the pairs, only the last row: the one left over from an odd
        // count, and what fills out a last quad of fewer rows.
        let two = |p: usize| match pairs.get(p) {
            Some(pair) => adjacent_rows_avx512(pair),
            None => two_rows_avx512(last, last),
        };
        halves_avx512(lanes(two(2 * q)), lanes(two(2 * q + 1)))
    });
}

/// The groups of `Dst32b` rows stored as `blocks` ([`consecutive_rows32`])
/// into `exps` and `data`, as [`groups_in_quads_avx512`] takes them: a quad
/// is four rows, half a block's high halves and the same rows' low halves,
/// two rows to a load, made what `LANES` says by `lanes` (from the high
/// halves, then the low: the high halves themselves, or
/// [`fp32_round_avx512`]'s elements). Only "b" elements come from `Dst32b`
/// rows.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vl,bmi2")]
#[inline]
fn blocks32_in_quads_avx512<const LANES: u8, const BITS: u32>(
    blocks: &[[[u16; 16]; 16]],
    exps: &mut [u8],
    data: &mut [u8],
    lanes: impl Fn(std::arch::x86_64::__m512i, std::arch::x86_64::__m512i) -> std::arch::x86_64::__m512i,
) {
    let Some(last) = blocks.last() else {
        return;
    };
    let count = (8 * blocks.len()).min(exps.len());
    assemble_quads_avx512::<LANES, BITS>(&mut exps[..count], data, |q| {
        // A block's eight pairs of rows: 0 to 3 the high halves, 4 to 7 the
        // low; a quad takes two of each, from pair 0 or 2.
        let (pairs, _) = blocks.get(q / 2).unwrap_or(last).as_chunks::<2>();
        let half = 2 * (q % 2);
        let two = |p: usize| {
            lanes(
                adjacent_rows_avx512(&pairs[half + p]),
                adjacent_rows_avx512(&pairs[4 + half + p]),
            )
        };
        halves_avx512(two(0), two(1))
    });
}

/// The groups of `items` (`Dst` rows, or rows of elements) into `exps`
/// and `data`, four at a time ([`assemble_quads_avx512`]), read (`read`)
/// and made what `LANES` says (`pair`) two to a 512-bit register; a last
/// quad of fewer is filled out with the last item. `LANES` and the width
/// (`BITS`) are [`assemble_quads_avx512`]'s.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vl,bmi2")]
#[inline]
fn groups_in_quads_avx512<'a, const LANES: u8, const BITS: u32, T, R: Copy>(
    items: &'a [T],
    exps: &mut [u8],
    data: &mut [u8],
    read: impl Fn(&'a T) -> R,
    pair: impl Fn(R, R) -> std::arch::x86_64::__m512i,
) {
    let Some(last) = items.last() else {
        return;
    };
    let count = items.len().min(exps.len());
    assemble_quads_avx512::<LANES, BITS>(&mut exps[..count], data, |q| {
        let at = |i: usize| read(items.get(4 * q + i).unwrap_or(last));
        halves_avx512(pair(at(0), at(1)), pair(at(2), at(3)))
    });
}

/// [`BfpRows::groups`] with the portable assembler.
#[inline(always)]
fn groups_portable<'c>(
    form: BfpRows,
    cells: impl Iterator<Item = Cells<'c>>,
    out: &mut [BfpGroup],
) {
    for (c, g) in cells.zip(out) {
        let elems = bfp_elements(form.early, form.exp, c);
        assemble_portable(form.exp, form.width, &elems, g);
    }
}

/// A row of 16 cells as the packer reads them from `Dst`.
#[derive(Clone, Copy)]
enum Cells<'a> {
    /// Read already: `Dst32b` values or zero-extended `Dst16b` values.
    Read(&'a [u32; 16]),
    /// `Dst16b` cells in place.
    Dst16(&'a [u16; 16]),
    /// The halves of `Dst32b` values in place ([`dst32_join`]).
    Dst32([&'a [u16; 16]; 2]),
}

/// A row's BFP elements: early conversion, then BFP element conversion,
/// in 16-bit lanes ([`super::lanes`]) where the two have a form there.
/// The form is looked up here row by row (keeping it in [`BfpRows`]
/// measured 11% more instructions per BFP8 tile, the lane loops no longer
/// vectorised as well); the AVX2 group loop ([`groups_avx2`]) instead runs
/// each lane form in a loop of its own, and comes here for the rest.
#[inline(always)]
fn bfp_elements(early: EarlyConversion, exp: BfpExp, cells: Cells<'_>) -> [u16; 16] {
    if exp == BfpExp::B {
        let lanes = match cells {
            Cells::Dst16(c) => Dst16Lanes::of(early).map(|k| k.row(c)),
            Cells::Dst32([hi, lo]) => Dst32Lanes::of(early).map(|k| k.row(hi, lo)),
            Cells::Read(_) => None,
        };
        if let Some(elems) = lanes {
            return elems;
        }
    }
    // Widened here rather than stored by the caller: a row read back as
    // one vector right after 16 narrower stores stalls on forwarding.
    let cells: [u32; 16] = match cells {
        Cells::Read(c) => *c,
        Cells::Dst16(c) => std::array::from_fn(|i| u32::from(c[i])),
        Cells::Dst32([hi, lo]) => std::array::from_fn(|i| dst32_join(hi[i], lo[i])),
    };
    let mut elems = [0u16; 16];
    debug_assert!(early.feeds_bfp());
    early.bfp_elements(exp, &cells, &mut elems);
    elems
}

/// Whole `Dst` rows through a fixed-format kernel, written straight into L1
/// when the data stream `data` allows it ([`OutStream::fill_direct`]);
/// returns whether they were.
pub(super) fn whole_rows_to_l1(
    kernel: Kernel,
    sh: &Shared,
    data: &mut OutStream,
    l1: &mut L1,
    tag: u64,
    dst: &Dst,
    rows: &[u32],
) -> bool {
    let Some(row_bytes) = kernel.row_bytes() else {
        return false;
    };
    data.fill_direct(l1, rows.len() * row_bytes, tag, |out| {
        convert_rows(kernel, sh, dst, rows, out);
    })
}

/// The fixed-format `kernel` on whole `Dst` rows into `out` (32 or 64
/// bytes a row), compiled for AVX2 where the CPU has it.
#[inline]
fn convert_rows(kernel: Kernel, sh: &Shared, dst: &Dst, rows: &[u32], out: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if crate::has_avx512_bw_vl() {
        // SAFETY: the CPU has AVX-512BW and AVX-512VL, checked just above;
        // the callee is the same safe code compiled with them.
        return unsafe { convert_rows_avx512(kernel, sh, dst, rows, out) };
    }
    avx2_or!(
        convert_rows_avx2(kernel, sh, dst, rows, out),
        convert_rows_portable(kernel, sh, dst, rows, out)
    )
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn convert_rows_avx2(kernel: Kernel, sh: &Shared, dst: &Dst, rows: &[u32], out: &mut [u8]) {
    convert_rows_portable(kernel, sh, dst, rows, out);
}

/// [`convert_rows`] compiled for AVX-512BW/VL: the same row kernels, with
/// its masked blends and three-input logic; BF16 rows that lie one after
/// another in `Dst` ([`consecutive_rows16`]) two at a time in one register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx512vl")]
fn convert_rows_avx512(kernel: Kernel, sh: &Shared, dst: &Dst, rows: &[u32], out: &mut [u8]) {
    use std::arch::x86_64::_mm512_storeu_si512;
    let consecutive = match kernel {
        Kernel::Bf16RoundToBf16 => consecutive_rows16(dst, (sh.arch, sh.dst_addressing), rows),
        _ => None,
    };
    let Some(cells) = consecutive else {
        return convert_rows_portable(kernel, sh, dst, rows, out);
    };
    let (pairs, odd) = cells.as_chunks::<2>();
    let (outs, _) = out.as_chunks_mut::<64>();
    for (two, out) in pairs.iter().zip(outs) {
        let bf16 = bf16_round_avx512(adjacent_rows_avx512(two));
        // SAFETY: `out` is 64 bytes, the width of the store.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), bf16) };
    }
    let at = 64 * pairs.len();
    if let ([cells], Some(out)) = (odd, out.get_mut(at..at + 32)) {
        put_u16(out, &Dst16Lanes::Round.row(cells));
    }
}

#[inline(always)]
fn convert_rows_portable(kernel: Kernel, sh: &Shared, dst: &Dst, rows: &[u32], out: &mut [u8]) {
    if sh.dst_addressing.is_plain(sh.arch) {
        let plain = DstAddressing::default();
        convert_mapped_rows(kernel, (Arch::WormholeB0, plain), dst, rows, out);
    } else {
        convert_mapped_rows(kernel, (sh.arch, sh.dst_addressing), dst, rows, out);
    }
}

/// [`convert_rows_portable`] with `Dst` rows mapped as `arch` maps them
/// under `a` (constants where the mapping is the plain one).
#[inline(always)]
fn convert_mapped_rows(
    kernel: Kernel,
    (arch, a): (Arch, DstAddressing),
    dst: &Dst,
    rows: &[u32],
    out: &mut [u8],
) {
    match kernel {
        Kernel::Bf16RoundToBf16 => {
            for (row, out) in rows.iter().zip(out.chunks_exact_mut(32)) {
                let cells = dst_row16(dst, arch, a, *row);
                put_u16(out, &Dst16Lanes::Round.row(cells));
            }
        }
        Kernel::Fp32RoundToBf16 => {
            for (row, out) in rows.iter().zip(out.chunks_exact_mut(32)) {
                let [hi, lo] = dst_row32(dst, arch, a, *row);
                put_u16(out, &Dst32Lanes::RoundToBf16.row(hi, lo));
            }
        }
        Kernel::Fp32ToFp32 => {
            for (row, out) in rows.iter().zip(out.chunks_exact_mut(64)) {
                let [hi, lo] = dst_row32(dst, arch, a, *row);
                let mut v = [0u32; 16];
                for ((v, h), l) in v.iter_mut().zip(hi).zip(lo) {
                    *v = decode_fp32(dst32_join(*h, *l));
                }
                put_u32(out, &v);
            }
        }
        Kernel::Generic | Kernel::Bfp => {}
    }
}

/// The storage rows of `Dst16b` rows `rows` when they are consecutive, all
/// valid, and mapped as they are (`Adj16` the identity under `a`): one
/// slice, read with no row-by-row mapping and test. The usual case: a
/// `PACR` run through a tile's faces reads `Dst` in order.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn consecutive_rows16<'d>(
    dst: &'d Dst,
    (arch, a): (Arch, DstAddressing),
    rows: &[u32],
) -> Option<&'d [[u16; 16]]> {
    let first = rows.first()? & 0x3FF;
    // Every row compared, with no early exit, so that the test vectorises.
    let consecutive = rows
        .iter()
        .zip(first..)
        .fold(a.is_plain(arch), |all, (row, want)| {
            all & (row & 0x3FF == want)
        });
    consecutive.then_some(())?;
    dst.valid_rows(first as usize, rows.len())
}

/// The storage of `Dst32b` rows `rows` when they are consecutive from a
/// multiple of eight, whole blocks of eight, valid, and mapped as they are
/// (`Adj32` of row `r` below 512 is then `2 * (r & !7) + (r & 7)`): blocks
/// of eight high-half rows then their eight low-half rows
/// ([`Dst::valid_blocks32`]), read with no row-by-row mapping and test.
/// The usual case for a `PACR` run through a tile of FP32 `Dst`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn consecutive_rows32<'d>(
    dst: &'d Dst,
    (arch, a): (Arch, DstAddressing),
    rows: &[u32],
) -> Option<&'d [[[u16; 16]; 16]]> {
    let first = rows.first()? & 0x1FF;
    let whole = a.is_plain(arch) & first.is_multiple_of(8) & rows.len().is_multiple_of(8);
    // Every row compared, with no early exit, so that the test vectorises;
    // a run past row 511 wraps, which the comparison refuses.
    let consecutive = rows
        .iter()
        .zip(first..)
        .fold(whole, |all, (row, want)| all & (row & 0x1FF == want));
    consecutive.then_some(())?;
    dst.valid_blocks32(2 * first as usize, rows.len() / 8)
}

/// One row's datums through the early conversion, BFP element conversion and
/// the shared-exponent assembler: a whole group at once when the assembler
/// is empty and the row is 16 datums, datum by datum otherwise.
#[inline]
fn bfp_row(
    st: &Stages,
    sink: &mut Sink<'_>,
    cells: &[u32],
    exp: BfpExp,
    width: BfpWidth,
) -> Result<()> {
    match <&[u32; 16]>::try_from(cells) {
        Ok(row) if sink.bfp.pending() == 0 => {
            let mut g = [BfpGroup::default()];
            let form = BfpRows {
                early: st.early,
                exp,
                width,
            };
            form.groups(std::iter::once(Cells::Read(row)), &mut g);
            emit_group(sink.streams, sink.l1, width, &g[0], sink.tag)?;
        }
        _ => {
            let mut vals = [Intermediate::Fp32(0); 16];
            st.early.apply_row(cells, &mut vals);
            for v in &vals[..cells.len()] {
                let e = bfp_element(*v, exp)?;
                if let Some(g) = sink.bfp.push(exp, width, e)? {
                    emit_group(sink.streams, sink.l1, width, &g, sink.tag)?;
                }
            }
        }
    }
    sink.emitted += cells.len() as u32;
    Ok(())
}
