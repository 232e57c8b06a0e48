//! The golden unpack model on Wormhole B0, against cells worked out by hand
//! from tt-isa-documentation `WormholeB0/TensixTile/TensixCoprocessor/
//! UNPACR_Regular.md` (functional model and FormatConversion),
//! `FloatBitPatterns.md`, `SrcASrcB.md` and `Dst.md`, and against the
//! hand-derived isa-spec vectors in `conformance-vectors/isa-spec/
//! wormhole_b0/unpack/`. Every hand-worked job also runs through the emulator
//! (the tt-llk-style program `harness::llk` builds) and must agree there.
//!
//! A Src cell is written as the project's vectors write it: sign 18,
//! exponent field 17:10, mantissa field 9:0; FP16 has its exponent in 14:10.

use std::path::Path;
use tensix_harness::generators::tile::UnpackTileCase;
use tensix_harness::golden::pack::l1_size;
use tensix_harness::golden::unpack::{unpack, Unpacked};
use tensix_harness::golden::{Format, Refusal, UnpackJob, UnpackTarget};
use tensix_harness::llk::{self, recover};
use tensix_harness::oracles::{tile::check_unpack_tile, Verdict, Workbench};
use tensix_harness::vector::{self, Arch, DstFormat, SrcRow, Vector};

fn job(arch: Arch, target: UnpackTarget, input: Format, out: Format) -> UnpackJob {
    UnpackJob {
        arch,
        target,
        input,
        out,
        fp8_e4m3: false,
        unsigned: false,
        forced_exp: None,
        haloize: false,
        faces: 1,
        face_rows: 1,
        tile: 0,
        l1_addr: 0x2000,
    }
}

/// L1 holding `tile` at the job's address, zero elsewhere.
fn l1_with(job: &UnpackJob, tile: &[u8]) -> Vec<u8> {
    let mut l1 = vec![0; l1_size(job.arch) as usize];
    let at = job.l1_addr as usize;
    l1[at..at + tile.len()].copy_from_slice(tile);
    l1
}

/// The model's rows for `job` on `tile`; the emulator, running the LLK
/// program for the same job, must agree with them.
fn model_and_emulator(job: &UnpackJob, tile: &[u8]) -> Unpacked {
    let got = unpack(job, &l1_with(job, tile), &[], None).expect("the model covers the job");
    let case = UnpackTileCase {
        job: job.clone(),
        tile: tile.to_vec(),
        before: Vec::new(),
        dst_before: Vec::new(),
    };
    assert_eq!(
        check_unpack_tile(&mut Workbench::new(), &case),
        Ok(Verdict::Agree),
        "{job:?}"
    );
    got
}

/// Row `row` of an unpack to SrcA/SrcB.
fn src_row(u: &Unpacked, row: u8) -> [u32; 16] {
    match u {
        Unpacked::Src(rows) => rows
            .iter()
            .find(|r| r.row == row && r.bank == 0)
            .map(|r| r.cells)
            .expect("the row is written"),
        Unpacked::Dst(_) => panic!("expected Src rows"),
    }
}

/// The first `n` cells of a row, then zeros.
fn row_of(first: &[u32]) -> [u32; 16] {
    let mut r = [0; 16];
    r[..first.len()].copy_from_slice(first);
    r
}

#[test]
fn fp8_is_e5m2_without_the_blackhole_all_ones_fill() {
    // UNPACR_Regular.md, FormatConversion: FP8 becomes FP16 by DatumBits <<= 8
    // (Wormhole B0 has no Unp_LF8_4b_exp); SrcASrcB.md's FP16 overlay puts
    // the sign at bit 18 and keeps exponent and mantissa in bits 14:0.
    let j = job(
        Arch::WormholeB0,
        UnpackTarget::SrcA,
        Format::Fp8,
        Format::Fp8,
    );
    let mut tile = vec![0u8; 16];
    tile[..6].copy_from_slice(&[0x3c, 0x7f, 0xff, 0x80, 0x01, 0x7c]);
    let got = model_and_emulator(&j, &tile);
    assert_eq!(
        src_row(&got, 0),
        row_of(&[0x03c00, 0x07f00, 0x47f00, 0x40000, 0x00100, 0x07c00])
    );
    // The same bytes on Blackhole: ttsim fills the low byte with ones for
    // an all-ones magnitude (0x7f -> 0x7fff, 0xff -> 0xffff).
    let b = UnpackJob {
        arch: Arch::Blackhole,
        ..j.clone()
    };
    let got = model_and_emulator(&b, &tile);
    assert_eq!(
        src_row(&got, 0),
        row_of(&[0x03c00, 0x07fff, 0x47fff, 0x40000, 0x00100, 0x07c00])
    );
    // E4M3 needs Unp_LF8_4b_exp, a Blackhole field.
    let e4m3 = UnpackJob {
        fp8_e4m3: true,
        ..j
    };
    assert!(matches!(e4m3.check(), Err(Refusal::NotModelled(_))));
}

