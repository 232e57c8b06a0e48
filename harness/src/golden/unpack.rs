//! Unpacking a tile from L1 into SrcA, SrcB or `Dst`, datum by datum, as the
//! documents describe the unpackers (tt-isa-documentation
//! `UNPACR_Regular.md`, `Unpackers/FormatConversion.md`, `SrcASrcB.md`), with
//! the tile laid out as tt-llk lays it out in L1: for BFP formats an exponent
//! section (one byte per 16 datums, padded to 16 bytes), then the datums of
//! face 0, face 1, ... contiguously.
//!
//! A SrcA/SrcB cell is given as the project's vectors write it: 19 bits, sign
//! 18, exponent field 17:10, mantissa field 9:0 (`SrcASrcB.md`; FP16 has its
//! exponent in 14:10, Integer "8" is overlaid on FP16 with exponent 16).
//!
//! Both architectures share the rules above: the Blackhole `UNPACR_Regular.md`
//! defers to the Wormhole B0 page, and the tile descriptor, BFP exponent
//! section, conversions (BFP8ToBF16, BFP8aToFP16, FP32 to TF32/BF16/FP16,
//! INT8 and INT16 overlays) and the SrcA/SrcB/`Dst` row arithmetic of the
//! jobs modelled here are the same. What differs, for these jobs:
//!
//! * FP8: Wormhole B0 has no `Unp_LF8_4b_exp` (ttsim's Wormhole register
//!   table has no such field), so FP8 is E5M2 only and becomes FP16 by a
//!   plain shift (`DatumBits <<= 8`, `UNPACR_Regular.md`). Blackhole adds
//!   E4M3, and (ttsim, confirmed by its vectors) fills the low byte with ones
//!   for an E5M2 magnitude of all ones; the Wormhole page has no such case.
//! * L1 ends at 1464 KiB on Wormhole B0 (`ReadL1Bytes`), 1536 KiB on
//!   Blackhole.
//! * `Dst16b`: on Wormhole B0 the model follows the page's 16-bit outputs
//!   into `Dst16b` (1024 rows, `Dst.md`), anchored by the isa-spec vector
//!   `wormhole_b0/unpack/bfp8a-to-dst`; on Blackhole it keeps to the `Dst32b`
//!   combinations the ttsim vectors anchor.
//! * `SRCA_SET_SetOvrdWithAddr` rows past 63 wrap on Blackhole and are
//!   undefined on Wormhole B0 (the two versions of `UNPACR_Regular.md`), and
//!   the Wormhole page calls an unpack to `Dst` with it set undefined; the
//!   LLK programs keep SrcA rows below 64 and clear it for `Dst`, so neither
//!   case arises.
//! * Register addresses and widths (the config words the program writes)
//!   differ; `crate::llk` places every field with `CfgField::on(arch)`.

use super::dst::bf16_from_arrangement;
use super::format::Format;
use super::pack::fp32_to_fp16;
use super::{not_modelled, undefined, Refusal};
use crate::vector::{self, Arch, DstFormat, DstRow, SrcRow};

/// Where an unpack writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnpackTarget {
    /// Unpacker 0 into SrcA.
    SrcA,
    /// Unpacker 1 into SrcB.
    SrcB,
    /// Unpacker 0 straight into `Dst` (`Unpack_if_sel`).
    Dst,
}

/// A tile unpack, described the way tt-llk programs it: one UNPACR per face.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnpackJob {
    pub arch: Arch,
    pub target: UnpackTarget,
    /// The format in L1 (the tile descriptor's `InDataFormat`).
    pub input: Format,
    /// The register format (`Out_data_format`).
    pub out: Format,
    /// `Unp_LF8_4b_exp` (Blackhole): FP8 input in E4M3 form.
    pub fp8_e4m3: bool,
    /// `ALU_FORMAT_SPEC_REG0_SrcAUnsigned` / `SrcBUnsigned`: INT8 as UINT8.
    pub unsigned: bool,
    /// `Force_shared_exp` with this exponent: BFP datums use it instead of an
    /// exponent section (there is none in L1 then).
    pub forced_exp: Option<u8>,
    /// `Haloize_mode` (SrcA only): row and column within a 16×16 block swap.
    pub haloize: bool,
    pub faces: u8,
    pub face_rows: u8,
    /// Dst tile index (64 rows) when unpacking to `Dst`.
    pub tile: u16,
    /// Byte address of the tile in L1 (16-byte aligned, not 0).
    pub l1_addr: u32,
}

