//! One named test per documented hardware rule, most of them deviations from
//! IEEE 754 or from tt-metal's host code. Expected values are written out by
//! hand from the cited source.

use tensix_emu::format::bfp;
use tensix_emu::format::dst::{self, DstAccessCfg, RiscvDstAccess};
use tensix_emu::format::pack::{self, EarlyConfig, Intermediate};
use tensix_emu::format::unpack::{self, UnpackConfig, Unpacked};
use tensix_emu::format::{int, BfpExp, BfpWidth, DataFormat, Fp8Format, SrcCell};
use tensix_emu::{Arch, FaultKind};

fn early16(intermediate: DataFormat, read_raw: bool, dst_bits: u16) -> Intermediate {
    let cfg = EarlyConfig {
        read_32b_data: false,
        read_raw,
        read_unsigned: false,
        round_10b_mant: false,
        intermediate,
        shift_amount: 0,
    };
    pack::early_convert(Arch::Blackhole, &cfg, dst_bits as u32).unwrap()
}

fn early32(intermediate: DataFormat, read_raw: bool, fp32: u32) -> Intermediate {
    let cfg = EarlyConfig {
        read_32b_data: true,
        read_raw,
        read_unsigned: false,
        round_10b_mant: false,
        intermediate,
        shift_amount: 0,
    };
    pack::early_convert(Arch::WormholeB0, &cfg, dst::encode_fp32(fp32)).unwrap()
}

fn late(v: Intermediate, to: DataFormat) -> u32 {
    pack::late_convert(v, to, Fp8Format::E5M2).unwrap()
}

// ---------------------------------------------------------------------------
// Data format codes.

/// Packers/FormatConversion.md and Unpackers/FormatConversion.md, encoding
/// tables: `0b00??` BFP4a BFP8a FP16 FP32, `0b01??` BFP4 BFP8 BF16 TF32,
/// `0b10??` BFP2a FP8 INT16 INT32, `0b11??` BFP2 INT8 - -.
#[test]
fn data_format_code_table() {
    let table = [
        (0, "FP32", "Float32"),
        (1, "FP16", "Float16"),
        (2, "BFP8a", "Bfp8"),
        (3, "BFP4a", "Bfp4"),
        (4, "TF32", "Tf32"),
        (5, "BF16", "Float16_b"),
        (6, "BFP8", "Bfp8_b"),
        (7, "BFP4", "Bfp4_b"),
        (8, "INT32", "Int32"),
        (9, "INT16", "UInt16"),
        (10, "FP8", "Lf8"),
        (11, "BFP2a", "Bfp2"),
        (14, "INT8", "Int8"),
        (15, "BFP2", "Bfp2_b"),
    ];
    for (code, isa, llk) in table {
        let f = DataFormat::from_code(code).unwrap();
        assert_eq!(f.code(), code);
        assert_eq!(f.isa_name(), isa);
        assert_eq!(f.llk_name(), llk);
    }
    for code in [12, 13, 16, 30, 255] {
        assert_eq!(DataFormat::from_code(code), None);
    }
    assert_eq!(DataFormat::ALL.len(), 14);
}

/// Codes 12 and 13 name no format: using one is undefined behaviour. tt-llk's
/// software-only `UInt8` (30) reduces to INT8 in the 4-bit field.
#[test]
fn unassigned_format_codes_are_undefined() {
    for code in [12, 13] {
        assert_eq!(
            DataFormat::decode(code).unwrap_err().kind,
            FaultKind::UndefinedBehavior
        );
    }
    assert_eq!(DataFormat::decode(30).unwrap(), DataFormat::Int8);
    assert_eq!(DataFormat::decode(24).unwrap(), DataFormat::Int32);
    assert_eq!(DataFormat::decode(26).unwrap(), DataFormat::Lf8);
}

/// Seed 002 and tt-llk call code 9 `UInt16`; the hardware treats it as INT16
/// sign-magnitude in the pack path (project reference README, seeds README
/// item 6). Its identity through the packer keeps the sign bit where a
/// sign-magnitude value has it.
#[test]
fn code_9_is_int16_sign_magnitude() {
    let f = DataFormat::from_code(9).unwrap();
    assert_eq!(f, DataFormat::Int16);
    assert_eq!(f.isa_name(), "INT16");
    assert_eq!(f.mantissa_bits(), 15);
    let v = early16(DataFormat::Int16, false, 0x8005);
    assert_eq!(late(v, DataFormat::Int16), 0x8005);
    assert_eq!(int::sign_mag_value(0x8005, 16), -5);
}

#[test]
fn format_widths_and_bfp_properties() {
    use DataFormat as F;
    assert_eq!(F::Float32.datum_bytes(), Some(4));
    assert_eq!(F::Tf32.datum_bytes(), Some(4));
    assert_eq!(F::Float16B.datum_bytes(), Some(2));
    assert_eq!(F::Lf8.datum_bytes(), Some(1));
    assert_eq!(F::Bfp4B.datum_bytes(), None);
    assert_eq!(F::Bfp2A.datum_bits(), 2);
    assert_eq!(F::Bfp8A.bfp(), Some((BfpExp::A, BfpWidth::Bits8)));
    assert_eq!(F::Bfp2B.bfp(), Some((BfpExp::B, BfpWidth::Bits2)));
    assert_eq!(F::Bfp4B.bfp_magnitude_bits(), Some(3));
    assert!(!F::Int8.is_bfp());
    assert_eq!(F::Bfp8B.exponent_bits(), 8);
    assert_eq!(F::Bfp8A.exponent_bits(), 5);
    assert_eq!(F::Int32.exponent_bits(), 0);
    assert!(F::Int16.is_integer());
}

// ---------------------------------------------------------------------------
// Packer early conversion.

/// Device fact (reference README): FP32 Dst → BF16 rounds half away from zero
/// on the magnitude, `0x3F808000` → `0x3F81` (IEEE round-to-nearest-even
/// would give `0x3F80`). Packers/FormatConversion.md: "deterministic
/// round-to-nearest with ties away from zero".
#[test]
fn fp32_to_bf16_rounds_half_away_from_zero() {
    assert_eq!(
        early32(DataFormat::Float16B, false, 0x3F80_8000),
        Intermediate::Bf16(0x3F81)
    );
    assert_eq!(
        early32(DataFormat::Float16B, false, 0xBF80_8000),
        Intermediate::Bf16(0xBF81)
    );
    assert_eq!(
        early32(DataFormat::Float16B, false, 0x3F80_7FFF),
        Intermediate::Bf16(0x3F80)
    );
    assert_eq!(pack::fp32_round_to_tf32(0x3F80_1000), 0x3F80_2000);
    assert_eq!(pack::fp32_round_to_e8m6(0x3F81_0000), 0x3F82);
    // With Read_raw the same configuration truncates.
    assert_eq!(
        early32(DataFormat::Float16B, true, 0x3F80_FFFF),
        Intermediate::Bf16(0x3F80)
    );
}

