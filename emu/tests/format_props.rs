//! quickcheck properties over 32-bit inputs, checked against the value-level
//! models in `format_ref`.

mod format_ref;

use format_ref::*;
use quickcheck::{QuickCheck, TestResult};
use tensix_emu::format::bfp;
use tensix_emu::format::dst::{self, RiscvDstAccess};
use tensix_emu::format::pack::{self, Intermediate};
use tensix_emu::format::unpack::{self, UnpackConfig, Unpacked};
use tensix_emu::format::{int, BfpExp, BfpWidth, DataFormat, Fp8Format, SrcCell};
use tensix_emu::Arch;

const TESTS: u64 = 20_000;

fn check<A: quickcheck::Testable>(prop: A) {
    QuickCheck::new()
        .tests(TESTS)
        .max_tests(TESTS * 10)
        .quickcheck(prop);
}

fn late(v: Intermediate, to: DataFormat) -> u32 {
    pack::late_convert(v, to, Fp8Format::E5M2).unwrap()
}

#[test]
fn fp32_early_rounding() {
    fn prop(x: u32) -> bool {
        pack::fp32_round_to_bf16(x) as u32 == ref_round_e8(x, 7) >> 16
            && pack::fp32_round_to_tf32(x) == ref_round_e8(x, 10)
            && pack::fp32_round_to_e8m6(x) as u32 == ref_round_e8(x, 6) >> 16
    }
    check(prop as fn(u32) -> bool);
}

#[test]
fn fp32_early_rounding_is_within_half_ulp_ties_away() {
    fn prop(x: u32) -> TestResult {
        let v = fp32_value(x);
        if !v.is_finite() || v.abs() < pow2(-126) {
            return TestResult::discard();
        }
        let r = bf16_value(pack::fp32_round_to_bf16(x));
        let half_ulp = BF16.ulp(v) / 2.0;
        if r.is_infinite() {
            return TestResult::from_bool(v.abs() >= BF16.max_finite() + half_ulp);
        }
        // Within half an ulp, and a tie always moves away from zero.
        let err = (r - v).abs();
        TestResult::from_bool(err < half_ulp || (err == half_ulp && r.abs() > v.abs()))
    }
    check(prop as fn(u32) -> TestResult);
}

#[test]
fn fp32_late_conversions() {
    fn prop(x: u32) -> bool {
        let v = fp32_value(x);
        let neg = x >> 31 == 1;
        let i = Intermediate::Fp32(x);
        let bf_ok = if !v.is_finite() {
            late(i, DataFormat::Float16B) == x >> 16
        } else if v.abs() < pow2(-126) {
            late(i, DataFormat::Float16B) == (neg as u32) << 15
        } else {
            late(i, DataFormat::Float16B) == BF16.encode(truncate(v, BF16.ulp(v)))
        };
        bf_ok
            && late(i, DataFormat::Float32) == x
            && late(i, DataFormat::Float16) == ref_e8_to_e5(v, neg, 10) as u32
            && late(i, DataFormat::Lf8) == (ref_e8_to_e5(v, neg, 2) >> 8) as u32
            && pack::bfp_element(i, BfpExp::A).unwrap() == ref_e8_to_e5(v, neg, 7)
    }
    check(prop as fn(u32) -> bool);
}

#[test]
fn tf32_intermediate_round_trips_through_late_conversion() {
    fn prop(x: u32) -> bool {
        let t = pack::fp32_round_to_tf32(x);
        t & 0x1FFF == 0
            && late(Intermediate::Tf32(t), DataFormat::Tf32) == t
            && late(Intermediate::Tf32(t), DataFormat::Float32) == t
    }
    check(prop as fn(u32) -> bool);
}

