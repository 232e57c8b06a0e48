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
//! [`FaultKind::Deadlock`].

pub mod config_unit;
pub mod frontend;
pub mod mop;
pub mod replay;
pub mod sync_unit;
pub mod wait_gate;

use crate::fault::{Fault, FaultKind, Result};
use crate::isa::{self, Opcode};
use crate::machine::Machine;
use crate::pack::readout;
use crate::regs::{CfgField, Config, THREADS};
use crate::state::dst::DstAddressing;
use wait_gate::{LatchedWait, Observed};

/// One entry of a thread's program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// A Tensix instruction word (opcode in bits `[31:24]`).
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

/// Bounds on a run. Neither is a property of the hardware: they keep a run
/// of any program, however long, finite and its cost bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Scheduler steps before the run stops with `ResourceLimit` ("step
    /// budget"): a program that has not finished by then is taken to hang.
    pub max_steps: u64,
    /// Datums that the run's `PACR`s and `UNPACR`s may read: each packer's
    /// `InputNumDatums`, and each `UNPACR`'s `InputNumDatums` or, where
    /// fewer, its `DecompressDrop + DecompressNumDatums`. An instruction
    /// that would read past the budget faults with `ResourceLimit` ("datum
    /// budget") before it changes anything, on every path alike: the run
    /// ends at the same instruction whether its instructions execute one a
    /// step or a run of them at once. Unbounded by default.
    pub max_datums: u64,
}

impl Limits {
    /// At most `max_steps` steps, with no datum budget.
    pub const fn steps(max_steps: u64) -> Limits {
        Limits {
            max_steps,
            max_datums: u64::MAX,
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::steps(10_000_000)
    }
}

/// What a run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    pub steps: u64,
    pub instructions: u64,
    /// Datums read by `PACR` and `UNPACR` ([`Limits::max_datums`]).
    pub datums: u64,
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

/// The fault of a run that has taken `limits.max_steps` steps.
#[cold]
fn budget_exhausted(limits: Limits) -> Fault {
    Fault::new(
        FaultKind::ResourceLimit,
        format!("step budget of {} exhausted", limits.max_steps),
    )
}

/// The datums a run's `PACR`s and `UNPACR`s may read
/// ([`Limits::max_datums`]), and those they have read. Outside
/// [`Machine::run`] there is no budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DatumBudget {
    read: u64,
    limit: u64,
}

impl Default for DatumBudget {
    fn default() -> DatumBudget {
        DatumBudget::new(u64::MAX)
    }
}

impl DatumBudget {
    pub(crate) fn new(limit: u64) -> DatumBudget {
        DatumBudget { read: 0, limit }
    }

    /// Datums read so far.
    pub(crate) fn read(&self) -> u64 {
        self.read
    }

    /// Datums that may still be read.
    pub(crate) fn room(&self) -> u64 {
        self.limit - self.read
    }

    /// Count `n` datums an instruction is about to read, or, where they
    /// would take the run past its budget, its fault.
    #[inline]
    pub(crate) fn take(&mut self, n: u64) -> Result<()> {
        if n > self.room() {
            return Err(datums_exhausted(self.limit));
        }
        self.read += n;
        Ok(())
    }
}

/// The fault of an instruction that would read more datums than the run's
/// budget of `limit` leaves.
#[cold]
fn datums_exhausted(limit: u64) -> Fault {
    Fault::new(
        FaultKind::ResourceLimit,
        format!("datum budget of {limit} exhausted"),
    )
}

/// One instruction at a thread's Wait Gate, with the program entry it came
/// from (a MOP's entry for the words it expands to). Its opcode was checked
/// when it arrived; its fields are decoded when it executes.
#[derive(Clone, Copy, Debug)]
struct Pending {
    word: u32,
    opcode: Opcode,
    entry: usize,
}

/// A thread's program entries, in order, across every [`ThreadProgram`] for
/// the thread, read in place.
#[derive(Debug)]
struct StepQueue<'p> {
    /// The rest of the program being read.
    current: &'p [Step],
    /// The programs after it (those of other threads are skipped).
    later: &'p [ThreadProgram],
    thread: usize,
    /// Entries taken so far: the index of the next one.
    taken: usize,
}

impl<'p> StepQueue<'p> {
    fn new(programs: &'p [ThreadProgram], thread: usize) -> StepQueue<'p> {
        StepQueue {
            current: &[],
            later: programs,
            thread,
            taken: 0,
        }
    }

    /// The next entry, without taking it.
    #[inline]
    fn peek(&mut self) -> Option<&'p Step> {
        while self.current.is_empty() {
            let (p, later) = self.later.split_first()?;
            self.later = later;
            if p.thread == self.thread {
                self.current = &p.steps;
            }
        }
        self.current.first()
    }

