//! Differential campaigns: generated jobs run on the emulator and on other
//! engines (ttsim, Wolfpine, a card), each job classed per engine, and every
//! difference shrunk, with the engine as the oracle, to a vector that
//! records what the engine did.
//!
//! A job is drawn from the same generators the fuzz targets use: the
//! tt-llk-shaped tile jobs for `pack` and `unpack`, and the wilder programs
//! around PACR and UNPACR for `program`. Job `i` of seed `S` is the same job
//! on every machine and in every shard, so a campaign splits by index
//! ([`Shard`]) and resumes by index ([`store`]).

pub mod report;
pub mod store;

use crate::engine::{self, Engine, Verdict};
use crate::generators::program::{PackProgram, ProgramCase, UnpackProgram};
use crate::generators::tile::{pack_tags, PackTileCase, UnpackTileCase};
use crate::generators::{from_seed, seeded_bytes};
use crate::repro::{pack_candidates, program_candidates, unpack_candidates};
use crate::run::{self, Workbench};
use crate::vector::{Arch, Dst, DstFormat, DstRow, ExpectedFault, FaultKind, SrcRow, Vector};
use std::fmt;
use tensix_emu::state::dst::{adj16, DstView, ROWS};
use tensix_emu::state::src::ROWS as SRC_ROWS;
use tensix_emu::state::SrcReg;
use tensix_emu::Machine;

/// Which generator a campaign draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Jobs {
    Pack,
    Unpack,
    Program,
}

impl Jobs {
    pub fn name(self) -> &'static str {
        match self {
            Jobs::Pack => "pack",
            Jobs::Unpack => "unpack",
            Jobs::Program => "program",
        }
    }

    pub fn from_name(name: &str) -> Option<Jobs> {
        [Jobs::Pack, Jobs::Unpack, Jobs::Program]
            .into_iter()
            .find(|j| j.name() == name)
    }
}

/// `K/N`: this machine runs the jobs whose index is `K - 1` modulo `N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub k: u64,
    pub n: u64,
}

impl Shard {
    pub const WHOLE: Shard = Shard { k: 1, n: 1 };

    pub fn parse(text: &str) -> Result<Shard, String> {
        let (k, n) = text
            .split_once('/')
            .ok_or_else(|| format!("--shard {text}: write it K/N, e.g. 2/8"))?;
        let (k, n) = (k.trim().parse::<u64>(), n.trim().parse::<u64>());
        match (k, n) {
            (Ok(k), Ok(n)) if n >= 1 && (1..=n).contains(&k) => Ok(Shard { k, n }),
            _ => Err(format!(
                "--shard {text}: K and N are numbers with 1 <= K <= N"
            )),
        }
    }

    pub fn holds(self, index: u64) -> bool {
        index % self.n == self.k - 1
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// Generator bytes per job: more than any job draws.
const CASE_BYTES: usize = 4096;

/// Draws per index before giving up on finding a job for the engines'
/// architectures (one in three tile jobs is for Wormhole B0; 64 misses in a
/// row would take a generator that never draws the architecture).
const ARCH_DRAWS: u64 = 64;

/// One generated job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Case {
    Pack(PackTileCase),
    Unpack(UnpackTileCase),
    Program(ProgramCase),
}

impl Case {
    /// Job `index` of campaign `seed`, for one of `archs`; `None` when 64
    /// draws found none.
    pub fn draw(jobs: Jobs, seed: u64, index: u64, archs: &[Arch]) -> Option<Case> {
        (0..ARCH_DRAWS).find_map(|attempt| {
            let s = job_seed(seed, index, attempt);
            let case = match jobs {
                Jobs::Pack => Case::Pack(from_seed(s, CASE_BYTES)),
                Jobs::Unpack => Case::Unpack(from_seed(s, CASE_BYTES)),
                // Even seeds around PACR, odd ones around UNPACR.
                Jobs::Program if s & 1 == 0 => {
                    Case::Program(from_seed::<PackProgram>(s, CASE_BYTES).0)
                }
                Jobs::Program => Case::Program(from_seed::<UnpackProgram>(s, CASE_BYTES).0),
            };
            archs.contains(&case.arch()).then_some(case)
        })
    }

    pub fn arch(&self) -> Arch {
        match self {
            Case::Pack(c) => c.job.arch,
            Case::Unpack(c) => c.job.arch,
            Case::Program(c) => c.arch,
        }
    }

