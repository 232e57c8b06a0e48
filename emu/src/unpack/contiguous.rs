//! A faster route through the main loop for the common case: uncompressed
//! datums (2, 4, 8, 16 or 32 bits, starting on a byte) read from one
//! contiguous L1 range with no FIFO wrap, and written one after another with
//! no upsampling, column shift or transpose, a whole register row of 16 at a
//! time where the output is row-aligned.
//! It computes what the general loop in [`super::regular`] computes (the
//! definition) and declines every other case; `tests/unpack_fast_path.rs`
//! compares the two on random configurations.

use super::descriptor::Settings;
use super::input::InputPlan;
use super::output::{may_straddle_row_63, OutputPlan, Registers, Target};
use crate::arch::Arch;
use crate::fault::Result;
use crate::format::bfp::{
    bfp8_groups_to_dst16, bfp8_row_to_dst16, bfp8_to_src_arith, bfp_groups_to_src, GroupExps,
};
use crate::format::data_format::BfpExp;
use crate::format::dst::{encode16_rows, encode_bf16};
use crate::format::src_cell::SrcCell;
use crate::format::unpack::Conversion;
use crate::state::dst::{adj16, adj32, Dst, DstAddressing};
use std::iter::repeat_n;

/// An instruction that is the contiguous case, its datums not converted
/// yet: where they are, where they go and how they convert,
/// without the L1 bytes themselves, so that the job can wait while the
/// next instructions of a run of `UNPACR`s are planned and take their
/// datums in ([`Deferred::takes`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Deferred {
    /// The first datum's byte in L1.
    start: usize,
    /// The exponent section as `16 × byte address + first datum index`
    /// (datum `k`'s exponent is byte `(exps + k) / 16`), for BFP input.
    exps: Option<usize>,
    forced_exp: u8,
    all_zero: bool,
    conversion: Conversion,
    o: OutputPlan,
    n: u32,
    /// Bits per datum in L1.
    bits: u32,
}

impl Deferred {
    /// The job of an instruction with these plans whose settings allow the
    /// contiguous case ([`Prepared::contiguous`](super::prepared::Prepared):
    /// one uncompressed stream of whole rows in a size the kernels read, no
    /// FIFO wrap, one output position per datum), if it is that case with
    /// its counters and L1: its datums (and their exponents) lie inside L1,
    /// and its outputs go where the fast path puts them.
    #[inline(always)]
    pub(super) fn of(
        l1: &[u8],
        s: &Settings,
        all_zero: bool,
        conversion: Conversion,
        i: &InputPlan,
        o: &OutputPlan,
    ) -> Option<Deferred> {
        let n = i.input_datums;
        if !(i.datums >= 0 && i.datums % 8 == 0 && datums_in_l1(l1, i) && output_fits(o, n)) {
            return None;
        }
        let exps = if s.in_format.is_bfp() && !s.force_shared_exp {
            let e = i.exponents?;
            if !exponents_in_l1(l1, e, n) {
                return None;
            }
            Some(e as usize)
        } else {
            None
        };
        if !src_rows_fit(o, n) {
            return None;
        }
        Some(Deferred {
            start: (i.datums / 8) as usize,
            exps,
            forced_exp: s.forced_shared_exp,
            all_zero,
            conversion,
            o: *o,
            n,
            bits: i.datum_bits,
        })
    }

    /// Take in the datums of the next instruction of the same word and
    /// preparation (so of the same settings, conversion and
    /// `AllDatumsAreZero`), with plans `i` and `o`, where they continue this
    /// job's in L1 and in the output: the same bank and `SrcRow`, the first
    /// output address the one after this job's last (the rest of an output
    /// plan comes from the preparation: [`super::output::plan`]). Converting
    /// the two as one then writes what converting them one after the other
    /// writes: [`Job::run`] writes datum after datum in order, each where
    /// its output address alone puts it, and neither can fault (a job waits
    /// only if it may, [`Deferred::may_wait`], and the next has its
    /// conversion). `false`, changing nothing, otherwise.
    #[inline(always)]
    pub(super) fn takes(&mut self, l1: &[u8], i: &InputPlan, o: &OutputPlan) -> bool {
        let n = i.input_datums;
        // In bits: a job of 2- or 4-bit datums can end inside a byte.
        let end_bits = self.start as i64 * 8 + self.n as i64 * self.bits as i64;
        let o_continues = o.out_addr == self.o.out_addr.wrapping_add(self.n)
            && o.bank == self.o.bank
            && o.src_row == self.o.src_row;
        debug_assert!(
            !o_continues
                || *o
                    == OutputPlan {
                        out_addr: o.out_addr,
                        ..self.o
                    },
            "an output plan of the same preparation differs in more than its address, bank \
             and SrcRow"
        );
        // The exponents follow the datums (both start at the instruction's
        // first datum, from bases of the settings).
        let exps_inside =
            self.exps.is_none() || i.exponents.is_some_and(|f| exponents_in_l1(l1, f, n));
        let takes = i.datums == end_bits
            && o_continues
            && exps_inside
            && datums_in_l1(l1, i)
            && output_fits(o, n)
            && src_rows_fit(o, n);
        if takes {
            debug_assert_eq!(
                i.exponents,
                self.exps.map(|e| (e + self.n as usize) as i64),
                "the exponents continue with the datums"
            );
            // Both are inside L1 and below `u32::MAX` in the output, and the
            // second starts where the first ends.
            self.n += n;
        }
        takes
    }

