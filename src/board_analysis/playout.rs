//! The move generator of the paper's program before Monte-Carlo (paper E in `docs/papers.md`):
//! a random best territory-gain move. [`TerritoryPlayout`] uses it as a playout policy
//! (`uct:playout=territory`) and falls back to a uniform random move instead of passing, so
//! that playouts still reach the end of the game. The player that passes when no move gains
//! is `search::territory::TerritoryPlayer`: it implements the search layer's `Engine` trait,
//! so it lives in that layer, above this one.

use super::candidates::territory_gains;
use crate::playout::PlayoutPolicy;
use crate::rules::{BOARD, Board, Color, Point};
use crate::util::rng::FastRng;

/// Picks uniformly among the legal best-gain moves that `allowed` accepts; `None` when the
/// best gain is below `min_gain`.
pub fn choose_best_gain(
    board: &Board,
    color: Color,
    min_gain: i32,
    rng: &mut FastRng,
    mut allowed: impl FnMut(Point) -> bool,
) -> Option<Point> {
    let gains = territory_gains(board, color);
    let best = gains
        .iter()
        .filter(|m| allowed(m.point))
        .map(|m| m.gain)
        .max()?;
    if best < min_gain {
        return None;
    }
    let top: Vec<Point> = gains
        .iter()
        .filter(|m| m.gain == best && allowed(m.point))
        .map(|m| m.point)
        .collect();
    Some(top[rng.below(top.len() as u32) as usize])
}

/// Territory-gain playouts: a random best-gain move while some move gains, otherwise a
/// uniform random legal non-eye move (so that playouts end with two passes as usual).
#[derive(Debug, Clone, Copy, Default)]
pub struct TerritoryPlayout {
    /// Minimum gain for the informed move (1 = the paper's rule).
    pub min_gain: i32,
}

impl TerritoryPlayout {
    pub fn new() -> TerritoryPlayout {
        TerritoryPlayout { min_gain: 1 }
    }
}

impl PlayoutPolicy for TerritoryPlayout {
    fn choose(&mut self, board: &mut Board, color: Color, rng: &mut FastRng) -> Option<Point> {
        let min_gain = self.min_gain.max(1);
        choose_best_gain(board, color, min_gain, rng, |_| true)
            .or_else(|| board.random_move(color, BOARD, rng))
    }
}
