//! L1: the tile's SRAM, as the packers and unpackers see it.
//!
//! Packers write L1 in 16-byte aligned units (tt-isa-documentation
//! `Packers/README.md`); every such write goes through [`L1::write16`], which
//! can record it for invariant checks and for explaining a result.

use crate::arch::Arch;

/// One 16-byte write by a packer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct L1Write {
    pub addr: u32,
    pub bytes: [u8; 16],
    /// Index of the instruction (in issue order across the run) that wrote it.
    pub instruction: u64,
}

#[derive(Clone, PartialEq, Eq)]
pub struct L1 {
    bytes: Vec<u8>,
    log: Option<Vec<L1Write>>,
}

impl std::fmt::Debug for L1 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "L1 {{ {} bytes }}", self.bytes.len())
    }
}

impl L1 {
    /// Zero-filled L1 of `arch`'s size.
    pub fn new(arch: Arch) -> L1 {
        L1 {
            bytes: vec![0; arch.l1_size()],
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

    /// Mutable access for setup; packer writes go through [`L1::write16`].
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
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

    /// The recorded writes, oldest first.
    pub fn log(&self) -> &[L1Write] {
        self.log.as_deref().unwrap_or(&[])
    }

    /// Store 16 bytes at a 16-byte aligned address inside L1. Returns
    /// `false` (storing nothing) otherwise; callers turn that into a fault.
    pub fn write16(&mut self, addr: u32, bytes: [u8; 16], instruction: u64) -> bool {
        let start = addr as usize;
        if addr % 16 != 0 || start + 16 > self.bytes.len() {
            return false;
        }
        self.bytes[start..start + 16].copy_from_slice(&bytes);
        if let Some(log) = &mut self.log {
            log.push(L1Write {
                addr,
                bytes,
                instruction,
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
        instruction: u64,
        fill: impl FnOnce(&mut [u8]),
    ) -> bool {
        let start = addr as usize;
        let Some(end) = groups
            .checked_mul(16)
            .and_then(|len| start.checked_add(len))
        else {
            return false;
        };
        if addr % 16 != 0 || end > self.bytes.len() {
            return false;
        }
        fill(&mut self.bytes[start..end]);
        if let Some(log) = &mut self.log {
            log_groups(log, addr, &self.bytes[start..end], instruction);
        }
        true
    }

    /// [`L1::write16`] for each 16-byte group of `bytes` in turn, at `addr`,
    /// `addr + 16`, ...: the groups that fit are stored (and logged) and the
    /// rest are not. Returns how many were stored; a trailing partial group
    /// is ignored.
    pub fn write16_groups(&mut self, addr: u32, bytes: &[u8], instruction: u64) -> usize {
        let groups = bytes.len() / 16;
        let start = addr as usize;
        if addr % 16 != 0 || start > self.bytes.len() {
            return 0;
        }
        let fit = groups.min((self.bytes.len() - start) / 16);
        let len = fit * 16;
        // Group by group: each copy is one 16-byte move.
        for (to, from) in self.bytes[start..start + len]
            .chunks_exact_mut(16)
            .zip(bytes.chunks_exact(16))
        {
            to.copy_from_slice(from);
        }
        if let Some(log) = &mut self.log {
            log_groups(log, addr, &bytes[..len], instruction);
        }
        fit
    }
}

/// Record `bytes`, 16 at a time, as the writes at `addr`, `addr + 16`, ...
fn log_groups(log: &mut Vec<L1Write>, addr: u32, bytes: &[u8], instruction: u64) {
    for (k, group) in bytes.chunks_exact(16).enumerate() {
        let mut b = [0u8; 16];
        b.copy_from_slice(group);
        log.push(L1Write {
            addr: addr + 16 * k as u32,
            bytes: b,
            instruction,
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
        assert!(!l1.write16(8, [1; 16], 0));
        let top = (l1.len() - 16) as u32;
        assert!(l1.write16(top, [2; 16], 1));
        assert!(!l1.write16(top + 16, [3; 16], 2));
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
        assert!(a.fill16_groups(top, 3, 4, |d| d.copy_from_slice(&bytes)));
        for (k, g) in bytes.chunks_exact(16).enumerate() {
            let mut x = [0u8; 16];
            x.copy_from_slice(g);
            assert!(b.write16(top + 16 * k as u32, x, 4));
        }
        assert_eq!(a.log(), b.log());
        assert!(a.bytes() == b.bytes());
        for (addr, groups) in [(top, 4), (top + 8, 1), (u32::MAX - 15, 1)] {
            let mut called = false;
            assert!(!a.fill16_groups(addr, groups, 5, |_| called = true));
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
            let n = a.write16_groups(addr, &bytes, 9);
            let mut m = 0;
            for g in bytes.chunks_exact(16) {
                let mut x = [0u8; 16];
                x.copy_from_slice(g);
                if !b.write16(addr + 16 * m as u32, x, 9) {
                    break;
                }
                m += 1;
            }
            assert_eq!(n, m, "{addr:#x}");
            assert_eq!(a.log(), b.log());
            assert!(a.bytes() == b.bytes());
        }
    }
}
