//! A campaign's directory: what it is (`campaign.json`), what it has done
//! so far (`results.jsonl`, one line per job and engine, appended as each
//! finishes), the shrunk differences (`differences/`), and the reports.
//!
//! A campaign stopped part-way (Ctrl-C, a lost machine) resumes where it
//! stopped when run again with the same parameters: a line cut short by the
//! stop is dropped and its job runs again. A directory holding anything
//! else is never written into without `--force`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What makes two runs the same campaign.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params {
    pub jobs: String,
    pub seed: u64,
    pub count: u64,
    pub shard: String,
    /// The engines as the command line names them.
    pub engines: Vec<String>,
}

/// `campaign.json`: the parameters under a schema name.
#[derive(Serialize, Deserialize)]
struct CampaignFile {
    schema: String,
    #[serde(flatten)]
    params: Params,
}

const SCHEMA: &str = "tensix-diff/1";

/// One job's class on one engine, as `results.jsonl` holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub index: u64,
    pub engine: String,
    pub arch: String,
    pub class: String,
    pub reason: String,
    pub tags: Vec<String>,
    /// The shrunk vector of a difference, relative to the directory.
    pub vector: Option<String>,
    /// For a difference: the catalogue entries whose counterfactuals,
    /// together, make the emulator do what the engine did on the job as
    /// drawn (`engine::deviation`); empty when none do, absent when not
    /// tried (records written before the engine had any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explained: Option<Vec<String>>,
}

/// An open campaign directory.
pub struct Store {
    pub dir: PathBuf,
    /// Every record so far, this run's and earlier runs'.
    pub records: Vec<Record>,
    done: BTreeSet<(u64, String)>,
    out: File,
    params: Params,
}

const PARAMS: &str = "campaign.json";
const RESULTS: &str = "results.jsonl";

