//! L1: the tile's SRAM, as the packers and unpackers see it.
//!
//! Packers write L1 in 16-byte aligned units (tt-isa-documentation
//! `Packers/README.md`); every such write goes through [`L1::write16`], which
//! can record it for invariant checks and for explaining a result.

use crate::arch::Arch;

/// Which of a packer's three output streams a write belongs to
/// (OutputAddressGenerator.md: datums, BFP exponents, and the row start
/// indices of zero compression).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stream {
    #[default]
    Data,
    Exponent,
    RowStart,
}

impl Stream {
    pub fn name(self) -> &'static str {
        match self {
            Stream::Data => "data",
            Stream::Exponent => "exponent",
            Stream::RowStart => "row-start",
        }
    }
}

/// What a write is recorded with: the instruction (its index in issue order
/// across the run) and the stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteTag {
    pub instruction: u64,
    pub stream: Stream,
}

impl WriteTag {
    /// A data-stream write by instruction `instruction`.
    pub fn data(instruction: u64) -> WriteTag {
        WriteTag {
            instruction,
            stream: Stream::Data,
        }
    }
}

/// One 16-byte write by a packer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct L1Write {
    pub addr: u32,
    pub bytes: [u8; 16],
    /// Index of the instruction (in issue order across the run) that wrote it.
    pub instruction: u64,
    pub stream: Stream,
}

/// L1's bytes, with a record of which blocks a machine reused across jobs
/// must clear: a [`Machine`](crate::Machine) reset costs what the last job
/// wrote, not L1's size.
///
/// Every byte outside a dirty block equals `fill`, the value the whole of L1
/// was last set to; every mutation marks the blocks it touches. Blocks are
/// bookkeeping only: the hardware has no such unit.
#[derive(Clone)]
pub struct L1 {
    bytes: Vec<u8>,
    /// One bit per [`BLOCK`] bytes: set where a byte may differ from `fill`.
    dirty: Vec<u64>,
    fill: u8,
    log: Option<Vec<L1Write>>,
}

/// Bytes per dirty-tracking block.
const BLOCK: usize = 1024;

/// Two L1s are equal when their bytes and write logs are.
impl PartialEq for L1 {
    fn eq(&self, other: &L1) -> bool {
        self.same_bytes(other) && self.log == other.log
    }
}

impl Eq for L1 {}

impl std::fmt::Debug for L1 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "L1 {{ {} bytes }}", self.bytes.len())
    }
}

