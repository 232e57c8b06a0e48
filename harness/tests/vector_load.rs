//! Loading vectors from files and directories.

use std::path::{Path, PathBuf};

use tensix_harness::vector::{default_name, load_dir, ErrorKind, Vector};

/// A fresh, empty directory under the system temp directory.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tensix-vector-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
    std::fs::write(path, text).expect("write");
}

fn minimal(name: Option<&str>) -> String {
    let name = name.map(|n| format!("name: {n}\n")).unwrap_or_default();
    format!("schema: tensix-vector/1\n{name}arch: blackhole\nprovenance: {{source: derived}}\nprogram: []\n")
}

#[test]
fn default_names_drop_the_extension() {
    assert_eq!(
        default_name(Path::new("conformance-vectors/a/b.yaml")),
        "conformance-vectors/a/b"
    );
    assert_eq!(default_name(Path::new("./a/b.yml")), "a/b");
    assert_eq!(default_name(Path::new("a/b")), "a/b");
}

#[test]
fn load_names_a_vector_by_its_path() {
    let dir = scratch("load");
    let file = dir.join("pack/one.yaml");
    write(&file, &minimal(None));
    let v = Vector::load(&file).expect("loads");
    assert_eq!(v.name, format!("{}/pack/one", dir.display()));

    let e = Vector::load(dir.join("missing.yaml")).expect_err("no such file");
    assert_eq!((e.kind, e.line, e.column), (ErrorKind::Io, 1, 1), "{e}");
    assert!(
        e.to_string().contains("missing.yaml:1:1: cannot read file"),
        "{e}"
    );

    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, b"schema: tensix-vector/1\nname: \xc3\x28\n").expect("write");
    let e = Vector::load(&bad).expect_err("not UTF-8");
    assert_eq!(
        (e.kind, e.line, e.column),
        (ErrorKind::Encoding, 2, 7),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn load_dir_reads_every_yaml_file_below_the_root() {
    let dir = scratch("dir");
    write(&dir.join("b/two.yaml"), &minimal(Some("two")));
    write(&dir.join("a/one.yaml"), &minimal(None));
    write(&dir.join("a/notes.txt"), "not a vector");
    let vectors = load_dir(&dir).expect("all valid");
    let names: Vec<&str> = vectors.iter().map(|v| v.name.as_str()).collect();
    // In path order; unnamed vectors are named relative to the root.
    assert_eq!(names, ["a/one", "two"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn load_dir_reports_every_bad_file_and_reused_name() {
    let dir = scratch("dup");
    write(&dir.join("a.yaml"), &minimal(Some("same")));
    write(&dir.join("b.yaml"), &minimal(Some("same")));
    write(
        &dir.join("c.yaml"),
        "schema: tensix-vector/1\narch: grayskull\n",
    );
    write(&dir.join("d/same.yaml"), &minimal(None));
    write(&dir.join("e.yaml"), &minimal(Some("d/same")));
    let errors = load_dir(&dir).expect_err("duplicates and a bad file");
    let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 3, "{shown:#?}");

    assert_eq!(
        (errors[0].line, errors[0].column, errors[0].field.as_str()),
        (2, 7, "name")
    );
    assert_eq!(errors[0].kind, ErrorKind::Conflict);
    assert!(
        shown[0].contains("b.yaml:2:7: name: name `same` is already used by"),
        "{}",
        shown[0]
    );
    assert!(shown[0].ends_with("a.yaml"), "{}", shown[0]);

    assert!(
        shown[1].contains("c.yaml:2:7: arch: expected one of blackhole, wormhole_b0"),
        "{}",
        shown[1]
    );
    assert!(
        shown[2].contains("e.yaml:2:7: name: name `d/same` is already used by"),
        "{}",
        shown[2]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Instruction words may be written in the text form `decode` prints; they
/// encode for the vector's architecture, and a bad one is located.
#[test]
fn program_words_may_be_written_as_text() {
    let words =
        "schema: tensix-vector/1\nname: t\narch: blackhole\nprovenance: {source: isa-spec}\n\
                 program:\n  - thread: 2\n    run:\n      - 0x5e803c00\n      - 0x51800241\n";
    let text = words
        .replace("0x5e803c00", "'SETADCXX x_end2=0xf cnt_set_mask=4'")
        .replace(
            "0x51800241",
            "\"SETADCXY bit_mask=1 ch0_x=1 ch0_y=1 cnt_set_mask=4\"",
        );
    let a = Vector::from_yaml_str(words, "w.yaml").unwrap();
    let b = Vector::from_yaml_str(&text, "t.yaml").unwrap();
    assert_eq!(a, b);
    let bad = text.replace("x_end2=0xf", "x_end2=0xfffff");
    let e = Vector::from_yaml_str(&bad, "bad.yaml").unwrap_err();
    assert_eq!((e.line, e.column), (8, 9), "{e}");
    assert_eq!(e.field, "program[0].run[0]");
    assert!(e.message.contains("does not fit"), "{e}");
}
