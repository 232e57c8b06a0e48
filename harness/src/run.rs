//! Apply a vector to a fresh emulator, run it, and compare with `expect`.
//!
//! Besides what the vector asks, every run checks: each L1 write is 16 bytes
//! at a 16-byte aligned address; no L1 byte outside `expect.l1` changed; a
//! second run of the same vector, with L1's write log off, gives the same
//! state. (With the log off, a run of `PACR`s may write its rows together
//! at its end, so the second run also holds that path to the first's.)

use crate::report::{BfpLayout, Datums};
use crate::vector::{self, Dst, DstFormat, SrcRow, Vector};
use tensix_emu::adc::Unit;
use tensix_emu::format::data_format::DataFormat;
use tensix_emu::regs::CfgField;
use tensix_emu::{Fault, Limits, Machine, ThreadProgram};

/// Scheduler steps one vector may take.
pub const STEP_BUDGET: u64 = 5_000_000;

/// The bounds of a vector's run: [`STEP_BUDGET`], and no datum budget.
const LIMITS: Limits = Limits::steps(STEP_BUDGET);

/// One difference between what a vector expects and what the run gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// The run faulted when it should not have, or not as it should have.
    Fault {
        expected: Option<vector::FaultKind>,
        actual: Option<Fault>,
    },
    /// L1 differs; `expected` and `actual` are the whole of L1.
    L1 { expected: Vec<u8>, actual: Vec<u8> },
    Dst {
        format: DstFormat,
        row: u16,
        expected: [u32; 16],
        actual: [u32; 16],
    },
    Src {
        which: &'static str,
        bank: u8,
        row: u8,
        expected: [u32; 16],
        actual: [u32; 16],
    },
    Adc {
        thread: u8,
        unit: String,
        expected: [[u32; 4]; 2],
        actual: [[u32; 4]; 2],
    },
    /// A rule every run must keep was broken.
    Invariant(String),
}

/// The result of running one vector.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The fault the run stopped with, expected or not.
    pub fault: Option<Fault>,
    /// How reports decode L1: by the packer output format Config state 0
    /// held at the end of the run and, for BFP, where packer 0's exponent
    /// section lies.
    pub datums: Datums,
    pub mismatches: Vec<Mismatch>,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }
}

/// Machines kept for reuse across jobs: a campaign, a gate or a fuzz target
/// that runs many jobs allocates each machine's memory once and resets it
/// between jobs ([`Machine::reset`] clears what the last job wrote), instead
/// of building and dropping 1.5 MiB of L1 per job.
///
/// It holds memory, not results: a machine is reset to the state
/// [`Machine::new`] gives before it is handed out, so what a job does never
/// depends on the jobs before it. The determinism checks run a job's second
/// run on a machine last used for something else, so a reset that forgot
/// anything shows up there.
#[derive(Debug)]
pub struct Workbench {
    /// Boxed: jobs take and give back machines by value, and a `Machine`
    /// is 3.7 KB; moving the box copies a pointer. (Moving them unboxed was
    /// 3.7% of `pack_tile_diff`'s samples, in `memmove`.)
    #[expect(clippy::vec_box, reason = "the boxes are handed out, not the Vec")]
    spare: Vec<Box<Machine>>,
    /// The fuzz oracles' determinism check runs the jobs for which
    /// [`Workbench::checks_determinism`] holds: every job, or one job in
    /// this many, chosen by the job itself.
    determinism_one_in: u32,
}

impl Default for Workbench {
    fn default() -> Workbench {
        Workbench {
            spare: Vec::new(),
            determinism_one_in: 1,
        }
    }
}

impl Workbench {
    /// Machines kept per workbench: a job takes at most three at once, and
    /// the workbench keeps zero-filled machines and others
    /// ([`Workbench::spare`]) of both architectures.
    const KEEP: usize = 12;

    /// A workbench whose oracles check every job for determinism.
    pub fn new() -> Workbench {
        Workbench::default()
    }

    /// A workbench whose oracles check one job in `n` for determinism
    /// (chosen by a hash of the job's setup and program, so the same job is
    /// always chosen or always not): what a fuzz target runs. The first run
    /// of every job is already on a machine reset from another job and is
    /// held to the golden model, so a reset that leaks state shows up there
    /// too; the second run is for what no model covers.
    pub fn sampling_determinism(n: u32) -> Workbench {
        Workbench {
            determinism_one_in: n.max(1),
            ..Workbench::default()
        }
    }

