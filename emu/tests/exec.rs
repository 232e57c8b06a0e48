//! The front end and scheduler: configuration instructions, TRISC stores,
//! semaphores and waits, deadlock and step budgets, and robustness against
//! every instruction word.

use tensix_emu::adc::Unit;
use tensix_emu::format::DataFormat;
use tensix_emu::isa::{encode, Instruction, Opcode};
use tensix_emu::regs::{CfgField, ThreadCfgField};
use tensix_emu::unpack::program::TileUnpack;
use tensix_emu::{Arch, FaultKind, Limits, Machine, Step, ThreadProgram};

fn word(arch: Arch, text: &str) -> Step {
    let insn: Instruction = text.parse().unwrap();
    Step::Instruction(encode(arch, &insn).unwrap())
}

fn program(thread: usize, steps: Vec<Step>) -> ThreadProgram {
    ThreadProgram { thread, steps }
}

#[test]
fn setdmareg_then_wrcfg_moves_a_gpr_into_config() {
    let arch = Arch::Blackhole;
    let mut m = Machine::new(arch);
    // SETDMAREG (immediate): half-register 9 is the high half of GPR 4;
    // NewValue is bits [23:8].
    let p = program(
        2,
        vec![
            Step::Instruction(0x4500_0000 | (0x1234 << 8) | 9),
            Step::Instruction(0x4500_0000 | (0xabcd << 8) | 8),
            word(arch, "WRCFG cfg_reg=69 gpr_address=4"),
        ],
    );
    m.run(&[p], Limits::default()).unwrap();
    assert_eq!(m.gprs.get(2, 4), Some(0x1234_abcd));
    assert_eq!(
        m.config.get(0, CfgField::THCON_SEC0_REG1_L1_Dest_addr),
        0x1234_abcd
    );
}

#[test]
fn trisc_stores_name_their_config_state_whatever_the_threads_state() {
    // BackendConfiguration.md: `Config[2][..]` is mapped state after state
    // from TENSIX_CFG_BASE, so the store's address picks the state; the
    // thread's CFG_STATE_ID (set here to 1 by SETC16) does not.
    let arch = Arch::WormholeB0;
    let words = tensix_emu::regs::config_words(arch) as u32;
    let mut m = Machine::new(arch);
    let state_reg = ThreadCfgField::CFG_STATE_ID_StateID
        .on(arch)
        .unwrap()
        .addr32;
    let p = program(
        0,
        vec![
            word(
                arch,
                &format!("SETC16 setc16_reg={state_reg} setc16_value=1"),
            ),
            Step::Cfg {
                addr32: 5,
                value: 0xfeed,
            },
            Step::Cfg {
                addr32: words + 6,
                value: 0xbeef,
            },
            Step::Gpr { index: 3, value: 7 },
        ],
    );
    m.run(&[p], Limits::default()).unwrap();
    assert_eq!(m.config.read_addr32(0, 5), Some(0xfeed));
    assert_eq!(m.config.read_addr32(1, 5), Some(0));
    assert_eq!(m.config.read_addr32(1, 6), Some(0xbeef));
    assert_eq!(m.config.read_addr32(0, 6), Some(0));
    assert_eq!(m.gprs.get(0, 3), Some(7));
    // Past both states lies ThreadConfig, which RISC-V cannot write.
    let mut m = Machine::new(arch);
    let past = program(
        0,
        vec![Step::Cfg {
            addr32: 2 * words,
            value: 1,
        }],
    );
    assert!(m.run(&[past], Limits::default()).is_err());
}

#[test]
fn semwait_holds_a_thread_until_another_posts() {
    // SEMWAIT.md: C0 waits while a selected semaphore's value is 0; the
    // block mask's B7 holds configuration instructions.
    let arch = Arch::Blackhole;
    let mut m = Machine::new(arch);
    let waiter = program(
        0,
        vec![
            word(arch, "SEMWAIT wait_sem_cond=1 sem_sel=0x2 stall_res=0x80"),
            word(arch, "SETC16 setc16_reg=20 setc16_value=0x55"),
        ],
    );
    let poster = program(
        2,
        vec![
            word(arch, "NOP"),
            word(arch, "NOP"),
            word(arch, "NOP"),
            word(arch, "SEMPOST sem_sel=0x2"),
        ],
    );
    let stats = m.run(&[waiter, poster], Limits::default()).unwrap();
    assert_eq!(m.thread_config.read(0, 20), Some(0x55));
    // The SETC16 could not go before the SEMPOST in the fourth step.
    assert!(stats.steps >= 4, "{stats:?}");
    assert_eq!(m.semaphores.get(1).value, 1);
}

