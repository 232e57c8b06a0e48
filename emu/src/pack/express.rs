//! The express path: a Blackhole `PACR` whose enabled read interfaces each
//! take a whole `Dst` row, with no per-datum stage and no compression,
//! either through a fixed-format row kernel ([`fast::Kernel`]) straight into
//! L1 with an empty data-stream buffer, or to one BFP group per row with an
//! empty shared-exponent assembler ([`fast::BfpRows`]). It goes from the ADC
//! counters to the L1 writes and the counter steps without the general
//! path's per-packer context, and does exactly what the general path does
//! for such an instruction (the differential tests in `pack_fast_path` run
//! both). Where an instruction turns out not to qualify it leaves
//! everything as it was and the general path runs; a BFP group whose
//! streams leave L1 faults as the general path's row fast path does, with
//! the same writes before it.

use super::config::{Decoded, PackerConfig, Shared};
use super::edge_mask::TilePosition;
use super::fast::{self, BfpRows, Kernel};
use super::input::{self, ReadInterfaces, Source};
use super::late::Late;
use super::output::{self, OutputInputs};
use super::prepared::{Prepared, PreparedWords};
use super::stream::{OutStream, Streams};
use super::{Context, PacrFields, Parts};
use crate::adc::{Counter, Unit, YzEffect};
use crate::arch::Arch;
use crate::fault::Result;
use crate::state::L1;

/// What an instruction word needs to take the express path, worked out with
/// its other choices ([`Prepared`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Express {
    rows_to: RowsTo,
    rows: RowsRead,
    /// The ADC set packer 0 uses.
    adc: u8,
}

/// The `Dst` rows an express instruction's read interfaces read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RowsRead {
    /// The enabled interfaces' rows relative to `StartRow`, in interface
    /// order (BlackholeA0 PACR.md: interface `i` reads `StartRow + i`).
    offsets: [u32; 4],
    /// `ReadIntfSel` with its special case applied: the enabled interfaces.
    mask: u8,
    /// How many are enabled.
    count: u8,
}

impl RowsRead {
    fn new(interfaces: ReadInterfaces) -> RowsRead {
        let mut offsets = [0; 4];
        let mut count = 0;
        for i in 0..4 {
            if let Some(offset) = interfaces.row(0, i) {
                offsets[count] = offset;
                count += 1;
            }
        }
        RowsRead {
            offsets,
            mask: interfaces.mask,
            count: count as u8,
        }
    }

    /// The rows read with channel 0's counters at `ch0`, where they start
    /// a row and stay within their group of four (or `!strict_groups`).
    #[inline(always)]
    fn at(
        &self,
        strict_groups: bool,
        shared: &Shared,
        pk: &PackerConfig,
        ch0: [u32; 4],
    ) -> Option<[u32; 4]> {
        let start = input::dst_start(pk, input::addr(shared, ch0), ch0[0]);
        let start_row = start >> 4;
        if start & 0xF != 0 || (strict_groups && (self.mask as u32) << (start_row & 3) > 0b1111) {
            return None;
        }
        Some(self.offsets.map(|o| start_row + o))
    }
}

/// Where an express instruction's rows go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RowsTo {
    /// A fixed-format kernel, straight into L1.
    L1(Kernel),
    /// One BFP group per row, to the exponent and data streams.
    Bfp(BfpRows),
}