/// Device fact: packing −0.0 from BF16 Dst to BF16 gives +0.0.
/// Packers/FormatConversion.md: "Rounding: ... Minus zero converted to
/// positive zero."
#[test]
fn negative_zero_packs_as_positive_zero() {
    let v = early16(DataFormat::Float16B, false, dst::encode_bf16(0x8000));
    assert_eq!(late(v, DataFormat::Float16B), 0x0000);
    assert_eq!(pack::fp32_round_to_bf16(0x8000_0000), 0);
    assert_eq!(pack::fp16_round(0x8000), 0);
    // The identity path (Read_raw) keeps it.
    let v = early16(DataFormat::Float16B, true, dst::encode_bf16(0x8000));
    assert_eq!(late(v, DataFormat::Float16B), 0x8000);
}

/// Packers/FormatConversion.md, early conversion: "Rounding: Denormals
/// flushed to zero"; "Identity / bitcast: Denormals preserved".
#[test]
fn denormals_flush_to_zero() {
    assert_eq!(pack::fp32_round_to_bf16(0x0000_0001), 0);
    assert_eq!(pack::fp32_round_to_bf16(0x8040_0000), 0);
    assert_eq!(pack::fp32_round_to_tf32(0x007F_E000), 0);
    assert_eq!(pack::bf16_round(0x007F), 0);
    assert_eq!(pack::bf16_round(0x807F), 0);
    assert_eq!(pack::fp16_round(0x03FF), 0);
    assert_eq!(pack::fp16_round(0x83FF), 0);
    assert_eq!(pack::fp16_round_to_e5m6(0x0200), 0);
    assert_eq!(
        early16(DataFormat::Float16, true, dst::encode_fp16(0x03FF)),
        Intermediate::Fp16(0x03FF)
    );
    assert_eq!(
        early16(DataFormat::Float16B, true, dst::encode_bf16(0x007F)),
        Intermediate::Bf16(0x007F)
    );
}

/// The ISA page says rounding flushes denormals; ttsim flushes the rounded
/// result, so `0x007F8000` rounds up to the smallest normal `0x0080`, and
/// the conformance vectors it computed (`blackhole/pack/d32-bf16-to-bf16-0290`)
/// record exactly that; the page's words are read as applying to the result.
/// A denormal that stays denormal after rounding still becomes +0.
#[test]
fn fp32_denormal_rounds_before_the_flush() {
    assert_eq!(pack::fp32_round_to_bf16(0x007F_8000), 0x0080);
    assert_eq!(pack::fp32_round_to_bf16(0x807F_FFFF), 0x8080);
    assert_eq!(pack::fp32_round_to_bf16(0x007F_7FFF), 0);
    assert_eq!(pack::fp32_round_to_bf16(0x807F_7FFF), 0);
    assert_eq!(pack::fp32_round_to_bf16(0x0080_0000), 0x0080);
}

/// Packers/FormatConversion.md: "If the exponent is 8 bits wide, NaN becomes
/// infinity (this is a potentially surprising behaviour)."
#[test]
fn nan_becomes_infinity_when_rounding_to_8_bit_exponent() {
    assert_eq!(pack::fp32_round_to_bf16(0x7FC0_0000), 0x7F80);
    assert_eq!(pack::fp32_round_to_bf16(0xFF80_0001), 0xFF80);
    assert_eq!(pack::fp32_round_to_tf32(0x7FFF_FFFF), 0x7F80_0000);
    assert_eq!(pack::bf16_round(0x7FC1), 0x7F80);
    assert_eq!(pack::bf16_round_to_e8m6(0xFFFF), 0xFF80);
    // Identity keeps NaN.
    assert_eq!(
        early32(DataFormat::Float32, false, 0x7FC0_0001),
        Intermediate::Fp32(0x7FC0_0001)
    );
}

/// Rounding the largest finite values up carries into the infinity encoding.
#[test]
fn rounding_overflow_becomes_infinity() {
    assert_eq!(pack::fp32_round_to_bf16(0x7F7F_8000), 0x7F80);
    assert_eq!(pack::fp32_round_to_bf16(0xFF7F_FFFF), 0xFF80);
    assert_eq!(pack::fp32_round_to_bf16(0x7F7F_7FFF), 0x7F7F);
    assert_eq!(pack::bf16_round_to_e8m6(0x7F7F), 0x7F80);
}

/// E5M6 rounding of the top FP16 binade cannot carry into a sixth exponent
/// bit; the page is silent, this model saturates (documented choice).
#[test]
fn fp16_to_e5m6_rounding_saturates() {
    assert_eq!(pack::fp16_round_to_e5m6(0x7FFF), 0x7FF0);
    assert_eq!(pack::fp16_round_to_e5m6(0xFFF8), 0xFFF0);
    assert_eq!(pack::fp16_round_to_e5m6(0x7FF7), 0x7FF0);
    assert_eq!(pack::fp16_round_to_e5m6(0x3C08), 0x3C10);
}

/// Packers/FormatConversion.md, early table, "To INT8 / From INT32: Shift
/// then round then saturate (-127 to +127)", "To UINT8: ... (0 to 255)";
/// "this shifts the magnitude right, leaves the sign bit as-is".
#[test]
fn int32_to_int8_descale_rounds_half_away_and_saturates() {
    let cfg = |unsigned, shift| EarlyConfig {
        read_32b_data: true,
        read_raw: false,
        read_unsigned: unsigned,
        round_10b_mant: false,
        intermediate: DataFormat::Int8,
        shift_amount: shift,
    };
    let conv = |unsigned, shift, x: u32| {
        pack::early_convert(Arch::WormholeB0, &cfg(unsigned, shift), dst::encode_fp32(x)).unwrap()
    };
    assert_eq!(conv(false, 2, 10), Intermediate::Int8(3)); // 2.5 → 3
    assert_eq!(conv(false, 2, 0x8000_000A), Intermediate::Int8(0x83)); // −2.5 → −3
    assert_eq!(conv(false, 2, 9), Intermediate::Int8(2)); // 2.25 → 2
    assert_eq!(conv(false, 0, 1000), Intermediate::Int8(127));
    assert_eq!(conv(false, 0, 0x8000_03E8), Intermediate::Int8(0xFF));
    assert_eq!(conv(false, 4, 0x8000_0007), Intermediate::Int8(0x80)); // sign kept
    assert_eq!(conv(true, 0, 300), Intermediate::UInt8(255));
    assert_eq!(conv(true, 1, 3), Intermediate::UInt8(2));
    assert_eq!(conv(true, 0, 0x8000_0005), Intermediate::UInt8(0));
    assert_eq!(conv(true, 0, 0x8000_0000), Intermediate::UInt8(0));
    assert_eq!(conv(false, 31, 0x7FFF_FFFF), Intermediate::Int8(1));
}

