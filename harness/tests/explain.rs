//! `explain` and `trace` against values worked out by hand from the vectors
//! and the pages they cite, never from the emulator's output.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use tensix_harness::explain::{self, Target};
use tensix_harness::trace::{self, Observed, Selection};
use tensix_harness::vector::Vector;

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-vectors")
}

fn load(rel: &str) -> Vector {
    Vector::load(vectors().join(rel)).unwrap()
}

/// The explain JSON for `rel` and `target`.
fn explained(rel: &str, target: Target) -> Value {
    let v = load(rel);
    let o = Observed::run(&v).unwrap();
    explain::json(&v, &o, target)
}

/// The one datum explained, and the value of each named stage.
fn only_datum(j: &Value) -> &Value {
    let d = j["datums"].as_array().unwrap();
    assert_eq!(d.len(), 1, "{j:#}");
    &d[0]
}

fn stage<'a>(d: &'a Value, name: &str) -> (&'a str, &'a str) {
    let s = d["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stage"].as_str().unwrap().starts_with(name))
        .unwrap_or_else(|| panic!("no stage {name}: {d:#}"));
    (s["value"].as_str().unwrap(), s["decoded"].as_str().unwrap())
}

const PACK: &str = "isa-spec/blackhole/pack";

/// Early conversion, ReLU, late conversion and the L1 bytes:
/// FP32 0x40400001 (3 + 2^-22) is above the BF16 threshold 0x4040 (3.0),
/// so ReLU mode 3 gives 0x40400000 (Packers/ReLU.md), which an FP32 -> FP32
/// pack writes as the bytes 00 00 40 40 at the first output address
/// ((L1_Dest_addr 0x1000 + 1) * 16).
#[test]
fn relu_clamps_and_the_bytes_land_at_the_output_address() {
    let j = explained(
        &format!("{PACK}/relu-max-threshold-fp32-full-precision.yaml"),
        Target::l1("0x10010..0x10014").unwrap(),
    );
    let d = only_datum(&j);
    assert_eq!(d["kind"], "pack");
    assert!(stage(d, "Dst row 0 col 0").1.contains("as Dst stores it"));
    assert_eq!(
        stage(d, "early conversion"),
        ("0x40400001", "FP32 +80.400001")
    );
    assert_eq!(stage(d, "edge mask").0, "pass");
    assert_eq!(stage(d, "ReLU"), ("0x40400000", "FP32 +80.400000"));
    assert_eq!(stage(d, "exponent threshold").0, "0x40400000");
    assert_eq!(stage(d, "downsampling").0, "kept");
    assert_eq!(stage(d, "late conversion").0, "0x40400000");
    assert_eq!(stage(d, "L1 accumulation").0, "off");
    assert_eq!(d["l1"]["addr"], "0x10010");
    assert_eq!(d["l1"]["actual"], "00 00 40 40");
    assert_eq!(d["l1"]["expected"], "00 00 40 40");
}

/// Exponent thresholding: BF16 0xbf00 (-0.5) has exponent 0x7e, below the
/// threshold 127, and becomes 0 (Packers/ExponentThresholding.md).
#[test]
fn exponent_threshold_zeroes_a_small_datum() {
    let j = explained(
        &format!("{PACK}/exp-threshold-bf16.yaml"),
        Target::dst("0,1").unwrap(),
    );
    let d = only_datum(&j);
    assert_eq!(stage(d, "early conversion"), ("0xbf00", "BF16 -7E.00"));
    assert_eq!(stage(d, "ReLU").0, "0xbf00");
    assert_eq!(stage(d, "exponent threshold"), ("0x0000", "BF16 +00.00"));
    assert_eq!(d["l1"]["actual"], "00 00");
}

/// Downsampling with mask 0x5555 keeps even columns and drops odd ones.
#[test]
fn downsampling_drops_odd_columns() {
    let rel = format!("{PACK}/downsample-even-columns.yaml");
    let odd = explained(&rel, Target::dst("0,1").unwrap());
    let d = only_datum(&odd);
    assert_eq!(stage(d, "downsampling").0, "dropped");
    assert!(d["l1"].is_null(), "a dropped datum goes nowhere: {d:#}");
    let even = explained(&rel, Target::dst("0,2").unwrap());
    assert_eq!(stage(only_datum(&even), "downsampling").0, "kept");
}