    /// Whether the determinism check runs `v` a second time.
    pub fn checks_determinism(&self, v: &Vector) -> bool {
        if self.determinism_one_in <= 1 {
            return true;
        }
        // FNV-1a over the setup's Config writes, the first bytes of its L1
        // ranges and the program words.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut mix = |x: u32| {
            h = (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3);
        };
        for w in &v.setup.config {
            mix(w.addr ^ w.value.rotate_left(9) ^ u32::from(w.state) << 31);
        }
        for r in &v.setup.l1 {
            mix(r.addr);
            for b in r.bytes.iter().take(32) {
                mix(u32::from(*b));
            }
        }
        for p in &v.program {
            for s in &p.run {
                if let tensix_emu::Step::Instruction(w) = s {
                    mix(*w);
                }
            }
        }
        (h >> 32).is_multiple_of(u64::from(self.determinism_one_in))
    }

    /// A machine of `arch` in its reset state.
    pub fn machine(&mut self, arch: tensix_emu::Arch) -> Box<Machine> {
        self.machine_with_l1_fill(arch, 0)
    }

    /// A machine of `arch` in its reset state but for every byte of L1
    /// being `l1_fill` ([`Machine::reset_with_l1_fill`]).
    fn machine_with_l1_fill(&mut self, arch: tensix_emu::Arch, l1_fill: u8) -> Box<Machine> {
        match self.spare(arch, l1_fill) {
            Some(mut m) => {
                m.reset_with_l1_fill(l1_fill);
                m
            }
            None => {
                let mut m = Box::new(Machine::new(arch));
                m.l1.fill(l1_fill);
                m
            }
        }
    }

    /// A kept machine of `arch`, as its last job left it. One whose L1 has
    /// fill `l1_fill` is taken first: setting it up again (a reset, or a
    /// copy of a machine with that fill) stores only what either machine
    /// wrote, where another stores all of L1. Failing that, one whose fill
    /// is not zero. A zero-filled machine goes only to a job whose fill is
    /// zero, as most jobs' fill is (`generators::tile::canary`): a job with
    /// another fill takes a new machine rather than one that those jobs
    /// would have to fill back, and the workbench comes to keep machines of
    /// both kinds.
    fn spare(&mut self, arch: tensix_emu::Arch, l1_fill: u8) -> Option<Box<Machine>> {
        let kept = |fill: &dyn Fn(u8) -> bool| {
            self.spare
                .iter()
                .rposition(|m| m.arch() == arch && fill(m.l1.fill_byte()))
        };
        let found = kept(&|f| f == l1_fill).or_else(|| kept(&|f| f != 0))?;
        Some(self.spare.swap_remove(found))
    }

    /// Keep `m` for a later job.
    pub fn give_back(&mut self, m: Box<Machine>) {
        if self.spare.len() >= Self::KEEP {
            self.spare.remove(0);
        }
        self.spare.push(m);
    }

    /// A machine with `v`'s setup applied, as [`prepare`] makes it.
    pub fn prepare(&mut self, v: &Vector) -> Result<Box<Machine>, String> {
        let mut m = self.machine_with_l1_fill(v.arch, v.setup.l1_fill);
        match apply_setup(&mut m, v) {
            Ok(()) => Ok(m),
            Err(e) => {
                self.give_back(m);
                Err(e)
            }
        }
    }

    /// Run `v`'s programs on a copy of `prepared`, as [`execute`] does.
    pub fn execute(&mut self, v: &Vector, prepared: &Machine) -> (Box<Machine>, Option<Fault>) {
        self.execute_with(v, prepared, L1Log::On)
    }

    /// [`Workbench::execute`], with L1's write log as `log` says.
    pub fn execute_with(
        &mut self,
        v: &Vector,
        prepared: &Machine,
        log: L1Log,
    ) -> (Box<Machine>, Option<Fault>) {
        // `copy_from` sets every part of the machine: a kept one needs no
        // reset first.
        let arch = prepared.arch();
        let mut m = (self.spare(arch, prepared.l1.fill_byte()))
            .unwrap_or_else(|| Box::new(Machine::new(arch)));
        m.copy_from(prepared);
        let fault = run_within(v, &mut m, log, LIMITS);
        (m, fault)
    }
}