/// Early table: "To INT8 / From FP32: Sign bit and low 7 bits of mantissa",
/// "From BF16 / FP16: Sign bit only, other bits zero"; "To UINT8: Low 8 bits".
#[test]
fn raw_int8_conversions_take_the_documented_bits() {
    let cfg = |unsigned| EarlyConfig {
        read_32b_data: true,
        read_raw: true,
        read_unsigned: unsigned,
        round_10b_mant: false,
        intermediate: DataFormat::Int8,
        shift_amount: 0,
    };
    let x = dst::encode_fp32(0xC0A0_01F3);
    assert_eq!(
        pack::early_convert(Arch::Blackhole, &cfg(false), x).unwrap(),
        Intermediate::Int8(0xF3)
    );
    assert_eq!(
        pack::early_convert(Arch::Blackhole, &cfg(true), x).unwrap(),
        Intermediate::UInt8(0xF3)
    );
    let x = dst::encode_fp32(0x4000_0085);
    assert_eq!(
        pack::early_convert(Arch::Blackhole, &cfg(false), x).unwrap(),
        Intermediate::Int8(0x05)
    );
    assert_eq!(
        early16(DataFormat::Int8, true, dst::encode_bf16(0xBF80)),
        Intermediate::Int8(0x80)
    );
    assert_eq!(
        early16(DataFormat::Int8, true, dst::encode_fp16(0x3C00)),
        Intermediate::Int8(0x00)
    );
}

/// Early table: "To BF16 / From INT32: Bitcast of top 16 bits", "To FP32 /
/// From INT32: Bitcast".
#[test]
fn int32_bitcasts() {
    assert_eq!(
        early32(DataFormat::Float16B, true, 0x8001_2345),
        Intermediate::Bf16(0x8001)
    );
    assert_eq!(
        early32(DataFormat::Float32, false, 0x8001_2345),
        Intermediate::Fp32(0x8001_2345)
    );
    assert_eq!(
        early32(DataFormat::Int32, false, 0x8001_2345),
        Intermediate::Int32(0x8001_2345)
    );
}

/// "Configuring the conversions": `IntermediateFormat = BF16` with
/// `Round_10b_mant` rounds to TF32; `IntermediateFormat = TF32` with
/// `Read_raw` is the identity; `IntermediateFormat = BFP8` is E8M6.
#[test]
fn early_configuration_selects_documented_conversion() {
    let mut cfg = EarlyConfig {
        read_32b_data: true,
        read_raw: false,
        read_unsigned: false,
        round_10b_mant: true,
        intermediate: DataFormat::Float16B,
        shift_amount: 0,
    };
    let x = dst::encode_fp32(0x3F80_1000);
    assert_eq!(
        pack::early_convert(Arch::WormholeB0, &cfg, x).unwrap(),
        Intermediate::Tf32(0x3F80_2000)
    );
    cfg.intermediate = DataFormat::Float32;
    assert_eq!(
        pack::early_convert(Arch::WormholeB0, &cfg, x).unwrap(),
        Intermediate::Tf32(0x3F80_2000)
    );
    cfg.read_raw = true;
    assert_eq!(
        pack::early_convert(Arch::WormholeB0, &cfg, x).unwrap(),
        Intermediate::Fp32(0x3F80_1000)
    );
    cfg.intermediate = DataFormat::Tf32;
    assert_eq!(
        pack::early_convert(Arch::WormholeB0, &cfg, x).unwrap(),
        Intermediate::Fp32(0x3F80_1000)
    );
    cfg.read_raw = false;
    cfg.round_10b_mant = false;
    cfg.intermediate = DataFormat::Bfp8B;
    assert_eq!(
        pack::early_convert(Arch::WormholeB0, &cfg, x).unwrap(),
        Intermediate::E8m6(0x3F80)
    );
    assert_eq!(
        early16(DataFormat::Bfp8A, true, dst::encode_fp16(0x3FFF)),
        Intermediate::E5m7(0x3FF8)
    );
    assert_eq!(
        early16(DataFormat::Bfp8A, false, dst::encode_fp16(0x3FF8)),
        Intermediate::E5m6(0x4000)
    );
    assert_eq!(
        early16(DataFormat::Lf8, true, dst::encode_fp16(0x3FFF)),
        Intermediate::Fp8(0x3F)
    );
    assert_eq!(
        early16(DataFormat::Tf32, false, dst::encode_bf16(0x8001)),
        Intermediate::Tf32(0)
    );
}

/// Early table "No" cells are undefined: e.g. FP16 Dst to FP32. (INT16 from
/// 32-bit Dst is "No" on the page too, but ttsim gives it a result, the top
/// half, which its conformance vectors record; see `EarlyConversion`.)
#[test]
fn undocumented_early_conversions_are_undefined() {
    let mut cfg = EarlyConfig {
        read_32b_data: true,
        read_raw: false,
        read_unsigned: false,
        round_10b_mant: false,
        intermediate: DataFormat::Bfp4B,
        shift_amount: 0,
    };
    let err = pack::early_convert(Arch::WormholeB0, &cfg, 0).unwrap_err();
    assert_eq!(err.kind, FaultKind::UndefinedBehavior);
    cfg.read_32b_data = false;
    cfg.intermediate = DataFormat::Float32;
    assert!(pack::early_convert(Arch::WormholeB0, &cfg, 0).is_err());
    cfg.intermediate = DataFormat::Lf8;
    assert!(pack::early_convert(Arch::WormholeB0, &cfg, 0).is_err());
}

/// The Wormhole page: FP32 → FP16 is not an early conversion. ttsim accepts
/// it on Blackhole with `Round_10b_mant`: round to TF32, then saturate to FP16.
#[test]
fn fp32_to_fp16_early_conversion_is_blackhole_only() {
    let cfg = EarlyConfig {
        read_32b_data: true,
        read_raw: false,
        read_unsigned: false,
        round_10b_mant: true,
        intermediate: DataFormat::Float16,
        shift_amount: 0,
    };
    let x = dst::encode_fp32(0x3F80_1000); // 1 + 2^-11: a tie at TF32
    assert!(pack::early_convert(Arch::WormholeB0, &cfg, x).is_err());
    assert_eq!(
        pack::early_convert(Arch::Blackhole, &cfg, x).unwrap(),
        Intermediate::Fp16(0x3C01)
    );
    let inf = dst::encode_fp32(0xFF80_0000);
    assert_eq!(
        pack::early_convert(Arch::Blackhole, &cfg, inf).unwrap(),
        Intermediate::Fp16(0xFFFF)
    );
}

