//! Networks in and out of Python: `akushu model export` and `model import` of shipped models
//! (the paper's MLP, an MLP on planes with a softmax, CNNs with and without a value head and
//! one blind to the last moves) give a model directory whose evaluator rates every position
//! as the original's does; `scripts/akushu_model.py`'s numpy forward pass matches akushu's
//! evaluator on the same positions; and an export loaded and written back by the script
//! imports to the same outputs again. Positions: every game of `tests/fixtures/sgf` and two
//! seeded random games (captures, ko), written as a dataset split the script reads.
//!
//! The Python half needs python3 with numpy (`sh scripts/install-python.sh`), so it is
//! marked ignored: a machine without numpy reports it as not run rather than passed. `cargo
//! test --release -- --ignored` runs it; there, without numpy it says why and skips, and
//! with `AKUSHU_REQUIRE_PYTHON` set (`.ci/run` installs numpy) it fails. The Rust round trip
//! needs nothing and always runs.

use std::path::{Path, PathBuf};

use akushu::dataset::format::SplitWriter;
use akushu::dataset::{Position, Split};
use akushu::net::NetPruner;
use akushu::net::encode::NetInput;
use akushu::rules::NN;
use akushu::util::npz::{Array, Values, read_npz, write_npz};

mod common;

/// The shipped models the round trips cover: each kind of network the export names.
const MODELS: &[&str] = &[
    "models/default",
    "models/mlp-planes",
    "models/cnn-human-5x32-gpu2",
    "models/cnn-human-5x32-value",
    "models/cnn-human-5x32-nohist",
];

/// The largest difference allowed between two evaluators' badness or value.
const TOLERANCE: f64 = 1e-5;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The positions every comparison uses.
fn positions() -> Vec<Position> {
    let (mut out, _) = akushu::net::data::sgf_positions(&[repo("tests/fixtures/sgf")]);
    assert!(out.len() > 40, "only {} fixture positions", out.len());
    out.extend(akushu::net::data::synthetic_split(2, 7, Split::Train));
    out
}

/// What akushu's evaluator says of each position: badness of every point and the side to
/// move's win probability (NaN without a value head).
fn rate(model: &Path, positions: &[Position]) -> Vec<([f32; NN], f32)> {
    let net = NetPruner::load(model).unwrap();
    positions
        .iter()
        .map(|p| {
            let board = p.board();
            let mut out = [0f32; NN];
            let value = net.rate_value(&NetInput::from_position(p, &board), &mut out, true);
            (out, value.unwrap_or(f32::NAN))
        })
        .collect()
}

/// The largest difference between two lists of ratings (NaN values must be NaN in both).
fn max_diff(a: &[([f32; NN], f32)], b: &[([f32; NN], f32)], what: &str) -> f64 {
    assert_eq!(a.len(), b.len(), "{what}: position counts");
    let mut worst = 0f64;
    for (i, ((ba, va), (bb, vb))) in a.iter().zip(b).enumerate() {
        assert_eq!(
            va.is_nan(),
            vb.is_nan(),
            "{what}: position {i}: value {va} vs {vb}"
        );
        if !va.is_nan() {
            worst = worst.max(f64::from((va - vb).abs()));
        }
        for (x, y) in ba.iter().zip(bb) {
            worst = worst.max(f64::from((x - y).abs()));
        }
    }
    worst
}

fn export(model: &Path, file: &Path) {
    let (ok, text) = common::akushu(&[
        "model",
        "export",
        &common::s(model),
        "--out",
        &common::s(file),
    ]);
    assert!(ok, "export {}: {text}", model.display());
}

fn import(file: &Path, dir: &Path) -> (bool, String) {
    common::akushu(&[
        "model",
        "import",
        &common::s(file),
        "--out",
        &common::s(dir),
    ])
}

