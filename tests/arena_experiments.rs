//! Experiment files and `akushu reproduce`: every shipped experiment file resolves to valid
//! engine specs, and a tiny experiment folder goes through `reproduce` into a report.

use std::path::{Path, PathBuf};
use std::process::Command;

use akushu::arena::experiment::{self, Kind};

fn experiments_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments")
}

/// Checks an in-process spec with the search module's parser (the network is not loaded).
/// Full-mode options for tests: one game at a time into `out`, no progress bars.
fn serial_options(out: &std::path::Path, play: bool) -> experiment::RunOptions {
    experiment::RunOptions {
        out: out.to_path_buf(),
        quick: false,
        jobs: 1,
        show_progress: false,
        play,
    }
}

fn check_spec(spec: &str) {
    if let Some(command) = spec.strip_prefix("gtp:") {
        let words = akushu::arena::gtp::split_command_line(command).unwrap();
        assert!(!words.is_empty(), "{spec}");
    } else if spec.starts_with("uct") || spec.starts_with("strong") {
        akushu::search::spec::parse_uct_kind(spec).unwrap_or_else(|e| panic!("{spec}: {e:#}"));
    } else if spec.starts_with("flat") {
        akushu::search::spec::parse_flat(spec).unwrap_or_else(|e| panic!("{spec}: {e:#}"));
    } else {
        panic!("unexpected spec {spec}");
    }
}

#[test]
fn shipped_experiment_files_resolve_in_both_modes() {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(experiments_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let file = experiment::load(&path).unwrap();
        assert_eq!(
            path.file_stem().unwrap().to_str().unwrap(),
            file.name,
            "file name and experiment name agree"
        );
        names.push(file.name.clone());
        if file.kind == Kind::Curve {
            continue;
        }
        for quick in [false, true] {
            let arms = file.arms(quick).unwrap();
            assert!(!arms.is_empty());
            for arm in &arms {
                check_spec(&arm.config.black);
                check_spec(&arm.config.white);
            }
            if quick {
                let full = file.arms(false).unwrap();
                assert!(arms[0].config.games <= full[0].config.games);
            }
        }
    }
    names.sort();
    for wanted in [
        "baseline",
        "error_rate",
        "gnugo_depth",
        "playout_pruning",
        "random_pruning",
        "soft_pruning",
        "tree_pruning",
    ] {
        assert!(
            names.iter().any(|n| n == wanted),
            "missing experiments/{wanted}.toml"
        );
    }
}

/// The quick arms of the shipped match experiments that quick mode plays, with their
/// experiment's name.
fn quick_arms() -> Vec<(String, experiment::Arm)> {
    let mut arms = Vec::new();
    for entry in std::fs::read_dir(experiments_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let file = experiment::load(&path).unwrap();
        if file.kind == Kind::Curve || file.quick.skip.is_some() {
            continue;
        }
        for arm in file.arms(true).unwrap() {
            arms.push((file.name.clone(), arm));
        }
    }
    arms.sort_by(|a, b| (&a.0, &a.1.label).cmp(&(&b.0, &b.1.label)));
    arms
}

/// Quick mode plays few games at few simulations, where arms that differ little in their
/// players (soft and hard pruning of the same moves, `prune=nn:0` and no pruning) replay
/// the same games on the same seed: each experiment's quick arms have a seed of their own.
#[test]
fn quick_arms_of_different_experiments_do_not_share_seeds() {
    let arms = quick_arms();
    let mut seeds: std::collections::BTreeMap<u64, String> = Default::default();
    for (name, arm) in &arms {
        let owner = seeds.entry(arm.config.seed).or_insert_with(|| name.clone());
        assert_eq!(
            owner, name,
            "quick seed {} shared by {owner} and {name}",
            arm.config.seed
        );
    }
    for (i, (a, x)) in arms.iter().enumerate() {
        for (b, y) in &arms[i + 1..] {
            let (x, y) = (&x.config, &y.config);
            assert!(
                (&x.black, &x.white, x.seed) != (&y.black, &y.white, y.seed),
                "{a} and {b} play the same quick match"
            );
        }
    }
    let seed = |name: &str| {
        arms.iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no quick arm of {name}"))
            .1
            .config
            .seed
    };
    assert_ne!(seed("soft_pruning"), seed("tree_pruning"));
}

