//! A model directory: `config.json` (the full [`TrainConfig`]), `model.bpk` (burnpack
//! weights of the best epoch), `train_log.csv`, and `checkpoint/` while training.

use super::cnn::{Cnn, CnnConfig};
use super::mlp::{Mlp, MlpConfig};
use crate::net::NetError;
pub use crate::util::checksum::Checksum;
use crate::util::fsio::write_atomic;
use burn::module::Module;
use burn::prelude::*;
use burn::store::ModuleRecord;
use burn::tensor::Bytes;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Which network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum NetKind {
    /// The paper's multi-layer perceptron with sigmoid outputs.
    Mlp,
    /// Our residual CNN with a softmax over legal points.
    Cnn,
}

/// Most epochs a run may ask for (`--epochs`, config files, the loop's `[train]`).
pub const MAX_EPOCHS: usize = 100_000;

/// Everything `akushu train` needs; saved as `config.json` next to the model.
#[derive(Config, Debug)]
pub struct TrainConfig {
    /// Which network to train.
    pub model: NetKind,
    /// Shape of the MLP (used when `model` is `mlp`).
    #[config(default = "MlpConfig::new()")]
    pub mlp: MlpConfig,
    /// Shape of the CNN (used when `model` is `cnn`).
    #[config(default = "CnnConfig::new()")]
    pub cnn: CnnConfig,
    /// Maximum number of passes over the training split.
    #[config(default = 20)]
    pub epochs: usize,
    /// Examples per optimiser step.
    #[config(default = 256)]
    pub batch_size: usize,
    /// Adam learning rate.
    #[config(default = 1e-3)]
    pub learning_rate: f64,
    /// Seed of the weight initialisation, the shuffles and the augmentation.
    #[config(default = 42)]
    pub seed: u64,
    /// Early stopping: stop after this many epochs without a better validation loss.
    #[config(default = 3)]
    pub patience: usize,
    /// Use at most this many training positions (a seeded sample; 0 = all).
    #[config(default = 0)]
    pub max_train: usize,
    /// Validate on at most this many validation positions (a seeded sample; 0 = all).
    #[config(default = 20000)]
    pub max_validation: usize,
    /// Apply a random one of the 8 board symmetries to every training example.
    #[config(default = false)]
    pub augment: bool,
    /// How the learning rate moves over the run (after the warm-up).
    #[config(default = "LrSchedule::Constant")]
    pub lr_schedule: LrSchedule,
    /// Steps of linear warm-up from `learning_rate / warmup_steps` to `learning_rate`.
    #[config(default = 0)]
    pub warmup_steps: u64,
    /// Where the cosine schedule ends, as a share of `learning_rate`.
    #[config(default = 0.02)]
    pub final_lr_fraction: f64,
    /// Start from this model directory's weights (same network shape) instead of a random
    /// initialisation; recorded here so the directory says where its weights began.
    #[config(default = "None")]
    pub init_from: Option<String>,
    /// Validate (and checkpoint) every this many optimiser steps, and at every epoch's end
    /// (0 = at epoch ends only). Early stopping counts validations.
    #[config(default = 0)]
    pub validate_every: u64,
    /// What the network learns from each position (self-play records carry visits; human
    /// records only the move played, which `visits` falls back to).
    #[config(default = "Target::Played")]
    pub target: Target,
    /// With `target = visits`, the bad-move (BCE) target of the paper's MLP: a point is bad
    /// when it got under this share of the root's visits.
    #[config(default = 0.05)]
    pub bad_share: f64,
    /// Other datasets mixed into the training split, each as a share of the training
    /// examples (their validation splits are not used).
    #[config(default = "Vec::new()")]
    pub mix: Vec<MixSource>,
    /// Weight of the value head's loss beside the move loss (networks with a value head).
    #[config(default = 1.0)]
    pub value_weight: f64,
    /// Weight of the ownership head's loss (networks with an ownership head).
    #[config(default = 1.0)]
    pub ownership_weight: f64,
    /// Weight of the score head's loss (squared error of the lead over
    /// [`SCORE_SCALE`](super::cnn::SCORE_SCALE); networks with a score head).
    #[config(default = 1.0)]
    pub score_weight: f64,
    /// Train only the value and ownership heads: the residual tower and the move head keep
    /// the weights they start from (`init_from`), so the move distribution the search uses
    /// as prior and pruner stays exactly as it was while outcomes teach the value. AlphaGo
    /// kept its human move network as the search's prior and learned the value from
    /// self-play; this is that split inside one network.
    #[config(default = false)]
    pub heads_only: bool,
    /// The value head's target: `(1 - s) * result + s * root win rate`, the root win rate
    /// being the self-play search's for the side to move where the record has one (human
    /// records keep the result). 0 = the game's result alone. The result of one game is a
    /// noisy label for each of its positions; the search's own estimate at the position is
    /// a smoother one (AlphaZero learns from the result; averaging the two is a known
    /// remedy for the noise).
    #[config(default = 0.0)]
    pub value_search_share: f64,
    /// The teacher's share of the value target, after the search's: `(1 - t) * v + t *
    /// the teacher's win rate` where the record has a teacher's label (`dataset label`);
    /// at 1 the teacher's value alone, also where the result is unknown. KataGo's and
    /// Leela Zero's distilled networks learn from an engine's value the same way.
    #[config(default = 0.0)]
    pub value_teacher_share: f64,
    /// What the weights were trained on (datasets by fingerprint, the `init_from` chain),
    /// filled in by the run; none in models trained before it was recorded.
    #[config(default = "None")]
    pub provenance: Option<super::origin::Provenance>,
}

