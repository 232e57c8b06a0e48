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
}
