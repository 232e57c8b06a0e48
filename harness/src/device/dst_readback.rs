//! Reading `Dst` back on a device: after the vector's programs, TRISC2
//! packs the `Dst32b` rows the vector's `expect.dst` names into L1 scratch,
//! where the runner's L1 read-back finds them; after them, the tiles into
//! which [`super::src_readback`] moved the `SrcA`/`SrcB` banks it expects.
//!
//! No engine reached through tt-umd gives a direct view of `Dst`: the
//! RISC-V window onto it (`Dst.md`, "RISCV access to Dst") is not modelled
//! by ttsim v1.10.0, as the [`super::dst_loader`] notes. The packer reads
//! `Dst` on every architecture, and with `Read_32b_data` and FP32 both as
//! its intermediate and its L1 format the early and late conversions are
//! identities (`Packers/FormatConversion.md`: FP32 to FP32 "Identity",
//! denormals and NaN preserved; ttsim `tensix_pacr` applies only
//! `dst_decode_fp32`). So each `Dst32b` cell reaches L1 as its `Load32`
//! value, and `Store32` of that value is the cell's storage bits, both
//! halves: the high half is one `DstBits` row and the low half the row
//! eight further on (`Dst.md`), so a 16-bit row is read back as the half
//! of the `Dst32b` row that holds it.
//!
//! Before packing, TRISC2 puts back to zero every Config word (state 0) and
//! every one of its ThreadConfig registers that the vector's run leaves
//! non-zero on the emulator or that its setup writes, so the packer sees the
//! reset state plus the readback's own programming (tt-llk's tile pack, as
//! [`crate::llk::pack`] writes it: four faces of 16 rows per 64-row tile).
//!
//! What the packer cannot show: a row that is not valid reads as zero
//! (ttsim `read_dst32b`), while the vector schema's `Dst` is the storage
//! bits. Rows a run writes are valid, and ttsim and silicon reset every
//! row valid, so this differs only where a run clears rows (`ZEROACC`).

pub use super::src_readback::Source;
use super::src_readback::{moved_word, SrcPlan};
use super::Refusal;
use crate::golden::{Edge, Format, PackJob, Relu};
use crate::llk::{self, PackForm};
use crate::vector::{Dst, DstFormat, Step};
use std::ops::Range;
use tensix_emu::state::dst::{adj32, DstAddressing, DstView, COLS, ROWS, ROWS_32B};
use tensix_emu::state::src::ROWS as SRC_ROWS;
use tensix_emu::{Arch, Machine};

/// `Dst32b` rows per tile pack: four faces of 16.
const TILE_ROWS: u32 = 64;
/// 64-row tiles of `Dst32b`.
pub const TILES: u16 = (ROWS_32B as u32 / TILE_ROWS) as u16;
/// L1 bytes of one tile's rows: 16 FP32 datums a row.
pub const TILE_BYTES: u32 = TILE_ROWS * COLS as u32 * 4;

/// For every storage row, the `Dst32b` row that holds it at reset
/// addressing, the one the readback packs with.
fn holders(arch: Arch) -> Vec<u16> {
    let mut out = vec![0; ROWS];
    for q in 0..ROWS_32B as u32 {
        let s = adj32(arch, DstAddressing::default(), q);
        out[s % ROWS] = q as u16;
        out[(s + 8) % ROWS] = q as u16;
    }
    out
}

/// Where the readback puts `Dst` and which rows it packs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DstReadback {
    /// L1 address of the first tile's rows.
    pub at: u32,
    /// 64-row tiles of `Dst32b` packed, in order; tile `tiles[j]` lands at
    /// `at + j * TILE_BYTES`.
    pub tiles: Vec<u16>,
    /// The `Dst` addressing in force when the vector's run ends, under which
    /// its `expect.dst` rows are named.
    pub addressing: DstAddressing,
    /// The `SrcA`/`SrcB` banks moved into further tiles of `Dst` and packed
    /// after `tiles`, and those that cannot be.
    pub src: SrcPlan,
}

