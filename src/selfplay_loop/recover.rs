//! Provenance for a loop candidate trained before it was kept (`akushu provenance MODEL
//! --recover-loop LOOP --generation N`), from what a committed loop folder holds: its
//! `loop.toml` (window, split fractions, seed, mixes), `state.json` (the candidate's checksum
//! and the network it started from), and each window generation's `selfplay/games.csv` and
//! `sgf/`. A game's split follows from its seed alone (`dataset::build::assign_splits_by_id`
//! over `selfplay-{seed}` with the loop's seed, as the loop's datasets were built), and its
//! identity from its SGF, so the training and validation games are known exactly without the
//! uncommitted records. The parent's training games join them; a mixed dataset that is not
//! here is named as unknown (its games then count as unseen).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use serde::Deserialize;

use super::{DataSection, LoopState};
use crate::arena::selfplay_run::{SelfplayDir, game_id};
use crate::dataset::Split;
use crate::dataset::build::assign_splits_by_id;
use crate::dataset::gameset::{GameSet, game_hash, read_sgf_game};
use crate::net::model::model_checksum;
use crate::net::provenance::{DataRef, ModelGames, Parent, Provenance, write_recovered};

/// The keys of a recorded `loop.toml` that say what a candidate trained on. Read alone, so a
/// folder recorded under keys since refused (a share-threshold gate) still reads.
#[derive(Debug, Deserialize)]
struct RecordedLoop {
    seed: u64,
    #[serde(default)]
    data: DataSection,
    #[serde(default)]
    train: RecordedTrain,
}

#[derive(Debug, Default, Deserialize)]
struct RecordedTrain {
    #[serde(default)]
    mix: Vec<crate::net::model::MixSource>,
}

/// What a recovery found, besides the provenance it wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recovered {
    /// Self-play games of the window in the training and validation splits.
    pub selfplay_games: usize,
    /// Their moves that are not passes: the positions the candidate's dataset trained on
    /// (training split only), to compare with `state.json`'s `train_positions`.
    pub selfplay_train_positions: u64,
    /// All training games recorded (the window's and the parent's).
    pub games: usize,
}

/// Records the provenance of generation `generation`'s candidate of the loop folder
/// `loop_dir` in the candidate's own folder (`provenance.json` and one game set); refused
/// when the candidate records one already or its weights are not the ones `state.json` names.
pub fn recover_candidate(loop_dir: &Path, generation: u32) -> anyhow::Result<Recovered> {
    let path = loop_dir.join("loop.toml");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let config: RecordedLoop =
        toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let state = LoopState::load(&loop_dir.join("state.json"))?;
    let Some(g) = state.generations.iter().find(|g| g.index == generation) else {
        bail!(
            "{}: no generation {generation} in state.json",
            loop_dir.display()
        );
    };
    let gen_dir = |k: u32| loop_dir.join(format!("gen-{k:03}"));
    let model = gen_dir(generation).join("model");
    if ModelGames::load(&model)?.provenance.is_some() {
        bail!(
            "{} records its provenance already: nothing to recover",
            model.display()
        );
    }
    let checksum = model_checksum(&model)?;
    if checksum != g.candidate_checksum {
        bail!(
            "{}: weights {checksum}, but state.json names {} for generation {generation}'s \
             candidate",
            model.display(),
            g.candidate_checksum
        );
    }
    // The window's self-play games in the training and validation splits, by SGF identity.
    let first = generation
        .saturating_sub(config.data.window.saturating_sub(1))
        .max(1);
    let (mut hashes, mut train_positions) = (Vec::new(), 0u64);
    for k in first..=generation {
        let sp = SelfplayDir::new(&gen_dir(k).join("selfplay"));
        let rows = sp.read_rows()?;
        let ids: Vec<String> = rows.iter().map(game_id).collect();
        let splits = assign_splits_by_id(
            ids.iter().map(String::as_str),
            config.data.validation,
            config.data.test,
            config.seed,
        );
        for (row, split) in rows.iter().zip(splits) {
            if split == Split::Test {
                continue;
            }
            let rec = read_sgf_game(&sp.sgf(row.game))?;
            hashes.push(game_hash(&rec.content_key()));
            if split == Split::Train {
                let played = rec
                    .moves
                    .iter()
                    .filter(|(_, m)| !matches!(m, crate::rules::Move::Pass))
                    .count();
                train_positions += played as u64;
            }
        }
    }
    let selfplay_games = hashes.len();
    // The network it started from: a run folder's path maps to this folder's generations.
    let parent_path = match g.best.rsplit_once("/gen-") {
        Some((_, rest)) if g.best.starts_with("runs/") => loop_dir.join(format!("gen-{rest}")),
        _ => PathBuf::from(&g.best),
    };
    let parent_games = ModelGames::load(&parent_path)?;
    let mut unknown = Vec::new();
    let mut set = GameSet::new(hashes);
    match &parent_games.games {
        Ok(p) => set = set.union(p),
        Err(why) => unknown.push(format!("{}: {why}", parent_path.display())),
    }
    for m in &config.train.mix {
        unknown.push(format!(
            "{} (train split, mixed in at share {}): not rebuilt where this was recovered",
            m.data, m.share
        ));
    }
    let file = format!("loop-gen-{generation:03}.hashes");
    set.write(&model.join(&file))?;
    let provenance = Provenance {
        datasets: vec![DataRef {
            path: format!("{}/data", gen_dir(generation).display()),
            fingerprint: String::new(),
            splits: vec!["train".into(), "validation".into()],
            teacher: None,
        }],
        init_from: Some(Box::new(Parent {
            path: parent_path.display().to_string(),
            checksum: g.best_checksum,
            provenance: parent_games.provenance,
        })),
        games: set.len() as u64,
        unknown,
        recovered: Some(format!(
            "the self-play games of generations {first} to {generation} of {} in the training \
             and validation splits (split by each game's seed with the loop's seed {} and \
             fractions {}/{}, as its datasets were built), by their SGFs, with the training \
             games of the network it started from; {train_positions} training positions \
             without passes (state.json: {} with the mixes)",
            loop_dir.display(),
            config.seed,
            config.data.validation,
            config.data.test,
            g.train_positions
        )),
        game_sets: vec![file],
        imported: None,
    };
    write_recovered(&model, &provenance)?;
    Ok(Recovered {
        selfplay_games,
        selfplay_train_positions: train_positions,
        games: set.len(),
    })
}
