//! Search engines (UCT with pruning, flat UCB) behind one [`Engine`] trait that GTP and the
//! arena drive. Engines are built from text specs ([`spec::build_engine`]).
//!
//! Files: [`engine`] the trait; [`uct`] the UCT engine and its config; [`tree`] the flat node
//! array and simulation loop; [`pruning`] score cache, tree/soft/playout pruning; [`priors`] heuristic priors
//! for new nodes; [`flat`] the
//! flat Monte-Carlo UCB engine; [`random`] the seeded random mover (tests, strength floor);
//! [`spec`] the engine kinds and the key tables of their specs.

pub mod engine;
pub mod flat;
pub mod priors;
pub mod pruning;
pub mod random;
pub mod spec;
pub mod tree;
pub mod uct;

pub use engine::{Analyzer, Candidate, Engine, EngineMove, MoveStats, PrunerView};
