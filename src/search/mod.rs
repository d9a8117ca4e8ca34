//! Search engines (UCT with pruning, flat UCB) behind one [`Engine`] trait that GTP and the
//! arena drive. Engines are built from text specs ([`spec::build_engine`]).
//!
//! Files, lowest first (a file uses only the files before it; `tests/layers.rs` checks it):
//! [`engine`] the trait; [`pruning`] score cache, tree/soft/playout pruning; [`priors`]
//! heuristic priors for new nodes; [`outcomes`] the final scores and owners of the
//! simulations (analysis); [`tree`] the flat node array and simulation loop;
//! [`pruners`] pruners by name; [`uct`] the UCT engine and its config; [`flat`] the flat
//! Monte-Carlo UCB engine; [`random`] the seeded random mover (tests, strength floor);
//! [`territory`] the territory player (paper E); [`spec`] the engine kinds and the key tables
//! of their specs.

pub mod clock;
pub mod engine;
pub mod flat;
pub mod outcomes;
pub mod priors;
pub mod pruners;
pub mod pruning;
pub mod random;
pub mod spec;
pub mod territory;
pub mod tree;
pub mod uct;

pub use clock::{Clock, TimeControl};
pub use engine::{
    Candidate, Engine, EngineBuildError, EngineMove, LiveAnalysis, MoveStats, PrunerView,
    ScoreEstimate,
};
pub use territory::{TerritoryConfig, TerritoryPlayer};
