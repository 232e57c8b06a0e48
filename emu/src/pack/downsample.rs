//! Downsampling: pack a subset of the fetched datums.
//!
//! The page that defines it, tt-isa-documentation
//! `WormholeB0/.../Packers/Downsampling.md`, is not among the stored
//! sources; BlackholeA0 PACR.md refers to it ("only the datums selected by
//! the ADC X range and by downsampling are packed"). The model here is the
//! one the project's seed 000 (section 10) summarises from it: the 16-bit
//! `Downsample_mask` is applied cyclically, datum `j` of a run being kept
//! when bit `j % 16` is set, and a mask of 0 keeps everything.
//! `Downsample_rate` is refused elsewhere (`PackerConfig::check_documented`).

/// A packer's downsampling mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Downsample {
    mask: u16,
}

impl Downsample {
    pub const fn new(downsample_mask: u32) -> Downsample {
        let m = downsample_mask as u16;
        Downsample {
            mask: if m == 0 { 0xFFFF } else { m },
        }
    }

    /// Whether every datum is kept.
    pub const fn keeps_all(self) -> bool {
        self.mask == 0xFFFF
    }

    /// Whether datum `j` of a run is kept.
    #[inline]
    pub const fn keep(self, j: u32) -> bool {
        self.mask & (1 << (j & 15)) != 0
    }

    /// How many of datums `0..n` of a run are kept.
    #[inline]
    pub const fn kept(self, n: u32) -> u32 {
        if self.keeps_all() {
            return n;
        }
        let full = n / 16;
        let rest = n % 16;
        full * self.mask.count_ones() + (self.mask & ((1u32 << rest) - 1) as u16).count_ones()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `kept(n)` is the number of `j < n` that `keep(j)` accepts (mask 0
    /// meaning all, applied cyclically).
    #[test]
    fn kept_counts_the_kept_datums() {
        for mask in [0u32, 1, 0x8001, 0x5555, 0xFFFE, 0xFFFF, 0x1234] {
            let d = Downsample::new(mask);
            for n in [0, 1, 15, 16, 17, 40, 64, 1000] {
                let by_datum = (0..n).filter(|j| d.keep(*j)).count() as u32;
                assert_eq!(d.kept(n), by_datum, "mask {mask:#x} n {n}");
            }
        }
    }
}
