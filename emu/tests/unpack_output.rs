//! The unpackers' output address generator and register writes
//! (tt-isa-documentation `UNPACR_Regular.md`, "Determine initial output
//! address" and the inner loops; `Unpackers/README.md`, "Upsampling").

mod unpack_common;

use tensix_emu::regs::{CfgField as C, ThreadCfgField as T};
use tensix_emu::state::dst::DstView;
use tensix_emu::{Arch, FaultKind, Machine};
use unpack_common::*;

const BF16: u32 = 5;
const FP32: u32 = 0;
const MARK: u32 = 0x1234;

fn mark_srca(m: &mut Machine, rows: usize) {
    for r in 0..rows {
        for c in 0..16 {
            m.srca.write(0, r, c, MARK);
        }
    }
}

fn job_with_data(arch: Arch, n: usize) -> (Machine, Vec<u16>) {
    let mut m = srca_job(arch, BF16, n as u32, 0x100);
    let data = ramp(0x3F80, n);
    m.write_l1((0x100 + 1) * 16, &bf16_bytes(&data)).unwrap();
    (m, data)
}

/// Unpacker 0's first four output rows are a header: `SrcA` writes to rows
/// 0..3 of the output address are dropped (`if (Row < 4 ...) continue`).
#[test]
fn srca_skips_the_four_header_rows() {
    let (mut m, data) = job_with_data(Arch::Blackhole, 32);
    set(&mut m, C::UNP0_ADDR_BASE_REG_1_Base, 3 * 16 * 2);
    mark_srca(&mut m, 2);
    run(&mut m, 0, &[&xx(0, 31), &unpacr(0, "")]).unwrap();
    let want: Vec<u32> = data[16..].iter().map(|b| bf16_cell(*b)).collect();
    assert_eq!(srca_row(&m, 0, 0).to_vec(), want);
    assert_eq!(srca_row(&m, 0, 1), [MARK; 16]);
}

/// `Upsample_rate` r inserts `2^r − 1` zero datums after every datum, or
/// with `Upsample_and_interleave` skips that many output positions.
#[test]
fn upsampling_inserts_or_skips_positions() {
    for (rate, interleave) in [(1, false), (2, false), (3, false), (1, true), (3, true)] {
        let (mut m, data) = job_with_data(Arch::WormholeB0, 16);
        set(&mut m, C::THCON_SEC0_REG2_Upsample_rate, rate);
        set(
            &mut m,
            C::THCON_SEC0_REG2_Upsample_and_interleave,
            interleave as u32,
        );
        mark_srca(&mut m, 8);
        run(&mut m, 0, &[&xx(0, 3), &unpacr(0, "")]).unwrap();
        let step = 1usize << rate;
        let cells: Vec<u32> = (0..8).flat_map(|r| srca_row(&m, 0, r)).collect();
        for (i, cell) in cells.iter().enumerate() {
            let want = if i >= 4 * step {
                MARK
            } else if i % step == 0 {
                bf16_cell(data[i / step])
            } else if interleave {
                MARK
            } else {
                0
            };
            assert_eq!(
                *cell, want,
                "rate {rate} interleave {interleave} position {i}"
            );
        }
    }
}

/// `ColShift = Shift_amount_cntx[WhichContext & 3]` (unpacker 0, not in
/// tileize mode): columns below it are dropped and the rest move left.
#[test]
fn column_shift_moves_datums_left() {
    let (mut m, data) = job_with_data(Arch::Blackhole, 16);
    set(&mut m, C::THCON_SEC0_REG2_Shift_amount_cntx0, 2);
    mark_srca(&mut m, 1);
    run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap();
    let mut want = [MARK; 16];
    for c in 0..14 {
        want[c] = bf16_cell(data[c + 2]);
    }
    assert_eq!(srca_row(&m, 0, 0), want);
}

/// `Haloize_mode` on unpacker 0: the low four bits of the row and the column
/// swap, transposing each 16×16 block.
#[test]
fn haloize_transposes_16_by_16_blocks() {
    let (mut m, data) = job_with_data(Arch::WormholeB0, 256);
    set(&mut m, C::THCON_SEC0_REG2_Haloize_mode, 1);
    run(&mut m, 0, &[&xx(0, 255), &unpacr(0, "")]).unwrap();
    for r in 0..16 {
        for c in 0..16 {
            assert_eq!(m.srca.read(0, r, c), bf16_cell(data[c * 16 + r]), "{r},{c}");
        }
    }
}

/// Unpacker 1 ignores `Haloize_mode` (NonContractualBehavior on current
/// silicon).
#[test]
fn unpacker_1_ignores_haloize() {
    let mut m = srcb_job(Arch::Blackhole, BF16, 32, 0x100);
    set(&mut m, C::THCON_SEC1_REG2_Haloize_mode, 1);
    let data = ramp(0x3F80, 32);
    m.write_l1((0x100 + 1) * 16, &bf16_bytes(&data)).unwrap();
    run(&mut m, 0, &[&xx(1, 31), &unpacr(1, "")]).unwrap();
    assert_eq!(srcb_row(&m, 0, 1)[0], bf16_cell(data[16]));
}

