//! The MOP expander: the first stage of each Tensix thread's front end.
//!
//! It consumes `MOP_CFG` instructions (which set the high half of the
//! template 0 mask), replaces each `MOP` instruction with the sequence its
//! template describes, and passes every other instruction through unchanged.
//! Its output feeds the Replay Expander ([`super::replay`]).
//!
//! Sources, in tenstorrent/tt-isa-documentation:
//! - `WormholeB0/TensixTile/TensixCoprocessor/MOPExpander.md`, the revision
//!   shared with Blackhole (`BlackholeA0/.../MOPExpander.md` points at it and
//!   says the two differ). Its functional model has Blackhole's wider template 1
//!   counts, Blackhole's count overrides in the `MOP` instruction, and marks the
//!   template 1 "hardware bug" case `UnsupportedFunctionality`. An older
//!   Wormhole-only revision (also stored) described only the bug and did not
//!   mark it unsupported. This module follows the shared revision.
//! - `MOP.md` (stored only in the jasondavies/tt-isa-documentation fork) and
//!   `Diagrams/Src/Bits32.lua` for the `MOP` and `MOP_CFG` encodings:
//!   `MOP` = opcode 0x01, `MaskLo` `[15:0]`, `Count1` `[22:16]`, `Template` `[23]`;
//!   `MOP_CFG` = opcode 0x03, `MaskHi` `[15:0]`. These match the field names
//!   `zmask_lo16`, `loop_count`, `mop_type` and `zmask_hi16` in ttsim's table.
//!
//! # Front-end order
//!
//! Each Tensix thread's instructions pass through the MOP Expander, then the
//! Replay Expander, then the Wait Gate and the backend: `MOPExpander.md`
//! ("The MOP Expander sits at the start of the frontend of the Tensix
//! coprocessor, before the Replay Expander") and `REPLAY.md` ("after the MOP
//! Expander and before the Wait Gate"). A `MOP` expansion may contain
//! `REPLAY` instructions, which the Replay Expander then expands; a `REPLAY`
//! expansion cannot contain `MOP` instructions. RISC-V B pushes its
//! instructions after the MOP Expander (`MOP.md`), so they enter at the Replay
//! Expander.
//!
//! The expansion is lazy: [`MopExpander::next`] produces one instruction at a
//! time and pulls an incoming instruction only when it has nothing else to
//! emit, so a long expansion interleaves with the other threads. The two
//! stages compose as
//! `replay.next(|| mop.next(|| Ok(fifo.pop_front())))`.
//! Timing (the one-cycle transition penalty after an expansion) is not
//! modelled.

use crate::arch::Arch;
use crate::fault::{Fault, FaultKind, Result};

/// Opcode of `MOP`.
pub const OPCODE_MOP: u32 = 0x01;
/// Opcode of plain `NOP`, the only instruction template 1 treats as absent
/// (`IsNop` in `MOPExpander.md`; not `DMANOP` or `SFPNOP`).
pub const OPCODE_NOP: u32 = 0x02;
/// Opcode of `MOP_CFG`.
pub const OPCODE_MOP_CFG: u32 = 0x03;

/// Words of MOP configuration per thread (`MopCfg`, `uint32_t[9]` at
/// `TENSIX_MOP_CFG_BASE`).
pub const MOP_CFG_LEN: usize = 9;

/// The opcode of an instruction word: bits `[31:24]`.
pub fn opcode(word: u32) -> u32 {
    word >> 24
}

/// `IsNop` of `MOPExpander.md`.
pub fn is_nop(word: u32) -> bool {
    opcode(word) == OPCODE_NOP
}

/// The largest number of instructions one `MOP` can expand to.
///
/// Template 0 yields at most 5 instructions for each of at most 128
/// iterations: 640. Template 1 yields, per outer iteration, `StartOp`, twice
/// `InnerCount` loop instructions and two end instructions. With `OuterCount`
/// and `InnerCount` at their maxima that is 127 × (1 + 254 + 2) = 32639 on
/// Wormhole B0 (the figure `MOPExpander.md` quotes) and 1023 × (1 + 2046 + 2)
/// = 2096127 on Blackhole, whose counts are ten bits wide. The cases that
/// could exceed these (the hardware-bug path and Blackhole's count overrides)
/// are `UnsupportedFunctionality` and fault instead of expanding.
pub fn max_expansion_len(arch: Arch) -> u64 {
    let (outer, inner) = template1_count_masks(arch);
    let template1 = u64::from(outer) * (1 + 2 * u64::from(inner) + 2);
    template1.max(128 * 5)
}

fn template1_count_masks(arch: Arch) -> (u32, u32) {
    match arch {
        Arch::WormholeB0 => (127, 127),
        Arch::Blackhole => (1023, 1023),
    }
}

