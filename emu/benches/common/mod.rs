//! Timing shared by the benches: a case and its `memcpy` baseline measured
//! in the same process, in alternate batches.

use std::time::Instant;

/// Per-iteration times, in nanoseconds, of `f` and of `base`, each timed
/// over `iters` and `base_iters` calls in alternate batches, so that a
/// change of clock speed or load during the run touches both alike.
/// Returns the medians of `f`'s time, `base`'s time and their ratio batch
/// by batch. (Not `Duration / iters`, which truncates to whole nanoseconds:
/// a 13.9 ns memcpy would count as 13.)
pub fn paired_medians(
    batches: usize,
    (iters, mut f): (u32, impl FnMut()),
    (base_iters, mut base): (u32, impl FnMut()),
) -> (f64, f64, f64) {
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
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (median(a), median(b), median(r))
}

/// The options every bench takes: `--bench` (which `cargo bench` passes;
/// without it, as under `cargo test --benches`, one quick pass), a filter
/// on the case names, and `BATCHES_VAR=n` to run more batches (for a
/// profiler).
pub struct Options {
    pub batches: usize,
    pub iters: u32,
    pub filter: Option<String>,
}

impl Options {
    pub fn from_env(batches_var: &str) -> Options {
        let quick = !std::env::args().any(|a| a == "--bench");
        let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
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