impl Express {
    /// The express form of `prep` under `decoded`, if it has one: Blackhole
    /// (one packer), reading `Dst` (no `ZeroWrite`, `Flush` or L1 source),
    /// not strided, not compressing, with no per-datum stage and no edge
    /// mask, and an output that a fixed-format row kernel writes or that is
    /// BFP. The stages are those the general path chooses; where choosing
    /// them faults there is no express form, and the general path reports
    /// the fault when it comes to it.
    pub fn new(arch: Arch, prep: &Prepared, decoded: &Decoded) -> Option<Express> {
        let f: &PacrFields = &prep.fields;
        let [unit] = prep.units() else {
            return None;
        };
        let pk = &decoded.packers[unit.packer()];
        if arch != Arch::Blackhole
            || unit.packer() != 0
            || unit.compress
            || f.zero_write
            || f.flush
            || f.read_interfaces.strided
            || pk.source_interface_selection
        {
            return None;
        }
        let ctx = Context {
            shared: &decoded.shared,
            pk,
            packer: 0,
            fields: f,
            compress: false,
            tag: 0,
            general: false,
            strict_groups: true,
        };
        let st = ctx.stages(Source::Dst { start: 0 }).ok()?;
        let rows_to = match (st.fast?, st.late) {
            (k @ (Kernel::Bf16RoundToBf16 | Kernel::Fp32RoundToBf16 | Kernel::Fp32ToFp32), _) => {
                RowsTo::L1(k)
            }
            (Kernel::Bfp, Late::Bfp { exp, width }) => RowsTo::Bfp(BfpRows {
                early: st.early,
                exp,
                width,
            }),
            _ => return None,
        };
        if !st.edge_unmasked {
            return None;
        }
        Some(Express {
            rows_to,
            rows: RowsRead::new(f.read_interfaces),
            adc: unit.adc() as u8,
        })
    }

    /// Where the instruction reads and whether it qualifies with the
    /// counters, streams and L1 as they are: whole rows (`InputNumDatums`
    /// 16 from column 0), read interfaces within their group of four rows
    /// (or the check off) and an empty BFP assembler. Returns the `Dst`
    /// rows and channel 1's counters; `None`, having changed nothing, where
    /// it does not qualify.
    #[inline(always)]
    fn qualify(
        &self,
        parts: &Parts<'_>,
        shared: &Shared,
        pk: &PackerConfig,
    ) -> Option<([u32; 4], [u32; 4])> {
        let [ch0, ch1] = parts.adcs.values(self.adc as usize, Unit::Packers)?;
        if ch1[0].wrapping_sub(ch0[0]) != 15 || parts.units[0].bfp.pending() > 0 {
            return None;
        }
        Some((self.rows.at(parts.strict_groups, shared, pk, ch0)?, ch1))
    }

    /// As the general path, before the rows are read: fresh stream
    /// addresses where needed, then the tile position restarted if no tile
    /// is in progress.
    #[inline(always)]
    fn start(&self, parts: &mut Parts<'_>, pk: &PackerConfig, shared: &Shared, ch1: [u32; 4]) {
        let outs = OutputInputs {
            packer0_initial: output::initial_addr(pk),
            ch1,
            l1_dest_addr_offset: parts.l1_dest_addr_offset[0],
            performing_compression: false,
        };
        let unit = &mut parts.units[0];
        output::start(shared, pk, 0, &outs, &mut unit.streams);
        if !unit.tile_position_live {
            unit.tile_position = Default::default();
        }
    }

    /// As the general path, after the rows are read: the tile position
    /// moves on, `Last` writes the buffers, and the counters step.
    #[inline(always)]
    fn finish(&self, parts: &mut Parts<'_>, prep: &Prepared, pk: &PackerConfig) -> Result<()> {
        let unit = &mut parts.units[0];
        unit.tile_position
            .advance_rows(self.rows.count as u32, pk.reads_per_xy_plane);
        if prep.fields.last {
            unit.streams.flush(parts.l1, None, parts.tag)?;
            unit.tile_position_live = false;
        } else {
            unit.tile_position_live = true;
        }
        parts
            .adcs
            .step_yz(self.adc as usize, Unit::Packers, &prep.steps)
    }

