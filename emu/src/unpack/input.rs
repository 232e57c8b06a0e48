//! The input address generator and the three L1 streams an `UNPACR` reads:
//! datums, BFP shared exponents and (for compressed data) zero-run counts
//! (`UNPACR_Regular.md`, "Determine initial input address(es) and input
//! datum count" and the main loop; `Unpackers/README.md`, "Decompression").
//!
//! L1 holds, from the tile's base address: a `(1 + DigestSize) * 16`-byte
//! header; for compressed data the row start index (RSI) array of 16-bit
//! datum indices, padded to 16 bytes; for BFP data (unless the exponent is
//! forced) one exponent byte per 16 datums, padded to 16 bytes; then the
//! datums. Compressed datums come in groups of 32 followed by their 32
//! four-bit zero-run counts.
//!
//! Addresses are kept in bits (datums, zero-run counts) and in sixteenths of
//! a byte (exponents), which are exact for every datum size, as signed
//! integers so that a FIFO wrap below address 0 is seen rather than wrapped.

use super::descriptor::{Settings, TileDescriptor};
use crate::fault::{Fault, Result};
use crate::observe::ExponentSource;

/// The datum count and where the three streams start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputPlan {
    /// Bits per datum in L1.
    pub datum_bits: u32,
    /// Bit address of the first datum.
    pub datums: i64,
    /// Address of the first exponent in sixteenths of a byte, when the
    /// exponents come from L1.
    pub exponents: Option<i64>,
    /// Bit address of the first zero-run count, for compressed data.
    pub deltas: Option<i64>,
    /// `InputNumDatums`: datums read from L1 (`u32::MAX` when the count is
    /// `DecompressNumDatums`).
    pub input_datums: u32,
    /// `DecompressDrop`: decompressed datums to discard first.
    pub drop: u32,
    /// `DecompressNumDatums`: decompressed datums to write (`u32::MAX`
    /// when the count is `input_datums`).
    pub decompress_datums: u32,
    /// Datums per input row: after each, the datum address moves on by
    /// `row_stride_bits` from the row's start.
    pub row_datums: u32,
    pub row_stride_bits: i64,
}

impl InputPlan {
    /// The most datums the instruction reads from L1: `InputNumDatums`,
    /// or fewer where the decompressed datums it drops and writes
    /// (`DecompressDrop + DecompressNumDatums`) come first, as each datum
    /// read gives at least one (UNPACR_Regular.md, the main loop).
    pub fn datums_read(&self) -> u64 {
        let out = u64::from(self.drop) + u64::from(self.decompress_datums);
        u64::from(self.input_datums).min(out)
    }
}

/// The three counters the input address generator reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputCounters {
    /// `ADCs[WhichADC].Unpacker[i].Channel[0]` X and Y.
    pub x: u32,
    pub y: u32,
    /// `ADCs[CurrentThread].Unpacker[i].Channel[0]` Z and W.
    pub z: u32,
    pub w: u32,
    /// `ADCs[WhichADC].Unpacker[i].Channel[1].X`.
    pub x_end: u32,
}

/// `WrapAddr`: an address past `Unpack_limit_address * 16` bytes moves back
/// by `Unpack_fifo_size * 16` bytes. `unit` is the address unit per byte.
#[inline]
pub fn wrap(addr: i64, s: &Settings, unit: i64) -> i64 {
    if addr > s.limit_address as i64 * 16 * unit {
        addr - s.fifo_size as i64 * 16 * unit
    } else {
        addr
    }
}

fn l1_undefined(addr_bits: i64, bits: u32, l1_len: usize) -> Fault {
    Fault::undefined(format!(
        "UNPACR reads {bits} bits at L1 byte {:#x}{}, outside L1 ({l1_len:#x} bytes) \
         (UNPACR_Regular.md, ReadL1Bytes: Address must be in L1)",
        addr_bits.div_euclid(8),
        if addr_bits.rem_euclid(8) != 0 {
            format!(" bit {}", addr_bits.rem_euclid(8))
        } else {
            String::new()
        },
    ))
}

