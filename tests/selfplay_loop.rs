//! Self-play and the self-play loop end to end on the CPU: a run killed between any two steps
//! (or in the middle of self-play) resumes to the same result; sharded self-play makes the
//! same dataset as one run; version-2 records round-trip through the dataset files; bad loop
//! configs are refused with a clear error.

use std::path::{Path, PathBuf};

use akushu::arena::Shard;
use akushu::arena::selfplay::GameRules;
use akushu::arena::selfplay_run::{
    SelfplayConfig, SelfplayDatasetConfig, SelfplayDir, build_dataset, run_selfplay,
};
use akushu::dataset::format::{SEARCH_RECORD_SIZE, decode};
use akushu::dataset::{Split, read_split, split_path};
use akushu::selfplay_loop::{LoopConfig, LoopOptions, LoopState, run_loop};

/// A scratch folder under the system's temp dir, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("akushu-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn quick_loop() -> LoopConfig {
    // Paths in the file are relative to the repository root, where cargo runs tests.
    LoopConfig::from_file(&root().join("experiments/loops/quick.toml")).unwrap()
}

fn selfplay_config(games: u32, shard: Option<Shard>) -> SelfplayConfig {
    SelfplayConfig {
        engines: vec!["uct:sims=30".into()],
        games,
        seed: 11,
        rules: GameRules {
            random_moves: 2,
            temperature_moves: 4,
            ..GameRules::default()
        },
        jobs: 2,
        shard,
    }
}

/// The state with what may differ between two runs of the same loop taken out: timings and
/// the output folder in the paths.
fn comparable(state: &LoopState, out: &Path) -> String {
    // A float read back from state.json may differ from the one computed in its last bit
    // (serde_json's fast float parsing): compare to 1e-9.
    let round = |x: f64| (x * 1e9).round() / 1e9;
    let mut s = state.clone();
    for g in &mut s.generations {
        g.selfplay_cpu_seconds = 0.0;
        g.gate_points = round(g.gate_points);
        for c in g.curve_selfplay.iter_mut().chain(g.curve_human.iter_mut()) {
            *c = round(*c);
        }
    }
    serde_json::to_string_pretty(&s)
        .unwrap()
        .replace(&out.display().to_string(), "OUT")
}

#[test]
fn the_loop_resumes_after_an_interruption_at_every_step_with_the_same_result() {
    let config = quick_loop();
    let tmp = Scratch::new("loop-resume");
    let whole = tmp.path().join("whole");
    let outcome = run_loop(&config, &whole, &LoopOptions::default()).unwrap();
    assert!(!outcome.interrupted);
    assert_eq!(outcome.state.generations.len(), config.generations as usize);
    for g in &outcome.state.generations {
        assert_eq!(g.selfplay_games, config.selfplay.games);
        assert!(g.selfplay_positions > 0 && g.train_positions > 0);
        assert_eq!(g.gate_games, config.gate.games);
        assert_eq!(g.curve_selfplay.len(), 81);
        assert_eq!(g.curve_selfplay[0], 0.0, "nothing pruned, nothing lost");
        // Every candidate is a new directory inside the loop's folder.
        assert!(g.candidate.starts_with(&whole.display().to_string()));
    }
    for f in [
        "summary.md",
        "ratings.png",
        "curves.png",
        "state.json",
        "loop.toml",
    ] {
        assert!(whole.join(f).exists(), "{f}");
    }

    // The same loop, stopped after every single step and resumed each time.
    let pieces = tmp.path().join("pieces");
    let once = LoopOptions {
        progress: false,
        stop_after_steps: Some(1),
    };
    let mut calls = 0;
    let resumed = loop {
        calls += 1;
        assert!(calls < 30, "the loop does not finish");
        let o = run_loop(&config, &pieces, &once).unwrap();
        if !o.interrupted {
            break o;
        }
    };
    assert!(
        calls >= 8,
        "only {calls} calls: the steps were not interrupted"
    );
    assert_eq!(
        comparable(&resumed.state, &pieces),
        comparable(&outcome.state, &whole)
    );

    // A finished loop resumed does nothing more; one with more generations goes on.
    let again = run_loop(&config, &pieces, &LoopOptions::default()).unwrap();
    // Compared as recorded: a float read back from state.json may differ in its last bit.
    assert_eq!(
        comparable(&again.state, &pieces),
        comparable(&resumed.state, &pieces)
    );
    let mut other = config.clone();
    other.seed += 1;
    let err = run_loop(&other, &pieces, &LoopOptions::default()).unwrap_err();
    assert!(format!("{err:#}").contains("another loop"), "{err:#}");
}

