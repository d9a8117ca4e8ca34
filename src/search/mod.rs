//! Search engines (UCT with pruning, flat UCB) behind one [`Engine`] trait that GTP and the
//! arena drive.

pub mod engine;

pub use engine::{Engine, EngineMove, MoveStats};
