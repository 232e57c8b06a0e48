//! Zero compression (tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/Packers/Compression.md`).
//!
//! Every kept datum (an "augmented datum") carries a 4-bit count of the
//! zeros elided after it. The data stream holds groups of 32 augmented
//! datums, each group followed by its 32 counters (16 bytes, the first
//! datum's counter in the low nibble of the first byte); a final partial
//! group of `N` is padded with `32 - N` zero datums before its counters. The
//! RSI stream holds 16-bit row start indices: `RSI[0] = 0`, then after each
//! row the running count of augmented datums. A row is one `PACR`, or
//! several joined by `Concat`; its first and last datums are never elided.
//! BFP exponents are one per 16 augmented datums, so BFP assembly runs over
//! the augmented datums.
//!
//! The page specifies the format but not "the exact compression logic". The
//! rule here is the plain one the format implies: a zero datum that is
//! neither first nor last in its row is elided while the previous augmented
//! datum's counter is below 15.

/// Whether a datum is stored or folded into the previous counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Elided: counted by the previous augmented datum.
    Elide,
    /// Stored. `closed` holds the counters of the previous group of 32 when
    /// this datum completes it; they go to L1 before this datum.
    Store { closed: Option<[u8; 16]> },
}

/// A packer's compression state, which persists across `PACR`s.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Compressor {
    /// Counters of the current group.
    counters: [u8; 32],
    /// Augmented datums in the current group.
    in_group: usize,
    /// Whether a row is open (a previous `PACR` had `Concat`).
    pub row_open: bool,
    /// Augmented datums since `RSI[0]`.
    total: u32,
    /// Whether `RSI[0]` has been written for the current output.
    pub rsi_started: bool,
}

impl Compressor {
    /// Decide one datum's fate. `first` / `last`: first or last datum of
    /// the row.
    pub fn admit(&mut self, zero: bool, first: bool, last: bool) -> Admit {
        if zero && !first && !last && self.in_group > 0 && self.counters[self.in_group - 1] < 15 {
            self.counters[self.in_group - 1] += 1;
            return Admit::Elide;
        }
        // A group is closed (its last counter final) once a datum follows
        // its 32nd.
        let closed = (self.in_group == 32).then(|| self.counters_block());
        if closed.is_some() {
            self.in_group = 0;
        }
        self.counters[self.in_group] = 0;
        self.in_group += 1;
        self.total = self.total.wrapping_add(1);
        Admit::Store { closed }
    }

    /// The counters of the current group, packed two to a byte.
    fn counters_block(&self) -> [u8; 16] {
        let mut out = [0u8; 16];
        for (k, o) in out.iter_mut().enumerate() {
            *o = (self.counters[2 * k] & 15) | ((self.counters[2 * k + 1] & 15) << 4);
        }
        out
    }

    /// Augmented datums in the current group.
    pub fn in_group(&self) -> usize {
        self.in_group
    }

    /// The RSI entry written when a row ends: the running count.
    pub fn row_end_index(&self) -> u16 {
        self.total as u16
    }

    /// Forget the group after its padding and counters were written, and
    /// start the next output from `RSI[0]`.
    pub fn reset(&mut self) {
        *self = Compressor::default();
    }

    /// The counters of the current (final, partial) group with the padding
    /// positions zero.
    pub fn final_counters_block(&mut self) -> [u8; 16] {
        self.counters[self.in_group..].fill(0);
        self.counters_block()
    }
}
