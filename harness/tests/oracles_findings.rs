//! The tile oracles find what they must: a machine state made to match the
//! golden model is judged in agreement, and the same state with one bit
//! flipped, one stray write, or an undefined-behaviour fault on a
//! well-defined job is a finding with a readable report. Legal outcomes are
//! classified as the issue says (undefined behaviour on an undefined job is
//! "poisoned", `Unimplemented` is "not modelled").

use tensix_emu::state::dst::DstView;
use tensix_emu::{Fault, Machine};
use tensix_harness::generators::from_seed;
use tensix_harness::generators::tile::{PackTileCase, UnpackTileCase};
use tensix_harness::golden::unpack::Unpacked;
use tensix_harness::golden::{Bytes, DstImage, Format, Refusal, UnpackTarget};
use tensix_harness::oracles::tile::{golden_pack, golden_unpack, judge_pack, judge_unpack};
use tensix_harness::oracles::{self, Verdict};
use tensix_harness::vector::DstFormat;

/// A generated pack case the model covers, with BFP output when `bfp`.
fn pack_case(bfp: bool) -> PackTileCase {
    (0..2000)
        .map(|s| from_seed::<PackTileCase>(s, 4096))
        .find(|c| c.job.check().is_ok() && c.job.out.is_bfp() == bfp && !c.job.l1_acc)
        .expect("a covered case among the seeds")
}

/// The machine after a "run" that wrote exactly `bytes` as 16-byte writes.
fn machine_with(case: &PackTileCase, bytes: &[Bytes]) -> Box<Machine> {
    let mut m =
        oracles::prepare(&mut oracles::Workbench::new(), &case.vector("t")).expect("setup applies");
    m.l1.enable_log();
    for b in bytes {
        for (i, chunk) in b.bytes.chunks(16).enumerate() {
            let mut line = [0u8; 16];
            line.copy_from_slice(chunk);
            assert!(m.l1.write16(
                b.addr + 16 * i as u32,
                line,
                tensix_emu::state::l1::WriteTag::data(0)
            ));
        }
    }
    m
}

fn expected(case: &PackTileCase) -> Vec<Bytes> {
    let m = oracles::prepare(&mut oracles::Workbench::new(), &case.vector("t")).unwrap();
    golden_pack(case, m.l1.bytes()).expect("covered")
}

#[test]
fn agreeing_pack_output_is_judged_agree() {
    for bfp in [false, true] {
        let case = pack_case(bfp);
        let bytes = expected(&case);
        let m = machine_with(&case, &bytes);
        assert_eq!(judge_pack(&case, &Ok(bytes), &m, None), Ok(Verdict::Agree));
    }
}

#[test]
fn one_flipped_bit_is_a_finding_with_a_readable_report() {
    // The planted one-bit BFP rounding bug the fuzzer must find: the last
    // magnitude bit of one datum.
    let case = pack_case(true);
    let good = expected(&case);
    let mut bad = good.clone();
    let data = bad.last_mut().unwrap();
    data.bytes[0] ^= 1;
    let at = format!("{:#08x}", data.addr);
    let m = machine_with(&case, &bad);
    let f = judge_pack(&case, &Ok(good.clone()), &m, None).expect_err("a finding");
    assert_eq!(f.kind, "L1 bytes differ from the golden tile model");
    assert!(
        f.report.contains(&at),
        "the report names the line: {}",
        f.report
    );
    assert!(
        f.report.contains("expected") && f.report.contains("actual"),
        "{}",
        f.report
    );
    assert!(
        f.report.contains(case.job.out.name()),
        "the report names the job: {}",
        f.report
    );
}

#[test]
fn a_write_outside_the_tile_is_a_finding() {
    let case = pack_case(false);
    let good = expected(&case);
    let mut m = machine_with(&case, &good);
    let (_, end) = case.job.window();
    let beyond = (end as u32).div_ceil(16) * 16;
    assert!(m
        .l1
        .write16(beyond, [0; 16], tensix_emu::state::l1::WriteTag::data(1)));
    let f = judge_pack(&case, &Ok(good), &m, None).expect_err("a finding");
    assert_eq!(f.kind, "L1 write outside the output window");
}

