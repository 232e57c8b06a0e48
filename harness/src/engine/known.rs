//! Vectors an engine is known to run differently from their expectation,
//! each tied to the catalogue entry that explains why
//! (`conformance-vectors/engines/known-vector-differences.txt`).
//!
//! One line a vector: `ENGINE  VECTOR  CATALOGUE-ENTRY`, `#` starting a
//! comment. `ENGINE` is the engine's kind (`ttsim`, `wolfpine`, `device`).

use std::collections::BTreeMap;
use std::path::Path;

/// The list, keyed by (engine kind, vector name).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KnownDifferences {
    entries: BTreeMap<(String, String), String>,
}

impl KnownDifferences {
    /// Read the list at `path` (a regular file of bounded size).
    pub fn load(path: &Path) -> Result<KnownDifferences, String> {
        let bytes = crate::vector::read_bounded(path).map_err(|e| e.to_string())?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("{}: the list is not UTF-8", path.display()))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parse the text of a list; errors name `file` and the line.
    pub fn parse(text: &str, file: &str) -> Result<KnownDifferences, String> {
        let mut entries = BTreeMap::new();
        for (n, f) in fields(text) {
            let [engine, vector, entry] = f[..] else {
                return Err(format!(
                    "{file}:{n}: expected three fields: ENGINE VECTOR CATALOGUE-ENTRY"
                ));
            };
            let key = (engine.to_string(), vector.to_string());
            if entries.insert(key, entry.to_string()).is_some() {
                return Err(format!("{file}:{n}: `{engine} {vector}` is listed twice"));
            }
        }
        Ok(KnownDifferences { entries })
    }

    /// The catalogue entry explaining why `vector` differs on `engine`.
    pub fn entry(&self, engine: &str, vector: &str) -> Option<&str> {
        self.entries
            .get(&(engine.to_string(), vector.to_string()))
            .map(String::as_str)
    }
}

/// The whitespace-separated fields of each line that holds any, with its
/// line number (from 1); `#` starts a comment. The format of this list and
/// of the campaign catalogue (`diff --known`).
pub fn fields(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines().enumerate().filter_map(|(n, line)| {
        let line = line.split('#').next().unwrap_or("").trim();
        (!line.is_empty()).then(|| (n + 1, line.split_whitespace().collect()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_engine_vector_and_entry() {
        let k =
            KnownDifferences::parse("# comment\n\nttsim a/b c-d # why\nwolfpine a/b e\n", "list")
                .unwrap();
        assert_eq!(k.entry("ttsim", "a/b"), Some("c-d"));
        assert_eq!(k.entry("wolfpine", "a/b"), Some("e"));
        assert_eq!(k.entry("device", "a/b"), None);
    }

    #[test]
    fn bad_lines_are_located() {
        let e = KnownDifferences::parse("ttsim a/b\n", "list").unwrap_err();
        assert!(e.starts_with("list:1: expected three fields"), "{e}");
        let e = KnownDifferences::parse("ttsim a b\nttsim a c\n", "list").unwrap_err();
        assert!(e.starts_with("list:2:") && e.contains("twice"), "{e}");
    }
}
