//! What a model was trained on: the datasets (by fingerprint) behind its weights, through
//! `--init-from` chains, and the set of games it learned from or was selected on, kept
//! beside the weights as `training_games.hashes`. `eval` compares an evaluated split with
//! that set; `train --resume` refuses data with another fingerprint.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::model::{MixSource, TrainConfig, config_path, model_checksum};
pub use super::origin::{DataRef, Imported, Parent, Provenance};
use crate::dataset::gameset::{DatasetGames, GameSet};
use crate::dataset::{Manifest, Split};

/// The file beside the weights that holds the training games' hashes.
pub const GAMES_FILE: &str = "training_games.hashes";

/// The file beside a model trained before provenance was kept that records it afterwards
/// (its `config.json` is left as it was).
pub const RECOVERED_FILE: &str = "provenance.json";

/// A dataset's fingerprint and the hashes of the games in `splits`; `None` for the hashes
/// when the dataset lists none.
fn dataset_games(dir: &Path, splits: &[Split]) -> Result<(DataRef, Option<Vec<u64>>)> {
    let manifest = Manifest::load(dir).with_context(|| format!("{}", dir.display()))?;
    let games = DatasetGames::read(dir)?;
    Ok((
        DataRef {
            path: dir.display().to_string(),
            fingerprint: manifest.fingerprint,
            splits: splits.iter().map(|s| s.name().to_string()).collect(),
            teacher: manifest.teacher.map(|t| t.teacher),
        },
        games.map(|g| g.of(splits)),
    ))
}

/// The provenance of a run on `data` (none for synthetic games) with `mix`, started from
/// `init_from`, and its training games.
pub fn of_run(
    data: Option<&Path>,
    mix: &[MixSource],
    init_from: Option<&Path>,
) -> Result<(Provenance, GameSet)> {
    let mut datasets = Vec::new();
    let mut unknown = Vec::new();
    let mut hashes = Vec::new();
    let mut sources: Vec<(PathBuf, Vec<Split>)> = Vec::new();
    match data {
        Some(d) => sources.push((d.to_path_buf(), vec![Split::Train, Split::Validation])),
        None => unknown.push("synthetic random games (no dataset)".to_string()),
    }
    sources.extend(
        mix.iter()
            .map(|m| (PathBuf::from(&m.data), vec![Split::Train])),
    );
    for (dir, splits) in sources {
        let (r, games) = dataset_games(&dir, &splits)?;
        match games {
            Some(g) => hashes.extend(g),
            None => unknown.push(format!(
                "{} lists no game hashes (built by an older akushu: rebuild it)",
                dir.display()
            )),
        }
        datasets.push(r);
    }
    let mut set = GameSet::new(hashes);
    let parent = match init_from {
        None => None,
        Some(dir) => {
            let model = ModelGames::load(dir)?;
            match (&model.games, &model.unknown) {
                (Ok(g), None) => set = set.union(g),
                (Ok(g), Some(why)) => {
                    set = set.union(g);
                    unknown.push(format!("init-from {}: {why}", dir.display()));
                }
                (Err(why), _) => unknown.push(format!("init-from {}: {why}", dir.display())),
            }
            Some(Box::new(Parent {
                path: dir.display().to_string(),
                checksum: model_checksum(dir)?,
                provenance: model.provenance,
            }))
        }
    };
    Ok((
        Provenance {
            datasets,
            init_from: parent,
            games: set.len() as u64,
            unknown,
            recovered: None,
            game_sets: Vec::new(),
            imported: None,
        },
        set,
    ))
}

