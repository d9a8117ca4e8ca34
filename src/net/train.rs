//! The training loop: seeded shuffles and initialisation, Adam, a progress bar, validation
//! every epoch, a checkpoint every epoch (`--resume` continues from it), early stopping on
//! validation loss, and a CSV log next to the model.
//!
//! Same seed, same data, one thread: the same weights, whether or not the run was resumed.

use super::NetError;
use super::cnn::{Cnn, masked_softmax_loss};
use super::curve::Curve;
use super::encode::{CNN_PLANES, MlpEncoding, NetInput, cnn_planes, mlp_input, sym_position};
use super::mlp::{Mlp, MlpLoss, bce_with_logits};
use super::model::{
    NetKind, TrainConfig, config_path, load_weights, log_path, save_weights, weights_path,
};
use crate::dataset::Position;
use crate::rules::NN;
use crate::util::fsio::{write_atomic, write_atomic_with};
use crate::util::rng::FastRng;
use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What differs between the networks during training: how a batch becomes tensors, the
/// loss, and which way the logits point.
pub trait Task<M: Module> {
    /// Mean loss of `batch` (positions already augmented) on `device`.
    fn loss(&self, model: &M, batch: &[Position], device: &Device) -> Tensor<1>;
    /// Badness scores (higher = worse), `batch.len() * 81` values, row-major.
    fn scores(&self, model: &M, batch: &[Position], device: &Device) -> Vec<f32>;
}

/// The paper's MLP with binary cross-entropy.
pub struct MlpTask {
    pub encoding: MlpEncoding,
    pub loss: MlpLoss,
}

impl MlpTask {
    fn inputs(&self, batch: &[Position], device: &Device) -> Tensor<2> {
        let w = self.encoding.width();
        let mut x = vec![0f32; batch.len() * w];
        for (pos, row) in batch.iter().zip(x.chunks_mut(w)) {
            let board = pos.board();
            mlp_input(self.encoding, &NetInput::from_position(pos, &board), row);
        }
        Tensor::from_data(TensorData::new(x, [batch.len(), w]), device) // [batch, w]
    }
}

impl Task<Mlp> for MlpTask {
    fn loss(&self, model: &Mlp, batch: &[Position], device: &Device) -> Tensor<1> {
        if self.loss == MlpLoss::Softmax {
            let (illegal, played) = CnnTask::targets(batch, device);
            return masked_softmax_loss(model.forward(self.inputs(batch, device)), illegal, played);
        }
        let t: Vec<f32> = batch
            .iter()
            .flat_map(|p| p.target().map(f32::from))
            .collect();
        let targets = Tensor::from_data(TensorData::new(t, [batch.len(), NN]), device); // [batch, 81]
        bce_with_logits(model.forward(self.inputs(batch, device)), targets)
    }
    fn scores(&self, model: &Mlp, batch: &[Position], device: &Device) -> Vec<f32> {
        let logits = model.forward(self.inputs(batch, device)); // [batch, 81]
        let v = logits
            .into_data()
            .convert::<f32>()
            .try_to_vec::<f32>()
            .expect("f32 logits");
        match self.loss {
            MlpLoss::Bce => v,
            MlpLoss::Softmax => v.into_iter().map(|x| -x).collect(),
        }
    }
}

/// The CNN with a softmax over legal points.
pub struct CnnTask;

impl CnnTask {
    /// Illegal-point mask `[b, 81]` and played move `[b, 1]` for the softmax losses.
    fn targets(batch: &[Position], device: &Device) -> (Tensor<2, Bool>, Tensor<2, Int>) {
        let mut illegal = Vec::with_capacity(batch.len() * NN);
        let mut played = Vec::with_capacity(batch.len());
        for pos in batch {
            let board = pos.board();
            let inp = NetInput::from_position(pos, &board);
            illegal.extend(inp.legal_mask().iter().map(|l| !l));
            played.push((pos.played as i64).min(NN as i64 - 1));
        }
        let b = batch.len();
        (
            Tensor::from_data(TensorData::new(illegal, [b, NN]), device), // [b, 81]
            Tensor::from_data(TensorData::new(played, [b, 1]), device),   // [b, 1]
        )
    }

