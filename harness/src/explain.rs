//! `tensix-harness explain`: the chain of stages behind selected datums, from
//! the emulator's own record of the run ([`tensix_emu::observe`]).
//!
//! Values are printed in hex and split as TestFloat prints floats: sign,
//! biased exponent in hex, a dot, the stored mantissa in hex
//! (`+7F.00` is BF16 1.0).
//!
//! JSON shape (`--format json`), schema `tensix-explain/1`:
//!
//! ```text
//! { "schema": "tensix-explain/1", "vector": NAME, "target": "--l1 0x10010",
//!   "datums": [
//!     { "kind": "pack" | "unpack", "instruction": 1, "unit": 0,
//!       "stages": [ { "stage": "early conversion", "value": "0x3f80",
//!                     "decoded": "BF16 +7F.00" } ],
//!       "bfp_group": null | { "shared_exp": "0x7f", "set_by": 3,
//!                     "exponents": [...16], "datums": [...16] },
//!       "l1": null | { "addr": "0x10010", "actual": "803f",
//!                      "expected": "803f" | null } } ],
//!   "fault": null | { "kind": ..., "message": ... } }
//! ```

use crate::trace::Observed;
use crate::vector::Vector;
use std::fmt::Write as _;
use tensix_emu::format::pack::Intermediate;
use tensix_emu::observe::{
    BfpGroupRecord, ExponentSource, PackDatum, PackSource, UnpackCell, UnpackDatum, UnpackPlan,
};
use tensix_emu::pack::late::Converted;

/// What to explain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// L1 bytes `start..end`.
    L1 { start: u32, end: u32 },
    /// A `Dst` row (as the packer or unpacker addresses it), one column or
    /// all.
    Dst { row: u32, col: Option<u32> },
    /// A `SrcA` (`b` false) or `SrcB` cell.
    Src {
        b: bool,
        bank: u8,
        row: u32,
        col: Option<u32>,
    },
}

fn number(s: &str) -> Result<u32, String> {
    crate::vector::parse_int(s)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("`{}` is not a 32-bit number", s.trim()))
}

impl Target {
    /// `--l1 ADDR[..END]`.
    pub fn l1(s: &str) -> Result<Target, String> {
        let (start, end) = match s.split_once("..") {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let a = number(s)?;
                (a, a.saturating_add(1))
            }
        };
        if end <= start {
            return Err(format!("`{s}`: the range is empty"));
        }
        Ok(Target::L1 { start, end })
    }

    /// `--dst ROW[,COL]`.
    pub fn dst(s: &str) -> Result<Target, String> {
        let parts: Vec<&str> = s.split(',').collect();
        match parts[..] {
            [r] => Ok(Target::Dst {
                row: number(r)?,
                col: None,
            }),
            [r, c] => Ok(Target::Dst {
                row: number(r)?,
                col: Some(number(c)?),
            }),
            _ => Err(format!("`{s}`: expected ROW or ROW,COL")),
        }
    }

    /// `--srca BANK,ROW[,COL]` (or `--srcb`).
    pub fn src(s: &str, b: bool) -> Result<Target, String> {
        let parts: Vec<&str> = s.split(',').collect();
        let (bank, row, col) = match parts[..] {
            [k, r] => (number(k)?, number(r)?, None),
            [k, r, c] => (number(k)?, number(r)?, Some(number(c)?)),
            _ => return Err(format!("`{s}`: expected BANK,ROW or BANK,ROW,COL")),
        };
        if bank > 1 {
            return Err(format!("`{s}`: the bank is 0 or 1"));
        }
        Ok(Target::Src {
            b,
            bank: bank as u8,
            row,
            col,
        })
    }

    /// The option that selects it, for reports.
    pub fn option(&self) -> String {
        let col = |c: Option<u32>| c.map(|c| format!(",{c}")).unwrap_or_default();
        match *self {
            Target::L1 { start, end } if end == start + 1 => format!("--l1 {start:#x}"),
            Target::L1 { start, end } => format!("--l1 {start:#x}..{end:#x}"),
            Target::Dst { row, col: c } => format!("--dst {row}{}", col(c)),
            Target::Src {
                b,
                bank,
                row,
                col: c,
            } => {
                format!("--src{} {bank},{row}{}", if b { 'b' } else { 'a' }, col(c))
            }
        }
    }

    fn has_l1(&self, addr: u32, len: u32) -> bool {
        match *self {
            Target::L1 { start, end } => addr < end && addr.saturating_add(len) > start,
            _ => false,
        }
    }
}

