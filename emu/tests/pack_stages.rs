//! Unit tests of the packer's stages as pure functions, each citing the rule
//! it checks. Expected values are worked out by hand from the cited page.

use tensix_emu::format::bfp::bfp8_datum;
use tensix_emu::format::data_format::{BfpExp, BfpWidth, DataFormat, Fp8Format};
use tensix_emu::format::pack::{self, EarlyConfig, EarlyConversion, Intermediate};
use tensix_emu::pack::compression::{Admit, Compressor};
use tensix_emu::pack::config::{EdgeConfig, PackerConfig};
use tensix_emu::pack::downsample::Downsample;
use tensix_emu::pack::edge_mask::{fill, TilePosition};
use tensix_emu::pack::histogram::ExponentHistogram;
use tensix_emu::pack::input::{bytes_per_datum, ReadInterfaces};
use tensix_emu::pack::l1_acc::{self, AccFormat};
use tensix_emu::pack::late::BfpAssembler;
use tensix_emu::pack::output::{initial_addr, performing_compression};
use tensix_emu::pack::relu::Relu;
use tensix_emu::pack::stream::OutStream;
use tensix_emu::pack::threshold;
use tensix_emu::state::L1;
use tensix_emu::{Arch, FaultKind};

// ---------------------------------------------------------------------------
// Input address generator (InputAddressGenerator.md; BlackholeA0 PACR.md).

/// InputAddressGenerator.md: `In_data_format & 3` selects 4 bytes (mask 3),
/// 2 bytes (mask 7) or 1 byte (mask 0xf).
#[test]
fn bytes_per_datum_follows_the_low_two_format_bits() {
    for (f, want) in [
        (DataFormat::Float32, (4, 3)),
        (DataFormat::Tf32, (4, 3)),
        (DataFormat::Int32, (4, 3)),
        (DataFormat::Float16, (2, 7)),
        (DataFormat::Float16B, (2, 7)),
        (DataFormat::Int16, (2, 7)),
        (DataFormat::Bfp8B, (1, 0xF)),
        (DataFormat::Bfp8A, (1, 0xF)),
        (DataFormat::Lf8, (1, 0xF)),
        (DataFormat::Int8, (1, 0xF)),
    ] {
        assert_eq!(bytes_per_datum(f.code()), want, "{f}");
    }
}

/// BlackholeA0 PACR.md: `ReadIntfSel` 0 enables all four interfaces; the
/// enabled ones read rows relative to `StartRow`.
#[test]
fn read_interfaces_read_rows_relative_to_start_row() {
    let all = ReadInterfaces::new(0, false);
    assert_eq!(all.mask, 0b1111);
    assert_eq!(all.count(), 4);
    assert_eq!(
        all.rows(8, false, false, true).unwrap(),
        [Some(8), Some(9), Some(10), Some(11)]
    );
    assert_eq!(
        ReadInterfaces::new(0b0101, false)
            .rows(8, false, false, true)
            .unwrap(),
        [Some(8), None, Some(10), None]
    );
    assert_eq!(
        ReadInterfaces::new(0b1010, false)
            .rows(12, false, false, true)
            .unwrap(),
        [None, Some(13), None, Some(15)]
    );
    // Three rows from row 17 stay in the group 16..=19.
    assert_eq!(
        ReadInterfaces::new(0b0111, false)
            .rows(17, false, false, true)
            .unwrap(),
        [Some(17), Some(18), Some(19), None]
    );
}

/// BlackholeA0 PACR.md: `(ReadIntfSel << (StartRow & 3)) > 0b1111` is
/// `UndefinedBehavior`, enforced when the strict rule is on; otherwise the
/// rows are `StartRow + i` (ttsim v1.10.0, whose vectors rely on it).
#[test]
fn read_interfaces_leaving_their_group_of_four() {
    let four = ReadInterfaces::new(0b1111, false);
    let e = four.rows(18, false, false, true).unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior);
    assert!(e.rule.contains("group of four"), "{}", e.rule);
    assert_eq!(
        four.rows(18, false, false, false).unwrap(),
        [Some(18), Some(19), Some(20), Some(21)]
    );
    let e = ReadInterfaces::new(0b0011, false)
        .rows(3, false, false, true)
        .unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior);
}

