//! `akushu eval --by phase,rank --breakdown-csv --positions-csv` end to end through the
//! binary on a small dataset built from seeded games: the groups of a breakdown add up to the
//! whole evaluation, a group's figures are those of its positions in the per-position export,
//! and the export lists every evaluated position once per model.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use akushu::rules::{Game, Move, Point};
use akushu::util::rng::FastRng;

mod common;
use common::akushu;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("akushu-breakdown-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `n` seeded random legal games of 20 to 89 moves as SGF files in `dir`. Game `i` records
/// ranks from a small cycle (kyu, dan, one side only, none), so every rank band the test
/// reads has positions and some have none recorded.
fn write_games(dir: &Path, n: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let ranks = [
        "BR[12k]WR[6k]",
        "BR[2k]WR[1d]",
        "BR[4d]",
        "",
        "BR[7d]WR[3d]",
    ];
    for i in 0..n {
        let mut rng = FastRng::new(5000 + i as u64);
        let moves = 20 + rng.below(70) as usize;
        let mut game = Game::new(6.5);
        let mut sgf = format!(
            "(;GM[1]FF[4]SZ[9]KM[6.5]RU[Chinese]RE[B+R]{}",
            ranks[i % ranks.len()]
        );
        let mut tries = 0;
        while game.move_count() < moves && tries < 10_000 {
            tries += 1;
            let p = Point::from_index(rng.below(81) as usize).unwrap();
            let c = game.to_move();
            if game.play(Move::Play(p)).is_ok() {
                let colour = if c == akushu::rules::Color::Black {
                    'B'
                } else {
                    'W'
                };
                sgf.push_str(&format!(";{colour}[{}]", p.to_sgf()));
            }
        }
        sgf.push(')');
        std::fs::write(dir.join(format!("g{i}.sgf")), sgf).unwrap();
    }
}

/// A CSV file as rows of `column -> value`.
fn read_csv(path: &Path) -> Vec<HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let h = r.headers().unwrap().clone();
    r.records()
        .map(|row| {
            let row = row.unwrap();
            h.iter()
                .zip(row.iter())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn breakdown_groups_add_up_and_match_the_per_position_export() {
    let dir = temp("main");
    let games = dir.join("games");
    write_games(&games, 60);
    let data = dir.join("data");
    let (ok, text) = akushu(&[
        "dataset",
        "build",
        "--sgf",
        games.to_str().unwrap(),
        "--out",
        data.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(ok, "{text}");
    let (summary, breakdown, export) = (
        dir.join("summary.csv"),
        dir.join("breakdown.csv"),
        dir.join("positions.csv"),
    );
    let (ok, text) = akushu(&[
        "eval",
        "--data",
        data.to_str().unwrap(),
        "--split",
        "all",
        "--model",
        "rules",
        "--model",
        "random",
        "--by",
        "phase,rank",
        "--summary",
        summary.to_str().unwrap(),
        "--breakdown-csv",
        breakdown.to_str().unwrap(),
        "--positions-csv",
        export.to_str().unwrap(),
    ]);
    assert!(ok, "{text}");
    assert!(
        text.contains("x<=10% legal") && text.contains("1-10"),
        "{text}"
    );

    let summary = read_csv(&summary);
    let breakdown = read_csv(&breakdown);
    let export = read_csv(&export);
    let num = |row: &HashMap<String, String>, k: &str| -> f64 { row[k].parse().unwrap() };
    for s in &summary {
        let model = &s["model"];
        let n = num(s, "positions") as usize;
        assert!(n > 1000, "{n} positions");
        let mine: Vec<_> = export.iter().filter(|r| &r["model"] == model).collect();
        // One export row per evaluated (non-pass) position.
        assert_eq!(mine.len(), n, "{model}");
        for by in ["phase", "rank"] {
            let groups: Vec<_> = breakdown
                .iter()
                .filter(|r| &r["model"] == model && r["by"] == by)
                .collect();
            assert!(groups.len() >= 3, "{model} {by}: {groups:?}");
            let total: f64 = groups.iter().map(|g| num(g, "positions")).sum();
            assert_eq!(total as usize, n, "{model} {by}: groups add up to n");
        }
        assert!(
            breakdown
                .iter()
                .any(|r| &r["model"] == model && r["group"] == "unknown"),
            "games without ranks form the unknown group"
        );
        // A group's figures are those of its own positions in the export.
        let group_of = |g: &str, r: &HashMap<String, String>| -> bool {
            let m: u32 = r["move"].parse().unwrap();
            match g {
                "1-10" => (1..=10).contains(&m),
                "21-40" => (21..=40).contains(&m),
                "<=10k" => r["rank"] == "12k",
                "unknown" => r["rank"] == "?",
                _ => unreachable!(),
            }
        };
        for g in ["1-10", "21-40", "<=10k", "unknown"] {
            let row = breakdown
                .iter()
                .find(|r| &r["model"] == model && r["group"] == g)
                .unwrap_or_else(|| panic!("{model}: no group {g}"));
            let rows: Vec<_> = mine.iter().filter(|r| group_of(g, r)).collect();
            assert_eq!(rows.len(), num(row, "positions") as usize, "{model} {g}");
            let share = |hit: &dyn Fn(&HashMap<String, String>) -> bool| {
                rows.iter().filter(|r| hit(r)).count() as f64 / rows.len() as f64
            };
            let top1 = share(&|r| r["played"] == r["top1"]);
            assert!((top1 - num(row, "top1")).abs() < 1e-9, "{model} {g} top-1");
            assert_eq!(top1, share(&|r| r["rank_best"] == "0"), "{model} {g}");
            let top5 = share(&|r| r["rank_best"].parse::<u32>().unwrap() < 5);
            assert!((top5 - num(row, "top5")).abs() < 1e-9, "{model} {g} top-5");
            let err30 = share(&|r| r["pruned_at_30"] == "true");
            assert!(
                (err30 - num(row, "error_all_at_30")).abs() < 1e-9,
                "{model} {g} error at 30"
            );
        }
        // The whole export gives the summary's top-1 too.
        let hits = mine.iter().filter(|r| r["played"] == r["top1"]).count();
        assert!((hits as f64 / n as f64 - num(s, "top1")).abs() < 1e-9);
    }
    // Games keep their dataset hash, moves their GTP vertex.
    let first = &export[0];
    assert_eq!(first["game_hash"].len(), 16, "{first:?}");
    assert!(
        first["played"].len() >= 2 && first["top1"].len() >= 2,
        "{first:?}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn breakdown_options_refuse_bad_use_with_the_flag_named() {
    let dir = temp("refusals");
    // A CSV the user wrote is not replaced.
    let theirs = dir.join("mine.csv");
    std::fs::write(&theirs, "a,b\n1,2\n").unwrap();
    let (ok, text) = akushu(&[
        "eval",
        "--synthetic-games",
        "2",
        "--model",
        "rules",
        "--positions-csv",
        theirs.to_str().unwrap(),
    ]);
    assert!(!ok && text.contains("mine.csv"), "{text}");
    // The breakdown CSV needs a breakdown; an unknown breakdown is named.
    let (ok, text) = akushu(&[
        "eval",
        "--synthetic-games",
        "2",
        "--model",
        "rules",
        "--breakdown-csv",
        dir.join("b.csv").to_str().unwrap(),
    ]);
    assert!(!ok && text.contains("--by"), "{text}");
    let (ok, text) = akushu(&[
        "eval",
        "--synthetic-games",
        "2",
        "--model",
        "rules",
        "--by",
        "colour",
    ]);
    assert!(!ok && text.contains("--by"), "{text}");
    // Synthetic games evaluate with a breakdown (no ranks: all unknown).
    let (ok, text) = akushu(&[
        "eval",
        "--synthetic-games",
        "20",
        "--split",
        "all",
        "--model",
        "rules",
        "--by",
        "rank",
    ]);
    assert!(ok && text.contains("unknown"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}
