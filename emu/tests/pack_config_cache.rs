//! The packer decodes its configuration once and keeps it while nothing it
//! was read from changes (PACR.md: the fields are sampled when the
//! instruction starts, so every `PACR` must see the stores made before it).
//! Each case changes the configuration in one of the ways a program or a
//! harness can, and checks the next `PACR` against a fresh machine that
//! never packed before: same configuration, same bytes.

mod pack_util;

use pack_util::*;
use tensix_emu::isa::{self, Instruction, Pacr, Rmwcib0, Setc16, Wrcfg};
use tensix_emu::regs::{CfgField as C, ThreadCfgField as T};
use tensix_emu::{Arch, Limits, Machine, Step, ThreadProgram};

const BH: Arch = Arch::Blackhole;
const DEST: u32 = 0x100;
const OUT: u32 = 0x1010;

/// BF16 `Dst` rows 0..4 to BF16 at `(DEST + 1) * 16`.
fn bh_bf16() -> Machine {
    let mut m = machine(BH);
    m.l1.bytes_mut().fill(0xEE);
    formats(&mut m, 5, 5, 5);
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 32);
    set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, DEST);
    for row in 0..4 {
        let mut v = ONE_TO_16;
        v[0] ^= row as u16;
        dst_bf16(&mut m, row, v);
    }
    m
}

/// One row from read interface 0, with `Last`.
fn row_last() -> u32 {
    pacr_word(
        BH,
        Pacr {
            read_intf_sel: 1,
            last: 1,
            ..Pacr::default()
        },
    )
}

fn pack_row(m: &mut Machine) {
    run(m, &[setadcxx(BH, 0, 15), row_last()]).unwrap();
}

fn output(m: &Machine) -> Vec<u8> {
    l1(m, OUT, 128)
}

/// Pack one row on `m`, then on a fresh machine whose configuration and
/// `Dst` equal `m`'s, and return both outputs.
fn against_fresh(m: &mut Machine) -> (Vec<u8>, Vec<u8>) {
    let mut fresh = bh_bf16();
    fresh.config = m.config.clone();
    fresh.thread_config = m.thread_config.clone();
    m.l1.bytes_mut().fill(0xEE);
    pack_row(m);
    pack_row(&mut fresh);
    (output(m), output(&fresh))
}

/// A `Config` put in place of the machine's between runs can carry the
/// same generation as the one it replaces; the packer must still see its
/// words.
#[test]
fn a_replaced_config_with_the_same_generation_is_seen() {
    let mut m = bh_bf16();
    let mut other = m.config.clone();
    // Same number of stores on both: BF16 output here, FP32 in `other`.
    assert!(m.config.set(0, C::THCON_SEC0_REG1_Out_data_format, 5));
    assert!(other.set(0, C::THCON_SEC0_REG1_Out_data_format, 0));
    assert_eq!(m.config.generation(), other.generation());
    pack_row(&mut m);
    assert_eq!(l1(&m, OUT, 32), le16(&ONE_TO_16));
    m.config = other;
    let (got, want) = against_fresh(&mut m);
    assert_eq!(got, want);
    // FP32 output: 64 bytes, each BF16 value in the high half.
    let fp32: Vec<u32> = ONE_TO_16.iter().map(|v| (*v as u32) << 16).collect();
    assert_eq!(&got[..64], &le32(&fp32)[..]);
}

/// Likewise for a replaced `ThreadConfig` (here the ADDR_MOD entry a
/// `PACR` applies to the ADCs, so the second row comes from `Dst` row 1).
#[test]
fn a_replaced_thread_config_with_the_same_generation_is_seen() {
    let mut m = bh_bf16();
    let mut other = m.thread_config.clone();
    assert!(m.thread_config.set(PACK, T::ADDR_MOD_PACK_SEC0_YsrcIncr, 0));
    assert!(other.set(PACK, T::ADDR_MOD_PACK_SEC0_YsrcIncr, 1));
    let two_rows = [
        setadcxx(BH, 0, 15),
        pacr_word(
            BH,
            Pacr {
                read_intf_sel: 1,
                ..Pacr::default()
            },
        ),
        row_last(),
    ];
    run(&mut m, &two_rows).unwrap();
    let row0 = le16(&ONE_TO_16);
    assert_eq!(l1(&m, OUT, 64), [row0.clone(), row0.clone()].concat());
    m.thread_config = other;
    m.l1.bytes_mut().fill(0xEE);
    run(&mut m, &two_rows).unwrap();
    let mut v1 = ONE_TO_16;
    v1[0] ^= 1;
    assert_eq!(l1(&m, OUT, 64), [row0, le16(&v1)].concat());
}

