//! The error every vector-parsing function returns.

use std::fmt;

/// Why a vector was rejected, and where.
///
/// Displays as `file:line:column: field: message`, for example
/// `conformance-vectors/x.yaml:12:7: setup.dst.rows[3]: expected 16 values, found 15`.
/// `field` is empty (and left out of the display) for errors about the
/// document as a whole, such as YAML syntax errors outside any field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorError {
    /// The path given for messages.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// Path of the offending field: keys joined by `.`, sequence indices in
    /// brackets, e.g. `program[0].run[3]`.
    pub field: String,
    pub kind: ErrorKind,
    pub message: String,
}

/// The class of a [`VectorError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be read.
    Io,
    /// The file is not UTF-8.
    Encoding,
    /// Not well-formed YAML, or not exactly one document.
    Syntax,
    /// The YAML parser's resource budget (nesting depth, aliases, ...) ran out.
    Limit,
    /// `schema` is missing or is not `tensix-vector/1`.
    Schema,
    UnknownField,
    MissingField,
    DuplicateKey,
    /// A value of the wrong YAML type, e.g. a string where an integer belongs.
    WrongType,
    /// A value the field does not allow, e.g. an unknown `arch`.
    InvalidValue,
    /// An integer too wide for its field, or an address or index out of range.
    OutOfRange,
    /// A sequence of the wrong length, e.g. a row without 16 cells.
    WrongLength,
    /// A malformed `hex` string.
    InvalidHex,
    /// Entries that contradict each other: overlapping L1 ranges, a row or
    /// thread given twice, a name used twice.
    Conflict,
}

impl VectorError {
    pub(crate) fn io(file: &str, e: &std::io::Error) -> VectorError {
        VectorError::unreadable(file, format!("cannot read file: {e}"))
    }

    /// A file or directory that is refused before reading: not a regular
    /// file, too large, or a directory cycle.
    pub(crate) fn unreadable(file: &str, message: String) -> VectorError {
        VectorError {
            file: file.to_string(),
            line: 1,
            column: 1,
            field: String::new(),
            kind: ErrorKind::Io,
            message,
        }
    }
}

impl fmt::Display for VectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.file, self.line, self.column)?;
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for VectorError {}
