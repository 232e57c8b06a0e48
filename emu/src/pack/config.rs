//! The configuration one `PACR` consumes, read once when the instruction
//! starts into plain structs, so the per-datum stages never look at `Config`.
//!
//! Field names are `cfg_defines.h`'s. `Config[StateID]` is the state the
//! issuing thread's `CFG_STATE_ID_StateID` selects; `Packers[i]` is
//! `THCON_SEC0_REG1` (packer 0), `THCON_SEC0_REG8` (1), `THCON_SEC1_REG1` (2),
//! `THCON_SEC1_REG8` (3) (BackendConfiguration.md). PACR.md: some fields are
//! sampled when the instruction starts and some later; this model samples all
//! of them at the start.

use crate::adc::{CounterOp, YzSteps};
use crate::arch::Arch;
use crate::fault::{Fault, Result};
use crate::format::data_format::DataFormat;
use crate::regs::{
    CfgField as C, Config, RegField, Row, Stamp, ThreadCfgField as T, ThreadConfig, THREADS,
};
use crate::state::dst::DstAddressing;
use std::mem;

/// A per-packer Config field for packers 0..=3: `[THCON_SEC0_REG1_x,
/// THCON_SEC0_REG8_x, THCON_SEC1_REG1_x, THCON_SEC1_REG8_x]` and the like.
macro_rules! per_packer {
    (L1_Dest_addr) => {
        [
            C::THCON_SEC0_REG1_L1_Dest_addr,
            C::THCON_SEC0_REG8_L1_Dest_addr,
            C::THCON_SEC1_REG1_L1_Dest_addr,
            C::THCON_SEC1_REG8_L1_Dest_addr,
        ]
    };
    (In_data_format) => {
        [
            C::THCON_SEC0_REG1_In_data_format,
            C::THCON_SEC0_REG8_In_data_format,
            C::THCON_SEC1_REG1_In_data_format,
            C::THCON_SEC1_REG8_In_data_format,
        ]
    };
    (Out_data_format) => {
        [
            C::THCON_SEC0_REG1_Out_data_format,
            C::THCON_SEC0_REG8_Out_data_format,
            C::THCON_SEC1_REG1_Out_data_format,
            C::THCON_SEC1_REG8_Out_data_format,
        ]
    };
    (Exp_section_size) => {
        [
            C::THCON_SEC0_REG1_Exp_section_size,
            C::THCON_SEC0_REG8_Exp_section_size,
            C::THCON_SEC1_REG1_Exp_section_size,
            C::THCON_SEC1_REG8_Exp_section_size,
        ]
    };
    (Row_start_section_size) => {
        [
            C::THCON_SEC0_REG1_Row_start_section_size,
            C::THCON_SEC0_REG8_Row_start_section_size,
            C::THCON_SEC1_REG1_Row_start_section_size,
            C::THCON_SEC1_REG8_Row_start_section_size,
        ]
    };
    (Sub_l1_tile_header_size) => {
        [
            C::THCON_SEC0_REG1_Sub_l1_tile_header_size,
            C::THCON_SEC0_REG8_Sub_l1_tile_header_size,
            C::THCON_SEC1_REG1_Sub_l1_tile_header_size,
            C::THCON_SEC1_REG8_Sub_l1_tile_header_size,
        ]
    };
    (Add_l1_dest_addr_offset) => {
        [
            C::THCON_SEC0_REG1_Add_l1_dest_addr_offset,
            C::THCON_SEC0_REG8_Add_l1_dest_addr_offset,
            C::THCON_SEC1_REG1_Add_l1_dest_addr_offset,
            C::THCON_SEC1_REG8_Add_l1_dest_addr_offset,
        ]
    };
    (Disable_zero_compress) => {
        [
            C::THCON_SEC0_REG1_Disable_zero_compress,
            C::THCON_SEC0_REG8_Disable_zero_compress,
            C::THCON_SEC1_REG1_Disable_zero_compress,
            C::THCON_SEC1_REG8_Disable_zero_compress,
        ]
    };
    (Addr_cnt_context) => {
        [
            C::THCON_SEC0_REG1_Addr_cnt_context,
            C::THCON_SEC0_REG8_Addr_cnt_context,
            C::THCON_SEC1_REG1_Addr_cnt_context,
            C::THCON_SEC1_REG8_Addr_cnt_context,
        ]
    };
    (Source_interface_selection) => {
        [
            C::THCON_SEC0_REG1_Source_interface_selection,
            C::THCON_SEC0_REG8_Source_interface_selection,
            C::THCON_SEC1_REG1_Source_interface_selection,
            C::THCON_SEC1_REG8_Source_interface_selection,
        ]
    };
    (L1_source_addr) => {
        [
            C::THCON_SEC0_REG1_L1_source_addr,
            C::THCON_SEC0_REG8_L1_source_addr,
            C::THCON_SEC1_REG1_L1_source_addr,
            C::THCON_SEC1_REG8_L1_source_addr,
        ]
    };
    (Pack_L1_Acc) => {
        [
            C::THCON_SEC0_REG1_Pack_L1_Acc,
            C::THCON_SEC0_REG8_Pack_L1_Acc,
            C::THCON_SEC1_REG1_Pack_L1_Acc,
            C::THCON_SEC1_REG8_Pack_L1_Acc,
        ]
    };
    (Exp_threshold_en) => {
        [
            C::THCON_SEC0_REG1_Exp_threshold_en,
            C::THCON_SEC0_REG8_Exp_threshold_en,
            C::THCON_SEC1_REG1_Exp_threshold_en,
            C::THCON_SEC1_REG8_Exp_threshold_en,
        ]
    };
    (Exp_threshold) => {
        [
            C::THCON_SEC0_REG1_Exp_threshold,
            C::THCON_SEC0_REG8_Exp_threshold,
            C::THCON_SEC1_REG1_Exp_threshold,
            C::THCON_SEC1_REG8_Exp_threshold,
        ]
    };
    (Downsample_mask) => {
        [
            C::THCON_SEC0_REG1_Downsample_mask,
            C::THCON_SEC0_REG8_Downsample_mask,
            C::THCON_SEC1_REG1_Downsample_mask,
            C::THCON_SEC1_REG8_Downsample_mask,
        ]
    };
    (Downsample_rate) => {
        [
            C::THCON_SEC0_REG1_Downsample_rate,
            C::THCON_SEC0_REG8_Downsample_rate,
            C::THCON_SEC1_REG1_Downsample_rate,
            C::THCON_SEC1_REG8_Downsample_rate,
        ]
    };
    (Dis_shared_exp_assembler) => {
        [
            C::THCON_SEC0_REG1_Dis_shared_exp_assembler,
            C::THCON_SEC0_REG8_Dis_shared_exp_assembler,
            C::THCON_SEC1_REG1_Dis_shared_exp_assembler,
            C::THCON_SEC1_REG8_Dis_shared_exp_assembler,
        ]
    };
    (Add_tile_header_size) => {
        [
            C::THCON_SEC0_REG1_Add_tile_header_size,
            C::THCON_SEC0_REG8_Add_tile_header_size,
            C::THCON_SEC1_REG1_Add_tile_header_size,
            C::THCON_SEC1_REG8_Add_tile_header_size,
        ]
    };
    (Enable_out_fifo) => {
        [
            C::THCON_SEC0_REG1_Enable_out_fifo,
            C::THCON_SEC0_REG8_Enable_out_fifo,
            C::THCON_SEC1_REG1_Enable_out_fifo,
            C::THCON_SEC1_REG8_Enable_out_fifo,
        ]
    };
    (Read_mode) => {
        [
            C::THCON_SEC0_REG1_Read_mode,
            C::THCON_SEC0_REG8_Read_mode,
            C::THCON_SEC1_REG1_Read_mode,
            C::THCON_SEC1_REG8_Read_mode,
        ]
    };
    (Force_pack_per_max_xy_plane) => {
        [
            C::THCON_SEC0_REG1_Force_pack_per_max_xy_plane,
            C::THCON_SEC0_REG8_Force_pack_per_max_xy_plane,
            C::THCON_SEC1_REG1_Force_pack_per_max_xy_plane,
            C::THCON_SEC1_REG8_Force_pack_per_max_xy_plane,
        ]
    };
    (Auto_set_last_pacr_intf_sel) => {
        [
            C::THCON_SEC0_REG1_Auto_set_last_pacr_intf_sel,
            C::THCON_SEC0_REG8_Auto_set_last_pacr_intf_sel,
            C::THCON_SEC1_REG1_Auto_set_last_pacr_intf_sel,
            C::THCON_SEC1_REG8_Auto_set_last_pacr_intf_sel,
        ]
    };
    (pack_dis_y_pos_start_offset) => {
        [
            C::THCON_SEC0_REG1_pack_dis_y_pos_start_offset,
            C::THCON_SEC0_REG8_pack_dis_y_pos_start_offset,
            C::THCON_SEC1_REG1_pack_dis_y_pos_start_offset,
            C::THCON_SEC1_REG8_pack_dis_y_pos_start_offset,
        ]
    };
    (reads_per_xy_plane) => {
        [
            C::PACK_COUNTERS_SEC0_pack_reads_per_xy_plane,
            C::PACK_COUNTERS_SEC1_pack_reads_per_xy_plane,
            C::PACK_COUNTERS_SEC2_pack_reads_per_xy_plane,
            C::PACK_COUNTERS_SEC3_pack_reads_per_xy_plane,
        ]
    };
    (yz_transposed) => {
        [
            C::PACK_COUNTERS_SEC0_pack_yz_transposed,
            C::PACK_COUNTERS_SEC1_pack_yz_transposed,
            C::PACK_COUNTERS_SEC2_pack_yz_transposed,
            C::PACK_COUNTERS_SEC3_pack_yz_transposed,
        ]
    };
    (dest_offset) => {
        [
            C::DEST_TARGET_REG_CFG_PACK_SEC0_Offset,
            C::DEST_TARGET_REG_CFG_PACK_SEC1_Offset,
            C::DEST_TARGET_REG_CFG_PACK_SEC2_Offset,
            C::DEST_TARGET_REG_CFG_PACK_SEC3_Offset,
        ]
    };
    (dest_zoffset) => {
        [
            C::DEST_TARGET_REG_CFG_PACK_SEC0_ZOffset,
            C::DEST_TARGET_REG_CFG_PACK_SEC1_ZOffset,
            C::DEST_TARGET_REG_CFG_PACK_SEC2_ZOffset,
            C::DEST_TARGET_REG_CFG_PACK_SEC3_ZOffset,
        ]
    };
    (limit_address) => {
        // OutputAddressGenerator.md: `Pack_limit_address` and `Pack_fifo_size`
        // live in THCON_SEC[01]_REG9 "with non-standard naming": packer i's
        // are in SEC(i / 2), `Pack_0_2_*` for the REG1 packers (0 and 2) and
        // `Pack_1_3_*` for the REG8 packers (1 and 3).
        [
            C::THCON_SEC0_REG9_Pack_0_2_limit_address,
            C::THCON_SEC0_REG9_Pack_1_3_limit_address,
            C::THCON_SEC1_REG9_Pack_0_2_limit_address,
            C::THCON_SEC1_REG9_Pack_1_3_limit_address,
        ]
    };
    (fifo_size) => {
        [
            C::THCON_SEC0_REG9_Pack_0_2_fifo_size,
            C::THCON_SEC0_REG9_Pack_1_3_fifo_size,
            C::THCON_SEC1_REG9_Pack_0_2_fifo_size,
            C::THCON_SEC1_REG9_Pack_1_3_fifo_size,
        ]
    };
}

