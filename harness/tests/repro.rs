//! `tensix-harness repro` end to end on the paths the current emulator can
//! reach: a bad target or artifact is unusable input (exit 2), and an
//! artifact that reproduces no disagreement writes nothing (exit 1). The
//! shrinking and vector-writing path is covered by the planted-bug test in
//! `repro.rs`.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn scratch(name: &str) -> common::Scratch {
    common::scratch("repro", name)
}

fn repro(args: &[&str], artifact: &Path, out: &Path) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_tensix-harness"))
        .arg("repro")
        .args(args)
        .arg(artifact)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    (o.status.code().unwrap_or(-1), text)
}

fn seed(target: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target)
        .join(name)
}

#[test]
fn an_unknown_target_is_unusable_input() {
    let d = scratch("unknown");
    let (code, text) = repro(&["no_such_target"], &seed("formats", "seed-one"), &d);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("pack_tile_diff"),
        "the message lists the targets: {text}"
    );
}

#[test]
fn a_missing_artifact_is_unusable_input() {
    let d = scratch("missing");
    let (code, text) = repro(&["pack_tile_diff"], &d.join("nothing-here"), &d);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("nothing-here"), "{text}");
}

#[test]
fn an_artifact_without_a_disagreement_writes_nothing() {
    let d = scratch("clean");
    for (target, file) in [
        ("pack_tile_diff", "seed-00"),
        ("formats", "seed-tie-bf16"),
        ("isa_roundtrip", "seed-pacr-bh"),
    ] {
        let (code, text) = repro(&[target], &seed(target, file), &d);
        assert_eq!(code, 1, "{target}: {text}");
        assert!(text.contains("does not reproduce"), "{text}");
    }
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0, "nothing written");
}