    /// Execute the instruction if it qualifies ([`Express::qualify`]), with
    /// for a fixed-format kernel an empty data-stream buffer whose writes
    /// all lie inside L1. Returns `Ok(false)`, having changed nothing the
    /// general path would not change the same way, where it does not
    /// qualify. Its faults are those of the general path at the same point:
    /// a BFP group's stream leaving L1, and `Last` writing the buffers.
    #[inline]
    pub fn run(
        &self,
        parts: &mut Parts<'_>,
        prep: &Prepared,
        shared: &Shared,
        pk: &PackerConfig,
    ) -> Result<bool> {
        let Some((rows, ch1)) = self.qualify(parts, shared, pk) else {
            return Ok(false);
        };
        self.start(parts, pk, shared, ch1);
        let rows = &rows[..self.rows.count as usize];
        let (unit, l1, tag) = (&mut parts.units[0], &mut *parts.l1, parts.tag);
        match self.rows_to {
            RowsTo::L1(kernel) => {
                let data = &mut unit.streams.data;
                if !fast::whole_rows_to_l1(kernel, shared, data, l1, tag, parts.dst, rows) {
                    return Ok(false);
                }
            }
            RowsTo::Bfp(form) => {
                form.to_streams::<{ fast::BATCH_ROWS }>(
                    shared,
                    &mut unit.streams,
                    l1,
                    tag,
                    parts.dst,
                    rows,
                )?;
            }
        }
        self.finish(parts, prep, pk)?;
        Ok(true)
    }

    /// [`Express::run`], with the instruction's rows added to `pending`
    /// instead of converted and written now, when `pending`'s writes and
    /// these rows' together certainly stay inside L1 (so cannot fault).
    /// Returns `Ok(false)`, having changed nothing but writing out
    /// `pending`, where that does not apply. On a fault (from `Last`, or the
    /// counters' step) `pending` still holds this instruction's rows: the
    /// caller writes them out before it reports the fault, as
    /// [`Express::run`] would have written them before it.
    #[inline]
    pub fn defer(
        &self,
        parts: &mut Parts<'_>,
        prep: &Prepared,
        shared: &Shared,
        pk: &PackerConfig,
        pending: &mut Pending,
    ) -> Result<bool> {
        let Some((all_rows, ch1)) = self.qualify(parts, shared, pk) else {
            pending.write_out(parts, shared);
            return Ok(false);
        };
        let rows = &all_rows[..self.rows.count as usize];
        // Rows waiting are written before a stream takes a fresh address
        // (an express instruction never compresses).
        if !pending.takes(self.rows_to, rows.len())
            || output::needs_address(pk, false, &parts.units[0].streams)
        {
            pending.write_out(parts, shared);
        }
        self.start(parts, pk, shared, ch1);
        if !pending.fits(self.rows_to, rows.len(), &parts.units[0].streams, parts.l1) {
            pending.write_out(parts, shared);
            return Ok(false);
        }
        pending.add(self.rows_to, all_rows, rows.len());
        if prep.fields.last {
            pending.write_out(parts, shared);
        } else {
            pending.run = Some(Run {
                adc: self.adc,
                to: self.rows_to,
            });
        }
        self.finish(parts, prep, pk)?;
        Ok(true)
    }
}

