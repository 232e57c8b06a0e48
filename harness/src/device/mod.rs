//! What a Tensix tile runs for a vector: TRISC code that applies the setup
//! the way the hardware allows and then issues each thread's program, plus a
//! manifest saying where everything lives and what can be read back.
//!
//! The three TRISCs start at their reset PCs (`0x6000`, `0xA000`, `0xE000`,
//! ttsim `src/tile.cpp` `trisc*_reset_pc` defaults and tt-metal's firmware
//! layout) with BRISC and NCRISC held in reset. Each TRISC:
//!
//! 1. applies its part of the setup: TRISC0 first loads `setup.dst` with
//!    unpacker 0 from datums the image carries ([`dst_loader`]), then stores
//!    `setup.config` words
//!    through the Config window at `0xFFEF0000 + 4 * addr32` (state 0:
//!    ttsim `tensix_cfg_wr32` writes bank 0 for every RISC-V store); each
//!    thread issues `SETC16` for its own `setup.thread_config` (SETC16 writes
//!    the issuing thread's ThreadConfig, `SETC16.md`), stores its GPRs
//!    through the register file window at `0xFFE00000 + 4 * index`, and its
//!    nine MOP configuration words at `0xFFB80000 + 4 * i` (ttsim
//!    `tensix_regfile_wr32`, `tensix_mop_cfg_wr32`: each TRISC reaches its
//!    own thread's);
//! 2. waits for its Tensix queue to drain (a load from `tensix_sync` in
//!    its PC buffer at `0xFFE80004`, which stalls until the thread's issued
//!    instructions have left the queue: ttsim `tensix_pc_buf_rd32`, tt-llk
//!    `tensix_sync()`), raises its flag and waits for the other two, so no
//!    program starts before all setup is done, as the emulator applies it;
//! 3. runs its program: each Tensix word inline, rotated
//!    (`BabyRISCV/PushTensixInstruction.md`), each `{cfg}` / `{gpr}` store
//!    after draining the queue, as the vector schema says;
//! 4. drains its queue once more and writes its done flag; TRISC2 first
//!    waits for the other two and, where the vector expects `Dst` rows,
//!    packs them into L1 scratch ([`dst_readback`]).
//!
//! What the image cannot do is refused with a reason, never guessed: SrcA
//! and SrcB setup (no RISC-V path writes them), Config state 1 writes,
//! vector L1 bytes inside the image's own region, `Dst` rows too many to
//! travel beside the code.

pub mod bundle;
pub mod dst_loader;
pub mod dst_readback;
pub mod rv32;
pub mod src_readback;

use crate::vector::Vector;
use dst_readback::DstReadback;
use rv32::{Asm, Reg};
use std::ops::Range;
use tensix_emu::state::dst::DstAddressing;
use tensix_emu::{Arch, Step};

/// Reset PCs of TRISC0, TRISC1 and TRISC2.
pub const TRISC_RESET_PC: [u32; 3] = [0x6000, 0xA000, 0xE000];
/// Bytes of code each TRISC may use from its reset PC.
pub const CODE_BYTES: u32 = 0x4000;
/// Start of the image's flag words: one 16-byte slot per TRISC, holding
/// [`SETUP_DONE`] after its setup and [`RUN_DONE`] after its program.
pub const FLAGS: u32 = 0x5F00;
/// The most an image at the default reset PCs can own: flags and the three
/// code areas. An image's own region ([`Image::region`]) runs from its flags
/// to the last byte of code or data it uses. A vector must not set, expect
/// or write anything in the image's region; the engines cannot compare
/// those bytes, and reports say so.
pub const REGION: Range<u32> = FLAGS..TRISC_RESET_PC[2] + CODE_BYTES;

/// A moved image: 256 bytes of flags, then each TRISC's code area.
const MOVED_LEN: u32 = 0x100 + 3 * CODE_BYTES;

pub const SETUP_DONE: u32 = 0x5e70_0001;
pub const RUN_DONE: u32 = 0x5e70_0002;

/// TRISC memory-mapped windows (ttsim `data/*/tile_regs.json` address map;
/// the same on both architectures).
const CFG_WINDOW: u32 = 0xFFEF_0000;
const REGFILE_WINDOW: u32 = 0xFFE0_0000;
const MOP_CFG_WINDOW: u32 = 0xFFB8_0000;
const PC_BUF_TENSIX_SYNC: u32 = 0xFFE8_0004;