#[test]
fn loop_candidates_grow_value_and_ownership_heads_from_the_selfplay_results() {
    // Also `history = false`: the candidates learn on the inputs a `strong2` search gives
    // them, and say so in their config, so every evaluator withholds the last moves.
    use akushu::prune::Pruner;
    let mut config = quick_loop();
    config.generations = 1;
    config.train.options.value_channels = Some(8);
    config.train.options.ownership = Some(true);
    config.train.options.history = Some(false);
    let tmp = Scratch::new("loop-heads");
    let out = tmp.path().join("loop");
    let outcome = run_loop(&config, &out, &LoopOptions::default()).unwrap();
    let candidate = PathBuf::from(&outcome.state.generations[0].candidate);
    let (_, c) = akushu::net::SavedModel::load(&candidate).unwrap();
    assert_eq!((c.cnn.value_channels, c.cnn.ownership), (8, true));
    assert!(!c.cnn.history);
    let pruner = akushu::net::NetPruner::load(&candidate).unwrap();
    assert!(pruner.has_value() && !pruner.reads_history());
    let (_, start) = akushu::net::SavedModel::load(&root().join(&config.start)).unwrap();
    assert!(start.cnn.history, "the start network keeps reading them");
    // Every self-play game has a result, so the value head was validated on all of them.
    let log = std::fs::read_to_string(candidate.join("train_log.csv")).unwrap();
    let header: Vec<&str> = log.lines().next().unwrap().split(',').collect();
    let col = header
        .iter()
        .position(|h| *h == "validation_value_accuracy")
        .unwrap();
    let last = log.lines().last().unwrap().split(',').nth(col).unwrap();
    assert!(
        last.parse::<f64>().is_ok(),
        "no value accuracy logged: {last}"
    );
}

/// `[train] max_train` caps a candidate's training examples as `akushu train --max-train`
/// does: a seeded sample of the dataset's training split, which here holds more.
#[test]
fn a_loop_candidate_trains_on_at_most_max_train_examples() {
    const MAX_TRAIN: usize = 40;
    const BATCH: usize = 8;
    let mut config = quick_loop();
    config.generations = 1;
    config.train.options.max_train = Some(MAX_TRAIN);
    config.train.options.batch_size = Some(BATCH);
    let tmp = Scratch::new("loop-max-train");
    let out = tmp.path().join("loop");
    let outcome = run_loop(&config, &out, &LoopOptions::default()).unwrap();
    let generation = &outcome.state.generations[0];
    let available = read_split(&out.join("gen-001/data"), Split::Train)
        .unwrap()
        .len();
    assert!(
        available > MAX_TRAIN,
        "the dataset holds only {available} training positions: the cap would change nothing"
    );
    assert_eq!(generation.train_positions, MAX_TRAIN as u64);
    // One epoch over the capped set is its batches, as the training log counts the steps.
    assert_eq!(config.train.options.epochs, Some(1));
    let log =
        std::fs::read_to_string(Path::new(&generation.candidate).join("train_log.csv")).unwrap();
    let header: Vec<&str> = log.lines().next().unwrap().split(',').collect();
    let last: Vec<&str> = log.lines().last().unwrap().split(',').collect();
    let column = |name: &str| -> u64 {
        let col = header.iter().position(|h| *h == name).unwrap();
        last[col].parse().unwrap()
    };
    assert_eq!(column("step"), MAX_TRAIN.div_ceil(BATCH) as u64, "{log}");
    assert_eq!(column("examples"), MAX_TRAIN as u64, "{log}");
}

