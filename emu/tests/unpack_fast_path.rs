//! The differential oracle that guards the contiguous fast path
//! (DESIGN.md, "Oracles" 2: fast path vs general path): every `UNPACR` of
//! random LLK-style jobs is executed both by `unpack::unpacr_word` (which
//! takes the fast path when it can, and keeps the decoded word and its
//! preparation) and by `unpack::unpacr_general` (the functional model's
//! loop only, prepared afresh); results and machine states must match.

mod one_at_a_time;
mod unpack_common;

use one_at_a_time::{run_both_ways, Ending};
use tensix_emu::format::DataFormat as F;
use tensix_emu::isa::{decode, encode, Instruction};
use tensix_emu::regs::{CfgField as C, ThreadCfgField as T};
use tensix_emu::unpack::{self, program::TileUnpack};
use tensix_emu::{Arch, Limits, Machine, Step, ThreadProgram};
use unpack_common::splitmix;

const PAIRS: [(F, F); 17] = [
    (F::Float16B, F::Float16B),
    (F::Float16, F::Float16),
    (F::Float32, F::Tf32),
    (F::Float32, F::Float16B),
    (F::Float32, F::Float16),
    (F::Float32, F::Float32),
    (F::Int32, F::Int32),
    (F::Bfp8B, F::Bfp8B),
    (F::Bfp8A, F::Bfp8A),
    (F::Bfp4B, F::Bfp4B),
    (F::Bfp2B, F::Bfp2B),
    (F::Bfp4A, F::Bfp4A),
    (F::Bfp2A, F::Bfp2A),
    (F::Int8, F::Int8),
    (F::Int16, F::Int16),
    (F::Lf8, F::Lf8),
    (F::Tf32, F::Tf32),
];

