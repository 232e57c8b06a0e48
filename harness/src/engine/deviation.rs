//! The catalogued ways an engine departs from the ISA, each stated as a
//! counterfactual: a change to a vector after which the emulator, which
//! follows the ISA, does what the engine does.
//!
//! A difference is *explained* when some set of the engine's deviations,
//! applied to the vector that records the engine's result, makes the
//! emulator's run of it meet every expectation: every byte the engine was
//! held to is then accounted for by named rules and by nothing else. A rule
//! that does not reach the vector (no ReLU to drop, say) leaves it alone and
//! is not tried, so a rule is never named for a difference it cannot cause.
//!
//! Each rule is the counterfactual of one directory of the catalogue
//! (`conformance-vectors/engines/ENTRY/`), which states the ISA rule, cites
//! it, and reads the engine's source.

use crate::run::Workbench;
use crate::vector::{ConfigWrite, DstFormat, Vector};
use tensix_emu::format::data_format::DataFormat;
use tensix_emu::regs::CfgField;

/// One catalogued deviation.
pub struct Deviation {
    /// The engine's kind (`ttsim`, `wolfpine`, `device`).
    pub engine: &'static str,
    /// The catalogue entry: a directory under `conformance-vectors/engines/`.
    pub entry: &'static str,
    /// The counterfactual: changes `v` to what the engine effectively runs;
    /// false when `v` gives the rule nothing to change.
    pub apply: fn(&mut Vector) -> bool,
}

/// Every deviation with a counterfactual. Catalogue entries without one
/// (ttsim's) are matched by job in `known-differences.txt` instead.
pub const DEVIATIONS: &[Deviation] = &[
    Deviation {
        engine: "wolfpine",
        entry: "wolfpine-no-relu-stage",
        apply: no_relu,
    },
    Deviation {
        engine: "wolfpine",
        entry: "wolfpine-no-l1-accumulation",
        apply: no_l1_accumulation,
    },
    Deviation {
        engine: "wolfpine",
        entry: "wolfpine-fp16-denormal-kept",
        apply: read_raw,
    },
    Deviation {
        engine: "wolfpine",
        entry: "wolfpine-packer0-dst-offset-2-dropped",
        apply: packer0_offset_2_dropped,
    },
    Deviation {
        engine: "wolfpine",
        entry: "wolfpine-fp16-denormal-to-bf16",
        apply: fp16_to_bf16_rebiased,
    },
    Deviation {
        engine: "wolfpine",
        entry: "wolfpine-fp16-low-range-flushed",
        apply: fp16_low_range_flushed,
    },
    Deviation {
        engine: "wolfpine",
        entry: "wolfpine-no-exponent-threshold",
        apply: no_exponent_threshold,
    },
    Deviation {
        engine: "wolfpine",
        entry: "wolfpine-no-downsampling",
        apply: no_downsampling,
    },
    Deviation {
        engine: "wolfpine",
        entry: "wolfpine-src-row-steps-without-set-upd",
        apply: src_row_steps_always,
    },
    Deviation {
        engine: "wolfpine",
        entry: "wolfpine-int16-to-src-keeps-low-byte",
        apply: int16_high_byte_dropped,
    },
];

/// Wolfpine's packer (`framework/pe/tensix/backends/packer.py`,
/// `handle_pacr`) converts each datum and writes it: it never reads
/// `STACC_RELU_ApplyRelu`, so it packs as if ReLU were off
/// (`Packers/ReLU.md`).
fn no_relu(v: &mut Vector) -> bool {
    set_field(v, CfgField::STACC_RELU_ApplyRelu, 0)
}

/// Wolfpine's packer writes every datum over what L1 holds: it never reads
/// `Pack_L1_Acc`, so it packs as if L1 accumulation
/// (`Packers/L1Accumulation.md`) were off.
fn no_l1_accumulation(v: &mut Vector) -> bool {
    clear_all(
        v,
        [
            CfgField::THCON_SEC0_REG1_Pack_L1_Acc,
            CfgField::THCON_SEC0_REG8_Pack_L1_Acc,
            CfgField::THCON_SEC1_REG1_Pack_L1_Acc,
            CfgField::THCON_SEC1_REG8_Pack_L1_Acc,
        ],
    )
}

