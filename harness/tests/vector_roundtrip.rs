//! Generated vectors survive `to_yaml` → `from_yaml_str` unchanged.

use std::collections::HashSet;
use std::hash::Hash;

use proptest::array::{uniform16, uniform9};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use tensix_harness::vector::{
    AdcChannel, AdcExpect, AdcUnit, Arch, ConfigWrite, Dst, DstFormat, DstRow, Expect,
    ExpectedFault, FaultKind, GprWrite, L1Range, MopConfig, Provenance, Setup, Source, SrcRow,
    Step, ThreadConfigWrite, ThreadProgram, Vector,
};

/// Keeps the first item for each key.
fn dedup_by<T, K: Hash + Eq>(items: Vec<T>, key: impl Fn(&T) -> K) -> Vec<T> {
    let mut seen = HashSet::new();
    items.into_iter().filter(|i| seen.insert(key(i))).collect()
}

/// Names, tags and details: identifiers, arbitrary Unicode (control
/// characters included) and YAML-significant punctuation.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9_/.+-]{0,24}",
        any::<String>(),
        r#"[ -~\t\n\r"'\\#:,\[\]{}&*!|>%@`]{0,24}"#,
        select(vec![
            "true", "null", "~", "0x10", "017", "1e3", ".inf", "-", "y", "No", " a "
        ])
        .prop_map(String::from),
    ]
}

fn thread() -> impl Strategy<Value = u8> {
    0u8..=2
}

fn l1_ranges(arch: Arch) -> impl Strategy<Value = Vec<L1Range>> {
    let size = arch.l1_size() as u64;
    (0..size, vec((0u64..600, vec(any::<u8>(), 0..40)), 0..4))
        .prop_map(move |(base, parts)| {
            // Disjoint ranges from `base` upward; whatever would leave L1 is dropped.
            let mut at = base;
            let mut ranges = Vec::new();
            for (gap, bytes) in parts {
                let addr = at + gap;
                let end = addr + bytes.len() as u64;
                if addr >= size || end > size {
                    break;
                }
                ranges.push(L1Range {
                    addr: addr as u32,
                    bytes,
                });
                at = end;
            }
            ranges
        })
        .prop_shuffle()
}

fn dst() -> impl Strategy<Value = Dst> {
    (
        select(DstFormat::ALL.to_vec()),
        vec((any::<u16>(), uniform16(any::<u32>())), 0..4),
    )
        .prop_map(|(format, rows)| {
            let mode = format.mode();
            let rows = rows
                .into_iter()
                .map(|(row, cells)| DstRow {
                    row: row % mode.rows(),
                    cells: cells.map(|c| c & mode.max_cell()),
                })
                .collect();
            Dst {
                format,
                rows: dedup_by(rows, |r: &DstRow| r.row),
            }
        })
}

fn src_rows() -> impl Strategy<Value = Vec<SrcRow>> {
    vec((0u8..=1, 0u8..=63, uniform16(0u32..=0x7ffff)), 0..4).prop_map(|rows| {
        let rows = rows
            .into_iter()
            .map(|(bank, row, cells)| SrcRow { bank, row, cells })
            .collect();
        dedup_by(rows, |r: &SrcRow| (r.bank, r.row))
    })
}

