//! Bad-move networks (SEEDS section A): read a 9x9 position, rate every point's badness.
//!
//! - [`encode`]: what the networks see (paper cells, one-hot planes, CNN feature planes) and
//!   the 8 symmetries.
//! - [`mlp`] (the paper's network) and [`cnn`] (ours): burn modules with their configs.
//! - [`model`]: a trained model on disk (`config.json`, `model.bpk`, `train_log.csv`).
//! - [`train`]: the seeded, checkpointed, early-stopping training loop.
//! - [`plain`]: the burn-free batch-1 evaluators the search calls.
//! - [`speed`]: training throughput, FLOPs per example and the machine's FMA peak.
//! - [`curve`]: the pruning error-rate curve and top-k accuracy.
//! - [`baselines`]: uniform-random and rule rankings for the same curve.
//! - [`pruner`]: [`NetPruner`], the [`Pruner`](crate::prune::Pruner) backed by a saved model.

pub mod baselines;
pub mod cnn;
pub mod curve;
pub mod data;
pub mod encode;
pub mod mlp;
pub mod model;
pub mod plain;
pub mod pruner;
pub mod speed;
pub mod synthetic;
pub mod train;

pub use model::{NetKind, SavedModel, TrainConfig};
pub use pruner::NetPruner;

/// Errors of the network layer.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: bad config: {message}")]
    Config {
        path: std::path::PathBuf,
        message: String,
    },
    #[error("{path}: cannot read weights: {message}")]
    Weights {
        path: std::path::PathBuf,
        message: String,
    },
    #[error("{0}")]
    Data(String),
}

/// The CPU device all training and evaluation runs on: burn's pure-Rust `flex` backend,
/// chosen explicitly (`Device::default()` would prefer a slow software GPU adapter).
pub fn cpu_device() -> burn::prelude::Device {
    burn::prelude::Device::flex()
}

/// Where a network trains or evaluates: `cpu` (burn's flex backend), or `cuda` / `cuda:N`
/// (burn's CUDA backend, in builds with the `gpu` feature).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeviceChoice {
    #[default]
    Cpu,
    Cuda(usize),
}

impl std::str::FromStr for DeviceChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "cpu" => Ok(DeviceChoice::Cpu),
            "cuda" | "gpu" => Ok(DeviceChoice::Cuda(0)),
            _ => s
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .map(DeviceChoice::Cuda)
                .ok_or_else(|| format!("unknown device `{s}`: use cpu, cuda or cuda:N")),
        }
    }
}

impl std::fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceChoice::Cpu => write!(f, "cpu"),
            DeviceChoice::Cuda(n) => write!(f, "cuda:{n}"),
        }
    }
}

impl DeviceChoice {
    /// The burn device, or an error saying how to get a GPU build.
    pub fn device(self) -> Result<burn::prelude::Device, NetError> {
        match self {
            DeviceChoice::Cpu => Ok(cpu_device()),
            #[cfg(feature = "gpu")]
            DeviceChoice::Cuda(n) => Ok(burn::prelude::Device::cuda(n)),
            #[cfg(not(feature = "gpu"))]
            DeviceChoice::Cuda(_) => Err(NetError::Data(
                "this build has no GPU backend: rebuild with `cargo build --release --features gpu` (needs an NVIDIA driver at run time)".into(),
            )),
        }
    }
}