    /// The entries of the program being read from the next one on (empty
    /// when none is left).
    #[inline]
    fn ahead(&mut self) -> &'p [Step] {
        if self.peek().is_none() {
            return &[];
        }
        self.current
    }

    /// Take the next `n` entries of [`StepQueue::ahead`].
    #[inline]
    fn take_ahead(&mut self, n: usize) {
        self.current = self.current.get(n..).unwrap_or_default();
        self.taken += n;
    }

    /// Take the entry [`StepQueue::peek`] returned; returns its index.
    #[inline]
    fn take(&mut self) -> usize {
        if let Some((_, rest)) = self.current.split_first() {
            self.current = rest;
        }
        self.taken += 1;
        self.taken - 1
    }
}

#[derive(Debug)]
struct ThreadRun<'p> {
    steps: StepQueue<'p>,
    /// Program entry of the word the front end is working on.
    entry: usize,
    pending: Option<Pending>,
    wait: Option<LatchedWait>,
}

impl<'p> ThreadRun<'p> {
    fn new(programs: &'p [ThreadProgram], thread: usize) -> ThreadRun<'p> {
        ThreadRun {
            steps: StepQueue::new(programs, thread),
            entry: 0,
            pending: None,
            wait: None,
        }
    }
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
        self.datums = DatumBudget::new(limits.max_datums);
        let ran = self.run_within(programs, limits);
        self.datums = DatumBudget::default();
        ran
    }

