//! Chains: orthogonally connected stones of one colour, numbered by flood fill in flat-index
//! order (paper E in `docs/papers.md`). The board keeps chains incrementally for play; this numbering is the
//! analysis view (stable numbers 1, 2, ... that groups and diagrams refer to).

use crate::rules::{Bits, Board, Color, NN, bit, tables::flood};

/// One chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chain {
    pub color: Color,
    pub stones: Bits,
    pub liberties: Bits,
}

/// All chains of a position. `id[i]` is 0 on empty points, else the chain number (1-based,
/// in order of each chain's lowest point).
#[derive(Debug, Clone)]
pub struct Chains {
    pub id: [u8; NN],
    pub list: Vec<Chain>,
}

impl Chains {
    /// Numbers the chains of `board` by flood fill.
    pub fn of(board: &Board) -> Chains {
        let mut id = [0u8; NN];
        let mut list = Vec::new();
        let empty = board.empty_bits();
        let mut done: Bits = 0;
        for i in 0..NN {
            let Some(color) = board.color_at(crate::rules::Point::new(i)) else {
                continue;
            };
            if done & bit(i) != 0 {
                continue;
            }
            let stones = flood(bit(i), board.stones(color));
            done |= stones;
            list.push(Chain {
                color,
                stones,
                liberties: crate::rules::tables::grow(stones) & empty,
            });
            for s in crate::rules::BitIter(stones) {
                id[s] = list.len() as u8;
            }
        }
        Chains { id, list }
    }

    /// The chain with number `n` (1-based).
    pub fn get(&self, n: u8) -> &Chain {
        &self.list[n as usize - 1]
    }
}
