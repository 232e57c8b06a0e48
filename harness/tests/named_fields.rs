//! Register fields by name and instructions by text in a vector (a
//! compatible extension of tensix-vector/1), and `fmt`, which reads them
//! back as words.

use std::path::Path;
use tensix_harness::vector::{ErrorKind, Step, Vector};

fn parse(text: &str) -> Result<Vector, tensix_harness::vector::VectorError> {
    Vector::from_yaml_str(text, "named.yaml")
}

/// The isa-spec ReLU vector written by field name and instruction text. Its
/// words were composed by hand from the register map when that vector was
/// written; the named form must give exactly them.
const NAMED: &str = r#"schema: tensix-vector/1
name: named
arch: blackhole
provenance: {source: isa-spec, detail: "named fields"}
setup:
  l1_fill: 0xee
  config:
    - {STACC_RELU_ApplyRelu: 3}
    - {STACC_RELU_ReluThreshold: 0x4040}
    - {PCK0_ADDR_CTRL_XY_REG_0_Ystride: 0x40}
    - {PCK0_ADDR_CTRL_ZW_REG_0_Zstride: 0x400, PCK0_ADDR_CTRL_ZW_REG_0_Wstride: 0x1000}
    - {PCK_DEST_RD_CTRL_Read_32b_data: 1}
    - {PCK_EDGE_OFFSET_SEC0_mask: 0xffff}
    - {PCK_EDGE_OFFSET_SEC1_mask: 0xffff}
    - {PACK_COUNTERS_SEC0_pack_reads_per_xy_plane: 16}
    - {THCON_SEC0_REG1_L1_Dest_addr: 0x1000}
    - {THCON_SEC0_REG1_Disable_zero_compress: 1}
  dst:
    mode: 32b
    format: fp32
    rows:
      - [0, [0x40400001, 0x40400100, 0x40400000, 0x403fffff, 0x40401fff, 0x40402000, 0x3f800000, 0xbf800000, 0x00000000, 0x80000000, 0x7f7fffff, 0x40000000, 0x40400002, 0x3f800001, 0xc0400001, 0x40bfffff]]
program:
  - thread: 2
    run:
      - SETADCXX x_end2=0xf cnt_set_mask=4
      - PACR last=1 read_intf_sel=1
"#;

fn raw_relu() -> Vector {
    Vector::load(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../conformance-vectors/isa-spec/blackhole/pack/relu-max-threshold-fp32-full-precision.yaml"),
    )
    .unwrap()
}

/// The last value each Config word is given, in order of first write.
fn final_words(v: &Vector) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for c in &v.setup.config {
        match out.iter_mut().find(|(a, _)| *a == c.addr) {
            Some(w) => w.1 = c.value,
            None => out.push((c.addr, c.value)),
        }
    }
    out.sort();
    out
}

#[test]
fn named_fields_give_the_hand_composed_words() {
    let named = parse(NAMED).unwrap();
    let raw = raw_relu();
    // Two entries name fields of word 2: the second keeps the first's bits.
    assert_eq!(named.setup.config[1].addr, 2);
    assert_eq!(named.setup.config[1].value, 0x0010_100c);
    let mut want = final_words(&raw);
    // The raw vector also writes word 1 (Dstacc FP32 = 0) and 68 (zero),
    // which change nothing on a reset Config.
    want.retain(|(_, v)| *v != 0);
    assert_eq!(final_words(&named), want);
    assert_eq!(named.program, raw.program);
    // And it runs as the raw vector does.
    let a = tensix_harness::run::run_vector(&named).unwrap();
    let mut checked = named.clone();
    checked.expect = raw.expect.clone();
    let b = tensix_harness::run::run_vector(&checked).unwrap();
    assert!(b.passed(), "{:?}", b.mismatches);
    assert!(a.fault.is_none());
}

