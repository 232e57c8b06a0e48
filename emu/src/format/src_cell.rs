//! The 19-bit `SrcA` / `SrcB` datum.
//!
//! tt-isa-documentation `WormholeB0/TensixTile/TensixCoprocessor/SrcASrcB.md`
//! ("Data types", "Data type bit layout") defines the types a cell holds and
//! their hardware bit arrangement; the diagrams come from
//! `Diagrams/Src/Bits32.lua` (`Src_TF32`, `Src_BF16`, `Src_FP16`, `Src_INT8`,
//! `Src_INT16`). The hardware ("shuffled") arrangement is
//!
//! | bits    | TF32     | BF16           | FP16           | Integer "8"    | Integer "16"     |
//! |---------|----------|----------------|----------------|----------------|------------------|
//! | 18      | sign     | sign           | sign           | sign           | sign             |
//! | 17:8    | mantissa | mantissa, 10:8 zero | mantissa  | magnitude      | magnitude 14:8 in 17:11, 10:8 zero |
//! | 7:0     | exponent | exponent       | exponent in 4:0, 7:5 zero | 16 or 0 in 4:0 | magnitude 7:0 |
//!
//! This project keeps cells in a canonical order instead: sign in bit 18,
//! exponent field in 17:10, mantissa field in 9:0, i.e. TF32 in IEEE field
//! order (the argument of `WriteSrcTF32` in the `UNPACR` functional model,
//! `UNPACR_Regular.md`). In that order BF16 is TF32 with the three low
//! mantissa bits zero, FP16 keeps its 5-bit exponent in 14:10 with 17:15 zero,
//! and Integer "8" is FP16 with raw exponent 16 (0 when the magnitude is 0)
//! and the magnitude in 9:0. [`SrcCell::hw`] and [`SrcCell::from_hw`] convert
//! between the two orders.

/// One `SrcA` / `SrcB` datum, canonical field order (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SrcCell(u32);

const MASK19: u32 = 0x7_FFFF;

impl SrcCell {
    /// Zero, as written by `ZEROSRC`.
    pub const ZERO: SrcCell = SrcCell(0);

    /// From canonical bits; bits above 18 are dropped.
    #[inline]
    pub const fn from_canonical(bits: u32) -> SrcCell {
        SrcCell(bits & MASK19)
    }

    /// Canonical bits: sign 18, exponent 17:10, mantissa 9:0.
    #[inline]
    pub const fn canonical(self) -> u32 {
        self.0
    }

    /// From the hardware bit arrangement (sign 18, mantissa 17:8, exponent
    /// 7:0); bits above 18 are dropped.
    #[inline]
    pub const fn from_hw(hw: u32) -> SrcCell {
        let sign = hw & 0x4_0000;
        let man = (hw >> 8) & 0x3FF;
        let exp = hw & 0xFF;
        SrcCell(sign | (exp << 10) | man)
    }

    /// The hardware bit arrangement, as `WriteSrcTF32` in `UNPACR_Regular.md`
    /// produces it.
    #[inline]
    pub const fn hw(self) -> u32 {
        let sign = self.0 & 0x4_0000;
        let exp = (self.0 >> 10) & 0xFF;
        let man = self.0 & 0x3FF;
        sign | (man << 8) | exp
    }

    /// TF32 from an FP32 pattern by dropping the low 13 mantissa bits, as the
    /// unpacker's FP32 → TF32 conversion does (no rounding, denormals and
    /// NaN kept as they truncate; `UNPACR_Regular.md`, `FormatConversion`).
    #[inline]
    pub const fn from_fp32_truncated(x: u32) -> SrcCell {
        SrcCell(x >> 13)
    }

    /// The cell as an FP32 pattern (meaningful for TF32 and BF16 contents).
    #[inline]
    pub const fn to_fp32(self) -> u32 {
        self.0 << 13
    }

    /// BF16 overlaid on TF32 (`WriteSrcBF16`).
    #[inline]
    pub const fn from_bf16(x: u16) -> SrcCell {
        SrcCell((x as u32) << 3)
    }

    /// The top 16 bits of the TF32 overlay, i.e. the BF16 a BF16 cell holds.
    #[inline]
    pub const fn to_bf16(self) -> u16 {
        (self.0 >> 3) as u16
    }

    /// FP16 overlaid on TF32 with the sign moved to bit 18 (`WriteSrcFP16`).
    #[inline]
    pub const fn from_fp16(x: u16) -> SrcCell {
        SrcCell((((x & 0x8000) as u32) << 3) | (x & 0x7FFF) as u32)
    }

    /// The FP16 an FP16 cell holds (bits 17:15 ignored).
    #[inline]
    pub const fn to_fp16(self) -> u16 {
        (((self.0 >> 3) & 0x8000) | (self.0 & 0x7FFF)) as u16
    }

    /// Integer "8": sign, 10-bit magnitude, raw exponent 16 when the
    /// magnitude is non-zero and 0 when it is zero (the unpackers' choice,
    /// SrcASrcB.md, "Integer 8"). `magnitude` is masked to 10 bits.
    #[inline]
    pub const fn from_int8(negative: bool, magnitude: u16) -> SrcCell {
        let mag = (magnitude & 0x3FF) as u32;
        let exp = if mag != 0 { 16 << 10 } else { 0 };
        let sign = if negative { 0x4_0000 } else { 0 };
        SrcCell(sign | exp | mag)
    }

    /// Sign and 10-bit magnitude of an Integer "8" cell.
    #[inline]
    pub const fn int8(self) -> (bool, u16) {
        (self.0 & 0x4_0000 != 0, (self.0 & 0x3FF) as u16)
    }

    /// Integer "16" holding 16 opaque bits. The unpacker writes the high byte
    /// to hardware bits 18:11 and the low byte to hardware bits 7:0
    /// (`UNPACR_Regular.md`, `FormatConversion`, INT16 case).
    #[inline]
    pub const fn from_int16(x: u16) -> SrcCell {
        let x = x as u32;
        SrcCell::from_hw(((x & 0xFF00) << 3) | (x & 0xFF))
    }

    /// The 16 bits an Integer "16" cell holds.
    #[inline]
    pub const fn to_int16(self) -> u16 {
        let hw = self.hw();
        (((hw >> 3) & 0xFF00) | (hw & 0xFF)) as u16
    }

    /// Sign bit.
    #[inline]
    pub const fn sign(self) -> bool {
        self.0 & 0x4_0000 != 0
    }

    /// Raw 8-bit exponent field (canonical 17:10).
    #[inline]
    pub const fn exponent(self) -> u32 {
        (self.0 >> 10) & 0xFF
    }

    /// Raw 10-bit mantissa field (canonical 9:0).
    #[inline]
    pub const fn mantissa(self) -> u32 {
        self.0 & 0x3FF
    }
}
