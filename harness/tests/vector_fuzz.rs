//! No input makes the parser panic, every error points inside the input,
//! and whatever is accepted round-trips.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{select, Index};

use tensix_harness::vector::Vector;

/// A small real vector to mutate.
const SEED: &str =
    include_str!("../../conformance-vectors/ttsim/blackhole/unpack/int8-to-srca-0432.yaml");

/// A vector touching every part of the schema.
const FULL: &str = r#"schema: tensix-vector/1
name: fuzz/full
arch: wormhole_b0
provenance: {source: fuzz, detail: "seed 1"}
tags: [a, b]
setup:
  l1_fill: 0x5a
  l1:
    - addr: 0x100
      hex: |
        0011223344556677
  config: [[1, 0x0a000000], [2, 3, 1]]
  thread_config: [[2, 37, 0x0104]]
  gprs: [[2, 4, 0x1234]]
  mop_config: [[2, [0, 1, 2, 3, 4, 5, 6, 7, 8]]]
  dst: {mode: 16b, format: fp16, rows: [[1023, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffff]]]}
  srca: [[1, 63, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7ffff]]]
  srcb: []
program:
  - thread: 2
    run: [0x5e803c00, {cfg: [69, 0x1fff]}, {gpr: [4, 0x10]}]
expect:
  fault: {kind: deadlock}
  l1: [{addr: 0x200, hex: "00"}]
  dst: {mode: 32b, format: raw32, rows: []}
  srca: []
  srcb: []
  adc: [{thread: 2, unit: pack, ch0: [1, 2, 3, 4], ch1: [0, 0, 0, 0]}]
"#;

/// Parses `bytes`; checks the error's position or the round trip.
fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    match Vector::from_yaml_bytes(bytes, "fuzz.yaml") {
        Ok(v) => {
            let yaml = v.to_yaml();
            let back = Vector::from_yaml_str(&yaml, "fuzz.yaml").map_err(|e| {
                TestCaseError::fail(format!("accepted, but its output is not: {e}\n{yaml}"))
            })?;
            prop_assert_eq!(back, v);
        }
        Err(e) => {
            let text = String::from_utf8_lossy(bytes);
            // YAML ends lines at `\n`, `\r\n` and a lone `\r`.
            let lines = text.replace("\r\n", "\n").split(['\n', '\r']).count();
            prop_assert!(e.line >= 1 && e.column >= 1, "{}", e);
            prop_assert!(e.line <= lines, "line {} of {}: {}", e.line, lines, e);
            prop_assert!(!e.message.is_empty(), "{:?}", e);
            prop_assert!(e.to_string().starts_with("fuzz.yaml:"), "{}", e);
        }
    }
    Ok(())
}

/// Applies byte edits: 0 replaces, 1 inserts, 2 deletes.
fn mutate(base: &str, edits: &[(Index, u8, u8)]) -> Vec<u8> {
    let mut bytes = base.as_bytes().to_vec();
    for (at, byte, op) in edits {
        if bytes.is_empty() {
            bytes.push(*byte);
            continue;
        }
        let i = at.index(bytes.len());
        match op {
            0 => bytes[i] = *byte,
            1 => bytes.insert(i, *byte),
            _ => {
                bytes.remove(i);
            }
        }
    }
    bytes
}

/// Bytes that matter to YAML and to the schema, to make edits bite.
fn yamlish_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => select(b" \n\t-:[]{},#&*!|>'\"%@`?~0123456789abcdefx.\\".to_vec()),
        1 => any::<u8>(),
    ]
}

/// Fragments that build schema-shaped documents, in any order.
const FRAGMENTS: &[&str] = &[
    "schema: tensix-vector/1\n",
    "schema: tensix-vector/2\n",
    "name: n\n",
    "arch: blackhole\n",
    "arch: wormhole_b0\n",
    "provenance: {source: fuzz}\n",
    "tags: [x]\n",
    "setup:\n",
    "  l1_fill: 0x1ff\n",
    "  l1:\n",
    "    - addr: 0x17fff0\n",
    "      hex: |\n",
    "        00112233445566778899aabbccddeeff00\n",
    "      hex: \"0g\"\n",
    "  config: [[1, 2, 3]]\n",
    "  dst: {mode: 16b, format: fp32, rows: [[0, [1, 2]]]}\n",
    "  srca: [[0, 64, []]]\n",
    "program:\n",
    "  - thread: 2\n",
    "    run: [0x1, {cfg: [1]}, {gpr: [64, 1]}, {x: 1}]\n",
    "expect:\n",
    "  fault: {kind: deadlock}\n",
    "  adc: [{thread: 3}]\n",
    "  l1: []\n",
    "&a ",
    "*a",
    "<<: *a\n",
    "!!str ",
    "!!binary aGk=\n",
    "-1",
    "~",
    "\t",
    "\u{feff}",
    "---\n",
    "...\n",
    "? ",
    "[",
    "]",
    "{",
    "}",
    ", ",
    ": ",
    "- ",
    "\"",
    "'",
    "#",
    "\n",
    "  ",
    "0x",
    "99999999999999999999999",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("VECTOR_FUZZ_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(1024), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes(bytes in vec(any::<u8>(), 0..512)) {
        check(&bytes)?;
    }

    #[test]
    fn arbitrary_strings(text in any::<String>()) {
        check(text.as_bytes())?;
    }

    #[test]
    fn yaml_punctuation_soup(bytes in vec(yamlish_byte(), 0..300)) {
        check(&bytes)?;
    }

    #[test]
    fn mutated_corpus_vector(edits in vec((any::<Index>(), yamlish_byte(), 0u8..3), 1..6)) {
        check(&mutate(SEED, &edits))?;
    }

    #[test]
    fn mutated_full_vector(edits in vec((any::<Index>(), yamlish_byte(), 0u8..3), 1..6)) {
        check(&mutate(FULL, &edits))?;
    }

    #[test]
    fn shuffled_fragments(parts in vec(select(FRAGMENTS.to_vec()), 0..40)) {
        check(parts.concat().as_bytes())?;
    }
}

#[test]
fn seeds_are_valid() {
    Vector::from_yaml_str(SEED, "seed.yaml").expect("corpus seed parses");
    let v = Vector::from_yaml_str(FULL, "full.yaml").expect("full seed parses");
    assert_eq!(
        Vector::from_yaml_str(&v.to_yaml(), "full.yaml").expect("round trip"),
        v
    );
}

#[test]
fn pathological_documents() {
    let cases = [
        format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000)),
        format!("{}1", "- ".repeat(10_000)),
        format!("{}x: 1", "a:\n ".repeat(5_000)),
        // Billion laughs.
        "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n\
         c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n\
         e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n\
         g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
            .to_string(),
        format!(
            "schema: tensix-vector/1\nname: \"{}\"\n",
            "\\".repeat(10_001)
        ),
        "\0\0\0".to_string(),
    ];
    for text in &cases {
        let result = Vector::from_yaml_str(text, "p.yaml");
        let e = result.expect_err("pathological input is rejected");
        assert!(e.line >= 1 && e.column >= 1, "{e}");
    }
}