/// The datum to explain first for a gate mismatch: its first differing L1
/// byte, `Dst` row or `Src` row.
pub fn first_target(m: &crate::run::Mismatch) -> Option<Target> {
    use crate::run::Mismatch as M;
    match m {
        M::L1 { expected, actual } => {
            let at = expected.iter().zip(actual).position(|(a, b)| a != b)? as u32;
            Some(Target::L1 {
                start: at,
                end: at + 1,
            })
        }
        M::Dst { row, .. } => Some(Target::Dst {
            row: u32::from(*row),
            col: None,
        }),
        M::Src {
            which, bank, row, ..
        } => Some(Target::Src {
            b: which.eq_ignore_ascii_case("srcb"),
            bank: *bank,
            row: u32::from(*row),
            col: None,
        }),
        _ => None,
    }
}

/// `s` as one word for a POSIX shell.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:=@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Sign, biased exponent and mantissa, as TestFloat prints them.
fn split(bits: u32, exp_bits: u32, man_bits: u32) -> String {
    let sign = if (bits >> (exp_bits + man_bits)) & 1 != 0 {
        '-'
    } else {
        '+'
    };
    let e = (bits >> man_bits) & ((1 << exp_bits) - 1);
    let m = bits & ((1 << man_bits) - 1);
    let ew = exp_bits.div_ceil(4) as usize;
    let mw = man_bits.div_ceil(4) as usize;
    format!("{sign}{e:0ew$X}.{m:0mw$X}")
}

/// An intermediate's type, bits and split.
fn intermediate(v: Intermediate) -> (String, String) {
    use Intermediate as I;
    match v {
        I::Fp32(x) => (format!("{x:#010x}"), format!("FP32 {}", split(x, 8, 23))),
        I::Tf32(x) => (format!("{x:#010x}"), format!("TF32 {}", split(x, 8, 23))),
        I::Bf16(x) => (
            format!("{x:#06x}"),
            format!("BF16 {}", split(x.into(), 8, 7)),
        ),
        I::E8m6(x) => (
            format!("{x:#06x}"),
            format!("E8M6 (BF16 layout) {}", split(x.into(), 8, 7)),
        ),
        I::Fp16(x) => (
            format!("{x:#06x}"),
            format!("FP16 {}", split(x.into(), 5, 10)),
        ),
        I::E5m7(x) => (
            format!("{x:#06x}"),
            format!("E5M7 (FP16 layout) {}", split(x.into(), 5, 10)),
        ),
        I::E5m6(x) => (
            format!("{x:#06x}"),
            format!("E5M6 (FP16 layout) {}", split(x.into(), 5, 10)),
        ),
        I::Fp8(x) => (format!("{x:#04x}"), "FP8".to_string()),
        I::Int32(x) => (format!("{x:#010x}"), "INT32 (sign-magnitude)".to_string()),
        I::Int16(x) => (format!("{x:#06x}"), "INT16".to_string()),
        I::Int8(x) => (format!("{x:#04x}"), "INT8 (sign-magnitude)".to_string()),
        I::UInt8(x) => (format!("{x:#04x}"), format!("UINT8 {x}")),
    }
}

/// One stage of a datum's chain.
struct Stage {
    stage: String,
    value: String,
    decoded: String,
}

fn stage(stage: &str, value: impl Into<String>, decoded: impl Into<String>) -> Stage {
    Stage {
        stage: stage.to_string(),
        value: value.into(),
        decoded: decoded.into(),
    }
}