fn setup(arch: Arch) -> impl Strategy<Value = Setup> {
    (
        any::<u8>(),
        l1_ranges(arch),
        // Word indices within the architecture's Config and ThreadConfig.
        vec(
            (
                0..tensix_emu::regs::config_words(arch) as u32,
                any::<u32>(),
                0u8..=1,
            ),
            0..4,
        ),
        vec(
            (
                thread(),
                0..tensix_emu::regs::thread_config_words(arch) as u8,
                any::<u16>(),
            ),
            0..4,
        ),
        vec((thread(), 0u8..=63, any::<u32>()), 0..3),
        vec((thread(), uniform9(any::<u32>())), 0..3),
        proptest::option::of(dst()),
        src_rows(),
        src_rows(),
    )
        .prop_map(
            |(l1_fill, l1, config, thread_config, gprs, mop, dst, srca, srcb)| Setup {
                l1_fill,
                l1,
                config: config
                    .into_iter()
                    .map(|(addr, value, state)| ConfigWrite { addr, value, state })
                    .collect(),
                thread_config: thread_config
                    .into_iter()
                    .map(|(thread, reg, value)| ThreadConfigWrite { thread, reg, value })
                    .collect(),
                gprs: gprs
                    .into_iter()
                    .map(|(thread, index, value)| GprWrite {
                        thread,
                        index,
                        value,
                    })
                    .collect(),
                mop_config: dedup_by(
                    mop.into_iter()
                        .map(|(thread, words)| MopConfig { thread, words })
                        .collect(),
                    |m: &MopConfig| m.thread,
                ),
                dst,
                srca,
                srcb,
            },
        )
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => any::<u32>().prop_map(Step::Instruction),
        1 => (any::<u32>(), any::<u32>()).prop_map(|(addr32, value)| Step::Cfg { addr32, value }),
        1 => (0u32..=63, any::<u32>()).prop_map(|(index, value)| Step::Gpr { index, value }),
    ]
}

fn program() -> impl Strategy<Value = Vec<ThreadProgram>> {
    vec((thread(), vec(step(), 0..8)), 0..4).prop_map(|threads| {
        let threads = threads
            .into_iter()
            .map(|(thread, run)| ThreadProgram { thread, run })
            .collect();
        dedup_by(threads, |t: &ThreadProgram| t.thread)
    })
}

fn channel() -> impl Strategy<Value = AdcChannel> {
    (
        0..=AdcChannel::MAX_X,
        0..=AdcChannel::MAX_Y,
        0..=0xffu32,
        0..=0xffu32,
    )
        .prop_map(|(x, y, z, w)| AdcChannel { x, y, z, w })
}

fn expect(arch: Arch) -> impl Strategy<Value = Expect> {
    use proptest::option::of;
    (
        of(select(FaultKind::ALL.to_vec()).prop_map(|kind| ExpectedFault { kind })),
        of(l1_ranges(arch)),
        of(dst()),
        of(src_rows()),
        of(src_rows()),
        of(vec(
            (
                thread(),
                select(AdcUnit::ALL.to_vec()),
                channel(),
                channel(),
            ),
            0..4,
        )),
    )
        .prop_map(|(fault, l1, dst, srca, srcb, adc)| Expect {
            fault,
            l1,
            dst,
            srca,
            srcb,
            adc: adc.map(|adc| {
                let adc = adc
                    .into_iter()
                    .map(|(thread, unit, ch0, ch1)| AdcExpect {
                        thread,
                        unit,
                        ch0,
                        ch1,
                    })
                    .collect();
                dedup_by(adc, |a: &AdcExpect| (a.thread, a.unit))
            }),
        })
}

fn vector() -> impl Strategy<Value = Vector> {
    select(Arch::ALL.to_vec()).prop_flat_map(|arch| {
        (
            text().prop_filter("names are not empty", |n| !n.is_empty()),
            select(Source::ALL.to_vec()),
            text(),
            vec(text(), 0..4),
            setup(arch),
            program(),
            expect(arch),
        )
            .prop_map(
                move |(name, source, detail, tags, setup, program, expect)| Vector {
                    name,
                    arch,
                    provenance: Provenance { source, detail },
                    tags,
                    setup,
                    program,
                    expect,
                },
            )
    })
}

/// Rewrites every `0x…` integer of `yaml` in decimal.
fn hex_to_decimal(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len());
    let mut rest = yaml;
    while let Some(i) = rest.find("0x") {
        out.push_str(&rest[..i]);
        let digits = &rest[i + 2..];
        let len = digits
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(digits.len());
        let value = u64::from_str_radix(&digits[..len], 16).expect("hex literal");
        out.push_str(&value.to_string());
        rest = &digits[len..];
    }
    out.push_str(rest);
    out
}

