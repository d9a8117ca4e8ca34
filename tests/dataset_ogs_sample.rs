//! Builds a dataset from the first 4,000 records of the real OGS archive with the shared
//! index and the paper-like filter, and checks the games and positions against what the
//! index itself says about those records.
//!
//! Skipped (with a note) when `../shared/data` is absent, unless `AKUSHU_REQUIRE_DATA=1`.

use std::collections::{BTreeSet, HashMap};
use std::io::Read;
use std::path::PathBuf;

use akushu::dataset::build::{BuildConfig, build};
use akushu::dataset::filter::{FilterConfig, RankScope};
use akushu::dataset::{Split, read_split};

mod common;
use common::shared_data;

/// The column named `name` ("id" in `games.csv`, "game" in `skipped.csv`).
fn ids_in(path: &PathBuf, name: &str) -> Vec<String> {
    let mut rd = csv::Reader::from_path(path).unwrap();
    let col = rd
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == name)
        .unwrap();
    rd.records().map(|r| r.unwrap()[col].to_string()).collect()
}

#[test]
fn ogs_sample_matches_the_index() {
    let (Some(archive), Some(index)) = (
        shared_data("ogs9x9.tar.xz"),
        shared_data("ogs9x9_index.csv.xz"),
    ) else {
        return;
    };
    let out = std::env::temp_dir().join(format!("akushu-ogs-sample-{}", std::process::id()));
    let cfg = BuildConfig {
        inputs: vec![archive],
        index: Some(index.clone()),
        limit: 4000,
        include_passes: true,
        filter: FilterConfig {
            min_moves: 20,
            no_handicap: true,
            allow_setup: true,
            result_known: true,
            exclude_bots: true,
            min_rank: Some("1d".into()),
            rank_scope: RankScope::Either,
            ..FilterConfig::default()
        },
        ..BuildConfig::default()
    };
    let m = build(&cfg, &out, false).unwrap();
    assert_eq!(m.records_read, 4000);

    // The same filter computed from the index columns alone.
    let mut text = Vec::new();
    liblzma::read::XzDecoder::new(std::fs::File::open(&index).unwrap())
        .read_to_end(&mut text)
        .unwrap();
    let mut rd = csv::Reader::from_reader(text.as_slice());
    let h = rd.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let c = [
        "game_id",
        "bot_suspect",
        "RE",
        "n_moves",
        "HA",
        "BR_num",
        "WR_num",
    ]
    .map(col);
    let mut expected: HashMap<String, (bool, u64)> = HashMap::new();
    for r in rd.records() {
        let r = r.unwrap();
        let dan = |i: usize| r[i].parse::<i32>().is_ok_and(|v| v >= 1);
        let n: u64 = r[c[3]].parse().unwrap();
        let keep = &r[c[1]] == "0"
            && !matches!(&r[c[2]], "" | "Void" | "?")
            && n >= 20
            && r[c[4]].parse::<u32>().unwrap_or(0) < 2
            && (dan(c[5]) || dan(c[6]));
        expected.insert(format!("ogs_{}", &r[c[0]]), (keep, n));
    }

    // Which records were read: accepted games plus every skip.
    let games = ids_in(&out.join("games.csv"), "id");
    let skipped = ids_in(&out.join("skipped.csv"), "game");
    assert_eq!(games.len() + skipped.len(), 4000);
    let want: BTreeSet<&String> = games
        .iter()
        .chain(&skipped)
        .filter(|id| expected[*id].0)
        .collect();
    let got: BTreeSet<&String> = games.iter().collect();
    assert_eq!(got, want);
    assert!(got.len() > 300, "a dan sample: {}", got.len());
    let positions: u64 = games.iter().map(|id| expected[id].1).sum();
    assert_eq!(m.positions, positions);
    let read: u64 = Split::ALL
        .iter()
        .map(|&s| read_split(&out, s).unwrap().len() as u64)
        .sum();
    assert_eq!(read, positions);
    std::fs::remove_dir_all(out).unwrap();
}
