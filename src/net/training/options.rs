//! The training options a run may change, written down once: [`TrainOverrides`], a field
//! per option, each `None` unless given. The same struct is `akushu train`'s flags
//! (flattened into its arguments: `--epochs`, `--lr`, ...) and the self-play loop's `[train]`
//! keys (serde: `epochs`, `learning_rate`, ...), and [`TrainOverrides::apply`] is the one
//! place that writes them onto a [`TrainConfig`].
//!
//! A new training option: its [`TrainConfig`] field (`model.rs`: default, range check in
//! `validate`), then its field here (doc line = the flag's help, `#[arg]` for the flag's
//! parser) and its line in `apply`. Flag, loop key, `--resume`'s "the flags change the saved
//! config" check and the test that every option is both a flag and a loop key follow.

use serde::{Deserialize, Serialize};

use crate::net::inference::encode::MlpEncoding;
use crate::net::inference::mlp::MlpLoss;
use crate::net::inference::model::{LrSchedule, MAX_EPOCHS, MixSource, Target, TrainConfig};
use crate::util::num::{parse_in, share_arg};

/// Every training option, `None` where not given: what a run changes from the config it
/// starts from (defaults, a `--config` file, a saved run, the loop's best network). The
/// doc lines are `akushu train --help`'s texts; the field names are `config.json`'s and
/// the loop's keys (the flag is the field name in kebab case, `--lr` aside).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct TrainOverrides {
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
    // The flag keeps its short name; the loop key and the config field are `learning_rate`.
    #[arg(long = "lr", value_name = "LR", value_parser = lr_arg)]
    pub learning_rate: Option<f64>,
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
    /// Override (CNN): a score-lead head (true/false) beside the value head, learning a
    /// teacher's score lead for the side to move (`dataset label` records; others leave it
    /// out); analysis answers read it [default: false].
    #[arg(long)]
    pub score: Option<bool>,
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
    /// Override: weight of the score-lead loss (0 to 100) [default: 1].
    #[arg(long, value_parser = head_weight_arg)]
    pub score_weight: Option<f64>,
    /// Override: the search's share of the value target, 0 to 1: the head learns
    /// `(1 - s) * result + s * the self-play search's root win rate` (human records keep
    /// the result) [default: 0].
    #[arg(long, value_parser = share_arg)]
    pub value_search_share: Option<f64>,
    /// Override: the teacher's share of the value target, 0 to 1: `(1 - t) * v + t * the
    /// teacher's win rate` where a record has a teacher's label (`dataset label`); 1 = the
    /// teacher's value alone [default: 0].
    #[arg(long, value_parser = share_arg)]
    pub value_teacher_share: Option<f64>,
    /// Override: train only the value and ownership heads (true/false); the tower and the
    /// move head keep the `--init-from` weights, so the move distribution stays as it was
    /// [default: false].
    #[arg(long)]
    pub heads_only: Option<bool>,
    /// Override: random symmetry augmentation (true/false) [default: true for the CNN,
    /// false for the MLP].
    #[arg(long)]
    pub augment: Option<bool>,
    /// Override: the target, `played` (the move played), `visits` (a self-play record's
    /// root visits: soft cross-entropy, or for the MLP's BCE "bad = under --bad-share of the
    /// visits") or `teacher` (a labelled record's teacher policy over the points akushu's
    /// rules allow, the same two ways); records without visits or such a share fall back to
    /// the move played, and `teacher` says how many [default: played].
    #[arg(long, value_enum)]
    pub target: Option<Target>,
    /// Override: with `--target visits`, the visit share under which the MLP's BCE target
    /// calls a point bad (0 to 1) [default: 0.05].
    #[arg(long, value_parser = share_arg)]
    pub bad_share: Option<f64>,
    /// Override: mix another dataset's train split into training as this share of the
    /// examples, `DIR=SHARE` (repeat for more; shares under 1 in all) [default: none].
    #[arg(long, value_name = "DIR=SHARE", value_parser = mix_arg)]
    pub mix: Option<Vec<MixSource>>,
}