/// Packer 0 reading L1 (second early table).
#[test]
fn l1_source_conversions() {
    use pack::l1_source_convert as c;
    assert_eq!(
        c(0xA5, 1, DataFormat::Float16B, false).unwrap(),
        Intermediate::Bf16(0x8025)
    );
    assert_eq!(
        c(0xA5, 1, DataFormat::Bfp8A, false).unwrap(),
        Intermediate::E5m7(0x8128)
    );
    assert_eq!(
        c(0xA5, 1, DataFormat::Int32, false).unwrap(),
        Intermediate::Int32(0xA500_0000)
    );
    assert_eq!(
        c(0xA5, 1, DataFormat::Int16, false).unwrap(),
        Intermediate::Int16(0xA500)
    );
    assert_eq!(
        c(0xA5, 1, DataFormat::Int8, true).unwrap(),
        Intermediate::UInt8(0xA5)
    );
    assert_eq!(
        c(0x1234, 2, DataFormat::Int32, false).unwrap(),
        Intermediate::Int32(0x1234_0000)
    );
    assert_eq!(
        c(0x1234, 2, DataFormat::Int8, false).unwrap(),
        Intermediate::Int8(0x12)
    );
    assert_eq!(
        c(0x1234_5678, 4, DataFormat::Int16, false).unwrap(),
        Intermediate::Int16(0x1234)
    );
    assert!(c(0x1234_5678, 4, DataFormat::Tf32, false).is_err());
    assert!(c(0x12, 1, DataFormat::Float16, false).is_err());
}

// ---------------------------------------------------------------------------
// Packer late conversion.

/// Packers/FormatConversion.md, late table: "To FP16 or FP8: Saturate if
/// there is narrowing of exponent"; FloatBitPatterns.md FP16: no infinity
/// encoding, exponent 31 / mantissa 1023 stands in for it; NaN becomes that
/// infinity.
#[test]
fn fp16_and_fp8_outputs_saturate_instead_of_infinity() {
    for (x, fp16, fp8) in [
        (0x7F80_0000u32, 0x7FFFu32, 0x7Fu32), // +inf
        (0xFF80_0000, 0xFFFF, 0xFF),          // −inf
        (0x7FC0_0000, 0x7FFF, 0x7F),          // NaN
        (0x5000_0000, 0x7FFF, 0x7F),          // 2^33
        (0x4800_0000, 0x7FFF, 0x7F),          // 2^17
        (0x47FF_FFFF, 0x7FFF, 0x7F),          // just below 2^17: exponent 31
        (0x4780_0000, 0x7C00, 0x7C),          // 2^16: exponent 31, finite here
    ] {
        assert_eq!(
            late(Intermediate::Fp32(x), DataFormat::Float16),
            fp16,
            "{x:#010x}"
        );
        assert_eq!(
            late(Intermediate::Fp32(x), DataFormat::Lf8),
            fp8,
            "{x:#010x}"
        );
    }
    assert_eq!(unpack::fp32_to_fp16(0xFF80_0000), 0xFFFF);
}

/// Late table, exponent narrows: "Denormal inputs flushed to zero, as are
/// inputs in range |x| ≤ 2^-15, but some inputs in range 2^-15 < |x| < 2^-14
/// are mishandled". The mishandled pattern keeps the truncated mantissa under
/// a zero exponent (ttsim).
#[test]
fn fp32_to_fp16_mishandles_the_range_below_2_pow_minus_14() {
    assert_eq!(
        late(Intermediate::Fp32(0x3880_0000), DataFormat::Float16),
        0x0400
    ); // 2^-14
    assert_eq!(
        late(Intermediate::Fp32(0x3800_0000), DataFormat::Float16),
        0x0000
    ); // 2^-15
    assert_eq!(
        late(Intermediate::Fp32(0xB800_0000), DataFormat::Float16),
        0x8000
    ); // −2^-15
    assert_eq!(
        late(Intermediate::Fp32(0x3840_0000), DataFormat::Float16),
        0x0200
    ); // 1.5·2^-15
    assert_eq!(
        late(Intermediate::Fp32(0x37FF_FFFF), DataFormat::Float16),
        0x0000
    );
    assert_eq!(
        late(Intermediate::Fp32(0x0000_0001), DataFormat::Float16),
        0x0000
    );
}

/// FloatBitPatterns.md FP16: exponent 31 is an ordinary binade for the
/// Matrix Unit, so widening keeps it finite (2^16 · (1 + m/1024)).
#[test]
fn fp16_exponent_31_widens_to_a_finite_value() {
    assert_eq!(
        late(Intermediate::Fp16(0x7C00), DataFormat::Float32),
        0x4780_0000
    );
    assert_eq!(
        late(Intermediate::Fp16(0xFFFF), DataFormat::Float32),
        0xC7FF_E000
    );
    assert_eq!(
        late(Intermediate::Fp16(0x7FFF), DataFormat::Float16B),
        0x47FF
    );
}

/// Late table, exponent widens: "Denormals mishandled" when the mantissa
/// does not narrow, "Denormals flushed to zero" when it narrows. ttsim
/// (`src/tensix.cpp`, PACR late conversion) copies the mantissa under a zero
/// exponent into FP32, and gives +0 at BF16 width (FP16 → BF16, BFP8a →
/// BFP8), which covers the "mishandled" E5M7/E5M6 → BF16 cases too.
#[test]
fn fp16_denormal_widening_is_mishandled() {
    assert_eq!(
        late(Intermediate::Fp16(0x0001), DataFormat::Float32),
        0x0000_2000
    );
    assert_eq!(
        late(Intermediate::Fp16(0x83FF), DataFormat::Float32),
        0x807F_E000
    );
    assert_eq!(late(Intermediate::Fp16(0x83FF), DataFormat::Float16B), 0);
    assert_eq!(late(Intermediate::Fp16(0x03FF), DataFormat::Float16B), 0);
    // A ReLU clamp to the denormal FP16 threshold 0x03FF under a BFP8a
    // intermediate format leaves an E5M6 datum with a zero exponent field.
    assert_eq!(late(Intermediate::E5m6(0x03FF), DataFormat::Float16B), 0);
    assert_eq!(
        pack::bfp_element(Intermediate::E5m6(0x03FF), BfpExp::B).unwrap(),
        0
    );
    assert_eq!(
        pack::bfp_element(Intermediate::E5m7(0x81F8), BfpExp::B).unwrap(),
        0
    );
}

