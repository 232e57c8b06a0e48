//! Reading `SrcA` and `SrcB` back on a device: no RISC-V path reads them,
//! so after the vector's programs TRISC2 moves each bank the vector expects
//! into a tile of `Dst` and the [`super::dst_readback`] packs that tile into
//! L1 beside the `Dst` rows.
//!
//! The move is `MOVA2D` (or, on Wormhole B0, `MOVB2D`) with the `SrcA`
//! format TF32 and denormal flushing off (`ALU_ACC_CTRL_Zero_Flag_disabled_src`),
//! which writes each 19-bit datum whole into `Dst32b`: sign, high seven
//! mantissa bits and exponent in the high half, the low three mantissa bits
//! in bits 15:13 (`MOVA2D.md`). The packer, reading `Dst32b` as FP32, gives
//! sign, exponent and ten mantissa bits followed by 13 zero bits: the
//! canonical cell shifted left by 13. On Blackhole the move would take the
//! format the bank was unpacked in, so the readback sets
//! `DISABLE_IMPLIED_SRCA_FMT_Base` (`MOVA2D.md` as of 545c98a; ttsim
//! `tensix.cpp` likewise). ttsim also narrows `MOVB2D`'s datums by the
//! `SrcB` format unless it is TF32, a step no ISA page has, so
//! `ALU_FORMAT_SPEC_REG1_SrcB` is TF32 too.
//!
//! A move waits until the matrix unit owns the bank it reads, and it reads
//! only the bank the matrix unit is on. So a bank can be read when the run
//! handed it over (`SetDatValid`): the matrix unit's current bank first,
//! then, after a `CLEARDVALID` gives that one back, the other. A bank the
//! unpackers still hold is not read: nothing but the unpackers could hand
//! it over, and that would be a write to the state under test.
//!
//! What is not read, and why, is said, never guessed: `SrcB` on Blackhole
//! (its `MOVB2D` takes the format of the bank's unpack, in ttsim, and its
//! modifier bits are in no stored page), banks the unpackers hold, banks
//! for which `Dst` has no free tile.

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
            let mut unread = |bank: u8, why: String| plan.unread.push((source, bank, why));
            if source == Source::B && arch == Arch::Blackhole {
                for &b in want {
                    unread(
                        b,
                        "MOVB2D on Blackhole takes the format its bank was unpacked in (ttsim) \
                         and its modifier bits are undocumented"
                            .into(),
                    );
                }
                continue;
            }
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
        let implied = T::DISABLE_IMPLIED_SRCA_FMT_Base
            .on(arch)
            .filter(|_| arch == Arch::Blackhole);
        let mut steps: Vec<Step> = words
            .iter()
            .map(|(&addr32, &value)| Step::Cfg { addr32, value })
            .collect();
        if let Some(f) = implied {
            steps.push(Step::Instruction(super::setc16(
                f.addr32 as u8,
                f.insert(0, 1) as u16,
            )));
        }
        let insn = |i: Instruction| Step::Instruction(isa::encode(arch, &i).unwrap_or(0));
        for r in &self.reads {
            if r.bank != self.held[r.source.index()].matrix_bank & 1 {
                // Give the matrix unit's first bank back (read just before,
                // or not wanted), which moves it to the other
                // (CLEARDVALID.md).
                steps.push(insn(Instruction::Cleardvalid(isa::Cleardvalid {
                    cleardvalid: if r.source == Source::A { 1 } else { 2 },
                    reset: 0,
                })));
            }
            // MOVA2D eight rows at a time (ttsim moves no fewer), MOVB2D
            // four (Move4Rows).
            let rows = if r.source == Source::A { 8 } else { 4 };
            steps.extend((0..64 / rows).map(|k| {
                let (src, dst) = (rows * k, u32::from(r.tile) * 64 + rows * k);
                insn(match r.source {
                    Source::A => Instruction::Mova2d(isa::Mova2d {
                        instr_mod: 2,
                        src,
                        dst,
                        ..Default::default()
                    }),
                    Source::B => Instruction::Movb2d(isa::Movb2d {
                        instr_mod: 4,
                        src,
                        dst,
                        ..Default::default()
                    }),
                })
            }));
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
        if let Some(f) = implied {
            steps.push(Step::Instruction(super::setc16(f.addr32 as u8, 0)));
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
                Limits { max_steps: 1 << 20 },
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
                let want = reg.banks[usize::from(r.bank)].rows[usize::from(row)].map(moved_word);
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
                    for b in rows.iter().flatten().map(|r| r.bank) {
                        let readable = source == Source::A || arch == Arch::WormholeB0;
                        assert_eq!(
                            rb.src
                                .reads
                                .iter()
                                .any(|r| r.source == source && r.bank == b),
                            readable,
                            "{arch} {} bank {b}: {:?}",
                            source.name(),
                            rb.src.unread
                        );
                    }
                }
            }
        }
        // Both architectures read SrcA; Wormhole B0 reads SrcB too.
        assert!(read[Arch::WormholeB0 as usize][0] > 0 && read[Arch::Blackhole as usize][0] > 0);
        assert!(read[Arch::WormholeB0 as usize][1] > 0, "{read:?}");
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
        }
        m
    }

    #[test]
    fn the_matrix_units_banks_are_read_in_turn_and_the_unpackers_are_not() {
        let both = SrcHandshake {
            matrix_owns: [true, true],
            matrix_bank: 1,
        };
        let second_only = SrcHandshake {
            matrix_owns: [false, true],
            matrix_bank: 1,
        };
        let current_not_handed = SrcHandshake {
            matrix_owns: [true, false],
            matrix_bank: 1,
        };
        // Banks read on Wormhole B0 and on Blackhole, where SrcB is not.
        for arch in [Arch::WormholeB0, Arch::Blackhole] {
            for (held, wanted, reads) in [
                // Both SrcA banks, then SrcB's current one.
                ([both, both], [vec![0, 1], vec![0]], [3, 2]),
                // SrcA's bank 0 after a CLEARDVALID; SrcB's bank 1 only.
                ([both, second_only], [vec![0], vec![1, 0]], [2, 1]),
                // No SrcA bank: the current one was never handed over.
                ([current_not_handed, both], [vec![0, 1], vec![1]], [1, 0]),
            ] {
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
            matrix_bank: 0,
        };
        let mut free = [5u16].into_iter();
        let plan = SrcPlan::new(Arch::WormholeB0, [vec![0, 1], vec![]], [both; 2], &mut free);
        assert_eq!(plan.reads.len(), 1);
        assert_eq!(plan.reads[0].tile, 5);
        assert_eq!(plan.unread.len(), 1);
        assert!(plan.unread[0].2.contains("no tile free"));
    }
}
