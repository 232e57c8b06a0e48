//! `Dst` cell layouts, the `Dst32b` row pairing, and RISC-V access to `Dst`.
//!
//! tt-isa-documentation `WormholeB0/TensixTile/TensixCoprocessor/Dst.md` and
//! `BlackholeA0/TensixTile/TensixCoprocessor/Dst.md`: the storage is
//! `uint16_t DstBits[1024][16]`. Floats are kept with the exponent below the
//! mantissa ("Data type bit layout"; the `DstEncode*` / `DstDecode*` helpers
//! in "Pseudocode helpers"):
//!
//! | type        | 15   | 14:8          | 7:0                          |
//! |-------------|------|---------------|------------------------------|
//! | BF16        | sign | mantissa      | exponent                     |
//! | FP16        | sign | mantissa 14:5 | exponent in 4:0              |
//! | Integer "8" | sign | magnitude 14:5| 16 or 0 in 4:0               |
//! | Integer "16"| sign | magnitude 14:0 (no rearrangement)            ||
//!
//! A `Dst32b` datum is the BF16 arrangement applied to its high 16 bits
//! (FP32: sign 31, mantissa high 30:24, exponent 23:16, mantissa low 15:0);
//! INT32 uses the same arrangement with the magnitude's top eight bits in the
//! exponent position. Reads of `Dst32b[Row]` give
//! `(DstBits[Adj32(Row)] << 16) | DstBits[Adj32(Row) + 8]`: the high half
//! lives in the lower-numbered row. (Seed 002 section 9 states the opposite
//! pairing; the ISA documentation wins.)

use crate::arch::Arch;
use crate::fault::{self, Fault};

/// IEEE BF16 → `Dst16b` BF16 arrangement (`DstEncodeBF16`, also
/// `WriteDstBF16` in `UNPACR_Regular.md`).
#[inline]
pub const fn encode_bf16(x: u16) -> u16 {
    let exp = (x >> 7) & 0xFF;
    let man = x & 0x7F;
    (x & 0x8000) | (man << 8) | exp
}

/// `Dst16b` BF16 arrangement → IEEE BF16 (`DstDecodeBF16`).
#[inline]
pub const fn decode_bf16(x: u16) -> u16 {
    let exp = x & 0xFF;
    let man = (x >> 8) & 0x7F;
    (x & 0x8000) | (exp << 7) | man
}

/// IEEE-layout FP16 → `Dst16b` FP16 arrangement (`DstEncodeFP16`,
/// `WriteDstFP16`).
#[inline]
pub const fn encode_fp16(x: u16) -> u16 {
    let exp = (x >> 10) & 0x1F;
    let man = x & 0x3FF;
    (x & 0x8000) | (man << 5) | exp
}

/// `Dst16b` FP16 arrangement → IEEE-layout FP16 (`DstDecodeFP16`).
#[inline]
pub const fn decode_fp16(x: u16) -> u16 {
    let exp = x & 0x1F;
    let man = (x >> 5) & 0x3FF;
    (x & 0x8000) | (exp << 10) | man
}

/// [`encode_bf16`] (or, with `FP16`, [`encode_fp16`]) of the little-endian
/// 16-bit datums in `bytes`, sixteen to a row of `out`, which holds
/// `bytes.len() / 32` rows: by AVX2 where the CPU has it, one row to a
/// register.
#[inline(always)]
pub fn encode16_rows<const FP16: bool>(bytes: &[u8], out: &mut [[u16; 16]]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { encode16_rows_avx2::<FP16>(bytes, out) };
    }
    encode16_rows_portable::<FP16>(bytes, out);
}

/// [`encode16_rows`] without vector instructions of its own.
#[inline(always)]
fn encode16_rows_portable<const FP16: bool>(bytes: &[u8], out: &mut [[u16; 16]]) {
    for (row, b) in out.iter_mut().zip(bytes.chunks_exact(32)) {
        for (o, d) in row.iter_mut().zip(b.chunks_exact(2)) {
            let x = u16::from_le_bytes([d[0], d[1]]);
            *o = if FP16 { encode_fp16(x) } else { encode_bf16(x) };
        }
    }
}