    fn tensors(
        batch: &[Position],
        device: &Device,
    ) -> (Tensor<4>, Tensor<2, Bool>, Tensor<2, Int>) {
        let per = CNN_PLANES * NN;
        let mut x = vec![0f32; batch.len() * per];
        let mut illegal = Vec::with_capacity(batch.len() * NN);
        let mut played = Vec::with_capacity(batch.len());
        for (pos, row) in batch.iter().zip(x.chunks_mut(per)) {
            let board = pos.board();
            let inp = NetInput::from_position(pos, &board);
            cnn_planes(&inp, row);
            illegal.extend(inp.legal_mask().iter().map(|l| !l));
            played.push((pos.played as i64).min(NN as i64 - 1));
        }
        let b = batch.len();
        (
            Tensor::from_data(TensorData::new(x, [b, CNN_PLANES, 9, 9]), device), // [b, planes, 9, 9]
            Tensor::from_data(TensorData::new(illegal, [b, NN]), device),         // [b, 81]
            Tensor::from_data(TensorData::new(played, [b, 1]), device),           // [b, 1]
        )
    }
}

impl Task<Cnn> for CnnTask {
    fn loss(&self, model: &Cnn, batch: &[Position], device: &Device) -> Tensor<1> {
        let (x, illegal, played) = Self::tensors(batch, device);
        masked_softmax_loss(model.forward(x), illegal, played)
    }
    fn scores(&self, model: &Cnn, batch: &[Position], device: &Device) -> Vec<f32> {
        let (x, _, _) = Self::tensors(batch, device);
        let logits: Vec<f32> = model
            .forward(x)
            .into_data()
            .convert::<f32>()
            .try_to_vec::<f32>()
            .expect("f32");
        logits.into_iter().map(|v| -v).collect()
    }
}

/// One row of `train_log.csv`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpochLog {
    pub epoch: usize,
    pub train_loss: f64,
    pub validation_loss: f64,
    /// Share of validation positions whose move is the best-rated legal move.
    pub validation_top1: f64,
    pub validation_top5: f64,
    pub validation_top10: f64,
    /// Paper-form error rate with 30 points pruned.
    pub validation_error_at_30: f64,
    pub seconds: f64,
    pub examples_per_second: f64,
}

/// Progress saved in `checkpoint/state.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct TrainState {
    epochs_done: usize,
    best_validation_loss: Option<f64>,
    best_epoch: usize,
    epochs_without_improvement: usize,
    log: Vec<EpochLog>,
}

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct TrainSummary {
    pub epochs_run: usize,
    pub best_epoch: usize,
    pub best_validation_loss: f64,
    pub stopped_early: bool,
    pub log: Vec<EpochLog>,
}

fn checkpoint_dir(out: &Path) -> PathBuf {
    out.join("checkpoint")
}

/// A seeded sample of at most `max` positions (0 = all), order preserved.
pub fn sample(positions: Vec<Position>, max: usize, seed: u64) -> Vec<Position> {
    if max == 0 || positions.len() <= max {
        return positions;
    }
    let mut rng = FastRng::for_stream(seed, 0x5a3b1e);
    let mut idx: Vec<usize> = (0..positions.len()).collect();
    for i in 0..max {
        let j = i + rng.below((idx.len() - i) as u32) as usize;
        idx.swap(i, j);
    }
    let mut keep = idx[..max].to_vec();
    keep.sort_unstable();
    keep.into_iter().map(|i| positions[i]).collect()
}

/// Trains the network `config.model` on `train`, validating on `validation`, writing the
/// model directory `out`. With `resume`, continues from `out/checkpoint`.
pub fn train(
    config: &TrainConfig,
    train: &[Position],
    validation: &[Position],
    out: &Path,
    resume: bool,
    show_progress: bool,
) -> Result<TrainSummary, NetError> {
    let ad = super::cpu_device().autodiff();
    match config.model {
        NetKind::Mlp => {
            let task = MlpTask {
                encoding: config.mlp.encoding,
                loss: config.mlp.loss,
            };
            let model = seeded_init(config.seed, &ad, |d| config.mlp.init(d));
            run(
                config,
                model,
                &task,
                train,
                validation,
                out,
                resume,
                show_progress,
            )
        }
        NetKind::Cnn => {
            let model = seeded_init(config.seed, &ad, |d| config.cnn.init(d));
            run(
                config,
                model,
                &CnnTask,
                train,
                validation,
                out,
                resume,
                show_progress,
            )
        }
    }
}

