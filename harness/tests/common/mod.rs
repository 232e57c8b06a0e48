//! Helpers shared by the harness's integration tests.

use std::path::{Path, PathBuf};

/// A fresh, empty scratch directory for one test (`suite` keeps test
/// binaries apart, `name` tests within one), removed when the test passes
/// and kept, for a look, when it fails.
pub fn scratch(suite: &str, name: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("tensix-{suite}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

/// A scratch directory (see [`scratch`]).
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// The text of a corpus vector, by its path under `conformance-vectors/`.
#[allow(dead_code)] // not every test binary that shares this module reads the corpus
pub fn corpus(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance-vectors")
        .join(rel);
    std::fs::read_to_string(p).unwrap()
}
