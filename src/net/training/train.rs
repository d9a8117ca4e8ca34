//! The training loop: seeded shuffles and initialisation, Adam with a learning-rate schedule,
//! a data loader thread that encodes the next batches while the step runs, a progress bar
//! with examples/s and ETA, validation every N steps with the best weights kept, and a
//! checkpoint at every validation, every ten minutes between them and at a pause
//! (`--resume` continues from it, mid-epoch included).
//!
//! Same seed, same data, same threads: the same weights, bit for bit, whether or not the
//! run was resumed. On the CPU each batch is split into one shard per thread, and the shards
//! decide the order of the gradient sums: runs on other thread counts agree to float
//! rounding only. The checkpoint records the shard count and a resume keeps it, so a resumed
//! run equals the uninterrupted one whatever `--threads` it is given.
//!
//! What each head learns from a position (the targets) is [`targets`](super::targets); the
//! tasks that encode batches with them, their losses and validation are
//! [`tasks`](super::tasks) (re-exported here).

use super::tasks::split_rows;
pub use super::tasks::{CnnTask, Encoded, MlpTask, Task, badness_scores, validate};
use crate::dataset::Position;
use crate::net::NetError;
use crate::net::curves::curve::Curve;
use crate::net::inference::cnn::Cnn;
use crate::net::inference::encode::sym_position;
use crate::net::inference::model::{
    LrSchedule, NetKind, Target, TrainConfig, config_path, load_weights, log_path, save_weights,
    weights_path,
};
use crate::util::fsio::{write_atomic, write_atomic_with};
use crate::util::rng::FastRng;
use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One row of `train_log.csv`: written at every validation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpochLog {
    /// The epoch the step falls in (1-based).
    pub epoch: usize,
    /// Optimiser steps done so far.
    #[serde(default)]
    pub step: u64,
    /// Training examples seen so far.
    #[serde(default)]
    pub examples: u64,
    /// Learning rate of the last step.
    #[serde(default)]
    pub learning_rate: f64,
    /// Mean training loss since the previous row.
    pub train_loss: f64,
    pub validation_loss: f64,
    /// Share of validation positions whose move is the best-rated legal move.
    pub validation_top1: f64,
    pub validation_top5: f64,
    pub validation_top10: f64,
    /// Paper-form error rate with 30 points pruned.
    pub validation_error_at_30: f64,
    /// Wall seconds of training (validation excluded) since the previous row.
    pub seconds: f64,
    /// Training examples per wall second since the previous row.
    pub examples_per_second: f64,
    /// Process CPU seconds per wall second since the previous row (2.0 = both of two cores
    /// busy); NaN where the platform does not say.
    #[serde(default)]
    pub cpu_per_wall: f64,
    /// Value head (networks that have one): mean binary cross-entropy of the outcome over
    /// the validation positions whose result is known.
    #[serde(default)]
    pub validation_value_loss: Option<f64>,
    /// Value head: share of those positions whose winner it calls (win probability above
    /// one half for the side that won).
    #[serde(default)]
    pub validation_value_accuracy: Option<f64>,
}

/// Progress saved in `checkpoint/state.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct TrainState {
    /// Optimiser steps done.
    #[serde(default)]
    step: u64,
    /// Completed epochs (kept for older checkpoints, which counted only epochs).
    epochs_done: usize,
    best_validation_loss: Option<f64>,
    /// Step of the best validation (the weights in `model.bpk`).
    #[serde(default)]
    best_step: u64,
    best_epoch: usize,
    /// Validations in a row without a better loss.
    #[serde(alias = "epochs_without_improvement")]
    validations_without_improvement: usize,
    /// Sizes of the data the run started on: a resume on other data is refused.
    #[serde(default)]
    train_positions: usize,
    #[serde(default)]
    validation_positions: usize,
    /// True once early stopping ended the run (raising `epochs` does not reopen it).
    #[serde(default)]
    stopped_early: bool,
    /// The data-parallel shards each batch was split into (0: not recorded, older
    /// checkpoints). The shards fix the order in which gradients are summed, so a resume
    /// keeps the run's count whatever `--threads` it is given, and ends with the
    /// uninterrupted run's weights.
    #[serde(default)]
    shards: usize,
    /// The training loss summed over the steps since the last validation, and their
    /// examples: a checkpoint taken between validations (a pause, or the clock's
    /// [`CHECKPOINT_SECONDS`]) keeps them, so the resumed run logs what an uninterrupted one
    /// does.
    #[serde(default)]
    interval_loss_sum: f64,
    #[serde(default)]
    interval_loss_n: usize,
    log: Vec<EpochLog>,
}

