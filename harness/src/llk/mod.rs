//! The instruction program for a tile job, written the way tt-llk programs
//! the hardware: the Config words `set_packer_config` / `configure_unpack_*`
//! write, the address-modifier ThreadConfig words, and the thread's
//! instructions (ADC setup, then one PACR per group of rows, or one UNPACR per
//! face). The emulator runs this program; the golden model computes the same
//! job's result on its own, and the two must agree bit for bit.
//!
//! The programs match the ttsim conformance vectors' (`conformance-vectors/
//! ttsim/`), which were made by programming jobs the tt-llk way; the
//! validation test rebuilds every covered vector from its job and compares.

pub mod recover;

use crate::golden::{Format, PackJob, UnpackJob, UnpackTarget};
use crate::vector::{
    self, Arch, ConfigWrite, MopConfig, Provenance, Setup, Source, Step, ThreadConfigWrite,
    ThreadProgram, Vector,
};
use tensix_emu::isa::{self, Instruction};
use tensix_emu::regs::{CfgField, ThreadCfgField};

/// How the PACRs of a pack are issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PackForm {
    /// One PACR instruction word per step.
    Instructions,
    /// One MOP (mop_type 1) whose loops expand to the same PACRs (Blackhole).
    Mop,
}

/// Config writes, ThreadConfig writes, MOP configuration and the thread
/// program of one job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Programmed {
    pub config: Vec<ConfigWrite>,
    pub thread_config: Vec<ThreadConfigWrite>,
    pub mop_config: Vec<MopConfig>,
    pub program: ThreadProgram,
}

/// Config words under construction, written in address order.
struct Words {
    arch: Arch,
    /// Word `a` of Config state 0, where bit `a` of `present` is set.
    values: [u32; CONFIG_SLOTS],
    present: [u64; CONFIG_SLOTS / 64],
}

/// Room for every Config word of either architecture.
const CONFIG_SLOTS: usize = 256;
const _: () = assert!(
    tensix_emu::regs::config_words(Arch::WormholeB0) <= CONFIG_SLOTS
        && tensix_emu::regs::config_words(Arch::Blackhole) <= CONFIG_SLOTS
);

impl Words {
    fn new(arch: Arch) -> Words {
        Words {
            arch,
            values: [0; CONFIG_SLOTS],
            present: [0; CONFIG_SLOTS / 64],
        }
    }

    /// The word at `addr32`, written from now on (zero until set).
    fn word(&mut self, addr32: u8) -> &mut u32 {
        let a = usize::from(addr32);
        self.present[a / 64] |= 1 << (a % 64);
        &mut self.values[a]
    }

    /// Make sure the word holding `field` is written, even if zero.
    fn touch(&mut self, field: CfgField) {
        if let Some(f) = field.on(self.arch) {
            self.word(f.addr32);
        }
    }

    /// Set `field` in its word.
    fn set(&mut self, field: CfgField, value: u32) {
        if let Some(f) = field.on(self.arch) {
            let w = self.word(f.addr32);
            *w = f.insert(*w, value);
        }
    }

    fn writes(self) -> Vec<ConfigWrite> {
        let mut out =
            Vec::with_capacity(self.present.iter().map(|p| p.count_ones() as usize).sum());
        for (i, &bits) in self.present.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let addr = i * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                out.push(ConfigWrite {
                    addr: addr as u32,
                    value: self.values[addr],
                    state: 0,
                });
            }
        }
        out
    }
}

/// A ThreadConfig word of `thread` built from named fields.
fn thread_word(arch: Arch, thread: u8, fields: &[(ThreadCfgField, u32)]) -> ThreadConfigWrite {
    let mut reg = 0;
    let mut value = 0u32;
    for (field, v) in fields {
        if let Some(f) = field.on(arch) {
            reg = f.addr32;
            value = f.insert(value, *v);
        }
    }
    ThreadConfigWrite {
        thread,
        reg,
        value: value as u16,
    }
}

/// Encode an instruction for `arch`; the builder only makes encodable ones.
fn word(arch: Arch, insn: Instruction) -> u32 {
    isa::encode(arch, &insn).unwrap_or(0)
}

