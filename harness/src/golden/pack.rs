//! Packing a tile from `Dst` to L1, datum by datum, as the documents describe
//! the packer pipeline (tt-isa-documentation `PACR.md`, `Packers/*.md`):
//! read a `Dst` row, early format conversion, edge masking, ReLU, late format
//! conversion with BFP assembly, and the output layout tt-llk's programming
//! gives a tile in L1.
//!
//! The job is what tt-llk's `set_packer_config` and `program_packer_destination`
//! make of an LLK pack: the formats, the ReLU and edge-mask settings, the face
//! count and height, where the tile sits in `Dst` and in L1.

use super::dst::{DstImage, ImageRow};
use super::format::Format;
use super::{not_modelled, undefined, Bytes, Refusal};
use crate::vector::{Arch, DstFormat, DstMode};

/// The ReLU stage (`Packers/ReLU.md`): `STACC_RELU_ApplyRelu` (0 none,
/// 1 zero negatives, 2 zero at or below the threshold, 3 clamp into
/// `[0, threshold]`) and `STACC_RELU_ReluThreshold`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Relu {
    pub mode: u8,
    pub threshold: u16,
}

impl Relu {
    pub const NONE: Relu = Relu {
        mode: 0,
        threshold: 0,
    };
}

/// Edge masking (`Packers/EdgeMasking.md`) with the face-set mapping off:
/// packer `i` uses row-set mapping `(select >> 2i) & 3`, whose 2-bit entry for
/// the datum's row in its face picks one of the four column masks. A clear
/// mask bit replaces the datum with zero, or with −∞ when `PCK_EDGE_MODE_mode`
/// is set; the replacement stands in for the early conversion's result, so
/// ReLU and the late conversion still act on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Edge {
    /// `PCK_EDGE_MODE_mode`: masked datums become −∞ instead of zero.
    pub neg_inf: bool,
    /// `PCK_EDGE_OFFSET_SEC[0..4].mask`.
    pub masks: [u16; 4],
    /// `TILE_ROW_SET_MAPPING[0..4]`: sixteen 2-bit entries per word.
    pub row_sets: [u32; 4],
    /// `PCK_EDGE_TILE_ROW_SET_SELECT_select`.
    pub select: u8,
}

impl Edge {
    /// Every column of every row passes (tt-llk's default).
    pub const NONE: Edge = Edge {
        neg_inf: false,
        masks: [0xffff; 4],
        row_sets: [0; 4],
        select: 0,
    };

    /// The column mask packer `packer` applies to row `row` of a face.
    pub fn mask(&self, packer: usize, row: usize) -> u16 {
        let b = (u32::from(self.select) >> (2 * (packer & 3))) & 3;
        let c = (self.row_sets[b as usize] >> (2 * (row & 15))) & 3;
        self.masks[c as usize]
    }
}

/// A tile pack, described the way tt-llk programs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackJob {
    pub arch: Arch,
    /// What `Dst` holds and in which view the rows are given; its mode
    /// decides `PCK_DEST_RD_CTRL_Read_32b_data`.
    pub dst: DstFormat,
    /// The intermediate format: `In_data_format` and `ALU_FORMAT_SPEC_REG2_Dstacc`
    /// (tt-llk's `pack_src_format`).
    pub src: Format,
    /// `Out_data_format` (tt-llk's `pack_dst_format`).
    pub out: Format,
    /// `PCK_DEST_RD_CTRL_Read_unsigned`: INT8 output as UINT8.
    pub unsigned: bool,
    /// `Pac_LF8_4b_exp` (Blackhole): FP8 output as E4M3.
    pub fp8_e4m3: bool,
    /// `PCK_DEST_RD_CTRL_Read_int8` (the ISA's `Read_raw`).
    pub read_raw: bool,
    /// `PCK_DEST_RD_CTRL_Round_10b_mant`.
    pub round_10b: bool,
    pub relu: Relu,
    pub edge: Edge,
    /// Faces in the tile: 1, 2 or 4.
    pub faces: u8,
    /// Rows per face: 1, 2, 4, 8 or 16.
    pub face_rows: u8,
    /// Dst tile index (packer ADC channel 0 W): a tile is 64 rows.
    pub tile: u16,
    /// `DEST_TARGET_REG_CFG_PACK_SEC0_Offset`, in rows.
    pub dst_offset: u16,
    /// Byte address of the tile in L1 (16-byte aligned, not 0).
    pub l1_addr: u32,
    /// `Pack_L1_Acc`: add into what L1 holds instead of overwriting it.
    pub l1_acc: bool,
}

/// Where one packer's output streams start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Streams {
    /// The faces this packer packs.
    pub faces: std::ops::Range<usize>,
    pub exp_addr: u32,
    pub data_addr: u32,
}

impl PackJob {
    /// Rows of the tile in `Dst` start here (face `f` row `r` is
    /// `first_row + 16 f + r`): ADC W counts 64-row tiles
    /// (`set_packer_strides`: W stride is four faces), plus the packer's
    /// `Dst` offset (`Packers/InputAddressGenerator.md`).
    pub fn first_row(&self) -> usize {
        usize::from(self.tile) * 64 + usize::from(self.dst_offset)
    }

    /// The `Exp_section_size` tt-llk gives packer 0: one 16-byte unit per
    /// face, none for FP8 and INT8 (seed 000 section 6.5).
    pub fn exp_section(&self) -> u32 {
        if matches!(self.out, Format::Fp8 | Format::Int8) {
            0
        } else {
            u32::from(self.faces)
        }
    }

    /// Bytes one face occupies in the data stream, before padding.
    pub fn face_bytes(&self) -> u32 {
        u32::from(self.face_rows) * 16 * self.out.l1_bits() / 8
    }