#[test]
fn bfp8_to_srcb_normalises_each_magnitude() {
    // UNPACR_Regular.md BFP8ToBF16: the 7-bit magnitude shifted left until
    // its top bit is set, the shared exponent lowered by as much; magnitude
    // 0 is +0, or -inf (0xff80) with the sign set. A BF16 in Src is TF32
    // with three zero mantissa bits (cell = bf16 << 3).
    let j = job(
        Arch::WormholeB0,
        UnpackTarget::SrcB,
        Format::Bfp8,
        Format::Bfp8,
    );
    let mut tile = vec![0u8; 32];
    tile[0] = 127; // the one shared exponent, then padding to 16 bytes
    tile[16..22].copy_from_slice(&[0x40, 0xc0, 0x80, 0x00, 0x01, 0x60]);
    let got = model_and_emulator(&j, &tile);
    // 0x40: 1.0 (0x3f80); 0xc0: -1.0; 0x80: -inf; 0x01: 2^-6 (0x3c80);
    // 0x60: 1.5 (0x3fc0).
    assert_eq!(
        src_row(&got, 0),
        row_of(&[0x1fc00, 0x5fc00, 0x7fc00, 0, 0x1e400, 0x1fe00])
    );
}

#[test]
fn fp32_to_bf16_truncates_and_flushes_denormals() {
    // UNPACR_Regular.md FormatConversion, FP32 -> BF16: a zero exponent
    // keeps only the sign, then the high 16 bits are kept (no rounding).
    let j = job(
        Arch::WormholeB0,
        UnpackTarget::SrcA,
        Format::Fp32,
        Format::Bf16,
    );
    let words: [u32; 5] = [
        0x3f81_2345,
        0x0040_0000,
        0x8000_0001,
        0x7f80_0000,
        0xc049_0fdb,
    ];
    let mut tile: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    tile.resize(64, 0);
    let got = model_and_emulator(&j, &tile);
    assert_eq!(
        src_row(&got, 0),
        row_of(&[0x1fc08, 0, 0x40000, 0x3fc00, 0x60248])
    );
}

#[test]
fn int8_is_overlaid_on_fp16_with_exponent_16() {
    // UNPACR_Regular.md FormatConversion, INT8: sign-magnitude (or unsigned
    // with SrcAUnsigned), a nonzero magnitude gets the dummy exponent 16, the
    // sign goes to FP16's bit 15 (cell bit 18).
    let j = job(
        Arch::WormholeB0,
        UnpackTarget::SrcA,
        Format::Int8,
        Format::Int8,
    );
    let mut tile = vec![0u8; 16];
    tile[..3].copy_from_slice(&[0x85, 0x80, 0x05]);
    let got = model_and_emulator(&j, &tile);
    assert_eq!(src_row(&got, 0), row_of(&[0x44005, 0x40000, 0x04005]));
    let u = UnpackJob {
        unsigned: true,
        ..j
    };
    let got = model_and_emulator(&u, &tile);
    assert_eq!(src_row(&got, 0), row_of(&[0x04085, 0x04080, 0x04005]));
}

#[test]
fn bf16_into_dst16b_reaches_rows_past_512() {
    // UNPACR_Regular.md: unpacking to Dst with a 16-bit output writes Dst16b
    // (Row = OutAddr / 16 - 4, 10 bits); Dst.md: Dst16b has 1024 rows. Tile
    // 9 of 64 rows starts at row 576, beyond Dst32b's 512 rows.
    let mut j = job(
        Arch::WormholeB0,
        UnpackTarget::Dst,
        Format::Bf16,
        Format::Bf16,
    );
    j.tile = 9;
    j.faces = 4;
    j.face_rows = 2;
    // Datum k is the BF16 0x3f80 + k (1.0 and up).
    let tile: Vec<u8> = (0..128u16)
        .flat_map(|k| (0x3f80 + k).to_le_bytes())
        .collect();
    let got = model_and_emulator(&j, &tile);
    let Unpacked::Dst(d) = got else {
        panic!("expected Dst rows")
    };
    assert_eq!(d.format, DstFormat::Bf16);
    // Face f's rows land at 576 + 16 f and 576 + 16 f + 1.
    let rows: Vec<u16> = d.rows.iter().map(|r| r.row).collect();
    assert_eq!(rows, [576, 577, 592, 593, 608, 609, 624, 625]);
    let face2_row1 = d.rows.iter().find(|r| r.row == 609).expect("row 609");
    // Face 2, row 1 holds datums 2 * 32 + 16 .. + 16.
    assert_eq!(face2_row1.cells[0], 0x3f80 + 80);
    assert_eq!(face2_row1.cells[15], 0x3f80 + 95);
    // Blackhole keeps to the Dst32b combinations ttsim anchors.
    let b = UnpackJob {
        arch: Arch::Blackhole,
        tile: 0,
        ..j
    };
    assert!(matches!(b.check(), Err(Refusal::NotModelled(_))));
}