/// Late table: "To FP32 or BF16: Truncate if there is narrowing of
/// mantissa"; "NaN can become infinity, if that is the outcome of truncating
/// mantissa bits".
#[test]
fn late_fp32_to_bf16_truncates() {
    assert_eq!(
        late(Intermediate::Fp32(0x3F80_FFFF), DataFormat::Float16B),
        0x3F80
    );
    assert_eq!(
        late(Intermediate::Fp32(0x7F80_0001), DataFormat::Float16B),
        0x7F80
    );
    assert_eq!(
        late(Intermediate::Fp32(0x7FC0_0000), DataFormat::Float16B),
        0x7FC0
    );
    assert_eq!(
        late(Intermediate::Fp32(0x807F_FFFF), DataFormat::Float16B),
        0x8000
    );
}

/// Late table "No" cells, and FP32 → TF32 ("No (use early conversion)").
#[test]
fn undocumented_late_conversions_are_undefined() {
    for (v, to) in [
        (Intermediate::Fp32(0), DataFormat::Tf32),
        (Intermediate::Int32(0), DataFormat::Float32),
        (Intermediate::Int16(0), DataFormat::Int32),
        (Intermediate::Int8(0), DataFormat::Int16),
        (Intermediate::Bf16(0), DataFormat::Int8),
        (Intermediate::Bf16(0), DataFormat::Bfp8B),
    ] {
        let e = pack::late_convert(v, to, Fp8Format::E5M2).unwrap_err();
        assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{v:?} → {to}");
    }
    assert!(pack::bfp_element(Intermediate::Int32(1), BfpExp::B).is_err());
    assert_eq!(late(Intermediate::UInt8(200), DataFormat::Int8), 200);
}

/// Unp_LF8_4b_exp (e4m3 unpacking) has no bit-level definition in
/// tt-isa-documentation; the unpack side follows ttsim's decode
/// (`format::unpack::fp8_e4m3_to_fp16`): 0x38 is 1.0 with bias 7, FP16
/// 0x3C00. (The packer side, Pac_LF8_4b_exp, is ttsim's model too; see
/// `pack_stages.rs`.)
#[test]
fn fp8_e4m3_unpack_rebiases() {
    let cfg = UnpackConfig {
        in_format: DataFormat::Lf8,
        out_format: DataFormat::Lf8,
        to_dst: false,
        int8_unsigned: false,
        fp8: Fp8Format::E4M3,
    };
    assert_eq!(
        unpack::unpack_datum(&cfg, 0x38, 0).unwrap(),
        Unpacked::Src(SrcCell::from_fp16(0x3C00))
    );
}

// ---------------------------------------------------------------------------
// BFP packing.

fn bf16_block(first: &[u16]) -> [u16; 16] {
    let mut b = [0u16; 16];
    b[..first.len()].copy_from_slice(first);
    b
}

/// Device fact (reference README): the mantissa with its hidden bit is
/// shifted right by shared − own and rounded half away from zero. tt-metal's
/// host code rounds ties to even, which is not the device (tt-metal issues
/// #52155 and #57410): the tie 64.5 below gives 65, not 64.
#[test]
fn bfp_mantissa_rounds_half_away_from_zero() {
    // Shared exponent 127 (1.0): 0x3F81 = 1 + 1/128 → 64.5 → 65.
    let g = bfp::bfp_assemble(
        BfpExp::B,
        BfpWidth::Bits8,
        &bf16_block(&[0x3F81, 0xBF81, 0x3F83]),
    );
    assert_eq!(g.shared_exp, 127);
    assert_eq!(g.datums[..3], [65, 0x80 | 65, 66]); // 65.5 → 66
                                                    // Shared exponent 128: 0x3F81 at shift 1 → 32.25 → 32; 0x3F83 → 32.75 → 33.
    let g = bfp::bfp_assemble(
        BfpExp::B,
        BfpWidth::Bits8,
        &bf16_block(&[0x4000, 0x3F81, 0x3F83, 0x3F80]),
    );
    assert_eq!(g.shared_exp, 128);
    assert_eq!(g.datums[..4], [64, 32, 33, 32]);
    // Shared exponent 129: 0x3F84 = 1.03125 → 16.5 → 17.
    let g = bfp::bfp_assemble(BfpExp::B, BfpWidth::Bits8, &bf16_block(&[0x4080, 0x3F84]));
    assert_eq!(g.datums[..2], [64, 17]);
}

/// Device fact: "a carry to 128 clamps to 127".
#[test]
fn bfp_rounding_carry_clamps_to_127() {
    // 0x3FFF = 1.9921875 → 127.5 → 128 → 127.
    let g = bfp::bfp_assemble(BfpExp::B, BfpWidth::Bits8, &bf16_block(&[0x3FFF, 0xBFFF]));
    assert_eq!(g.shared_exp, 127);
    assert_eq!(g.datums[..2], [127, 0xFF]);
}

/// Device fact: "shift ≥ 8 gives 0".
#[test]
fn bfp_shift_of_8_or_more_gives_zero() {
    // 1.9921875 (mantissa 255) under shared exponent 127 + 7: 255/256 → 1;
    // under 127 + 8: 255/512 → 0.
    let g = bfp::bfp_assemble(BfpExp::B, BfpWidth::Bits8, &bf16_block(&[0x4300, 0x3FFF]));
    assert_eq!(g.shared_exp, 134);
    assert_eq!(g.datums[1], 1);
    let g = bfp::bfp_assemble(
        BfpExp::B,
        BfpWidth::Bits8,
        &bf16_block(&[0x4380, 0x3FFF, 0xBFFF]),
    );
    assert_eq!(g.shared_exp, 135);
    assert_eq!(g.datums[1..3], [0, 0]);
}

/// Device fact: "A zero mantissa is written without its sign", because sign 1
/// with magnitude 0 decodes to −infinity.
#[test]
fn bfp_zero_mantissa_is_written_without_sign() {
    let g = bfp::bfp_assemble(
        BfpExp::B,
        BfpWidth::Bits8,
        &bf16_block(&[0x4380, 0x8000, 0xBF80]),
    );
    assert_eq!(g.datums[1], 0);
    assert_eq!(g.datums[2], 0);
    let g = bfp::bfp_assemble(BfpExp::B, BfpWidth::Bits4, &bf16_block(&[0x3F80, 0xBC00]));
    assert_eq!(g.datums[1], 0);
    assert_eq!(bfp::bfp8_truncate(0x87, BfpWidth::Bits4), 0);
    assert_eq!(bfp::bfp8_truncate(0x97, BfpWidth::Bits4), 0x9);
}

