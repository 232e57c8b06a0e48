"""Shared pieces of the vector generators in this folder: instruction-word
composition, the ADC instructions, format codes, exact BF16/FP16 patterns,
L1 byte helpers, the corpus house style for L1 ranges, and writing files
without clobbering a user's edits.

The generators compute every expected value themselves; nothing here runs
the emulator.
"""

import os
import struct
import sys


def word(opcode, *fields):
    """A Tensix instruction word: `opcode` in [31:24], then each
    `(value, lo, width)` field (layouts from Diagrams/Src/Bits32.lua)."""
    w = opcode << 24
    for value, lo, width in fields:
        assert 0 <= value < (1 << width), (value, lo, width)
        w |= value << lo
    return w


# Format codes (the InDataFormat / OutDataFormat encoding).
FMT = {"fp32": 0, "fp16": 1, "bfp8a": 2, "bfp4a": 3, "bf16": 5, "bfp8": 6, "fp8": 10, "bfp2a": 11}

# The unit bits of the ADC instructions (SETADCXX, SETADCXY, INCADCXY,
# INCADCZW; Bits32.lua): which of the three ADCs the instruction writes.
U0 = 1 << 21  # unpacker 0
U1 = 1 << 22  # unpacker 1
PK = 1 << 23  # packers


def setadcxx(units, x0, x1):
    return word(0x5E, (x0, 0, 10), (x1, 10, 10)) | units


def setadcxy(units, x0=None, y0=None, x1=None, y1=None):
    """SETADCXY: bit i of the mask [3:0] selects which of X0, Y0, X1, Y1 is
    written; a counter left as None is not."""
    mask = 0
    vals = []
    for bit, (v, lo) in enumerate([(x0, 6), (y0, 9), (x1, 12), (y1, 15)]):
        if v is not None:
            mask |= 1 << bit
            vals.append((v, lo, 3))
    return word(0x51, (mask, 0, 4), *vals) | units


def incadcxy(units, x0=0, y0=0, x1=0, y1=0):
    return word(0x52, (x0, 6, 3), (y0, 9, 3), (x1, 12, 3), (y1, 15, 3)) | units


def incadczw(units, z0=0, w0=0, z1=0, w1=0):
    return word(0x55, (z0, 6, 3), (w0, 9, 3), (z1, 12, 3), (w1, 15, 3)) | units


def bf16(x):
    """BF16 pattern of a value that BF16 holds exactly."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    assert bits & 0xFFFF == 0, x
    return bits >> 16


def fp16(x):
    """FP16 pattern of a value that FP16 holds exactly (a normal, or zero)."""
    bits = struct.unpack("<H", struct.pack("<e", x))[0]
    assert struct.unpack("<e", struct.pack("<H", bits))[0] == x, x
    return bits


def le16(values):
    return b"".join(struct.pack("<H", v) for v in values)


def pad16(data):
    """Zero bytes up to a multiple of 16: how a flushed packer output buffer
    is padded (Packers/OutputAddressGenerator.md, "Output alignment")."""
    return data + bytes(-len(data) % 16)


def nibbles(values):
    """Four-bit values packed low nibble first (the bit order of
    ReadL1Bytes in UNPACR_Regular.md)."""
    out = bytearray()
    for i in range(0, len(values), 2):
        out.append(values[i] | (values[i + 1] << 4))
    return bytes(out)


def hexlines(data):
    digits = data.hex()
    return [digits[i : i + 32] for i in range(0, len(digits), 32)]


def l1_list(o, ranges):
    """Append `  l1:` and its ranges, in the corpus house style."""
    if not ranges:
        o.append("  l1: []")
        return
    o.append("  l1:")
    for addr, data in ranges:
        o.append(f"    - addr: 0x{addr:05x}")
        o.append("      hex: |")
        for line in hexlines(data):
            o.append(f"        {line}")


def quoted(text):
    """A YAML double-quoted scalar (the house style's `detail`)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def header(o, v):
    """Append the house-style lines every vector starts with: schema, name,
    arch, provenance (source `isa-spec` unless `v` names another), tags,
    and the setup's L1 fill, L1 ranges, config and thread_config."""
    o.append("schema: tensix-vector/1")
    o.append(f"name: {v['name']}")
    o.append(f"arch: {v['arch']}")
    o.append("provenance:")
    o.append(f"  source: {v.get('source', 'isa-spec')}")
    o.append(f"  detail: {quoted(v['detail'])}")
    o.append(f"tags: [{', '.join(v['tags'])}]")
    o.append("setup:")
    o.append(f"  l1_fill: 0x{v.get('l1_fill', 0xEE):02x}")
    l1_list(o, v.get("l1", []))
    pairs(o, "config", v.get("config", []), lambda c: f"[{c[0]}, 0x{c[1]:08x}]")
    pairs(o, "thread_config", v.get("thread_config", []), lambda t: f"[{t[0]}, {t[1]}, 0x{t[2]:04x}]")


def pairs(o, key, items, fmt):
    if not items:
        o.append(f"  {key}: []")
        return
    o.append(f"  {key}:")
    for i in items:
        o.append(f"    - {fmt(i)}")


def write_all(vectors, emit, argv):
    """Write each vector to OUT_DIR/<name>.yaml (OUT_DIR is argv's first
    non-flag argument, default conformance-vectors). A file that exists with
    other text is only replaced with --force."""
    force = "--force" in argv
    args = [a for a in argv if a != "--force"]
    root = args[0] if args else "conformance-vectors"
    written = 0
    for v in vectors:
        path = os.path.join(root, v["name"] + ".yaml")
        text = emit(v)
        if os.path.exists(path):
            with open(path) as f:
                if f.read() == text:
                    continue
            if not force:
                sys.exit(f"{path} exists and differs; rerun with --force to replace it")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        written += 1
    print(f"{written} vector(s) written under {root}")
