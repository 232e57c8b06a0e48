//! Datum values that lean on the cases conversions get wrong: ±0, denormals,
//! ±infinity, NaN, the largest and smallest normals, exact rounding ties,
//! BFP groups whose exponents spread over 8 or more, integers at the
//! saturation points.

use arbitrary::{Result, Unstructured};

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

fn pick<T: Copy>(u: &mut Unstructured<'_>, table: &[T]) -> Result<T> {
    Ok(*u.choose(table)?)
}

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

fn row_kind(u: &mut Unstructured<'_>) -> Result<RowKind> {
    Ok(match u.int_in_range(0..=9u8)? {
        0 | 1 => RowKind::Random,
        2..=4 => RowKind::Edges,
        5 | 6 => RowKind::Ties,
        7 | 8 => RowKind::Spread,
        _ => RowKind::Plain,
    })
}

/// A BF16 with the given sign, biased exponent and mantissa.
fn bf16(sign: bool, exp: u32, man: u32) -> u16 {
    ((u16::from(sign)) << 15) | (((exp & 0xff) as u16) << 7) | (man & 0x7f) as u16
}

/// One row of BF16 values.
pub fn bf16_row(u: &mut Unstructured<'_>) -> Result<[u16; 16]> {
    let kind = row_kind(u)?;
    let top: u32 = u.int_in_range(1..=254)?;
    let mut row = [0u16; 16];
    for (j, v) in row.iter_mut().enumerate() {
        let sign: bool = u.arbitrary()?;
        *v = match kind {
            RowKind::Random => u.arbitrary()?,
            RowKind::Edges => {
                if u.ratio(3, 4)? {
                    pick(u, BF16_EDGES)?
                } else {
                    u.arbitrary()?
                }
            }
            RowKind::Ties => {
                // Mantissa ending in 1 is a tie for E8M6; a datum `s`
                // exponents below the group top whose low `s+1` significand
                // bits are 10..0 is a BFP rounding tie.
                let s: u32 = u.int_in_range(0..=7)?;
                let high: u32 = u.arbitrary::<u8>()?.into();
                let man = if j == 0 {
                    u32::from(u.arbitrary::<u8>()?) | 1
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
                let below: u32 = if j == 0 {
                    0
                } else if j == 1 {
                    u.int_in_range(8..=12)?
                } else {
                    u.int_in_range(0..=12)?
                };
                bf16(sign, top.saturating_sub(below), u.arbitrary::<u8>()?.into())
            }
            RowKind::Plain => bf16(
                sign,
                u.int_in_range(120..=134)?,
                u.arbitrary::<u8>()?.into(),
            ),
        };
    }
    Ok(row)
}

/// One row of FP16 values (Tensix FP16).
pub fn fp16_row(u: &mut Unstructured<'_>) -> Result<[u16; 16]> {
    let kind = row_kind(u)?;
    let top: u16 = u.int_in_range(1..=31)?;
    let mut row = [0u16; 16];
    for (j, v) in row.iter_mut().enumerate() {
        let sign = u16::from(u.arbitrary::<bool>()?) << 15;
        *v = match kind {
            RowKind::Random => u.arbitrary()?,
            RowKind::Edges => {
                if u.ratio(3, 4)? {
                    pick(u, FP16_EDGES)?
                } else {
                    u.arbitrary()?
                }
            }
            RowKind::Ties => {
                // Low four mantissa bits 1000: an E5M6 tie; a set bit 6 and
                // clear bits below is an FP16 → BF16 truncation boundary.
                let m: u16 = u.arbitrary::<u16>()? & 0x3f0;
                sign | (top << 10) | m | if j % 2 == 0 { 0x8 } else { 0x40 }
            }
            RowKind::Spread => {
                let below: u16 = if j == 1 { 8 } else { u.int_in_range(0..=12)? };
                sign | (top.saturating_sub(below) << 10) | (u.arbitrary::<u16>()? & 0x3ff)
            }
            RowKind::Plain => {
                sign | (u.int_in_range(12..=18u16)? << 10) | (u.arbitrary::<u16>()? & 0x3ff)
            }
        };
    }
    Ok(row)
}

/// One row of FP32 values.
pub fn fp32_row(u: &mut Unstructured<'_>) -> Result<[u32; 16]> {
    let kind = row_kind(u)?;
    let top: u32 = u.int_in_range(1..=254)?;
    let mut row = [0u32; 16];
    for (j, v) in row.iter_mut().enumerate() {
        let sign = u32::from(u.arbitrary::<bool>()?) << 31;
        *v = match kind {
            RowKind::Random => u.arbitrary()?,
            RowKind::Edges => {
                if u.ratio(3, 4)? {
                    pick(u, FP32_EDGES)?
                } else {
                    u.arbitrary()?
                }
            }
            RowKind::Ties => {
                // Ties for BF16 (low 16 bits 0x8000), E8M6 (bit 16 alone)
                // and TF32 (low 13 bits 0x1000) rounding.
                let high = u.arbitrary::<u32>()? & 0x7ffe_0000;
                let low = *u.choose(&[0x8000u32, 0x1_0000, 0x1000, 0x1_8000])?;
                let exp = (top << 23) & 0x7f80_0000;
                sign | exp | (high & 0x007e_0000) | low
            }
            RowKind::Spread => {
                let below: u32 = if j == 1 {
                    u.int_in_range(8..=12)?
                } else {
                    u.int_in_range(0..=12)?
                };
                sign | (top.saturating_sub(below) << 23) | (u.arbitrary::<u32>()? & 0x7f_ffff)
            }
            RowKind::Plain => {
                sign | (u.int_in_range(120..=134u32)? << 23) | (u.arbitrary::<u32>()? & 0x7f_ffff)
            }
        };
    }
    Ok(row)
}

/// One row of sign-magnitude INT32 values.
pub fn int32_row(u: &mut Unstructured<'_>) -> Result<[u32; 16]> {
    let mut row = [0u32; 16];
    for v in row.iter_mut() {
        *v = match u.int_in_range(0..=3u8)? {
            0 => u.arbitrary()?,
            1 => u32::from(u.arbitrary::<u16>()?) | (u32::from(u.arbitrary::<bool>()?) << 31),
            _ => pick(u, INT32_EDGES)?,
        };
    }
    Ok(row)
}

/// A byte for FP8 or INT8 data.
pub fn byte(u: &mut Unstructured<'_>) -> Result<u8> {
    if u.ratio(1, 2)? {
        pick(u, BYTE_EDGES)
    } else {
        u.arbitrary()
    }
}

/// A BFP shared exponent.
pub fn shared_exp(u: &mut Unstructured<'_>) -> Result<u8> {
    if u.ratio(1, 2)? {
        pick(u, EXP_EDGES)
    } else {
        u.arbitrary()
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
