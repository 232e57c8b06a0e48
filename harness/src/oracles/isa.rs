//! Instruction words: decode, encode and the text form agree with one
//! another (tt-isa-documentation `README.md`, "Instruction encoding": opcode
//! in bits 31:24, fields below it).

use super::{expect_agreement, Finding, Verdict};
use crate::vector::Arch;
use tensix_emu::isa::{self, Instruction};

/// `isa_roundtrip`: panics when decode, encode and text disagree.
pub fn isa_roundtrip(arch: Arch, word: u32) -> Verdict {
    expect_agreement(check_isa(arch, word), "isa_roundtrip")
}

/// For a word that decodes: encoding it gives the word without the bits no
/// field covers; printing and parsing it gives the same instruction; the
/// TRISC rotation round-trips. A word that does not decode is an invalid
/// instruction, as a typed fault.
pub fn check_isa(arch: Arch, word: u32) -> Result<Verdict, Finding> {
    if isa::from_trisc_word(isa::to_trisc_word(word)) != word {
        return Err(Finding::new(
            "TRISC rotation does not round-trip",
            format!("{word:#010x}"),
        ));
    }
    let insn = match isa::decode(arch, word) {
        Ok(i) => i,
        Err(f) if f.kind == tensix_emu::FaultKind::InvalidInstruction => {
            if isa::reserved_bits(arch, word).is_some() {
                return Err(Finding::new(
                    "known opcode refused",
                    format!("{word:#010x} on {arch}: {f}"),
                ));
            }
            return Ok(Verdict::Rejected(f.into_info().rule));
        }
        Err(f) => {
            return Err(Finding::new(
                "decode fault of the wrong kind",
                format!("{word:#010x} on {arch}: {f}"),
            ))
        }
    };
    let reserved = isa::reserved_bits(arch, word).unwrap_or(0);
    match isa::encode(arch, &insn) {
        Ok(back) if back == word & !reserved => {}
        Ok(back) => {
            return Err(Finding::new(
                "encode(decode(word)) differs",
                format!(
                    "{word:#010x} on {arch} decodes to `{insn}`, which encodes to {back:#010x}"
                ),
            ))
        }
        Err(e) => {
            return Err(Finding::new(
                "a decoded instruction does not encode",
                format!("{word:#010x} on {arch} decodes to `{insn}`: {e}"),
            ))
        }
    }
    let text = insn.to_string();
    match text.parse::<Instruction>() {
        Ok(again) if again == insn => Ok(Verdict::Agree),
        Ok(again) => Err(Finding::new(
            "text form does not round-trip",
            format!("`{text}` parses to `{again}`"),
        )),
        Err(e) => Err(Finding::new(
            "text form does not parse",
            format!("`{text}` (from {word:#010x} on {arch}): {e}"),
        )),
    }
}
