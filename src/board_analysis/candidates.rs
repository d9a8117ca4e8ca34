//! Territory-gain candidate moves (paper E in `docs/papers.md`): play each legal point virtually and count
//! the influence territory gained (own points minus the opponent's, after minus before).
//! The hypothetical position is computed on stone masks (placement plus captures), so no
//! board is copied per candidate.

use super::territory::influence_of;
use crate::rules::tables::{NEIGHBOUR_COUNT, NEIGHBOURS};
use crate::rules::{BitIter, Bits, Board, Color, Point, bit};

/// A legal move with its territory gain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CandidateMove {
    pub point: Point,
    pub gain: i32,
}

/// Stones of `c` and of its opponent after `c` plays the legal move `p`.
fn after_move(board: &Board, c: Color, p: Point) -> (Bits, Bits) {
    let i = p.index();
    let own = board.stones(c) | bit(i);
    let mut opp = board.stones(c.opponent());
    for &n in &NEIGHBOURS[i][..NEIGHBOUR_COUNT[i] as usize] {
        let q = Point::new(n as usize);
        if board.color_at(q) == Some(c.opponent()) && board.chain_liberties(q) == bit(i) {
            opp &= !board.chain_stones(q);
        }
    }
    (own, opp)
}

/// Every legal move of `c` that does not fill its own eye, with its territory gain.
pub fn territory_gains(board: &Board, c: Color) -> Vec<CandidateMove> {
    let (b0, w0) = (board.stones(Color::Black), board.stones(Color::White));
    let before = influence_of(b0, w0).net(c);
    let mut out = Vec::new();
    for i in BitIter(board.empty_bits()) {
        let p = Point::new(i);
        if !board.is_legal(c, p) || board.is_eye(c, p) {
            continue;
        }
        let (own, opp) = after_move(board, c, p);
        let (b, w) = match c {
            Color::Black => (own, opp),
            Color::White => (opp, own),
        };
        out.push(CandidateMove {
            point: p,
            gain: influence_of(b, w).net(c) - before,
        });
    }
    out
}

/// The best gain and every move achieving it (empty when no legal move exists).
pub fn best_gain_moves(board: &Board, c: Color) -> (i32, Vec<Point>) {
    let gains = territory_gains(board, c);
    let best = gains.iter().map(|m| m.gain).max().unwrap_or(0);
    let moves = gains
        .iter()
        .filter(|m| m.gain == best)
        .map(|m| m.point)
        .collect();
    (best, moves)
}