    /// The output streams of each packer. Blackhole has one packer that
    /// packs every face into one exponent stream and one data stream; the
    /// Wormhole B0 form runs one packer per face, each given its own
    /// addresses so the tile comes out in the same layout, faces padded to
    /// 16 bytes (`PACR.md` output address generator; the addresses tt-llk's
    /// multi-packer programming produces, as in the ttsim vectors).
    pub fn streams(&self) -> Vec<Streams> {
        let faces = usize::from(self.faces);
        let exp_bytes = if self.out.l1_bits() <= 8 {
            16 * self.exp_section()
        } else {
            0
        };
        match self.arch {
            Arch::Blackhole => vec![Streams {
                faces: 0..faces,
                exp_addr: self.l1_addr,
                data_addr: self.l1_addr.wrapping_add(exp_bytes),
            }],
            Arch::WormholeB0 => {
                let unit = self.face_bytes().div_ceil(16) * 16;
                (0..faces)
                    .map(|f| Streams {
                        faces: f..f + 1,
                        exp_addr: self.l1_addr.wrapping_add(16 * f as u32),
                        data_addr: self
                            .l1_addr
                            .wrapping_add(exp_bytes)
                            .wrapping_add(unit * f as u32),
                    })
                    .collect()
            }
        }
    }

    /// Bytes `datums` of the output take in a data stream and (BFP) in an
    /// exponent stream, each padded to 16 (`PACR.md`: `Last` writes a
    /// partly filled buffer out whole).
    fn stream_bytes(&self, datums: u64) -> (u64, u64) {
        let data = (datums * u64::from(self.out.l1_bits()) / 8).div_ceil(16) * 16;
        (data, (datums / 16).div_ceil(16) * 16)
    }

    /// The L1 bytes the pack may touch: `[start, end)`.
    pub fn window(&self) -> (u64, u64) {
        let mut start = u64::MAX;
        let mut end = 0;
        for s in self.streams() {
            let datums = s.faces.len() as u64 * u64::from(self.face_rows) * 16;
            let (data, exps) = self.stream_bytes(datums);
            start = start.min(u64::from(s.data_addr));
            end = end.max(u64::from(s.data_addr) + data);
            if self.out.is_bfp() {
                start = start.min(u64::from(s.exp_addr));
                end = end.max(u64::from(s.exp_addr) + exps);
            }
        }
        (start, end)
    }

    /// Whether the edge mask clears any column of any row this job packs.
    pub fn masks_something(&self) -> bool {
        self.streams().iter().enumerate().any(|(packer, _)| {
            (0..usize::from(self.face_rows)).any(|r| self.edge.mask(packer, r) != 0xffff)
        })
    }