/// The quick soft-pruning arm must be able to show something tree pruning does not: with
/// its own seed, its games differ from those of the same player with the softly pruned
/// moves removed outright.
#[test]
fn quick_soft_pruning_plays_differently_from_hard_pruning() {
    let file = experiment::load(&experiments_dir().join("soft_pruning.toml")).unwrap();
    let soft = file.arms(true).unwrap().remove(0).config;
    // `soft=nn:N:X@D` -> `prune=nn:X@D`: the same moves, pruned.
    let (head, rest) = soft
        .black
        .split_once("soft=nn:")
        .expect("a soft=nn: player");
    let (_visits, tail) = rest.split_once(':').unwrap();
    let hard_black = format!("{head}prune=nn:{tail}");
    let hard = akushu::arena::MatchConfig {
        black: hard_black,
        games: 2,
        jobs: 1,
        ..soft.clone()
    };
    let soft = akushu::arena::MatchConfig {
        games: 2,
        jobs: 1,
        ..soft
    };
    let root = std::env::temp_dir().join(format!("akushu-quick-soft-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let games = |config: &akushu::arena::MatchConfig, dir: &str| {
        akushu::arena::run_match(config, &root.join(dir), false).unwrap();
        let mut moves = Vec::new();
        for game in 1..=config.games {
            let sgf = std::fs::read_to_string(root.join(format!("{dir}/sgf/game-{game:05}.sgf")))
                .unwrap();
            // The moves only: the root node names the players, which differ.
            moves.push(sgf.lines().skip(1).collect::<Vec<_>>().join("\n"));
        }
        moves
    };
    let (a, b) = (games(&soft, "soft"), games(&hard, "hard"));
    std::fs::remove_dir_all(&root).unwrap();
    assert!(
        a.iter().zip(&b).any(|(x, y)| x != y),
        "soft pruning ({}) replays hard pruning's games",
        soft.black
    );
}

#[test]
fn tree_pruning_sweeps_the_papers_x() {
    let file = experiment::load(&experiments_dir().join("tree_pruning.toml")).unwrap();
    let xs: Vec<f64> = file
        .arms(false)
        .unwrap()
        .iter()
        .filter_map(|a| a.x)
        .collect();
    for x in [0.0, 5.0, 20.0, 30.0, 41.0, 50.0, 60.0] {
        assert!(xs.contains(&x), "x = {x} missing from {xs:?}");
    }
}

#[test]
fn reproduce_writes_a_report_from_tiny_experiments() {
    let root = std::env::temp_dir().join(format!("akushu-reproduce-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let exps = root.join("experiments");
    std::fs::create_dir_all(&exps).unwrap();
    std::fs::write(
        exps.join("sweep.toml"),
        r#"
name = "sweep"
title = "Random movers with delays"
paper = "none"
[match]
games = 6
seed = 4
[players]
black = "random:delay_ms={x}"
white = "random"
[sweep]
var = "x"
values = [0, 1]
[quick]
games = 3
[plot]
x_label = "delay"
baseline = 0.5
"#,
    )
    .unwrap();
    std::fs::write(
        root.join("curve.csv"),
        "pruned,error\n0,0.0\n10,0.05\n20,0.2\n",
    )
    .unwrap();
    std::fs::write(
        exps.join("curve.toml"),
        format!(
            "name = \"curve\"\ntitle = \"A curve\"\nkind = \"curve\"\n[curve]\ncsv = \"{}\"\nx = \"pruned\"\ny = [\"error\"]\n",
            root.join("curve.csv").display()
        ),
    )
    .unwrap();
    // An opponent that is not installed (as GNU Go on a machine with only Rust) skips its
    // experiment with a line in the report; the run still succeeds.
    std::fs::write(
        exps.join("external.toml"),
        r#"
name = "external"
title = "Against an engine that is not installed"
[match]
games = 2
[players]
black = "random"
white = "gtp:akushu-no-such-engine --mode gtp"
[[arm]]
label = "only"
"#,
    )
    .unwrap();
    let out = root.join("report");
    let status = Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args([
            "reproduce",
            "--quick",
            "--quiet",
            "--jobs",
            "2",
            "--experiments",
        ])
        .arg(&exps)
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let report = std::fs::read_to_string(out.join("REPORT.md")).unwrap();
    assert!(report.contains("Quick mode"), "{report}");
    assert!(
        report.contains("| x=1 | `random:delay_ms=1` | `random` | 3 |"),
        "{report}"
    );
    assert!(
        report.contains("largest x with error <= 10%: 10"),
        "{report}"
    );
    assert!(
        report.contains("skipped: needs `akushu-no-such-engine`"),
        "{report}"
    );
    let rows =
        akushu::arena::record::read_csv(&out.join("runs-quick/sweep/x=0/games.csv")).unwrap();
    assert_eq!(rows.len(), 3);
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn a_failing_arm_does_not_stop_the_others() {
    let file: experiment::ExperimentFile = toml::from_str(
        r#"
name = "mixed"
title = "One good arm, one bad"
[match]
games = 2
[players]
black = "{engine}"
white = "random"
[[arm]]
label = "bad"
vars = { engine = "nonsense:x=1" }
[[arm]]
label = "good"
vars = { engine = "random" }
"#,
    )
    .unwrap();
    let out = std::env::temp_dir().join(format!("akushu-mixed-{}", std::process::id()));
    let opts = serial_options(&out, true);
    let result = experiment::run(&file, &opts).unwrap();
    assert_eq!(result.failed_arms.len(), 1);
    assert_eq!(result.failed_arms[0].0, "bad");
    let experiment::Outcome::Arms(arms) = &result.outcome else {
        panic!("arms expected")
    };
    assert_eq!(arms.len(), 1);
    assert_eq!(arms[0].summary.games, 2);
    let report = akushu::report::writer::render(
        &akushu::report::writer::ReportInfo {
            quick: false,
            command: "test".into(),
            runs: out.clone(),
            runs_folder: out.clone(),
            seconds: 0.0,
            jobs: 1,
            snapshot: false,
        },
        std::slice::from_ref(&result),
        &[],
    );
    assert!(report.contains("Arm **bad** failed"), "{report}");
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn no_play_summarises_the_games_so_far_and_plays_none() {
    let text = |games: u32| {
        format!(
            r#"
name = "snap"
title = "Snapshot"
[match]
games = {games}
[players]
black = "random"
white = "{{engine}}"
[[arm]]
label = "played"
vars = {{ engine = "random" }}
[[arm]]
label = "never"
vars = {{ engine = "random:delay_ms=1" }}
"#
        )
    };
    let out = std::env::temp_dir().join(format!("akushu-snap-{}", std::process::id()));
    let opts = |play| serial_options(&out, play);
    // Play 2 games of the first arm only.
    let mut first: experiment::ExperimentFile = toml::from_str(&text(2)).unwrap();
    first.arms.truncate(1);
    experiment::run(&first, &opts(true)).unwrap();
    // Ask for 5 games of both arms without playing: the snapshot has the 2 played games
    // and leaves the unplayed arm out; the results folder is unchanged.
    let file: experiment::ExperimentFile = toml::from_str(&text(5)).unwrap();
    let result = experiment::run(&file, &opts(false)).unwrap();
    let experiment::Outcome::Arms(arms) = &result.outcome else {
        panic!("arms expected")
    };
    assert_eq!(arms.len(), 1);
    assert_eq!(arms[0].arm.label, "played");
    assert_eq!(arms[0].summary.games, 2);
    let rows = akushu::arena::record::read_csv(&out.join("snap/played/games.csv")).unwrap();
    assert_eq!(rows.len(), 2);
    assert!(!out.join("snap/never").exists());
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn a_chart_draws_the_experiments_it_compares_with() {
    let file = |name: &str, compare: &str| -> experiment::ExperimentFile {
        toml::from_str(&format!(
            r#"
name = "{name}"
title = "{name}"
[match]
games = 2
[players]
black = "random:delay_ms={{x}}"
white = "random"
[sweep]
var = "x"
values = [0, 1]
[plot]
compare = [{compare}]
"#
        ))
        .unwrap()
    };
    let out = std::env::temp_dir().join(format!("akushu-compare-{}", std::process::id()));
    let opts = serial_options(&out, true);
    let a = experiment::run(&file("a", ""), &opts).unwrap();
    let b = experiment::run(&file("b", "\"a\", \"missing\""), &opts).unwrap();
    let labels = |c: akushu::report::plot::Chart| -> Vec<String> {
        c.series.into_iter().map(|s| s.label).collect()
    };
    let with_a = labels(akushu::report::writer::chart(&b, &[a.clone(), b.clone()]).unwrap());
    assert_eq!(with_a.len(), 2, "{with_a:?}");
    assert!(with_a[0].starts_with("b (up to 2 games"), "{with_a:?}");
    assert!(with_a[1].starts_with("a (up to 2 games"), "{with_a:?}");
    // Without `a` in the report (a lone `experiment run`), only b's own arms are drawn.
    let alone = labels(akushu::report::writer::chart(&b, std::slice::from_ref(&b)).unwrap());
    assert_eq!(alone.len(), 1, "{alone:?}");
    std::fs::remove_dir_all(out).unwrap();
}

/// The help's cluster example for a quick plan works as written: without `--shards` an arm
/// of 10 games gets 10 shards, not the default 16 it cannot fill; an explicit count too
/// large for an arm is still refused.
#[test]
fn a_quick_cluster_plan_fits_its_shards_to_the_smallest_arm() {
    let scripts = std::env::temp_dir().join(format!("akushu-quick-plan-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scripts);
    let file = experiments_dir().join("soft_pruning.toml");
    let plan = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_akushu"))
            .args(["experiment", "plan"])
            .arg(&file)
            .args(["--parallel", "--quick", "--scripts"])
            .arg(&scripts)
            .args(extra)
            .output()
            .unwrap()
    };
    let out = plan(&[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tasks = std::fs::read_to_string(scripts.join("parallel-tasks.txt")).unwrap();
    assert_eq!(tasks.lines().count(), 10, "{tasks}");
    let _ = std::fs::remove_dir_all(&scripts);
    let out = plan(&["--shards", "16"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("exceeds the 10 games"));
    let _ = std::fs::remove_dir_all(&scripts);
}

/// A family of arms competing for one claim is reported with its multiplicity counted: the
/// committed GNU Go family (six 200-game arms) pools to 1059/1200, its arms' rates do not
/// differ, no arm clears the 0.90 target once six tries are counted, and the semeai arm is
/// paired with the arm it changes (21 against 17 discordant games).
#[test]
fn a_family_of_arms_gets_adjusted_intervals_and_paired_tests() {
    let file = experiment::load(&experiments_dir().join("strong_gnugo.toml")).unwrap();
    let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("report/runs");
    let result = experiment::run(&file, &serial_options(&runs, false)).unwrap();
    let info = akushu::report::writer::ReportInfo {
        quick: false,
        command: "test".into(),
        runs: PathBuf::from("runs"),
        runs_folder: runs.clone(),
        seconds: 0.0,
        jobs: 1,
        snapshot: true,
    };
    let text = akushu::report::writer::render(&info, &[result], &[]);
    assert!(text.contains("Family of 6 arms"), "{text}");
    assert!(text.contains("1059/1200 = 0.8825 [0.863, 0.900]"), "{text}");
    assert!(
        text.contains("chi-squared 3.45 on 5 df, p = 0.631"),
        "{text}"
    );
    assert!(text.contains("| strong2 2000 expand 1 semeai | 0.905 (181/200) | [0.836, 0.947] |"));
    assert!(text.contains("21 / 17; 0.627, 1.000"), "{text}");
    assert!(text.contains("No arm shows a win rate above 0.9 at family-wise 5%"));
}
