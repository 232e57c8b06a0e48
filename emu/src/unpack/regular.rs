//! `UNPACR` (move datums from L1 to `SrcA`, `SrcB` or `Dst`): the
//! instruction's operands and the main loop that joins the stages
//! (`UNPACR_Regular.md`, functional model).

use super::context::{self, Selection};
use super::contiguous::Deferred;
use super::descriptor::Settings;
use super::handshake;
use super::input::{self, InputCounters, InputStream};
use super::output::{self, OutputCounters, OutputStream, Registers};
use super::prepared::{Kept, Prepared, PreparedCache};
use crate::adc::{CounterOp, Unit, YzSteps};
use crate::exec::Issue;
use crate::fault::{Fault, Result};
use crate::format::unpack::Conversion;
use crate::isa::Unpacr;
use crate::machine::Machine;
use crate::observe::{UnpackDatum, UnpackPlan};

/// The operands of a regular `UNPACR`, under the names `UNPACR_Regular.md`
/// gives them (the encoding's names in brackets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnpacrOp {
    /// `WhichUnpacker` (`Unpack_block_selection`).
    pub unpacker: usize,
    /// `AddrMode` bits 1:0, 3:2, 5:4, 7:6.
    pub ch0_z_inc: u32,
    pub ch0_y_inc: u32,
    pub ch1_z_inc: u32,
    pub ch1_y_inc: u32,
    /// `ContextNumber` (`CfgContextId`).
    pub context_number: u32,
    /// `ContextADC` (`AddrCntContextId`).
    pub context_adc: u32,
    /// `MultiContextMode` (`OvrdThreadId`).
    pub multi_context: bool,
    /// `FlipSrc` (`SetDatValid`).
    pub flip_src: bool,
    /// `AllDatumsAreZero` (`ZeroWrite2`).
    pub all_zero: bool,
    /// `UseContextCounter` (`AutoIncContextID`).
    pub use_context_counter: bool,
    /// `RowSearch`.
    pub row_search: bool,
}

impl UnpacrOp {
    /// Decode the fields of a regular `UNPACR`. The other forms the
    /// encoding can select are refused: `SearchCacheFlush` is
    /// `UNPACR_FlushCache.md` and `CfgContextCntInc` is
    /// `UNPACR_IncrementContextCounter.md`, neither of which is in the stored
    /// documentation; `rareb_en` (Wormhole B0) and `srcb_bcast` (Blackhole)
    /// are left `false` by the syntax and described nowhere. `Last` has no
    /// effect in the functional model.
    #[inline]
    pub fn decode(i: &Unpacr) -> Result<UnpacrOp> {
        if i.search_cache_flush != 0 {
            return Err(Fault::unimplemented(
                "UNPACR with SearchCacheFlush (flush the decompression row start cache): \
                 UNPACR_FlushCache.md is not in the stored documentation",
            ));
        }
        if i.cfg_context_cnt_inc != 0 {
            return Err(Fault::unimplemented(
                "UNPACR with CfgContextCntInc (increment context counter): \
                 UNPACR_IncrementContextCounter.md is not in the stored documentation",
            ));
        }
        if i.rareb_en != 0 || i.srcb_bcast != 0 {
            return Err(Fault::unimplemented(
                "UNPACR with rareb_en / srcb_bcast: UNPACR_Regular.md requires it false and \
                 no source describes it",
            ));
        }
        let a = i.addr_mode;
        Ok(UnpacrOp {
            unpacker: (i.unpack_block_selection & 1) as usize,
            ch0_z_inc: a & 3,
            ch0_y_inc: (a >> 2) & 3,
            ch1_z_inc: (a >> 4) & 3,
            ch1_y_inc: (a >> 6) & 3,
            context_number: i.cfg_context_id & 7,
            context_adc: i.addr_cnt_context_id & 3,
            multi_context: i.ovrd_thread_id != 0,
            flip_src: i.set_dat_valid != 0,
            all_zero: i.zero_write2 != 0,
            use_context_counter: i.auto_inc_context_id != 0,
            row_search: i.row_search != 0,
        })
    }
}

/// Execute one `UNPACR` for `thread`. Returns [`Issue::Wait`], changing
/// nothing, while the bank it must write belongs to the matrix unit.
pub fn unpacr(m: &mut Machine, thread: usize, i: &Unpacr) -> Result<Issue> {
    execute(m, thread, UnpacrOp::decode(i)?, true)
}

/// [`unpacr`] for instruction word `word`: a word issued again under the
/// same configuration executes with the preparation it had, not decoded
/// again ([`PreparedCache::take_word`]).
pub fn unpacr_word(m: &mut Machine, thread: usize, word: u32) -> Result<Issue> {
    let kept = prepared_word(m, thread, word)?;
    execute_kept(m, thread, kept, true)
}

