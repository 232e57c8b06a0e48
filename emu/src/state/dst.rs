//! The `Dst` register file.
//!
//! tt-isa-documentation `Dst.md` (both trees): the storage is
//! `DstBits[1024][16]` of 16 bits plus a valid bit per row. `Dst16b[r]` is
//! `DstBits[Adj16(r)]`; `Dst32b[r]` is the pair `DstBits[Adj32(r)]` (high
//! half) and `DstBits[Adj32(r) + 8]` (low half). Wormhole B0 has no address
//! remapping; Blackhole's `Adj16`/`Adj32` apply
//! `DEST_ACCESS_CFG_remap_addrs` and `DEST_ACCESS_CFG_swizzle_32b`.
//!
//! The power-on contents are unpredictable on silicon; this model starts
//! from zero with every row invalid, which is the reset state the conformance
//! vector schema defines.

use crate::arch::Arch;
use crate::format::dst as fmt;
use crate::state::written::{set_bits, set_range};

/// Rows of `Dst16b` (and of the underlying storage).
pub const ROWS: usize = 1024;
/// Rows of `Dst32b`.
pub const ROWS_32B: usize = 512;
/// Columns in every row.
pub const COLS: usize = 16;

/// How a `Dst` row index maps to storage rows: the Blackhole
/// `DEST_ACCESS_CFG_*` controls, read once per instruction.
pub use crate::format::dst::DstAccessCfg as DstAddressing;

/// Storage row of `Dst16b[row]` (`Adj16`).
pub fn adj16(arch: Arch, a: DstAddressing, row: u32) -> usize {
    crate::format::dst::adj16(arch, (row & 0x3ff) as u16, a) as usize
}

/// Storage row of the high half of `Dst32b[row]` (`Adj32`); the low half is
/// eight storage rows further on.
pub fn adj32(arch: Arch, a: DstAddressing, row: u32) -> usize {
    crate::format::dst::adj32(arch, (row & 0x3ff) as u16, a) as usize
}

/// `DstBits` and `DstRowValid`.
#[derive(Clone)]
pub struct Dst {
    bits: Box<super::CacheLines<[[u16; COLS]; ROWS]>>,
    valid: Box<[bool; ROWS]>,
    /// A bit per storage row that may hold a non-zero cell (every write
    /// sets its row's), so that a machine reused across jobs clears and
    /// copies what the jobs wrote rather than all 32 KiB.
    written: [u64; ROWS / 64],
}

impl Default for Dst {
    fn default() -> Dst {
        Dst {
            bits: Box::new(super::CacheLines([[0; COLS]; ROWS])),
            valid: Box::new([false; ROWS]),
            written: [0; ROWS / 64],
        }
    }
}

/// Equal contents: which rows were written along the way does not matter.
impl PartialEq for Dst {
    fn eq(&self, other: &Dst) -> bool {
        self.bits == other.bits && self.valid == other.valid
    }
}

impl Eq for Dst {}

impl std::fmt::Debug for Dst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let valid = self.valid.iter().filter(|v| **v).count();
        write!(f, "Dst {{ {valid} valid rows }}")
    }
}

impl Dst {
    /// Back to the reset state (all zero, no row valid) without allocating.
    pub fn reset(&mut self) {
        let written = self.written;
        for r in set_bits(&written) {
            self.bits[r] = [0; COLS];
        }
        self.written = [0; ROWS / 64];
        self.valid.fill(false);
    }

    /// Take `other`'s bits and valid flags without allocating, copying the
    /// rows either has written.
    pub fn copy_from(&mut self, other: &Dst) {
        let either: [u64; ROWS / 64] = std::array::from_fn(|i| self.written[i] | other.written[i]);
        for r in set_bits(&either) {
            self.bits[r] = other.bits[r];
        }
        self.written = other.written;
        self.valid.copy_from_slice(&other.valid[..]);
    }

    #[inline]
    fn mark(&mut self, storage_row: usize) {
        self.written[storage_row / 64] |= 1 << (storage_row % 64);
    }

