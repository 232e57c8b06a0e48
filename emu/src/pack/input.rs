//! The input address generator: where a packer's datums come from and how
//! many there are (tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/Packers/InputAddressGenerator.md`),
//! and on Blackhole the four `Dst` read interfaces that replace Wormhole's
//! contiguous read (`BlackholeA0/TensixTile/TensixCoprocessor/PACR.md`,
//! "`Dst` read interfaces").

use super::config::{PackerConfig, Shared};
use crate::arch::Arch;
use crate::fault::{Fault, Result};

/// Largest datum count one packer accepts from one `PACR`. The ADC X
/// counters are 18 bits wide, so `Channel[1].X - Channel[0].X + 1` is at
/// most 2^18 unless `Channel[1].X < Channel[0].X`, where the documented
/// `uint32_t` subtraction wraps to about 2^32 datums.
pub const MAX_DATUMS: u32 = 1 << 18;

/// Where a packer fetches its datums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `Dst`, from datum index `start` (`start >> 4` is the row, `start & 0xf`
    /// the column), `InputSourceAddr & 0x3fff`.
    Dst { start: u32 },
    /// `/dev/null` (`ZeroWrite` or `Flush`): every datum is zero.
    DevNull,
    /// L1 (packer 0 with `Source_interface_selection`): a byte address and
    /// the bytes per datum.
    L1 { addr: u32, bytes_per_datum: u32 },
}

/// What the input address generator decided for one packer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputPlan {
    pub source: Source,
    /// `InputNumDatums`: on Wormhole the contiguous datum count; on
    /// Blackhole the datums each enabled read interface takes from its row.
    pub count: u32,
    /// The ADC set whose channel 0 formed the address.
    pub adc: usize,
}

/// `BytesPerDatum` and `ADC_X_Mask` for an `In_data_format` code
/// (InputAddressGenerator.md: `In_data_format & 3` is 0 for 32-bit, 1 for
/// 16-bit formats, anything else one byte).
pub const fn bytes_per_datum(in_format_code: u8) -> (u32, u32) {
    match in_format_code & 3 {
        0 => (4, 0x3),
        1 => (2, 0x7),
        _ => (1, 0xF),
    }
}

/// The ADC set a packer uses: the issuing thread's, or with `OvrdThreadId`
/// the packer's `Addr_cnt_context` (3 meaning 0). Blackhole has no
/// `Addr_cnt_context` field and its PACR page leaves the override
/// undocumented ("`AddrCntContext` ... Not yet documented in detail").
pub fn which_adc(thread: usize, ovrd_thread_id: bool, pk: &PackerConfig) -> Result<usize> {
    if !ovrd_thread_id {
        return Ok(thread);
    }
    match pk.addr_cnt_context {
        Some(3) => Ok(0),
        Some(c) => Ok(c as usize),
        None => Err(Fault::unimplemented(
            "PACR OvrdThreadId on Blackhole: which ADC it selects is not documented \
             (BlackholeA0 PACR.md leaves AddrCntContext undocumented)",
        )),
    }
}

/// The datums a packer reads for ADC X counters `x0` (channel 0) and `x1`
/// (channel 1): `InputNumDatums = x1 - x0 + 1`, modulo 2^32, or none for a
/// `Flush` (InputAddressGenerator.md, functional model).
#[inline]
pub fn datum_count(x0: u32, x1: u32, flush: bool) -> u32 {
    if flush {
        0
    } else {
        x1.wrapping_sub(x0).wrapping_add(1)
    }
}

/// [`datum_count`], where the input address generator accepts it: at most
/// [`MAX_DATUMS`].
#[inline]
pub fn accepted_count(x0: u32, x1: u32, flush: bool) -> Option<u32> {
    Some(datum_count(x0, x1, flush)).filter(|&n| n <= MAX_DATUMS)
}

/// The input address generator's fault for ADC X counters `x0` (channel 0)
/// and `x1` (channel 1), if any: a datum count it does not accept
/// ([`accepted_count`]).
#[inline]
pub fn check_count(x0: u32, x1: u32, packer: usize, flush: bool) -> Result<()> {
    match accepted_count(x0, x1, flush) {
        Some(_) => Ok(()),
        None => Err(too_many_datums(packer, x1, x0, datum_count(x0, x1, flush))),
    }
}