/// Records the provenance of a model trained before provenance was kept: `datasets` are the
/// datasets its whole `--init-from` chain trained on (rebuilt as they were), `parent` the
/// model it started from, `note` how the datasets were identified. Each dataset's train and
/// validation games go to `dir/FINGERPRINT.hashes`, inside the model directory (a model
/// folder copied elsewhere keeps them), and `dir/provenance.json` names them. Refused when
/// the model records provenance.
pub fn recover(
    dir: &Path,
    datasets: &[PathBuf],
    parent: Option<&Path>,
    note: &str,
) -> Result<Provenance> {
    if ModelGames::load(dir)?.provenance.is_some() {
        bail!(
            "{} records its provenance already: nothing to recover",
            dir.display()
        );
    }
    if datasets.is_empty() {
        bail!("--recover needs the datasets the model's chain was trained on (--data DIR)");
    }
    let splits = [Split::Train, Split::Validation];
    let mut refs = Vec::new();
    let mut game_sets = Vec::new();
    let mut games = GameSet::default();
    for d in datasets {
        let (r, hashes) = dataset_games(d, &splits)?;
        let hashes = hashes.with_context(|| {
            format!(
                "{} lists no game hashes: rebuild it with this akushu",
                d.display()
            )
        })?;
        if r.fingerprint.is_empty() {
            bail!(
                "{} has no fingerprint: rebuild it with this akushu",
                d.display()
            );
        }
        let set = GameSet::new(hashes);
        let name = format!("{}.hashes", r.fingerprint);
        let file = dir.join(&name);
        if file.exists() {
            if GameSet::read(&file)? != set {
                bail!("{} holds another game set", file.display());
            }
        } else {
            set.write(&file)?;
        }
        game_sets.push(name);
        games = games.union(&set);
        refs.push(r);
    }
    let parent = match parent {
        None => None,
        Some(p) => Some(Box::new(Parent {
            path: p.display().to_string(),
            checksum: model_checksum(p)?,
            provenance: ModelGames::load(p)?.provenance,
        })),
    };
    let provenance = Provenance {
        datasets: refs,
        init_from: parent,
        games: games.len() as u64,
        unknown: Vec::new(),
        recovered: Some(note.to_string()),
        game_sets,
        imported: None,
    };
    write_recovered(dir, &provenance)?;
    Ok(provenance)
}

