//! The tt-umd bridge against ttsim: images built by `device`, run by the
//! Python runner in `engines/`, read back and compared.
//!
//! These tests need a ttsim build and the Python side:
//! - `libttsim.so` for Blackhole and Wormhole B0, from `TENSIX_TTSIM_BH` /
//!   `TENSIX_TTSIM_WH`, or else `../shared/ttsim/{bh,wh}/libttsim.so` beside
//!   the checkout (ttsim's releases provide them);
//! - `engines/.venv`, made by `tools/setup-engines.sh` (or `TENSIX_PYTHON`).
//!
//! Without them each test says so on standard error and passes, unless
//! `TENSIX_REQUIRE_ENGINES` is set (CI sets it), in which case it fails.

use std::path::{Path, PathBuf};
use tensix_harness::engine::umd::{RunnerCommand, Target, UmdEngine};
use tensix_harness::engine::{compare, Emulator, Engine, Verdict};
use tensix_harness::vector::Vector;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The ttsim engine for `arch` (`bh` or `wh`), or `None` when this machine
/// cannot run it (and engines are not required).
fn ttsim(arch: &str) -> Option<UmdEngine> {
    let var = format!("TENSIX_TTSIM_{}", arch.to_uppercase());
    let lib = ttsim_lib(arch);
    let command = RunnerCommand::from_env();
    let python_ok = std::env::var_os("TENSIX_PYTHON").is_some()
        || command.engines_dir.join(".venv/bin/python").exists();
    let missing = match (lib.exists(), python_ok) {
        (true, true) => return Some(UmdEngine::new(Target::Ttsim(lib), command)),
        (false, _) => format!(
            "{} does not exist: set {var} to a libttsim.so (ttsim's releases have them)",
            lib.display()
        ),
        (_, false) => "engines/.venv is missing: run tools/setup-engines.sh".to_string(),
    };
    if std::env::var_os("TENSIX_REQUIRE_ENGINES").is_some() {
        panic!("TENSIX_REQUIRE_ENGINES is set, but {missing}");
    }
    eprintln!("skipped: this test runs vectors on ttsim; {missing}");
    None
}

fn load(rel: &str) -> Vector {
    let root = workspace().join("conformance-vectors");
    Vector::load_under(&root, &root.join(rel)).unwrap()
}

/// A ttsim pack vector with its Dst setup taken away: the packer then reads
/// rows never written, which hold zero (ttsim `tensix_init`; the reference
/// README's device facts), and BF16 zero packs to the bytes `00 00`. So the
/// packed ranges must hold zeros, worked out without any engine.
fn zero_pack(rel: &str) -> Vector {
    let mut v = load(rel);
    v.setup.dst = None;
    for r in v.expect.l1.iter_mut().flatten() {
        r.bytes.fill(0);
    }
    v
}

/// Where the `libttsim.so` for `arch` (`bh` or `wh`) is looked for.
fn ttsim_lib(arch: &str) -> PathBuf {
    std::env::var_os(format!("TENSIX_TTSIM_{}", arch.to_uppercase()))
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join(format!("../shared/ttsim/{arch}/libttsim.so")))
}

/// Assert that `engine`'s run of `v` falls in class `want`: agree, differ,
/// refused, timed out or uncompared, as `run --engine` counts them.
fn assert_class(engine: &mut dyn Engine, v: &Vector, want: &str, what: &str) {
    let verdict = engine.run(v);
    let c = compare(v, &verdict);
    let class = match (&verdict, c.compared, c.mismatches.is_empty()) {
        (Verdict::Refused(_), _, _) => "refused",
        (Verdict::TimedOut(_), false, _) => "timed out",
        (_, false, _) => "uncompared",
        (_, true, true) => "agree",
        (_, true, false) => "differ",
    };
    let why: String = format!("{verdict:?} {c:?}").chars().take(600).collect();
    assert_eq!(class, want, "{what}: {why}");
}

