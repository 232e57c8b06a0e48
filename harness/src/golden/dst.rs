//! `Dst` as the model sees it: rows of values in the view a vector writes them
//! in, and the few storage facts a packer read depends on.
//!
//! tt-isa-documentation `Dst.md`, "Data type bit layout": `Dst16b` cells keep
//! a float's exponent in the low bits (BF16: sign 15, mantissa 14:8, exponent
//! 7:0; FP16: sign 15, mantissa 14:5, exponent 4:0), and a `Dst32b` cell is
//! the BF16 arrangement of its top half above its low 16 mantissa bits.
//! Vectors give values in the view a RISC-V core sees (IEEE-ordered fields),
//! or raw storage (`raw16`, `raw32`).

use crate::vector::{self, DstFormat, DstRow};

/// Rows of one `Dst` view. Rows never written hold zero (the reference
/// README: "Dst rows that were never written read as zero in the packer").
#[derive(Clone, Debug)]
pub struct DstImage {
    pub format: DstFormat,
    /// Row `first + i` for each `rows[i]`: the first to the last row
    /// written. The rest read as zero.
    first: usize,
    rows: Vec<[u32; 16]>,
}

impl DstImage {
    /// All zero, in `format`'s view (1024 rows of 16 bits or 512 of 32).
    pub fn new(format: DstFormat) -> DstImage {
        DstImage {
            format,
            first: 0,
            rows: Vec::new(),
        }
    }

    /// The rows a vector's `setup.dst` gives.
    pub fn from_vector(d: &vector::Dst) -> DstImage {
        DstImage::from_rows(d.format, &d.rows)
    }

    /// `rows` in `format`'s view; the others zero.
    pub fn from_rows(format: DstFormat, rows: &[DstRow]) -> DstImage {
        let mut img = DstImage::new(format);
        let view = usize::from(format.mode().rows());
        let inside = rows
            .iter()
            .map(|r| usize::from(r.row))
            .filter(|&r| r < view);
        if let (Some(lo), Some(hi)) = (inside.clone().min(), inside.max()) {
            img.first = lo;
            img.rows = vec![[0; 16]; hi - lo + 1];
        }
        for r in rows {
            img.set_row(usize::from(r.row), r.cells);
        }
        img
    }

    /// Set one row; rows outside the view are ignored.
    pub fn set_row(&mut self, row: usize, cells: [u32; 16]) {
        if row >= usize::from(self.format.mode().rows()) {
            return;
        }
        if self.rows.is_empty() {
            self.first = row;
        } else if row < self.first {
            let grow = self.first - row;
            self.rows.splice(0..0, std::iter::repeat_n([0; 16], grow));
            self.first = row;
        }
        let i = row - self.first;
        if i >= self.rows.len() {
            self.rows.resize(i + 1, [0; 16]);
        }
        self.rows[i] = cells;
    }

    /// The value at (`row`, `col`) in the image's own view.
    pub fn value(&self, row: usize, col: usize) -> u32 {
        row.checked_sub(self.first)
            .and_then(|i| self.rows.get(i))
            .map_or(0, |r| r[col & 15])
    }

    /// The 16 storage bits of a `Dst16b` cell (`DstBits`).
    pub fn storage16(&self, row: usize, col: usize) -> u16 {
        let v = self.value(row, col);
        match self.format {
            DstFormat::Bf16 => bf16_arrangement(v as u16),
            DstFormat::Fp16 => fp16_arrangement(v as u16),
            _ => v as u16,
        }
    }

    /// The 32 storage bits of a `Dst32b` cell.
    pub fn storage32(&self, row: usize, col: usize) -> u32 {
        let v = self.value(row, col);
        match self.format {
            DstFormat::Raw32 => v,
            _ => (u32::from(bf16_arrangement((v >> 16) as u16)) << 16) | (v & 0xffff),
        }
    }

    /// A `Dst16b` cell read as BF16 (IEEE field order).
    pub fn read_bf16(&self, row: usize, col: usize) -> u16 {
        bf16_from_arrangement(self.storage16(row, col))
    }

    /// A `Dst16b` cell read as FP16 (IEEE field order).
    pub fn read_fp16(&self, row: usize, col: usize) -> u16 {
        let s = self.storage16(row, col);
        (s & 0x8000) | ((s & 0x1f) << 10) | ((s >> 5) & 0x3ff)
    }