/// Burn's random initialisers draw from one process-wide generator: seed it and initialise
/// under a lock so concurrent trainings (tests) cannot interleave their draws.
/// Parameters are initialised lazily, so touch every one while the lock is held.
fn seeded_init<M: Module>(seed: u64, device: &Device, init: impl FnOnce(&Device) -> M) -> M {
    static INIT: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = INIT.lock().unwrap_or_else(|e| e.into_inner());
    device.seed(seed);
    let model = init(device);
    model.visit(&mut Materialise);
    model
}

/// Forces lazily initialised parameters into existence.
struct Materialise;

impl burn::module::ModuleVisitor for Materialise {
    fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
        let _ = param.val();
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> NetError + '_ {
    move |source| NetError::Io {
        path: path.into(),
        source,
    }
}

#[allow(clippy::too_many_arguments)]
fn run<M, T>(
    config: &TrainConfig,
    mut model: M,
    task: &T,
    train: &[Position],
    validation: &[Position],
    out: &Path,
    resume: bool,
    show_progress: bool,
) -> Result<TrainSummary, NetError>
where
    M: Module,
    T: Task<M>,
{
    if train.is_empty() || validation.is_empty() {
        return Err(NetError::Data(
            "training and validation sets must not be empty".into(),
        ));
    }
    let ckpt = checkpoint_dir(out);
    std::fs::create_dir_all(&ckpt).map_err(io_err(&ckpt))?;
    let device = super::cpu_device();
    let ad = device.clone().autodiff();
    let mut optim = AdamConfig::new().init();
    let state_path = ckpt.join("state.json");
    let mut state = TrainState::default();
    if resume && state_path.exists() {
        let text = std::fs::read_to_string(&state_path).map_err(io_err(&state_path))?;
        state = serde_json::from_str(&text).map_err(|e| NetError::Config {
            path: state_path.clone(),
            message: e.to_string(),
        })?;
        model = load_weights(model, &ckpt.join("model.bpk"))?;
        let op = ckpt.join("optimizer.bpk");
        optim = optim.load(&op).map_err(|e| NetError::Weights {
            path: op.clone(),
            message: format!("{e:?}"),
        })?;
        eprintln!("resuming after epoch {}", state.epochs_done);
    }
    let cfg_path = config_path(out);
    write_atomic(&cfg_path, config.to_json().as_bytes()).map_err(io_err(&cfg_path))?;

    let bs = config.batch_size.max(1);
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut batch: Vec<Position> = Vec::with_capacity(bs);
    let mut stopped_early = false;
    while state.epochs_done < config.epochs {
        let epoch = state.epochs_done + 1;
        // Per-epoch streams keep a resumed run identical to an uninterrupted one.
        let mut shuffle = FastRng::for_stream(config.seed, epoch as u64);
        order.sort_unstable();
        for i in (1..order.len()).rev() {
            order.swap(i, shuffle.below((i + 1) as u32) as usize);
        }
        let mut aug = FastRng::for_stream(config.seed ^ 0xa065, epoch as u64);
        let bar = progress_bar(show_progress, train.len() as u64, epoch, config.epochs);
        let start = Instant::now();
        let (mut loss_sum, mut loss_n) = (0.0f64, 0usize);
        for chunk in order.chunks(bs) {
            batch.clear();
            batch.extend(chunk.iter().map(|&i| {
                if config.augment {
                    sym_position(&train[i], aug.below(8) as u8)
                } else {
                    train[i]
                }
            }));
            let loss = task.loss(&model, &batch, &ad);
            let value: f64 = loss.clone().into_scalar::<f32>() as f64;
            let grads = GradientsParams::from_grads(loss.backward(), &model);
            model = optim.step(config.learning_rate, model, grads);
            loss_sum += value * batch.len() as f64;
            loss_n += batch.len();
            bar.inc(batch.len() as u64);
            bar.set_message(format!("loss {:.4}", loss_sum / loss_n as f64));
        }
        let seconds = start.elapsed().as_secs_f64();
        let valid = model.valid();
        let (vloss, curve) = validate(&valid, task, validation, &device);
        bar.finish_and_clear();
        let row = EpochLog {
            epoch,
            train_loss: loss_sum / loss_n.max(1) as f64,
            validation_loss: vloss,
            validation_top1: curve.top_k(1),
            validation_top5: curve.top_k(5),
            validation_top10: curve.top_k(10),
            validation_error_at_30: curve.error_all(30),
            seconds,
            examples_per_second: train.len() as f64 / seconds.max(1e-9),
        };
        eprintln!(
            "epoch {epoch}: train loss {:.5}, validation loss {:.5}, top1/5/10 {:.3}/{:.3}/{:.3}, error@30 {:.3}, {:.0} s, {:.0} ex/s",
            row.train_loss,
            row.validation_loss,
            row.validation_top1,
            row.validation_top5,
            row.validation_top10,
            row.validation_error_at_30,
            row.seconds,
            row.examples_per_second
        );
        state.log.push(row);
        state.epochs_done = epoch;
        if state.best_validation_loss.is_none_or(|b| vloss < b) {
            state.best_validation_loss = Some(vloss);
            state.best_epoch = epoch;
            state.epochs_without_improvement = 0;
            save_weights(&valid, &weights_path(out))?;
        } else {
            state.epochs_without_improvement += 1;
        }
        // Checkpoint: weights, optimiser, then the state that makes them current.
        save_weights(&model, &ckpt.join("model.bpk"))?;
        let op = ckpt.join("optimizer.bpk");
        let bytes = optim.into_bytes().map_err(|e| NetError::Weights {
            path: op.clone(),
            message: format!("{e:?}"),
        })?;
        write_atomic(&op, &bytes).map_err(io_err(&op))?;
        write_log(&log_path(out), &state.log)?;
        let json = serde_json::to_string_pretty(&state).expect("state serialises");
        write_atomic(&state_path, json.as_bytes()).map_err(io_err(&state_path))?;
        if state.epochs_without_improvement >= config.patience.max(1) {
            eprintln!(
                "early stop: no better validation loss for {} epochs",
                config.patience
            );
            stopped_early = true;
            break;
        }
    }
    Ok(TrainSummary {
        epochs_run: state.epochs_done,
        best_epoch: state.best_epoch,
        best_validation_loss: state.best_validation_loss.unwrap_or(f64::NAN),
        stopped_early,
        log: state.log,
    })
}

