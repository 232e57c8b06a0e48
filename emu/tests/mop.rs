//! MOP expander, checked against the functional model in tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/MOPExpander.md` (the revision
//! shared with Blackhole) and the `MOP` / `MOP_CFG` encodings in
//! `Diagrams/Src/Bits32.lua`. Expected sequences are worked out by hand.

use std::collections::VecDeque;

use proptest::prelude::*;
use tensix_emu::exec::mop::{max_expansion_len, MopExpander, MopExpansion, MOP_CFG_LEN};
use tensix_emu::{Arch, Fault, FaultKind};

// Distinct instruction words whose opcodes are none of MOP (0x01), NOP
// (0x02), MOP_CFG (0x03) or REPLAY (0x04).
const A0: u32 = 0x4200_00A0;
const A1: u32 = 0x4200_00A1;
const A2: u32 = 0x4200_00A2;
const A3: u32 = 0x4200_00A3;
const B: u32 = 0x4200_00B0;
const SKIP_A: u32 = 0x5500_0001;
const SKIP_B: u32 = 0x5500_0002;
const NOP: u32 = 0x0200_0000;
const DMANOP: u32 = 0x6000_0000;
const SFPNOP: u32 = 0x8F00_0000;

const START: u32 = 0x4100_0001;
const END0: u32 = 0x4100_00E0;
const END1: u32 = 0x4100_00E1;
const LOOP: u32 = 0x2600_0001;
const LOOP1: u32 = 0x2600_0002;
const LAST0: u32 = 0x2600_0F00;
const LAST1: u32 = 0x2600_0F01;

/// `MOP`: opcode 0x01, Template [23], Count1 [22:16], MaskLo [15:0].
fn mop(template: u32, count1: u32, mask_lo: u32) -> u32 {
    (0x01 << 24) | (template << 23) | (count1 << 16) | mask_lo
}

/// `MOP_CFG`: opcode 0x03, MaskHi [15:0].
fn mop_cfg(mask_hi: u32) -> u32 {
    (0x03 << 24) | mask_hi
}

fn expander(arch: Arch, cfg: [u32; MOP_CFG_LEN]) -> MopExpander {
    let mut m = MopExpander::new(arch);
    for (i, v) in cfg.into_iter().enumerate() {
        m.set_config(i, v).unwrap();
    }
    m
}

/// Everything the expander emits for `input`, or the first fault.
fn run(m: &mut MopExpander, input: &[u32]) -> Result<Vec<u32>, Fault> {
    let mut fifo: VecDeque<u32> = input.iter().copied().collect();
    let mut out = Vec::new();
    while let Some(w) = m.next(|| Ok(fifo.pop_front()))? {
        out.push(w);
    }
    Ok(out)
}

/// Template 0 configuration: Flags, InsnB, InsnA0..3, SkipA0, SkipB.
fn t0_cfg(flags: u32) -> [u32; MOP_CFG_LEN] {
    [0, flags, B, A0, A1, A2, A3, SKIP_A, SKIP_B]
}

/// Template 1 configuration: OuterCount, InnerCount, StartOp, EndOp0,
/// EndOp1, LoopOp, LoopOp1, Loop0Last, Loop1Last.
#[allow(clippy::too_many_arguments)]
fn t1_cfg(
    outer: u32,
    inner: u32,
    start: u32,
    end0: u32,
    end1: u32,
    loop_op: u32,
    loop_op1: u32,
    last0: u32,
    last1: u32,
) -> [u32; MOP_CFG_LEN] {
    [
        outer, inner, start, end0, end1, loop_op, loop_op1, last0, last1,
    ]
}

// Template 0, Flags = 0: one instruction per iteration, InsnA0 for a clear
// mask bit and SkipA0 for a set one, mask bits taken from bit 0 up.
// Count1 = 3 -> 4 iterations; MaskLo = 0b0101 -> skip, A, skip, A.
#[test]
fn template0_mask_selects_skip() {
    let mut m = expander(Arch::WormholeB0, t0_cfg(0));
    let out = run(&mut m, &[mop(0, 3, 0b0101)]).unwrap();
    assert_eq!(out, [SKIP_A, A0, SKIP_A, A0]);
}

// Flags = 3 (HasB | HasA123): a clear bit yields A0 A1 A2 A3 B, a set bit
// SkipA0 SkipB. Count1 = 1, MaskLo = 0b10.
#[test]
fn template0_has_b_and_a123() {
    let mut m = expander(Arch::Blackhole, t0_cfg(3));
    let out = run(&mut m, &[mop(0, 1, 0b10)]).unwrap();
    assert_eq!(out, [A0, A1, A2, A3, B, SKIP_A, SKIP_B]);
}

