//! Whole PACR instructions on a machine, for the packer features the ttsim
//! conformance vectors do not reach (ttsim refuses them) and for the rules
//! that tie the stages together. Each test names the documented rule; the
//! expected bytes are worked out by hand from it.

mod pack_util;

use pack_util::*;
use tensix_emu::adc::{Dim, Unit};
use tensix_emu::isa::Pacr;
use tensix_emu::regs::{CfgField as C, ThreadCfgField as T};
use tensix_emu::state::dst::DstView;
use tensix_emu::{Arch, FaultKind, Machine};

const BH: Arch = Arch::Blackhole;
const WH: Arch = Arch::WormholeB0;

/// `L1_Dest_addr` used throughout: the first byte written is
/// `(0x100 + 1) * 16` (the `+ 1` skips the tile header).
const DEST: u32 = 0x100;
const OUT: u32 = 0x1010;

/// Blackhole, BF16 `Dst` to BF16, one row of 16 datums per read interface.
fn bh_bf16() -> Machine {
    let mut m = machine(BH);
    m.l1.bytes_mut().fill(0xEE);
    formats(&mut m, 5, 5, 5);
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 32);
    set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, DEST);
    dst_bf16(&mut m, 0, ONE_TO_16);
    m
}

fn bh_pacr(p: Pacr) -> u32 {
    pacr_word(BH, p)
}

/// One row (read interface 0), `Last`.
fn bh_row_last() -> u32 {
    bh_pacr(Pacr {
        read_intf_sel: 1,
        last: 1,
        ..Pacr::default()
    })
}

fn bf16(x: f32) -> u16 {
    (x.to_bits() >> 16) as u16
}

/// OutputAddressGenerator.md: the data stream starts at
/// `(L1_Dest_addr + !Sub_l1_tile_header_size) << 4` (with `& 0x1ffff`, so
/// bit 31 plays no part on Blackhole); a BF16 row is its 32 bytes.
#[test]
fn one_row_lands_after_the_header() {
    for dest in [DEST, 0x8000_0000 | DEST] {
        let mut m = bh_bf16();
        set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, dest);
        run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
        assert_eq!(l1(&m, OUT - 16, 16), vec![0xEE; 16], "header left alone");
        assert_eq!(l1(&m, OUT, 32), le16(&ONE_TO_16));
        assert_eq!(l1(&m, OUT + 32, 16), vec![0xEE; 16]);
    }
    // With Sub_l1_tile_header_size there is no skip.
    let mut m = bh_bf16();
    set(&mut m, C::THCON_SEC0_REG1_Sub_l1_tile_header_size, 1);
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    assert_eq!(l1(&m, OUT - 16, 32), le16(&ONE_TO_16));
}

/// FP8 from FP16 `Dst`: truncation to the top byte, 8 datums per PACR.
fn bh_fp8() -> Machine {
    let mut m = machine(BH);
    m.l1.bytes_mut().fill(0xEE);
    formats(&mut m, 10, 10, 10);
    set(&mut m, C::PCK_DEST_RD_CTRL_Read_int8, 1);
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 16);
    set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, DEST);
    dst_fp16(&mut m, 0, FP16_ROW);
    m
}

const FP16_ROW: [u16; 16] = [
    0x3C00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600, 0x4700, 0x4800, 0xBC00, 0xC000, 0xC200, 0xC400,
    0xC500, 0xC600, 0xC700, 0xC800,
];

fn fp8_row() -> Vec<u8> {
    FP16_ROW.iter().map(|v| (v >> 8) as u8).collect()
}

/// "Output alignment": datums collect in a 16-byte buffer that persists
/// between PACRs; L1 sees nothing until it is full.
#[test]
fn output_buffers_persist_across_instructions() {
    let mut m = bh_fp8();
    let half = bh_pacr(Pacr {
        read_intf_sel: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(BH, 0, 7), half]).unwrap();
    assert_eq!(l1(&m, OUT, 16), vec![0xEE; 16], "8 bytes still buffered");
    let rest = bh_pacr(Pacr {
        read_intf_sel: 1,
        last: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(BH, 8, 15), rest]).unwrap();
    assert_eq!(l1(&m, OUT, 16), fp8_row());
}

/// OutputAddressGenerator.md: `Out_data_format & 2` (FP8 included) takes the
/// exponent-stream path and reserves `Exp_section_size` 16-byte units.
#[test]
fn fp8_output_reserves_the_exponent_section() {
    let mut m = bh_fp8();
    set(&mut m, C::THCON_SEC0_REG1_Exp_section_size, 2);
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    assert_eq!(l1(&m, OUT, 32), vec![0xEE; 32]);
    assert_eq!(l1(&m, OUT + 32, 16), fp8_row());
}

