//! `akushu train`: train a bad-move network on a built dataset and write a model directory
//! (`config.json`, `model.bpk`, `train_log.csv`, `checkpoint/`).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;

use crate::dataset::Split;
use crate::net::data::{read_split, synthetic_split};
use crate::net::encode::MlpEncoding;
use crate::net::mlp::MlpLoss;
use crate::net::model::{NetKind, TrainConfig};
use crate::net::train::{sample, train};

#[derive(Debug, Clone, Args)]
pub struct TrainArgs {
    /// Dataset directory written by `akushu dataset build` (train and validation splits).
    #[arg(long, required_unless_present = "synthetic_games")]
    pub data: Option<PathBuf>,
    /// Train on this many synthetic random games instead of a dataset (smoke runs).
    #[arg(long)]
    pub synthetic_games: Option<usize>,
    /// Which network.
    #[arg(long, value_enum)]
    pub model: NetKind,
    /// A config file (JSON, or TOML by extension); flags below override it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Output model directory, e.g. `models/NAME`.
    #[arg(long)]
    pub out: PathBuf,
    /// Continue from `OUT/checkpoint` (same data and config).
    #[arg(long)]
    pub resume: bool,
    /// Override: maximum epochs.
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Override: seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Override: batch size.
    #[arg(long)]
    pub batch_size: Option<usize>,
    /// Override: Adam learning rate.
    #[arg(long)]
    pub lr: Option<f64>,
    /// Override: use at most this many training positions (0 = all).
    #[arg(long)]
    pub max_train: Option<usize>,
    /// Override: validate on at most this many positions (0 = all).
    #[arg(long)]
    pub max_validation: Option<usize>,
    /// Override: early-stopping patience in epochs.
    #[arg(long)]
    pub patience: Option<usize>,
    /// Override (MLP): hidden widths, comma-separated, e.g. `256,256`.
    #[arg(long, value_delimiter = ',')]
    pub hidden: Option<Vec<usize>>,
    /// Override (MLP): input encoding.
    #[arg(long, value_enum)]
    pub encoding: Option<EncodingArg>,
    /// Override (MLP): loss (`bce` as in the paper, or `softmax` over legal points).
    #[arg(long, value_enum)]
    pub loss: Option<LossArg>,
    /// Override (CNN): residual blocks.
    #[arg(long)]
    pub blocks: Option<usize>,
    /// Override (CNN): channels.
    #[arg(long)]
    pub channels: Option<usize>,
    /// Override: random symmetry augmentation (true/false).
    #[arg(long)]
    pub augment: Option<bool>,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum EncodingArg {
    Paper,
    OneHot,
    Planes,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum LossArg {
    Bce,
    Softmax,
}

/// The config file (or defaults for `--model`), then the flags.
fn resolve(args: &TrainArgs) -> anyhow::Result<TrainConfig> {
    let mut c = match &args.config {
        Some(path) => TrainConfig::from_file(path)?,
        None => TrainConfig::new(args.model).with_augment(args.model == NetKind::Cnn),
    };
    c.model = args.model;
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
        c.mlp.encoding = match v {
            EncodingArg::Paper => MlpEncoding::Paper,
            EncodingArg::OneHot => MlpEncoding::OneHot,
            EncodingArg::Planes => MlpEncoding::Planes,
        };
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
    if let Some(v) = args.augment {
        c.augment = v;
    }
    Ok(c)
}

pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    let config = resolve(&args)?;
    println!("# akushu train {args:?}");
    println!("# config:\n{}", config.to_json());
    let load = |split: Split| -> anyhow::Result<_> {
        Ok(match (&args.data, args.synthetic_games) {
            (Some(dir), _) => read_split(dir, split)?,
            (None, Some(games)) => synthetic_split(games, config.seed, split),
            (None, None) => anyhow::bail!("give --data DIR or --synthetic-games N"),
        })
    };
    let start = Instant::now();
    let train_set = sample(load(Split::Train)?, config.max_train, config.seed);
    let valid_set = sample(
        load(Split::Validation)?,
        config.max_validation,
        config.seed ^ 1,
    );
    println!(
        "# data: {} training, {} validation positions (loaded in {:.1} s)",
        train_set.len(),
        valid_set.len(),
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    let summary = train(
        &config,
        &train_set,
        &valid_set,
        &args.out,
        args.resume,
        !args.quiet,
    )
    .with_context(|| format!("training into {}", args.out.display()))?;
    let secs = start.elapsed().as_secs_f64();
    println!(
        "# done: {} epochs in {:.0} s{}; best epoch {} (validation loss {:.5}); model in {}",
        summary.epochs_run,
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