    /// Whether the model covers this job, and whether it is well defined.
    pub fn check(&self) -> Result<(), Refusal> {
        use Format as F;
        let wide = self.dst.mode() == DstMode::Bits32;
        let bh = self.arch == Arch::Blackhole;
        // The conversion pairs `Packers/FormatConversion.md` allows, as far
        // as tenstorrent/ttsim (the conformance vectors' source) models
        // them; its PACR accepts exactly these (read 32b, in, out) triples.
        let pair_ok = match (wide, self.src, self.out) {
            (false, F::Fp16, F::Fp32 | F::Fp16 | F::Bf16) => true,
            (false, F::Fp16, F::Fp8) => bh,
            (false, F::Bfp8a, F::Bfp8) => true,
            // BFP8a/BFP4a/BFP2a from the 5-bit-exponent intermediates
            // (FormatConversion.md, "Late format conversion": the datum goes
            // to E5M7, then to BFP8a, then is truncated to BFP4a or BFP2a).
            // ttsim refuses every "a" output, so the page alone defines these.
            // From BF16, TF32 or FP32 the E5M7 step narrows the exponent, and
            // the page leaves 2^-15 < |x| < 2^-14 "mishandled": not modelled.
            (false, F::Fp16 | F::Bfp8a, F::Bfp8a | F::Bfp4a | F::Bfp2a) => true,
            (false, F::Bf16, F::Fp32 | F::Bf16 | F::Bfp8 | F::Bfp4 | F::Bfp2) => true,
            (false, F::Bfp8, F::Fp32 | F::Bf16 | F::Bfp8 | F::Bfp4) => true,
            (false, F::Int16, F::Int16) => true,
            (true, F::Fp32, F::Fp32 | F::Fp16 | F::Bfp8 | F::Bfp4 | F::Bfp2) => true,
            (true, F::Fp16, F::Fp16 | F::Fp8) => bh,
            (true, F::Bf16, F::Bf16) => true,
            (true, F::Bfp8, F::Bfp8 | F::Bfp4) => true,
            (true, F::Int32, F::Int32) | (true, F::Int16, F::Int16) | (true, F::Int8, F::Int8) => {
                true
            }
            _ => false,
        };
        if !pair_ok {
            return not_modelled(format!(
                "packing {} Dst as {} to {} on {}",
                self.dst.mode(),
                self.src.name(),
                self.out.name(),
                self.arch
            ));
        }
        // Round_10b_mant: required where a Dst32b value goes to FP16 via
        // TF32, allowed for the Blackhole BF16 → FP16 → FP8 path, and
        // otherwise outside what the model covers (FormatConversion.md lists
        // it only for TF32 results).
        let round_10b_needed = wide && self.src == F::Fp16;
        let round_10b_allowed =
            round_10b_needed || (!wide && self.src == F::Fp16 && self.out == F::Fp8);
        if self.round_10b != round_10b_needed && !(self.round_10b && round_10b_allowed) {
            return not_modelled(format!(
                "Round_10b_mant={} for {} Dst as {} to {}",
                u8::from(self.round_10b),
                self.dst.mode(),
                self.src.name(),
                self.out.name()
            ));
        }
        // Read_raw picks identity over rounding; the model covers it only
        // where both give the same datum (FP32, INT32, INT16).
        if self.read_raw && !matches!(self.src, F::Fp32 | F::Int32 | F::Int16) {
            return not_modelled(format!(
                "Read_raw with {} as the intermediate format",
                self.src.name()
            ));
        }
        if self.unsigned && self.src != F::Int8 {
            return not_modelled("Read_unsigned without INT8 output");
        }
        if self.out == F::Fp8 && !self.fp8_e4m3 {
            return not_modelled("FP8 output in E5M2 form (ttsim refuses it)");
        }
        if self.fp8_e4m3 && (self.out != F::Fp8 || !bh) {
            return not_modelled("Pac_LF8_4b_exp without Blackhole FP8 output");
        }
        match self.relu.mode {
            0 => {}
            1..=3 => {
                if self.relu.mode >= 2 && self.relu.threshold & 0x8000 != 0 {
                    return undefined("a ReLU threshold of -0 or below (ReLU.md)");
                }
                match self.src {
                    F::Int32 if self.relu.mode > 1 => {
                        return undefined(
                            "threshold ReLU on an integer intermediate format (ReLU.md: \
                             ApplyRelu should be 0 or 1)",
                        )
                    }
                    F::Int16 | F::Int8 => {
                        return not_modelled("ReLU on INT16 or INT8 datums (ttsim refuses it)")
                    }
                    _ => {}
                }
            }
            _ => return not_modelled("STACC_RELU_ApplyRelu above 3"),
        }
        if self.relu.mode == 3
            && self.src == F::Bfp8a
            && self.out.is_bfp()
            && self.out.is_a_form()
            && self.relu.threshold & 0x7c00 == 0
            && self.relu.threshold & 0x3ff != 0
        {
            // The clamp makes an E5M6 denormal; widening its mantissa to E5M7
            // keeps denormals (FormatConversion.md, late conversion table),
            // but the page does not say how BFP8a assembly reads one.
            return not_modelled(
                "ReLU clamp to an FP16 denormal threshold into a BFP \"a\" output",
            );
        }
        if self.edge.neg_inf
            && matches!(self.src, F::Int32 | F::Int16 | F::Int8)
            && self.masks_something()
        {
            // EdgeMasking.md substitutes -inf, which no integer format has;
            // the page does not say what an integer lane receives.
            return not_modelled(format!(
                "edge masking to -inf with the integer intermediate {}",
                self.src.name()
            ));
        }
        if !matches!(self.faces, 1 | 2 | 4) {
            return not_modelled(format!("{} faces", self.faces));
        }
        if !matches!(self.face_rows, 1 | 2 | 4 | 8 | 16) {
            return not_modelled(format!("faces of {} rows", self.face_rows));
        }
        if self.l1_acc && !matches!(self.out, F::Fp32 | F::Fp16 | F::Bf16) {
            return not_modelled(format!("L1 accumulation into {}", self.out.name()));
        }
        let rows = self.dst.mode().rows() as usize;
        let last =
            self.first_row() + 16 * (usize::from(self.faces) - 1) + usize::from(self.face_rows);
        if last > rows {
            return not_modelled(format!("the tile's Dst rows end at {last}, past {rows}"));
        }
        if bh {
            // Blackhole PACR.md: read interface i reads row
            // (StartRow & ~3) | i, and enabled interfaces reaching past the
            // 4-row group of StartRow are undefined. ttsim v1.10.0 (the
            // conformance vectors' version) read consecutive rows instead;
            // later ttsim follows the document, and so does this model.
            let per_pacr = usize::from(self.face_rows).min(4);
            if self.first_row() % 4 + per_pacr > 4 {
                return undefined(format!(
                    "{per_pacr} Dst read interfaces from row {} cross a 4-row group \
                     (Blackhole PACR.md)",
                    self.first_row()
                ));
            }
        }
        if !self.l1_addr.is_multiple_of(16) || self.l1_addr < 16 {
            return not_modelled(format!(
                "tile address {:#x}: tt-llk places tiles 16-byte aligned, after the header word",
                self.l1_addr
            ));
        }
        let (_, end) = self.window();
        let size = l1_size(self.arch);
        if end > size {
            return undefined(format!(
                "the tile ends at {end:#x}, past the end of L1 ({size:#x})"
            ));
        }
        Ok(())
    }
}

/// Bytes of L1 (`WormholeB0/TensixTile/L1.md`, `BlackholeA0/TensixTile/README.md`).
pub fn l1_size(arch: Arch) -> u64 {
    match arch {
        Arch::WormholeB0 => 1464 * 1024,
        Arch::Blackhole => 1536 * 1024,
    }
}

/// The bytes packing `job` from `dst` must leave in L1, given what L1 held
/// before (read only by L1 accumulation).
pub fn pack(job: &PackJob, dst: &DstImage, l1_before: &[u8]) -> Result<Vec<Bytes>, Refusal> {
    job.check()?;
    if dst.format.mode() != job.dst.mode() {
        return not_modelled("the Dst image is not in the job's Dst mode");
    }
    let mut out = Vec::new();
    let first_row = job.first_row();
    // Blackhole's one stream is packer 0's; Wormhole B0's stream `i` is
    // packer `i`'s.
    let face_rows = usize::from(job.face_rows);
    // EdgeMasking.md: a masked datum becomes zero, which every later stage
    // keeps as the all-zero pattern; with `PCK_EDGE_MODE_mode` it is −∞ in
    // place of the early conversion's result, and ReLU and the late
    // conversion follow.
    let masked = if job.edge.neg_inf {
        late(job, relu(job, negative_infinity(job)))
    } else {
        0
    };
    for (packer, s) in job.streams().into_iter().enumerate() {
        let rows = s
            .faces
            .clone()
            .flat_map(|face| (0..face_rows).map(move |r| (face, r)));
        let mut datums = vec![0; s.faces.len() * face_rows * 16];
        for (out, (face, r)) in datums.chunks_exact_mut(16).zip(rows) {
            let cells = dst.row(first_row + 16 * face + r);
            let mask = job.edge.mask(packer, r);
            for (col, bits) in out.iter_mut().enumerate() {
                *bits = if mask & (1 << col) != 0 {
                    late(job, relu(job, early(job, &cells, col)))
                } else {
                    masked
                };
            }
        }
        let (data_bytes, exp_bytes) = job.stream_bytes(datums.len() as u64);
        let mut data = Vec::with_capacity(data_bytes as usize);
        if job.out.is_bfp() {
            let mut exps = Vec::with_capacity(exp_bytes as usize);
            for g in datums.as_chunks::<16>().0 {
                let (shared, mags) = bfp_group(job.out, g);
                exps.push(shared);
                write_bfp(job.out, &mags, &mut data);
            }
            pad16(&mut exps);
            out.push(Bytes {
                addr: s.exp_addr,
                bytes: exps,
            });
        } else {
            let bytes_per = (job.out.l1_bits() / 8) as usize;
            // Accumulating, the zero padding of a last partial 16 bytes goes
            // through the adder like a datum (PackerPipeline.lua).
            let lanes = if job.l1_acc {
                (datums.len() * bytes_per).div_ceil(16) * 16 / bytes_per
            } else {
                datums.len()
            };
            data.resize(lanes * bytes_per, 0);
            for (i, lane) in data.chunks_exact_mut(bytes_per).enumerate() {
                let v = datums.get(i).copied().unwrap_or(0);
                let v = if job.l1_acc {
                    let at = s.data_addr as usize + i * bytes_per;
                    let old = read_le(l1_before, at, bytes_per);
                    accumulate(job.out, old, v)
                } else {
                    v
                };
                lane.copy_from_slice(&v.to_le_bytes()[..bytes_per]);
            }
        }
        pad16(&mut data);
        out.push(Bytes {
            addr: s.data_addr,
            bytes: data,
        });
    }
    Ok(out)
}