/// PACR.md, `Flush`: no datums; the buffers are padded with zeros and
/// written, and the next PACR starts at a fresh address.
#[test]
fn flush_pads_and_restarts_the_address() {
    let mut m = bh_bf16();
    let four = bh_pacr(Pacr {
        read_intf_sel: 1,
        ..Pacr::default()
    });
    let flush = bh_pacr(Pacr {
        read_intf_sel: 1,
        flush: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(BH, 0, 3), four, flush]).unwrap();
    let mut want = le16(&ONE_TO_16[..4]);
    want.extend([0; 8]);
    assert_eq!(l1(&m, OUT, 16), want);
    let last = bh_pacr(Pacr {
        read_intf_sel: 1,
        last: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(BH, 4, 7), last]).unwrap();
    let mut want = le16(&ONE_TO_16[4..8]);
    want.extend([0; 8]);
    assert_eq!(l1(&m, OUT, 16), want, "written again from the start");
}

/// InputAddressGenerator.md: with `ZeroWrite` datums come from `/dev/null`.
#[test]
fn zero_write_packs_zeros() {
    let mut m = bh_bf16();
    let zw = bh_pacr(Pacr {
        read_intf_sel: 1,
        zero_write: 1,
        last: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(BH, 0, 15), zw]).unwrap();
    assert_eq!(l1(&m, OUT, 32), vec![0; 32]);
}

/// Wormhole B0, BF16, all packers reading row `4 * packer`.
fn wh_bf16() -> Machine {
    let mut m = machine(WH);
    m.l1.bytes_mut().fill(0xEE);
    set(&mut m, C::ALU_FORMAT_SPEC_REG2_Dstacc, 5);
    for f in [
        C::THCON_SEC0_REG1_In_data_format,
        C::THCON_SEC0_REG8_In_data_format,
        C::THCON_SEC1_REG1_In_data_format,
        C::THCON_SEC1_REG8_In_data_format,
        C::THCON_SEC0_REG1_Out_data_format,
        C::THCON_SEC0_REG8_Out_data_format,
        C::THCON_SEC1_REG1_Out_data_format,
        C::THCON_SEC1_REG8_Out_data_format,
    ] {
        set(&mut m, f, 5);
    }
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 32);
    set(&mut m, C::DEST_TARGET_REG_CFG_PACK_SEC1_Offset, 4);
    set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, DEST);
    dst_bf16(&mut m, 0, ONE_TO_16);
    let mut rev = ONE_TO_16;
    rev.reverse();
    dst_bf16(&mut m, 4, rev);
    m
}

fn wh_pacr(p: Pacr) -> u32 {
    pacr_word(WH, p)
}

/// PACR.md: `PackerMask` 0 means packer 0; OutputAddressGenerator.md: when
/// packer 0's initial address has bit 31 set, packers 1..=3 add it to their
/// own.
#[test]
fn wormhole_packer_mask_and_relative_addresses() {
    let mut m = wh_bf16();
    set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, 0x8000_0000 | DEST);
    set(&mut m, C::THCON_SEC0_REG8_L1_Dest_addr, 0x20);
    let two = wh_pacr(Pacr {
        pack_sel: 0b0011,
        last: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(WH, 0, 15), two]).unwrap();
    assert_eq!(l1(&m, OUT, 32), le16(&ONE_TO_16));
    let mut rev = ONE_TO_16;
    rev.reverse();
    // Packer 1: (0x20 + 1) + 0x80000101, & 0x1ffff, << 4.
    assert_eq!(l1(&m, 0x1220, 32), le16(&rev));

    let mut m = wh_bf16();
    let zero = wh_pacr(Pacr {
        pack_sel: 0,
        last: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(WH, 0, 15), zero]).unwrap();
    assert_eq!(l1(&m, OUT, 32), le16(&ONE_TO_16));
    assert_eq!(l1(&m, 0x1220, 16), vec![0xEE; 16], "packer 1 idle");
}

/// PACR.md: masks other than the listed ones are undefined.
#[test]
fn wormhole_odd_packer_masks_are_undefined() {
    for mask in [0b0101, 0b0110, 0b0111, 0b1110] {
        let mut m = wh_bf16();
        let p = wh_pacr(Pacr {
            pack_sel: mask,
            last: 1,
            ..Pacr::default()
        });
        let e = run(&mut m, &[p]).unwrap_err();
        assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{mask:#06b}");
    }
}

/// OutputAddressGenerator.md: `YZW_Addr` is in 16-byte units with its low
/// four bits cleared on Wormhole, in bytes shifted right by four on
/// Blackhole.
#[test]
fn yzw_address_rules() {
    let mut m = bh_bf16();
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_1_Ystride, 0x1F0);
    adc(&mut m, PACK, 1, Dim::Y, 1);
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    assert_eq!(l1(&m, (DEST + 1 + 0x1F) << 4, 32), le16(&ONE_TO_16));

    let mut m = wh_bf16();
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_1_Ystride, 0x1F);
    adc(&mut m, PACK, 1, Dim::Y, 1);
    let p = wh_pacr(Pacr {
        pack_sel: 1,
        last: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(WH, 0, 15), p]).unwrap();
    assert_eq!(l1(&m, (DEST + 1 + 0x10) << 4, 32), le16(&ONE_TO_16));
}