/// A machine with the vector's setup applied, in the documented order:
/// `l1_fill`, `l1`, `dst`, `srca`, `srcb`, `config`, `thread_config`, `gprs`,
/// `mop_config`. Errors name the setup field that could not be applied.
pub fn prepare(v: &Vector) -> Result<Machine, String> {
    Workbench::new().prepare(v).map(|m| *m)
}

/// Apply `v`'s setup after `l1_fill` to `m`, a machine in its reset state
/// with every byte of L1 the setup's `l1_fill`
/// ([`Workbench::machine_with_l1_fill`]).
fn apply_setup(m: &mut Machine, v: &Vector) -> Result<(), String> {
    let s = &v.setup;
    for (i, r) in s.l1.iter().enumerate() {
        m.write_l1(r.addr, &r.bytes)
            .map_err(|e| format!("setup.l1[{i}]: {e}"))?;
    }
    if let Some(d) = &s.dst {
        for (i, r) in d.rows.iter().enumerate() {
            m.write_dst_row(d.format.view(), r.row as u32, &r.cells)
                .map_err(|e| format!("setup.dst.rows[{i}]: {e}"))?;
        }
    }
    for r in &s.srca {
        m.srca.write_row(r.bank as usize, r.row as usize, &r.cells);
    }
    for r in &s.srcb {
        m.srcb.write_row(r.bank as usize, r.row as usize, &r.cells);
    }
    for (i, w) in s.config.iter().enumerate() {
        m.write_config(w.state as usize, w.addr as usize, w.value)
            .map_err(|e| format!("setup.config[{i}]: {e}"))?;
    }
    for (i, w) in s.thread_config.iter().enumerate() {
        m.write_thread_config(w.thread as usize, w.reg as usize, w.value)
            .map_err(|e| format!("setup.thread_config[{i}]: {e}"))?;
    }
    for (i, w) in s.gprs.iter().enumerate() {
        m.write_gpr(w.thread as usize, w.index as usize, w.value)
            .map_err(|e| format!("setup.gprs[{i}]: {e}"))?;
    }
    for (i, w) in s.mop_config.iter().enumerate() {
        m.write_mop_config(w.thread as usize, &w.words)
            .map_err(|e| format!("setup.mop_config[{i}]: {e}"))?;
    }
    Ok(())
}

/// The vector's programs in the emulator's terms.
pub fn programs(v: &Vector) -> Vec<ThreadProgram> {
    v.program
        .iter()
        .map(|p| ThreadProgram {
            thread: p.thread as usize,
            steps: p.run.clone(),
        })
        .collect()
}

/// Run the vector's programs on a copy of `prepared` (the machine with its
/// setup applied) and return that copy with the run's result.
pub fn execute(v: &Vector, prepared: &Machine) -> (Machine, Option<Fault>) {
    let mut m = prepared.clone();
    let fault = run_within(v, &mut m, L1Log::On, LIMITS);
    (m, fault)
}

/// Whether a run records L1's writes. The log tags each write with the
/// instruction that made it, so with it on every `PACR` writes its own
/// rows; with it off, a run of `PACR`s that take whole rows may convert
/// and write them together at the run's end (`tensix_emu::pack::express`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L1Log {
    On,
    Off,
}

/// Run `v`'s programs on `m` within `limits`, its L1 writes recorded or not
/// as `log` says.
pub(crate) fn run_within(v: &Vector, m: &mut Machine, log: L1Log, limits: Limits) -> Option<Fault> {
    match log {
        L1Log::On => m.l1.enable_log(),
        L1Log::Off => m.l1.disable_log(),
    }
    m.run(&programs(v), limits).err()
}

/// Run a vector and compare. `Err` when its setup cannot be applied.
pub fn run_vector(v: &Vector) -> Result<Outcome, String> {
    Workbench::new().run_vector(v)
}

