//! Every fuzz target's committed seed corpus (`fuzz/corpus/TARGET/seed-*`)
//! and its regressions (`fuzz/regressions/TARGET/*`) replay through the same
//! oracle functions the fuzz targets call, on stable, in `cargo test`.
//! A finding panics with its report, failing the test.

use std::path::{Path, PathBuf};
use tensix_emu::FaultKind;
use tensix_harness::oracles::targets::{self, TARGETS};
use tensix_harness::oracles::{Tally, Verdict, Workbench};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// Files of `dir` whose names pass `keep`, sorted; none when it is missing.
fn files(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&keep))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn replay(target: &str) -> Tally {
    let root = fuzz_dir();
    let seeds = files(&root.join("corpus").join(target), |n| {
        n.starts_with("seed-")
    });
    assert!(!seeds.is_empty(), "{target} has no committed seed corpus");
    // Regressions: every file but the placeholder and notes.
    let regressions = files(&root.join("regressions").join(target), |n| {
        !n.starts_with('.') && !n.ends_with(".md")
    });
    let mut t = Tally::default();
    // One workbench for the whole replay, as a fuzz target keeps one: each
    // input runs on machines the inputs before it used, and must be judged
    // as on new ones.
    let mut shared = Workbench::new();
    for f in seeds.iter().chain(&regressions) {
        let bytes = std::fs::read(f).expect("corpus file reads");
        let reused = targets::run(&mut shared, target, &bytes);
        let fresh = targets::run(&mut Workbench::new(), target, &bytes);
        assert_eq!(
            reused,
            fresh,
            "{}: reused machines judge differently",
            f.display()
        );
        if let Some(v) = reused {
            t.add(&v);
        }
    }
    eprintln!(
        "{target}: {} seeds, {} regressions: {t}",
        seeds.len(),
        regressions.len()
    );
    t
}

#[test]
fn every_target_has_a_fuzz_target_file_and_a_corpus() {
    // The fuzz crate's targets and the harness's list are the same eight.
    let dir = fuzz_dir().join("fuzz_targets");
    let mut files: Vec<String> = files(&dir, |n| n.ends_with(".rs"))
        .iter()
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
        .collect();
    let mut names: Vec<String> = TARGETS.iter().map(|t| t.name.to_string()).collect();
    files.sort();
    names.sort();
    assert_eq!(files, names);
    for t in TARGETS {
        let file = dir.join(format!("{}.rs", t.name));
        let text = std::fs::read_to_string(&file).expect("target file exists");
        let text: String = text.split_whitespace().collect();
        let call = format!(
            "targets::fuzz(&mutb.borrow_mut(),&targets::{},data)",
            t.name.to_uppercase()
        );
        assert!(
            text.contains(&call),
            "{} calls another oracle",
            file.display()
        );
        assert_eq!(targets::by_name(t.name).map(|t| t.name), Some(t.name));
    }
    assert!(targets::by_name("pack").is_none());
}

macro_rules! replay_test {
    ($name:ident, $target:literal) => {
        #[test]
        fn $name() {
            let t = replay($target);
            assert!(t.total() > 0, "no {} input decoded", $target);
        }
    };
}

replay_test!(replay_pack_program, "pack_program");
replay_test!(replay_unpack_program, "unpack_program");
replay_test!(replay_pack_tile_diff, "pack_tile_diff");
replay_test!(replay_unpack_tile_diff, "unpack_tile_diff");
replay_test!(replay_roundtrip, "roundtrip");
replay_test!(replay_formats, "formats");
replay_test!(replay_isa_roundtrip, "isa_roundtrip");
replay_test!(replay_vector_parse, "vector_parse");

/// An unpack program whose MOP loops read about 1.4 million datums
/// (`UNPACR`s with drop and decompression counts in the hundreds of
/// thousands) stops at the oracles' datum budget, a legal outcome, rather
/// than taking as long as hundreds of other inputs.
#[test]
fn a_program_past_the_datum_budget_stops_legally() {
    let path = fuzz_dir()
        .join("regressions")
        .join("unpack_program")
        .join("reads-1.4-million-datums");
    let bytes = std::fs::read(&path).expect("regression file reads");
    let verdict = targets::check(&mut Workbench::new(), "unpack_program", &bytes);
    assert_eq!(
        verdict,
        Ok(Some(Verdict::Stopped(FaultKind::ResourceLimit))),
        "{}",
        path.display()
    );
}
