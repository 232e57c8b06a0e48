//! Conformance vectors: the `tensix-vector/1` YAML schema.
//!
//! A vector is one YAML file that describes a Tensix state to set up, the
//! programs the three Tensix threads run from it, and what must hold
//! afterwards. This module parses such a file into a [`Vector`], checks every
//! rule of the schema that does not need the emulator (field widths, L1 bounds
//! of the architecture, row shapes, ...) and writes a vector back in the house
//! style of the corpus ([`Vector::to_yaml`]).
//!
//! ```yaml
//! schema: tensix-vector/1
//! name: blackhole/pack/bf16-to-bfp8b/0001   # unique; defaults to the path
//! arch: blackhole                           # blackhole | wormhole_b0
//! provenance:
//!   source: ttsim                           # device | ttsim | wolfpine | isa-spec | derived | fuzz
//!   detail: "free text: tool, version, device, date, seed"
//! tags: [pack, bfp8_b]
//! setup:
//!   l1_fill: 0xee            # every L1 byte before setup.l1; default 0
//!   l1:                      # byte ranges; hex may span lines, whitespace ignored
//!     - addr: 0x10000
//!       hex: |
//!         8bc470c946b3413e
//!   config:                  # [addr32, value] (state 0) or [addr32, value, state]
//!     - [1, 0x0a000000]
//!   thread_config:           # [thread, reg, value16], as SETC16 would apply it
//!     - [2, 37, 0x0104]
//!   gprs: [[2, 4, 0x1234]]   # [thread, index, value]
//!   mop_config: [[2, [0, 0, 0, 0, 0, 0, 0, 0, 0]]]   # [thread, 9 words]
//!   dst: {mode: 16b, format: bf16, rows: [[0, [...16 cells...]]]}
//!   srca: [[0, 0, [...16 cells...]]]   # [bank, row, 16 cells of 19 bits]
//!   srcb: []
//! program:
//!   - thread: 2
//!     run:
//!       - 0x5e803c00            # a Tensix instruction word
//!       - 'SETADCXX x_end2=0xf cnt_set_mask=4'   # or its text form
//!       - {cfg: [69, 0x1fff]}   # a TRISC config store, once the queue drained
//!       - {gpr: [4, 0x10]}      # a TRISC GPR store, likewise
//! expect:                    # every field optional; absent = not checked
//!   fault: null              # or {kind: undefined_behavior}
//!   l1: []                   # exact bytes; every other byte keeps its setup value
//!   dst: {mode: 16b, format: bf16, rows: []}
//!   srca: []
//!   srcb: []
//!   adc: [{thread: 2, unit: pack, ch0: [0, 0, 0, 0], ch1: [0, 0, 0, 0]}]
//! ```
//!
//! Integers are written in decimal or `0x` hex; one too wide for its field is
//! an error, and so is a decimal with a leading zero (`017`, which YAML 1.1
//! readers take for octal). `hex` strings may be plain, quoted or block
//! scalars; whitespace in them is ignored.
//!
//! Beyond the field types, a vector must satisfy:
//! - every L1 range lies inside the architecture's L1, and the ranges of
//!   `setup.l1` (likewise `expect.l1`) do not overlap;
//! - a Dst row number and width fit the mode, and the format belongs to it;
//! - no thread has two programs or two MOP configs, no Dst row or
//!   (bank, row) of SrcA/SrcB is given twice, no (thread, unit) ADC twice;
//! - `name`, when given, is not empty.
//!
//! Optional fields: `name`, `tags`, `provenance.detail`, `setup` (and each of
//! its fields), `expect` (and each of its fields), `dst.rows`. The rest are
//! required. At most 24 levels of YAML nesting are accepted.
//!
//! # Errors
//!
//! Every error names the file, line, column and field path, e.g.
//! `conformance-vectors/x.yaml:12:7: setup.dst.rows[3]: expected 16 values, found 15`
//! (see [`VectorError`]). Structural errors (unknown, missing and duplicate
//! keys, wrong YAML types, unknown names) come from serde-saphyr with a line
//! and column; the field path is found by parsing the text again into a tree
//! that keeps every node's location and looking up the node at that position
//! (for YAML that does not parse at all, by following the indentation of the
//! keys above it). Every other check runs on values deserialized as
//! serde-saphyr `Spanned` nodes, so it knows both its field path and the
//! exact position of the value it rejects.
//!
//! This module deliberately uses plain types of its own rather than the
//! emulator's: the harness maps them onto `tensix-emu` elsewhere.