/// Bytes per datum the packer's input address generator steps by: tt-llk's
/// `set_packer_strides` (4 for 32-bit, 2 for 16-bit, 1 otherwise, by the low
/// two bits of the format code).
fn x_stride(src: Format) -> u32 {
    match src.code() & 3 {
        0 => 4,
        1 => 2,
        _ => 1,
    }
}

/// The Config words, ThreadConfig words and thread-2 program of a pack.
pub fn pack(job: &PackJob, form: PackForm) -> Programmed {
    use CfgField as C;
    let arch = job.arch;
    let mut w = Words::new(arch);
    let wide = job.dst.mode() == vector::DstMode::Bits32;
    w.set(C::ALU_FORMAT_SPEC_REG2_Dstacc, job.src.code());
    w.set(C::STACC_RELU_ApplyRelu, u32::from(job.relu.mode));
    w.set(C::STACC_RELU_ReluThreshold, u32::from(job.relu.threshold));
    let x = x_stride(job.src);
    if arch == Arch::WormholeB0 {
        w.set(C::PCK0_ADDR_CTRL_XY_REG_0_Xstride, x);
    }
    w.set(C::PCK0_ADDR_CTRL_XY_REG_0_Ystride, 16 * x);
    w.set(C::PCK0_ADDR_CTRL_ZW_REG_0_Zstride, 256 * x);
    w.set(C::PCK0_ADDR_CTRL_ZW_REG_0_Wstride, 1024 * x);
    w.set(C::PCK_DEST_RD_CTRL_Read_32b_data, u32::from(wide));
    w.set(C::PCK_DEST_RD_CTRL_Read_unsigned, u32::from(job.unsigned));
    w.set(C::PCK_DEST_RD_CTRL_Read_int8, u32::from(job.read_raw));
    w.set(C::PCK_DEST_RD_CTRL_Round_10b_mant, u32::from(job.round_10b));
    edge_words(&mut w, job);
    let counters = [
        C::PACK_COUNTERS_SEC0_pack_reads_per_xy_plane,
        C::PACK_COUNTERS_SEC1_pack_reads_per_xy_plane,
        C::PACK_COUNTERS_SEC2_pack_reads_per_xy_plane,
        C::PACK_COUNTERS_SEC3_pack_reads_per_xy_plane,
    ];
    let packers = if arch == Arch::Blackhole { 1 } else { 4 };
    for c in counters.iter().take(packers) {
        w.set(*c, u32::from(job.face_rows));
    }
    packer_words(&mut w, job);

    let t = 2;
    let thread_config = match arch {
        Arch::Blackhole => {
            use ThreadCfgField as T;
            vec![
                thread_word(
                    arch,
                    t,
                    &[
                        (T::ADDR_MOD_PACK_SEC0_YsrcIncr, 4),
                        (T::ADDR_MOD_PACK_SEC0_YdstIncr, 4),
                    ],
                ),
                thread_word(
                    arch,
                    t,
                    &[
                        (T::ADDR_MOD_PACK_SEC1_YsrcClear, 1),
                        (T::ADDR_MOD_PACK_SEC1_YdstClear, 1),
                        (T::ADDR_MOD_PACK_SEC1_ZsrcClear, 1),
                    ],
                ),
                thread_word(
                    arch,
                    t,
                    &[
                        (T::ADDR_MOD_PACK_SEC2_YsrcClear, 1),
                        (T::ADDR_MOD_PACK_SEC2_YdstIncr, 4),
                        (T::ADDR_MOD_PACK_SEC2_ZsrcIncr, 1),
                    ],
                ),
            ]
        }
        Arch::WormholeB0 => {
            use ThreadCfgField as T;
            vec![
                thread_word(
                    arch,
                    t,
                    &[
                        (T::ADDR_MOD_PACK_SEC0_YsrcIncr, 15),
                        (T::ADDR_MOD_PACK_SEC0_YdstIncr, 1),
                    ],
                ),
                thread_word(
                    arch,
                    t,
                    &[
                        (T::ADDR_MOD_PACK_SEC1_YsrcClear, 1),
                        (T::ADDR_MOD_PACK_SEC1_YdstClear, 1),
                    ],
                ),
                thread_word(arch, t, &[(T::ADDR_MOD_PACK_SEC2_YsrcClear, 1)]),
            ]
        }
    };

    let x_end = match arch {
        Arch::Blackhole => 15,
        Arch::WormholeB0 => u32::from(job.face_rows) * 16 - 1,
    };
    let mut steps = vec![
        Step::Instruction(word(
            arch,
            Instruction::Setadcxx(isa::Setadcxx {
                x_start: 0,
                x_end2: x_end,
                cnt_set_mask: 4,
            }),
        )),
        Step::Instruction(word(
            arch,
            Instruction::Setadcxy(isa::Setadcxy {
                bit_mask: 0xb,
                cnt_set_mask: 4,
                ..Default::default()
            }),
        )),
        Step::Instruction(word(
            arch,
            Instruction::Setadczw(isa::Setadczw {
                bit_mask: 0xf,
                cnt_set_mask: 4,
                ..Default::default()
            }),
        )),
        Step::Instruction(word(
            arch,
            Instruction::Setadc(isa::Setadc {
                value: u32::from(job.tile),
                dimension_index: 3,
                channel_index: 0,
                cnt_set_mask: 4,
            }),
        )),
    ];
    let mut mop_config = Vec::new();
    match arch {
        Arch::WormholeB0 => {
            let pack_sel = match job.faces {
                1 => 1,
                2 => 3,
                _ => 15,
            };
            steps.push(Step::Instruction(word(
                arch,
                Instruction::Pacr(isa::Pacr {
                    last: 1,
                    concat: 1,
                    pack_sel,
                    addr_mode: 1,
                    ..Default::default()
                }),
            )));
        }
        Arch::Blackhole => {
            let per_pacr = job.face_rows.min(4);
            let read_intf_sel = match per_pacr {
                1 => 1,
                2 => 3,
                _ => 0,
            };
            let pacr = |addr_mode: u32, last: u32| {
                word(
                    arch,
                    Instruction::Pacr(isa::Pacr {
                        last,
                        read_intf_sel,
                        addr_mode,
                        ..Default::default()
                    }),
                )
            };
            let per_face = job.face_rows / per_pacr;
            match form {
                PackForm::Mop => {
                    let nop = word(arch, Instruction::Nop(isa::Nop {}));
                    mop_config.push(MopConfig {
                        thread: t,
                        words: [
                            u32::from(job.faces),
                            u32::from(per_face),
                            nop,
                            nop,
                            nop,
                            pacr(0, 0),
                            nop,
                            pacr(1, 1),
                            pacr(2, 0),
                        ],
                    });
                    steps.push(Step::Instruction(word(
                        arch,
                        Instruction::Mop(isa::Mop {
                            mop_type: 1,
                            ..Default::default()
                        }),
                    )));
                }
                PackForm::Instructions => {
                    // The three words the loop uses, each encoded once.
                    let (next_rows, next_face, end) = (pacr(0, 0), pacr(2, 0), pacr(1, 1));
                    steps.reserve(usize::from(job.faces) * usize::from(per_face));
                    for face in 0..job.faces {
                        for j in 0..per_face {
                            let last_face = face + 1 == job.faces;
                            let w = if j + 1 < per_face {
                                next_rows
                            } else if last_face {
                                end
                            } else {
                                next_face
                            };
                            steps.push(Step::Instruction(w));
                        }
                    }
                }
            }
            steps.push(Step::Instruction(word(
                arch,
                Instruction::Setadczw(isa::Setadczw {
                    bit_mask: 5,
                    cnt_set_mask: 4,
                    ..Default::default()
                }),
            )));
        }
    }
    Programmed {
        config: w.writes(),
        thread_config,
        mop_config,
        program: ThreadProgram {
            thread: t,
            run: steps,
        },
    }
}

