//! The game so far at every position of a split, as KataGo's analysis protocol wants it:
//! the stones where the record's history starts (`initialStones`, `initialPlayer`) and the
//! moves since (`moves`), so the teacher knows the ko and the history itself.
//!
//! A dataset stores positions, not games; the history of record `i` is the run of records
//! before it of the same game whose moves lead, one by one, to its stones (a game's
//! records are written in order). Where that run breaks (a pass left out, a game cut) the
//! history starts again at the record itself; [`Histories::restarts`] counts them.

use crate::gtp::json_analysis::protocol::{PlacedMove, Query};

use crate::dataset::{MappedSplit, Position};
use crate::rules::{Board, Color, Move, NN};

/// The slot of a pass.
const PASS: usize = NN;

/// What a query needs of one record.
#[derive(Debug, Clone, Copy)]
struct Step {
    to_move: u8,
    played: u8,
    /// Passes played between the previous record's move and this record (0 at a start).
    passes_before: u8,
}

/// Every record's history in one split.
pub struct Histories {
    steps: Vec<Step>,
    /// The record each record's history starts at.
    start: Vec<u32>,
    /// The stones at each history start (keyed by record).
    stones: std::collections::HashMap<u32, [u8; NN]>,
}

impl Histories {
    /// Reads every record of `split` once.
    pub fn of(split: &MappedSplit) -> anyhow::Result<Histories> {
        let n = split.len();
        let mut steps = Vec::with_capacity(n);
        let mut start = Vec::with_capacity(n);
        let mut stones = std::collections::HashMap::new();
        let mut prev: Option<Position> = None;
        for i in 0..n {
            let p = split.get(i)?;
            let passes = prev.as_ref().and_then(|q| leads_to(q, &p));
            if passes.is_some() {
                start.push(start[i - 1]);
            } else {
                start.push(i as u32);
                stones.insert(i as u32, p.cells);
            }
            steps.push(Step {
                to_move: p.to_move,
                played: p.played,
                passes_before: passes.unwrap_or(0),
            });
            prev = Some(p);
        }
        Ok(Histories {
            steps,
            start,
            stones,
        })
    }

    /// Records whose history starts at themselves: each game's first record in the split,
    /// and every break.
    pub fn starts(&self) -> usize {
        self.stones.len()
    }

    /// The `initialStones`, `initialPlayer` and `moves` of record `i`'s position, plus
    /// `extra` played after it (a child position), as the fields of `base` (a query) they
    /// replace.
    pub fn query(&self, i: usize, extra: Option<Move>, base: &Query) -> Query {
        let s = self.start[i] as usize;
        let cells = &self.stones[&(s as u32)];
        let initial: Vec<PlacedMove> = cells
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != 0)
            .map(|(p, &c)| placed(c, gtp_of(p as u8)))
            .collect();
        let mut moves: Vec<PlacedMove> = Vec::new();
        for j in s..i {
            let st = self.steps[j];
            moves.push(placed(st.to_move, gtp_of(st.played)));
            let mut c = 3 - st.to_move;
            for _ in 0..self.steps[j + 1].passes_before {
                moves.push(placed(c, "pass".into()));
                c = 3 - c;
            }
        }
        if let Some(m) = extra {
            moves.push(placed(self.steps[i].to_move, m.to_gtp()));
        }
        Query {
            initial_stones: initial.into(),
            initial_player: color_letter(self.steps[s].to_move).to_string().into(),
            moves: moves.into(),
            ..base.clone()
        }
    }

    /// The side to move at record `i` (1 black, 2 white).
    pub fn to_move(&self, i: usize) -> u8 {
        self.steps[i].to_move
    }
}

/// Whether `next` is the position after `prev`'s move in the same game, perhaps with
/// passes left out between them (shown by `next`'s last moves): how many, if it is.
fn leads_to(prev: &Position, next: &Position) -> Option<u8> {
    if prev.game != next.game || next.move_number <= prev.move_number {
        return None;
    }
    let gap = (next.move_number - prev.move_number) as usize;
    let passes = gap - 1;
    // The passes are the newest of `next`'s last moves, and prev's move is right behind them.
    if gap > next.last_moves.len()
        || next.last_moves[..passes]
            .iter()
            .any(|&m| m as usize != PASS)
        || next.last_moves[passes] != prev.played
        || (prev.to_move == next.to_move) != gap.is_multiple_of(2)
    {
        return None;
    }
    let mut board: Board = prev.board();
    let m = Move::from_index(prev.played as usize).ok()?;
    (board.play_move(prev.color(), m).is_ok() && board.cells() == &next.cells)
        .then_some(passes as u8)
}

/// A stone or move of a query: the colour's letter and the point.
fn placed(c: u8, point: String) -> PlacedMove {
    [color_letter(c).to_string(), point]
}

fn color_letter(c: u8) -> &'static str {
    if c == Color::White as u8 { "W" } else { "B" }
}

fn gtp_of(slot: u8) -> String {
    Move::from_index(slot as usize).map_or("pass".into(), |m| m.to_gtp())
}
