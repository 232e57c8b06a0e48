//! The Tensix front end and scheduler: per-thread instruction streams, the
//! MOP and REPLAY expanders, the Wait Gate, and dispatch to the backend
//! units.
//!
//! Threads advance together, one action per thread per step, in thread order
//! 0, 1, 2. An action is one of: a TRISC store (once the thread has nothing
//! in flight), one word taken in by the front end, or one instruction
//! executed. An instruction executes to completion in the step that issues
//! it. A thread whose next instruction must wait (behind a latched
//! `STALLWAIT`/`SEMWAIT`, or for a SrcA/SrcB bank) keeps it and tries again
//! next step. A step in which no thread moves while one still has work is a
//! [`FaultKind::Deadlock`](crate::FaultKind::Deadlock).

pub mod config_unit;
pub mod frontend;
pub mod mop;
pub mod replay;
pub mod sync_unit;
pub mod wait_gate;

use crate::adc::{AdcPairFields, SetAdcFields, SetAdcXxFields};
use crate::fault::{Fault, FaultKind, Result};
use crate::isa::{self, Instruction};
use crate::machine::Machine;
use crate::regs::{CfgField, Config, THREADS};
use crate::state::dst::DstAddressing;
use wait_gate::{LatchedWait, Observed};

/// One entry of a thread's program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// A Tensix instruction word (opcode in bits [31:24]).
    Instruction(u32),
    /// A TRISC store of a Config word, to the thread's current Config state.
    Cfg { addr32: u32, value: u32 },
    /// A TRISC store of one of the thread's GPRs.
    Gpr { index: u32, value: u32 },
}

/// The program of one thread.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadProgram {
    pub thread: usize,
    pub steps: Vec<Step>,
}

/// Bounds on a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Scheduler steps before the run stops with `ResourceLimit`.
    pub max_steps: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_steps: 10_000_000,
        }
    }
}

/// What a run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    pub steps: u64,
    pub instructions: u64,
}

/// Whether an instruction could start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Issue {
    Done,
    /// The instruction must wait; it stays at the head of its thread.
    Wait,
}

/// The Dst addressing Config `state` selects.
pub fn dst_addressing(cfg: &Config, state: usize) -> DstAddressing {
    DstAddressing {
        remap_addrs: cfg.get(state, CfgField::DEST_ACCESS_CFG_remap_addrs) != 0,
        swizzle_32b: cfg.get(state, CfgField::DEST_ACCESS_CFG_swizzle_32b) != 0,
    }
}

/// The operand fields shared by the six XY/ZW ADC instructions.
macro_rules! adc_pair {
    ($i:expr) => {
        AdcPairFields {
            bit_mask: $i.bit_mask,
            ..adc_pair!($i, no_mask)
        }
    };
    ($i:expr, no_mask) => {
        AdcPairFields {
            cnt_set_mask: $i.cnt_set_mask,
            thread_override: $i.thread_override,
            ch0_x: $i.ch0_x,
            ch0_y: $i.ch0_y,
            ch1_x: $i.ch1_x,
            ch1_y: $i.ch1_y,
            bit_mask: 0,
        }
    };
}

/// One instruction at a thread's Wait Gate, with the program entry it came
/// from (a MOP's entry for the words it expands to).
#[derive(Clone, Copy, Debug)]
struct Pending {
    insn: Instruction,
    entry: usize,
}

#[derive(Debug, Default)]
struct ThreadRun<'p> {
    steps: Vec<&'p Step>,
    next: usize,
    /// Program entry of the word the front end is working on.
    entry: usize,
    pending: Option<Pending>,
    wait: Option<LatchedWait>,
}

/// What one thread did in one step.
#[derive(PartialEq, Eq)]
enum Moved {
    Yes,
    Blocked,
    Finished,
}

impl Machine {
    /// Run the programs together until every thread has drained, or a fault.
    pub fn run(&mut self, programs: &[ThreadProgram], limits: Limits) -> Result<RunStats> {
        self.packer.begin_run();
        let result = self.run_threads(programs, limits);
        self.packer.end_run();
        result
    }

