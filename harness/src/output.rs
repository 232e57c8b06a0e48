//! Writing files without losing what a user wrote: every file is written to
//! a temporary name beside its target and renamed into place, and an
//! existing file is replaced only with `force` (or, for reports, when it is
//! one this tool wrote before).

use std::io::Write;
use std::path::Path;

/// Marker this tool puts in every report it writes.
pub const REPORT_MARK: &str = "tensix-conformance";

/// Write `contents` (text or bytes) to `path` atomically. Refuses to replace
/// an existing file unless `force` is set.
pub fn write_new(path: &Path, contents: impl AsRef<[u8]>, force: bool) -> Result<(), String> {
    if path.exists() && !force {
        return Err(format!(
            "{} exists; pass --force to overwrite it",
            path.display()
        ));
    }
    write_atomic(path, contents.as_ref())
}

/// Write a report: like [`write_new`], but a file this tool wrote earlier
/// (it carries [`REPORT_MARK`]) may be replaced without `force`.
pub fn write_report(path: &Path, contents: &str, force: bool) -> Result<(), String> {
    let ours = std::fs::read_to_string(path).is_ok_and(|t| t.contains(REPORT_MARK));
    write_new(path, contents, force || ours)
}

fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), String> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| format!("{} is not a file name", path.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(contents)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_overwrites_a_users_file_without_force() {
        let dir = std::env::temp_dir().join(format!("tensix-output-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("mine.xml");
        std::fs::write(&p, "my notes").unwrap();
        assert!(write_report(&p, "<x/>", false).is_err());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "my notes");
        write_report(&p, "<x tensix-conformance/>", true).unwrap();
        // Now it is ours: a later report may replace it.
        write_report(&p, "<y tensix-conformance/>", false).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "<y tensix-conformance/>"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
