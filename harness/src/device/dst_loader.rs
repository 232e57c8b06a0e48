//! Loading `setup.dst` on a device: unpacker 0 writes the rows into `Dst`
//! from L1, before the vector's own Config is applied.
//!
//! The RISC-V window onto `Dst` (`Dst.md`, "RISCV access to Dst") would be
//! the direct way, but ttsim v1.10.0 does not model it (its `0xFFBD8000`
//! window raises `UnimplementedFunctionality`). Unpacker 0 can write `Dst`
//! itself (`UNPACR_Regular.md`, `UnpackToDst`), and ttsim implements that
//! for FP32 and INT32 input only (`tensix_unpacr`: BF16 or FP16 to `Dst` is
//! `UnimplementedFunctionality`). So every load goes through `Dst32b`: the
//! rows the vector sets are written into a scratch emulator `Dst`, and each
//! `Dst32b` row that holds one of them (a `Dst16b` row is the high or the
//! low half of one `Dst32b` row, `Dst.md`) travels as 16 FP32 datums whose
//! unpack to `Dst` stores exactly those bits (`dst_encode_fp32` in ttsim,
//! `Store32` in `Dst.md`). The other half of such a row is written with
//! what the vector gives it, or zero.
//!
//! The sequence is tt-llk's unpack-to-Dst ([`TileUnpack`]): for each run of
//! up to 64 `Dst32b` rows, the tile descriptor and output settings in
//! Config, `SETADCXY` / `SETADCZW` / `SETADCXX`, and one `UNPACR` per face of
//! up to 16 rows, `Dest_cntx0_address` pointing at the run's first row.
//! Afterwards every Config word the loader set is written back to zero and
//! unpacker 0's counters are zeroed, so the vector's setup meets the reset
//! state it expects.
//!
//! A `Dst32b` write marks only the row of its high half valid (`Dst.md`;
//! ttsim `write_dst32b`), so the low halves rely on the reset state of the
//! valid bits: ttsim's `tensix_init` sets every row valid, with the note
//! that hardware resets them that way, and the rows then read as written.
//! The emulator's own reset state (every row invalid, reading zero) differs
//! from that only in rows that hold zero.
//!
//! That the sequence leaves exactly the `Dst` the emulator's setup makes,
//! and every other register at reset, is checked on the emulator for every
//! format in this module's tests; that it does the same on an engine is
//! what the ttsim pack vectors show when they agree.

use super::Refusal;
use crate::vector::Dst;
use tensix_emu::format::DataFormat;
use tensix_emu::isa::{self, Instruction, Setadcxx, Setadcxy, Setadczw};
use tensix_emu::regs::thread_config_words;
use tensix_emu::state::dst::{adj32, DstAddressing, DstView, COLS, ROWS_32B};
use tensix_emu::unpack::program::TileUnpack;
use tensix_emu::{Arch, Machine, Step};

/// What the loader needs: L1 bytes at a 16-byte aligned address, and the
/// thread-0 steps that move them into `Dst` and then clean up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DstLoad {
    pub data: Vec<u8>,
    pub steps: Vec<Step>,
}

/// The `Dst32b` rows that hold `dst`'s rows, and their values as FP32
/// datums in L1 (16 per row). The rows are written into `scratch`'s `Dst`
/// (a machine at reset), whose valid bits then mark the storage rows they
/// reached: the row itself for `Dst16b`, the high half for `Dst32b`.
fn dst32_rows(scratch: &mut Machine, dst: &Dst) -> Result<(Vec<u16>, Vec<u32>), Refusal> {
    let view = dst.format.view();
    for (i, r) in dst.rows.iter().enumerate() {
        scratch
            .write_dst_row(view, u32::from(r.row), &r.cells)
            .map_err(|e| Refusal(format!("setup.dst.rows[{i}]: {}", e.0)))?;
    }
    // The loader runs before the vector's Config, so Dst addressing is the
    // reset one.
    let (arch, d) = (scratch.arch(), &scratch.dst);
    let mut rows = Vec::new();
    let mut values = Vec::new();
    for q in 0..ROWS_32B as u16 {
        let s = adj32(arch, DstAddressing::default(), u32::from(q));
        if d.is_valid(s) || d.is_valid(s + 8) {
            rows.push(q);
            values.extend((0..COLS).map(|c| DstView::Fp32.load32(d.read32_at(s, c))));
        }
    }
    Ok((rows, values))
}

