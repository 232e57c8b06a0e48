//! Malformed vectors: every error names the file, line, column and field.
//!
//! Each case edits one spot of `BASE` (a valid vector) and checks the
//! reported position, field path, kind and message.

use tensix_harness::vector::{ErrorKind, Vector, VectorError};

const FILE: &str = "conformance-vectors/x.yaml";

/// A valid vector. Line numbers below refer to this text.
const BASE: &str = r#"schema: tensix-vector/1
name: t/x
arch: blackhole
provenance:
  source: ttsim
  detail: "d"
tags: [pack]
setup:
  l1_fill: 0xee
  l1:
    - addr: 0x10000
      hex: |
        00112233445566778899aabbccddeeff
        0011
  config:
    - [1, 0x0a000000]
  thread_config:
    - [2, 37, 0x0104]
  dst:
    mode: 16b
    format: bf16
    rows:
      - [0, [0x0000, 0x0001, 0x0002, 0x0003, 0x0004, 0x0005, 0x0006, 0x0007, 0x0008, 0x0009, 0x000a, 0x000b, 0x000c, 0x000d, 0x000e, 0x000f]]
program:
  - thread: 2
    run:
      - 0x5e803c00
      - {cfg: [69, 0x1fff]}
      - {gpr: [4, 0x10]}
expect:
  l1: []
  adc:
    - {thread: 2, unit: pack, ch0: [0, 0, 0, 0], ch1: [0, 0, 0, 0]}
"#;

const ZERO_CELLS: &str = "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]";

fn edit(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "BASE lacks {from:?}");
    BASE.replacen(from, to, 1)
}

fn parse_err(text: &str) -> VectorError {
    match Vector::from_yaml_str(text, FILE) {
        Ok(_) => panic!("parsed, but should not have:\n{text}"),
        Err(e) => e,
    }
}

/// Edits `BASE` and checks the error: position, field, kind and a part of
/// the message.
#[track_caller]
fn check(
    from: &str,
    to: &str,
    (line, column): (usize, usize),
    field: &str,
    kind: ErrorKind,
    message: &str,
) {
    let e = parse_err(&edit(from, to));
    assert_eq!(
        (e.line, e.column, e.field.as_str(), e.kind),
        (line, column, field, kind),
        "got: {e}"
    );
    assert!(
        e.message.contains(message),
        "message lacks {message:?}: {e}"
    );
    let prefix = if field.is_empty() {
        format!("{FILE}:{line}:{column}: ")
    } else {
        format!("{FILE}:{line}:{column}: {field}: ")
    };
    assert!(e.to_string().starts_with(&prefix), "display: {e}");
}

#[test]
fn base_is_valid() {
    let v = Vector::from_yaml_str(BASE, FILE).expect("BASE parses");
    assert_eq!(v.name, "t/x");
}

#[test]
fn display_has_file_line_column_field_message() {
    let e = parse_err(&edit(", 0x000f]]", "]]"));
    assert_eq!(
        e.to_string(),
        "conformance-vectors/x.yaml:23:13: setup.dst.rows[0]: expected 16 values, found 15"
    );
}

#[test]
fn unknown_fields() {
    let k = ErrorKind::UnknownField;
    check(
        "tags: [pack]\n",
        "tags: [pack]\nbogus: 1\n",
        (8, 1),
        "bogus",
        k,
        "unknown field `bogus`; expected one of: schema, name",
    );
    check(
        "  l1_fill: 0xee\n",
        "  l1_fill: 0xee\n  l1_fil: 3\n",
        (10, 3),
        "setup.l1_fil",
        k,
        "`l1_fil`",
    );
    check(
        "  detail: \"d\"\n",
        "  detail: \"d\"\n  date: today\n",
        (7, 3),
        "provenance.date",
        k,
        "`date`",
    );
    check(
        "ch1: [0, 0, 0, 0]}",
        "ch1: [0, 0, 0, 0], ch2: 1}",
        (33, 69),
        "expect.adc[0].ch2",
        k,
        "expected one of: thread, unit, ch0, ch1",
    );
    check(
        "    run:\n",
        "    runs: []\n    run:\n",
        (26, 5),
        "program[0].runs",
        k,
        "`runs`",
    );
    check(
        "  l1: []\n  adc",
        "  l2: []\n  adc",
        (31, 3),
        "expect.l2",
        k,
        "`l2`",
    );
    check(
        "    format: bf16\n",
        "    format: bf16\n    cells: []\n",
        (22, 5),
        "setup.dst.cells",
        k,
        "`cells`",
    );
    check(
        "      hex: |\n",
        "      data: 1\n      hex: |\n",
        (12, 7),
        "setup.l1[0].data",
        k,
        "`data`",
    );
    check(
        "{cfg: [69, 0x1fff]}",
        "{cgf: [69, 0x1fff]}",
        (28, 10),
        "program[0].run[1]",
        k,
        "unknown program step `cgf`",
    );
}

