//! Config register images and instruction programs around PACR and UNPACR.
//!
//! Half of the config images are tt-llk-shaped (the words [`crate::llk`]
//! writes for an arbitrary job, a few data-path fields then changed to any
//! value), half set any value in any field. Programs mix PACR or UNPACR with
//! the ADC instructions (SETADC*, INCADC*, ADDRCR*), SETC16, WRCFG, RMWCIB,
//! MOP and TRISC stores.

use super::tile::{DstRows, PackJobSpec};
use crate::golden::{PackJob, UnpackJob};
use crate::llk;
use crate::vector::{
    self, Arch, ConfigWrite, DstFormat, DstRow, GprWrite, L1Range, MopConfig, Step,
    ThreadConfigWrite, ThreadProgram, Vector,
};
use arbitrary::{Arbitrary, Result, Unstructured};
use tensix_emu::isa::{self, Instruction, Opcode};
use tensix_emu::regs::{self, CfgField, ThreadCfgField};

/// Which data path a program drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Thread 2 with PACR.
    Pack,
    /// Thread 0 with UNPACR.
    Unpack,
}

impl Unit {
    pub fn thread(self) -> u8 {
        match self {
            Unit::Pack => 2,
            Unit::Unpack => 0,
        }
    }
}

/// A value for a field `width` bits wide: small numbers, the extremes, or
/// anything.
fn field_value(u: &mut Unstructured<'_>, width: u32) -> Result<u32> {
    let max = if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    };
    Ok(match u.int_in_range(0..=5u8)? {
        0 => 0,
        1 => 1.min(max),
        2 => max,
        3 => u.int_in_range(0..=15u32)? & max,
        _ => u.arbitrary::<u32>()? & max,
    })
}

/// Data-path fields a tt-llk-shaped image may have changed: formats, ReLU,
/// edge masks, Dst read controls; not the addresses or section sizes.
const PACK_DATA_FIELDS: &[CfgField] = &[
    CfgField::ALU_FORMAT_SPEC_REG2_Dstacc,
    CfgField::THCON_SEC0_REG1_In_data_format,
    CfgField::THCON_SEC0_REG1_Out_data_format,
    CfgField::STACC_RELU_ApplyRelu,
    CfgField::STACC_RELU_ReluThreshold,
    CfgField::PCK_DEST_RD_CTRL_Read_32b_data,
    CfgField::PCK_DEST_RD_CTRL_Read_int8,
    CfgField::PCK_DEST_RD_CTRL_Read_unsigned,
    CfgField::PCK_DEST_RD_CTRL_Round_10b_mant,
    CfgField::PCK_EDGE_OFFSET_SEC0_mask,
    CfgField::PCK_EDGE_OFFSET_SEC1_mask,
    CfgField::PCK_EDGE_MODE_mode,
    CfgField::THCON_SEC0_REG1_Pac_LF8_4b_exp,
    CfgField::THCON_SEC0_REG1_Pack_L1_Acc,
    CfgField::THCON_SEC0_REG1_Exp_threshold_en,
    CfgField::THCON_SEC0_REG1_Exp_threshold,
    CfgField::THCON_SEC0_REG1_Downsample_mask,
    CfgField::THCON_SEC0_REG1_Disable_zero_compress,
    CfgField::INT_DESCALE_Enable,
];

const UNPACK_DATA_FIELDS: &[CfgField] = &[
    CfgField::THCON_SEC0_REG2_Out_data_format,
    CfgField::THCON_SEC1_REG2_Out_data_format,
    CfgField::THCON_SEC0_REG0_TileDescriptor,
    CfgField::THCON_SEC1_REG0_TileDescriptor,
    CfgField::THCON_SEC0_REG2_Haloize_mode,
    CfgField::THCON_SEC0_REG2_Tileize_mode,
    CfgField::THCON_SEC0_REG2_Force_shared_exp,
    CfgField::THCON_SEC0_REG1_Unp_LF8_4b_exp,
    CfgField::ALU_FORMAT_SPEC_REG0_SrcAUnsigned,
    CfgField::UNP0_FORCED_SHARED_EXP_shared_exp,
];