/// The training target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// The move played: cross-entropy on it (softmax), or the paper's 0/1 bad-move vector.
    Played,
    /// The search's root visits: soft cross-entropy on the visit shares (softmax), or
    /// "bad = under `bad_share` of the visits" (the MLP's BCE).
    Visits,
    /// A teacher's policy (`dataset label`): soft cross-entropy on its shares of the 81
    /// points, or "bad = under `bad_share`" for the MLP; distillation.
    Teacher,
}

/// One dataset mixed into training ([`TrainConfig::mix`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MixSource {
    /// Dataset directory (its train split is read).
    pub data: String,
    /// Share of the training examples drawn from it (0 to 0.95; all shares below 1).
    pub share: f64,
}

/// The learning-rate schedule of a training run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LrSchedule {
    /// `learning_rate` throughout.
    Constant,
    /// Half a cosine from `learning_rate` down to `final_lr_fraction` of it at the last step.
    Cosine,
}

impl TrainConfig {
    /// A short name of the configured network for logs and result tables: `cnn 5x32`,
    /// `mlp Paper [256, 256]`.
    pub fn network_name(&self) -> String {
        match self.model {
            NetKind::Cnn => format!(
                "cnn {}x{}{}{}{}",
                self.cnn.blocks,
                self.cnn.channels,
                if self.cnn.value_channels > 0 {
                    " +value"
                } else {
                    ""
                },
                if self.cnn.ownership {
                    " +ownership"
                } else {
                    ""
                },
                if self.cnn.score { " +score" } else { "" }
            ),
            NetKind::Mlp => format!("mlp {:?} {:?}", self.mlp.encoding, self.mlp.hidden),
        }
    }

    /// Reads a config file: `.toml` as TOML, anything else as JSON. Missing fields take
    /// their defaults; the file must name its `model`.
    pub fn from_file(path: &Path) -> Result<TrainConfig, NetError> {
        TrainConfig::from_file_or(path, None)
    }

    /// [`from_file`](Self::from_file), where a file without `model` takes `model` (the
    /// command line's `--model`) and every other missing field its default for that network.
    pub fn from_file_or(path: &Path, model: Option<NetKind>) -> Result<TrainConfig, NetError> {
        let text = std::fs::read_to_string(path).map_err(|source| NetError::Io {
            path: path.into(),
            source,
        })?;
        TrainConfig::from_text(path, &text, model)
    }

