//! Tile jobs and their data: an arbitrary pack or unpack job the golden model
//! covers, programmed the tt-llk way, with `Dst` rows or L1 bytes that lean
//! on edge cases.

use super::{draw, values};
use crate::golden::{Edge, Format, PackJob, Relu, UnpackJob, UnpackTarget};
use crate::llk::{self, PackForm};
use crate::vector::{self, Arch, DstFormat, DstRow, L1Range, SrcRow, Vector};
use arbitrary::{Arbitrary, Result, Unstructured};

/// The (Dst view, intermediate, output, Round_10b_mant, Blackhole only)
/// combinations the golden model covers, as tt-llk sets them up.
pub const PACK_COMBOS: &[(DstFormat, Format, Format, bool, bool)] = &[
    (DstFormat::Fp16, Format::Fp16, Format::Fp32, false, false),
    (DstFormat::Fp16, Format::Fp16, Format::Fp16, false, false),
    (DstFormat::Fp16, Format::Fp16, Format::Bf16, false, false),
    (DstFormat::Fp16, Format::Fp16, Format::Fp8, false, true),
    (DstFormat::Bf16, Format::Fp16, Format::Fp8, true, true),
    (DstFormat::Fp16, Format::Bfp8a, Format::Bfp8, false, false),
    (DstFormat::Fp16, Format::Fp16, Format::Bfp8a, false, false),
    (DstFormat::Fp16, Format::Fp16, Format::Bfp4a, false, false),
    (DstFormat::Fp16, Format::Fp16, Format::Bfp2a, false, false),
    (DstFormat::Fp16, Format::Bfp8a, Format::Bfp8a, false, false),
    (DstFormat::Fp16, Format::Bfp8a, Format::Bfp4a, false, false),
    (DstFormat::Fp16, Format::Bfp8a, Format::Bfp2a, false, false),
    (DstFormat::Bf16, Format::Bf16, Format::Fp32, false, false),
    (DstFormat::Bf16, Format::Bf16, Format::Bf16, false, false),
    (DstFormat::Bf16, Format::Bf16, Format::Bfp8, false, false),
    (DstFormat::Bf16, Format::Bf16, Format::Bfp4, false, false),
    (DstFormat::Bf16, Format::Bf16, Format::Bfp2, false, false),
    (DstFormat::Bf16, Format::Bfp8, Format::Fp32, false, false),
    (DstFormat::Bf16, Format::Bfp8, Format::Bf16, false, false),
    (DstFormat::Bf16, Format::Bfp8, Format::Bfp8, false, false),
    (DstFormat::Bf16, Format::Bfp8, Format::Bfp4, false, false),
    (DstFormat::Bf16, Format::Int16, Format::Int16, false, false),
    (DstFormat::Fp32, Format::Fp32, Format::Fp32, false, false),
    (DstFormat::Fp32, Format::Fp32, Format::Fp16, false, false),
    (DstFormat::Fp32, Format::Fp32, Format::Bfp8, false, false),
    (DstFormat::Fp32, Format::Fp32, Format::Bfp4, false, false),
    (DstFormat::Fp32, Format::Fp32, Format::Bfp2, false, false),
    (DstFormat::Fp32, Format::Fp16, Format::Fp16, true, true),
    (DstFormat::Fp32, Format::Fp16, Format::Fp8, true, true),
    (DstFormat::Fp32, Format::Bf16, Format::Bf16, false, false),
    (DstFormat::Fp32, Format::Bfp8, Format::Bfp8, false, false),
    (DstFormat::Fp32, Format::Bfp8, Format::Bfp4, false, false),
    (DstFormat::Int32, Format::Int32, Format::Int32, false, false),
    (DstFormat::Int32, Format::Int16, Format::Int16, false, false),
    (DstFormat::Int32, Format::Int8, Format::Int8, false, false),
];

