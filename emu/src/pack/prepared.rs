//! What a `PACR` does that follows from its fields, its thread and the
//! configuration alone, before any counter, stream or `Dst` value is looked
//! at: which packers it drives, the ADC set each uses, whether each
//! compresses. Worked out once per instruction word and kept with the
//! decoded configuration, since a program issues the same few `PACR` words
//! again and again.
//!
//! Working them out also checks each packer's ADC counters, right after
//! that packer's choices: a fault names the first packer at fault, whether
//! in its choices or in its counters (PACR.md: each packer's address
//! generator runs in turn). Only instructions without a fault are kept; the
//! counters are not part of what is kept, and each execution checks them
//! again.

use super::config::Decoded;
use super::{input, output, PacrFields};
use crate::adc::ADC_SETS;
use crate::arch::Arch;
use crate::fault::{Fault, Result};

/// One packer an instruction drives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Driven {
    packer: u8,
    adc: u8,
    /// `PerformingCompression` (OutputAddressGenerator.md).
    pub compress: bool,
}

impl Driven {
    /// The packer's index.
    pub fn packer(&self) -> usize {
        self.packer as usize
    }

    /// The ADC set whose channels form its addresses.
    pub fn adc(&self) -> usize {
        self.adc as usize
    }
}

/// An instruction's fault-free choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Prepared {
    pub fields: PacrFields,
    thread: u8,
    units: [Driven; 4],
    len: u8,
    /// The ADC sets some packer uses, in index order, once each.
    adcs: [bool; ADC_SETS],
}

impl Prepared {
    /// The choices for `fields` issued by `thread` under `decoded`, or the
    /// first fault among them: the thread, the stochastic rounding control,
    /// then per packer its undocumented fields, its ADC set and what
    /// `counters(packer, adc)` says of that set's counters.
    pub fn new(
        arch: Arch,
        fields: PacrFields,
        thread: usize,
        decoded: &Decoded,
        mut counters: impl FnMut(usize, usize) -> Result<()>,
    ) -> Result<Prepared> {
        check_instruction(thread, decoded)?;
        let shared = &decoded.shared;
        let mut units = [Driven::default(); 4];
        let mut len = 0;
        let mut adcs = [false; ADC_SETS];
        for p in (0..arch.packer_count()).filter(|p| fields.packers & (1 << p) != 0) {
            let pk = &decoded.packers[p];
            pk.check_documented(p)?;
            let adc = input::which_adc(thread, fields.ovrd_thread_id, pk)?;
            let Some(used) = adcs.get_mut(adc) else {
                return Err(input::no_adc_set(adc));
            };
            counters(p, adc)?;
            *used = true;
            units[len] = Driven {
                packer: p as u8,
                adc: adc as u8,
                compress: output::performing_compression(
                    pk,
                    shared.all_pack_disable_zero_compress_ovrd,
                    shared.all_pack_disable_zero_compress,
                    p,
                ),
            };
            len += 1;
        }
        Ok(Prepared {
            fields,
            thread: thread as u8,
            units,
            len: len as u8,
            adcs,
        })
    }

    /// The packers the instruction drives, in packer order.
    pub fn units(&self) -> &[Driven] {
        &self.units[..self.len as usize]
    }

    /// Whether some packer uses ADC set `adc`.
    pub fn uses_adc(&self, adc: usize) -> bool {
        self.adcs.get(adc).copied().unwrap_or(false)
    }
}

/// The `PACR` words prepared under one configuration: a few, since a program
/// issues few distinct ones; the oldest is replaced.
#[derive(Clone, Debug, Default)]
pub(super) struct PreparedWords {
    entries: [Option<(u32, Prepared)>; 8],
    next: usize,
}

impl PreparedWords {
    /// The prepared instruction for `word` issued by `thread`, if kept.
    #[inline]
    pub fn get(&self, word: u32, thread: usize) -> Option<&Prepared> {
        self.entries
            .iter()
            .flatten()
            .find(|(w, p)| *w == word && p.thread as usize == thread)
            .map(|(_, p)| p)
    }

    /// Keep `prepared` for `word`.
    pub fn insert(&mut self, word: u32, prepared: Prepared) {
        let slot = self.next % self.entries.len();
        self.entries[slot] = Some((word, prepared));
        self.next = slot + 1;
    }
}

/// The faults that come before any packer's: an issuing thread that does
/// not exist, and the stochastic rounding control.
fn check_instruction(thread: usize, decoded: &Decoded) -> Result<()> {
    if thread >= ADC_SETS {
        return Err(no_such_thread(thread));
    }
    if decoded.shared.stochastic_rounding {
        return Err(stochastic_rounding());
    }
    Ok(())
}

#[cold]
fn no_such_thread(thread: usize) -> Fault {
    Fault::unsupported(format!(
        "PACR issued by Tensix thread {thread}; there are three"
    ))
}

#[cold]
fn stochastic_rounding() -> Fault {
    Fault::unsupported(
        "ALU_ROUNDING_MODE_Packer_srnd_en: stochastic rounding in the packer is not modelled \
         (its bias is a documented hardware bug without a bit-level description)",
    )
}
