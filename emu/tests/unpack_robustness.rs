//! No configuration and no `UNPACR` / `UNPACR_NOP` word makes the emulator
//! panic, hang or read out of bounds, and the same input gives the same
//! result (project rules; DESIGN.md, "Faults"). Configuration words of both
//! unpackers and the thread configuration are random; so are the counters
//! and the instruction operands.

mod unpack_common;

use tensix_emu::regs::{config_words, thread_config_words};
use tensix_emu::{Arch, FaultKind, Limits, Machine, Step, ThreadProgram};
use unpack_common::splitmix;

/// The Config words that hold unpacker state (`UNP0_*` to the end of
/// `THCON_SEC1`), per architecture.
fn unpacker_words(arch: Arch) -> std::ops::Range<usize> {
    match arch {
        Arch::WormholeB0 => 36..132,
        Arch::Blackhole => 44..160,
    }
}

fn random_case(arch: Arch, seed: u64) -> (Machine, Vec<ThreadProgram>) {
    let mut s = seed;
    let mut m = Machine::new(arch);
    // Sparse random configuration: most fields stay small so that runs get
    // past the early checks and into the main loop.
    for a in unpacker_words(arch) {
        let r = splitmix(&mut s);
        let v = match r % 4 {
            0 => 0,
            1 => (r >> 8) as u32 & 0x0F0F_0F0F,
            2 => (r >> 8) as u32 & 0xFFFF,
            _ => (r >> 8) as u32,
        };
        m.config.write_addr32(0, a, v);
    }
    // The unpackers' L1 bases point at a window of random bytes, often.
    for field in [
        tensix_emu::regs::CfgField::THCON_SEC0_REG3_Base_address,
        tensix_emu::regs::CfgField::THCON_SEC1_REG3_Base_address,
    ] {
        if !splitmix(&mut s).is_multiple_of(4) {
            m.config
                .set(0, field, 0x1000 + (splitmix(&mut s) % 0x100) as u32);
        }
    }
    let window: Vec<u8> = (0..0x4000).map(|_| splitmix(&mut s) as u8).collect();
    m.write_l1(0x10000, &window).unwrap();
    for t in 0..3 {
        for w in 0..thread_config_words(arch) {
            let r = splitmix(&mut s);
            if r.is_multiple_of(3) {
                m.thread_config.write(t, w, (r >> 8) as u32 & 0xFFFF);
            }
        }
    }
    let mut steps = Vec::new();
    for _ in 0..6 {
        let r = splitmix(&mut s);
        let word = match r % 6 {
            0 => 0x5E00_0000 | ((r >> 8) as u32 & 0x00FF_FFFF), // SETADCXX
            1 => 0x5100_0000 | ((r >> 8) as u32 & 0x00E3_FFFF), // SETADCXY
            2 => 0x5400_0000 | ((r >> 8) as u32 & 0x00E3_FFFF), // SETADCZW
            3 => 0x4300_0000 | ((r >> 8) as u32 & 0x0080_01FF), // UNPACR_NOP
            4 => 0x3600_0000 | ((r >> 8) as u32 & 0x00C0_0002), // CLEARDVALID
            // UNPACR; the forms this emulator refuses (cache flush, context
            // counter increment, rareb/srcb_bcast) only now and then.
            _ if r % 96 == 5 => 0x4200_0000 | ((r >> 8) as u32 & 0x00FF_FFFF),
            _ => 0x4200_0000 | ((r >> 8) as u32 & 0x00FF_DFDD),
        };
        steps.push(Step::Instruction(word));
    }
    let programs = vec![ThreadProgram {
        thread: (seed % 3) as usize,
        steps,
    }];
    (m, programs)
}