/// Consecutive row numbers, each chunk one `TileUnpack`: `faces` faces of
/// `face_rows` rows from `first`.
fn chunks(rows: &[u16]) -> Vec<(u32, u32, u32)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        let mut n = 1;
        while i + n < rows.len() && rows[i + n] == rows[i] + n as u16 {
            n += 1;
        }
        let mut first = u32::from(rows[i]);
        let mut left = n as u32;
        while left > 0 {
            let (faces, face_rows) = if left >= 16 {
                ((left / 16).min(4), 16)
            } else {
                (1, left)
            };
            out.push((first, faces, face_rows));
            first += faces * face_rows;
            left -= faces * face_rows;
        }
        i += n;
    }
    out
}

fn encode(arch: Arch, i: &Instruction) -> Result<Step, Refusal> {
    isa::encode(arch, i)
        .map(Step::Instruction)
        .map_err(|e| Refusal(format!("setup.dst: the loader's {i:?}: {e}")))
}

/// The loader for `dst` on `arch`, its datums at L1 address `at`.
pub fn plan(arch: Arch, dst: &Dst, at: u32) -> Result<DstLoad, Refusal> {
    // One scratch machine: its Dst lays out the rows, and each chunk's
    // configuration is read from its Config (every chunk sets the same
    // fields, so none is left over from the one before).
    let mut m = Machine::new(arch);
    let (rows, values) = dst32_rows(&mut m, dst)?;
    let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut config = vec![0u32; tensix_emu::regs::config_words(arch)];
    let mut steps = Vec::new();
    let mut offset = 0;
    for (first, faces, face_rows) in chunks(&rows) {
        let job = TileUnpack {
            unpacker: 0,
            in_format: DataFormat::Float32,
            out_format: DataFormat::Float32,
            to_dst: true,
            l1_addr: at + offset,
            faces,
            face_rows,
            set_dvalid: false,
            dst_row: first,
        };
        offset += faces * face_rows * 16 * 4;
        job.configure(&mut m)
            .map_err(|e| Refusal(format!("setup.dst: the loader's configuration: {}", e.0)))?;
        let words = m.config.state_words(0).unwrap_or(&[]);
        for (addr, (&want, have)) in words.iter().zip(config.iter_mut()).enumerate() {
            if want != *have {
                steps.push(Step::Cfg {
                    addr32: addr as u32,
                    value: want,
                });
                *have = want;
            }
        }
        if (0..thread_config_words(arch)).any(|r| m.thread_config.read(0, r) != Some(0)) {
            return Err(Refusal(
                "setup.dst: the loader would need ThreadConfig, which it does not restore".into(),
            ));
        }
        let program = job
            .program(arch)
            .map_err(|e| Refusal(format!("setup.dst: the loader's program: {}", e.0)))?;
        steps.extend(program.steps);
    }
    // Back to the reset state: every Config word the loader set, and
    // unpacker 0's counters (`SETADCXY`/`SETADCZW` zero X, Y, Z and W of both
    // channels; `SETADCXX` zeroes channel 0 X and channel 1 X, the end).
    for (addr, v) in config.iter().enumerate() {
        if *v != 0 {
            steps.push(Step::Cfg {
                addr32: addr as u32,
                value: 0,
            });
        }
    }
    let zero_counters = [
        Instruction::Setadcxy(Setadcxy {
            cnt_set_mask: 1,
            bit_mask: 0xF,
            ..Default::default()
        }),
        Instruction::Setadczw(Setadczw {
            cnt_set_mask: 1,
            bit_mask: 0xF,
            ..Default::default()
        }),
        Instruction::Setadcxx(Setadcxx {
            cnt_set_mask: 1,
            x_start: 0,
            x_end2: 0,
        }),
    ];
    for i in &zero_counters {
        steps.push(encode(arch, i)?);
    }
    Ok(DstLoad { data, steps })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::{DstFormat, DstRow};
    use tensix_emu::state::dst::ROWS;
    use tensix_emu::{Limits, ThreadProgram};

    #[test]
    fn rows_split_into_runs_of_whole_faces() {
        let rows: Vec<u16> = (3..3 + 70).chain([100, 102]).collect();
        assert_eq!(
            chunks(&rows),
            vec![(3, 4, 16), (67, 1, 6), (100, 1, 1), (102, 1, 1)]
        );
        let rows: Vec<u16> = (0..40).collect();
        assert_eq!(chunks(&rows), vec![(0, 2, 16), (32, 1, 8)]);
    }

    /// A cheap deterministic stream of bit patterns.
    fn patterns(seed: u64) -> impl FnMut() -> u32 {
        let mut s = seed;
        move || {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) as u32
        }
    }

    /// Run the loader on a machine in its reset state and compare with the
    /// machine the emulator's own setup makes: the same `Dst`, and every
    /// other register as at reset.
    fn check(arch: Arch, dst: &Dst) {
        const AT: u32 = 0x4_0000;
        let load = plan(arch, dst, AT).unwrap();
        // Dst as ttsim and silicon leave it at reset: zero, every row valid.
        let reset = || {
            let mut m = Machine::new(arch);
            (0..ROWS).for_each(|r| m.dst.set_valid(r, true));
            m
        };
        let mut m = reset();
        m.write_l1(AT, &load.data).unwrap();
        let program = ThreadProgram {
            thread: 0,
            steps: load.steps.clone(),
        };
        m.run(&[program], Limits::steps(1 << 20))
            .unwrap_or_else(|f| panic!("{arch:?} {}: {f}", dst.format));

        let mut want = reset();
        for r in &dst.rows {
            want.write_dst_row(dst.format.view(), u32::from(r.row), &r.cells)
                .unwrap();
        }
        assert!(m.dst == want.dst, "{arch:?} {}: Dst differs", dst.format);
        let reset = Machine::new(arch);
        assert_eq!(m.config.state_words(0), reset.config.state_words(0));
        assert_eq!(m.config.state_words(1), reset.config.state_words(1));
        assert_eq!(m.thread_config, reset.thread_config);
        assert_eq!(m.adcs, reset.adcs, "{arch:?} {}", dst.format);
        assert_eq!(m.unpackers, reset.unpackers, "{arch:?} {}", dst.format);
        assert_eq!(m.srca, reset.srca);
        assert_eq!(m.srcb, reset.srcb);
        assert_eq!(m.semaphores, reset.semaphores);
    }

    fn rows(format: DstFormat, numbers: &[u16], mut next: impl FnMut() -> u32) -> Dst {
        let wide = format.mode() == crate::vector::DstMode::Bits32;
        Dst {
            format,
            rows: numbers
                .iter()
                .map(|&row| DstRow {
                    row,
                    cells: std::array::from_fn(|_| {
                        let v = next();
                        if wide {
                            v
                        } else {
                            v & 0xffff
                        }
                    }),
                })
                .collect(),
        }
    }

    #[test]
    fn every_16_bit_pattern_loads_exactly() {
        for arch in [Arch::Blackhole, Arch::WormholeB0] {
            for format in [DstFormat::Bf16, DstFormat::Fp16, DstFormat::Raw16] {
                // 4096 rows of 16 cells would be every pattern; Dst holds
                // 1024, so four loads.
                for part in 0..4u32 {
                    let numbers: Vec<u16> = (0..1024).collect();
                    let mut k = part * 1024 * 16;
                    let d = rows(format, &numbers, || {
                        k += 1;
                        k - 1
                    });
                    check(arch, &d);
                }
            }
        }
    }

    #[test]
    fn special_and_random_32_bit_patterns_load_exactly() {
        let specials = [
            0,
            0x8000_0000,
            1,
            0x8000_0001,
            0x007f_ffff,
            0x0080_0000,
            0x7f7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7f80_0001,
            0x7fc0_0000,
            0xffff_ffff,
            0x3f80_0000,
            0x0000_1fff,
            0x8000_e000,
            0x4040_0001,
        ];
        for arch in [Arch::Blackhole, Arch::WormholeB0] {
            for format in [DstFormat::Fp32, DstFormat::Int32, DstFormat::Raw32] {
                let mut d = rows(format, &[0, 1, 7, 8, 9, 200, 201, 511], patterns(7));
                d.rows[0].cells = specials;
                check(arch, &d);
                let numbers: Vec<u16> = (0..512).collect();
                check(arch, &rows(format, &numbers, patterns(format as u64)));
            }
        }
    }

    #[test]
    fn scattered_rows_load_and_leave_the_rest_zero() {
        let numbers = [
            5, 6, 7, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 1023,
        ];
        check(
            Arch::Blackhole,
            &rows(DstFormat::Bf16, &numbers, patterns(1)),
        );
        check(
            Arch::WormholeB0,
            &rows(DstFormat::Fp16, &numbers, patterns(2)),
        );
    }
}