mod emit;
mod error;
mod locate;
mod parse;

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use tensix_emu::state::{dst, gpr, src};

pub use emit::Word;
pub use error::{ErrorKind, VectorError};

/// An integer as vectors and the command line write it: decimal, or hex
/// after `0x`.
pub fn parse_int(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// The file beside the vectors that lists those known not to pass yet; it
/// is not a vector.
pub const KNOWN_FAILURES: &str = "known-failures.yaml";

/// The value of the `schema` field this module reads and writes.
pub const SCHEMA: &str = "tensix-vector/1";

/// Number of cells in a Dst, SrcA or SrcB row.
pub const ROW_CELLS: usize = src::COLS;
/// Number of MOP configuration words per thread.
pub const MOP_CONFIG_WORDS: usize = 9;
/// Largest Tensix thread index (0 = unpack, 1 = math, 2 = pack).
pub const MAX_THREAD: u8 = 2;
/// Largest TRISC general-purpose register index.
pub const MAX_GPR_INDEX: u8 = (gpr::PER_THREAD - 1) as u8;
/// Largest SrcA/SrcB bank index.
pub const MAX_SRC_BANK: u8 = 1;
/// Largest SrcA/SrcB row index.
pub const MAX_SRC_ROW: u8 = (src::ROWS - 1) as u8;

/// One conformance vector: a whole `tensix-vector/1` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vector {
    /// Unique name of the vector. Defaults to the file's path without `.yaml`.
    pub name: String,
    pub arch: Arch,
    pub provenance: Provenance,
    pub tags: Vec<String>,
    pub setup: Setup,
    /// One entry per thread that runs; threads run together, one instruction
    /// per thread per step.
    pub program: Vec<ThreadProgram>,
    pub expect: Expect,
}

/// A Tensix architecture, as named in vectors (`blackhole`, `wormhole_b0`):
/// the emulator's own.
pub use tensix_emu::Arch;

/// Where a vector's expected results come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    pub source: Source,
    /// Free text: tool, version, device, date, seed. Empty when not given.
    pub detail: String,
}

/// The kind of oracle that produced a vector's expectations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
pub enum Source {
    /// Measured on silicon.
    #[serde(rename = "device")]
    Device,
    /// Computed by tenstorrent/ttsim.
    #[serde(rename = "ttsim")]
    Ttsim,
    /// Computed by the Wolfpine simulator (an extension of the schema's
    /// original five sources, for `tensix-harness record`).
    #[serde(rename = "wolfpine")]
    Wolfpine,
    /// Derived by hand from the ISA documentation.
    #[serde(rename = "isa-spec")]
    IsaSpec,
    /// Derived from other vectors.
    #[serde(rename = "derived")]
    Derived,
    /// Produced by a fuzzer.
    #[serde(rename = "fuzz")]
    Fuzz,
}

impl Source {
    pub const ALL: [Source; 6] = [
        Source::Device,
        Source::Ttsim,
        Source::Wolfpine,
        Source::IsaSpec,
        Source::Derived,
        Source::Fuzz,
    ];

