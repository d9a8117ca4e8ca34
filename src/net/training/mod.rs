//! Training the networks: what each head learns, the loop that teaches it, one job.
//!
//! - [`targets`]: what each head learns from a position (move, value, ownership, score).
//! - [`tasks`]: each network's batch encoding, forward pass and losses, and validation.
//! - [`train`]: the seeded, checkpointed, early-stopping training loop.
//! - [`job`]: one training job (its sets cut from the config, then [`train`]), as `akushu
//!   train` and the self-play loop both run it; [`data`]: the dataset splits it reads.
//! - [`options`]: the training options a run may change, one struct for the flags and the
//!   loop's keys.
//! - [`grow`]: a trained CNN grown into a wider, deeper one with the same logits.
//! - [`heads`]: what the value and score heads call on held-out positions (`eval --value`).
//! - [`speed`]: training throughput, FLOPs per example and the machine's FMA peak.
//! - [`synthetic`]: random legal games, for tests and benchmarks without a dataset.

pub mod data;
pub mod grow;
pub mod heads;
pub mod job;
pub mod options;
pub mod speed;
pub mod synthetic;
pub mod targets;
pub mod tasks;
pub mod train;