/// The edge-mask words: tt-llk writes the row-set mapping 0 word and the
/// first two column masks (with the row-set select beside mask 0) on
/// Blackhole, the first mask on Wormhole B0; other mappings and masks only
/// when a packer's select or a used mapping entry reaches them.
fn edge_words(w: &mut Words, job: &PackJob) {
    use CfgField as C;
    let e = &job.edge;
    let masks = [
        C::PCK_EDGE_OFFSET_SEC0_mask,
        C::PCK_EDGE_OFFSET_SEC1_mask,
        C::PCK_EDGE_OFFSET_SEC2_mask,
        C::PCK_EDGE_OFFSET_SEC3_mask,
    ];
    let maps = [
        C::TILE_ROW_SET_MAPPING_0_row_set_mapping_0,
        C::TILE_ROW_SET_MAPPING_1_row_set_mapping_0,
        C::TILE_ROW_SET_MAPPING_2_row_set_mapping_0,
        C::TILE_ROW_SET_MAPPING_3_row_set_mapping_0,
    ];
    let bh = job.arch == Arch::Blackhole;
    let packers = if bh { 1 } else { usize::from(job.faces) };
    let mut map_used = [bh, false, false, false];
    let mut mask_used = [true, bh, false, false];
    for p in 0..packers {
        let b = ((u32::from(e.select) >> (2 * p)) & 3) as usize;
        map_used[b] = true;
        for r in 0..usize::from(job.face_rows) {
            let c = ((e.row_sets[b] >> (2 * r)) & 3) as usize;
            mask_used[c] = true;
        }
    }
    for (i, m) in masks.iter().enumerate() {
        if mask_used[i] {
            w.set(*m, u32::from(e.masks[i]));
        }
    }
    for (i, m) in maps.iter().enumerate() {
        if map_used[i] && (bh || i > 0 || e.row_sets[i] != 0) {
            // The mapping word is sixteen 2-bit fields; write it whole.
            if let Some(f) = m.on(job.arch) {
                *w.word(f.addr32) = e.row_sets[i];
            }
        }
    }
    if e.select != 0 {
        w.set(C::PCK_EDGE_TILE_ROW_SET_SELECT_select, u32::from(e.select));
    }
    if e.neg_inf {
        // tt-llk's reduce setup (`llk_pack_reduce_mask_config`) turns the
        // −∞ fill on with a read-modify-write of this one field.
        w.set(C::PCK_EDGE_MODE_mode, 1);
    }
}

