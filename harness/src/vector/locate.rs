//! Turning a serde-saphyr error into a [`VectorError`] with a field path.
//!
//! serde-saphyr reports the line and column where deserialization failed but
//! not the path of keys that led there. To name the field, the document is
//! parsed again into a location-keeping [`Node`] tree (which succeeds for any
//! well-formed YAML, whatever its shape) and the node at the error's position
//! gives the path. When the YAML is not well-formed there is no tree; the
//! path is then guessed from the indentation of the block-style keys above
//! the error.

use serde_saphyr::{Error, Spanned};

use super::parse::{options, pos, source_text, Node};
use super::{ErrorKind, VectorError};

/// What an error's position points at, which decides the node it names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Points {
    /// A mapping key (unknown or duplicate key).
    Key,
    /// A mapping that lacks a key (serde-saphyr points at its start).
    Mapping,
    /// A value.
    Value,
    /// Somewhere the YAML is not well-formed.
    Syntax,
    /// Nothing in particular.
    Document,
}

pub(crate) fn from_saphyr(text: &str, file: &str, err: &Error) -> VectorError {
    let mut inner = err.without_snippet();
    while let Error::AliasError { error, .. } = inner {
        inner = error.without_snippet();
    }
    let (mut line, mut column) = err.location().map(|l| pos(&l)).unwrap_or((1, 1));

    let plain = strip_location(&inner.to_string());
    let (kind, points, mut message) = match inner {
        Error::SerdeUnknownField {
            field, expected, ..
        } => (
            ErrorKind::UnknownField,
            Points::Key,
            if expected.is_empty() {
                format!("unknown field `{field}`; this mapping takes no fields")
            } else {
                format!(
                    "unknown field `{field}`; expected one of: {}",
                    expected.join(", ")
                )
            },
        ),
        Error::SerdeMissingField { field, .. } => (
            ErrorKind::MissingField,
            Points::Mapping,
            format!("missing required field `{field}`"),
        ),
        Error::DuplicateMappingKey { key, .. } => (
            ErrorKind::DuplicateKey,
            Points::Key,
            match key {
                Some(key) => format!("duplicate key `{key}`"),
                None => "duplicate key".to_string(),
            },
        ),
        Error::SerdeUnknownVariant {
            variant, expected, ..
        } => (
            ErrorKind::InvalidValue,
            Points::Value,
            format!("expected one of {}; found `{variant}`", expected.join(", ")),
        ),
        Error::SerdeInvalidType {
            unexpected,
            expected,
            ..
        } => (
            ErrorKind::WrongType,
            Points::Value,
            format!("expected {expected}, found {unexpected}"),
        ),
        Error::SerdeInvalidValue {
            unexpected,
            expected,
            ..
        } => (
            ErrorKind::InvalidValue,
            Points::Value,
            format!("expected {expected}, found {unexpected}"),
        ),
        Error::SerdeInvalidLength { len, expected, .. } => (
            ErrorKind::WrongLength,
            Points::Value,
            format!("expected {expected}, found {len} values"),
        ),
        Error::Unexpected { expected, .. } => (
            ErrorKind::WrongType,
            Points::Value,
            format!("expected {}", expected_phrase(expected)),
        ),
        Error::InvalidScalar { ty, .. } => (
            ErrorKind::WrongType,
            Points::Value,
            format!("expected {}", expected_phrase(ty)),
        ),
        Error::NullIntoString { .. } => (
            ErrorKind::WrongType,
            Points::Value,
            "expected a string, found null".to_string(),
        ),
        Error::ExternallyTaggedEnumExpectedScalarOrMapping { .. } => (
            ErrorKind::WrongType,
            Points::Value,
            "expected a name".to_string(),
        ),
        Error::MultipleDocuments { .. } => (
            ErrorKind::Syntax,
            Points::Document,
            "a vector file holds exactly one YAML document".to_string(),
        ),
        Error::Budget { breach, .. } => (
            ErrorKind::Limit,
            Points::Syntax,
            format!("the document exceeds the YAML parser's limits ({breach:?})"),
        ),
        Error::RecursiveReferencesRequireWeakTypes { .. } => (
            ErrorKind::Limit,
            Points::Syntax,
            "an alias refers to the node that defines its anchor (recursive YAML)".to_string(),
        ),
        Error::AliasReplayLimitExceeded { .. }
        | Error::AliasExpansionLimitExceeded { .. }
        | Error::AliasReplayStackDepthExceeded { .. }
        | Error::AliasReplayCounterOverflow { .. } => (
            ErrorKind::Limit,
            Points::Syntax,
            format!("aliases expand too far: {plain}"),
        ),
        _ => (ErrorKind::Syntax, Points::Syntax, plain),
    };

    let mut field = String::new();
    if points != Points::Document {
        match tree(text) {
            Some(root) => {
                if let Some(spot) = find(&root, text, (line, column), points) {
                    field = spot.path;
                    (line, column) = spot.at.unwrap_or((line, column));
                    if kind == ErrorKind::WrongType && !message.contains(", found") {
                        if let Some(found) = spot.found {
                            message = format!("{message}, found {found}");
                        }
                    }
                }
            }
            None => field = guess_from_indentation(text, line),
        }
    }
    VectorError {
        file: file.to_string(),
        line,
        column,
        field,
        kind,
        message,
    }
}