impl DstReadback {
    /// The tiles holding every row `dst` names, under `addressing`.
    pub fn tiles_for(arch: Arch, addressing: DstAddressing, dst: &Dst) -> Vec<u16> {
        let holders = holders(arch);
        let view = dst.format.view();
        let mut tiles: Vec<u16> = dst
            .rows
            .iter()
            .flat_map(|r| {
                let s = view.storage_row(arch, addressing, u32::from(r.row));
                let halves = if view.is_32b() { 2 } else { 1 };
                (0..halves).map(move |h| s + 8 * h)
            })
            .map(|s| holders[s % ROWS] / TILE_ROWS as u16)
            .collect();
        tiles.sort_unstable();
        tiles.dedup();
        tiles
    }

    /// Every tile packed, in L1 order: the `Dst` rows', then each `Src`
    /// bank's.
    fn packed(&self) -> impl Iterator<Item = u16> + '_ {
        self.tiles
            .iter()
            .copied()
            .chain(self.src.reads.iter().map(|r| r.tile))
    }

    /// The L1 bytes the readback writes.
    pub fn window(&self) -> Range<u32> {
        self.at..self.at + self.packed().count() as u32 * TILE_BYTES
    }

    /// TRISC2's steps: clear the Config words `config` and its ThreadConfig
    /// registers `thread_regs`, move the `Src` banks into `Dst`, then pack
    /// each tile. Nothing when there is nothing to pack.
    pub fn steps(
        &self,
        arch: Arch,
        config: &[u32],
        thread_regs: &[u8],
    ) -> Result<Vec<Step>, Refusal> {
        if self.packed().next().is_none() {
            return Ok(Vec::new());
        }
        let mut steps: Vec<Step> = config
            .iter()
            .map(|&addr32| Step::Cfg { addr32, value: 0 })
            .collect();
        for &reg in thread_regs {
            steps.push(Step::Instruction(super::setc16(reg, 0)));
        }
        steps.extend(self.src.steps(arch));
        let mut written = std::collections::BTreeMap::new();
        for (j, tile) in self.packed().enumerate() {
            let job = PackJob {
                arch,
                dst: DstFormat::Fp32,
                src: Format::Fp32,
                out: Format::Fp32,
                unsigned: false,
                fp8_e4m3: false,
                read_raw: false,
                round_10b: false,
                relu: Relu::NONE,
                edge: Edge::NONE,
                faces: 4,
                face_rows: 16,
                tile,
                dst_offset: 0,
                l1_addr: self.at + j as u32 * TILE_BYTES,
                l1_acc: false,
            };
            job.check()
                .map_err(|e| Refusal(format!("the Dst readback's pack: {e}")))?;
            let p = llk::pack(&job, PackForm::Instructions);
            for w in p.config {
                if written.insert(w.addr, w.value) != Some(w.value) {
                    steps.push(Step::Cfg {
                        addr32: w.addr,
                        value: w.value,
                    });
                }
            }
            if j == 0 {
                for w in p.thread_config.iter().filter(|w| w.thread == 2) {
                    steps.push(Step::Instruction(super::setc16(w.reg, w.value)));
                }
            }
            steps.extend(p.program.run);
        }
        Ok(steps)
    }

    /// The `Src` banks packed into `l1` (all of L1 after the run), as FP32
    /// words, and those not read.
    pub fn read_src(&self, l1: &[u8]) -> Option<ObservedSrc> {
        let first = self.at as usize + self.tiles.len() * TILE_BYTES as usize;
        let mut seen = ObservedSrc {
            banks: Vec::new(),
            unread: self.src.unread.clone(),
        };
        for (j, r) in self.src.reads.iter().enumerate() {
            let at = first + j * TILE_BYTES as usize;
            let bytes = l1.get(at..at + TILE_BYTES as usize)?;
            let mut rows = Box::new([[0u32; COLS]; SRC_ROWS]);
            for (row, words) in rows.iter_mut().zip(fp32_rows(bytes)) {
                *row = words;
            }
            seen.banks.push(SeenBank {
                source: r.source,
                bank: r.bank,
                words: rows,
            });
        }
        Some(seen)
    }

    /// The rows packed into `l1` (all of L1 after the run).
    pub fn read(&self, arch: Arch, l1: &[u8]) -> Option<ObservedDst> {
        let mut seen = ObservedDst {
            arch,
            addressing: self.addressing,
            bits: Default::default(),
            read: vec![false; ROWS],
        };
        let end = self.at + self.tiles.len() as u32 * TILE_BYTES;
        let bytes = l1.get(self.at as usize..end as usize)?;
        let rows = self
            .tiles
            .iter()
            .flat_map(|&t| u32::from(t) * TILE_ROWS..(u32::from(t) + 1) * TILE_ROWS);
        for (q, row) in rows.zip(fp32_rows(bytes)) {
            let s = adj32(arch, DstAddressing::default(), q);
            seen.bits.write32_row(s, &DstView::Fp32.store32_row(&row));
            seen.read[s % ROWS] = true;
            seen.read[(s + 8) % ROWS] = true;
        }
        Some(seen)
    }
}