#[test]
fn a_heads_only_loop_keeps_the_start_networks_move_distribution() {
    let mut config = quick_loop();
    config.generations = 1;
    config.train.options.value_channels = Some(8);
    config.train.options.heads_only = Some(true);
    let tmp = Scratch::new("loop-heads-only");
    let outcome = run_loop(&config, &tmp.path().join("loop"), &LoopOptions::default()).unwrap();
    let candidate = PathBuf::from(&outcome.state.generations[0].candidate);
    let trunk = |dir: &Path| match akushu::net::SavedModel::load(dir).unwrap().0 {
        akushu::net::SavedModel::Cnn(m, _) => {
            let mut w = m.stem.weight.val().into_data().try_to_vec::<f32>().unwrap();
            w.extend(m.head.weight.val().into_data().try_to_vec::<f32>().unwrap());
            w
        }
        _ => unreachable!("the quick loop's start is a CNN"),
    };
    assert_eq!(trunk(&candidate), trunk(&root().join(&config.start)));
    assert!(
        akushu::net::NetPruner::load(&candidate)
            .unwrap()
            .has_value()
    );
}

#[test]
fn selfplay_killed_mid_run_resumes_with_no_game_lost_or_counted_twice() {
    let tmp = Scratch::new("sp-kill");
    let whole = tmp.path().join("whole");
    let config = selfplay_config(6, None);
    let all = run_selfplay(&config, &whole, false).unwrap();
    assert_eq!(all.rows.len(), 6);

    // A run killed after game 4's files were written but before its row: the row is the
    // checkpoint, so game 4 is played again; a half-written file of game 5 is replaced.
    let cut = tmp.path().join("cut");
    let first = run_selfplay(&selfplay_config(4, None), &cut, false).unwrap();
    assert_eq!(first.played_now, 4);
    let dir = SelfplayDir::new(&cut);
    let rows = dir.read_rows().unwrap();
    let csv = std::fs::read_to_string(dir.csv()).unwrap();
    let kept: Vec<&str> = csv.lines().take(4).collect(); // header + games 1..=3
    std::fs::write(dir.csv(), kept.join("\n") + "\n").unwrap();
    std::fs::write(dir.records(5), b"half a record").unwrap();
    assert_eq!(dir.read_rows().unwrap().len(), 3);
    let resumed = run_selfplay(&config, &cut, false).unwrap();
    assert_eq!(resumed.played_now, 3);
    let strip = |rows: &[akushu::arena::selfplay::SelfplayRow]| {
        rows.iter().map(|r| r.without_timing()).collect::<Vec<_>>()
    };
    assert_eq!(strip(&resumed.rows), strip(&all.rows));
    assert_eq!(strip(&rows[..3]), strip(&all.rows[..3]));
    for row in &all.rows {
        let a = SelfplayDir::new(&whole).read_records(row).unwrap();
        let b = dir.read_records(row).unwrap();
        assert_eq!(a, b, "game {}", row.game);
    }
    // A damaged records file is named when a dataset is built from the folder.
    std::fs::write(dir.records(2), b"rot").unwrap();
    let cfg = SelfplayDatasetConfig {
        seed: 1,
        validation_fraction: 0.2,
        test_fraction: 0.2,
        include_passes: false,
    };
    let err = build_dataset(
        std::slice::from_ref(&cut),
        &cfg,
        &tmp.path().join("ds"),
        false,
    )
    .unwrap_err();
    assert!(format!("{err:#}").contains("game-00002.akr"), "{err:#}");
    assert!(!tmp.path().join("ds").exists(), "nothing written");
}