/// The expansion of one `MOP` instruction, as an iterator over the
/// instruction words it produces.
///
/// `MopCfg` and the mask are sampled when the expansion starts, as the
/// functional model shows. (Hardware samples `MopCfg` during the expansion;
/// [`MopExpander::set_config`] therefore refuses writes while one is in
/// progress.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MopExpansion {
    kind: Template,
    total: u64,
    emitted: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Template {
    Zero(Template0),
    One(Template1),
}

/// `ExpandTemplate0` of `MOPExpander.md`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Template0 {
    mask: u32,
    /// `Count1 + 1` iterations in all.
    iterations: u32,
    iteration: u32,
    /// Position within the current iteration's words.
    position: usize,
    has_b: bool,
    has_a123: bool,
    insn_b: u32,
    insn_a: [u32; 4],
    skip_a0: u32,
    skip_b: u32,
}

impl Template0 {
    /// The words of iteration `i`. `Mask` is shifted right once per
    /// iteration, so iterations from 32 on see a zero bit.
    fn iteration_words(&self, i: u32) -> ([u32; 5], usize) {
        let mut words = [0; 5];
        let mut n = 0;
        let mut push = |w: u32| {
            words[n] = w;
            n += 1;
        };
        let bit = self.mask.checked_shr(i).unwrap_or(0) & 1;
        if bit == 0 {
            push(self.insn_a[0]);
            if self.has_a123 {
                push(self.insn_a[1]);
                push(self.insn_a[2]);
                push(self.insn_a[3]);
            }
            if self.has_b {
                push(self.insn_b);
            }
        } else {
            push(self.skip_a0);
            if self.has_b {
                push(self.skip_b);
            }
        }
        (words, n)
    }

    fn total(&self) -> u64 {
        (0..self.iterations)
            .map(|i| self.iteration_words(i).1 as u64)
            .sum()
    }

    fn next(&mut self) -> Option<u32> {
        while self.iteration < self.iterations {
            let (words, n) = self.iteration_words(self.iteration);
            if self.position < n {
                self.position += 1;
                return Some(words[self.position - 1]);
            }
            self.iteration += 1;
            self.position = 0;
        }
        None
    }
}

/// Where template 1 is within one outer iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Start,
    Inner,
    End0,
    End1,
}

/// `ExpandTemplate1` of `MOPExpander.md`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Template1 {
    outer_count: u32,
    /// Already doubled when `LoopOp1` is not a `NOP`.
    inner_count: u32,
    start_op: u32,
    end_op0: u32,
    end_op1: u32,
    /// The current loop instruction: `LoopOp`, toggled towards `LoopOp1` by
    /// XOR with `flip` after every inner iteration.
    loop_op: u32,
    flip: u32,
    loop0_last: u32,
    loop1_last: u32,
    outer: u32,
    inner: u32,
    phase: Phase,
}

impl Template1 {
    fn total(&self) -> u64 {
        let start = u64::from(!is_nop(self.start_op));
        let end = if is_nop(self.end_op0) {
            0
        } else {
            1 + u64::from(!is_nop(self.end_op1))
        };
        u64::from(self.outer_count) * (start + u64::from(self.inner_count) + end)
    }

    fn next(&mut self) -> Option<u32> {
        while self.outer < self.outer_count {
            match self.phase {
                Phase::Start => {
                    self.phase = Phase::Inner;
                    self.inner = 0;
                    if !is_nop(self.start_op) {
                        return Some(self.start_op);
                    }
                }
                Phase::Inner => {
                    if self.inner < self.inner_count {
                        let word = if self.inner != self.inner_count - 1 {
                            self.loop_op
                        } else if self.outer != self.outer_count - 1 {
                            self.loop1_last
                        } else {
                            self.loop0_last
                        };
                        self.loop_op ^= self.flip;
                        self.inner += 1;
                        return Some(word);
                    }
                    self.phase = Phase::End0;
                }
                Phase::End0 => {
                    if is_nop(self.end_op0) {
                        self.outer += 1;
                        self.phase = Phase::Start;
                    } else {
                        self.phase = Phase::End1;
                        return Some(self.end_op0);
                    }
                }
                Phase::End1 => {
                    self.outer += 1;
                    self.phase = Phase::Start;
                    if !is_nop(self.end_op1) {
                        return Some(self.end_op1);
                    }
                }
            }
        }
        None
    }
}