#[test]
fn faults_are_classified() {
    let case = pack_case(false);
    let good = expected(&case);
    let m = machine_with(&case, &[]);
    let ub = Fault::undefined("some rule");
    let f = judge_pack(&case, &Ok(good.clone()), &m, Some(&ub)).expect_err("UB on a defined job");
    assert_eq!(f.kind, "undefined behaviour on a well-defined job");
    let undefined: Result<Vec<Bytes>, Refusal> = Err(Refusal::Undefined("rule".into()));
    assert!(matches!(
        judge_pack(&case, &undefined, &m, Some(&ub)),
        Ok(Verdict::Poisoned(_))
    ));
    let todo = Fault::unimplemented("PACR");
    assert!(matches!(
        judge_pack(&case, &Ok(good.clone()), &m, Some(&todo)),
        Ok(Verdict::NotModelled(_))
    ));
    let deadlock = Fault::new(tensix_emu::FaultKind::Deadlock, "stuck");
    let f = judge_pack(&case, &Ok(good), &m, Some(&deadlock)).expect_err("a finding");
    assert_eq!(f.kind, "deadlock fault on a well-defined job");
}

#[test]
fn unpack_registers_are_compared_cell_by_cell() {
    let case = (0..500)
        .map(|s| from_seed::<UnpackTileCase>(s, 4096))
        .find(|c| c.job.check().is_ok() && c.job.target == UnpackTarget::SrcA)
        .expect("a SrcA case");
    let mut m = oracles::prepare(&mut oracles::Workbench::new(), &case.vector("t")).unwrap();
    let model = golden_unpack(&case, m.l1.bytes());
    let Ok(Unpacked::Src(rows)) = &model else {
        panic!("the model covers it")
    };
    for r in rows {
        for (c, cell) in r.cells.iter().enumerate() {
            m.srca.write(0, usize::from(r.row), c, *cell);
        }
    }
    m.l1.enable_log();
    assert_eq!(judge_unpack(&case, &model, &m, None), Ok(Verdict::Agree));
    let r = rows[0];
    m.srca.write(0, usize::from(r.row), 3, r.cells[3] ^ 0x400);
    let f = judge_unpack(&case, &model, &m, None).expect_err("a finding");
    assert_eq!(f.kind, "SrcA differs from the golden tile model");
    assert!(f.report.contains("column  3"), "{}", f.report);
}

#[test]
fn dst_unpacks_are_compared_in_their_view() {
    let case = (0..500)
        .map(|s| from_seed::<UnpackTileCase>(s, 4096))
        .find(|c| c.job.check().is_ok() && c.job.target == UnpackTarget::Dst)
        .expect("a Dst case");
    let mut m = oracles::prepare(&mut oracles::Workbench::new(), &case.vector("t")).unwrap();
    let model = golden_unpack(&case, m.l1.bytes());
    let Ok(Unpacked::Dst(d)) = &model else {
        panic!("the model covers it")
    };
    let view = if d.format == DstFormat::Int32 {
        DstView::Int32
    } else {
        DstView::Fp32
    };
    for r in &d.rows {
        m.write_dst_row(view, u32::from(r.row), &r.cells).unwrap();
    }
    m.l1.enable_log();
    assert_eq!(judge_unpack(&case, &model, &m, None), Ok(Verdict::Agree));
    let mut cells = d.rows[0].cells;
    cells[0] ^= 1;
    m.write_dst_row(view, u32::from(d.rows[0].row), &cells)
        .unwrap();
    let f = judge_unpack(&case, &model, &m, None).expect_err("a finding");
    assert_eq!(f.kind, "Dst differs from the golden tile model");
}