#[test]
fn dst_tiles_are_bounded_by_the_view() {
    // Dst.md: 1024 Dst16b rows, 512 Dst32b rows.
    let mut j = job(
        Arch::WormholeB0,
        UnpackTarget::Dst,
        Format::Fp16,
        Format::Fp16,
    );
    j.faces = 4;
    j.tile = 15;
    assert_eq!(j.check(), Ok(()));
    j.tile = 16;
    assert!(matches!(j.check(), Err(Refusal::NotModelled(_))));
    let mut w = job(
        Arch::WormholeB0,
        UnpackTarget::Dst,
        Format::Fp32,
        Format::Fp32,
    );
    w.faces = 4;
    w.tile = 7;
    assert_eq!(w.check(), Ok(()));
    w.tile = 8;
    assert!(matches!(w.check(), Err(Refusal::NotModelled(_))));
}

#[test]
fn l1_ends_at_1464_kib() {
    // UNPACR_Regular.md ReadL1Bytes: an address at or past 1464 * 1024 is
    // undefined on Wormhole B0; Blackhole's L1 is 1536 KiB.
    let mut j = job(
        Arch::WormholeB0,
        UnpackTarget::SrcA,
        Format::Bf16,
        Format::Bf16,
    );
    j.l1_addr = 1464 * 1024 - 32; // one row of 16 BF16 datums: 32 bytes
    assert_eq!(j.check(), Ok(()));
    j.l1_addr += 16;
    assert!(matches!(j.check(), Err(Refusal::Undefined(_))));
    let b = UnpackJob {
        arch: Arch::Blackhole,
        ..j
    };
    assert_eq!(b.check(), Ok(()));
}

#[test]
fn the_wormhole_program_uses_wormhole_addresses_and_reads_back() {
    // Wormhole B0 register map (ttsim-data/wh/tensix_regs.json, as in
    // cfg_defines.h): THCON_SEC0_REG0_TileDescriptor is word 52,
    // THCON_SEC0_REG2_Out_data_format word 60 (Throttle_mode at bit 4),
    // THCON_SEC0_REG3_Base_address word 64, THCON_SEC1_REG0 word 92; there is
    // no Unp_LF8_4b_exp. The isa-spec vectors use the same words.
    let mut j = job(
        Arch::WormholeB0,
        UnpackTarget::SrcA,
        Format::Bfp8a,
        Format::Bfp8a,
    );
    j.faces = 2;
    j.face_rows = 8;
    let p = llk::unpack(&j);
    let word = |a: u32| p.config.iter().find(|w| w.addr == a).map(|w| w.value);
    assert_eq!(word(52), Some(Format::Bfp8a.code() | 0x10));
    assert_eq!(word(53), Some(1 | (2 << 16)));
    assert_eq!(word(60), Some(Format::Bfp8a.code() | (2 << 4)));
    assert_eq!(word(64), Some(0x2000 / 16 - 1));
    // Blackhole's Base_address word (76) is not written on Wormhole B0.
    assert_eq!(word(76), None);
    // Each target's job reads back from the vector the builder makes.
    for (target, input) in [
        (UnpackTarget::SrcA, Format::Bfp8a),
        (UnpackTarget::SrcB, Format::Fp8),
        (UnpackTarget::Dst, Format::Bfp4),
    ] {
        let mut k = UnpackJob {
            target,
            input,
            out: input,
            ..j.clone()
        };
        if target == UnpackTarget::Dst {
            k.tile = 11;
        }
        let v = llk::vector(k.arch, "t", llk::unpack(&k), Vec::new(), None);
        assert_eq!(recover::unpack_job(&v), Ok(k));
    }
}

/// L1 as a vector's setup leaves it.
fn l1_of(v: &Vector) -> Vec<u8> {
    let mut l1 = vec![v.setup.l1_fill; l1_size(v.arch) as usize];
    for r in &v.setup.l1 {
        l1[r.addr as usize..r.addr as usize + r.bytes.len()].copy_from_slice(&r.bytes);
    }
    l1
}