    /// The name used in vectors.
    pub fn name(self) -> &'static str {
        match self {
            Source::Device => "device",
            Source::Ttsim => "ttsim",
            Source::Wolfpine => "wolfpine",
            Source::IsaSpec => "isa-spec",
            Source::Derived => "derived",
            Source::Fuzz => "fuzz",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The state a vector starts from. [`crate::run::prepare`] applies it in
/// this order: L1 fill, L1 ranges, Dst, SrcA, SrcB, config, thread config,
/// GPRs, MOP config.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Setup {
    /// Value of every L1 byte before `l1` is written (a canary).
    pub l1_fill: u8,
    /// Byte ranges written into L1. They do not overlap.
    pub l1: Vec<L1Range>,
    /// Config register writes, in order, as a TRISC store makes them.
    pub config: Vec<ConfigWrite>,
    /// Thread config writes, in order, as SETC16 would apply them.
    pub thread_config: Vec<ThreadConfigWrite>,
    /// TRISC GPR writes, in order.
    pub gprs: Vec<GprWrite>,
    /// MOP configuration, at most one per thread.
    pub mop_config: Vec<MopConfig>,
    /// Initial Dst rows; `None` leaves Dst as the emulator resets it.
    pub dst: Option<Dst>,
    /// Initial SrcA rows, each (bank, row) at most once.
    pub srca: Vec<SrcRow>,
    /// Initial SrcB rows, each (bank, row) at most once.
    pub srcb: Vec<SrcRow>,
}

/// Bytes at consecutive L1 addresses starting at `addr`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct L1Range {
    pub addr: u32,
    pub bytes: Vec<u8>,
}

impl L1Range {
    /// One past the last address, as a `u64` so that it cannot overflow.
    pub fn end(&self) -> u64 {
        u64::from(self.addr) + self.bytes.len() as u64
    }
}

/// A write of `value` to config register `addr` (a 32-bit word index) of
/// config state `state` (0 or 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfigWrite {
    pub addr: u32,
    pub value: u32,
    pub state: u8,
}

/// A 16-bit write to thread config register `reg` of `thread`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadConfigWrite {
    pub thread: u8,
    pub reg: u8,
    pub value: u16,
}

/// A write of `value` to GPR `index` (0..=63) of `thread`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GprWrite {
    pub thread: u8,
    pub index: u8,
    pub value: u32,
}

/// The nine MOP configuration words of `thread`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MopConfig {
    pub thread: u8,
    pub words: [u32; MOP_CONFIG_WORDS],
}

/// How Dst is viewed: 1024 rows of 16-bit cells or 512 rows of 32-bit cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
pub enum DstMode {
    #[serde(rename = "16b")]
    Bits16,
    #[serde(rename = "32b")]
    Bits32,
}

impl DstMode {
    /// The name used in vectors: `16b` or `32b`.
    pub fn name(self) -> &'static str {
        match self {
            DstMode::Bits16 => "16b",
            DstMode::Bits32 => "32b",
        }
    }

    /// Number of rows in this view.
    pub fn rows(self) -> u16 {
        match self {
            DstMode::Bits16 => dst::ROWS as u16,
            DstMode::Bits32 => dst::ROWS_32B as u16,
        }
    }

    /// Bits per cell.
    pub fn cell_bits(self) -> u32 {
        match self {
            DstMode::Bits16 => 16,
            DstMode::Bits32 => 32,
        }
    }

    /// The largest cell value.
    pub fn max_cell(self) -> u32 {
        match self {
            DstMode::Bits16 => 0xffff,
            DstMode::Bits32 => 0xffff_ffff,
        }
    }
}

impl fmt::Display for DstMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How Dst cells are interpreted. Each format belongs to one [`DstMode`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DstFormat {
    Bf16,
    Fp16,
    Raw16,
    Fp32,
    Int32,
    Raw32,
}

impl DstFormat {
    pub const ALL: [DstFormat; 6] = [
        DstFormat::Bf16,
        DstFormat::Fp16,
        DstFormat::Raw16,
        DstFormat::Fp32,
        DstFormat::Int32,
        DstFormat::Raw32,
    ];

    /// The name used in vectors.
    pub fn name(self) -> &'static str {
        match self {
            DstFormat::Bf16 => "bf16",
            DstFormat::Fp16 => "fp16",
            DstFormat::Raw16 => "raw16",
            DstFormat::Fp32 => "fp32",
            DstFormat::Int32 => "int32",
            DstFormat::Raw32 => "raw32",
        }
    }

    /// The Dst mode this format is used with.
    pub fn mode(self) -> DstMode {
        match self {
            DstFormat::Bf16 | DstFormat::Fp16 | DstFormat::Raw16 => DstMode::Bits16,
            DstFormat::Fp32 | DstFormat::Int32 | DstFormat::Raw32 => DstMode::Bits32,
        }
    }

    /// The emulator's view of `Dst` that reads and writes rows in this format.
    pub fn view(self) -> tensix_emu::state::dst::DstView {
        use tensix_emu::state::dst::DstView;
        match self {
            DstFormat::Bf16 => DstView::Bf16,
            DstFormat::Fp16 => DstView::Fp16,
            DstFormat::Raw16 => DstView::Raw16,
            DstFormat::Fp32 => DstView::Fp32,
            DstFormat::Int32 => DstView::Int32,
            DstFormat::Raw32 => DstView::Raw32,
        }
    }
}