/// A BFP group, and which of its datums set the shared exponent.
struct Group<'a> {
    g: &'a BfpGroupRecord,
    slot: u8,
    /// Exponent field of each element (BF16 layout: 8 bits; E5M7: 5 bits).
    exps: [u32; 16],
    set_by: usize,
}

impl<'a> Group<'a> {
    fn new(g: &'a BfpGroupRecord, slot: u8, a_form: bool) -> Group<'a> {
        let exps = g.elements.map(|e| {
            if a_form {
                u32::from(e >> 10) & 0x1F
            } else {
                u32::from(e >> 7) & 0xFF
            }
        });
        let max = exps.iter().copied().max().unwrap_or(0);
        let set_by = exps.iter().position(|e| *e == max).unwrap_or(0);
        Group {
            g,
            slot,
            exps,
            set_by,
        }
    }
}

/// One explained datum.
struct Explained<'a> {
    kind: &'static str,
    instruction: u64,
    unit: u8,
    stages: Vec<Stage>,
    group: Option<Group<'a>>,
    /// Where in L1 the datum's bytes are, and how many.
    l1: Option<(u32, u32)>,
}

fn pack_chain<'a>(o: &'a Observed, d: &PackDatum) -> Explained<'a> {
    let rec = &o.record;
    let mut stages = Vec::new();
    match d.source {
        PackSource::Dst {
            row,
            col,
            cell,
            passed_edge_mask,
        } => {
            stages.push(stage(
                &format!("Dst row {row} col {col}"),
                format!("{cell:#x}"),
                "the cell as Dst stores it (Dst.md bit layout)",
            ));
            let (v, dec) = intermediate(d.early);
            if passed_edge_mask {
                stages.push(stage("early conversion", v, dec));
                stages.push(stage("edge mask", "pass", "the column is enabled"));
            } else {
                stages.push(stage(
                    "edge mask",
                    v,
                    format!("masked: replaced by the fill, {dec}"),
                ));
            }
        }
        PackSource::DevNull => stages.push(stage("source", "0", "ZeroWrite: /dev/null")),
        PackSource::L1 { addr } => {
            let (v, dec) = intermediate(d.early);
            stages.push(stage(
                &format!("L1 source {addr:#x}"),
                v,
                format!("packer 0 reading L1, converted: {dec}"),
            ));
        }
    }
    let (v, dec) = intermediate(d.relu);
    stages.push(stage("ReLU", v, dec));
    if let Some(bin) = d.histogram_bin {
        stages.push(stage(
            "exponent histogram",
            format!("bin {bin}"),
            "counted (the low five bits of its exponent)",
        ));
    }
    let (v, dec) = intermediate(d.thresholded);
    stages.push(stage("exponent threshold", v, dec));
    stages.push(stage(
        "downsampling",
        if d.kept { "kept" } else { "dropped" },
        "",
    ));
    let mut group = None;
    if let Some(c) = d.late {
        match c {
            Converted::Plain(x) => stages.push(stage("late conversion", format!("{x:#x}"), "")),
            Converted::Element(e) => stages.push(stage(
                "late conversion",
                format!("{e:#06x}"),
                "BFP element for the shared-exponent assembler",
            )),
        }
        if d.elided {
            stages.push(stage(
                "compression",
                "elided",
                "a zero counted in the previous datum's zero run",
            ));
        } else if d.compressed {
            stages.push(stage(
                "compression",
                "stored",
                "kept in the compressed stream (its address depends on the row)",
            ));
        }
    }
    let mut l1 = None;
    if let (Some(a), false) = (d.l1_addr, d.elided) {
        let acc = if d.accumulated {
            match held_before(o, d.instruction, a, u32::from(d.l1_len)) {
                Some(old) => format!("Pack_L1_Acc: added to the {} L1 held", hex(&old)),
                None => "Pack_L1_Acc: added to what L1 held".to_string(),
            }
        } else {
            "written".to_string()
        };
        stages.push(stage(
            "L1 accumulation",
            if d.accumulated { "on" } else { "off" },
            acc,
        ));
        l1 = Some((a, u32::from(d.l1_len)));
    }
    if let Some((gi, slot)) = d.bfp {
        match rec.bfp_groups.get(gi) {
            Some(g) => {
                let gr = Group::new(g, slot, is_a_form(o));
                let byte = datum_byte(g, slot);
                stages.push(stage(
                    "BFP group",
                    format!("{:#04x}", g.shared_exp),
                    format!(
                        "shared exponent, the largest of the 16, set by datum {} of the group",
                        gr.set_by
                    ),
                ));
                let e = gr.exps[usize::from(slot)];
                let datum = g.datums[usize::from(slot)];
                let el = g.elements[usize::from(slot)];
                let mant = if is_a_form(o) {
                    (el >> 3) & 0x7F
                } else {
                    el & 0x7F
                } | if e != 0 { 0x80 } else { 0 };
                stages.push(stage(
                    "BFP rounding",
                    format!("{datum:#04x}"),
                    format!(
                        "datum {slot}: exponent {e:#x}, mantissa with hidden bit {mant:#04x}, \
                         shifted right {} (shared - own), {}-bit result (sign {}, magnitude {:#x})",
                        u32::from(g.shared_exp).saturating_sub(e),
                        g.width_bits,
                        datum >> (g.width_bits - 1) & 1,
                        datum & ((1u16 << (g.width_bits - 1)) - 1) as u8
                    ),
                ));
                l1 = Some((byte, 1));
                group = Some(gr);
            }
            None => stages.push(stage("BFP group", "-", "no such group was recorded")),
        }
    } else if let Some(Converted::Element(_)) = d.late.filter(|_| !d.elided) {
        stages.push(stage(
            "BFP group",
            "-",
            "the group never completed: its datums stayed in the assembler (or compression padded it)",
        ));
    }
    Explained {
        kind: "pack",
        instruction: d.instruction,
        unit: d.packer,
        stages,
        group,
        l1,
    }
}

