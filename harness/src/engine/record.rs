//! `record`: turn what an engine did with a vector into a new vector whose
//! `expect` is the engine's result and whose provenance names the engine.
//!
//! Only what the engine observed is recorded: L1 (as the 16-byte blocks that
//! differ from the setup image, outside the program image's own region), the
//! `Dst`, `SrcA` and `SrcB` rows the vector expects where the engine read
//! them back, or the fault it stopped with. Parts it cannot read back are
//! left out of `expect` (absent means "not checked") and named in
//! `provenance.detail`.

use super::{EngineInfo, Verdict};
use crate::device::dst_readback::{ObservedSrc, Source as Src};
use crate::device::src_readback::moved_cells;
use crate::vector::{Dst, DstRow, Expect, ExpectedFault, L1Range, Source, SrcRow, Vector};

/// The vector `v` with `expect` replaced by what `verdict` observed.
/// `date` is the day of the run (`YYYY-MM-DD`). A refusal or a time-out
/// records nothing: its reason is the error.
pub fn recorded(
    v: &Vector,
    engine: &EngineInfo,
    verdict: &Verdict,
    date: &str,
) -> Result<Vector, String> {
    let source = match engine.kind.as_str() {
        "ttsim" => Source::Ttsim,
        "wolfpine" => Source::Wolfpine,
        "device" => Source::Device,
        other => return Err(format!("{other} results are not recorded as vectors")),
    };
    let (expect, unobserved) = match verdict {
        Verdict::Observed(obs) => {
            let mut setup = vec![v.setup.l1_fill; obs.l1.len()];
            for r in &v.setup.l1 {
                if let Some(d) = setup.get_mut(r.addr as usize..r.end() as usize) {
                    d.copy_from_slice(&r.bytes);
                }
            }
            let skipped = |block: usize| {
                obs.l1_unobserved
                    .iter()
                    .any(|r| (r.start as usize) < block + 16 && block < r.end as usize)
            };
            let mut l1: Vec<L1Range> = Vec::new();
            for (i, (now, was)) in obs.l1.chunks(16).zip(setup.chunks(16)).enumerate() {
                let addr = i * 16;
                if now == was || skipped(addr) {
                    continue;
                }
                match l1.last_mut() {
                    Some(r) if r.end() == addr as u64 => r.bytes.extend_from_slice(now),
                    _ => l1.push(L1Range {
                        addr: addr as u32,
                        bytes: now.to_vec(),
                    }),
                }
            }
            let regions: Vec<String> = obs
                .l1_unobserved
                .iter()
                .map(|r| format!("L1 {:#x}..{:#x} (the program image)", r.start, r.end))
                .collect();
            let mut unobserved = vec!["the ADCs".to_string()];
            let dst = match (&v.expect.dst, &obs.dst) {
                (None, _) => None,
                (Some(want), Ok(seen)) => {
                    let view = want.format.view();
                    let rows: Option<Vec<DstRow>> = want
                        .rows
                        .iter()
                        .map(|r| {
                            seen.row(view, u32::from(r.row))
                                .map(|cells| DstRow { row: r.row, cells })
                        })
                        .collect();
                    if rows.is_none() {
                        unobserved.push("some of the Dst rows".into());
                    }
                    rows.map(|rows| Dst {
                        format: want.format,
                        rows,
                    })
                }
                (Some(_), Err(why)) => {
                    unobserved.push(format!("Dst ({why})"));
                    None
                }
            };
            let srca = src_rows(Src::A, &v.expect.srca, &obs.src, &mut unobserved);
            let srcb = src_rows(Src::B, &v.expect.srcb, &obs.src, &mut unobserved);
            unobserved.extend(regions);
            (
                Expect {
                    l1: Some(l1),
                    dst,
                    srca,
                    srcb,
                    ..Expect::default()
                },
                unobserved,
            )
        }
        Verdict::Stopped { kind, .. } => (
            Expect {
                fault: Some(ExpectedFault { kind: *kind }),
                ..Expect::default()
            },
            vec!["the state after the fault".to_string()],
        ),
        Verdict::Refused(m) => return Err(format!("the engine refused: {m}")),
        Verdict::TimedOut(m) => return Err(format!("the engine timed out: {m}")),
    };
    let mut out = v.clone();
    out.expect = expect;
    out.provenance.source = source;
    out.provenance.detail = format!(
        "recorded by tensix-harness record from {} on {}, {date}; not observed: {}",
        v.name,
        engine.detail,
        unobserved.join("; ")
    );
    Ok(out)
}