impl Workbench {
    /// [`run_vector`] on this workbench's machines.
    pub fn run_vector(&mut self, v: &Vector) -> Result<Outcome, String> {
        let before = self.prepare(v)?;
        let (m, fault) = self.execute(v, &before);
        let (again, fault_again) = self.execute_with(v, &before, L1Log::Off);
        let outcome = judge_run(v, &before, &m, fault, &again, fault_again);
        for machine in [before, m, again] {
            self.give_back(machine);
        }
        Ok(outcome)
    }
}

/// Compare a run (`m`, left by running `v` on a copy of `before`) with `v`'s
/// `expect`, and with a second run (`again`) of the same vector, unlogged.
fn judge_run(
    v: &Vector,
    before: &Machine,
    m: &Machine,
    fault: Option<Fault>,
    again: &Machine,
    fault_again: Option<Fault>,
) -> Outcome {
    let mut mismatches = Vec::new();

    let expected_kind = v.expect.fault.map(|f| f.kind);
    let fault_ok = match (&expected_kind, &fault) {
        (None, None) => true,
        (Some(k), Some(f)) => k.name() == f.kind.name(),
        _ => false,
    };
    if !fault_ok {
        mismatches.push(Mismatch::Fault {
            expected: expected_kind,
            actual: fault.clone(),
        });
    }

    for w in m.l1.log() {
        if w.addr % 16 != 0 || w.addr as usize + 16 > m.l1.len() {
            mismatches.push(Mismatch::Invariant(format!(
                "L1 write at {:#x} is not a 16-byte aligned write inside L1",
                w.addr
            )));
        }
    }

    // L1: the setup image with expect.l1 laid over it must be exactly what
    // the run left. Without expect.l1, nothing may have changed either.
    if !l1_as_expected(v, before, m) {
        let mut expected = before.l1.bytes().to_vec();
        for r in v.expect.l1.iter().flatten() {
            let start = r.addr as usize;
            if let Some(dst) = expected.get_mut(start..start + r.bytes.len()) {
                dst.copy_from_slice(&r.bytes);
            }
        }
        mismatches.push(Mismatch::L1 {
            expected,
            actual: m.l1.bytes().to_vec(),
        });
    }

    if let Some(d) = &v.expect.dst {
        compare_dst(m, d, &mut mismatches);
    }
    if let Some(rows) = &v.expect.srca {
        compare_src("srca", &m.srca, rows, &mut mismatches);
    }
    if let Some(rows) = &v.expect.srcb {
        compare_src("srcb", &m.srcb, rows, &mut mismatches);
    }
    for a in v.expect.adc.iter().flatten() {
        let unit = match a.unit {
            vector::AdcUnit::Unpack0 => Unit::Unpacker0,
            vector::AdcUnit::Unpack1 => Unit::Unpacker1,
            vector::AdcUnit::Pack => Unit::Packers,
        };
        let actual = m.adcs.values(a.thread as usize, unit).unwrap_or_default();
        let xyzw = |c: vector::AdcChannel| [c.x, c.y, c.z, c.w];
        let expected = [xyzw(a.ch0), xyzw(a.ch1)];
        if actual != expected {
            mismatches.push(Mismatch::Adc {
                thread: a.thread,
                unit: a.unit.name().to_string(),
                expected,
                actual,
            });
        }
    }

    // Determinism: the same vector run again gives the same state, and
    // L1's write log, off the second time, changes none of it.
    if let Some(part) = first_difference(m, &fault, again, &fault_again) {
        mismatches.push(Mismatch::Invariant(format!(
            "running the vector again with L1's write log off left a different {part}"
        )));
    }

    let pack_format =
        DataFormat::from_code(m.config.get(0, CfgField::THCON_SEC0_REG1_Out_data_format) as u8);
    let datums = Datums::for_format(pack_format, pack_format.and_then(|f| bfp_layout(m, f)));
    Outcome {
        fault,
        datums,
        mismatches,
    }
}