/// Packers/FormatConversion.md: "To BFP4 or BFP2: Converted to BFP8 (as per
/// the above row), then truncate"; device fact: "BFP4/BFP2 take the rounded
/// BFP8 mantissa and truncate" (tt-metal rounds BFP4 directly; ~43% of BFP4
/// elements differ, tt-metal #57410).
#[test]
fn bfp4_is_truncated_rounded_bfp8() {
    // 1.4375 (BF16 0x3FB8): BFP8 magnitude 92 → BFP4 92 >> 4 = 5 (1.25);
    // direct rounding of 1.4375·4 = 5.75 would give 6.
    let g = bfp::bfp_assemble(BfpExp::B, BfpWidth::Bits4, &bf16_block(&[0x3FB8, 0xBFB8]));
    assert_eq!(g.datums[..2], [5, 0x8 | 5]);
    // 1.9921875 rounds up to BFP8 127 (clamped), truncating to BFP4 7.
    let g = bfp::bfp_assemble(BfpExp::B, BfpWidth::Bits4, &bf16_block(&[0x3FFF]));
    assert_eq!(g.datums[0], 7);
    // BFP2: 1.9921875 → 127 → 1; 0.75 under exponent 127 → 48 → 0.
    let g = bfp::bfp_assemble(
        BfpExp::B,
        BfpWidth::Bits2,
        &bf16_block(&[0x3FFF, 0x3F40, 0xBF80]),
    );
    assert_eq!(g.datums[..3], [1, 0, 0b11]);
}

/// Device fact: "shared exponent = the largest 8-bit BF16 exponent of the 16
/// datums (255 counts as a number)".
#[test]
fn bfp_shared_exponent_counts_255() {
    let g = bfp::bfp_assemble(
        BfpExp::B,
        BfpWidth::Bits8,
        &bf16_block(&[0x3F80, 0x7F80, 0xFFC0]),
    );
    assert_eq!(g.shared_exp, 255);
    assert_eq!(g.datums[..3], [0, 64, 0x80 | 96]);
}

/// BFP "a" forms: 5-bit shared exponent with FP16 bias, zero-extended in
/// memory; the datums are made from E5M7 (FloatBitPatterns.md "BFP";
/// Packers/FormatConversion.md "To BFP8a").
#[test]
fn bfp_a_forms_use_a_5_bit_exponent() {
    let elems: Vec<u16> = [0x3C00u16, 0xC200, 0x7FFF, 0x0400]
        .iter()
        .map(|&h| pack::bfp_element(Intermediate::Fp16(h), BfpExp::A).unwrap())
        .collect();
    assert_eq!(elems, [0x3C00, 0xC200, 0x7FF8, 0x0400]);
    let g = bfp::bfp_assemble(BfpExp::A, BfpWidth::Bits8, &bf16_block(&elems));
    assert_eq!(g.shared_exp, 31);
    // 1.0 at shift 16 → 0; 0x7FF8 = (1 + 127/128)·2^16 → 127.5 → 127.
    assert_eq!(g.datums[..4], [0, 0, 127, 0]);
    let g = bfp::bfp_assemble(BfpExp::A, BfpWidth::Bits8, &bf16_block(&elems[..2]));
    assert_eq!(g.shared_exp, 16);
    assert_eq!(g.datums[..2], [32, 0x80 | 96]);
    // Element from FP32: saturate to E5M7 first.
    assert_eq!(
        pack::bfp_element(Intermediate::Fp32(0x7F80_0000), BfpExp::A).unwrap(),
        0x7FF8
    );
}

/// ttsim's BFP4 packer and the unpacker's `ReadL1Bytes` read datums least
/// significant bits first.
#[test]
fn bfp_datum_packing_order() {
    let datums: [u8; 16] = core::array::from_fn(|i| i as u8);
    let mut out = [0u8; 16];
    bfp::bfp_pack_datums(BfpWidth::Bits4, &datums, &mut out);
    assert_eq!(out[..8], [0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE]);
    let crumbs: [u8; 16] = core::array::from_fn(|i| (i % 4) as u8);
    bfp::bfp_pack_datums(BfpWidth::Bits2, &crumbs, &mut out);
    assert_eq!(out[..4], [0xE4; 4]);
}

// ---------------------------------------------------------------------------
// BFP unpacking.

/// Device fact and FloatBitPatterns.md "BFP": sign 1 with magnitude 0 means
/// −infinity, decoded as BF16 `0xFF80` whatever the exponent.
#[test]
fn bfp_negative_zero_mantissa_decodes_to_neg_inf() {
    for exp in [0u8, 1, 127, 255] {
        assert_eq!(bfp::bfp8_to_bf16(0x80, exp), 0xFF80);
        assert_eq!(
            bfp::bfp_expand(BfpExp::B, BfpWidth::Bits4, 0x8, exp).unwrap(),
            0xFF80
        );
        assert_eq!(
            bfp::bfp_expand(BfpExp::B, BfpWidth::Bits2, 0x2, exp).unwrap(),
            0xFF80
        );
        assert_eq!(bfp::bfp8_to_bf16(0x00, exp), 0x0000);
    }
}

/// Device fact: BFP8a with sign 1 and magnitude 0 decodes to FP16 `0xFC00`
/// (−2^16 in Tensix FP16).
#[test]
fn bfp8a_negative_zero_mantissa_decodes_to_fp16_0xfc00() {
    for exp in [0u8, 15, 31, 200] {
        assert_eq!(bfp::bfp8a_to_fp16(0x80, exp).unwrap(), 0xFC00);
        assert_eq!(
            bfp::bfp_expand(BfpExp::A, BfpWidth::Bits4, 0x8, exp).unwrap(),
            0xFC00
        );
    }
}

/// FloatBitPatterns.md `BFP8ToBF16`: `ExpBits -= LZ` in 8-bit arithmetic; it
/// wraps when the shared exponent is smaller than the normalising shift
/// (ttsim: "spec/silicon are consistent here").
#[test]
fn bfp_unpack_exponent_wraps() {
    assert_eq!(bfp::bfp8_to_bf16(0x40, 127), 0x3F80);
    assert_eq!(bfp::bfp8_to_bf16(0x01, 127), 0x3C80); // 2^-6
    assert_eq!(bfp::bfp8_to_bf16(0x20, 0), 0x7F80); // exponent 0 − 1 = 255
    assert_eq!(bfp::bfp8_to_bf16(0x21, 1), 0x0004); // exponent 0, mantissa kept
}

/// `BFP8aToFP16`: `if (ExpBits & 0xe0) UndefinedBehavior();`.
#[test]
fn bfp8a_unpack_exponent_out_of_range_is_undefined() {
    assert_eq!(bfp::bfp8a_to_fp16(0x40, 15).unwrap(), 0x3C00);
    assert_eq!(
        bfp::bfp8a_to_fp16(0x40, 32).unwrap_err().kind,
        FaultKind::UndefinedBehavior
    );
    assert_eq!(
        bfp::bfp8a_to_fp16(0x20, 0).unwrap_err().kind,
        FaultKind::UndefinedBehavior
    );
    assert_eq!(bfp::bfp8a_to_fp16(0x10, 33).unwrap(), 0x7C00); // 33 − 2 = 31
}

