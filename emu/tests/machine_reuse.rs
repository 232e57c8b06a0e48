//! A machine reused across jobs (`Machine::reset`, `Machine::copy_from`)
//! ends up exactly where a new one, or the one copied, is: the harness's
//! workbench and every fuzz target rely on it.

use tensix_emu::state::src::{SrcClient, SrcReg};
use tensix_emu::state::Dst;
use tensix_emu::{Arch, Machine};

/// Every cell of both banks of both Src registers set, and the bank
/// pointers and clients moved off their reset values.
fn dirty_sources(m: &mut Machine) {
    for (k, s) in [&mut m.srca, &mut m.srcb].into_iter().enumerate() {
        for bank in 0..2 {
            for row in 0..64 {
                for col in 0..16 {
                    s.write(
                        bank,
                        row,
                        col,
                        (k * 7 + bank * 64 + row * 16 + col) as u32 | 1,
                    );
                }
            }
            s.banks[bank].allowed_client = SrcClient::MatrixUnit;
        }
        s.unpacker_bank = 1;
        s.matrix_bank = 1;
    }
}

#[test]
fn reset_clears_both_source_registers() {
    let mut m = Machine::new(Arch::Blackhole);
    dirty_sources(&mut m);
    m.reset();
    assert_eq!(m.srca, SrcReg::default());
    assert_eq!(m.srcb, SrcReg::default());
    assert!(m
        .srca
        .banks
        .iter()
        .all(|b| b.rows().iter().flatten().all(|c| *c == 0)));
}

#[test]
fn reset_clears_rows_written_through_the_bank() {
    let mut m = Machine::new(Arch::WormholeB0);
    m.srcb.banks[1].rows_mut()[63][15] = 0x7_FFFF;
    m.srca.banks[0].rows_mut()[0][0] = 1;
    m.reset();
    assert_eq!(m.srcb.read(1, 63, 15), 0);
    assert_eq!(m.srca.read(0, 0, 0), 0);
}

/// A copy takes the other machine's rows whichever of the two was written:
/// written onto clean, clean onto written, and clean onto clean.
#[test]
fn copy_from_takes_rows_whichever_side_was_written() {
    let clean = Machine::new(Arch::Blackhole);
    let mut written = Machine::new(Arch::Blackhole);
    dirty_sources(&mut written);

    let mut to = Machine::new(Arch::Blackhole);
    to.copy_from(&written);
    assert_eq!(to.srcb.read(1, 40, 3), written.srcb.read(1, 40, 3));
    assert_ne!(to.srcb.read(1, 40, 3), 0);

    to.copy_from(&clean);
    assert_eq!(to.srca, SrcReg::default());
    assert_eq!(to.srca.read(1, 40, 3), 0);

    // `to` is clean again: a later reset or copy must still see a write.
    to.srca.write_row(0, 7, &[5; 16]);
    to.copy_from(&clean);
    assert_eq!(to.srca.read_row(0, 7), [0; 16]);
    to.srca.write_row(0, 7, &[5; 16]);
    to.reset();
    assert_eq!(to.srca.read_row(0, 7), [0; 16]);
}

#[test]
fn copy_from_copies_source_registers_without_sharing_them() {
    let mut from = Machine::new(Arch::WormholeB0);
    dirty_sources(&mut from);
    let mut to = Machine::new(Arch::WormholeB0);
    to.copy_from(&from);
    assert_eq!(to.srca, from.srca);
    assert_eq!(to.srcb, from.srcb);
    to.srca.write(0, 5, 5, 0);
    to.srcb.banks[1].allowed_client = SrcClient::Unpackers;
    assert_ne!(from.srca.read(0, 5, 5), 0);
    assert_eq!(from.srcb.banks[1].allowed_client, SrcClient::MatrixUnit);
}

/// `Dst` written through each of its write methods, in rows spread over
/// all 1024 storage rows.
fn dirty_dst(d: &mut Dst, salt: u16) {
    for r in [0usize, 63, 64, 500, 1015] {
        d.row_mut(r)[3] = 0x1234 ^ salt;
    }
    d.write32_at(200, 7, 0xDEAD_BEEF ^ u32::from(salt));
    d.write32_row(700, &[0x8001_0001 ^ u32::from(salt); 16]);
    d.set_valid(9, true);
}

#[test]
fn reset_clears_every_dst_row_written_any_way() {
    let mut d = Dst::default();
    dirty_dst(&mut d, 0);
    d.reset();
    assert_eq!(d, Dst::default());
    for r in 0..1024 {
        assert_eq!(d.row(r), &[0; 16], "storage row {r}");
    }
}

#[test]
fn copy_from_makes_dst_equal_whatever_either_side_wrote() {
    let mut from = Dst::default();
    dirty_dst(&mut from, 0x0F0F);
    from.row_mut(2)[0] = 1;
    let mut to = Dst::default();
    dirty_dst(&mut to, 0);
    to.row_mut(900)[15] = 0xFFFF;
    to.copy_from(&from);
    assert_eq!(to, from);
    assert_eq!(to.row(900), &[0; 16], "a row only the copy had written");
    // And the copy's record of written rows is the source's: a reset
    // afterwards still clears everything.
    to.reset();
    assert_eq!(to, Dst::default());
}

/// A whole-row write or read is the same as one per cell: cells masked to
/// 19 bits, bank and row wrapping (so bank 3 is bank 1 and row 70 is row 6).
#[test]
fn row_writes_and_reads_are_those_of_each_cell() {
    let cells: [u32; 16] = std::array::from_fn(|c| 0xFFF8_0000 | (c as u32 * 0x1_1111) ^ 0x2_5A5A);
    for (bank, row) in [(0, 0), (1, 63), (3, 70), (2, 129)] {
        let (mut by_row, mut by_cell) = (SrcReg::default(), SrcReg::default());
        by_row.write_row(bank, row, &cells);
        for (c, cell) in cells.iter().enumerate() {
            by_cell.write(bank, row, c, *cell);
        }
        assert_eq!(by_row, by_cell, "bank {bank} row {row}");
        let read: [u32; 16] = std::array::from_fn(|c| by_cell.read(bank, row, c));
        assert_eq!(by_cell.read_row(bank, row), read);
        assert!(read.iter().all(|c| c >> 19 == 0));
        assert_ne!(read, [0; 16]);
    }
}
