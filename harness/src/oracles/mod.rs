//! The independent checks the fuzz targets and the corpus replays run. Each
//! public oracle takes one generated input and panics with a readable report
//! when it finds a disagreement; its `check_*` twin returns the same finding
//! as a value, for `repro` and for tests.
//!
//! Legal outcomes are counted, not reported (as wasmtime counts "poisoned"
//! runs): an undefined-behaviour fault is legal unless the oracle says the
//! input was well defined, and an `Unimplemented` or `Unsupported` fault
//! means the emulator does not model the input yet ("not modelled").

pub mod formats;
pub mod invariants;
pub mod isa;
pub mod report;
pub mod targets;
pub mod tile;
pub mod vector;

pub use invariants::{check_program, pack_program, unpack_program};
pub use tile::{
    check_pack_tile, check_roundtrip, check_unpack_tile, pack_tile_diff, roundtrip,
    unpack_tile_diff,
};

use crate::vector::Vector;
use std::collections::BTreeMap;
use std::fmt;
use tensix_emu::{Fault, FaultKind, Limits, Machine};

/// Scheduler steps one generated program may take. A well-formed program of
/// the generators' size needs far fewer; reaching it means a hang.
pub const STEP_BUDGET: u64 = 1_000_000;

/// Datums the `PACR`s and `UNPACR`s of one generated job may read
/// ([`Limits::max_datums`]) before its run stops with a `ResourceLimit`:
/// 16 tiles of 1,024 datums. A tile job reads at most one tile a run, so
/// there the stop is a fault on a well-defined job like any other, and a
/// finding. It bounds the program targets, whose random counters, drop
/// and decompression counts and MOP loops can read hundreds of thousands
/// of datums in a few hundred instructions; there it is a legal outcome,
/// not a hang. Such a run reaches nothing its first 16 tiles do not, but
/// costs as much as thousands of others: before the budget, a corpus that
/// a five-minute `unpack_program` run grew to 2,141 inputs spent over half
/// of its time on eight of them.
pub const DATUM_BUDGET: u64 = 1 << 14;

/// The bounds of every oracle run.
pub const LIMITS: Limits = Limits {
    max_steps: STEP_BUDGET,
    max_datums: DATUM_BUDGET,
};

/// A legal outcome of one oracle run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The emulator and the oracle agree.
    Agree,
    /// The run stopped with an undefined-behaviour fault, or the oracle
    /// calls the input undefined: any outcome is legal.
    Poisoned(String),
    /// The emulator does not model this input yet (`Unimplemented` or
    /// `Unsupported`).
    NotModelled(String),
    /// The oracle does not cover this input; only the invariants were checked.
    NotCovered(String),
    /// The run stopped with a fault the input makes legal (an invalid
    /// instruction, a deadlock) on an input no model covers.
    Stopped(FaultKind),
    /// The input was refused with a located, typed error (a word that is
    /// no instruction, bytes that are no vector): the legal outcome for it.
    Rejected(String),
}

impl Verdict {
    /// A short class name for tallies.
    pub fn class(&self) -> &'static str {
        match self {
            Verdict::Agree => "agree",
            Verdict::Poisoned(_) => "poisoned (undefined behaviour)",
            Verdict::NotModelled(_) => "not modelled by the emulator",
            Verdict::NotCovered(_) => "not covered by the oracle",
            Verdict::Stopped(_) => "stopped with a legal fault",
            Verdict::Rejected(_) => "rejected with a located error",
        }
    }
}

/// A disagreement: what kind, and the whole report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Stable class of the disagreement, e.g. `"L1 bytes differ"`; two
    /// findings of the same kind are "the same failure" for shrinking.
    pub kind: String,
    /// The readable report.
    pub report: String,
}

impl Finding {
    pub fn new(kind: impl Into<String>, report: impl Into<String>) -> Finding {
        Finding {
            kind: kind.into(),
            report: report.into(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\n{}", self.kind, self.report)
    }
}

/// Panic with the finding's report (what a fuzz target does with it).
pub fn expect_agreement(r: Result<Verdict, Finding>, target: &str) -> Verdict {
    match r {
        Ok(v) => v,
        Err(f) => panic!("{target}: {}\n{}", f.kind, f.report),
    }
}

/// Counts of legal outcomes, for corpus replays (wasmtime's "poisoned" runs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub counts: BTreeMap<&'static str, usize>,
}

impl Tally {
    pub fn add(&mut self, v: &Verdict) {
        *self.counts.entry(v.class()).or_default() += 1;
    }

    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }

    pub fn get(&self, class: &str) -> usize {
        self.counts.get(class).copied().unwrap_or(0)
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .counts
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        f.write_str(&parts.join(", "))
    }
}

use crate::run::L1Log;
pub use crate::run::Workbench;

/// A vector's setup applied to one of `bench`'s machines, or a finding when
/// the generated setup is refused (a generator bug).
pub fn prepare(bench: &mut Workbench, v: &Vector) -> Result<Box<Machine>, Finding> {
    bench.prepare(v).map_err(|e| {
        Finding::new(
            "generated setup refused",
            format!("the generator made a setup the machine refuses: {e}"),
        )
    })
}

/// Run the vector's programs on `m` (its setup applied) within
/// [`LIMITS`], recording L1 writes. The machine is run in place: the
/// oracles never copy L1, which keeps a fuzz iteration cheap.
pub fn execute(v: &Vector, m: &mut Machine) -> Option<Fault> {
    crate::run::run_within(v, m, L1Log::On, LIMITS)
}

/// The faults that end a comparison without a finding, whatever the input.
fn legal_fault(f: &Fault) -> Option<Verdict> {
    match f.kind {
        FaultKind::Unimplemented | FaultKind::Unsupported => {
            Some(Verdict::NotModelled(f.rule.clone()))
        }
        _ => None,
    }
}

/// A step budget running out is a hang; MOP/REPLAY expansion budgets are
/// the emulator's documented limits.
fn is_hang(f: &Fault) -> bool {
    f.kind == FaultKind::ResourceLimit && f.rule.contains("step budget")
}

/// Invariants every run keeps: L1 writes are 16 bytes at 16-byte aligned
/// addresses inside L1 (`Packers/README.md`), and inside `window` when the
/// job's output window is known.
pub fn check_writes(m: &Machine, window: Option<(u64, u64)>) -> Result<(), Finding> {
    let size = m.l1.len() as u64;
    for w in m.l1.log() {
        let at = u64::from(w.addr);
        if at % 16 != 0 || at + 16 > size {
            return Err(Finding::new(
                "L1 write not 16-byte aligned inside L1",
                format!("a 16-byte write at {at:#x} (L1 is {size:#x} bytes)"),
            ));
        }
        if let Some((lo, hi)) = window {
            if at < lo || at + 16 > hi {
                return Err(Finding::new(
                    "L1 write outside the output window",
                    format!(
                        "a 16-byte write at {at:#x}, outside the job's output window \
                         {lo:#x}..{hi:#x}"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Determinism: the same vector run again, on another of `bench`'s machines
/// (reset from whatever job it ran last) and with L1's write log off, leaves
/// what `first` left (its fault, L1's bytes, `Dst`, `SrcA`, `SrcB`, the
/// ADCs). Besides determinism, this holds the paths a run takes only
/// unlogged (a `PACR` run's rows written together at its end,
/// `tensix_emu::pack::express`) to those the logged first run took. Run
/// for the jobs `bench` checks ([`Workbench::checks_determinism`]).
pub fn check_determinism(
    bench: &mut Workbench,
    v: &Vector,
    first: &Machine,
    first_fault: &Option<Fault>,
) -> Result<(), Finding> {
    if !bench.checks_determinism(v) {
        return Ok(());
    }
    let mut m = prepare(bench, v)?;
    let fault = crate::run::run_within(v, &mut m, L1Log::Off, LIMITS);
    let differs = crate::run::first_difference(first, first_fault, &m, &fault);
    bench.give_back(m);
    match differs {
        None => Ok(()),
        Some(part) => Err(Finding::new(
            "differs when run again unlogged",
            format!(
                "running the same input again, with L1's write log off, left a different \
                 {part} (the first run: {first_fault:?}; the second: {fault:?})"
            ),
        )),
    }
}