/// Edge masking: Dst row 1 is tile row 1, whose mask is 0x00ff; column 8 is
/// masked and becomes zero (PCK_EDGE_MODE_mode = 0), column 0 passes.
#[test]
fn edge_mask_replaces_a_masked_column() {
    let rel = format!("{PACK}/edge-mask-row-set-zero.yaml");
    let j = explained(&rel, Target::dst("1,8").unwrap());
    let d = only_datum(&j);
    let (v, dec) = stage(d, "edge mask");
    assert_eq!(v, "0x0000");
    assert!(dec.starts_with("masked"), "{dec}");
    assert_eq!(d["l1"]["actual"], "00 00");
    let j = explained(&rel, Target::dst("1,0").unwrap());
    assert_eq!(stage(only_datum(&j), "edge mask").0, "pass");
}

/// Zero compression: the zero at column 1 is folded into the zero run of
/// the datum before it; the 2.0 at column 3 is stored.
#[test]
fn compression_elides_zeros_and_stores_the_rest() {
    let rel = format!("{PACK}/zero-compression-one-row.yaml");
    let j = explained(&rel, Target::dst("0,1").unwrap());
    assert_eq!(stage(only_datum(&j), "compression").0, "elided");
    let j = explained(&rel, Target::dst("0,3").unwrap());
    let d = only_datum(&j);
    assert_eq!(stage(d, "early conversion"), ("0x4000", "BF16 +80.00"));
    assert_eq!(stage(d, "compression").0, "stored");
}

/// L1 accumulation: 1.0 in L1 plus 1.0 from Dst is 2.0, bytes 00 40.
#[test]
fn l1_accumulation_is_named_with_the_sum() {
    let j = explained(
        &format!("{PACK}/l1-accumulate-keeps-bytes-past-the-last-datum.yaml"),
        Target::l1("0x10010").unwrap(),
    );
    let d = only_datum(&j);
    let (on, how) = stage(d, "L1 accumulation");
    assert_eq!(on, "on");
    // The setup put 1.0 (bytes 80 3f) at 0x10010.
    assert!(how.contains("added to the 80 3f"), "{how}");
    assert_eq!(d["l1"]["actual"], "00 40");
}

