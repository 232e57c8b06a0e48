//! Edge masking: replace datums from `Dst` with 0 or −∞ by their position
//! (tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/Packers/EdgeMasking.md`, and for
//! Blackhole's row-granular tile position, `BlackholeA0/.../PACR.md`).

use super::config::EdgeConfig;
use crate::fault::{Fault, Result};
use crate::format::pack::Intermediate;

/// A packer's tile position generator (EdgeMasking.md, `TilePositionGenerator`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TilePosition {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl TilePosition {
    /// Wormhole: `Advance()` after each datum fetched from `Dst`. `X` counts
    /// 16 datums to a row; rows count to `pack_reads_per_xy_plane` in `Y`
    /// (or in `Z` when `pack_yz_transposed`), which then wraps and bumps the
    /// other counter. An equality test, so a plane size of 0 never wraps.
    #[inline]
    pub fn advance_datum(&mut self, reads_per_xy_plane: u32, yz_transposed: bool) {
        self.x += 1;
        if self.x == 16 {
            self.x = 0;
            self.next_row(reads_per_xy_plane, yz_transposed);
        }
    }

    /// [`TilePosition::advance_datum`] `n` times (`n` at most 16, as a
    /// `Dst` row's datums are): `X` reaches 16, and wraps, at most once.
    #[inline]
    pub fn advance_datums(&mut self, n: u32, reads_per_xy_plane: u32, yz_transposed: bool) {
        debug_assert!(n <= 16, "at most a row of datums");
        if self.x < 16 && self.x + n >= 16 {
            // The datums after the one that wrapped `X` count from 0.
            self.x = self.x + n - 16;
            self.next_row(reads_per_xy_plane, yz_transposed);
        } else {
            self.x = self.x.wrapping_add(n);
        }
    }

    /// The row count on, wrapping at the plane's size into the other
    /// counter, as `X` wraps.
    #[inline]
    fn next_row(&mut self, reads_per_xy_plane: u32, yz_transposed: bool) {
        let (inner, outer) = if yz_transposed {
            (&mut self.z, &mut self.y)
        } else {
            (&mut self.y, &mut self.z)
        };
        *inner = inner.wrapping_add(1);
        if *inner == reads_per_xy_plane {
            *inner = 0;
            *outer = outer.wrapping_add(1);
        }
    }

    /// Blackhole: after a `PACR`, the tile position advances by the number
    /// of enabled read interfaces. It is an 8-bit counter and returns to
    /// zero (starting the next xy plane, i.e. bumping `Z`) only when the
    /// advance lands exactly on `pack_reads_per_xy_plane` (BlackholeA0
    /// PACR.md, last paragraph of "`Dst` read interfaces").
    pub fn advance_rows(&mut self, rows: u32, reads_per_xy_plane: u32) {
        self.y = self.y.wrapping_add(rows);
        if self.y == reads_per_xy_plane {
            self.y = 0;
            self.z = self.z.wrapping_add(1);
        }
        self.y &= 0xFF;
    }
}

/// Whether column `col` of a row passes the column mask `mask`
/// (`FetchFromDst`: bit `col` set). `col` is a column of a 16-datum row
/// (each caller has indexed the row with it), so the shift never wraps; a
/// wrapping shift and a bit test leave a fuzz build no shift check or
/// compare to trace.
#[inline]
pub fn passes(mask: u16, col: u32) -> bool {
    mask.wrapping_shr(col) & 1 != 0
}

/// Entry `k` of a 16-entry table of 2-bit fields.
#[inline]
const fn entry(word: u32, k: u32) -> usize {
    ((word >> (2 * (k & 0xF))) & 3) as usize
}

impl EdgeConfig {
    /// The 16-bit column mask for packer `packer` at tile row `y`, with
    /// `z = ZOffset + TPG.Z` for the face-set mapping (EdgeMasking.md,
    /// `FetchFromDst`).
    #[inline]
    pub fn mask(&self, packer: usize, y: u32, z: u32) -> u16 {
        let shift = 2 * (packer as u32 & 3);
        let b = if self.face_set_enable {
            let a = ((self.face_set_select >> shift) & 3) as usize;
            entry(self.face_set_mapping[a], z)
        } else {
            ((self.row_set_select >> shift) & 3) as usize
        };
        let c = entry(self.row_set_mapping[b], y);
        self.masks[c]
    }

    /// Whether [`EdgeConfig::mask`] is `0xFFFF` for packer `packer` at every
    /// tile position: every mask its row-set (and face-set) selections can
    /// reach is all ones.
    pub fn never_masks(&self, packer: usize) -> bool {
        let shift = 2 * (packer as u32 & 3);
        let row_set_passes =
            |b: usize| (0..16).all(|k| self.masks[entry(self.row_set_mapping[b], k)] == 0xFFFF);
        if self.face_set_enable {
            let a = ((self.face_set_select >> shift) & 3) as usize;
            (0..16).all(|k| row_set_passes(entry(self.face_set_mapping[a], k)))
        } else {
            row_set_passes(((self.row_set_select >> shift) & 3) as usize)
        }
    }
}