/// The round trip's precision bounds hold for the golden model's own round
/// trip (pack then unpack, both by the model): the bounds are not so tight
/// that a correct emulator would be reported. And a datum moved by one unit
/// beyond a lossless pair's exactness is reported.
#[test]
fn golden_round_trips_keep_the_documented_precision() {
    use tensix_harness::generators::tile::RoundTripCase;
    use tensix_harness::golden;
    let mut checked = 0;
    let mut mutated = 0;
    for seed in 0..300 {
        let c: RoundTripCase = from_seed(seed, 4096);
        let Some(ujob) = c.unpack_job() else { continue };
        let v = c.pack.vector("t");
        let m = oracles::prepare(&mut oracles::Workbench::new(), &v).unwrap();
        let Ok(bytes) = golden_pack(&c.pack, m.l1.bytes()) else {
            continue;
        };
        let mut l1 = m.l1.bytes().to_vec();
        for b in &bytes {
            l1[b.addr as usize..b.end() as usize].copy_from_slice(&b.bytes);
        }
        let regs = golden::unpack::unpack(&ujob, &l1, &[], None).expect("covered");
        let mut out = Machine::new(ujob.arch);
        match &regs {
            Unpacked::Src(rows) => {
                for r in rows {
                    for (col, cell) in r.cells.iter().enumerate() {
                        let reg = if ujob.target == UnpackTarget::SrcB {
                            &mut out.srcb
                        } else {
                            &mut out.srca
                        };
                        reg.write(0, usize::from(r.row), col, *cell);
                    }
                }
            }
            Unpacked::Dst(d) => {
                for r in &d.rows {
                    let view = if d.format == DstFormat::Int32 {
                        DstView::Int32
                    } else {
                        DstView::Fp32
                    };
                    out.write_dst_row(view, u32::from(r.row), &r.cells).unwrap();
                }
            }
        }
        let image = DstImage::from_rows(c.pack.job.dst, &c.pack.dst);
        if let Err(f) = oracles::tile::precision(
            &c.pack.job,
            &image,
            &ujob,
            &out,
            &oracles::tile::What(&|| "golden".into()),
        ) {
            panic!("seed {seed}: the model's own round trip breaks the bound: {f}");
        }
        checked += 1;
        // Lossless pairs (FormatConversion.md: the same format in and out,
        // or BF16 and FP16 widened to FP32 in Dst): a datum one unit off in
        // the register is beyond the bound.
        let j = &c.pack.job;
        let exp_field: fn(u32) -> u32 = match (j.dst, j.src, j.out, ujob.target) {
            (DstFormat::Bf16, Format::Bf16, Format::Bf16, _) => |v| (v >> 7) & 0xff,
            (DstFormat::Fp16, Format::Fp16, Format::Fp16, _) => |v| (v >> 10) & 0x1f,
            (DstFormat::Fp32, Format::Fp32, Format::Fp32, UnpackTarget::Dst) => {
                |v| (v >> 23) & 0xff
            }
            _ => continue,
        };
        let max_exp = exp_field(u32::MAX);
        let first = j.first_row();
        let datum = (0..usize::from(j.faces))
            .flat_map(|f| (0..usize::from(j.face_rows)).map(move |r| (f, r)))
            .flat_map(|(f, r)| (0..16).map(move |col| (f, r, col)))
            .find(|&(f, r, col)| {
                let v = c
                    .pack
                    .dst
                    .iter()
                    .find(|d| usize::from(d.row) == first + 16 * f + r)
                    .map_or(0, |d| d.cells[col]);
                // A normal number below the top binade (which FP16 keeps
                // as a number but the bound leaves to the golden check).
                (1..max_exp).contains(&exp_field(v))
            });
        let Some((f, r, col)) = datum else { continue };
        let row = 16 * f + r;
        match ujob.target {
            UnpackTarget::Dst => {
                let mut cells = out.read_dst_row(DstView::Fp32, row as u32);
                cells[col] ^= 1;
                out.write_dst_row(DstView::Fp32, row as u32, &cells)
                    .unwrap();
            }
            UnpackTarget::SrcB => {
                let cell = out.srcb.read(0, row, col);
                out.srcb.write(0, row, col, cell ^ 1);
            }
            UnpackTarget::SrcA => {
                let cell = out.srca.read(0, row, col);
                out.srca.write(0, row, col, cell ^ 1);
            }
        }
        let f = oracles::tile::precision(
            &c.pack.job,
            &image,
            &ujob,
            &out,
            &oracles::tile::What(&|| "golden".into()),
        )
        .expect_err("a datum one unit off on a lossless pair");
        assert_eq!(f.kind, "round trip beyond the documented precision");
        mutated += 1;
    }
    assert!(checked > 100, "only {checked} round trips checked");
    assert!(mutated > 10, "only {mutated} lossless round trips mutated");
}