/// OutputAddressGenerator.md: an address beyond `Pack_limit_address * 2 + 1`
/// wraps back by `Pack_fifo_size * 2`.
#[test]
fn output_fifo_wraps() {
    for (dest, first) in [(DEST, OUT), (DEST + 1, (DEST + 2 - 0x80) << 4)] {
        let mut m = bh_bf16();
        set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, dest);
        set(&mut m, C::THCON_SEC0_REG9_Pack_0_2_limit_address, 0x80);
        set(&mut m, C::THCON_SEC0_REG9_Pack_0_2_fifo_size, 0x40);
        run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
        assert_eq!(l1(&m, first, 32), le16(&ONE_TO_16), "dest {dest:#x}");
    }
}

/// OutputAddressGenerator.md: `Add_l1_dest_addr_offset` adds the
/// TDMA-RISC-set `l1_dest_addr_offset`.
#[test]
fn l1_dest_addr_offset_is_added() {
    let mut m = bh_bf16();
    set(&mut m, C::THCON_SEC0_REG1_Add_l1_dest_addr_offset, 1);
    m.packer.l1_dest_addr_offset[0] = 3;
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    assert_eq!(l1(&m, OUT + 48, 32), le16(&ONE_TO_16));
}

/// InputAddressGenerator.md: with `OvrdThreadId` the ADC set is the
/// packer's `Addr_cnt_context` (3 meaning 0), for the address, the datum
/// count and the `AddrMod` update.
#[test]
fn ovrd_thread_id_selects_the_adc_set() {
    let mut m = wh_bf16();
    dst_bf16(&mut m, 2, [0x4300; 16]);
    set(&mut m, C::THCON_SEC0_REG1_Addr_cnt_context, 1);
    set_t(&mut m, T::ADDR_MOD_PACK_SEC0_YsrcIncr, 1);
    adc(&mut m, 1, 0, Dim::Y, 2);
    adc(&mut m, 1, 1, Dim::X, 15);
    let p = wh_pacr(Pacr {
        pack_sel: 1,
        ovrd_thread_id: 1,
        last: 1,
        ..Pacr::default()
    });
    run(&mut m, &[p]).unwrap();
    assert_eq!(l1(&m, OUT, 32), le16(&[0x4300; 16]));
    assert_eq!(m.adcs.values(1, Unit::Packers).unwrap()[0][1], 3);
    assert_eq!(m.adcs.values(PACK, Unit::Packers).unwrap()[0][1], 0);

    // Blackhole documents no such override.
    let mut m = bh_bf16();
    let p = bh_pacr(Pacr {
        read_intf_sel: 1,
        ovrd_thread_id: 1,
        ..Pacr::default()
    });
    assert_eq!(
        run(&mut m, &[p]).unwrap_err().kind,
        FaultKind::Unimplemented
    );
}

/// Input- and OutputAddressGenerator.md, after the addresses: channel 0 Y
/// by `YsrcIncr` (or carriage return, or clear), Z by `ZsrcIncr` (or
/// clear); channel 1 likewise by the `dst` fields.
#[test]
fn addr_mod_updates_the_adcs() {
    let mut m = bh_bf16();
    set_t(&mut m, T::ADDR_MOD_PACK_SEC1_YsrcIncr, 3);
    set_t(&mut m, T::ADDR_MOD_PACK_SEC1_YdstCR, 1);
    set_t(&mut m, T::ADDR_MOD_PACK_SEC1_YdstIncr, 2);
    set_t(&mut m, T::ADDR_MOD_PACK_SEC1_ZsrcClear, 1);
    set_t(&mut m, T::ADDR_MOD_PACK_SEC1_ZdstIncr, 1);
    adc(&mut m, PACK, 0, Dim::Y, 1);
    adc(&mut m, PACK, 0, Dim::Z, 5);
    adc(&mut m, PACK, 1, Dim::Y, 4);
    adc(&mut m, PACK, 1, Dim::Z, 2);
    dst_bf16(&mut m, 1, ONE_TO_16);
    let p = bh_pacr(Pacr {
        read_intf_sel: 1,
        addr_mode: 1,
        last: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(BH, 0, 15), p]).unwrap();
    let v = m.adcs.values(PACK, Unit::Packers).unwrap();
    let cr = m.adcs.cr_values(PACK, Unit::Packers).unwrap();
    assert_eq!((v[0][1], cr[0][1]), (4, 1), "Y += 3, Y_Cr kept");
    assert_eq!((v[0][2], cr[0][2]), (0, 0), "Z cleared");
    assert_eq!((v[1][1], cr[1][1]), (6, 6), "Y_Cr += 2, Y = Y_Cr");
    assert_eq!(v[1][2], 3, "Z += 1");
}