    /// The job as a vector (no `expect`). An unpack job's SrcA/SrcB
    /// contents before the run are left out: no engine's program image can
    /// load them, and no engine reads them back to compare.
    pub fn vector(&self, name: &str) -> Vector {
        match self {
            Case::Pack(c) => c.vector(name),
            Case::Unpack(c) => {
                let mut v = c.vector(name);
                v.setup.srca.clear();
                v.setup.srcb.clear();
                v
            }
            Case::Program(c) => {
                let mut v = c.vector(name);
                v.tags
                    .push(if c.pack_job.is_some() || c.unpack_job.is_some() {
                        "llk-shaped".into()
                    } else {
                        "free-form".into()
                    });
                if let Some(job) = &c.pack_job {
                    v.tags.extend(pack_tags(job).into_iter().skip(1));
                }
                if c.mop.is_some() {
                    v.tags.push("mop".into());
                }
                v.tags.sort();
                v.tags.dedup();
                v
            }
        }
    }

    /// Simpler jobs, most aggressive first (the `repro` shrinker's steps).
    pub fn candidates(&self) -> Vec<Case> {
        match self {
            Case::Pack(c) => pack_candidates(c).into_iter().map(Case::Pack).collect(),
            Case::Unpack(c) => unpack_candidates(c).into_iter().map(Case::Unpack).collect(),
            Case::Program(c) => program_candidates(c)
                .into_iter()
                .map(Case::Program)
                .collect(),
        }
    }
}

/// The generator seed of draw `attempt` of job `index` (SplitMix64 of the
/// three, so neighbouring indices draw unrelated jobs).
pub fn job_seed(seed: u64, index: u64, attempt: u64) -> u64 {
    let bytes = seeded_bytes(
        seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ attempt.rotate_left(40),
        8,
    );
    u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]))
}

/// What one engine made of one job, next to the emulator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Class {
    /// Everything the job produces was compared and matched.
    Agree,
    /// The engine did something else; the text says what.
    Differ(String),
    /// The engine, or the bridge to it, gave no result.
    Refused(String),
    /// The emulator stopped with undefined behaviour: the ISA forbids the
    /// job, so any outcome is legal and the engine was not asked.
    Undefined(String),
    /// The emulator does not model the job (`Unimplemented`,
    /// `Unsupported`, its step budget): there is nothing to hold the engine
    /// to.
    Unmodelled(String),
    /// What was compared matched, but the job's result was not among it
    /// (an unpack's registers, which no engine reads back yet).
    Uncompared(String),
}

impl Class {
    pub const NAMES: [&'static str; 6] = [
        "agree",
        "differ",
        "refused",
        "undefined",
        "unmodelled",
        "uncompared",
    ];

    pub fn name(&self) -> &'static str {
        match self {
            Class::Agree => "agree",
            Class::Differ(_) => "differ",
            Class::Refused(_) => "refused",
            Class::Undefined(_) => "undefined",
            Class::Unmodelled(_) => "unmodelled",
            Class::Uncompared(_) => "uncompared",
        }
    }

    pub fn reason(&self) -> &str {
        match self {
            Class::Agree => "",
            Class::Differ(r)
            | Class::Refused(r)
            | Class::Undefined(r)
            | Class::Unmodelled(r)
            | Class::Uncompared(r) => r,
        }
    }
}

/// The emulator's run of a job.
pub enum EmulatorRun {
    /// `v` with `expect` holding the emulator's result: the L1 bytes and
    /// `Dst`, `SrcA` and `SrcB` rows it changed, or the fault it stopped
    /// with.
    Expected(Box<Vector>),
    /// Nothing an engine can be compared with.
    Final(Class),
}

/// The `Dst16b` rows whose storage (bits or valid flag) differs between
/// `before` and `after`, raw, as `after`'s addressing names them.
fn changed_dst(before: &Machine, after: &Machine) -> Option<Dst> {
    let a = after.dst_addressing();
    let rows: Vec<DstRow> = (0..ROWS as u32)
        .filter(|&r| {
            let s = adj16(after.arch(), a, r);
            before.dst.row(s) != after.dst.row(s) || before.dst.is_valid(s) != after.dst.is_valid(s)
        })
        .map(|r| DstRow {
            row: r as u16,
            cells: after.read_dst_row(DstView::Raw16, r),
        })
        .collect();
    (!rows.is_empty()).then_some(Dst {
        format: DstFormat::Raw16,
        rows,
    })
}

