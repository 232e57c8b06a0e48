//! The `SrcA`/`SrcB` handshake between the unpackers and the matrix unit:
//! `AllowedClient`, `FlipSrc` (`SetDatValid`), `UNPACR_NOP` ZEROSRC and
//! SETDVALID, `CLEARDVALID`, and blocking (tt-isa-documentation
//! `SrcASrcB.md`, `UNPACR_Regular.md`, `UNPACR_NOP_ZEROSRC.md`,
//! `UNPACR_NOP_SETDVALID.md`, `CLEARDVALID.md`).

mod unpack_common;

use tensix_emu::regs::CfgField as C;
use tensix_emu::state::SrcClient;
use tensix_emu::{Arch, FaultKind, Machine};
use unpack_common::*;

const BF16: u32 = 5;

/// Two faces of BF16 at tile base 0x100, each UNPACR reading the next face
/// (channel 0 Z steps by one).
fn two_faces(arch: Arch) -> (Machine, Vec<u16>) {
    let mut m = srca_job(arch, BF16, 16, 0x100);
    descriptor(&mut m, 0, [desc0(BF16, 16), 1 | (3 << 16), 0, 0]);
    let data = ramp(0x3F80, 48);
    m.write_l1((0x100 + 1) * 16, &bf16_bytes(&data)).unwrap();
    (m, data)
}

/// `FlipSrc`: the written bank goes to the matrix unit and the unpacker
/// moves to the other bank.
#[test]
fn set_dat_valid_hands_the_bank_over_and_flips() {
    for arch in Arch::ALL {
        let (mut m, data) = two_faces(arch);
        run(
            &mut m,
            0,
            &[
                &xx(0, 15),
                &unpacr(0, "set_dat_valid=1 addr_mode=1"),
                &unpacr(0, ""),
            ],
        )
        .unwrap();
        assert_eq!(m.srca.banks[0].allowed_client, SrcClient::MatrixUnit);
        assert_eq!(m.srca.banks[1].allowed_client, SrcClient::Unpackers);
        assert_eq!(m.srca.unpacker_bank, 1);
        assert_eq!(m.srca.read(0, 0, 0), bf16_cell(data[0]), "{arch}");
        assert_eq!(m.srca.read(1, 0, 0), bf16_cell(data[16]), "{arch}");
    }
}

/// "An UNPACR that must wait blocks its thread": with both banks given to
/// the matrix unit and nothing to give one back, the run deadlocks at the
/// third UNPACR, which has written nothing.
#[test]
fn an_unpacr_nothing_can_release_is_a_deadlock() {
    let (mut m, data) = two_faces(Arch::Blackhole);
    let e = run(
        &mut m,
        0,
        &[
            &xx(0, 15),
            &unpacr(0, "set_dat_valid=1 addr_mode=1"),
            &unpacr(0, "set_dat_valid=1 addr_mode=1"),
            &unpacr(0, "addr_mode=1"),
        ],
    )
    .unwrap_err();
    assert_eq!(e.kind, FaultKind::Deadlock, "{e}");
    assert_eq!((e.thread, e.instruction_index), (Some(0), Some(3)));
    assert_eq!(m.srca.read(0, 0, 0), bf16_cell(data[0]));
    assert_eq!(m.srca.read(1, 0, 0), bf16_cell(data[16]));
    // The blocked UNPACR did not step the ADCs.
    let z = m.adcs.values(0, tensix_emu::adc::Unit::Unpacker0).unwrap()[0][2];
    assert_eq!(z, 2);
}