#[test]
fn a_wait_nothing_can_release_is_a_deadlock() {
    let arch = Arch::Blackhole;
    let mut m = Machine::new(arch);
    let p = program(
        1,
        vec![
            word(arch, "SEMWAIT wait_sem_cond=1 sem_sel=1 stall_res=0x1ff"),
            word(arch, "NOP"),
        ],
    );
    let f = m.run(&[p], Limits::default()).unwrap_err();
    assert_eq!(f.kind, FaultKind::Deadlock);
    assert_eq!((f.thread, f.instruction_index), (Some(1), Some(1)));
}

#[test]
fn the_step_budget_stops_long_runs() {
    let arch = Arch::WormholeB0;
    let mut m = Machine::new(arch);
    let p = program(0, vec![word(arch, "NOP"); 100]);
    let f = m.run(&[p], Limits::steps(10)).unwrap_err();
    assert_eq!(f.kind, FaultKind::ResourceLimit);
}

#[test]
fn faults_name_thread_and_entry() {
    let arch = Arch::Blackhole;
    let mut m = Machine::new(arch);
    let p = program(2, vec![word(arch, "NOP"), Step::Instruction(0x0000_0000)]);
    let f = m.run(&[p], Limits::default()).unwrap_err();
    assert_eq!(f.kind, FaultKind::InvalidInstruction);
    assert_eq!((f.thread, f.instruction_index), (Some(2), Some(1)));
}

/// SplitMix64 with a fixed seed: the sweep is the same every run.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[test]
fn every_opcode_with_random_fields_runs_or_faults_without_panicking() {
    let mut seed = 0x5eed_u64;
    let mut outcomes = std::collections::BTreeMap::new();
    for arch in Arch::ALL {
        for byte in 0..=255u32 {
            for _ in 0..16 {
                let w = byte << 24 | (splitmix(&mut seed) as u32 & 0x00ff_ffff);
                for thread in 0..3 {
                    let mut m = Machine::new(arch);
                    let r = m.run(
                        &[program(thread, vec![Step::Instruction(w)])],
                        Limits::steps(10_000),
                    );
                    let key = r
                        .map(|_| "ok".to_string())
                        .unwrap_or_else(|f| f.kind.to_string());
                    *outcomes.entry(key).or_insert(0u32) += 1;
                }
            }
        }
    }
    // Both clean completions and typed faults occur.
    assert!(outcomes.contains_key("ok"), "{outcomes:?}");
    assert!(outcomes.contains_key("invalid_instruction"), "{outcomes:?}");
    assert!(Opcode::ALL.len() > 100);
}

#[test]
fn replayed_words_execute_through_the_machine() {
    // REPLAY.md: Load=1, Exec=0 records the next Count words without
    // executing them; Load=0 plays them back.
    let arch = Arch::WormholeB0;
    let mut m = Machine::new(arch);
    let p = program(
        1,
        vec![
            word(arch, "REPLAY load_mode=1 len=2 start_idx=3"),
            word(arch, "SEMPOST sem_sel=1"),
            word(arch, "SEMPOST sem_sel=1"),
            Step::Gpr { index: 0, value: 1 },
            word(arch, "REPLAY len=2 start_idx=3"),
            word(arch, "REPLAY len=2 start_idx=3"),
        ],
    );
    let stats = m.run(&[p], Limits::default()).unwrap();
    assert_eq!(m.semaphores.get(0).value, 4);
    assert_eq!(stats.instructions, 4);
}

