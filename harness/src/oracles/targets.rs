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

/// Run `target` on `data` without panicking on a finding. `Ok(None)`: the
/// bytes do not decode to an input of the target (or the target is unknown).
pub fn check(bench: &mut Workbench, target: &str, data: &[u8]) -> Result<Option<Verdict>, Finding> {
    Ok(Some(match target {
        "pack_program" => match decode::<PackProgram>(data) {
            Ok(c) => super::check_program(bench, &c.0)?,
            Err(_) => return Ok(None),
        },
        "unpack_program" => match decode::<UnpackProgram>(data) {
            Ok(c) => super::check_program(bench, &c.0)?,
            Err(_) => return Ok(None),
        },
        "pack_tile_diff" => match decode::<PackTileCase>(data) {
            Ok(c) => super::check_pack_tile(bench, &c)?,
            Err(_) => return Ok(None),
        },
        "unpack_tile_diff" => match decode::<UnpackTileCase>(data) {
            Ok(c) => super::check_unpack_tile(bench, &c)?,
            Err(_) => return Ok(None),
        },
        "roundtrip" => match decode::<RoundTripCase>(data) {
            Ok(c) => super::check_roundtrip(bench, &c)?,
            Err(_) => return Ok(None),
        },
        "formats" => {
            let mut w = [0u8; 4];
            for (d, s) in w.iter_mut().zip(data) {
                *d = *s;
            }
            super::formats::check_formats(u32::from_le_bytes(w))?
        }
        "isa_roundtrip" => match decode::<IsaCase>(data) {
            Ok(c) => super::isa::check_isa(c.arch, c.word)?,
            Err(_) => return Ok(None),
        },
        "vector_parse" => {
            // Half the inputs are raw bytes to parse, half a generated vector.
            match data.split_first() {
                Some((0, rest)) => match decode::<AnyVector>(rest) {
                    Ok(v) => super::vector::check_vector(&v.0)?,
                    Err(_) => return Ok(None),
                },
                Some((_, rest)) => super::vector::check_vector_bytes(rest)?,
                None => return Ok(None),
            }
        }
        _ => return Ok(None),
    }))
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