    /// A config from the text of a file at `path` (named in errors; `.toml` read as TOML,
    /// anything else as JSON), as [`from_file_or`](Self::from_file_or) reads it: the config
    /// a model export carries is read the same way as `config.json`.
    pub fn from_text(
        path: &Path,
        text: &str,
        model: Option<NetKind>,
    ) -> Result<TrainConfig, NetError> {
        let bad = |message: String| NetError::Config {
            path: path.into(),
            message,
        };
        let given: serde_json::Value = if path.extension().is_some_and(|e| e == "toml") {
            toml::from_str(text).map_err(|e| bad(e.to_string()))?
        } else {
            serde_json::from_str(text).map_err(|e| bad(e.to_string()))?
        };
        let kind: NetKind = match (given.get("model"), model) {
            (Some(v), _) if !v.is_null() => {
                serde_json::from_value(v.clone()).map_err(|e| bad(format!("field `model`: {e}")))?
            }
            (_, Some(model)) => model,
            (_, None) => {
                return Err(bad(
                    "field `model` is missing: name the network (mlp or cnn) in the file or with --model"
                        .into(),
                ));
            }
        };
        // Start from the defaults so files written before a field existed still load.
        let mut merged = serde_json::to_value(TrainConfig::new(kind)).expect("configs serialise");
        merge(&mut merged, given);
        let config: TrainConfig = serde_json::from_value(merged).map_err(|e| bad(e.to_string()))?;
        config.validate().map_err(bad)?;
        Ok(config)
    }

    /// Checks the numbers a config file may hold: network shapes that fit in memory and
    /// finite, positive training rates (a hostile file must fail here, not in an allocator
    /// or a kernel).
    pub fn validate(&self) -> Result<(), String> {
        use crate::util::num::check;
        check("cnn.blocks", self.cnn.blocks, 1, 64)?;
        check("cnn.channels", self.cnn.channels, 1, 1024)?;
        check("mlp.hidden (layers)", self.mlp.hidden.len(), 0, 16)?;
        for &h in &self.mlp.hidden {
            check("mlp.hidden (width)", h, 1, 65_536)?;
        }
        // No epoch trains nothing, and a run that writes no weights must not report a model.
        check("epochs", self.epochs, 1, MAX_EPOCHS)?;
        check("batch_size", self.batch_size, 1, 1 << 20)?;
        check("learning_rate", self.learning_rate, f64::MIN_POSITIVE, 10.0)?;
        check("final_lr_fraction", self.final_lr_fraction, 0.0, 1.0)?;
        check("bad_share", self.bad_share, 0.0, 1.0)?;
        check("cnn.value_channels", self.cnn.value_channels, 0, 1024)?;
        check("value_weight", self.value_weight, 0.0, 100.0)?;
        check("ownership_weight", self.ownership_weight, 0.0, 100.0)?;
        check("score_weight", self.score_weight, 0.0, 100.0)?;
        check("value_search_share", self.value_search_share, 0.0, 1.0)?;
        check("value_teacher_share", self.value_teacher_share, 0.0, 1.0)?;
        for m in &self.mix {
            check("mix.share", m.share, 0.0, 0.95)?;
        }
        if self.model == NetKind::Mlp && self.cnn.has_extra_heads() {
            return Err(
                "cnn.value_channels / cnn.ownership: an MLP has no value or ownership head (they \
                 are options of the CNN, --model cnn)"
                    .into(),
            );
        }
        if self.cnn.score && self.cnn.value_channels == 0 {
            return Err(
                "cnn.score: the score head reads the value head's hidden layer (set \
                 cnn.value_channels > 0)"
                    .into(),
            );
        }
        if self.heads_only && !(self.model == NetKind::Cnn && self.cnn.has_extra_heads()) {
            return Err(
                "heads_only: the network has no value or ownership head to train (a CNN with \
                 cnn.value_channels > 0 or cnn.ownership = true)"
                    .into(),
            );
        }
        if self.mix.iter().map(|m| m.share).sum::<f64>() >= 1.0 {
            return Err("mix: the shares add up to 1 or more (the main dataset needs some)".into());
        }
        Ok(())
    }

    /// Pretty JSON, as saved and as printed at the start of a run.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("configs serialise")
    }
}

/// Overlays `over` on `base`, object by object.
fn merge(base: &mut serde_json::Value, over: serde_json::Value) {
    match (base, over) {
        (serde_json::Value::Object(b), serde_json::Value::Object(o)) => {
            for (k, v) in o {
                merge(b.entry(k).or_insert(serde_json::Value::Null), v);
            }
        }
        (b, o) => *b = o,
    }
}

/// A trained network in memory (burn modules, on the CPU device, validation mode).
#[derive(Debug, Clone)]
pub enum SavedModel {
    Mlp(Box<Mlp>, MlpConfig),
    Cnn(Box<Cnn>, CnnConfig),
}

