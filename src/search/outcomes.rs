//! What the simulations from a root ended in: the final area margin through each root move
//! (mean and spread: a real score estimate) and each point's final owner (ownership). Kept
//! only when analysis asks for it ([`super::tree::Tree::track_outcomes`]): it costs a
//! territory count per simulation.

use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering::Relaxed};

use crate::rules::score::territories;
use crate::rules::{Board, Color, NN};

/// Slots: one per root move (81 = pass), then the root itself.
const SLOTS: usize = NN + 2;
/// The root's slot.
pub const ROOT: usize = NN + 1;

/// Score and ownership sums since the root last changed; all counters are atomics, so the
/// threads of a shared tree add to them without locks.
pub struct Outcomes {
    /// Simulations recorded per slot.
    n: [AtomicU32; SLOTS],
    /// Sum of black's area margin in half points, per slot.
    sum2: [AtomicI64; SLOTS],
    /// Sum of its square in quarter points, per slot.
    sq4: [AtomicU64; SLOTS],
    /// Per point: simulations that ended with it black's, and white's.
    black: [AtomicU32; NN],
    white: [AtomicU32; NN],
}

/// Black's margin through one slot: simulations, mean and standard deviation in points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreSums {
    pub n: u64,
    pub sum2: i64,
    pub sq4: u64,
}

impl ScoreSums {
    /// Adds another tree's sums (root-parallel searches keep one tree per thread).
    pub fn add(&mut self, o: ScoreSums) {
        self.n += o.n;
        self.sum2 += o.sum2;
        self.sq4 += o.sq4;
    }

    /// Black's mean margin and its standard deviation, in points; none without simulations.
    pub fn mean_stdev(&self) -> Option<(f64, f64)> {
        if self.n == 0 {
            return None;
        }
        let n = self.n as f64;
        let mean = self.sum2 as f64 / 2.0 / n;
        let var = (self.sq4 as f64 / 4.0 / n - mean * mean).max(0.0);
        Some((mean, var.sqrt()))
    }
}

impl Default for Outcomes {
    fn default() -> Self {
        Outcomes {
            n: std::array::from_fn(|_| AtomicU32::new(0)),
            sum2: std::array::from_fn(|_| AtomicI64::new(0)),
            sq4: std::array::from_fn(|_| AtomicU64::new(0)),
            black: std::array::from_fn(|_| AtomicU32::new(0)),
            white: std::array::from_fn(|_| AtomicU32::new(0)),
        }
    }
}

impl Outcomes {
    /// Forgets everything (the root changed).
    pub fn clear(&self) {
        for i in 0..SLOTS {
            self.n[i].store(0, Relaxed);
            self.sum2[i].store(0, Relaxed);
            self.sq4[i].store(0, Relaxed);
        }
        for i in 0..NN {
            self.black[i].store(0, Relaxed);
            self.white[i].store(0, Relaxed);
        }
    }

    /// Records one finished simulation: the root move it went through (none when it ended at
    /// the root), black's margin and the final board.
    pub fn record(&self, first_move: Option<usize>, margin: f32, board: &Board) {
        let m2 = (margin * 2.0).round() as i64;
        let sq = (m2 * m2) as u64;
        for slot in [Some(ROOT), first_move].into_iter().flatten() {
            self.n[slot].fetch_add(1, Relaxed);
            self.sum2[slot].fetch_add(m2, Relaxed);
            self.sq4[slot].fetch_add(sq, Relaxed);
        }
        let (tb, tw) = territories(board, 0);
        for (mut bits, counts) in [
            (board.stones(Color::Black) | tb, &self.black),
            (board.stones(Color::White) | tw, &self.white),
        ] {
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                counts[i].fetch_add(1, Relaxed);
                bits &= bits - 1;
            }
        }
    }

    /// The sums of one slot (a root move's index, or [`ROOT`]).
    pub fn score(&self, slot: usize) -> ScoreSums {
        ScoreSums {
            n: u64::from(self.n[slot].load(Relaxed)),
            sum2: self.sum2[slot].load(Relaxed),
            sq4: self.sq4[slot].load(Relaxed),
        }
    }

    /// Per point, simulations that ended with it black's and white's.
    pub fn owners(&self) -> ([u32; NN], [u32; NN]) {
        (
            std::array::from_fn(|i| self.black[i].load(Relaxed)),
            std::array::from_fn(|i| self.white[i].load(Relaxed)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Move, Point};

    #[test]
    fn sums_give_the_mean_spread_and_owners() {
        let o = Outcomes::default();
        let mut board = Board::new();
        board
            .play_move(Color::Black, Move::Play(Point::from_index(40).unwrap()))
            .unwrap();
        // Black alone on the board owns every point: margin 81 - 7.
        o.record(Some(40), 74.0, &board);
        o.record(Some(40), 70.0, &board);
        o.record(None, -3.5, &board);
        let (mean, sd) = o.score(40).mean_stdev().unwrap();
        assert!(
            (mean - 72.0).abs() < 1e-9 && (sd - 2.0).abs() < 1e-9,
            "{mean} {sd}"
        );
        let root = o.score(ROOT);
        assert_eq!(root.n, 3);
        assert!((root.mean_stdev().unwrap().0 - (74.0 + 70.0 - 3.5) / 3.0).abs() < 1e-9);
        assert_eq!(o.score(3).mean_stdev(), None);
        let (b, w) = o.owners();
        assert_eq!((b[0], w[0], b[80]), (3, 0, 3));
        o.clear();
        assert_eq!(o.score(ROOT).n, 0);
    }
}
