//! `tensix-harness`: the conformance gate and tools around the emulator.

use clap::{Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
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
