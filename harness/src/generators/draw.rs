//! The draws the datum generators make once per datum, decoding the input
//! exactly as `arbitrary` (1.5) does, so that a corpus means what it meant:
//! `bool`, `u8`, `u16` and `u32` as `Arbitrary` takes them (little-endian
//! bytes, zeros once the input runs out; a `bool` is its byte's low bit),
//! and `Unstructured::int_in_range`, `ratio` and `choose` over at most 256
//! choices (one byte modulo the count; the first choice once the input runs
//! out).
//!
//! `arbitrary` copies each value through a zero-padded buffer of variable
//! length (`Unstructured::fill_buffer`, a `memcpy` call a value) and works
//! each range out in the range's own type, all through calls the compiler
//! does not inline across crates: a tenth of the `roundtrip` fuzz target's
//! instructions went to drawing datums. Here a generator's draws take bytes
//! off the front of a plain slice ([`Draws`]), and [`with`] hands back
//! what they took. The tests hold each draw to `arbitrary`'s on the same
//! bytes.

use arbitrary::Unstructured;

/// The bytes of an input not drawn yet, taken from the front: the draws of
/// one generator, made on a plain slice and handed back to the
/// `Unstructured` by [`with`].
pub struct Draws<'a> {
    rest: &'a [u8],
}

/// `f`'s draws from `u`, with the bytes they took then taken from `u`.
#[inline]
pub fn with<'a, T>(u: &mut Unstructured<'a>, f: impl FnOnce(&mut Draws<'a>) -> T) -> T {
    let all = u.peek_bytes(u.len()).unwrap_or_default();
    let mut d = Draws { rest: all };
    let v = f(&mut d);
    // As many bytes as `d` took, which `u` has.
    let _ = u.bytes(all.len() - d.rest.len());
    v
}