/// `ReadL1Bytes`: `bits` (at most 32) bits at bit address `addr`, least
/// significant bit first.
///
/// The bits lie in the eight bytes from the first they touch (they end at
/// most 39 bits in), read as one little-endian word with one bounds check;
/// within eight bytes of L1's end, in the bytes left. (Reading the word a
/// byte at a time, each behind a bounds check, was most of the general
/// unpack path's compares: hooked ones, in a fuzz build.)
///
/// The bits are in L1 when `addr` is at most the last address they can
/// start at. Taken as unsigned, a negative `addr` is above every such
/// address, so one compare tests both ends.
#[inline]
pub fn read_bits(l1: &[u8], addr: i64, bits: u32) -> Result<u32> {
    let in_l1 = match (l1.len() as u64 * 8).checked_sub(u64::from(bits)) {
        Some(last_start) => addr as u64 <= last_start,
        None => false,
    };
    if !in_l1 {
        return Err(l1_undefined(addr, bits, l1.len()));
    }
    let from = l1.get((addr >> 3) as usize..).unwrap_or_default();
    let word = match from.first_chunk::<8>() {
        Some(eight) => u64::from_le_bytes(*eight),
        None => from.iter().rev().fold(0, |v, &b| v << 8 | u64::from(b)),
    };
    Ok(((word >> (addr & 7)) & ((1u64 << bits) - 1)) as u32)
}

/// One entry of the row start index array at byte address `rsi` (16-bit
/// entries).
fn rsi_entry(l1: &[u8], rsi: i64, index: u32) -> Result<u32> {
    read_bits(l1, (rsi + 2 * index as i64) * 8, 16)
}

fn count_undefined(what: &str) -> Fault {
    Fault::undefined(format!(
        "UNPACR datum count is negative: {what} (UNPACR_Regular.md, the unsigned count wraps)"
    ))
}

/// What the input side takes from the settings alone, worked out once per
/// preparation (`UNPACR_Regular.md`, "Determine initial input address(es)
/// and input datum count", before the counters are read): where the row
/// start index array, the exponent section and the datums begin after the
/// header, and the row geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputBase {
    datum_bits: u32,
    y_dim: u32,
    z_dim: u32,
    /// The row start index array's byte address (compressed input only).
    row_start: Option<i64>,
    /// The exponent section's address in sixteenths of a byte, one byte
    /// holding the exponent of 16 datums (BFP input without a forced shared
    /// exponent).
    exponents: Option<i64>,
    /// `InAddr` after the header, the row start index array and the
    /// exponent section, in bytes.
    in_addr: u32,
    row_datums: u32,
    row_stride_bits: i64,
}