/// BlackholeA0 PACR.md, `DstAccessMode`: rows 16 apart, for use with
/// `DEST_ACCESS_CFG_swizzle_32b` and `remap_addrs`; other uses and masks
/// are not documented.
#[test]
fn strided_read_mode() {
    let two = ReadInterfaces::new(0b0011, true);
    assert_eq!(
        two.rows(4, true, true, true).unwrap(),
        [Some(4), Some(20), None, None]
    );
    assert_eq!(
        two.rows(4, false, true, true).unwrap_err().kind,
        FaultKind::Unimplemented
    );
    assert_eq!(
        ReadInterfaces::new(0b0101, true)
            .rows(0, true, true, true)
            .unwrap_err()
            .kind,
        FaultKind::Unimplemented
    );
}

// ---------------------------------------------------------------------------
// Early conversion, the modes added for the packer.

fn early(arch: Arch, read_32b: bool, raw: bool, r10: bool, f: DataFormat) -> EarlyConversion {
    EarlyConversion::select(
        arch,
        &EarlyConfig {
            read_32b_data: read_32b,
            read_raw: raw,
            read_unsigned: false,
            round_10b_mant: r10,
            intermediate: f,
            shift_amount: 0,
        },
    )
    .unwrap()
}

/// Blackhole, `IntermediateFormat = FP16` with `Round_10b_mant` on a 16-bit
/// `Dst`: the BF16 datum re-biased to FP16 with saturation (ttsim's model,
/// the mode tt-llk uses for FP8-e4m3 output).
#[test]
fn blackhole_bf16_dst_to_fp16() {
    let e = early(Arch::Blackhole, false, false, true, DataFormat::Float16);
    assert_eq!(e, EarlyConversion::Bf16ToFp16Blackhole);
    // 1.0 = 0x3F80 → FP16 0x3C00; −1.5 = 0xBFC0 → 0xBE00.
    let enc = |x: u16| tensix_emu::format::dst::encode_bf16(x) as u32;
    assert_eq!(e.apply(enc(0x3F80)), Intermediate::Fp16(0x3C00));
    assert_eq!(e.apply(enc(0xBFC0)), Intermediate::Fp16(0xBE00));
    // 2^20 exceeds FP16's range: saturate; 2^-20 is below it: signed zero.
    assert_eq!(e.apply(enc(0x4980)), Intermediate::Fp16(0x7FFF));
    assert_eq!(e.apply(enc(0xB580)), Intermediate::Fp16(0x8000));
    // Wormhole has no such mode: FP16 intermediate reads FP16.
    assert_eq!(
        early(Arch::WormholeB0, false, false, true, DataFormat::Float16),
        EarlyConversion::Fp16Round
    );
}

/// INT16 from a 32-bit `Dst`: "No" on the ISA page; ttsim (and its
/// vectors) take the high half of the stored value.
#[test]
fn int16_from_32bit_dst_is_the_high_half() {
    let e = early(Arch::WormholeB0, true, false, false, DataFormat::Int16);
    assert_eq!(e.apply(0xABCD_1234), Intermediate::Int16(0xABCD));
}

// ---------------------------------------------------------------------------
// Edge masking (EdgeMasking.md).

/// `TilePositionGenerator::Advance`: X counts 16 datums, then Y; Y wraps at
/// `pack_reads_per_xy_plane` into Z (or Y and Z swap roles when
/// `pack_yz_transposed`).
#[test]
fn tile_position_advances_per_datum() {
    let mut t = TilePosition::default();
    for _ in 0..16 {
        t.advance_datum(2, false);
    }
    assert_eq!((t.x, t.y, t.z), (0, 1, 0));
    for _ in 0..16 {
        t.advance_datum(2, false);
    }
    assert_eq!((t.x, t.y, t.z), (0, 0, 1));
    let mut t = TilePosition::default();
    for _ in 0..32 {
        t.advance_datum(2, true);
    }
    assert_eq!((t.x, t.y, t.z), (0, 1, 0));
}