/// `PACR.md`: on `Last`, a partly filled 16-byte buffer is written padded with
/// zeros.
fn pad16(v: &mut Vec<u8>) {
    let n = v.len().div_ceil(16) * 16;
    v.resize(n, 0);
}

fn read_le(l1: &[u8], at: usize, n: usize) -> u32 {
    (0..n).fold(0, |acc, k| {
        acc | u32::from(l1.get(at + k).copied().unwrap_or(0)) << (8 * k)
    })
}

/// One datum between the early and the late conversion, in the
/// intermediate format's own field order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Datum {
    /// FP32 or sign-magnitude INT32.
    Wide(u32),
    /// TF32 fields: sign 18, exponent 17:10, mantissa 9:0.
    Tf32(u32),
    /// BF16; E8M6 is BF16 whose last mantissa bit is zero.
    Bf16(u16),
    /// FP16; E5M6 is FP16 whose four low mantissa bits are zero.
    Fp16(u16),
    /// Opaque 16 bits.
    Int16(u16),
    /// Sign-magnitude INT8, or UINT8.
    Int8(u8),
}

/// Round a magnitude to `drop` fewer bits, ties away from zero: the packer's
/// deterministic rounding (`Packers/FormatConversion.md`). A carry runs into
/// the exponent field above, as it does for the value.
fn round_half_away(magnitude: u32, drop: u32) -> u32 {
    (magnitude + (1 << (drop - 1))) >> drop
}

/// The early format conversion (`Packers/FormatConversion.md`, "Early format
/// conversion"): the datum in column `col` of a `Dst` row into the
/// intermediate format.
fn early(job: &PackJob, dst: &ImageRow, col: usize) -> Datum {
    use Format as F;
    if job.dst.mode() == DstMode::Bits32 {
        let x = dst.read_32(col);
        match job.src {
            F::Fp32 | F::Int32 => Datum::Wide(x),
            // INT16 from a 32-bit Dst takes the top half of the storage
            // (ttsim; the documents mark this "No").
            F::Int16 => Datum::Int16((dst.storage32(col) >> 16) as u16),
            F::Bf16 => Datum::Bf16(fp32_round(x, 16) as u16),
            F::Bfp8 => Datum::Bf16((fp32_round(x, 17) << 1) as u16),
            F::Fp16 => Datum::Tf32(fp32_round(x, 13)),
            _ => Datum::Int8(int32_to_int8(x, job.unsigned)),
        }
    } else {
        match job.src {
            F::Bf16 => Datum::Bf16(bf16_round(dst.read_bf16(col))),
            F::Bfp8 => {
                let x = bf16_round(dst.read_bf16(col));
                let sign = x & 0x8000;
                Datum::Bf16(sign | (round_half_away(u32::from(x & 0x7fff), 1) << 1) as u16)
            }
            F::Fp16 if job.round_10b => Datum::Fp16(bf16_to_fp16(dst.read_bf16(col))),
            F::Fp16 => Datum::Fp16(fp16_flush(dst.read_fp16(col))),
            F::Bfp8a => Datum::Fp16(fp16_round_to_e5m6(dst.read_fp16(col))),
            _ => Datum::Int16(dst.storage16(col)),
        }
    }
}

/// −∞ in the job's intermediate format, the datum a masked position yields
/// with `PCK_EDGE_MODE_mode` (`EdgeMasking.md`). The 8-bit-exponent types
/// have an infinity: exponent 255, mantissa 0 (`FloatBitPatterns.md`). The
/// 5-bit-exponent types have none: `FloatBitPatterns.md` ("FP16", note ‡)
/// names exponent 31 with an all-ones mantissa as the pattern that stands
/// for ±∞ (what the matrix unit writes for magnitudes too large), and
/// `FormatConversion.md` saturates an infinity narrowed to five exponent
/// bits to that same largest pattern; E5M6 keeps only its six mantissa bits
/// of it. (IEEE's −∞ pattern, 0xFC00, is the number −2^16 on Tensix.) The
/// integer intermediates have no −∞ and are refused by [`PackJob::check`].
fn negative_infinity(job: &PackJob) -> Datum {
    use Format as F;
    let wide = job.dst.mode() == DstMode::Bits32;
    match job.src {
        F::Fp32 => Datum::Wide(0xff80_0000),
        F::Fp16 if wide => Datum::Tf32((1 << 18) | (0xff << 10)),
        F::Fp16 => Datum::Fp16(0xffff),
        F::Bfp8a => Datum::Fp16(0xfff0),
        F::Bf16 | F::Bfp8 => Datum::Bf16(0xff80),
        _ => Datum::Wide(0),
    }
}

