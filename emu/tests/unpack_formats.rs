//! Whole tiles through the LLK-style program (`tensix_emu::unpack::program`)
//! in every format, on both architectures, checked against values written
//! from the format definitions (tt-isa-documentation `UNPACR_Regular.md`,
//! `FormatConversion`; `FloatBitPatterns.md`; `SrcASrcB.md`; `Dst.md`).

mod unpack_common;

use tensix_emu::format::DataFormat as F;
use tensix_emu::regs::CfgField as C;
use tensix_emu::state::dst::DstView;
use tensix_emu::state::SrcClient;
use tensix_emu::unpack::program::TileUnpack;
use tensix_emu::{Arch, FaultKind, Limits, Machine};
use unpack_common::*;

const AT: u32 = 0x2_0000;

fn job(unpacker: usize, in_format: F, out_format: F, to_dst: bool) -> TileUnpack {
    TileUnpack {
        unpacker,
        in_format,
        out_format,
        to_dst,
        l1_addr: AT,
        faces: 4,
        face_rows: 16,
        set_dvalid: true,
        dst_row: 0,
    }
}

fn go(arch: Arch, j: &TileUnpack, l1: &[u8]) -> Result<Machine, tensix_emu::Fault> {
    let mut m = Machine::new(arch);
    m.write_l1(AT, l1).unwrap();
    j.configure(&mut m).unwrap();
    m.run(&[j.program(arch).unwrap()], Limits::default())?;
    Ok(m)
}

/// A deterministic spread of 16-bit patterns.
fn patterns(n: usize, seed: u32) -> Vec<u16> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 8) as u16
        })
        .collect()
}

/// All 1024 `Src` cells of a tile, row-major.
fn src_cells(m: &Machine, unpacker: usize) -> Vec<u32> {
    let s = if unpacker == 0 { &m.srca } else { &m.srcb };
    (0..64)
        .flat_map(|r| (0..16).map(move |c| s.read(0, r, c)))
        .collect()
}

/// BF16 overlaid on TF32: the cell is the pattern shifted up three bits.
#[test]
fn bf16_tiles_land_in_src_rows_in_order() {
    for arch in Arch::ALL {
        for u in [0, 1] {
            let v = patterns(1024, 7);
            let m = go(
                arch,
                &job(u, F::Float16B, F::Float16B, false),
                &bf16_bytes(&v),
            )
            .unwrap();
            let want: Vec<u32> = v.iter().map(|b| (*b as u32) << 3).collect();
            assert_eq!(src_cells(&m, u), want, "{arch} unpacker {u}");
            let s = if u == 0 { &m.srca } else { &m.srcb };
            assert_eq!(s.banks[0].allowed_client, SrcClient::MatrixUnit);
        }
    }
}

/// FP32 → TF32 in Src: the top 19 bits, no rounding.
#[test]
fn fp32_to_tf32_keeps_the_top_19_bits() {
    let words: Vec<u32> = patterns(2048, 3)
        .chunks(2)
        .map(|p| ((p[0] as u32) << 16) | p[1] as u32)
        .collect();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    for arch in Arch::ALL {
        let m = go(arch, &job(0, F::Float32, F::Tf32, false), &bytes).unwrap();
        let want: Vec<u32> = words.iter().map(|w| w >> 13).collect();
        assert_eq!(src_cells(&m, 0), want, "{arch}");
    }
}

/// FP32 → BF16 in Src: denormals become zero with their sign, the rest is
/// truncated.
#[test]
fn fp32_to_bf16_flushes_denormals_and_truncates() {
    let words = [0x3F80_FFFFu32, 0x807F_FFFF, 0x0000_0001, 0xC049_0FDB];
    let mut all = words.to_vec();
    all.resize(1024, 0);
    let bytes: Vec<u8> = all.iter().flat_map(|w| w.to_le_bytes()).collect();
    let m = go(
        Arch::Blackhole,
        &job(1, F::Float32, F::Float16B, false),
        &bytes,
    )
    .unwrap();
    let cells = src_cells(&m, 1);
    assert_eq!(&cells[..4], &[0x3F80 << 3, 0x8000 << 3, 0, 0xC049 << 3]);
}

