//! Reading `SrcA` and `SrcB` back on a device: no RISC-V path reads them,
//! so after the vector's programs TRISC2 moves each bank the vector expects
//! into a tile of `Dst` and the [`super::dst_readback`] packs that tile into
//! L1 beside the `Dst` rows.
//!
//! `SrcA` moves with `MOVA2D`, the `SrcA` format TF32 and denormal flushing
//! off (`ALU_ACC_CTRL_Zero_Flag_disabled_src`), which writes each 19-bit
//! datum whole into `Dst32b`: sign, high seven mantissa bits and exponent in
//! the high half, the low three mantissa bits in bits 15:13 (`MOVA2D.md`).
//! The packer, reading `Dst32b` as FP32, gives sign, exponent and ten
//! mantissa bits followed by 13 zero bits: the canonical cell shifted left
//! by 13. On Blackhole the move would take the format the bank was unpacked
//! in, so the readback sets `DISABLE_IMPLIED_SRCA_FMT_Base` (`MOVA2D.md` as
//! of 545c98a; ttsim `tensix.cpp` likewise).
//!
//! `SrcB` moves on Wormhole B0 with `MOVB2D` the same way (it too takes the
//! `SrcA` format). ttsim also narrows `MOVB2D`'s datums by the `SrcB`
//! format unless it is TF32, a step no ISA page has, so
//! `ALU_FORMAT_SPEC_REG1_SrcB` is TF32 too. On Blackhole no page gives
//! `MOVB2D`'s modifier bits, so `SrcB` goes through `SrcA`: `MOVB2A` copies
//! it, TF32 and unflushed (`DISABLE_IMPLIED_SRCB_FMT_Base` set), into the
//! matrix unit's `SrcA` bank, which `MOVA2D` then moves (`MOVB2A.md` as of
//! 1ae1f85, which covers Blackhole). `MOVB2A` does not wait for that `SrcA`
//! bank, but `MOVA2D` waits until the matrix unit owns it, so when the
//! unpackers hold it the readback hands it over with `UNPACR_NOP`s that clear
//! the unpacker's bank and set it valid (one, or two when the unpacker is on
//! the other bank), after every `SrcA` bank wanted was read.
//!
//! A move waits until the matrix unit owns the bank it reads, and it reads
//! only the bank the matrix unit is on. So a bank can be read when the run
//! handed it over (`SetDatValid`): the matrix unit's current bank first,
//! then, after a `CLEARDVALID` gives that one back, the other. A bank the
//! unpackers still hold is not read: nothing but the unpackers could hand
//! it over, and that would be a write to the state under test.
//!
//! What is not read, and why, is said, never guessed: banks the unpackers
//! hold, `SrcB` on Blackhole when no `SrcA` bank can be handed to the
//! matrix unit, banks for which `Dst` has no free tile.

use crate::vector::Step;
use std::collections::BTreeMap;
use tensix_emu::isa::{self, Instruction};
use tensix_emu::regs::{CfgField as C, ThreadCfgField as T};
use tensix_emu::Arch;

/// `SrcA` or `SrcB`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    A,
    B,
}

impl Source {
    pub const BOTH: [Source; 2] = [Source::A, Source::B];

    /// The vector schema's name: `srca` or `srcb`.
    pub fn name(self) -> &'static str {
        match self {
            Source::A => "srca",
            Source::B => "srcb",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The FP32 word the packer writes for a cell the readback moved: the
/// canonical cell (sign 18, exponent 17:10, mantissa 9:0) above 13 zero bits.
pub fn moved_word(cell: u32) -> u32 {
    cell << 13
}

/// The cells a row of such words holds, or the first word whose low 13
/// bits are set, which no move writes.
pub fn moved_cells(words: &[u32; 16]) -> Result<[u32; 16], u32> {
    match words.iter().find(|w| **w & 0x1fff != 0) {
        Some(&w) => Err(w),
        None => Ok(words.map(|w| w >> 13)),
    }
}

/// Who holds a `Src` register's banks when the run ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SrcHandshake {
    /// Per bank, whether the matrix unit owns it (`AllowedClient`).
    pub matrix_owns: [bool; 2],
    /// The bank the matrix unit reads (`MatrixUnit.SrcABank` / `SrcBBank`).
    pub matrix_bank: u8,
    /// The bank the unpacker writes (`Unpackers[i].SrcBank`).
    pub unpacker_bank: u8,
}

impl SrcHandshake {
    /// Whether the readback gives the matrix unit's first bank back
    /// (`CLEARDVALID`, which moves it to the other) before reading `bank`:
    /// when `bank` is not that first one.
    fn clears_before(self, bank: u8) -> bool {
        bank != self.matrix_bank & 1
    }