// ---------------------------------------------------------------------------
// Unpacker.

fn ucfg(in_format: DataFormat, out_format: DataFormat, to_dst: bool) -> UnpackConfig {
    UnpackConfig {
        in_format,
        out_format,
        to_dst,
        int8_unsigned: false,
        fp8: Fp8Format::E5M2,
    }
}

/// `UNPACR_Regular.md` `FormatConversion`, FP32 → BF16: "Flush denormals to
/// zero" with `DatumBits &= 0x80000000u` (the sign survives), then `>>= 16`
/// (truncation).
#[test]
fn unpack_fp32_to_bf16_truncates_and_keeps_the_sign_of_flushed_zero() {
    let c = ucfg(DataFormat::Float32, DataFormat::Float16B, false);
    let s = |x| match unpack::unpack_datum(&c, x, 0).unwrap() {
        Unpacked::Src(s) => s.to_bf16(),
        o => panic!("{o:?}"),
    };
    assert_eq!(s(0x3F80_FFFF), 0x3F80);
    assert_eq!(s(0x807F_FFFF), 0x8000);
    assert_eq!(s(0x8000_0000), 0x8000);
    assert_eq!(s(0x7F80_0001), 0x7F80);
    let d = ucfg(DataFormat::Float32, DataFormat::Float16B, true);
    assert_eq!(
        unpack::unpack_datum(&d, 0xBF80_1234, 0).unwrap(),
        Unpacked::Dst16(0x807F)
    );
}

/// FP32 → TF32: Src keeps the top 19 bits (`DatumBits >> 13`), no rounding
/// and no flushing; to Dst, TF32 means FP32.
#[test]
fn unpack_fp32_to_tf32_truncates() {
    let c = ucfg(DataFormat::Float32, DataFormat::Tf32, false);
    assert_eq!(
        unpack::unpack_datum(&c, 0x3F80_1FFF, 0).unwrap(),
        Unpacked::Src(SrcCell::from_canonical(0x3F80_0000 >> 13))
    );
    assert_eq!(
        unpack::unpack_datum(&c, 0x0000_2000, 0).unwrap(),
        Unpacked::Src(SrcCell::from_canonical(1))
    );
    let d = ucfg(DataFormat::Float32, DataFormat::Tf32, true);
    assert_eq!(
        unpack::unpack_datum(&d, 0x3F80_1FFF, 0).unwrap(),
        Unpacked::Dst32(0x007F_1FFF)
    );
}

/// SrcASrcB.md, Integer "8": "unpackers will instead set these bits to 0
/// when the magnitude is zero"; otherwise raw exponent 16.
#[test]
fn int8_unpack_uses_exponent_16_or_0() {
    let c = ucfg(DataFormat::Int8, DataFormat::Int8, false);
    let cell = |x| match unpack::unpack_datum(&c, x, 0).unwrap() {
        Unpacked::Src(s) => s,
        o => panic!("{o:?}"),
    };
    assert_eq!(cell(0x85).hw(), (1 << 18) | (5 << 8) | 16);
    assert_eq!(cell(0x80).hw(), 1 << 18);
    assert_eq!(cell(0x00).hw(), 0);
    let mut u = c;
    u.int8_unsigned = true;
    assert_eq!(
        unpack::unpack_datum(&u, 0xFF, 0).unwrap(),
        Unpacked::Src(SrcCell::from_int8(false, 255))
    );
    u.to_dst = true;
    assert_eq!(
        unpack::unpack_datum(&u, 0xFF, 0).unwrap(),
        Unpacked::Dst16((255 << 5) | 16)
    );
}

/// `FormatConversion`: only FP32 may convert; INT32/FP32 only to Dst; TF32
/// input only to Dst.
#[test]
fn unpack_undefined_combinations() {
    for c in [
        ucfg(DataFormat::Float16B, DataFormat::Float16, false),
        ucfg(DataFormat::Float32, DataFormat::Bfp8B, false),
        ucfg(DataFormat::Float32, DataFormat::Float32, false),
        ucfg(DataFormat::Int32, DataFormat::Int32, false),
        ucfg(DataFormat::Tf32, DataFormat::Tf32, false),
    ] {
        assert_eq!(
            unpack::unpack_datum(&c, 0, 0).unwrap_err().kind,
            FaultKind::UndefinedBehavior,
            "{c:?}"
        );
    }
    assert_eq!(
        unpack::unpack_datum(
            &ucfg(DataFormat::Int32, DataFormat::Int32, true),
            0x8000_0001,
            0
        )
        .unwrap(),
        Unpacked::Dst32(0x8000_0001)
    );
    assert_eq!(
        unpack::unpack_datum(
            &ucfg(DataFormat::Tf32, DataFormat::Tf32, true),
            0x3F80_0001,
            0
        )
        .unwrap(),
        Unpacked::Dst32(0x007F_0001)
    );
}

// ---------------------------------------------------------------------------
// Dst and RISC-V access.

/// Dst.md: `Dst32b[Row]` reads `(DstBits[Adj32(Row)] << 16) |
/// DstBits[Adj32(Row) + 8]`, the high half in the lower row (seed 002 says
/// the opposite). Adj32 on Wormhole: `((Row & 0x1f8) << 1) | (Row & 0x207)`.
#[test]
fn dst32_high_half_is_the_lower_row() {
    assert_eq!(dst::dst32_halves(0x1234_5678), (0x1234, 0x5678));
    assert_eq!(dst::dst32_join(0x1234, 0x5678), 0x1234_5678);
    let none = DstAccessCfg::default();
    assert_eq!(dst::adj32(Arch::WormholeB0, 0, none), 0);
    assert_eq!(dst::adj32(Arch::WormholeB0, 7, none), 7);
    assert_eq!(dst::adj32(Arch::WormholeB0, 8, none), 16);
    assert_eq!(dst::adj32(Arch::WormholeB0, 511, none), 1015);
    assert_eq!(dst::adj32(Arch::WormholeB0, 512, none), 512);
    let mut seen = [false; 1024];
    for r in 0..512u16 {
        let a = dst::adj32(Arch::WormholeB0, r, none) as usize;
        assert_eq!(a, (r as usize / 8) * 16 + r as usize % 8);
        for p in [a, a + 8] {
            assert!(!seen[p]);
            seen[p] = true;
        }
    }
    assert!(seen.iter().all(|&s| s));
}

