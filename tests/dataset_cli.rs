//! The `akushu dataset` commands end to end: build (flags and a TOML `[filter]` section),
//! stats and show, on the SGF fixtures.

use std::path::{Path, PathBuf};
use std::process::Command;

fn akushu(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn fixtures() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sgf")
        .display()
        .to_string()
}

fn line_value(text: &str, key: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .unwrap_or_else(|| panic!("no line {key:?} in:\n{text}"))
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn build_stats_show() {
    let work: PathBuf = std::env::temp_dir().join(format!("akushu-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let out = work.join("ds").display().to_string();
    let fx = fixtures();

    // The README's flags.
    let (ok, stdout, stderr) = akushu(&[
        "dataset",
        "build",
        "--sgf",
        &fx,
        "--out",
        &out,
        "--min-moves",
        "3",
        "--no-handicap",
        "--result-known",
        "--exclude-bots",
        "--min-rank",
        "5k",
        "--rank-scope",
        "either",
        "--quiet",
    ]);
    assert!(ok, "{stderr}");
    // One line on the terminal; the full configuration is stored in the manifest.
    assert!(
        stdout.contains("# config: ") && !stdout.contains("min_moves"),
        "one config line:\n{stdout}"
    );
    let manifest = std::fs::read_to_string(std::path::Path::new(&out).join("manifest.json"))
        .expect("manifest written");
    assert!(
        manifest.contains("\"min_moves\": 3"),
        "the configuration is stored:\n{manifest}"
    );
    let games = line_value(&stdout, "games:");
    assert_eq!(
        games, 1,
        "only ogs_style.sgf has a ranked player:\n{stdout}"
    );

    let (ok, stats, stderr) = akushu(&["dataset", "stats", &out]);
    assert!(ok, "{stderr}");
    assert_eq!(line_value(&stats, "games:"), 1);
    assert_eq!(line_value(&stats, "positions:"), 12);
    assert!(stats.contains("filter:rank"), "{stats}");
    // The fingerprint README promises, the one the build printed.
    let fingerprint = |text: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix("fingerprint: "))
            .map(str::to_string)
    };
    assert!(fingerprint(&stdout).is_some(), "{stdout}");
    assert_eq!(fingerprint(&stats), fingerprint(&stdout), "{stats}");

    let split = if stats.contains("train: 1 games") {
        "train"
    } else if stats.contains("validation: 1 games") {
        "validation"
    } else {
        "test"
    };
    let (ok, show, stderr) = akushu(&["dataset", "show", &out, "--split", split, "--index", "1"]);
    assert!(ok, "{stderr}");
    assert!(show.contains("move 2 by white (O): C7"), "{show}");
    assert!(show.contains(" 5 . . . . X . . . . "), "{show}");
    let (ok, _, stderr) = akushu(&["dataset", "show", &out, "--split", split, "--index", "99"]);
    assert!(!ok && stderr.contains("out of range"), "{stderr}");

    // The same filter from a TOML file; flags still override it.
    let toml = work.join("ds.toml");
    std::fs::write(
        &toml,
        format!(
            "inputs = [{fx:?}]\nseed = 5\n[filter]\nmin_moves = 3\nno_handicap = true\n\
             result_known = true\nmin_rank = \"5k\"\n"
        ),
    )
    .unwrap();
    let out2 = work.join("ds2").display().to_string();
    let (ok, stdout, stderr) = akushu(&[
        "dataset",
        "build",
        "--config",
        &toml.display().to_string(),
        "--out",
        &out2,
        "--quiet",
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(line_value(&stdout, "games:"), 1);
    let (ok, stdout, stderr) = akushu(&[
        "dataset",
        "build",
        "--config",
        &toml.display().to_string(),
        "--out",
        &out2,
        "--min-rank",
        "1d",
        "--rank-scope",
        "both",
        "--quiet",
    ]);
    // No game passes: an error that says nothing was written and which filter dropped the
    // games, no word of a manifest it did not write, and the dataset already there is kept.
    assert!(!ok, "{stdout}{stderr}");
    assert!(
        stderr.contains("nothing written to")
            && stderr.contains("passed the checks and filters")
            && stderr.contains("filter:rank "),
        "{stderr}"
    );
    assert!(!stdout.contains("manifest"), "{stdout}");
    let (ok, stdout, _) = akushu(&["dataset", "stats", &out2]);
    assert!(ok);
    assert_eq!(line_value(&stdout, "games:"), 1);

    // Bad input is a clear error, not a panic.
    let (ok, _, stderr) = akushu(&[
        "dataset",
        "build",
        "--sgf",
        &fx,
        "--out",
        &out2,
        "--min-rank",
        "x",
    ]);
    assert!(!ok && stderr.contains("min_rank"), "{stderr}");
    std::fs::write(&toml, "[filter]\nno_such_key = 1\n").unwrap();
    let (ok, _, stderr) = akushu(&[
        "dataset",
        "build",
        "--config",
        &toml.display().to_string(),
        "--sgf",
        &fx,
        "--out",
        &out2,
    ]);
    assert!(!ok && stderr.contains("ds.toml"), "{stderr}");
    let (ok, _, stderr) = akushu(&["dataset", "stats", &work.join("nope").display().to_string()]);
    assert!(!ok && stderr.contains("manifest.json"), "{stderr}");
    std::fs::remove_dir_all(work).unwrap();
}

/// A dataset whose validation and test splits got no game (here forced by zero shares, as
/// a few games often get by chance): the build warns and names the share to raise, and
/// `train` on it refuses with the same hint instead of a bare "must not be empty".
#[test]
fn a_dataset_of_a_few_games_warns_of_its_empty_splits() {
    let work = std::env::temp_dir().join(format!("akushu-cli-few-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let out = work.join("ds").display().to_string();
    let one_game = format!("{}/ogs_style.sgf", fixtures());
    let (ok, stdout, stderr) = akushu(&[
        "dataset",
        "build",
        "--sgf",
        &one_game,
        "--validation",
        "0",
        "--test",
        "0",
        "--out",
        &out,
        "--quiet",
    ]);
    assert!(ok, "{stdout}{stderr}");
    assert_eq!(line_value(&stdout, "games:"), 1, "{stdout}");
    for split in ["validation", "test"] {
        assert!(
            stderr.contains(&format!(
                "warning: the {split} split holds no game of the 1"
            )) && stderr.contains(&format!("--{split} share")),
            "{stderr}"
        );
    }
    let model = work.join("m").display().to_string();
    let (ok, stdout, stderr) = akushu(&[
        "train", "--data", &out, "--model", "mlp", "--out", &model, "--quiet",
    ]);
    assert!(!ok, "{stdout}");
    assert!(
        stderr.contains("validation split holds no position")
            && stderr.contains("dataset build --validation"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&work).unwrap();
}
