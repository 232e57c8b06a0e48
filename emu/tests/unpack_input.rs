//! The unpackers' input address generator and L1 streams
//! (tt-isa-documentation `UNPACR_Regular.md`, "Determine initial input
//! address(es) and input datum count" and the main loop; `Unpackers/README.md`,
//! "Decompression"). Each test cites the rule it checks.

mod unpack_common;

use tensix_emu::regs::CfgField as C;
use tensix_emu::{Arch, FaultKind};
use unpack_common::*;

const BF16: u32 = 5;
const BFP8: u32 = 6;
const BFP4: u32 = 7;

/// `InAddr = (Base_address + (Offset_address & 0xffff) + 1 + DigestSize) * 16`:
/// the tile header is `(1 + DigestSize) * 16` bytes.
#[test]
fn header_skip_uses_base_offset_and_digest_size() {
    for arch in Arch::ALL {
        let mut m = srca_job(arch, BF16, 16, 0x100);
        descriptor(&mut m, 0, [desc0(BF16, 16), 1, 0, 2 << 24]);
        set(&mut m, C::THCON_SEC0_REG7_Offset_address, 3);
        let data = ramp(0x3F80, 16);
        m.write_l1((0x100 + 3 + 1 + 2) * 16, &bf16_bytes(&data))
            .unwrap();
        m.write_l1((0x100 + 1) * 16, &bf16_bytes(&ramp(0x4100, 16)))
            .unwrap();
        run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap();
        let want: Vec<u32> = data.iter().map(|b| bf16_cell(*b)).collect();
        assert_eq!(srca_row(&m, 0, 0).to_vec(), want, "{arch}");
    }
}

/// BFP: one exponent byte per 16 datums at `InAddr`, the section padded to
/// 16 bytes, datums after it; `BFP8ToBF16` normalises the magnitude and
/// decodes sign 1 with magnitude 0 as −infinity (0xFF80).
#[test]
fn bfp8_reads_one_exponent_per_16_datums_before_the_datums() {
    let mut m = srca_job(Arch::Blackhole, BFP8, 32, 0x200);
    let at = (0x200 + 1) * 16;
    let mut exps = [0u8; 16];
    exps[0] = 0x7F;
    exps[1] = 0x80;
    m.write_l1(at, &exps).unwrap();
    let mut datums = [0u8; 32];
    datums[..4].copy_from_slice(&[0x40, 0x60, 0x80, 0x00]);
    datums[16] = 0x20;
    datums[17] = 0xC1; // −(65/64) · 2^1
    m.write_l1(at + 16, &datums).unwrap();
    run(&mut m, 0, &[&xx(0, 31), &unpacr(0, "")]).unwrap();
    let r0 = srca_row(&m, 0, 0);
    // 0x40 = 1.0 at exponent 127; 0x60 = 1.5; 0x80 = −inf; 0x00 = +0.
    assert_eq!(
        &r0[..4],
        &[bf16_cell(0x3F80), bf16_cell(0x3FC0), bf16_cell(0xFF80), 0]
    );
    let r1 = srca_row(&m, 0, 1);
    // 0x20 = 0.5 at exponent 128 = 1.0; 0xC1 = −(65/64)·2 = −2.03125 → 0xC002.
    assert_eq!(&r1[..2], &[bf16_cell(0x3F80), bf16_cell(0xC002)]);
}

/// `Force_shared_exp`: no exponent section; every datum uses
/// `FORCED_SHARED_EXP_shared_exp`.
#[test]
fn forced_shared_exponent_skips_the_exponent_section() {
    let mut m = srca_job(Arch::WormholeB0, BFP8, 16, 0x200);
    set(&mut m, C::THCON_SEC0_REG2_Force_shared_exp, 1);
    set(&mut m, C::UNP0_FORCED_SHARED_EXP_shared_exp, 0x80);
    let at = (0x200 + 1) * 16;
    m.write_l1(at, &[0x40, 0x60]).unwrap();
    run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap();
    assert_eq!(
        &srca_row(&m, 0, 0)[..2],
        &[bf16_cell(0x4000), bf16_cell(0x4040)]
    );
}