/// [`encode16_rows`] in AVX2's 16-bit lanes. Written out because the
/// compiler, left to vectorise [`encode16_rows_portable`], gathers each
/// datum's high byte apart for its sign bit (19 instructions a row instead
/// of 9).
///
/// # Safety
/// The CPU must have AVX2. Each load is one 32-byte chunk of `bytes` and
/// each store one 32-byte row of `out`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn encode16_rows_avx2<const FP16: bool>(bytes: &[u8], out: &mut [[u16; 16]]) {
    use std::arch::x86_64::*;
    let sign = _mm256_set1_epi16(i16::MIN);
    for (row, b) in out.iter_mut().zip(bytes.chunks_exact(32)) {
        let x = _mm256_loadu_si256(b.as_ptr().cast());
        // Sign stays; the mantissa moves above the exponent.
        let (mantissa, exponent) = if FP16 {
            (
                _mm256_and_si256(_mm256_slli_epi16(x, 5), _mm256_set1_epi16(0x7FE0)),
                _mm256_and_si256(_mm256_srli_epi16(x, 10), _mm256_set1_epi16(0x1F)),
            )
        } else {
            (
                _mm256_and_si256(_mm256_slli_epi16(x, 8), _mm256_set1_epi16(0x7F00)),
                _mm256_and_si256(_mm256_srli_epi16(x, 7), _mm256_set1_epi16(0xFF)),
            )
        };
        let fields = _mm256_or_si256(mantissa, exponent);
        let encoded = _mm256_or_si256(_mm256_and_si256(x, sign), fields);
        _mm256_storeu_si256(row.as_mut_ptr().cast(), encoded);
    }
}

/// Stored `Dst16b` cells (and `Dst32b` high halves) 32 to an AVX-512
/// register, 16 bits a lane: the layout above taken apart with lane masks
/// and ternary logic, for the packer's row kernels.
#[cfg(target_arch = "x86_64")]
pub(crate) mod cells_avx512 {
    use std::arch::x86_64::*;

    /// Ternary-logic tables (`a`, `b`, `c` the three operands in order),
    /// bit by bit: `a ? b : c`, and `a | b & c`. Written as ternary logic,
    /// not as AND and OR, so that the compiler keeps them one operation
    /// each.
    pub const SELECT: i32 = 0xCA;
    pub const A_OR_B_AND_C: i32 = 0xF8;

    #[target_feature(enable = "avx512bw")]
    #[inline]
    fn splat(v: u16) -> __m512i {
        _mm512_set1_epi16(v as i16)
    }

    /// Each lane's cell put back in its float layout with the sign left
    /// out: the exponent, the cell's low bits, up by `UP` into `field`, the
    /// mantissa above it down by `DOWN` below `field`. One select of
    /// `x << UP` and `x >> DOWN` by the field: the sign, bit `15 - DOWN` of
    /// `x >> DOWN`, lies inside the field, and bit 15 of `x << UP` outside
    /// it, where `x >> DOWN` is clear. [`super::decode_bf16`] is `<7, 8>`
    /// with field `0x7F80`, [`super::decode_fp16`] `<10, 5>` with `0x7C00`.
    #[target_feature(enable = "avx512bw")]
    #[inline]
    pub fn magnitudes<const UP: u32, const DOWN: u32>(x: __m512i, field: u16) -> __m512i {
        let (exp, man) = (_mm512_slli_epi16::<UP>(x), _mm512_srli_epi16::<DOWN>(x));
        _mm512_ternarylogic_epi64::<SELECT>(splat(field), exp, man)
    }

    /// `m | x & 0x8000`: magnitude `m` with the sign of cell `x`.
    #[target_feature(enable = "avx512bw")]
    #[inline]
    pub fn with_sign(m: __m512i, x: __m512i) -> __m512i {
        _mm512_ternarylogic_epi64::<A_OR_B_AND_C>(m, x, splat(0x8000))
    }

    /// The lanes whose cell `x` has an exponent field other than 0, the
    /// field being its low bits `stored` (`0x00FF` for BF16, `0x001F` for
    /// FP16).
    #[target_feature(enable = "avx512bw")]
    #[inline]
    pub fn exponent_not_zero(x: __m512i, stored: u16) -> __mmask32 {
        _mm512_test_epi16_mask(x, splat(stored))
    }
}

/// IEEE FP32 (or conventional sign-magnitude INT32) → `Dst32b` arrangement
/// (`DstEncodeFP32`, `WriteDstFP32`).
#[inline]
pub const fn encode_fp32(x: u32) -> u32 {
    ((encode_bf16((x >> 16) as u16) as u32) << 16) | (x & 0xFFFF)
}

/// `Dst32b` arrangement → IEEE FP32 / conventional INT32 (`DstDecodeFP32`).
#[inline]
pub const fn decode_fp32(x: u32) -> u32 {
    ((decode_bf16((x >> 16) as u16) as u32) << 16) | (x & 0xFFFF)
}

