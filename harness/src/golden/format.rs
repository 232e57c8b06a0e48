//! The 4-bit data format codes the packers and unpackers are configured with
//! (tt-isa-documentation `Packers/FormatConversion.md`, "Configuring the
//! conversions"; `Unpackers/FormatConversion.md`). The model keeps its own
//! table rather than the emulator's.

/// A format code. Names follow the ISA documentation: `Bfp8` has an 8-bit
/// shared exponent, `Bfp8a` a 5-bit one (tt-llk calls them `Bfp8_b` and
/// `Bfp8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    Fp32,
    Fp16,
    Bfp8a,
    Bfp4a,
    Tf32,
    Bf16,
    Bfp8,
    Bfp4,
    Int32,
    Int16,
    Fp8,
    Bfp2a,
    Int8,
    Bfp2,
}

impl Format {
    pub const ALL: [Format; 14] = [
        Format::Fp32,
        Format::Fp16,
        Format::Bfp8a,
        Format::Bfp4a,
        Format::Tf32,
        Format::Bf16,
        Format::Bfp8,
        Format::Bfp4,
        Format::Int32,
        Format::Int16,
        Format::Fp8,
        Format::Bfp2a,
        Format::Int8,
        Format::Bfp2,
    ];

    /// The 4-bit code written to `In_data_format`, `Out_data_format`,
    /// `ALU_FORMAT_SPEC_REG2_Dstacc` and the tile descriptor.
    pub const fn code(self) -> u32 {
        match self {
            Format::Fp32 => 0,
            Format::Fp16 => 1,
            Format::Bfp8a => 2,
            Format::Bfp4a => 3,
            Format::Tf32 => 4,
            Format::Bf16 => 5,
            Format::Bfp8 => 6,
            Format::Bfp4 => 7,
            Format::Int32 => 8,
            Format::Int16 => 9,
            Format::Fp8 => 10,
            Format::Bfp2a => 11,
            Format::Int8 => 14,
            Format::Bfp2 => 15,
        }
    }

    /// Inverse of [`Format::code`]; codes 12 and 13 name no format.
    pub fn from_code(code: u32) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.code() == code)
    }

    /// Bits one datum takes in L1 (the exponent of a BFP group aside).
    pub const fn l1_bits(self) -> u32 {
        match self {
            Format::Fp32 | Format::Tf32 | Format::Int32 => 32,
            Format::Fp16 | Format::Bf16 | Format::Int16 => 16,
            Format::Bfp8a | Format::Bfp8 | Format::Fp8 | Format::Int8 => 8,
            Format::Bfp4a | Format::Bfp4 => 4,
            Format::Bfp2a | Format::Bfp2 => 2,
        }
    }

    /// A block-float format: one shared exponent per 16 datums.
    pub const fn is_bfp(self) -> bool {
        matches!(
            self,
            Format::Bfp8
                | Format::Bfp4
                | Format::Bfp2
                | Format::Bfp8a
                | Format::Bfp4a
                | Format::Bfp2a
        )
    }

    /// The "a" forms: 5-bit exponents (FP16-like).
    pub const fn is_a_form(self) -> bool {
        matches!(
            self,
            Format::Fp16 | Format::Bfp8a | Format::Bfp4a | Format::Bfp2a | Format::Fp8
        )
    }

    /// The name tags and reports use (`bfp8_b` for the 8-bit-exponent BFP8,
    /// as tt-llk spells it).
    pub const fn name(self) -> &'static str {
        match self {
            Format::Fp32 => "fp32",
            Format::Fp16 => "fp16",
            Format::Bfp8a => "bfp8",
            Format::Bfp4a => "bfp4",
            Format::Tf32 => "tf32",
            Format::Bf16 => "bf16",
            Format::Bfp8 => "bfp8_b",
            Format::Bfp4 => "bfp4_b",
            Format::Int32 => "int32",
            Format::Int16 => "uint16",
            Format::Fp8 => "lf8",
            Format::Bfp2a => "bfp2",
            Format::Int8 => "int8",
            Format::Bfp2 => "bfp2_b",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_skip_the_unnamed_ones() {
        // FormatConversion.md: 0b1100 and 0b1101 are not formats.
        for f in Format::ALL {
            assert_eq!(Format::from_code(f.code()), Some(f));
        }
        assert_eq!(Format::from_code(12), None);
        assert_eq!(Format::from_code(13), None);
        assert_eq!(Format::Bfp8.code(), 6);
        assert_eq!(Format::Bfp2.l1_bits(), 2);
    }
}
