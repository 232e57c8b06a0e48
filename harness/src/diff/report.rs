//! A campaign's report: agreement per engine, per engine and feature (the
//! job's tags: format pair, Dst mode, ReLU, edge mask, faces, face height,
//! L1 accumulation, unpack target, ...), the refusal reasons with counts,
//! and the differences, each against the catalogue of known ones.

use super::store::{Params, Record};
use super::Class;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// A difference the catalogue explains: job `index` of campaign
/// (`jobs`, `seed`) differs on `engine` (its kind) for `arch`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Known {
    pub engine: String,
    pub arch: String,
    pub jobs: String,
    pub seed: u64,
    pub index: u64,
    /// The catalogue entry that explains it.
    pub entry: String,
}

/// Parse a known-differences list: one difference per line,
/// `ENGINE ARCH JOBS SEED INDEX ENTRY`; `#` starts a comment.
pub fn parse_known(text: &str, file: &str) -> Result<Vec<Known>, String> {
    let mut out = Vec::new();
    for (n, f) in crate::engine::known::fields(text) {
        let bad = |what: &str| format!("{file}:{n}: {what}");
        let [engine, arch, jobs, seed, index, entry] = f[..] else {
            return Err(bad(
                "expected six fields: ENGINE ARCH JOBS SEED INDEX ENTRY",
            ));
        };
        if crate::vector::Arch::from_name(arch).is_none() {
            return Err(bad(&format!(
                "ARCH `{arch}` is not blackhole or wormhole_b0"
            )));
        }
        if super::Jobs::from_name(jobs).is_none() {
            return Err(bad(&format!(
                "JOBS `{jobs}` is not pack, unpack or program"
            )));
        }
        out.push(Known {
            engine: engine.to_string(),
            arch: arch.to_string(),
            jobs: jobs.to_string(),
            seed: seed
                .parse()
                .map_err(|_| bad(&format!("SEED `{seed}` is not a number")))?,
            index: index
                .parse()
                .map_err(|_| bad(&format!("INDEX `{index}` is not a number")))?,
            entry: entry.to_string(),
        });
    }
    Ok(out)
}

/// The engine's kind as a known-differences line names it: `ttsim` for
/// `ttsim:PATH`.
pub fn kind(engine: &str) -> &str {
    engine.split(':').next().unwrap_or(engine)
}

/// The catalogue entry that explains `r`, if any: the one the
/// known-differences list names for the job, or else the entries whose
/// counterfactuals together reproduce the engine's result (`a + b`).
pub fn explained(known: &[Known], params: &Params, r: &Record) -> Option<String> {
    let listed = known.iter().find(|k| {
        k.engine == kind(&r.engine)
            && k.arch == r.arch
            && k.jobs == params.jobs
            && k.seed == params.seed
            && k.index == r.index
    });
    match (listed, &r.explained) {
        (Some(k), _) => Some(k.entry.clone()),
        (None, Some(rules)) if !rules.is_empty() => Some(rules.join(" + ")),
        _ => None,
    }
}

/// Jobs per class, in [`Class::NAMES`] order.
#[derive(Default, Clone)]
pub struct Counts([u64; 6]);

impl Counts {
    pub fn add(&mut self, class: &str) {
        if let Some(i) = Class::NAMES.iter().position(|n| *n == class) {
            self.0[i] += 1;
        }
    }