proptest! {
    #[test]
    fn parse_serialize_parse_is_identity(v in vector()) {
        let yaml = v.to_yaml();
        let back = Vector::from_yaml_str(&yaml, "generated.yaml")
            .map_err(|e| TestCaseError::fail(format!("{e}\n{yaml}")))?;
        prop_assert_eq!(&back, &v);
        prop_assert_eq!(back.to_yaml(), yaml);
    }

    #[test]
    fn decimal_and_hex_integers_parse_alike(v in vector()) {
        // Names and free text could hold `0x`; keep them out of the rewrite.
        let v = Vector {
            name: "generated".to_string(),
            provenance: Provenance { detail: String::new(), ..v.provenance },
            tags: Vec::new(),
            ..v
        };
        let decimal = hex_to_decimal(&v.to_yaml());
        let back = Vector::from_yaml_str(&decimal, "decimal.yaml")
            .map_err(|e| TestCaseError::fail(format!("{e}\n{decimal}")))?;
        prop_assert_eq!(back, v);
    }
}

#[test]
fn a_missing_name_defaults_to_the_path() {
    let yaml =
        "schema: tensix-vector/1\narch: blackhole\nprovenance: {source: derived}\nprogram: []\n";
    let v = Vector::from_yaml_str(yaml, "conformance-vectors/isa/pack/x-0001.yaml")
        .expect("minimal vector");
    assert_eq!(v.name, "conformance-vectors/isa/pack/x-0001");
    assert_eq!(v.setup, Setup::default());
    assert_eq!(v.expect, Expect::default());
    assert_eq!(v.provenance.detail, "");
    // The written form names it explicitly and reads back the same.
    let written = v.to_yaml();
    assert!(
        written.contains("name: conformance-vectors/isa/pack/x-0001\n"),
        "{written}"
    );
    assert_eq!(
        Vector::from_yaml_str(&written, "elsewhere.yaml").expect("round trip"),
        v
    );
}

#[test]
fn optional_forms_are_accepted() {
    let yaml = r#"
schema: tensix-vector/1
name: forms
arch: wormhole_b0
provenance:
  source: isa-spec
tags: []
setup:
  l1:
    - addr: 4096
      hex: "00 11
        22 33"
    - addr: 0x2000
      hex: >
        aabb
        ccdd
    - addr: 0x3000
      hex: AaBb
  config:
    - [1, 10, 1]
    - [0x2, 0xffffffff]
  dst: {mode: 32b, format: int32, rows: [[511, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xffffffff]]]}
program:
  - thread: 0
    run: []
expect:
  fault: null
  srca: []
"#;
    let v = Vector::from_yaml_str(yaml, "forms.yaml").expect("valid");
    assert_eq!(v.setup.l1_fill, 0);
    assert_eq!(
        v.setup.l1[0],
        L1Range {
            addr: 0x1000,
            bytes: vec![0x00, 0x11, 0x22, 0x33]
        }
    );
    assert_eq!(v.setup.l1[1].bytes, vec![0xaa, 0xbb, 0xcc, 0xdd]);
    assert_eq!(v.setup.l1[2].bytes, vec![0xaa, 0xbb]);
    assert_eq!(
        v.setup.config,
        vec![
            ConfigWrite {
                addr: 1,
                value: 10,
                state: 1
            },
            ConfigWrite {
                addr: 2,
                value: 0xffff_ffff,
                state: 0
            },
        ]
    );
    assert_eq!(
        v.setup.dst.as_ref().map(|d| d.rows[0].cells[15]),
        Some(0xffff_ffff)
    );
    assert_eq!(v.expect.fault, None);
    assert_eq!(v.expect.srca, Some(Vec::new()));
    assert_eq!(v.expect.l1, None);
    assert_eq!(
        Vector::from_yaml_str(&v.to_yaml(), "forms.yaml").expect("round trip"),
        v
    );
}

#[test]
fn expected_faults_are_written_and_read() {
    for kind in FaultKind::ALL {
        let yaml = format!(
            "schema: tensix-vector/1\nname: f\narch: blackhole\nprovenance: {{source: fuzz}}\nprogram: []\nexpect:\n  fault: {{kind: {kind}}}\n"
        );
        let v = Vector::from_yaml_str(&yaml, "f.yaml").expect("valid");
        assert_eq!(v.expect.fault, Some(ExpectedFault { kind }));
        assert!(v
            .to_yaml()
            .contains(&format!("  fault: {{kind: {kind}}}\n")));
    }
}
