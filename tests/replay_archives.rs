//! Replays real game records through the rules core (the record-replay tests):
//! every game of `../shared/data/engine9x9.tar.xz`, the first 10,000 OGS games (and, with
//! `--ignored`, all 220,304), with no rule disagreement other than the records that really
//! are illegal. Main-line move and pass counts are checked against the shared OGS index.
//!
//! The archives live outside the repository; without them these tests say so and pass,
//! unless `AKUSHU_REQUIRE_DATA=1` is set (then a missing archive fails).

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::ops::ControlFlow;
use std::path::PathBuf;

use akushu::sgf::{self, ParseConfig, Superko};

mod common;
use common::shared_data;

/// The OGS records that really are illegal, with the move and the reason replay gives.
const ILLEGAL_OGS: [(&str, &str); 7] = [
    (
        "ogs_236201",
        "move 40 W B1 is illegal: point B1 is occupied",
    ),
    (
        "ogs_1302929",
        "move 47: B[dundefined] is not a point on the 9x9 board",
    ),
    (
        "ogs_9787875",
        "move 80 W J5 is illegal: move at J5 is suicide",
    ),
    (
        "ogs_11430183",
        "move 70 W C9 is illegal: move at C9 is suicide",
    ),
    (
        "ogs_11562345",
        "move 63 B D5 is illegal: move at D5 is suicide",
    ),
    (
        "ogs_14817581",
        "move 72 W J5 is illegal: move at J5 is suicide",
    ),
    (
        "ogs_16667468",
        "move 63 B J8 is illegal: move at J8 is suicide",
    ),
];

/// Outcome of replaying part of an archive.
#[derive(Default)]
struct Tally {
    records: usize,
    games: usize,
    moves: usize,
    /// id -> (main-line moves, passes) of every game that replayed.
    counts: HashMap<String, (usize, usize)>,
    /// id -> reason of every record that did not parse or replay.
    failures: BTreeMap<String, String>,
}

fn replay_archive(path: &PathBuf, limit: usize) -> Tally {
    let mut t = Tally::default();
    sgf::source::for_each(std::slice::from_ref(path), |raw| {
        let raw = raw.expect("the archive reads cleanly");
        t.records += 1;
        for rec in sgf::parse_records(&raw.bytes, &raw.id, &raw.source, ParseConfig::default()) {
            let rec = match rec {
                Ok(r) => r,
                Err(e) => {
                    t.failures.insert(raw.id.clone(), e.to_string());
                    continue;
                }
            };
            match sgf::replay::check(&rec, Superko::Never) {
                Ok(_) => {
                    t.games += 1;
                    t.moves += rec.moves.len();
                    t.counts
                        .insert(rec.id.clone(), (rec.moves.len(), rec.passes()));
                }
                Err(e) => {
                    t.failures.insert(rec.id.clone(), e.to_string());
                }
            }
        }
        if t.records >= limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    t
}

/// `game_id -> (n_moves, n_pass)` from the shared index.
fn index_counts(path: &PathBuf) -> HashMap<String, (usize, usize)> {
    let mut text = Vec::new();
    liblzma::read::XzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut text)
        .unwrap();
    let mut rd = csv::Reader::from_reader(text.as_slice());
    let h = rd.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (id, nm, np) = (col("game_id"), col("n_moves"), col("n_pass"));
    rd.records()
        .map(|r| {
            let r = r.unwrap();
            (
                format!("ogs_{}", &r[id]),
                (r[nm].parse().unwrap(), r[np].parse().unwrap()),
            )
        })
        .collect()
}

fn check_against_known(t: &Tally) {
    let known: HashMap<&str, &str> = ILLEGAL_OGS.into_iter().collect();
    for (id, reason) in &t.failures {
        assert_eq!(
            known.get(id.as_str()),
            Some(&reason.as_str()),
            "{id} failed unexpectedly: {reason}"
        );
    }
}

fn check_counts(t: &Tally) {
    let Some(index) = shared_data("ogs9x9_index.csv.xz") else {
        return;
    };
    let index = index_counts(&index);
    for (id, counts) in &t.counts {
        assert_eq!(
            index.get(id),
            Some(counts),
            "{id}: (moves, passes) vs the index"
        );
    }
}

#[test]
fn every_engine_game_replays() {
    let Some(path) = shared_data("engine9x9.tar.xz") else {
        return;
    };
    let t = replay_archive(&path, usize::MAX);
    assert_eq!(t.records, 411);
    assert!(t.failures.is_empty(), "{:?}", t.failures);
    assert_eq!(t.games, 411);
    assert_eq!(t.moves, 26_497, "main-line moves (variations excluded)");
}

#[test]
fn ten_thousand_ogs_games_replay() {
    let Some(path) = shared_data("ogs9x9.tar.xz") else {
        return;
    };
    let t = replay_archive(&path, 10_000);
    assert_eq!(t.records, 10_000);
    check_against_known(&t);
    assert_eq!(t.games + t.failures.len(), 10_000);
    check_counts(&t);
}

/// All 220,304 OGS records: exactly the 7 known illegal ones fail (about 20 s of CPU).
#[test]
#[ignore = "reads the whole OGS archive (about 20 s): cargo test --release -- --ignored"]
fn whole_ogs_archive_replays_except_the_seven_illegal_games() {
    let Some(path) = shared_data("ogs9x9.tar.xz") else {
        return;
    };
    let t = replay_archive(&path, usize::MAX);
    assert_eq!(t.records, 220_304);
    check_against_known(&t);
    let failed: Vec<&str> = t.failures.keys().map(String::as_str).collect();
    let mut want: Vec<&str> = ILLEGAL_OGS.iter().map(|x| x.0).collect();
    want.sort();
    assert_eq!(failed, want);
    assert_eq!(t.games, 220_297);
    check_counts(&t);
}