    /// After the readback's moves read `banks` in turn.
    fn after_reading(mut self, mut banks: impl Iterator<Item = u8>) -> SrcHandshake {
        let first = self.matrix_bank & 1;
        if banks.any(|bank| self.clears_before(bank)) {
            self.matrix_owns[usize::from(first)] = false;
            self.matrix_bank = first ^ 1;
        }
        self
    }

    /// How many `UNPACR_NOP`s that clear the unpacker's bank and set it
    /// valid make the matrix unit own the bank it is on: none if it does,
    /// one if the unpacker is on that bank, two if the unpacker's own bank
    /// must go first. `None` when that bank is the matrix unit's, which the
    /// first `UNPACR_NOP` would wait for in vain.
    fn handovers(self) -> Option<u8> {
        let (matrix, unpacker) = (self.matrix_bank & 1, self.unpacker_bank & 1);
        if self.matrix_owns[usize::from(matrix)] {
            Some(0)
        } else if unpacker == matrix {
            Some(1)
        } else if !self.matrix_owns[usize::from(unpacker)] {
            Some(2)
        } else {
            None
        }
    }
}

/// One bank moved into `Dst` tile `tile` (`Dst32b` rows `64 * tile` on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BankRead {
    pub source: Source,
    pub bank: u8,
    pub tile: u16,
}

/// The readback of every bank asked for: the banks read in the order the
/// moves read them, and those that cannot be, with the reason.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SrcPlan {
    pub reads: Vec<BankRead>,
    pub unread: Vec<(Source, u8, String)>,
    /// Who holds the banks when the run ends, which the moves start from.
    pub held: [SrcHandshake; 2],
    /// Blackhole: the `UNPACR_NOP`s that hand the matrix unit's `SrcA` bank
    /// over before `SrcB` passes through it.
    pub srca_handovers: u8,
}

impl SrcPlan {
    /// Read the banks `wanted[s]` of each source, given who holds them
    /// (`held[s]`), into the tiles of `Dst` `free` lists, in order.
    pub fn new(
        arch: Arch,
        wanted: [Vec<u8>; 2],
        held: [SrcHandshake; 2],
        free: &mut dyn Iterator<Item = u16>,
    ) -> SrcPlan {
        let mut plan = SrcPlan {
            held,
            ..SrcPlan::default()
        };
        for source in Source::BOTH {
            let want = &wanted[source.index()];
            if want.is_empty() {
                continue;
            }
            let h = held[source.index()];
            let handovers = if source == Source::B && arch == Arch::Blackhole {
                let a = plan.reads.iter().filter(|r| r.source == Source::A);
                held[Source::A.index()]
                    .after_reading(a.map(|r| r.bank))
                    .handovers()
            } else {
                Some(0)
            };
            let mut unread = |bank: u8, why: String| plan.unread.push((source, bank, why));
            let Some(handovers) = handovers else {
                for &b in want {
                    unread(
                        b,
                        "SrcB passes through SrcA on Blackhole, and the matrix unit's SrcA bank \
                         is the unpackers' while the unpacker's is the matrix unit's: no \
                         UNPACR_NOP can hand it over"
                            .into(),
                    );
                }
                continue;
            };
            let first = h.matrix_bank & 1;
            let mut order = Vec::new();
            for bank in [first, first ^ 1] {
                if !want.contains(&bank) {
                    continue;
                }
                if !h.matrix_owns[usize::from(first)] || !h.matrix_owns[usize::from(bank)] {
                    unread(
                        bank,
                        format!(
                            "the unpackers still hold {} bank {} (no SetDatValid handed it to \
                             the matrix unit), so no move can read it",
                            source.name(),
                            if h.matrix_owns[usize::from(first)] {
                                bank
                            } else {
                                first
                            }
                        ),
                    );
                    continue;
                }
                order.push(bank);
            }
            for bank in order {
                match free.next() {
                    Some(tile) => plan.reads.push(BankRead { source, bank, tile }),
                    None => unread(bank, "Dst has no tile free to move it into".into()),
                }
            }
            if plan.reads.iter().any(|r| r.source == source) {
                plan.srca_handovers = handovers;
            }
        }
        plan
    }