/// Validation loss (mean over positions) and the curve of the network's scores.
fn validate<M: Module, T: Task<M>>(
    model: &M,
    task: &T,
    validation: &[Position],
    device: &Device,
) -> (f64, Curve) {
    let mut curve = Curve::default();
    let (mut loss_sum, mut n) = (0.0f64, 0usize);
    for chunk in validation.chunks(1024) {
        let l = task.loss(model, chunk, device).into_scalar::<f32>() as f64;
        loss_sum += l * chunk.len() as f64;
        n += chunk.len();
        let scores = task.scores(model, chunk, device);
        for (pos, row) in chunk.iter().zip(scores.chunks(NN)) {
            let board = pos.board();
            let legal = NetInput::from_position(pos, &board).legal_mask();
            let s: &[f32; NN] = row.try_into().expect("81 scores per position");
            curve.add(s, &legal, pos.played as usize);
        }
    }
    (loss_sum / n.max(1) as f64, curve)
}

fn write_log(path: &Path, log: &[EpochLog]) -> Result<(), NetError> {
    write_atomic_with(path, |w| {
        let mut csv = csv::Writer::from_writer(w);
        for row in log {
            csv.serialize(row).map_err(std::io::Error::other)?;
        }
        csv.flush()
    })
    .map_err(io_err(path))
}

fn progress_bar(show: bool, len: u64, epoch: usize, epochs: usize) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} {per_sec} {msg}",
        )
        .expect("valid template"),
    );
    bar.set_prefix(format!("epoch {epoch}/{epochs}"));
    bar
}
