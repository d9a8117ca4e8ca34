//! Synthetic training positions from seeded random games, for tests and smoke runs without
//! real game records. Half of the moves answer next to the previous move (a pattern a
//! network can learn); the rest are uniform among legal non-eye points.

use crate::dataset::{NO_POINT, Position};
use crate::rules::tables::NEIGHBOUR_MASK;
use crate::rules::{BOARD, Board, Color, NN, Point};
use crate::util::rng::FastRng;

/// Positions (before each move, with the move played) from `games` random games.
pub fn random_game_positions(games: usize, seed: u64) -> Vec<Position> {
    let mut out = Vec::new();
    for g in 0..games {
        let mut rng = FastRng::for_stream(seed, g as u64);
        let mut board = Board::new();
        let mut color = Color::Black;
        let mut last = [NO_POINT; 4];
        for n in 0..120u16 {
            let near = if (last[0] as usize) < NN && rng.below(2) == 0 {
                NEIGHBOUR_MASK[last[0] as usize]
            } else {
                BOARD
            };
            let before = board;
            let Some(p) = board
                .random_move(color, near, &mut rng)
                .or_else(|| board.random_move(color, BOARD, &mut rng))
            else {
                break;
            };
            out.push(Position {
                cells: *before.cells(),
                to_move: color as u8,
                played: p.index() as u8,
                move_number: n,
                last_moves: last,
                ko: before
                    .ko_point()
                    .map_or(NO_POINT, |k: Point| k.index() as u8),
                winner: 0,
                black_rank: i8::MIN,
                white_rank: i8::MIN,
                game: g as u32,
                search: None,
                teacher: None,
            });
            board.play_legal(color, p);
            last = [p.index() as u8, last[0], last[1], last[2]];
            color = color.opponent();
        }
    }
    out
}