/// Without `SetOvrdWithAddr`, `SrcA` rows are `SrcRow[thread]` plus at most
/// 16; `Unpack_Src_Reg_Set_Upd` adds `16 + SRCA_SET_Base * 16` after each
/// `UNPACR`, and `FlipSrc` resets it to `SRCA_SET_Base * 16`.
#[test]
fn src_row_steps_with_srca_set() {
    let (mut m, data) = job_with_data(Arch::Blackhole, 16);
    set_thread(&mut m, 0, T::SRCA_SET_SetOvrdWithAddr, 0);
    set_thread(&mut m, 0, T::SRCA_SET_Base, 1);
    set(&mut m, C::THCON_SEC0_REG2_Unpack_Src_Reg_Set_Upd, 1);
    run(
        &mut m,
        0,
        &[
            &xx(0, 15),
            &unpacr(0, ""),
            &unpacr(0, "set_dat_valid=1"),
            &unpacr(0, ""),
        ],
    )
    .unwrap();
    let want: Vec<u32> = data.iter().map(|b| bf16_cell(*b)).collect();
    assert_eq!(srca_row(&m, 0, 0).to_vec(), want); // SrcRow 0
    assert_eq!(srca_row(&m, 0, 32).to_vec(), want); // SrcRow 0 + 16 + 16
    assert_eq!(srca_row(&m, 1, 16).to_vec(), want); // flipped: SrcRow = 16
    assert_eq!(srca_row(&m, 0, 16), [0; 16]);
}

/// `SrcB` rows wrap modulo 64: `Row = (Row + SrcRow) & 0x3f`.
#[test]
fn srcb_rows_wrap_at_64() {
    let mut m = srcb_job(Arch::WormholeB0, BF16, 32, 0x100);
    set(&mut m, C::UNP1_ADDR_CTRL_XY_REG_1_Ystride, 63 * 16 * 2);
    let data = ramp(0x3F80, 32);
    m.write_l1((0x100 + 1) * 16, &bf16_bytes(&data)).unwrap();
    run(
        &mut m,
        0,
        &[
            &xx(1, 31),
            "SETADC cnt_set_mask=2 channel_index=1 dimension_index=1 value=1",
            &unpacr(1, ""),
        ],
    )
    .unwrap();
    assert_eq!(srcb_row(&m, 0, 63)[0], bf16_cell(data[0]));
    assert_eq!(srcb_row(&m, 0, 0)[0], bf16_cell(data[16]));
}

/// `Unpack_If_Sel`: unpacker 0 writes `Dst16b[Row - 4]` or, for FP32 /
/// TF32 / INT32 output, `Dst32b[Row - 4]` (row taken to 10 bits), in the
/// layout `Dst.md` gives.
#[test]
fn dst_rows_are_output_rows_less_four() {
    for arch in Arch::ALL {
        let (mut m, data) = job_with_data(arch, 32);
        set_thread(&mut m, 0, T::SRCA_SET_SetOvrdWithAddr, 0);
        set(&mut m, C::THCON_SEC0_REG2_Unpack_If_Sel, 1);
        set(&mut m, C::UNP0_ADDR_BASE_REG_1_Base, (64 + 16 * 5) * 2);
        run(&mut m, 0, &[&xx(0, 31), &unpacr(0, "")]).unwrap();
        let row = m.read_dst_row(DstView::Bf16, 5);
        assert_eq!(
            row.to_vec(),
            data[..16].iter().map(|x| *x as u32).collect::<Vec<_>>()
        );
        assert_eq!(m.read_dst_row(DstView::Bf16, 6)[15], data[31] as u32);

        let mut m = srca_job(arch, FP32, 16, 0x100);
        set_thread(&mut m, 0, T::SRCA_SET_SetOvrdWithAddr, 0);
        set(&mut m, C::THCON_SEC0_REG2_Unpack_If_Sel, 1);
        set(&mut m, C::UNP0_ADDR_BASE_REG_1_Base, 0); // row 0 − 4 wraps to 1020
        let words: Vec<u32> = (0..16).map(|i| 0x3F80_0001 + (i << 20)).collect();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        m.write_l1((0x100 + 1) * 16, &bytes).unwrap();
        run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap();
        assert_eq!(
            m.read_dst_row(DstView::Fp32, 1020).to_vec(),
            words,
            "{arch}"
        );
    }
}

/// Without `SetOvrdWithAddr`, a `SrcA` row 16 or more past the header is
/// undefined.
#[test]
fn srca_past_16_rows_without_ovrd_is_undefined() {
    let (mut m, _) = job_with_data(Arch::WormholeB0, 16);
    set_thread(&mut m, 0, T::SRCA_SET_SetOvrdWithAddr, 0);
    set(&mut m, C::UNP0_ADDR_BASE_REG_1_Base, (64 + 16 * 16) * 2);
    let e = run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{e}");
}