/// BlackholeA0 PACR.md: the tile position advances by the enabled read
/// interfaces per PACR, wraps only when it lands exactly on
/// `pack_reads_per_xy_plane`, and is an 8-bit counter.
#[test]
fn blackhole_tile_position_advances_per_row() {
    let mut t = TilePosition { x: 0, y: 12, z: 0 };
    t.advance_rows(4, 16);
    assert_eq!((t.y, t.z), (0, 1));
    let mut t = TilePosition { x: 0, y: 14, z: 0 };
    t.advance_rows(4, 16);
    assert_eq!((t.y, t.z), (18, 0), "steps over the plane size");
    let mut t = TilePosition { x: 0, y: 254, z: 0 };
    t.advance_rows(4, 16);
    assert_eq!(t.y, 2, "8-bit counter");
}

/// EdgeMasking.md, `FetchFromDst`: `b` from the row-set select (2 bits per
/// packer) or, with the face-set select enabled, from
/// `TILE_FACE_SET_MAPPING[a][Z]`; then `c = TILE_ROW_SET_MAPPING[b][Y]` picks
/// `PCK_EDGE_OFFSET_SEC[c].mask`.
#[test]
fn edge_mask_selection() {
    let mut e = EdgeConfig {
        masks: [0x000F, 0x00F0, 0x0F00, 0xF000],
        // Packer 1 uses row set 2.
        row_set_select: 2 << 2,
        ..EdgeConfig::default()
    };
    // Row set 2: row 5 uses mask 3, every other row mask 1.
    e.row_set_mapping[2] = 0x5555_5555 & !(3 << 10) | (3 << 10);
    assert_eq!(e.mask(1, 5, 0), 0xF000);
    assert_eq!(e.mask(1, 4, 0), 0x00F0);
    // Packer 0 uses row set 0, all zero: mask 0.
    assert_eq!(e.mask(0, 5, 0), 0x000F);
    // Face sets: packer 0 picks face set 1, whose entry for Z = 3 is row set 2.
    e.face_set_enable = true;
    e.face_set_select = 1;
    e.face_set_mapping[1] = 2 << 6;
    assert_eq!(e.mask(0, 5, 3), 0xF000);
    assert_eq!(e.mask(0, 5, 2), 0x000F);
}

/// EdgeMasking.md: a masked datum becomes 0, or −∞ with `PCK_EDGE_MODE_mode`
/// (FloatBitPatterns.md: the 5-bit formats' −∞ stand-in is exponent 31,
/// mantissa all ones). Integers have no −∞.
#[test]
fn edge_fill_values() {
    assert_eq!(
        fill(Intermediate::Bf16(0x3F80), false).unwrap(),
        Intermediate::Bf16(0)
    );
    assert_eq!(
        fill(Intermediate::Bf16(0x3F80), true).unwrap(),
        Intermediate::Bf16(0xFF80)
    );
    assert_eq!(
        fill(Intermediate::Fp32(1), true).unwrap(),
        Intermediate::Fp32(0xFF80_0000)
    );
    assert_eq!(
        fill(Intermediate::Fp16(1), true).unwrap(),
        Intermediate::Fp16(0xFFFF)
    );
    assert_eq!(
        fill(Intermediate::E5m7(8), true).unwrap(),
        Intermediate::E5m7(0xFFF8)
    );
    assert_eq!(
        fill(Intermediate::Int8(3), false).unwrap(),
        Intermediate::Int8(0)
    );
    assert_eq!(
        fill(Intermediate::Int8(3), true).unwrap_err().kind,
        FaultKind::Unsupported
    );
}

// ---------------------------------------------------------------------------
// ReLU (ReLU.md).

/// A threshold <= -0 is undefined in modes 2 and 3; mode 1 has none.
#[test]
fn relu_negative_threshold_is_undefined() {
    for mode in [2, 3] {
        let e = Relu::select(mode, 0x8000).unwrap_err();
        assert_eq!(e.kind, FaultKind::UndefinedBehavior);
    }
    assert_eq!(Relu::select(1, 0x8000).unwrap(), Relu::Zero);
    assert_eq!(Relu::select(4, 0).unwrap(), Relu::Off, "ApplyRelu & 3");
}