/// EdgeMasking.md: a datum whose column bit is clear in the selected mask
/// becomes −∞ with `PCK_EDGE_MODE_mode`.
#[test]
fn edge_mask_negative_infinity() {
    let mut m = bh_bf16();
    set(&mut m, C::PCK_EDGE_OFFSET_SEC0_mask, 0x00FF);
    set(&mut m, C::PCK_EDGE_MODE_mode, 1);
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    let mut want = ONE_TO_16;
    want[8..].fill(0xFF80);
    assert_eq!(l1(&m, OUT, 32), le16(&want));

    // The −∞ then goes through ReLU (EdgeMasking.md feeds ReLU.md), which
    // makes it 0.
    let mut m = bh_bf16();
    set(&mut m, C::PCK_EDGE_OFFSET_SEC0_mask, 0x00FF);
    set(&mut m, C::PCK_EDGE_MODE_mode, 1);
    set(&mut m, C::STACC_RELU_ApplyRelu, 1);
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    want[8..].fill(0);
    assert_eq!(l1(&m, OUT, 32), le16(&want));
}

/// EdgeMasking.md: with the face-set select enabled, `b` comes from
/// `TILE_FACE_SET_MAPPING[a][Z]`.
#[test]
fn edge_mask_face_sets() {
    let mut m = bh_bf16();
    set(&mut m, C::PCK_EDGE_TILE_FACE_SET_SELECT_enable, 1);
    set(&mut m, C::PCK_EDGE_TILE_FACE_SET_SELECT_select, 1);
    set(&mut m, C::TILE_FACE_SET_MAPPING_1_face_set_mapping_0, 2);
    set(&mut m, C::TILE_ROW_SET_MAPPING_2_row_set_mapping_0, 3);
    set(&mut m, C::PCK_EDGE_OFFSET_SEC3_mask, 0x0001);
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    let mut want = [0u16; 16];
    want[0] = ONE_TO_16[0];
    assert_eq!(l1(&m, OUT, 32), le16(&want));
}

/// EdgeMasking.md: on Wormhole the tile position advances per datum, so the
/// second row of a 32-datum PACR uses row set entry 1.
#[test]
fn edge_mask_rows_follow_the_tile_position() {
    let mut m = wh_bf16();
    dst_bf16(&mut m, 1, ONE_TO_16);
    set(&mut m, C::TILE_ROW_SET_MAPPING_0_row_set_mapping_1, 1);
    set(&mut m, C::PCK_EDGE_OFFSET_SEC1_mask, 0);
    let p = wh_pacr(Pacr {
        pack_sel: 1,
        last: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(WH, 0, 31), p]).unwrap();
    assert_eq!(l1(&m, OUT, 32), le16(&ONE_TO_16));
    assert_eq!(l1(&m, OUT + 32, 32), vec![0; 32]);
}

/// ExponentThresholding.md: below `Exp_threshold` a datum becomes 0.
#[test]
fn exponent_thresholding_end_to_end() {
    let mut m = bh_bf16();
    let row = [
        0x3F80, 0x3F00, 0x4000, 0x3E80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x4300,
    ];
    dst_bf16(&mut m, 0, row);
    set(&mut m, C::THCON_SEC0_REG1_Exp_threshold_en, 1);
    set(&mut m, C::THCON_SEC0_REG1_Exp_threshold, 127);
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    let mut want = row;
    want[1] = 0;
    want[3] = 0;
    assert_eq!(l1(&m, OUT, 32), le16(&want));

    // In_data_format = BFP2a is a hardware bug: undefined.
    let mut m = bh_bf16();
    set(&mut m, C::THCON_SEC0_REG1_Exp_threshold_en, 1);
    set(&mut m, C::THCON_SEC0_REG1_In_data_format, 11);
    let e = run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior);
    assert!(e.rule.contains("ExponentThresholding"), "{}", e.rule);
}

/// Downsampling: datum `j` is kept when bit `j % 16` of `Downsample_mask`
/// is set.
#[test]
fn downsampling_end_to_end() {
    let mut m = wh_bf16();
    set(&mut m, C::THCON_SEC0_REG1_Downsample_mask, 0x5555);
    let p = wh_pacr(Pacr {
        pack_sel: 1,
        last: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(WH, 0, 15), p]).unwrap();
    let kept: Vec<u16> = ONE_TO_16.iter().step_by(2).copied().collect();
    assert_eq!(l1(&m, OUT, 16), le16(&kept));
    assert_eq!(l1(&m, OUT + 16, 16), vec![0xEE; 16]);
}