impl InputBase {
    pub fn new(s: &Settings) -> InputBase {
        let d = &s.descriptor;
        let datum_bits = s.in_format.datum_bits();
        let y_dim = d.y_dim as u32;
        let z_dim = d.z();
        let w_dim = d.w();

        // Header skip: `(InAddr + 1 + DigestSize) * 16`, in 32-bit arithmetic.
        let mut in_addr = s
            .base
            .wrapping_add(1)
            .wrapping_add(d.digest_size as u32)
            .wrapping_mul(16);

        // Row start index array.
        let mut row_start = None;
        if !s.is_uncompressed {
            row_start = Some(in_addr as i64);
            let entries = if d.blobs_per_xy_plane != 0 {
                d.blobs_per_xy_plane as u64 * z_dim as u64 * w_dim as u64
            } else {
                y_dim as u64 * z_dim as u64 * w_dim as u64
            };
            in_addr = in_addr.wrapping_add(((entries + 1) * 2).div_ceil(16) as u32 * 16);
        }

        // BFP exponent section.
        let mut exponents = None;
        if s.in_format.is_bfp() && !s.force_shared_exp {
            exponents = Some(in_addr as i64 * 16);
            let has_section = matches!(
                s.in_format,
                crate::format::DataFormat::Bfp8B | crate::format::DataFormat::Bfp8A
            ) || !d.no_bfp_exp_section;
            if has_section {
                let elements = s.x_dim as u64 * y_dim as u64 * z_dim as u64 * w_dim as u64;
                let exps = elements.div_ceil(16);
                in_addr = in_addr.wrapping_add((exps.div_ceil(16) * 16) as u32);
            }
        }

        // Row geometry. Blackhole reads 32 datums per row of 16- and 32-bit
        // formats in tileize mode (ttsim, src/tensix.cpp, `unpack_row_shift`);
        // the stored ISA page gives the Wormhole B0 value, 16.
        let row_datums = match s.arch {
            crate::arch::Arch::Blackhole if datum_bits > 8 => 32,
            _ => 16,
        };
        let row_stride_bits = if s.tileize {
            let a = &s.shift_amount;
            (((a[0] << 4) | (a[1] << 8) | (a[2] << 12)) as i64) * 8
        } else {
            datum_bits as i64 * row_datums as i64
        };
        InputBase {
            datum_bits,
            y_dim,
            z_dim,
            row_start,
            exponents,
            in_addr,
            row_datums,
            row_stride_bits,
        }
    }

    /// Whether the datums are one uncompressed stream whose rows follow one
    /// another (no row start index array, no tileize stride), in a size the
    /// contiguous path reads.
    pub fn contiguous(&self) -> bool {
        self.row_start.is_none()
            && matches!(self.datum_bits, 2 | 4 | 8 | 16 | 32)
            && self.row_stride_bits == self.datum_bits as i64 * self.row_datums as i64
    }
}

/// Plan the input side of one `UNPACR` (`UNPACR_Regular.md`, "Determine
/// initial input address(es) and input datum count") from its settings `s`,
/// what they decide alone (`b`, made from `s`) and the counters.
#[inline(always)]
pub fn plan(
    s: &Settings,
    b: &InputBase,
    c: InputCounters,
    row_search: bool,
    l1: &[u8],
) -> Result<InputPlan> {
    let d = &s.descriptor;
    let datum_bits = b.datum_bits;
    let (y_dim, z_dim) = (b.y_dim, b.z_dim);
    let (row_start, exponents, in_addr) = (b.row_start, b.exponents, b.in_addr);

    let mut drop = 0;
    let mut decompress_datums = u32::MAX;
    let plane = c.w.wrapping_mul(z_dim).wrapping_add(c.z);
    let (first, input_datums) = match row_start {
        None => {
            let (x_pos, y_pos, x_end) = if !row_search {
                (c.x, c.y, c.x_end.wrapping_add(1))
            } else if d.blobs_per_xy_plane != 0 {
                let blobs = s.blobs_y_start;
                let x_pos = TileDescriptor::blob_start(blobs, c.y) << 4;
                let next = (c.x & 7) + 1;
                let x_end = if next == d.blobs_per_xy_plane as u32 {
                    s.x_dim & 0x1F0
                } else {
                    TileDescriptor::blob_start(blobs, next) << 4
                };
                (x_pos, 0, x_end)
            } else {
                (0, c.y, c.x_end)
            };
            if x_end < x_pos {
                return Err(count_undefined(&format!(
                    "the row ends at X {x_end} before it starts at X {x_pos}"
                )));
            }
            let first = plane
                .wrapping_mul(y_dim)
                .wrapping_add(y_pos)
                .wrapping_mul(s.x_dim)
                .wrapping_add(x_pos);
            (first, x_end - x_pos)
        }
        Some(rsi) => {
            let rows = if row_search && d.blobs_per_xy_plane != 0 {
                d.blobs_per_xy_plane as u32
            } else {
                y_dim
            };
            let rsi = rsi + 2 * plane.wrapping_mul(rows) as i64;
            let first = rsi_entry(l1, rsi, c.y & 0xFF)?;
            let count = if row_search {
                Some(rsi_entry(l1, rsi, (c.x & 0xFF) + 1)?)
            } else if c.x == 0 && c.x_end == s.x_dim.wrapping_sub(1) {
                Some(rsi_entry(l1, rsi, (c.y & 0xFF) + 1)?)
            } else {
                None
            };
            match count {
                Some(end) => {
                    if end < first {
                        return Err(count_undefined(&format!(
                            "the row start index array ends a row at datum {end} before it starts at {first}"
                        )));
                    }
                    (first, end - first)
                }
                None => {
                    drop = c.x;
                    let end = c.x_end.wrapping_add(1);
                    if end < drop {
                        return Err(count_undefined(&format!(
                            "decompression drops {drop} datums of a row that ends at {end}"
                        )));
                    }
                    decompress_datums = end - drop;
                    (first, u32::MAX)
                }
            }
        }
    };

    // Stream start addresses.
    let in_bits = in_addr as i64 * 8;
    let datum_bits_i = datum_bits as i64;
    let (datums, deltas) = if s.is_uncompressed {
        (in_bits + first as i64 * datum_bits_i, None)
    } else {
        let group = (first / 32) as i64 * (32 * datum_bits_i + 128);
        let within = (first % 32) as i64;
        (
            in_bits + group + within * datum_bits_i,
            Some(in_bits + group + 32 * datum_bits_i + within * 4),
        )
    };
    let exponents = exponents.map(|e| wrap(e + first as i64, s, 16));
    let datums = wrap(datums, s, 8);
    let deltas = deltas.map(|a| wrap(a, s, 8));

    let (row_datums, row_stride_bits) = (b.row_datums, b.row_stride_bits);
    Ok(InputPlan {
        datum_bits,
        datums,
        exponents,
        deltas,
        input_datums,
        drop,
        decompress_datums,
        row_datums,
        row_stride_bits,
    })
}