/// A machine set up for a random job, and the job's program.
fn case(arch: Arch, seed: u64) -> (Machine, ThreadProgram) {
    let mut s = seed;
    let mut r = move || splitmix(&mut s);
    let (i, o) = PAIRS[(r() % PAIRS.len() as u64) as usize];
    let unpacker = (r() % 2) as usize;
    let to_dst = unpacker == 0 && (o.datum_bits() == 32 || r() % 3 == 0);
    let j = TileUnpack {
        unpacker,
        in_format: i,
        out_format: o,
        to_dst,
        l1_addr: 0x1_0000 + 16 * (r() % 64) as u32,
        faces: 1 + (r() % 4) as u32,
        face_rows: 1 + (r() % 16) as u32,
        set_dvalid: r() % 4 == 0,
        dst_row: 0,
    };
    let mut m = Machine::new(arch);
    let window: Vec<u8> = (0..0x3000).map(|_| r() as u8).collect();
    m.write_l1(0x1_0000, &window).unwrap();
    j.configure(&mut m).unwrap();
    let sec = |a: C, b: C| if unpacker == 0 { a } else { b };
    // Now and then a mode the fast path must decline.
    match r() % 12 {
        0 => {
            m.config.set(
                0,
                sec(
                    C::THCON_SEC0_REG2_Upsample_rate,
                    C::THCON_SEC1_REG2_Upsample_rate,
                ),
                1,
            );
        }
        1 => {
            m.config.set(
                0,
                sec(
                    C::THCON_SEC0_REG2_Unpack_limit_address,
                    C::THCON_SEC1_REG2_Unpack_limit_address,
                ),
                0x1010,
            );
            m.config.set(
                0,
                sec(
                    C::THCON_SEC0_REG2_Unpack_fifo_size,
                    C::THCON_SEC1_REG2_Unpack_fifo_size,
                ),
                0x80,
            );
        }
        2 => {
            m.config.set(
                0,
                sec(
                    C::THCON_SEC0_REG2_Force_shared_exp,
                    C::THCON_SEC1_REG2_Force_shared_exp,
                ),
                1,
            );
            m.config.set(
                0,
                sec(
                    C::UNP0_FORCED_SHARED_EXP_shared_exp,
                    C::UNP1_FORCED_SHARED_EXP_shared_exp,
                ),
                (r() % 256) as u32,
            );
        }
        3 => {
            // Flip what `configure` chose: SrcA rows without it (declined),
            // Dst rows with it (`Row &= 15`).
            m.thread_config
                .set(0, T::SRCA_SET_SetOvrdWithAddr, to_dst as u32);
        }
        4 => {
            m.config.set(
                0,
                sec(C::UNP0_ADDR_BASE_REG_1_Base, C::UNP1_ADDR_BASE_REG_1_Base),
                // Any byte: 8-bit outputs then start mid-row, and a
                // 2- or 4-bit input row mid-byte.
                (r() % 0x2000) as u32,
            );
        }
        5 => {
            m.config.set(0, C::ALU_FORMAT_SPEC_REG0_SrcBUnsigned, 1);
            m.config.set(0, C::ALU_FORMAT_SPEC_REG0_SrcAUnsigned, 1);
            m.config.set(
                0,
                sec(
                    C::THCON_SEC0_REG1_Unp_LF8_4b_exp,
                    C::THCON_SEC1_REG1_Unp_LF8_4b_exp,
                ),
                1,
            );
        }
        6 => {
            m.config.set(
                0,
                sec(
                    C::THCON_SEC0_REG2_Haloize_mode,
                    C::THCON_SEC1_REG2_Haloize_mode,
                ),
                1,
            );
        }
        7 => {
            // A column shift (unpacker 0, context 0).
            m.config.set(
                0,
                sec(
                    C::THCON_SEC0_REG2_Shift_amount_cntx0,
                    C::THCON_SEC1_REG2_Shift_amount_cntx0,
                ),
                1 + (r() % 15) as u32,
            );
        }
        8 => {
            m.config.set(
                0,
                sec(
                    C::THCON_SEC0_REG2_Tileize_mode,
                    C::THCON_SEC1_REG2_Tileize_mode,
                ),
                1,
            );
            m.config.set(
                0,
                sec(
                    C::THCON_SEC0_REG2_Shift_amount_cntx1,
                    C::THCON_SEC1_REG2_Shift_amount_cntx1,
                ),
                (r() % 4) as u32,
            );
        }
        9 => {
            // Compressed input: a row start index array at the tile's
            // start (face k is datums rsi[k]..rsi[k + 1]), small enough that
            // the datums and zero runs after it stay in the random bytes.
            m.config.set(
                0,
                sec(
                    C::THCON_SEC0_REG2_Disable_zero_compress_cntx0,
                    C::THCON_SEC1_REG2_Disable_zero_compress_cntx0,
                ),
                0,
            );
            let mut rsi = Vec::new();
            let mut at = 0u16;
            for _ in 0..=4 {
                rsi.extend_from_slice(&at.to_le_bytes());
                at += (r() % 48) as u16;
            }
            m.write_l1(j.l1_addr, &rsi).unwrap();
        }
        _ => {}
    }
    // Independently of the above, what the fast path must carry into its
    // writes as the general loop does: a `SrcRow` that steps after every
    // UNPACR (`Unpack_Src_Reg_Set_Upd`, `SRCA_SET_Base` / `SRCB_SET_Base`),
    // the unpacker's other bank, and Blackhole's `Dst` address remapping.
    if r() % 3 == 0 {
        m.config.set(
            0,
            sec(
                C::THCON_SEC0_REG2_Unpack_Src_Reg_Set_Upd,
                C::THCON_SEC1_REG2_Unpack_Src_Reg_Set_Upd,
            ),
            1,
        );
        let base = if unpacker == 0 {
            T::SRCA_SET_Base
        } else {
            T::SRCB_SET_Base
        };
        m.thread_config.set(0, base, (r() % 4) as u32);
    }
    if r() % 4 == 0 {
        m.srca.unpacker_bank = 1;
        m.srcb.unpacker_bank = 1;
    }
    if r() % 4 == 0 {
        m.config
            .set(0, C::DEST_ACCESS_CFG_remap_addrs, (r() % 2) as u32);
        m.config
            .set(0, C::DEST_ACCESS_CFG_swizzle_32b, (r() % 2) as u32);
    }
    let mut p = j.program(arch).unwrap();
    // Now and then every UNPACR writes zeroes (`ZeroWrite2`).
    if r() % 6 == 0 {
        for step in &mut p.steps {
            if let Step::Instruction(w) = step {
                if let Ok(Instruction::Unpacr(mut u)) = decode(arch, *w) {
                    u.zero_write2 = 1;
                    *w = encode(arch, &Instruction::Unpacr(u)).unwrap();
                }
            }
        }
    }
    // Now and then the UNPACRs take their context from the unpacker's
    // context counter (so that the same word selects another context each
    // time), or a SETC16 after the first one changes the thread's context
    // offset (a ThreadConfig store between two issues of the same word).
    match r() % 6 {
        0 => {
            let count = if unpacker == 0 {
                C::THCON_SEC0_REG2_Context_count
            } else {
                C::THCON_SEC1_REG2_Context_count
            };
            m.config.set(0, count, 1);
            for step in &mut p.steps {
                if let Step::Instruction(w) = step {
                    if let Ok(Instruction::Unpacr(mut u)) = decode(arch, *w) {
                        u.auto_inc_context_id = 1;
                        *w = encode(arch, &Instruction::Unpacr(u)).unwrap();
                    }
                }
            }
        }
        1 => {
            let field = if unpacker == 0 {
                T::UNPACK_MISC_CFG_CfgContextOffset_0
            } else {
                T::UNPACK_MISC_CFG_CfgContextOffset_1
            };
            let f = field.on(arch).unwrap();
            let value = ((r() % 2) as u32) << f.shift;
            let setc16 = Instruction::Setc16(tensix_emu::isa::Setc16 {
                setc16_reg: u32::from(f.addr32),
                setc16_value: value,
            });
            let first = (p.steps.iter())
                .position(|s| matches!(s, Step::Instruction(w) if matches!(decode(arch, *w), Ok(Instruction::Unpacr(_)))));
            if let Some(k) = first {
                p.steps
                    .insert(k + 1, Step::Instruction(encode(arch, &setc16).unwrap()));
            }
        }
        _ => {}
    }
    // Mostly a random channel 0 X start and channel 1 X end; otherwise the
    // job's whole rows (which compressed input reads by the row start index
    // array alone, with no leading datums dropped).
    if r() % 4 != 0 {
        let x0 = r() % 64;
        let x1 = r() % 512;
        p.steps.insert(
            3,
            Step::Instruction(
                0x5E00_0000 | (1 << (21 + unpacker)) | ((x1 as u32) << 10) | x0 as u32,
            ),
        );
    }
    (m, p)
}