/// (input in L1, register format, target) combinations of the unpack model.
pub const UNPACK_COMBOS: &[(Format, Format, UnpackTarget)] = &[
    (Format::Fp32, Format::Fp32, UnpackTarget::Dst),
    (Format::Fp32, Format::Tf32, UnpackTarget::Dst),
    (Format::Int32, Format::Int32, UnpackTarget::Dst),
    (Format::Fp32, Format::Tf32, UnpackTarget::SrcA),
    (Format::Fp32, Format::Bf16, UnpackTarget::SrcA),
    (Format::Fp32, Format::Fp16, UnpackTarget::SrcA),
    (Format::Bfp8, Format::Bfp8, UnpackTarget::SrcA),
    (Format::Bfp4, Format::Bfp4, UnpackTarget::SrcA),
    (Format::Bfp2, Format::Bfp2, UnpackTarget::SrcA),
    (Format::Bfp8a, Format::Bfp8a, UnpackTarget::SrcA),
    (Format::Bfp4a, Format::Bfp4a, UnpackTarget::SrcA),
    (Format::Bfp2a, Format::Bfp2a, UnpackTarget::SrcA),
    (Format::Fp16, Format::Fp16, UnpackTarget::SrcA),
    (Format::Bf16, Format::Bf16, UnpackTarget::SrcA),
    (Format::Int16, Format::Int16, UnpackTarget::SrcA),
    (Format::Fp8, Format::Fp8, UnpackTarget::SrcA),
    (Format::Int8, Format::Int8, UnpackTarget::SrcA),
];

/// Wormhole B0 only: float inputs through `Unpack_if_sel` into `Dst16b`
/// (`UNPACR_Regular.md`; the Blackhole model keeps to the combinations ttsim
/// anchors).
pub const UNPACK_COMBOS_WH_DST16: &[(Format, Format, UnpackTarget)] = &[
    (Format::Fp32, Format::Bf16, UnpackTarget::Dst),
    (Format::Fp32, Format::Fp16, UnpackTarget::Dst),
    (Format::Bfp8, Format::Bfp8, UnpackTarget::Dst),
    (Format::Bfp4, Format::Bfp4, UnpackTarget::Dst),
    (Format::Bfp2, Format::Bfp2, UnpackTarget::Dst),
    (Format::Bfp8a, Format::Bfp8a, UnpackTarget::Dst),
    (Format::Bfp4a, Format::Bfp4a, UnpackTarget::Dst),
    (Format::Bfp2a, Format::Bfp2a, UnpackTarget::Dst),
    (Format::Fp16, Format::Fp16, UnpackTarget::Dst),
    (Format::Bf16, Format::Bf16, UnpackTarget::Dst),
    (Format::Fp8, Format::Fp8, UnpackTarget::Dst),
];

/// The L1 fill byte: zero most of the time (a fresh L1 needs no writing,
/// which keeps a fuzz iteration cheap), otherwise a canary.
pub fn canary(u: &mut Unstructured<'_>) -> Result<u8> {
    if u.ratio(7, 8)? {
        Ok(0)
    } else {
        u.arbitrary()
    }
}

/// A shared exponent for a BFP tile in `format`. The "a" forms use five
/// bits and expect the top three to be zero (`FloatBitPatterns.md`, "BFP"),
/// and unpacking a small magnitude needs room below the exponent (BFP8aToFP16
/// lowers it by up to 6): so their exponents run from 6 to 31, except in
/// `wild` tiles, where any five bits or a full byte may appear, and with
/// them undefined results.
fn shared_exp(u: &mut Unstructured<'_>, format: Format, wild: bool) -> Result<u8> {
    let e = values::shared_exp(u)?;
    if !format.is_a_form() {
        return Ok(e);
    }
    Ok(match (wild, u.int_in_range(0..=3u8)?) {
        (true, 0) => e,
        (true, 1) => e & 0x1f,
        _ => 6 + e % 26,
    })
}

fn faces(u: &mut Unstructured<'_>) -> Result<u8> {
    Ok(*u.choose(&[1u8, 2, 4])?)
}

fn face_rows(u: &mut Unstructured<'_>) -> Result<u8> {
    Ok(*u.choose(&[1u8, 2, 4, 8, 16])?)
}

/// A 16-byte aligned tile address with `bytes` of room after it, sometimes
/// right at the end of L1.
fn l1_addr(u: &mut Unstructured<'_>, arch: Arch, bytes: u64) -> Result<u32> {
    let size = arch.l1_size() as u64;
    let top = (size.saturating_sub(bytes) / 16).max(2) - 1;
    let unit = if u.ratio(1, 8)? {
        top
    } else {
        u.int_in_range(1..=top)?
    };
    Ok((unit * 16) as u32)
}