/// Writes `provenance` as model `dir`'s recovered provenance ([`RECOVERED_FILE`]).
pub fn write_recovered(dir: &Path, provenance: &Provenance) -> Result<()> {
    let path = dir.join(RECOVERED_FILE);
    let json = serde_json::to_string_pretty(provenance)?;
    crate::util::fsio::write_atomic(&path, json.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}

/// Sets `config.provenance` for a run into `out` and writes its training games beside
/// it. On a resume the saved provenance must name the same datasets by fingerprint.
pub fn record(
    config: &mut TrainConfig,
    out: &Path,
    data: Option<&Path>,
    resume: bool,
) -> Result<()> {
    let init_from = config.init_from.as_ref().map(PathBuf::from);
    let (now, games) = of_run(data, &config.mix, init_from.as_deref())?;
    if resume && let Some(saved) = &config.provenance {
        let prints = |p: &Provenance| -> Vec<String> {
            p.datasets.iter().map(|d| d.fingerprint.clone()).collect()
        };
        if prints(saved) != prints(&now) {
            bail!(
                "--resume: the run in {} was trained on datasets with fingerprints {:?}, these \
                 have {:?}: resume with the same data",
                out.display(),
                prints(saved),
                prints(&now)
            );
        }
        return Ok(());
    }
    games.write(&out.join(GAMES_FILE))?;
    config.provenance = Some(now);
    Ok(())
}

/// Beside a model's recorded games: the same games under their SGF identity, for models whose
/// game sets hold self-play games by their older identity
/// ([`selfplay_moves_hash`](crate::dataset::gameset::selfplay_moves_hash)); read with them.
pub const SGF_IDENTITIES_FILE: &str = "training_games.sgf.hashes";

/// Finds every SGF under `sgf_dirs` (the self-play games of loops, committed beside their
/// candidates) whose older self-play identity is among model `dir`'s training games and
/// adds its SGF identity to [`SGF_IDENTITIES_FILE`] in `dir` (kept with what is there: run it
/// again with more folders and nothing is lost). Returns the games matched and the SGFs read.
/// The weights and every other file stay as they are.
pub fn add_sgf_identities(dir: &Path, sgf_dirs: &[PathBuf]) -> Result<(usize, usize)> {
    let recorded = ModelGames::load(dir)?.games.map_err(|why| {
        anyhow::anyhow!("{}: its training games are unknown: {why}", dir.display())
    })?;
    let (mut found, mut read) = (Vec::new(), 0usize);
    for d in sgf_dirs {
        for f in crate::dataset::gameset::sgf_files_in(d)? {
            let rec = crate::dataset::gameset::read_sgf_game(&f)?;
            read += 1;
            let moves = rec.moves.iter().map(|(_, m)| match m {
                crate::rules::Move::Pass => None,
                crate::rules::Move::Play(p) => Some(p.index()),
            });
            if recorded.contains(crate::dataset::gameset::selfplay_moves_hash(moves)) {
                found.push(crate::dataset::gameset::game_hash(&rec.content_key()));
            }
        }
    }
    let matched = found.len();
    let file = dir.join(SGF_IDENTITIES_FILE);
    if matched == 0 {
        // Nothing to map: the model folder stays exactly as it was.
        return Ok((0, read));
    }
    let mut set = GameSet::new(found);
    if file.is_file() {
        set = set.union(&GameSet::read(&file)?);
    }
    set.write(&file)?;
    Ok((matched, read))
}

/// A model directory's provenance and training games, as far as it recorded them.
pub struct ModelGames {
    pub provenance: Option<Provenance>,
    /// The training games it recorded, or why none are known.
    pub games: std::result::Result<GameSet, String>,
    /// Training data it could not list (a dataset without game hashes, a parent without
    /// provenance): its recorded games are then only part of its training games. A game
    /// among them is still a training game, so an overlap with them is still refused.
    pub unknown: Option<String>,
}

impl ModelGames {
    pub fn load(dir: &Path) -> Result<ModelGames> {
        let config = TrainConfig::from_file(&config_path(dir))?;
        let recovered = dir.join(RECOVERED_FILE);
        let provenance = match config.provenance {
            Some(p) => Some(p),
            None if recovered.is_file() => {
                let text = std::fs::read_to_string(&recovered)
                    .with_context(|| format!("reading {}", recovered.display()))?;
                Some(
                    serde_json::from_str(&text)
                        .with_context(|| format!("parsing {}", recovered.display()))?,
                )
            }
            None => None,
        };
        let Some(provenance) = provenance else {
            return Ok(ModelGames {
                provenance: None,
                games: Err(
                    "it records no training data (trained before provenance was kept)".into(),
                ),
                unknown: None,
            });
        };
        let unknown = (!provenance.unknown.is_empty()).then(|| provenance.unknown.join("; "));
        let recorded = dir.join(GAMES_FILE);
        let games = if provenance.game_sets.is_empty() {
            match &unknown {
                // The games it could list, when it wrote them.
                Some(why) if !recorded.is_file() => Err(why.clone()),
                _ => Ok(GameSet::read(&recorded)?),
            }
        } else {
            let mut all = GameSet::default();
            for f in &provenance.game_sets {
                let file = dir.join(f);
                if !file.is_file() {
                    bail!(
                        "{}: its provenance names the game set {f}, which is not at {} (a \
                         model folder copied without the shared set it names: copy {f} \
                         into the folder and name it there, or recover its provenance again)",
                        dir.display(),
                        file.display()
                    );
                }
                all = all.union(&GameSet::read(&file)?);
            }
            Ok(all)
        };
        // The same games under their SGF identity, where they were mapped.
        let sgf = dir.join(SGF_IDENTITIES_FILE);
        let games = match games {
            Ok(set) if sgf.is_file() => Ok(set.union(&GameSet::read(&sgf)?)),
            other => other,
        };
        Ok(ModelGames {
            provenance: Some(provenance),
            games,
            unknown,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provenance_round_trips_through_config_json() {
        let p = Provenance {
            datasets: vec![DataRef {
                path: "data/x".into(),
                fingerprint: "0123456789abcdef".into(),
                splits: vec!["train".into()],
                teacher: None,
            }],
            init_from: Some(Box::new(Parent {
                path: "models/a".into(),
                checksum: crate::util::checksum::Checksum::of(b"c"),
                provenance: None,
            })),
            games: 3,
            unknown: vec![],
            recovered: None,
            game_sets: vec![],
            imported: None,
        };
        let mut c = TrainConfig::new(super::super::model::NetKind::Mlp);
        c.provenance = Some(p.clone());
        let back: TrainConfig = serde_json::from_str(&c.to_json()).unwrap();
        assert_eq!(back.provenance, Some(p));
    }
}
