//! Every example of every `--help` runs, as written but on tiny inputs: in a scratch folder
//! laid out like the repository (copies of `models/`, `experiments/`, `report/runs/`,
//! `report/loops/` and `report/teacher/`, a small `data/paper` built from the shared engine
//! games, `../shared/data` beside it), with
//! game and simulation counts cut down (`--games 1`, `sims=50`, `--limit 200`);
//! `reproduce --quick`, README's main command, runs as it is. The few examples that only
//! differ from one that runs by their size (a full experiment, a partial reproduction of two
//! full experiments, the long loop) or need KataGo are listed with the reason they are not
//! run, and the test checks that list against the help texts so it cannot go stale.
//!
//! Marked ignored (it takes minutes on two cores); `cargo test --release -- --ignored` and
//! `.ci/run` run it. Needs the shared game records (`AKUSHU_REQUIRE_DATA`).

use std::path::Path;
use std::process::{Command, Stdio};

mod common;

/// Examples not run, each with why: what they add over a run example is only their size.
const NOT_RUN: &[(&str, &str)] = &[
    (
        "akushu experiment run experiments/tree_pruning.toml --out report/runs",
        "the full experiment (hours); its --quick and --no-play forms run",
    ),
    (
        "akushu reproduce --only tree_pruning,soft_pruning --jobs 2",
        "two full experiments (hours); --no-play runs the same report path",
    ),
    (
        "akushu dataset label data/paper --splits test --limit 5000 --per-move --teacher \"katago analysis -model b6c96.bin.gz -config analysis.cfg\" --out data/paper-kata-test",
        "needs KataGo (scripts/build-katago.sh); tests/teacher_label.rs labels with it where AKUSHU_KATAGO names one, and the next example labels with akushu's own engine",
    ),
    (
        "akushu eval --data data/paper-kata-test --truth teacher --model teacher --model models/default --png truth.png",
        "reads the KataGo labels of the example before; tests/teacher_label.rs draws the curve on a scripted teacher's labels",
    ),
    (
        "akushu loop experiments/loops/gpu2.toml --out runs/loop-gpu2",
        "three generations (hours); the quick loop runs",
    ),
];

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &t);
        } else if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

