//! ADC instruction semantics, checked against the functional models in
//! tt-isa-documentation `WormholeB0/TensixTile/TensixCoprocessor/`
//! (`ADCs.md`, `SETADC*.md`, `INCADC*.md`, `ADDRCR*.md`) and the encodings in
//! `Diagrams/Src/Bits32.lua`. Expected values are worked out by hand from
//! those pages.

use proptest::prelude::*;
use tensix_emu::adc::{
    AdcPairFields, Adcs, CounterOp, Dim, SetAdcFields, SetAdcXxFields, Unit, YzEffect, YzSteps,
    ADC_SETS,
};
use tensix_emu::isa;
use tensix_emu::{Arch, FaultKind};

const U0: u32 = 0b001;
const U1: u32 = 0b010;
const PK: u32 = 0b100;

fn zero() -> [[u32; 4]; 2] {
    [[0; 4]; 2]
}

/// Every counter set other than (index, unit) is still all zero.
fn others_zero(adcs: &Adcs, index: usize, unit: Unit) {
    for i in 0..ADC_SETS {
        for u in Unit::ALL {
            if (i, u) != (index, unit) {
                assert_eq!(adcs.values(i, u), Some(zero()), "values of set {i} {u:?}");
                assert_eq!(adcs.cr_values(i, u), Some(zero()), "cr of set {i} {u:?}");
            }
        }
    }
}

fn setadc(adcs: &mut Adcs, thread: usize, mask: u32, channel: u32, dim: u32, value: u32) {
    adcs.setadc(
        thread,
        SetAdcFields {
            cnt_set_mask: mask,
            channel_index: channel,
            dimension_index: dim,
            value,
        },
    )
    .unwrap();
}

fn pair(mask: u32, ch0_x: u32, ch0_y: u32, ch1_x: u32, ch1_y: u32, bit_mask: u32) -> AdcPairFields {
    AdcPairFields {
        cnt_set_mask: mask,
        thread_override: 0,
        ch0_x,
        ch0_y,
        ch1_x,
        ch1_y,
        bit_mask,
    }
}

// ADCs.md: the state is X/Y/Z/W plus _Cr copies, zero at reset.
#[test]
fn reset_state_is_all_zero() {
    for arch in Arch::ALL {
        let adcs = Adcs::new(arch);
        for i in 0..ADC_SETS {
            for u in Unit::ALL {
                assert_eq!(adcs.values(i, u), Some(zero()));
                assert_eq!(adcs.cr_values(i, u), Some(zero()));
            }
        }
        assert_eq!(adcs.values(3, Unit::Packers), None);
    }
}

// ADCs.md: X is uint18_t, Y uint13_t, Z and W uint8_t on Wormhole and
// uint13_t on Blackhole.
#[test]
fn counter_widths() {
    assert_eq!(Dim::X.width(Arch::WormholeB0), 18);
    assert_eq!(Dim::Y.width(Arch::WormholeB0), 13);
    assert_eq!(Dim::Z.width(Arch::WormholeB0), 8);
    assert_eq!(Dim::W.width(Arch::WormholeB0), 8);
    assert_eq!(Dim::X.width(Arch::Blackhole), 18);
    assert_eq!(Dim::Y.width(Arch::Blackhole), 13);
    assert_eq!(Dim::Z.width(Arch::Blackhole), 13);
    assert_eq!(Dim::W.width(Arch::Blackhole), 13);
}

// SETADCXY.md: `if (Y1) ADC_.Channel[1].Y = Y1Val, ADC_.Channel[1].Y_Cr = Y1Val;`
// with only Y1 (bit 3) in the mask, no other counter changes.
#[test]
fn setadcxy_bit_mask_selects_only_ch1_y() {
    let mut adcs = Adcs::new(Arch::WormholeB0);
    adcs.setadcxy(1, pair(U0, 1, 2, 3, 5, 0b1000)).unwrap();
    assert_eq!(
        adcs.values(1, Unit::Unpacker0),
        Some([[0, 0, 0, 0], [0, 5, 0, 0]])
    );
    assert_eq!(
        adcs.cr_values(1, Unit::Unpacker0),
        Some([[0, 0, 0, 0], [0, 5, 0, 0]])
    );
    others_zero(&adcs, 1, Unit::Unpacker0);
}