/// Two runs that share their seeds (each run's seeds follow from `--seed`, 1 by default, and
/// the game's number) but not their engines are different games: a dataset of both keeps
/// every game of each. A folder listed beside a copy of itself is the same games, taken once.
#[test]
fn two_selfplay_runs_with_one_seed_keep_both() {
    let tmp = Scratch::new("sp-two-runs");
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    run_selfplay(&selfplay_config(4, None), &a, false).unwrap();
    let mut other = selfplay_config(4, None);
    other.engines = vec!["uct:sims=31".into()];
    run_selfplay(&other, &b, false).unwrap();
    let cfg = SelfplayDatasetConfig {
        seed: 3,
        validation_fraction: 0.3,
        test_fraction: 0.3,
        include_passes: true,
    };
    let both = build_dataset(&[a.clone(), b], &cfg, &tmp.path().join("ab"), false).unwrap();
    assert_eq!((both.games, both.duplicates), (8, 0));
    let copy = tmp.path().join("a-copy");
    let cp = std::process::Command::new("cp")
        .arg("-a")
        .arg(&a)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(cp.success());
    let twice = build_dataset(&[a, copy], &cfg, &tmp.path().join("aa"), false).unwrap();
    assert_eq!((twice.games, twice.duplicates), (4, 4));
}

/// A self-play game has one identity whichever way it reaches a dataset: the hashes a
/// self-play dataset lists are those `dataset build --sgf` gives the same games' SGF files,
/// so a candidate evaluated on its own self-play games built from their SGFs is caught.
#[test]
fn a_selfplay_game_is_one_game_in_selfplay_and_sgf_datasets() {
    let tmp = Scratch::new("sp-identity");
    let run = tmp.path().join("run");
    run_selfplay(&selfplay_config(4, None), &run, false).unwrap();
    let cfg = SelfplayDatasetConfig {
        seed: 3,
        validation_fraction: 0.3,
        test_fraction: 0.3,
        include_passes: true,
    };
    let (sp, sgf) = (tmp.path().join("sp"), tmp.path().join("sgf"));
    build_dataset(std::slice::from_ref(&run), &cfg, &sp, false).unwrap();
    let config = akushu::dataset::build::BuildConfig {
        inputs: vec![run.join("sgf")],
        threads: 1,
        ..Default::default()
    };
    akushu::dataset::build::build(&config, &sgf, false).unwrap();
    let hashes = |d: &Path| {
        let mut h = akushu::dataset::gameset::DatasetGames::read(d)
            .unwrap()
            .expect("the dataset lists its games' hashes")
            .by_game;
        h.sort_unstable();
        h
    };
    let listed = hashes(&sp);
    assert_eq!(listed.len(), 4);
    assert_eq!(listed, hashes(&sgf));
}

#[test]
fn sharded_selfplay_makes_the_same_dataset_as_one_run() {
    let tmp = Scratch::new("sp-shards");
    let one = tmp.path().join("one");
    run_selfplay(&selfplay_config(6, None), &one, false).unwrap();
    let shards: Vec<PathBuf> = (0..2)
        .map(|i| {
            let dir = tmp.path().join(format!("shard-{i}"));
            let shard = Shard { index: i, count: 2 };
            let o = run_selfplay(&selfplay_config(6, Some(shard)), &dir, false).unwrap();
            assert_eq!(o.rows.len(), 3);
            dir
        })
        .collect();
    let cfg = SelfplayDatasetConfig {
        seed: 3,
        validation_fraction: 0.3,
        test_fraction: 0.3,
        include_passes: true,
    };
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    let ma = build_dataset(&[one], &cfg, &a, false).unwrap();
    let mb = build_dataset(&shards, &cfg, &b, false).unwrap();
    assert_eq!(ma.positions, mb.positions);
    for split in Split::ALL {
        assert_eq!(
            std::fs::read(split_path(&a, split)).unwrap(),
            std::fs::read(split_path(&b, split)).unwrap(),
            "{split:?}"
        );
    }
    // The records are version 2 and decode with their visits; passes were kept.
    let train = read_split(&a, Split::Train).unwrap();
    assert!(!train.is_empty());
    for p in &train {
        let t = p
            .search
            .as_ref()
            .expect("self-play records carry the search");
        assert!(t.total_visits() > 0);
        assert!(
            t.visits[p.played as usize] > 0,
            "the move played was searched"
        );
    }
    let bytes = std::fs::read(split_path(&a, Split::Train)).unwrap();
    assert_eq!((bytes.len() - 64) % SEARCH_RECORD_SIZE, 0);
    let first = decode(&bytes[64..64 + SEARCH_RECORD_SIZE]).unwrap();
    assert_eq!(&first, &train[0]);
}