/// Another machine's packer state (with its cached decode) put in place
/// of this one's: `b` packs FP32 as its own Config says, not BF16 as the
/// decode that came with `a`'s state said (FormatConversion.md: BF16 to
/// FP32 keeps the bits in the high half).
#[test]
fn a_packer_state_from_another_machine_is_not_trusted() {
    let mut a = bh_bf16();
    let mut b = bh_bf16();
    assert!(a.config.set(0, C::THCON_SEC0_REG1_Out_data_format, 5));
    assert!(b.config.set(0, C::THCON_SEC0_REG1_Out_data_format, 0));
    pack_row(&mut a);
    pack_row(&mut b);
    b.packer = a.packer.clone();
    let (got, want) = against_fresh(&mut b);
    assert_eq!(got, want);
    let fp32: Vec<u32> = ONE_TO_16.iter().map(|v| (*v as u32) << 16).collect();
    assert_eq!(&got[..64], &le32(&fp32)[..], "FP32, not BF16");
}

/// Run `before`, a first `PACR`, `change`, then `after`, all in one run.
fn one_run(change: &[Step], after: &[u32]) -> Machine {
    let mut steps = vec![
        Step::Instruction(setadcxx(BH, 0, 15)),
        Step::Instruction(row_last()),
    ];
    steps.extend_from_slice(change);
    steps.extend(after.iter().map(|w| Step::Instruction(*w)));
    let mut m = bh_bf16();
    m.run(
        &[ThreadProgram {
            thread: PACK,
            steps,
        }],
        Limits::default(),
    )
    .unwrap();
    m
}

fn insn(i: Instruction) -> Step {
    Step::Instruction(isa::encode(BH, &i).unwrap())
}

/// `Out_data_format` made 0 (FP32) between two `PACR`s of one run, by a
/// TRISC store and by `RMWCIB0`: the second `PACR` writes row 0 as FP32
/// over the BF16 bytes of the first (PACR.md samples the configuration as
/// each instruction starts; FormatConversion.md: BF16 to FP32 keeps the bits
/// in the high half).
#[test]
fn a_format_store_between_pacrs_of_one_run_is_seen() {
    let out_fmt = C::THCON_SEC0_REG1_Out_data_format.on(BH).unwrap();
    let w = bh_bf16()
        .config
        .read_addr32(0, out_fmt.addr32 as usize)
        .unwrap();
    let fp32: Vec<u32> = ONE_TO_16.iter().map(|v| (*v as u32) << 16).collect();
    for (name, change) in [
        (
            "TRISC store",
            Step::Cfg {
                addr32: out_fmt.addr32 as u32,
                value: out_fmt.insert(w, 0),
            },
        ),
        (
            "RMWCIB0",
            insn(Instruction::Rmwcib0(Rmwcib0 {
                cfg_reg_addr: out_fmt.addr32 as u32,
                data: 0,
                mask: 0xF0,
            })),
        ),
    ] {
        let m = one_run(&[change], &[setadcxx(BH, 0, 15), row_last()]);
        assert_eq!(l1(&m, OUT, 64), le32(&fp32), "{name}");
    }
}

/// `L1_Dest_addr` moved by `WRCFG` between two `PACR`s: the second row
/// lands at the new address (OutputAddressGenerator.md), the first stays.
#[test]
fn a_wrcfg_between_pacrs_of_one_run_is_seen() {
    let dest = C::THCON_SEC0_REG1_L1_Dest_addr.on(BH).unwrap();
    let change = [
        Step::Gpr {
            index: 8,
            value: DEST + 0x40,
        },
        insn(Instruction::Wrcfg(Wrcfg {
            cfg_reg: dest.addr32 as u32,
            wr128b: 0,
            gpr_address: 8,
        })),
    ];
    let m = one_run(&change, &[setadcxx(BH, 0, 15), row_last()]);
    let row0 = le16(&ONE_TO_16);
    assert_eq!(l1(&m, OUT, 32), row0);
    assert_eq!(l1(&m, OUT + 32, 16), vec![0xEE; 16]);
    assert_eq!(l1(&m, (DEST + 0x40 + 1) * 16, 32), row0);
}