    /// Convert the datums and write them, reading them from `l1` (the L1
    /// the job was made from, unchanged since: no `UNPACR` writes L1).
    pub(super) fn run(&self, r: &mut Registers<'_>, l1: &[u8]) -> Result<()> {
        dispatch(&Job { l1, d: self }, r)
    }

    /// Whether converting its datums later, after other instructions'
    /// plans and counter steps, changes nothing: its conversion cannot
    /// fault ([`Conversion::can_fault`]), so it writes every datum whenever
    /// it runs.
    pub(super) fn may_wait(&self) -> bool {
        self.all_zero || !self.conversion.can_fault()
    }
}

/// Whether the `input_datums` datums of `i` (a count, not the
/// `DecompressNumDatums` marker) lie inside L1.
#[inline(always)]
fn datums_in_l1(l1: &[u8], i: &InputPlan) -> bool {
    let n = i.input_datums;
    n != 0
        && n != u32::MAX
        && (i.datums + n as i64 * i.datum_bits as i64 + 7) / 8 <= l1.len() as i64
}

/// Whether the exponents of `n` datums from exponent address `e`
/// (sixteenths of a byte) lie inside L1.
#[inline(always)]
fn exponents_in_l1(l1: &[u8], e: i64, n: u32) -> bool {
    e >= 0 && (e + n as i64 - 1) / 16 < l1.len() as i64
}

/// Whether `n` output addresses from `o`'s stay below `u32::MAX`.
#[inline(always)]
fn output_fits(o: &OutputPlan, n: u32) -> bool {
    (o.out_addr as u64 + n as u64) < u32::MAX as u64
}

/// Whether `n` datums from `o`'s output address go where the fast path
/// puts them: anywhere but `SrcA`; in `SrcA`, only with `SetOvrdWithAddr`,
/// from row 4 on, and in no burst that straddles row 63.
#[inline(always)]
fn src_rows_fit(o: &OutputPlan, n: u32) -> bool {
    if o.target != Target::SrcA {
        return true;
    }
    let first = o.out_addr / 16;
    let last = (o.out_addr + n - 1) / 16;
    o.ovrd_with_addr
        && first >= 4
        && !may_straddle_row_63(first - 4 + o.src_row, last - 4 + o.src_row)
}

/// Run `job` with the row kernel its datum size and conversion call for,
/// chosen once per job so that each row loop is compiled for one
/// conversion, which the compiler can then vectorise.
fn dispatch(job: &Job<'_>, r: &mut Registers<'_>) -> Result<()> {
    use Conversion as C;
    match (job.d.bits, job.d.conversion) {
        (bits, _) if job.d.all_zero => match bits {
            2 => job.run::<2, ZERO>(r),
            4 => job.run::<4, ZERO>(r),
            8 => job.run::<8, ZERO>(r),
            16 => job.run::<16, ZERO>(r),
            _ => job.run::<32, ZERO>(r),
        },
        (16, C::Bf16 { to_dst: false }) => job.run::<16, BF16_SRC>(r),
        (16, C::Bf16 { to_dst: true }) => job.run::<16, BF16_DST>(r),
        (16, C::Fp16 { to_dst: false }) => job.run::<16, FP16_SRC>(r),
        (16, C::Fp16 { to_dst: true }) => job.run::<16, FP16_DST>(r),
        (32, C::Dst32) => job.run::<32, FP32_DST>(r),
        (32, C::Fp32ToTf32Src) => job.run::<32, TF32_SRC>(r),
        (
            bits,
            C::Bfp {
                exp: BfpExp::B,
                width,
                to_dst,
            },
        ) if bits == width.datum_bits() => match (bits, to_dst) {
            (8, false) => job.run::<8, BFP_B_SRC>(r),
            (8, true) => job.run::<8, BFP_B_DST>(r),
            (4, false) => job.run::<4, BFP_B_SRC>(r),
            (4, true) => job.run::<4, BFP_B_DST>(r),
            (_, false) => job.run::<2, BFP_B_SRC>(r),
            (_, true) => job.run::<2, BFP_B_DST>(r),
        },
        (2, _) => job.run::<2, APPLY>(r),
        (4, _) => job.run::<4, APPLY>(r),
        (8, _) => job.run::<8, APPLY>(r),
        (16, _) => job.run::<16, APPLY>(r),
        _ => job.run::<32, APPLY>(r),
    }
}

