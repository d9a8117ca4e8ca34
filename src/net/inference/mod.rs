//! The networks and what runs them (below training and the curves, which use it).
//!
//! - [`encode`]: what the networks see (paper cells, one-hot planes, CNN feature planes) and
//!   the 8 symmetries.
//! - [`mlp`] (the paper's network) and [`cnn`] (ours): burn modules with their configs;
//!   [`boardconv`]: the CPU trainer's board convolution.
//! - [`model`]: a trained model on disk (`config.json`, `model.bpk`, `train_log.csv`);
//!   [`origin`] and [`provenance`]: the datasets and games a model was trained on.
//! - [`export`]: a model's weights and config as a numpy `.npz`, and a model from one.
//! - [`plain`]: the burn-free batch-1 evaluators the search calls; [`quant`]: the CNN
//!   evaluator with 8-bit integer convolutions (faster, same on every CPU).
//! - [`scorer`]: anything that rates a position's points, as a curve measures it.
//! - [`pruner`]: [`NetPruner`](pruner::NetPruner), the [`Pruner`](crate::prune::Pruner)
//!   backed by a saved model.

pub mod boardconv;
pub mod cnn;
pub mod encode;
pub mod export;
pub mod mlp;
pub mod model;
pub mod origin;
pub mod plain;
pub mod provenance;
pub mod pruner;
pub mod quant;
pub mod scorer;