/// A ReLU setting the job's intermediate format allows.
fn relu(u: &mut Unstructured<'_>, src: Format) -> Result<Relu> {
    let max_mode = match src {
        Format::Int16 | Format::Int8 => 0,
        Format::Int32 => 1,
        _ => 3,
    };
    let mode = u.int_in_range(0..=max_mode)?;
    let edges = if src.is_a_form() {
        values::FP16_EDGES
    } else {
        values::BF16_EDGES
    };
    let threshold = match u.int_in_range(0..=31u8)? {
        // Rarely with the sign bit: undefined for the threshold modes.
        0 => u.arbitrary()?,
        1..=12 => *u.choose(edges)? & 0x7fff,
        _ => u.arbitrary::<u16>()? & 0x7fff,
    };
    Ok(Relu { mode, threshold })
}

/// An edge mask; with a float intermediate format, sometimes filling with −∞
/// (integer intermediates have no −∞, `EdgeMasking.md`).
fn edge(u: &mut Unstructured<'_>, arch: Arch, src: Format) -> Result<Edge> {
    if u.ratio(1, 2)? {
        return Ok(Edge::NONE);
    }
    let neg_inf = !matches!(src, Format::Int32 | Format::Int16 | Format::Int8) && u.ratio(1, 3)?;
    let mut masks = [0u16; 4];
    for m in &mut masks {
        *m = *u.choose(&[0xffffu16, 0, 1, 0x8000, 0x00ff])?;
        if u.ratio(1, 4)? {
            *m = u.arbitrary()?;
        }
    }
    let mut row_sets = [0u32; 4];
    for r in &mut row_sets {
        *r = if u.ratio(1, 2)? {
            u.arbitrary::<u32>()? & 0x5555_5555
        } else {
            u.arbitrary()?
        };
    }
    let select = match arch {
        Arch::Blackhole => u.int_in_range(0..=3)?,
        Arch::WormholeB0 => u.arbitrary()?,
    };
    Ok(Edge {
        neg_inf,
        masks,
        row_sets,
        select,
    })
}

impl<'a> Arbitrary<'a> for PackJobSpec {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let arch = if u.ratio(1, 5)? {
            Arch::WormholeB0
        } else {
            Arch::Blackhole
        };
        // `choose` over the combinations the architecture has, without
        // collecting them.
        let combos = || {
            PACK_COMBOS
                .iter()
                .filter(move |c| arch == Arch::Blackhole || !c.4)
        };
        let at = u.choose_index(combos().count())?;
        let &(dst, src, out, round_10b, _) =
            combos().nth(at).ok_or(arbitrary::Error::EmptyChoose)?;
        let faces = faces(u)?;
        let face_rows = face_rows(u)?;
        let view_rows = usize::from(dst.mode().rows());
        let span = 16 * (usize::from(faces) - 1) + usize::from(face_rows);
        let tile = u.int_in_range(0..=(view_rows / 64 - 1) as u16)?;
        let room = view_rows.saturating_sub(usize::from(tile) * 64 + span);
        let mut dst_offset = if u.ratio(1, 2)? {
            0
        } else {
            u.int_in_range(0..=room.min(200) as u16)?
        };
        if arch == Arch::Blackhole && face_rows >= 2 && u.ratio(7, 8)? {
            dst_offset &= !3;
        }
        let mut job = PackJob {
            arch,
            dst,
            src,
            out,
            unsigned: src == Format::Int8 && u.arbitrary()?,
            fp8_e4m3: out == Format::Fp8,
            read_raw: matches!(src, Format::Fp32 | Format::Int32 | Format::Int16)
                && u.ratio(1, 4)?,
            round_10b,
            relu: relu(u, src)?,
            edge: edge(u, arch, src)?,
            faces,
            face_rows,
            tile,
            dst_offset,
            l1_addr: 16,
            l1_acc: matches!(out, Format::Fp32 | Format::Fp16 | Format::Bf16) && u.ratio(1, 6)?,
        };
        let (lo, hi) = job.window();
        job.l1_addr = l1_addr(u, arch, hi - lo)?;
        let form = if arch == Arch::Blackhole && u.arbitrary()? {
            PackForm::Mop
        } else {
            PackForm::Instructions
        };
        Ok(PackJobSpec { job, form })
    }
}

/// A pack job and how its PACRs are issued.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackJobSpec {
    pub job: PackJob,
    pub form: PackForm,
}

