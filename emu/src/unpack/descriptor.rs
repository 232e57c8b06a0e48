//! The tile descriptor and the unpacker configuration an `UNPACR` reads,
//! decoded once per instruction (`UNPACR_Regular.md`, functional model and
//! "Configuration").

use super::context::Selection;
use super::fields::{BLOBS_Y_START, UNPACKERS};
use super::regular::UnpacrOp;
use crate::arch::Arch;
use crate::fault::{Fault, Result};
use crate::format::{DataFormat, Fp8Format};
use crate::regs::{Config, ThreadConfig};

/// `THCON_SEC[WhichUnpacker].REG0_TileDescriptor`: 128 bits over four Config
/// words (`UNPACR_Regular.md`, "Configuration", bit offsets from bit 0 of the
/// first word).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TileDescriptor {
    /// Bits 3:0, the raw `InDataFormat` code.
    pub in_data_format: u8,
    /// Bit 4.
    pub is_uncompressed: bool,
    /// Bit 5.
    pub no_bfp_exp_section: bool,
    /// Bits 10:8.
    pub blobs_per_xy_plane: u8,
    /// Bits 31:16.
    pub x_dim: u16,
    /// Bits 39:32.
    pub y_dim: u8,
    /// Bits 55:48, as stored (0 means 1 to the unpacker).
    pub z_dim: u8,
    /// Bits 71:64, as stored (0 means 1 to the unpacker).
    pub w_dim: u8,
    /// Bits 111:80: eight 4-bit `BlobsYStart` entries, entry 0 lowest.
    pub blobs_y_start: u32,
    /// Bits 127:120: the tile header is `(1 + DigestSize) * 16` bytes.
    pub digest_size: u8,
}

impl TileDescriptor {
    /// Decode the four descriptor words.
    pub fn decode(w: [u32; 4]) -> TileDescriptor {
        TileDescriptor {
            in_data_format: (w[0] & 0xF) as u8,
            is_uncompressed: w[0] & (1 << 4) != 0,
            no_bfp_exp_section: w[0] & (1 << 5) != 0,
            blobs_per_xy_plane: ((w[0] >> 8) & 7) as u8,
            x_dim: (w[0] >> 16) as u16,
            y_dim: w[1] as u8,
            z_dim: (w[1] >> 16) as u8,
            w_dim: w[2] as u8,
            blobs_y_start: (w[2] >> 16) | (w[3] << 16),
            digest_size: (w[3] >> 24) as u8,
        }
    }

    /// Read the descriptor of the unpacker whose first descriptor word is
    /// `first` from Config state `state`.
    fn read(cfg: &Config, state: usize, first: crate::regs::CfgField) -> TileDescriptor {
        let row = cfg.state_row(state);
        let words = match first.on(cfg.arch()) {
            Some(f) => {
                std::array::from_fn(|i| row.get(usize::from(f.addr32) + i).copied().unwrap_or(0))
            }
            None => [0; 4],
        };
        TileDescriptor::decode(words)
    }

    /// `ZDim`, with 0 meaning 1.
    pub fn z(&self) -> u32 {
        self.z_dim.max(1) as u32
    }

    /// `WDim`, with 0 meaning 1.
    pub fn w(&self) -> u32 {
        self.w_dim.max(1) as u32
    }

    /// `BlobsYStart[i & 7]`.
    pub fn blob_start(blobs: u32, i: u32) -> u32 {
        (blobs >> ((i & 7) * 4)) & 0xF
    }
}