/// The rows of 16 little-endian FP32 words the packer wrote into `bytes`.
fn fp32_rows(bytes: &[u8]) -> impl Iterator<Item = [u32; COLS]> + '_ {
    bytes.chunks_exact(COLS * 4).map(|row| {
        std::array::from_fn(|c| {
            let v = &row[4 * c..4 * c + 4];
            u32::from_le_bytes([v[0], v[1], v[2], v[3]])
        })
    })
}

/// `SrcA` and `SrcB` as an engine showed them: per bank read back, the
/// FP32 words the packer wrote for it (a cell `c` moved whole is `c << 13`),
/// and the banks not read, with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservedSrc {
    pub banks: Vec<SeenBank>,
    pub unread: Vec<(Source, u8, String)>,
}

/// One bank read back: its rows as FP32 words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeenBank {
    pub source: Source,
    pub bank: u8,
    pub words: Box<[[u32; COLS]; SRC_ROWS]>,
}

impl ObservedSrc {
    /// Both banks of both registers of a machine, as the emulator engine
    /// shows them.
    pub fn of_machine(m: &Machine) -> ObservedSrc {
        let mut banks = Vec::new();
        for (source, reg) in [(Source::A, &m.srca), (Source::B, &m.srcb)] {
            for (b, bank) in reg.banks.iter().enumerate() {
                banks.push(SeenBank {
                    source,
                    bank: b as u8,
                    words: Box::new(bank.rows().map(|row| row.map(moved_word))),
                });
            }
        }
        ObservedSrc {
            banks,
            unread: Vec::new(),
        }
    }

    /// Row `row` of `source` bank `bank` as FP32 words, if it was read
    /// back; otherwise why not.
    pub fn row(&self, source: Source, bank: u8, row: u8) -> Result<[u32; COLS], String> {
        if let Some(seen) = self
            .banks
            .iter()
            .find(|b| b.source == source && b.bank == bank)
        {
            return seen
                .words
                .get(usize::from(row))
                .copied()
                .ok_or_else(|| format!("a bank has {SRC_ROWS} rows"));
        }
        Err(self
            .unread
            .iter()
            .find(|(s, b, _)| *s == source && *b == bank)
            .map_or_else(|| "not asked for".into(), |(_, _, why)| why.clone()))
    }
}

/// `Dst` as an engine showed it: the storage bits of the rows read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservedDst {
    pub arch: Arch,
    /// The addressing the vector's row numbers are taken under.
    pub addressing: DstAddressing,
    /// The storage bits, where `read` says they were read back.
    pub bits: Box<tensix_emu::state::dst::Dst>,
    /// Per storage row, whether it was read back.
    pub read: Vec<bool>,
}

impl ObservedDst {
    /// All of a machine's `Dst`, as the emulator engine shows it.
    pub fn of_machine(m: &Machine) -> ObservedDst {
        ObservedDst {
            arch: m.arch(),
            addressing: m.dst_addressing(),
            bits: Box::new(m.dst.clone()),
            read: vec![true; ROWS],
        }
    }