/// Wall seconds between checkpoints when validations are further apart: a killed run loses
/// at most this much when it is resumed.
const CHECKPOINT_SECONDS: f64 = 600.0;

/// What a finished (or paused) run reports.
#[derive(Debug, Clone)]
pub struct TrainSummary {
    pub epochs_run: usize,
    pub steps: u64,
    pub best_epoch: usize,
    pub best_validation_loss: f64,
    pub stopped_early: bool,
    /// True when the run paused at `stop_after` and can be resumed.
    pub paused: bool,
    pub log: Vec<EpochLog>,
}

/// How to run a training, beside what it trains (the [`TrainConfig`]).
#[derive(Debug, Clone)]
pub struct TrainOptions {
    /// Continue from `out/checkpoint`.
    pub resume: bool,
    /// Show the progress bar.
    pub progress: bool,
    /// Threads for burn's CPU kernels (0 = one per core). One thread is bit-reproducible.
    pub threads: usize,
    /// Where the network runs (the CPU unless a GPU build chose another device).
    pub device: Device,
    /// Pause (checkpoint and return) after this many wall seconds, at the step running
    /// then, mid-epoch and between validations included.
    pub stop_after: Option<f64>,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            resume: false,
            progress: false,
            threads: 1,
            device: crate::net::cpu_device(),
            stop_after: None,
        }
    }
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
    keep.into_iter().map(|i| positions[i].clone()).collect()
}

/// A rayon pool of `threads` workers (0 = one per core) for burn's CPU kernels.
/// `main` with each extra dataset's positions mixed in as its share of the result: extra
/// `i` brings `round(share_i / (1 - sum of shares) * main.len())` positions, a seeded sample
/// (whole copies first when it needs more than it has). The order does not matter: every
/// epoch shuffles.
pub fn mix_in(
    mut main: Vec<Position>,
    extras: Vec<(Vec<Position>, f64)>,
    seed: u64,
) -> Vec<Position> {
    let rest: f64 = 1.0 - extras.iter().map(|e| e.1).sum::<f64>();
    let base = main.len() as f64;
    for (k, (positions, share)) in extras.into_iter().enumerate() {
        if positions.is_empty() || rest <= 0.0 {
            continue;
        }
        let want = (share / rest * base).round() as usize;
        let copies = want / positions.len();
        for _ in 0..copies {
            main.extend(positions.iter().cloned());
        }
        let left = want - copies * positions.len();
        if left > 0 {
            main.extend(sample(positions, left, seed ^ (0x6d69_7800 + k as u64)));
        }
    }
    main
}

pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, NetError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("akushu-train-{i}"))
        .build()
        .map_err(|e| NetError::Data(format!("cannot start {threads} training threads: {e}")))
}

/// Trains the network `config.model` on `train`, validating on `validation`, writing the
/// model directory `out`.
pub fn train(
    config: &TrainConfig,
    train: &[Position],
    validation: &[Position],
    out: &Path,
    options: &TrainOptions,
) -> Result<TrainSummary, NetError> {
    crate::util::keep_freed_memory();
    if config.target == crate::net::inference::model::Target::Teacher {
        let n = super::targets::teacher_fallbacks(train);
        if n > 0 {
            crate::errln!(
                "target teacher: {n} of {} training positions have no teacher policy on a \
                 point akushu's rules allow (no label, or every share on pass or on an \
                 occupied, ko or suicide point): they train on the move played",
                train.len()
            );
        }
    }
    thread_pool(options.threads)?.install(|| {
        let ad = options.device.clone().autodiff();
        match config.model {
            NetKind::Mlp => {
                let task = MlpTask {
                    encoding: config.mlp.encoding,
                    loss: config.mlp.loss,
                    target: config.target,
                    bad_share: config.bad_share,
                };
                let model = seeded_init(config.seed, &ad, |d| config.mlp.init(d));
                let model = initial_weights(model, config, options)?;
                run(config, model, &task, train, validation, out, options)
            }
            NetKind::Cnn => {
                let model = seeded_init(config.seed, &ad, |d| config.cnn.init(d));
                let model = initial_cnn_weights(model, config, options)?;
                let task = CnnTask::of(config, config.target);
                run(config, model, &task, train, validation, out, options)
            }
        }
    })
}

/// `model` as initialised, or with `config.init_from`'s weights (a model directory), after
/// checking that that directory holds the same network. A resumed run takes its weights
/// from the checkpoint instead.
fn initial_weights<M: Module>(
    model: M,
    config: &TrainConfig,
    options: &TrainOptions,
) -> Result<M, NetError> {
    match init_source(config, options)? {
        None => Ok(model),
        Some((dir, source)) => load_same_shape(model, config, &dir, &source),
    }
}

