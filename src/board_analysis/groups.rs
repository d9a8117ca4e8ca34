//! Groups: chains joined by connections (paper E in `docs/papers.md`). Each chain starts with its own number;
//! every connection relabels the larger of its two numbers to the smaller, as in the paper.

use super::chains::Chains;
use super::connections::connections;
use crate::rules::{Bits, Board, Color, NN};

/// One group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    pub color: Color,
    pub stones: Bits,
    /// Empty connection points between its chains.
    pub connection_points: Bits,
}

/// All groups of a position. `id[i]` is 0 on empty points, else the group number (1-based).
#[derive(Debug, Clone)]
pub struct Groups {
    pub id: [u8; NN],
    pub list: Vec<Group>,
}

impl Groups {
    /// Finds the groups of both colours.
    pub fn of(board: &Board) -> Groups {
        let chains = Chains::of(board);
        // label[k] = current group label of chain k+1 (labels are chain numbers)
        let mut label: Vec<u8> = (1..=chains.list.len() as u8).collect();
        let mut conn_points = vec![0 as Bits; chains.list.len() + 1];
        for color in [Color::Black, Color::White] {
            for c in connections(board, color) {
                let la = label[chains.id[c.a.index()] as usize - 1];
                let lb = label[chains.id[c.b.index()] as usize - 1];
                let (keep, gone) = (la.min(lb), la.max(lb));
                for l in label.iter_mut() {
                    if *l == gone {
                        *l = keep;
                    }
                }
                conn_points[la as usize] |= c.points;
                conn_points[lb as usize] |= c.points;
                if keep != gone {
                    conn_points[keep as usize] |= conn_points[gone as usize];
                }
            }
        }
        // renumber labels densely in order of first appearance
        let mut dense = vec![0u8; chains.list.len() + 1];
        let mut list: Vec<Group> = Vec::new();
        for (k, chain) in chains.list.iter().enumerate() {
            let l = label[k] as usize;
            if dense[l] == 0 {
                list.push(Group {
                    color: chain.color,
                    stones: 0,
                    connection_points: 0,
                });
                dense[l] = list.len() as u8;
            }
            let g = &mut list[dense[l] as usize - 1];
            g.stones |= chain.stones;
        }
        let empty = board.empty_bits();
        for (l, &d) in dense.iter().enumerate() {
            if d != 0 {
                list[d as usize - 1].connection_points |= conn_points[l] & empty;
            }
        }
        let mut id = [0u8; NN];
        for (k, g) in list.iter().enumerate() {
            for s in crate::rules::BitIter(g.stones) {
                id[s] = k as u8 + 1;
            }
        }
        Groups { id, list }
    }
}
