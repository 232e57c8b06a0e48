//! YAML → [`Vector`].
//!
//! Parsing happens in two layers:
//!
//! 1. serde-saphyr deserializes the text into the private `Raw*` structs
//!    below. Mappings are serde-derived structs with `deny_unknown_fields`,
//!    so unknown, missing and duplicate keys and wrong container types are
//!    caught here; the named values (`arch`, `source`, `unit`, ...) are serde
//!    enums. serde-saphyr reports where it failed; [`super::locate`] turns
//!    that location into a field path.
//! 2. Everything positional or numeric (tuples such as `[addr, value]`, rows,
//!    integers, program steps) is deserialized as a [`Spanned`] [`Node`], a
//!    small YAML value tree that keeps every node's location, and is then
//!    checked here by hand: widths, ranges, lengths, L1 bounds, duplicates.
//!    Each check knows the field path it is at and the node's line/column.

use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_saphyr::{Location, Spanned};
use tensix_emu::adc::Dim;
use tensix_emu::state::src;

use super::{
    locate, AdcChannel, AdcExpect, AdcUnit, Arch, ConfigWrite, Dst, DstFormat, DstMode, DstRow,
    ErrorKind, Expect, ExpectedFault, FaultKind, GprWrite, L1Range, MopConfig, Provenance, Setup,
    Source, SrcRow, Step, ThreadConfigWrite, ThreadProgram, Vector, VectorError, MAX_GPR_INDEX,
    MAX_SRC_BANK, MAX_SRC_ROW, MAX_THREAD, MOP_CONFIG_WORDS, ROW_CELLS, SCHEMA,
};

type S<T> = Spanned<T>;

/// A parsed vector and where its `name` was written, if it was.
pub(crate) struct Parsed {
    pub vector: Vector,
    pub name_at: Option<(usize, usize)>,
}

/// Deepest nesting of YAML collections a vector may use. The schema needs 6
/// (`program[i].run[k].cfg[j]`); the limit keeps the recursive descent of a
/// hostile document well inside a test thread's 2 MiB stack, even unoptimized.
pub(crate) const MAX_DEPTH: usize = 24;

/// The serde-saphyr options every parse uses.
pub(crate) fn options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! { max_depth: MAX_DEPTH },
        with_snippet: false,
        emit_comments: false,
        // `.inf` where an integer belongs becomes a string we can name in
        // our own message instead of a parser error.
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::AsString,
    }
}

/// Checks that `bytes` are UTF-8, naming the first bad byte's position.
pub(crate) fn decode<'a>(bytes: &'a [u8], file: &str) -> Result<&'a str, VectorError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let good = bytes.get(..e.valid_up_to()).unwrap_or_default();
        let prefix = std::str::from_utf8(good).unwrap_or_default();
        let (line, column) = line_col(prefix, prefix.len());
        let byte = bytes.get(e.valid_up_to()).copied().unwrap_or_default();
        VectorError {
            file: file.to_string(),
            line,
            column,
            field: String::new(),
            kind: ErrorKind::Encoding,
            message: format!("the file is not UTF-8: invalid byte 0x{byte:02x}"),
        }
    })
}

/// True when `text` holds no YAML content: only whitespace, comments,
/// document markers or a byte order mark.
fn is_blank(text: &str) -> bool {
    text.lines().all(|l| {
        let l = l.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        l.is_empty() || l.starts_with('#') || l == "---" || l == "..."
    })
}

/// Parses and validates `text`.
pub(crate) fn parse(text: &str, file: &str, default_name: &str) -> Result<Parsed, VectorError> {
    let cx = Ctx { text, file };
    if is_blank(text) {
        return Err(cx.err_at(
            1,
            1,
            "",
            ErrorKind::Syntax,
            format!("the file is empty; expected a `{SCHEMA}` mapping"),
        ));
    }
    match serde_saphyr::from_str_with_options::<RawVector>(text, options()) {
        Ok(raw) => cx.vector(raw, default_name),
        Err(e) => {
            // A vector of another schema version fails for reasons that are
            // beside the point; say that its schema is the problem.
            if let Some(schema_error) = cx.probe_schema() {
                return Err(schema_error);
            }
            Err(locate::from_saphyr(text, file, &e))
        }
    }
}

// ---------------------------------------------------------------------------
// Layer 1: the serde view of the document.

/// `arch` as serde reads it (so a wrong name is reported at the value).
#[derive(Clone, Copy, Deserialize)]
enum RawArch {
    #[serde(rename = "blackhole")]
    Blackhole,
    #[serde(rename = "wormhole_b0")]
    WormholeB0,
}