/// The per-packer words: `THCON_SEC0_REG1` (Blackhole's one packer) or the
/// four packers' `THCON_SEC{0,1}_REG{1,8}` (Wormhole B0), and the Dst offsets.
/// On Wormhole B0 packers 1..3 take addresses relative to packer 0 (bit 31 of
/// its `L1_Dest_addr`), chosen so face `i` lands where the one-packer layout
/// puts it.
fn packer_words(w: &mut Words, job: &PackJob) {
    use CfgField as C;
    struct Packer {
        exp: C,
        addr: C,
        dzc: C,
        out: C,
        inp: C,
        acc: C,
        lf8: C,
        offset: C,
    }
    let packers = [
        Packer {
            exp: C::THCON_SEC0_REG1_Exp_section_size,
            addr: C::THCON_SEC0_REG1_L1_Dest_addr,
            dzc: C::THCON_SEC0_REG1_Disable_zero_compress,
            out: C::THCON_SEC0_REG1_Out_data_format,
            inp: C::THCON_SEC0_REG1_In_data_format,
            acc: C::THCON_SEC0_REG1_Pack_L1_Acc,
            lf8: C::THCON_SEC0_REG1_Pac_LF8_4b_exp,
            offset: C::DEST_TARGET_REG_CFG_PACK_SEC0_Offset,
        },
        Packer {
            exp: C::THCON_SEC0_REG8_Exp_section_size,
            addr: C::THCON_SEC0_REG8_L1_Dest_addr,
            dzc: C::THCON_SEC0_REG8_Disable_zero_compress,
            out: C::THCON_SEC0_REG8_Out_data_format,
            inp: C::THCON_SEC0_REG8_In_data_format,
            acc: C::THCON_SEC0_REG8_Pack_L1_Acc,
            lf8: C::THCON_SEC0_REG1_Pac_LF8_4b_exp,
            offset: C::DEST_TARGET_REG_CFG_PACK_SEC1_Offset,
        },
        Packer {
            exp: C::THCON_SEC1_REG1_Exp_section_size,
            addr: C::THCON_SEC1_REG1_L1_Dest_addr,
            dzc: C::THCON_SEC1_REG1_Disable_zero_compress,
            out: C::THCON_SEC1_REG1_Out_data_format,
            inp: C::THCON_SEC1_REG1_In_data_format,
            acc: C::THCON_SEC1_REG1_Pack_L1_Acc,
            lf8: C::THCON_SEC1_REG1_Pac_LF8_4b_exp,
            offset: C::DEST_TARGET_REG_CFG_PACK_SEC2_Offset,
        },
        Packer {
            exp: C::THCON_SEC1_REG8_Exp_section_size,
            addr: C::THCON_SEC1_REG8_L1_Dest_addr,
            dzc: C::THCON_SEC1_REG8_Disable_zero_compress,
            out: C::THCON_SEC1_REG8_Out_data_format,
            inp: C::THCON_SEC1_REG8_In_data_format,
            acc: C::THCON_SEC1_REG8_Pack_L1_Acc,
            lf8: C::THCON_SEC0_REG1_Pac_LF8_4b_exp,
            offset: C::DEST_TARGET_REG_CFG_PACK_SEC3_Offset,
        },
    ];
    let count = if job.arch == Arch::Blackhole { 1 } else { 4 };
    let units = job.face_bytes().div_ceil(16);
    let faces = u32::from(job.faces);
    let eight_bit = job.out.l1_bits() <= 8;
    for (i, p) in packers.iter().take(count).enumerate() {
        let i32_ = i as u32;
        let (addr, exp) = if i == 0 {
            (
                (job.l1_addr / 16).wrapping_sub(1) | 0x8000_0000,
                job.exp_section(),
            )
        } else if job.out.is_bfp() {
            // A packer past the tile's faces is configured as for the
            // smallest tile (1, 2 or 4 faces) that would use it.
            let section = faces.max((i32_ + 1).next_power_of_two());
            (i32_ - 1, section + i32_ * units - i32_)
        } else {
            (i32_ * units - 1, if eight_bit { 0 } else { faces })
        };
        w.set(p.exp, exp);
        w.set(p.addr, addr);
        w.set(p.dzc, 1);
        w.set(p.out, job.out.code());
        w.set(p.inp, job.src.code());
        if job.arch == Arch::Blackhole {
            // Blackhole tt-llk writes the whole fourth word (L1 accumulation,
            // FP8 exponent width) every time.
            w.touch(p.acc);
            w.touch(p.lf8);
        }
        if job.l1_acc {
            w.set(p.acc, 1);
        }
        if job.fp8_e4m3 {
            w.set(p.lf8, 1);
        }
        let offset = u32::from(job.dst_offset) + 16 * i32_;
        w.set(p.offset, offset);
        w.touch(p.offset);
    }
}

