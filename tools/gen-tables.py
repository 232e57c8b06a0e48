#!/usr/bin/env python3
"""Generate tensix-emu's register and instruction tables.

Reads the register maps and instruction encodings published with
tenstorrent/ttsim (`tensix_regs.json`, `tensix_isa.json`, one pair per
architecture) and writes Rust:

    emu/src/regs/generated.rs   config / thread-config field layouts
    emu/src/isa/generated.rs    opcodes, typed instruction structs, layouts

The JSON files are not part of this repository; pass the directory that holds
`bh/` and `wh/`:

    python3 tools/gen-tables.py ../shared/reference/ttsim-data

The output is committed. Run `cargo fmt --all` afterwards.

Corrections applied on top of the ttsim tables are listed in ISA_FIXES; each
names the tt-isa-documentation page it comes from (that documentation ranks
above ttsim in this project's order of authority).
"""

import json
import os
import sys

ARCHES = [("WormholeB0", "wh"), ("Blackhole", "bh")]

# Encoding corrections, from tt-isa-documentation (Diagrams/Src/Bits32.lua,
# which draws the encoding figure of each instruction page). ttsim's table
# gives only the first bit of these fields; `None` as an arch key means both.
#   name -> list of (field, lo, width)  replaces the field list entirely
#   ("+", name) -> fields added to the ttsim list
ISA_FIXES = {
    # MOP.md: MaskLo [15:0], Count1 [22:16], Template [23].
    "MOP": {
        "WormholeB0": [("zmask_lo16", 0, 16), ("loop_count", 16, 7), ("mop_type", 23, 1)],
        "Blackhole": [
            ("zmask_lo16_or_loop_count", 0, 16),
            ("loop_count", 16, 7),
            ("mop_type", 23, 1),
        ],
    },
    # MOP_CFG.md: MaskHi [15:0].
    "MOP_CFG": {None: [("zmask_hi16", 0, 16)]},
    # REPLAY.md: Load [0], Exec [1], Count [9:4] (u6), Index [18:14] (u5).
    "REPLAY": {
        None: [
            ("load_mode", 0, 1),
            ("execute_while_loading", 1, 1),
            ("len", 4, 6),
            ("start_idx", 14, 5),
        ]
    },
}
# ADCs.md / SETADCXY.md and siblings: ThreadOverride in [19:18]; ttsim's
# table omits it.
for _name in ("SETADCXY", "INCADCXY", "ADDRCRXY", "SETADCZW", "INCADCZW", "ADDRCRZW"):
    ISA_FIXES[("+", _name)] = {None: [("thread_override", 18, 2)]}

RUST_KEYWORDS = {"where", "type", "loop", "match", "mod", "ref", "move", "use", "in"}


def camel(name):
    parts = [p for p in name.lower().split("_") if p]
    out = "".join(p[:1].upper() + p[1:] for p in parts)
    if out[0].isdigit():
        out = "N" + out
    return out


def ident(field):
    return "r#" + field if field in RUST_KEYWORDS else field


def by_index(w, fs, arm, empty):
    """Body of a method that does `arm` (with `{f}` the field) for field
    `index` of `fs` and nothing for any other index. One field takes an
    `if`, which clippy prefers to a two-arm match; no field, `empty`."""
    if len(fs) == 1:
        w(f"        if index == 0 {{ {arm.format(f=ident(fs[0]))}; }}")
    elif fs:
        w("        match index {")
        for i, f in enumerate(fs):
            w(f"            {i} => {arm.format(f=ident(f))},")
        w("            _ => {},")
        w("        }")
    else:
        w(f"        {empty}")


def parse_range(text):
    hi, lo = (int(x) for x in text.split(":"))
    return lo, hi - lo + 1


def load_isa(root, short):
    with open(os.path.join(root, short, "tensix_isa.json")) as f:
        return json.load(f)


def arch_fields(arch, name, entry):
    """(field, lo, width) list for one instruction on one arch, or None when
    the table marks the instruction unsupported (no field layout given)."""
    fix = ISA_FIXES.get(name)
    if fix is not None:
        return fix.get(arch, fix.get(None))
    if entry.get("unsupported"):
        return None
    fields = [(f, *parse_range(r)) for f, r in entry.get("args", {}).items()]
    extra = ISA_FIXES.get(("+", name))
    if extra is not None:
        fields += extra.get(arch, extra.get(None))
    fields.sort(key=lambda t: t[1])
    return fields