impl L1 {
    /// Zero-filled L1 of `arch`'s size.
    pub fn new(arch: Arch) -> L1 {
        let len = arch.l1_size();
        L1 {
            bytes: vec![0; len],
            dirty: vec![0; len.div_ceil(BLOCK).div_ceil(64)],
            fill: 0,
            log: None,
        }
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Mutable access to all of L1 for setup (every block counts as
    /// written); packer writes go through [`L1::write16`], setup copies
    /// through [`L1::write`].
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.mark(0, self.bytes.len());
        &mut self.bytes
    }

    /// Copy `bytes` to `addr` (setup, not a packer write: not logged).
    /// `false`, storing nothing, when the range leaves L1.
    pub fn write(&mut self, addr: u32, bytes: &[u8]) -> bool {
        let start = addr as usize;
        match start.checked_add(bytes.len()) {
            Some(end) if end <= self.bytes.len() => {
                self.mark(start, end);
                self.bytes[start..end].copy_from_slice(bytes);
                true
            }
            _ => false,
        }
    }

    /// Set every byte of L1 to `byte`, forgetting the write log. Where L1
    /// was last filled with `byte`, only the blocks written since are
    /// stored to.
    pub fn fill(&mut self, byte: u8) {
        self.log = None;
        if self.fill == byte {
            for r in block_ranges(&self.dirty, self.bytes.len()) {
                self.bytes[r].fill(byte);
            }
        } else {
            self.bytes.fill(byte);
            self.fill = byte;
        }
        self.dirty.fill(0);
    }

    /// The byte L1 was last filled with: every block not written since
    /// holds it.
    pub fn fill_byte(&self) -> u8 {
        self.fill
    }

    /// Back to [`L1::new`]'s state (zero, no log), clearing only the blocks
    /// written since L1 was last all zero.
    pub fn reset(&mut self) {
        self.fill(0);
    }

    /// Make `self` a copy of `other` (bytes and log), copying only the
    /// blocks either has written since the fill they share. L1s of
    /// different sizes or fills are copied whole.
    pub fn copy_from(&mut self, other: &L1) {
        if self.bytes.len() != other.bytes.len() || self.fill != other.fill {
            self.bytes.clone_from(&other.bytes);
            self.dirty.clone_from(&other.dirty);
            self.fill = other.fill;
        } else {
            for (mine, theirs) in self.dirty.iter_mut().zip(&other.dirty) {
                *mine |= *theirs;
            }
            for r in block_ranges(&self.dirty, self.bytes.len()) {
                self.bytes[r.clone()].copy_from_slice(&other.bytes[r]);
            }
            self.dirty.copy_from_slice(&other.dirty);
        }
        self.log.clone_from(&other.log);
    }

    /// Whether `self` and `other` hold the same bytes, comparing only the
    /// blocks either has written when they share a fill.
    pub fn same_bytes(&self, other: &L1) -> bool {
        self.bytes.len() == other.bytes.len()
            && self
                .ranges_differing_from(other)
                .into_iter()
                .all(|r| self.bytes[r.clone()] == other.bytes[r])
    }

    /// The byte ranges that may differ from `other`'s (the blocks either
    /// has written since a shared fill; all of L1 otherwise), in order and
    /// merged.
    pub fn ranges_differing_from(&self, other: &L1) -> Vec<std::ops::Range<usize>> {
        let len = self.bytes.len();
        if len != other.bytes.len() || self.fill != other.fill {
            return std::iter::once(0..len.max(other.bytes.len())).collect();
        }
        let union: Vec<u64> = self
            .dirty
            .iter()
            .zip(&other.dirty)
            .map(|(a, b)| a | b)
            .collect();
        let mut out: Vec<std::ops::Range<usize>> = Vec::new();
        for r in block_ranges(&union, len) {
            match out.last_mut() {
                Some(last) if last.end == r.start => last.end = r.end,
                _ => out.push(r),
            }
        }
        out
    }

    /// Mark the blocks `start..end` (a range inside L1) touches as written.
    #[inline]
    fn mark(&mut self, start: usize, end: usize) {
        if start >= end {
            return;
        }
        for block in start / BLOCK..=(end - 1) / BLOCK {
            self.dirty[block / 64] |= 1 << (block % 64);
        }
    }

    /// `len` bytes at `addr`, or `None` when the range leaves L1.
    pub fn read(&self, addr: u32, len: usize) -> Option<&[u8]> {
        let start = addr as usize;
        self.bytes.get(start..start.checked_add(len)?)
    }

    /// Start (or restart) recording 16-byte writes.
    pub fn enable_log(&mut self) {
        self.log = Some(Vec::new());
    }

    /// Stop recording writes, forgetting those recorded.
    pub fn disable_log(&mut self) {
        self.log = None;
    }

    /// Whether 16-byte writes are being recorded.
    pub fn logging(&self) -> bool {
        self.log.is_some()
    }

    /// The recorded writes, oldest first.
    pub fn log(&self) -> &[L1Write] {
        self.log.as_deref().unwrap_or(&[])
    }

    /// Store 16 bytes at a 16-byte aligned address inside L1. Returns
    /// `false` (storing nothing) otherwise; callers turn that into a fault.
    pub fn write16(&mut self, addr: u32, bytes: [u8; 16], tag: WriteTag) -> bool {
        let start = addr as usize;
        if !addr.is_multiple_of(16) || start + 16 > self.bytes.len() {
            return false;
        }
        self.mark(start, start + 16);
        self.bytes[start..start + 16].copy_from_slice(&bytes);
        if let Some(log) = &mut self.log {
            log.push(L1Write {
                addr,
                bytes,
                instruction: tag.instruction,
                stream: tag.stream,
            });
        }
        true
    }

    /// `groups` 16-byte writes at `addr`, `addr + 16`, ... whose bytes
    /// `fill` puts in place: stored and logged as [`L1::write16`] would store
    /// and log them. Only when `addr` is aligned and every group lies inside
    /// L1; otherwise returns `false`, touching nothing and not calling
    /// `fill`.
    #[inline]
    pub fn fill16_groups(
        &mut self,
        addr: u32,
        groups: usize,
        tag: WriteTag,
        fill: impl FnOnce(&mut [u8]),
    ) -> bool {
        let start = addr as usize;
        let Some(end) = groups
            .checked_mul(16)
            .and_then(|len| start.checked_add(len))
        else {
            return false;
        };
        if !addr.is_multiple_of(16) || end > self.bytes.len() {
            return false;
        }
        self.mark(start, end);
        fill(&mut self.bytes[start..end]);
        if let Some(log) = &mut self.log {
            log_groups(log, addr, &self.bytes[start..end], tag);
        }
        true
    }

    /// [`L1::write16`] for each 16-byte group of `bytes` in turn, at `addr`,
    /// `addr + 16`, ...: the groups that fit are stored (and logged) and the
    /// rest are not. Returns how many were stored; a trailing partial group
    /// is ignored.
    pub fn write16_groups(&mut self, addr: u32, bytes: &[u8], tag: WriteTag) -> usize {
        let groups = bytes.len() / 16;
        let start = addr as usize;
        if !addr.is_multiple_of(16) || start > self.bytes.len() {
            return 0;
        }
        let fit = groups.min((self.bytes.len() - start) / 16);
        let len = fit * 16;
        self.mark(start, start + len);
        // Group by group: each copy is one 16-byte move.
        for (to, from) in self.bytes[start..start + len]
            .chunks_exact_mut(16)
            .zip(bytes.chunks_exact(16))
        {
            to.copy_from_slice(from);
        }
        if let Some(log) = &mut self.log {
            log_groups(log, addr, &bytes[..len], tag);
        }
        fit
    }
}

/// The byte ranges of the blocks whose bits are set in `words`, lowest
/// first, in an L1 of `len` bytes.
fn block_ranges(words: &[u64], len: usize) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    super::written::set_bits(words).map(move |b| b * BLOCK..((b + 1) * BLOCK).min(len))
}

