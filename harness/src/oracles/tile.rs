//! The golden tile model against the emulator running the tt-llk-style
//! program for the same job; and the pack → unpack round trip.

use super::report;
use super::{
    check_determinism, check_writes, execute, expect_agreement, is_hang, legal_fault, prepare,
    Finding, Verdict, Workbench, LIMITS,
};
use crate::generators::tile::{PackTileCase, RoundTripCase, UnpackTileCase};
use crate::golden::{self, unpack::Unpacked, Bytes, DstImage, Format, Refusal, UnpackTarget};
use crate::run::{run_within, L1Log};
use crate::vector::{DstFormat, Vector};
use tensix_emu::state::dst::DstView;
use tensix_emu::{Fault, FaultKind, Machine};

/// `pack_tile_diff`: panics when the emulator's pack differs from the model.
pub fn pack_tile_diff(case: &PackTileCase) -> Verdict {
    expect_agreement(
        check_pack_tile(&mut Workbench::new(), case),
        "pack_tile_diff",
    )
}

/// `unpack_tile_diff`: panics when the emulator's unpack differs from the model.
pub fn unpack_tile_diff(case: &UnpackTileCase) -> Verdict {
    expect_agreement(
        check_unpack_tile(&mut Workbench::new(), case),
        "unpack_tile_diff",
    )
}

/// `roundtrip`: panics when pack then unpack loses more than documented.
pub fn roundtrip(case: &RoundTripCase) -> Verdict {
    expect_agreement(check_roundtrip(&mut Workbench::new(), case), "roundtrip")
}

/// The job a report describes, written out only when there is a report to
/// write (a fuzz target judges thousands of jobs a second, nearly all
/// without one).
pub struct What<'a>(pub &'a dyn Fn() -> String);

impl std::fmt::Display for What<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&(self.0)())
    }
}

/// How a fault compares with what the model says about the job.
fn judge_fault<T>(
    f: &Fault,
    model: &Result<T, Refusal>,
    what: &What<'_>,
) -> Result<Verdict, Finding> {
    if is_hang(f) {
        return Err(Finding::new("hang", format!("{what}: {f}")));
    }
    if let Some(v) = legal_fault(f) {
        return Ok(v);
    }
    match model {
        Err(Refusal::Undefined(why)) => Ok(Verdict::Poisoned(why.clone())),
        Err(Refusal::NotModelled(why)) => Ok(Verdict::NotCovered(format!("{why} (run: {f})"))),
        Ok(_) if f.kind == FaultKind::UndefinedBehavior => Err(Finding::new(
            "undefined behaviour on a well-defined job",
            format!(
                "{what}\nthe golden model calls the job well defined, the emulator stopped: {f}"
            ),
        )),
        Ok(_) => Err(Finding::new(
            format!("{} fault on a well-defined job", f.kind),
            format!("{what}\nthe emulator stopped: {f}"),
        )),
    }
}

/// A run judged against the model: a fault as [`judge_fault`] says; a clean
/// run is legal on a job the model refuses, and on one it covers must pass
/// `compare` against the model's result.
fn judge<T>(
    model: &Result<T, Refusal>,
    fault: Option<&Fault>,
    what: &What<'_>,
    compare: impl FnOnce(&T) -> Result<(), Finding>,
) -> Result<Verdict, Finding> {
    match (fault, model) {
        (Some(f), _) => judge_fault(f, model, what),
        (None, Err(Refusal::Undefined(why))) => Ok(Verdict::Poisoned(why.clone())),
        (None, Err(Refusal::NotModelled(why))) => Ok(Verdict::NotCovered(why.clone())),
        (None, Ok(expected)) => {
            compare(expected)?;
            Ok(Verdict::Agree)
        }
    }
}

/// What the model says about the expected bytes of a pack, given the L1
/// the setup leaves (read only for L1 accumulation).
pub fn golden_pack(case: &PackTileCase, l1_before: &[u8]) -> Result<Vec<Bytes>, Refusal> {
    let dst = DstImage::from_rows(case.job.dst, &case.dst);
    golden::pack::pack(&case.job, &dst, l1_before)
}

