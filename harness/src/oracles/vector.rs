//! Vector files: parsing arbitrary bytes never panics and reports a position
//! inside the input; whatever parses, and every generated vector, writes out
//! and parses back to itself (the schema contract, `vector` module docs).

use super::{expect_agreement, Finding, Verdict};
use crate::vector::Vector;

/// `vector_parse`: panics when parsing or the round trip goes wrong.
pub fn vector_parse(bytes: &[u8]) -> Verdict {
    expect_agreement(check_vector_bytes(bytes), "vector_parse")
}

/// `vector_parse` on a generated vector.
pub fn vector_roundtrip(v: &Vector) -> Verdict {
    expect_agreement(check_vector(v), "vector_parse")
}

/// Parse `bytes`; an error must point inside them, a success must round-trip.
pub fn check_vector_bytes(bytes: &[u8]) -> Result<Verdict, Finding> {
    match Vector::from_yaml_bytes(bytes, "fuzz.yaml") {
        Ok(v) => check_vector(&v),
        Err(e) => {
            let text = String::from_utf8_lossy(bytes);
            let lines = text.replace("\r\n", "\n").split(['\n', '\r']).count();
            if e.line == 0 || e.column == 0 || e.line > lines || e.message.is_empty() {
                return Err(Finding::new(
                    "parse error points outside the input",
                    format!("line {} column {} of {lines} lines: {e}", e.line, e.column),
                ));
            }
            Ok(Verdict::Rejected(e.message))
        }
    }
}

/// Serialize `v` and parse it back: the same vector.
pub fn check_vector(v: &Vector) -> Result<Verdict, Finding> {
    let yaml = v.to_yaml();
    match Vector::from_yaml_str(&yaml, "fuzz.yaml") {
        Ok(back) if back == *v => Ok(Verdict::Agree),
        Ok(back) => Err(Finding::new(
            "vector does not round-trip",
            format!("written:\n{yaml}\nread back as {back:#?}"),
        )),
        Err(e) => Err(Finding::new(
            "written vector does not parse",
            format!("{e}\n{yaml}"),
        )),
    }
}