#[test]
fn fast_path_and_general_path_agree() {
    for arch in Arch::ALL {
        for seed in 0..600u64 {
            let (a, p) = case(arch, seed * 7 + arch as u64);
            agree(a, &p, &format!("{arch} seed {seed}"));
        }
    }
}

/// BFP "b" rows into a remapped `Dst` (Blackhole `remap_addrs`), which the
/// fast path stores row by row, each row with its own group's exponent:
/// the random cases above reach it about once.
#[test]
fn bfp_rows_into_remapped_dst_agree() {
    let arch = Arch::Blackhole;
    for format in [F::Bfp8B, F::Bfp4B, F::Bfp2B] {
        for seed in 0..8u64 {
            let mut s = seed;
            let j = TileUnpack {
                unpacker: 0,
                in_format: format,
                out_format: format,
                to_dst: true,
                l1_addr: 0x1_0000,
                faces: 4,
                face_rows: 16,
                set_dvalid: false,
                dst_row: 0,
            };
            let mut m = Machine::new(arch);
            let window: Vec<u8> = (0..0x1000).map(|_| splitmix(&mut s) as u8).collect();
            m.write_l1(0x1_0000, &window).unwrap();
            j.configure(&mut m).unwrap();
            m.config.set(0, C::DEST_ACCESS_CFG_remap_addrs, 1);
            m.config
                .set(0, C::DEST_ACCESS_CFG_swizzle_32b, (seed % 2) as u32);
            let p = j.program(arch).unwrap();
            agree(m, &p, &format!("{format:?} seed {seed}"));
        }
    }
}

/// Execute `p` on `a` and on a copy of it, every `UNPACR` by word on one
/// side (the fast path where it can, the preparation kept between words)
/// and by fields afresh through the general loop on the other; the results
/// and the machines must match after every instruction, a fault's too.
fn agree(mut a: Machine, p: &ThreadProgram, what: &str) {
    let arch = a.arch();
    let mut b = a.clone();
    for step in &p.steps {
        let Step::Instruction(w) = step else { continue };
        // After a fault too, the registers must hold what the general loop
        // wrote before it stopped.
        let mut stop = false;
        match decode(arch, *w).unwrap() {
            Instruction::Unpacr(i) => {
                let ra = unpack::unpacr_word(&mut a, 0, *w);
                let rb = unpack::unpacr_general(&mut b, 0, &i);
                assert_eq!(ra, rb, "{what}");
                stop = ra.is_err();
            }
            _ => {
                let single = ThreadProgram {
                    thread: 0,
                    steps: vec![*step],
                };
                a.run(std::slice::from_ref(&single), Limits::default())
                    .unwrap();
                b.run(&[single], Limits::default()).unwrap();
            }
        }
        assert!(a.srca == b.srca, "{what}: SrcA differs");
        assert!(a.srcb == b.srcb, "{what}: SrcB differs");
        assert!(a.dst == b.dst, "{what}: Dst differs");
        assert_eq!(a.adcs, b.adcs, "{what}");
        assert_eq!(a.unpackers, b.unpackers, "{what}");
        if stop {
            break;
        }
    }
}