/// What an unpack leaves in the registers: the rows it writes, every cell
/// of them (cells it does not write keep their reset value, zero).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unpacked {
    Src(Vec<SrcRow>),
    Dst(vector::Dst),
}

impl UnpackJob {
    /// Datums in the tile.
    pub fn datums(&self) -> usize {
        usize::from(self.faces) * usize::from(self.face_rows) * 16
    }

    /// Where the datums start: after the exponent section for BFP inputs.
    pub fn data_addr(&self) -> u32 {
        if self.input.is_bfp() && self.forced_exp.is_none() {
            let exps = (self.datums() / 16).div_ceil(16) * 16;
            self.l1_addr + exps as u32
        } else {
            self.l1_addr
        }
    }

    /// The L1 bytes the tile occupies: `[start, end)`.
    pub fn window(&self) -> (u64, u64) {
        let bits = self.datums() as u64 * u64::from(self.input.l1_bits());
        (
            u64::from(self.l1_addr),
            u64::from(self.data_addr()) + bits.div_ceil(8),
        )
    }

    /// The `Dst` view an unpack to `Dst` writes in (`UNPACR_Regular.md`,
    /// FormatConversion): INT32 and FP32/TF32 outputs go to `Dst32b`; other
    /// inputs are first normalised to FP16 (the FP16-like "a" forms and FP8)
    /// or BF16 (the rest) and go to `Dst16b`.
    pub fn dst_view(&self) -> DstFormat {
        match (self.input, self.out) {
            (Format::Int32, _) => DstFormat::Int32,
            (_, Format::Fp32 | Format::Tf32) => DstFormat::Fp32,
            (_, out) if out.is_a_form() => DstFormat::Fp16,
            _ => DstFormat::Bf16,
        }
    }

