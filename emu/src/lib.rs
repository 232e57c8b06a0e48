//! `tensix-emu`: a bit-exact emulator of the Tenstorrent Tensix packer and
//! unpacker data paths, for Wormhole B0 and Blackhole.
//!
//! One module per hardware block, named after it. The emulator does no I/O:
//! conformance vectors, fuzzing and the command line live in `tensix-harness`.
//!
//! The behaviour modelled here is what the silicon does, as decided by (in
//! order) recorded device behaviour, tenstorrent/tt-isa-documentation,
//! tenstorrent/ttsim and tenstorrent/tt-llk. Where those disagree, the comment
//! at the code that depends on it says so.

/// Evaluate `$avx2`, a call of a `#[target_feature(enable = "avx2")]`
/// copy of the code `$portable` calls, where the CPU has AVX2, and
/// `$portable` elsewhere. Returns from the enclosing function with the
/// AVX2 result.
macro_rules! avx2_or {
    ($avx2:expr, $portable:expr) => {{
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above; the callee is
            // the same safe code compiled with AVX2 enabled.
            return unsafe { $avx2 };
        }
        $portable
    }};
}

/// Whether the CPU has AVX-512BW and AVX-512VL, which the AVX-512 forms of
/// the 16-bit-lane kernels take (AVX-512 instructions on 16-bit lanes, and
/// on 256-bit registers).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx512_bw_vl() -> bool {
    std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

/// Whether the CPU has BMI2 besides AVX-512BW and AVX-512VL, which the
/// four-group BFP assembler takes (`format::bfp::assemble_quads_avx512`
/// lays BFP2 datums' bits out with `pdep`). Every CPU with AVX-512BW has
/// it.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx512_bw_vl_bmi2() -> bool {
    has_avx512_bw_vl() && std::arch::is_x86_feature_detected!("bmi2")
}

/// Whether the CPU has AVX-512F and AVX-512 VBMI, which the BFP4 unpack
/// kernel takes for its one-shuffle datum spread (`vpmultishiftqb`).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn has_avx512_vbmi() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vbmi")
}

pub mod adc;
pub mod arch;
pub mod exec;
pub mod fault;
pub mod format;
pub mod isa;
pub mod machine;
pub mod matrix;
pub mod observe;
pub mod pack;
pub mod regs;
pub mod state;
pub mod unpack;

pub use arch::Arch;
pub use exec::{Limits, RunStats, Step, ThreadProgram};
pub use fault::{Fault, FaultKind};
pub use machine::Machine;
