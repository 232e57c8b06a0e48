//! Unpacking 32x32 tiles (four 16x16 faces) through the LLK-style UNPACR
//! program, into SrcA and into Dst, beside a `memcpy` of the same L1 bytes
//! measured in the same run.
//!
//! Each measurement times batches of tiles with `std::time::Instant`,
//! repeats the batch, and reports the median batch as tiles per second;
//! the ratio is emulator time over `memcpy` time.

use std::hint::black_box;
use std::time::{Duration, Instant};
use tensix_emu::format::DataFormat as F;
use tensix_emu::unpack::program::TileUnpack;
use tensix_emu::{Arch, Limits, Machine};

const AT: u32 = 0x1_0000;

/// Median of `batches` timings of `batch` calls of `f`.
fn median_batch(batches: usize, batch: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..batches)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..batch {
                f();
            }
            start.elapsed()
        })
        .collect();
    times.sort();
    times[batches / 2]
}

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

fn bench(batches: usize, batch: usize, arch: Arch, name: &str, input: F, output: F, to_dst: bool) {
    let job = TileUnpack {
        unpacker: 0,
        in_format: input,
        out_format: output,
        to_dst,
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

    let emu = median_batch(batches, batch, || {
        black_box(&mut m)
            .run(black_box(&program), Limits::default())
            .unwrap();
    });
    let mut sink = vec![0u8; bytes.len()];
    let copy = median_batch(batches, batch * 100, || {
        black_box(&mut sink[..]).copy_from_slice(black_box(&bytes[..]));
    });
    let emu_tile = emu.as_secs_f64() / batch as f64;
    let copy_tile = copy.as_secs_f64() / (batch * 100) as f64;
    println!(
        "{arch:<11} {name:<22} {:>5} B/tile  emulator {:>10.0} tiles/s  memcpy {:>12.0} tiles/s  ratio {:>7.0}x",
        bytes.len(),
        1.0 / emu_tile,
        1.0 / copy_tile,
        emu_tile / copy_tile
    );
}

const CASES: [(&str, F, F, bool); 8] = [
    ("BF16 -> SrcA", F::Float16B, F::Float16B, false),
    ("BFP8_b -> SrcA", F::Bfp8B, F::Bfp8B, false),
    ("BFP4_b -> SrcA", F::Bfp4B, F::Bfp4B, false),
    ("BFP2_b -> SrcA", F::Bfp2B, F::Bfp2B, false),
    ("FP32 -> SrcA (TF32)", F::Float32, F::Tf32, false),
    ("BF16 -> Dst", F::Float16B, F::Float16B, true),
    ("BFP8_b -> Dst", F::Bfp8B, F::Bfp8B, true),
    ("FP32 -> Dst", F::Float32, F::Float32, true),
];

fn main() {
    // `cargo bench` passes `--bench`; run any other way (`cargo test
    // --benches`, `--all-targets`) one quick pass only.
    let quick = !std::env::args().any(|a| a == "--bench");
    // `cargo bench --bench unpack -- BFP8` runs the cases whose name
    // contains the text.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    // `UNPACK_BENCH_BATCHES=n` runs more batches (for a profiler).
    let (batches, batch) = if quick { (1, 1) } else { (15, 200) };
    let batches = std::env::var("UNPACK_BENCH_BATCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(batches);
    for arch in [Arch::Blackhole, Arch::WormholeB0] {
        for (name, input, output, to_dst) in CASES {
            if filter.as_ref().is_none_or(|f| name.contains(f.as_str())) {
                bench(batches, batch, arch, name, input, output, to_dst);
            }
        }
    }
}