/// Record `bytes`, 16 at a time, as the writes at `addr`, `addr + 16`, ...
fn log_groups(log: &mut Vec<L1Write>, addr: u32, bytes: &[u8], tag: WriteTag) {
    for (k, group) in bytes.chunks_exact(16).enumerate() {
        let mut b = [0u8; 16];
        b.copy_from_slice(group);
        log.push(L1Write {
            addr: addr + 16 * k as u32,
            bytes: b,
            instruction: tag.instruction,
            stream: tag.stream,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_must_be_aligned_and_inside() {
        let mut l1 = L1::new(Arch::Blackhole);
        l1.enable_log();
        assert!(!l1.write16(8, [1; 16], WriteTag::data(0)));
        let top = (l1.len() - 16) as u32;
        assert!(l1.write16(top, [2; 16], WriteTag::data(1)));
        assert!(!l1.write16(top + 16, [3; 16], WriteTag::data(2)));
        assert_eq!(l1.log().len(), 1);
        assert_eq!(l1.read(top, 16), Some(&[2u8; 16][..]));
        assert_eq!(l1.read(top, 17), None);
        assert_eq!(l1.read(u32::MAX, 1), None);
    }

    /// A filled run of groups is stored and logged as the same groups
    /// written one by one; a run that does not fit, or an unaligned one, is
    /// refused whole.
    #[test]
    fn filled_groups_match_single_writes() {
        let top = (L1::new(Arch::Blackhole).len() - 48) as u32;
        let bytes: Vec<u8> = (0..48).collect();
        let mut a = L1::new(Arch::Blackhole);
        let mut b = L1::new(Arch::Blackhole);
        a.enable_log();
        b.enable_log();
        assert!(a.fill16_groups(top, 3, WriteTag::data(4), |d| d.copy_from_slice(&bytes)));
        for (k, g) in bytes.chunks_exact(16).enumerate() {
            let mut x = [0u8; 16];
            x.copy_from_slice(g);
            assert!(b.write16(top + 16 * k as u32, x, WriteTag::data(4)));
        }
        assert_eq!(a.log(), b.log());
        assert!(a.bytes() == b.bytes());
        for (addr, groups) in [(top, 4), (top + 8, 1), (u32::MAX - 15, 1)] {
            let mut called = false;
            assert!(!a.fill16_groups(addr, groups, WriteTag::data(5), |_| called = true));
            assert!(!called);
        }
        assert_eq!(a.log().len(), 3);
    }

    /// The group write stores and logs exactly the groups `write16` would,
    /// one by one, stopping at the first that leaves L1.
    #[test]
    fn group_writes_match_single_writes() {
        let top = (L1::new(Arch::Blackhole).len() - 48) as u32;
        let bytes: Vec<u8> = (0..80).collect();
        for addr in [0x100, top, top + 8] {
            let mut a = L1::new(Arch::Blackhole);
            let mut b = L1::new(Arch::Blackhole);
            a.enable_log();
            b.enable_log();
            let n = a.write16_groups(addr, &bytes, WriteTag::data(9));
            let mut m = 0;
            for g in bytes.chunks_exact(16) {
                let mut x = [0u8; 16];
                x.copy_from_slice(g);
                if !b.write16(addr + 16 * m as u32, x, WriteTag::data(9)) {
                    break;
                }
                m += 1;
            }
            assert_eq!(n, m, "{addr:#x}");
            assert_eq!(a.log(), b.log());
            assert!(a.bytes() == b.bytes());
        }
    }

    /// One way of changing L1, for the reset and copy properties below.
    #[derive(Clone, Debug)]
    enum Op {
        Write16(u32, u8),
        Groups(u32, usize, u8),
        Setup(u32, usize, u8),
        Fill(u8),
        Poke(usize, u8),
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        // Addresses reach past the end of the smaller (Wormhole B0) L1.
        let addr = 0u32..(1540 * 1024);
        prop_oneof![
            (addr.clone(), any::<u8>()).prop_map(|(a, b)| Op::Write16(a & !15, b)),
            (addr.clone(), 0usize..300, any::<u8>()).prop_map(|(a, n, b)| Op::Groups(a, n, b)),
            (addr.clone(), 0usize..5000, any::<u8>()).prop_map(|(a, n, b)| Op::Setup(a, n, b)),
            any::<u8>().prop_map(Op::Fill),
            (0usize..(1540 * 1024), any::<u8>()).prop_map(|(i, b)| Op::Poke(i, b)),
        ]
    }

    fn apply(l1: &mut L1, op: &Op) {
        match *op {
            Op::Write16(a, b) => {
                l1.write16(a, [b; 16], WriteTag::data(0));
            }
            Op::Groups(a, n, b) => {
                l1.write16_groups(a, &vec![b; n * 16], WriteTag::data(1));
                l1.fill16_groups(a.wrapping_add(16 * n as u32), n, WriteTag::data(2), |d| {
                    d.fill(!b)
                });
            }
            Op::Setup(a, n, b) => {
                l1.write(a, &vec![b; n]);
            }
            Op::Fill(b) => l1.fill(b),
            Op::Poke(i, b) => {
                if let Some(x) = l1.bytes_mut().get_mut(i) {
                    *x = b;
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Whatever was written, a reset leaves what a new L1 holds.
        #[test]
        fn reset_gives_a_new_l1(
            wh in proptest::prelude::any::<bool>(),
            ops in proptest::collection::vec(op(), 0..12),
        ) {
            let arch = if wh { Arch::WormholeB0 } else { Arch::Blackhole };
            let mut l1 = L1::new(arch);
            l1.enable_log();
            for o in &ops {
                apply(&mut l1, o);
            }
            l1.reset();
            proptest::prop_assert!(l1.bytes() == L1::new(arch).bytes());
            proptest::prop_assert!(l1.log().is_empty());
        }

        /// Whatever was written, a fill leaves every byte the fill byte and
        /// no log, whether or not L1 last had that fill.
        #[test]
        fn a_fill_sets_every_byte(
            ops in proptest::collection::vec(op(), 0..12),
            byte in proptest::prelude::any::<u8>(),
        ) {
            let mut l1 = L1::new(Arch::WormholeB0);
            l1.enable_log();
            for o in &ops {
                apply(&mut l1, o);
            }
            l1.fill(byte);
            proptest::prop_assert!(l1.bytes().iter().all(|&b| b == byte));
            proptest::prop_assert!(l1.log().is_empty());
            proptest::prop_assert_eq!(l1.fill_byte(), byte);
        }

        /// A copy holds the source's bytes and log whatever either held
        /// before; the block-wise comparison and the list of ranges that may
        /// differ agree with a byte-by-byte comparison.
        #[test]
        fn copies_and_comparisons_agree_with_the_bytes(
            mine in proptest::collection::vec(op(), 0..8),
            theirs in proptest::collection::vec(op(), 0..8),
        ) {
            let mut a = L1::new(Arch::Blackhole);
            let mut b = L1::new(Arch::Blackhole);
            b.enable_log();
            for o in &mine {
                apply(&mut a, o);
            }
            for o in &theirs {
                apply(&mut b, o);
            }
            let same = a.bytes() == b.bytes();
            proptest::prop_assert_eq!(a.same_bytes(&b), same);
            let ranges = a.ranges_differing_from(&b);
            for (i, (x, y)) in a.bytes().iter().zip(b.bytes()).enumerate() {
                if x != y {
                    proptest::prop_assert!(ranges.iter().any(|r| r.contains(&i)), "byte {:#x}", i);
                }
            }
            a.copy_from(&b);
            proptest::prop_assert!(a.bytes() == b.bytes());
            proptest::prop_assert_eq!(a.log(), b.log());
            proptest::prop_assert!(a == b);
        }
    }
}
