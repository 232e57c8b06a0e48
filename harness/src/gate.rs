//! The conformance gate: find vectors, run them in parallel, hold them
//! against the known-failures list, and summarise.

use crate::report;
use crate::run::{self, Outcome};
use crate::vector::{Vector, VectorError};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub use crate::vector::KNOWN_FAILURES;

/// Vectors known to fail, with the reason. A key ending in `*` covers every
/// vector whose name starts with the rest of the key.
#[derive(Clone, Debug, Default)]
pub struct KnownFailures {
    entries: BTreeMap<String, String>,
}

impl KnownFailures {
    /// Read the list at `path` (a regular file of bounded size).
    pub fn load(path: &Path) -> Result<KnownFailures, String> {
        let bytes = crate::vector::read_bounded(path).map_err(|e| e.to_string())?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("{}: the known-failures list is not UTF-8", path.display()))?;
        Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The nearest known-failures list at or above `path` (a directory, or
    /// a file whose directory is searched), so that the list holds for any
    /// path under the directory that has it.
    pub fn find(path: &Path) -> Option<PathBuf> {
        let start = if path.is_dir() {
            path.to_path_buf()
        } else {
            path.parent()?.to_path_buf()
        };
        let start = std::fs::canonicalize(if start.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &start
        })
        .ok()?;
        start
            .ancestors()
            .map(|d| d.join(KNOWN_FAILURES))
            .find(|p| p.is_file())
    }

    /// Entries that match none of `names` (a key ending in `*` matches by
    /// prefix).
    pub fn unmatched<'a>(&'a self, names: &[&str]) -> Vec<&'a str> {
        self.entries
            .keys()
            .filter(|k| match k.strip_suffix('*') {
                Some(prefix) => !names.iter().any(|n| n.starts_with(prefix)),
                None => !names.contains(&k.as_str()),
            })
            .map(String::as_str)
            .collect()
    }

    pub fn parse(text: &str) -> Result<KnownFailures, String> {
        let entries: Option<BTreeMap<String, String>> =
            serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
        let entries = entries.unwrap_or_default();
        if let Some((k, _)) = entries.iter().find(|(_, v)| v.trim().is_empty()) {
            return Err(format!("known failure `{k}` has no reason"));
        }
        Ok(KnownFailures { entries })
    }

    /// The reason `name` is expected to fail, if it is listed.
    pub fn reason(&self, name: &str) -> Option<&str> {
        if let Some(r) = self.entries.get(name) {
            return Some(r);
        }
        self.entries
            .iter()
            .filter_map(|(k, r)| k.strip_suffix('*').map(|p| (p, r)))
            .filter(|(p, _)| name.starts_with(p))
            .max_by_key(|(p, _)| p.len())
            .map(|(_, r)| r.as_str())
    }
}

/// Where a vector ended up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed,
    /// Failed, and listed as known to fail.
    KnownFailure(String),
    /// Listed as known to fail, but passed: the list must shrink.
    UnexpectedPass(String),
}

/// A file that could not be used, and why (the message names the file,
/// and a line and column where there is one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unusable {
    pub file: PathBuf,
    pub message: String,
}

/// One vector's result.
#[derive(Debug)]
pub struct Entry {
    pub path: PathBuf,
    pub name: String,
    /// Line and column of the `name` field.
    pub name_at: (usize, usize),
    pub verdict: Verdict,
    pub outcome: Outcome,
}

/// Everything a gate run found.
#[derive(Debug, Default)]
pub struct GateRun {
    pub entries: Vec<Entry>,
    /// Files that could not be used, with the reason.
    pub unusable: Vec<Unusable>,
}

impl GateRun {
    /// The gate holds when every file was usable, nothing failed outside the
    /// list and nothing on the list passed.
    pub fn holds(&self) -> bool {
        self.unusable.is_empty()
            && self
                .entries
                .iter()
                .all(|e| matches!(e.verdict, Verdict::Passed | Verdict::KnownFailure(_)))
    }
}

