//! A bundle: a self-contained folder that carries vectors to a machine with
//! a card (or a simulator), needing only Python and tt-umd there.
//!
//! ```text
//! DIR/README.md          the one command to run
//! DIR/manifest.json      {"schema": "tensix-bundle/1", "vectors": [...]}
//! DIR/vectors/NNNN.yaml  each vector, as given
//! DIR/images/NNNN.json   its program image, as the runner's `run` request
//! DIR/tensix_engine/     the runner
//! DIR/results/NNNN.json  written by the runner: its reply, the date, the engine
//! ```
//!
//! `tensix-harness record --from DIR` turns the results into vectors.

use super::Image;
use crate::output;
use crate::vector::Vector;
use serde_json::{json, Value};
use std::path::Path;

const RUNNER: [(&str, &str); 3] = [
    (
        "__init__.py",
        include_str!("../../../engines/tensix_engine/__init__.py"),
    ),
    (
        "__main__.py",
        include_str!("../../../engines/tensix_engine/__main__.py"),
    ),
    (
        "runner.py",
        include_str!("../../../engines/tensix_engine/runner.py"),
    ),
];

/// The runner's `run` request for an image (the same JSON the harness sends
/// it directly).
pub fn run_request(image: &Image, timeout_seconds: f64) -> Value {
    let l1: Vec<Value> = image
        .l1
        .iter()
        .map(|(a, b)| json!([a, crate::engine::umd::hex(b)]))
        .collect();
    json!({
        "op": "run",
        "arch": image.arch.to_string(),
        "l1_fill": image.l1_fill,
        "l1": l1,
        "reset_pcs": image.reset_pcs,
        "flags": image.flags,
        "region": [image.region.start, image.region.end],
        "timeout": timeout_seconds,
    })
}

/// Write a bundle of `vectors` into `dir` (created; an existing bundle is
/// replaced only with `force`). Each vector is paired with its image, or
/// with the reason it has none. Returns how many have images.
pub fn write(
    dir: &Path,
    vectors: &[(Vector, Result<Image, super::Refusal>)],
    timeout_seconds: f64,
    force: bool,
) -> Result<usize, String> {
    let manifest = dir.join("manifest.json");
    if manifest.exists() && !force {
        return Err(format!(
            "{} holds a bundle already; pass --force to replace it",
            dir.display()
        ));
    }
    for sub in ["vectors", "images", "tensix_engine", "results"] {
        std::fs::create_dir_all(dir.join(sub)).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut entries = Vec::new();
    let mut with_image = 0;
    for (i, (v, image)) in vectors.iter().enumerate() {
        let stem = format!("{:04}", i + 1);
        let vector = format!("vectors/{stem}.yaml");
        output::write_new(&dir.join(&vector), v.to_yaml(), true)?;
        let mut entry = json!({
            "name": v.name,
            "vector": vector,
            "result": format!("results/{stem}.json"),
        });
        match image {
            Ok(image) => {
                let path = format!("images/{stem}.json");
                let text = run_request(image, timeout_seconds).to_string();
                output::write_new(&dir.join(&path), text, true)?;
                entry["image"] = json!(path);
                with_image += 1;
            }
            Err(r) => entry["refused"] = json!(r.0),
        }
        entries.push(entry);
    }
    for (name, text) in RUNNER {
        output::write_new(&dir.join("tensix_engine").join(name), text, true)?;
    }
    output::write_new(
        &dir.join("README.md"),
        readme(with_image, vectors.len()),
        true,
    )?;
    let manifest_text = json!({"schema": "tensix-bundle/1", "vectors": entries}).to_string();
    output::write_new(&manifest, manifest_text, true)?;
    Ok(with_image)
}

fn readme(with_image: usize, total: usize) -> String {
    format!(
        "# A tensix-harness bundle\n\n\
         {with_image} of {total} vectors have a program image for one Tensix tile \
         (`manifest.json` gives the reason for the others). On a machine with Python 3 \
         and tt-umd (`pip install tt-umd`), from this folder:\n\n\
         ```sh\n\
         PYTHONPATH=. python3 -m tensix_engine --target device:0 --bundle .\n\
         ```\n\n\
         `--target` also takes `ttsim:PATH/libttsim.so` or `wolfpine[:DIR]`, and \
         `--tile X,Y` picks another worker tile. Each vector runs in a runner process of \
         its own and leaves `results/NNNN.json`. Bring the folder back and run \
         `tensix-harness record --from DIR -o OUT` to turn the results into vectors.\n"
    )
}