// The row kernels.
/// `AllDatumsAreZero`.
const ZERO: u8 = 0;
/// BF16 into `SrcA`/`SrcB` (`WriteSrcBF16`).
const BF16_SRC: u8 = 1;
/// BF16 into `Dst16b` (`WriteDstBF16`).
const BF16_DST: u8 = 2;
/// FP16 into `SrcA`/`SrcB` (`WriteSrcFP16`).
const FP16_SRC: u8 = 3;
/// FP16 into `Dst16b` (`WriteDstFP16`).
const FP16_DST: u8 = 4;
/// FP32 (or TF32, INT32) into `Dst32b`.
const FP32_DST: u8 = 5;
/// FP32 truncated to TF32 in `SrcA`/`SrcB`.
const TF32_SRC: u8 = 6;
/// BFP "b" expanded to BF16 in `SrcA`/`SrcB`.
const BFP_B_SRC: u8 = 7;
/// BFP "b" expanded to BF16 in `Dst16b`.
const BFP_B_DST: u8 = 8;
/// Any other conversion, datum by datum through [`Conversion::apply`].
const APPLY: u8 = 9;

/// A [`Deferred`] job with the L1 it reads: `n` datums from byte `start`.
struct Job<'a> {
    l1: &'a [u8],
    d: &'a Deferred,
}

/// [`Job::convert_rows_portable`] compiled for each named set of target
/// features, one method each, for [`Job::convert_rows`] to call where the
/// CPU has them.
macro_rules! compiled_for {
    ($($name:ident = $features:literal),* $(,)?) => {$(
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        fn $name<const BITS: usize, const K: u8, R: RowSink>(
            &self,
            k: usize,
            rows: usize,
            out: &mut R,
        ) -> usize {
            self.convert_rows_portable::<BITS, K, R>(k, rows, out)
        }
    )*};
}

