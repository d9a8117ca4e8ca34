//! How well a network prunes: the curves of `akushu eval`.
//!
//! - [`curve`]: the pruning error-rate curve and top-k accuracy.
//! - [`baselines`]: uniform-random and rule rankings for the same curve.
//! - [`truth`]: the engine-judged curve (a pruned move the teacher rates good is an error).

pub mod baselines;
pub mod curve;
pub mod truth;
