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
use super::fast::{self, BfpRows, Kernel};
use super::input::{self, ReadInterfaces, Source};
use super::late::Late;
use super::output::{self, OutputInputs};
use super::prepared::Prepared;
use super::{Context, PacrFields, Parts};
use crate::adc::Unit;
use crate::arch::Arch;
use crate::fault::Result;

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

    /// Execute the instruction if it qualifies with the counters, streams
    /// and L1 as they are: whole rows (`InputNumDatums` 16 from column 0),
    /// read interfaces within their group of four rows (or the check off),
    /// an empty BFP assembler, and for a fixed-format kernel an empty
    /// data-stream buffer whose writes all lie inside L1. Returns
    /// `Ok(false)`, having changed nothing the general path would not
    /// change the same way, where it does not qualify. Its faults are those
    /// of the general path at the same point: a BFP group's stream leaving
    /// L1, and `Last` writing the buffers.
    #[inline]
    pub fn run(
        &self,
        parts: &mut Parts<'_>,
        prep: &Prepared,
        shared: &Shared,
        pk: &PackerConfig,
    ) -> Result<bool> {
        let adc = self.adc as usize;
        let Some([ch0, ch1]) = parts.adcs.values(adc, Unit::Packers) else {
            return Ok(false);
        };
        if ch1[0].wrapping_sub(ch0[0]) != 15 {
            return Ok(false);
        }
        let start = input::dst_start(pk, input::addr(shared, ch0), ch0[0]);
        let start_row = start >> 4;
        if start & 0xF != 0
            || (parts.strict_groups && (self.interfaces.mask as u32) << (start_row & 3) > 0b1111)
        {
            return Ok(false);
        }
        let unit = &mut parts.units[0];
        if unit.bfp.pending() > 0 {
            return Ok(false);
        }
        // As the general path: fresh stream addresses where needed, then
        // the tile position restarted if no tile is in progress.
        let outs = OutputInputs {
            packer0_initial: output::initial_addr(pk),
            ch1,
            l1_dest_addr_offset: parts.l1_dest_addr_offset[0],
            performing_compression: false,
        };
        output::start(shared, pk, 0, &outs, &mut unit.streams);
        let rows = self.offsets.map(|o| start_row + o);
        let rows = &rows[..self.rows as usize];
        let (l1, tag) = (&mut *parts.l1, parts.tag);
        if !unit.tile_position_live {
            unit.tile_position = Default::default();
        }
        match self.rows_to {
            RowsTo::L1(kernel) => {
                let data = &mut unit.streams.data;
                if !fast::whole_rows_to_l1(kernel, shared, data, l1, tag, parts.dst, rows) {
                    return Ok(false);
                }
            }
            RowsTo::Bfp(form) => {
                form.to_streams(shared, &mut unit.streams, l1, tag, parts.dst, rows)?;
            }
        }
        unit.tile_position
            .advance_rows(self.rows as u32, pk.reads_per_xy_plane);
        if prep.fields.last {
            unit.streams.flush(l1, None, tag)?;
            unit.tile_position_live = false;
        } else {
            unit.tile_position_live = true;
        }
        parts.adcs.step_yz(adc, Unit::Packers, &prep.steps)?;
        Ok(true)
    }
}