impl fmt::Display for DstFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Dst contents: rows in the view given by the format's mode
/// (`mode: 16b` or `32b` in YAML, which must agree with the format).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dst {
    pub format: DstFormat,
    /// Rows, each row number at most once.
    pub rows: Vec<DstRow>,
}

impl Dst {
    /// The view of Dst these rows use.
    pub fn mode(&self) -> DstMode {
        self.format.mode()
    }
}

/// One Dst row: its number and 16 bit patterns (16 or 32 bits each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DstRow {
    pub row: u16,
    pub cells: [u32; ROW_CELLS],
}

/// One SrcA or SrcB row: bank (0..=1), row (0..=63) and 16 cells of 19 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SrcRow {
    pub bank: u8,
    pub row: u8,
    pub cells: [u32; ROW_CELLS],
}

/// The program of one Tensix thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadProgram {
    /// 0 = unpack, 1 = math, 2 = pack.
    pub thread: u8,
    pub run: Vec<Step>,
}

/// One entry of a thread's program: an instruction word, or a TRISC store
/// of a Config word or a GPR (the emulator's own type).
pub use tensix_emu::Step;

/// What must hold after the run. Every `None` field is not checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expect {
    /// `None`: the run must complete without a fault. `Some`: it must stop
    /// with a fault of this kind.
    pub fault: Option<ExpectedFault>,
    /// Exact bytes; every L1 byte not listed must still hold its setup value.
    /// `Some(vec![])` therefore means "L1 is unchanged".
    pub l1: Option<Vec<L1Range>>,
    pub dst: Option<Dst>,
    pub srca: Option<Vec<SrcRow>>,
    pub srcb: Option<Vec<SrcRow>>,
    /// ADC counters after the run.
    pub adc: Option<Vec<AdcExpect>>,
}

/// An expected fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpectedFault {
    pub kind: FaultKind,
}

/// The category of a fault, as named in `expect.fault.kind`: the
/// emulator's own fault kinds.
pub use tensix_emu::FaultKind;

/// Expected ADC counters of one unit of one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdcExpect {
    pub thread: u8,
    pub unit: AdcUnit,
    pub ch0: AdcChannel,
    pub ch1: AdcChannel,
}

/// Which set of ADCs: one per unpacker, one for the packers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdcUnit {
    Unpack0,
    Unpack1,
    Pack,
}

impl AdcUnit {
    pub const ALL: [AdcUnit; 3] = [AdcUnit::Unpack0, AdcUnit::Unpack1, AdcUnit::Pack];

    /// The name used in vectors.
    pub fn name(self) -> &'static str {
        match self {
            AdcUnit::Unpack0 => "unpack0",
            AdcUnit::Unpack1 => "unpack1",
            AdcUnit::Pack => "pack",
        }
    }
}

impl fmt::Display for AdcUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The four counters of one ADC channel, written `[x, y, z, w]`; their
/// widths are those of the hardware (`ADCs.md`): X 18 bits, Y 13, Z and W 8
/// on Wormhole B0 and 13 on Blackhole.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AdcChannel {
    pub x: u32,
    pub y: u32,
    pub z: u32,
    pub w: u32,
}

impl AdcChannel {
    /// Largest X counter value (18 bits).
    pub const MAX_X: u32 = 0x3_ffff;
    /// Largest Y counter value (13 bits).
    pub const MAX_Y: u32 = 0x1fff;

    /// Bits of the Z and W counters on `arch` (`ADCs.md`).
    pub fn zw_bits(arch: Arch) -> u32 {
        tensix_emu::adc::Dim::Z.width(arch)
    }
}