/// The preparation of instruction word `word` issued by `thread`: the one
/// its unpacker keeps for it ([`PreparedCache::take_word`]), or one made
/// afresh, with the faults of decoding, selecting and preparing in that
/// order. Hand it back to its unpacker's cache after use.
fn prepared_word(m: &mut Machine, thread: usize, word: u32) -> Result<Box<Kept>> {
    if let Some(kept) = PreparedCache::take_word(m, thread, word) {
        return Ok(kept);
    }
    let op = UnpacrOp::decode(&Unpacr::from_word(m.arch(), word))?;
    let sel = context::select(m, thread, &op)?;
    let mut kept = PreparedCache::take(m, thread, &op, &sel)?;
    kept.reached_from(word);
    Ok(kept)
}

/// Execute consecutive `UNPACR` words of `thread` as that many
/// [`unpacr_word`] calls would, stopping before the first that must wait
/// (which changes nothing). Returns how many executed, and the fault that
/// stopped the next one; the caller counts them as issued.
///
/// A word repeated (an LLK program issues one `UNPACR` word per face)
/// keeps its preparation in hand from one issue to the next: an `UNPACR`
/// stores to neither Config nor ThreadConfig, so [`PreparedCache::take_word`]
/// would hand the same preparation back each time. Without an observer, the
/// contiguous jobs of such a run that continue one another are converted
/// as one (`Run`, below).
pub fn unpacr_words(
    m: &mut Machine,
    thread: usize,
    words: impl IntoIterator<Item = u32>,
) -> (usize, Result<()>) {
    let mut done = 0;
    let mut words = words.into_iter().peekable();
    while let Some(word) = words.next() {
        let kept = match prepared_word(m, thread, word) {
            Ok(kept) => kept,
            Err(f) => return (done, Err(f)),
        };
        if !kept.found_by_word() {
            // Its selection moves with the context counter: one at a time.
            match execute_kept(m, thread, kept, true) {
                Ok(Issue::Done) => done += 1,
                Ok(Issue::Wait) => break,
                Err(f) => return (done, Err(f)),
            }
            continue;
        }
        let (op, sel) = (*kept.op(), *kept.selection());
        let mut run = Run::default();
        let outcome = loop {
            debug_assert!(kept.holds_on(m), "an UNPACR stored to the configuration");
            match execute_prepared(m, thread, op, &sel, &kept.prepared, true, &mut run) {
                Ok(Issue::Done) => done += 1,
                Ok(Issue::Wait) => break Ok(false),
                Err(f) => break Err(f),
            }
            if words.next_if_eq(&word).is_none() {
                break Ok(true);
            }
        };
        run.finish(m);
        m.unpackers.prepared[op.unpacker & 1].keep(kept);
        match outcome {
            Ok(true) => {}
            Ok(false) => break,
            Err(f) => return (done, Err(f)),
        }
    }
    (done, Ok(()))
}

/// Consecutive `UNPACR`s of one word, with the conversion of the last
/// contiguous job held back until the next instruction's job is known:
/// where that continues it ([`Deferred::takes`]), the two are converted as
/// one. A job waits only if converting it later changes nothing
/// ([`Deferred::may_wait`]): its conversion cannot fault, and nothing in
/// between reads what it writes (an `UNPACR`'s plan reads counters,
/// handshake state and L1, and its counter steps and bank hand-over write
/// none of the registers). An instruction that converts otherwise does so
/// after the waiting job is converted, as it would have; one that waits
/// for a bank or faults leaves the waiting job to [`Run::finish`], which
/// ends every run. A single instruction is a run of one.
#[derive(Default)]
struct Run {
    waiting: Option<Deferred>,
}

impl Run {
    /// Convert the waiting job, if any.
    fn finish(&mut self, m: &mut Machine) {
        // Converted where it waits, not moved out first: a copy of the job
        // just written field by field would wait for those stores.
        if let Some(job) = &self.waiting {
            let converted = convert(m, job);
            // `Deferred::may_wait`: the jobs that wait cannot fault.
            debug_assert!(converted.is_ok(), "{converted:?}");
            self.waiting = None;
        }
    }
}

/// Convert `job`'s datums into the registers.
fn convert(m: &mut Machine, job: &Deferred) -> Result<()> {
    let Machine {
        l1,
        srca,
        srcb,
        dst,
        ..
    } = m;
    job.run(&mut Registers { srca, srcb, dst }, l1.bytes())
}

/// [`unpacr`] without the contiguous fast path (`unpack/contiguous.rs`):
/// every datum goes through the functional model's loop. This is the
/// definition the fast path is tested against.
pub fn unpacr_general(m: &mut Machine, thread: usize, i: &Unpacr) -> Result<Issue> {
    execute(m, thread, UnpacrOp::decode(i)?, false)
}