impl TrainOverrides {
    /// Writes the given options over `c`; the rest of `c` stays.
    pub fn apply(&self, c: &mut TrainConfig) {
        // Each line: a given option replaces the config's field (by value: `Copy` fields,
        // clones of the lists).
        fn set<T: Clone>(field: &mut T, given: &Option<T>) {
            if let Some(v) = given {
                *field = v.clone();
            }
        }
        set(&mut c.lr_schedule, &self.lr_schedule);
        set(&mut c.warmup_steps, &self.warmup_steps);
        set(&mut c.validate_every, &self.validate_every);
        set(&mut c.epochs, &self.epochs);
        set(&mut c.seed, &self.seed);
        set(&mut c.batch_size, &self.batch_size);
        set(&mut c.learning_rate, &self.learning_rate);
        set(&mut c.max_train, &self.max_train);
        set(&mut c.max_validation, &self.max_validation);
        set(&mut c.patience, &self.patience);
        set(&mut c.mlp.hidden, &self.hidden);
        set(&mut c.mlp.encoding, &self.encoding.map(MlpEncoding::from));
        set(&mut c.mlp.loss, &self.loss.map(MlpLoss::from));
        set(&mut c.cnn.blocks, &self.blocks);
        set(&mut c.cnn.channels, &self.channels);
        set(&mut c.cnn.value_channels, &self.value_channels);
        set(&mut c.cnn.ownership, &self.ownership);
        set(&mut c.cnn.score, &self.score);
        set(&mut c.cnn.history, &self.history);
        set(&mut c.value_weight, &self.value_weight);
        set(&mut c.ownership_weight, &self.ownership_weight);
        set(&mut c.score_weight, &self.score_weight);
        set(&mut c.value_search_share, &self.value_search_share);
        set(&mut c.value_teacher_share, &self.value_teacher_share);
        set(&mut c.heads_only, &self.heads_only);
        set(&mut c.augment, &self.augment);
        set(&mut c.target, &self.target);
        set(&mut c.bad_share, &self.bad_share);
        set(&mut c.mix, &self.mix);
    }

    /// The flag of the option whose field (and loop key) is `field`: `--lr` for
    /// `learning_rate`, `--blocks` for `blocks`; `None` for a name that is not an option.
    pub fn flag(field: &str) -> Option<String> {
        let command = <TrainOverrides as clap::Args>::augment_args(clap::Command::new("train"));
        command
            .get_arguments()
            .find(|a| a.get_id() == field)
            .and_then(|a| a.get_long())
            .map(|long| format!("--{long}"))
    }

    /// The field names of every option, in declaration order (the flags' order in `--help`).
    pub fn fields() -> Vec<String> {
        let command = <TrainOverrides as clap::Args>::augment_args(clap::Command::new("train"));
        command
            .get_arguments()
            .map(|a| a.get_id().to_string())
            .collect()
    }
}

/// The MLP's input encoding as a flag value and loop key (`paper`, `one-hot`, `planes`):
/// [`MlpEncoding`] without its documentation, so `--help` lists the names alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
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

/// The MLP's loss as a flag value and loop key (`bce`, `softmax`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LossArg {
    Bce,
    Softmax,
}

impl From<LossArg> for MlpLoss {
    fn from(v: LossArg) -> MlpLoss {
        match v {
            LossArg::Bce => MlpLoss::Bce,
            LossArg::Softmax => MlpLoss::Softmax,
        }
    }
}

/// clap parser for `--mix DIR=SHARE`.
fn mix_arg(text: &str) -> Result<MixSource, String> {
    let (dir, share) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("--mix {text:?}: expected DIR=SHARE, e.g. data/paper=0.5"))?;
    Ok(MixSource {
        data: dir.to_string(),
        share: parse_in("mix share", share, 0.0, 0.95)?,
    })
}

/// clap parser for `--epochs` (at least one: a run of none writes no weights).
fn epochs_arg(text: &str) -> Result<usize, String> {
    parse_in("epochs", text, 1, MAX_EPOCHS)
}

/// clap parser for `--lr`.
fn lr_arg(text: &str) -> Result<f64, String> {
    let v = parse_in("learning rate", text, 0.0, 10.0)?;
    if v <= 0.0 {
        return Err(format!("learning rate: {v} must be above 0"));
    }
    Ok(v)
}

/// clap parser for `--batch-size`.
fn batch_arg(text: &str) -> Result<usize, String> {
    parse_in("batch size", text, 1, 1 << 20)
}

/// clap parser for `--blocks`.
fn blocks_arg(text: &str) -> Result<usize, String> {
    parse_in("blocks", text, 1, 64)
}

/// clap parser for `--value-channels`.
fn value_channels_arg(text: &str) -> Result<usize, String> {
    parse_in("value channels", text, 0, 1024)
}

/// clap parser for `--value-weight` and `--ownership-weight`.
fn head_weight_arg(text: &str) -> Result<f64, String> {
    parse_in("head weight", text, 0.0, 100.0)
}

