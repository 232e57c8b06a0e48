//! Whole vectors that satisfy the `tensix-vector/1` schema's rules (field
//! widths, L1 bounds, no overlapping ranges, no duplicate rows or threads),
//! for the vector round-trip target.

use crate::vector::{
    AdcChannel, AdcExpect, AdcUnit, Arch, ConfigWrite, Dst, DstFormat, DstRow, Expect,
    ExpectedFault, FaultKind, GprWrite, L1Range, MopConfig, Provenance, Setup, Source, SrcRow,
    Step, ThreadConfigWrite, ThreadProgram, Vector,
};
use arbitrary::{Arbitrary, Result, Unstructured};

/// A schema-valid vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnyVector(pub Vector);

fn word_text(u: &mut Unstructured<'_>) -> Result<String> {
    let n = u.int_in_range(1..=8)?;
    let mut s = String::new();
    for _ in 0..n {
        s.push(*u.choose(&['a', 'b', 'x', '0', '7', '-', '_', 'z'])?);
    }
    Ok(s)
}

fn l1_ranges(u: &mut Unstructured<'_>, arch: Arch) -> Result<Vec<L1Range>> {
    let size = arch.l1_size() as u32;
    let mut at = u.int_in_range(0..=64u32)? * 16;
    let mut out = Vec::new();
    for _ in 0..u.int_in_range(0..=3)? {
        let len = u.int_in_range(0..=40usize)?;
        if at as usize + len > size as usize {
            break;
        }
        out.push(L1Range {
            addr: at,
            bytes: super::take(u, len).to_vec(),
        });
        at += len as u32 + u.int_in_range(0..=4096u32)?;
    }
    if u.ratio(1, 8)? {
        // One range touching the last byte of L1.
        let len = u.int_in_range(1..=16u32)?;
        if out.last().is_none_or(|r| r.end() <= u64::from(size - len)) {
            out.push(L1Range {
                addr: size - len,
                bytes: super::take(u, len as usize).to_vec(),
            });
        }
    }
    Ok(out)
}

fn dst(u: &mut Unstructured<'_>) -> Result<Dst> {
    let format = *u.choose(&DstFormat::ALL)?;
    let mut rows = Vec::new();
    let max = format.mode().max_cell();
    let mut row = u.int_in_range(0..=8u16)?;
    for _ in 0..u.int_in_range(0..=3)? {
        if row >= format.mode().rows() {
            break;
        }
        let mut cells = [0u32; 16];
        for c in &mut cells {
            *c = u.arbitrary::<u32>()? & max;
        }
        rows.push(DstRow { row, cells });
        row += u.int_in_range(1..=300u16)?;
    }
    Ok(Dst { format, rows })
}

fn src_rows(u: &mut Unstructured<'_>) -> Result<Vec<SrcRow>> {
    let mut out = Vec::new();
    let mut key = u.int_in_range(0..=8u16)?;
    for _ in 0..u.int_in_range(0..=2)? {
        if key > 127 {
            break;
        }
        let mut cells = [0u32; 16];
        for c in &mut cells {
            *c = u.arbitrary::<u32>()? & 0x7_ffff;
        }
        out.push(SrcRow {
            bank: (key / 64) as u8,
            row: (key % 64) as u8,
            cells,
        });
        key += u.int_in_range(1..=40u16)?;
    }
    Ok(out)
}

fn step(u: &mut Unstructured<'_>) -> Result<Step> {
    Ok(match u.int_in_range(0..=5u8)? {
        0 => Step::Cfg {
            addr32: u.arbitrary()?,
            value: u.arbitrary()?,
        },
        1 => Step::Gpr {
            index: u.int_in_range(0..=63)?,
            value: u.arbitrary()?,
        },
        _ => Step::Instruction(u.arbitrary()?),
    })
}