/// `dir`'s weights (its config is `source`) loaded into `model`, after checking that they
/// are the same network as this run's.
fn load_same_shape<M: Module>(
    model: M,
    config: &TrainConfig,
    dir: &Path,
    source: &TrainConfig,
) -> Result<M, NetError> {
    let shape = |c: &TrainConfig| match c.model {
        NetKind::Mlp => serde_json::to_string(&c.mlp),
        NetKind::Cnn => serde_json::to_string(&c.cnn),
    };
    if source.model != config.model || shape(source).ok() != shape(config).ok() {
        return Err(NetError::Config {
            path: config_path(dir),
            message: "--init-from: that model has another network shape than this run".into(),
        });
    }
    load_weights(model, &weights_path(dir))
}

/// The model directory a fresh run starts from (`--init-from`) and its config; `None` for a
/// random start or a resumed run (which takes its weights from the checkpoint).
fn init_source(
    config: &TrainConfig,
    options: &TrainOptions,
) -> Result<Option<(PathBuf, TrainConfig)>, NetError> {
    match config.init_from.as_ref().filter(|_| !options.resume) {
        None => Ok(None),
        Some(dir) => {
            let dir = PathBuf::from(dir);
            let source = TrainConfig::from_file(&config_path(&dir))?;
            Ok(Some((dir, source)))
        }
    }
}

/// [`initial_weights`] for a CNN, which may also start from a smaller CNN (`init_from`'s
/// network is grown into this run's shape with the same logits, [`super::grow`]) or from the
/// same tower with other value and ownership heads (a head this run adds starts fresh).
fn initial_cnn_weights(
    model: Cnn,
    config: &TrainConfig,
    options: &TrainOptions,
) -> Result<Cnn, NetError> {
    let Some((dir, source)) = init_source(config, options)? else {
        return Ok(model);
    };
    if source.model != NetKind::Cnn || source.cnn == config.cnn {
        return load_same_shape(model, config, &dir, &source);
    }
    let small = load_weights(
        source.cnn.init(&model.stem.weight.device()),
        &weights_path(&dir),
    )?;
    if (source.cnn.blocks, source.cnn.channels) == (config.cnn.blocks, config.cnn.channels) {
        // The same tower with other heads: the tower and the move head come over, a head of
        // the same shape too, and a head the source lacks (or has in another shape) starts
        // fresh.
        let Cnn {
            value,
            ownership,
            score,
            ..
        } = model;
        let value = if source.cnn.value_channels == config.cnn.value_channels {
            small.value.clone()
        } else {
            value
        };
        let ownership = if source.cnn.ownership == config.cnn.ownership {
            small.ownership.clone()
        } else {
            ownership
        };
        // The score head reads the value head's hidden layer: it comes over only with it.
        let score = if source.cnn.score == config.cnn.score
            && source.cnn.value_channels == config.cnn.value_channels
        {
            small.score.clone()
        } else {
            score
        };
        return Ok(small.with_heads(value, ownership).with_score(score));
    }
    super::grow::grow_cnn(&small, &source.cnn, model, &config.cnn).map_err(|message| {
        NetError::Config {
            path: config_path(&dir),
            message: format!("--init-from: {message}"),
        }
    })
}

