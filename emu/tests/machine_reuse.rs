//! A machine reused across jobs (`Machine::reset`, `Machine::copy_from`)
//! ends up exactly where a new one, or the one copied, is: the harness's
//! workbench and every fuzz target rely on it.

use tensix_emu::state::src::{SrcClient, SrcReg};
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
        .all(|b| b.rows.iter().flatten().all(|c| *c == 0)));
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
