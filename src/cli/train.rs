//! `akushu train`: train a bad-move network on a built dataset and write a model directory
//! (`config.json`, `model.bpk`, `train_log.csv`, `checkpoint/`).
//!
//! A new run refuses a directory that already holds a model: trained weights are never
//! replaced in place. `--resume` continues the run in `--out` with the config it saved; flags
//! that would change it are refused.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;

use crate::dataset::Split;
use crate::net::data::{read_split, synthetic_split};
use crate::net::encode::MlpEncoding;
use crate::net::mlp::MlpLoss;
use crate::net::model::{LrSchedule, NetKind, TrainConfig, config_path, weights_path};
use crate::net::train::{TrainOptions, mix_in, sample, train};

#[derive(Debug, Clone, Args)]
pub struct TrainArgs {
    /// Dataset directory written by `akushu dataset build` (train and validation splits).
    #[arg(long, required_unless_present = "synthetic_games")]
    pub data: Option<PathBuf>,
    /// Train on this many synthetic random games instead of a dataset (smoke runs).
    #[arg(long, value_parser = crate::util::num::synthetic_games_arg)]
    pub synthetic_games: Option<usize>,
    /// Which network (required for a new run unless its `--config` file names one; a resumed
    /// run reads it from `OUT/config.json`).
    #[arg(long, value_enum, required_unless_present_any = ["resume", "config"])]
    pub model: Option<NetKind>,
    /// A config file (JSON, or TOML by extension); flags below override it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Output model directory, e.g. `models/NAME`.
    #[arg(long)]
    pub out: PathBuf,
    /// Continue from `OUT/checkpoint` with the config saved in `OUT/config.json` (same data;
    /// only `--epochs` may be raised).
    #[arg(long)]
    pub resume: bool,
    /// Threads for the CPU kernels (0 = one per core, at most 256). One thread is
    /// bit-reproducible.
    #[arg(long, default_value_t = 0, value_parser = crate::util::num::threads_arg)]
    pub threads: usize,
    /// Where the network trains: `cpu`; `gpu`, `vulkan[:N]` in a build with `--features gpu`;
    /// `cuda[:N]` in a build with `--features cuda`.
    #[arg(long, default_value = "cpu")]
    pub device: crate::net::DeviceChoice,
    /// Start from this model directory's weights instead of a random initialisation: trains
    /// a shipped model further into a new `--out`, leaving it as it was. Same network shape,
    /// or (CNNs) a smaller one, grown into this run's blocks and channels with the same
    /// logits: new channels and blocks start cut off from the output (`src/net/grow.rs`).
    #[arg(long, conflicts_with = "resume")]
    pub init_from: Option<PathBuf>,
    /// Pause after this many minutes, at the step running then (mid-epoch too): checkpoint
    /// and stop (resume later with `--resume`; above 0, at most 1e6).
    #[arg(long, value_parser = minutes_arg)]
    pub stop_after_minutes: Option<f64>,
    /// Override: learning-rate schedule [default: constant].
    #[arg(long, value_enum)]
    pub lr_schedule: Option<LrSchedule>,
    /// Override: linear warm-up steps [default: 0].
    #[arg(long)]
    pub warmup_steps: Option<u64>,
    /// Override: validate and checkpoint every N optimiser steps (0 = each epoch's end)
    /// [default: 0].
    #[arg(long)]
    pub validate_every: Option<u64>,
    /// Override: maximum epochs [default: 20].
    #[arg(long, value_parser = epochs_arg)]
    pub epochs: Option<usize>,
    /// Override: seed [default: 42].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Override: batch size (1 to 1,048,576) [default: 256].
    #[arg(long, value_parser = batch_arg)]
    pub batch_size: Option<usize>,
    /// Override: Adam learning rate (above 0, at most 10) [default: 0.001].
    #[arg(long, value_parser = lr_arg)]
    pub lr: Option<f64>,
    /// Override: use at most this many training positions, a seeded sample (0 = all)
    /// [default: 0].
    #[arg(long)]
    pub max_train: Option<usize>,
    /// Override: validate on at most this many positions (0 = all) [default: 20000].
    #[arg(long)]
    pub max_validation: Option<usize>,
    /// Override: early-stopping patience in epochs [default: 3].
    #[arg(long)]
    pub patience: Option<usize>,
    /// Override (MLP): hidden widths, comma-separated [default: 256,256].
    #[arg(long, value_delimiter = ',')]
    pub hidden: Option<Vec<usize>>,
    /// Override (MLP): input encoding [default: paper].
    #[arg(long, value_enum)]
    pub encoding: Option<EncodingArg>,
    /// Override (MLP): loss (`bce` as in the paper, or `softmax` over legal points)
    /// [default: bce].
    #[arg(long, value_enum)]
    pub loss: Option<LossArg>,
    /// Override (CNN): residual blocks (1 to 64) [default: 3, the shape of `models/cnn`].
    #[arg(long, value_parser = blocks_arg)]
    pub blocks: Option<usize>,
    /// Override (CNN): channels (1 to 1024) [default: 32].
    #[arg(long, value_parser = channels_arg)]
    pub channels: Option<usize>,
    /// Override (CNN): a value head with this many pooled features (0 to 1024; 0 = none):
    /// it learns each position's outcome for the side to move, as `value=` reads it in the
    /// search [default: 0]. With `--init-from` a model of the same tower without the head,
    /// the tower and move head come over and the head starts fresh.
    #[arg(long, value_parser = value_channels_arg)]
    pub value_channels: Option<usize>,
    /// Override (CNN): an ownership head (true/false), learning each point's final owner
    /// from self-play records that have one [default: false].
    #[arg(long)]
    pub ownership: Option<bool>,
    /// Override (CNN): whether the network reads the last two moves (true/false). `false`
    /// keeps those input planes empty in training and wherever the network is used: the
    /// inputs a `history=false` search (`strong2`) gives it. `--init-from` a network that
    /// read them brings its weights over [default: true].
    #[arg(long)]
    pub history: Option<bool>,
    /// Override: weight of the value loss beside the move loss (0 to 100) [default: 1].
    #[arg(long, value_parser = head_weight_arg)]
    pub value_weight: Option<f64>,
    /// Override: weight of the ownership loss (0 to 100) [default: 1].
    #[arg(long, value_parser = head_weight_arg)]
    pub ownership_weight: Option<f64>,
    /// Override: the search's share of the value target, 0 to 1: the head learns
    /// `(1 - s) * result + s * the self-play search's root win rate` (human records keep
    /// the result) [default: 0].
    #[arg(long, value_parser = crate::util::num::share_arg)]
    pub value_search_share: Option<f64>,
    /// Override: train only the value and ownership heads (true/false); the tower and the
    /// move head keep the `--init-from` weights, so the move distribution stays as it was
    /// [default: false].
    #[arg(long)]
    pub heads_only: Option<bool>,
    /// Override: random symmetry augmentation (true/false) [default: true for the CNN,
    /// false for the MLP].
    #[arg(long)]
    pub augment: Option<bool>,
    /// Override: the target, `played` (the move played) or `visits` (a self-play record's
    /// root visits: soft cross-entropy, or for the MLP's BCE "bad = under --bad-share of the
    /// visits"; records without visits fall back to the move played) [default: played].
    #[arg(long, value_enum)]
    pub target: Option<crate::net::model::Target>,
    /// Override: with `--target visits`, the visit share under which the MLP's BCE target
    /// calls a point bad (0 to 1) [default: 0.05].
    #[arg(long, value_parser = crate::util::num::share_arg)]
    pub bad_share: Option<f64>,
    /// Override: mix another dataset's train split into training as this share of the
    /// examples, `DIR=SHARE` (repeat for more; shares under 1 in all) [default: none].
    #[arg(long, value_name = "DIR=SHARE", value_parser = mix_arg)]
    pub mix: Vec<crate::net::model::MixSource>,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// clap parser for `--mix DIR=SHARE`.
fn mix_arg(text: &str) -> Result<crate::net::model::MixSource, String> {
    let (dir, share) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("--mix {text:?}: expected DIR=SHARE, e.g. data/paper=0.5"))?;
    Ok(crate::net::model::MixSource {
        data: dir.to_string(),
        share: crate::util::num::parse_in("mix share", share, 0.0, 0.95)?,
    })
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum EncodingArg {
    Paper,
    OneHot,
    Planes,
}

impl From<EncodingArg> for MlpEncoding {
    fn from(v: EncodingArg) -> MlpEncoding {
        match v {
            EncodingArg::Paper => MlpEncoding::Paper,
            EncodingArg::OneHot => MlpEncoding::OneHot,
            EncodingArg::Planes => MlpEncoding::Planes,
        }
    }
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum LossArg {
    Bce,
    Softmax,
}

/// A new run: the config file (or defaults for `--model`), then the flags. A resumed run:
/// the saved config, with `--epochs` the only flag that may change it.
fn resolve(args: &TrainArgs) -> anyhow::Result<TrainConfig> {
    if args.resume {
        return resume_config(args);
    }
    // The file's fields, then the flags: a file without `model` takes `--model`.
    let base = match &args.config {
        Some(path) => TrainConfig::from_file_or(path, args.model)?,
        None => {
            let model = args
                .model
                .context("--model is required (or a --config file that names the model)")?;
            TrainConfig::new(model).with_augment(model == NetKind::Cnn)
        }
    };
    let mut c = apply_flags(base, args);
    if let Some(model) = args.model {
        c.model = model;
    }
    Ok(c)
}

/// The config saved by the run being resumed; flags may only restate it (or raise
/// `--epochs`, to train longer).
fn resume_config(args: &TrainArgs) -> anyhow::Result<TrainConfig> {
    let path = config_path(&args.out);
    let saved = TrainConfig::from_file(&path)
        .with_context(|| format!("--resume: no run to continue in {}", args.out.display()))?;
    let mut flagged = apply_flags(saved.clone(), args);
    if let Some(m) = args.model {
        flagged.model = m;
    }
    if args.config.is_some() {
        anyhow::bail!("--resume reads {}; drop --config", path.display());
    }
    let mut same = flagged.clone();
    same.epochs = saved.epochs;
    let changed = config_changes(&saved, &same);
    if !changed.is_empty() {
        anyhow::bail!(
            "--resume: the flags change the config saved in {} (only --epochs may change):\n  {}",
            path.display(),
            changed.join("\n  ")
        );
    }
    Ok(flagged)
}

/// Each setting in which `now` differs from `saved`, as `--flag: checkpoint A, now B`: a
/// refused resume names what to drop instead of printing the whole config.
fn config_changes(saved: &TrainConfig, now: &TrainConfig) -> Vec<String> {
    fn walk(path: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
        use serde_json::Value::Object;
        match (a, b) {
            (Object(x), Object(y)) => {
                let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
                keys.sort();
                keys.dedup();
                let null = serde_json::Value::Null;
                for k in keys {
                    let sub = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(
                        &sub,
                        x.get(k).unwrap_or(&null),
                        y.get(k).unwrap_or(&null),
                        out,
                    );
                }
            }
            _ if a != b => out.push(format!("{}: checkpoint {a}, now {b}", flag_of(path))),
            _ => {}
        }
    }
    let json = |c: &TrainConfig| {
        serde_json::from_str::<serde_json::Value>(&c.to_json()).unwrap_or(serde_json::Value::Null)
    };
    let mut out = Vec::new();
    walk("", &json(saved), &json(now), &mut out);
    out
}

/// The flag that sets a config field (`cnn.blocks` -> `--blocks`); a field no flag sets is
/// named as `config.json` spells it.
fn flag_of(field: &str) -> String {
    let last = field.rsplit('.').next().unwrap_or(field);
    match last {
        "learning_rate" => "--lr".to_string(),
        "model" | "epochs" | "seed" | "batch_size" | "max_train" | "max_validation"
        | "patience" | "hidden" | "encoding" | "loss" | "blocks" | "channels"
        | "value_channels" | "ownership" | "history" | "value_weight" | "ownership_weight"
        | "heads_only" | "value_search_share" | "augment" | "lr_schedule" | "warmup_steps"
        | "validate_every" | "init_from" | "target" | "bad_share" | "mix" => {
            format!("--{}", last.replace('_', "-"))
        }
        _ => format!("config field {field}"),
    }
}

fn apply_flags(mut c: TrainConfig, args: &TrainArgs) -> TrainConfig {
    if let Some(v) = args.epochs {
        c.epochs = v;
    }
    if let Some(v) = args.seed {
        c.seed = v;
    }
    if let Some(v) = args.batch_size {
        c.batch_size = v;
    }
    if let Some(v) = args.lr {
        c.learning_rate = v;
    }
    if let Some(v) = args.max_train {
        c.max_train = v;
    }
    if let Some(v) = args.max_validation {
        c.max_validation = v;
    }
    if let Some(v) = args.patience {
        c.patience = v;
    }
    if let Some(v) = &args.hidden {
        c.mlp.hidden = v.clone();
    }
    if let Some(v) = args.encoding {
        c.mlp.encoding = v.into();
    }
    if let Some(v) = args.loss {
        c.mlp.loss = match v {
            LossArg::Bce => MlpLoss::Bce,
            LossArg::Softmax => MlpLoss::Softmax,
        };
    }
    if let Some(v) = args.blocks {
        c.cnn.blocks = v;
    }
    if let Some(v) = args.channels {
        c.cnn.channels = v;
    }
    if let Some(v) = args.value_channels {
        c.cnn.value_channels = v;
    }
    if let Some(v) = args.ownership {
        c.cnn.ownership = v;
    }
    if let Some(v) = args.history {
        c.cnn.history = v;
    }
    if let Some(v) = args.value_weight {
        c.value_weight = v;
    }
    if let Some(v) = args.ownership_weight {
        c.ownership_weight = v;
    }
    if let Some(v) = args.heads_only {
        c.heads_only = v;
    }
    if let Some(v) = args.value_search_share {
        c.value_search_share = v;
    }
    if let Some(v) = args.augment {
        c.augment = v;
    }
    if let Some(v) = args.lr_schedule {
        c.lr_schedule = v;
    }
    if let Some(v) = args.warmup_steps {
        c.warmup_steps = v;
    }
    if let Some(v) = args.validate_every {
        c.validate_every = v;
    }
    if let Some(v) = &args.init_from {
        c.init_from = Some(v.display().to_string());
    }
    if let Some(v) = args.target {
        c.target = v;
    }
    if let Some(v) = args.bad_share {
        c.bad_share = v;
    }
    if !args.mix.is_empty() {
        c.mix = args.mix.clone();
    }
    c
}

/// clap parser for `--stop-after-minutes`.
fn minutes_arg(text: &str) -> Result<f64, String> {
    let v = crate::util::num::parse_in("minutes", text, 0.0, crate::util::num::MAX_SECONDS)?;
    if v <= 0.0 {
        return Err(format!("minutes: {v} must be above 0"));
    }
    Ok(v)
}

/// clap parser for `--epochs` (at least one: a run of none writes no weights).
fn epochs_arg(text: &str) -> Result<usize, String> {
    crate::util::num::parse_in("epochs", text, 1, crate::net::model::MAX_EPOCHS)
}

/// clap parser for `--lr`.
fn lr_arg(text: &str) -> Result<f64, String> {
    let v = crate::util::num::parse_in("learning rate", text, 0.0, 10.0)?;
    if v <= 0.0 {
        return Err(format!("learning rate: {v} must be above 0"));
    }
    Ok(v)
}

/// clap parser for `--batch-size`.
fn batch_arg(text: &str) -> Result<usize, String> {
    crate::util::num::parse_in("batch size", text, 1, 1 << 20)
}

/// clap parser for `--blocks`.
fn blocks_arg(text: &str) -> Result<usize, String> {
    crate::util::num::parse_in("blocks", text, 1, 64)
}

/// clap parser for `--value-channels`.
fn value_channels_arg(text: &str) -> Result<usize, String> {
    crate::util::num::parse_in("value channels", text, 0, 1024)
}

/// clap parser for `--value-weight` and `--ownership-weight`.
fn head_weight_arg(text: &str) -> Result<f64, String> {
    crate::util::num::parse_in("head weight", text, 0.0, 100.0)
}

/// clap parser for `--channels`.
fn channels_arg(text: &str) -> Result<usize, String> {
    crate::util::num::parse_in("channels", text, 1, 1024)
}

/// The output kind in a model directory's marker file.
const MODEL_KIND: &str = "model";

pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    let config = resolve(&args)?;
    // One writer per model directory: a second `train --out` into it is refused.
    let _lock = crate::util::commit::OutputLock::acquire(&args.out)?;
    if !args.resume && weights_path(&args.out).exists() {
        anyhow::bail!(
            "{} already holds a trained model: write new weights to a new directory (or continue this run with --resume)",
            args.out.display()
        );
    }
    // The output rule (src/util/output.rs): a new run writes only into an absent or empty
    // directory, or one marked as an akushu model; never into what it reads.
    let mut inputs: Vec<PathBuf> = [&args.data, &args.init_from, &args.config]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    inputs.extend(config.mix.iter().map(|m| PathBuf::from(&m.data)));
    if args.resume {
        crate::util::output::check_not_input(&args.out, &inputs)?;
    } else {
        crate::util::output::check_dir_output(&args.out, MODEL_KIND, false, &inputs)?;
        std::fs::create_dir_all(&args.out)
            .with_context(|| format!("creating {}", args.out.display()))?;
        crate::util::output::mark_dir(&args.out, MODEL_KIND)
            .with_context(|| format!("marking {}", args.out.display()))?;
    }
    let device = args.device.device()?;
    crate::outln!("# akushu train {args:?}");
    // The full config goes into OUT/config.json (written when training starts); the
    // terminal gets one line.
    crate::outln!(
        "# config: {} ({}, {} epoch(s), batch {}, lr {}, seed {})",
        config_path(&args.out).display(),
        config.network_name(),
        config.epochs,
        config.batch_size,
        config.learning_rate,
        config.seed
    );
    let mut config = config;
    crate::net::provenance::record(&mut config, &args.out, args.data.as_deref(), args.resume)?;
    let load = |split: Split| -> anyhow::Result<_> {
        Ok(match (&args.data, args.synthetic_games) {
            (Some(dir), _) => read_split(dir, split)?,
            (None, Some(games)) => synthetic_split(games, config.seed, split),
            (None, None) => anyhow::bail!("give --data DIR or --synthetic-games N"),
        })
    };
    config
        .validate()
        .map_err(|e| anyhow::anyhow!("train: {e}"))?;
    let start = Instant::now();
    let mut extras = Vec::new();
    for m in &config.mix {
        let positions = read_split(std::path::Path::new(&m.data), Split::Train)
            .with_context(|| format!("--mix {}", m.data))?;
        extras.push((positions, m.share));
    }
    let train_set = mix_in(
        sample(load(Split::Train)?, config.max_train, config.seed),
        extras,
        config.seed,
    );
    let valid_set = sample(
        load(Split::Validation)?,
        config.max_validation,
        config.seed ^ 1,
    );
    if let Some(dir) = args
        .data
        .as_ref()
        .filter(|_| valid_set.is_empty() || train_set.is_empty())
    {
        anyhow::bail!(
            "{}: its {} split holds no position (a dataset of a few games can put none in \
             it): rebuild it with a larger `akushu dataset build --validation SHARE` (e.g. 0.3) \
             or from more games",
            dir.display(),
            if train_set.is_empty() {
                "training"
            } else {
                "validation"
            }
        );
    }
    crate::outln!(
        "# data: {} training, {} validation positions (loaded in {:.1} s)",
        train_set.len(),
        valid_set.len(),
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let options = TrainOptions {
        resume: args.resume,
        progress: !args.quiet,
        threads: args.threads,
        device,
        stop_after: args.stop_after_minutes.map(|m| m * 60.0),
    };
    crate::outln!(
        "# device {}, threads {}",
        args.device,
        if args.threads == 0 {
            "all cores".to_string()
        } else {
            args.threads.to_string()
        }
    );
    let summary = train(&config, &train_set, &valid_set, &args.out, &options)
        .with_context(|| format!("training into {}", args.out.display()))?;
    let secs = start.elapsed().as_secs_f64();
    crate::outln!(
        "# {}: {} epoch{}, {} steps in {:.0} s{}; best epoch {} (validation loss {:.5}); model in {}",
        if summary.paused {
            "paused (continue with --resume)"
        } else {
            "done"
        },
        summary.epochs_run,
        if summary.epochs_run == 1 { "" } else { "s" },
        summary.steps,
        secs,
        if summary.stopped_early {
            " (early stop)"
        } else {
            ""
        },
        summary.best_epoch,
        summary.best_validation_loss,
        args.out.display()
    );
    Ok(())
}