/// Wolfpine's packer never reads `Exp_threshold_en` (no Python file of
/// the package names it; only its register tables do), so it packs as if
/// exponent thresholding (`Packers/ExponentThresholding.md`) were off.
fn no_exponent_threshold(v: &mut Vector) -> bool {
    clear_all(
        v,
        [
            CfgField::THCON_SEC0_REG1_Exp_threshold_en,
            CfgField::THCON_SEC0_REG8_Exp_threshold_en,
            CfgField::THCON_SEC1_REG1_Exp_threshold_en,
            CfgField::THCON_SEC1_REG8_Exp_threshold_en,
        ],
    )
}

/// Wolfpine's packer never reads `Downsample_mask` (no Python file of the
/// package names it), so it packs every datum, as a mask of 0 does
/// (`Packers/Downsampling.md`).
fn no_downsampling(v: &mut Vector) -> bool {
    clear_all(
        v,
        [
            CfgField::THCON_SEC0_REG1_Downsample_mask,
            CfgField::THCON_SEC0_REG8_Downsample_mask,
            CfgField::THCON_SEC1_REG1_Downsample_mask,
            CfgField::THCON_SEC1_REG8_Downsample_mask,
        ],
    )
}

/// Wolfpine's unpacker (`flip_src_banks` in
/// `framework/pe/tensix/backends/unpacker.py`) advances `SrcRow` by
/// `16 + SrcRowBase` after every `UNPACR` that does not hand its bank over;
/// `UNPACR_Regular.md` does so only when `Unpack_Src_Reg_Set_Upd` is set,
/// a field no Python file of the package reads. The counterfactual sets it
/// for both unpackers, in a vector that issues an `UNPACR`.
fn src_row_steps_always(v: &mut Vector) -> bool {
    const UNPACR: u32 = 0x42;
    let words = v
        .program
        .iter()
        .flat_map(|p| &p.run)
        .filter_map(|s| match s {
            crate::vector::Step::Instruction(w) => Some(*w),
            _ => None,
        })
        .chain(
            v.setup
                .mop_config
                .iter()
                .flat_map(|m| m.words.iter().copied()),
        );
    if !words.into_iter().any(|w| w >> 24 == UNPACR) {
        return false;
    }
    [
        CfgField::THCON_SEC0_REG2_Unpack_Src_Reg_Set_Upd,
        CfgField::THCON_SEC1_REG2_Unpack_Src_Reg_Set_Upd,
    ]
    .into_iter()
    .fold(false, |changed, f| set_field(v, f, 1) | changed)
}

/// Wolfpine's unpacker (`formatConversion` in
/// `framework/pe/tensix/backends/unpacker.py`, case `UINT16`) writes an
/// INT16 datum to `SrcA`/`SrcB` as its low byte alone; `UNPACR_Regular.md`
/// (`FormatConversion`) puts the high byte in register bits 18:11 as well.
/// The counterfactual clears the high byte of every 16-bit word of L1 in a
/// vector with an unpacker reading INT16. (Its `Dst` arrangement differs
/// again, `(x & 0xff00) << 3`; this rule does not explain an unpack to
/// `Dst`, and the emulator's run then says so by not matching.)
fn int16_high_byte_dropped(v: &mut Vector) -> bool {
    let reads_int16 = [
        CfgField::THCON_SEC0_REG0_TileDescriptor,
        CfgField::THCON_SEC1_REG0_TileDescriptor,
    ]
    .into_iter()
    // The descriptor's first word holds InDataFormat in bits 3:0.
    .any(|descriptor| setup_value(v, descriptor) & 0xf == INT16);
    reads_int16
        && v.setup.l1.iter_mut().fold(false, |changed, range| {
            // A datum is little-endian at an even address: its high byte is
            // every byte at an odd one.
            let first_high = (range.addr & 1 == 0) as usize;
            let mut cleared = false;
            for high in range.bytes.iter_mut().skip(first_high).step_by(2) {
                cleared |= *high != 0;
                *high = 0;
            }
            cleared | changed
        })
}