/// Integer "8" in `Dst16b`: sign 15, magnitude 14:5 (masked to 10 bits), raw
/// exponent 16 in 4:0, or 0 when the magnitude is zero (the unpackers'
/// choice, Dst.md "Integer 8").
#[inline]
pub const fn encode_int8(negative: bool, magnitude: u16) -> u16 {
    let mag = magnitude & 0x3FF;
    let exp = if mag != 0 { 16 } else { 0 };
    let sign = if negative { 0x8000 } else { 0 };
    sign | (mag << 5) | exp
}

/// Sign and 10-bit magnitude of an Integer "8" `Dst16b` cell.
#[inline]
pub const fn decode_int8(x: u16) -> (bool, u16) {
    (x & 0x8000 != 0, (x >> 5) & 0x3FF)
}

/// Split a `Dst32b` value into the `DstBits` halves: `.0` is stored at
/// physical row `Adj32(Row)`, `.1` at `Adj32(Row) + 8`.
#[inline]
pub const fn dst32_halves(x: u32) -> (u16, u16) {
    ((x >> 16) as u16, x as u16)
}

/// Join the `DstBits` halves at `Adj32(Row)` (high) and `Adj32(Row) + 8`
/// (low) into a `Dst32b` value.
#[inline]
pub const fn dst32_join(at_row: u16, at_row_plus_8: u16) -> u32 {
    ((at_row as u32) << 16) | at_row_plus_8 as u32
}

/// The Blackhole `Dst` address remapping controls (`DEST_ACCESS_CFG_*`).
/// Wormhole B0 has neither; pass the default there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DstAccessCfg {
    pub remap_addrs: bool,
    pub swizzle_32b: bool,
}

impl DstAccessCfg {
    /// Whether `arch` maps rows under these controls as Wormhole B0 does
    /// (Blackhole with neither control set): [`adj16`] and [`adj32`] of
    /// `(arch, self)` are then those of `(Arch::WormholeB0, default)`, a
    /// mapping with nothing left to choose, which a row loop can take once
    /// for all its rows.
    #[inline]
    pub const fn is_plain(self, arch: Arch) -> bool {
        !matches!(arch, Arch::Blackhole) || !(self.remap_addrs || self.swizzle_32b)
    }
}

/// Physical row of `Dst16b[row]` (`Adj16` in Blackhole's Dst.md; identity on
/// Wormhole B0). `row` is taken modulo 1024.
#[inline]
pub const fn adj16(arch: Arch, row: u16, cfg: DstAccessCfg) -> u16 {
    let r = row & 0x3FF;
    match arch {
        Arch::Blackhole if cfg.remap_addrs => (r & 0x3C7) ^ ((r & 0x030) >> 1) ^ ((r & 0x008) << 2),
        _ => r,
    }
}

/// Physical row holding the high half of `Dst32b[row]` (`Adj32`); the low
/// half is 8 rows further on. Wormhole B0: `((r & 0x1f8) << 1) | (r &
/// 0x207)`; Blackhole applies `Adj16` and the optional 32-bit swizzle first.
#[inline]
pub const fn adj32(arch: Arch, row: u16, cfg: DstAccessCfg) -> u16 {
    let mut r = adj16(arch, row, cfg);
    if let (Arch::Blackhole, true) = (arch, cfg.swizzle_32b) {
        r = (r & 0x3F3) ^ ((r & 0x018) >> 1) ^ ((r & 0x004) << 1);
    }
    ((r & 0x1F8) << 1) | (r & 0x207)
}

/// `RISC_DEST_ACCESS_CTRL_SEC[].fmt`: the shape of the RISC-V view of `Dst`
/// (Blackhole Dst.md, "RISCV access to Dst").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RiscvDstFmt {
    /// 0: `float` / `uint32_t Dst32b[512][16]`.
    Fp32 = 0,
    /// 1: `int32_t Dst32b[512][16]`, two's complement on the RISC-V side.
    Int32 = 1,
    /// 2: `__fp16 Dst16b[1024][16]`.
    Fp16 = 2,
    /// 3: `__bf16 Dst16b[1024][16]`.
    Bf16 = 3,
    /// 4: `int16_t` / `uint16_t Dst16b[1024][16]`.
    Int16 = 4,
    /// 5: `int8_t` / `uint8_t`, one byte per `Dst16b` cell.
    Int8 = 5,
}

impl RiscvDstFmt {
    /// Decode the 3-bit field; 6 and 7 are reserved.
    pub const fn from_code(code: u8) -> Option<RiscvDstFmt> {
        Some(match code {
            0 => RiscvDstFmt::Fp32,
            1 => RiscvDstFmt::Int32,
            2 => RiscvDstFmt::Fp16,
            3 => RiscvDstFmt::Bf16,
            4 => RiscvDstFmt::Int16,
            5 => RiscvDstFmt::Int8,
            _ => return None,
        })
    }
}

