//! Heuristic priors for new tree nodes (michi's, after Gelly and Silver's "even game" and
//! Pachi's priors): virtual visits and wins that steer the first simulations at a node to
//! sensible moves until real statistics take over.
//!
//! | heuristic | visits | wins |
//! |---|---:|---:|
//! | every move ("even game") | 10 | 5 |
//! | captures / atari escapes, chain of 1 stone / more | 15 / 30 | all |
//! | 3x3 shape move ([`crate::playout::patterns`]) | 10 | 10 |
//! | common-fate distance 1 / 2 / 3 from the last move | 24 / 22 / 8 | all |
//! | nothing within Manhattan distance 3: first/second line, third line | 10 | 0 / 10 |
//! | self-atari of two or more stones | 10 | 0 |
//! | extension out of atari that a ladder catches (`ladders`, [`crate::playout::ladder`]) | 20 | 0 |
//! | atari that catches a chain in a ladder (`ladders`) | 30 | all |

use crate::playout::heavy::{atari_moves, big_self_atari};
use crate::playout::patterns::is_pattern_move;
use crate::rules::tables::{NEIGHBOUR_MASK, grow};
use crate::rules::{BOARD, BitIter, Bits, Board, Color, N, NN, Point, bit};

const EVEN: (u16, f32) = (10, 5.0);
const CAPTURE_ONE: u16 = 15;
const CAPTURE_MANY: u16 = 30;
const PATTERN: u16 = 10;
const CFG: [u16; 3] = [24, 22, 8];
const EMPTY_AREA: u16 = 10;
const SELF_ATARI: u16 = 10;
const LADDER_ESCAPE: u16 = 20;

/// Prior (visits, wins) for each candidate move of `color`, in the order of `cand`.
/// `last` = the last two moves (most recent first); `ladders` reads ladders.
pub fn heuristic_priors(
    board: &Board,
    color: Color,
    last: [Option<Point>; 2],
    cand: &[u8],
    ladders: bool,
) -> Vec<(u16, f32)> {
    let mut atari = [0u8; NN];
    let n_atari = atari_moves(board, color, BOARD, ladders, &mut atari);
    let (caught, chase) = if ladders {
        (
            crate::playout::ladder::caught_escapes(board, color),
            crate::playout::ladder::ladder_ataris(board, color, BOARD),
        )
    } else {
        (0, 0)
    };
    let mut capture_size = [0u32; NN];
    for &m in &atari[..n_atari] {
        capture_size[m as usize] = largest_chain_in_atari_next_to(board, Point::new(m as usize));
    }
    let dist = last[0].map(|p| cfg_distances(board, p));
    let stones = board.stones(Color::Black) | board.stones(Color::White);
    cand.iter()
        .map(|&c| {
            let p = Point::new(c as usize);
            let (mut v, mut w) = EVEN;
            let mut add = |visits: u16, wins: u16| {
                v += visits;
                w += wins as f32;
            };
            match capture_size[c as usize] {
                0 => {}
                1 => add(CAPTURE_ONE, CAPTURE_ONE),
                _ => add(CAPTURE_MANY, CAPTURE_MANY),
            }
            if is_pattern_move(board, p) {
                add(PATTERN, PATTERN);
            }
            if let Some(d) = &dist {
                let k = d[c as usize] as usize;
                if (1..=CFG.len()).contains(&k) {
                    add(CFG[k - 1], CFG[k - 1]);
                }
            }
            let height = line_height(p);
            if height <= 2 && manhattan_ball(p, 3) & stones == 0 {
                add(EMPTY_AREA, if height == 2 { EMPTY_AREA } else { 0 });
            }
            if big_self_atari(board, color, p) {
                add(SELF_ATARI, 0);
            }
            if caught & bit(c as usize) != 0 {
                add(LADDER_ESCAPE, 0);
            }
            if chase & bit(c as usize) != 0 {
                add(CAPTURE_MANY, CAPTURE_MANY);
            }
            (v, w)
        })
        .collect()
}