// SETADCXY.md: all four mask bits; CntSetMask U1|PK applies to both units of
// the current thread's ADC set and to no other.
#[test]
fn setadcxy_all_operands_two_units() {
    let mut adcs = Adcs::new(Arch::Blackhole);
    adcs.setadcxy(2, pair(U1 | PK, 7, 6, 5, 4, 0b1111)).unwrap();
    for u in [Unit::Unpacker1, Unit::Packers] {
        assert_eq!(adcs.values(2, u), Some([[7, 6, 0, 0], [5, 4, 0, 0]]));
        assert_eq!(adcs.cr_values(2, u), Some([[7, 6, 0, 0], [5, 4, 0, 0]]));
    }
    assert_eq!(adcs.values(2, Unit::Unpacker0), Some(zero()));
    for i in 0..2 {
        for u in Unit::ALL {
            assert_eq!(adcs.values(i, u), Some(zero()));
        }
    }
}

// SETADCZW.md: Z0Val [8:6] -> Channel[0].Z, W0Val [11:9] -> Channel[0].W,
// Z1Val [14:12] -> Channel[1].Z, W1Val [17:15] -> Channel[1].W.
#[test]
fn setadczw_sets_z_and_w() {
    let mut adcs = Adcs::new(Arch::WormholeB0);
    adcs.setadczw(0, pair(PK, 1, 2, 3, 4, 0b0111)).unwrap();
    assert_eq!(
        adcs.values(0, Unit::Packers),
        Some([[0, 0, 1, 2], [0, 0, 3, 0]])
    );
    assert_eq!(
        adcs.cr_values(0, Unit::Packers),
        Some([[0, 0, 1, 2], [0, 0, 3, 0]])
    );
    others_zero(&adcs, 0, Unit::Packers);
}

// INCADCZW.md: Z/W += operand on the selected unit only; the _Cr copies are
// untouched.
#[test]
fn incadczw_on_packers_only() {
    let mut adcs = Adcs::new(Arch::WormholeB0);
    // Z0 = Z0_Cr = 10 on every unit of thread 0.
    setadc(&mut adcs, 0, U0 | U1 | PK, 0, 2, 10);
    adcs.incadczw(0, pair(PK, 3, 4, 5, 6, 0)).unwrap();
    assert_eq!(
        adcs.values(0, Unit::Packers),
        Some([[0, 0, 13, 4], [0, 0, 5, 6]])
    );
    assert_eq!(
        adcs.cr_values(0, Unit::Packers),
        Some([[0, 0, 10, 0], [0, 0, 0, 0]])
    );
    for u in [Unit::Unpacker0, Unit::Unpacker1] {
        assert_eq!(adcs.values(0, u), Some([[0, 0, 10, 0], [0; 4]]));
    }
}

// INCADCXY.md has no bit mask: bits [3:0] are not part of its encoding, so a
// non-zero bit_mask changes nothing.
#[test]
fn incadcxy_ignores_bit_mask() {
    let mut adcs = Adcs::new(Arch::WormholeB0);
    adcs.incadcxy(0, pair(U0, 1, 2, 3, 4, 0b0001)).unwrap();
    assert_eq!(
        adcs.values(0, Unit::Unpacker0),
        Some([[1, 2, 0, 0], [3, 4, 0, 0]])
    );
    assert_eq!(adcs.cr_values(0, Unit::Unpacker0), Some(zero()));
}

// ADCs.md widths: increments wrap modulo 2^18 for X and 2^13 for Y.
#[test]
fn incadcxy_wraps_at_counter_width() {
    let mut adcs = Adcs::new(Arch::WormholeB0);
    adcs.load(0, Unit::Unpacker1, 0, Dim::X, 0x3FFFF, 0)
        .unwrap();
    adcs.load(0, Unit::Unpacker1, 0, Dim::Y, 0x1FFF, 0).unwrap();
    adcs.incadcxy(0, pair(U1, 1, 3, 0, 0, 0)).unwrap();
    assert_eq!(
        adcs.values(0, Unit::Unpacker1),
        Some([[0, 2, 0, 0], [0; 4]])
    );
}

