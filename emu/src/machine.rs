//! A whole Tensix coprocessor as the packers and unpackers see it, and the
//! API the harness drives: build one for an architecture, apply setup writes,
//! run per-thread programs, read everything back.

use crate::adc::Adcs;
use crate::arch::Arch;
use crate::exec::frontend::FrontEnd;
use crate::exec::sync_unit::Semaphores;
use crate::regs::{Config, ThreadConfig, THREADS};
use crate::state::dst::{DstAddressing, DstView, COLS};
use crate::state::{Dst, Gprs, SrcReg, L1};

/// Why a setup write was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupError(pub String);

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SetupError {}

/// The machine state. Fields are public so a harness or a test can inspect
/// or prepare any of it directly.
#[derive(Clone, Debug)]
pub struct Machine {
    arch: Arch,
    pub config: Config,
    pub thread_config: ThreadConfig,
    pub gprs: Gprs,
    pub dst: Dst,
    pub srca: SrcReg,
    pub srcb: SrcReg,
    pub l1: L1,
    pub adcs: Adcs,
    pub semaphores: Semaphores,
    /// State the packer keeps between PACRs (16-byte stream buffers, BFP
    /// assembly, exponent histogram, output addresses).
    pub packer: crate::pack::PackerState,
    /// State the unpackers keep between UNPACRs (context counters, ...).
    pub unpackers: crate::unpack::UnpackerState,
    pub(crate) frontends: [FrontEnd; THREADS],
    /// Instructions executed so far (across threads); tags L1 writes.
    pub(crate) issued: u64,
    /// The datums `PACR` and `UNPACR` may read in the current run, and
    /// have read.
    pub(crate) datums: crate::exec::DatumBudget,
    /// When set, what the run does is recorded here (see [`crate::observe`]).
    pub observer: Option<Box<crate::observe::Observer>>,
}

impl Machine {
    /// A machine in its reset state: everything zero, no Dst row valid.
    pub fn new(arch: Arch) -> Machine {
        Machine {
            arch,
            config: Config::new(arch),
            thread_config: ThreadConfig::new(arch),
            gprs: Gprs::default(),
            dst: Dst::default(),
            srca: SrcReg::default(),
            srcb: SrcReg::default(),
            l1: L1::new(arch),
            adcs: Adcs::new(arch),
            semaphores: Semaphores::default(),
            packer: crate::pack::PackerState::default(),
            unpackers: crate::unpack::UnpackerState::default(),
            frontends: std::array::from_fn(|_| FrontEnd::new(arch)),
            issued: 0,
            datums: crate::exec::DatumBudget::default(),
            observer: None,
        }
    }

    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Back to the state [`Machine::new`] gives, keeping the memory: L1
    /// clears only what was written since it was last all zero, so a machine
    /// reused across jobs costs what the jobs write, not L1's size. The
    /// observer is dropped.
    pub fn reset(&mut self) {
        self.reset_with_l1_fill(0);
    }

    /// [`Machine::reset`], except that every byte of L1 is `l1_fill`: what
    /// a reset followed by `self.l1.fill(l1_fill)` leaves, storing to L1
    /// only what the last job wrote when L1 last had that fill
    /// ([`L1::fill_byte`](crate::state::L1::fill_byte)).
    pub fn reset_with_l1_fill(&mut self, l1_fill: u8) {
        // Destructured so that a new field cannot be forgotten here.
        let Machine {
            arch,
            config,
            thread_config,
            gprs,
            dst,
            srca,
            srcb,
            l1,
            adcs,
            semaphores,
            packer,
            unpackers,
            frontends,
            issued,
            datums,
            observer,
        } = self;
        let arch = *arch;
        config.reset();
        thread_config.reset();
        *gprs = Gprs::default();
        dst.reset();
        srca.reset();
        srcb.reset();
        l1.fill(l1_fill);
        *adcs = Adcs::new(arch);
        *semaphores = Semaphores::default();
        packer.reset();
        unpackers.reset();
        *frontends = std::array::from_fn(|_| FrontEnd::new(arch));
        *issued = 0;
        *datums = crate::exec::DatumBudget::default();
        *observer = None;
    }

    /// Make `self` equal to `other` (the observer excepted: none is kept),
    /// reusing this machine's memory: L1 copies only the blocks either
    /// machine has written since the fill they share.
    pub fn copy_from(&mut self, other: &Machine) {
        let Machine {
            arch,
            config,
            thread_config,
            gprs,
            dst,
            srca,
            srcb,
            l1,
            adcs,
            semaphores,
            packer,
            unpackers,
            frontends,
            issued,
            datums,
            observer,
        } = self;
        *arch = other.arch;
        config.copy_from(&other.config);
        thread_config.copy_from(&other.thread_config);
        gprs.clone_from(&other.gprs);
        dst.copy_from(&other.dst);
        srca.clone_from(&other.srca);
        srcb.clone_from(&other.srcb);
        l1.copy_from(&other.l1);
        adcs.clone_from(&other.adcs);
        semaphores.clone_from(&other.semaphores);
        packer.copy_from(&other.packer);
        unpackers.clone_from(&other.unpackers);
        frontends.clone_from(&other.frontends);
        *issued = other.issued;
        *datums = other.datums;
        *observer = None;
    }

