//! The text form of an instruction: the mnemonic, then `field=value` for
//! every non-zero field, e.g. `PACR last=1 addr_mode=1 read_intf_sel=0xf`.
//! Values print in decimal below 10 and in hex from there on; parsing takes
//! either, fields in any order, absent fields as zero.

use super::{Instruction, Opcode};
use std::fmt;
use std::str::FromStr;

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opcode = self.opcode();
        f.write_str(opcode.mnemonic())?;
        for (name, &value) in opcode.field_names().iter().zip(&self.values()) {
            match value {
                0 => {}
                v if v < 10 => write!(f, " {name}={v}")?,
                v => write!(f, " {name}={v:#x}")?,
            }
        }
        Ok(())
    }
}

/// Why a text instruction did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

/// Parse a non-negative integer written in decimal or with a `0x` prefix.
pub(crate) fn parse_u32(text: &str) -> Option<u32> {
    let t = text.replace('_', "");
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) if !hex.is_empty() => u32::from_str_radix(hex, 16).ok(),
        Some(_) => None,
        None => t.parse().ok(),
    }
}

impl FromStr for Instruction {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Instruction, ParseError> {
        let mut words = text.split_whitespace();
        let mnemonic = words
            .next()
            .ok_or_else(|| ParseError("empty instruction".into()))?;
        let opcode = Opcode::ALL
            .iter()
            .copied()
            .find(|o| o.mnemonic().eq_ignore_ascii_case(mnemonic))
            .ok_or_else(|| ParseError(format!("unknown mnemonic `{mnemonic}`")))?;
        let names = opcode.field_names();
        let mut insn = Instruction::zeroed(opcode);
        let mut seen = 0u64;
        for word in words {
            let (name, value) = word
                .split_once('=')
                .ok_or_else(|| ParseError(format!("`{word}` is not of the form field=value")))?;
            let index = names.iter().position(|n| *n == name).ok_or_else(|| {
                ParseError(format!(
                    "{} has no field `{name}` (fields: {})",
                    opcode.mnemonic(),
                    names.join(", ")
                ))
            })?;
            if seen & (1 << index) != 0 {
                return Err(ParseError(format!("field `{name}` given twice")));
            }
            seen |= 1 << index;
            let value = parse_u32(value)
                .ok_or_else(|| ParseError(format!("`{value}` is not a number for `{name}`")))?;
            insn.set_field(index, value);
        }
        Ok(insn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{encode, Pacr};
    use crate::Arch;

    #[test]
    fn prints_only_nonzero_fields_in_declaration_order() {
        let p = Pacr {
            last: 1,
            addr_mode: 1,
            read_intf_sel: 15,
            ..Pacr::default()
        };
        assert_eq!(
            Instruction::Pacr(p).to_string(),
            "PACR last=1 read_intf_sel=0xf addr_mode=1"
        );
    }

    #[test]
    fn parses_any_order_and_both_radixes() {
        let i: Instruction = "pacr addr_mode=1 last=0x1".parse().unwrap();
        assert_eq!(encode(Arch::Blackhole, &i).unwrap(), 0x4100_8001);
    }

    #[test]
    fn rejects_unknown_fields_duplicates_and_garbage() {
        assert!("PACR bogus=1".parse::<Instruction>().is_err());
        assert!("PACR last=1 last=1".parse::<Instruction>().is_err());
        assert!("PACR last".parse::<Instruction>().is_err());
        assert!("PACR last=0x".parse::<Instruction>().is_err());
        assert!("NOTANOP".parse::<Instruction>().is_err());
        assert!("".parse::<Instruction>().is_err());
    }
}