/// One datum as read from L1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawDatum {
    pub bits: u32,
    /// Shared exponent (BFP input only), and where it came from.
    pub exp: u8,
    pub exp_from: ExponentSource,
    /// Zeroes that follow the datum (compressed input only), and the bit
    /// address of that count.
    pub zeroes: u32,
    pub zeroes_bit: Option<i64>,
}

/// The three streams while the main loop runs.
#[derive(Clone, Copy, Debug)]
pub struct InputStream {
    plan: InputPlan,
    /// Datums left in the current input row.
    row_left: u32,
    bfp: bool,
    forced_exp: Option<u8>,
}

impl InputStream {
    pub fn new(plan: InputPlan, s: &Settings) -> InputStream {
        InputStream {
            plan,
            row_left: plan.row_datums,
            bfp: s.in_format.is_bfp(),
            forced_exp: s.force_shared_exp.then_some(s.forced_shared_exp),
        }
    }

    /// The L1 bit address of the next datum.
    pub fn next_bit(&self) -> i64 {
        self.plan.datums
    }

    /// Read the next datum, with its exponent and zero-run count, and move
    /// the three addresses on as the main loop of `UNPACR_Regular.md` does.
    #[inline]
    pub fn next(&mut self, l1: &[u8], s: &Settings) -> Result<RawDatum> {
        let p = &mut self.plan;
        let bits = read_bits(l1, p.datums, p.datum_bits)?;
        p.datums += p.datum_bits as i64;
        // `row_left` runs from `row_datums` (16 or 32) down to 1.
        if self.row_left > 1 {
            self.row_left -= 1;
        } else {
            self.row_left = p.row_datums;
            p.datums += p.row_stride_bits - p.datum_bits as i64 * p.row_datums as i64;
            p.datums = wrap(p.datums, s, 8);
        }
        let (mut exp, mut exp_from) = (0, ExponentSource::None);
        if self.bfp {
            (exp, exp_from) = match (self.forced_exp, p.exponents.as_mut()) {
                (Some(e), _) => (e, ExponentSource::Forced),
                (None, Some(e16)) => {
                    let at = e16.div_euclid(16);
                    let v = read_bits(l1, at * 8, 8)? as u8;
                    *e16 += 1;
                    if e16.rem_euclid(256) == 0 {
                        *e16 = wrap(*e16, s, 16);
                    }
                    (v, ExponentSource::L1(at))
                }
                (None, None) => (0, ExponentSource::None),
            };
        }
        let (mut zeroes, mut zeroes_bit) = (0, None);
        if let Some(d) = p.deltas.as_mut() {
            zeroes_bit = Some(*d);
            zeroes = read_bits(l1, *d, 4)?;
            *d += 4;
            if d.rem_euclid(128) == 0 {
                p.datums += 128;
                *d += 32 * p.datum_bits as i64;
                *d = wrap(*d, s, 8);
            }
        }
        Ok(RawDatum {
            bits,
            exp,
            exp_from,
            zeroes,
            zeroes_bit,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ReadL1Bytes reads least significant bit first, across bytes.
    #[test]
    fn reads_are_little_endian_bit_streams() {
        let l1 = [0x21, 0x43, 0x65, 0x87, 0xA9];
        assert_eq!(read_bits(&l1, 0, 4).unwrap(), 0x1);
        assert_eq!(read_bits(&l1, 4, 4).unwrap(), 0x2);
        assert_eq!(read_bits(&l1, 8, 16).unwrap(), 0x6543);
        assert_eq!(read_bits(&l1, 4, 8).unwrap(), 0x32);
        assert_eq!(read_bits(&l1, 2, 2).unwrap(), 0x0);
        assert_eq!(read_bits(&l1, 6, 2).unwrap(), 0x0);
        assert_eq!(read_bits(&l1, 5, 2).unwrap(), 0x1);
        assert_eq!(read_bits(&l1, 8, 32).unwrap(), 0xA987_6543);
        assert_eq!(read_bits(&l1, 4, 32).unwrap(), 0x9876_5432);
    }

    /// Every read of 1 to 32 bits at every bit address of a 24-byte L1 (the
    /// last reads near its end), against the bits taken one at a time.
    #[test]
    fn every_read_is_its_bits_one_by_one() {
        let l1: Vec<u8> = (0..24u32)
            .map(|i| (i.wrapping_mul(0x9E) ^ 0x5A) as u8)
            .collect();
        let bit = |at: i64| u32::from(l1[(at / 8) as usize] >> (at % 8) & 1);
        for bits in 1..=32u32 {
            for addr in 0..=(l1.len() as i64 * 8 - i64::from(bits)) {
                let want = (0..bits).fold(0, |v, k| v | bit(addr + i64::from(k)) << k);
                assert_eq!(read_bits(&l1, addr, bits).unwrap(), want, "{addr} {bits}");
            }
        }
    }

    /// ReadL1Bytes: "Address must be in L1".
    #[test]
    fn reads_outside_l1_are_undefined() {
        let l1 = [0u8; 4];
        assert!(read_bits(&l1, 24, 8).is_ok());
        for (addr, bits) in [
            (32, 8),
            (25, 8),
            (-8, 8),
            (-1, 1),
            (i64::MIN, 1),
            (16, 32),
            (1, 32),
        ] {
            assert_eq!(
                read_bits(&l1, addr, bits).unwrap_err().kind,
                crate::FaultKind::UndefinedBehavior
            );
        }
        // An L1 of fewer bits than a read holds no start for it.
        assert!(read_bits(&[0u8; 1], 0, 16).is_err());
        assert!(read_bits(&[], 0, 1).is_err());
        assert!(read_bits(&[0x80u8], 7, 1).is_ok_and(|b| b == 1));
    }
}