// ADDRCRXY.md: `X_Cr += X0Inc, X = X_Cr` for the masked operands only; an
// increment given for an unmasked operand does nothing.
#[test]
fn addrcrxy_carriage_return() {
    let mut adcs = Adcs::new(Arch::WormholeB0);
    // X0 = X0_Cr = 2 and Y0 = Y0_Cr = 1, then X0 += 3 and Y0 += 2 so the
    // counters have moved away from their _Cr copies: X0 = 5, Y0 = 3.
    adcs.setadcxy(0, pair(U0, 2, 1, 0, 0, 0b0011)).unwrap();
    adcs.incadcxy(0, pair(U0, 3, 2, 0, 0, 0)).unwrap();
    assert_eq!(
        adcs.values(0, Unit::Unpacker0),
        Some([[5, 3, 0, 0], [0; 4]])
    );
    assert_eq!(
        adcs.cr_values(0, Unit::Unpacker0),
        Some([[2, 1, 0, 0], [0; 4]])
    );
    // Carriage return on X0 only, by 4: X0_Cr = 2 + 4 = 6, X0 = 6. Y0 keeps
    // 3 / 1 although a Y0 increment of 7 is present.
    adcs.addrcrxy(0, pair(U0, 4, 7, 0, 0, 0b0001)).unwrap();
    assert_eq!(
        adcs.values(0, Unit::Unpacker0),
        Some([[6, 3, 0, 0], [0; 4]])
    );
    assert_eq!(
        adcs.cr_values(0, Unit::Unpacker0),
        Some([[6, 1, 0, 0], [0; 4]])
    );
    // A zero increment is a plain carriage return: Y0 = Y0_Cr = 1.
    adcs.addrcrxy(0, pair(U0, 0, 0, 0, 0, 0b0010)).unwrap();
    assert_eq!(
        adcs.values(0, Unit::Unpacker0),
        Some([[6, 1, 0, 0], [0; 4]])
    );
}

// ADDRCRZW.md with ADCs.md widths: Z_Cr is 8 bits on Wormhole (0xFE + 3 = 1)
// and 13 bits on Blackhole (0xFE + 3 = 0x101).
#[test]
fn addrcrzw_wraps_per_architecture() {
    for (arch, expect) in [(Arch::WormholeB0, 0x01), (Arch::Blackhole, 0x101)] {
        let mut adcs = Adcs::new(arch);
        adcs.load(1, Unit::Packers, 1, Dim::Z, 0x10, 0xFE).unwrap();
        adcs.addrcrzw(1, pair(PK, 0, 0, 3, 0, 0b0100)).unwrap();
        let values = adcs.values(1, Unit::Packers).unwrap();
        let cr = adcs.cr_values(1, Unit::Packers).unwrap();
        assert_eq!(values[1][2], expect, "{arch}");
        assert_eq!(cr[1][2], expect, "{arch}");
    }
}

// SETADCXX.md: Channel[0].X = X_Cr = X0Val and Channel[1].X = X_Cr = X1Val;
// nothing else changes.
#[test]
fn setadcxx_sets_x_and_x_cr_on_both_channels() {
    let mut adcs = Adcs::new(Arch::WormholeB0);
    adcs.load(0, Unit::Unpacker0, 0, Dim::Y, 9, 8).unwrap();
    adcs.setadcxx(
        0,
        SetAdcXxFields {
            cnt_set_mask: U0,
            x_start: 0x3FF,
            x_end2: 0x2AB,
        },
    )
    .unwrap();
    assert_eq!(
        adcs.values(0, Unit::Unpacker0),
        Some([[0x3FF, 9, 0, 0], [0x2AB, 0, 0, 0]])
    );
    assert_eq!(
        adcs.cr_values(0, Unit::Unpacker0),
        Some([[0x3FF, 8, 0, 0], [0x2AB, 0, 0, 0]])
    );
    others_zero(&adcs, 0, Unit::Unpacker0);
}