#[test]
fn a_pack_of_zeros_agrees_and_one_wrong_byte_differs() {
    for (arch, rel) in [
        ("bh", "ttsim/blackhole/pack/d16-bf16-to-bf16-0082.yaml"),
        ("wh", "ttsim/wormhole_b0/pack/d16-bf16-to-bf16-0538.yaml"),
    ] {
        let Some(mut engine) = ttsim(arch) else {
            return;
        };
        let v = zero_pack(rel);
        assert!(
            v.expect.l1.as_ref().is_some_and(|r| !r.is_empty()),
            "{rel} packs nothing"
        );
        // The emulator agrees with the hand-made expectation...
        assert_class(
            &mut Emulator,
            &v,
            "agree",
            &format!("{rel} on the emulator"),
        );
        // ...and so does ttsim, through the image and the runner.
        assert_class(&mut engine, &v, "agree", &format!("{rel} on ttsim"));
        // One byte of the expectation wrong: both engines must see it.
        let mut wrong = v.clone();
        wrong.expect.l1.as_mut().unwrap()[0].bytes[1] ^= 0x40;
        assert_class(
            &mut Emulator,
            &wrong,
            "differ",
            &format!("{rel} with a wrong byte"),
        );
        assert_class(
            &mut engine,
            &wrong,
            "differ",
            &format!("{rel} with a wrong byte on ttsim"),
        );
    }
}

/// Pack vectors whose `Dst` the image loads (16-bit rows through the
/// `Dst32b` rows that hold them, and 32-bit rows) pack on ttsim as ttsim
/// recorded them; with every `Dst` value zeroed the same expectation must
/// fail, so the rows did reach the packer.
#[test]
fn dst_setup_reaches_the_packer_on_ttsim() {
    for (arch, rel) in [
        ("bh", "ttsim/blackhole/pack/d16-fp16-to-fp16-0013.yaml"),
        ("bh", "ttsim/blackhole/pack/d32-fp16-to-fp8-0285.yaml"),
        ("wh", "ttsim/wormhole_b0/pack/d16-fp16-to-fp16-0529.yaml"),
        ("wh", "ttsim/wormhole_b0/pack/d32-int32-to-int32-0572.yaml"),
    ] {
        let Some(mut engine) = ttsim(arch) else {
            return;
        };
        let v = load(rel);
        assert!(v.setup.dst.as_ref().is_some_and(|d| !d.rows.is_empty()));
        assert_class(&mut engine, &v, "agree", &format!("{rel} on ttsim"));
        let mut zeroed = v.clone();
        for r in &mut zeroed.setup.dst.as_mut().unwrap().rows {
            r.cells = [0; 16];
        }
        assert_class(
            &mut Emulator,
            &zeroed,
            "differ",
            &format!("{rel} with Dst zeroed"),
        );
        assert_class(
            &mut engine,
            &zeroed,
            "differ",
            &format!("{rel} with Dst zeroed on ttsim"),
        );
    }
}

/// SrcA and SrcB are read back on Blackhole (SrcB through SrcA, then into
/// Dst, and packed): every cell is compared, and one changed is a mismatch.
#[test]
fn unpack_vectors_leave_l1_and_src_as_ttsim_recorded_them() {
    let Some(mut engine) = ttsim("bh") else {
        return;
    };
    for rel in [
        "ttsim/blackhole/unpack/bf16-to-srca-0401.yaml",
        "ttsim/blackhole/unpack/bfp8b-to-srca-0407.yaml",
        "ttsim/blackhole/unpack/fp8-to-srcb-0494.yaml",
    ] {
        let v = load(rel);
        let c = compare(&v, &engine.run(&v));
        assert!(c.compared && c.mismatches.is_empty(), "{rel}: {c:?}");
        assert!(c.result_gaps.is_empty(), "{rel}: {c:?}");
        let mut changed = v.clone();
        let rows = match (changed.expect.srca.as_mut(), changed.expect.srcb.as_mut()) {
            (Some(rows), _) | (None, Some(rows)) => rows,
            (None, None) => panic!("{rel}: no Src rows expected"),
        };
        rows[0].cells[7] ^= 0x400;
        let c = compare(&changed, &engine.run(&changed));
        assert_eq!(c.mismatches.len(), 1, "{rel}: {c:?}");
    }
}

/// A vector that only sets `Dst` rows and expects them back unchanged: the
/// image loads them, runs nothing, and packs them back out.
fn dst_round_trip(arch: &str, format: &str, rows: &[(u16, [u32; 16])]) -> Vector {
    let name = if arch == "bh" {
        "blackhole"
    } else {
        "wormhole_b0"
    };
    let wide = format == "fp32" || format == "int32";
    let list: Vec<String> = rows
        .iter()
        .map(|(r, cells)| {
            let cells: Vec<String> = cells
                .iter()
                .map(|c| format!("{:#x}", if wide { *c } else { c & 0xffff }))
                .collect();
            format!("      - [{r}, [{}]]\n", cells.join(", "))
        })
        .collect();
    let mode = if wide { "32b" } else { "16b" };
    let dst = format!(
        "  dst:\n    mode: {mode}\n    format: {format}\n    rows:\n{}",
        list.concat()
    );
    Vector::from_yaml_str(
        &format!(
            "schema: tensix-vector/1\nname: dst-round-trip\narch: {name}\n\
             provenance: {{source: isa-spec}}\nsetup:\n{dst}program:\n  - thread: 2\n    \
             run: [0x02000000]\nexpect:\n  l1: []\n{dst}"
        ),
        "t.yaml",
    )
    .unwrap()
}