/// Run `v` on the emulator and state its result as the vector's `expect`.
/// `bench` lends the machines.
pub fn emulator_run(bench: &mut Workbench, v: &Vector) -> EmulatorRun {
    let before = match bench.prepare(v) {
        Ok(m) => m,
        Err(e) => return EmulatorRun::Final(Class::Unmodelled(format!("emulator setup: {e}"))),
    };
    let (m, fault) = bench.execute(v, &before);
    let changed = run::changed_between(&before.l1, &m.l1);
    let dst = changed_dst(&before, &m);
    let srca = changed_src(&before.srca, &m.srca);
    let srcb = changed_src(&before.srcb, &m.srcb);
    bench.give_back(before);
    bench.give_back(m);
    let mut expected = v.clone();
    match fault {
        Some(f) if f.kind == FaultKind::UndefinedBehavior => {
            return EmulatorRun::Final(Class::Undefined(f.to_string()))
        }
        Some(f)
            if matches!(
                f.kind,
                FaultKind::Unimplemented | FaultKind::Unsupported | FaultKind::ResourceLimit
            ) =>
        {
            return EmulatorRun::Final(Class::Unmodelled(f.to_string()))
        }
        Some(f) => expected.expect.fault = Some(ExpectedFault { kind: f.kind }),
        None => {
            expected.expect.l1 = Some(changed);
            expected.expect.dst = dst;
            expected.expect.srca = srca;
            expected.expect.srcb = srcb;
        }
    }
    EmulatorRun::Expected(Box::new(expected))
}

/// The rows of a `Src` register whose cells differ between `before` and
/// `after`, by bank and row.
fn changed_src(before: &SrcReg, after: &SrcReg) -> Option<Vec<SrcRow>> {
    let rows: Vec<SrcRow> = (0..2)
        .flat_map(|bank| (0..SRC_ROWS).map(move |row| (bank, row)))
        .filter(|&(bank, row)| before.banks[bank].rows()[row] != after.banks[bank].rows()[row])
        .map(|(bank, row)| SrcRow {
            bank: bank as u8,
            row: row as u8,
            cells: after.banks[bank].rows()[row],
        })
        .collect();
    (!rows.is_empty()).then_some(rows)
}

/// What an engine was asked and what it showed: the job with the
/// emulator's result as `expect` (which names the `Dst` rows to read
/// back), and the engine's verdict on it.
pub struct Asked {
    pub expected: Box<Vector>,
    pub verdict: Verdict,
}

impl Asked {
    /// The engine's result as a vector named `name`, recording every part
    /// the emulator's result covers that the engine observed.
    pub fn recorded(
        &self,
        name: &str,
        engine: &crate::engine::EngineInfo,
        date: &str,
    ) -> Result<Vector, String> {
        let mut v = (*self.expected).clone();
        v.name = name.to_string();
        crate::engine::record::recorded(&v, engine, &self.verdict, date)
    }
}

/// Run `v` on `engine` and class the engine's verdict against the
/// emulator's. What the engine was asked comes back too (`None` when it was
/// not asked), for recording a difference.
pub fn classify(
    bench: &mut Workbench,
    v: &Vector,
    engine: &mut dyn Engine,
) -> (Class, Option<Asked>) {
    let expected = match emulator_run(bench, v) {
        EmulatorRun::Final(c) => return (c, None),
        EmulatorRun::Expected(vector) => vector,
    };
    let verdict = engine.run(&expected);
    let cmp = engine::compare(&expected, &verdict);
    let class = match &verdict {
        Verdict::Refused(m) => Class::Refused(m.clone()),
        Verdict::TimedOut(m) if !cmp.compared => Class::Refused(format!("timed out: {m}")),
        _ if !cmp.mismatches.is_empty() => Class::Differ(
            cmp.mismatches
                .iter()
                .map(|m| crate::report::describe(m, crate::report::Datums::Bytes))
                .collect::<Vec<_>>()
                .join(""),
        ),
        _ if !cmp.compared => Class::Uncompared(cmp.not_compared.join("; ")),
        _ if !cmp.result_gaps.is_empty() => Class::Uncompared(cmp.result_gaps.join("; ")),
        _ => Class::Agree,
    };
    (class, Some(Asked { expected, verdict }))
}