/// FP32 rounded to `32 - drop` bits (BF16: 16, E8M6: 17, TF32: 13), as
/// "Rounding" does in the early conversion: NaN becomes infinity, the
/// magnitude rounds to nearest with ties away from zero, and a result below
/// the smallest normal (denormals, ±0) becomes +0. Returns sign and magnitude
/// in the narrower field order.
fn fp32_round(x: u32, drop: u32) -> u32 {
    let sign = x >> 31;
    let mut magnitude = x & 0x7fff_ffff;
    if magnitude > 0x7f80_0000 {
        magnitude = 0x7f80_0000;
    }
    let r = round_half_away(magnitude, drop);
    let smallest_normal = 0x0080_0000 >> drop;
    if r < smallest_normal {
        0
    } else {
        (sign << (31 - drop)) | r
    }
}

/// BF16 through the rounding early conversion at full width: NaN becomes
/// infinity, denormals and -0 become +0.
fn bf16_round(x: u16) -> u16 {
    let magnitude = x & 0x7fff;
    if magnitude > 0x7f80 {
        (x & 0x8000) | 0x7f80
    } else if magnitude < 0x80 {
        0
    } else {
        x
    }
}

/// FP16 through the rounding early conversion at full width: denormals and
/// -0 become +0 (FP16 on Tensix has no NaN; exponent 31 is a number,
/// `FloatBitPatterns.md`).
fn fp16_flush(x: u16) -> u16 {
    if x & 0x7fff < 0x400 {
        0
    } else {
        x
    }
}

/// FP16 rounded to E5M6 (ties away); a magnitude past the largest E5M6
/// saturates to it, and a result below the smallest normal becomes +0.
fn fp16_round_to_e5m6(x: u16) -> u16 {
    let sign = x & 0x8000;
    let r = (round_half_away(u32::from(x & 0x7fff), 4) << 4).min(0x7ff0);
    if r < 0x400 {
        0
    } else {
        sign | r as u16
    }
}

/// Blackhole: a BF16 `Dst16b` datum read as FP16 with `Round_10b_mant`
/// (ttsim; not in the documents' table): the FP16 exponent narrowing of
/// [`narrow_to_fp16`], under which the seven mantissa bits carry over
/// exactly.
fn bf16_to_fp16(x: u16) -> u16 {
    narrow_to_fp16(
        x & 0x8000 != 0,
        u32::from((x >> 7) & 0xff),
        u32::from(x & 0x7f) << 3,
    )
}

/// INT32 to INT8 with shift 0: saturate the sign-magnitude value to
/// [-127, 127], or for UINT8 to [0, 255] with negatives (and -0) to 0
/// (`FormatConversion.md`, "Shift then round then saturate").
fn int32_to_int8(x: u32, unsigned: bool) -> u8 {
    let negative = x & 0x8000_0000 != 0;
    let magnitude = x & 0x7fff_ffff;
    if unsigned {
        if negative {
            0
        } else {
            magnitude.min(255) as u8
        }
    } else {
        (u8::from(negative) << 7) | magnitude.min(127) as u8
    }
}

/// The ReLU stage (`Packers/ReLU.md`). The comparison is on the datum's bit
/// pattern as a sign-magnitude number, as ttsim does it, which differs from
/// the documents' float model only for NaN (ttsim clamps a NaN above the
/// threshold, and zeroes a NaN with the sign bit set; the float model keeps
/// both). An FP32 datum is compared with the BF16 threshold at full
/// precision (the page's `x > Threshold`; ttsim v1.10.0 clamps at TF32
/// precision, and the page outranks it). On Blackhole an FP16 intermediate
/// read from `Dst32b` is a TF32 datum, compared with the threshold taken as
/// BF16.
fn relu(job: &PackJob, d: Datum) -> Datum {
    let mode = job.relu.mode;
    if mode == 0 {
        return d;
    }
    let t = u32::from(job.relu.threshold);
    let apply = |v: u32, sign_bit: u32, thr: u32| -> u32 {
        if v & sign_bit != 0 || (mode == 2 && v <= thr) {
            0
        } else if mode == 3 && v > thr {
            thr
        } else {
            v
        }
    };
    match d {
        Datum::Bf16(v) => Datum::Bf16(apply(u32::from(v), 0x8000, t) as u16),
        Datum::Fp16(v) => Datum::Fp16(apply(u32::from(v), 0x8000, t) as u16),
        Datum::Tf32(v) => Datum::Tf32(apply(v, 1 << 18, t << 3)),
        Datum::Wide(v) if job.src == Format::Int32 => Datum::Wide(apply(v, 1 << 31, 0)),
        Datum::Wide(v) => Datum::Wide(apply(v, 1 << 31, t << 16)),
        other => other,
    }
}

/// The late format conversion (`Packers/FormatConversion.md`, "Late format
/// conversion") to the output format's bits; for BFP outputs, the BF16 datum
/// the block assembly starts from.
fn late(job: &PackJob, d: Datum) -> u32 {
    use Format as F;
    match (d, job.out) {
        (Datum::Fp16(v), F::Fp32) => fp16_to_fp32(v),
        (Datum::Fp16(v), F::Bf16 | F::Bfp8) => u32::from(fp16_to_bf16(v)),
        (Datum::Fp16(v), F::Fp8) => u32::from(fp16_to_e4m3(v)),
        (Datum::Fp16(v), F::Bfp8a | F::Bfp4a | F::Bfp2a) => u32::from(fp16_to_e5m7(v)),
        (Datum::Tf32(v), F::Fp16) => u32::from(tf32_to_fp16(v)),
        (Datum::Tf32(v), F::Fp8) => u32::from(fp16_to_e4m3(tf32_to_fp16(v))),
        (Datum::Wide(v), F::Fp16) => u32::from(fp32_to_fp16(v)),
        (Datum::Wide(v), F::Bfp8 | F::Bfp4 | F::Bfp2) => u32::from(fp32_to_bf16_truncated(v)),
        (Datum::Bf16(v), F::Fp32) => u32::from(v) << 16,
        (Datum::Wide(v) | Datum::Tf32(v), _) => v,
        (Datum::Bf16(v) | Datum::Fp16(v) | Datum::Int16(v), _) => u32::from(v),
        (Datum::Int8(v), _) => u32::from(v),
    }
}