/// Compression.md: RSI stream (`RSI[0] = 0`, then the running count of
/// augmented datums after each row), `Row_start_section_size` units
/// reserved before the data; the data holds the augmented datums of a group
/// of 32, padded, then their 4-bit zero counters.
#[test]
fn zero_compression_end_to_end() {
    let mut m = bh_bf16();
    set(&mut m, C::THCON_SEC0_REG1_Disable_zero_compress, 0);
    set(&mut m, C::THCON_SEC0_REG1_Row_start_section_size, 1);
    let mut row = [0u16; 16];
    row[0] = 0x3F80;
    row[3] = 0x4000;
    row[15] = 0x4040;
    dst_bf16(&mut m, 0, row);
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    let mut rsi = le16(&[0, 3]);
    rsi.extend([0; 12]);
    assert_eq!(l1(&m, OUT, 16), rsi);
    let mut data = le16(&[0x3F80, 0x4000, 0x4040]);
    data.extend([0; 58]);
    assert_eq!(l1(&m, OUT + 16, 64), data);
    let mut counters = vec![0xB2];
    counters.extend([0; 15]);
    assert_eq!(l1(&m, OUT + 80, 16), counters);
}

/// PACR.md, `Concat`: the next PACR continues the compression row.
#[test]
fn zero_compression_rows_and_concat() {
    let mut row = [0u16; 16];
    row[0] = 0x3F80;
    for concat in [true, false] {
        let mut m = bh_bf16();
        set(&mut m, C::THCON_SEC0_REG1_Disable_zero_compress, 0);
        set(&mut m, C::THCON_SEC0_REG1_Row_start_section_size, 1);
        dst_bf16(&mut m, 0, row);
        let first = bh_pacr(Pacr {
            read_intf_sel: 1,
            concat: concat as u32,
            ..Pacr::default()
        });
        run(&mut m, &[setadcxx(BH, 0, 15), first, bh_row_last()]).unwrap();
        let (rsi, data, counters): (&[u16], &[u16], [u8; 2]) = if concat {
            // One row of 32: 1.0 (15 zeros), 1.0 (14 zeros), last 0.
            (&[0, 3], &[0x3F80, 0x3F80, 0], [0xEF, 0x00])
        } else {
            // Two rows of 16: 1.0 (14 zeros), last 0, twice.
            (&[0, 2, 4], &[0x3F80, 0, 0x3F80, 0], [0x0E, 0x0E])
        };
        assert_eq!(l1(&m, OUT, rsi.len() * 2), le16(rsi), "concat {concat}");
        assert_eq!(l1(&m, OUT + 16, data.len() * 2), le16(data));
        assert_eq!(l1(&m, OUT + 80, 2), counters);
    }
}

/// FormatConversion.md: to BFP8a, converted to E5M7 and rounded to BFP8a
/// with one shared 5-bit exponent per 16 datums, zero-extended to a byte in
/// the exponent stream.
#[test]
fn bfp8a_output() {
    let mut m = machine(BH);
    formats(&mut m, 2, 2, 2);
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 16);
    set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, DEST);
    set(&mut m, C::THCON_SEC0_REG1_Exp_section_size, 1);
    let mut row = [0u16; 16];
    row[0] = 0x3C00; // 1.0
    row[1] = 0x3800; // 0.5
    row[2] = 0xB400; // -0.25
    dst_fp16(&mut m, 0, row);
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    let mut exp = vec![15];
    exp.extend([0; 15]);
    assert_eq!(l1(&m, OUT, 16), exp);
    // Shared exponent 15: 1.0 = 64/2^6, 0.5 = 32/2^6, -0.25 = -16/2^6.
    let mut data = vec![0x40, 0x20, 0x90];
    data.extend([0; 13]);
    assert_eq!(l1(&m, OUT + 16, 16), data);
}

/// A BFP group still short of 16 datums at `Last` has no documented
/// completion; the shared-exponent assembler cannot be disabled either.
#[test]
fn bfp_cases_without_a_definition_are_refused() {
    let mut m = machine(BH);
    formats(&mut m, 6, 6, 6);
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 16);
    let e = run(&mut m, &[setadcxx(BH, 0, 7), bh_row_last()]).unwrap_err();
    assert_eq!(e.kind, FaultKind::Unsupported);
    assert!(e.rule.contains("partial group"), "{}", e.rule);

    let mut m = machine(BH);
    formats(&mut m, 6, 6, 6);
    set(&mut m, C::THCON_SEC0_REG1_Dis_shared_exp_assembler, 1);
    let e = run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap_err();
    assert_eq!(e.kind, FaultKind::Unsupported);
}