/// ZERO_RELU: `x <= 0 ? 0 : x`; −0 becomes +0.
#[test]
fn relu_zero_mode() {
    let r = Relu::Zero;
    assert_eq!(
        r.apply(Intermediate::Bf16(0xBF80)).unwrap(),
        Intermediate::Bf16(0)
    );
    assert_eq!(
        r.apply(Intermediate::Bf16(0x8000)).unwrap(),
        Intermediate::Bf16(0)
    );
    assert_eq!(
        r.apply(Intermediate::Bf16(0x3F80)).unwrap(),
        Intermediate::Bf16(0x3F80)
    );
    assert_eq!(
        r.apply(Intermediate::Fp16(0xBC00)).unwrap(),
        Intermediate::Fp16(0)
    );
    assert_eq!(
        r.apply(Intermediate::Int32(0x8000_0005)).unwrap(),
        Intermediate::Int32(0)
    );
    assert_eq!(
        r.apply(Intermediate::Int32(5)).unwrap(),
        Intermediate::Int32(5)
    );
    assert_eq!(
        r.apply(Intermediate::UInt8(200)).unwrap(),
        Intermediate::UInt8(200)
    );
}

/// MIN_THRESHOLD_RELU: `x <= Threshold ? 0 : x`, the threshold BF16 for the
/// 8-bit-exponent types and FP16 for the 5-bit ones.
#[test]
fn relu_min_threshold() {
    let r = Relu::MinThreshold(0x3F80); // BF16 1.0
    assert_eq!(
        r.apply(Intermediate::Bf16(0x3F80)).unwrap(),
        Intermediate::Bf16(0)
    );
    assert_eq!(
        r.apply(Intermediate::Bf16(0x3F81)).unwrap(),
        Intermediate::Bf16(0x3F81)
    );
    assert_eq!(
        r.apply(Intermediate::Fp32(0x3F80_0001)).unwrap(),
        Intermediate::Fp32(0x3F80_0001)
    );
    let r = Relu::MinThreshold(0x3C00); // FP16 1.0
    assert_eq!(
        r.apply(Intermediate::Fp16(0x3BFF)).unwrap(),
        Intermediate::Fp16(0)
    );
    assert_eq!(
        r.apply(Intermediate::Fp16(0x3C01)).unwrap(),
        Intermediate::Fp16(0x3C01)
    );
}

/// MAX_THRESHOLD_RELU: 0 at or below 0, the threshold above it. FP32 datums
/// compare at full precision (Packers/ReLU.md's `x > Threshold` on floats,
/// which outranks ttsim's TF32-precision comparison).
#[test]
fn relu_max_threshold() {
    let r = Relu::MaxThreshold(0x4000); // BF16 2.0
    assert_eq!(
        r.apply(Intermediate::Bf16(0x4040)).unwrap(),
        Intermediate::Bf16(0x4000)
    );
    assert_eq!(
        r.apply(Intermediate::Bf16(0x3F80)).unwrap(),
        Intermediate::Bf16(0x3F80)
    );
    assert_eq!(
        r.apply(Intermediate::Bf16(0xC000)).unwrap(),
        Intermediate::Bf16(0)
    );
    assert_eq!(
        r.apply(Intermediate::E8m6(0x4042)).unwrap(),
        Intermediate::E8m6(0x4000)
    );
    // Threshold 1.0. 1 + 2^-23 is above it, though only below TF32
    // precision: clamped all the same.
    let r = Relu::MaxThreshold(0x3F80);
    assert_eq!(
        r.apply(Intermediate::Fp32(0x3F80_0001)).unwrap(),
        Intermediate::Fp32(0x3F80_0000)
    );
    // Exactly the threshold is not above it: kept.
    assert_eq!(
        r.apply(Intermediate::Fp32(0x3F80_0000)).unwrap(),
        Intermediate::Fp32(0x3F80_0000)
    );
    // 1 + 2^-10 is above it at TF32 precision: clamped.
    assert_eq!(
        r.apply(Intermediate::Fp32(0x3F80_2000)).unwrap(),
        Intermediate::Fp32(0x3F80_0000)
    );
    // FP16 threshold into FP8: representable, or refused.
    assert_eq!(
        Relu::MaxThreshold(0x3C00)
            .apply(Intermediate::Fp8(0x40))
            .unwrap(),
        Intermediate::Fp8(0x3C)
    );
    assert_eq!(
        Relu::MaxThreshold(0x3C01)
            .apply(Intermediate::Fp8(0x40))
            .unwrap_err()
            .kind,
        FaultKind::Unsupported
    );
}