/// A program image: what an engine loads onto one Tensix tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub arch: Arch,
    /// Every L1 byte outside [`REGION`] before the run.
    pub l1_fill: u8,
    /// Byte ranges written after the fill: the vector's own, then the code.
    pub l1: Vec<(u32, Vec<u8>)>,
    /// Reset PC of each TRISC; where they are not [`TRISC_RESET_PC`], the
    /// runner sets them through the Blackhole reset-PC override registers.
    pub reset_pcs: [u32; 3],
    /// Where each TRISC's flag word lives.
    pub flags: [u32; 3],
    /// The L1 bytes the image owns.
    pub region: Range<u32>,
    /// Whether and where TRISC2 packs `Dst` into L1 after the run.
    pub dst: DstPlan,
}

/// The image's part in observing `Dst`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DstPlan {
    /// The vector expects no `Dst` rows.
    NotAsked,
    /// TRISC2 packs the rows into L1 scratch.
    Read(DstReadback),
    /// The vector expects rows that the image cannot read back, and why.
    Unread(String),
}

/// What the emulator's run of a vector tells its image: the L1 it writes,
/// and the state the `Dst` readback must clear first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunFacts {
    /// L1 ranges the run reads or writes; the image keeps clear of them (a
    /// byte the run reads must hold on the engine what it holds on the
    /// emulator, the setup's or the fill, not the image's code).
    pub touched: Vec<Range<u64>>,
    /// Config words (state 0) non-zero when the run ends.
    pub config: Vec<u32>,
    /// TRISC2's ThreadConfig registers non-zero when the run ends.
    pub thread2_regs: Vec<u8>,
    /// The `Dst` addressing in force when the run ends.
    pub dst_addressing: DstAddressing,
    /// Who holds the `SrcA` and `SrcB` banks when the run ends.
    pub src: [src_readback::SrcHandshake; 2],
}

impl RunFacts {
    /// A run known only by the L1 it touches.
    pub fn touching(touched: &[Range<u64>]) -> RunFacts {
        RunFacts {
            touched: touched.to_vec(),
            ..RunFacts::default()
        }
    }
}

/// Why a vector cannot be made into an image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn overlaps(a: &Range<u64>, b: &Range<u32>) -> bool {
    a.start < u64::from(b.end) && u64::from(b.start) < a.end
}

/// Build the image for `v`, given what its run does (`run`: for example
/// the emulator's), whose L1 reads and writes must also stay clear of
/// [`REGION`].
pub fn build(v: &Vector, run: &RunFacts) -> Result<Image, Refusal> {
    let s = &v.setup;
    if !s.srca.is_empty() || !s.srcb.is_empty() {
        return Err(Refusal(
            "setup.srca/srcb: no RISC-V path writes SrcA or SrcB".into(),
        ));
    }
    if let Some(w) = s.config.iter().find(|w| w.state != 0) {
        return Err(Refusal(format!(
            "setup.config: a write to Config state {} (word {}); TRISC stores reach state 0 only",
            w.state, w.addr
        )));
    }
    let setup_ranges = s.l1.iter().map(|r| u64::from(r.addr)..r.end());
    let expect_ranges = v
        .expect
        .l1
        .iter()
        .flatten()
        .map(|r| u64::from(r.addr)..r.end());
    let mut used: Vec<Range<u64>> = setup_ranges
        .chain(expect_ranges)
        .chain(run.touched.iter().cloned())
        .collect();
    let readback = plan_readback(v, run, &used);
    if let Ok(Some((rb, _))) = &readback {
        let w = rb.window();
        used.push(u64::from(w.start)..u64::from(w.end));
    }
    let free = |r: &Range<u32>| !used.iter().any(|u| overlaps(u, r));
    // The image at `flags_at` and `pcs`, with the readback unless TRISC2's
    // code then outgrows its area.
    let place = |flags_at: u32, pcs: [u32; 3]| {
        let without = |plan| lay_out(v, flags_at, pcs, &[]).map(|i| (i, plan));
        match &readback {
            Ok(None) => without(DstPlan::NotAsked),
            Err(why) => without(DstPlan::Unread(why.clone())),
            Ok(Some((rb, steps))) => match lay_out(v, flags_at, pcs, steps) {
                Ok(i) => Ok((i, DstPlan::Read(rb.clone()))),
                Err(Refusal(why)) => {
                    without(DstPlan::Unread(format!("the readback does not fit: {why}")))
                }
            },
        }
    };
    let at_reset_pcs = place(FLAGS, TRISC_RESET_PC)?;
    let (image, dst) = if free(&at_reset_pcs.0.region) {
        at_reset_pcs
    } else if v.arch == Arch::Blackhole {
        // Blackhole TRISCs take their reset PCs from debug registers
        // (ttsim src/tile.cpp `RISCV_DEBUG_REGS_TRISC0_RESET_PC` ..
        // `TRISC_RESET_PC_OVERRIDE`), so the image can move to any free
        // window of L1 above the first 4 KiB.
        let l1 = v.arch.l1_size() as u32;
        let Some(base) = (1..l1 / 0x1000)
            .map(|k| k * 0x1000)
            .map(|b| b..b + MOVED_LEN)
            .find(|r| r.end <= l1 && free(r))
        else {
            return Err(Refusal(
                "no free window of L1 holds the program image".into(),
            ));
        };
        let b = base.start;
        let pcs = [0x100, 0x100 + CODE_BYTES, 0x100 + 2 * CODE_BYTES].map(|o| b + o);
        place(b, pcs)?
    } else {
        let r = used
            .iter()
            .find(|u| overlaps(u, &at_reset_pcs.0.region))
            .cloned()
            .unwrap_or_default();
        // Wormhole B0 TRISCs take reset-PC overrides from Config registers,
        // which the vector's own Config would share; not done.
        return Err(Refusal(format!(
            "L1 {:#x}..{:#x} overlaps the program image's region {:#x}..{:#x}, and on \
             Wormhole B0 the image does not move",
            r.start, r.end, at_reset_pcs.0.region.start, at_reset_pcs.0.region.end
        )));
    };
    let mut l1: Vec<(u32, Vec<u8>)> = s.l1.iter().map(|r| (r.addr, r.bytes.clone())).collect();
    l1.extend(image.l1);
    Ok(Image { l1, dst, ..image })
}

