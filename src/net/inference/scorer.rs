//! What an error-rate curve measures: anything that rates the points of a dataset
//! position, and any pruner seen as one. Here, below the curves, so that a network's pruner
//! can be a scorer without the networks reaching up into the curves.

use crate::dataset::Position;
use crate::net::inference::encode::recent_moves;
use crate::prune::{PruneContext, Pruner};
use crate::rules::{Board, NN};

/// Anything that rates the points of a dataset position.
pub trait PositionScorer: Sync {
    /// For logs and CSV labels.
    fn name(&self) -> String;
    /// Badness per point (higher = worse); `board` is `pos.board()`.
    fn score(&self, pos: &Position, board: &Board, out: &mut [f32; NN]);
}

/// Any [`Pruner`] scores positions through the context a search would give it.
pub struct PrunerScorer<'a>(pub &'a dyn Pruner);

impl PositionScorer for PrunerScorer<'_> {
    fn name(&self) -> String {
        self.0.name()
    }
    fn score(&self, pos: &Position, board: &Board, out: &mut [f32; NN]) {
        let recent = recent_moves(pos);
        let ctx = PruneContext {
            board,
            to_move: pos.color(),
            recent: &recent,
        };
        self.0.badness(&ctx, out);
    }
}
