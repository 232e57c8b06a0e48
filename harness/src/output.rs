//! Writing files without losing what a user wrote: every file is written to
//! a temporary name beside its target and renamed into place; an existing
//! file is replaced only with `force`; a link, device or FIFO is never
//! written through or replaced; and no target is read to guess who wrote it.

use std::io::Write;
use std::path::Path;

/// Whether `path` may be written: it does not exist, or it is a regular
/// file and `force` is set. Call it before the work that produces the file,
/// so that a refusal comes first.
pub fn check_target(path: &Path, force: bool) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(format!(
            "{} is a symbolic link; output is not written through or over links",
            path.display()
        )),
        Ok(m) if !m.is_file() => Err(format!(
            "{} is not a regular file (a directory, device, FIFO or socket); not written",
            path.display()
        )),
        Ok(_) if !force => Err(format!(
            "{} exists; pass --force to overwrite it",
            path.display()
        )),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Write `contents` (text or bytes) to `path` atomically, after
/// [`check_target`].
pub fn write_new(path: &Path, contents: impl AsRef<[u8]>, force: bool) -> Result<(), String> {
    check_target(path, force)?;
    write_atomic(path, contents.as_ref())
}

/// Write a report (JUnit XML): the same rules as any other output.
pub fn write_report(path: &Path, contents: &str, force: bool) -> Result<(), String> {
    write_new(path, contents, force)
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
    fn never_overwrites_a_users_file_without_force_and_never_through_a_link() {
        let dir = std::env::temp_dir().join(format!("tensix-output-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("mine.xml");
        // Even a file that looks like one of ours is the user's to keep.
        std::fs::write(&p, "<testsuite name=\"tensix-conformance\"/>").unwrap();
        assert!(write_report(&p, "<x/>", false).is_err());
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "<testsuite name=\"tensix-conformance\"/>"
        );
        write_report(&p, "<y/>", true).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "<y/>");
        // A link is neither followed nor replaced, with or without force.
        let link = dir.join("link.xml");
        std::os::unix::fs::symlink(&p, &link).unwrap();
        for force in [false, true] {
            let e = write_report(&link, "<z/>", force).unwrap_err();
            assert!(e.contains("symbolic link"), "{e}");
        }
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "<y/>");
        // Devices are refused without being opened.
        let e = check_target(Path::new("/dev/full"), true).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