/// FP16 widened to FP32: exact for every FP16 normal (exponent 31 included:
/// Tensix FP16 has no infinity or NaN encodings, `FloatBitPatterns.md`). A zero
/// exponent field keeps its mantissa bits with exponent 0, the documents'
/// "denormals mishandled" for a widening exponent.
fn fp16_to_fp32(v: u16) -> u32 {
    let sign = u32::from(v & 0x8000) << 16;
    let magnitude = u32::from(v & 0x7fff);
    if magnitude >= 0x400 {
        sign | ((magnitude + (112 << 10)) << 13)
    } else {
        sign | (magnitude << 13)
    }
}

/// FP16 (or E5M6) to BF16: the exponent widens, the mantissa is truncated to
/// seven bits; a zero exponent field (denormal, zero) gives +0.
///
/// For FP16 the mantissa narrows and `FormatConversion.md` flushes
/// denormals. For E5M6 it widens, and the page calls denormals "mishandled"
/// without saying how; one reaches here when ReLU mode 3 clamps to a
/// threshold that is an FP16 denormal. ttsim (`src/tensix.cpp`, PACR, the
/// BFP8a → BFP8 late conversion) gives +0, and so does this model.
fn fp16_to_bf16(v: u16) -> u16 {
    let e = (v >> 10) & 0x1f;
    if e == 0 {
        0
    } else {
        (v & 0x8000) | ((e + 112) << 7) | ((v & 0x3ff) >> 3)
    }
}

/// FP16 (or E5M6) to E5M7, the step before BFP8a assembly
/// (`FormatConversion.md`, "To BFP8a"): the exponent keeps its five bits, the
/// mantissa is truncated to seven (FP16) or widened (E5M6). An FP16 denormal
/// is flushed to zero (mantissa narrows, exponent same width: "Denormals
/// flushed to zero"); [`PackJob::check`] keeps E5M6 denormals away. Returned
/// in the BF16 field positions (sign 15, exponent 11:7, mantissa 6:0) the
/// block assembly reads, the exponent zero-extended to eight bits as the
/// exponent stream stores it (`FormatConversion.md`, "BFP8a / BFP4a / BFP2a").
fn fp16_to_e5m7(v: u16) -> u16 {
    let e = (v >> 10) & 0x1f;
    if e == 0 {
        0
    } else {
        (v & 0x8000) | (e << 7) | ((v & 0x3ff) >> 3)
    }
}

/// FP16 to FP8 E4M3 (Blackhole `Pac_LF8_4b_exp`, as ttsim models it):
/// magnitudes below 2^-6 become a signed zero, 2^9 and up saturate to the
/// largest pattern, the rest keep the top three mantissa bits.
fn fp16_to_e4m3(v: u16) -> u8 {
    let sign = ((v >> 8) & 0x80) as u8;
    let e = (v >> 10) & 0x1f;
    let m = (v & 0x3ff) >> 7;
    if e <= 8 {
        sign
    } else if e >= 24 {
        sign | 0x7f
    } else {
        sign | (((e - 8) as u8) << 3) | m as u8
    }
}

/// An exponent narrowing to FP16's five bits (`FormatConversion.md`, "Exponent
/// narrows"): magnitudes below 2^-15 become a signed zero, 2^-15 ≤ |x| < 2^-14
/// keeps exponent field 0 with the truncated mantissa (the documented
/// mishandling), 2^17 and up (infinity and NaN too) saturate to the largest
/// FP16 pattern, the rest truncate the mantissa.
fn narrow_to_fp16(sign: bool, exp8: u32, mantissa10: u32) -> u16 {
    let sign = if sign { 0x8000 } else { 0 };
    let e = exp8 as i32 - 112;
    if e < 0 {
        sign
    } else if e > 31 {
        sign | 0x7fff
    } else {
        sign | ((e as u16) << 10) | mantissa10 as u16
    }
}

fn tf32_to_fp16(v: u32) -> u16 {
    narrow_to_fp16(v & (1 << 18) != 0, (v >> 10) & 0xff, v & 0x3ff)
}

/// FP32 narrowed to FP16 as [`narrow_to_fp16`] says: the packer's late
/// conversion, and the unpacker's FP32 → FP16 (`Unpackers/FormatConversion.md`).
pub(super) fn fp32_to_fp16(v: u32) -> u16 {
    narrow_to_fp16(v >> 31 != 0, (v >> 23) & 0xff, (v >> 13) & 0x3ff)
}

/// FP32 to BF16 by truncation before BFP assembly; denormals (and -0) become
/// +0 (`FormatConversion.md`: mantissa narrows).
fn fp32_to_bf16_truncated(v: u32) -> u16 {
    let b = (v >> 16) as u16;
    if b & 0x7fff < 0x80 {
        0
    } else {
        b
    }
}

