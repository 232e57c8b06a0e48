//! Reference models for the format tests, written on values rather than bit
//! fields: decode to an exact `f64`, apply the documented rounding on the
//! value, then re-encode the (exactly representable) result. Every value of
//! every format involved is exact in `f64`.
//!
//! Decoding goes through `half` and `f32` where the Tensix meaning equals the
//! IEEE one; the Tensix-specific meanings (FP16 exponent 31 is finite, FP16
//! has no NaN) are spelled out here.

#![allow(dead_code)]

use half::{bf16, f16};

/// 2^e, exactly, by repeated doubling or halving.
pub fn pow2(e: i32) -> f64 {
    let mut v = 1.0f64;
    if e >= 0 {
        for _ in 0..e {
            v *= 2.0;
        }
    } else {
        for _ in 0..(-e) {
            v *= 0.5;
        }
    }
    v
}

/// floor(log2(|x|)) for finite non-zero `x`, by scaling (no bit access).
pub fn ilog2(x: f64) -> i32 {
    assert!(x != 0.0 && x.is_finite());
    let mut m = x.abs();
    let mut e = 0;
    while m >= 2.0 {
        m *= 0.5;
        e += 1;
    }
    while m < 1.0 {
        m *= 2.0;
        e -= 1;
    }
    e
}

/// Round |v| to a multiple of `ulp`, ties away from zero, keeping the sign.
pub fn round_half_away(v: f64, ulp: f64) -> f64 {
    let q = v.abs() / ulp;
    let r = (q + 0.5).floor() * ulp;
    if v.is_sign_negative() {
        -r
    } else {
        r
    }
}

/// Truncate |v| to a multiple of `ulp`, keeping the sign.
pub fn truncate(v: f64, ulp: f64) -> f64 {
    let r = (v.abs() / ulp).floor() * ulp;
    if v.is_sign_negative() {
        -r
    } else {
        r
    }
}

/// A float format described by its field widths.
#[derive(Clone, Copy, Debug)]
pub struct Fmt {
    pub exp_bits: u32,
    pub man_bits: u32,
    pub bias: i32,
    /// Whether the all-ones exponent is an ordinary binade (Tensix FP16/FP8)
    /// rather than infinity/NaN (IEEE-like FP32/BF16/TF32).
    pub top_binade_finite: bool,
}

pub const FP32: Fmt = Fmt {
    exp_bits: 8,
    man_bits: 23,
    bias: 127,
    top_binade_finite: false,
};
pub const BF16: Fmt = Fmt {
    exp_bits: 8,
    man_bits: 7,
    bias: 127,
    top_binade_finite: false,
};
pub const FP16: Fmt = Fmt {
    exp_bits: 5,
    man_bits: 10,
    bias: 15,
    top_binade_finite: true,
};