impl Vector {
    /// Parses and validates one vector. `path` is used in error messages and,
    /// when the vector has no `name`, as its name (without `.yaml`).
    pub fn from_yaml_str(text: &str, path: impl AsRef<Path>) -> Result<Vector, VectorError> {
        let path = path.as_ref();
        parse::parse(text, &display_path(path), &default_name(path)).map(|p| p.vector)
    }

    /// Like [`Vector::from_yaml_str`], for bytes that may not be UTF-8.
    pub fn from_yaml_bytes(bytes: &[u8], path: impl AsRef<Path>) -> Result<Vector, VectorError> {
        let path = path.as_ref();
        let text = parse::decode(bytes, &display_path(path))?;
        Vector::from_yaml_str(text, path)
    }

    /// Reads and parses the vector at `path`; its name defaults to `path`
    /// without `.yaml`.
    pub fn load(path: impl AsRef<Path>) -> Result<Vector, VectorError> {
        let path = path.as_ref();
        let bytes = read(path)?;
        Vector::from_yaml_bytes(&bytes, path)
    }

    /// Load `file`, found below the vector directory `root`: an absent
    /// `name` defaults to the path relative to `root`, as [`load_dir`] names
    /// it.
    pub fn load_under(root: &Path, file: &Path) -> Result<Vector, VectorError> {
        parse_under(root, file).map(|p| p.vector)
    }

    /// Like [`Vector::load_under`], with the line and column of the
    /// `name` field (1, 1 when the name is the default).
    pub fn load_under_located(
        root: &Path,
        file: &Path,
    ) -> Result<(Vector, (usize, usize)), VectorError> {
        parse_under(root, file).map(|p| (p.vector, p.name_at.unwrap_or((1, 1))))
    }

    /// Writes the vector in the corpus's house style: hex for words, cells
    /// and addresses, `hex: |` blocks of 32 digits per line for L1 bytes and
    /// one flow sequence per row. Parsing the result gives back `self`.
    pub fn to_yaml(&self) -> String {
        emit::to_yaml(self)
    }

    /// [`Vector::to_yaml`] with `comment(word)` after each Config,
    /// ThreadConfig and instruction word where it is not empty.
    pub fn to_yaml_commented(&self, comment: &dyn Fn(Word) -> String) -> String {
        emit::to_yaml_commented(self, comment)
    }
}