/// One `ADDR_MOD_PACK_SEC[AddrMod]` entry of the issuing thread's
/// ThreadConfig (InputAddressGenerator.md and OutputAddressGenerator.md,
/// after the address computations).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AddrMod {
    pub ysrc_incr: u32,
    pub ysrc_cr: bool,
    pub ysrc_clear: bool,
    pub ydst_incr: u32,
    pub ydst_cr: bool,
    pub ydst_clear: bool,
    pub zsrc_incr: u32,
    pub zsrc_clear: bool,
    pub zdst_incr: u32,
    pub zdst_clear: bool,
}

impl AddrMod {
    /// Read entry `index` (0..=3) of `thread`'s `ADDR_MOD_PACK_SEC`.
    fn read(tc: &mut ThreadFields<'_>, index: usize) -> AddrMod {
        const F: [[T; 10]; 4] = [
            [
                T::ADDR_MOD_PACK_SEC0_YsrcIncr,
                T::ADDR_MOD_PACK_SEC0_YsrcCR,
                T::ADDR_MOD_PACK_SEC0_YsrcClear,
                T::ADDR_MOD_PACK_SEC0_YdstIncr,
                T::ADDR_MOD_PACK_SEC0_YdstCR,
                T::ADDR_MOD_PACK_SEC0_YdstClear,
                T::ADDR_MOD_PACK_SEC0_ZsrcIncr,
                T::ADDR_MOD_PACK_SEC0_ZsrcClear,
                T::ADDR_MOD_PACK_SEC0_ZdstIncr,
                T::ADDR_MOD_PACK_SEC0_ZdstClear,
            ],
            [
                T::ADDR_MOD_PACK_SEC1_YsrcIncr,
                T::ADDR_MOD_PACK_SEC1_YsrcCR,
                T::ADDR_MOD_PACK_SEC1_YsrcClear,
                T::ADDR_MOD_PACK_SEC1_YdstIncr,
                T::ADDR_MOD_PACK_SEC1_YdstCR,
                T::ADDR_MOD_PACK_SEC1_YdstClear,
                T::ADDR_MOD_PACK_SEC1_ZsrcIncr,
                T::ADDR_MOD_PACK_SEC1_ZsrcClear,
                T::ADDR_MOD_PACK_SEC1_ZdstIncr,
                T::ADDR_MOD_PACK_SEC1_ZdstClear,
            ],
            [
                T::ADDR_MOD_PACK_SEC2_YsrcIncr,
                T::ADDR_MOD_PACK_SEC2_YsrcCR,
                T::ADDR_MOD_PACK_SEC2_YsrcClear,
                T::ADDR_MOD_PACK_SEC2_YdstIncr,
                T::ADDR_MOD_PACK_SEC2_YdstCR,
                T::ADDR_MOD_PACK_SEC2_YdstClear,
                T::ADDR_MOD_PACK_SEC2_ZsrcIncr,
                T::ADDR_MOD_PACK_SEC2_ZsrcClear,
                T::ADDR_MOD_PACK_SEC2_ZdstIncr,
                T::ADDR_MOD_PACK_SEC2_ZdstClear,
            ],
            [
                T::ADDR_MOD_PACK_SEC3_YsrcIncr,
                T::ADDR_MOD_PACK_SEC3_YsrcCR,
                T::ADDR_MOD_PACK_SEC3_YsrcClear,
                T::ADDR_MOD_PACK_SEC3_YdstIncr,
                T::ADDR_MOD_PACK_SEC3_YdstCR,
                T::ADDR_MOD_PACK_SEC3_YdstClear,
                T::ADDR_MOD_PACK_SEC3_ZsrcIncr,
                T::ADDR_MOD_PACK_SEC3_ZsrcClear,
                T::ADDR_MOD_PACK_SEC3_ZdstIncr,
                T::ADDR_MOD_PACK_SEC3_ZdstClear,
            ],
        ];
        let f = &F[index & 3];
        let mut g = |i: usize| tc.get(f[i]);
        AddrMod {
            ysrc_incr: g(0),
            ysrc_cr: g(1) != 0,
            ysrc_clear: g(2) != 0,
            ydst_incr: g(3),
            ydst_cr: g(4) != 0,
            ydst_clear: g(5) != 0,
            zsrc_incr: g(6),
            zsrc_clear: g(7) != 0,
            zdst_incr: g(8),
            zdst_clear: g(9) != 0,
        }
    }