#[test]
fn fp32_unpack_conversions() {
    fn prop(x: u32) -> bool {
        let v = fp32_value(x);
        let neg = x >> 31 == 1;
        let cfg = |out, to_dst| UnpackConfig {
            in_format: DataFormat::Float32,
            out_format: out,
            to_dst,
            int8_unsigned: false,
            fp8: Fp8Format::E5M2,
        };
        let Ok(Unpacked::Src(b)) = unpack::unpack_datum(&cfg(DataFormat::Float16B, false), x, 0)
        else {
            return false;
        };
        let expect_bf = if !v.is_finite() {
            x >> 16
        } else if v.abs() < pow2(-126) {
            (neg as u32) << 15
        } else {
            BF16.encode(truncate(v, BF16.ulp(v)))
        };
        let Ok(Unpacked::Src(h)) = unpack::unpack_datum(&cfg(DataFormat::Float16, false), x, 0)
        else {
            return false;
        };
        let Ok(Unpacked::Dst16(hd)) = unpack::unpack_datum(&cfg(DataFormat::Float16, true), x, 0)
        else {
            return false;
        };
        let Ok(Unpacked::Dst32(d)) = unpack::unpack_datum(&cfg(DataFormat::Float32, true), x, 0)
        else {
            return false;
        };
        let Ok(Unpacked::Src(t)) = unpack::unpack_datum(&cfg(DataFormat::Tf32, false), x, 0) else {
            return false;
        };
        b.to_bf16() as u32 == expect_bf
            && h.to_fp16() == ref_e8_to_e5(v, neg, 10)
            && dst::decode_fp16(hd) == ref_e8_to_e5(v, neg, 10)
            && dst::decode_fp32(d) == x
            && t.to_fp32() == x & 0xFFFF_E000
    }
    check(prop as fn(u32) -> bool);
}

#[test]
fn int32_descale() {
    fn prop(x: u32, shift: u8) -> bool {
        let mag = (x & 0x7FFF_FFFF) as f64;
        let neg = x >> 31 == 1;
        let r = (mag / pow2((shift & 31) as i32) + 0.5).floor();
        let signed = (if neg { 0x80 } else { 0 }) | r.min(127.0) as u8;
        let unsigned = if neg { 0 } else { r.min(255.0) as u8 };
        int::int32_to_int8_descaled(x, shift, false) == signed
            && int::int32_to_int8_descaled(x, shift, true) == unsigned
    }
    check(prop as fn(u32, u8) -> bool);
}

#[test]
fn sign_magnitude_round_trips() {
    fn prop(v: i32) -> bool {
        let v = v as i64;
        let sm = int::sign_mag_saturating(v, 32);
        int::sign_mag_value(sm, 32) == v.clamp(-(i32::MAX as i64), i32::MAX as i64)
    }
    check(prop as fn(i32) -> bool);
}

#[test]
fn dst32_and_src_layouts() {
    fn prop(x: u32) -> bool {
        let enc = dst::encode_fp32(x);
        let (hi, lo) = dst::dst32_halves(enc);
        dst::decode_fp32(enc) == x
            && dst::dst32_join(hi, lo) == enc
            && dst::decode_bf16(hi) as u32 == x >> 16
            && lo as u32 == x & 0xFFFF
            && SrcCell::from_fp32_truncated(x).to_fp32() == x & 0xFFFF_E000
            && SrcCell::from_hw(SrcCell::from_canonical(x).hw()).canonical() == x & 0x7_FFFF
    }
    check(prop as fn(u32) -> bool);
}

#[test]
fn riscv_32bit_access_round_trips() {
    fn prop(x: u32, no_swizzle: bool) -> bool {
        let acc = |fmt| RiscvDstAccess {
            fmt,
            no_swizzle,
            unsigned_int: false,
        };
        let bh = Arch::Blackhole;
        // Dst.md, Dst32_FP32: sign 31, mantissa high 30:24, exponent 23:16,
        // mantissa low 15:0; IEEE has the exponent in 30:23 and the mantissa
        // high bits in 22:16. Integer "32" uses the same shuffle.
        let to_dst32 =
            |v: u32| (v & 0x8000_FFFF) | (((v >> 23) & 0xFF) << 16) | (((v >> 16) & 0x7F) << 24);
        let f = dst::riscv_store32(bh, acc(0), x).unwrap();
        let f_ok = dst::riscv_load32(bh, acc(0), f).unwrap() == x
            && f == if no_swizzle { x } else { to_dst32(x) };
        let i = dst::riscv_store32(bh, acc(1), x).unwrap();
        let back = dst::riscv_load32(bh, acc(1), i).unwrap();
        // Store32 fmt 1: two's complement to sign-magnitude, -2^31 clamped
        // to -(2^31 - 1); Load32 converts back.
        let v = x as i32;
        let sign_mag = if v < 0 {
            0x8000_0000 | v.unsigned_abs().min(0x7FFF_FFFF)
        } else {
            x
        };
        let i_ok = if no_swizzle {
            back == x && i == x
        } else {
            i == to_dst32(sign_mag) && back == if x == 0x8000_0000 { 0x8000_0001 } else { x }
        };
        f_ok && i_ok
    }
    check(prop as fn(u32, bool) -> bool);
}

