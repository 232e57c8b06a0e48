//! `MOVA2D`, `MOVB2D` and `MOVB2A` (tt-isa-documentation `MOVA2D.md`,
//! `MOVB2D.md`, `MOVB2A.md`).
//! Expected values are worked out here from the cell's fields: a `SrcA`
//! cell in canonical order (sign 18, exponent 17:10, mantissa 9:0) moved
//! with the TF32 format is the FP32 value sign, exponent, mantissa, 13
//! zero bits; moved as BF16 it keeps the top seven mantissa bits; as FP16
//! the low five exponent bits.

mod unpack_common;

use tensix_emu::regs::{CfgField as C, ThreadCfgField as T};
use tensix_emu::state::dst::DstView;
use tensix_emu::state::SrcClient;
use tensix_emu::{Arch, FaultKind, Machine};
use unpack_common::*;

const TF32: u32 = 4;
const BF16: u32 = 5;
const FP16: u32 = 1;

/// A cell from sign, 8-bit exponent field and 10-bit mantissa field.
fn cell(sign: u32, exp: u32, man: u32) -> u32 {
    (sign << 18) | (exp << 10) | man
}

/// A machine whose `SrcA` (or `SrcB`) bank `bank` holds distinct cells,
/// including exponent 0 and 255, given to the matrix unit, which reads it.
fn loaded(arch: Arch, source: usize, bank: usize) -> Machine {
    let mut m = Machine::new(arch);
    let s = if source == 0 {
        &mut m.srca
    } else {
        &mut m.srcb
    };
    for row in 0..64 {
        for col in 0..16 {
            let k = (row * 16 + col) as u32;
            let exp = match col {
                0 => 0,
                1 => 255,
                _ => (k * 37) & 0xff,
            };
            s.write(bank, row, col, cell(k & 1, exp, (k * 613) & 0x3ff));
        }
    }
    s.banks[bank].allowed_client = SrcClient::MatrixUnit;
    s.matrix_bank = bank;
    set(&mut m, C::ALU_FORMAT_SPEC_REG0_SrcA, TF32);
    set(&mut m, C::ALU_ACC_CTRL_Zero_Flag_disabled_src, 1);
    if arch == Arch::Blackhole {
        set_thread(&mut m, 1, T::DISABLE_IMPLIED_SRCA_FMT_Base, 1);
    }
    m
}

fn srca(m: &Machine, bank: usize, row: usize) -> [u32; 16] {
    std::array::from_fn(|c| m.srca.read(bank, row, c))
}

#[test]
fn tf32_moves_every_bit_of_a_srca_bank_into_dst32b() {
    for arch in Arch::ALL {
        for bank in 0..2 {
            let mut m = loaded(arch, 0, bank);
            let moves: Vec<String> = (0..8)
                .map(|k| format!("MOVA2D instr_mod=2 src={} dst={}", 8 * k, 64 + 8 * k))
                .collect();
            let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
            run(&mut m, 1, &texts).unwrap();
            for row in 0..64 {
                let want = srca(&m, bank, row).map(|c| c << 13);
                assert_eq!(
                    m.read_dst_row(DstView::Fp32, 64 + row as u32),
                    want,
                    "{arch} bank {bank} row {row}"
                );
            }
        }
    }
}

#[test]
fn narrower_formats_go_to_dst16b() {
    for arch in Arch::ALL {
        // BF16: the top seven mantissa bits.
        let mut m = loaded(arch, 0, 0);
        set(&mut m, C::ALU_FORMAT_SPEC_REG0_SrcA, BF16);
        run(&mut m, 1, &["MOVA2D instr_mod=2 src=16 dst=40"]).unwrap();
        for k in 0..8 {
            let want = srca(&m, 0, 16 + k).map(|c| c >> 3);
            assert_eq!(m.read_dst_row(DstView::Bf16, 40 + k as u32), want, "{arch}");
        }
        // FP16: sign, five exponent bits, ten mantissa bits; one row.
        let mut m = loaded(arch, 0, 0);
        set(&mut m, C::ALU_FORMAT_SPEC_REG0_SrcA, FP16);
        run(&mut m, 1, &["MOVA2D src=5 dst=7"]).unwrap();
        let want = srca(&m, 0, 5).map(|c| ((c >> 3) & 0x8000) | (c & 0x7fff));
        assert_eq!(m.read_dst_row(DstView::Fp16, 7), want, "{arch}");
        assert_eq!(m.read_dst_row(DstView::Fp16, 8), [0; 16], "{arch}");
    }
}

/// Blackhole takes the format from the one the bank was unpacked in unless
/// `DISABLE_IMPLIED_SRCA_FMT_Base` is set (MOVA2D.md, 545c98a).
#[test]
fn blackhole_uses_the_banks_implied_format() {
    let mut m = loaded(Arch::Blackhole, 0, 1);
    set_thread(&mut m, 1, T::DISABLE_IMPLIED_SRCA_FMT_Base, 0);
    m.unpackers.units[0].implied_format = [TF32 as u8, BF16 as u8];
    run(&mut m, 1, &["MOVA2D instr_mod=2 src=0 dst=0"]).unwrap();
    for k in 0..8 {
        let want = srca(&m, 1, k).map(|c| c >> 3);
        assert_eq!(m.read_dst_row(DstView::Bf16, k as u32), want);
    }
}