/// InputAddressGenerator.md, `INPUT_SOURCE_L1`: packer 0 reads
/// `(L1_source_addr << 18) + (Addr & 0x3ffff)`, 16-byte aligned plus the X
/// offset; FormatConversion.md: 16-bit L1 data to BF16 is the identity.
#[test]
fn packer_0_reads_l1() {
    let mut m = wh_bf16();
    set(&mut m, C::THCON_SEC0_REG1_Source_interface_selection, 1);
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 0x800);
    adc(&mut m, PACK, 0, Dim::Y, 1);
    let src: [u16; 16] = std::array::from_fn(|k| 0x4200 + k as u16);
    m.write_l1(0x800, &le16(&src)).unwrap();
    let p = wh_pacr(Pacr {
        pack_sel: 1,
        last: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(WH, 0, 15), p]).unwrap();
    assert_eq!(l1(&m, OUT, 32), le16(&src));
}

/// BlackholeA0 PACR.md: enabled read interfaces leaving their aligned group
/// of four rows are undefined (enforced unless ttsim v1.10.0's unchecked
/// `StartRow + i` reading is asked for).
#[test]
fn read_interface_group_rule() {
    let mut m = bh_bf16();
    for r in 2..6 {
        dst_bf16(&mut m, r, [0x4000 + r as u16; 16]);
    }
    set(&mut m, C::DEST_TARGET_REG_CFG_PACK_SEC0_Offset, 2);
    let all = bh_pacr(Pacr {
        last: 1,
        ..Pacr::default()
    });
    let mut strict = m.clone();
    let e = run(&mut strict, &[setadcxx(BH, 0, 15), all]).unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior);
    m.packer.allow_read_interface_group_crossing = true;
    run(&mut m, &[setadcxx(BH, 0, 15), all]).unwrap();
    for r in 0..4u32 {
        assert_eq!(
            l1(&m, OUT + 32 * r, 32),
            le16(&[0x4002 + r as u16; 16]),
            "interface {r} reads row {}",
            2 + r
        );
    }
}

/// BlackholeA0 PACR.md, `DstAccessMode`: read interfaces read rows 16 apart.
#[test]
fn strided_dst_access() {
    let mut m = bh_bf16();
    set(&mut m, C::DEST_ACCESS_CFG_remap_addrs, 1);
    set(&mut m, C::DEST_ACCESS_CFG_swizzle_32b, 1);
    dst_bf16(&mut m, 0, [0x3F80; 16]);
    dst_bf16(&mut m, 1, [0x4000; 16]);
    dst_bf16(&mut m, 16, [0x4040; 16]);
    let p = bh_pacr(Pacr {
        read_intf_sel: 0b0011,
        dst_access_mode: 1,
        last: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(BH, 0, 15), p]).unwrap();
    assert_eq!(l1(&m, OUT, 32), le16(&[0x3F80; 16]));
    assert_eq!(l1(&m, OUT + 32, 32), le16(&[0x4040; 16]));
}

/// FormatConversion.md: INT32 to INT8 shifts the magnitude right by
/// `ShiftAmount` (`INT_DESCALE_VALUES_SEC0_Value` when `INT_DESCALE_Enable`),
/// rounds with the shifted-out bits (ties away) and saturates at 127.
#[test]
fn int32_to_int8_descale() {
    let mut m = machine(BH);
    formats(&mut m, 14, 14, 14);
    set(&mut m, C::PCK_DEST_RD_CTRL_Read_32b_data, 1);
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 16);
    set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, DEST);
    set(&mut m, C::INT_DESCALE_Enable, 1);
    set(&mut m, C::INT_DESCALE_VALUES_SEC0_Value, 4);
    let mut row = [0u32; 16];
    row[..6].copy_from_slice(&[256, 0x8000_0108, 40_000, 0x8000_0008, 7, 24]);
    m.write_dst_row(DstView::Int32, 0, &row).unwrap();
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    let mut want = vec![16, 0x91, 0x7F, 0x81, 0, 2];
    want.extend([0; 10]);
    assert_eq!(l1(&m, OUT, 16), want);

    set(&mut m, C::INT_DESCALE_Mode, 1);
    let e = run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap_err();
    assert_eq!(e.kind, FaultKind::Unimplemented);
}

/// `Pack_L1_Acc`: `L1 += Datum` in the output format.
#[test]
fn l1_accumulation_end_to_end() {
    let mut m = bh_bf16();
    set(&mut m, C::THCON_SEC0_REG1_Pack_L1_Acc, 1);
    m.write_l1(OUT, &le16(&[0x3F80; 16])).unwrap();
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    let want: Vec<u16> = (1..=16).map(|k| bf16(k as f32 + 1.0)).collect();
    assert_eq!(l1(&m, OUT, 32), le16(&want));
}

