//! `tensix-harness`: the conformance gate and tools around the emulator.

use clap::{Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tensix_harness::gate::{self, KnownFailures};
use tensix_harness::output;

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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run(args) => run(args),
        Command::Decode { arch, trisc, words } => decode(arch, trisc, &words),
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
    let bytes = match std::fs::read(artifact) {
        Ok(b) => b,
        Err(e) => return unusable(format!("{}: {e}", artifact.display())),
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

fn decode(arch: ArchArg, trisc: bool, words: &[String]) -> ExitCode {
    let arch = match arch {
        ArchArg::Blackhole => tensix_emu::Arch::Blackhole,
        ArchArg::WormholeB0 => tensix_emu::Arch::WormholeB0,
    };
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
    let known_path = known_failures.unwrap_or_else(|| root.join(gate::KNOWN_FAILURES));
    let known = match KnownFailures::load(&known_path) {
        Ok(k) => k,
        Err(e) => return unusable(e),
    };
    let mut files = match gate::collect(&paths) {
        Ok(f) => f,
        Err(e) => return unusable(e),
    };
    if let Some(f) = &filter {
        files.retain(|v| v.path.display().to_string().contains(f.as_str()));
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
