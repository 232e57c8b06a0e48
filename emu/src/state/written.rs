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

#[cfg(test)]
mod tests {
    use super::set_bits;

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
