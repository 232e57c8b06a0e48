//! `tensix-harness fmt`: a vector in the house style ([`Vector::to_yaml`]):
//! named register fields and instruction text become the raw words the
//! emulator sees. With `--annotate`, each word is followed by a comment
//! that reads it back: the register fields it sets (by their `cfg_defines.h`
//! names) or the instruction's text form.

use crate::vector::{Vector, Word};
use tensix_emu::regs::{CfgField, RegField, ThreadCfgField};
use tensix_emu::Arch;

/// Every Config field: its name and where it sits on `arch`.
fn config_places(arch: Arch) -> impl Iterator<Item = (&'static str, Option<RegField>)> {
    CfgField::ALL.iter().map(move |f| (f.name(), f.on(arch)))
}

/// Every ThreadConfig field: its name and where it sits on `arch`.
fn thread_config_places(arch: Arch) -> impl Iterator<Item = (&'static str, Option<RegField>)> {
    ThreadCfgField::ALL
        .iter()
        .map(move |f| (f.name(), f.on(arch)))
}

/// `NAME=value` for each field of `fields` in word `word` that `value` sets.
fn set_fields(
    fields: impl Iterator<Item = (&'static str, Option<RegField>)>,
    word: u32,
    value: u32,
) -> Vec<String> {
    fields
        .filter_map(|(name, rf)| {
            let rf = rf?;
            let v = rf.extract(value);
            (u32::from(rf.addr32) == word && v != 0).then(|| format!("{name}={v:#x}"))
        })
        .collect()
}

/// The non-zero Config fields of word `addr32` holding `value`.
pub fn config_fields(arch: Arch, addr32: u32, value: u32) -> Vec<String> {
    set_fields(config_places(arch), addr32, value)
}

/// The non-zero ThreadConfig fields of register `reg` holding `value`.
pub fn thread_config_fields(arch: Arch, reg: u32, value: u32) -> Vec<String> {
    set_fields(thread_config_places(arch), reg, value)
}

/// The house style with a reading of every Config, ThreadConfig and
/// instruction word as a trailing comment. The comments change nothing:
/// parsing the result gives the same vector.
pub fn annotated(v: &Vector) -> String {
    let arch = v.arch;
    v.to_yaml_commented(&|w| match w {
        Word::Config { addr32, value } => config_fields(arch, addr32, value).join(", "),
        Word::ThreadConfig { reg, value } => thread_config_fields(arch, reg, value).join(", "),
        Word::Instruction(word) => tensix_emu::isa::decode(arch, word)
            .map_or_else(|e| format!("does not decode: {e}"), |i| i.to_string()),
    })
}

/// Where a field sits on one architecture: `word[hi:lo]`, or `-`.
fn place(rf: Option<RegField>) -> String {
    match rf {
        Some(rf) if rf.width == 1 => format!("{}[{}]", rf.addr32, rf.shift),
        Some(rf) => format!(
            "{}[{}:{}]",
            rf.addr32,
            u32::from(rf.shift) + u32::from(rf.width) - 1,
            rf.shift
        ),
        None => "-".to_string(),
    }
}

/// The register reference (`docs/registers.md`, `tensix-harness regs`):
/// every Config and ThreadConfig field by name, with its word and bits on
/// each architecture. Fields whose name contains `filter` only, if given.
pub fn register_reference(filter: Option<&str>) -> String {
    let keep = |name: &str| filter.is_none_or(|f| name.contains(f));
    let s = String::from(
        "| field | Blackhole word[bits] | Wormhole B0 word[bits] |\n| --- | --- | --- |\n",
    );
    let rows = |bh: Vec<(&'static str, Option<RegField>)>, wh: Vec<Option<RegField>>| {
        bh.into_iter()
            .zip(wh)
            .filter(|((name, _), _)| keep(name))
            .map(|((name, b), w)| format!("| `{name}` | {} | {} |\n", place(b), place(w)))
            .collect::<String>()
    };
    let config = rows(
        config_places(Arch::Blackhole).collect(),
        config_places(Arch::WormholeB0).map(|(_, p)| p).collect(),
    );
    let thread = rows(
        thread_config_places(Arch::Blackhole).collect(),
        thread_config_places(Arch::WormholeB0)
            .map(|(_, p)| p)
            .collect(),
    );
    format!(
        "## Config (`setup.config`, `{{cfg: ...}}` stores; word = addr32)\n\n{s}{config}\n\
         ## ThreadConfig (`setup.thread_config`; word = reg)\n\n{s}{thread}"
    )
}
