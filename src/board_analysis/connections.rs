//! The 16 connection patterns between two stones of one colour (paper E in `docs/papers.md`): diagonal x4,
//! one-space jump x2, two-space jump x2, knight's move x4 and large knight's move x4.
//!
//! A pattern is the offset from the first stone (in flat-index order, so `dr >= 0`) to the
//! second. The 16 offsets are the base shapes under rotation; because a pair is found from
//! its first stone only, the jumps need 2 orientations and the knight's moves 4, while the
//! diagonal is listed in its 4 directions as in the paper (the two upward ones find each pair
//! a second time, which is harmless: connections are unions of points). The connection
//! points are the points strictly between the two stones along the pattern's long side; the
//! connection holds when none of them holds an opponent stone.

use crate::rules::{Bits, Board, Color, N, NN, Point, bit};

/// The five shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PatternKind {
    Diagonal,
    OneSpaceJump,
    TwoSpaceJump,
    Knight,
    LargeKnight,
}

/// One oriented pattern: the second stone sits at `(dr, dc)` from the first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    pub kind: PatternKind,
    pub dr: i8,
    pub dc: i8,
}

const fn pat(kind: PatternKind, dr: i8, dc: i8) -> Pattern {
    Pattern { kind, dr, dc }
}

/// The 16 patterns.
pub const PATTERNS: [Pattern; 16] = {
    use PatternKind::*;
    [
        pat(Diagonal, 1, 1),
        pat(Diagonal, 1, -1),
        pat(Diagonal, -1, 1),
        pat(Diagonal, -1, -1),
        pat(OneSpaceJump, 0, 2),
        pat(OneSpaceJump, 2, 0),
        pat(TwoSpaceJump, 0, 3),
        pat(TwoSpaceJump, 3, 0),
        pat(Knight, 1, 2),
        pat(Knight, 2, 1),
        pat(Knight, 1, -2),
        pat(Knight, 2, -1),
        pat(LargeKnight, 1, 3),
        pat(LargeKnight, 3, 1),
        pat(LargeKnight, 1, -3),
        pat(LargeKnight, 3, -1),
    ]
};

impl Pattern {
    /// Offsets of the connection points from the first stone.
    pub fn between(&self) -> Vec<(i8, i8)> {
        let (dr, dc) = (self.dr, self.dc);
        if dr.abs() == 1 && dc.abs() == 1 {
            return vec![(0, dc), (dr, 0)];
        }
        let mut out = Vec::new();
        if dc.abs() > dr.abs() {
            // long side horizontal: columns strictly between, every row of the rectangle
            for j in 1..dc.abs() {
                for r in 0..=dr.abs() {
                    out.push((r * dr.signum(), j * dc.signum()));
                }
            }
        } else {
            for j in 1..dr.abs() {
                for c in 0..=dc.abs() {
                    out.push((j * dr.signum(), c * dc.signum()));
                }
            }
        }
        out
    }
}

/// A connection found on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connection {
    pub kind: PatternKind,
    pub color: Color,
    pub a: Point,
    pub b: Point,
    /// Connection points that are empty or hold the connection's own stones.
    pub points: Bits,
}

fn offset(p: Point, dr: i8, dc: i8) -> Option<Point> {
    let r = p.row() as i32 + dr as i32;
    let c = p.col() as i32 + dc as i32;
    (0..N as i32)
        .contains(&r)
        .then_some(())
        .filter(|_| (0..N as i32).contains(&c))
        .map(|_| Point::new(r as usize * N + c as usize))
}

/// Every connection of `color` on `board`: pairs of stones of different chains matching a
/// pattern with no opponent stone on a connection point.
pub fn connections(board: &Board, color: Color) -> Vec<Connection> {
    let own = board.stones(color);
    let opp = board.stones(color.opponent());
    let mut out = Vec::new();
    for i in crate::rules::BitIter(own) {
        let a = Point::new(i);
        for p in &PATTERNS {
            let Some(b) = offset(a, p.dr, p.dc) else {
                continue;
            };
            if own & bit(b.index()) == 0 || board.chain_id(a) == board.chain_id(b) {
                continue;
            }
            let mut points: Bits = 0;
            let mut blocked = false;
            for (r, c) in p.between() {
                let q = offset(a, r, c).expect("between points lie inside the rectangle");
                if opp & bit(q.index()) != 0 {
                    blocked = true;
                }
                points |= bit(q.index());
            }
            if !blocked {
                out.push(Connection {
                    kind: p.kind,
                    color,
                    a,
                    b,
                    points,
                });
            }
        }
    }
    debug_assert!(out.iter().all(|c| c.points >> NN == 0));
    out
}