/// The matrix unit's `CLEARDVALID` gives its bank back, and the waiting
/// UNPACR then writes it.
#[test]
fn cleardvalid_releases_a_waiting_unpacr() {
    for arch in Arch::ALL {
        let (mut m, data) = two_faces(arch);
        let delay = "SETADC cnt_set_mask=4 channel_index=0 dimension_index=0 value=0";
        let t0 = [
            xx(0, 15),
            unpacr(0, "set_dat_valid=1 addr_mode=1"),
            unpacr(0, "set_dat_valid=1 addr_mode=1"),
            unpacr(0, "addr_mode=1"),
        ];
        let t0: Vec<&str> = t0.iter().map(|s| s.as_str()).collect();
        let t1 = [
            delay,
            delay,
            delay,
            delay,
            delay,
            "CLEARDVALID cleardvalid=1",
        ];
        let stats = run_threads(&mut m, &[(0, &t0), (1, &t1)]).unwrap();
        assert_eq!(stats.instructions, 10, "{arch}: {stats:?}");
        assert_eq!(m.srca.read(0, 0, 0), bf16_cell(data[32]), "{arch}");
        assert_eq!(m.srca.read(1, 0, 0), bf16_cell(data[16]), "{arch}");
        assert_eq!(m.srca.banks[0].allowed_client, SrcClient::Unpackers);
        assert_eq!(m.srca.matrix_bank, 1);
    }
}

/// `CLEARDVALID` with `Reset` is UnsupportedFunctionality.
#[test]
fn cleardvalid_reset_is_unsupported() {
    let mut m = Machine::new(Arch::WormholeB0);
    let e = run(&mut m, 1, &["CLEARDVALID reset=1"]).unwrap_err();
    assert_eq!(e.kind, FaultKind::Unsupported, "{e}");
}

/// An UNPACR to `Dst` still waits for `SrcA`'s bank (the wait precedes the
/// `UnpackToDst` test in the functional model).
#[test]
fn unpacking_to_dst_waits_for_the_srca_bank() {
    let (mut m, _) = two_faces(Arch::WormholeB0);
    set_thread(
        &mut m,
        0,
        tensix_emu::regs::ThreadCfgField::SRCA_SET_SetOvrdWithAddr,
        0,
    );
    set(&mut m, C::THCON_SEC0_REG2_Unpack_If_Sel, 1);
    m.srca.banks[0].allowed_client = SrcClient::MatrixUnit;
    let e = run(&mut m, 0, &[&xx(0, 15), &unpacr(0, "")]).unwrap_err();
    assert_eq!(e.kind, FaultKind::Deadlock, "{e}");
}

fn fill(m: &mut Machine, cell: u32) {
    for b in 0..2 {
        for r in 0..64 {
            for c in 0..16 {
                m.srca.write(b, r, c, cell);
                m.srcb.write(b, r, c, cell);
            }
        }
    }
}

/// `UNPACR_NOP` ZEROSRC clears every row of the unpacker's current bank, to
/// zero or (`NegativeInfSrcA`) to all ones; on Wormhole B0 that bit has no
/// effect on `SrcB`, on Blackhole it does.
#[test]
fn zerosrc_clears_the_current_bank() {
    let cases: [(Arch, &str, usize, u32); 6] = [
        (Arch::WormholeB0, "UNPACR_NOP no_op=1", 0, 0),
        (Arch::WormholeB0, "UNPACR_NOP no_op=5", 0, 0x7FFFF),
        (
            Arch::WormholeB0,
            "UNPACR_NOP no_op=5 unpack_block_selection=1",
            1,
            0,
        ),
        (Arch::Blackhole, "UNPACR_NOP unpack_pop=1", 0, 0),
        (
            Arch::Blackhole,
            "UNPACR_NOP unpack_pop=1 src_clr_val_ctrl=1",
            0,
            0x7FFFF,
        ),
        (
            Arch::Blackhole,
            "UNPACR_NOP unpack_pop=1 src_clr_val_ctrl=1 unpacker_select=1",
            1,
            0x7FFFF,
        ),
    ];
    for (arch, text, unpacker, want) in cases {
        let mut m = Machine::new(arch);
        fill(&mut m, 0x1234);
        run(&mut m, 0, &[text]).unwrap();
        let (cleared, other) = if unpacker == 0 {
            (&m.srca, &m.srcb)
        } else {
            (&m.srcb, &m.srca)
        };
        for r in 0..64 {
            for c in 0..16 {
                assert_eq!(cleared.read(0, r, c), want, "{arch} {text} {r},{c}");
                assert_eq!(cleared.read(1, r, c), 0x1234, "{arch} {text}");
                assert_eq!(other.read(0, r, c), 0x1234, "{arch} {text}");
            }
        }
    }
}