    /// The counter steps this entry makes (InputAddressGenerator.md and
    /// OutputAddressGenerator.md, functional models): `Y` takes `Clear` if
    /// `Ysrc/YdstClear`, else `CarriageReturn(incr)` if `Ysrc/YdstCR`, else
    /// `Increment(incr)`; `Z` takes `Clear` if `Zsrc/ZdstClear`, else
    /// `Increment(incr)`.
    pub fn steps(&self) -> YzSteps {
        let y = |clear: bool, cr: bool, incr: u32| {
            if clear {
                CounterOp::Clear
            } else if cr {
                CounterOp::CarriageReturn(incr)
            } else {
                CounterOp::Increment(incr)
            }
        };
        let z = |clear: bool, incr: u32| {
            if clear {
                CounterOp::Clear
            } else {
                CounterOp::Increment(incr)
            }
        };
        YzSteps([
            [
                y(self.ysrc_clear, self.ysrc_cr, self.ysrc_incr),
                z(self.zsrc_clear, self.zsrc_incr),
            ],
            [
                y(self.ydst_clear, self.ydst_cr, self.ydst_incr),
                z(self.zdst_clear, self.zdst_incr),
            ],
        ])
    }
}

/// The edge-masking configuration (EdgeMasking.md, functional model).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EdgeConfig {
    /// `PCK_EDGE_MODE_mode`: masked datums become −∞ rather than 0.
    pub negative_infinity: bool,
    /// `PCK_EDGE_TILE_FACE_SET_SELECT_enable`.
    pub face_set_enable: bool,
    /// `PCK_EDGE_TILE_FACE_SET_SELECT_select`: 2 bits per packer.
    pub face_set_select: u32,
    /// `PCK_EDGE_TILE_ROW_SET_SELECT_select`: 2 bits per packer.
    pub row_set_select: u32,
    /// `TILE_ROW_SET_MAPPING[b]`: 16 entries of 2 bits, entry k in bits
    /// `2k+1:2k`.
    pub row_set_mapping: [u32; 4],
    /// `TILE_FACE_SET_MAPPING[a]`, laid out likewise.
    pub face_set_mapping: [u32; 4],
    /// `PCK_EDGE_OFFSET_SEC[c].mask`.
    pub masks: [u16; 4],
}