fn expected_src(v: &Vector, b: bool, row: u8) -> [u32; 16] {
    let rows: &[SrcRow] = if b {
        v.expect.srcb.as_deref().unwrap_or_default()
    } else {
        v.expect.srca.as_deref().unwrap_or_default()
    };
    rows.iter()
        .find(|r| r.bank == 0 && r.row == row)
        .map(|r| r.cells)
        .unwrap_or_else(|| panic!("{}: no expected row {row}", v.name))
}

/// The model's job for the tile of an isa-spec vector (by its setup: tile
/// descriptor, Base_address), and how its rows sit in the vector's output.
struct Equivalent {
    job: UnpackJob,
    /// The vector's row for the model's row 0.
    row_offset: u8,
}

#[test]
fn the_model_matches_the_wormhole_isa_spec_vectors_in_its_scope() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance-vectors/isa-spec/wormhole_b0/unpack");
    let vectors = vector::load_dir(&dir).expect("the isa-spec vectors load");
    let at = |j: UnpackJob| UnpackJob {
        l1_addr: 0x10010,
        ..j
    };
    let mut compared = 0;
    for v in &vectors {
        let leaf = v.name.rsplit('/').next().unwrap_or_default();
        let eq = match leaf {
            // Base_address 0x1000: the tile at 0x10010. Exponents 16 and 9,
            // then 32 BFP4a datums; the program's ADC puts them at SrcB rows
            // 1 and 2.
            "bfp4a-to-srcb" => Some(Equivalent {
                job: at(UnpackJob {
                    face_rows: 2,
                    ..job(
                        Arch::WormholeB0,
                        UnpackTarget::SrcB,
                        Format::Bfp4a,
                        Format::Bfp4a,
                    )
                }),
                row_offset: 1,
            }),
            // 32 BFP8a datums into Dst16b rows 0 and 1 as FP16.
            "bfp8a-to-dst" => Some(Equivalent {
                job: at(UnpackJob {
                    face_rows: 2,
                    ..job(
                        Arch::WormholeB0,
                        UnpackTarget::Dst,
                        Format::Bfp8a,
                        Format::Bfp8a,
                    )
                }),
                row_offset: 0,
            }),
            // Rows 0 and 1 are read in place before the FIFO wrap moves row
            // 2's address; the model has no FIFO, so it covers those two.
            "fifo-wrap-at-row-boundary" => Some(Equivalent {
                job: at(UnpackJob {
                    face_rows: 2,
                    ..job(
                        Arch::WormholeB0,
                        UnpackTarget::SrcA,
                        Format::Bf16,
                        Format::Bf16,
                    )
                }),
                row_offset: 0,
            }),
            // Tileize mode reads row 0 from the tile's first 16 datums, then
            // strides; the model (contiguous rows) covers row 0.
            "tilize-bf16-discontiguous-rows" => Some(Equivalent {
                job: at(job(
                    Arch::WormholeB0,
                    UnpackTarget::SrcA,
                    Format::Bf16,
                    Format::Bf16,
                )),
                row_offset: 0,
            }),
            // Compressed input and a multi-context ADC fault: no tile job of
            // the model's (uncompressed tiles only, one context).
            "decompress-whole-row-to-srca" | "context-adc-3-is-undefined" => None,
            other => panic!("{other}: classify this vector for the model"),
        };
        let Some(eq) = eq else { continue };
        let got = unpack(&eq.job, &l1_of(v), &[], None)
            .unwrap_or_else(|r| panic!("{}: the model refuses: {r}", v.name));
        match got {
            Unpacked::Src(rows) => {
                let b = eq.job.target == UnpackTarget::SrcB;
                for r in rows {
                    assert_eq!(
                        r.cells,
                        expected_src(v, b, r.row + eq.row_offset),
                        "{}: model row {}",
                        v.name,
                        r.row
                    );
                }
            }
            Unpacked::Dst(d) => {
                let want = v.expect.dst.as_ref().expect("the vector expects Dst");
                assert_eq!(d.format, want.format, "{}", v.name);
                for r in &d.rows {
                    let w = want
                        .rows
                        .iter()
                        .find(|w| w.row == r.row + u16::from(eq.row_offset))
                        .expect("the vector lists the row");
                    assert_eq!(r.cells, w.cells, "{}: Dst row {}", v.name, r.row);
                }
            }
        }
        compared += 1;
    }
    assert_eq!(
        compared, 4,
        "four of the six vectors are in the model's scope"
    );
}
