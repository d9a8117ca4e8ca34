//! Bad-move pruners: anything that rates how bad each point is for the side to move.
//!
//! One trait, many implementations (KataGo keeps its network backends behind one interface):
//! the trained network, a uniform-random control, "none", rule-based and kake-me pruners.
//! The search decides what to do with the scores (drop the x worst in the tree, forbid the
//! worst share of empty points in playouts, or give them negative priors); pruners only rate.
//!
//! This module holds the trait and the pruners that need nothing above the rules (`none`,
//! [`random`], [`rules`]); the network and kake-me pruners live in `net` and `yose`, and
//! `search::pruners` builds any of them by name. Names are parsed once, here ([`name`]), so
//! every layer above reads the same grammar.

pub mod name;
pub mod random;
pub mod rules;

use std::cmp::Ordering;

use crate::rules::{Board, Color, Move, NN, NO_POINT, PASS_INDEX, Point};

/// What a pruner sees: the position, who moves, and the recent moves (newest last; may be
/// empty when unknown). The board carries the ko point and liberties.
#[derive(Clone, Copy, Debug)]
pub struct PruneContext<'a> {
    pub board: &'a Board,
    pub to_move: Color,
    pub recent: &'a [Move],
}

/// The last two moves before a position, newest first, coded as datasets store them
/// ([`crate::dataset::Position::last_moves`]): flat index, [`PASS_INDEX`] = pass,
/// [`NO_POINT`] = no move (the start of the game).
pub type LastMoves = [u8; 2];

/// No history: what a position with no moves before it has.
pub const NO_LAST_MOVES: LastMoves = [NO_POINT; 2];

/// The code [`LastMoves`] stores for a move.
#[inline]
pub fn last_move_code(m: Move) -> u8 {
    m.index() as u8
}

/// The recent-move list (oldest first, newest last) a [`PruneContext`] carries for `last`,
/// written into `buf`: the one conversion both the search and `eval` use, so a network sees
/// the same history in both.
pub fn recent_from_last(last: LastMoves, buf: &mut [Move; 2]) -> &[Move] {
    let mut n = 0;
    for &code in last.iter().rev() {
        if code == NO_POINT {
            continue;
        }
        // Codes above the pass are never stored (the dataset decoder refuses them).
        if let Ok(m) = Move::from_index(code as usize) {
            buf[n] = m;
            n += 1;
        }
    }
    &buf[..n]
}

/// The board point of a [`LastMoves`] code (`None` for a pass or no move).
#[inline]
pub fn last_point(code: u8) -> Option<Point> {
    ((code as usize) < PASS_INDEX).then(|| Point::new(code as usize))
}

/// Rates every point; higher is worse. Scores of occupied points are ignored by callers.
pub trait Pruner: Send + Sync {
    /// A short name for logs and result files (e.g. `nn:models/default`, `random`).
    fn name(&self) -> String;
    /// Whether the scores depend on [`PruneContext::recent`] (a CNN's last-move planes): the
    /// search's score cache then keys positions by their last moves too. Every pruner says,
    /// so a new one cannot be cached wrongly by forgetting.
    fn reads_history(&self) -> bool;
    /// Writes one badness score per point, in flat-index order.
    fn badness(&self, ctx: &PruneContext<'_>, out: &mut [f32; NN]);
    /// [`badness`](Self::badness), and the side to move's win probability (0..=1) where the
    /// pruner has one (a network with a value head), from the same evaluation.
    fn badness_value(&self, ctx: &PruneContext<'_>, out: &mut [f32; NN]) -> Option<f32> {
        self.badness(ctx, out);
        None
    }
    /// Whether [`badness_value`](Self::badness_value) gives a win probability.
    fn has_value(&self) -> bool {
        false
    }
    /// Each point's expected final owner from the side to move's view (-1..=1), where the
    /// pruner has an ownership head; analysis answers read it.
    fn ownership(&self, _ctx: &PruneContext<'_>) -> Option<[f32; NN]> {
        None
    }
    /// The side to move's expected score lead in points, where the pruner has a score
    /// head; analysis answers prefer it to the lead its ownership implies.
    fn score_lead(&self, _ctx: &PruneContext<'_>) -> Option<f32> {
        None
    }
}

/// Rates nothing: every point scores 0. With it, pruning removes moves in flat-index order
/// only when asked to prune, so searches use it as "no pruner".
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPruner;

impl Pruner for NoPruner {
    fn name(&self) -> String {
        "none".into()
    }
    fn reads_history(&self) -> bool {
        false
    }
    fn badness(&self, _ctx: &PruneContext<'_>, out: &mut [f32; NN]) {
        out.fill(0.0);
    }
}

/// The one badness order: `Less` when `a` ranks before `b` worst first. Higher scores
/// first (IEEE total order, so NaN and -0.0 have fixed places), ties by the lower flat index.
/// Tree pruning, playout pruning and the error-rate curve all rank by it.
#[inline]
pub fn cmp_worst_first(scores: &[f32; NN], a: usize, b: usize) -> Ordering {
    scores[b].total_cmp(&scores[a]).then(a.cmp(&b))
}

/// The best-first order progressive widening opens candidates in: lower scores first,
/// ties by the lower flat index (so it is not [`cmp_worst_first`] reversed on ties).
#[inline]
pub fn cmp_best_first(scores: &[f32; NN], a: usize, b: usize) -> Ordering {
    scores[a].total_cmp(&scores[b]).then(a.cmp(&b))
}

/// Sorts `points` (flat indices) worst first by `scores` ([`cmp_worst_first`]).
#[inline]
pub fn sort_worst_first(points: &mut [u8], scores: &[f32; NN]) {
    points.sort_unstable_by(|&a, &b| cmp_worst_first(scores, a as usize, b as usize));
}

/// The legal moves of `ctx.to_move` sorted worst first by `scores` ([`cmp_worst_first`]).
pub fn worst_first(ctx: &PruneContext<'_>, scores: &[f32; NN]) -> Vec<Point> {
    let mut legal: Vec<Point> = Point::all()
        .filter(|&p| ctx.board.is_legal(ctx.to_move, p))
        .collect();
    legal.sort_by(|a, b| cmp_worst_first(scores, a.index(), b.index()));
    legal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_go_to_the_lower_index_in_both_orders() {
        let mut scores = [0f32; NN];
        scores[7] = 2.0;
        scores[3] = 1.0;
        scores[5] = 1.0;
        scores[9] = f32::NAN;
        let mut pts = [5u8, 9, 3, 7, 0, 1];
        sort_worst_first(&mut pts, &scores);
        // NaN sorts above every number in the total order: worst.
        assert_eq!(pts, [9, 7, 3, 5, 0, 1]);
        let mut best = pts;
        best.sort_by(|&a, &b| cmp_best_first(&scores, a as usize, b as usize));
        assert_eq!(best, [0, 1, 3, 5, 7, 9]);
        assert_eq!(cmp_worst_first(&scores, 3, 5), Ordering::Less);
        assert_eq!(cmp_best_first(&scores, 3, 5), Ordering::Less);
        // -0.0 ranks below 0.0 in the total order, so it is the better score.
        scores[20] = -0.0;
        assert_eq!(cmp_worst_first(&scores, 20, 21), Ordering::Greater);
    }
}