    /// `Dst` row `row` in `view`, as [`Machine::read_dst_row`] reads it, if
    /// the storage rows holding it were read back.
    pub fn row(&self, view: DstView, row: u32) -> Option<[u32; COLS]> {
        let s = view.storage_row(self.arch, self.addressing, row);
        let halves = if view.is_32b() { 2 } else { 1 };
        (0..halves)
            .all(|h| self.read[(s + 8 * h) % ROWS])
            .then(|| self.bits.read_row(self.arch, self.addressing, view, row))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{plan_readback, RunFacts};
    use super::*;
    use crate::engine::emulator_facts;
    use crate::run;
    use crate::vector::{ConfigWrite, DstRow, ThreadConfigWrite, Vector};
    use tensix_emu::regs::{CfgField, ThreadCfgField};
    use tensix_emu::{Limits, ThreadProgram};

    /// Run `v` on the emulator, then the readback on thread 2 of the same
    /// machine; every row of every tile packed must read back as the
    /// machine's `Dst` held it before the readback.
    fn check(v: &Vector) {
        let run: RunFacts = emulator_facts(v).unwrap();
        let Ok(Some((rb, steps))) = plan_readback(v, &run, &run.touched) else {
            panic!("{}: no readback planned", v.name)
        };
        // Dst as ttsim and silicon leave it at reset: every row valid (see
        // the loader), so a 16-bit row's Dst32b partner reads as stored.
        let mut before = run::prepare(v).unwrap();
        (0..ROWS).for_each(|r| before.dst.set_valid(r, true));
        let (m, fault) = run::execute(v, &before);
        assert_eq!(fault, None, "{}", v.name);
        let mut after = m.clone();
        after
            .run(
                &[ThreadProgram { thread: 2, steps }],
                Limits::steps(1 << 20),
            )
            .unwrap_or_else(|f| panic!("{}: the readback faults: {f}", v.name));
        let seen = rb.read(v.arch, after.l1.bytes()).unwrap();
        let want = v.expect.dst.as_ref().unwrap();
        let view = want.format.view();
        for r in &want.rows {
            // As the emulator reads the row under the addressing the run
            // ends with (for a corpus vector, what it expects).
            assert_eq!(
                seen.row(view, u32::from(r.row)),
                Some(m.read_dst_row(view, u32::from(r.row))),
                "{}: Dst row {}",
                v.name,
                r.row
            );
        }
        // Beyond the rows asked for: both storage rows of every Dst32b row
        // the tiles hold, as the emulator's Dst has them.
        let read: Vec<usize> = (0..ROWS).filter(|&r| seen.read[r]).collect();
        assert_eq!(read.len(), rb.tiles.len() * 128, "{}", v.name);
        for r in read {
            assert_eq!(seen.bits.row(r), m.dst.row(r), "{} storage row {r}", v.name);
        }
        // The readback's own L1 writes stay in its window.
        let w = rb.window();
        for write in after.l1.log().iter().skip(m.l1.log().len()) {
            assert!(
                w.contains(&write.addr),
                "{}: the readback wrote {:#x}",
                v.name,
                write.addr
            );
        }
    }

    #[test]
    fn every_corpus_vector_that_expects_dst_reads_back_on_the_emulator() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance-vectors");
        let known = crate::gate::KnownFailures::load(&root.join("known-failures.yaml")).unwrap();
        let files = crate::gate::collect(&[root]).unwrap();
        let mut n = 0;
        for f in files {
            let v = Vector::load_under(&f.root, &f.path).unwrap();
            let asks = v.expect.dst.as_ref().is_some_and(|d| !d.rows.is_empty());
            if asks && v.expect.fault.is_none() {
                check(&v);
                // A corpus vector not listed as failing holds in the
                // emulator, so what is read back is also what it expects.
                if known.reason(&v.name).is_none() {
                    assert_eq!(
                        run::run_vector(&v).unwrap().mismatches,
                        vec![],
                        "{}",
                        v.name
                    );
                }
                n += 1;
            }
        }
        assert!(n >= 10, "only {n} corpus vectors expect Dst rows");
    }

    fn word(arch: Arch, fields: &[(CfgField, u32)]) -> ConfigWrite {
        let mut addr = 0;
        let mut value = 0;
        for (f, v) in fields {
            let f = f.on(arch).unwrap();
            addr = u32::from(f.addr32);
            value = f.insert(value, *v);
        }
        ConfigWrite {
            addr,
            value,
            state: 0,
        }
    }

