//! Where training and evaluation positions come from: a built dataset directory (the
//! dataset builder's splits) or synthetic random games for smoke runs.

use super::synthetic::random_game_positions;
use crate::dataset::{Position, Split};
use crate::net::NetError;
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

/// A record [`sgf_positions`] left out: where it came from and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SgfSkip {
    /// A path, `archive!member` or `file.sgfs:line`.
    pub source: String,
    pub why: String,
}

/// Positions from SGF files, folders or archives (a second source such as the engine games):
/// every main-line move of every record that parses and replays legally. Returns the
/// positions and the records skipped (unreadable, unparsable, illegal or a copy), in input
/// order.
pub fn sgf_positions(inputs: &[std::path::PathBuf]) -> (Vec<Position>, Vec<SgfSkip>) {
    let (positions, skipped, _) = sgf_games(inputs);
    (positions, skipped)
}

/// [`sgf_positions`], with each game's identity by game number (the `game` field of its
/// positions): the hash of its content key, the one a dataset built from the same record
/// gives it ([`crate::dataset::gameset::game_hash`]), so `eval --sgf` can check a model's
/// training games.
pub fn sgf_games(inputs: &[std::path::PathBuf]) -> (Vec<Position>, Vec<SgfSkip>, Vec<u64>) {
    use crate::sgf::{Superko, parse_records, replay, source};
    let mut hashes = Vec::new();
    use std::ops::ControlFlow;
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let mut game = 0u32;
    // A game reached twice (a linked folder, an archive given twice) is counted once.
    let mut seen = std::collections::HashSet::new();
    source::for_each(inputs, |raw| {
        let raw = match raw {
            Ok(raw) => raw,
            Err(e) => {
                skipped.push(SgfSkip {
                    source: e.source_name,
                    why: e.reason,
                });
                return ControlFlow::Continue(());
            }
        };
        for rec in parse_records(&raw.bytes, &raw.id, &raw.source, Default::default()) {
            let rec = match rec {
                Ok(rec) => rec,
                Err(e) => {
                    skipped.push(SgfSkip {
                        source: raw.source.clone(),
                        why: e.to_string(),
                    });
                    continue;
                }
            };
            if !seen.insert(rec.content_key()) {
                skipped.push(SgfSkip {
                    source: rec.source.clone(),
                    why: "the same game as a record read before".into(),
                });
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
                    teacher: None,
                });
            });
            match ok {
                Ok(_) => {
                    out.extend(positions);
                    hashes.push(crate::dataset::gameset::game_hash(&rec.content_key()));
                    game += 1;
                }
                Err(e) => skipped.push(SgfSkip {
                    source: rec.source.clone(),
                    why: e.to_string(),
                }),
            }
        }
        ControlFlow::Continue(())
    });
    (out, skipped, hashes)
}

/// Refuses a `--mix` dataset (a loop's `train.mix`) whose training split holds no position:
/// it would add nothing to the mix, silently, while the run reports it mixed in.
pub fn check_mix(mix: &crate::net::inference::model::MixSource) -> anyhow::Result<()> {
    let dir = Path::new(&mix.data);
    let header = crate::dataset::read_header(dir, Split::Train)
        .map_err(|e| anyhow::anyhow!("mix {}: {e}", mix.data))?;
    if header.count == 0 {
        anyhow::bail!(
            "mix {}: its training split holds no position, so it would add nothing to the \
             mix: give a dataset with training positions, or leave it out",
            mix.data
        );
    }
    Ok(())
}
