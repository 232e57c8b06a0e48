//! [`Vector`] → YAML, in the corpus's house style.
//!
//! Written by hand rather than through serde-saphyr's serializer because the
//! style mixes block and flow collections and fixes the width of every hex
//! number (addresses `0x%05x`, words `0x%08x`, 16-bit cells `0x%04x`, 19-bit
//! cells `0x%05x`), which a generic serializer cannot express. The output of
//! a vector parsed from the corpus is byte-for-byte the file it came from.

use std::fmt::Write;

use super::{
    AdcChannel, Dst, DstMode, Expect, L1Range, Setup, SrcRow, Step, ThreadProgram, Vector, SCHEMA,
};

/// Hex digits per line of an L1 `hex: |` block (16 bytes).
const HEX_DIGITS_PER_LINE: usize = 32;

/// Appends one formatted line. Writing to a `String` cannot fail.
macro_rules! line {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
}

/// A word a commented emission may read back in a trailing comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// A Config word (in `setup.config` or a program's `cfg` store).
    Config { addr32: u32, value: u32 },
    /// A ThreadConfig register as `setup.thread_config` writes it.
    ThreadConfig { reg: u32, value: u32 },
    /// A Tensix instruction word.
    Instruction(u32),
}

pub(crate) fn to_yaml(v: &Vector) -> String {
    to_yaml_commented(v, &|_| String::new())
}

/// [`to_yaml`], with `comment(word)` after every Config, ThreadConfig and
/// instruction word where it is not empty. Comments change nothing a parser
/// reads.
pub(crate) fn to_yaml_commented(v: &Vector, comment: &dyn Fn(Word) -> String) -> String {
    let mut o = String::new();
    line!(o, "schema: {SCHEMA}");
    line!(o, "name: {}", scalar(&v.name));
    line!(o, "arch: {}", v.arch);
    line!(o, "provenance:");
    line!(o, "  source: {}", v.provenance.source);
    line!(o, "  detail: {}", quoted(&v.provenance.detail));
    let tags: Vec<String> = v.tags.iter().map(|t| scalar(t)).collect();
    line!(o, "tags: [{}]", tags.join(", "));
    setup(&mut o, &v.setup, comment);
    program(&mut o, &v.program, comment);
    expect(&mut o, &v.expect);
    o
}

/// `text`, followed by `comment(word)` when there is one.
fn commented(text: String, comment: &dyn Fn(Word) -> String, word: Word) -> String {
    let c = comment(word);
    if c.is_empty() {
        text
    } else {
        format!("{text}  # {c}")
    }
}

fn setup(o: &mut String, s: &Setup, comment: &dyn Fn(Word) -> String) {
    line!(o, "setup:");
    line!(o, "  l1_fill: 0x{:02x}", s.l1_fill);
    l1(o, &s.l1);
    list(o, "config", &s.config, |c| {
        let text = if c.state == 0 {
            format!("[{}, 0x{:08x}]", c.addr, c.value)
        } else {
            format!("[{}, 0x{:08x}, {}]", c.addr, c.value, c.state)
        };
        let word = Word::Config {
            addr32: c.addr,
            value: c.value,
        };
        commented(text, comment, word)
    });
    list(o, "thread_config", &s.thread_config, |t| {
        let text = format!("[{}, {}, 0x{:04x}]", t.thread, t.reg, t.value);
        let word = Word::ThreadConfig {
            reg: u32::from(t.reg),
            value: u32::from(t.value),
        };
        commented(text, comment, word)
    });
    if !s.gprs.is_empty() {
        list(o, "gprs", &s.gprs, |g| {
            format!("[{}, {}, 0x{:08x}]", g.thread, g.index, g.value)
        });
    }
    if !s.mop_config.is_empty() {
        list(o, "mop_config", &s.mop_config, |m| {
            format!("[{}, [{}]]", m.thread, hex_list(&m.words, 8))
        });
    }
    if let Some(d) = &s.dst {
        dst(o, d);
    }
    if !s.srca.is_empty() {
        src(o, "srca", &s.srca);
    }
    if !s.srcb.is_empty() {
        src(o, "srcb", &s.srcb);
    }
}

fn program(o: &mut String, threads: &[ThreadProgram], comment: &dyn Fn(Word) -> String) {
    if threads.is_empty() {
        line!(o, "program: []");
        return;
    }
    line!(o, "program:");
    for t in threads {
        line!(o, "  - thread: {}", t.thread);
        if t.run.is_empty() {
            line!(o, "    run: []");
            continue;
        }
        line!(o, "    run:");
        for step in &t.run {
            match *step {
                Step::Instruction(word) => {
                    let text = format!("0x{word:08x}");
                    line!(
                        o,
                        "      - {}",
                        commented(text, comment, Word::Instruction(word))
                    )
                }
                Step::Cfg { addr32, value } => {
                    let text = format!("{{cfg: [{addr32}, 0x{value:08x}]}}");
                    let word = Word::Config { addr32, value };
                    line!(o, "      - {}", commented(text, comment, word))
                }
                Step::Gpr { index, value } => {
                    line!(o, "      - {{gpr: [{index}, 0x{value:08x}]}}")
                }
            }
        }
    }
}

