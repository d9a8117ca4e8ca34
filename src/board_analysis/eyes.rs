//! Eyes as a player reads them: an empty point whose orthogonal neighbours are all one
//! colour's stones is that colour's eye; it is a *real* eye when its diagonals hold too few
//! opponent stones to cut it (at most one in the middle, none on the edge or in a corner)
//! and a *false* eye otherwise, one the opponent can make the owner fill. The test is
//! [`Board::is_eye`], the one the playouts use to keep their own eyes.

use crate::rules::tables::NEIGHBOUR_MASK;
use crate::rules::{BitIter, Bits, Board, Color, Point, bit};

/// The eyes of both colours on a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Eyes {
    /// Empty points surrounded by one colour whose diagonals keep them eyes.
    pub real: Bits,
    /// Empty points surrounded by one colour whose opposing diagonals make them false.
    pub false_eyes: Bits,
}

/// Every real and false eye of either colour.
pub fn eyes(board: &Board) -> Eyes {
    let mut out = Eyes::default();
    for i in BitIter(board.empty_bits()) {
        for c in [Color::Black, Color::White] {
            if NEIGHBOUR_MASK[i] & !board.stones(c) != 0 {
                continue;
            }
            if board.is_eye(c, Point::new(i)) {
                out.real |= bit(i);
            } else {
                out.false_eyes |= bit(i);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_diagonal_makes_an_edge_eye_false() {
        // Black A9 is a corner eye with a black diagonal; E9 an edge eye with white on D8.
        let p = |s: &str| crate::rules::Move::from_gtp(s).unwrap().point().unwrap();
        let black: Vec<Point> = ["B9", "C9", "D9", "F9", "G9", "A8", "B8", "C8", "E8", "F8"]
            .map(p)
            .to_vec();
        let mut board = Board::new();
        board.setup(&black, &[p("D8")], &[]).unwrap();
        let e = eyes(&board);
        assert_eq!(e.real, bit(p("A9").index()));
        assert_eq!(e.false_eyes, bit(p("E9").index()));
    }
}