#[test]
fn missing_fields() {
    let k = ErrorKind::MissingField;
    // Reported at the start of the mapping that lacks the field.
    check(
        "arch: blackhole\n",
        "",
        (1, 1),
        "",
        k,
        "missing required field `arch`",
    );
    check("program:\n  - thread: 2\n    run:\n      - 0x5e803c00\n      - {cfg: [69, 0x1fff]}\n      - {gpr: [4, 0x10]}\n", "", (1, 1), "", k, "`program`");
    check("  source: ttsim\n", "", (5, 3), "provenance", k, "`source`");
    check(
        "provenance:\n  source: ttsim\n  detail: \"d\"\n",
        "provenance:\n",
        (4, 1),
        "provenance",
        k,
        "`source`",
    );
    check(
        "    run:\n      - 0x5e803c00\n      - {cfg: [69, 0x1fff]}\n      - {gpr: [4, 0x10]}\n",
        "",
        (25, 5),
        "program[0]",
        k,
        "`run`",
    );
    check(
        "    format: bf16\n",
        "",
        (20, 5),
        "setup.dst",
        k,
        "`format`",
    );
    check(
        "  dst:\n    mode: 16b\n    format: bf16\n",
        "  dst: {mode: 16b}\n  xdst:\n",
        (19, 8),
        "setup.dst",
        k,
        "`format`",
    );
    check(
        ", ch1: [0, 0, 0, 0]}",
        "}",
        (33, 7),
        "expect.adc[0]",
        k,
        "`ch1`",
    );
    check(
        "  l1: []\n  adc",
        "  fault: {}\n  l1: []\n  adc",
        (31, 10),
        "expect.fault",
        k,
        "`kind`",
    );
    check(
        "      hex: |\n        00112233445566778899aabbccddeeff\n        0011\n",
        "",
        (11, 7),
        "setup.l1[0]",
        k,
        "`hex`",
    );
}

#[test]
fn duplicate_keys() {
    let k = ErrorKind::DuplicateKey;
    check(
        "arch: blackhole\n",
        "arch: blackhole\narch: wormhole_b0\n",
        (4, 1),
        "arch",
        k,
        "duplicate key `arch`",
    );
    check(
        "  l1_fill: 0xee\n",
        "  l1_fill: 0xee\n  l1_fill: 0xee\n",
        (10, 3),
        "setup.l1_fill",
        k,
        "`l1_fill`",
    );
    check(
        "{thread: 2, unit: pack,",
        "{thread: 2, unit: pack, thread: 2,",
        (33, 31),
        "expect.adc[0].thread",
        k,
        "`thread`",
    );
}