    /// Whether the model covers this job, and whether it is well defined.
    pub fn check(&self) -> Result<(), Refusal> {
        use Format as F;
        use UnpackTarget as T;
        if self.arch == Arch::WormholeB0 && self.fp8_e4m3 {
            // Wormhole B0 has no `Unp_LF8_4b_exp` (the field is Blackhole's:
            // ttsim's Wormhole register table has no such field); its FP8 is
            // E5M2 only (`UNPACR_Regular.md`, FormatConversion: FP8 is the
            // high byte of an FP16).
            return not_modelled("Unp_LF8_4b_exp on Wormhole B0 (the field does not exist)");
        }
        // `Unpackers/FormatConversion.md`: FP32 in L1 may become FP32/TF32
        // (Dst), or TF32/BF16/FP16 (Src); every other input keeps its format.
        // On Blackhole the combinations are those ttsim models. On Wormhole
        // B0 the model also follows `UNPACR_Regular.md` into `Dst16b`: a
        // float input normalised to BF16 or FP16 (FP32 narrowed to BF16 or
        // FP16 by the same rules as for Src) is stored there in the `Dst.md`
        // arrangement; the Wormhole isa-spec vector `bfp8a-to-dst` anchors it.
        let wh = self.arch == Arch::WormholeB0;
        let ok = match (self.input, self.out, self.target) {
            (F::Fp32, F::Fp32 | F::Tf32, T::Dst) => true,
            (F::Fp32, F::Bf16 | F::Fp16, T::Dst) => wh,
            (F::Fp32, F::Tf32 | F::Bf16 | F::Fp16, T::SrcA | T::SrcB) => true,
            (F::Int32, F::Int32, T::Dst) => true,
            (
                F::Bfp8
                | F::Bfp4
                | F::Bfp2
                | F::Bfp8a
                | F::Bfp4a
                | F::Bfp2a
                | F::Fp16
                | F::Bf16
                | F::Fp8,
                _,
                T::Dst,
            ) => wh && self.out == self.input,
            (
                F::Bfp8
                | F::Bfp4
                | F::Bfp2
                | F::Bfp8a
                | F::Bfp4a
                | F::Bfp2a
                | F::Fp16
                | F::Bf16
                | F::Int16
                | F::Fp8
                | F::Int8,
                _,
                T::SrcA | T::SrcB,
            ) => self.out == self.input,
            _ => false,
        };
        if !ok {
            return not_modelled(format!(
                "unpacking {} to {} in {:?}",
                self.input.name(),
                self.out.name(),
                self.target
            ));
        }
        if self.fp8_e4m3 && self.input != F::Fp8 {
            return not_modelled("Unp_LF8_4b_exp without FP8 input");
        }
        if self.unsigned && self.input != F::Int8 {
            return not_modelled("an unsigned source format without INT8 input");
        }
        if self.forced_exp.is_some() && !self.input.is_bfp() {
            return not_modelled("a forced shared exponent without BFP input");
        }
        if self.haloize && self.target != T::SrcA {
            return not_modelled("haloize outside unpacker 0 to SrcA");
        }
        if !matches!(self.faces, 1 | 2 | 4) || !matches!(self.face_rows, 1 | 2 | 4 | 8 | 16) {
            return not_modelled(format!("{} faces of {} rows", self.faces, self.face_rows));
        }
        if !self.l1_addr.is_multiple_of(16) || self.l1_addr < 16 {
            return not_modelled(format!("tile address {:#x}", self.l1_addr));
        }
        if self.target == T::Dst {
            // `Dst.md`: 1024 rows of 16-bit cells, or 512 of 32-bit ones.
            let rows = usize::from(self.dst_view().mode().rows());
            let last = usize::from(self.tile) * 64 + 16 * usize::from(self.faces);
            if last > rows {
                return not_modelled(format!("Dst rows up to {last}, past {rows}"));
            }
        }
        if self.haloize {
            // UNPACR_Regular.md: haloize moves whole 16-byte lines; each
            // face's datums must start on one (ttsim: undefined otherwise).
            let face_bits = usize::from(self.face_rows) * 16 * self.input.l1_bits() as usize;
            if !face_bits.is_multiple_of(128) && self.faces > 1 {
                return undefined("haloize with faces that do not start on 16-byte lines");
            }
        }
        let (_, end) = self.window();
        let size = super::pack::l1_size(self.arch);
        if end > size {
            return undefined(format!("the tile ends at {end:#x}, past the end of L1"));
        }
        Ok(())
    }
}

