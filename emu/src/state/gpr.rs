//! The Tensix GPRs: 64 32-bit registers per thread
//! (tt-isa-documentation `WormholeB0/TensixTile/TensixCoprocessor/GPRs.md`).

/// Registers per thread.
pub const PER_THREAD: usize = 64;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gprs {
    regs: [[u32; PER_THREAD]; 3],
}

impl Default for Gprs {
    fn default() -> Gprs {
        Gprs {
            regs: [[0; PER_THREAD]; 3],
        }
    }
}

impl Gprs {
    /// `None` outside 3 threads x 64 registers.
    pub fn get(&self, thread: usize, index: usize) -> Option<u32> {
        self.regs.get(thread)?.get(index).copied()
    }

    /// Returns `false` (and stores nothing) outside 3 threads x 64 registers.
    pub fn set(&mut self, thread: usize, index: usize, value: u32) -> bool {
        match self.regs.get_mut(thread).and_then(|t| t.get_mut(index)) {
            Some(r) => {
                *r = value;
                true
            }
            None => false,
        }
    }

    /// Write 16 bits at half-register `half` (0..128): the low or high half of
    /// register `half / 2`, as SETDMAREG's `ResultHalfReg` addresses them.
    pub fn set_half(&mut self, thread: usize, half: usize, value: u16) -> bool {
        let index = half / 2;
        let Some(old) = self.get(thread, index) else {
            return false;
        };
        let new = if half.is_multiple_of(2) {
            (old & 0xffff_0000) | value as u32
        } else {
            (old & 0x0000_ffff) | ((value as u32) << 16)
        };
        self.set(thread, index, new)
    }
}