impl Job<'_> {
    /// Datums one at a time up to the first register row boundary, then a
    /// whole row (16 datums) at a time through row kernel `K` while rows
    /// start on a byte of L1, then the rest one at a time.
    #[inline(always)]
    fn run<const BITS: usize, const K: u8>(&self, r: &mut Registers<'_>) -> Result<()> {
        let n = self.d.n as usize;
        let mut k = 0;
        while k < n && !(self.d.o.out_addr as usize + k).is_multiple_of(16) {
            self.one::<BITS>(r, k)?;
            k += 1;
        }
        // A row of 2- or 4-bit datums must start on a byte; otherwise every
        // datum goes alone.
        while k + 16 <= n && (k * BITS).is_multiple_of(8) {
            let addr = self.d.o.out_addr + k as u32;
            let rows = (n - k) / 16;
            // Into `SrcA`/`SrcB` in place, up to the bank's last row; into
            // `Dst` a row at a time.
            let (want, done) = match src_rows(r, &self.d.o, addr, rows) {
                Some(bank_rows) => {
                    let want = bank_rows.len();
                    (
                        want,
                        self.convert_rows::<BITS, K, _>(k, want, &mut InPlace(bank_rows)),
                    )
                }
                None if dst_row_kernel(K, self.d.o.target) => {
                    self.convert_dst_rows::<BITS, K>(k, rows, r.dst);
                    (rows, rows)
                }
                None => (
                    rows,
                    self.convert_rows::<BITS, K, _>(
                        k,
                        rows,
                        &mut DstRows::new(r.dst, &self.d.o, addr),
                    ),
                ),
            };
            k += 16 * done;
            if done < want {
                // A datum of this row faults: the datums before it are
                // written first, as the general loop writes them.
                for j in 0..16 {
                    self.one::<BITS>(r, k + j)?;
                }
                k += 16;
            }
        }
        while k < n {
            self.one::<BITS>(r, k)?;
            k += 1;
        }
        Ok(())
    }

    /// Convert `rows` rows from datum `k` (which starts on a byte) with row
    /// kernel `K` into `out`; returns how many rows came before the first
    /// with a faulting datum. Kept out of line: a small function is one the
    /// compiler vectorises; compiled for AVX2 where the CPU has it.
    #[inline(never)]
    fn convert_rows<const BITS: usize, const K: u8, R: RowSink>(
        &self,
        k: usize,
        rows: usize,
        out: &mut R,
    ) -> usize {
        // BFP "b" groups into `SrcA`/`SrcB` cells take a whole group to an
        // AVX-512 register (`bfp_groups_to_src`), with the rows' loop compiled
        // for it too, so that the group kernel and the row stores inline.
        // BFP4's with VBMI too, for its one-shuffle datum spread.
        #[cfg(target_arch = "x86_64")]
        if K == BFP_B_SRC && BITS == 4 && crate::has_avx512_vbmi() {
            // SAFETY: the CPU has AVX-512F and VBMI, checked just above; the
            // callee is the same safe code compiled with them enabled.
            return unsafe { self.convert_rows_avx512_vbmi::<BITS, K, R>(k, rows, out) };
        }
        #[cfg(target_arch = "x86_64")]
        if K == BFP_B_SRC && std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above; the callee is
            // the same safe code compiled with AVX-512F enabled.
            return unsafe { self.convert_rows_avx512::<BITS, K, R>(k, rows, out) };
        }
        avx2_or!(
            self.convert_rows_avx2::<BITS, K, R>(k, rows, out),
            self.convert_rows_portable::<BITS, K, R>(k, rows, out)
        )
    }

    compiled_for! {
        convert_rows_avx2 = "avx2",
        convert_rows_avx512 = "avx512f",
        convert_rows_avx512_vbmi = "avx512f,avx512vbmi",
    }

    #[inline(always)]
    fn convert_rows_portable<const BITS: usize, const K: u8, R: RowSink>(
        &self,
        k: usize,
        rows: usize,
        out: &mut R,
    ) -> usize {
        let at = self.d.start + k * BITS / 8;
        let input = &self.l1[at..at + rows * 2 * BITS];
        if K == BFP_B_SRC {
            if let Some(done) = self.bfp_groups_to_src::<BITS, R>(k, input, out) {
                return done;
            }
        }
        for (j, bytes) in input.chunks_exact(2 * BITS).enumerate() {
            if !self.convert_row::<BITS, K>(bytes, k + 16 * j, out.row(j)) {
                return j;
            }
            out.commit(j);
        }
        rows
    }

    /// The shared exponents of the `rows` rows from datum `k` where each
    /// row is one group (every row starts a group, or the exponent is
    /// forced); `None` for rows that straddle groups.
    #[inline(always)]
    fn group_exponents(&self, k: usize, rows: usize) -> Option<GroupExps<'_>> {
        Some(match self.d.exps {
            None => GroupExps::Forced(self.d.forced_exp),
            // Inside L1: `Deferred::of` checked the exponents of every datum.
            Some(e) if (e + k).is_multiple_of(16) => {
                GroupExps::Section(self.l1.get((e + k) / 16..(e + k) / 16 + rows)?)
            }
            Some(_) => return None,
        })
    }

    /// BFP "b" rows from datum `k` that are each one group
    /// ([`Self::group_exponents`]), `input` their bytes, expanded into
    /// `SrcA`/`SrcB` cells a group at a time ([`bfp_groups_to_src`]);
    /// `None`, doing nothing, for rows that straddle groups.
    #[inline(always)]
    fn bfp_groups_to_src<const BITS: usize, R: RowSink>(
        &self,
        k: usize,
        input: &[u8],
        out: &mut R,
    ) -> Option<usize> {
        let rows = input.len() / (2 * BITS);
        let exps = self.group_exponents(k, rows)?;
        bfp_groups_to_src::<BITS>(input, exps, |j, cells| {
            *out.row(j) = cells;
            out.commit(j);
        });
        Some(rows)
    }

    /// The 16 datums of `BITS` bits in `bytes`, datum `k` first, converted
    /// by kernel `K` into `out`; `false` when one of them faults. BFP "b"
    /// rows straddling two groups are expanded at once, each datum with its
    /// own exponent ([`bfp8_row_to_src_by_datum`]), the others datum by
    /// datum ([`convert_datums`]).
    #[inline(always)]
    fn convert_row<const BITS: usize, const K: u8>(
        &self,
        bytes: &[u8],
        k: usize,
        out: &mut [u32; 16],
    ) -> bool {
        if K == BFP_B_SRC {
            *out = bfp8_row_to_src_by_datum::<BITS>(bytes, &self.row_exponents(k));
            return true;
        }
        // Exponents for the kernels that read them: the general one, and
        // BFP "b" into `Dst` where it comes here ([`dst_row_kernel`]).
        let exps = if matches!(K, BFP_B_DST | APPLY) {
            self.row_exponents(k)
        } else {
            [0; 16]
        };
        convert_datums::<BITS, K>(self.d.conversion, &raw_row::<BITS>(bytes), &exps, out)
    }

    /// [`Self::convert_rows`] for the kernels whose values are `Dst16b`
    /// halves ([`dst16_kernel`]) and for FP32 into `Dst32b`, whose values
    /// are two `Dst16b` halves (`Dst32b[r]` is stored as its high halves in
    /// storage row `Adj32(r)` and its low halves eight rows on: Dst.md,
    /// "Data type bit layout"): each row is read, converted and stored in
    /// 16-bit lanes, sixteen datums to a vector register, with no widening
    /// to 32 bits and back. These kernels cannot fault.
    #[inline(never)]
    fn convert_dst_rows<const BITS: usize, const K: u8>(
        &self,
        k: usize,
        rows: usize,
        dst: &mut Dst,
    ) {
        // BFP "b" groups into `Dst16b` go two to an AVX-512 register
        // (`bfp8_groups_to_dst16`), with the rows' loop compiled for it.
        #[cfg(target_arch = "x86_64")]
        if K == BFP_B_DST && crate::has_avx512_bw_vl() {
            // SAFETY: the CPU has AVX-512BW and AVX-512VL, checked just
            // above; the callee is the same safe code compiled with them.
            return unsafe { self.convert_dst_rows_avx512::<BITS, K>(k, rows, dst) };
        }
        avx2_or!(
            self.convert_dst_rows_avx2::<BITS, K>(k, rows, dst),
            self.convert_dst_rows_portable::<BITS, K>(k, rows, dst)
        )
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw,avx512vl")]
    fn convert_dst_rows_avx512<const BITS: usize, const K: u8>(
        &self,
        k: usize,
        rows: usize,
        dst: &mut Dst,
    ) {
        self.convert_dst_rows_portable::<BITS, K>(k, rows, dst)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn convert_dst_rows_avx2<const BITS: usize, const K: u8>(
        &self,
        k: usize,
        rows: usize,
        dst: &mut Dst,
    ) {
        self.convert_dst_rows_portable::<BITS, K>(k, rows, dst)
    }

    #[inline(always)]
    fn convert_dst_rows_portable<const BITS: usize, const K: u8>(
        &self,
        k: usize,
        rows: usize,
        dst: &mut Dst,
    ) {
        let o = &self.d.o;
        let (a, ovrd, wide) = (
            o.dst_addressing,
            o.ovrd_with_addr,
            o.target == Target::Dst32,
        );
        if !a.is_plain(o.arch) {
            self.store_dst_rows::<BITS, K>(k, rows, dst, |row| dst_row(o, row));
        } else if wide {
            let plain = DstAddressing::default();
            let map = |row| dst_row_of(Arch::WormholeB0, plain, ovrd, wide, row);
            self.store_dst_rows::<BITS, K>(k, rows, dst, map);
        } else {
            self.store_dst16_runs::<BITS, K>(k, rows, dst, ovrd);
        }
    }

    /// [`Self::store_dst_rows`] into `Dst16b` under the plain mapping
    /// ([`dst_row_of`]), where consecutive output rows go to consecutive
    /// storage rows up to the wrap of the row number ([`row_wrap`]): each
    /// such run is stored, marked written and made valid at once.
    #[inline(always)]
    fn store_dst16_runs<const BITS: usize, const K: u8>(
        &self,
        k: usize,
        rows: usize,
        dst: &mut Dst,
        ovrd_with_addr: bool,
    ) {
        let (plain, wrap) = (DstAddressing::default(), row_wrap(ovrd_with_addr));
        let first = (self.d.o.out_addr + k as u32) / 16;
        let at = self.d.start + k * BITS / 8;
        let input = &self.l1[at..at + rows * 2 * BITS];
        let mut j = 0;
        while j < rows {
            let s = dst_row_of(
                Arch::WormholeB0,
                plain,
                ovrd_with_addr,
                false,
                first + j as u32,
            );
            let run = (rows - j).min(wrap as usize - s);
            let bytes = &input[2 * BITS * j..2 * BITS * (j + run)];
            self.dst16_rows::<BITS, K>(bytes, k + 16 * j, dst.store_rows(s, run));
            j += run;
        }
    }

    /// The rows of [`Self::convert_dst_rows`], output row `r` going to
    /// storage row `map(r)`.
    #[inline(always)]
    fn store_dst_rows<const BITS: usize, const K: u8>(
        &self,
        k: usize,
        rows: usize,
        dst: &mut Dst,
        map: impl Fn(u32) -> usize,
    ) {
        let first = (self.d.o.out_addr + k as u32) / 16;
        let at = self.d.start + k * BITS / 8;
        let input = &self.l1[at..at + rows * 2 * BITS];
        for (j, bytes) in input.chunks_exact(2 * BITS).enumerate() {
            let s = map(first + j as u32);
            if K == FP32_DST {
                let [hi, lo] = fp32_halves(bytes);
                *dst.row_mut(s) = hi;
                *dst.row_mut(s + 8) = lo;
                dst.set_valid(s, true);
                continue;
            }
            self.dst16_rows::<BITS, K>(bytes, k + 16 * j, std::slice::from_mut(dst.row_mut(s)));
            dst.set_valid(s, true);
        }
    }

    /// The `Dst16b` values of the datums in `bytes`, datum `k` first,
    /// sixteen to a row of `out`, by one of the [`dst16_kernel`] kernels.
    #[inline(always)]
    fn dst16_rows<const BITS: usize, const K: u8>(
        &self,
        bytes: &[u8],
        k: usize,
        out: &mut [[u16; 16]],
    ) {
        match K {
            BF16_DST => encode16_rows::<false>(bytes, out),
            FP16_DST => encode16_rows::<true>(bytes, out),
            _ => {
                if let Some(()) = self.bfp_groups_to_dst16::<BITS>(bytes, k, out) {
                    return;
                }
                let rows = out.iter_mut().zip(bytes.chunks_exact(2 * BITS));
                for (j, (row, bytes)) in rows.enumerate() {
                    let exps = self.row_exponents(k + 16 * j);
                    *row = bfp8_row_to_dst16(&bfp8_datums::<BITS>(bytes), &exps);
                }
            }
        }
    }

    /// [`Self::bfp_groups_to_src`] into `Dst16b` rows `out`
    /// ([`bfp8_groups_to_dst16`]).
    #[inline(always)]
    fn bfp_groups_to_dst16<const BITS: usize>(
        &self,
        bytes: &[u8],
        k: usize,
        out: &mut [[u16; 16]],
    ) -> Option<()> {
        // Groups as arrays of a size known when compiling (`GROUP` bytes, 2 ×
        // `BITS`), so that their count is no division in the kernel.
        #[inline(always)]
        fn convert<const BITS: usize, const GROUP: usize>(
            bytes: &[u8],
            exps: impl Iterator<Item = u8>,
            out: &mut [[u16; 16]],
        ) {
            let groups = bytes.as_chunks::<GROUP>().0.iter();
            bfp8_groups_to_dst16(groups.map(|g| bfp8_datums::<BITS>(g)), exps, out);
        }
        #[inline(always)]
        fn sized<const BITS: usize>(
            bytes: &[u8],
            exps: impl Iterator<Item = u8>,
            out: &mut [[u16; 16]],
        ) {
            match BITS {
                8 => convert::<BITS, 16>(bytes, exps, out),
                4 => convert::<BITS, 8>(bytes, exps, out),
                _ => convert::<BITS, 4>(bytes, exps, out),
            }
        }
        let rows = out.len();
        match self.group_exponents(k, rows)? {
            GroupExps::Forced(e) => sized::<BITS>(bytes, repeat_n(e, rows), out),
            GroupExps::Section(s) => sized::<BITS>(bytes, s.iter().copied(), out),
        }
        Some(())
    }

    /// Datum `k`'s bits, least significant bits first in L1.
    #[inline(always)]
    fn datum<const BITS: usize>(&self, k: usize) -> u32 {
        let l1 = self.l1;
        let at = self.d.start + k * BITS / 8;
        match BITS {
            2 | 4 => ((l1[at] >> ((k * BITS) % 8)) & ((1 << BITS) - 1)) as u32,
            8 => l1[at] as u32,
            16 => u16::from_le_bytes([l1[at], l1[at + 1]]) as u32,
            _ => u32::from_le_bytes([l1[at], l1[at + 1], l1[at + 2], l1[at + 3]]),
        }
    }

    #[inline(always)]
    fn exponent(&self, k: usize) -> u8 {
        match self.d.exps {
            Some(e) => self.l1[(e + k) >> 4],
            None => self.d.forced_exp,
        }
    }

    /// The exponents of datums `k..k + 16`: one byte when they are one BFP
    /// group.
    #[inline(always)]
    fn row_exponents(&self, k: usize) -> [u8; 16] {
        match self.d.exps {
            Some(e) if !(e + k).is_multiple_of(16) => std::array::from_fn(|j| self.exponent(k + j)),
            _ => [self.exponent(k); 16],
        }
    }

    /// Datum `k` alone, converted and written.
    fn one<const BITS: usize>(&self, r: &mut Registers<'_>, k: usize) -> Result<()> {
        let value = if self.d.all_zero {
            0
        } else {
            self.d
                .conversion
                .apply(self.datum::<BITS>(k), self.exponent(k))?
                .bits()
        };
        store(r, &self.d.o, self.d.o.out_addr + k as u32, value);
        Ok(())
    }
}

/// The 16 datums of `BITS` bits in `bytes` (`2 × BITS` of them), least
/// significant bits first.
#[inline(always)]
fn raw_row<const BITS: usize>(bytes: &[u8]) -> [u32; 16] {
    let mut raw = [0u32; 16];
    match BITS {
        2 | 4 => {
            let per_byte = 8 / BITS;
            for (j, r) in raw.iter_mut().enumerate() {
                *r = ((bytes[j / per_byte] >> ((j % per_byte) * BITS)) & ((1 << BITS) - 1)) as u32;
            }
        }
        8 => {
            for (r, b) in raw.iter_mut().zip(&bytes[..16]) {
                *r = *b as u32;
            }
        }
        16 => {
            for (r, b) in raw.iter_mut().zip(bytes[..32].chunks_exact(2)) {
                *r = u16::from_le_bytes([b[0], b[1]]) as u32;
            }
        }
        _ => {
            for (r, b) in raw.iter_mut().zip(bytes[..64].chunks_exact(4)) {
                *r = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        }
    }
    raw
}

/// A row of 16 BFP "b" datums of `BITS` bits in `bytes` that straddles two
/// groups, each datum with its own exponent from `exps`, as `SrcA`/`SrcB`
/// cells ([`bfp8_to_src_arith`]).
#[inline(always)]
fn bfp8_row_to_src_by_datum<const BITS: usize>(bytes: &[u8], exps: &[u8; 16]) -> [u32; 16] {
    let datums = bfp8_datums::<BITS>(bytes);
    let mut cells = [0; 16];
    for ((c, d), e) in cells.iter_mut().zip(datums).zip(exps) {
        *c = bfp8_to_src_arith(d, *e);
    }
    cells
}

/// The 16 BFP datums of `BITS` bits in `bytes` (`2 × BITS` of them, least
/// significant bits first), each widened to the BFP8 datum the unpacker
/// expands ([`crate::format::bfp::bfp_datum_to_bfp8`]: its bits at the top
/// of the byte).
#[inline(always)]
fn bfp8_datums<const BITS: usize>(bytes: &[u8]) -> [u8; 16] {
    // One bounds check for the group, so that the datums load together.
    let bytes = &bytes[..2 * BITS];
    match BITS {
        8 => std::array::from_fn(|j| bytes[j]),
        4 => std::array::from_fn(|j| {
            let b = bytes[j / 2];
            if j % 2 == 0 {
                b << 4
            } else {
                b & 0xF0
            }
        }),
        _ => std::array::from_fn(|j| (bytes[j / 4] << (6 - 2 * (j % 4))) & 0xC0),
    }
}

/// 16 FP32 datums from `bytes` (64 of them, little-endian) as `Dst32b`
/// stores them (`WriteDstFP32`): the high halves in the `Dst16b` BF16
/// arrangement, the low halves as they are.
#[inline(always)]
fn fp32_halves(bytes: &[u8]) -> [[u16; 16]; 2] {
    let raw = raw_row::<32>(bytes);
    let (mut hi, mut lo) = ([0u16; 16], [0u16; 16]);
    for ((h, l), x) in hi.iter_mut().zip(&mut lo).zip(raw) {
        // `encode_fp32` in halves: only the high half is rearranged.
        *h = encode_bf16((x >> 16) as u16);
        *l = x as u16;
    }
    [hi, lo]
}

/// Whether row kernel `K` makes `Dst16b` values (16 bits each).
const fn dst16_kernel(k: u8) -> bool {
    matches!(k, BF16_DST | FP16_DST | BFP_B_DST)
}

/// Whether row kernel `K` has its own `Dst` row loop
/// ([`Job::convert_dst_rows`]) for output `target`: the [`dst16_kernel`]s
/// into `Dst16b`, FP32 into `Dst32b`. Anywhere else (a combination no
/// conversion chooses) it goes through [`convert_datums`].
const fn dst_row_kernel(k: u8, target: Target) -> bool {
    match target {
        Target::Dst16 => dst16_kernel(k),
        Target::Dst32 => k == FP32_DST,
        Target::SrcA | Target::SrcB => false,
    }
}

/// A row of 16 datums of `BITS` bits converted by kernel `K` as
/// [`Conversion::apply`] converts each; `false` when one of them faults.
/// A kernel with its own row form ([`Job::convert_row`]'s BFP "b" rows,
/// [`dst_row_kernel`]) that comes here goes through `Conversion::apply`,
/// as `APPLY` does.
#[inline(always)]
fn convert_datums<const BITS: usize, const K: u8>(
    c: Conversion,
    raw: &[u32; 16],
    exps: &[u8; 16],
    out: &mut [u32; 16],
) -> bool {
    for ((o, &x), &e) in out.iter_mut().zip(raw).zip(exps) {
        *o = match K {
            ZERO => 0,
            BF16_SRC => SrcCell::from_bf16(x as u16).canonical(),
            FP16_SRC => SrcCell::from_fp16(x as u16).canonical(),
            TF32_SRC => SrcCell::from_fp32_truncated(x).canonical(),
            _ => match c.apply(x, e) {
                Ok(v) => v.bits(),
                Err(_) => return false,
            },
        };
    }
    true
}

/// Datum address `addr` of the output: its register row and column.
#[inline(always)]
fn store(r: &mut Registers<'_>, o: &OutputPlan, addr: u32, value: u32) {
    let col = (addr & 15) as usize;
    if let Some([row]) = src_rows(r, o, addr, 1) {
        row[col] = value;
        return;
    }
    let at = dst_row(o, addr / 16);
    if o.target == Target::Dst32 {
        r.dst.write32_at(at, col, value);
    } else {
        r.dst.row_mut(at)[col] = value as u16;
    }
    r.dst.set_valid(at, true);
}

/// Up to `rows` whole `SrcA` or `SrcB` rows from the row of datum address
/// `addr` on, as far as the bank's last row (the next ones wrap to its
/// first); `None` for `Dst`. The fast path's one account of where a datum
/// lands in a `Src` register: `SetOvrdWithAddr` for `SrcA` (row 4 is the
/// first), and no burst that straddles row 63 (`Deferred::of` declines those).
#[inline(always)]
fn src_rows<'r>(
    r: &'r mut Registers<'_>,
    o: &OutputPlan,
    addr: u32,
    rows: usize,
) -> Option<&'r mut [[u32; 16]]> {
    let (bank, first) = match o.target {
        Target::SrcA => (
            r.srca.banks[o.bank].rows_mut(),
            (addr / 16).wrapping_sub(4).wrapping_add(o.src_row) & 0x3F,
        ),
        Target::SrcB => (
            r.srcb.banks[o.bank].rows_mut(),
            (addr / 16).wrapping_add(o.src_row) & 0x3F,
        ),
        Target::Dst16 | Target::Dst32 => return None,
    };
    let rest = &mut bank[first as usize..];
    let rows = rows.min(rest.len());
    Some(&mut rest[..rows])
}