/// The Config fields of one unpacker that an LLK unpack programs.
pub(crate) struct Unpacker {
    /// First word of the tile descriptor; the second is the word after it.
    pub descriptor: CfgField,
    pub lf8: CfgField,
    pub out: CfgField,
    pub throttle: CfgField,
    pub haloize: CfgField,
    pub disable_zero_compress: [CfgField; 2],
    /// `Unpack_if_sel_cntx0`: unpacker 0 only (straight to `Dst`).
    pub if_sel: Option<CfgField>,
    pub force_shared_exp: CfgField,
    pub shared_exp: CfgField,
    pub unsigned: CfgField,
    pub base: CfgField,
}

/// Unpacker 0 (`THCON_SEC0_*`, SrcA or `Dst`) and unpacker 1 (`THCON_SEC1_*`,
/// SrcB).
pub(crate) const UNPACKERS: [Unpacker; 2] = [
    Unpacker {
        descriptor: CfgField::THCON_SEC0_REG0_TileDescriptor,
        lf8: CfgField::THCON_SEC0_REG1_Unp_LF8_4b_exp,
        out: CfgField::THCON_SEC0_REG2_Out_data_format,
        throttle: CfgField::THCON_SEC0_REG2_Throttle_mode,
        haloize: CfgField::THCON_SEC0_REG2_Haloize_mode,
        disable_zero_compress: [
            CfgField::THCON_SEC0_REG2_Disable_zero_compress_cntx0,
            CfgField::THCON_SEC0_REG2_Disable_zero_compress_cntx1,
        ],
        if_sel: Some(CfgField::THCON_SEC0_REG2_Unpack_if_sel_cntx0),
        force_shared_exp: CfgField::THCON_SEC0_REG2_Force_shared_exp,
        shared_exp: CfgField::UNP0_FORCED_SHARED_EXP_shared_exp,
        unsigned: CfgField::ALU_FORMAT_SPEC_REG0_SrcAUnsigned,
        base: CfgField::THCON_SEC0_REG3_Base_address,
    },
    Unpacker {
        descriptor: CfgField::THCON_SEC1_REG0_TileDescriptor,
        lf8: CfgField::THCON_SEC1_REG1_Unp_LF8_4b_exp,
        out: CfgField::THCON_SEC1_REG2_Out_data_format,
        throttle: CfgField::THCON_SEC1_REG2_Throttle_mode,
        haloize: CfgField::THCON_SEC1_REG2_Haloize_mode,
        disable_zero_compress: [
            CfgField::THCON_SEC1_REG2_Disable_zero_compress_cntx0,
            CfgField::THCON_SEC1_REG2_Disable_zero_compress_cntx1,
        ],
        if_sel: None,
        force_shared_exp: CfgField::THCON_SEC1_REG2_Force_shared_exp,
        shared_exp: CfgField::UNP1_FORCED_SHARED_EXP_shared_exp,
        unsigned: CfgField::ALU_FORMAT_SPEC_REG0_SrcBUnsigned,
        base: CfgField::THCON_SEC1_REG3_Base_address,
    },
];