/// A run of `UNPACR` words that the scheduler executes together (one thread
/// left, nothing at its Wait Gate or in its expanders) against the same
/// program given to `Machine::run` one step at a time, which executes each
/// word alone: the same registers, counters and unpacker state afterwards,
/// the same fault at the same program entry (an `UNPACR` that must wait for
/// a bank the matrix unit holds ends both in the same deadlock), and under a
/// step budget the same `ResourceLimit`.
#[test]
fn unpacr_runs_do_what_one_word_at_a_time_does() {
    use tensix_emu::FaultKind;
    let (mut completed, mut faulted, mut limited, mut waited) = (0, 0, 0, 0);
    for arch in Arch::ALL {
        for seed in 0..300u64 {
            let (m, mut p) = case(arch, seed * 11 + 5 + arch as u64);
            // A third of the programs issue their UNPACRs three times, each
            // pass handing its bank to the matrix unit at the end (FlipSrc):
            // with both banks held, the third pass waits.
            if seed % 3 == 0 {
                let mut pass: Vec<Instruction> = (p.steps.iter())
                    .filter_map(|s| match s {
                        Step::Instruction(w) => match decode(arch, *w) {
                            Ok(i @ Instruction::Unpacr(_)) => Some(i),
                            _ => None,
                        },
                        _ => None,
                    })
                    .collect();
                if let Some(Instruction::Unpacr(last)) = pass.last_mut() {
                    last.set_dat_valid = 1;
                }
                let words = pass
                    .iter()
                    .map(|i| Step::Instruction(encode(arch, i).unwrap()));
                let words: Vec<Step> = words.collect();
                p.steps.retain(|s| match s {
                    Step::Instruction(w) => !matches!(decode(arch, *w), Ok(Instruction::Unpacr(_))),
                    _ => true,
                });
                for _ in 0..3 {
                    p.steps.extend(words.iter().copied());
                }
            }
            let len = p.steps.len() as u64;
            let budget = if seed % 4 == 1 {
                1 + seed % (len + 2)
            } else {
                Limits::default().max_steps
            };
            let mut together = m.clone();
            let mut alone = m;
            let case = format!("{arch} seed {seed} (budget {budget})");
            match run_both_ways(&mut together, &mut alone, &p, budget, &case) {
                Ending::Completed => completed += 1,
                Ending::OutOfSteps => limited += 1,
                Ending::Faulted(FaultKind::Deadlock) => waited += 1,
                Ending::Faulted(_) => faulted += 1,
            }
            assert!(together.srca == alone.srca, "{case}: SrcA differs");
            assert!(together.srcb == alone.srcb, "{case}: SrcB differs");
            assert!(together.dst == alone.dst, "{case}: Dst differs");
            assert_eq!(together.adcs, alone.adcs, "{case}");
            assert_eq!(together.unpackers, alone.unpackers, "{case}");
        }
    }
    // Enough of each ending: complete runs, runs stopped by a fault, by a
    // bank the matrix unit holds, and by the step budget.
    assert!(
        completed > 150,
        "only {completed} programs ran to completion"
    );
    assert!(faulted > 10, "only {faulted} programs faulted");
    assert!(waited > 10, "only {waited} programs waited for a bank");
    assert!(limited > 40, "only {limited} programs ran out of steps");
}

/// How a program ended, for [`runs_agree`].
#[derive(Debug, PartialEq, Eq)]
enum Stop {
    Completed,
    /// At the `UNPACR` of this program entry, which must wait for a bank.
    Waited(usize),
    /// At the instruction of this program entry, with this fault.
    Faulted(usize, tensix_emu::FaultKind),
}

