//! Bad-move networks (paper A in `docs/papers.md`): read a 9x9 position, rate every point's badness.
//!
//! Three folders, used one way: [`training`] and [`curves`] use [`inference`], training
//! uses the curves (its validation error), and inference uses neither.
//! - [`inference`]: the networks and what runs them: encoding, the burn modules, a model
//!   on disk with its provenance, the burn-free and 8-bit evaluators the search calls,
//!   export, and the network as a pruner.
//! - [`training`]: targets, tasks and losses, the checkpointed training loop, one training
//!   job, growing a network, the run's options, and throughput.
//! - [`curves`]: the pruning error-rate curve, its baselines, and the engine-judged curve.
//!
//! Every file is also re-exported here by its own name (`net::model`, `net::train`), so a
//! path outside the network names what a file is, not which folder holds it.

pub mod curves;
pub mod inference;
pub mod training;

// Each file by its own name too, wherever it lives: `crate::net::model`, `crate::net::train`.
pub use curves::{baselines, curve, truth};
pub use inference::{
    boardconv, cnn, encode, export, mlp, model, origin, plain, provenance, pruner, quant, scorer,
};
pub use training::{data, grow, heads, job, options, speed, synthetic, targets, tasks, train};

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
    /// An I/O error whose message already names its file (as `fsio`'s atomic writes do).
    #[error("{0}")]
    Write(std::io::Error),
}

/// The CPU device all training and evaluation runs on: burn's pure-Rust `flex` backend,
/// chosen explicitly (`Device::default()` would prefer a slow software GPU adapter).
pub fn cpu_device() -> burn::prelude::Device {
    burn::prelude::Device::flex()
}

/// Where a network trains or evaluates: `cpu` (burn's flex backend), `vulkan` / `vulkan:N`
/// (burn's wgpu backend on Vulkan, in builds with the `vulkan` or `gpu` feature), or `cuda` /
/// `cuda:N` (burn's CUDA backend, in builds with the `cuda` feature). `gpu` names whichever
/// GPU backend the build has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeviceChoice {
    #[default]
    Cpu,
    /// `None`: the best adapter wgpu finds (a discrete GPU before others).
    Vulkan(Option<usize>),
    Cuda(usize),
}

impl std::str::FromStr for DeviceChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let index = |rest: &str| -> Result<usize, String> {
            rest.parse()
                .map_err(|_| format!("bad device index in `{s}`: use e.g. vulkan:0 or cuda:1"))
        };
        match s {
            "cpu" => Ok(DeviceChoice::Cpu),
            // Prefer the backend this build links; Vulkan when none does, so the error that
            // follows names the feature that builds offline.
            "gpu" if cfg!(feature = "cuda") && cfg!(not(feature = "vulkan")) => {
                Ok(DeviceChoice::Cuda(0))
            }
            "gpu" | "vulkan" => Ok(DeviceChoice::Vulkan(None)),
            "cuda" => Ok(DeviceChoice::Cuda(0)),
            _ => {
                if let Some(rest) = s.strip_prefix("vulkan:") {
                    index(rest).map(|n| DeviceChoice::Vulkan(Some(n)))
                } else if let Some(rest) = s.strip_prefix("cuda:") {
                    index(rest).map(DeviceChoice::Cuda)
                } else {
                    Err(format!(
                        "unknown device `{s}`: use cpu, gpu, vulkan[:N] or cuda[:N]"
                    ))
                }
            }
        }
    }
}

impl std::fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceChoice::Cpu => write!(f, "cpu"),
            DeviceChoice::Vulkan(None) => write!(f, "vulkan"),
            DeviceChoice::Vulkan(Some(n)) => write!(f, "vulkan:{n}"),
            DeviceChoice::Cuda(n) => write!(f, "cuda:{n}"),
        }
    }
}

impl DeviceChoice {
    /// Whether this is a GPU (one data shard per step; no CPU thread sharding).
    pub fn is_gpu(self) -> bool {
        self != DeviceChoice::Cpu
    }

    /// The burn device, or an error saying how to get a build that has it.
    pub fn device(self) -> Result<burn::prelude::Device, NetError> {
        match self {
            DeviceChoice::Cpu => Ok(cpu_device()),
            #[cfg(feature = "vulkan")]
            DeviceChoice::Vulkan(n) => Ok(burn::prelude::Device::vulkan(match n {
                None => burn::prelude::DeviceKind::DefaultDevice,
                Some(n) => burn::prelude::DeviceKind::DiscreteGpu(n),
            })),
            #[cfg(not(feature = "vulkan"))]
            DeviceChoice::Vulkan(_) => Err(NetError::Data(
                "this build has no Vulkan backend: rebuild with `cargo build --release --features gpu` (needs libvulkan1 and the GPU's Vulkan driver at run time)".into(),
            )),
            #[cfg(feature = "cuda")]
            DeviceChoice::Cuda(n) => Ok(burn::prelude::Device::cuda(n)),
            #[cfg(not(feature = "cuda"))]
            DeviceChoice::Cuda(_) => Err(NetError::Data(
                "this build has no CUDA backend: rebuild with `cargo build --release --features cuda` (its build downloads LLVM from GitHub; `--features gpu` builds the Vulkan backend offline)".into(),
            )),
        }
    }
}