/// The registers unpacking `job` from `l1` must produce. `src_before` (bank
/// 0 rows of the target Src register) and `dst_before` are what the
/// registers held: cells the unpack does not write keep those values.
pub fn unpack(
    job: &UnpackJob,
    l1: &[u8],
    src_before: &[SrcRow],
    dst_before: Option<&vector::Dst>,
) -> Result<Unpacked, Refusal> {
    job.check()?;
    let view = job.dst_view();
    let bits = job.input.l1_bits() as usize;
    let data = job.data_addr() as usize;
    let face_rows = usize::from(job.face_rows);
    // The rows written, by row number from `base` (a `Dst` tile's first
    // row), each starting from what it held.
    let base = match job.target {
        UnpackTarget::Dst => usize::from(job.tile) * 64,
        _ => 0,
    };
    // What each row the job can write held: the first row of that number
    // in `dst_before` (in the job's view) or `src_before` (bank 0), zero
    // where there is none. Looked up once, not once a row written.
    let mut before: Vec<Option<[u32; 16]>> = vec![None; 16 * usize::from(job.faces)];
    let mut note = |row: u16, cells: [u32; 16]| {
        let slot = usize::from(row)
            .checked_sub(base)
            .and_then(|i| before.get_mut(i));
        if let Some(slot @ None) = slot {
            *slot = Some(cells);
        }
    };
    match job.target {
        UnpackTarget::Dst => {
            for r in dst_before
                .filter(|d| d.format == view)
                .map_or(&[][..], |d| &d.rows)
            {
                note(r.row, r.cells);
            }
        }
        _ => {
            for r in src_before.iter().filter(|r| r.bank == 0) {
                note(u16::from(r.row), r.cells);
            }
        }
    }
    let held = |row: usize| before.get(row).copied().flatten().unwrap_or([0; 16]);
    let mut rows: Vec<Option<[u32; 16]>> = Vec::with_capacity(16 * usize::from(job.faces));
    for face in 0..usize::from(job.faces) {
        for r in 0..face_rows {
            // A face row's 16 datums are one BFP group: one shared exponent.
            let group = face * face_rows + r;
            let exp = match job.forced_exp {
                Some(e) => e,
                None => l1.get(job.l1_addr as usize + group).copied().unwrap_or(0),
            };
            let mut cells = [0u32; 16];
            let raws = row_datums(l1, data + group * 2 * bits, bits);
            for (cell, raw) in cells.iter_mut().zip(raws) {
                *cell = match (convert(job, raw, exp)?, job.target) {
                    (Datum::Bf16(b), UnpackTarget::Dst) => u32::from(b),
                    (Datum::Fp16(h), UnpackTarget::Dst) => u32::from(h),
                    (Datum::Bf16(b), _) => u32::from(b) << 3,
                    (Datum::Fp16(h), _) => fp16_cell(h),
                    (Datum::Cell(c), _) => c,
                };
            }
            let row = face * 16 + r;
            match job.target {
                UnpackTarget::Dst => *written_row(&mut rows, row, held) = cells,
                // Haloize transposes each 16-row block: the datum of row
                // `row`, column `col` lands in row `(row & !15) | col`,
                // column `row & 15`.
                UnpackTarget::SrcA if job.haloize => {
                    for (col, cell) in cells.into_iter().enumerate() {
                        written_row(&mut rows, (row & !15) | col, held)[row & 15] = cell;
                    }
                }
                _ => *written_row(&mut rows, row, held) = cells,
            }
        }
    }
    Ok(match job.target {
        UnpackTarget::Dst => Unpacked::Dst(vector::Dst {
            format: view,
            rows: written(rows)
                .map(|(row, cells)| DstRow {
                    row: (base + row) as u16,
                    cells,
                })
                .collect(),
        }),
        _ => Unpacked::Src(
            written(rows)
                .map(|(row, cells)| SrcRow {
                    bank: 0,
                    row: row as u8,
                    cells,
                })
                .collect(),
        ),
    })
}

/// Row `row` of `rows`, from what it held `before` if not written yet.
fn written_row(
    rows: &mut Vec<Option<[u32; 16]>>,
    row: usize,
    before: impl Fn(usize) -> [u32; 16],
) -> &mut [u32; 16] {
    if rows.len() <= row {
        rows.resize(row + 1, None);
    }
    rows[row].get_or_insert_with(|| before(row))
}

/// The rows that were written, in row order.
fn written(rows: Vec<Option<[u32; 16]>>) -> impl Iterator<Item = (usize, [u32; 16])> {
    rows.into_iter()
        .enumerate()
        .filter_map(|(row, cells)| Some((row, cells?)))
}

/// The 16 datums of `bits` bits (at most 32) of the face row at L1 byte
/// `at`: datum `j` is bits `j * bits` up of the row's bytes read
/// little-endian (BFP4 datum `2k` in the low nibble of byte `k`, BFP2 datum
/// `4k + j` in bits `2j+1:2j`). Bytes past L1's end read as zero.
fn row_datums(l1: &[u8], at: usize, bits: usize) -> [u32; 16] {
    let bits = bits.min(32);
    // The row's `2 * bits` bytes, and room to read four from any datum's
    // first byte.
    let mut row = [0u8; 64 + 4];
    let have = l1.get(at..).unwrap_or_default();
    let n = have.len().min(2 * bits);
    row[..n].copy_from_slice(&have[..n]);
    let mask = ((1u64 << bits) - 1) as u32;
    std::array::from_fn(|j| {
        let (byte, shift) = (j * bits / 8, j * bits % 8);
        let word = u32::from_le_bytes([row[byte], row[byte + 1], row[byte + 2], row[byte + 3]]);
        (word >> shift) & mask
    })
}

