//! Exhaustive checks of every conversion over all 8-bit and 16-bit inputs
//! (and structured 32-bit sets), against the value-level models in
//! `format_ref`. Expected values are never produced by the code under test.

mod format_ref;

use format_ref::*;
use half::{bf16, f16};
use tensix_emu::format::bfp::{self, BfpGroup};
use tensix_emu::format::pack::{self, Intermediate};
use tensix_emu::format::unpack::{self, UnpackConfig, Unpacked};
use tensix_emu::format::{dst, int, BfpExp, BfpWidth, DataFormat, Fp8Format, SrcCell};

/// FP32 patterns: every top half with low halves chosen around the rounding
/// points of BF16, TF32 and E8M6.
fn fp32_structured() -> impl Iterator<Item = u32> {
    const LOW: [u32; 14] = [
        0x0000, 0x0001, 0x0FFF, 0x1000, 0x1001, 0x1FFF, 0x2000, 0x7FFF, 0x8000, 0x8001, 0xA5A5,
        0xE000, 0xF000, 0xFFFF,
    ];
    (0..=0xFFFFu32).flat_map(|hi| LOW.iter().map(move |&lo| (hi << 16) | lo))
}

fn all_u16() -> impl Iterator<Item = u16> {
    0..=0xFFFF
}

// ---------------------------------------------------------------------------
// Packer early conversion.

#[test]
fn early_fp32_rounding_matches_value_model() {
    for x in fp32_structured() {
        assert_eq!(
            pack::fp32_round_to_bf16(x) as u32,
            ref_round_e8(x, 7) >> 16,
            "bf16 {x:#010x}"
        );
        assert_eq!(
            pack::fp32_round_to_tf32(x),
            ref_round_e8(x, 10),
            "tf32 {x:#010x}"
        );
        assert_eq!(
            pack::fp32_round_to_e8m6(x) as u32,
            ref_round_e8(x, 6) >> 16,
            "e8m6 {x:#010x}"
        );
    }
}

#[test]
fn early_bf16_rounding_matches_value_model() {
    for x in all_u16() {
        let w = (x as u32) << 16;
        assert_eq!(
            pack::bf16_round(x) as u32,
            ref_round_e8(w, 7) >> 16,
            "{x:#06x}"
        );
        // From a 16-bit Dst a denormal BF16 is flushed before rounding.
        let e8m6 = if x & 0x7F80 == 0 {
            0
        } else {
            ref_round_e8(w, 6) >> 16
        };
        assert_eq!(pack::bf16_round_to_e8m6(x) as u32, e8m6, "{x:#06x}");
        assert_eq!(pack::bf16_round_to_tf32(x), ref_round_e8(w, 10), "{x:#06x}");
    }
}

#[test]
fn early_fp32_truncation_to_bf16_matches_value_model() {
    for x in fp32_structured() {
        let v = fp32_value(x);
        let got = pack::fp32_truncate_to_bf16(x);
        if !v.is_finite() {
            // Truncating NaN or infinity keeps sign, exponent and the top
            // mantissa bits (a NaN may become infinity).
            assert_eq!(got as u32, x >> 16);
            continue;
        }
        assert_eq!(
            got as u32,
            BF16.encode(truncate(v, BF16.ulp(v))),
            "{x:#010x}"
        );
    }
}

#[test]
fn early_fp16_rounding_and_truncation_match_value_model() {
    for x in all_u16() {
        let v = fp16_value(x);
        let a = v.abs();
        let neg = x & 0x8000 != 0;
        // FP16 → FP16 rounding: denormals and −0 → +0, else unchanged.
        let expect = if a < pow2(-14) { 0 } else { x };
        assert_eq!(pack::fp16_round(x), expect, "{x:#06x}");

        // FP16 → E5M6 rounding, saturating at the largest E5M6; a result
        // below the normal range (after rounding) becomes +0.
        let e5m6 = FP16.with_man(6);
        let r = round_half_away(a, e5m6.ulp(a)).min(e5m6.max_finite());
        let expect = if r < pow2(-14) {
            0
        } else {
            place_e5(if neg { 0x8000 } else { 0 }, r, 6)
        };
        assert_eq!(pack::fp16_round_to_e5m6(x), expect, "{x:#06x}");

        // Truncations (denormals truncate on the denormal grid).
        let sign = if neg { 0x8000u16 } else { 0 };
        for (man, got) in [
            (7, pack::fp16_truncate_to_e5m7(x)),
            (2, (pack::fp16_truncate_to_fp8(x) as u16) << 8),
        ] {
            let f = FP16.with_man(man);
            let t = truncate(a, f.ulp(a));
            let enc = f.encode(t) as u16;
            let expect = sign | ((enc >> man) << 10) | ((enc & ((1 << man) - 1)) << (10 - man));
            assert_eq!(got, expect, "man {man} {x:#06x}");
        }
    }
}

