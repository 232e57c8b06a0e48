//! Datum formats and the conversions the packers and unpackers perform.
//!
//! Everything here is a pure function on bit patterns. The behaviour is the
//! silicon's as established by, in order: recorded device behaviour (the
//! project reference README), tenstorrent/tt-isa-documentation, ttsim, tt-llk.
//! Where those disagree, the comment at the code says which was followed.
//!
//! * [`data_format`]: the 4-bit format codes.
//! * [`float`]: bit fields and the truncating/saturating re-encodings.
//! * [`int`]: sign-magnitude integers and INT32 → INT8 descaling.
//! * [`src_cell`]: the 19-bit `SrcA`/`SrcB` cell.
//! * [`dst`]: `Dst16b`/`Dst32b` cell arrangements, row pairing, RISC-V view.
//! * [`bfp`]: block-float assembly and expansion.
//! * [`pack`]: the packer's early and late conversions.
//! * [`unpack`]: the unpackers' conversion.

pub mod bfp;
pub mod data_format;
pub mod dst;
pub mod float;
pub mod int;
pub mod pack;
pub mod src_cell;
pub mod unpack;

pub use data_format::{BfpExp, BfpWidth, DataFormat, Fp8Format};
pub use pack::Intermediate;
pub use src_cell::SrcCell;
pub use unpack::Unpacked;
