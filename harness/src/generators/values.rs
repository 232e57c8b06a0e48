//! Datum values that lean on the cases conversions get wrong: ±0, denormals,
//! ±infinity, NaN, the largest and smallest normals, exact rounding ties,
//! BFP groups whose exponents spread over 8 or more, integers at the
//! saturation points.

use arbitrary::{Result, Unstructured};

use super::draw::{self, Draws};

/// BF16 patterns worth trying.
pub const BF16_EDGES: &[u16] = &[
    0x0000, 0x8000, // ±0
    0x0001, 0x807f, 0x007f, // denormals
    0x0080, 0x8080, // smallest normals
    0x7f7f, 0xff7f, // largest normals
    0x7f80, 0xff80, // ±inf
    0x7fc0, 0xffc1, 0x7f81, // NaNs
    0x3f80, 0xbf80, 0x3fff, 0x4000, 0x3f81, 0x00ff, 0x0100,
];

/// FP16 patterns worth trying (Tensix FP16: exponent 31 is a number).
pub const FP16_EDGES: &[u16] = &[
    0x0000, 0x8000, 0x0001, 0x83ff, 0x03ff, 0x0400, 0x8400, 0x7bff, 0x7c00, 0xfc00, 0x7fff, 0xffff,
    0x3c00, 0xbc00, 0x3c01, 0x7ff7, 0x7ff8, 0x0408, 0x0418,
];

/// FP32 patterns worth trying.
pub const FP32_EDGES: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x807f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0001,
    0x7f80_0001,
    0x3f80_0000,
    0xbf80_0000,
    0x3f80_8000,
    0xbf81_8000,
    0x3f80_7fff,
    0x7f7f_8000,
    0x3880_0000,
    0x3800_0000,
    0x387f_e000,
    0x4780_0000,
    0x477f_e000,
];

/// Sign-magnitude INT32 patterns at the saturation points of INT8/UINT8
/// and the ends of INT32.
pub const INT32_EDGES: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    1,
    0x8000_0001,
    126,
    127,
    128,
    0x8000_007f,
    0x8000_0080,
    254,
    255,
    256,
    0x8000_00ff,
    0x8000_0100,
    0x7fff_ffff,
    0xffff_ffff,
    0x0000_ffff,
    0x0001_0000,
];

/// FP8 and INT8 byte patterns worth trying.
pub const BYTE_EDGES: &[u8] = &[
    0x00, 0x80, 0x01, 0x7f, 0xff, 0x81, 0x7e, 0xfe, 0x08, 0x38, 0x3c,
];

/// BFP shared exponents worth trying.
pub const EXP_EDGES: &[u8] = &[0, 1, 2, 7, 8, 9, 112, 126, 127, 128, 254, 255];

/// How the 16 datums of one row (one BFP group) are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RowKind {
    /// Any bit pattern.
    Random,
    /// Each datum from the edge table, or random.
    Edges,
    /// Exact ties for the rounding the format's conversions do.
    Ties,
    /// A common top exponent with others 8 or more below it.
    Spread,
    /// Small numbers near 1.
    Plain,
}

fn row_kind(d: &mut Draws<'_>) -> RowKind {
    match d.in_range(0, 9) {
        0 | 1 => RowKind::Random,
        2..=4 => RowKind::Edges,
        5 | 6 => RowKind::Ties,
        7 | 8 => RowKind::Spread,
        _ => RowKind::Plain,
    }
}

/// A BF16 with the given sign, biased exponent and mantissa.
fn bf16(sign: bool, exp: u32, man: u32) -> u16 {
    ((u16::from(sign)) << 15) | (((exp & 0xff) as u16) << 7) | (man & 0x7f) as u16
}

/// One row of BF16 values.
pub fn bf16_row(u: &mut Unstructured<'_>) -> Result<[u16; 16]> {
    Ok(draw::with(u, |d| {
        let kind = row_kind(d);
        let top = d.in_range(1, 254);
        let mut row = [0u16; 16];
        for (j, v) in row.iter_mut().enumerate() {
            let sign = d.bool();
            *v = match kind {
                RowKind::Random => d.u16(),
                RowKind::Edges => edge_or(d, (3, 4), BF16_EDGES, Draws::u16),
                RowKind::Ties => {
                    // Mantissa ending in 1 is a tie for E8M6; a datum `s`
                    // exponents below the group top whose low `s+1` significand
                    // bits are 10..0 is a BFP rounding tie.
                    let s = d.in_range(0, 7);
                    let high = u32::from(d.u8());
                    let man = if j == 0 {
                        u32::from(d.u8()) | 1
                    } else {
                        ((high << (s + 1)) | (1 << s)) & 0x7f
                    };
                    let exp = if j == 0 {
                        top
                    } else {
                        top.saturating_sub(s).max(1)
                    };
                    bf16(sign, exp, man)
                }
                RowKind::Spread => {
                    let below = match j {
                        0 => 0,
                        1 => d.in_range(8, 12),
                        _ => d.in_range(0, 12),
                    };
                    bf16(sign, top.saturating_sub(below), d.u8().into())
                }
                RowKind::Plain => bf16(sign, d.in_range(120, 134), d.u8().into()),
            };
        }
        row
    }))
}