#[test]
fn named_values() {
    let k = ErrorKind::InvalidValue;
    check(
        "arch: blackhole",
        "arch: grayskull",
        (3, 7),
        "arch",
        k,
        "expected one of blackhole, wormhole_b0; found `grayskull`",
    );
    check(
        "source: ttsim",
        "source: sim",
        (5, 11),
        "provenance.source",
        k,
        "isa-spec",
    );
    check(
        "unit: pack",
        "unit: packer",
        (33, 25),
        "expect.adc[0].unit",
        k,
        "unpack0, unpack1, pack",
    );
    check(
        "mode: 16b",
        "mode: 8b",
        (20, 11),
        "setup.dst.mode",
        k,
        "expected one of 16b, 32b",
    );
    check(
        "  l1: []\n  adc",
        "  fault: {kind: segfault}\n  l1: []\n  adc",
        (31, 17),
        "expect.fault.kind",
        k,
        "undefined_behavior",
    );
    check(
        "format: bf16",
        "format: fp32",
        (21, 13),
        "setup.dst.format",
        k,
        "format fp32 needs mode 32b, but mode is 16b (which takes bf16, fp16, raw16)",
    );
    check(
        "format: bf16",
        "format: fp8",
        (21, 13),
        "setup.dst.format",
        k,
        "raw32",
    );
    check(
        "name: t/x",
        "name: \"\"",
        (2, 7),
        "name",
        k,
        "name must not be empty",
    );
}

#[test]
fn wrong_types() {
    let k = ErrorKind::WrongType;
    check(
        "setup:\n  l1_fill",
        "setup: 5\nxsetup:\n  l1_fill",
        (8, 8),
        "setup",
        k,
        "expected a mapping, found `5`",
    );
    check(
        "  config:\n    - [1, 0x0a000000]\n",
        "  config: 7\n",
        (15, 11),
        "setup.config",
        k,
        "expected a sequence, found `7`",
    );
    check(
        "- [1, 0x0a000000]",
        "- 7",
        (16, 7),
        "setup.config[0]",
        k,
        "expected [addr, value] or [addr, value, state], found `7`",
    );
    check(
        "[1, 0x0a000000]",
        "[1, 1.5]",
        (16, 11),
        "setup.config[0]",
        k,
        "expected an integer for value, found `1.5`",
    );
    check(
        "[1, 0x0a000000]",
        "[1, \"12\"]",
        (16, 11),
        "setup.config[0]",
        k,
        "found string \"12\"",
    );
    check(
        "[1, 0x0a000000]",
        "[1, true]",
        (16, 11),
        "setup.config[0]",
        k,
        "found boolean `true`",
    );
    check(
        "[1, 0x0a000000]",
        "[1, ~]",
        (16, 11),
        "setup.config[0]",
        k,
        "found null",
    );
    check(
        "[1, 0x0a000000]",
        "[1, .inf]",
        (16, 11),
        "setup.config[0]",
        k,
        "expected an integer for value",
    );
    check(
        "- [0, [0x0000",
        "- [zero, [0x0000",
        (23, 10),
        "setup.dst.rows[0]",
        k,
        "expected an integer for row, found string \"zero\"",
    );
    // A string is an instruction's text form (`- nop` is NOP); one that is
    // not names what is wrong with it.
    check(
        "- 0x5e803c00",
        "- hello",
        (27, 9),
        "program[0].run[0]",
        ErrorKind::InvalidValue,
        "unknown mnemonic `hello`",
    );
    check(
        "- 0x5e803c00",
        "- [1, 2]",
        (27, 9),
        "program[0].run[0]",
        k,
        "expected an instruction word, its text form",
    );
    check(
        "- 0x5e803c00",
        "- [1, 2]",
        (27, 9),
        "program[0].run[0]",
        k,
        "found a sequence of 2 values",
    );
    check(
        "  l1: []\n  adc",
        "  fault: deadlock\n  l1: []\n  adc",
        (31, 10),
        "expect.fault",
        k,
        "expected a mapping, found `deadlock`",
    );
    check(
        "name: t/x",
        "name: [a]",
        (2, 7),
        "name",
        k,
        "expected a string, found a sequence",
    );
    check(
        "tags: [pack]",
        "tags: {a: 1}",
        (7, 7),
        "tags",
        k,
        "expected a sequence, found a mapping",
    );
    check(
        "hex: |\n        00112233445566778899aabbccddeeff\n        0011\n",
        "hex: [12]\n",
        (12, 12),
        "setup.l1[0].hex",
        k,
        "expected a string",
    );
    check(
        "program:\n  - thread: 2",
        "program:\n  x:\n  - thread: 2",
        (25, 3),
        "program",
        k,
        "expected a sequence, found a mapping",
    );
    check("    - addr: 0x10000\n      hex: |\n        00112233445566778899aabbccddeeff\n        0011\n", "    - 5\n", (11, 7), "setup.l1[0]", k, "expected a mapping, found `5`");
}