/// Clear a packer field in the four places the packers keep it
/// (`THCON_SEC0`/`SEC1`, `REG1`/`REG8`: one per packer); whether any of
/// the vector's writes changed.
fn clear_all(v: &mut Vector, copies: [CfgField; 4]) -> bool {
    copies
        .into_iter()
        .fold(false, |changed, f| set_field(v, f, 0) | changed)
}

/// Wolfpine's packer never reads `PCK_DEST_RD_CTRL_Read_int8` (the ISA's
/// `Read_raw`): its early conversions from a 16-bit `Dst` are identities,
/// which is what `Read_raw = true` selects (`Packers/FormatConversion.md`);
/// a rounding conversion would flush denormals, and BF16's NaN.
fn read_raw(v: &mut Vector) -> bool {
    set_field(v, CfgField::PCK_DEST_RD_CTRL_Read_int8, 1)
}

/// Wolfpine's packer input address generator (`generate_input_address`)
/// replaces packer 0's `Dst` offset with zero when
/// `DEST_TARGET_REG_CFG_PACK_SEC0_Offset` is 2 (its comment calls this a
/// workaround for a GPR an unpacker overwrites); the ISA adds `Offset << 4`
/// datums for every value (`Packers/InputAddressGenerator.md`).
fn packer0_offset_2_dropped(v: &mut Vector) -> bool {
    let f = CfgField::DEST_TARGET_REG_CFG_PACK_SEC0_Offset;
    setup_value(v, f) == 2 && set_field(v, f, 0)
}

/// Wolfpine's FP16 → BF16 (`FP16InDstToFP32` then `>> 16`, in
/// `framework/pe/tensix/util.py`) rebiases every exponent field by 112,
/// a zero one included, and truncates the mantissa; the ISA flushes an FP16
/// denormal to zero (`Packers/FormatConversion.md`, late conversion). The
/// counterfactual gives the packer the BF16 each FP16 datum becomes that
/// way, as a BF16 `Dst` packed through the identity (`IntermediateFormat =
/// BF16`, `Read_raw`), which writes the datum unchanged.
fn fp16_to_bf16_rebiased(v: &mut Vector) -> bool {
    if setup_value(v, CfgField::THCON_SEC0_REG1_Out_data_format) != BF16
        || setup_value(v, CfgField::ALU_FORMAT_SPEC_REG2_Dstacc) != FP16
    {
        return false;
    }
    let Some(dst) = v.setup.dst.as_mut().filter(|d| d.format == DstFormat::Fp16) else {
        return false;
    };
    dst.format = DstFormat::Bf16;
    for row in &mut dst.rows {
        for x in &mut row.cells {
            let (sign, exp, man) = (*x >> 15 & 1, *x >> 10 & 0x1f, *x & 0x3ff);
            let exp = if exp == 0 { 0 } else { exp + 112 };
            *x = sign << 15 | exp << 7 | man >> 3;
        }
    }
    for f in [
        CfgField::ALU_FORMAT_SPEC_REG2_Dstacc,
        CfgField::THCON_SEC0_REG1_In_data_format,
        CfgField::THCON_SEC0_REG8_In_data_format,
        CfgField::THCON_SEC1_REG1_In_data_format,
        CfgField::THCON_SEC1_REG8_In_data_format,
    ] {
        set_field(v, f, BF16);
    }
    set_field(v, CfgField::PCK_DEST_RD_CTRL_Read_int8, 1);
    true
}