def gen_isa(root):
    tables = {arch: load_isa(root, short) for arch, short in ARCHES}
    names = {}
    for arch, _ in ARCHES:
        for name, entry in tables[arch].items():
            names.setdefault(name, entry["opcode"])
    ordered = sorted(names, key=lambda n: (names[n], n))

    layouts = {}  # (arch, name) -> fields or None(unsupported) ; absent => not on arch
    union = {}  # name -> ordered list of field names
    first_lo = {}
    for name in ordered:
        union[name] = []
        for arch, _ in ARCHES:
            entry = tables[arch].get(name)
            if entry is None:
                continue
            fields = arch_fields(arch, name, entry)
            if fields is None:
                fields = [("payload", 0, 24)]
                layouts[(arch, name)] = ("unsupported", fields)
            else:
                layouts[(arch, name)] = ("modelled", fields)
            for f, lo, width in fields:
                assert 0 <= lo and lo + width <= 24, (arch, name, f)
                if f not in union[name]:
                    union[name].append(f)
                    first_lo[(name, f)] = lo
        # Declare fields from the lowest bit up, as the encoding figures do.
        union[name].sort(key=lambda f: first_lo[(name, f)])
        # overlap check per arch
        for arch, _ in ARCHES:
            if (arch, name) in layouts:
                seen = 0
                for f, lo, width in layouts[(arch, name)][1]:
                    m = ((1 << width) - 1) << lo
                    assert seen & m == 0, ("overlap", arch, name, f)
                    seen |= m

    o = []
    w = o.append
    w("// @generated by tools/gen-tables.py from tenstorrent/ttsim v1.10.0's")
    w("// tensix_isa.json (Apache-2.0), with the corrections listed in that script.")
    w("// Do not edit by hand.")
    w("")
    w("use super::{Field, Layout};")
    w("use crate::arch::Arch;")
    w("")
    w("/// Every Tensix instruction mnemonic known on either architecture.")
    w("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]")
    w("pub enum Opcode {")
    for n in ordered:
        w(f"    {camel(n)},")
    w("}")
    w("")
    w("impl Opcode {")
    w("    pub const ALL: &'static [Opcode] = &[")
    for n in ordered:
        w(f"        Opcode::{camel(n)},")
    w("    ];")
    w("")
    w("    /// The mnemonic as the ISA documentation spells it.")
    w("    pub fn mnemonic(self) -> &'static str {")
    w("        match self {")
    for n in ordered:
        w(f'            Opcode::{camel(n)} => "{n}",')
    w("        }")
    w("    }")
    w("")
    w("    /// Field names in the order the typed struct declares them.")
    w("    pub fn field_names(self) -> &'static [&'static str] {")
    w("        match self {")
    for n in ordered:
        fl = ", ".join(f'"{f}"' for f in union[n])
        w(f"            Opcode::{camel(n)} => &[{fl}],")
    w("        }")
    w("    }")
    w("")
    w("    /// The opcode byte and field layout on `arch`, or `None` where the")
    w("    /// architecture has no such instruction.")
    w("    pub fn layout(self, arch: Arch) -> Option<&'static Layout> {")
    w("        match arch {")
    for arch, _ in ARCHES:
        w(f"            Arch::{arch} => match self {{")
        for n in ordered:
            if (arch, n) in layouts:
                w(f"                Opcode::{camel(n)} => Some(&{arch.upper()}_{n.upper()}),")
        if any((arch, n) not in layouts for n in ordered):
            w("                _ => None,")
        w("            },")
    w("        }")
    w("    }")
    w("}")
    w("")
    for arch, _ in ARCHES:
        for n in ordered:
            if (arch, n) not in layouts:
                continue
            kind, fields = layouts[(arch, n)]
            fl = ", ".join(
                f"Field {{ index: {union[n].index(f)}, lo: {lo}, width: {width} }}"
                for f, lo, width in fields
            )
            w(f"static {arch.upper()}_{n.upper()}: Layout = Layout {{")
            w(f"    opcode: Opcode::{camel(n)},")
            w(f"    byte: 0x{names_for(tables, arch, n):02x},")
            w(f"    fields: &[{fl}],")
            w(f"    described: {'true' if kind == 'modelled' else 'false'},")
            w("};")
    w("")
    for arch, _ in ARCHES:
        w(f"/// Opcode byte to opcode on {arch}.")
        w(f"pub(super) static {arch.upper()}_OPCODE_BY_BYTE: [Option<Opcode>; 256] = {{")
        w("    let mut t: [Option<Opcode>; 256] = [None; 256];")
        for n in ordered:
            if (arch, n) in layouts:
                w(f"    t[0x{names_for(tables, arch, n):02x}] = Some(Opcode::{camel(n)});")
        w("    t")
        w("};")
    w("")
    for arch, _ in ARCHES:
        w(f"/// Opcode byte to layout on {arch}.")
        w(f"pub(super) static {arch.upper()}_BY_BYTE: [Option<&Layout>; 256] = {{")
        w("    let mut t: [Option<&Layout>; 256] = [None; 256];")
        for n in ordered:
            if (arch, n) in layouts:
                w(f"    t[0x{names_for(tables, arch, n):02x}] = Some(&{arch.upper()}_{n.upper()});")
        w("    t")
        w("};")
    w("")
    # Every instruction's fields fit in an array of FIELD_SLOTS, a power of
    # two, so that an index can be brought into it by a mask.
    most = max(len(union[n]) for n in ordered)
    slots = 1 << (most - 1).bit_length()
    w("/// Slots in [`Instruction::values`]: a power of two at least the most")
    w(f"/// fields an instruction has ({most}).")
    w(f"pub const FIELD_SLOTS: usize = {slots};")
    w("")
    # Typed structs.
    for n in ordered:
        fs = union[n]
        w(f"/// `{n}`: the union of its fields on both architectures (see")
        w("/// [`Opcode::layout`] for which exist where).")
        w("#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]")
        w(f"pub struct {camel(n)} {{")
        for f in fs:
            w(f"    pub {ident(f)}: u32,")
        w("}")
        w("")
        w(f"impl {camel(n)} {{")
        # Direct decoder: each field by a shift and a mask, so decoding does
        # not walk the layout tables.
        w(f"    /// The fields of a `{n}` word on `arch`; fields the architecture")
        w("    /// does not have are zero. The opcode byte is not checked.")
        w("    #[inline]")
        w(f"    pub fn from_word(arch: Arch, word: u32) -> {camel(n)} {{")
        arms = []
        for arch, _ in ARCHES:
            if (arch, n) not in layouts:
                continue
            _, fields = layouts[(arch, n)]
            parts = []
            for f, lo, width in fields:
                mask = (1 << width) - 1
                shifted = f"(word >> {lo})" if lo else "word"
                parts.append(f"{ident(f)}: {shifted} & 0x{mask:x}")
            if len(fields) < len(fs):
                parts.append("..Default::default()")
            arms.append((arch, ", ".join(parts)))
        if not fs:
            w("        let _ = (arch, word);")
            w(f"        {camel(n)} {{}}")
        else:
            w("        match arch {")
            for arch, body in arms:
                w(f"            Arch::{arch} => {camel(n)} {{ {body} }},")
            if len(arms) < len(ARCHES):
                w("            _ => Default::default(),")
            w("        }")
        w("    }")
        w("")
        # The fields as an array, where a match on the index would be a
        # branch a field, each of which a fuzz build counts as coverage of
        # its own.
        w("    pub(super) fn values(&self) -> [u32; FIELD_SLOTS] {")
        if fs:
            items = ", ".join(f"self.{ident(f)}" for f in fs)
            w("        let mut v = [0; FIELD_SLOTS];")
            w(f"        v[..{len(fs)}].copy_from_slice(&[{items}]);")
            w("        v")
        else:
            w("        [0; FIELD_SLOTS]")
        w("    }")
        w("")
        w("    pub(super) fn set(&mut self, index: usize, value: u32) {")
        by_index(w, fs, "self.{f} = value", "let _ = (index, value);")
        w("    }")
        w("}")
        w("")
    w("/// A decoded Tensix instruction.")
    w("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]")
    w("pub enum Instruction {")
    for n in ordered:
        w(f"    {camel(n)}({camel(n)}),")
    w("}")
    w("")
    w("impl Instruction {")
    w("    pub fn opcode(&self) -> Opcode {")
    w("        match self {")
    for n in ordered:
        w(f"            Instruction::{camel(n)}(_) => Opcode::{camel(n)},")
    w("        }")
    w("    }")
    w("")
    w("    /// The `opcode` instruction with the fields of `word` on `arch` (see")
    w("    /// each struct's `from_word`).")
    w("    pub fn from_word(opcode: Opcode, arch: Arch, word: u32) -> Instruction {")
    w("        match opcode {")
    for n in ordered:
        w(f"            Opcode::{camel(n)} => Instruction::{camel(n)}({camel(n)}::from_word(arch, word)),")
    w("        }")
    w("    }")
    w("")
    w("    /// An instruction of `opcode` with every field zero.")
    w("    pub fn zeroed(opcode: Opcode) -> Instruction {")
    w("        match opcode {")
    for n in ordered:
        w(f"            Opcode::{camel(n)} => Instruction::{camel(n)}(Default::default()),")
    w("        }")
    w("    }")
    w("")
    w("    /// Every field's value, in [`Opcode::field_names`] order; zero past")
    w("    /// the last.")
    w("    pub fn values(&self) -> [u32; FIELD_SLOTS] {")
    w("        match self {")
    for n in ordered:
        w(f"            Instruction::{camel(n)}(i) => i.values(),")
    w("        }")
    w("    }")
    w("")
    w("    /// Set field `index` of [`Opcode::field_names`]; out-of-range indices are ignored.")
    w("    pub fn set_field(&mut self, index: usize, value: u32) {")
    w("        match self {")
    for n in ordered:
        w(f"            Instruction::{camel(n)}(i) => i.set(index, value),")
    w("        }")
    w("    }")
    w("}")
    return "\n".join(o) + "\n"


