//! `tensix-harness run` against hostile input and against runs that could
//! pass green on nothing. Every hostile file is made here, in a scratch
//! directory; each run is held to 256 MiB of address space (`ulimit -v`)
//! and must finish (a hang is killed after a minute and fails the test).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

fn scratch(name: &str) -> common::Scratch {
    common::scratch("hostile", name)
}

use common::corpus;

const GOOD: &str = "isa-spec/blackhole/adc/addrcrxy-returns-to-cr.yaml";

/// A vector that fails: the good one, renamed, expecting other ADC values.
fn failing(name: &str) -> String {
    let text = corpus(GOOD);
    let text = text.replacen(
        "name: isa-spec/blackhole/adc/addrcrxy-returns-to-cr",
        &format!("name: {name}"),
        1,
    );
    let i = text.find("ch0: [").expect("the vector expects ADCs");
    let mut out = text.clone();
    out.replace_range(i..i + 7, "ch0: [9");
    assert_ne!(out, text);
    out
}

/// Run the harness with `args` under a 256 MiB address-space limit; the
/// exit code and everything it printed.
fn harness(args: &[&str], cwd: &Path) -> (i32, String) {
    let mut line = format!(
        "ulimit -v 262144; exec '{}'",
        env!("CARGO_BIN_EXE_tensix-harness")
    );
    for a in args {
        line.push_str(&format!(" '{a}'"));
    }
    let mut child = Command::new("sh")
        .args(["-c", &line])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("tensix-harness {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn links_back_to_the_directory_are_one_clear_error() {
    let d = scratch("loop");
    std::fs::write(d.join("v.yaml"), corpus(GOOD)).unwrap();
    std::os::unix::fs::symlink(".", d.join("a")).unwrap();
    std::os::unix::fs::symlink(".", d.join("b")).unwrap();
    let (code, text) = harness(&["run", "."], &d);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("reached through a link"), "{text}");
    assert!(!text.contains("already used"), "{text}");
}

#[test]
fn devices_and_fifos_named_like_vectors_are_refused_unread() {
    let d = scratch("dev");
    std::fs::write(d.join("v.yaml"), corpus(GOOD)).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.yaml")).unwrap();
    let fifo = d.join("f.yaml");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let (code, text) = harness(&["run", "."], &d);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("zero.yaml") && text.contains("not a regular file"),
        "{text}"
    );
    assert!(
        text.contains("f.yaml") && text.contains("not a regular file"),
        "{text}"
    );
    // repro reads its artifact the same way.
    let (code, text) = harness(&["repro", "pack_tile_diff", "/dev/zero", "-o", "out"], &d);
    assert_eq!(code, 2, "{text}");
    assert!(!d.join("out").exists() || std::fs::read_dir(d.join("out")).unwrap().count() == 0);
}

#[test]
fn a_gate_that_runs_nothing_does_not_hold() {
    let d = scratch("nothing");
    let (code, text) = harness(&["run", "."], &d);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("runs nothing does not hold"), "{text}");

    std::fs::write(d.join("v.yaml"), corpus(GOOD)).unwrap();
    let (code, text) = harness(&["run", "--filter", "no-such-vector", "."], &d);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("--filter `no-such-vector`"), "{text}");

    let (code, text) = harness(&["run", "--known-failures", "/nonexistent", "."], &d);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("/nonexistent: no such file"), "{text}");
}

#[test]
fn yml_and_upper_case_files_are_read_and_fail_like_any_other() {
    for name in ["bad.yml", "bad.YAML", "bad.Yml"] {
        let d = scratch("yml");
        std::fs::write(d.join(name), failing("mine")).unwrap();
        let (code, text) = harness(&["run", "."], &d);
        assert_eq!(code, 1, "{name}: {text}");
        assert!(text.contains("FAIL mine"), "{name}: {text}");
    }
}

#[test]
fn the_known_failures_list_holds_below_its_directory_and_must_not_go_stale() {
    let d = scratch("known");
    std::fs::create_dir_all(d.join("sub/deeper")).unwrap();
    std::fs::write(d.join("sub/deeper/bad.yaml"), failing("x/bad")).unwrap();
    std::fs::write(d.join("known-failures.yaml"), "x/bad: \"a reason\"\n").unwrap();
    // From the top and from any directory below it, the list is found.
    for dir in [".", "sub", "sub/deeper"] {
        let (code, text) = harness(&["run", dir], &d);
        assert_eq!(code, 0, "{dir}: {text}");
        assert!(text.contains("conformance gate: holds"), "{dir}: {text}");
    }
    // An entry that names no vector: the whole directory ran, so it is stale.
    std::fs::write(
        d.join("known-failures.yaml"),
        "x/bad: \"a reason\"\ngone/*: \"old\"\n",
    )
    .unwrap();
    let (code, text) = harness(&["run", "."], &d);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("`gone/*` names no vector"), "{text}");
}

