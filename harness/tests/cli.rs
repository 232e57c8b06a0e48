//! The `tensix-harness run` command end to end: exit codes and what it
//! prints for a broken expectation and for a malformed file.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn scratch(name: &str) -> PathBuf {
    common::scratch("cli", name)
}

use common::corpus;

fn run(dir: &Path) -> (i32, String) {
    let dir = dir.to_str().unwrap();
    harness(&["run", "--jobs", "1", dir])
}

#[test]
fn a_passing_vector_holds_the_gate() {
    let d = scratch("pass");
    std::fs::write(
        d.join("v.yaml"),
        corpus("isa-spec/blackhole/adc/addrcrxy-returns-to-cr.yaml"),
    )
    .unwrap();
    let (code, text) = run(&d);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("conformance gate: holds"), "{text}");
}

#[test]
fn a_changed_expectation_fails_with_a_pointed_report() {
    let d = scratch("fail");
    let v = corpus("isa-spec/blackhole/adc/addrcrxy-returns-to-cr.yaml").replace(
        "unit: unpack0, ch0: [6, 0, 0, 0]",
        "unit: unpack0, ch0: [7, 0, 0, 0]",
    );
    std::fs::write(d.join("v.yaml"), v).unwrap();
    let (code, text) = run(&d);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("FAIL isa-spec/blackhole/adc/addrcrxy-returns-to-cr"),
        "{text}"
    );
    assert!(
        text.contains("expected ch0 [7, 0, 0, 0] ch1 [0, 0, 0, 0], found ch0 [6, 0, 0, 0]"),
        "{text}"
    );
}

#[test]
fn a_listed_vector_that_passes_breaks_the_gate() {
    let d = scratch("listed");
    std::fs::write(
        d.join("v.yaml"),
        corpus("isa-spec/blackhole/adc/addrcrxy-returns-to-cr.yaml"),
    )
    .unwrap();
    std::fs::write(
        d.join("known-failures.yaml"),
        "isa-spec/blackhole/adc/addrcrxy-returns-to-cr: pretend\n",
    )
    .unwrap();
    let (code, text) = run(&d);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("PASS-BUT-LISTED"), "{text}");
}

#[test]
fn a_malformed_file_is_unusable_input_naming_its_line() {
    let d = scratch("malformed");
    let v = corpus("isa-spec/blackhole/adc/addrcrxy-returns-to-cr.yaml")
        .replace("      - 0x522000c0\n", "      - 0x522000c0zz\n");
    std::fs::write(d.join("v.yaml"), v).unwrap();
    let (code, text) = run(&d);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("v.yaml:17:9: program[0].run[1]"), "{text}");
}

#[test]
fn two_vectors_with_one_name_are_unusable_input() {
    // Names key the known-failures list; a second file with the same name
    // cannot be told apart from the first.
    let d = scratch("dupe");
    let v = corpus("isa-spec/blackhole/adc/addrcrxy-returns-to-cr.yaml");
    std::fs::write(d.join("a.yaml"), &v).unwrap();
    std::fs::write(d.join("b.yaml"), &v).unwrap();
    let (code, text) = run(&d);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("is already used by"), "{text}");
}

#[test]
fn an_unnamed_vector_is_named_by_its_path_under_the_root() {
    let d = scratch("unnamed");
    std::fs::create_dir_all(d.join("sub")).unwrap();
    let v = corpus("isa-spec/blackhole/adc/addrcrxy-returns-to-cr.yaml")
        .replace("name: isa-spec/blackhole/adc/addrcrxy-returns-to-cr\n", "")
        .replace("ch0: [6, 0, 0, 0]", "ch0: [9, 0, 0, 0]");
    std::fs::write(d.join("sub/v.yaml"), v).unwrap();
    let (code, text) = run(&d);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("FAIL sub/v "), "{text}");
}

/// `decode` names the instruction a word encodes; the architecture may be
/// spelled as vectors spell it (`wormhole_b0`) or as a command-line value
/// (`wormhole-b0`). PACR's opcode is 0x41 (tt-isa-documentation `PACR.md`).
#[test]
fn decode_accepts_both_architecture_spellings() {
    for arch in ["wormhole_b0", "wormhole-b0", "blackhole"] {
        let out = Command::new(env!("CARGO_BIN_EXE_tensix-harness"))
            .args(["decode", "--arch", arch, "0x41008111"])
            .output()
            .expect("runs");
        assert!(out.status.success(), "{arch}: {out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("PACR"), "{arch}: {text}");
        assert!(text.contains("last=1"), "{arch}: {text}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_tensix-harness"))
        .args(["decode", "--arch", "grayskull", "0x41008111"])
        .output()
        .expect("runs");
    assert!(!out.status.success());
}

fn harness(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tensix-harness"))
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn encode_is_the_inverse_of_decode() {
    // The reference README's device facts: TRISC disassembly c8940412 is
    // SETC16 0xb2250104 (register 0x25 = 37, value 0x0104).
    let (code, text) = harness(&[
        "encode",
        "--trisc",
        "SETC16 setc16_value=0x0104 setc16_reg=37",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(text.starts_with("0xb2250104  0xc8940412  SETC16"), "{text}");
    // Every text decode prints encodes back to its word.
    for word in ["0x5e803c00", "0x51800241", "0x42088081"] {
        let (code, decoded) = harness(&["decode", word]);
        assert_eq!(code, 0, "{decoded}");
        let text = decoded.split_once("  ").unwrap().1.trim();
        let (code, encoded) = harness(&["encode", text]);
        assert_eq!(code, 0, "{encoded}");
        assert!(encoded.starts_with(word), "{word}: {encoded}");
    }
    // A value too wide for its field does not encode; a bad field name
    // does not parse.
    let (code, text) = harness(&["encode", "SETC16 setc16_reg=999"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("does not fit"), "{text}");
    let (code, text) = harness(&["encode", "PACR bogus=1"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("PACR has no field `bogus`"), "{text}");
}