/// A BFP8_b failure: the ttsim vector's group 0 is Dst row 0 of BF16
/// datums; its shared exponent is the largest exponent field of the 16,
/// and each magnitude is the mantissa with its hidden bit shifted right by
/// (shared - own) and rounded half away from zero to seven bits (the
/// reference README's device facts), worked out here from the vector's
/// own Dst row. One expected byte is then changed, so the gate fails, points
/// at `explain`, and `explain` shows the group.
#[test]
fn a_bfp8_failure_shows_the_group_and_the_rounding() {
    let src = vectors().join("ttsim/blackhole/pack/d16-bf16-to-bfp8b-0090.yaml");
    let v = Vector::load(&src).unwrap();
    let mut row = v.setup.dst.as_ref().unwrap().rows[0];
    assert_eq!(row.row, 0);
    // Config word 2 is 0x8: STACC_RELU_ApplyRelu = 2 with threshold 0, so
    // every datum <= 0 becomes 0 before the group forms (Packers/ReLU.md).
    assert!(v.setup.config.iter().any(|c| c.addr == 2 && c.value == 0x8));
    for c in row.cells.iter_mut() {
        if *c & 0x8000 != 0 {
            *c = 0;
        }
    }
    let exps: Vec<u32> = row.cells.iter().map(|c| (c >> 7) & 0xff).collect();
    let shared = *exps.iter().max().unwrap();
    let set_by = exps.iter().position(|e| *e == shared).unwrap();
    let magnitude = |i: usize| {
        let c = row.cells[i];
        let e = (c >> 7) & 0xff;
        let m = (c & 0x7f) | if e != 0 { 0x80 } else { 0 };
        let shift = shared - e;
        if shift >= 8 {
            0
        } else {
            ((m + (1 << shift)) >> (shift + 1)).min(127)
        }
    };
    // Datum 1 of the group lands one byte after the group's first datum
    // byte, 16 bytes after the exponent section at the packer's address.
    let exp_addr = v.expect.l1.as_ref().unwrap()[0].addr;
    let data_addr = exp_addr + 16;
    let target = data_addr + 1;
    let want = magnitude(1) as u8 | if row.cells[1] & 0x8000 != 0 { 0x80 } else { 0 };

    let dir = common::scratch("explain", "bfp8");
    let mut broken = v.clone();
    let r = &mut broken.expect.l1.as_mut().unwrap()[0];
    let at = (target - r.addr) as usize;
    r.bytes[at] ^= 1;
    let path = dir.join("bfp8.yaml");
    std::fs::write(&path, broken.to_yaml()).unwrap();

    let gate = std::process::Command::new(env!("CARGO_BIN_EXE_tensix-harness"))
        .arg("run")
        .arg(&dir)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&gate.stdout);
    assert_eq!(gate.status.code(), Some(1), "{report}");
    let hint = format!("tensix-harness explain {} --l1 {target:#x}", path.display());
    assert!(report.contains(&hint), "{report}");

    let o = Observed::run(&broken).unwrap();
    let j = explain::json(&broken, &o, Target::l1(&format!("{target:#x}")).unwrap());
    let d = only_datum(&j);
    let g = &d["bfp_group"];
    assert_eq!(g["shared_exp"], format!("{shared:#04x}"));
    assert_eq!(g["set_by"], set_by);
    assert_eq!(g["slot"], 1);
    assert_eq!(g["exponents"], serde_json::json!(exps));
    assert_eq!(d["l1"]["actual"], format!("{want:02x}"));
    assert_eq!(d["l1"]["expected"], format!("{:02x}", want ^ 1));
    let (value, how) = stage(d, "BFP rounding");
    assert_eq!(value, format!("{want:#04x}"));
    assert!(
        how.contains(&format!("shifted right {}", shared - exps[1])),
        "{how}"
    );
    let human = explain::human(&broken, &o, Target::l1(&format!("{target:#x}")).unwrap());
    assert!(
        human.contains(&format!("the vector expects {:02x}", want ^ 1)),
        "{human}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An unpack: the datum written to SrcA bank 0 row 0 col 3 is the one the
/// vector expects there, and the L1 byte it came from is the vector's own.
#[test]
fn an_unpacked_datum_shows_the_l1_bytes_and_the_conversion() {
    let rel = "ttsim/blackhole/unpack/bfp8b-to-srca-0407.yaml";
    let v = load(rel);
    let j = explained(rel, Target::src("0,0,3", false).unwrap());
    let d = only_datum(&j);
    assert_eq!(d["kind"], "unpack");
    let read = d["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stage"].as_str().unwrap().starts_with("L1 "))
        .unwrap();
    let name = read["stage"].as_str().unwrap();
    let addr = u32::from_str_radix(
        name.trim_start_matches("L1 0x").split(' ').next().unwrap(),
        16,
    )
    .unwrap();
    let setup_byte = v
        .setup
        .l1
        .iter()
        .find(|r| addr >= r.addr && u64::from(addr) < r.end())
        .map(|r| r.bytes[(addr - r.addr) as usize])
        .unwrap_or(v.setup.l1_fill);
    assert_eq!(read["value"], format!("{setup_byte:#x}"));
    let want = v.expect.srca.as_ref().unwrap()[0].cells[3];
    assert_eq!(stage(d, "written").0, format!("{want:#x}"));
    assert_eq!(stage(d, "written").1, "SrcA bank 0 row 0 col 3");
    assert!(stage(d, "conversion").1.starts_with("Src cell"));
    // SrcA row 0 is output row 4: UNPACR_Regular.md drops four header rows
    // (`Row -= 4`), so column 3 of it is OutAddr 4 * 16 + 3.
    assert_eq!(stage(d, "output address").0, "67");
}

const UNPACK: &str = "isa-spec/blackhole/unpack";

/// Compressed input (the vector's provenance gives the layout): RSI
/// [0, 20, 33] selects row 1, 13 datums from datum 20, which sits 40 bytes
/// into the data after the 16-byte RSI block at 0x10220 + 16: L1 0x10258,
/// bytes a4 c0. Its 4-bit zero count is nibble 20 of the counts that
/// follow the group's 64 data bytes (0x10270): byte 10 (0x1f), low nibble
/// 15. BF16 0xc0a4 in a Src cell is 0xc0a4 << 3 (SrcASrcB.md); OutAddr
/// 4 * 32 / 2 = 64 is SrcA row 0 after the four header rows.
#[test]
fn a_compressed_unpack_shows_the_descriptor_and_the_zero_run() {
    let j = explained(
        &format!("{UNPACK}/decompress-whole-row-to-srca.yaml"),
        Target::src("0,0,0", false).unwrap(),
    );
    let d = only_datum(&j);
    let (count, desc) = stage(d, "descriptor");
    assert_eq!(count, "13 datums");
    assert!(desc.contains("datums from 0x10258"), "{desc}");
    assert!(desc.contains("zero-run counts from 0x1027a"), "{desc}");
    assert_eq!(stage(d, "L1 0x10258"), ("0xc0a4", "16 bits read"));
    let (zeroes, at) = stage(d, "zero run");
    assert_eq!(zeroes, "15");
    assert!(at.ends_with("count read at L1 0x1027a"), "{at}");
    assert_eq!(stage(d, "conversion").0, "0x60520");
    assert_eq!(stage(d, "output address").0, "64");
    assert_eq!(stage(d, "written"), ("0x60520", "SrcA bank 0 row 0 col 0"));
}