/// A pack tile job with its data: the `differential` input of
/// `pack_tile_diff`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackTileCase {
    pub job: PackJob,
    pub form: PackForm,
    /// `Dst` rows in the job's view: the tile's rows and one on each side.
    pub dst: Vec<DstRow>,
    /// L1 contents under the tile (what L1 accumulation adds to, or a
    /// canary the padding must overwrite); the rest of L1 is zero.
    pub l1: Vec<L1Range>,
}

/// One row of values in `view`, leaning on edge cases.
pub fn dst_row(u: &mut Unstructured<'_>, view: DstFormat) -> Result<[u32; 16]> {
    Ok(match view {
        DstFormat::Bf16 => values::bf16_row(u)?.map(u32::from),
        DstFormat::Fp16 => values::fp16_row(u)?.map(u32::from),
        DstFormat::Raw16 => draw::with(u, |d| std::array::from_fn(|_| u32::from(d.u16()))),
        DstFormat::Fp32 | DstFormat::Raw32 => values::fp32_row(u)?,
        DstFormat::Int32 => values::int32_row(u)?,
    })
}

/// Rows drawn one after another with [`dst_row`]. An exhausted
/// [`Unstructured`] yields the same values every time and stays exhausted,
/// so every row drawn from it is the same: that row is drawn once and
/// repeated. (Fuzz inputs are mostly far shorter than a tile's data.)
pub struct DstRows {
    view: DstFormat,
    exhausted: Option<[u32; 16]>,
}

impl DstRows {
    pub fn new(view: DstFormat) -> DstRows {
        DstRows {
            view,
            exhausted: None,
        }
    }

    /// The next row: what [`dst_row`] draws from `u`.
    pub fn next(&mut self, u: &mut Unstructured<'_>) -> Result<[u32; 16]> {
        if !u.is_empty() {
            return dst_row(u, self.view);
        }
        if let Some(r) = self.exhausted {
            return Ok(r);
        }
        let r = dst_row(u, self.view)?;
        self.exhausted = Some(r);
        Ok(r)
    }
}

/// Little-endian bytes of `n` datums of `format` leaning on edge cases,
/// drawn a row of 16 values (or 16 bytes, for formats of 8 bits or fewer) at
/// a time. Once `u` is exhausted every row drawn is the same (as for
/// [`DstRows`]), so the first such row is repeated.
fn datum_bytes(u: &mut Unstructured<'_>, format: Format, n: usize) -> Result<Vec<u8>> {
    let len = n * format.l1_bits() as usize / 8;
    let mut out = Vec::with_capacity(len + 64);
    while out.len() < len {
        if u.is_empty() {
            let start = out.len();
            datum_row(u, format, &mut out)?;
            let row = start..out.len();
            while out.len() < len {
                out.extend_from_within(row.clone());
            }
            break;
        }
        datum_row(u, format, &mut out)?;
    }
    out.truncate(len);
    Ok(out)
}

/// One row of [`datum_bytes`]: 16 values, or 16 bytes for formats of 8 bits
/// or fewer, appended to `out`.
fn datum_row(u: &mut Unstructured<'_>, format: Format, out: &mut Vec<u8>) -> Result<()> {
    match format {
        Format::Fp32 | Format::Tf32 => {
            out.extend(values::fp32_row(u)?.map(u32::to_le_bytes).as_flattened())
        }
        Format::Int32 => out.extend(values::int32_row(u)?.map(u32::to_le_bytes).as_flattened()),
        Format::Bf16 | Format::Int16 => {
            out.extend(values::bf16_row(u)?.map(u16::to_le_bytes).as_flattened())
        }
        Format::Fp16 => out.extend(values::fp16_row(u)?.map(u16::to_le_bytes).as_flattened()),
        _ => out.extend(values::byte_row(u)?),
    }
    Ok(())
}

impl<'a> Arbitrary<'a> for PackTileCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let PackJobSpec { job, form } = u.arbitrary()?;
        PackTileCase::with_data(job, form, u)
    }
}

