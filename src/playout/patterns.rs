//! 3x3 shape patterns for heavy playouts and tree priors (MoGo's hane/cut/edge patterns,
//! as written in Gelly et al. 2006 and in michi's `pat3src`).
//!
//! A pattern describes the eight neighbours of an empty point; the point is a "good shape"
//! move for either colour when its neighbourhood matches one pattern under any of the eight
//! board symmetries, with the colours swapped or not. All matches are expanded once into a
//! 65,536-bit table indexed by the neighbourhood code ([`code_at`]: 2 bits a neighbour,
//! 0 empty, 1 black, 2 white, 3 off the board), so a lookup is one load.

use std::sync::OnceLock;

use crate::rules::{Bits, Board, N, NN, Point};

/// Pattern sources: rows top to bottom, the centre is the move. `X`/`O` are stones of the
/// two colours (either way round), `.` empty, `?` anything including off-board, `x` not `X`
/// (empty, `O` or off-board), `o` not `O`, ` ` off the board.
const SOURCES: [[&str; 3]; 13] = [
    ["XOX", "...", "???"], // hane: enclosing hane
    ["XO.", "...", "?.?"], // hane: non-cutting hane
    ["XO?", "X..", "x.?"], // hane: magari
    [".O.", "X..", "..."], // katatsuke / diagonal attachment
    ["XO?", "O.x", "?x?"], // cut1: unprotected cut
    ["XO?", "O.X", "???"], // cut1: peeped cut
    ["?X?", "O.O", "ooo"], // cut2
    ["OX?", "o.O", "???"], // cut keima
    ["X.?", "O.?", "   "], // side: chase
    ["OX?", "X.O", "   "], // side: block side cut
    ["?X?", "x.O", "   "], // side: block side connection
    ["?XO", "x.x", "   "], // side: sagari
    ["?OX", "X.O", "   "], // side: cut
];

/// Cell values in a neighbourhood code.
const EMPTY: u16 = 0;
const BLACK: u16 = 1;
const WHITE: u16 = 2;
const EDGE: u16 = 3;

/// Row/column offsets of the eight neighbours, in code order (bit pair k = neighbour k).
const OFFSETS: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

/// The eight neighbours of every point in code order, `NN` for off-board ones.
const NEIGHBOURS8: [[u8; 8]; NN] = {
    let mut t = [[NN as u8; 8]; NN];
    let mut i = 0;
    while i < NN {
        let (r, c) = ((i / N) as i32, (i % N) as i32);
        let mut k = 0;
        while k < 8 {
            let (rr, cc) = (r + OFFSETS[k].0, c + OFFSETS[k].1);
            if rr >= 0 && rr < N as i32 && cc >= 0 && cc < N as i32 {
                t[i][k] = (rr as usize * N + cc as usize) as u8;
            }
            k += 1;
        }
        i += 1;
    }
    t
};

/// Each point with its eight neighbours, as a mask (the heavy playout's local area).
pub const AREA3: [Bits; NN] = {
    let mut t = [0 as Bits; NN];
    let mut i = 0;
    while i < NN {
        t[i] = 1 << i;
        let mut k = 0;
        while k < 8 {
            let n = NEIGHBOURS8[i][k] as usize;
            if n < NN {
                t[i] |= 1 << n;
            }
            k += 1;
        }
        i += 1;
    }
    t
};

/// The eight neighbours of `p` in code order (`NN` = off the board).
pub fn neighbours8(p: Point) -> [u8; 8] {
    NEIGHBOURS8[p.index()]
}

/// The neighbourhood code of `p` on `board`. Off-board neighbours read the board's spare
/// cell, which holds [`EDGE`].
#[inline]
pub fn code_at(board: &Board, p: Point) -> u16 {
    let cells = board.cells_padded();
    let mut code = 0u16;
    for (k, &n) in NEIGHBOURS8[p.index()].iter().enumerate() {
        code |= (cells[n as usize] as u16) << (2 * k);
    }
    code
}

/// True when the empty point `p` is a pattern move (for either colour).
#[inline]
pub fn is_pattern_move(board: &Board, p: Point) -> bool {
    let code = code_at(board, p);
    table()[(code >> 6) as usize] & (1u64 << (code & 63)) != 0
}

/// The expanded table: bit `code` is set when that neighbourhood matches a pattern.
fn table() -> &'static [u64; 1024] {
    static T: OnceLock<Box<[u64; 1024]>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = Box::new([0u64; 1024]);
        for src in SOURCES {
            for grid in symmetries(&parse(src)) {
                for swapped in [false, true] {
                    let g = if swapped { swap_colours(&grid) } else { grid };
                    expand(&g, 0, 0, &mut t);
                }
            }
        }
        t
    })
}