/// clap parser for `--channels`.
fn channels_arg(text: &str) -> Result<usize, String> {
    parse_in("channels", text, 1, 1024)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use clap::Parser;

    /// The options as a command of their own, as `akushu train` flattens them.
    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        options: TrainOverrides,
    }

    /// A value for every option, as a flag gives it; a new option without one here fails
    /// the test below, which is the point: it must be reachable both ways.
    fn every_flag() -> Vec<(&'static str, &'static str)> {
        vec![
            ("lr_schedule", "cosine"),
            ("warmup_steps", "7"),
            ("validate_every", "11"),
            ("epochs", "3"),
            ("seed", "5"),
            ("batch_size", "64"),
            ("learning_rate", "0.25"),
            ("max_train", "100"),
            ("max_validation", "50"),
            ("patience", "2"),
            ("hidden", "8,4"),
            ("encoding", "one-hot"),
            ("loss", "softmax"),
            ("blocks", "2"),
            ("channels", "16"),
            ("value_channels", "4"),
            ("ownership", "true"),
            ("score", "true"),
            ("history", "false"),
            ("value_weight", "0.5"),
            ("ownership_weight", "2"),
            ("score_weight", "3"),
            ("value_search_share", "0.25"),
            ("value_teacher_share", "0.75"),
            ("heads_only", "true"),
            ("augment", "true"),
            ("target", "visits"),
            ("bad_share", "0.1"),
            ("mix", "data/x=0.5"),
        ]
    }

    /// Every option given, through its flag.
    pub(crate) fn every_option_by_flag() -> TrainOverrides {
        let mut argv = vec!["train".to_string()];
        for (field, value) in every_flag() {
            argv.push(TrainOverrides::flag(field).expect("a flag"));
            argv.push(value.to_string());
        }
        Flags::try_parse_from(&argv).unwrap().options
    }

    /// Every option is a flag of `akushu train` and a key of the loop's `[train]`, from this
    /// one struct: every field set through the flags comes back whole through TOML, and
    /// every field is set.
    #[test]
    fn every_option_is_a_flag_and_a_loop_key() {
        let flags = every_flag();
        let names: Vec<&str> = flags.iter().map(|(f, _)| *f).collect();
        assert_eq!(
            TrainOverrides::fields(),
            names,
            "every option has a sample value"
        );
        let given = every_option_by_flag();
        // Every field is set, so a field clap skips (no flag) would show as a missing key.
        let json = serde_json::to_value(&given).unwrap();
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), names.len());
        assert!(json.as_object().unwrap().values().all(|v| !v.is_null()));
        // The loop's keys: the same struct through TOML.
        let toml_text = toml::to_string(&given).unwrap();
        let back: TrainOverrides = toml::from_str(&toml_text).unwrap();
        assert_eq!(back, given, "{toml_text}");
        let table: toml::Table = toml::from_str(&toml_text).unwrap();
        let keys: Vec<&str> = table.keys().map(String::as_str).collect();
        assert_eq!(keys.len(), names.len(), "{toml_text}");
        // And `apply` writes them all: a config built from nothing but the flags differs
        // from the defaults in every option's field.
        let defaults = TrainConfig::new(crate::net::NetKind::Cnn);
        let mut c = defaults.clone();
        given.apply(&mut c);
        assert_eq!(c.learning_rate, 0.25);
        assert_eq!(c.mlp.encoding, MlpEncoding::OneHot);
        assert_eq!(c.mix.len(), 1);
        let a = serde_json::to_value(&defaults).unwrap();
        let b = serde_json::to_value(&c).unwrap();
        let changed = leaves(&a, &b);
        assert_eq!(changed, names.len(), "{a}\n{b}");
    }

    /// Leaves of two JSON trees that differ (arrays counted whole).
    fn leaves(a: &serde_json::Value, b: &serde_json::Value) -> usize {
        match (a, b) {
            (serde_json::Value::Object(x), serde_json::Value::Object(y)) => x
                .iter()
                .map(|(k, v)| leaves(v, y.get(k).unwrap_or(&serde_json::Value::Null)))
                .sum(),
            _ => usize::from(a != b),
        }
    }

    /// Unknown loop keys are refused by name.
    #[test]
    fn an_unknown_key_is_refused() {
        let e = toml::from_str::<TrainOverrides>("epochz = 3").unwrap_err();
        assert!(e.to_string().contains("epochz"), "{e}");
    }
}
