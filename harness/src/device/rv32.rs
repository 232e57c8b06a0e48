//! A small RV32I assembler: just the instructions a TRISC program image
//! needs (constants, loads and stores, backward branches) and the Tensix
//! instruction push.
//!
//! Encodings follow the RISC-V Unprivileged ISA, chapter "RV32I Base Integer
//! Instruction Set" (R/I/S/B/U/J formats). A TRISC issues a Tensix
//! instruction by executing the instruction word rotated left by two bits
//! (tt-isa-documentation `BabyRISCV/PushTensixInstruction.md`; the same
//! rotation TRISC disassembly prints): such a word's low two bits are not
//! `0b11`, so it is not a 32-bit RISC-V instruction.

/// A RISC-V integer register, `x0`..`x31`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reg(u8);

impl Reg {
    pub const ZERO: Reg = Reg(0);
    pub const T0: Reg = Reg(5);
    pub const T1: Reg = Reg(6);
    pub const T2: Reg = Reg(7);
    pub const S0: Reg = Reg(8);
    pub const S1: Reg = Reg(9);
    pub const A0: Reg = Reg(10);
    pub const A1: Reg = Reg(11);

    fn bits(self) -> u32 {
        u32::from(self.0 & 31)
    }
}

/// Instruction words being assembled, addressed from `base`.
#[derive(Clone, Debug)]
pub struct Asm {
    base: u32,
    words: Vec<u32>,
}

impl Asm {
    /// An empty program whose first word will sit at byte address `base`.
    pub fn new(base: u32) -> Asm {
        Asm {
            base,
            words: Vec::new(),
        }
    }

    /// The address the next word will have.
    pub fn here(&self) -> u32 {
        self.base + 4 * self.words.len() as u32
    }

    /// The assembled words.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The program as little-endian bytes, as L1 holds it.
    pub fn bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// A raw word.
    pub fn word(&mut self, w: u32) {
        self.words.push(w);
    }

    /// Issue the Tensix instruction `insn` (opcode in bits `[31:24]`) from this
    /// TRISC: the word rotated left by two.
    pub fn tensix(&mut self, insn: u32) {
        self.word(insn.rotate_left(2));
    }

    pub fn lui(&mut self, rd: Reg, upper20: u32) {
        self.word((upper20 << 12) | (rd.bits() << 7) | 0x37);
    }

    pub fn addi(&mut self, rd: Reg, rs1: Reg, imm: i32) {
        self.word(i_type(imm, rs1, 0, rd, 0x13));
    }

    /// `rd = value`, in one or two instructions.
    pub fn li(&mut self, rd: Reg, value: u32) {
        let low = ((value & 0xfff) as i32) << 20 >> 20;
        let high = value.wrapping_sub(low as u32) >> 12;
        if high == 0 {
            self.addi(rd, Reg::ZERO, low);
        } else {
            self.lui(rd, high);
            if low != 0 {
                self.addi(rd, rd, low);
            }
        }
    }

    pub fn lw(&mut self, rd: Reg, rs1: Reg, offset: i32) {
        self.word(i_type(offset, rs1, 2, rd, 0x03));
    }

    pub fn sw(&mut self, rs2: Reg, rs1: Reg, offset: i32) {
        self.word(s_type(offset, rs2, rs1, 2));
    }

    pub fn sh(&mut self, rs2: Reg, rs1: Reg, offset: i32) {
        self.word(s_type(offset, rs2, rs1, 1));
    }

    /// Branch to `target` if `rs1 != rs2`.
    pub fn bne(&mut self, rs1: Reg, rs2: Reg, target: u32) {
        let w = b_type(target.wrapping_sub(self.here()) as i32, rs2, rs1, 1);
        self.word(w);
    }

    /// Branch to `target` if `rs1 == rs2`.
    pub fn beq(&mut self, rs1: Reg, rs2: Reg, target: u32) {
        let w = b_type(target.wrapping_sub(self.here()) as i32, rs2, rs1, 0);
        self.word(w);
    }

