//! Unpacking 32x32 tiles (four 16x16 faces) through the LLK-style UNPACR
//! program, into SrcA and Dst (unpacker 0) and SrcB (unpacker 1), beside a `memcpy` of the same L1 bytes
//! measured in the same run.
//!
//! The emulator and the `memcpy` are timed in alternate batches; the bench
//! reports the median time of each, the median of the per-batch ratios
//! (emulator time over `memcpy` time) and the ratio of the fastest batches
//! ([`common::Paired::best_ratio`]).
//!
//! `cargo bench -p tensix-emu --bench unpack [-- FILTER]`;
//! `UNPACK_BENCH_BATCHES=n` runs n batches.

mod common;

use std::hint::black_box;
use tensix_emu::format::DataFormat as F;
use tensix_emu::unpack::program::TileUnpack;
use tensix_emu::{Arch, Limits, Machine};

const AT: u32 = 0x1_0000;

/// L1 bytes of one tile: exponent section (BFP) then datums, from a
/// deterministic pattern.
fn tile_bytes(format: F) -> Vec<u8> {
    let datum_bytes = format.datum_bits() as usize * 1024 / 8;
    let exps = if format.is_bfp() { 64 } else { 0 };
    let mut x = 0x2545_F491u32;
    (0..exps + datum_bytes)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if i < exps {
                0x70 + (x % 16) as u8
            } else {
                x as u8
            }
        })
        .collect()
}

/// Where a case's datums go.
#[derive(Clone, Copy)]
enum To {
    SrcA,
    SrcB,
    Dst,
}

fn bench(opt: &common::Options, arch: Arch, name: &str, input: F, output: F, to: To) {
    let job = TileUnpack {
        unpacker: matches!(to, To::SrcB) as usize,
        in_format: input,
        out_format: output,
        to_dst: matches!(to, To::Dst),
        l1_addr: AT,
        faces: 4,
        face_rows: 16,
        set_dvalid: false,
        dst_row: 0,
    };
    let bytes = tile_bytes(input);
    let mut m = Machine::new(arch);
    m.write_l1(AT, &bytes).expect("tile fits in L1");
    job.configure(&mut m).expect("configuration");
    let program = [job.program(arch).expect("program")];
    m.run(&program, Limits::default()).expect("the job runs");

    let mut copy = common::CopyPair::new(&bytes);
    let t = common::paired(
        opt.batches,
        (opt.iters, || {
            black_box(&mut m)
                .run(black_box(&program), Limits::default())
                .unwrap();
        }),
        (opt.iters * 50, || copy.copy()),
    );
    println!(
        "{:<11} {name:<20} {:>6} {:>9.0} {:>12.0} {:>10.1} {:>7.1}x {:>7.1}x",
        arch.to_string(),
        bytes.len(),
        t.ns,
        1e9 / t.ns,
        t.base_ns,
        t.ratio,
        t.best_ratio
    );
}

const CASES: [(&str, F, F, To); 11] = [
    ("BF16 -> SrcA", F::Float16B, F::Float16B, To::SrcA),
    ("BFP8_b -> SrcA", F::Bfp8B, F::Bfp8B, To::SrcA),
    ("BFP4_b -> SrcA", F::Bfp4B, F::Bfp4B, To::SrcA),
    ("BFP2_b -> SrcA", F::Bfp2B, F::Bfp2B, To::SrcA),
    ("FP32 -> SrcA (TF32)", F::Float32, F::Tf32, To::SrcA),
    ("BF16 -> SrcB", F::Float16B, F::Float16B, To::SrcB),
    ("BFP8_b -> SrcB", F::Bfp8B, F::Bfp8B, To::SrcB),
    ("FP32 -> SrcB (TF32)", F::Float32, F::Tf32, To::SrcB),
    ("BF16 -> Dst", F::Float16B, F::Float16B, To::Dst),
    ("BFP8_b -> Dst", F::Bfp8B, F::Bfp8B, To::Dst),
    ("FP32 -> Dst", F::Float32, F::Float32, To::Dst),
];

fn main() {
    let opt = common::Options::from_env("UNPACK_BENCH_BATCHES");
    println!(
        "{:<11} {:<20} {:>6} {:>9} {:>12} {:>10} {:>8} {:>8}",
        "arch", "case", "B/tile", "ns/tile", "tiles/s", "memcpy ns", "ratio", "best"
    );
    for arch in [Arch::Blackhole, Arch::WormholeB0] {
        for (name, input, output, to) in CASES {
            if opt.wants(name) {
                bench(&opt, arch, name, input, output, to);
            }
        }
    }
}
