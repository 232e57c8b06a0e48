//! Readable disagreement reports: which job, which bytes or cells, with the
//! datums decoded (sign / exponent / mantissa, as TestFloat prints them).

use crate::golden::{Format, PackJob, UnpackJob};
use std::fmt::Write;

/// One line describing a pack job.
pub fn pack_job(j: &PackJob) -> String {
    format!(
        "{} pack: Dst {} ({}) as {} → {}{}{}; ReLU mode {} threshold {:#06x}; {} face(s) × {} \
         row(s) from Dst row {} (tile {}, offset {}); tile at L1 {:#x}{}{}",
        j.arch,
        j.dst,
        j.dst.mode(),
        j.src.name(),
        j.out.name(),
        if j.unsigned { " (unsigned)" } else { "" },
        if j.fp8_e4m3 { " (E4M3)" } else { "" },
        j.relu.mode,
        j.relu.threshold,
        j.faces,
        j.face_rows,
        j.first_row(),
        j.tile,
        j.dst_offset,
        j.l1_addr,
        if j.l1_acc { "; L1 accumulation" } else { "" },
        if j.edge == crate::golden::Edge::NONE {
            String::new()
        } else {
            format!("; edge masks {:x?}", j.edge)
        },
    )
}

/// One line describing an unpack job.
pub fn unpack_job(j: &UnpackJob) -> String {
    format!(
        "{} unpack: L1 {} at {:#x} → {:?} as {}; {} face(s) × {} row(s){}{}{}",
        j.arch,
        j.input.name(),
        j.l1_addr,
        j.target,
        j.out.name(),
        j.faces,
        j.face_rows,
        match j.forced_exp {
            Some(e) => format!("; forced exponent {e}"),
            None => String::new(),
        },
        if j.haloize { "; haloize" } else { "" },
        if j.unsigned { "; unsigned" } else { "" },
    )
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A datum of `format` at `bytes`, decoded for a human.
fn decode(format: Format, bytes: &[u8]) -> String {
    let v = bytes
        .iter()
        .rev()
        .fold(0u32, |acc, b| (acc << 8) | u32::from(*b));
    match format {
        Format::Fp32 | Format::Tf32 => format!(
            "{v:#010x} (s{} e{} m{:#08x})",
            v >> 31,
            (v >> 23) & 0xff,
            v & 0x7f_ffff
        ),
        Format::Bf16 => format!(
            "{v:#06x} (s{} e{} m{:#04x})",
            v >> 15,
            (v >> 7) & 0xff,
            v & 0x7f
        ),
        Format::Fp16 => format!(
            "{v:#06x} (s{} e{} m{:#05x})",
            v >> 15,
            (v >> 10) & 0x1f,
            v & 0x3ff
        ),
        _ => format!("{v:#x}"),
    }
}

/// The first differing 16-byte lines between `expected` and `actual`, both
/// starting at L1 address `addr`, with the datums of `format` decoded.
pub fn l1_diff(addr: u32, expected: &[u8], actual: &[u8], format: Format) -> String {
    let mut s = String::new();
    let differing = expected.iter().zip(actual).filter(|(a, b)| a != b).count();
    let _ = writeln!(
        s,
        "{differing} of {} bytes from {addr:#x} differ",
        expected.len()
    );
    let mut shown = 0;
    for (i, (e, a)) in expected.chunks(16).zip(actual.chunks(16)).enumerate() {
        if e == a {
            continue;
        }
        let at = addr as usize + 16 * i;
        let _ = writeln!(s, "  {at:#08x} expected {}", hex(e));
        let _ = writeln!(s, "  {at:#08x} actual   {}", hex(a));
        let size = (format.l1_bits() / 8) as usize;
        if size > 1 && !format.is_bfp() {
            for (k, (de, da)) in e.chunks(size).zip(a.chunks(size)).enumerate() {
                if de != da {
                    let _ = writeln!(
                        s,
                        "    datum at {:#x}: expected {} actual {}",
                        at + k * size,
                        decode(format, de),
                        decode(format, da)
                    );
                }
            }
        }
        shown += 1;
        if shown == 4 {
            let _ = writeln!(s, "  ...");
            break;
        }
    }
    s
}

/// A register row that differs.
pub fn row_diff(what: &str, row: usize, expected: &[u32; 16], actual: &[u32; 16]) -> String {
    let mut s = format!("{what} row {row}:\n");
    for c in 0..16 {
        if expected[c] != actual[c] {
            let _ = writeln!(
                s,
                "  column {c:2}: expected {:#07x} actual {:#07x}",
                expected[c], actual[c]
            );
        }
    }
    s
}