#[test]
fn exported_models_import_with_the_same_outputs() {
    let scratch = common::scratch("model-export", "rust");
    let positions = positions();
    for model in MODELS {
        let name = model.rsplit('/').next().unwrap();
        let file = scratch.join(format!("{name}.npz"));
        export(&repo(model), &file);
        let dir = scratch.join(name);
        let (ok, text) = import(&file, &dir);
        assert!(ok, "import {name}: {text}");
        let diff = max_diff(
            &rate(&repo(model), &positions),
            &rate(&dir, &positions),
            name,
        );
        assert!(
            diff <= TOLERANCE,
            "{name}: imported outputs differ by {diff}"
        );
        // The provenance names the file and its checksum; the games are unknown.
        let (ok, text) = common::akushu(&["provenance", &common::s(&dir)]);
        assert!(
            ok && text.contains("imported from") && text.contains("fnv1a64:"),
            "{text}"
        );
        assert!(text.contains("training games unknown"), "{text}");
        // A model directory with weights is never written over.
        let (ok, text) = import(&file, &dir);
        assert!(
            !ok && text.contains("already holds a trained model"),
            "{text}"
        );
    }

    // A config that does not fit the tensors: refused, naming the first tensor that differs,
    // and no folder is left behind.
    let file = scratch.join("cnn-human-5x32-gpu2.npz");
    let mut arrays = read_npz(&std::fs::read(&file).unwrap(), u64::MAX).unwrap();
    let (_, meta) = arrays.iter_mut().find(|(n, _)| n == "meta").unwrap();
    let Values::U8(text) = &meta.values else {
        panic!("meta is not bytes")
    };
    let mut json: serde_json::Value = serde_json::from_slice(text).unwrap();
    json["config"]["cnn"]["channels"] = 48.into();
    *meta = Array::bytes(serde_json::to_vec(&json).unwrap());
    let refs: Vec<(&str, &Array)> = arrays.iter().map(|(n, a)| (n.as_str(), a)).collect();
    let wide = scratch.join("wide.npz");
    std::fs::write(&wide, write_npz(&refs)).unwrap();
    let (ok, text) = import(&wide, &scratch.join("wide"));
    assert!(
        !ok && text.contains("tensor `stem.weight` has shape [32, 14, 3, 3]"),
        "{text}"
    );
    assert!(!scratch.join("wide").exists());
    let _ = std::fs::remove_dir_all(scratch);
}

fn script(args: &[&str]) -> String {
    let path = common::s(&repo("scripts/akushu_model.py"));
    common::python(&[&[path.as_str()], args].concat())
}

/// The script's forward pass over the test split of `data`.
fn python_rate(file: &Path, data: &Path) -> Vec<([f32; NN], f32)> {
    script(&[
        "forward",
        &common::s(file),
        &common::s(data),
        "--split",
        "test",
    ])
    .lines()
    .map(|line| {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let mut badness = [0f32; NN];
        for (b, x) in badness.iter_mut().zip(v["badness"].as_array().unwrap()) {
            *b = x.as_f64().unwrap() as f32;
        }
        (badness, v["value"].as_f64().map_or(f32::NAN, |x| x as f32))
    })
    .collect()
}

#[test]
#[ignore = "needs python3 with numpy (sh scripts/install-python.sh): cargo test --release -- --ignored"]
fn the_numpy_forward_pass_matches_akushu() {
    if !common::python_with_numpy("the Python model test") {
        return;
    }
    let scratch = common::scratch("model-export", "python");
    let positions = positions();
    let data = scratch.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let mut w = SplitWriter::create(&data, Split::Test).unwrap();
    for p in &positions {
        w.push(p).unwrap();
    }
    w.finish(1).unwrap();
    for model in MODELS {
        let name = model.rsplit('/').next().unwrap();
        let akushu = rate(&repo(model), &positions);
        let file = scratch.join(format!("{name}.npz"));
        export(&repo(model), &file);
        let diff = max_diff(&akushu, &python_rate(&file, &data), name);
        eprintln!(
            "{name}: numpy and akushu differ by at most {diff:.1e} on {} positions",
            positions.len()
        );
        assert!(
            diff <= TOLERANCE,
            "{name}: numpy differs from akushu by {diff}"
        );
        // Loaded into numpy arrays and written back by the script, then imported.
        let back = scratch.join(format!("{name}-back.npz"));
        script(&["rewrite", &common::s(&file), "--out", &common::s(&back)]);
        let dir = scratch.join(name);
        let (ok, text) = import(&back, &dir);
        assert!(ok, "import {name} written back by numpy: {text}");
        let diff = max_diff(&akushu, &rate(&dir, &positions), name);
        assert!(
            diff <= TOLERANCE,
            "{name}: numpy's round trip differs by {diff}"
        );
    }
    // What numpy users write by hand reads too: deflated members (`np.savez_compressed`)
    // and arrays in Fortran order (what `np.save` writes for a transposed view).
    let file = scratch.join("cnn-human-5x32-value.npz");
    let packed = scratch.join("packed.npz");
    let code = format!(
        "import numpy as np; z = np.load({:?}); \
         np.savez_compressed({:?}, **{{k: np.asfortranarray(z[k]) for k in z.files}})",
        common::s(&file),
        common::s(&packed)
    );
    common::python(&["-c", &code]);
    let dir = scratch.join("packed");
    let (ok, text) = import(&packed, &dir);
    assert!(ok, "import of a compressed Fortran-order export: {text}");
    let model = repo("models/cnn-human-5x32-value");
    let diff = max_diff(&rate(&model, &positions), &rate(&dir, &positions), "packed");
    assert!(
        diff <= TOLERANCE,
        "compressed, Fortran order: outputs differ by {diff}"
    );
    let _ = std::fs::remove_dir_all(scratch);
}
