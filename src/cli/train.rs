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
use crate::net::job::TrainJob;
use crate::net::model::{NetKind, TrainConfig, config_path, weights_path};
use crate::net::options::TrainOverrides;
use crate::net::train::TrainOptions;

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
    /// logits: new channels and blocks start cut off from the output (`src/net/training/grow.rs`).
    #[arg(long, conflicts_with = "resume")]
    pub init_from: Option<PathBuf>,
    /// Pause after this many minutes, at the step running then (mid-epoch too): checkpoint
    /// and stop (resume later with `--resume`; above 0, at most 1e6).
    #[arg(long, value_parser = minutes_arg)]
    pub stop_after_minutes: Option<f64>,
    // The training options (`--epochs`, `--lr`, ...), the loop's `[train]` keys too; a
    // plain comment, since clap would take a doc comment here for a help text.
    #[command(flatten)]
    pub options: TrainOverrides,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
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

/// The flag that sets a config field (`cnn.blocks` -> `--blocks`, `learning_rate` ->
/// `--lr`); a field no flag sets is named as `config.json` spells it.
fn flag_of(field: &str) -> String {
    let last = field.rsplit('.').next().unwrap_or(field);
    match last {
        // The two config fields set by arguments of `train` itself, not by an option.
        "model" | "init_from" => format!("--{}", last.replace('_', "-")),
        _ => TrainOverrides::flag(last).unwrap_or_else(|| format!("config field {field}")),
    }
}

/// The flags over `c`: the training options, and `--init-from` (the one config field set by
/// an input rather than an option, so it stays out of the loop's keys).
fn apply_flags(mut c: TrainConfig, args: &TrainArgs) -> TrainConfig {
    args.options.apply(&mut c);
    if let Some(v) = &args.init_from {
        c.init_from = Some(v.display().to_string());
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

pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    let config = resolve(&args)?;
    for m in &config.mix {
        crate::net::data::check_mix(m).map_err(|e| anyhow::anyhow!("--{e}"))?;
    }
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
        crate::util::output::check_dir_output(
            &args.out,
            crate::net::model::MODEL_KIND,
            false,
            &inputs,
        )?;
        std::fs::create_dir_all(&args.out)
            .with_context(|| format!("creating {}", args.out.display()))?;
        crate::util::output::mark_dir(&args.out, crate::net::model::MODEL_KIND)
            .with_context(|| format!("marking {}", args.out.display()))?;
    }
    let device = args.device.device()?;
    crate::outln!("# {}", super::command_line());
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
    // The loop gives its candidates their start network itself; here it must be named.
    if config.heads_only && config.init_from.is_none() {
        anyhow::bail!(
            "train: --heads-only keeps the tower as it starts, so it needs trained weights to \
             start from (--init-from DIR); from a random start it would train heads on noise"
        );
    }
    let start = Instant::now();
    let job = TrainJob {
        config: &config,
        out: &args.out,
        options: TrainOptions {
            resume: args.resume,
            progress: !args.quiet,
            threads: args.threads,
            device,
            stop_after: args.stop_after_minutes.map(|m| m * 60.0),
        },
    };
    let sets = job.sets(load(Split::Train)?, load(Split::Validation)?)?;
    let (train_set, valid_set) = (&sets.train, &sets.validation);
    if let Some(dir) = args
        .data
        .as_ref()
        .filter(|_| valid_set.is_empty() || train_set.is_empty())
    {
        let split = if train_set.is_empty() {
            "training"
        } else {
            "validation"
        };
        // A labelled dataset's empty split is one its labelling run left out (`--splits`),
        // not one its games could not fill: the fix is to label it.
        let labelled = crate::dataset::build::Manifest::load(dir)
            .ok()
            .and_then(|m| m.teacher)
            .is_some();
        if labelled {
            anyhow::bail!(
                "{}: its {split} split holds no labelled position: its labelling run left that \
                 split out. Label the training and validation splits too (`akushu dataset \
                 label SOURCE --splits train,validation --teacher ... --out DIR`, \
                 `--split-limit validation=4096` to bound the validation split)",
                dir.display()
            );
        }
        anyhow::bail!(
            "{}: its {split} split holds no position (a dataset of a few games can put none in \
             it): rebuild it with a larger `akushu dataset build --validation SHARE` (e.g. 0.3) \
             or from more games",
            dir.display()
        );
    }
    crate::outln!(
        "# data: {} training, {} validation positions (loaded in {:.1} s)",
        train_set.len(),
        valid_set.len(),
        start.elapsed().as_secs_f64()
    );
    let start = Instant::now();
    crate::outln!(
        "# device {}, threads {}",
        args.device,
        if args.threads == 0 {
            "all cores".to_string()
        } else {
            args.threads.to_string()
        }
    );
    let summary = job.run(&sets)?;
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
