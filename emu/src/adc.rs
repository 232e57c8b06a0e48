//! Address counters (ADCs).

use crate::arch::Arch;

/// Placeholder until the ADC model lands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adcs;

impl Adcs {
    pub fn new(_arch: Arch) -> Adcs {
        Adcs
    }
}