#[test]
fn bad_loop_configs_are_refused_with_the_reason() {
    let tmp = Scratch::new("loop-bad");
    let text = std::fs::read_to_string(root().join("experiments/loops/quick.toml")).unwrap();
    let write = |name: &str, body: &str| {
        let p = tmp.path().join(name);
        std::fs::write(&p, body).unwrap();
        p
    };
    let unknown = write("unknown.toml", &format!("{text}\n[gate2]\ngames = 3\n"));
    let err = LoopConfig::from_file(&unknown).unwrap_err();
    assert!(format!("{err:#}").contains("gate2"), "{err:#}");
    let missing = write(
        "missing.toml",
        &text.replace("models/cnn-small", "models/no-such-net"),
    );
    let err = LoopConfig::from_file(&missing).unwrap_err();
    assert!(format!("{err:#}").contains("no-such-net"), "{err:#}");
    // A network the engine names besides `{net}` (here a value) must be there too.
    let no_value = write(
        "novalue.toml",
        &text.replacen(
            "policy=nn:{net}\"",
            "policy=nn:{net},value=nnq:models/no-such-value\"",
            1,
        ),
    );
    let err = LoopConfig::from_file(&no_value).unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.contains("engine") && msg.contains("no-such-value"),
        "{msg}"
    );
    let no_net = write(
        "nonet.toml",
        &text
            .replacen("policy=nn:{net}\"", "policy=nn:models/cnn-small\"", 1)
            .replacen("prune=nn:{net}:60@1", "prune=nn:models/cnn-small:60@1", 1),
    );
    let err = LoopConfig::from_file(&no_net).unwrap_err();
    assert!(format!("{err:#}").contains("{net}"), "{err:#}");
    // The start network has no value or ownership head for `heads_only` to train; refused
    // before any self-play.
    let headless = write(
        "headless.toml",
        &text.replace("[train]\n", "[train]\nheads_only = true\n"),
    );
    let err = LoopConfig::from_file(&headless).unwrap_err();
    assert!(format!("{err:#}").contains("train.heads_only"), "{err:#}");
    // A start network whose config.json does not read is refused by name before any
    // self-play, not an hour later by the training that would read it.
    let broken = tmp.path().join("broken-net");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::copy(
        root().join("models/cnn-small/model.bpk"),
        broken.join("model.bpk"),
    )
    .unwrap();
    std::fs::write(broken.join("config.json"), "{ \"model\": ").unwrap();
    let unreadable = write(
        "unreadable.toml",
        &text.replace("models/cnn-small", broken.to_str().unwrap()),
    );
    let err = LoopConfig::from_file(&unreadable).unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.contains("broken-net") && msg.contains("config.json"),
        "{msg}"
    );
}

/// A folder that holds nothing but a refused start (its marker, another config's
/// `loop.toml`, a self-play step that got only its marker) is not another loop: the corrected
/// config starts there. Once a game is played, the folder is that loop's.
#[test]
fn a_folder_holding_only_a_refused_start_is_not_another_loop() {
    let tmp = Scratch::new("loop-refused-start");
    let out = tmp.path().join("loop");
    let mut config = quick_loop();
    config.selfplay.games = 2;
    let mut other = config.clone();
    other.seed += 1;
    std::fs::create_dir_all(out.join("gen-001/selfplay/sgf")).unwrap();
    std::fs::write(out.join(".akushu-output"), "akushu loop\n").unwrap();
    std::fs::write(
        out.join("gen-001/selfplay/.akushu-output"),
        "akushu selfplay\n",
    )
    .unwrap();
    std::fs::write(out.join("loop.toml"), toml::to_string(&other).unwrap()).unwrap();
    let options = LoopOptions {
        progress: false,
        stop_after_steps: Some(1),
    };
    let outcome = run_loop(&config, &out, &options).unwrap();
    assert!(outcome.interrupted, "stopped after its self-play");
    let saved: LoopConfig =
        toml::from_str(&std::fs::read_to_string(out.join("loop.toml")).unwrap()).unwrap();
    assert_eq!(saved, config);
    let err = run_loop(&other, &out, &options).unwrap_err();
    assert!(format!("{err:#}").contains("holds another loop"), "{err:#}");
}