impl<'a> Arbitrary<'a> for AnyVector {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let arch = if u.arbitrary()? {
            Arch::Blackhole
        } else {
            Arch::WormholeB0
        };
        let mut tags = Vec::new();
        for _ in 0..u.int_in_range(0..=3)? {
            tags.push(word_text(u)?);
        }
        let mut config = Vec::new();
        for _ in 0..u.int_in_range(0..=4)? {
            config.push(ConfigWrite {
                // The schema bounds the word index by the architecture.
                addr: u.int_in_range(0..=tensix_emu::regs::config_words(arch) as u32 - 1)?,
                value: u.arbitrary()?,
                state: u.int_in_range(0..=1)?,
            });
        }
        let mut thread_config = Vec::new();
        for _ in 0..u.int_in_range(0..=3)? {
            thread_config.push(ThreadConfigWrite {
                thread: u.int_in_range(0..=2)?,
                reg: u.int_in_range(0..=tensix_emu::regs::thread_config_words(arch) as u8 - 1)?,
                value: u.arbitrary()?,
            });
        }
        let mut gprs = Vec::new();
        for _ in 0..u.int_in_range(0..=2)? {
            gprs.push(GprWrite {
                thread: u.int_in_range(0..=2)?,
                index: u.int_in_range(0..=63)?,
                value: u.arbitrary()?,
            });
        }
        let mut mop_config = Vec::new();
        let mut program = Vec::new();
        for thread in 0..3u8 {
            if u.ratio(1, 4)? {
                let mut words = [0u32; 9];
                for w in &mut words {
                    *w = u.arbitrary()?;
                }
                mop_config.push(MopConfig { thread, words });
            }
            if u.ratio(1, 2)? {
                let mut run = Vec::new();
                for _ in 0..u.int_in_range(0..=5)? {
                    run.push(step(u)?);
                }
                program.push(ThreadProgram { thread, run });
            }
        }
        let mut adc = Vec::new();
        for unit in AdcUnit::ALL {
            if u.ratio(1, 4)? {
                let zw = (1u32 << AdcChannel::zw_bits(arch)) - 1;
                let mut ch = || -> Result<AdcChannel> {
                    Ok(AdcChannel {
                        x: u.arbitrary::<u32>()? & AdcChannel::MAX_X,
                        y: u.arbitrary::<u32>()? & AdcChannel::MAX_Y,
                        z: u.arbitrary::<u32>()? & zw,
                        w: u.arbitrary::<u32>()? & zw,
                    })
                };
                let ch0 = ch()?;
                let ch1 = ch()?;
                adc.push(AdcExpect {
                    thread: u.int_in_range(0..=2)?,
                    unit,
                    ch0,
                    ch1,
                });
            }
        }
        let setup = Setup {
            l1_fill: u.arbitrary()?,
            l1: l1_ranges(u, arch)?,
            config,
            thread_config,
            gprs,
            mop_config,
            dst: if u.arbitrary()? { Some(dst(u)?) } else { None },
            srca: src_rows(u)?,
            srcb: src_rows(u)?,
        };
        let expect = Expect {
            fault: if u.ratio(1, 3)? {
                Some(ExpectedFault {
                    kind: *u.choose(&FaultKind::ALL)?,
                })
            } else {
                None
            },
            l1: if u.arbitrary()? {
                Some(l1_ranges(u, arch)?)
            } else {
                None
            },
            dst: if u.ratio(1, 4)? { Some(dst(u)?) } else { None },
            srca: if u.ratio(1, 4)? {
                Some(src_rows(u)?)
            } else {
                None
            },
            srcb: if u.ratio(1, 4)? {
                Some(src_rows(u)?)
            } else {
                None
            },
            adc: if adc.is_empty() { None } else { Some(adc) },
        };
        Ok(AnyVector(Vector {
            name: format!("fuzz/{}", word_text(u)?),
            arch,
            provenance: Provenance {
                source: *u.choose(&Source::ALL)?,
                detail: if u.arbitrary()? {
                    String::new()
                } else {
                    let s: String = u.arbitrary()?;
                    s.chars().filter(|c| !c.is_control()).take(40).collect()
                },
            },
            tags,
            setup,
            program,
            expect,
        }))
    }
}