/// Compare a run's L1 with the model's bytes: those ranges hold exactly the
/// bytes, and every L1 write the run logged lies inside one of them (so, for
/// a logged run, nothing else changed: every packer write is a logged
/// 16-byte write).
pub fn compare_l1(
    expected: &[Bytes],
    after: &Machine,
    format: Format,
    what: &What<'_>,
) -> Result<(), Finding> {
    for b in expected {
        let (lo, hi) = (b.addr as usize, b.addr as usize + b.bytes.len());
        let got = &after.l1.bytes()[lo..hi];
        if got != &b.bytes[..] {
            return Err(Finding::new(
                "L1 bytes differ from the golden tile model",
                format!("{what}\n{}", report::l1_diff(b.addr, &b.bytes, got, format)),
            ));
        }
    }
    let inside = |a: u64| {
        expected
            .iter()
            .any(|b| u64::from(b.addr) <= a && a + 16 <= b.end())
    };
    if let Some(w) = after.l1.log().iter().find(|w| !inside(u64::from(w.addr))) {
        let ranges: Vec<(u32, u64)> = expected.iter().map(|b| (b.addr, b.end())).collect();
        return Err(Finding::new(
            "L1 changed outside the tile",
            format!(
                "{what}\na 16-byte write at {:#x}; the model writes only {ranges:x?}",
                w.addr
            ),
        ));
    }
    Ok(())
}

/// `pack_tile_diff` as a value.
pub fn check_pack_tile(bench: &mut Workbench, case: &PackTileCase) -> Result<Verdict, Finding> {
    let v = case.untagged_vector("fuzz/pack_tile_diff");
    let mut m = prepare(bench, &v)?;
    let model = golden_pack(case, m.l1.bytes());
    let fault = execute(&v, &mut m);
    let verdict = judge_pack(case, &model, &m, fault.as_ref())?;
    check_determinism(bench, &v, &m, &fault)?;
    bench.give_back(m);
    Ok(verdict)
}

/// Judge a pack run: `model` is what the golden model says, `after` the
/// machine the run left (its L1 write log on), `fault` how the run ended.
pub fn judge_pack(
    case: &PackTileCase,
    model: &Result<Vec<Bytes>, Refusal>,
    after: &Machine,
    fault: Option<&Fault>,
) -> Result<Verdict, Finding> {
    let what = What(&|| report::pack_job(&case.job));
    let window = model.as_ref().ok().map(|_| case.job.window());
    check_writes(after, window)
        .map_err(|f| Finding::new(f.kind, format!("{what}\n{}", f.report)))?;
    judge(model, fault, &what, |bytes| {
        compare_l1(bytes, after, case.job.out, &what)
    })
}

/// What the model says the registers hold after an unpack.
pub fn golden_unpack(case: &UnpackTileCase, l1: &[u8]) -> Result<Unpacked, Refusal> {
    let dst_before = (!case.dst_before.is_empty()).then(|| crate::vector::Dst {
        format: case.job.dst_view(),
        rows: case.dst_before.clone(),
    });
    golden::unpack::unpack(&case.job, l1, &case.before, dst_before.as_ref())
}