impl From<RawArch> for Arch {
    fn from(a: RawArch) -> Arch {
        match a {
            RawArch::Blackhole => Arch::Blackhole,
            RawArch::WormholeB0 => Arch::WormholeB0,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVector {
    schema: S<Node>,
    name: Option<S<String>>,
    arch: RawArch,
    provenance: RawProvenance,
    tags: Option<Vec<String>>,
    setup: Option<RawSetup>,
    program: Vec<RawThread>,
    expect: Option<RawExpect>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProvenance {
    source: Source,
    detail: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSetup {
    l1_fill: Option<S<Node>>,
    l1: Option<Vec<RawL1>>,
    config: Option<Vec<S<Node>>>,
    thread_config: Option<Vec<S<Node>>>,
    gprs: Option<Vec<S<Node>>>,
    mop_config: Option<Vec<S<Node>>>,
    dst: Option<RawDst>,
    srca: Option<Vec<S<Node>>>,
    srcb: Option<Vec<S<Node>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawL1 {
    addr: S<Node>,
    hex: S<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDst {
    mode: S<DstMode>,
    format: S<DstFormat>,
    rows: Option<Vec<S<Node>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawThread {
    thread: S<Node>,
    run: Vec<S<Node>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpect {
    fault: Option<RawFault>,
    l1: Option<Vec<RawL1>>,
    dst: Option<RawDst>,
    srca: Option<Vec<S<Node>>>,
    srcb: Option<Vec<S<Node>>>,
    adc: Option<Vec<RawAdc>>,
}

/// `expect.fault.kind` as serde reads it (so a wrong name is reported at
/// the value itself); mapped onto the emulator's [`FaultKind`].
#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum RawFaultKind {
    UndefinedBehavior,
    UnpredictableValue,
    Unsupported,
    Unimplemented,
    InvalidInstruction,
    Deadlock,
    ResourceLimit,
}

impl From<RawFaultKind> for FaultKind {
    fn from(k: RawFaultKind) -> FaultKind {
        match k {
            RawFaultKind::UndefinedBehavior => FaultKind::UndefinedBehavior,
            RawFaultKind::UnpredictableValue => FaultKind::UnpredictableValue,
            RawFaultKind::Unsupported => FaultKind::Unsupported,
            RawFaultKind::Unimplemented => FaultKind::Unimplemented,
            RawFaultKind::InvalidInstruction => FaultKind::InvalidInstruction,
            RawFaultKind::Deadlock => FaultKind::Deadlock,
            RawFaultKind::ResourceLimit => FaultKind::ResourceLimit,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFault {
    kind: RawFaultKind,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAdc {
    thread: S<Node>,
    unit: AdcUnit,
    ch0: S<Node>,
    ch1: S<Node>,
}

/// Only the schema, for reporting a wrong schema ahead of other errors.
#[derive(Deserialize)]
struct SchemaProbe {
    schema: Option<S<Node>>,
}

/// Any YAML value, with the location of every node below it.
pub(crate) enum Node {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Bytes,
    Seq(Vec<S<Node>>),
    Map(Vec<(S<Node>, S<Node>)>),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Int(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Int(v.into()))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Node, E> {
        Ok(Node::Int(v))
    }
    fn visit_u128<E>(self, v: u128) -> Result<Node, E> {
        // Beyond i128 is beyond every field anyway.
        Ok(Node::Int(i128::try_from(v).unwrap_or(i128::MAX)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<Node, E> {
        Ok(Node::Bytes)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key()? {
            let value = map.next_value()?;
            entries.push((key, value));
        }
        Ok(Node::Map(entries))
    }
}

// ---------------------------------------------------------------------------
// Positions.

/// 1-based (line, column) of a serde-saphyr location; (1, 1) when unknown.
pub(crate) fn pos(at: &Location) -> (usize, usize) {
    let line = usize::try_from(at.line()).unwrap_or(usize::MAX);
    let column = usize::try_from(at.column()).unwrap_or(usize::MAX);
    if line == 0 {
        (1, 1)
    } else {
        (line, column.max(1))
    }
}

/// 1-based (line, column) of byte offset `offset` in `text`, counted like
/// serde-saphyr: columns in characters, and `\n`, `\r\n` or a lone `\r`
/// ending a line.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let (mut line, mut column) = (1, 1);
    let mut chars = before.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => (line, column) = (line + 1, 1),
            '\r' => {
                chars.next_if_eq(&'\n');
                (line, column) = (line + 1, 1);
            }
            _ => column += 1,
        }
    }
    (line, column)
}

fn byte_offset(at: &Location) -> Option<usize> {
    usize::try_from(at.span().byte_offset()?).ok()
}

/// The source text of the node at `at`, when serde-saphyr gave its byte span.
pub(crate) fn source_text<'a>(text: &'a str, at: &Location) -> Option<&'a str> {
    let start = byte_offset(at)?;
    let len = usize::try_from(at.span().byte_len()?).ok()?;
    text.get(start..start.checked_add(len)?)
}

// ---------------------------------------------------------------------------
// Layer 2: checks, with field paths.

struct Ctx<'a> {
    text: &'a str,
    file: &'a str,
}

type Checked<T> = Result<T, VectorError>;

/// How a YAML integer's source text looks, for messages about non-integers.
enum IntShape {
    /// Decimal with a leading zero, e.g. `017`: octal to YAML 1.1 readers.
    LeadingZero,
    /// An integer literal too large for any field.
    Huge,
    NotAnInteger,
}

fn int_shape(raw: &str) -> IntShape {
    let digits = raw.trim_start_matches(['+', '-']);
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        if !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit() || c == '_') {
            return IntShape::Huge;
        }
        return IntShape::NotAnInteger;
    }
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit() || c == '_') {
        IntShape::NotAnInteger
    } else if digits.len() > 1 && digits.starts_with('0') {
        IntShape::LeadingZero
    } else {
        IntShape::Huge
    }
}

impl<'a> Ctx<'a> {
    fn err(&self, at: &Location, field: &str, kind: ErrorKind, message: String) -> VectorError {
        let (line, column) = pos(at);
        self.err_at(line, column, field, kind, message)
    }

    fn err_at(
        &self,
        line: usize,
        column: usize,
        field: &str,
        kind: ErrorKind,
        message: String,
    ) -> VectorError {
        VectorError {
            file: self.file.to_string(),
            line,
            column,
            field: field.to_string(),
            kind,
            message,
        }
    }

    /// The source text of a node, when serde-saphyr gave its byte span.
    fn raw(&self, at: &Location) -> Option<&'a str> {
        source_text(self.text, at)
    }

    /// A node as a message names it: its source text for scalars.
    fn shown(&self, n: &S<Node>) -> String {
        let raw = self
            .raw(&n.referenced)
            .map(str::trim)
            .filter(|r| !r.is_empty());
        let shown = match (&n.value, raw) {
            (Node::Null, _) => "null".to_string(),
            (Node::Bool(b), _) => format!("boolean `{b}`"),
            (Node::Int(_) | Node::Float(_), Some(raw)) => format!("`{raw}`"),
            (Node::Int(v), None) => format!("`{v}`"),
            (Node::Float(v), None) => format!("`{v}`"),
            (Node::Str(s), _) => format!("string {:?}", truncate(s)),
            (Node::Bytes, _) => "binary data".to_string(),
            (Node::Seq(items), _) => format!("a sequence of {}", count(items.len(), "value")),
            (Node::Map(_), _) => "a mapping".to_string(),
        };
        truncate(&shown)
    }

    /// An integer as written, for range messages (its value when it was
    /// not written as a literal, e.g. through an alias).
    fn int_text(&self, n: &S<Node>, v: i128) -> String {
        match self.raw(&n.referenced).map(str::trim) {
            Some(raw) if !matches!(int_shape(raw), IntShape::NotAnInteger) => truncate(raw),
            _ => v.to_string(),
        }
    }

    /// A key or name as messages quote it: `` `text` `` for strings.
    fn name_of(&self, n: &S<Node>) -> String {
        match &n.value {
            Node::Str(s) => format!("`{}`", truncate(s)),
            _ => self.shown(n),
        }
    }

    fn schema(&self, n: &S<Node>) -> Checked<()> {
        match &n.value {
            Node::Str(s) if s == SCHEMA => Ok(()),
            _ => Err(self.err(
                &n.referenced,
                "schema",
                ErrorKind::Schema,
                format!(
                    "unsupported schema {}; this harness reads `{SCHEMA}`",
                    self.name_of(n)
                ),
            )),
        }
    }

    /// After a failed parse: `Some` error when the document is a mapping
    /// whose schema is missing or wrong.
    fn probe_schema(&self) -> Option<VectorError> {
        let probe: SchemaProbe = serde_saphyr::from_str_with_options(self.text, options()).ok()?;
        match probe.schema {
            Some(n) => self.schema(&n).err(),
            None => Some(self.err_at(
                1,
                1,
                "",
                ErrorKind::Schema,
                format!("missing `schema: {SCHEMA}`"),
            )),
        }
    }

    /// An integer node, checked only for being a non-negative integer.
    fn uint(&self, n: &S<Node>, field: &str, what: &str) -> Checked<(u64, String)> {
        let v = match &n.value {
            Node::Int(v) => *v,
            Node::Str(_) | Node::Float(_) => {
                let raw = self.raw(&n.referenced).unwrap_or_default().trim();
                let (kind, message) = match int_shape(raw) {
                    IntShape::LeadingZero => (
                        ErrorKind::InvalidValue,
                        format!(
                            "{what} `{raw}` has a leading zero, which YAML 1.1 readers take \
                             for octal; write it without the zero or in 0x hex"
                        ),
                    ),
                    IntShape::Huge => (
                        ErrorKind::OutOfRange,
                        format!("{what} `{raw}` is far too large"),
                    ),
                    IntShape::NotAnInteger => (
                        ErrorKind::WrongType,
                        format!("expected an integer for {what}, found {}", self.shown(n)),
                    ),
                };
                return Err(self.err(&n.referenced, field, kind, message));
            }
            _ => {
                return Err(self.err(
                    &n.referenced,
                    field,
                    ErrorKind::WrongType,
                    format!("expected an integer for {what}, found {}", self.shown(n)),
                ))
            }
        };
        let text = self.int_text(n, v);
        match u64::try_from(v) {
            Ok(v) => Ok((v, text)),
            Err(_) if v < 0 => Err(self.err(
                &n.referenced,
                field,
                ErrorKind::OutOfRange,
                format!("{what} must not be negative, found {text}"),
            )),
            Err(_) => Err(self.err(
                &n.referenced,
                field,
                ErrorKind::OutOfRange,
                format!("{what} {text} is far too large"),
            )),
        }
    }

    /// An integer of at most `bits` bits.
    fn bits(&self, n: &S<Node>, field: &str, what: &str, bits: u32) -> Checked<u64> {
        let (v, text) = self.uint(n, field, what)?;
        if bits >= 64 || v >> bits == 0 {
            Ok(v)
        } else {
            Err(self.err(
                &n.referenced,
                field,
                ErrorKind::OutOfRange,
                format!("{what} is {text}, which does not fit in {bits} bits"),
            ))
        }
    }

    /// An integer in `0..=max`.
    fn index(&self, n: &S<Node>, field: &str, what: &str, max: u64) -> Checked<u64> {
        self.index_in(n, field, what, max, "")
    }

    /// An integer in `0..=max`; `context` follows the range in messages.
    fn index_in(
        &self,
        n: &S<Node>,
        field: &str,
        what: &str,
        max: u64,
        context: &str,
    ) -> Checked<u64> {
        let (v, text) = self.uint(n, field, what)?;
        if v <= max {
            Ok(v)
        } else {
            Err(self.err(
                &n.referenced,
                field,
                ErrorKind::OutOfRange,
                format!("{what} must be 0..={max}{context}, found {text}"),
            ))
        }
    }

    fn thread(&self, n: &S<Node>, field: &str) -> Checked<u8> {
        Ok(self.index(n, field, "thread", MAX_THREAD.into())? as u8)
    }

    /// Named register fields (`{THCON_SEC0_REG1_Out_data_format: 0x6}`,
    /// `cfg_defines.h` names) given as one mapping, all in one 32-bit word
    /// (for ThreadConfig, in the 16 bits a write sets); `other` names the
    /// one key beside them that is not a field name, if any.
    fn named_word(
        &self,
        n: &S<Node>,
        field: &str,
        arch: Arch,
        regs: Regs,
        other: Option<&str>,
    ) -> Checked<NamedWord> {
        let Node::Map(entries) = &n.value else {
            return Err(self.err(
                &n.referenced,
                field,
                ErrorKind::WrongType,
                format!("a mapping of register fields, found {}", self.shown(n)),
            ));
        };
        let mut word: Option<(NamedWord, String)> = None;
        for (k, v) in entries {
            if other.is_some_and(|o| is_key(k, o)) {
                continue;
            }
            let Node::Str(name) = &k.value else {
                return Err(self.err(
                    &k.referenced,
                    field,
                    ErrorKind::WrongType,
                    format!("a register field name, found {}", self.shown(k)),
                ));
            };
            let (found, kind) = match regs {
                Regs::Config => (
                    tensix_emu::regs::CfgField::from_name(name).map(|f| f.on(arch)),
                    "Config",
                ),
                Regs::ThreadConfig => (
                    tensix_emu::regs::ThreadCfgField::from_name(name).map(|f| f.on(arch)),
                    "ThreadConfig",
                ),
            };
            let rf = match found {
                Some(Some(rf)) => rf,
                Some(None) => {
                    return Err(self.err(
                        &k.referenced,
                        field,
                        ErrorKind::InvalidValue,
                        format!("{kind} field `{name}` does not exist on {arch}"),
                    ))
                }
                None => {
                    return Err(self.err(
                        &k.referenced,
                        field,
                        ErrorKind::UnknownField,
                        format!(
                            "unknown {kind} field `{name}` (fields go by their cfg_defines.h \
                             names; docs/registers.md lists them)"
                        ),
                    ))
                }
            };
            if regs == Regs::ThreadConfig && u32::from(rf.shift) + u32::from(rf.width) > 16 {
                return Err(self.err(
                    &k.referenced,
                    field,
                    ErrorKind::InvalidValue,
                    format!(
                        "ThreadConfig field `{name}` lies in bits {}..{} of its register; a \
                         thread_config write sets bits 0..16",
                        rf.shift,
                        u32::from(rf.shift) + u32::from(rf.width)
                    ),
                ));
            }
            let value = self.bits(v, field, name, u32::from(rf.width))? as u32;
            let this = NamedWord {
                addr: u32::from(rf.addr32),
                mask: rf.mask(),
                bits: rf.insert(0, value),
            };
            word = match word {
                None => Some((this, name.clone())),
                Some((w, first)) if w.addr == this.addr => Some((
                    NamedWord {
                        addr: w.addr,
                        mask: w.mask | this.mask,
                        bits: w.bits | this.bits,
                    },
                    first,
                )),
                Some((w, first)) => {
                    return Err(self.err(
                        &k.referenced,
                        field,
                        ErrorKind::Conflict,
                        format!(
                            "`{first}` is in word {} and `{name}` in word {}: one entry names \
                             fields of one word",
                            w.addr, this.addr
                        ),
                    ))
                }
            };
        }
        match word {
            Some((w, _)) => Ok(w),
            None => Err(self.err(
                &n.referenced,
                field,
                ErrorKind::MissingField,
                "no register field named".into(),
            )),
        }
    }

    /// A sequence of one of the lengths in `lens`, described as `shape`.
    fn tuple<'n>(
        &self,
        n: &'n S<Node>,
        field: &str,
        shape: &str,
        lens: &[usize],
    ) -> Checked<&'n [S<Node>]> {
        match &n.value {
            Node::Seq(items) if lens.contains(&items.len()) => Ok(items),
            Node::Seq(items) => Err(self.err(
                &n.referenced,
                field,
                ErrorKind::WrongLength,
                format!("expected {shape}, found {}", count(items.len(), "value")),
            )),
            _ => Err(self.err(
                &n.referenced,
                field,
                ErrorKind::WrongType,
                format!("expected {shape}, found {}", self.shown(n)),
            )),
        }
    }

    /// The 16 cells of a row, each of at most `bits` bits.
    fn cells(&self, n: &S<Node>, field: &str, bits: u32) -> Checked<[u32; ROW_CELLS]> {
        self.array(n, field, ("cells", "values", "cell"), bits)
    }

    /// Exactly `N` integers of at most `bits` bits. The three names are what
    /// messages call the items when the node is not a sequence, when it has
    /// the wrong length, and one item (followed by its index).
    fn array<const N: usize>(
        &self,
        n: &S<Node>,
        field: &str,
        (items_name, length_name, item_name): (&str, &str, &str),
        bits: u32,
    ) -> Checked<[u32; N]> {
        let items = match &n.value {
            Node::Seq(items) if items.len() == N => items,
            Node::Seq(items) => {
                return Err(self.err(
                    &n.referenced,
                    field,
                    ErrorKind::WrongLength,
                    format!("expected {N} {length_name}, found {}", items.len()),
                ))
            }
            _ => {
                return Err(self.err(
                    &n.referenced,
                    field,
                    ErrorKind::WrongType,
                    format!(
                        "expected a sequence of {N} {items_name}, found {}",
                        self.shown(n)
                    ),
                ))
            }
        };
        let mut out = [0; N];
        for (i, (value, item)) in out.iter_mut().zip(items).enumerate() {
            *value = self.bits(item, field, &format!("{item_name} {i}"), bits)? as u32;
        }
        Ok(out)
    }

    /// Decodes a `hex` string; whitespace is ignored.
    fn hex(&self, h: &S<String>, field: &str) -> Checked<Vec<u8>> {
        let mut nibbles = Vec::with_capacity(h.value.len());
        for (k, c) in h.value.chars().filter(|c| !c.is_whitespace()).enumerate() {
            match c.to_digit(16) {
                Some(d) => nibbles.push(d as u8),
                None => {
                    let (line, column) = self
                        .digit_position(&h.referenced, k, c)
                        .unwrap_or_else(|| pos(&h.referenced));
                    return Err(self.err_at(
                        line,
                        column,
                        field,
                        ErrorKind::InvalidHex,
                        format!("invalid hex digit {c:?} (digit {k})"),
                    ));
                }
            }
        }
        if nibbles.len() % 2 != 0 {
            return Err(self.err(
                &h.referenced,
                field,
                ErrorKind::InvalidHex,
                format!(
                    "odd number of hex digits ({}); every byte takes two",
                    nibbles.len()
                ),
            ));
        }
        Ok(nibbles.chunks(2).map(|p| (p[0] << 4) | p[1]).collect())
    }

    /// Where the `k`-th non-whitespace character (`c`) of a string scalar
    /// is in the source, if the scalar's text maps onto it one to one.
    fn digit_position(&self, at: &Location, k: usize, c: char) -> Option<(usize, usize)> {
        let start = byte_offset(at)?;
        let rest = self.text.get(start..)?;
        let mut chars = rest.char_indices().peekable();
        if let Some((_, '"' | '\'')) = chars.peek() {
            chars.next();
        }
        let (i, found) = chars.filter(|(_, ch)| !ch.is_whitespace()).nth(k)?;
        (found == c).then(|| line_col(self.text, start + i))
    }

    fn vector(&self, raw: RawVector, default_name: &str) -> Checked<Parsed> {
        self.schema(&raw.schema)?;
        let (name, name_at) = match raw.name {
            Some(n) if n.value.is_empty() => {
                return Err(self.err(
                    &n.referenced,
                    "name",
                    ErrorKind::InvalidValue,
                    "name must not be empty".to_string(),
                ))
            }
            Some(n) => {
                let at = pos(&n.referenced);
                (n.value, Some(at))
            }
            None => (default_name.to_string(), None),
        };
        let arch: Arch = raw.arch.into();
        let setup = match &raw.setup {
            Some(s) => self.setup(s, arch)?,
            None => Setup::default(),
        };
        let program = self.program(&raw.program, arch)?;
        let expect = match &raw.expect {
            Some(e) => self.expect(e, arch)?,
            None => Expect::default(),
        };
        Ok(Parsed {
            vector: Vector {
                name,
                arch,
                provenance: Provenance {
                    source: raw.provenance.source,
                    detail: raw.provenance.detail.unwrap_or_default(),
                },
                tags: raw.tags.unwrap_or_default(),
                setup,
                program,
                expect,
            },
            name_at,
        })
    }

    fn setup(&self, s: &RawSetup, arch: Arch) -> Checked<Setup> {
        let l1_fill = match &s.l1_fill {
            Some(n) => self.bits(n, "setup.l1_fill", "l1_fill", 8)? as u8,
            None => 0,
        };
        let l1 = self.l1_ranges(s.l1.as_deref().unwrap_or_default(), "setup.l1", arch)?;

        let mut config: Vec<ConfigWrite> = Vec::new();
        for (i, e) in s.config.iter().flatten().enumerate() {
            let field = format!("setup.config[{i}]");
            if let Node::Map(entries) = &e.value {
                // Named fields (an extension of tensix-vector/1): merged into
                // what earlier entries wrote to the same word (reset: zero).
                let state = match entries.iter().find(|(k, _)| is_key(k, "state")) {
                    Some((_, n)) => self.index(n, &field, "state", 1)? as u8,
                    None => 0,
                };
                let w = self.named_word(e, &field, arch, Regs::Config, Some("state"))?;
                let base = config
                    .iter()
                    .rev()
                    .find(|c| c.addr == w.addr && c.state == state)
                    .map_or(0, |c| c.value);
                config.push(ConfigWrite {
                    addr: w.addr,
                    value: (base & !w.mask) | w.bits,
                    state,
                });
                continue;
            }
            let t = self.tuple(e, &field, "[addr, value] or [addr, value, state]", &[2, 3])?;
            config.push(ConfigWrite {
                addr: self.index(
                    &t[0],
                    &field,
                    "addr",
                    tensix_emu::regs::config_words(arch) as u64 - 1,
                )? as u32,
                value: self.bits(&t[1], &field, "value", 32)? as u32,
                state: match t.get(2) {
                    Some(n) => self.index(n, &field, "state", 1)? as u8,
                    None => 0,
                },
            });
        }

        let mut thread_config: Vec<ThreadConfigWrite> = Vec::new();
        for (i, e) in s.thread_config.iter().flatten().enumerate() {
            let field = format!("setup.thread_config[{i}]");
            if let Node::Map(entries) = &e.value {
                let Some((_, t)) = entries.iter().find(|(k, _)| is_key(k, "thread")) else {
                    return Err(self.err(
                        &e.referenced,
                        &field,
                        ErrorKind::MissingField,
                        "named ThreadConfig fields need `thread: N` beside them".into(),
                    ));
                };
                let thread = self.thread(t, &field)?;
                let w = self.named_word(e, &field, arch, Regs::ThreadConfig, Some("thread"))?;
                let base = thread_config
                    .iter()
                    .rev()
                    .find(|c| u32::from(c.reg) == w.addr && c.thread == thread)
                    .map_or(0, |c| u32::from(c.value));
                thread_config.push(ThreadConfigWrite {
                    thread,
                    reg: w.addr as u8,
                    value: ((base & !w.mask) | w.bits) as u16,
                });
                continue;
            }
            let t = self.tuple(e, &field, "[thread, reg, value]", &[3])?;
            thread_config.push(ThreadConfigWrite {
                thread: self.thread(&t[0], &field)?,
                reg: self.index(
                    &t[1],
                    &field,
                    "reg",
                    tensix_emu::regs::thread_config_words(arch) as u64 - 1,
                )? as u8,
                value: self.bits(&t[2], &field, "value", 16)? as u16,
            });
        }

        let mut gprs = Vec::new();
        for (i, e) in s.gprs.iter().flatten().enumerate() {
            let field = format!("setup.gprs[{i}]");
            let t = self.tuple(e, &field, "[thread, index, value]", &[3])?;
            gprs.push(GprWrite {
                thread: self.thread(&t[0], &field)?,
                index: self.index(&t[1], &field, "index", MAX_GPR_INDEX.into())? as u8,
                value: self.bits(&t[2], &field, "value", 32)? as u32,
            });
        }

        let mut mop_config = Vec::new();
        let mut mop_threads = Seen::default();
        for (i, e) in s.mop_config.iter().flatten().enumerate() {
            let field = format!("setup.mop_config[{i}]");
            let t = self.tuple(e, &field, "[thread, [9 words]]", &[2])?;
            let thread = self.thread(&t[0], &field)?;
            self.once(&mut mop_threads, thread, &t[0].referenced, &field, || {
                format!("thread {thread} already has a MOP config")
            })?;
            let words = self.array::<MOP_CONFIG_WORDS>(
                &t[1],
                &field,
                ("MOP config words", "MOP config words", "word"),
                32,
            )?;
            mop_config.push(MopConfig { thread, words });
        }

        let dst = match &s.dst {
            Some(d) => Some(self.dst(d, "setup.dst")?),
            None => None,
        };
        let srca = self.src_rows(s.srca.as_deref().unwrap_or_default(), "setup.srca")?;
        let srcb = self.src_rows(s.srcb.as_deref().unwrap_or_default(), "setup.srcb")?;
        Ok(Setup {
            l1_fill,
            l1,
            config,
            thread_config,
            gprs,
            mop_config,
            dst,
            srca,
            srcb,
        })
    }

    fn l1_ranges(&self, list: &[RawL1], field: &str, arch: Arch) -> Checked<Vec<L1Range>> {
        let size = arch.l1_size() as u64;
        let mut ranges = Vec::with_capacity(list.len());
        for (i, r) in list.iter().enumerate() {
            let entry = format!("{field}[{i}]");
            let addr_field = format!("{entry}.addr");
            let addr = self.bits(&r.addr, &addr_field, "address", 32)?;
            if addr >= size {
                return Err(self.err(
                    &r.addr.referenced,
                    &addr_field,
                    ErrorKind::OutOfRange,
                    format!("address {addr:#x} is outside {arch} L1 (0x0..{size:#x})"),
                ));
            }
            let bytes = self.hex(&r.hex, &format!("{entry}.hex"))?;
            let range = L1Range {
                addr: addr as u32,
                bytes,
            };
            if range.end() > size {
                return Err(self.err(
                    &r.hex.referenced,
                    &format!("{entry}.hex"),
                    ErrorKind::OutOfRange,
                    format!(
                        "bytes {addr:#x}..{:#x} run past the end of {arch} L1 ({size:#x} bytes)",
                        range.end()
                    ),
                ));
            }
            ranges.push(range);
        }

        // Overlaps: walk in address order, remembering the range that
        // reaches furthest so far.
        let mut order: Vec<usize> = (0..ranges.len()).collect();
        order.sort_by_key(|&i| (ranges[i].addr, i));
        let mut furthest: Option<usize> = None;
        for &i in &order {
            if ranges[i].bytes.is_empty() {
                continue;
            }
            if let Some(f) = furthest {
                if u64::from(ranges[i].addr) < ranges[f].end() {
                    let (early, late) = (i.min(f), i.max(f));
                    let (line, _) = pos(&list[early].addr.referenced);
                    return Err(self.err(
                        &list[late].addr.referenced,
                        &format!("{field}[{late}]"),
                        ErrorKind::Conflict,
                        format!(
                            "bytes {:#x}..{:#x} overlap {field}[{early}] ({:#x}..{:#x}, line {line})",
                            ranges[late].addr,
                            ranges[late].end(),
                            ranges[early].addr,
                            ranges[early].end(),
                        ),
                    ));
                }
                if ranges[i].end() > ranges[f].end() {
                    furthest = Some(i);
                }
            } else {
                furthest = Some(i);
            }
        }
        Ok(ranges)
    }

    fn dst(&self, d: &RawDst, field: &str) -> Checked<Dst> {
        let mode = d.mode.value;
        let format = d.format.value;
        if format.mode() != mode {
            let names: Vec<&str> = DstFormat::ALL
                .iter()
                .filter(|f| f.mode() == mode)
                .map(|f| f.name())
                .collect();
            return Err(self.err(
                &d.format.referenced,
                &format!("{field}.format"),
                ErrorKind::InvalidValue,
                format!(
                    "format {format} needs mode {}, but mode is {mode} (which takes {})",
                    format.mode(),
                    names.join(", ")
                ),
            ));
        }
        let mut rows = Vec::new();
        let mut seen = Seen::default();
        for (i, e) in d.rows.iter().flatten().enumerate() {
            let entry = format!("{field}.rows[{i}]");
            let t = self.tuple(e, &entry, "[row, [16 cells]]", &[2])?;
            let last = u64::from(mode.rows()) - 1;
            let context = format!(" in a {mode} Dst");
            let row = self.index_in(&t[0], &entry, "row", last, &context)? as u16;
            self.once(&mut seen, row, &t[0].referenced, &entry, || {
                format!("row {row} is given twice")
            })?;
            let cells = self.cells(&t[1], &entry, mode.cell_bits())?;
            rows.push(DstRow { row, cells });
        }
        Ok(Dst { format, rows })
    }

    fn src_rows(&self, list: &[S<Node>], field: &str) -> Checked<Vec<SrcRow>> {
        let mut rows = Vec::with_capacity(list.len());
        let mut seen = Seen::default();
        for (i, e) in list.iter().enumerate() {
            let entry = format!("{field}[{i}]");
            let t = self.tuple(e, &entry, "[bank, row, [16 cells]]", &[3])?;
            let bank = self.index(&t[0], &entry, "bank", MAX_SRC_BANK.into())? as u8;
            let row = self.index(&t[1], &entry, "row", MAX_SRC_ROW.into())? as u8;
            self.once(&mut seen, (bank, row), &t[0].referenced, &entry, || {
                format!("bank {bank} row {row} is given twice")
            })?;
            let cells = self.cells(&t[2], &entry, src::CELL_BITS)?;
            rows.push(SrcRow { bank, row, cells });
        }
        Ok(rows)
    }

    fn program(&self, threads: &[RawThread], arch: Arch) -> Checked<Vec<ThreadProgram>> {
        let mut program = Vec::with_capacity(threads.len());
        let mut seen = Seen::default();
        for (i, t) in threads.iter().enumerate() {
            let entry = format!("program[{i}]");
            let thread = self.thread(&t.thread, &format!("{entry}.thread"))?;
            self.once(
                &mut seen,
                thread,
                &t.thread.referenced,
                &format!("{entry}.thread"),
                || format!("thread {thread} already has a program"),
            )?;
            let mut run = Vec::with_capacity(t.run.len());
            for (k, step) in t.run.iter().enumerate() {
                run.push(self.step(step, &format!("{entry}.run[{k}]"), arch)?);
            }
            program.push(ThreadProgram { thread, run });
        }
        Ok(program)
    }

    fn step(&self, s: &S<Node>, field: &str, arch: Arch) -> Checked<Step> {
        const SHAPE: &str = "an instruction word, its text form ('PACR last=1 ...'), \
                             {cfg: [addr, value]} or {gpr: [index, value]}";
        let numeric = match &s.value {
            Node::Int(_) => true,
            Node::Str(_) | Node::Float(_) => !matches!(
                int_shape(self.raw(&s.referenced).unwrap_or_default().trim()),
                IntShape::NotAnInteger
            ),
            _ => false,
        };
        if numeric {
            return Ok(Step::Instruction(
                self.bits(s, field, "instruction word", 32)? as u32,
            ));
        }
        // The text form `decode` prints, encoded for the vector's
        // architecture (an extension of tensix-vector/1: words stay valid).
        if let Node::Str(text) = &s.value {
            let insn: tensix_emu::isa::Instruction =
                text.parse().map_err(|e: tensix_emu::isa::ParseError| {
                    self.err(&s.referenced, field, ErrorKind::InvalidValue, e.0)
                })?;
            return tensix_emu::isa::encode(arch, &insn)
                .map(Step::Instruction)
                .map_err(|e| {
                    self.err(&s.referenced, field, ErrorKind::InvalidValue, e.to_string())
                });
        }
        let entries = match &s.value {
            Node::Map(entries) => entries,
            _ => {
                return Err(self.err(
                    &s.referenced,
                    field,
                    ErrorKind::WrongType,
                    format!("expected {SHAPE}, found {}", self.shown(s)),
                ))
            }
        };
        let [(key, args)] = entries.as_slice() else {
            return Err(self.err(
                &s.referenced,
                field,
                ErrorKind::InvalidValue,
                format!(
                    "a TRISC store is a mapping with one key, `cfg` or `gpr`; found {}",
                    count(entries.len(), "key")
                ),
            ));
        };
        match &key.value {
            Node::Str(k) if k == "cfg" => {
                let field = format!("{field}.cfg");
                if let Node::Map(_) = &args.value {
                    // A whole-word store: fields not named are zero.
                    let w = self.named_word(args, &field, arch, Regs::Config, None)?;
                    return Ok(Step::Cfg {
                        addr32: w.addr,
                        value: w.bits,
                    });
                }
                let t = self.tuple(args, &field, "[addr, value]", &[2])?;
                Ok(Step::Cfg {
                    addr32: self.bits(&t[0], &field, "addr", 32)? as u32,
                    value: self.bits(&t[1], &field, "value", 32)? as u32,
                })
            }
            Node::Str(k) if k == "gpr" => {
                let field = format!("{field}.gpr");
                let t = self.tuple(args, &field, "[index, value]", &[2])?;
                Ok(Step::Gpr {
                    index: self.index(&t[0], &field, "index", MAX_GPR_INDEX.into())? as u32,
                    value: self.bits(&t[1], &field, "value", 32)? as u32,
                })
            }
            _ => Err(self.err(
                &key.referenced,
                field,
                ErrorKind::UnknownField,
                format!(
                    "unknown program step {}; expected {SHAPE}",
                    self.name_of(key)
                ),
            )),
        }
    }

    fn expect(&self, e: &RawExpect, arch: Arch) -> Checked<Expect> {
        let l1 = match &e.l1 {
            Some(list) => Some(self.l1_ranges(list, "expect.l1", arch)?),
            None => None,
        };
        let dst = match &e.dst {
            Some(d) => Some(self.dst(d, "expect.dst")?),
            None => None,
        };
        let srca = match &e.srca {
            Some(list) => Some(self.src_rows(list, "expect.srca")?),
            None => None,
        };
        let srcb = match &e.srcb {
            Some(list) => Some(self.src_rows(list, "expect.srcb")?),
            None => None,
        };
        let adc = match &e.adc {
            Some(list) => {
                let mut adc = Vec::with_capacity(list.len());
                let mut seen = Seen::default();
                for (i, a) in list.iter().enumerate() {
                    let entry = format!("expect.adc[{i}]");
                    let thread = self.thread(&a.thread, &format!("{entry}.thread"))?;
                    let unit = a.unit;
                    self.once(
                        &mut seen,
                        (thread, unit),
                        &a.thread.referenced,
                        &entry,
                        || format!("thread {thread} unit {unit} is given twice"),
                    )?;
                    adc.push(AdcExpect {
                        thread,
                        unit,
                        ch0: self.channel(&a.ch0, &format!("{entry}.ch0"), arch)?,
                        ch1: self.channel(&a.ch1, &format!("{entry}.ch1"), arch)?,
                    });
                }
                Some(adc)
            }
            None => None,
        };
        Ok(Expect {
            fault: e.fault.as_ref().map(|f| ExpectedFault {
                kind: f.kind.into(),
            }),
            l1,
            dst,
            srca,
            srcb,
            adc,
        })
    }

    fn channel(&self, n: &S<Node>, field: &str, arch: Arch) -> Checked<AdcChannel> {
        let t = self.tuple(n, field, "4 counters [x, y, z, w]", &[4])?;
        Ok(AdcChannel {
            x: self.bits(&t[0], field, "x counter", Dim::X.width(arch))? as u32,
            y: self.bits(&t[1], field, "y counter", Dim::Y.width(arch))? as u32,
            z: self.bits(&t[2], field, "z counter", Dim::Z.width(arch))? as u32,
            w: self.bits(&t[3], field, "w counter", Dim::W.width(arch))? as u32,
        })
    }

    /// Records `key` as seen at `at`; a second sighting is a conflict that
    /// names the first one's line.
    fn once<K: std::hash::Hash + Eq>(
        &self,
        seen: &mut Seen<K>,
        key: K,
        at: &Location,
        field: &str,
        message: impl FnOnce() -> String,
    ) -> Checked<()> {
        let (line, _) = pos(at);
        match seen.0.get(&key) {
            Some(first) => Err(self.err(
                at,
                field,
                ErrorKind::Conflict,
                format!("{} (first at line {first})", message()),
            )),
            None => {
                seen.0.insert(key, line);
                Ok(())
            }
        }
    }
}

/// Keys seen so far, with the line each was first seen on.
struct Seen<K>(HashMap<K, usize>);

impl<K> Default for Seen<K> {
    fn default() -> Self {
        Seen(HashMap::new())
    }
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// At most 60 characters of `s`, for quoting in messages.
fn truncate(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(MAX - 3).collect();
        t.push_str("...");
        t
    }
}

/// Which register file a named field belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Regs {
    Config,
    ThreadConfig,
}

/// The bits that named fields set in one word.
struct NamedWord {
    addr: u32,
    mask: u32,
    bits: u32,
}

/// Whether `k` is the plain key `name`.
fn is_key(k: &S<Node>, name: &str) -> bool {
    matches!(&k.value, Node::Str(s) if s == name)
}