fn expect(o: &mut String, e: &Expect) {
    if *e == Expect::default() {
        line!(o, "expect: {{}}");
        return;
    }
    line!(o, "expect:");
    if let Some(f) = &e.fault {
        line!(o, "  fault: {{kind: {}}}", f.kind);
    }
    if let Some(ranges) = &e.l1 {
        l1(o, ranges);
    }
    if let Some(d) = &e.dst {
        dst(o, d);
    }
    if let Some(rows) = &e.srca {
        src(o, "srca", rows);
    }
    if let Some(rows) = &e.srcb {
        src(o, "srcb", rows);
    }
    if let Some(adc) = &e.adc {
        list(o, "adc", adc, |a| {
            format!(
                "{{thread: {}, unit: {}, ch0: {}, ch1: {}}}",
                a.thread,
                a.unit,
                channel(&a.ch0),
                channel(&a.ch1)
            )
        });
    }
}

/// `  key: []`, or `  key:` and one `    - item` line per item.
fn list<T>(o: &mut String, key: &str, items: &[T], item: impl Fn(&T) -> String) {
    if items.is_empty() {
        line!(o, "  {key}: []");
        return;
    }
    line!(o, "  {key}:");
    for i in items {
        line!(o, "    - {}", item(i));
    }
}

fn l1(o: &mut String, ranges: &[L1Range]) {
    if ranges.is_empty() {
        line!(o, "  l1: []");
        return;
    }
    line!(o, "  l1:");
    for r in ranges {
        line!(o, "    - addr: 0x{:05x}", r.addr);
        if r.bytes.is_empty() {
            line!(o, "      hex: \"\"");
            continue;
        }
        line!(o, "      hex: |");
        let digits: String = r.bytes.iter().map(|b| format!("{b:02x}")).collect();
        for chunk in digits.as_bytes().chunks(HEX_DIGITS_PER_LINE) {
            // Hex digits are ASCII, so every chunk is valid UTF-8.
            line!(o, "        {}", String::from_utf8_lossy(chunk));
        }
    }
}

fn dst(o: &mut String, d: &Dst) {
    let width = match d.mode() {
        DstMode::Bits16 => 4,
        DstMode::Bits32 => 8,
    };
    line!(o, "  dst:");
    line!(o, "    mode: {}", d.mode());
    line!(o, "    format: {}", d.format);
    if d.rows.is_empty() {
        line!(o, "    rows: []");
        return;
    }
    line!(o, "    rows:");
    for r in &d.rows {
        line!(o, "      - [{}, [{}]]", r.row, hex_list(&r.cells, width));
    }
}

fn src(o: &mut String, key: &str, rows: &[SrcRow]) {
    list(o, key, rows, |r| {
        format!("[{}, {}, [{}]]", r.bank, r.row, hex_list(&r.cells, 5))
    });
}

fn channel(c: &AdcChannel) -> String {
    format!("[{}, {}, {}, {}]", c.x, c.y, c.z, c.w)
}

fn hex_list(values: &[u32], width: usize) -> String {
    values
        .iter()
        .map(|v| format!("0x{v:0width$x}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `s` as a plain scalar when that is unambiguous to any YAML reader,
/// otherwise double-quoted.
fn scalar(s: &str) -> String {
    if is_plain_safe(s) {
        s.to_string()
    } else {
        quoted(s)
    }
}

/// Plain only for identifier-like text that no YAML 1.1 or 1.2 reader could
/// take for a number, boolean or null, and that is safe in flow context.
fn is_plain_safe(s: &str) -> bool {
    const RESERVED: [&str; 9] = ["y", "n", "yes", "no", "on", "off", "true", "false", "null"];
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || "_./+-".contains(c))
        && !RESERVED.iter().any(|r| r.eq_ignore_ascii_case(s))
}

/// `s` as a YAML double-quoted scalar on one line.
fn quoted(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\t' => q.push_str("\\t"),
            '\r' => q.push_str("\\r"),
            c if printable(c) => q.push(c),
            c if (c as u32) <= 0xff => {
                let _ = write!(q, "\\x{:02x}", c as u32);
            }
            c if (c as u32) <= 0xffff => {
                let _ = write!(q, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(q, "\\U{:08x}", c as u32);
            }
        }
    }
    q.push('"');
    q
}

/// Characters written as themselves inside double quotes: YAML's printable
/// set, less the BOM and the Unicode line and paragraph separators.
fn printable(c: char) -> bool {
    matches!(c,
        '\u{20}'..='\u{7e}'
        | '\u{a0}'..='\u{d7ff}'
        | '\u{e000}'..='\u{fffd}'
        | '\u{10000}'..)
        && !matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_only_when_unambiguous() {
        assert!(is_plain_safe("blackhole/pack/d16-bf16-to-bf16-0075"));
        assert!(is_plain_safe("bfp8_b"));
        for s in [
            "", "0001", "true", "No", "a b", "a,b", "a:b", "[x]", "#x", "-x", ".inf",
        ] {
            assert!(!is_plain_safe(s), "{s:?}");
        }
    }

    #[test]
    fn quoting_escapes_what_yaml_needs() {
        assert_eq!(quoted("a\"b\\c\nd"), r#""a\"b\\c\nd""#);
        assert_eq!(quoted("\u{0}\u{85}\u{feff}"), r#""\x00\x85\ufeff""#);
        assert_eq!(quoted("é😀"), "\"é😀\"");
    }
}
