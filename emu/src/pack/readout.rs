//! `SETDMAREG` in its special form (`SetSignalsMode` = 1): the Scalar Unit
//! reads 128 bits of packer state and writes 16, 32 or 128 of them to the
//! issuing thread's GPRs (tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/SETDMAREG_Special.md`; Blackhole
//! has no page of its own for it).
//!
//! Of the page's input sources, the exponent histogram halves (6 and 7) and
//! packer 0's running maximum exponent (9) are modelled. The tile sizes and
//! all-zero flags (sources 0 to 5 and 8) belong to packer bookkeeping the
//! emulator does not keep, so they stop the run with `Unimplemented`; sources
//! 10 to 15 are not cases of the page's `switch`, which leaves its 128-bit
//! value at zero.

use super::PackerState;
use crate::arch::Arch;
use crate::fault::{Fault, Result};
use crate::state::Gprs;

/// The special form's fields: the immediate `SETDMAREG` word's
/// `ResultHalfReg` (bits 0..7), the payload (bits 8..22) holding
/// `InputHalfReg`, `InputSource` and `WhichPackers`, and `ResultSize`
/// (bits 22..24).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecialRead {
    pub result_half_reg: u32,
    pub input_half_reg: u32,
    pub input_source: u32,
    pub which_packers: u32,
    pub result_size: u32,
}

impl SpecialRead {
    /// Split the generated decoder's fields: `payload` is the 14-bit
    /// `PayloadSigSel`, laid out `WhichPackers << 7 | InputSource << 3 |
    /// InputHalfReg` (SETDMAREG_Special.md, "Syntax").
    pub const fn new(result_half_reg: u32, payload: u32, result_size: u32) -> SpecialRead {
        SpecialRead {
            result_half_reg: result_half_reg & 0x7F,
            input_half_reg: payload & 0x7,
            input_source: (payload >> 3) & 0xF,
            which_packers: (payload >> 7) & 0xF,
            result_size: result_size & 0x3,
        }
    }
}

/// The 128-bit value `InputSource` selects.
fn source_value(arch: Arch, packers: &PackerState, r: &SpecialRead) -> Result<[u32; 4]> {
    match r.input_source {
        6 | 7 => {
            // `WhichPackers & 3` indexes the packers here.
            let index = (r.which_packers & 3) as usize;
            if arch == Arch::Blackhole && index != 0 {
                return Err(Fault::unsupported(format!(
                    "SETDMAREG reading the exponent histogram of packer {index}: Blackhole has \
                     a single packer, and the Wormhole page indexing four has no Blackhole \
                     counterpart"
                )));
            }
            let unit = packers
                .unit(index)
                .ok_or_else(|| Fault::unsupported(format!("there is no packer {index}")))?;
            let bins = unit.histogram.bins();
            let half = &bins[16 * (r.input_source as usize - 6)..][..16];
            let mut v = [0u32; 4];
            for (w, b) in v.iter_mut().zip(half.chunks_exact(4)) {
                *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            Ok(v)
        }
        9 => {
            let unit = packers
                .unit(0)
                .ok_or_else(|| Fault::unsupported("there is no packer 0"))?;
            Ok([unit.histogram.max_exponent(), 0, 0, 0])
        }
        0..=5 | 8 => Err(Fault::unimplemented(format!(
            "SETDMAREG InputSource {}: packer tile sizes and all-zero flags are not modelled",
            r.input_source
        ))),
        _ => Ok([0; 4]),
    }
}

/// Bits of each 32-bit word of a tile header that `ResultSize` 3 replaces;
/// the rest are reserved and keep what the GPRs held. `TileSize` is the low
/// half of word 0; word 1 carries `DataFormat` (bits 16..20),
/// `DisableZeroCompression` (bit 20) and `SpareBits` (bits 21..24); word 2
/// is `AllZeroFlags`; word 3 is reserved.
const TILE_HEADER_FIELDS: [u32; 4] = [0x0000_FFFF, 0x00FF_0000, 0xFFFF_FFFF, 0];

/// Execute the special form for `thread`.
pub fn setdmareg_special(
    arch: Arch,
    packers: &PackerState,
    gprs: &mut Gprs,
    thread: usize,
    r: &SpecialRead,
) -> Result<()> {
    let v = source_value(arch, packers, r)?;
    let no_gpr = || Fault::unsupported(format!("SETDMAREG from thread {thread}: no such GPRs"));
    match r.result_size {
        0 => {
            let h = r.input_half_reg as usize;
            let half = (v[h / 2] >> (16 * (h % 2))) as u16;
            if !gprs.set_half(thread, r.result_half_reg as usize, half) {
                return Err(no_gpr());
            }
        }
        1 => {
            let value = v[(r.input_half_reg >> 1) as usize];
            if !gprs.set(thread, (r.result_half_reg >> 1) as usize, value) {
                return Err(no_gpr());
            }
        }
        _ => {
            let first = ((r.result_half_reg >> 1) & 0x3C) as usize;
            for (k, w) in v.iter().enumerate() {
                let value = if r.result_size == 3 {
                    let old = gprs.get(thread, first + k).ok_or_else(no_gpr)?;
                    (old & !TILE_HEADER_FIELDS[k]) | (w & TILE_HEADER_FIELDS[k])
                } else {
                    *w
                };
                if !gprs.set(thread, first + k, value) {
                    return Err(no_gpr());
                }
            }
        }
    }
    Ok(())
}
