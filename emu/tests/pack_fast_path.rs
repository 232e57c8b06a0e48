//! The row fast path against the per-datum path (DESIGN.md, oracle 2: "fast
//! path vs general path ... same input, same bytes"). Every case packs the
//! same `Dst` contents with `force_general_path` off and on and compares all
//! of L1, the ADCs and the packer's streams and tile position.

mod one_at_a_time;
mod pack_util;

use one_at_a_time::{run_both_ways, Ending};
use pack_util::*;
use tensix_emu::adc::Unit;
use tensix_emu::isa::{self, Instruction, Pacr, Setadcxy, Setadczw};
use tensix_emu::regs::CfgField as C;
use tensix_emu::state::dst::DstView;
use tensix_emu::{Arch, Fault, Machine};

/// A deterministic generator (no global state, no OS randomness).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 32) as u32
    }

    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }

    /// A normal, finite FP32 pattern of either sign (exponent 1..=254).
    fn normal32(&mut self) -> u32 {
        let exp = 1 + self.below(254);
        (self.next() & 0x807F_FFFF) | (exp << 23)
    }

    /// A value whose exponent field is 0 (a denormal), 1 or 2: a group of
    /// only these keeps its smallest elements' bits.
    fn tiny32(&mut self) -> u32 {
        (self.next() & 0x807F_FFFF) | (self.below(3) << 23)
    }

    /// Bit patterns that lean on the edge cases: zeros, denormals,
    /// infinities, NaNs, rounding ties, and random values.
    fn datum32(&mut self) -> u32 {
        let sign = self.next() & 0x8000_0000;
        sign | match self.below(8) {
            0 => 0,
            1 => self.next() & 0x007F_FFFF,
            2 => 0x7F80_0000,
            3 => 0x7F80_0000 | (self.next() & 0x007F_FFFF) | 1,
            4 => (self.next() & 0x7FFF_0000) | 0x8000,
            5 => 0x007F_8000 | (self.next() & 0x7FFF),
            _ => self.next() & 0x7FFF_FFFF,
        }
    }
}

/// A packer conversion: `Read_32b_data`, `Dstacc` (= `In_data_format`),
/// `Out_data_format`, and bytes per input datum as the address generator
/// counts them. Named input to output; 16-bit `Dst` unless the input is
/// FP32 or INT32.
type Conversion = (bool, u32, u32, u32);

const BF16_TO_BF16: Conversion = (false, 5, 5, 2);
const BF16_TO_FP32: Conversion = (false, 5, 0, 2);
const FP16_TO_FP16: Conversion = (false, 1, 1, 2);
const FP16_TO_FP32: Conversion = (false, 1, 0, 2);
const FP16_TO_FP8: Conversion = (false, 1, 10, 2);
const INT16_TO_INT16: Conversion = (false, 9, 9, 2);
/// `Dst32b` FP32 rounded to BF16.
const FP32_TO_BF16: Conversion = (true, 5, 5, 2);
const FP32_TO_FP32: Conversion = (true, 0, 0, 4);
const FP32_TO_FP16: Conversion = (true, 0, 1, 4);
const INT32_TO_INT32: Conversion = (true, 8, 8, 4);
const BF16_TO_BFP8B: Conversion = (false, 5, 6, 2);
const E8M6_TO_BFP4B: Conversion = (false, 6, 7, 1);
const E5M6_TO_BFP8A: Conversion = (false, 2, 2, 1);
const FP32_TO_BFP2B: Conversion = (true, 0, 15, 4);
const E8M6_TO_BFP2B: Conversion = (false, 6, 15, 1);
const E8M6_TO_BFP8B: Conversion = (false, 6, 6, 1);
const FP16_TO_BFP4A: Conversion = (false, 1, 3, 2);
const FP16_TO_BFP2A: Conversion = (false, 1, 11, 2);
const FP32_TO_BFP4B: Conversion = (true, 0, 7, 4);
/// `Dst32b` FP32 rounded to BF16, then to BFP8_b.
const FP32_BF16_TO_BFP8B: Conversion = (true, 5, 6, 2);
/// 8-bit exponents to "a" elements.
const BF16_TO_BFP8A: Conversion = (false, 5, 2, 2);
const FP32_TO_BFP4A: Conversion = (true, 0, 3, 4);
const BF16_TO_BFP2B: Conversion = (false, 5, 15, 2);
const BF16_TO_BFP4B: Conversion = (false, 5, 7, 2);
const FP32_TO_BFP8B: Conversion = (true, 0, 6, 4);

/// Conversions the fast path takes.
const FORMATS: [Conversion; 14] = [
    BF16_TO_BF16,
    BF16_TO_FP32,
    FP16_TO_FP16,
    FP16_TO_FP32,
    FP16_TO_FP8,
    INT16_TO_INT16,
    FP32_TO_BF16,
    FP32_TO_FP32,
    FP32_TO_FP16,
    INT32_TO_INT32,
    BF16_TO_BFP8B,
    E8M6_TO_BFP4B,
    E5M6_TO_BFP8A,
    FP32_TO_BFP2B,
];

fn case(arch: Arch, rng: &mut Lcg) -> (Machine, Vec<u32>) {
    let mut m = machine(arch);
    m.l1.bytes_mut().fill(0x5A);
    let (wide, dstacc, out, bytes) = FORMATS[rng.below(FORMATS.len() as u32) as usize];
    formats(&mut m, dstacc, dstacc, out);
    if arch == Arch::WormholeB0 {
        set(&mut m, C::THCON_SEC0_REG8_In_data_format, dstacc);
        set(&mut m, C::THCON_SEC0_REG8_Out_data_format, out);
        set(&mut m, C::DEST_TARGET_REG_CFG_PACK_SEC1_Offset, 16);
        set(&mut m, C::THCON_SEC0_REG8_L1_Dest_addr, 0x80);
    }
    set(&mut m, C::PCK_DEST_RD_CTRL_Read_32b_data, wide as u32);
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 16 * bytes);
    set(
        &mut m,
        C::THCON_SEC0_REG1_L1_Dest_addr,
        0x8000_0100 + rng.below(64),
    );
    // Sometimes an edge mask: the rows it touches go datum by datum
    // through the fetch, on the fast path too.
    if rng.below(3) == 0 {
        set(&mut m, C::PCK_EDGE_OFFSET_SEC1_mask, rng.next() & 0xFFFF);
        set(&mut m, C::TILE_ROW_SET_MAPPING_0_row_set_mapping_1, 1);
    }
    // Sometimes a mask no row or face set selects: nothing is masked, so
    // the fast path may run while a mask is not all ones.
    if rng.below(3) == 0 {
        set(&mut m, C::PCK_EDGE_OFFSET_SEC3_mask, rng.next() & 0xFFFF);
        if rng.below(2) == 0 {
            set(&mut m, C::TILE_ROW_SET_MAPPING_3_row_set_mapping_5, 3);
        }
    }
    // Often ReLU, in every mode, which the fast path applies datum by
    // datum: thresholds near the data, zero, the largest, and now and then
    // one with its sign bit set (undefined in modes 2 and 3).
    if rng.below(2) == 0 {
        set(&mut m, C::STACC_RELU_ApplyRelu, 1 + rng.below(3));
        let threshold = match rng.below(8) {
            0 => 0,
            1 => 0x7F80,
            2 => 0x8000 | rng.below(0x8000),
            _ => (rng.normal32() >> 16) & 0x7FFF,
        };
        set(&mut m, C::STACC_RELU_ReluThreshold, threshold);
    }
    // Rows of ordinary values only (no zero, denormal, infinity or NaN)
    // take the kernels' shortcuts; the others do not.
    let ordinary = rng.below(2) == 0;
    for row in 0..40 {
        let vals: [u32; 16] = std::array::from_fn(|_| {
            if ordinary && row % 3 != 0 {
                rng.normal32()
            } else {
                rng.datum32()
            }
        });
        write_row(&mut m, wide, row, &vals);
    }
    let mut words = vec![setadcxx(arch, rng.below(4), 15 + 16 * rng.below(2))];
    let n = 1 + rng.below(6);
    for k in 0..n {
        let last = (k + 1 == n) as u32;
        let p = match arch {
            Arch::Blackhole => Pacr {
                read_intf_sel: [0, 1, 3, 5, 7, 10, 15][rng.below(7) as usize],
                last,
                ..Pacr::default()
            },
            Arch::WormholeB0 => Pacr {
                pack_sel: [1, 3][rng.below(2) as usize],
                last,
                ..Pacr::default()
            },
        };
        words.push(pacr_word(arch, p));
    }
    (m, words)
}