/// ZEROSRC waits for the matrix unit's current bank unless
/// `WaitLikeUnpacr`, which waits for the unpacker's own bank only.
#[test]
fn zerosrc_waits_for_the_matrix_bank_unless_wait_like_unpacr() {
    let setup = |arch| {
        let mut m = Machine::new(arch);
        m.srca.banks[0].allowed_client = SrcClient::MatrixUnit;
        m.srca.unpacker_bank = 1;
        fill(&mut m, 0x1234);
        m
    };
    for (arch, plain, like) in [
        (
            Arch::WormholeB0,
            "UNPACR_NOP no_op=1",
            "UNPACR_NOP no_op=0x11",
        ),
        (
            Arch::Blackhole,
            "UNPACR_NOP unpack_pop=1",
            "UNPACR_NOP unpack_pop=1 stall_clr_cntrl=1",
        ),
    ] {
        let mut m = setup(arch);
        assert_eq!(
            run(&mut m, 0, &[plain]).unwrap_err().kind,
            FaultKind::Deadlock
        );
        let mut m = setup(arch);
        run(&mut m, 0, &[like]).unwrap();
        assert_eq!(m.srca.read(1, 63, 15), 0, "{arch}");
        assert_eq!(m.srca.read(0, 0, 0), 0x1234, "{arch}");
    }
}

/// `UNPACR_NOP` SETDVALID (Wormhole `0b111`; Blackhole `set_dvalid` after a
/// clear) gives the bank to the matrix unit without waiting; Blackhole
/// records `REG2_Out_data_format` as the bank's implied format.
#[test]
fn setdvalid_nop_hands_the_bank_over() {
    let mut m = Machine::new(Arch::WormholeB0);
    fill(&mut m, 0x1234);
    run(&mut m, 0, &["UNPACR_NOP no_op=7 unpack_block_selection=1"]).unwrap();
    assert_eq!(m.srcb.banks[0].allowed_client, SrcClient::MatrixUnit);
    assert_eq!(m.srcb.unpacker_bank, 1);
    assert_eq!(m.srcb.read(0, 5, 5), 0x1234);

    let mut m = Machine::new(Arch::Blackhole);
    fill(&mut m, 0x1234);
    set(&mut m, C::THCON_SEC0_REG2_Out_data_format, 6);
    run(&mut m, 0, &["UNPACR_NOP unpack_pop=1 set_dvalid=1"]).unwrap();
    assert_eq!(m.srca.banks[0].allowed_client, SrcClient::MatrixUnit);
    assert_eq!(m.srca.unpacker_bank, 1);
    assert_eq!(m.srca.read(0, 5, 5), 0);
    assert_eq!(m.unpackers.units[0].implied_format[0], 6);
}

/// The NOP form does nothing; SETREG, the overlay clears and two-bank
/// ZEROSRC are UnsupportedFunctionality in the documentation.
#[test]
fn nop_forms_and_unsupported_forms() {
    let mut m = Machine::new(Arch::WormholeB0);
    fill(&mut m, 0x1234);
    let before = m.clone();
    run(&mut m, 0, &["UNPACR_NOP no_op=2"]).unwrap();
    assert_eq!(m.srca, before.srca);
    for (arch, text) in [
        (Arch::WormholeB0, "UNPACR_NOP no_op=4"),
        (Arch::WormholeB0, "UNPACR_NOP no_op=0"),
        (Arch::WormholeB0, "UNPACR_NOP no_op=3"),
        (Arch::WormholeB0, "UNPACR_NOP no_op=9"),
        (Arch::Blackhole, "UNPACR_NOP unpack_pop=0"),
        (Arch::Blackhole, "UNPACR_NOP unpack_pop=3"),
        (Arch::Blackhole, "UNPACR_NOP unpack_pop=1 bank_clr_ctrl=1"),
    ] {
        let mut m = Machine::new(arch);
        let e = run(&mut m, 0, &[text]).unwrap_err();
        assert_eq!(e.kind, FaultKind::Unsupported, "{arch} {text}: {e}");
    }
    let mut m = Machine::new(Arch::Blackhole);
    run(&mut m, 0, &["UNPACR_NOP unpack_pop=2"]).unwrap();
}