// Flags = 1 (HasB only): A0 B, or SkipA0 SkipB. Flags bits above bit 1 are
// not looked at ("low two bits only").
#[test]
fn template0_has_b_only_and_flag_bits_above_one_ignored() {
    let mut m = expander(Arch::WormholeB0, t0_cfg(0xFFFF_FFF1 & !2));
    let out = run(&mut m, &[mop(0, 1, 0b10)]).unwrap();
    assert_eq!(out, [A0, B, SKIP_A, SKIP_B]);
    let mut m = expander(Arch::WormholeB0, t0_cfg(0xFC));
    let out = run(&mut m, &[mop(0, 1, 0b10)]).unwrap();
    assert_eq!(out, [A0, SKIP_A]);
}

// MOP_CFG sets MaskHi (emitting nothing); the mask is (MaskHi << 16) + MaskLo,
// and MaskHi persists for later MOPs. MaskHi = 1 sets mask bit 16: with
// Count1 = 17 (18 iterations) iteration 16 is the only skip.
#[test]
fn template0_mask_hi_from_mop_cfg() {
    let mut m = expander(Arch::WormholeB0, t0_cfg(0));
    let out = run(&mut m, &[mop_cfg(0x0001), mop(0, 17, 0)]).unwrap();
    let mut expect = vec![A0; 16];
    expect.extend([SKIP_A, A0]);
    assert_eq!(out, expect);
    assert_eq!(m.mask_hi(), 1);
    let out = run(&mut m, &[mop(0, 16, 0)]).unwrap();
    let mut expect = vec![A0; 16];
    expect.push(SKIP_A);
    assert_eq!(out, expect);
}

// `Mask >>= 1` each iteration: after 32 iterations the mask is zero, so with
// Count1 = 40 and an all-ones mask, iterations 0..=31 skip and 32..=40 (9
// iterations) yield InsnA0.
#[test]
fn template0_beyond_32_iterations_sees_zero_mask_bits() {
    let mut m = expander(Arch::WormholeB0, t0_cfg(0));
    let out = run(&mut m, &[mop_cfg(0xFFFF), mop(0, 40, 0xFFFF)]).unwrap();
    let mut expect = vec![SKIP_A; 32];
    expect.extend([A0; 9]);
    assert_eq!(out, expect);
}

// Template 1, OuterCount = 2, InnerCount = 3, LoopOp1 a NOP: per outer
// iteration StartOp, LoopOp twice, then the last inner iteration replaced by
// Loop1Last (not the last outer iteration) or Loop0Last (the last), then
// EndOp0 EndOp1.
#[test]
fn template1_outer_inner_and_last_replacements() {
    let cfg = t1_cfg(2, 3, START, END0, END1, LOOP, NOP, LAST0, LAST1);
    let mut m = expander(Arch::WormholeB0, cfg);
    let out = run(&mut m, &[mop(1, 0, 0)]).unwrap();
    assert_eq!(
        out,
        [START, LOOP, LOOP, LAST1, END0, END1, START, LOOP, LOOP, LAST0, END0, END1]
    );
}

// With a non-NOP LoopOp1 the inner loop runs 2 * InnerCount times,
// alternating LoopOp and LoopOp1, the last of them replaced. InnerCount = 2,
// OuterCount = 2, no start or end ops: L M L Last1, L M L Last0.
#[test]
fn template1_alternating_loop_ops() {
    let cfg = t1_cfg(2, 2, NOP, NOP, END1, LOOP, LOOP1, LAST0, LAST1);
    let mut m = expander(Arch::Blackhole, cfg);
    let out = run(&mut m, &[mop(1, 0, 0)]).unwrap();
    assert_eq!(out, [LOOP, LOOP1, LOOP, LAST1, LOOP, LOOP1, LOOP, LAST0]);
}

// EndOp1 is used only when EndOp0 is not a NOP.
#[test]
fn template1_end_op1_needs_end_op0() {
    let cfg = t1_cfg(1, 1, START, NOP, END1, LOOP, NOP, LAST0, LAST1);
    let mut m = expander(Arch::WormholeB0, cfg);
    assert_eq!(run(&mut m, &[mop(1, 0, 0)]).unwrap(), [START, LAST0]);
}

// IsNop recognises only opcode 0x02: DMANOP and SFPNOP as StartOp / EndOp0
// are emitted.
#[test]
fn template1_only_plain_nop_is_skipped() {
    let cfg = t1_cfg(1, 0, DMANOP, SFPNOP, NOP, LOOP, NOP, LAST0, LAST1);
    let mut m = expander(Arch::WormholeB0, cfg);
    assert_eq!(run(&mut m, &[mop(1, 0, 0)]).unwrap(), [DMANOP, SFPNOP]);
}