/// A machine with L1 filled with `0x5A` and [`tile_formats`].
fn tile_machine(arch: Arch, case: Conversion) -> Machine {
    let mut m = machine(arch);
    m.l1.bytes_mut().fill(0x5A);
    tile_formats(&mut m, case);
    m
}

/// Packer 0 reading `Dst` rows of 32-bit (`wide`) or 16-bit cells as
/// `Dstacc` = `In_data_format` = `dstacc` and writing `Out_data_format`
/// `out`, its address generator counting `bytes` per input datum: rows 16
/// datums apart, faces 256.
fn tile_formats(m: &mut Machine, (wide, dstacc, out, bytes): Conversion) {
    formats(m, dstacc, dstacc, out);
    set(m, C::PCK_DEST_RD_CTRL_Read_32b_data, wide as u32);
    set(m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 16 * bytes);
    set(m, C::PCK0_ADDR_CTRL_ZW_REG_0_Zstride, 256 * bytes);
}

/// The pack thread's AddrMod 0: the next four rows; 1: row 0 of the next
/// face.
fn face_addr_mods(m: &mut Machine) {
    use tensix_emu::regs::ThreadCfgField as T;
    set_t(m, T::ADDR_MOD_PACK_SEC0_YsrcIncr, 4);
    set_t(m, T::ADDR_MOD_PACK_SEC0_YdstIncr, 4);
    set_t(m, T::ADDR_MOD_PACK_SEC1_YsrcClear, 1);
    set_t(m, T::ADDR_MOD_PACK_SEC1_ZsrcIncr, 1);
}

/// The `PACR`s of `faces` faces of 16 rows, four rows to each (read
/// interfaces `sel`), as [`face_addr_mods`] steps them: `AddrMod` 1 after
/// a face's fourth, `Last` on the last.
fn face_pacrs(arch: Arch, faces: u32, sel: u32) -> impl Iterator<Item = u32> {
    (0..faces).flat_map(move |face| {
        (0..4).map(move |quad| {
            let p = Pacr {
                read_intf_sel: sel,
                addr_mode: (quad == 3) as u32,
                last: (face + 1 == faces && quad == 3) as u32,
                ..Pacr::default()
            };
            pacr_word(arch, p)
        })
    })
}

/// Write the FP32 patterns `vals` to `Dst` row `row` as they are
/// (`wide`: 32-bit `Dst`), or their top halves (16-bit `Dst`).
fn write_row(m: &mut Machine, wide: bool, row: u32, vals: &[u32; 16]) {
    if wide {
        m.write_dst_row(DstView::Raw32, row, vals).unwrap();
    } else {
        m.write_dst_row(DstView::Raw16, row, &vals.map(|x| x >> 16))
            .unwrap();
    }
}

/// Run `words` on `m` and on a copy of it that takes the per-datum path
/// (`force_general_path`), and require the same outcome: the same fault or
/// none, the same L1 bytes written by the same 16-byte writes in the same
/// order, the same packer ADC counters and carriage-return copies, and,
/// after a clean run, the same state in every packer (streams, tile
/// position, how full the BFP assembler is; not the assembler's slots, which
/// whole groups bypass on the fast paths). Returns the outcome, for the callers' tallies, and the
/// per-datum machine, for their own comparisons.
fn same_as_per_datum_path(
    m: &mut Machine,
    words: &[u32],
    case: &str,
) -> (Result<(), Fault>, Machine) {
    let mut general = m.clone();
    general.packer.force_general_path = true;
    // Without the L1 write log, express instructions' rows wait and are
    // written together: the same outcome, L1 and state as with it.
    let mut quiet = m.clone();
    m.l1.enable_log();
    general.l1.enable_log();
    let a = run(m, words);
    let b = run(&mut general, words);
    assert_eq!(a, b, "{case}: the faults differ");
    assert_eq!(
        run(&mut quiet, words),
        a,
        "{case}: unlogged, the faults differ"
    );
    same_unlogged(&quiet, m, case);
    assert!(
        m.l1.bytes() == general.l1.bytes(),
        "{case}: L1 differs between the fast and per-datum paths"
    );
    assert_eq!(m.l1.log(), general.l1.log(), "{case}: the L1 writes differ");
    assert_eq!(
        m.adcs.values(PACK, Unit::Packers),
        general.adcs.values(PACK, Unit::Packers),
        "{case}"
    );
    assert_eq!(
        m.adcs.cr_values(PACK, Unit::Packers),
        general.adcs.cr_values(PACK, Unit::Packers),
        "{case}"
    );
    // A fault stops an instruction part way; how far each path had moved
    // the packer's own counters by then is not something the documents give
    // a meaning to, so they are compared only after a clean run.
    for p in (0..4).filter(|_| a.is_ok()) {
        let (Some(x), Some(y)) = (m.packer.unit(p), general.packer.unit(p)) else {
            continue;
        };
        assert_eq!(x.streams, y.streams, "{case} packer {p}");
        assert_eq!(x.tile_position, y.tile_position, "{case} packer {p}");
        assert_eq!(x.bfp.pending(), y.bfp.pending(), "{case} packer {p}");
    }
    (a, general)
}

/// A machine run without the L1 write log (where express instructions'
/// rows wait and are written together) against the same run with it (each
/// instruction writing its own): the same L1, ADCs and packer state.
fn same_unlogged(quiet: &Machine, logged: &Machine, case: &str) {
    assert!(
        quiet.l1.bytes() == logged.l1.bytes(),
        "{case}: L1 differs between writing rows together and one instruction at a time"
    );
    assert_eq!(quiet.adcs, logged.adcs, "{case}: unlogged");
    assert_eq!(quiet.packer, logged.packer, "{case}: unlogged");
}

#[test]
fn fast_path_matches_the_per_datum_path() {
    let mut rng = Lcg(0x5EED_0001);
    let mut compared = 0;
    for k in 0..400 {
        let arch = if k % 2 == 0 {
            Arch::Blackhole
        } else {
            Arch::WormholeB0
        };
        let (mut fast, words) = case(arch, &mut rng);
        let (a, _) = same_as_per_datum_path(&mut fast, &words, &format!("case {k} ({arch})"));
        if a.is_ok() {
            compared += 1;
        }
    }
    // Most cases must actually pack (the BH ones with a column start past
    // the row end are refused on both paths).
    assert!(compared > 200, "only {compared} cases ran to completion");
}