/// Everything the later stages need from Config and ThreadConfig for one
/// `UNPACR`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub arch: Arch,
    pub descriptor: TileDescriptor,
    /// `IsUncompressed`, from the descriptor or (in `MultiContextMode`) from
    /// `Disable_zero_compress_cntx[WhichContext]`.
    pub is_uncompressed: bool,
    /// `XDim`, from the descriptor or (unpacker 0 in `MultiContextMode`) from
    /// `Tile_x_dim_cntx[WhichContext & 3]`.
    pub x_dim: u32,
    pub in_format: DataFormat,
    pub out_format: DataFormat,
    /// `Throttle_mode`: L1 read speed (0 x1, 1 x2, 2 x4).
    pub throttle_mode: u32,
    pub fp8: Fp8Format,
    pub int8_unsigned: bool,
    /// The L1 address of the tile (before the header) in 16-byte units:
    /// `Base_address + (Offset_address & 0xffff)` of the selected context.
    pub base: u32,
    pub force_shared_exp: bool,
    pub forced_shared_exp: u8,
    pub limit_address: u32,
    pub fifo_size: u32,
    /// Blackhole `REG10_Unpack_limit_address_en`: a second FIFO limit.
    pub extra_limit: bool,
    /// `Tileize_mode`: `DiscontiguousInputRows`.
    pub tileize: bool,
    /// The four 4-bit `Shift_amount_cntx` fields (row stride in tileize
    /// mode, column shift otherwise).
    pub shift_amount: [u32; 4],
    /// `Shift_amount_cntx[WhichContext & 3]`: the column shift when not in
    /// tileize mode.
    pub column_shift: u32,
    /// `Haloize_mode`: `Transpose`, before unpacker 1 drops it.
    pub haloize: bool,
    pub unpack_to_dst: bool,
    pub out_base: u32,
    pub out_ystride: u32,
    pub out_zstride: u32,
    pub out_wstride: u32,
    /// `Dest_cntx[WhichContext & 3]` (unpacker 0 in `MultiContextMode`).
    pub context_out_addr: u32,
    pub add_dest_addr_cntr: bool,
    pub upsample_rate: u32,
    pub upsample_interleave: bool,
    pub context_count: u32,
    pub context_count_non_log2: bool,
    pub src_reg_set_upd: bool,
    /// `UNP0_BLOBS_Y_START_CNTX[WhichContext & 2]` (unpacker 0 in
    /// `MultiContextMode`), otherwise the descriptor's `BlobsYStart`.
    pub blobs_y_start: u32,
    /// `SRCA_SET_SetOvrdWithAddr` of the issuing thread.
    pub set_ovrd_with_addr: bool,
    /// `SRCA_SET_Base` / `SRCB_SET_Base` of the issuing thread.
    pub src_set_base: u32,
}