/// The exponent histogram counts each datum fetched from `Dst` at bin
/// `Exponent & 31` while `ENABLE_ACC_STATS_Enable` is set; `CLREXPHIST`
/// resets it (CLREXPHIST.md).
#[test]
fn exponent_histogram_end_to_end() {
    let mut m = bh_bf16();
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    let h = &m.packer.unit(0).unwrap().histogram;
    assert_eq!(h.bins(), [0; 32], "disabled");

    set_t(&mut m, T::ENABLE_ACC_STATS_Enable, 1);
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    let h = &m.packer.unit(0).unwrap().histogram;
    let b = h.bins();
    // 1 (exp 127), 2-3 (128), 4-7 (129), 8-15 (130), 16 (131).
    assert_eq!((b[31], b[0], b[1], b[2], b[3]), (1, 2, 4, 8, 1));
    assert_eq!(h.max_exponent(), 131);
    let clr = tensix_emu::isa::encode(
        BH,
        &tensix_emu::isa::Instruction::Clrexphist(Default::default()),
    )
    .unwrap();
    run(&mut m, &[clr]).unwrap();
    assert_eq!(m.packer.unit(0).unwrap().histogram.bins(), [0; 32]);
}

/// A `SETDMAREG` special-form word (SETDMAREG_Special.md, "Syntax"):
/// `ResultSize`, then `WhichPackers << 7 | InputSource << 3 | InputHalfReg`,
/// `SetSignalsMode` 1 and `ResultHalfReg`.
fn setdmareg_special(size: u32, which: u32, source: u32, in_half: u32, out_half: u32) -> u32 {
    tensix_emu::isa::encode(
        BH,
        &tensix_emu::isa::Instruction::Setdmareg(tensix_emu::isa::Setdmareg {
            reg_index_16b: out_half,
            set_signals_mode: 1,
            payload_sig_sel: (which << 7) | (source << 3) | in_half,
            payload_sig_sel_size: size,
        }),
    )
    .unwrap()
}

/// SETDMAREG_Special.md: sources 6 and 7 are bytes 0..16 and 16..32 of the
/// histogram, source 9 packer 0's maximum exponent; `ResultSize` 0 moves one
/// 16-bit half, 1 one 32-bit value, 2 all four words to GPRs
/// `(ResultHalfReg >> 1) & 0x3c` onwards, and 3 the same but only the tile
/// header's fields (word 0 bits 0..16, word 1 bits 16..24, word 2), keeping
/// the reserved bits.
#[test]
fn exponent_histogram_readout_through_setdmareg() {
    let mut m = bh_bf16();
    set_t(&mut m, T::ENABLE_ACC_STATS_Enable, 1);
    for k in 12..16 {
        m.gprs.set(PACK, k, 0xAAAA_AAAA);
    }
    run(
        &mut m,
        &[
            setadcxx(BH, 0, 15),
            bh_row_last(),
            // Bins 0..16 into GPRs 8..12.
            setdmareg_special(2, 0, 6, 0, 16),
            // Bins 28..32 (half 6 = word 3) into GPR 20.
            setdmareg_special(1, 0, 7, 6, 40),
            // The maximum exponent's low half into GPR 21's high half.
            setdmareg_special(0, 0, 9, 0, 43),
            // Bins 16..32 as a tile header over GPRs 12..16.
            setdmareg_special(3, 0, 7, 0, 24),
        ],
    )
    .unwrap();
    // Datums 1..16: exponent 127 once (bin 31), 128 twice (bin 0), 129 four
    // times (bin 1), 130 eight times (bin 2), 131 once (bin 3).
    let g = |k| m.gprs.get(PACK, k).unwrap();
    assert_eq!([g(8), g(9), g(10), g(11)], [0x0108_0402, 0, 0, 0]);
    assert_eq!(g(20), 0x0100_0000);
    assert_eq!(g(21), 131 << 16);
    // Bins 16..32: words 0 and 1 are zero in their header fields, word 2
    // is zero, word 3 (bin 31 in its top byte) is reserved and not copied.
    assert_eq!(
        [g(12), g(13), g(14), g(15)],
        [0xAAAA_0000, 0xAA00_AAAA, 0, 0xAAAA_AAAA]
    );

    // Tile sizes and all-zero flags are not modelled; Blackhole has no
    // packer 1 whose histogram could be read.
    let e = run(&mut m, &[setdmareg_special(1, 0, 0, 0, 0)]).unwrap_err();
    assert_eq!(e.kind, FaultKind::Unimplemented);
    let e = run(&mut m, &[setdmareg_special(2, 1, 6, 0, 0)]).unwrap_err();
    assert_eq!(e.kind, FaultKind::Unsupported);
    // Source 10 is no case of the page's switch: the value stays zero.
    run(&mut m, &[setdmareg_special(1, 0, 10, 0, 40)]).unwrap();
    assert_eq!(m.gprs.get(PACK, 20), Some(0));
}

