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

/// Positions from SGF files, folders or archives (a second source such as the engine games):
/// every main-line move of every record that parses and replays legally. Returns the
/// positions and the number of records skipped (unreadable, unparsable or illegal).
pub fn sgf_positions(inputs: &[std::path::PathBuf]) -> (Vec<Position>, usize) {
    use crate::sgf::{Superko, parse_records, replay, source};
    use std::ops::ControlFlow;
    let mut out = Vec::new();
    let mut skipped = 0usize;
    let mut game = 0u32;
    // A game reached twice (a linked folder, an archive given twice) is counted once.
    let mut seen = std::collections::HashSet::new();
    source::for_each(inputs, |raw| {
        let Ok(raw) = raw else {
            skipped += 1;
            return ControlFlow::Continue(());
        };
        for rec in parse_records(&raw.bytes, &raw.id, &raw.source, Default::default()) {
            let Ok(rec) = rec else {
                skipped += 1;
                continue;
            };
            if !seen.insert(rec.content_key()) {
                skipped += 1;
                continue;
            }
            let mut positions = Vec::new();
            let ok = replay(&rec, Superko::Never, |step| {
                let code = |m: Option<crate::rules::Move>| {
                    m.map_or(crate::rules::NO_POINT, |m| m.index() as u8)
                };
                positions.push(Position {
                    cells: *step.board.cells(),
                    to_move: step.color as u8,
                    played: step.mv.index() as u8,
                    move_number: step.number as u16,
                    last_moves: step.last.map(code),
                    ko: step
                        .board
                        .ko_point()
                        .map_or(crate::rules::NO_POINT, |k| k.index() as u8),
                    winner: rec.result.winner_code(),
                    black_rank: rec.black_rank.unwrap_or(i8::MIN),
                    white_rank: rec.white_rank.unwrap_or(i8::MIN),
                    game,
                    search: None,
                });
            });
            if ok.is_ok() {
                out.extend(positions);
                game += 1;
            } else {
                skipped += 1;
            }
        }
        ControlFlow::Continue(())
    });
    (out, skipped)
}