    /// `agree N, differ N, ...`: every class, for a progress line.
    pub fn summary(&self) -> String {
        Class::NAMES
            .iter()
            .zip(self.0)
            .map(|(n, c)| format!("{n} {c}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub fn get(&self, class: &str) -> u64 {
        Class::NAMES
            .iter()
            .position(|n| *n == class)
            .map_or(0, |i| self.0[i])
    }

    fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Agreement on the jobs that were compared: agree / (agree + differ).
    fn agreement(&self) -> String {
        let (a, d) = (self.get("agree"), self.get("differ"));
        if a + d == 0 {
            "–".into()
        } else {
            format!("{:.2}%", 100.0 * a as f64 / (a + d) as f64)
        }
    }

    /// The table cells: jobs, each class in `Class::NAMES` order (the
    /// tables' column order), agreement.
    fn cells(&self) -> String {
        let mut cells = vec![self.total().to_string()];
        cells.extend(self.0.iter().map(u64::to_string));
        cells.push(self.agreement());
        cells.join(" | ")
    }

    fn to_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        for (i, n) in Class::NAMES.iter().enumerate() {
            m.insert((*n).into(), json!(self.0[i]));
        }
        Value::Object(m)
    }
}

/// A reason with its numbers blanked, so that refusals of one cause group
/// together: ticks, addresses, masks and program positions go; a short
/// decimal after `=` stays, since it names the cause (`reg=22`,
/// `format=11`).
pub fn reason_group(reason: &str) -> String {
    let first = reason.lines().next().unwrap_or("");
    let mut out = String::new();
    let mut rest = first;
    while let Some(c) = rest.chars().next() {
        // A number starts with a digit not inside a word (`TRISC2` stays).
        if c.is_ascii_digit() && !out.ends_with(|p: char| p.is_ascii_alphanumeric() || p == '_') {
            let len = rest
                .find(|d: char| !(d.is_ascii_alphanumeric()))
                .unwrap_or(rest.len());
            let token = &rest[..len];
            if out.ends_with('=') && token.len() <= 2 && token.chars().all(|d| d.is_ascii_digit()) {
                out.push_str(token);
            } else {
                out.push('N');
            }
            rest = &rest[len..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out.chars().take(200).collect()
}

/// The report, as markdown and as JSON; `uncatalogued` lists the
/// differences the catalogue does not explain.
pub struct Report {
    pub markdown: String,
    pub json: Value,
    pub uncatalogued: Vec<Record>,
}

pub fn build(params: &Params, records: &[Record], known: &[Known], command: &str) -> Report {
    let mut per_engine: BTreeMap<(&str, &str), Counts> = BTreeMap::new();
    let mut per_feature: BTreeMap<(&str, &str, &str), Counts> = BTreeMap::new();
    let mut reasons: BTreeMap<(&str, &str, String), (u64, &str)> = BTreeMap::new();
    let mut differences = Vec::new();
    let mut uncatalogued = Vec::new();
    for r in records {
        per_engine
            .entry((&r.engine, &r.arch))
            .or_default()
            .add(&r.class);
        for t in &r.tags {
            per_feature
                .entry((&r.engine, &r.arch, t))
                .or_default()
                .add(&r.class);
        }
        if matches!(r.class.as_str(), "refused" | "unmodelled" | "uncompared") {
            let e = reasons
                .entry((&r.engine, &r.class, reason_group(&r.reason)))
                .or_insert((0, &r.reason));
            e.0 += 1;
        }
        if r.class == "differ" {
            let k = explained(known, params, r);
            if k.is_none() {
                uncatalogued.push(r.clone());
            }
            differences.push((r, k));
        }
    }

    let mut md = String::new();
    md.push_str(&format!(
        "# Differential campaign: {} jobs, seed {}, {} jobs (shard {})\n\n",
        params.jobs, params.seed, params.count, params.shard
    ));
    // A stopped campaign says how far it got.
    let run: std::collections::BTreeSet<u64> = records.iter().map(|r| r.index).collect();
    let planned = super::Shard::parse(&params.shard)
        .map(|sh| (0..params.count).filter(|&i| sh.holds(i)).count())
        .unwrap_or(0);
    if run.len() < planned {
        md.push_str(&format!(
            "**Stopped after {} of the shard's {planned} jobs**; running the command \
             again resumes it.\n\n",
            run.len()
        ));
    }
    md.push_str(&format!("Reproduce:\n\n```sh\n{command}\n```\n\n"));
    md.push_str(
        "Classes: **agree** (everything the job produces was compared and matched), \
         **differ**, **refused** (the engine or the bridge gave no result), **undefined** \
         (the emulator stopped on undefined behaviour: the ISA forbids the job; the engine \
         was not asked), **unmodelled** (the emulator does not model the job), \
         **uncompared** (what was compared matched, but the job's result was not among it). \
         Agreement is agree / (agree + differ).\n\n",
    );
    md.push_str("## Per engine\n\n| engine | arch | jobs | agree | differ | refused | undefined | unmodelled | uncompared | agreement |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for ((engine, arch), c) in &per_engine {
        md.push_str(&format!("| {engine} | {arch} | {} |\n", c.cells()));
    }
    md.push_str("\n## Per engine and feature\n\n| engine | arch | feature | jobs | agree | differ | refused | undefined | unmodelled | uncompared | agreement |\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for ((engine, arch, tag), c) in &per_feature {
        md.push_str(&format!("| {engine} | {arch} | {tag} | {} |\n", c.cells()));
    }
    md.push_str("\n## Reasons a job was not compared\n\n| engine | class | jobs | reason (an example) |\n| --- | --- | ---: | --- |\n");
    let mut reason_list: Vec<_> = reasons.iter().collect();
    reason_list.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
    for ((engine, class, _), (n, example)) in &reason_list {
        md.push_str(&format!(
            "| {engine} | {class} | {n} | {} |\n",
            table_cell(example)
        ));
    }
    md.push_str("\n## Differences\n\n");
    if differences.is_empty() {
        md.push_str("None.\n");
    } else {
        // Catalogued ones a line per entry (the JSON lists each); new ones
        // each on a line of their own.
        let mut by_entry: BTreeMap<(&str, &str, &str), Vec<&Record>> = BTreeMap::new();
        for (r, k) in &differences {
            if let Some(k) = k {
                by_entry
                    .entry((k.as_str(), &r.engine, &r.arch))
                    .or_default()
                    .push(r);
            }
        }
        md.push_str("| catalogue entry | engine | arch | jobs | first job | its shrunk vector |\n| --- | --- | --- | ---: | ---: | --- |\n");
        for ((entry, engine, arch), rs) in &by_entry {
            md.push_str(&format!(
                "| {entry} | {engine} | {arch} | {} | {} | {} |\n",
                rs.len(),
                rs[0].index,
                rs[0].vector.as_deref().unwrap_or("–"),
            ));
        }
        for r in &uncatalogued {
            md.push_str(&format!(
                "| **not catalogued** | {} | {} | 1 | {} | {} |\n",
                r.engine,
                r.arch,
                r.index,
                r.vector.as_deref().unwrap_or("–"),
            ));
            // The whole report is in report.json; a screenful here.
            let text: Vec<&str> = r.reason.lines().take(12).collect();
            md.push_str(&format!("\n```text\n{}\n```\n\n", text.join("\n")));
        }
    }

    let json = json!({
        "campaign": {
            "jobs": params.jobs, "seed": params.seed, "count": params.count,
            "shard": params.shard, "engines": params.engines, "command": command,
            "jobs_run": run.len(), "jobs_planned": planned,
        },
        "per_engine": per_engine.iter().map(|((e, a), c)| json!({
            "engine": e, "arch": a, "counts": c.to_json(), "agreement": c.agreement(),
        })).collect::<Vec<_>>(),
        "per_feature": per_feature.iter().map(|((e, a, t), c)| json!({
            "engine": e, "arch": a, "feature": t, "counts": c.to_json(), "agreement": c.agreement(),
        })).collect::<Vec<_>>(),
        "reasons": reason_list.iter().map(|((e, class, group), (n, example))| json!({
            "engine": e, "class": class, "group": group, "count": n, "example": example,
        })).collect::<Vec<_>>(),
        "differences": differences.iter().map(|(r, k)| json!({
            "engine": r.engine, "arch": r.arch, "index": r.index, "vector": r.vector,
            "catalogue": k, "summary": r.reason,
        })).collect::<Vec<_>>(),
    });
    Report {
        markdown: md,
        json,
        uncatalogued,
    }
}

/// The first line of `text`, safe inside a markdown table cell.
fn table_cell(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut s: String = crate::report::printable(line)
        .replace('|', "\\|")
        .chars()
        .take(160)
        .collect();
    if line.chars().count() > 160 {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        Params {
            jobs: "pack".into(),
            seed: 5,
            count: 3,
            shard: "1/1".into(),
            engines: vec!["ttsim:bh.so".into()],
        }
    }

    fn rec(index: u64, class: &str, reason: &str, tags: &[&str]) -> Record {
        Record {
            explained: None,
            index,
            engine: "ttsim:bh.so".into(),
            arch: "blackhole".into(),
            class: class.into(),
            reason: reason.into(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            vector: None,
        }
    }

    #[test]
    fn counts_agreement_per_feature_and_groups_reasons() {
        let records = [
            rec(0, "agree", "", &["pack", "relu-zero"]),
            rec(1, "differ", "L1 0x40 differs", &["pack", "relu-zero"]),
            rec(2, "refused", "program image: overlaps L1 0x1234", &["pack"]),
            rec(3, "refused", "program image: overlaps L1 0x5678", &["pack"]),
        ];
        let r = build(&params(), &records, &[], "tensix-harness diff ...");
        assert!(
            r.markdown
                .contains("| ttsim:bh.so | blackhole | 4 | 1 | 1 | 2 | 0 | 0 | 0 | 50.00% |"),
            "{}",
            r.markdown
        );
        assert!(r.markdown.contains(
            "| ttsim:bh.so | blackhole | relu-zero | 2 | 1 | 1 | 0 | 0 | 0 | 0 | 50.00% |"
        ));
        assert!(r
            .markdown
            .contains("| ttsim:bh.so | refused | 2 | program image"));
        assert_eq!(r.uncatalogued.len(), 1);
        assert!(r.markdown.contains("**not catalogued**"));
    }

    #[test]
    fn a_stopped_campaign_says_how_far_it_got() {
        let records = [
            rec(0, "agree", "", &["pack"]),
            rec(2, "agree", "", &["pack"]),
        ];
        let r = build(&params(), &records, &[], "cmd");
        assert!(
            r.markdown.contains("Stopped after 2 of the shard's 3 jobs"),
            "{}",
            r.markdown
        );
        assert_eq!(r.json["campaign"]["jobs_run"], 2);
        let all = [
            records[0].clone(),
            rec(1, "agree", "", &[]),
            records[1].clone(),
        ];
        assert!(!build(&params(), &all, &[], "cmd")
            .markdown
            .contains("Stopped"));
    }

    #[test]
    fn a_catalogued_difference_is_not_new() {
        let known = parse_known(
            "# engine arch jobs seed index entry\nttsim blackhole pack 5 1 relu-max  # why\n",
            "k.txt",
        )
        .unwrap();
        let records = [rec(1, "differ", "L1 differs", &["pack"])];
        let r = build(&params(), &records, &known, "cmd");
        assert!(r.uncatalogued.is_empty());
        assert!(r
            .markdown
            .contains("| relu-max | ttsim:bh.so | blackhole | 1 | 1 |"));
        // The same index of another seed is another job.
        let mut other = params();
        other.seed = 6;
        assert_eq!(build(&other, &records, &known, "cmd").uncatalogued.len(), 1);
    }

    #[test]
    fn a_difference_its_counterfactuals_reproduce_is_catalogued() {
        let mut both = rec(1, "differ", "L1 differs", &["pack"]);
        both.explained = Some(vec!["no-relu".into(), "no-acc".into()]);
        let mut none = rec(2, "differ", "L1 differs", &["pack"]);
        none.explained = Some(vec![]);
        let untried = rec(3, "differ", "L1 differs", &["pack"]);
        let r = build(&params(), &[both, none, untried], &[], "cmd");
        let new: Vec<u64> = r.uncatalogued.iter().map(|r| r.index).collect();
        assert_eq!(new, [2, 3]);
        assert!(r
            .markdown
            .contains("| no-relu + no-acc | ttsim:bh.so | blackhole | 1 | 1 |"));
        assert_eq!(r.json["differences"][0]["catalogue"], "no-relu + no-acc");
    }

    #[test]
    fn a_bad_known_line_names_its_line() {
        let e = parse_known("\n\nttsim blackhole pack five 1 x\n", "k.txt").unwrap_err();
        assert!(e.starts_with("k.txt:3:") && e.contains("SEED"), "{e}");
        let e = parse_known("ttsim mars pack 1 1 x\n", "k.txt").unwrap_err();
        assert!(e.contains("ARCH"), "{e}");
        assert!(parse_known("ttsim blackhole pack 1\n", "k.txt").is_err());
    }

    #[test]
    fn reasons_group_without_their_numbers() {
        assert_eq!(
            reason_group("[195] edge_mask=0x6567 at 0x1a0, thread 2 entry 1"),
            reason_group("[46] edge_mask=0x8000 at 0x2b0, thread 0 entry 12")
        );
        assert_ne!(
            reason_group("[195] tensix_cfg_wr32: reg=22"),
            reason_group("[195] tensix_cfg_wr32: reg=27")
        );
        assert_ne!(reason_group("srca setup"), reason_group("empty mask"));
        assert_eq!(reason_group("TRISC2 fmt=0x1a reg=7"), "TRISC2 fmt=N reg=7");
    }
}