/// serde-saphyr's message without its ` at line L, column C` suffix.
fn strip_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) if message[i..].contains(", column ") => message[..i].to_string(),
        _ => message.to_string(),
    }
}

fn expected_phrase(what: &str) -> String {
    match what {
        "mapping start" | "mapping" => "a mapping".to_string(),
        "sequence start" | "sequence" => "a sequence".to_string(),
        "string scalar" | "string" => "a string".to_string(),
        other => other.to_string(),
    }
}

fn tree(text: &str) -> Option<Spanned<Node>> {
    let mut opts = options();
    // Keep both copies of a duplicated key so that the second can be found.
    opts.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::LastWins;
    serde_saphyr::from_str_with_options(text, opts).ok()
}

/// One node or key of the tree, in document order.
struct Entry {
    at: (usize, usize),
    path: String,
    /// For a value, what it is, for messages.
    found: Option<String>,
    mapping: bool,
    /// For a key: the mapping it belongs to, and whether its value is null.
    owner: Option<Owner>,
}

struct Owner {
    path: String,
    at: (usize, usize),
    value_null: bool,
}

fn walk(n: &Spanned<Node>, text: &str, path: &str, out: &mut Vec<Entry>) {
    let at = pos(&n.referenced);
    out.push(Entry {
        at,
        path: path.to_string(),
        found: Some(describe(n, text)),
        mapping: matches!(n.value, Node::Map(_)),
        owner: None,
    });
    match &n.value {
        Node::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, text, &format!("{path}[{i}]"), out);
            }
        }
        Node::Map(entries) => {
            for (k, v) in entries {
                let segment = match &k.value {
                    Node::Str(s) => s.clone(),
                    Node::Int(i) => i.to_string(),
                    Node::Bool(b) => b.to_string(),
                    Node::Null => "~".to_string(),
                    _ => "?".to_string(),
                };
                let child = if path.is_empty() {
                    segment
                } else {
                    format!("{path}.{segment}")
                };
                out.push(Entry {
                    at: pos(&k.referenced),
                    path: child.clone(),
                    found: None,
                    mapping: false,
                    owner: Some(Owner {
                        path: path.to_string(),
                        at,
                        value_null: matches!(v.value, Node::Null),
                    }),
                });
                walk(v, text, &child, out);
            }
        }
        _ => {}
    }
}

fn describe(n: &Spanned<Node>, text: &str) -> String {
    let raw = source_text(text, &n.referenced)
        .map(str::trim)
        .filter(|r| !r.is_empty() && r.chars().count() <= 40);
    match (&n.value, raw) {
        (Node::Null, _) => "null".to_string(),
        (Node::Seq(_), _) => "a sequence".to_string(),
        (Node::Map(_), _) => "a mapping".to_string(),
        (_, Some(raw)) => format!("`{raw}`"),
        _ => "a scalar".to_string(),
    }
}