/// The `len` bytes at `addr` just before instruction `insn`'s write of
/// them: the last earlier write of that 16-byte block in the L1 write log,
/// or the setup's L1.
fn held_before(o: &Observed, insn: u64, addr: u32, len: u32) -> Option<Vec<u8>> {
    let block = addr & !15;
    let at = (addr - block) as usize;
    let log = o.after.l1.log();
    let this = log
        .iter()
        .position(|w| w.addr == block && w.instruction == insn)?;
    let bytes = match log[..this].iter().rev().find(|w| w.addr == block) {
        Some(w) => w.bytes.get(at..at + len as usize)?.to_vec(),
        None => o.before.l1.read(addr, len as usize)?.to_vec(),
    };
    Some(bytes)
}

/// The L1 byte holding datum `slot` of group `g`.
fn datum_byte(g: &BfpGroupRecord, slot: u8) -> u32 {
    g.data_addr
        .wrapping_add(u32::from(slot) * u32::from(g.width_bits) / 8)
}

/// Whether the groups' elements are E5M7 (the "a" forms), whose exponent
/// field is five bits: told from packer 0's output format at the end of the
/// run.
fn is_a_form(o: &Observed) -> bool {
    let out = o.after.config.get(
        0,
        tensix_emu::regs::CfgField::THCON_SEC0_REG1_Out_data_format,
    );
    matches!(
        tensix_emu::format::data_format::DataFormat::decode(out),
        Ok(f) if f.bfp().is_some_and(|(e, _)| e == tensix_emu::format::data_format::BfpExp::A)
    )
}

/// A bit address as `byte` or `byte bit b`.
fn bit_address(bit: i64) -> String {
    match bit.rem_euclid(8) {
        0 => format!("{:#x}", bit.div_euclid(8)),
        b => format!("{:#x} bit {b}", bit.div_euclid(8)),
    }
}