/// FP32 → FP32 in `Dst32b`, FP32 → FP16 in `Dst16b` (saturating to the
/// Tensix FP16 maximum above 2^16 and to zero below 2^-15; `FP32ToFP16`).
#[test]
fn fp32_to_dst() {
    let words: Vec<u32> = (0..1024u32).map(|i| 0x3F80_0000 ^ (i << 11)).collect();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    for arch in Arch::ALL {
        let m = go(arch, &job(0, F::Float32, F::Float32, true), &bytes).unwrap();
        for r in 0..64 {
            let row = m.read_dst_row(DstView::Fp32, r);
            assert_eq!(
                &row[..],
                &words[16 * r as usize..16 * r as usize + 16],
                "{arch} {r}"
            );
        }
    }
    let mut words = vec![
        0x3F80_0000u32,
        0x4780_0000,
        0xC780_0000,
        0x3800_0000,
        0x3780_0000,
        0x4000_1FFF,
    ];
    words.resize(1024, 0);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let m = go(
        Arch::WormholeB0,
        &job(0, F::Float32, F::Float16, true),
        &bytes,
    )
    .unwrap();
    let row = m.read_dst_row(DstView::Fp16, 0);
    // 1.0; 2^16 (exponent 31 is an ordinary binade); −2^16; 2^-15 (exponent
    // 0 keeps the truncated mantissa: 0); 2^-16 → 0; 2 + a little → 2.0.
    assert_eq!(&row[..6], &[0x3C00, 0x7C00, 0xFC00, 0x0000, 0x0000, 0x4000]);
}

/// BFP8 (8-bit shared exponent) to BF16 and BFP8a (5-bit) to FP16, with the
/// zero-magnitude sign-1 decodes: −infinity (0xFF80) and −2^16 (0xFC00).
#[test]
fn bfp_formats_expand_with_their_exponent_form() {
    let mut l1 = vec![0u8; 64 + 1024];
    l1[..64].fill(0x7F); // every group: exponent 127
    l1[64..68].copy_from_slice(&[0x40, 0xC0, 0x80, 0x01]);
    for arch in Arch::ALL {
        let m = go(arch, &job(0, F::Bfp8B, F::Bfp8B, false), &l1).unwrap();
        let cells = src_cells(&m, 0);
        // 1.0, −1.0, −inf, 2^-6.
        assert_eq!(
            &cells[..4],
            &[0x3F80 << 3, 0xBF80 << 3, 0xFF80 << 3, 0x3C80 << 3]
        );
    }
    let mut l1a = l1.clone();
    l1a[..64].fill(15); // exponent bias 15: 2^0
    for arch in Arch::ALL {
        let m = go(arch, &job(0, F::Bfp8A, F::Bfp8A, false), &l1a).unwrap();
        let cells = src_cells(&m, 0);
        let fp16 = |h: u32| ((h & 0x8000) << 3) | (h & 0x7FFF);
        // 1.0, −1.0, −2^16 (FP16 0xFC00), 2^-6.
        assert_eq!(
            &cells[..4],
            &[fp16(0x3C00), fp16(0xBC00), fp16(0xFC00), fp16(0x2400)]
        );
    }
    // A BFP8a datum that normalises below exponent 0 is undefined.
    let mut l1u = l1a.clone();
    l1u[..64].fill(2);
    let e = go(Arch::Blackhole, &job(0, F::Bfp8A, F::Bfp8A, false), &l1u).unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{e}");
}

/// BFP4 and BFP2 datums are packed least significant first and widen to
/// BFP8 by shifting up (`DatumBits << 4`, `<< 6`).
#[test]
fn bfp4_and_bfp2_widen_to_bfp8() {
    let mut l1 = vec![0u8; 64 + 512];
    l1[..64].fill(0x80);
    l1[64] = 0x4F; // datum 0: 0xF (−7/4 · 2), datum 1: 0x4 (1.0 · 2)
    let m = go(Arch::WormholeB0, &job(0, F::Bfp4B, F::Bfp4B, false), &l1).unwrap();
    let c = src_cells(&m, 0);
    assert_eq!(&c[..3], &[0xC060 << 3, 0x4000 << 3, 0]);
    let mut l2 = vec![0u8; 64 + 256];
    l2[..64].fill(0x80);
    l2[64] = 0b00_11_10_01; // datums 1, 2 (−0 = −inf), 3, 0
    let m = go(Arch::Blackhole, &job(1, F::Bfp2B, F::Bfp2B, false), &l2).unwrap();
    let c = src_cells(&m, 1);
    assert_eq!(&c[..4], &[0x4000 << 3, 0xFF80 << 3, 0xC000 << 3, 0]);
}