/// A `state.json` that is not what the loop wrote is refused before the loop writes
/// anything: more generations than the config runs, a generation numbered out of order, a
/// candidate whose weights are not the recorded ones. The same record, honest, is accepted.
#[test]
fn a_forged_generation_in_state_json_is_refused() {
    let tmp = Scratch::new("loop-forged");
    let out = tmp.path().join("loop");
    let model = out.join("gen-001/model");
    std::fs::create_dir_all(&model).unwrap();
    for f in ["config.json", "model.bpk"] {
        std::fs::copy(root().join("models/cnn-small").join(f), model.join(f)).unwrap();
    }
    let weights = akushu::net::model::model_checksum(&model)
        .unwrap()
        .to_string();
    let best = akushu::net::model::model_checksum(&root().join("models/cnn-small")).unwrap();
    let generation = |index: u32, checksum: &str| {
        serde_json::json!({
            "index": index, "best": "models/cnn-small", "best_checksum": best.to_string(),
            "selfplay_games": 1, "selfplay_positions": 1, "selfplay_cpu_seconds": 0.0,
            "train_positions": 1, "candidate": model.display().to_string(),
            "candidate_checksum": checksum, "gate_games": 1, "gate_points": 0.0,
            "gate_sprt": null, "promoted": false, "elo": 0.0,
            "curve_selfplay": [], "curve_human": [],
        })
    };
    let mut config = quick_loop();
    config.generations = 1;
    std::fs::write(out.join("loop.toml"), toml::to_string(&config).unwrap()).unwrap();
    let options = LoopOptions::default();
    let cases = [
        (
            1,
            vec![generation(1, &weights), generation(2, &weights)],
            "records 2 generations",
        ),
        (2, vec![generation(2, &weights)], "recorded as generation 2"),
        (
            1,
            vec![generation(1, "fnv1a64:0000000000000000 bytes:0")],
            "the record says",
        ),
    ];
    for (generations, record, says) in cases {
        config.generations = generations;
        let state = serde_json::json!({ "generations": record });
        std::fs::write(out.join("state.json"), state.to_string()).unwrap();
        let err = run_loop(&config, &out, &options).unwrap_err();
        assert!(format!("{err:#}").contains(says), "{err:#}");
    }
    config.generations = 1;
    let state = serde_json::json!({ "generations": [generation(1, &weights)] });
    std::fs::write(out.join("state.json"), state.to_string()).unwrap();
    let outcome = run_loop(&config, &out, &options).unwrap();
    assert_eq!(outcome.state.generations.len(), 1);
}

/// The committed loop folders' `loop.toml` files, written when every `[train]` default was
/// spelt out, run the same loops as their experiment files (so the folders still resume),
/// and the experiment files still parse.
#[test]
fn committed_loop_folders_continue_their_experiment_files() {
    let mut checked = 0;
    for entry in std::fs::read_dir(root().join("report/loops")).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_str().unwrap().to_string();
        let experiment = root().join(format!("experiments/loops/{name}.toml"));
        if !dir.join("loop.toml").exists() || !experiment.exists() {
            continue;
        }
        let read = |p: &Path| -> LoopConfig {
            toml::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
        };
        let (saved, now) = (read(&dir.join("loop.toml")), read(&experiment));
        // The start networks are named relative to the repository root, the tests' folder.
        assert!(now.continues(&saved).unwrap(), "{name}: {saved:?}\n{now:?}");
        checked += 1;
    }
    assert!(checked >= 10, "{checked}");
}