/// Each ADC instruction reaches its own counter operation with its own
/// fields (SETADC*.md, INCADC*.md, ADDRCR*.md functional models), in the
/// issuing thread's ADC set. Expected counters worked out by hand, step by
/// step, for unpacker 0 of thread 1.
#[test]
fn adc_instructions_update_the_issuing_threads_counters() {
    use tensix_emu::adc::Unit;
    let arch = Arch::Blackhole;
    let mut m = Machine::new(arch);
    let p = program(
        1,
        vec![
            // ch0 X, Y = 1, 2; ch1 X, Y = 3, 4 (values and _Cr).
            word(
                arch,
                "SETADCXY cnt_set_mask=1 bit_mask=0xf ch0_x=1 ch0_y=2 ch1_x=3 ch1_y=4",
            ),
            // ch0 Z, W = 5, 6; ch1 Z, W = 7, 1.
            word(
                arch,
                "SETADCZW cnt_set_mask=1 bit_mask=0xf ch0_x=5 ch0_y=6 ch1_x=7 ch1_y=1",
            ),
            // ch0 X = 1 + 2 = 3; ch1 Y = 4 + 1 = 5; _Cr unchanged.
            word(arch, "INCADCXY cnt_set_mask=1 ch0_x=2 ch1_y=1"),
            // ch0 Z = 5 + 1 = 6; Z_Cr stays 5.
            word(arch, "INCADCZW cnt_set_mask=1 ch0_x=1"),
            // ch0 X_Cr = 1 + 4 = 5, X = 5.
            word(arch, "ADDRCRXY cnt_set_mask=1 bit_mask=1 ch0_x=4"),
            // ch1 Z_Cr = 7 + 2 = 9, Z = 9.
            word(arch, "ADDRCRZW cnt_set_mask=1 bit_mask=4 ch1_x=2"),
            // ch1 W = W_Cr = 0x20.
            word(
                arch,
                "SETADC cnt_set_mask=1 channel_index=1 dimension_index=3 value=0x20",
            ),
            // ch0 X = X_Cr = 0x10; ch1 X = X_Cr = 0x30.
            word(arch, "SETADCXX cnt_set_mask=1 x_start=0x10 x_end2=0x30"),
        ],
    );
    m.run(&[p], Limits::default()).unwrap();
    assert_eq!(
        m.adcs.values(1, Unit::Unpacker0),
        Some([[0x10, 2, 6, 6], [0x30, 5, 9, 0x20]])
    );
    assert_eq!(
        m.adcs.cr_values(1, Unit::Unpacker0),
        Some([[0x10, 2, 5, 6], [0x30, 4, 9, 0x20]])
    );
    for (set, unit) in [
        (0, Unit::Unpacker0),
        (1, Unit::Unpacker1),
        (1, Unit::Packers),
    ] {
        assert_eq!(
            m.adcs.values(set, unit),
            Some([[0; 4]; 2]),
            "{set} {unit:?}"
        );
    }
}

/// DESIGN.md ("program: threads run together"): the entries of one thread
/// may be split over several programs; they run in order, as one list, and
/// entry indices count across the pieces. The split program gives the same
/// machine and step counts as the joined one, and a fault names the entry
/// by its place in the joined list.
#[test]
fn a_threads_program_split_in_pieces_runs_as_one() {
    let arch = Arch::Blackhole;
    let steps = vec![
        Step::Gpr {
            index: 4,
            value: 11,
        },
        word(arch, "WRCFG cfg_reg=69 gpr_address=4"),
        Step::Gpr {
            index: 5,
            value: 22,
        },
        Step::Cfg {
            addr32: 70,
            value: 0x50,
        },
        word(arch, "WRCFG cfg_reg=71 gpr_address=5"),
    ];
    let other = program(1, vec![Step::Gpr { index: 1, value: 3 }]);
    let mut joined = Machine::new(arch);
    let a = joined
        .run(
            &[program(2, steps.clone()), other.clone()],
            Limits::default(),
        )
        .unwrap();
    let mut split = Machine::new(arch);
    let pieces = [
        program(2, steps[..2].to_vec()),
        other.clone(),
        program(2, vec![]),
        program(2, steps[2..3].to_vec()),
        program(2, steps[3..].to_vec()),
    ];
    let b = split.run(&pieces, Limits::default()).unwrap();
    assert_eq!(a, b);
    assert_eq!(joined.config, split.config);
    assert_eq!(joined.gprs.get(2, 5), split.gprs.get(2, 5));
    assert_eq!(split.config.read_addr32(0, 71), Some(22));

    // An unknown opcode as the fourth entry of thread 2, in the third piece.
    let bad = Step::Instruction(0x0000_0000);
    let pieces = [
        program(2, steps[..2].to_vec()),
        other,
        program(2, vec![steps[2], bad]),
    ];
    let f = Machine::new(arch)
        .run(&pieces, Limits::default())
        .unwrap_err();
    assert_eq!(f.kind, FaultKind::InvalidInstruction);
    assert_eq!((f.thread, f.instruction_index), (Some(2), Some(3)));
}

