//! The golden tile model: what packing a tile from `Dst` must put in L1, and
//! what unpacking a tile from L1 must put in SrcA, SrcB or `Dst`, computed
//! from the job (formats, ReLU, edge mask, face count and height, L1
//! address) without the emulator.
//!
//! This model is written independently of `tensix-emu`: it does not call the
//! emulator's format conversions or its pipeline, only describes each datum's
//! journey as the documents do (tt-isa-documentation `Packers/*.md`,
//! `Unpackers/*.md`, `FloatBitPatterns.md`, `Dst.md`, `SrcASrcB.md`; the
//! device facts in the project reference README) and lays the tile out as
//! tt-llk's programming of the hardware does. Where the documents leave a
//! detail open, tenstorrent/ttsim v1.10.0 (`src/tensix.cpp`), whose results
//! are the conformance vectors under `conformance-vectors/ttsim/`, settles it;
//! each such place says so.
//!
//! A job the model does not cover (a conversion the documents mark "No", a
//! feature ttsim refuses and the documents leave loose) is refused with
//! [`Refusal::NotModelled`]; one the documents call undefined with
//! [`Refusal::Undefined`]. Everything else is a well-defined job: the
//! emulator must produce exactly these bytes, and an undefined-behaviour
//! fault from it is a finding.

pub mod dst;
pub mod format;
pub mod pack;
pub mod unpack;

pub use dst::DstImage;
pub use format::Format;
pub use pack::{Edge, PackJob, Relu};
pub use unpack::{UnpackJob, UnpackTarget};

use std::fmt;

/// Why the model gives no answer for a job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The documents call this undefined: any outcome of the emulator is legal.
    Undefined(String),
    /// The model does not cover this job (the documents say the hardware
    /// cannot do it, or leave it loose and ttsim refuses it).
    NotModelled(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Undefined(why) => write!(f, "undefined: {why}"),
            Refusal::NotModelled(why) => write!(f, "not modelled: {why}"),
        }
    }
}

/// Bytes at consecutive L1 addresses from `addr`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bytes {
    pub addr: u32,
    pub bytes: Vec<u8>,
}

impl Bytes {
    /// One past the last address.
    pub fn end(&self) -> u64 {
        u64::from(self.addr) + self.bytes.len() as u64
    }
}

pub(crate) fn not_modelled<T>(why: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::NotModelled(why.into()))
}

pub(crate) fn undefined<T>(why: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::Undefined(why.into()))
}