/// The Config words, ThreadConfig words and thread-0 program of an unpack:
/// one UNPACR per face, the last one handing the bank to the math thread
/// (`SetDatValid`) when the target is SrcA or SrcB.
///
/// The same program serves both architectures, every field placed by
/// `CfgField::on(arch)` (Wormhole B0 has no `Unp_LF8_4b_exp`, so that word is
/// not written there). The words are those tt-llk's `configure_unpack_AB`
/// writes on both (`Dest_cntx0_address` 4 * 16, per-context `Tile_x_dim`,
/// face-sized ch1 `Zstride`, throttle mode 2, `add_dest_addr_cntr`). One
/// Wormhole B0 difference is not followed: tt-llk's Wormhole
/// `_llk_unpack_A_mop_config_` sets `SetDatValid` on every face's UNPACR into
/// SrcA (one face per bank, for a math thread that frees each bank); with no
/// math thread a third face would wait for ever, so every face goes to one
/// bank here, with both channels' Z stepped as in tt-llk's unpack-to-`Dst`
/// form (`unpack_srca_to_dest`).
pub fn unpack(job: &UnpackJob) -> Programmed {
    use CfgField as C;
    let arch = job.arch;
    let mut w = Words::new(arch);
    let b = job.target == UnpackTarget::SrcB;
    let u = &UNPACKERS[usize::from(b)];
    let out_bytes = job.out.l1_bits().div_ceil(8);
    let x_dim = u32::from(job.face_rows) * 16;
    if job.unsigned {
        w.set(u.unsigned, 1);
    } else {
        w.touch(C::ALU_FORMAT_SPEC_REG0_SrcAUnsigned);
    }
    w.set(C::UNP0_ADD_DEST_ADDR_CNTR_add_dest_addr_cntr, 1);
    if let Some(e) = job.forced_exp {
        w.set(u.shared_exp, u32::from(e));
    }
    w.set(C::UNP0_ADDR_CTRL_ZW_REG_1_Zstride, 256 * out_bytes);
    w.set(C::UNP1_ADDR_CTRL_ZW_REG_1_Zstride, 256 * out_bytes);
    let tile_rows = u32::from(job.tile) * 64;
    let dest = if job.target == UnpackTarget::Dst {
        0x40 + tile_rows * 16
    } else {
        0x40
    };
    w.set(C::THCON_SEC0_REG5_Dest_cntx0_address, dest);
    w.set(C::THCON_SEC0_REG5_Dest_cntx1_address, 0x40);
    w.set(C::THCON_SEC0_REG5_Tile_x_dim_cntx0, x_dim);
    w.set(C::THCON_SEC0_REG5_Tile_x_dim_cntx1, x_dim);
    let descriptor = job.input.code() | 0x10 | if b { x_dim << 16 } else { 0 };
    w.set(u.descriptor, descriptor);
    // Second descriptor word: Y dimension 1 (bits 7:0), Z dimension = faces
    // (bits 23:16) (`UNPACR_Regular.md`, tile descriptor).
    if let Some(f) = u.descriptor.on(arch) {
        *w.word(f.addr32 + 1) = 1 | (u32::from(job.faces) << 16);
    }
    w.touch(u.lf8);
    if job.fp8_e4m3 {
        w.set(u.lf8, 1);
    }
    w.set(u.out, job.out.code());
    w.set(u.throttle, 2);
    if job.haloize {
        w.set(u.haloize, 1);
    }
    for dzc in u.disable_zero_compress {
        w.set(dzc, 1);
    }
    if let (Some(f), UnpackTarget::Dst) = (u.if_sel, job.target) {
        w.set(f, 1);
    }
    if job.forced_exp.is_some() {
        w.set(u.force_shared_exp, 1);
    }
    w.set(u.base, job.l1_addr / 16 - 1);

    use ThreadCfgField as T;
    let thread_config = vec![
        thread_word(
            arch,
            0,
            &[(
                T::SRCA_SET_SetOvrdWithAddr,
                u32::from(job.target != UnpackTarget::Dst),
            )],
        ),
        thread_word(arch, 0, &[(T::UNPACK_MISC_CFG_CfgContextOffset_0, 0)]),
    ];
    let which = if b { 2 } else { 1 };
    let mut steps = Vec::with_capacity(3 + usize::from(job.faces));
    steps.extend([
        Step::Instruction(word(
            arch,
            Instruction::Setadcxy(isa::Setadcxy {
                bit_mask: 0xb,
                cnt_set_mask: 3,
                ..Default::default()
            }),
        )),
        Step::Instruction(word(
            arch,
            Instruction::Setadczw(isa::Setadczw {
                bit_mask: 0xf,
                cnt_set_mask: 3,
                ..Default::default()
            }),
        )),
        Step::Instruction(word(
            arch,
            Instruction::Setadcxx(isa::Setadcxx {
                x_start: 0,
                x_end2: x_dim - 1,
                cnt_set_mask: which,
            }),
        )),
    ]);
    for face in 0..job.faces {
        let valid = face + 1 == job.faces && job.target != UnpackTarget::Dst;
        steps.push(Step::Instruction(word(
            arch,
            Instruction::Unpacr(isa::Unpacr {
                last: 1,
                set_dat_valid: u32::from(valid),
                ovrd_thread_id: 1,
                addr_mode: 0x11,
                unpack_block_selection: u32::from(b),
                ..Default::default()
            }),
        )));
    }
    Programmed {
        config: w.writes(),
        thread_config,
        mop_config: Vec::new(),
        program: ThreadProgram {
            thread: 0,
            run: steps,
        },
    }
}

/// A vector that runs `p` on a machine whose L1 holds zero everywhere but
/// `l1`, and whose `Dst` holds `dst`. `expect` is left to the caller.
pub fn vector(
    arch: Arch,
    name: &str,
    p: Programmed,
    l1: Vec<vector::L1Range>,
    dst: Option<vector::Dst>,
) -> Vector {
    Vector {
        name: name.to_string(),
        arch,
        provenance: Provenance {
            source: Source::Derived,
            detail: String::new(),
        },
        tags: Vec::new(),
        setup: Setup {
            l1_fill: 0,
            l1,
            config: p.config,
            thread_config: p.thread_config,
            gprs: Vec::new(),
            mop_config: p.mop_config,
            dst,
            srca: Vec::new(),
            srcb: Vec::new(),
        },
        program: vec![p.program],
        expect: vector::Expect::default(),
    }
}