impl EdgeConfig {
    /// Whether every datum passes whatever the tile position: all four
    /// masks are `0xFFFF`.
    pub fn passes_all(&self) -> bool {
        self.masks.iter().all(|m| *m == 0xFFFF)
    }
}

/// Strides and base of one ADC channel's address computation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Strides {
    pub base: u32,
    pub x: u32,
    pub y: u32,
    pub z: u32,
    pub w: u32,
}

/// Configuration shared by every packer an instruction drives.
#[derive(Clone, Copy, Debug)]
pub struct Shared {
    pub arch: Arch,
    /// `CFG_STATE_ID_StateID` of the issuing thread.
    pub state: usize,
    pub dst_addressing: DstAddressing,
    /// `IntermediateFormat`: `ALU_FORMAT_SPEC_REG_Dstacc_val` when
    /// `ALU_FORMAT_SPEC_REG_Dstacc_override`, else `ALU_FORMAT_SPEC_REG2_Dstacc`
    /// (FormatConversion.md, "Configuring the conversions"); the raw 4 bits.
    pub intermediate_code: u8,
    pub read_32b_data: bool,
    pub read_raw: bool,
    pub read_unsigned: bool,
    pub round_10b_mant: bool,
    pub int_descale_enable: bool,
    pub int_descale_mode: bool,
    pub int_descale_value0: u32,
    pub stochastic_rounding: bool,
    /// `STACC_RELU_ApplyRelu` (4 bits; ReLU.md uses the low two).
    pub apply_relu: u32,
    pub relu_threshold: u16,
    pub edge: EdgeConfig,
    /// Channel 0 (input) strides, `PCK0_ADDR_*_REG_0` and `PCK0_ADDR_BASE_REG_0_Base`.
    pub ch0: Strides,
    /// Channel 1 (output) strides, `PCK0_ADDR_*_REG_1` and `PCK0_ADDR_BASE_REG_1_Base`.
    pub ch1: Strides,
    /// The issuing thread's `ADDR_MOD_PACK_SEC[0..=3]`; `PACR`'s `AddrMod`
    /// picks one.
    pub addr_mods: [AddrMod; 4],
    /// `THCON_SEC0_REG1_All_pack_disable_zero_compress_ovrd` and
    /// `..._All_pack_disable_zero_compress` (OutputAddressGenerator.md,
    /// `PerformingCompression`).
    pub all_pack_disable_zero_compress_ovrd: bool,
    pub all_pack_disable_zero_compress: u32,
    /// `ENABLE_ACC_STATS_Enable` of any thread (the exponent histogram is
    /// enabled when any thread enables it).
    pub histogram_enable: bool,
}