/// Configurations no source defines stop the run with a typed fault.
#[test]
fn undefined_and_unmodelled_configurations() {
    type Setup = fn(&mut Machine);
    let cases: [(Setup, FaultKind); 5] = [
        (
            |m| set(m, C::ALU_ROUNDING_MODE_Packer_srnd_en, 1),
            FaultKind::Unsupported,
        ),
        (
            |m| set(m, C::THCON_SEC0_REG1_Add_tile_header_size, 1),
            FaultKind::Unsupported,
        ),
        (
            |m| set(m, C::THCON_SEC0_REG1_In_data_format, 0),
            FaultKind::UndefinedBehavior,
        ),
        (
            |m| set(m, C::THCON_SEC0_REG1_Downsample_rate, 2),
            FaultKind::Unimplemented,
        ),
        (
            |m| {
                set(m, C::STACC_RELU_ApplyRelu, 2);
                set(m, C::STACC_RELU_ReluThreshold, 0xBF80);
            },
            FaultKind::UndefinedBehavior,
        ),
    ];
    for (setup, kind) in cases {
        let mut m = bh_bf16();
        setup(&mut m);
        let e = run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap_err();
        assert_eq!(e.kind, kind, "{}", e.rule);
    }
    // Blackhole PACR fields the page leaves undocumented.
    let mut m = bh_bf16();
    let p = bh_pacr(Pacr {
        read_intf_sel: 1,
        row_pad_zero: 1,
        ..Pacr::default()
    });
    assert_eq!(
        run(&mut m, &[p]).unwrap_err().kind,
        FaultKind::Unimplemented
    );
}

/// FormatConversion.md, "Configuring the conversions": `IntermediateFormat`
/// is `ALU_FORMAT_SPEC_REG_Dstacc_val` when `..._Dstacc_override` is set,
/// `ALU_FORMAT_SPEC_REG2_Dstacc` otherwise.
#[test]
fn dstacc_override_selects_the_intermediate_format() {
    let mut m = bh_bf16();
    set(&mut m, C::ALU_FORMAT_SPEC_REG2_Dstacc, 1);
    let e = run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior, "FP16 vs In = BF16");
    set(&mut m, C::ALU_FORMAT_SPEC_REG_Dstacc_override, 1);
    set(&mut m, C::ALU_FORMAT_SPEC_REG_Dstacc_val, 5);
    run(&mut m, &[setadcxx(BH, 0, 15), bh_row_last()]).unwrap();
    assert_eq!(l1(&m, OUT, 32), le16(&ONE_TO_16));
}

/// FormatConversion.md: one shared exponent per 16 datums, assembled across
/// PACRs when each packs fewer (the group and the output buffers persist).
#[test]
fn bfp_group_spans_two_instructions() {
    let mut m = machine(BH);
    m.l1.bytes_mut().fill(0xEE);
    formats(&mut m, 6, 6, 6);
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 16);
    set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, DEST);
    set(&mut m, C::THCON_SEC0_REG1_Exp_section_size, 1);
    dst_bf16(&mut m, 0, ONE_TO_16);
    let half = bh_pacr(Pacr {
        read_intf_sel: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(BH, 0, 7), half]).unwrap();
    assert_eq!(l1(&m, OUT, 32), vec![0xEE; 32], "half a group: nothing yet");
    run(&mut m, &[setadcxx(BH, 8, 15), bh_row_last()]).unwrap();
    // Shared exponent 131 (16.0); k = 4k/2^6 * 2^4.
    let mut exp = vec![131];
    exp.extend([0; 15]);
    assert_eq!(l1(&m, OUT, 16), exp);
    let data: Vec<u8> = (1..=16).map(|k| 4 * k as u8).collect();
    assert_eq!(l1(&m, OUT + 16, 16), data);
}

/// BlackholeA0 PACR.md: with `N` read interfaces a BFP PACR packs `N`
/// groups and advances the exponent write position by `N`; `Last` pads the
/// exponent stream to 16 bytes.
#[test]
fn bfp_exponents_advance_per_read_interface() {
    let mut m = machine(BH);
    formats(&mut m, 6, 6, 7);
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 16);
    set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, DEST);
    set(&mut m, C::THCON_SEC0_REG1_Exp_section_size, 1);
    for r in 0..3u32 {
        // Row r holds 2^r: exponent 127 + r, every datum 8/2^2 * 2^r.
        dst_bf16(&mut m, r, [0x3F80 + (r as u16) * 0x80; 16]);
    }
    let three = bh_pacr(Pacr {
        read_intf_sel: 0b0111,
        last: 1,
        ..Pacr::default()
    });
    run(&mut m, &[setadcxx(BH, 0, 15), three]).unwrap();
    let mut exp = vec![127, 128, 129];
    exp.extend([0; 13]);
    assert_eq!(l1(&m, OUT, 16), exp);
    // BFP4: magnitude 4 (1.0 with the hidden bit at 2^2) in both nibbles,
    // 8 bytes a group, three groups, then 8 bytes of padding.
    let mut data = vec![0x44; 24];
    data.extend([0; 8]);
    assert_eq!(l1(&m, OUT + 16, 32), data);
}