    /// TRISC2's steps: set up the moves, move each bank (the other bank
    /// after a `CLEARDVALID` gives back the matrix unit's current one),
    /// wait for the matrix unit to finish, and put the setup back to zero.
    /// The Config and ThreadConfig words touched are zero before (the
    /// readback clears what the run leaves set).
    pub fn steps(&self, arch: Arch) -> Vec<Step> {
        if self.reads.is_empty() {
            return Vec::new();
        }
        let mut words: BTreeMap<u32, u32> = BTreeMap::new();
        let tf32 = u32::from(tensix_emu::format::DataFormat::Tf32.code());
        for (field, value) in [
            (C::ALU_FORMAT_SPEC_REG0_SrcA, tf32),
            (C::ALU_FORMAT_SPEC_REG1_SrcB, tf32),
            (C::ALU_ACC_CTRL_Zero_Flag_disabled_src, 1),
        ] {
            if let Some(f) = field.on(arch) {
                let w = words.entry(u32::from(f.addr32)).or_insert(0);
                *w = f.insert(*w, value);
            }
        }
        // Blackhole: the formats above, not the banks' implied ones.
        let implied: Vec<_> = [
            T::DISABLE_IMPLIED_SRCA_FMT_Base,
            T::DISABLE_IMPLIED_SRCB_FMT_Base,
        ]
        .into_iter()
        .filter_map(|t| t.on(arch))
        .filter(|_| arch == Arch::Blackhole)
        .collect();
        let mut steps: Vec<Step> = words
            .iter()
            .map(|(&addr32, &value)| Step::Cfg { addr32, value })
            .collect();
        for f in &implied {
            steps.push(Step::Instruction(super::setc16(
                f.addr32,
                f.insert(0, 1) as u16,
            )));
        }
        let insn = |i: Instruction| Step::Instruction(isa::encode(arch, &i).unwrap_or(0));
        // One move per `rows` rows of a 64-row bank, `make` given its first.
        let moves = |rows: u32, make: &dyn Fn(u32) -> Instruction| -> Vec<Step> {
            (0..64 / rows).map(|k| insn(make(rows * k))).collect()
        };
        let through_srca = arch == Arch::Blackhole;
        let first_b = self.reads.iter().position(|r| r.source == Source::B);
        for (j, r) in self.reads.iter().enumerate() {
            if Some(j) == first_b {
                // Clear the unpacker's SrcA bank and give it to the matrix
                // unit, waiting as UNPACR does for the unpackers to own it
                // (tt-llk `p_unpacr_nop`; ttsim `TENSIX_EXECUTE_UNPACR_NOP`).
                let handover = Instruction::UnpacrNop(isa::UnpacrNop {
                    unpack_pop: 1,
                    stall_clr_cntrl: 1,
                    set_dvalid: 1,
                    ..Default::default()
                });
                steps.extend((0..self.srca_handovers).map(|_| insn(handover)));
            }
            if self.held[r.source.index()].clears_before(r.bank) {
                // Give the matrix unit's first bank back (read just before,
                // or not wanted), which moves it to the other
                // (CLEARDVALID.md).
                steps.push(insn(Instruction::Cleardvalid(isa::Cleardvalid {
                    cleardvalid: if r.source == Source::A { 1 } else { 2 },
                    reset: 0,
                })));
            }
            if r.source == Source::B && through_srca {
                // MOVB2A four rows at a time (Move4Rows; ttsim moves no
                // fewer) into the matrix unit's SrcA bank.
                steps.extend(moves(4, &|row| {
                    Instruction::Movb2a(isa::Movb2a {
                        srcb: row,
                        instr_mod: 2,
                        srca: row,
                        ..Default::default()
                    })
                }));
            }
            let tile = u32::from(r.tile) * 64;
            if r.source == Source::A || through_srca {
                // MOVA2D eight rows at a time (ttsim moves no fewer).
                steps.extend(moves(8, &|row| {
                    Instruction::Mova2d(isa::Mova2d {
                        instr_mod: 2,
                        src: row,
                        dst: tile + row,
                        ..Default::default()
                    })
                }));
            } else {
                // MOVB2D four rows at a time (Move4Rows).
                steps.extend(moves(4, &|row| {
                    Instruction::Movb2d(isa::Movb2d {
                        instr_mod: 4,
                        src: row,
                        dst: tile + row,
                        ..Default::default()
                    })
                }));
            }
        }
        // STALLWAIT: block everything until this thread has nothing in the
        // matrix unit's pipeline (C7 on Wormhole B0, `STALLWAIT.md`; C4 on
        // Blackhole, tt-llk `p_stall::MATH`), then a NOP that waits on it, so
        // the queue drains only once every move is done.
        let math_idle = match arch {
            Arch::WormholeB0 => 1 << 7,
            Arch::Blackhole => 1 << 4,
        };
        steps.push(insn(Instruction::Stallwait(isa::Stallwait {
            wait_res: math_idle,
            stall_res: 0x1ff,
        })));
        steps.push(insn(Instruction::Nop(isa::Nop::default())));
        steps.extend(words.keys().map(|&addr32| Step::Cfg { addr32, value: 0 }));
        for f in &implied {
            steps.push(Step::Instruction(super::setc16(f.addr32, 0)));
        }
        steps
    }
}

