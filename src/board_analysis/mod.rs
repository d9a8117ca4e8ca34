//! Board analysis of a classic rule-based Go program (paper E in `docs/papers.md`): chains, the 16
//! connection patterns, groups, influence territory, end-of-game territory, territory-gain
//! candidate moves, and the territory-gain playout policy built on them (the territory player,
//! an engine, is `search::territory`); [`eyes`] tells real eyes from false ones for the
//! diagrams of `akushu analyze`.
//!
//! Reading order: [`chains`] (flood-fill numbering) -> [`connections`] (the 16 patterns and
//! their connection points) -> [`groups`] (chains joined by connections) -> [`territory`]
//! (influence for move generation, the 4-direction scan for game end) -> [`candidates`]
//! (territory gain of each move) -> [`playout`] (the best-gain move and the playout policy).

pub mod candidates;
pub mod chains;
pub mod connections;
pub mod eyes;
pub mod groups;
pub mod playout;
pub mod territory;

pub use candidates::{CandidateMove, best_gain_moves, territory_gains};
pub use chains::{Chain, Chains};
pub use connections::{Connection, PATTERNS, Pattern, PatternKind, connections};
pub use eyes::{Eyes, eyes};
pub use groups::{Group, Groups};
pub use playout::{TerritoryPlayout, choose_best_gain};
pub use territory::{EndConfig, EndTerritory, Influence, end_territory, influence};

use crate::rules::{Bits, N};
use std::fmt::Write as _;

/// Renders a 9x9 diagram with one character per point from `cell(index)`, GTP labels on the
/// edges (used by `akushu analyze` and by test failure messages).
pub fn diagram(mut cell: impl FnMut(usize) -> char) -> String {
    let mut s = String::from("   A B C D E F G H J\n");
    for r in 0..N {
        let _ = write!(s, "{} ", N - r);
        for c in 0..N {
            let _ = write!(s, " {}", cell(r * N + c));
        }
        let _ = writeln!(s, "  {}", N - r);
    }
    s.push_str("   A B C D E F G H J\n");
    s
}

/// A mask as a diagram: `#` for members, `.` otherwise.
pub fn mask_diagram(mask: Bits) -> String {
    diagram(|i| if mask >> i & 1 == 1 { '#' } else { '.' })
}
