//! Invariants for arbitrary config images and programs around PACR and
//! UNPACR: no panic, no hang (the step budget), every L1 write 16 bytes at a
//! 16-byte aligned address inside L1 and, for a tt-llk-shaped pack, inside its
//! output window; each BFP exponent the largest of its group; the same run
//! twice gives the same state.

use super::{
    check_determinism, check_writes, execute, expect_agreement, is_hang, prepare, Finding, Verdict,
    Workbench,
};
use crate::generators::program::{PackProgram, ProgramCase, Unit, UnpackProgram};
use crate::golden::Format;
use crate::vector::Arch;
use tensix_emu::regs::CfgField;
use tensix_emu::{FaultKind, Machine};

/// `pack_program`: panics when a run breaks an invariant.
pub fn pack_program(case: &PackProgram) -> Verdict {
    expect_agreement(
        check_program(&mut Workbench::new(), &case.0),
        "pack_program",
    )
}

/// `unpack_program`: panics when a run breaks an invariant.
pub fn unpack_program(case: &UnpackProgram) -> Verdict {
    expect_agreement(
        check_program(&mut Workbench::new(), &case.0),
        "unpack_program",
    )
}

/// Whether the config still lays a tile out as tt-llk does: no zero
/// compression (its row-start index stream and elided zeros move
/// everything) and no downsampling (`Packers/Compression.md`,
/// `Packers/Downsampling.md`). A perturbed image may have changed these.
fn plain_layout(m: &Machine) -> bool {
    let get = |f: CfgField| m.config.get(0, f);
    get(CfgField::THCON_SEC0_REG1_Disable_zero_compress) == 1
        && matches!(get(CfgField::THCON_SEC0_REG1_Downsample_mask), 0 | 0xffff)
}

/// How much of a pack case is still the tt-llk programming of its job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Llk {
    /// No tt-llk job, or other instructions were spliced into its program.
    Changed,
    /// The program is one of the job's tt-llk forms; config words may have
    /// been perturbed.
    Program,
    /// Program, config, ThreadConfig and MOP config all as tt-llk writes them.
    Untouched,
}

/// Compare `case` with the tt-llk programmings of its pack job (built once
/// per case: both invariants below ask).
fn llk_shape(case: &ProgramCase) -> Llk {
    let Some(job) = case.pack_job.as_ref() else {
        return Llk::Changed;
    };
    let mut shape = Llk::Changed;
    for form in [
        crate::llk::PackForm::Instructions,
        crate::llk::PackForm::Mop,
    ] {
        let p = crate::llk::pack(job, form);
        if p.program.run == case.program {
            if p.config == case.config
                && p.thread_config == case.thread_config
                && p.mop_config.first().map(|c| c.words) == case.mop
            {
                return Llk::Untouched;
            }
            shape = Llk::Program;
        }
    }
    shape
}

/// The L1 bytes a tt-llk-shaped pack's streams can reach, read from the
/// config the run ended with: from packer 0's first address up to the end
/// of the exponent section plus the largest data the tile can make.
///
/// Only for an untouched tt-llk job (its own program, config, ThreadConfig
/// and MOP config): a spliced WRCFG, ADC instruction or extra PACR, or a
/// perturbed config word, legitimately moves the streams elsewhere.
fn pack_window(case: &ProgramCase, shape: Llk, m: &Machine) -> Option<(u64, u64)> {
    let job = case.pack_job.as_ref()?;
    if shape != Llk::Untouched || !plain_layout(m) {
        return None;
    }
    let (lo, _) = job.window();
    let exp_units = u64::from(m.config.get(0, CfgField::THCON_SEC0_REG1_Exp_section_size))
        .max(u64::from(job.faces));
    let datums = u64::from(job.faces) * u64::from(job.face_rows) * 16;
    let data = (datums * 4).div_ceil(16) * 16;
    let per_packer = match job.arch {
        Arch::Blackhole => 0,
        // Wormhole B0 packers 1..3 sit one face (at most 32-bit datums) apart.
        Arch::WormholeB0 => 3 * (u64::from(job.face_rows) * 64 + 16 * exp_units),
    };
    Some((lo, lo + 16 * exp_units + data + per_packer + 16 * exp_units))
}

