//! Random playouts: play a position out to the end and score it by area with komi.
//!
//! The loop ([`run`]) is fixed; what changes between experiments is the [`PlayoutPolicy`] that
//! picks each move. [`Uniform`] is the paper's light playout: a uniformly random legal move
//! that does not fill the mover's own eye, pass when none is left. Pruning policies (the
//! network's worst share of the empty points, SEEDS.md A) implement the same trait by
//! narrowing the `allowed` mask handed to [`Board::random_move`].

use crate::rules::{BOARD, Bits, Board, Color, Move, Point, score};
use crate::util::rng::FastRng;

/// Tunables of one playout.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct PlayoutConfig {
    /// Stop after this many moves (both colours, passes included) and score as it stands.
    pub max_moves: u32,
    /// Komi given to white when scoring.
    pub komi: f32,
}

impl Default for PlayoutConfig {
    fn default() -> Self {
        PlayoutConfig {
            max_moves: 3 * 81,
            komi: 6.5,
        }
    }
}

/// Picks the next playout move.
pub trait PlayoutPolicy {
    /// The move for `color`, or `None` to pass. May reorder the board's empty list (that is
    /// what [`Board::random_move`] does) but must not change the position.
    fn choose(&mut self, board: &mut Board, color: Color, rng: &mut FastRng) -> Option<Point>;

    /// Chooses the move for `color` and plays it, or returns `None` to pass (the board is then
    /// unchanged). The default plays [`PlayoutPolicy::choose`]'s point with
    /// [`Board::play_legal`]; a policy may fuse the two (as [`Uniform`] does).
    #[inline]
    fn play(&mut self, board: &mut Board, color: Color, rng: &mut FastRng) -> Option<Point> {
        let p = self.choose(board, color, rng)?;
        board.play_legal(color, p);
        Some(p)
    }
}

/// Uniformly random legal non-eye moves (the paper's playout).
#[derive(Debug, Clone, Copy, Default)]
pub struct Uniform;

impl PlayoutPolicy for Uniform {
    #[inline]
    fn choose(&mut self, board: &mut Board, color: Color, rng: &mut FastRng) -> Option<Point> {
        board.random_move(color, BOARD, rng)
    }

    // (always: the playout loop, the draw and the move in one function, without a call per
    // move; see docs/notes-speed.md)
    #[inline(always)]
    fn play(&mut self, board: &mut Board, color: Color, rng: &mut FastRng) -> Option<Point> {
        board.play_random(color, BOARD, rng)
    }
}

/// Uniform choice inside a fixed mask of allowed points, falling back to every point when no
/// allowed move is left, so that playouts still reach the end.
#[derive(Debug, Clone, Copy)]
pub struct Masked {
    pub allowed: Bits,
}

impl PlayoutPolicy for Masked {
    #[inline]
    fn choose(&mut self, board: &mut Board, color: Color, rng: &mut FastRng) -> Option<Point> {
        board
            .random_move(color, self.allowed, rng)
            .or_else(|| board.random_move(color, BOARD, rng))
    }
}

/// How a playout ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayoutResult {
    /// Black's area margin with komi (positive: black wins).
    pub margin: f32,
    /// Moves made, passes included.
    pub moves: u32,
    /// True when the move cap stopped the playout before two passes.
    pub capped: bool,
}

impl PlayoutResult {
    pub fn winner(&self) -> Color {
        if self.margin > 0.0 {
            Color::Black
        } else {
            Color::White
        }
    }
}

/// Plays `board` out with `policy`, `to_move` first, and scores it. `observe` sees every move
/// (for AMAF statistics and tests); pass `|_, _| {}` when not needed.
#[inline]
pub fn run<P, O>(
    board: &mut Board,
    to_move: Color,
    policy: &mut P,
    rng: &mut FastRng,
    config: &PlayoutConfig,
    mut observe: O,
) -> PlayoutResult
where
    P: PlayoutPolicy + ?Sized,
    O: FnMut(Color, Move),
{
    let mut color = to_move;
    let mut passes = 0;
    let mut moves = 0;
    while passes < 2 && moves < config.max_moves {
        match policy.play(board, color, rng) {
            Some(p) => {
                observe(color, Move::Play(p));
                passes = 0;
            }
            None => {
                board
                    .play_move(color, Move::Pass)
                    .expect("pass is always legal");
                observe(color, Move::Pass);
                passes += 1;
            }
        }
        moves += 1;
        color = color.opponent();
    }
    PlayoutResult {
        margin: score::area_margin(board, config.komi),
        moves,
        capped: passes < 2,
    }
}