/// BFP8a: datum 16 (L1 0x10020 + 16 = 0x10030, byte 0x7f) takes the second
/// exponent byte of the section at 0x10010 (0x14 = 20). Mag 0x7f << 1 =
/// 0xfe has no leading zero: FP16 exponent 20, mantissa 0x7e << 3 = 0x3f0,
/// so 0x53f0 (FloatBitPatterns.md, BFP8aToFP16), the Src cell the vector
/// expects at SrcA row 1 column 0.
#[test]
fn a_bfp_unpack_names_the_exponent_byte() {
    let j = explained(
        &format!("{UNPACK}/bfp8a-to-srca.yaml"),
        Target::src("0,1,0", false).unwrap(),
    );
    let d = only_datum(&j);
    assert!(stage(d, "descriptor")
        .1
        .contains("exponent section from 0x10010"));
    assert_eq!(stage(d, "L1 0x10030"), ("0x7f", "8 bits read"));
    assert_eq!(
        stage(d, "BFP exponent"),
        ("0x14", "the group's shared exponent, L1 byte 0x10011")
    );
    assert_eq!(stage(d, "written"), ("0x53f0", "SrcA bank 0 row 1 col 0"));
}

/// Upsampling, haloize, column shift and tilize appear in the placement
/// stage, with the datums the vectors' provenance places there.
#[test]
fn placement_names_upsampling_and_haloize() {
    let j = explained(
        &format!("{UNPACK}/upsample-inserts-zeroes.yaml"),
        Target::src("0,0,0", false).unwrap(),
    );
    let (_, how) = stage(only_datum(&j), "placement");
    assert!(
        how.contains("upsampling: 1 position after each datum written as zero"),
        "{how}"
    );
    let j = explained(
        &format!("{UNPACK}/haloize-transposes-srca.yaml"),
        Target::src("0,0,1", false).unwrap(),
    );
    let (_, how) = stage(only_datum(&j), "placement");
    assert!(how.contains("haloize"), "{how}");
    // Column shift 3: SrcA column 0 holds datum 3 (L1 0x10010 + 3 * 2),
    // output address 64 + 3.
    let j = explained(
        &format!("{UNPACK}/column-shift-drops-leading-columns.yaml"),
        Target::src("0,0,0", false).unwrap(),
    );
    let d = only_datum(&j);
    assert!(stage(d, "placement").1.contains("column shift 3"));
    assert_eq!(stage(d, "L1 0x10016").1, "16 bits read");
    assert_eq!(stage(d, "output address").0, "67");
    // Tilize: the second row of 16 FP8 datums starts RowStride = 64 bytes
    // after the first (L1 0x10010 + 64), output address 64 + 16.
    let j = explained(
        &format!("{UNPACK}/tilize-fp8-discontiguous-rows.yaml"),
        Target::src("0,1,0", false).unwrap(),
    );
    let d = only_datum(&j);
    assert!(stage(d, "placement").1.contains("tilize"));
    assert_eq!(stage(d, "L1 0x10050").1, "8 bits read");
    assert_eq!(stage(d, "output address").0, "80");
}

/// `trace`: the two instructions of a pack vector, the packer ADC's X end
/// after SETADCXX (x_end2 = 3 on channel 1), and PACR's one 16-byte write.
#[test]
fn trace_lists_instructions_adcs_and_writes() {
    let v = load(&format!(
        "{PACK}/l1-accumulate-keeps-bytes-past-the-last-datum.yaml"
    ));
    let o = Observed::run(&v).unwrap();
    let j = trace::json(&v, &o, Selection::default());
    assert_eq!(j["schema"], "tensix-trace/1");
    let insns = j["instructions"].as_array().unwrap();
    assert_eq!(insns.len(), 2);
    assert_eq!(insns[0]["word"], "0x5e800c00");
    assert!(insns[0]["text"].as_str().unwrap().starts_with("SETADCXX"));
    assert_eq!(insns[0]["adcs"]["packers"][1][0], 3);
    assert_eq!(insns[0]["l1_writes"].as_array().unwrap().len(), 0);
    let w = insns[1]["l1_writes"].as_array().unwrap();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0]["addr"], "0x10010");
    // 2.0, 3.0, 2.0, 6.0, then L1's 0.5, 0.25, -1, 8 (the vector's detail).
    assert_eq!(w[0]["bytes"], "004040400040c040003f803e80bf0041");
    let only_t0 = trace::json(
        &v,
        &o,
        Selection {
            thread: Some(0),
            ..Selection::default()
        },
    );
    assert_eq!(only_t0["instructions"].as_array().unwrap().len(), 0);
    let human = trace::human(&v, &o, Selection::default());
    assert!(
        human.contains("L1 0x010010 <- 004040400040c040003f803e80bf0041  data"),
        "{human}"
    );
}