#[test]
fn integers_wider_than_their_field() {
    let k = ErrorKind::OutOfRange;
    check(
        "l1_fill: 0xee",
        "l1_fill: 0x1ee",
        (9, 12),
        "setup.l1_fill",
        k,
        "l1_fill is 0x1ee, which does not fit in 8 bits",
    );
    check(
        "l1_fill: 0xee",
        "l1_fill: 256",
        (9, 12),
        "setup.l1_fill",
        k,
        "l1_fill is 256, which does not fit in 8 bits",
    );
    check(
        "[1, 0x0a000000]",
        "[1, 0x10a000000]",
        (16, 11),
        "setup.config[0]",
        k,
        "value is 0x10a000000, which does not fit in 32 bits",
    );
    check(
        "[1, 0x0a000000]",
        "[0x100000000, 0]",
        (16, 8),
        "setup.config[0]",
        ErrorKind::OutOfRange,
        // Blackhole has 56 128-bit Config registers, 224 words (ttsim sim.h
        // TENSIX_CFG_STATE_SIZE); the check is now
        // the word index's range, not only its width.
        "addr must be 0..=223, found 0x100000000",
    );
    check(
        "[1, 0x0a000000]",
        "[1, 0x1ffffffffffffffffffff]",
        (16, 11),
        "setup.config[0]",
        k,
        "value `0x1ffffffffffffffffffff` is far too large",
    );
    check(
        "[1, 0x0a000000]",
        "[1, 99999999999999999999999]",
        (16, 11),
        "setup.config[0]",
        k,
        "far too large",
    );
    check(
        "[1, 0x0a000000]",
        "[1, -1]",
        (16, 11),
        "setup.config[0]",
        k,
        "value must not be negative, found -1",
    );
    check(
        "[1, 0x0a000000]",
        "[1, 0x0a000000, 2]",
        (16, 23),
        "setup.config[0]",
        k,
        "state must be 0..=1, found 2",
    );
    check(
        "[2, 37, 0x0104]",
        "[2, 37, 0x10104]",
        (18, 15),
        "setup.thread_config[0]",
        k,
        "value is 0x10104, which does not fit in 16 bits",
    );
    check(
        "[2, 37, 0x0104]",
        "[3, 37, 0x0104]",
        (18, 8),
        "setup.thread_config[0]",
        k,
        "thread must be 0..=2, found 3",
    );
    check(
        "[2, 37, 0x0104]",
        "[2, 256, 0x0104]",
        (18, 11),
        "setup.thread_config[0]",
        k,
        // Blackhole ThreadConfig has 68 words per thread (ttsim sim.h
        // TENSIX_THD_STATE_SIZE).
        "reg must be 0..=67, found 256",
    );
    check(
        "- 0x5e803c00",
        "- 0x15e803c00",
        (27, 9),
        "program[0].run[0]",
        k,
        "instruction word is 0x15e803c00, which does not fit in 32 bits",
    );
    check(
        "{gpr: [4, 0x10]}",
        "{gpr: [64, 0x10]}",
        (29, 16),
        "program[0].run[2].gpr",
        k,
        "index must be 0..=63, found 64",
    );
    check(
        "{cfg: [69, 0x1fff]}",
        "{cfg: [69, 4294967296]}",
        (28, 20),
        "program[0].run[1].cfg",
        k,
        "value is 4294967296",
    );
    check(
        "  - thread: 2",
        "  - thread: 3",
        (25, 13),
        "program[0].thread",
        k,
        "thread must be 0..=2, found 3",
    );
    check(
        "ch0: [0, 0, 0, 0]",
        "ch0: [0x40000, 0, 0, 0]",
        (33, 37),
        "expect.adc[0].ch0",
        k,
        "x counter is 0x40000, which does not fit in 18 bits",
    );
    check(
        "ch0: [0, 0, 0, 0]",
        "ch0: [0, 0x2000, 0, 0]",
        (33, 40),
        "expect.adc[0].ch0",
        k,
        "y counter is 0x2000, which does not fit in 13 bits",
    );
    check(
        "ch1: [0, 0, 0, 0]",
        "ch1: [0, 0, 0, 8192]",
        (33, 65),
        "expect.adc[0].ch1",
        k,
        // Blackhole's Z and W counters have 13 bits (ADCs.md).
        "w counter is 8192, which does not fit in 13 bits",
    );
}

