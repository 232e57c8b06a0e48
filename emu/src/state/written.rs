//! Which rows, blocks or words have been written: a bit each, kept so that a
//! machine reused across jobs (or a decode checked against Config) touches
//! only what was written.

/// The indices of the bits set in `words` (bit `b` of `words[i]` is index
/// `64 * i + b`), in increasing order.
pub(crate) fn set_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(i, &w)| {
        let mut rest = w;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                64 * i + b
            })
        })
    })
}

/// Set bits `start..end` of `words`, numbered as [`set_bits`] numbers
/// them, a word at a time.
///
/// # Panics
/// If `end` is past the last bit of `words`.
#[inline]
pub(crate) fn set_range(words: &mut [u64], start: usize, end: usize) {
    let mut i = start;
    while i < end {
        let word = i / 64;
        let upto = end.min(64 * (word + 1));
        let n = upto - i;
        let run = if n == 64 { u64::MAX } else { (1 << n) - 1 };
        words[word] |= run << (i % 64);
        i = upto;
    }
}

#[cfg(test)]
mod tests {
    use super::{set_bits, set_range};

    /// Every range in 256 bits, against setting its bits one by one.
    #[test]
    fn set_range_sets_exactly_the_range() {
        for start in 0..=256 {
            for end in start..=256 {
                let mut got = [0u64; 4];
                set_range(&mut got, start, end);
                let mut want = [0u64; 4];
                for b in start..end {
                    want[b / 64] |= 1 << (b % 64);
                }
                assert_eq!(got, want, "{start}..{end}");
            }
        }
    }

    #[test]
    fn set_bits_lists_every_set_bit_in_order() {
        assert_eq!(set_bits(&[]).count(), 0);
        assert_eq!(set_bits(&[0, 0]).count(), 0);
        let words = [1 | 1 << 63, 0, 1 << 5 | 1 << 6, u64::MAX];
        let got: Vec<usize> = set_bits(&words).collect();
        let mut want = vec![0, 63, 133, 134];
        want.extend(192..256);
        assert_eq!(got, want);
    }
}
