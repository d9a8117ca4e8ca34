//! Random playouts: play a position out to the end and score it by area with komi.
//!
//! The loop ([`run`]) is fixed; what changes between experiments is the [`PlayoutPolicy`] that
//! picks each move. [`Uniform`] is the paper's light playout: a uniformly random legal move
//! that does not fill the mover's own eye, pass when none is left. Pruning policies (the
//! network's worst share of the empty points, paper A in `docs/papers.md`) implement the same trait by
//! narrowing the `allowed` mask handed to [`Board::random_move`].

pub mod heavy;
pub mod ladder;
pub mod patterns;

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

    #[inline]
    fn play(&mut self, board: &mut Board, color: Color, rng: &mut FastRng) -> Option<Point> {
        board
            .play_random(color, self.allowed, rng)
            .or_else(|| board.play_random(color, BOARD, rng))
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
    observe: O,
) -> PlayoutResult
where
    P: PlayoutPolicy + ?Sized,
    O: FnMut(Color, Move),
{
    let mut game = Steps {
        board,
        policy,
        rng,
        observe,
        passes: 0,
        moves: 0,
        max_moves: config.max_moves,
    };
    // The loop unrolled by colour: each colour gets its own copy of the draw and the move,
    // with the colour a constant (measured 3% faster than a colour variable).
    let white_first = to_move == Color::White && game.step(Color::White);
    if to_move == Color::Black || white_first {
        while game.step(Color::Black) && game.step(Color::White) {}
    }
    let (passes, moves) = (game.passes, game.moves);
    PlayoutResult {
        margin: score::area_margin(game.board, config.komi),
        moves,
        capped: passes < 2,
    }
}

/// The state of a playout in progress (see [`run`]).
struct Steps<'a, P: ?Sized, O> {
    board: &'a mut Board,
    policy: &'a mut P,
    rng: &'a mut FastRng,
    observe: O,
    passes: u32,
    moves: u32,
    max_moves: u32,
}

impl<P, O> Steps<'_, P, O>
where
    P: PlayoutPolicy + ?Sized,
    O: FnMut(Color, Move),
{
    /// One move (or pass) by `color`; false, without moving, when the playout is over (two
    /// passes in a row or the move cap).
    #[inline(always)]
    fn step(&mut self, color: Color) -> bool {
        if self.passes >= 2 || self.moves >= self.max_moves {
            return false;
        }
        match self.policy.play(self.board, color, self.rng) {
            Some(p) => {
                (self.observe)(color, Move::Play(p));
                self.passes = 0;
            }
            None => {
                self.board
                    .play_move(color, Move::Pass)
                    .expect("pass is always legal");
                (self.observe)(color, Move::Pass);
                self.passes += 1;
            }
        }
        self.moves += 1;
        true
    }
}