/// `Dst` is read back from ttsim: rows the vector sets come back as set on
/// both architectures, in 16- and 32-bit modes, and one wrong expected cell
/// is a difference naming `Dst`. Then ttsim's own unpack-to-Dst vectors,
/// whose rows only the unpacker wrote, agree row for row.
#[test]
fn dst_rows_read_back_from_ttsim() {
    let cells = |k: u32| -> [u32; 16] {
        std::array::from_fn(|c| {
            (0x3f80_0000 ^ (k << 20) ^ (c as u32 * 0x0101_0101)) | (c as u32 & 1) << 31
        })
    };
    for arch in ["bh", "wh"] {
        let Some(mut engine) = ttsim(arch) else {
            return;
        };
        for format in ["fp32", "bf16", "int32"] {
            let rows: Vec<(u16, [u32; 16])> = [0u16, 9, 63, 64, 130]
                .iter()
                .map(|&r| (r, cells(u32::from(r))))
                .collect();
            let v = dst_round_trip(arch, format, &rows);
            let what = format!("{arch} {format} Dst round trip");
            assert_class(&mut Emulator, &v, "agree", &what);
            let verdict = engine.run(&v);
            let c = compare(&v, &verdict);
            assert!(
                c.compared && c.mismatches.is_empty(),
                "{what} on ttsim: {c:?}"
            );
            assert!(
                !c.not_compared.iter().any(|n| n.contains("dst")),
                "{what}: {:?}",
                c.not_compared
            );
            let mut wrong = v.clone();
            wrong.expect.dst.as_mut().unwrap().rows[3].cells[5] ^= 0x0100;
            let c = compare(&wrong, &verdict);
            assert!(
                c.mismatches
                    .iter()
                    .any(|m| format!("{m:?}").contains("Dst")),
                "{what} with a wrong cell: {c:?}"
            );
        }
    }
    let Some(mut engine) = ttsim("bh") else {
        return;
    };
    for rel in [
        "ttsim/blackhole/unpack/fp32-to-dst-0506.yaml",
        "ttsim/blackhole/unpack/fp32-to-dst-tf32-0513.yaml",
        "ttsim/blackhole/unpack/int32-to-dst-0521.yaml",
    ] {
        let v = load(rel);
        assert!(v.expect.dst.as_ref().is_some_and(|d| !d.rows.is_empty()));
        assert_class(&mut engine, &v, "agree", rel);
        let mut wrong = v.clone();
        wrong.expect.dst.as_mut().unwrap().rows[0].cells[0] ^= 1;
        assert_class(
            &mut engine,
            &wrong,
            "differ",
            &format!("{rel} with a wrong cell"),
        );
    }
}

#[test]
fn a_simulator_that_stops_is_a_verdict_and_the_next_vector_runs() {
    let Some(mut engine) = ttsim("bh") else {
        return;
    };
    // ttsim v1.10.0 stops on a MOP whose inner loop has length 0.
    let stops = load("isa-spec/blackhole/mop/template1-outer-count-bug-is-unsupported.yaml");
    match engine.run(&stops) {
        Verdict::Refused(m) => assert!(m.contains("ERROR: Unimplemented"), "{m}"),
        other => panic!("expected ttsim to refuse: {other:?}"),
    }
    let v = zero_pack("ttsim/blackhole/pack/d16-bf16-to-bf16-0082.yaml");
    assert_class(&mut engine, &v, "agree", "the vector after the stop");
}

#[test]
fn a_deadlock_is_a_run_that_never_finishes() {
    let Some(mut engine) = ttsim("bh") else {
        return;
    };
    engine.timeout = std::time::Duration::from_secs(1);
    let v = load("isa-spec/blackhole/frontend/semwait-forever-is-a-deadlock.yaml");
    let verdict = engine.run(&v);
    assert!(matches!(verdict, Verdict::TimedOut(_)), "{verdict:?}");
    assert!(compare(&v, &verdict).compared);
}