/// The configuration of one packer (`Config[StateID].Packers[i]` and its
/// per-packer neighbours).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PackerConfig {
    pub in_format_code: u8,
    pub out_format_code: u8,
    pub exp_section_size: u32,
    pub row_start_section_size: u32,
    pub l1_dest_addr: u32,
    pub sub_l1_tile_header_size: bool,
    pub add_l1_dest_addr_offset: bool,
    pub disable_zero_compress: bool,
    /// `None` where the field does not exist (Blackhole).
    pub addr_cnt_context: Option<u32>,
    pub source_interface_selection: bool,
    pub l1_source_addr: u32,
    pub pack_l1_acc: bool,
    pub exp_threshold_en: bool,
    pub exp_threshold: u32,
    pub downsample_mask: u32,
    pub downsample_rate: u32,
    pub dis_shared_exp_assembler: bool,
    /// `Pac_LF8_4b_exp` (Blackhole): FP8 output is e4m3.
    pub lf8_4b_exp: bool,
    pub reads_per_xy_plane: u32,
    pub yz_transposed: bool,
    /// `DEST_TARGET_REG_CFG_PACK_SEC[i].Offset` (`Config.`, not per state).
    pub dest_offset: u32,
    pub dest_zoffset: u32,
    pub limit_address: u32,
    pub fifo_size: u32,
    /// Fields with no documented effect; a non-zero value stops the run.
    pub add_tile_header_size: bool,
    pub enable_out_fifo: bool,
    pub read_mode: bool,
    pub force_pack_per_max_xy_plane: bool,
    pub auto_set_last_pacr_intf_sel: bool,
    pub pack_dis_y_pos_start_offset: bool,
    pub pack_start_intf_pos: u32,
}

impl PackerConfig {
    pub fn in_format(&self) -> Result<DataFormat> {
        DataFormat::decode(self.in_format_code as u32)
    }

    pub fn out_format(&self) -> Result<DataFormat> {
        DataFormat::decode(self.out_format_code as u32)
    }
}

/// A set of register word addresses: every address a field can have
/// (`RegField::addr32`, a `u8`) has its bit.
#[derive(Clone, Copy, Default)]
struct WordSet([u64; 4]);

impl WordSet {
    #[inline]
    fn insert(&mut self, addr: u8) {
        self.0[usize::from(addr / 64)] |= 1 << (addr % 64);
    }

    /// The addresses in the set, in increasing order.
    fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        crate::state::written::set_bits(&self.0).map(|a| a as u8)
    }
}

/// Reads `Config[state]` fields, noting which words it read.
struct Reader<'a> {
    arch: Arch,
    /// `Config[state]`'s words (all zero where there is no such state, as
    /// [`Config::get`] has it).
    words: &'a Row,
    state: usize,
    seen: WordSet,
}

impl<'a> Reader<'a> {
    fn new(cfg: &'a Config, state: usize) -> Reader<'a> {
        Reader {
            arch: cfg.arch(),
            words: cfg.state_row(state),
            state,
            seen: WordSet::default(),
        }
    }

    /// Note the word holding `f`; `None` where `f` does not exist on this
    /// architecture.
    fn note(&mut self, f: C) -> Option<RegField> {
        let r = f.on(self.arch)?;
        self.seen.insert(r.addr32);
        Some(r)
    }

    /// Not inlined, as [`Config::get`] is not.
    #[inline(never)]
    fn get(&mut self, f: C) -> u32 {
        self.note(f).map_or(0, |r| r.read(self.words))
    }

    fn bit(&mut self, f: C) -> bool {
        self.get(f) != 0
    }

    /// The raw word holding `f`, for 2-bit-per-entry tables.
    #[inline(never)]
    fn word_of(&mut self, f: C) -> u32 {
        self.note(f).map_or(0, |r| r.word_in(self.words))
    }
}

/// Reads ThreadConfig fields, noting which words it read.
struct ThreadReader<'a> {
    tc: &'a ThreadConfig,
    seen: [WordSet; crate::regs::THREADS],
}

impl ThreadReader<'_> {
    /// `thread`'s fields, found once for the reads of one thread.
    fn thread(&mut self, thread: usize) -> ThreadFields<'_> {
        ThreadFields {
            arch: self.tc.arch(),
            row: self.tc.thread_row(thread),
            seen: self.seen.get_mut(thread),
        }
    }

    /// A field of `thread`'s words, as [`ThreadFields::get`] reads it.
    fn get(&mut self, thread: usize, f: T) -> u32 {
        self.thread(thread).get(f)
    }
}

/// One thread's ThreadConfig words (zero for a thread that does not
/// exist), and where to note the words read.
struct ThreadFields<'a> {
    arch: Arch,
    row: &'a Row,
    seen: Option<&'a mut WordSet>,
}

impl ThreadFields<'_> {
    /// A field, as [`ThreadConfig::get`] reads it, its word noted. Not
    /// inlined, as [`Config::get`] is not.
    #[inline(never)]
    fn get(&mut self, f: T) -> u32 {
        let (Some(r), Some(seen)) = (f.on(self.arch), self.seen.as_deref_mut()) else {
            return 0;
        };
        seen.insert(r.addr32);
        r.read(self.row)
    }
}