#[test]
fn early_int8_from_16bit_is_sign_only() {
    for x in all_u16() {
        // Both Dst16b float arrangements keep the sign in bit 15; the value's
        // sign (including −0 and NaN signs) is what survives.
        let neg = bf16::from_bits(x).to_f64().is_sign_negative();
        assert_eq!(
            int::float16_to_int8_sign_only(x),
            if neg { 0x80 } else { 0 }
        );
    }
}

#[test]
fn early_int32_descale_matches_value_model() {
    for signed_mag in 0..=0xFFFFu32 {
        for hi in [0u32, 0x0001_0000, 0x7FFF_0000] {
            let mag = hi | signed_mag;
            for neg in [false, true] {
                let x = ((neg as u32) << 31) | mag;
                for shift in 0..32u8 {
                    let q = mag as f64 / pow2(shift as i32);
                    let r = (q + 0.5).floor();
                    let signed = if neg { 0x80 } else { 0 } | r.min(127.0) as u8;
                    let unsigned = if neg { 0 } else { r.min(255.0) as u8 };
                    assert_eq!(int::int32_to_int8_descaled(x, shift, false), signed);
                    assert_eq!(int::int32_to_int8_descaled(x, shift, true), unsigned);
                    // Only the low five bits of the shift count.
                    assert_eq!(int::int32_to_int8_descaled(x, shift | 0xE0, false), signed);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Packer late conversion.

fn late(v: Intermediate, to: DataFormat) -> u32 {
    pack::late_convert(v, to, Fp8Format::E5M2).unwrap()
}

#[test]
fn late_from_bf16_matches_value_model_and_half() {
    for x in all_u16() {
        let v = bf16_value(x);
        let neg = x & 0x8000 != 0;
        let i = Intermediate::Bf16(x);
        // Widening to FP32 is exact: IEEE, as `half` computes it.
        let f32_bits = late(i, DataFormat::Float32);
        if v.is_nan() {
            assert_eq!(f32_bits, (x as u32) << 16);
        } else {
            assert_eq!(f32_bits, bf16::from_bits(x).to_f32().to_bits(), "{x:#06x}");
        }
        assert_eq!(late(i, DataFormat::Float16B), x as u32);
        assert_eq!(late(i, DataFormat::Tf32), (x as u32) << 16);
        assert_eq!(
            late(i, DataFormat::Float16),
            ref_e8_to_e5(v, neg, 10) as u32,
            "{x:#06x}"
        );
        assert_eq!(
            late(i, DataFormat::Lf8),
            (ref_e8_to_e5(v, neg, 2) >> 8) as u32,
            "{x:#06x}"
        );
        assert_eq!(
            pack::bfp_element(i, BfpExp::A).unwrap(),
            ref_e8_to_e5(v, neg, 7),
            "{x:#06x}"
        );
        assert_eq!(pack::bfp_element(i, BfpExp::B).unwrap(), x);
    }
}

#[test]
fn late_from_fp32_matches_value_model() {
    for x in fp32_structured() {
        let v = fp32_value(x);
        let neg = x >> 31 == 1;
        let i = Intermediate::Fp32(x);
        assert_eq!(late(i, DataFormat::Float32), x);
        let bf = late(i, DataFormat::Float16B);
        if !v.is_finite() {
            assert_eq!(bf, x >> 16);
        } else {
            let expect = if v.abs() < pow2(-126) {
                (neg as u32) << 15
            } else {
                BF16.encode(truncate(v, BF16.ulp(v)))
            };
            assert_eq!(bf, expect, "{x:#010x}");
        }
        assert_eq!(pack::bfp_element(i, BfpExp::B).unwrap() as u32, bf);
        assert_eq!(
            late(i, DataFormat::Float16),
            ref_e8_to_e5(v, neg, 10) as u32,
            "{x:#010x}"
        );
        assert_eq!(
            pack::bfp_element(i, BfpExp::A).unwrap(),
            ref_e8_to_e5(v, neg, 7)
        );
    }
}

#[test]
fn late_from_fp16_matches_value_model_and_half() {
    for x in all_u16() {
        let i = Intermediate::Fp16(x);
        let exp = (x >> 10) & 0x1F;
        let f32_bits = late(i, DataFormat::Float32);
        assert_eq!(f32_bits, ref_e5_to_e8(x, 10, 23), "{x:#06x}");
        if (1..31).contains(&exp) {
            // Normal FP16 widens exactly as IEEE does.
            assert_eq!(f32_bits, f16::from_bits(x).to_f32().to_bits());
        }
        assert_eq!(
            late(i, DataFormat::Tf32),
            ref_e5_to_e8(x, 10, 10),
            "{x:#06x}"
        );
        assert_eq!(
            late(i, DataFormat::Float16B),
            ref_e5_to_e8(x, 10, 7) >> 16,
            "{x:#06x}"
        );
        assert_eq!(late(i, DataFormat::Float16), x as u32);

        // FP16 → FP8: same exponent, mantissa narrows: denormals flush (sign
        // kept), otherwise truncation.
        let v = fp16_value(x);
        let sign = x & 0x8000;
        let expect = if v.abs() < pow2(-14) {
            sign
        } else {
            place_e5(sign, v.abs(), 2)
        };
        assert_eq!(late(i, DataFormat::Lf8), (expect >> 8) as u32, "{x:#06x}");
        assert_eq!(
            pack::bfp_element(i, BfpExp::A).unwrap(),
            if v.abs() < pow2(-14) {
                sign
            } else {
                place_e5(sign, v.abs(), 7)
            }
        );
        assert_eq!(
            pack::bfp_element(i, BfpExp::B).unwrap() as u32,
            ref_e5_to_e8(x, 10, 7) >> 16
        );
    }
}

#[test]
fn late_from_fp8_is_exact_widening() {
    for b in 0..=0xFFu8 {
        let h = (b as u16) << 8;
        let i = Intermediate::Fp8(b);
        assert_eq!(late(i, DataFormat::Lf8), b as u32);
        let f16_bits = late(i, DataFormat::Float16) as u16;
        // Same exponent, wider mantissa: every value (denormals included)
        // is preserved.
        assert_eq!(fp16_value(f16_bits), fp16_value(h));
        assert_eq!(f16_bits.to_be_bytes()[0], b);
        assert_eq!(late(i, DataFormat::Float32), ref_e5_to_e8(h, 2, 23));
    }
}

#[test]
fn late_from_e8m6_e5m7_e5m6() {
    for x in all_u16() {
        let e8m6 = x & !1;
        assert_eq!(
            late(Intermediate::E8m6(e8m6), DataFormat::Float16B),
            e8m6 as u32
        );
        assert_eq!(
            late(Intermediate::E8m6(e8m6), DataFormat::Float32),
            (e8m6 as u32) << 16
        );
        let e5m7 = x & !7;
        assert_eq!(
            pack::bfp_element(Intermediate::E5m7(e5m7), BfpExp::A).unwrap(),
            e5m7
        );
        assert_eq!(
            late(Intermediate::E5m7(e5m7), DataFormat::Float16),
            e5m7 as u32
        );
        // E5M7 → BF16: exponent widens, mantissa stays 7 bits: denormals are
        // "mishandled" (ttsim: flushed to +0), normals rebias.
        assert_eq!(
            late(Intermediate::E5m7(e5m7), DataFormat::Float16B),
            ref_e5_to_e8(e5m7, 7, 7) >> 16,
            "{e5m7:#06x}"
        );
        let e5m6 = x & !0xF;
        assert_eq!(
            late(Intermediate::E5m6(e5m6), DataFormat::Float16B),
            ref_e5_to_e8(e5m6, 6, 7) >> 16
        );
    }
}

// ---------------------------------------------------------------------------
// BFP assembly.

/// A block of one element under test and one anchor setting the shared
/// exponent; everything else zero.
fn block_with(elem: u16, pos: usize, anchor: u16, anchor_pos: usize) -> [u16; 16] {
    let mut b = [0u16; 16];
    b[anchor_pos] = anchor;
    b[pos] = elem;
    b
}

#[test]
fn bfp_b_assembly_matches_value_model() {
    for x in all_u16() {
        let field = ((x >> 7) & 0xFF) as u32;
        let m7 = (x & 0x7F) as u32;
        let neg = x & 0x8000 != 0;
        let a = bfp_element_value(field, m7, 127);
        for shift in 0..=9u32 {
            let shared = field + shift;
            if shared > 255 {
                break;
            }
            let anchor = (shared as u16) << 7; // +2^(shared-127), datum 0x40
            let pos = (x as usize + shift as usize) % 16;
            let blk = block_with(x, pos, anchor, (pos + 5) % 16);
            let d8 = ref_bfp8_datum(a, neg, shared, 127);
            for (width, drop) in [
                (BfpWidth::Bits8, 0),
                (BfpWidth::Bits4, 4),
                (BfpWidth::Bits2, 6),
            ] {
                let g: BfpGroup = bfp::bfp_assemble(BfpExp::B, width, &blk);
                assert_eq!(g.shared_exp as u32, shared, "{x:#06x} shift {shift}");
                let mag = (d8 & 0x7F) >> drop;
                let expect = if mag == 0 {
                    0
                } else {
                    ((d8 & 0x80) >> drop) | mag
                };
                assert_eq!(g.datums[pos], expect, "{x:#06x} shift {shift} {width:?}");
                if shared != 0 {
                    let anchor_datum = 0x40 >> drop;
                    assert_eq!(g.datums[(pos + 5) % 16], anchor_datum);
                }
            }
        }
    }
}

#[test]
fn bfp_a_assembly_matches_value_model() {
    for x in all_u16() {
        let e5m7 = x & !7;
        let field = ((e5m7 >> 10) & 0x1F) as u32;
        let m7 = ((e5m7 >> 3) & 0x7F) as u32;
        let neg = e5m7 & 0x8000 != 0;
        let a = bfp_element_value(field, m7, 15);
        for shift in 0..=9u32 {
            let shared = field + shift;
            if shared > 31 {
                break;
            }
            let anchor = (shared as u16) << 10;
            let pos = (x as usize / 8 + shift as usize) % 16;
            let blk = block_with(e5m7, pos, anchor, (pos + 9) % 16);
            let d8 = ref_bfp8_datum(a, neg, shared, 15);
            for (width, drop) in [
                (BfpWidth::Bits8, 0),
                (BfpWidth::Bits4, 4),
                (BfpWidth::Bits2, 6),
            ] {
                let g = bfp::bfp_assemble(BfpExp::A, width, &blk);
                assert_eq!(g.shared_exp as u32, shared);
                let mag = (d8 & 0x7F) >> drop;
                let expect = if mag == 0 {
                    0
                } else {
                    ((d8 & 0x80) >> drop) | mag
                };
                assert_eq!(g.datums[pos], expect, "{e5m7:#06x} shift {shift} {width:?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// BFP expansion (unpacker).

#[test]
fn bfp8_to_bf16_matches_value_model() {
    for exp in 0..=255u8 {
        for d in 0..=255u8 {
            let got = bfp::bfp8_to_bf16(d, exp);
            let mag = d & 0x7F;
            if mag == 0 {
                assert_eq!(got, if d & 0x80 != 0 { 0xFF80 } else { 0 });
                continue;
            }
            let v = bfp_datum_value(d, 7, exp, 127);
            // Normalised exponent of the value; below 1 the 8-bit exponent
            // arithmetic wraps.
            let e = ilog2(v) + 127;
            let frac = v.abs() / pow2(e - 127) - 1.0;
            let m = (frac * 128.0) as u16;
            let expect = ((d as u16 & 0x80) << 8) | (((e + 256) as u16 & 0xFF) << 7) | m;
            assert_eq!(got, expect, "d {d:#04x} exp {exp}");
            if (1..=254).contains(&e) {
                assert_eq!(got as u32, BF16.encode(v), "d {d:#04x} exp {exp}");
            }
        }
    }
}

#[test]
fn bfp8a_to_fp16_matches_value_model() {
    for exp in 0..=255u8 {
        for d in 0..=255u8 {
            let got = bfp::bfp8a_to_fp16(d, exp);
            let mag = d & 0x7F;
            if mag == 0 {
                assert_eq!(got.unwrap(), if d & 0x80 != 0 { 0xFC00 } else { 0 });
                continue;
            }
            let v = bfp_datum_value(d, 7, exp, 15);
            let e = ilog2(v) + 15;
            if (0..=31).contains(&e) {
                let sign = (d as u16 & 0x80) << 8;
                let frac = v.abs() / pow2(e - 15) - 1.0;
                let m = (frac * 1024.0) as u16;
                let got = got.unwrap();
                assert_eq!(got, sign | ((e as u16) << 10) | m, "d {d:#04x} exp {exp}");
                if e >= 1 {
                    assert_eq!(fp16_value(got), v);
                }
            } else {
                let f = got.unwrap_err();
                assert_eq!(f.kind, tensix_emu::FaultKind::UndefinedBehavior);
            }
        }
    }
}

#[test]
fn bfp4_and_bfp2_expand_like_bfp8() {
    for exp in 0..=255u8 {
        for n in 0..16u8 {
            let got = bfp::bfp_expand(BfpExp::B, BfpWidth::Bits4, n, exp).unwrap();
            if n & 7 == 0 {
                assert_eq!(got, if n & 8 != 0 { 0xFF80 } else { 0 });
            } else {
                let v = bfp_datum_value(n, 3, exp, 127);
                if (1..=254).contains(&(ilog2(v) + 127)) {
                    assert_eq!(got as u32, BF16.encode(v), "n {n} exp {exp}");
                }
            }
        }
        for c in 0..4u8 {
            let got = bfp::bfp_expand(BfpExp::B, BfpWidth::Bits2, c, exp).unwrap();
            match c {
                0 => assert_eq!(got, 0),
                2 => assert_eq!(got, 0xFF80),
                _ => {
                    let v = bfp_datum_value(c, 1, exp, 127);
                    if (1..=254).contains(&exp) {
                        assert_eq!(got as u32, BF16.encode(v));
                    }
                }
            }
        }
    }
}

#[test]
fn bfp_datums_pack_and_unpack_inverse() {
    for (width, bits) in [
        (BfpWidth::Bits8, 8u32),
        (BfpWidth::Bits4, 4),
        (BfpWidth::Bits2, 2),
    ] {
        for seed in 0..4096u32 {
            let mut datums = [0u8; 16];
            for (i, d) in datums.iter_mut().enumerate() {
                *d = (seed.wrapping_mul(2654435761).rotate_left(i as u32 * 3) as u8)
                    & ((1u16 << bits) - 1) as u8;
            }
            let mut bytes = [0u8; 16];
            bfp::bfp_pack_datums(width, &datums, &mut bytes);
            // Datum i lives at bit offset i*bits, least significant first.
            for (i, &d) in datums.iter().enumerate() {
                let bit = i as u32 * bits;
                let byte = bytes[(bit / 8) as usize];
                assert_eq!((byte >> (bit % 8)) & ((1u16 << bits) - 1) as u8, d);
            }
            assert_eq!(bfp::bfp_unpack_datums(width, &bytes), datums);
            assert!(bytes[width.group_bytes()..].iter().all(|&b| b == 0));
        }
    }
}

// ---------------------------------------------------------------------------
// Unpacker.

fn cfg(in_format: DataFormat, out_format: DataFormat, to_dst: bool) -> UnpackConfig {
    UnpackConfig {
        in_format,
        out_format,
        to_dst,
        int8_unsigned: false,
        fp8: Fp8Format::E5M2,
    }
}

fn src(c: &UnpackConfig, datum: u32, exp: u8) -> SrcCell {
    match unpack::unpack_datum(c, datum, exp).unwrap() {
        Unpacked::Src(s) => s,
        other => panic!("expected a Src cell, got {other:?}"),
    }
}

fn dst16(c: &UnpackConfig, datum: u32, exp: u8) -> u16 {
    match unpack::unpack_datum(c, datum, exp).unwrap() {
        Unpacked::Dst16(s) => s,
        other => panic!("expected a Dst16 cell, got {other:?}"),
    }
}

/// Hardware Src arrangement of a float with `man_bits` mantissa bits and
/// exponent bias `bias`, derived from the value: sign 18, mantissa 17:8
/// (left-aligned 10 bits), exponent 7:0 (SrcASrcB.md, "Data type bit
/// layout").
fn src_hw_from_value(v: f64, neg: bool, man_bits: u32, bias: i32) -> u32 {
    let sign = (neg as u32) << 18;
    if v == 0.0 {
        return sign;
    }
    let e = ilog2(v).max(1 - bias);
    let field = if v.abs() < pow2(1 - bias) {
        0
    } else {
        (e + bias) as u32
    };
    let frac = if field == 0 {
        v.abs() / pow2(1 - bias)
    } else {
        v.abs() / pow2(e) - 1.0
    };
    let m = (frac * pow2(man_bits as i32)) as u32;
    sign | ((m << (10 - man_bits)) << 8) | field
}

#[test]
fn unpack_fp32_to_bf16_and_fp16_match_value_model() {
    let to_bf16 = cfg(DataFormat::Float32, DataFormat::Float16B, false);
    let to_fp16 = cfg(DataFormat::Float32, DataFormat::Float16, false);
    let to_tf32 = cfg(DataFormat::Float32, DataFormat::Tf32, false);
    for x in fp32_structured() {
        let v = fp32_value(x);
        let neg = x >> 31 == 1;
        let b = src(&to_bf16, x, 0).to_bf16();
        if !v.is_finite() {
            assert_eq!(b as u32, x >> 16);
        } else if v.abs() < pow2(-126) {
            assert_eq!(b, (neg as u16) << 15, "{x:#010x}");
        } else {
            assert_eq!(b as u32, BF16.encode(truncate(v, BF16.ulp(v))), "{x:#010x}");
        }
        assert_eq!(
            src(&to_fp16, x, 0).to_fp16(),
            ref_e8_to_e5(v, neg, 10),
            "{x:#010x}"
        );
        // TF32 to Src keeps the top 19 bits, no rounding, no flushing.
        let t = src(&to_tf32, x, 0);
        if !v.is_finite() {
            assert_eq!(t.to_fp32(), x & 0xFFFF_E000);
        } else {
            let tf = FP32.with_man(10);
            let expect = if v.abs() < pow2(-126) {
                let m = (v.abs() / pow2(-126) * 1024.0).floor() as u32;
                ((neg as u32) << 31) | (m << 13)
            } else {
                tf.encode(truncate(v, tf.ulp(v))) << 13
            };
            assert_eq!(t.to_fp32(), expect, "{x:#010x}");
        }
    }
}

#[test]
fn unpack_16bit_floats_to_src_and_dst_match_layout_tables() {
    for x in all_u16() {
        // FP16.
        let s = src(
            &cfg(DataFormat::Float16, DataFormat::Float16, false),
            x as u32,
            0,
        );
        let v = fp16_value(x);
        let neg = x & 0x8000 != 0;
        assert_eq!(s.hw(), src_hw_from_value(v, neg, 10, 15), "fp16 {x:#06x}");
        assert_eq!(s.to_fp16(), x);
        assert_eq!(s.canonical(), ((neg as u32) << 18) | (x as u32 & 0x7FFF));
        let d = dst16(
            &cfg(DataFormat::Float16, DataFormat::Float16, true),
            x as u32,
            0,
        );
        assert_eq!(dst::decode_fp16(d), x);
        // Dst16b FP16: sign 15, mantissa 14:5, exponent 4:0.
        assert_eq!(d as u32, {
            let h = src_hw_from_value(v, neg, 10, 15);
            ((h >> 18) << 15) | (((h >> 8) & 0x3FF) << 5) | (h & 0x1F)
        });

        // BF16 (skip NaN, whose value carries no fields).
        let b = bf16_value(x);
        let s = src(
            &cfg(DataFormat::Float16B, DataFormat::Float16B, false),
            x as u32,
            0,
        );
        assert_eq!(s.to_bf16(), x);
        assert_eq!(s.canonical(), (x as u32) << 3);
        let d = dst16(
            &cfg(DataFormat::Float16B, DataFormat::Float16B, true),
            x as u32,
            0,
        );
        assert_eq!(dst::decode_bf16(d), x);
        if b.is_finite() {
            let h = src_hw_from_value(b, neg, 7, 127);
            assert_eq!(s.hw(), h, "bf16 {x:#06x}");
            // Dst16b BF16: sign 15, mantissa 14:8, exponent 7:0.
            assert_eq!(
                d as u32,
                ((h >> 18) << 15) | (((h >> 11) & 0x7F) << 8) | (h & 0xFF)
            );
        }

        // INT16: opaque; Dst unchanged, Src high byte in 18:11, low in 7:0.
        let s = src(
            &cfg(DataFormat::Int16, DataFormat::Int16, false),
            x as u32,
            0,
        );
        assert_eq!(s.hw(), ((x as u32 >> 8) << 11) | (x as u32 & 0xFF));
        assert_eq!(s.to_int16(), x);
        assert_eq!(
            dst16(
                &cfg(DataFormat::Int16, DataFormat::Int16, true),
                x as u32,
                0
            ),
            x
        );
    }
}

#[test]
fn unpack_fp8_and_int8_match_value_model() {
    for b in 0..=255u32 {
        // FP8 e5m2 → FP16 losslessly.
        let s = src(&cfg(DataFormat::Lf8, DataFormat::Lf8, false), b, 0);
        let fp8 = FP16.with_man(2);
        assert_eq!(fp16_value(s.to_fp16()), fp8.value(b));
        let d = dst16(&cfg(DataFormat::Lf8, DataFormat::Lf8, true), b, 0);
        assert_eq!(fp16_value(dst::decode_fp16(d)), fp8.value(b));

        // INT8 sign-magnitude and UINT8 → Integer "8".
        for unsigned in [false, true] {
            let mut c = cfg(DataFormat::Int8, DataFormat::Int8, false);
            c.int8_unsigned = unsigned;
            let (neg, mag) = if unsigned {
                (false, b as u16)
            } else {
                (b & 0x80 != 0, (b & 0x7F) as u16)
            };
            let s = src(&c, b, 0);
            assert_eq!(s.int8(), (neg, mag));
            assert_eq!(s.exponent(), if mag != 0 { 16 } else { 0 });
            assert_eq!(
                s.hw(),
                ((neg as u32) << 18) | ((mag as u32) << 8) | s.exponent()
            );
            c.to_dst = true;
            let d = dst16(&c, b, 0);
            assert_eq!(dst::decode_int8(d), (neg, mag));
            assert_eq!(d & 0x1F, if mag != 0 { 16 } else { 0 });
        }
    }
}

#[test]
fn unpack_bfp_to_src_and_dst_agree_with_expansion() {
    for exp in [0u8, 1, 6, 7, 100, 127, 200, 254, 255] {
        for d in 0..=255u32 {
            for (fmt, width) in [
                (DataFormat::Bfp8B, BfpWidth::Bits8),
                (DataFormat::Bfp4B, BfpWidth::Bits4),
                (DataFormat::Bfp2B, BfpWidth::Bits2),
            ] {
                let datum = d & ((1 << width.datum_bits()) - 1);
                let bf = bfp::bfp_expand(BfpExp::B, width, datum as u8, exp).unwrap();
                assert_eq!(src(&cfg(fmt, fmt, false), d, exp).to_bf16(), bf);
                assert_eq!(dst::decode_bf16(dst16(&cfg(fmt, fmt, true), d, exp)), bf);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Dst arrangement.

#[test]
fn dst_arrangements_invert_and_place_fields() {
    for x in all_u16() {
        assert_eq!(dst::decode_bf16(dst::encode_bf16(x)), x);
        assert_eq!(dst::encode_bf16(dst::decode_bf16(x)), x);
        assert_eq!(dst::decode_fp16(dst::encode_fp16(x)), x);
        assert_eq!(dst::encode_fp16(dst::decode_fp16(x)), x);
        let b = bf16_value(x);
        if b.is_finite() && b != 0.0 && b.abs() >= pow2(-126) {
            let e = (ilog2(b) + 127) as u16;
            let m = ((b.abs() / pow2(e as i32 - 127) - 1.0) * 128.0) as u16;
            assert_eq!(dst::encode_bf16(x), (x & 0x8000) | (m << 8) | e);
        }
        let h = fp16_value(x);
        if h != 0.0 && h.abs() >= pow2(-14) {
            let e = (ilog2(h) + 15) as u16;
            let m = ((h.abs() / pow2(e as i32 - 15) - 1.0) * 1024.0) as u16;
            assert_eq!(dst::encode_fp16(x), (x & 0x8000) | (m << 5) | e);
        }
        for lo in [0u32, 0x1234, 0xFFFF] {
            let w = ((x as u32) << 16) | lo;
            assert_eq!(dst::decode_fp32(dst::encode_fp32(w)), w);
            assert_eq!(dst::encode_fp32(w) >> 16, dst::encode_bf16(x) as u32);
            assert_eq!(dst::encode_fp32(w) & 0xFFFF, lo);
        }
    }
}

#[test]
fn src_cell_hw_and_canonical_are_inverse() {
    for c in 0..(1u32 << 19) {
        let s = SrcCell::from_canonical(c);
        assert_eq!(SrcCell::from_hw(s.hw()), s);
        assert_eq!(SrcCell::from_hw(c).hw(), c);
        // Canonical fields: sign 18, exponent 17:10, mantissa 9:0;
        // hardware: sign 18, mantissa 17:8, exponent 7:0.
        assert_eq!(
            s.hw(),
            (c & 0x4_0000) | ((c & 0x3FF) << 8) | ((c >> 10) & 0xFF)
        );
    }
}

// ---------------------------------------------------------------------------
// Agreement with IEEE (`half`) where the hardware rounding coincides.

/// Away from ties, round-half-away-from-zero and IEEE round-to-nearest-even
/// pick the same neighbour, so for normal, finite, non-tie inputs the
/// packer's FP32 → BF16 rounding equals `half`'s conversion.
#[test]
fn early_fp32_to_bf16_agrees_with_half_away_from_ties() {
    let mut checked = 0u32;
    for x in fp32_structured() {
        let v = fp32_value(x);
        if !v.is_finite() || v.abs() < pow2(-126) || x & 0xFFFF == 0x8000 {
            continue;
        }
        assert_eq!(
            pack::fp32_round_to_bf16(x),
            bf16::from_f32(f32::from_bits(x)).to_bits(),
            "{x:#010x}"
        );
        checked += 1;
    }
    assert!(checked > 800_000);
}

/// Narrowing a value that is exactly representable involves no rounding:
/// every normal FP16, widened to FP32 by `half`, comes back unchanged through
/// the packer's late FP32 → FP16 conversion and the unpacker's FP32 → FP16,
/// as `half` narrows it too. Likewise every finite BF16 through the early
/// FP32 → BF16 rounding.
#[test]
fn exact_narrowing_agrees_with_half() {
    for x in all_u16() {
        if (1..31).contains(&((x >> 10) & 0x1F)) {
            let w = f16::from_bits(x).to_f32();
            assert_eq!(f16::from_f32(w).to_bits(), x);
            assert_eq!(
                late(Intermediate::Fp32(w.to_bits()), DataFormat::Float16),
                x as u32
            );
            assert_eq!(unpack::fp32_to_fp16(w.to_bits()), x);
        }
        let b = bf16::from_bits(x);
        if b.is_finite() && (b.to_f64().abs() >= pow2(-126)) {
            let w = b.to_f32().to_bits();
            assert_eq!(
                pack::fp32_round_to_bf16(w),
                bf16::from_f32(b.to_f32()).to_bits()
            );
            assert_eq!(unpack::fp32_to_bf16(w), x);
        }
    }
}