    /// One storage row; `row` is taken modulo 1024.
    pub fn row(&self, row: usize) -> &[u16; COLS] {
        &self.bits[row % ROWS]
    }

    pub fn row_mut(&mut self, row: usize) -> &mut [u16; COLS] {
        self.mark(row % ROWS);
        &mut self.bits[row % ROWS]
    }

    pub fn is_valid(&self, row: usize) -> bool {
        self.valid[row % ROWS]
    }

    /// Storage rows `from .. from + n`, if all of them are valid (and none
    /// is past the last).
    #[inline]
    pub fn valid_rows(&self, from: usize, n: usize) -> Option<&[[u16; COLS]]> {
        let range = from..from.checked_add(n)?;
        // Every flag read, with no early exit, so that the test is a few
        // vector comparisons.
        let all = self
            .valid
            .get(range.clone())?
            .iter()
            .fold(true, |all, v| all & v);
        all.then(|| &self.bits[range])
    }

    /// `blocks` blocks of 16 storage rows from `from`, each eight rows of
    /// `Dst32b` high halves then their eight low halves (`Adj32` with no
    /// remapping or swizzle), if every high-half row is valid and none is
    /// past the last. Only the high half's row is tested: a 32-bit write
    /// marks that row valid, and a 32-bit read tests that row alone.
    #[inline]
    pub fn valid_blocks32(&self, from: usize, blocks: usize) -> Option<&[[[u16; COLS]; 16]]> {
        let range = from..from.checked_add(blocks.checked_mul(16)?)?;
        let rows = self.bits.get(range.clone())?;
        // Every flag read, with no early exit, as in `valid_rows`.
        let all = self
            .valid
            .get(range)?
            .chunks_exact(16)
            .fold(true, |all, block| {
                block[..8].iter().fold(all, |all, v| all & v)
            });
        all.then_some(rows.as_chunks::<16>().0)
    }

    pub fn set_valid(&mut self, row: usize, valid: bool) {
        self.valid[row % ROWS] = valid;
    }

    /// `Dst32b[row][col]` in the `Dst32b` bit layout, given the storage row
    /// from [`adj32`].
    pub fn read32_at(&self, storage_row: usize, col: usize) -> u32 {
        let hi = self.bits[storage_row % ROWS][col % COLS] as u32;
        let lo = self.bits[(storage_row + 8) % ROWS][col % COLS] as u32;
        (hi << 16) | lo
    }

    /// Storage rows `start..start + n` (which must lie inside `Dst`: no
    /// wrap), marked written and made valid, for a caller that stores whole
    /// rows into all of them.
    ///
    /// # Panics
    /// If the rows leave `Dst`.
    #[inline]
    pub fn store_rows(&mut self, start: usize, n: usize) -> &mut [[u16; COLS]] {
        let end = start + n;
        set_range(&mut self.written, start, end);
        self.valid[start..end].fill(true);
        &mut self.bits[start..end]
    }

    /// Inverse of [`Dst::read32_at`].
    pub fn write32_at(&mut self, storage_row: usize, col: usize, value: u32) {
        self.mark(storage_row % ROWS);
        self.mark((storage_row + 8) % ROWS);
        self.bits[storage_row % ROWS][col % COLS] = (value >> 16) as u16;
        self.bits[(storage_row + 8) % ROWS][col % COLS] = value as u16;
    }

    /// [`Dst::write32_at`] for all 16 columns of a storage row.
    #[inline]
    pub fn write32_row(&mut self, storage_row: usize, values: &[u32; COLS]) {
        // Computed in registers before the stores, which the compiler then
        // vectorises (it cannot rule out that `values` overlaps `bits`).
        let v = *values;
        let (mut hi, mut lo) = ([0u16; COLS], [0u16; COLS]);
        for ((h, l), x) in hi.iter_mut().zip(lo.iter_mut()).zip(v) {
            *h = (x >> 16) as u16;
            *l = x as u16;
        }
        self.mark(storage_row % ROWS);
        self.mark((storage_row + 8) % ROWS);
        self.bits[storage_row % ROWS] = hi;
        self.bits[(storage_row + 8) % ROWS] = lo;
    }