// SETADC.md: `case 3: Ch.W = NewValue, Ch.W_Cr = NewValue;` into a uint8_t W
// (Wormhole) or uint13_t W (Blackhole).
#[test]
fn setadc_truncates_to_counter_width() {
    for (arch, w) in [(Arch::WormholeB0, 0x34), (Arch::Blackhole, 0x1234)] {
        let mut adcs = Adcs::new(arch);
        setadc(&mut adcs, 2, U1, 1, 3, 0x1234);
        assert_eq!(
            adcs.values(2, Unit::Unpacker1),
            Some([[0; 4], [0, 0, 0, w]])
        );
        assert_eq!(
            adcs.cr_values(2, Unit::Unpacker1),
            Some([[0; 4], [0, 0, 0, w]])
        );
        others_zero(&adcs, 2, Unit::Unpacker1);
    }
    // Y is uint13_t on both: 0xFFFF -> 0x1FFF. X is 18 bits: 0xFFFF stays.
    let mut adcs = Adcs::new(Arch::WormholeB0);
    setadc(&mut adcs, 0, PK, 0, 1, 0xFFFF);
    setadc(&mut adcs, 0, PK, 0, 0, 0xFFFF);
    assert_eq!(
        adcs.values(0, Unit::Packers),
        Some([[0xFFFF, 0x1FFF, 0, 0], [0; 4]])
    );
}

// SETADC.md: `ThreadOverride = NewValue >> 16`; non-zero is
// UnsupportedFunctionality. Nothing may change.
#[test]
fn setadc_thread_override_is_unsupported() {
    let mut adcs = Adcs::new(Arch::WormholeB0);
    let err = adcs
        .setadc(
            0,
            SetAdcFields {
                cnt_set_mask: U0,
                channel_index: 0,
                dimension_index: 0,
                value: 0x1_0005,
            },
        )
        .unwrap_err();
    assert_eq!(err.kind, FaultKind::Unsupported);
    assert!(err.rule.contains("ThreadOverride"), "{}", err.rule);
    assert_eq!(adcs, Adcs::new(Arch::WormholeB0));
}

// SETADCXY.md and the other XY/ZW pages: ThreadOverride ([19:18]) non-zero
// is UnsupportedFunctionality.
#[test]
fn pair_thread_override_is_unsupported() {
    let mut adcs = Adcs::new(Arch::Blackhole);
    let mut f = pair(U0, 1, 1, 1, 1, 0b1111);
    f.thread_override = 2;
    for result in [
        adcs.setadcxy(0, f),
        adcs.setadczw(0, f),
        adcs.incadcxy(0, f),
        adcs.incadczw(0, f),
        adcs.addrcrxy(0, f),
        adcs.addrcrzw(0, f),
    ] {
        assert_eq!(result.unwrap_err().kind, FaultKind::Unsupported);
    }
    assert_eq!(adcs, Adcs::new(Arch::Blackhole));
}

// The functional models apply nothing when CntSetMask or BitMask is zero.
#[test]
fn zero_masks_are_no_ops() {
    let mut adcs = Adcs::new(Arch::WormholeB0);
    adcs.setadcxy(0, pair(0, 1, 2, 3, 4, 0b1111)).unwrap();
    adcs.incadcxy(0, pair(0, 1, 2, 3, 4, 0)).unwrap();
    adcs.setadczw(0, pair(U0 | U1 | PK, 1, 2, 3, 4, 0)).unwrap();
    adcs.addrcrzw(0, pair(U0 | U1 | PK, 1, 2, 3, 4, 0)).unwrap();
    setadc(&mut adcs, 0, 0, 1, 1, 7);
    assert_eq!(adcs, Adcs::new(Arch::WormholeB0));
}