/// The input address generator for packer `packer` (InputAddressGenerator.md,
/// functional model), ADC set `adc` whose packer channels hold `[ch0, ch1]`,
/// once [`check_count`] accepted them. `zero_write` and `flush` are the
/// instruction's bits.
#[inline]
pub fn plan_from(
    shared: &Shared,
    pk: &PackerConfig,
    [ch0, ch1]: [[u32; 4]; 2],
    adc: usize,
    packer: usize,
    zero_write: bool,
    flush: bool,
) -> InputPlan {
    let x = ch0[0];
    let addr = addr(shared, ch0);
    let (bpd, x_mask) = bytes_per_datum(pk.in_format_code);
    let count = datum_count(x, ch1[0], flush);
    let source = if zero_write || flush {
        Source::DevNull
    } else if packer == 0 && pk.source_interface_selection {
        // Only the low 18 bits of Addr are used; the high bits of the L1
        // address come from L1_source_addr.
        let a = (pk.l1_source_addr << 18).wrapping_add(addr & 0x3FFFF);
        let a = (a & !0xF).wrapping_add(bpd * (x & x_mask));
        Source::L1 {
            addr: a & 0x1F_FFFF,
            bytes_per_datum: bpd,
        }
    } else {
        Source::Dst {
            start: dst_start(pk, addr, x),
        }
    };
    InputPlan { source, count, adc }
}

/// `Addr`: the channel 0 counters `[X, Y, Z, W]` weighted by the strides,
/// from the base.
#[inline]
pub fn addr(shared: &Shared, [x, y, z, w]: [u32; 4]) -> u32 {
    let s = &shared.ch0;
    s.base
        .wrapping_add(x.wrapping_mul(s.x & 0xF))
        .wrapping_add(y.wrapping_mul(s.y))
        .wrapping_add(z.wrapping_mul(s.z))
        .wrapping_add(w.wrapping_mul(s.w))
}

/// The `Dst` datum index reading starts at: `Addr` in datums, its low bits
/// replaced by channel 0's `X` under `ADC_X_Mask`, plus the packer's
/// `DEST_TARGET_REG_CFG_PACK_SEC` offset in rows, `& 0x3fff`.
#[inline]
pub fn dst_start(pk: &PackerConfig, addr: u32, x: u32) -> u32 {
    let (bpd, x_mask) = bytes_per_datum(pk.in_format_code);
    // BytesPerDatum is a power of two: the division is a shift.
    let datums = addr >> bpd.trailing_zeros();
    ((datums & !x_mask)
        .wrapping_add(x & x_mask)
        .wrapping_add(pk.dest_offset << 4))
        & 0x3FFF
}

/// The fault for an ADC set index outside `ADCs[3]`.
#[cold]
pub fn no_adc_set(adc: usize) -> Fault {
    Fault::unsupported(format!(
        "ADC set {adc} does not exist (ADCs.md defines ADCs[3])"
    ))
}

#[cold]
fn too_many_datums(packer: usize, x1: u32, x0: u32, count: u32) -> Fault {
    Fault::unsupported(format!(
        "packer {packer}: InputNumDatums = Channel[1].X - Channel[0].X + 1 = {x1} - {x0} + 1 \
         wraps to {count}; counts above 2^18 are refused"
    ))
}

/// Blackhole's `ReadIntfSel` (0 meaning all four) and `DstAccessMode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadInterfaces {
    pub mask: u8,
    /// `DstAccessMode`: the strided read mode.
    pub strided: bool,
}

impl ReadInterfaces {
    /// `ReadIntfSel` with the special case applied: 0 enables all four.
    pub const fn new(read_intf_sel: u32, strided: bool) -> ReadInterfaces {
        let m = (read_intf_sel & 0xF) as u8;
        ReadInterfaces {
            mask: if m == 0 { 0xF } else { m },
            strided,
        }
    }

    /// Enabled read interfaces.
    #[inline]
    pub const fn count(self) -> u32 {
        // A table: the baseline x86-64 target has no population count.
        const ENABLED: [u8; 16] = [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4];
        match self.mask {
            m @ 0..=0xF => ENABLED[m as usize] as u32,
            m => m.count_ones(),
        }
    }