/// OutputAddressGenerator.md: the packer writes 16 bytes at a time to L1;
/// a write past the end of L1 stops the run (UndefinedBehavior here). Whole
/// rows that would run past the end are refused by the fast path's direct
/// write and go through the stream, which writes the groups that fit and
/// faults on the first that does not: the same bytes and the same fault on
/// both paths.
#[test]
fn rows_running_past_the_end_of_l1_fault_alike() {
    for arch in [Arch::Blackhole, Arch::WormholeB0] {
        for (wide, dstacc, out, bytes) in [BF16_TO_BF16, FP32_TO_BF16, FP32_TO_FP32] {
            let mut m = machine(arch);
            m.l1.bytes_mut().fill(0x5A);
            formats(&mut m, dstacc, dstacc, out);
            set(&mut m, C::PCK_DEST_RD_CTRL_Read_32b_data, wide as u32);
            set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 16 * bytes);
            // Two groups before the end of L1 (in 16-byte units, less the
            // header skip).
            let top = (m.l1.len() / 16) as u32 - 2 - 1;
            set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, top);
            let mut rng = Lcg(0x5EED_0002);
            for row in 0..8 {
                let vals: [u32; 16] = std::array::from_fn(|_| rng.normal32());
                write_row(&mut m, wide, row, &vals);
            }
            let p = match arch {
                Arch::Blackhole => Pacr {
                    read_intf_sel: 0,
                    last: 1,
                    ..Pacr::default()
                },
                Arch::WormholeB0 => Pacr {
                    pack_sel: 1,
                    last: 1,
                    ..Pacr::default()
                },
            };
            // Four rows: Blackhole's four read interfaces, or 64 contiguous
            // datums on Wormhole.
            let x1 = if arch == Arch::Blackhole { 15 } else { 63 };
            let words = [setadcxx(arch, 0, x1), pacr_word(arch, p)];
            let (a, _) = same_as_per_datum_path(&mut m, &words, &format!("{arch}"));
            let fault = a.unwrap_err();
            assert_eq!(
                fault.kind,
                tensix_emu::FaultKind::UndefinedBehavior,
                "{fault}"
            );
            let end = m.l1.len();
            assert_ne!(
                m.l1.read((end - 32) as u32, 32),
                Some(&[0x5A; 32][..]),
                "{arch}"
            );
        }
    }
}

/// ReLU mode 3 clamps a datum above the threshold to the threshold, which
/// an FP8 datum cannot hold with more than two mantissa bits, and the page
/// does not say how it narrows: the run stops at that datum (`Relu::apply`,
/// Unsupported). The datums before it in
/// its row still reach the stream, and here they complete a 16-byte group
/// that a first instruction half filled, so L1 holds one write on both
/// paths.
#[test]
fn a_datum_that_faults_mid_row_leaves_the_ones_before_it() {
    let arch = Arch::Blackhole;
    let mut m = machine(arch);
    m.l1.bytes_mut().fill(0x5A);
    // FP16 in Dst truncated to FP8 by the early conversion (Dstacc FP8
    // with Read_raw, FormatConversion.md), FP8 out.
    formats(&mut m, 10, 10, 10);
    set(&mut m, C::PCK_DEST_RD_CTRL_Read_int8, 1);
    set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 16);
    set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, 0x100);
    set(&mut m, C::STACC_RELU_ApplyRelu, 3);
    // FP16 1 + 2^-10: more mantissa bits than FP8 has.
    set(&mut m, C::STACC_RELU_ReluThreshold, 0x3C01);
    // 0.5 everywhere but column 12, which holds 2.0.
    let row: [u32; 16] = std::array::from_fn(|c| if c == 12 { 0x4000 } else { 0x3800 });
    m.write_dst_row(DstView::Fp16, 0, &row).unwrap();
    let pacr = |last| {
        pacr_word(
            arch,
            Pacr {
                read_intf_sel: 1,
                last,
                ..Pacr::default()
            },
        )
    };
    // Columns 0-7, then the whole row again.
    let words = [
        setadcxx(arch, 0, 7),
        pacr(0),
        setadcxx(arch, 0, 15),
        pacr(1),
    ];
    let (a, general) = same_as_per_datum_path(&mut m, &words, "FP16 -> FP8, ReLU mode 3");
    let fault = a.unwrap_err();
    assert_eq!(fault.kind, tensix_emu::FaultKind::Unsupported, "{fault}");
    assert_eq!(fault.instruction_index, Some(3), "{fault}");
    assert_eq!(
        general.l1.log().len(),
        1,
        "one 16-byte group before the fault"
    );
}

/// The whole-row kernels that write straight into L1 (BF16 -> BF16,
/// FP32 -> BF16, FP32 -> FP32 on Blackhole), on the instruction sequence a
/// tile is packed with (one PACR per group of rows, the address modifiers
/// stepping rows and faces, Last at the end), against the per-datum path:
/// rows of ordinary values, rows with zeros, denormals, infinities and NaN,
/// every read-interface selection, a start that leaves a partial group in
/// the stream's buffer.
#[test]
fn whole_rows_match_the_per_datum_path() {
    let arch = Arch::Blackhole;
    let mut rng = Lcg(0x5EED_0003);
    let mut compared = 0;
    for k in 0..240 {
        let (wide, dstacc, out, bytes) = [BF16_TO_BF16, FP32_TO_BF16, FP32_TO_FP32][k % 3];
        let mut m = tile_machine(arch, (wide, dstacc, out, bytes));
        set(
            &mut m,
            C::THCON_SEC0_REG1_L1_Dest_addr,
            0x100 + rng.below(64),
        );
        face_addr_mods(&mut m);
        let ordinary = (k / 3) % 2 == 0;
        for row in 0..64 {
            let vals: [u32; 16] = std::array::from_fn(|_| {
                if ordinary {
                    rng.normal32()
                } else {
                    rng.datum32()
                }
            });
            write_row(&mut m, wide, row, &vals);
        }
        // Now and then a storage row, written, is marked not valid: the
        // packer reads its row as zeros, in the middle of rows read in
        // order.
        if k % 4 == 1 {
            m.dst.set_valid(rng.below(64) as usize, false);
        }
        let sel = [0, 15, 1, 3, 5, 7, 10][rng.below(7) as usize];
        let mut words = Vec::new();
        if k % 5 == 4 {
            // A first PACR of two datums leaves bytes in the buffer.
            words.push(setadcxx(arch, 0, 1));
            words.push(pacr_word(
                arch,
                Pacr {
                    read_intf_sel: 1,
                    ..Pacr::default()
                },
            ));
        }
        words.push(setadcxx(arch, 0, 15));
        words.extend(face_pacrs(arch, 2, sel));
        let (a, general) =
            same_as_per_datum_path(&mut m, &words, &format!("case {k} (sel {sel:#b})"));
        // No BFP here: the whole packer state matches, BFP slots included.
        assert_eq!(m.packer.unit(0), general.packer.unit(0), "case {k}");
        compared += a.is_ok() as u32;
    }
    assert!(compared > 150, "only {compared} cases ran to completion");
}