/// What the instruction's plan says about where its input comes from.
fn descriptor_stage(p: &UnpackPlan) -> Stage {
    let mut parts = vec![format!(
        "{} in L1 to {}, datums from {}",
        p.in_format,
        p.out_format,
        bit_address(p.first_datum_bit)
    )];
    if let Some(e) = p.exponent_byte {
        parts.push(format!("exponent section from {e:#x}"));
    }
    if let Some(z) = p.zero_runs_bit {
        parts.push(format!(
            "compressed: zero-run counts from {}",
            bit_address(z)
        ));
        if p.drop != 0 {
            parts.push(format!("{} decompressed datums dropped first", p.drop));
        }
    }
    let count = if p.input_datums == u32::MAX {
        "until the decompressed count".to_string()
    } else {
        p.input_datums.to_string()
    };
    stage("descriptor", format!("{count} datums"), parts.join("; "))
}

/// Upsampling, column shift, haloize and tilize, as the plan has them.
fn placement_stage(p: &UnpackPlan) -> Stage {
    let mut parts = Vec::new();
    if p.upsample_zeroes != 0 {
        parts.push(format!(
            "upsampling: {} position{} after each datum {}",
            p.upsample_zeroes,
            if p.upsample_zeroes == 1 { "" } else { "s" },
            if p.interleave {
                "skipped (interleave)"
            } else {
                "written as zero"
            }
        ));
    }
    if p.col_shift != 0 {
        parts.push(format!(
            "column shift {}: SrcA column = column - {0}",
            p.col_shift
        ));
    }
    if p.transpose {
        parts.push("haloize: SrcA row and column within 16 swapped".to_string());
    }
    if p.tileize {
        parts.push("tilize: input rows discontiguous".to_string());
    }
    parts.push(format!("SrcRow {}, bank {}", p.src_row, p.bank));
    stage(
        "placement",
        format!("from OutAddr {}", p.out_addr),
        parts.join("; "),
    )
}

fn unpack_chain<'a>(o: &Observed, d: &UnpackDatum) -> Explained<'a> {
    let plan = o
        .record
        .unpack_plans
        .iter()
        .find(|p| p.instruction == d.instruction && p.unpacker == d.unpacker);
    let byte = d.l1_bit.div_euclid(8);
    let mut stages = Vec::new();
    if let Some(p) = plan {
        stages.push(descriptor_stage(p));
    }
    stages.push(stage(
        &format!("L1 {}", bit_address(d.l1_bit)),
        format!("{:#x}", d.bits),
        format!("{} bits read", d.datum_bits),
    ));
    match d.exp_from {
        ExponentSource::None => {}
        ExponentSource::Forced => stages.push(stage(
            "BFP exponent",
            format!("{:#04x}", d.exp),
            "forced (FORCED_SHARED_EXP_shared_exp)",
        )),
        ExponentSource::L1(at) => stages.push(stage(
            "BFP exponent",
            format!("{:#04x}", d.exp),
            format!("the group's shared exponent, L1 byte {at:#x}"),
        )),
    }
    if let Some(at) = d.zeroes_bit {
        stages.push(stage(
            "zero run",
            d.zeroes.to_string(),
            format!(
                "zeroes written after it; count read at L1 {}",
                bit_address(at)
            ),
        ));
    }
    let held = match d.cell {
        Some(UnpackCell::SrcA { .. } | UnpackCell::SrcB { .. }) => format!(
            "Src cell (sign, 8-bit exponent, 10-bit mantissa) {}",
            split(d.value, 8, 10)
        ),
        _ => "the value as the register holds it".to_string(),
    };
    stages.push(stage("conversion", format!("{:#x}", d.value), held));
    stages.push(stage(
        "output address",
        format!("{}", d.out_addr),
        format!(
            "OutAddr in datums: row {}, column {} before header rows, column shift, haloize and SrcRow",
            d.out_addr / 16,
            d.out_addr % 16
        ),
    ));
    if let Some(p) = plan {
        stages.push(placement_stage(p));
    }
    let place = match d.cell {
        Some(UnpackCell::SrcA { bank, row, col }) => {
            format!("SrcA bank {bank} row {row} col {col}")
        }
        Some(UnpackCell::SrcB { bank, row, col }) => {
            format!("SrcB bank {bank} row {row} col {col}")
        }
        Some(UnpackCell::Dst { row, col, wide }) => {
            format!(
                "Dst{} row {row} col {col}",
                if wide { "32b" } else { "16b" }
            )
        }
        None => "nowhere (a header row or shifted-out column)".to_string(),
    };
    stages.push(stage("written", format!("{:#x}", d.value), place));
    Explained {
        kind: "unpack",
        instruction: d.instruction,
        unit: d.unpacker,
        stages,
        group: None,
        l1: Some((byte as u32, d.datum_bits.div_ceil(8))),
    }
}