/// BFP data may also be unpacked straight to `Dst` (as BF16).
#[test]
fn bfp8_to_dst_is_bf16() {
    let mut l1 = vec![0u8; 64 + 1024];
    l1[..64].fill(0x81);
    l1[64 + 16] = 0x60; // row 1: 1.5 · 4
    let m = go(Arch::WormholeB0, &job(0, F::Bfp8B, F::Bfp8B, true), &l1).unwrap();
    assert_eq!(m.read_dst_row(DstView::Bf16, 1)[0], 0x40C0);
}

/// INT8 is sign-magnitude, or unsigned with `SrcAUnsigned`/`SrcBUnsigned`,
/// and becomes Integer "8": raw exponent 16 (0 for magnitude 0), the
/// magnitude in the low ten bits.
#[test]
fn int8_becomes_integer_8() {
    let mut l1 = vec![0u8; 1024];
    l1[..4].copy_from_slice(&[0x85, 0x7F, 0x80, 0xFF]);
    let cell =
        |neg: bool, mag: u32| ((neg as u32) << 18) | if mag != 0 { (16 << 10) | mag } else { 0 };
    let m = go(Arch::Blackhole, &job(0, F::Int8, F::Int8, false), &l1).unwrap();
    let c = src_cells(&m, 0);
    assert_eq!(
        &c[..4],
        &[
            cell(true, 5),
            cell(false, 127),
            cell(true, 0),
            cell(true, 127)
        ]
    );

    let j = job(1, F::Int8, F::Int8, false);
    let mut m = Machine::new(Arch::WormholeB0);
    m.write_l1(AT, &l1).unwrap();
    j.configure(&mut m).unwrap();
    set(&mut m, C::ALU_FORMAT_SPEC_REG0_SrcBUnsigned, 1);
    m.run(&[j.program(Arch::WormholeB0).unwrap()], Limits::default())
        .unwrap();
    let c = src_cells(&m, 1);
    assert_eq!(
        &c[..4],
        &[
            cell(false, 0x85),
            cell(false, 127),
            cell(false, 128),
            cell(false, 255)
        ]
    );
}

/// INT16 is opaque: high byte to Src hardware bits 18:11, low byte to 7:0,
/// i.e. sign to canonical bit 18, bits 14:8 to the mantissa's top seven
/// bits, the low byte to the exponent field.
#[test]
fn int16_is_moved_opaquely() {
    let v = patterns(1024, 11);
    let m = go(
        Arch::Blackhole,
        &job(1, F::Int16, F::Int16, false),
        &bf16_bytes(&v),
    )
    .unwrap();
    let want: Vec<u32> = v
        .iter()
        .map(|x| {
            let x = *x as u32;
            ((x & 0x8000) << 3) | ((x & 0xFF) << 10) | (((x >> 8) & 0x7F) << 3)
        })
        .collect();
    assert_eq!(src_cells(&m, 1), want);
}

/// INT32 to `Dst32b` unchanged (sign-magnitude).
#[test]
fn int32_to_dst() {
    let words: Vec<u32> = (0..1024u32).map(|i| (i << 21) | i).collect();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let m = go(Arch::Blackhole, &job(0, F::Int32, F::Int32, true), &bytes).unwrap();
    assert_eq!(&m.read_dst_row(DstView::Int32, 63)[..], &words[1008..]);
}

/// FP8: e5m2 is the top byte of an FP16, except that Blackhole turns the
/// all-ones magnitude into the Tensix FP16 infinity; e4m3 (Blackhole
/// `Unp_LF8_4b_exp`) rebiases the exponent by 8 (ttsim's decode).
#[test]
fn fp8_decodes() {
    let mut l1 = vec![0u8; 1024];
    l1[..3].copy_from_slice(&[0x3C, 0x7F, 0xFF]);
    let fp16 = |h: u32| ((h & 0x8000) << 3) | (h & 0x7FFF);
    let m = go(Arch::WormholeB0, &job(0, F::Lf8, F::Lf8, false), &l1).unwrap();
    assert_eq!(
        &src_cells(&m, 0)[..3],
        &[fp16(0x3C00), fp16(0x7F00), fp16(0xFF00)]
    );
    let m = go(Arch::Blackhole, &job(0, F::Lf8, F::Lf8, false), &l1).unwrap();
    assert_eq!(
        &src_cells(&m, 0)[..3],
        &[fp16(0x3C00), fp16(0x7FFF), fp16(0xFFFF)]
    );

    let j = job(0, F::Lf8, F::Lf8, false);
    let mut m = Machine::new(Arch::Blackhole);
    m.write_l1(AT, &[0x38, 0xB9, 0x7F]).unwrap();
    j.configure(&mut m).unwrap();
    set(&mut m, C::THCON_SEC0_REG1_Unp_LF8_4b_exp, 1);
    m.run(&[j.program(Arch::Blackhole).unwrap()], Limits::default())
        .unwrap();
    // 1.0; −1.125; the all-ones pattern fills the mantissa.
    assert_eq!(
        &src_cells(&m, 0)[..3],
        &[fp16(0x3C00), fp16(0xBC80), fp16(0x5FFF)]
    );
}

