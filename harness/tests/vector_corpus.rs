//! Every vector in the repository's `conformance-vectors/` parses, and
//! writing it back reproduces the file byte for byte.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tensix_harness::vector::Vector;

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-vectors")
}

#[test]
fn every_corpus_vector_parses_and_round_trips_byte_for_byte() {
    let root = corpus_root();
    // The same list the conformance gate runs.
    let files = tensix_harness::vector::yaml_files(&root).unwrap();
    // The ttsim oracle set alone has 348 vectors.
    assert!(
        files.len() >= 348,
        "expected at least 348 vectors under {}, found {}",
        root.display(),
        files.len()
    );

    let mut failures = Vec::new();
    let mut names: HashMap<String, PathBuf> = HashMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable UTF-8 vector");
        let rel = file.strip_prefix(&root).unwrap_or(file);
        let vector = match Vector::from_yaml_str(&text, rel) {
            Ok(v) => v,
            Err(e) => {
                failures.push(e.to_string());
                continue;
            }
        };
        if let Some(first) = names.insert(vector.name.clone(), file.clone()) {
            failures.push(format!(
                "{}: name `{}` is also used by {}",
                file.display(),
                vector.name,
                first.display()
            ));
        }
        // Byte-exact output implies that parsing it gives `vector` again.
        let written = vector.to_yaml();
        if written != text {
            let line = text
                .lines()
                .zip(written.lines())
                .position(|(a, b)| a != b)
                .map_or_else(|| "length".to_string(), |i| format!("line {}", i + 1));
            failures.push(format!(
                "{}: to_yaml differs from the file at {line}",
                file.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_covers_the_schema() {
    // The oracle files exercise the optional parts of the schema; make sure
    // the parser sees them (a regression that silently dropped a field would
    // still round-trip an empty value, but not these counts).
    let root = corpus_root().join("ttsim/blackhole/sequence");
    let files = tensix_harness::vector::yaml_files(&root).unwrap();
    let mut cfg_steps = 0;
    let mut gpr_steps = 0;
    let mut gprs = 0;
    for file in &files {
        let v = Vector::load(file).expect("corpus vector");
        for t in &v.program {
            for s in &t.run {
                match s {
                    tensix_harness::vector::Step::Cfg { .. } => cfg_steps += 1,
                    tensix_harness::vector::Step::Gpr { .. } => gpr_steps += 1,
                    tensix_harness::vector::Step::Instruction(_) => {}
                }
            }
        }
        gprs += v.setup.gprs.len();
        assert!(v.expect.adc.is_some(), "{}", file.display());
    }
    assert!(cfg_steps > 0 && gpr_steps > 0 && gprs > 0);
}

/// Each line of the engines' list of known vector differences names an
/// engine kind, a vector of this tree (by its path under
/// `conformance-vectors/`) and a catalogue entry with its README, so a
/// misspelt line cannot sit there matching nothing.
#[test]
fn known_vector_differences_name_real_vectors_and_entries() {
    let root = corpus_root();
    let list = root.join("engines/known-vector-differences.txt");
    let text = std::fs::read_to_string(&list).unwrap();
    let mut lines = 0;
    for (n, f) in tensix_harness::engine::known::fields(&text) {
        let [engine, vector, entry] = f[..] else {
            panic!("{}:{n}: expected three fields", list.display());
        };
        assert!(
            ["ttsim", "wolfpine", "device"].contains(&engine),
            "{}:{n}: no engine kind `{engine}`",
            list.display()
        );
        assert!(
            root.join(format!("{vector}.yaml")).is_file(),
            "{}:{n}: no vector {vector}",
            list.display()
        );
        assert!(
            root.join("engines").join(entry).join("README.md").is_file(),
            "{}:{n}: no catalogue entry {entry}",
            list.display()
        );
        lines += 1;
    }
    assert!(lines >= 7, "{lines} lines");
}