impl MopExpansion {
    /// Start expanding the `MOP` instruction `word` with configuration `cfg`
    /// and the mask high half `mask_hi` last set by `MOP_CFG`.
    ///
    /// Template 0 (`Template` = 0): `Count1 + 1` iterations; iteration `i`
    /// looks at bit `i` of the 32-bit mask `(MaskHi << 16) + MaskLo`. A clear
    /// bit yields `InsnA0` (`MopCfg[3]`), then `InsnA1..3` (`MopCfg[4..=6]`)
    /// if `HasA123` (`MopCfg[1]` bit 1), then `InsnB` (`MopCfg[2]`) if `HasB`
    /// (`MopCfg[1]` bit 0). A set bit yields `SkipA0` (`MopCfg[7]`), then
    /// `SkipB` (`MopCfg[8]`) if `HasB`.
    ///
    /// Template 1 (`Template` = 1): `OuterCount` (`MopCfg[0]`) iterations of:
    /// `StartOp` (`MopCfg[2]`) unless it is a `NOP`; `InnerCount`
    /// (`MopCfg[1]`) inner iterations of `LoopOp` (`MopCfg[5]`), or, when
    /// `LoopOp1` (`MopCfg[6]`) is not a `NOP`, twice as many iterations
    /// alternating `LoopOp`, `LoopOp1`; the last inner iteration is replaced
    /// by `Loop0Last` (`MopCfg[7]`) in the last outer iteration and by
    /// `Loop1Last` (`MopCfg[8]`) in the others; then `EndOp0` (`MopCfg[3]`)
    /// unless it is a `NOP`, followed by `EndOp1` (`MopCfg[4]`) unless that
    /// is a `NOP`. The counts are the low 7 bits of their words on Wormhole
    /// B0 and the low 10 bits on Blackhole.
    ///
    /// Faults (`UnsupportedFunctionality` in `MOPExpander.md`):
    /// - template 1 with a `NOP` `StartOp`, no inner iterations and a non-`NOP`
    ///   `EndOp0` (the documented hardware bug that changes `OuterCount`);
    /// - on Blackhole, template 1 with a non-zero override field in the
    ///   instruction (bits `[19:10]` for `OuterCount`, `[9:0]` for `InnerCount`).
    ///
    /// On Wormhole B0 template 1 ignores the instruction's other fields, as
    /// the functional model reads none of them. (ttsim instead rejects
    /// template 1 with non-zero `zmask_lo16` or `loop_count`, and template 0
    /// with `loop_count > 31` or `MopCfg[1] > 3`; the documentation, which
    /// defines all of these, takes precedence.)
    pub fn new(
        arch: Arch,
        cfg: &[u32; MOP_CFG_LEN],
        mask_hi: u32,
        word: u32,
    ) -> Result<MopExpansion> {
        let template = (word >> 23) & 1;
        let kind = if template == 0 {
            let flags = cfg[1];
            Template::Zero(Template0 {
                mask: ((mask_hi & 0xFFFF) << 16) | (word & 0xFFFF),
                iterations: ((word >> 16) & 0x7F) + 1,
                iteration: 0,
                position: 0,
                has_b: flags & 1 != 0,
                has_a123: flags & 2 != 0,
                insn_b: cfg[2],
                insn_a: [cfg[3], cfg[4], cfg[5], cfg[6]],
                skip_a0: cfg[7],
                skip_b: cfg[8],
            })
        } else {
            Template::One(template1(arch, cfg, word)?)
        };
        let total = match &kind {
            Template::Zero(t) => t.total(),
            Template::One(t) => t.total(),
        };
        Ok(MopExpansion {
            kind,
            total,
            emitted: 0,
        })
    }

    /// Number of instructions the whole expansion yields.
    pub fn total_len(&self) -> u64 {
        self.total
    }

    /// Number of instructions still to come.
    pub fn remaining(&self) -> u64 {
        self.total - self.emitted
    }
}

fn template1(arch: Arch, cfg: &[u32; MOP_CFG_LEN], word: u32) -> Result<Template1> {
    let (outer_mask, inner_mask) = template1_count_masks(arch);
    let outer_count = cfg[0] & outer_mask;
    let mut inner_count = cfg[1] & inner_mask;
    if arch == Arch::Blackhole {
        let outer_override = (word >> 10) & 0x3FF;
        let inner_override = word & 0x3FF;
        if outer_override != 0 || inner_override != 0 {
            return Err(Fault::unsupported(format!(
                "MOP template 1 on Blackhole with count overrides (outer {outer_override}, \
                 inner {inner_override}) in instruction bits [19:10] / [9:0] is \
                 UnsupportedFunctionality (MOPExpander.md, Configuration): not validated"
            )));
        }
    }
    let (start_op, end_op0, end_op1) = (cfg[2], cfg[3], cfg[4]);
    let (loop_op, loop_op1) = (cfg[5], cfg[6]);
    let flip = if is_nop(loop_op1) {
        0
    } else {
        inner_count *= 2;
        loop_op ^ loop_op1
    };
    if is_nop(start_op) && inner_count == 0 && !is_nop(end_op0) {
        return Err(Fault::unsupported(
            "MOP template 1 with a NOP StartOp, no inner iterations and a non-NOP EndOp0 is \
             UnsupportedFunctionality (MOPExpander.md, functional model): a hardware bug \
             changes OuterCount in this case",
        ));
    }
    Ok(Template1 {
        outer_count,
        inner_count,
        start_op,
        end_op0,
        end_op1,
        loop_op,
        flip,
        loop0_last: cfg[7],
        loop1_last: cfg[8],
        outer: 0,
        inner: 0,
        phase: Phase::Start,
    })
}