/// The BFP outputs on Blackhole, where whole rows with an empty
/// shared-exponent assembler go a group per row and a PACR at a time
/// (Packers/FormatConversion.md, "one shared 8b exponent per 16 datums";
/// OutputAddressGenerator.md for the exponent and data streams), against the
/// per-datum path: both exponent forms and all three widths; a group left
/// partly filled by an earlier PACR (and sometimes completed by the next);
/// exponent and data streams that start at the same address
/// (`Exp_section_size` 0); a start address that the FIFO wraps; output that
/// runs past the end of L1.
#[test]
fn bfp_groups_match_the_per_datum_path() {
    let arch = Arch::Blackhole;
    let mut rng = Lcg(0x5EED_0004);
    let mut completed = 0;
    let mut l1_end = 0;
    for k in 0..400 {
        let (wide, dstacc, out, bytes) = [
            BF16_TO_BFP8B,
            E8M6_TO_BFP4B,
            E8M6_TO_BFP2B,
            E5M6_TO_BFP8A,
            FP16_TO_BFP4A,
            FP16_TO_BFP2A,
            FP32_TO_BFP4B,
            FP32_BF16_TO_BFP8B,
            BF16_TO_BFP8A,
            FP32_TO_BFP4A,
        ][k % 10];
        let mut m = tile_machine(arch, (wide, dstacc, out, bytes));
        // The other early conversions that feed BFP: the identities and
        // truncations of Read_raw, TF32 rounding with Round_10b_mant.
        match rng.below(4) {
            0 => set(&mut m, C::PCK_DEST_RD_CTRL_Read_int8, 1),
            1 => set(&mut m, C::PCK_DEST_RD_CTRL_Round_10b_mant, 1),
            _ => {}
        }
        set(
            &mut m,
            C::THCON_SEC0_REG1_Exp_section_size,
            [0, 1, 4][rng.below(3) as usize],
        );
        let top = (m.l1.len() / 16) as u32;
        let dest = match rng.below(4) {
            // Some groups fit before the end of L1, the rest do not.
            0 => top - 4 - rng.below(16),
            _ => 0x100 + rng.below(64),
        };
        l1_end += (dest > 0x1000) as u32;
        set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, dest);
        if rng.below(4) == 0 {
            // The start lies past the FIFO limit (32-byte units) and wraps
            // back by the FIFO size.
            set(&mut m, C::THCON_SEC0_REG9_Pack_0_2_limit_address, 0x60);
            set(&mut m, C::THCON_SEC0_REG9_Pack_0_2_fifo_size, 0x40);
        }
        face_addr_mods(&mut m);
        let ordinary = rng.below(2) == 0;
        for row in 0..64 {
            // Some rows of tiny values only: groups whose shared exponent is
            // small enough that their smallest elements keep bits.
            let tiny = rng.below(4) == 0;
            let vals: [u32; 16] = std::array::from_fn(|_| {
                if tiny {
                    rng.tiny32()
                } else if ordinary {
                    rng.normal32()
                } else {
                    rng.datum32()
                }
            });
            write_row(&mut m, wide, row, &vals);
        }
        // Now and then a storage row, written, is marked not valid: the
        // packer reads its row as zeros.
        if k % 4 == 1 {
            m.dst.set_valid(k * 7 % 64, false);
        }
        let mut words = Vec::new();
        if rng.below(3) == 0 {
            // A first PACR of `n` datums leaves a partial group in the
            // assembler; sometimes a second one completes it.
            let n = 1 + rng.below(15);
            let one_row = Pacr {
                read_intf_sel: 1,
                ..Pacr::default()
            };
            words.push(setadcxx(arch, 0, n - 1));
            words.push(pacr_word(arch, one_row));
            if rng.below(2) == 0 {
                words.push(setadcxx(arch, n, 15));
                words.push(pacr_word(arch, one_row));
            }
        }
        words.push(setadcxx(arch, 0, 15));
        let sel = [0, 15, 1, 3, 5, 7, 10][rng.below(7) as usize];
        words.extend(face_pacrs(arch, 2, sel));
        let (a, _) = same_as_per_datum_path(&mut m, &words, &format!("case {k} (sel {sel:#b})"));
        completed += a.is_ok() as u32;
    }
    // Enough of each kind ran: complete tiles, and tiles stopped by the end
    // of L1 or by a partial group at Last.
    assert!(completed > 100, "only {completed} cases ran to completion");
    assert!(l1_end > 40, "only {l1_end} cases near the end of L1");
}

/// A tile of `Dst32b` FP32 rows packed to BFP "b" forms from a row set by
/// `DEST_TARGET_REG_CFG_PACK_SEC0_Offset`: from the start of a block of
/// eight rows (whose high halves lie together in `Dst`, their low halves
/// after them), from the middle of one, and running past row 511, where the
/// row number wraps; with every row valid, and with one high-half or
/// low-half storage row not valid. The same as the per-datum path each time,
/// with the L1 write log and without it.
#[test]
fn fp32_tiles_from_any_row_match_the_per_datum_path() {
    let arch = Arch::Blackhole;
    let mut rng = Lcg(0x5EED_000A);
    let mut k = 0;
    for conversion in [FP32_TO_BFP4B, FP32_BF16_TO_BFP8B, FP32_TO_BFP2B] {
        for first in [0, 4, 8, 12, 24, 488, 496, 500] {
            for not_valid in [None, Some(2 * first + 3), Some(2 * first + 12)] {
                let mut m = tile_machine(arch, conversion);
                face_addr_mods(&mut m);
                set(&mut m, C::DEST_TARGET_REG_CFG_PACK_SEC0_Offset, first);
                // Every storage row valid, low halves' too (written first
                // as 16-bit rows), so that only the rows' places tell a
                // block's high halves from its low ones.
                for row in 0..1024 {
                    write_row(&mut m, false, row, &[0x3F80_0000; 16]);
                }
                for row in 0..512 {
                    let vals: [u32; 16] = std::array::from_fn(|_| rng.normal32());
                    write_row(&mut m, true, row, &vals);
                }
                if let Some(s) = not_valid {
                    m.dst.set_valid(s as usize % 1024, false);
                }
                let mut words = vec![setadcxx(arch, 0, 15)];
                words.extend(face_pacrs(arch, 2, 0));
                let case = format!("case {k}: {conversion:?} from row {first}, {not_valid:?}");
                let (a, _) = same_as_per_datum_path(&mut m, &words, &case);
                assert_eq!(a, Ok(()), "{case}");
                k += 1;
            }
        }
    }
}

/// Runs of `PACR`s through three read interfaces, each the three rows after
/// the last one's (`AddrMod` 0 adds 3 to `Y`): runs of 3 to 24 consecutive
/// rows, an odd count among them, which the BFP assembler takes in pairs of
/// rows with one left over, and 24 `Dst32b` rows, three whole blocks. Every
/// BFP form from 16-bit and 32-bit `Dst`, the same as the per-datum path
/// with the L1 write log and without it.
#[test]
fn bfp_runs_of_any_row_count_match_the_per_datum_path() {
    use tensix_emu::regs::ThreadCfgField as T;
    let arch = Arch::Blackhole;
    let mut rng = Lcg(0x5EED_000B);
    let conversions = [
        BF16_TO_BFP8B,
        E8M6_TO_BFP4B,
        E8M6_TO_BFP2B,
        FP16_TO_BFP4A,
        FP16_TO_BFP2A,
        FP32_TO_BFP4B,
        FP32_BF16_TO_BFP8B,
        FP32_TO_BFP2B,
    ];
    for (k, conversion) in conversions.into_iter().enumerate() {
        for pacrs in 1..=8 {
            let mut m = tile_machine(arch, conversion);
            set_t(&mut m, T::ADDR_MOD_PACK_SEC0_YsrcIncr, 3);
            set_t(&mut m, T::ADDR_MOD_PACK_SEC0_YdstIncr, 3);
            // Three rows from row 3: past the aligned group of four, which
            // the packer refuses unless told otherwise.
            m.packer.allow_read_interface_group_crossing = true;
            for row in 0..32 {
                let vals: [u32; 16] = std::array::from_fn(|_| rng.datum32());
                write_row(&mut m, conversion.0, row, &vals);
            }
            let mut words = vec![setadcxx(arch, 0, 15)];
            for n in 1..=pacrs {
                words.push(pacr_word(
                    arch,
                    Pacr {
                        read_intf_sel: 0b0111,
                        last: (n == pacrs) as u32,
                        ..Pacr::default()
                    },
                ));
            }
            let case = format!("{conversion:?}, {pacrs} PACRs of 3 rows");
            let (a, _) = same_as_per_datum_path(&mut m, &words, &case);
            assert_eq!(a, Ok(()), "case {k}: {case}");
        }
    }
}