impl Draws<'_> {
    /// The next `N` bytes, zero-padded where the input runs out.
    #[inline]
    fn le_bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0; N];
        // Whole, or (once at the end) what is left.
        let n = N.min(self.rest.len());
        let (now, rest) = self.rest.split_at(n);
        match <[u8; N]>::try_from(now) {
            Ok(all) => out = all,
            Err(_) => out[..n].copy_from_slice(now),
        }
        self.rest = rest;
        out
    }

    /// `u8::arbitrary`.
    #[inline]
    pub fn u8(&mut self) -> u8 {
        match self.rest.split_first() {
            Some((&b, rest)) => {
                self.rest = rest;
                b
            }
            None => 0,
        }
    }

    /// `bool::arbitrary`: the low bit of a `u8`.
    #[inline]
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// `u16::arbitrary`.
    #[inline]
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.le_bytes())
    }

    /// `u32::arbitrary`.
    #[inline]
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.le_bytes())
    }

    /// `Unstructured::choose_index(n)` for `n` of 1 to 256: one byte modulo
    /// `n` (none drawn for `n` = 1), 0 once the input runs out.
    ///
    /// # Panics
    /// If `n` is 0 or past 256 (a generator's own table or range).
    #[inline]
    pub fn index(&mut self, n: usize) -> usize {
        assert!((1..=256).contains(&n), "one byte draws 1 to 256 choices");
        if n == 1 {
            return 0;
        }
        usize::from(self.u8()) % n
    }

    /// `Unstructured::int_in_range(lo..=hi)` for ranges of at most 256
    /// values, in any unsigned type that holds `hi` (the draw is the same
    /// in each).
    ///
    /// # Panics
    /// If the range is empty or wider (a generator's own constants).
    #[inline]
    pub fn in_range(&mut self, lo: u32, hi: u32) -> u32 {
        assert!(lo <= hi, "an empty range");
        lo + self.index((hi - lo + 1) as usize) as u32
    }

    /// `Unstructured::ratio(num, den)`: true about `num` times in `den`
    /// (a draw from `1..=den` of at most `num`).
    #[inline]
    pub fn ratio(&mut self, num: u8, den: u8) -> bool {
        self.index(usize::from(den)) < usize::from(num)
    }

    /// `Unstructured::choose(table)`, copied out.
    #[inline]
    pub fn pick<T: Copy>(&mut self, table: &[T]) -> T {
        table[self.index(table.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::seeded_bytes;

    /// Inputs of every short length (to run out mid-draw) and some long.
    fn inputs() -> impl Iterator<Item = Vec<u8>> {
        let short =
            (0..8).flat_map(|len| (0..6).map(move |s| seeded_bytes(s * 31 + len, len as usize)));
        short.chain((0..20).map(|s| seeded_bytes(1000 + s, 64)))
    }

    /// Draws `f` and `g` alike, over and over from the same bytes, past
    /// their end: the same values and the same bytes left, whether `f`
    /// draws once per [`with`] or many times in one.
    fn same<T: PartialEq + std::fmt::Debug>(
        what: &str,
        mut f: impl FnMut(&mut Draws<'_>) -> T,
        mut g: impl FnMut(&mut Unstructured<'_>) -> arbitrary::Result<T>,
    ) {
        for data in inputs() {
            let mut b = Unstructured::new(&data);
            let want: Vec<T> = (0..60)
                .map(|_| g(&mut b).expect("arbitrary's draw"))
                .collect();
            let mut a = Unstructured::new(&data);
            for (k, three) in want.chunks(3).enumerate() {
                let one = with(&mut a, &mut f);
                let (two, left) = with(&mut a, |d| ([f(d), f(d)], d.rest.len()));
                let [x, y] = two;
                assert_eq!([one, x, y], three, "{what}, draws {k} of {data:02x?}");
                assert_eq!(a.len(), left, "{what}: the bytes drawn are taken");
            }
            assert_eq!(a.len(), b.len(), "{what}, after every draw of {data:02x?}");
        }
    }

    #[test]
    fn integers_and_bools_decode_as_arbitrary_does() {
        same("bool", |d| d.bool(), |u| u.arbitrary::<bool>());
        same("u8", |d| d.u8(), |u| u.arbitrary::<u8>());
        same("u16", |d| d.u16(), |u| u.arbitrary::<u16>());
        same("u32", |d| d.u32(), |u| u.arbitrary::<u32>());
    }

    #[test]
    fn ranges_decode_as_int_in_range_does() {
        for (lo, hi) in [
            (0u32, 9),
            (1, 254),
            (0, 7),
            (8, 12),
            (0, 12),
            (120, 134),
            (0, 255),
            (5, 5),
        ] {
            same(
                &format!("{lo}..={hi} in u32"),
                |d| d.in_range(lo, hi),
                |u| u.int_in_range(lo..=hi),
            );
            let (l, h) = (lo as u8, hi as u8);
            same(
                &format!("{lo}..={hi} in u8"),
                |d| d.in_range(lo, hi) as u8,
                |u| u.int_in_range(l..=h),
            );
        }
        for (lo, hi) in [(1u16, 31), (12, 18), (0, 12)] {
            same(
                &format!("{lo}..={hi} in u16"),
                |d| d.in_range(lo.into(), hi.into()) as u16,
                |u| u.int_in_range(lo..=hi),
            );
        }
    }

    #[test]
    fn ratios_and_choices_decode_as_arbitrary_does() {
        for (num, den) in [(3u8, 4u8), (1, 2), (7, 8), (1, 3), (1, 1)] {
            same(
                &format!("ratio {num}/{den}"),
                |d| d.ratio(num, den),
                |u| u.ratio(num, den),
            );
        }
        let table: Vec<u32> = (0..256).map(|i| i * 7 + 1).collect();
        for n in [1, 2, 3, 11, 19, 24, 255, 256] {
            let t = &table[..n];
            same(
                &format!("a table of {n}"),
                |d| d.pick(t),
                |u| u.choose(t).copied(),
            );
        }
    }
}
