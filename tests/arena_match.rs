//! Arena integration tests: reproducibility, resume after a killed run, failing GTP
//! opponents, shard + merge, and a real GNU Go game when GNU Go is installed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use akushu::arena::{
    self, EndReason, GameRecord, GtpTimeouts, MatchConfig, Shard, merge, run_match,
};

mod common;

/// A fresh folder per call (tests run in parallel and may use the same name).
fn temp_dir(name: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("akushu-arena-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn config(games: u32, seed: u64) -> MatchConfig {
    MatchConfig {
        black: "random".into(),
        white: "random".into(),
        games,
        seed,
        ..MatchConfig::default()
    }
}

fn rows_without_timing(dir: &Path) -> Vec<GameRecord> {
    arena::record::read_csv(&dir.join("games.csv"))
        .unwrap()
        .iter()
        .map(GameRecord::without_timing)
        .collect()
}

fn fake_gtp(mode: &str) -> String {
    format!(
        "gtp:sh {}/tests/fixtures/arena_fake_gtp.sh {mode}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn same_seed_same_csv_and_sgf_whatever_the_jobs() {
    let (a, b, c) = (temp_dir("same-a"), temp_dir("same-b"), temp_dir("same-c"));
    let one = run_match(&config(12, 5), &a, false).unwrap();
    let two = run_match(
        &MatchConfig {
            jobs: 2,
            ..config(12, 5)
        },
        &b,
        false,
    )
    .unwrap();
    assert_eq!(one.rows.len(), 12);
    assert_eq!(rows_without_timing(&a), rows_without_timing(&b));
    for g in 1..=12 {
        let name = format!("sgf/game-{g:05}.sgf");
        assert_eq!(
            std::fs::read_to_string(a.join(&name)).unwrap(),
            std::fs::read_to_string(b.join(&name)).unwrap()
        );
    }
    assert_eq!(two.summary.black.wins, one.summary.black.wins);
    // Another seed gives other games.
    run_match(&config(12, 6), &c, false).unwrap();
    assert_ne!(rows_without_timing(&a), rows_without_timing(&c));
    for d in [a, b, c] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn resume_after_a_killed_run_counts_no_game_twice() {
    let (killed, whole) = (temp_dir("killed"), temp_dir("whole"));
    let games = 12;
    let args = |out: &Path| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_akushu"));
        cmd.args([
            "match",
            "--black",
            "random:delay_ms=3",
            "--white",
            "random",
            "--seed",
            "9",
        ])
        .args(["--games", &games.to_string(), "--quiet", "--out"])
        .arg(out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
        cmd
    };
    let mut child = args(&killed).spawn().unwrap();
    let csv = killed.join("games.csv");
    let start = Instant::now();
    loop {
        let done = std::fs::read_to_string(&csv).map(|t| t.lines().count().saturating_sub(1));
        if done.is_ok_and(|n| n >= 3) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "match made no progress"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let partial = rows_without_timing(&killed);
    assert!(
        partial.len() >= 3 && partial.len() < games as usize,
        "killed in the middle: {} rows",
        partial.len()
    );
    assert!(args(&killed).status().unwrap().success());
    assert!(args(&whole).status().unwrap().success());
    let resumed = rows_without_timing(&killed);
    let games_seen: Vec<u32> = resumed.iter().map(|r| r.game).collect();
    assert_eq!(
        games_seen,
        (1..=games).collect::<Vec<_>>(),
        "each game exactly once"
    );
    assert_eq!(resumed, rows_without_timing(&whole));
    // With several jobs the finished games need not be a prefix: compare by game number.
    for row in &partial {
        assert_eq!(
            &resumed[row.game as usize - 1],
            row,
            "finished games are kept, not replayed"
        );
    }
    for d in [killed, whole] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn resuming_a_finished_match_changes_no_file() {
    let out = temp_dir("finished");
    let cfg = config(4, 5);
    run_match(&cfg, &out, false).unwrap();
    let files = |dir: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        let mut all: Vec<_> = walk(dir)
            .into_iter()
            .map(|p| {
                let bytes = std::fs::read(&p).unwrap();
                (p, bytes)
            })
            .collect();
        all.sort();
        all
    };
    let before = files(&out);
    assert!(before.iter().any(|(p, _)| p.ends_with("match.toml")));
    let mut again = cfg.clone();
    again.jobs = 2; // how many games run at once is not part of the match
    run_match(&again, &out, false).unwrap();
    assert!(
        files(&out) == before,
        "a resume with nothing to play rewrote a file"
    );
    std::fs::remove_dir_all(out).unwrap();
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn resume_refuses_a_different_match() {
    let dir = temp_dir("different");
    run_match(&config(2, 1), &dir, false).unwrap();
    let err = run_match(
        &MatchConfig {
            komi: 7.5,
            ..config(2, 1)
        },
        &dir,
        false,
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("komi"), "{err}");
    // More games and other jobs are the same match: only the new games are played.
    let more = run_match(
        &MatchConfig {
            jobs: 2,
            ..config(4, 1)
        },
        &dir,
        false,
    )
    .unwrap();
    assert_eq!((more.rows.len(), more.played_now), (4, 2));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A folder whose games were recorded before the `history` key existed (its engine record
/// lacks the key) is not resumed by an engine that now gives its CNN the last moves; the
/// paper's MLP, which reads no history, resumes as before.
#[test]
fn resume_refuses_games_played_without_the_networks_last_moves() {
    let play = |name: &str, black: &str| {
        let dir = temp_dir(name);
        let c = MatchConfig {
            black: black.into(),
            max_moves: 6,
            ..config(1, 1)
        };
        run_match(&c, &dir, false).unwrap();
        // Rewrite the record as the build before the key wrote it.
        let header = dir.join("match.toml");
        let text = std::fs::read_to_string(&header).unwrap();
        assert!(text.contains("\"history\": true"), "{text}");
        let old: String = text
            .lines()
            .filter(|l| !l.contains("\"history\""))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&header, old).unwrap();
        let more = MatchConfig {
            black: black.into(),
            max_moves: 6,
            ..config(2, 1)
        };
        (dir.clone(), run_match(&more, &dir, false))
    };
    let (dir, cnn) = play(
        "history-cnn",
        "uct:sims=20,prune=nnq:models/cnn-human-5x32-gpu2:3@0",
    );
    let err = format!("{:#}", cnn.err().expect("the CNN engine is refused"));
    assert!(
        err.contains("history=false") && err.contains("last moves"),
        "{err}"
    );
    assert_eq!(rows_without_timing(&dir).len(), 1, "nothing was played");
    std::fs::remove_dir_all(dir).unwrap();
    let (dir, mlp) = play("history-mlp", "uct:sims=20,prune=nn:models/default:3@0");
    assert_eq!(mlp.unwrap().rows.len(), 2);
    std::fs::remove_dir_all(dir).unwrap();
}

/// `akushu match --sprt` prints the test's verdict (decision, LLR and bounds) on the
/// terminal, not only in summary.md.
#[test]
fn the_match_command_prints_the_sequential_tests_verdict() {
    let dir = temp_dir("sprt-cli");
    let out = dir.display().to_string();
    let args = [
        "match",
        "--black",
        "uct:sims=200",
        "--white",
        "random",
        "--games",
        "60",
        "--seed",
        "3",
        "--alternate",
        "--sprt",
        "elo0=0,elo1=100",
        "--quiet",
        "--out",
        &out,
    ];
    let (ok, text) = common::akushu(&args);
    assert!(ok, "{text}");
    let verdict = text
        .lines()
        .find(|l| l.starts_with("SPRT elo0=0 elo1=100"))
        .unwrap_or_else(|| panic!("no verdict in:\n{text}"));
    assert!(
        verdict.contains("H1 accepted") && verdict.contains("LLR") && verdict.contains("bounds"),
        "{verdict}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// `sprt` stops a match at the game that decides, whatever `jobs`; the summary records the
/// decision; a decided folder resumed with more games plays none.
#[test]
fn a_sequential_test_stops_the_match_where_it_decides() {
    let sprt = akushu::arena::sprt::Sprt::parse("elo0=0,elo1=100").unwrap();
    let c = |games, jobs| MatchConfig {
        black: "uct:sims=200".into(),
        alternate: true,
        sprt: Some(sprt),
        jobs,
        ..config(games, 3)
    };
    let one = temp_dir("sprt-one");
    let out = run_match(&c(60, 1), &one, false).unwrap();
    // 200 simulations nearly always beat the random mover: each win adds
    // ln(p1 / 0.5) = 0.247 to the LLR, so about 12 games cross ln(0.95 / 0.05) = 2.944.
    let state = sprt.run(out.rows.iter().map(arena::runner::a_score));
    assert_eq!(state.decision, akushu::arena::sprt::Decision::H1);
    assert_eq!(
        state.games,
        out.rows.len(),
        "one at a time: nothing past the decision"
    );
    assert!((12..20).contains(&state.games), "{state:?}");
    let decided = format!("after {} games", state.games);
    let summary = std::fs::read_to_string(one.join("summary.md")).unwrap();
    assert!(
        summary.contains("**H1 accepted**") && summary.contains(&decided),
        "{summary}"
    );
    let again = run_match(&c(100, 1), &one, false).unwrap();
    assert_eq!((again.played_now, again.rows.len()), (0, state.games));
    // The decision is in summary.json, and the intervals are said to follow a stop.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(one.join("summary.json")).unwrap()).unwrap();
    assert_eq!(json["sprt"]["decision"], "H1", "{json}");
    assert_eq!(json["sprt"]["games"], state.games, "{json}");
    assert_eq!(json["sprt"]["intervals_after_sequential_stop"], true);
    assert!(summary.contains("cover less than 95%"), "{summary}");
    // A decided folder stays decided: resumed under another test, or none, it plays no
    // game and keeps its own test.
    let other = akushu::arena::sprt::Sprt::parse("elo0=0,elo1=35").unwrap();
    for sprt in [Some(other), None] {
        let err = run_match(&MatchConfig { sprt, ..c(200, 1) }, &one, false)
            .err()
            .expect("refused");
        assert!(format!("{err:#}").contains("decided"), "{err:#}");
        assert_eq!(
            arena::record::read_csv(&one.join("games.csv"))
                .unwrap()
                .len(),
            state.games
        );
    }
    let summary = std::fs::read_to_string(one.join("summary.md")).unwrap();
    assert!(summary.contains("**H1 accepted**"), "{summary}");
    // Two at a time: the same deciding game, and at most the one game started beside it.
    let two = temp_dir("sprt-two");
    let out = run_match(&c(60, 2), &two, false).unwrap();
    assert!(
        (state.games..=state.games + 1).contains(&out.rows.len()),
        "{}",
        out.rows.len()
    );
    let summary = std::fs::read_to_string(two.join("summary.md")).unwrap();
    assert!(summary.contains(&decided), "{summary}");
    // A test needs the whole match in one folder.
    let sharded = MatchConfig {
        shard: Some("0/2".parse().unwrap()),
        ..c(60, 1)
    };
    let err = run_match(&sharded, &temp_dir("sprt-shard"), false)
        .err()
        .expect("refused");
    assert!(format!("{err:#}").contains("shard"), "{err:#}");
    for d in [one, two] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

/// Runs 2 games of `random` (black) against a fake GTP engine (white).
fn against_fake(mode: &str) -> Vec<GameRecord> {
    let dir = temp_dir(&format!("fake-{mode}"));
    let c = MatchConfig {
        white: fake_gtp(mode),
        games: 2,
        timeouts: GtpTimeouts {
            genmove_s: 0.5,
            command_s: 2.0,
        },
        ..config(2, 3)
    };
    let outcome = run_match(&c, &dir, false).unwrap();
    assert_eq!(
        outcome.rows.len(),
        2,
        "{mode}: the match goes on after an error"
    );
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(summary.contains("errors:"), "{summary}");
    std::fs::remove_dir_all(dir).unwrap();
    outcome.rows
}

/// A loss on time by an engine that got no CPU (it slept through its move) is the
/// machine's, not the engine's: the match plays the game again, says so, and after
/// `STARVED_REPLAYS` more starved tries stops with nothing recorded, so no forfeit ever
/// counts as a result.
#[test]
fn a_starved_loss_on_time_is_replayed_and_never_recorded() {
    let dir = temp_dir("starved");
    let c = MatchConfig {
        white: fake_gtp("asleep"),
        games: 1,
        time: Some(arena::runner::TimeSpec::per_move(0.1)),
        ..config(1, 3)
    };
    let err = run_match(&c, &dir, false)
        .err()
        .expect("starved every time");
    let msg = format!("{err:#}");
    assert!(
        msg.contains("the machine starved it")
            && msg.contains(&format!(
                "{} times in a row",
                arena::runner::STARVED_REPLAYS + 1
            ))
            && msg.contains("nothing was recorded"),
        "{msg}"
    );
    let rows = arena::record::read_csv(&dir.join("games.csv")).unwrap_or_default();
    assert!(rows.is_empty(), "{rows:?}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn failing_gtp_opponents_lose_by_error() {
    for (mode, expect) in [
        ("crash", "exited"),
        ("garbage", "garbage"),
        ("hang", "within 0.5s"),
        ("illegal", "illegal move A1"),
        ("badmove", "garbage"),
    ] {
        for row in against_fake(mode) {
            assert_eq!(row.reason, EndReason::Error, "{mode}: {row:?}");
            assert_eq!(
                (row.error_by.as_str(), row.winner.as_str()),
                ("W", "B"),
                "{mode}"
            );
            assert_eq!(row.result, "B+E");
            assert!(row.error.contains(expect), "{mode}: {}", row.error);
        }
    }
}

#[test]
fn crash_message_keeps_the_engines_last_words() {
    let row = &against_fake("crash")[0];
    assert!(row.error.contains("segmentation fault"), "{}", row.error);
}

#[test]
fn gtp_final_score_disagreement_is_recorded() {
    // The fake passes every move, so black (random) fills the board and wins by area,
    // while the fake claims W+99.
    for row in against_fake("pass") {
        assert_eq!(row.reason, EndReason::Passes);
        assert_eq!(row.winner, "B");
        assert_eq!(row.gtp_score, "white=W+99");
        assert!(row.score_disagreement);
    }
}

#[test]
fn shard_and_merge_equal_one_run() {
    let whole = temp_dir("merge-whole");
    let shards: Vec<PathBuf> = (0..3)
        .map(|i| temp_dir(&format!("merge-shard{i}")))
        .collect();
    let merged = temp_dir("merge-merged");
    let base = MatchConfig {
        alternate: true,
        ..config(10, 11)
    };
    run_match(&base, &whole, false).unwrap();
    for (i, dir) in shards.iter().enumerate() {
        let c = MatchConfig {
            shard: Some(Shard {
                index: i as u32,
                count: 3,
            }),
            ..base.clone()
        };
        let out = run_match(&c, dir, false).unwrap();
        assert!(out.rows.iter().all(|r| (r.game - 1) % 3 == i as u32));
    }
    let m = merge(&shards, &merged).unwrap();
    assert_eq!(m.rows.len(), 10);
    assert!(m.missing.is_empty() && m.missing_report().is_none());
    // Without shard 1 its games are missing, and the report traces them to it.
    let partial_dir = temp_dir("merge-partial");
    let partial = merge(&[shards[0].clone(), shards[2].clone()], &partial_dir).unwrap();
    assert_eq!(partial.missing, [2, 5, 8]);
    let report = partial.missing_report().unwrap();
    assert!(
        report.starts_with("3 of 10 games are missing")
            && report.contains("shard 1/3: games 2, 5, 8"),
        "{report}"
    );
    assert_eq!(rows_without_timing(&merged), rows_without_timing(&whole));
    assert_eq!(
        std::fs::read_dir(merged.join("sgf")).unwrap().count(),
        10,
        "every SGF copied"
    );
    let one = arena::runner::ResultsDir::new(&whole)
        .read_header()
        .unwrap()
        .unwrap();
    let two = arena::runner::ResultsDir::new(&merged)
        .read_header()
        .unwrap()
        .unwrap();
    assert!(one.config.same_match(&two.config));
    // A folder of another match is refused.
    let other = temp_dir("merge-other");
    run_match(&config(2, 99), &other, false).unwrap();
    let mut bad = shards.clone();
    bad.push(other.clone());
    assert!(merge(&bad, &temp_dir("merge-bad")).is_err());
    for d in shards
        .into_iter()
        .chain([whole, merged, other, partial_dir])
    {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn unknown_spec_fails_before_any_game() {
    let dir = temp_dir("unknown");
    let c = MatchConfig {
        white: "nonsense:x=1".into(),
        ..config(2, 1)
    };
    let err = run_match(&c, &dir, false).err().unwrap().to_string();
    assert!(err.contains("nonsense"), "{err}");
    assert!(!dir.join("games.csv").exists());
    let _ = std::fs::remove_dir_all(dir);
}

/// A real game against GNU Go at level 1 when it is installed (CI installs it; set
/// AKUSHU_REQUIRE_GNUGO=1 to make its absence a failure).
#[test]
#[ignore = "needs GNU Go (sh scripts/install-gnugo.sh): cargo test --release -- --ignored"]
fn plays_gnugo_when_installed() {
    if arena::gtp::find_program("gnugo").is_none() {
        common::skip_or_fail(
            "GNUGO",
            "plays_gnugo_when_installed",
            "GNU Go is not installed",
            "sh scripts/install-gnugo.sh",
        );
        return;
    }
    let dir = temp_dir("gnugo");
    let c = MatchConfig {
        white: "gtp:gnugo --mode gtp --level 1 --chinese-rules".into(),
        ..config(1, 2)
    };
    let row = run_match(&c, &dir, false).unwrap().rows.remove(0);
    assert_eq!(row.error, "");
    assert_eq!(row.winner, "W", "GNU Go beats a random mover: {row:?}");
    if row.reason != EndReason::Resign {
        assert!(row.gtp_score.starts_with("white="), "{row:?}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// `akushu rate` over the committed match folders: a table anchored on GNU Go level 10,
/// with the engines that played it rated against it.
#[test]
fn rate_prints_ratings_anchored_on_gnugo_for_the_committed_runs() {
    let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("report/runs");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_akushu"))
        .arg("rate")
        .arg(&runs)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let anchor = text
        .lines()
        .find(|l| l.contains("gtp:gnugo --mode gtp --level 10"))
        .expect("GNU Go level 10 is in the committed runs");
    assert!(anchor.contains("| 0 | reference |"), "{anchor}");
    // strong:sims=2000 won 175 of 200 against it: clearly above, with an interval.
    let strong = text
        .lines()
        .find(|l| l.contains("| `strong:sims=2000 ["))
        .expect("strong at 2,000 simulations played GNU Go");
    // | rank in group A (linked to GNU Go) | player | Elo | interval | games | score |
    let cells: Vec<&str> = strong.split('|').map(str::trim).collect();
    assert!(
        cells[1]
            .strip_prefix('A')
            .is_some_and(|r| r.parse::<usize>().is_ok_and(|r| r >= 1)),
        "{strong}"
    );
    let elo: f64 = cells[3].parse().unwrap();
    assert!((250.0..450.0).contains(&elo), "{strong}");
    assert!(cells[4].starts_with('[') && cells[6] == "0.875", "{strong}");
    let err = std::process::Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args(["rate", "tests/fixtures/sgf"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(!err.status.success());
    assert!(String::from_utf8_lossy(&err.stderr).contains("no match folders"));
}

/// A game the referee's machine cannot run (no file descriptors left to start a GTP engine)
/// is nobody's loss: the match stops with nothing recorded for it, and a resume without
/// the limit plays it. Tried under several descriptor limits, since how many the process
/// needs besides the engine's pipes depends on the machine.
#[cfg(unix)]
#[test]
fn a_referee_fault_is_not_recorded_as_a_loss() {
    let akushu = env!("CARGO_BIN_EXE_akushu");
    let black = format!("gtp:{akushu} gtp --engine random");
    let mut faults = 0;
    for limit in 10..=16 {
        let dir = temp_dir(&format!("referee-fault-{limit}"));
        let script = format!(
            "ulimit -n {limit}; exec \"$0\" match --black \"$1\" --white random --games 4 \
             --jobs 2 --quiet --out \"$2\""
        );
        let out = std::process::Command::new("sh")
            .args(["-c", &script, akushu, &black])
            .arg(&dir)
            .env("RUST_BACKTRACE", "0")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("could not be played") {
            faults += 1;
            assert!(stderr.contains("nothing was recorded"), "{stderr}");
        }
        // Whatever happened, no game is recorded as lost to the machine's limit.
        if let Ok(rows) = arena::record::read_csv(&dir.join("games.csv")) {
            for r in &rows {
                assert!(!r.error.contains("Too many open files"), "{r:?}");
            }
        }
        if !out.status.success() && dir.join("match.toml").exists() {
            // A resume without the limit plays what is missing, and nothing lost by error.
            let c = MatchConfig {
                black: black.clone(),
                games: 4,
                jobs: 2,
                ..config(4, 1)
            };
            let done = run_match(&c, &dir, false).unwrap();
            assert_eq!(done.rows.len(), 4);
            assert!(
                done.rows.iter().all(|r| r.error.is_empty()),
                "{:?}",
                done.rows
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        faults > 0,
        "no descriptor limit from 10 to 16 made the referee fail"
    );
}

/// `match summarize` rewrites a missing or stale `summary.md` from the folder's games and
/// touches nothing else.
#[test]
fn summarize_rewrites_a_missing_summary_from_the_games() {
    let dir = temp_dir("summarize");
    run_match(&config(3, 5), &dir, false).unwrap();
    let want = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    let csv = std::fs::read(dir.join("games.csv")).unwrap();
    std::fs::remove_file(dir.join("summary.md")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args(["match", "summarize"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("summary.md")).unwrap(),
        want
    );
    assert_eq!(std::fs::read(dir.join("games.csv")).unwrap(), csv);
    let out = Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args(["match", "summarize", "/nonexistent-folder"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    std::fs::remove_dir_all(dir).unwrap();
}

/// Without the memory for a search tree (a low `ulimit -v`), a match stops with a hint about
/// `max_nodes` and records no game as lost to it, instead of aborting. Tried under several
/// limits, since what the process needs besides the trees depends on the machine.
#[cfg(unix)]
#[test]
fn no_memory_for_a_tree_is_named_and_not_recorded_as_a_loss() {
    let akushu = env!("CARGO_BIN_EXE_akushu");
    let mut hinted = 0;
    for limit in [150_000, 200_000, 250_000, 300_000] {
        let dir = temp_dir(&format!("no-memory-{limit}"));
        let script = format!(
            "ulimit -v {limit}; exec \"$0\" match --black uct:sims=200 --white uct:sims=200 \
             --games 2 --jobs 2 --quiet --out \"$1\""
        );
        let out = std::process::Command::new("sh")
            .args(["-c", &script, akushu])
            .arg(&dir)
            .env("RUST_BACKTRACE", "0")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.code().is_some(), "killed by a signal: {stderr}");
        if stderr.contains("max_nodes") {
            hinted += 1;
        }
        if let Ok(rows) = arena::record::read_csv(&dir.join("games.csv")) {
            for r in &rows {
                assert!(!r.error.contains("cannot allocate"), "{r:?}");
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(hinted > 0, "no memory limit made the tree allocation fail");
}

/// A suite of `n` openings (black's and white's first moves on distinct points) as an
/// `.sgfs` file in `dir`.
fn write_suite(dir: &Path, n: usize) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let points = ["ee", "cc", "gg", "cg", "gc", "ec", "ce", "eg", "ge", "dd"];
    let lines: String = (0..n)
        .map(|i| {
            format!(
                "(;GM[1]SZ[9];B[{}];W[{}])\n",
                points[i % points.len()],
                points[(i + 3) % points.len()]
            )
        })
        .collect();
    let path = dir.join("suite.sgfs");
    std::fs::write(&path, lines).unwrap();
    path
}

fn summary_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// Two deterministic engines (random movers with seeds of their own) replay one game from
/// the empty board: the unpaired summary flags every repeat. The same engines on a suite
/// in pairs play each opening twice with colours swapped and no pair repeats another; the
/// engines are told each opening as played moves, the SGFs record it, and the summary gives
/// the pentanomial beside the trinomial figure.
#[test]
fn repeated_games_are_flagged_and_pairs_from_a_suite_do_not_repeat() {
    let engines = |games| MatchConfig {
        black: "random:seed=5".into(),
        white: "random:seed=9".into(),
        ..config(games, 1)
    };
    let plain = temp_dir("repeats-plain");
    run_match(&engines(6), &plain, false).unwrap();
    let summary = std::fs::read_to_string(plain.join("summary.md")).unwrap();
    assert!(
        summary.contains("Repeated games (of 6 compared): 5 identical to an earlier game"),
        "{summary}"
    );
    assert!(summary.contains("game 2 = game 1"), "{summary}");
    assert_eq!(summary_json(&plain)["repeats"]["identical"], 5);

    let suite_dir = temp_dir("repeats-suite");
    let suite_path = write_suite(&suite_dir, 4);
    let suite = arena::openings::Suite::read(&suite_path).unwrap();
    let paired = |games| MatchConfig {
        openings: Some(suite.spec(&suite_path)),
        pairs: true,
        ..engines(games)
    };
    let out = temp_dir("repeats-pairs");
    let played = run_match(&paired(8), &out, false).unwrap();
    assert_eq!(played.rows.len(), 8);
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("Repeated games (of 8 compared): 0 identical to an earlier game, 0 more"),
        "{summary}"
    );
    assert!(
        summary.contains("4 complete; A's score a pair"),
        "{summary}"
    );
    assert!(summary.contains("(pentanomial, 95%)") && summary.contains("(trinomial W/D/L, 95%)"));
    let json = summary_json(&out);
    let counts: u64 = json["pairs"]["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(counts, 4);
    for g in 1..=8u32 {
        let sgf = std::fs::read_to_string(out.join(format!("sgf/game-{g:05}.sgf"))).unwrap();
        let rec = akushu::sgf::parse_record(sgf.as_bytes(), "g", "g").unwrap();
        let k = ((g - 1) / 2) as usize;
        // Both games of pair k start with opening k; colours swap within the pair.
        assert_eq!(rec.moves[..2], suite.openings[k].moves[..], "game {g}");
        let row = &played.rows[g as usize - 1];
        let a_black = g % 2 == 1;
        assert_eq!(row.black_player.as_str(), if a_black { "A" } else { "B" });
        assert!(
            sgf.contains(&format!(
                "opening {} of 4 of suite {}",
                k + 1,
                suite.checksum()
            )),
            "{sgf}"
        );
        assert!(sgf.contains("C[end of the set opening"), "{sgf}");
    }
    let header = std::fs::read_to_string(out.join("match.toml")).unwrap();
    assert!(
        header.contains(&suite.checksum().to_string()) && header.contains("pairs = true"),
        "{header}"
    );

    // Resumed from its first pair, the match ends with the games of one run.
    let resumed = temp_dir("repeats-resumed");
    run_match(&paired(2), &resumed, false).unwrap();
    run_match(&paired(8), &resumed, false).unwrap();
    assert_eq!(rows_without_timing(&resumed), rows_without_timing(&out));
    for g in 1..=8 {
        let name = format!("sgf/game-{g:05}.sgf");
        let strip = |d: &Path| {
            std::fs::read_to_string(d.join(&name))
                .unwrap()
                .replace(&suite_path.display().to_string(), "")
        };
        assert_eq!(strip(&resumed), strip(&out), "{name}");
    }
    // An odd number of games cannot be paired; a changed suite is refused on resume.
    let e = run_match(&paired(7), &temp_dir("repeats-odd"), false)
        .err()
        .expect("refused");
    assert!(format!("{e:#}").contains("even --games"), "{e:#}");
    write_suite(&suite_dir, 3);
    let e = run_match(&paired(8), &out, false).err().expect("refused");
    assert!(format!("{e:#}").contains("the suite has changed"), "{e:#}");
    for d in [plain, suite_dir, out, resumed] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A folder's plan is fixed at its first game: `match` refuses more games (or another
/// test) without `--extend`; with it, the change is a dated line of match.toml's history,
/// which the summary prints, as it prints the machine (and kernels) of each run that played.
#[test]
fn changing_the_plan_of_a_folder_with_games_needs_extend_and_is_recorded() {
    let out = temp_dir("extend");
    let suite = write_suite(&temp_dir("extend-suite"), 2);
    let run = |games: &str, extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_akushu"))
            .args(["match", "--black", "random", "--white", "random:seed=3"])
            .args(["--games", games, "--quiet", "--pairs", "--openings"])
            .arg(&suite)
            .arg("--out")
            .arg(&out)
            .args(extra)
            .env("AKUSHU_NO_AVX512", "1")
            .output()
            .unwrap()
    };
    let first = run("2", &[]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let header = std::fs::read_to_string(out.join("match.toml")).unwrap();
    assert!(
        header.contains("[plan]") && header.contains("planned_games = 2"),
        "{header}"
    );
    assert!(header.contains("Z: planned 2 games"), "{header}");
    let machines = |header: &str| {
        let plan: toml::Value = toml::from_str(header).unwrap();
        plan["plan"]["machines"]
            .as_array()
            .map(|lines| {
                lines
                    .iter()
                    .map(|l| l.as_str().unwrap().to_string())
                    .collect::<Vec<String>>()
            })
            .unwrap_or_default()
    };
    let ran = machines(&header);
    assert_eq!(ran.len(), 1, "{header}");
    for says in [
        "logical CPUs, simd ",
        "set: AKUSHU_NO_AVX512",
        "; network kernels 8-bit ",
    ] {
        assert!(ran[0].contains(says), "{says}: {}", ran[0]);
    }
    let refused = run("4", &[]);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("needs --extend") && err.contains("games 2 -> 4"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("match.toml")).unwrap(),
        header
    );
    let extended = run("4", &["--extend"]);
    assert!(
        extended.status.success(),
        "{}",
        String::from_utf8_lossy(&extended.stderr)
    );
    let header = std::fs::read_to_string(out.join("match.toml")).unwrap();
    assert!(
        header.contains("Z: extended after 2 games: games 2 -> 4"),
        "{header}"
    );
    assert_eq!(machines(&header).len(), 2, "each run that played: {header}");
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("Machines (one line per run that played games):"),
        "{summary}"
    );
    assert!(
        summary.contains("Plan history (2 games planned at the first game):"),
        "{summary}"
    );
    assert!(
        summary.contains("extended after 2 games: games 2 -> 4"),
        "{summary}"
    );
    // The same plan again changes nothing and needs no flag.
    assert!(run("4", &[]).status.success());
    let _ = std::fs::remove_dir_all(&out);
}

/// `match openings` with `akushu analysis` as the teacher, spelled with a leading `akushu`
/// as README spells it: the running program answers (akushu need not be on the PATH), and
/// the suite it writes is one `match --openings` plays.
#[test]
fn a_suite_made_with_akushu_as_the_teacher_is_played() {
    let dir = common::scratch("arena", "suite");
    let suite = dir.join("suite.sgfs");
    let games = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("report/runs/strong_gnugo/strong_2000/sgf.tar.xz");
    let (ok, text) = common::akushu(&[
        "match",
        "openings",
        "--from",
        &games.display().to_string(),
        "--teacher",
        "akushu analysis --engine uct:sims=4",
        "--winrate",
        "0-1",
        "--count",
        "3",
        "--visits",
        "4",
        "--out",
        &suite.display().to_string(),
    ]);
    assert!(ok, "{text}");
    let records = std::fs::read_to_string(&suite).unwrap();
    assert_eq!(
        records.lines().filter(|l| l.starts_with('(')).count(),
        3,
        "{records}"
    );
    let (ok, text) = common::akushu(&[
        "match",
        "--black",
        "random",
        "--white",
        "random",
        "--openings",
        &suite.display().to_string(),
        "--pairs",
        "--games",
        "2",
        "--quiet",
        "--out",
        &dir.join("m").display().to_string(),
    ]);
    assert!(ok, "{text}");
}

/// An SGF file holding a collection of game trees gives one opening per tree (each named
/// by its tree), not only its first; an opening as long as the move cap, whose games would
/// end at the cap before either engine moved, is refused before any folder is written; a
/// FIFO is refused unread.
#[test]
fn every_game_tree_of_a_file_is_an_opening_and_the_move_cap_must_leave_moves() {
    let dir = common::scratch("arena", "suite-trees");
    let file = dir.join("two.sgf");
    std::fs::write(
        &file,
        "(;GM[1]SZ[9];B[ee];W[cc])(;GM[1]SZ[9];B[dd];W[ff];B[gg])\n",
    )
    .unwrap();
    let suite = arena::openings::Suite::read(&file).unwrap();
    assert_eq!(suite.openings.len(), 2, "{suite:?}");
    assert_eq!(suite.openings[1].moves.len(), 3);
    assert!(
        suite.openings[1].source.ends_with("two.sgf (game tree 2)"),
        "{}",
        suite.openings[1].source
    );
    let bad = dir.join("bad.sgf");
    std::fs::write(&bad, "(;GM[1]SZ[9];B[ee])(;GM[1]SZ[9];B[ee];W[ee])\n").unwrap();
    let e = format!("{:#}", arena::openings::Suite::read(&bad).unwrap_err());
    assert!(
        e.contains("bad.sgf (game tree 2)") && e.contains("occupied"),
        "{e}"
    );

    let out = dir.join("capped");
    let (ok, text) = common::akushu(&[
        "match",
        "--black",
        "random",
        "--white",
        "random",
        "--openings",
        &file.display().to_string(),
        "--max-moves",
        "3",
        "--games",
        "2",
        "--quiet",
        "--out",
        &out.display().to_string(),
    ]);
    assert!(!ok, "{text}");
    assert!(
        text.contains("opening 2")
            && text.contains("has 3 moves, and the move cap (--max-moves) is 3"),
        "{text}"
    );
    assert!(!out.exists(), "nothing written");
    let e = run_match(
        &MatchConfig {
            openings: Some(suite.spec(&file)),
            max_moves: 2,
            ..config(2, 1)
        },
        &dir.join("lib"),
        false,
    )
    .err()
    .expect("refused");
    assert!(format!("{e:#}").contains("opening 1"), "{e:#}");
    // A FIFO as the suite is refused unread (it once waited for a writer for good).
    let fifo = dir.join("suite.fifo");
    let c = std::ffi::CString::new(fifo.display().to_string()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path this test owns.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let e = format!("{:#}", arena::openings::Suite::read(&fifo).unwrap_err());
    assert!(e.contains("is not a regular file or a folder"), "{e}");
}

/// The opening-suite maker refuses what would make no suite before asking a teacher: no
/// openings (`--count 0`), no visits, a `--from` that does not exist (named, not counted as
/// a record); and a band no position falls in leaves no empty `.sgfs` behind.
#[test]
fn the_opening_maker_refuses_what_would_make_no_suite() {
    let dir = common::scratch("arena", "suite-none");
    let games =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("report/runs/strong_gnugo/strong_2000/sgf");
    let teacher = format!(
        "python3 -B {}/tests/fixtures/teacher/fake_teacher.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = dir.join("suite.sgfs");
    let make = |extra: &[&str]| {
        let mut args = vec![
            "match".to_string(),
            "openings".into(),
            "--from".into(),
            games.display().to_string(),
            "--teacher".into(),
            teacher.clone(),
            "--out".into(),
            out.display().to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        common::akushu(&args)
    };
    for (extra, says) in [
        (
            &["--count", "0"][..],
            "count: 0 is not in the allowed range 1",
        ),
        (
            &["--visits", "0"][..],
            "visits: 0 is not in the allowed range 1",
        ),
        (
            &["--from", "no-such-records"][..],
            "--from no-such-records: no such file or folder",
        ),
        // The scripted teacher's win rates are 0.05, 0.15, ...: none in this band.
        (
            &["--winrate", "0-0.01", "--count", "3"][..],
            "nothing written to",
        ),
    ] {
        let (ok, text) = make(extra);
        assert!(!ok && text.contains(says), "{extra:?}: {text}");
        assert!(!out.exists(), "{extra:?}: no suite file is left");
    }
    let (ok, text) = make(&["--winrate", "0-1", "--count", "3", "--visits", "1"]);
    assert!(ok && out.exists(), "{text}");
}

/// `rate` on a match folder whose games.csv is gone says so by name instead of rating its
/// players from no games without a word.
#[test]
fn rate_names_a_match_folder_without_its_games() {
    let dir = common::scratch("arena", "rate-no-games");
    let out = dir.join("m");
    let games = |extra: &[&str]| {
        let o = out.display().to_string();
        let mut args = vec![
            "match",
            "--black",
            "random",
            "--white",
            "uct:sims=8",
            "--games",
            "2",
            "--quiet",
            "--out",
            &o,
        ];
        args.extend_from_slice(extra);
        common::akushu(&args)
    };
    let (ok, text) = games(&[]);
    assert!(ok, "{text}");
    std::fs::remove_file(out.join("games.csv")).unwrap();
    let (ok, text) = common::akushu(&["rate", &out.display().to_string()]);
    assert!(
        ok && text.contains("has a match.toml but no games.csv: no game of it is counted"),
        "{text}"
    );
}
