//! Shared set-up for the `unpack_*` tests: a machine with one unpacker
//! configured the way tt-llk configures it, and small program builders.
//!
//! Expected values in the tests are written from the documented layouts
//! (a `SrcA`/`SrcB` cell is sign [18], exponent [17:10], mantissa [9:0], so
//! a BF16 pattern `b` is the cell `b << 3`; `SrcASrcB.md`), never computed
//! with the emulator's own conversion functions.

#![allow(dead_code)]

use tensix_emu::isa::{encode, Instruction};
use tensix_emu::regs::{CfgField, ThreadCfgField};
use tensix_emu::{Arch, Fault, Limits, Machine, RunStats, Step, ThreadProgram};

/// A Tensix instruction from its text form.
pub fn insn(arch: Arch, text: &str) -> Step {
    let i: Instruction = text.parse().unwrap_or_else(|e| panic!("{text}: {e:?}"));
    Step::Instruction(encode(arch, &i).unwrap_or_else(|e| panic!("{text}: {e}")))
}

/// Run `texts` on `thread`.
pub fn run(m: &mut Machine, thread: usize, texts: &[&str]) -> Result<RunStats, Fault> {
    let arch = m.arch();
    let steps = texts.iter().map(|t| insn(arch, t)).collect();
    m.run(&[ThreadProgram { thread, steps }], Limits::default())
}

/// Run several threads' programs together.
pub fn run_threads(m: &mut Machine, programs: &[(usize, &[&str])]) -> Result<RunStats, Fault> {
    let arch = m.arch();
    let p: Vec<ThreadProgram> = programs
        .iter()
        .map(|(t, texts)| ThreadProgram {
            thread: *t,
            steps: texts.iter().map(|x| insn(arch, x)).collect(),
        })
        .collect();
    m.run(&p, Limits::default())
}

pub fn set(m: &mut Machine, field: CfgField, value: u32) {
    assert!(m.config.set(0, field, value), "{field:?}");
}

pub fn set_thread(m: &mut Machine, thread: usize, field: ThreadCfgField, value: u32) {
    assert!(m.thread_config.set(thread, field, value), "{field:?}");
}

/// Write the four tile descriptor words of unpacker `u` (Config state 0).
pub fn descriptor(m: &mut Machine, u: usize, words: [u32; 4]) {
    let first = if u == 0 {
        CfgField::THCON_SEC0_REG0_TileDescriptor
    } else {
        CfgField::THCON_SEC1_REG0_TileDescriptor
    };
    let a = first.on(m.arch()).unwrap().addr32 as usize;
    for (i, w) in words.iter().enumerate() {
        assert!(m.config.write_addr32(0, a + i, *w));
    }
}

/// Descriptor word 0: format, uncompressed, XDim.
pub fn desc0(format: u32, x_dim: u32) -> u32 {
    format | (1 << 4) | (x_dim << 16)
}

/// Unpacker 0 reading uncompressed `format` at tile base `base` (16-byte
/// units; the datums start one 16-byte header later) into `SrcA` with
/// `SRCA_SET_SetOvrdWithAddr`, outside `MultiContextMode`: output address 64
/// (`Base_address` of channel 1) so that the four header rows are skipped.
pub fn srca_job(arch: Arch, format: u32, x_dim: u32, base: u32) -> Machine {
    let mut m = Machine::new(arch);
    descriptor(&mut m, 0, [desc0(format, x_dim), 1, 0, 0]);
    set(&mut m, CfgField::THCON_SEC0_REG2_Out_data_format, format);
    set(&mut m, CfgField::THCON_SEC0_REG3_Base_address, base);
    set(
        &mut m,
        CfgField::UNP0_ADDR_BASE_REG_1_Base,
        64 * out_bytes(format),
    );
    set_thread(&mut m, 0, ThreadCfgField::SRCA_SET_SetOvrdWithAddr, 1);
    m
}

/// Unpacker 1 reading uncompressed `format` at `base` into `SrcB` row 0.
pub fn srcb_job(arch: Arch, format: u32, x_dim: u32, base: u32) -> Machine {
    let mut m = Machine::new(arch);
    descriptor(&mut m, 1, [desc0(format, x_dim), 1, 0, 0]);
    set(&mut m, CfgField::THCON_SEC1_REG2_Out_data_format, format);
    set(&mut m, CfgField::THCON_SEC1_REG3_Base_address, base);
    m
}

/// Bytes per datum the output address generator counts for `format`.
pub fn out_bytes(format: u32) -> u32 {
    match format {
        0 | 4 | 8 => 4,
        1 | 5 | 9 => 2,
        _ => 1,
    }
}

/// `SETADCXX` for unpacker `u`: channel 0 X = 0, channel 1 X = `end`.
pub fn xx(u: usize, end: u32) -> String {
    format!("SETADCXX cnt_set_mask={} x_end2={end:#x}", 1 << u)
}

/// A plain `UNPACR` (Wormhole and Blackhole share the fields used here).
pub fn unpacr(u: usize, extra: &str) -> String {
    format!("UNPACR unpack_block_selection={u} last=1 {extra}")
}

/// BF16 patterns as little-endian bytes.
pub fn bf16_bytes(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `SrcA[bank][row]`.
pub fn srca_row(m: &Machine, bank: usize, row: usize) -> [u32; 16] {
    std::array::from_fn(|c| m.srca.read(bank, row, c))
}

pub fn srcb_row(m: &Machine, bank: usize, row: usize) -> [u32; 16] {
    std::array::from_fn(|c| m.srcb.read(bank, row, c))
}

/// Sixteen BF16 values `first, first + 1, ...` (distinct, all normal).
pub fn ramp(first: u16, n: usize) -> Vec<u16> {
    (0..n as u16).map(|i| first + i).collect()
}

/// The `SrcA`/`SrcB` cell holding BF16 `b` (BF16 overlaid on TF32).
pub fn bf16_cell(b: u16) -> u32 {
    (b as u32) << 3
}

/// SplitMix64: a deterministic stream of random words for the generated
/// cases (no global state, no OS randomness).
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