/// One L1 datum after the unpacker's format conversion
/// (`UNPACR_Regular.md`, FormatConversion): normalised to BF16 or FP16, or
/// already in its final 32-bit (or TF32 Src) form.
enum Datum {
    Bf16(u16),
    Fp16(u16),
    /// A TF32 Src cell, or a `Dst32b` value (FP32 / sign-magnitude INT32).
    Cell(u32),
}

/// One L1 datum converted as the job's formats ask.
fn convert(job: &UnpackJob, raw: u32, exp: u8) -> Result<Datum, Refusal> {
    use Format as F;
    let to_dst = job.target == UnpackTarget::Dst;
    Ok(match job.input {
        F::Bfp8 | F::Bfp4 | F::Bfp2 => {
            let bfp8 = raw << (8 - job.input.l1_bits());
            Datum::Bf16(bfp8_to_bf16(bfp8 as u8, exp))
        }
        F::Bfp8a | F::Bfp4a | F::Bfp2a => {
            let bfp8a = raw << (8 - job.input.l1_bits());
            match bfp8a_to_fp16(bfp8a as u8, exp) {
                Some(h) => Datum::Fp16(h),
                None => {
                    return undefined(format!(
                        "a {} datum {raw:#x} with shared exponent {exp:#04x} normalises to an \
                         exponent outside five bits (FloatBitPatterns.md, BFP8aToFP16)",
                        job.input.name()
                    ))
                }
            }
        }
        F::Fp32 | F::Int32 if to_dst && matches!(job.out, F::Fp32 | F::Tf32 | F::Int32) => {
            Datum::Cell(raw)
        }
        F::Fp32 => match job.out {
            F::Tf32 => Datum::Cell(raw >> 13),
            F::Bf16 => {
                // Denormals flush to a zero of the same sign.
                let sign = raw & 0x8000_0000;
                let v = if raw & 0x7fff_ffff < 0x0080_0000 {
                    sign
                } else {
                    raw
                };
                Datum::Bf16((v >> 16) as u16)
            }
            _ => Datum::Fp16(fp32_to_fp16(raw)),
        },
        F::Fp16 => Datum::Fp16(raw as u16),
        F::Bf16 => Datum::Bf16(raw as u16),
        F::Int16 => {
            // The 16 bits go to Src with their high byte over sign and
            // mantissa and their low byte in the exponent field, which is
            // where a Dst16b-arranged BF16 puts them (so a later move to Dst
            // stores them unchanged; ttsim agrees).
            Datum::Bf16(bf16_from_arrangement(raw as u16))
        }
        F::Fp8 => Datum::Fp16(fp8_to_fp16(job.arch, raw as u8, job.fp8_e4m3)),
        _ => {
            // Integer "8" overlaid on FP16 (SrcASrcB.md): magnitude in the
            // mantissa, raw exponent 16 when the magnitude is not zero.
            let v = raw as u16 & 0xff;
            let (sign, magnitude) = if job.unsigned {
                (0, v)
            } else {
                (v & 0x80, v & 0x7f)
            };
            Datum::Fp16(magnitude | if magnitude != 0 { 16 << 10 } else { 0 } | (sign << 8))
        }
    })
}

/// An FP16 datum in a Src cell: sign to bit 18, exponent and mantissa fields
/// as they are (FP16 overlay).
fn fp16_cell(h: u16) -> u32 {
    (u32::from(h & 0x8000) << 3) | u32::from(h & 0x7fff)
}

