//! Engines: everything that can run a vector and say what happened.
//!
//! The emulator is one engine; the others are reached through tt-umd (ttsim's
//! `libttsim.so`, a simulator directory such as Wolfpine's, a real card) by
//! the Python runner in `engines/`. An engine answers with an
//! [`Observation`] (L1 and whatever else it can read back, and the list of
//! what it cannot) or a verdict on the vector: it stopped on a rule it
//! enforces, it refused, or it timed out. A refusal is never a pass.

pub mod deviation;
pub mod known;
pub mod record;
pub mod umd;

use crate::device::dst_readback::{ObservedDst, ObservedSrc, Source};
use crate::device::src_readback::{moved_cells, SrcHandshake};
use crate::device::{self, RunFacts};
use crate::run;
use crate::vector::{FaultKind, Vector};
use std::ops::Range;
use tensix_emu::observe::{ExponentSource, PackSource};
use tensix_emu::regs::thread_config_words;

/// What an engine is, for reports and provenance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineInfo {
    /// `emulator`, `ttsim`, `wolfpine` or `device`: the provenance source.
    pub kind: String,
    /// Version, path or card, and tile.
    pub detail: String,
}

/// What an engine did with one vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Observed(Observation),
    /// The engine stopped the run on a rule it enforces, in a category the
    /// vector schema names (ttsim's `UndefinedBehavior`).
    Stopped {
        kind: FaultKind,
        message: String,
    },
    /// The engine, or the bridge to it, would not run the vector.
    Refused(String),
    /// The run did not finish in time.
    TimedOut(String),
}

/// The state an engine read back after a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    /// All of L1.
    pub l1: Vec<u8>,
    /// L1 bytes the engine used for itself (code, flags, scratch); not
    /// compared.
    pub l1_unobserved: Vec<Range<u32>>,
    /// The `Dst` rows read back, or why there are none.
    pub dst: Result<ObservedDst, String>,
    /// The `SrcA`/`SrcB` banks read back, or why there are none.
    pub src: Result<Box<ObservedSrc>, String>,
}

/// An engine.
pub trait Engine {
    fn info(&self) -> EngineInfo;
    fn run(&mut self, v: &Vector) -> Verdict;
}

/// How an engine's run compares with a vector's expectation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// Whether anything at all was held against the vector.
    pub compared: bool,
    pub mismatches: Vec<run::Mismatch>,
    /// What the vector expects that was not compared, and why.
    pub not_compared: Vec<String>,
    /// The `Dst`, `SrcA` or `SrcB` rows the vector expects that went
    /// uncompared, and why (also in `not_compared`): where there are any,
    /// the job's result was not all held to.
    pub result_gaps: Vec<String>,
}

