#!/usr/bin/env python3
"""Write the hand-derived `isa-spec` conformance vectors for the unpackers
(UNPACR): decompression, upsampling, tilize, haloize, contexts, BFP "a" forms
and the undefined or deadlocking cases the pages name.

Every expected SrcA/SrcB/Dst cell and ADC counter is worked out in this file
from the rules tt-isa-documentation states, with small arithmetic of its own:
the UNPACR functional model (WormholeB0/.../UNPACR_Regular.md, which the
Blackhole page defers to), Unpackers/README.md (decompression, upsampling),
Packers/Compression.md (the compressed L1 format), FloatBitPatterns.md (BFP
meanings and conversion routines) and SrcASrcB.md (the 19-bit cell). Nothing
is taken from the emulator. Each vector's `provenance.detail` names the page
and rule it follows and how the values were derived.

Cells are written as the corpus writes them: a SrcA/SrcB cell is sign [18],
exponent field [17:10], mantissa field [9:0] (the TF32 overlay of
SrcASrcB.md); Dst rows are FP16 bit patterns as a RISC-V core sees them
through the Dst window.

Usage: tools/isa-spec-unpack-vectors.py [--force] [OUT_DIR]
OUT_DIR defaults to conformance-vectors. An existing file is only replaced
with --force.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vectorgen import FMT, U0, U1, bf16, fp16, header, le16, nibbles, pad16, setadcxx, setadcxy, word, write_all  # noqa: E402

# ---------------------------------------------------------------------------
# Instruction words, laid out as Diagrams/Src/Bits32.lua draws them.
# ---------------------------------------------------------------------------


def unpacr(
    unpacker=0,
    ch0_z=0,
    ch0_y=0,
    ch1_z=0,
    ch1_y=0,
    context=0,
    context_adc=0,
    multi=0,
    flip=0,
    all_zero=0,
    counter=0,
    row_search=0,
):
    """UNPACR_Regular (Bits32.lua): RowSearch [2], UseContextCounter [3],
    AllDatumsAreZero [4], FlipSrc [6], MultiContextMode [7], ContextADC
    [9:8], ContextNumber [12:10], Ch0ZInc [16:15], Ch0YInc [18:17], Ch1ZInc
    [20:19], Ch1YInc [22:21], WhichUnpacker [23]."""
    return word(
        0x42,
        (row_search, 2, 1),
        (counter, 3, 1),
        (all_zero, 4, 1),
        (flip, 6, 1),
        (multi, 7, 1),
        (context_adc, 8, 2),
        (context, 10, 3),
        (ch0_z, 15, 2),
        (ch0_y, 17, 2),
        (ch1_z, 19, 2),
        (ch1_y, 21, 2),
        (unpacker, 23, 1),
    )


def sempost(mask):
    return word(0xA4, (mask, 2, 8))


def semwait(block, mask, cond):
    return word(0xA6, (cond, 0, 2), (mask, 2, 8), (block, 15, 9))


# ---------------------------------------------------------------------------
# Configuration fields: (Config word, first bit, width), under the names
# cfg_defines.h gives them, for each architecture.
# ---------------------------------------------------------------------------

FIELDS = {
    "blackhole": {
        "UNP0_ADDR_CTRL_XY_REG_1_Ystride": (56, 16, 16),
        "UNP1_ADDR_CTRL_XY_REG_1_Ystride": (58, 16, 16),
        "UNP0_ADD_DEST_ADDR_CNTR_add_dest_addr_cntr": (50, 8, 1),
        "THCON_SEC0_REG0_TileDescriptor": (64, 0, 32),
        "THCON_SEC0_REG2_Out_data_format": (72, 0, 4),
        "THCON_SEC0_REG2_Context_count": (72, 6, 2),
        "THCON_SEC0_REG2_Haloize_mode": (72, 8, 1),
        "THCON_SEC0_REG2_Tileize_mode": (72, 9, 1),
        "THCON_SEC0_REG2_Unpack_If_Sel": (72, 11, 1),
        "THCON_SEC0_REG2_Upsample_rate": (72, 12, 2),
        "THCON_SEC0_REG2_Ovrd_data_format": (72, 14, 1),
        "THCON_SEC0_REG2_Upsample_and_interleave": (72, 15, 1),
        "THCON_SEC0_REG2_Shift_amount_cntx0": (72, 16, 4),
        "THCON_SEC0_REG2_Shift_amount_cntx1": (72, 20, 4),
        "THCON_SEC0_REG2_Shift_amount_cntx2": (72, 24, 4),
        "THCON_SEC0_REG2_Disable_zero_compress_cntx0": (73, 0, 1),
        "THCON_SEC0_REG2_Disable_zero_compress_cntx1": (73, 1, 1),
        "THCON_SEC0_REG2_Disable_zero_compress_cntx2": (73, 2, 1),
        "THCON_SEC0_REG2_Unpack_Src_Reg_Set_Upd": (72, 10, 1),
        "THCON_SEC0_REG2_Unpack_limit_address": (74, 0, 17),
        "THCON_SEC0_REG2_Unpack_fifo_size": (75, 0, 17),
        "THCON_SEC0_REG3_Base_address": (76, 0, 32),
        "THCON_SEC0_REG3_Base_cntx1_address": (77, 0, 32),
        "THCON_SEC0_REG3_Base_cntx2_address": (78, 0, 32),
        "THCON_SEC0_REG5_Dest_cntx0_address": (84, 0, 16),
        "THCON_SEC0_REG5_Dest_cntx1_address": (84, 16, 16),
        "THCON_SEC0_REG5_Dest_cntx2_address": (85, 0, 16),
        "THCON_SEC0_REG5_Tile_x_dim_cntx0": (86, 0, 16),
        "THCON_SEC0_REG5_Tile_x_dim_cntx1": (86, 16, 16),
        "THCON_SEC0_REG5_Tile_x_dim_cntx2": (87, 0, 16),
        "THCON_SEC0_REG7_Offset_address": (92, 0, 16),
        "THCON_SEC0_REG7_Offset_cntx2_address": (94, 0, 16),
        "THCON_SEC0_REG7_Unpack_data_format_cntx2": (94, 16, 4),
        "THCON_SEC0_REG7_Unpack_out_data_format_cntx2": (94, 20, 4),
        "THCON_SEC1_REG0_TileDescriptor": (112, 0, 32),
        "THCON_SEC1_REG2_Out_data_format": (120, 0, 4),
        "THCON_SEC1_REG3_Base_address": (124, 0, 32),
    },
    "wormhole_b0": {
        "UNP0_ADDR_CTRL_XY_REG_1_Ystride": (44, 12, 12),
        "UNP1_ADDR_CTRL_XY_REG_1_Ystride": (46, 12, 12),
        "THCON_SEC0_REG0_TileDescriptor": (52, 0, 32),
        "THCON_SEC0_REG2_Out_data_format": (60, 0, 4),
        "THCON_SEC0_REG2_Tileize_mode": (60, 9, 1),
        "THCON_SEC0_REG2_Unpack_If_Sel": (60, 11, 1),
        "THCON_SEC0_REG2_Shift_amount_cntx0": (60, 16, 4),
        "THCON_SEC0_REG2_Unpack_limit_address": (62, 0, 17),
        "THCON_SEC0_REG2_Unpack_fifo_size": (63, 0, 17),
        "THCON_SEC0_REG3_Base_address": (64, 0, 32),
        "THCON_SEC0_REG7_Offset_address": (80, 0, 16),
        "THCON_SEC1_REG0_TileDescriptor": (92, 0, 32),
        "THCON_SEC1_REG2_Out_data_format": (100, 0, 4),
        "THCON_SEC1_REG3_Base_address": (104, 0, 32),
    },
}

# ThreadConfig registers (cfg_defines.h): SRCA_SET_SetOvrdWithAddr is bit 2
# of SRCA_SET; UNPACK_MISC_CFG_CfgContextOffset_0 is bits 3:0.
UNPACK_MISC_CFG = {"blackhole": 41, "wormhole_b0": 39}
SRCA_SET = {"blackhole": 5, "wormhole_b0": 3}


def config(arch, **values):
    """Config writes for the named fields, one per word, in word order."""
    words = {}
    for name, v in values.items():
        addr, lo, width = FIELDS[arch][name]
        assert 0 <= v < (1 << width), (name, v)
        words[addr] = words.get(addr, 0) | (v << lo)
    return sorted(words.items())


def descriptor(
    arch,
    unpacker,
    fmt,
    x_dim,
    y_dim,
    z_dim=1,
    uncompressed=True,
    digest=0,
):
    """The four words of REG0_TileDescriptor (UNPACR_Regular.md,
    "Configuration"): InDataFormat [3:0], IsUncompressed [4],
    NoBFPExpSection [5], BlobsPerXYPlane [10:8], XDim [31:16], YDim [39:32],
    ZDim [55:48], WDim [71:64], BlobsYStart [111:80], DigestSize [127:120]."""
    first = FIELDS[arch][f"THCON_SEC{unpacker}_REG0_TileDescriptor"][0]
    w0 = FMT[fmt] | (int(uncompressed) << 4) | (x_dim << 16)
    w1 = y_dim | (z_dim << 16)
    w3 = digest << 24
    out = [(first, w0), (first + 1, w1)]
    if w3:
        out += [(first + 3, w3)]
    return out


def merge(*lists):
    words = {}
    for lst in lists:
        for a, v in lst:
            words[a] = words.get(a, 0) | v
    return sorted(words.items())


# ---------------------------------------------------------------------------
# Datum formats (FloatBitPatterns.md) and the 19-bit SrcA/SrcB cell
# (SrcASrcB.md, written as sign [18], exponent [17:10], mantissa [9:0]).
# ---------------------------------------------------------------------------


def cell_from_bf16(b):
    """SrcASrcB.md: BF16 is TF32 with the three low mantissa bits zero."""
    sign, exp, man = b >> 15, (b >> 7) & 0xFF, b & 0x7F
    return (sign << 18) | (exp << 10) | (man << 3)


def cell_from_fp16(h):
    """SrcASrcB.md: FP16 keeps its 5-bit exponent in the low bits of the
    exponent field and its 10-bit mantissa."""
    sign, exp, man = h >> 15, (h >> 10) & 0x1F, h & 0x3FF
    return (sign << 18) | (exp << 10) | man


def fp16_of_value(v):
    """FP16 bit pattern of the value v under the coprocessor's reading of
    FP16 (FloatBitPatterns.md: every exponent 1..31 is a normal number,
    (1 + Mant/2^10) * 2^(Exp-15)); v must be exact. Zero gives +0."""
    if v == 0:
        return 0
    sign = 1 if v < 0 else 0
    m = abs(v)
    exp = 15
    while m >= 2:
        m /= 2
        exp += 1
    while m < 1:
        m *= 2
        exp -= 1
    assert 1 <= exp <= 31, v
    frac = (m - 1) * 1024
    assert frac == int(frac), v
    return (sign << 15) | (exp << 10) | int(frac)


def bfp_a_meaning(datum, width, exp):
    """The value a BFP8a/BFP4a datum means (FloatBitPatterns.md, BFP tables):
    +-Mag / 2^(width-2) * 2^(Exp-15); a zero magnitude is +0, or -2^16 with
    the sign set."""
    sign = datum >> (width - 1)
    mag = datum & ((1 << (width - 1)) - 1)
    if mag == 0:
        return -(2.0**16) if sign else 0.0
    v = mag / 2 ** (width - 2) * 2.0 ** (exp - 15)
    return -v if sign else v


def bfp8a_to_fp16(datum, exp):
    """FloatBitPatterns.md, BFP8aToFP16; None where it is UndefinedBehavior
    (the normalised exponent leaves five bits)."""
    sign = datum >> 7
    mag = (datum << 1) & 0xFF
    if mag == 0:
        return 0xFC00 if sign else 0
    lz = 8 - mag.bit_length()
    mag = (mag << lz) & 0xFF
    e = (exp - lz) & 0xFF
    if e & 0xE0:
        return None
    return (sign << 15) | (e << 10) | ((mag & 0x7E) << 3)


def bfp_a_fp16(datum, width, exp):
    """BFP8a/BFP4a datum to FP16 by the documented routine (BFP4a shifts its
    four bits to the top of a BFP8a datum), checked against the value the BFP
    tables give it."""
    h = bfp8a_to_fp16(datum << (8 - width), exp)
    v = bfp_a_meaning(datum, width, exp)
    if v == -(2.0**16):
        assert h == 0xFC00
    else:
        assert h == fp16_of_value(v), (datum, width, exp, h, v)
    return h


def bfp8_to_bf16(datum, exp):
    """FloatBitPatterns.md, BFP8ToBF16 (the exponent wraps as a uint8_t),
    checked against the BFP8 table: +-Mag / 2^6 * 2^(Exp-127), a zero
    magnitude +0 or (sign set) 0xff80."""
    sign = datum >> 7
    mag = (datum << 1) & 0xFF
    if mag == 0:
        h = 0xFF80 if sign else 0
    else:
        lz = 8 - mag.bit_length()
        mag = (mag << lz) & 0xFF
        e = (exp - lz) & 0xFF
        h = (sign << 15) | (e << 7) | (mag & 0x7E)
    m = datum & 0x7F
    if m:
        v = m / 64 * 2.0 ** (exp - 127)
        assert h == bf16(-v if sign else v), (datum, exp)
    return h


# ---------------------------------------------------------------------------
# Packers/Compression.md, "In-memory / on-disk format".
# ---------------------------------------------------------------------------


def compress_row(row):
    """A row's augmented datums and their zero counts: the first and last
    datums are kept, a zero after a kept datum is folded into that datum's
    four-bit counter while the counter has room (15), and kept otherwise."""
    aug, counts = [], []
    for i, d in enumerate(row):
        if i == 0 or i == len(row) - 1 or d != 0 or counts[-1] == 15:
            aug.append(d)
            counts.append(0)
        else:
            counts[-1] += 1
    return aug, counts


def decompress(aug, counts):
    """Unpackers/README.md, "Decompression": each datum is followed by as many
    zeroes as its counter says."""
    out = []
    for d, n in zip(aug, counts):
        out += [d] + [0] * n
    return out


def compressed_tile(rows, datum_bytes=2, exps=None):
    """RSI array (16-bit, RSI[0] = 0, padded to 16 bytes), for BFP data the
    exponent array (padded to 16 bytes), then groups of 32 datums each
    followed by their 32 counters (low nibble first); the last group is
    padded with zero datums and its counters to 16 bytes."""
    aug, counts, rsi = [], [], [0]
    for r in rows:
        a, c = compress_row(r)
        assert decompress(a, c) == r
        aug += a
        counts += c
        rsi.append(len(aug))
    out = pad16(le16(rsi))
    if exps is not None:
        out += pad16(bytes(exps))
    for g in range(0, len(aug), 32):
        a = aug[g : g + 32] + [0] * (32 - len(aug[g : g + 32]))
        c = counts[g : g + 32]
        out += le16(a) if datum_bytes == 2 else bytes(a)
        out += pad16(nibbles(c + [0] * (len(c) % 2)))
    return out, rsi


# ---------------------------------------------------------------------------
# YAML in the corpus house style (harness/src/vector/emit.rs).
# ---------------------------------------------------------------------------


def cells(values, width):
    return ", ".join(f"0x{v:0{width}x}" for v in values)


def emit(v):
    o = []
    header(o, v)
    src_list(o, "srca", v.get("srca", []))
    src_list(o, "srcb", v.get("srcb", []))
    o.append("program:")
    for thread, steps in v["program"]:
        o.append(f"  - thread: {thread}")
        o.append("    run:")
        for step in steps:
            o.append(f"      - 0x{step:08x}")
    o.append("expect:")
    if v.get("fault"):
        o.append(f"  fault: {{kind: {v['fault']}}}")
    o.append("  l1: []")
    if v.get("expect_dst") is not None:
        o.append("  dst:")
        o.append("    mode: 16b")
        o.append("    format: fp16")
        o.append("    rows:")
        for r, row in v["expect_dst"]:
            o.append(f"      - [{r}, [{cells(row, 4)}]]")
    src_list(o, "srca", v.get("expect_srca", []))
    src_list(o, "srcb", v.get("expect_srcb", []))
    if v.get("adc"):
        o.append("  adc:")
        for thread, unit, ch0, ch1 in v["adc"]:
            o.append(
                f"    - {{thread: {thread}, unit: {unit}, ch0: [{', '.join(map(str, ch0))}], "
                f"ch1: [{', '.join(map(str, ch1))}]}}"
            )
    return "\n".join(o) + "\n"


def src_list(o, key, rows):
    """`  key:` and one line per (bank, row, cells); nothing when empty."""
    if not rows:
        return
    o.append(f"  {key}:")
    for b, r, row in rows:
        o.append(f"    - [{b}, {r}, [{cells(row, 5)}]]")


# ---------------------------------------------------------------------------
# Shared pieces of the vectors.
# ---------------------------------------------------------------------------

# A SrcA/SrcB cell no unpack in this file produces: it marks cells that must
# not be written.
CANARY = 0x5A5A5
CANARY_ROW = [CANARY] * 16


def canary_rows(bank, rows):
    return [(bank, r, CANARY_ROW) for r in rows]


def bf16_values(n, seed):
    """n distinct, exactly representable, normal BF16 patterns of both signs."""
    out = []
    for i in range(n):
        v = (seed + i + 1) * 0.125
        out.append(bf16(-v if (i + seed) % 3 == 1 else v))
    return out


def fp16_values(n, seed):
    out = []
    for i in range(n):
        v = (seed + i + 1) * 0.0625
        out.append(fp16(-v if (i + seed) % 4 == 2 else v))
    return out


def tile_addr(base):
    """UNPACR_Regular.md: InAddr = (Base + (Offset & 0xffff) + 1 +
    DigestSize) * 16, the first byte past the tile header."""
    return (base + 1) * 16


MODEL = "UNPACR_Regular.md functional model"


def decompression_vectors(arch, prefix):
    """Compressed BF16 tile of two 32-datum rows (XDim 32, YDim 2)."""
    out = []
    z = 0
    row0 = bf16_values(32, 0)
    # Row 0: twelve zeros in runs of 1..5, first and last kept.
    for i in (2, 3, 7, 8, 9, 10, 11, 17, 20, 21, 25, 26):
        row0[i] = z
    row1 = bf16_values(32, 40)
    # Row 1: a run of 17 zeros (the counter of datum 0 saturates at 15, so
    # one zero is kept as a datum of its own), then a run of 3.
    for i in list(range(1, 18)) + [22, 23, 24]:
        row1[i] = z
    tile, rsi = compressed_tile([row0, row1])
    a0, a1 = rsi[1] - rsi[0], rsi[2] - rsi[1]
    assert (a0, a1) == (20, 13), (a0, a1)
    # Row 1's augmented datums 20..32 cross from group 0 into group 1.

    base, offset, digest = 0x1000, 0x20, 1
    in_addr = (base + offset + 1 + digest) * 16
    desc = descriptor(arch, 0, "bf16", 32, 2, uncompressed=False, digest=digest)
    common = merge(
        desc,
        config(
            arch,
            THCON_SEC0_REG2_Out_data_format=FMT["bf16"],
            THCON_SEC0_REG3_Base_address=base,
            THCON_SEC0_REG7_Offset_address=offset,
            UNP0_ADDR_CTRL_XY_REG_1_Ystride=32,
        ),
    )
    layout = (
        f"Packers/Compression.md format: RSI [0, {a0}, {a0 + a1}] at the first byte past the "
        f"(1 + DigestSize {digest}) * 16-byte header, padded to 16 bytes, then 32 BF16 datums and 32 "
        "four-bit zero counts per group (the last group padded). Row 0 keeps 20 of its 32 datums; row 1 "
        "has a run of 17 zeros, so datum 0's counter saturates at 15 and one zero is kept as a datum, "
        "and its 13 augmented datums start at index 20 and cross into the second group"
    )
    srca_setup = canary_rows(0, range(5))
    cells1 = [cell_from_bf16(b) for b in row1]

    # 1. One whole row through RSI[Y] .. RSI[Y + 1].
    out.append(
        dict(
            name=prefix + "decompress-whole-row-to-srca",
            arch=arch,
            detail=f"{MODEL} with Unpackers/README.md 'Decompression'. {layout}. ADC ch0 X 0, ch1 X "
            "XDim - 1 = 31 and ch0 Y 1 select row 1 whole: FirstDatum = RSI[1], InputNumDatums = RSI[2] - "
            "RSI[1]; every datum is followed by its counter's zeroes, giving the 32 original datums. "
            "OutAddr = ch1 Y 4 * Ystride 32 bytes / 2 = 64, so after the four header rows SrcA rows 0 and "
            "1 (BF16 cells = TF32 with three zero mantissa bits, SrcASrcB.md). AddrMode Ch0ZInc 1 and "
            "Ch1YInc 2 then move the counters.",
            tags=["unpack", arch, "decompression", "isa-spec"],
            l1=[(in_addr, tile)],
            config=common,
            srca=srca_setup,
            program=[
                (
                    0,
                    [
                        setadcxx(U0, 0, 31),
                        setadcxy(U0, y0=1, y1=4),
                        unpacr(ch0_z=1, ch1_y=2),
                    ],
                )
            ],
            expect_srca=[(0, 0, cells1[:16]), (0, 1, cells1[16:])] + canary_rows(0, [2]),
            adc=[(0, "unpack0", [0, 1, 1, 0], [31, 6, 0, 0])],
        )
    )
    if arch == "wormhole_b0":
        return out

    # 2. Part of a row: DecompressDrop = X, DecompressNumDatums = X1 + 1 - X.
    base1 = 0x2000
    out.append(
        dict(
            name=prefix + "decompress-drop-to-srcb",
            arch=arch,
            detail=f"{MODEL}: compressed input whose ADC range is not the whole row (ch0 X 5, ch1 X 20) "
            "starts at RSI[Y] and decompresses, dropping the first DecompressDrop = 5 datums (zeroes "
            "included) and stopping after DecompressNumDatums = 20 + 1 - 5 = 16. "
            f"{layout}. Unpacker 1, row 1, so datums 5..20 of row 1 land in SrcB at OutAddr = ch1 Y 1 * "
            "Ystride 32 / 2 = 16: row 1 (SrcB has no header rows).",
            tags=["unpack", arch, "decompression", "srcb", "isa-spec"],
            l1=[(tile_addr(base1), tile)],
            config=merge(
                descriptor(arch, 1, "bf16", 32, 2, uncompressed=False),
                config(
                    arch,
                    THCON_SEC1_REG2_Out_data_format=FMT["bf16"],
                    THCON_SEC1_REG3_Base_address=base1,
                    UNP1_ADDR_CTRL_XY_REG_1_Ystride=32,
                ),
            ),
            srcb=canary_rows(0, range(3)),
            program=[(0, [setadcxx(U1, 5, 20), setadcxy(U1, y0=1, y1=1), unpacr(unpacker=1)])],
            expect_srcb=[(0, 1, cells1[5:21])] + canary_rows(0, [0, 2]),
        )
    )

    # 3. RowSearch: InputNumDatums = RSI[X + 1] - RSI[Y], across rows.
    cells0 = [cell_from_bf16(b) for b in row0]
    out.append(
        dict(
            name=prefix + "decompress-row-search-spans-rows",
            arch=arch,
            detail=f"{MODEL}: with RowSearch on compressed input (BlobsPerXYPlane 0), FirstDatum = "
            "RSI[ch0 Y] and InputNumDatums = RSI[ch0 X + 1] - FirstDatum, so ch0 Y 0 and X 1 decompress "
            f"rows 0 and 1 together: 64 datums into SrcA rows 0..3. {layout}.",
            tags=["unpack", arch, "decompression", "row-search", "isa-spec"],
            l1=[(in_addr, tile)],
            config=common,
            srca=srca_setup,
            program=[(0, [setadcxx(U0, 1, 31), setadcxy(U0, y1=4), unpacr(row_search=1)])],
            expect_srca=[
                (0, 0, cells0[:16]),
                (0, 1, cells0[16:]),
                (0, 2, cells1[:16]),
                (0, 3, cells1[16:]),
                (0, 4, CANARY_ROW),
            ],
        )
    )

    # 4. AllDatumsAreZero: each datum becomes 0 and its zero count is ignored.
    zeros = [0] * a1 + [CANARY] * (32 - a1)
    out.append(
        dict(
            name=prefix + "decompress-all-zero-ignores-counts",
            arch=arch,
            detail=f"{MODEL}: AllDatumsAreZero sets each datum to 0 and its DecompressionZeroes to 0, so "
            f"decompressing row 1 ({a1} augmented datums) writes only {a1} zeroes, not 32: the first {a1} "
            f"cells of SrcA row 0; the rest of rows 0 and 1 keep what they held. {layout}.",
            tags=["unpack", arch, "decompression", "zero-write", "isa-spec"],
            l1=[(in_addr, tile)],
            config=common,
            srca=srca_setup,
            program=[(0, [setadcxx(U0, 0, 31), setadcxy(U0, y0=1, y1=4), unpacr(all_zero=1)])],
            expect_srca=[(0, 0, zeros[:16]), (0, 1, zeros[16:]), (0, 2, CANARY_ROW)],
        )
    )
    return out


def bh_plain(fmt, x_dim, y_dim, base, **extra):
    """Blackhole unpacker 0 with an uncompressed tile outside
    MultiContextMode."""
    return merge(
        descriptor("blackhole", 0, fmt, x_dim, y_dim),
        config(
            "blackhole",
            THCON_SEC0_REG2_Out_data_format=FMT[fmt],
            THCON_SEC0_REG3_Base_address=base,
            **extra,
        ),
    )


def output_vectors(prefix):
    out = []
    base = 0x1000
    d = bf16_values(64, 3)
    c = [cell_from_bf16(b) for b in d]
    up = "Unpackers/README.md 'Upsampling' table and " + MODEL

    # Upsampling, rate 1: one zero after each datum.
    ins = []
    for x in c[:16]:
        ins += [x, 0]
    out.append(
        dict(
            name=prefix + "upsample-inserts-zeroes",
            arch="blackhole",
            detail=f"{up}: Upsample_rate 1 without Upsample_and_interleave inserts one zero datum after "
            "every datum (UpsampleZeroes = (1 << 1) - 1 = 1), so 16 BF16 datums fill SrcA rows 0 and 1 as "
            "d0, 0, d1, 0, ... The table and the model agree for rate 1 (for rates 2 and 3 the table says "
            "two and four zeroes, the model's (1 << rate) - 1 three and seven).",
            tags=["unpack", "blackhole", "upsampling", "isa-spec"],
            l1=[(tile_addr(base), le16(d[:16]))],
            config=bh_plain(
                "bf16", 16, 1, base, UNP0_ADDR_CTRL_XY_REG_1_Ystride=32, THCON_SEC0_REG2_Upsample_rate=1
            ),
            srca=canary_rows(0, range(3)),
            program=[(0, [setadcxx(U0, 0, 15), setadcxy(U0, y1=4), unpacr()])],
            expect_srca=[(0, 0, ins[:16]), (0, 1, ins[16:]), (0, 2, CANARY_ROW)],
        )
    )
    skip = []
    for x in c[:16]:
        skip += [x, CANARY]
    out.append(
        dict(
            name=prefix + "upsample-interleave-skips-positions",
            arch="blackhole",
            detail=f"{up}: Upsample_rate 1 with Upsample_and_interleave skips one output position after "
            "every datum instead of writing a zero (the model's 'if (UpsampleInterleave && k != 0) "
            "continue' still advances OutAddr), so the odd cells of SrcA rows 0 and 1 keep what they held.",
            tags=["unpack", "blackhole", "upsampling", "interleave", "isa-spec"],
            l1=[(tile_addr(base), le16(d[:16]))],
            config=bh_plain(
                "bf16",
                16,
                1,
                base,
                UNP0_ADDR_CTRL_XY_REG_1_Ystride=32,
                THCON_SEC0_REG2_Upsample_rate=1,
                THCON_SEC0_REG2_Upsample_and_interleave=1,
            ),
            srca=canary_rows(0, range(3)),
            program=[(0, [setadcxx(U0, 0, 15), setadcxy(U0, y1=4), unpacr()])],
            expect_srca=[(0, 0, skip[:16]), (0, 1, skip[16:]), (0, 2, CANARY_ROW)],
        )
    )

    # Haloize: SrcA row and column swap within each group of 16 rows.
    expect = []
    for r in range(16):
        row = [c[k * 16 + r] if k < 4 else CANARY for k in range(16)]
        expect.append((0, r, row))
    out.append(
        dict(
            name=prefix + "haloize-transposes-srca",
            arch="blackhole",
            detail=f"{MODEL}: Haloize_mode (Transpose) swaps the low four bits of the SrcA row with the "
            "column. 64 BF16 datums would fill SrcA rows 0..3; transposed, datum 16 * r + c lands in row c, "
            "column r, so rows 0..15 hold the data in columns 0..3 and keep the rest.",
            tags=["unpack", "blackhole", "haloize", "isa-spec"],
            l1=[(tile_addr(base), le16(d))],
            config=bh_plain(
                "bf16", 64, 1, base, UNP0_ADDR_CTRL_XY_REG_1_Ystride=32, THCON_SEC0_REG2_Haloize_mode=1
            ),
            srca=canary_rows(0, range(17)),
            program=[(0, [setadcxx(U0, 0, 63), setadcxy(U0, y1=4), unpacr()])],
            expect_srca=expect + canary_rows(0, [16]),
        )
    )

    # Column shift (Shift_amount_cntx[WhichContext & 3] outside tileize).
    shifted = c[3:16] + [CANARY] * 3
    out.append(
        dict(
            name=prefix + "column-shift-drops-leading-columns",
            arch="blackhole",
            detail=f"{MODEL}: on unpacker 0 outside tileize mode, ColShift = Shift_amount_cntx0 = 3; SrcA "
            "writes with Col < ColShift are skipped and the others move to Col - ColShift, so a row of 16 "
            "BF16 datums leaves d3..d15 in columns 0..12 and columns 13..15 untouched.",
            tags=["unpack", "blackhole", "column-shift", "isa-spec"],
            l1=[(tile_addr(base), le16(d[:16]))],
            config=bh_plain(
                "bf16", 16, 1, base, UNP0_ADDR_CTRL_XY_REG_1_Ystride=32, THCON_SEC0_REG2_Shift_amount_cntx0=3
            ),
            srca=canary_rows(0, range(2)),
            program=[(0, [setadcxx(U0, 0, 15), setadcxy(U0, y1=4), unpacr()])],
            expect_srca=[(0, 0, shifted), (0, 1, CANARY_ROW)],
        )
    )

    # Tilize (DiscontiguousInputRows) with FP8: RowStride 64 bytes.
    fp8 = []
    for i in range(192):
        x = (i * 37 + 11) & 0xFF
        if x & 0x7F == 0x7F:
            x ^= 1
        fp8.append(x)
    rows = [fp8[0:16], fp8[64:80], fp8[128:144]]

    def fp8_cell(x):
        return cell_from_fp16(x << 8)

    out.append(
        dict(
            name=prefix + "tilize-fp8-discontiguous-rows",
            arch="blackhole",
            detail=f"{MODEL}: Tileize_mode (DiscontiguousInputRows) moves the input address on by "
            "RowStride = Shift_amount_cntx0 << 4 = 64 bytes after every 16 datums, so 48 FP8 datums come "
            "from L1 bytes 0..15, 64..79 and 128..143 of the tile. FP8 becomes FP16 by DatumBits <<= 8 "
            "(the all-ones magnitudes, which Blackhole widens differently, are avoided). An 8-bit "
            "OutDataFormat leaves OutAddr unscaled: ch1 Y 4 * Ystride 16 = 64, SrcA rows 0..2. ColShift "
            "is 0 in tileize mode.",
            tags=["unpack", "blackhole", "tilize", "fp8", "isa-spec"],
            l1=[(tile_addr(base), bytes(fp8))],
            config=bh_plain(
                "fp8",
                192,
                1,
                base,
                UNP0_ADDR_CTRL_XY_REG_1_Ystride=16,
                THCON_SEC0_REG2_Tileize_mode=1,
                THCON_SEC0_REG2_Shift_amount_cntx0=4,
            ),
            srca=canary_rows(0, range(4)),
            program=[(0, [setadcxx(U0, 0, 47), setadcxy(U0, y1=4), unpacr()])],
            expect_srca=[(0, r, [fp8_cell(x) for x in rows[r]]) for r in range(3)]
            + canary_rows(0, [3]),
        )
    )
    return out


def context_vectors(prefix):
    out = []
    arch = "blackhole"
    tiles = {
        0x1100: bf16_values(64, 7),
        0x1180: bf16_values(64, 90),
    }
    ctx2 = fp16_values(32, 5)
    l1 = [(tile_addr(0x1100), le16(tiles[0x1100])), (tile_addr(0x1180), le16(tiles[0x1180]))]

    # ContextNumber + CfgContextOffset selects context 2.
    ctx2_base, ctx2_offset = 0x1200, 0x10
    cfg = merge(
        descriptor(arch, 0, "bf16", 16, 2),
        config(
            arch,
            THCON_SEC0_REG2_Out_data_format=FMT["bf16"],
            THCON_SEC0_REG2_Ovrd_data_format=1,
            THCON_SEC0_REG2_Disable_zero_compress_cntx0=1,
            THCON_SEC0_REG2_Disable_zero_compress_cntx1=1,
            THCON_SEC0_REG2_Disable_zero_compress_cntx2=1,
            THCON_SEC0_REG3_Base_address=0x1100,
            THCON_SEC0_REG3_Base_cntx1_address=0x1180,
            THCON_SEC0_REG3_Base_cntx2_address=ctx2_base,
            THCON_SEC0_REG7_Offset_cntx2_address=ctx2_offset,
            THCON_SEC0_REG7_Unpack_data_format_cntx2=FMT["fp16"],
            THCON_SEC0_REG7_Unpack_out_data_format_cntx2=FMT["fp16"],
            THCON_SEC0_REG5_Dest_cntx0_address=64,
            THCON_SEC0_REG5_Dest_cntx1_address=96,
            THCON_SEC0_REG5_Dest_cntx2_address=80,
            THCON_SEC0_REG5_Tile_x_dim_cntx0=16,
            THCON_SEC0_REG5_Tile_x_dim_cntx1=16,
            THCON_SEC0_REG5_Tile_x_dim_cntx2=16,
        ),
    )
    want = [cell_from_fp16(h) for h in ctx2[16:32]]
    out.append(
        dict(
            name=prefix + "context-number-plus-offset",
            arch=arch,
            detail=f"{MODEL}: in MultiContextMode WhichContext = ContextNumber 1 + "
            "UNPACK_MISC_CFG_CfgContextOffset_0 1 = 2, which selects Base_cntx2 + (Offset_cntx2 & 0xffff) "
            "for the input address, Tile_x_dim_cntx2 for XDim, Disable_zero_compress_cntx2 for "
            "IsUncompressed, Unpack_data_format_cntx2 / Unpack_out_data_format_cntx2 (FP16, with "
            "Ovrd_data_format; the descriptor says BF16) and Dest_cntx2 = 80 as OutAddr (it replaces the "
            "counter-based address on unpacker 0 outside Dst without add_dest_addr_cntr). ch0 Y 1 reads "
            "the tile's second row into SrcA row 1 as FP16 cells; contexts 0 and 1 point elsewhere.",
            tags=["unpack", arch, "context", "isa-spec"],
            l1=l1 + [(tile_addr(ctx2_base + ctx2_offset), le16(ctx2))],
            config=cfg,
            thread_config=[(0, UNPACK_MISC_CFG[arch], 0x0001)],
            srca=canary_rows(0, range(3)),
            program=[(0, [setadcxx(U0, 0, 15), setadcxy(U0, y0=1), unpacr(multi=1, context=1)])],
            expect_srca=[(0, 1, want)] + canary_rows(0, [0, 2]),
        )
    )

    # Context counter: contexts 0, 1, 0 with Context_count 1.
    cfg = merge(
        descriptor(arch, 0, "bf16", 16, 4),
        config(
            arch,
            THCON_SEC0_REG2_Out_data_format=FMT["bf16"],
            THCON_SEC0_REG2_Context_count=1,
            THCON_SEC0_REG2_Disable_zero_compress_cntx0=1,
            THCON_SEC0_REG2_Disable_zero_compress_cntx1=1,
            THCON_SEC0_REG3_Base_address=0x1100,
            THCON_SEC0_REG3_Base_cntx1_address=0x1180,
            THCON_SEC0_REG5_Dest_cntx0_address=64,
            THCON_SEC0_REG5_Dest_cntx1_address=64,
            THCON_SEC0_REG5_Tile_x_dim_cntx0=16,
            THCON_SEC0_REG5_Tile_x_dim_cntx1=16,
            UNP0_ADD_DEST_ADDR_CNTR_add_dest_addr_cntr=1,
            UNP0_ADDR_CTRL_XY_REG_1_Ystride=32,
        ),
    )
    step = unpacr(multi=1, counter=1, ch0_y=1, ch1_y=1)
    expect = []
    counter = 0
    for i in range(3):
        ctx = counter
        counter = ctx + 1
        if counter >= 1 << 1:
            counter = 0
        base = 0x1100 if ctx == 0 else 0x1180
        # Input row i of the context's tile; output row i (ch1 Y * 32 / 2
        # + Dest_cntx 64).
        expect.append((0, i, [cell_from_bf16(b) for b in tiles[base][16 * i : 16 * i + 16]]))
    out.append(
        dict(
            name=prefix + "context-counter-cycles",
            arch=arch,
            detail=f"{MODEL}: with UseContextCounter the context is the unpacker's per-thread "
            "ContextCounter (0 in the reset state a vector starts from), which steps to WhichContext + 1 and back to 0 at 1 << "
            "Context_count = 2: three UNPACRs use contexts 0, 1, 0 and so the tiles at Base_address and "
            "Base_cntx1. Each has Ch0YInc 1 and Ch1YInc 1, so instruction i reads row i of its tile and, "
            "with add_dest_addr_cntr, writes OutAddr = ch1 Y i * 32 / 2 + Dest_cntx 64: SrcA row i. The "
            "increments apply once to ADC set 0, which is both CurrentThread and WhichADC.",
            tags=["unpack", arch, "context", "context-counter", "isa-spec"],
            l1=l1,
            config=cfg,
            srca=canary_rows(0, range(4)),
            program=[(0, [setadcxx(U0, 0, 15), step, step, step])],
            expect_srca=expect + canary_rows(0, [3]),
            adc=[(0, "unpack0", [0, 3, 0, 0], [15, 3, 0, 0])],
        )
    )

    # ContextADC: X and Y from another thread's ADCs.
    cfg = merge(
        descriptor(arch, 0, "bf16", 16, 4),
        config(
            arch,
            THCON_SEC0_REG2_Out_data_format=FMT["bf16"],
            THCON_SEC0_REG2_Disable_zero_compress_cntx0=1,
            THCON_SEC0_REG3_Base_address=0x1100,
            THCON_SEC0_REG5_Dest_cntx0_address=64,
            THCON_SEC0_REG5_Tile_x_dim_cntx0=16,
        ),
    )
    t = tiles[0x1100]
    out.append(
        dict(
            name=prefix + "context-adc-selects-input-counters",
            arch=arch,
            detail=f"{MODEL}: in MultiContextMode, ContextADC 1 makes ADCs[1] (thread 1's set) supply "
            "channel 0 X/Y and channel 1 X, while Z/W and the output counters stay CurrentThread's. "
            "Thread 1 sets X 0..15 and Y 2 and posts semaphore 0; thread 0 (X 0..7, Y 0) waits on it "
            "(SEMWAIT.md, C0) and unpacks: tile row 2, all 16 datums, to Dest_cntx0 = 64, SrcA row 0. "
            "The AddrMode increments (Ch0YInc 1, Ch1ZInc 1) then apply to both set 0 (CurrentThread) and "
            "set 1 (WhichADC).",
            tags=["unpack", arch, "context", "context-adc", "isa-spec"],
            l1=l1[:1],
            config=cfg,
            srca=canary_rows(0, range(2)),
            program=[
                (
                    0,
                    [
                        setadcxx(U0, 0, 7),
                        semwait(0x1FF, 1, 1),
                        unpacr(multi=1, context_adc=1, ch0_y=1, ch1_z=1),
                    ],
                ),
                (1, [setadcxx(U0, 0, 15), setadcxy(U0, y0=2), sempost(1)]),
            ],
            expect_srca=[(0, 0, [cell_from_bf16(b) for b in t[32:48]]), (0, 1, CANARY_ROW)],
            adc=[
                (0, "unpack0", [0, 1, 0, 0], [7, 0, 1, 0]),
                (1, "unpack0", [0, 3, 0, 0], [15, 0, 1, 0]),
            ],
        )
    )
    return out


def bfp_tile(width, exps, datums):
    """A BFP "a" tile: exponent section (one byte per 16 datums, padded to
    16 bytes), then the datums (width 8: one byte each; width 4: two per
    byte, low nibble first)."""
    data = bytes(datums) if width == 8 else nibbles(datums)
    return pad16(bytes(exps)) + data


BFP8A_DATUMS = [
    0x40, 0xC0, 0x7F, 0x01, 0x00, 0x80, 0x20, 0x10,
    0x55, 0xAA, 0x03, 0x7E, 0x41, 0xE1, 0x08, 0x84,
    0x7F, 0x40, 0x9F, 0x02, 0x30, 0xB0, 0x00, 0x66,
    0x11, 0x80, 0x4C, 0xCC, 0x05, 0x85, 0x3A, 0xFF,
]
BFP4A_DATUMS = list(range(16)) + [7, 15, 1, 9, 2, 10, 4, 12, 3, 11, 5, 13, 6, 14, 0, 8]
BFP_DOC = "FloatBitPatterns.md, BFP tables and BFP8aToFP16"


def bfp_vectors():
    out = []
    base = 0x1000

    def fp16_row(width, exps, datums):
        return [bfp_a_fp16(dm, width, exps[i // 16]) for i, dm in enumerate(datums)]

    # BFP8a -> SrcA (Blackhole).
    exps = [15, 20]
    h = fp16_row(8, exps, BFP8A_DATUMS)
    c = [cell_from_fp16(x) for x in h]
    out.append(
        dict(
            name="isa-spec/blackhole/unpack/bfp8a-to-srca",
            arch="blackhole",
            detail=f"{BFP_DOC}, with the {MODEL}: a BFP8a tile (XDim 32) has an exponent section of "
            "ceil(32 / 16) = 2 bytes padded to 16, then the datums. Datum i takes exponent i / 16 (15, 20); "
            "Mag = datum << 1 is normalised by its leading zeros, which come off the exponent; a zero "
            "magnitude is +0, or 0xfc00 (-2^16) with the sign set. Each FP16 result is checked against the "
            "value the BFP8a table gives (Mag / 2^6 * 2^(Exp - 15)). SrcA cells per SrcASrcB.md; an 8-bit "
            "OutDataFormat leaves OutAddr = ch1 Y 4 * Ystride 16 = 64 unscaled: SrcA rows 0 and 1.",
            tags=["unpack", "blackhole", "bfp-a", "bfp8a", "isa-spec"],
            l1=[(tile_addr(base), bfp_tile(8, exps, BFP8A_DATUMS))],
            config=bh_plain("bfp8a", 32, 1, base, UNP0_ADDR_CTRL_XY_REG_1_Ystride=16),
            srca=canary_rows(0, range(3)),
            program=[(0, [setadcxx(U0, 0, 31), setadcxy(U0, y1=4), unpacr()])],
            expect_srca=[(0, 0, c[:16]), (0, 1, c[16:]), (0, 2, CANARY_ROW)],
        )
    )

    # BFP4a -> Dst (Blackhole).
    exps4 = [15, 3]
    h4 = fp16_row(4, exps4, BFP4A_DATUMS)
    out.append(
        dict(
            name="isa-spec/blackhole/unpack/bfp4a-to-dst",
            arch="blackhole",
            detail=f"{BFP_DOC}, with the {MODEL}: BFP4a datums (two per byte, low nibble first) become "
            "FP16 by BFP8aToFP16(datum << 4); with Unpack_If_Sel unpacker 0 writes Dst16b. The exponent "
            "section is 16 bytes (NoBFPExpSection 0). OutAddr = ch1 Y 6 * Ystride 16 = 96 (a 4-bit "
            "OutDataFormat is not scaled); Dst row = OutAddr / 16 - 4 = 2, so rows 2 and 3; rows 1 and 4 "
            "stay zero. Exponents 15 and 3 (3 - 2 leading zeros of magnitude 1 still leaves a normal).",
            tags=["unpack", "blackhole", "bfp-a", "bfp4a", "to-dst", "isa-spec"],
            l1=[(tile_addr(base), bfp_tile(4, exps4, BFP4A_DATUMS))],
            config=bh_plain(
                "bfp4a", 32, 1, base, UNP0_ADDR_CTRL_XY_REG_1_Ystride=16, THCON_SEC0_REG2_Unpack_If_Sel=1
            ),
            program=[(0, [setadcxx(U0, 0, 31), setadcxy(U0, y1=6), unpacr()])],
            expect_dst=[(1, [0] * 16), (2, h4[:16]), (3, h4[16:]), (4, [0] * 16)],
        )
    )

    # The BFP8a exponent must stay within five bits.
    for what, exp, datum, why in [
        ("overflow", 32, 0x40, "shared exponent 32 with magnitude 64 (no leading zeros) keeps bit 5 set"),
        ("underflow", 2, 0x01, "shared exponent 2 minus the 6 leading zeros of magnitude 1 wraps below 0"),
    ]:
        assert bfp8a_to_fp16(datum, exp) is None
        datums = [0x40] * 16
        datums[5] = datum
        out.append(
            dict(
                name=f"isa-spec/blackhole/unpack/bfp8a-exponent-{what}-is-undefined",
                arch="blackhole",
                detail=f"{BFP_DOC}: BFP8aToFP16 is UndefinedBehavior when the normalised exponent has any "
                f"of bits 7:5 set; here the {why}.",
                tags=["unpack", "blackhole", "bfp-a", "bfp8a", "fault", "isa-spec"],
                l1=[(tile_addr(base), bfp_tile(8, [exp], datums))],
                config=bh_plain("bfp8a", 16, 1, base, UNP0_ADDR_CTRL_XY_REG_1_Ystride=16),
                program=[(0, [setadcxx(U0, 0, 15), setadcxy(U0, y1=4), unpacr()])],
                fault="undefined_behavior",
            )
        )

    # Wormhole B0: BFP8a -> Dst, BFP4a -> SrcB.
    wh_exps = [17, 12]
    hw = fp16_row(8, wh_exps, BFP8A_DATUMS)
    out.append(
        dict(
            name="isa-spec/wormhole_b0/unpack/bfp8a-to-dst",
            arch="wormhole_b0",
            detail=f"{BFP_DOC}, with the {MODEL}: BFP8a (exponents 17 and 12) through Unpack_If_Sel into "
            "Dst16b as FP16. OutAddr = ch1 Y 4 * Ystride 16 = 64, not scaled for an 8-bit format; Dst row "
            "= 64 / 16 - 4 = 0, so rows 0 and 1; row 2 stays zero.",
            tags=["unpack", "wormhole_b0", "bfp-a", "bfp8a", "to-dst", "isa-spec"],
            l1=[(tile_addr(base), bfp_tile(8, wh_exps, BFP8A_DATUMS))],
            config=merge(
                descriptor("wormhole_b0", 0, "bfp8a", 32, 1),
                config(
                    "wormhole_b0",
                    THCON_SEC0_REG2_Out_data_format=FMT["bfp8a"],
                    THCON_SEC0_REG2_Unpack_If_Sel=1,
                    THCON_SEC0_REG3_Base_address=base,
                    UNP0_ADDR_CTRL_XY_REG_1_Ystride=16,
                ),
            ),
            program=[(0, [setadcxx(U0, 0, 31), setadcxy(U0, y1=4), unpacr()])],
            expect_dst=[(0, hw[:16]), (1, hw[16:]), (2, [0] * 16)],
        )
    )
    wh4_exps = [16, 9]
    hw4 = fp16_row(4, wh4_exps, BFP4A_DATUMS)
    cw4 = [cell_from_fp16(x) for x in hw4]
    out.append(
        dict(
            name="isa-spec/wormhole_b0/unpack/bfp4a-to-srcb",
            arch="wormhole_b0",
            detail=f"{BFP_DOC}, with the {MODEL}: BFP4a (exponents 16 and 9) on unpacker 1 into SrcB "
            "as FP16 cells (SrcASrcB.md). OutAddr = ch1 Y 1 * Ystride 16 = 16 (4-bit format, not scaled); "
            "SrcB has no header rows, so rows 1 and 2.",
            tags=["unpack", "wormhole_b0", "bfp-a", "bfp4a", "srcb", "isa-spec"],
            l1=[(tile_addr(base), bfp_tile(4, wh4_exps, BFP4A_DATUMS))],
            config=merge(
                descriptor("wormhole_b0", 1, "bfp4a", 32, 1),
                config(
                    "wormhole_b0",
                    THCON_SEC1_REG2_Out_data_format=FMT["bfp4a"],
                    THCON_SEC1_REG3_Base_address=base,
                    UNP1_ADDR_CTRL_XY_REG_1_Ystride=16,
                ),
            ),
            srcb=canary_rows(0, range(4)),
            program=[(0, [setadcxx(U1, 0, 31), setadcxy(U1, y1=1), unpacr(unpacker=1)])],
            expect_srcb=[(0, 1, cw4[:16]), (0, 2, cw4[16:])] + canary_rows(0, [0, 3]),
        )
    )
    return out


def wormhole_vectors():
    out = []
    arch = "wormhole_b0"
    P = "isa-spec/wormhole_b0/unpack/"
    base = 0x1000
    d = bf16_values(144, 11)
    # RowStride = Shift_amount_cntx0 << 4 = 96 bytes = 48 BF16 datums.
    rows = [d[0:16], d[48:64], d[96:112]]
    out.append(
        dict(
            name=P + "tilize-bf16-discontiguous-rows",
            arch=arch,
            detail=f"{MODEL}: Tileize_mode (DiscontiguousInputRows) moves the input address on by "
            "RowStride = Shift_amount_cntx0 6 << 4 = 96 bytes after every 16 datums, so 48 BF16 datums "
            "come from datums 0..15, 48..63 and 96..111 of the tile. OutAddr = ch1 Y 4 * Ystride 32 / 2 "
            "= 64: SrcA rows 0..2. ColShift is 0 in tileize mode.",
            tags=["unpack", arch, "tilize", "isa-spec"],
            l1=[(tile_addr(base), le16(d))],
            config=merge(
                descriptor(arch, 0, "bf16", 144, 1),
                config(
                    arch,
                    THCON_SEC0_REG2_Out_data_format=FMT["bf16"],
                    THCON_SEC0_REG2_Tileize_mode=1,
                    THCON_SEC0_REG2_Shift_amount_cntx0=6,
                    THCON_SEC0_REG3_Base_address=base,
                    UNP0_ADDR_CTRL_XY_REG_1_Ystride=32,
                ),
            ),
            srca=canary_rows(0, range(4)),
            program=[(0, [setadcxx(U0, 0, 47), setadcxy(U0, y1=4), unpacr()])],
            expect_srca=[(0, r, [cell_from_bf16(b) for b in rows[r]]) for r in range(3)]
            + canary_rows(0, [3]),
        )
    )
    out.append(
        dict(
            name=P + "context-adc-3-is-undefined",
            arch=arch,
            detail=f"{MODEL}: in MultiContextMode, WhichADC = ContextADC, and ContextADC 3 is "
            "UndefinedBehaviour (there are three ADC sets).",
            tags=["unpack", arch, "context", "fault", "isa-spec"],
            config=merge(
                descriptor(arch, 0, "bf16", 16, 1),
                config(arch, THCON_SEC0_REG2_Out_data_format=FMT["bf16"], THCON_SEC0_REG3_Base_address=base),
            ),
            program=[(0, [setadcxx(U0, 0, 15), unpacr(multi=1, context_adc=3)])],
            fault="undefined_behavior",
        )
    )
    return out


def fault_vectors(prefix):
    out = []
    base = 0x1000
    d = bf16_values(64, 1)
    out.append(
        dict(
            name=prefix + "tilize-with-upsampling-is-undefined",
            arch="blackhole",
            detail=f"{MODEL}, settings check: DiscontiguousInputRows (Tileize_mode) with UpsampleZeroes > "
            "0 (Upsample_rate 1) is UndefinedBehaviour.",
            tags=["unpack", "blackhole", "tilize", "upsampling", "fault", "isa-spec"],
            l1=[(tile_addr(base), le16(d[:16]))],
            config=bh_plain(
                "bf16",
                16,
                1,
                base,
                UNP0_ADDR_CTRL_XY_REG_1_Ystride=32,
                THCON_SEC0_REG2_Tileize_mode=1,
                THCON_SEC0_REG2_Shift_amount_cntx0=2,
                THCON_SEC0_REG2_Upsample_rate=1,
            ),
            program=[(0, [setadcxx(U0, 0, 15), setadcxy(U0, y1=4), unpacr()])],
            fault="undefined_behavior",
        )
    )
    out.append(
        dict(
            name=prefix + "haloize-unaligned-input-is-undefined",
            arch="blackhole",
            detail=f"{MODEL}, settings check: Transpose (Haloize_mode) requires InAddr_Datums on a 16-byte "
            "boundary; ch0 X 1 puts the first BF16 datum 2 bytes past one, which is UndefinedBehaviour.",
            tags=["unpack", "blackhole", "haloize", "fault", "isa-spec"],
            l1=[(tile_addr(base), le16(d[:32]))],
            config=bh_plain(
                "bf16", 32, 1, base, UNP0_ADDR_CTRL_XY_REG_1_Ystride=32, THCON_SEC0_REG2_Haloize_mode=1
            ),
            program=[(0, [setadcxx(U0, 1, 16), setadcxy(U0, y1=4), unpacr()])],
            fault="undefined_behavior",
        )
    )
    out.append(
        dict(
            name=prefix + "unpacker1-context-2-is-undefined",
            arch="blackhole",
            detail=f"{MODEL}: in MultiContextMode, WhichUnpacker == 1 with WhichContext >= 2 is "
            "UndefinedBehaviour (unpacker 1 has contexts 0 and 1); ContextNumber 2 selects it.",
            tags=["unpack", "blackhole", "context", "fault", "isa-spec"],
            config=merge(
                descriptor("blackhole", 1, "bf16", 16, 1),
                config(
                    "blackhole",
                    THCON_SEC1_REG2_Out_data_format=FMT["bf16"],
                    THCON_SEC1_REG3_Base_address=base,
                ),
            ),
            program=[(0, [setadcxx(U1, 0, 15), unpacr(unpacker=1, multi=1, context=2)])],
            fault="undefined_behavior",
        )
    )
    out.append(
        dict(
            name=prefix + "third-bank-flip-deadlocks",
            arch="blackhole",
            detail=f"{MODEL} with SrcASrcB.md: both SrcA banks start with AllowedClient = Unpackers; each "
            "UNPACR with FlipSrc gives its bank to the matrix unit and moves to the other. The third UNPACR "
            "waits for bank 0 to come back (while AllowedClient != Unpackers), and no thread releases it "
            "(no CLEARDVALID): a deadlock.",
            tags=["unpack", "blackhole", "handshake", "fault", "isa-spec"],
            l1=[(tile_addr(base), le16(d[:16]))],
            config=bh_plain("bf16", 16, 1, base, UNP0_ADDR_CTRL_XY_REG_1_Ystride=32),
            program=[
                (
                    0,
                    [
                        setadcxx(U0, 0, 15),
                        setadcxy(U0, y1=4),
                        unpacr(flip=1),
                        unpacr(flip=1),
                        unpacr(flip=1),
                    ],
                )
            ],
            fault="deadlock",
        )
    )
    return out


def sequencing_vectors():
    """Compressed BFP8, the input FIFO wrap, SrcRow and the bank flip."""
    out = []
    bh = "isa-spec/blackhole/unpack/"
    base = 0x1000

    # Compressed BFP8: one exponent per 16 augmented datums.
    row = [0x40 + i for i in range(32)]
    for i in range(3, 13):
        row[i] = 0
    row[20] = 0x80  # sign with zero magnitude: BF16 0xff80
    exps = [127, 130]
    aug, counts = compress_row(row)
    assert len(aug) == 22
    tile, rsi = compressed_tile([row], datum_bytes=1, exps=exps)
    bf = []
    for k, (dm, n) in enumerate(zip(aug, counts)):
        bf += [bfp8_to_bf16(dm, exps[k // 16])] + [0] * n
    # Positions 16..25 (augmented 6..15) take the first exponent: indexing
    # by decompressed position would have given them the second.
    assert bf[16] == bfp8_to_bf16(row[16], exps[0]) != bfp8_to_bf16(row[16], exps[1])
    c = [cell_from_bf16(b) for b in bf]
    out.append(
        dict(
            name=bh + "decompress-bfp8-exponents-per-augmented-datum",
            arch="blackhole",
            detail=f"Packers/Compression.md: compressed BFP data has one exponent per 16 augmented datums "
            "(the array is sized for the original datums, ceil(32 / 16) = 2, after the RSI array, each "
            f"padded to 16 bytes); with the {MODEL} the exponent address starts at RSI[Y] / 16 and moves on "
            "1/16 per datum read. A 32-datum row with a run of 10 zeros keeps 22 datums, so original "
            "positions 16..25 (augmented 6..15) still take exponent 127 and only 26..31 take 130. "
            "BFP8ToBF16 (FloatBitPatterns.md) gives BF16, each checked against the BFP8 table; magnitude 0 "
            "with the sign set is 0xff80. OutAddr = ch1 Y 4 * Ystride 16 = 64 (8-bit format): SrcA rows 0, 1.",
            tags=["unpack", "blackhole", "decompression", "bfp8", "isa-spec"],
            l1=[(tile_addr(base), tile)],
            config=merge(
                descriptor("blackhole", 0, "bfp8", 32, 1, uncompressed=False),
                config(
                    "blackhole",
                    THCON_SEC0_REG2_Out_data_format=FMT["bfp8"],
                    THCON_SEC0_REG3_Base_address=base,
                    UNP0_ADDR_CTRL_XY_REG_1_Ystride=16,
                ),
            ),
            srca=canary_rows(0, range(3)),
            program=[(0, [setadcxx(U0, 0, 31), setadcxy(U0, y1=4), unpacr()])],
            expect_srca=[(0, 0, c[:16]), (0, 1, c[16:]), (0, 2, CANARY_ROW)],
        )
    )

    # The input FIFO wrap, checked only after every 16 datums.
    for arch, fmt, ystride in [("wormhole_b0", "bf16", 32), ("blackhole", "fp8", 16)]:
        size = 2 if fmt == "bf16" else 1
        start = tile_addr(base)
        limit = (start + 16 * size) // 16  # row 0 ends exactly at Limit * 16
        fifo = 0x40
        wrapped = start + 32 * size - fifo * 16
        if fmt == "bf16":
            vals = bf16_values(64, 21)
            data, far = le16(vals[:48]), le16(vals[48:])
            cell = cell_from_bf16
        else:
            vals = [(0x21 + 5 * i) & 0x7E for i in range(64)]
            data, far = bytes(vals[:48]), bytes(vals[48:])

            def cell(x):
                return cell_from_fp16(x << 8)

        rows = [vals[0:16], vals[16:32], vals[48:64]]
        out.append(
            dict(
                name=f"isa-spec/{arch}/unpack/fifo-wrap-at-row-boundary",
                arch=arch,
                detail=f"{MODEL}, WrapAddr: an address past Unpack_limit_address * 16 moves back by "
                "Unpack_fifo_size * 16, and the datum address is only checked at the start and after every "
                f"16 datums. With {fmt.upper()} datums from {start:#x} and the limit at {limit * 16:#x} "
                "(the end of row 0), row 1 is read in place (equal is not past; crossing mid-row is not "
                f"checked) and row 2, due at {start + 32 * size:#x}, comes from {wrapped:#x} "
                f"(fifo size {fifo:#x}). SrcA rows 0..2.",
                tags=["unpack", arch, "fifo", "isa-spec"],
                l1=[(wrapped, far), (start, data)],
                config=merge(
                    descriptor(arch, 0, fmt, 64, 1),
                    config(
                        arch,
                        THCON_SEC0_REG2_Out_data_format=FMT[fmt],
                        THCON_SEC0_REG2_Unpack_limit_address=limit,
                        THCON_SEC0_REG2_Unpack_fifo_size=fifo,
                        THCON_SEC0_REG3_Base_address=base,
                        UNP0_ADDR_CTRL_XY_REG_1_Ystride=ystride,
                    ),
                ),
                srca=canary_rows(0, range(4)),
                program=[(0, [setadcxx(U0, 0, 47), setadcxy(U0, y1=4), unpacr()])],
                expect_srca=[(0, r, [cell(x) for x in rows[r]]) for r in range(3)] + canary_rows(0, [3]),
            )
        )

    # SrcRow: Unpack_Src_Reg_Set_Upd adds 16 + (SRCA_SET_Base << 4).
    d = bf16_values(32, 30)
    out.append(
        dict(
            name=bh + "src-row-advances-by-set-base",
            arch="blackhole",
            detail=f"{MODEL}, end: without FlipSrc, Unpack_Src_Reg_Set_Upd adds 16 + SrcRowBase "
            "(SRCA_SET_Base 1 << 4 = 16) to the thread's SrcRow (0 in the reset state), and SrcA writes add "
            "SrcRow to the row. Two UNPACRs with the same OutAddr (64) and Ch0YInc 1 put tile rows 0 and 1 "
            "in SrcA rows 0 and 32.",
            tags=["unpack", "blackhole", "src-row", "isa-spec"],
            l1=[(tile_addr(base), le16(d))],
            config=bh_plain(
                "bf16", 16, 2, base, UNP0_ADDR_CTRL_XY_REG_1_Ystride=32, THCON_SEC0_REG2_Unpack_Src_Reg_Set_Upd=1
            ),
            thread_config=[(0, SRCA_SET["blackhole"], 0x0001)],
            srca=canary_rows(0, [0, 1, 16, 32, 33]),
            program=[(0, [setadcxx(U0, 0, 15), setadcxy(U0, y1=4), unpacr(ch0_y=1), unpacr(ch0_y=1)])],
            expect_srca=[
                (0, 0, [cell_from_bf16(b) for b in d[:16]]),
                (0, 32, [cell_from_bf16(b) for b in d[16:]]),
            ]
            + canary_rows(0, [1, 16, 33]),
            adc=[(0, "unpack0", [0, 2, 0, 0], [15, 4, 0, 0])],
        )
    )

    # FlipSrc hands the bank over and moves the unpacker to the other one.
    out.append(
        dict(
            name=bh + "flip-src-switches-bank",
            arch="blackhole",
            detail=f"{MODEL} with SrcASrcB.md: the unpacker writes SrcA[Unpackers[0].SrcBank], 0 after "
            "reset (SrcASrcB.md); FlipSrc gives that bank to the matrix unit and flips SrcBank. Tile row 0 (FlipSrc) lands "
            "in bank 0 row 0, tile row 1 (next UNPACR, Ch0YInc 1 between) in bank 1 row 0.",
            tags=["unpack", "blackhole", "handshake", "isa-spec"],
            l1=[(tile_addr(base), le16(d))],
            config=bh_plain("bf16", 16, 2, base, UNP0_ADDR_CTRL_XY_REG_1_Ystride=32),
            srca=canary_rows(0, range(2)) + canary_rows(1, range(2)),
            program=[(0, [setadcxx(U0, 0, 15), setadcxy(U0, y1=4), unpacr(flip=1, ch0_y=1), unpacr()])],
            expect_srca=[
                (0, 0, [cell_from_bf16(b) for b in d[:16]]),
                (0, 1, CANARY_ROW),
                (1, 0, [cell_from_bf16(b) for b in d[16:]]),
                (1, 1, CANARY_ROW),
            ],
        )
    )
    return out


def vectors():
    bh = "isa-spec/blackhole/unpack/"
    wh = "isa-spec/wormhole_b0/unpack/"
    return (
        decompression_vectors("blackhole", bh)
        + decompression_vectors("wormhole_b0", wh)
        + output_vectors(bh)
        + context_vectors(bh)
        + bfp_vectors()
        + fault_vectors(bh)
        + wormhole_vectors()
        + sequencing_vectors()
    )


if __name__ == "__main__":
    write_all(vectors(), emit, sys.argv[1:])