/// `NoBFPExpSection` (BFP4/BFP2 only): the exponents are still read from
/// `InAddr`, but no section is skipped, so the datums start there too.
#[test]
fn no_bfp_exp_section_leaves_the_datums_at_the_exponents() {
    let at = (0x300 + 1) * 16;
    let bytes = [0x7F, 0x11, 0, 0, 0, 0, 0, 0];
    let mut with = srca_job(Arch::Blackhole, BFP4, 16, 0x300);
    descriptor(&mut with, 0, [desc0(BFP4, 16) | (1 << 5), 1, 0, 0]);
    with.write_l1(at, &bytes).unwrap();
    run(&mut with, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap();
    // Exponent 0x7F; datum 0 is nibble 0xF (−7/4), datum 1 is 0x7 (7/4),
    // datums 2 and 3 are 0x1 (1/4 = 2^-2).
    let r = srca_row(&with, 0, 0);
    assert_eq!(
        &r[..4],
        &[
            bf16_cell(0xBFE0),
            bf16_cell(0x3FE0),
            bf16_cell(0x3E80),
            bf16_cell(0x3E80)
        ]
    );

    let mut without = srca_job(Arch::Blackhole, BFP4, 16, 0x300);
    without.write_l1(at, &bytes).unwrap();
    without.write_l1(at + 16, &[0x33]).unwrap();
    run(&mut without, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap();
    // Datums from the next 16 bytes: 0x3 = 3/4 at exponent 0x7F.
    assert_eq!(srca_row(&without, 0, 0)[0], bf16_cell(0x3F40));
}

/// `FirstDatum = ((W * ZDim + Z) * YDim + Y) * XDim + X` from channel 0.
#[test]
fn first_datum_comes_from_channel_0_counters() {
    let mut m = srca_job(Arch::WormholeB0, BF16, 16, 0x100);
    descriptor(&mut m, 0, [desc0(BF16, 16), 4 | (2 << 16), 0, 0]);
    let at = (0x100 + 1) * 16;
    let all = ramp(0x3C00, 16 * 4 * 2);
    m.write_l1(at, &bf16_bytes(&all)).unwrap();
    run(
        &mut m,
        0,
        &[
            "SETADC cnt_set_mask=1 channel_index=0 dimension_index=1 value=1",
            "SETADC cnt_set_mask=1 channel_index=0 dimension_index=2 value=1",
            &xx(0, 15),
            "SETADC cnt_set_mask=1 channel_index=0 dimension_index=0 value=3",
            &unpacr(0, ""),
        ],
    )
    .unwrap();
    // First datum (1 * 4 + 1) * 16 + 3 = 83; count Ch1.X + 1 - 3 = 13.
    let r = srca_row(&m, 0, 0);
    let want: Vec<u32> = (83..96).map(|i| bf16_cell(all[i])).collect();
    assert_eq!(&r[..13], &want[..]);
    assert_eq!(&r[13..], &[0, 0, 0]);
}

/// Compressed input: the row start index array (16-bit entries, padded to
/// 16 bytes) gives the row's first datum and count; each group of 32 datums
/// is followed by 32 four-bit zero-run counts, each the number of zeroes
/// written after its datum.
fn compressed(arch: Arch) -> tensix_emu::Machine {
    let mut m = srca_job(arch, BF16, 16, 0x400);
    descriptor(&mut m, 0, [BF16 | (16 << 16), 1, 0, 0]);
    let at = (0x400 + 1) * 16;
    m.write_l1(at, &[0, 0, 4, 0]).unwrap(); // RSI: row 0 is datums 0..4
    let mut group = bf16_bytes(&[0x3F80, 0x4000, 0x4040, 0x4080]);
    group.resize(64, 0);
    group.extend_from_slice(&[0x01, 0x02]); // zeroes: 1, 0, 2, 0
    m.write_l1(at + 16, &group).unwrap();
    for c in 0..16 {
        m.srca.write(0, 0, c, 0x1234);
    }
    m
}

#[test]
fn decompression_inserts_the_zero_runs() {
    let mut m = compressed(Arch::Blackhole);
    run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap();
    let (a, b, c, d) = (
        bf16_cell(0x3F80),
        bf16_cell(0x4000),
        bf16_cell(0x4040),
        bf16_cell(0x4080),
    );
    let mut want = [0x1234; 16];
    want[..7].copy_from_slice(&[a, 0, b, c, 0, 0, d]);
    assert_eq!(srca_row(&m, 0, 0), want);
}

/// A partial row of compressed data: `DecompressDrop = Ch0.X` decompressed
/// datums are discarded, then `Ch1.X + 1 - Ch0.X` are written.
#[test]
fn decompression_drops_leading_datums_for_a_partial_row() {
    let mut m = compressed(Arch::WormholeB0);
    run(
        &mut m,
        0,
        &["SETADCXX cnt_set_mask=1 x_start=2 x_end2=4", &unpacr(0, "")],
    )
    .unwrap();
    let mut want = [0x1234; 16];
    want[..3].copy_from_slice(&[bf16_cell(0x4000), bf16_cell(0x4040), 0]);
    assert_eq!(srca_row(&m, 0, 0), want);
}

/// `WrapAddr`: an address past `Unpack_limit_address * 16` moves back by
/// `Unpack_fifo_size * 16`, at the start and after every input row.
#[test]
fn fifo_wrap_applies_at_the_start_and_at_row_ends() {
    // Starts past the limit: read from 0x2000 − 0x1000.
    let mut m = srca_job(Arch::WormholeB0, BF16, 16, 0x1FF);
    set(&mut m, C::THCON_SEC0_REG2_Unpack_limit_address, 0x1FF);
    set(&mut m, C::THCON_SEC0_REG2_Unpack_fifo_size, 0x100);
    m.write_l1(0x1000, &bf16_bytes(&ramp(0x3F00, 16))).unwrap();
    run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap();
    assert_eq!(srca_row(&m, 0, 0)[5], bf16_cell(0x3F05));

    // Row 0 ends exactly at the limit. Wormhole B0 checks after every 16
    // datums, so its second row comes from 0x1000. Blackhole reads 32 datums
    // per row of a 16-bit format (ttsim), so it reads on past the limit to
    // 0x2020 and its third SrcA row comes from 0x1020.
    for (arch, wrapped_row, first) in [(Arch::WormholeB0, 1, 0x4000), (Arch::Blackhole, 2, 0x4010)]
    {
        let mut m = srca_job(arch, BF16, 64, 0x1FD);
        set(&mut m, C::THCON_SEC0_REG2_Unpack_limit_address, 0x1FE);
        set(&mut m, C::THCON_SEC0_REG2_Unpack_fifo_size, 0x100);
        m.write_l1(0x1FE0, &bf16_bytes(&ramp(0x3F00, 64))).unwrap();
        m.write_l1(0x1000, &bf16_bytes(&ramp(0x4000, 64))).unwrap();
        run(&mut m, 0, &[&xx(0, 63), &unpacr(0, "")]).unwrap();
        assert_eq!(srca_row(&m, 0, 0)[0], bf16_cell(0x3F00), "{arch}");
        assert_eq!(
            srca_row(&m, 0, wrapped_row - 1)[15],
            bf16_cell(0x3F00 + 16 * wrapped_row as u16 - 1),
            "{arch}"
        );
        assert_eq!(srca_row(&m, 0, wrapped_row)[0], bf16_cell(first), "{arch}");
    }
}

/// `ReadL1Bytes`: "Address must be in L1".
#[test]
fn reading_past_the_end_of_l1_is_undefined() {
    for arch in Arch::ALL {
        let top = (arch.l1_size() / 16) as u32;
        let mut m = srca_job(arch, BF16, 32, top - 2);
        let e = run(&mut m, 0, &[&xx(0, 31), &unpacr(0, "")]).unwrap_err();
        assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{arch}: {e}");
        assert!(e.rule.contains("ReadL1Bytes"), "{e}");
        // The last 16 datums in L1 can be read.
        let mut m = srca_job(arch, BF16, 16, top - 3);
        run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap();
    }
}

/// `DiscontiguousInputRows` (`Tileize_mode`): after each input row the datum
/// address moves on by `RowStride` (the three `Shift_amount` fields,
/// 16-byte units) from the row's start. An input row is 16 datums on
/// Wormhole B0 and, for 16-bit formats, 32 on Blackhole (ttsim).
#[test]
fn tileize_reads_rows_a_row_stride_apart() {
    for (arch, row) in [(Arch::WormholeB0, 16), (Arch::Blackhole, 32)] {
        let mut m = srca_job(arch, BF16, 64, 0x100);
        set(&mut m, C::THCON_SEC0_REG2_Tileize_mode, 1);
        set(&mut m, C::THCON_SEC0_REG2_Shift_amount_cntx0, 0); // RowStride 0x100
        set(&mut m, C::THCON_SEC0_REG2_Shift_amount_cntx1, 1);
        let at = (0x100 + 1) * 16;
        for r in 0..4u32 {
            m.write_l1(
                at + r * 0x100,
                &bf16_bytes(&ramp(0x3C00 + 0x100 * r as u16, 32)),
            )
            .unwrap();
        }
        run(&mut m, 0, &[&xx(0, 63), &unpacr(0, "")]).unwrap();
        let cells: Vec<u32> = (0..4).flat_map(|r| srca_row(&m, 0, r)).collect();
        let want: Vec<u32> = (0..64u16)
            .map(|i| bf16_cell(0x3C00 + 0x100 * (i / row) + i % row))
            .collect();
        assert_eq!(cells, want, "{arch}");
    }
}

/// "These modes require that InAddr_Datums start at an aligned 16 byte
/// boundary", and tileize may not be combined with upsampling.
#[test]
fn tileize_needs_aligned_rows_and_no_upsampling() {
    let mut m = srca_job(Arch::WormholeB0, BF16, 32, 0x100);
    set(&mut m, C::THCON_SEC0_REG2_Tileize_mode, 1);
    let e = run(
        &mut m,
        0,
        &[
            &xx(0, 15),
            "SETADC cnt_set_mask=1 channel_index=0 dimension_index=0 value=1",
            &unpacr(0, ""),
        ],
    )
    .unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{e}");
    let mut m = srca_job(Arch::WormholeB0, BF16, 32, 0x100);
    set(&mut m, C::THCON_SEC0_REG2_Tileize_mode, 1);
    set(&mut m, C::THCON_SEC0_REG2_Upsample_rate, 1);
    let e = run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{e}");
}

/// `RowSearch` on uncompressed data without blobs: X from 0 to `Ch1.X`
/// (exclusive) of row `Ch0.Y`.
#[test]
fn row_search_reads_from_x_zero_to_channel_1_x() {
    let mut m = srca_job(Arch::Blackhole, BF16, 16, 0x100);
    descriptor(&mut m, 0, [desc0(BF16, 16), 2, 0, 0]);
    m.write_l1((0x100 + 1) * 16, &bf16_bytes(&ramp(0x3C00, 32)))
        .unwrap();
    run(
        &mut m,
        0,
        &[
            "SETADCXX cnt_set_mask=1 x_start=9 x_end2=4",
            "SETADC cnt_set_mask=1 channel_index=0 dimension_index=1 value=1",
            &unpacr(0, "row_search=1"),
        ],
    )
    .unwrap();
    let r = srca_row(&m, 0, 0);
    let want: Vec<u32> = (16..20).map(|i| bf16_cell(0x3C00 + i)).collect();
    assert_eq!(&r[..4], &want[..]);
    assert_eq!(r[4], 0);
}

/// `RowSearch` with `BlobsPerXYPlane`: blob `Ch0.Y` starts at
/// `BlobsYStart[Y] << 4` and ends where blob `(Ch0.X & 7) + 1` starts, or at
/// `XDim & 0x1f0` when that is the last blob.
#[test]
fn row_search_with_blobs_uses_blobs_y_start() {
    let mut m = srca_job(Arch::WormholeB0, BF16, 48, 0x100);
    // BlobsPerXYPlane 3; BlobsYStart = [0, 1, 2, ...] (entries 0, 1, 2).
    descriptor(&mut m, 0, [desc0(BF16, 48) | (3 << 8), 1, 0x0210 << 16, 0]);
    m.write_l1((0x100 + 1) * 16, &bf16_bytes(&ramp(0x3C00, 48)))
        .unwrap();
    run(
        &mut m,
        0,
        &[
            "SETADC cnt_set_mask=1 channel_index=0 dimension_index=1 value=1",
            "SETADC cnt_set_mask=1 channel_index=0 dimension_index=0 value=2",
            &unpacr(0, "row_search=1"),
        ],
    )
    .unwrap();
    // Blob 1 starts at 16; X71 = 3 is the last blob, so it ends at 48.
    let cells: Vec<u32> = (0..2).flat_map(|r| srca_row(&m, 0, r)).collect();
    let want: Vec<u32> = (16..48).map(|i| bf16_cell(0x3C00 + i)).collect();
    assert_eq!(cells, want);
}

/// A count that would be negative is an unsigned wrap in the model: refused
/// as undefined rather than looping four billion times.
#[test]
fn a_negative_datum_count_is_undefined() {
    let mut m = srca_job(Arch::Blackhole, BF16, 16, 0x100);
    let e = run(
        &mut m,
        0,
        &["SETADCXX cnt_set_mask=1 x_start=9 x_end2=3", &unpacr(0, "")],
    )
    .unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{e}");
}