/// Further instructions of the run whose rows wait in `pending`, taken from
/// the start of `words` while each is express and has the run's ADC set and
/// destination, up to and including the run's `Last`: each does what
/// [`Express::defer`] does, checking only what an instruction of the run
/// can change ([`Run`]). Stops before the first word it does not take (not
/// prepared, another form, rows that do not qualify or do not fit), which
/// the caller then executes as usual. Returns how many it executed, and the
/// fault of the one after them, if that one faulted.
///
/// Such an instruction without `Last` changes only its ADC set's packer `Y`
/// and `Z` counters, the tile position and the rows waiting, and cannot
/// fault. The `Last` then writes every row waiting, and writes out the
/// streams' buffers, which can fault: as [`Express::defer`] does, that
/// leaves its counters unstepped. The words are compiled once into a
/// [`RunPlan`], kept with the configuration while the same words come
/// again. Every instruction's rows follow from the plan and the counters
/// and tile position at the run's start ([`RunStart`]); the plan keeps
/// those it last worked out, and a run from the same start (as each tile
/// of a kernel's loop is) takes them as they are.
pub(super) fn follow(
    parts: &mut Parts<'_>,
    decoded: &mut Decoded,
    thread: usize,
    words: &[u32],
    pending: &mut Pending,
) -> (usize, Result<()>) {
    let Some(run) = pending.run else {
        return (0, Ok(()));
    };
    let Decoded {
        shared,
        packers,
        prepared,
        run_plan,
        ..
    } = decoded;
    let plan = run_plan.get_or_insert_with(RunPlan::new_boxed);
    if !plan.serves(words, thread, run) {
        plan.compile(words, prepared, thread, run);
    }
    let pk = &packers[0];
    let adc = run.adc as usize;
    let (Some([[x, .., w], _]), Some([(y, y_mask), (z, z_mask)])) = (
        parts.adcs.values(adc, Unit::Packers),
        parts.adcs.yz(adc, Unit::Packers, 0),
    ) else {
        return (0, Ok(()));
    };
    let unit = &parts.units[0];
    let start = RunStart {
        x,
        w,
        y,
        z,
        masks: [y_mask, z_mask],
        strict_groups: parts.strict_groups,
        tile: unit.tile_position,
    };
    if plan.from != Some(start) {
        plan.work_out(start, shared, pk);
    }
    let room = pending.room(run.to, &unit.streams, parts.l1);
    // The run's `Last` follows the plan's words, where `words` holds it
    // (it is the plan's `next`, since the plan serves them).
    let last = plan.last.as_ref().filter(|_| words.len() > plan.len);
    let given = plan.len + usize::from(last.is_some());
    // `room` counts the rows waiting, and each word's rows join them.
    let free = room.saturating_sub(pending.len);
    let ends = &plan.ends[..plan.worked.min(given)];
    // Most often every word fits (a tile's run from its start).
    let fit = match ends.last() {
        Some(&end) if usize::from(end) <= free => ends.len(),
        _ => ends.partition_point(|&end| usize::from(end) <= free),
    };
    // Each word reads 16 datums (`Express::qualify`), with the X counters
    // the run started with (`PACR` steps only Y and Z): the words within
    // the datum budget. The next one faults as `one_word` counts it.
    let within = usize::try_from(parts.datums.room() / 16).unwrap_or(usize::MAX);
    let taken = fit.min(within);
    let mut tile_position = start.tile;
    if let Some(k) = taken.checked_sub(1) {
        pending.extend(run.to, &plan.read[..usize::from(plan.ends[k])]);
        tile_position = plan.tiles[k];
    }
    // The words before the `Last` executed, and the `Last`'s rows wait if
    // it was taken too.
    let (mut done, last) = match last {
        Some((_, after)) if taken > plan.len => (plan.len, Some(after)),
        _ => (taken, None),
    };
    if done == 0 && last.is_none() {
        return (0, Ok(()));
    }
    let unit = &mut parts.units[0];
    unit.tile_position = tile_position;
    unit.tile_position_live = true;
    parts.tag += done as u64;
    let mut effect = &plan.before[done];
    let mut outcome = Ok(());
    if let Some(after) = last {
        pending.write_out(parts, shared);
        let unit = &mut parts.units[0];
        outcome = unit.streams.flush(parts.l1, None, parts.tag);
        if outcome.is_ok() {
            unit.tile_position_live = false;
            effect = after;
            parts.tag += 1;
            done += 1;
        }
    }
    let counted = parts.datums.take(16 * done as u64);
    debug_assert!(counted.is_ok(), "the words taken are within the budget");
    // The set exists: its counters were read above.
    let stepped = parts.adcs.apply_yz(adc, Unit::Packers, effect);
    debug_assert!(stepped.is_ok());
    (done, outcome)
}

/// The most words a [`RunPlan`] holds: as many as can wait, each with at
/// least one row.
const PLAN_WORDS: usize = PENDING_ROWS;

