//! Bad-move pruners: anything that rates how bad each point is for the side to move.
//!
//! One trait, many implementations (KataGo keeps its network backends behind one interface):
//! the trained network, a uniform-random control, "none", rule-based and kake-me pruners.
//! The search decides what to do with the scores (drop the x worst in the tree, forbid the
//! worst share of empty points in playouts, or give them negative priors); pruners only rate.
//!
//! This module holds the trait and the pruners that need nothing above the rules (`none`,
//! [`random`], [`rules`]); the network and kake-me pruners live in `net` and `endgame`, and
//! `search::pruners` builds any of them by name.

pub mod random;
pub mod rules;

use crate::rules::{Board, Color, Move, NN, Point};

/// What a pruner sees: the position, who moves, and the recent moves (newest last; may be
/// empty when unknown). The board carries the ko point and liberties.
#[derive(Clone, Copy, Debug)]
pub struct PruneContext<'a> {
    pub board: &'a Board,
    pub to_move: Color,
    pub recent: &'a [Move],
}

/// Rates every point; higher is worse. Scores of occupied points are ignored by callers.
pub trait Pruner: Send + Sync {
    /// A short name for logs and result files (e.g. `nn:models/default`, `random`).
    fn name(&self) -> String;
    /// Writes one badness score per point, in flat-index order.
    fn badness(&self, ctx: &PruneContext<'_>, out: &mut [f32; NN]);
}

/// Rates nothing: every point scores 0. With it, pruning removes moves in flat-index order
/// only when asked to prune, so searches use it as "no pruner".
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPruner;

impl Pruner for NoPruner {
    fn name(&self) -> String {
        "none".into()
    }
    fn badness(&self, _ctx: &PruneContext<'_>, out: &mut [f32; NN]) {
        out.fill(0.0);
    }
}

/// The legal moves of `ctx.to_move` sorted from worst to best by `scores` (ties broken by
/// flat index so the order is deterministic).
pub fn worst_first(ctx: &PruneContext<'_>, scores: &[f32; NN]) -> Vec<Point> {
    let mut legal: Vec<Point> = Point::all()
        .filter(|&p| ctx.board.is_legal(ctx.to_move, p))
        .collect();
    legal.sort_by(|a, b| {
        scores[b.index()]
            .total_cmp(&scores[a.index()])
            .then(a.cmp(b))
    });
    legal
}
