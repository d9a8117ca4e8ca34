//! Seeded match and self-play runs against checked-in digests: the games folder and the game
//! runner must keep writing the same records (SGF files, self-play records, `games.csv`
//! without its timing columns) for the same seed. The digests were taken from the build
//! before matches and self-play shared one runner and one folder type.
//!
//! The match is `random` against `random` (integer draws from the frozen `FastRng` only), so
//! its digest holds on any machine. The self-play run searches with UCT, whose floating point
//! (`ln`, `sqrt`) could round differently under another platform's maths library; on the
//! x86-64 Linux builds this project runs on it is the same bit for bit.

use std::path::Path;

mod common;

/// CRC-32 of a folder's games: every SGF and record file in name order, then `games.csv`
/// without the columns that measure time.
fn digest(dir: &Path) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for sub in ["sgf", "records"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        let mut files: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files {
            h.update(f.file_name().unwrap().to_string_lossy().as_bytes());
            h.update(&std::fs::read(&f).unwrap());
        }
    }
    const TIMING: [&str; 7] = [
        "black_seconds",
        "white_seconds",
        "wall_seconds",
        "black_cpu_seconds",
        "white_cpu_seconds",
        "search_seconds",
        "cpu_seconds",
    ];
    let mut reader = csv::Reader::from_path(dir.join("games.csv")).unwrap();
    let header = reader.headers().unwrap().clone();
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !TIMING.contains(&&header[i]))
        .collect();
    for row in std::iter::once(Ok(header)).chain(reader.records()) {
        let row = row.unwrap();
        for &i in &keep {
            h.update(row[i].as_bytes());
            h.update(b"\x1f");
        }
        h.update(b"\n");
    }
    h.finalize()
}

fn run(args: &[&str], out: &Path) {
    let mut all: Vec<&str> = args.to_vec();
    let out_text = common::s(out);
    all.extend(["--quiet", "--out", &out_text]);
    let (ok, text) = common::akushu(&all);
    assert!(ok, "akushu {all:?}: {text}");
}

#[test]
fn a_seeded_random_match_writes_the_recorded_games() {
    let dir = common::scratch("golden", "match");
    let out = dir.join("m");
    run(
        &[
            "match",
            "--black",
            "random",
            "--white",
            "random",
            "--games",
            "6",
            "--seed",
            "5",
            "--alternate",
            "--max-moves",
            "120",
            "--jobs",
            "2",
        ],
        &out,
    );
    assert_eq!(digest(&out), MATCH_DIGEST, "{}", out.display());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_seeded_selfplay_run_writes_the_recorded_games_and_records() {
    let dir = common::scratch("golden", "selfplay");
    let out = dir.join("sp");
    run(
        &[
            "selfplay",
            "--engine",
            "uct:sims=30",
            "--engine",
            "uct:sims=20,expand=2",
            "--games",
            "4",
            "--seed",
            "7",
            "--random-moves",
            "2",
            "--temperature-moves",
            "4",
            "--max-moves",
            "50",
            "--jobs",
            "2",
        ],
        &out,
    );
    assert_eq!(digest(&out), SELFPLAY_DIGEST, "{}", out.display());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The digests of the build before the shared runner and folder (and of every build since).
const MATCH_DIGEST: u32 = 877_021_573;
const SELFPLAY_DIGEST: u32 = 1_977_638_311;