/// A bundle run with the command its README gives, on ttsim, yields results
/// that `record --from` turns into the same vectors `record --engine`
/// writes directly.
#[test]
fn a_bundle_records_what_record_engine_records() {
    if ttsim("bh").is_none() {
        return;
    }
    let lib = ttsim_lib("bh");
    let python = RunnerCommand::from_env().python;
    let exe = env!("CARGO_BIN_EXE_tensix-harness");
    let tmp = std::env::temp_dir().join(format!("tensix-bundle-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let vectors = workspace().join("conformance-vectors");
    let picked = [
        "isa-spec/blackhole/adc/setadc-one-counter.yaml",
        "ttsim/blackhole/unpack/bf16-to-srca-0401.yaml",
    ];
    let bundle = tmp.join("bundle");
    let status = std::process::Command::new(exe)
        .args(["device", "bundle"])
        .args(picked.iter().map(|p| vectors.join(p)))
        .arg("-o")
        .arg(&bundle)
        .status()
        .unwrap();
    assert!(status.success());
    let readme = std::fs::read_to_string(bundle.join("README.md")).unwrap();
    assert!(readme.contains("PYTHONPATH=. python3 -m tensix_engine --target device:0 --bundle ."));
    // The README's command, with ttsim for the card.
    let status = std::process::Command::new(&python)
        .args(["-m", "tensix_engine", "--target"])
        .arg(format!("ttsim:{}", lib.display()))
        .args(["--bundle", "."])
        .env("PYTHONPATH", ".")
        .current_dir(&bundle)
        .status()
        .unwrap();
    assert!(status.success());
    let from = tmp.join("from");
    let status = std::process::Command::new(exe)
        .args(["record", "--from"])
        .arg(&bundle)
        .arg("-o")
        .arg(&from)
        .status()
        .unwrap();
    assert!(status.success());
    for p in picked {
        let direct = tmp.join("direct.yaml");
        let status = std::process::Command::new(exe)
            .args(["record", "--force", "--engine"])
            .arg(format!("ttsim:{}", lib.display()))
            .arg(vectors.join(p))
            .arg("-o")
            .arg(&direct)
            .status()
            .unwrap();
        assert!(status.success());
        let file = p.rsplit('/').next().unwrap();
        let a = std::fs::read_to_string(&direct).unwrap();
        let b = std::fs::read_to_string(from.join(file)).unwrap();
        assert_eq!(a, b, "{p}");
        assert!(a.contains("source: ttsim"), "{a}");
        // Without --force, an existing file is kept.
        let status = std::process::Command::new(exe)
            .args(["record", "--engine"])
            .arg(format!("ttsim:{}", lib.display()))
            .arg(vectors.join(p))
            .arg("-o")
            .arg(&direct)
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(2));
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Vector bytes where the image's code would sit: on Blackhole the image
/// moves (the TRISC reset-PC override registers) and those bytes are
/// compared like any others.
#[test]
fn an_image_moved_off_the_vectors_bytes_still_agrees() {
    let Some(mut engine) = ttsim("bh") else {
        return;
    };
    let mut v = zero_pack("ttsim/blackhole/pack/d16-bf16-to-bf16-0082.yaml");
    v.setup.l1.push(tensix_harness::vector::L1Range {
        addr: 0xA000,
        bytes: (0u8..64).collect(),
    });
    let verdict = engine.run(&v);
    let c = compare(&v, &verdict);
    assert!(c.compared && c.mismatches.is_empty(), "{verdict:?} {c:?}");
    let tensix_harness::engine::Verdict::Observed(obs) = &verdict else {
        unreachable!()
    };
    assert_eq!(&obs.l1[0xA000..0xA040], &(0u8..64).collect::<Vec<u8>>()[..]);
    assert!(!obs.l1_unobserved[0].contains(&0xA000));
}

/// `tensix-harness diff` on ttsim: a campaign that finds the catalogued
/// ZERO_RELU difference (job 293 of seed 1 on Wormhole B0), shrinks it to a
/// vector recording ttsim's verdict, passes with the catalogue and fails
/// without it, and resumes rather than repeats.
#[test]
fn a_diff_campaign_shrinks_a_difference_and_holds_it_to_the_catalogue() {
    let Some(_) = ttsim("wh") else { return };
    let lib = ttsim_lib("wh");
    let dir = std::env::temp_dir().join(format!("tensix-diff-campaign-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let known = dir.with_extension("known");
    std::fs::write(
        &known,
        "# engine arch jobs seed index entry\nttsim wormhole_b0 pack 1 293 relu-zero-negative-threshold\n",
    )
    .unwrap();
    let diff = |count: &str, extra: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_tensix-harness"));
        c.args(["diff", "--engine"])
            .arg(format!("ttsim:{}", lib.display()))
            .args(["--jobs", "pack", "--count", count, "--seed", "1", "-o"])
            .arg(&dir)
            .args(extra);
        c.output().unwrap()
    };
    let first = diff("300", &[]);
    let out = String::from_utf8_lossy(&first.stdout).to_string();
    assert_eq!(first.status.code(), Some(1), "uncatalogued: {out}");
    assert!(out.contains("NEW DIFFERENCE job 293"), "{out}");
    let shrunk = dir.join("differences/ttsim-wormhole_b0-pack-1-293.yaml");
    let v = Vector::load(&shrunk).expect("the shrunk difference is a vector");
    assert_eq!(
        v.expect.fault.map(|f| f.kind),
        Some(tensix_harness::vector::FaultKind::UndefinedBehavior),
        "it records ttsim's verdict"
    );
    assert!(v.provenance.detail.contains("job 293"));
    let lines = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 300);
    // Again, with the catalogue: nothing reruns, and the difference is known.
    let again = diff("300", &["--known", known.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&again.stdout).to_string();
    assert_eq!(again.status.code(), Some(0), "{out}");
    assert!(!out.contains("NEW DIFFERENCE"), "{out}");
    let lines_after = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    assert_eq!(lines, lines_after, "a finished campaign is not run again");
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("relu-zero-negative-threshold"), "{report}");
    // Another campaign in the same directory needs --force.
    let other = diff("301", &[]);
    assert_eq!(other.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&other.stderr).contains("--force"));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&known);
}

/// The engine gate holds a vector listed in `--known-differences` to its
/// entry: listed and differing holds, unlisted and differing does not, and a
/// listed vector that agrees does not either (the list must shrink).
#[test]
fn the_engine_gate_holds_listed_differences_and_refuses_stale_ones() {
    let Some(_) = ttsim("bh") else { return };
    let lib = ttsim_lib("bh");
    let vectors = workspace().join("conformance-vectors/isa-spec/blackhole/pack");
    // ttsim clamps at TF32 precision in this mode, the page at full precision.
    let differs = vectors.join("relu-max-threshold-fp32-full-precision.yaml");
    let agrees = vectors.join("read-intf-relative-to-unaligned-start-row.yaml");
    let list = std::env::temp_dir().join(format!("tensix-known-vectors-{}", std::process::id()));
    let gate = |vector: &Path, listed: &[&str]| {
        let text: String = listed
            .iter()
            .map(|n| format!("ttsim isa-spec/blackhole/pack/{n} some-entry\n"))
            .collect();
        std::fs::write(&list, text).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tensix-harness"))
            .args(["run", "--engine"])
            .arg(format!("ttsim:{}", lib.display()))
            .arg("--known-differences")
            .arg(&list)
            .arg(vector)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
        )
    };
    let (code, out) = gate(&differs, &[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("DIFFER"), "{out}");
    let (code, out) = gate(&differs, &["relu-max-threshold-fp32-full-precision"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("KNOWN") && out.contains("some-entry"), "{out}");
    let (code, out) = gate(&agrees, &["read-intf-relative-to-unaligned-start-row"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("LISTED-AGREES"), "{out}");
    let _ = std::fs::remove_file(&list);
}

/// ttsim v1.10.0's MAX_THRESHOLD_RELU keeps an FP32 datum above the threshold
/// only below TF32 precision: exactly the four such datums of the isa-spec
/// vector differ, each coming back as it went in (0x40400001, 0x40400100,
/// 0x40401fff and 0x40400002 at datums 0, 1, 4 and 12), and the other twelve
/// agree with the page.
#[test]
fn ttsim_clamps_fp32_at_tf32_precision_in_relu_mode_3() {
    let Some(mut eng) = ttsim("bh") else { return };
    let v = load("isa-spec/blackhole/pack/relu-max-threshold-fp32-full-precision.yaml");
    let Verdict::Observed(o) = eng.run(&v) else {
        panic!("ttsim did not complete the vector")
    };
    let datum = |i: usize| {
        let at = 0x10010 + 4 * i;
        u32::from_le_bytes(o.l1[at..at + 4].try_into().unwrap())
    };
    let expected = &v.expect.l1.as_ref().unwrap()[0].bytes;
    let mut differing = Vec::new();
    for i in 0..16 {
        let want = u32::from_le_bytes(expected[4 * i..4 * i + 4].try_into().unwrap());
        if datum(i) != want {
            differing.push((i, datum(i)));
        }
    }
    assert_eq!(
        differing,
        vec![
            (0, 0x4040_0001),
            (1, 0x4040_0100),
            (4, 0x4040_1fff),
            (12, 0x4040_0002)
        ]
    );
}