/// Apply `field = value` to an ordered list of Config writes.
pub fn set_field(arch: Arch, writes: &mut Vec<ConfigWrite>, field: CfgField, value: u32) {
    let Some(f) = field.on(arch) else { return };
    let addr = u32::from(f.addr32);
    match writes.iter_mut().find(|w| w.addr == addr && w.state == 0) {
        Some(w) => w.value = f.insert(w.value, value),
        None => writes.push(ConfigWrite {
            addr,
            value: f.insert(0, value),
            state: 0,
        }),
    }
}

/// `n` writes of any value to any field that exists on `arch`.
pub fn any_config(u: &mut Unstructured<'_>, arch: Arch, n: usize) -> Result<Vec<ConfigWrite>> {
    let mut writes = Vec::new();
    for _ in 0..n {
        let f = *u.choose(CfgField::all_on(arch))?;
        let width = f.on(arch).map_or(1, |r| u32::from(r.width));
        let v = field_value(u, width)?;
        set_field(arch, &mut writes, f, v);
    }
    Ok(writes)
}

/// `NOP`: opcode 0x02 with every field 0, the same word on both
/// architectures.
const NOP: u32 = 0x0200_0000;

/// One instruction word for `unit` on `arch`: an opcode from the list below
/// with every field drawn (small values more often), or occasionally any
/// word but, for an unpack program, a `PACR`: only `PACR` writes L1, and
/// `check_program` holds an unpack program to writing none (through its
/// MOP expansions too, whose words come from here).
pub fn instruction(u: &mut Unstructured<'_>, arch: Arch, unit: Unit) -> Result<u32> {
    const PACK: &[Opcode] = &[
        Opcode::Pacr,
        Opcode::Pacr,
        Opcode::Pacr,
        Opcode::Pacr,
        Opcode::Setadc,
        Opcode::Setadcxx,
        Opcode::Setadcxy,
        Opcode::Setadczw,
        Opcode::Incadcxy,
        Opcode::Incadczw,
        Opcode::Addrcrxy,
        Opcode::Addrcrzw,
        Opcode::Setc16,
        Opcode::Wrcfg,
        Opcode::Rmwcib0,
        Opcode::Rmwcib1,
        Opcode::Rmwcib2,
        Opcode::Rmwcib3,
        Opcode::Nop,
        Opcode::Setdmareg,
    ];
    const UNPACK: &[Opcode] = &[
        Opcode::Unpacr,
        Opcode::Unpacr,
        Opcode::Unpacr,
        Opcode::UnpacrNop,
        Opcode::Setadc,
        Opcode::Setadcxx,
        Opcode::Setadcxy,
        Opcode::Setadczw,
        Opcode::Incadcxy,
        Opcode::Incadczw,
        Opcode::Addrcrxy,
        Opcode::Addrcrzw,
        Opcode::Setc16,
        Opcode::Wrcfg,
        Opcode::Rmwcib0,
        Opcode::Rmwcib2,
        Opcode::Nop,
        Opcode::Setdmareg,
    ];
    if u.ratio(1, 64)? {
        let word: u32 = u.arbitrary()?;
        return Ok(match (unit, isa::opcode_of(arch, word)) {
            (Unit::Unpack, Ok(Opcode::Pacr)) => NOP,
            _ => word,
        });
    }
    let list = match unit {
        Unit::Pack => PACK,
        Unit::Unpack => UNPACK,
    };
    let opcode = *u.choose(list)?;
    let Some(layout) = opcode.layout(arch) else {
        return Ok(NOP);
    };
    let mut insn = Instruction::zeroed(opcode);
    for f in layout.fields {
        let v = field_value(u, f.width)?;
        insn.set_field(f.index, v);
    }
    if let Instruction::Setc16(s) = &mut insn {
        // Mostly the registers that matter here: the address modifiers.
        if u.ratio(3, 4)? {
            s.setc16_reg = u.int_in_range(30..=41)?;
        }
    }
    Ok(isa::encode(arch, &insn).unwrap_or(NOP))
}