/// Wolfpine's FP32 → FP16 (`FP32ToFP16`, `framework/pe/tensix/util.py`)
/// flushes every value whose rebiased exponent is zero or less to a zero
/// that keeps its sign. The ISA's late conversion flushes only below
/// `2^-15` and keeps the truncated mantissa under a zero exponent field for
/// `2^-15 <= |x| < 2^-14`, the range `Packers/FormatConversion.md` calls
/// mishandled; the unpackers' FP32 → FP16 (`UNPACR_Regular.md`, defined by
/// ttsim) does the same. Wolfpine's packer and its unpackers
/// (`backends/unpacker.py`) both call the one function. The counterfactual
/// makes the values in that range signed zeros where they are read: the
/// `Dst` values before a pack to FP16, and the FP32 words of L1 before an
/// unpack from FP32 to FP16.
fn fp16_low_range_flushed(v: &mut Vector) -> bool {
    let packs = setup_value(v, CfgField::THCON_SEC0_REG1_Out_data_format) == FP16;
    let unpacks = [
        (
            CfgField::THCON_SEC0_REG0_TileDescriptor,
            CfgField::THCON_SEC0_REG2_Out_data_format,
        ),
        (
            CfgField::THCON_SEC1_REG0_TileDescriptor,
            CfgField::THCON_SEC1_REG2_Out_data_format,
        ),
    ]
    .into_iter()
    .any(|(descriptor, out)| {
        // The descriptor's first word holds InDataFormat in bits 3:0.
        setup_value(v, descriptor) & 0xf == FP32 && setup_value(v, out) == FP16
    });
    let in_dst = packs && v.setup.dst.as_mut().is_some_and(flush_low_range_in_dst);
    let in_l1 = unpacks
        && v.setup
            .l1
            .iter_mut()
            .fold(false, |c, r| flush_low_range_in_l1(r) | c);
    in_dst || in_l1
}

/// The FP32 (exponent field 112) or BF16 `Dst` values in `2^-15 <= |x| <
/// 2^-14` made zeros of their sign; whether any was.
fn flush_low_range_in_dst(dst: &mut crate::vector::Dst) -> bool {
    let (exp_of, sign): (fn(u32) -> u32, u32) = match dst.format {
        DstFormat::Fp32 => (|x| x >> 23 & 0xff, 1 << 31),
        DstFormat::Bf16 => (|x| x >> 7 & 0xff, 1 << 15),
        _ => return false,
    };
    let mut changed = false;
    for x in dst.rows.iter_mut().flat_map(|r| r.cells.iter_mut()) {
        if exp_of(*x) == 112 {
            *x &= sign;
            changed = true;
        }
    }
    changed
}

/// As [`flush_low_range_in_dst`] for the FP32 words of `range` (those at
/// 4-byte aligned addresses that it holds whole).
fn flush_low_range_in_l1(range: &mut crate::vector::L1Range) -> bool {
    let skip = (range.addr.wrapping_neg() & 3) as usize;
    let Some(bytes) = range.bytes.get_mut(skip..) else {
        return false;
    };
    let mut changed = false;
    for word in bytes.chunks_exact_mut(4) {
        let x = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        if x >> 23 & 0xff == 112 {
            word.copy_from_slice(&(x & 1 << 31).to_le_bytes());
            changed = true;
        }
    }
    changed
}

/// Data format codes, as the Config fields hold them.
const FP32: u32 = DataFormat::Float32 as u32;
const FP16: u32 = DataFormat::Float16 as u32;
const BF16: u32 = DataFormat::Float16B as u32;
const INT16: u32 = DataFormat::Int16 as u32;

/// The value the setup leaves in `field` in state 0
/// (zero, the reset value, when none does).
fn setup_value(v: &Vector, field: CfgField) -> u32 {
    let Some(f) = field.on(v.arch) else {
        return 0;
    };
    v.setup
        .config
        .iter()
        .rev()
        .find(|w| w.addr == u32::from(f.addr32) && w.state == 0)
        .map_or(0, |w| f.extract(w.value))
}

/// Set `field` to `value` in every setup write to its word, in both Config
/// states; when no write reaches the word and `value` is not the reset
/// value (zero), add a write of it to state 0. Whether anything changed.
fn set_field(v: &mut Vector, field: CfgField, value: u32) -> bool {
    let Some(f) = field.on(v.arch) else {
        return false;
    };
    let addr = u32::from(f.addr32);
    let mut changed = false;
    let mut written = false;
    for w in v.setup.config.iter_mut().filter(|w| w.addr == addr) {
        written = true;
        let new = f.insert(w.value, value);
        changed |= new != w.value;
        w.value = new;
    }
    let alone = f.insert(0, value);
    if !written && alone != 0 {
        v.setup.config.push(ConfigWrite {
            addr,
            value: alone,
            state: 0,
        });
        changed = true;
    }
    changed
}