/// `SrcReg`'s bank selectors are public fields: a value past bank 1 (set by
/// a harness or a fuzz input) wraps like every other bank index instead of
/// panicking when a STALLWAIT checks the AllowedClient conditions.
#[test]
fn out_of_range_bank_selectors_wrap_in_wait_conditions() {
    use tensix_emu::state::src::SrcClient;
    let mut m = Machine::new(Arch::Blackhole);
    m.srca.unpacker_bank = 3; // bank 1
    m.srca.banks[1].allowed_client = SrcClient::MatrixUnit;
    m.srca.banks[0].allowed_client = SrcClient::Unpackers;
    assert_eq!(m.srca.unpacker_side_client(), SrcClient::MatrixUnit);
    m.srcb.matrix_bank = 2; // bank 0
    m.srcb.banks[0].allowed_client = SrcClient::MatrixUnit;
    assert_eq!(m.srcb.matrix_side_client(), SrcClient::MatrixUnit);
    // STALLWAIT (Bits32.lua STALLWAIT_BH: ConditionMask [12:0], BlockMask
    // [23:15]) on C5, "SrcA bank of the unpackers not allowed to them"
    // (Blackhole STALLWAIT.md), blocking everything: the wrapped bank 1 is
    // the matrix unit's, nothing releases it, and the run ends in a
    // deadlock rather than a panic.
    let stallwait = 0xA200_0000 | (0x1FF << 15) | (1 << 5);
    let prog = [ThreadProgram {
        thread: 0,
        steps: vec![Step::Instruction(stallwait), Step::Instruction(0x5E80_3C00)],
    }];
    let e = m.run(&prog, Limits::default()).unwrap_err();
    assert_eq!(e.kind, FaultKind::Deadlock, "{e}");
}

/// A run stopped inside a MOP expansion leaves the rest of it in the
/// thread's front end (the MOP Expander keeps its state: MOPExpander.md),
/// and the next run issues that rest although it has no entries for the
/// thread.
#[test]
fn a_mop_expansion_cut_short_goes_on_in_the_next_run() {
    let arch = Arch::WormholeB0;
    let mut m = Machine::new(arch);
    let Step::Instruction(inc) = word(arch, "INCADCXY cnt_set_mask=1 ch0_x=1") else {
        unreachable!()
    };
    // Template 0 with Flags 0: InsnA0 once per iteration whose mask bit is
    // clear; `MOP` Count1 = 9 runs 10 iterations, mask 0.
    m.write_mop_config(0, &[0, 0, inc, inc, inc, inc, inc, inc, inc])
        .unwrap();
    let mop = (0x01 << 24) | (9 << 16);
    let x = |m: &Machine| m.adcs.values(0, Unit::Unpacker0).unwrap()[0][0];
    let p = program(0, vec![Step::Instruction(mop)]);
    let f = m.run(&[p], Limits::steps(4)).unwrap_err();
    assert_eq!(f.kind, FaultKind::ResourceLimit);
    let first = x(&m);
    assert!(first < 10, "the budget stopped the expansion at {first}");
    let rest = m.run(&[], Limits::default()).unwrap();
    assert_eq!(u64::from(first) + rest.instructions, 10);
    assert_eq!(x(&m), 10);
}

/// The instructions that only read and write ADC counters.
const ADC_OPS: [&str; 8] = [
    "SETADC", "SETADCXX", "SETADCXY", "SETADCZW", "INCADCXY", "INCADCZW", "ADDRCRXY", "ADDRCRZW",
];