/// Whether `after`'s L1 is `before`'s with `v.expect.l1` laid over it
/// (whose ranges do not overlap: the parser refuses that), looking only at
/// the expected ranges and at the blocks either machine wrote.
fn l1_as_expected(v: &Vector, before: &Machine, after: &Machine) -> bool {
    let (was, now) = (before.l1.bytes(), after.l1.bytes());
    let stated: Vec<&vector::L1Range> = v
        .expect
        .l1
        .iter()
        .flatten()
        .filter(|r| r.end() <= now.len() as u64)
        .collect();
    let expected_at = |i: usize| {
        stated
            .iter()
            .find_map(|r| r.bytes.get(i.checked_sub(r.addr as usize)?))
            .copied()
            .unwrap_or(was[i])
    };
    stated
        .iter()
        .map(|r| r.addr as usize..r.end() as usize)
        .chain(after.l1.ranges_differing_from(&before.l1))
        .all(|r| r.into_iter().all(|i| now[i] == expected_at(i)))
}

/// The first part of what two runs left that differs, in the order: the
/// fault, L1's bytes, `Dst`, `SrcA`, `SrcB`, the ADCs. L1's write log is
/// not compared, so a run with it on and one with it off can be.
pub fn first_difference(
    a: &Machine,
    fa: &Option<Fault>,
    b: &Machine,
    fb: &Option<Fault>,
) -> Option<&'static str> {
    if fa != fb {
        Some("fault")
    } else if !a.l1.same_bytes(&b.l1) {
        Some("L1")
    } else if a.dst != b.dst {
        Some("Dst")
    } else if a.srca != b.srca {
        Some("SrcA")
    } else if a.srcb != b.srcb {
        Some("SrcB")
    } else if a.adcs != b.adcs {
        Some("set of ADC counters")
    } else {
        None
    }
}

/// Packer 0's exponent section, as the output address generator places it
/// for a fresh tile (Packers/OutputAddressGenerator.md): from
/// `(L1_Dest_addr + !Sub_l1_tile_header_size) * 16`, `Exp_section_size`
/// units of 16 bytes. Only a display aid for reports.
fn bfp_layout(m: &Machine, format: DataFormat) -> Option<BfpLayout> {
    let (exp, width) = format.bfp()?;
    let dest = m.config.get(0, CfgField::THCON_SEC0_REG1_L1_Dest_addr) & 0x1_ffff;
    let header = 1 - m
        .config
        .get(0, CfgField::THCON_SEC0_REG1_Sub_l1_tile_header_size);
    let units = m.config.get(0, CfgField::THCON_SEC0_REG1_Exp_section_size);
    Some(BfpLayout {
        exp,
        width,
        start: (dest + header) as usize * 16,
        exponents: units as usize * 16,
    })
}

fn compare_dst(m: &Machine, d: &Dst, out: &mut Vec<Mismatch>) {
    for r in &d.rows {
        let actual = m.read_dst_row(d.format.view(), r.row as u32);
        if actual != r.cells {
            out.push(Mismatch::Dst {
                format: d.format,
                row: r.row,
                expected: r.cells,
                actual,
            });
        }
    }
}

fn compare_src(
    which: &'static str,
    reg: &tensix_emu::state::SrcReg,
    rows: &[SrcRow],
    out: &mut Vec<Mismatch>,
) {
    for r in rows {
        let actual = reg.read_row(r.bank as usize, r.row as usize);
        if actual != r.cells {
            out.push(Mismatch::Src {
                which,
                bank: r.bank,
                row: r.row,
                expected: r.cells,
                actual,
            });
        }
    }
}

/// The runs of L1 bytes that differ between `before` and `after` (the same
/// length): what a run wrote, as `expect.l1` states it. Pages are compared
/// whole first, since a run touches a few of L1's hundreds.
pub fn changed_l1(before: &[u8], after: &[u8]) -> Vec<vector::L1Range> {
    const PAGE: usize = 4096;
    let mut out: Vec<vector::L1Range> = Vec::new();
    for (p, (was, now)) in before.chunks(PAGE).zip(after.chunks(PAGE)).enumerate() {
        if was == now {
            continue;
        }
        for (i, (a, b)) in was.iter().zip(now).enumerate() {
            if a == b {
                continue;
            }
            let addr = p * PAGE + i;
            match out.last_mut() {
                // A run that reaches the end of one page goes on in the next.
                Some(r) if r.end() == addr as u64 => r.bytes.push(*b),
                _ => out.push(vector::L1Range {
                    addr: addr as u32,
                    bytes: vec![*b],
                }),
            }
        }
    }
    out
}