/// Nine MOP configuration words: loop counts, then instructions.
pub fn mop_config(u: &mut Unstructured<'_>, arch: Arch, unit: Unit) -> Result<[u32; 9]> {
    let mut w = [NOP; 9];
    w[0] = u.int_in_range(0..=5)?;
    w[1] = u.int_in_range(0..=5)?;
    for word in w.iter_mut().skip(2) {
        if u.ratio(2, 3)? {
            *word = instruction(u, arch, unit)?;
        }
    }
    Ok(w)
}

/// A program of up to `max` entries for `unit`.
pub fn program(u: &mut Unstructured<'_>, arch: Arch, unit: Unit, max: usize) -> Result<Vec<Step>> {
    let n = u.int_in_range(1..=max)?;
    let mut steps = Vec::with_capacity(n);
    let cfg_words = regs::config_words(arch) as u32;
    for _ in 0..n {
        steps.push(match u.int_in_range(0..=19u8)? {
            0 => Step::Cfg {
                addr32: u.int_in_range(0..=cfg_words - 1)?,
                value: u.arbitrary()?,
            },
            1 => Step::Gpr {
                index: u.int_in_range(0..=63)?,
                value: u.arbitrary()?,
            },
            2 => Step::Instruction(0x0180_0000), // MOP, mop_type 1
            3 => Step::Instruction(u.int_in_range(0..=0x7f_ffffu32)? | 0x0100_0000), // MOP
            _ => Step::Instruction(instruction(u, arch, unit)?),
        });
    }
    Ok(steps)
}

/// An arbitrary config image, program and data around PACR or UNPACR: the
/// input of `pack_program` and `unpack_program`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramCase {
    pub arch: Arch,
    pub unit: Unit,
    /// The tt-llk job the config words came from, when they did.
    pub pack_job: Option<PackJob>,
    pub unpack_job: Option<UnpackJob>,
    pub l1_fill: u8,
    pub l1: Vec<L1Range>,
    pub dst: Option<vector::Dst>,
    pub config: Vec<ConfigWrite>,
    pub thread_config: Vec<ThreadConfigWrite>,
    pub gprs: Vec<GprWrite>,
    pub mop: Option<[u32; 9]>,
    pub program: Vec<Step>,
}

