//! `tensix-harness new pack|unpack`: an LLK-shaped tile vector from a few
//! choices, built by the project's LLK program builder ([`crate::llk`]),
//! with tile data drawn from a seed. Its `expect` is left empty, or filled
//! by the golden model, the emulator or an engine; the provenance says
//! which.

use crate::generators::tile::{PackTileCase, UnpackTileCase};
use crate::golden::{Edge, Format, PackJob, Relu, UnpackJob, UnpackTarget};
use crate::llk::PackForm;
use crate::vector::{self, Arch, DstFormat, Provenance, Source, Vector};
use arbitrary::Unstructured;

/// The one of `all` whose name is `name`, or an error listing the names.
fn by_name<T: Copy>(
    all: &[T],
    name_of: fn(T) -> &'static str,
    what: &str,
    name: &str,
) -> Result<T, String> {
    all.iter()
        .copied()
        .find(|x| name_of(*x) == name)
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|x| name_of(*x)).collect();
            format!("unknown {what} `{name}`; one of {}", names.join(", "))
        })
}

/// A format by the name tags use (`bf16`, `bfp8_b`, `fp32`, ...).
pub fn format(name: &str) -> Result<Format, String> {
    by_name(&Format::ALL, Format::name, "format", name)
}

/// A Dst view by name (`bf16`, `fp16`, `raw16`, `fp32`, `int32`, `raw32`).
pub fn dst_format(name: &str) -> Result<DstFormat, String> {
    by_name(&DstFormat::ALL, DstFormat::name, "Dst format", name)
}

/// `none`, `zero`, `min:T` or `max:T` (T the 16-bit threshold).
pub fn relu(s: &str) -> Result<Relu, String> {
    let threshold = |t: &str| {
        crate::vector::parse_int(t)
            .and_then(|n| u16::try_from(n).ok())
            .ok_or_else(|| format!("ReLU threshold `{}` is not a 16-bit number", t.trim()))
    };
    match s.split_once(':') {
        None if s == "none" => Ok(Relu::NONE),
        None if s == "zero" => Ok(Relu {
            mode: 1,
            threshold: 0,
        }),
        Some(("min", t)) => Ok(Relu {
            mode: 2,
            threshold: threshold(t)?,
        }),
        Some(("max", t)) => Ok(Relu {
            mode: 3,
            threshold: threshold(t)?,
        }),
        _ => Err(format!("ReLU `{s}`: one of none, zero, min:T, max:T")),
    }
}

/// The choices of a pack tile vector.
#[derive(Clone, Debug)]
pub struct PackChoices {
    pub arch: Arch,
    pub from: Format,
    pub to: Format,
    /// The Dst view; by default the one that holds `from`.
    pub dst: Option<DstFormat>,
    pub faces: u8,
    pub face_rows: u8,
    pub relu: Relu,
    /// One edge mask for every row (`PCK_EDGE_OFFSET_SEC0_mask`).
    pub edge_mask: Option<u16>,
    pub l1_acc: bool,
    pub l1_addr: u32,
    pub seed: u64,
}

/// The choices of an unpack tile vector.
#[derive(Clone, Debug)]
pub struct UnpackChoices {
    pub arch: Arch,
    pub from: Format,
    pub to: Format,
    pub target: UnpackTarget,
    pub faces: u8,
    pub face_rows: u8,
    pub l1_addr: u32,
    pub seed: u64,
}

fn dst_for(f: Format) -> DstFormat {
    match f {
        Format::Fp32 | Format::Tf32 => DstFormat::Fp32,
        Format::Int32 | Format::Int8 => DstFormat::Int32,
        Format::Int16 => DstFormat::Raw16,
        Format::Fp16 | Format::Bfp8a | Format::Bfp4a | Format::Bfp2a | Format::Fp8 => {
            DstFormat::Fp16
        }
        _ => DstFormat::Bf16,
    }
}

fn seeded(seed: u64) -> Vec<u8> {
    crate::generators::seeded_bytes(seed, 1 << 16)
}

/// The pack job, checked against what the golden model and tt-llk allow.
pub fn pack_case(c: &PackChoices) -> Result<PackTileCase, String> {
    let mut edge = Edge::NONE;
    if let Some(m) = c.edge_mask {
        edge.masks = [m; 4];
    }
    let job = PackJob {
        arch: c.arch,
        dst: c.dst.unwrap_or_else(|| dst_for(c.from)),
        src: c.from,
        out: c.to,
        unsigned: false,
        fp8_e4m3: c.to == Format::Fp8 && c.arch == Arch::Blackhole,
        read_raw: false,
        round_10b: false,
        relu: c.relu,
        edge,
        faces: c.faces,
        face_rows: c.face_rows,
        tile: 0,
        dst_offset: 0,
        l1_addr: c.l1_addr,
        l1_acc: c.l1_acc,
    };
    job.check().map_err(|r| r.to_string())?;
    let bytes = seeded(c.seed);
    let mut u = Unstructured::new(&bytes);
    PackTileCase::with_data(job, PackForm::Instructions, &mut u).map_err(|e| e.to_string())
}