/// One row of FP16 values (Tensix FP16).
pub fn fp16_row(u: &mut Unstructured<'_>) -> Result<[u16; 16]> {
    Ok(draw::with(u, |d| {
        let kind = row_kind(d);
        let top = d.in_range(1, 31) as u16;
        let mut row = [0u16; 16];
        for (j, v) in row.iter_mut().enumerate() {
            let sign = u16::from(d.bool()) << 15;
            *v = match kind {
                RowKind::Random => d.u16(),
                RowKind::Edges => edge_or(d, (3, 4), FP16_EDGES, Draws::u16),
                RowKind::Ties => {
                    // Low four mantissa bits 1000: an E5M6 tie; a set bit 6 and
                    // clear bits below is an FP16 → BF16 truncation boundary.
                    let m = d.u16() & 0x3f0;
                    sign | (top << 10) | m | if j % 2 == 0 { 0x8 } else { 0x40 }
                }
                RowKind::Spread => {
                    let below = if j == 1 { 8 } else { d.in_range(0, 12) as u16 };
                    sign | (top.saturating_sub(below) << 10) | (d.u16() & 0x3ff)
                }
                RowKind::Plain => {
                    let exp = d.in_range(12, 18) as u16;
                    sign | (exp << 10) | (d.u16() & 0x3ff)
                }
            };
        }
        row
    }))
}

/// One row of FP32 values.
pub fn fp32_row(u: &mut Unstructured<'_>) -> Result<[u32; 16]> {
    Ok(draw::with(u, |d| {
        let kind = row_kind(d);
        let top = d.in_range(1, 254);
        let mut row = [0u32; 16];
        for (j, v) in row.iter_mut().enumerate() {
            let sign = u32::from(d.bool()) << 31;
            *v = match kind {
                RowKind::Random => d.u32(),
                RowKind::Edges => edge_or(d, (3, 4), FP32_EDGES, Draws::u32),
                RowKind::Ties => {
                    // Ties for BF16 (low 16 bits 0x8000), E8M6 (bit 16 alone)
                    // and TF32 (low 13 bits 0x1000) rounding.
                    let high = d.u32() & 0x7ffe_0000;
                    let low = d.pick(&[0x8000u32, 0x1_0000, 0x1000, 0x1_8000]);
                    let exp = (top << 23) & 0x7f80_0000;
                    sign | exp | (high & 0x007e_0000) | low
                }
                RowKind::Spread => {
                    let below = if j == 1 {
                        d.in_range(8, 12)
                    } else {
                        d.in_range(0, 12)
                    };
                    sign | (top.saturating_sub(below) << 23) | (d.u32() & 0x7f_ffff)
                }
                RowKind::Plain => sign | (d.in_range(120, 134) << 23) | (d.u32() & 0x7f_ffff),
            };
        }
        row
    }))
}

/// One row of sign-magnitude INT32 values.
pub fn int32_row(u: &mut Unstructured<'_>) -> Result<[u32; 16]> {
    Ok(draw::with(u, |d| {
        let mut row = [0u32; 16];
        for v in row.iter_mut() {
            *v = match d.in_range(0, 3) {
                0 => d.u32(),
                1 => u32::from(d.u16()) | (u32::from(d.bool()) << 31),
                _ => d.pick(INT32_EDGES),
            };
        }
        row
    }))
}

/// A row of 16 bytes for FP8 or INT8 data.
pub fn byte_row(u: &mut Unstructured<'_>) -> Result<[u8; 16]> {
    Ok(draw::with(u, |d| {
        std::array::from_fn(|_| edge_or(d, (1, 2), BYTE_EDGES, Draws::u8))
    }))
}

/// A BFP shared exponent.
pub fn shared_exp(u: &mut Unstructured<'_>) -> Result<u8> {
    Ok(draw::with(u, |d| edge_or(d, (1, 2), EXP_EDGES, Draws::u8)))
}

/// With odds `num` in `den`, an entry of `table`; otherwise `any`'s draw.
fn edge_or<'a, T: Copy>(
    d: &mut Draws<'a>,
    (num, den): (u8, u8),
    table: &[T],
    any: fn(&mut Draws<'a>) -> T,
) -> T {
    if d.ratio(num, den) {
        d.pick(table)
    } else {
        any(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_rows_really_spread() {
        // A "spread" row has a datum at the group's top exponent and one at
        // least 8 below it; find one among seeded rows.
        let mut found = false;
        for seed in 0..200u64 {
            let bytes = crate::generators::seeded_bytes(seed, 512);
            let mut u = Unstructured::new(&bytes);
            let row = bf16_row(&mut u).unwrap();
            let exps: Vec<i32> = row.iter().map(|v| i32::from((v >> 7) & 0xff)).collect();
            let (hi, lo) = (exps.iter().max().unwrap(), exps.iter().min().unwrap());
            if hi - lo >= 8 && *lo > 0 {
                found = true;
                break;
            }
        }
        assert!(found, "no row with an exponent spread of 8 among 200 seeds");
    }
}