impl PackTileCase {
    /// `job`, issued as `form`, with its Dst rows (and L1 under the tile)
    /// drawn from `u`.
    pub fn with_data(job: PackJob, form: PackForm, u: &mut Unstructured<'_>) -> Result<Self> {
        let fill = canary(u)?;
        let first = job.first_row();
        let end = (first + 16 * usize::from(job.faces) + 1).min(usize::from(job.dst.mode().rows()));
        let drawn = first.saturating_sub(1)..end;
        let mut dst = Vec::with_capacity(drawn.len());
        let mut rows = DstRows::new(job.dst);
        for row in drawn {
            dst.push(DstRow {
                row: row as u16,
                cells: rows.next(u)?,
            });
        }
        let mut l1 = Vec::new();
        if !job.l1_acc && fill != 0 {
            // A canary under the tile: padding the packer must write as
            // zeros shows up. (Filling all of L1 would cost a fuzz iteration
            // more than the pack itself.)
            let (lo, hi) = job.window();
            l1.push(L1Range {
                addr: lo as u32,
                bytes: vec![fill; (hi - lo) as usize],
            });
        }
        if job.l1_acc {
            for s in job.streams() {
                let datums = s.faces.len() * usize::from(job.face_rows) * 16;
                l1.push(L1Range {
                    addr: s.data_addr,
                    bytes: datum_bytes(u, job.out, datums)?,
                });
            }
        }
        Ok(PackTileCase { job, form, dst, l1 })
    }
}

impl PackTileCase {
    /// The vector that runs this job (no `expect` yet), tagged as the ttsim
    /// vectors are ([`pack_tags`]).
    pub fn vector(&self, name: &str) -> Vector {
        let mut v = self.untagged_vector(name);
        v.tags = pack_tags(&self.job);
        v
    }

    /// [`PackTileCase::vector`] without its tags: what an oracle runs, once
    /// an execution, where tags are never read.
    pub fn untagged_vector(&self, name: &str) -> Vector {
        let p = llk::pack(&self.job, self.form);
        llk::vector(
            self.job.arch,
            name,
            p,
            self.l1.clone(),
            Some(vector::Dst {
                format: self.job.dst,
                rows: self.dst.clone(),
            }),
        )
    }
}

/// Tags naming a pack job the way the ttsim vectors' tags do.
pub fn pack_tags(job: &PackJob) -> Vec<String> {
    let mut t = vec![
        "pack".to_string(),
        job.arch.name().to_string(),
        format!("dst{}", job.dst.mode()),
        format!("dst-{}", job.dst.name()),
        job.src.name().to_string(),
        job.out.name().to_string(),
        format!("face-r-dim-{}", job.face_rows),
        format!("num-faces-{}", job.faces),
    ];
    if job.relu.mode != 0 {
        t.push(
            ["", "relu-zero", "relu-min-threshold", "relu-max-threshold"]
                [usize::from(job.relu.mode & 3)]
            .to_string(),
        );
    }
    if job.edge != Edge::NONE {
        t.push("edge-mask".into());
    }
    if job.edge.neg_inf {
        t.push("edge-mask-neg-inf".into());
    }
    if job.l1_acc {
        t.push("l1-acc".into());
    }
    t.dedup();
    t
}

/// An unpack tile job with its L1 tile: the input of `unpack_tile_diff`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnpackTileCase {
    pub job: UnpackJob,
    /// The tile's bytes, from `job.l1_addr`; the rest of L1 is zero.
    pub tile: Vec<u8>,
    /// What the target register held before (rows of bank 0, or Dst rows).
    pub before: Vec<SrcRow>,
    pub dst_before: Vec<DstRow>,
}