/// Each of the six XY/ZW instructions checks each field against its width
/// (`cnt_set_mask` 3 bits, `thread_override` 2, the operands 3, `bit_mask`
/// 4 where the instruction has one): one field a bit too wide is an invalid
/// instruction naming that field, changing no counter; where several are,
/// the fault names the first in encoding-table order. The increments have no
/// `bit_mask`, so any value of it goes through.
#[test]
fn each_pair_field_is_checked_against_its_own_width() {
    type Op = fn(&mut Adcs, usize, AdcPairFields) -> Result<(), tensix_emu::Fault>;
    let ops: [(&str, Op, bool); 6] = [
        ("SETADCXY", Adcs::setadcxy, true),
        ("SETADCZW", Adcs::setadczw, true),
        ("ADDRCRXY", Adcs::addrcrxy, true),
        ("ADDRCRZW", Adcs::addrcrzw, true),
        ("INCADCXY", Adcs::incadcxy, false),
        ("INCADCZW", Adcs::incadczw, false),
    ];
    type Set = fn(&mut AdcPairFields, u32);
    let fields: [(&str, u32, Set); 7] = [
        ("cnt_set_mask", 3, |f, v| f.cnt_set_mask = v),
        ("thread_override", 2, |f, v| f.thread_override = v),
        ("ch0_x", 3, |f, v| f.ch0_x = v),
        ("ch0_y", 3, |f, v| f.ch0_y = v),
        ("ch1_x", 3, |f, v| f.ch1_x = v),
        ("ch1_y", 3, |f, v| f.ch1_y = v),
        ("bit_mask", 4, |f, v| f.bit_mask = v),
    ];
    for (name, op, has_bit_mask) in ops {
        for (i, &(field, width, set)) in fields.iter().enumerate() {
            // The field alone too wide, then with every later one too.
            for later_too in [false, true] {
                let mut adcs = Adcs::new(Arch::Blackhole);
                let mut f = pair(U0 | PK, 1, 2, 3, 4, 0b1111);
                set(&mut f, 1 << width);
                if later_too {
                    for &(_, later_width, later) in &fields[i + 1..] {
                        later(&mut f, 1 << later_width);
                    }
                }
                let case = format!("{name} {field} (later fields too wide: {later_too})");
                let result = op(&mut adcs, 1, f);
                if field == "bit_mask" && !has_bit_mask {
                    assert!(result.is_ok(), "{case}: {result:?}");
                    continue;
                }
                let err = result.unwrap_err();
                assert_eq!(err.kind, FaultKind::InvalidInstruction, "{case}");
                let text = err.to_string();
                assert!(
                    text.contains(&format!("{name} field {field} = {:#x}", 1 << width)),
                    "{case}: {text}"
                );
                assert_eq!(adcs, Adcs::new(Arch::Blackhole), "{case}");
            }
            // One below the limit is accepted (a nonzero ThreadOverride is
            // its own fault).
            let mut adcs = Adcs::new(Arch::Blackhole);
            let mut f = pair(U0 | PK, 1, 2, 3, 4, 0b1111);
            set(&mut f, (1 << width) - 1);
            let result = op(&mut adcs, 1, f);
            if field == "thread_override" {
                assert_eq!(result.unwrap_err().kind, FaultKind::Unsupported, "{name}");
            } else {
                assert!(result.is_ok(), "{name} {field} at its width: {result:?}");
            }
        }
    }
}

// Decoded fields wider than their encoding cannot come from an instruction.
#[test]
fn oversized_fields_are_invalid_instructions() {
    let mut adcs = Adcs::new(Arch::WormholeB0);
    let err = adcs.setadcxy(0, pair(U0, 8, 0, 0, 0, 1)).unwrap_err();
    assert_eq!(err.kind, FaultKind::InvalidInstruction);
    let err = adcs.setadcxy(0, pair(8, 0, 0, 0, 0, 1)).unwrap_err();
    assert_eq!(err.kind, FaultKind::InvalidInstruction);
    let err = adcs
        .setadcxx(
            0,
            SetAdcXxFields {
                cnt_set_mask: U0,
                x_start: 0,
                x_end2: 0x400,
            },
        )
        .unwrap_err();
    assert_eq!(err.kind, FaultKind::InvalidInstruction);
    let err = adcs
        .setadc(
            0,
            SetAdcFields {
                cnt_set_mask: U0,
                channel_index: 2,
                dimension_index: 0,
                value: 0,
            },
        )
        .unwrap_err();
    assert_eq!(err.kind, FaultKind::InvalidInstruction);
    assert!(adcs.setadcxy(3, pair(U0, 0, 0, 0, 0, 1)).is_err());
    assert_eq!(adcs, Adcs::new(Arch::WormholeB0));
}

