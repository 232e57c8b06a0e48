//! The 4-bit data format code shared by the packers, the unpackers and the
//! ALU format configuration.
//!
//! The code table is the one in tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/Packers/FormatConversion.md`
//! ("Configuring the conversions", last table) and
//! `.../Unpackers/FormatConversion.md` ("Configuring the conversion"); the
//! same encoding is used by `IntermediateFormat`, `In_data_format`,
//! `Out_data_format`, `InDataFormat` and `OutDataFormat`. Codes `0b1100` and
//! `0b1101` name no format.
//!
//! The variant names follow tt-llk's `DataFormat` spelling with an explicit
//! exponent-form suffix, because the two naming schemes collide: tt-llk's
//! `Bfp8` is the ISA documentation's `BFP8a` (5-bit shared exponent) and
//! tt-llk's `Bfp8_b` is the ISA documentation's `BFP8` (8-bit shared
//! exponent). [`DataFormat::isa_name`] and [`DataFormat::llk_name`] give both.
//!
//! There is no separate code for UINT8: unsigned 8-bit data uses the INT8
//! code, and the signedness comes from `PCK_DEST_RD_CTRL_Read_unsigned` (pack)
//! or `ALU_FORMAT_SPEC_REG0_SrcAUnsigned` / `SrcBUnsigned` (unpack). tt-llk's
//! software-only values (`UInt8` = 30, `UInt32` = 24, `Fp8_e4m3` = 26) reduce
//! to their low four bits in hardware. Code 9 is called `UInt16` by tt-llk and
//! seed 002, but the hardware treats it as INT16 (sign-magnitude in the pack
//! path, opaque 16-bit data in the unpack path).

use crate::fault::{self, Fault};

/// A 4-bit hardware data format code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DataFormat {
    /// FP32 (e8m23). ISA `FP32`, tt-llk `Float32`.
    Float32 = 0,
    /// FP16 (e5m10), Tensix variant without NaN or IEEE infinity. ISA `FP16`,
    /// tt-llk `Float16`.
    Float16 = 1,
    /// Block float, 8 bits per datum, 5-bit shared exponent. ISA `BFP8a`,
    /// tt-llk `Bfp8`.
    Bfp8A = 2,
    /// Block float, 4 bits per datum, 5-bit shared exponent. ISA `BFP4a`,
    /// tt-llk `Bfp4`.
    Bfp4A = 3,
    /// TF32 (e8m10), stored in L1 as 32 bits with the low 13 zero. ISA `TF32`,
    /// tt-llk `Tf32`.
    Tf32 = 4,
    /// BF16 (e8m7). ISA `BF16`, tt-llk `Float16_b`.
    Float16B = 5,
    /// Block float, 8 bits per datum, 8-bit shared exponent. ISA `BFP8`,
    /// tt-llk `Bfp8_b`. As an intermediate format it means E8M6.
    Bfp8B = 6,
    /// Block float, 4 bits per datum, 8-bit shared exponent. ISA `BFP4`,
    /// tt-llk `Bfp4_b`.
    Bfp4B = 7,
    /// 32-bit sign-magnitude integer. ISA `INT32`, tt-llk `Int32`.
    Int32 = 8,
    /// 16-bit sign-magnitude integer or opaque 16-bit data. ISA `INT16`,
    /// tt-llk `UInt16`.
    Int16 = 9,
    /// FP8: e5m2, or e4m3 when `Pac_LF8_4b_exp` / `Unp_LF8_4b_exp` is set
    /// (Blackhole). ISA `FP8`, tt-llk `Lf8`.
    Lf8 = 10,
    /// Block float, 2 bits per datum, 5-bit shared exponent. ISA `BFP2a`,
    /// tt-llk `Bfp2`.
    Bfp2A = 11,
    /// 8-bit sign-magnitude integer, or UINT8 with the unsigned flag. ISA
    /// `INT8`, tt-llk `Int8` (and `UInt8`, whose low four bits are 14).
    Int8 = 14,
    /// Block float, 2 bits per datum, 8-bit shared exponent. ISA `BFP2`,
    /// tt-llk `Bfp2_b`.
    Bfp2B = 15,
}

/// Which of the two BFP exponent forms a block uses (FloatBitPatterns.md,
/// "BFP").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BfpExp {
    /// "a" forms: 5-bit shared exponent with FP16 bias 15, zero-extended to a
    /// byte in memory.
    A,
    /// Plain forms: 8-bit shared exponent with BF16/FP32 bias 127.
    B,
}

