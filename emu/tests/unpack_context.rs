//! Context selection, Config state and ADC updates of `UNPACR`
//! (tt-isa-documentation `UNPACR_Regular.md`: the start of the functional
//! model, per-context configuration, and "Update counters").

mod unpack_common;

use tensix_emu::adc::Unit;
use tensix_emu::regs::{config_words, CfgField as C, ThreadCfgField as T};
use tensix_emu::{Arch, FaultKind, Machine};
use unpack_common::*;

const BF16: u32 = 5;
const FP16: u32 = 1;

const BASES: [C; 4] = [
    C::THCON_SEC0_REG3_Base_address,
    C::THCON_SEC0_REG3_Base_cntx1_address,
    C::THCON_SEC0_REG3_Base_cntx2_address,
    C::THCON_SEC0_REG3_Base_cntx3_address,
];
const DESTS: [C; 4] = [
    C::THCON_SEC0_REG5_Dest_cntx0_address,
    C::THCON_SEC0_REG5_Dest_cntx1_address,
    C::THCON_SEC0_REG5_Dest_cntx2_address,
    C::THCON_SEC0_REG5_Dest_cntx3_address,
];
const XDIMS: [C; 4] = [
    C::THCON_SEC0_REG5_Tile_x_dim_cntx0,
    C::THCON_SEC0_REG5_Tile_x_dim_cntx1,
    C::THCON_SEC0_REG5_Tile_x_dim_cntx2,
    C::THCON_SEC0_REG5_Tile_x_dim_cntx3,
];
const UNCOMPRESSED: [C; 4] = [
    C::THCON_SEC0_REG2_Disable_zero_compress_cntx0,
    C::THCON_SEC0_REG2_Disable_zero_compress_cntx1,
    C::THCON_SEC0_REG2_Disable_zero_compress_cntx2,
    C::THCON_SEC0_REG2_Disable_zero_compress_cntx3,
];

/// Unpacker 0 in `MultiContextMode`: context k reads 16 BF16 datums at base
/// `0x100 * (k + 1)` and writes `SrcA` row k (`Dest_cntx[k]` replaces the
/// output address since `add_dest_addr_cntr` is 0).
fn multi(arch: Arch) -> Machine {
    let mut m = Machine::new(arch);
    // The descriptor is compressed and 1 datum wide: MultiContextMode must
    // take both from the context registers instead.
    descriptor(&mut m, 0, [BF16 | (1 << 16), 1, 0, 0]);
    set(&mut m, C::THCON_SEC0_REG2_Out_data_format, BF16);
    for k in 0..4u32 {
        set(&mut m, BASES[k as usize], 0x100 * (k + 1));
        set(&mut m, DESTS[k as usize], 64 + 16 * k);
        set(&mut m, XDIMS[k as usize], 16);
        set(&mut m, UNCOMPRESSED[k as usize], 1);
        let data = ramp(0x3F80 + 0x100 * k as u16, 16);
        m.write_l1((0x100 * (k + 1) + 1) * 16, &bf16_bytes(&data))
            .unwrap();
    }
    set_thread(&mut m, 0, T::SRCA_SET_SetOvrdWithAddr, 1);
    m
}

fn ctx_cell(k: u16, i: u16) -> u32 {
    bf16_cell(0x3F80 + 0x100 * k + i)
}

/// `WhichContext = ContextNumber` in `MultiContextMode`; the context selects
/// `Base_cntx`, `Tile_x_dim_cntx`, `Dest_cntx` and `Disable_zero_compress_cntx`.
#[test]
fn context_number_selects_the_context_registers() {
    for arch in Arch::ALL {
        let mut m = multi(arch);
        run(
            &mut m,
            0,
            &[&xx(0, 15), &unpacr(0, "ovrd_thread_id=1 cfg_context_id=2")],
        )
        .unwrap();
        assert_eq!(srca_row(&m, 0, 2)[7], ctx_cell(2, 7), "{arch}");
        assert_eq!(srca_row(&m, 0, 0), [0; 16], "{arch}");
    }
}

/// Context k > 0 adds `Offset_cntx[k & 3]`; `CfgContextOffset` of the
/// thread is added to the context number (modulo 8).
#[test]
fn context_offsets() {
    let mut m = multi(Arch::Blackhole);
    set(&mut m, C::THCON_SEC0_REG7_Offset_cntx1_address, 2);
    m.write_l1((0x202 + 1) * 16, &bf16_bytes(&ramp(0x4400, 16)))
        .unwrap();
    run(
        &mut m,
        0,
        &[&xx(0, 15), &unpacr(0, "ovrd_thread_id=1 cfg_context_id=1")],
    )
    .unwrap();
    assert_eq!(srca_row(&m, 0, 1)[3], bf16_cell(0x4403));

    let mut m = multi(Arch::WormholeB0);
    set_thread(&mut m, 0, T::UNPACK_MISC_CFG_CfgContextOffset_0, 2);
    run(
        &mut m,
        0,
        &[&xx(0, 15), &unpacr(0, "ovrd_thread_id=1 cfg_context_id=1")],
    )
    .unwrap();
    assert_eq!(srca_row(&m, 0, 3)[3], ctx_cell(3, 3));
}