impl Shared {
    /// Read the shared configuration for an instruction of `thread` using
    /// `ADDR_MOD_PACK_SEC[addr_mode]`.
    fn read(arch: Arch, r: &mut Reader<'_>, tr: &mut ThreadReader<'_>, thread: usize) -> Shared {
        let state = r.state;
        let intermediate_code = if r.bit(C::ALU_FORMAT_SPEC_REG_Dstacc_override) {
            r.get(C::ALU_FORMAT_SPEC_REG_Dstacc_val)
        } else {
            r.get(C::ALU_FORMAT_SPEC_REG2_Dstacc)
        } as u8;
        let edge = EdgeConfig {
            negative_infinity: r.bit(C::PCK_EDGE_MODE_mode),
            face_set_enable: r.bit(C::PCK_EDGE_TILE_FACE_SET_SELECT_enable),
            face_set_select: r.get(C::PCK_EDGE_TILE_FACE_SET_SELECT_select),
            row_set_select: r.get(C::PCK_EDGE_TILE_ROW_SET_SELECT_select),
            row_set_mapping: [
                r.word_of(C::TILE_ROW_SET_MAPPING_0_row_set_mapping_0),
                r.word_of(C::TILE_ROW_SET_MAPPING_1_row_set_mapping_0),
                r.word_of(C::TILE_ROW_SET_MAPPING_2_row_set_mapping_0),
                r.word_of(C::TILE_ROW_SET_MAPPING_3_row_set_mapping_0),
            ],
            face_set_mapping: [
                r.word_of(C::TILE_FACE_SET_MAPPING_0_face_set_mapping_0),
                r.word_of(C::TILE_FACE_SET_MAPPING_1_face_set_mapping_0),
                r.word_of(C::TILE_FACE_SET_MAPPING_2_face_set_mapping_0),
                r.word_of(C::TILE_FACE_SET_MAPPING_3_face_set_mapping_0),
            ],
            masks: [
                r.get(C::PCK_EDGE_OFFSET_SEC0_mask) as u16,
                r.get(C::PCK_EDGE_OFFSET_SEC1_mask) as u16,
                r.get(C::PCK_EDGE_OFFSET_SEC2_mask) as u16,
                r.get(C::PCK_EDGE_OFFSET_SEC3_mask) as u16,
            ],
        };
        Shared {
            arch,
            state,
            dst_addressing: DstAddressing {
                remap_addrs: r.bit(C::DEST_ACCESS_CFG_remap_addrs),
                swizzle_32b: r.bit(C::DEST_ACCESS_CFG_swizzle_32b),
            },
            all_pack_disable_zero_compress_ovrd: r
                .bit(C::THCON_SEC0_REG1_All_pack_disable_zero_compress_ovrd),
            all_pack_disable_zero_compress: r
                .get(C::THCON_SEC0_REG1_All_pack_disable_zero_compress),
            intermediate_code,
            read_32b_data: r.bit(C::PCK_DEST_RD_CTRL_Read_32b_data),
            read_raw: r.bit(C::PCK_DEST_RD_CTRL_Read_int8),
            read_unsigned: r.bit(C::PCK_DEST_RD_CTRL_Read_unsigned),
            round_10b_mant: r.bit(C::PCK_DEST_RD_CTRL_Round_10b_mant),
            int_descale_enable: r.bit(C::INT_DESCALE_Enable),
            int_descale_mode: r.bit(C::INT_DESCALE_Mode),
            int_descale_value0: r.get(C::INT_DESCALE_VALUES_SEC0_Value),
            stochastic_rounding: r.bit(C::ALU_ROUNDING_MODE_Packer_srnd_en),
            apply_relu: r.get(C::STACC_RELU_ApplyRelu),
            relu_threshold: r.get(C::STACC_RELU_ReluThreshold) as u16,
            edge,
            ch0: Strides {
                base: r.get(C::PCK0_ADDR_BASE_REG_0_Base),
                x: r.get(C::PCK0_ADDR_CTRL_XY_REG_0_Xstride),
                y: r.get(C::PCK0_ADDR_CTRL_XY_REG_0_Ystride),
                z: r.get(C::PCK0_ADDR_CTRL_ZW_REG_0_Zstride),
                w: r.get(C::PCK0_ADDR_CTRL_ZW_REG_0_Wstride),
            },
            ch1: Strides {
                base: r.get(C::PCK0_ADDR_BASE_REG_1_Base),
                x: 0,
                y: r.get(C::PCK0_ADDR_CTRL_XY_REG_1_Ystride),
                z: r.get(C::PCK0_ADDR_CTRL_ZW_REG_1_Zstride),
                w: r.get(C::PCK0_ADDR_CTRL_ZW_REG_1_Wstride),
            },
            addr_mods: {
                let mut own = tr.thread(thread);
                std::array::from_fn(|i| AddrMod::read(&mut own, i))
            },
            histogram_enable: (0..THREADS)
                .map(|t| tr.get(t, T::ENABLE_ACC_STATS_Enable))
                .any(|v| v != 0),
        }
    }

    /// The INT32 → INT8 shift amount (FormatConversion.md, "Configuring the
    /// conversions"). The per-`z` table of `INT_DESCALE_Mode` is indexed by
    /// a value the page leaves unnamed ("for some value z"), so that mode is
    /// not modelled.
    pub fn shift_amount(&self) -> Result<u8> {
        if !self.int_descale_enable {
            return Ok(0);
        }
        if self.int_descale_mode {
            return Err(Fault::unimplemented(
                "INT_DESCALE_Mode = 1 selects a shift from INT_DESCALE_VALUES_SEC[(z & 63) >> 2] \
                 for a z that Packers/FormatConversion.md does not name",
            ));
        }
        Ok((self.int_descale_value0 & 0x1F) as u8)
    }
}