/// The `SrcA` or `SrcB` rows `want` names, as the engine showed them:
/// every one, or none (and the reason in `unobserved`). A row read back
/// with any of the low 13 bits set holds no 19-bit datum and is not one.
fn src_rows(
    source: Src,
    want: &Option<Vec<SrcRow>>,
    seen: &Result<Box<ObservedSrc>, String>,
    unobserved: &mut Vec<String>,
) -> Option<Vec<SrcRow>> {
    let want = want.as_ref()?;
    let which = source.name();
    let seen = match seen {
        Ok(s) => s,
        Err(why) => {
            unobserved.push(format!("{which} ({why})"));
            return None;
        }
    };
    let rows: Result<Vec<SrcRow>, String> = want
        .iter()
        .map(|r| {
            let cells = moved_cells(&seen.row(source, r.bank, r.row)?)
                .map_err(|_| format!("row {} read back with its low 13 bits set", r.row))?;
            Ok(SrcRow { cells, ..*r })
        })
        .collect();
    rows.map_err(|why| unobserved.push(format!("{which} ({why})")))
        .ok()
}

/// Today's date in UTC, `YYYY-MM-DD` (the civil-from-days algorithm of
/// Howard Hinnant's `chrono`-compatible date algorithms).
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_date(secs / 86_400)
}

