//! Scoring: area (Tromp-Taylor) and a Japanese-style territory count.
//!
//! Both work on masks: the empty points a colour "reaches" are those connected to its stones
//! through empty points. An empty region reached by one colour only is that colour's.

use super::board::{Board, Color};
use super::tables::{Bits, flood, grow};

/// Points counted for each side, before komi.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub black: u32,
    pub white: u32,
}

impl Count {
    /// Black's margin with komi: positive means black wins.
    pub fn margin(self, komi: f32) -> f32 {
        self.black as f32 - self.white as f32 - komi
    }
}

/// Empty points that reach only black and only white, treating `removed` stones as empty.
pub fn territories(board: &Board, removed: Bits) -> (Bits, Bits) {
    let black = board.stones(Color::Black) & !removed;
    let white = board.stones(Color::White) & !removed;
    let empty = board.empty_bits() | removed;
    let reach = |stones: Bits| {
        if stones == 0 {
            0
        } else {
            flood(grow(stones) & empty, empty)
        }
    };
    let (reach_b, reach_w) = (reach(black), reach(white));
    (reach_b & !reach_w, reach_w & !reach_b)
}

/// Tromp-Taylor area: stones plus empty points that reach only that colour's stones.
pub fn area(board: &Board) -> Count {
    let (tb, tw) = territories(board, 0);
    Count {
        black: (board.stones(Color::Black) | tb).count_ones(),
        white: (board.stones(Color::White) | tw).count_ones(),
    }
}

/// Area count with the `dead` stones taken off first: their points join the territory
/// around them (Chinese counting after agreeing on dead stones).
pub fn area_without(board: &Board, dead: Bits) -> Count {
    let (tb, tw) = territories(board, dead);
    Count {
        black: ((board.stones(Color::Black) & !dead) | tb).count_ones(),
        white: ((board.stones(Color::White) & !dead) | tw).count_ones(),
    }
}

/// Japanese-style count: territory plus prisoners. `dead` stones are taken off first, count as
/// prisoners for their capturer, and their points join the surrounding territory.
pub fn territory(board: &Board, dead: Bits) -> Count {
    let (tb, tw) = territories(board, dead);
    let dead_black = (board.stones(Color::Black) & dead).count_ones();
    let dead_white = (board.stones(Color::White) & dead).count_ones();
    Count {
        black: tb.count_ones() + board.captures(Color::Black) + dead_white,
        white: tw.count_ones() + board.captures(Color::White) + dead_black,
    }
}

/// Fast area margin for finished playouts: identical to [`area`], kept separate so the
/// playout loop has one obvious call.
#[inline]
pub fn area_margin(board: &Board, komi: f32) -> f32 {
    area(board).margin(komi)
}