/// The per-thread `RISC_DEST_ACCESS_CTRL_SEC[]` fields that shape a RISC-V
/// access to `Dst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RiscvDstAccess {
    /// Raw 3-bit `fmt`.
    pub fmt: u8,
    pub no_swizzle: bool,
    pub unsigned_int: bool,
}

fn riscv_arch_check(arch: Arch) -> fault::Result<()> {
    match arch {
        Arch::Blackhole => Ok(()),
        Arch::WormholeB0 => Err(Fault::unimplemented(
            "RISC-V access to Dst is documented only for Blackhole (BlackholeA0 Dst.md, \"RISCV access to Dst\")",
        )),
    }
}

fn riscv_bad_fmt(acc: RiscvDstAccess, width: u32) -> Fault {
    Fault::undefined(format!(
        "a {width}-bit RISC-V access to Dst with RISC_DEST_ACCESS_CTRL fmt {} is undefined",
        acc.fmt
    ))
}

/// A 32-bit RISC-V load of a `Dst32b` value (`Load32` in Blackhole Dst.md).
/// `fmt` 1 converts sign-magnitude to two's complement, −0 becoming +0.
pub fn riscv_load32(arch: Arch, acc: RiscvDstAccess, dst32: u32) -> fault::Result<u32> {
    riscv_arch_check(arch)?;
    let mut v = dst32;
    if !acc.no_swizzle {
        v = decode_fp32(v);
    }
    match RiscvDstFmt::from_code(acc.fmt) {
        Some(RiscvDstFmt::Fp32) => Ok(v),
        Some(RiscvDstFmt::Int32) => {
            if acc.no_swizzle || v < 0x8000_0000 {
                Ok(v)
            } else {
                Ok((v & 0x7FFF_FFFF).wrapping_neg())
            }
        }
        _ => Err(riscv_bad_fmt(acc, 32)),
    }
}

/// A 16-bit RISC-V load of a `Dst16b` value (`Load16`).
pub fn riscv_load16(arch: Arch, acc: RiscvDstAccess, dst16: u16) -> fault::Result<u16> {
    riscv_arch_check(arch)?;
    match RiscvDstFmt::from_code(acc.fmt) {
        Some(RiscvDstFmt::Fp16) => Ok(if acc.no_swizzle {
            dst16
        } else {
            decode_fp16(dst16)
        }),
        Some(RiscvDstFmt::Bf16) => Ok(if acc.no_swizzle {
            dst16
        } else {
            decode_bf16(dst16)
        }),
        Some(RiscvDstFmt::Int16) => {
            if acc.no_swizzle || acc.unsigned_int || dst16 < 0x8000 {
                Ok(dst16)
            } else {
                Ok((dst16 & 0x7FFF).wrapping_neg())
            }
        }
        _ => Err(riscv_bad_fmt(acc, 16)),
    }
}

/// An 8-bit RISC-V load of a `Dst16b` Integer "8" value (`Load8`): the low
/// eight magnitude bits when unsigned or unswizzled, otherwise sign and low
/// seven magnitude bits converted to two's complement (−0 becoming +0).
pub fn riscv_load8(arch: Arch, acc: RiscvDstAccess, dst16: u16) -> fault::Result<u8> {
    riscv_arch_check(arch)?;
    match RiscvDstFmt::from_code(acc.fmt) {
        Some(RiscvDstFmt::Int8) => {
            if acc.no_swizzle || acc.unsigned_int {
                Ok(((dst16 >> 5) & 0xFF) as u8)
            } else {
                let mag = ((dst16 >> 5) & 0x7F) as u8;
                Ok(if dst16 & 0x8000 != 0 {
                    mag.wrapping_neg()
                } else {
                    mag
                })
            }
        }
        _ => Err(riscv_bad_fmt(acc, 8)),
    }
}

/// A 32-bit RISC-V store (`Store32`): returns the `Dst32b` value written.
/// `fmt` 1 converts two's complement to sign-magnitude, clamping −2^31 to
/// −(2^31 − 1).
pub fn riscv_store32(arch: Arch, acc: RiscvDstAccess, value: u32) -> fault::Result<u32> {
    riscv_arch_check(arch)?;
    let mut v = value;
    match RiscvDstFmt::from_code(acc.fmt) {
        Some(RiscvDstFmt::Fp32) => {}
        Some(RiscvDstFmt::Int32) => {
            if !(acc.no_swizzle || v < 0x8000_0000) {
                let clamped = v.wrapping_add((v == 0x8000_0000) as u32);
                v = 0x8000_0000 | clamped.wrapping_neg();
            }
        }
        _ => return Err(riscv_bad_fmt(acc, 32)),
    }
    if !acc.no_swizzle {
        v = encode_fp32(v);
    }
    Ok(v)
}