// The hardware-bug case (NOP StartOp, no inner iterations, non-NOP EndOp0)
// is UnsupportedFunctionality, whatever OuterCount is.
#[test]
fn template1_hardware_bug_case_is_unsupported() {
    for arch in Arch::ALL {
        for outer in [0, 1, 5] {
            for end1 in [NOP, END1] {
                let cfg = t1_cfg(outer, 0, NOP, END0, end1, LOOP, NOP, LAST0, LAST1);
                let mut m = expander(arch, cfg);
                let err = run(&mut m, &[mop(1, 0, 0)]).unwrap_err();
                assert_eq!(err.kind, FaultKind::Unsupported, "{arch} outer {outer}");
            }
        }
    }
    // A non-NOP LoopOp1 doubles a zero InnerCount to zero: still the bug case.
    let cfg = t1_cfg(1, 0, NOP, END0, NOP, LOOP, LOOP1, LAST0, LAST1);
    let mut m = expander(Arch::WormholeB0, cfg);
    assert!(run(&mut m, &[mop(1, 0, 0)]).is_err());
}

// OuterCount and InnerCount are the low 7 bits of MopCfg[0] / [1] on
// Wormhole and the low 10 bits on Blackhole. 0x82 -> 2 on Wormhole, 130 on
// Blackhole; 0x401 -> 1 on both.
#[test]
fn template1_count_widths() {
    let cfg = t1_cfg(0x82, 0x401, NOP, NOP, NOP, LOOP, NOP, LAST0, LAST1);
    for (arch, outer) in [(Arch::WormholeB0, 2), (Arch::Blackhole, 130)] {
        let mut m = expander(arch, cfg);
        let out = run(&mut m, &[mop(1, 0, 0)]).unwrap();
        let mut expect = vec![LAST1; outer - 1];
        expect.push(LAST0);
        assert_eq!(out, expect, "{arch}");
    }
}

// Blackhole: a template 1 MOP with non-zero bits [19:10] or [9:0] overrides
// a count, which is UnsupportedFunctionality. Wormhole's template 1 reads no
// instruction field.
#[test]
fn template1_instruction_count_overrides() {
    let cfg = t1_cfg(1, 1, NOP, NOP, NOP, LOOP, NOP, LAST0, LAST1);
    for word in [mop(1, 0, 1), mop(1, 0, 1 << 10), mop(1, 0xF, 0)] {
        let mut m = expander(Arch::Blackhole, cfg);
        let err = run(&mut m, &[word]).unwrap_err();
        assert_eq!(err.kind, FaultKind::Unsupported, "{word:#x}");
        let mut m = expander(Arch::WormholeB0, cfg);
        assert_eq!(run(&mut m, &[word]).unwrap(), [LAST0], "{word:#x}");
    }
    // Bits [22:20] are not an override field on Blackhole.
    let mut m = expander(Arch::Blackhole, cfg);
    assert_eq!(run(&mut m, &[mop(1, 0x70, 0)]).unwrap(), [LAST0]);
}

// OuterCount = 0 expands to nothing; the next instruction follows at once.
#[test]
fn empty_expansion_then_pass_through() {
    let cfg = t1_cfg(0, 3, START, END0, END1, LOOP, NOP, LAST0, LAST1);
    let mut m = expander(Arch::WormholeB0, cfg);
    assert_eq!(run(&mut m, &[mop(1, 0, 0), A0]).unwrap(), [A0]);
}

// Everything other than MOP and MOP_CFG passes through unchanged, NOPs and
// REPLAYs included.
#[test]
fn pass_through() {
    let mut m = MopExpander::new(Arch::WormholeB0);
    let words = [A0, NOP, 0x0400_0051, SFPNOP, 0xFFFF_FFFF, 0];
    assert_eq!(run(&mut m, &words).unwrap(), words);
    assert_eq!(run(&mut m, &[mop_cfg(0xABCD), B]).unwrap(), [B]);
    assert_eq!(m.mask_hi(), 0xABCD);
}

// The expansion is lazy: after the MOP is taken in, nothing more is pulled
// until the expansion has been emitted.
#[test]
fn expansion_is_lazy() {
    let mut m = expander(Arch::WormholeB0, t0_cfg(0));
    let mut fifo = VecDeque::from([mop(0, 2, 0), B]);
    let mut pulls = 0;
    let mut pull = |fifo: &mut VecDeque<u32>| {
        pulls += 1;
        Ok(fifo.pop_front())
    };
    assert_eq!(m.next(|| pull(&mut fifo)).unwrap(), Some(A0));
    assert!(m.is_expanding());
    assert_eq!(m.expansion().map(|e| e.remaining()), Some(2));
    assert_eq!(m.next(|| pull(&mut fifo)).unwrap(), Some(A0));
    assert_eq!(m.next(|| pull(&mut fifo)).unwrap(), Some(A0));
    assert!(!m.is_expanding());
    assert_eq!(fifo.len(), 1);
    assert_eq!(m.next(|| pull(&mut fifo)).unwrap(), Some(B));
    assert_eq!(m.next(|| pull(&mut fifo)).unwrap(), None);
    assert_eq!(pulls, 3);
}

