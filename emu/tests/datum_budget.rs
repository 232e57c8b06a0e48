//! The datum budget (`Limits::max_datums`): the datums a run's `PACR`s and
//! `UNPACR`s read, counted alike on every path, and the run stopped at the
//! instruction that would read past it, before that instruction changes
//! anything.

mod pack_util;

use pack_util::{dst_bf16, formats, machine, pack_program, pacr_word, setadcxx};
use tensix_emu::format::DataFormat;
use tensix_emu::isa::{self, Opcode, Pacr};
use tensix_emu::unpack::program::TileUnpack;
use tensix_emu::{Arch, FaultKind, Limits, Machine, Step, ThreadProgram};

const STEPS: u64 = 100_000;

fn limits(max_datums: u64) -> Limits {
    Limits {
        max_steps: STEPS,
        max_datums,
    }
}

/// A packer that packs BF16 `Dst` rows to BF16, with row 0 written.
fn bf16_packer(arch: Arch) -> Machine {
    let mut m = machine(arch);
    formats(&mut m, 5, 5, 5);
    dst_bf16(&mut m, 0, [0x3F80; 16]);
    m
}

/// The run stops with `ResourceLimit`, naming the datum budget, at program
/// entry `at`; and it leaves what the program's entries before `at` leave
/// when run without a budget.
fn assert_stopped_at(m: &Machine, p: &[ThreadProgram], max_datums: u64, at: usize, what: &str) {
    let mut stopped = m.clone();
    let f = stopped.run(p, limits(max_datums)).unwrap_err();
    assert_eq!(f.kind, FaultKind::ResourceLimit, "{what}: {f}");
    assert_eq!(
        f.rule,
        format!("datum budget of {max_datums} exhausted"),
        "{what}"
    );
    assert_eq!(f.instruction_index, Some(at), "{what}");
    let before: Vec<ThreadProgram> = p
        .iter()
        .map(|t| ThreadProgram {
            thread: t.thread,
            steps: t.steps[..at].to_vec(),
        })
        .collect();
    let mut reference = m.clone();
    let stats = reference.run(&before, Limits::steps(STEPS)).unwrap();
    assert!(stats.datums <= max_datums, "{what}: {stats:?}");
    assert_eq!(stopped.adcs, reference.adcs, "{what}: ADCs");
    assert_eq!(stopped.srca, reference.srca, "{what}: SrcA");
    assert_eq!(stopped.unpackers, reference.unpackers, "{what}: unpackers");
    assert_eq!(stopped.packer, reference.packer, "{what}: packer");
    assert!(stopped.l1.bytes() == reference.l1.bytes(), "{what}: L1");
}

/// tt-llk's tile unpack: one `UNPACR` per face, each reading the face's 16
/// rows of 16 datums (`InputNumDatums` from `SETADCXX` 0..255), so four
/// faces read 1,024. A budget of 1,024 lets the run finish; one of 1,023
/// stops it at the fourth `UNPACR`, and one of 300 at the second, with or
/// without an observer (which takes the scheduler's one-instruction steps
/// rather than a run of `UNPACR` words at once).
#[test]
fn a_tile_unpack_reads_each_faces_datums() {
    for arch in [Arch::Blackhole, Arch::WormholeB0] {
        let j = TileUnpack {
            unpacker: 0,
            in_format: DataFormat::Float16B,
            out_format: DataFormat::Float16B,
            to_dst: false,
            l1_addr: 0x1_0000,
            faces: 4,
            face_rows: 16,
            set_dvalid: false,
            dst_row: 0,
        };
        let mut m = Machine::new(arch);
        j.configure(&mut m).unwrap();
        let p = [j.program(arch).unwrap()];
        let unpacrs: Vec<usize> = p[0]
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                matches!(s, Step::Instruction(w) if isa::opcode_of(arch, *w) == Ok(Opcode::Unpacr))
            })
            .map(|(i, _)| i)
            .collect();
        assert_eq!(unpacrs.len(), 4, "{arch}: one UNPACR a face");
        let mut observed = m.clone();
        observed.observer = Some(Box::default());
        for (m, how) in [(&m, "direct"), (&observed, "observed")] {
            let what = format!("{arch}, {how}");
            let stats = m.clone().run(&p, limits(1024)).unwrap();
            assert_eq!(stats.datums, 4 * 16 * 16, "{what}");
            assert_stopped_at(m, &p, 1023, unpacrs[3], &what);
            assert_stopped_at(m, &p, 300, unpacrs[1], &what);
        }
    }
}

