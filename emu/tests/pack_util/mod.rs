//! Helpers shared by the `pack_*` tests: a machine with the packer
//! configured the way the tests describe, instruction words, and L1 reads.
#![allow(dead_code)]

use tensix_emu::adc::{Dim, Unit};
use tensix_emu::isa::{self, Instruction, Pacr, Setadcxx};
use tensix_emu::regs::{CfgField as C, ThreadCfgField as T};
use tensix_emu::state::dst::DstView;
use tensix_emu::{Arch, Fault, Limits, Machine, Step, ThreadProgram};

/// The pack thread (T2).
pub const PACK: usize = 2;

/// A machine with every edge mask passing, compression disabled on every
/// packer and 16 rows per xy plane: the neutral packer configuration.
pub fn machine(arch: Arch) -> Machine {
    let mut m = Machine::new(arch);
    for f in [
        C::PCK_EDGE_OFFSET_SEC0_mask,
        C::PCK_EDGE_OFFSET_SEC1_mask,
        C::PCK_EDGE_OFFSET_SEC2_mask,
        C::PCK_EDGE_OFFSET_SEC3_mask,
    ] {
        set(&mut m, f, 0xFFFF);
    }
    let packers = match arch {
        Arch::Blackhole => 1,
        Arch::WormholeB0 => 4,
    };
    let dzc = [
        C::THCON_SEC0_REG1_Disable_zero_compress,
        C::THCON_SEC0_REG8_Disable_zero_compress,
        C::THCON_SEC1_REG1_Disable_zero_compress,
        C::THCON_SEC1_REG8_Disable_zero_compress,
    ];
    let rows = [
        C::PACK_COUNTERS_SEC0_pack_reads_per_xy_plane,
        C::PACK_COUNTERS_SEC1_pack_reads_per_xy_plane,
        C::PACK_COUNTERS_SEC2_pack_reads_per_xy_plane,
        C::PACK_COUNTERS_SEC3_pack_reads_per_xy_plane,
    ];
    for p in 0..packers {
        set(&mut m, dzc[p], 1);
        set(&mut m, rows[p], 16);
    }
    m
}

/// Set a Config field of state 0.
pub fn set(m: &mut Machine, f: C, v: u32) {
    assert!(m.config.set(0, f, v), "{f:?} exists on {}", m.arch());
}

/// Set a ThreadConfig field of the pack thread.
pub fn set_t(m: &mut Machine, f: T, v: u32) {
    assert!(m.thread_config.set(PACK, f, v), "{f:?} exists");
}

/// Set one packer ADC counter (and its carriage-return copy) of ADC set
/// `set`.
pub fn adc(m: &mut Machine, set: usize, channel: usize, dim: Dim, v: u32) {
    m.adcs.load(set, Unit::Packers, channel, dim, v, v).unwrap();
}

/// Packer formats: `IntermediateFormat` (`Dstacc`), `In_data_format` and
/// `Out_data_format` of packer 0.
pub fn formats(m: &mut Machine, dstacc: u32, input: u32, output: u32) {
    set(m, C::ALU_FORMAT_SPEC_REG2_Dstacc, dstacc);
    set(m, C::THCON_SEC0_REG1_In_data_format, input);
    set(m, C::THCON_SEC0_REG1_Out_data_format, output);
}

pub fn pacr_word(arch: Arch, p: Pacr) -> u32 {
    isa::encode(arch, &Instruction::Pacr(p)).expect("PACR encodes")
}

/// `SETADCXX` for the packers: channel 0 X = `x0`, channel 1 X = `x1`.
pub fn setadcxx(arch: Arch, x0: u32, x1: u32) -> u32 {
    isa::encode(
        arch,
        &Instruction::Setadcxx(Setadcxx {
            x_start: x0,
            x_end2: x1,
            cnt_set_mask: 4,
        }),
    )
    .expect("SETADCXX encodes")
}

/// Instruction words as the pack thread's program.
pub fn pack_program(words: impl IntoIterator<Item = u32>) -> ThreadProgram {
    ThreadProgram {
        thread: PACK,
        steps: words.into_iter().map(Step::Instruction).collect(),
    }
}

/// Run instruction words on the pack thread.
pub fn run(m: &mut Machine, words: &[u32]) -> Result<(), Fault> {
    m.run(&[pack_program(words.iter().copied())], Limits::default())
        .map(|_| ())
}

/// `len` bytes of L1 from `addr`.
pub fn l1(m: &Machine, addr: u32, len: usize) -> Vec<u8> {
    m.l1.read(addr, len).expect("inside L1").to_vec()
}

/// Little-endian bytes of 16-bit values.
pub fn le16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Little-endian bytes of 32-bit values.
pub fn le32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Write `Dst16b` row `row` with BF16 values as the RISC-V window shows them.
pub fn dst_bf16(m: &mut Machine, row: u32, v: [u16; 16]) {
    m.write_dst_row(DstView::Bf16, row, &v.map(|x| x as u32))
        .unwrap();
}

/// Write `Dst16b` row `row` with FP16 values.
pub fn dst_fp16(m: &mut Machine, row: u32, v: [u16; 16]) {
    m.write_dst_row(DstView::Fp16, row, &v.map(|x| x as u32))
        .unwrap();
}

/// Write `Dst32b` row `row` with FP32 (or sign-magnitude INT32) values.
pub fn dst_fp32(m: &mut Machine, row: u32, v: [u32; 16]) {
    m.write_dst_row(DstView::Fp32, row, &v).unwrap();
}

/// The 16 BF16 values 1.0, 2.0, ..., 16.0.
pub const ONE_TO_16: [u16; 16] = [
    0x3F80, 0x4000, 0x4040, 0x4080, 0x40A0, 0x40C0, 0x40E0, 0x4100, 0x4110, 0x4120, 0x4130, 0x4140,
    0x4150, 0x4160, 0x4170, 0x4180,
];