/// Run `p` on `m` whole, where the scheduler gives its `UNPACR` runs to
/// `unpack::unpacr_words` (which converts the contiguous jobs of a run of
/// one word together where one continues another), and on a copy one
/// instruction at a time with every `UNPACR` through the functional
/// model's loop (`unpack::unpacr_general`): the same ending, at the same
/// program entry, and the same registers, counters and unpacker state.
/// Returns the ending.
fn runs_agree(m: &Machine, p: &ThreadProgram, what: &str) -> Stop {
    let arch = m.arch();
    let mut whole = m.clone();
    let ended = match whole.run(std::slice::from_ref(p), Limits::default()) {
        Ok(_) => Stop::Completed,
        Err(f) => {
            let f = f.into_info();
            let entry = f
                .instruction_index
                .expect("a fault names its program entry");
            match f.kind {
                tensix_emu::FaultKind::Deadlock => Stop::Waited(entry),
                kind => Stop::Faulted(entry, kind),
            }
        }
    };
    let mut alone = m.clone();
    let mut stopped = Stop::Completed;
    for (entry, step) in p.steps.iter().enumerate() {
        let Step::Instruction(w) = step else { continue };
        match decode(arch, *w).unwrap() {
            Instruction::Unpacr(i) => match unpack::unpacr_general(&mut alone, p.thread, &i) {
                Ok(tensix_emu::exec::Issue::Done) => {}
                Ok(tensix_emu::exec::Issue::Wait) => {
                    stopped = Stop::Waited(entry);
                    break;
                }
                Err(f) => {
                    stopped = Stop::Faulted(entry, f.into_info().kind);
                    break;
                }
            },
            _ => {
                let single = ThreadProgram {
                    thread: p.thread,
                    steps: vec![*step],
                };
                alone.run(&[single], Limits::default()).unwrap();
            }
        }
    }
    assert_eq!(ended, stopped, "{what}");
    assert!(whole.srca == alone.srca, "{what}: SrcA differs");
    assert!(whole.srcb == alone.srcb, "{what}: SrcB differs");
    assert!(whole.dst == alone.dst, "{what}: Dst differs");
    assert_eq!(whole.adcs, alone.adcs, "{what}");
    assert_eq!(whole.unpackers, alone.unpackers, "{what}");
    ended
}

/// `p` with every `UNPACR` word changed by `f`.
fn with_unpacrs(
    arch: Arch,
    p: &ThreadProgram,
    f: impl Fn(&mut tensix_emu::isa::Unpacr),
) -> ThreadProgram {
    let steps = p.steps.iter().map(|s| match s {
        Step::Instruction(w) => match decode(arch, *w) {
            Ok(Instruction::Unpacr(mut i)) => {
                f(&mut i);
                Step::Instruction(encode(arch, &Instruction::Unpacr(i)).unwrap())
            }
            _ => *s,
        },
        _ => *s,
    });
    ThreadProgram {
        thread: p.thread,
        steps: steps.collect(),
    }
}