/// `UseContextCounter` (`AutoIncContextID`): the context is the thread's
/// counter, which then steps and wraps at `1 << Context_count`.
#[test]
fn context_counter_steps_and_wraps() {
    let mut m = multi(Arch::Blackhole);
    set(&mut m, C::THCON_SEC0_REG2_Context_count, 1);
    let u = unpacr(0, "ovrd_thread_id=1 auto_inc_context_id=1");
    run(&mut m, 0, &[&xx(0, 15), &u, &u, &u]).unwrap();
    assert_eq!(srca_row(&m, 0, 0)[1], ctx_cell(0, 1));
    assert_eq!(srca_row(&m, 0, 1)[1], ctx_cell(1, 1));
    assert_eq!(srca_row(&m, 0, 2), [0; 16]);
    assert_eq!(m.unpackers.units[0].context_counter[0], 1);
    assert_eq!(m.unpackers.units[0].context_counter[1], 0);
}

/// `Ovrd_data_format` in `MultiContextMode`: the formats come from
/// `Unpack_data_format_cntx` / `Unpack_out_data_format_cntx`.
#[test]
fn per_context_formats_override_the_descriptor() {
    let mut m = multi(Arch::WormholeB0);
    set(&mut m, C::THCON_SEC0_REG2_Ovrd_data_format, 1);
    set(&mut m, C::THCON_SEC0_REG7_Unpack_data_format_cntx0, FP16);
    set(
        &mut m,
        C::THCON_SEC0_REG7_Unpack_out_data_format_cntx0,
        FP16,
    );
    m.write_l1(0x1010, &bf16_bytes(&[0xBC00])).unwrap();
    run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "ovrd_thread_id=1")]).unwrap();
    // FP16 in a Src cell: sign to bit 18, the rest unchanged (SrcASrcB.md).
    assert_eq!(srca_row(&m, 0, 0)[0], (1 << 18) | 0x3C00);
}

/// Unpacker 1 has contexts 0 and 1 only; ADC set 3 does not exist.
#[test]
fn impossible_contexts_are_undefined() {
    let mut m = Machine::new(Arch::Blackhole);
    let e = run(
        &mut m,
        0,
        &[&unpacr(1, "ovrd_thread_id=1 cfg_context_id=2")],
    )
    .unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{e}");
    let e = run(
        &mut m,
        0,
        &[&unpacr(0, "ovrd_thread_id=1 addr_cnt_context_id=3")],
    )
    .unwrap_err();
    assert_eq!(e.kind, FaultKind::UndefinedBehavior, "{e}");
}

/// `ContextADC`: X, Y and the end X come from `ADCs[WhichADC]`, Z and W and
/// the output counters from the issuing thread's; the increments go to both.
#[test]
fn context_adc_supplies_x_and_y() {
    let mut m = multi(Arch::Blackhole);
    descriptor(&mut m, 0, [BF16 | (1 << 16), 2, 0, 0]);
    m.write_l1(0x1010 + 32, &bf16_bytes(&ramp(0x4000, 16)))
        .unwrap();
    run(
        &mut m,
        1,
        &[
            &xx(0, 15),
            "SETADC cnt_set_mask=1 channel_index=0 dimension_index=1 value=1",
        ],
    )
    .unwrap();
    run(
        &mut m,
        0,
        &[&unpacr(
            0,
            "ovrd_thread_id=1 addr_cnt_context_id=1 addr_mode=4",
        )],
    )
    .unwrap();
    assert_eq!(srca_row(&m, 0, 0)[15], bf16_cell(0x400F));
    let y = |set| m.adcs.values(set, Unit::Unpacker0).unwrap()[0][1];
    assert_eq!((y(0), y(1), y(2)), (1, 2, 0));
}

/// `StateID = ThreadConfig[CurrentThread].CFG_STATE_ID_StateID` picks the
/// Config state the instruction reads.
#[test]
fn the_threads_config_state_is_used() {
    let arch = Arch::WormholeB0;
    let mut m = multi(arch);
    for a in 0..config_words(arch) {
        let w = m.config.read_addr32(0, a).unwrap();
        m.config.write_addr32(1, a, w);
        m.config.write_addr32(0, a, 0);
    }
    set_thread(&mut m, 0, T::CFG_STATE_ID_StateID, 1);
    run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "ovrd_thread_id=1")]).unwrap();
    assert_eq!(srca_row(&m, 0, 0)[9], ctx_cell(0, 9));
}

/// `AddrMode` = `Ch1YInc << 6 | Ch1ZInc << 4 | Ch0YInc << 2 | Ch0ZInc`, added
/// to the unpacker's counters after the instruction; X and W do not move.
#[test]
fn addr_mode_steps_y_and_z() {
    for arch in Arch::ALL {
        let mut m = srca_job(arch, BF16, 16, 0x100);
        let mode = (1 << 6) | (3 << 4) | (2 << 2) | 1;
        run(
            &mut m,
            0,
            &[&xx(0, 0), &unpacr(0, &format!("addr_mode={mode:#x}"))],
        )
        .unwrap();
        let v = m.adcs.values(0, Unit::Unpacker0).unwrap();
        assert_eq!(v, [[0, 2, 1, 0], [0, 1, 3, 0]], "{arch}");
        assert_eq!(m.adcs.values(0, Unit::Unpacker1).unwrap(), [[0; 4]; 2]);
    }
}
