//! Small shared helpers: the fast seeded RNG and atomic file writes.

pub mod fsio;
pub mod rng;
