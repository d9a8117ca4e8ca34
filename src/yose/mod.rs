//! Endgame (yose) search with kake-me pruning (paper C in `docs/papers.md`): moves into
//! regions the invader cannot live in are dropped as useless.
//!
//! [`kakeme`] holds the tests that drop useless moves (kake-me, dame, the defender
//! extension) and [`KakemePruner`], the same tests behind the common
//! [`Pruner`](crate::prune::Pruner) interface; [`solver`] is the exact minimax solver
//! (NegaMax, NegaScout, MTD(f), MTD(bi), one transposition table); [`problem`] reads the
//! problem files of `data/yose/`.

pub mod kakeme;
pub mod problem;
pub mod solver;

pub use kakeme::{
    DeadRegion, KakemeConfig, KakemePruner, dame_mask, dead_regions, defender_mask, kakeme_mask,
};
pub use problem::{Problem, ProblemError};
pub use solver::{Algorithm, SolveResult, Solver, SolverConfig, solve};