impl<'a> Arbitrary<'a> for UnpackJob {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        // A third of the jobs on Wormhole B0, the rest on Blackhole.
        let arch = if u.ratio(1, 3)? {
            Arch::WormholeB0
        } else {
            Arch::Blackhole
        };
        let wh_dst: &[_] = match arch {
            Arch::WormholeB0 => UNPACK_COMBOS_WH_DST16,
            Arch::Blackhole => &[],
        };
        let pick = u.choose_index(UNPACK_COMBOS.len() + wh_dst.len())?;
        let (input, out, mut target) = UNPACK_COMBOS
            .get(pick)
            .or_else(|| wh_dst.get(pick - UNPACK_COMBOS.len()))
            .copied()
            .unwrap_or(UNPACK_COMBOS[0]);
        if target == UnpackTarget::SrcA && u.arbitrary()? {
            target = UnpackTarget::SrcB;
        }
        let faces = faces(u)?;
        let face_rows = face_rows(u)?;
        let haloize = target == UnpackTarget::SrcA && u.ratio(1, 5)? && {
            let face_bits = usize::from(face_rows) * 16 * input.l1_bits() as usize;
            faces == 1 || face_bits.is_multiple_of(128)
        };
        let mut job = UnpackJob {
            arch,
            target,
            input,
            out,
            // Wormhole B0 has no `Unp_LF8_4b_exp`: its FP8 is E5M2 only.
            fp8_e4m3: arch == Arch::Blackhole && input == Format::Fp8 && u.arbitrary()?,
            unsigned: input == Format::Int8 && u.arbitrary()?,
            forced_exp: if input.is_bfp() && u.ratio(1, 5)? {
                let wild = u.ratio(1, 8)?;
                Some(shared_exp(u, input, wild)?)
            } else {
                None
            },
            haloize,
            faces,
            face_rows,
            tile: if target == UnpackTarget::Dst {
                u.int_in_range(0..=(8 - u16::from(faces).div_ceil(4)))?
            } else {
                0
            },
            l1_addr: 16,
        };
        let (lo, hi) = job.window();
        job.l1_addr = l1_addr(u, arch, hi - lo)?;
        Ok(job)
    }
}

impl<'a> Arbitrary<'a> for UnpackTileCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let job: UnpackJob = u.arbitrary()?;
        UnpackTileCase::with_data(job, u)
    }
}

impl UnpackTileCase {
    /// `job` with its tile bytes (and what the registers held before) drawn
    /// from `u`.
    pub fn with_data(job: UnpackJob, u: &mut Unstructured<'_>) -> Result<Self> {
        let mut tile = Vec::new();
        if job.input.is_bfp() && job.forced_exp.is_none() {
            let exps = (job.datums() / 16).div_ceil(16) * 16;
            let wild = u.ratio(1, 8)?;
            for _ in 0..exps {
                tile.push(shared_exp(u, job.input, wild)?);
            }
        }
        tile.extend(datum_bytes(u, job.input, job.datums())?);
        let mut before = Vec::new();
        let mut dst_before = Vec::new();
        if u.ratio(1, 3)? {
            let cell: u32 = u.arbitrary::<u32>()? & 0x7_ffff;
            // A 16-bit Dst view holds 16 bits a cell.
            let dst_cell = if job.dst_view().mode() == vector::DstMode::Bits16 {
                cell & 0xffff
            } else {
                cell
            };
            for row in 0..64u8 {
                before.push(SrcRow {
                    bank: 0,
                    row,
                    cells: [cell; 16],
                });
            }
            if job.target == UnpackTarget::Dst {
                let first = usize::from(job.tile) * 64;
                for row in first..first + 16 * usize::from(job.faces) {
                    dst_before.push(DstRow {
                        row: row as u16,
                        cells: [dst_cell; 16],
                    });
                }
            }
        }
        Ok(UnpackTileCase {
            job,
            tile,
            before,
            dst_before,
        })
    }
}

impl UnpackTileCase {
    /// The vector that runs this job (no `expect` yet), tagged by its
    /// target, input format and shape.
    pub fn vector(&self, name: &str) -> Vector {
        let mut v = self.untagged_vector(name);
        v.tags = vec![
            "unpack".into(),
            self.job.arch.name().into(),
            match self.job.target {
                UnpackTarget::SrcA => "to-srca",
                UnpackTarget::SrcB => "to-srcb",
                UnpackTarget::Dst => "to-dst",
            }
            .into(),
            self.job.input.name().into(),
            format!("face-r-dim-{}", self.job.face_rows),
            format!("num-faces-{}", self.job.faces),
        ];
        v
    }

    /// [`UnpackTileCase::vector`] without its tags, as
    /// [`PackTileCase::untagged_vector`].
    pub fn untagged_vector(&self, name: &str) -> Vector {
        let p = llk::unpack(&self.job);
        let dst = (!self.dst_before.is_empty()).then(|| vector::Dst {
            format: self.job.dst_view(),
            rows: self.dst_before.clone(),
        });
        let mut v = llk::vector(
            self.job.arch,
            name,
            p,
            vec![L1Range {
                addr: self.job.l1_addr,
                bytes: self.tile.clone(),
            }],
            dst,
        );
        match self.job.target {
            UnpackTarget::SrcB => v.setup.srcb = self.before.clone(),
            _ => v.setup.srca = self.before.clone(),
        }
        v
    }
}