/// `AllDatumsAreZero` (`ZeroWrite2`): every datum written is zero.
#[test]
fn zero_write_writes_zeroes() {
    let mut m = srca_job(Arch::WormholeB0, 5, 16, 0x100);
    m.write_l1(0x1010, &bf16_bytes(&ramp(0x3F80, 16))).unwrap();
    for c in 0..16 {
        m.srca.write(0, 0, c, 0x1234);
    }
    run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "zero_write2=1")]).unwrap();
    assert_eq!(srca_row(&m, 0, 0), [0; 16]);
}

/// `FormatConversion`: only FP32 may change format; FP32 only to FP32
/// (`Dst`), TF32, BF16 or FP16; codes 12 and 13 name no format.
#[test]
fn undefined_format_combinations() {
    for (i, o, dst) in [
        (F::Float16B, F::Float16, false),
        (F::Float32, F::Bfp8B, false),
        (F::Float32, F::Float32, false),
        (F::Int32, F::Int32, false),
        (F::Tf32, F::Tf32, false),
    ] {
        let e = go(Arch::Blackhole, &job(0, i, o, dst), &[0; 4096]).unwrap_err();
        assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{i} → {o}: {e}");
    }
    let mut m = srca_job(Arch::WormholeB0, 12, 16, 0x100);
    let e = run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{e}");
}

/// The modes whose pages are not available, and the unnamed bits, stop
/// with a fault rather than guess.
#[test]
fn undocumented_unpacr_forms_are_refused() {
    for (arch, extra, kind) in [
        (
            Arch::Blackhole,
            "search_cache_flush=1",
            FaultKind::Unimplemented,
        ),
        (
            Arch::WormholeB0,
            "cfg_context_cnt_inc=1",
            FaultKind::Unimplemented,
        ),
        (Arch::WormholeB0, "rareb_en=1", FaultKind::Unimplemented),
        (Arch::Blackhole, "srcb_bcast=1", FaultKind::Unimplemented),
    ] {
        let mut m = Machine::new(arch);
        let e = run(&mut m, 0, &[&unpacr(0, extra)]).unwrap_err();
        assert_eq!(e.kind, kind, "{arch} {extra}: {e}");
    }
}

/// INT8 bytes through the BFP8 path (seed 001: `Force_shared_exp` "used
/// when you want to upcast INT8 via the BFP path"): read as BFP8 datums with
/// a forced shared exponent of 127 + 6, a sign-magnitude byte `s|m` becomes
/// the float `±m` (`BFP8ToBF16`: `m / 2^6 · 2^(exp − 127)`).
#[test]
fn int8_upcasts_via_bfp8_with_a_forced_exponent() {
    let j = job(0, F::Bfp8B, F::Bfp8B, false);
    let mut m = Machine::new(Arch::Blackhole);
    m.write_l1(AT, &[0x05, 0x85, 0x7F, 0x01, 0x00]).unwrap();
    j.configure(&mut m).unwrap();
    set(&mut m, C::THCON_SEC0_REG2_Force_shared_exp, 1);
    set(&mut m, C::UNP0_FORCED_SHARED_EXP_shared_exp, 127 + 6);
    m.run(&[j.program(Arch::Blackhole).unwrap()], Limits::default())
        .unwrap();
    // 5.0, −5.0, 127.0, 1.0, +0.
    assert_eq!(
        &src_cells(&m, 0)[..5],
        &[0x40A0 << 3, 0xC0A0 << 3, 0x42FE << 3, 0x3F80 << 3, 0]
    );
}

/// `Throttle_mode` 3 names no speed on Wormhole B0 (ttsim: undefined).
#[test]
fn throttle_mode_3_is_undefined_on_wormhole() {
    let mut m = srca_job(Arch::WormholeB0, 5, 16, 0x100);
    set(&mut m, C::THCON_SEC0_REG2_Throttle_mode, 3);
    let e = run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{e}");
    let mut m = srca_job(Arch::Blackhole, 5, 16, 0x100);
    set(&mut m, C::THCON_SEC0_REG2_Throttle_mode, 3);
    run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap();
}