#[test]
fn thread_config_and_program_stores_by_name() {
    let text = NAMED.replace(
        "  dst:",
        "  thread_config:\n    - {thread: 2, CFG_STATE_ID_StateID: 1}\n  dst:",
    );
    let text = text.replace(
        "      - PACR last=1 read_intf_sel=1\n",
        "      - PACR last=1 read_intf_sel=1\n      - {cfg: {THCON_SEC0_REG1_In_data_format: 5, THCON_SEC0_REG1_Out_data_format: 1}}\n",
    );
    let v = parse(&text).unwrap();
    let f = tensix_emu::regs::ThreadCfgField::from_name("CFG_STATE_ID_StateID")
        .unwrap()
        .on(v.arch)
        .unwrap();
    assert_eq!(v.setup.thread_config.len(), 1);
    assert_eq!(u32::from(v.setup.thread_config[0].reg), u32::from(f.addr32));
    assert_eq!(u32::from(v.setup.thread_config[0].value), 1 << f.shift);
    // Word 70: In_data_format in bits 8..12, Out_data_format in 4..8, and
    // nothing else (a whole-word store).
    assert_eq!(
        v.program[0].run.last(),
        Some(&Step::Cfg {
            addr32: 70,
            value: 0x510
        })
    );
}

#[test]
fn bad_names_are_located() {
    let cases = [
        (
            "{STACC_RELU_ApplyRelu: 3}",
            "{STACC_RELU_ApplyRelux: 3}",
            ErrorKind::UnknownField,
            "ApplyRelux",
        ),
        (
            "{STACC_RELU_ApplyRelu: 3}",
            "{STACC_RELU_ApplyRelu: 3, PCK_EDGE_OFFSET_SEC0_mask: 1}",
            ErrorKind::Conflict,
            "word",
        ),
        (
            "{STACC_RELU_ApplyRelu: 3}",
            "{STACC_RELU_ApplyRelu: 16}",
            ErrorKind::OutOfRange,
            "",
        ),
        (
            "{STACC_RELU_ApplyRelu: 3}",
            "{state: 1}",
            ErrorKind::MissingField,
            "",
        ),
    ];
    for (from, to, kind, says) in cases {
        let text = NAMED.replace(from, to);
        let e = parse(&text).unwrap_err();
        assert_eq!(e.kind, kind, "{to}: {e}");
        assert_eq!(e.line, 8, "{to}: {e}");
        assert!(e.field.starts_with("setup.config[0]"), "{}", e.field);
        assert!(e.message.contains(says), "{e}");
    }
    let text = NAMED.replace(
        "  dst:",
        "  thread_config:\n    - {CFG_STATE_ID_StateID: 1}\n  dst:",
    );
    let e = parse(&text).unwrap_err();
    assert_eq!(e.kind, ErrorKind::MissingField);
    assert!(e.message.contains("thread"), "{e}");
}

/// `fmt` gives words; `--annotate` reads each back, and its output parses
/// to the same vector.
#[test]
fn fmt_shows_the_words_and_reads_them_back() {
    let v = parse(NAMED).unwrap();
    let plain = v.to_yaml();
    assert!(plain.contains("- [2, 0x0010100c]"), "{plain}");
    assert!(plain.contains("- 0x41000101"), "{plain}");
    let annotated = tensix_harness::fmt::annotated(&v);
    assert!(
        annotated.contains(
            "- [2, 0x0010100c]  # STACC_RELU_ApplyRelu=0x3, STACC_RELU_ReluThreshold=0x4040"
        ),
        "{annotated}"
    );
    assert!(
        annotated.contains("- 0x41000101  # PACR last=1 read_intf_sel=1"),
        "{annotated}"
    );
    assert_eq!(parse(&annotated).unwrap(), parse(&plain).unwrap());
}

/// The worked example in docs/ holds, and docs/registers.md ends with the
/// register table `tensix-harness regs` prints (so it is in step with the
/// emulator's register map).
#[test]
fn the_docs_example_holds_and_the_register_reference_is_current() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs");
    let v = Vector::load(docs.join("example-bf16-row-to-bfp8b.yaml")).unwrap();
    let outcome = tensix_harness::run::run_vector(&v).unwrap();
    assert!(outcome.passed(), "{:?}", outcome.mismatches);
    let text = std::fs::read_to_string(docs.join("registers.md")).unwrap();
    assert!(
        text.ends_with(&tensix_harness::fmt::register_reference(None)),
        "docs/registers.md is out of date: rewrite its table with `tensix-harness regs`"
    );
}
