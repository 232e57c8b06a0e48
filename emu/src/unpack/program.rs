//! LLK-style unpack jobs: the configuration and the thread-0 instruction
//! program tt-llk uses to unpack one tile of faces from L1, as in the ttsim
//! conformance vectors (`SETADCXY`/`SETADCZW` to zero, `SETADCXX` to the face
//! width, one `UNPACR` per face in `MultiContextMode` stepping channel 0 and
//! channel 1 `Z`, the last one handing the bank to the matrix unit).
//!
//! A test or benchmark puts a tile in L1 (written by hand or by the packer),
//! calls [`TileUnpack::configure`], then runs [`TileUnpack::program`] with
//! [`Machine::run`].

use crate::arch::Arch;
use crate::exec::{Step, ThreadProgram};
use crate::format::DataFormat;
use crate::isa::{self, Instruction, Setadcxx, Setadcxy, Setadczw, Unpacr};
use crate::machine::{Machine, SetupError};
use crate::regs::ThreadCfgField;

/// One tile: `faces` faces of `face_rows` rows of 16 datums, stored one
/// face after another at `l1_addr` (for BFP input the exponent section comes
/// first, as the packer writes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileUnpack {
    /// 0 (to `SrcA` or `Dst`) or 1 (to `SrcB`).
    pub unpacker: usize,
    pub in_format: DataFormat,
    pub out_format: DataFormat,
    /// Unpacker 0 only: write `Dst` rows from 0 rather than `SrcA`.
    pub to_dst: bool,
    /// Byte address of the tile in L1 (after its 16-byte header); a
    /// multiple of 16, at least 16.
    pub l1_addr: u32,
    /// 1 to 4.
    pub faces: u32,
    /// 1 to 16.
    pub face_rows: u32,
    /// Hand the bank to the matrix unit with the last `UNPACR`.
    pub set_dvalid: bool,
    /// With `to_dst`: the first `Dst` row written (`Dst16b` or `Dst32b`
    /// rows, as the output format makes it), at most 1023 or 511. The
    /// output address starts at `Dest_cntx0_address = 0x40 + 16 * dst_row`
    /// datums, past the four header rows that Dst writes skip
    /// (`UNPACR_Regular.md`, "Determine initial output address").
    pub dst_row: u32,
}

impl TileUnpack {
    /// Datums in one face.
    pub fn face_datums(&self) -> u32 {
        self.face_rows * 16
    }

    /// Bytes of one face of the output format, as the output address
    /// generator counts them (`Zstride`).
    fn face_stride(&self) -> u32 {
        self.face_datums() * super::output::datum_bytes(self.out_format)
    }

    fn check(&self) -> Result<(), SetupError> {
        let bad = |why: &str| Err(SetupError(format!("TileUnpack: {why}")));
        if self.unpacker > 1 {
            return bad("unpacker is 0 or 1");
        }
        if !(1..=4).contains(&self.faces) || !(1..=16).contains(&self.face_rows) {
            return bad("faces is 1..=4 and face_rows 1..=16");
        }
        if self.l1_addr < 16 || !self.l1_addr.is_multiple_of(16) {
            return bad("l1_addr is a multiple of 16, at least 16");
        }
        if self.to_dst && self.unpacker != 0 {
            return bad("only unpacker 0 writes Dst");
        }
        if (self.dst_row != 0 && !self.to_dst) || self.dst_row > 1023 {
            return bad("dst_row is 0..=1023, and 0 unless to_dst");
        }
        Ok(())
    }

    /// Write the job's configuration: Config state 0 and thread 0's
    /// ThreadConfig.
    pub fn configure(&self, m: &mut Machine) -> Result<(), SetupError> {
        use crate::regs::CfgField as C;
        self.check()?;
        let f = &super::fields::UNPACKERS[self.unpacker];
        let x_dim = self.face_datums();
        let words = [
            self.in_format.code() as u32 | (1 << 4) | (x_dim << 16),
            1 | (self.faces << 16),
            0,
            0,
        ];
        let first = f
            .tile_descriptor
            .on(m.arch())
            .ok_or_else(|| SetupError("no tile descriptor on this architecture".into()))?;
        for (i, w) in words.iter().enumerate() {
            m.write_config(0, first.addr32 as usize + i, *w)?;
        }
        let mut set = |field: C, value: u32| {
            if m.config.set(0, field, value) {
                Ok(())
            } else {
                Err(SetupError(format!("{} does not exist", field.name())))
            }
        };
        set(f.out_data_format, self.out_format.code() as u32)?;
        set(f.disable_zero_compress[0], 1)?;
        set(f.base[0], self.l1_addr / 16 - 1)?;
        set(f.out_zstride, self.face_stride())?;
        if self.unpacker == 0 {
            set(f.unpack_if_sel_cntx[0], self.to_dst as u32)?;
            set(f.dest[0], 0x40 + 16 * self.dst_row)?;
            set(f.tile_x_dim[0], x_dim)?;
            set(f.add_dest_addr_cntr, 1)?;
        }
        let ovrd = ThreadCfgField::SRCA_SET_SetOvrdWithAddr;
        if !m.thread_config.set(0, ovrd, (!self.to_dst) as u32) {
            return Err(SetupError("SRCA_SET_SetOvrdWithAddr does not exist".into()));
        }
        Ok(())
    }

    /// The thread-0 program.
    pub fn program(&self, arch: Arch) -> Result<ThreadProgram, SetupError> {
        self.check()?;
        let mask = 1u32 << self.unpacker;
        let mut insns = vec![
            Instruction::Setadcxy(Setadcxy {
                cnt_set_mask: mask,
                bit_mask: 0xF,
                ..Default::default()
            }),
            Instruction::Setadczw(Setadczw {
                cnt_set_mask: mask,
                bit_mask: 0xF,
                ..Default::default()
            }),
            Instruction::Setadcxx(Setadcxx {
                cnt_set_mask: mask,
                x_start: 0,
                x_end2: self.face_datums() - 1,
            }),
        ];
        for face in 0..self.faces {
            insns.push(Instruction::Unpacr(Unpacr {
                unpack_block_selection: self.unpacker as u32,
                addr_mode: 0b0001_0001,
                ovrd_thread_id: 1,
                set_dat_valid: (self.set_dvalid && face + 1 == self.faces) as u32,
                last: 1,
                ..Default::default()
            }));
        }
        let steps = insns
            .iter()
            .map(|i| {
                isa::encode(arch, i)
                    .map(Step::Instruction)
                    .map_err(|e| SetupError(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ThreadProgram { thread: 0, steps })
    }
}