/// For a tt-llk-shaped Blackhole pack to a BFP format: each group's exponent
/// is the largest of its datums', so the datum that has it keeps its top
/// magnitude bit (`FormatConversion.md`, "To BFP8": the shared exponent is
/// the maximum; that datum's hidden bit lands in the top magnitude bit).
fn check_shared_exponents(case: &ProgramCase, shape: Llk, m: &Machine) -> Result<(), Finding> {
    let Some(job) = case.pack_job.as_ref() else {
        return Ok(());
    };
    // Only for the tt-llk program itself: other instructions spliced in
    // may move the streams.
    if job.arch != Arch::Blackhole || shape == Llk::Changed || !plain_layout(m) {
        return Ok(());
    }
    let cfg = |f: CfgField| m.config.get(0, f);
    let Some(out) = Format::from_code(cfg(CfgField::THCON_SEC0_REG1_Out_data_format)) else {
        return Ok(());
    };
    if !out.is_bfp() || out.is_a_form() {
        return Ok(());
    }
    let groups = usize::from(job.faces) * usize::from(job.face_rows);
    let exp_units = cfg(CfgField::THCON_SEC0_REG1_Exp_section_size) as usize;
    // The exponent stream runs on into the data stream when the section
    // reserved for it is too small (a perturbed output format whose job
    // reserved none, as tt-llk does for FP8 and INT8): then the later
    // stream's writes replace the earlier one's, and the bytes at either
    // place say nothing about the shared exponents.
    if 16 * exp_units < groups {
        return Ok(());
    }
    let exp_at = job.l1_addr as usize;
    let data_at = exp_at + 16 * exp_units;
    let bits = out.l1_bits() as usize;
    let l1 = m.l1.bytes();
    if data_at + groups * 2 * bits > l1.len() {
        return Ok(());
    }
    for g in 0..groups {
        let exp = l1[exp_at + g];
        let top = 1u8 << (bits - 2);
        let has_top = (0..16).any(|j| {
            let bit = (g * 16 + j) * bits;
            let datum = (l1[data_at + bit / 8] >> (bit % 8)) & ((1u16 << bits) - 1) as u8;
            datum & top != 0
        });
        let written =
            m.l1.log()
                .iter()
                .any(|w| (w.addr as usize..w.addr as usize + 16).contains(&(exp_at + g)));
        if written && exp != 0 && !has_top {
            return Err(Finding::new(
                "shared exponent is not the group's largest",
                format!(
                    "{}\ngroup {g}: exponent {exp} at {:#x}, but no datum of the group has its top \
                     magnitude bit, so a smaller exponent would have served",
                    super::report::pack_job(job),
                    exp_at + g
                ),
            ));
        }
    }
    Ok(())
}

