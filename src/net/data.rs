//! Where training and evaluation positions come from: a built dataset directory (the
//! dataset builder's splits) or synthetic random games for smoke runs.

use super::NetError;
use super::synthetic::random_game_positions;
use crate::dataset::{Position, Split};
use std::path::Path;

/// Which positions of a dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SplitChoice {
    Train,
    Validation,
    Test,
    /// All three splits together.
    All,
}

impl SplitChoice {
    pub fn splits(self) -> Vec<Split> {
        match self {
            SplitChoice::Train => vec![Split::Train],
            SplitChoice::Validation => vec![Split::Validation],
            SplitChoice::Test => vec![Split::Test],
            SplitChoice::All => Split::ALL.to_vec(),
        }
    }
}

/// Reads one split of the dataset at `dir`.
pub fn read_split(dir: &Path, split: Split) -> Result<Vec<Position>, NetError> {
    crate::dataset::read_split(dir, split)
        .map_err(|e| NetError::Data(format!("{}: {} split: {e}", dir.display(), split.name())))
}

/// Reads `choice` from `dir`; pass moves are kept (the curve counts and skips them).
pub fn read_choice(dir: &Path, choice: SplitChoice) -> Result<Vec<Position>, NetError> {
    let mut out = Vec::new();
    for s in choice.splits() {
        out.extend(read_split(dir, s)?);
    }
    Ok(out)
}

/// Synthetic stand-in for a dataset: `games` random games split 80/10/10 by game.
pub fn synthetic_split(games: usize, seed: u64, split: Split) -> Vec<Position> {
    let all = random_game_positions(games, seed);
    all.into_iter()
        .filter(|p| {
            let bucket = p.game as usize * 10 / games.max(1);
            match split {
                Split::Train => bucket < 8,
                Split::Validation => bucket == 8,
                Split::Test => bucket >= 9,
            }
        })
        .collect()
}