/// Compare an engine's verdict with the vector's `expect`.
pub fn compare(v: &Vector, verdict: &Verdict) -> Comparison {
    let mut mismatches = Vec::new();
    let mut not_compared = Vec::new();
    let expected_fault = v.expect.fault.map(|f| f.kind);
    if let Some(k @ (FaultKind::Unsupported | FaultKind::Unimplemented)) = expected_fault {
        // Such a vector records what the emulator does not model, not what
        // the hardware does: there is nothing to hold an engine to.
        not_compared.push(format!(
            "everything: the vector expects the emulator's {k} fault, which says nothing of the hardware"
        ));
        return Comparison {
            compared: false,
            mismatches,
            not_compared,
            result_gaps: Vec::new(),
        };
    }
    // The ISA leaves the outcome undefined (DESIGN.md, "Faults"): the
    // emulator stops so that a checker sees it, and an engine or a card that
    // runs on, or stops another way, is not wrong for it.
    let another_outcome = match verdict {
        Verdict::Observed(_) => true,
        Verdict::Stopped { kind, .. } => *kind != FaultKind::UndefinedBehavior,
        Verdict::Refused(_) | Verdict::TimedOut(_) => false,
    };
    if expected_fault == Some(FaultKind::UndefinedBehavior) && another_outcome {
        not_compared.push(
            "everything: the vector expects undefined behaviour, which allows any outcome; \
             the engine did not stop with undefined behaviour"
                .into(),
        );
        return Comparison {
            compared: false,
            mismatches,
            not_compared,
            result_gaps: Vec::new(),
        };
    }
    let mut result_gaps = Vec::new();
    let compared = match verdict {
        Verdict::Observed(_) | Verdict::Stopped { .. } => true,
        Verdict::TimedOut(_) => expected_fault == Some(FaultKind::Deadlock),
        Verdict::Refused(_) => false,
    };
    match verdict {
        Verdict::Observed(obs) => {
            if let Some(k) = expected_fault {
                mismatches.push(run::Mismatch::Invariant(format!(
                    "the vector expects a fault ({k}); the engine completed the run"
                )));
            }
            let mut expected = vec![v.setup.l1_fill; obs.l1.len()];
            for r in &v.setup.l1 {
                put(&mut expected, r.addr, &r.bytes);
            }
            for r in v.expect.l1.iter().flatten() {
                put(&mut expected, r.addr, &r.bytes);
            }
            let mut actual = obs.l1.clone();
            for r in &obs.l1_unobserved {
                let r = r.start as usize..(r.end as usize).min(actual.len());
                if let (Some(e), Some(a)) = (expected.get_mut(r.clone()), actual.get(r.clone())) {
                    e.copy_from_slice(a);
                }
                not_compared.push(format!(
                    "L1 {:#x}..{:#x}: used by the engine itself (program image, Dst readback, parked cores)",
                    r.start, r.end
                ));
            }
            if expected != actual {
                actual.truncate(expected.len());
                mismatches.push(run::Mismatch::L1 { expected, actual });
            }
            if let Some(d) = &v.expect.dst {
                compare_dst(d, &obs.dst, &mut mismatches, &mut result_gaps);
            }
            for (source, rows) in [(Source::A, &v.expect.srca), (Source::B, &v.expect.srcb)] {
                if let Some(rows) = rows {
                    compare_src(source, rows, &obs.src, &mut mismatches, &mut result_gaps);
                }
            }
            not_compared.extend(result_gaps.iter().cloned());
            // No engine reads the ADCs back yet.
            if v.expect.adc.is_some() {
                not_compared.push("expect.adc: not read back from engines yet".into());
            }
        }
        Verdict::Stopped { kind, message } => {
            // ttsim calls a word that names no instruction UndefinedBehavior
            // (`tensix_decode_and_execute`); the schema's name for that case
            // is invalid_instruction.
            let same = expected_fault == Some(*kind)
                || (expected_fault == Some(FaultKind::InvalidInstruction)
                    && *kind == FaultKind::UndefinedBehavior);
            if !same {
                mismatches.push(run::Mismatch::Invariant(format!(
                    "the engine stopped with {kind} ({message}); the vector expects {}",
                    expected_fault.map_or("a completed run".into(), |k| k.to_string())
                )));
            }
            not_compared.push("the state after the fault".into());
        }
        // A deadlock, on an engine, is a run that never finishes.
        Verdict::TimedOut(_) if expected_fault == Some(FaultKind::Deadlock) => {
            not_compared.push("the state of the deadlocked run".into());
        }
        Verdict::Refused(_) | Verdict::TimedOut(_) => {
            not_compared.push("everything: the engine gave no result".into())
        }
    }
    Comparison {
        compared,
        mismatches,
        not_compared,
        result_gaps,
    }
}

/// Hold the `SrcA` or `SrcB` rows an engine showed against `want`; banks
/// it did not show are named with the reason, never passed.
fn compare_src(
    source: Source,
    want: &[crate::vector::SrcRow],
    seen: &Result<Box<ObservedSrc>, String>,
    mismatches: &mut Vec<run::Mismatch>,
    not_compared: &mut Vec<String>,
) {
    let which = source.name();
    let seen = match seen {
        Ok(s) => s,
        Err(why) => {
            if !want.is_empty() {
                not_compared.push(format!("expect.{which}: {why}"));
            }
            return;
        }
    };
    let mut missing: Vec<(u8, String)> = Vec::new();
    for r in want {
        match seen.row(source, r.bank, r.row) {
            Ok(words) => {
                let cells = moved_cells(&words);
                if let Err(w) = cells {
                    mismatches.push(run::Mismatch::Invariant(format!(
                        "{which} bank {} row {} read back as FP32 {w:#010x}: a 19-bit datum \
                         moved whole leaves the low 13 bits zero",
                        r.bank, r.row
                    )));
                }
                if cells != Ok(r.cells) {
                    mismatches.push(run::Mismatch::Src {
                        which,
                        bank: r.bank,
                        row: r.row,
                        expected: r.cells,
                        actual: words.map(|w| w >> 13),
                    });
                }
            }
            Err(why) => {
                if !missing.iter().any(|(b, _)| *b == r.bank) {
                    missing.push((r.bank, why));
                }
            }
        }
    }
    for (bank, why) in missing {
        not_compared.push(format!("expect.{which} bank {bank}: {why}"));
    }
}