impl SavedModel {
    /// Whether the network's inputs carry the last two moves: a CNN trained with
    /// `history = false` reads none (the MLP's encodings decide for themselves).
    pub fn reads_history(&self) -> bool {
        match self {
            SavedModel::Mlp(..) => true,
            SavedModel::Cnn(_, c) => c.history,
        }
    }
}

/// The kind in a model directory's output marker (`util::output`): `train` and
/// `model import` write model directories.
pub const MODEL_KIND: &str = "model";

/// Paths inside a model directory.
pub fn config_path(dir: &Path) -> PathBuf {
    dir.join("config.json")
}
pub fn weights_path(dir: &Path) -> PathBuf {
    dir.join("model.bpk")
}
pub fn log_path(dir: &Path) -> PathBuf {
    dir.join("train_log.csv")
}

/// The checksum file written beside a weights file (`model.bpk.checksum`).
pub fn checksum_path(weights: &Path) -> PathBuf {
    let mut name = weights.file_name().unwrap_or_default().to_os_string();
    name.push(".checksum");
    weights.with_file_name(name)
}

/// The checksum of the weights of model directory `dir` (computed from `model.bpk`; a
/// directory without a checksum file is read the same way).
pub fn model_checksum(dir: &Path) -> Result<Checksum, NetError> {
    let path = weights_path(dir);
    let bytes = std::fs::read(&path).map_err(|source| NetError::Io {
        path: path.clone(),
        source,
    })?;
    Ok(Checksum::of(&bytes))
}

/// Checks `bytes` (read from `path`) against the checksum file beside it, when there is
/// one: corrupt weights load without complaint otherwise and just rate moves badly.
fn verify_checksum(path: &Path, bytes: &[u8]) -> Result<(), NetError> {
    let sidecar = checksum_path(path);
    // Only an absent checksum file means "no checksum"; one that cannot be read (a folder,
    // no permission, not text) must not let the weights pass unchecked.
    let recorded = match std::fs::read_to_string(&sidecar) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(NetError::Io {
                path: sidecar,
                source,
            });
        }
    };
    let recorded: Checksum = recorded.parse().map_err(|e| NetError::Weights {
        path: sidecar.clone(),
        message: e,
    })?;
    let actual = Checksum::of(bytes);
    if recorded != actual {
        return Err(NetError::Weights {
            path: path.into(),
            message: format!(
                "checksum mismatch: {} records `{recorded}`, the file has `{actual}` (corrupt \
                 or replaced weights; if the weights are known good, delete the checksum file)",
                sidecar.display(),
            ),
        });
    }
    Ok(())
}

/// Writes a module's weights atomically as burnpack, with their checksum file beside them.
pub fn save_weights<M: Module>(module: &M, path: &Path) -> Result<(), NetError> {
    let bytes = module
        .clone()
        .into_record()
        .into_bytes()
        .map_err(|e| NetError::Weights {
            path: path.into(),
            message: format!("{e:?}"),
        })?;
    // The checksum goes first: a crash between the two writes leaves a mismatch that is
    // reported, never new weights that pass for the old ones.
    let sidecar = checksum_path(path);
    write_atomic(&sidecar, format!("{}\n", Checksum::of(&bytes)).as_bytes())
        .map_err(NetError::Write)?;
    write_atomic(path, &bytes).map_err(NetError::Write)
}

/// Loads burnpack weights into `module` (which must have the same shape).
pub fn load_weights<M: Module>(module: M, path: &Path) -> Result<M, NetError> {
    let bytes = std::fs::read(path).map_err(|source| NetError::Io {
        path: path.into(),
        source,
    })?;
    verify_checksum(path, &bytes)?;
    let bad = |message: String| NetError::Weights {
        path: path.into(),
        message,
    };
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes))
        .map_err(|e| bad(format!("{e:?}")))?;
    let module = module
        .try_load_record(record)
        .map_err(|e| bad(format!("{e:?}")))?;
    // A NaN or infinite weight rates every move NaN: the search would play blind and a
    // continued training would blame its learning rate. Refuse it here, checksum or not.
    let mut check = NonFinite::default();
    module.visit(&mut check);
    if check.bad > 0 {
        return Err(bad(format!(
            "{} of {} weights are NaN or infinite: the file is damaged or the training diverged",
            check.bad, check.total
        )));
    }
    Ok(module)
}

/// Counts the non-finite values of a module's float parameters.
#[derive(Default)]
struct NonFinite {
    bad: usize,
    total: usize,
}

