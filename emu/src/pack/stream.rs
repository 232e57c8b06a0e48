//! The 16-byte buffers at the bottom of the packer pipeline and the three
//! output streams they feed (OutputAddressGenerator.md, "Output alignment"
//! and "`NeedsNewAddress`").
//!
//! Packer output reaches L1 only as aligned 16-byte writes. Datums collect
//! in a buffer that persists between `PACR` instructions; once it holds 16
//! bytes it is written at the stream's `ByteAddress`, which then advances by
//! 16. `Last` or `Flush` pads a partly filled buffer with zeros and writes
//! it. With `Pack_L1_Acc` the whole 16-byte buffer passes through the adder
//! on its way to L1, padding included, so a padding lane holds `L1 + 0`.
//!
//! Where the padding goes under accumulation no page says in a sentence. The
//! pipeline diagram (`Diagrams/Src/PackerPipeline.lua`) draws the 128-bit
//! data buffer feeding "Performing Accumulation?" and then the adder, which
//! reads and writes L1; "Output alignment" (OutputAddressGenerator.md) pads
//! the buffer with zeros to make it full *before* it is written out; and
//! Packers/README.md defines accumulation as `L1 += Datum` on what is
//! written. Read together, the padding is summed like any other lane. ttsim
//! v1.10.0 (`TENSIX_EXECUTE_PACR`) instead stores zeros over the padding
//! after accumulating datum by datum; the documentation outranks ttsim
//! (`isa-spec/*/pack/l1-accumulate-keeps-bytes-past-the-last-datum`).

use super::l1_acc::AccFormat;
use crate::fault::{Fault, Result};
use crate::state::l1::{Stream, WriteTag};
use crate::state::L1;

/// One output stream: its address and its 16-byte buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutStream {
    /// True at reset and after `Last` / `Flush`: the next `PACR` computes a
    /// fresh address.
    pub needs_new_address: bool,
    /// Where the next 16 bytes go.
    pub byte_address: u32,
    buf: [u8; 16],
    fill: usize,
    /// Which stream this is, for the L1 write log.
    stream: Stream,
}

impl Default for OutStream {
    fn default() -> OutStream {
        OutStream::new(Stream::Data)
    }
}

impl OutStream {
    /// A stream in its reset state.
    pub fn new(stream: Stream) -> OutStream {
        OutStream {
            needs_new_address: true,
            byte_address: 0,
            buf: [0; 16],
            fill: 0,
            stream,
        }
    }

    /// The tag L1 logs this stream's writes by `tag` (instruction) with.
    fn tag(&self, instruction: u64) -> WriteTag {
        WriteTag {
            instruction,
            stream: self.stream,
        }
    }

    /// Take `addr` (in 16-byte units) as the stream's address if it needs
    /// one: `ByteAddress = (Addr & 0x1ffff) << 4`.
    pub fn assign(&mut self, addr: u32) {
        if self.needs_new_address {
            self.byte_address = (addr & 0x1FFFF) << 4;
            self.needs_new_address = false;
        }
    }

    /// Bytes waiting in the buffer.
    pub fn pending(&self) -> usize {
        self.fill
    }

    /// Append `bytes`, writing each buffer that fills.
    #[inline]
    pub fn push(
        &mut self,
        l1: &mut L1,
        bytes: &[u8],
        acc: Option<AccFormat>,
        tag: u64,
    ) -> Result<()> {
        if self.fill + bytes.len() < 16 {
            // The buffer does not fill: nothing reaches L1.
            self.buf[self.fill..self.fill + bytes.len()].copy_from_slice(bytes);
            self.fill += bytes.len();
            return Ok(());
        }
        let mut rest = bytes;
        if self.fill > 0 {
            let take = (16 - self.fill).min(rest.len());
            self.buf[self.fill..self.fill + take].copy_from_slice(&rest[..take]);
            self.fill += take;
            rest = &rest[take..];
            if self.fill < 16 {
                return Ok(());
            }
            self.write(l1, acc, tag)?;
        }
        // The buffer is empty: whole 16-byte groups fill it and go at once.
        if acc.is_none() {
            rest = self.put_groups(l1, rest, tag)?;
        }
        let mut groups = rest.chunks_exact(16);
        for group in &mut groups {
            self.buf.copy_from_slice(group);
            self.fill = 16;
            self.write(l1, acc, tag)?;
        }
        let tail = groups.remainder();
        self.buf[..tail.len()].copy_from_slice(tail);
        self.fill = tail.len();
        Ok(())
    }

    /// Pad a partly filled buffer with zeros and write it.
    pub fn flush(&mut self, l1: &mut L1, acc: Option<AccFormat>, tag: u64) -> Result<()> {
        if self.fill > 0 {
            self.buf[self.fill..].fill(0);
            self.write(l1, acc, tag)?;
        }
        Ok(())
    }