/// The `Dst` readback `v` needs (`None` where it expects no `Dst` rows),
/// with TRISC2's steps for it, placed in the highest 4 KiB-aligned window of
/// L1 clear of `used` and of everything an image may own; or why there is
/// none.
fn plan_readback(
    v: &Vector,
    run: &RunFacts,
    used: &[Range<u64>],
) -> Result<Option<(DstReadback, Vec<Step>)>, String> {
    let want_dst = v.expect.dst.as_ref().filter(|d| !d.rows.is_empty());
    let banks = |rows: &Option<Vec<crate::vector::SrcRow>>| -> Vec<u8> {
        let mut b: Vec<u8> = rows.iter().flatten().map(|r| r.bank & 1).collect();
        b.sort_unstable();
        b.dedup();
        b
    };
    let want_src = [banks(&v.expect.srca), banks(&v.expect.srcb)];
    if want_dst.is_none() && want_src.iter().all(Vec::is_empty) {
        return Ok(None);
    }
    let tiles = want_dst.map_or_else(Vec::new, |want| {
        DstReadback::tiles_for(v.arch, run.dst_addressing, want)
    });
    let mut free = (0..dst_readback::TILES).filter(|t| !tiles.contains(t));
    let src = src_readback::SrcPlan::new(v.arch, want_src, run.src, &mut free);
    let len = (tiles.len() + src.reads.len()) as u32 * dst_readback::TILE_BYTES;
    let l1 = v.arch.l1_size() as u32;
    let clear = |w: &Range<u32>| {
        !overlaps(&(u64::from(REGION.start)..u64::from(REGION.end)), w)
            && !used.iter().any(|u| overlaps(u, w))
    };
    let at = (1..l1 / 0x1000)
        .rev()
        .map(|k| k * 0x1000)
        .find(|&a| a + len <= l1 && clear(&(a..a + len)))
        .ok_or_else(|| format!("no free {len} bytes of L1 hold the Dst readback"))?;
    let rb = DstReadback {
        at,
        tiles,
        addressing: run.dst_addressing,
        src,
    };
    // What the emulator's run leaves set, and, in case the engine's run
    // went further than the emulator's (a fault it did not share), every
    // word the vector writes by name.
    let s = &v.setup;
    let mut config: Vec<u32> = run.config.clone();
    config.extend(s.config.iter().filter(|w| w.state == 0).map(|w| w.addr));
    for p in &v.program {
        config.extend(p.run.iter().filter_map(|step| match step {
            Step::Cfg { addr32, .. } => Some(*addr32),
            _ => None,
        }));
    }
    config.sort_unstable();
    config.dedup();
    let mut regs = run.thread2_regs.clone();
    regs.extend(
        s.thread_config
            .iter()
            .filter(|w| w.thread == 2)
            .map(|w| w.reg),
    );
    regs.sort_unstable();
    regs.dedup();
    let steps = rb.steps(v.arch, &config, &regs).map_err(|r| r.0)?;
    Ok(Some((rb, steps)))
}