/// A 16-bit RISC-V store (`Store16`): returns the `Dst16b` value written.
/// `fmt` 4 converts two's complement to sign-magnitude, clamping −2^15.
pub fn riscv_store16(arch: Arch, acc: RiscvDstAccess, value: u16) -> fault::Result<u16> {
    riscv_arch_check(arch)?;
    match RiscvDstFmt::from_code(acc.fmt) {
        Some(RiscvDstFmt::Fp16) => Ok(if acc.no_swizzle {
            value
        } else {
            encode_fp16(value)
        }),
        Some(RiscvDstFmt::Bf16) => Ok(if acc.no_swizzle {
            value
        } else {
            encode_bf16(value)
        }),
        Some(RiscvDstFmt::Int16) => {
            if acc.no_swizzle || acc.unsigned_int || value < 0x8000 {
                Ok(value)
            } else {
                let clamped = value.wrapping_add((value == 0x8000) as u16);
                Ok(0x8000 | clamped.wrapping_neg())
            }
        }
        _ => Err(riscv_bad_fmt(acc, 16)),
    }
}

/// An 8-bit RISC-V store (`Store8`): returns the `Dst16b` Integer "8" value
/// written. A negative two's complement byte is *not* converted to
/// sign-magnitude: the documented hardware computes the magnitude as
/// `0x180 − value − (value == 0x80)` truncated to eight bits, so −1 is stored
/// with magnitude 129 (Blackhole Dst.md, `Store8`: "Meant to be conversion
/// from two's complement to sign-magnitude, but isn't").
pub fn riscv_store8(arch: Arch, acc: RiscvDstAccess, value: u8) -> fault::Result<u16> {
    riscv_arch_check(arch)?;
    match RiscvDstFmt::from_code(acc.fmt) {
        Some(RiscvDstFmt::Int8) => {
            if acc.no_swizzle || acc.unsigned_int || value < 0x80 {
                let exp = if value != 0 { 16 } else { 0 };
                Ok(((value as u16) << 5) | exp)
            } else {
                let mag = 0x180u16
                    .wrapping_sub(value as u16)
                    .wrapping_sub((value == 0x80) as u16) as u8;
                Ok(0x8000 | ((mag as u16) << 5) | 16)
            }
        }
        _ => Err(riscv_bad_fmt(acc, 8)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The row encoder, in its dispatched and its portable form, is the
    /// datum encoders, for every 16-bit pattern in every lane position, in
    /// both arrangements.
    #[test]
    fn row_encoding_is_the_datum_encoding() {
        fn check<const FP16: bool>(encode: fn(u16) -> u16) {
            let bytes: Vec<u8> = (0..=u16::MAX).flat_map(|x| x.to_le_bytes()).collect();
            let (mut simd, mut portable) = (vec![[0u16; 16]; 4096], vec![[0u16; 16]; 4096]);
            encode16_rows::<FP16>(&bytes, &mut simd);
            encode16_rows_portable::<FP16>(&bytes, &mut portable);
            for x in 0..=u16::MAX {
                let (r, c) = (usize::from(x) / 16, usize::from(x) % 16);
                assert_eq!(simd[r][c], encode(x), "{x:#06x}, FP16 {FP16}");
                assert_eq!(portable[r][c], encode(x), "{x:#06x}, FP16 {FP16}");
            }
        }
        check::<false>(encode_bf16);
        check::<true>(encode_fp16);
    }

    /// Every row, on both architectures, under every setting of the
    /// controls: a plain mapping is Wormhole B0's, and the others differ
    /// from it somewhere (Blackhole Dst.md, `Adj16` and `Adj32`).
    #[test]
    fn plain_mappings_are_wormhole_b0s() {
        let wh = DstAccessCfg::default();
        for arch in [Arch::WormholeB0, Arch::Blackhole] {
            for (remap_addrs, swizzle_32b) in
                [(false, false), (true, false), (false, true), (true, true)]
            {
                let cfg = DstAccessCfg {
                    remap_addrs,
                    swizzle_32b,
                };
                let same = (0..1024u16).all(|r| {
                    adj16(arch, r, cfg) == adj16(Arch::WormholeB0, r, wh)
                        && adj32(arch, r, cfg) == adj32(Arch::WormholeB0, r, wh)
                });
                assert_eq!(same, cfg.is_plain(arch), "{arch:?} {cfg:?}");
            }
        }
    }
}