    /// Row `row` in `view` under addressing `a` (`Load16` / `Load32`); the
    /// valid flags are not consulted.
    pub fn read_row(&self, arch: Arch, a: DstAddressing, view: DstView, row: u32) -> [u32; COLS] {
        let s = view.storage_row(arch, a, row);
        if view.is_32b() {
            std::array::from_fn(|c| view.load32(self.read32_at(s, c)))
        } else {
            std::array::from_fn(|c| u32::from(view.load16(self.row(s)[c])))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dst32_row_owns_two_storage_rows() {
        for (arch, a) in [
            (Arch::WormholeB0, DstAddressing::default()),
            (
                Arch::Blackhole,
                DstAddressing {
                    remap_addrs: true,
                    swizzle_32b: true,
                },
            ),
        ] {
            let mut used = [false; ROWS];
            for r in 0..ROWS_32B as u32 {
                let s = adj32(arch, a, r);
                assert!(!used[s] && !used[s + 8], "{arch} row {r}");
                used[s] = true;
                used[s + 8] = true;
            }
        }
    }

    /// Rows stored as a run are valid, hold what was stored, and are the
    /// rows a reset clears, wherever the run starts and ends against the
    /// 64-row words of the written bitmap.
    #[test]
    fn stored_runs_are_valid_written_and_cleared_by_reset() {
        let mut d = Dst::default();
        for (start, n) in [(0, 1), (5, 16), (60, 8), (63, 66), (128, 64), (1000, 24)] {
            for (j, row) in d.store_rows(start, n).iter_mut().enumerate() {
                *row = [(start + j) as u16 | 0x8000; COLS];
            }
            for r in 0..ROWS {
                let inside = (start..start + n).contains(&r);
                assert_eq!(d.is_valid(r), inside, "run {start}+{n}, row {r}");
                if inside {
                    assert_eq!(d.row(r)[COLS - 1], r as u16 | 0x8000);
                }
            }
            d.reset();
            assert!(d == Dst::default(), "run {start}+{n} survives a reset");
            assert!(
                (0..ROWS).all(|r| d.row(r) == &[0; COLS]),
                "run {start}+{n}: reset left a stored row"
            );
        }
    }

    #[test]
    fn dst32_halves_live_eight_rows_apart() {
        let mut d = Dst::default();
        d.write32_at(16, 3, 0x1234_5678);
        assert_eq!(d.row(16)[3], 0x1234);
        assert_eq!(d.row(24)[3], 0x5678);
        assert_eq!(d.read32_at(16, 3), 0x1234_5678);
    }
}

/// How canonical Dst values are written in conformance vectors: the layout a
/// RISC-V core sees through the Dst window with swizzling on
/// (tt-isa-documentation `Dst.md`, "RISCV access to Dst": `fmt` 3 for BF16,
/// 2 for FP16, 0 for FP32 and Integer "32"), or raw storage bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DstView {
    /// `Dst16b`, BF16 as the RISC-V window shows it (`fmt` 3).
    Bf16,
    /// `Dst16b`, FP16 as the RISC-V window shows it (`fmt` 2).
    Fp16,
    /// `Dst16b`, `DstBits` cells unchanged.
    Raw16,
    /// `Dst32b`, IEEE FP32 (`fmt` 0).
    Fp32,
    /// `Dst32b`, sign-magnitude Integer "32" (`fmt` 0: same bit shuffle).
    Int32,
    /// `Dst32b`, storage layout unchanged.
    Raw32,
}

impl DstView {
    /// Every view.
    pub const ALL: [DstView; 6] = [
        DstView::Bf16,
        DstView::Fp16,
        DstView::Raw16,
        DstView::Fp32,
        DstView::Int32,
        DstView::Raw32,
    ];

    pub fn is_32b(self) -> bool {
        matches!(self, DstView::Fp32 | DstView::Int32 | DstView::Raw32)
    }