    /// Jump to `target` (`jal x0`).
    pub fn j(&mut self, target: u32) {
        let off = target.wrapping_sub(self.here()) as i32 as u32;
        let imm = ((off >> 20) & 1) << 31
            | ((off >> 1) & 0x3ff) << 21
            | ((off >> 11) & 1) << 20
            | ((off >> 12) & 0xff) << 12;
        self.word(imm | 0x6f);
    }
}

fn i_type(imm: i32, rs1: Reg, funct3: u32, rd: Reg, opcode: u32) -> u32 {
    ((imm as u32 & 0xfff) << 20) | (rs1.bits() << 15) | (funct3 << 12) | (rd.bits() << 7) | opcode
}

fn s_type(imm: i32, rs2: Reg, rs1: Reg, funct3: u32) -> u32 {
    let imm = imm as u32 & 0xfff;
    ((imm >> 5) << 25)
        | (rs2.bits() << 20)
        | (rs1.bits() << 15)
        | (funct3 << 12)
        | ((imm & 0x1f) << 7)
        | 0x23
}

fn b_type(off: i32, rs2: Reg, rs1: Reg, funct3: u32) -> u32 {
    let off = off as u32;
    ((off >> 12) & 1) << 31
        | ((off >> 5) & 0x3f) << 25
        | (rs2.bits() << 20)
        | (rs1.bits() << 15)
        | (funct3 << 12)
        | ((off >> 1) & 0xf) << 8
        | ((off >> 11) & 1) << 7
        | 0x63
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected words are from the RISC-V specification's encoding tables,
    // worked by hand (and as GNU as prints them for the same source).
    #[test]
    fn encodes_the_base_forms() {
        let mut a = Asm::new(0x6000);
        a.lui(Reg::T0, 0x10); // lui t0, 0x10
        a.addi(Reg::T1, Reg::ZERO, 0x234); // li t1, 0x234
        a.sw(Reg::T1, Reg::T0, 0); // sw t1, 0(t0)
        a.lw(Reg::T2, Reg::T0, -4); // lw t2, -4(t0)
        a.j(0x6000); // j back to the start (from 0x6010: -16)
        assert_eq!(
            a.words(),
            &[
                0x0001_02b7,
                0x2340_0313,
                0x0062_a023,
                0xffc2_a383,
                0xff1f_f06f
            ]
        );
    }

    #[test]
    fn li_splits_with_sign_correction() {
        let mut a = Asm::new(0);
        a.li(Reg::A0, 0x1234_5fff);
        // lui a0, 0x12346 ; addi a0, a0, -1
        assert_eq!(a.words(), &[0x1234_6537, 0xfff5_0513]);
        let mut b = Asm::new(0);
        b.li(Reg::A0, 0x800);
        // lui a0, 1 ; addi a0, a0, -2048
        assert_eq!(b.words(), &[0x0000_1537, 0x8005_0513]);
        let mut c = Asm::new(0);
        c.li(Reg::A0, 5);
        assert_eq!(c.words(), &[0x0050_0513]);
    }

    #[test]
    fn branches_backwards() {
        let mut a = Asm::new(0x100);
        a.word(0x0000_0013); // nop at 0x100
        a.bne(Reg::T0, Reg::ZERO, 0x100); // bne t0, zero, -4
        a.beq(Reg::T0, Reg::T1, 0x100); // beq t0, t1, -8
        assert_eq!(a.words()[1], 0xfe02_9ee3);
        assert_eq!(a.words()[2], 0xfe62_8ce3);
    }

    #[test]
    fn tensix_words_are_rotated() {
        // README of the reference: c8940412 is SETC16 0xb2250104.
        let mut a = Asm::new(0);
        a.tensix(0xb225_0104);
        assert_eq!(a.words(), &[0xc894_0412]);
    }
}
