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

use std::iter::Peekable;

use super::config::{Decoded, PackerConfig, Shared};
use super::fast::{self, BfpRows, Kernel};
use super::input::{self, ReadInterfaces, Source};
use super::late::Late;
use super::output::{self, OutputInputs};
use super::prepared::Prepared;
use super::stream::{OutStream, Streams};
use super::{Context, PacrFields, Parts};
use crate::adc::Unit;
use crate::arch::Arch;
use crate::fault::Result;
use crate::state::L1;

/// What an instruction word needs to take the express path, worked out with
/// its other choices ([`Prepared`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Express {
    rows_to: RowsTo,
    /// `ReadIntfSel` with its special case applied.
    interfaces: ReadInterfaces,
    /// The enabled interfaces' rows relative to `StartRow`, in interface
    /// order (BlackholeA0 PACR.md: interface `i` reads `StartRow + i`), and
    /// how many are enabled.
    offsets: [u32; 4],
    rows: u8,
    /// The ADC set packer 0 uses.
    adc: u8,
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
        let mut offsets = [0; 4];
        let mut rows = 0;
        for i in 0..4 {
            if let Some(offset) = f.read_interfaces.row(0, i) {
                offsets[rows] = offset;
                rows += 1;
            }
        }
        Some(Express {
            rows_to,
            interfaces: f.read_interfaces,
            offsets,
            rows: rows as u8,
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
        Some((self.rows_at(parts.strict_groups, shared, pk, ch0)?, ch1))
    }

    /// The `Dst` rows the enabled read interfaces read with channel 0's
    /// counters at `ch0`, where they start a row and stay within their
    /// group of four rows (or `!strict_groups`).
    #[inline(always)]
    fn rows_at(
        &self,
        strict_groups: bool,
        shared: &Shared,
        pk: &PackerConfig,
        ch0: [u32; 4],
    ) -> Option<[u32; 4]> {
        let start = input::dst_start(pk, input::addr(shared, ch0), ch0[0]);
        let start_row = start >> 4;
        if start & 0xF != 0
            || (strict_groups && (self.interfaces.mask as u32) << (start_row & 3) > 0b1111)
        {
            return None;
        }
        Some(self.offsets.map(|o| start_row + o))
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
            .advance_rows(self.rows as u32, pk.reads_per_xy_plane);
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
        let rows = &rows[..self.rows as usize];
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
        let rows = &all_rows[..self.rows as usize];
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
/// `words` while each is express, has the run's ADC set and destination,
/// and is not `Last`: each does what [`Express::defer`] does, checking only
/// what an instruction of the run can change ([`Run`]). Stops before the
/// first word it does not take (its prepared form not kept, another form,
/// `Last`, rows that do not qualify or do not fit), which the caller then
/// executes as usual. Returns how many it executed, and the fault, if any,
/// that the instruction after those raised after its effects.
pub(super) fn follow(
    parts: &mut Parts<'_>,
    decoded: &Decoded,
    thread: usize,
    words: &mut Peekable<impl Iterator<Item = u32>>,
    pending: &mut Pending,
) -> (usize, Result<()>) {
    let Some(run) = pending.run else {
        return (0, Ok(()));
    };
    let (shared, pk) = (&decoded.shared, &decoded.packers[0]);
    // Whether a full `Pending` fits; then so does any smaller count, since
    // each condition of `Pending::fits` holds up to some count of rows and
    // not beyond, and the streams do not move while rows wait.
    let all_fit = pending.fits(
        run.to,
        PENDING_ROWS - pending.len,
        &parts.units[0].streams,
        parts.l1,
    );
    // Bit `s`: prepared slot `s` is known to have the run's form.
    let mut of_run = 0u32;
    let mut done = 0;
    while let Some(&word) = words.peek() {
        let Some(slot) = decoded.prepared.find(word, thread) else {
            break;
        };
        let prep = decoded.prepared.at(slot);
        let Some(x) = &prep.express else {
            break;
        };
        if prep.fields.last {
            break;
        }
        if of_run & 1 << slot == 0 {
            if x.adc != run.adc || x.rows_to != run.to {
                break;
            }
            of_run |= 1 << slot;
        }
        let Some([ch0, _]) = parts.adcs.values(x.adc as usize, Unit::Packers) else {
            break;
        };
        let Some(rows) = x.rows_at(parts.strict_groups, shared, pk, ch0) else {
            break;
        };
        let n = x.rows as usize;
        if pending.len + n > PENDING_ROWS
            || !(all_fit || pending.fits(x.rows_to, n, &parts.units[0].streams, parts.l1))
        {
            break;
        }
        pending.add(x.rows_to, rows, n);
        words.next();
        if let Err(f) = x.finish(parts, prep, pk) {
            return (done, Err(f));
        }
        parts.tag += 1;
        done += 1;
    }
    (done, Ok(()))
}

/// What an express instruction without `Last` found that only a `Last`, an
/// instruction of another kind, or other instructions than `PACR` change,
/// while its rows wait: its ADC set's `X` counters (so the read stays whole
/// rows), the streams' addresses, taken as it started, an empty BFP
/// assembler, and a tile in progress. The next instruction with the same
/// ADC set and destination needs none of these checked again, nor a stream
/// start.
#[derive(Clone, Copy, Debug)]
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

    /// Add the first `n` of `rows` (checked with [`Pending::takes`] and
    /// [`Pending::fits`]).
    fn add(&mut self, to: RowsTo, rows: [u32; 4], n: usize) {
        self.rows[self.len..self.len + 4].copy_from_slice(&rows);
        self.len += n;
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