/// A vector file and the directory it was found under (an absent `name`
/// defaults to its path relative to that directory).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct VectorFile {
    pub root: PathBuf,
    pub path: PathBuf,
}

/// Every vector under `paths` (files, or directories searched recursively),
/// in sorted order.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<VectorFile>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let files = crate::vector::yaml_files(p).map_err(|e| e.to_string())?;
            out.extend(files.into_iter().map(|path| VectorFile {
                root: p.clone(),
                path,
            }));
        } else {
            std::fs::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let root = p.parent().map(Path::to_path_buf).unwrap_or_default();
            out.push(VectorFile {
                root,
                path: p.clone(),
            });
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.path == b.path);
    Ok(out)
}

/// Name unnamed vectors from the directory that holds the known-failures
/// list (`list_dir`, canonical) rather than from the directory given, so
/// that running a subdirectory names them as running the whole corpus does.
/// A root is moved up only where the path as given leads there by dropping
/// components; elsewhere it stays.
pub fn rooted_at(files: Vec<VectorFile>, list_dir: &Path) -> Vec<VectorFile> {
    files
        .into_iter()
        .map(|mut f| {
            let given = if f.root.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                f.root.clone()
            };
            if let Ok(sub) = std::fs::canonicalize(&given).map_err(|_| ()).and_then(|c| {
                c.strip_prefix(list_dir)
                    .map(Path::to_path_buf)
                    .map_err(|_| ())
            }) {
                let mut up = given.clone();
                let mut ok = true;
                for _ in sub.components() {
                    ok &= up.pop();
                }
                if up.as_os_str().is_empty() {
                    up = PathBuf::from(".");
                }
                if ok && std::fs::canonicalize(&up).is_ok_and(|c| c == list_dir) {
                    f.root = up;
                }
            }
            f
        })
        .collect()
}

/// Load and run one file on `bench`'s machines.
fn run_file(
    bench: &mut run::Workbench,
    file: &VectorFile,
    known: &KnownFailures,
) -> Result<Entry, Unusable> {
    let path = &file.path;
    let unusable = |message: String| Unusable {
        file: path.clone(),
        message,
    };
    let (v, name_at) = Vector::load_under_located(&file.root, path)
        .map_err(|e: VectorError| unusable(e.to_string()))?;
    let outcome = bench
        .run_vector(&v)
        .map_err(|e| unusable(format!("{}: {e}", path.display())))?;
    let verdict = match (outcome.passed(), known.reason(&v.name)) {
        (true, None) => Verdict::Passed,
        (true, Some(r)) => Verdict::UnexpectedPass(r.to_string()),
        (false, None) => Verdict::Failed,
        (false, Some(r)) => Verdict::KnownFailure(r.to_string()),
    };
    Ok(Entry {
        path: path.to_path_buf(),
        name: v.name.clone(),
        name_at,
        verdict,
        outcome,
    })
}

/// Run `files` on `jobs` threads; results come back in `files` order.
pub fn run_all(
    files: &[VectorFile],
    known: &KnownFailures,
    jobs: usize,
    mut progress: impl FnMut(usize, usize) + Send,
) -> GateRun {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Result<Entry, Unusable>>>> =
        files.iter().map(|_| Mutex::new(None)).collect();
    let progress = Mutex::new(&mut progress);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| {
                let mut bench = run::Workbench::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(file) = files.get(i) else { break };
                    let r = run_file(&mut bench, file, known);
                    *results[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    (progress.lock().unwrap_or_else(|p| p.into_inner()))(n, files.len());
                }
            });
        }
    });
    let mut run = GateRun::default();
    let mut names: BTreeMap<String, PathBuf> = BTreeMap::new();
    for r in results {
        match r.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(Ok(e)) => {
                // Names key the known-failures list, so they must be unique:
                // a second file with a name is unusable, not a result.
                if let Some(first) = names.get(&e.name) {
                    run.unusable.push(Unusable {
                        message: format!(
                            "{}:{}:{}: name: `{}` is already used by {}",
                            e.path.display(),
                            e.name_at.0,
                            e.name_at.1,
                            e.name,
                            first.display()
                        ),
                        file: e.path,
                    });
                } else {
                    names.insert(e.name.clone(), e.path.clone());
                    run.entries.push(e);
                }
            }
            Some(Err(u)) => run.unusable.push(u),
            None => {}
        }
    }
    run
}