#[test]
fn denormal_sources_flush_unless_disabled() {
    let mut m = loaded(Arch::WormholeB0, 0, 0);
    set(&mut m, C::ALU_ACC_CTRL_Zero_Flag_disabled_src, 0);
    run(&mut m, 1, &["MOVA2D instr_mod=2 src=0 dst=0"]).unwrap();
    let row = m.read_dst_row(DstView::Fp32, 3);
    let src = srca(&m, 0, 3);
    // Column 0 has exponent 0: the whole datum, sign too, becomes zero.
    assert_ne!(src[0], 0);
    assert_eq!(row[0], 0);
    assert_eq!(row[1], src[1] << 13);
}

#[test]
fn offsets_add_and_eight_row_moves_align() {
    let mut m = loaded(Arch::WormholeB0, 0, 0);
    set_thread(&mut m, 1, T::DEST_TARGET_REG_CFG_MATH_Offset, 100);
    // 3 + 100 = 103, aligned down to 96; source row 13 to 8.
    run(&mut m, 1, &["MOVA2D instr_mod=2 src=13 dst=3"]).unwrap();
    for k in 0..8 {
        assert_eq!(
            m.read_dst_row(DstView::Fp32, 96 + k),
            srca(&m, 0, 8 + k as usize).map(|c| c << 13)
        );
    }
    // The thread that issues it is the one whose offset counts.
    let mut m = loaded(Arch::WormholeB0, 0, 0);
    set_thread(&mut m, 1, T::DEST_TARGET_REG_CFG_MATH_Offset, 100);
    run(&mut m, 2, &["MOVA2D instr_mod=2 src=8 dst=0"]).unwrap();
    assert_eq!(
        m.read_dst_row(DstView::Fp32, 0),
        srca(&m, 0, 8).map(|c| c << 13)
    );
}

#[test]
fn movb2d_rows_and_broadcasts() {
    let arch = Arch::WormholeB0;
    let srcb = |m: &Machine, row: usize| -> [u32; 16] {
        std::array::from_fn(|c| m.srcb.read(0, row, c) << 13)
    };
    // Move4Rows: four rows from 20 (aligned from 22) to 12 (from 13).
    let mut m = loaded(arch, 1, 0);
    run(&mut m, 1, &["MOVB2D instr_mod=4 src=22 dst=13"]).unwrap();
    for k in 0..4 {
        assert_eq!(
            m.read_dst_row(DstView::Fp32, 12 + k),
            srcb(&m, 20 + k as usize)
        );
    }
    // Broadcast1RowTo8 with BroadcastCol0: row 9's first cell everywhere.
    let mut m = loaded(arch, 1, 0);
    run(&mut m, 1, &["MOVB2D instr_mod=3 src=9 dst=17"]).unwrap();
    let first = srcb(&m, 9)[0];
    for k in 16..24 {
        assert_eq!(m.read_dst_row(DstView::Fp32, k), [first; 16]);
    }
    assert_eq!(m.read_dst_row(DstView::Fp32, 24), [0; 16]);
    // Blackhole's modifier layout is not documented.
    let mut m = loaded(Arch::Blackhole, 1, 0);
    let e = run(&mut m, 1, &["MOVB2D src=0 dst=0"]).unwrap_err();
    assert_eq!(e.kind, FaultKind::Unimplemented);
}

#[test]
fn a_move_waits_for_the_matrix_units_bank() {
    for arch in Arch::ALL {
        let mut m = loaded(arch, 0, 0);
        m.srca.banks[0].allowed_client = SrcClient::Unpackers;
        let e = run(&mut m, 1, &["MOVA2D instr_mod=2 src=0 dst=0"]).unwrap_err();
        assert_eq!(e.kind, FaultKind::Deadlock, "{arch}");
        assert_eq!(m.read_dst_row(DstView::Fp32, 0), [0; 16]);
        // The matrix unit reads its own bank, not the one written last.
        let mut m = loaded(arch, 0, 0);
        m.srca.matrix_bank = 1;
        let e = run(&mut m, 1, &["MOVA2D instr_mod=2 src=0 dst=0"]).unwrap_err();
        assert_eq!(e.kind, FaultKind::Deadlock, "{arch}");
    }
}