impl Iterator for MopExpansion {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let word = match &mut self.kind {
            Template::Zero(t) => t.next(),
            Template::One(t) => t.next(),
        }?;
        self.emitted += 1;
        Some(word)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.remaining()).unwrap_or(usize::MAX);
        (n, Some(n))
    }
}

/// The MOP expander of one Tensix thread: its `MopCfg` words, the `MaskHi`
/// set by `MOP_CFG`, and the expansion in progress, if any.
///
/// Reset state: configuration and mask zero, no expansion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MopExpander {
    arch: Arch,
    cfg: [u32; MOP_CFG_LEN],
    mask_hi: u32,
    active: Option<MopExpansion>,
}

impl MopExpander {
    pub fn new(arch: Arch) -> MopExpander {
        MopExpander {
            arch,
            cfg: [0; MOP_CFG_LEN],
            mask_hi: 0,
            active: None,
        }
    }

    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// A RISC-V store to `TENSIX_MOP_CFG_BASE + 4 * index` (`MOPExpander.md`,
    /// Configuration). The range is write-only: a RISC-V load from it is
    /// `UndefinedBehavior`, which the caller decoding the load must raise.
    ///
    /// Writing while an expansion is in progress faults with
    /// `UnpredictableValue`: hardware samples `MopCfg` as the expansion
    /// proceeds, so the documentation tells software not to do this.
    pub fn set_config(&mut self, index: usize, value: u32) -> Result<()> {
        if index >= MOP_CFG_LEN {
            return Err(Fault::new(
                FaultKind::Unsupported,
                format!("MopCfg has {MOP_CFG_LEN} words; index {index} is outside it"),
            ));
        }
        if self.is_expanding() {
            return Err(Fault::unpredictable(format!(
                "MopCfg[{index}] written while a MOP expansion is in progress; hardware samples \
                 MopCfg during the expansion (MOPExpander.md, Configuration)"
            )));
        }
        self.cfg[index] = value;
        Ok(())
    }

    /// The current `MopCfg` words (for tests and state dumps; the hardware
    /// range is write-only).
    pub fn config(&self) -> &[u32; MOP_CFG_LEN] {
        &self.cfg
    }

    /// `MaskHi`, as last set by `MOP_CFG`.
    pub fn mask_hi(&self) -> u32 {
        self.mask_hi
    }

    /// Whether a `MOP` has been taken in and not all of its expansion emitted.
    pub fn is_expanding(&self) -> bool {
        self.active.as_ref().is_some_and(|e| e.remaining() > 0)
    }

    /// Whether the next [`MopExpander::next`] takes an incoming word at once:
    /// no expansion is held, not even a finished one.
    pub fn is_idle(&self) -> bool {
        self.active.is_none()
    }

    /// The expansion in progress, if any.
    pub fn expansion(&self) -> Option<&MopExpansion> {
        self.active.as_ref().filter(|e| e.remaining() > 0)
    }

    /// The next instruction this stage emits, pulling incoming instructions
    /// from `upstream` only as needed (`MOPExpander` in `MOPExpander.md`):
    ///
    /// - while an expansion is in progress, its next instruction, without
    ///   pulling anything;
    /// - otherwise the next incoming instruction: `MOP_CFG` sets `MaskHi` from
    ///   bits `[15:0]` and emits nothing (its other bits are ignored); `MOP`
    ///   starts an expansion; anything else is emitted unchanged.
    ///
    /// Instructions that emit nothing (a `MOP_CFG`, an empty expansion) are
    /// resolved within the call. Returns `Ok(None)` when `upstream` has
    /// nothing more and no expansion is in progress.
    pub fn next<F>(&mut self, mut upstream: F) -> Result<Option<u32>>
    where
        F: FnMut() -> Result<Option<u32>>,
    {
        loop {
            if let Some(expansion) = &mut self.active {
                if let Some(word) = expansion.next() {
                    return Ok(Some(word));
                }
                self.active = None;
            }
            let Some(word) = upstream()? else {
                return Ok(None);
            };
            match opcode(word) {
                OPCODE_MOP_CFG => self.mask_hi = word & 0xFFFF,
                OPCODE_MOP => {
                    self.active =
                        Some(MopExpansion::new(self.arch, &self.cfg, self.mask_hi, word)?);
                }
                _ => return Ok(Some(word)),
            }
        }
    }
}