/// The unpack job, checked against what the golden model allows.
pub fn unpack_case(c: &UnpackChoices) -> Result<UnpackTileCase, String> {
    let job = UnpackJob {
        arch: c.arch,
        target: c.target,
        input: c.from,
        out: c.to,
        fp8_e4m3: false,
        unsigned: false,
        forced_exp: None,
        haloize: false,
        faces: c.faces,
        face_rows: c.face_rows,
        tile: 0,
        l1_addr: c.l1_addr,
    };
    job.check().map_err(|r| r.to_string())?;
    let bytes = seeded(c.seed);
    let mut u = Unstructured::new(&bytes);
    UnpackTileCase::with_data(job, &mut u).map_err(|e| e.to_string())
}

/// Replace a pack case's tile data with `text`: integers (decimal or `0x`
/// hex, separated by whitespace or commas) in the Dst view, 16 a row, from
/// the tile's first Dst row on.
pub fn pack_data(c: &mut PackTileCase, text: &str) -> Result<(), String> {
    let mut values = Vec::new();
    for t in text.split(|ch: char| ch.is_whitespace() || ch == ',') {
        let t = t.trim();
        if t.is_empty() {
            continue;
        }
        let v = crate::vector::parse_int(t)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| format!("`{t}` (value {}) is not a 32-bit number", values.len()))?;
        if v > c.job.dst.mode().max_cell() {
            return Err(format!(
                "value {} ({v:#x}) is too wide for a {} Dst",
                values.len(),
                c.job.dst.name()
            ));
        }
        values.push(v);
    }
    if values.is_empty() || values.len() % 16 != 0 {
        return Err(format!("{} values: give whole rows of 16", values.len()));
    }
    let first = c.job.first_row() as u16;
    for (k, row) in values.chunks_exact(16).enumerate() {
        let n = first + k as u16;
        let Some(r) = c.dst.iter_mut().find(|r| r.row == n) else {
            return Err(format!(
                "{} rows given; the tile reads Dst rows {first}..{}",
                values.len() / 16,
                first + 16 * u16::from(c.job.faces)
            ));
        };
        r.cells.copy_from_slice(row);
    }
    Ok(())
}

/// Replace an unpack case's tile bytes (exponent section, then datums) with
/// `bytes`, which must be exactly as long.
pub fn unpack_data(c: &mut UnpackTileCase, bytes: &[u8]) -> Result<(), String> {
    if bytes.len() != c.tile.len() {
        return Err(format!(
            "{} bytes given; this tile is {} bytes (exponent section, then datums)",
            bytes.len(),
            c.tile.len()
        ));
    }
    c.tile.copy_from_slice(bytes);
    Ok(())
}

/// Where `expect` comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExpectFrom {
    /// Left empty: the vector checks nothing until someone fills it.
    Nothing,
    /// The golden tile model (written independently of the emulator).
    Golden,
    /// The emulator's own run (a vector that then passes by construction).
    Emulator,
}

/// The vector, with `expect` as chosen and a provenance saying so;
/// `command` is the command line that made it.
pub fn vector(case: Case<'_>, name: &str, expect: &ExpectFrom, command: &str) -> Vector {
    let mut v = match (case, expect) {
        (Case::Pack(c), ExpectFrom::Golden) => crate::repro::pack_vector(c, name),
        (Case::Unpack(c), ExpectFrom::Golden) => crate::repro::unpack_vector(c, name),
        (Case::Pack(c), _) => c.vector(name),
        (Case::Unpack(c), _) => c.vector(name),
    };
    let how = match expect {
        ExpectFrom::Nothing => {
            v.expect = vector::Expect::default();
            "expect left empty"
        }
        ExpectFrom::Golden => "expect from the golden tile model (harness/src/golden)",
        ExpectFrom::Emulator => {
            crate::repro::observed_expect(&mut v);
            "expect from the emulator's own run (it passes by construction)"
        }
    };
    v.provenance = Provenance {
        source: Source::Derived,
        detail: format!("{command}; {how}"),
    };
    v
}

/// A pack or unpack case.
#[derive(Clone, Copy)]
pub enum Case<'a> {
    Pack(&'a PackTileCase),
    Unpack(&'a UnpackTileCase),
}
