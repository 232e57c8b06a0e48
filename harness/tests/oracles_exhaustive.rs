//! The conversion and instruction oracles over whole small input spaces
//! (DESIGN.md, oracle 5: "exhaustively over every 8- and 16-bit input").

use tensix_harness::generators::seeded_bytes;
use tensix_harness::oracles::{self, Verdict};
use tensix_harness::vector::Arch;

/// Every 16-bit pattern as a BF16/FP16 source and as the top half of an
/// FP32 (whose low half is zero, so every narrowing is exact).
#[test]
fn formats_agree_with_half_on_every_16_bit_input() {
    for x in 0..=u16::MAX {
        for input in [
            u32::from(x),
            u32::from(x) << 16,
            (u32::from(x) << 16) | 0x8000,
        ] {
            assert_eq!(oracles::formats::check_formats(input), Ok(Verdict::Agree));
        }
    }
}

/// Every opcode byte on both architectures, with all argument bits clear,
/// all set, and seeded patterns.
#[test]
fn every_opcode_decodes_encodes_and_prints_consistently() {
    let mut decoded = 0;
    for arch in Arch::ALL {
        for op in 0..=255u32 {
            let b = seeded_bytes(u64::from(op), 32);
            let patterns = [
                0,
                0x00ff_ffff,
                u32::from_le_bytes([b[0], b[1], b[2], 0]),
                u32::from_le_bytes([b[4], b[5], b[6], 0]),
            ];
            for p in patterns {
                match oracles::isa::check_isa(arch, (op << 24) | p) {
                    Ok(Verdict::Agree) => decoded += 1,
                    Ok(Verdict::Rejected(_)) => {}
                    other => panic!("{arch} {:#010x}: {other:?}", (op << 24) | p),
                }
            }
        }
    }
    assert!(decoded > 400, "only {decoded} words decoded");
}