impl Settings {
    /// Read the configuration `op` uses under `sel`, issued by `thread`.
    pub fn read(
        cfg: &Config,
        tc: &ThreadConfig,
        thread: usize,
        op: &UnpacrOp,
        sel: &Selection,
    ) -> Result<Settings> {
        let f = &UNPACKERS[op.unpacker & 1];
        let s = sel.state;
        let ctx = sel.context;
        let fields = cfg.state_fields(s);
        let get = |field| fields.get(field);
        let multi = op.multi_context;
        let unpacker0 = op.unpacker == 0;
        let descriptor = TileDescriptor::read(cfg, s, f.tile_descriptor);
        let is_uncompressed = if multi {
            get(f.disable_zero_compress[ctx]) != 0
        } else {
            descriptor.is_uncompressed
        };
        let x_dim = if multi && unpacker0 {
            get(f.tile_x_dim[ctx & 3])
        } else {
            descriptor.x_dim as u32
        };
        let (in_code, out_code) = if multi && get(f.ovrd_data_format) != 0 {
            (get(f.in_format_cntx[ctx]), get(f.out_format_cntx[ctx]))
        } else {
            (descriptor.in_data_format as u32, get(f.out_data_format))
        };
        let in_format = DataFormat::decode(in_code)
            .map_err(|e| Fault::undefined(format!("UNPACR InDataFormat: {}", e.rule)))?;
        let out_format = DataFormat::decode(out_code)
            .map_err(|e| Fault::undefined(format!("UNPACR OutDataFormat: {}", e.rule)))?;
        let base = if multi && ctx != 0 {
            get(f.base[ctx]).wrapping_add(get(f.offset[ctx & 3]) & 0xFFFF)
        } else {
            get(f.base[0]).wrapping_add(get(f.offset[0]) & 0xFFFF)
        };
        let unpack_to_dst = unpacker0
            && if multi {
                get(f.unpack_if_sel_cntx[ctx]) != 0
            } else {
                get(f.unpack_if_sel) != 0
            };
        let blobs_y_start = if multi && unpacker0 {
            get(BLOBS_Y_START[(ctx & 2) >> 1])
        } else {
            descriptor.blobs_y_start
        };
        let ovrd = crate::regs::ThreadCfgField::SRCA_SET_SetOvrdWithAddr;
        Ok(Settings {
            arch: cfg.arch(),
            descriptor,
            is_uncompressed,
            x_dim,
            in_format,
            out_format,
            throttle_mode: get(f.throttle_mode),
            fp8: if get(f.lf8_4b_exp) != 0 {
                Fp8Format::E4M3
            } else {
                Fp8Format::E5M2
            },
            int8_unsigned: get(f.int8_unsigned) != 0,
            base,
            force_shared_exp: get(f.force_shared_exp) != 0,
            forced_shared_exp: get(f.forced_shared_exp) as u8,
            limit_address: get(f.unpack_limit_address),
            fifo_size: get(f.unpack_fifo_size),
            extra_limit: get(f.extra_limit_en) != 0,
            tileize: get(f.tileize_mode) != 0,
            shift_amount: std::array::from_fn(|i| get(f.shift_amount[i])),
            column_shift: get(f.shift_amount[ctx & 3]),
            haloize: get(f.haloize_mode) != 0,
            unpack_to_dst,
            out_base: get(f.out_base),
            out_ystride: get(f.out_ystride),
            out_zstride: get(f.out_zstride),
            out_wstride: get(f.out_wstride),
            context_out_addr: get(f.dest[ctx & 3]),
            add_dest_addr_cntr: get(f.add_dest_addr_cntr) != 0,
            upsample_rate: get(f.upsample_rate),
            upsample_interleave: get(f.upsample_and_interleave) != 0,
            context_count: get(f.context_count),
            context_count_non_log2: get(f.context_count_non_log2_en) != 0,
            src_reg_set_upd: get(f.src_reg_set_upd) != 0,
            blobs_y_start,
            set_ovrd_with_addr: tc.get(thread, ovrd) != 0,
            src_set_base: tc.get(thread, f.src_set_base),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// UNPACR_Regular.md, "Configuration": the descriptor's bit offsets.
    #[test]
    fn descriptor_fields_sit_where_the_table_puts_them() {
        let d = TileDescriptor::decode([
            0x0123_0735, // XDim 0x123, BlobsPerXYPlane 7, NoBFPExp, IsUncompressed, fmt 5
            0x0004_0002, // ZDim 4 at bit 48, YDim 2 at bit 32
            0xABCD_0003, // BlobsYStart low half at bit 80, WDim 3 at bit 64
            0x7F00_1234, // DigestSize 0x7F at bit 120, BlobsYStart high half
        ]);
        assert_eq!(d.in_data_format, 5);
        assert!(d.is_uncompressed && d.no_bfp_exp_section);
        assert_eq!(d.blobs_per_xy_plane, 7);
        assert_eq!(d.x_dim, 0x123);
        assert_eq!((d.y_dim, d.z_dim, d.w_dim), (2, 4, 3));
        assert_eq!(d.blobs_y_start, 0x1234_ABCD);
        assert_eq!(d.digest_size, 0x7F);
        assert_eq!(TileDescriptor::blob_start(d.blobs_y_start, 0), 0xD);
        assert_eq!(TileDescriptor::blob_start(d.blobs_y_start, 7), 0x1);
    }

    /// "If this field contains the value 0, then 1 is used instead."
    #[test]
    fn zero_z_and_w_mean_one() {
        let d = TileDescriptor::decode([0; 4]);
        assert_eq!((d.z(), d.w()), (1, 1));
    }
}