/// OutputAddressGenerator.md: `Last` writes out what the streams' buffers
/// hold, 16 bytes at a time, and a write past the end of L1 stops the run.
/// Two tiles of one-row BFP `PACR`s, the second a row longer, from the same
/// place near the end of L1, so that the partial group the second tile's
/// `Last` writes is sometimes the first outside L1: the same bytes,
/// counters and fault as the per-datum path, with the rows of each tile
/// waiting and written together (the second tile's `Last` executed with
/// its run, its words prepared by the first tile; where it faults its
/// counter steps are not made) and one instruction at a time.
#[test]
fn a_last_whose_flush_leaves_l1_faults_alike() {
    let arch = Arch::Blackhole;
    let (mut at_last, mut completed) = (0, 0);
    let zero_counters = || {
        let (xy, zw) = (
            Setadcxy {
                bit_mask: 0xF,
                cnt_set_mask: 4,
                ..Setadcxy::default()
            },
            Setadczw {
                bit_mask: 0xF,
                cnt_set_mask: 4,
                ..Setadczw::default()
            },
        );
        [
            isa::encode(arch, &Instruction::Setadcxy(xy)).expect("SETADCXY encodes"),
            isa::encode(arch, &Instruction::Setadczw(zw)).expect("SETADCZW encodes"),
            setadcxx(arch, 0, 15),
        ]
    };
    let tile = |pacrs: u32| {
        (1..=pacrs).map(move |k| {
            pacr_word(
                arch,
                Pacr {
                    read_intf_sel: 1,
                    last: (k == pacrs) as u32,
                    ..Pacr::default()
                },
            )
        })
    };
    for (wide, dstacc, out, bytes) in [
        BF16_TO_BFP2B, // 4 bytes a group
        BF16_TO_BFP4B, // 8 bytes a group
        FP32_TO_BFP8B, // 16 bytes a group
    ] {
        for exp_section in [1, 2] {
            for below_top in 1..=6 {
                for pacrs in 3..=9u32 {
                    let mut m = tile_machine(arch, (wide, dstacc, out, bytes));
                    face_addr_mods(&mut m);
                    set(&mut m, C::THCON_SEC0_REG1_Exp_section_size, exp_section);
                    let top = (m.l1.len() / 16) as u32;
                    set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, top - below_top);
                    for row in 0..64u32 {
                        let vals =
                            std::array::from_fn(|i| 0x3F80_0000 + ((row * 16 + i as u32) << 12));
                        write_row(&mut m, wide, row, &vals);
                    }
                    let mut words = Vec::new();
                    words.extend(zero_counters());
                    words.extend(tile(pacrs - 1));
                    words.extend(zero_counters());
                    words.extend(tile(pacrs));
                    let case = format!(
                        "out {out}, exponent section {exp_section}, {below_top} below the top, {pacrs} PACRs"
                    );
                    match same_as_per_datum_path(&mut m, &words, &case).0 {
                        Ok(()) => completed += 1,
                        Err(f) if f.instruction_index == Some(words.len() - 1) => at_last += 1,
                        Err(_) => {}
                    }
                }
            }
        }
    }
    assert!(
        at_last >= 10,
        "only {at_last} second tiles faulted at their Last"
    );
    assert!(completed >= 10, "only {completed} runs completed");
}

/// The express path (a Blackhole PACR whose read interfaces each take a
/// whole row through a fixed-format kernel straight into L1, or to one BFP
/// group per row) against the per-datum path, around every condition it
/// depends on: whole rows from column 0 or not (`SETADCXX` start and end),
/// a data-stream buffer or BFP assembler left partly filled, output that
/// the FIFO wraps or that runs past the end of L1, `Last` in the middle of a program and at its end, read interfaces
/// that leave their group of four rows (a fault, or with the check off the
/// rows ttsim v1.10.0 reads), rows never written, `Dst` address remapping,
/// and counter steps that clear, carriage-return and increment. Every case
/// compares the faults, all of L1 and the 16-byte writes in order, the ADC
/// values and carriage-return copies, and the packer's state.
#[test]
fn express_path_matches_the_per_datum_path() {
    use tensix_emu::regs::ThreadCfgField as T;
    let arch = Arch::Blackhole;
    let mut rng = Lcg(0x5EED_0005);
    let (mut completed, mut faulted, mut crossed) = (0, 0, 0);
    for k in 0..700 {
        let (wide, dstacc, out, bytes) = [
            BF16_TO_BF16,
            FP32_TO_BF16,
            FP32_TO_FP32,
            BF16_TO_BFP8B,
            FP32_TO_BFP4B,
            E8M6_TO_BFP2B,
            FP16_TO_BFP2A,
        ][k % 7];
        let mut m = tile_machine(arch, (wide, dstacc, out, bytes));
        let top = (m.l1.len() / 16) as u32;
        let dest = match rng.below(5) {
            // Some rows fit before the end of L1, the rest do not.
            0 => top - 2 - rng.below(12),
            _ => 0x100 + rng.below(64),
        };
        set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, dest);
        if rng.below(4) == 0 {
            // The start lies past the FIFO limit (32-byte units) and wraps
            // back by the FIFO size.
            set(&mut m, C::THCON_SEC0_REG9_Pack_0_2_limit_address, 0x60);
            set(&mut m, C::THCON_SEC0_REG9_Pack_0_2_fifo_size, 0x40);
        }
        if rng.below(4) == 0 {
            set(&mut m, C::DEST_ACCESS_CFG_remap_addrs, 1);
        }
        // AddrMod 0: the next rows (by 4, or by 2 so that four interfaces
        // leave their group); 1: back to row 0 of the next face; 2: a
        // carriage return.
        let step = if rng.below(4) == 0 { 2 } else { 4 };
        set_t(&mut m, T::ADDR_MOD_PACK_SEC0_YsrcIncr, step);
        set_t(&mut m, T::ADDR_MOD_PACK_SEC0_YdstIncr, step);
        set_t(&mut m, T::ADDR_MOD_PACK_SEC1_YsrcClear, 1);
        set_t(&mut m, T::ADDR_MOD_PACK_SEC1_ZsrcIncr, 1);
        set_t(&mut m, T::ADDR_MOD_PACK_SEC2_YsrcCR, 1);
        set_t(&mut m, T::ADDR_MOD_PACK_SEC2_YsrcIncr, 8);
        set_t(&mut m, T::ADDR_MOD_PACK_SEC2_ZdstIncr, 1);
        let crossing_allowed = rng.below(2) == 0;
        m.packer.allow_read_interface_group_crossing = crossing_allowed;
        for row in 0..64 {
            if rng.below(8) == 0 {
                continue; // never written: read as zeros
            }
            let vals: [u32; 16] = std::array::from_fn(|_| {
                if rng.below(2) == 0 {
                    rng.normal32()
                } else {
                    rng.datum32()
                }
            });
            write_row(&mut m, wide, row, &vals);
        }
        let mut words = Vec::new();
        if rng.below(4) == 0 {
            // A first PACR of part of a row leaves bytes in the buffer (or,
            // for an even count of 32-bit datums, whole groups).
            words.push(setadcxx(arch, 0, rng.below(15)));
            words.push(pacr_word(
                arch,
                Pacr {
                    read_intf_sel: 1,
                    ..Pacr::default()
                },
            ));
        }
        let sel = [0, 15, 1, 3, 5, 7, 10, 12][rng.below(8) as usize];
        for tile in 0..2 {
            // Mostly whole rows; sometimes from a later column or fewer.
            let (x0, x1) = match rng.below(6) {
                0 => (1 + rng.below(15), 15),
                1 => (0, rng.below(15)),
                _ => (0, 15),
            };
            words.push(setadcxx(arch, x0, x1));
            for quad in 0..4 {
                let addr_mode = match quad {
                    3 => 1,
                    _ if rng.below(6) == 0 => 2,
                    _ => 0,
                };
                words.push(pacr_word(
                    arch,
                    Pacr {
                        read_intf_sel: sel,
                        addr_mode,
                        last: (quad == 3 && (tile == 1 || rng.below(2) == 0)) as u32,
                        ..Pacr::default()
                    },
                ));
            }
        }
        let (a, general) =
            same_as_per_datum_path(&mut m, &words, &format!("case {k} (sel {sel:#b})"));
        // The fixed-format kernels decline rather than fault, so the whole
        // packer state matches even after a fault. A BFP instruction stopped
        // by the end of L1 has written the same bytes to L1 either way, but
        // its groups' exponents wait in the exponent stream's buffer as
        // whole instructions or as single groups.
        if a.is_ok() || k % 7 < 3 {
            assert_eq!(m.packer.unit(0), general.packer.unit(0), "case {k}");
        }
        match &a {
            Ok(()) => completed += 1,
            Err(f) if f.rule.contains("aligned group of four") => crossed += 1,
            Err(_) => faulted += 1,
        }
    }
    // Enough of each kind: complete runs, runs stopped by the end of L1, and
    // read interfaces leaving their group with the check on.
    assert!(completed > 150, "only {completed} cases ran to completion");
    assert!(
        faulted > 20,
        "only {faulted} cases stopped at the end of L1"
    );
    assert!(crossed > 10, "only {crossed} cases crossed a row group");
}

