//! The CNN's value and ownership heads: the plain and 8-bit evaluators compute burn's value,
//! training learns a learnable outcome, a move-only network grows heads through
//! `--init-from`, and the search takes `value=` only from a network that has a value head.

use akushu::dataset::Position;
use akushu::net::cnn::CnnConfig;
use akushu::net::encode::{CNN_PLANES, NetInput, cnn_planes};
use akushu::net::model::{NetKind, SavedModel, TrainConfig};
use akushu::net::plain::{PlainCnn, Scratch};
use akushu::net::quant::QuantCnn;
use akushu::net::synthetic::random_game_positions;
use akushu::net::{NetPruner, cpu_device, train};
use akushu::rules::NN;
use burn::prelude::*;
use std::path::{Path, PathBuf};

fn tempdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("akushu-value-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn planes(pos: &Position) -> Vec<f32> {
    let board = pos.board();
    let mut x = vec![0.0; CNN_PLANES * NN];
    cnn_planes(&NetInput::from_position(pos, &board), &mut x);
    x
}

#[test]
fn plain_and_quantized_values_match_burn() {
    let device = cpu_device();
    let positions = random_game_positions(2, 5);
    // 12 channels take the portable convolutions, 40 the SIMD ones (x86-64).
    for channels in [12, 40] {
        let m = CnnConfig::new()
            .with_blocks(2)
            .with_channels(channels)
            .with_value_channels(8)
            .with_ownership(true)
            .init(&device);
        let plain = PlainCnn::from_burn(&m);
        let quant = QuantCnn::from_plain(&plain);
        assert!(plain.has_value() && quant.has_value());
        let (mut scratch, mut logits) = (Scratch::default(), vec![0f32; NN]);
        for pos in positions.iter().step_by(7).take(20) {
            let x = planes(pos);
            let t =
                Tensor::<4>::from_data(TensorData::new(x.clone(), [1, CNN_PLANES, 9, 9]), &device);
            let heads = m.forward_heads(t.clone());
            let want = heads
                .value
                .unwrap()
                .into_data()
                .try_to_vec::<f32>()
                .unwrap()[0];
            assert_eq!(heads.ownership.unwrap().dims(), [1, NN]);
            // The move logits with heads are the logits without.
            let a = heads.policy.into_data().try_to_vec::<f32>().unwrap();
            let b = m.forward(t).into_data().try_to_vec::<f32>().unwrap();
            assert_eq!(a, b);
            let mut v = [0f32];
            plain.evaluate_batch(&x, 1, &mut scratch, &mut logits, Some(&mut v));
            assert!(
                (v[0] - want).abs() < 1e-4 * (1.0 + want.abs()),
                "{} vs {want}",
                v[0]
            );
            quant.evaluate_batch(&x, 1, &mut scratch, &mut logits, Some(&mut v));
            assert!(
                (v[0] - want).abs() < 0.05 * (1.0 + want.abs()),
                "8-bit {} vs {want}",
                v[0]
            );
        }
    }
    // A network without the head says so and gives NaN.
    let m = CnnConfig::new()
        .with_blocks(1)
        .with_channels(8)
        .init(&device);
    let plain = PlainCnn::from_burn(&m);
    assert!(!plain.has_value());
    let mut v = [0f32];
    let x = planes(&positions[3]);
    plain.evaluate_batch(
        &x,
        1,
        &mut Scratch::default(),
        &mut vec![0f32; NN],
        Some(&mut v),
    );
    assert!(v[0].is_nan());
}

/// Random-game positions whose "winner" is whoever has more stones on the board (unknown when
/// even): an outcome the value head can learn from the stones alone, and a count, as a
/// territory count is.
fn stone_games(games: usize, seed: u64) -> Vec<Position> {
    random_game_positions(games, seed)
        .into_iter()
        .map(|mut p| {
            let lead: i32 = (0..NN)
                .map(|i| match p.cells[i] {
                    1 => 1,
                    2 => -1,
                    _ => 0,
                })
                .sum();
            p.winner = match lead.signum() {
                1 => 1,
                -1 => 2,
                _ => 0,
            };
            p
        })
        .collect()
}

