//! Reading a tile job back out of a vector that programs one the tt-llk way:
//! the inverse of [`super::pack`] and [`super::unpack`]. Used to check the
//! golden model against recorded vectors and to describe a vector by its job.

use super::{PackForm, UNPACKERS};
use crate::golden::{Edge, Format, PackJob, Relu, UnpackJob, UnpackTarget};
use crate::vector::{Arch, DstFormat, Step, Vector};
use tensix_emu::isa::{self, Instruction};
use tensix_emu::regs::{CfgField, Config};

/// The vector's Config state 0 after its setup writes.
fn config_of(v: &Vector) -> Config {
    let mut c = Config::new(v.arch);
    for w in &v.setup.config {
        c.write_addr32(usize::from(w.state), w.addr as usize, w.value);
    }
    c
}

/// The instructions of the vector's programs and MOP configurations.
fn instructions(v: &Vector) -> Vec<Instruction> {
    let words = v
        .program
        .iter()
        .flat_map(|p| p.run.iter())
        .filter_map(|s| match s {
            Step::Instruction(w) => Some(*w),
            _ => None,
        })
        .chain(v.setup.mop_config.iter().flat_map(|m| m.words));
    words.filter_map(|w| isa::decode(v.arch, w).ok()).collect()
}

fn format(code: u32, what: &str) -> Result<Format, String> {
    Format::from_code(code).ok_or_else(|| format!("{what} {code} names no format"))
}

/// The pack job a tt-llk-style pack vector programs.
pub fn pack_job(v: &Vector) -> Result<(PackJob, PackForm), String> {
    use CfgField as C;
    let c = config_of(v);
    let get = |f: C| c.get(0, f);
    let src = format(get(C::ALU_FORMAT_SPEC_REG2_Dstacc), "Dstacc")?;
    let input = format(get(C::THCON_SEC0_REG1_In_data_format), "In_data_format")?;
    if input != src {
        return Err("In_data_format differs from Dstacc".into());
    }
    let out = format(get(C::THCON_SEC0_REG1_Out_data_format), "Out_data_format")?;
    let wide = get(C::PCK_DEST_RD_CTRL_Read_32b_data) != 0;
    let dst = match &v.setup.dst {
        Some(d) => d.format,
        None if wide => DstFormat::Fp32,
        None => DstFormat::Bf16,
    };
    let insns = instructions(v);
    let pacrs: Vec<&isa::Pacr> = insns
        .iter()
        .filter_map(|i| match i {
            Instruction::Pacr(p) => Some(p),
            _ => None,
        })
        .collect();
    let first = pacrs.first().ok_or("no PACR")?;
    let face_rows = get(C::PACK_COUNTERS_SEC0_pack_reads_per_xy_plane);
    let mop = insns.iter().any(|i| matches!(i, Instruction::Mop(_)));
    let faces = match v.arch {
        Arch::WormholeB0 => match first.pack_sel {
            1 => 1,
            3 => 2,
            15 => 4,
            other => return Err(format!("pack_sel {other}")),
        },
        Arch::Blackhole if mop => v
            .setup
            .mop_config
            .first()
            .map(|m| m.words[0])
            .ok_or("MOP without configuration")?,
        Arch::Blackhole => {
            let per_face = (face_rows / face_rows.clamp(1, 4)).max(1);
            pacrs.len() as u32 / per_face
        }
    };
    let tile = insns
        .iter()
        .find_map(|i| match i {
            Instruction::Setadc(s) if s.dimension_index == 3 && s.channel_index == 0 => {
                Some(s.value)
            }
            _ => None,
        })
        .unwrap_or(0);
    let word = |f: C| {
        f.on(v.arch)
            .and_then(|r| c.read_addr32(0, usize::from(r.addr32)))
            .unwrap_or(0)
    };
    let edge = Edge {
        neg_inf: get(C::PCK_EDGE_MODE_mode) != 0,
        masks: [
            get(C::PCK_EDGE_OFFSET_SEC0_mask) as u16,
            get(C::PCK_EDGE_OFFSET_SEC1_mask) as u16,
            get(C::PCK_EDGE_OFFSET_SEC2_mask) as u16,
            get(C::PCK_EDGE_OFFSET_SEC3_mask) as u16,
        ],
        row_sets: [
            word(C::TILE_ROW_SET_MAPPING_0_row_set_mapping_0),
            word(C::TILE_ROW_SET_MAPPING_1_row_set_mapping_0),
            word(C::TILE_ROW_SET_MAPPING_2_row_set_mapping_0),
            word(C::TILE_ROW_SET_MAPPING_3_row_set_mapping_0),
        ],
        select: get(C::PCK_EDGE_TILE_ROW_SET_SELECT_select) as u8,
    };
    let l1_dest = get(C::THCON_SEC0_REG1_L1_Dest_addr);
    let job = PackJob {
        arch: v.arch,
        dst,
        src,
        out,
        unsigned: get(C::PCK_DEST_RD_CTRL_Read_unsigned) != 0,
        fp8_e4m3: get(C::THCON_SEC0_REG1_Pac_LF8_4b_exp) != 0,
        read_raw: get(C::PCK_DEST_RD_CTRL_Read_int8) != 0,
        round_10b: get(C::PCK_DEST_RD_CTRL_Round_10b_mant) != 0,
        relu: Relu {
            mode: get(C::STACC_RELU_ApplyRelu) as u8,
            threshold: get(C::STACC_RELU_ReluThreshold) as u16,
        },
        edge,
        faces: faces as u8,
        face_rows: face_rows as u8,
        tile: tile as u16,
        dst_offset: get(C::DEST_TARGET_REG_CFG_PACK_SEC0_Offset) as u16,
        l1_addr: l1_dest.wrapping_add(1).wrapping_shl(4),
        l1_acc: get(C::THCON_SEC0_REG1_Pack_L1_Acc) != 0,
    };
    let form = if mop {
        PackForm::Mop
    } else {
        PackForm::Instructions
    };
    Ok((job, form))
}