/// Each L1 write names its stream. The vectors' provenance places them:
/// zero compression's row start indices at the first output address
/// (0x10010) and its data one unit later; BFP8a's exponent byte at the
/// first address and its datums one unit later.
#[test]
fn trace_names_the_stream_of_each_write() {
    let streams = |rel: &str| -> Vec<(String, String)> {
        let v = load(&format!("{PACK}/{rel}"));
        let o = Observed::run(&v).unwrap();
        let j = trace::json(&v, &o, Selection::default());
        j["instructions"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|i| i["l1_writes"].as_array().unwrap().clone())
            .map(|w| {
                (
                    w["addr"].as_str().unwrap().to_string(),
                    w["stream"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let rsi = streams("zero-compression-one-row.yaml");
    assert!(
        rsi.contains(&("0x10010".into(), "row-start".into())),
        "{rsi:?}"
    );
    assert!(rsi.contains(&("0x10020".into(), "data".into())), "{rsi:?}");
    let mut bfp = streams("fp16-to-bfp8a.yaml");
    bfp.sort();
    assert_eq!(
        bfp,
        vec![
            ("0x10010".to_string(), "exponent".to_string()),
            ("0x10020".to_string(), "data".to_string())
        ]
    );
}

/// The exponent histogram (ThreadConfig `ENABLE_ACC_STATS_Enable`) counts
/// each datum from Dst in the bin of its exponent's low five bits: BF16
/// -0.5 has exponent 0x7e (126), bin 30.
#[test]
fn the_histogram_bin_is_named() {
    let text = std::fs::read_to_string(vectors().join(format!("{PACK}/exp-threshold-bf16.yaml")))
        .unwrap()
        .replace(
            "thread_config: []",
            "thread_config:\n    - {thread: 2, ENABLE_ACC_STATS_Enable: 1}",
        );
    let v = Vector::from_yaml_str(&text, "hist.yaml").unwrap();
    let o = Observed::run(&v).unwrap();
    let j = explain::json(&v, &o, Target::dst("0,1").unwrap());
    assert_eq!(stage(only_datum(&j), "exponent histogram").0, "bin 30");
}

/// `trace` names the MOP word an expanded instruction came from: in this
/// vector, program entry 1 is the MOP 0x01100000 and the instructions
/// executed at that entry are its expansion, not the word itself.
#[test]
fn trace_names_the_mop_an_instruction_came_from() {
    let v = load("isa-spec/blackhole/mop/template0-mask-hi-from-mop-cfg.yaml");
    assert_eq!(
        v.program[0].run[1],
        tensix_harness::vector::Step::Instruction(0x0110_0000)
    );
    let o = Observed::run(&v).unwrap();
    let j = trace::json(&v, &o, Selection::default());
    let insns = j["instructions"].as_array().unwrap();
    assert!(!insns.is_empty());
    for i in insns.iter().filter(|i| i["entry"] == 1) {
        assert_ne!(i["word"], "0x01100000");
        assert_eq!(i["expanded_from"]["word"], "0x01100000", "{i:#}");
        assert!(i["expanded_from"]["text"]
            .as_str()
            .unwrap()
            .starts_with("MOP"));
    }
}

/// Asking about a BFP exponent byte explains the datum that set it: in the
/// docs' worked example that is 8.0 (BF16 0x4100, exponent 0x82), column 9
/// of the row.
#[test]
fn an_exponent_byte_is_explained_by_the_datum_that_set_it() {
    let v = Vector::load(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/example-bf16-row-to-bfp8b.yaml"),
    )
    .unwrap();
    let o = Observed::run(&v).unwrap();
    let j = explain::json(&v, &o, Target::l1("0x10010").unwrap());
    let d = only_datum(&j);
    assert!(stage(d, "Dst row 0 col 9").1.contains("Dst"));
    assert_eq!(stage(d, "early conversion"), ("0x4100", "BF16 +82.00"));
    assert_eq!(d["bfp_group"]["shared_exp"], "0x82");
    assert_eq!(d["bfp_group"]["set_by"], 9);
}