/// NaN (after an identity early conversion) compares by its bits, as in
/// ttsim: a negative NaN is "<= 0", a positive one above any threshold
/// (vector `blackhole/pack/d32-fp32-to-fp32-0196`).
#[test]
fn relu_nan_compares_by_bits() {
    assert_eq!(
        Relu::Zero.apply(Intermediate::Fp32(0xFFC0_0000)).unwrap(),
        Intermediate::Fp32(0)
    );
    assert_eq!(
        Relu::MaxThreshold(0x3F80)
            .apply(Intermediate::Fp32(0x7FC0_0000))
            .unwrap(),
        Intermediate::Fp32(0x3F80_0000)
    );
}

/// ReLU.md: with an integer format `ApplyRelu` should be 0 or 1.
#[test]
fn relu_threshold_modes_on_integers_are_undefined() {
    for r in [Relu::MinThreshold(0), Relu::MaxThreshold(0)] {
        assert_eq!(
            r.apply(Intermediate::Int16(5)).unwrap_err().kind,
            FaultKind::UndefinedBehavior
        );
    }
}

// ---------------------------------------------------------------------------
// Exponent thresholding (ExponentThresholding.md).

#[test]
fn exponent_thresholding() {
    // BF16 1.0 has exponent 127: kept at threshold 127, zeroed at 128.
    let one = Intermediate::Bf16(0x3F80);
    assert_eq!(
        threshold::apply(one, DataFormat::Float16B, 127).unwrap(),
        one
    );
    assert_eq!(
        threshold::apply(one, DataFormat::Float16B, 128).unwrap(),
        Intermediate::Bf16(0)
    );
    // FP16 1.0 has the 5-bit exponent 15, zero-extended.
    let h = Intermediate::Fp16(0x3C00);
    assert_eq!(threshold::apply(h, DataFormat::Float16, 15).unwrap(), h);
    assert_eq!(
        threshold::apply(h, DataFormat::Float16, 16).unwrap(),
        Intermediate::Fp16(0)
    );
    // Integers are not in the switch: unchanged.
    let i = Intermediate::Int32(7);
    assert_eq!(threshold::apply(i, DataFormat::Int32, 255).unwrap(), i);
    // BFP2a: a hardware bug, undefined.
    assert_eq!(
        threshold::apply(h, DataFormat::Bfp2A, 0).unwrap_err().kind,
        FaultKind::UndefinedBehavior
    );
}

// ---------------------------------------------------------------------------
// Downsampling (seed 000 section 10; Packers/Downsampling.md not stored).

#[test]
fn downsample_mask_is_applied_cyclically() {
    assert!(Downsample::new(0).keeps_all());
    let d = Downsample::new(0x5555);
    assert!(d.keep(0) && !d.keep(1) && d.keep(16) && !d.keep(17));
    assert_eq!(d.kept(16), 8);
    assert_eq!(d.kept(20), 10);
    assert_eq!(Downsample::new(0x8000).kept(64), 4);
}

// ---------------------------------------------------------------------------
// Late conversion.