#[test]
fn reports_never_replace_links_devices_or_a_users_file() {
    let d = scratch("junit");
    std::fs::write(d.join("v.yaml"), corpus(GOOD)).unwrap();
    std::fs::write(
        d.join("mine.xml"),
        "<testsuite name=\"tensix-conformance\"/>",
    )
    .unwrap();
    std::os::unix::fs::symlink("mine.xml", d.join("link.xml")).unwrap();
    for (target, force) in [
        ("mine.xml", false),
        ("link.xml", true),
        ("/dev/full", true),
        ("/dev/stdout", true),
    ] {
        let mut args = vec!["run", "--junit", target];
        if force {
            args.push("--force");
        }
        args.push("v.yaml");
        let (code, text) = harness(&args, &d);
        assert_eq!(code, 2, "{target}: {text}");
        // Refused before the gate ran: no table, no verdict.
        assert!(!text.contains("conformance gate"), "{target}: {text}");
    }
    assert_eq!(
        std::fs::read_to_string(d.join("mine.xml")).unwrap(),
        "<testsuite name=\"tensix-conformance\"/>"
    );
    assert!(std::fs::symlink_metadata(d.join("link.xml"))
        .unwrap()
        .file_type()
        .is_symlink());
    let (code, text) = harness(&["run", "--junit", "new.xml", "v.yaml"], &d);
    assert_eq!(code, 0, "{text}");
    assert!(std::fs::read_to_string(d.join("new.xml"))
        .unwrap()
        .contains("<testsuite"));
}

#[test]
fn a_name_with_a_terminal_escape_is_printed_escaped() {
    let d = scratch("escape");
    // YAML's `\e` escape: the name holds a real ESC.
    std::fs::write(d.join("v.yaml"), failing("\"evil\\e[2Jname\"")).unwrap();
    let (code, text) = harness(&["run", "."], &d);
    assert_eq!(code, 1, "{text}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("evil\\u{1b}[2Jname"), "{text}");
}

#[test]
fn the_table_generator_leaves_the_tables_alone_when_its_input_is_missing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let table = root.join("emu/src/isa/generated.rs");
    let before = std::fs::read(&table).unwrap();
    let d = scratch("gen");
    let out = Command::new("python3")
        .arg(root.join("tools/gen-tables.py"))
        .arg(d.join("no-such-data"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(std::fs::read(&table).unwrap(), before);
    assert!(!root.join("emu/src/isa/generated.rs.tmp").exists());
}

#[test]
fn bad_addresses_and_reused_names_are_located_and_junit_counts_add_up() {
    let d = scratch("located");
    let good = corpus(GOOD);
    std::fs::write(d.join("b.yaml"), &good).unwrap();
    std::fs::write(d.join("c.yaml"), &good).unwrap();
    let bad = good
        .replacen("  config: []\n", "  config:\n    - [99999, 0x1]\n", 1)
        .replacen(
            "name: isa-spec/blackhole/adc/addrcrxy-returns-to-cr",
            "name: other",
            1,
        );
    assert_ne!(bad, good);
    std::fs::write(d.join("a.yaml"), bad).unwrap();
    let (code, text) = harness(&["run", "--junit", "r.xml", "."], &d);
    assert_eq!(code, 2, "{text}");
    // Blackhole has 224 Config words (ttsim sim.h TENSIX_CFG_STATE_SIZE 56,
    // four words each); the value sits on line 12, column 8.
    assert!(
        text.contains("a.yaml:12:8: setup.config[0]: addr must be 0..=223, found 99999"),
        "{text}"
    );
    assert!(
        text.contains(
            "c.yaml:2:7: name: `isa-spec/blackhole/adc/addrcrxy-returns-to-cr` is already used by"
        ),
        "{text}"
    );
    let xml = std::fs::read_to_string(d.join("r.xml")).unwrap();
    assert!(
        xml.contains("tests=\"3\" failures=\"0\" errors=\"2\""),
        "{xml}"
    );
    assert_eq!(xml.matches("<testcase").count(), 3, "{xml}");
    for f in ["a.yaml", "c.yaml"] {
        assert!(xml.contains(&format!("name=\"./{f}\"")), "{xml}");
    }
}