impl Store {
    /// Open `dir` for the campaign `params`: create it, resume it, or (with
    /// `force`) start it over. Refuses a directory that holds another
    /// campaign or files of its own.
    pub fn open(dir: &Path, params: &Params, force: bool) -> Result<Store, String> {
        let params_path = dir.join(PARAMS);
        let results_path = dir.join(RESULTS);
        if dir.exists() && !dir.is_dir() {
            return Err(format!("{} exists and is not a directory", dir.display()));
        }
        let earlier = match std::fs::read_to_string(&params_path) {
            Ok(text) => Some(campaign_params(&text, &params_path)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(format!("{}: {e}", params_path.display())),
        };
        let resume = match earlier {
            Some(p) if p == *params => !force,
            Some(p) if !force => {
                return Err(format!(
                    "{} holds another campaign ({} jobs, seed {}, count {}, shard {}, engines {}); \
                     choose another directory or pass --force to start over",
                    dir.display(),
                    p.jobs,
                    p.seed,
                    p.count,
                    p.shard,
                    p.engines.join(", ")
                ))
            }
            Some(_) => false,
            None => {
                let foreign = std::fs::read_dir(dir)
                    .map(|mut d| d.next().is_some())
                    .unwrap_or(false);
                if foreign && !force {
                    return Err(format!(
                        "{} is not empty and holds no campaign; choose another directory or pass --force",
                        dir.display()
                    ));
                }
                false
            }
        };
        std::fs::create_dir_all(dir.join("differences"))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        let records = if resume {
            read_records(&std::fs::read_to_string(&results_path).unwrap_or_default())
        } else {
            Vec::new()
        };
        let file = CampaignFile {
            schema: SCHEMA.into(),
            params: params.clone(),
        };
        let text = serde_json::to_string_pretty(&file)
            .map_err(|e| format!("{}: {e}", params_path.display()))?;
        crate::output::write_new(&params_path, text + "\n", true)?;
        // Rewritten whole, so that a cut line does not glue itself to the
        // next record.
        let mut body = String::new();
        for r in &records {
            body.push_str(&json_line(r)?);
            body.push('\n');
        }
        crate::output::write_new(&results_path, body, true)?;
        let out = OpenOptions::new()
            .append(true)
            .open(&results_path)
            .map_err(|e| format!("{}: {e}", results_path.display()))?;
        let done = records
            .iter()
            .map(|r| (r.index, r.engine.clone()))
            .collect();
        Ok(Store {
            dir: dir.to_path_buf(),
            records,
            done,
            out,
            params: params.clone(),
        })
    }

    /// Take in the results of the same campaign run elsewhere (another
    /// shard, another machine) from `other`: every job result not here yet,
    /// with its difference vector. Returns how many were new.
    pub fn absorb(&mut self, other: &Path) -> Result<usize, String> {
        let params_path = other.join(PARAMS);
        let text = std::fs::read_to_string(&params_path)
            .map_err(|e| format!("{}: {e}", params_path.display()))?;
        let theirs = campaign_params(&text, &params_path)?;
        let mine = &self.params;
        if (&theirs.jobs, theirs.seed, theirs.count, &theirs.engines)
            != (&mine.jobs, mine.seed, mine.count, &mine.engines)
        {
            return Err(format!(
                "{} holds another campaign ({} jobs, seed {}, count {}, engines {})",
                other.display(),
                theirs.jobs,
                theirs.seed,
                theirs.count,
                theirs.engines.join(", ")
            ));
        }
        let results = other.join(RESULTS);
        let text =
            std::fs::read_to_string(&results).map_err(|e| format!("{}: {e}", results.display()))?;
        let mut added = 0;
        for r in read_records(&text) {
            if self.done(r.index, &r.engine) {
                continue;
            }
            if let Some(file) = &r.vector {
                // The name is the campaign's own (`differences/...yaml`); one
                // that would leave the directory is not followed.
                let rel = Path::new(file);
                if rel.components().count() != 2 || !file.starts_with("differences/") {
                    return Err(format!(
                        "{}: job {}: vector `{file}`",
                        results.display(),
                        r.index
                    ));
                }
                let body = std::fs::read(other.join(rel))
                    .map_err(|e| format!("{}: {e}", other.join(rel).display()))?;
                std::fs::write(self.dir.join(rel), body)
                    .map_err(|e| format!("{}: {e}", self.dir.join(rel).display()))?;
            }
            self.add(r)?;
            added += 1;
        }
        Ok(added)
    }

    /// Whether job `index` already has a result on `engine`.
    pub fn done(&self, index: u64, engine: &str) -> bool {
        self.done.contains(&(index, engine.to_string()))
    }

    /// Append a record (flushed, so a stop loses at most the job running).
    pub fn add(&mut self, r: Record) -> Result<(), String> {
        writeln!(self.out, "{}", json_line(&r)?)
            .and_then(|_| self.out.flush())
            .map_err(|e| format!("{}: {e}", self.dir.join(RESULTS).display()))?;
        self.done.insert((r.index, r.engine.clone()));
        self.records.push(r);
        Ok(())
    }
}

/// The parameters a `campaign.json` (read from `path`) holds.
fn campaign_params(text: &str, path: &Path) -> Result<Params, String> {
    serde_json::from_str::<CampaignFile>(text)
        .ok()
        .filter(|f| f.schema == SCHEMA)
        .map(|f| f.params)
        .ok_or_else(|| format!("{}: not a campaign description", path.display()))
}

/// The records of a `results.jsonl`. A line cut short by an interrupted
/// run is dropped: its job runs again.
fn read_records(text: &str) -> Vec<Record> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Record>(l).ok())
        .collect()
}