/// Where a row kernel puts the rows it converts.
trait RowSink {
    /// The row to convert row `j` into.
    fn row(&mut self, j: usize) -> &mut [u32; 16];
    /// Row `j` converted without a fault.
    fn commit(&mut self, j: usize);
}

/// `SrcA` or `SrcB` rows, converted in place. A row with a faulting datum
/// keeps the datums before the fault, as the general loop leaves it.
struct InPlace<'a>(&'a mut [[u32; 16]]);

impl RowSink for InPlace<'_> {
    #[inline(always)]
    fn row(&mut self, j: usize) -> &mut [u32; 16] {
        &mut self.0[j]
    }

    #[inline(always)]
    fn commit(&mut self, _: usize) {}
}

/// `Dst` rows from datum address `addr` (a multiple of 16) on, each
/// converted in registers and then stored as [`store`] stores its datums.
struct DstRows<'a> {
    dst: &'a mut Dst,
    o: &'a OutputPlan,
    first: u32,
    row: [u32; 16],
}

impl<'a> DstRows<'a> {
    fn new(dst: &'a mut Dst, o: &'a OutputPlan, addr: u32) -> DstRows<'a> {
        DstRows {
            dst,
            o,
            first: addr / 16,
            row: [0; 16],
        }
    }
}

impl RowSink for DstRows<'_> {
    #[inline(always)]
    fn row(&mut self, _: usize) -> &mut [u32; 16] {
        &mut self.row
    }

    #[inline(always)]
    fn commit(&mut self, j: usize) {
        let s = dst_row(self.o, self.first + j as u32);
        if self.o.target == Target::Dst32 {
            self.dst.write32_row(s, &self.row);
        } else {
            *self.dst.row_mut(s) = low_halves(&self.row);
        }
        self.dst.set_valid(s, true);
    }
}

