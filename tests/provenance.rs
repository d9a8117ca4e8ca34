//! Splits that never move and training provenance, end to end through the binary: a game's
//! split follows its content whatever the filters and duplicates; a model records the
//! fingerprint of its data and its training games (through `--init-from`); `eval` refuses an
//! evaluation on its own training games unless told, and then prints the overlap; `--resume`
//! refuses other data.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use akushu::rules::{Game, Move, Point};
use akushu::util::rng::FastRng;

mod common;
use common::akushu;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("akushu-provenance-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `n` seeded random legal games of 20 to 59 moves as SGF files in `dir`, game `i` named
/// `g{i}.sgf` (a game of `moves` moves is the same game whatever `n`).
fn write_games(dir: &Path, n: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for i in 0..n {
        let mut rng = FastRng::new(1000 + i as u64);
        let moves = 20 + rng.below(40) as usize;
        let mut game = Game::new(6.5);
        let mut sgf = String::from("(;GM[1]FF[4]SZ[9]KM[6.5]RU[Chinese]RE[B+R]");
        while game.move_count() < moves {
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

/// Builds a dataset of the SGF files in `games` into `out` with `extra` options.
fn build_dataset(games: &Path, out: &Path, extra: &[&str]) -> PathBuf {
    let mut args = vec![
        "dataset",
        "build",
        "--sgf",
        games.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let (ok, text) = akushu(&args);
    assert!(ok, "{text}");
    out.to_path_buf()
}

/// `hash -> split` from a dataset's `games.csv`.
fn splits(dataset: &Path) -> HashMap<String, String> {
    let mut r = csv::Reader::from_path(dataset.join("games.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (hash, split) = (col("hash"), col("split"));
    r.records()
        .map(|row| {
            let row = row.unwrap();
            (row[hash].to_string(), row[split].to_string())
        })
        .collect()
}

fn fingerprint(dataset: &Path) -> String {
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dataset.join("manifest.json")).unwrap())
            .unwrap();
    m["fingerprint"].as_str().unwrap().to_string()
}

#[test]
fn a_games_split_follows_the_game_whatever_the_filters_and_duplicates() {
    let dir = temp("splits");
    let games = dir.join("games");
    write_games(&games, 120);
    // A copy of a game under another name: dropped as a duplicate, moving nothing.
    std::fs::copy(games.join("g7.sgf"), games.join("a-copy.sgf")).unwrap();
    let build = |out: &str, extra: &[&str]| build_dataset(&games, &dir.join(out), extra);
    let all = build("all", &[]);
    let long = build("long", &["--min-moves", "40"]);
    let again = build("again", &[]);
    let (a, l) = (splits(&all), splits(&long));
    assert_eq!(a.len(), 120, "one copy dropped");
    assert!(l.len() < a.len() && l.len() > 20, "{}", l.len());
    for (hash, split) in &l {
        assert_eq!(a.get(hash), Some(split), "game {hash} moved between splits");
    }
    assert!(a.values().any(|s| s == "test") && a.values().any(|s| s == "validation"));
    // The fingerprint names the games and bytes: a rebuild has the same, a filter another.
    assert_eq!(fingerprint(&all), fingerprint(&again));
    assert_ne!(fingerprint(&all), fingerprint(&long));
    // The old shuffle is still there, and moves games when the filters change.
    let sa = splits(&build("shuffle-all", &["--split-by", "shuffle"]));
    let sl = splits(&build(
        "shuffle-long",
        &["--split-by", "shuffle", "--min-moves", "40"],
    ));
    assert!(sl.iter().any(|(h, s)| sa.get(h) != Some(s)));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn models_record_their_data_and_eval_refuses_their_training_games() {
    let dir = temp("models");
    let games = dir.join("games");
    write_games(&games, 150);
    let ds = |name: &str, extra: &[&str]| {
        let out = build_dataset(&games, &dir.join(name), extra);
        out.to_str().unwrap().to_string()
    };
    let (a, b) = (ds("a", &[]), ds("b", &["--min-moves", "35"]));
    let m1 = dir.join("m1").to_str().unwrap().to_string();
    let train = |data: &str, out: &str, extra: &[&str]| {
        let mut args = vec![
            "train", "--data", data, "--model", "mlp", "--epochs", "1", "--out", out, "--quiet",
        ];
        args.extend_from_slice(extra);
        akushu(&args)
    };
    let (ok, text) = train(&a, &m1, &[]);
    assert!(ok, "{text}");
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("m1/config.json")).unwrap())
            .unwrap();
    let p = &config["provenance"];
    assert_eq!(
        p["datasets"][0]["fingerprint"],
        fingerprint(Path::new(&a)).as_str()
    );
    let seen = splits(Path::new(&a))
        .values()
        .filter(|s| *s != "test")
        .count();
    assert_eq!(p["games"], seen as u64, "train + validation games");
    assert!(dir.join("m1/training_games.hashes").is_file());

    // Its own test split: no overlap. Its training split: refused, or printed when allowed.
    let (ok, text) = akushu(&["eval", "--data", &a, "--model", &m1]);
    assert!(ok && text.contains("0 of the"), "{text}");
    let (ok, text) = akushu(&["eval", "--data", &a, "--split", "train", "--model", &m1]);
    assert!(
        !ok && text.contains("--allow-overlap") && text.contains("--exclude-seen"),
        "{text}"
    );
    let summary = dir.join("s.csv");
    let (ok, text) = akushu(&[
        "eval",
        "--data",
        &a,
        "--split",
        "validation",
        "--model",
        &m1,
        "--allow-overlap",
        "--summary",
        summary.to_str().unwrap(),
    ]);
    assert!(ok && text.contains("training-game overlap"), "{text}");
    let rows = std::fs::read_to_string(&summary).unwrap();
    let validation_games = splits(Path::new(&a))
        .values()
        .filter(|s| *s == "validation")
        .count();
    assert!(
        rows.lines()
            .nth(1)
            .unwrap()
            .ends_with(&format!(",{validation_games}")),
        "{rows}"
    );
    // Another dataset of the same games split by content: its test games are still unseen.
    let (ok, text) = akushu(&["eval", "--data", &b, "--model", &m1]);
    assert!(ok && text.contains("0 of the"), "{text}");

    // A model grown from m1 on `b` carries m1's games: b's validation games and a's.
    let m2 = dir.join("m2").to_str().unwrap().to_string();
    let (ok, text) = train(&b, &m2, &["--init-from", &m1]);
    assert!(ok, "{text}");
    let (ok, text) = akushu(&["eval", "--data", &a, "--split", "train", "--model", &m2]);
    assert!(!ok && text.contains("was trained on"), "{text}");
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("m2/config.json")).unwrap())
            .unwrap();
    assert_eq!(
        config["provenance"]["init_from"]["provenance"]["datasets"][0]["fingerprint"],
        fingerprint(Path::new(&a)).as_str()
    );

    // A resume on other data is refused by fingerprint; on the same data it goes on.
    let (ok, text) = akushu(&[
        "train", "--data", &b, "--out", &m1, "--resume", "--epochs", "2",
    ]);
    assert!(!ok && text.contains("fingerprints"), "{text}");
    let (ok, text) = akushu(&[
        "train", "--data", &a, "--out", &m1, "--resume", "--epochs", "2", "--quiet",
    ]);
    assert!(ok, "{text}");

    // A model that records nothing (trained before provenance) is evaluated with a note.
    let bare = dir.join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    for f in ["config.json", "model.bpk", "model.bpk.checksum"] {
        std::fs::copy(dir.join("m1").join(f), bare.join(f)).unwrap();
    }
    let config = std::fs::read_to_string(bare.join("config.json")).unwrap();
    let mut config: serde_json::Value = serde_json::from_str(&config).unwrap();
    config.as_object_mut().unwrap().remove("provenance");
    std::fs::write(bare.join("config.json"), config.to_string()).unwrap();
    let (ok, text) = akushu(&["eval", "--data", &a, "--model", bare.to_str().unwrap()]);
    assert!(ok && text.contains("training games unknown"), "{text}");

    // A model that could list only part of its training data (one dataset without game
    // hashes) is still checked on the games it did list: its training games are refused.
    let partial = dir.join("partial");
    std::fs::create_dir_all(&partial).unwrap();
    for f in [
        "config.json",
        "model.bpk",
        "model.bpk.checksum",
        "training_games.hashes",
    ] {
        std::fs::copy(dir.join("m1").join(f), partial.join(f)).unwrap();
    }
    let config = std::fs::read_to_string(partial.join("config.json")).unwrap();
    let mut config: serde_json::Value = serde_json::from_str(&config).unwrap();
    config["provenance"]["unknown"] =
        serde_json::json!(["data/old lists no game hashes (built by an older akushu)"]);
    std::fs::write(partial.join("config.json"), config.to_string()).unwrap();
    let partial = partial.to_str().unwrap();
    let (ok, text) = akushu(&["eval", "--data", &a, "--split", "train", "--model", partial]);
    assert!(!ok && text.contains("was trained on"), "{text}");
    let (ok, text) = akushu(&["eval", "--data", &a, "--model", partial]);
    assert!(
        ok && text.contains("other training data unknown") && text.contains("data/old"),
        "{text}"
    );

    // `eval --sgf` knows the games by their content, as the dataset did: the SGF files m1's
    // dataset was built from hold its training games, and are refused.
    let sgf = games.to_str().unwrap();
    let (ok, text) = akushu(&["eval", "--sgf", sgf, "--model", &m1]);
    assert!(!ok && text.contains("was trained on"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A model trained before provenance was kept gets it recovered: `provenance --recover`
/// keeps one game-set file per dataset in the model's folder, refuses a second recovery, and `eval` then counts
/// the overlap; `--exclude-seen` evaluates only the games no listed model saw.
#[test]
fn provenance_is_recovered_for_older_models_and_exclude_seen_leaves_their_games_out() {
    let dir = temp("recover");
    let games = dir.join("games");
    write_games(&games, 120);
    let data = dir.join("data");
    let (ok, text) = akushu(&[
        "dataset",
        "build",
        "--sgf",
        games.to_str().unwrap(),
        "--out",
        data.to_str().unwrap(),
        "--split-by",
        "shuffle",
        "--quiet",
    ]);
    assert!(ok, "{text}");
    // An older model: the shipped paper MLP's files without its recovered provenance.
    let old = dir.join("old");
    std::fs::create_dir_all(&old).unwrap();
    for f in [
        "config.json",
        "model.bpk",
        "model.bpk.checksum",
        ".akushu-output",
    ] {
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("models/default")
            .join(f);
        if from.exists() {
            std::fs::copy(from, old.join(f)).unwrap();
        }
    }
    let (d, o) = (data.to_str().unwrap(), old.to_str().unwrap());
    let (ok, text) = akushu(&["provenance", o]);
    assert!(ok && text.contains("no provenance recorded"), "{text}");
    let recover = ["provenance", o, "--recover", "--data", d, "--note", "test"];
    let (ok, text) = akushu(&recover);
    assert!(ok, "{text}");
    let seen = splits(&data).values().filter(|s| *s != "test").count();
    assert!(text.contains(&format!("training games: {seen}")), "{text}");
    // The game set is kept inside the model's folder, named by the dataset's fingerprint.
    assert!(old.join(format!("{}.hashes", fingerprint(&data))).is_file());
    let (ok, text) = akushu(&recover);
    assert!(!ok && text.contains("already"), "{text}");
    // Its training split is refused, and left out whole by --exclude-seen.
    let (ok, text) = akushu(&["eval", "--data", d, "--split", "train", "--model", o]);
    assert!(!ok && text.contains("was trained on"), "{text}");
    let (ok, text) = akushu(&[
        "eval",
        "--data",
        d,
        "--split",
        "all",
        "--model",
        o,
        "--exclude-seen",
    ]);
    let test_games = splits(&data).values().filter(|s| *s == "test").count();
    assert!(
        ok && text.contains(&format!(
            "{seen} of the {} evaluated games left out, {test_games} evaluated",
            seen + test_games
        )),
        "{text}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A committed loop candidate holds its self-play games by their older identity (a hash of
/// the moves), which a dataset built from the same games' SGFs never matched: evaluated on
/// it, the candidate passed unrefused. `provenance --sgf-identities` maps them to their SGF
/// identity beside its game set, and the same evaluation is then refused.
#[test]
fn a_loop_candidate_is_refused_on_its_own_self_play_games_built_from_their_sgfs() {
    let dir = temp("sgf-identities");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("report/loops/value/gen-001");
    let model = dir.join("model");
    std::fs::create_dir_all(&model).unwrap();
    for e in std::fs::read_dir(root.join("model")).unwrap() {
        let from = e.unwrap().path();
        if from.is_file() && !from.ends_with("training_games.sgf.hashes") {
            std::fs::copy(&from, model.join(from.file_name().unwrap())).unwrap();
        }
    }
    let sgf = root.join("selfplay/sgf");
    let data = build_dataset(&sgf, &dir.join("data"), &[]);
    let (d, m) = (data.to_str().unwrap(), model.to_str().unwrap());
    let eval = ["eval", "--data", d, "--split", "all", "--model", m];
    let (ok, text) = akushu(&eval);
    assert!(ok, "before: not refused (the hole): {text}");
    let (ok, text) = akushu(&["provenance", m, "--sgf-identities", sgf.to_str().unwrap()]);
    assert!(
        ok && text.contains("177 of 200 self-play games are training games"),
        "{text}"
    );
    let (ok, text) = akushu(&eval);
    assert!(
        !ok && text.contains("was trained on 177 of the 200"),
        "{text}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A loop candidate trained before provenance was kept gets it from its committed loop
/// folder: its window's training and validation games by their seeds and SGFs, to the
/// position (the recovered count is the one `state.json` recorded), its parent's games with
/// them; a second recovery is refused, and its own self-play games are refused in `eval`.
#[test]
fn a_loop_candidate_recovers_its_provenance_from_the_loop_folder() {
    let dir = temp("recover-loop");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("report/loops/gpu2-sims1600");
    let lp = dir.join("loop");
    let model = lp.join("gen-001/model");
    // The committed folder is packed: its games are read from the copied archive by the
    // paths they have loose.
    let sgf = lp.join("gen-001/selfplay/sgf");
    std::fs::create_dir_all(&model).unwrap();
    std::fs::create_dir_all(lp.join("gen-001/selfplay")).unwrap();
    for f in ["loop.toml", "state.json"] {
        std::fs::copy(root.join(f), lp.join(f)).unwrap();
    }
    // The candidate as it was committed: without the provenance recovered since.
    for f in [
        "config.json",
        "model.bpk",
        "model.bpk.checksum",
        "train_log.csv",
    ] {
        std::fs::copy(root.join("gen-001/model").join(f), model.join(f)).unwrap();
    }
    for f in ["games.csv", "selfplay.toml"] {
        std::fs::copy(
            root.join("gen-001/selfplay").join(f),
            lp.join("gen-001/selfplay").join(f),
        )
        .unwrap();
    }
    std::fs::copy(
        root.join("gen-001/selfplay/sgf.tar.xz"),
        lp.join("gen-001/selfplay/sgf.tar.xz"),
    )
    .unwrap();
    let (m, l) = (model.to_str().unwrap(), lp.to_str().unwrap());
    let recover = ["provenance", m, "--recover-loop", l, "--generation", "1"];
    let (ok, text) = akushu(&recover);
    assert!(
        ok && text.contains("(18826 training positions without passes)")
            && text.contains("state.json: 18826"),
        "{text}"
    );
    let (ok, text) = akushu(&recover);
    assert!(!ok && text.contains("already"), "{text}");
    let data = build_dataset(&sgf, &dir.join("data"), &[]);
    let d = data.to_str().unwrap();
    let (ok, text) = akushu(&["eval", "--data", d, "--split", "all", "--model", m]);
    assert!(
        !ok && text.contains("was trained on 230 of the 256"),
        "{text}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A shipped model folder copied elsewhere is whole: its recovered game sets come with it.
/// A recovery that named a shared set beside the folder (`../provenance/`, as older ones
/// did) is still read there, and a copy without that set is refused naming the file.
#[test]
fn a_copied_model_folder_is_whole_and_shared_sets_still_read() {
    let dir = temp("copied");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/cnn-small");
    let copy = dir.join("cnn-small");
    std::fs::create_dir_all(&copy).unwrap();
    for e in std::fs::read_dir(&shipped).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, copy.join(p.file_name().unwrap())).unwrap();
    }
    let (ok, text) = akushu(&["provenance", copy.to_str().unwrap()]);
    assert!(ok && text.contains("training games: "), "{text}");

    // An older recovery: its set in a shared folder beside the model's.
    let provenance = std::fs::read_to_string(copy.join("provenance.json")).unwrap();
    let set = "bea941e3e44ce029.hashes";
    assert!(provenance.contains(&format!("\"{set}\"")), "{provenance}");
    std::fs::create_dir_all(dir.join("provenance")).unwrap();
    std::fs::rename(copy.join(set), dir.join("provenance").join(set)).unwrap();
    std::fs::write(
        copy.join("provenance.json"),
        provenance.replace(&format!("\"{set}\""), &format!("\"../provenance/{set}\"")),
    )
    .unwrap();
    let (ok, text) = akushu(&["provenance", copy.to_str().unwrap()]);
    assert!(ok && text.contains("training games: "), "{text}");
    std::fs::remove_dir_all(dir.join("provenance")).unwrap();
    let (ok, text) = akushu(&["provenance", copy.to_str().unwrap()]);
    assert!(
        !ok && text.contains(&format!("../provenance/{set}")) && text.contains("not at"),
        "{text}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// The shipped models' recovered provenance names the paper-like set as it was built
/// before copies were dropped: `--keep-duplicates` with the old shuffle rebuilds it with the
/// recorded counts and the very fingerprint the models record, and every shipped model's
/// game sets load.
#[test]
fn the_shipped_models_data_rebuilds_to_the_recorded_fingerprint() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for m in std::fs::read_dir(root.join("models")).unwrap() {
        let m = m.unwrap().path();
        if m.join("config.json").is_file() {
            let (ok, text) = akushu(&["provenance", m.to_str().unwrap()]);
            assert!(
                ok && text.contains("training games: "),
                "{}: {text}",
                m.display()
            );
        }
    }
    let recorded: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("models/default/provenance.json")).unwrap(),
    )
    .unwrap();
    let want = recorded["datasets"][0]["fingerprint"].as_str().unwrap();
    let (Some(archive), Some(index)) = (
        common::shared_data("ogs9x9.tar.xz"),
        common::shared_data("ogs9x9_index.csv.xz"),
    ) else {
        return;
    };
    let dir = temp("legacy");
    let out = dir.join("paper");
    let (ok, text) = akushu(&[
        "dataset",
        "build",
        "--sgf",
        archive.to_str().unwrap(),
        "--index",
        index.to_str().unwrap(),
        "--exclude-bots",
        "--result-known",
        "--min-moves",
        "20",
        "--no-handicap",
        "--min-rank",
        "1d",
        "--rank-scope",
        "either",
        "--split-by",
        "shuffle",
        "--keep-duplicates",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(ok, "{text}");
    assert!(
        text.contains("games: 30031") && text.contains("test: 3003 games, 140965 positions"),
        "{text}"
    );
    assert_eq!(fingerprint(&out), want);
    std::fs::remove_dir_all(dir).unwrap();
}