/// Group label of a vector for the summary: its directory under the root.
fn group(e: &Entry, root: &Path) -> String {
    let rel = e.path.strip_prefix(root).unwrap_or(&e.path);
    rel.parent()
        .map(|p| p.display().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| ".".into())
}

/// The human report: every failure in detail, then the summary table.
pub fn human(run: &GateRun, root: &Path) -> String {
    let mut out = String::new();
    for e in &run.entries {
        match &e.verdict {
            Verdict::Failed => {
                let _ = writeln!(
                    out,
                    "FAIL {} ({})",
                    report::printable(&e.name),
                    report::printable(&e.path.display().to_string())
                );
                for m in &e.outcome.mismatches {
                    for line in report::describe(m, e.outcome.datums).lines() {
                        let _ = writeln!(out, "    {line}");
                    }
                }
                if let Some(t) = e
                    .outcome
                    .mismatches
                    .iter()
                    .find_map(crate::explain::first_target)
                {
                    let _ = writeln!(
                        out,
                        "    where it came from: tensix-harness explain {} {}",
                        report::printable(&crate::explain::shell_word(
                            &e.path.display().to_string()
                        )),
                        t.option()
                    );
                }
            }
            Verdict::UnexpectedPass(r) => {
                let _ = writeln!(
                    out,
                    "PASS-BUT-LISTED {} ({}): remove it from {KNOWN_FAILURES} (was: {})",
                    report::printable(&e.name),
                    report::printable(&e.path.display().to_string()),
                    report::printable(r)
                );
            }
            _ => {}
        }
    }
    for u in &run.unusable {
        let _ = writeln!(out, "UNUSABLE {}", report::printable(&u.message));
    }
    let mut groups: BTreeMap<String, [usize; 5]> = BTreeMap::new();
    for e in &run.entries {
        let g = groups.entry(group(e, root)).or_default();
        match e.verdict {
            Verdict::Passed => g[0] += 1,
            Verdict::Failed => g[1] += 1,
            Verdict::KnownFailure(_) => g[2] += 1,
            Verdict::UnexpectedPass(_) => g[3] += 1,
        }
        if e.outcome.fault.is_some() {
            g[4] += 1;
        }
    }
    let width = groups.keys().map(String::len).max().unwrap_or(5).max(5);
    let _ = writeln!(
        out,
        "\n{:width$}  {:>6}  {:>6}  {:>6}  {:>10}  {:>6}",
        "group", "passed", "failed", "known", "listed-ok", "faults"
    );
    let mut total = [0usize; 5];
    for (g, c) in &groups {
        let _ = writeln!(
            out,
            "{:width$}  {:>6}  {:>6}  {:>6}  {:>10}  {:>6}",
            report::printable(g),
            c[0],
            c[1],
            c[2],
            c[3],
            c[4]
        );
        for i in 0..5 {
            total[i] += c[i];
        }
    }
    let _ = writeln!(
        out,
        "{:width$}  {:>6}  {:>6}  {:>6}  {:>10}  {:>6}",
        "total", total[0], total[1], total[2], total[3], total[4]
    );
    let _ = writeln!(
        out,
        "conformance gate: {}",
        if run.holds() {
            "holds"
        } else {
            "does not hold"
        }
    );
    out
}

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn verdict_name(v: &Verdict) -> &'static str {
    match v {
        Verdict::Passed => "passed",
        Verdict::Failed => "failed",
        Verdict::KnownFailure(_) => "known_failure",
        Verdict::UnexpectedPass(_) => "unexpected_pass",
    }
}