    /// Copy `bytes` into L1 at `addr`.
    pub fn write_l1(&mut self, addr: u32, bytes: &[u8]) -> Result<(), SetupError> {
        if self.l1.write(addr, bytes) {
            Ok(())
        } else {
            Err(SetupError(format!(
                "L1 bytes {addr:#x}..+{:#x} leave L1 ({:#x} bytes on {})",
                bytes.len(),
                self.l1.len(),
                self.arch
            )))
        }
    }

    /// A Config write as a TRISC store makes it.
    pub fn write_config(
        &mut self,
        state: usize,
        addr32: usize,
        value: u32,
    ) -> Result<(), SetupError> {
        if self.config.write_addr32(state, addr32, value) {
            Ok(())
        } else {
            Err(SetupError(format!(
                "Config state {state} word {addr32} does not exist on {}",
                self.arch
            )))
        }
    }

    /// A ThreadConfig write, applied as SETC16 would apply it.
    pub fn write_thread_config(
        &mut self,
        thread: usize,
        reg: usize,
        value: u16,
    ) -> Result<(), SetupError> {
        if self.thread_config.write(thread, reg, value as u32) {
            Ok(())
        } else {
            Err(SetupError(format!(
                "ThreadConfig thread {thread} register {reg} does not exist on {}",
                self.arch
            )))
        }
    }

    pub fn write_gpr(&mut self, thread: usize, index: usize, value: u32) -> Result<(), SetupError> {
        if self.gprs.set(thread, index, value) {
            Ok(())
        } else {
            Err(SetupError(format!(
                "GPR {index} of thread {thread} does not exist"
            )))
        }
    }

    /// Load a thread's nine MOP configuration words.
    pub fn write_mop_config(&mut self, thread: usize, words: &[u32; 9]) -> Result<(), SetupError> {
        let fe = self
            .frontends
            .get_mut(thread)
            .ok_or_else(|| SetupError(format!("thread {thread} does not exist")))?;
        for (i, w) in words.iter().enumerate() {
            fe.set_mop_config(i, *w);
        }
        Ok(())
    }

    /// The Dst addressing the current Config selects (state 0).
    pub fn dst_addressing(&self) -> DstAddressing {
        crate::exec::dst_addressing(&self.config, 0)
    }

    /// Write one `Dst` row from canonical values in `view` and mark it valid.
    /// `row` counts `Dst16b` rows for 16-bit views, `Dst32b` rows otherwise.
    pub fn write_dst_row(
        &mut self,
        view: DstView,
        row: u32,
        values: &[u32; COLS],
    ) -> Result<(), SetupError> {
        let a = self.dst_addressing();
        if view.is_32b() {
            if row as usize >= crate::state::dst::ROWS_32B {
                return Err(SetupError(format!("Dst32b row {row} is not below 512")));
            }
            let s = view.storage_row(self.arch, a, row);
            self.dst.write32_row(s, &view.store32_row(values));
            self.dst.set_valid(s, true);
        } else {
            if row as usize >= crate::state::dst::ROWS {
                return Err(SetupError(format!("Dst16b row {row} is not below 1024")));
            }
            // One test for the row; the search only names the culprit.
            if values.iter().fold(0, |acc, v| acc | v) > 0xffff {
                if let Some(v) = values.iter().find(|v| **v > 0xffff) {
                    return Err(SetupError(format!(
                        "Dst16b value {v:#x} is wider than 16 bits"
                    )));
                }
            }
            let s = view.storage_row(self.arch, a, row);
            *self.dst.row_mut(s) = view.store16_row(&values.map(|v| v as u16));
            self.dst.set_valid(s, true);
        }
        Ok(())
    }

    /// Read one `Dst` row back in `view` (the inverse of [`Machine::write_dst_row`]).
    pub fn read_dst_row(&self, view: DstView, row: u32) -> [u32; COLS] {
        self.dst
            .read_row(self.arch, self.dst_addressing(), view, row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row written in a view reads back the same in that view; a 16-bit
    /// view refuses a value of more than 16 bits, naming it, and writes
    /// nothing.
    #[test]
    fn dst_rows_round_trip_and_wide_values_are_refused() {
        let mut x = 0x2545_F491u32;
        for arch in Arch::ALL {
            for view in DstView::ALL {
                let mut m = Machine::new(arch);
                for row in [0, 7, 300] {
                    let vals: [u32; COLS] = std::array::from_fn(|_| {
                        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                        if view.is_32b() {
                            x
                        } else {
                            x >> 16
                        }
                    });
                    m.write_dst_row(view, row, &vals).unwrap();
                    assert_eq!(m.read_dst_row(view, row), vals, "{arch:?} {view:?} {row}");
                }
                if !view.is_32b() {
                    let before = m.dst.clone();
                    let mut wide = [0x1234u32; COLS];
                    wide[5] = 0x1_0000;
                    let e = m.write_dst_row(view, 9, &wide).unwrap_err();
                    assert!(e.0.contains("0x10000"), "{}", e.0);
                    assert_eq!(m.dst, before);
                }
            }
        }
    }
}
