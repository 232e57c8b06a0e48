//! Timing shared by the benches: a case and its `memcpy` baseline measured
//! in the same process, in alternate batches.

use std::time::Instant;

/// Per-iteration times, in nanoseconds, of `f` and of `base`, each timed
/// over `iters` and `base_iters` calls in alternate batches, so that a
/// change of clock speed or load during the run touches both alike.
/// (Not `Duration / iters`, which truncates to whole nanoseconds: a 13.9 ns
/// memcpy would count as 13.)
pub fn paired(
    batches: usize,
    (iters, mut f): (u32, impl FnMut()),
    (base_iters, mut base): (u32, impl FnMut()),
) -> Paired {
    let time = |n: u32, g: &mut dyn FnMut()| {
        let t = Instant::now();
        for _ in 0..n {
            g();
        }
        t.elapsed().as_secs_f64() * 1e9 / f64::from(n)
    };
    let (mut a, mut b, mut r) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..batches.max(1) {
        let x = time(iters, &mut f);
        let y = time(base_iters, &mut base);
        a.push(x);
        b.push(y);
        r.push(x / y.max(1e-3));
    }
    let fastest = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let best_ratio = fastest(&a) / fastest(&b).max(1e-3);
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Paired {
        ns: median(&mut a),
        base_ns: median(&mut b),
        ratio: median(&mut r),
        best_ratio,
    }
}

/// What [`paired`] measured.
pub struct Paired {
    /// Median time per call of the case and of the baseline.
    pub ns: f64,
    pub base_ns: f64,
    /// Median of the batch-by-batch ratios.
    pub ratio: f64,
    /// The case's fastest batch over the baseline's fastest: noise on a
    /// shared machine only ever adds time, and on this project's 2-core
    /// machine the median ratio of one binary moves by up to 2x from one
    /// minute to the next, the fastest batches far less.
    pub best_ratio: f64,
}

/// The options every bench takes: `--bench` (which `cargo bench` passes;
/// without it, as under `cargo test --benches`, one quick pass), a filter
/// on the case names (the first argument not starting `--`, so that
/// `'-> BF16'` filters too), and `BATCHES_VAR=n` to run more batches (for a
/// profiler).
pub struct Options {
    pub batches: usize,
    pub iters: u32,
    pub filter: Option<String>,
}

impl Options {
    pub fn from_env(batches_var: &str) -> Options {
        let quick = !std::env::args().any(|a| a == "--bench");
        let filter = std::env::args().skip(1).find(|a| !a.starts_with("--"));
        let (batches, iters) = if quick { (1, 1) } else { (31, 200) };
        let batches = std::env::var(batches_var)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(batches);
        Options {
            batches,
            iters,
            filter,
        }
    }

    /// Whether the case called `name` runs.
    pub fn wants(&self, name: &str) -> bool {
        self.filter
            .as_ref()
            .is_none_or(|f| name.contains(f.as_str()))
    }
}

/// The `memcpy` baseline's source and destination: both start on a 64-byte
/// line, and the destination starts 64 bytes past a 4 KiB boundary from the
/// source, so that every case copies under the same alignment (without
/// this, two allocations of the same size copied 1.5 to 2 times slower or
/// faster depending on where the allocator put them).
pub struct CopyPair {
    buf: Vec<u8>,
    src: usize,
    dst: usize,
    len: usize,
}

impl CopyPair {
    pub fn new(bytes: &[u8]) -> CopyPair {
        let len = bytes.len();
        let span = len.div_ceil(4096) * 4096 + 64;
        let buf = vec![0u8; 64 + span + len];
        let src = buf.as_ptr().align_offset(64);
        let mut pair = CopyPair {
            buf,
            src,
            dst: src + span,
            len,
        };
        pair.buf[src..src + len].copy_from_slice(bytes);
        pair
    }

    /// One copy of the bytes.
    #[inline]
    pub fn copy(&mut self) {
        let (a, b) = self.buf.split_at_mut(self.dst);
        std::hint::black_box(&mut b[..self.len])
            .copy_from_slice(std::hint::black_box(&a[self.src..self.src + self.len]));
    }
}