/// BFP assembly of one group of 16 BF16 datums (`FormatConversion.md` "To
/// BFP8", the reference README's device facts): the shared exponent is the
/// largest of the 16 exponent fields (255 counts as a number); each datum's
/// significand (hidden bit included) is scaled to the shared exponent and
/// rounded to 7 magnitude bits, ties away from zero, a carry to 128 clamping
/// to 127; BFP4 and BFP2 keep the top 3 or 1 bits of that. A zero magnitude
/// is written without its sign. Returns the exponent and the datums.
///
/// The "a" forms take E5M7 datums (see [`fp16_to_e5m7`]) through the same
/// steps with a 5-bit exponent: `FormatConversion.md` gives BFP8a the same
/// shape ("round to BFP8a with one shared 5b exponent per 16 datums", ties
/// away from zero, BFP4a/BFP2a truncated from it). The max-exponent rule, the
/// clamp of a carry to 127 and the unsigned zero are the device facts for
/// BFP8, carried over: no source says the 5-bit form differs, and a signed
/// zero magnitude would mean −2^16 in BFP8a (`FloatBitPatterns.md`).
fn bfp_group(out: Format, g: &[u32; 16]) -> (u8, [u8; 16]) {
    let exp = |p: u32| (p >> 7) & 0xff;
    let shared = g.iter().map(|&p| exp(p)).max().unwrap_or(0);
    let bits = out.l1_bits();
    let mags = g.map(|p| {
        let e = exp(p);
        let significand = (p & 0x7f) | if e != 0 { 0x80 } else { 0 };
        // Never below zero, `shared` being the largest `e`. Saturating, the
        // difference takes no overflow branch, which in a fuzz build (overflow
        // checks on) would keep the group's 16 datums from being vectorised.
        let shift = shared.saturating_sub(e);
        // value / 2^(shared - 133) = significand / 2^(shift + 1); below 1/2
        // once shift reaches 8.
        let m = if shift >= 8 {
            0
        } else {
            round_half_away(significand, shift + 1).min(127)
        };
        let m = m >> (8 - bits);
        let sign = if m != 0 && p & 0x8000 != 0 {
            1 << (bits - 1)
        } else {
            0
        };
        (sign | m) as u8
    });
    (shared as u8, mags)
}

/// Lay out one BFP group's datums: BFP4 puts datum `2k` in the low nibble of
/// byte `k`, BFP2 datum `4k + j` in bits `2j+1:2j` (`FormatConversion.md`:
/// two or four datums per byte).
fn write_bfp(out: Format, mags: &[u8; 16], data: &mut Vec<u8>) {
    match out.l1_bits() {
        8 => data.extend_from_slice(mags),
        4 => data.extend(mags.chunks(2).map(|p| p[0] | (p[1] << 4))),
        _ => data.extend(
            mags.chunks(4)
                .map(|p| p[0] | (p[1] << 2) | (p[2] << 4) | (p[3] << 6)),
        ),
    }
}

/// L1 accumulation (`Pack_L1_Acc`): the new datum added to what L1 holds, in
/// the output format. The documents give no arithmetic; this follows ttsim.
fn accumulate(out: Format, old: u32, new: u32) -> u32 {
    match out {
        Format::Fp32 => acc_fp32(old, new),
        Format::Bf16 => u32::from(acc_bf16(old as u16, new as u16)),
        _ => u32::from(acc_fp16(old as u16, new as u16)),
    }
}

/// FP32 sum with denormal inputs and results treated as (signed) zero, and
/// every NaN result replaced by the canonical quiet NaN.
fn acc_fp32(a: u32, b: u32) -> u32 {
    let daz = |x: u32| {
        if x & 0x7fff_ffff < 0x0080_0000 {
            x & 0x8000_0000
        } else {
            x
        }
    };
    let sum = (f32::from_bits(daz(a)) + f32::from_bits(daz(b))).to_bits();
    if sum & 0x7fff_ffff > 0x7f80_0000 {
        0x7fc0_0000
    } else {
        daz(sum)
    }
}

/// BF16 sum: ∞ + -∞ gives the canonical NaN; denormal inputs count as signed
/// zero; a NaN input counts as a very large number of its sign; the exact sum
/// rounds to nearest-even, with results below the smallest normal becoming a
/// signed zero and overflow going to infinity.
fn acc_bf16(a: u16, b: u16) -> u16 {
    if (a == 0x7f80 && b == 0xff80) || (a == 0xff80 && b == 0x7f80) {
        return 0x7fc0;
    }
    let value = |x: u16, nan: f64| -> f64 {
        let magnitude = x & 0x7fff;
        let negative = x & 0x8000 != 0;
        let v = if magnitude < 0x80 {
            0.0
        } else if magnitude > 0x7f80 {
            nan
        } else {
            f64::from(f32::from_bits(u32::from(magnitude) << 16))
        };
        if negative {
            -v
        } else {
            v
        }
    };
    // ttsim: a NaN in L1 counts as the largest double; a NaN arriving from
    // the packer as 2^128 scaled by its mantissa bits.
    const TWO_TO_128: f64 = f64::from_bits((1023 + 128) << 52);
    let big_new = TWO_TO_128 * (1.0 + f64::from(b & 0x7f) / 128.0);
    let sum = value(a, f64::MAX) + value(b, big_new);
    let sign = if sum.is_sign_negative() { 0x8000 } else { 0 };
    let bits = sum.abs().to_bits();
    let e = ((bits >> 52) & 0x7ff) as i64 - 1023 + 127;
    if e <= 0 {
        return sign;
    }
    if e >= 255 {
        return sign | 0x7f80;
    }
    let magnitude = ((e as u64) << 7) + round_half_even(bits & ((1 << 52) - 1), 52 - 7);
    sign | magnitude as u16
}

/// FP16 sum, computed in FP32: every nonzero exponent is a normal number (no
/// infinity), denormal inputs count as zero, and the result rounds to
/// nearest-even into FP16, saturating on overflow. ttsim models three
/// quirks: an exact cancellation gives a signed zero unless the L1 datum's
/// exponent field is 30 or 31 (then the largest magnitude), an underflow to
/// exponent field 0 gives a signed zero, and below that the largest magnitude.
fn acc_fp16(a: u16, b: u16) -> u16 {
    let widen = |x: u16| -> f32 {
        f32::from_bits(if x & 0x7fff >= 0x400 {
            fp16_to_fp32(x)
        } else {
            u32::from(x & 0x8000) << 16
        })
    };
    let sum = (widen(a) + widen(b)).to_bits();
    let sign = ((sum >> 16) & 0x8000) as u16;
    if sum & 0x7fff_ffff == 0 {
        return sign | if (a >> 10) & 0x1f >= 30 { 0x7fff } else { 0 };
    }
    let e = ((sum >> 23) & 0xff) as i32 - 112;
    if e <= 0 {
        return sign | if e < 0 { 0x7fff } else { 0 };
    }
    let packed = ((e as u64) << 10) + round_half_even(u64::from(sum & 0x7f_ffff), 23 - 10);
    sign | packed.min(0x7fff) as u16
}

