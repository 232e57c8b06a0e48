//! `tensix-harness`: the conformance gate and tools around the emulator.

use clap::{Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tensix_harness::gate::{self, KnownFailures};
use tensix_harness::output;
use tensix_harness::report::printable;

#[derive(Parser)]
#[command(
    version,
    about = "Conformance vectors and tools for the Tensix pack/unpack emulator"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum ArchArg {
    Blackhole,
    /// Also accepted as `wormhole_b0`, the spelling vectors use.
    #[value(alias = "wormhole_b0")]
    WormholeB0,
}

#[derive(clap::Args)]
struct RunArgs {
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Only vectors whose path contains this text.
    #[arg(long)]
    filter: Option<String>,
    /// Vectors run in parallel (default: all cores).
    #[arg(long)]
    jobs: Option<usize>,
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Also write a JUnit XML report here.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// The known-failures list (default: known-failures.yaml in the first
    /// directory given).
    #[arg(long)]
    known_failures: Option<PathBuf>,
    /// Overwrite an existing file given to --junit.
    #[arg(long)]
    force: bool,
    /// Run on another engine instead of the emulator: ttsim:PATH (a
    /// libttsim.so), wolfpine[:DIR] or device[:INDEX], through tt-umd
    /// (tools/setup-engines.sh installs the Python side).
    #[arg(long)]
    engine: Option<String>,
    /// Seconds one vector may run on the engine.
    #[arg(long, default_value_t = 30)]
    timeout: u64,
    /// With --engine: vectors known to differ on engines, a line each
    /// (`ENGINE VECTOR CATALOGUE-ENTRY`, as in
    /// conformance-vectors/engines/known-vector-differences.txt). A listed
    /// vector that differs does not break the engine gate; one that agrees
    /// does, until it is taken off the list.
    #[arg(long, requires = "engine")]
    known_differences: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum NewKind {
    Pack,
    Unpack,
}

#[derive(Clone, Copy, ValueEnum)]
enum UnpackTo {
    Srca,
    Srcb,
    Dst,
}

#[derive(clap::Args)]
struct NewArgs {
    kind: NewKind,
    #[arg(long, value_enum, default_value = "blackhole")]
    arch: ArchArg,
    /// Pack: the Dst data and intermediate format. Unpack: the L1 format.
    /// (fp32, fp16, bf16, tf32, bfp8_b, bfp4_b, bfp2_b, bfp8, bfp4, bfp2,
    /// lf8, int8, uint16, int32.)
    #[arg(long)]
    from: String,
    /// Pack: the L1 format. Unpack: the register format.
    #[arg(long)]
    to: String,
    /// Unpack: the register written.
    #[arg(long, value_enum, default_value = "srca")]
    target: UnpackTo,
    /// Pack: what Dst holds (bf16, fp16, raw16, fp32, int32, raw32); by
    /// default the view that holds --from. `--from bf16 --dst fp32` packs a
    /// 32-bit Dst through a BF16 intermediate, as tt-llk does.
    #[arg(long)]
    dst: Option<String>,
    /// Faces in the tile: 1, 2 or 4.
    #[arg(long, default_value_t = 4)]
    faces: u8,
    /// Rows per face: 1, 2, 4, 8 or 16.
    #[arg(long, default_value_t = 16)]
    face_rows: u8,
    /// Pack: none, zero, min:T or max:T (T the 16-bit threshold).
    #[arg(long, default_value = "none")]
    relu: String,
    /// Pack: one 16-bit edge mask for every row (a clear bit zeroes that
    /// column).
    #[arg(long)]
    edge_mask: Option<String>,
    /// Pack: add into L1 (Pack_L1_Acc) instead of overwriting it.
    #[arg(long)]
    l1_acc: bool,
    /// Byte address of the tile in L1 (16-byte aligned).
    #[arg(long, default_value = "0x10000")]
    l1_addr: String,
    /// Seed of the tile data.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The tile data from a file instead: for pack, numbers in the Dst view
    /// (16 a row, from the tile's first row); for unpack, the tile's bytes
    /// in L1 (exponent section, then datums).
    #[arg(long, conflicts_with = "seed")]
    data: Option<PathBuf>,
    /// Fill `expect` from: golden (the golden tile model), emulator, or an
    /// engine (ttsim:PATH, wolfpine[:DIR], device[:INDEX]). Without it,
    /// `expect` is left empty.
    #[arg(long)]
    expect_from: Option<String>,
    /// The vector's name (default: the file name without `.yaml`).
    #[arg(long)]
    name: Option<String>,
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
    /// Overwrite an existing file.
    #[arg(long)]
    force: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Run conformance vectors (files or directories, recursively). Exit 0
    /// when the gate holds, 1 when it does not, 2 for unusable input.
    Run(RunArgs),
    /// Turn a fuzz finding into a vector: decode ARTIFACT as TARGET's input,
    /// shrink it while the same disagreement persists, and write a
    /// tensix-vector/1 file (or, for formats, isa_roundtrip and
    /// vector_parse, the shrunk input) into DIR. Exit 0 when written, 1 when
    /// the artifact reproduces nothing, 2 for unusable input.
    Repro {
        /// The fuzz target that found it (pack_tile_diff, pack_program, ...).
        target: String,
        /// The artifact file cargo fuzz wrote (fuzz/artifacts/TARGET/crash-...).
        artifact: PathBuf,
        /// Directory to write into (created if missing).
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        /// Oracle runs to spend shrinking.
        #[arg(long, default_value_t = tensix_harness::repro::DEFAULT_BUDGET)]
        budget: usize,
        /// Overwrite an existing output file.
        #[arg(long)]
        force: bool,
    },
    /// Run VECTOR on an engine and write a new vector whose `expect` is what
    /// the engine observed (provenance names the engine, its version, the
    /// tile and the date); or, with --from, turn a bundle's results into
    /// vectors. Never overwrites without --force. Exit 0 when everything
    /// was recorded, 1 when the engine refused or timed out, 2 for unusable
    /// input.
    Record {
        /// The vector to run (with --engine).
        #[arg(required_unless_present = "from")]
        vector: Option<PathBuf>,
        /// ttsim:PATH, wolfpine[:DIR] or device[:INDEX].
        #[arg(long, required_unless_present = "from", conflicts_with = "from")]
        engine: Option<String>,
        /// A bundle folder (`device bundle`) whose results/ to record.
        #[arg(long = "from")]
        from: Option<PathBuf>,
        /// The vector file to write (with --engine), or the directory to
        /// write into (with --from).
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        /// Seconds the vector may run on the engine.
        #[arg(long, default_value_t = 30)]
        timeout: u64,
        #[arg(long)]
        force: bool,
    },
    /// A differential campaign: draw COUNT jobs from the generators, run
    /// each on the emulator and on every ENGINE, class each job per engine
    /// (agree, differ, refused, undefined, unmodelled, uncompared), shrink
    /// every difference to a vector that records the engine's result, and
    /// write a report. Results stream to DIR, so a stopped campaign resumes
    /// when run again. Exit 0 when every difference is catalogued in
    /// --known, 1 when one is not or nothing was compared, 2 for unusable
    /// input.
    Diff(DiffArgs),
    /// Program images for a Tensix tile.
    Device {
        #[command(subcommand)]
        command: DeviceCommand,
    },
    /// Encode instructions in the text form `decode` prints (`'SETADCXX
    /// x_end2=0xf cnt_set_mask=4'`, one argument each) to words. Exit 1
    /// when one does not encode on the architecture, 2 when one does not
    /// parse.
    Encode {
        #[arg(long, value_enum, default_value = "blackhole")]
        arch: ArchArg,
        /// Also print the word as TRISC disassembly shows it (rotated left
        /// by 2).
        #[arg(long)]
        trisc: bool,
        #[arg(required = true)]
        instructions: Vec<String>,
    },
    /// Run VECTOR on the emulator and print the instruction stream as it
    /// ran: one line each, with the issuing thread's ADCs after it and the
    /// L1 writes it made. Exit 0 when printed, 2 for unusable input.
    Trace {
        vector: PathBuf,
        /// Only this thread's instructions.
        #[arg(long)]
        thread: Option<u8>,
        /// From this instruction (issue index, as printed after `#`).
        #[arg(long)]
        from: Option<u64>,
        /// Up to and including this instruction.
        #[arg(long)]
        to: Option<u64>,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Run VECTOR on the emulator and show, stage by stage, how the selected
    /// datums were made: what the packer read, converted, masked, clamped,
    /// thresholded, kept, grouped and wrote, or what an unpacker read and
    /// wrote where. Give one of --l1, --dst, --srca, --srcb. Exit 0 when
    /// printed, 2 for unusable input.
    Explain {
        vector: PathBuf,
        /// L1 bytes: ADDR or ADDR..END (END exclusive).
        #[arg(long, group = "target")]
        l1: Option<String>,
        /// A Dst row, or one cell: ROW or ROW,COL.
        #[arg(long, group = "target")]
        dst: Option<String>,
        /// A SrcA row or cell: BANK,ROW or BANK,ROW,COL.
        #[arg(long, group = "target")]
        srca: Option<String>,
        /// A SrcB row or cell: BANK,ROW or BANK,ROW,COL.
        #[arg(long, group = "target")]
        srcb: Option<String>,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Print VECTOR in the house style: named register fields and
    /// instruction text become the raw words the emulator sees. Exit 0 when
    /// written, 2 for unusable input.
    Fmt {
        vector: PathBuf,
        /// Follow each Config, ThreadConfig and instruction word with a
        /// comment reading it back (fields by name, instruction text).
        #[arg(long)]
        annotate: bool,
        /// Write here instead of standard output (never over an existing
        /// file without --force; VECTOR itself included).
        #[arg(short = 'o', long = "out")]
        out: Option<PathBuf>,
        #[arg(long)]
        force: bool,
    },
    /// Write a new LLK-shaped tile vector: `new pack --from bf16 --to bfp8_b
    /// -o FILE` (programs from the project's LLK builder, tile data from
    /// --seed). Exit 0 when written, 1 when the engine asked for `expect`
    /// refused, 2 for unusable choices.
    New(NewArgs),
    /// List the Config and ThreadConfig fields by their cfg_defines.h
    /// names, with word and bits on each architecture (the table in
    /// docs/registers.md), optionally only names containing FILTER.
    Regs { filter: Option<String> },
    /// Decode Tensix instruction words (hex) to their text form.
    Decode {
        #[arg(long, value_enum, default_value = "blackhole")]
        arch: ArchArg,
        /// Words as printed in TRISC disassembly (rotated left by 2).
        #[arg(long)]
        trisc: bool,
        #[arg(required = true)]
        words: Vec<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum JobsArg {
    /// tt-llk-shaped pack tile jobs (PACR from Dst to L1).
    Pack,
    /// tt-llk-shaped unpack tile jobs (UNPACR from L1 to SrcA, SrcB, Dst).
    Unpack,
    /// Programs around PACR and UNPACR, config words and all.
    Program,
}

#[derive(clap::Args)]
struct DiffArgs {
    /// ttsim:PATH, wolfpine[:DIR] or device[:INDEX]; repeat for several.
    #[arg(long = "engine", required = true)]
    engines: Vec<String>,
    #[arg(long, value_enum)]
    jobs: JobsArg,
    /// Jobs in the campaign (all shards together).
    #[arg(long)]
    count: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// K/N: run the jobs whose index is K-1 modulo N.
    #[arg(long, default_value = "1/1")]
    shard: String,
    /// The campaign directory (created; resumed when it holds this campaign).
    #[arg(short = 'o', long = "out")]
    out: PathBuf,
    /// Seconds one job may run on an engine.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
    /// Engine runs to spend shrinking one difference.
    #[arg(long, default_value_t = 150)]
    shrink_budget: usize,
    /// Differences already catalogued (ENGINE ARCH JOBS SEED INDEX ENTRY a
    /// line), e.g. conformance-vectors/engines/known-differences.txt.
    #[arg(long)]
    known: Option<PathBuf>,
    /// Start over in a directory that holds another campaign or other files.
    #[arg(long)]
    force: bool,
    /// Run nothing: write the report of what DIR holds (a stopped campaign,
    /// or one whose --known list has grown).
    #[arg(long, conflicts_with = "force")]
    report_only: bool,
    /// Take in the results of this campaign's other shards (or another
    /// machine's run) from these directories first; repeatable.
    #[arg(long = "merge", value_name = "DIR")]
    merge: Vec<PathBuf>,
}

#[derive(Subcommand)]
enum DeviceCommand {
    /// Write a self-contained folder that carries VECTORS (files or
    /// directories) to a machine with a card: program images, a manifest,
    /// the runner, and a README with the one command to run there.
    Bundle {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        /// Seconds each vector may run on the card.
        #[arg(long, default_value_t = 30)]
        timeout: u64,
        /// Replace a bundle already in the folder.
        #[arg(long)]
        force: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run(args) => run(args),
        Command::Diff(args) => diff(args),
        Command::Decode { arch, trisc, words } => decode(arch, trisc, &words),
        Command::New(args) => new_vector(args),
        Command::Regs { filter } => {
            out(&tensix_harness::fmt::register_reference(filter.as_deref()));
            ExitCode::SUCCESS
        }
        Command::Fmt {
            vector,
            annotate,
            out: target,
            force,
        } => {
            let v = match tensix_harness::vector::Vector::load(&vector) {
                Ok(v) => v,
                Err(e) => return unusable(e),
            };
            let text = if annotate {
                tensix_harness::fmt::annotated(&v)
            } else {
                v.to_yaml()
            };
            match target {
                Some(path) => match output::write_new(&path, text, force) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => unusable(e),
                },
                None => {
                    out(&text);
                    ExitCode::SUCCESS
                }
            }
        }
        Command::Trace {
            vector,
            thread,
            from,
            to,
            format,
        } => trace(
            &vector,
            tensix_harness::trace::Selection { thread, from, to },
            format,
        ),
        Command::Explain {
            vector,
            l1,
            dst,
            srca,
            srcb,
            format,
        } => {
            use tensix_harness::explain::Target;
            let target = match (l1, dst, srca, srcb) {
                (Some(s), ..) => Target::l1(&s),
                (_, Some(s), ..) => Target::dst(&s),
                (_, _, Some(s), _) => Target::src(&s, false),
                (.., Some(s)) => Target::src(&s, true),
                _ => Err("give one of --l1, --dst, --srca, --srcb".to_string()),
            };
            match target {
                Ok(t) => explain(&vector, t, format),
                Err(e) => unusable(format!("explain: {e}")),
            }
        }
        Command::Encode {
            arch,
            trisc,
            instructions,
        } => encode(arch, trisc, &instructions),
        Command::Record {
            vector,
            engine,
            from,
            out,
            timeout,
            force,
        } => match (from, vector, engine) {
            (Some(dir), _, _) => record_from(&dir, &out, force),
            (None, Some(v), Some(e)) => record(&v, &e, &out, timeout, force),
            _ => {
                eprintln!("tensix-harness: record needs VECTOR and --engine, or --from DIR");
                ExitCode::from(2)
            }
        },
        Command::Device {
            command:
                DeviceCommand::Bundle {
                    paths,
                    out,
                    timeout,
                    force,
                },
        } => bundle(&paths, &out, timeout, force),
        Command::Repro {
            target,
            artifact,
            out,
            budget,
            force,
        } => repro(&target, &artifact, &out, budget, force),
    }
}

fn repro(target: &str, artifact: &Path, dir: &Path, budget: usize, force: bool) -> ExitCode {
    use tensix_harness::repro::{self, Reproduced};
    let unusable = |msg: String| {
        eprintln!("tensix-harness: {msg}");
        ExitCode::from(2)
    };
    let bytes = match tensix_harness::vector::read_bounded(artifact) {
        Ok(b) => b,
        Err(e) => return unusable(e.to_string()),
    };
    let result = match repro::reproduce(target, &bytes, budget) {
        Ok(r) => r,
        Err(e) if e.starts_with("unknown target") => return unusable(e),
        Err(e) => {
            eprintln!("tensix-harness: {e}");
            return ExitCode::from(1);
        }
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        return unusable(format!("{}: {e}", dir.display()));
    }
    let short = &repro::sha1(&bytes)[..12];
    match result {
        Reproduced::Vector { vector, fails_now } => {
            let path = dir.join(format!("{target}-{short}.yaml"));
            if let Err(e) = output::write_new(&path, vector.to_yaml(), force) {
                return unusable(e);
            }
            let steps: usize = vector.program.iter().map(|p| p.run.len()).sum();
            out(&format!(
                "wrote {} ({} program entries, {} config writes)\n{}\n",
                path.display(),
                steps,
                vector.setup.config.len(),
                vector.provenance.detail
            ));
            if fails_now {
                out("the vector fails against the current emulator, as the finding did\n");
            } else {
                out(
                    "note: the vector passes against the current emulator: the finding is an \
                     oracle invariant the vector runner does not check\n",
                );
            }
            ExitCode::SUCCESS
        }
        Reproduced::Input {
            bytes: input,
            finding,
        } => {
            let path = dir.join(format!("{target}-{short}"));
            if let Err(e) = output::write_new(&path, &input, force) {
                return unusable(e);
            }
            out(&format!(
                "wrote the shrunk input ({} bytes) to {}: put it under fuzz/regressions/{target}/\n{}\n",
                input.len(),
                path.display(),
                finding
            ));
            ExitCode::SUCCESS
        }
    }
}

/// Print to stdout; a reader that went away (`| head`) is not an error.
fn out(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

impl ArchArg {
    fn arch(self) -> tensix_emu::Arch {
        match self {
            ArchArg::Blackhole => tensix_emu::Arch::Blackhole,
            ArchArg::WormholeB0 => tensix_emu::Arch::WormholeB0,
        }
    }
}

fn encode(arch: ArchArg, trisc: bool, instructions: &[String]) -> ExitCode {
    let arch = arch.arch();
    let mut ok = true;
    for text in instructions {
        let insn: tensix_emu::isa::Instruction = match text.parse() {
            Ok(i) => i,
            Err(e) => return unusable(format!("`{}`: {e}", printable(text))),
        };
        match tensix_emu::isa::encode(arch, &insn) {
            Ok(w) if trisc => out(&format!("{w:#010x}  {:#010x}  {insn}\n", w.rotate_left(2))),
            Ok(w) => out(&format!("{w:#010x}  {insn}\n")),
            Err(e) => {
                ok = false;
                eprintln!("tensix-harness: `{}`: {e}", printable(text));
            }
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn decode(arch: ArchArg, trisc: bool, words: &[String]) -> ExitCode {
    let arch = arch.arch();
    let mut ok = true;
    for w in words {
        let t = w.trim_start_matches("0x").trim_start_matches("0X");
        match u32::from_str_radix(t, 16) {
            Ok(v) => {
                let v = if trisc {
                    tensix_emu::isa::from_trisc_word(v)
                } else {
                    v
                };
                match tensix_emu::isa::decode(arch, v) {
                    Ok(i) => out(&format!("{v:#010x}  {i}\n")),
                    Err(f) => {
                        ok = false;
                        out(&format!("{v:#010x}  {f}\n"));
                    }
                }
            }
            Err(_) => {
                eprintln!("tensix-harness: `{w}` is not a hexadecimal word");
                return ExitCode::from(2);
            }
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn run(args: RunArgs) -> ExitCode {
    let RunArgs {
        paths,
        filter,
        jobs,
        format,
        junit,
        known_failures,
        force,
        engine,
        timeout,
        known_differences,
    } = args;
    let unusable = |msg: String| {
        eprintln!("tensix-harness: {msg}");
        ExitCode::from(2)
    };
    let root = paths
        .iter()
        .find(|p| p.is_dir())
        .cloned()
        .unwrap_or_else(|| PathBuf::from("."));
    // Every output is cleared for writing before any work is done.
    if let Some(path) = &junit {
        if let Err(e) = output::check_target(path, force) {
            return unusable(format!("--junit: {e}"));
        }
    }
    let known_path = match known_failures {
        Some(p) if p.is_file() => Some(p),
        Some(p) => {
            return unusable(format!(
                "--known-failures {}: no such file",
                printable(&p.display().to_string())
            ))
        }
        None => {
            let found: std::collections::BTreeSet<PathBuf> = paths
                .iter()
                .filter_map(|p| KnownFailures::find(p))
                .collect();
            if found.len() > 1 {
                return unusable(format!(
                    "the paths given fall under different known-failures lists ({}); run them \
                     separately or name one with --known-failures",
                    found
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            found.into_iter().next()
        }
    };
    let known = match &known_path {
        Some(p) => match KnownFailures::load(p) {
            Ok(k) => k,
            Err(e) => return unusable(e),
        },
        None => KnownFailures::default(),
    };
    let mut files = match gate::collect(&paths) {
        Ok(f) => f,
        Err(e) => return unusable(printable(&e)),
    };
    // The directory that holds the list names unnamed vectors, whatever
    // part of it was given.
    let list_dir = known_path
        .as_ref()
        .and_then(|p| std::fs::canonicalize(p).ok())
        .and_then(|p| p.parent().map(Path::to_path_buf));
    if let Some(dir) = &list_dir {
        files = gate::rooted_at(files, dir);
    }
    if let Some(f) = &filter {
        files.retain(|v| v.path.display().to_string().contains(f.as_str()));
    }
    if files.is_empty() {
        return unusable(format!(
            "no vectors to run under {}{}: a gate that runs nothing does not hold",
            paths
                .iter()
                .map(|p| printable(&p.display().to_string()))
                .collect::<Vec<_>>()
                .join(", "),
            filter.as_ref().map_or(String::new(), |f| format!(
                " matching --filter `{}`",
                printable(f)
            ))
        ));
    }
    if let Some(engine) = engine {
        let known = match known_differences {
            Some(p) => match tensix_harness::engine::known::KnownDifferences::load(&p) {
                Ok(k) => k,
                Err(e) => return unusable(format!("--known-differences: {e}")),
            },
            None => Default::default(),
        };
        return run_engine(&engine, timeout, &files, format, &known);
    }
    let jobs = jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let tty = std::io::stderr().is_terminal();
    let result = gate::run_all(&files, &known, jobs, |done, total| {
        if tty {
            eprint!("\r[{done}/{total}] vectors");
            let _ = std::io::stderr().flush();
        }
    });
    if tty {
        eprintln!();
    }
    let mut result = result;
    // A list entry that names no vector is stale; that can be told only
    // when the whole directory holding the list ran, unfiltered.
    let whole = list_dir.as_ref().is_some_and(|d| {
        paths
            .iter()
            .any(|p| std::fs::canonicalize(p).is_ok_and(|c| &c == d))
    });
    if whole && filter.is_none() {
        let names: Vec<&str> = result.entries.iter().map(|e| e.name.as_str()).collect();
        let list = known_path.clone().unwrap_or_default();
        let stale: Vec<gate::Unusable> = known
            .unmatched(&names)
            .into_iter()
            .map(|k| gate::Unusable {
                file: list.clone(),
                message: format!(
                    "{}: `{k}` names no vector; take it off the list",
                    list.display()
                ),
            })
            .collect();
        result.unusable.extend(stale);
    }
    match format {
        Format::Human => out(&gate::human(&result, &root)),
        Format::Json => out(&(gate::json(&result) + "\n")),
    }
    if let Some(path) = junit {
        if let Err(e) = output::write_report(&path, &gate::junit(&result), force) {
            return unusable(e);
        }
    }
    if !result.unusable.is_empty() {
        ExitCode::from(2)
    } else if result.holds() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The gate on an engine: each vector runs once, is compared on what the
/// engine can observe, and gets a class (agree, differ, refused, timed out);
/// what was not compared is named. A vector `known` lists for the engine is
/// `known` when it differs and `listed-agrees` (a failure: the list must
/// shrink) when it agrees. Exit 0 when nothing unlisted differs, no listed
/// vector agrees and at least one vector was compared; 1 otherwise; 2 for
/// unusable input.
fn run_engine(
    spec: &str,
    timeout: u64,
    files: &[gate::VectorFile],
    format: Format,
    known: &tensix_harness::engine::known::KnownDifferences,
) -> ExitCode {
    use tensix_harness::engine::{self, umd, Engine};
    let target = match umd::Target::parse(spec) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("tensix-harness: --engine: {e}");
            return ExitCode::from(2);
        }
    };
    let mut eng = umd::UmdEngine::new(target, umd::RunnerCommand::from_env());
    eng.timeout = std::time::Duration::from_secs(timeout.max(1));
    let tty = std::io::stderr().is_terminal();
    let entries = engine::run_files(files, &mut eng, |done, total, _| {
        if tty {
            eprint!("\r[{done}/{total}] vectors");
            let _ = std::io::stderr().flush();
        }
    });
    if tty {
        eprintln!();
    }
    let info = eng.info();
    let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut unusable = 0;
    let mut text = String::new();
    let mut json_entries = Vec::new();
    let mut bench = tensix_harness::run::Workbench::new();
    let date = tensix_harness::engine::record::today();
    for (f, e) in files.iter().zip(&entries) {
        match e {
            Ok(e) => {
                let listed = known.entry(&info.kind, &e.name);
                // An unlisted difference the catalogue's counterfactuals
                // reproduce is explained, as in a `diff` campaign.
                let explained = match (e.class(), listed) {
                    ("differ", None) => explain_difference(&mut bench, f, e, &info, &date),
                    _ => None,
                };
                let class = match (e.class(), listed, &explained) {
                    ("differ", Some(_), _) => "known",
                    ("differ", None, Some(_)) => "explained",
                    ("agree", Some(_), _) => "listed-agrees",
                    (c, _, _) => c,
                };
                *counts.entry(class).or_default() += 1;
                let mut reason = match &e.verdict {
                    engine::Verdict::Refused(m) | engine::Verdict::TimedOut(m) => m.clone(),
                    engine::Verdict::Stopped { message, .. } => message.clone(),
                    engine::Verdict::Observed(_) => String::new(),
                };
                if let (Some(entry), "known" | "listed-agrees") = (listed, class) {
                    reason = format!(
                        "listed as a known difference (catalogue: conformance-vectors/engines/{entry})"
                    );
                }
                if let Some(names) = &explained {
                    reason = format!(
                        "reproduced by the counterfactuals of {} (catalogue: conformance-vectors/engines/)",
                        names.join(" + ")
                    );
                }
                text.push_str(&format!("{:9} {}", class.to_uppercase(), e.name));
                if !reason.is_empty() {
                    text.push_str(&format!(": {}", printable(&reason)));
                }
                text.push('\n');
                for m in &e.comparison.mismatches {
                    let d =
                        tensix_harness::report::describe(m, tensix_harness::report::Datums::Bytes);
                    for line in d.lines() {
                        text.push_str(&format!("    {line}\n"));
                    }
                }
                for n in &e.comparison.not_compared {
                    text.push_str(&format!("    not compared: {n}\n"));
                }
                json_entries.push(serde_json::json!({
                    "name": e.name,
                    "path": e.path.display().to_string(),
                    "class": class,
                    "reason": reason,
                    "mismatches": e.comparison.mismatches.iter()
                        .map(|m| tensix_harness::report::describe(m, tensix_harness::report::Datums::Bytes))
                        .collect::<Vec<_>>(),
                    "not_compared": e.comparison.not_compared,
                }));
            }
            Err(msg) => {
                unusable += 1;
                text.push_str(&format!("UNUSABLE  {}\n", printable(msg)));
                json_entries.push(serde_json::json!({"class": "unusable", "reason": msg}));
            }
        }
    }
    let agree = counts.get("agree").copied().unwrap_or(0);
    let differ = counts.get("differ").copied().unwrap_or(0);
    let timed_out = counts.get("timed out").copied().unwrap_or(0);
    let listed_agree = counts.get("listed-agrees").copied().unwrap_or(0);
    let compared = agree
        + counts.get("known").copied().unwrap_or(0)
        + counts.get("explained").copied().unwrap_or(0);
    let holds = differ == 0 && timed_out == 0 && listed_agree == 0 && unusable == 0 && compared > 0;
    match format {
        Format::Human => {
            text.push_str(&format!("\nengine: {} ({})\n", info.kind, info.detail));
            for (class, n) in &counts {
                text.push_str(&format!("{class:>10}: {n}\n"));
            }
            if unusable > 0 {
                text.push_str(&format!("  unusable: {unusable}\n"));
            }
            text.push_str(&format!(
                "engine gate: {}\n",
                if holds { "holds" } else { "does not hold" }
            ));
            out(&text);
        }
        Format::Json => out(&format!(
            "{}\n",
            serde_json::json!({
                "engine": {"kind": info.kind, "detail": info.detail},
                "vectors": json_entries,
                "counts": counts,
                "holds": holds,
            })
        )),
    }
    if unusable > 0 {
        ExitCode::from(2)
    } else if holds {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The catalogue entries whose counterfactuals reproduce what the engine
/// did with the vector of `file`, or `None` when no set of them does (or
/// the engine has none).
fn explain_difference(
    bench: &mut tensix_harness::run::Workbench,
    file: &gate::VectorFile,
    entry: &tensix_harness::engine::EngineEntry,
    info: &tensix_harness::engine::EngineInfo,
    date: &str,
) -> Option<Vec<String>> {
    use tensix_harness::engine::{deviation, record};
    if !deviation::has_counterfactuals(&info.kind) {
        return None;
    }
    let v = tensix_harness::vector::Vector::load_under(&file.root, &file.path).ok()?;
    let rec = record::recorded(&v, info, &entry.verdict, date).ok()?;
    deviation::entries(bench, &rec, &info.kind).filter(|names| !names.is_empty())
}

fn unusable(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("tensix-harness: {}", printable(&msg.to_string()));
    ExitCode::from(2)
}

fn record(path: &Path, spec: &str, out_path: &Path, timeout: u64, force: bool) -> ExitCode {
    use tensix_harness::engine::{record::recorded, record::today, umd, Engine};
    if out_path.exists() && !force {
        return unusable(format!(
            "{} exists; pass --force to overwrite it",
            out_path.display()
        ));
    }
    let target = match umd::Target::parse(spec) {
        Ok(t) => t,
        Err(e) => return unusable(format!("--engine: {e}")),
    };
    let v = match tensix_harness::vector::Vector::load(path) {
        Ok(v) => v,
        Err(e) => return unusable(e),
    };
    let mut eng = umd::UmdEngine::new(target, umd::RunnerCommand::from_env());
    eng.timeout = std::time::Duration::from_secs(timeout.max(1));
    let verdict = eng.run(&v);
    match recorded(&v, &eng.info(), &verdict, &today()) {
        Ok(r) => match output::write_new(out_path, r.to_yaml(), force) {
            Ok(()) => {
                out(&format!(
                    "wrote {} ({})\n",
                    out_path.display(),
                    r.provenance.detail
                ));
                ExitCode::SUCCESS
            }
            Err(e) => unusable(e),
        },
        Err(e) => {
            eprintln!("tensix-harness: {}: {}", v.name, printable(&e));
            ExitCode::from(1)
        }
    }
}

fn record_from(dir: &Path, out_dir: &Path, force: bool) -> ExitCode {
    use tensix_harness::engine::{record::recorded, umd, Verdict};
    let manifest: serde_json::Value = match std::fs::read_to_string(dir.join("manifest.json"))
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(m) => m,
        Err(e) => return unusable(format!("{}/manifest.json: {e}", dir.display())),
    };
    if manifest["schema"] != "tensix-bundle/1" {
        return unusable(format!(
            "{}/manifest.json is not a tensix-bundle/1 manifest",
            dir.display()
        ));
    }
    if let Err(e) = std::fs::create_dir_all(out_dir) {
        return unusable(format!("{}: {e}", out_dir.display()));
    }
    let entries = manifest["vectors"].as_array().cloned().unwrap_or_default();
    let (mut written, mut missed) = (0, 0);
    for entry in &entries {
        let (Some(vector), Some(result)) = (entry["vector"].as_str(), entry["result"].as_str())
        else {
            return unusable(format!(
                "{}/manifest.json: an entry without files",
                dir.display()
            ));
        };
        let name = entry["name"].as_str().unwrap_or(vector);
        if let Some(reason) = entry["refused"].as_str() {
            eprintln!(
                "not recorded: {}: no image: {}",
                printable(name),
                printable(reason)
            );
            missed += 1;
            continue;
        }
        let v = match tensix_harness::vector::Vector::load(dir.join(vector)) {
            Ok(v) => v,
            Err(e) => return unusable(e),
        };
        let reply: serde_json::Value = match std::fs::read_to_string(dir.join(result)) {
            Ok(t) => match serde_json::from_str(&t) {
                Ok(r) => r,
                Err(e) => return unusable(format!("{}/{result}: {e}", dir.display())),
            },
            Err(_) => {
                eprintln!(
                    "not recorded: {}: the bundle has no result for it",
                    printable(name)
                );
                missed += 1;
                continue;
            }
        };
        // The image is rebuilt (it is a function of the vector) to find
        // what it read back where.
        let image = tensix_harness::engine::image_for(&v).ok();
        let verdict = umd::verdict_of_reply(&reply, v.arch, image.as_ref());
        let recorded = if reply["engine"].is_object() {
            recorded(
                &v,
                &umd::info_of_hello(&reply["engine"]),
                &verdict,
                reply["date"].as_str().unwrap_or("unknown date"),
            )
        } else {
            Err(match verdict {
                Verdict::Refused(m) | Verdict::TimedOut(m) => m,
                _ => "the result does not say which engine ran it".into(),
            })
        };
        match recorded {
            Ok(r) => {
                let file = v.name.rsplit('/').next().unwrap_or("vector").to_string() + ".yaml";
                let path = out_dir.join(file);
                if let Err(e) = output::write_new(&path, r.to_yaml(), force) {
                    return unusable(e);
                }
                written += 1;
            }
            Err(e) => {
                eprintln!("not recorded: {}: {}", printable(name), printable(&e));
                missed += 1;
            }
        }
    }
    out(&format!(
        "wrote {written} vectors to {}; {missed} not recorded\n",
        out_dir.display()
    ));
    if missed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn bundle(paths: &[PathBuf], dir: &Path, timeout: u64, force: bool) -> ExitCode {
    use tensix_harness::device::bundle;
    use tensix_harness::engine::image_for;
    let files = match gate::collect(paths) {
        Ok(f) if !f.is_empty() => f,
        Ok(_) => return unusable("no vectors found"),
        Err(e) => return unusable(e),
    };
    let mut vectors = Vec::new();
    for f in &files {
        match tensix_harness::vector::Vector::load_under(&f.root, &f.path) {
            Ok(v) => {
                let image = image_for(&v);
                vectors.push((v, image));
            }
            Err(e) => return unusable(e),
        }
    }
    match bundle::write(dir, &vectors, timeout as f64, force) {
        Ok(n) => {
            out(&format!(
                "wrote {} with {n} of {} vectors; run there: PYTHONPATH=. python3 -m tensix_engine --target device:0 --bundle .\n",
                dir.display(),
                vectors.len()
            ));
            ExitCode::SUCCESS
        }
        Err(e) => unusable(e),
    }
}

/// `diff`: a differential campaign (see `tensix_harness::diff`).
fn diff(args: DiffArgs) -> ExitCode {
    use tensix_harness::diff::{self, report, store, Case, Class, Jobs};
    use tensix_harness::engine::{deviation, record, umd, Engine};
    let unusable = |m: String| {
        eprintln!("tensix-harness: diff: {m}");
        ExitCode::from(2)
    };
    let jobs = match args.jobs {
        JobsArg::Pack => Jobs::Pack,
        JobsArg::Unpack => Jobs::Unpack,
        JobsArg::Program => Jobs::Program,
    };
    let shard = match diff::Shard::parse(&args.shard) {
        Ok(s) => s,
        Err(e) => return unusable(e),
    };
    let known = match &args.known {
        None => Vec::new(),
        Some(p) => match std::fs::read_to_string(p)
            .map_err(|e| format!("{}: {e}", p.display()))
            .and_then(|t| report::parse_known(&t, &p.display().to_string()))
        {
            Ok(k) => k,
            Err(e) => return unusable(e),
        },
    };
    let params = store::Params {
        jobs: jobs.name().into(),
        seed: args.seed,
        count: args.count,
        shard: shard.to_string(),
        engines: args.engines.clone(),
    };
    if args.report_only && args.merge.is_empty() && !args.out.join("campaign.json").is_file() {
        return unusable(format!(
            "--report-only: {} holds no campaign (and nothing is merged into it)",
            args.out.display()
        ));
    }
    let mut store = match store::Store::open(&args.out, &params, args.force) {
        Ok(s) => s,
        Err(e) => return unusable(e),
    };
    for other in &args.merge {
        if let Err(e) = store.absorb(other) {
            return unusable(format!("--merge: {e}"));
        }
    }
    let mut engines = Vec::new();
    for spec in args.engines.iter().filter(|_| !args.report_only) {
        let target = match umd::Target::parse(spec) {
            Ok(t) => t,
            Err(e) => return unusable(format!("--engine {spec}: {e}")),
        };
        let mut eng = umd::UmdEngine::new(target, umd::RunnerCommand::from_env());
        eng.timeout = std::time::Duration::from_secs(args.timeout.max(1));
        let arch = match eng.open() {
            Ok(a) => a,
            Err(e) => return unusable(format!("--engine {spec} does not open: {e}")),
        };
        engines.push((spec.clone(), eng, arch));
    }
    let archs: Vec<_> = engines.iter().map(|e| e.2).collect();
    let indices: Vec<u64> = (0..args.count)
        .filter(|&i| shard.holds(i) && !args.report_only)
        .collect();
    let total = indices.len();
    let tty = std::io::stderr().is_terminal();
    let started = std::time::Instant::now();
    let mut last_line = started;
    let mut counts = report::Counts::default();
    for r in &store.records {
        counts.add(&r.class);
    }
    let resumed = store.records.len();
    let date = record::today();
    let mut bench = tensix_harness::run::Workbench::new();
    for (done, &index) in indices.iter().enumerate() {
        let pending: Vec<usize> = (0..engines.len())
            .filter(|&e| !store.done(index, &engines[e].0))
            .collect();
        if pending.is_empty() {
            continue;
        }
        let Some(case) = Case::draw(jobs, args.seed, index, &archs) else {
            continue;
        };
        let name = format!("diff/{}/{}-{}", jobs.name(), args.seed, index);
        let v = case.vector(&name);
        for e in pending {
            let (spec, eng, arch) = &mut engines[e];
            if *arch != case.arch() {
                continue;
            }
            let (class, asked) = diff::classify(&mut bench, &v, eng as &mut dyn Engine);
            let mut vector_file = None;
            let mut explained = None;
            if let (Class::Differ(_), Some(asked)) = (&class, asked) {
                let info = eng.info();
                // Before shrinking: the job as drawn is what is explained.
                explained = asked
                    .recorded(&v.name, &info, &date)
                    .ok()
                    .and_then(|rec| deviation::entries(&mut bench, &rec, &info.kind));
                let (_, small_class, small_asked) = diff::shrink(
                    &mut bench,
                    case.clone(),
                    class.clone(),
                    asked,
                    eng,
                    args.shrink_budget,
                );
                let file = format!(
                    "differences/{}-{}-{}-{}-{}.yaml",
                    info.kind,
                    arch.name(),
                    jobs.name(),
                    args.seed,
                    index
                );
                let vname = format!(
                    "diff/{}-{}/{}-{}-{}",
                    info.kind,
                    arch.name(),
                    jobs.name(),
                    args.seed,
                    index
                );
                match small_asked.recorded(&vname, &info, &date) {
                    Ok(mut rec) => {
                        rec.provenance.detail.push_str(&format!(
                            "; tensix-harness diff --jobs {} --seed {} job {index}, shrunk; held against the emulator's result: {}",
                            jobs.name(),
                            args.seed,
                            small_class.reason().lines().take(12).collect::<Vec<_>>().join(" / ")
                        ));
                        let path = store.dir.join(&file);
                        match tensix_harness::output::write_new(&path, rec.to_yaml(), true) {
                            Ok(()) => vector_file = Some(file),
                            Err(err) => eprintln!("tensix-harness: diff: {err}"),
                        }
                    }
                    Err(err) => eprintln!("tensix-harness: diff: job {index}: not recorded: {err}"),
                }
            }
            let name = class.name();
            counts.add(name);
            let r = store::Record {
                index,
                engine: spec.clone(),
                arch: arch.name().into(),
                class: name.into(),
                reason: class.reason().to_string(),
                tags: v.tags.clone(),
                vector: vector_file,
                explained,
            };
            if let Err(err) = store.add(r) {
                return unusable(err);
            }
        }
        let finished = done + 1;
        // A terminal gets a live line; a log gets one every 1000 jobs or 30 s.
        if tty
            || finished % 1000 == 0
            || finished == total
            || last_line.elapsed() >= std::time::Duration::from_secs(30)
        {
            last_line = std::time::Instant::now();
            let run = (store.records.len() - resumed).max(1) as f64;
            let left = (total - finished) as f64 * engines.len() as f64;
            let eta = started.elapsed().as_secs_f64() / run * left;
            let line = format!(
                "[{finished}/{total}] {}  ETA {}:{:02}",
                counts.summary(),
                eta as u64 / 60,
                eta as u64 % 60
            );
            if tty {
                eprint!("\r{line}\x1b[K");
            } else {
                eprintln!("{line}");
            }
        }
    }
    if tty {
        eprintln!();
    }
    let mut argv: Vec<String> = std::env::args().skip(1).collect();
    argv.insert(0, "tensix-harness".into());
    let command = argv.join(" ");
    // Differences recorded before their engine had counterfactuals: explain
    // the vector recorded for one when it is the job as drawn (a shrunk one
    // is a smaller job, whose explanation would not cover the first).
    let mut records = store.records.clone();
    for r in records.iter_mut().filter(|r| {
        r.class == "differ"
            && r.explained.is_none()
            && deviation::has_counterfactuals(report::kind(&r.engine))
    }) {
        let Some(file) = &r.vector else { continue };
        let Some(arch) = tensix_harness::vector::Arch::from_name(&r.arch) else {
            continue;
        };
        let drawn = Case::draw(jobs, args.seed, r.index, &[arch]).map(|c| c.vector("drawn"));
        let as_drawn = |v: &tensix_harness::vector::Vector| {
            drawn
                .as_ref()
                .is_some_and(|d| d.setup == v.setup && d.program == v.program)
        };
        if let Some(v) = tensix_harness::vector::Vector::load(store.dir.join(file))
            .ok()
            .filter(as_drawn)
        {
            r.explained = deviation::entries(&mut bench, &v, report::kind(&r.engine));
        }
    }
    let rep = report::build(&params, &records, &known, &command);
    for (file, body) in [
        ("report.md", rep.markdown.clone()),
        ("report.json", format!("{:#}\n", rep.json)),
    ] {
        if let Err(e) = tensix_harness::output::write_new(&store.dir.join(file), body, true) {
            return unusable(e);
        }
    }
    let compared = store
        .records
        .iter()
        .filter(|r| r.class == "agree" || r.class == "differ")
        .count();
    println!(
        "{} ({} records): {}; report in {}",
        params.jobs,
        store.records.len(),
        counts.summary(),
        store.dir.join("report.md").display()
    );
    for r in &rep.uncatalogued {
        println!(
            "NEW DIFFERENCE job {} on {} ({}): {}{}",
            r.index,
            r.engine,
            r.arch,
            r.reason.lines().next().unwrap_or(""),
            r.vector
                .as_ref()
                .map(|v| format!(" [{}]", store.dir.join(v).display()))
                .unwrap_or_default()
        );
    }
    if compared == 0 {
        println!("nothing was compared: no engine gave a result the emulator could be held to");
        return ExitCode::from(1);
    }
    if rep.uncatalogued.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Load a vector and run it with the emulator recording.
fn observed(
    path: &Path,
) -> Result<
    (
        tensix_harness::vector::Vector,
        tensix_harness::trace::Observed,
    ),
    String,
> {
    let v = tensix_harness::vector::Vector::load(path).map_err(|e| e.to_string())?;
    let o =
        tensix_harness::trace::Observed::run(&v).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((v, o))
}

fn trace(path: &Path, sel: tensix_harness::trace::Selection, format: Format) -> ExitCode {
    use tensix_harness::trace;
    print_observed(path, |v, o| match format {
        Format::Human => trace::human(v, o, sel),
        Format::Json => format!("{}\n", trace::json(v, o, sel)),
    })
}

fn explain(path: &Path, t: tensix_harness::explain::Target, format: Format) -> ExitCode {
    use tensix_harness::explain;
    print_observed(path, |v, o| match format {
        Format::Human => explain::human(v, o, t),
        Format::Json => format!("{}\n", explain::json(v, o, t)),
    })
}

/// Run the vector at `path` with the emulator recording and print what
/// `show` makes of it.
fn print_observed(
    path: &Path,
    show: impl FnOnce(&tensix_harness::vector::Vector, &tensix_harness::trace::Observed) -> String,
) -> ExitCode {
    match observed(path) {
        Ok((v, o)) => {
            out(&show(&v, &o));
            ExitCode::SUCCESS
        }
        Err(e) => unusable(e),
    }
}

fn new_vector(a: NewArgs) -> ExitCode {
    use tensix_harness::new::{self, Case, ExpectFrom};
    let arch = match a.arch {
        ArchArg::Blackhole => tensix_harness::vector::Arch::Blackhole,
        ArchArg::WormholeB0 => tensix_harness::vector::Arch::WormholeB0,
    };
    let number = |what: &str, s: &str| -> Result<u32, String> {
        tensix_harness::vector::parse_int(s)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| format!("--{what} `{}` is not a 32-bit number", s.trim()))
    };
    if let Err(e) = output::check_target(&a.out, a.force) {
        return unusable(format!("-o: {e}"));
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = format!("tensix-harness {}", args.join(" "));
    let made = (|| -> Result<(tensix_harness::vector::Vector, Option<String>), String> {
        let from = new::format(&a.from)?;
        let to = new::format(&a.to)?;
        let l1_addr = number("l1-addr", &a.l1_addr)?;
        let name = a.name.clone().unwrap_or_else(|| {
            a.out
                .file_stem()
                .map_or("new".into(), |s| s.to_string_lossy().into_owned())
        });
        let expect = match a.expect_from.as_deref() {
            None => ExpectFrom::Nothing,
            Some("golden") => ExpectFrom::Golden,
            Some("emulator") => ExpectFrom::Emulator,
            // An engine runs the vector below.
            Some(_) => ExpectFrom::Nothing,
        };
        let engine = a
            .expect_from
            .clone()
            .filter(|e| e != "golden" && e != "emulator");
        let data = match &a.data {
            Some(p) => {
                Some(tensix_harness::vector::read_bounded(p).map_err(|e| format!("--data: {e}"))?)
            }
            None => None,
        };
        let v = match a.kind {
            NewKind::Pack => {
                let mut c = new::pack_case(&new::PackChoices {
                    arch,
                    from,
                    to,
                    dst: match &a.dst {
                        Some(d) => Some(new::dst_format(d)?),
                        None => None,
                    },
                    faces: a.faces,
                    face_rows: a.face_rows,
                    relu: new::relu(&a.relu)?,
                    edge_mask: match &a.edge_mask {
                        Some(m) => Some(
                            u16::try_from(number("edge-mask", m)?)
                                .map_err(|_| "--edge-mask is 16 bits".to_string())?,
                        ),
                        None => None,
                    },
                    l1_acc: a.l1_acc,
                    l1_addr,
                    seed: a.seed,
                })?;
                if let Some(d) = &data {
                    let text = std::str::from_utf8(d)
                        .map_err(|_| "--data: a pack's data is text".to_string())?;
                    new::pack_data(&mut c, text).map_err(|e| format!("--data: {e}"))?;
                }
                new::vector(Case::Pack(&c), &name, &expect, &command)
            }
            NewKind::Unpack => {
                let mut c = new::unpack_case(&new::UnpackChoices {
                    arch,
                    from,
                    to,
                    target: match a.target {
                        UnpackTo::Srca => tensix_harness::golden::UnpackTarget::SrcA,
                        UnpackTo::Srcb => tensix_harness::golden::UnpackTarget::SrcB,
                        UnpackTo::Dst => tensix_harness::golden::UnpackTarget::Dst,
                    },
                    faces: a.faces,
                    face_rows: a.face_rows,
                    l1_addr,
                    seed: a.seed,
                })?;
                if let Some(d) = &data {
                    new::unpack_data(&mut c, d).map_err(|e| format!("--data: {e}"))?;
                }
                new::vector(Case::Unpack(&c), &name, &expect, &command)
            }
        };
        Ok((v, engine))
    })();
    let (v, engine) = match made {
        Ok(x) => x,
        Err(e) => return unusable(format!("new: {e}")),
    };
    let v = match engine {
        None => v,
        Some(spec) => {
            use tensix_harness::engine::{record, umd, Engine};
            let target = match umd::Target::parse(&spec) {
                Ok(t) => t,
                Err(e) => return unusable(format!("--expect-from: {e}")),
            };
            let mut eng = umd::UmdEngine::new(target, umd::RunnerCommand::from_env());
            let verdict = eng.run(&v);
            match record::recorded(&v, &eng.info(), &verdict, &record::today()) {
                Ok(mut r) => {
                    r.provenance.detail = format!("{}; made by {command}", r.provenance.detail);
                    r
                }
                Err(e) => {
                    eprintln!("tensix-harness: new: the engine gave no result: {e}");
                    return ExitCode::from(1);
                }
            }
        }
    };
    match output::write_new(&a.out, v.to_yaml(), a.force) {
        Ok(()) => {
            println!("wrote {}", a.out.display());
            ExitCode::SUCCESS
        }
        Err(e) => unusable(e),
    }
}