#[test]
fn leading_zero_decimals_are_rejected() {
    // `017` is 17 to YAML 1.2 but 15 to YAML 1.1 readers.
    check(
        "[1, 0x0a000000]",
        "[1, 017]",
        (16, 11),
        "setup.config[0]",
        ErrorKind::InvalidValue,
        "leading zero",
    );
}

#[test]
fn rows() {
    let len = ErrorKind::WrongLength;
    let range = ErrorKind::OutOfRange;
    check(
        ", 0x000f]]",
        "]]",
        (23, 13),
        "setup.dst.rows[0]",
        len,
        "expected 16 values, found 15",
    );
    check(
        ", 0x000f]]",
        ", 0x000f, 0x0010]]",
        (23, 13),
        "setup.dst.rows[0]",
        len,
        "expected 16 values, found 17",
    );
    check(
        "- [0, [0x0000",
        "- [0, 1, [0x0000",
        (23, 9),
        "setup.dst.rows[0]",
        len,
        "expected [row, [16 cells]], found 3 values",
    );
    check(
        "0x0005,",
        "0x10005,",
        (23, 54),
        "setup.dst.rows[0]",
        range,
        "cell 5 is 0x10005, which does not fit in 16 bits",
    );
    check(
        "- [0, [0x0000",
        "- [1024, [0x0000",
        (23, 10),
        "setup.dst.rows[0]",
        range,
        "row must be 0..=1023 in a 16b Dst, found 1024",
    );
    check(
        "- [0, [0x0000",
        "- [-1, [0x0000",
        (23, 10),
        "setup.dst.rows[0]",
        range,
        "row must not be negative, found -1",
    );

    // 32b Dst: 512 rows of 32-bit cells.
    let d32 = |rows: &str| format!("    mode: 32b\n    format: fp32\n    rows:\n      - {rows}\n");
    let dst16 = "    mode: 16b\n    format: bf16\n    rows:\n      - [0, [0x0000, 0x0001, 0x0002, 0x0003, 0x0004, 0x0005, 0x0006, 0x0007, 0x0008, 0x0009, 0x000a, 0x000b, 0x000c, 0x000d, 0x000e, 0x000f]]\n";
    let ok = edit(
        dst16,
        &d32("[511, [0xffffffff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]"),
    );
    let v = Vector::from_yaml_str(&ok, FILE).expect("32-bit cells in row 511");
    let dst = v.setup.dst.expect("dst");
    assert_eq!((dst.rows[0].row, dst.rows[0].cells[0]), (511, 0xffff_ffff));
    check(
        dst16,
        &d32(&format!("[512, {ZERO_CELLS}]")),
        (23, 10),
        "setup.dst.rows[0]",
        range,
        "row must be 0..=511 in a 32b Dst, found 512",
    );
    check(
        dst16,
        &d32("[3, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x100000000]]"),
        (23, 59),
        "setup.dst.rows[0]",
        range,
        "cell 15 is 0x100000000, which does not fit in 32 bits",
    );

    // SrcA/SrcB: [bank, row, 16 cells of 19 bits].
    let with_src = |row: &str| edit("  dst:\n", &format!("  srca:\n    - {row}\n  dst:\n"));
    let e = parse_err(&with_src(
        "[0, 0, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80000]]",
    ));
    assert_eq!(
        (e.line, e.column, e.field.as_str(), e.kind),
        (20, 60, "setup.srca[0]", range),
        "{e}"
    );
    assert!(
        e.message
            .contains("cell 15 is 0x80000, which does not fit in 19 bits"),
        "{e}"
    );
    let e = parse_err(&with_src(&format!("[2, 0, {ZERO_CELLS}]")));
    assert_eq!((e.line, e.column, e.kind), (20, 8, range), "{e}");
    assert!(e.message.contains("bank must be 0..=1, found 2"), "{e}");
    let e = parse_err(&with_src(&format!("[0, 64, {ZERO_CELLS}]")));
    assert_eq!((e.line, e.column, e.kind), (20, 11, range), "{e}");
    assert!(e.message.contains("row must be 0..=63, found 64"), "{e}");
    let e = parse_err(&with_src("[0, 0, [1, 2]]"));
    assert_eq!((e.line, e.column, e.kind), (20, 14, len), "{e}");
    assert!(e.message.contains("expected 16 values, found 2"), "{e}");
    Vector::from_yaml_str(
        &with_src("[1, 63, [0x7ffff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]"),
        FILE,
    )
    .expect("largest 19-bit cell");

    // MOP config: exactly 9 words.
    let e = parse_err(&edit(
        "  dst:\n",
        "  mop_config:\n    - [2, [0, 0, 0]]\n  dst:\n",
    ));
    assert_eq!(
        (e.line, e.column, e.field.as_str(), e.kind),
        (20, 11, "setup.mop_config[0]", len),
        "{e}"
    );
    assert!(
        e.message.contains("expected 9 MOP config words, found 3"),
        "{e}"
    );
}