/// Whether any catalogued deviation of `engine` (its kind) has a
/// counterfactual.
pub fn has_counterfactuals(engine: &str) -> bool {
    DEVIATIONS.iter().any(|d| d.engine == engine)
}

/// What a campaign records for a difference on `engine` (its kind): the
/// entries [`explain`] finds, empty when none reproduce it, or `None` when
/// the engine has no counterfactuals to try.
pub fn entries(bench: &mut Workbench, recorded: &Vector, engine: &str) -> Option<Vec<String>> {
    has_counterfactuals(engine).then(|| {
        explain(bench, recorded, engine)
            .unwrap_or_default()
            .into_iter()
            .map(String::from)
            .collect()
    })
}

/// The most rules of one engine [`explain`] combines (`2^10 - 1` sets, of
/// which only those of the rules that reach the vector are tried); a test
/// keeps the catalogue within it.
const MAX_RULES: usize = 10;

/// The smallest set of `engine`'s deviations (fewest rules, then catalogue
/// order) under which the emulator meets every expectation of `recorded`,
/// a vector whose `expect` is what the engine did. `None` when no set does,
/// or when the emulator meets it unchanged (then there is nothing to
/// explain).
pub fn explain(
    bench: &mut Workbench,
    recorded: &Vector,
    engine: &str,
) -> Option<Vec<&'static str>> {
    let passes = |bench: &mut Workbench, v: &Vector| {
        bench.run_vector(v).map(|o| o.passed()).unwrap_or(false)
    };
    if passes(bench, recorded) {
        return None;
    }
    // Only the rules that reach this vector; a set of them is tried in
    // one counterfactual vector.
    let rules: Vec<&Deviation> = DEVIATIONS
        .iter()
        .filter(|d| d.engine == engine && (d.apply)(&mut recorded.clone()))
        .collect();
    let n = rules.len().min(MAX_RULES);
    let mut sets: Vec<u32> = (1..1u32 << n).collect();
    // Fewest rules first; among as many, the earliest in the catalogue.
    sets.sort_by_key(|s| (s.count_ones(), std::cmp::Reverse(s.reverse_bits())));
    sets.into_iter().find_map(|set| {
        let mut v = recorded.clone();
        let chosen: Vec<&Deviation> = (0..n)
            .filter(|i| set >> i & 1 == 1)
            .map(|i| rules[i])
            .collect();
        for d in &chosen {
            (d.apply)(&mut v);
        }
        passes(bench, &v).then(|| chosen.iter().map(|d| d.entry).collect())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::Vector;

    fn corpus(rel: &str) -> Vector {
        Vector::load(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../conformance-vectors")
                .join(rel),
        )
        .unwrap()
    }

    /// The vectors that record Wolfpine in `entry`'s directory, one per
    /// architecture it was recorded on.
    fn entry_vectors(entry: &str) -> Vec<Vector> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../conformance-vectors/engines")
            .join(entry);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("wolfpine-") && n.ends_with(".yaml"))
            .collect();
        names.sort();
        names
            .iter()
            .map(|n| corpus(&format!("engines/{entry}/{n}")))
            .collect()
    }

    /// Each entry's minimal vectors record what Wolfpine did; its own
    /// counterfactual, and no other, makes the emulator do the same. Every
    /// Wolfpine rule has at least one.
    #[test]
    fn each_wolfpine_entry_explains_its_own_vector() {
        for d in DEVIATIONS.iter().filter(|d| d.engine == "wolfpine") {
            let vectors = entry_vectors(d.entry);
            assert!(!vectors.is_empty(), "{}: no recorded vector", d.entry);
            for v in vectors {
                assert_eq!(
                    explain(&mut Workbench::new(), &v, "wolfpine"),
                    Some(vec![d.entry]),
                    "{}",
                    v.name
                );
            }
        }
    }

    #[test]
    fn every_engine_has_few_enough_rules_for_every_set_to_be_tried() {
        for d in DEVIATIONS {
            let n = DEVIATIONS.iter().filter(|e| e.engine == d.engine).count();
            assert!(n <= MAX_RULES, "{}: {n} rules", d.engine);
        }
    }

    #[test]
    fn a_difference_no_rule_reproduces_is_not_explained() {
        let mut v = corpus("engines/wolfpine-no-relu-stage/wolfpine-wormhole_b0.yaml");
        let r = &mut v.expect.l1.as_mut().unwrap()[0];
        r.bytes[0] ^= 0x40;
        assert_eq!(explain(&mut Workbench::new(), &v, "wolfpine"), None);
        // Nor by another engine's rules.
        let v = corpus("engines/wolfpine-no-relu-stage/wolfpine-wormhole_b0.yaml");
        assert_eq!(explain(&mut Workbench::new(), &v, "ttsim"), None);
    }

    #[test]
    fn an_engine_without_counterfactuals_is_not_tried() {
        let v = corpus("engines/wolfpine-no-relu-stage/wolfpine-wormhole_b0.yaml");
        let mut bench = Workbench::new();
        assert_eq!(entries(&mut bench, &v, "ttsim"), None);
        assert_eq!(
            entries(&mut bench, &v, "wolfpine"),
            Some(vec!["wolfpine-no-relu-stage".to_string()])
        );
    }

    #[test]
    fn a_vector_the_emulator_meets_needs_no_explaining() {
        let v = corpus("isa-spec/wormhole_b0/pack/packer-mask-zero-means-packer-0.yaml");
        assert!(crate::run::run_vector(&v).unwrap().passed());
        assert_eq!(explain(&mut Workbench::new(), &v, "wolfpine"), None);
    }

    #[test]
    fn the_src_row_rule_reaches_only_vectors_that_unpack() {
        let mut pack = corpus("isa-spec/wormhole_b0/pack/packer-mask-zero-means-packer-0.yaml");
        assert!(!src_row_steps_always(&mut pack));
        let mut v = corpus(
            "engines/wolfpine-src-row-steps-without-set-upd/wolfpine-wormhole_b0-unpack.yaml",
        );
        assert!(src_row_steps_always(&mut v));
        for f in [
            CfgField::THCON_SEC0_REG2_Unpack_Src_Reg_Set_Upd,
            CfgField::THCON_SEC1_REG2_Unpack_Src_Reg_Set_Upd,
        ] {
            assert_eq!(setup_value(&v, f), 1);
        }
        assert!(!src_row_steps_always(&mut v), "already set");
    }

    /// Wolfpine wrote FP16 `0x025d` (a denormal) as BF16 `0x004b`
    /// (`wolfpine-fp16-denormal-to-bf16/README.md`).
    #[test]
    fn an_fp16_denormal_becomes_the_bf16_wolfpine_wrote() {
        let mut v = corpus("engines/wolfpine-fp16-denormal-to-bf16/wolfpine-wormhole_b0.yaml");
        let d = v.setup.dst.as_mut().unwrap();
        d.rows[0].cells[0] = 0x025d;
        assert!(fp16_to_bf16_rebiased(&mut v));
        let d = v.setup.dst.as_ref().unwrap();
        assert_eq!(d.format, DstFormat::Bf16);
        assert_eq!(d.rows[0].cells[0], 0x004b);
        assert!(!fp16_to_bf16_rebiased(&mut v), "already BF16");
    }

    #[test]
    fn only_the_range_fp16_mishandles_is_flushed() {
        let mut v = corpus("engines/wolfpine-fp16-denormal-kept/wolfpine-wormhole_b0.yaml");
        assert!(
            !fp16_low_range_flushed(&mut v),
            "an FP16 Dst is not touched"
        );
        set_field(&mut v, CfgField::THCON_SEC0_REG1_Out_data_format, 1);
        assert_eq!(
            setup_value(&v, CfgField::THCON_SEC0_REG1_Out_data_format),
            1
        );
        let d = v.setup.dst.as_mut().unwrap();
        d.format = DstFormat::Fp32;
        // 2^-15 and just under 2^-14 (negative) flush; 2^-14 and 2^-16 stay.
        d.rows[0].cells[..4].copy_from_slice(&[0x3800_0000, 0xb87f_ffff, 0x3880_0000, 0x3780_0000]);
        assert!(fp16_low_range_flushed(&mut v));
        let d = v.setup.dst.as_ref().unwrap();
        assert_eq!(
            d.rows[0].cells[..4],
            [0, 0x8000_0000, 0x3880_0000, 0x3780_0000]
        );
    }

    #[test]
    fn an_unpack_from_fp32_to_fp16_flushes_the_aligned_l1_words_in_the_range() {
        let mut v =
            corpus("engines/wolfpine-fp16-low-range-flushed/wolfpine-wormhole_b0-unpack.yaml");
        let words = [0x3800_0000u32, 0xb87f_ffff, 0x3880_0000, 0x3780_0000];
        // The range starts 2 bytes past a word boundary: its first two
        // bytes belong to a word outside it and stay as they are.
        let mut bytes = vec![0x00, 0x38];
        bytes.extend(words.iter().flat_map(|w| w.to_le_bytes()));
        v.setup.l1 = vec![crate::vector::L1Range {
            addr: 0x1002,
            bytes,
        }];
        set_field(&mut v, CfgField::THCON_SEC0_REG2_Out_data_format, 5);
        assert!(
            !fp16_low_range_flushed(&mut v),
            "an unpack to BF16 is not touched"
        );
        set_field(&mut v, CfgField::THCON_SEC0_REG2_Out_data_format, FP16);
        assert!(fp16_low_range_flushed(&mut v));
        // 2^-15 and just under 2^-14 (negative) flush; 2^-14 and 2^-16 stay.
        let got: Vec<u32> = v.setup.l1[0].bytes[2..]
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        assert_eq!(got, [0, 0x8000_0000, 0x3880_0000, 0x3780_0000]);
        assert_eq!(v.setup.l1[0].bytes[..2], [0x00, 0x38]);
    }

    #[test]
    fn an_int16_unpack_loses_the_high_byte_of_each_datum() {
        let mut v =
            corpus("engines/wolfpine-int16-to-src-keeps-low-byte/wolfpine-wormhole_b0-unpack.yaml");
        // The range starts at an odd address: its first byte is the high
        // byte of the datum at 0x2000, the last the low byte of 0x2006's.
        v.setup.l1 = vec![crate::vector::L1Range {
            addr: 0x2001,
            bytes: vec![0x7f, 0xff, 0x3f, 0x80, 0x00, 0x12],
        }];
        assert!(int16_high_byte_dropped(&mut v));
        assert_eq!(v.setup.l1[0].bytes, [0x00, 0xff, 0x00, 0x80, 0x00, 0x12]);
        assert!(!int16_high_byte_dropped(&mut v), "nothing left to clear");

        let mut pack = corpus("isa-spec/wormhole_b0/pack/packer-mask-zero-means-packer-0.yaml");
        pack.setup.l1 = vec![crate::vector::L1Range {
            addr: 0x2000,
            bytes: vec![0xff; 4],
        }];
        assert!(
            !int16_high_byte_dropped(&mut pack),
            "no unpacker reads INT16"
        );
        assert_eq!(pack.setup.l1[0].bytes, [0xff; 4]);
    }

    #[test]
    fn a_field_is_set_in_every_write_to_its_word_and_added_when_unwritten() {
        let mut v = corpus("engines/wolfpine-no-relu-stage/wolfpine-wormhole_b0.yaml");
        let f = CfgField::STACC_RELU_ApplyRelu.on(v.arch).unwrap();
        let relu = |v: &Vector| {
            v.setup
                .config
                .iter()
                .filter(|w| w.addr == u32::from(f.addr32))
                .map(|w| f.extract(w.value))
                .collect::<Vec<_>>()
        };
        assert!(
            relu(&v).iter().any(|&m| m != 0),
            "the entry's vector uses ReLU"
        );
        assert!(no_relu(&mut v));
        assert!(relu(&v).iter().all(|&m| m == 0));
        assert!(!no_relu(&mut v), "nothing left to change");

        let raw = CfgField::PCK_DEST_RD_CTRL_Read_int8.on(v.arch).unwrap();
        v.setup.config.retain(|w| w.addr != u32::from(raw.addr32));
        assert!(read_raw(&mut v));
        let w = v.setup.config.last().unwrap();
        assert_eq!((w.addr, w.state), (u32::from(raw.addr32), 0));
        assert_eq!(raw.extract(w.value), 1);
    }
}