/// What an error's position resolves to.
struct Spot {
    path: String,
    /// A better position to report, when the error's own is not the node's.
    at: Option<(usize, usize)>,
    /// What the node is, for "found ..." in messages.
    found: Option<String>,
}

/// The field at `at`, read according to what the error points at.
fn find(root: &Spanned<Node>, text: &str, at: (usize, usize), points: Points) -> Option<Spot> {
    let mut entries = Vec::new();
    walk(root, text, "", &mut entries);
    let here = || entries.iter().filter(|e| e.at == at);
    let spot = |e: &Entry| Spot {
        path: e.path.clone(),
        at: None,
        found: e.found.clone(),
    };
    let key = here().find(|e| e.owner.is_some());
    let value = here()
        .filter(|e| e.owner.is_none())
        .max_by_key(|e| e.path.len());
    match points {
        Points::Key => key.map(spot),
        // serde-saphyr reports a missing field at the last key it read from
        // the mapping (or at the key of a null value, which stands for an
        // empty mapping). Name the mapping and point at its start.
        Points::Mapping => {
            let owner_of = |e: &Entry| {
                e.owner.as_ref().map(|o| {
                    if o.value_null {
                        spot(e)
                    } else {
                        Spot {
                            path: o.path.clone(),
                            at: Some(o.at),
                            found: None,
                        }
                    }
                })
            };
            key.and_then(owner_of)
                .or_else(|| value.filter(|e| e.mapping).map(spot))
                .or_else(|| {
                    let last = entries.iter().rfind(|e| e.owner.is_some() && e.at <= at);
                    last.and_then(owner_of)
                })
        }
        Points::Value | Points::Syntax => value.or(key).map(spot).or_else(|| {
            // Not at a node: name the last key before the position.
            entries
                .iter()
                .rfind(|e| e.owner.is_some() && e.at <= at)
                .map(spot)
        }),
        Points::Document => None,
    }
}

/// For YAML that does not parse: the block-style keys whose indentation
/// encloses line `line`, joined by `.` (sequence indices are not counted).
fn guess_from_indentation(text: &str, line: usize) -> String {
    let mut stack: Vec<(usize, &str)> = Vec::new();
    for l in text.lines().take(line) {
        let body = l.trim_start_matches(' ');
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let mut indent = l.len() - body.len();
        let mut rest = body;
        while let Some(r) = rest.strip_prefix("- ") {
            let trimmed = r.trim_start_matches(' ');
            indent += rest.len() - trimmed.len();
            rest = trimmed;
        }
        match block_key(rest) {
            Some(key) => {
                while stack.last().is_some_and(|&(i, _)| i >= indent) {
                    stack.pop();
                }
                stack.push((indent, key));
            }
            None => {
                let own = l.len() - body.len();
                while stack.last().is_some_and(|&(i, _)| i > own) {
                    stack.pop();
                }
            }
        }
    }
    stack.iter().map(|&(_, k)| k).collect::<Vec<_>>().join(".")
}

/// `key` if `s` starts with `key:` followed by a space or the line's end.
fn block_key(s: &str) -> Option<&str> {
    let end = s.find(':')?;
    let key = &s[..end];
    let after = &s[end + 1..];
    let ok = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && (after.is_empty() || after.starts_with(' ') || after.starts_with('\t'));
    ok.then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indentation_guess_follows_block_keys() {
        let text = "a: 1\nsetup:\n  l1:\n    - addr: 1\n      hex: [\n";
        assert_eq!(guess_from_indentation(text, 5), "setup.l1.hex");
        assert_eq!(guess_from_indentation(text, 2), "setup");
        assert_eq!(guess_from_indentation("x: 1\ny:\n", 2), "y");
    }

    #[test]
    fn location_suffix_is_stripped() {
        assert_eq!(strip_location("bad thing at line 3, column 4"), "bad thing");
        assert_eq!(strip_location("at line 3 only"), "at line 3 only");
    }
}