/// A mantissa `m` with its `drop` low bits rounded off to nearest, ties to
/// even; a carry out of the kept bits is left for the exponent field above.
fn round_half_even(m: u64, drop: u32) -> u64 {
    let kept = m >> drop;
    let rest = m & ((1 << drop) - 1);
    let half = 1u64 << (drop - 1);
    kept + u64::from(rest > half || (rest == half && kept & 1 == 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp32_to_bf16_rounds_half_away_from_zero() {
        // Reference README: FP32 Dst → BF16 rounds half away from zero
        // (0x3F808000 → 0x3F81); NaN becomes infinity; -0 becomes +0.
        assert_eq!(fp32_round(0x3f80_8000, 16), 0x3f81);
        assert_eq!(fp32_round(0xbf80_8000, 16), 0xbf81);
        assert_eq!(fp32_round(0x3f80_7fff, 16), 0x3f80);
        assert_eq!(fp32_round(0x7fc0_0000, 16), 0x7f80);
        assert_eq!(fp32_round(0xffc0_0001, 16), 0xff80);
        assert_eq!(fp32_round(0x8000_0000, 16), 0);
        assert_eq!(fp32_round(0x0000_0001, 16), 0);
    }

    #[test]
    fn bfp8_rounds_ties_away_and_clamps_the_carry() {
        // Reference README, "BFP pack (device)". Shared exponent 127 from 1.0
        // (0x3f80): 1.0 → magnitude 64; 0x3fff (1.9921875, significand 255)
        // rounds 127.5 away to 128, which clamps to 127.
        let mut g = [0u32; 16];
        g[0] = 0x3f80;
        g[1] = 0x3fff;
        g[2] = 0xbf00; // -0.5: significand 128 at shift 1 → 32, signed
        g[3] = 0x3b80; // 2^-8: shift 8 → 0
        g[4] = 0x3bff; // just below 2^-7: shift 8 → 0
        g[5] = 0x3c40; // 0.01171875 = 2^-7 * 1.5: 192 / 2^8 = 0.75 → 1
        let (shared, m) = bfp_group(Format::Bfp8, &g);
        assert_eq!(shared, 127);
        assert_eq!(&m[..6], &[64, 127, 0x80 | 32, 0, 0, 1]);
        // BFP4 truncates the BFP8 magnitude: 64 >> 4 = 4, 127 >> 4 = 7.
        let (_, m4) = bfp_group(Format::Bfp4, &g);
        assert_eq!(&m4[..3], &[4, 7, 0x8 | 2]);
        // A zero magnitude carries no sign (-inf on unpack otherwise).
        g[6] = 0xbb80;
        let (_, m) = bfp_group(Format::Bfp8, &g);
        assert_eq!(m[6], 0);
    }

    #[test]
    fn fp16_late_conversions_follow_the_documented_ranges() {
        // FormatConversion.md, "Exponent narrows": |x| < 2^-15 → 0; 2^-15
        // itself (exponent 112, mantissa 0) is zero too.
        assert_eq!(fp32_to_fp16(0x3800_0000), 0); // 2^-15
        assert_eq!(fp32_to_fp16(0xb780_0000), 0x8000); // -2^-16
        assert_eq!(fp32_to_fp16(0x3f80_0000), 0x3c00); // 1.0
        assert_eq!(fp32_to_fp16(0x7f80_0000), 0x7fff); // inf saturates
        assert_eq!(fp16_to_fp32(0x3c00), 0x3f80_0000);
        assert_eq!(fp16_to_fp32(0x7fff), 0x47ff_e000); // exponent 31 is a number
        assert_eq!(fp16_to_bf16(0x3e00), 0x3fc0); // 1.5
        assert_eq!(fp16_to_bf16(0x03ff), 0); // denormal flushed
    }

    #[test]
    fn l1_accumulation_adds_values() {
        assert_eq!(acc_fp32(0x3f80_0000, 0x4000_0000), 0x4040_0000); // 1 + 2 = 3
        assert_eq!(acc_fp32(0x7f80_0000, 0xff80_0000), 0x7fc0_0000);
        assert_eq!(acc_bf16(0x3f80, 0x4000), 0x4040);
        assert_eq!(acc_bf16(0x7f80, 0xff80), 0x7fc0);
        assert_eq!(acc_fp16(0x3c00, 0x4000), 0x4200); // 1 + 2 = 3
                                                      // Exact ties round to even: 1 + 2^-8 is halfway between BF16 1.0
                                                      // and its successor (keeps 1.0); the successor plus 2^-8 goes up.
        assert_eq!(acc_bf16(0x3f80, 0x3b80), 0x3f80);
        assert_eq!(acc_bf16(0x3f81, 0x3b80), 0x3f82);
        // Likewise 2^-11 (FP16 0x1000) added to 1.0 and to its successor.
        assert_eq!(acc_fp16(0x3c00, 0x1000), 0x3c00);
        assert_eq!(acc_fp16(0x3c01, 0x1000), 0x3c02);
    }

    #[test]
    fn l1_accumulation_counts_a_packed_nan_as_two_to_the_128_scaled() {
        // ttsim: a BF16 NaN from the packer is 2^128 * (1 + mantissa/128).
        // 0x7fc0 is 2^128 * 1.5: beyond BF16's range, so infinity.
        assert_eq!(acc_bf16(0, 0x7fc0), 0x7f80);
        // Less 2^127 * 1.5 (0xff40) leaves 2^127 * 1.5, which BF16 holds.
        assert_eq!(acc_bf16(0xff40, 0x7fc0), 0x7f40);
        assert_eq!(acc_bf16(0x7f40, 0xffc0), 0xff40);
    }
}
