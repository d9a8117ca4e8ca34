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
            played_only: Vec::new(),
            machine: "AMD EPYC, 2 logical CPUs (a test machine)".into(),
        },
        std::slice::from_ref(&result),
        &[],
    );
    assert!(report.contains("Arm **bad** failed"), "{report}");
    // The time it took is stated with the machine it took it on.
    assert!(
        report.contains("in 0 s on AMD EPYC, 2 logical CPUs (a test machine)."),
        "{report}"
    );
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
        played_only: Vec::new(),
        machine: "AMD EPYC, 2 logical CPUs (a test machine)".into(),
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

/// Charts say what they show: on a categorical axis (pruning depth) each series is points
/// with error bars set side by side, never a line through a category no arm played; the
/// legend uses the file's names, not internal ones; the paper's points are black in every
/// chart and akushu's main line always the palette's first colour.
#[test]
fn charts_label_their_series_and_keep_colours_by_role() {
    use akushu::report::plot::{PAPER_COLOUR, SeriesStyle, palette};
    let file = |name: &str, plot: &str| -> experiment::ExperimentFile {
        toml::from_str(&format!(
            r#"
name = "{name}"
title = "{name}"
[match]
games = 2
[players]
black = "random:delay_ms={{d}}"
white = "random"
[[arm]]
label = "none"
x = -1.0
vars = {{ d = 0 }}
[[arm]]
label = "depth 1"
x = 1.0
vars = {{ d = 1 }}
[[arm]]
label = "other depth 1"
x = 1.0
series = "other"
vars = {{ d = 2 }}
[plot]
paper_points = [[-1.0, 0.04], [0.0, 0.01]]
{plot}
"#
        ))
        .unwrap()
    };
    let out = std::env::temp_dir().join(format!("akushu-chartroles-{}", std::process::id()));
    let opts = serial_options(&out, true);
    let base = experiment::run(&file("base", ""), &opts).unwrap();
    let cat = experiment::run(
        &file(
            "cat",
            "categorical = true\nx_names = { \"-1\" = \"none\" }\nlabel = \"paper net\"\n\
             paper_label = \"paper (plain engine)\"\ncompare = [\"base\"]\n\
             compare_labels = [\"the base engine\"]",
        ),
        &opts,
    )
    .unwrap();
    let chart = akushu::report::writer::chart(&cat, &[base.clone(), cat.clone()]).unwrap();
    assert!(chart.categorical);
    assert_eq!(chart.x_names, vec![(-1.0, "none".to_string())]);
    // Half a category of room each side of -1..1.
    assert_eq!(chart.x_range, (-1.5, 1.5));
    let main = &chart.series[0];
    assert!(
        main.label.starts_with("paper net (up to 2 games"),
        "{}",
        main.label
    );
    assert_eq!(main.style, SeriesStyle::Points, "no line across categories");
    assert_eq!(main.band.len(), 2, "every point has its interval");
    assert_eq!(main.colour, Some(palette(0)));
    // Two series at x = 1 sit side by side, not on top of each other.
    let other = &chart.series[1];
    assert!(other.label.starts_with("other (up to 2 games"));
    assert!(
        main.points[1].0 < 1.0 && other.points[0].0 > 1.0,
        "{main:?} {other:?}"
    );
    assert_eq!(other.colour, Some(palette(1)));
    let compared = &chart.series[2];
    assert!(
        compared.label.starts_with("the base engine"),
        "{}",
        compared.label
    );
    let paper = chart.series.last().unwrap();
    assert_eq!(paper.label, "paper (plain engine)");
    assert_eq!(paper.colour, Some(PAPER_COLOUR));
    // The same roles keep their colours in a chart drawn as lines.
    let lines = akushu::report::writer::chart(&base, std::slice::from_ref(&base)).unwrap();
    assert_eq!(lines.series[0].colour, Some(palette(0)));
    assert_eq!(lines.series[0].style, SeriesStyle::LinePoints);
    assert_eq!(lines.series.last().unwrap().colour, Some(PAPER_COLOUR));
    // Drawn as PNG and as SVG, each marked as akushu's.
    for ext in ["png", "svg"] {
        let path = out.join(format!("cat.{ext}"));
        akushu::report::plot::render_chart(&chart, &path).unwrap();
        assert!(akushu::report::plot::is_akushu_chart(&path), "{ext}");
    }
    std::fs::remove_dir_all(out).unwrap();
}

