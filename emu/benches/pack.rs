//! Packing one 32x32 tile (four 16x16 faces) from `Dst` on Blackhole through
//! the whole instruction sequence tt-llk programs (ADC setup, then one PACR
//! per four rows with the address modifiers stepping rows and faces, Last on
//! the final one), timed beside a `memcpy` of the same number of output
//! bytes.
//!
//! `cargo bench -p tensix-emu --bench pack`. Each case runs repeated batches
//! and reports the median time per tile. No external benchmark crate: the
//! loop is timed with `std::time::Instant`, and `std::hint::black_box` keeps
//! the work from being optimised away.

mod common;

use std::hint::black_box;

use tensix_emu::regs::{CfgField as C, ThreadCfgField as T};
use tensix_emu::state::dst::DstView;
use tensix_emu::{Arch, Limits, Machine, Step, ThreadProgram};

/// Instruction words (Blackhole encodings, as the conformance vectors use).
const SETADCXX_X_END_15: u32 = 0x5E80_3C00;
const SETADCXY_CLEAR: u32 = 0x5180_000B;
const SETADCZW_CLEAR: u32 = 0x5480_000F;

/// `PACR` with all four read interfaces, `AddrMod` and `Last`.
fn pacr(addr_mode: u32, last: bool) -> u32 {
    0x4100_0000 | (addr_mode << 15) | last as u32
}

struct Case {
    name: &'static str,
    read_32b: bool,
    dstacc: u32,
    out: u32,
    /// Bytes per `Dst` datum as the input address generator counts them.
    in_bytes: u32,
    /// Output bytes of one tile (exponents included).
    out_bytes: usize,
}

const CASES: [Case; 6] = [
    Case {
        name: "BF16 -> BF16",
        read_32b: false,
        dstacc: 5,
        out: 5,
        in_bytes: 2,
        out_bytes: 2048,
    },
    Case {
        name: "FP32 -> BF16",
        read_32b: true,
        dstacc: 5,
        out: 5,
        in_bytes: 2,
        out_bytes: 2048,
    },
    Case {
        name: "BF16 -> BFP8_b",
        read_32b: false,
        dstacc: 6,
        out: 6,
        in_bytes: 1,
        out_bytes: 64 + 1024,
    },
    Case {
        name: "FP32 -> BFP4_b",
        read_32b: true,
        dstacc: 0,
        out: 7,
        in_bytes: 4,
        out_bytes: 64 + 512,
    },
    Case {
        name: "BF16 -> BFP2_b",
        read_32b: false,
        dstacc: 6,
        out: 15,
        in_bytes: 1,
        out_bytes: 64 + 256,
    },
    Case {
        name: "FP16 -> BFP4a",
        read_32b: false,
        dstacc: 1,
        out: 3,
        in_bytes: 2,
        out_bytes: 64 + 512,
    },
];

const L1_DEST: u32 = 0x1000; // first byte at (0x1000 + 1) * 16