#[test]
fn tuples_of_the_wrong_length() {
    let k = ErrorKind::WrongLength;
    check(
        "[1, 0x0a000000]",
        "[1]",
        (16, 7),
        "setup.config[0]",
        k,
        "expected [addr, value] or [addr, value, state], found 1 value",
    );
    check(
        "[1, 0x0a000000]",
        "[1, 2, 0, 0]",
        (16, 7),
        "setup.config[0]",
        k,
        "found 4 values",
    );
    check(
        "[2, 37, 0x0104]",
        "[2, 37]",
        (18, 7),
        "setup.thread_config[0]",
        k,
        "expected [thread, reg, value]",
    );
    check(
        "{cfg: [69, 0x1fff]}",
        "{cfg: [69]}",
        (28, 15),
        "program[0].run[1].cfg",
        k,
        "expected [addr, value], found 1 value",
    );
    check(
        "ch0: [0, 0, 0, 0]",
        "ch0: [0, 0, 0]",
        (33, 36),
        "expect.adc[0].ch0",
        k,
        "expected 4 counters [x, y, z, w], found 3 values",
    );
    check(
        "{cfg: [69, 0x1fff]}",
        "{cfg: [69, 0x1fff], gpr: [1, 2]}",
        (28, 9),
        "program[0].run[1]",
        ErrorKind::InvalidValue,
        "found 2 keys",
    );
}

#[test]
fn hex_strings() {
    let k = ErrorKind::InvalidHex;
    check(
        "        0011\n",
        "        001\n",
        (13, 9),
        "setup.l1[0].hex",
        k,
        "odd number of hex digits (35)",
    );
    // The position is that of the bad digit itself.
    check(
        "        0011\n",
        "        00g1\n",
        (14, 11),
        "setup.l1[0].hex",
        k,
        "invalid hex digit 'g'",
    );
    check(
        "        00112233445566778899aabbccddeeff\n",
        "        0011223344556677889xaabbccddeeff\n",
        (13, 28),
        "setup.l1[0].hex",
        k,
        "'x'",
    );
    let block = "hex: |\n        00112233445566778899aabbccddeeff\n        0011\n";
    check(
        block,
        "hex: \"0011 22zz\"\n",
        (12, 20),
        "setup.l1[0].hex",
        k,
        "'z'",
    );
    check(
        block,
        "hex: 0x0011\n",
        (12, 13),
        "setup.l1[0].hex",
        k,
        "'x'",
    );
}