/// FP8 e4m3 (`Pac_LF8_4b_exp`): ttsim's FP16 → e4m3 (re-bias by 8, truncate
/// the mantissa to 3 bits, exponent <= 8 to signed zero, >= 24 to 0x7F).
#[test]
fn fp8_e4m3_pack_conversion() {
    let f = pack::fp16_to_fp8_e4m3;
    assert_eq!(f(0x3C00), 0x38, "1.0");
    assert_eq!(f(0x3E00), 0x3C, "1.5");
    assert_eq!(f(0xC000), 0xC0, "-2.0");
    assert_eq!(
        f(0x5BFF),
        0x77,
        "exponent 22, mantissa 0x3ff truncates to 7"
    );
    assert_eq!(f(0x2000), 0x00, "exponent 8 flushes");
    assert_eq!(f(0xA000), 0x80, "a flushed negative keeps its sign");
    assert_eq!(f(0x6000), 0x7F, "exponent 24 saturates");
    assert_eq!(f(0xFFFF), 0xFF);
    // Late conversion from BF16 1.0 goes through FP16.
    assert_eq!(
        pack::late_convert(Intermediate::Bf16(0x3F80), DataFormat::Lf8, Fp8Format::E4M3),
        Ok(0x38)
    );
}

/// FormatConversion.md: one shared exponent per 16 datums; the assembler
/// collects 16 elements, across instructions if need be.
#[test]
fn bfp_assembler_collects_sixteen() {
    let mut a = BfpAssembler::default();
    for k in 0..15 {
        let e = if k == 3 { 0x4000 } else { 0x3F80 };
        assert!(a.push(BfpExp::B, BfpWidth::Bits8, e).unwrap().is_none());
    }
    assert_eq!(a.pending(), 15);
    let g = a.push(BfpExp::B, BfpWidth::Bits8, 0).unwrap().unwrap();
    assert_eq!(g.shared_exp, 128, "2.0 has exponent 128");
    assert_eq!(g.datums[3], 0x40, "2.0 = 64/2^6 * 2^1");
    assert_eq!(g.datums[0], 0x20, "1.0 = 32/2^6 * 2^1");
    assert_eq!(g.datums[15], 0);
    assert_eq!(a.pending(), 0);
    // A group begun in one BFP format cannot continue in another.
    a.push(BfpExp::B, BfpWidth::Bits8, 0x3F80).unwrap();
    assert_eq!(
        a.push(BfpExp::B, BfpWidth::Bits4, 0x3F80).unwrap_err().kind,
        FaultKind::Unsupported
    );
    // Zero compression pads a partial group with zeros.
    let g = a.pad().unwrap();
    assert_eq!((g.shared_exp, g.datums[0], g.datums[1]), (127, 0x40, 0));
    assert_eq!(bfp8_datum(BfpExp::B, 0x3F80, 127), 0x40);
}

// ---------------------------------------------------------------------------
// Zero compression (Compression.md).

/// Zeros after a datum are counted by it; the first and last datum of a row
/// are kept; a counter holds at most 15.
#[test]
fn compression_elides_zeros_into_counters() {
    let mut c = Compressor::default();
    // Row: 5, 0, 0, 7, 0 (last).
    assert_eq!(c.admit(false, true, false), Admit::Store { closed: None });
    assert_eq!(c.admit(true, false, false), Admit::Elide);
    assert_eq!(c.admit(true, false, false), Admit::Elide);
    assert_eq!(c.admit(false, false, false), Admit::Store { closed: None });
    assert_eq!(c.admit(true, false, true), Admit::Store { closed: None });
    assert_eq!(c.in_group(), 3);
    assert_eq!(c.row_end_index(), 3);
    let block = c.final_counters_block();
    // Counters 2, 0, 0: first datum's counter in the low nibble.
    assert_eq!(block[0], 0x02);
    assert_eq!(block[1], 0x00);

    // A first zero is stored, and 16 zeros after it need two counters.
    let mut c = Compressor::default();
    assert_eq!(c.admit(true, true, false), Admit::Store { closed: None });
    for _ in 0..15 {
        assert_eq!(c.admit(true, false, false), Admit::Elide);
    }
    assert_eq!(c.admit(true, false, false), Admit::Store { closed: None });
    assert_eq!(c.final_counters_block()[0], 0x0F);
}

