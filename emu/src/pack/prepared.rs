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
use super::express::Express;
use super::{input, output, PacrFields};
use crate::adc::{YzSteps, ADC_SETS};
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Prepared {
    pub fields: PacrFields,
    /// `ADDR_MOD_PACK_SEC[AddrMod]` as the steps it makes to each ADC set
    /// used.
    pub steps: YzSteps,
    /// The express form, where the instruction has one.
    pub express: Option<Express>,
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
            steps: shared.addr_mods[fields.addr_mode & 3].steps(),
            express: None,
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
#[derive(Clone, Debug)]
pub(super) struct PreparedWords {
    /// Per slot, `word | thread << 32` ([`EMPTY`] for none).
    keys: [u64; SLOTS],
    entries: [Prepared; SLOTS],
    next: usize,
}

const SLOTS: usize = 8;

/// The key of an empty slot: no thread is this large.
const EMPTY: u64 = u64::MAX;

fn key(word: u32, thread: usize) -> u64 {
    word as u64 | (thread as u64) << 32
}

impl Default for PreparedWords {
    fn default() -> PreparedWords {
        PreparedWords {
            keys: [EMPTY; SLOTS],
            entries: [Prepared::default(); SLOTS],
            next: 0,
        }
    }
}

impl PreparedWords {
    /// The slot holding `word` issued by `thread`, if kept.
    #[inline]
    pub fn find(&self, word: u32, thread: usize) -> Option<usize> {
        let k = key(word, thread);
        self.keys.iter().position(|x| *x == k)
    }

    /// The instruction in `slot` (from [`PreparedWords::find`] or
    /// [`PreparedWords::insert`]).
    #[inline]
    pub fn at(&self, slot: usize) -> &Prepared {
        &self.entries[slot % SLOTS]
    }

    /// Keep `prepared` for `word` issued by `thread`; returns its slot.
    pub fn insert(&mut self, word: u32, thread: usize, prepared: Prepared) -> usize {
        let slot = self.next % SLOTS;
        self.keys[slot] = key(word, thread);
        self.entries[slot] = prepared;
        self.next = slot + 1;
        slot
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