    fn run_threads(&mut self, programs: &[ThreadProgram], limits: Limits) -> Result<RunStats> {
        let mut threads: [ThreadRun<'_>; THREADS] = Default::default();
        for p in programs {
            let t = threads.get_mut(p.thread).ok_or_else(|| {
                Fault::unsupported(format!(
                    "there is no Tensix thread {} (threads are 0, 1 and 2)",
                    p.thread
                ))
            })?;
            t.steps.extend(p.steps.iter());
        }
        let mut stats = RunStats::default();
        loop {
            let mut moved = false;
            let mut busy = false;
            for (t, run) in threads.iter_mut().enumerate() {
                match self.advance(t, run, &mut stats)? {
                    Moved::Yes => {
                        moved = true;
                        busy = true;
                    }
                    Moved::Blocked => busy = true,
                    Moved::Finished => {}
                }
            }
            if !busy {
                return Ok(stats);
            }
            stats.steps += 1;
            if !moved {
                let who: Vec<String> = threads
                    .iter()
                    .enumerate()
                    .filter_map(|(t, r)| r.pending.map(|p| format!("thread {t} at {}", p.insn)))
                    .collect();
                let first = threads
                    .iter()
                    .position(|r| r.pending.is_some())
                    .unwrap_or(0);
                let entry = threads[first].pending.map_or(0, |p| p.entry);
                return Err(Fault::new(
                    FaultKind::Deadlock,
                    format!("no thread can make progress: {}", who.join("; ")),
                )
                .at(first as u8, entry));
            }
            if stats.steps >= limits.max_steps {
                return Err(Fault::new(
                    FaultKind::ResourceLimit,
                    format!("step budget of {} exhausted", limits.max_steps),
                ));
            }
        }
    }

    /// One action of thread `t`.
    fn advance(
        &mut self,
        t: usize,
        run: &mut ThreadRun<'_>,
        stats: &mut RunStats,
    ) -> Result<Moved> {
        if run.pending.is_none() {
            let ThreadRun {
                steps, next, entry, ..
            } = run;
            let fetched = self.frontends[t].next(|| match steps.get(*next) {
                Some(Step::Instruction(w)) => {
                    *entry = *next;
                    *next += 1;
                    Some(*w)
                }
                _ => None,
            });
            match fetched.map_err(|f| f.at(t as u8, run.entry))? {
                Some(w) => {
                    let insn = isa::decode(self.arch(), w).map_err(|f| f.at(t as u8, run.entry))?;
                    run.pending = Some(Pending {
                        insn,
                        entry: run.entry,
                    });
                }
                // The front end has drained; a TRISC store may go now.
                None => {
                    let Some(step) = run.steps.get(run.next).copied() else {
                        return Ok(Moved::Finished);
                    };
                    run.entry = run.next;
                    run.next += 1;
                    self.trisc_store(t, step)
                        .map_err(|f| f.at(t as u8, run.entry))?;
                    return Ok(Moved::Yes);
                }
            }
        }
        let Some(p) = run.pending else {
            return Ok(Moved::Finished);
        };
        if let Some(wait) = run.wait {
            let seen = Observed {
                arch: self.arch(),
                srca: &self.srca,
                srcb: &self.srcb,
                semaphores: &self.semaphores,
            };
            if wait_gate::conditions_met(wait, &seen) {
                run.wait = None;
            } else if wait.holds(p.insn.opcode()) {
                return Ok(Moved::Blocked);
            }
        }
        match self
            .execute(t, run, &p.insn)
            .map_err(|f| f.at(t as u8, p.entry))?
        {
            Issue::Done => {
                run.pending = None;
                stats.instructions += 1;
                self.issued += 1;
                Ok(Moved::Yes)
            }
            Issue::Wait => Ok(Moved::Blocked),
        }
    }

    /// Execute one instruction that passed the Wait Gate.
    fn execute(&mut self, t: usize, run: &mut ThreadRun<'_>, insn: &Instruction) -> Result<Issue> {
        use Instruction as I;
        match insn {
            I::Nop(_) | I::Dmanop(_) => {}
            I::Wrcfg(i) => {
                config_unit::wrcfg(&mut self.config, &self.thread_config, &self.gprs, t, i)?
            }
            I::Rdcfg(i) => {
                config_unit::rdcfg(&self.config, &self.thread_config, &mut self.gprs, t, i)?
            }
            I::Rmwcib0(i) => self.rmwcib(t, 0, i.cfg_reg_addr, i.data, i.mask)?,
            I::Rmwcib1(i) => self.rmwcib(t, 1, i.cfg_reg_addr, i.data, i.mask)?,
            I::Rmwcib2(i) => self.rmwcib(t, 2, i.cfg_reg_addr, i.data, i.mask)?,
            I::Rmwcib3(i) => self.rmwcib(t, 3, i.cfg_reg_addr, i.data, i.mask)?,
            I::Setc16(i) => config_unit::setc16(&mut self.thread_config, t, i)?,
            I::Setdmareg(i) => {
                if i.set_signals_mode != 0 {
                    return Err(Fault::unimplemented(
                        "SETDMAREG with SetSignalsMode (reading packer/unpacker signals) is not modelled",
                    ));
                }
                // SETDMAREG (immediate form): ResultHalfReg [6:0] gets NewValue [23:8].
                let value = i.payload_sig_sel | (i.payload_sig_sel_size << 14);
                self.gprs
                    .set_half(t, i.reg_index_16b as usize, value as u16);
            }
            I::Stallwait(i) => {
                if run.wait.is_some() {
                    return Ok(Issue::Wait);
                }
                // STALLWAIT.md: a zero mask means C0..C3 / B6.
                let conditions = if i.wait_res == 0 {
                    0x0f
                } else {
                    i.wait_res as u16
                };
                let block = if i.stall_res == 0 {
                    1 << 6
                } else {
                    i.stall_res as u16
                };
                run.wait = Some(LatchedWait::Stall { conditions, block });
            }
            I::Semwait(i) => {
                if run.wait.is_some() {
                    return Ok(Issue::Wait);
                }
                if i.wait_sem_cond == 0 {
                    return Err(Fault::undefined(
                        "SEMWAIT with ConditionMask 0 (SEMWAIT.md)",
                    ));
                }
                let block = if i.stall_res == 0 {
                    1 << 6
                } else {
                    i.stall_res as u16
                };
                run.wait = Some(LatchedWait::Semaphore {
                    conditions: i.wait_sem_cond as u8,
                    semaphores: i.sem_sel as u8,
                    block,
                });
            }
            I::Seminit(i) => self.semaphores.init(i.sem_sel, i.init_value, i.max_value),
            I::Sempost(i) => self.semaphores.post(i.sem_sel),
            I::Semget(i) => self.semaphores.get_dec(i.sem_sel),
            I::Setadc(i) => self.adcs.setadc(
                t,
                SetAdcFields {
                    cnt_set_mask: i.cnt_set_mask,
                    channel_index: i.channel_index,
                    dimension_index: i.dimension_index,
                    value: i.value,
                },
            )?,
            I::Setadcxx(i) => self.adcs.setadcxx(
                t,
                SetAdcXxFields {
                    cnt_set_mask: i.cnt_set_mask,
                    x_start: i.x_start,
                    x_end2: i.x_end2,
                },
            )?,
            I::Setadcxy(i) => self.adcs.setadcxy(t, adc_pair!(i))?,
            I::Setadczw(i) => self.adcs.setadczw(t, adc_pair!(i))?,
            I::Addrcrxy(i) => self.adcs.addrcrxy(t, adc_pair!(i))?,
            I::Addrcrzw(i) => self.adcs.addrcrzw(t, adc_pair!(i))?,
            I::Incadcxy(i) => self.adcs.incadcxy(t, adc_pair!(i, no_mask))?,
            I::Incadczw(i) => self.adcs.incadczw(t, adc_pair!(i, no_mask))?,
            I::Pacr(i) => crate::pack::pacr(self, t, i)?,
            // CLREXPHIST.md: reset the exponent histogram of every packer.
            I::Clrexphist(_) => self.packer.clear_exponent_histograms(),
            I::Unpacr(i) => return crate::unpack::unpacr(self, t, i),
            I::UnpacrNop(i) => return crate::unpack::unpacr_nop(self, t, i),
            I::Cleardvalid(i) => crate::unpack::handshake::cleardvalid(self, i)?,
            I::Mop(_) | I::MopCfg(_) | I::Replay(_) => {
                return Err(Fault::undefined(format!(
                    "{} reached the Wait Gate: it is only meaningful to the MOP/REPLAY expanders, \
                     which a replayed word bypasses (REPLAY.md)",
                    insn.opcode().mnemonic()
                )))
            }
            other => {
                return Err(Fault::unimplemented(format!(
                    "{} is not modelled (this emulator covers the pack/unpack data paths)",
                    other.opcode().mnemonic()
                )))
            }
        }
        Ok(Issue::Done)
    }
}

impl Machine {
    /// A TRISC store, made once the thread's front end has drained.
    fn trisc_store(&mut self, t: usize, step: &Step) -> Result<()> {
        match *step {
            Step::Cfg { addr32, value } => {
                let state = config_unit::state_of(&self.thread_config, t);
                if !self.config.write_addr32(state, addr32 as usize, value) {
                    return Err(Fault::undefined(format!(
                        "TRISC store to Config word {addr32}, which does not exist on {}",
                        self.arch()
                    )));
                }
            }
            Step::Gpr { index, value } => {
                if !self.gprs.set(t, index as usize, value) {
                    return Err(Fault::undefined(format!(
                        "TRISC store to GPR {index}; there are 64"
                    )));
                }
            }
            Step::Instruction(_) => {}
        }
        Ok(())
    }

    fn rmwcib(&mut self, t: usize, byte: u32, index: u32, data: u32, mask: u32) -> Result<()> {
        let state = config_unit::state_of(&self.thread_config, t);
        config_unit::rmwcib(&mut self.config, state, byte, index, data, mask)
    }
}