/// A 16-bit output format needs an even output byte address, a 32-bit one a
/// multiple of four.
#[test]
fn misaligned_output_addresses_are_undefined() {
    let (mut m, _) = job_with_data(Arch::Blackhole, 16);
    set(&mut m, C::UNP0_ADDR_BASE_REG_1_Base, 129);
    let e = run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{e}");
    assert!(e.rule.contains("OutAddr & 1"), "{e}");
    let mut m = srca_job(Arch::Blackhole, FP32, 16, 0x100);
    set(&mut m, C::THCON_SEC0_REG2_Unpack_If_Sel, 1);
    set_thread(&mut m, 0, T::SRCA_SET_SetOvrdWithAddr, 0);
    set(&mut m, C::UNP0_ADDR_BASE_REG_1_Base, 258);
    let e = run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap_err();
    assert!(e.rule.contains("OutAddr & 3"), "{e}");
}

/// `UnpackToDst && (ColShift || Transpose)` is undefined.
#[test]
fn dst_with_column_shift_or_transpose_is_undefined() {
    for field in [
        C::THCON_SEC0_REG2_Shift_amount_cntx0,
        C::THCON_SEC0_REG2_Haloize_mode,
    ] {
        let (mut m, _) = job_with_data(Arch::WormholeB0, 16);
        set_thread(&mut m, 0, T::SRCA_SET_SetOvrdWithAddr, 0);
        set(&mut m, C::THCON_SEC0_REG2_Unpack_If_Sel, 1);
        set(&mut m, field, 1);
        let e = run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap_err();
        assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{field:?}: {e}");
    }
}

/// With `SetOvrdWithAddr`, `SrcA` rows wrap modulo 64; a write burst that
/// starts at or below row 63 and runs past it is dropped instead
/// (`UNPACR_Regular.md`). Bursts are at most 8 rows: starting on a multiple
/// of 8 the wrap is exact, otherwise the emulator refuses.
#[test]
fn srca_rows_wrap_at_64_only_on_burst_boundaries() {
    let (mut m, data) = job_with_data(Arch::Blackhole, 256);
    set(&mut m, C::UNP0_ADDR_BASE_REG_1_Base, (64 + 16 * 56) * 2);
    run(&mut m, 0, &[&xx(0, 255), &unpacr(0, "")]).unwrap();
    assert_eq!(srca_row(&m, 0, 56)[0], bf16_cell(data[0]));
    assert_eq!(srca_row(&m, 0, 0)[0], bf16_cell(data[128]));
    assert_eq!(srca_row(&m, 0, 7)[15], bf16_cell(data[255]));

    let (mut m, _) = job_with_data(Arch::Blackhole, 64);
    set(&mut m, C::UNP0_ADDR_BASE_REG_1_Base, (64 + 16 * 62) * 2);
    let e = run(&mut m, 0, &[&xx(0, 63), &unpacr(0, "")]).unwrap_err();
    assert_eq!(e.kind, FaultKind::Unsupported, "{e}");
}

/// Unpacking to `Dst` with `SetOvrdWithAddr`: the newer page keeps four bits
/// of row (`Row &= 15`).
#[test]
fn dst_with_ovrd_keeps_four_row_bits() {
    let (mut m, data) = job_with_data(Arch::Blackhole, 16);
    set(&mut m, C::THCON_SEC0_REG2_Unpack_If_Sel, 1);
    set(&mut m, C::UNP0_ADDR_BASE_REG_1_Base, (64 + 16 * 18) * 2);
    run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap();
    assert_eq!(m.read_dst_row(DstView::Bf16, 2)[0], data[0] as u32);
    assert_eq!(m.read_dst_row(DstView::Bf16, 18)[0], 0);
}

/// `SrcB` rows are offset by `SrcRow[thread]`, which `FlipSrc` sets to
/// `SRCB_SET_Base << 4`.
#[test]
fn srcb_rows_start_at_srcb_set_base_after_a_flip() {
    let mut m = srcb_job(Arch::Blackhole, BF16, 16, 0x100);
    set_thread(&mut m, 0, T::SRCB_SET_Base, 2);
    let data = ramp(0x3F80, 16);
    m.write_l1((0x100 + 1) * 16, &bf16_bytes(&data)).unwrap();
    run(
        &mut m,
        0,
        &[&xx(1, 15), &unpacr(1, "set_dat_valid=1"), &unpacr(1, "")],
    )
    .unwrap();
    assert_eq!(m.srcb.read(0, 0, 3), bf16_cell(data[3]));
    assert_eq!(m.srcb.read(1, 32, 3), bf16_cell(data[3]));
    assert_eq!(m.srcb.read(1, 0, 3), 0);
}