impl ProgramCase {
    fn arbitrary_for(u: &mut Unstructured<'_>, unit: Unit) -> Result<ProgramCase> {
        let llk_shaped = u.arbitrary::<bool>()?;
        let t = unit.thread();
        let mut case = ProgramCase {
            arch: Arch::Blackhole,
            unit,
            pack_job: None,
            unpack_job: None,
            l1_fill: super::tile::canary(u)?,
            l1: Vec::new(),
            dst: None,
            config: Vec::new(),
            thread_config: Vec::new(),
            gprs: Vec::new(),
            mop: None,
            program: Vec::new(),
        };
        if llk_shaped {
            let p = match unit {
                Unit::Pack => {
                    let spec: PackJobSpec = u.arbitrary()?;
                    case.arch = spec.job.arch;
                    let p = llk::pack(&spec.job, spec.form);
                    case.pack_job = Some(spec.job);
                    p
                }
                Unit::Unpack => {
                    let job: UnpackJob = u.arbitrary()?;
                    case.arch = job.arch;
                    let p = llk::unpack(&job);
                    case.unpack_job = Some(job);
                    p
                }
            };
            case.config = p.config;
            case.thread_config = p.thread_config;
            case.mop = p.mop_config.first().map(|m| m.words);
            case.program = p.program.run;
            // Change a few data-path fields to anything.
            let fields = match unit {
                Unit::Pack => PACK_DATA_FIELDS,
                Unit::Unpack => UNPACK_DATA_FIELDS,
            };
            for _ in 0..u.int_in_range(0..=3)? {
                let f = *u.choose(fields)?;
                let width = f.on(case.arch).map_or(1, |r| u32::from(r.width));
                let v = field_value(u, width)?;
                set_field(case.arch, &mut case.config, f, v);
            }
            // Sometimes splice in a few other instructions.
            for _ in 0..u.int_in_range(0..=2)? {
                let at = u.int_in_range(0..=case.program.len())?;
                let w = instruction(u, case.arch, unit)?;
                case.program.insert(at, Step::Instruction(w));
            }
        } else {
            case.arch = if u.ratio(1, 4)? {
                Arch::WormholeB0
            } else {
                Arch::Blackhole
            };
            let n = u.int_in_range(0..=24)?;
            case.config = any_config(u, case.arch, n)?;
            for _ in 0..u.int_in_range(0..=6)? {
                let f = *u.choose(ThreadCfgField::all_on(case.arch))?;
                if let Some(r) = f.on(case.arch) {
                    let v = field_value(u, u32::from(r.width))?;
                    case.thread_config.push(ThreadConfigWrite {
                        thread: t,
                        reg: r.addr32,
                        value: r.insert(0, v) as u16,
                    });
                }
            }
            if u.arbitrary()? {
                case.mop = Some(mop_config(u, case.arch, unit)?);
            }
            case.program = program(u, case.arch, unit, 24)?;
        }
        for _ in 0..u.int_in_range(0..=2)? {
            case.gprs.push(GprWrite {
                thread: t,
                index: u.int_in_range(0..=63)?,
                value: u.arbitrary()?,
            });
        }
        // Data: Dst rows for a pack, L1 bytes for an unpack.
        match unit {
            Unit::Pack => {
                let format = case.pack_job.as_ref().map_or(
                    *u.choose(&[
                        DstFormat::Bf16,
                        DstFormat::Fp16,
                        DstFormat::Fp32,
                        DstFormat::Int32,
                    ])?,
                    |j| j.dst,
                );
                let first = case.pack_job.as_ref().map_or(0, |j| j.first_row());
                let mut rows = Vec::new();
                let mut draw = DstRows::new(format);
                let max = usize::from(format.mode().rows());
                for r in first..(first + 64).min(max) {
                    if u.ratio(1, 4)? {
                        continue;
                    }
                    rows.push(DstRow {
                        row: r as u16,
                        cells: draw.next(u)?,
                    });
                }
                case.dst = Some(vector::Dst { format, rows });
            }
            Unit::Unpack => {
                let addr = case.unpack_job.as_ref().map_or(0x1000, |j| j.l1_addr);
                let len = u.int_in_range(0..=2048usize)?;
                let size = case.arch.l1_size();
                let len = len.min(size - addr as usize);
                let bytes = super::take(u, len).to_vec();
                if !bytes.is_empty() {
                    case.l1.push(L1Range { addr, bytes });
                }
            }
        }
        Ok(case)
    }

    /// The case as a vector (no `expect`).
    pub fn vector(&self, name: &str) -> Vector {
        Vector {
            name: name.to_string(),
            arch: self.arch,
            provenance: vector::Provenance {
                source: vector::Source::Derived,
                detail: String::new(),
            },
            tags: vec![match self.unit {
                Unit::Pack => "pack".into(),
                Unit::Unpack => "unpack".into(),
            }],
            setup: vector::Setup {
                l1_fill: self.l1_fill,
                l1: self.l1.clone(),
                config: self.config.clone(),
                thread_config: self.thread_config.clone(),
                gprs: self.gprs.clone(),
                mop_config: self
                    .mop
                    .map(|words| MopConfig {
                        thread: self.unit.thread(),
                        words,
                    })
                    .into_iter()
                    .collect(),
                dst: self.dst.clone(),
                srca: Vec::new(),
                srcb: Vec::new(),
            },
            program: vec![ThreadProgram {
                thread: self.unit.thread(),
                run: self.program.clone(),
            }],
            expect: vector::Expect::default(),
        }
    }
}

/// A [`ProgramCase`] around PACR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackProgram(pub ProgramCase);

/// A [`ProgramCase`] around UNPACR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnpackProgram(pub ProgramCase);

impl<'a> Arbitrary<'a> for PackProgram {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        ProgramCase::arbitrary_for(u, Unit::Pack).map(PackProgram)
    }
}

impl<'a> Arbitrary<'a> for UnpackProgram {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        ProgramCase::arbitrary_for(u, Unit::Unpack).map(UnpackProgram)
    }
}