/// A run's express `PACR` words after its first, compiled: what each does
/// that follows from its word, thread and the configuration (its rows
/// relative to `StartRow`, its counter steps), and the counters' effect
/// before each word from those at the run's start. Kept with the decoded
/// configuration, which a store to Config or ThreadConfig replaces, plan
/// and all ([`Decoded::refresh`]).
#[derive(Clone, Debug)]
pub(super) struct RunPlan {
    thread: usize,
    run: Run,
    /// How many words the plan holds.
    len: usize,
    words: [u32; PLAN_WORDS],
    /// The prepared word that ended the plan, not of the run (`None`: the
    /// words ran out, or the next was not prepared yet).
    next: Option<u32>,
    /// Where `next` is the run's `Last` (an express word of the run's ADC
    /// set and destination, with `Last`): its rows, and the counters' effect
    /// of the plan's words and it.
    last: Option<(RowsRead, YzEffect)>,
    rows: [RowsRead; PLAN_WORDS],
    /// Entry `k`: the packer `Y` and `Z` counters' effect of words `0..k`.
    before: [YzEffect; PLAN_WORDS + 1],
    /// The start the rows below were worked out from (`None`: not yet for
    /// these words).
    from: Option<RunStart>,
    /// How many of the words, the `Last` after them included, read whole
    /// rows from `from`, up to the first that does not or that would have
    /// more than [`PENDING_ROWS`] rows wait: no more than these can be
    /// taken from that start.
    worked: usize,
    /// The rows those words read, back to back (and room for a fixed-size
    /// copy of four after them).
    read: [u32; PENDING_ROWS + 4],
    /// Entry `k`: how many rows words `0..=k` read.
    ends: [u8; PLAN_WORDS + 1],
    /// Entry `k`: the tile position after word `k`.
    tiles: [TilePosition; PLAN_WORDS + 1],
}

/// What the rows a run's words read depend on besides the configuration
/// and the words: channel 0's counters at the run's start (`X` and `W`
/// stay as they are through it), their widths, whether an instruction's
/// interfaces may leave their group of four rows, and the tile position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RunStart {
    x: u32,
    w: u32,
    y: Counter,
    z: Counter,
    masks: [u32; 2],
    strict_groups: bool,
    tile: TilePosition,
}

impl RunPlan {
    fn new_boxed() -> Box<RunPlan> {
        let none = RowsRead {
            offsets: [0; 4],
            mask: 0,
            count: 0,
        };
        Box::new(RunPlan {
            thread: 0,
            run: Run {
                adc: 0,
                to: RowsTo::L1(Kernel::Fp32ToFp32),
            },
            len: 0,
            words: [0; PLAN_WORDS],
            next: None,
            last: None,
            rows: [none; PLAN_WORDS],
            before: [YzEffect::NONE; PLAN_WORDS + 1],
            from: None,
            worked: 0,
            read: [0; PENDING_ROWS + 4],
            ends: [0; PLAN_WORDS + 1],
            tiles: [TilePosition::default(); PLAN_WORDS + 1],
        })
    }

    /// Forget the words (for a new configuration).
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Whether the plan is the one [`RunPlan::compile`] would make of
    /// `words` for `thread` in `run`: the same words, up to one that ends
    /// the run again or the end of `words`.
    fn serves(&self, words: &[u32], thread: usize, run: Run) -> bool {
        self.len > 0
            && self.thread == thread
            && self.run == run
            && words.get(..self.len) == Some(&self.words[..self.len])
            && (words.len() == self.len
                || self.len == PLAN_WORDS
                || words.get(self.len) == self.next.as_ref())
    }

