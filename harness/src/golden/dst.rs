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

    /// `rows` in `format`'s view; the others zero. Rows outside the view
    /// are ignored; of two with the same number, the later one stands.
    pub fn from_rows(format: DstFormat, rows: &[DstRow]) -> DstImage {
        let view = usize::from(format.mode().rows());
        let inside = || rows.iter().filter(|r| usize::from(r.row) < view);
        let numbers = || inside().map(|r| usize::from(r.row));
        let (Some(first), Some(last)) = (numbers().min(), numbers().max()) else {
            return DstImage::new(format);
        };
        let mut img = DstImage {
            format,
            first,
            rows: vec![[0; 16]; last - first + 1],
        };
        for r in inside() {
            img.rows[usize::from(r.row) - first] = r.cells;
        }
        img
    }

    /// The value at (`row`, `col`) in the image's own view.
    pub fn value(&self, row: usize, col: usize) -> u32 {
        self.values(row)[col & 15]
    }

    /// Row `row`'s values in the image's own view, zero if never written.
    fn values(&self, row: usize) -> &[u32; 16] {
        self.stored(row).unwrap_or(&[0; 16])
    }

    /// Row `row`, zero if never written.
    pub fn row(&self, row: usize) -> ImageRow<'_> {
        ImageRow {
            format: self.format,
            values: self.values(row),
        }
    }

    /// Row `row` as written, if it was.
    fn stored(&self, row: usize) -> Option<&[u32; 16]> {
        row.checked_sub(self.first).and_then(|i| self.rows.get(i))
    }
}

/// One row of a [`DstImage`]: its 16 values in the image's view, read the
/// ways the packer reads a cell. Columns wrap at 16.
#[derive(Clone, Copy, Debug)]
pub struct ImageRow<'a> {
    format: DstFormat,
    values: &'a [u32; 16],
}

impl ImageRow<'_> {
    /// The 16 storage bits of a `Dst16b` cell (`DstBits`).
    pub fn storage16(&self, col: usize) -> u16 {
        let v = self.values[col & 15];
        match self.format {
            DstFormat::Bf16 => bf16_arrangement(v as u16),
            DstFormat::Fp16 => fp16_arrangement(v as u16),
            _ => v as u16,
        }
    }

    /// The 32 storage bits of a `Dst32b` cell.
    pub fn storage32(&self, col: usize) -> u32 {
        let v = self.values[col & 15];
        match self.format {
            DstFormat::Raw32 => v,
            _ => (u32::from(bf16_arrangement((v >> 16) as u16)) << 16) | (v & 0xffff),
        }
    }

    /// A `Dst16b` cell read as BF16 (IEEE field order).
    pub fn read_bf16(&self, col: usize) -> u16 {
        bf16_from_arrangement(self.storage16(col))
    }

    /// A `Dst16b` cell read as FP16 (IEEE field order).
    pub fn read_fp16(&self, col: usize) -> u16 {
        let s = self.storage16(col);
        (s & 0x8000) | ((s & 0x1f) << 10) | ((s >> 5) & 0x3ff)
    }

    /// A `Dst32b` cell read as FP32 or sign-magnitude INT32 (same layout).
    pub fn read_32(&self, col: usize) -> u32 {
        let s = self.storage32(col);
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
        let d = DstImage::from_rows(DstFormat::Bf16, &[row(3, 0xbfc0)]);
        assert_eq!(d.row(3).storage16(0), 0xc07f);
        assert_eq!(d.row(3).read_bf16(5), 0xbfc0);
        assert_eq!(d.value(4, 0), 0, "unwritten rows read as zero");
        let w = DstImage::from_rows(DstFormat::Fp32, &[row(0, 0x3f80_1234)]);
        assert_eq!(w.row(0).storage32(0), 0x007f_1234);
        assert_eq!(w.row(0).read_32(0), 0x3f80_1234);
    }

    fn row(row: u16, v: u32) -> DstRow {
        DstRow {
            row,
            cells: [v; 16],
        }
    }

    #[test]
    fn rows_outside_the_view_are_ignored_and_unwritten_ones_read_zero() {
        let rows = [
            row(700, 5),
            row(40, 6),
            row(511, 7),
            row(600, 8),
            row(40, 9),
        ];
        let w = DstImage::from_rows(DstFormat::Fp32, &rows);
        let got = [700, 40, 511, 600, 41, 39].map(|r| w.value(r, 9));
        assert_eq!(
            got,
            [0, 9, 7, 0, 0, 0],
            "rows past 511 are not in the 32-bit view; the later row 40 stands"
        );
        let h = DstImage::from_rows(DstFormat::Bf16, &[row(1023, 1), row(1000, 2)]);
        assert_eq!((h.value(1023, 3), h.value(1000, 0)), (1, 2), "1024 rows");
        assert_eq!(
            (h.value(999, 0), h.value(1005, 0), h.value(0, 0)),
            (0, 0, 0)
        );
        assert_eq!(
            DstImage::from_rows(DstFormat::Fp32, &[row(512, 1)]).value(512, 0),
            0
        );
    }
}
