//! The eight fuzz targets as functions of the input bytes: the fuzz crate's
//! targets call these, the corpus replay test calls these, and `repro`
//! decodes an artifact through the same generators.

use super::{expect_agreement, Finding, Verdict, Workbench};
use crate::generators::program::{PackProgram, UnpackProgram};
use crate::generators::tile::{PackTileCase, RoundTripCase, UnpackTileCase};
use crate::generators::vectors::AnyVector;
use crate::generators::{decode, IsaCase};

/// One target's check: `data` to a verdict, `Ok(None)` when the bytes do not
/// decode to an input of the target, `Err` on a finding.
pub type Check = fn(&mut Workbench, &[u8]) -> Result<Option<Verdict>, Finding>;

/// A fuzz target: the name of its `fuzz/fuzz_targets/*.rs` file, and its
/// check. A fuzz target passes its own to [`fuzz`], so that its binary holds
/// only that target's code: libFuzzer clears and scans one coverage counter
/// per edge of the binary on every execution.
#[derive(Clone, Copy)]
pub struct Target {
    pub name: &'static str,
    pub check: Check,
}

impl Target {
    const fn new(name: &'static str, check: Check) -> Target {
        Target { name, check }
    }
}

pub const PACK_PROGRAM: Target = Target::new("pack_program", pack_program);
pub const UNPACK_PROGRAM: Target = Target::new("unpack_program", unpack_program);
pub const PACK_TILE_DIFF: Target = Target::new("pack_tile_diff", pack_tile_diff);
pub const UNPACK_TILE_DIFF: Target = Target::new("unpack_tile_diff", unpack_tile_diff);
pub const ROUNDTRIP: Target = Target::new("roundtrip", roundtrip);
pub const FORMATS: Target = Target::new("formats", formats);
pub const ISA_ROUNDTRIP: Target = Target::new("isa_roundtrip", isa_roundtrip);
pub const VECTOR_PARSE: Target = Target::new("vector_parse", vector_parse);

/// Every target.
pub const TARGETS: [Target; 8] = [
    PACK_PROGRAM,
    UNPACK_PROGRAM,
    PACK_TILE_DIFF,
    UNPACK_TILE_DIFF,
    ROUNDTRIP,
    FORMATS,
    ISA_ROUNDTRIP,
    VECTOR_PARSE,
];

/// The target named `name`, if there is one.
pub fn by_name(name: &str) -> Option<Target> {
    TARGETS.into_iter().find(|t| t.name == name)
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

fn pack_program(bench: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    decoded(bench, data, |b, c: PackProgram| {
        super::check_program(b, &c.0)
    })
}

fn unpack_program(bench: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    decoded(bench, data, |b, c: UnpackProgram| {
        super::check_program(b, &c.0)
    })
}

fn pack_tile_diff(bench: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    decoded(bench, data, |b, c: PackTileCase| {
        super::check_pack_tile(b, &c)
    })
}

fn unpack_tile_diff(bench: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    decoded(bench, data, |b, c: UnpackTileCase| {
        super::check_unpack_tile(b, &c)
    })
}

fn roundtrip(bench: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    decoded(bench, data, |b, c: RoundTripCase| {
        super::check_roundtrip(b, &c)
    })
}

/// The first four bytes (zero-padded) as a datum word.
fn formats(_: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    let mut w = [0u8; 4];
    for (d, s) in w.iter_mut().zip(data) {
        *d = *s;
    }
    super::formats::check_formats(u32::from_le_bytes(w)).map(Some)
}

fn isa_roundtrip(bench: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    decoded(bench, data, |_, c: IsaCase| {
        super::isa::check_isa(c.arch, c.word)
    })
}

/// Half the inputs are raw bytes to parse, half a generated vector.
fn vector_parse(_: &mut Workbench, data: &[u8]) -> Result<Option<Verdict>, Finding> {
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
        Some(t) => (t.check)(bench, data),
        None => Ok(None),
    }
}

/// Run `target` on `data`, panicking with the report on a finding. `bench`
/// lends the machines.
pub fn run(bench: &mut Workbench, target: &str, data: &[u8]) -> Option<Verdict> {
    by_name(target).and_then(|t| fuzz(bench, &t, data))
}

/// What a fuzz target does: [`run`] for the target it names itself. A fuzz
/// target keeps one `bench` for the whole process.
pub fn fuzz(bench: &mut Workbench, target: &Target, data: &[u8]) -> Option<Verdict> {
    match (target.check)(bench, data) {
        Ok(v) => v,
        Err(f) => Some(expect_agreement(Err(f), target.name)),
    }
}
