//! Human- and machine-readable reports of a conformance run.
//!
//! A mismatch shows where and what: L1 as rows of 16 bytes
//! (`address: hex  decoded datums`), expected against actual as a unified
//! diff made with `similar`, the first differing rows and a count of the rest;
//! Dst/SrcA/SrcB as row and column with sign, exponent and mantissa split.

use crate::run::Mismatch;
use crate::vector::DstFormat;
use similar::{ChangeTag, TextDiff};
use std::fmt::Write;
use tensix_emu::format::bfp::bfp_unpack_datums;
use tensix_emu::format::{BfpExp, BfpWidth, DataFormat, SrcCell};

/// How to show an L1 row's datums next to its hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Datums {
    Bytes,
    Bf16,
    Fp16,
    Fp32,
    /// Block floating point: rows inside the exponent section show their
    /// exponent bytes; rows after it show each group's shared exponent and
    /// its signed magnitudes (FloatBitPatterns.md, "BFP").
    Bfp(BfpLayout),
}

/// Where a BFP tile lies in L1: `exponents` bytes of shared exponents from
/// `start`, the datums right after them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BfpLayout {
    pub exp: BfpExp,
    pub width: BfpWidth,
    pub start: usize,
    pub exponents: usize,
}

impl Datums {
    /// The view for L1 holding packer output in `format`; formats this report
    /// cannot decode show as bytes. `bfp` places a BFP tile's sections; a
    /// BFP format without it shows as bytes.
    pub fn for_format(format: Option<DataFormat>, bfp: Option<BfpLayout>) -> Datums {
        match format {
            Some(DataFormat::Float32) => Datums::Fp32,
            Some(DataFormat::Float16) => Datums::Fp16,
            Some(DataFormat::Float16B) => Datums::Bf16,
            Some(f) if f.is_bfp() => bfp.map_or(Datums::Bytes, Datums::Bfp),
            _ => Datums::Bytes,
        }
    }
}

/// Rows of L1 shown around each difference.
const CONTEXT_ROWS: usize = 1;
/// Differing rows shown before the rest are only counted.
const SHOWN_ROWS: usize = 8;