#[test]
fn what_is_not_modelled_or_defined_faults() {
    let arch = Arch::WormholeB0;
    let mut m = loaded(arch, 0, 0);
    let e = run(&mut m, 1, &["MOVA2D instr_mod=2 src=0 dst=0 dest_32b_lo=1"]).unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior);
    let mut m = loaded(arch, 0, 0);
    set(&mut m, C::ALU_FORMAT_SPEC_REG0_SrcA, BF16);
    let e = run(&mut m, 1, &["MOVA2D instr_mod=2 src=0 dst=0 dest_32b_lo=1"]).unwrap_err();
    assert_eq!(e.kind, FaultKind::Unimplemented);
    // An address modifier that would move the RWCs.
    let mut m = loaded(arch, 0, 0);
    set_thread(&mut m, 1, T::ADDR_MOD_AB_SEC1_SrcAIncr, 8);
    let e = run(&mut m, 1, &["MOVA2D instr_mod=2 src=0 dst=0 addr_mode=1"]).unwrap_err();
    assert_eq!(e.kind, FaultKind::Unimplemented);
    assert_eq!(m.read_dst_row(DstView::Fp32, 0), [0; 16]);
    run(&mut m, 1, &["MOVA2D instr_mod=2 src=0 dst=0 addr_mode=0"]).unwrap();
}

/// Configure the `SrcB` format `code` for thread 1 (on Blackhole, in place
/// of the banks' implied formats).
fn srcb_format(m: &mut Machine, arch: Arch, code: u32) {
    set(m, C::ALU_FORMAT_SPEC_REG1_SrcB, code);
    if arch == Arch::Blackhole {
        set_thread(m, 1, T::DISABLE_IMPLIED_SRCB_FMT_Base, 1);
    }
}

/// `MOVB2A.md` (1ae1f85): four aligned rows, or one, from the matrix unit's
/// `SrcB` bank into its `SrcA` bank, whoever owns that `SrcA` bank.
#[test]
fn movb2a_copies_srcb_rows_into_the_matrix_units_srca_bank() {
    for arch in Arch::ALL {
        let mut m = loaded(arch, 1, 1);
        srcb_format(&mut m, arch, TF32);
        // SrcA: the matrix unit on bank 1, which the unpackers hold.
        m.srca.matrix_bank = 1;
        let want: Vec<[u32; 16]> = (0..64)
            .map(|r| std::array::from_fn(|c| m.srcb.read(1, r, c)))
            .collect();
        // Four rows from 8 (aligned from 9) to 36 (from 38); one row from 5
        // to 63.
        run(
            &mut m,
            1,
            &["MOVB2A instr_mod=2 srcb=9 srca=38", "MOVB2A srcb=5 srca=63"],
        )
        .unwrap();
        for k in 0..4 {
            assert_eq!(srca(&m, 1, 36 + k), want[8 + k], "{arch} row {k}");
        }
        assert_eq!(srca(&m, 1, 63), want[5], "{arch}");
        assert_eq!(srca(&m, 1, 40), [0; 16], "{arch}");
        assert_eq!(srca(&m, 1, 62), [0; 16], "{arch}");
        assert_eq!(srca(&m, 0, 36), [0; 16], "{arch}: the other bank");
        // Flushing: column 0 has exponent 0 and becomes zero, sign too.
        set(&mut m, C::ALU_ACC_CTRL_Zero_Flag_disabled_src, 0);
        run(&mut m, 1, &["MOVB2A srcb=3 srca=0"]).unwrap();
        assert_ne!(want[3][0], 0);
        let row = srca(&m, 1, 0);
        assert_eq!(row[0], 0, "{arch}");
        assert_eq!(row[1..], want[3][1..], "{arch}");
    }
}

#[test]
fn movb2a_waits_for_srcb_and_narrows_only_to_tf32() {
    for arch in Arch::ALL {
        let mut m = loaded(arch, 1, 0);
        srcb_format(&mut m, arch, TF32);
        m.srcb.banks[0].allowed_client = SrcClient::Unpackers;
        let e = run(&mut m, 1, &["MOVB2A srcb=0 srca=0"]).unwrap_err();
        assert_eq!(e.kind, FaultKind::Deadlock, "{arch}");
        assert_eq!(srca(&m, 0, 0), [0; 16]);
        // TruncateSrc for BF16 is defined nowhere.
        let mut m = loaded(arch, 1, 0);
        srcb_format(&mut m, arch, BF16);
        let e = run(&mut m, 1, &["MOVB2A srcb=0 srca=0"]).unwrap_err();
        assert_eq!(e.kind, FaultKind::Unimplemented, "{arch}");
    }
    // Blackhole takes the bank's implied format unless told not to.
    let mut m = loaded(Arch::Blackhole, 1, 0);
    set(&mut m, C::ALU_FORMAT_SPEC_REG1_SrcB, TF32);
    m.unpackers.units[1].implied_format = [BF16 as u8, TF32 as u8];
    let e = run(&mut m, 1, &["MOVB2A srcb=0 srca=0"]).unwrap_err();
    assert_eq!(e.kind, FaultKind::Unimplemented);
    m.unpackers.units[1].implied_format = [TF32 as u8, BF16 as u8];
    run(&mut m, 1, &["MOVB2A srcb=0 srca=0"]).unwrap();
    assert_eq!(
        srca(&m, 0, 0),
        std::array::from_fn(|c| m.srcb.read(0, 0, c))
    );
}