    /// [`Machine::run`] with the datum budget in place.
    fn run_within(&mut self, programs: &[ThreadProgram], limits: Limits) -> Result<RunStats> {
        if let Some(p) = programs.iter().find(|p| p.thread >= THREADS) {
            return Err(Fault::unsupported(format!(
                "there is no Tensix thread {} (threads are 0, 1 and 2)",
                p.thread
            )));
        }
        let mut threads: [ThreadRun<'_>; THREADS] =
            std::array::from_fn(|t| ThreadRun::new(programs, t));
        let mut stats = RunStats::default();
        // Bit t: thread t has not drained (no entries left, nothing in its
        // front end or at its Wait Gate). Nothing another thread does
        // refills a drained thread, so it is not visited again; a thread
        // with no entries and nothing in its front end has drained already.
        let mut live: u8 = 0;
        for (t, run) in threads.iter_mut().enumerate() {
            if run.steps.peek().is_some() || !self.frontends[t].passes_through() {
                live |= 1 << t;
            }
        }
        loop {
            if live.is_power_of_two() {
                let t = live.trailing_zeros() as usize;
                if let Some(run) = threads.get_mut(t) {
                    self.stretch(t, run, &mut stats, limits)?;
                }
            }
            let mut moved = false;
            let mut busy = false;
            let mut pending = live;
            while pending != 0 {
                let t = pending.trailing_zeros() as usize;
                pending &= pending - 1;
                let Some(run) = threads.get_mut(t) else {
                    break;
                };
                match self.advance(t, run, &mut stats)? {
                    Moved::Yes => {
                        moved = true;
                        busy = true;
                    }
                    Moved::Blocked => busy = true,
                    Moved::Finished => live &= !(1 << t),
                }
            }
            if !busy {
                stats.datums = self.datums.read();
                return Ok(stats);
            }
            stats.steps += 1;
            if !moved {
                let who: Vec<String> = threads
                    .iter()
                    .enumerate()
                    .filter_map(|(t, r)| {
                        let p = r.pending?;
                        let insn = isa::decode(self.arch(), p.word).ok()?;
                        Some(format!("thread {t} at {insn}"))
                    })
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
                return Err(budget_exhausted(limits));
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
        let p = match run.pending {
            Some(p) => p,
            None => match self.fetch(t, run)? {
                Some(p) => p,
                // The front end has drained; a TRISC store may go now.
                None => {
                    let Some(step) = run.steps.peek() else {
                        return Ok(Moved::Finished);
                    };
                    run.entry = run.steps.take();
                    self.trisc_store(t, step)
                        .map_err(|f| f.at(t as u8, run.entry))?;
                    return Ok(Moved::Yes);
                }
            },
        };
        if let Some(latched) = run.wait {
            let seen = Observed {
                arch: self.arch(),
                srca: &self.srca,
                srcb: &self.srcb,
                semaphores: &self.semaphores,
            };
            if wait_gate::conditions_met(latched, &seen) {
                run.wait = None;
            } else if latched.holds(p.opcode) {
                run.pending = Some(p);
                return Ok(Moved::Blocked);
            }
        }
        match self
            .execute(t, &mut run.wait, p.opcode, p.word)
            .map_err(|f| f.at(t as u8, p.entry))?
        {
            Issue::Done => {
                run.pending = None;
                stats.instructions += 1;
                if self.observer.is_some() {
                    self.observe_issue(t, p);
                }
                self.issued += 1;
                Ok(Moved::Yes)
            }
            Issue::Wait => {
                run.pending = Some(p);
                Ok(Moved::Blocked)
            }
        }
    }

    /// With thread `t` the only one left and nothing between its queue and
    /// the Wait Gate (no word held there, no latched wait, neither expander
    /// busy, no observer), execute the instructions at the head of its
    /// queue directly, as the scheduler would execute them one step each:
    /// the same issue tags, step and instruction counts, step budget, and
    /// fault with its program entry. Runs of `PACR` words, or of `UNPACR`
    /// words, go together ([`crate::pack::pacr_words`],
    /// [`crate::unpack::unpacr_words`]); the ADC instructions between them
    /// ([`Machine::adc_instruction`]) one at a time. The stretch ends before any other
    /// entry (which the scheduler then takes), and at an `UNPACR` that must
    /// wait.
    fn stretch(
        &mut self,
        t: usize,
        run: &mut ThreadRun<'_>,
        stats: &mut RunStats,
        limits: Limits,
    ) -> Result<()> {
        if run.pending.is_some()
            || run.wait.is_some()
            || self.observer.is_some()
            || !self.frontends[t].passes_through()
        {
            return Ok(());
        }
        let arch = self.arch();
        loop {
            let ahead = run.steps.ahead();
            let (word, opcode) = match ahead.first() {
                Some(Step::Instruction(w)) => match isa::opcode_of(arch, *w) {
                    Ok(o) => (*w, o),
                    Err(_) => return Ok(()),
                },
                _ => return Ok(()),
            };
            let first = run.steps.taken;
            let done = match opcode {
                Opcode::Pacr | Opcode::Unpacr => {
                    let budget = limits.max_steps.saturating_sub(stats.steps);
                    let within =
                        usize::try_from(budget).map_or(ahead.len(), |b| b.min(ahead.len()));
                    // The words within the budget with this one's top byte,
                    // which alone decides the opcode (`isa::opcode_of`). (A
                    // slice cut to the budget, rather than `take`, whose
                    // count cost each word about three instructions.)
                    let words = ahead[..within].iter().map_while(|s| match *s {
                        Step::Instruction(w) if w >> 24 == word >> 24 => Some(w),
                        _ => None,
                    });
                    let (done, outcome) = match opcode {
                        Opcode::Pacr => crate::pack::pacr_words(self, t, words),
                        _ => crate::unpack::unpacr_words(self, t, words),
                    };
                    self.count_stretch(run, stats, first, done);
                    if let Err(f) = outcome {
                        return Err(f.at(t as u8, first + done));
                    }
                    done
                }
                o => match self.adc_instruction(t, o, word) {
                    Some(done) => {
                        done.map_err(|f| f.at(t as u8, first))?;
                        self.count_stretch(run, stats, first, 1);
                        1
                    }
                    None => return Ok(()),
                },
            };
            if stats.steps >= limits.max_steps {
                return Err(budget_exhausted(limits));
            }
            if done == 0 {
                // An instruction that must wait: the scheduler takes it.
                return Ok(());
            }
        }
    }

    /// Count `done` instructions of a stretch, from program entry `first`,
    /// as executed: each one step and one issue.
    fn count_stretch(
        &mut self,
        run: &mut ThreadRun<'_>,
        stats: &mut RunStats,
        first: usize,
        done: usize,
    ) {
        if done == 0 {
            return;
        }
        run.steps.take_ahead(done);
        run.entry = first + done - 1;
        stats.instructions += done as u64;
        stats.steps += done as u64;
        self.issued += done as u64;
    }

    /// The next word the thread's front end hands to the Wait Gate, with
    /// its opcode checked; `None` once the front end has nothing more
    /// before the next TRISC store (or the end).
    #[inline]
    fn fetch(&mut self, t: usize, run: &mut ThreadRun<'_>) -> Result<Option<Pending>> {
        let ThreadRun { steps, entry, .. } = run;
        let fetched = self.frontends[t].next(|| match steps.peek() {
            Some(Step::Instruction(w)) => {
                *entry = steps.take();
                Some(*w)
            }
            _ => None,
        });
        let Some(word) = fetched.map_err(|f| f.at(t as u8, run.entry))? else {
            return Ok(None);
        };
        let opcode = isa::opcode_of(self.arch(), word).map_err(|f| f.at(t as u8, run.entry))?;
        Ok(Some(Pending {
            word,
            opcode,
            entry: run.entry,
        }))
    }

    /// Execute one instruction that passed the Wait Gate; `wait` is the
    /// thread's latched `STALLWAIT` / `SEMWAIT`.
    fn execute(
        &mut self,
        t: usize,
        wait: &mut Option<LatchedWait>,
        opcode: Opcode,
        word: u32,
    ) -> Result<Issue> {
        let arch = self.arch();
        // The instruction's fields, decoded for the arm that uses them.
        macro_rules! fields {
            ($s:ident) => {
                &isa::$s::from_word(arch, word)
            };
        }
        use Opcode as O;
        match opcode {
            O::Nop | O::Dmanop => {}
            O::Wrcfg => {
                let i = fields!(Wrcfg);
                config_unit::wrcfg(&mut self.config, &self.thread_config, &self.gprs, t, i)?
            }
            O::Rdcfg => {
                let i = fields!(Rdcfg);
                config_unit::rdcfg(&self.config, &self.thread_config, &mut self.gprs, t, i)?
            }
            O::Rmwcib0 => {
                let i = fields!(Rmwcib0);
                self.rmwcib(t, 0, i.cfg_reg_addr, i.data, i.mask)?;
            }
            O::Rmwcib1 => {
                let i = fields!(Rmwcib1);
                self.rmwcib(t, 1, i.cfg_reg_addr, i.data, i.mask)?;
            }
            O::Rmwcib2 => {
                let i = fields!(Rmwcib2);
                self.rmwcib(t, 2, i.cfg_reg_addr, i.data, i.mask)?;
            }
            O::Rmwcib3 => {
                let i = fields!(Rmwcib3);
                self.rmwcib(t, 3, i.cfg_reg_addr, i.data, i.mask)?;
            }
            O::Setc16 => {
                let i = fields!(Setc16);
                config_unit::setc16(&mut self.thread_config, t, i)?;
            }
            O::Setdmareg => {
                let i = fields!(Setdmareg);
                if i.set_signals_mode != 0 {
                    // SETDMAREG_Special.md: packer state into GPRs.
                    let r = readout::SpecialRead::new(
                        i.reg_index_16b,
                        i.payload_sig_sel,
                        i.payload_sig_sel_size,
                    );
                    let arch = self.arch();
                    readout::setdmareg_special(arch, &self.packer, &mut self.gprs, t, &r)?;
                } else {
                    // SETDMAREG (immediate form): ResultHalfReg [6:0] gets NewValue [23:8].
                    let value = i.payload_sig_sel | (i.payload_sig_sel_size << 14);
                    self.gprs
                        .set_half(t, i.reg_index_16b as usize, value as u16);
                }
            }
            O::Stallwait => {
                let i = fields!(Stallwait);
                if wait.is_some() {
                    return Ok(Issue::Wait);
                }
                // STALLWAIT.md: a zero mask means C0..C3 / B6.
                let conditions = if i.wait_res == 0 {
                    0x0f
                } else {
                    i.wait_res as u16
                };
                let block = wait_gate::latched_block_mask(i.stall_res);
                *wait = Some(LatchedWait::Stall { conditions, block });
            }
            O::Semwait => {
                let i = fields!(Semwait);
                if wait.is_some() {
                    return Ok(Issue::Wait);
                }
                if i.wait_sem_cond == 0 {
                    return Err(Fault::undefined(
                        "SEMWAIT with ConditionMask 0 (SEMWAIT.md)",
                    ));
                }
                let block = wait_gate::latched_block_mask(i.stall_res);
                *wait = Some(LatchedWait::Semaphore {
                    conditions: i.wait_sem_cond as u8,
                    semaphores: i.sem_sel as u8,
                    block,
                });
            }
            O::Seminit => {
                let i = fields!(Seminit);
                self.semaphores.init(i.sem_sel, i.init_value, i.max_value);
            }
            O::Sempost => {
                let i = fields!(Sempost);
                self.semaphores.post(i.sem_sel);
            }
            O::Semget => {
                let i = fields!(Semget);
                self.semaphores.get_dec(i.sem_sel);
            }
            O::Pacr => crate::pack::pacr_word(self, t, word)?,
            // CLREXPHIST.md: reset the exponent histogram of every packer.
            O::Clrexphist => self.packer.clear_exponent_histograms(),
            O::Unpacr => return crate::unpack::unpacr_word(self, t, word),
            O::UnpacrNop => {
                let i = fields!(UnpacrNop);
                return crate::unpack::unpacr_nop(self, t, i);
            }
            O::Mova2d => return crate::matrix::moves::mova2d(self, t, fields!(Mova2d)),
            O::Movb2d => return crate::matrix::moves::movb2d(self, t, fields!(Movb2d)),
            O::Movb2a => return crate::matrix::moves::movb2a(self, t, fields!(Movb2a)),
            O::Cleardvalid => {
                let i = fields!(Cleardvalid);
                crate::unpack::handshake::cleardvalid(self, i)?;
            }
            O::Mop | O::MopCfg | O::Replay => {
                return Err(Fault::undefined(format!(
                    "{} reached the Wait Gate: it is only meaningful to the MOP/REPLAY expanders, \
                     which a replayed word bypasses (REPLAY.md)",
                    opcode.mnemonic()
                )))
            }
            other => match self.adc_instruction(t, other, word) {
                Some(done) => done?,
                None => {
                    return Err(Fault::unimplemented(format!(
                        "{} is not modelled (this emulator covers the pack/unpack data paths)",
                        other.mnemonic()
                    )))
                }
            },
        }
        Ok(Issue::Done)
    }
}

impl Machine {
    /// Execute `opcode` for thread `t` if it is one of the instructions
    /// that only read and write ADC counters (`None` otherwise): its fields
    /// decoded, the ADCs stepped. These never wait and latch no wait, so
    /// with one thread left they go in a stretch ([`Machine::stretch`]),
    /// through this small dispatch rather than [`Machine::execute`]'s.
    fn adc_instruction(&mut self, t: usize, opcode: Opcode, word: u32) -> Option<Result<()>> {
        let arch = self.arch();
        let adcs = &mut self.adcs;
        use Opcode as O;
        Some(match opcode {
            O::Setadc => adcs.setadc(t, (&isa::Setadc::from_word(arch, word)).into()),
            O::Setadcxx => adcs.setadcxx(t, (&isa::Setadcxx::from_word(arch, word)).into()),
            O::Setadcxy => adcs.setadcxy(t, (&isa::Setadcxy::from_word(arch, word)).into()),
            O::Setadczw => adcs.setadczw(t, (&isa::Setadczw::from_word(arch, word)).into()),
            O::Addrcrxy => adcs.addrcrxy(t, (&isa::Addrcrxy::from_word(arch, word)).into()),
            O::Addrcrzw => adcs.addrcrzw(t, (&isa::Addrcrzw::from_word(arch, word)).into()),
            O::Incadcxy => adcs.incadcxy(t, (&isa::Incadcxy::from_word(arch, word)).into()),
            O::Incadczw => adcs.incadczw(t, (&isa::Incadczw::from_word(arch, word)).into()),
            _ => return None,
        })
    }
}

impl Machine {
    /// Record an instruction that executed, with its thread's ADCs after it.
    #[cold]
    fn observe_issue(&mut self, t: usize, p: Pending) {
        let adcs = crate::adc::Unit::ALL.map(|u| self.adcs.values(t, u).unwrap_or_default());
        if let Some(o) = self.observer.as_deref_mut() {
            o.instructions.push(crate::observe::Issued {
                index: self.issued,
                thread: t as u8,
                entry: p.entry,
                word: p.word,
                adcs,
            });
        }
    }

    /// A TRISC store, made once the thread's front end has drained.
    fn trisc_store(&mut self, t: usize, step: &Step) -> Result<()> {
        match *step {
            Step::Cfg { addr32, value } => {
                // A RISC-V store names the state itself: `Config[2][..]` is
                // mapped one state after the other from `TENSIX_CFG_BASE`
                // (`BackendConfiguration.md`), whatever the thread's
                // `CFG_STATE_ID` (ttsim `tensix_cfg_wr32` likewise writes
                // bank 0 for the first state's words).
                let words = crate::regs::config_words(self.arch()) as u32;
                let (state, word) = (addr32 / words, addr32 % words);
                if state >= crate::regs::CONFIG_STATES as u32
                    || !self
                        .config
                        .write_addr32(state as usize, word as usize, value)
                {
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