/// The machine report: one JSON object.
pub fn json(run: &GateRun) -> String {
    let mut out = String::from("{\"vectors\":[");
    for (i, e) in run.entries.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let details: Vec<String> = e
            .outcome
            .mismatches
            .iter()
            .map(|m| json_str(&report::describe(m, e.outcome.datums)))
            .collect();
        let reason = match &e.verdict {
            Verdict::KnownFailure(r) | Verdict::UnexpectedPass(r) => json_str(r),
            _ => "null".into(),
        };
        let fault = e
            .outcome
            .fault
            .as_ref()
            .map_or("null".to_string(), |f| json_str(&f.to_string()));
        let _ = write!(
            out,
            "{{\"name\":{},\"path\":{},\"verdict\":\"{}\",\"reason\":{reason},\"fault\":{fault},\"mismatches\":[{}]}}",
            json_str(&e.name),
            json_str(&e.path.display().to_string()),
            verdict_name(&e.verdict),
            details.join(",")
        );
    }
    out.push_str("],\"unusable\":[");
    out.push_str(
        &run.unusable
            .iter()
            .map(|u| json_str(&u.message))
            .collect::<Vec<_>>()
            .join(","),
    );
    let _ = write!(out, "],\"holds\":{}}}", run.holds());
    out
}

/// JUnit XML: one test case per vector; known failures are skipped cases.
pub fn junit(run: &GateRun) -> String {
    use report::xml_escape as x;
    let failures = run
        .entries
        .iter()
        .filter(|e| matches!(e.verdict, Verdict::Failed | Verdict::UnexpectedPass(_)))
        .count();
    let skipped = run
        .entries
        .iter()
        .filter(|e| matches!(e.verdict, Verdict::KnownFailure(_)))
        .count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuite name=\"tensix-conformance\" tests=\"{}\" failures=\"{failures}\" errors=\"{}\" skipped=\"{skipped}\">",
        run.entries.len() + run.unusable.len(),
        run.unusable.len()
    );
    for e in &run.entries {
        let _ = write!(
            out,
            "  <testcase classname=\"conformance\" name=\"{}\" file=\"{}\"",
            x(&e.name),
            x(&e.path.display().to_string())
        );
        match &e.verdict {
            Verdict::Passed => out.push_str("/>\n"),
            Verdict::KnownFailure(r) => {
                let _ = writeln!(
                    out,
                    "><skipped message=\"known failure: {}\"/></testcase>",
                    x(r)
                );
            }
            Verdict::UnexpectedPass(r) => {
                let _ = writeln!(
                    out,
                    "><failure message=\"passes but is listed in {KNOWN_FAILURES} ({})\"/></testcase>",
                    x(r)
                );
            }
            Verdict::Failed => {
                let text: String = e
                    .outcome
                    .mismatches
                    .iter()
                    .map(|m| report::describe(m, e.outcome.datums))
                    .collect();
                let _ = writeln!(
                    out,
                    "><failure message=\"mismatch\">{}</failure></testcase>",
                    x(&text)
                );
            }
        }
    }
    for u in &run.unusable {
        let file = u.file.display().to_string();
        let _ = writeln!(
            out,
            "  <testcase classname=\"conformance\" name=\"{}\" file=\"{}\"><error message=\"{}\"/></testcase>",
            x(&file),
            x(&file),
            x(&u.message)
        );
    }
    out.push_str("</testsuite>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_failures_match_exact_names_then_longest_prefix() {
        let k = KnownFailures::parse(
            "blackhole/pack/*: packer not modelled\nblackhole/pack/x-1: special\nblackhole/*: broad\n",
        )
        .unwrap();
        assert_eq!(k.reason("blackhole/pack/x-1"), Some("special"));
        assert_eq!(k.reason("blackhole/pack/y"), Some("packer not modelled"));
        assert_eq!(k.reason("blackhole/unpack/y"), Some("broad"));
        assert_eq!(k.reason("wormhole_b0/pack/y"), None);
    }

    #[test]
    fn known_failures_need_reasons() {
        assert!(KnownFailures::parse("a: ''\n").is_err());
        assert!(KnownFailures::parse("").unwrap().reason("a").is_none());
        assert!(KnownFailures::parse("[1, 2]").is_err());
    }
}