/// A BFP8 datum with its shared exponent as BF16 (`Unpackers/FormatConversion.md`;
/// the reference README's device facts): the 7-bit magnitude is normalised
/// by shifting out its leading zeros, lowering the exponent by as much (the
/// exponent field wraps modulo 256 when it runs below zero, as ttsim notes
/// spec and silicon agree); a zero magnitude is +0, or −infinity when the
/// sign bit is set.
fn bfp8_to_bf16(x: u8, exp: u8) -> u16 {
    match normalise(x, exp) {
        (sign, None) => sign << 15 | if sign != 0 { 0x7f80 } else { 0 },
        (sign, Some((e, fraction))) => (sign << 15) | (u16::from(e) << 7) | fraction,
    }
}

/// A BFP8a datum with its shared exponent as FP16 (`FloatBitPatterns.md`,
/// "BFP8aToFP16"): as [`bfp8_to_bf16`], with a 10-bit mantissa field and the
/// five-bit exponent of FP16. The shared exponent's high three bits are
/// expected to be zero; where the normalised exponent is not a five-bit
/// value (those bits set, or the subtraction running below zero), the page
/// calls the result undefined, and so this gives `None`. A zero magnitude is
/// +0, or 0xFC00 (the Tensix meaning is -2^16) when the sign bit is set, for
/// any exponent.
fn bfp8a_to_fp16(x: u8, exp: u8) -> Option<u16> {
    match normalise(x, exp) {
        (sign, None) => Some(sign << 15 | if sign != 0 { 0x7c00 } else { 0 }),
        (_, Some((e, _))) if e & 0xe0 != 0 => None,
        (sign, Some((e, fraction))) => Some((sign << 15) | (u16::from(e) << 10) | (fraction << 3)),
    }
}

/// The step both of `FloatBitPatterns.md`'s BFP conversion routines share:
/// the datum's sign bit, and for a nonzero 7-bit magnitude the exponent and
/// the six fraction bits (in bits 6:1) after shifting the magnitude's
/// leading zeros out and lowering the exponent by as many, as a `uint8_t`
/// (so it wraps below zero).
fn normalise(x: u8, exp: u8) -> (u16, Option<(u8, u16)>) {
    let sign = u16::from(x >> 7);
    let magnitude = (x << 1) as u16 & 0xff;
    if magnitude == 0 {
        return (sign, None);
    }
    let lz = magnitude.leading_zeros() - 8;
    let normal = (magnitude << lz) & 0xff;
    (sign, Some((exp.wrapping_sub(lz as u8), normal & 0x7e)))
}