/// Compare the registers a run left with the model's rows.
fn compare_registers(
    job: &golden::UnpackJob,
    expected: &Unpacked,
    m: &Machine,
    what: &What<'_>,
) -> Result<(), Finding> {
    match expected {
        Unpacked::Src(rows) => {
            let (name, reg) = match job.target {
                UnpackTarget::SrcB => ("SrcB", &m.srcb),
                _ => ("SrcA", &m.srca),
            };
            for r in rows {
                let got: [u32; 16] = reg.read_row(usize::from(r.bank), usize::from(r.row));
                if got != r.cells {
                    return Err(Finding::new(
                        format!("{name} differs from the golden tile model"),
                        format!(
                            "{what}\n{}",
                            report::row_diff(name, usize::from(r.row), &r.cells, &got)
                        ),
                    ));
                }
            }
        }
        Unpacked::Dst(d) => {
            let view = d.format.view();
            for r in &d.rows {
                let got = m.read_dst_row(view, u32::from(r.row));
                if got != r.cells {
                    return Err(Finding::new(
                        "Dst differs from the golden tile model",
                        format!(
                            "{what}\n{}",
                            report::row_diff("Dst", usize::from(r.row), &r.cells, &got)
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `unpack_tile_diff` as a value.
pub fn check_unpack_tile(bench: &mut Workbench, case: &UnpackTileCase) -> Result<Verdict, Finding> {
    let v = case.untagged_vector("fuzz/unpack_tile_diff");
    let mut m = prepare(bench, &v)?;
    let model = golden_unpack(case, m.l1.bytes());
    let fault = execute(&v, &mut m);
    let verdict = judge_unpack(case, &model, &m, fault.as_ref())?;
    check_determinism(bench, &v, &m, &fault)?;
    bench.give_back(m);
    Ok(verdict)
}

/// Judge an unpack run, as [`judge_pack`] does a pack.
pub fn judge_unpack(
    case: &UnpackTileCase,
    model: &Result<Unpacked, Refusal>,
    after: &Machine,
    fault: Option<&Fault>,
) -> Result<Verdict, Finding> {
    let what = What(&|| report::unpack_job(&case.job));
    if let Some(w) = after.l1.log().first() {
        return Err(Finding::new(
            "an unpack wrote L1",
            format!("{what}\nL1 write at {:#x}", w.addr),
        ));
    }
    judge(model, fault, &what, |expected| {
        compare_registers(&case.job, expected, after, &what)
    })
}

/// The vector that unpacks what a pack left in L1 (the pack's whole L1).
fn unpack_vector(job: &golden::UnpackJob, packed: &Machine) -> Vector {
    let p = crate::llk::unpack(job);
    let (lo, hi) = job.window();
    crate::llk::vector(
        job.arch,
        "fuzz/roundtrip-unpack",
        p,
        vec![crate::vector::L1Range {
            addr: lo as u32,
            bytes: packed.l1.bytes()[lo as usize..hi as usize].to_vec(),
        }],
        None,
    )
}

/// `roundtrip` as a value: the emulator packs the tile (with L1's write log
/// off) and unpacks what it wrote; the packed bytes and the registers must
/// match the golden model's round trip bit for bit, and every finite,
/// in-range datum must come back within the documented precision of the
/// formats (exactly, where they are lossless).
pub fn check_roundtrip(bench: &mut Workbench, case: &RoundTripCase) -> Result<Verdict, Finding> {
    let Some(ujob) = case.unpack_job() else {
        return Ok(Verdict::NotCovered(
            "no unpack reads this output back".into(),
        ));
    };
    let pack = &case.pack;
    let v = pack.untagged_vector("fuzz/roundtrip-pack");
    let mut packed = prepare(bench, &v)?;
    let describe = || {
        format!(
            "{}\nthen {}",
            report::pack_job(&pack.job),
            report::unpack_job(&ujob)
        )
    };
    let what = What(&describe);
    // The `Dst` image, for the model and for the precision check.
    let dst = DstImage::from_rows(pack.job.dst, &pack.dst);
    let golden_bytes = golden::pack::pack(&pack.job, &dst, packed.l1.bytes());
    // The pack half runs with L1's write log off, as a program does outside
    // the harness: a run of `PACR`s may write its rows together at its end.
    // (`pack_tile_diff` holds the logged path to the same model.)
    if let Some(f) = &run_within(&v, &mut packed, L1Log::Off, LIMITS) {
        bench.give_back(packed);
        return judge_fault(f, &golden_bytes, &what);
    }
    if let Ok(bytes) = &golden_bytes {
        compare_l1(bytes, &packed, pack.job.out, &what)?;
    }
    let uv = unpack_vector(&ujob, &packed);
    let mut unpacked = prepare(bench, &uv)?;
    let golden_regs = golden::unpack::unpack(&ujob, packed.l1.bytes(), &[], None);
    if let Some(f) = &execute(&uv, &mut unpacked) {
        bench.give_back(packed);
        bench.give_back(unpacked);
        return judge_fault(f, &golden_regs, &what);
    }
    // Bit for bit against the model, when it covers both halves (its pack
    // is then the emulator's, compared above).
    if let (Ok(_), Ok(regs)) = (&golden_bytes, &golden_regs) {
        compare_registers(&ujob, regs, &unpacked, &what)?;
    }
    precision(&pack.job, &dst, &ujob, &unpacked, &what)?;
    bench.give_back(packed);
    bench.give_back(unpacked);
    Ok(Verdict::Agree)
}

/// A float's sign, exponent field and significand (hidden bit included)
/// from `exp_bits`/`man_bits` fields, as a value; `None` for zero,
/// denormals, infinities and NaN, which the conversions document case by
/// case rather than by precision.
fn value(bits: u32, exp_bits: u32, man_bits: u32, has_inf: bool) -> Option<(f64, i32)> {
    let e = (bits >> man_bits) & ((1 << exp_bits) - 1);
    let m = bits & ((1 << man_bits) - 1);
    let negative = bits >> (exp_bits + man_bits) & 1 != 0;
    if e == 0 || (has_inf && e == (1 << exp_bits) - 1) {
        return None;
    }
    let bias = (1 << (exp_bits - 1)) - 1;
    let unbiased = e as i32 - bias;
    let v = (1.0 + f64::from(m) / f64::from(1u32 << man_bits)) * pow2(unbiased);
    Some((if negative { -v } else { v }, unbiased))
}

/// 2^k, exactly: built from its exponent field where it is a normal double
/// (every exponent the formats here reach), by `powi` elsewhere.
fn pow2(k: i32) -> f64 {
    if (-1022..=1023).contains(&k) {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        2f64.powi(k)
    }
}

/// The value of a datum as the job's Dst view holds it.
fn input_value(view: DstFormat, bits: u32) -> Option<(f64, i32)> {
    match view {
        DstFormat::Bf16 => value(bits, 8, 7, true),
        DstFormat::Fp16 => value(bits, 5, 10, false),
        DstFormat::Fp32 => value(bits, 8, 23, true),
        _ => None,
    }
}

/// The unbiased exponent of a datum of the Dst view, for any nonzero
/// exponent field (all ones counts as the number it is in a BFP group).
fn input_exponent(view: DstFormat, bits: u32) -> Option<i32> {
    let (e, bias) = match view {
        DstFormat::Bf16 => ((bits >> 7) & 0xff, 127),
        DstFormat::Fp16 => ((bits >> 10) & 0x1f, 15),
        DstFormat::Fp32 => ((bits >> 23) & 0xff, 127),
        _ => return None,
    };
    (e != 0).then(|| e as i32 - bias)
}

/// The value an unpacked register cell holds.
fn output_value(job: &golden::UnpackJob, cell: u32) -> Option<f64> {
    match (job.target, job.out) {
        (UnpackTarget::Dst, Format::Fp32 | Format::Tf32) => value(cell, 8, 23, true).map(|v| v.0),
        (UnpackTarget::Dst, _) => None,
        // The 5-bit-exponent formats arrive as FP16 cells (SrcASrcB.md).
        (_, f) if f.is_a_form() => {
            value(cell & 0x7fff, 5, 10, false)
                .map(|(v, _)| if cell & (1 << 18) != 0 { -v } else { v })
        }
        (_, Format::Int8 | Format::Int16 | Format::Int32) => None,
        _ => value(cell, 8, 10, true).map(|v| v.0),
    }
}

/// Check each datum of the round trip of pack `job` from `dst`, unpack
/// `ujob` and the registers of `m`, against the formats' documented
/// precision (`Packers/FormatConversion.md`): lossless pairs exact, rounding
/// within half a unit, truncation within one, BFP within two units of its
/// magnitude width at the group's shared exponent.
///
/// The rules are the same on both architectures: the conversion pages are
/// Wormhole B0's (`WormholeB0/.../Packers/FormatConversion.md`,
/// `Unpackers/FormatConversion.md`), and Blackhole has no pages of its own
/// for them. What only Blackhole packs (FP8 E4M3 output; an FP16
/// intermediate read from `Dst32b`) never reaches a Wormhole B0 round trip
/// (`RoundTripCase`), and the Src and `Dst` cell layouts read back are the
/// same (`SrcASrcB.md`, `Dst.md`).
pub fn precision(
    job: &golden::PackJob,
    dst: &DstImage,
    ujob: &golden::UnpackJob,
    m: &Machine,
    what: &What<'_>,
) -> Result<(), Finding> {
    // Integer outputs are exact or saturate: the golden comparison checks
    // them.
    if matches!(job.out, Format::Int8 | Format::Int16 | Format::Int32) {
        return Ok(());
    }
    // Inputs beyond what the output format holds saturate; they are checked
    // by the golden comparison instead.
    let (lo, hi) = match job.out {
        Format::Fp8 => (-6, 8),
        f if f.is_a_form() => (-14, 15),
        _ => (-126, 127),
    };
    for face in 0..usize::from(job.faces) {
        for r in 0..usize::from(job.face_rows) {
            let row = job.first_row() + 16 * face + r;
            let out_row = face * 16 + r;
            let cells: [u32; 16] = match ujob.target {
                UnpackTarget::Dst => m.read_dst_row(DstView::Fp32, out_row as u32),
                UnpackTarget::SrcB => m.srcb.read_row(0, out_row),
                UnpackTarget::SrcA => m.srca.read_row(0, out_row),
            };
            // The BFP group's shared exponent: the largest input exponent,
            // infinity and NaN included (they count as exponent 255).
            let shared = (0..16)
                .filter_map(|c| input_exponent(job.dst, dst.value(row, c)))
                .max();
            for (c, &cell) in cells.iter().enumerate() {
                let Some((x, e)) = input_value(job.dst, dst.value(row, c)) else {
                    continue;
                };
                if e < lo || e > hi {
                    continue;
                }
                let y = match output_value(ujob, cell) {
                    Some(y) => y,
                    // A BFP datum may round to zero within its bound.
                    None if job.out.is_bfp() && cell & 0x3_ffff == 0 => 0.0,
                    None => continue,
                };
                let step = |bits: i32, at: i32| pow2(at - bits);
                // Error the early conversion may add: rounding to the
                // intermediate's mantissa (half a unit).
                let early = match (job.src, job.dst) {
                    (Format::Bfp8 | Format::Bfp8a, _) => step(7, e),
                    (Format::Bf16, DstFormat::Fp32) => step(8, e),
                    (Format::Fp16, DstFormat::Fp32) => step(11, e),
                    _ => 0.0,
                };
                // Error the late conversion and the unpack may add.
                let late = match job.out {
                    Format::Bfp8
                    | Format::Bfp4
                    | Format::Bfp2
                    | Format::Bfp8a
                    | Format::Bfp4a
                    | Format::Bfp2a => {
                        let width = job.out.l1_bits() as i32 - 1;
                        2.0 * step(width - 1, shared.unwrap_or(e))
                    }
                    Format::Bf16 if job.src == Format::Fp16 => step(7, e),
                    Format::Fp16 if job.dst == DstFormat::Fp32 && job.src == Format::Fp32 => {
                        step(10, e)
                    }
                    Format::Fp8 => step(3, e),
                    Format::Fp32
                        if ujob.out == Format::Tf32 && ujob.target != UnpackTarget::Dst =>
                    {
                        step(10, e)
                    }
                    _ => 0.0,
                };
                let bound = early + late;
                if (y - x).abs() > bound {
                    return Err(Finding::new(
                        "round trip beyond the documented precision",
                        format!(
                            "{what}\nDst row {row} column {c}: {x:e} came back as {y:e} \
                             (cell {cell:#07x}); allowed error {bound:e}"
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::pow2;

    #[test]
    fn pow2_is_two_to_the_k_for_every_exponent() {
        for k in -1100..=1100 {
            let want = 2f64.powi(k);
            assert_eq!(pow2(k).to_bits(), want.to_bits(), "2^{k}");
        }
        assert_eq!(pow2(-126), f64::from(f32::MIN_POSITIVE));
        assert_eq!(pow2(10), 1024.0);
    }
}
