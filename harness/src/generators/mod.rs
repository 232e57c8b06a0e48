//! `arbitrary`-based inputs shared by the fuzz targets (`fuzz/`) and the
//! property tests: config register images, programs around PACR and UNPACR,
//! MOP configurations, tile jobs, and data that leans on edge cases.
//!
//! A fuzz target decodes its input bytes with [`decode`]; a property test
//! draws a seed and calls [`from_seed`], which feeds the same decoder bytes
//! from a deterministic generator, so both explore the same space and a
//! finding from either replays through the same oracle.

mod draw;
pub mod program;
pub mod tile;
pub mod values;
pub mod vectors;

use arbitrary::{Arbitrary, Unstructured};

/// Decode a `T` from fuzz input bytes, as every fuzz target does (running
/// out of bytes gives the smallest choices, not an error).
pub fn decode<'a, T: Arbitrary<'a>>(bytes: &'a [u8]) -> arbitrary::Result<T> {
    T::arbitrary_take_rest(Unstructured::new(bytes))
}

/// `len` bytes from a seed (SplitMix64): the same seed, the same bytes.
pub fn seeded_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// A `T` drawn from `len` seeded bytes: the bridge for property tests.
pub fn from_seed<T>(seed: u64, len: usize) -> T
where
    T: for<'a> Arbitrary<'a>,
{
    let bytes = seeded_bytes(seed, len);
    // `arbitrary_take_rest` never fails for the generators here: missing
    // bytes read as zeros.
    decode::<T>(&bytes).unwrap_or_else(|e| panic!("seed {seed}: the generator failed: {e}"))
}

/// Up to `len` raw bytes (fewer when the input runs out).
pub fn take<'a>(u: &mut Unstructured<'a>, len: usize) -> &'a [u8] {
    let n = len.min(u.len());
    u.bytes(n).unwrap_or_default()
}

/// The input of the `isa_roundtrip` target: an architecture and a word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IsaCase {
    pub arch: crate::vector::Arch,
    pub word: u32,
}

impl<'a> Arbitrary<'a> for IsaCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let arch = if u.arbitrary()? {
            crate::vector::Arch::Blackhole
        } else {
            crate::vector::Arch::WormholeB0
        };
        Ok(IsaCase {
            arch,
            word: u.arbitrary()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_bytes_are_deterministic_and_seed_dependent() {
        assert_eq!(seeded_bytes(7, 33), seeded_bytes(7, 33));
        assert_ne!(seeded_bytes(7, 33), seeded_bytes(8, 33));
        assert_eq!(seeded_bytes(7, 33).len(), 33);
    }
}
