//! Every instruction of both architectures survives word -> instruction ->
//! word and instruction -> text -> instruction, with each field at 0, 1, its
//! maximum and pseudo-random values (a fixed-seed generator: same run, same
//! words).

use tensix_emu::isa::{decode, encode, Instruction, Opcode};
use tensix_emu::Arch;

/// SplitMix64: a small fixed-seed generator so the sweep is reproducible.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Instructions of `opcode` on `arch` with fields set in every way the
/// sweep covers.
fn variants(arch: Arch, opcode: Opcode, rng: &mut SplitMix) -> Vec<Instruction> {
    let layout = opcode.layout(arch).unwrap();
    let mut out = vec![Instruction::zeroed(opcode)];
    for f in layout.fields {
        for v in [1, f.max()] {
            let mut i = Instruction::zeroed(opcode);
            i.set_field(f.index, v);
            out.push(i);
        }
    }
    for _ in 0..64 {
        let mut i = Instruction::zeroed(opcode);
        for f in layout.fields {
            i.set_field(f.index, rng.next() as u32 & f.max());
        }
        out.push(i);
    }
    out
}

#[test]
fn word_instruction_word_for_every_opcode_and_field() {
    let mut rng = SplitMix(0x7e45_1c5e);
    let mut checked = 0;
    for arch in Arch::ALL {
        for &opcode in Opcode::ALL {
            let Some(layout) = opcode.layout(arch) else {
                continue;
            };
            for insn in variants(arch, opcode, &mut rng) {
                let word = encode(arch, &insn).unwrap();
                assert_eq!(word >> 24, layout.byte as u32, "{insn} on {arch}");
                assert_eq!(decode(arch, word).unwrap(), insn, "{word:#010x} on {arch}");
                checked += 1;
            }
        }
    }
    // Both tables describe over a hundred instructions each.
    assert!(checked > 2 * 100 * 65, "only {checked} words checked");
}

#[test]
fn every_field_lands_on_its_own_bits() {
    // Setting one field to its maximum must set exactly that field's bits.
    for arch in Arch::ALL {
        for &opcode in Opcode::ALL {
            let Some(layout) = opcode.layout(arch) else {
                continue;
            };
            for f in layout.fields {
                let mut i = Instruction::zeroed(opcode);
                i.set_field(f.index, f.max());
                let word = encode(arch, &i).unwrap();
                assert_eq!(
                    word & 0x00ff_ffff,
                    f.max() << f.lo,
                    "{} field {} on {arch}",
                    opcode.mnemonic(),
                    opcode.field_names()[f.index]
                );
            }
        }
    }
}

#[test]
fn text_instruction_text_for_every_opcode() {
    let mut rng = SplitMix(0x00dd_ba11);
    for arch in Arch::ALL {
        for &opcode in Opcode::ALL {
            if opcode.layout(arch).is_none() {
                continue;
            }
            for insn in variants(arch, opcode, &mut rng) {
                let text = insn.to_string();
                let back: Instruction = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
                assert_eq!(back, insn, "{text}");
                assert_eq!(back.to_string(), text);
            }
        }
    }
}

#[test]
fn every_opcode_byte_decodes_or_faults() {
    for arch in Arch::ALL {
        let mut known = 0;
        for byte in 0..=255u32 {
            match decode(arch, byte << 24 | 0x00ab_cdef) {
                Ok(i) => {
                    known += 1;
                    assert_eq!(i.opcode().layout(arch).unwrap().byte as u32, byte);
                }
                Err(f) => assert_eq!(f.kind, tensix_emu::FaultKind::InvalidInstruction),
            }
        }
        assert!(known >= 120, "{arch}: {known} opcodes");
    }
}
