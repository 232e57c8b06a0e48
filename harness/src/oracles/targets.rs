//! The eight fuzz targets as functions of the input bytes: the fuzz crate's
//! targets call these, the corpus replay test calls these, and `repro`
//! decodes an artifact through the same generators.

use super::{expect_agreement, Finding, Verdict, Workbench};
use crate::generators::program::{PackProgram, UnpackProgram};
use crate::generators::tile::{PackTileCase, RoundTripCase, UnpackTileCase};
use crate::generators::vectors::AnyVector;
use crate::generators::{decode, IsaCase};

/// Every target, by the name its `fuzz/fuzz_targets/*.rs` file has.
pub const TARGETS: [&str; 8] = [
    "pack_program",
    "unpack_program",
    "pack_tile_diff",
    "unpack_tile_diff",
    "roundtrip",
    "formats",
    "isa_roundtrip",
    "vector_parse",
];

/// One target's check: `data` to a verdict, `Ok(None)` when the bytes do not
/// decode to an input of the target, `Err` on a finding.
pub type Check = fn(&mut Workbench, &[u8]) -> Result<Option<Verdict>, Finding>;

/// The check of the target named `target`, if there is one. A fuzz target
/// names its own check instead (see [`fuzz`]), so that its binary holds only
/// that target's code: libFuzzer clears and scans one coverage counter per
/// edge of the binary on every execution.
pub fn by_name(target: &str) -> Option<Check> {
    Some(match target {
        "pack_program" => pack_program,
        "unpack_program" => unpack_program,
        "pack_tile_diff" => pack_tile_diff,
        "unpack_tile_diff" => unpack_tile_diff,
        "roundtrip" => roundtrip,
        "formats" => formats,
        "isa_roundtrip" => isa_roundtrip,
        "vector_parse" => vector_parse,
        _ => return None,
    })
}

/// The check of a target whose input is one generated case.
fn decoded<'a, T: arbitrary::Arbitrary<'a>>(
    bench: &mut Workbench,
    data: &'a [u8],
    check: impl FnOnce(&mut Workbench, T) -> Result<Verdict, Finding>,
) -> Result<Option<Verdict>, Finding> {
    match decode::<T>(data) {
        Ok(c) => check(bench, c).map(Some),
        Err(_) => Ok(None),
    }
}

pub fn pack_program(bench: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    decoded(bench, data, |b, c: PackProgram| {
        super::check_program(b, &c.0)
    })
}

pub fn unpack_program(bench: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    decoded(bench, data, |b, c: UnpackProgram| {
        super::check_program(b, &c.0)
    })
}

pub fn pack_tile_diff(bench: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    decoded(bench, data, |b, c: PackTileCase| {
        super::check_pack_tile(b, &c)
    })
}

pub fn unpack_tile_diff(bench: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    decoded(bench, data, |b, c: UnpackTileCase| {
        super::check_unpack_tile(b, &c)
    })
}

pub fn roundtrip(bench: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    decoded(bench, data, |b, c: RoundTripCase| {
        super::check_roundtrip(b, &c)
    })
}

/// The first four bytes (zero-padded) as a datum word.
pub fn formats(_: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    let mut w = [0u8; 4];
    for (d, s) in w.iter_mut().zip(data) {
        *d = *s;
    }
    super::formats::check_formats(u32::from_le_bytes(w)).map(Some)
}

pub fn isa_roundtrip(bench: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    decoded(bench, data, |_, c: IsaCase| {
        super::isa::check_isa(c.arch, c.word)
    })
}

/// Half the inputs are raw bytes to parse, half a generated vector.
pub fn vector_parse(_: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    match data.split_first() {
        Some((0, rest)) => match decode::<AnyVector>(rest) {
            Ok(v) => super::vector::check_vector(&v.0).map(Some),
            Err(_) => Ok(None),
        },
        Some((_, rest)) => super::vector::check_vector_bytes(rest).map(Some),
        None => Ok(None),
    }
}

/// Run `target` on `data` without panicking on a finding. `Ok(None)`: the
/// bytes do not decode to an input of the target (or the target is unknown).
pub fn check(bench: &mut Workbench, target: &str, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    match by_name(target) {
        Some(check) => check(bench, data),
        None => Ok(None),
    }
}

/// Run `target` on `data`, panicking with the report on a finding: what a
/// fuzz target does. `bench` lends the machines; a fuzz target keeps one for
/// the whole process.
pub fn run(bench: &mut Workbench, target: &str, data: &[u8]) -> Option<Verdict> {
    match check(bench, target, data) {
        Ok(v) => v,
        Err(f) => Some(expect_agreement(Err(f), target)),
    }
}

/// [`run`] for a fuzz target, which passes its own `check` (so that nothing
/// else is linked in) and `name` for the report.
pub fn fuzz(bench: &mut Workbench, name: &str, check: Check, data: &[u8]) -> Option<Verdict> {
    match check(bench, data) {
        Ok(v) => v,
        Err(f) => Some(expect_agreement(Err(f), name)),
    }
}