/// [`changed_l1`] between two L1s, looking only at the blocks either has
/// written since the fill they share.
pub fn changed_between(
    before: &tensix_emu::state::L1,
    after: &tensix_emu::state::L1,
) -> Vec<vector::L1Range> {
    let mut out: Vec<vector::L1Range> = Vec::new();
    for r in after.ranges_differing_from(before) {
        let (Some(was), Some(now)) = (before.bytes().get(r.clone()), after.bytes().get(r.clone()))
        else {
            continue;
        };
        out.extend(changed_l1(was, now).into_iter().map(|mut c| {
            c.addr += r.start as u32;
            c
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `first_difference` names the first part of two runs' results that
    /// differs, and leaves out L1's write log, which `L1`'s own equality
    /// compares.
    #[test]
    fn first_difference_names_the_part_and_ignores_the_write_log() {
        use tensix_emu::adc::{Dim, Unit};
        use tensix_emu::state::dst::DstView;
        let arch = tensix_emu::Arch::Blackhole;
        let base = Machine::new(arch);
        type Change = fn(&mut Machine);
        let changes: [(&str, Change); 5] = [
            ("L1", |m| assert!(m.l1.write(0x4000, &[1]))),
            ("Dst", |m| {
                m.write_dst_row(DstView::Bf16, 7, &[0x3F80; 16]).unwrap()
            }),
            ("SrcA", |m| m.srca.write(1, 3, 5, 0x1234)),
            ("SrcB", |m| m.srcb.write(0, 2, 9, 0x4321)),
            ("set of ADC counters", |m| {
                m.adcs.load(1, Unit::Packers, 0, Dim::Y, 4, 0).unwrap()
            }),
        ];
        for (part, change) in changes {
            let mut other = base.clone();
            change(&mut other);
            assert_eq!(
                first_difference(&base, &None, &other, &None),
                Some(part),
                "{part}"
            );
        }
        let fault = Some(Fault::undefined("a rule"));
        assert_eq!(first_difference(&base, &None, &base, &fault), Some("fault"));
        // The same bytes, one L1 logging its writes and one not.
        let (mut logged, mut unlogged) = (base.clone(), base.clone());
        logged.l1.enable_log();
        let tag = tensix_emu::state::l1::WriteTag::data(0);
        assert!(logged.l1.write16(0x100, [7; 16], tag));
        assert!(unlogged.l1.write16(0x100, [7; 16], tag));
        assert_eq!(logged.l1.log().len(), 1);
        assert_eq!(first_difference(&logged, &None, &unlogged, &None), None);
        assert!(logged.l1 != unlogged.l1);
    }

    /// A run with L1's write log off records nothing, and a committed
    /// vector whose `PACR`s write a tile's rows together when unlogged
    /// leaves the bytes its logged run leaves. (Its BFP4 groups go through
    /// the four-group assembler only unlogged: a one-bit change there fails
    /// this test.)
    #[test]
    fn an_unlogged_run_logs_nothing_and_leaves_the_logged_bytes() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../conformance-vectors/ttsim/blackhole/pack/d32-fp32-to-bfp4b-0249.yaml"
        );
        let v = Vector::from_yaml_str(&std::fs::read_to_string(path).unwrap(), path).unwrap();
        let mut bench = Workbench::new();
        let before = bench.prepare(&v).unwrap();
        let (logged, fault) = bench.execute(&v, &before);
        let (unlogged, fault_unlogged) = bench.execute_with(&v, &before, L1Log::Off);
        assert_eq!((&fault, &fault_unlogged), (&None, &None));
        assert!(!logged.l1.log().is_empty());
        assert!(!unlogged.l1.logging());
        assert!(!unlogged.l1.same_bytes(&before.l1), "the run wrote L1");
        assert_eq!(
            first_difference(&logged, &fault, &unlogged, &fault_unlogged),
            None
        );
    }

    /// A sampling workbench picks about one job in `n`, the same jobs every
    /// time; a plain one picks every job.
    #[test]
    fn sampled_determinism_picks_the_same_jobs_about_one_in_n() {
        use crate::diff::{Case, Jobs};
        let jobs: Vec<Vector> = (0..800)
            .filter_map(|i| Case::draw(Jobs::Pack, 5, i, &[tensix_emu::Arch::Blackhole]))
            .map(|c| c.vector("t"))
            .collect();
        let all = Workbench::new();
        assert!(jobs.iter().all(|v| all.checks_determinism(v)));
        let some = Workbench::sampling_determinism(8);
        let picked: Vec<bool> = jobs.iter().map(|v| some.checks_determinism(v)).collect();
        let again: Vec<bool> = jobs.iter().map(|v| some.checks_determinism(v)).collect();
        assert_eq!(picked, again);
        let n = picked.iter().filter(|&&p| p).count();
        assert!((50..=150).contains(&n), "{n} of {} picked", jobs.len());
    }

    /// A workbench's machines, reused across jobs whose L1 fills differ or
    /// repeat, hold the fill and the setup's bytes and nothing else, as do
    /// copies of them: a kept machine whose L1 has the fill has the last
    /// job's bytes put back, and one with another fill is filled whole;
    /// what the last jobs wrote to `Dst` and `SrcA` is gone too.
    #[test]
    fn reused_machines_hold_the_fill_and_the_setup_whatever_the_fills() {
        let vector = |fill: u8, addr: u32| {
            let text = [
                "schema: tensix-vector/1",
                "arch: wormhole_b0",
                "provenance: {source: isa-spec}",
                "setup:",
                &format!("  l1_fill: {fill}"),
                "  l1:",
                &format!("    - {{addr: {addr:#x}, hex: '0102030405'}}"),
                "program: []",
            ]
            .join("\n");
            Vector::from_yaml_str(&text, "t.yaml").unwrap()
        };
        let mut bench = Workbench::new();
        let jobs = [
            (0x5A, 0x100),
            (0x5A, 0x2000),
            (0, 0x100),
            (0x5A, 0x40),
            (0xA5, 0x100),
            (0, 0x3000),
        ];
        for (i, &(fill, addr)) in jobs.iter().enumerate() {
            let v = vector(fill, addr);
            let mut want = vec![fill; tensix_emu::Arch::WormholeB0.l1_size()];
            want[addr as usize..addr as usize + 5].copy_from_slice(&[1, 2, 3, 4, 5]);
            // The same machine built by hand, for the rest of its state.
            let mut fresh = Machine::new(tensix_emu::Arch::WormholeB0);
            fresh.l1.fill(fill);
            fresh.write_l1(addr, &[1, 2, 3, 4, 5]).unwrap();
            let m = bench.prepare(&v).unwrap();
            assert!(m.l1.bytes() == want, "job {i}: L1 differs");
            assert_eq!(first_difference(&m, &None, &fresh, &None), None, "job {i}");
            assert!(m.l1 == fresh.l1, "job {i}: the prepared machine's L1 log");
            let copy = bench.execute(&v, &m).0;
            assert!(copy.l1.bytes() == want, "job {i}: the copy's L1 differs");
            // The run logs L1's writes, of which there are none.
            fresh.l1.enable_log();
            assert_eq!(
                first_difference(&copy, &None, &fresh, &None),
                None,
                "job {i}"
            );
            assert!(copy.l1 == fresh.l1, "job {i}: the copy's L1 log");
            // What a job would write, for the next job to clear.
            for mut m in [m, copy] {
                m.l1.write(0x8000 + 64 * i as u32, &[0xEE; 40]);
                let row = [0x3F80 + i as u32; 16];
                m.write_dst_row(tensix_emu::state::dst::DstView::Bf16, 3 + i as u32, &row)
                    .unwrap();
                m.srca.write(0, i, 2, 0x1234);
                bench.give_back(m);
            }
        }
    }

    /// A job whose fill is not zero leaves the zero-filled machines for
    /// the jobs whose fill is zero: it takes a machine with its own fill,
    /// then one with another non-zero fill, and otherwise a new one.
    #[test]
    fn zero_filled_machines_are_kept_for_zero_filled_jobs() {
        let arch = tensix_emu::Arch::Blackhole;
        let mut bench = Workbench::new();
        let fills = |b: &Workbench| b.spare.iter().map(|m| m.l1.fill_byte()).collect::<Vec<_>>();
        let take = |b: &mut Workbench, fill: u8| {
            let m = b.machine_with_l1_fill(arch, fill);
            assert!(m.l1.bytes().iter().all(|&x| x == fill), "fill {fill:#x}");
            m
        };
        let zero = take(&mut bench, 0);
        bench.give_back(zero);
        let a5 = take(&mut bench, 0xA5);
        assert_eq!(fills(&bench), [0], "a new machine for 0xA5");
        bench.give_back(a5);
        let a5 = take(&mut bench, 0xA5);
        assert_eq!(fills(&bench), [0], "the 0xA5 machine again");
        bench.give_back(a5);
        let x5a = take(&mut bench, 0x5A);
        assert_eq!(fills(&bench), [0], "the 0xA5 machine, filled with 0x5A");
        let zero = take(&mut bench, 0);
        assert_eq!(fills(&bench), Vec::<u8>::new(), "the zero-filled machine");
        bench.give_back(x5a);
        let again = take(&mut bench, 0);
        assert_eq!(
            fills(&bench),
            Vec::<u8>::new(),
            "the 0x5A machine, filled with zero"
        );
        bench.give_back(zero);
        bench.give_back(again);
        assert_eq!(fills(&bench), [0, 0]);
    }

    /// `expect.l1` laid over the setup: a run that changes nothing passes
    /// when every stated byte is its setup value, and fails when one is
    /// not, inside a range or just past the setup bytes.
    #[test]
    fn expected_l1_is_the_setup_with_the_stated_bytes_over_it() {
        let vector = |first: &str, second: &str| {
            let text = [
                "schema: tensix-vector/1",
                "arch: blackhole",
                "provenance: {source: isa-spec}",
                "setup:",
                "  l1:",
                "    - {addr: 0x100, hex: '0102030405'}",
                "program: []",
                "expect:",
                "  l1:",
                &format!("    - {{addr: 0x100, hex: '{first}'}}"),
                &format!("    - {{addr: 0x104, hex: '{second}'}}"),
            ]
            .join("\n");
            Vector::from_yaml_str(&text, "t.yaml").unwrap()
        };
        let passes = |v: &Vector| run_vector(v).unwrap().passed();
        assert!(passes(&vector("01020304", "05")));
        assert!(!passes(&vector("0102ff04", "05")));
        // Past the setup bytes L1 holds zero.
        assert!(passes(&vector("01020304", "050000")));
        assert!(!passes(&vector("01020304", "0500ff")));
    }

    /// The block-wise form finds exactly the runs the byte-wise one finds,
    /// including a run across a block edge and one at the end of L1.
    #[test]
    fn changed_between_agrees_with_changed_l1() {
        let arch = tensix_emu::Arch::WormholeB0;
        let mut before = tensix_emu::state::L1::new(arch);
        before.write(0x2000, &[7; 40]);
        let mut after = before.clone();
        after.write(0x2000 + 10, &[7, 8, 9]); // 7 unchanged, 8 and 9 changed
        after.write(0x33FE, &[1, 2, 3, 4]); // across a 1 KiB block edge
        let end = (after.len() - 2) as u32;
        after.write(end, &[5, 6]);
        let full = changed_l1(before.bytes(), after.bytes());
        assert_eq!(full.len(), 3);
        assert_eq!(changed_between(&before, &after), full);
        let mut filled = before.clone();
        filled.fill(0xEE);
        assert_eq!(
            changed_between(&before, &filled),
            changed_l1(before.bytes(), filled.bytes())
        );
    }

    #[test]
    fn changed_l1_gives_each_run_once_across_page_edges() {
        let before = vec![0u8; 3 * 4096];
        assert!(changed_l1(&before, &before).is_empty());
        let mut after = before.clone();
        after[10] = 1;
        after[11] = 2;
        after[13] = 3; // byte 12 is unchanged: a second run
        after[4094..4098].copy_from_slice(&[4, 5, 6, 7]); // spans pages 0 and 1
        after[3 * 4096 - 1] = 8;
        let runs: Vec<(u32, Vec<u8>)> = changed_l1(&before, &after)
            .into_iter()
            .map(|r| (r.addr, r.bytes))
            .collect();
        assert_eq!(
            runs,
            vec![
                (10, vec![1, 2]),
                (13, vec![3]),
                (4094, vec![4, 5, 6, 7]),
                (3 * 4096 - 1, vec![8]),
            ]
        );
    }
}
