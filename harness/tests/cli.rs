//! The `tensix-harness run` command end to end: exit codes and what it
//! prints for a broken expectation and for a malformed file.

use std::path::Path;
use std::process::Command;

mod common;

fn scratch(name: &str) -> common::Scratch {
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

/// `new pack` writes an LLK-shaped vector: with the golden model's
/// `expect`, it holds on the emulator (the golden model is written apart
/// from it); with `expect` left empty, it cannot pass (the pack writes L1
/// that the vector does not expect). One BF16 face to BFP8_b is 16
/// exponents (one 16-byte section) and 16 rows of 16 one-byte datums.
#[test]
fn new_writes_a_vector_that_the_gate_runs() {
    let d = scratch("new");
    let golden = d.join("golden.yaml");
    let common = [
        "new", "pack", "--from", "bf16", "--to", "bfp8_b", "--faces", "1", "--seed", "7",
    ];
    let mut args = common.to_vec();
    args.extend(["--expect-from", "golden", "-o", golden.to_str().unwrap()]);
    let (code, text) = harness(&args);
    assert_eq!(code, 0, "{text}");
    let v = tensix_harness::vector::Vector::load(&golden).unwrap();
    assert_eq!(v.provenance.source, tensix_harness::vector::Source::Derived);
    assert!(
        v.provenance.detail.contains("golden"),
        "{}",
        v.provenance.detail
    );
    let sizes: Vec<usize> = v
        .expect
        .l1
        .as_ref()
        .unwrap()
        .iter()
        .map(|r| r.bytes.len())
        .collect();
    assert_eq!(sizes.iter().sum::<usize>(), 16 + 256, "{sizes:?}");
    let (code, text) = run(&d);
    assert_eq!(code, 0, "{text}");

    let empty = d.join("empty.yaml");
    let mut args = common.to_vec();
    args.extend(["-o", empty.to_str().unwrap()]);
    assert_eq!(harness(&args).0, 0);
    let (code, text) = harness(&["run", empty.to_str().unwrap()]);
    assert_eq!(code, 1, "an empty expect does not pass: {text}");

    // Not over an existing file, and not a job no model defines.
    let before = std::fs::read(&empty).unwrap();
    let (code, text) = harness(&args);
    assert_eq!(code, 2);
    assert!(text.contains("--force"), "{text}");
    assert_eq!(std::fs::read(&empty).unwrap(), before);
    let three = d.join("three.yaml");
    let (code, text) = harness(&[
        "new",
        "pack",
        "--from",
        "bf16",
        "--to",
        "bfp8_b",
        "--faces",
        "3",
        "-o",
        three.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("3 faces"), "{text}");
    assert!(!three.exists());
}

/// `fmt --annotate` reads the words back; `fmt -o` never overwrites.
#[test]
fn fmt_annotates_and_does_not_overwrite() {
    let d = scratch("fmt");
    let src = d.join("v.yaml");
    std::fs::write(
        &src,
        corpus("isa-spec/blackhole/pack/l1-accumulate-keeps-bytes-past-the-last-datum.yaml"),
    )
    .unwrap();
    let (code, text) = harness(&["fmt", "--annotate", src.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("- [71, 0x00080000]  # THCON_SEC0_REG1_Pack_L1_Acc=0x1"),
        "{text}"
    );
    let (code, text) = harness(&["fmt", src.to_str().unwrap(), "-o", src.to_str().unwrap()]);
    assert_eq!(code, 2, "{text}");
}

/// `new pack --data`: the docs' worked-example row (hand-derived there) in
/// every row of one face gives its bytes: 16 exponents 0x82 and, per row,
/// the same 16 datums.
#[test]
fn new_takes_tile_data_from_a_file() {
    let d = scratch("new-data");
    let row = "0x3f80 0x4000 0x3f00 0xbf80 0x4040 0x0000 0x3fc0 0xc080 \
               0x3e80 0x4100 0xbf00 0x40c0 0x3fa0 0x3f80 0x4000 0x4080\n";
    let data = d.join("face.txt");
    std::fs::write(&data, row.repeat(16)).unwrap();
    let out = d.join("face.yaml");
    let (code, text) = harness(&[
        "new",
        "pack",
        "--from",
        "bf16",
        "--to",
        "bfp8_b",
        "--faces",
        "1",
        "--data",
        data.to_str().unwrap(),
        "--expect-from",
        "golden",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{text}");
    let v = tensix_harness::vector::Vector::load(&out).unwrap();
    let l1 = v.expect.l1.as_ref().unwrap();
    let bytes: Vec<u8> = l1.iter().flat_map(|r| r.bytes.clone()).collect();
    assert_eq!(&bytes[..16], &[0x82; 16]);
    let datums = [
        0x08, 0x10, 0x04, 0x88, 0x18, 0x00, 0x0c, 0xa0, 0x02, 0x40, 0x84, 0x30, 0x0a, 0x08, 0x10,
        0x20,
    ];
    assert_eq!(bytes.len(), 16 + 256);
    for r in 0..16 {
        assert_eq!(&bytes[16 + 16 * r..32 + 16 * r], &datums, "row {r}");
    }
    // Half a row is refused, and says why.
    std::fs::write(&data, "1 2 3").unwrap();
    let bad = d.join("bad.yaml");
    let (code, text) = harness(&[
        "new",
        "pack",
        "--from",
        "bf16",
        "--to",
        "bfp8_b",
        "--data",
        data.to_str().unwrap(),
        "-o",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("whole rows of 16"), "{text}");
}