#[test]
fn l1_ranges_must_fit_the_arch_and_not_overlap() {
    let k = ErrorKind::OutOfRange;
    check(
        "addr: 0x10000",
        "addr: 0x180000",
        (11, 13),
        "setup.l1[0].addr",
        k,
        "address 0x180000 is outside blackhole L1 (0x0..0x180000)",
    );
    check(
        "addr: 0x10000",
        "addr: 0x17fff0",
        (13, 9),
        "setup.l1[0].hex",
        k,
        "bytes 0x17fff0..0x180002 run past the end of blackhole L1 (0x180000 bytes)",
    );
    check(
        "addr: 0x10000",
        "addr: -16",
        (11, 13),
        "setup.l1[0].addr",
        k,
        "must not be negative",
    );
    // The last 18 bytes of Blackhole L1 are fine.
    Vector::from_yaml_str(&edit("addr: 0x10000", "addr: 0x17ffee"), FILE).expect("fits exactly");

    // Wormhole B0 has 1464 KiB = 0x16e000 bytes.
    let wh = edit("arch: blackhole", "arch: wormhole_b0");
    Vector::from_yaml_str(&wh.replacen("addr: 0x10000", "addr: 0x16dfee", 1), FILE)
        .expect("fits Wormhole L1 exactly");
    let e = parse_err(&wh.replacen("addr: 0x10000", "addr: 0x16dff0", 1));
    assert_eq!(
        (e.line, e.column, e.field.as_str(), e.kind),
        (13, 9, "setup.l1[0].hex", k),
        "{e}"
    );
    assert!(
        e.message
            .contains("run past the end of wormhole_b0 L1 (0x16e000 bytes)"),
        "{e}"
    );
    let expect_l1 = "  l1:\n    - addr: 0x16e000\n      hex: \"00\"\n  adc";
    let e = parse_err(&wh.replacen("  l1: []\n  adc", expect_l1, 1));
    assert_eq!(
        (e.line, e.column, e.field.as_str()),
        (32, 13, "expect.l1[0].addr"),
        "{e}"
    );
    assert!(e.message.contains("outside wormhole_b0 L1"), "{e}");

    check(
        "        0011\n",
        "        0011\n    - addr: 0x10004\n      hex: \"00\"\n",
        (15, 13),
        "setup.l1[1]",
        ErrorKind::Conflict,
        "bytes 0x10004..0x10005 overlap setup.l1[0] (0x10000..0x10012, line 11)",
    );
    // Touching ranges do not overlap.
    Vector::from_yaml_str(
        &edit(
            "        0011\n",
            "        0011\n    - addr: 0x10012\n      hex: \"00\"\n",
        ),
        FILE,
    )
    .expect("adjacent ranges");
}

#[test]
fn entries_given_twice() {
    let k = ErrorKind::Conflict;
    check(
        "program:\n",
        "program:\n  - thread: 2\n    run: []\n",
        (27, 13),
        "program[1].thread",
        k,
        "thread 2 already has a program (first at line 25)",
    );
    check(
        "  adc:\n",
        "  adc:\n    - {thread: 2, unit: pack, ch0: [0, 0, 0, 0], ch1: [0, 0, 0, 0]}\n",
        (34, 16),
        "expect.adc[1]",
        k,
        "thread 2 unit pack is given twice (first at line 33)",
    );
    check(
        "0x000f]]\n",
        &format!("0x000f]]\n      - [0, {ZERO_CELLS}]\n"),
        (24, 10),
        "setup.dst.rows[1]",
        k,
        "row 0 is given twice (first at line 23)",
    );
    let mop = format!(
        "  mop_config:\n    - [2, {0}]\n    - [2, {0}]\n  dst:\n",
        "[0, 0, 0, 0, 0, 0, 0, 0, 0]"
    );
    check(
        "  dst:\n",
        &mop,
        (21, 8),
        "setup.mop_config[1]",
        k,
        "thread 2 already has a MOP config",
    );
}

#[test]
fn schema() {
    let k = ErrorKind::Schema;
    check(
        "tensix-vector/1",
        "tensix-vector/2",
        (1, 9),
        "schema",
        k,
        "unsupported schema `tensix-vector/2`; this harness reads `tensix-vector/1`",
    );
    // A wrong schema is reported ahead of what else the document gets wrong.
    check(
        "schema: tensix-vector/1\n",
        "schema: tensix-vector/2\nsomething_new: 1\n",
        (1, 9),
        "schema",
        k,
        "`tensix-vector/2`",
    );
    check(
        "schema: tensix-vector/1\n",
        "",
        (1, 1),
        "",
        k,
        "missing `schema: tensix-vector/1`",
    );
    check(
        "schema: tensix-vector/1",
        "schema: 1",
        (1, 9),
        "schema",
        k,
        "unsupported schema `1`",
    );
}

