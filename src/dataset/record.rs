//! One training position: the paper's 81 inputs plus what richer models need.

use crate::rules::{Board, Color, Move, NN};

/// Marker for "no point" in `last_moves` and `ko` (defined in [`crate::rules::coord`], which
/// SGF replay below this module also uses).
pub use crate::rules::NO_POINT;

/// Which part of a dataset. Games are split whole: a game never straddles two splits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    Train,
    Validation,
    Test,
}

impl Split {
    pub const ALL: [Split; 3] = [Split::Train, Split::Validation, Split::Test];
    pub fn name(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Validation => "validation",
            Split::Test => "test",
        }
    }
}

/// A position before a move, and the move that was played there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// 0 empty, 1 black, 2 white, flat index `row * 9 + col` (row 0 at the top).
    pub cells: [u8; NN],
    /// 1 black, 2 white.
    pub to_move: u8,
    /// The move played: flat index 0..=80, 81 = pass. The paper's target is 0 here and 1 at
    /// every other point.
    pub played: u8,
    /// 0-based number of this move in its game.
    pub move_number: u16,
    /// The previous moves, newest first: flat index, 81 = pass, [`NO_POINT`] = none.
    pub last_moves: [u8; 4],
    /// The simple-ko point the mover may not take, or [`NO_POINT`].
    pub ko: u8,
    /// The game's winner: 0 unknown or draw, 1 black, 2 white.
    pub winner: u8,
    /// Numeric ranks (1k = 0, 2k = -1, 1d = 1, ...; `i8::MIN` = unknown).
    pub black_rank: i8,
    pub white_rank: i8,
    /// Index of the game in the dataset's game table (the manifest lists ids and sources).
    pub game: u32,
}

impl Position {
    pub fn color(&self) -> Color {
        if self.to_move == 2 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The move played.
    pub fn played_move(&self) -> Move {
        Move::from_index(self.played as usize).expect("stored moves are valid")
    }

    /// Rebuilds the board (chains, liberties, hash) from the cells. The ko point is not part
    /// of it: check `ko` before playing.
    pub fn board(&self) -> Board {
        // Positions come from replayed games or from `decode`, which checks the stones.
        Board::from_cells(&self.cells, [0, 0]).expect("a position's stones have liberties")
    }

    /// The paper's target vector: 0 at the played point, 1 everywhere else.
    pub fn target(&self) -> [u8; NN] {
        let mut t = [1u8; NN];
        if (self.played as usize) < NN {
            t[self.played as usize] = 0;
        }
        t
    }
}
