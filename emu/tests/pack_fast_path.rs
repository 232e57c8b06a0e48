//! The row fast path against the per-datum path (DESIGN.md, oracle 2: "fast
//! path vs general path ... same input, same bytes"). Every case packs the
//! same `Dst` contents with `force_general_path` off and on and compares all
//! of L1 and the ADCs.

mod pack_util;

use pack_util::*;
use tensix_emu::adc::Unit;
use tensix_emu::isa::Pacr;
use tensix_emu::regs::CfgField as C;
use tensix_emu::state::dst::DstView;
use tensix_emu::{Arch, Machine};

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

/// (Read_32b_data, Dstacc = In_data_format, Out_data_format, bytes per
/// input datum) for conversions the fast path takes.
const FORMATS: [(bool, u32, u32, u32); 13] = [
    (false, 5, 5, 2), // BF16 -> BF16
    (false, 5, 0, 2), // BF16 -> FP32
    (false, 1, 1, 2), // FP16 -> FP16
    (false, 1, 0, 2), // FP16 -> FP32
    (false, 9, 9, 2), // INT16 -> INT16
    (true, 5, 5, 2),  // FP32 -> BF16
    (true, 0, 0, 4),  // FP32 -> FP32
    (true, 0, 1, 4),  // FP32 -> FP16
    (true, 8, 8, 4),  // INT32 -> INT32
    (false, 5, 6, 2), // BF16 -> BFP8
    (false, 6, 7, 1), // E8M6 -> BFP4
    (false, 2, 2, 1), // E5M6 -> BFP8a
    (true, 0, 15, 4), // FP32 -> BFP2
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
    // Sometimes an edge mask, which the fast path must leave to the
    // per-datum path for the rows it touches.
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
    for row in 0..40 {
        let vals: [u32; 16] = std::array::from_fn(|_| rng.datum32());
        if wide {
            m.write_dst_row(DstView::Raw32, row, &vals).unwrap();
        } else {
            let v = vals.map(|x| x >> 16);
            m.write_dst_row(DstView::Raw16, row, &v).unwrap();
        }
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
        let (fast, words) = case(arch, &mut rng);
        let mut general = fast.clone();
        general.packer.force_general_path = true;
        let mut fast = fast;
        let a = run(&mut fast, &words);
        let b = run(&mut general, &words);
        assert_eq!(a, b, "case {k}: the faults differ");
        assert!(
            fast.l1.bytes() == general.l1.bytes(),
            "case {k} ({arch}): L1 differs between the fast and per-datum paths"
        );
        assert_eq!(
            fast.adcs.values(PACK, Unit::Packers),
            general.adcs.values(PACK, Unit::Packers)
        );
        if a.is_ok() {
            compared += 1;
        }
    }
    // Most cases must actually pack (the BH ones with a column start past
    // the row end are refused on both paths).
    assert!(compared > 200, "only {compared} cases ran to completion");
}