/// The datum a masked position yields, in the intermediate type `like`
/// (EdgeMasking.md: 0, or −∞ with `PCK_EDGE_MODE_mode`). −∞ is the format's
/// own infinity: `0xFF800000` / `0xFF80` for the 8-bit-exponent types, and
/// for the 5-bit-exponent types (which have no infinity) the Tensix FP16
/// stand-in, exponent 31 with an all-ones mantissa (FloatBitPatterns.md,
/// "FP16"), cut to the type's mantissa. Integers have no −∞; the page does
/// not say what the hardware substitutes, so that stops the run.
pub fn fill(like: Intermediate, negative_infinity: bool) -> Result<Intermediate> {
    use Intermediate as I;
    if !negative_infinity {
        return Ok(zero_of(like));
    }
    Ok(match like {
        I::Fp32(_) => I::Fp32(0xFF80_0000),
        I::Tf32(_) => I::Tf32(0xFF80_0000),
        I::Bf16(_) => I::Bf16(0xFF80),
        I::E8m6(_) => I::E8m6(0xFF80),
        I::Fp16(_) => I::Fp16(0xFFFF),
        I::E5m7(_) => I::E5m7(0xFFF8),
        I::E5m6(_) => I::E5m6(0xFFF0),
        I::Fp8(_) => I::Fp8(0xFF),
        I::Int32(_) | I::Int16(_) | I::Int8(_) | I::UInt8(_) => {
            return Err(Fault::unsupported(format!(
                "edge masking with PCK_EDGE_MODE_mode = 1 (−∞) into the integer intermediate {}: \
                 integers have no −∞ and EdgeMasking.md does not say what is substituted",
                like.format()
            )))
        }
    })
}

/// +0 of `like`'s type.
#[inline]
pub const fn zero_of(like: Intermediate) -> Intermediate {
    use Intermediate as I;
    match like {
        I::Fp32(_) => I::Fp32(0),
        I::Tf32(_) => I::Tf32(0),
        I::Bf16(_) => I::Bf16(0),
        I::E8m6(_) => I::E8m6(0),
        I::Fp16(_) => I::Fp16(0),
        I::E5m7(_) => I::E5m7(0),
        I::E5m6(_) => I::E5m6(0),
        I::Fp8(_) => I::Fp8(0),
        I::Int32(_) => I::Int32(0),
        I::Int16(_) => I::Int16(0),
        I::Int8(_) => I::Int8(0),
        I::UInt8(_) => I::UInt8(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `advance_datums(n)` is `n` calls of `advance_datum`, from every `X`
    /// below 20 (past 16 too, where `X` never wraps), rows near a plane's
    /// end, both orders of `Y` and `Z`, and planes of 0, 1 and 4 rows.
    #[test]
    fn advancing_n_datums_is_advancing_one_n_times() {
        for x in 0..20 {
            for (y, z) in [(0, 0), (3, 7), (0, u32::MAX)] {
                for plane in [0, 1, 4] {
                    for transposed in [false, true] {
                        for n in 0..=16 {
                            let start = TilePosition { x, y, z };
                            let mut want = start;
                            for _ in 0..n {
                                want.advance_datum(plane, transposed);
                            }
                            let mut got = start;
                            got.advance_datums(n, plane, transposed);
                            assert_eq!(got, want, "{start:?} + {n}, plane {plane}, {transposed}");
                        }
                    }
                }
            }
        }
    }

    /// `never_masks` against its definition: `mask` is `0xFFFF` at every row
    /// and face position (entries are indexed by the low four bits, so 16
    /// of each cover every position).
    #[test]
    fn never_masks_agrees_with_mask_at_every_position() {
        let mut x = 0x2545_F491u32;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let mut seen = [0usize; 2];
        for _ in 0..4000 {
            // Masks mostly all ones, so both answers occur.
            let mask = |v: u32| {
                if v.is_multiple_of(4) {
                    v as u16
                } else {
                    0xFFFF
                }
            };
            // Mapping words with few distinct entries, so unreachable masks
            // are common.
            let mapping = |v: u32| {
                if v.is_multiple_of(2) {
                    v & 0x5555_5555
                } else {
                    v
                }
            };
            let e = EdgeConfig {
                negative_infinity: false,
                face_set_enable: next() % 2 == 0,
                face_set_select: next() & 0xFF,
                row_set_select: next() & 0xFF,
                row_set_mapping: [(); 4].map(|_| mapping(next())),
                face_set_mapping: [(); 4].map(|_| mapping(next())),
                masks: [(); 4].map(|_| mask(next())),
            };
            for packer in 0..4 {
                let every = (0..16).all(|y| (0..16).all(|z| e.mask(packer, y, z) == 0xFFFF));
                assert_eq!(e.never_masks(packer), every, "{e:?} packer {packer}");
                seen[every as usize] += 1;
            }
        }
        assert!(seen[0] > 1000 && seen[1] > 1000, "{seen:?}");
    }
}