/// `text` with `from` replaced where it is not followed by another digit (`sims=10000`, not
/// the start of `sims=1000000`).
fn whole(text: &str, from: &str, to: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(k) = rest.find(from) {
        let after = &rest[k + from.len()..];
        out.push_str(&rest[..k]);
        if after.starts_with(|c: char| c.is_ascii_digit()) {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = after;
    }
    out + rest
}

/// The example's words with its sizes cut down (and nothing else changed).
fn tiny(words: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let sub = words.get(1).map(String::as_str).unwrap_or("");
    let mut i = 0;
    while i < words.len() {
        let w = whole(
            &whole(&words[i], "sims=10000", "sims=50"),
            "sims=800",
            "sims=50",
        );
        if w == "--games" && i + 1 < words.len() {
            let n = if sub == "selfplay" { "8" } else { "1" };
            out.extend([w, n.to_string()]);
            i += 2;
            continue;
        }
        if w == "--time-per-move" && i + 1 < words.len() {
            // The least a move may get above the referee's default grace of 0.2 s.
            out.extend([w, "0.25".to_string()]);
            i += 2;
            continue;
        }
        if w == "--epochs" && i + 1 < words.len() {
            i += 2;
            continue;
        }
        out.push(w);
        i += 1;
    }
    match sub {
        "dataset" if out.iter().any(|w| w == "--sgf") && !out.iter().any(|w| w == "--limit") => {
            out.extend(["--limit".into(), "200".into()]);
            // The first 200 OGS records are mostly games the shipped models trained on: built
            // over `data/paper`, they would leave the later eval examples nothing unseen, so
            // the cut-down build writes beside it.
            if let Some(k) = out.iter().position(|w| w == "data/paper") {
                out[k] = "data/paper-example".into();
            }
        }
        "train" => out.extend(["--epochs".into(), "1".into()]),
        _ => {}
    }
    out
}

#[test]
#[ignore = "runs every help example (minutes); run with --ignored"]
fn every_help_example_runs_on_tiny_inputs() {
    let Some(engine_games) = common::shared_data("engine9x9.tar.xz") else {
        return;
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = std::env::temp_dir().join(format!("akushu-help-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    // `../shared/data/...` from the work folder.
    std::fs::create_dir_all(root.join("shared")).unwrap();
    std::os::unix::fs::symlink(engine_games.parent().unwrap(), root.join("shared/data")).unwrap();
    for dir in [
        "models",
        "experiments",
        "report/runs",
        "report/loops",
        "report/teacher",
    ] {
        copy_dir(&repo.join(dir), &work.join(dir));
    }
    // `report/` is akushu's output folder (its marker), which `reproduce` writes into.
    std::fs::copy(
        repo.join("report/.akushu-output"),
        work.join("report/.akushu-output"),
    )
    .unwrap();
    let run = |words: &[String], stdin: &str| -> (bool, String) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_akushu"))
            .args(&words[1..])
            .current_dir(&work)
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
        let out = child.wait_with_output().unwrap();
        (
            out.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        )
    };
    let setup = |line: &str| {
        let words: Vec<String> = line.split(' ').map(String::from).collect();
        let (ok, text) = run(&words, "");
        assert!(ok, "setup `{line}`: {text}");
    };
    // What the examples read: a small paper-like dataset, a folder of SGF files, match
    // folders to merge and rate.
    setup(
        "akushu dataset build --sgf ../shared/data/engine9x9.tar.xz --limit 300 --out data/paper",
    );
    std::fs::create_dir_all(work.join("games")).unwrap();
    for f in std::fs::read_dir(repo.join("tests/fixtures/sgf")).unwrap() {
        let f = f.unwrap().path();
        if f.extension().is_some_and(|e| e == "sgf") {
            std::fs::copy(&f, work.join("games").join(f.file_name().unwrap())).unwrap();
        }
    }
    setup("akushu match --black random --white random --games 2 --shard 0/2 --out runs/a --quiet");
    setup("akushu match --black random --white random --games 2 --shard 1/2 --out runs/b --quiet");
    setup("akushu match --black random --white random --games 2 --out runs/my-match --quiet");
    // The provenance example recovers a model's record; the shipped models keep theirs, so
    // the copy of `models/default` plays a model from before records were kept.
    std::fs::remove_file(work.join("models/default/provenance.json")).unwrap();

    let examples = akushu::cli::help_examples();
    for (line, _) in NOT_RUN {
        assert!(
            examples.iter().any(|e| e == line),
            "NOT_RUN lists `{line}`, which no help text shows any more"
        );
    }
    let mut ran = 0;
    let mut failed = Vec::new();
    // An example two help texts show (the top-level list repeats a few) runs once.
    let mut seen = std::collections::HashSet::new();
    for line in &examples {
        if NOT_RUN.iter().any(|(l, _)| l == line) || !seen.insert(line.clone()) {
            continue;
        }
        let words = tiny(&akushu::cli::example_words(line));
        // Each example starts from a checkout: a new training run gets an absent folder (a
        // `--resume` example continues the one before it).
        if words.get(1).is_some_and(|w| w == "train")
            && !words.iter().any(|w| w == "--resume")
            && let Some(k) = words.iter().position(|w| w == "--out")
        {
            let _ = std::fs::remove_dir_all(work.join(&words[k + 1]));
        }
        // GTP and analysis servers get their end of input at once.
        let stdin = if words.get(1).is_some_and(|w| w == "gtp") {
            "quit\n"
        } else {
            ""
        };
        let (ok, text) = run(&words, stdin);
        ran += 1;
        if !ok {
            let tail: String = text
                .lines()
                .rev()
                .take(6)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n");
            failed.push(format!("`{line}` (run as `{}`):\n{tail}", words.join(" ")));
        }
    }
    assert!(ran >= 30, "only {ran} examples ran");
    assert!(
        failed.is_empty(),
        "{} of {ran} help examples failed:\n\n{}",
        failed.len(),
        failed.join("\n\n")
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn tiny_keeps_the_example_and_cuts_its_sizes() {
    let words = |s: &str| -> Vec<String> { s.split(' ').map(String::from).collect() };
    assert_eq!(
        tiny(&words(
            "akushu match --black uct:sims=10000 --white uct --games 400 --out m"
        )),
        words("akushu match --black uct:sims=50 --white uct --games 1 --out m")
    );
    assert_eq!(
        tiny(&words(
            "akushu train --data data/paper --model cnn --epochs 2 --out x"
        )),
        words("akushu train --data data/paper --model cnn --out x --epochs 1")
    );
    assert_eq!(
        tiny(&words("akushu dataset build --sgf a.tar.xz --out d")),
        words("akushu dataset build --sgf a.tar.xz --out d --limit 200")
    );
    assert_eq!(
        whole("strong2:sims=1000000", "sims=10000", "sims=50"),
        "strong2:sims=1000000"
    );
}

/// The `akushu ...` commands of README.md: its shell blocks' lines (continuation lines
/// joined, `#` comments dropped) and the code spans of running text that give options.
fn readme_commands() -> Vec<String> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut shell = Vec::new();
    for raw in text.lines() {
        if raw.trim_start().starts_with("```") {
            in_sh = !in_sh && raw.trim() == "```sh";
        } else if in_sh {
            shell.push(raw);
        } else {
            // Commands in running text: a code span of `akushu` with options.
            for (k, span) in raw.split('`').enumerate() {
                if k % 2 == 1 && span.starts_with("akushu ") && span.contains(" --") {
                    out.push(span.to_string());
                }
            }
        }
    }
    out.extend(akushu::cli::command_lines(shell));
    out
}

/// Every `akushu` command README.md shows is an example of some `--help`, so that
/// [`every_help_example_runs_on_tiny_inputs`] runs it as written (or lists why not): a README
/// command cannot break unseen.
#[test]
fn every_readme_command_is_a_help_example_that_runs() {
    let examples = akushu::cli::help_examples();
    let commands = readme_commands();
    assert!(
        commands
            .iter()
            .any(|c| c.starts_with("akushu dataset build")),
        "{commands:?}"
    );
    let missing: Vec<&String> = commands
        .iter()
        .filter(|c| !examples.iter().any(|e| e == *c))
        .collect();
    assert!(
        missing.is_empty(),
        "README.md shows commands no --help example has (add them to a help text): {missing:#?}"
    );
}