fn machine(c: &Case) -> Machine {
    let mut m = Machine::new(Arch::Blackhole);
    let s = 0;
    let cfg = &mut m.config;
    cfg.set(s, C::ALU_FORMAT_SPEC_REG2_Dstacc, c.dstacc);
    cfg.set(s, C::PCK_DEST_RD_CTRL_Read_32b_data, c.read_32b as u32);
    cfg.set(s, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 16 * c.in_bytes);
    cfg.set(s, C::PCK0_ADDR_CTRL_ZW_REG_0_Zstride, 256 * c.in_bytes);
    cfg.set(s, C::PCK0_ADDR_CTRL_ZW_REG_0_Wstride, 1024 * c.in_bytes);
    cfg.set(s, C::PCK_EDGE_OFFSET_SEC0_mask, 0xFFFF);
    cfg.set(s, C::PACK_COUNTERS_SEC0_pack_reads_per_xy_plane, 16);
    cfg.set(s, C::THCON_SEC0_REG1_Exp_section_size, 4);
    cfg.set(s, C::THCON_SEC0_REG1_L1_Dest_addr, L1_DEST);
    cfg.set(s, C::THCON_SEC0_REG1_Disable_zero_compress, 1);
    cfg.set(s, C::THCON_SEC0_REG1_In_data_format, c.dstacc);
    cfg.set(s, C::THCON_SEC0_REG1_Out_data_format, c.out);
    let tc = &mut m.thread_config;
    // ADDR_MOD 0: next four rows; 1: back to the start (end of tile);
    // 2: next face.
    tc.set(2, T::ADDR_MOD_PACK_SEC0_YsrcIncr, 4);
    tc.set(2, T::ADDR_MOD_PACK_SEC0_YdstIncr, 4);
    tc.set(2, T::ADDR_MOD_PACK_SEC1_YsrcClear, 1);
    tc.set(2, T::ADDR_MOD_PACK_SEC1_YdstClear, 1);
    tc.set(2, T::ADDR_MOD_PACK_SEC1_ZsrcClear, 1);
    tc.set(2, T::ADDR_MOD_PACK_SEC2_YsrcClear, 1);
    tc.set(2, T::ADDR_MOD_PACK_SEC2_YdstIncr, 4);
    tc.set(2, T::ADDR_MOD_PACK_SEC2_ZsrcIncr, 1);
    // A tile of varied values: every sign, a spread of exponents.
    let mut x = 0x1234_5678u32;
    for row in 0..64u32 {
        let mut vals = [0u32; 16];
        for v in &mut vals {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *v = (x & 0x8000_0000) | ((0x70 + (x >> 8) % 32) << 23) | (x & 0x7F_FFFF);
            if !c.read_32b {
                *v >>= 16;
            }
        }
        let view = match (c.read_32b, c.dstacc) {
            (true, _) => DstView::Fp32,
            (false, 1) => DstView::Fp16,
            _ => DstView::Bf16,
        };
        m.write_dst_row(view, row, &vals).expect("Dst row");
    }
    m
}

fn program() -> Vec<ThreadProgram> {
    let mut steps = vec![
        Step::Instruction(SETADCXX_X_END_15),
        Step::Instruction(SETADCXY_CLEAR),
        Step::Instruction(SETADCZW_CLEAR),
    ];
    for face in 0..4 {
        for quad in 0..4 {
            let (mode, last) = match (face, quad) {
                (3, 3) => (1, true),
                (_, 3) => (2, false),
                _ => (0, false),
            };
            steps.push(Step::Instruction(pacr(mode, last)));
        }
    }
    vec![ThreadProgram { thread: 2, steps }]
}

fn main() {
    // `cargo bench --bench pack -- BFP8` runs the cases whose name contains
    // the text; `PACK_BENCH_BATCHES=n` runs n batches.
    let opt = common::Options::from_env("PACK_BENCH_BATCHES");
    let programs = program();
    println!(
        "{:<16} {:>12} {:>14} {:>12} {:>14} {:>8} {:>8}",
        "case", "ns/tile", "tiles/s", "memcpy ns", "memcpy/s", "ratio", "best"
    );
    for c in CASES.iter().filter(|c| opt.wants(c.name)) {
        let mut m = machine(c);
        m.run(&programs, Limits::default())
            .expect("the tile packs without a fault");
        let mut copy = common::CopyPair::new(&vec![0xA5u8; c.out_bytes]);
        let t = common::paired(
            opt.batches,
            (opt.iters, || {
                black_box(&mut m)
                    .run(black_box(&programs), Limits::default())
                    .expect("pack");
            }),
            (opt.iters * 50, || copy.copy()),
        );
        println!(
            "{:<16} {:>12.0} {:>14.0} {:>12.1} {:>14.0} {:>7.1}x {:>7.1}x",
            c.name,
            t.ns,
            1e9 / t.ns,
            t.base_ns,
            1e9 / t.base_ns.max(1e-3),
            t.ratio,
            t.best_ratio
        );
    }
}