/// On Blackhole, 64 `PACR`s that each read one row of 16 `Dst` datums
/// (`SETADCXX` 0..15) read 1,024, counted alike with L1's write log on
/// (each instruction alone) and off (a run of them written together,
/// `pack::express`) and with the per-datum path forced; a budget of 1,023
/// stops the run at the last `PACR` (entry 64), and one of 100 at the
/// seventh (entry 7), on every path.
#[test]
fn rows_of_pacrs_count_sixteen_datums_each_on_every_path() {
    let arch = Arch::Blackhole;
    let m = bf16_packer(arch);
    let mut words = vec![setadcxx(arch, 0, 15)];
    for i in 0..64 {
        words.push(pacr_word(
            arch,
            Pacr {
                last: u32::from(i == 63),
                ..Pacr::default()
            },
        ));
    }
    let p = [pack_program(words)];
    let mut logged = m.clone();
    logged.l1.enable_log();
    let mut unlogged = m.clone();
    unlogged.l1.disable_log();
    let mut general = m;
    general.packer.force_general_path = true;
    for (m, how) in [
        (&logged, "logged"),
        (&unlogged, "unlogged"),
        (&general, "per datum"),
    ] {
        let stats = m.clone().run(&p, limits(1024)).unwrap();
        assert_eq!(stats.datums, 64 * 16, "{how}");
        assert_stopped_at(m, &p, 1023, 64, how);
        assert_stopped_at(m, &p, 100, 7, how);
    }
}

/// A `PACR` whose count the input address generator refuses
/// (`Channel[1].X < Channel[0].X` wraps to about 2^32 datums) has that
/// fault under a datum budget too, not the budget's: also when its word
/// comes again after the counters change, prepared as it was.
#[test]
fn a_refused_count_is_its_own_fault_not_the_budgets() {
    let arch = Arch::Blackhole;
    let m = bf16_packer(arch);
    let pacr = pacr_word(arch, Pacr::default());
    for steps in [
        vec![setadcxx(arch, 15, 0), pacr],
        vec![setadcxx(arch, 0, 15), pacr, setadcxx(arch, 15, 0), pacr],
    ] {
        let p = [pack_program(steps)];
        let f = m.clone().run(&p, limits(100)).unwrap_err();
        assert_eq!(f.kind, FaultKind::Unsupported, "{f}");
        assert!(f.rule.contains("InputNumDatums"), "{f}");
    }
}

/// Without a datum budget (`Limits::default`, `Limits::steps`) a run is
/// not stopped however much it reads; under a budget of none, a run that
/// reads nothing finishes, and one that reads a datum stops at that
/// instruction.
#[test]
fn no_budget_stops_nothing_and_a_budget_of_none_stops_any_read() {
    let arch = Arch::Blackhole;
    let m = bf16_packer(arch);
    let rows = [pack_program(
        std::iter::once(setadcxx(arch, 0, 15))
            .chain((0..2000).map(|_| pacr_word(arch, Pacr::default()))),
    )];
    for unbounded in [Limits::default(), Limits::steps(STEPS)] {
        let stats = m.clone().run(&rows, unbounded).unwrap();
        assert_eq!(stats.datums, 2000 * 16, "{unbounded:?}");
    }
    assert_stopped_at(&m, &rows, 0, 1, "a budget of none");
    let none = [ThreadProgram {
        thread: 0,
        steps: vec![Step::Cfg {
            addr32: 0,
            value: 1,
        }],
    }];
    let stats = m.clone().run(&none, limits(0)).unwrap();
    assert_eq!(stats.datums, 0);
}
