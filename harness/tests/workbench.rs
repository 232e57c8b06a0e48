//! Machines reused across jobs behave as new ones: every corpus vector, run
//! on one workbench after all the vectors before it (in two orders), leaves
//! exactly the state a new machine leaves.

use std::path::{Path, PathBuf};

use tensix_emu::Machine;
use tensix_harness::run::{self, Workbench};
use tensix_harness::vector::Vector;

fn corpus() -> Vec<Vector> {
    let root: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-vectors");
    let files = tensix_harness::vector::yaml_files(&root).unwrap();
    assert!(files.len() >= 348, "the corpus is missing");
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            Vector::from_yaml_str(&text, f.strip_prefix(&root).unwrap()).unwrap()
        })
        .collect()
}

/// Every part of a machine a vector can set or a run can change.
fn differences(a: &Machine, b: &Machine) -> Vec<&'static str> {
    let mut out = Vec::new();
    let parts = [
        (
            "l1",
            a.l1.bytes() == b.l1.bytes() && a.l1.log() == b.l1.log(),
        ),
        ("config", a.config == b.config),
        ("thread_config", a.thread_config == b.thread_config),
        ("gprs", a.gprs == b.gprs),
        ("dst", a.dst == b.dst),
        ("srca", a.srca == b.srca),
        ("srcb", a.srcb == b.srcb),
        ("adcs", a.adcs == b.adcs),
        ("semaphores", a.semaphores == b.semaphores),
        ("packer", a.packer == b.packer),
        ("unpackers", a.unpackers == b.unpackers),
    ];
    for (name, same) in parts {
        if !same {
            out.push(name);
        }
    }
    out
}

fn check_order(vectors: &[&Vector]) {
    let mut bench = Workbench::new();
    let mut checked = 0;
    for v in vectors {
        let (Ok(fresh), Ok(reused)) = (run::prepare(v), bench.prepare(v)) else {
            continue;
        };
        assert_eq!(
            differences(&fresh, &reused),
            Vec::<&str>::new(),
            "{} prepared",
            v.name
        );
        let (a, fa) = run::execute(v, &fresh);
        let (b, fb) = bench.execute(v, &reused);
        assert_eq!(fa, fb, "{}", v.name);
        assert_eq!(differences(&a, &b), Vec::<&str>::new(), "{} run", v.name);
        bench.give_back(Box::new(a));
        bench.give_back(b);
        bench.give_back(reused);
        checked += 1;
    }
    assert!(checked >= 348, "only {checked} vectors ran");
}

#[test]
fn reused_machines_match_new_ones_in_corpus_order() {
    let vectors = corpus();
    check_order(&vectors.iter().collect::<Vec<_>>());
}

#[test]
fn reused_machines_match_new_ones_in_reverse_order() {
    let vectors = corpus();
    check_order(&vectors.iter().rev().collect::<Vec<_>>());
}

/// The gate's verdicts on a shared workbench are the verdicts on new machines.
#[test]
fn run_vector_on_a_workbench_judges_as_on_new_machines() {
    let mut bench = Workbench::new();
    for v in corpus() {
        let fresh = run::run_vector(&v).unwrap();
        let reused = bench.run_vector(&v).unwrap();
        assert_eq!(fresh.fault, reused.fault, "{}", v.name);
        assert_eq!(fresh.mismatches, reused.mismatches, "{}", v.name);
    }
}