#[cfg(test)]
mod tests {
    use super::super::dst_readback::DstReadback;
    use super::super::{plan_readback, RunFacts};
    use super::*;
    use crate::diff::{emulator_run, Case, EmulatorRun, Jobs};
    use crate::engine::emulator_facts;
    use crate::run::{self, Workbench};
    use crate::vector::Vector;
    use tensix_emu::state::dst::DstAddressing;
    use tensix_emu::state::SrcClient;
    use tensix_emu::{Limits, Machine, ThreadProgram};

    /// Run the readback's steps on thread 2 of `m`; every bank it reads
    /// must read back as `m` held it, every cell shifted left by 13.
    fn read_back(m: &Machine, rb: &DstReadback, steps: Vec<Step>) -> usize {
        let mut after = m.clone();
        after
            .run(
                &[ThreadProgram { thread: 2, steps }],
                Limits::steps(1 << 20),
            )
            .unwrap_or_else(|f| panic!("the readback faults: {f}"));
        let seen = rb.read_src(after.l1.bytes()).unwrap();
        for r in &rb.src.reads {
            let reg = if r.source == Source::A {
                &m.srca
            } else {
                &m.srcb
            };
            for row in 0..64u8 {
                let want = reg.banks[usize::from(r.bank)].rows()[usize::from(row)].map(moved_word);
                assert_eq!(seen.row(r.source, r.bank, row), Ok(want), "{r:?} row {row}");
            }
        }
        seen.banks.len()
    }

    /// The emulator's result of `v`, with `expect` naming the Src rows the
    /// run changed.
    fn expected(v: &Vector) -> Option<Vector> {
        match emulator_run(&mut Workbench::new(), v) {
            EmulatorRun::Expected(e) if e.expect.fault.is_none() => Some(*e),
            _ => None,
        }
    }

    #[test]
    fn unpack_jobs_read_their_src_banks_back_on_the_emulator() {
        let mut read = [[0usize; 2]; 2];
        for arch in [Arch::WormholeB0, Arch::Blackhole] {
            for i in 0..40 {
                let Some(case) = Case::draw(Jobs::Unpack, 7, i, &[arch]) else {
                    continue;
                };
                let Some(v) = expected(&case.vector("job")) else {
                    continue;
                };
                let run: RunFacts = emulator_facts(&v).unwrap();
                let Ok(Some((rb, steps))) = plan_readback(&v, &run, &run.touched) else {
                    continue;
                };
                let before = run::prepare(&v).unwrap();
                let (m, fault) = run::execute(&v, &before);
                assert_eq!(fault, None);
                assert_eq!(read_back(&m, &rb, steps), rb.src.reads.len());
                for (source, rows) in [(Source::A, &v.expect.srca), (Source::B, &v.expect.srcb)] {
                    read[arch as usize][source.index()] +=
                        rb.src.reads.iter().filter(|r| r.source == source).count();
                    // A tile job hands its one bank to the matrix unit, so
                    // every bank it expects can be read.
                    for b in rows.iter().flatten().map(|r| r.bank) {
                        assert!(
                            rb.src
                                .reads
                                .iter()
                                .any(|r| r.source == source && r.bank == b),
                            "{arch} {} bank {b}: {:?}",
                            source.name(),
                            rb.src.unread
                        );
                    }
                }
            }
        }
        // Both architectures read SrcA and SrcB.
        assert!(read.iter().flatten().all(|&n| n > 0), "{read:?}");
    }