/// A pattern as a 3x3 grid of characters.
type Grid = [[u8; 3]; 3];

fn parse(src: [&str; 3]) -> Grid {
    let mut g = [[b' '; 3]; 3];
    for (r, row) in src.iter().enumerate() {
        for (c, ch) in row.bytes().enumerate() {
            g[r][c] = ch;
        }
    }
    debug_assert_eq!(
        g[1][1], b'.',
        "the centre of a pattern is the empty move point"
    );
    g
}

/// The eight rotations and reflections of a grid.
fn symmetries(g: &Grid) -> Vec<Grid> {
    let rot = |g: &Grid| {
        let mut o = [[0u8; 3]; 3];
        for (r, row) in o.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                *cell = g[2 - c][r];
            }
        }
        o
    };
    let flip = |g: &Grid| {
        let mut o = *g;
        for row in o.iter_mut() {
            row.reverse();
        }
        o
    };
    let mut out = Vec::with_capacity(8);
    let mut cur = *g;
    for _ in 0..4 {
        out.push(cur);
        out.push(flip(&cur));
        cur = rot(&cur);
    }
    out
}

fn swap_colours(g: &Grid) -> Grid {
    let mut o = *g;
    for cell in o.iter_mut().flatten() {
        *cell = match *cell {
            b'X' => b'O',
            b'O' => b'X',
            b'x' => b'o',
            b'o' => b'x',
            other => other,
        };
    }
    o
}

/// Which cell values a pattern character stands for (`X` = black, `O` = white here; the
/// colour-swapped grid covers the other way round).
fn values(ch: u8) -> &'static [u16] {
    match ch {
        b'X' => &[BLACK],
        b'O' => &[WHITE],
        b'.' => &[EMPTY],
        b' ' => &[EDGE],
        b'x' => &[EMPTY, WHITE, EDGE],
        b'o' => &[EMPTY, BLACK, EDGE],
        _ => &[EMPTY, BLACK, WHITE, EDGE], // '?'
    }
}

/// Sets every code the grid matches, choosing neighbour `k`'s value recursively.
fn expand(g: &Grid, k: usize, code: u16, t: &mut [u64; 1024]) {
    if k == 8 {
        t[(code >> 6) as usize] |= 1u64 << (code & 63);
        return;
    }
    let (dr, dc) = OFFSETS[k];
    let ch = g[(1 + dr) as usize][(1 + dc) as usize];
    for &v in values(ch) {
        expand(g, k + 1, code | (v << (2 * k)), t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(b: &Board, gtp: &str) -> bool {
        let p = crate::rules::Move::from_gtp(gtp).unwrap().point().unwrap();
        is_pattern_move(b, p)
    }

    #[test]
    fn hane_and_cut_shapes_match_and_empty_areas_do_not() {
        // Rows from the top (row 9) down. Black C7 and white D7 face each other: D6 is the
        // hane under white's stone (non-cutting hane: "XO." over "...").
        let b = Board::from_diagram(
            ".........\n\
             .........\n\
             ..XO.....\n\
             .........\n\
             .........\n\
             .........\n\
             .....XO..\n\
             .....OX..\n\
             .........",
        )
        .unwrap();
        assert!(at(&b, "D6"), "hane under the white stone");
        assert!(at(&b, "C6"), "hane under the black stone, mirrored");
        assert!(!at(&b, "E5"), "nothing around");
        assert!(!at(&b, "A1"), "empty corner");
    }

    #[test]
    fn table_is_colour_symmetric() {
        let t = table();
        for code in 0u32..65536 {
            let mut swapped = 0u32;
            for k in 0..8 {
                let v = (code >> (2 * k)) & 3;
                let w = match v {
                    1 => 2,
                    2 => 1,
                    x => x,
                };
                swapped |= w << (2 * k);
            }
            let a = t[(code >> 6) as usize] >> (code & 63) & 1;
            let b = t[(swapped >> 6) as usize] >> (swapped & 63) & 1;
            assert_eq!(a, b, "code {code:#x}");
        }
    }

    #[test]
    fn side_patterns_need_the_edge() {
        // "X.?" / "O.?" on the edge row below: a chase along the first line.
        let b = Board::from_diagram(
            ".........\n\
             .........\n\
             .........\n\
             .........\n\
             .........\n\
             .........\n\
             .........\n\
             X........\n\
             O........",
        )
        .unwrap();
        assert!(at(&b, "B1"), "chase on the first line");
        let lone = Board::from_diagram(
            ".........\n\
             .........\n\
             .........\n\
             .........\n\
             .........\n\
             .........\n\
             .........\n\
             .X.......\n\
             .........",
        )
        .unwrap();
        assert!(!at(&lone, "B1"), "one stone on the edge is no shape");
    }
}