/// Runs of one `UNPACR` word whose contiguous jobs the scheduler's run
/// converts together where one continues another, against each word alone
/// through the functional model: four faces whose datums and outputs
/// follow one another (converted as one); the input re-read for every face
/// while the output moves on, and the output rewritten while the input
/// moves on (neither continues the job before); every word handing its
/// bank to the matrix unit (each job in a bank of its own, the third word
/// waiting for a bank, after the second's job is written); a second face
/// whose output address is misaligned (a fault after the first face's job
/// waited); and BFP8a datums whose exponents leave the 5-bit range in the
/// second face (a conversion that faults, so its job never waits).
#[test]
fn unpacr_runs_convert_together_only_what_continues() {
    use tensix_emu::FaultKind::UndefinedBehavior;
    let mut seen = Endings::default();
    // Each conversion with the targets it may write: (unpacker, to Dst).
    type Targets<'a> = &'a [(usize, bool)];
    let all = [(0, false), (1, false), (0, true)];
    let cases: [(F, F, Targets); 6] = [
        (F::Float16B, F::Float16B, &all),
        (F::Float32, F::Float32, &[(0, true)]),
        (F::Float32, F::Tf32, &[(0, false), (1, false)]),
        (F::Bfp8B, F::Bfp8B, &all),
        (F::Bfp4B, F::Bfp4B, &all),
        (F::Bfp2B, F::Bfp2B, &all),
    ];
    for arch in Arch::ALL {
        for (n, (input, output, targets)) in cases.into_iter().enumerate() {
            for &(unpacker, to_dst) in targets {
                let job = TileUnpack {
                    unpacker,
                    in_format: input,
                    out_format: output,
                    to_dst,
                    ..FACES
                };
                let seed = n as u64 * 31 + unpacker as u64 * 7 + to_dst as u64;
                let (m, p) = tile_case(arch, &job, FACES.l1_addr, &noise(seed, 0x2000));
                let what = |case: &str| {
                    format!("{arch} {input:?} -> {output:?} unpacker {unpacker} to_dst {to_dst}: {case}")
                };
                seen.expect(&m, &p, &what("faces that continue"), |s| {
                    *s == Stop::Completed
                });
                // AddrMode: channel 0 (input) Z steps by 1, channel 1
                // (output) Z does not; then the other way round.
                for (mode, case) in [
                    (0b0000_0001, "output rewritten"),
                    (0b0001_0000, "input re-read"),
                ] {
                    let q = with_unpacrs(arch, &p, |i| i.addr_mode = mode);
                    seen.expect(&m, &q, &what(case), |_| true);
                }
                if !to_dst {
                    // SETADCXY, SETADCZW, SETADCXX, then the third UNPACR.
                    let q = with_unpacrs(arch, &p, |i| i.set_dat_valid = 1);
                    seen.expect(&m, &q, &what("every word flips its bank"), |s| {
                        *s == Stop::Waited(5)
                    });
                }
                if output.datum_bits() >= 16 {
                    let mut bad = m.clone();
                    let zstride = if unpacker == 0 {
                        C::UNP0_ADDR_CTRL_ZW_REG_1_Zstride
                    } else {
                        C::UNP1_ADDR_CTRL_ZW_REG_1_Zstride
                    };
                    let stride = bad.config.get(0, zstride);
                    assert!(bad.config.set(0, zstride, stride + 1));
                    seen.expect(&bad, &p, &what("second face misaligned"), |s| {
                        *s == Stop::Faulted(4, UndefinedBehavior)
                    });
                }
            }
        }
        // Twelve-row faces into SrcA, the word issued six times: the sixth
        // face starts at row 60 and passes row 63, which no job may take
        // in (its bursts are not modelled), after five that continue one
        // another.
        let twelve = TileUnpack {
            face_rows: 12,
            ..FACES
        };
        let (m, mut p) = tile_case(arch, &twelve, FACES.l1_addr, &noise(7, 0x2000));
        let word = *p.steps.last().unwrap();
        p.steps.extend([word, word]);
        let what = format!("{arch} six faces past row 63");
        seen.expect(&m, &p, &what, |s| matches!(s, Stop::Faulted(8, _)));
        // The second face's datums run out of L1 half way, with the output
        // rewritten (AddrMode: channel 1 Z does not step): the general loop
        // writes the datums before the fault over the first face's job,
        // which must have been written first. Then the same with the output
        // moving on too: the second face continues the first everywhere but
        // runs out of L1, so no job takes it in.
        let top = Machine::new(arch).l1.len() as u32;
        let high = TileUnpack {
            l1_addr: top - 768,
            ..FACES
        };
        let (m, p) = tile_case(arch, &high, top - 768, &noise(8, 768));
        let rewritten = with_unpacrs(arch, &p, |i| i.addr_mode = 0b0000_0001);
        for (q, case) in [(&rewritten, "rewritten"), (&p, "continuing")] {
            let what = format!("{arch} second face out of L1, output {case}");
            seen.expect(&m, q, &what, |s| matches!(s, Stop::Faulted(4, _)));
        }
        // BFP8a into SrcA: the first face's exponents in range, the
        // second's zero, so that its small datums leave the 5-bit range.
        let bfp8a = TileUnpack {
            in_format: F::Bfp8A,
            out_format: F::Bfp8A,
            ..FACES
        };
        let mut bytes: Vec<u8> = noise(99, 0x1000).iter().map(|b| b & 0x83).collect();
        for (k, e) in bytes[..64].iter_mut().enumerate() {
            *e = if (16..32).contains(&k) { 0 } else { 15 };
        }
        let (m, p) = tile_case(arch, &bfp8a, FACES.l1_addr, &bytes);
        let what = format!("{arch} BFP8a, second face out of range");
        seen.expect(&m, &p, &what, |s| matches!(s, Stop::Faulted(4, _)));
    }
    // Every case above ran, ending as it must.
    assert_eq!(
        (seen.completed, seen.waited, seen.faulted),
        (2 * 15 * 3, 2 * 10, 2 * 10),
        "{seen:?}"
    );
}