fn execute(m: &mut Machine, thread: usize, op: UnpacrOp, fast: bool) -> Result<Issue> {
    let sel = context::select(m, thread, &op)?;
    let kept = PreparedCache::take(m, thread, &op, &sel)?;
    execute_kept(m, thread, kept, fast)
}

/// [`execute`] with the preparation in hand, which goes back to its
/// unpacker's cache afterwards.
#[inline(always)]
fn execute_kept(m: &mut Machine, thread: usize, kept: Box<Kept>, fast: bool) -> Result<Issue> {
    let (op, sel) = (*kept.op(), *kept.selection());
    let mut run = Run::default();
    let issue = execute_prepared(m, thread, op, &sel, &kept.prepared, fast, &mut run);
    run.finish(m);
    m.unpackers.prepared[op.unpacker & 1].keep(kept);
    issue
}

/// [`execute`] once the instruction is prepared, as the next instruction
/// of `run`. With `fast` and no observer, a contiguous job joins the one
/// waiting in `run` where it continues it, or waits itself where it may.
#[inline(always)]
fn execute_prepared(
    m: &mut Machine,
    thread: usize,
    op: UnpacrOp,
    sel: &Selection,
    prep: &Prepared,
    fast: bool,
    run: &mut Run,
) -> Result<Issue> {
    let s = &prep.settings;
    let Some((in_plan, out_plan)) = plan(m, thread, &op, sel, prep)? else {
        return Ok(Issue::Wait);
    };
    m.datums.take(in_plan.datums_read())?;
    let fast = fast && m.observer.is_none();
    if let Some(o) = m.observer.as_deref_mut() {
        o.unpack_plans.push(UnpackPlan {
            instruction: m.issued,
            unpacker: op.unpacker as u8,
            in_format: s.in_format,
            out_format: s.out_format,
            first_datum_bit: in_plan.datums,
            exponent_byte: in_plan.exponents.map(|e| e.div_euclid(16)),
            zero_runs_bit: in_plan.deltas,
            input_datums: in_plan.input_datums,
            drop: in_plan.drop,
            out_addr: out_plan.out_addr,
            upsample_zeroes: out_plan.upsample_zeroes,
            interleave: out_plan.interleave,
            col_shift: out_plan.col_shift,
            transpose: out_plan.transpose,
            tileize: s.tileize,
            src_row: out_plan.src_row,
            bank: out_plan.bank as u8,
        });
    }
    let contiguous = fast && prep.contiguous;
    let l1 = m.l1.bytes();
    let taken = match &mut run.waiting {
        Some(waiting) if contiguous => waiting.takes(l1, &in_plan, &out_plan),
        _ => false,
    };
    if !taken {
        let job = if contiguous {
            Deferred::of(l1, s, op.all_zero, prep.conversion, &in_plan, &out_plan)
        } else {
            None
        };
        run.finish(m);
        match job {
            Some(job) if job.may_wait() => run.waiting = Some(job),
            Some(job) => convert(m, &job)?,
            None => main_loop(m, &op, s, prep.conversion, in_plan, out_plan)?,
        }
    }
    update_counters(m, thread, prep.unit, &op, sel, s)?;
    Ok(Issue::Done)
}

/// The input and output plans of a prepared instruction from the counters,
/// with the modes they must not combine checked; `None`, changing nothing,
/// where it moves data while the bank it must write belongs to the matrix
/// unit.
#[inline(always)]
fn plan(
    m: &Machine,
    thread: usize,
    op: &UnpacrOp,
    sel: &Selection,
    prep: &Prepared,
) -> Result<Option<(input::InputPlan, output::OutputPlan)>> {
    let s = &prep.settings;
    let unit = prep.unit;
    let (Some([xy0, xy1]), Some([zw0, out1])) =
        (m.adcs.values(sel.adc, unit), m.adcs.values(thread, unit))
    else {
        // Prepared::new checked both sets; they are named by the key.
        return Err(Fault::undefined("UNPACR ADC set out of range"));
    };
    // ADCs.md: the input address generator sees only the low eight bits of
    // channel 0's Z and W (they are 13 bits wide on Blackhole).
    let counters = InputCounters {
        x: xy0[0],
        y: xy0[1],
        z: zw0[2] & 0xFF,
        w: zw0[3] & 0xFF,
        x_end: xy1[0],
    };
    let in_plan = input::plan(s, &prep.input, counters, op.row_search, m.l1.bytes())?;
    let bank = handshake::src(m, op.unpacker).unpacker_bank & 1;
    let src_row = m.unpackers.units[op.unpacker].src_row[thread] as u32;
    let out_plan = output::plan(
        s,
        &prep.output,
        OutputCounters {
            y: out1[1],
            z: out1[2],
            w: out1[3],
        },
        bank,
        src_row,
        prep.dst_addressing,
    )?;
    check_modes(s, &in_plan, &out_plan)?;
    let moves_data = in_plan.input_datums != 0 && in_plan.decompress_datums != 0;
    if moves_data && !handshake::may_write(m, op.unpacker) {
        return Ok(None);
    }
    Ok(Some((in_plan, out_plan)))
}