/// The unpack job a tt-llk-style unpack vector programs.
pub fn unpack_job(v: &Vector) -> Result<UnpackJob, String> {
    use CfgField as C;
    let c = config_of(v);
    let get = |f: C| c.get(0, f);
    let insns = instructions(v);
    let unpacr = insns
        .iter()
        .find_map(|i| match i {
            Instruction::Unpacr(u) => Some(*u),
            _ => None,
        })
        .ok_or("no UNPACR")?;
    let b = unpacr.unpack_block_selection != 0;
    let faces = insns
        .iter()
        .filter(|i| matches!(i, Instruction::Unpacr(_)))
        .count();
    let u = &UNPACKERS[usize::from(b)];
    let descriptor = get(u.descriptor);
    let to_dst = u.if_sel.is_some_and(|f| get(f) != 0);
    let x_dim = if b {
        descriptor >> 16
    } else {
        get(C::THCON_SEC0_REG5_Tile_x_dim_cntx0)
    };
    let forced = (get(u.force_shared_exp) != 0).then(|| get(u.shared_exp) as u8);
    let dest = get(C::THCON_SEC0_REG5_Dest_cntx0_address);
    Ok(UnpackJob {
        arch: v.arch,
        target: if b {
            UnpackTarget::SrcB
        } else if to_dst {
            UnpackTarget::Dst
        } else {
            UnpackTarget::SrcA
        },
        input: format(descriptor & 15, "InDataFormat")?,
        out: format(get(u.out), "Out_data_format")?,
        fp8_e4m3: get(u.lf8) != 0,
        unsigned: get(u.unsigned) != 0,
        forced_exp: forced,
        haloize: get(u.haloize) != 0,
        faces: faces as u8,
        face_rows: (x_dim / 16) as u8,
        tile: if to_dst {
            (dest.saturating_sub(0x40) / 1024) as u16
        } else {
            0
        },
        // Base_address is 32 bits wide: a vector may set any value.
        l1_addr: get(u.base).wrapping_add(1).wrapping_shl(4),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::program::set_field;

    #[test]
    fn an_unpack_job_reads_back_and_any_base_address_is_accepted() {
        let job = UnpackJob {
            arch: Arch::Blackhole,
            target: UnpackTarget::SrcB,
            input: Format::Bfp8,
            out: Format::Bfp8,
            fp8_e4m3: false,
            unsigned: false,
            forced_exp: Some(7),
            haloize: false,
            faces: 2,
            face_rows: 8,
            tile: 0,
            l1_addr: 0x2000,
        };
        let mut v =
            super::super::vector(job.arch, "t", super::super::unpack(&job), Vec::new(), None);
        assert_eq!(unpack_job(&v), Ok(job.clone()));
        // Base_address is a 32-bit field holding (address / 16) - 1; its
        // largest value names address 2^36, which wraps to 0 in 32 bits.
        set_field(
            v.arch,
            &mut v.setup.config,
            CfgField::THCON_SEC1_REG3_Base_address,
            u32::MAX,
        );
        assert_eq!(unpack_job(&v).map(|j| j.l1_addr), Ok(0));
    }
}
