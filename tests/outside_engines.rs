//! Outside engines named: a match folder records each `gtp:` player's `name` and `version`
//! answers and the SHA-256 of its program and of the files its command line names, refuses
//! to resume once one of them changed (unless told to go on), and never shows visits it did
//! not count.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use akushu::arena;

mod common;

/// The SHA-256 of `path` as coreutils' `sha256sum` computes it: a second implementation
/// beside the one under test.
fn sha256sum(path: &Path) -> String {
    let out = Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum (coreutils) runs");
    assert!(out.status.success(), "sha256sum {}", path.display());
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/arena_fake_gtp.sh")
}

/// A fake engine's spec naming a network (`-model NET`) and a config (`config=CFG`).
fn spec(net: &Path, cfg: &Path) -> String {
    format!(
        "gtp:sh {} pass -model {} config={}",
        fixture().display(),
        net.display(),
        cfg.display()
    )
}

/// `akushu match` of `random` (A, black) against `white`, `games` games, into `out`.
fn play(white: &str, games: u32, out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args([
            "match", "--black", "random", "--white", white, "--seed", "3",
        ])
        .args(["--games", &games.to_string(), "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn header(out: &Path) -> toml::Value {
    toml::from_str(&std::fs::read_to_string(out.join("match.toml")).unwrap()).unwrap()
}

/// A folder with a network and a config for the fake engine, and the engine's spec.
fn engine_files(test: &str) -> (PathBuf, PathBuf, PathBuf, String) {
    let dir = common::scratch("outside", test);
    let net = dir.join("net.bin");
    let cfg = dir.join("engine.cfg");
    std::fs::write(&net, b"weights of the first network\n").unwrap();
    std::fs::write(&cfg, b"maxVisits = 100\n").unwrap();
    let s = spec(&net, &cfg);
    (dir, net, cfg, s)
}

/// [`engine_files`] and a folder of two games against the engine: (folder, network, spec,
/// match folder).
fn two_games(test: &str) -> (PathBuf, PathBuf, String, PathBuf) {
    let (dir, net, _cfg, white) = engine_files(test);
    let out = dir.join("match");
    ok(&play(&white, 2, &out, &[]));
    (dir, net, white, out)
}

#[test]
fn an_outside_engines_answers_and_checksums_are_recorded_and_summarised() {
    let (dir, net, cfg, white) = engine_files("recorded");
    let out = dir.join("match");
    let run = play(&white, 2, &out, &[]);
    ok(&run);
    let h = header(&out);
    let rec = &h["outside_engines"][&white];
    assert_eq!(rec["name"].as_str(), Some("fake"), "{h}");
    assert_eq!(rec["version"].as_str(), Some("3.8-fake"), "{h}");
    assert_eq!(rec["reports_visits"].as_bool(), Some(false), "{h}");
    let sh = arena::gtp::find_program("sh").expect("sh is on PATH");
    assert_eq!(rec["program"].as_str(), Some(sh.to_str().unwrap()), "{h}");
    assert_eq!(
        rec["program_sha256"].as_str(),
        Some(sha256sum(&sh).as_str()),
        "{h}"
    );
    let files = rec["files"].as_table().expect("a files table");
    let want: Vec<(String, String)> = [fixture(), net.clone(), cfg.clone()]
        .iter()
        .map(|p| (p.display().to_string(), sha256sum(p)))
        .collect();
    let mut got: Vec<(String, String)> = files
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    got.sort();
    let mut sorted = want.clone();
    sorted.sort();
    assert_eq!(got, sorted, "{h}");
    assert!(rec.get("recorded_after_games").is_none(), "{h}");

    // The summary, written and printed, names the engine and every checksum; its visits a
    // move are not reported, never a measured-looking 0.
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let printed = String::from_utf8_lossy(&run.stdout);
    for text in [&summary, &printed.to_string()] {
        assert!(
            text.contains("name \"fake\", version \"3.8-fake\""),
            "{text}"
        );
        assert!(text.contains(&sha256sum(&sh)), "{text}");
        for (file, sum) in &want {
            assert!(text.contains(&format!("`{file}` sha256 {sum}")), "{text}");
        }
        let row = text
            .lines()
            .find(|l| l.starts_with("| B |"))
            .expect("B's row");
        assert!(row.ends_with("| not reported |"), "{row}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(json["outside_engines"][&white]["version"], "3.8-fake");
    assert!(json["players"][1]["sims_per_move"].is_null(), "{json}");
    assert!(json["players"][0]["sims_per_move"].is_number(), "{json}");
    // The rows leave the outside engine's simulations empty (white, every game).
    for row in arena::record::read_csv(&out.join("games.csv")).unwrap() {
        assert_eq!(row.white_sims, None, "{row:?}");
        assert!(row.black_sims.is_some(), "{row:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_resume_with_a_changed_network_is_refused_unless_allowed() {
    let (dir, net, white, out) = two_games("changed");
    let was = sha256sum(&net);
    let before = (
        std::fs::read(out.join("match.toml")).unwrap(),
        std::fs::read(out.join("games.csv")).unwrap(),
    );
    std::fs::write(&net, b"weights of another network\n").unwrap();
    let now = sha256sum(&net);
    assert_ne!(was, now);
    let refused = play(&white, 4, &out, &["--extend"]);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains(&format!(
            "file {} had sha256 {was}, now {now}",
            net.display()
        )) && err.contains("--allow-engine-change"),
        "{err}"
    );
    let after = (
        std::fs::read(out.join("match.toml")).unwrap(),
        std::fs::read(out.join("games.csv")).unwrap(),
    );
    assert!(after == before, "a refused resume changed the folder");

    // Allowed, the run goes on, records the new network and dates the change.
    ok(&play(
        &white,
        4,
        &out,
        &["--extend", "--allow-engine-change"],
    ));
    let h = header(&out);
    assert_eq!(
        h["outside_engines"][&white]["recorded_after_games"].as_integer(),
        Some(2),
        "{h}"
    );
    let files = &h["outside_engines"][&white]["files"];
    assert_eq!(
        files[net.display().to_string().as_str()].as_str(),
        Some(now.as_str())
    );
    let history = h["plan"]["history"].as_array().unwrap();
    assert!(
        history.iter().any(|l| {
            let l = l.as_str().unwrap();
            l.contains("outside engine changed after 2 games") && l.contains(&was)
        }),
        "{history:?}"
    );
    assert_eq!(
        arena::record::read_csv(&out.join("games.csv"))
            .unwrap()
            .len(),
        4
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A folder written before outside engines were recorded resumes, and its record then says
/// how many games came before it; the committed KataGo match, summarised again in a copy,
/// shows KataGo's visits as not reported (the games say 0, which the arena never counted).
#[test]
fn folders_without_a_record_still_resume_and_summarise() {
    let (dir, _net, white, out) = two_games("old");
    let mut h = header(&out);
    h.as_table_mut().unwrap().remove("outside_engines");
    std::fs::write(out.join("match.toml"), toml::to_string(&h).unwrap()).unwrap();
    ok(&play(&white, 4, &out, &["--extend"]));
    let rec = &header(&out)["outside_engines"][&white];
    assert_eq!(rec["recorded_after_games"].as_integer(), Some(2), "{rec}");
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("first recorded after 2 games"),
        "{summary}"
    );

    let committed =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("report/runs/katago_equal_time_6x64_cosine");
    let copy = dir.join("katago");
    let cp = Command::new("cp")
        .arg("-r")
        .arg(&committed)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(cp.success());
    let summarize = Command::new(env!("CARGO_BIN_EXE_akushu"))
        .args(["match", "summarize"])
        .arg(&copy)
        .output()
        .unwrap();
    ok(&summarize);
    let summary = std::fs::read_to_string(copy.join("summary.md")).unwrap();
    let b = summary
        .lines()
        .find(|l| l.starts_with("| B | `gtp:"))
        .expect("KataGo's row");
    assert!(b.ends_with("| not reported |"), "{b}");
    // The in-process engine's row, its visits included, reads as committed.
    let a_row = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("| A |"))
            .map(str::to_string)
    };
    let was = std::fs::read_to_string(committed.join("summary.md")).unwrap();
    assert_eq!(a_row(&summary), a_row(&was));
    assert!(
        summary.contains("B `gtp:/root/.cache/akushu/katago/bin/katago")
            && summary.contains("not recorded"),
        "{summary}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Shards of one match merge with their outside engine recorded once; shards played with
/// different networks are not merged.
#[test]
fn merged_shards_keep_the_engine_and_refuse_another() {
    let (dir, net, _cfg, white) = engine_files("merge");
    let shard = |i: u32| {
        let out = dir.join(format!("shard{i}"));
        ok(&play(&white, 4, &out, &["--shard", &format!("{i}/2")]));
        out
    };
    let (s0, s1) = (shard(0), shard(1));
    let merge = |out: &Path, inputs: &[&Path]| {
        Command::new(env!("CARGO_BIN_EXE_akushu"))
            .args(["match", "merge", "--out"])
            .arg(out)
            .args(inputs)
            .output()
            .unwrap()
    };
    let merged = dir.join("merged");
    ok(&merge(&merged, &[&s0, &s1]));
    assert_eq!(
        header(&merged)["outside_engines"],
        header(&s0)["outside_engines"]
    );
    assert!(
        std::fs::read_to_string(merged.join("summary.md"))
            .unwrap()
            .contains(&sha256sum(&net))
    );
    // Shard 1 played again with another network: not the same engine.
    std::fs::remove_dir_all(&s1).unwrap();
    std::fs::write(&net, b"weights of another network\n").unwrap();
    let s1 = shard(1);
    let refused = merge(&dir.join("merged2"), &[&s0, &s1]);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("another outside engine") && err.contains(&sha256sum(&net)),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