// Bits32.lua: SETADCXY = 0x51, X0 [0], Y0 [1], X1 [2], Y1 [3], X0Val [8:6],
// Y0Val [11:9], X1Val [14:12], Y1Val [17:15], ThreadOverride [19:18],
// U0 [21], U1 [22], PK [23]. INCADCXY (0x52) has the same layout without
// the four mask bits, so bits [3:0] of an INCADCXY word are not a bit mask.
#[test]
fn decode_pair_fields() {
    let args =
        (1 << 23) | (1 << 21) | (3 << 18) | (5 << 15) | (3 << 12) | (6 << 9) | (7 << 6) | 0b1010;
    let expect = AdcPairFields {
        cnt_set_mask: 0b101,
        thread_override: 3,
        ch1_y: 5,
        ch1_x: 3,
        ch0_y: 6,
        ch0_x: 7,
        bit_mask: 0b1010,
    };
    for arch in Arch::ALL {
        let set = isa::Setadcxy::from_word(arch, (0x51 << 24) | args);
        assert_eq!(AdcPairFields::from(&set), expect, "{arch}");
        let inc = isa::Incadcxy::from_word(arch, (0x52 << 24) | args);
        assert_eq!(
            AdcPairFields::from(&inc),
            AdcPairFields {
                bit_mask: 0,
                ..expect
            },
            "{arch}"
        );
    }
}

// Bits32.lua: SETADC = 0x50, NewValue [17:0], XYZW [19:18], Channel [20],
// U0 [21], U1 [22], PK [23]. SETADCXX = 0x5E, X0Val [9:0], X1Val [19:10].
#[test]
fn decode_setadc_and_setadcxx() {
    for arch in Arch::ALL {
        let word = (0x50 << 24) | (1 << 22) | (1 << 20) | (2 << 18) | 0x2_ABCD;
        assert_eq!(
            SetAdcFields::from(&isa::Setadc::from_word(arch, word)),
            SetAdcFields {
                cnt_set_mask: 0b010,
                channel_index: 1,
                dimension_index: 2,
                value: 0x2_ABCD
            }
        );
        let word = (0x5E << 24) | (1 << 23) | (0x155 << 10) | 0x2AA;
        assert_eq!(
            SetAdcXxFields::from(&isa::Setadcxx::from_word(arch, word)),
            SetAdcXxFields {
                cnt_set_mask: 0b100,
                x_start: 0x2AA,
                x_end2: 0x155
            }
        );
    }
}

// Packers/InputAddressGenerator.md and OutputAddressGenerator.md: the PACR
// AddrMod update is Clear (value = Cr = 0), CR (Cr += incr, value = Cr) or a
// plain increment.
#[test]
fn pacr_addr_mod_primitives() {
    let mut adcs = Adcs::new(Arch::WormholeB0);
    adcs.load(2, Unit::Packers, 1, Dim::Y, 40, 32).unwrap();
    adcs.apply(2, Unit::Packers, 1, Dim::Y, CounterOp::Increment(4))
        .unwrap();
    assert_eq!(
        adcs.counter_set(2, Unit::Packers).unwrap().channels[1]
            .counter(Dim::Y)
            .value,
        44
    );
    assert_eq!(adcs.cr_values(2, Unit::Packers).unwrap()[1][1], 32);
    adcs.apply(2, Unit::Packers, 1, Dim::Y, CounterOp::CarriageReturn(8))
        .unwrap();
    assert_eq!(adcs.values(2, Unit::Packers).unwrap()[1][1], 40);
    assert_eq!(adcs.cr_values(2, Unit::Packers).unwrap()[1][1], 40);
    adcs.apply(2, Unit::Packers, 1, Dim::Y, CounterOp::Clear)
        .unwrap();
    assert_eq!(adcs.values(2, Unit::Packers), Some(zero()));
    assert_eq!(adcs.cr_values(2, Unit::Packers), Some(zero()));
    assert!(adcs
        .apply(3, Unit::Packers, 0, Dim::Y, CounterOp::Clear)
        .is_err());
    assert!(adcs
        .apply(0, Unit::Packers, 2, Dim::Y, CounterOp::Clear)
        .is_err());
}

// UNPACR_Regular.md: Ch0.Y += Ch0YInc etc. wrap at the counter width; Z of
// an unpacker wraps at 8 bits on Wormhole.
#[test]
fn unpacr_increments_wrap() {
    let mut adcs = Adcs::new(Arch::WormholeB0);
    adcs.load(0, Unit::Unpacker0, 0, Dim::Z, 0xFF, 0xFF)
        .unwrap();
    adcs.apply(0, Unit::Unpacker0, 0, Dim::Z, CounterOp::Increment(2))
        .unwrap();
    assert_eq!(adcs.values(0, Unit::Unpacker0).unwrap()[0][2], 1);
    assert_eq!(adcs.cr_values(0, Unit::Unpacker0).unwrap()[0][2], 0xFF);
}