fn tiny(value_channels: usize) -> TrainConfig {
    TrainConfig::new(NetKind::Cnn)
        .with_cnn(
            CnnConfig::new()
                .with_blocks(1)
                .with_channels(8)
                .with_value_channels(value_channels),
        )
        .with_epochs(4)
        .with_batch_size(64)
        .with_patience(10)
        .with_learning_rate(3e-3)
        .with_seed(11)
}

#[test]
fn the_value_head_learns_a_learnable_outcome() {
    let dir = tempdir("learn");
    let (t, v) = (stone_games(60, 1), stone_games(12, 2));
    let s = train::train(&tiny(8), &t, &v, &dir, &train::TrainOptions::default()).unwrap();
    let first = s.log.first().unwrap();
    let last = s.log.last().unwrap();
    let (l0, l1) = (
        first.validation_value_loss.unwrap(),
        last.validation_value_loss.unwrap(),
    );
    let acc = last.validation_value_accuracy.unwrap();
    assert!(l1 < l0, "value loss {l0} -> {l1}");
    assert!(acc > 0.8, "winners called: {acc}");
    // The saved network carries its head into the search's evaluator.
    let net = NetPruner::load(&dir).unwrap();
    assert!(net.has_value());
    let pos = v.iter().find(|p| p.winner == p.to_move).unwrap();
    let board = pos.board();
    let mut out = [0f32; NN];
    let p = net
        .rate_value(&NetInput::from_position(pos, &board), &mut out, true)
        .unwrap();
    assert!(p > 0.5, "the mover has more stones: {p}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_move_only_network_grows_heads_through_init_from() {
    let dir = tempdir("grow");
    let (t, v) = (stone_games(20, 3), stone_games(4, 4));
    let base = dir.join("base");
    let cfg = tiny(0).with_epochs(1);
    train::train(&cfg, &t, &v, &base, &train::TrainOptions::default()).unwrap();
    let headed = dir.join("headed");
    let cfg = tiny(8)
        .with_epochs(1)
        .with_init_from(Some(base.display().to_string()));
    train::train(&cfg, &t, &v, &headed, &train::TrainOptions::default()).unwrap();
    let (model, config) = SavedModel::load(&headed).unwrap();
    assert_eq!(config.cnn.value_channels, 8);
    assert!(matches!(model, SavedModel::Cnn(ref m, _) if m.value.is_some()));
    // The search takes `value=` from it, and refuses a network without the head.
    let spec = |m: &Path| format!("uct:sims=50,policy=nn:{0},value=nn:{0}", m.display());
    let run = |m: &Path| akushu::search::spec::build_engine(&spec(m), 1).map(|_| ());
    run(&headed).unwrap();
    let err = run(&base).unwrap_err();
    assert!(format!("{err:#}").contains("no value head"), "{err:#}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every weight of `m`'s tower and move head, then of its value head, as flat vectors.
fn trunk_and_value(m: &akushu::net::cnn::Cnn) -> (Vec<f32>, Vec<f32>) {
    let flat = |t: Tensor<4>| t.into_data().try_to_vec::<f32>().unwrap();
    let mut trunk = flat(m.stem.weight.val());
    for b in &m.blocks {
        trunk.extend(flat(b.conv1.weight.val()));
        trunk.extend(flat(b.conv2.weight.val()));
    }
    trunk.extend(flat(m.head.weight.val()));
    let v = m.value.as_ref().unwrap();
    let value = [&v.project, &v.hidden, &v.out]
        .iter()
        .flat_map(|l| l.weight.val().into_data().try_to_vec::<f32>().unwrap())
        .collect();
    (trunk, value)
}

#[test]
fn heads_only_training_moves_the_value_head_and_nothing_else() {
    let dir = tempdir("heads-only");
    let (t, v) = (stone_games(30, 5), stone_games(6, 6));
    let base = dir.join("base");
    train::train(&tiny(8).with_epochs(1), &t, &v, &base, &Default::default()).unwrap();
    let tuned = dir.join("tuned");
    let cfg = tiny(8)
        .with_epochs(2)
        .with_heads_only(true)
        .with_init_from(Some(base.display().to_string()));
    train::train(&cfg, &t, &v, &tuned, &Default::default()).unwrap();
    let weights = |d: &Path| match SavedModel::load(d).unwrap() {
        (SavedModel::Cnn(m, _), c) => (trunk_and_value(&m), c.heads_only),
        _ => unreachable!("a CNN"),
    };
    let (((t0, v0), _), ((t1, v1), recorded)) = (weights(&base), weights(&tuned));
    assert!(recorded, "config.json records heads_only");
    assert_eq!(
        t0, t1,
        "the tower and the move head keep their weights to the bit"
    );
    assert_ne!(v0, v1, "the value head learned");
    // Without it the same run moves the tower too (the test above is not vacuous).
    let free = dir.join("free");
    let cfg = cfg.with_heads_only(false);
    train::train(&cfg, &t, &v, &free, &Default::default()).unwrap();
    assert_ne!(t0, weights(&free).0.0);
    // A network without a value or ownership head has nothing to train this way.
    let err = tiny(0).with_heads_only(true).validate().unwrap_err();
    assert!(err.contains("heads_only"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// `eval --value`: the shipped value network's log-loss over the positions whose result is
/// known, equal to the mean cross-entropy recomputed from its own plain-Rust values; a
/// network without a value head says so.
#[test]
fn eval_value_reports_the_heads_log_loss_against_the_results() {
    let dir = std::env::temp_dir().join(format!("akushu-eval-value-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let games = repo.join("report/runs/strong_gnugo/strong_2000/sgf.tar.xz");
    let data = dir.join("ds");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_akushu"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let d = data.display().to_string();
    run(&[
        "dataset",
        "build",
        "--sgf",
        &games.display().to_string(),
        "--limit",
        "8",
        "--out",
        &d,
        "--quiet",
    ]);
    let value_net = repo.join("models/cnn-human-5x32-value");
    let text = run(&[
        "eval",
        "--data",
        &d,
        "--split",
        "train",
        "--value",
        "--allow-overlap",
        "--model",
        &value_net.display().to_string(),
        "--model",
        "models/cnn-human-5x32-gpu2",
    ]);
    let line = text
        .lines()
        .find(|l| l.contains("value: log-loss"))
        .expect(&text);
    let loss: f64 = line
        .split("log-loss ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(text.contains("value: no value head"), "{text}");
    // Recomputed from the network's own values through the plain evaluator.
    let positions = akushu::dataset::read_split(&data, akushu::dataset::Split::Train).unwrap();
    let net = NetPruner::load(&value_net).unwrap();
    let (mut sum, mut n) = (0.0f64, 0usize);
    for p in &positions {
        let t = match p.winner {
            0 => continue,
            w if w == p.to_move => 1.0,
            _ => 0.0,
        };
        let board = p.board();
        let mut out = [0f32; NN];
        let v = net.rate_value(&NetInput::from_position(p, &board), &mut out, true);
        let v = f64::from(v.expect("a value head")).clamp(1e-7, 1.0 - 1e-7);
        sum -= t * v.ln() + (1.0 - t) * (1.0 - v).ln();
        n += 1;
    }
    assert!(line.contains(&format!("of {n} positions")), "{line}");
    assert!(
        (loss - sum / n as f64).abs() < 2e-3,
        "{loss} against {}",
        sum / n as f64
    );
    let _ = std::fs::remove_dir_all(&dir);
}