/// `value` as one line of JSON.
fn json_line(value: &impl Serialize) -> Result<String, String> {
    serde_json::to_string(value).map_err(|e| format!("a campaign record: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(seed: u64) -> Params {
        Params {
            jobs: "pack".into(),
            seed,
            count: 10,
            shard: "1/1".into(),
            engines: vec!["ttsim:x".into()],
        }
    }

    fn record(index: u64) -> Record {
        Record {
            explained: None,
            index,
            engine: "ttsim:x".into(),
            arch: "blackhole".into(),
            class: "agree".into(),
            reason: String::new(),
            tags: vec!["pack".into()],
            vector: None,
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("tensix-diff-store-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_campaign_resumes_and_drops_a_cut_line() {
        let d = scratch("resume");
        let mut s = Store::open(&d, &params(1), false).unwrap();
        s.add(record(0)).unwrap();
        s.add(record(1)).unwrap();
        drop(s);
        // An interrupted write: half a line at the end.
        let mut f = OpenOptions::new()
            .append(true)
            .open(d.join(RESULTS))
            .unwrap();
        write!(f, "{{\"index\": 2, \"eng").unwrap();
        drop(f);
        let mut s = Store::open(&d, &params(1), false).unwrap();
        assert!(s.done(0, "ttsim:x") && s.done(1, "ttsim:x"));
        assert!(!s.done(2, "ttsim:x"));
        s.add(record(2)).unwrap();
        drop(s);
        let s = Store::open(&d, &params(1), false).unwrap();
        assert_eq!(s.records, vec![record(0), record(1), record(2)]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn another_campaign_or_a_foreign_directory_needs_force() {
        let d = scratch("force");
        let mut s = Store::open(&d, &params(1), false).unwrap();
        s.add(record(0)).unwrap();
        drop(s);
        let e = Store::open(&d, &params(2), false).err().expect("refused");
        assert!(
            e.contains("another campaign") && e.contains("--force"),
            "{e}"
        );
        let s = Store::open(&d, &params(2), true).unwrap();
        assert!(s.records.is_empty(), "--force starts over");
        drop(s);
        let f = scratch("foreign");
        std::fs::create_dir_all(&f).unwrap();
        std::fs::write(f.join("mine.txt"), "a user's file").unwrap();
        let e = Store::open(&f, &params(1), false).err().expect("refused");
        assert!(e.contains("not empty"), "{e}");
        assert_eq!(
            std::fs::read_to_string(f.join("mine.txt")).unwrap(),
            "a user's file"
        );
        let _ = std::fs::remove_dir_all(&d);
        let _ = std::fs::remove_dir_all(&f);
    }

    #[test]
    fn shards_merge_with_their_difference_vectors() {
        let shard = |k: u64| Params {
            shard: format!("{k}/2"),
            ..params(1)
        };
        let (a, b, whole) = (scratch("shard-a"), scratch("shard-b"), scratch("whole"));
        let mut s = Store::open(&a, &shard(1), false).unwrap();
        s.add(record(0)).unwrap();
        drop(s);
        let mut s = Store::open(&b, &shard(2), false).unwrap();
        let mut differ = record(1);
        differ.class = "differ".into();
        differ.vector = Some("differences/one.yaml".into());
        std::fs::write(b.join("differences/one.yaml"), "the engine's bytes").unwrap();
        s.add(differ.clone()).unwrap();
        drop(s);

        let mut m = Store::open(&whole, &params(1), false).unwrap();
        assert_eq!(m.absorb(&a), Ok(1));
        assert_eq!(m.absorb(&b), Ok(1));
        assert_eq!(m.absorb(&b), Ok(0), "a job is taken once");
        assert_eq!(m.records, vec![record(0), differ]);
        assert_eq!(
            std::fs::read_to_string(whole.join("differences/one.yaml")).unwrap(),
            "the engine's bytes"
        );
        drop(m);
        let other = scratch("other-seed");
        drop(Store::open(&other, &params(2), false).unwrap());
        let mut m = Store::open(&whole, &params(1), false).unwrap();
        let e = m.absorb(&other).unwrap_err();
        assert!(e.contains("another campaign"), "{e}");
        for d in [a, b, whole, other] {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}