/// Loads every `*.yaml` file below `root` (recursively, in path order).
///
/// A vector without a `name` is named by its path relative to `root`,
/// without `.yaml`. Returns every error found: one per file that does not
/// parse, and one per name that an earlier file already uses.
pub fn load_dir(root: impl AsRef<Path>) -> Result<Vec<Vector>, Vec<VectorError>> {
    let root = root.as_ref();
    let mut files = Vec::new();
    let mut errors = Vec::new();
    collect_yaml_files(root, &mut files, &mut errors);
    files.sort();

    let mut vectors = Vec::new();
    let mut seen: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for file in files {
        let shown = display_path(&file);
        match parse_under(root, &file) {
            Ok(p) => {
                if let Some(first) = seen.get(&p.vector.name) {
                    let (line, column) = p.name_at.unwrap_or((1, 1));
                    errors.push(VectorError {
                        file: shown,
                        line,
                        column,
                        field: "name".into(),
                        kind: ErrorKind::Conflict,
                        message: format!("name `{}` is already used by {first}", p.vector.name),
                    });
                } else {
                    seen.insert(p.vector.name.clone(), shown);
                    vectors.push(p.vector);
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(vectors)
    } else {
        Err(errors)
    }
}

/// Every vector file below `root`: `*.yaml` except [`KNOWN_FAILURES`],
/// sorted. The first directory that cannot be read is the error.
pub fn yaml_files(root: &Path) -> Result<Vec<PathBuf>, VectorError> {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    collect_yaml_files(root, &mut files, &mut errors);
    match errors.into_iter().next() {
        Some(e) => Err(e),
        None => {
            files.sort();
            Ok(files)
        }
    }
}

/// Parse `file`, found below `root`; an absent `name` defaults to the path
/// relative to `root`.
fn parse_under(root: &Path, file: &Path) -> Result<parse::Parsed, VectorError> {
    let shown = display_path(file);
    let rel = file.strip_prefix(root).unwrap_or(file);
    let bytes = read(file)?;
    let text = parse::decode(&bytes, &shown)?;
    parse::parse(text, &shown, &default_name(rel))
}

/// The largest vector file read, in bytes.
pub const MAX_VECTOR_BYTES: u64 = 16 << 20;

/// Whether `path` names a vector file: `*.yaml` or `*.yml` in any case,
/// except the known-failures list.
pub fn is_vector_file_name(path: &Path) -> bool {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    matches!(ext.as_deref(), Some("yaml" | "yml"))
        && path.file_name().is_some_and(|n| n != KNOWN_FAILURES)
}

fn collect_yaml_files(dir: &Path, files: &mut Vec<PathBuf>, errors: &mut Vec<VectorError>) {
    let mut seen = std::collections::HashMap::new();
    walk(dir, &mut seen, files, errors);
}

/// Walk `dir`, entering each real directory once: a directory reached
/// again (through a link back to itself or an ancestor) is a cycle, reported
/// once and not entered.
fn walk(
    dir: &Path,
    seen: &mut std::collections::HashMap<PathBuf, PathBuf>,
    files: &mut Vec<PathBuf>,
    errors: &mut Vec<VectorError>,
) {
    match std::fs::canonicalize(dir) {
        Ok(real) => {
            if let Some(first) = seen.get(&real) {
                errors.push(VectorError::unreadable(
                    &display_path(dir),
                    format!(
                        "is {} again, reached through a link (a directory cycle, or two links to \
                         one place); not entered twice",
                        display_path(first)
                    ),
                ));
                return;
            }
            seen.insert(real, dir.to_path_buf());
        }
        Err(e) => {
            errors.push(VectorError::io(&display_path(dir), &e));
            return;
        }
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            errors.push(VectorError::io(&display_path(dir), &e));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => paths.push(entry.path()),
            Err(e) => errors.push(VectorError::io(&display_path(dir), &e)),
        }
    }
    paths.sort();
    for path in paths {
        if path.is_dir() {
            walk(&path, seen, files, errors);
        } else if is_vector_file_name(&path) {
            files.push(path);
        }
    }
}

/// Read a vector file: a regular file (after links) of at most
/// [`MAX_VECTOR_BYTES`]. Devices, FIFOs and sockets are refused before they
/// are opened, so none of them can hang or flood the reader.
pub fn read_bounded(path: &Path) -> Result<Vec<u8>, VectorError> {
    use std::io::Read;
    let shown = display_path(path);
    let meta = std::fs::metadata(path).map_err(|e| VectorError::io(&shown, &e))?;
    if !meta.is_file() {
        return Err(VectorError::unreadable(
            &shown,
            "is not a regular file (a directory, device, FIFO or socket); vectors are read only \
             from regular files"
                .into(),
        ));
    }
    if meta.len() > MAX_VECTOR_BYTES {
        return Err(VectorError::unreadable(
            &shown,
            format!(
                "is {} bytes; a vector file is at most {MAX_VECTOR_BYTES}",
                meta.len()
            ),
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| VectorError::io(&shown, &e))?;
    let mut bytes = Vec::new();
    file.take(MAX_VECTOR_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| VectorError::io(&shown, &e))?;
    if bytes.len() as u64 > MAX_VECTOR_BYTES {
        return Err(VectorError::unreadable(
            &shown,
            format!("grew past {MAX_VECTOR_BYTES} bytes while being read"),
        ));
    }
    Ok(bytes)
}

fn read(path: &Path) -> Result<Vec<u8>, VectorError> {
    read_bounded(path)
}

/// The path as shown in messages, with `/` separators.
fn display_path(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// The default vector name for a file: its path without `.yaml`/`.yml`.
pub fn default_name(path: &Path) -> String {
    let shown = display_path(path);
    let shown = shown.strip_prefix("./").unwrap_or(&shown);
    shown
        .strip_suffix(".yaml")
        .or_else(|| shown.strip_suffix(".yml"))
        .unwrap_or(shown)
        .to_string()
}