fn selected<'a>(o: &'a Observed, t: Target) -> Vec<Explained<'a>> {
    let rec = &o.record;
    let mut out = Vec::new();
    for d in &rec.pack {
        let hit = match t {
            Target::L1 { .. } => match (d.l1_addr, d.bfp) {
                (Some(a), _) => t.has_l1(a, u32::from(d.l1_len)),
                // A datum byte, or the group's exponent byte, which the
                // datum that set the shared exponent explains.
                (None, Some((gi, slot))) => rec.bfp_groups.get(gi).is_some_and(|g| {
                    t.has_l1(datum_byte(g, slot), 1)
                        || (t.has_l1(g.exp_addr, 1)
                            && Group::new(g, slot, is_a_form(o)).set_by == usize::from(slot))
                }),
                _ => false,
            },
            Target::Dst { row, col } => matches!(d.source,
                PackSource::Dst { row: r, col: c, .. } if r == row && col.is_none_or(|x| x == c)),
            Target::Src { .. } => false,
        };
        if hit {
            out.push(pack_chain(o, d));
        }
    }
    for d in &rec.unpack {
        let hit = match (t, d.cell) {
            (Target::L1 { .. }, _) => {
                t.has_l1(d.l1_bit.div_euclid(8) as u32, d.datum_bits.div_ceil(8))
            }
            (Target::Dst { row, col }, Some(UnpackCell::Dst { row: r, col: c, .. })) => {
                r == row && col.is_none_or(|x| x == c)
            }
            (
                Target::Src {
                    b: false,
                    bank,
                    row,
                    col,
                },
                Some(UnpackCell::SrcA {
                    bank: k,
                    row: r,
                    col: c,
                }),
            )
            | (
                Target::Src {
                    b: true,
                    bank,
                    row,
                    col,
                },
                Some(UnpackCell::SrcB {
                    bank: k,
                    row: r,
                    col: c,
                }),
            ) => k == bank && r == row && col.is_none_or(|x| x == c),
            _ => false,
        };
        if hit {
            out.push(unpack_chain(o, d));
        }
    }
    out
}

/// The bytes the vector expects at `addr..addr+len`, where it says.
fn expected(v: &Vector, o: &Observed, addr: u32, len: u32) -> Option<Vec<u8>> {
    let ranges = v.expect.l1.as_ref()?;
    let mut want = o.before.l1.read(addr, len as usize)?.to_vec();
    for r in ranges {
        for (k, b) in want.iter_mut().enumerate() {
            let a = u64::from(addr) + k as u64;
            if a >= u64::from(r.addr) && a < r.end() {
                *b = r.bytes[(a - u64::from(r.addr)) as usize];
            }
        }
    }
    Some(want)
}

