//! Territory, two ways (paper E in `docs/papers.md`).
//!
//! * [`influence`] — for move generation: every stone influences the points within Manhattan
//!   distance 2 (up to 12 points); an empty point goes to the colour with more influencing
//!   stones, ties to nobody. Stones own their own point.
//! * [`end_territory`] — for the end of the game: weak groups (`weak_group_max` stones or
//!   fewer) are removed together with their connections, the connection points of the
//!   remaining groups count as territory, and every other empty point is scanned in the 4
//!   directions to the first stone, territory point or edge. It is black's when at most 2
//!   directions hit the edge and more directions hit black than white (so at most 1 hits
//!   white: the paper's "at most 2 hit white" made unambiguous); symmetrically for white.

use super::groups::Groups;
use crate::rules::{BitIter, Bits, Board, Color, N, NN, bit, score::Count};

/// Points within Manhattan distance 1..=2 of each point.
pub const INFLUENCE_MASK: [Bits; NN] = {
    let mut t = [0u128; NN];
    let mut i = 0;
    while i < NN {
        let (r, c) = ((i / N) as i32, (i % N) as i32);
        let mut j = 0;
        while j < NN {
            let (rr, cc) = ((j / N) as i32, (j % N) as i32);
            let d = (r - rr).abs() + (c - cc).abs();
            if d >= 1 && d <= 2 {
                t[i] |= 1u128 << j;
            }
            j += 1;
        }
        i += 1;
    }
    t
};

/// Influence ownership: points owned by black and by white (stones included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Influence {
    pub black: Bits,
    pub white: Bits,
}

impl Influence {
    /// Owned points of `c` minus owned points of its opponent.
    pub fn net(&self, c: Color) -> i32 {
        let (b, w) = (
            self.black.count_ones() as i32,
            self.white.count_ones() as i32,
        );
        match c {
            Color::Black => b - w,
            Color::White => w - b,
        }
    }
}

/// Influence territory from stone masks (used directly by the candidate generator, which
/// evaluates hypothetical moves without copying boards).
#[inline]
pub fn influence_of(black: Bits, white: Bits) -> Influence {
    let mut ob = black;
    let mut ow = white;
    let empty = crate::rules::BOARD & !(black | white);
    for i in BitIter(empty) {
        let m = INFLUENCE_MASK[i];
        let (nb, nw) = ((m & black).count_ones(), (m & white).count_ones());
        if nb > nw {
            ob |= bit(i);
        } else if nw > nb {
            ow |= bit(i);
        }
    }
    Influence {
        black: ob,
        white: ow,
    }
}

/// Influence territory of a position.
pub fn influence(board: &Board) -> Influence {
    influence_of(board.stones(Color::Black), board.stones(Color::White))
}

/// Tunables of the end-of-game territory count.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct EndConfig {
    /// Groups with this many stones or fewer are weak: removed before counting.
    pub weak_group_max: u32,
}

impl Default for EndConfig {
    fn default() -> Self {
        EndConfig { weak_group_max: 4 }
    }
}

/// End-of-game territory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndTerritory {
    /// Empty (or removed) points counted for black / white.
    pub black: Bits,
    pub white: Bits,
    /// Stones of weak groups, taken off before counting.
    pub removed: Bits,
    /// Remaining stones of each colour.
    pub black_stones: Bits,
    pub white_stones: Bits,
}

impl EndTerritory {
    /// Territory only (Japanese-style points, without prisoners).
    pub fn territory(&self) -> Count {
        Count {
            black: self.black.count_ones(),
            white: self.white.count_ones(),
        }
    }
    /// Territory plus remaining stones (area-style).
    pub fn area(&self) -> Count {
        Count {
            black: (self.black | self.black_stones).count_ones(),
            white: (self.white | self.white_stones).count_ones(),
        }
    }
}

/// What a scan in one direction met first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hit {
    Edge,
    Black,
    White,
}

/// Counts end-of-game territory.
pub fn end_territory(board: &Board, config: &EndConfig) -> EndTerritory {
    let groups = Groups::of(board);
    let mut removed: Bits = 0;
    let mut conn = [0 as Bits; 2];
    for g in &groups.list {
        if g.stones.count_ones() <= config.weak_group_max {
            removed |= g.stones;
        } else {
            conn[g.color.idx()] |= g.connection_points;
        }
    }
    let black_stones = board.stones(Color::Black) & !removed;
    let white_stones = board.stones(Color::White) & !removed;
    // a point claimed as connection by both colours is contested: nobody's
    let both = conn[0] & conn[1];
    let (cb, cw) = (conn[0] & !both, conn[1] & !both);
    let hard_black = black_stones | cb;
    let hard_white = white_stones | cw;
    let mut black = cb;
    let mut white = cw;
    let open = crate::rules::BOARD & !(hard_black | hard_white);
    for i in BitIter(open) {
        let (r, c) = ((i / N) as i32, (i % N) as i32);
        let mut hits = [0u32; 3];
        for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
            let (mut rr, mut cc) = (r + dr, c + dc);
            let hit = loop {
                if !(0..N as i32).contains(&rr) || !(0..N as i32).contains(&cc) {
                    break Hit::Edge;
                }
                let j = rr as usize * N + cc as usize;
                if hard_black & bit(j) != 0 {
                    break Hit::Black;
                }
                if hard_white & bit(j) != 0 {
                    break Hit::White;
                }
                rr += dr;
                cc += dc;
            };
            hits[hit as usize] += 1;
        }
        let (edge, hb, hw) = (hits[Hit::Edge as usize], hits[1], hits[2]);
        if edge <= 2 && hb > hw {
            black |= bit(i);
        } else if edge <= 2 && hw > hb {
            white |= bit(i);
        }
    }
    EndTerritory {
        black,
        white,
        removed,
        black_stones,
        white_stones,
    }
}