/// A pack followed by an unpack of what it wrote: the input of `roundtrip`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundTripCase {
    pub pack: PackTileCase,
    /// Unpack into SrcB rather than SrcA (or Dst, for 32-bit outputs when set).
    pub other_unpacker: bool,
}

impl<'a> Arbitrary<'a> for RoundTripCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        // The choices come first: a large tile can use up a short input,
        // and what is drawn after it then reads as zeros.
        let wormhole: bool = u.arbitrary()?;
        let other_unpacker: bool = u.arbitrary()?;
        let mut pack: PackTileCase = u.arbitrary()?;
        // Half the round trips run on Wormhole B0 and half on Blackhole (the
        // unpack model covers both); the combinations only Blackhole packs
        // (FP8 E4M3 output, `Pac_LF8_4b_exp`; an FP16 intermediate read from
        // `Dst32b`)
        // stay on Blackhole. No ReLU, edge masking or L1 accumulation (or
        // the canary under the tile).
        let j = &pack.job;
        let blackhole_only = PACK_COMBOS
            .iter()
            .any(|c| (c.0, c.1, c.2, c.3, c.4) == (j.dst, j.src, j.out, j.round_10b, true));
        let arch = if wormhole && !blackhole_only {
            Arch::WormholeB0
        } else {
            Arch::Blackhole
        };
        pack.job.arch = arch;
        if arch == Arch::WormholeB0 {
            // The Wormhole B0 program issues one PACR for all four packers.
            pack.form = PackForm::Instructions;
        }
        pack.job.relu = Relu::NONE;
        pack.job.edge = Edge::NONE;
        pack.job.l1_acc = false;
        pack.l1.clear();
        pack.job.dst_offset &= !3;
        // The unpacker reads one tile descriptor's worth: an exponent
        // section of one byte per 16 datums padded to 16 bytes, then every
        // face's datums back to back (`UNPACR_Regular.md`). The packers
        // write an exponent section of one 16-byte unit per face (tt-llk's
        // `Exp_section_size`); on Wormhole B0 each face is a packer of its
        // own whose exponent stream starts at a 16-byte unit of that section
        // and whose data stream starts on a 16-byte boundary and is padded
        // with zeros to one at its end (`Packers/OutputAddressGenerator.md`,
        // "Output alignment"). The two views agree for a single face, or for
        // whole faces of BFP: 16 exponents fill a face's unit, and a face of
        // 256 datums of 2, 4 or 8 bits fills whole 16-byte units. (Faces of
        // INT8, 16-bit or 32-bit datums always fill whole units, and have no
        // exponent section.)
        if pack.job.out.is_bfp() && pack.job.faces > 1 {
            pack.job.face_rows = 16;
            let rows = usize::from(pack.job.dst.mode().rows());
            let old_first = pack.job.first_row();
            if old_first + 16 * usize::from(pack.job.faces) > rows {
                // The taller tile no longer fits: move it, and its data, to
                // the start of Dst.
                pack.job.tile = 0;
                pack.job.dst_offset = 0;
                pack.dst.retain(|d| usize::from(d.row) >= old_first);
                for d in &mut pack.dst {
                    d.row -= old_first as u16;
                }
            }
        }
        // The tile was placed for the architecture the pack generator drew;
        // keep it inside this one's L1.
        let (_, end) = pack.job.window();
        let size = arch.l1_size() as u64;
        if end > size {
            pack.job.l1_addr -= ((end - size).div_ceil(16) * 16) as u32;
        }
        Ok(RoundTripCase {
            pack,
            other_unpacker,
        })
    }
}