/// Bytes in address order, spaced.
fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The human form.
pub fn human(v: &Vector, o: &Observed, t: Target) -> String {
    let mut s = String::new();
    let found = selected(o, t);
    let _ = writeln!(s, "explain {} {} ({})", v.name, t.option(), v.arch);
    if found.is_empty() {
        let _ = writeln!(
            s,
            "no datum of this run reached or came from there (nothing was packed or unpacked at {})",
            t.option()
        );
    }
    for (k, e) in found.iter().enumerate() {
        let insn = o
            .record
            .instructions
            .iter()
            .find(|i| i.index == e.instruction);
        let who = insn.map_or(String::new(), |i| {
            format!(", thread {} entry {}", i.thread, i.entry)
        });
        let unit = if e.kind == "pack" {
            "packer"
        } else {
            "unpacker"
        };
        let _ = writeln!(
            s,
            "\ndatum {} of {}: {} {}, instruction #{}{}",
            k + 1,
            found.len(),
            unit,
            e.unit,
            e.instruction,
            who
        );
        let w = e.stages.iter().map(|x| x.stage.len()).max().unwrap_or(0);
        let vw = e.stages.iter().map(|x| x.value.len()).max().unwrap_or(0);
        for st in &e.stages {
            let _ = writeln!(s, "  {:w$}  {:vw$}  {}", st.stage, st.value, st.decoded);
        }
        if let Some(g) = &e.group {
            let exps: Vec<String> = g.exps.iter().map(|x| format!("{x:02x}")).collect();
            let _ = writeln!(s, "  group exponents: {}", exps.join(" "));
            let _ = writeln!(s, "  group datums:    {}", hex(&g.g.datums));
            let _ = writeln!(
                s,
                "  exponent byte {:#x} at L1 {:#x}; datum {} of the group is this one",
                g.g.shared_exp, g.g.exp_addr, g.slot
            );
        }
        if let Some((addr, len)) = e.l1 {
            if e.kind == "pack" {
                let actual = o.after.l1.read(addr, len as usize).unwrap_or(&[]);
                let _ = write!(s, "  L1 {addr:#x}: {}", hex(actual));
                match expected(v, o, addr, len) {
                    Some(want) if want == actual => {
                        let _ = writeln!(s, " (as the vector expects)");
                    }
                    Some(want) => {
                        let _ = writeln!(s, "; the vector expects {}", hex(&want));
                        if let Some(g) = &e.group {
                            let _ = writeln!(
                                s,
                                "  to differ, the datum's own rounding or the shared exponent must: \
                                 datum {} of the group (exponent {:#x}) set it",
                                g.set_by, g.exps[g.set_by]
                            );
                        }
                    }
                    None => {
                        let _ = writeln!(s);
                    }
                }
            }
        }
    }
    if let Some(f) = &o.fault {
        let _ = writeln!(s, "\nthe run stopped: {f}");
    }
    s
}

/// The JSON form (see the module documentation).
pub fn json(v: &Vector, o: &Observed, t: Target) -> serde_json::Value {
    let datums: Vec<serde_json::Value> = selected(o, t)
        .iter()
        .map(|e| {
            let l1 = e.l1.filter(|_| e.kind == "pack").map(|(addr, len)| {
                let actual = o.after.l1.read(addr, len as usize).unwrap_or(&[]);
                serde_json::json!({
                    "addr": format!("{addr:#x}"),
                    "actual": hex(actual),
                    "expected": expected(v, o, addr, len).map(|b| hex(&b)),
                })
            });
            serde_json::json!({
                "kind": e.kind,
                "instruction": e.instruction,
                "unit": e.unit,
                "stages": e.stages.iter().map(|s| serde_json::json!({
                    "stage": s.stage, "value": s.value, "decoded": s.decoded,
                })).collect::<Vec<_>>(),
                "bfp_group": e.group.as_ref().map(|g| serde_json::json!({
                    "shared_exp": format!("{:#04x}", g.g.shared_exp),
                    "set_by": g.set_by,
                    "slot": g.slot,
                    "exponents": g.exps,
                    "datums": g.g.datums,
                    "exp_addr": format!("{:#x}", g.g.exp_addr),
                })),
                "l1": l1,
            })
        })
        .collect();
    serde_json::json!({
        "schema": "tensix-explain/1",
        "vector": v.name,
        "target": t.option(),
        "datums": datums,
        "fault": o.fault.as_ref().map(|f| serde_json::json!({"kind": f.kind.name(), "message": f.to_string()})),
    })
}
