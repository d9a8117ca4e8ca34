//! The rules of 9x9 Go: coordinates, the fast board, the game layer and scoring.
//!
//! Layering (KataGo's core/game split): [`coord`] and [`tables`] are pure data; [`board`] is
//! the copyable playout board (no history); [`game`] adds history, superko, passes and komi;
//! [`score`] counts finished positions.

pub mod board;
pub mod coord;
pub mod game;
pub mod score;
pub mod tables;

pub use board::{Board, Candidates, CellsError, Color, IllegalMove};
pub use coord::{CoordError, Move, N, NN, NO_POINT, PASS_INDEX, Point};
pub use game::{Game, MAX_KOMI, Scoring, check_komi, komi_arg, komi_in_range};
pub use tables::{BOARD, BitIter, Bits, bit};