impl PackerConfig {
    /// Read packer `i`'s fields.
    fn read(r: &mut Reader<'_>, i: usize) -> PackerConfig {
        let i = i & 3;
        macro_rules! get {
            ($f:ident) => {
                r.get(per_packer!($f)[i])
            };
        }
        let arch = r.arch;
        PackerConfig {
            in_format_code: get!(In_data_format) as u8,
            out_format_code: get!(Out_data_format) as u8,
            exp_section_size: get!(Exp_section_size),
            row_start_section_size: get!(Row_start_section_size),
            l1_dest_addr: get!(L1_Dest_addr),
            sub_l1_tile_header_size: get!(Sub_l1_tile_header_size) != 0,
            add_l1_dest_addr_offset: get!(Add_l1_dest_addr_offset) != 0,
            disable_zero_compress: get!(Disable_zero_compress) != 0,
            addr_cnt_context: per_packer!(Addr_cnt_context)[i]
                .on(arch)
                .map(|_| get!(Addr_cnt_context)),
            source_interface_selection: get!(Source_interface_selection) != 0,
            l1_source_addr: get!(L1_source_addr),
            pack_l1_acc: get!(Pack_L1_Acc) != 0,
            exp_threshold_en: get!(Exp_threshold_en) != 0,
            exp_threshold: get!(Exp_threshold),
            downsample_mask: get!(Downsample_mask),
            downsample_rate: get!(Downsample_rate),
            dis_shared_exp_assembler: get!(Dis_shared_exp_assembler) != 0,
            // Pac_LF8_4b_exp exists for the REG1 packers only.
            lf8_4b_exp: match i {
                0 => r.bit(C::THCON_SEC0_REG1_Pac_LF8_4b_exp),
                2 => r.bit(C::THCON_SEC1_REG1_Pac_LF8_4b_exp),
                _ => false,
            },
            reads_per_xy_plane: get!(reads_per_xy_plane),
            yz_transposed: get!(yz_transposed) != 0,
            dest_offset: get!(dest_offset),
            dest_zoffset: get!(dest_zoffset),
            limit_address: get!(limit_address),
            fifo_size: get!(fifo_size),
            add_tile_header_size: get!(Add_tile_header_size) != 0,
            enable_out_fifo: get!(Enable_out_fifo) != 0,
            read_mode: get!(Read_mode) != 0,
            force_pack_per_max_xy_plane: get!(Force_pack_per_max_xy_plane) != 0,
            auto_set_last_pacr_intf_sel: get!(Auto_set_last_pacr_intf_sel) != 0,
            pack_dis_y_pos_start_offset: get!(pack_dis_y_pos_start_offset) != 0,
            pack_start_intf_pos: match i {
                0 => r.get(C::THCON_SEC0_REG1_pack_start_intf_pos),
                2 => r.get(C::THCON_SEC1_REG1_pack_start_intf_pos),
                _ => 0,
            },
        }
    }

    /// Refuse fields whose effect no source describes, so a run that sets
    /// them stops instead of producing invented bytes.
    pub fn check_documented(&self, packer: usize) -> Result<()> {
        let any_knob = self.add_tile_header_size
            | self.enable_out_fifo
            | self.read_mode
            | self.force_pack_per_max_xy_plane
            | self.auto_set_last_pacr_intf_sel
            | self.pack_dis_y_pos_start_offset
            | (self.pack_start_intf_pos != 0);
        if !any_knob && self.downsample_rate == 0 {
            return Ok(());
        }
        self.refuse_undocumented(packer)
    }

    /// The fault for the first field [`PackerConfig::check_documented`]
    /// refuses.
    #[cold]
    fn refuse_undocumented(&self, packer: usize) -> Result<()> {
        let knobs: [(bool, &str); 7] = [
            (self.add_tile_header_size, "Add_tile_header_size"),
            (self.enable_out_fifo, "Enable_out_fifo"),
            (self.read_mode, "Read_mode"),
            (
                self.force_pack_per_max_xy_plane,
                "Force_pack_per_max_xy_plane",
            ),
            (
                self.auto_set_last_pacr_intf_sel,
                "Auto_set_last_pacr_intf_sel",
            ),
            (
                self.pack_dis_y_pos_start_offset,
                "pack_dis_y_pos_start_offset",
            ),
            (self.pack_start_intf_pos != 0, "pack_start_intf_pos"),
        ];
        for (set, name) in knobs {
            if set {
                return Err(Fault::unsupported(format!(
                    "packer {packer} has {name} set; no functional model (PACR.md, Packers/*.md) \
                     says what it does to the output, so the run stops rather than guess"
                )));
            }
        }
        if self.downsample_rate != 0 {
            return Err(Fault::unimplemented(format!(
                "packer {packer} has Downsample_rate = {}; only Downsample_mask is modelled \
                 (the page that would define the rate, Packers/Downsampling.md, is not available)",
                self.downsample_rate
            )));
        }
        Ok(())
    }
}