    /// A vector whose Config and TRISC2 ThreadConfig would spoil any pack:
    /// ReLU zeroing negatives, an edge mask clearing every column, TRISC2
    /// on Config state 1, Blackhole's Dst address remapping.
    fn hostile(arch: Arch, format: DstFormat, rows: &[u16]) -> Vector {
        let mut v = Vector::from_yaml_str(
            &format!(
                "schema: tensix-vector/1\nname: hostile\narch: {}\nprovenance: {{source: isa-spec}}\n\
                 program:\n  - thread: 2\n    run: [0x02000000]\n",
                arch.name()
            ),
            "t.yaml",
        )
        .unwrap();
        use CfgField as C;
        v.setup.config = vec![
            word(arch, &[(C::STACC_RELU_ApplyRelu, 1)]),
            word(arch, &[(C::PCK_EDGE_OFFSET_SEC0_mask, 0)]),
            word(arch, &[(C::PCK_DEST_RD_CTRL_Read_int8, 1)]),
        ];
        if arch == Arch::Blackhole {
            v.setup
                .config
                .push(word(arch, &[(C::DEST_ACCESS_CFG_remap_addrs, 1)]));
        }
        let state = ThreadCfgField::CFG_STATE_ID_StateID.on(arch).unwrap();
        v.setup.thread_config.push(ThreadConfigWrite {
            thread: 2,
            reg: state.addr32,
            value: state.insert(0, 1) as u16,
        });
        let specials = [
            0x8000_0000,
            1,
            0x8000_0001,
            0x007f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7f80_0001,
            0x7fc0_0000,
            0xffff_ffff,
            0xbf80_0000,
            0x0000_1fff,
            0x8000_e000,
            0x4040_0001,
            0xc2f6_e979,
            0x3f80_0000,
            0x0080_0000,
        ];
        let wide = format.view().is_32b();
        let cells = |k: u16| -> [u32; COLS] {
            std::array::from_fn(|c| {
                let v = specials[(c + usize::from(k)) % 16] ^ u32::from(k);
                if wide {
                    v
                } else {
                    v >> 16
                }
            })
        };
        let dst = Dst {
            format,
            rows: rows
                .iter()
                .map(|&row| DstRow {
                    row,
                    cells: cells(row),
                })
                .collect(),
        };
        v.setup.dst = Some(dst.clone());
        v.expect.dst = Some(dst);
        v
    }

    #[test]
    fn what_the_vector_leaves_in_config_does_not_reach_the_readback() {
        for arch in [Arch::Blackhole, Arch::WormholeB0] {
            check(&hostile(arch, DstFormat::Fp32, &[0, 1, 63, 64, 200, 511]));
            check(&hostile(arch, DstFormat::Int32, &[5, 300]));
            check(&hostile(
                arch,
                DstFormat::Bf16,
                &[0, 7, 8, 9, 16, 1000, 1023],
            ));
            check(&hostile(arch, DstFormat::Fp16, &[3, 520]));
            check(&hostile(arch, DstFormat::Raw16, &[15, 24, 777]));
        }
    }

    #[test]
    fn the_tiles_are_those_holding_the_rows_asked_for() {
        let d = |format, rows: &[u16]| Dst {
            format,
            rows: rows
                .iter()
                .map(|&row| DstRow {
                    row,
                    cells: [0; COLS],
                })
                .collect(),
        };
        let a = DstAddressing::default();
        let wh = Arch::WormholeB0;
        // Dst32b rows 0..64 are tile 0; 511 is in tile 7.
        assert_eq!(
            DstReadback::tiles_for(wh, a, &d(DstFormat::Fp32, &[0, 63, 511])),
            vec![0, 7]
        );
        // Dst16b rows 0..8 are the high halves of Dst32b rows 0..8 and
        // rows 8..16 their low halves (Dst.md); row 128 is in Dst32b row 64.
        assert_eq!(
            DstReadback::tiles_for(wh, a, &d(DstFormat::Bf16, &[0, 15])),
            vec![0]
        );
        assert_eq!(
            DstReadback::tiles_for(wh, a, &d(DstFormat::Bf16, &[128])),
            vec![1]
        );
    }
}