/// Burn's random initialisers draw from one process-wide generator: seed it and initialise
/// under a lock so concurrent trainings (tests) cannot interleave their draws.
/// Parameters are initialised lazily, so touch every one while the lock is held.
pub fn seeded_init<M: Module>(seed: u64, device: &Device, init: impl FnOnce(&Device) -> M) -> M {
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

/// The learning rate of step `step` (0-based) of `total`.
pub fn learning_rate(config: &TrainConfig, step: u64, total: u64) -> f64 {
    let base = config.learning_rate;
    let warmup = config.warmup_steps;
    if step < warmup {
        return base * (step + 1) as f64 / warmup as f64;
    }
    match config.lr_schedule {
        LrSchedule::Constant => base,
        LrSchedule::Cosine => {
            let span = total.saturating_sub(warmup).max(1) as f64;
            let t = ((step - warmup) as f64 / span).min(1.0);
            let floor = base * config.final_lr_fraction;
            floor + (base - floor) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
        }
    }
}

/// The training order of epoch `epoch` (1-based): a seeded shuffle of `0..n`, one stream per
/// epoch so that a resumed run sees the same order.
fn epoch_order(seed: u64, epoch: usize, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut shuffle = FastRng::for_stream(seed, epoch as u64);
    for i in (1..n).rev() {
        order.swap(i, shuffle.below((i + 1) as u32) as usize);
    }
    order
}

/// The positions of global step `step` (batch `index` of its epoch's `order`), each under a
/// random symmetry when `augment` is on. The symmetry stream is per step, so a run resumed
/// mid-epoch draws the same symmetries.
fn batch_positions(
    config: &TrainConfig,
    train: &[Position],
    order: &[usize],
    index: usize,
    step: u64,
) -> Vec<Position> {
    let bs = config.batch_size.max(1);
    let chunk = &order[index * bs..((index + 1) * bs).min(order.len())];
    let mut aug = FastRng::for_stream(config.seed ^ 0xa065, step);
    chunk
        .iter()
        .map(|&i| {
            if config.augment {
                sym_position(&train[i], aug.below(8) as u8)
            } else {
                train[i].clone()
            }
        })
        .collect()
}

/// A fresh run's state, model and optimiser, or the checkpoint's when `resume` finds one
/// (refused when it was made on data of other sizes).
fn start_or_resume<M: Module>(
    model: M,
    train: usize,
    validation: usize,
    ckpt: &Path,
    resume: bool,
) -> Result<(TrainState, M, ModuleOptimizer), NetError> {
    let optim = AdamConfig::new().init();
    let fresh = TrainState {
        train_positions: train,
        validation_positions: validation,
        ..TrainState::default()
    };
    // A checkpoint commit that crashed leaves its temporary (or, without an atomic exchange,
    // the old checkpoint moved aside): clean or restore it before reading.
    for line in crate::util::commit::recover_leftovers(ckpt).map_err(|e| NetError::Io {
        path: ckpt.into(),
        source: std::io::Error::other(format!("{e:#}")),
    })? {
        crate::errln!("{line}");
    }
    let state_path = ckpt.join("state.json");
    if !resume {
        return Ok((fresh, model, optim));
    }
    if !state_path.exists() {
        // A run killed before its first checkpoint: say so, rather than start over silently.
        crate::errln!(
            "--resume: no checkpoint in {} (the run stopped before its first one): starting from step 0",
            ckpt.display()
        );
        return Ok((fresh, model, optim));
    }
    let text = std::fs::read_to_string(&state_path).map_err(io_err(&state_path))?;
    let mut state: TrainState = serde_json::from_str(&text).map_err(|e| NetError::Config {
        path: state_path.clone(),
        message: e.to_string(),
    })?;
    check_same_data(&state, train, validation, &state_path)?;
    let model = load_weights(model, &ckpt.join("model.bpk"))?;
    let op = ckpt.join("optimizer.bpk");
    let optim = optim.load(&op).map_err(|e| NetError::Weights {
        path: op.clone(),
        message: format!("{e:?}"),
    })?;
    crate::errln!(
        "resuming after step {} (epoch {})",
        state.step,
        state.epochs_done + 1
    );
    state.train_positions = train;
    state.validation_positions = validation;
    Ok((state, model, optim))
}

/// Training loss and throughput since the last validation.
struct Interval {
    loss_sum: f64,
    loss_n: usize,
    examples: u64,
    start: Instant,
    cpu: Option<f64>,
}

impl Interval {
    fn start() -> Interval {
        Interval {
            loss_sum: 0.0,
            loss_n: 0,
            examples: 0,
            start: Instant::now(),
            cpu: crate::util::cpu_seconds(),
        }
    }

    /// The interval a checkpoint left open (its loss so far), or a new one.
    fn resumed(state: &TrainState) -> Interval {
        Interval {
            loss_sum: state.interval_loss_sum,
            loss_n: state.interval_loss_n,
            ..Interval::start()
        }
    }

    fn mean_loss(&self) -> f64 {
        self.loss_sum / self.loss_n.max(1) as f64
    }
}

/// One training run's fixed parts: what it trains on, how, and its step plan.
struct Run<'a, T> {
    config: &'a TrainConfig,
    task: &'a T,
    train: &'a [Position],
    validation: &'a [Position],
    out: &'a Path,
    device: Device,
    /// The autodiff device the steps run on.
    ad: Device,
    shards: usize,
    batch: usize,
    steps_per_epoch: u64,
    total_steps: u64,
    validate_every: u64,
    bar: indicatif::ProgressBar,
}