// MOPExpander.md, Configuration: software should not change MopCfg while an
// expansion is in progress, as hardware samples it during the expansion.
#[test]
fn config_write_during_expansion_is_unpredictable() {
    let mut m = expander(Arch::WormholeB0, t0_cfg(0));
    let mut fifo = VecDeque::from([mop(0, 1, 0)]);
    assert_eq!(m.next(|| Ok(fifo.pop_front())).unwrap(), Some(A0));
    let err = m.set_config(3, B).unwrap_err();
    assert_eq!(err.kind, FaultKind::UnpredictableValue);
    assert_eq!(m.next(|| Ok(fifo.pop_front())).unwrap(), Some(A0));
    m.set_config(3, B).unwrap();
    assert_eq!(m.config()[3], B);
    assert!(m.set_config(9, 0).is_err());
}

// 127 outer iterations of StartOp, 2 * 127 loop instructions, EndOp0 and
// EndOp1 = 32639 on Wormhole; 1023 * (1 + 2046 + 2) = 2096127 on Blackhole.
#[test]
fn maximum_expansions() {
    assert_eq!(max_expansion_len(Arch::WormholeB0), 32639);
    assert_eq!(max_expansion_len(Arch::Blackhole), 2_096_127);
    let cfg = t1_cfg(!0, !0, START, END0, END1, LOOP, LOOP1, LAST0, LAST1);
    for arch in Arch::ALL {
        let e = MopExpansion::new(arch, &cfg, 0, mop(1, 0, 0)).unwrap();
        assert_eq!(e.total_len(), max_expansion_len(arch));
        assert_eq!(e.count() as u64, max_expansion_len(arch));
    }
    let e = MopExpansion::new(Arch::WormholeB0, &t0_cfg(3), 0, mop(0, 127, 0)).unwrap();
    assert_eq!(e.count(), 640);
}

fn small_count() -> impl Strategy<Value = u32> {
    // Small counts, with arbitrary bits above bit 10 that must be ignored.
    (0u32..24, any::<u32>()).prop_map(|(n, hi)| n | (hi & !0x3FF))
}

fn any_word() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        (1u32..=4, any::<u32>()).prop_map(|(op, w)| (op << 24) | (w & 0x00FF_FFFF)),
    ]
}

proptest! {
    /// Every MOP either faults as UnsupportedFunctionality or yields exactly
    /// `total_len` instructions, never more than the documented maximum.
    #[test]
    fn expansion_is_bounded(
        bh in any::<bool>(),
        outer in small_count(),
        inner in small_count(),
        ops in prop::array::uniform7(any_word()),
        mask_hi in any::<u32>(),
        word in any::<u32>(),
    ) {
        let arch = if bh { Arch::Blackhole } else { Arch::WormholeB0 };
        let cfg = [outer, inner, ops[0], ops[1], ops[2], ops[3], ops[4], ops[5], ops[6]];
        let word = (0x01 << 24) | (word & 0x00FF_FFFF);
        match MopExpansion::new(arch, &cfg, mask_hi, word) {
            Ok(e) => {
                let total = e.total_len();
                prop_assert!(total <= max_expansion_len(arch));
                prop_assert_eq!(e.size_hint(), (total as usize, Some(total as usize)));
                prop_assert_eq!(e.count() as u64, total);
            }
            Err(f) => prop_assert_eq!(f.kind, FaultKind::Unsupported),
        }
    }

    /// No instruction stream makes the expander panic, and it never emits
    /// more than the documented bound per instruction taken in.
    #[test]
    fn stream_never_panics(
        bh in any::<bool>(),
        cfg in prop::array::uniform9(any_word()),
        outer in small_count(),
        inner in small_count(),
        words in prop::collection::vec(any_word(), 0..24),
    ) {
        let arch = if bh { Arch::Blackhole } else { Arch::WormholeB0 };
        let mut cfg = cfg;
        cfg[0] = outer;
        cfg[1] = inner;
        let mut m = MopExpander::new(arch);
        for (i, v) in cfg.into_iter().enumerate() {
            m.set_config(i, v).unwrap();
        }
        let mut fifo: VecDeque<u32> = words.iter().copied().collect();
        let mut emitted = 0u64;
        loop {
            match m.next(|| Ok(fifo.pop_front())) {
                Ok(Some(_)) => emitted += 1,
                Ok(None) => break,
                Err(_) => break,
            }
        }
        prop_assert!(emitted <= words.len() as u64 * max_expansion_len(arch));
    }
}