    /// The storage row of row `row` in this view: `Adj16`, or for a
    /// 32-bit view `Adj32` (the high half; the low half is eight on).
    pub fn storage_row(self, arch: Arch, a: DstAddressing, row: u32) -> usize {
        if self.is_32b() {
            adj32(arch, a, row)
        } else {
            adj16(arch, a, row)
        }
    }

    /// A 16-bit view value to the `DstBits` cell (`Dst.md`, `Store16`).
    pub fn store16(self, v: u16) -> u16 {
        match self {
            DstView::Bf16 => fmt::encode_bf16(v),
            DstView::Fp16 => fmt::encode_fp16(v),
            _ => v,
        }
    }

    /// [`DstView::store16`] on a whole row.
    pub fn store16_row(self, v: &[u16; COLS]) -> [u16; COLS] {
        match self {
            DstView::Bf16 => v.map(fmt::encode_bf16),
            DstView::Fp16 => v.map(fmt::encode_fp16),
            _ => *v,
        }
    }

    /// A `DstBits` cell to the 16-bit view value (`Dst.md`, `Load16`).
    pub fn load16(self, v: u16) -> u16 {
        match self {
            DstView::Bf16 => fmt::decode_bf16(v),
            DstView::Fp16 => fmt::decode_fp16(v),
            _ => v,
        }
    }

    /// A 32-bit view value to the `Dst32b` layout (`Dst.md`, `Store32`).
    pub fn store32(self, v: u32) -> u32 {
        match self {
            DstView::Fp32 | DstView::Int32 => fmt::encode_fp32(v),
            _ => v,
        }
    }

    /// [`DstView::store32`] on a whole row.
    pub fn store32_row(self, v: &[u32; COLS]) -> [u32; COLS] {
        match self {
            DstView::Fp32 | DstView::Int32 => v.map(fmt::encode_fp32),
            _ => *v,
        }
    }

    /// A `Dst32b` value to the 32-bit view value (`Dst.md`, `Load32`).
    pub fn load32(self, v: u32) -> u32 {
        match self {
            DstView::Fp32 | DstView::Int32 => fmt::decode_fp32(v),
            _ => v,
        }
    }
}

#[cfg(test)]
mod view_tests {
    use super::DstView;

    #[test]
    fn bf16_view_moves_the_exponent_to_the_low_byte() {
        // Dst.md, Dst16_BF16: exponent [7:0], mantissa [14:8], sign [15].
        // BF16 1.0 = 0x3f80: exponent 0x7f, mantissa 0.
        assert_eq!(DstView::Bf16.store16(0x3f80), 0x007f);
        assert_eq!(DstView::Bf16.store16(0xc0c1), 0x8000 | (0x41 << 8) | 0x81);
    }

    #[test]
    fn fp32_view_matches_dst32_layout() {
        // Dst.md, Dst32_FP32: mantissa low [15:0], exponent [23:16],
        // mantissa high [30:24], sign [31]. FP32 1.5 = 0x3fc00000.
        assert_eq!(DstView::Fp32.store32(0x3fc0_0000), 0x407f_0000);
    }

    /// The row forms store each cell as the cell forms do, in every view.
    #[test]
    fn row_stores_are_cell_stores() {
        let mut x = 0x9E37_79B9u32;
        for _ in 0..1000 {
            let row: [u32; 16] = std::array::from_fn(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                x
            });
            let narrow = row.map(|v| v as u16);
            for view in DstView::ALL {
                assert_eq!(view.store16_row(&narrow), narrow.map(|v| view.store16(v)));
                assert_eq!(view.store32_row(&row), row.map(|v| view.store32(v)));
            }
        }
    }

    #[test]
    fn views_round_trip_exhaustively() {
        for v in 0..=u16::MAX {
            for view in [DstView::Bf16, DstView::Fp16, DstView::Raw16] {
                assert_eq!(view.load16(view.store16(v)), v);
            }
        }
        let mut x = 0x1234_5678u32;
        for _ in 0..100_000 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            assert_eq!(DstView::Fp32.load32(DstView::Fp32.store32(x)), x);
        }
    }
}
