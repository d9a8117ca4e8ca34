//! Replays a record's main line through [`rules::Game`](crate::rules::Game), so every move
//! is checked against the rules core, and hands each position before a move to a visitor.
//!
//! **Superko.** Records from servers (OGS, KGS) were played under the server's rules, and
//! the server was the arbiter: a Japanese-rules game may legally repeat a position, and
//! servers differ on which superko they enforce. So by default ([`Superko::Never`]) replay
//! checks simple ko only and never rejects a record for positional superko;
//! [`Superko::ByRules`] enforces positional superko when `RU` names rules that have it
//! (Chinese, AGA, New Zealand, Tromp-Taylor) and [`Superko::Always`] for every record.
//!
//! **Moves after the end.** On OGS two passes start the stone-removal phase and a player
//! may resume the game; moves after two passes are therefore replayed on the same board
//! (the game layer is restarted from the current position) instead of being refused.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::record::GameRecord;
use crate::rules::{Board, Color, Game, IllegalMove, Move, NO_POINT, Point};

/// When positional superko is enforced during replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Superko {
    /// Simple ko only (the server already judged the record).
    #[default]
    Never,
    /// When the record's `RU` names rules with positional superko.
    ByRules,
    /// For every record.
    Always,
}

impl Superko {
    /// Whether superko applies to a game played under `rules`.
    pub fn applies(self, rules: Option<&str>) -> bool {
        match self {
            Superko::Never => false,
            Superko::Always => true,
            Superko::ByRules => rules.is_some_and(|r| {
                let r = r.to_ascii_lowercase();
                ["chinese", "aga", "nz", "new zealand", "tromp"]
                    .iter()
                    .any(|k| r.contains(k))
            }),
        }
    }
}

/// Why a record does not replay.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReplayError {
    #[error("setup stones are not a legal position: {0}")]
    Setup(String),
    #[error("move {number} {color} {mv} is illegal: {reason}")]
    Illegal {
        /// 1-based move number.
        number: usize,
        color: char,
        /// The move in GTP notation.
        mv: String,
        reason: IllegalMove,
    },
}

impl ReplayError {
    /// The error for move `number` (0-based) of the main line, refused for `reason`.
    fn illegal(number: usize, color: Color, mv: Move, reason: IllegalMove) -> ReplayError {
        ReplayError::Illegal {
            number: number + 1,
            color: color.letter(),
            mv: mv.to_gtp(),
            reason,
        }
    }

    /// Short key for grouping skip counts.
    pub fn kind(&self) -> &'static str {
        match self {
            ReplayError::Setup(_) => "illegal-setup",
            ReplayError::Illegal { reason, .. } => match reason {
                IllegalMove::Occupied(_) => "illegal-occupied",
                IllegalMove::Suicide(_) => "illegal-suicide",
                IllegalMove::Ko(_) => "illegal-ko",
                IllegalMove::Superko(_) => "illegal-superko",
                IllegalMove::GameOver => "illegal-game-over",
            },
        }
    }
}

/// The position before one move, as the visitor sees it.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    /// 0-based move number.
    pub number: usize,
    pub board: &'a Board,
    pub color: Color,
    pub mv: Move,
    /// Up to four previous moves, newest first.
    pub last: [Option<Move>; 4],
}

/// The board after the setup stones of `rec`.
pub fn initial_board(rec: &GameRecord) -> Result<Board, ReplayError> {
    let mut board = Board::new();
    if !(rec.setup_black.is_empty() && rec.setup_white.is_empty()) {
        board
            .setup(&rec.setup_black, &rec.setup_white, &[])
            .map_err(ReplayError::Setup)?;
    }
    Ok(board)
}

/// Replays the main line, calling `visit` before every move; returns the final game.
pub fn replay<F>(rec: &GameRecord, superko: Superko, mut visit: F) -> Result<Game, ReplayError>
where
    F: FnMut(&Step),
{
    let board = initial_board(rec)?;
    let komi = rec.komi.unwrap_or(0.0);
    let first = rec
        .first_player
        .or(rec.moves.first().map(|m| m.0))
        .unwrap_or(Color::Black);
    let superko_on = superko.applies(rec.rules.as_deref());
    let mut game = Game::from_board(board, first, komi);
    game.set_superko(superko_on);
    let mut last: [Option<Move>; 4] = [None; 4];
    for (number, &(color, mv)) in rec.moves.iter().enumerate() {
        if game.is_over() {
            // Play resumed after two passes (OGS stone-removal phase).
            let board = *game.board();
            game = Game::from_board(board, color, komi);
            game.set_superko(superko_on);
        }
        visit(&Step {
            number,
            board: game.board(),
            color,
            mv,
            last,
        });
        game.play_as(color, mv)
            .map_err(|reason| ReplayError::illegal(number, color, mv, reason))?;
        last.rotate_right(1);
        last[0] = Some(mv);
    }
    Ok(game)
}

/// Replays the main line on a bare [`Board`] (simple ko, no superko, no history), calling
/// `visit` before every move. The builder uses it to encode games that [`replay`] already
/// accepted: it gives the same positions (tested) without the game layer's per-move
/// snapshot and hash-set work.
pub fn replay_board<F>(rec: &GameRecord, mut visit: F) -> Result<Board, ReplayError>
where
    F: FnMut(&Step),
{
    let mut board = initial_board(rec)?;
    let mut last: [Option<Move>; 4] = [None; 4];
    for (number, &(color, mv)) in rec.moves.iter().enumerate() {
        visit(&Step {
            number,
            board: &board,
            color,
            mv,
            last,
        });
        board
            .play_move(color, mv)
            .map_err(|reason| ReplayError::illegal(number, color, mv, reason))?;
        last.rotate_right(1);
        last[0] = Some(mv);
    }
    Ok(board)
}

/// Replays without visiting: the legality check alone.
pub fn check(rec: &GameRecord, superko: Superko) -> Result<Game, ReplayError> {
    replay(rec, superko, |_| {})
}

/// Flat index of an optional point for the compact records (`255` for none).
pub fn point_code(p: Option<Point>) -> u8 {
    p.map_or(NO_POINT, |p| p.index() as u8)
}