impl<T> Run<'_, T> {
    /// The epoch (from 1) that step `step` belongs to.
    fn epoch_of(&self, step: u64) -> usize {
        (step / self.steps_per_epoch) as usize + 1
    }

    /// Whether a validation is due after `step` steps: every `validate_every` steps and at
    /// each epoch's end.
    fn validation_due(&self, step: u64) -> bool {
        step.is_multiple_of(self.validate_every) || step.is_multiple_of(self.steps_per_epoch)
    }

    /// Runs the steps from `state.step` to the next validation or the end of the epoch, or
    /// until `deadline` passes, the loader encoding batches ahead on its own thread; returns
    /// the trained model.
    fn steps<M: Module>(
        &self,
        model: M,
        optim: &mut ModuleOptimizer,
        state: &mut TrainState,
        interval: &mut Interval,
        lr: &mut f64,
        deadline: Instant,
    ) -> Result<M, NetError>
    where
        T: Task<M>,
    {
        let (config, task, train) = (self.config, self.task, self.train);
        let epoch = self.epoch_of(state.step);
        let order = epoch_order(config.seed, epoch, train.len());
        let first = (state.step % self.steps_per_epoch) as usize;
        let epoch_end = epoch as u64 * self.steps_per_epoch;
        let next_check = (state.step / self.validate_every + 1) * self.validate_every;
        let stop_at = next_check.min(epoch_end);
        let first_step = state.step;
        let (tx, rx) = std::sync::mpsc::sync_channel::<Encoded>(4);
        // The model moves into the scope and back out (the step consumes and returns it).
        let (trained, result) = std::thread::scope(|scope| -> (M, Result<(), NetError>) {
            // Owned here, so that leaving early drops it and ends the loader's sends.
            let rx = rx;
            let mut model = model;
            let order = &order;
            scope.spawn(move || {
                for step in first_step..stop_at {
                    let index = first + (step - first_step) as usize;
                    let batch = batch_positions(config, train, order, index, step);
                    if tx.send(task.encode(&batch)).is_err() {
                        return;
                    }
                }
            });
            for enc in rx.iter() {
                *lr = learning_rate(config, state.step, self.total_steps);
                let (value, grads) = gradients(task, &model, &enc, self.shards, &self.ad);
                if !value.is_finite() {
                    let message = format!(
                        "training diverged: loss {value} at step {} (lower --lr?)",
                        state.step + 1
                    );
                    return (model, Err(NetError::Data(message)));
                }
                model = optim.step(*lr, model, grads);
                interval.loss_sum += value * enc.rows as f64;
                interval.loss_n += enc.rows;
                interval.examples += enc.rows as u64;
                state.step += 1;
                self.bar.inc(enc.rows as u64);
                self.bar.set_message(format!(
                    "epoch {epoch}/{} loss {:.4} lr {lr:.2e}",
                    config.epochs,
                    interval.mean_loss()
                ));
                // Tests kill a run here, between checkpoints (`AKUSHU_FAILPOINT=train-step:N`).
                crate::util::commit::failpoint("train-step");
                if Instant::now() >= deadline {
                    break;
                }
            }
            (model, Ok(()))
        });
        result?;
        if state.step == epoch_end {
            state.epochs_done = epoch;
        }
        Ok(trained)
    }

    /// Validates `model` after the steps of `interval` (which ended in `epoch`), logs the
    /// row, keeps the best weights and decides on early stopping.
    fn validate_and_log<M: Module>(
        &self,
        model: &M,
        epoch: usize,
        lr: f64,
        interval: &Interval,
        state: &mut TrainState,
    ) -> Result<(), NetError>
    where
        T: Task<M>,
    {
        let config = self.config;
        let seconds = interval.start.elapsed().as_secs_f64();
        let cpu = match (interval.cpu, crate::util::cpu_seconds()) {
            (Some(a), Some(b)) => (b - a) / seconds.max(1e-9),
            _ => f64::NAN,
        };
        let (vloss, curve, value) = validate(model, self.task, self.validation, &self.device);
        let row = EpochLog {
            epoch,
            step: state.step,
            examples: state.step * self.batch as u64,
            learning_rate: lr,
            train_loss: interval.mean_loss(),
            validation_loss: vloss,
            validation_top1: curve.top_k(1),
            validation_top5: curve.top_k(5),
            validation_top10: curve.top_k(10),
            validation_error_at_30: curve.error_all(30),
            seconds,
            examples_per_second: interval.examples as f64 / seconds.max(1e-9),
            cpu_per_wall: cpu,
            validation_value_loss: value.loss(),
            validation_value_accuracy: value.accuracy(),
        };
        self.bar.suspend(|| {
            crate::errln!(
                "step {} (epoch {epoch}): train loss {:.5}, validation loss {:.5}, top1/5/10 {:.3}/{:.3}/{:.3}, error@30 {:.3}, {:.0} ex/s, cpu/wall {:.2}",
                row.step,
                row.train_loss,
                row.validation_loss,
                row.validation_top1,
                row.validation_top5,
                row.validation_top10,
                row.validation_error_at_30,
                row.examples_per_second,
                row.cpu_per_wall
            );
            if let (Some(l), Some(a)) = (row.validation_value_loss, row.validation_value_accuracy) {
                crate::errln!(
                    "  value head: loss {l:.5}, winner called on {a:.3} of {} positions",
                    value.known
                );
            }
        });
        state.log.push(row);
        if state.best_validation_loss.is_none_or(|b| vloss < b) {
            state.best_validation_loss = Some(vloss);
            state.best_epoch = epoch;
            state.best_step = state.step;
            state.validations_without_improvement = 0;
            save_weights(model, &weights_path(self.out))?;
        } else {
            state.validations_without_improvement += 1;
        }
        if state.validations_without_improvement >= config.patience.max(1) {
            self.bar.suspend(|| {
                crate::errln!(
                    "early stop: no better validation loss for {} validations",
                    config.patience
                )
            });
            state.stopped_early = true;
        }
        Ok(())
    }
}