/// The mode combinations `UNPACR_Regular.md` makes undefined ("Check that
/// various settings are compatible with each other").
fn check_modes(s: &Settings, i: &input::InputPlan, o: &output::OutputPlan) -> Result<()> {
    if (o.transpose || s.tileize) && i.datums.rem_euclid(128) != 0 {
        return Err(Fault::undefined(format!(
            "UNPACR in haloize or tileize mode starts its datums at L1 byte {:#x}{}, not on a 16-byte boundary \
             (UNPACR_Regular.md: Transpose || DiscontiguousInputRows)",
            i.datums.div_euclid(8),
            if i.datums % 8 != 0 { " and a fraction" } else { "" }
        )));
    }
    if s.tileize && (o.upsample_zeroes > 0 || !s.is_uncompressed) {
        return Err(Fault::undefined(
            "UNPACR in tileize mode with upsampling or compressed input \
             (UNPACR_Regular.md: DiscontiguousInputRows && (UpsampleZeroes > 0 || !IsUncompressed))",
        ));
    }
    Ok(())
}

/// The main unpack loop: read, convert, then write the datum with its
/// decompression and upsampling zeroes, datum by datum (the functional
/// model's loop; [`execute_prepared`] takes the contiguous path first where
/// it can).
fn main_loop(
    m: &mut Machine,
    op: &UnpacrOp,
    s: &Settings,
    conversion: Conversion,
    in_plan: input::InputPlan,
    out_plan: output::OutputPlan,
) -> Result<()> {
    let issued = m.issued;
    let Machine {
        l1,
        srca,
        srcb,
        dst,
        observer,
        ..
    } = m;
    let l1 = l1.bytes();
    let mut regs = Registers { srca, srcb, dst };
    let mut input = InputStream::new(in_plan, s);
    let mut output = OutputStream::new(out_plan);
    let mut drop = in_plan.drop;
    let mut remaining = in_plan.decompress_datums;
    let mut i = 0u32;
    while i < in_plan.input_datums && remaining != 0 {
        let at = input.next_bit();
        let d = input.next(l1, s)?;
        i += 1;
        let (mut value, zeroes) = if op.all_zero {
            (0, 0)
        } else {
            (conversion.apply(d.bits, d.exp)?.bits(), d.zeroes)
        };
        for z in 0..=zeroes {
            if drop != 0 {
                drop -= 1;
                value = 0;
                continue;
            }
            let out_addr = output.out_addr();
            output.emit(&mut regs, value)?;
            if let (Some(o), 0) = (observer.as_deref_mut(), z) {
                o.unpack.push(UnpackDatum {
                    instruction: issued,
                    unpacker: op.unpacker as u8,
                    l1_bit: at,
                    bits: d.bits,
                    datum_bits: in_plan.datum_bits,
                    exp: d.exp,
                    exp_from: d.exp_from,
                    zeroes: d.zeroes,
                    zeroes_bit: d.zeroes_bit,
                    value,
                    out_addr,
                    cell: output.last,
                });
            }
            value = 0;
            remaining -= 1;
            if remaining == 0 {
                break;
            }
        }
    }
    Ok(())
}

/// "Update counters in preparation for next instruction".
#[inline(always)]
fn update_counters(
    m: &mut Machine,
    thread: usize,
    unit: Unit,
    op: &UnpacrOp,
    sel: &Selection,
    s: &Settings,
) -> Result<()> {
    if op.multi_context && op.use_context_counter {
        m.unpackers.units[op.unpacker].context_counter[thread] =
            context::next_context(sel.context, s.context_count);
    }
    let inc = CounterOp::Increment;
    let steps = YzSteps([
        [inc(op.ch0_y_inc), inc(op.ch0_z_inc)],
        [inc(op.ch1_y_inc), inc(op.ch1_z_inc)],
    ]);
    for set in 0..crate::adc::ADC_SETS {
        if set == thread || set == sel.adc {
            m.adcs.step_yz(set, unit, &steps)?;
        }
    }
    if op.flip_src {
        handshake::give_to_matrix(m, thread, op.unpacker, s.out_format.code(), s.src_set_base);
    } else if s.src_reg_set_upd {
        handshake::advance_src_row(&mut m.unpackers, thread, op.unpacker, s.src_set_base);
    }
    Ok(())
}
