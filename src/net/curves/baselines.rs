//! Baselines for the error-rate curve: what a network has to beat.
//!
//! These are the curve's own rankings, kept apart from the search's pruners
//! (`prune::random::RandomPruner`, `prune::rules::RulePruner`) on purpose: every score here
//! carries a random tie-break drawn per position, so points that the rules rate alike are
//! pruned in random order rather than in flat-index order, which would bias the curve.
//!
//! - [`RandomBaseline`]: uniform-random badness (seeded, the same for the same position).
//! - [`RuleBaseline`]: a few hand rules, worst first: illegal points, filling one's own eye,
//!   self-atari, first-line points, second-line points; ties broken at random.
//! - [`OracleBaseline`]: knows the recorded move and rates it best: the curve's ceiling. In
//!   the legal-moves form a position with `L` legal moves is an error as soon as `x >= L`,
//!   whatever the network, so no ranking does better than the oracle.

use crate::prune::{PruneContext, Pruner};
use crate::rules::{Bits, NN, Point};
use crate::util::rng::{FastRng, mix64};

/// A per-position stream: the same position (stones, mover, recent moves) gets the same
/// scores, whatever order positions are evaluated in.
fn position_rng(seed: u64, ctx: &PruneContext<'_>) -> FastRng {
    let mut h = mix64(seed ^ ctx.board.hash() ^ (ctx.to_move as u64) << 60);
    for m in ctx.recent {
        h = mix64(h ^ m.index() as u64);
    }
    FastRng::new(h)
}

/// Uniform-random ranking of all points.
#[derive(Debug, Clone, Copy)]
pub struct RandomBaseline {
    pub seed: u64,
}

impl Pruner for RandomBaseline {
    fn name(&self) -> String {
        format!("random:{}", self.seed)
    }
    fn reads_history(&self) -> bool {
        true
    }
    fn badness(&self, ctx: &PruneContext<'_>, out: &mut [f32; NN]) {
        let mut rng = position_rng(self.seed, ctx);
        for v in out.iter_mut() {
            *v = rng.unit() as f32;
        }
    }
}

/// Weight of each rule (badness adds up); a random value in [0, 1) breaks ties.
const ILLEGAL: f32 = 16.0;
const OWN_EYE: f32 = 8.0;
const SELF_ATARI: f32 = 4.0;
const FIRST_LINE: f32 = 2.0;
const SECOND_LINE: f32 = 1.0;

/// Hand-written rule ranking.
#[derive(Debug, Clone, Copy)]
pub struct RuleBaseline {
    pub seed: u64,
}

fn line(p: Point) -> usize {
    let (r, c) = (p.row(), p.col());
    r.min(c).min(8 - r).min(8 - c)
}

impl Pruner for RuleBaseline {
    fn name(&self) -> String {
        format!("rules:{}", self.seed)
    }
    fn reads_history(&self) -> bool {
        true
    }
    fn badness(&self, ctx: &PruneContext<'_>, out: &mut [f32; NN]) {
        let mut rng = position_rng(self.seed, ctx);
        let (b, c) = (ctx.board, ctx.to_move);
        let empty: Bits = b.empty_bits();
        for p in Point::all() {
            let i = p.index();
            let mut s = rng.unit() as f32;
            if empty & (1u128 << i) == 0 || !b.is_legal(c, p) {
                s += ILLEGAL;
            } else {
                if b.is_eye(c, p) {
                    s += OWN_EYE;
                }
                if b.is_self_atari(c, p) {
                    s += SELF_ATARI;
                }
                match line(p) {
                    0 => s += FIRST_LINE,
                    1 => s += SECOND_LINE,
                    _ => {}
                }
            }
            out[i] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Board, Color};

    #[test]
    fn rules_rank_edges_below_centre_and_stones_worst() {
        let board = Board::from_diagram(
            ".........\n.........\n.........\n.........\n....X....\n.........\n.........\n.........\n.........",
        )
        .unwrap();
        let ctx = PruneContext {
            board: &board,
            to_move: Color::White,
            recent: &[],
        };
        let mut s = [0.0; NN];
        RuleBaseline { seed: 1 }.badness(&ctx, &mut s);
        let idx = |r: usize, c: usize| r * 9 + c;
        assert!(s[idx(4, 4)] > s[idx(0, 0)]); // occupied is worst
        assert!(s[idx(0, 4)] > s[idx(1, 4)]); // first line worse than second
        assert!(s[idx(1, 4)] > s[idx(3, 3)]); // second line worse than centre
        let mut again = [0.0; NN];
        RuleBaseline { seed: 1 }.badness(&ctx, &mut again);
        assert_eq!(s, again);
        RandomBaseline { seed: 2 }.badness(&ctx, &mut again);
        assert_ne!(s, again);
    }
}

/// The ceiling of the curve: the recorded move scores 0, every other point 1 (a scorer, not
/// a pruner: it reads the answer from the dataset position).
#[derive(Debug, Clone, Copy, Default)]
pub struct OracleBaseline;

impl crate::net::inference::scorer::PositionScorer for OracleBaseline {
    fn name(&self) -> String {
        "oracle".into()
    }
    fn score(
        &self,
        pos: &crate::dataset::Position,
        _board: &crate::rules::Board,
        out: &mut [f32; NN],
    ) {
        out.fill(1.0);
        if let Some(v) = out.get_mut(pos.played as usize) {
            *v = 0.0;
        }
    }
}

#[cfg(test)]
mod oracle_tests {
    use super::*;
    use crate::net::curves::curve::evaluate;

    #[test]
    fn the_oracle_errs_only_where_every_legal_move_is_pruned() {
        let positions = crate::net::training::synthetic::random_game_positions(3, 11);
        let c = evaluate(&OracleBaseline, &positions, &|_| {});
        assert_eq!(c.top_k(1), 1.0);
        // Legal form: error at x = share of positions with at most x legal moves.
        for x in [5, 20, 40, 60] {
            let few = positions
                .iter()
                .filter(|p| (p.played as usize) < NN)
                .filter(|p| {
                    let board = p.board();
                    let legal = crate::net::inference::encode::NetInput::from_position(p, &board)
                        .legal_mask()
                        .iter()
                        .filter(|&&l| l)
                        .count();
                    legal <= x
                })
                .count();
            assert!(
                (c.error_legal(x) - few as f64 / c.n as f64).abs() < 1e-12,
                "x {x}"
            );
        }
    }
}