/// One instruction's decoded configuration, with the raw words it was
/// decoded from. Consecutive `PACR`s usually see the same configuration, so
/// [`Decoded::refresh`] keeps it while nothing it was read from changed, and
/// decodes again otherwise.
#[derive(Clone, Debug)]
pub struct Decoded {
    pub shared: Shared,
    /// Packers 0..=3 (only packer 0 on Blackhole).
    pub packers: [PackerConfig; 4],
    /// Per packer, the stages chosen for this configuration when reading
    /// `Dst` (or nothing) and when reading L1, once an instruction chose
    /// them.
    pub(super) stages: [[Option<super::Stages>; 2]; 4],
    /// `PACR` words prepared under this configuration.
    pub(super) prepared: super::prepared::PreparedWords,
    /// The last run of express `PACR` words compiled under it.
    pub(super) run_plan: Option<Box<super::express::RunPlan>>,
    thread: usize,
    words: Vec<(u8, u32)>,
    thread_words: Vec<(u8, u8, u32)>,
    /// The stamps of the Config and ThreadConfig values the words were last
    /// seen to match in: while both values still show them, nothing was
    /// stored since and the decode stands.
    stamps: (Stamp, Stamp),
}

impl Decoded {
    /// The configuration an instruction of `thread` sees: `cache`'s, kept
    /// at once when the Config and ThreadConfig values show the stamps taken
    /// at the last check (the same values, nothing stored since) or when the
    /// words it was read from still hold, else decoded afresh into `cache`.
    #[inline]
    pub fn refresh<'c>(
        cache: &'c mut Option<Box<Decoded>>,
        cfg: &Config,
        tc: &ThreadConfig,
        thread: usize,
    ) -> &'c mut Decoded {
        let state = || crate::exec::config_unit::state_of(tc, thread);
        let kept = match cache.as_deref_mut() {
            Some(d) if d.thread == thread && d.stamped(cfg, tc) => true,
            Some(d) if d.matches(cfg, tc, state(), thread) => {
                d.stamps = (cfg.stamp(), tc.stamp());
                true
            }
            _ => false,
        };
        if let (false, Some(d)) = (kept, cache.as_deref_mut()) {
            // Decoded afresh into the memory the last decode had.
            let (words, thread_words) = (mem::take(&mut d.words), mem::take(&mut d.thread_words));
            let run_plan = d.run_plan.take();
            *d = Decoded::decode(cfg, tc, state(), thread, words, thread_words);
            // The plan's memory is kept; its words are not.
            d.run_plan = run_plan.map(|mut plan| {
                plan.clear();
                plan
            });
        }
        cache.get_or_insert_with(|| {
            Box::new(Decoded::decode(
                cfg,
                tc,
                state(),
                thread,
                Vec::new(),
                Vec::new(),
            ))
        })
    }

    /// Whether `cfg` and `tc` are the values last seen to match, with no
    /// store since.
    #[inline]
    fn stamped(&self, cfg: &Config, tc: &ThreadConfig) -> bool {
        cfg.has_stamp(&self.stamps.0) && tc.has_stamp(&self.stamps.1)
    }

    fn matches(&self, cfg: &Config, tc: &ThreadConfig, state: usize, thread: usize) -> bool {
        // A state that does not exist reads as zeros, as the decode read it.
        let words = cfg.state_row(state);
        self.shared.state == state
            && self.thread == thread
            && self.shared.arch == cfg.arch()
            && self.words.iter().all(|&(a, v)| words[usize::from(a)] == v)
            && self
                .thread_words
                .iter()
                .all(|&(t, a, v)| tc.thread_row(usize::from(t))[usize::from(a)] == v)
    }

    /// The configuration an instruction of `thread` sees under Config
    /// state `state`, the words it read listed in `words` and
    /// `thread_words` (emptied first, so that their memory serves again).
    fn decode(
        cfg: &Config,
        tc: &ThreadConfig,
        state: usize,
        thread: usize,
        mut words: Vec<(u8, u32)>,
        mut thread_words: Vec<(u8, u8, u32)>,
    ) -> Decoded {
        words.clear();
        thread_words.clear();
        let arch = cfg.arch();
        let mut r = Reader::new(cfg, state);
        let mut tr = ThreadReader {
            tc,
            seen: Default::default(),
        };
        let shared = Shared::read(arch, &mut r, &mut tr, thread);
        let mut packers = [PackerConfig::default(); 4];
        for (i, p) in packers.iter_mut().enumerate().take(arch.packer_count()) {
            *p = PackerConfig::read(&mut r, i);
        }
        words.extend(r.seen.iter().map(|a| (a, r.words[usize::from(a)])));
        thread_words.extend((0u8..).zip(&tr.seen).flat_map(|(t, seen)| {
            let row = tc.thread_row(usize::from(t));
            seen.iter().map(move |a| (t, a, row[usize::from(a)]))
        }));
        Decoded {
            shared,
            packers,
            stages: Default::default(),
            prepared: Default::default(),
            run_plan: None,
            thread,
            words,
            thread_words,
            stamps: (cfg.stamp(), tc.stamp()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WordSet;

    #[test]
    fn a_word_set_lists_its_addresses_in_increasing_order() {
        let mut s = WordSet::default();
        assert_eq!(s.iter().count(), 0);
        for a in [255, 64, 0, 63, 130, 64, 127, 128] {
            s.insert(a);
        }
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            [0, 63, 64, 127, 128, 130, 255]
        );
    }
}