/// The datum width of a BFP format: sign plus 7, 3 or 1 magnitude bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BfpWidth {
    Bits8,
    Bits4,
    Bits2,
}

impl BfpWidth {
    /// Bits per datum in L1, sign included.
    pub const fn datum_bits(self) -> u32 {
        match self {
            BfpWidth::Bits8 => 8,
            BfpWidth::Bits4 => 4,
            BfpWidth::Bits2 => 2,
        }
    }

    /// Magnitude bits per datum (no hidden bit).
    pub const fn magnitude_bits(self) -> u32 {
        self.datum_bits() - 1
    }

    /// Bytes used by one group of 16 datums.
    pub const fn group_bytes(self) -> usize {
        (self.datum_bits() * 2) as usize
    }
}

/// Which 8-bit float the FP8 code means. Selected by `Pac_LF8_4b_exp`
/// (packer) and `Unp_LF8_4b_exp` (unpacker), which exist on Blackhole only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Fp8Format {
    /// e5m2, laid out like the top byte of an FP16.
    #[default]
    E5M2,
    /// e4m3. No tt-isa-documentation page defines its conversions. The
    /// packer's follows ttsim ([`super::pack::fp16_to_fp8_e4m3`]); others
    /// that would need one return `Unimplemented`.
    E4M3,
}

impl DataFormat {
    /// Every valid code, in code order.
    pub const ALL: [DataFormat; 14] = [
        DataFormat::Float32,
        DataFormat::Float16,
        DataFormat::Bfp8A,
        DataFormat::Bfp4A,
        DataFormat::Tf32,
        DataFormat::Float16B,
        DataFormat::Bfp8B,
        DataFormat::Bfp4B,
        DataFormat::Int32,
        DataFormat::Int16,
        DataFormat::Lf8,
        DataFormat::Bfp2A,
        DataFormat::Int8,
        DataFormat::Bfp2B,
    ];

    /// Decode a 4-bit code; `None` for 12, 13 and anything above 15.
    pub const fn from_code(code: u8) -> Option<DataFormat> {
        Some(match code {
            0 => DataFormat::Float32,
            1 => DataFormat::Float16,
            2 => DataFormat::Bfp8A,
            3 => DataFormat::Bfp4A,
            4 => DataFormat::Tf32,
            5 => DataFormat::Float16B,
            6 => DataFormat::Bfp8B,
            7 => DataFormat::Bfp4B,
            8 => DataFormat::Int32,
            9 => DataFormat::Int16,
            10 => DataFormat::Lf8,
            11 => DataFormat::Bfp2A,
            14 => DataFormat::Int8,
            15 => DataFormat::Bfp2B,
            _ => return None,
        })
    }

    /// Decode the low four bits of a configuration field. Codes 12 and 13
    /// name no format, so using them is undefined behaviour.
    pub fn decode(field: u32) -> fault::Result<DataFormat> {
        let code = (field & 0xF) as u8;
        DataFormat::from_code(code).ok_or_else(|| {
            Fault::undefined(format!(
                "data format code {code} names no format (codes 12 and 13 are unassigned)"
            ))
        })
    }