/// Shrink `case` while it still differs on `engine`, spending at most
/// `budget` engine runs. Returns the smallest job found, its class and
/// what the engine was asked and showed on it.
pub fn shrink(
    bench: &mut Workbench,
    case: Case,
    class: Class,
    asked: Asked,
    engine: &mut dyn Engine,
    budget: usize,
) -> (Case, Class, Asked) {
    let mut best = (case, class, asked);
    let mut runs = 0;
    'outer: loop {
        for c in best.0.candidates() {
            if runs >= budget {
                break 'outer;
            }
            runs += 1;
            let v = c.vector("shrinking");
            if let (cl @ Class::Differ(_), Some(asked)) = classify(bench, &v, engine) {
                best = (c, cl, asked);
                continue 'outer;
            }
        }
        break;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineInfo;

    #[test]
    fn shards_split_the_indices_between_them() {
        let shards: Vec<Shard> = (1..=3).map(|k| Shard { k, n: 3 }).collect();
        for i in 0..30 {
            assert_eq!(shards.iter().filter(|s| s.holds(i)).count(), 1, "index {i}");
        }
        assert!(Shard::WHOLE.holds(17));
        assert_eq!(Shard::parse("2/8"), Ok(Shard { k: 2, n: 8 }));
        for bad in ["0/4", "5/4", "1/0", "x/2", "3"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_same_index_draws_the_same_job_and_neighbours_differ() {
        let archs = [Arch::Blackhole, Arch::WormholeB0];
        for jobs in [Jobs::Pack, Jobs::Unpack, Jobs::Program] {
            let a = Case::draw(jobs, 7, 3, &archs);
            assert_eq!(a, Case::draw(jobs, 7, 3, &archs));
            assert_ne!(a, Case::draw(jobs, 7, 4, &archs));
            assert_ne!(a, Case::draw(jobs, 8, 3, &archs));
        }
    }

    #[test]
    fn draws_keep_to_the_engines_architecture() {
        for i in 0..40 {
            let c = Case::draw(Jobs::Pack, 1, i, &[Arch::WormholeB0]).expect("a job");
            assert_eq!(c.arch(), Arch::WormholeB0);
        }
    }

    /// An engine that does what the emulator does, or refuses; `flip`
    /// changes one L1 byte of what it shows, `flip_dst` one bit of every
    /// `Dst` row, `flip_src` one bit of every `Src` row; `no_src` shows no
    /// `Src` at all.
    #[derive(Default)]
    struct Fake {
        flip: Option<u32>,
        flip_dst: bool,
        flip_src: bool,
        no_src: bool,
        refuse: bool,
    }

    impl Engine for Fake {
        fn info(&self) -> EngineInfo {
            EngineInfo {
                kind: "ttsim".into(),
                detail: "fake".into(),
            }
        }

        fn run(&mut self, v: &Vector) -> Verdict {
            if self.refuse {
                return Verdict::Refused("no".into());
            }
            let Verdict::Observed(mut o) = crate::engine::Emulator.run(v) else {
                return Verdict::Refused("the emulator gave no observation".into());
            };
            if let Some(a) = self.flip {
                o.l1[a as usize] ^= 0x40;
            }
            if let (true, Ok(d)) = (self.flip_dst, &mut o.dst) {
                (0..ROWS).for_each(|r| d.bits.row_mut(r)[3] ^= 0x10);
            }
            if let (true, Ok(s)) = (self.flip_src, &mut o.src) {
                for b in &mut s.banks {
                    b.words.iter_mut().for_each(|r| r[5] ^= 1 << 20);
                }
            }
            if self.no_src {
                o.src = Err("shown no Src".into());
            }
            Verdict::Observed(o)
        }
    }

    /// The `Dst` rows the emulator's run of `v` changed.
    fn expected_dst(v: &Vector) -> Dst {
        match emulator_run(&mut Workbench::new(), v) {
            EmulatorRun::Expected(vector) => vector.expect.dst.expect("Dst rows"),
            EmulatorRun::Final(c) => panic!("the emulator did not finish: {c:?}"),
        }
    }

    fn first(jobs: Jobs, want: &str, engine: &mut dyn Engine) -> (Case, Class) {
        for i in 0..200 {
            let c = Case::draw(jobs, 11, i, &[Arch::Blackhole]).expect("a job");
            let (class, _) = classify(&mut Workbench::new(), &c.vector("t"), engine);
            if class.name() == want {
                return (c, class);
            }
        }
        panic!("no {want} job in 200");
    }

    #[test]
    fn an_engine_that_does_what_the_emulator_does_agrees_on_packs() {
        let mut same = Fake::default();
        first(Jobs::Pack, "agree", &mut same);
    }

    #[test]
    fn an_unpack_is_compared_by_the_dst_or_src_rows_it_writes() {
        let mut same = Fake::default();
        let (mut to_src, mut to_dst) = (0, 0);
        for i in 0..80 {
            let c = Case::draw(Jobs::Unpack, 3, i, &[Arch::Blackhole]).expect("a job");
            let Case::Unpack(u) = &c else {
                unreachable!("an unpack draw is an unpack")
            };
            let v = c.vector("t");
            let (class, _) = classify(&mut Workbench::new(), &v, &mut same);
            let (flipped, asked) = classify(
                &mut Workbench::new(),
                &v,
                &mut Fake {
                    flip_dst: true,
                    ..Fake::default()
                },
            );
            if u.job.target == crate::golden::UnpackTarget::Dst {
                // Only jobs the emulator completes are compared at all.
                if class == Class::Agree {
                    to_dst += 1;
                    assert_eq!(flipped.name(), "differ", "job {i}");
                    assert!(flipped.reason().contains("dst row"), "{}", flipped.reason());
                    // The recorded difference holds the rows the engine showed.
                    let rec = asked
                        .expect("asked")
                        .recorded("r", &Fake::default().info(), "d")
                        .expect("recorded");
                    let dst = rec.expect.dst.expect("the Dst rows are recorded");
                    let want = expected_dst(&v);
                    assert_eq!(dst.rows.len(), want.rows.len(), "job {i}");
                    for (seen, was) in dst.rows.iter().zip(&want.rows) {
                        assert_eq!(seen.row, was.row);
                        assert_eq!(
                            seen.cells[3],
                            was.cells[3] ^ 0x10,
                            "job {i} row {}",
                            seen.row
                        );
                        assert_eq!(seen.cells[4], was.cells[4], "job {i} row {}", seen.row);
                    }
                }
            } else if class == Class::Agree {
                to_src += 1;
                let flip = |e: &mut Fake| classify(&mut Workbench::new(), &v, e).0;
                let flipped = flip(&mut Fake {
                    flip_src: true,
                    ..Fake::default()
                });
                assert_eq!(flipped.name(), "differ", "job {i}");
                assert!(flipped.reason().contains("src"), "{}", flipped.reason());
                // A Src not shown is never agreement.
                let unseen = flip(&mut Fake {
                    no_src: true,
                    ..Fake::default()
                });
                assert_eq!(unseen.name(), "uncompared", "job {i}");
                assert!(
                    unseen.reason().contains("shown no Src"),
                    "{}",
                    unseen.reason()
                );
            }
        }
        assert!(to_src > 0 && to_dst > 0, "{to_src} to Src, {to_dst} to Dst");
    }

    #[test]
    fn a_changed_byte_is_a_difference_and_a_refusal_is_never_agreement() {
        let (case, _) = first(Jobs::Pack, "agree", &mut Fake::default());
        let v = case.vector("t");
        let Some(Class::Differ(text)) = Some(
            classify(
                &mut Workbench::new(),
                &v,
                &mut Fake {
                    flip: Some(0x30),
                    ..Fake::default()
                },
            )
            .0,
        ) else {
            panic!("a flipped byte was not a difference");
        };
        assert!(text.contains("0x30") || text.contains("48"), "{text}");
        let (class, _) = classify(
            &mut Workbench::new(),
            &v,
            &mut Fake {
                refuse: true,
                ..Fake::default()
            },
        );
        assert_eq!(class, Class::Refused("no".into()));
    }

    #[test]
    fn shrinking_keeps_the_difference_and_makes_the_job_smaller() {
        let mut same = Fake::default();
        let (case, _) = first(Jobs::Pack, "agree", &mut same);
        // A byte every candidate still writes differently: address 0 lies
        // below every generated tile, so the fake engine's flip there is a
        // difference whatever the job.
        let mut flipping = Fake {
            flip: Some(0),
            ..Fake::default()
        };
        let v = case.vector("t");
        let (class, asked) = classify(&mut Workbench::new(), &v, &mut flipping);
        let asked = asked.expect("asked");
        assert_eq!(class.name(), "differ");
        let (small, class, _) = shrink(
            &mut Workbench::new(),
            case.clone(),
            class,
            asked,
            &mut flipping,
            400,
        );
        assert_eq!(class.name(), "differ");
        let Case::Pack(small) = small else {
            panic!("a pack job shrank into another kind")
        };
        assert_eq!(small.job.faces, 1);
        assert_eq!(small.job.face_rows, 1);
    }
}