impl burn::module::ModuleVisitor for NonFinite {
    fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
        let values = super::plain::float_values(param.val());
        self.total += values.len();
        self.bad += values.iter().filter(|v| !v.is_finite()).count();
    }
}

impl SavedModel {
    /// Loads `dir/config.json` and `dir/model.bpk` onto the CPU.
    pub fn load(dir: &Path) -> Result<(SavedModel, TrainConfig), NetError> {
        Self::load_on(dir, &crate::net::cpu_device())
    }

    /// Loads `dir/config.json` and `dir/model.bpk` onto `device`.
    pub fn load_on(dir: &Path, device: &Device) -> Result<(SavedModel, TrainConfig), NetError> {
        let config = TrainConfig::from_file(&config_path(dir))?;
        let model = match config.model {
            NetKind::Mlp => {
                let m = load_weights(config.mlp.init(device), &weights_path(dir))?;
                SavedModel::Mlp(Box::new(m), config.mlp.clone())
            }
            NetKind::Cnn => {
                let m = load_weights(config.cnn.init(device), &weights_path(dir))?;
                SavedModel::Cnn(Box::new(m), config.cnn.clone())
            }
        };
        Ok((model, config))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Heads an MLP does not have are refused rather than a plain MLP trained.
    #[test]
    fn heads_the_network_cannot_train_are_refused() {
        let mut mlp = TrainConfig::new(NetKind::Mlp);
        mlp.cnn.value_channels = 8;
        assert!(mlp.validate().unwrap_err().contains("an MLP has no value"));
        mlp.cnn.value_channels = 0;
        mlp.cnn.ownership = true;
        assert!(mlp.validate().unwrap_err().contains("an MLP has no value"));
    }

    /// Weights with a NaN load nowhere, with or without a checksum file beside them.
    #[test]
    fn non_finite_weights_are_refused_at_load() {
        struct Poison;
        impl burn::module::ModuleMapper for Poison {
            fn map_float<const D: usize>(
                &mut self,
                param: burn::module::Param<Tensor<D>>,
            ) -> burn::module::Param<Tensor<D>> {
                param.map(|t| t.mul_scalar(f32::NAN))
            }
        }
        let dir = std::env::temp_dir().join(format!("akushu-nan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let device = crate::net::cpu_device();
        let config = MlpConfig::new();
        let path = dir.join("model.bpk");
        save_weights(&config.init(&device), &path).unwrap();
        assert!(load_weights(config.init(&device), &path).is_ok());
        save_weights(&config.init(&device).map(&mut Poison), &path).unwrap();
        let e = load_weights(config.init(&device), &path).unwrap_err();
        assert!(e.to_string().contains("NaN or infinite"), "{e}");
        std::fs::remove_file(checksum_path(&path)).unwrap();
        assert!(load_weights(config.init(&device), &path).is_err());
        // A checksum path that is a folder is an error, not "no checksum".
        save_weights(&config.init(&device), &path).unwrap();
        std::fs::remove_file(checksum_path(&path)).unwrap();
        std::fs::create_dir(checksum_path(&path)).unwrap();
        let e = load_weights(config.init(&device), &path).unwrap_err();
        assert!(e.to_string().contains("model.bpk.checksum"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn partial_config_files_take_defaults() {
        let dir = std::env::temp_dir().join(format!("akushu-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let json = dir.join("c.json");
        std::fs::write(&json, r#"{"model":"mlp","mlp":{"hidden":[64]},"epochs":3}"#).unwrap();
        let c = TrainConfig::from_file(&json).unwrap();
        assert_eq!(
            (c.mlp.hidden.clone(), c.epochs, c.batch_size),
            (vec![64], 3, 256)
        );
        assert_eq!(c.mlp.loss, crate::net::inference::mlp::MlpLoss::Bce);
        let toml = dir.join("c.toml");
        std::fs::write(&toml, "model = \"cnn\"\n[cnn]\nblocks = 2\n").unwrap();
        let c = TrainConfig::from_file(&toml).unwrap();
        assert_eq!(
            (c.model, c.cnn.blocks, c.cnn.channels),
            (NetKind::Cnn, 2, 32)
        );
        std::fs::write(&json, r#"{"epochs":3}"#).unwrap();
        assert!(
            TrainConfig::from_file(&json)
                .unwrap_err()
                .to_string()
                .contains("c.json")
        );
    }
}