    /// With the buffer empty and nothing to accumulate, `len` bytes (whole
    /// 16-byte groups) that `fill` puts straight into L1 at the stream's
    /// address: the same writes, logging, address and buffer as pushing
    /// them. Returns `false`, doing nothing, when that does not apply (the
    /// buffer holds bytes, `len` is not whole groups, or the groups do not
    /// all lie inside L1); the caller then pushes the bytes.
    #[inline]
    pub fn fill_direct(
        &mut self,
        l1: &mut L1,
        len: usize,
        tag: u64,
        fill: impl FnOnce(&mut [u8]),
    ) -> bool {
        if self.fill != 0 || !len.is_multiple_of(16) || len == 0 {
            return false;
        }
        let addr = self.byte_address;
        if !l1.fill16_groups(addr, len / 16, self.tag(tag), fill) {
            return false;
        }
        self.byte_address = addr.wrapping_add(len as u32);
        // The buffer holds the last group, as if it had passed through it.
        if let Some(last) = l1.read(addr.wrapping_add(len as u32 - 16), 16) {
            self.buf.copy_from_slice(last);
        }
        true
    }

    /// With the buffer empty and nothing to accumulate: write the whole
    /// 16-byte groups of `bytes` to L1 as they are, leaving the buffer as if
    /// they had passed through it. Returns the bytes after them.
    #[inline]
    fn put_groups<'b>(&mut self, l1: &mut L1, bytes: &'b [u8], tag: u64) -> Result<&'b [u8]> {
        let groups = bytes.len() / 16;
        if groups == 0 {
            return Ok(bytes);
        }
        let stored = l1.write16_groups(self.byte_address, &bytes[..16 * groups], self.tag(tag));
        self.byte_address = self.byte_address.wrapping_add(16 * stored as u32);
        // The buffer holds the last group written, or the one refused.
        let last = stored.min(groups - 1);
        self.buf.copy_from_slice(&bytes[16 * last..16 * last + 16]);
        if stored < groups {
            self.fill = 16;
            return Err(outside(self.byte_address, l1));
        }
        Ok(&bytes[16 * groups..])
    }

    /// Write the buffer, through the adder when accumulating.
    #[inline]
    fn write(&mut self, l1: &mut L1, acc: Option<AccFormat>, tag: u64) -> Result<()> {
        let addr = self.byte_address;
        if let Some(a) = acc {
            let old = l1.read(addr, 16).ok_or_else(|| outside(addr, l1))?;
            a.accumulate(old, &mut self.buf);
        }
        if !l1.write16(addr, self.buf, self.tag(tag)) {
            return Err(outside(addr, l1));
        }
        self.byte_address = addr.wrapping_add(16);
        self.fill = 0;
        Ok(())
    }
}

#[cold]
fn outside(addr: u32, l1: &L1) -> Fault {
    Fault::undefined(format!(
        "packer output of 16 bytes at L1 byte address {addr:#x} leaves L1 ({:#x} bytes)",
        l1.len()
    ))
}

/// A packer's three output streams (OutputAddressGenerator.md: the RSI
/// stream of zero compression, the BFP exponent stream and the data stream).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Streams {
    pub rsi: OutStream,
    pub exp: OutStream,
    pub data: OutStream,
}

impl Default for Streams {
    fn default() -> Streams {
        Streams {
            rsi: OutStream::new(Stream::RowStart),
            exp: OutStream::new(Stream::Exponent),
            data: OutStream::new(Stream::Data),
        }
    }
}

impl Streams {
    /// `Last` / `Flush`: pad and write every buffer holding data, and make
    /// the next instruction compute fresh addresses.
    pub fn flush(&mut self, l1: &mut L1, acc: Option<AccFormat>, tag: u64) -> Result<()> {
        self.rsi.flush(l1, None, tag)?;
        self.exp.flush(l1, None, tag)?;
        self.data.flush(l1, acc, tag)?;
        self.rsi.needs_new_address = true;
        self.exp.needs_new_address = true;
        self.data.needs_new_address = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::Arch;

    /// "Output alignment": whatever sizes the datums arrive in, L1 sees the
    /// byte sequence in order, one aligned 16-byte write per 16 bytes, and
    /// the last partial group waits in the buffer until `flush` pads it
    /// with zeros.
    #[test]
    fn pushes_of_any_size_write_the_bytes_in_aligned_groups() {
        let mut x = 0x1234_5678u32;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for _ in 0..200 {
            let mut l1 = L1::new(Arch::Blackhole);
            l1.enable_log();
            let mut s = OutStream::default();
            s.assign(0x100);
            let total = (next() % 200) as usize;
            let data: Vec<u8> = (0..total).map(|_| next() as u8).collect();
            let mut at = 0;
            while at < total {
                let n = ((next() % 40) as usize).min(total - at);
                s.push(&mut l1, &data[at..at + n], None, 7).unwrap();
                at += n;
            }
            assert_eq!(s.pending(), total % 16);
            assert_eq!(l1.log().len(), total / 16);
            for (k, w) in l1.log().iter().enumerate() {
                assert_eq!(w.addr, 0x1000 + 16 * k as u32);
                assert_eq!(&w.bytes[..], &data[16 * k..16 * k + 16]);
            }
            s.flush(&mut l1, None, 7).unwrap();
            let mut want = data.clone();
            want.resize(total.div_ceil(16) * 16, 0);
            assert_eq!(l1.read(0x1000, want.len()).unwrap(), &want[..]);
            assert_eq!(s.pending(), 0);
        }
    }
}
