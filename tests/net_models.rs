//! Network tests on synthetic random-game positions: training lowers the loss, is
//! deterministic for a seed, resumes to the same weights, saves and loads, and the plain-Rust
//! export matches burn.

use akushu::dataset::Position;
use akushu::net::cnn::CnnConfig;
use akushu::net::encode::{CNN_PLANES, MlpEncoding, NetInput, cnn_planes, mlp_input};
use akushu::net::mlp::{MlpConfig, MlpLoss};
use akushu::net::model::{NetKind, SavedModel, TrainConfig};
use akushu::net::plain::{PlainCnn, PlainMlp, Scratch, masked_softmax_badness};
use akushu::net::synthetic::random_game_positions;
use akushu::net::{NetPruner, cpu_device, train};
use akushu::prune::{PruneContext, Pruner};
use akushu::rules::NN;
use burn::prelude::*;
use burn::tensor::activation::sigmoid;
use std::path::Path;

fn data() -> (Vec<Position>, Vec<Position>) {
    (random_game_positions(40, 1), random_game_positions(8, 2))
}

fn tiny_mlp(encoding: MlpEncoding) -> TrainConfig {
    TrainConfig::new(NetKind::Mlp)
        .with_mlp(
            MlpConfig::new()
                .with_encoding(encoding)
                .with_hidden(vec![32]),
        )
        .with_epochs(3)
        .with_batch_size(64)
        .with_patience(10)
        .with_seed(7)
}

fn tiny_cnn() -> TrainConfig {
    TrainConfig::new(NetKind::Cnn)
        .with_cnn(CnnConfig::new().with_blocks(1).with_channels(8))
        .with_epochs(2)
        .with_batch_size(64)
        .with_patience(10)
        .with_augment(true)
        .with_seed(7)
}

fn run(cfg: &TrainConfig, dir: &Path, resume: bool) -> train::TrainSummary {
    let (t, v) = data();
    let options = train::TrainOptions {
        resume,
        ..train::TrainOptions::default()
    };
    train::train(cfg, &t, &v, dir, &options).expect("training runs")
}

#[test]
fn mlp_training_lowers_loss_and_is_deterministic() {
    let tmp = tempdir("mlp_det");
    let cfg = tiny_mlp(MlpEncoding::Paper);
    let a = run(&cfg, &tmp.join("a"), false);
    let b = run(&cfg, &tmp.join("b"), false);
    assert!(
        a.log.last().unwrap().train_loss < a.log[0].train_loss * 0.8,
        "{:?}",
        a.log
    );
    assert!(a.log.last().unwrap().validation_loss < a.log[0].validation_loss);
    let weights = |d: &str| outputs(&tmp.join(d));
    assert!(weights("a") == weights("b"), "same seed, same weights");
    let losses = |s: &train::TrainSummary| s.log.iter().map(|r| r.train_loss).collect::<Vec<_>>();
    assert_eq!(losses(&a), losses(&b));
    let c = run(&cfg.clone().with_seed(8), &tmp.join("c"), false);
    assert!(weights("a") != weights("c"), "another seed, other weights");
    assert_ne!(losses(&a), losses(&c));
}

#[test]
fn resumed_training_matches_an_uninterrupted_run() {
    let tmp = tempdir("mlp_resume");
    let cfg = tiny_mlp(MlpEncoding::OneHot);
    run(&cfg, &tmp.join("full"), false);
    run(&cfg.clone().with_epochs(1), &tmp.join("split"), false);
    let resumed = run(&cfg, &tmp.join("split"), true);
    assert_eq!(resumed.log.len(), 3);
    assert!(outputs(&tmp.join("full")) == outputs(&tmp.join("split")));
}