    /// Compile the words at the start of `words` that belong to `run`.
    fn compile(&mut self, words: &[u32], prepared: &PreparedWords, thread: usize, run: Run) {
        self.thread = thread;
        self.run = run;
        self.from = None;
        self.len = 0;
        self.next = None;
        self.last = None;
        let mut effect = YzEffect::NONE;
        for &word in words.iter().take(PLAN_WORDS) {
            let Some(slot) = prepared.find(word, thread) else {
                break;
            };
            let prep = prepared.at(slot);
            let of_run =
                (prep.express.as_ref()).filter(|x| x.adc == run.adc && x.rows_to == run.to);
            match of_run {
                Some(x) if !prep.fields.last => {
                    self.words[self.len] = word;
                    self.rows[self.len] = x.rows;
                    self.before[self.len] = effect;
                    effect = effect.then(&prep.steps);
                    self.len += 1;
                }
                end => {
                    self.next = Some(word);
                    // The run's own `Last`, or a word of another kind.
                    self.last = end.map(|x| (x.rows, effect.then(&prep.steps)));
                    break;
                }
            }
        }
        self.before[self.len] = effect;
    }

    /// Work out which rows each word reads from `start`, and where it
    /// leaves the tile position, as each would execute after the one
    /// before it: `StartRow` from channel 0's `Y` and `Z` after the steps
    /// of the words before it ([`RunPlan::before`]), the read as
    /// [`RowsRead::at`] takes it.
    fn work_out(&mut self, start: RunStart, shared: &Shared, pk: &PackerConfig) {
        let [y_mask, z_mask] = start.masks;
        let words = self.rows[..self.len]
            .iter()
            .chain(self.last.as_ref().map(|(r, _)| r));
        let (mut total, mut tile) = (0, start.tile);
        self.worked = 0;
        for (k, (rows, before)) in words.zip(&self.before).enumerate() {
            let [y_effect, z_effect] = before.0[0];
            let (y, z) = (
                y_effect.value(start.y, y_mask),
                z_effect.value(start.z, z_mask),
            );
            let ch0 = [start.x, y, z, start.w];
            let Some(read) = rows.at(start.strict_groups, shared, pk, ch0) else {
                break;
            };
            let n = usize::from(rows.count);
            if total + n > PENDING_ROWS {
                break;
            }
            self.read[total..total + 4].copy_from_slice(&read);
            total += n;
            tile.advance_rows(n as u32, pk.reads_per_xy_plane);
            self.ends[k] = total as u8;
            self.tiles[k] = tile;
            self.worked = k + 1;
        }
        self.from = Some(start);
    }
}

/// What an express instruction without `Last` found that only a `Last`, an
/// instruction of another kind, or other instructions than `PACR` change,
/// while its rows wait: its ADC set's `X` counters (so the read stays whole
/// rows), the streams' addresses, taken as it started, an empty BFP
/// assembler, and a tile in progress. The next instruction with the same
/// ADC set and destination needs none of these checked again, nor a stream
/// start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    adc: u8,
    to: RowsTo,
}

/// The rows of consecutive express instructions, waiting to be converted
/// and written to L1 together. Writing them later is the same as writing
/// each instruction's at once, since nothing between reads L1 or changes
/// `Dst`, the streams' addresses or the BFP assembler, and their writes
/// cannot fault ([`Pending::fits`]); but the L1 write log tags each write
/// with its instruction, so while L1 logs (and for the per-datum path)
/// nothing waits ([`Pending::new`]).
pub(super) struct Pending {
    on: bool,
    to: Option<RowsTo>,
    /// Set while the last instruction's rows wait and it had no `Last`.
    run: Option<Run>,
    /// The waiting rows, then room for an instruction's four rows whatever
    /// its count (so that they are added in one fixed-size copy).
    rows: [u32; PENDING_ROWS + 4],
    len: usize,
}

/// The most rows that wait: a tile's 64.
const PENDING_ROWS: usize = fast::TILE_ROWS;

impl Pending {
    /// Nothing waiting, and nothing ever to wait unless `on`.
    pub fn new(on: bool) -> Pending {
        Pending {
            on,
            to: None,
            run: None,
            rows: [0; PENDING_ROWS + 4],
            len: 0,
        }
    }