/// The low 16 bits of each value, computed in registers before the one
/// store (a loop that stores into `Dst` as it reads would not vectorise:
/// the compiler cannot rule out that the two overlap).
#[inline(always)]
fn low_halves(values: &[u32; 16]) -> [u16; 16] {
    let v = *values;
    let mut out = [0u16; 16];
    for (o, x) in out.iter_mut().zip(v) {
        *o = x as u16;
    }
    out
}

/// The `Dst` storage row of output row `row`.
#[inline(always)]
fn dst_row(o: &OutputPlan, row: u32) -> usize {
    let wide = o.target == Target::Dst32;
    dst_row_of(o.arch, o.dst_addressing, o.ovrd_with_addr, wide, row)
}

/// How many output rows the row number counts before it wraps: 16 with
/// `SetOvrdWithAddr`, all 1024 of `Dst16b` without.
#[inline(always)]
const fn row_wrap(ovrd_with_addr: bool) -> u32 {
    if ovrd_with_addr {
        16
    } else {
        1024
    }
}

/// [`dst_row`] from the output plan's choices: the architecture, its
/// remapping, `SetOvrdWithAddr`, and whether the output is `Dst32b`.
#[inline(always)]
fn dst_row_of(arch: Arch, a: DstAddressing, ovrd_with_addr: bool, wide: bool, row: u32) -> usize {
    let row = row.wrapping_sub(4) & (row_wrap(ovrd_with_addr) - 1);
    if wide {
        adj32(arch, a, row)
    } else {
        adj16(arch, a, row)
    }
}