fn run<M, T>(
    config: &TrainConfig,
    model: M,
    task: &T,
    train: &[Position],
    validation: &[Position],
    out: &Path,
    options: &TrainOptions,
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
    // A run killed while it wrote its weights, their checksum or its log left their
    // `NAME.tmp-PID` files, of a process now gone: nothing reads them, so they go.
    crate::util::fsio::remove_stale_temps(out).map_err(io_err(out))?;
    let (mut state, mut model, mut optim) =
        start_or_resume(model, train.len(), validation.len(), &ckpt, options.resume)?;
    let cfg_path = config_path(out);
    write_atomic(&cfg_path, config.to_json().as_bytes()).map_err(NetError::Write)?;

    let batch = config.batch_size.max(1);
    let steps_per_epoch = train.len().div_ceil(batch) as u64;
    let total_steps = steps_per_epoch * config.epochs as u64;
    let shards = resumed_shards(&mut state, &options.device);
    let run = Run {
        config,
        task,
        train,
        validation,
        out,
        device: options.device.clone(),
        ad: options.device.clone().autodiff(),
        shards,
        batch,
        steps_per_epoch,
        total_steps,
        validate_every: match config.validate_every {
            0 => steps_per_epoch,
            n => n.min(steps_per_epoch),
        },
        bar: progress_bar(
            options.progress,
            examples_before(total_steps, steps_per_epoch, batch, train.len()),
        ),
    };
    run.bar.set_position(examples_before(
        state.step,
        steps_per_epoch,
        batch,
        train.len(),
    ));
    let started = Instant::now();
    let stop_at = options
        .stop_after
        .map(|s| started + std::time::Duration::from_secs_f64(s.clamp(0.0, 1e9)));
    let mut paused = false;
    let mut lr = config.learning_rate;
    let mut interval = Interval::resumed(&state);
    while state.step < total_steps && !state.stopped_early {
        let epoch = run.epoch_of(state.step);
        let next_save = Instant::now() + std::time::Duration::from_secs_f64(CHECKPOINT_SECONDS);
        let deadline = stop_at.map_or(next_save, |s| s.min(next_save));
        model = run.steps(
            model,
            &mut optim,
            &mut state,
            &mut interval,
            &mut lr,
            deadline,
        )?;
        if run.validation_due(state.step) || state.step == total_steps {
            run.validate_and_log(&model.valid(), epoch, lr, &interval, &mut state)?;
            interval = Interval::start();
        }
        // Between validations the checkpoint keeps the open interval's loss.
        state.interval_loss_sum = interval.loss_sum;
        state.interval_loss_n = interval.loss_n;
        save_checkpoint(&model, &optim, &state, out)?;
        if state.step < total_steps
            && !state.stopped_early
            && stop_at.is_some_and(|s| Instant::now() >= s)
        {
            paused = true;
            break;
        }
    }
    run.bar.finish_and_clear();
    Ok(TrainSummary {
        epochs_run: state.epochs_done,
        steps: state.step,
        best_epoch: state.best_epoch,
        best_validation_loss: state.best_validation_loss.unwrap_or(f64::NAN),
        stopped_early: state.stopped_early,
        paused,
        log: state.log,
    })
}

