//! Helpers shared by the harness's integration tests.

use std::path::{Path, PathBuf};

/// A fresh, empty scratch directory for one test (`suite` keeps test
/// binaries apart, `name` tests within one).
pub fn scratch(suite: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tensix-{suite}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The text of a corpus vector, by its path under `conformance-vectors/`.
pub fn corpus(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance-vectors")
        .join(rel);
    std::fs::read_to_string(p).unwrap()
}
