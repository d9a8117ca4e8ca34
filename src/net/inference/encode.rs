//! Network inputs: the paper's 81 cells (or one-hot planes) for the MLP, feature planes for
//! the CNN, legality masks, and the 8 board symmetries used for augmentation.
//!
//! Everything here reads a [`NetInput`], which both training ([`Position`]) and the search
//! ([`PruneContext`]) can produce, so training and play encode positions the same way.

use crate::dataset::{NO_POINT, Position};
use crate::prune::{PruneContext, recent_from_last};
use crate::rules::{Board, Color, Move, N, NN, Point};
use serde::{Deserialize, Serialize};

/// How the MLP sees the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MlpEncoding {
    /// The paper's input: one value per point, 0 empty, 1 black, 2 white (81 inputs).
    Paper,
    /// Three 0/1 planes relative to the side to move: own, opponent, empty (243 inputs).
    OneHot,
    /// The CNN's feature planes flattened (liberties, ko, last moves, legality; 1134 inputs).
    Planes,
}

impl MlpEncoding {
    /// Number of input values.
    pub fn width(self) -> usize {
        match self {
            MlpEncoding::Paper => NN,
            MlpEncoding::OneHot => 3 * NN,
            MlpEncoding::Planes => CNN_PLANES * NN,
        }
    }
}

/// Number of CNN input planes (see [`cnn_planes`] for the order).
pub const CNN_PLANES: usize = 14;

/// A position as the networks see it.
#[derive(Debug, Clone, Copy)]
pub struct NetInput<'a> {
    pub board: &'a Board,
    pub to_move: Color,
    /// The point simple ko forbids, if any.
    pub ko: Option<Point>,
    /// The last two moves, newest first (flat index, 81 = pass, [`NO_POINT`] = none).
    pub last: [u8; 2],
}