#[test]
fn yaml_syntax_errors_still_name_a_field() {
    let k = ErrorKind::Syntax;
    check(
        "  l1_fill: 0xee\n",
        "\tl1_fill: 0xee\n",
        (9, 2),
        "setup",
        k,
        "tabs",
    );
    check(
        "  thread_config:\n",
        " thread_config:\n",
        (17, 2),
        "setup.thread_config",
        k,
        "",
    );
    // An unclosed flow mapping: the parser notices a few lines later.
    check(
        "{gpr: [4, 0x10]}",
        "{gpr: [4, 0x10]",
        (33, 5),
        "expect.adc",
        k,
        "",
    );
}

#[test]
fn whole_document_problems() {
    for (text, message) in [
        ("", "the file is empty"),
        ("# only a comment\n", "the file is empty"),
        ("\u{feff}\n", "the file is empty"),
    ] {
        let e = parse_err(text);
        assert_eq!((e.line, e.column, e.kind), (1, 1, ErrorKind::Syntax), "{e}");
        assert!(e.message.contains(message), "{e}");
    }
    for (text, message) in [
        ("[]", "expected a mapping, found a sequence"),
        ("5\n", "expected a mapping, found `5`"),
    ] {
        let e = parse_err(text);
        assert_eq!(
            (e.line, e.column, e.field.as_str(), e.kind),
            (1, 1, "", ErrorKind::WrongType),
            "{e}"
        );
        assert!(e.message.contains(message), "{e}");
    }
    let e = parse_err(&format!("{BASE}---\n{BASE}"));
    assert_eq!((e.line, e.kind), (35, ErrorKind::Syntax), "{e}");
    assert!(e.message.contains("exactly one YAML document"), "{e}");

    let e = parse_err(&edit("tags: [pack]", "tags: &a [pack, *a]"));
    assert_eq!((e.line, e.kind), (7, ErrorKind::Limit), "{e}");
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let e = parse_err(&edit("    - [1, 0x0a000000]", &format!("    - {deep}")));
    assert_eq!(
        (e.line, e.field.as_str(), e.kind),
        (16, "setup.config", ErrorKind::Limit),
        "{e}"
    );
    assert!(e.message.contains("limits"), "{e}");
}

#[test]
fn bytes_that_are_not_utf8() {
    let mut bytes = BASE.as_bytes().to_vec();
    let at = BASE.find("t/x").expect("name") + 1;
    bytes[at] = 0xff;
    let e = Vector::from_yaml_bytes(&bytes, FILE).expect_err("not UTF-8");
    assert_eq!(
        (e.line, e.column, e.kind),
        (2, 8, ErrorKind::Encoding),
        "{e}"
    );
    assert!(e.message.contains("0xff"), "{e}");
}

#[test]
fn positions_do_not_depend_on_line_endings() {
    let cases = [
        ("        0011\n", "        00g1\n"),
        ("0x0005,", "0x10005,"),
        ("  l1_fill: 0xee\n", "  l1_fill: 0xee\n  l1_fil: 3\n"),
    ];
    for (from, to) in cases {
        let lf = parse_err(&edit(from, to));
        for ending in ["\r\n", "\r"] {
            let other = parse_err(&edit(from, to).replace('\n', ending));
            assert_eq!(
                (other.line, other.column, &other.field, other.kind),
                (lf.line, lf.column, &lf.field, lf.kind),
                "{ending:?}: {other} vs {lf}"
            );
        }
    }
    let crlf = BASE.replace('\n', "\r\n");
    let v = Vector::from_yaml_str(&crlf, FILE).expect("CRLF vector");
    assert_eq!(v, Vector::from_yaml_str(BASE, FILE).expect("LF vector"));
}