/// Hold the `Dst` rows an engine showed against `expect.dst`; rows it did
/// not show are named, never passed.
fn compare_dst(
    want: &crate::vector::Dst,
    seen: &Result<ObservedDst, String>,
    mismatches: &mut Vec<run::Mismatch>,
    not_compared: &mut Vec<String>,
) {
    let seen = match seen {
        Ok(d) => d,
        Err(why) => {
            not_compared.push(format!("expect.dst: {why}"));
            return;
        }
    };
    let view = want.format.view();
    let mut missing = Vec::new();
    for r in &want.rows {
        match seen.row(view, u32::from(r.row)) {
            Some(actual) if actual == r.cells => {}
            Some(actual) => mismatches.push(run::Mismatch::Dst {
                format: want.format,
                row: r.row,
                expected: r.cells,
                actual,
            }),
            None => missing.push(r.row.to_string()),
        }
    }
    if !missing.is_empty() {
        not_compared.push(format!(
            "expect.dst rows {}: not read back",
            missing.join(", ")
        ));
    }
}

fn put(image: &mut [u8], addr: u32, bytes: &[u8]) {
    let start = addr as usize;
    if let Some(d) = image.get_mut(start..start + bytes.len()) {
        d.copy_from_slice(bytes);
    }
}

/// What the emulator's run of `v` tells its program image: the L1 it reads
/// or writes (16-byte units, merged), and the Config, TRISC2 ThreadConfig
/// and `Dst` addressing it ends with.
pub fn emulator_facts(v: &Vector) -> Result<RunFacts, String> {
    let mut before = run::prepare(v)?;
    before.observer = Some(Box::default());
    let (m, _) = run::execute(v, &before);
    let mut bytes: Vec<Range<u64>> =
        m.l1.log()
            .iter()
            .map(|w| u64::from(w.addr)..u64::from(w.addr) + 16)
            .collect();
    if let Some(o) = m.observer.as_deref() {
        let bits = |bit: i64, n: u32| {
            let first = bit.max(0) as u64;
            first / 8..(first + u64::from(n)).div_ceil(8)
        };
        for d in &o.unpack {
            bytes.push(bits(d.l1_bit, d.datum_bits.max(1)));
            if let ExponentSource::L1(b) = d.exp_from {
                bytes.push(bits(b * 8, 8));
            }
            if let Some(z) = d.zeroes_bit {
                bytes.push(bits(z, 16));
            }
        }
        for p in &o.pack {
            if let PackSource::L1 { addr } = p.source {
                bytes.push(u64::from(addr)..u64::from(addr) + 4);
            }
        }
    }
    // To 16-byte units, merged.
    let mut units: Vec<Range<u64>> = bytes
        .into_iter()
        .filter(|r| r.start < r.end)
        .map(|r| r.start & !15..r.end.div_ceil(16) * 16)
        .collect();
    units.sort_unstable_by_key(|r| r.start);
    let mut touched: Vec<Range<u64>> = Vec::new();
    for r in units {
        match touched.last_mut() {
            Some(t) if t.end >= r.start => t.end = t.end.max(r.end),
            _ => touched.push(r),
        }
    }
    let config = m
        .config
        .state_words(0)
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .filter(|(_, w)| **w != 0)
        .map(|(a, _)| a as u32)
        .collect();
    let thread2_regs = (0..thread_config_words(v.arch))
        .filter(|&r| m.thread_config.read(2, r).is_some_and(|w| w != 0))
        .map(|r| r as u8)
        .collect();
    let held = |r: &tensix_emu::state::SrcReg| SrcHandshake {
        matrix_owns: r
            .banks
            .each_ref()
            .map(|b| b.allowed_client == tensix_emu::state::SrcClient::MatrixUnit),
        matrix_bank: (r.matrix_bank & 1) as u8,
        unpacker_bank: (r.unpacker_bank & 1) as u8,
    };
    Ok(RunFacts {
        touched,
        config,
        thread2_regs,
        dst_addressing: m.dst_addressing(),
        src: [held(&m.srca), held(&m.srcb)],
    })
}

/// The program image for `v`, clear of everything the emulator writes.
pub fn image_for(v: &Vector) -> Result<device::Image, device::Refusal> {
    let run = emulator_facts(v).map_err(device::Refusal)?;
    device::build(v, &run)
}

