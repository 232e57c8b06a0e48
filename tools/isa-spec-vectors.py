#!/usr/bin/env python3
"""Write the hand-derived `isa-spec` conformance vectors for the packer and the
MOP expander.

Every expected byte here is worked out in this file, from the rules the
tt-isa-documentation pages state, with plain integer arithmetic of its own.
Nothing is taken from the emulator. Each vector's `provenance.detail` names
the page and rule it follows, and any reading the pages leave open.

Usage: tools/isa-spec-vectors.py [--force] [OUT_DIR]
OUT_DIR defaults to conformance-vectors (the vector names begin with
isa-spec/). An existing file is only replaced with --force.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vectorgen import (  # noqa: E402
    FMT,
    PK,
    bf16,
    fp16,
    header,
    incadcxy,
    incadczw,
    l1_list,
    le16,
    nibbles,
    pad16,
    setadcxx,
    setadcxy,
    word,
    write_all,
)

# ---------------------------------------------------------------------------
# Instruction words. Layouts are from tt-isa-documentation
# Diagrams/Src/Bits32.lua, except Blackhole PACR, which that file does not
# draw: its layout is from ttsim's Blackhole ISA table (Last [0], Flush [1],
# CtxtCtrl [3:2], Concat [4], OvrdThreadId [7], ReadIntfSel [11:8],
# ZeroWrite [12], AddrCntContext [14:13], AddrMode [16:15], DstAccessMode [17],
# RowPadZero [20:18], CfgContext [22:21]).
# ---------------------------------------------------------------------------

NOP = 0x02000000


def pacr_bh(last=0, flush=0, concat=0, read_intf_sel=0, zero_write=0, addr_mode=0):
    return word(
        0x41,
        (last, 0, 1),
        (flush, 1, 1),
        (concat, 4, 1),
        (read_intf_sel, 8, 4),
        (zero_write, 12, 1),
        (addr_mode, 15, 2),
    )


def pacr_wh(last=0, flush=0, packer_mask=0, addr_mode=0):
    return word(0x41, (last, 0, 1), (flush, 1, 1), (packer_mask, 8, 4), (addr_mode, 15, 2))


def mop(template, count1=0, mask_lo=0):
    return word(0x01, (mask_lo, 0, 16), (count1, 16, 7), (template, 23, 1))


def mop_cfg(mask_hi):
    return word(0x03, (mask_hi, 0, 16))


# ---------------------------------------------------------------------------
# Datum formats, as FloatBitPatterns.md and Packers/FormatConversion.md
# describe them.
# ---------------------------------------------------------------------------


def bfp_a_group(fp16_values, width):
    """Late conversion to BFP8a / BFP4a (Packers/FormatConversion.md, "Late
    format conversion"): FP16 is first truncated to E5M7; the shared exponent
    is the largest 5-bit exponent of the 16; each datum's mantissa with its
    hidden bit is shifted right by (shared - own) and by the one place that
    leaves seven magnitude bits, rounding half away from zero; a carry to 128
    clamps to 127 and a shift of eight or more gives zero (reference README,
    device facts, stated for BFP8 and applied alike to the "a" form). BFP4a
    truncates the BFP8a magnitude to three bits. A zero magnitude carries no
    sign."""
    fields = []
    for v in fp16_values:
        exp = (v >> 10) & 0x1F
        man7 = (v >> 3) & 0x7F
        fields.append((v >> 15, exp, man7))
    shared = max(e for _, e, _ in fields)
    datums = []
    for sign, exp, man7 in fields:
        m = man7 | (0x80 if exp else 0)
        shift = shared - exp
        if shift >= 8:
            mag = 0
        else:
            full = m  # eight significant bits, aligned to 2^(own exponent)
            # Dividing by 2^(shift+1) and rounding half away from zero.
            div = 1 << (shift + 1)
            mag = (full + div // 2) // div
            mag = min(mag, 127)
        if width == 4:
            mag >>= 4
        datums.append(0 if mag == 0 else (sign << (width - 1)) | mag)
    return shared, datums


# ---------------------------------------------------------------------------
# YAML in the corpus house style (harness/src/vector/emit.rs).
# ---------------------------------------------------------------------------


def emit(v):
    o = []
    header(o, v)
    if v.get("mop_config"):
        o.append("  mop_config:")
        for t, words in v["mop_config"]:
            o.append(f"    - [{t}, [{', '.join(f'0x{w:08x}' for w in words)}]]")
    if v.get("dst") is not None:
        mode, fmt, rows = v["dst"]
        o.append("  dst:")
        o.append(f"    mode: {mode}")
        o.append(f"    format: {fmt}")
        o.append("    rows:")
        for r, cells in rows:
            o.append(f"      - [{r}, [{', '.join(f'0x{c:04x}' for c in cells)}]]")
    o.append("program:")
    o.append("  - thread: 2")
    o.append("    run:")
    for step in v["program"]:
        if isinstance(step, tuple):
            o.append(f"      - {{cfg: [{step[0]}, 0x{step[1]:08x}]}}")
        else:
            o.append(f"      - 0x{step:08x}")
    o.append("expect:")
    if v.get("fault"):
        o.append(f"  fault: {{kind: {v['fault']}}}")
    if "expect_l1" in v:
        l1_list(o, v["expect_l1"])
    if "adc" in v:
        o.append("  adc:")
        ch0, ch1 = v["adc"]
        o.append(
            f"    - {{thread: 2, unit: pack, ch0: [{', '.join(map(str, ch0))}], ch1: [{', '.join(map(str, ch1))}]}}"
        )
    return "\n".join(o) + "\n"


# ---------------------------------------------------------------------------
# Blackhole packer jobs. The configuration is shaped like tt-llk's: one
# packer config (THCON_SEC0_REG1, words 68-71), BF16 Dst, strides for 16
# datums per row, all-ones edge masks. Addresses are Blackhole config words
# (cfg_defines.h names in the comments).
# ---------------------------------------------------------------------------

BH_L1_DEST = 0x1000  # L1_Dest_addr; first byte at (0x1000 + 1) * 16
BH_OUT = (BH_L1_DEST + 1) * 16


def bh_config(
    dstacc="bf16",
    in_fmt="bf16",
    out_fmt="bf16",
    ystride=32,
    read_raw=0,
    relu=0,
    relu_threshold=0,
    edge=(0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF),
    edge_mode=0,
    row_set_select=0,
    row_set_mappings=(0, 0, 0, 0),
    reads_per_xy_plane=16,
    row_start_section=0,
    exp_section=0,
    l1_dest=BH_L1_DEST,
    disable_zero_compress=1,
    reg1_word71=0,
    extra=(),
):
    cfg = [
        (1, FMT[dstacc] << 25),  # ALU_FORMAT_SPEC_REG2_Dstacc
        (2, (relu << 2) | (relu_threshold << 6)),  # STACC_RELU_ApplyRelu, _ReluThreshold
        (12, ystride << 16),  # PCK0_ADDR_CTRL_XY_REG_0_Ystride (Xstride 0)
        (13, (4 * 16 * ystride) << 16 | (16 * ystride)),  # ..._ZW_REG_0 Zstride, Wstride
        (18, read_raw << 2),  # PCK_DEST_RD_CTRL_Read_int8 ("Read_raw")
    ]
    for i, m in enumerate(row_set_mappings):
        if m:
            cfg.append((20 + i, m))  # TILE_ROW_SET_MAPPING_i
    cfg.append((24, edge[0] | (edge_mode << 16) | (row_set_select << 17)))  # PCK_EDGE_*
    for i in range(1, 4):
        cfg.append((24 + i, edge[i]))  # PCK_EDGE_OFFSET_SECi_mask
    cfg.append((28, reads_per_xy_plane << 8))  # PACK_COUNTERS_SEC0_pack_reads_per_xy_plane
    cfg.append((68, (exp_section << 16) | row_start_section))
    cfg.append((69, l1_dest))  # THCON_SEC0_REG1_L1_Dest_addr
    cfg.append((70, disable_zero_compress | (FMT[out_fmt] << 4) | (FMT[in_fmt] << 8)))
    if reg1_word71:
        cfg.append((71, reg1_word71))
    cfg.extend(extra)
    return cfg


def bf16_rows(rows, fn):
    return [(r, [fn(r, c) for c in range(16)]) for r in rows]


def value(r, c):
    """Distinct, exactly representable, normal BF16 values of both signs."""
    v = (r * 16 + c + 1) * 0.25
    return bf16(-v if c % 3 == 1 else v)


def vectors():
    out = []
    P = "isa-spec/blackhole/pack/"
    dst_rows = bf16_rows(range(8), value)
    dst = ("16b", "bf16", dst_rows)
    row = {r: cells for r, cells in dst_rows}
    opg = "Packers/OutputAddressGenerator.md"

    # --- 16-byte buffers that persist across PACRs -------------------------
    out.append(
        dict(
            name=P + "buffer-joins-two-pacrs",
            arch="blackhole",
            detail=f"{opg}, 'Output alignment' and 'NeedsNewAddress': datums are buffered before L1 and "
            "the buffer persists between PACRs, so two PACRs of four BF16 datums each (ADC X 0..3; the "
            "first without Last) make one 16-byte write at the first PACR's address. AddrMod 0 adds "
            "YsrcIncr 4 so the second PACR reads Dst row 4 (InputAddressGenerator.md). First byte "
            "(L1_Dest_addr + 1) * 16 (reference README, Blackhole).",
            tags=["pack", "blackhole", "output-buffer", "isa-spec"],
            config=bh_config(),
            thread_config=[(2, 37, 0x0004)],
            dst=dst,
            program=[setadcxx(PK, 0, 3), pacr_bh(read_intf_sel=1), pacr_bh(last=1, read_intf_sel=1)],
            expect_l1=[(BH_OUT, le16(row[0][:4] + row[4][:4]))],
            adc=([0, 8, 0, 0], [3, 0, 0, 0]),
        )
    )
    out.append(
        dict(
            name=P + "buffer-spills-and-pads-on-last",
            arch="blackhole",
            detail=f"{opg}, 'Output alignment': a buffer writes to L1 each time it holds 16 bytes and is "
            "zero-padded to 16 when Last flushes it. Two PACRs of six BF16 datums (ADC X 0..5), the "
            "first without Last: 24 bytes give one full write and one half-full write padded with zeros.",
            tags=["pack", "blackhole", "output-buffer", "isa-spec"],
            config=bh_config(),
            thread_config=[(2, 37, 0x0004)],
            dst=dst,
            program=[setadcxx(PK, 0, 5), pacr_bh(read_intf_sel=1), pacr_bh(last=1, read_intf_sel=1)],
            expect_l1=[(BH_OUT, pad16(le16(row[0][:6] + row[4][:6])))],
            adc=([0, 8, 0, 0], [5, 0, 0, 0]),
        )
    )
    out.append(
        dict(
            name=P + "flush-pads-buffered-datums",
            arch="blackhole",
            detail=f"PACR.md (Flush) and {opg}: Flush sets the input datum count to zero and flushes the "
            "output buffers, padding them with zeros. A PACR of four BF16 datums without Last, then a "
            "PACR with Flush: one 16-byte write holding the four datums and eight zero bytes.",
            tags=["pack", "blackhole", "flush", "isa-spec"],
            config=bh_config(),
            dst=dst,
            program=[setadcxx(PK, 0, 3), pacr_bh(read_intf_sel=1), pacr_bh(flush=1, read_intf_sel=1)],
            expect_l1=[(BH_OUT, pad16(le16(row[0][:4])))],
        )
    )
    out.append(
        dict(
            name=P + "last-takes-a-new-address",
            arch="blackhole",
            detail=f"{opg}, 'NeedsNewAddress': after a PACR with Last the next PACR computes a fresh "
            "output address, so a new L1_Dest_addr written between them moves the second row to "
            "(0x2000 + 1) * 16.",
            tags=["pack", "blackhole", "output-address", "isa-spec"],
            config=bh_config(),
            thread_config=[(2, 37, 0x0004)],
            dst=dst,
            program=[
                setadcxx(PK, 0, 15),
                pacr_bh(last=1, read_intf_sel=1),
                (69, 0x2000),
                pacr_bh(last=1, read_intf_sel=1),
            ],
            expect_l1=[(BH_OUT, le16(row[0])), (0x20010, le16(row[4]))],
        )
    )
    out.append(
        dict(
            name=P + "no-last-keeps-the-address",
            arch="blackhole",
            detail=f"{opg}, 'NeedsNewAddress': without Last (or Flush) the data stream keeps its byte "
            "address, so a new L1_Dest_addr written between two PACRs does not move the second row: "
            "both rows land contiguously at the first address.",
            tags=["pack", "blackhole", "output-address", "isa-spec"],
            config=bh_config(),
            thread_config=[(2, 37, 0x0004)],
            dst=dst,
            program=[
                setadcxx(PK, 0, 15),
                pacr_bh(read_intf_sel=1),
                (69, 0x2000),
                pacr_bh(last=1, read_intf_sel=1),
            ],
            expect_l1=[(BH_OUT, le16(row[0] + row[4]))],
        )
    )
    out.append(
        dict(
            name=P + "zero-write-packs-zeros",
            arch="blackhole",
            detail="PACR.md (ZeroWrite) and Packers/InputAddressGenerator.md: ZeroWrite fetches datums "
            "from /dev/null instead of Dst, so a full BF16 row packs as 32 zero bytes.",
            tags=["pack", "blackhole", "zero-write", "isa-spec"],
            config=bh_config(),
            dst=dst,
            program=[setadcxx(PK, 0, 15), pacr_bh(last=1, read_intf_sel=1, zero_write=1)],
            expect_l1=[(BH_OUT, bytes(32))],
        )
    )
    out.append(
        dict(
            name=P + "output-yzw-shifted-right-four",
            arch="blackhole",
            detail=f"{opg}: YZW_Addr = Base + Y*Ystride + Z*Zstride + W*Wstride from ADC channel 1, "
            "shifted right by 4 on Blackhole, is added to the 16-byte-unit address. ADC ch1 Y = 2 and "
            "PCK0_ADDR_CTRL_XY_REG_1_Ystride = 0x30 add 0x60 >> 4 = 6 units (96 bytes).",
            tags=["pack", "blackhole", "output-address", "isa-spec"],
            config=bh_config(extra=[(14, 0x30 << 16)]),
            dst=dst,
            program=[setadcxx(PK, 0, 15), setadcxy(PK, y1=2), pacr_bh(last=1, read_intf_sel=1)],
            expect_l1=[(BH_OUT + 0x60, le16(row[0]))],
        )
    )

    # --- Output FIFO wrap ---------------------------------------------------
    # Blackhole's single packer uses THCON_SEC0_REG9_Pack_0_2_limit_address and
    # _fifo_size (words 100, 101), the registers of Wormhole's packer 0.
    for name, limit, expect_addr, what in [
        ("fifo-wraps-past-limit", 0x1000, 0x20010, "0x3001 > 2*0x1000+1, so 0x800*2 units are taken off: "
         "the row lands at 0x2001 * 16"),
        ("fifo-limit-is-inclusive", 0x1800, 0x30010, "0x3001 is not greater than 2*0x1800+1, so the "
         "address is kept"),
    ]:
        out.append(
            dict(
                name=P + name,
                arch="blackhole",
                detail=f"{opg}: if Addr > Pack_limit_address*2+1 then Addr -= Pack_fifo_size*2 (16-byte "
                f"units). L1_Dest_addr 0x3000 gives Addr 0x3001; {what}.",
                tags=["pack", "blackhole", "fifo-wrap", "isa-spec"],
                config=bh_config(l1_dest=0x3000, extra=[(100, limit), (101, 0x800)]),
                dst=dst,
                program=[setadcxx(PK, 0, 15), pacr_bh(last=1, read_intf_sel=1)],
                expect_l1=[(expect_addr, le16(row[0]))],
            )
        )

    # --- Edge masking --------------------------------------------------------
    masks = (0xFFFF, 0x00FF, 0xF0F0, 0x0001)

    def masked(cells, mask, mode):
        fill = 0xFF80 if mode else 0x0000
        return [c if mask >> i & 1 else fill for i, c in enumerate(cells)]

    ident = 0 | 1 << 2 | 2 << 4 | 3 << 6  # row n of the tile uses mask n
    for mode, what in [(0, "zero"), (1, "minus-infinity")]:
        out.append(
            dict(
                name=P + f"edge-mask-row-set-{what}",
                arch="blackhole",
                detail="Packers/EdgeMasking.md with the Blackhole PACR.md read interfaces: "
                "TILE_ROW_SET_MAPPING_0 sends tile rows 0-3 to PCK_EDGE_OFFSET_SEC0-3 "
                "(masks ffff, 00ff, f0f0, 0001); a clear mask bit replaces the datum with "
                f"{'-inf (BF16 0xff80)' if mode else 'zero'} (PCK_EDGE_MODE_mode = {mode}). "
                "ReadIntfSel 0b1111 packs Dst rows 0-3 as tile rows 0-3.",
                tags=["pack", "blackhole", "edge-mask", "isa-spec"],
                config=bh_config(edge=masks, edge_mode=mode, row_set_mappings=(ident, 0, 0, 0)),
                dst=dst,
                program=[setadcxx(PK, 0, 15), pacr_bh(last=1, read_intf_sel=0xF)],
                expect_l1=[
                    (BH_OUT, le16(sum((masked(row[r], masks[r], mode) for r in range(4)), [])))
                ],
            )
        )
    rev = 3 | 2 << 2 | 1 << 4 | 0 << 6  # tile row n uses mask 3 - n
    out.append(
        dict(
            name=P + "edge-mask-select-and-tile-position",
            arch="blackhole",
            detail="Packers/EdgeMasking.md: PCK_EDGE_TILE_ROW_SET_SELECT_select = 1 picks "
            "TILE_ROW_SET_MAPPING_1 (tile row n -> mask 3-n). Blackhole PACR.md: the tile position "
            "advances by the number of enabled read interfaces and persists across PACRs, so two "
            "PACRs with ReadIntfSel 0b0011 (Dst rows 0,1 then 4,5 after YsrcIncr 4) are tile rows 0-3.",
            tags=["pack", "blackhole", "edge-mask", "isa-spec"],
            config=bh_config(edge=masks, row_set_select=1, row_set_mappings=(0, rev, 0, 0)),
            thread_config=[(2, 37, 0x0004)],
            dst=dst,
            program=[setadcxx(PK, 0, 15), pacr_bh(read_intf_sel=3), pacr_bh(last=1, read_intf_sel=3)],
            expect_l1=[
                (
                    BH_OUT,
                    le16(
                        masked(row[0], masks[3], 0)
                        + masked(row[1], masks[2], 0)
                        + masked(row[4], masks[1], 0)
                        + masked(row[5], masks[0], 0)
                    ),
                )
            ],
        )
    )

    # --- Exponent thresholding ----------------------------------------------
    thr_vals = [1.0, -0.5, 2.0, 0.75, -1.5, 0.125, 3.0, -0.9375, 64.0, 0.5, -1.0, 0.25, 1.25, -0.0625, 8.0, 0.96875]
    cells = [bf16(x) for x in thr_vals]
    kept = [c if ((c >> 7) & 0xFF) >= 127 else 0 for c in cells]
    out.append(
        dict(
            name=P + "exp-threshold-bf16",
            arch="blackhole",
            detail="Packers/ExponentThresholding.md: with Exp_threshold_en, a datum whose 8-bit "
            "exponent (In_data_format BF16) is below Exp_threshold becomes 0. Threshold 127 zeroes "
            "every |x| < 1.",
            tags=["pack", "blackhole", "exp-threshold", "isa-spec"],
            config=bh_config(reg1_word71=(127 << 24) | (1 << 20)),
            dst=("16b", "bf16", [(0, cells)]),
            program=[setadcxx(PK, 0, 15), pacr_bh(last=1, read_intf_sel=1)],
            expect_l1=[(BH_OUT, le16(kept))],
        )
    )
    h_cells = [fp16(x) for x in thr_vals]
    h_kept = [c if ((c >> 10) & 0x1F) >= 15 else 0 for c in h_cells]
    out.append(
        dict(
            name=P + "exp-threshold-fp16",
            arch="blackhole",
            detail="Packers/ExponentThresholding.md: for In_data_format FP16 the 5-bit exponent is "
            "zero-extended and compared with Exp_threshold; threshold 15 zeroes every |x| < 1. FP16 "
            "Dst packed to FP16 (Dstacc FP16, Read_raw 1: identity early conversion).",
            tags=["pack", "blackhole", "exp-threshold", "fp16", "isa-spec"],
            config=bh_config(
                dstacc="fp16", in_fmt="fp16", out_fmt="fp16", read_raw=1, reg1_word71=(15 << 24) | (1 << 20)
            ),
            dst=("16b", "fp16", [(0, h_cells)]),
            program=[setadcxx(PK, 0, 15), pacr_bh(last=1, read_intf_sel=1)],
            expect_l1=[(BH_OUT, le16(h_kept))],
        )
    )
    out.append(
        dict(
            name=P + "exp-threshold-bfp2a-is-undefined",
            arch="blackhole",
            detail="Packers/ExponentThresholding.md: exponent thresholding with In_data_format BFP2a "
            "is UndefinedBehavior (a hardware bug).",
            tags=["pack", "blackhole", "exp-threshold", "fault", "isa-spec"],
            config=bh_config(
                dstacc="fp16", in_fmt="bfp2a", out_fmt="bfp2a", ystride=16, read_raw=1,
                exp_section=1, reg1_word71=(15 << 24) | (1 << 20),
            ),
            dst=("16b", "fp16", [(0, h_cells)]),
            program=[setadcxx(PK, 0, 15), pacr_bh(last=1, read_intf_sel=1)],
            fault="undefined_behavior",
        )
    )

    # --- ReLU thresholds that the ISA leaves undefined -----------------------
    for mode, thr, what in [(2, bf16(-1.0), "min-threshold-negative"), (3, 0x8000, "max-threshold-minus-zero")]:
        out.append(
            dict(
                name=P + f"relu-{what}-is-undefined",
                arch="blackhole",
                detail=f"Packers/ReLU.md: in mode {mode} a threshold with its sign bit set (here BF16 "
                f"0x{thr:04x}) is UndefinedBehavior.",
                tags=["pack", "blackhole", "relu", "fault", "isa-spec"],
                config=bh_config(relu=mode, relu_threshold=thr),
                dst=dst,
                program=[setadcxx(PK, 0, 15), pacr_bh(last=1, read_intf_sel=1)],
                fault="undefined_behavior",
            )
        )

    # --- BFP "a" forms --------------------------------------------------------
    a_vals = [1.0, -1.5, 0.75, 3.0, -0.0625, 2.5, -3.75, 0.001953125, 1.125, -2.0, 0.5, 3.5, -0.25, 1.0078125, 0.0, -3.9921875]
    a_cells = [fp16(x) for x in a_vals]
    for width, fmt in [(8, "bfp8a"), (4, "bfp4a")]:
        shared, datums = bfp_a_group(a_cells, width)
        data = bytes(datums) if width == 8 else nibbles(datums)
        out.append(
            dict(
                name=P + f"fp16-to-{fmt}",
                arch="blackhole",
                detail="Packers/FormatConversion.md: FP16 Dst to E5M7 by Dstacc BFP8a with Read_raw "
                f"(truncation), then late conversion BFP8a -> {fmt.upper()}: shared 5-bit exponent = "
                "the largest of 16, mantissa (hidden bit included) shifted right and rounded half "
                "away from zero to 7 bits (reference README device facts, BFP8), "
                f"{'then truncated to 3 bits; ' if width == 4 else ''}"
                "zero magnitudes unsigned. Output address generator: the exponent byte at the first "
                "address, padded to 16 bytes, then Exp_section_size = 1 unit later the datums.",
                tags=["pack", "blackhole", "bfp-a", fmt, "isa-spec"],
                config=bh_config(
                    dstacc="bfp8a", in_fmt="bfp8a", out_fmt=fmt, ystride=16, read_raw=1, exp_section=1
                ),
                dst=("16b", "fp16", [(0, a_cells)]),
                program=[setadcxx(PK, 0, 15), pacr_bh(last=1, read_intf_sel=1)],
                expect_l1=[(BH_OUT, pad16(bytes([shared]))), (BH_OUT + 16, pad16(data))],
            )
        )

    # --- Zero compression ----------------------------------------------------
    zc = [1, 0, 0, 2, 3, 0, 0, 0, 4, 0, 5, 6, 0, 0, 0, 7]
    zc_cells = [bf16(float(x)) if x else 0 for x in zc]
    aug, counts = [], []
    for i, c in enumerate(zc_cells):
        if c != 0 or i == 0 or i == 15:
            aug.append(c)
            counts.append(0)
        else:
            counts[-1] += 1
    n = len(aug)
    counters = bytearray(16)
    for i, k in enumerate(counts):
        counters[i // 2] |= k << (4 * (i % 2))
    out.append(
        dict(
            name=P + "zero-compression-one-row",
            arch="blackhole",
            detail="Packers/Compression.md with OutputAddressGenerator.md (PerformingCompression, "
            "Row_start_section_size): one PACR with Last is one row; its first and last datums are "
            "kept, other zeros are folded into the previous datum's 4-bit zero count. RSI stream "
            "at the first address: RSI[0] = 0, RSI[1] = augmented datum count, 16-bit each, padded; "
            "data stream 1 unit later: the N kept datums, zero padding up to 32 datums, then 32 "
            "counters (low nibble first) padded to 16 bytes. The page does not specify exactly when "
            "the hardware emits RSI entries; this vector takes the array as the format defines it.",
            tags=["pack", "blackhole", "zero-compression", "isa-spec"],
            config=bh_config(disable_zero_compress=0, row_start_section=1),
            dst=("16b", "bf16", [(0, zc_cells)]),
            program=[setadcxx(PK, 0, 15), pacr_bh(last=1, read_intf_sel=1)],
            expect_l1=[
                (BH_OUT, pad16(le16([0, n]))),
                (BH_OUT + 16, le16(aug + [0] * (32 - n)) + bytes(counters)),
            ],
        )
    )

    # --- Downsampling --------------------------------------------------------
    out.append(
        dict(
            name=P + "downsample-even-columns",
            arch="blackhole",
            source="derived",
            detail="Seed 000 section 10 (the ISA page Packers/Downsampling.md is not in the stored "
            "documentation): Downsample_mask bit i keeps datum i of each 16 and drops it when clear; "
            "mask 0x5555 keeps the even columns, so a BF16 row packs as 8 datums, 16 bytes.",
            tags=["pack", "blackhole", "downsampling"],
            config=bh_config(reg1_word71=0x5555),
            dst=dst,
            program=[setadcxx(PK, 0, 15), pacr_bh(last=1, read_intf_sel=1)],
            expect_l1=[(BH_OUT, le16(row[0][0::2]))],
        )
    )

    # --- L1 accumulation ------------------------------------------------------
    old = [bf16(x) for x in [1.0, 2.0, -0.5, 4.0, 0.25, -8.0, 3.0, 0.5, 1.5, -1.0, 16.0, 0.75, -2.0, 6.0, 0.125, 1.0]]
    new = [bf16(x) for x in [2.0, -2.0, 0.25, 4.0, 0.5, 4.0, -1.0, 0.5, 0.5, -1.0, 16.0, 0.25, 1.0, -2.0, 0.125, -1.0]]

    def bf16_value(b):
        return struct.unpack("<f", struct.pack("<I", b << 16))[0]

    sums = []
    for a, b in zip(old, new):
        s = bf16_value(a) + bf16_value(b)
        sums.append(bf16(s) if s != 0 else 0)
    out.append(
        dict(
            name=P + "l1-accumulate-bf16",
            arch="blackhole",
            detail="Pack_L1_Acc (BackendConfiguration; seed 000 section 13 describes it): the packer "
            "adds each datum to the BF16 value already in L1 instead of overwriting it. Every sum "
            "here is exact in BF16 and none is -0, so rounding cannot matter.",
            tags=["pack", "blackhole", "l1-acc", "isa-spec"],
            l1=[(BH_OUT, le16(old))],
            config=bh_config(reg1_word71=1 << 19),
            dst=("16b", "bf16", [(0, new)]),
            program=[setadcxx(PK, 0, 15), pacr_bh(last=1, read_intf_sel=1)],
            expect_l1=[(BH_OUT, le16(sums))],
        )
    )

    # --- Read interface selection faults -------------------------------------
    out.append(
        dict(
            name=P + "read-intf-past-group-is-undefined",
            arch="blackhole",
            detail="Blackhole PACR.md, 'Dst read interfaces': if (ReadIntfSel << (StartRow & 3)) > "
            "0b1111 the behaviour is undefined. ADC ch0 Y = 1 gives StartRow 1 and ReadIntfSel "
            "0b1111 overflows the group of four.",
            tags=["pack", "blackhole", "read-intf", "fault", "isa-spec"],
            config=bh_config(),
            dst=dst,
            program=[setadcxx(PK, 0, 15), setadcxy(PK, y0=1), pacr_bh(last=1, read_intf_sel=0xF)],
            fault="undefined_behavior",
        )
    )

    # --- Wormhole B0 --------------------------------------------------------
    W = "isa-spec/wormhole_b0/pack/"
    wh_common = [
        (1, FMT["bf16"] << 25),  # ALU_FORMAT_SPEC_REG2_Dstacc
        (8, (32 << 12)),  # PCK0_ADDR_CTRL_XY_REG_0_Ystride (Xstride 0)
        (9, (2048 << 12) | 512),  # ..._ZW_REG_0
        (20, 0xFFFF),  # PCK_EDGE_OFFSET_SEC0_mask
        (24, 16 << 8),  # PACK_COUNTERS_SEC0_pack_reads_per_xy_plane
        (57, 0x1000),  # THCON_SEC0_REG1_L1_Dest_addr
        (58, 1 | (5 << 4) | (5 << 8)),  # Disable_zero_compress, Out BF16, In BF16
    ]
    out.append(
        dict(
            name=W + "output-yzw-masked-to-256-bytes",
            arch="wormhole_b0",
            detail=f"{opg}: on Wormhole YZW_Addr is in 16-byte units and masked with ~15. ADC ch1 Y = 2 "
            "and PCK0_ADDR_CTRL_XY_REG_1_Ystride = 0x13 give 0x26 & ~15 = 0x20 units: the row lands "
            "0x200 bytes after (0x1000 + 1) * 16.",
            tags=["pack", "wormhole_b0", "output-address", "isa-spec"],
            config=wh_common + [(10, 0x13 << 12)],
            dst=dst,
            program=[setadcxx(PK, 0, 15), setadcxy(PK, y1=2), pacr_wh(last=1, packer_mask=1)],
            expect_l1=[(0x10010 + 0x200, le16(row[0]))],
        )
    )
    out.append(
        dict(
            name=W + "packer-mask-zero-means-packer-0",
            arch="wormhole_b0",
            detail="Wormhole PACR.md: PackerMask 0b0000 is rewritten to 0b0001, so packer 0 packs Dst "
            "row 0 to (L1_Dest_addr + 1) * 16.",
            tags=["pack", "wormhole_b0", "packer-mask", "isa-spec"],
            config=wh_common,
            dst=dst,
            program=[setadcxx(PK, 0, 15), pacr_wh(last=1, packer_mask=0)],
            expect_l1=[(0x10010, le16(row[0]))],
        )
    )
    out.append(
        dict(
            name=W + "packer-mask-0110-is-undefined",
            arch="wormhole_b0",
            detail="Wormhole PACR.md: a PackerMask other than 0000, 0001, 0010, 0100, 1000, 0011, 1100 "
            "and 1111 is undefined.",
            tags=["pack", "wormhole_b0", "packer-mask", "fault", "isa-spec"],
            config=wh_common,
            dst=dst,
            program=[setadcxx(PK, 0, 15), pacr_wh(last=1, packer_mask=0b0110)],
            fault="undefined_behavior",
        )
    )
    return out


def mop_vectors():
    out = []
    M = "isa-spec/blackhole/mop/"
    doc = "MOPExpander.md functional model"

    def cfg(**k):
        words = [NOP] * 9
        for i, name in enumerate(
            ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"]
        ):
            if name in k:
                words[i] = k[name]
        return words

    # Template 1: outer 3, inner 2; LoopOp, Loop1Last (not last outer), Loop0Last.
    out.append(
        dict(
            name=M + "template1-last-iteration-overrides",
            detail=f"{doc}, ExpandTemplate1: OuterCount 3, InnerCount 2, StartOp NOP. Each outer "
            "iteration yields LoopOp (ch0 X+1) then Loop1Last (ch1 X+1), except the last, which "
            "yields Loop0Last (ch0 Y+1); EndOp0 (ch0 Z+1) ends each. Totals: ch0 X 3, Y 1, Z 3; ch1 X 2.",
            mop_config=cfg(c0=3, c1=2, c3=incadczw(PK, z0=1), c5=incadcxy(PK, x0=1), c7=incadcxy(PK, y0=1), c8=incadcxy(PK, x1=1)),
            program=[mop(1)],
            adc=([3, 1, 3, 0], [2, 0, 0, 0]),
        )
    )
    out.append(
        dict(
            name=M + "template1-loopop1-alternates",
            detail=f"{doc}, ExpandTemplate1: a LoopOp1 that is not NOP doubles InnerCount (2 -> 4) "
            "and alternates LoopOp (ch0 X+1) and LoopOp1 (ch0 Y+1); the fourth, last, iteration is "
            "Loop0Last (ch0 W+1). Totals: ch0 X 2, Y 1, W 1.",
            mop_config=cfg(c0=1, c1=2, c5=incadcxy(PK, x0=1), c6=incadcxy(PK, y0=1), c7=incadczw(PK, w0=1)),
            program=[mop(1)],
            adc=([2, 1, 0, 1], [0, 0, 0, 0]),
        )
    )
    out.append(
        dict(
            name=M + "template1-outer-count-bug-is-unsupported",
            detail=f"{doc}: OuterCount 1 with StartOp NOP, InnerCount 0 and EndOp0 not NOP is the "
            "documented hardware bug. The older Wormhole-only revision of the page says it adds 128 to "
            "OuterCount; the later revision shared with Blackhole marks the case "
            "UnsupportedFunctionality, and the later revision is followed here.",
            mop_config=cfg(c0=1, c1=0, c3=incadcxy(PK, x0=1)),
            program=[mop(1)],
            fault="unsupported",
        )
    )
    out.append(
        dict(
            name=M + "template0-mask-selects-skip",
            detail=f"{doc}, ExpandTemplate0: Count1 5 gives six iterations; mask 0b010110 skips "
            "iterations 1, 2 and 4. HasB: each kept iteration yields InsnA0 (ch0 X+1) and InsnB "
            "(ch0 Y+1), each skipped one SkipA0 (ch1 X+1) and SkipB (ch0 Z+1).",
            mop_config=cfg(c1=1, c2=incadcxy(PK, y0=1), c3=incadcxy(PK, x0=1), c7=incadcxy(PK, x1=1), c8=incadczw(PK, z0=1)),
            program=[mop(0, count1=5, mask_lo=0b010110)],
            adc=([3, 3, 3, 0], [3, 0, 0, 0]),
        )
    )
    out.append(
        dict(
            name=M + "template0-mask-hi-from-mop-cfg",
            detail=f"{doc}: MOP_CFG sets MaskHi, the top 16 bits of the template 0 mask. MaskHi 1 "
            "and Count1 16 (17 iterations) skip only iteration 16. HasA123: kept iterations yield "
            "A0 (ch0 X+1), A1 (ch0 Y+1), A2 (ch1 X+1), A3 (ch1 Y+2); the skip yields SkipA0 "
            "(ch0 W+1).",
            mop_config=cfg(
                c1=2, c3=incadcxy(PK, x0=1), c4=incadcxy(PK, y0=1), c5=incadcxy(PK, x1=1), c6=incadcxy(PK, y1=2),
                c7=incadczw(PK, w0=1),
            ),
            program=[mop_cfg(1), mop(0, count1=16, mask_lo=0)],
            adc=([16, 16, 0, 1], [16, 32, 0, 0]),
        )
    )
    for v in out:
        v["arch"] = "blackhole"
        v["tags"] = ["mop", "frontend", "isa-spec"]
        v["mop_config"] = [(2, v["mop_config"])]
    return out


if __name__ == "__main__":
    write_all(vectors() + mop_vectors(), emit, sys.argv[1:])