fn decode_row(addr: usize, bytes: &[u8], image: &[u8], datums: Datums) -> String {
    match datums {
        Datums::Bytes => String::new(),
        Datums::Bf16 => bytes
            .chunks_exact(2)
            .map(|c| {
                let v = u16::from_le_bytes([c[0], c[1]]);
                format!("{:e}", f32::from_bits((v as u32) << 16))
            })
            .collect::<Vec<_>>()
            .join(" "),
        Datums::Fp16 => bytes
            .chunks_exact(2)
            .map(|c| format!("{:e}", half::f16::from_le_bytes([c[0], c[1]]).to_f32()))
            .collect::<Vec<_>>()
            .join(" "),
        Datums::Fp32 => bytes
            .chunks_exact(4)
            .map(|c| format!("{:e}", f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect::<Vec<_>>()
            .join(" "),
        Datums::Bfp(layout) => decode_bfp_row(addr, bytes, image, layout),
    }
}

/// A BFP row: exponent bytes inside the exponent section, otherwise one
/// `[2^e] ±m ...` run per group of 16 datums, `e` the unbiased shared
/// exponent read from the same L1 image (`?` when it lies outside it).
fn decode_bfp_row(addr: usize, bytes: &[u8], image: &[u8], l: BfpLayout) -> String {
    let data_start = l.start + l.exponents;
    if addr < l.start {
        return String::new();
    }
    if addr < data_start {
        let exps: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
        return format!("exponents: {}", exps.join(" "));
    }
    let bias = match l.exp {
        BfpExp::A => 15,
        BfpExp::B => 127,
    };
    let magnitude_bits = l.width.magnitude_bits();
    let group_bytes = l.width.group_bytes();
    // Rows and the data section both start 16-byte aligned, so a row holds
    // whole groups.
    let first_group = (addr - data_start) / group_bytes;
    let mut out = Vec::new();
    for (k, group) in bytes.chunks_exact(group_bytes).enumerate() {
        let g = first_group + k;
        let e = image
            .get(l.start + g)
            .filter(|_| g < l.exponents)
            .map_or("?".to_string(), |&e| (e as i32 - bias).to_string());
        out.push(format!("[2^{e}]"));
        for datum in bfp_unpack_datums(l.width, group) {
            let sign = if datum >> magnitude_bits != 0 {
                '-'
            } else {
                '+'
            };
            out.push(format!("{sign}{}", datum & ((1 << magnitude_bits) - 1)));
        }
    }
    out.join(" ")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn l1_row(addr: usize, bytes: &[u8], image: &[u8], datums: Datums) -> String {
    let d = decode_row(addr, bytes, image, datums);
    if d.is_empty() {
        format!("{addr:#08x}: {}\n", hex(bytes))
    } else {
        format!("{addr:#08x}: {}  {d}\n", hex(bytes))
    }
}

/// Unified diff of the differing 16-byte rows of L1 (with a row of context),
/// then a count of those not shown.
pub fn l1_diff(expected: &[u8], actual: &[u8], datums: Datums) -> String {
    let rows = expected.len().min(actual.len()) / 16;
    let differing: Vec<usize> = (0..rows)
        .filter(|r| expected[r * 16..r * 16 + 16] != actual[r * 16..r * 16 + 16])
        .collect();
    let mut out = String::new();
    let mut shown = std::collections::BTreeSet::new();
    for &r in differing.iter().take(SHOWN_ROWS) {
        for c in r.saturating_sub(CONTEXT_ROWS)..(r + CONTEXT_ROWS + 1).min(rows) {
            shown.insert(c);
        }
    }
    let first_byte = differing
        .first()
        .and_then(|&r| (r * 16..r * 16 + 16).find(|&i| expected[i] != actual[i]));
    if let Some(b) = first_byte {
        let _ = writeln!(
            out,
            "first difference at L1 byte {b:#x}: expected {:#04x}, found {:#04x}",
            expected[b], actual[b]
        );
    }
    let mut exp_text = String::new();
    let mut act_text = String::new();
    let mut last = None;
    for &r in &shown {
        if last.is_some_and(|l: usize| l + 1 != r) {
            exp_text.push_str("...\n");
            act_text.push_str("...\n");
        }
        last = Some(r);
        exp_text.push_str(&l1_row(
            r * 16,
            &expected[r * 16..r * 16 + 16],
            expected,
            datums,
        ));
        act_text.push_str(&l1_row(
            r * 16,
            &actual[r * 16..r * 16 + 16],
            actual,
            datums,
        ));
    }
    let diff = TextDiff::from_lines(&exp_text, &act_text);
    for change in diff.iter_all_changes() {
        let sign = match change.tag() {
            ChangeTag::Delete => "-",
            ChangeTag::Insert => "+",
            ChangeTag::Equal => " ",
        };
        let _ = write!(out, "{sign}{change}");
    }
    if differing.len() > SHOWN_ROWS {
        let _ = writeln!(
            out,
            "... and {} more differing 16-byte rows",
            differing.len() - SHOWN_ROWS
        );
    }
    let _ = writeln!(
        out,
        "(- expected, + actual; {} rows differ)",
        differing.len()
    );
    out
}

/// A SrcA/SrcB cell split as sign / exponent field / mantissa field.
pub fn split_src_cell(cell: u32) -> String {
    let c = SrcCell::from_canonical(cell);
    format!(
        "{cell:#07x} (s={} e={:#04x} m={:#05x})",
        u8::from(c.sign()),
        c.exponent(),
        c.mantissa()
    )
}

/// A Dst value split according to its format.
pub fn split_dst_value(format: DstFormat, v: u32) -> String {
    match format {
        DstFormat::Bf16 => format!(
            "{v:#06x} (s={} e={:#04x} m={:#04x})",
            v >> 15,
            v >> 7 & 0xff,
            v & 0x7f
        ),
        DstFormat::Fp16 => format!(
            "{v:#06x} (s={} e={:#04x} m={:#05x})",
            v >> 15,
            v >> 10 & 0x1f,
            v & 0x3ff
        ),
        DstFormat::Fp32 => format!(
            "{v:#010x} (s={} e={:#04x} m={:#08x})",
            v >> 31,
            v >> 23 & 0xff,
            v & 0x7f_ffff
        ),
        DstFormat::Int32 => format!("{v:#010x} (s={} magnitude={})", v >> 31, v & 0x7fff_ffff),
        DstFormat::Raw16 => format!("{v:#06x}"),
        DstFormat::Raw32 => format!("{v:#010x}"),
    }
}

/// Describe one mismatch.
pub fn describe(m: &Mismatch, datums: Datums) -> String {
    match m {
        Mismatch::Fault { expected, actual } => {
            let e = expected.map_or("no fault".to_string(), |k| format!("a {} fault", k.name()));
            let a = actual
                .as_ref()
                .map_or("completed without a fault".to_string(), |f| {
                    format!("stopped: {f}")
                });
            format!("expected {e}; the run {a}\n")
        }
        Mismatch::L1 { expected, actual } => l1_diff(expected, actual, datums),
        Mismatch::Dst {
            format,
            row,
            expected,
            actual,
        } => cells(&format!("dst row {row}"), expected, actual, |v| {
            split_dst_value(*format, v)
        }),
        Mismatch::Src {
            which,
            bank,
            row,
            expected,
            actual,
        } => cells(
            &format!("{which} bank {bank} row {row}"),
            expected,
            actual,
            split_src_cell,
        ),
        Mismatch::Adc {
            thread,
            unit,
            expected,
            actual,
        } => format!(
            "adc thread {thread} {unit}: expected ch0 {:?} ch1 {:?}, found ch0 {:?} ch1 {:?}\n",
            expected[0], expected[1], actual[0], actual[1]
        ),
        Mismatch::Invariant(s) => format!("invariant broken: {s}\n"),
    }
}

fn cells(
    what: &str,
    expected: &[u32; 16],
    actual: &[u32; 16],
    show: impl Fn(u32) -> String,
) -> String {
    let mut out = String::new();
    for c in 0..16 {
        if expected[c] != actual[c] {
            let _ = writeln!(
                out,
                "{what} col {c}: expected {}, found {}",
                show(expected[c]),
                show(actual[c])
            );
        }
    }
    out
}

/// Escape text for XML attribute and element content.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// `text` with control characters shown as escapes (`\u{1b}`), so that
/// nothing a vector, a file name or an engine says can drive the terminal.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn l1_diff_points_at_the_changed_byte() {
        let expected = vec![0u8; 256];
        let mut actual = expected.clone();
        actual[0x47] = 0x3f;
        let d = l1_diff(&expected, &actual, Datums::Bytes);
        assert!(d.contains("first difference at L1 byte 0x47"), "{d}");
        assert!(
            d.contains("-0x000040: 00000000000000000000000000000000"),
            "{d}"
        );
        assert!(
            d.contains("+0x000040: 000000000000003f0000000000000000"),
            "{d}"
        );
        assert!(d.contains("1 rows differ"), "{d}");
    }

    #[test]
    fn bf16_rows_decode_values() {
        // BF16 0x3f80 is 1.0; 0xc000 is -2.0 (little-endian in L1).
        let row = [0x80, 0x3f, 0x00, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert!(decode_row(0, &row, &row, Datums::Bf16).starts_with("1e0 -2e0 0e0"));
    }

    #[test]
    fn bfp_rows_show_exponents_then_signed_magnitudes() {
        // A BFP4b tile at 0x20: one 16-byte exponent row (groups with shared
        // exponents 127 and 130), then datums. FloatBitPatterns.md: sign in
        // the top bit of each 4-bit datum; datum 2k is byte k's low nibble.
        let mut image = vec![0u8; 0x60];
        image[0x20] = 127;
        image[0x21] = 130;
        image[0x30] = 0x9a; // datum 0 = 0xa (-2), datum 1 = 0x9 (-1)
        image[0x38] = 0x07; // datum 16 (second group) = +7, datum 17 = +0
        let layout = BfpLayout {
            exp: BfpExp::B,
            width: BfpWidth::Bits4,
            start: 0x20,
            exponents: 16,
        };
        let d = Datums::Bfp(layout);
        let exps = decode_row(0x20, &image[0x20..0x30], &image, d);
        assert!(exps.starts_with("exponents: 127 130 0"), "{exps}");
        let data = decode_row(0x30, &image[0x30..0x40], &image, d);
        assert!(data.starts_with("[2^0] -2 -1 +0"), "{data}");
        assert!(data.contains("+0 [2^3] +7 +0"), "{data}");
        // Group 4's exponent (byte 0x24) is zero; in an image that ends
        // before it, it shows as `?`.
        let far = decode_row(0x50, &image[0x50..0x60], &image, d);
        assert!(far.starts_with("[2^-127]"), "{far}");
        let cut = decode_row(0x50, &image[0x50..0x60], &image[..0x24], d);
        assert!(cut.starts_with("[2^?]"), "{cut}");
    }

    #[test]
    fn src_cells_split_into_fields() {
        assert_eq!(split_src_cell(0x5_f858), "0x5f858 (s=1 e=0x7e m=0x058)");
    }

    #[test]
    fn xml_is_escaped() {
        assert_eq!(xml_escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