/// The invariants oracle as a value.
pub fn check_program(bench: &mut Workbench, case: &ProgramCase) -> Result<Verdict, Finding> {
    let v = case.vector(match case.unit {
        Unit::Pack => "fuzz/pack_program",
        Unit::Unpack => "fuzz/unpack_program",
    });
    let mut after = prepare(bench, &v)?;
    let fault = execute(&v, &mut after);
    let shape = llk_shape(case);
    let window = if case.unit == Unit::Pack {
        pack_window(case, shape, &after)
    } else {
        None
    };
    check_writes(&after, window)?;
    if case.unit == Unit::Unpack && !after.l1.log().is_empty() {
        return Err(Finding::new(
            "an unpack program wrote L1",
            format!(
                "{} L1 writes from a program without PACR",
                after.l1.log().len()
            ),
        ));
    }
    let verdict = match &fault {
        Some(f) if is_hang(f) => {
            return Err(Finding::new(
                "hang",
                format!(
                    "the program did not finish within {} steps: {f}",
                    super::STEP_BUDGET
                ),
            ))
        }
        Some(f) => match f.kind {
            FaultKind::UndefinedBehavior => Verdict::Poisoned(f.rule.clone()),
            FaultKind::Unimplemented | FaultKind::Unsupported => {
                Verdict::NotModelled(f.rule.clone())
            }
            k => Verdict::Stopped(k),
        },
        None => {
            check_shared_exponents(case, shape, &after)?;
            Verdict::Agree
        }
    };
    check_determinism(bench, &v, &after, &fault)?;
    bench.give_back(after);
    Ok(verdict)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::tile::PackTileCase;

    /// With the golden model standing in for the packer, the window and
    /// shared-exponent invariants hold on tt-llk programs; with one
    /// exponent raised above its group's, the exponent invariant reports it.
    #[test]
    fn invariants_hold_for_the_models_output_and_catch_a_wrong_exponent() {
        let mut checked = 0;
        let mut mutated = 0;
        let mut windows = 0;
        for seed in 0..600 {
            let t: PackTileCase = crate::generators::from_seed(seed, 4096);
            let Ok(()) = t.job.check() else { continue };
            let v = t.vector("t");
            let case = ProgramCase {
                arch: t.job.arch,
                unit: Unit::Pack,
                pack_job: Some(t.job.clone()),
                unpack_job: None,
                l1_fill: 0,
                l1: t.l1.clone(),
                dst: v.setup.dst.clone(),
                config: v.setup.config.clone(),
                thread_config: v.setup.thread_config.clone(),
                gprs: Vec::new(),
                mop: v.setup.mop_config.first().map(|m| m.words),
                program: v.program[0].run.clone(),
            };
            let mut m = crate::oracles::prepare(&mut Workbench::new(), &case.vector("t")).unwrap();
            let bytes = crate::oracles::tile::golden_pack(&t, m.l1.bytes()).unwrap();
            m.l1.enable_log();
            for b in &bytes {
                for (i, chunk) in b.bytes.chunks(16).enumerate() {
                    assert!(m.l1.write16(
                        b.addr + 16 * i as u32,
                        chunk.try_into().unwrap(),
                        tensix_emu::state::l1::WriteTag::data(0)
                    ));
                }
            }
            let shape = llk_shape(&case);
            assert_eq!(shape, Llk::Untouched, "seed {seed}");
            let window = pack_window(&case, shape, &m);
            windows += usize::from(window.is_some());
            check_writes(&m, window).unwrap();
            check_shared_exponents(&case, shape, &m).unwrap();
            checked += 1;
            // An emulator that took a shared exponent one above the group's
            // largest would halve every magnitude of the group.
            if t.job.out == Format::Bfp8 && t.job.arch == Arch::Blackhole {
                let at = t.job.l1_addr as usize;
                let data = at + 16 * t.job.exp_section() as usize;
                let e = m.l1.bytes()[at];
                if (1..255).contains(&e) {
                    let mut line: [u8; 16] = m.l1.bytes()[at..at + 16].try_into().unwrap();
                    line[0] = e + 1;
                    m.l1.write16(at as u32, line, tensix_emu::state::l1::WriteTag::data(0));
                    let mut group: [u8; 16] = m.l1.bytes()[data..data + 16].try_into().unwrap();
                    for d in &mut group {
                        *d = (*d & 0x80) | ((*d & 0x7f) >> 1);
                    }
                    m.l1.write16(data as u32, group, tensix_emu::state::l1::WriteTag::data(0));
                    let f =
                        check_shared_exponents(&case, shape, &m).expect_err("a raised exponent");
                    assert_eq!(f.kind, "shared exponent is not the group's largest");
                    mutated += 1;
                }
            }
        }
        assert!(mutated > 0, "no BFP8 case to mutate");
        // Every case here is an untouched tt-llk job, so each has a window.
        assert_eq!(windows, checked, "an untouched tt-llk job without a window");
        assert!(checked > 300, "{checked}");
    }
}
