//! Architectural state the packers and unpackers touch: Dst, SrcA/SrcB, L1
//! and the Tensix GPRs.

pub mod dst;
pub mod gpr;
pub mod l1;
pub mod src;
pub(crate) mod written;

pub use dst::Dst;
pub use gpr::Gprs;
pub use l1::{L1Write, L1};
pub use src::{SrcClient, SrcReg};

/// Storage on 64-byte boundaries (a register file's rows, a lookup table's
/// lines), so that a row of 16 32-bit cells (or two rows of 16-bit ones)
/// is one cache line, which the row kernels read or write with one access
/// rather than two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct CacheLines<T>(pub T);

impl<T> std::ops::Deref for CacheLines<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for CacheLines<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}