impl Fmt {
    pub fn with_man(self, man_bits: u32) -> Fmt {
        Fmt { man_bits, ..self }
    }
    pub fn max_field(self) -> i32 {
        (1 << self.exp_bits) - 1
    }
    /// Smallest normal exponent (unbiased).
    pub fn emin(self) -> i32 {
        1 - self.bias
    }
    /// Largest finite value.
    pub fn max_finite(self) -> f64 {
        let top = if self.top_binade_finite {
            self.max_field()
        } else {
            self.max_field() - 1
        };
        (2.0 - pow2(-(self.man_bits as i32))) * pow2(top - self.bias)
    }
    /// Grid spacing at |v| (denormal spacing below the normal range).
    pub fn ulp(self, v: f64) -> f64 {
        let e = if v == 0.0 {
            self.emin()
        } else {
            ilog2(v).max(self.emin())
        };
        pow2(e - self.man_bits as i32)
    }
    /// Value of a bit pattern laid out sign | exponent | mantissa with
    /// `man_bits` mantissa bits (NaN for IEEE NaN patterns).
    pub fn value(self, bits: u32) -> f64 {
        let m = bits & ((1 << self.man_bits) - 1);
        let f = ((bits >> self.man_bits) & ((1 << self.exp_bits) - 1)) as i32;
        let neg = (bits >> (self.man_bits + self.exp_bits)) & 1 == 1;
        let mag = if f == self.max_field() && !self.top_binade_finite {
            if m == 0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else if f == 0 {
            m as f64 * pow2(self.emin() - self.man_bits as i32)
        } else {
            (1.0 + m as f64 * pow2(-(self.man_bits as i32))) * pow2(f - self.bias)
        };
        if neg {
            -mag
        } else {
            mag
        }
    }
    /// Bit pattern of a value that is exactly representable (zero, denormal,
    /// normal, or infinity for IEEE-like formats). Panics otherwise.
    pub fn encode(self, v: f64) -> u32 {
        let sign = (v.is_sign_negative() as u32) << (self.exp_bits + self.man_bits);
        let a = v.abs();
        if a == 0.0 {
            return sign;
        }
        if a.is_infinite() {
            assert!(!self.top_binade_finite, "no infinity in {self:?}");
            return sign | ((self.max_field() as u32) << self.man_bits);
        }
        let e = ilog2(a);
        let (field, frac) = if e < self.emin() {
            (0, a / pow2(self.emin()))
        } else {
            (e + self.bias, a / pow2(e) - 1.0)
        };
        let m = frac * pow2(self.man_bits as i32);
        assert!(m.fract() == 0.0, "{v} not representable in {self:?}");
        assert!(m < pow2(self.man_bits as i32));
        let limit = if self.top_binade_finite {
            self.max_field()
        } else {
            self.max_field() - 1
        };
        assert!(field <= limit, "{v} out of range for {self:?}");
        sign | ((field as u32) << self.man_bits) | m as u32
    }
}

pub fn fp32_value(bits: u32) -> f64 {
    f32::from_bits(bits) as f64
}

pub fn bf16_value(bits: u16) -> f64 {
    bf16::from_bits(bits).to_f64()
}

/// Tensix FP16: IEEE for exponents 0..=30, exponent 31 an ordinary binade.
pub fn fp16_value(bits: u16) -> f64 {
    if bits & 0x7C00 == 0x7C00 {
        FP16.value(bits as u32)
    } else {
        f16::from_bits(bits).to_f64()
    }
}

/// The packer early conversion's rounding from an FP32 pattern to `man`
/// mantissa bits with an 8-bit exponent (FP32 layout result): denormals and
/// −0 → +0, NaN → ±inf, ties away from zero, overflow → ±inf.
pub fn ref_round_e8(x: u32, man: u32) -> u32 {
    let v = fp32_value(x);
    if v.is_nan() {
        return if x >> 31 == 1 {
            0xFF80_0000
        } else {
            0x7F80_0000
        };
    }
    if v.is_infinite() {
        return x;
    }
    // The flush applies to the rounded result (ttsim's order, which the
    // conformance vectors record): the largest denormals round up to the
    // smallest normal.
    let r = round_half_away(v, BF16.with_man(man).ulp(v));
    if r.abs() < pow2(-126) {
        return 0;
    }
    if r.abs() >= pow2(128) {
        return if r < 0.0 { 0xFF80_0000 } else { 0x7F80_0000 };
    }
    (r as f32).to_bits()
}

/// 8-bit exponent → 5-bit exponent with `man` mantissa bits, saturate then
/// truncate, in FP16 layout: NaN/inf/≥2^17 saturate, <2^-15 signed zero,
/// [2^-15, 2^-14) the documented "mishandled" pattern (exponent field 0,
/// mantissa = truncated fraction of the value relative to 2^-15).
pub fn ref_e8_to_e5(v: f64, neg: bool, man: u32) -> u16 {
    let sign = if neg { 0x8000u16 } else { 0 };
    let shift = 10 - man;
    let man_mask = (((1u32 << man) - 1) << shift) as u16;
    if v.is_nan() || v.abs() >= pow2(17) {
        return sign | 0x7C00 | man_mask;
    }
    let a = v.abs();
    if a < pow2(-15) {
        return sign;
    }
    if a < pow2(-14) {
        let frac = a / pow2(-15) - 1.0;
        let m = (frac * pow2(man as i32)).floor() as u16;
        return sign | (m << shift);
    }
    place_e5(sign, a, man)
}

/// Truncate |a| (normal in the 5-bit range) to `man` mantissa bits and lay
/// it out in FP16 position.
pub fn place_e5(sign: u16, a: f64, man: u32) -> u16 {
    let f = FP16.with_man(man);
    let enc = f.encode(truncate(a, f.ulp(a)));
    let field = (enc >> man) as u16 & 0x1F;
    let m = (enc & ((1 << man) - 1)) as u16;
    sign | (field << 10) | (m << (10 - man))
}

/// 5-bit exponent (Tensix FP16 pattern with `from_man` meaningful mantissa
/// bits) → 8-bit exponent with `to_man` mantissa bits, FP32 layout.
pub fn ref_e5_to_e8(bits: u16, from_man: u32, to_man: u32) -> u32 {
    let v = fp16_value(bits);
    let neg = bits & 0x8000 != 0;
    let sign = (neg as u32) << 31;
    if v.abs() < pow2(-14) && to_man <= 7 {
        // Zero or denormal to BF16 width: +0, the documented flush where
        // the mantissa narrows and ttsim's choice for the "mishandled" cases
        // (src/tensix.cpp, FP16 → BF16 and BFP8a → BFP8 late conversions).
        return 0;
    }
    if v == 0.0 {
        return sign;
    }
    if v.abs() < pow2(-14) {
        // Denormal to 32 bits: the documented mishandling as ttsim does it
        // (FP16 → FP32): the value lands 2^112 too small, as an FP32
        // denormal.
        debug_assert!(to_man >= from_man);
        return ((v * pow2(-112)) as f32).to_bits();
    }
    let t = truncate(v, FP32.with_man(to_man).ulp(v));
    (t as f32).to_bits()
}

/// How the BFP assembler reads one element with exponent field `field`
/// (bias `bias`) and 7-bit mantissa `m7`: `(hidden + m7/128) · 2^(field −
/// bias)` where the hidden bit is present unless the field is 0, and every
/// non-zero field, 255 included, is an ordinary binade. (For field 0 this is
/// not the IEEE denormal value; it is the device rule "mantissa with hidden
/// bit, shifted right by shared − own".)
pub fn bfp_element_value(field: u32, m7: u32, bias: i32) -> f64 {
    let hidden = if field != 0 { 1.0 } else { 0.0 };
    (hidden + m7 as f64 / 128.0) * pow2(field as i32 - bias)
}

/// BFP8 datum of an element of magnitude `a` and sign `neg` under shared
/// exponent field `shared` (bias `bias`): the magnitude in units of
/// 2^(shared − bias − 6), rounded half away from zero, clamped to 127; the
/// sign only when the magnitude is non-zero.
pub fn ref_bfp8_datum(a: f64, neg: bool, shared: u32, bias: i32) -> u8 {
    let unit = pow2(shared as i32 - bias - 6);
    let mag = round_half_away(a, unit) / unit;
    let mag = if mag > 127.0 { 127 } else { mag as u8 };
    if mag == 0 {
        0
    } else {
        ((neg as u8) << 7) | mag
    }
}

/// Exact value of a BFP datum with `mag_bits` magnitude bits under shared
/// exponent `exp` with bias `bias` (FloatBitPatterns.md "BFP" meaning
/// tables), ignoring the sign-1/magnitude-0 special case.
pub fn bfp_datum_value(datum: u8, mag_bits: u32, exp: u8, bias: i32) -> f64 {
    let mag = (datum & ((1 << mag_bits) - 1)) as f64;
    let v = mag / pow2(mag_bits as i32 - 1) * pow2(exp as i32 - bias);
    if datum >> mag_bits & 1 == 1 {
        -v
    } else {
        v
    }
}