impl<'a> NetInput<'a> {
    /// From a dataset position; `board` must be `pos.board()`.
    pub fn from_position(pos: &Position, board: &'a Board) -> NetInput<'a> {
        NetInput {
            board,
            to_move: pos.color(),
            ko: (pos.ko != NO_POINT).then(|| Point::new(pos.ko as usize)),
            last: [pos.last_moves[0], pos.last_moves[1]],
        }
    }

    /// From what a pruner is given in the search.
    pub fn from_context(ctx: &PruneContext<'a>) -> NetInput<'a> {
        let mut last = [NO_POINT; 2];
        for (slot, m) in last.iter_mut().zip(ctx.recent.iter().rev()) {
            *slot = m.index() as u8;
        }
        NetInput {
            board: ctx.board,
            to_move: ctx.to_move,
            ko: ctx.board.ko_point(),
            last,
        }
    }

    /// This input as a network that reads no last moves sees it: `last` emptied unless
    /// `history` ([`CnnConfig::history`](super::cnn::CnnConfig::history)).
    pub fn with_history(self, history: bool) -> NetInput<'a> {
        if history {
            self
        } else {
            NetInput {
                last: [NO_POINT; 2],
                ..self
            }
        }
    }

    /// Whether the side to move may play at `p` (occupied, suicide and ko are illegal).
    pub fn is_legal(&self, p: Point) -> bool {
        Some(p) != self.ko && self.board.is_legal(self.to_move, p)
    }

    /// The legality of every point.
    pub fn legal_mask(&self) -> [bool; NN] {
        let mut m = [false; NN];
        for p in Point::all() {
            m[p.index()] = self.is_legal(p);
        }
        m
    }
}

/// Writes the MLP input for `enc` into `out` (length `enc.width()`).
pub fn mlp_input(enc: MlpEncoding, inp: &NetInput<'_>, out: &mut [f32]) {
    let cells = inp.board.cells();
    match enc {
        MlpEncoding::Paper => {
            for (o, &c) in out[..NN].iter_mut().zip(cells.iter()) {
                *o = c as f32;
            }
        }
        MlpEncoding::OneHot => {
            out[..3 * NN].fill(0.0);
            let own = inp.to_move as u8;
            for (i, &c) in cells.iter().enumerate() {
                let plane = if c == 0 {
                    2
                } else if c == own {
                    0
                } else {
                    1
                };
                out[plane * NN + i] = 1.0;
            }
        }
        MlpEncoding::Planes => cnn_planes(inp, out),
    }
}

/// Writes the CNN planes (`CNN_PLANES * 81` values, plane-major) into `out`:
/// 0 own stones, 1 opponent stones, 2 empty, 3-5 own chains with 1/2/3+ liberties,
/// 6-8 opponent chains with 1/2/3+ liberties, 9 ko point, 10 last move, 11 the move before,
/// 12 legal for the side to move, 13 all ones when black moves.
pub fn cnn_planes(inp: &NetInput<'_>, out: &mut [f32]) {
    let out = &mut out[..CNN_PLANES * NN];
    out.fill(0.0);
    let cells = inp.board.cells();
    let own = inp.to_move as u8;
    for p in Point::all() {
        let i = p.index();
        let c = cells[i];
        if c == 0 {
            out[2 * NN + i] = 1.0;
            if inp.is_legal(p) {
                out[12 * NN + i] = 1.0;
            }
            continue;
        }
        let base = if c == own { 0 } else { 1 };
        out[base * NN + i] = 1.0;
        let libs = inp.board.liberty_count(p).clamp(1, 3) as usize;
        out[(3 + base * 3 + libs - 1) * NN + i] = 1.0;
    }
    if let Some(k) = inp.ko {
        out[9 * NN + k.index()] = 1.0;
    }
    for (j, &m) in inp.last.iter().enumerate() {
        if (m as usize) < NN {
            out[(10 + j) * NN + m as usize] = 1.0;
        }
    }
    if inp.to_move == Color::Black {
        out[13 * NN..14 * NN].fill(1.0);
    }
}

/// Maps a flat point index through symmetry `sym` (0..8; 0 is the identity): bit 2 transposes,
/// bit 0 flips rows, bit 1 flips columns. Pass (81) and [`NO_POINT`] map to themselves.
pub fn sym_point(sym: u8, idx: u8) -> u8 {
    if idx as usize >= NN {
        return idx;
    }
    let (mut r, mut c) = (idx as usize / N, idx as usize % N);
    if sym & 4 != 0 {
        std::mem::swap(&mut r, &mut c);
    }
    if sym & 1 != 0 {
        r = N - 1 - r;
    }
    if sym & 2 != 0 {
        c = N - 1 - c;
    }
    (r * N + c) as u8
}

/// The position seen through symmetry `sym` (stones, played move, last moves, ko, a
/// self-play record's visits and ownership, and a teacher's policy, ownership and per-move
/// values moved).
pub fn sym_position(pos: &Position, sym: u8) -> Position {
    let mut out = pos.clone();
    if sym == 0 {
        return out;
    }
    for i in 0..NN {
        out.cells[sym_point(sym, i as u8) as usize] = pos.cells[i];
    }
    if let (Some(t), Some(src)) = (out.search.as_mut(), pos.search.as_ref()) {
        for i in 0..NN {
            let j = sym_point(sym, i as u8) as usize;
            t.visits[j] = src.visits[i];
            if let (Some(o), Some(s)) = (t.ownership.as_mut(), src.ownership.as_ref()) {
                o[j] = s[i];
            }
        }
    }
    if let (Some(t), Some(src)) = (out.teacher.as_mut(), pos.teacher.as_ref()) {
        for i in 0..NN {
            let j = sym_point(sym, i as u8) as usize;
            t.policy[j] = src.policy[i];
            t.ownership[j] = src.ownership[i];
            if let (Some(m), Some(s)) = (t.moves.as_mut(), src.moves.as_ref()) {
                m.winrate[j] = s.winrate[i];
                m.score_lead[j] = s.score_lead[i];
            }
        }
    }
    out.played = sym_point(sym, pos.played);
    out.ko = sym_point(sym, pos.ko);
    for (o, &m) in out.last_moves.iter_mut().zip(pos.last_moves.iter()) {
        *o = sym_point(sym, m);
    }
    out
}

/// The recent-move list a search would pass for `pos` (oldest first, newest last).
pub fn recent_moves(pos: &Position) -> Vec<Move> {
    let mut buf = [Move::Pass; 2];
    recent_from_last([pos.last_moves[0], pos.last_moves[1]], &mut buf).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_are_distinct_bijections() {
        let mut images = std::collections::HashSet::new();
        for s in 0..8u8 {
            let mut seen = [false; NN];
            for i in 0..NN as u8 {
                seen[sym_point(s, i) as usize] = true;
            }
            assert!(seen.iter().all(|&b| b), "sym {s} is not a bijection");
            images.insert((0..NN as u8).map(|i| sym_point(s, i)).collect::<Vec<_>>());
        }
        assert_eq!(images.len(), 8);
        assert_eq!(sym_point(3, 81), 81);
    }

    #[test]
    fn symmetries_move_the_visits_and_owners_with_the_stones() {
        use crate::dataset::record::{SearchTarget, VISIT_SLOTS};
        let mut cells = [0u8; NN];
        cells[1] = 1;
        let mut visits = [0u16; VISIT_SLOTS];
        visits[2] = 9;
        visits[NN] = 4;
        let mut own = [0u8; NN];
        own[1] = 1;
        let pos = Position {
            cells,
            to_move: 2,
            played: 2,
            move_number: 1,
            last_moves: [1, NO_POINT, NO_POINT, NO_POINT],
            ko: NO_POINT,
            winner: 1,
            black_rank: 0,
            white_rank: 0,
            game: 0,
            search: Some(Box::new(SearchTarget {
                visits,
                value: 0.5,
                simulations: 13,
                ownership: Some(own),
                score: 1.5,
            })),
            teacher: None,
        };
        for sym in 0..8u8 {
            let s = sym_position(&pos, sym);
            let t = s.search.as_ref().unwrap();
            assert_eq!(t.visits[sym_point(sym, 2) as usize], 9, "sym {sym}");
            assert_eq!(t.visits[NN], 4, "pass stays");
            assert_eq!(t.visits.iter().map(|&v| v as u32).sum::<u32>(), 13);
            assert_eq!(t.ownership.unwrap()[sym_point(sym, 1) as usize], 1);
            assert_eq!(s.played, sym_point(sym, 2));
        }
    }

    #[test]
    fn one_hot_is_relative_to_the_mover() {
        let board = Board::from_diagram("X........\n.O.......\n.........\n.........\n.........\n.........\n.........\n.........\n.........").unwrap();
        let inp = NetInput {
            board: &board,
            to_move: Color::White,
            ko: None,
            last: [NO_POINT; 2],
        };
        let mut v = vec![0.0; 3 * NN];
        mlp_input(MlpEncoding::OneHot, &inp, &mut v);
        assert_eq!(v[10], 1.0); // white stone at (1,1) is "own"
        assert_eq!(v[NN], 1.0); // black stone at (0,0) is "opponent"
        assert_eq!(v.iter().sum::<f32>(), 81.0);
        let mut p = vec![0.0; NN];
        mlp_input(MlpEncoding::Paper, &inp, &mut p);
        assert_eq!((p[0], p[10], p[1]), (1.0, 2.0, 0.0));
    }
}