/// Blackhole Dst.md `Adj16` with `remap_addrs` permutes rows within each
/// aligned group of 64; `Adj32` with `swizzle_32b` still pairs each of 512
/// rows with a distinct physical pair.
#[test]
fn blackhole_dst_row_remapping_is_a_permutation() {
    let remap = DstAccessCfg {
        remap_addrs: true,
        swizzle_32b: false,
    };
    let mut seen = [false; 1024];
    for r in 0..1024u16 {
        let a = dst::adj16(Arch::Blackhole, r, remap);
        assert_eq!(a & !0x3F, r & !0x3F);
        assert!(!seen[a as usize]);
        seen[a as usize] = true;
        assert_eq!(dst::adj16(Arch::WormholeB0, r, remap), r);
    }
    let both = DstAccessCfg {
        remap_addrs: true,
        swizzle_32b: true,
    };
    let mut seen = [false; 1024];
    for r in 0..512u16 {
        let a = dst::adj32(Arch::Blackhole, r, both) as usize;
        for p in [a, a + 8] {
            assert!(!seen[p], "row {r}");
            seen[p] = true;
        }
    }
    assert_eq!(dst::adj16(Arch::Blackhole, 0x08, remap), 0x20);
    assert_eq!(dst::adj16(Arch::Blackhole, 0x10, remap), 0x08);
}

fn acc(fmt: u8) -> RiscvDstAccess {
    RiscvDstAccess {
        fmt,
        no_swizzle: false,
        unsigned_int: false,
    }
}

/// Blackhole Dst.md `Load32` fmt 1: sign-magnitude to two's complement, "−0
/// becomes +0"; `Store32`: "clamping −2**31 to −(2**31−1)". Both swizzle
/// as `Dst32_FP32`: sign 31, bits 22:16 to 30:24, bits 30:23 to 23:16.
#[test]
fn riscv_int32_access_converts_sign_magnitude() {
    let bh = Arch::Blackhole;
    // −5 is sign-magnitude 0x8000_0005; the swizzled fields are all zero.
    assert_eq!(
        dst::riscv_load32(bh, acc(1), 0x8000_0005).unwrap(),
        (-5i32) as u32
    );
    assert_eq!(
        dst::riscv_store32(bh, acc(1), (-5i32) as u32).unwrap(),
        0x8000_0005
    );
    // −0x0123_4567 is sign-magnitude 0x8123_4567: bits 30:23 = 0x02 and
    // bits 22:16 = 0x23, so Dst holds 0x8000_0000 | 0x23 << 24 | 0x02 << 16
    // | 0x4567.
    assert_eq!(
        dst::riscv_store32(bh, acc(1), (-0x0123_4567i32) as u32).unwrap(),
        0xA302_4567
    );
    assert_eq!(
        dst::riscv_load32(bh, acc(1), 0xA302_4567).unwrap(),
        (-0x0123_4567i32) as u32
    );
    // −0 reads as +0.
    assert_eq!(dst::riscv_load32(bh, acc(1), 0x8000_0000).unwrap(), 0);
    // −2^31 is clamped to −(2^31 − 1) = 0xFFFF_FFFF sign-magnitude, whose
    // swizzle is itself.
    assert_eq!(
        dst::riscv_store32(bh, acc(1), 0x8000_0000).unwrap(),
        0xFFFF_FFFF
    );
    // fmt 0: FP32 1.0 + 2^-23 (0x3F80_0001) is stored as 0x007F_0001.
    assert_eq!(
        dst::riscv_load32(bh, acc(0), 0x007F_0001).unwrap(),
        0x3F80_0001
    );
    assert_eq!(
        dst::riscv_load32(bh, acc(2), 0).unwrap_err().kind,
        FaultKind::UndefinedBehavior
    );
    assert_eq!(
        dst::riscv_load32(Arch::WormholeB0, acc(0), 0)
            .unwrap_err()
            .kind,
        FaultKind::Unimplemented
    );
}

/// Blackhole Dst.md `Store8`: "Meant to be conversion from two's complement
/// to sign-magnitude, but isn't": the magnitude is `0x180 − Value − (Value ==
/// 0x80)`, so −1 is stored as magnitude 129.
#[test]
fn riscv_store8_negative_is_not_sign_magnitude() {
    let bh = Arch::Blackhole;
    assert_eq!(
        dst::riscv_store8(bh, acc(5), 0xFF).unwrap(),
        0x8000 | (129 << 5) | 16
    );
    assert_eq!(
        dst::riscv_store8(bh, acc(5), 0x80).unwrap(),
        0x8000 | (255 << 5) | 16
    );
    assert_eq!(dst::riscv_store8(bh, acc(5), 0x05).unwrap(), (5 << 5) | 16);
    assert_eq!(dst::riscv_store8(bh, acc(5), 0x00).unwrap(), 0);
    // Load8 reads sign and low seven magnitude bits back as two's complement.
    assert_eq!(
        dst::riscv_load8(bh, acc(5), 0x8000 | (129 << 5) | 16).unwrap(),
        0xFF
    );
    assert_eq!(dst::riscv_load8(bh, acc(5), 0x8000 | 16).unwrap(), 0);
    let unsigned = RiscvDstAccess {
        unsigned_int: true,
        ..acc(5)
    };
    assert_eq!(
        dst::riscv_store8(bh, unsigned, 0xFF).unwrap(),
        (255 << 5) | 16
    );
    assert_eq!(
        dst::riscv_load8(bh, unsigned, (255 << 5) | 16).unwrap(),
        0xFF
    );
}

/// `Load16` / `Store16`: fmt 2 and 3 swizzle FP16 and BF16, fmt 4 converts
/// between two's complement and sign-magnitude unless unsigned.
#[test]
fn riscv_16bit_access_round_trips() {
    let bh = Arch::Blackhole;
    for x in 0..=0xFFFFu16 {
        for fmt in [2u8, 3] {
            let stored = dst::riscv_store16(bh, acc(fmt), x).unwrap();
            assert_eq!(dst::riscv_load16(bh, acc(fmt), stored).unwrap(), x);
        }
        let stored = dst::riscv_store16(bh, acc(4), x).unwrap();
        let back = dst::riscv_load16(bh, acc(4), stored).unwrap();
        if x == 0x8000 {
            assert_eq!(stored, 0xFFFF);
            assert_eq!(back, 0x8001);
        } else {
            assert_eq!(back, x);
            assert_eq!(int::sign_mag_value(stored as u32, 16), x as i16 as i64);
        }
    }
    assert_eq!(dst::riscv_store16(bh, acc(3), 0x3F80).unwrap(), 0x007F);
    assert_eq!(dst::riscv_store16(bh, acc(2), 0x3C00).unwrap(), 0x000F);
}