def names_for(tables, arch, name):
    return tables[arch][name]["opcode"]


def gen_regs(root):
    regs = {}
    for arch, short in ARCHES:
        with open(os.path.join(root, short, "tensix_regs.json")) as f:
            regs[arch] = json.load(f)
    o = []
    w = o.append
    w("// @generated by tools/gen-tables.py from tenstorrent/ttsim v1.10.0's")
    w("// tensix_regs.json (Apache-2.0). Do not edit by hand.")
    w("")
    w("use super::RegField;")
    w("use crate::arch::Arch;")
    w("")
    for space, key, enum in (("Config", "cfg", "CfgField"), ("ThreadConfig", "thread_cfg", "ThreadCfgField")):
        names = {}
        for arch, _ in ARCHES:
            for addr, fields in regs[arch][key].items():
                for fd in fields:
                    names.setdefault(fd["name"], None)
        ordered = sorted(names)
        w(f"/// A field of {space}, named as `cfg_defines.h` names it.")
        w("#[allow(non_camel_case_types)]")
        w("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]")
        w(f"pub enum {enum} {{")
        for n in ordered:
            w(f"    {n},")
        w("}")
        w("")
        w(f"impl {enum} {{")
        w(f"    pub const ALL: &'static [{enum}] = &[")
        for n in ordered:
            w(f"        {enum}::{n},")
        w("    ];")
        w("")
        w("    pub fn name(self) -> &'static str {")
        w("        match self {")
        for n in ordered:
            w(f'            {enum}::{n} => "{n}",')
        w("        }")
        w("    }")
        w("")
        w("    /// Where the field lives on `arch`, or `None` where it does not exist.")
        w("    #[inline]")
        w("    pub fn on(self, arch: Arch) -> Option<RegField> {")
        w("        // A table per architecture, indexed by the field's position in the")
        w("        // enum: one load, as a configuration decode reads dozens of fields.")
        w("        match arch {")
        for arch, _ in ARCHES:
            w(f"            Arch::{arch} => {enum.upper()}_{arch.upper()}[self as usize],")
        w("        }")
        w("    }")
        w("")
        w("    /// The fields that exist on `arch`, in enum order (the fields of `ALL`")
        w("    /// for which `on(arch)` is `Some`).")
        w(f"    pub fn all_on(arch: Arch) -> &'static [{enum}] {{")
        w("        match arch {")
        for arch, _ in ARCHES:
            w(f"            Arch::{arch} => {enum.upper()}_ALL_{arch.upper()},")
        w("        }")
        w("    }")
        w("}")
        w("")
        # Each architecture's fields: name to (word, shift, width).
        where = {
            arch: {
                fd["name"]: (int(addr), fd["shift"], fd["size"])
                for addr, fields in regs[arch][key].items()
                for fd in fields
            }
            for arch, _ in ARCHES
        }
        for arch, _ in ARCHES:
            w(f"/// [`{enum}::all_on`] for {arch}.")
            w(f"const {enum.upper()}_ALL_{arch.upper()}: &[{enum}] = &[")
            for n in ordered:
                if n in where[arch]:
                    w(f"    {enum}::{n},")
            w("];")
            w("")
        for arch, _ in ARCHES:
            w(f"/// [`{enum}::on`] for {arch}, in enum order.")
            w(f"const {enum.upper()}_{arch.upper()}: [Option<RegField>; {len(ordered)}] = [")
            for n in ordered:
                if n in where[arch]:
                    a, sh, sz = where[arch][n]
                    w(f"    Some(RegField {{ addr32: {a}, shift: {sh}, width: {sz} }}), // {n}")
                else:
                    w(f"    None, // {n}")
            w("];")
            w("")
        for arch, _ in ARCHES:
            top = max(int(a) for a in regs[arch][key])
            size = top + 1
            if key == "cfg":
                size = (size + 3) // 4 * 4
            w(f"/// 32-bit words of {space} on {arch} (highest described word + 1{', rounded up to 16 bytes' if key == 'cfg' else ''}).")
            w(f"pub const {space.upper()}_WORDS_{arch.upper()}: usize = {size};")
        w("")
    return "\n".join(o) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    emu = os.path.join(here, "..", "emu", "src")
    # Every input is read and every output made before anything is written,
    # and each file is replaced whole: a missing or broken input leaves the
    # committed tables as they were.
    outputs = {
        os.path.join(emu, "isa", "generated.rs"): gen_isa(root),
        os.path.join(emu, "regs", "generated.rs"): gen_regs(root),
    }
    for path, text in outputs.items():
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)


if __name__ == "__main__":
    main()