fn civil_date(days: u64) -> String {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Observation;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        // 2000-03-01 is day 11017; 2026-11-24 is day 20781.
        assert_eq!(civil_date(11_017), "2000-03-01");
        assert_eq!(civil_date(20_781), "2026-11-24");
    }

    fn vector() -> Vector {
        Vector::from_yaml_str(
            "schema: tensix-vector/1\nname: x\narch: blackhole\nprovenance: {source: isa-spec}\n\
             setup:\n  l1_fill: 0x5a\n  l1: [{addr: 0x100, hex: '0102'}]\n\
             program: []\nexpect:\n  l1: []\n  adc: [{thread: 2, unit: pack, ch0: [1, 0, 0, 0], ch1: [0, 0, 0, 0]}]\n",
            "x.yaml",
        )
        .unwrap()
    }

    #[test]
    fn records_changed_blocks_outside_the_image_and_nothing_unobserved() {
        let v = vector();
        let mut l1 = vec![0x5a; 1536 * 1024];
        l1[0x100] = 1;
        l1[0x101] = 2;
        // The run wrote two adjacent blocks and one inside the image region.
        l1[0x2000..0x2020].fill(0x11);
        l1[0x6000] = 0x13;
        let verdict = Verdict::Observed(Observation {
            l1,
            l1_unobserved: vec![crate::device::REGION],
            dst: Err("not read back".into()),
            src: Err("not read back".into()),
        });
        let info = EngineInfo {
            kind: "ttsim".into(),
            detail: "ttsim:/x".into(),
        };
        let r = recorded(&v, &info, &verdict, "2026-11-24").unwrap();
        let l1 = r.expect.l1.as_ref().unwrap();
        assert_eq!(l1.len(), 1);
        assert_eq!(l1[0].addr, 0x2000);
        assert_eq!(l1[0].bytes, vec![0x11; 32]);
        assert_eq!(r.expect.adc, None, "ADCs were not observed");
        assert_eq!(r.provenance.source, Source::Ttsim);
        assert!(r.provenance.detail.contains("2026-11-24"));
        assert!(r.provenance.detail.contains("0x5f00..0x12000"));
        // What is written parses back to the same vector.
        assert_eq!(Vector::from_yaml_str(&r.to_yaml(), "y.yaml").unwrap(), r);
    }

    #[test]
    fn the_dst_rows_asked_for_are_recorded_as_the_engine_showed_them() {
        use crate::device::dst_readback::ObservedDst;
        use crate::vector::DstFormat;
        use tensix_emu::state::dst::DstView;
        let mut v = vector();
        v.expect.dst = Some(Dst {
            format: DstFormat::Bf16,
            rows: vec![DstRow {
                row: 9,
                cells: [0; 16],
            }],
        });
        // The engine's Dst: BF16 row 9 holds 1.0 (0x3f80) in column 2.
        let mut m = tensix_emu::Machine::new(tensix_emu::Arch::Blackhole);
        let mut cells = [0; 16];
        cells[2] = 0x3f80;
        m.write_dst_row(DstView::Bf16, 9, &cells).unwrap();
        let info = EngineInfo {
            kind: "ttsim".into(),
            detail: "ttsim:/x".into(),
        };
        let observed = |dst| {
            Verdict::Observed(Observation {
                l1: vec![0x5a; 1536 * 1024],
                l1_unobserved: Vec::new(),
                dst,
                src: Err("not read back".into()),
            })
        };
        let r = recorded(&v, &info, &observed(Ok(ObservedDst::of_machine(&m))), "d").unwrap();
        let d = r.expect.dst.unwrap();
        assert_eq!(
            (d.format, d.rows.len(), d.rows[0].row),
            (DstFormat::Bf16, 1, 9)
        );
        assert_eq!(d.rows[0].cells, cells);
        assert!(
            !r.provenance.detail.contains("Dst"),
            "{}",
            r.provenance.detail
        );
        // Not read back: no expect.dst, and the detail says why.
        let r = recorded(&v, &info, &observed(Err("no room".into())), "d").unwrap();
        assert_eq!(r.expect.dst, None);
        assert!(
            r.provenance.detail.contains("Dst (no room)"),
            "{}",
            r.provenance.detail
        );
    }

    #[test]
    fn refusals_record_nothing() {
        let info = EngineInfo {
            kind: "ttsim".into(),
            detail: String::new(),
        };
        let e = recorded(&vector(), &info, &Verdict::Refused("no".into()), "d").unwrap_err();
        assert!(e.contains("refused: no"));
    }

    #[test]
    fn the_src_rows_asked_for_are_recorded_as_the_engine_showed_them() {
        use crate::device::dst_readback::ObservedSrc;
        let mut v = vector();
        v.expect.srca = Some(vec![SrcRow {
            bank: 1,
            row: 33,
            cells: [0; 16],
        }]);
        let mut m = tensix_emu::Machine::new(tensix_emu::Arch::Blackhole);
        m.srca.write(1, 33, 6, 0x5_1234);
        let info = EngineInfo {
            kind: "wolfpine".into(),
            detail: "w".into(),
        };
        let observed = |src| {
            Verdict::Observed(super::super::Observation {
                l1: vec![0x5a; 1536 * 1024],
                l1_unobserved: Vec::new(),
                dst: Err("not read back".into()),
                src,
            })
        };
        let mut seen = ObservedSrc::of_machine(&m);
        let r = recorded(&v, &info, &observed(Ok(Box::new(seen.clone()))), "d").unwrap();
        let rows = r.expect.srca.unwrap();
        assert_eq!((rows.len(), rows[0].bank, rows[0].row), (1, 1, 33));
        assert_eq!(rows[0].cells[6], 0x5_1234);
        assert!(!r.provenance.detail.contains("srca ("));
        // A word no move could write is not recorded as a datum.
        seen.banks[1].words[33][0] |= 1;
        let r = recorded(&v, &info, &observed(Ok(Box::new(seen))), "d").unwrap();
        assert_eq!(r.expect.srca, None);
        assert!(
            r.provenance.detail.contains("low 13 bits"),
            "{}",
            r.provenance.detail
        );
        let r = recorded(&v, &info, &observed(Err("no image".into())), "d").unwrap();
        assert_eq!(r.expect.srca, None);
        assert!(r.provenance.detail.contains("srca (no image)"));
    }
}