/// `Machine::run` executes the instructions of a thread left alone
/// directly, a stretch at a time (ADC instructions one by one, runs of
/// `PACR` or `UNPACR` together), where the scheduler would take one step
/// per instruction. An observed run never takes a stretch, so it is the
/// step-by-step reference: random single-thread programs of ADC
/// instructions with random fields (some fault), `PACR`s and `UNPACR`s
/// (some fault, some wait), `NOP`s and `STALLWAIT`s (which latch a wait),
/// under random step budgets, must end the same way both ways (the same
/// counts, or the same fault at the same entry) with the same ADCs,
/// registers, L1 and L1 writes.
#[test]
fn stretches_do_what_the_scheduler_does_step_by_step() {
    let mut seed = 0x57e7_c4e5_u64;
    let (mut completed, mut faulted, mut limited, mut written) = (0, 0, 0, 0);
    let mut out_of_datums = 0;
    for case in 0..600 {
        let arch = Arch::ALL[case % 2];
        let opcode_byte = |text: &str| match word(arch, text) {
            Step::Instruction(w) => w & 0xFF00_0000,
            _ => unreachable!(),
        };
        let adc = ADC_OPS.map(opcode_byte);
        // `ThreadOverride`, whose non-zero values fault, is mostly left 0.
        // (`SETADC` has it in the top bits of `NewValue`; `SETADCXX` has none.)
        let thread_override = |op: &str| {
            let text = match op {
                "SETADC" => "SETADC value=0x30000".to_string(),
                "SETADCXX" => return 0,
                _ => format!("{op} thread_override=3"),
            };
            match word(arch, &text) {
                Step::Instruction(w) => w & 0x00FF_FFFF,
                _ => unreachable!(),
            }
        };
        let overrides = ADC_OPS.map(thread_override);
        let others = [
            opcode_byte("PACR"),
            opcode_byte("UNPACR"),
            opcode_byte("NOP"),
            opcode_byte("STALLWAIT"),
        ];
        let thread = (splitmix(&mut seed) % 3) as usize;
        let len = 1 + splitmix(&mut seed) % 14;
        let steps: Vec<Step> = (0..len)
            .map(|_| {
                let r = splitmix(&mut seed);
                let fields = (r >> 32) as u32 & 0x00FF_FFFF;
                let k = (r >> 8) as usize % adc.len();
                match r % 8 {
                    0..=3 if r % 32 < 28 => Step::Instruction(adc[k] | (fields & !overrides[k])),
                    0..=3 => Step::Instruction(adc[k] | fields),
                    // Mostly whole faces of regular `UNPACR`s: the other
                    // forms and the unmodelled fields fault.
                    4 if r % 32 < 29 => word(arch, "UNPACR addr_mode=0x11 last=1"),
                    // Mostly a `PACR` of `Dst` datums, often the last.
                    5 | 6 if r % 32 < 16 => word(arch, "PACR"),
                    5 | 6 if r % 32 < 30 => word(arch, "PACR last=1"),
                    _ => Step::Instruction(others[(r >> 16) as usize % others.len()] | fields),
                }
            })
            .collect();
        let budget = if splitmix(&mut seed).is_multiple_of(4) {
            1 + splitmix(&mut seed) % (len + 2)
        } else {
            1_000
        };
        // A datum budget stops both runs at the same instruction.
        let max_datums = if splitmix(&mut seed).is_multiple_of(2) {
            splitmix(&mut seed) % 64
        } else {
            u64::MAX
        };
        let mut direct = Machine::new(arch);
        direct
            .config
            .set(0, CfgField::THCON_SEC0_REG1_L1_Dest_addr, 0x100);
        let face = TileUnpack {
            unpacker: 0,
            in_format: DataFormat::Float16B,
            out_format: DataFormat::Float16B,
            to_dst: false,
            l1_addr: 0x1_0000,
            faces: 1,
            face_rows: 16,
            set_dvalid: false,
            dst_row: 0,
        };
        face.configure(&mut direct).unwrap();
        // The packer: BF16 rows of `Dst` to BF16, nothing masked.
        for (field, value) in [
            (CfgField::ALU_FORMAT_SPEC_REG2_Dstacc, 5),
            (CfgField::THCON_SEC0_REG1_In_data_format, 5),
            (CfgField::THCON_SEC0_REG1_Out_data_format, 5),
            (CfgField::PCK_EDGE_OFFSET_SEC0_mask, 0xFFFF),
            (CfgField::PACK_COUNTERS_SEC0_pack_reads_per_xy_plane, 16),
            (CfgField::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 32),
        ] {
            direct.config.set(0, field, value);
        }
        direct.l1.enable_log();
        let mut stepwise = direct.clone();
        stepwise.observer = Some(Box::default());
        let p = [program(thread, steps)];
        let limits = Limits {
            max_steps: budget,
            max_datums,
        };
        let a = direct.run(&p, limits).map_err(|f| f.into_info());
        let b = stepwise.run(&p, limits).map_err(|f| f.into_info());
        let what = format!(
            "case {case} ({arch}, thread {thread}, budget {budget}, {max_datums} datums): {p:?}"
        );
        assert_eq!(a, b, "{what}");
        assert_eq!(direct.adcs, stepwise.adcs, "{what}");
        assert_eq!(direct.srca, stepwise.srca, "{what}");
        assert_eq!(direct.srcb, stepwise.srcb, "{what}");
        assert_eq!(direct.unpackers, stepwise.unpackers, "{what}");
        assert_eq!(direct.packer, stepwise.packer, "{what}");
        assert_eq!(direct.l1.log(), stepwise.l1.log(), "{what}");
        assert!(direct.l1.bytes() == stepwise.l1.bytes(), "{what}");
        written += usize::from(!direct.l1.log().is_empty());
        match a {
            Ok(_) => completed += 1,
            Err(f) if f.rule.starts_with("datum budget") => out_of_datums += 1,
            Err(f) if f.kind == FaultKind::ResourceLimit => limited += 1,
            Err(_) => faulted += 1,
        }
    }
    assert!(written > 100, "only {written} programs wrote L1");
    assert!(completed > 100, "only {completed} programs completed");
    assert!(faulted > 100, "only {faulted} programs faulted");
    assert!(limited > 30, "only {limited} programs ran out of steps");
    assert!(
        out_of_datums > 15,
        "only {out_of_datums} programs ran out of datums"
    );
}