/// Runs `steps` optimiser steps (plus one untimed warm-up step) on batches drawn in order
/// from `positions`, as the training loop runs them (same encoding, sharding and optimiser).
/// Returns the examples timed, their wall seconds and the process CPU seconds meanwhile.
pub fn time_steps<M: Module, T: Task<M>>(
    config: &TrainConfig,
    mut model: M,
    task: &T,
    positions: &[Position],
    steps: usize,
    options: &TrainOptions,
) -> Result<(u64, f64, f64), NetError> {
    if positions.is_empty() {
        return Err(NetError::Data("no positions to time".into()));
    }
    let device = options.device.clone();
    let ad = device.clone().autodiff();
    let shards = data_parallel_shards(&device);
    let mut optim = AdamConfig::new().init();
    let bs = config.batch_size.max(1);
    let batches: Vec<Encoded> = (0..=steps)
        .map(|i| {
            let batch: Vec<Position> = (0..bs)
                .map(|k| positions[(i * bs + k) % positions.len()].clone())
                .collect();
            task.encode(&batch)
        })
        .collect();
    let mut timed = (0u64, 0.0f64, 0.0f64);
    let mut start = (Instant::now(), crate::util::cpu_seconds());
    for (i, enc) in batches.iter().enumerate() {
        if i == 1 {
            start = (Instant::now(), crate::util::cpu_seconds());
        }
        let (_, grads) = gradients(task, &model, enc, shards, &ad);
        model = optim.step(config.learning_rate, model, grads);
        if i >= 1 {
            timed.0 += enc.rows as u64;
        }
    }
    timed.1 = start.0.elapsed().as_secs_f64();
    timed.2 = match (start.1, crate::util::cpu_seconds()) {
        (Some(a), Some(b)) => b - a,
        _ => f64::NAN,
    };
    Ok(timed)
}

/// How many shards a batch is split into: one per thread on the CPU (each shard runs its
/// forward and backward pass on its own core, which keeps both cores busy far better than
/// splitting every kernel), one on a GPU.
fn data_parallel_shards(device: &Device) -> usize {
    if *device != crate::net::cpu_device() {
        return 1;
    }
    rayon::current_num_threads().max(1)
}

/// The shards of this run: the checkpoint's count when it recorded one on the CPU (so a
/// resume with other `--threads` sums the gradients as the run began), else one per thread;
/// recorded in `state` for the next checkpoint.
fn resumed_shards(state: &mut TrainState, device: &Device) -> usize {
    let here = data_parallel_shards(device);
    let shards = if state.shards > 0 && *device == crate::net::cpu_device() {
        if state.shards != here {
            crate::errln!(
                "resuming with the checkpoint's {} data-parallel shards (one per thread of the \
                 interrupted run; {here} threads now), so the result equals the uninterrupted run's",
                state.shards
            );
        }
        state.shards
    } else {
        here
    };
    state.shards = shards;
    shards
}

/// The batch's mean loss and its gradients. With several shards, each runs on a fork of the
/// model (same parameter ids, its own autodiff graph) on its own rayon worker; each shard's
/// loss is weighted by its share of the rows, so the summed gradients are the whole batch's.
fn gradients<M: Module, T: Task<M>>(
    task: &T,
    model: &M,
    enc: &Encoded,
    shards: usize,
    device: &Device,
) -> (f64, GradientsParams) {
    let one = |model: &M, enc: &Encoded, weight: f64| {
        let logits = task.forward(model, enc, device);
        let loss = task.loss(logits, enc, device);
        let value = loss.clone().into_scalar::<f32>() as f64;
        let loss = if weight == 1.0 {
            loss
        } else {
            loss.mul_scalar(weight)
        };
        (
            value * weight,
            GradientsParams::from_grads(loss.backward(), model),
        )
    };
    if shards <= 1 || enc.rows < 2 {
        return one(model, enc, 1.0);
    }
    use rayon::prelude::*;
    let parts: Vec<(M, Encoded)> = split_rows(enc, shards)
        .into_iter()
        .map(|e| (model.clone().fork(device), e))
        .collect();
    let results: Vec<(f64, GradientsParams)> = parts
        .into_par_iter()
        .map(|(replica, e)| one(&replica, &e, e.rows as f64 / enc.rows as f64))
        .collect();
    let mut total = 0.0;
    let mut acc = burn::optim::GradientsAccumulator::new();
    for (value, grads) in results {
        total += value;
        acc.accumulate(model, grads);
    }
    (total, acc.grads())
}

fn check_same_data(
    saved: &TrainState,
    train: usize,
    validation: usize,
    path: &Path,
) -> Result<(), NetError> {
    // Checkpoints written before the sizes were recorded hold zeros: nothing to compare.
    let known = saved.train_positions != 0;
    if known && (saved.train_positions, saved.validation_positions) != (train, validation) {
        return Err(NetError::Config {
            path: path.into(),
            message: format!(
                "the run started on {} training and {} validation positions, this one has {train} and {validation}: resume with the same data and config",
                saved.train_positions, saved.validation_positions
            ),
        });
    }
    Ok(())
}