/// Four 16-row faces of BF16 from L1 byte `0x1_0000` into `SrcA`.
const FACES: TileUnpack = TileUnpack {
    unpacker: 0,
    in_format: F::Float16B,
    out_format: F::Float16B,
    to_dst: false,
    l1_addr: 0x1_0000,
    faces: 4,
    face_rows: 16,
    set_dvalid: false,
    dst_row: 0,
};

/// A machine with `bytes` in L1 at `at`, set up for `job`, and the job's
/// program.
fn tile_case(arch: Arch, job: &TileUnpack, at: u32, bytes: &[u8]) -> (Machine, ThreadProgram) {
    let mut m = Machine::new(arch);
    m.write_l1(at, bytes).unwrap();
    job.configure(&mut m).unwrap();
    (m, job.program(arch).unwrap())
}

/// `len` bytes drawn from `seed`.
fn noise(mut seed: u64, len: usize) -> Vec<u8> {
    (0..len).map(|_| splitmix(&mut seed) as u8).collect()
}

/// How many runs ended each way.
#[derive(Debug, Default)]
struct Endings {
    completed: u32,
    waited: u32,
    faulted: u32,
}

impl Endings {
    /// [`runs_agree`] on `m` and `p`, whose ending `want` must accept.
    fn expect(&mut self, m: &Machine, p: &ThreadProgram, what: &str, want: impl Fn(&Stop) -> bool) {
        let stop = runs_agree(m, p, what);
        assert!(want(&stop), "{what}: {stop:?}");
        self.count(&stop);
    }

    fn count(&mut self, stop: &Stop) {
        match stop {
            Stop::Completed => self.completed += 1,
            Stop::Waited(_) => self.waited += 1,
            Stop::Faulted(..) => self.faulted += 1,
        }
    }
}

/// Faces of 2- and 4-bit BFP datums whose count does not fill their last
/// byte (65 datums each), the output moving on by 65 and the input by 64:
/// each face after the first starts inside the byte where the one before
/// ends, and re-reads that face's last datum. The faces' outputs continue
/// one another, but their datums do not, so no face may join the job
/// before it; a face that starts one datum past the last one's end (the
/// input moving on by 65 too) continues it bit for bit, and may.
#[test]
fn unpacr_runs_join_faces_by_the_bit() {
    let mut seen = Endings::default();
    for arch in Arch::ALL {
        for format in [F::Bfp4B, F::Bfp2B] {
            for to_dst in [false, true] {
                let job = TileUnpack {
                    in_format: format,
                    out_format: format,
                    to_dst,
                    face_rows: 4,
                    ..FACES
                };
                let (mut m, p) = tile_case(arch, &job, FACES.l1_addr, &noise(5, 0x1000));
                // Output Z stride: 65 datums rather than 64.
                let stride = m.config.get(0, C::UNP0_ADDR_CTRL_ZW_REG_1_Zstride);
                assert!(m
                    .config
                    .set(0, C::UNP0_ADDR_CTRL_ZW_REG_1_Zstride, stride / 64 * 65));
                let steps = p.steps.iter().map(|s| match s {
                    Step::Instruction(w) => match decode(arch, *w) {
                        Ok(Instruction::Setadcxx(mut i)) => {
                            i.x_end2 = 64;
                            Step::Instruction(encode(arch, &Instruction::Setadcxx(i)).unwrap())
                        }
                        _ => *s,
                    },
                    _ => *s,
                });
                let p = ThreadProgram {
                    thread: p.thread,
                    steps: steps.collect(),
                };
                let what = format!("{arch} {format:?} to_dst {to_dst}");
                seen.expect(
                    &m,
                    &p,
                    &format!("{what}: each face re-reads a datum"),
                    |s| *s == Stop::Completed,
                );
                // Input X dimension (a face's datums in L1) 65 too: the
                // faces follow one another.
                let mut apart = m.clone();
                assert!(apart.config.set(0, C::THCON_SEC0_REG5_Tile_x_dim_cntx0, 65));
                seen.expect(&apart, &p, &format!("{what}: faces follow"), |s| {
                    *s == Stop::Completed
                });
            }
        }
    }
    assert_eq!(
        (seen.completed, seen.waited, seen.faulted),
        (2 * 2 * 2 * 2, 0, 0),
        "{seen:?}"
    );
}