    /// Whether instructions' rows may wait.
    pub fn on(&self) -> bool {
        self.on
    }

    /// Whether `n` rows going `to` can join those waiting.
    fn takes(&self, to: RowsTo, n: usize) -> bool {
        self.len + n <= PENDING_ROWS && (self.len == 0 || self.to == Some(to))
    }

    /// Whether the waiting rows and `n` more going `to` write only inside
    /// L1, from `streams` as they are: a fixed-format kernel's into an empty
    /// data-stream buffer, a BFP form's exponents and data in two ranges
    /// that do not overlap (so the order of their writes does not matter).
    fn fits(&self, to: RowsTo, n: usize, streams: &Streams, l1: &L1) -> bool {
        let rows = self.len + n;
        // The end of the 16-byte groups a stream writes for `bytes` more.
        let end =
            |s: &OutStream, bytes: usize| s.byte_address as usize + (s.pending() + bytes) / 16 * 16;
        match to {
            RowsTo::L1(kernel) => {
                let data = &streams.data;
                data.pending() == 0
                    && kernel
                        .row_bytes()
                        .is_some_and(|b| end(data, rows * b) <= l1.len())
            }
            RowsTo::Bfp(form) => {
                let (exp, data) = (&streams.exp, &streams.data);
                let exp_end = end(exp, rows);
                let data_end = end(data, rows * form.width.group_bytes());
                let (e, d) = (exp.byte_address as usize, data.byte_address as usize);
                exp_end <= l1.len()
                    && data_end <= l1.len()
                    && (exp_end <= d || data_end <= e || e == exp_end || d == data_end)
            }
        }
    }

    /// The most rows, those waiting included, that may wait for `to` from
    /// `streams` as they are: the largest count [`Pending::fits`] allows
    /// (at least those waiting, which it allowed), found by halving, since
    /// each of its conditions holds up to some count and not beyond and
    /// the streams do not move while rows wait.
    fn room(&self, to: RowsTo, streams: &Streams, l1: &L1) -> usize {
        let fits = |total: usize| self.fits(to, total - self.len, streams, l1);
        if fits(PENDING_ROWS) {
            return PENDING_ROWS;
        }
        // `fits(lo)` holds and `fits(hi)` does not.
        let (mut lo, mut hi) = (self.len, PENDING_ROWS);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Add the first `n` of `rows` (checked with [`Pending::takes`] and
    /// [`Pending::fits`]).
    fn add(&mut self, to: RowsTo, rows: [u32; 4], n: usize) {
        self.rows[self.len..self.len + 4].copy_from_slice(&rows);
        self.len += n;
        self.to = Some(to);
    }

    /// Add `rows`, read by instructions each checked as for
    /// [`Pending::add`].
    fn extend(&mut self, to: RowsTo, rows: &[u32]) {
        self.rows[self.len..self.len + rows.len()].copy_from_slice(rows);
        self.len += rows.len();
        self.to = Some(to);
    }

    /// Convert the waiting rows and write them through the streams.
    #[inline]
    pub fn write_out(&mut self, parts: &mut Parts<'_>, shared: &Shared) {
        self.run = None;
        if self.len == 0 {
            return;
        }
        let rows = &self.rows[..self.len];
        self.len = 0;
        let (streams, l1, tag) = (&mut parts.units[0].streams, &mut *parts.l1, parts.tag);
        let written = match self.to {
            Some(RowsTo::L1(kernel)) => {
                fast::whole_rows_to_l1(kernel, shared, &mut streams.data, l1, tag, parts.dst, rows)
            }
            Some(RowsTo::Bfp(form)) => form
                .to_streams::<{ fast::TILE_ROWS }>(shared, streams, l1, tag, parts.dst, rows)
                .is_ok(),
            None => true,
        };
        // `Pending::fits` was checked for these rows.
        debug_assert!(written, "waiting rows that did not fit in L1");
    }
}