/// Weights, optimiser, then the state that makes them current.
fn save_checkpoint<M: Module>(
    model: &M,
    optim: &ModuleOptimizer,
    state: &TrainState,
    out: &Path,
) -> Result<(), NetError> {
    // The whole checkpoint (weights, their checksum, the optimiser, the state) is written
    // into a new directory and replaces the old one in one exchange (`util::commit`): a
    // crash or a full disk leaves the old checkpoint or the new one, never a mix.
    let ckpt = checkpoint_dir(out);
    let tmp = crate::util::commit::temp_dir_for(&ckpt);
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(io_err(&tmp))?;
    let written = (|| {
        save_weights(model, &tmp.join("model.bpk"))?;
        let op = tmp.join("optimizer.bpk");
        let bytes = optim.into_bytes().map_err(|e| NetError::Weights {
            path: op.clone(),
            message: format!("{e:?}"),
        })?;
        write_atomic(&op, &bytes).map_err(NetError::Write)?;
        let state_path = tmp.join("state.json");
        let json = serde_json::to_string_pretty(state).expect("state serialises");
        write_atomic(&state_path, json.as_bytes()).map_err(NetError::Write)?;
        crate::util::commit::replace_dir(&tmp, &ckpt, "checkpoint").map_err(|e| NetError::Io {
            path: ckpt.clone(),
            source: std::io::Error::other(format!("{e:#}")),
        })
    })();
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    written?;
    // The log is derived from the state just committed (rewritten whole at every checkpoint).
    write_log(&log_path(out), &state.log)
}

/// The error-rate curve of a saved network on `positions`, computed by burn on `device` in
/// batches of 1024 (the path `akushu eval --device` takes; on the CPU the plain evaluator
/// gives the same curve).
pub fn network_curve(
    model: &crate::net::SavedModel,
    positions: &[Position],
    device: &Device,
    on_chunk: &dyn Fn(u64),
) -> Curve {
    let mut curve = Curve::default();
    for chunk in positions.chunks(1024) {
        let (_, c, _) = match model {
            crate::net::SavedModel::Mlp(m, cfg) => validate(
                m.as_ref(),
                &MlpTask {
                    encoding: cfg.encoding,
                    loss: cfg.loss,
                    target: Target::Played,
                    bad_share: 0.0,
                },
                chunk,
                device,
            ),
            crate::net::SavedModel::Cnn(m, cfg) => validate(
                m.as_ref(),
                &CnnTask {
                    history: cfg.history,
                    ..CnnTask::moves_only(Target::Played)
                },
                chunk,
                device,
            ),
        };
        curve.merge(&c);
        on_chunk(chunk.len() as u64);
    }
    curve
}

fn write_log(path: &Path, log: &[EpochLog]) -> Result<(), NetError> {
    write_atomic_with(path, |w| {
        let mut csv = csv::Writer::from_writer(w);
        for row in log {
            csv.serialize(row).map_err(std::io::Error::other)?;
        }
        csv.flush()
    })
    .map_err(NetError::Write)
}

/// Examples trained in the first `step` steps: whole epochs of `len` examples, then full
/// batches. Each epoch's last batch holds only what is left, so `step * batch` would
/// overshoot and the bar would end short of its length.
fn examples_before(step: u64, steps_per_epoch: u64, batch: usize, len: usize) -> u64 {
    let (epochs, within) = (step / steps_per_epoch.max(1), step % steps_per_epoch.max(1));
    epochs * len as u64 + (within * batch as u64).min(len as u64)
}

fn progress_bar(show: bool, len: u64) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(crate::util::progress::style(
        "[{elapsed_precise} / ETA {eta_precise}] {wide_bar} {human_pos}/{human_len} examples, {rate} {msg}",
    ));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::training::targets::tests::{position, target};

    #[test]
    fn the_bar_counts_each_epochs_short_last_batch() {
        // 1,000 examples in batches of 256: 4 steps an epoch, the last of 232 examples.
        let (len, batch) = (1000usize, 256usize);
        let steps = len.div_ceil(batch) as u64;
        assert_eq!(examples_before(3 * steps, steps, batch, len), 3000);
        assert_eq!(examples_before(steps + 2, steps, batch, len), 1512);
        assert_eq!(examples_before(steps - 1, steps, batch, len), 768);
        // The bar's length is what the steps add up to, so a finished run ends at 100%.
        let mut done = 0u64;
        for step in 0..3 * steps {
            let within = (step % steps) as usize * batch;
            done += (len - within).min(batch) as u64;
        }
        assert_eq!(done, examples_before(3 * steps, steps, batch, len));
    }

    #[test]
    fn mixes_bring_their_stated_share() {
        let main: Vec<Position> = (0..300).map(|_| position(None)).collect();
        let extra: Vec<Position> = (0..50).map(|_| position(target(&[(5, 1)]))).collect();
        let mixed = mix_in(main, vec![(extra, 0.4)], 3);
        // 0.4 / 0.6 * 300 = 200 from a set of 50: four whole copies.
        assert_eq!(mixed.len(), 500);
        assert_eq!(mixed.iter().filter(|p| p.search.is_some()).count(), 200);
    }
}
