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
