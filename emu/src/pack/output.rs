//! The output address generator: where each of a packer's three streams
//! starts in L1 (tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/Packers/OutputAddressGenerator.md`,
//! functional model).

use super::config::{PackerConfig, Shared};
use super::stream::Streams;
use crate::arch::Arch;

/// The address (in 16-byte units) `L1_Dest_addr` gives a packer before the
/// ADC contribution: `L1_Dest_addr + !Sub_l1_tile_header_size` (the `+ 1`
/// skips a 16-byte tile header).
pub const fn initial_addr(pk: &PackerConfig) -> u32 {
    pk.l1_dest_addr
        .wrapping_add(if pk.sub_l1_tile_header_size { 0 } else { 1 })
}

/// The `YZW_Addr` term from ADC channel 1 `[X, Y, Z, W]`: Wormhole counts it
/// in 16-byte units and clears its low four bits (so ADCs move the output in
/// 256-byte steps); Blackhole counts it in bytes and shifts it right by four.
pub fn yzw_addr(shared: &Shared, ch1: [u32; 4]) -> u32 {
    let s = &shared.ch1;
    let a = s
        .base
        .wrapping_add(ch1[1].wrapping_mul(s.y))
        .wrapping_add(ch1[2].wrapping_mul(s.z))
        .wrapping_add(ch1[3].wrapping_mul(s.w));
    match shared.arch {
        Arch::Blackhole => a >> 4,
        Arch::WormholeB0 => a & !15,
    }
}

/// Everything the generator needs for one packer.
#[derive(Clone, Copy, Debug)]
pub struct OutputInputs {
    /// `Packer0InitialAddr`: packer 0's [`initial_addr`]. On Wormhole, when
    /// its bit 31 is set, packers 1..=3 add it to their own address.
    pub packer0_initial: u32,
    /// ADC channel 1 of the ADC set in use.
    pub ch1: [u32; 4],
    /// `l1_dest_addr_offset`, the 16-bit field TDMA-RISC sets.
    pub l1_dest_addr_offset: u16,
    pub performing_compression: bool,
}

/// Assign fresh stream addresses where needed, as the instruction starts
/// (`NeedsNewAddress`: a stream keeps its address until `Last` or `Flush`,
/// so most instructions assign none).
#[inline]
pub fn start(
    shared: &Shared,
    pk: &PackerConfig,
    packer: usize,
    inputs: &OutputInputs,
    streams: &mut Streams,
) {
    if needs_address(pk, inputs.performing_compression, streams) {
        assign(shared, pk, packer, inputs, streams);
    }
}

/// Whether some stream the instruction uses needs a fresh address: the data
/// stream always, the RSI stream when compressing, the exponent stream for
/// a BFP output.
#[inline]
pub fn needs_address(pk: &PackerConfig, performing_compression: bool, streams: &Streams) -> bool {
    streams.data.needs_new_address
        || (performing_compression && streams.rsi.needs_new_address)
        || (pk.out_format_code & 2 != 0 && streams.exp.needs_new_address)
}

/// [`start`] once some stream needs an address: the address generator's
/// functional model, each stream taking its address where it needs one.
fn assign(
    shared: &Shared,
    pk: &PackerConfig,
    packer: usize,
    inputs: &OutputInputs,
    streams: &mut Streams,
) {
    let mut addr = initial_addr(pk);
    if packer != 0 && inputs.packer0_initial & 0x8000_0000 != 0 {
        addr = addr.wrapping_add(inputs.packer0_initial);
    }
    addr = addr.wrapping_add(yzw_addr(shared, inputs.ch1));
    if pk.add_l1_dest_addr_offset {
        addr = addr.wrapping_add(inputs.l1_dest_addr_offset as u32);
    }
    // FIFO wrap: `Pack_limit_address` and `Pack_fifo_size` count 32-byte
    // units, the address 16-byte units.
    if addr > pk.limit_address.wrapping_mul(2).wrapping_add(1) {
        addr = addr.wrapping_sub(pk.fifo_size.wrapping_mul(2));
    }
    if inputs.performing_compression {
        streams.rsi.assign(addr);
        addr = addr.wrapping_add(pk.row_start_section_size);
    }
    // `Out_data_format & 2` catches every BFP format, and FP8 and INT8 too,
    // though those produce no exponents: they still reserve Exp_section_size.
    if pk.out_format_code & 2 != 0 {
        streams.exp.assign(addr);
        addr = addr.wrapping_add(pk.exp_section_size);
    }
    streams.data.assign(addr);
}

/// Whether packer `packer` compresses: `Disable_zero_compress` clear, or with
/// `All_pack_disable_zero_compress_ovrd` its bit of
/// `All_pack_disable_zero_compress` clear.
pub fn performing_compression(
    pk: &PackerConfig,
    all_ovrd: bool,
    all_disable: u32,
    packer: usize,
) -> bool {
    let disabled = if all_ovrd {
        all_disable & (1 << packer) != 0
    } else {
        pk.disable_zero_compress
    };
    !disabled
}