/// A valid LLK-style job with random modes on top: upsampling, haloize,
/// tileize, column shift, compression, FIFO wrap, header size, Src row
/// stepping, counters and instruction operands. These reach the main loop.
fn structured_case(arch: Arch, seed: u64) -> (Machine, Vec<ThreadProgram>) {
    use tensix_emu::format::DataFormat as F;
    use tensix_emu::regs::{CfgField as C, ThreadCfgField as T};
    let mut s = seed ^ 0x5555;
    let pairs = [
        (F::Float16B, F::Float16B),
        (F::Float16, F::Float16),
        (F::Float32, F::Tf32),
        (F::Float32, F::Float16B),
        (F::Float32, F::Float16),
        (F::Bfp8B, F::Bfp8B),
        (F::Bfp4B, F::Bfp4B),
        (F::Bfp2B, F::Bfp2B),
        (F::Bfp8A, F::Bfp8A),
        (F::Bfp4A, F::Bfp4A),
        (F::Bfp2A, F::Bfp2A),
        (F::Int8, F::Int8),
        (F::Int16, F::Int16),
        (F::Lf8, F::Lf8),
        (F::Float32, F::Float32),
        (F::Int32, F::Int32),
    ];
    let (i, o) = pairs[(splitmix(&mut s) % pairs.len() as u64) as usize];
    let unpacker = (splitmix(&mut s) % 2) as usize;
    let to_dst = unpacker == 0 && (o.datum_bits() == 32 || splitmix(&mut s).is_multiple_of(4));
    let j = tensix_emu::unpack::program::TileUnpack {
        unpacker,
        in_format: i,
        out_format: o,
        to_dst,
        l1_addr: 0x1_0000,
        faces: 1 + (splitmix(&mut s) % 4) as u32,
        face_rows: 1 + (splitmix(&mut s) % 16) as u32,
        set_dvalid: splitmix(&mut s).is_multiple_of(2),
        dst_row: 0,
    };
    let mut m = Machine::new(arch);
    let window: Vec<u8> = (0..0x4000).map(|_| splitmix(&mut s) as u8).collect();
    m.write_l1(0x1_0000, &window).unwrap();
    j.configure(&mut m).unwrap();
    let sec = |a: C, b: C| if unpacker == 0 { a } else { b };
    let modes = [
        (
            sec(
                C::THCON_SEC0_REG2_Upsample_rate,
                C::THCON_SEC1_REG2_Upsample_rate,
            ),
            4,
        ),
        (
            sec(
                C::THCON_SEC0_REG2_Upsample_and_interleave,
                C::THCON_SEC1_REG2_Upsample_and_interleave,
            ),
            2,
        ),
        (
            sec(
                C::THCON_SEC0_REG2_Haloize_mode,
                C::THCON_SEC1_REG2_Haloize_mode,
            ),
            2,
        ),
        (
            sec(
                C::THCON_SEC0_REG2_Tileize_mode,
                C::THCON_SEC1_REG2_Tileize_mode,
            ),
            2,
        ),
        (
            sec(
                C::THCON_SEC0_REG2_Shift_amount_cntx0,
                C::THCON_SEC1_REG2_Shift_amount_cntx0,
            ),
            16,
        ),
        (
            sec(
                C::THCON_SEC0_REG2_Shift_amount_cntx1,
                C::THCON_SEC1_REG2_Shift_amount_cntx1,
            ),
            16,
        ),
        (
            sec(
                C::THCON_SEC0_REG2_Disable_zero_compress_cntx0,
                C::THCON_SEC1_REG2_Disable_zero_compress_cntx0,
            ),
            2,
        ),
        (
            sec(
                C::THCON_SEC0_REG2_Unpack_limit_address,
                C::THCON_SEC1_REG2_Unpack_limit_address,
            ),
            0x1400,
        ),
        (
            sec(
                C::THCON_SEC0_REG2_Unpack_fifo_size,
                C::THCON_SEC1_REG2_Unpack_fifo_size,
            ),
            0x300,
        ),
        (
            sec(
                C::THCON_SEC0_REG2_Unpack_Src_Reg_Set_Upd,
                C::THCON_SEC1_REG2_Unpack_Src_Reg_Set_Upd,
            ),
            2,
        ),
        (
            sec(
                C::THCON_SEC0_REG2_Force_shared_exp,
                C::THCON_SEC1_REG2_Force_shared_exp,
            ),
            2,
        ),
        (
            sec(
                C::THCON_SEC0_REG1_Unp_LF8_4b_exp,
                C::THCON_SEC1_REG1_Unp_LF8_4b_exp,
            ),
            2,
        ),
    ];
    for (field, range) in modes {
        if splitmix(&mut s).is_multiple_of(3) {
            m.config.set(0, field, (splitmix(&mut s) % range) as u32);
        }
    }
    if splitmix(&mut s).is_multiple_of(3) {
        m.thread_config.set(
            0,
            T::SRCA_SET_SetOvrdWithAddr,
            (splitmix(&mut s) % 2) as u32,
        );
        m.thread_config
            .set(0, T::SRCA_SET_Base, (splitmix(&mut s) % 4) as u32);
    }
    let mut r = || splitmix(&mut s);
    let mut p = j.program(arch).unwrap();
    for _ in 0..3 {
        let pos = 3 + (r() % (p.steps.len() as u64 - 2)) as usize;
        let w = match r() % 3 {
            0 => 0x5E00_0000 | (1 << (21 + unpacker)) | (r() as u32 & 0x000F_FFFF),
            1 => 0x5100_0000 | (1 << (21 + unpacker)) | (r() as u32 & 0x0000_FFCF),
            _ => 0x4200_0000 | ((unpacker as u32) << 23) | (r() as u32 & 0x007F_DFDD),
        };
        p.steps.insert(pos, Step::Instruction(w));
    }
    (m, vec![p])
}