#[test]
fn resuming_mid_epoch_matches_an_uninterrupted_run() {
    // Validation every 3 steps: the first run, given no time, pauses after its first step,
    // between validations inside epoch 1 (its checkpoint keeps the open interval's loss), and
    // the resumed run must end where the straight run ends, log and weights.
    let tmp = tempdir("cnn_mid_epoch");
    let cfg = tiny_cnn()
        .with_validate_every(3)
        .with_lr_schedule(akushu::net::model::LrSchedule::Cosine)
        .with_warmup_steps(2);
    let straight = run(&cfg, &tmp.join("full"), false);
    let (t, v) = data();
    let first = train::train(
        &cfg,
        &t,
        &v,
        &tmp.join("split"),
        &train::TrainOptions {
            stop_after: Some(0.0),
            ..train::TrainOptions::default()
        },
    )
    .unwrap();
    assert!(
        first.paused && first.steps == 1 && first.log.is_empty(),
        "{first:?}"
    );
    let resumed = run(&cfg, &tmp.join("split"), true);
    assert_eq!(resumed.steps, straight.steps);
    assert!(
        straight.steps > 6,
        "more than two checkpoints: {}",
        straight.steps
    );
    let losses = |s: &train::TrainSummary| s.log.iter().map(|r| r.train_loss).collect::<Vec<_>>();
    assert_eq!(losses(&resumed), losses(&straight));
    assert!(outputs(&tmp.join("full")) == outputs(&tmp.join("split")));
    // Other data than the run started on is refused.
    let t2 = random_game_positions(30, 1);
    let err = train::train(
        &cfg,
        &t2,
        &v,
        &tmp.join("split"),
        &train::TrainOptions {
            resume: true,
            ..train::TrainOptions::default()
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("same data"), "{err}");
}

#[test]
fn two_threads_give_the_one_thread_losses() {
    // One step each (validation after every step, pause at the first): the step's training
    // loss comes from the same weights, the validation loss from the weights after one update.
    let tmp = tempdir("cnn_threads");
    let cfg = tiny_cnn()
        .with_cnn(CnnConfig::new().with_blocks(2).with_channels(16))
        .with_validate_every(1);
    let (t, v) = data();
    let with = |threads: usize, dir: &str| {
        train::train(
            &cfg,
            &t,
            &v,
            &tmp.join(dir),
            &train::TrainOptions {
                threads,
                stop_after: Some(0.0),
                ..train::TrainOptions::default()
            },
        )
        .unwrap()
    };
    let (one, two) = (with(1, "one"), with(2, "two"));
    assert_eq!((one.steps, two.steps), (1, 1));
    let (a, b) = (&one.log[0], &two.log[0]);
    assert!(
        (a.train_loss - b.train_loss).abs() < 1e-4,
        "{} vs {}",
        a.train_loss,
        b.train_loss
    );
    assert!(
        (a.validation_loss - b.validation_loss).abs() < 1e-4,
        "{} vs {}",
        a.validation_loss,
        b.validation_loss
    );
}

/// A data-parallel run (two threads: each batch split into two shards) paused after its first
/// step resumes to the uninterrupted two-thread run's losses and weights, bit for bit,
/// whatever `--threads` the resume is given: the checkpoint keeps the shard count, and the
/// shards decide the sums' order.
#[test]
fn a_two_thread_run_resumes_to_the_same_weights_with_any_thread_count() {
    let tmp = tempdir("threads_resume");
    let cfg = tiny_cnn().with_epochs(1).with_validate_every(3);
    let (t, v) = data();
    let t = &t[..t.len().min(640)];
    let with = |threads: usize, dir: &str, stop: bool, resume: bool| {
        train::train(
            &cfg,
            t,
            &v,
            &tmp.join(dir),
            &train::TrainOptions {
                threads,
                resume,
                stop_after: stop.then_some(0.0),
                ..train::TrainOptions::default()
            },
        )
        .unwrap()
    };
    let straight = with(2, "full", false, false);
    assert!(straight.steps > 3, "{}", straight.steps);
    let losses = |s: &train::TrainSummary| {
        s.log
            .iter()
            .map(|r| (r.train_loss, r.validation_loss))
            .collect::<Vec<_>>()
    };
    for (resume_threads, dir) in [(2, "same"), (1, "fewer")] {
        let first = with(2, dir, true, false);
        assert!(first.paused && first.steps == 1, "{first:?}");
        let resumed = with(resume_threads, dir, false, true);
        assert_eq!(
            losses(&resumed),
            losses(&straight),
            "resumed on {resume_threads}"
        );
        assert!(
            outputs(&tmp.join("full")) == outputs(&tmp.join(dir)),
            "resumed on {resume_threads}: other weights"
        );
    }
}

#[test]
fn cosine_schedule_warms_up_then_decays_to_its_floor() {
    use akushu::net::model::LrSchedule;
    let cfg = TrainConfig::new(NetKind::Cnn)
        .with_learning_rate(1e-3)
        .with_lr_schedule(LrSchedule::Cosine)
        .with_warmup_steps(10)
        .with_final_lr_fraction(0.1);
    let lr = |s| train::learning_rate(&cfg, s, 110);
    assert!((lr(0) - 1e-4).abs() < 1e-12);
    assert!((lr(9) - 1e-3).abs() < 1e-12);
    assert!((lr(10) - 1e-3).abs() < 1e-12);
    assert!((lr(60) - 0.55e-3).abs() < 1e-9, "{}", lr(60));
    assert!((lr(110) - 1e-4).abs() < 1e-12);
    assert!((1..110).all(|s| lr(s) <= lr(s - 1) + 1e-12 || s <= 10));
    let flat = cfg.clone().with_lr_schedule(LrSchedule::Constant);
    assert_eq!(train::learning_rate(&flat, 50, 110), 1e-3);
}

/// Burn's outputs for `positions`, one row of 81 per position, and the plain evaluator's.
fn compare(model: &SavedModel, positions: &[Position]) -> f32 {
    let device = cpu_device();
    let pruner = NetPruner::from_model(model, "t".into());
    let mut worst = 0f32;
    let mut scratch = Scratch::default();
    for pos in positions {
        let board = pos.board();
        let inp = NetInput::from_position(pos, &board);
        let (burn_out, plain_out): (Vec<f32>, [f32; NN]) = match model {
            SavedModel::Mlp(m, cfg) => {
                let w = cfg.encoding.width();
                let mut x = vec![0.0; w];
                mlp_input(cfg.encoding, &inp, &mut x);
                let t = Tensor::<2>::from_data(TensorData::new(x.clone(), [1, w]), &device);
                let mut out = [0.0; NN];
                let plain = PlainMlp::from_burn(m);
                if cfg.loss == MlpLoss::Softmax {
                    let logits = m.forward(t).into_data().try_to_vec::<f32>().unwrap();
                    let mut y: [f32; NN] = logits.try_into().unwrap();
                    masked_softmax_badness(&inp.legal_mask(), &mut y);
                    plain.logits(&x, &mut scratch, &mut out);
                    masked_softmax_badness(&inp.legal_mask(), &mut out);
                    (y.to_vec(), out)
                } else {
                    let y = sigmoid(m.forward(t))
                        .into_data()
                        .try_to_vec::<f32>()
                        .unwrap();
                    plain.forward(&x, &mut scratch, &mut out);
                    (y, out)
                }
            }
            SavedModel::Cnn(m, _) => {
                let mut x = vec![0.0; CNN_PLANES * NN];
                cnn_planes(&inp, &mut x);
                let t = Tensor::<4>::from_data(
                    TensorData::new(x.clone(), [1, CNN_PLANES, 9, 9]),
                    &device,
                );
                let logits = m.forward(t).into_data().try_to_vec::<f32>().unwrap();
                let mut y: [f32; NN] = logits.try_into().unwrap();
                masked_softmax_badness(&inp.legal_mask(), &mut y);
                let mut out = [0.0; NN];
                PlainCnn::from_burn(m).forward(&x, &inp.legal_mask(), &mut scratch, &mut out);
                (y.to_vec(), out)
            }
        };
        let mut via_pruner = [0.0; NN];
        pruner.rate(&inp, &mut via_pruner);
        assert_eq!(via_pruner, plain_out);
        for (a, b) in burn_out.iter().zip(plain_out.iter()) {
            worst = worst.max((a - b).abs());
        }
    }
    worst
}

#[test]
fn saved_models_round_trip_and_plain_export_matches_burn() {
    let tmp = tempdir("roundtrip");
    let (_, v) = data();
    for (name, cfg) in [
        ("paper", tiny_mlp(MlpEncoding::Paper).with_epochs(1)),
        ("onehot", tiny_mlp(MlpEncoding::OneHot).with_epochs(1)),
        ("cnn", tiny_cnn().with_epochs(1)),
        (
            "planes-softmax",
            tiny_mlp(MlpEncoding::Planes).with_epochs(1).with_mlp(
                MlpConfig::new()
                    .with_encoding(MlpEncoding::Planes)
                    .with_hidden(vec![16, 16])
                    .with_loss(MlpLoss::Softmax),
            ),
        ),
    ] {
        let dir = tmp.join(name);
        run(&cfg, &dir, false);
        let (model, loaded_cfg) = SavedModel::load(&dir).unwrap();
        assert_eq!(loaded_cfg.model, cfg.model);
        // Saving the loaded model again gives byte-identical weights.
        let again = tmp.join(format!("{name}.bpk"));
        match &model {
            SavedModel::Mlp(m, _) => akushu::net::model::save_weights(m.as_ref(), &again).unwrap(),
            SavedModel::Cnn(m, _) => akushu::net::model::save_weights(m.as_ref(), &again).unwrap(),
        }
        assert_eq!(
            std::fs::read(&again).unwrap(),
            std::fs::read(dir.join("model.bpk")).unwrap()
        );
        let worst = compare(&model, &v[..200]);
        assert!(worst < 1e-5, "{name}: plain differs from burn by {worst}");
        // And through the Pruner interface loaded from disk.
        let p = NetPruner::load(&dir).unwrap();
        let pos = &v[10];
        let board = pos.board();
        let ctx = PruneContext {
            board: &board,
            to_move: pos.color(),
            recent: &[],
        };
        let mut out = [0.0; NN];
        p.badness(&ctx, &mut out);
        assert!(out.iter().all(|x| (0.0..=1.0).contains(x)));
    }
}

#[test]
fn cnn_training_lowers_loss() {
    let tmp = tempdir("cnn");
    let s = run(&tiny_cnn(), &tmp, false);
    assert!(s.log[1].train_loss < s.log[0].train_loss, "{:?}", s.log);
}

#[test]
fn missing_model_is_a_clear_error() {
    let err = NetPruner::load(Path::new("/nonexistent/model")).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/model"), "{err}");
}

/// The saved model's outputs on a fixed set of positions: equal outputs, equal weights.
/// (Weight files also hold random parameter ids, so their bytes differ between runs.)
fn outputs(dir: &Path) -> Vec<f32> {
    let p = NetPruner::load(dir).unwrap();
    let mut v = Vec::new();
    for pos in random_game_positions(2, 99).iter().take(50) {
        let board = pos.board();
        let mut out = [0.0; NN];
        p.rate(&NetInput::from_position(pos, &board), &mut out);
        v.extend_from_slice(&out);
    }
    v
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("akushu-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The largest gap between burn's CNN logits and the plain evaluator's, relative to
/// `1 + |logit|`.
fn cnn_logit_gap(m: &akushu::net::cnn::Cnn, positions: &[Position]) -> f32 {
    let device = cpu_device();
    let plain = PlainCnn::from_burn(m);
    let mut scratch = Scratch::default();
    let mut worst = 0f32;
    for pos in positions {
        let board = pos.board();
        let inp = NetInput::from_position(pos, &board);
        let mut x = vec![0.0; CNN_PLANES * NN];
        cnn_planes(&inp, &mut x);
        let t = Tensor::<4>::from_data(TensorData::new(x.clone(), [1, CNN_PLANES, 9, 9]), &device);
        let y = m.forward(t).into_data().try_to_vec::<f32>().unwrap();
        let mut out = [0.0; NN];
        plain.logits(&x, &mut scratch, &mut out);
        for (a, b) in y.iter().zip(out.iter()) {
            worst = worst.max((a - b).abs() / (1.0 + a.abs()));
        }
    }
    worst
}

#[test]
fn cnn_export_matches_burn_for_the_shipped_model_and_odd_widths() {
    let (_, v) = data();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/cnn");
    let (model, _) = SavedModel::load(&shipped).unwrap();
    let SavedModel::Cnn(m, _) = &model else {
        panic!("models/cnn is not a CNN")
    };
    let gap = cnn_logit_gap(m, &v[..100]);
    assert!(gap < 1e-5, "models/cnn: logits differ from burn by {gap}");
    let badness = compare(&model, &v[..100]);
    assert!(
        badness < 1e-5,
        "models/cnn: badness differs from burn by {badness}"
    );
    // 12 channels take the portable path, 40 the SIMD path in a 32 + 8 split (x86-64).
    let device = cpu_device();
    for channels in [12, 40] {
        let m = CnnConfig::new()
            .with_blocks(2)
            .with_channels(channels)
            .init(&device);
        let gap = cnn_logit_gap(&m, &v[..50]);
        assert!(
            gap < 1e-5,
            "{channels} channels: logits differ from burn by {gap}"
        );
    }
}

#[test]
fn batched_burn_curve_matches_the_plain_evaluator() {
    // `akushu eval --device cuda` scores through burn in batches; on the CPU that path must
    // draw the plain evaluator's curve (the one `eval` prints by default).
    use akushu::net::curve::evaluate;
    let (_, v) = data();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/cnn");
    let (model, _) = SavedModel::load(&shipped).unwrap();
    let burn = train::network_curve(&model, &v, &cpu_device(), &|_| {});
    let plain = evaluate(&NetPruner::load(&shipped).unwrap(), &v, &|_| {});
    assert_eq!((burn.n, burn.passes), (plain.n, plain.passes));
    // Ranks can swap only where two scores agree to float rounding.
    let moved = |a: &[u64], b: &[u64]| a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).sum::<u64>();
    assert!(
        moved(&burn.all, &plain.all) * 100 <= burn.n,
        "{burn:?}\n{plain:?}"
    );
    assert!(moved(&burn.legal, &plain.legal) * 100 <= burn.n);
    assert!((burn.top_k(1) - plain.top_k(1)).abs() < 0.01);
}

#[test]
fn symmetry_averaged_ratings_are_the_mean_of_the_views_and_turn_with_the_board() {
    use akushu::net::encode::{sym_point, sym_position};
    let (_, v) = data();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/cnn");
    let single = NetPruner::load(&shipped).unwrap();
    let rate = |p: &NetPruner, pos: &Position| {
        let board = pos.board();
        let mut out = [0f32; NN];
        p.rate(&NetInput::from_position(pos, &board), &mut out);
        out
    };
    let mut views_differ = false;
    // 4 views (identity, both flips, half turn) and all 8; each set is closed under composition
    for views in [4u8, 8] {
        let spec = format!("sym{views}:{}", shipped.display());
        let averaged = NetPruner::load_named(&spec).unwrap();
        assert_eq!(
            averaged.name(),
            format!("sym{views}:nn:{}", shipped.display())
        );
        for pos in v.iter().step_by(7).take(12) {
            let avg = rate(&averaged, pos);
            // the mean of the single network's badness over the turned positions, read back
            let mut mean = [0f32; NN];
            for sym in 0..views {
                let turned = rate(&single, &sym_position(pos, sym));
                for (p, m) in mean.iter_mut().enumerate() {
                    *m += turned[sym_point(sym, p as u8) as usize] / views as f32;
                }
                views_differ |= sym > 0 && turned != rate(&single, pos);
            }
            for (p, (a, m)) in avg.iter().zip(mean).enumerate() {
                assert!((a - m).abs() < 1e-5, "sym{views} point {p}: {a} vs {m}");
            }
            // the average is exactly equivariant: a turned board, turned ratings
            for sym in 1..views {
                let turned = rate(&averaged, &sym_position(pos, sym));
                for (p, a) in avg.iter().enumerate() {
                    let q = sym_point(sym, p as u8) as usize;
                    assert!((turned[q] - a).abs() < 1e-5, "sym{views}: {sym} point {p}");
                }
            }
        }
    }
    assert!(
        views_differ,
        "the single network rated every turned board alike"
    );
    assert!(single.clone().with_symmetries(3).is_err());
    for name in [
        "models/x",
        "nnq:models/x",
        "sym2:models/x",
        "sym8:nnq:models/x",
    ] {
        let parsed = akushu::prune::name::PrunerName::parse_or_dir(name).unwrap();
        assert_eq!(parsed.model_dir(), Some(Path::new("models/x")), "{name}");
    }
    // an MLP has no planes to turn
    let mlp = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/mlp-paper");
    let err = NetPruner::load(&mlp)
        .unwrap()
        .with_symmetries(8)
        .unwrap_err();
    assert!(err.to_string().contains("needs a CNN"), "{err}");
}

#[test]
fn a_network_without_history_never_sees_the_last_moves() {
    // `history = false`: training encodes planes 10 and 11 empty, and every evaluator (plain,
    // 8-bit, burn's batched curve) gives the network no last moves whatever it is handed,
    // so what it learned and what the search shows it agree.
    use akushu::net::train::{CnnTask, Task};
    use akushu::rules::NO_POINT;
    let tmp = tempdir("no_history");
    let (t, v) = data();
    assert!(v.iter().any(|p| p.last_moves[0] != NO_POINT));
    let cfg = tiny_cnn();
    let blind = cfg
        .clone()
        .with_cnn(cfg.cnn.clone().with_history(false))
        .with_epochs(1);
    let options = train::TrainOptions::default();
    train::train(&blind, &t, &v, &tmp.join("blind"), &options).unwrap();
    train::train(
        &cfg.clone().with_epochs(1),
        &t,
        &v,
        &tmp.join("seeing"),
        &options,
    )
    .unwrap();

    let plane = |enc: &train::Encoded, row: usize, plane: usize| -> f32 {
        let at = row * enc.width + plane * NN;
        enc.input[at..at + NN].iter().sum()
    };
    let enc = CnnTask::of(&blind, blind.target).encode(&v);
    let seen = CnnTask::of(&cfg, cfg.target).encode(&v);
    assert!((0..v.len()).all(|r| plane(&enc, r, 10) == 0.0 && plane(&enc, r, 11) == 0.0));
    assert!((0..v.len()).any(|r| plane(&seen, r, 10) > 0.0));

    for name in ["blind", "seeing"] {
        let dir = tmp.join(name);
        let reads = name == "seeing";
        for pruner in [
            NetPruner::load(&dir).unwrap(),
            NetPruner::load_quantized(&dir).unwrap(),
        ] {
            assert_eq!(pruner.reads_history(), reads, "{name}");
            let changed = v.iter().any(|pos| {
                let board = pos.board();
                let inp = NetInput::from_position(pos, &board);
                let (mut a, mut b) = ([0.0; NN], [0.0; NN]);
                pruner.rate(&inp, &mut a);
                pruner.rate(&inp.with_history(false), &mut b);
                let mut batch = [[0.0; NN]];
                pruner.rate_batch(&[inp], &mut batch);
                assert_eq!(batch[0], a, "{name}: one position and a batch of it agree");
                a != b
            });
            assert_eq!(changed, reads, "{name}: the last moves change its output");
        }
        // Burn's batched curve (`eval --device`) reads the same inputs as the plain one.
        let (model, _) = SavedModel::load(&dir).unwrap();
        let burn = train::network_curve(&model, &v, &cpu_device(), &|_| {});
        let plain = akushu::net::curve::evaluate(&NetPruner::load(&dir).unwrap(), &v, &|_| {});
        assert_eq!(burn.n, plain.n);
        let gap: f64 = (0..NN)
            .map(|x| (burn.error_all(x) - plain.error_all(x)).abs())
            .sum();
        assert!(gap < 0.05, "{name}: burn and plain curves differ by {gap}");
    }
}