/// `ADDR_MOD_PACK_SEC0.YsrcIncr` made 1 by `SETC16` between `PACR`s: the
/// next `PACR` steps ADC channel 0 Y to 1 (InputAddressGenerator.md), so the
/// one after it reads `Dst` row 1.
#[test]
fn a_setc16_between_pacrs_of_one_run_is_seen() {
    let incr = T::ADDR_MOD_PACK_SEC0_YsrcIncr.on(BH).unwrap();
    let change = [insn(Instruction::Setc16(Setc16 {
        setc16_value: incr.insert(0, 1),
        setc16_reg: incr.addr32 as u32,
    }))];
    let m = one_run(&change, &[setadcxx(BH, 0, 15), row_last(), row_last()]);
    let mut v1 = ONE_TO_16;
    v1[0] ^= 1;
    assert_eq!(l1(&m, OUT, 32), le16(&v1));
}

/// Wormhole B0 with packers 0 and 1, BF16 throughout.
fn wh_two_packers() -> Machine {
    let wh = Arch::WormholeB0;
    let mut m = machine(wh);
    formats(&mut m, 5, 5, 5);
    set(&mut m, C::THCON_SEC0_REG8_In_data_format, 5);
    set(&mut m, C::THCON_SEC0_REG8_Out_data_format, 5);
    set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, DEST);
    set(&mut m, C::THCON_SEC0_REG8_L1_Dest_addr, DEST + 0x40);
    m
}

fn wh_pair() -> u32 {
    pacr_word(
        Arch::WormholeB0,
        Pacr {
            pack_sel: 0b0011,
            last: 1,
            ..Pacr::default()
        },
    )
}

/// PACR.md / InputAddressGenerator.md: each packer's address generator runs
/// in turn, so when packer 0's datum count is refused (more than 2^18) and
/// packer 1 has a field no source defines, packer 0's fault comes first;
/// with a valid count, packer 1's. The instruction's choices are kept per
/// word, so the order must not change when they are worked out once.
#[test]
fn faults_keep_the_packer_order() {
    let wh = Arch::WormholeB0;
    for _ in 0..2 {
        let mut m = wh_two_packers();
        set(&mut m, C::THCON_SEC0_REG8_Read_mode, 1);
        // X0 = 5, X1 = 2: the count X1 - X0 + 1 wraps.
        let e = run(&mut m, &[setadcxx(wh, 5, 2), wh_pair()]).unwrap_err();
        assert!(e.rule.starts_with("packer 0: InputNumDatums"), "{e}");
        let e = run(&mut m, &[setadcxx(wh, 0, 15), wh_pair()]).unwrap_err();
        assert!(e.rule.contains("packer 1 has Read_mode set"), "{e}");
    }
    // Without the undocumented field the same words pack.
    let mut m = wh_two_packers();
    run(&mut m, &[setadcxx(wh, 0, 15), wh_pair(), wh_pair()]).unwrap();
    let e = run(&mut m, &[setadcxx(wh, 5, 2), wh_pair()]).unwrap_err();
    assert!(e.rule.starts_with("packer 0: InputNumDatums"), "{e}");
}

/// ADCs.md: a `PACR` uses its own thread's ADC set. The same word issued by
/// two threads reads through each thread's counters.
#[test]
fn the_same_word_on_two_threads_uses_each_threads_adcs() {
    use tensix_emu::adc::{Dim, Unit};
    let mut m = bh_bf16();
    // Thread 1's packer Y counter is 2, thread 2's is 0.
    m.adcs.load(1, Unit::Packers, 0, Dim::Y, 2, 2).unwrap();
    for (thread, row) in [(2usize, 0u16), (1, 2), (2, 0), (1, 2)] {
        m.l1.bytes_mut().fill(0xEE);
        m.run(
            &[ThreadProgram {
                thread,
                steps: vec![
                    Step::Instruction(setadcxx(BH, 0, 15)),
                    Step::Instruction(row_last()),
                ],
            }],
            Limits::default(),
        )
        .unwrap();
        let mut v = ONE_TO_16;
        v[0] ^= row;
        assert_eq!(l1(&m, OUT, 32), le16(&v), "thread {thread}");
    }
}