    /// A `Dst32b` cell read as FP32 or sign-magnitude INT32 (same layout).
    pub fn read_32(&self, row: usize, col: usize) -> u32 {
        let s = self.storage32(row, col);
        (u32::from(bf16_from_arrangement((s >> 16) as u16)) << 16) | (s & 0xffff)
    }
}

/// BF16 (IEEE order) as `Dst16b` keeps it: sign, then mantissa, then exponent.
pub fn bf16_arrangement(x: u16) -> u16 {
    let sign = x & 0x8000;
    let exponent = (x >> 7) & 0xff;
    let mantissa = x & 0x7f;
    sign | (mantissa << 8) | exponent
}

/// The BF16 (IEEE order) whose `Dst16b` arrangement is `s`: the inverse of
/// [`bf16_arrangement`].
pub fn bf16_from_arrangement(s: u16) -> u16 {
    (s & 0x8000) | ((s & 0xff) << 7) | ((s >> 8) & 0x7f)
}

/// FP16 (IEEE order) as `Dst16b` keeps it.
pub fn fp16_arrangement(x: u16) -> u16 {
    let sign = x & 0x8000;
    let exponent = (x >> 10) & 0x1f;
    let mantissa = x & 0x3ff;
    sign | (mantissa << 5) | exponent
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_arrangements_follow_dst_md() {
        // Dst.md "Data type bit layout": 1.0 in BF16 is 0x3f80 (exponent 127,
        // mantissa 0): stored as exponent 0x7f in the low byte.
        assert_eq!(bf16_arrangement(0x3f80), 0x007f);
        // -1.5 BF16 0xbfc0: sign, mantissa 0x40 at 14:8, exponent 0x7f.
        assert_eq!(bf16_arrangement(0xbfc0), 0xc07f);
        // 1.0 FP16 0x3c00: exponent 15 in 4:0.
        assert_eq!(fp16_arrangement(0x3c00), 0x000f);
        assert_eq!(bf16_from_arrangement(0xc07f), 0xbfc0);
        let mut d = DstImage::new(DstFormat::Bf16);
        d.set_row(3, [0xbfc0; 16]);
        assert_eq!(d.storage16(3, 0), 0xc07f);
        assert_eq!(d.read_bf16(3, 5), 0xbfc0);
        assert_eq!(d.value(4, 0), 0, "unwritten rows read as zero");
        let mut w = DstImage::new(DstFormat::Fp32);
        w.set_row(0, [0x3f80_1234; 16]);
        assert_eq!(w.storage32(0, 0), 0x007f_1234);
        assert_eq!(w.read_32(0, 0), 0x3f80_1234);
    }

    #[test]
    fn rows_outside_the_view_are_ignored_and_unwritten_ones_read_zero() {
        let mut w = DstImage::new(DstFormat::Fp32);
        w.set_row(600, [7; 16]);
        w.set_row(511, [9; 16]);
        assert_eq!(w.value(600, 0), 0, "the 32-bit view has 512 rows");
        assert_eq!(w.value(511, 15), 9);
        assert_eq!(w.value(510, 15), 0);
        let mut h = DstImage::new(DstFormat::Bf16);
        h.set_row(1023, [1; 16]);
        assert_eq!(h.value(1023, 3), 1, "the 16-bit view has 1024 rows");
        // Rows set below the first one set, and rows between.
        h.set_row(1000, [2; 16]);
        h.set_row(1010, [3; 16]);
        assert_eq!(
            (h.value(1000, 0), h.value(1010, 0), h.value(1023, 0)),
            (2, 3, 1)
        );
        assert_eq!(
            (h.value(999, 0), h.value(1005, 0), h.value(0, 0)),
            (0, 0, 0)
        );
        let rows = [(700u16, 5u32), (40, 6), (511, 7), (600, 8)].map(|(row, v)| DstRow {
            row,
            cells: [v; 16],
        });
        let w = DstImage::from_rows(DstFormat::Fp32, &rows);
        let got = [700, 40, 511, 600, 41, 39].map(|r| w.value(r, 9));
        assert_eq!(
            got,
            [0, 6, 7, 0, 0, 0],
            "rows past 511 are not in the 32-bit view"
        );
    }
}