    /// The `Dst` row each read interface reads, `None` where it is disabled,
    /// for a `StartRow` from the input address generator.
    ///
    /// BlackholeA0 PACR.md: the enabled interfaces are taken relative to
    /// `StartRow` and every one of them must stay within the aligned group of
    /// four rows; `(ReadIntfSel << (StartRow & 3)) > 0b1111` is
    /// `UndefinedBehavior`. Interface `i` reads `StartRow + i`.
    ///
    /// Two disagreements between the page and ttsim v1.10.0, the model that
    /// computed the conformance vectors:
    /// * The page's pseudocode writes the row as `(StartRow & ~3) | i`, the
    ///   same as `StartRow + i` whenever the group rule holds only if
    ///   `StartRow` is a multiple of four. Its prose ("selected relative to
    ///   `StartRow`"), its own undefined-behaviour check (which shifts the
    ///   mask by `StartRow & 3`) and ttsim read `StartRow + i`, used here; no
    ///   higher source settles it
    ///   (`isa-spec/blackhole/pack/read-intf-relative-to-unaligned-start-row`).
    /// * ttsim v1.10.0 does not check the group rule; 29 of its Blackhole
    ///   vectors (e.g. `blackhole/pack/d16-fp16-to-fp16-0023`, four rows from
    ///   row 18) cross a group and record the rows `StartRow + i`. Later ttsim
    ///   releases reject this as undefined, as the page does. With
    ///   `strict_groups` (the default; `PackerState::allow_read_interface_group_crossing`
    ///   turns it off) the rule is enforced; without it the rows are
    ///   `StartRow + i` whatever the alignment, as ttsim v1.10.0 recorded.
    ///
    /// In the strided mode (`DstAccessMode`) interface `i` reads
    /// `StartRow + 16 * i`. The page says only that the mode reads rows 16
    /// apart and is meant for use with `DEST_ACCESS_CFG_swizzle_32b` and
    /// `DEST_ACCESS_CFG_remap_addrs`; ttsim models it for masks `0b0001`,
    /// `0b0011` and `0b1111` with both controls set, and so does this.
    pub fn rows(
        self,
        start_row: u32,
        remap: bool,
        swizzle: bool,
        strict_groups: bool,
    ) -> Result<[Option<u32>; 4]> {
        self.check(start_row, remap, swizzle, strict_groups)?;
        Ok(std::array::from_fn(|i| self.row(start_row, i)))
    }

    /// The rules [`ReadInterfaces::rows`] enforces for `StartRow`.
    #[inline]
    pub fn check(
        self,
        start_row: u32,
        remap: bool,
        swizzle: bool,
        strict_groups: bool,
    ) -> Result<()> {
        if self.strided {
            if !(remap && swizzle) {
                return Err(strided_without_controls(remap, swizzle));
            }
            if !matches!(self.mask, 0b0001 | 0b0011 | 0b1111) {
                return Err(strided_mask(self.mask));
            }
        } else if strict_groups && ((self.mask as u32) << (start_row & 3)) > 0b1111 {
            return Err(crosses_group(self.mask, start_row));
        }
        Ok(())
    }

    /// The row interface `i` (0..=3) reads, `None` where it is disabled; see
    /// [`ReadInterfaces::rows`], which also checks `StartRow`.
    #[inline]
    pub fn row(self, start_row: u32, i: usize) -> Option<u32> {
        let step = if self.strided { 16 } else { 1 };
        (i < 4 && self.mask & (1 << i) != 0).then_some(start_row + step * i as u32)
    }
}

#[cold]
fn strided_without_controls(remap: bool, swizzle: bool) -> Fault {
    Fault::unimplemented(format!(
        "PACR DstAccessMode without DEST_ACCESS_CFG_remap_addrs and swizzle_32b \
         (remap_addrs={}, swizzle_32b={}): BlackholeA0 PACR.md documents the strided \
         mode only for use with both",
        remap as u8, swizzle as u8
    ))
}

#[cold]
fn strided_mask(mask: u8) -> Fault {
    Fault::unimplemented(format!(
        "PACR DstAccessMode with ReadIntfSel = {mask:#06b}: its interaction with \
         ReadIntfSel is not yet documented (BlackholeA0 PACR.md)"
    ))
}

#[cold]
fn crosses_group(mask: u8, start_row: u32) -> Fault {
    Fault::undefined(format!(
        "PACR ReadIntfSel = {mask:#06b} with StartRow = {start_row}: every enabled read \
         interface has to stay within the aligned group of four Dst rows \
         (BlackholeA0 PACR.md)"
    ))
}

/// `Arch`-dependent datum ordering helper: whether a packer reads through
/// Blackhole's read interfaces.
pub const fn uses_read_interfaces(arch: Arch) -> bool {
    matches!(arch, Arch::Blackhole)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` is the number of set bits of the interface mask, for every
    /// mask (BlackholeA0 PACR.md: each set bit enables one read interface).
    #[test]
    fn count_is_the_number_of_enabled_interfaces() {
        for mask in 0..=255u8 {
            let r = ReadInterfaces {
                mask,
                strided: false,
            };
            assert_eq!(r.count(), mask.count_ones(), "{mask:#b}");
        }
        assert_eq!(ReadInterfaces::new(0, false).count(), 4);
    }
}