/// A run of `PACR` words that the scheduler executes together (one thread
/// left, nothing at its Wait Gate or in its expanders) against the same
/// words given to `Machine::run` one at a time, which executes each alone:
/// the same machine afterwards (all of L1, the ADCs, the packers' state),
/// the same L1 writes in the same order with the same tags (the issue
/// count), the same fault at the same program entry, and under a step budget
/// the same `ResourceLimit` after the same number of instructions; and with
/// L1's write log off (the express instructions' rows written together)
/// and on, the same ending, under a datum budget too. Both architectures
/// (Wormhole takes the general path, Blackhole mostly the express one),
/// with other instructions between runs of `PACR`s.
#[test]
fn pacr_runs_do_what_one_word_at_a_time_does() {
    use tensix_emu::{Limits, Step, ThreadProgram};
    let mut rng = Lcg(0x5EED_0006);
    let (mut completed, mut faulted, mut limited) = (0, 0, 0);
    let mut datum_stops = 0;
    for k in 0..300 {
        let arch = [Arch::Blackhole, Arch::WormholeB0][k % 2];
        let (wide, dstacc, out, bytes) = [
            BF16_TO_BF16,
            FP32_TO_FP32,
            BF16_TO_BFP8B,
            FP32_TO_BFP4B,
            FP16_TO_BFP2A,
        ][rng.below(5) as usize];
        let mut m = machine(arch);
        tile_formats(&mut m, (wide, dstacc, out, bytes));
        let top = (m.l1.len() / 16) as u32;
        let dest = match rng.below(4) {
            0 => top - 1 - rng.below(8), // runs off the end of L1
            _ => 0x100 + rng.below(64),
        };
        set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, dest);
        face_addr_mods(&mut m);
        for row in 0..64 {
            let vals: [u32; 16] = std::array::from_fn(|_| rng.datum32());
            write_row(&mut m, wide, row, &vals);
        }
        let mut words = Vec::new();
        for _ in 0..1 + rng.below(3) {
            words.push(setadcxx(arch, rng.below(2), 15 - rng.below(2)));
            for quad in 0..rng.below(9) {
                let mut p = Pacr {
                    addr_mode: if quad % 4 == 3 { 1 } else { 0 },
                    last: (rng.below(5) == 0) as u32,
                    ..Pacr::default()
                };
                // Blackhole's read interfaces; Wormhole's packer 0.
                if arch == Arch::Blackhole {
                    p.read_intf_sel = [0, 15, 1, 3][rng.below(4) as usize];
                }
                words.push(pacr_word(arch, p));
            }
        }
        let budget = if rng.below(4) == 0 {
            1 + u64::from(rng.below(words.len() as u32 + 2))
        } else {
            Limits::default().max_steps
        };
        let mut together = m.clone();
        let mut quiet = m.clone();
        let mut alone = m;
        together.l1.enable_log();
        alone.l1.enable_log();
        let program = ThreadProgram {
            thread: PACK,
            steps: words.iter().map(|w| Step::Instruction(*w)).collect(),
        };
        let case = format!("case {k} ({arch}, budget {budget})");
        // Without the L1 write log, the run's express instructions write
        // their rows together: the same ending, L1 and state.
        let unlogged = quiet.run(std::slice::from_ref(&program), Limits::steps(budget));
        let logged = together
            .clone()
            .run(std::slice::from_ref(&program), Limits::steps(budget));
        assert_eq!(
            unlogged.map_err(|f| f.into_info()),
            logged.map_err(|f| f.into_info()),
            "{case}: unlogged"
        );
        // A datum budget stops both at the same instruction, having
        // written the same bytes: the express instructions that wait are
        // counted as they are taken.
        let datums = Limits {
            max_steps: budget,
            max_datums: u64::from(rng.below(400)),
        };
        let mut quiet_budget = together.clone();
        quiet_budget.l1.disable_log();
        let mut logged_budget = together.clone();
        let unlogged = quiet_budget.run(std::slice::from_ref(&program), datums);
        let logged = logged_budget.run(std::slice::from_ref(&program), datums);
        if let Err(f) = &logged {
            datum_stops += usize::from(f.rule.starts_with("datum budget"));
        }
        assert_eq!(
            unlogged.map_err(|f| f.into_info()),
            logged.map_err(|f| f.into_info()),
            "{case}: unlogged, within {datums:?}"
        );
        assert!(
            quiet_budget.l1.bytes() == logged_budget.l1.bytes(),
            "{case}: L1 within {datums:?}"
        );
        assert_eq!(
            quiet_budget.adcs, logged_budget.adcs,
            "{case}: ADCs within {datums:?}"
        );
        match run_both_ways(&mut together, &mut alone, &program, budget, &case) {
            Ending::Completed => completed += 1,
            Ending::OutOfSteps => limited += 1,
            Ending::Faulted(_) => faulted += 1,
        }
        assert_eq!(
            together.l1.log(),
            alone.l1.log(),
            "{case}: the L1 writes differ"
        );
        assert!(
            together.l1.bytes() == alone.l1.bytes(),
            "{case}: L1 differs"
        );
        assert_eq!(together.adcs, alone.adcs, "{case}");
        assert_eq!(together.packer, alone.packer, "{case}");
        same_unlogged(&quiet, &together, &case);
    }
    assert!(completed > 100, "only {completed} cases ran to completion");
    assert!(
        faulted > 20,
        "only {faulted} cases stopped at the end of L1"
    );
    assert!(limited > 20, "only {limited} cases ran out of steps");
    assert!(
        datum_stops > 20,
        "only {datum_stops} cases ran out of datums"
    );
}