/// Random groups: the shared exponent is the largest exponent field, and
/// every datum equals the value-model rounding under it.
#[test]
fn bfp_groups_match_value_model() {
    fn prop(elems: Vec<u16>, b_form: bool, w: u8) -> TestResult {
        if elems.len() < 16 {
            return TestResult::discard();
        }
        let mut blk = [0u16; 16];
        blk.copy_from_slice(&elems[..16]);
        let (form, bias) = if b_form {
            (BfpExp::B, 127)
        } else {
            (BfpExp::A, 15)
        };
        if form == BfpExp::A {
            for e in &mut blk {
                *e &= !7;
            }
        }
        let (width, drop) = match w % 3 {
            0 => (BfpWidth::Bits8, 0),
            1 => (BfpWidth::Bits4, 4),
            _ => (BfpWidth::Bits2, 6),
        };
        let fields = |e: u16| -> (u32, u32) {
            if b_form {
                (((e >> 7) & 0xFF) as u32, (e & 0x7F) as u32)
            } else {
                (((e >> 10) & 0x1F) as u32, ((e >> 3) & 0x7F) as u32)
            }
        };
        let shared = blk.iter().map(|&e| fields(e).0).max().unwrap();
        let g = bfp::bfp_assemble(form, width, &blk);
        if g.shared_exp as u32 != shared {
            return TestResult::failed();
        }
        for (i, &e) in blk.iter().enumerate() {
            let (f, m) = fields(e);
            let d8 = ref_bfp8_datum(bfp_element_value(f, m, bias), e & 0x8000 != 0, shared, bias);
            let mag = (d8 & 0x7F) >> drop;
            let expect = if mag == 0 {
                0
            } else {
                ((d8 & 0x80) >> drop) | mag
            };
            if g.datums[i] != expect {
                return TestResult::failed();
            }
        }
        // Packing to bytes and back is lossless.
        let mut bytes = [0u8; 16];
        bfp::bfp_pack_datums(width, &g.datums, &mut bytes);
        TestResult::from_bool(bfp::bfp_unpack_datums(width, &bytes) == g.datums)
    }
    QuickCheck::new()
        .tests(5_000)
        .max_tests(100_000)
        .quickcheck(prop as fn(Vec<u16>, bool, u8) -> TestResult);
}

/// Packing a group of normal BF16 values to BFP8 and unpacking it loses at
/// most half a BFP8 unit per datum (rounding to nearest; the clamp at 127
/// also stays within half a unit).
#[test]
fn bfp8_pack_unpack_error_is_bounded() {
    fn prop(elems: Vec<u16>) -> TestResult {
        if elems.len() < 16 {
            return TestResult::discard();
        }
        let mut blk = [0u16; 16];
        for (b, &e) in blk.iter_mut().zip(&elems) {
            // Keep to finite normals well inside the range.
            let exp = 64 + ((e >> 7) & 0x7F);
            *b = (e & 0x807F) | (exp << 7);
        }
        let g = bfp::bfp_assemble(BfpExp::B, BfpWidth::Bits8, &blk);
        let unit = pow2(g.shared_exp as i32 - 127 - 6);
        for (i, &e) in blk.iter().enumerate() {
            let back = bfp::bfp8_to_bf16(g.datums[i], g.shared_exp);
            let err = (bf16_value(back) - bf16_value(e)).abs();
            if err > unit / 2.0 {
                return TestResult::failed();
            }
        }
        TestResult::passed()
    }
    QuickCheck::new()
        .tests(5_000)
        .max_tests(100_000)
        .quickcheck(prop as fn(Vec<u16>) -> TestResult);
}
