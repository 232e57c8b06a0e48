//! `ApplyAddrMod`: the step a Matrix Unit (FPU) instruction applies to its
//! thread's RWCs after it runs (`RWCs.md`). The instruction's `AddrMod`
//! bits pick one of eight slots of ThreadConfig increments
//! (`ADDR_MOD_AB_SEC*`, `ADDR_MOD_DST_SEC*`, `ADDR_MOD_BIAS_SEC*`), the
//! upper four when `ADDR_MOD_SET_Base` (or the RWCs' `ExtraAddrModBit`) is
//! set.
//!
//! The RWCs are not modelled ([`super`]): they stay zero, and this module
//! only proves that a step leaves them there. With every counter zero, a
//! slot whose increments are all zero changes nothing whatever its clear
//! and carriage-return bits say (`Clear` writes zero; `CR` and `CToCR` copy
//! a zero sum), so that is the test.

use crate::arch::Arch;
use crate::fault::{Fault, Result};
use crate::regs::{ThreadCfgField as T, ThreadConfig};

/// Each slot's increments: SrcA, SrcB, Dst, fidelity phase, bias.
const INCREMENTS: [[T; 5]; 8] = [
    [
        T::ADDR_MOD_AB_SEC0_SrcAIncr,
        T::ADDR_MOD_AB_SEC0_SrcBIncr,
        T::ADDR_MOD_DST_SEC0_DestIncr,
        T::ADDR_MOD_DST_SEC0_FidelityIncr,
        T::ADDR_MOD_BIAS_SEC0_BiasIncr,
    ],
    [
        T::ADDR_MOD_AB_SEC1_SrcAIncr,
        T::ADDR_MOD_AB_SEC1_SrcBIncr,
        T::ADDR_MOD_DST_SEC1_DestIncr,
        T::ADDR_MOD_DST_SEC1_FidelityIncr,
        T::ADDR_MOD_BIAS_SEC1_BiasIncr,
    ],
    [
        T::ADDR_MOD_AB_SEC2_SrcAIncr,
        T::ADDR_MOD_AB_SEC2_SrcBIncr,
        T::ADDR_MOD_DST_SEC2_DestIncr,
        T::ADDR_MOD_DST_SEC2_FidelityIncr,
        T::ADDR_MOD_BIAS_SEC2_BiasIncr,
    ],
    [
        T::ADDR_MOD_AB_SEC3_SrcAIncr,
        T::ADDR_MOD_AB_SEC3_SrcBIncr,
        T::ADDR_MOD_DST_SEC3_DestIncr,
        T::ADDR_MOD_DST_SEC3_FidelityIncr,
        T::ADDR_MOD_BIAS_SEC3_BiasIncr,
    ],
    [
        T::ADDR_MOD_AB_SEC4_SrcAIncr,
        T::ADDR_MOD_AB_SEC4_SrcBIncr,
        T::ADDR_MOD_DST_SEC4_DestIncr,
        T::ADDR_MOD_DST_SEC4_FidelityIncr,
        T::ADDR_MOD_BIAS_SEC4_BiasIncr,
    ],
    [
        T::ADDR_MOD_AB_SEC5_SrcAIncr,
        T::ADDR_MOD_AB_SEC5_SrcBIncr,
        T::ADDR_MOD_DST_SEC5_DestIncr,
        T::ADDR_MOD_DST_SEC5_FidelityIncr,
        T::ADDR_MOD_BIAS_SEC5_BiasIncr,
    ],
    [
        T::ADDR_MOD_AB_SEC6_SrcAIncr,
        T::ADDR_MOD_AB_SEC6_SrcBIncr,
        T::ADDR_MOD_DST_SEC6_DestIncr,
        T::ADDR_MOD_DST_SEC6_FidelityIncr,
        T::ADDR_MOD_BIAS_SEC6_BiasIncr,
    ],
    [
        T::ADDR_MOD_AB_SEC7_SrcAIncr,
        T::ADDR_MOD_AB_SEC7_SrcBIncr,
        T::ADDR_MOD_DST_SEC7_DestIncr,
        T::ADDR_MOD_DST_SEC7_FidelityIncr,
        T::ADDR_MOD_BIAS_SEC7_BiasIncr,
    ],
];

/// Check that `ApplyAddrMod(addr_mod)` on `thread` leaves the (zero) RWCs
/// as they are; fault `Unimplemented` where it would move them.
pub fn check_no_op(tcfg: &ThreadConfig, thread: usize, addr_mod: u32) -> Result<()> {
    let arch = tcfg.arch();
    let set_base = tcfg.get(thread, T::ADDR_MOD_SET_Base) != 0;
    let slot =
        match arch {
            Arch::WormholeB0 => (addr_mod & 3) + 4 * u32::from(set_base),
            // Blackhole's AddrMod field is three bits wide (ttsim
            // `data/bh/tensix_isa.json`); how ADDR_MOD_SET_Base combines with
            // the third bit is in no stored page.
            Arch::Blackhole if set_base => return Err(Fault::unimplemented(
                "a Matrix Unit instruction with ADDR_MOD_SET_Base on Blackhole: how it combines \
                 with the three AddrMod bits is not documented",
            )),
            Arch::Blackhole => addr_mod & 7,
        };
    let moved = INCREMENTS[slot as usize & 7]
        .iter()
        .find(|f| f.on(arch).is_some() && tcfg.get(thread, **f) != 0);
    match moved {
        None => Ok(()),
        Some(f) => Err(Fault::unimplemented(format!(
            "address modifier slot {slot} increments the RWCs ({f:?} is not zero), which this \
             emulator does not model (RWCs.md, ApplyAddrMod)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_slot_with_zero_increments_passes() {
        for arch in [Arch::WormholeB0, Arch::Blackhole] {
            let mut t = ThreadConfig::new(arch);
            for slot in 0..4 {
                assert_eq!(check_no_op(&t, 1, slot), Ok(()), "{arch:?} slot {slot}");
            }
            // Clear bits alone keep zero counters at zero.
            assert!(t.set(1, T::ADDR_MOD_AB_SEC2_SrcAClear, 1));
            assert_eq!(check_no_op(&t, 1, 2), Ok(()));
            assert!(t.set(1, T::ADDR_MOD_DST_SEC2_DestIncr, 8));
            assert!(check_no_op(&t, 1, 2).is_err());
            // Another thread's slots are its own.
            assert_eq!(check_no_op(&t, 0, 2), Ok(()));
            assert_eq!(check_no_op(&t, 1, 1), Ok(()));
        }
        // Wormhole B0: ADDR_MOD_SET_Base moves slot 1 to slot 5.
        let mut t = ThreadConfig::new(Arch::WormholeB0);
        assert!(t.set(2, T::ADDR_MOD_AB_SEC5_SrcBIncr, 1));
        assert_eq!(check_no_op(&t, 2, 1), Ok(()));
        assert!(t.set(2, T::ADDR_MOD_SET_Base, 1));
        assert!(check_no_op(&t, 2, 1).is_err());
    }
}