/// An arm that is the same match as another experiment's arm reads its games from there
/// (full mode): nothing is played twice, the plan leaves it out, and the report says whose
/// games they are. A path out of --out is refused when the file is read.
#[test]
fn an_arm_with_the_same_games_as_another_reads_them_and_plays_none() {
    let out = std::env::temp_dir().join(format!("akushu-samegames-{}", std::process::id()));
    let opts = serial_options(&out, true);
    let played: experiment::ExperimentFile = toml::from_str(
        r#"
name = "sweep"
title = "sweep"
[match]
games = 3
[players]
black = "random"
white = "random:delay_ms={x}"
[sweep]
var = "x"
values = [0]
"#,
    )
    .unwrap();
    experiment::run(&played, &opts).unwrap();
    let text = r#"
name = "base"
title = "base"
[match]
games = 3
[players]
black = "random"
white = "random"
[[arm]]
label = "unpruned"
same_games_as = "sweep/x=0"
"#;
    let reuse = experiment::parse(text, "base.toml").unwrap();
    let plans = experiment::plan_arms(&reuse, false, &out, &out).unwrap();
    assert!(plans.is_empty(), "nothing of its own to play: {plans:?}");
    let result = experiment::run(&reuse, &opts).unwrap();
    let experiment::Outcome::Arms(arms) = &result.outcome else {
        panic!("arms expected")
    };
    assert_eq!(arms.len(), 1);
    assert_eq!(arms[0].summary.games, 3);
    assert_eq!(arms[0].dir, out.join("sweep/x=0"));
    assert!(
        !out.join("base").exists(),
        "no folder of its own, no games played"
    );
    let info = akushu::report::writer::ReportInfo {
        quick: false,
        command: "test".into(),
        runs: PathBuf::from("runs"),
        runs_folder: out.clone(),
        seconds: 0.0,
        jobs: 1,
        snapshot: false,
        played_only: Vec::new(),
        machine: "AMD EPYC, 2 logical CPUs (a test machine)".into(),
    };
    let report = akushu::report::writer::render(&info, std::slice::from_ref(&result), &[]);
    assert!(
        report.contains("unpruned (the games of sweep/x=0, not played twice)"),
        "{report}"
    );
    // Quick mode plays the arm as written.
    let quick = reuse.arms(true).unwrap();
    assert_eq!(quick[0].same_games_as, None);
    for bad in ["../x/y", "/abs/y", "sweep", "a/b/c"] {
        let e = experiment::parse(&text.replace("sweep/x=0", bad), "base.toml").unwrap_err();
        assert!(format!("{e:#}").contains("EXPERIMENT/ARM"), "{bad}: {e:#}");
    }
    // The machine-readable results: the same arm in results.csv and results.json.
    akushu::report::writer::write_results(&[result], &out.join("report")).unwrap();
    let csv = std::fs::read_to_string(out.join("report/results.csv")).unwrap();
    assert!(csv.starts_with("experiment,arm,x,series,folder,black,white,games,a_wins"));
    assert_eq!(csv.lines().count(), 2, "{csv}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report/results.json")).unwrap()).unwrap();
    assert_eq!(json[0]["arm"], "unpruned");
    assert_eq!(json[0]["games"], 3);
    // Every match folder also has its summary as JSON.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("sweep/x=0/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["games_finished"], 3);
    let a = &summary["players"][0]["overall"];
    let (wins, lo, hi) = (
        a["wins"].as_u64().unwrap(),
        a["wilson95"][0].as_f64().unwrap(),
        a["wilson95"][1].as_f64().unwrap(),
    );
    assert!(lo <= wins as f64 / 3.0 && wins as f64 / 3.0 <= hi);
    std::fs::remove_dir_all(out).unwrap();
}