/// The emulator as an engine: what the gate runs, seen through the same
/// trait as the others.
#[derive(Clone, Copy, Debug, Default)]
pub struct Emulator;

impl Engine for Emulator {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            kind: "emulator".into(),
            detail: format!("tensix-emu {}", env!("CARGO_PKG_VERSION")),
        }
    }

    fn run(&mut self, v: &Vector) -> Verdict {
        let before = match run::prepare(v) {
            Ok(m) => m,
            Err(e) => return Verdict::Refused(e),
        };
        let (m, fault) = run::execute(v, &before);
        match fault {
            Some(f) if f.kind == FaultKind::UndefinedBehavior => Verdict::Stopped {
                kind: f.kind,
                message: f.to_string(),
            },
            Some(f) => Verdict::Refused(f.to_string()),
            None => Verdict::Observed(Observation {
                l1: m.l1.bytes().to_vec(),
                l1_unobserved: Vec::new(),
                dst: Ok(ObservedDst::of_machine(&m)),
                src: Ok(Box::new(ObservedSrc::of_machine(&m))),
            }),
        }
    }
}

/// One vector's result on an engine.
#[derive(Clone, Debug)]
pub struct EngineEntry {
    pub path: std::path::PathBuf,
    pub name: String,
    pub verdict: Verdict,
    pub comparison: Comparison,
}

impl EngineEntry {
    /// `agree`, `differ`, `refused`, `timed out`, or `uncompared` (the
    /// vector holds nothing an engine can be compared with).
    pub fn class(&self) -> &'static str {
        match (&self.verdict, &self.comparison) {
            (Verdict::Refused(_), _) => "refused",
            (Verdict::TimedOut(_), c) if !c.compared => "timed out",
            (_, c) if !c.compared => "uncompared",
            (_, c) if !c.mismatches.is_empty() => "differ",
            // Some of the rows the vector expects were not read back.
            (_, c) if !c.result_gaps.is_empty() => "uncompared",
            _ => "agree",
        }
    }
}