    /// A machine whose Src banks hold distinct cells, with `held` as the
    /// handshake state.
    fn holding(arch: Arch, held: [SrcHandshake; 2]) -> Machine {
        let mut m = Machine::new(arch);
        for (k, (reg, h)) in [&mut m.srca, &mut m.srcb].into_iter().zip(held).enumerate() {
            for bank in 0..2 {
                for row in 0..64 {
                    for col in 0..16 {
                        let c = (k << 17) ^ (bank << 16) ^ ((row * 16 + col) * 2654435761);
                        reg.write(bank, row, col, c as u32);
                    }
                }
                reg.banks[bank].allowed_client = if h.matrix_owns[bank] {
                    SrcClient::MatrixUnit
                } else {
                    SrcClient::Unpackers
                };
            }
            reg.matrix_bank = usize::from(h.matrix_bank);
            reg.unpacker_bank = usize::from(h.unpacker_bank);
        }
        m
    }

    #[test]
    fn the_matrix_units_banks_are_read_in_turn_and_the_unpackers_are_not() {
        let held = |matrix_owns, matrix_bank, unpacker_bank| SrcHandshake {
            matrix_owns,
            matrix_bank,
            unpacker_bank,
        };
        let both = held([true, true], 1, 0);
        let second_only = held([false, true], 1, 0);
        // The matrix unit's bank 1 not handed over; the unpacker on it, or
        // on bank 0, which the matrix unit owns.
        let current_not_handed = held([true, false], 1, 1);
        let stuck = held([true, false], 1, 0);
        // Neither bank handed over; the unpacker on the other one.
        let none = held([false, false], 1, 0);
        // The banks read on Wormhole B0 and on Blackhole, where SrcB passes
        // through SrcA and needs the matrix unit to own a SrcA bank.
        for (held, wanted, reads) in [
            // Both SrcA banks, then SrcB's current one.
            ([both, both], [vec![0, 1], vec![0]], [3, 3]),
            // SrcA's bank 0 after a CLEARDVALID; SrcB's bank 1 only.
            ([both, second_only], [vec![0], vec![1, 0]], [2, 2]),
            // No SrcA bank: the current one was never handed over. SrcB
            // on Blackhole after one UNPACR_NOP hands it over.
            ([current_not_handed, both], [vec![0, 1], vec![1]], [1, 1]),
            // ... or after two, the unpacker's bank first.
            ([none, both], [vec![], vec![0, 1]], [2, 2]),
            // ... or not at all: the unpacker's bank is the matrix unit's.
            ([stuck, both], [vec![], vec![1]], [1, 0]),
        ] {
            for arch in [Arch::WormholeB0, Arch::Blackhole] {
                let mut free = 0..8;
                let plan = SrcPlan::new(arch, wanted.clone(), held, &mut free);
                let m = holding(arch, held);
                let rb = DstReadback {
                    at: 0x10000,
                    tiles: Vec::new(),
                    addressing: DstAddressing::default(),
                    src: plan,
                };
                let steps = rb.steps(arch, &[], &[]).unwrap();
                let want = reads[usize::from(arch == Arch::Blackhole)];
                assert_eq!(
                    rb.src.reads.len(),
                    want,
                    "{arch} {held:?}: {:?}",
                    rb.src.unread
                );
                assert_eq!(read_back(&m, &rb, steps), want, "{arch} {held:?}");
                assert_eq!(
                    rb.src.reads.len() + rb.src.unread.len(),
                    wanted.iter().map(Vec::len).sum::<usize>()
                );
            }
        }
    }

    #[test]
    fn banks_beyond_the_free_tiles_are_named() {
        let both = SrcHandshake {
            matrix_owns: [true, true],
            ..SrcHandshake::default()
        };
        let mut free = [5u16].into_iter();
        let plan = SrcPlan::new(Arch::WormholeB0, [vec![0, 1], vec![]], [both; 2], &mut free);
        assert_eq!(plan.reads.len(), 1);
        assert_eq!(plan.reads[0].tile, 5);
        assert_eq!(plan.unread.len(), 1);
        assert!(plan.unread[0].2.contains("no tile free"));
    }
}