    /// The 4-bit hardware code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The name used by tt-isa-documentation.
    pub const fn isa_name(self) -> &'static str {
        match self {
            DataFormat::Float32 => "FP32",
            DataFormat::Float16 => "FP16",
            DataFormat::Bfp8A => "BFP8a",
            DataFormat::Bfp4A => "BFP4a",
            DataFormat::Tf32 => "TF32",
            DataFormat::Float16B => "BF16",
            DataFormat::Bfp8B => "BFP8",
            DataFormat::Bfp4B => "BFP4",
            DataFormat::Int32 => "INT32",
            DataFormat::Int16 => "INT16",
            DataFormat::Lf8 => "FP8",
            DataFormat::Bfp2A => "BFP2a",
            DataFormat::Int8 => "INT8",
            DataFormat::Bfp2B => "BFP2",
        }
    }

    /// The name used by tt-llk's `DataFormat` enum.
    pub const fn llk_name(self) -> &'static str {
        match self {
            DataFormat::Float32 => "Float32",
            DataFormat::Float16 => "Float16",
            DataFormat::Bfp8A => "Bfp8",
            DataFormat::Bfp4A => "Bfp4",
            DataFormat::Tf32 => "Tf32",
            DataFormat::Float16B => "Float16_b",
            DataFormat::Bfp8B => "Bfp8_b",
            DataFormat::Bfp4B => "Bfp4_b",
            DataFormat::Int32 => "Int32",
            DataFormat::Int16 => "UInt16",
            DataFormat::Lf8 => "Lf8",
            DataFormat::Bfp2A => "Bfp2",
            DataFormat::Int8 => "Int8",
            DataFormat::Bfp2B => "Bfp2_b",
        }
    }

    /// Bits one datum occupies in L1 (BFP exponents not counted), as in
    /// `DatumSizeBytes` of the `UNPACR` functional model
    /// (`UNPACR_Regular.md`).
    pub const fn datum_bits(self) -> u32 {
        match self {
            DataFormat::Float32 | DataFormat::Tf32 | DataFormat::Int32 => 32,
            DataFormat::Float16 | DataFormat::Float16B | DataFormat::Int16 => 16,
            DataFormat::Bfp8A | DataFormat::Bfp8B | DataFormat::Lf8 | DataFormat::Int8 => 8,
            DataFormat::Bfp4A | DataFormat::Bfp4B => 4,
            DataFormat::Bfp2A | DataFormat::Bfp2B => 2,
        }
    }

    /// Whole bytes per datum in L1, or `None` for BFP4/BFP2.
    pub const fn datum_bytes(self) -> Option<u32> {
        match self.datum_bits() {
            b @ (8 | 16 | 32) => Some(b / 8),
            _ => None,
        }
    }

    /// Whether the format is one of the six BFP formats.
    pub const fn is_bfp(self) -> bool {
        self.bfp().is_some()
    }

    /// Exponent form and datum width of a BFP format.
    pub const fn bfp(self) -> Option<(BfpExp, BfpWidth)> {
        Some(match self {
            DataFormat::Bfp8A => (BfpExp::A, BfpWidth::Bits8),
            DataFormat::Bfp4A => (BfpExp::A, BfpWidth::Bits4),
            DataFormat::Bfp2A => (BfpExp::A, BfpWidth::Bits2),
            DataFormat::Bfp8B => (BfpExp::B, BfpWidth::Bits8),
            DataFormat::Bfp4B => (BfpExp::B, BfpWidth::Bits4),
            DataFormat::Bfp2B => (BfpExp::B, BfpWidth::Bits2),
            _ => return None,
        })
    }

    /// Magnitude bits per BFP datum (7, 3 or 1), `None` for other formats.
    pub const fn bfp_magnitude_bits(self) -> Option<u32> {
        match self.bfp() {
            Some((_, w)) => Some(w.magnitude_bits()),
            None => None,
        }
    }

    /// Whether the format is an integer format (INT8/UINT8, INT16, INT32).
    pub const fn is_integer(self) -> bool {
        matches!(
            self,
            DataFormat::Int8 | DataFormat::Int16 | DataFormat::Int32
        )
    }

    /// Exponent width in bits: 8 for FP32/TF32/BF16 and the BFP "B" forms
    /// (whose shared exponent is 8 bits), 5 for FP16/FP8(e5m2) and the BFP "a"
    /// forms, 0 for integers. FP8 is reported as e5m2; e4m3 has 4.
    pub const fn exponent_bits(self) -> u32 {
        match self {
            DataFormat::Float32
            | DataFormat::Tf32
            | DataFormat::Float16B
            | DataFormat::Bfp8B
            | DataFormat::Bfp4B
            | DataFormat::Bfp2B => 8,
            DataFormat::Float16
            | DataFormat::Lf8
            | DataFormat::Bfp8A
            | DataFormat::Bfp4A
            | DataFormat::Bfp2A => 5,
            DataFormat::Int8 | DataFormat::Int16 | DataFormat::Int32 => 0,
        }
    }

    /// Stored mantissa bits of a float format (no hidden bit); for BFP the
    /// per-datum magnitude bits. Integers report their magnitude bits.
    pub const fn mantissa_bits(self) -> u32 {
        match self {
            DataFormat::Float32 => 23,
            DataFormat::Tf32 | DataFormat::Float16 => 10,
            DataFormat::Float16B => 7,
            DataFormat::Lf8 => 2,
            DataFormat::Bfp8A | DataFormat::Bfp8B => 7,
            DataFormat::Bfp4A | DataFormat::Bfp4B => 3,
            DataFormat::Bfp2A | DataFormat::Bfp2B => 1,
            DataFormat::Int32 => 31,
            DataFormat::Int16 => 15,
            DataFormat::Int8 => 7,
        }
    }
}

impl std::fmt::Display for DataFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.isa_name())
    }
}