/// FP8 to FP16. E5M2 (both architectures): the FP16 whose top byte it is
/// (`UNPACR_Regular.md`, FormatConversion: `DatumBits <<= 8`). On Blackhole
/// only, an E5M2 magnitude of all ones also fills the low byte with ones
/// (ttsim, confirmed by the ttsim conformance vectors); the Wormhole B0 page
/// has no such case, and the Wormhole model follows the page. E4M3
/// (Blackhole's `Unp_LF8_4b_exp`, ttsim): exponent rebiased by 8 (0 stays 0),
/// the three mantissa bits on top; the all-ones pattern fills the rest of
/// the mantissa too.
fn fp8_to_fp16(arch: Arch, v: u8, e4m3: bool) -> u16 {
    let v = u16::from(v);
    if e4m3 {
        let sign = v & 0x80;
        let e = (v >> 3) & 15;
        let m = v & 7;
        let pad = if e == 15 && m == 7 { 0x7f } else { 0 };
        let e16 = if e != 0 { e + 8 } else { 0 };
        (sign << 8) | (e16 << 10) | (m << 7) | pad
    } else if arch == Arch::Blackhole && v & 0x7f == 0x7f {
        (v << 8) | 0xff
    } else {
        v << 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A haloized SrcA unpack of four face rows writes columns 0 to 3 of
    /// rows 0 to 15; the other cells keep what the first bank-0 row of
    /// their number held before, and rows with none (a bank-1 row does not
    /// count) keep zero.
    #[test]
    fn unwritten_cells_keep_the_first_bank_0_row_before() {
        let job = UnpackJob {
            arch: Arch::Blackhole,
            target: UnpackTarget::SrcA,
            input: Format::Bf16,
            out: Format::Bf16,
            fp8_e4m3: false,
            unsigned: false,
            forced_exp: None,
            haloize: true,
            faces: 1,
            face_rows: 4,
            tile: 0,
            l1_addr: 0x100,
        };
        let row = |bank: u8, row: u8, first: u32| SrcRow {
            bank,
            row,
            cells: std::array::from_fn(|c| first + c as u32),
        };
        let before = [
            row(0, 5, 100),
            row(0, 5, 200),
            row(1, 6, 300),
            row(0, 20, 400),
            row(0, 15, 500),
        ];
        let l1 = vec![0u8; 0x1000];
        let Ok(Unpacked::Src(rows)) = unpack(&job, &l1, &before, None) else {
            panic!("the model refused a plain haloized unpack");
        };
        assert_eq!(
            rows.iter().map(|r| r.row).collect::<Vec<_>>(),
            (0..16).collect::<Vec<u8>>()
        );
        for r in &rows {
            let mut want = [0u32; 16];
            let kept = match r.row {
                5 => 100,
                15 => 500,
                _ => 0,
            };
            if kept != 0 {
                for (c, w) in want.iter_mut().enumerate().skip(4) {
                    *w = kept + c as u32;
                }
            }
            assert_eq!(r.cells, want, "row {}", r.row);
        }
    }

    #[test]
    fn bfp_unpack_follows_the_device_facts() {
        // Reference README, "BFP unpack (device)": magnitude 0 with sign 1 is
        // -inf; 64 with exponent 127 is 1.0.
        assert_eq!(bfp8_to_bf16(0x80, 127), 0xff80);
        assert_eq!(bfp8_to_bf16(0x00, 127), 0);
        assert_eq!(bfp8_to_bf16(64, 127), 0x3f80);
        assert_eq!(bfp8_to_bf16(0x80 | 96, 127), 0xbfc0); // -1.5
        assert_eq!(bfp8_to_bf16(1, 127), 0x3c80); // 1/64
    }

    #[test]
    fn bfp8a_unpack_follows_float_bit_patterns() {
        // FloatBitPatterns.md, BFP8a table: Mag / 2^6 * 2^(Exp - 15).
        // 64 at exponent 15 is 1.0 (FP16 0x3c00); 96 is 1.5 (0x3e00).
        assert_eq!(bfp8a_to_fp16(64, 15), Some(0x3c00));
        assert_eq!(bfp8a_to_fp16(0x80 | 96, 15), Some(0xbe00));
        // 1 at exponent 15 is 2^-6 (exponent field 9).
        assert_eq!(bfp8a_to_fp16(1, 15), Some(9 << 10));
        // Sign 1, magnitude 0: -2^16, written 0xfc00, whatever the exponent.
        assert_eq!(bfp8a_to_fp16(0x80, 0xff), Some(0xfc00));
        assert_eq!(bfp8a_to_fp16(0, 3), Some(0));
        // Normalising 1 at exponent 3 needs exponent -3: undefined, as is an
        // exponent byte with its high bits set.
        assert_eq!(bfp8a_to_fp16(1, 3), None);
        assert_eq!(bfp8a_to_fp16(64, 0x2f), None);
    }

    #[test]
    fn fp16_and_int8_cells_follow_srcasrcb_md() {
        assert_eq!(fp16_cell(0xbc00), (1 << 18) | 0x3c00);
        // FP32 to an FP16 cell: exponent rebiased, 2^17 and up saturating.
        assert_eq!(fp16_cell(fp32_to_fp16(0x3f80_0000)), 15 << 10);
        assert_eq!(fp16_cell(fp32_to_fp16(0xbf80_0000)), (1 << 18) | (15 << 10));
        assert_eq!(fp16_cell(fp32_to_fp16(0x7f80_0000)), (31 << 10) | 0x3ff);
        assert_eq!(fp8_to_fp16(Arch::Blackhole, 0x38, true), 0x3c00); // e4m3 1.0
        assert_eq!(fp8_to_fp16(Arch::Blackhole, 0x3c, false), 0x3c00); // e5m2 1.0
    }
}