/// Compression.md: 32 augmented datums, then their 32 counters; the counters
/// of a group are final once the next augmented datum arrives.
#[test]
fn compression_closes_groups_of_32() {
    let mut c = Compressor::default();
    for k in 0..32 {
        assert_eq!(c.admit(false, k == 0, false), Admit::Store { closed: None });
    }
    assert_eq!(c.admit(true, false, false), Admit::Elide);
    let Admit::Store {
        closed: Some(block),
    } = c.admit(false, false, false)
    else {
        panic!("the 33rd augmented datum closes the group");
    };
    assert_eq!(block[15], 0x10, "datum 31 counted one zero");
    assert_eq!(block[0], 0);
    assert_eq!(c.in_group(), 1);
}

// ---------------------------------------------------------------------------
// Output address generator and streams (OutputAddressGenerator.md).

/// `Addr = L1_Dest_addr + !Sub_l1_tile_header_size` (16-byte units).
#[test]
fn initial_address_skips_the_header() {
    let mut pk = PackerConfig {
        l1_dest_addr: 0x100,
        ..PackerConfig::default()
    };
    assert_eq!(initial_addr(&pk), 0x101);
    pk.sub_l1_tile_header_size = true;
    assert_eq!(initial_addr(&pk), 0x100);
}

/// `PerformingCompression`: `Disable_zero_compress`, or with the override its
/// bit of `All_pack_disable_zero_compress`.
#[test]
fn performing_compression_rule() {
    let on = PackerConfig::default();
    let off = PackerConfig {
        disable_zero_compress: true,
        ..PackerConfig::default()
    };
    assert!(performing_compression(&on, false, 0, 0));
    assert!(!performing_compression(&off, false, 0, 0));
    assert!(performing_compression(&off, true, 0b1101, 1));
    assert!(!performing_compression(&on, true, 0b0010, 1));
}