/// The size of the largest chain in atari (either colour) next to `p`.
fn largest_chain_in_atari_next_to(board: &Board, p: Point) -> u32 {
    BitIter(NEIGHBOUR_MASK[p.index()])
        .map(Point::new)
        .filter(|&q| board.atari_liberty(q).is_some())
        .map(|q| board.chain_stones(q).count_ones())
        .max()
        .unwrap_or(0)
}

/// Distance to the nearest edge line (0 = first line).
fn line_height(p: Point) -> usize {
    let (r, c) = (p.row(), p.col());
    r.min(c).min(N - 1 - r).min(N - 1 - c)
}

/// Points within Manhattan distance `d` of `p`, `p` itself excluded.
fn manhattan_ball(p: Point, d: usize) -> Bits {
    let mut m = bit(p.index());
    for _ in 0..d {
        m = grow(m) & BOARD;
    }
    m & !bit(p.index())
}

/// Common-fate-graph distance from `from` to every point: stepping between two stones of
/// one chain is free, every other step costs one (255 = farther than the board allows).
pub fn cfg_distances(board: &Board, from: Point) -> [u8; NN] {
    let mut d = [u8::MAX; NN];
    let mut queue = std::collections::VecDeque::with_capacity(NN);
    d[from.index()] = 0;
    queue.push_back(from.index());
    while let Some(i) = queue.pop_front() {
        let here = board.color_at(Point::new(i));
        for n in BitIter(NEIGHBOUR_MASK[i]) {
            let same_chain = here.is_some() && board.color_at(Point::new(n)) == here;
            let nd = d[i] + u8::from(!same_chain);
            if nd < d[n] {
                d[n] = nd;
                if same_chain {
                    queue.push_front(n);
                } else {
                    queue.push_back(n);
                }
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Move;

    fn pt(gtp: &str) -> Point {
        Move::from_gtp(gtp).unwrap().point().unwrap()
    }

    #[test]
    fn cfg_distance_treats_a_chain_as_one_point() {
        let b = Board::from_diagram(
            ".........\n\
             .........\n\
             .........\n\
             .........\n\
             ..XXXX...\n\
             .........\n\
             .........\n\
             .........\n\
             .........",
        )
        .unwrap();
        let d = cfg_distances(&b, pt("C5"));
        assert_eq!(d[pt("F5").index()], 0, "same chain");
        assert_eq!(d[pt("G5").index()], 1, "next to the chain's far end");
        assert_eq!(d[pt("H5").index()], 2);
        assert_eq!(d[pt("F7").index()], 2);
    }

    #[test]
    fn priors_favour_captures_and_punish_empty_first_line() {
        // White D5 in atari next to black's stones: capturing at E5 gets the capture prior.
        let b = Board::from_diagram(crate::playout::heavy::tests::WHITE_D5_IN_ATARI).unwrap();
        let cand: Vec<u8> = [pt("E5"), pt("A1"), pt("C3"), pt("H8")]
            .iter()
            .map(|p| p.index() as u8)
            .collect();
        let pr = heuristic_priors(&b, Color::Black, [Some(pt("D4")), None], &cand, true);
        let rate = |k: usize| pr[k].1 / pr[k].0 as f32;
        assert!(pr[0].0 >= EVEN.0 + CAPTURE_ONE, "{:?}", pr[0]);
        assert!(rate(0) > 0.8);
        // A1: empty first-line corner: a losing prior on top of the even one.
        assert_eq!(pr[1], (EVEN.0 + EMPTY_AREA, EVEN.1));
        // C3 (third line, nothing within distance 3? D4 is at distance 2): no area prior.
        assert!(pr[2].0 >= EVEN.0);
        // H8: second line, nothing near: losing area prior.
        assert_eq!(pr[3], (EVEN.0 + EMPTY_AREA, EVEN.1));
    }
}