/// A run of express `PACR`s is compiled once and the plan kept with the
/// configuration, to serve the next run of the same words from whatever
/// counters it starts with. One machine, never reset, packs episode after
/// episode: a few word sequences drawn again and again, from counters set
/// anew each time (values apart from their carriage-return copies), now and
/// then after a store to ThreadConfig or Config (which must not leave an
/// old plan in use), and now and then from another thread. Each episode is
/// checked against a copy of the machine taking the per-datum path.
#[test]
fn compiled_runs_serve_later_runs_alike() {
    use tensix_emu::adc::Dim;
    use tensix_emu::pack::pacr_words;
    use tensix_emu::regs::ThreadCfgField as T;
    use tensix_emu::{Limits, Step, ThreadProgram};
    let arch = Arch::Blackhole;
    let mut rng = Lcg(0x5EED_0007);
    let (mut completed, mut stopped) = (0, 0);
    for k in 0..40 {
        let (wide, dstacc, out, bytes) =
            [BF16_TO_BF16, FP32_TO_BF16, BF16_TO_BFP8B, FP32_TO_BFP4B][k % 4];
        let mut m = tile_machine(arch, (wide, dstacc, out, bytes));
        let dest = 0x100 + rng.below(64);
        set(&mut m, C::THCON_SEC0_REG1_L1_Dest_addr, dest);
        // AddrMod 0: the next rows; 1: row 0 of the next face; 2: a
        // carriage return, and the output's Z on.
        face_addr_mods(&mut m);
        set_t(&mut m, T::ADDR_MOD_PACK_SEC2_YsrcCR, 1);
        set_t(&mut m, T::ADDR_MOD_PACK_SEC2_YsrcIncr, 8);
        set_t(&mut m, T::ADDR_MOD_PACK_SEC2_ZdstIncr, 1);
        m.packer.allow_read_interface_group_crossing = rng.below(2) == 0;
        for row in 0..64 {
            let vals: [u32; 16] = std::array::from_fn(|_| rng.datum32());
            write_row(&mut m, wide, row, &vals);
        }
        let sequences: Vec<Vec<u32>> = (0..3)
            .map(|_| {
                // Now and then longer than the 64 rows that may wait.
                let n = if rng.below(4) == 0 {
                    60 + rng.below(30)
                } else {
                    2 + rng.below(18)
                };
                let sel = [0, 15, 1, 3, 5][rng.below(5) as usize];
                (0..n)
                    .map(|i| {
                        let p = Pacr {
                            read_intf_sel: sel,
                            addr_mode: rng.below(3),
                            last: (i + 1 == n && rng.below(2) == 0) as u32,
                            ..Pacr::default()
                        };
                        pacr_word(arch, p)
                    })
                    .collect()
            })
            .collect();
        for episode in 0..10 {
            let thread = if rng.below(5) == 0 { rng.below(2) } else { 2 } as usize;
            // Whole rows, mostly; now and then from column 1.
            let x0 = (rng.below(6) == 0) as u32;
            for (ch, dim, v) in [(0, Dim::X, x0), (1, Dim::X, 15)] {
                m.adcs.load(thread, Unit::Packers, ch, dim, v, v).unwrap();
            }
            for ch in 0..2 {
                for (dim, most) in [(Dim::Y, 16), (Dim::Z, 4)] {
                    let (value, cr) = (rng.below(most), rng.below(most));
                    m.adcs
                        .load(thread, Unit::Packers, ch, dim, value, cr)
                        .unwrap();
                }
            }
            match rng.below(6) {
                0 => set_t(
                    &mut m,
                    T::ADDR_MOD_PACK_SEC0_YsrcIncr,
                    [2, 4][rng.below(2) as usize],
                ),
                1 => set_t(&mut m, T::ADDR_MOD_PACK_SEC1_ZsrcIncr, rng.below(3)),
                2 => set(
                    &mut m,
                    C::PCK0_ADDR_CTRL_XY_REG_0_Ystride,
                    16 * bytes * (1 + rng.below(2)),
                ),
                _ => {}
            }
            let words = &sequences[rng.below(3) as usize];
            let program = [ThreadProgram {
                thread,
                steps: words.iter().map(|w| Step::Instruction(*w)).collect(),
            }];
            let mut general = m.clone();
            general.packer.force_general_path = true;
            // Now and then the words straight to `pacr_words`, which takes
            // them all (the scheduler would hand it the rest again).
            let direct = rng.below(3) == 0;
            let go = |m: &mut Machine| {
                if direct {
                    let (done, outcome) = pacr_words(m, thread, words.iter().copied());
                    if outcome.is_ok() {
                        assert_eq!(done, words.len(), "every word executed");
                    }
                    outcome
                } else {
                    m.run(&program, Limits::default()).map(|_| ())
                }
            };
            let a = go(&mut m);
            let b = go(&mut general);
            let case = format!("case {k}, episode {episode} (thread {thread})");
            assert_eq!(a, b, "{case}: the faults differ");
            assert!(m.l1.bytes() == general.l1.bytes(), "{case}: L1 differs");
            assert_eq!(m.adcs, general.adcs, "{case}: the ADCs differ");
            if a.is_ok() {
                // Not the settings: the copy takes the per-datum path.
                for p in 0..4 {
                    assert_eq!(
                        m.packer.unit(p),
                        general.packer.unit(p),
                        "{case} packer {p}"
                    );
                }
                completed += 1;
            } else {
                stopped += 1;
            }
        }
    }
    assert!(
        completed > 200,
        "only {completed} episodes ran to completion"
    );
    assert!(stopped > 10, "only {stopped} episodes stopped at a fault");
}

