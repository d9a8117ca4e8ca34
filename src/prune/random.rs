//! The control arm: a pruner whose scores are random but reproducible.
//!
//! Scores are a hash of (seed, position, side to move, point), not draws from a generator, so
//! the pruner needs no mutable state (it is shared between search threads) and the same
//! position always gets the same scores within a run: the search can cache them like a
//! network's.

use crate::prune::{PruneContext, Pruner};
use crate::rules::NN;
use crate::util::rng::mix64;

/// Uniform-random badness in `[0, 1)`, fixed per (seed, position, side, point).
#[derive(Debug, Clone, Copy)]
pub struct RandomPruner {
    pub seed: u64,
}

impl RandomPruner {
    pub fn new(seed: u64) -> RandomPruner {
        RandomPruner { seed }
    }
}

impl Pruner for RandomPruner {
    fn name(&self) -> String {
        format!("random:{}", self.seed)
    }
    fn reads_history(&self) -> bool {
        false
    }

    fn badness(&self, ctx: &PruneContext<'_>, out: &mut [f32; NN]) {
        let ko = ctx.board.ko_point().map_or(NN as u64, |p| p.index() as u64);
        let key = mix64(
            self.seed ^ ctx.board.hash() ^ mix64(ctx.to_move as u64 ^ (ko << 8) ^ 0x5eed_0000),
        );
        for (i, v) in out.iter_mut().enumerate() {
            let h = mix64(key ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            *v = (h >> 40) as f32 / (1u64 << 24) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Board, Color, Move, Point};

    #[test]
    fn same_seed_same_scores_other_seed_or_position_differs() {
        let mut b = Board::new();
        let ctx = PruneContext {
            board: &b,
            to_move: Color::Black,
            recent: &[],
        };
        let (mut a, mut a2, mut c) = ([0f32; NN], [0f32; NN], [0f32; NN]);
        RandomPruner::new(1).badness(&ctx, &mut a);
        RandomPruner::new(1).badness(&ctx, &mut a2);
        RandomPruner::new(2).badness(&ctx, &mut c);
        assert_eq!(a, a2);
        assert_ne!(a, c);
        assert!(a.iter().all(|v| (0.0..1.0).contains(v)));
        b.play_move(Color::Black, Move::Play(Point::new(40)))
            .unwrap();
        let ctx = PruneContext {
            board: &b,
            to_move: Color::White,
            recent: &[],
        };
        RandomPruner::new(1).badness(&ctx, &mut a2);
        assert_ne!(a, a2);
    }
}