/// The image's own bytes with its flags at `flags_at` and the TRISCs
/// starting at `reset_pcs`: flags, code, and the datums of `setup.dst`
/// after the code of TRISC1 or TRISC2, whichever is shorter. Its region
/// runs from the flags to the last byte it uses.
fn lay_out(
    v: &Vector,
    flags_at: u32,
    reset_pcs: [u32; 3],
    readback: &[Step],
) -> Result<Image, Refusal> {
    let s = &v.setup;
    let mut l1: Vec<(u32, Vec<u8>)> = vec![(flags_at, vec![0; 48])];
    let flags = [flags_at, flags_at + 16, flags_at + 32];
    let mut code: [Vec<u8>; 3] = Default::default();
    code[1] = thread_code(v, 1, reset_pcs[1], &flags, &[], &[])?;
    code[2] = thread_code(v, 2, reset_pcs[2], &flags, &[], readback)?;
    let mut loader = Vec::new();
    if let Some(d) = s.dst.as_ref().filter(|d| !d.rows.is_empty()) {
        let t = if code[2].len() < code[1].len() { 2 } else { 1 };
        let at = (reset_pcs[t] + code[t].len() as u32 + 15) & !15;
        let load = dst_loader::plan(v.arch, d, at)?;
        if at + load.data.len() as u32 > reset_pcs[t] + CODE_BYTES {
            return Err(Refusal(format!(
                "setup.dst: {} bytes of Dst rows do not fit beside the program code",
                load.data.len()
            )));
        }
        l1.push((at, load.data));
        loader = load.steps;
    }
    code[0] = thread_code(v, 0, reset_pcs[0], &flags, &loader, &[])?;
    for (pc, bytes) in reset_pcs.into_iter().zip(code) {
        l1.push((pc, bytes));
    }
    let end = l1
        .iter()
        .map(|(a, b)| (a + b.len() as u32 + 15) & !15)
        .max()
        .unwrap_or(flags_at);
    Ok(Image {
        arch: v.arch,
        l1_fill: s.l1_fill,
        l1,
        reset_pcs,
        flags,
        region: flags_at..end,
        dst: DstPlan::NotAsked,
    })
}

/// `SETC16 reg, value`: opcode 0xB2, value in [15:0], register in [23:16]
/// (`SETC16.md`; the same layout on both architectures).
fn setc16(reg: u8, value: u16) -> u32 {
    0xb200_0000 | (u32::from(reg) << 16) | u32::from(value)
}

fn store(a: &mut Asm, addr: u32, value: u32) {
    a.li(Reg::T0, addr);
    a.li(Reg::T1, value);
    a.sw(Reg::T1, Reg::T0, 0);
}

/// Stall until this thread's issued Tensix instructions have left its
/// queue. The load blocks the in-order TRISC, so the stores after it are
/// made after the drain; no `fence` is needed (and ttsim refuses `fence` on
/// Wormhole, where it does not order memory: `rv32_fence`).
fn drain(a: &mut Asm) {
    a.li(Reg::T0, PC_BUF_TENSIX_SYNC);
    a.lw(Reg::T1, Reg::T0, 0);
}

/// Each Tensix word inline; each `{cfg}` / `{gpr}` store after a drain.
fn steps(a: &mut Asm, run: &[Step]) {
    for s in run {
        match *s {
            Step::Instruction(w) => a.tensix(w),
            Step::Cfg { addr32, value } => {
                drain(a);
                store(a, CFG_WINDOW + 4 * addr32, value);
            }
            Step::Gpr { index, value } => {
                drain(a);
                store(a, REGFILE_WINDOW + 4 * index, value);
            }
        }
    }
}