#[test]
fn random_unpacker_programs_run_or_fault_deterministically() {
    let mut outcomes = [0usize; 8];
    let mut ok = 0;
    for arch in Arch::ALL {
        for seed in 0..800u64 {
            let (m0, programs) = if seed % 2 == 0 {
                random_case(arch, seed * 2 + arch as u64)
            } else {
                structured_case(arch, seed * 2 + arch as u64)
            };
            let limits = Limits::steps(10_000);
            let mut a = m0.clone();
            let ra = a.run(&programs, limits);
            let mut b = m0;
            let rb = b.run(&programs, limits);
            assert_eq!(ra, rb, "{arch} seed {seed}");
            assert!(
                a.srca == b.srca && a.srcb == b.srcb && a.dst == b.dst && a.adcs == b.adcs,
                "{arch} seed {seed}: two runs differ"
            );
            match ra {
                Ok(_) => ok += 1,
                Err(f) => {
                    assert!(!f.rule.is_empty());
                    outcomes[f.kind as usize] += 1;
                    assert_ne!(f.kind, FaultKind::ResourceLimit, "{arch} seed {seed}: {f}");
                }
            }
        }
    }
    // The generator reaches both ends: runs that complete and runs that stop.
    assert!(ok > 40, "only {ok} runs completed; outcomes {outcomes:?}");
    assert!(outcomes.iter().sum::<usize>() > 40, "{outcomes:?}");
}

/// Every configuration word of every unpacker, one at a time set to all
/// ones, with a plain LLK-style program: each run completes or faults.
#[test]
fn all_ones_in_any_config_word_is_handled() {
    for arch in Arch::ALL {
        for a in 0..config_words(arch) {
            let j = tensix_emu::unpack::program::TileUnpack {
                unpacker: a % 2,
                in_format: tensix_emu::format::DataFormat::Float16B,
                out_format: tensix_emu::format::DataFormat::Float16B,
                to_dst: false,
                l1_addr: 0x1_0000,
                faces: 4,
                face_rows: 16,
                set_dvalid: true,
                dst_row: 0,
            };
            let mut m = Machine::new(arch);
            j.configure(&mut m).unwrap();
            m.config.write_addr32(0, a, u32::MAX);
            let r = m.run(&[j.program(arch).unwrap()], Limits::steps(10_000));
            if let Err(f) = r {
                assert_ne!(f.kind, FaultKind::ResourceLimit, "{arch} word {a}: {f}");
            }
        }
    }
}