impl RoundTripCase {
    /// The unpack that reads the packed tile back.
    pub fn unpack_job(&self) -> Option<UnpackJob> {
        let j = &self.pack.job;
        let (input, out, target) = match j.out {
            Format::Fp32 if self.other_unpacker => (Format::Fp32, Format::Fp32, UnpackTarget::Dst),
            Format::Fp32 => (Format::Fp32, Format::Tf32, UnpackTarget::SrcA),
            Format::Int32 => (Format::Int32, Format::Int32, UnpackTarget::Dst),
            f => (
                f,
                f,
                if self.other_unpacker {
                    UnpackTarget::SrcB
                } else {
                    UnpackTarget::SrcA
                },
            ),
        };
        // The same mapping on both architectures: every output a Wormhole B0
        // packer produces here (no FP8, see `PACK_COMBOS`) is an input its
        // unpack model takes into the same register (`UnpackJob::check`).
        let job = UnpackJob {
            arch: j.arch,
            target,
            input,
            out,
            fp8_e4m3: j.fp8_e4m3,
            unsigned: j.unsigned,
            forced_exp: None,
            haloize: false,
            faces: j.faces,
            face_rows: j.face_rows,
            tile: 0,
            l1_addr: j.l1_addr,
        };
        job.check().ok().map(|_| job)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs of every length from 0 to 400 bytes, pseudo-random.
    fn inputs() -> impl Iterator<Item = Vec<u8>> {
        let mut x = 0x2545_F491u32;
        (0..400).map(move |len| {
            (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x as u8
                })
                .collect()
        })
    }

    /// The vector a case makes for others to read (`repro`, the gate, the
    /// campaigns) is the one the oracles run, with tags naming the job.
    #[test]
    fn a_cases_vector_is_its_untagged_vector_with_the_jobs_tags() {
        for seed in 0..300 {
            let case: PackTileCase = crate::generators::from_seed(seed, 2048);
            let (mut v, bare) = (case.vector("t"), case.untagged_vector("t"));
            let j = &case.job;
            let want = [
                "pack".to_string(),
                j.arch.name().to_string(),
                j.src.name().to_string(),
                j.out.name().to_string(),
                format!("face-r-dim-{}", j.face_rows),
                format!("num-faces-{}", j.faces),
            ];
            for t in want
                .iter()
                .chain(j.l1_acc.then(|| "l1-acc".to_string()).iter())
            {
                assert!(v.tags.contains(t), "seed {seed}: {t} not in {:?}", v.tags);
            }
            assert!(bare.tags.is_empty(), "seed {seed}");
            v.tags.clear();
            assert_eq!(v, bare, "seed {seed}");

            let case: UnpackTileCase = crate::generators::from_seed(seed, 2048);
            let (mut v, bare) = (case.vector("t"), case.untagged_vector("t"));
            let j = &case.job;
            let target = match j.target {
                UnpackTarget::SrcA => "to-srca",
                UnpackTarget::SrcB => "to-srcb",
                UnpackTarget::Dst => "to-dst",
            };
            let want = [
                "unpack".to_string(),
                j.arch.name().to_string(),
                target.to_string(),
                j.input.name().to_string(),
                format!("face-r-dim-{}", j.face_rows),
                format!("num-faces-{}", j.faces),
            ];
            assert_eq!(v.tags, want, "seed {seed}");
            assert!(bare.tags.is_empty(), "seed {seed}");
            v.tags.clear();
            assert_eq!(v, bare, "seed {seed}");
        }
    }

    /// Drawing rows through [`DstRows`] takes the same rows and leaves the
    /// same bytes as drawing each one with [`dst_row`].
    #[test]
    fn dst_rows_draw_what_dst_row_draws() {
        for data in inputs() {
            for view in DstFormat::ALL {
                let (mut a, mut b) = (Unstructured::new(&data), Unstructured::new(&data));
                let mut rows = DstRows::new(view);
                for k in 0..70 {
                    let want = dst_row(&mut a, view).ok();
                    assert_eq!(
                        rows.next(&mut b).ok(),
                        want,
                        "{view:?}, row {k}, {data:02x?}"
                    );
                    assert_eq!(a.len(), b.len());
                }
            }
        }
    }

    /// [`datum_bytes`] is [`datum_row`] drawn until `n` datums' bytes are
    /// there, then cut to length.
    #[test]
    fn datum_bytes_are_the_rows_drawn_one_after_another() {
        for data in inputs().step_by(7) {
            for format in Format::ALL {
                for n in [1, 16, 100, 1024] {
                    let (mut a, mut b) = (Unstructured::new(&data), Unstructured::new(&data));
                    let len = n * format.l1_bits() as usize / 8;
                    let mut want = Vec::new();
                    while want.len() < len {
                        datum_row(&mut a, format, &mut want).unwrap();
                    }
                    want.truncate(len);
                    let got = datum_bytes(&mut b, format, n).unwrap();
                    assert_eq!(got, want, "{format:?}, {n} datums, {data:02x?}");
                    assert_eq!(a.len(), b.len());
                }
            }
        }
    }
}