/// A plan keeps the rows its words read from the start it last worked
/// them out from, and must serve them again only from that same start, for
/// the same words and configuration. One machine per case, packed episode
/// after episode from the last episode's start with none or one thing
/// changed: channel 0's `X` (a row on), `W` (a tile on), `Y`, `Y`'s
/// carriage-return copy alone, `Z`, whether a read may leave its group of
/// four rows, the words (another sequence), or an address modifier (a
/// store to ThreadConfig). A sequence without `Last` also starts each
/// episode where the last left the tile position; now and then a step
/// budget ends the run before its `Last`. Each episode is checked against
/// a copy of the machine taking the per-datum path.
#[test]
fn run_rows_are_served_again_only_from_the_same_start() {
    use tensix_emu::adc::Dim;
    use tensix_emu::regs::ThreadCfgField as T;
    use tensix_emu::{Limits, Step, ThreadProgram};
    let arch = Arch::Blackhole;
    let mut rng = Lcg(0x5EED_0008);
    let mut changes = [0; 9];
    let (mut again, mut cut, mut stopped) = (0, 0, 0);
    for k in 0..40 {
        let case = [BF16_TO_BF16, FP32_TO_BF16, BF16_TO_BFP8B][k % 3];
        let bytes = case.3;
        let mut m = tile_machine(arch, case);
        set(
            &mut m,
            C::THCON_SEC0_REG1_L1_Dest_addr,
            0x100 + rng.below(64),
        );
        set(&mut m, C::PCK0_ADDR_CTRL_XY_REG_0_Xstride, bytes);
        set(&mut m, C::PCK0_ADDR_CTRL_ZW_REG_0_Wstride, 4 * 256 * bytes);
        face_addr_mods(&mut m);
        set_t(&mut m, T::ADDR_MOD_PACK_SEC2_YsrcCR, 1);
        set_t(&mut m, T::ADDR_MOD_PACK_SEC2_YsrcIncr, 4 + 4 * rng.below(2));
        for row in 0..192 {
            let vals: [u32; 16] = std::array::from_fn(|_| rng.datum32());
            write_row(&mut m, case.0, row, &vals);
        }
        let with_last = k % 2 == 0;
        // Two sequences that step the counters and the tile position alike
        // (as many read interfaces each) and read other rows.
        let modes: Vec<u32> = (0..4 + rng.below(12)).map(|_| rng.below(3)).collect();
        let alike: &[u32] =
            [&[1, 2, 4, 8][..], &[3, 5, 6, 9, 10, 12], &[7, 11, 13, 14]][rng.below(3) as usize];
        let first = rng.below(alike.len() as u32) as usize;
        let other = (first + 1 + rng.below(alike.len() as u32 - 1) as usize) % alike.len();
        let programs: Vec<[ThreadProgram; 1]> = [alike[first], alike[other]]
            .map(|sel| {
                let steps = (modes.iter().enumerate())
                    .map(|(i, &addr_mode)| {
                        let p = Pacr {
                            read_intf_sel: sel,
                            addr_mode,
                            last: (with_last && i + 1 == modes.len()) as u32,
                            ..Pacr::default()
                        };
                        Step::Instruction(pacr_word(arch, p))
                    })
                    .collect();
                [ThreadProgram {
                    thread: PACK,
                    steps,
                }]
            })
            .into();
        let mut program = 0;
        // Channel 0's X, W, Y and its copy, Z and its copy; crossing.
        let mut start = [0, 0, 0, 0, 0, 0, 0];
        for episode in 0..30 {
            // Both sequences first (so that all their words are prepared);
            // then half of the episodes start as the last did.
            let change = match rng.below(16) {
                _ if episode == 0 => 0,
                _ if episode == 1 => 7,
                c @ 1..=8 => c as usize,
                _ => 0,
            };
            match change {
                0 => {}
                1 => start[0] ^= 16,
                2 => start[1] = (start[1] + 1 + rng.below(2)) % 3,
                3 => start[2] = (start[2] + 1 + rng.below(15)) % 16,
                4 => start[3] = (start[3] + 1 + rng.below(15)) % 16,
                5 => start[4] = (start[4] + 1 + rng.below(3)) % 4,
                6 => start[6] ^= 1,
                7 => program ^= 1,
                _ => set_t(
                    &mut m,
                    T::ADDR_MOD_PACK_SEC0_YsrcIncr,
                    [2, 4, 8][rng.below(3) as usize],
                ),
            }
            changes[change] += 1;
            let [x, w, y, y_cr, z, z_cr, crossing] = start;
            let loads = [
                (0, Dim::X, x, x),
                (1, Dim::X, x + 15, x + 15),
                (0, Dim::W, w, w),
                (0, Dim::Y, y, y_cr),
                (0, Dim::Z, z, z_cr),
            ];
            for (ch, dim, value, cr) in loads {
                m.adcs
                    .load(PACK, Unit::Packers, ch, dim, value, cr)
                    .unwrap();
            }
            m.packer.allow_read_interface_group_crossing = crossing == 1;
            let program = &programs[program];
            let mut limits = Limits::default();
            if with_last && rng.below(8) == 0 {
                limits.max_steps = program[0].steps.len() as u64 - 1;
                cut += 1;
            }
            let mut general = m.clone();
            general.packer.force_general_path = true;
            let a = m.run(program, limits).map(|_| ());
            let b = general.run(program, limits).map(|_| ());
            let case = format!("case {k}, episode {episode} (change {change})");
            assert_eq!(
                a.as_ref().map_err(|f| f.kind),
                b.as_ref().map_err(|f| f.kind),
                "{case}: the endings differ"
            );
            assert!(m.l1.bytes() == general.l1.bytes(), "{case}: L1 differs");
            assert_eq!(m.adcs, general.adcs, "{case}: the ADCs differ");
            for p in 0..4 {
                assert_eq!(
                    m.packer.unit(p),
                    general.packer.unit(p),
                    "{case} packer {p}"
                );
            }
            if a.is_err() {
                stopped += 1;
            } else if change == 0 && with_last && episode > 0 {
                again += 1;
            }
        }
    }
    assert!(
        changes.iter().all(|&c| c > 50),
        "each change made often: {changes:?}"
    );
    assert!(again > 100, "only {again} episodes started as the last did");
    assert!(cut > 30, "only {cut} runs were cut before their Last");
    // Out of steps, or reads leaving their group of four rows.
    assert!((100..600).contains(&stopped), "{stopped} episodes faulted");
}

/// Every 16-bit cell pattern, in 16-bit `Dst` and as the high half of a
/// 32-bit one, packed to BFP by every conversion from `Dst` whose BFP
/// elements the assembler makes from the stored cells as it reads them
/// (the BF16 identity, rounding and rounding to E8M6, the FP32 truncation
/// and narrowing, the FP16 forms) and by their neighbours, against the
/// per-datum path. The patterns go in the three [`Order`]s, 64 tiles
/// each.
#[test]
fn every_cell_pattern_packs_to_bfp_as_on_the_per_datum_path() {
    let arch = Arch::Blackhole;
    let conversions = [
        BF16_TO_BFP8B,
        BF16_TO_BFP4B,
        BF16_TO_BFP2B,
        E8M6_TO_BFP4B,
        E8M6_TO_BFP2B,
        E8M6_TO_BFP8B,
        FP16_TO_BFP4A,
        FP16_TO_BFP2A,
        E5M6_TO_BFP8A,
        FP32_TO_BFP8B,
        FP32_TO_BFP4B,
        FP32_TO_BFP2B,
        // With Read_raw, FP32 truncated to BF16.
        FP32_BF16_TO_BFP8B,
    ];
    let mut refused = Vec::new();
    for (c, conversion) in conversions.into_iter().enumerate() {
        // Read_raw too: the identities and truncations.
        for raw in [false, true] {
            let mut template = tile_machine(arch, conversion);
            set(&mut template, C::PCK_DEST_RD_CTRL_Read_int8, raw as u32);
            set(&mut template, C::THCON_SEC0_REG1_Exp_section_size, 4);
            set(&mut template, C::THCON_SEC0_REG1_L1_Dest_addr, 0x100);
            face_addr_mods(&mut template);
            let mut words = vec![setadcxx(arch, 0, 15)];
            words.extend(face_pacrs(arch, 4, 0xF));
            'orders: for order in [Order::OneAfterAnother, Order::Scattered, Order::Small] {
                let cell = |k: u32| {
                    let k = k & 0xFFFF;
                    let scattered = k.wrapping_mul(0x9E37).wrapping_add(0x1234) & 0xFFFF;
                    match order {
                        Order::OneAfterAnother => k,
                        Order::Scattered => scattered,
                        // Fields below 1, 2, 4 or 8, group by group.
                        Order::Small => scattered & (0xFF00 | ((1 << (k >> 4 & 3)) - 1)),
                    }
                };
                for tile in 0..64 {
                    let mut m = template.clone();
                    for row in 0..64 {
                        let vals: [u32; 16] = std::array::from_fn(|i| {
                            let k = 1024 * tile + 16 * row + i as u32;
                            // The low half: varied, for the conversions that
                            // round FP32.
                            cell(k) << 16 | cell(k.wrapping_mul(7) ^ 0x5A5A)
                        });
                        write_row(&mut m, conversion.0, row, &vals);
                    }
                    let case = format!(
                        "conversion {c} {conversion:?}, Read_raw {raw}, {order:?}, tile {tile}"
                    );
                    let (outcome, _) = same_as_per_datum_path(&mut m, &words, &case);
                    // A configuration the packer refuses (Read_raw beside an
                    // input format it would misread) is refused whatever
                    // the data: both paths alike, on the first tile.
                    if outcome.is_err() {
                        assert_eq!(
                            (tile, order),
                            (0, Order::OneAfterAnother),
                            "{case}: {outcome:?}"
                        );
                        refused.push((c, raw));
                        break 'orders;
                    }
                }
            }
        }
    }
    // Every conversion packs without Read_raw, and some with it.
    assert!(refused.iter().all(|&(_, raw)| raw), "{refused:?}");
    assert!(refused.len() < conversions.len(), "{refused:?}");
}

/// How [`every_cell_pattern_packs_to_bfp_as_on_the_per_datum_path`] lays
/// the patterns out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// Pattern `k` in place `k`: a group's cells differ in their low four
    /// bits (for BF16 and FP32, the exponent's: every shift from 0 to 15).
    OneAfterAnother,
    /// Scattered by an odd multiplier: a group mixes signs, exponents and
    /// mantissas.
    Scattered,
    /// Scattered, with the low byte cut so that every exponent field of a
    /// group (BF16's and FP32's low byte, FP16's low five bits) is below 1,
    /// 2, 4 or 8: a shared exponent small enough that the smallest elements,
    /// and those whose field is 0, keep bits.
    Small,
}
