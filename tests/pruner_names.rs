//! Pruner names through the binary: `eval --model` takes every pruner an engine spec names,
//! and a match records the weights of a network in any spelling (`sym8:nnq:DIR`), so a
//! resume after they changed is refused.

mod common;
use common::{akushu_in, s, scratch};
use std::fs;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sgf")
}

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(name)
}

/// The search's pruners (`rule`, `kakeme`, `none`, `random:SEED`) each get an error-rate
/// curve beside the curve's own baselines (`random`, `rules`, `oracle`).
#[test]
fn eval_draws_a_curve_for_every_pruner_an_engine_spec_names() {
    let w = scratch("pruner-names", "eval");
    let summary = w.join("summary.csv");
    let models = [
        "rule", "kakeme", "none", "random:5", "random", "rules", "oracle",
    ];
    let mut args = vec!["eval", "--sgf"];
    let sgf = s(&fixtures());
    args.push(&sgf);
    for m in &models {
        args.extend(["--model", m]);
    }
    let out = s(&summary);
    args.extend(["--summary", &out]);
    let r = akushu_in(&args, "", 300);
    assert!(r.ok(), "{}", r.stderr);
    let text = fs::read_to_string(&summary).unwrap();
    let labels: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|row| row.split(',').next().unwrap())
        .collect();
    assert_eq!(labels, models, "{text}");
    fs::remove_dir_all(w).unwrap();
}

/// A bad name is refused by what is wrong with it, before any record is read.
#[test]
fn eval_refuses_bad_pruner_names_by_name() {
    let sgf = s(&fixtures());
    for (model, why) in [
        ("rule:1", "pruner `rule` takes no argument, got `1`"),
        ("random:x", "seed `x` is not an integer"),
        ("nnq", "needs a CNN model directory"),
        ("sym8:rule", "symmetry averaging needs a network"),
        ("sym3:models/cnn", "sym3: is not a symmetry average"),
    ] {
        let r = akushu_in(&["eval", "--model", model, "--sgf", &sgf], "", 60);
        assert!(
            r.refused() && r.stderr.contains(why),
            "{model}: {}",
            r.stderr
        );
        assert!(r.stdout.is_empty(), "{model}: started: {}", r.stdout);
    }
}

/// A network behind `sym8:nnq:` is checksummed in `match.toml`, and a resume after its
/// weights changed is refused.
#[test]
fn a_symmetry_averaged_network_is_checksummed_and_its_change_refuses_a_resume() {
    let w = scratch("pruner-names", "match");
    let model = w.join("model");
    fs::create_dir_all(&model).unwrap();
    let files = ["config.json", "model.bpk", "model.bpk.checksum"];
    for f in files {
        fs::copy(shipped("cnn-small").join(f), model.join(f)).unwrap();
    }
    let spec = format!("uct:sims=20,prune=sym8:nnq:{}:10", model.display());
    let out = w.join("m");
    let run = |games: &str| {
        akushu_in(
            &[
                "match",
                "--black",
                &spec,
                "--white",
                "random",
                "--games",
                games,
                "--out",
                &s(&out),
                "--quiet",
            ],
            "",
            300,
        )
    };
    let r = run("1");
    assert!(r.ok(), "{}", r.stderr);
    let header = fs::read_to_string(out.join("match.toml")).unwrap();
    let line = header
        .lines()
        .find(|l| l.contains(&s(&model)) && l.contains("fnv1a64:"));
    assert!(
        line.is_some(),
        "no checksum of {}:\n{header}",
        model.display()
    );
    // Other weights in the same folder: the games so far came from another network.
    for f in files {
        fs::copy(shipped("cnn").join(f), model.join(f)).unwrap();
    }
    let r = run("2");
    assert!(
        r.refused() && r.stderr.contains("has changed"),
        "{}",
        r.stderr
    );
    fs::remove_dir_all(w).unwrap();
}