/// The code of TRISC `t`. `loader` are steps it runs before its setup
/// (TRISC0 only: the [`dst_loader`]); `readback` are steps it runs once every
/// thread's program is done (TRISC2 only: the [`dst_readback`]).
fn thread_code(
    v: &Vector,
    t: usize,
    pc: u32,
    flags: &[u32; 3],
    loader: &[Step],
    readback: &[Step],
) -> Result<Vec<u8>, Refusal> {
    let s = &v.setup;
    let mut a = Asm::new(pc);
    steps(&mut a, loader);
    if !loader.is_empty() {
        drain(&mut a);
    }
    if t == 0 {
        for w in &s.config {
            store(&mut a, CFG_WINDOW + 4 * w.addr, w.value);
        }
    }
    for w in s.thread_config.iter().filter(|w| w.thread as usize == t) {
        a.tensix(setc16(w.reg, w.value));
    }
    for w in s.gprs.iter().filter(|w| w.thread as usize == t) {
        store(&mut a, REGFILE_WINDOW + 4 * u32::from(w.index), w.value);
    }
    for m in s.mop_config.iter().filter(|m| m.thread as usize == t) {
        for (i, w) in m.words.iter().enumerate() {
            store(&mut a, MOP_CFG_WINDOW + 4 * i as u32, *w);
        }
    }
    drain(&mut a);
    store(&mut a, flags[t], SETUP_DONE);
    // Wait until every TRISC's flag says its setup is done (or beyond).
    a.li(Reg::S1, SETUP_DONE);
    for &f in flags {
        a.li(Reg::S0, f);
        let spin = a.here();
        a.lw(Reg::T2, Reg::S0, 0);
        a.bne(Reg::T2, Reg::S1, spin);
    }
    // Barrier passed: every TRISC now reads SETUP_DONE in all three flags
    // before any of them writes RUN_DONE, because RUN_DONE is written only
    // after a thread's whole program; a thread that finishes early must not
    // release its flag before the others read it, so the done flag goes to a
    // second word of the slot.
    for step in v.program.iter().filter(|p| p.thread as usize == t) {
        steps(&mut a, &step.run);
    }
    drain(&mut a);
    if !readback.is_empty() {
        a.li(Reg::S1, RUN_DONE);
        for f in flags.iter().filter(|f| **f != flags[t]) {
            a.li(Reg::S0, f + 4);
            let spin = a.here();
            a.lw(Reg::T2, Reg::S0, 0);
            a.bne(Reg::T2, Reg::S1, spin);
        }
        steps(&mut a, readback);
        drain(&mut a);
    }
    store(&mut a, flags[t] + 4, RUN_DONE);
    let end = a.here();
    a.j(end);
    if a.here() - pc > CODE_BYTES {
        return Err(Refusal(format!(
            "TRISC{t}'s code takes {} bytes; the image gives each TRISC {CODE_BYTES}",
            a.here() - pc
        )));
    }
    Ok(a.bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::{ConfigWrite, Dst, DstFormat, DstRow, L1Range, ThreadConfigWrite};

    fn vector() -> Vector {
        Vector::from_yaml_str(
            "schema: tensix-vector/1\narch: blackhole\nprovenance: {source: isa-spec}\n\
             program:\n  - thread: 2\n    run: [0x02000000]\n",
            "t.yaml",
        )
        .unwrap()
    }

    fn code_of(image: &Image, t: usize) -> Vec<u32> {
        let (_, bytes) = image
            .l1
            .iter()
            .find(|(a, _)| *a == TRISC_RESET_PC[t])
            .unwrap();
        bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn each_trisc_gets_code_at_its_reset_pc_and_zeroed_flags() {
        let mut v = vector();
        v.setup.thread_config.push(ThreadConfigWrite {
            thread: 2,
            reg: 37,
            value: 0x0104,
        });
        let image = build(&v, &RunFacts::default()).unwrap();
        assert_eq!(image.reset_pcs, [0x6000, 0xA000, 0xE000]);
        assert!(image.l1.contains(&(FLAGS, vec![0; 48])));
        // TRISC2 issues SETC16 37, 0x0104 rotated as the reference README
        // gives it (c8940412), then later its one program word, a NOP
        // (0x02000000 rotated left by two is 0x08000000).
        let code = code_of(&image, 2);
        let setc = code.iter().position(|w| *w == 0xc894_0412).unwrap();
        let nop = code.iter().position(|w| *w == 0x0800_0000).unwrap();
        assert!(setc < nop);
        // The other threads issue neither.
        assert!(!code_of(&image, 0).contains(&0xc894_0412));
        assert!(!code_of(&image, 1).contains(&0x0800_0000));
        // Every thread ends spinning on itself: `j .` is 0x0000006f.
        for t in 0..3 {
            assert_eq!(code_of(&image, t).last(), Some(&0x0000_006f));
        }
    }

    #[test]
    fn refuses_what_it_cannot_set_up_or_would_overwrite() {
        let mut v = vector();
        // Dst rows travel as L1 datums beside the code of TRISC1 or TRISC2,
        // as the Dst32b rows that hold them; all 1024 rows of 16 bits
        // (32 KiB) do not fit there. Dst16b rows 10 and 11 are the low
        // halves of Dst32b rows 2 and 3 (Dst.md), 128 bytes of FP32.
        let full = |rows: std::ops::Range<u16>| Dst {
            format: DstFormat::Bf16,
            rows: rows
                .map(|row| DstRow {
                    row,
                    cells: [row; 16].map(u32::from),
                })
                .collect(),
        };
        v.setup.dst = Some(full(0..1024));
        assert!(build(&v, &RunFacts::default())
            .unwrap_err()
            .0
            .contains("setup.dst"));
        v.setup.dst = Some(full(10..12));
        let image = build(&v, &RunFacts::default()).unwrap();
        let data = image.l1.iter().find(|(_, b)| b.len() == 128).unwrap();
        assert_eq!(data.0 % 16, 0);
        assert!(REGION.contains(&data.0) && REGION.contains(&(data.0 + 127)));
        for pc in image.reset_pcs {
            let (at, code) = image.l1.iter().find(|(at, _)| *at == pc).unwrap();
            let code = *at..*at + code.len() as u32;
            assert!(!code.contains(&data.0) && !code.contains(&(data.0 + 127)));
        }

        let mut v = vector();
        v.setup.config.push(ConfigWrite {
            addr: 1,
            value: 2,
            state: 1,
        });
        assert!(build(&v, &RunFacts::default())
            .unwrap_err()
            .0
            .contains("state 1"));

        // Data on the image's code: on Blackhole the image moves to the
        // first free 4 KiB-aligned window and says so in its reset PCs...
        let mut v = vector();
        v.setup.l1.push(L1Range {
            addr: 0xDFF0,
            bytes: vec![0; 32],
        });
        let moved = build(&v, &RunFacts::default()).unwrap();
        assert_eq!(moved.region.start, 0x1000);
        assert!(moved.region.end <= 0x1000 + 0x100 + 3 * CODE_BYTES);
        assert_eq!(moved.reset_pcs, [0x1100, 0x5100, 0x9100]);
        assert_eq!(moved.flags, [0x1000, 0x1010, 0x1020]);
        assert!(moved.l1.iter().any(|(a, _)| *a == 0x5100));
        // ...and on Wormhole B0 it is refused.
        v.arch = Arch::WormholeB0;
        assert!(build(&v, &RunFacts::default())
            .unwrap_err()
            .0
            .contains("overlaps"));
        v.arch = Arch::Blackhole;
        // The region ends after TRISC2's code: bytes just below the flags,
        // and past the end of that code, are the vector's; a write the run
        // makes on the code is not.
        let mut v = vector();
        v.setup.l1.push(L1Range {
            addr: REGION.start - 16,
            bytes: vec![0; 16],
        });
        let image = build(&v, &RunFacts::default()).unwrap();
        assert_eq!(image.region.start, FLAGS);
        let code2 = image.l1.iter().find(|(a, _)| *a == 0xE000).unwrap();
        assert_eq!(image.region.end, (0xE000 + code2.1.len() as u32 + 15) & !15);
        assert!(image.region.end < REGION.end);
        let on_code = 0xE000..0xE010;
        let after = u64::from(image.region.end)..u64::from(image.region.end) + 16;
        assert_ne!(
            build(&v, &RunFacts::touching(std::slice::from_ref(&on_code)))
                .unwrap()
                .region,
            image.region
        );
        assert_eq!(
            build(&v, &RunFacts::touching(std::slice::from_ref(&after)))
                .unwrap()
                .region,
            image.region
        );
    }

    #[test]
    fn a_program_too_long_for_its_code_area_is_refused() {
        let mut v = vector();
        v.program[0].run = vec![Step::Instruction(0x0200_0000); CODE_BYTES as usize / 4];
        assert!(build(&v, &RunFacts::default())
            .unwrap_err()
            .0
            .contains("TRISC2's code takes"));
    }
}