/// Run every file on `engine`, one after another (an engine is one tile).
/// A file that cannot be read is an `Err` entry; the run goes on.
pub fn run_files(
    files: &[crate::gate::VectorFile],
    engine: &mut dyn Engine,
    mut progress: impl FnMut(usize, usize, &Result<EngineEntry, String>),
) -> Vec<Result<EngineEntry, String>> {
    let mut out = Vec::with_capacity(files.len());
    for (i, f) in files.iter().enumerate() {
        let entry = Vector::load_under(&f.root, &f.path)
            .map_err(|e| e.to_string())
            .map(|v| {
                let verdict = engine.run(&v);
                let comparison = compare(&v, &verdict);
                EngineEntry {
                    path: f.path.clone(),
                    name: v.name.clone(),
                    verdict,
                    comparison,
                }
            });
        progress(i + 1, files.len(), &entry);
        out.push(entry);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expecting_undefined_behaviour() -> Vector {
        Vector::from_yaml_str(
            "schema: tensix-vector/1\nname: ub\narch: blackhole\nprovenance: {source: isa-spec}\n\
             program:\n  - thread: 0\n    run: [0xa6200004]\nexpect:\n  fault: {kind: undefined_behavior}\n",
            "ub.yaml",
        )
        .unwrap()
    }

    fn entry(verdict: Verdict, v: &Vector) -> EngineEntry {
        EngineEntry {
            path: "ub.yaml".into(),
            name: "ub".into(),
            comparison: compare(v, &verdict),
            verdict,
        }
    }

    /// Rows a vector expects that the engine did not show keep it from
    /// agreeing; a mismatch elsewhere still makes it differ.
    #[test]
    fn a_vector_whose_src_rows_went_unread_is_uncompared() {
        let mut v = Vector::from_yaml_str(
            "schema: tensix-vector/1\nname: s\narch: blackhole\nprovenance: {source: isa-spec}\n\
             program:\n  - thread: 0\n    run: [0x02000000]\n",
            "s.yaml",
        )
        .unwrap();
        v.expect.l1 = Some(Vec::new());
        let seen = |l1: Vec<u8>, src: Result<Box<ObservedSrc>, String>| {
            Verdict::Observed(Observation {
                l1,
                l1_unobserved: Vec::new(),
                dst: Err("not read".into()),
                src,
            })
        };
        let m = tensix_emu::Machine::new(tensix_emu::Arch::Blackhole);
        let all = || Ok(Box::new(ObservedSrc::of_machine(&m)));
        assert_eq!(entry(seen(vec![0; 64], all()), &v).class(), "agree");
        v.expect.srcb = Some(vec![crate::vector::SrcRow {
            bank: 0,
            row: 3,
            cells: [0; 16],
        }]);
        assert_eq!(entry(seen(vec![0; 64], all()), &v).class(), "agree");
        let e = entry(seen(vec![0; 64], Err("no move".into())), &v);
        assert_eq!(e.class(), "uncompared");
        assert_eq!(e.comparison.result_gaps, vec!["expect.srcb: no move"]);
        assert_eq!(
            entry(seen(vec![1; 64], Err("no move".into())), &v).class(),
            "differ"
        );
        // A word with low bits set holds no moved datum: an invariant fails,
        // and the row differs.
        let mut odd = ObservedSrc::of_machine(&m);
        let b0 = odd
            .banks
            .iter_mut()
            .find(|b| b.source == Source::B && b.bank == 0)
            .unwrap();
        b0.words[3][0] = 1;
        let e = entry(seen(vec![0; 64], Ok(Box::new(odd))), &v);
        assert_eq!(e.class(), "differ");
        let m = &e.comparison.mismatches;
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(matches!(&m[0], run::Mismatch::Invariant(w) if w.contains("0x00000001")));
        assert!(matches!(&m[1], run::Mismatch::Src { row: 3, .. }));
    }

    #[test]
    fn undefined_behaviour_is_held_only_to_an_engine_that_stops_on_it() {
        let v = expecting_undefined_behaviour();
        let stopped = |kind| Verdict::Stopped {
            kind,
            message: "stop".into(),
        };
        assert_eq!(
            entry(stopped(FaultKind::UndefinedBehavior), &v).class(),
            "agree"
        );
        let ran_on = Verdict::Observed(Observation {
            l1: vec![0; 64],
            l1_unobserved: Vec::new(),
            dst: Err("not read".into()),
            src: Err("not read".into()),
        });
        for verdict in [ran_on, stopped(FaultKind::Deadlock)] {
            let e = entry(verdict, &v);
            assert_eq!(e.class(), "uncompared", "{:?}", e.verdict);
            assert!(e.comparison.mismatches.is_empty());
            assert!(
                e.comparison.not_compared[0].contains("undefined behaviour"),
                "{:?}",
                e.comparison.not_compared
            );
        }
        // Any other expected fault is still held to.
        let mut deadlock = v.clone();
        deadlock.expect.fault = Some(crate::vector::ExpectedFault {
            kind: FaultKind::Deadlock,
        });
        let e = entry(stopped(FaultKind::UndefinedBehavior), &deadlock);
        assert_eq!(e.class(), "differ");
    }

    /// A campaign job (program seed 1, job 296, shrunk) whose unpacker reads
    /// L1 that neither its setup nor its run writes, at the program image's
    /// usual place: on ttsim it read the image's code into `Dst`.
    fn reads_under_the_image() -> Vector {
        Vector::from_yaml_str(
            "schema: tensix-vector/1\nname: reads\narch: blackhole\nprovenance: {source: isa-spec}\n\
             setup:\n  config:\n    - [64, 0x00000018]\n    - [65, 0x00040001]\n    - [72, 0x00000028]\n\
             \x20   - [73, 0x00000013]\n    - [76, 0x000005e1]\n    - [84, 0x00400440]\n    - [86, 0x00400040]\n\
             program:\n  - thread: 0\n    run: [0x42008081, 0x42000081]\n",
            "t.yaml",
        )
        .unwrap()
    }

    #[test]
    fn the_image_keeps_clear_of_the_l1_a_run_reads() {
        let v = reads_under_the_image();
        let run = emulator_facts(&v).unwrap();
        let region = u64::from(device::REGION.start)..u64::from(device::REGION.end);
        let overlaps = |a: &Range<u64>, b: &Range<u64>| a.start < b.end && b.start < a.end;
        // The run writes no L1, so what lies under the usual region is read.
        assert!(
            run.touched.iter().any(|t| overlaps(t, &region)),
            "{:?}",
            run.touched
        );
        let image = device::build(&v, &run).unwrap();
        let own = u64::from(image.region.start)..u64::from(image.region.end);
        assert_ne!(image.region.start, device::REGION.start, "the image moved");
        for t in &run.touched {
            assert!(!overlaps(t, &own), "{t:?} under the image {own:?}");
        }
    }
}