#[derive(Clone, Debug)]
enum Op {
    SetAdc(usize, u32),
    SetAdcXx(usize, u32),
    Pair(u8, usize, u32),
    Apply(usize, u8, usize, u8, u8, u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0usize..5, any::<u32>()).prop_map(|(t, w)| Op::SetAdc(t, w)),
        (0usize..5, any::<u32>()).prop_map(|(t, w)| Op::SetAdcXx(t, w)),
        (0u8..6, 0usize..5, any::<u32>()).prop_map(|(k, t, w)| Op::Pair(k, t, w)),
        (0usize..5, 0u8..3, 0usize..3, 0u8..4, 0u8..4, any::<u32>())
            .prop_map(|(i, u, c, d, o, n)| Op::Apply(i, u, c, d, o, n)),
    ]
}

proptest! {
    /// No sequence of operations panics, and every counter stays within its
    /// documented width.
    #[test]
    fn no_panic_and_within_width(arch_bh in any::<bool>(), ops in prop::collection::vec(op(), 0..64)) {
        let arch = if arch_bh { Arch::Blackhole } else { Arch::WormholeB0 };
        let mut adcs = Adcs::new(arch);
        for op in ops {
            let _ = match op {
                Op::SetAdc(t, w) => adcs.setadc(t, (&isa::Setadc::from_word(arch, w)).into()),
                Op::SetAdcXx(t, w) => adcs.setadcxx(t, (&isa::Setadcxx::from_word(arch, w)).into()),
                Op::Pair(k, t, w) => match k {
                    0 => adcs.setadcxy(t, (&isa::Setadcxy::from_word(arch, w)).into()),
                    1 => adcs.setadczw(t, (&isa::Setadczw::from_word(arch, w)).into()),
                    2 => adcs.incadcxy(t, (&isa::Incadcxy::from_word(arch, w)).into()),
                    3 => adcs.incadczw(t, (&isa::Incadczw::from_word(arch, w)).into()),
                    4 => adcs.addrcrxy(t, (&isa::Addrcrxy::from_word(arch, w)).into()),
                    _ => adcs.addrcrzw(t, (&isa::Addrcrzw::from_word(arch, w)).into()),
                },
                Op::Apply(i, u, c, d, o, n) => {
                    let op = match o {
                        0 => CounterOp::Set(n),
                        1 => CounterOp::Increment(n),
                        2 => CounterOp::CarriageReturn(n),
                        _ => CounterOp::Clear,
                    };
                    adcs.apply(i, Unit::ALL[u as usize], c, Dim::ALL[d as usize], op)
                }
            };
        }
        for i in 0..ADC_SETS {
            for u in Unit::ALL {
                let set = adcs.counter_set(i, u).unwrap();
                for ch in set.channels {
                    for d in Dim::ALL {
                        prop_assert!(ch.counter(d).value <= d.mask(arch));
                        prop_assert!(ch.counter(d).cr <= d.mask(arch));
                    }
                }
            }
        }
    }

    /// SETADCXY followed by INCADCXY with arbitrary (in-range) operands:
    /// value = set + inc, Cr = set, per the two functional models.
    #[test]
    fn set_then_increment(set in prop::array::uniform4(0u32..8), inc in prop::array::uniform4(0u32..8)) {
        let mut adcs = Adcs::new(Arch::WormholeB0);
        adcs.setadcxy(1, pair(PK, set[0], set[1], set[2], set[3], 0b1111)).unwrap();
        adcs.incadcxy(1, pair(PK, inc[0], inc[1], inc[2], inc[3], 0)).unwrap();
        let v = adcs.values(1, Unit::Packers).unwrap();
        let cr = adcs.cr_values(1, Unit::Packers).unwrap();
        prop_assert_eq!(v, [[set[0] + inc[0], set[1] + inc[1], 0, 0], [set[2] + inc[2], set[3] + inc[3], 0, 0]]);
        prop_assert_eq!(cr, [[set[0], set[1], 0, 0], [set[2], set[3], 0, 0]]);
    }

    /// `step_yz` (the packer's `ADDR_MOD_PACK_SEC` steps, both channels at
    /// once) leaves every counter as `apply` of the same four operations
    /// does, from any counter state, and refuses the same ADC sets.
    #[test]
    fn yz_steps_match_apply(
        arch_bh in any::<bool>(),
        index in 0usize..4,
        unit in 0usize..3,
        state in prop::array::uniform16(any::<u32>()),
        // Half the cases all increments, the steps of every `UNPACR` and of
        // most `PACR`s.
        kinds in prop_oneof![Just([1u8; 4]), prop::array::uniform4(0u8..4)],
        operands in prop::array::uniform4(any::<u32>()),
    ) {
        let arch = if arch_bh { Arch::Blackhole } else { Arch::WormholeB0 };
        let unit = Unit::ALL[unit];
        let mut a = Adcs::new(arch);
        for (k, chunk) in state.chunks_exact(2).enumerate() {
            let (i, ch, d) = (k / 4 % ADC_SETS, k / 2 % 2, Dim::ALL[k % 4]);
            for u in Unit::ALL {
                a.load(i, u, ch, d, chunk[0], chunk[1]).unwrap();
            }
        }
        let mut b = a.clone();
        let op = |k: usize| match kinds[k] {
            0 => CounterOp::Set(operands[k]),
            1 => CounterOp::Increment(operands[k]),
            2 => CounterOp::CarriageReturn(operands[k]),
            _ => CounterOp::Clear,
        };
        let ops = [[op(0), op(1)], [op(2), op(3)]];
        let stepped = a.step_yz(index, unit, &YzSteps(ops));
        let mut applied = Ok(());
        for (ch, [y, z]) in ops.into_iter().enumerate() {
            applied = applied
                .and_then(|_| b.apply(index, unit, ch, Dim::Y, y))
                .and_then(|_| b.apply(index, unit, ch, Dim::Z, z));
        }
        prop_assert_eq!(stepped.is_ok(), applied.is_ok());
        prop_assert_eq!(a, b);
    }

    /// The effect of a sequence of steps, worked out once
    /// ([`YzEffect::then`]), leaves every counter as stepping through the
    /// sequence with `step_yz` does, from any counter state; and after every
    /// prefix it gives the values the steps so far have left.
    #[test]
    fn composed_yz_steps_match_stepping(
        arch_bh in any::<bool>(),
        unit in 0usize..3,
        state in prop::array::uniform8(any::<u32>()),
        steps in prop::collection::vec(
            (prop::array::uniform4(0u8..4), prop::array::uniform4(any::<u32>())),
            0..24,
        ),
    ) {
        let arch = if arch_bh { Arch::Blackhole } else { Arch::WormholeB0 };
        let unit = Unit::ALL[unit];
        let mut stepped = Adcs::new(arch);
        for (k, pair) in state.chunks_exact(2).enumerate() {
            let (ch, d) = (k / 2, [Dim::Y, Dim::Z][k % 2]);
            stepped.load(1, unit, ch, d, pair[0], pair[1]).unwrap();
        }
        let start = stepped.clone();
        let before = [0, 1].map(|ch| start.yz(1, unit, ch).unwrap());
        let mut effect = YzEffect::NONE;
        for (kinds, operands) in steps {
            let op = |k: usize| match kinds[k] {
                0 => CounterOp::Set(operands[k]),
                1 => CounterOp::Increment(operands[k]),
                2 => CounterOp::CarriageReturn(operands[k]),
                _ => CounterOp::Clear,
            };
            let yz = YzSteps([[op(0), op(1)], [op(2), op(3)]]);
            stepped.step_yz(1, unit, &yz).unwrap();
            effect = effect.then(&yz);
            for (ch, counters) in before.iter().enumerate() {
                let now = stepped.yz(1, unit, ch).unwrap();
                for (d, &(counter, mask)) in counters.iter().enumerate() {
                    prop_assert_eq!(effect.0[ch][d].apply(counter, mask), now[d].0);
                }
            }
        }
        let mut applied = start;
        applied.apply_yz(1, unit, &effect).unwrap();
        prop_assert_eq!(applied, stepped);
        prop_assert!(Adcs::new(arch).apply_yz(3, unit, &effect).is_err());
    }
}