/// "Output alignment": 16-byte buffered writes at `(Addr & 0x1ffff) << 4`;
/// `ByteAddress` advances by 16 per write; a flush pads with zeros.
#[test]
fn output_stream_buffers_sixteen_bytes() {
    let mut l1 = L1::new(Arch::Blackhole);
    l1.enable_log();
    let mut s = OutStream::default();
    assert!(s.needs_new_address);
    s.assign(0x2_0101);
    assert_eq!(s.byte_address, 0x1010, "(Addr & 0x1ffff) << 4");
    s.assign(0x200);
    assert_eq!(s.byte_address, 0x1010, "no new address until asked");
    s.push(&mut l1, &[1; 10], None, 0).unwrap();
    assert!(l1.log().is_empty(), "10 bytes wait in the buffer");
    s.push(&mut l1, &[2; 10], None, 0).unwrap();
    assert_eq!(l1.log().len(), 1);
    assert_eq!(
        l1.read(0x1010, 16).unwrap(),
        &[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2]
    );
    assert_eq!((s.byte_address, s.pending()), (0x1020, 4));
    s.flush(&mut l1, None, 1).unwrap();
    assert_eq!(
        l1.read(0x1020, 16).unwrap(),
        &[2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    assert!(l1.log().iter().all(|w| w.addr % 16 == 0));
}

/// A write that leaves L1 stops the run rather than wrapping.
#[test]
fn output_outside_l1_is_refused() {
    let mut l1 = L1::new(Arch::WormholeB0);
    let mut s = OutStream::default();
    s.assign(0x1_FFFF);
    let e = s.push(&mut l1, &[0; 16], None, 0).unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior);
}

/// L1 accumulation adds the datums to L1; the zero padding of a flush goes
/// through the adder too, so L1 past the last datum keeps `L1 + 0`
/// (PackerPipeline.lua: the whole data buffer feeds the adder).
#[test]
fn output_stream_accumulates() {
    let mut l1 = L1::new(Arch::Blackhole);
    l1.bytes_mut()[0x100..0x110].copy_from_slice(&[0x80, 0x3F].repeat(8));
    let mut s = OutStream::default();
    s.assign(0x10);
    s.push(&mut l1, &[0x00, 0x40, 0x80, 0x3F], Some(AccFormat::Bf16), 0)
        .unwrap();
    s.flush(&mut l1, Some(AccFormat::Bf16), 0).unwrap();
    // 1 + 2 = 3 (0x4040), 1 + 1 = 2 (0x4000), then six lanes of 1 + 0 = 1.
    let mut want = vec![0x40, 0x40, 0x00, 0x40];
    want.extend([0x80, 0x3F].repeat(6));
    assert_eq!(l1.read(0x100, 16).unwrap(), &want[..]);
}

// ---------------------------------------------------------------------------
// L1 accumulation arithmetic (ttsim's pack_l1_acc_*).

#[test]
fn l1_accumulation_fp32() {
    assert_eq!(l1_acc::fp32(0x3F80_0000, 0x4000_0000), 0x4040_0000, "1 + 2");
    assert_eq!(
        l1_acc::fp32(0x0000_0001, 0x3F80_0000),
        0x3F80_0000,
        "denormal in"
    );
    assert_eq!(l1_acc::fp32(0x0080_0000, 0x8000_0001), 0x0080_0000);
    // 2^-126 - 2^-126 * (1 - 2^-23)... a denormal result flushes.
    assert_eq!(l1_acc::fp32(0x0080_0001, 0x8080_0000), 0);
    assert_eq!(
        l1_acc::fp32(0x7F80_0000, 0xFF80_0000),
        0x7FC0_0000,
        "inf - inf"
    );
}

#[test]
fn l1_accumulation_bf16() {
    assert_eq!(l1_acc::bf16(0x3F80, 0x3F80), 0x4000);
    assert_eq!(l1_acc::bf16(0x7F80, 0xFF80), 0x7FC0);
    // 1 + 2^-8 is a tie between 1.0 and 1 + 2^-7: to even.
    assert_eq!(l1_acc::bf16(0x3F80, 0x3B80), 0x3F80);
    assert_eq!(l1_acc::bf16(0x3F81, 0x3B80), 0x3F82);
    assert_eq!(l1_acc::bf16(0x7F7F, 0x7F7F), 0x7F80, "overflow to infinity");
    assert_eq!(l1_acc::bf16(0x0001, 0x3F80), 0x3F80, "denormal in");
}

#[test]
fn l1_accumulation_fp16() {
    assert_eq!(l1_acc::fp16(0x3C00, 0x3C00), 0x4000);
    assert_eq!(l1_acc::fp16(0x3C00, 0xBC00), 0x0000);
    assert_eq!(
        l1_acc::fp16(0x7800, 0xF800),
        0x7FFF,
        "ttsim: cancellation at exponent 30"
    );
    assert_eq!(l1_acc::fp16(0x7FFF, 0x7FFF), 0x7FFF, "saturates");
    // 1 + 2^-11: a tie between 1.0 and 1 + 2^-10, to even.
    assert_eq!(l1_acc::fp16(0x3C00, 0x1000), 0x3C00);
}

#[test]
fn l1_accumulation_formats() {
    assert_eq!(
        AccFormat::for_output(DataFormat::Float16B),
        Ok(AccFormat::Bf16)
    );
    assert_eq!(
        AccFormat::for_output(DataFormat::Bfp8B).unwrap_err().kind,
        FaultKind::Unsupported
    );
}

// ---------------------------------------------------------------------------
// Exponent histogram.

/// Bin `Exponent & 31`, each bin a saturating 8-bit counter
/// (SETDMAREG_Special.md).
#[test]
fn exponent_histogram_bins() {
    let mut h = ExponentHistogram::default();
    h.observe(Intermediate::Bf16(0x3F80)).unwrap(); // exponent 127 → bin 31
    h.observe(Intermediate::Fp16(0x3C00)).unwrap(); // exponent 15 → bin 15
    h.observe(Intermediate::Fp32(0x4000_0000)).unwrap(); // exponent 128 → bin 0
    let b = h.bins();
    assert_eq!((b[31], b[15], b[0]), (1, 1, 1));
    assert_eq!(h.max_exponent(), 128);
    for _ in 0..300 {
        h.observe(Intermediate::Bf16(0x3F80)).unwrap();
    }
    assert_eq!(h.bins()[31], 255);
    assert_eq!(h.bins()[0], 1);
    h.reset();
    assert_eq!(h.bins(), [0; 32]);
    assert_eq!(
        h.observe(Intermediate::Int8(1)).unwrap_err().kind,
        FaultKind::Unimplemented
    );
}
